// Convolution (plain, transposed, grouped; batched or not) and pooling (max, average, adaptive),
// with PyTorch's output-size formulas built symbolically and its argument checks.
#include "symshape/ops/families.h"
#include "symshape/ops/validate/conv_pool.h"

namespace symshape::ops {

namespace {

std::vector<Expr> simplified(const OpContext& ctx, std::vector<Expr> v) {
  for (Expr& e : v) e = ctx.simplify(e);
  return v;
}

// A per-spatial-dim parameter: one int for every dim, or one per dim.
std::vector<Expr> spatial_param(const OpContext& ctx, std::string_view name, size_t n,
                                const std::vector<Expr>& fallback, const std::string& op) {
  std::vector<Expr> v = ctx.int_list(name, fallback);
  validate::spatial_param(ctx, v, name, n, op);
  return v;
}

// ---- convolution ----------------------------------------------------------------------------

using ConvParams = validate::ConvArgs<Expr>;
using validate::ConvOp;

// The output of a convolution of input [N, C, *spatial] (or [C, *spatial] when unbatched) with
// weight [out, C/groups, *kernel] (transposed: [C, out/groups, *kernel]).
Value conv_forward(const OpContext& ctx, TensorMeta input, const TensorMeta& weight,
                   const std::optional<TensorMeta>& bias, const ConvParams& p) {
  const size_t n = p.n;
  const bool unbatched = validate::conv_input(ctx, input, weight, bias, n, p.allow_unbatched, p.op);
  const std::vector<Expr> original = input.sizes;
  if (unbatched) input.sizes.insert(input.sizes.begin(), Expr(1));
  validate::conv_params(ctx, p.stride, p.padding, p.dilation, p.groups, p.transposed,
                        p.output_padding, p.op);
  const std::vector<Expr>& w = weight.sizes;
  validate::conv_channels(ctx, input.sizes, original, w, p.groups, p.transposed, p.op);
  const Expr out_channels = p.transposed ? ctx.simplify(w[1] * p.groups) : w[0];
  if (bias) validate::conv_bias(ctx, bias->sizes, w, out_channels, p.op);

  std::vector<Expr> spatial(input.sizes.begin() + 2, input.sizes.end());
  std::vector<Expr> out_spatial;
  if (p.padding_mode == "same") {
    out_spatial = spatial;  // stride 1, padded to keep every size
  } else if (!p.transposed) {
    // Every dim's padded input must hold the dilated kernel.
    std::vector<Expr> padded, kernel;
    for (size_t i = 0; i < n; ++i) {
      padded.push_back(ctx.simplify(spatial[i] + 2 * p.padding[i]));
      kernel.push_back(ctx.simplify(p.dilation[i] * (w[i + 2] - 1) + 1));
    }
    validate::conv_kernel_fits(ctx, padded, kernel, p.op);
    for (size_t i = 0; i < n; ++i) {
      out_spatial.push_back(floordiv(padded[i] - kernel[i], p.stride[i]) + 1);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      out_spatial.push_back((spatial[i] - 1) * p.stride[i] - 2 * p.padding[i] +
                            p.dilation[i] * (w[i + 2] - 1) + p.output_padding[i] + 1);
    }
    out_spatial = simplified(ctx, out_spatial);
    validate::conv_output_fits(ctx, simplified(ctx, spatial), out_spatial, p.op);
  }

  std::vector<Expr> out = {input.sizes[0], out_channels};
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());
  out = simplified(ctx, out);
  if (unbatched) out.erase(out.begin());
  TensorMeta result = contiguous(input.dtype, out);
  // PyTorch's meta function (on a CPU fake tensor): channels_last when the input's strides are
  // like channels_last (rank 4), else contiguous.
  if (!unbatched && out.size() == 4) result.strides = suggested_format_strides(ctx, input, out);
  return Value::of(result);
}

// convolution / _convolution (input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...): always batched.
Value convolution(OpContext& ctx) {
  TensorMeta input = ctx.tensor("input");
  TensorMeta weight = ctx.tensor("weight");
  const ConvParams p = validate::conv_args(ctx, weight.sizes, ConvOp::Convolution, 0);
  return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
}

// conv1d/2d/3d (input, weight, bias, stride, padding, dilation, groups): unbatched input allowed.
ShapeRule conv_nd(size_t n) {
  return [n](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    TensorMeta weight = ctx.tensor("weight");
    const ConvParams p = validate::conv_args(ctx, weight.sizes, ConvOp::Conv, n);
    return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
  };
}

// conv_transpose1d/2d/3d (input, weight, bias, stride, padding, output_padding, groups,
// dilation): unbatched input allowed.
ShapeRule conv_transpose_nd(size_t n) {
  return [n](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    TensorMeta weight = ctx.tensor("weight");
    const ConvParams p = validate::conv_args(ctx, weight.sizes, ConvOp::ConvTranspose, n);
    return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
  };
}

// convolution_backward (grad_output, input, weight, bias_sizes, ..., output_mask): the grads of
// input, weight and bias, each None when output_mask says so.
Value convolution_backward(OpContext& ctx) {
  TensorMeta grad = ctx.tensor("grad_output");
  TensorMeta input = ctx.tensor("input");
  TensorMeta weight = ctx.tensor("weight");
  std::vector<bool> mask = output_mask(ctx, 3);
  std::vector<Value> out(3, Value::none());
  if (mask[0]) out[0] = Value::of(contiguous(input.dtype, input.sizes));
  if (mask[1]) out[1] = Value::of(contiguous(weight.dtype, weight.sizes));
  if (mask[2]) {
    std::vector<Expr> bias = ctx.int_list("bias_sizes", {grad.rank() > 1 ? grad.sizes[1] : 1});
    out[2] = Value::of(contiguous(grad.dtype, bias));
  }
  return Value::list(std::move(out));
}

// ---- pooling --------------------------------------------------------------------------------

// PyTorch's pooling_output_shape: floor (or ceil) of the window count, where under ceil_mode
// the last window must start inside the input or the left padding.
Expr pool_output_size(const OpContext& ctx, const Expr& in, const Expr& kernel, const Expr& pad,
                      const Expr& stride, const Expr& dilation, bool ceil_mode) {
  Expr span = in + 2 * pad - dilation * (kernel - 1) - 1;
  if (!ceil_mode) return ctx.simplify(floordiv(span, stride) + 1);
  Expr out = ctx.simplify(ceildiv(span, stride) + 1);
  if (ctx.decide((out - 1) * stride >= in + pad, "pool_ceil_mode")) out = ctx.simplify(out - 1);
  return out;
}

struct PoolKind {
  std::string op;
  size_t n = 0;
  bool max = true;            // max pooling (with dilation); else average pooling
  bool with_indices = false;  // (values, int64 indices)
};

// max_pool (self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode) and avg_pool
// (self, kernel_size, stride=[], padding=0, ceil_mode, count_include_pad, divisor_override).
Value pool(OpContext& ctx, const PoolKind& k) {
  TensorMeta t = ctx.tensor("self");
  const size_t n = k.n;
  validate::pool_input(ctx, t.sizes, n, k.op);
  if (!ctx.has("kernel_size")) ctx.bad_input(k.op + ": missing argument 'kernel_size'");
  std::vector<Expr> kernel = spatial_param(ctx, "kernel_size", n, {}, k.op);
  std::vector<Expr> stride = ctx.int_list("stride", {});
  stride = stride.empty() ? kernel : spatial_param(ctx, "stride", n, {}, k.op);
  std::vector<Expr> padding = spatial_param(ctx, "padding", n, {0}, k.op);
  std::vector<Expr> dilation(n, Expr(1));
  if (k.max) dilation = spatial_param(ctx, "dilation", n, {1}, k.op);
  const bool ceil_mode = ctx.boolean("ceil_mode", false);
  std::optional<Expr> divisor;
  if (!k.max && ctx.declares("divisor_override"))
    divisor = ctx.optional_integer("divisor_override");
  validate::pool_params(ctx, kernel, stride, padding, dilation, divisor, k.op);

  const size_t first = t.rank() - n;
  std::vector<Expr> out(t.sizes.begin(), t.sizes.begin() + first);
  std::vector<Expr> out_spatial;
  for (size_t i = 0; i < n; ++i) {
    out_spatial.push_back(pool_output_size(ctx, t.sizes[first + i], kernel[i], padding[i],
                                           stride[i], dilation[i], ceil_mode));
  }
  validate::pool_output(ctx, t.sizes, out_spatial, k.op);
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());

  Value values = Value::of(contiguous(t.dtype, out));
  if (!k.with_indices) return values;
  return Value::list({values, Value::of(contiguous(DType::Int64, out))});
}

// adaptive pools (self, output_size): the trailing n sizes become output_size.
Value adaptive_pool(OpContext& ctx, const std::string& op, size_t n, bool with_indices) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> size = ctx.int_list("output_size");
  validate::adaptive_output(ctx, t.sizes, size, n, op);
  std::vector<Expr> out(t.sizes.begin(), t.sizes.end() - n);
  for (const Expr& s : size) out.push_back(ctx.simplify(s));
  Value values = Value::of(contiguous(t.dtype, out));
  if (!with_indices) return values;
  return Value::list({values, Value::of(contiguous(DType::Int64, out))});
}

// Backward ops whose result has the shape of one of their inputs.
ShapeRule like(std::string name) {
  return [name](OpContext& ctx) {
    TensorMeta t = ctx.tensor(name);
    return Value::of(contiguous(t.dtype, t.sizes));
  };
}

// max_pool*_with_indices_backward / adaptive_max_pool*_backward (grad_output, self, ...,
// indices): self's shape; the indices are integers shaped like grad_output, which has self's
// leading (batch and channel) sizes.
ShapeRule grad_by_indices(std::string op, size_t n) {
  return [op, n](OpContext& ctx) {
    TensorMeta grad = ctx.tensor("grad_output"), self = ctx.tensor("self");
    TensorMeta indices = ctx.tensor("indices");
    validate::pool_grad_by_indices(ctx, grad, self, indices, n, op);
    return Value::of(contiguous(self.dtype, self.sizes));
  };
}

}  // namespace

void register_conv_pool(OpRegistry& r) {
  r.add("aten.convolution", convolution);
  r.add("aten._convolution", convolution);
  for (size_t n = 1; n <= 3; ++n) {
    const std::string d = std::to_string(n) + "d";
    r.add("aten.conv" + d, conv_nd(n));
    r.add("aten.conv_transpose" + d, conv_transpose_nd(n));

    PoolKind max{"max_pool" + d, n, true, false};
    r.add("aten.max_pool" + d, [max](OpContext& ctx) { return pool(ctx, max); });
    PoolKind max_indices{"max_pool" + d + "_with_indices", n, true, true};
    r.add("aten." + max_indices.op,
          [max_indices](OpContext& ctx) { return pool(ctx, max_indices); });
    PoolKind avg{"avg_pool" + d, n, false, false};
    r.add("aten.avg_pool" + d, [avg](OpContext& ctx) { return pool(ctx, avg); });

    const std::string avg_name = "adaptive_avg_pool" + d;
    r.add("aten." + avg_name,
          [avg_name, n](OpContext& ctx) { return adaptive_pool(ctx, avg_name, n, false); });
    const std::string max_name = "adaptive_max_pool" + d;
    r.add("aten." + max_name,
          [max_name, n](OpContext& ctx) { return adaptive_pool(ctx, max_name, n, true); });
    if (n == 1) continue;  // ATen's 1-d pools are composite: no _adaptive_avg_pool1d, no backward
    r.add("aten._" + avg_name,
          [avg_name, n](OpContext& ctx) { return adaptive_pool(ctx, avg_name, n, false); });
    const std::string max_back = "max_pool" + d + "_with_indices_backward";
    r.add("aten." + max_back, grad_by_indices(max_back, n));
    r.add("aten.avg_pool" + d + "_backward", like("self"));
    r.add("aten._adaptive_avg_pool" + d + "_backward", like("self"));
    const std::string adaptive_max_back = "adaptive_max_pool" + d + "_backward";
    r.add("aten." + adaptive_max_back, grad_by_indices(adaptive_max_back, n));
  }
  r.add("aten.convolution_backward", convolution_backward);
}

}  // namespace symshape::ops
