// Kernels of views and shape ops: reshape with an inferred -1, permutations, expand, squeeze,
// slicing with clamping, split / chunk / unbind, cat / stack, repeat, padding, pixel shuffle,
// as_strided. A view op returns a tensor sharing its input's storage, with PyTorch's strides.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/views.h"

namespace symshape::interp::kernels {

namespace {

using Sizes = std::vector<int64_t>;
using math::sizes_str;

// Arithmetic on strides (which as_strided may make arbitrary for size-1 dims): wraps instead of
// overflowing, as a product that overflows only feeds comparisons that then fail.
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// t's storage seen with other sizes and strides, at t's offset.
Tensor view_of(const Tensor& t, Sizes sizes, Sizes strides) {
  return t.as_strided(std::move(sizes), std::move(strides), t.offset());
}

// The same view: an alias of t (PyTorch's `alias`), as a view op returning self does.
Tensor alias(const Tensor& t) { return view_of(t, t.sizes(), t.strides()); }

// A tensor's dim for an op that needs at least one dim.
size_t existing_dim(const KernelContext& ctx, const Tensor& t, int64_t dim, const char* op) {
  if (t.rank() == 0) ctx.bad_input(std::string(op) + "() cannot be applied to a 0-dim tensor");
  return ctx.normalize_dim(dim, t.rank());
}

// A dim for an op that inserts one (unsqueeze, stack): [-(rank+1), rank].
size_t insertion_dim(const KernelContext& ctx, int64_t dim, size_t rank) {
  return ctx.normalize_dim(dim, rank + 1);
}

// PyTorch's infer_size: `shape` with at most one -1 inferred so that it holds numel elements.
Sizes infer_size(const KernelContext& ctx, Sizes shape, int64_t numel) {
  std::optional<size_t> infer;
  math::Checked c;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) ctx.bad_input("only one dimension can be inferred in " + sizes_str(shape));
      infer = i;
    } else if (shape[i] < 0) {
      ctx.bad_input("invalid shape dimension " + std::to_string(shape[i]) + " in " +
                    sizes_str(shape));
    } else {
      known = c.mul(known, shape[i]);
    }
  }
  if (!c.overflow && (numel == known || (infer && known > 0 && numel % known == 0))) {
    if (infer) {
      if (known == 0) {
        ctx.fail("cannot reshape tensor of 0 elements into shape " + sizes_str(shape) +
                 " because the unspecified dimension size -1 can be any value and is ambiguous");
      }
      shape[*infer] = numel / known;
    }
    return shape;
  }
  ctx.fail("shape '" + sizes_str(shape) + "' is invalid for input of size " +
           std::to_string(numel));
}

// PyTorch's computeStride: the strides of a view of (sizes, strides) with `shape`, merging or
// splitting dims only within chunks laid out contiguously. nullopt when no view exists.
std::optional<Sizes> view_strides(const Sizes& sizes, const Sizes& strides, const Sizes& shape) {
  if (sizes.empty()) return Sizes(shape.size(), 1);
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    if (sizes == shape) return strides;
    Sizes out(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) {
      out[d - 1] = wrap_mul(std::max<int64_t>(shape[d], 1), out[d]);
    }
    return out;
  }
  Sizes out(shape.size());
  long view_d = static_cast<long>(shape.size()) - 1;
  int64_t chunk_base = strides.back(), tensor_numel = 1, view_numel = 1;
  for (long d = static_cast<long>(sizes.size()) - 1; d >= 0; --d) {
    const size_t k = static_cast<size_t>(d);
    tensor_numel *= sizes[k];
    const bool chunk_end =
        d == 0 || (sizes[k - 1] != 1 && strides[k - 1] != wrap_mul(tensor_numel, chunk_base));
    if (!chunk_end) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<size_t>(view_d)] == 1)) {
      out[static_cast<size_t>(view_d)] = wrap_mul(view_numel, chunk_base);
      view_numel *= shape[static_cast<size_t>(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base = strides[k - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

enum class Reshape { View, Reshape, Copy };

// t with `shape` (already inferred): a view when the strides allow it; otherwise reshape copies
// (into a contiguous tensor) and view fails.
Tensor reshaped(const KernelContext& ctx, const Tensor& t, const Sizes& shape, Reshape kind) {
  if (kind != Reshape::Copy) {
    if (auto strides = view_strides(t.sizes(), t.strides(), shape)) {
      return view_of(t, shape, *strides);
    }
    if (kind == Reshape::View) {
      ctx.fail(
          "view size is not compatible with input tensor's size and stride (at least one "
          "dimension spans across two contiguous subspaces); use .reshape(...) instead (viewing " +
          t.str() + " with strides " + sizes_str(t.strides()) + " as " + sizes_str(shape) + ")");
    }
  }
  Tensor copy = t.clone();
  return view_of(copy, shape, contiguous_strides(shape));
}

RValue reshape_to(const KernelContext& ctx, const Tensor& t, const Sizes& target, Reshape kind) {
  return RValue::of(reshaped(ctx, t, infer_size(ctx, target, t.numel()), kind));
}

Kernel reshape(Reshape kind) {
  return [kind](KernelContext& ctx) {
    // reshape calls the target sizes shape; view, view_copy and _unsafe_view call them size.
    const char* sizes = ctx.declares("shape") ? "shape" : "size";
    return reshape_to(ctx, ctx.tensor("self"), ctx.int_list(sizes), kind);
  };
}

// ---- view.dtype: the same bytes read as another dtype ----

uint16_t float_to_half_bits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // a subnormal half (or zero)
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t h = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry rounds into the exponent
  return static_cast<uint16_t>(h);
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t bits = 0;
  if (exp == 0x1fu) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

void put_le(uint64_t v, int bytes, uint8_t* out) {
  for (int b = 0; b < bytes; ++b) out[b] = static_cast<uint8_t>(v >> (8 * b));
}

uint64_t get_le(const uint8_t* in, int bytes) {
  uint64_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= static_cast<uint64_t>(in[b]) << (8 * b);
  return v;
}

uint32_t float_bits(double v) {
  const float f = static_cast<float>(v);
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  return x;
}

uint64_t double_bits(double v) {
  uint64_t x = 0;
  std::memcpy(&x, &v, 8);
  return x;
}

float bits_float(uint64_t x) {
  const uint32_t u = static_cast<uint32_t>(x);
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

double bits_double(uint64_t x) {
  double d = 0;
  std::memcpy(&d, &x, 8);
  return d;
}

// An element's bytes in memory (little-endian), item_size(d) of them.
void encode(const Scalar& v, DType d, uint8_t* out) {
  switch (d) {
    case DType::Float16:
      put_le(float_to_half_bits(static_cast<float>(v.as_double())), 2, out);
      return;
    case DType::BFloat16: put_le(float_bits(v.as_double()) >> 16, 2, out); return;
    case DType::Float32: put_le(float_bits(v.as_double()), 4, out); return;
    case DType::Float64: put_le(double_bits(v.as_double()), 8, out); return;
    case DType::Complex64:
      put_le(float_bits(v.as_complex().real()), 4, out);
      put_le(float_bits(v.as_complex().imag()), 4, out + 4);
      return;
    case DType::Complex128:
      put_le(double_bits(v.as_complex().real()), 8, out);
      put_le(double_bits(v.as_complex().imag()), 8, out + 8);
      return;
    default: put_le(static_cast<uint64_t>(v.as_int()), item_size(d), out); return;
  }
}

Scalar decode(const uint8_t* in, DType d) {
  switch (d) {
    case DType::Bool: return Scalar::of_bool(in[0] != 0);
    case DType::UInt8: return Scalar::of_int(in[0]);
    case DType::Int8: return Scalar::of_int(static_cast<int8_t>(in[0]));
    case DType::Int16: return Scalar::of_int(static_cast<int16_t>(get_le(in, 2)));
    case DType::Int32: return Scalar::of_int(static_cast<int32_t>(get_le(in, 4)));
    case DType::Int64: return Scalar::of_int(static_cast<int64_t>(get_le(in, 8)));
    case DType::Float16:
      return Scalar::of_float(half_bits_to_float(static_cast<uint16_t>(get_le(in, 2))));
    case DType::BFloat16: return Scalar::of_float(bits_float(get_le(in, 2) << 16));
    case DType::Float32: return Scalar::of_float(bits_float(get_le(in, 4)));
    case DType::Float64: return Scalar::of_float(bits_double(get_le(in, 8)));
    case DType::Complex64:
      return Scalar::of_complex(Complex(bits_float(get_le(in, 4)), bits_float(get_le(in + 4, 4))));
    case DType::Complex128:
      return Scalar::of_complex(
          Complex(bits_double(get_le(in, 8)), bits_double(get_le(in + 8, 8))));
  }
  return {};
}

// view.dtype: the same dtype is an alias; another dtype reinterprets the bytes. The interpreter
// keeps each dtype category in its own array, so the result is a copy of the reinterpreted
// elements, not a view (its values and shape are PyTorch's).
RValue view_dtype(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  std::optional<DType> to_dtype = ctx.dtype("dtype");
  if (!to_dtype) ctx.bad_input("view.dtype needs a dtype");
  if (*to_dtype == t.dtype()) return RValue::of(alias(t));
  const int from = item_size(t.dtype()), to = item_size(*to_dtype);
  Sizes sizes = t.sizes();
  if (from != to) {
    const std::string what = " to view " + std::string(to_string(t.dtype())) + " as " +
                             std::string(to_string(*to_dtype)) + " (different element sizes)";
    if (t.rank() == 0) ctx.fail("self.dim() cannot be 0" + what);
    if (t.strides().back() != 1) ctx.fail("self.stride(-1) must be 1" + what);
    if (from > to) {
      math::Checked c;
      sizes.back() = c.mul(sizes.back(), from / to);
      if (c.overflow) ctx.fail("view.dtype: the last dim is too large");
    } else {
      const int64_t ratio = to / from;
      if (sizes.back() % ratio != 0) {
        ctx.fail("self.size(-1) must be divisible by " + std::to_string(ratio) + what +
                 ", but got " + std::to_string(sizes.back()));
      }
      for (size_t i = 0; i + 1 < t.rank(); ++i) {
        if (t.strides()[i] % ratio != 0) {
          ctx.fail("self.stride(" + std::to_string(i) + ") must be divisible by " +
                   std::to_string(ratio) + what + ", but got " + std::to_string(t.strides()[i]));
        }
      }
      if (t.offset() % ratio != 0) {
        ctx.fail("self.storage_offset() must be divisible by " + std::to_string(ratio) + what +
                 ", but got " + std::to_string(t.offset()));
      }
      sizes.back() /= ratio;
    }
  }
  Tensor out = Tensor::zeros(*to_dtype, sizes);
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    uint8_t bytes[16] = {};
    Sizes in(index.begin(), index.end());
    if (from == to) {
      encode(t.at(in), t.dtype(), bytes);
    } else if (from > to) {
      const int64_t ratio = from / to;
      uint8_t wide[16] = {};
      in.back() = index.back() / ratio;
      encode(t.at(in), t.dtype(), wide);
      std::memcpy(bytes, wide + (index.back() % ratio) * to, static_cast<size_t>(to));
    } else {
      const int64_t ratio = to / from;
      for (int64_t q = 0; q < ratio; ++q) {
        in.back() = index.back() * ratio + q;
        encode(t.at(in), t.dtype(), bytes + q * from);
      }
    }
    out.set(index, decode(bytes, *to_dtype));
  });
  return RValue::of(out);
}

// ---- permutations ----

RValue permute(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes dims = ctx.int_list("dims");
  if (dims.size() != t.rank()) {
    ctx.bad_input("permute: number of dims don't match in permute: the tensor has " +
                  std::to_string(t.rank()) + " dims but " + std::to_string(dims.size()) +
                  " were given");
  }
  Sizes sizes, strides;
  std::vector<bool> seen(t.rank(), false);
  for (int64_t d : dims) {
    size_t k = ctx.normalize_dim(d, t.rank());
    if (seen[k]) ctx.bad_input("permute: repeated dim " + std::to_string(k));
    seen[k] = true;
    sizes.push_back(t.sizes()[k]);
    strides.push_back(t.strides()[k]);
  }
  return RValue::of(view_of(t, sizes, strides));
}

Tensor transposed(const KernelContext& ctx, const Tensor& t, int64_t d0, int64_t d1) {
  size_t a = ctx.normalize_dim(d0, t.rank()), b = ctx.normalize_dim(d1, t.rank());
  if (t.rank() == 0) return alias(t);
  Sizes sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return view_of(t, sizes, strides);
}

RValue movedim(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes src = ctx.int_list("source"), dst = ctx.int_list("destination");
  const std::vector<size_t> order = validate::movedim_order(ctx, src, dst, t.rank());
  Sizes sizes, strides;
  for (size_t o : order) {
    sizes.push_back(t.sizes()[o]);
    strides.push_back(t.strides()[o]);
  }
  return RValue::of(view_of(t, sizes, strides));
}

// PyTorch's inferExpandGeometry: a stretched dim of size 1 and a new leading dim get stride 0
// (a new leading dim of size 1 keeps the dense stride).
Tensor expanded(const KernelContext& ctx, const Tensor& t, const Sizes& target) {
  if (target.size() < t.rank()) {
    ctx.bad_input("expand: the number of sizes provided (" + std::to_string(target.size()) +
                  ") must be greater or equal to the number of dimensions in the tensor (" +
                  std::to_string(t.rank()) + ")");
  }
  const size_t n = target.size();
  const long lead = static_cast<long>(n) - static_cast<long>(t.rank());
  Sizes sizes(n), strides(n);
  for (size_t i = n; i-- > 0;) {
    const long dim = static_cast<long>(i) - lead;
    int64_t size = dim >= 0 ? t.sizes()[static_cast<size_t>(dim)] : 1;
    int64_t stride = dim >= 0    ? t.strides()[static_cast<size_t>(dim)]
                     : i + 1 < n ? wrap_mul(sizes[i + 1], strides[i + 1])
                                 : 1;
    int64_t want = target[i];
    if (want == -1) {
      if (dim < 0) {
        ctx.bad_input("expand: -1 is not allowed in a leading, non-existing dimension (" +
                      sizes_str(target) + ")");
      }
      want = size;
    }
    if (want < 0)
      ctx.bad_input("expand: invalid size " + std::to_string(want) + " in " + sizes_str(target));
    if (size != want) {
      if (size != 1) {
        ctx.fail("The expanded size of the tensor (" + std::to_string(want) +
                 ") must match the existing size (" + std::to_string(size) +
                 ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                 sizes_str(target) + ".  Tensor sizes: " + sizes_str(t.sizes()));
      }
      size = want;
      stride = 0;
    }
    sizes[i] = size;
    strides[i] = stride;
  }
  return view_of(t, sizes, strides);
}

RValue squeeze(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  std::vector<bool> drop(t.rank(), false);
  if (auto dims = ctx.optional_int_list("dim")) {
    for (int64_t d : *dims) {
      size_t k = ctx.normalize_dim(d, t.rank());
      if (t.rank() > 0) drop[k] = t.sizes()[k] == 1;
    }
  } else {
    for (size_t k = 0; k < t.rank(); ++k) drop[k] = t.sizes()[k] == 1;
  }
  Sizes sizes, strides;
  for (size_t k = 0; k < t.rank(); ++k) {
    if (drop[k]) continue;
    sizes.push_back(t.sizes()[k]);
    strides.push_back(t.strides()[k]);
  }
  return RValue::of(view_of(t, sizes, strides));
}

Tensor unsqueezed(const Tensor& t, size_t k) {
  Sizes sizes = t.sizes(), strides = t.strides();
  const int64_t stride = k < t.rank() ? wrap_mul(strides[k], sizes[k]) : 1;
  sizes.insert(sizes.begin() + static_cast<long>(k), 1);
  strides.insert(strides.begin() + static_cast<long>(k), stride);
  return view_of(t, sizes, strides);
}

RValue flatten(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  size_t start = ctx.normalize_dim(ctx.integer("start_dim", 0), t.rank());
  size_t end = ctx.normalize_dim(ctx.integer("end_dim", -1), t.rank());
  if (t.rank() == 0) return RValue::of(reshaped(ctx, t, {1}, Reshape::Reshape));
  if (start > end) ctx.bad_input("flatten() has invalid args: start_dim cannot come after end_dim");
  if (start == end) return RValue::of(alias(t));
  Sizes sizes(t.sizes().begin(), t.sizes().begin() + static_cast<long>(start));
  math::Checked c;
  int64_t merged = 1;
  for (size_t d = start; d <= end; ++d) merged = c.mul(merged, t.sizes()[d]);
  if (c.overflow) ctx.fail("flatten: the merged size is too large");
  sizes.push_back(merged);
  sizes.insert(sizes.end(), t.sizes().begin() + static_cast<long>(end) + 1, t.sizes().end());
  return RValue::of(reshaped(ctx, t, sizes, Reshape::Reshape));
}

RValue unflatten(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.integer("dim"), "unflatten");
  Sizes requested = ctx.int_list("sizes");
  if (requested.empty()) ctx.bad_input("unflatten: sizes must be non-empty");
  Sizes parts = infer_size(ctx, requested, t.sizes()[k]);
  Sizes part_strides(parts.size());
  int64_t step = t.strides()[k];
  for (size_t j = parts.size(); j-- > 0;) {
    part_strides[j] = step;
    step = wrap_mul(step, parts[j]);
  }
  Sizes sizes(t.sizes().begin(), t.sizes().begin() + static_cast<long>(k));
  Sizes strides(t.strides().begin(), t.strides().begin() + static_cast<long>(k));
  sizes.insert(sizes.end(), parts.begin(), parts.end());
  strides.insert(strides.end(), part_strides.begin(), part_strides.end());
  sizes.insert(sizes.end(), t.sizes().begin() + static_cast<long>(k) + 1, t.sizes().end());
  strides.insert(strides.end(), t.strides().begin() + static_cast<long>(k) + 1, t.strides().end());
  return RValue::of(view_of(t, sizes, strides));
}

// ---- slicing ----

// Elements [start, start + length) of dim k taken every `step`: a view.
Tensor narrowed(const Tensor& t, size_t k, int64_t start, int64_t length, int64_t step = 1) {
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes[k] = length;
  strides[k] = wrap_mul(strides[k], step);
  const int64_t offset = length == 0 ? t.offset() : t.offset() + start * t.strides()[k];
  return t.as_strided(sizes, strides, offset);
}

// PyTorch's slice: start and end wrap once when negative, then clamp into [0, size]; end is at
// least start.
// The view slice's arguments (dim, start, end, step) select in t.
Tensor sliced(const KernelContext& ctx, const Tensor& t) {
  size_t k = existing_dim(ctx, t, ctx.integer("dim", 0), "slice");
  const int64_t size = t.sizes()[k];
  const int64_t step = ctx.integer("step", 1);
  if (step <= 0) ctx.bad_input("slice step must be positive, got " + std::to_string(step));
  auto clamp = [size](int64_t i) {
    if (i < 0) i += size;  // no overflow: i < 0 <= size
    return std::clamp<int64_t>(i, 0, size);
  };
  const int64_t start = clamp(ctx.integer("start", 0));
  const int64_t end = std::max(ctx.has("end") ? clamp(ctx.integer("end")) : size, start);
  const int64_t length = end == start ? 0 : (end - start - 1) / step + 1;
  return narrowed(t, k, start, length, step);
}

RValue slice(KernelContext& ctx) { return RValue::of(sliced(ctx, ctx.tensor("self"))); }

// An int argument that may also be given as a 0-dim integer tensor (narrow.Tensor).
int64_t int_or_item(const KernelContext& ctx, std::string_view name) {
  if (ctx.is_tensor_arg(name)) {
    Tensor v = ctx.tensor(name);
    if (v.numel() != 1 || is_floating(v.dtype()) || is_complex(v.dtype())) {
      ctx.fail(std::string(name) + " must be an integer or a 0-dim integer tensor, got " + v.str());
    }
    return v.flat(0).as_int();
  }
  return ctx.integer(name);
}

RValue narrow(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.integer("dim"), "narrow");
  const int64_t size = t.sizes()[k];
  int64_t start = int_or_item(ctx, "start");
  const int64_t length = ctx.integer("length");
  if (length < 0)
    ctx.bad_input("narrow(): length must be non-negative, got " + std::to_string(length));
  if (start < -size || start > size) {
    ctx.fail("start out of range (expected to be in range of [" + std::to_string(-size) + ", " +
             std::to_string(size) + "], but got " + std::to_string(start) + ")");
  }
  if (start < 0) start += size;
  if (start > size - length) {
    ctx.fail("start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
             ") exceeds dimension size (" + std::to_string(size) + ").");
  }
  return RValue::of(narrowed(t, k, start, length));
}

// t with dim k fixed at `index` (already in range): a view one rank lower.
Tensor selected(const Tensor& t, size_t k, int64_t index) {
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + static_cast<long>(k));
  strides.erase(strides.begin() + static_cast<long>(k));
  return t.as_strided(sizes, strides, t.offset() + index * t.strides()[k]);
}

// The view select's arguments (dim, index) select in t.
Tensor selected(const KernelContext& ctx, const Tensor& t) {
  size_t k = existing_dim(ctx, t, ctx.integer("dim"), "select");
  int64_t index = int_or_item(ctx, "index");
  const int64_t size = t.sizes()[k];
  if (index < -size || index >= size) {
    ctx.fail("select(): index " + std::to_string(index) + " out of range for tensor of size " +
             sizes_str(t.sizes()) + " at dimension " + std::to_string(k));
  }
  if (index < 0) index += size;
  return selected(t, k, index);
}

RValue select(KernelContext& ctx) { return RValue::of(selected(ctx, ctx.tensor("self"))); }

RValue pieces_of(const Tensor& t, size_t k, const Sizes& lengths) {
  std::vector<RValue> items;
  int64_t start = 0;
  for (int64_t len : lengths) {
    items.push_back(RValue::of(narrowed(t, k, start, len)));
    start += len;
  }
  return RValue::list(std::move(items));
}

RValue split_by_size(const KernelContext& ctx, const Tensor& t, size_t k, int64_t split_size) {
  const int64_t size = t.sizes()[k];
  if (split_size < 0) {
    ctx.bad_input("split expects split_size be non-negative, but got split_size=" +
                  std::to_string(split_size));
  }
  if (split_size == 0) {
    if (size != 0) {
      ctx.fail("split_size can only be 0 if dimension size is 0, but got dimension size of " +
               std::to_string(size));
    }
    return RValue::list({RValue::of(alias(t))});
  }
  const int64_t count = std::max<int64_t>((size - 1) / split_size + 1, 1);
  Sizes lengths(static_cast<size_t>(count), split_size);
  lengths.back() = size - split_size * (count - 1);
  return pieces_of(t, k, lengths);
}

RValue split_with_sizes(KernelContext& ctx, std::string_view sizes_name) {
  Tensor t = ctx.tensor("self");
  Sizes parts = ctx.int_list(sizes_name);
  size_t k = existing_dim(ctx, t, ctx.integer("dim", 0), "split_with_sizes");
  int64_t total = 0;
  math::Checked c;
  for (int64_t p : parts) {
    if (p < 0) {
      ctx.bad_input(
          "split_with_sizes expects split_sizes have only non-negative entries, but got "
          "split_sizes=" +
          sizes_str(parts));
    }
    total = c.add(total, p);
  }
  if (c.overflow || total != t.sizes()[k]) {
    ctx.fail("split_with_sizes expects split_sizes to sum exactly to " +
             std::to_string(t.sizes()[k]) + " (input tensor's size at dimension " +
             std::to_string(k) + "), but got split_sizes=" + sizes_str(parts));
  }
  return pieces_of(t, k, parts);
}

RValue split(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (t.rank() == 0) ctx.bad_input("split() cannot be applied to a 0-dim tensor");
  size_t k = ctx.normalize_dim(ctx.integer("dim", 0), t.rank());
  if (ctx.value("split_size").kind == RValue::Kind::List) {
    return split_with_sizes(ctx, "split_size");
  }
  return split_by_size(ctx, t, k, ctx.integer("split_size"));
}

RValue chunk(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (t.rank() == 0) ctx.bad_input("chunk() cannot be applied to a 0-dim tensor");
  const int64_t chunks = ctx.integer("chunks");
  if (chunks <= 0) {
    ctx.bad_input("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  }
  size_t k = ctx.normalize_dim(ctx.integer("dim", 0), t.rank());
  const int64_t size = t.sizes()[k];
  // An empty dim still gives `chunks` (empty) pieces.
  if (size == 0) {
    if (chunks > (int64_t{1} << 16)) ctx.fail("chunk: too many chunks");
    return pieces_of(t, k, Sizes(static_cast<size_t>(chunks), 0));
  }
  return split_by_size(ctx, t, k, (size - 1) / chunks + 1);
}

RValue unbind(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.integer("dim", 0), "unbind");
  std::vector<RValue> items;
  for (int64_t i = 0; i < t.sizes()[k]; ++i) items.push_back(RValue::of(selected(t, k, i)));
  return RValue::list(std::move(items));
}

// ---- concatenation and repetition ----

Tensor concatenated(const KernelContext& ctx, const std::vector<Tensor>& all, int64_t dim) {
  if (all.empty()) ctx.bad_input("torch.cat(): expected a non-empty list of Tensors");
  DType dtype = all[0].dtype();
  std::vector<size_t> kept;
  for (size_t j = 0; j < all.size(); ++j) {
    dtype = promote_types(dtype, all[j].dtype());
    // Legacy behaviour: 1-d empty tensors are skipped for shapes.
    if (!(all[j].rank() == 1 && all[j].sizes()[0] == 0)) kept.push_back(j);
  }
  if (kept.empty()) return Tensor::zeros(dtype, all[0].sizes());
  const Tensor& first = all[kept[0]];
  const size_t rank = first.rank();
  if (rank == 0) {
    ctx.bad_input("zero-dimensional tensor (at position " + std::to_string(kept[0]) +
                  ") cannot be concatenated");
  }
  size_t k = ctx.normalize_dim(dim, rank);
  Sizes sizes = first.sizes();
  sizes[k] = 0;
  math::Checked c;
  for (size_t j : kept) {
    const Tensor& t = all[j];
    if (t.rank() != rank) {
      ctx.fail("Tensors must have same number of dimensions: got " + std::to_string(rank) +
               " and " + std::to_string(t.rank()) + " (tensor number " + std::to_string(j) + ")");
    }
    for (size_t d = 0; d < rank; ++d) {
      if (d != k && t.sizes()[d] != first.sizes()[d]) {
        ctx.fail("Sizes of tensors must match except in dimension " + std::to_string(k) +
                 ". Expected size " + std::to_string(first.sizes()[d]) + " but got size " +
                 std::to_string(t.sizes()[d]) + " for tensor number " + std::to_string(j) +
                 " in the list.");
      }
    }
    sizes[k] = c.add(sizes[k], t.sizes()[k]);
  }
  if (c.overflow) ctx.fail("torch.cat(): the result is too large");
  Tensor out = Tensor::zeros(dtype, sizes);
  int64_t start = 0;
  for (size_t j : kept) {
    const int64_t len = all[j].sizes()[k];
    if (len > 0) narrowed(out, k, start, len).copy_from(all[j]);
    start += len;
  }
  return out;
}

RValue cat(KernelContext& ctx) {
  return RValue::of(concatenated(ctx, ctx.tensor_list("tensors"), ctx.integer("dim", 0)));
}

RValue stack(KernelContext& ctx) {
  std::vector<Tensor> ts = ctx.tensor_list("tensors");
  if (ts.empty()) ctx.bad_input("stack expects a non-empty TensorList");
  size_t k = insertion_dim(ctx, ctx.integer("dim", 0), ts[0].rank());
  std::vector<Tensor> pieces;
  for (size_t j = 0; j < ts.size(); ++j) {
    if (ts[j].sizes() != ts[0].sizes()) {
      ctx.fail("stack expects each tensor to be equal size, but got " + sizes_str(ts[0].sizes()) +
               " at entry 0 and " + sizes_str(ts[j].sizes()) + " at entry " + std::to_string(j));
    }
    pieces.push_back(unsqueezed(ts[j], k));
  }
  return RValue::of(concatenated(ctx, pieces, static_cast<int64_t>(k)));
}

// self repeated `reps` times along each dim (leading reps add dims).
Tensor repeated(const KernelContext& ctx, const Tensor& t, const Sizes& reps) {
  if (reps.size() < t.rank()) {
    ctx.bad_input(
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor");
  }
  const size_t lead = reps.size() - t.rank();
  Sizes sizes(reps.size());
  math::Checked c;
  for (size_t i = 0; i < reps.size(); ++i) {
    if (reps[i] < 0) {
      ctx.bad_input("Trying to create tensor with negative dimension " + std::to_string(reps[i]) +
                    ": " + sizes_str(reps));
    }
    sizes[i] = i < lead ? reps[i] : c.mul(reps[i], t.sizes()[i - lead]);
  }
  if (c.overflow) ctx.fail("repeat: the result is too large");
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Sizes in(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    for (size_t d = 0; d < t.rank(); ++d) in[d] = index[lead + d] % t.sizes()[d];
    out.set(index, t.at(in));
  });
  return out;
}

RValue repeat_interleave(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t reps = ctx.integer("repeats");
  if (reps < 0) ctx.bad_input("repeats can not be negative, got " + std::to_string(reps));
  size_t k = 0;
  if (!ctx.has("dim")) {
    t = reshaped(ctx, t, {t.numel()}, Reshape::Reshape);
  } else {
    k = existing_dim(ctx, t, ctx.integer("dim"), "repeat_interleave");
  }
  Sizes sizes = t.sizes();
  math::Checked c;
  sizes[k] = c.mul(sizes[k], reps);
  if (c.overflow) ctx.fail("repeat_interleave: the result is too large");
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Sizes in(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    std::copy(index.begin(), index.end(), in.begin());
    in[k] = index[k] / reps;
    out.set(index, t.at(in));
  });
  return RValue::of(out);
}

// The dims of a roll or flip, each normalized; `unique` refuses a repeated one.
std::vector<size_t> dims_of(const KernelContext& ctx, const Sizes& dims, size_t rank, bool unique) {
  std::vector<size_t> out;
  for (int64_t d : dims) {
    size_t k = ctx.normalize_dim(d, rank);
    if (unique && std::find(out.begin(), out.end(), k) != out.end()) {
      ctx.bad_input("dim " + std::to_string(k) + " appears multiple times in the list of dims");
    }
    out.push_back(k);
  }
  return out;
}

RValue roll(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes shifts = ctx.int_list("shifts"), dims = ctx.int_list("dims", {});
  if (dims.empty()) {
    // Rolls the flattened tensor, then restores the shape.
    if (shifts.size() != 1) ctx.bad_input("roll: shifts must have one entry when dims is empty");
    Tensor flat = reshaped(ctx, t, {t.numel()}, Reshape::Reshape);
    Tensor out = Tensor::zeros(t.dtype(), {t.numel()});
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) out.set_flat(mod(i + mod(shifts[0], n), n), flat.flat(i));
    return RValue::of(view_of(out, t.sizes(), contiguous_strides(t.sizes())));
  }
  if (shifts.size() != dims.size()) {
    ctx.bad_input("shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                  ", dims:" + std::to_string(dims.size()));
  }
  std::vector<size_t> ks = dims_of(ctx, dims, t.rank(), false);
  if (t.rank() == 0) return RValue::of(t.clone());
  Tensor out = Tensor::zeros(t.dtype(), t.sizes());
  Sizes in(t.rank());
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    std::copy(index.begin(), index.end(), in.begin());
    // Shifts along a repeated dim add up.
    for (size_t j = 0; j < ks.size(); ++j) {
      const int64_t n = t.sizes()[ks[j]];
      in[ks[j]] = mod(in[ks[j]] - mod(shifts[j], n), n);
    }
    out.set(index, t.at(in));
  });
  return RValue::of(out);
}

RValue flip(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  std::vector<size_t> ks = dims_of(ctx, ctx.int_list("dims", {}), t.rank(), true);
  if (t.rank() == 0) return RValue::of(t.clone());
  Tensor out = Tensor::zeros(t.dtype(), t.sizes());
  Sizes in(t.rank());
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    std::copy(index.begin(), index.end(), in.begin());
    for (size_t k : ks) in[k] = t.sizes()[k] - 1 - index[k];
    out.set(index, t.at(in));
  });
  return RValue::of(out);
}

// constant_pad_nd(self, pad, value=0): pad pairs from the last dim inward; a negative pad crops.
RValue constant_pad(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes pad = ctx.int_list("pad");
  const Scalar value = ctx.optional_scalar("value").value_or(Scalar::of_int(0));
  if (pad.size() % 2 != 0) {
    ctx.bad_input("Length of pad must be even but instead it equals " + std::to_string(pad.size()));
  }
  if (pad.size() / 2 > t.rank()) {
    ctx.bad_input(
        "Length of pad should be no more than twice the number of dimensions of the input. "
        "Pad length is " +
        std::to_string(pad.size()) + " while the input has " + std::to_string(t.rank()) +
        " dimensions.");
  }
  Sizes sizes = t.sizes(), before(t.rank(), 0);
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const size_t d = t.rank() - 1 - p;
    math::Checked c;
    const int64_t s = c.add(c.add(sizes[d], pad[2 * p]), pad[2 * p + 1]);
    if (c.overflow || s < 0) {
      ctx.fail("The input size " + std::to_string(sizes[d]) + ", plus negative padding " +
               std::to_string(pad[2 * p]) + " and " + std::to_string(pad[2 * p + 1]) +
               " resulted in a negative output size, which is invalid. Check dimension " +
               std::to_string(d) + " of your input.");
    }
    sizes[d] = s;
    before[d] = pad[2 * p];
  }
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Sizes in(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    bool inside = true;
    for (size_t d = 0; d < t.rank(); ++d) {
      // index - before, computed without overflow: both are bounded by the sizes involved.
      const __int128 i = static_cast<__int128>(index[d]) - before[d];
      inside = inside && i >= 0 && i < t.sizes()[d];
      in[d] = inside ? static_cast<int64_t>(i) : 0;
    }
    out.set(index, inside ? t.at(in) : value);
  });
  return RValue::of(out);
}

// pixel_shuffle: [*, C*r*r, H, W] -> [*, C, H*r, W*r], out[c, h*r+i, w*r+j] = in[c*r*r+i*r+j,
// h, w]; pixel_unshuffle is its inverse.
RValue pixel_shuffle(KernelContext& ctx, bool inverse) {
  Tensor t = ctx.tensor("self");
  const char* factor = inverse ? "downscale_factor" : "upscale_factor";
  const char* op = inverse ? "pixel_unshuffle" : "pixel_shuffle";
  if (t.rank() < 3) {
    ctx.bad_input(std::string(op) +
                  " expects input to have at least 3 dimensions, but got input with " +
                  std::to_string(t.rank()) + " dimension(s)");
  }
  const int64_t r = ctx.integer(factor);
  if (r <= 0 || r > (int64_t{1} << 20)) {
    ctx.bad_input(std::string(op) + " expects " + factor +
                  " to be greater than 0, but got: " + std::to_string(r));
  }
  const size_t c = t.rank() - 3, h = t.rank() - 2, w = t.rank() - 1;
  Sizes sizes = t.sizes();
  math::Checked checked;  // sizes of an empty tensor may be huge
  if (!inverse) {
    if (sizes[c] % (r * r) != 0) {
      ctx.fail(
          "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
          "square of upscale_factor, but input.size(-3)=" +
          std::to_string(sizes[c]) + " is not divisible by " + std::to_string(r * r));
    }
    sizes[c] /= r * r;
    sizes[h] = checked.mul(sizes[h], r);
    sizes[w] = checked.mul(sizes[w], r);
  } else {
    for (size_t d : {h, w}) {
      if (sizes[d] % r != 0) {
        ctx.fail("pixel_unshuffle expects " + std::string(d == h ? "height" : "width") +
                 " to be divisible by downscale_factor, but input.size(" +
                 std::string(d == h ? "-2" : "-1") + ")=" + std::to_string(sizes[d]) +
                 " is not divisible by " + std::to_string(r));
      }
      sizes[d] /= r;
    }
    sizes[c] = checked.mul(sizes[c], r * r);
  }
  if (checked.overflow) ctx.fail(std::string(op) + ": the result is too large");
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Sizes in(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    std::copy(index.begin(), index.end(), in.begin());
    if (!inverse) {
      in[c] = index[c] * r * r + (index[h] % r) * r + index[w] % r;
      in[h] = index[h] / r;
      in[w] = index[w] / r;
    } else {
      const int64_t sub = index[c] % (r * r);
      in[c] = index[c] / (r * r);
      in[h] = index[h] * r + sub / r;
      in[w] = index[w] * r + sub % r;
    }
    out.set(index, t.at(in));
  });
  return RValue::of(out);
}

RValue as_strided(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes sizes = ctx.int_list("size"), strides = ctx.int_list("stride");
  const int64_t offset = ctx.integer("storage_offset", t.offset());
  if (sizes.size() != strides.size()) {
    ctx.bad_input("mismatch in length of strides and shape: " + sizes_str(sizes) + " and " +
                  sizes_str(strides));
  }
  for (int64_t s : sizes) {
    if (s < 0)
      ctx.bad_input("as_strided: negative size " + std::to_string(s) + " in " + sizes_str(sizes));
  }
  for (int64_t s : strides) {
    if (s < 0)
      ctx.bad_input("as_strided: Negative strides are not supported at the moment, got strides: " +
                    sizes_str(strides));
  }
  if (offset < 0) ctx.bad_input("Tensor: invalid storage offset " + std::to_string(offset));
  try {
    return RValue::of(t.as_strided(sizes, strides, offset));
  } catch (const RunError&) {
    throw;
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

}  // namespace

void register_views(KernelRegistry& r) {
  r.add("aten.view", reshape(Reshape::View));
  r.add("aten.reshape", reshape(Reshape::Reshape));
  r.add("aten._unsafe_view", reshape(Reshape::Reshape));
  r.add("aten.view_copy", reshape(Reshape::Copy));
  r.add("aten._reshape_alias", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    Sizes shape = infer_size(ctx, ctx.int_list("size"), t.numel());
    Sizes strides = ctx.int_list("stride");
    if (strides.size() != shape.size())
      ctx.bad_input("_reshape_alias: size and stride differ in length");
    try {
      return RValue::of(view_of(t, shape, strides));
    } catch (const RunError&) {
      throw;
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
  });
  r.add("aten.view.dtype", view_dtype);
  r.add("aten.reshape_as", [](KernelContext& ctx) {
    return reshape_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes(), Reshape::Reshape);
  });
  r.add("aten.view_as", [](KernelContext& ctx) {
    return reshape_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes(), Reshape::View);
  });
  r.add("aten.permute", permute);
  r.add("aten.transpose", [](KernelContext& ctx) {
    return RValue::of(
        transposed(ctx, ctx.tensor("self"), ctx.integer("dim0"), ctx.integer("dim1")));
  });
  r.add("aten.swapaxes", [](KernelContext& ctx) {
    return RValue::of(
        transposed(ctx, ctx.tensor("self"), ctx.integer("axis0"), ctx.integer("axis1")));
  });
  r.add("aten.t", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.rank() > 2) {
      ctx.bad_input("t() expects a tensor with <= 2 dimensions, but self is " +
                    std::to_string(t.rank()) + "D");
    }
    return RValue::of(t.rank() < 2 ? alias(t) : transposed(ctx, t, 0, 1));
  });
  r.add("aten.numpy_T", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    Sizes sizes(t.sizes().rbegin(), t.sizes().rend());
    Sizes strides(t.strides().rbegin(), t.strides().rend());
    return RValue::of(view_of(t, sizes, strides));
  });
  r.add("aten.movedim", movedim);
  r.add("aten.expand", [](KernelContext& ctx) {
    return RValue::of(expanded(ctx, ctx.tensor("self"), ctx.int_list("size")));
  });
  r.add("aten.expand_as", [](KernelContext& ctx) {
    return RValue::of(expanded(ctx, ctx.tensor("self"), ctx.tensor("other").sizes()));
  });
  r.add("aten.squeeze", squeeze);
  r.add("aten.unsqueeze", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    return RValue::of(unsqueezed(t, insertion_dim(ctx, ctx.integer("dim"), t.rank())));
  });
  r.add("aten.flatten", flatten);
  r.add("aten.unflatten", unflatten);
  r.add("aten.slice", slice);
  r.add("aten.narrow", narrow);
  r.add("aten.select", select);
  // slice_scatter / select_scatter: a copy of self with the view the same arguments select
  // overwritten by src.
  using View = Tensor (*)(const KernelContext&, const Tensor&);
  for (auto [op, view] : {std::pair<const char*, View>{"aten.slice_scatter", sliced},
                          {"aten.select_scatter", selected}}) {
    r.add(op, [name = std::string(op), view](KernelContext& ctx) {
      Tensor out = ctx.tensor("self").clone();
      Tensor src = ctx.tensor("src");
      Tensor region = view(ctx, out);  // a view of the copy: writes land in out
      if (region.sizes() != src.sizes()) {
        ctx.fail(name + ": src " + sizes_str(src.sizes()) + " must have the shape of the view " +
                 sizes_str(region.sizes()) + " it replaces");
      }
      for_each_index(region.sizes(),
                     [&](std::span<const int64_t> at) { region.set(at, src.at(at)); });
      return RValue::of(out);
    });
  }
  r.add("aten.split", split);
  r.add("aten.split_with_sizes",
        [](KernelContext& ctx) { return split_with_sizes(ctx, "split_sizes"); });
  r.add("aten.chunk", chunk);
  r.add("aten.unbind", unbind);
  r.add("aten.cat", cat);
  r.add("aten.concat", cat);
  r.add("aten.concatenate", cat);
  r.add("aten.stack", stack);
  r.add("aten.repeat", [](KernelContext& ctx) {
    return RValue::of(repeated(ctx, ctx.tensor("self"), ctx.int_list("repeats")));
  });
  r.add("aten.tile", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    Sizes dims = ctx.int_list("dims");
    while (dims.size() < t.rank()) dims.insert(dims.begin(), 1);
    return RValue::of(repeated(ctx, t, dims));
  });
  r.add("aten.repeat_interleave.self_int", repeat_interleave);
  r.add("aten.roll", roll);
  r.add("aten.flip", flip);
  r.add("aten.constant_pad_nd", constant_pad);
  r.add("aten.pixel_shuffle", [](KernelContext& ctx) { return pixel_shuffle(ctx, false); });
  r.add("aten.pixel_unshuffle", [](KernelContext& ctx) { return pixel_shuffle(ctx, true); });
  r.add("aten.as_strided", as_strided);
}

}  // namespace symshape::interp::kernels
