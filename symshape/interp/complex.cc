// Complex kernels: views between complex and real-with-a-trailing-2, parts, constructors,
// conjugation. Argument names and result dtypes follow symshape/ops/complex.cc.
//
// PyTorch's view_as_real, view_as_complex, real and imag are views sharing storage. The
// interpreter's Storage keeps complex and real elements in separate vectors, so these kernels
// return a COPY laid out exactly like the view: a fresh storage mirroring every element the
// input reaches at the view's positions, viewed with the view's sizes, strides and offset. Values,
// shapes and strides are PyTorch's; only writes through the result (or later writes to the input)
// are not seen by the other. conj (PyTorch's lazy conjugate view) is likewise a conjugated copy
// with the input's layout.
#include <cmath>
#include <numbers>

#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

std::string dtype_name(DType d) { return std::string(to_string(d)); }

Tensor complex_tensor(const KernelContext& ctx, std::string_view name) {
  Tensor t = ctx.tensor(name);
  if (!is_complex(t.dtype())) {
    ctx.bad_input(std::string(name) + " must be a complex tensor, got " + dtype_name(t.dtype()));
  }
  return t;
}

void require_complex_capable(const KernelContext& ctx, DType d, const std::string& op) {
  if (d != DType::Float32 && d != DType::Float64) {
    ctx.bad_input(op + " needs float32 or float64 tensors (complex64 / complex128), got " +
                  dtype_name(d));
  }
}

// The storage position of t's element at index.
int64_t position(const Tensor& t, std::span<const int64_t> index) {
  int64_t p = t.offset();
  for (size_t d = 0; d < index.size(); ++d) p += index[d] * t.strides()[d];
  return p;
}

// One past the largest storage position t reaches (t has elements).
int64_t extent(const Tensor& t) {
  int64_t p = t.offset();
  for (size_t d = 0; d < t.rank(); ++d) {
    p += std::max<int64_t>(0, (t.sizes()[d] - 1) * t.strides()[d]);
  }
  return p + 1;
}

// A real storage mirroring complex t: element at position p goes to 2p (real) and 2p + 1 (imag).
Tensor real_mirror(const Tensor& t) {
  Tensor base = Tensor::zeros(complex_to_real(t.dtype()), {2 * extent(t)});
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    Complex c = t.at(index).as_complex();
    int64_t p = position(t, index);
    base.set_flat(2 * p, Scalar::of_float(c.real()));
    base.set_flat(2 * p + 1, Scalar::of_float(c.imag()));
  });
  return base;
}

std::vector<int64_t> doubled(const std::vector<int64_t>& strides) {
  std::vector<int64_t> out;
  for (int64_t s : strides) out.push_back(2 * s);
  return out;
}

// real / imag of a complex tensor: a (copied) view of one part, strides counting real elements.
Tensor part(const Tensor& t, bool imaginary) {
  const DType real = complex_to_real(t.dtype());
  if (t.numel() == 0) return Tensor::zeros(real, t.sizes());
  return real_mirror(t).as_strided(t.sizes(), doubled(t.strides()),
                                   2 * t.offset() + (imaginary ? 1 : 0));
}

// f applied to every element of t, in a copy with t's layout (sizes, strides, offset).
Tensor map_in_layout(const Tensor& t, const std::function<Scalar(const Scalar&)>& f) {
  if (t.numel() == 0) return Tensor::zeros(t.dtype(), t.sizes());
  Tensor base = Tensor::zeros(t.dtype(), {extent(t)});
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    base.set_flat(position(t, index), f(t.at(index)));
  });
  return base.as_strided(t.sizes(), t.strides(), t.offset());
}

// complex(real, imag) and polar(abs, angle): two real tensors of one dtype broadcast into a
// complex one.
Kernel from_parts(const char* first, const char* second, bool polar) {
  return [first, second, polar](KernelContext& ctx) {
    Tensor a = ctx.tensor(first), b = ctx.tensor(second);
    const std::string op = polar ? "polar" : "complex";
    require_complex_capable(ctx, a.dtype(), op);
    if (a.dtype() != b.dtype()) {
      ctx.fail(op + " expects " + first + " and " + second + " of one dtype, got " +
               dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
    }
    if (!broadcast_shapes(a.sizes(), b.sizes())) {
      ctx.fail("cannot broadcast " + a.str() + " with " + b.str());
    }
    return RValue::of(map2(a, b, a.dtype(), real_to_complex(a.dtype()),
                           [polar](const Scalar& x, const Scalar& y) {
                             if (polar) return Scalar::of_complex(std::polar(x.f, y.f));
                             return Scalar::of_complex(Complex(x.f, y.f));
                           }));
  };
}

}  // namespace

void register_complex(KernelRegistry& r) {
  // view_as_real: [..] complex -> [.., 2] real, strides doubled and a last stride of 1.
  r.add("aten.view_as_real", [](KernelContext& ctx) {
    Tensor t = complex_tensor(ctx, "self");
    std::vector<int64_t> sizes = t.sizes();
    sizes.push_back(2);
    const DType real = complex_to_real(t.dtype());
    if (t.numel() == 0) return RValue::of(Tensor::zeros(real, sizes));
    std::vector<int64_t> strides = doubled(t.strides());
    strides.push_back(1);
    return RValue::of(real_mirror(t).as_strided(sizes, strides, 2 * t.offset()));
  });
  // view_as_complex: [.., 2] real (last stride 1, other strides and the offset even) -> [..].
  r.add("aten.view_as_complex", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_complex_capable(ctx, t.dtype(), "view_as_complex");
    if (t.rank() == 0)
      ctx.bad_input("view_as_complex needs a last dim of size 2, got a 0-dim tensor");
    if (t.sizes().back() != 2)
      ctx.fail("view_as_complex needs a last dim of size 2, got " + t.str());
    if (t.strides().back() != 1) {
      ctx.fail("view_as_complex needs a last dim with stride 1");
    }
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end() - 1);
    std::vector<int64_t> strides;
    for (size_t d = 0; d + 1 < t.rank(); ++d) {
      if (t.strides()[d] % 2 != 0) {
        ctx.fail("view_as_complex needs strides divisible by 2 for all but the last dim");
      }
      strides.push_back(t.strides()[d] / 2);
    }
    if (t.offset() % 2 != 0) ctx.fail("view_as_complex needs a storage offset divisible by 2");
    const DType complex = real_to_complex(t.dtype());
    if (t.numel() == 0) return RValue::of(Tensor::zeros(complex, sizes));
    Tensor base = Tensor::zeros(complex, {(extent(t) + 1) / 2});
    for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
      int64_t p = position(t, index);
      Complex c = base.flat(p / 2).as_complex();
      double v = t.at(index).as_double();
      c = p % 2 == 0 ? Complex(v, c.imag()) : Complex(c.real(), v);
      base.set_flat(p / 2, Scalar::of_complex(c));
    });
    return RValue::of(base.as_strided(sizes, strides, t.offset() / 2));
  });
  r.add("aten.complex", from_parts("real", "imag", false));
  r.add("aten.polar", from_parts("abs", "angle", true));
  // real of a real tensor is the tensor itself; imag needs a complex one.
  r.add("aten.real", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    return RValue::of(is_complex(t.dtype()) ? part(t, false) : t);
  });
  r.add("aten.imag",
        [](KernelContext& ctx) { return RValue::of(part(complex_tensor(ctx, "self"), true)); });
  // angle: arg of a complex value; of a real one pi for negatives, 0 otherwise, NaN kept.
  r.add("aten.angle", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (is_complex(t.dtype())) {
      return RValue::of(map1(t, t.dtype(), complex_to_real(t.dtype()),
                             [](const Scalar& x) { return Scalar::of_float(std::arg(x.c)); }));
    }
    DType out = is_floating(t.dtype()) ? t.dtype() : DType::Float32;
    return RValue::of(map1(t, out, out, [](const Scalar& x) {
      double v = x.f;
      return Scalar::of_float(std::isnan(v) ? v : v < 0 ? std::numbers::pi : 0.0);
    }));
  });
  // conj: the conjugate (a copy in the input's layout) of a complex tensor; a real tensor itself.
  for (const char* op : {"aten.conj", "aten._conj", "aten.conj_physical"}) {
    r.add(op, [](KernelContext& ctx) {
      Tensor t = ctx.tensor("self");
      if (!is_complex(t.dtype())) return RValue::of(t);
      return RValue::of(
          map_in_layout(t, [](const Scalar& x) { return Scalar::of_complex(std::conj(x.c)); }));
    });
  }
  // No lazy conjugate or negative bits: resolving is the identity.
  for (const char* op : {"aten.resolve_conj", "aten.resolve_neg"}) {
    r.add(op, [](KernelContext& ctx) { return RValue::of(ctx.tensor("self")); });
  }
}

}  // namespace symshape::interp::kernels
