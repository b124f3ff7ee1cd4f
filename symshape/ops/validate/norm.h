// Internal: the argument validation of the normalizations (batch, layer, RMS, group) and of
// scaled dot-product attention, shared by their shape rules (symshape/ops/norm.cc) and their
// kernels (symshape/interp/norm.cc). See checks.h.
#pragma once

#include <optional>
#include <utility>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

inline Expr numel_of(const TensorMeta& t) { return t.numel(); }
inline int64_t numel_of(const interp::Tensor& t) { return t.numel(); }

// A per-channel parameter (weight, bias, running stats), when given, holds one value per channel.
template <class Ctx, class T, class Size>
void per_channel(const Ctx& ctx, const std::optional<T>& t, const std::string& what,
                 const Size& channels) {
  if (!t) return;
  require_equal(ctx, channels, numel_of(*t), "norm_per_channel", [&] {
    return what + " should contain " + text(simplified(ctx, channels)) +
           " elements, got a tensor of shape " + text(sizes_of(*t));
  });
}

// Batch norm's input [N, C, ...] and its per-channel parameters; running statistics are needed
// in evaluation mode.
template <class Ctx, class T>
void batch_norm_args(const Ctx& ctx, const T& input, const std::optional<T>& weight,
                     const std::optional<T>& bias, const std::optional<T>& running_mean,
                     const std::optional<T>& running_var, bool training, const std::string& op) {
  const auto& sizes = sizes_of(input);
  if (sizes.size() < 2) {
    ctx.bad_input(op + ": expected an input with at least 2 dims [N, C, ...], got " + text(sizes));
  }
  per_channel(ctx, weight, "weight", sizes[1]);
  per_channel(ctx, bias, "bias", sizes[1]);
  per_channel(ctx, running_mean, "running_mean", sizes[1]);
  per_channel(ctx, running_var, "running_var", sizes[1]);
  if (!training && (!running_mean || !running_var)) {
    ctx.bad_input(op + ": running_mean and running_var must be defined in evaluation mode");
  }
}

// normalized_shape (at least one size) must be the input's trailing sizes and each given
// parameter's shape. Returns the first normalized axis.
template <class Ctx, class T, class Size>
size_t normalized_shape(const Ctx& ctx, const T& input, const std::vector<Size>& normalized,
                        const std::vector<std::pair<std::string, std::optional<T>>>& params,
                        const std::string& op) {
  if (normalized.empty()) {
    ctx.bad_input(op + ": expected normalized_shape to be at least 1-dimensional, got []");
  }
  const auto& sizes = sizes_of(input);
  const std::string mismatch = op + ": given normalized_shape=" + text(normalized) +
                               ", expected input with shape [*, " + text(normalized).substr(1) +
                               ", but got input of size " + text(sizes);
  if (sizes.size() < normalized.size()) ctx.fail(mismatch);
  const size_t axis = sizes.size() - normalized.size();
  for (size_t i = 0; i < normalized.size(); ++i) {
    require_equal(ctx, sizes[axis + i], normalized[i], "normalized_shape",
                  [&] { return mismatch; });
  }
  for (const auto& [what, t] : params) {
    if (!t) continue;
    const std::string message =
        op + ": expected " + what + " to be of same shape as normalized_shape, but got " + what +
        " of shape " + text(sizes_of(*t)) + " and normalized_shape = " + text(normalized);
    if (sizes_of(*t).size() != normalized.size()) ctx.fail(message);
    for (size_t i = 0; i < normalized.size(); ++i) {
      require_equal(ctx, sizes_of(*t)[i], normalized[i], "normalized_shape",
                    [&] { return message; });
    }
  }
  return axis;
}

// A group norm of `input` with C channels in `groups` groups: groups positive and dividing C,
// weight and bias (when given) vectors of C.
template <class Ctx, class T, class Size>
void group_norm_args(const Ctx& ctx, const T& input, const Size& channels, const Size& groups,
                     const std::optional<T>& weight, const std::optional<T>& bias,
                     const std::string& op) {
  refuse_unless(ctx, groups > 0, op + ": num_groups must be positive, got " + text(groups));
  require(ctx, groups > 0, "group_norm", [&] { return op + ": num_groups must be positive"; });
  require(ctx, remainder(wide(channels), wide(groups)) == 0, "group_norm", [&] {
    return op +
           ": expected number of channels in input to be divisible by num_groups, but got "
           "input of shape " +
           text(sizes_of(input)) + " and num_groups=" + text(simplified(ctx, groups));
  });
  for (const auto& [what, t] :
       {std::pair{std::string("weight"), weight}, std::pair{std::string("bias"), bias}}) {
    if (!t) continue;
    const std::string message = op + ": expected " + what +
                                " to be a vector of size equal to the number of channels in "
                                "input, but got " +
                                what + " of shape " + text(sizes_of(*t)) + " and input of shape " +
                                text(sizes_of(input));
    if (sizes_of(*t).size() != 1) ctx.fail(message);
    require_equal(ctx, sizes_of(*t)[0], channels, "group_norm", [&] { return message; });
  }
}

// group_norm's input: at least [N, C].
template <class Ctx, class Size>
void group_norm_input(const Ctx& ctx, const std::vector<Size>& sizes) {
  if (sizes.size() < 2) {
    ctx.bad_input("group_norm: expected at least 2 dimensions for input tensor, got " +
                  text(sizes));
  }
}

// ---- attention ----

// query [..., L, E], key [..., S, E], value [..., S, Ev]: at least min_rank dims, one dtype, the
// head dims of q and k equal, and the sequence lengths of k and v.
template <class Ctx, class T>
void attention_inputs(const Ctx& ctx, const T& q, const T& k, const T& v, size_t min_rank,
                      const std::string& op) {
  const auto &qs = sizes_of(q), &ks = sizes_of(k), &vs = sizes_of(v);
  for (const auto* s : {&qs, &ks, &vs}) {
    if (s->size() < min_rank) {
      ctx.bad_input(op + ": expected query, key and value to be at least " +
                    std::to_string(min_rank) + "-D, got " + text(qs) + ", " + text(ks) + " and " +
                    text(vs));
    }
  }
  if (dtype_of(q) != dtype_of(k) || dtype_of(q) != dtype_of(v)) {
    ctx.bad_input(op + ": expected query, key and value to have the same dtype, got " +
                  text(dtype_of(q)) + ", " + text(dtype_of(k)) + " and " + text(dtype_of(v)));
  }
  require_equal(ctx, qs.back(), ks.back(), "attention", [&] {
    return op + ": query " + text(qs) + " and key " + text(ks) + " must have the same head dim (" +
           text(simplified(ctx, qs.back())) + " != " + text(simplified(ctx, ks.back())) + ")";
  });
  const auto &sk = ks[ks.size() - 2], &sv = vs[vs.size() - 2];
  require_equal(ctx, sk, sv, "attention", [&] {
    return op + ": key " + text(ks) + " and value " + text(vs) +
           " must have the same sequence length (" + text(simplified(ctx, sk)) +
           " != " + text(simplified(ctx, sv)) + ")";
  });
}

// The fused kernels' inputs: [B, H, L, E] query, key and value agreeing in B and H.
template <class Ctx, class T>
void fused_attention_inputs(const Ctx& ctx, const T& q, const T& k, const T& v,
                            const std::string& op) {
  const auto &qs = sizes_of(q), &ks = sizes_of(k), &vs = sizes_of(v);
  for (const auto* s : {&qs, &ks, &vs}) {
    if (s->size() != 4) {
      ctx.bad_input(op + ": expected 4-D query, key and value [batch, heads, seq, head_dim], got " +
                    text(qs) + ", " + text(ks) + " and " + text(vs));
    }
  }
  attention_inputs(ctx, q, k, v, 4, op);
  for (size_t d = 0; d < 2; ++d) {
    for (const auto* s : {&ks, &vs}) {
      require_equal(ctx, qs[d], (*s)[d], "attention", [&] {
        return op + ": query " + text(qs) + ", key " + text(ks) + " and value " + text(vs) +
               " must agree in dim " + std::to_string(d);
      });
    }
  }
}

// Flash attention's query and value have one head dim.
template <class Ctx, class T>
void same_value_head_dim(const Ctx& ctx, const T& q, const T& v, const std::string& op) {
  require_equal(ctx, sizes_of(q)[3], sizes_of(v)[3], "attention", [&] {
    return op + ": query " + text(sizes_of(q)) + " and value " + text(sizes_of(v)) +
           " must have the same head dim";
  });
}

}  // namespace symshape::validate
