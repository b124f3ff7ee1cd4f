// Complex tensors: views between complex and real-with-a-trailing-2, and constructors.
#include <algorithm>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/complex.h"

namespace symshape::ops {

namespace {

TensorMeta complex_tensor(const OpContext& ctx, std::string_view name) {
  TensorMeta t = ctx.tensor(name);
  if (!is_complex(t.dtype)) {
    ctx.bad_input(std::string(name) + " must be a complex tensor, got " +
                  std::string(to_string(t.dtype)));
  }
  return t;
}

std::vector<Expr> strides_of(const TensorMeta& t) {
  return t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
}

// A real view of complex t's parts (real, imag, or both as a last dim of 2): strides count real
// elements, so each doubles.
std::vector<Expr> real_view_strides(const OpContext& ctx, const TensorMeta& t) {
  std::vector<Expr> strides = strides_of(t);
  for (Expr& s : strides) s = ctx.simplify(s * 2);
  return strides;
}

// The real dtypes with a complex counterpart here (complex32 is not modelled).
void require_complex_capable(const OpContext& ctx, DType d, const std::string& op) {
  if (d != DType::Float32 && d != DType::Float64) {
    ctx.bad_input(op + " needs float32 or float64 tensors (complex64 / complex128), got " +
                  std::string(to_string(d)));
  }
}

// complex(real, imag) and polar(abs, angle): two real tensors of one dtype broadcast into a
// complex one.
Value from_parts(OpContext& ctx, const char* first, const char* second) {
  TensorMeta a = ctx.tensor(first), b = ctx.tensor(second);
  const std::string op = ctx.node().target;
  require_complex_capable(ctx, a.dtype, op);
  if (a.dtype != b.dtype) {
    ctx.bad_input(op + " expects " + first + " and " + second + " of one dtype, got " +
                  std::string(to_string(a.dtype)) + " and " + std::string(to_string(b.dtype)));
  }
  return Value::of(contiguous(real_to_complex(a.dtype), broadcast_shapes(ctx, a.sizes, b.sizes)));
}

// real / imag: a view of one part (real of a real tensor is the tensor itself).
Value part(OpContext& ctx, bool imaginary) {
  TensorMeta t = imaginary ? complex_tensor(ctx, "self") : ctx.tensor("self");
  if (!is_complex(t.dtype)) return Value::of(t);
  TensorMeta out = contiguous(complex_to_real(t.dtype), t.sizes);
  out.strides = real_view_strides(ctx, t);
  return Value::of(out);
}

// The FFT dims of _fft_r2c / _fft_c2r: constants, normalized, distinct and at least one; the
// normalization mode is 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n).
std::vector<size_t> fft_dims(const OpContext& ctx, const TensorMeta& t, const std::string& op) {
  return validate::fft_dims(ctx, t.rank(), op);
}

}  // namespace

void register_complex(OpRegistry& r) {
  // _fft_r2c(self, dim, normalization, onesided): the FFT of a real (floating) tensor over dim,
  // complex; onesided keeps the last dim's first n//2 + 1 frequencies (PyTorch's meta_fft_r2c).
  r.add("aten._fft_r2c", [](OpContext& ctx) {
    const std::string op = "_fft_r2c";
    TensorMeta t = ctx.tensor("self");
    if (!is_floating(t.dtype)) {
      ctx.bad_input(op + " expects a floating point input, got " + std::string(to_string(t.dtype)));
    }
    require_complex_capable(ctx, t.dtype, op);
    std::vector<size_t> dims = fft_dims(ctx, t, op);
    for (size_t d : dims) {
      require(ctx, t.sizes[d] >= 1, "fft_points",
              op + ": invalid number of data points (" + t.sizes[d].str() + ")");
    }
    std::vector<Expr> sizes = t.sizes;
    if (ctx.boolean("onesided", true)) {
      sizes[dims.back()] = ctx.simplify(floordiv(sizes[dims.back()], 2) + 1);
    }
    return Value::of(contiguous(real_to_complex(t.dtype), sizes));
  });
  // _fft_c2r(self, dim, normalization, last_dim_size): the inverse FFT of a one-sided complex
  // spectrum over dim, real, the last dim last_dim_size long (PyTorch's meta_fft_c2r).
  r.add("aten._fft_c2r", [](OpContext& ctx) {
    const std::string op = "_fft_c2r";
    TensorMeta t = complex_tensor(ctx, "self");
    std::vector<size_t> dims = fft_dims(ctx, t, op);
    Expr n = ctx.simplify(ctx.integer("last_dim_size"));
    require(ctx, n >= 1, "fft_last_dim_size", op + ": expected last_dim_size >= 1, got " + n.str());
    std::vector<Expr> sizes = t.sizes;
    sizes[dims.back()] = n;
    return Value::of(contiguous(complex_to_real(t.dtype), sizes));
  });
  // view_as_real: [..] complex -> [.., 2] real.
  r.add("aten.view_as_real", [](OpContext& ctx) {
    TensorMeta t = complex_tensor(ctx, "self");
    TensorMeta out = contiguous(complex_to_real(t.dtype), t.sizes);
    out.sizes.push_back(2);
    out.strides = real_view_strides(ctx, t);
    out.strides.push_back(1);
    return Value::of(out);
  });
  // view_as_complex: [.., 2] real -> [..] complex; the pair must be adjacent in memory (last
  // stride 1) and every other stride a whole number of complex elements.
  r.add("aten.view_as_complex", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    require_complex_capable(ctx, t.dtype, "view_as_complex");
    if (t.rank() == 0)
      ctx.bad_input("view_as_complex needs a last dim of size 2, got a 0-dim tensor");
    ctx.require_equal(t.sizes.back(), Expr(2), "view_as_complex", [&] {
      return "view_as_complex needs a last dim of size 2, got " + shape_str(t.sizes);
    });
    std::vector<Expr> strides = strides_of(t);
    require(ctx, strides.back() == 1, "view_as_complex", [&] {
      return "view_as_complex needs a last dim with stride 1, got strides " + shape_str(strides);
    });
    strides.pop_back();
    for (Expr& s : strides) {
      require(ctx, mod(s, 2) == 0, "view_as_complex", [&] {
        return "view_as_complex needs strides divisible by 2 for all but the last dim, got " +
               shape_str(strides_of(t));
      });
      s = ctx.simplify(floordiv(s, 2));
    }
    TensorMeta out =
        contiguous(real_to_complex(t.dtype), std::vector<Expr>(t.sizes.begin(), t.sizes.end() - 1));
    out.strides = strides;
    return Value::of(out);
  });
  r.add("aten.complex", [](OpContext& ctx) { return from_parts(ctx, "real", "imag"); });
  r.add("aten.polar", [](OpContext& ctx) { return from_parts(ctx, "abs", "angle"); });
  r.add("aten.real", [](OpContext& ctx) { return part(ctx, false); });
  r.add("aten.imag", [](OpContext& ctx) { return part(ctx, true); });
  // angle: real for complex input; integers compute in the default float dtype.
  r.add("aten.angle", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    DType d = is_complex(t.dtype) ? complex_to_real(t.dtype) : to_floating(t.dtype);
    return Value::of(contiguous(d, t.sizes));
  });
  for (const char* op :
       {"aten.conj", "aten._conj", "aten.conj_physical", "aten.resolve_conj", "aten.resolve_neg"}) {
    r.add(op, [](OpContext& ctx) { return Value::of(ctx.tensor("self")); });
  }
}

}  // namespace symshape::ops
