// Internal: the argument validation of convolution and pooling, shared by their shape rules
// (symshape/ops/conv_pool.cc) and their kernels (symshape/interp/conv_pool.cc). See checks.h.
#pragma once

#include <optional>
#include <type_traits>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// A per-spatial-dim parameter: one int for every dim (made n), or one per dim.
template <class Ctx, class Size>
void spatial_param(const Ctx& ctx, std::vector<Size>& v, std::string_view name, size_t n,
                   const std::string& op) {
  if (v.size() == 1) v.assign(n, Size(v[0]));
  if (v.size() != n) {
    ctx.bad_input(op + ": " + std::string(name) + " must be a single int or " + std::to_string(n) +
                  " ints, got " + text(v));
  }
}

// A bound on a parameter (stride > 0, padding >= 0): one that breaks it is bad input; the rule
// requires a symbolic one (a guard).
template <class Ctx, class Holds>
void param_bound(const Ctx& ctx, const Holds& holds, const std::string& message) {
  refuse_unless(ctx, holds, message);
  require(ctx, holds, "conv_pool_params", message);
}

// Every value positive (or, not strictly, non-negative).
template <class Ctx, class Size>
void each_bound(const Ctx& ctx, const std::vector<Size>& values, bool strictly_positive,
                const std::string& message) {
  for (const Size& v : values) {
    if (strictly_positive) {
      param_bound(ctx, v > 0, message);
    } else {
      param_bound(ctx, v >= 0, message);
    }
  }
}

// ---- convolution ----

// A convolution's weight: a fixed spatial rank (when `fixed` is not 0), at least 3 dims. Returns
// the spatial rank.
template <class Ctx, class Size>
size_t conv_weight(const Ctx& ctx, const std::vector<Size>& weight, size_t fixed,
                   const std::string& op) {
  if (fixed != 0 && weight.size() != fixed + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(fixed + 2) + "-D weight, got " +
                  text(weight));
  }
  if (weight.size() < 3) {
    ctx.bad_input(op + ": weight should have at least three dimensions, got " + text(weight));
  }
  return weight.size() - 2;
}

// A convolution's input: batched (n + 2 dims) or, when allowed, unbatched (n + 1); input, weight
// and bias of one dtype. Returns whether it is unbatched.
template <class Ctx, class T>
bool conv_input(const Ctx& ctx, const T& input, const T& weight, const std::optional<T>& bias,
                size_t n, bool allow_unbatched, const std::string& op) {
  const size_t rank = sizes_of(input).size();
  const bool unbatched = allow_unbatched && rank == n + 1;
  if (rank != n + 2 && !unbatched) {
    ctx.bad_input(op + ": expected " +
                  (allow_unbatched ? std::to_string(n + 1) + "-D (unbatched) or " : "") +
                  std::to_string(n + 2) + "-D (batched) input for weight " +
                  text(sizes_of(weight)) + ", got input of size " + text(sizes_of(input)));
  }
  if (dtype_of(input) != dtype_of(weight) || (bias && dtype_of(*bias) != dtype_of(input))) {
    ctx.bad_input(op + ": input type (" + text(dtype_of(input)) + ") and weight type (" +
                  text(dtype_of(weight)) + ")" +
                  (bias ? " and bias type (" + text(dtype_of(*bias)) + ")" : "") +
                  " should be the same");
  }
  return unbatched;
}

// conv1d/2d/3d's padding string: "same" or "valid"; "same" needs stride 1.
template <class Ctx, class Size>
void conv_padding_mode(const Ctx& ctx, const std::string& mode, const std::vector<Size>& stride,
                       const std::string& op) {
  if (mode != "same" && mode != "valid") {
    ctx.bad_input(op + ": invalid padding string '" + mode + "', expected 'same' or 'valid'");
  }
  if (mode != "same") return;
  for (const Size& s : stride) {
    if (!known_true(ctx, s == 1)) {
      ctx.bad_input(op + ": padding='same' is not supported for strided convolutions");
    }
  }
}

// A convolution's parameters, read and checked (per spatial dim; groups > 0 and the rest by
// conv_params when the convolution is checked).
template <class Size>
struct ConvArgs {
  std::string op;  // for messages
  size_t n = 0;    // spatial dims
  bool allow_unbatched = false;
  bool transposed = false;
  std::string padding_mode;  // "" (explicit), "same" or "valid"
  std::vector<Size> stride, padding, dilation, output_padding;
  Size groups = Size(1);
};

// Which convolution op reads its parameters: convolution / _convolution (always batched, with
// transposed and output_padding), convN_d (padding may be "same" / "valid", unbatched allowed),
// conv_transposeN_d (output_padding, dilation last, unbatched allowed).
enum class ConvOp { Convolution, Conv, ConvTranspose };

// Reads a convolution's parameters for a weight of `weight` sizes (n: the op's fixed spatial
// rank, 0 for convolution).
template <class Ctx, class Size>
ConvArgs<Size> conv_args(const Ctx& ctx, const std::vector<Size>& weight, ConvOp kind, size_t n) {
  ConvArgs<Size> p;
  p.op = kind == ConvOp::Convolution ? "convolution"
         : kind == ConvOp::Conv      ? "conv" + std::to_string(n) + "d"
                                     : "conv_transpose" + std::to_string(n) + "d";
  p.n = conv_weight(ctx, weight, n, p.op);
  p.allow_unbatched = kind != ConvOp::Convolution;
  auto spatial = [&](std::string_view name, int64_t fallback) {
    auto v = ctx.int_list(name, {Size(fallback)});
    spatial_param(ctx, v, name, p.n, p.op);
    return v;
  };
  p.stride = spatial("stride", 1);
  const Arg* pad = kind == ConvOp::Conv ? ctx.arg("padding") : nullptr;
  if (pad && pad->kind == Arg::Kind::String) {
    conv_padding_mode(ctx, pad->text, p.stride, p.op);
    p.padding_mode = pad->text;
    p.padding.assign(p.n, Size(0));
  } else {
    p.padding = spatial("padding", 0);
  }
  if (kind != ConvOp::ConvTranspose) p.dilation = spatial("dilation", 1);
  if (kind == ConvOp::Convolution) p.transposed = ctx.boolean("transposed", false);
  if (kind == ConvOp::ConvTranspose) p.transposed = true;
  if (kind != ConvOp::Conv) p.output_padding = spatial("output_padding", 0);
  p.groups = ctx.integer("groups", Size(1));
  if (kind == ConvOp::ConvTranspose) p.dilation = spatial("dilation", 1);
  return p;
}

// stride > 0, padding >= 0, dilation > 0, groups > 0; transposed: output_padding >= 0 and
// smaller than the stride or the dilation.
template <class Ctx, class Size>
void conv_params(const Ctx& ctx, const std::vector<Size>& stride, const std::vector<Size>& padding,
                 const std::vector<Size>& dilation, const Size& groups, bool transposed,
                 const std::vector<Size>& output_padding, const std::string& op) {
  each_bound(ctx, stride, true, op + ": non-positive stride is not supported, got " + text(stride));
  each_bound(ctx, padding, false, op + ": negative padding is not supported, got " + text(padding));
  each_bound(ctx, dilation, true,
             op + ": dilation should be greater than zero, got " + text(dilation));
  param_bound(ctx, groups > 0, op + ": non-positive groups is not supported, got " + text(groups));
  if (!transposed) return;
  each_bound(ctx, output_padding, false,
             op + ": negative output_padding is not supported, got " + text(output_padding));
  for (size_t i = 0; i < output_padding.size(); ++i) {
    param_bound(ctx, output_padding[i] < stride[i] || output_padding[i] < dilation[i],
                op + ": output padding must be smaller than either stride or dilation, got " +
                    "output_padding " + text(output_padding) + ", stride " + text(stride) +
                    " and dilation " + text(dilation));
  }
}

// The channels: weight [out, C/groups, *kernel] (transposed: [C, out/groups, *kernel]) for an
// input of `sizes` (batched; `original` as given, for the message) of C channels; weight's
// dim 0 divisible by groups. (groups > 0: conv_params.)
template <class Ctx, class Size>
void conv_channels(const Ctx& ctx, const std::vector<Size>& sizes,
                   const std::vector<Size>& original, const std::vector<Size>& w,
                   const Size& groups, bool transposed, const std::string& op) {
  const std::string g = text(simplified(ctx, groups));
  require(ctx, remainder(wide(w[0]), wide(groups)) == 0, "conv_groups", [&] {
    return op + ": given groups=" + g + ", expected weight to be divisible by " + g +
           " at dimension 0, but got weight of size " + text(w) + " instead";
  });
  using Wide = std::decay_t<decltype(wide(groups))>;
  if (!transposed) {
    const Wide want = wide(w[1]) * wide(groups);
    require_equal(ctx, Wide(wide(sizes[1])), want, "conv_channels", [&] {
      return op + ": given groups=" + g + ", weight of size " + text(w) + ", expected input " +
             text(original) + " to have " + text(simplified(ctx, want)) + " channels, but got " +
             text(simplified(ctx, sizes[1])) + " channels instead";
    });
  } else {
    require_equal(ctx, sizes[1], w[0], "conv_channels", [&] {
      return op + ": given transposed=1, weight of size " + text(w) + ", expected input " +
             text(original) + " to have " + text(simplified(ctx, w[0])) + " channels, but got " +
             text(simplified(ctx, sizes[1])) + " channels instead";
    });
  }
}

// The bias: 1-d with one element per output channel.
template <class Ctx, class Size, class Channels>
void conv_bias(const Ctx& ctx, const std::vector<Size>& bias, const std::vector<Size>& w,
               const Channels& out_channels, const std::string& op) {
  const std::string message = op + ": given weight of size " + text(w) +
                              ", expected bias to be 1-dimensional with " +
                              text(simplified(ctx, out_channels)) +
                              " elements, but got bias of size " + text(bias) + " instead";
  if (bias.size() != 1) ctx.fail(message);
  require_equal(ctx, Channels(wide(bias[0])), out_channels, "conv_bias", [&] { return message; });
}

// Every padded input size (per spatial dim) holds the dilated kernel.
template <class Ctx, class Size>
void conv_kernel_fits(const Ctx& ctx, const std::vector<Size>& padded,
                      const std::vector<Size>& kernel, const std::string& op) {
  auto join = [](const std::vector<Size>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + text(v[i]);
    return s;
  };
  for (size_t i = 0; i < padded.size(); ++i) {
    require(ctx, padded[i] >= kernel[i], "conv_kernel_size", [&] {
      return op + ": calculated padded input size per channel: (" + join(padded) +
             "). Kernel size: (" + join(kernel) +
             "). Kernel size can't be greater than actual input size";
    });
  }
}

// Every output size (per spatial dim) of a transposed convolution at least 1.
template <class Ctx, class Size>
void conv_output_fits(const Ctx& ctx, const std::vector<Size>& spatial,
                      const std::vector<Size>& out, const std::string& op) {
  auto join = [](const std::vector<Size>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + text(v[i]);
    return s;
  };
  for (const Size& o : out) {
    require(ctx, o >= 1, "conv_output_size", [&] {
      return op + ": given input size per channel: (" + join(spatial) +
             "). Calculated output size per channel: (" + join(out) + "). Output size is too small";
    });
  }
}

// ---- pooling ----

// The input of a pool over n spatial dims: [N, C, *spatial] or [C, *spatial], empty only in the
// batch dim.
template <class Ctx, class Size>
void pool_input(const Ctx& ctx, const std::vector<Size>& sizes, size_t n, const std::string& op) {
  if (sizes.size() != n + 1 && sizes.size() != n + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(n + 1) + "-D (unbatched) or " +
                  std::to_string(n + 2) + "-D (batched) input, got " + text(sizes));
  }
  for (size_t d = sizes.size() - n - 1; d < sizes.size(); ++d) {
    require(ctx, sizes[d] != 0, "pool_nonempty", [&] {
      return op + ": expected an input with non-zero sizes except the batch dim, got " +
             text(sizes);
    });
  }
}

// A pool's window: kernel size, stride and dilation > 0, padding >= 0 and at most half the
// kernel; an average pool's divisor_override (when given) not zero.
template <class Ctx, class Size>
void pool_params(const Ctx& ctx, const std::vector<Size>& kernel, const std::vector<Size>& stride,
                 const std::vector<Size>& padding, const std::vector<Size>& dilation,
                 const std::optional<Size>& divisor, const std::string& op) {
  if (divisor) param_bound(ctx, *divisor != 0, op + ": divisor must be not zero");
  each_bound(ctx, kernel, true,
             op + ": kernel size should be greater than zero, got " + text(kernel));
  each_bound(ctx, stride, true, op + ": stride should be greater than zero, got " + text(stride));
  each_bound(ctx, dilation, true,
             op + ": dilation should be greater than zero, got " + text(dilation));
  each_bound(ctx, padding, false, op + ": pad must be non-negative, got " + text(padding));
  for (size_t i = 0; i < kernel.size(); ++i) {
    param_bound(ctx, 2 * wide(padding[i]) <= wide(kernel[i]),
                op + ": pad should be at most half of kernel size, got pad " + text(padding) +
                    " and kernel size " + text(kernel));
  }
}

// Every output size of a pool at least 1 (`sizes` the input's, `out` the spatial output).
template <class Ctx, class Size>
void pool_output(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& out,
                 const std::string& op) {
  const size_t first = sizes.size() - out.size();
  auto join = [](auto begin, auto end) {
    std::string s;
    for (auto it = begin; it != end; ++it) s += (it == begin ? "" : "x") + text(*it);
    return s;
  };
  for (const Size& o : out) {
    require(ctx, o >= 1, "pool_output_size", [&] {
      const std::string channels = text(sizes[first - 1]);
      return op + ": given input size: (" + channels + "x" +
             join(sizes.begin() + first, sizes.end()) + "). Calculated output size: (" + channels +
             "x" + join(out.begin(), out.end()) + "). Output size is too small";
    });
  }
}

// An adaptive pool's output_size: n sizes, none negative; its input as pool_input says.
template <class Ctx, class Size>
void adaptive_output(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& out,
                     size_t n, const std::string& op) {
  if (out.size() != n) {
    ctx.bad_input(op + ": output_size must have " + std::to_string(n) + " elements, got " +
                  text(out));
  }
  pool_input(ctx, sizes, n, op);
  each_bound(ctx, out, false,
             op + ": elements of output_size must be greater than or equal to 0, got " + text(out));
}

// A pool's backward by indices: grad_output with self's leading (batch and channel) sizes and n
// spatial dims after them; integer indices of grad_output's shape.
template <class Ctx, class T>
void pool_grad_by_indices(const Ctx& ctx, const T& grad, const T& self, const T& indices, size_t n,
                          const std::string& op) {
  const auto &g = sizes_of(grad), &s = sizes_of(self), &ix = sizes_of(indices);
  const std::string mismatch = op + ": grad_output " + text(g) + " does not match self " + text(s);
  if (s.size() < n + 1 || g.size() != s.size()) ctx.fail(mismatch);
  for (size_t d = 0; d + n < s.size(); ++d) {
    require_equal(ctx, g[d], s[d], "pool_backward", [&] { return mismatch; });
  }
  const std::string bad = op + ": expected integer indices of grad_output's size " + text(g) +
                          ", got " + text(dtype_of(indices)) + text(ix);
  if (!is_integral(dtype_of(indices)) || ix.size() != g.size()) ctx.fail(bad);
  for (size_t d = 0; d < g.size(); ++d) {
    require_equal(ctx, ix[d], g[d], "pool_indices", [&] { return bad; });
  }
}

}  // namespace symshape::validate
