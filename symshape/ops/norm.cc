// Normalization (batch, layer, group, instance, RMS) and scaled dot-product attention.
//
// Where PyTorch's auxiliary outputs differ by device, the CPU shapes and dtypes of its meta
// functions (the decompositions fake tensors run) are used, as the IR carries no device: batch
// norm's saved statistics are [0] outside training, and every norm's statistics keep the input's
// dtype (CUDA would keep float32 for half inputs).
#include <limits>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/norm.h"

namespace symshape::ops {

namespace {

std::string name_of(DType d) { return std::string(to_string(d)); }

TensorMeta same_as(const TensorMeta& t) { return contiguous(t.dtype, t.sizes); }

// A backward op's grads, None where output_mask turns one off or the parameter is absent.
Value grads(const OpContext& ctx, const std::vector<std::optional<TensorMeta>>& metas) {
  std::vector<bool> mask = output_mask(ctx, metas.size());
  std::vector<Value> out;
  for (size_t i = 0; i < metas.size(); ++i) {
    out.push_back(mask[i] && metas[i] ? Value::of(same_as(*metas[i])) : Value::none());
  }
  return Value::list(std::move(out));
}

// ---- batch norm -----------------------------------------------------------------------------

struct BatchNormArgs {
  TensorMeta input;
  std::optional<TensorMeta> weight, bias, running_mean, running_var;
  bool training = false;
};

// (input, weight, bias, running_mean, running_var, ...) with `training` read by the caller.
BatchNormArgs batch_norm_args(const OpContext& ctx, bool has_running_stats) {
  BatchNormArgs a;
  a.input = ctx.tensor("input");
  a.weight = ctx.optional_tensor("weight");
  a.bias = ctx.optional_tensor("bias");
  if (has_running_stats) {
    a.running_mean = ctx.optional_tensor("running_mean");
    a.running_var = ctx.optional_tensor("running_var");
  }
  return a;
}

// The strides of native_batch_norm's output as PyTorch 1.13's meta function gives them (the
// decomposition fake tensors run): ((input - mean) * invstd) * weight + bias, four elementwise
// ops, so TensorIterator's layout of the input against the per-channel operands. Those are
// [1, C, 1, ...] (training: keepdim statistics, contiguous) or [C, 1, ...] (evaluation: the
// running statistics unsqueezed), weight and bias [C, 1, ...] (absent: a 0-dim one or zero,
// unsqueezed to [1, ...]); they broadcast over every other dim, so only where sizes are 1 can
// they order dims.
std::vector<Expr> batch_norm_strides(const OpContext& ctx, const TensorMeta& input, bool training,
                                     bool has_weight, bool has_bias) {
  const size_t rank = input.rank();
  auto operand = [&](std::vector<Expr> sizes) { return contiguous(input.dtype, std::move(sizes)); };
  std::vector<Expr> per_channel(rank - 1, Expr(1));
  per_channel[0] = input.sizes[1];
  std::vector<Expr> stat_sizes = per_channel;
  if (training) {
    stat_sizes.assign(rank, Expr(1));
    stat_sizes[1] = input.sizes[1];
  }
  const TensorMeta stat = operand(stat_sizes);
  TensorMeta step = input;
  step.strides = elementwise_strides(ctx, {&input, &stat}, false, input.sizes);  // input - mean
  step.strides = elementwise_strides(ctx, {&step, &stat}, false, input.sizes);   // * invstd
  const TensorMeta weight =
      has_weight ? operand(per_channel) : operand(std::vector<Expr>(rank - 1, Expr(1)));
  step.strides = elementwise_strides(ctx, {&step, &weight}, false, input.sizes);  // * weight
  const TensorMeta bias =
      has_bias ? operand(per_channel) : operand(std::vector<Expr>(rank - 1, Expr(1)));
  return elementwise_strides(ctx, {&step, &bias}, false, input.sizes);  // + bias
}

// (output, save_mean, save_invstd): the statistics are per channel [C] when training, and
// empty [0] otherwise.
std::vector<Value> batch_norm(const OpContext& ctx, const BatchNormArgs& a) {
  validate::batch_norm_args(ctx, a.input, a.weight, a.bias, a.running_mean, a.running_var,
                            a.training, "batch_norm");
  const Expr& channels = a.input.sizes[1];
  const DType stats = a.input.dtype;
  Expr stat_size = a.training ? ctx.simplify(channels) : Expr(0);
  TensorMeta out = same_as(a.input);
  out.strides =
      batch_norm_strides(ctx, a.input, a.training, a.weight.has_value(), a.bias.has_value());
  return {Value::of(out), Value::of(contiguous(stats, {stat_size})),
          Value::of(contiguous(stats, {stat_size}))};
}

std::vector<Value> running_stats_out(const BatchNormArgs& a) {
  auto like = [](const std::optional<TensorMeta>& t) {
    return t ? Value::of(same_as(*t)) : Value::none();
  };
  return {like(a.running_mean), like(a.running_var)};
}

Value batch_norm_reserve() { return Value::of(contiguous(DType::UInt8, {Expr(0)})); }

void register_batch_norm(OpRegistry& r) {
  // native_batch_norm / _native_batch_norm_legit (input, weight, bias, running_mean, running_var,
  // training, momentum, eps).
  auto legit = [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    return Value::list(batch_norm(ctx, a));
  };
  r.add("aten.native_batch_norm", legit);
  r.add("aten._native_batch_norm_legit", legit);
  // .no_stats (input, weight, bias, training, momentum, eps).
  r.add("aten._native_batch_norm_legit.no_stats", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, false);
    a.training = ctx.boolean("training", false);
    return Value::list(batch_norm(ctx, a));
  });
  r.add("aten._native_batch_norm_legit_no_training", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    return Value::list(batch_norm(ctx, a));
  });
  // (output, save_mean, save_invstd, running_mean_out, running_var_out).
  r.add("aten._native_batch_norm_legit_functional", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    std::vector<Value> out = batch_norm(ctx, a);
    for (Value& v : running_stats_out(a)) out.push_back(v);
    return Value::list(out);
  });
  // batch_norm (..., training, momentum, eps, cudnn_enabled): the output only.
  r.add("aten.batch_norm", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    return batch_norm(ctx, a)[0];
  });
  // _batch_norm_with_update (input, weight, bias, running_mean, running_var, momentum, eps):
  // (output, save_mean, save_rstd, reserve); _functional adds the updated running stats.
  r.add("aten._batch_norm_with_update", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = true;
    std::vector<Value> out = batch_norm(ctx, a);
    out.push_back(batch_norm_reserve());
    return Value::list(out);
  });
  r.add("aten._batch_norm_with_update_functional", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = true;
    std::vector<Value> out = batch_norm(ctx, a);
    out.push_back(batch_norm_reserve());
    for (Value& v : running_stats_out(a)) out.push_back(v);
    return Value::list(out);
  });
  r.add("aten._batch_norm_no_update", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    std::vector<Value> out = batch_norm(ctx, a);
    out.push_back(batch_norm_reserve());
    return Value::list(out);
  });
  // instance_norm (input, weight, bias, running_mean, running_var, use_input_stats, ...): the
  // output only; its stats (when given) are per channel.
  r.add("aten.instance_norm", [](OpContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = true;
    return batch_norm(ctx, a)[0];
  });
  // native_batch_norm_backward (grad_out, input, weight, running_mean, running_var, save_mean,
  // save_invstd, train, eps, output_mask): grads of input, weight and bias.
  r.add("aten.native_batch_norm_backward", [](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    if (input.rank() < 2) ctx.bad_input("batch_norm backward: input must have at least 2 dims");
    std::optional<TensorMeta> weight = ctx.optional_tensor("weight");
    DType param = weight ? weight->dtype : input.dtype;
    TensorMeta per_channel = contiguous(param, {ctx.simplify(input.sizes[1])});
    return grads(ctx, {same_as(input), per_channel, per_channel});
  });
}

// ---- layer norm and RMS norm ----------------------------------------------------------------

// The strides of native_layer_norm's output as PyTorch 1.13's meta function gives them: its
// composite (math_native_layer_norm; the CPU kernel itself returns a contiguous tensor, but
// make_fx records the meta's strides and the traced graph's views read through them) reshapes
// the input to [1, M, N] (a view where its strides allow, else a contiguous copy), batch-norms
// that in training mode (batch_norm_strides), views the result back to the input's sizes, and
// then applies weight and bias elementwise: bias.addcmul(out, weight), out.mul(weight) or
// out.add(bias). An input without elements gives empty_like(input).
std::vector<Expr> layer_norm_strides(const OpContext& ctx, const TensorMeta& input, size_t axis,
                                     bool has_weight, bool has_bias) {
  const std::vector<Expr> given = input.strides.size() == input.rank()
                                      ? input.strides
                                      : TensorMeta::contiguous_strides(input.sizes);
  if (ctx.known(input.numel() == 0) == Truth::True) {
    for (const Expr& st : given) {
      if (st.is_constant() && st.identical(Expr(0))) {
        return TensorMeta::contiguous_strides(input.sizes);
      }
    }
    return given;
  }
  Expr m = 1, n = 1;
  for (size_t d = 0; d < input.rank(); ++d) (d < axis ? m : n) *= input.sizes[d];
  TensorMeta flat = contiguous(input.dtype, {Expr(1), ctx.simplify(m), ctx.simplify(n)});
  TensorMeta shaped = input;
  shaped.strides = given;
  if (std::optional<std::vector<Expr>> view = view_strides(ctx, shaped, flat.sizes)) {
    flat.strides = *view;
  }
  flat.strides = batch_norm_strides(ctx, flat, true, false, false);
  TensorMeta out = input;
  out.strides =
      view_strides(ctx, flat, input.sizes).value_or(TensorMeta::contiguous_strides(input.sizes));
  if (!has_weight && !has_bias) return out.strides;
  const TensorMeta param =
      contiguous(input.dtype, std::vector<Expr>(input.sizes.begin() + axis, input.sizes.end()));
  if (has_weight && has_bias) {
    return elementwise_strides(ctx, {&param, &out, &param}, false, input.sizes);
  }
  return elementwise_strides(ctx, {&out, &param}, false, input.sizes);
}

// native_layer_norm / layer_norm (input, normalized_shape, weight, bias, eps, ...):
// (output, mean, rstd), the statistics shaped input[:axis] + [1] * len(normalized_shape).
std::vector<Value> layer_norm(const OpContext& ctx, const std::string& op) {
  TensorMeta input = ctx.tensor("input");
  std::vector<Expr> normalized = ctx.int_list("normalized_shape");
  std::optional<TensorMeta> weight = ctx.optional_tensor("weight");
  std::optional<TensorMeta> bias = ctx.optional_tensor("bias");
  if (is_complex(input.dtype)) ctx.bad_input(op + " does not support complex inputs");
  size_t axis =
      validate::normalized_shape(ctx, input, normalized, {{"weight", weight}, {"bias", bias}}, op);
  std::vector<Expr> stat(input.sizes.begin(), input.sizes.begin() + axis);
  stat.resize(input.rank(), Expr(1));
  const DType stats = input.dtype;
  TensorMeta out = same_as(input);
  out.strides = layer_norm_strides(ctx, input, axis, weight.has_value(), bias.has_value());
  return {Value::of(out), Value::of(contiguous(stats, stat)), Value::of(contiguous(stats, stat))};
}

// ---- group norm -----------------------------------------------------------------------------

// Checks a group norm of `input` with C channels in `groups` groups.
void check_group_norm(const OpContext& ctx, const TensorMeta& input, const Expr& channels,
                      const Expr& groups, const std::optional<TensorMeta>& weight,
                      const std::optional<TensorMeta>& bias, const std::string& op) {
  validate::group_norm_args(ctx, input, channels, groups, weight, bias, op);
}

// native_group_norm (input, weight, bias, N, C, HxW, group, eps): (output, mean [N, group],
// rstd [N, group]).
Value native_group_norm(OpContext& ctx) {
  TensorMeta input = ctx.tensor("input");
  std::optional<TensorMeta> weight = ctx.optional_tensor("weight");
  std::optional<TensorMeta> bias = ctx.optional_tensor("bias");
  Expr n = ctx.integer("N");
  Expr c = ctx.integer("C");
  Expr hxw = ctx.integer("HxW");
  Expr group = ctx.integer("group");
  const std::string op = "native_group_norm";
  check_group_norm(ctx, input, c, group, weight, bias, op);
  ctx.require_equal(input.numel(), n * c * hxw, "group_norm", [&] {
    return op + ": expected the input " + shape_str(input.sizes) +
           " to have N*C*HxW = " + ctx.simplify(n * c * hxw).str() + " elements";
  });
  std::vector<Expr> stat = {ctx.simplify(n), ctx.simplify(group)};
  return Value::list({Value::of(same_as(input)), Value::of(contiguous(input.dtype, stat)),
                      Value::of(contiguous(input.dtype, stat))});
}

// group_norm (input, num_groups, weight, bias, eps, cudnn_enabled): the output only.
Value group_norm(OpContext& ctx) {
  TensorMeta input = ctx.tensor("input");
  validate::group_norm_input(ctx, input.sizes);
  check_group_norm(ctx, input, input.sizes[1], ctx.integer("num_groups"),
                   ctx.optional_tensor("weight"), ctx.optional_tensor("bias"), "group_norm");
  return Value::of(same_as(input));
}

// ---- attention ------------------------------------------------------------------------------

std::vector<Expr> leading(const TensorMeta& t, size_t drop) {
  return std::vector<Expr>(t.sizes.begin(), t.sizes.end() - drop);
}

// scaled_dot_product_attention (query, key, value, attn_mask, dropout_p, is_causal, *, scale,
// enable_gqa): [..., L, Ev], the batch dims of q, k and v broadcast (with enable_gqa, k and v
// may have fewer heads, dividing q's).
Value sdpa(OpContext& ctx) {
  const std::string op = "scaled_dot_product_attention";
  TensorMeta q = ctx.tensor("query");
  TensorMeta k = ctx.tensor("key");
  TensorMeta v = ctx.tensor("value");
  validate::attention_inputs(ctx, q, k, v, 2, op);
  std::vector<Expr> kb = leading(k, 2), vb = leading(v, 2);
  if (ctx.boolean("enable_gqa", false) && q.rank() >= 3 && k.rank() >= 3 && v.rank() >= 3) {
    // Grouped-query attention repeats each key / value head to match the query's heads.
    const Expr& hq = q.sizes[q.rank() - 3];
    for (auto* batch : {&kb, &vb}) {
      Expr& h = batch->back();
      require(ctx, mod(hq, h) == 0, "attention_gqa", [&] {
        return op +
               ": number of heads in key and value must divide the number of heads in query "
               "(" +
               ctx.simplify(hq).str() + " % " + ctx.simplify(h).str() + " != 0)";
      });
      h = hq;
    }
  }
  std::vector<Expr> batch = broadcast_shapes(ctx, leading(q, 2), kb);
  batch = broadcast_shapes(ctx, batch, vb);
  const Expr& l = q.sizes[q.rank() - 2];
  const Expr& s = k.sizes[k.rank() - 2];
  if (auto mask = ctx.optional_tensor("attn_mask")) {
    if (mask->dtype != DType::Bool && mask->dtype != q.dtype) {
      ctx.bad_input(op + ": expected attn_mask dtype to be bool or to match query dtype, got " +
                    name_of(mask->dtype) + " and " + name_of(q.dtype));
    }
    std::vector<Expr> scores = batch;
    scores.push_back(l);
    scores.push_back(s);
    broadcast_shapes(ctx, scores, mask->sizes);
  }
  std::vector<Expr> out = batch;
  out.push_back(ctx.simplify(l));
  out.push_back(ctx.simplify(v.sizes.back()));
  return Value::of(contiguous(q.dtype, out));
}

TensorMeta with_strides(TensorMeta t, std::vector<Expr> strides) {
  t.strides = std::move(strides);
  return t;
}

// A fresh [B, H, L, Ev] attention output laid out like the query, as PyTorch's meta allocates it
// (flash: empty_like(query.transpose(1, 2)).transpose(1, 2); cudnn: alloc_with_matching_layout):
// the query's dim order (by its strides), dense.
TensorMeta like_query(const OpContext& ctx, const TensorMeta& q, DType dtype,
                      std::vector<Expr> sizes) {
  TensorMeta order = q;
  order.sizes = sizes;
  TensorMeta out;
  out.dtype = dtype;
  out.strides = elementwise_strides(ctx, {&order}, false, sizes);
  out.sizes = std::move(sizes);
  return out;
}

// _scaled_dot_product_flash_attention (query, key, value, dropout_p, is_causal,
// return_debug_mask, *, scale): (output [B, H, L, E], logsumexp [B, H, L] float32, cum_seq_q,
// cum_seq_k (None), max_q L, max_k S, philox_seed [2], philox_offset [], debug_attn_mask).
Value flash_attention(OpContext& ctx) {
  const std::string op = "_scaled_dot_product_flash_attention";
  TensorMeta q = ctx.tensor("query");
  TensorMeta k = ctx.tensor("key");
  TensorMeta v = ctx.tensor("value");
  validate::fused_attention_inputs(ctx, q, k, v, op);
  const Expr& e = q.sizes[3];
  validate::same_value_head_dim(ctx, q, v, op);
  std::vector<Expr> b = {ctx.simplify(q.sizes[0]), ctx.simplify(q.sizes[1])};
  const Expr l = ctx.simplify(q.sizes[2]);
  const Expr s = ctx.simplify(k.sizes[2]);
  TensorMeta debug = contiguous(q.dtype, {Expr(0)});
  if (ctx.boolean("return_debug_mask", false)) {
    // PyTorch's meta: the key length rounded to the kernel's block (128 or 256) for short keys.
    Expr block = ctx.decide(e > 64, "flash_debug_mask") ? Expr(128) : Expr(256);
    Expr width = ceildiv(l, block);
    if (ctx.decide(s <= 128, "flash_debug_mask")) {
      width = 128;
    } else if (ctx.decide(s <= 256, "flash_debug_mask")) {
      width = 256;
    }
    debug = contiguous(q.dtype, {b[0], b[1], l, ctx.simplify(width)});
  }
  // The seed and offset are uint64 in PyTorch, which the IR has no dtype for: int64 stands in.
  return Value::list({Value::of(like_query(ctx, q, q.dtype, {b[0], b[1], l, ctx.simplify(e)})),
                      Value::of(contiguous(DType::Float32, {b[0], b[1], l})), Value::none(),
                      Value::none(), Value::of_int(l), Value::of_int(s),
                      Value::of(contiguous(DType::Int64, {Expr(2)})),
                      Value::of(contiguous(DType::Int64, {})), Value::of(debug)});
}

// _scaled_dot_product_flash_attention_for_cpu (query, key, value, dropout_p, is_causal, *,
// attn_mask, scale): (output [B, H, L, E], logsumexp [B, H, L] float32, laid out [B, L, H]).
Value flash_attention_cpu(OpContext& ctx) {
  const std::string op = "_scaled_dot_product_flash_attention_for_cpu";
  TensorMeta q = ctx.tensor("query");
  TensorMeta k = ctx.tensor("key");
  TensorMeta v = ctx.tensor("value");
  validate::fused_attention_inputs(ctx, q, k, v, op);
  std::vector<Expr> b = {ctx.simplify(q.sizes[0]), ctx.simplify(q.sizes[1])};
  const Expr l = ctx.simplify(q.sizes[2]);
  TensorMeta lse = with_strides(contiguous(DType::Float32, {b[0], b[1], l}),
                                {ctx.simplify(l * b[1]), Expr(1), b[1]});
  return Value::list(
      {Value::of(contiguous(q.dtype, {b[0], b[1], l, ctx.simplify(v.sizes[3])})), Value::of(lse)});
}

// _scaled_dot_product_efficient_attention (query, key, value, attn_bias, compute_log_sumexp,
// dropout_p, is_causal, *, scale): (output [B, H, L, Ev], logsumexp [B, H, ceil(L/32)*32] or
// [B, H, 0] float32, philox_seed [], philox_offset []).
Value efficient_attention(OpContext& ctx) {
  const std::string op = "_scaled_dot_product_efficient_attention";
  TensorMeta q = ctx.tensor("query");
  TensorMeta k = ctx.tensor("key");
  TensorMeta v = ctx.tensor("value");
  validate::fused_attention_inputs(ctx, q, k, v, op);
  std::vector<Expr> b = {ctx.simplify(q.sizes[0]), ctx.simplify(q.sizes[1])};
  const Expr l = ctx.simplify(q.sizes[2]);
  const Expr ev = ctx.simplify(v.sizes[3]);
  // Allocated as [B, L, H, Ev] and transposed.
  TensorMeta out = with_strides(contiguous(q.dtype, {b[0], b[1], l, ev}),
                                {ctx.simplify(l * b[1] * ev), ev, ctx.simplify(b[1] * ev), 1});
  const bool lse = ctx.boolean("compute_log_sumexp", false);
  Expr lse_len = lse ? ctx.simplify(ceildiv(l, 32) * 32) : Expr(0);
  return Value::list({Value::of(out), Value::of(contiguous(DType::Float32, {b[0], b[1], lse_len})),
                      Value::of(contiguous(DType::Int64, {})),
                      Value::of(contiguous(DType::Int64, {}))});
}

// _scaled_dot_product_attention_math (query, key, value, attn_mask, dropout_p, is_causal,
// dropout_mask, *, scale, enable_gqa): (output, as scaled_dot_product_attention's, and the
// attention weights [..., L, S]).
Value attention_math(OpContext& ctx) {
  Value out = sdpa(ctx);
  const TensorMeta q = ctx.tensor("query");
  const TensorMeta k = ctx.tensor("key");
  std::vector<Expr> weights(out.tensor.sizes.begin(), out.tensor.sizes.end() - 1);
  weights.push_back(ctx.simplify(k.sizes[k.rank() - 2]));
  if (auto mask = ctx.optional_tensor("dropout_mask")) {
    broadcast_shapes(ctx, weights, mask->sizes);
  }
  return Value::list({out, Value::of(contiguous(q.dtype, weights))});
}

// _scaled_dot_product_cudnn_attention (query, key, value, attn_bias, compute_log_sumexp,
// dropout_p, is_causal, return_debug_mask, *, scale): (output [B, H, L, Ev], logsumexp
// [B, H, L] float32, cum_seq_q, cum_seq_k (None), max_q L, max_k S, philox_seed [],
// philox_offset [], debug_attn_mask (None)). As PyTorch's meta registration: the logsumexp is
// [B, H, L] whether or not compute_log_sumexp asks for it, and no debug mask is returned.
Value cudnn_attention(OpContext& ctx) {
  const std::string op = "_scaled_dot_product_cudnn_attention";
  TensorMeta q = ctx.tensor("query");
  TensorMeta k = ctx.tensor("key");
  TensorMeta v = ctx.tensor("value");
  validate::fused_attention_inputs(ctx, q, k, v, op);
  std::vector<Expr> b = {ctx.simplify(q.sizes[0]), ctx.simplify(q.sizes[1])};
  const Expr l = ctx.simplify(q.sizes[2]);
  const Expr s = ctx.simplify(k.sizes[2]);
  if (auto bias = ctx.optional_tensor("attn_bias")) {
    broadcast_shapes(ctx, {b[0], b[1], l, s}, bias->sizes);
  }
  ctx.boolean("compute_log_sumexp", false);
  TensorMeta lse = contiguous(DType::Float32, {b[0], b[1], l});
  return Value::list(
      {Value::of(like_query(ctx, q, q.dtype, {b[0], b[1], l, ctx.simplify(v.sizes[3])})),
       Value::of(lse), Value::none(), Value::none(), Value::of_int(l), Value::of_int(s),
       Value::of(contiguous(DType::Int64, {})), Value::of(contiguous(DType::Int64, {})),
       Value::none()});
}

}  // namespace

void register_norm(OpRegistry& r) {
  register_batch_norm(r);
  r.add("aten.native_layer_norm",
        [](OpContext& ctx) { return Value::list(layer_norm(ctx, "native_layer_norm")); });
  r.add("aten.layer_norm", [](OpContext& ctx) { return layer_norm(ctx, "layer_norm")[0]; });
  // rms_norm (input, normalized_shape, weight, eps): the output, in the input's dtype.
  r.add("aten.rms_norm", [](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    std::vector<Expr> normalized = ctx.int_list("normalized_shape");
    validate::normalized_shape(ctx, input, normalized, {{"weight", ctx.optional_tensor("weight")}},
                               "rms_norm");
    return Value::of(same_as(input));
  });
  // _fused_rms_norm (input, normalized_shape, weight, eps): (output, rstd), rstd shaped as
  // native_layer_norm's statistics (the normalized dims kept as 1s), in the input's dtype.
  r.add("aten._fused_rms_norm", [](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    std::vector<Expr> normalized = ctx.int_list("normalized_shape");
    if (is_complex(input.dtype)) ctx.bad_input("_fused_rms_norm does not support complex inputs");
    const size_t axis = validate::normalized_shape(
        ctx, input, normalized, {{"weight", ctx.optional_tensor("weight")}}, "_fused_rms_norm");
    std::vector<Expr> stat(input.sizes.begin(), input.sizes.begin() + axis);
    stat.resize(input.rank(), Expr(1));
    return Value::list({Value::of(same_as(input)), Value::of(contiguous(input.dtype, stat))});
  });
  // native_layer_norm_backward (grad_out, input, normalized_shape, mean, rstd, weight, bias,
  // output_mask): grads of input, weight and bias (None without weight / bias).
  r.add("aten.native_layer_norm_backward", [](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    std::vector<std::optional<TensorMeta>> out = {same_as(input), ctx.optional_tensor("weight"),
                                                  ctx.optional_tensor("bias")};
    return grads(ctx, out);
  });
  r.add("aten.native_group_norm", native_group_norm);
  r.add("aten.group_norm", group_norm);
  // native_group_norm_backward (grad_out, input, mean, rstd, weight, N, C, HxW, group,
  // output_mask): grads of input, weight [C] and bias [C].
  r.add("aten.native_group_norm_backward", [](OpContext& ctx) {
    TensorMeta input = ctx.tensor("input");
    TensorMeta per_channel = contiguous(input.dtype, {ctx.simplify(ctx.integer("C"))});
    return grads(ctx, {same_as(input), per_channel, per_channel});
  });

  r.add("aten.scaled_dot_product_attention", sdpa);
  r.add("aten._scaled_dot_product_flash_attention", flash_attention);
  r.add("aten._scaled_dot_product_flash_attention_for_cpu", flash_attention_cpu);
  r.add("aten._scaled_dot_product_efficient_attention", efficient_attention);
  r.add("aten._scaled_dot_product_attention_math", attention_math);
  r.add("aten._scaled_dot_product_cudnn_attention", cudnn_attention);
}

}  // namespace symshape::ops
