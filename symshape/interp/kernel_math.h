// Internal: dense-array helpers shared by the linalg, conv_pool and norm kernel families.
//
// Kernels load a tensor's elements (row-major) into a plain vector of one computation type,
// compute on it, and store the result as a contiguous tensor of the op's dtype:
//   integers (and bool) compute in uint64_t, so that sums and products wrap like PyTorch's
//   fixed-width integers without signed-overflow UB (the final cast wraps to the dtype's width);
//   floating types compute in double; complex types in complex<double>.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "symshape/interp.h"

namespace symshape::interp::kernels::math {

enum class Category { Int, Float, Complex };

inline Category category(DType d) {
  if (is_complex(d)) return Category::Complex;
  if (is_floating(d)) return Category::Float;
  return Category::Int;
}

template <class T>
T from_scalar(const Scalar& s);
template <>
inline double from_scalar<double>(const Scalar& s) {
  return s.as_double();
}
template <>
inline Complex from_scalar<Complex>(const Scalar& s) {
  return s.as_complex();
}
template <>
inline uint64_t from_scalar<uint64_t>(const Scalar& s) {
  return static_cast<uint64_t>(s.as_int());
}

inline Scalar to_scalar(double v) { return Scalar::of_float(v); }
inline Scalar to_scalar(const Complex& v) { return Scalar::of_complex(v); }
inline Scalar to_scalar(uint64_t v) { return Scalar::of_int(static_cast<int64_t>(v)); }

// The tensor's elements in row-major order, converted to T.
template <class T>
std::vector<T> load(const Tensor& t) {
  std::vector<T> out;
  if (!t.defined()) return out;
  out.reserve(static_cast<size_t>(t.numel()));
  t.for_each_position([&](int64_t p) { out.push_back(from_scalar<T>(t.at_position(p))); });
  return out;
}

// A contiguous tensor of `dtype` holding `values` (row-major), each cast to dtype.
template <class T>
Tensor store(DType dtype, const std::vector<int64_t>& sizes, const std::vector<T>& values) {
  Tensor out = Tensor::zeros(dtype, sizes);
  // A fresh contiguous tensor: the position of flat index k is k.
  const size_t n = std::min(values.size(), static_cast<size_t>(out.numel()));
  for (size_t k = 0; k < n; ++k) out.set_position(static_cast<int64_t>(k), to_scalar(values[k]));
  return out;
}

// Calls f with a value of the computation type of `d` (uint64_t, double or Complex).
template <class F>
decltype(auto) dispatch(DType d, F&& f) {
  switch (category(d)) {
    case Category::Int: return f(uint64_t{0});
    case Category::Float: return f(double{0});
    case Category::Complex: break;
  }
  return f(Complex{0, 0});
}

// The product of sizes (non-negative): 0 when any is 0, else saturating at INT64_MAX instead of
// overflowing (callers bound their sizes, or check the result against a limit).
inline int64_t product(const std::vector<int64_t>& sizes) {
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (__builtin_mul_overflow(n, s, &n)) return INT64_MAX;
  }
  return n;
}

// The element count of a result of `sizes`: fails (naming `op`) for a negative size or more
// elements than the interpreter allows, before anything is allocated.
inline int64_t checked_numel(const KernelContext& ctx, const std::vector<int64_t>& sizes,
                             const std::string& op);

// A bound on the number of inner-loop steps a kernel may take (einsum's iteration space, a
// convolution's connection table), so that a huge but empty or sparse shape fails instead of
// running for hours.
inline constexpr int64_t kMaxWork = int64_t{1} << 32;

// Row-major position of a multi-index.
inline int64_t flat_index(const std::vector<int64_t>& sizes, const std::vector<int64_t>& index) {
  int64_t f = 0;
  for (size_t d = 0; d < sizes.size(); ++d) f = f * sizes[d] + index[d];
  return f;
}

// The multi-index of row-major position f.
inline void unflatten(int64_t f, const std::vector<int64_t>& sizes, std::vector<int64_t>& index) {
  index.resize(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = sizes[d] == 0 ? 0 : f % sizes[d];
    f = sizes[d] == 0 ? 0 : f / sizes[d];
  }
}

// "[2, 3]"
inline std::string sizes_str(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

// The most elements (or steps) a kernel computes one by one: 2^28, above every weight and
// product of the models the interpreter runs (VGG's 103 M-element classifier weight), far
// below what would take hours; a result of empty operands too large to allocate fails fast.
inline constexpr int64_t kMaxKernelElements = int64_t{1} << 28;

inline int64_t checked_numel(const KernelContext& ctx, const std::vector<int64_t>& sizes,
                             const std::string& op) {
  for (int64_t s : sizes) {
    if (s < 0) ctx.fail(op + ": negative size in " + sizes_str(sizes));
  }
  const int64_t n = product(sizes);
  if (n > kMaxKernelElements) {
    ctx.fail(op + ": a result of size " + sizes_str(sizes) + " has more than " +
             std::to_string(kMaxKernelElements) + " elements, too many for the interpreter");
  }
  return n;
}

// Checked int64 arithmetic for sizes computed from user parameters: nullopt on overflow.
struct Checked {
  bool overflow = false;
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_add_overflow(a, b, &r);
    return r;
  }
  int64_t sub(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_sub_overflow(a, b, &r);
    return r;
  }
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
};

// A backward op's output_mask: `count` bools, all true when absent.
inline std::vector<bool> output_mask(const KernelContext& ctx, size_t count) {
  std::vector<bool> mask(count, true);
  RValue v = ctx.value("output_mask");
  if (v.kind == RValue::Kind::None) return mask;
  const std::string message = "output_mask must be a list of " + std::to_string(count) + " bools";
  if (v.kind != RValue::Kind::List || v.items.size() != count) ctx.fail(message);
  for (size_t i = 0; i < count; ++i) {
    const RValue& item = v.items[i];
    if (item.kind == RValue::Kind::Bool) {
      mask[i] = item.truth;
    } else if (item.kind == RValue::Kind::Int) {
      mask[i] = item.integer != 0;
    } else {
      ctx.fail(message);
    }
  }
  return mask;
}

}  // namespace symshape::interp::kernels::math
