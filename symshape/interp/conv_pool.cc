// Convolution (plain, transposed, grouped, dilated, padded; batched or not; "same" / "valid"
// padding) and pooling (max with indices, average with ceil_mode / count_include_pad /
// divisor_override, adaptive), with their backward ops.
//
// Arguments are read at the positions and keyword names of the shape rules in
// symshape/ops/conv_pool.cc. Values follow PyTorch's CPU kernels, including which element a max
// pool picks (the first maximum, or the last NaN) and the index it reports (the flat position
// in the input's spatial plane).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/conv_pool.h"

namespace symshape::interp::kernels {

namespace {

using math::Checked;
using math::dispatch;
using math::load;
using math::product;
using math::sizes_str;
using math::store;
using math::unflatten;

// A per-spatial-dim parameter: one int for every dim, or one per dim.
std::vector<int64_t> spatial_param(const KernelContext& ctx, std::string_view name, size_t n,
                                   const std::vector<int64_t>& fallback, const std::string& op) {
  std::vector<int64_t> v = ctx.int_list(name, fallback);
  validate::spatial_param(ctx, v, name, n, op);
  return v;
}

// Calls f(flat position in `sizes`) for every multi-index with start[d] <= index[d] < end[d],
// stepping by step[d], in row-major order.
template <class F>
void for_each_in_box(const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& step, const std::vector<int64_t>& sizes, F&& f) {
  const size_t n = sizes.size();
  for (size_t d = 0; d < n; ++d) {
    if (start[d] >= end[d]) return;
  }
  std::vector<int64_t> index = start;
  while (true) {
    f(math::flat_index(sizes, index));
    size_t d = n;
    while (d > 0) {
      --d;
      index[d] += step[d];
      if (index[d] < end[d]) break;
      index[d] = start[d];
      if (d == 0) return;
    }
    if (n == 0) return;
  }
}

// ---- convolution ----------------------------------------------------------------------------

using ConvArgs = validate::ConvArgs<int64_t>;
using validate::ConvOp;

// The shape of one convolution: input [N, Cin, *in], weight [Cout, Cin/G, *kernel] (transposed:
// [Cin, Cout/G, *kernel]), output [N, Cout, *out]; `pad` is the left padding of each dim.
struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  std::vector<int64_t> in, out, kernel, stride, pad, dilation;
  bool transposed = false;
};

// Calls f(x, w, y) for every product x * w that the convolution adds into y, each a row-major
// position in the input, the weight and the output.
template <class F>
void for_each_connection(const ConvGeometry& g, F&& f) {
  const int64_t in_per_group = g.in_channels / g.groups;
  const int64_t out_per_group = g.out_channels / g.groups;
  const int64_t in_size = product(g.in), out_size = product(g.out), k_size = product(g.kernel);
  const size_t n = g.in.size();
  if (product({g.batch, in_per_group, out_per_group, in_size, out_size, k_size}) == 0) return;
  // The spatial position each (source, kernel offset) pair reaches, or -1 outside.
  const std::vector<int64_t>& from = g.transposed ? g.in : g.out;
  const std::vector<int64_t>& to = g.transposed ? g.out : g.in;
  const int64_t from_size = g.transposed ? in_size : out_size;
  std::vector<int64_t> reach(static_cast<size_t>(product({from_size, k_size})), -1);
  std::vector<int64_t> fi, ki, ti(n);
  for (int64_t a = 0; a < from_size; ++a) {
    unflatten(a, from, fi);
    for (int64_t k = 0; k < k_size; ++k) {
      unflatten(k, g.kernel, ki);
      bool inside = true;
      for (size_t d = 0; d < n && inside; ++d) {
        // Plain: in = out * stride - pad + k * dilation; transposed: out = in * stride - ...
        ti[d] = fi[d] * g.stride[d] - g.pad[d] + ki[d] * g.dilation[d];
        inside = ti[d] >= 0 && ti[d] < to[d];
      }
      if (inside) reach[static_cast<size_t>(a * k_size + k)] = math::flat_index(to, ti);
    }
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t group = 0; group < g.groups; ++group) {
      for (int64_t ic = group * in_per_group; ic < (group + 1) * in_per_group; ++ic) {
        for (int64_t oc = group * out_per_group; oc < (group + 1) * out_per_group; ++oc) {
          const int64_t x_base = (b * g.in_channels + ic) * in_size;
          const int64_t y_base = (b * g.out_channels + oc) * out_size;
          const int64_t w_base = g.transposed
                                     ? (ic * out_per_group + (oc - group * out_per_group)) * k_size
                                     : (oc * in_per_group + (ic - group * in_per_group)) * k_size;
          for (int64_t a = 0; a < from_size; ++a) {
            for (int64_t k = 0; k < k_size; ++k) {
              const int64_t t = reach[static_cast<size_t>(a * k_size + k)];
              if (t < 0) continue;
              const int64_t x = g.transposed ? a : t, y = g.transposed ? t : a;
              f(x_base + x, w_base + k, y_base + y);
            }
          }
        }
      }
    }
  }
}

// Checks a convolution's arguments and computes its geometry; input must be batched here.
ConvGeometry conv_geometry(const KernelContext& ctx, const std::vector<int64_t>& input,
                           const std::vector<int64_t>& original, const std::vector<int64_t>& w,
                           const ConvArgs& p) {
  const size_t n = p.n;
  validate::conv_params(ctx, p.stride, p.padding, p.dilation, p.groups, p.transposed,
                        p.output_padding, p.op);
  validate::conv_channels(ctx, input, original, w, p.groups, p.transposed, p.op);
  ConvGeometry g;
  g.batch = input[0];
  g.in_channels = input[1];
  g.groups = p.groups;
  g.transposed = p.transposed;
  Checked c;
  g.out_channels = p.transposed ? c.mul(w[1], p.groups) : w[0];
  g.in.assign(input.begin() + 2, input.end());
  g.kernel.assign(w.begin() + 2, w.end());
  g.stride = p.stride;
  g.dilation = p.dilation;
  std::vector<int64_t> padded, spans;
  for (size_t i = 0; i < n; ++i) {
    const int64_t span = c.add(c.mul(p.dilation[i], w[i + 2] - 1), 1);  // the dilated kernel
    if (p.padding_mode == "same") {
      // Stride 1; the total padding dilation * (k - 1) is split with the extra on the right.
      g.pad.push_back((span - 1) / 2);
      g.out.push_back(g.in[i]);
    } else if (!p.transposed) {
      padded.push_back(c.add(g.in[i], c.mul(2, p.padding[i])));
      spans.push_back(span);
      g.pad.push_back(p.padding[i]);
      g.out.push_back(c.overflow ? 0 : (padded.back() - span) / p.stride[i] + 1);
    } else {
      g.pad.push_back(p.padding[i]);
      g.out.push_back(c.add(c.sub(c.mul(g.in[i] - 1, p.stride[i]), c.mul(2, p.padding[i])),
                            c.add(span - 1, c.add(p.output_padding[i], 1))));
    }
  }
  if (c.overflow) ctx.fail(p.op + ": the output size overflows int64");
  if (!padded.empty()) validate::conv_kernel_fits(ctx, padded, spans, p.op);
  if (p.transposed) validate::conv_output_fits(ctx, g.in, g.out, p.op);
  const int64_t table = product({product(p.transposed ? g.in : g.out), product(g.kernel)});
  const int64_t work =
      product({table, g.batch, g.in_channels, g.groups == 0 ? 0 : g.out_channels / g.groups});
  if (work > 0 && (table > (int64_t{1} << 24) || work > math::kMaxWork)) {
    ctx.fail(p.op + ": a convolution of input " + sizes_str(input) + " with weight " +
             sizes_str(w) + " is too much work for the interpreter");
  }
  return g;
}

std::vector<int64_t> output_sizes(const ConvGeometry& g) {
  std::vector<int64_t> out = {g.batch, g.out_channels};
  out.insert(out.end(), g.out.begin(), g.out.end());
  return out;
}

RValue conv_forward(const KernelContext& ctx, const Tensor& input, const Tensor& weight,
                    const std::optional<Tensor>& bias, const ConvArgs& p) {
  const size_t n = p.n;
  const bool unbatched = validate::conv_input(ctx, input, weight, bias, n, p.allow_unbatched, p.op);
  std::vector<int64_t> sizes = input.sizes();
  if (unbatched) sizes.insert(sizes.begin(), 1);
  ConvGeometry g = conv_geometry(ctx, sizes, input.sizes(), weight.sizes(), p);
  if (bias) validate::conv_bias(ctx, bias->sizes(), weight.sizes(), g.out_channels, p.op);
  std::vector<int64_t> out_sizes = output_sizes(g);
  Tensor::zeros(input.dtype(), out_sizes);  // refuses an output too large before computing
  const int64_t per_channel = product(g.out);
  Tensor out = dispatch(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> x = load<T>(input), w = load<T>(weight);
    std::vector<T> y(static_cast<size_t>(product(out_sizes)), T{});
    for_each_connection(g, [&](int64_t xi, int64_t wi, int64_t yi) {
      y[static_cast<size_t>(yi)] += x[static_cast<size_t>(xi)] * w[static_cast<size_t>(wi)];
    });
    if (bias) {
      std::vector<T> b = load<T>(*bias);
      for (size_t i = 0; i < y.size(); ++i) {
        y[i] += b[static_cast<size_t>((static_cast<int64_t>(i) / per_channel) % g.out_channels)];
      }
    }
    if (unbatched) out_sizes.erase(out_sizes.begin());
    return store<T>(input.dtype(), out_sizes, y);
  });
  return RValue::of(out);
}

// convolution / _convolution (input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...): always batched. The backward op has the same parameters (after
// bias_sizes).
ConvArgs convolution_args(const KernelContext& ctx, const Tensor& weight) {
  return validate::conv_args(ctx, weight.sizes(), ConvOp::Convolution, 0);
}

RValue convolution(KernelContext& ctx) {
  Tensor input = ctx.tensor("input");
  Tensor weight = ctx.tensor("weight");
  ConvArgs p = convolution_args(ctx, weight);
  return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
}

// conv1d/2d/3d (input, weight, bias, stride, padding, dilation, groups): padding may be the
// strings "same" or "valid".
Kernel conv_nd(size_t n) {
  return [n](KernelContext& ctx) {
    Tensor input = ctx.tensor("input");
    Tensor weight = ctx.tensor("weight");
    const ConvArgs p = validate::conv_args(ctx, weight.sizes(), ConvOp::Conv, n);
    return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
  };
}

// conv_transpose1d/2d/3d (input, weight, bias, stride, padding, output_padding, groups,
// dilation).
Kernel conv_transpose_nd(size_t n) {
  return [n](KernelContext& ctx) {
    Tensor input = ctx.tensor("input");
    Tensor weight = ctx.tensor("weight");
    const ConvArgs p = validate::conv_args(ctx, weight.sizes(), ConvOp::ConvTranspose, n);
    return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
  };
}

template <class T>
T conj_of(const T& v) {
  if constexpr (std::is_same_v<T, Complex>) {
    return std::conj(v);
  } else {
    return v;
  }
}

// convolution_backward (grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): (grad_input, grad_weight, grad_bias).
RValue convolution_backward(KernelContext& ctx) {
  Tensor grad = ctx.tensor("grad_output");
  Tensor input = ctx.tensor("input");
  Tensor weight = ctx.tensor("weight");
  ConvArgs p = convolution_args(ctx, weight);
  p.op = "convolution_backward";
  const std::vector<bool> mask = math::output_mask(ctx, 3);
  if (input.rank() != p.n + 2) {
    ctx.fail(p.op + ": expected a " + std::to_string(p.n + 2) + "-D input for weight " +
             sizes_str(weight.sizes()) + ", got " + sizes_str(input.sizes()));
  }
  ConvGeometry g = conv_geometry(ctx, input.sizes(), input.sizes(), weight.sizes(), p);
  if (grad.sizes() != output_sizes(g)) {
    ctx.fail(p.op + ": expected grad_output of size " + sizes_str(output_sizes(g)) + ", got " +
             sizes_str(grad.sizes()));
  }
  const DType compute = promote_types(promote_types(grad.dtype(), input.dtype()), weight.dtype());
  std::vector<RValue> out(3, RValue::none());
  dispatch(compute, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> gy = load<T>(grad), x = load<T>(input), w = load<T>(weight);
    if (mask[0]) {
      std::vector<T> gx(x.size(), T{});
      for_each_connection(g, [&](int64_t xi, int64_t wi, int64_t yi) {
        gx[static_cast<size_t>(xi)] +=
            gy[static_cast<size_t>(yi)] * conj_of(w[static_cast<size_t>(wi)]);
      });
      out[0] = RValue::of(store<T>(input.dtype(), input.sizes(), gx));
    }
    if (mask[1]) {
      std::vector<T> gw(w.size(), T{});
      for_each_connection(g, [&](int64_t xi, int64_t wi, int64_t yi) {
        gw[static_cast<size_t>(wi)] +=
            gy[static_cast<size_t>(yi)] * conj_of(x[static_cast<size_t>(xi)]);
      });
      out[1] = RValue::of(store<T>(weight.dtype(), weight.sizes(), gw));
    }
    if (mask[2]) {
      std::vector<int64_t> bias_sizes = ctx.int_list("bias_sizes", {g.out_channels});
      for (int64_t s : bias_sizes) {
        if (s < 0) ctx.fail(p.op + ": negative bias size in " + sizes_str(bias_sizes));
      }
      if (product(bias_sizes) != g.out_channels) {
        ctx.fail(p.op + ": bias_sizes " + sizes_str(bias_sizes) + " must hold " +
                 std::to_string(g.out_channels) + " elements");
      }
      std::vector<T> gb(static_cast<size_t>(g.out_channels), T{});
      const int64_t per_channel = product(g.out);
      for (size_t i = 0; i < gy.size(); ++i) {
        gb[static_cast<size_t>((static_cast<int64_t>(i) / per_channel) % g.out_channels)] += gy[i];
      }
      out[2] = RValue::of(store<T>(grad.dtype(), bias_sizes, gb));
    }
    return 0;
  });
  return RValue::list(std::move(out));
}

// ---- pooling --------------------------------------------------------------------------------

// The input of a pool over the last n dims: [*leading, *spatial] with 1 or 2 leading dims.
void require_pool_input(const KernelContext& ctx, const Tensor& t, size_t n,
                        const std::string& op) {
  validate::pool_input(ctx, t.sizes(), n, op);
}

struct PoolKind {
  std::string op;
  size_t n = 0;
  bool max = true;            // max pooling (with dilation); else average pooling
  bool with_indices = false;  // (values, int64 indices)
};

struct PoolGeometry {
  std::vector<int64_t> leading, in, out, kernel, stride, pad, dilation;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor;
  int64_t planes() const { return product(leading); }
  std::vector<int64_t> out_sizes() const {
    std::vector<int64_t> s = leading;
    s.insert(s.end(), out.begin(), out.end());
    return s;
  }
};

// PyTorch's pooling_output_shape.
int64_t pool_output_size(Checked& c, int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                         int64_t dilation, bool ceil_mode) {
  const int64_t span = c.sub(c.add(in, c.mul(2, pad)), c.add(c.mul(dilation, kernel - 1), 1));
  if (c.overflow) return 0;
  int64_t out = floordiv(ceil_mode ? c.add(span, stride - 1) : span, stride) + 1;
  if (ceil_mode && c.mul(out - 1, stride) >= c.add(in, pad)) --out;
  return out;
}

// max_pool (self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode) and avg_pool
// (self, kernel_size, stride=[], padding=0, ceil_mode, count_include_pad, divisor_override):
// the parameters are read and checked; `sizes` is the input's.
PoolGeometry pool_geometry(const KernelContext& ctx, const std::vector<int64_t>& sizes,
                           const PoolKind& k) {
  const size_t n = k.n;
  if (!ctx.has("kernel_size")) ctx.bad_input(k.op + ": missing argument 'kernel_size'");
  PoolGeometry g;
  g.kernel = spatial_param(ctx, "kernel_size", n, {}, k.op);
  std::vector<int64_t> stride = ctx.int_list("stride", {});
  g.stride = stride.empty() ? g.kernel : spatial_param(ctx, "stride", n, {}, k.op);
  g.pad = spatial_param(ctx, "padding", n, {0}, k.op);
  g.dilation.assign(n, 1);
  if (k.max) g.dilation = spatial_param(ctx, "dilation", n, {1}, k.op);
  g.ceil_mode = ctx.boolean("ceil_mode", false);
  if (!k.max) {
    g.count_include_pad = ctx.boolean("count_include_pad", true);
    if (ctx.declares("divisor_override")) g.divisor = ctx.optional_integer("divisor_override");
  }
  validate::pool_params(ctx, g.kernel, g.stride, g.pad, g.dilation, g.divisor, k.op);
  g.leading.assign(sizes.begin(), sizes.end() - static_cast<std::ptrdiff_t>(n));
  g.in.assign(sizes.end() - static_cast<std::ptrdiff_t>(n), sizes.end());
  Checked c;
  for (size_t i = 0; i < n; ++i) {
    g.out.push_back(pool_output_size(c, g.in[i], g.kernel[i], g.pad[i], g.stride[i], g.dilation[i],
                                     g.ceil_mode));
  }
  if (c.overflow) ctx.fail(k.op + ": the output size overflows int64");
  validate::pool_output(ctx, sizes, g.out, k.op);
  return g;
}

// The maximum of a window and its flat spatial index, as PyTorch's CPU kernels pick it: the
// first maximum, except that a NaN always replaces the current pick. `start` is the first
// position (its index is reported when the window is empty).
template <class T>
void window_max(const std::vector<T>& v, int64_t base, const std::vector<int64_t>& start,
                const std::vector<int64_t>& end, const std::vector<int64_t>& step,
                const std::vector<int64_t>& sizes, T& best, int64_t& best_index) {
  best_index = math::flat_index(sizes, start);
  if constexpr (std::is_same_v<T, double>) {
    best = -std::numeric_limits<double>::infinity();
  } else {
    best = std::numeric_limits<int64_t>::min();
  }
  for_each_in_box(start, end, step, sizes, [&](int64_t f) {
    const T x = v[static_cast<size_t>(base + f)];
    bool take = x > best;
    if constexpr (std::is_same_v<T, double>) take = take || std::isnan(x);
    if (take) {
      best = x;
      best_index = f;
    }
  });
}

// Max values and indices over the windows of a pool or an adaptive pool: window(o) gives the
// (start, end, step) of output position o (its multi-index).
template <class Window>
RValue max_over_windows(const KernelContext& ctx, const Tensor& t,
                        const std::vector<int64_t>& leading, const std::vector<int64_t>& in,
                        const std::vector<int64_t>& out, bool with_indices, const Window& window,
                        const std::string& op) {
  const math::Category cat = math::category(t.dtype());
  if (cat == math::Category::Complex) ctx.bad_input(op + " does not support complex inputs");
  std::vector<int64_t> out_sizes = leading;
  out_sizes.insert(out_sizes.end(), out.begin(), out.end());
  Tensor values = Tensor::zeros(t.dtype(), out_sizes);
  Tensor indices = Tensor::zeros(DType::Int64, out_sizes);
  const int64_t planes = product(leading), in_size = product(in), out_size = product(out);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v;
    if constexpr (std::is_same_v<T, double>) {
      v = load<double>(t);
    } else {
      for (uint64_t x : load<uint64_t>(t)) v.push_back(static_cast<int64_t>(x));
    }
    std::vector<int64_t> oi, start, end, step;
    for (int64_t plane = 0; plane < planes; ++plane) {
      for (int64_t o = 0; o < out_size; ++o) {
        unflatten(o, out, oi);
        window(oi, start, end, step);
        T best{};
        int64_t index = 0;
        window_max<T>(v, plane * in_size, start, end, step, in, best, index);
        const int64_t f = plane * out_size + o;
        if constexpr (std::is_same_v<T, double>) {
          values.set_flat(f, Scalar::of_float(best));
        } else {
          values.set_flat(f, Scalar::of_int(best));
        }
        indices.set_flat(f, Scalar::of_int(index));
      }
    }
  };
  if (cat == math::Category::Float) {
    run(double{0});
  } else {
    run(int64_t{0});
  }
  if (!with_indices) return RValue::of(values);
  return RValue::list({RValue::of(values), RValue::of(indices)});
}

RValue max_pool(KernelContext& ctx, const PoolKind& k) {
  Tensor t = ctx.tensor("self");
  require_pool_input(ctx, t, k.n, k.op);
  PoolGeometry g = pool_geometry(ctx, t.sizes(), k);
  auto window = [&](const std::vector<int64_t>& oi, std::vector<int64_t>& start,
                    std::vector<int64_t>& end, std::vector<int64_t>& step) {
    start.resize(k.n);
    end.resize(k.n);
    step = g.dilation;
    for (size_t d = 0; d < k.n; ++d) {
      start[d] = oi[d] * g.stride[d] - g.pad[d];
      end[d] = std::min(start[d] + (g.kernel[d] - 1) * g.dilation[d] + 1, g.in[d]);
      // The first tap inside the input: start + k * dilation >= 0.
      if (start[d] < 0) start[d] += (-start[d] + g.dilation[d] - 1) / g.dilation[d] * g.dilation[d];
    }
  };
  return max_over_windows(ctx, t, g.leading, g.in, g.out, k.with_indices, window, k.op);
}

// One average-pool window: the positions it sums (start, end) and the divisor.
struct AvgWindow {
  std::vector<int64_t> start, end;
  int64_t divisor = 1;
  bool empty = false;
};

AvgWindow avg_window(const PoolGeometry& g, const std::vector<int64_t>& oi) {
  AvgWindow w;
  // Products wrap like PyTorch's int64 arithmetic (only absurd kernel sizes get there).
  uint64_t pool_size = 1, count = 1;
  for (size_t d = 0; d < g.in.size(); ++d) {
    int64_t s = oi[d] * g.stride[d] - g.pad[d];
    // min(s + kernel, in + pad), without overflowing s + kernel.
    int64_t e = g.in[d] + g.pad[d];
    if (g.kernel[d] < e - s) e = s + g.kernel[d];
    pool_size *= static_cast<uint64_t>(e - s);
    s = std::max<int64_t>(s, 0);
    e = std::min(e, g.in[d]);
    if (s >= e) w.empty = true;
    count *= static_cast<uint64_t>(std::max<int64_t>(e - s, 0));
    w.start.push_back(s);
    w.end.push_back(e);
  }
  w.divisor =
      g.divisor ? *g.divisor : static_cast<int64_t>(g.count_include_pad ? pool_size : count);
  if (w.divisor == 0) w.empty = true;  // a wrapped divisor: nothing sensible to divide by
  return w;
}

// Integer division as C++ (and PyTorch's integer kernels) do it, without INT64_MIN / -1 UB.
int64_t int_divide(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}

RValue avg_pool(KernelContext& ctx, const PoolKind& k) {
  Tensor t = ctx.tensor("self");
  require_pool_input(ctx, t, k.n, k.op);
  PoolGeometry g = pool_geometry(ctx, t.sizes(), k);
  const math::Category cat = math::category(t.dtype());
  if (cat == math::Category::Complex) ctx.fail(k.op + " does not support complex inputs");
  Tensor out = Tensor::zeros(t.dtype(), g.out_sizes());
  const int64_t planes = g.planes(), in_size = product(g.in), out_size = product(g.out);
  const std::vector<int64_t> ones(k.n, 1);
  dispatch(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, Complex>) {
      std::vector<T> v = load<T>(t);
      std::vector<int64_t> oi;
      for (int64_t plane = 0; plane < planes; ++plane) {
        for (int64_t o = 0; o < out_size; ++o) {
          unflatten(o, g.out, oi);
          AvgWindow w = avg_window(g, oi);
          if (w.empty) continue;  // stays 0
          T sum{};
          for_each_in_box(w.start, w.end, ones, g.in,
                          [&](int64_t f) { sum += v[static_cast<size_t>(plane * in_size + f)]; });
          Scalar result;
          if constexpr (std::is_same_v<T, double>) {
            result = Scalar::of_float(sum / static_cast<double>(w.divisor));
          } else {
            result = Scalar::of_int(int_divide(static_cast<int64_t>(sum), w.divisor));
          }
          out.set_flat(plane * out_size + o, result);
        }
      }
    }
    return 0;
  });
  return RValue::of(out);
}

// PyTorch's adaptive pool windows: [floor(o * in / out), ceil((o + 1) * in / out)).
int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t adaptive_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

// adaptive pools (self, output_size).
std::vector<int64_t> adaptive_output(const KernelContext& ctx, const Tensor& t, size_t n,
                                     const std::string& op) {
  std::vector<int64_t> size = ctx.int_list("output_size");
  validate::adaptive_output(ctx, t.sizes(), size, n, op);
  return size;
}

RValue adaptive_avg_pool(KernelContext& ctx, const std::string& op, size_t n) {
  Tensor t = ctx.tensor("self");
  std::vector<int64_t> out = adaptive_output(ctx, t, n, op);
  if (math::category(t.dtype()) == math::Category::Complex) {
    ctx.bad_input(op + " does not support complex inputs");
  }
  std::vector<int64_t> leading(t.sizes().begin(), t.sizes().end() - static_cast<std::ptrdiff_t>(n));
  std::vector<int64_t> in(t.sizes().end() - static_cast<std::ptrdiff_t>(n), t.sizes().end());
  std::vector<int64_t> out_sizes = leading;
  out_sizes.insert(out_sizes.end(), out.begin(), out.end());
  Tensor result = Tensor::zeros(t.dtype(), out_sizes);
  const int64_t planes = product(leading), in_size = product(in), out_size = product(out);
  const std::vector<int64_t> ones(n, 1);
  std::vector<double> v = load<double>(t);
  std::vector<int64_t> oi, start(n), end(n);
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t o = 0; o < out_size; ++o) {
      unflatten(o, out, oi);
      int64_t count = 1;
      for (size_t d = 0; d < n; ++d) {
        start[d] = adaptive_start(oi[d], out[d], in[d]);
        end[d] = adaptive_end(oi[d], out[d], in[d]);
        count *= end[d] - start[d];
      }
      double sum = 0;
      for_each_in_box(start, end, ones, in,
                      [&](int64_t f) { sum += v[static_cast<size_t>(plane * in_size + f)]; });
      result.set_flat(plane * out_size + o, Scalar::of_float(sum / static_cast<double>(count)));
    }
  }
  return RValue::of(result);
}

RValue adaptive_max_pool(KernelContext& ctx, const std::string& op, size_t n) {
  Tensor t = ctx.tensor("self");
  std::vector<int64_t> out = adaptive_output(ctx, t, n, op);
  std::vector<int64_t> leading(t.sizes().begin(), t.sizes().end() - static_cast<std::ptrdiff_t>(n));
  std::vector<int64_t> in(t.sizes().end() - static_cast<std::ptrdiff_t>(n), t.sizes().end());
  auto window = [&](const std::vector<int64_t>& oi, std::vector<int64_t>& start,
                    std::vector<int64_t>& end, std::vector<int64_t>& step) {
    start.resize(n);
    end.resize(n);
    step.assign(n, 1);
    for (size_t d = 0; d < n; ++d) {
      start[d] = adaptive_start(oi[d], out[d], in[d]);
      end[d] = adaptive_end(oi[d], out[d], in[d]);
    }
  };
  return max_over_windows(ctx, t, leading, in, out, true, window, op);
}

// ---- pooling backward -----------------------------------------------------------------------

// grad_output's leading dims must be self's, with n spatial dims after them.
void require_grad_like(const KernelContext& ctx, const Tensor& grad, const Tensor& self, size_t n,
                       const std::string& op) {
  if (self.rank() < n + 1 || grad.rank() != self.rank() ||
      !std::equal(self.sizes().begin(), self.sizes().end() - static_cast<std::ptrdiff_t>(n),
                  grad.sizes().begin())) {
    ctx.fail(op + ": grad_output " + sizes_str(grad.sizes()) + " does not match self " +
             sizes_str(self.sizes()));
  }
}

// The product of the last n sizes.
int64_t trailing_product(const std::vector<int64_t>& sizes, size_t n) {
  int64_t p = 1;
  for (size_t d = sizes.size() - n; d < sizes.size(); ++d) p *= sizes[d];
  return p;
}

// grad_input[plane, indices[plane, o]] += grad_output[plane, o].
RValue scatter_by_indices(const KernelContext& ctx, const Tensor& grad, const Tensor& self,
                          const Tensor& indices, size_t n, const std::string& op) {
  validate::pool_grad_by_indices(ctx, grad, self, indices, n, op);
  const int64_t in_size = trailing_product(self.sizes(), n);
  const int64_t out_size = trailing_product(grad.sizes(), n);
  const int64_t count = grad.numel();
  const DType compute = promote_types(grad.dtype(), self.dtype());
  return dispatch(compute, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> g = load<T>(grad);
    std::vector<T> out(static_cast<size_t>(self.numel()), T{});
    for (int64_t f = 0; f < count; ++f) {
      const int64_t index = indices.flat(f).as_int();
      if (index < 0 || index >= in_size) {
        ctx.fail(op + ": index " + std::to_string(index) +
                 " is out of range for an input plane of " + std::to_string(in_size) + " elements");
      }
      out[static_cast<size_t>((f / out_size) * in_size + index)] += g[static_cast<size_t>(f)];
    }
    return RValue::of(store<T>(self.dtype(), self.sizes(), out));
  });
}

// avg_poolNd_backward (grad_output, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override).
RValue avg_pool_backward(KernelContext& ctx, const PoolKind& k) {
  Tensor grad = ctx.tensor("grad_output");
  Tensor self = ctx.tensor("self");
  // The parameters sit one position later than in the forward op.
  require_pool_input(ctx, self, k.n, k.op);
  PoolGeometry g;
  {
    g.kernel = spatial_param(ctx, "kernel_size", k.n, {}, k.op);
    std::vector<int64_t> stride = ctx.int_list("stride", {});
    g.stride = stride.empty() ? g.kernel : spatial_param(ctx, "stride", k.n, {}, k.op);
    g.pad = spatial_param(ctx, "padding", k.n, {0}, k.op);
    g.ceil_mode = ctx.boolean("ceil_mode", false);
    g.count_include_pad = ctx.boolean("count_include_pad", true);
    if (ctx.declares("divisor_override")) g.divisor = ctx.optional_integer("divisor_override");
    if (g.divisor && *g.divisor == 0) ctx.bad_input(k.op + ": divisor must be not zero");
    g.dilation.assign(k.n, 1);
    validate::each_bound(ctx, g.kernel, true, k.op + ": kernel size should be greater than zero");
    validate::each_bound(ctx, g.stride, true, k.op + ": stride should be greater than zero");
    validate::each_bound(ctx, g.pad, false, k.op + ": pad must be non-negative");
    const std::vector<int64_t>& s = self.sizes();
    g.leading.assign(s.begin(), s.end() - static_cast<std::ptrdiff_t>(k.n));
    g.in.assign(s.end() - static_cast<std::ptrdiff_t>(k.n), s.end());
    Checked c;
    for (size_t i = 0; i < k.n; ++i) {
      g.out.push_back(
          pool_output_size(c, g.in[i], g.kernel[i], g.pad[i], g.stride[i], 1, g.ceil_mode));
    }
    if (c.overflow) ctx.fail(k.op + ": the output size overflows int64");
  }
  if (grad.sizes() != g.out_sizes()) {
    ctx.fail(k.op + ": expected grad_output of size " + sizes_str(g.out_sizes()) + ", got " +
             sizes_str(grad.sizes()));
  }
  if (math::category(self.dtype()) == math::Category::Complex) {
    ctx.fail(k.op + " does not support complex inputs");
  }
  const int64_t planes = g.planes(), in_size = product(g.in), out_size = product(g.out);
  const std::vector<int64_t> ones(k.n, 1);
  const bool integral = math::category(self.dtype()) == math::Category::Int;
  std::vector<double> gv = load<double>(grad);
  std::vector<uint64_t> gi = integral ? load<uint64_t>(grad) : std::vector<uint64_t>{};
  std::vector<double> out(static_cast<size_t>(self.numel()), 0.0);
  std::vector<uint64_t> out_int(integral ? out.size() : 0, 0);
  std::vector<int64_t> oi;
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t o = 0; o < out_size; ++o) {
      unflatten(o, g.out, oi);
      AvgWindow w = avg_window(g, oi);
      if (w.empty) continue;
      const size_t src = static_cast<size_t>(plane * out_size + o);
      for_each_in_box(w.start, w.end, ones, g.in, [&](int64_t f) {
        const size_t dst = static_cast<size_t>(plane * in_size + f);
        if (integral) {
          out_int[dst] +=
              static_cast<uint64_t>(int_divide(static_cast<int64_t>(gi[src]), w.divisor));
        } else {
          out[dst] += gv[src] / static_cast<double>(w.divisor);
        }
      });
    }
  }
  if (integral) return RValue::of(store<uint64_t>(self.dtype(), self.sizes(), out_int));
  return RValue::of(store<double>(self.dtype(), self.sizes(), out));
}

// _adaptive_avg_poolNd_backward (grad_output, self).
RValue adaptive_avg_pool_backward(KernelContext& ctx, const std::string& op, size_t n) {
  Tensor grad = ctx.tensor("grad_output");
  Tensor self = ctx.tensor("self");
  require_grad_like(ctx, grad, self, n, op);
  if (math::category(self.dtype()) == math::Category::Complex) {
    ctx.bad_input(op + " does not support complex inputs");
  }
  std::vector<int64_t> in(self.sizes().end() - static_cast<std::ptrdiff_t>(n), self.sizes().end());
  std::vector<int64_t> out(grad.sizes().end() - static_cast<std::ptrdiff_t>(n), grad.sizes().end());
  const int64_t planes = product(std::vector<int64_t>(
      self.sizes().begin(), self.sizes().end() - static_cast<std::ptrdiff_t>(n)));
  const int64_t in_size = product(in), out_size = product(out);
  const std::vector<int64_t> ones(n, 1);
  std::vector<double> gv = load<double>(grad);
  std::vector<double> result(static_cast<size_t>(self.numel()), 0.0);
  std::vector<int64_t> oi, start(n), end(n);
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t o = 0; o < out_size; ++o) {
      unflatten(o, out, oi);
      int64_t count = 1;
      for (size_t d = 0; d < n; ++d) {
        start[d] = adaptive_start(oi[d], out[d], in[d]);
        end[d] = adaptive_end(oi[d], out[d], in[d]);
        count *= end[d] - start[d];
      }
      const double share = gv[static_cast<size_t>(plane * out_size + o)] / double(count);
      for_each_in_box(start, end, ones, in, [&](int64_t f) {
        result[static_cast<size_t>(plane * in_size + f)] += share;
      });
    }
  }
  return RValue::of(store<double>(self.dtype(), self.sizes(), result));
}

}  // namespace

void register_conv_pool(KernelRegistry& r) {
  r.add("aten.convolution", convolution);
  r.add("aten._convolution", convolution);
  for (size_t n = 1; n <= 3; ++n) {
    const std::string d = std::to_string(n) + "d";
    r.add("aten.conv" + d, conv_nd(n));
    r.add("aten.conv_transpose" + d, conv_transpose_nd(n));

    PoolKind max{"max_pool" + d, n, true, false};
    r.add("aten.max_pool" + d, [max](KernelContext& ctx) { return max_pool(ctx, max); });
    PoolKind max_indices{"max_pool" + d + "_with_indices", n, true, true};
    r.add("aten." + max_indices.op,
          [max_indices](KernelContext& ctx) { return max_pool(ctx, max_indices); });
    PoolKind avg{"avg_pool" + d, n, false, false};
    r.add("aten.avg_pool" + d, [avg](KernelContext& ctx) { return avg_pool(ctx, avg); });

    const std::string avg_name = "adaptive_avg_pool" + d;
    r.add("aten." + avg_name,
          [avg_name, n](KernelContext& ctx) { return adaptive_avg_pool(ctx, avg_name, n); });
    const std::string max_name = "adaptive_max_pool" + d;
    r.add("aten." + max_name,
          [max_name, n](KernelContext& ctx) { return adaptive_max_pool(ctx, max_name, n); });
    if (n == 1) continue;  // ATen's 1-d pools are composite: no _adaptive_avg_pool1d, no backward
    r.add("aten._" + avg_name,
          [avg_name, n](KernelContext& ctx) { return adaptive_avg_pool(ctx, avg_name, n); });

    // max_pool_with_indices_backward (grad_output, self, kernel_size, stride, padding, dilation,
    // ceil_mode, indices).
    const std::string max_back = "max_pool" + d + "_with_indices_backward";
    r.add("aten." + max_back, [max_back, n](KernelContext& ctx) {
      return scatter_by_indices(ctx, ctx.tensor("grad_output"), ctx.tensor("self"),
                                ctx.tensor("indices"), n, max_back);
    });
    PoolKind avg_back{"avg_pool" + d + "_backward", n, false, false};
    r.add("aten." + avg_back.op,
          [avg_back](KernelContext& ctx) { return avg_pool_backward(ctx, avg_back); });
    const std::string adaptive_avg_back = "_adaptive_avg_pool" + d + "_backward";
    r.add("aten." + adaptive_avg_back, [adaptive_avg_back, n](KernelContext& ctx) {
      return adaptive_avg_pool_backward(ctx, adaptive_avg_back, n);
    });
    // adaptive_max_pool_backward (grad_output, self, indices).
    const std::string adaptive_max_back = "adaptive_max_pool" + d + "_backward";
    r.add("aten." + adaptive_max_back, [adaptive_max_back, n](KernelContext& ctx) {
      return scatter_by_indices(ctx, ctx.tensor("grad_output"), ctx.tensor("self"),
                                ctx.tensor("indices"), n, adaptive_max_back);
    });
  }
  r.add("aten.convolution_backward", convolution_backward);
}

}  // namespace symshape::interp::kernels
