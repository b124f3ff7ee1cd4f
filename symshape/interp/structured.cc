// Kernels of structured ops: tril / triu, diagonal / diag / diag_embed / diagonal_scatter,
// unfold, as_strided_scatter, one_hot, bucketize / searchsorted and cdist.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/structured.h"

namespace symshape::interp::kernels {

namespace {

using Sizes = std::vector<int64_t>;
using math::load;
using math::sizes_str;
using math::store;
using validate::PadMode;

int64_t dim_arg(const KernelContext& ctx, std::string_view name, int64_t fallback) {
  return ctx.integer(name, fallback);
}

// PyTorch's diagonal: the other dims in order, then the diagonal at `offset` of dims (d1, d2),
// as a view of t.
Tensor diagonal_view(const KernelContext& ctx, const Tensor& t, int64_t offset, int64_t dim1,
                     int64_t dim2, const std::string& op) {
  const auto [d1, d2] = validate::diagonal_dims(ctx, t.sizes(), dim1, dim2, op);
  const int64_t n1 = t.sizes()[d1], n2 = t.sizes()[d2];
  // Offsets beyond the sizes give an empty diagonal; clamp before arithmetic to avoid overflow.
  int64_t len = 0;
  if (offset >= 0) {
    len = offset >= n2 ? 0 : std::min(n1, n2 - offset);
  } else {
    len = offset <= -n1 ? 0 : std::min(n1 + offset, n2);
  }
  int64_t start = t.offset();
  if (len > 0) {
    start += offset >= 0 ? offset * t.strides()[d2] : -offset * t.strides()[d1];
  }
  Sizes sizes, strides;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(t.strides()[d1] + t.strides()[d2]);
  return t.as_strided(sizes, strides, start);
}

// Copies src into view (same sizes, checked by the caller).
void copy_into(Tensor& view, const Tensor& src) {
  for_each_index(view.sizes(), [&](std::span<const int64_t> at) { view.set(at, src.at(at)); });
}

Kernel triangle(bool lower) {
  return [lower](KernelContext& ctx) {
    const std::string op = lower ? "tril" : "triu";
    Tensor t = ctx.tensor("self");
    const int64_t k = dim_arg(ctx, "diagonal", 0);
    validate::triangle_input(ctx, t.sizes(), op);
    Tensor out = t.clone();
    const size_t r = t.rank();
    const Scalar zero = Scalar::of_int(0);
    for_each_index(out.sizes(), [&](std::span<const int64_t> at) {
      // Column minus row, compared without overflow against k.
      const __int128 above = static_cast<__int128>(at[r - 1]) - at[r - 2];
      if (lower ? above > k : above < k) out.set(at, zero);
    });
    return RValue::of(out);
  };
}

RValue diagonal(KernelContext& ctx) {
  const std::string self = ctx.schema().params.at(0).name;
  const bool linalg = self == "A";
  return RValue::of(diagonal_view(
      ctx, ctx.tensor(self), dim_arg(ctx, "offset", 0), dim_arg(ctx, "dim1", linalg ? -2 : 0),
      dim_arg(ctx, "dim2", linalg ? -1 : 1), linalg ? "linalg_diagonal" : "diagonal"));
}

RValue diag(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t d = dim_arg(ctx, "diagonal", 0);
  validate::diag_input(ctx, t.sizes());
  if (t.rank() == 1) {
    const int64_t n0 = t.sizes()[0];
    if (d > Tensor::kMaxElements || d < -Tensor::kMaxElements) {
      ctx.fail("diag: diagonal " + std::to_string(d) +
               " makes a result too large for the interpreter");
    }
    const int64_t n = n0 + (d < 0 ? -d : d);
    Tensor out = Tensor::zeros(t.dtype(), {n, n});
    for (int64_t i = 0; i < n0; ++i) {
      const Sizes at = d >= 0 ? Sizes{i, i + d} : Sizes{i - d, i};
      out.set(at, t.at(Sizes{i}));
    }
    return RValue::of(out);
  }
  return RValue::of(diagonal_view(ctx, t, d, 0, 1, "diag").clone());
}

RValue diag_embed(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t offset = dim_arg(ctx, "offset", 0);
  const auto [d1, d2] =
      validate::diag_embed_dims(ctx, t.sizes(), dim_arg(ctx, "dim1", -2), dim_arg(ctx, "dim2", -1));
  const size_t rank = t.rank() + 1;
  if (offset > Tensor::kMaxElements || offset < -Tensor::kMaxElements) {
    ctx.fail("diag_embed: offset " + std::to_string(offset) +
             " makes a result too large for the interpreter");
  }
  const int64_t n = t.sizes().back() + (offset < 0 ? -offset : offset);
  Sizes rest(t.sizes().begin(), t.sizes().end() - 1), sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(d == d1 || d == d2 ? n : rest[next++]);
  math::checked_numel(ctx, sizes, "diag_embed");
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Tensor view = diagonal_view(ctx, out, offset, static_cast<int64_t>(d1), static_cast<int64_t>(d2),
                              "diag_embed");
  copy_into(view, t);
  return RValue::of(out);
}

RValue diagonal_scatter(KernelContext& ctx) {
  Tensor out = ctx.tensor("self").clone();
  Tensor src = ctx.tensor("src");
  Tensor view = diagonal_view(ctx, out, dim_arg(ctx, "offset", 0), dim_arg(ctx, "dim1", 0),
                              dim_arg(ctx, "dim2", 1), "diagonal_scatter");
  validate::scatter_src(ctx, src.sizes(), view.sizes(), "diagonal_scatter");
  copy_into(view, src);
  return RValue::of(out);
}

RValue as_strided_scatter(KernelContext& ctx) {
  Tensor out = ctx.tensor("self").clone();
  Tensor src = ctx.tensor("src");
  Sizes sizes = ctx.int_list("size"), strides = ctx.int_list("stride");
  const int64_t offset = ctx.integer("storage_offset", 0);
  const std::string op = "as_strided_scatter";
  validate::strided_view(ctx, sizes, strides, offset, op);
  Tensor view;
  try {
    view = out.as_strided(sizes, strides, offset);
  } catch (const RunError&) {
    throw;
  } catch (const Error& e) {
    ctx.fail(op + ": the view of size " + sizes_str(sizes) + ", stride " + sizes_str(strides) +
             " and offset " + std::to_string(offset) + " is out of bounds for self " +
             sizes_str(out.sizes()) + " (" + e.what() + ")");
  }
  validate::scatter_src(ctx, src.sizes(), view.sizes(), op);
  copy_into(view, src);
  return RValue::of(out);
}

Tensor unfolded(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t dim = ctx.integer("dimension");
  const int64_t size = ctx.integer("size"), step = ctx.integer("step");
  const size_t k = validate::unfold_args(ctx, t.sizes(), dim, size, step);
  if (t.rank() == 0) return t.as_strided({size}, {1}, t.offset());
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes[k] = (t.sizes()[k] - size) / step + 1;
  const int64_t inner = strides[k];
  strides[k] =
      static_cast<int64_t>(static_cast<uint64_t>(strides[k]) * static_cast<uint64_t>(step));
  sizes.push_back(size);
  strides.push_back(inner);
  return t.as_strided(sizes, strides, t.offset());
}

RValue one_hot(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  int64_t n = ctx.integer("num_classes", -1);
  validate::one_hot_args(ctx, t.dtype(), t.sizes(), t.numel(), n);
  const std::vector<Scalar> values = t.values();
  if (n == -1) {
    int64_t top = 0;
    for (const Scalar& v : values) top = std::max(top, v.as_int());
    if (top >= Tensor::kMaxElements)
      ctx.fail("one_hot: class value " + std::to_string(top) +
               " makes a result too large for the interpreter");
    n = top + 1;
  }
  for (const Scalar& v : values) {
    if (v.as_int() < 0 || v.as_int() >= n) {
      // A fact about the data, which check cannot know.
      ctx.fail("one_hot: class value " + std::to_string(v.as_int()) + " is outside its range [0, " +
               std::to_string(n) +
               ") (class values must be non-negative and smaller than num_classes)");
    }
  }
  Sizes sizes = t.sizes();
  sizes.push_back(n);
  math::checked_numel(ctx, sizes, "one_hot");
  Tensor out = Tensor::zeros(DType::Int64, sizes);
  int64_t i = 0;
  for (const Scalar& v : values) out.set_flat(i++ * n + v.as_int(), Scalar::of_int(1));
  return RValue::of(out);
}

// a < b between elements of real tensors (integers compare exactly).
bool less(const Scalar& a, const Scalar& b) {
  const bool ints = a.kind != Scalar::Kind::Float && b.kind != Scalar::Kind::Float;
  return ints ? a.as_int() < b.as_int() : a.as_double() < b.as_double();
}

Kernel search(bool bucketize) {
  return [bucketize](KernelContext& ctx) {
    const std::string op = bucketize ? "bucketize" : "searchsorted";
    Tensor seq = ctx.tensor(bucketize ? "boundaries" : "sorted_sequence");
    const bool scalar = !ctx.is_tensor_arg("self");
    Tensor self = scalar ? Tensor() : ctx.tensor("self");
    const bool right = validate::search_args(ctx, bucketize, seq, scalar ? nullptr : &self);
    if (scalar) {
      const Scalar v = ctx.scalar("self");
      self = Tensor::scalar(v.kind == Scalar::Kind::Float ? DType::Float64 : DType::Int64, v);
    }
    const std::optional<Tensor> sorter = bucketize ? std::nullopt : ctx.optional_tensor("sorter");
    const DType out_type = ctx.boolean("out_int32", false) ? DType::Int32 : DType::Int64;
    Tensor out = Tensor::zeros(out_type, self.sizes());
    const int64_t len = seq.sizes().back();
    Sizes at(seq.rank(), 0);
    for_each_index(self.sizes(), [&](std::span<const int64_t> index) {
      // The row of seq this element searches: its leading index, or the whole 1-d seq.
      for (size_t d = 0; d + 1 < seq.rank(); ++d) at[d] = index[d];
      auto element = [&](int64_t k) {
        at.back() = k;
        if (sorter) {
          const int64_t s = sorter->at(at).as_int();
          if (s < 0 || s >= len) {
            ctx.fail(op + ": sorter index " + std::to_string(s) + " is outside its range [0, " +
                     std::to_string(len) + ")");
          }
          at.back() = s;
        }
        return seq.at(at);
      };
      const Scalar v = self.at(index);
      int64_t lo = 0, hi = len;  // the first k with seq[k] >= v (left) or seq[k] > v (right)
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const Scalar s = element(mid);
        const bool before = right ? !less(v, s) : less(s, v);
        if (before) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      out.set(index, Scalar::of_int(lo));
    });
    return RValue::of(out);
  };
}

// The p-norm distance, accumulated one coordinate difference at a time: p = 0 counts the
// non-zero differences, p = inf takes the largest, others sum |d|^p and take the p-th root.
double add_distance_term(double acc, double diff, double p) {
  const double d = std::fabs(diff);
  if (p == 0) return acc + (d != 0 ? 1 : 0);
  if (std::isinf(p)) return std::max(acc, d);
  return acc + std::pow(d, p);
}

double finish_distance(double acc, double p) {
  if (p == 0 || std::isinf(p) || p == 1) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
}

RValue cdist(KernelContext& ctx) {
  Tensor a = ctx.tensor("x1"), b = ctx.tensor("x2");
  const double p = ctx.real("p", 2.0);
  validate::cdist_args(ctx, a, b, p);
  const int64_t m = a.sizes().back();
  const Sizes batch_a(a.sizes().begin(), a.sizes().end() - 2);
  const Sizes batch_b(b.sizes().begin(), b.sizes().end() - 2);
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch) {
    ctx.fail("cdist: cannot broadcast the batch dims " + sizes_str(batch_a) + " and " +
             sizes_str(batch_b));
  }
  const int64_t rows = a.sizes()[a.rank() - 2], cols = b.sizes()[b.rank() - 2];
  Sizes sizes = *batch;
  sizes.push_back(rows);
  sizes.push_back(cols);
  math::checked_numel(ctx, sizes, "cdist");
  Sizes shape_a = *batch, shape_b = *batch;
  shape_a.insert(shape_a.end(), {rows, m});
  shape_b.insert(shape_b.end(), {cols, m});
  const Tensor xa = expand_to(a, shape_a), xb = expand_to(b, shape_b);
  Tensor out = Tensor::zeros(a.dtype(), sizes);
  const size_t r = sizes.size();
  Sizes ia, ib;
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    ia.assign(at.begin(), at.end() - 1);
    ib.assign(at.begin(), at.end() - 2);
    ib.push_back(at[r - 1]);
    ia.push_back(0);
    ib.push_back(0);
    double acc = 0;
    for (int64_t k = 0; k < m; ++k) {
      ia.back() = k;
      ib.back() = k;
      acc = add_distance_term(acc, xa.at(ia).as_double() - xb.at(ib).as_double(), p);
    }
    out.set(at, Scalar::of_float(finish_distance(acc, p)));
  });
  return RValue::of(out);
}

// _pdist_forward (self, p): the p-norm distance of every pair of rows i < j of a 2-D input, in
// row-major order of the pairs: N * (N - 1) / 2 values.
RValue pdist_forward(KernelContext& ctx) {
  Tensor x = ctx.tensor("self");
  const double p = ctx.real("p", 2.0);
  validate::pdist_args(ctx, x, p);
  const int64_t n = x.size(0), m = x.size(1);
  const std::vector<double> v = load<double>(x);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n > 1 ? n * (n - 1) / 2 : 0));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < m; ++k) {
        acc = add_distance_term(
            acc, v[static_cast<size_t>(i * m + k)] - v[static_cast<size_t>(j * m + k)], p);
      }
      out.push_back(finish_distance(acc, p));
    }
  }
  return RValue::of(store<double>(x.dtype(), {static_cast<int64_t>(out.size())}, out));
}

// ---- reflection / replication / circular padding (checked by validate::padding) ----

Tensor padded(const KernelContext& ctx, const Tensor& t, const Sizes& pad, PadMode mode,
              const std::string& op) {
  validate::padding(ctx, t.sizes(), pad, mode, op);
  const size_t k = pad.size() / 2;
  Sizes sizes = t.sizes();
  for (size_t i = 0; i < k; ++i) {
    const size_t d = t.rank() - 1 - i;
    const __int128 out = static_cast<__int128>(t.sizes()[d]) + pad[2 * i] + pad[2 * i + 1];
    if (out > Tensor::kMaxElements)
      ctx.fail(op + ": padding makes a result too large for the interpreter");
    sizes[d] = static_cast<int64_t>(out);
  }
  math::checked_numel(ctx, sizes, op);
  Tensor result = Tensor::zeros(t.dtype(), sizes);
  Sizes from(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    std::copy(at.begin(), at.end(), from.begin());
    for (size_t i = 0; i < k; ++i) {
      const size_t d = t.rank() - 1 - i;
      const int64_t w = t.sizes()[d];
      __int128 p = static_cast<__int128>(at[d]) - pad[2 * i];  // pads may be huge
      switch (mode) {
        case PadMode::Reflect:
          if (p < 0) p = -p;
          if (p >= w) p = 2 * static_cast<__int128>(w - 1) - p;
          break;
        case PadMode::Replicate: p = std::clamp<__int128>(p, 0, w - 1); break;
        case PadMode::Circular: p = ((p % w) + w) % w; break;
      }
      from[d] = static_cast<int64_t>(p);
    }
    result.set(at, t.at(from));
  });
  return result;
}

Kernel pad_nd(PadMode mode, size_t n) {
  return [mode, n](KernelContext& ctx) {
    const std::string op = std::string(mode == PadMode::Reflect ? "reflection" : "replication") +
                           "_pad" + std::to_string(n) + "d";
    Tensor t = ctx.tensor("self");
    Sizes pad = ctx.int_list("padding");
    validate::padding_count(ctx, pad, n, op);
    return RValue::of(padded(ctx, t, pad, mode, op));
  };
}

RValue pad(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes p = ctx.int_list("pad");
  const std::string mode = ctx.string("mode", "constant");
  const double value = ctx.real("value", 0.0);
  const std::optional<PadMode> m = validate::pad_args(ctx, t.sizes(), p, mode);
  if (!m) {
    Sizes sizes = t.sizes();
    for (size_t i = 0; i < p.size() / 2; ++i) {
      const size_t d = t.rank() - 1 - i;
      const __int128 s = static_cast<__int128>(sizes[d]) + p[2 * i] + p[2 * i + 1];
      if (s > Tensor::kMaxElements)
        ctx.fail("pad: padding makes a result too large for the interpreter");
      sizes[d] = static_cast<int64_t>(s);
    }
    math::checked_numel(ctx, sizes, "pad");
    Tensor out = Tensor::zeros(t.dtype(), sizes);
    const Scalar fill = Scalar::of_float(value);
    Sizes from(t.rank());
    for_each_index(sizes, [&](std::span<const int64_t> at) {
      bool inside = true;
      for (size_t d = 0; d < t.rank(); ++d) {
        const size_t i = t.rank() - 1 - d;  // pair index of dim d, when padded
        const int64_t left = i < p.size() / 2 ? p[2 * i] : 0;
        const __int128 q = static_cast<__int128>(at[d]) - left;  // pads may be huge
        inside &= q >= 0 && q < t.sizes()[d];
        from[d] = inside ? static_cast<int64_t>(q) : 0;
      }
      out.set(at, inside ? t.at(from) : fill);
    });
    return RValue::of(out);
  }
  return RValue::of(padded(ctx, t, p, *m, "pad (" + mode + ")"));
}

// ---- upsampling (PyTorch's CPU kernels: float index arithmetic, as they compute it) ----

using validate::Interp;
using validate::interp_name;

// compute_scales_value: 1 / scale when one was given (and positive), else in / out.
template <class T>
T scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale)
                             : static_cast<T>(in) / static_cast<T>(out);
}

template <class T>
T area_pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  }
  return scales_value<T>(scale, in, out);
}

template <class T>
T area_pixel_source(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

int64_t nearest_index(int64_t dst, int64_t in, int64_t out, std::optional<double> scale,
                      bool exact) {
  const float s = scales_value<float>(scale, in, out);
  // The index, at most in - 1 (a huge or NaN one from a tiny given scale too, without casting it).
  auto capped = [&](float f) {
    return f < static_cast<float>(in - 1) ? static_cast<int64_t>(f) : in - 1;
  };
  if (exact) return capped(std::floor((static_cast<float>(dst) + 0.5f) * s));
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return capped(std::floor(static_cast<float>(dst) * s));
}

// v held in [lo, hi] (NaN to lo), so that casting it to an int is defined.
double hold(double v, double lo, double hi) { return std::isnan(v) ? lo : std::clamp(v, lo, hi); }

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }
double cubic_interp(const double v[4], double t) {
  const double a = -0.75;
  return v[0] * cubic2(t + 1, a) + v[1] * cubic1(t, a) + v[2] * cubic1(1 - t, a) +
         v[3] * cubic2(2 - t, a);
}

Kernel upsample(Interp mode, size_t k) {
  return [mode, k](KernelContext& ctx) {
    const std::string op = interp_name(mode) + std::to_string(k) + "d";
    const std::string self = ctx.schema().params.at(0).name;
    Tensor t = ctx.tensor(self);
    auto sizes_arg = ctx.optional_int_list("output_size");
    const bool vec = ctx.declares("scale_factors");
    const std::optional<std::vector<double>> factors = validate::scale_factors(ctx, op);
    const bool align = (mode == Interp::Bilinear || mode == Interp::Bicubic) &&
                       ctx.boolean("align_corners", false);
    validate::upsample_args(ctx, t.sizes(), sizes_arg, factors, k, op);
    Sizes out;
    std::vector<std::optional<double>> scales(k);
    if (sizes_arg) {
      out = *sizes_arg;
    } else {
      for (size_t i = 0; i < k; ++i) {
        const double scale = (*factors)[i];
        const double product = static_cast<double>(t.sizes()[2 + i]) * scale;
        if (!(std::fabs(product) < 0x1p62)) {
          ctx.bad_input(op + ": scale factor " + std::to_string(scale) +
                        " makes a size too large for the interpreter");
        }
        out.push_back(static_cast<int64_t>(product));
        scales[i] = scale;
      }
    }
    if (!vec) {
      const std::vector<const char*> names =
          k == 1   ? std::vector<const char*>{"scales"}
          : k == 2 ? std::vector<const char*>{"scales_h", "scales_w"}
                   : std::vector<const char*>{"scales_d", "scales_h", "scales_w"};
      for (size_t i = 0; i < k; ++i) {
        if (ctx.has(names[i])) scales[i] = ctx.real(names[i], 0.0);
      }
    }
    validate::upsample_sizes(ctx, t.sizes(), out, op);
    Sizes sizes = {t.sizes()[0], t.sizes()[1]};
    sizes.insert(sizes.end(), out.begin(), out.end());
    math::checked_numel(ctx, sizes, op);
    Tensor result = Tensor::zeros(t.dtype(), sizes);
    const Sizes& in = t.sizes();
    if (mode == Interp::Nearest || mode == Interp::NearestExact) {
      Sizes from(t.rank());
      for_each_index(sizes, [&](std::span<const int64_t> at) {
        from[0] = at[0];
        from[1] = at[1];
        for (size_t i = 0; i < k; ++i) {
          from[2 + i] =
              nearest_index(at[2 + i], in[2 + i], out[i], scales[i], mode == Interp::NearestExact);
        }
        result.set(at, t.at(from));
      });
      return RValue::of(result);
    }
    // 2-d: bilinear or bicubic, in the float type PyTorch computes a float32 tensor in (double
    // for float64).
    const int64_t ih = in[2], iw = in[3], oh = out[0], ow = out[1];
    Sizes at_in = {0, 0, 0, 0};
    auto value = [&](int64_t n, int64_t c, int64_t y, int64_t x) {
      at_in = {n, c, std::clamp<int64_t>(y, 0, ih - 1), std::clamp<int64_t>(x, 0, iw - 1)};
      return t.at(at_in).as_double();
    };
    const bool f64 = t.dtype() == DType::Float64;
    for_each_index(sizes, [&](std::span<const int64_t> at) {
      const int64_t n = at[0], c = at[1], y = at[2], x = at[3];
      double v = 0;
      if (mode == Interp::Bilinear) {
        auto source = [&](int64_t dst, int64_t isz, int64_t osz, std::optional<double> s) {
          if (f64) {
            return area_pixel_source<double>(area_pixel_scale<double>(isz, osz, align, s), dst,
                                             align, false);
          }
          return static_cast<double>(area_pixel_source<float>(
              area_pixel_scale<float>(isz, osz, align, s), dst, align, false));
        };
        // A tiny given scale can send the source far outside (PyTorch reads out of bounds
        // there); it is held inside the image so that no cast overflows.
        const double sy = hold(source(y, ih, oh, scales[0]), 0.0, static_cast<double>(ih - 1));
        const double sx = hold(source(x, iw, ow, scales[1]), 0.0, static_cast<double>(iw - 1));
        const int64_t y0 = static_cast<int64_t>(sy), x0 = static_cast<int64_t>(sx);
        const int64_t y1 = y0 < ih - 1 ? y0 + 1 : y0, x1 = x0 < iw - 1 ? x0 + 1 : x0;
        const double ly = sy - y0, lx = sx - x0;
        v = (1 - ly) * ((1 - lx) * value(n, c, y0, x0) + lx * value(n, c, y0, x1)) +
            ly * ((1 - lx) * value(n, c, y1, x0) + lx * value(n, c, y1, x1));
      } else if (ih == oh && iw == ow) {
        v = value(n, c, y, x);
      } else {
        auto source = [&](int64_t dst, int64_t isz, int64_t osz, std::optional<double> s) {
          if (f64) {
            return area_pixel_source<double>(area_pixel_scale<double>(isz, osz, align, s), dst,
                                             align, true);
          }
          return static_cast<double>(area_pixel_source<float>(
              area_pixel_scale<float>(isz, osz, align, s), dst, align, true));
        };
        const double ry = hold(source(y, ih, oh, scales[0]), -0x1p40, 0x1p40);
        const double rx = hold(source(x, iw, ow, scales[1]), -0x1p40, 0x1p40);
        const int64_t iy = static_cast<int64_t>(std::floor(ry)),
                      ix = static_cast<int64_t>(std::floor(rx));
        const double ty = ry - iy, tx = rx - ix;
        double rows[4];
        for (int i = 0; i < 4; ++i) {
          const double row[4] = {value(n, c, iy - 1 + i, ix - 1), value(n, c, iy - 1 + i, ix),
                                 value(n, c, iy - 1 + i, ix + 1), value(n, c, iy - 1 + i, ix + 2)};
          rows[i] = cubic_interp(row, tx);
        }
        v = cubic_interp(rows, ty);
      }
      result.set(at, Scalar::of_float(v));
    });
    return RValue::of(result);
  };
}

// ---- im2col / col2im (the rule's checks, in its order) ----

using validate::Blocks;

int64_t block_count(int64_t size, const Blocks& b, size_t i) {
  const int64_t span = size + 2 * b.padding[i] - (b.dilation[i] * (b.kernel[i] - 1) + 1);
  return floordiv(span, b.stride[i]) + 1;
}

// Calls f(channel plane c, kernel offset (ki, kj), block (bh, bw), image position (y, x)) for
// every element of the column matrix, in its row-major order.
template <class F>
void for_each_block(int64_t planes, const Blocks& b, int64_t bh_count, int64_t bw_count, F f) {
  for (int64_t c = 0; c < planes; ++c) {
    for (int64_t ki = 0; ki < b.kernel[0]; ++ki) {
      for (int64_t kj = 0; kj < b.kernel[1]; ++kj) {
        for (int64_t bh = 0; bh < bh_count; ++bh) {
          for (int64_t bw = 0; bw < bw_count; ++bw) {
            const int64_t y = bh * b.stride[0] - b.padding[0] + ki * b.dilation[0];
            const int64_t x = bw * b.stride[1] - b.padding[1] + kj * b.dilation[1];
            f(c, ki, kj, bh, bw, y, x);
          }
        }
      }
    }
  }
}

RValue im2col(KernelContext& ctx) {
  const std::string op = "im2col";
  Tensor t = ctx.tensor("self");
  const Blocks b = validate::block_params(ctx, op);
  const size_t first = validate::blocks_input(ctx, t.sizes(), 3, op);
  const int64_t h = t.sizes()[first + 1], w = t.sizes()[first + 2];
  const Sizes blocks = {block_count(h, b, 0), block_count(w, b, 1)};
  validate::block_counts(ctx, blocks, "input " + sizes_str(t.sizes()), op);
  const int64_t batch = first ? t.sizes()[0] : 1, planes = t.sizes()[first];
  math::Checked checked;
  const int64_t rows = checked.mul(checked.mul(planes, b.kernel[0]), b.kernel[1]);
  const int64_t cols = checked.mul(blocks[0], blocks[1]);
  if (checked.overflow) ctx.fail(op + ": a result too large for the interpreter");
  Sizes sizes = {rows, cols};
  if (first) sizes.insert(sizes.begin(), batch);
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  for (int64_t n = 0; n < batch; ++n) {
    for_each_block(
        planes, b, blocks[0], blocks[1],
        [&](int64_t c, int64_t ki, int64_t kj, int64_t bh, int64_t bw, int64_t y, int64_t x) {
          if (y < 0 || y >= h || x < 0 || x >= w) return;
          const int64_t row = (c * b.kernel[0] + ki) * b.kernel[1] + kj;
          const int64_t col = bh * blocks[1] + bw;
          Sizes from = first ? Sizes{n, c, y, x} : Sizes{c, y, x};
          Sizes to = first ? Sizes{n, row, col} : Sizes{row, col};
          out.set(to, t.at(from));
        });
  }
  return RValue::of(out);
}

RValue col2im(KernelContext& ctx) {
  const std::string op = "col2im";
  Tensor t = ctx.tensor("self");
  Sizes out_size = ctx.int_list("output_size");
  validate::pair_param(ctx, out_size, "output_size", op);
  const Blocks b = validate::block_params(ctx, op);
  const size_t first = validate::blocks_input(ctx, t.sizes(), 2, op);
  validate::col2im_output(ctx, out_size);
  for (int64_t o : out_size) {
    if (o > Tensor::kMaxElements)
      ctx.fail(op + ": output_size " + sizes_str(out_size) + " is too large for the interpreter");
  }
  const Sizes blocks = {block_count(out_size[0], b, 0), block_count(out_size[1], b, 1)};
  validate::col2im_sizes(ctx, t.sizes(), first, out_size, b, blocks);
  const int64_t kernel = b.kernel[0] * b.kernel[1];
  const int64_t batch = first ? t.sizes()[0] : 1, planes = t.sizes()[first] / kernel;
  const int64_t h = out_size[0], w = out_size[1];
  Sizes sizes = {planes, h, w};
  if (first) sizes.insert(sizes.begin(), batch);
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  for (int64_t n = 0; n < batch; ++n) {
    for_each_block(
        planes, b, blocks[0], blocks[1],
        [&](int64_t c, int64_t ki, int64_t kj, int64_t bh, int64_t bw, int64_t y, int64_t x) {
          if (y < 0 || y >= h || x < 0 || x >= w) return;
          const int64_t row = (c * b.kernel[0] + ki) * b.kernel[1] + kj;
          const int64_t col = bh * blocks[1] + bw;
          Sizes from = first ? Sizes{n, row, col} : Sizes{row, col};
          Sizes to = first ? Sizes{n, c, y, x} : Sizes{c, y, x};
          const Scalar a = out.at(to), v = t.at(from);
          Scalar sum = Scalar::of_float(a.as_double() + v.as_double());
          if (is_complex(t.dtype())) {
            sum = Scalar::of_complex(a.as_complex() + v.as_complex());
          } else if (!is_floating(t.dtype())) {
            sum = Scalar::of_int(static_cast<int64_t>(static_cast<uint64_t>(a.as_int()) +
                                                      static_cast<uint64_t>(v.as_int())));
          }
          out.set(to, sum);
        });
  }
  return RValue::of(out);
}

// ---- grid_sampler_2d (the rule's checks, in its order) ----

RValue grid_sampler_2d(KernelContext& ctx) {
  const std::string op = "grid_sampler_2d";
  Tensor input = ctx.tensor("input"), grid = ctx.tensor("grid");
  const int64_t interpolation = ctx.integer("interpolation_mode");
  const int64_t padding = ctx.integer("padding_mode");
  const bool align = ctx.boolean("align_corners", false);
  validate::grid_sampler_args(ctx, input, grid, interpolation, padding);
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2],
                w = input.sizes()[3], ho = grid.sizes()[1], wo = grid.sizes()[2];
  const Sizes sizes = {n, c, ho, wo};
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(input.dtype(), sizes);
  // grid_sampler_compute_source_index: unnormalize from [-1, 1], then clip for border padding.
  auto source = [&](double coord, int64_t size) {
    double x = align ? (coord + 1) / 2 * static_cast<double>(size - 1)
                     : ((coord + 1) * static_cast<double>(size) - 1) / 2;
    if (padding == 1) x = std::min(static_cast<double>(size - 1), std::max(x, 0.0));
    return x;
  };
  auto at = [&](int64_t b, int64_t ch, int64_t y, int64_t x) {
    if (y < 0 || y >= h || x < 0 || x >= w) return 0.0;
    return input.at(Sizes{b, ch, y, x}).as_double();
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < ho; ++i) {
      for (int64_t j = 0; j < wo; ++j) {
        const double ix = source(grid.at(Sizes{b, i, j, 0}).as_double(), w);
        const double iy = source(grid.at(Sizes{b, i, j, 1}).as_double(), h);
        if (!std::isfinite(ix) || !std::isfinite(iy) || std::fabs(ix) > 0x1p40 ||
            std::fabs(iy) > 0x1p40) {
          continue;  // far outside the image: zeros (NaN is outside too)
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          double v = 0;
          if (interpolation == 1) {
            v = at(b, ch, static_cast<int64_t>(std::nearbyint(iy)),
                   static_cast<int64_t>(std::nearbyint(ix)));
          } else {
            const double fx = std::floor(ix), fy = std::floor(iy);
            const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
            const double tx = ix - fx, ty = iy - fy;
            v = (1 - tx) * (1 - ty) * at(b, ch, y0, x0) + tx * (1 - ty) * at(b, ch, y0, x0 + 1) +
                (1 - tx) * ty * at(b, ch, y0 + 1, x0) + tx * ty * at(b, ch, y0 + 1, x0 + 1);
          }
          out.set(Sizes{b, ch, i, j}, Scalar::of_float(v));
        }
      }
    }
  }
  return RValue::of(out);
}

// ---- _native_multi_head_attention (the rule's checks, in its order) ----

// The mask of _native_multi_head_attention and _transformer_encoder_layer_fwd as flags over the
// scores [batch, heads, seq, seq] (true: masked out), empty without a mask. mask_type 0 is
// [seq, seq], 1 is [batch, seq] (key padding), 2 (and any mask that is not 2-D) the scores'
// shape; any non-zero element masks out, as PyTorch's conversion to bool does.
std::vector<char> attention_mask(const KernelContext& ctx, const std::string& op, int64_t batch,
                                 int64_t heads, int64_t seq) {
  std::optional<Tensor> mask = ctx.optional_tensor("mask");
  const std::optional<int64_t> type = validate::attention_mask(ctx, mask, op, batch, seq, heads);
  if (!type) return {};
  Sizes at(mask->rank());
  std::vector<char> out(static_cast<size_t>(batch * heads * seq * seq));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t t = 0; t < seq; ++t) {
        for (int64_t s2 = 0; s2 < seq; ++s2) {
          if (*type == 0) {
            at = {t, s2};
          } else if (*type == 1) {
            at = {n, s2};
          } else {
            at = {n, h, t, s2};
          }
          const Scalar m = mask->at(at);
          out[static_cast<size_t>(((n * heads + h) * seq + t) * seq + s2)] =
              m.kind == Scalar::Kind::Complex ? m.as_complex() != Complex(0, 0)
                                              : m.as_double() != 0;
        }
      }
    }
  }
  return out;
}

// Multi-head self-attention over row-major [batch, seq, d] inputs x[0..2] (query, key, value):
// the packed projection wv [3d, d] + bv, softmax(q k^T / sqrt(d / heads)) v per head, and the
// output projection pwv [d, d] + pbv. attn receives the weights [batch, heads, seq, seq].
// Scores flagged in `masked` (when not empty) are left out; a row masked entirely gets weights
// 0, as PyTorch's _masked_softmax gives.
std::vector<double> attend(const std::vector<double> (&x)[3], int64_t batch, int64_t seq, int64_t d,
                           int64_t heads, const std::vector<double>& wv,
                           const std::vector<double>& bv, const std::vector<double>& pwv,
                           const std::vector<double>& pbv, const std::vector<char>& masked,
                           std::vector<double>& attn) {
  const int64_t dh = d / heads;
  // The projections: p[j][(n * T + t) * D + o] = x_j[n, t, :] . W[j * D + o, :] + b[j * D + o].
  std::vector<double> proj[3];
  for (int j = 0; j < 3; ++j) {
    proj[j].assign(static_cast<size_t>(batch * seq * d), 0.0);
    for (int64_t r = 0; r < batch * seq; ++r) {
      for (int64_t o = 0; o < d; ++o) {
        double acc = bv[static_cast<size_t>(j * d + o)];
        for (int64_t i = 0; i < d; ++i) {
          acc +=
              x[j][static_cast<size_t>(r * d + i)] * wv[static_cast<size_t>((j * d + o) * d + i)];
        }
        proj[j][static_cast<size_t>(r * d + o)] = acc;
      }
    }
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  attn.assign(static_cast<size_t>(batch * heads * seq * seq), 0.0);
  std::vector<double> context(static_cast<size_t>(batch * seq * d), 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t t = 0; t < seq; ++t) {
        const size_t first = static_cast<size_t>(((n * heads + h) * seq + t) * seq);
        double* row = &attn[first];
        auto out = [&](int64_t s2) {
          return !masked.empty() && masked[first + static_cast<size_t>(s2)] != 0;
        };
        double top = -INFINITY;
        for (int64_t s2 = 0; s2 < seq; ++s2) {
          if (out(s2)) continue;
          double dot = 0;
          for (int64_t e = 0; e < dh; ++e) {
            dot += proj[0][static_cast<size_t>((n * seq + t) * d + h * dh + e)] * scale *
                   proj[1][static_cast<size_t>((n * seq + s2) * d + h * dh + e)];
          }
          row[s2] = dot;
          top = std::max(top, dot);
        }
        double sum = 0;
        for (int64_t s2 = 0; s2 < seq; ++s2)
          sum += row[s2] = out(s2) ? 0.0 : std::exp(row[s2] - top);
        for (int64_t s2 = 0; s2 < seq; ++s2) row[s2] = sum > 0 ? row[s2] / sum : 0.0;
        for (int64_t e = 0; e < dh; ++e) {
          double acc = 0;
          for (int64_t s2 = 0; s2 < seq; ++s2) {
            acc += row[s2] * proj[2][static_cast<size_t>((n * seq + s2) * d + h * dh + e)];
          }
          context[static_cast<size_t>((n * seq + t) * d + h * dh + e)] = acc;
        }
      }
    }
  }
  std::vector<double> out(static_cast<size_t>(batch * seq * d), 0.0);
  for (int64_t r = 0; r < batch * seq; ++r) {
    for (int64_t o = 0; o < d; ++o) {
      double acc = pbv[static_cast<size_t>(o)];
      for (int64_t i = 0; i < d; ++i) {
        acc += context[static_cast<size_t>(r * d + i)] * pwv[static_cast<size_t>(o * d + i)];
      }
      out[static_cast<size_t>(r * d + o)] = acc;
    }
  }
  return out;
}

RValue native_multi_head_attention(KernelContext& ctx) {
  const std::string op = "_native_multi_head_attention";
  Tensor q = ctx.tensor("query"), k = ctx.tensor("key"), v = ctx.tensor("value");
  const int64_t d = ctx.integer("embed_dim");
  const int64_t heads = ctx.integer("num_head");
  Tensor w = ctx.tensor("qkv_weight"), b = ctx.tensor("qkv_bias");
  Tensor pw = ctx.tensor("proj_weight"), pb = ctx.tensor("proj_bias");
  const bool need_weights = ctx.boolean("need_weights", true);
  const bool average = ctx.boolean("average_attn_weights", true);
  validate::multi_head_attention_args(ctx, q, k, v, w, b, pw, pb, d, heads);
  const int64_t batch = q.sizes()[0], seq = q.sizes()[1];
  math::checked_numel(ctx, {batch, heads, seq, seq}, op);
  const std::vector<double> x[3] = {math::load<double>(q), math::load<double>(k),
                                    math::load<double>(v)};
  std::vector<double> attn;
  const std::vector<double> out = attend(
      x, batch, seq, d, heads, math::load<double>(w), math::load<double>(b), math::load<double>(pw),
      math::load<double>(pb), attention_mask(ctx, op, batch, heads, seq), attn);
  RValue weights = RValue::none();
  if (need_weights && average) {
    std::vector<double> mean(static_cast<size_t>(batch * seq * seq), 0.0);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < seq * seq; ++i) {
          mean[static_cast<size_t>(n * seq * seq + i)] +=
              attn[static_cast<size_t>((n * heads + h) * seq * seq + i)] /
              static_cast<double>(heads);
        }
      }
    }
    weights = RValue::of(math::store(q.dtype(), {batch, seq, seq}, mean));
  } else if (need_weights) {
    weights = RValue::of(math::store(q.dtype(), {batch, heads, seq, seq}, attn));
  }
  return RValue::list({RValue::of(math::store(q.dtype(), {batch, seq, d}, out)), weights});
}

// ---- _transformer_encoder_layer_fwd (the rule's checks, in its order) ----

// PyTorch's transformer_encoder_layer_forward: self-attention and a feed-forward block, each
// with a residual, layer norms before (norm_first) or after them; an empty src is cloned.
RValue transformer_encoder_layer(KernelContext& ctx) {
  const std::string op = "_transformer_encoder_layer_fwd";
  Tensor src = ctx.tensor("src");
  const int64_t d = ctx.integer("embed_dim"), heads = ctx.integer("num_heads");
  const bool gelu = ctx.boolean("use_gelu", false), norm_first = ctx.boolean("norm_first", false);
  const double eps = ctx.real("eps", 1e-5);
  validate::encoder_src(ctx, src);
  if (src.numel() == 0) return RValue::of(src.clone());
  const int64_t batch = src.sizes()[0], seq = src.sizes()[1];
  std::map<std::string, std::vector<double>> p;
  for (const auto& [name, t] : validate::encoder_weights(ctx, src, d, heads)) {
    p[name] = math::load<double>(t);
  }
  const int64_t hidden = ctx.tensor("ffn_weight_1").sizes()[0];
  math::checked_numel(ctx, {batch, heads, seq, seq}, op);
  math::checked_numel(ctx, {batch, seq, hidden}, op);
  const int64_t rows = batch * seq;
  auto norm = [&](std::vector<double> x, int which) {
    const std::vector<double>& g = p[which == 1 ? "norm_weight_1" : "norm_weight_2"];
    const std::vector<double>& b = p[which == 1 ? "norm_bias_1" : "norm_bias_2"];
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += x[static_cast<size_t>(r * d + i)];
      mean /= static_cast<double>(d);
      for (int64_t i = 0; i < d; ++i) {
        const double c = x[static_cast<size_t>(r * d + i)] - mean;
        var += c * c;
      }
      var /= static_cast<double>(d);
      const double inv = 1 / std::sqrt(var + eps);
      for (int64_t i = 0; i < d; ++i) {
        double& v = x[static_cast<size_t>(r * d + i)];
        v = (v - mean) * inv * g[static_cast<size_t>(i)] + b[static_cast<size_t>(i)];
      }
    }
    return x;
  };
  // y = x w^T + b for x [rows, in], w [out, in].
  auto linear = [&](const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& b, int64_t in, int64_t out) {
    std::vector<double> y(static_cast<size_t>(rows * out), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double acc = b[static_cast<size_t>(o)];
        for (int64_t i = 0; i < in; ++i) {
          acc += x[static_cast<size_t>(r * in + i)] * w[static_cast<size_t>(o * in + i)];
        }
        y[static_cast<size_t>(r * out + o)] = acc;
      }
    }
    return y;
  };
  const std::vector<double> input = math::load<double>(src);
  std::vector<double> x = norm_first ? norm(input, 1) : input;
  std::vector<double> attn;
  const std::vector<double> qkv[3] = {x, x, x};
  x = attend(qkv, batch, seq, d, heads, p["qkv_weight"], p["qkv_bias"], p["proj_weight"],
             p["proj_bias"], attention_mask(ctx, op, batch, heads, seq), attn);
  for (size_t i = 0; i < x.size(); ++i) x[i] += input[i];
  if (!norm_first) x = norm(x, 1);
  const std::vector<double> residual = x;
  if (norm_first) x = norm(x, 2);
  std::vector<double> h = linear(x, p["ffn_weight_1"], p["ffn_bias_1"], d, hidden);
  for (double& v : h) v = gelu ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))) : std::max(v, 0.0);
  x = linear(h, p["ffn_weight_2"], p["ffn_bias_2"], hidden, d);
  for (size_t i = 0; i < x.size(); ++i) x[i] += residual[i];
  if (!norm_first) x = norm(x, 2);
  return RValue::of(math::store(src.dtype(), src.sizes(), x));
}

}  // namespace

void register_structured(KernelRegistry& r) {
  r.add("aten.tril", triangle(true));
  r.add("aten.triu", triangle(false));
  r.add("aten.diagonal", diagonal);
  r.add("aten.linalg_diagonal", diagonal);
  r.add("aten.diagonal_copy",
        [](KernelContext& ctx) { return RValue::of(diagonal(ctx).tensor.clone()); });
  r.add("aten.diag", diag);
  r.add("aten.diag_embed", diag_embed);
  r.add("aten.diagonal_scatter", diagonal_scatter);
  r.add("aten.as_strided_scatter", as_strided_scatter);
  r.add("aten.unfold", [](KernelContext& ctx) { return RValue::of(unfolded(ctx)); });
  r.add("aten.unfold_copy", [](KernelContext& ctx) { return RValue::of(unfolded(ctx).clone()); });
  r.add("aten.one_hot", one_hot);
  r.add("aten.bucketize", search(true));
  r.add("aten.searchsorted", search(false));
  r.add("aten.cdist", cdist);
  r.add("aten._pdist_forward", pdist_forward);
  r.add("aten._cdist_forward", cdist);
  for (size_t n = 1; n <= 3; ++n) {
    r.add("aten.reflection_pad" + std::to_string(n) + "d", pad_nd(PadMode::Reflect, n));
    r.add("aten.replication_pad" + std::to_string(n) + "d", pad_nd(PadMode::Replicate, n));
  }
  r.add("aten._pad_circular", [](KernelContext& ctx) {
    return RValue::of(
        padded(ctx, ctx.tensor("self"), ctx.int_list("pad"), PadMode::Circular, "_pad_circular"));
  });
  r.add("aten.pad", pad);
  for (size_t k = 1; k <= 3; ++k) {
    const std::string n = std::to_string(k) + "d";
    r.add("aten.upsample_nearest" + n, upsample(Interp::Nearest, k));
    r.add("aten._upsample_nearest_exact" + n, upsample(Interp::NearestExact, k));
  }
  r.add("aten.upsample_bilinear2d", upsample(Interp::Bilinear, 2));
  r.add("aten.upsample_bicubic2d", upsample(Interp::Bicubic, 2));
  r.add("aten.im2col", im2col);
  r.add("aten.col2im", col2im);
  r.add("aten.grid_sampler_2d", grid_sampler_2d);
  r.add("aten._native_multi_head_attention", native_multi_head_attention);
  r.add("aten._transformer_encoder_layer_fwd", transformer_encoder_layer);
}

}  // namespace symshape::interp::kernels
