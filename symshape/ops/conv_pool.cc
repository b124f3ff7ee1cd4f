// Convolution (plain, transposed, grouped; batched or not) and pooling (max, average, adaptive),
// with PyTorch's output-size formulas built symbolically and its argument checks.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

std::string join(const std::vector<Expr>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i].str();
  return s;
}

std::vector<Expr> simplified(const OpContext& ctx, std::vector<Expr> v) {
  for (Expr& e : v) e = ctx.simplify(e);
  return v;
}

// A per-spatial-dim parameter: one int for every dim, or one per dim.
std::vector<Expr> spatial_param(const OpContext& ctx, std::string_view name, size_t n,
                                const std::vector<Expr>& fallback, const std::string& op) {
  std::vector<Expr> v = ctx.int_list(name, fallback);
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n) {
    ctx.bad_input(op + ": " + std::string(name) + " must be a single int or " + std::to_string(n) +
                  " ints, got " + shape_str(v));
  }
  return v;
}

// A bound on a parameter (stride > 0, padding >= 0): a literal that breaks it is bad input, a
// symbolic one is required (a guard).
void check_param(const OpContext& ctx, const Cond& cond, const std::string& message) {
  if (ctx.known(cond) == Truth::False) ctx.bad_input(message);
  require(ctx, cond, "conv_pool_params", message);
}

void check_each(const OpContext& ctx, const std::vector<Expr>& values, bool strictly_positive,
                const std::string& message) {
  for (const Expr& v : values) check_param(ctx, strictly_positive ? v > 0 : v >= 0, message);
}

// The spatial rank of an input of `n` spatial dims: batched [N, C, *] or unbatched [C, *].
void require_pool_input(const OpContext& ctx, const TensorMeta& t, size_t n,
                        const std::string& op) {
  if (t.rank() != n + 1 && t.rank() != n + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(n + 1) + "-D (unbatched) or " +
                  std::to_string(n + 2) + "-D (batched) input, got " + shape_str(t.sizes));
  }
  // Only the batch dim may be empty.
  for (size_t d = t.rank() - n - 1; d < t.rank(); ++d) {
    require(ctx, t.sizes[d] != 0, "pool_nonempty", [&] {
      return op + ": expected an input with non-zero sizes except the batch dim, got " +
             shape_str(t.sizes);
    });
  }
}

// ---- convolution ----------------------------------------------------------------------------

struct ConvParams {
  std::string op;  // for messages
  size_t n = 0;    // spatial dims
  bool allow_unbatched = false;
  bool transposed = false;
  std::string padding_mode;  // "" (explicit), "same" or "valid"
  std::vector<Expr> stride, padding, dilation, output_padding;
  Expr groups = 1;
};

// The output of a convolution of input [N, C, *spatial] (or [C, *spatial] when unbatched) with
// weight [out, C/groups, *kernel] (transposed: [C, out/groups, *kernel]).
Value conv_forward(const OpContext& ctx, TensorMeta input, const TensorMeta& weight,
                   const std::optional<TensorMeta>& bias, const ConvParams& p) {
  const size_t n = p.n;
  const bool unbatched = p.allow_unbatched && input.rank() == n + 1;
  if (input.rank() != n + 2 && !unbatched) {
    ctx.bad_input(p.op + ": expected " +
                  (p.allow_unbatched ? std::to_string(n + 1) + "-D (unbatched) or " : "") +
                  std::to_string(n + 2) + "-D (batched) input for weight " +
                  shape_str(weight.sizes) + ", got input of size " + shape_str(input.sizes));
  }
  const std::vector<Expr> original = input.sizes;
  if (unbatched) input.sizes.insert(input.sizes.begin(), Expr(1));
  if (input.dtype != weight.dtype || (bias && bias->dtype != input.dtype)) {
    ctx.bad_input(p.op + ": input type (" + std::string(to_string(input.dtype)) +
                  ") and weight type (" + std::string(to_string(weight.dtype)) + ")" +
                  (bias ? " and bias type (" + std::string(to_string(bias->dtype)) + ")" : "") +
                  " should be the same");
  }

  check_each(ctx, p.stride, true,
             p.op + ": non-positive stride is not supported, got " + shape_str(p.stride));
  check_each(ctx, p.padding, false,
             p.op + ": negative padding is not supported, got " + shape_str(p.padding));
  check_each(ctx, p.dilation, true,
             p.op + ": dilation should be greater than zero, got " + shape_str(p.dilation));
  check_param(ctx, p.groups > 0,
              p.op + ": non-positive groups is not supported, got " + p.groups.str());
  if (p.transposed) {
    check_each(
        ctx, p.output_padding, false,
        p.op + ": negative output_padding is not supported, got " + shape_str(p.output_padding));
    for (size_t i = 0; i < n; ++i) {
      check_param(ctx, p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i],
                  p.op + ": output padding must be smaller than either stride or dilation, got " +
                      "output_padding " + shape_str(p.output_padding) + ", stride " +
                      shape_str(p.stride) + " and dilation " + shape_str(p.dilation));
    }
  }

  const std::vector<Expr>& w = weight.sizes;
  const std::string groups = ctx.simplify(p.groups).str();
  require(ctx, mod(w[0], p.groups) == 0, "conv_groups", [&] {
    return p.op + ": given groups=" + groups + ", expected weight to be divisible by " + groups +
           " at dimension 0, but got weight of size " + shape_str(w) + " instead";
  });
  Expr out_channels;
  if (!p.transposed) {
    ctx.require_equal(input.sizes[1], w[1] * p.groups, "conv_channels", [&] {
      return p.op + ": given groups=" + groups + ", weight of size " + shape_str(w) +
             ", expected input " + shape_str(original) + " to have " +
             ctx.simplify(w[1] * p.groups).str() + " channels, but got " +
             ctx.simplify(input.sizes[1]).str() + " channels instead";
    });
    out_channels = w[0];
  } else {
    ctx.require_equal(input.sizes[1], w[0], "conv_channels", [&] {
      return p.op + ": given transposed=1, weight of size " + shape_str(w) + ", expected input " +
             shape_str(original) + " to have " + ctx.simplify(w[0]).str() + " channels, but got " +
             ctx.simplify(input.sizes[1]).str() + " channels instead";
    });
    out_channels = ctx.simplify(w[1] * p.groups);
  }
  if (bias) {
    const std::string message =
        p.op + ": given weight of size " + shape_str(w) +
        ", expected bias to be 1-dimensional with " + ctx.simplify(out_channels).str() +
        " elements, but got bias of size " + shape_str(bias->sizes) + " instead";
    if (bias->rank() != 1) ctx.fail(message);
    ctx.require_equal(bias->sizes[0], out_channels, "conv_bias", message);
  }

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
    const std::string message = p.op + ": calculated padded input size per channel: (" +
                                join(padded, " x ") + "). Kernel size: (" + join(kernel, " x ") +
                                "). Kernel size can't be greater than actual input size";
    for (size_t i = 0; i < n; ++i) {
      require(ctx, padded[i] >= kernel[i], "conv_kernel_size", message);
      out_spatial.push_back(floordiv(padded[i] - kernel[i], p.stride[i]) + 1);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      out_spatial.push_back((spatial[i] - 1) * p.stride[i] - 2 * p.padding[i] +
                            p.dilation[i] * (w[i + 2] - 1) + p.output_padding[i] + 1);
    }
    out_spatial = simplified(ctx, out_spatial);
    const std::string message = p.op + ": given input size per channel: (" +
                                join(simplified(ctx, spatial), " x ") +
                                "). Calculated output size per channel: (" +
                                join(out_spatial, " x ") + "). Output size is too small";
    for (const Expr& o : out_spatial) require(ctx, o >= 1, "conv_output_size", message);
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

// Explicit padding ints, or the strings "same" / "valid" (conv1d/2d/3d.padding).
void read_padding(const OpContext& ctx, ConvParams& p) {
  const Arg* a = ctx.arg("padding");
  if (a && a->kind == Arg::Kind::String) {
    if (a->text != "same" && a->text != "valid") {
      ctx.bad_input(p.op + ": invalid padding string '" + a->text +
                    "', expected 'same' or 'valid'");
    }
    p.padding_mode = a->text;
    p.padding.assign(p.n, Expr(0));
    return;
  }
  p.padding = spatial_param(ctx, "padding", p.n, {0}, p.op);
}

// The spatial rank a weight gives; `fixed` (when not 0) is the rank the op requires.
size_t spatial_rank(const OpContext& ctx, const TensorMeta& weight, size_t fixed,
                    const std::string& op) {
  if (fixed != 0 && weight.rank() != fixed + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(fixed + 2) + "-D weight, got " +
                  shape_str(weight.sizes));
  }
  if (weight.rank() < 3) {
    ctx.bad_input(op + ": weight should have at least three dimensions, got " +
                  shape_str(weight.sizes));
  }
  return weight.rank() - 2;
}

// convolution / _convolution (input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...): always batched.
Value convolution(OpContext& ctx) {
  TensorMeta input = ctx.tensor("input");
  TensorMeta weight = ctx.tensor("weight");
  ConvParams p;
  p.op = "convolution";
  p.n = spatial_rank(ctx, weight, 0, p.op);
  p.stride = spatial_param(ctx, "stride", p.n, {1}, p.op);
  p.padding = spatial_param(ctx, "padding", p.n, {0}, p.op);
  p.dilation = spatial_param(ctx, "dilation", p.n, {1}, p.op);
  p.transposed = ctx.boolean("transposed", false);
  p.output_padding = spatial_param(ctx, "output_padding", p.n, {0}, p.op);
  p.groups = ctx.integer("groups", Expr(1));
  return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
}

// conv1d/2d/3d (input, weight, bias, stride, padding, dilation, groups): unbatched input allowed.
ShapeRule conv_nd(size_t n) {
  return [n](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    TensorMeta weight = ctx.tensor("weight");
    ConvParams p;
    p.op = "conv" + std::to_string(n) + "d";
    p.n = spatial_rank(ctx, weight, n, p.op);
    p.allow_unbatched = true;
    p.stride = spatial_param(ctx, "stride", n, {1}, p.op);
    read_padding(ctx, p);
    p.dilation = spatial_param(ctx, "dilation", n, {1}, p.op);
    p.groups = ctx.integer("groups", Expr(1));
    if (p.padding_mode == "same") {
      for (const Expr& s : p.stride) {
        if (ctx.known(s == 1) != Truth::True) {
          ctx.bad_input(p.op + ": padding='same' is not supported for strided convolutions");
        }
      }
    }
    return conv_forward(ctx, input, weight, ctx.optional_tensor("bias"), p);
  };
}

// conv_transpose1d/2d/3d (input, weight, bias, stride, padding, output_padding, groups,
// dilation): unbatched input allowed.
ShapeRule conv_transpose_nd(size_t n) {
  return [n](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    TensorMeta weight = ctx.tensor("weight");
    ConvParams p;
    p.op = "conv_transpose" + std::to_string(n) + "d";
    p.n = spatial_rank(ctx, weight, n, p.op);
    p.allow_unbatched = true;
    p.transposed = true;
    p.stride = spatial_param(ctx, "stride", n, {1}, p.op);
    p.padding = spatial_param(ctx, "padding", n, {0}, p.op);
    p.output_padding = spatial_param(ctx, "output_padding", n, {0}, p.op);
    p.groups = ctx.integer("groups", Expr(1));
    p.dilation = spatial_param(ctx, "dilation", n, {1}, p.op);
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
  require_pool_input(ctx, t, n, k.op);
  if (!ctx.has("kernel_size")) ctx.bad_input(k.op + ": missing argument 'kernel_size'");
  std::vector<Expr> kernel = spatial_param(ctx, "kernel_size", n, {}, k.op);
  std::vector<Expr> stride = ctx.int_list("stride", {});
  stride = stride.empty() ? kernel : spatial_param(ctx, "stride", n, {}, k.op);
  std::vector<Expr> padding = spatial_param(ctx, "padding", n, {0}, k.op);
  std::vector<Expr> dilation(n, Expr(1));
  if (k.max) dilation = spatial_param(ctx, "dilation", n, {1}, k.op);
  const bool ceil_mode = ctx.boolean("ceil_mode", false);
  if (!k.max) {
    if (auto divisor = ctx.declares("divisor_override")  // not avg_pool1d
                           ? ctx.optional_integer("divisor_override")
                           : std::nullopt) {
      check_param(ctx, *divisor != 0, k.op + ": divisor must be not zero");
    }
  }

  check_each(ctx, kernel, true,
             k.op + ": kernel size should be greater than zero, got " + shape_str(kernel));
  check_each(ctx, stride, true,
             k.op + ": stride should be greater than zero, got " + shape_str(stride));
  check_each(ctx, dilation, true,
             k.op + ": dilation should be greater than zero, got " + shape_str(dilation));
  check_each(ctx, padding, false, k.op + ": pad must be non-negative, got " + shape_str(padding));
  for (size_t i = 0; i < n; ++i) {
    check_param(ctx, 2 * padding[i] <= kernel[i],
                k.op + ": pad should be at most half of kernel size, got pad " +
                    shape_str(padding) + " and kernel size " + shape_str(kernel));
  }

  const size_t first = t.rank() - n;
  std::vector<Expr> out(t.sizes.begin(), t.sizes.begin() + first);
  std::vector<Expr> out_spatial;
  for (size_t i = 0; i < n; ++i) {
    out_spatial.push_back(pool_output_size(ctx, t.sizes[first + i], kernel[i], padding[i],
                                           stride[i], dilation[i], ceil_mode));
  }
  const Expr& channels = t.sizes[first - 1];
  std::vector<Expr> in_spatial(t.sizes.begin() + first, t.sizes.end());
  const std::string message = k.op + ": given input size: (" + channels.str() + "x" +
                              join(in_spatial, "x") + "). Calculated output size: (" +
                              channels.str() + "x" + join(out_spatial, "x") +
                              "). Output size is too small";
  for (const Expr& o : out_spatial) require(ctx, o >= 1, "pool_output_size", message);
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());

  Value values = Value::of(contiguous(t.dtype, out));
  if (!k.with_indices) return values;
  return Value::list({values, Value::of(contiguous(DType::Int64, out))});
}

// adaptive pools (self, output_size): the trailing n sizes become output_size.
Value adaptive_pool(OpContext& ctx, const std::string& op, size_t n, bool with_indices) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> size = ctx.int_list("output_size");
  if (size.size() != n) {
    ctx.bad_input(op + ": output_size must have " + std::to_string(n) + " elements, got " +
                  shape_str(size));
  }
  require_pool_input(ctx, t, n, op);
  check_each(
      ctx, size, false,
      op + ": elements of output_size must be greater than or equal to 0, got " + shape_str(size));
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
    const std::string mismatch = op + ": grad_output " + shape_str(grad.sizes) +
                                 " does not match self " + shape_str(self.sizes);
    if (self.rank() < n + 1 || grad.rank() != self.rank()) ctx.fail(mismatch);
    for (size_t d = 0; d + n < self.rank(); ++d)
      ctx.require_equal(grad.sizes[d], self.sizes[d], "pool_backward", mismatch);
    const std::string bad = op + ": expected integer indices of grad_output's size " +
                            shape_str(grad.sizes) + ", got " +
                            std::string(to_string(indices.dtype)) + shape_str(indices.sizes);
    if (!is_integral(indices.dtype) || indices.rank() != grad.rank()) ctx.fail(bad);
    for (size_t d = 0; d < grad.rank(); ++d)
      ctx.require_equal(indices.sizes[d], grad.sizes[d], "pool_indices", bad);
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
