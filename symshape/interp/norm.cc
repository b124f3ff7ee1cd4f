// Normalization kernels (batch, instance, layer, group, RMS; the backward ops of batch, layer
// and group norm) and scaled dot-product attention (the composite op and the fused variants'
// output tuples, with logsumexp).
//
// Arguments are read at the positions and keyword names of the shape rules in
// symshape/ops/norm.cc; outputs have the rule's shapes and dtypes (statistics keep the input's
// dtype, batch norm's saved statistics are [0] outside training). Everything computes in double.
// Batch norm in training mode updates running_mean / running_var in place, as PyTorch does,
// except the _functional variants, which return the updated statistics instead.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/norm.h"

namespace symshape::interp::kernels {

namespace {

using math::load;
using math::product;
using math::sizes_str;
using math::store;
using math::unflatten;

constexpr size_t kKeywordOnly = std::numeric_limits<size_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

void require_floating(const KernelContext& ctx, const Tensor& t, const std::string& op) {
  if (!is_floating(t.dtype())) {
    ctx.bad_input(op + ": expected a floating-point input, got " +
                  std::string(to_string(t.dtype())));
  }
}

// A per-channel parameter's values (weight, bias, running stats): `channels` of them, or
// `fallback` repeated when the parameter is absent.
std::vector<double> per_channel(const KernelContext& ctx, const std::optional<Tensor>& t,
                                int64_t channels, double fallback, const std::string& what) {
  if (!t) return std::vector<double>(static_cast<size_t>(channels), fallback);
  validate::per_channel(ctx, t, what, channels);
  return load<double>(*t);
}

// Writes values into t's elements (row-major), cast to t's dtype.
void write_values(Tensor& t, const std::vector<double>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    t.set_flat(static_cast<int64_t>(i), Scalar::of_float(values[i]));
  }
}

// ---- batch norm -----------------------------------------------------------------------------

struct BatchNormArgs {
  Tensor input;
  std::optional<Tensor> weight, bias, running_mean, running_var;
  bool training = false;
  double momentum = 0.1, eps = 1e-5;
};

BatchNormArgs batch_norm_args(const KernelContext& ctx, bool has_running_stats) {
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

struct BatchNormResult {
  Tensor out, save_mean, save_invstd;
  // The updated running statistics (training with running stats), not yet written back.
  std::vector<double> new_mean, new_var;
};

// Batch norm over [N, C, *]: per channel, the batch statistics (training) or the running ones.
BatchNormResult batch_norm(const KernelContext& ctx, const BatchNormArgs& a,
                           const std::string& op) {
  const Tensor& x = a.input;
  validate::batch_norm_args(ctx, x, a.weight, a.bias, a.running_mean, a.running_var, a.training,
                            op);
  require_floating(ctx, x, op);
  const int64_t n = x.size(0), channels = x.size(1);
  const int64_t spatial = channels == 0 || n == 0 ? 0 : x.numel() / (n * channels);
  const std::vector<double> w = per_channel(ctx, a.weight, channels, 1.0, "weight");
  const std::vector<double> b = per_channel(ctx, a.bias, channels, 0.0, "bias");
  std::vector<double> rm, rv;
  if (a.running_mean) rm = per_channel(ctx, a.running_mean, channels, 0.0, "running_mean");
  if (a.running_var) rv = per_channel(ctx, a.running_var, channels, 1.0, "running_var");

  const std::vector<double> v = load<double>(x);
  auto at = [&](int64_t i, int64_t c, int64_t s) {
    return v[static_cast<size_t>((i * channels + c) * spatial + s)];
  };
  const int64_t count = n * spatial;
  std::vector<double> mean(static_cast<size_t>(channels)), invstd(mean.size());
  BatchNormResult r;
  for (int64_t c = 0; c < channels; ++c) {
    const size_t k = static_cast<size_t>(c);
    if (a.training) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t s = 0; s < spatial; ++s) sum += at(i, c, s);
      }
      const double m = sum / static_cast<double>(count);
      double sq = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t s = 0; s < spatial; ++s) sq += (at(i, c, s) - m) * (at(i, c, s) - m);
      }
      mean[k] = m;
      invstd[k] = 1.0 / std::sqrt(sq / static_cast<double>(count) + a.eps);
      if (a.running_mean) r.new_mean.push_back((1 - a.momentum) * rm[k] + a.momentum * m);
      if (a.running_var) {
        const double unbiased = sq / static_cast<double>(count - 1);
        r.new_var.push_back((1 - a.momentum) * rv[k] + a.momentum * unbiased);
      }
    } else {
      mean[k] = rm[k];
      invstd[k] = 1.0 / std::sqrt(rv[k] + a.eps);
    }
  }
  std::vector<double> out(v.size());
  for (size_t f = 0; f < v.size(); ++f) {
    const size_t c = static_cast<size_t>((static_cast<int64_t>(f) / spatial) % channels);
    out[f] = (v[f] - mean[c]) * invstd[c] * w[c] + b[c];
  }
  r.out = store<double>(x.dtype(), x.sizes(), out);
  if (a.training) {
    r.save_mean = store<double>(x.dtype(), {channels}, mean);
    r.save_invstd = store<double>(x.dtype(), {channels}, invstd);
  } else {
    r.save_mean = Tensor::zeros(x.dtype(), {0});
    r.save_invstd = Tensor::zeros(x.dtype(), {0});
  }
  return r;
}

// Writes the updated running statistics into running_mean / running_var (PyTorch's in-place
// update in training mode).
void update_running_stats(const BatchNormArgs& a, const BatchNormResult& r) {
  if (!a.training) return;
  if (a.running_mean) {
    Tensor t = *a.running_mean;
    write_values(t, r.new_mean);
  }
  if (a.running_var) {
    Tensor t = *a.running_var;
    write_values(t, r.new_var);
  }
}

// The updated running statistics as new tensors (the _functional variants); without training,
// copies of the given ones.
std::vector<RValue> running_stats_out(const BatchNormArgs& a, const BatchNormResult& r) {
  auto make = [&](const std::optional<Tensor>& t, const std::vector<double>& updated) {
    if (!t) return RValue::none();
    Tensor out = t->clone();
    if (a.training) write_values(out, updated);
    return RValue::of(out);
  };
  return {make(a.running_mean, r.new_mean), make(a.running_var, r.new_var)};
}

RValue reserve() { return RValue::of(Tensor::zeros(DType::UInt8, {0})); }

std::vector<RValue> triple(const BatchNormResult& r) {
  return {RValue::of(r.out), RValue::of(r.save_mean), RValue::of(r.save_invstd)};
}

// native_batch_norm_backward (grad_out, input, weight, running_mean, running_var, save_mean,
// save_invstd, train, eps, output_mask): grads of input, weight and bias. Without saved
// statistics in training mode, the batch's statistics are used.
RValue batch_norm_backward(KernelContext& ctx) {
  const std::string op = "native_batch_norm_backward";
  Tensor grad = ctx.tensor("grad_out");
  Tensor x = ctx.tensor("input");
  if (x.rank() < 2) ctx.fail(op + ": input must have at least 2 dims");
  require_floating(ctx, x, op);
  if (grad.sizes() != x.sizes()) {
    ctx.fail(op + ": grad_out " + sizes_str(grad.sizes()) + " must have the input's size " +
             sizes_str(x.sizes()));
  }
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  const bool train = ctx.boolean("train", false);
  const double eps = ctx.real("eps", 1e-5);
  const std::vector<bool> mask = math::output_mask(ctx, 3);
  const int64_t n = x.size(0), channels = x.size(1);
  const int64_t spatial = channels == 0 || n == 0 ? 0 : x.numel() / (n * channels);
  const int64_t count = n * spatial;
  const std::vector<double> w = per_channel(ctx, weight, channels, 1.0, "weight");
  const std::vector<double> v = load<double>(x), g = load<double>(grad);
  auto channel_of = [&](size_t f) {
    return static_cast<size_t>((static_cast<int64_t>(f) / spatial) % channels);
  };

  std::vector<double> mean(static_cast<size_t>(channels), 0.0), invstd(mean.size(), 0.0);
  auto saved_mean = ctx.optional_tensor(train ? "save_mean" : "running_mean");
  auto saved_std = ctx.optional_tensor(train ? "save_invstd" : "running_var");
  if (saved_mean && saved_std && saved_mean->numel() == channels &&
      saved_std->numel() == channels) {
    mean = load<double>(*saved_mean);
    invstd = load<double>(*saved_std);
    if (!train) {
      for (double& s : invstd) s = 1.0 / std::sqrt(s + eps);
    }
  } else if (train) {
    std::vector<double> sum(mean.size(), 0.0), sq(mean.size(), 0.0);
    for (size_t f = 0; f < v.size(); ++f) sum[channel_of(f)] += v[f];
    for (size_t c = 0; c < mean.size(); ++c) mean[c] = sum[c] / static_cast<double>(count);
    for (size_t f = 0; f < v.size(); ++f) {
      sq[channel_of(f)] += (v[f] - mean[channel_of(f)]) * (v[f] - mean[channel_of(f)]);
    }
    for (size_t c = 0; c < mean.size(); ++c) {
      invstd[c] = 1.0 / std::sqrt(sq[c] / static_cast<double>(count) + eps);
    }
  } else {
    ctx.fail(op + ": running_mean and running_var of " + std::to_string(channels) +
             " elements are needed in evaluation mode");
  }

  std::vector<double> sum_g(mean.size(), 0.0), dot(mean.size(), 0.0);
  for (size_t f = 0; f < v.size(); ++f) {
    const size_t c = channel_of(f);
    sum_g[c] += g[f];
    dot[c] += g[f] * (v[f] - mean[c]);
  }
  std::vector<RValue> out(3, RValue::none());
  if (mask[0]) {
    std::vector<double> gx(v.size());
    for (size_t f = 0; f < v.size(); ++f) {
      const size_t c = channel_of(f);
      if (train) {
        const double proj = dot[c] * invstd[c] * invstd[c] / static_cast<double>(count);
        const double gm = sum_g[c] / static_cast<double>(count);
        gx[f] = (g[f] - gm - (v[f] - mean[c]) * proj) * invstd[c] * w[c];
      } else {
        gx[f] = g[f] * invstd[c] * w[c];
      }
    }
    out[0] = RValue::of(store<double>(x.dtype(), x.sizes(), gx));
  }
  const DType param = weight ? weight->dtype() : x.dtype();
  if (mask[1]) {
    std::vector<double> gw(mean.size());
    for (size_t c = 0; c < gw.size(); ++c) gw[c] = dot[c] * invstd[c];
    out[1] = RValue::of(store<double>(param, {channels}, gw));
  }
  if (mask[2]) out[2] = RValue::of(store<double>(param, {channels}, sum_g));
  return RValue::list(std::move(out));
}

// instance_norm (input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
// cudnn_enabled): batch norm of each (sample, channel) over its spatial dims; the running stats
// (per channel) get the average over the batch of the instances' statistics.
RValue instance_norm(KernelContext& ctx) {
  const std::string op = "instance_norm";
  BatchNormArgs a = batch_norm_args(ctx, true);
  const bool use_input_stats = ctx.boolean("use_input_stats", true);
  a.momentum = ctx.real("momentum", 0.1);
  a.eps = ctx.real("eps", 1e-5);
  const Tensor& x = a.input;
  if (x.rank() < 2) {
    ctx.bad_input(op + ": expected an input with at least 2 dims [N, C, ...], got " +
                  sizes_str(x.sizes()));
  }
  require_floating(ctx, x, op);
  const int64_t n = x.size(0), channels = x.size(1);
  const std::vector<double> w = per_channel(ctx, a.weight, channels, 1.0, "weight");
  const std::vector<double> b = per_channel(ctx, a.bias, channels, 0.0, "bias");
  std::vector<double> rm, rv;
  if (a.running_mean) rm = per_channel(ctx, a.running_mean, channels, 0.0, "running_mean");
  if (a.running_var) rv = per_channel(ctx, a.running_var, channels, 1.0, "running_var");
  if (!use_input_stats && (!a.running_mean || !a.running_var)) {
    ctx.bad_input(op +
                  ": expected running_mean and running_var to be defined when use_input_stats "
                  "is false");
  }
  // Batch norm of the input viewed as [1, N * C, *] with every parameter repeated N times.
  std::vector<int64_t> folded = x.sizes();
  folded.erase(folded.begin());
  folded[0] = n * channels;
  folded.insert(folded.begin(), 1);
  auto repeat = [&](const std::vector<double>& p) {
    std::vector<double> out;
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), p.begin(), p.end());
    return store<double>(DType::Float64, {n * channels}, out);
  };
  BatchNormArgs f;
  f.input = x.contiguous().as_strided(folded, contiguous_strides(folded), 0);
  f.weight = repeat(w);
  f.bias = repeat(b);
  if (a.running_mean) f.running_mean = repeat(rm);
  if (a.running_var) f.running_var = repeat(rv);
  f.training = use_input_stats;
  f.momentum = a.momentum;
  f.eps = a.eps;
  BatchNormResult r = batch_norm(ctx, f, op);
  if (use_input_stats) {
    // Each channel's running stat: the mean over the batch of its updated copies.
    auto average = [&](const std::vector<double>& updated) {
      std::vector<double> out(static_cast<size_t>(channels), 0.0);
      for (size_t k = 0; k < updated.size(); ++k) {
        out[k % out.size()] += updated[k] / static_cast<double>(n);
      }
      return out;
    };
    if (a.running_mean && n > 0) {
      Tensor t = *a.running_mean;
      write_values(t, average(r.new_mean));
    }
    if (a.running_var && n > 0) {
      Tensor t = *a.running_var;
      write_values(t, average(r.new_var));
    }
  }
  return RValue::of(store<double>(x.dtype(), x.sizes(), load<double>(r.out)));
}

void register_batch_norm(KernelRegistry& r) {
  // native_batch_norm / _native_batch_norm_legit (input, weight, bias, running_mean, running_var,
  // training, momentum, eps).
  auto legit = [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    BatchNormResult res = batch_norm(ctx, a, "batch_norm");
    update_running_stats(a, res);
    return RValue::list(triple(res));
  };
  r.add("aten.native_batch_norm", legit);
  r.add("aten._native_batch_norm_legit", legit);
  // .no_stats (input, weight, bias, training, momentum, eps).
  r.add("aten._native_batch_norm_legit.no_stats", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, false);
    a.training = ctx.boolean("training", false);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    return RValue::list(triple(batch_norm(ctx, a, "batch_norm")));
  });
  // _native_batch_norm_legit_no_training (input, weight, bias, running_mean, running_var,
  // momentum, eps).
  r.add("aten._native_batch_norm_legit_no_training", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    return RValue::list(triple(batch_norm(ctx, a, "batch_norm")));
  });
  // (output, save_mean, save_invstd, running_mean_out, running_var_out).
  r.add("aten._native_batch_norm_legit_functional", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    BatchNormResult res = batch_norm(ctx, a, "batch_norm");
    std::vector<RValue> out = triple(res);
    for (RValue& v : running_stats_out(a, res)) out.push_back(v);
    return RValue::list(out);
  });
  // batch_norm (input, weight, bias, running_mean, running_var, training, momentum, eps,
  // cudnn_enabled): the output only.
  r.add("aten.batch_norm", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = ctx.boolean("training", false);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    BatchNormResult res = batch_norm(ctx, a, "batch_norm");
    update_running_stats(a, res);
    return RValue::of(res.out);
  });
  // _batch_norm_with_update (input, weight, bias, running_mean, running_var, momentum, eps):
  // (output, save_mean, save_rstd, reserve); _functional adds the updated running stats.
  r.add("aten._batch_norm_with_update", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = true;
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    BatchNormResult res = batch_norm(ctx, a, "batch_norm");
    update_running_stats(a, res);
    std::vector<RValue> out = triple(res);
    out.push_back(reserve());
    return RValue::list(out);
  });
  r.add("aten._batch_norm_with_update_functional", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.training = true;
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    BatchNormResult res = batch_norm(ctx, a, "batch_norm");
    std::vector<RValue> out = triple(res);
    out.push_back(reserve());
    for (RValue& v : running_stats_out(a, res)) out.push_back(v);
    return RValue::list(out);
  });
  // _batch_norm_no_update (input, weight, bias, running_mean, running_var, momentum, eps).
  r.add("aten._batch_norm_no_update", [](KernelContext& ctx) {
    BatchNormArgs a = batch_norm_args(ctx, true);
    a.momentum = ctx.real("momentum", 0.1);
    a.eps = ctx.real("eps", 1e-5);
    std::vector<RValue> out = triple(batch_norm(ctx, a, "batch_norm"));
    out.push_back(reserve());
    return RValue::list(out);
  });
  r.add("aten.instance_norm", instance_norm);
  r.add("aten.native_batch_norm_backward", batch_norm_backward);
}

// ---- layer norm and RMS norm ----------------------------------------------------------------

// native_layer_norm / layer_norm (input, normalized_shape, weight, bias, eps, ...): (output,
// mean, rstd), the statistics shaped input[:axis] + [1] * len(normalized_shape).
std::vector<RValue> layer_norm(const KernelContext& ctx, const std::string& op) {
  Tensor input = ctx.tensor("input");
  std::vector<int64_t> normalized = ctx.int_list("normalized_shape");
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  std::optional<Tensor> bias = ctx.optional_tensor("bias");
  const double eps = ctx.real("eps", 1e-5);
  if (is_complex(input.dtype())) ctx.bad_input(op + " does not support complex inputs");
  require_floating(ctx, input, op);
  const size_t axis =
      validate::normalized_shape(ctx, input, normalized, {{"weight", weight}, {"bias", bias}}, op);
  const int64_t inner = product(normalized);
  const int64_t rows = inner == 0 ? 0 : input.numel() / inner;
  std::vector<int64_t> stat(input.sizes().begin(), input.sizes().begin() + axis);
  const int64_t stat_count = product(stat);
  stat.resize(input.rank(), 1);
  const std::vector<double> v = load<double>(input);
  const std::vector<double> w = weight ? load<double>(*weight) : std::vector<double>();
  const std::vector<double> b = bias ? load<double>(*bias) : std::vector<double>();
  std::vector<double> out(v.size()), mean(static_cast<size_t>(stat_count)), rstd(mean.size());
  for (int64_t r = 0; r < stat_count; ++r) {
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < inner; ++j) sum += v[static_cast<size_t>(r * inner + j)];
    const double m = sum / static_cast<double>(inner);
    for (int64_t j = 0; j < inner; ++j) {
      const double d = v[static_cast<size_t>(r * inner + j)] - m;
      sq += d * d;
    }
    const double s = 1.0 / std::sqrt(sq / static_cast<double>(inner) + eps);
    mean[static_cast<size_t>(r)] = m;
    rstd[static_cast<size_t>(r)] = s;
    if (r >= rows) continue;
    for (int64_t j = 0; j < inner; ++j) {
      const size_t f = static_cast<size_t>(r * inner + j);
      double y = (v[f] - m) * s;
      if (weight) y *= w[static_cast<size_t>(j)];
      if (bias) y += b[static_cast<size_t>(j)];
      out[f] = y;
    }
  }
  return {RValue::of(store<double>(input.dtype(), input.sizes(), out)),
          RValue::of(store<double>(input.dtype(), stat, mean)),
          RValue::of(store<double>(input.dtype(), stat, rstd))};
}

// rms_norm (input, normalized_shape, weight, eps): x / sqrt(mean(x^2) + eps) * weight; eps
// defaults to the machine epsilon of the input's compute type (float32's for float32 and the
// half types).
// rms_norm's arithmetic: the output, and each normalized group's rstd, 1 / sqrt(mean(x^2) + eps).
std::pair<RValue, std::vector<double>> rms_normalize(KernelContext& ctx, const std::string& op) {
  Tensor input = ctx.tensor("input");
  std::vector<int64_t> normalized = ctx.int_list("normalized_shape");
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  require_floating(ctx, input, op);
  validate::normalized_shape(ctx, input, normalized, {{"weight", weight}}, op);
  const double eps = ctx.real("eps", input.dtype() == DType::Float64
                                         ? std::numeric_limits<double>::epsilon()
                                         : double(std::numeric_limits<float>::epsilon()));
  const int64_t inner = product(normalized);
  const int64_t rows = inner == 0 ? 0 : input.numel() / inner;
  const std::vector<double> v = load<double>(input);
  const std::vector<double> w = weight ? load<double>(*weight) : std::vector<double>();
  std::vector<double> out(v.size()), rstd(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    double sq = 0;
    for (int64_t j = 0; j < inner; ++j) {
      sq += v[static_cast<size_t>(r * inner + j)] * v[static_cast<size_t>(r * inner + j)];
    }
    const double s = 1.0 / std::sqrt(sq / static_cast<double>(inner) + eps);
    rstd[static_cast<size_t>(r)] = s;
    for (int64_t j = 0; j < inner; ++j) {
      const size_t f = static_cast<size_t>(r * inner + j);
      out[f] = v[f] * s * (weight ? w[static_cast<size_t>(j)] : 1.0);
    }
  }
  return {RValue::of(store<double>(input.dtype(), input.sizes(), out)), rstd};
}

RValue rms_norm(KernelContext& ctx) { return rms_normalize(ctx, "rms_norm").first; }

// _fused_rms_norm (input, normalized_shape, weight, eps): (output, rstd), rstd with the
// normalized dims kept as 1s.
RValue fused_rms_norm(KernelContext& ctx) {
  auto [out, rstd] = rms_normalize(ctx, "_fused_rms_norm");
  Tensor input = ctx.tensor("input");
  const size_t axis = input.rank() - ctx.int_list("normalized_shape").size();
  std::vector<int64_t> stat(input.sizes().begin(), input.sizes().begin() + axis);
  stat.resize(input.rank(), 1);
  return RValue::list({out, RValue::of(store<double>(input.dtype(), stat, rstd))});
}

// The input-gradient of a normalization over groups of `inner` elements: given
// xhat = (x - mean) * rstd and g = grad * weight, rstd * (g - mean(g) - xhat * mean(g * xhat)).
void normalized_grad(const std::vector<double>& xhat, const std::vector<double>& g, double rstd,
                     std::vector<double>& out) {
  const double n = static_cast<double>(xhat.size());
  double mg = 0, mgx = 0;
  for (size_t j = 0; j < xhat.size(); ++j) {
    mg += g[j];
    mgx += g[j] * xhat[j];
  }
  mg /= n;
  mgx /= n;
  out.resize(xhat.size());
  for (size_t j = 0; j < xhat.size(); ++j) out[j] = rstd * (g[j] - mg - xhat[j] * mgx);
}

// native_layer_norm_backward (grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask): grads of input, weight and bias (None without weight / bias).
RValue layer_norm_backward(KernelContext& ctx) {
  const std::string op = "native_layer_norm_backward";
  Tensor grad = ctx.tensor("grad_out");
  Tensor input = ctx.tensor("input");
  std::vector<int64_t> normalized = ctx.int_list("normalized_shape");
  Tensor mean_t = ctx.tensor("mean");
  Tensor rstd_t = ctx.tensor("rstd");
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  std::optional<Tensor> bias = ctx.optional_tensor("bias");
  const std::vector<bool> mask = math::output_mask(ctx, 3);
  require_floating(ctx, input, op);
  const size_t axis =
      validate::normalized_shape(ctx, input, normalized, {{"weight", weight}, {"bias", bias}}, op);
  if (grad.sizes() != input.sizes()) {
    ctx.fail(op + ": grad_out " + sizes_str(grad.sizes()) + " must have the input's size " +
             sizes_str(input.sizes()));
  }
  const int64_t rows =
      product(std::vector<int64_t>(input.sizes().begin(), input.sizes().begin() + axis));
  const int64_t inner = product(normalized);
  if (mean_t.numel() != rows || rstd_t.numel() != rows) {
    ctx.fail(op + ": mean and rstd must hold " + std::to_string(rows) + " elements, got " +
             mean_t.str() + " and " + rstd_t.str());
  }
  const std::vector<double> v = load<double>(input), g = load<double>(grad);
  const std::vector<double> mean = load<double>(mean_t), rstd = load<double>(rstd_t);
  const std::vector<double> w =
      weight ? load<double>(*weight) : std::vector<double>(static_cast<size_t>(inner), 1.0);
  std::vector<double> gx(v.size()), gw(static_cast<size_t>(inner), 0.0), gb(gw.size(), 0.0);
  std::vector<double> xhat(gw.size()), gg(gw.size()), part;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < inner; ++j) {
      const size_t f = static_cast<size_t>(r * inner + j), k = static_cast<size_t>(j);
      xhat[k] = (v[f] - mean[static_cast<size_t>(r)]) * rstd[static_cast<size_t>(r)];
      gg[k] = g[f] * w[k];
      gw[k] += g[f] * xhat[k];
      gb[k] += g[f];
    }
    normalized_grad(xhat, gg, rstd[static_cast<size_t>(r)], part);
    std::copy(part.begin(), part.end(), gx.begin() + r * inner);
  }
  std::vector<RValue> out(3, RValue::none());
  if (mask[0]) out[0] = RValue::of(store<double>(input.dtype(), input.sizes(), gx));
  if (mask[1] && weight) out[1] = RValue::of(store<double>(weight->dtype(), weight->sizes(), gw));
  if (mask[2] && bias) out[2] = RValue::of(store<double>(bias->dtype(), bias->sizes(), gb));
  return RValue::list(std::move(out));
}

// ---- group norm -----------------------------------------------------------------------------

struct GroupNormShape {
  int64_t n = 0, channels = 0, hxw = 0, groups = 1;
};

void check_group_norm(const KernelContext& ctx, const Tensor& input, const GroupNormShape& s,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                      const std::string& op) {
  validate::group_norm_args(ctx, input, s.channels, s.groups, weight, bias, op);
  if (s.channels < 0) ctx.fail(op + ": negative number of channels " + std::to_string(s.channels));
  math::checked_numel(ctx, {s.n, s.groups}, op);  // the statistics' [N, group]
}

// Group norm of input viewed as [N, C, HxW]: (output, mean [N, G], rstd [N, G]).
std::vector<RValue> group_norm_run(const Tensor& input, const GroupNormShape& s,
                                   const std::optional<Tensor>& weight,
                                   const std::optional<Tensor>& bias, double eps) {
  const int64_t per_group = s.channels / s.groups;
  const int64_t inner = per_group * s.hxw;
  const std::vector<double> v = load<double>(input);
  const std::vector<double> w = weight ? load<double>(*weight) : std::vector<double>();
  const std::vector<double> b = bias ? load<double>(*bias) : std::vector<double>();
  std::vector<double> out(v.size()), mean(static_cast<size_t>(s.n * s.groups)), rstd(mean.size());
  for (int64_t i = 0; i < s.n * s.groups; ++i) {
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < inner; ++j) sum += v[static_cast<size_t>(i * inner + j)];
    const double m = sum / static_cast<double>(inner);
    for (int64_t j = 0; j < inner; ++j) {
      const double d = v[static_cast<size_t>(i * inner + j)] - m;
      sq += d * d;
    }
    const double r = 1.0 / std::sqrt(sq / static_cast<double>(inner) + eps);
    mean[static_cast<size_t>(i)] = m;
    rstd[static_cast<size_t>(i)] = r;
    for (int64_t j = 0; j < inner; ++j) {
      const size_t f = static_cast<size_t>(i * inner + j);
      const size_t c = static_cast<size_t>((i % s.groups) * per_group + j / s.hxw);
      double y = (v[f] - m) * r;
      if (weight) y *= w[c];
      if (bias) y += b[c];
      out[f] = y;
    }
  }
  return {RValue::of(store<double>(input.dtype(), input.sizes(), out)),
          RValue::of(store<double>(input.dtype(), {s.n, s.groups}, mean)),
          RValue::of(store<double>(input.dtype(), {s.n, s.groups}, rstd))};
}

// native_group_norm (input, weight, bias, N, C, HxW, group, eps).
RValue native_group_norm(KernelContext& ctx) {
  const std::string op = "native_group_norm";
  Tensor input = ctx.tensor("input");
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  std::optional<Tensor> bias = ctx.optional_tensor("bias");
  GroupNormShape s{ctx.integer("N"), ctx.integer("C"), ctx.integer("HxW"), ctx.integer("group")};
  const double eps = ctx.real("eps", 1e-5);
  require_floating(ctx, input, op);
  check_group_norm(ctx, input, s, weight, bias, op);
  math::Checked c;
  const int64_t total = c.mul(c.mul(s.n, s.channels), s.hxw);
  if (s.n < 0 || s.hxw < 0 || c.overflow || input.numel() != total) {
    ctx.fail(op + ": expected the input " + sizes_str(input.sizes()) +
             " to have N*C*HxW = " + std::to_string(s.n) + "*" + std::to_string(s.channels) + "*" +
             std::to_string(s.hxw) + " elements");
  }
  return RValue::list(group_norm_run(input, s, weight, bias, eps));
}

// group_norm (input, num_groups, weight, bias, eps, cudnn_enabled).
RValue group_norm(KernelContext& ctx) {
  const std::string op = "group_norm";
  Tensor input = ctx.tensor("input");
  validate::group_norm_input(ctx, input.sizes());
  require_floating(ctx, input, op);
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  std::optional<Tensor> bias = ctx.optional_tensor("bias");
  GroupNormShape s{input.size(0), input.size(1), 0, ctx.integer("num_groups")};
  s.hxw = s.n * s.channels == 0 ? 0 : input.numel() / (s.n * s.channels);
  check_group_norm(ctx, input, s, weight, bias, op);
  return group_norm_run(input, s, weight, bias, ctx.real("eps", 1e-5))[0];
}

// native_group_norm_backward (grad_out, input, mean, rstd, weight, N, C, HxW, group,
// output_mask): grads of input, weight [C] and bias [C].
RValue group_norm_backward(KernelContext& ctx) {
  const std::string op = "native_group_norm_backward";
  Tensor grad = ctx.tensor("grad_out");
  Tensor input = ctx.tensor("input");
  Tensor mean_t = ctx.tensor("mean");
  Tensor rstd_t = ctx.tensor("rstd");
  std::optional<Tensor> weight = ctx.optional_tensor("weight");
  GroupNormShape s{ctx.integer("N"), ctx.integer("C"), ctx.integer("HxW"), ctx.integer("group")};
  const std::vector<bool> mask = math::output_mask(ctx, 3);
  require_floating(ctx, input, op);
  check_group_norm(ctx, input, s, weight, std::nullopt, op);
  math::Checked c;
  const int64_t total = c.mul(c.mul(s.n, s.channels), s.hxw);
  if (s.n < 0 || s.hxw < 0 || c.overflow || input.numel() != total ||
      grad.sizes() != input.sizes()) {
    ctx.fail(op + ": expected input and grad_out of N*C*HxW elements and the same size, got " +
             sizes_str(input.sizes()) + " and " + sizes_str(grad.sizes()));
  }
  if (mean_t.numel() != s.n * s.groups || rstd_t.numel() != s.n * s.groups) {
    ctx.fail(op + ": mean and rstd must hold N*group elements");
  }
  const int64_t per_group = s.channels / s.groups, inner = per_group * s.hxw;
  const std::vector<double> v = load<double>(input), g = load<double>(grad);
  const std::vector<double> mean = load<double>(mean_t), rstd = load<double>(rstd_t);
  const std::vector<double> w =
      weight ? load<double>(*weight) : std::vector<double>(static_cast<size_t>(s.channels), 1.0);
  std::vector<double> gx(v.size()), gw(static_cast<size_t>(s.channels), 0.0), gb(gw.size(), 0.0);
  std::vector<double> xhat(static_cast<size_t>(inner)), gg(xhat.size()), part;
  for (int64_t i = 0; i < s.n * s.groups; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const size_t f = static_cast<size_t>(i * inner + j), k = static_cast<size_t>(j);
      const size_t ch = static_cast<size_t>((i % s.groups) * per_group + j / s.hxw);
      xhat[k] = (v[f] - mean[static_cast<size_t>(i)]) * rstd[static_cast<size_t>(i)];
      gg[k] = g[f] * w[ch];
      gw[ch] += g[f] * xhat[k];
      gb[ch] += g[f];
    }
    normalized_grad(xhat, gg, rstd[static_cast<size_t>(i)], part);
    std::copy(part.begin(), part.end(), gx.begin() + i * inner);
  }
  std::vector<RValue> out(3, RValue::none());
  if (mask[0]) out[0] = RValue::of(store<double>(input.dtype(), input.sizes(), gx));
  if (mask[1]) out[1] = RValue::of(store<double>(input.dtype(), {s.channels}, gw));
  if (mask[2]) out[2] = RValue::of(store<double>(input.dtype(), {s.channels}, gb));
  return RValue::list(std::move(out));
}

// ---- attention ------------------------------------------------------------------------------

struct Attention {
  std::vector<double> out;  // [batch, L, Ev]
  std::vector<double> lse;  // [batch, L]: logsumexp of each row's scaled, masked scores
};

// Softmax attention over row-major q [batch, L, E], k [batch, S, E], v [batch, S, Ev]; bias
// [batch, L, S] (added; -inf masks) when given; top-left causal mask; dropout with probability
// p from rng (kept weights scaled by 1 / (1 - p)). A fully masked row attends to nothing (0).
Attention attend(const std::vector<double>& q, const std::vector<double>& k,
                 const std::vector<double>& v, const std::vector<double>* bias, int64_t batch,
                 int64_t l, int64_t s, int64_t e, int64_t ev, double scale, bool causal,
                 double dropout, std::mt19937_64& rng) {
  Attention a;
  a.out.assign(static_cast<size_t>(batch * l * ev), 0.0);
  a.lse.assign(static_cast<size_t>(batch * l), 0.0);
  std::vector<double> score(static_cast<size_t>(s));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < l; ++i) {
      double top = -kInf;
      for (int64_t j = 0; j < s; ++j) {
        double x = 0;
        for (int64_t d = 0; d < e; ++d) {
          x += q[static_cast<size_t>((b * l + i) * e + d)] *
               k[static_cast<size_t>((b * s + j) * e + d)];
        }
        x *= scale;
        if (bias) x += (*bias)[static_cast<size_t>((b * l + i) * s + j)];
        if (causal && j > i) x = -kInf;
        score[static_cast<size_t>(j)] = x;
        if (x > top || std::isnan(x)) top = x;
      }
      const size_t row = static_cast<size_t>(b * l + i);
      if (top == -kInf) {
        a.lse[row] = -kInf;
        continue;
      }
      double sum = 0;
      for (double& x : score) {
        x = std::exp(x - top);
        sum += x;
      }
      a.lse[row] = top + std::log(sum);
      for (int64_t j = 0; j < s; ++j) {
        double p = score[static_cast<size_t>(j)] / sum;
        if (dropout > 0) {
          const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
          p = u < dropout ? 0.0 : p / (1.0 - dropout);
        }
        for (int64_t d = 0; d < ev; ++d) {
          a.out[static_cast<size_t>(row * ev + d)] +=
              p * v[static_cast<size_t>((b * s + j) * ev + d)];
        }
      }
    }
  }
  return a;
}

// A mask or bias broadcast to scores [*batch, L, S] as additive values (false: -inf).
std::vector<double> attention_bias(const KernelContext& ctx, const Tensor& mask,
                                   const std::vector<int64_t>& scores, const std::string& op) {
  auto b = broadcast_shapes(scores, mask.sizes());
  if (!b || *b != scores) {
    ctx.fail(op + ": attn_mask " + sizes_str(mask.sizes()) +
             " does not broadcast to the attention scores " + sizes_str(scores));
  }
  Tensor expanded = expand_to(mask, scores);
  if (mask.dtype() == DType::Bool) {
    std::vector<double> out;
    for (uint64_t x : load<uint64_t>(expanded)) out.push_back(x ? 0.0 : -kInf);
    return out;
  }
  if (!is_floating(mask.dtype())) {
    ctx.bad_input(op + ": expected attn_mask dtype to be bool or float, got " +
                  std::string(to_string(mask.dtype())));
  }
  return load<double>(expanded);
}

void check_qkv(const KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
               size_t min_rank, const std::string& op) {
  require_floating(ctx, q, op);
  validate::attention_inputs(ctx, q, k, v, min_rank, op);
}

// t [..., H, S, E] with its heads repeated (repeat_interleave) to `heads`.
Tensor repeat_heads(const Tensor& t, int64_t heads) {
  std::vector<int64_t> sizes = t.sizes();
  const size_t h_dim = sizes.size() - 3;
  const int64_t h = sizes[h_dim];
  sizes[h_dim] = heads;
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  std::vector<int64_t> index, src;
  for (int64_t f = 0; f < out.numel(); ++f) {
    unflatten(f, sizes, index);
    src = index;
    src[h_dim] = index[h_dim] / (heads / h);
    out.set_flat(f, t.at(src));
  }
  return out;
}

// The arguments of the unfused attention kernels (query, key, value, attn_mask, dropout_p,
// is_causal, *, scale, enable_gqa), checked: grouped heads repeated, the batch dims broadcast,
// the mask as an additive bias over [*batch, L, S].
struct UnfusedAttention {
  Tensor q, k, v;
  std::optional<Tensor> mask = std::nullopt;
  std::vector<double> bias = {};  // when mask
  double dropout = 0, scale = 1;
  bool causal = false;
  std::vector<int64_t> batch = {};
  int64_t l = 0, s = 0, e = 0, ev = 0;

  // The broadcast batch dims followed by rows and cols.
  std::vector<int64_t> full(int64_t rows, int64_t cols) const {
    std::vector<int64_t> sizes = batch;
    sizes.insert(sizes.end(), {rows, cols});
    return sizes;
  }
  // q, k and v as row-major [batch, rows, cols] values.
  std::vector<double> query() const { return load<double>(expand_to(q, full(l, e))); }
  std::vector<double> key() const { return load<double>(expand_to(k, full(s, e))); }
  std::vector<double> value() const { return load<double>(expand_to(v, full(s, ev))); }
};

UnfusedAttention unfused_attention(KernelContext& ctx, const std::string& op) {
  UnfusedAttention a{ctx.tensor("query"), ctx.tensor("key"), ctx.tensor("value")};
  Tensor &q = a.q, &k = a.k, &v = a.v;
  check_qkv(ctx, q, k, v, 2, op);
  a.mask = ctx.optional_tensor("attn_mask");
  a.dropout = ctx.real("dropout_p", 0.0);
  a.causal = ctx.boolean("is_causal", false);
  if (a.causal && a.mask)
    ctx.fail(op + ": explicit attn_mask should not be set when is_causal=True");
  if (ctx.boolean("enable_gqa", false) && q.rank() >= 3 && k.rank() >= 3 && v.rank() >= 3) {
    const int64_t hq = q.size(-3);
    for (Tensor* t : {&k, &v}) {
      const int64_t h = t->size(-3);
      if (h == 0 || hq % h != 0) {
        ctx.fail(op +
                 ": number of heads in key and value must divide the number of heads in "
                 "query (" +
                 std::to_string(hq) + " % " + std::to_string(h) + " != 0)");
      }
      if (h != hq) *t = repeat_heads(*t, hq);
    }
  }
  auto leading = [](const Tensor& t) {
    return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - 2);
  };
  auto batch = broadcast_shapes(leading(q), leading(k));
  if (batch) batch = broadcast_shapes(*batch, leading(v));
  if (!batch) ctx.fail(op + ": the batch dims of query, key and value do not broadcast");
  a.batch = *batch;
  a.l = q.size(-2), a.s = k.size(-2), a.e = q.size(-1), a.ev = v.size(-1);
  if (a.mask) a.bias = attention_bias(ctx, *a.mask, a.full(a.l, a.s), op);
  a.scale = ctx.real("scale", 1.0 / std::sqrt(static_cast<double>(a.e)));
  return a;
}

// scaled_dot_product_attention (query, key, value, attn_mask, dropout_p, is_causal, *, scale,
// enable_gqa).
RValue sdpa(KernelContext& ctx) {
  const UnfusedAttention u = unfused_attention(ctx, "scaled_dot_product_attention");
  Attention a = attend(u.query(), u.key(), u.value(), u.mask ? &u.bias : nullptr, product(u.batch),
                       u.l, u.s, u.e, u.ev, u.scale, u.causal, u.dropout, ctx.rng());
  return RValue::of(store<double>(u.q.dtype(), u.full(u.l, u.ev), a.out));
}

// The fused kernels' inputs: [B, H, L, E] query, key and value agreeing in B and H.
void check_fused(const KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                 const std::string& op) {
  require_floating(ctx, q, op);
  validate::fused_attention_inputs(ctx, q, k, v, op);
}

Attention fused(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                const std::optional<Tensor>& mask, double dropout, bool causal,
                const std::string& op) {
  const int64_t l = q.size(2), s = k.size(2), e = q.size(3);
  const int64_t batch = q.size(0) * q.size(1);
  std::vector<double> bias;
  if (mask) bias = attention_bias(ctx, *mask, {q.size(0), q.size(1), l, s}, op);
  const double scale = ctx.real("scale", 1.0 / std::sqrt(static_cast<double>(e)));
  return attend(load<double>(q), load<double>(k), load<double>(v), mask ? &bias : nullptr, batch, l,
                s, e, v.size(3), scale, causal, dropout, ctx.rng());
}

// _scaled_dot_product_flash_attention (query, key, value, dropout_p, is_causal,
// return_debug_mask, *, scale): (output, logsumexp [B, H, L] float32, cum_seq_q, cum_seq_k
// (None), max_q, max_k, philox_seed [2], philox_offset [], debug_attn_mask).
RValue flash_attention(KernelContext& ctx) {
  const std::string op = "_scaled_dot_product_flash_attention";
  Tensor q = ctx.tensor("query");
  Tensor k = ctx.tensor("key");
  Tensor v = ctx.tensor("value");
  check_fused(ctx, q, k, v, op);
  validate::same_value_head_dim(ctx, q, v, op);
  const int64_t b = q.size(0), h = q.size(1), l = q.size(2), s = k.size(2), e = q.size(3);
  Attention a = fused(ctx, q, k, v, std::nullopt, ctx.real("dropout_p", 0.0),
                      ctx.boolean("is_causal", false), op);
  Tensor debug = Tensor::zeros(q.dtype(), {0});
  if (ctx.boolean("return_debug_mask", false)) {
    // PyTorch's meta shape: the key length rounded to the kernel's block.
    const int64_t block = e > 64 ? 128 : 256;
    int64_t width = (l + block - 1) / block;
    if (s <= 128) {
      width = 128;
    } else if (s <= 256) {
      width = 256;
    }
    debug = Tensor::zeros(q.dtype(), {b, h, l, width});
  }
  return RValue::list({RValue::of(store<double>(q.dtype(), {b, h, l, e}, a.out)),
                       RValue::of(store<double>(DType::Float32, {b, h, l}, a.lse)), RValue::none(),
                       RValue::none(), RValue::of_int(l), RValue::of_int(s),
                       RValue::of(Tensor::zeros(DType::Int64, {2})),
                       RValue::of(Tensor::zeros(DType::Int64, {})), RValue::of(debug)});
}

// _scaled_dot_product_flash_attention_for_cpu (query, key, value, dropout_p, is_causal, *,
// attn_mask, scale): (output [B, H, L, Ev], logsumexp [B, H, L] float32 laid out [B, L, H]).
RValue flash_attention_cpu(KernelContext& ctx) {
  const std::string op = "_scaled_dot_product_flash_attention_for_cpu";
  Tensor q = ctx.tensor("query");
  Tensor k = ctx.tensor("key");
  Tensor v = ctx.tensor("value");
  check_fused(ctx, q, k, v, op);
  auto mask = ctx.optional_tensor("attn_mask");
  const bool causal = ctx.boolean("is_causal", false);
  const int64_t b = q.size(0), h = q.size(1), l = q.size(2);
  Attention a = fused(ctx, q, k, v, mask, ctx.real("dropout_p", 0.0), causal, op);
  Tensor lse = Tensor::zeros(DType::Float32, {b, l, h}).as_strided({b, h, l}, {l * h, 1, h}, 0);
  for (int64_t f = 0; f < b * h * l; ++f) {
    lse.set_flat(f, Scalar::of_float(a.lse[static_cast<size_t>(f)]));
  }
  return RValue::list(
      {RValue::of(store<double>(q.dtype(), {b, h, l, v.size(3)}, a.out)), RValue::of(lse)});
}

// _scaled_dot_product_efficient_attention (query, key, value, attn_bias, compute_log_sumexp,
// dropout_p, is_causal, *, scale): (output [B, H, L, Ev] laid out [B, L, H, Ev], logsumexp
// [B, H, ceil(L/32)*32] (+inf past L) or [B, H, 0] float32, philox_seed [], philox_offset []).
RValue efficient_attention(KernelContext& ctx) {
  const std::string op = "_scaled_dot_product_efficient_attention";
  Tensor q = ctx.tensor("query");
  Tensor k = ctx.tensor("key");
  Tensor v = ctx.tensor("value");
  check_fused(ctx, q, k, v, op);
  const int64_t b = q.size(0), h = q.size(1), l = q.size(2), ev = v.size(3);
  Attention a = fused(ctx, q, k, v, ctx.optional_tensor("attn_bias"), ctx.real("dropout_p", 0.0),
                      ctx.boolean("is_causal", false), op);
  Tensor out = Tensor::zeros(q.dtype(), {b, l, h, ev})
                   .as_strided({b, h, l, ev}, {l * h * ev, ev, h * ev, 1}, 0);
  for (int64_t f = 0; f < b * h * l * ev; ++f) {
    out.set_flat(f, Scalar::of_float(a.out[static_cast<size_t>(f)]));
  }
  const bool with_lse = ctx.boolean("compute_log_sumexp", false);
  const int64_t width = with_lse ? (l + 31) / 32 * 32 : 0;
  Tensor lse = Tensor::zeros(DType::Float32, {b, h, width});
  for (int64_t row = 0; row < b * h; ++row) {
    for (int64_t i = 0; i < width; ++i) {
      lse.set_flat(row * width + i,
                   Scalar::of_float(i < l ? a.lse[static_cast<size_t>(row * l + i)] : kInf));
    }
  }
  return RValue::list({RValue::of(out), RValue::of(lse),
                       RValue::of(Tensor::zeros(DType::Int64, {})),
                       RValue::of(Tensor::zeros(DType::Int64, {}))});
}

// _scaled_dot_product_attention_math (query, key, value, attn_mask, dropout_p, is_causal,
// dropout_mask, *, scale, enable_gqa): (output, attention weights [..., L, S]), computed
// without fusion: softmax(q k^T * scale + mask) (causal: lower-left triangle), then dropout by
// dropout_mask (zeros dropped, the rest scaled by 1 / (1 - p)) or at random, times v.
RValue attention_math(KernelContext& ctx) {
  const std::string op = "_scaled_dot_product_attention_math";
  const UnfusedAttention u = unfused_attention(ctx, op);
  const int64_t l = u.l, s = u.s, e = u.e, ev = u.ev;
  const double dropout = u.dropout, scale = u.scale;
  const bool causal = u.causal;
  const std::optional<Tensor>& mask = u.mask;
  const std::vector<double>& bias = u.bias;
  auto full = [&](int64_t rows, int64_t cols) { return u.full(rows, cols); };
  std::vector<double> keep;
  if (auto dm = ctx.optional_tensor("dropout_mask")) {
    auto b = broadcast_shapes(full(l, s), dm->sizes());
    if (!b || *b != full(l, s)) {
      ctx.fail(op + ": dropout_mask " + sizes_str(dm->sizes()) +
               " does not broadcast to the attention weights " + sizes_str(full(l, s)));
    }
    keep = load<double>(expand_to(*dm, full(l, s)));
  }
  const int64_t n = product(u.batch);
  const std::vector<double> qv = u.query(), kv = u.key(), vv = u.value();
  std::vector<double> weights(static_cast<size_t>(n * l * s), 0.0);
  std::vector<double> out(static_cast<size_t>(n * l * ev), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < l; ++i) {
      const size_t row = static_cast<size_t>((b * l + i) * s);
      double top = -kInf;
      for (int64_t j = 0; j < s; ++j) {
        double x = 0;
        for (int64_t d = 0; d < e; ++d) {
          x += qv[static_cast<size_t>((b * l + i) * e + d)] *
               kv[static_cast<size_t>((b * s + j) * e + d)];
        }
        x *= scale;
        if (mask) x += bias[row + static_cast<size_t>(j)];
        if (causal && j > i) x = -kInf;
        weights[row + static_cast<size_t>(j)] = x;
        top = std::max(top, x);
      }
      double sum = 0;
      for (int64_t j = 0; j < s; ++j) {
        double& x = weights[row + static_cast<size_t>(j)];
        x = top == -kInf ? std::nan("") : std::exp(x - top);
        sum += x;
      }
      for (int64_t j = 0; j < s; ++j) {
        double& p = weights[row + static_cast<size_t>(j)];
        p /= sum;
        if (!keep.empty()) {
          p = keep[row + static_cast<size_t>(j)] != 0 ? p / (1.0 - dropout) : 0.0;
        } else if (dropout > 0) {
          const double u = static_cast<double>(ctx.rng()() >> 11) * 0x1.0p-53;
          p = u < dropout ? 0.0 : p / (1.0 - dropout);
        }
        for (int64_t d = 0; d < ev; ++d) {
          out[static_cast<size_t>((b * l + i) * ev + d)] +=
              p * vv[static_cast<size_t>((b * s + j) * ev + d)];
        }
      }
    }
  }
  return RValue::list({RValue::of(store<double>(u.q.dtype(), full(l, ev), out)),
                       RValue::of(store<double>(u.q.dtype(), full(l, s), weights))});
}

// _scaled_dot_product_cudnn_attention (query, key, value, attn_bias, compute_log_sumexp,
// dropout_p, is_causal, return_debug_mask, *, scale): (output, logsumexp [B, H, L] float32
// (computed even when compute_log_sumexp is false, as PyTorch's meta always allocates it),
// cum_seq_q, cum_seq_k (None), max_q, max_k, philox_seed [], philox_offset [],
// debug_attn_mask (None)).
RValue cudnn_attention(KernelContext& ctx) {
  const std::string op = "_scaled_dot_product_cudnn_attention";
  Tensor q = ctx.tensor("query");
  Tensor k = ctx.tensor("key");
  Tensor v = ctx.tensor("value");
  check_fused(ctx, q, k, v, op);
  const int64_t b = q.size(0), h = q.size(1), l = q.size(2), s = k.size(2);
  Attention a = fused(ctx, q, k, v, ctx.optional_tensor("attn_bias"), ctx.real("dropout_p", 0.0),
                      ctx.boolean("is_causal", false), op);
  ctx.boolean("compute_log_sumexp", false);
  Tensor lse = store<double>(DType::Float32, {b, h, l}, a.lse);
  return RValue::list({RValue::of(store<double>(q.dtype(), {b, h, l, v.size(3)}, a.out)),
                       RValue::of(lse), RValue::none(), RValue::none(), RValue::of_int(l),
                       RValue::of_int(s), RValue::of(Tensor::zeros(DType::Int64, {})),
                       RValue::of(Tensor::zeros(DType::Int64, {})), RValue::none()});
}

}  // namespace

void register_norm(KernelRegistry& r) {
  register_batch_norm(r);
  r.add("aten.native_layer_norm",
        [](KernelContext& ctx) { return RValue::list(layer_norm(ctx, "native_layer_norm")); });
  r.add("aten.layer_norm", [](KernelContext& ctx) { return layer_norm(ctx, "layer_norm")[0]; });
  r.add("aten.rms_norm", rms_norm);
  r.add("aten._fused_rms_norm", fused_rms_norm);
  r.add("aten.native_layer_norm_backward", layer_norm_backward);
  r.add("aten.native_group_norm", native_group_norm);
  r.add("aten.group_norm", group_norm);
  r.add("aten.native_group_norm_backward", group_norm_backward);

  r.add("aten.scaled_dot_product_attention", sdpa);
  r.add("aten._scaled_dot_product_flash_attention", flash_attention);
  r.add("aten._scaled_dot_product_flash_attention_for_cpu", flash_attention_cpu);
  r.add("aten._scaled_dot_product_efficient_attention", efficient_attention);
  r.add("aten._scaled_dot_product_attention_math", attention_math);
  r.add("aten._scaled_dot_product_cudnn_attention", cudnn_attention);
}

}  // namespace symshape::interp::kernels
