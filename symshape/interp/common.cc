// Helpers shared by the kernel families.
#include <algorithm>
#include <cmath>

#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/common.h"

namespace symshape::interp::kernels {

int64_t floordiv(int64_t a, int64_t b) {
  if (b == 0) throw Error("ZeroDivisionError: integer division by zero");
  // INT64_MIN // -1 overflows: wrap as PyTorch's int64 arithmetic does.
  if (b == -1) return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a));
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}

int64_t mod(int64_t a, int64_t b) {
  if (b == 0) throw Error("ZeroDivisionError: integer modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double fmod_python(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

DType scalar_dtype(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: return DType::Bool;
    case Scalar::Kind::Int: return DType::Int64;
    case Scalar::Kind::Float: return DType::Float32;
    case Scalar::Kind::Complex: return DType::Complex64;
  }
  return DType::Int64;
}

namespace {

using Maybe = std::optional<DType>;

Maybe promote(Maybe a, DType b) { return a ? promote_types(*a, b) : b; }

// c10's combine_categories: the higher-priority participant class wins unless the lower one is
// of a higher category.
Maybe combine(Maybe higher, Maybe lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_complex(*lower)) {
    if (is_floating(*higher)) return real_to_complex(*higher);
    return lower;
  }
  if (is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

DType result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars) {
  Maybe dim, zero, wrapped;
  for (const Tensor& t : tensors) {
    if (t.rank() == 0)
      zero = promote(zero, t.dtype());
    else
      dim = promote(dim, t.dtype());
  }
  for (const Scalar& s : scalars) wrapped = promote(wrapped, scalar_dtype(s));
  Maybe r = combine(dim, combine(zero, wrapped));
  return r ? *r : DType::Float32;
}

Tensor map(const std::vector<Tensor>& inputs, DType compute, DType out,
           const std::function<Scalar(const std::vector<Scalar>&)>& f) {
  std::vector<int64_t> shape;
  for (const Tensor& t : inputs) {
    auto b = broadcast_shapes(shape, t.sizes());
    if (!b) throw Error("shapes do not broadcast: " + t.str());
    shape = *b;
  }
  std::vector<Tensor> expanded;
  for (const Tensor& t : inputs) expanded.push_back(expand_to(t, shape));
  Tensor result = Tensor::zeros(out, shape);
  const int64_t n = result.numel();
  if (n == 0) return result;
  // An odometer over the shape that moves every input's storage position along; the result is
  // fresh and contiguous, so element k is at position k.
  const size_t rank = shape.size(), count = expanded.size();
  std::vector<int64_t> index(rank, 0), position(count);
  for (size_t j = 0; j < count; ++j) position[j] = expanded[j].offset();
  std::vector<Scalar> args(count);
  for (int64_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < count; ++j)
      args[j] = cast(expanded[j].at_position(position[j]), compute);
    result.set_position(k, f(args));
    for (size_t d = rank; d-- > 0;) {
      for (size_t j = 0; j < count; ++j) position[j] += expanded[j].strides()[d];
      if (++index[d] < shape[d]) break;
      for (size_t j = 0; j < count; ++j) position[j] -= expanded[j].strides()[d] * shape[d];
      index[d] = 0;
    }
  }
  return result;
}

Tensor map1(const Tensor& a, DType compute, DType out,
            const std::function<Scalar(const Scalar&)>& f) {
  return map({a}, compute, out, [&](const std::vector<Scalar>& v) { return f(v[0]); });
}

Tensor map2(const Tensor& a, const Tensor& b, DType compute, DType out,
            const std::function<Scalar(const Scalar&, const Scalar&)>& f) {
  return map({a, b}, compute, out, [&](const std::vector<Scalar>& v) { return f(v[0], v[1]); });
}

std::vector<size_t> reduction_dims(const KernelContext& ctx, size_t rank) {
  return validate::reduction_dims(ctx, rank);
}

Tensor reduce(const Tensor& t, const std::vector<size_t>& dims, bool keepdim, DType out,
              const std::function<Scalar(const std::vector<Scalar>&)>& f) {
  const size_t rank = t.rank();
  auto reduced = [&](size_t d) { return std::binary_search(dims.begin(), dims.end(), d); };
  std::vector<int64_t> kept_sizes, group_sizes, out_sizes;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced(d)) {
      group_sizes.push_back(t.sizes()[d]);
      if (keepdim) out_sizes.push_back(1);
    } else {
      kept_sizes.push_back(t.sizes()[d]);
      out_sizes.push_back(t.sizes()[d]);
    }
  }
  Tensor result = Tensor::zeros(out, out_sizes);
  int64_t kept = 1, size = 1;
  for (int64_t s : kept_sizes) kept *= s;
  for (int64_t s : group_sizes) size *= s;
  std::vector<Scalar> group;
  if (kept == 0) return result;
  if (size == 0) {
    for (int64_t k = 0; k < kept; ++k) result.set_position(k, f(group));
    return result;
  }
  // t seen as [kept dims..., reduced dims...]: its elements in row-major order are the groups
  // one after the other. The result is fresh and contiguous: group k's value is at position k.
  std::vector<int64_t> sizes = kept_sizes, strides;
  sizes.insert(sizes.end(), group_sizes.begin(), group_sizes.end());
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced(d)) strides.push_back(t.strides()[d]);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (reduced(d)) strides.push_back(t.strides()[d]);
  }
  const Tensor grouped = t.as_strided(sizes, strides, t.offset());
  group.reserve(static_cast<size_t>(size));
  int64_t k = 0;
  grouped.for_each_position([&](int64_t p) {
    group.push_back(grouped.at_position(p));
    if (static_cast<int64_t>(group.size()) == size) {
      result.set_position(k++, f(group));
      group.clear();
    }
  });
  return result;
}

Tensor write_into(const KernelContext& ctx, Tensor self, const Tensor& result) {
  validate::in_place_result(ctx, self, result);
  self.copy_from(result);
  return self;
}

}  // namespace symshape::interp::kernels
