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
#include <algorithm>
#include <cmath>
#include <numbers>

#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/complex.h"

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

// ---- the real FFTs PyTorch's Core ATen opset names (_fft_r2c, _fft_c2r), computed directly ----

// The FFT dims of a call (normalized, distinct, at least one) and its normalization mode.
std::vector<size_t> fft_dims(const KernelContext& ctx, const Tensor& t, const std::string& op) {
  return validate::fft_dims(ctx, t.rank(), op);
}

// The scale of normalization mode norm for a transform of n points in all: 1, 1/sqrt(n), 1/n.
double fft_scale(int64_t norm, double n) {
  return norm == 0 ? 1.0 : norm == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

// The discrete Fourier transform along dim d of a row-major buffer, in place:
// X[k] = sum_j x[j] exp(sign * 2 pi i j k / n).
void dft_along(std::vector<Complex>& buf, const std::vector<int64_t>& sizes, size_t d, int sign) {
  const int64_t n = sizes[d];
  int64_t inner = 1, outer = 1;
  for (size_t i = d + 1; i < sizes.size(); ++i) inner *= sizes[i];
  for (size_t i = 0; i < d; ++i) outer *= sizes[i];
  std::vector<Complex> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) {
        Complex sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          const double angle = sign * 2 * std::numbers::pi * static_cast<double>((j * k) % n) /
                               static_cast<double>(n);
          sum += buf[base + j * inner] * std::polar(1.0, angle);
        }
        line[k] = sum;
      }
      for (int64_t k = 0; k < n; ++k) buf[base + k * inner] = line[k];
    }
  }
}

std::vector<Complex> complex_values(const Tensor& t) {
  std::vector<Complex> out;
  out.reserve(static_cast<size_t>(t.numel()));
  for (const Scalar& v : t.values()) out.push_back(v.as_complex());
  return out;
}

// _fft_r2c(self, dim, normalization, onesided): the forward FFT of a real tensor over dim; one-
// sided keeps the first n//2 + 1 frequencies of the last dim.
RValue fft_r2c(KernelContext& ctx) {
  const std::string op = "_fft_r2c";
  Tensor t = ctx.tensor("self");
  if (!is_floating(t.dtype())) ctx.bad_input(op + " expects a floating point input");
  require_complex_capable(ctx, t.dtype(), op);
  const std::vector<size_t> dims = fft_dims(ctx, t, op);
  for (size_t d : dims) {
    if (t.sizes()[d] < 1) ctx.fail(op + ": invalid number of data points (0)");
  }
  std::vector<Complex> buf = complex_values(t);
  double points = 1;
  for (size_t d : dims) {
    dft_along(buf, t.sizes(), d, -1);
    points *= static_cast<double>(t.sizes()[d]);
  }
  const double scale = fft_scale(ctx.integer("normalization"), points);
  std::vector<int64_t> sizes = t.sizes();
  const size_t last = dims.back();
  if (ctx.boolean("onesided", true)) sizes[last] = t.sizes()[last] / 2 + 1;
  Tensor out = Tensor::zeros(real_to_complex(t.dtype()), sizes);
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    int64_t flat = 0;
    for (size_t d = 0; d < sizes.size(); ++d) flat = flat * t.sizes()[d] + index[d];
    out.set(index, Scalar::of_complex(buf[static_cast<size_t>(flat)] * scale));
  });
  return RValue::of(out);
}

// _fft_c2r(self, dim, normalization, last_dim_size): the inverse FFT over dim of a spectrum
// one-sided in the last dim, real: the other dims are transformed back as complex, then the
// last dim is extended by Hermitian symmetry to last_dim_size points (X[n - k] = conj(X[k]);
// the imaginary parts of the zero and Nyquist frequencies drop out, as pocketfft's c2r) and
// transformed back; entries past n//2 are not read.
RValue fft_c2r(KernelContext& ctx) {
  const std::string op = "_fft_c2r";
  Tensor t = complex_tensor(ctx, "self");
  const std::vector<size_t> dims = fft_dims(ctx, t, op);
  const int64_t n = ctx.integer("last_dim_size");
  if (n < 1) ctx.fail(op + ": expected last_dim_size >= 1, got " + std::to_string(n));
  const size_t last = dims.back();
  // The spectrum with the last dim extended to n points.
  std::vector<int64_t> full = t.sizes();
  full[last] = n;
  std::vector<Complex> buf(static_cast<size_t>(Tensor::zeros(DType::Bool, full).numel()));
  const int64_t have = t.sizes()[last];
  // First the frequencies 0..n//2 the spectrum holds (the rest zero for now) ...
  for_each_index(full, [&](std::span<const int64_t> index) {
    const int64_t k = index[last];
    if (k > n / 2 || k >= have) return;
    int64_t flat = 0;
    for (size_t d = 0; d < full.size(); ++d) flat = flat * full[d] + index[d];
    buf[static_cast<size_t>(flat)] = t.at(index).as_complex();
  });
  double points = 1;
  for (size_t d : dims) points *= static_cast<double>(full[d]);
  // ... transformed back over the other dims, then mirrored along the last.
  for (size_t i = 0; i + 1 < dims.size(); ++i) dft_along(buf, full, dims[i], +1);
  int64_t inner = 1, outer = 1;
  for (size_t i = last + 1; i < full.size(); ++i) inner *= full[i];
  for (size_t i = 0; i < last; ++i) outer *= full[i];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      buf[base] = buf[base].real();
      if (n % 2 == 0) buf[base + (n / 2) * inner] = buf[base + (n / 2) * inner].real();
      for (int64_t k = n / 2 + 1; k < n; ++k)
        buf[base + k * inner] = std::conj(buf[base + (n - k) * inner]);
    }
  }
  dft_along(buf, full, last, +1);
  const double scale = fft_scale(ctx.integer("normalization"), points);
  Tensor out = Tensor::zeros(complex_to_real(t.dtype()), full);
  for (size_t i = 0; i < buf.size(); ++i)
    out.set_flat(static_cast<int64_t>(i), Scalar::of_float(buf[i].real() * scale));
  return RValue::of(out);
}

}  // namespace

void register_complex(KernelRegistry& r) {
  r.add("aten._fft_r2c", fft_r2c);
  r.add("aten._fft_c2r", fft_c2r);
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
