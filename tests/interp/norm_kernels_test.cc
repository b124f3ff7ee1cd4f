// Kernel tests and property-test cases: normalization (batch norm in training and evaluation
// with the running statistics' update, instance, layer, group and RMS norm, and the backward
// ops) and scaled dot-product attention (causal, scale, masks, grouped-query heads, the fused
// variants' logsumexp). Expected forward values were computed with plain Python floats; the
// backward ops are checked against central finite differences of the forward kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;
using Reals = std::vector<double>;

Tensor f64(Sizes sizes, const Reals& v) { return real_tensor(std::move(sizes), v, kF64); }

void expect_near(const Reals& got, const Reals& want, double tol = 1e-9) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
    }
  }
}

// ---- batch norm ----

const Reals kBnX = {-3, -2, 1, -1, -1, 1, -2, -3, -2, 1, -1, -1};  // [2, 2, 3]

TEST(BatchNormKernel, TrainingUsesBatchStatsAndUpdatesRunningStatsInPlace) {
  Tensor x = f64({2, 2, 3}, kBnX), w = f64({2}, {2, -1}), b = f64({2}, {0.5, 1});
  Tensor rm = f64({2}, {1, -1}), rv = f64({2}, {2, 0.5});
  RValue r = call_kernel("aten.native_batch_norm.default",
                         {{"x", x}, {"w", w}, {"b", b}, {"rm", rm}, {"rv", rv}},
                         {T("x"), T("w"), T("b"), T("rm"), T("rv"), B(true), F(0.1), F(1e-5)});
  ASSERT_EQ(r.items.size(), 3u);
  expect_near(reals_of(r.items[0].tensor),
              {-1.2364814755376445, 0.25193121778033645, 4.717169297734278, 1.7071028037444629,
               1.7071028037444629, -0.41420560748892576, 0.25193121778033645, -1.2364814755376445,
               0.25193121778033645, -0.41420560748892576, 1.7071028037444629, 1.7071028037444629});
  expect_near(reals_of(r.items[1].tensor), {-1.8333333333333333, -0.3333333333333333});
  expect_near(reals_of(r.items[2].tensor), {0.7442063466589904, 1.0606542056166943});
  // momentum 0.1, the unbiased variance (n / (n - 1)) for running_var.
  expect_near(reals_of(rm), {0.7166666666666667, -0.9333333333333333});
  expect_near(reals_of(rv), {2.0166666666666666, 0.5566666666666666});
}

TEST(BatchNormKernel, FunctionalVariantReturnsTheUpdateInstead) {
  Tensor x = f64({2, 2, 3}, kBnX), rm = f64({2}, {1, -1}), rv = f64({2}, {2, 0.5});
  RValue r = call_kernel("aten._native_batch_norm_legit_functional.default",
                         {{"x", x}, {"rm", rm}, {"rv", rv}},
                         {T("x"), None(), None(), T("rm"), T("rv"), B(true), F(0.1), F(1e-5)});
  ASSERT_EQ(r.items.size(), 5u);
  expect_near(reals_of(r.items[3].tensor), {0.7166666666666667, -0.9333333333333333});
  expect_near(reals_of(r.items[4].tensor), {2.0166666666666666, 0.5566666666666666});
  expect_near(reals_of(rm), {1, -1});  // untouched
  expect_near(reals_of(rv), {2, 0.5});
}

TEST(BatchNormKernel, EvaluationUsesRunningStatsAndSavesEmptyStats) {
  Tensor x = f64({2, 2, 3}, kBnX), w = f64({2}, {2, -1}), b = f64({2}, {0.5, 1});
  Tensor rm = f64({2}, {1, -1}), rv = f64({2}, {2, 0.5});
  std::vector<std::pair<std::string, Tensor>> in = {
      {"x", x}, {"w", w}, {"b", b}, {"rm", rm}, {"rv", rv}};
  RValue r = call_kernel("aten._native_batch_norm_legit_no_training.default", in,
                         {T("x"), T("w"), T("b"), T("rm"), T("rv"), F(0.1), F(1e-5)});
  const Reals expected = {-5.156840107409789,
                          -3.7426300805573414,
                          0.5,
                          1.0,
                          1.0,
                          -1.8283988408992,
                          -3.7426300805573414,
                          -5.156840107409789,
                          -3.7426300805573414,
                          -1.8283988408992,
                          1.0,
                          1.0};
  expect_near(reals_of(r.items[0].tensor), expected);
  EXPECT_EQ(r.items[1].tensor.sizes(), (Sizes{0}));
  EXPECT_EQ(r.items[2].tensor.sizes(), (Sizes{0}));
  Tensor out =
      call_tensor("aten.batch_norm.default", in,
                  {T("x"), T("w"), T("b"), T("rm"), T("rv"), B(false), F(0.1), F(1e-5), B(false)});
  expect_near(reals_of(out), expected);
  expect_near(reals_of(rm), {1, -1});  // evaluation does not update
  std::string e = run_error([&] {
    call_kernel("aten.native_batch_norm.default", {{"x", x}},
                {T("x"), None(), None(), None(), None(), B(false), F(0.1), F(1e-5)});
  });
  EXPECT_TRUE(Contains(e, "running_mean and running_var must be defined")) << e;
}

TEST(InstanceNormKernel, NormalizesEachSampleAndChannel) {
  // x [2, 1, 2]: rows [1, 3] and [0, 4]; each normalizes to [-1, 1] (up to eps).
  Tensor x = f64({2, 1, 2}, {1, 3, 0, 4}), rm = f64({1}, {0}), rv = f64({1}, {1});
  Tensor out =
      call_tensor("aten.instance_norm.default", {{"x", x}, {"rm", rm}, {"rv", rv}},
                  {T("x"), None(), None(), T("rm"), T("rv"), B(true), F(0.5), F(0), B(false)});
  expect_near(reals_of(out), {-1, 1, -1, 1});
  // running stats: the mean over the batch of each instance's update, means 2 and 2, unbiased
  // variances 2 and 8: 0.5 * 0 + 0.5 * 2 = 1, 0.5 * 1 + 0.5 * 5 = 3.
  expect_near(reals_of(rm), {1});
  expect_near(reals_of(rv), {3});
}

// ---- layer, group and RMS norm ----

TEST(LayerNormKernel, OutputAndStatistics) {
  Tensor x = f64({2, 4}, {1, 2, 3, 4, 2, 4, 6, 9});
  Tensor w = f64({4}, {1, 2, 0.5, -1}), b = f64({4}, {0, 1, -1, 0.5});
  RValue r = call_kernel("aten.native_layer_norm.default", {{"x", x}, {"w", w}, {"b", b}},
                         {T("x"), Ints({4}), T("w"), T("b"), F(1e-5)});
  expect_near(
      reals_of(r.items[0].tensor),
      {-1.3416354199689269, 0.105576386687382, -0.7763940966718454, -0.8416354199689269,
       -1.2567564961286888, 0.033264233747162475, -0.8549896350620744, -0.9501036493792563});
  EXPECT_EQ(r.items[1].tensor.sizes(), (Sizes{2, 1}));
  expect_near(reals_of(r.items[1].tensor), {2.5, 5.25});
  expect_near(reals_of(r.items[2].tensor), {0.894423613312618, 0.386694306501135});
  // float32 rounds the output.
  Tensor f = call_tensor("aten.layer_norm.default", {{"x", x.to(kF32)}}, {T("x"), Ints({4})});
  EXPECT_EQ(f.dtype(), kF32);
  EXPECT_NEAR(reals_of(f)[0], -1.3416354199689269, 1e-6);
  std::string e = run_error([&] {
    call_kernel("aten.native_layer_norm.default", {{"x", x}}, {T("x"), Ints({3})});
  });
  EXPECT_TRUE(Contains(e, "given normalized_shape=[3], expected input with shape [*, 3]")) << e;
}

TEST(GroupNormKernel, StatisticsPerSampleAndGroup) {
  Tensor x = f64({1, 4, 2}, {1, 3, -2, 0, 5, 5, 1, -1});
  Tensor w = f64({4}, {1, 2, 3, 4}), b = f64({4}, {0, 0, 1, 1});
  RValue r = call_kernel("aten.native_group_norm.default", {{"x", x}, {"w", w}, {"b", b}},
                         {T("x"), T("w"), T("b"), I(1), I(4), I(2), I(2), F(1e-5)});
  const Reals expected = {0.2773496714211406,  1.3867483571057029, -2.7734967142114058,
                          -0.5546993428422812, 3.8867492076161745, 3.8867492076161745,
                          -1.3093993660929395, -4.388598520883526};
  expect_near(reals_of(r.items[0].tensor), expected);
  EXPECT_EQ(r.items[1].tensor.sizes(), (Sizes{1, 2}));
  expect_near(reals_of(r.items[1].tensor), {0.5, 2.5});
  expect_near(reals_of(r.items[2].tensor), {0.5546993428422812, 0.38489989434882327});
  Tensor out = call_tensor("aten.group_norm.default", {{"x", x}, {"w", w}, {"b", b}},
                           {T("x"), I(2), T("w"), T("b")});
  expect_near(reals_of(out), expected);
  std::string e = run_error([&] {
    call_tensor("aten.group_norm.default", {{"x", x}}, {T("x"), I(3)});
  });
  EXPECT_TRUE(Contains(e, "divisible by num_groups")) << e;
}

TEST(RmsNormKernel, DefaultEpsIsTheDtypeEpsilon) {
  Tensor x = f64({2, 2}, {3, 4, 1, -1}), w = f64({2}, {2, 0.5});
  Tensor out = call_tensor("aten.rms_norm.default", {{"x", x.to(kF32)}, {"w", w.to(kF32)}},
                           {T("x"), Ints({2}), T("w")});
  EXPECT_EQ(out.dtype(), kF32);
  expect_near(reals_of(out),
              {1.6970562667555191, 0.5656854222518397, 1.999999880790721, -0.4999999701976803},
              1e-7);
  Tensor exact =
      call_tensor("aten.rms_norm.default", {{"x", x}}, {T("x"), Ints({2}), None(), F(0)});
  expect_near(reals_of(exact), {0.848528137423857, 1.131370849898476, 1, -1}, 1e-12);
}

// ---- backward ops: central finite differences of the forward kernels ----

// The gradient of sum(forward(values) * weights) with respect to values.
Reals numeric_grad(const std::function<Reals(const Reals&)>& forward, Reals values,
                   const Reals& weights) {
  const double h = 1e-6;
  Reals grad;
  for (size_t i = 0; i < values.size(); ++i) {
    const double keep = values[i];
    double loss[2];
    for (int s = 0; s < 2; ++s) {
      values[i] = keep + (s ? -h : h);
      Reals y = forward(values);
      loss[s] = 0;
      for (size_t k = 0; k < y.size(); ++k) loss[s] += y[k] * weights[k];
    }
    values[i] = keep;
    grad.push_back((loss[0] - loss[1]) / (2 * h));
  }
  return grad;
}

TEST(NormBackwardKernel, LayerNormMatchesFiniteDifferences) {
  const Reals xv = {1, 2, 3, 4.5, 2, -4, 6, 9}, wv = {1, 2, 0.5, -1}, bv = {0, 1, -1, 0.5};
  const Reals gv = {0.5, -1, 2, 1, 1, 0.25, -0.5, 3};
  auto forward = [&](const Reals& x, const Reals& w, const Reals& b) {
    RValue r = call_kernel("aten.native_layer_norm.default",
                           {{"x", f64({2, 4}, x)}, {"w", f64({4}, w)}, {"b", f64({4}, b)}},
                           {T("x"), Ints({4}), T("w"), T("b"), F(1e-5)});
    return r;
  };
  RValue fwd = forward(xv, wv, bv);
  RValue grads = call_kernel("aten.native_layer_norm_backward.default",
                             {{"g", f64({2, 4}, gv)},
                              {"x", f64({2, 4}, xv)},
                              {"m", fwd.items[1].tensor},
                              {"r", fwd.items[2].tensor},
                              {"w", f64({4}, wv)},
                              {"b", f64({4}, bv)}},
                             {T("g"), T("x"), Ints({4}), T("m"), T("r"), T("w"), T("b"),
                              List({B(true), B(true), B(true)})});
  auto out_of = [](const RValue& r) { return reals_of(r.items[0].tensor); };
  expect_near(reals_of(grads.items[0].tensor),
              numeric_grad([&](const Reals& x) { return out_of(forward(x, wv, bv)); }, xv, gv),
              1e-6);
  expect_near(reals_of(grads.items[1].tensor),
              numeric_grad([&](const Reals& w) { return out_of(forward(xv, w, bv)); }, wv, gv),
              1e-6);
  expect_near(reals_of(grads.items[2].tensor),
              numeric_grad([&](const Reals& b) { return out_of(forward(xv, wv, b)); }, bv, gv),
              1e-6);
  // Without weight and bias their grads are None.
  RValue none = call_kernel("aten.native_layer_norm_backward.default",
                            {{"g", f64({2, 4}, gv)},
                             {"x", f64({2, 4}, xv)},
                             {"m", fwd.items[1].tensor},
                             {"r", fwd.items[2].tensor}},
                            {T("g"), T("x"), Ints({4}), T("m"), T("r"), None(), None(),
                             List({B(true), B(true), B(true)})});
  EXPECT_EQ(none.str(), "(float64[2, 4], None, None)");
}

TEST(NormBackwardKernel, BatchNormMatchesFiniteDifferences) {
  const Reals xv = {-3, -2, 1.5, -1, -1, 1, -2, -3, -2, 1, -1, 0.5}, wv = {2, -1};
  const Reals gv = {0.5, -1, 2, 1, 1, 0.25, -0.5, 3, 1, 1, -2, 0};
  const Reals rmv = {1, -1}, rvv = {2, 0.5};
  for (bool train : {true, false}) {
    auto forward = [&](const Reals& x, const Reals& w) {
      return call_kernel("aten.native_batch_norm.default",
                         {{"x", f64({2, 2, 3}, x)},
                          {"w", f64({2}, w)},
                          {"rm", f64({2}, rmv)},
                          {"rv", f64({2}, rvv)}},
                         {T("x"), T("w"), None(), T("rm"), T("rv"), B(train), F(0.1), F(1e-5)});
    };
    RValue fwd = forward(xv, wv);
    std::vector<std::pair<std::string, Tensor>> in = {{"g", f64({2, 2, 3}, gv)},
                                                      {"x", f64({2, 2, 3}, xv)},
                                                      {"w", f64({2}, wv)},
                                                      {"rm", f64({2}, rmv)},
                                                      {"rv", f64({2}, rvv)}};
    std::vector<Arg> args = {T("g"), T("x"), T("w"), T("rm"), T("rv")};
    if (train) {
      in.push_back({"sm", fwd.items[1].tensor});
      in.push_back({"si", fwd.items[2].tensor});
      args.insert(args.end(), {T("sm"), T("si")});
    } else {
      args.insert(args.end(), {None(), None()});
    }
    args.insert(args.end(), {B(train), F(1e-5), List({B(true), B(true), B(true)})});
    RValue grads = call_kernel("aten.native_batch_norm_backward.default", in, args);
    auto out_of = [](const RValue& r) { return reals_of(r.items[0].tensor); };
    expect_near(reals_of(grads.items[0].tensor),
                numeric_grad([&](const Reals& x) { return out_of(forward(x, wv)); }, xv, gv), 1e-6);
    expect_near(reals_of(grads.items[1].tensor),
                numeric_grad([&](const Reals& w) { return out_of(forward(xv, w)); }, wv, gv), 1e-6);
    Reals sums = {0, 0};
    for (size_t i = 0; i < gv.size(); ++i) sums[(i / 3) % 2] += gv[i];
    expect_near(reals_of(grads.items[2].tensor), sums);
  }
}

TEST(NormBackwardKernel, GroupNormMatchesFiniteDifferences) {
  const Reals xv = {1, 3, -2, 0, 5, 5.5, 1, -1, 2, 0, 0, 1, -3, 2, 4, 1};  // [2, 4, 2]
  const Reals wv = {1, 2, 3, -4}, bv = {0, 0, 1, 1};
  const Reals gv = {0.5, -1, 2, 1, 1, 0.25, -0.5, 3, 1, -1, 2, 0, 0, 1, 1, -2};
  auto forward = [&](const Reals& x, const Reals& w, const Reals& b) {
    return call_kernel("aten.native_group_norm.default",
                       {{"x", f64({2, 4, 2}, x)}, {"w", f64({4}, w)}, {"b", f64({4}, b)}},
                       {T("x"), T("w"), T("b"), I(2), I(4), I(2), I(2), F(1e-5)});
  };
  RValue fwd = forward(xv, wv, bv);
  RValue grads = call_kernel("aten.native_group_norm_backward.default",
                             {{"g", f64({2, 4, 2}, gv)},
                              {"x", f64({2, 4, 2}, xv)},
                              {"m", fwd.items[1].tensor},
                              {"r", fwd.items[2].tensor},
                              {"w", f64({4}, wv)}},
                             {T("g"), T("x"), T("m"), T("r"), T("w"), I(2), I(4), I(2), I(2),
                              List({B(true), B(true), B(true)})});
  auto out_of = [](const RValue& r) { return reals_of(r.items[0].tensor); };
  expect_near(reals_of(grads.items[0].tensor),
              numeric_grad([&](const Reals& x) { return out_of(forward(x, wv, bv)); }, xv, gv),
              1e-6);
  expect_near(reals_of(grads.items[1].tensor),
              numeric_grad([&](const Reals& w) { return out_of(forward(xv, w, bv)); }, wv, gv),
              1e-6);
  expect_near(reals_of(grads.items[2].tensor),
              numeric_grad([&](const Reals& b) { return out_of(forward(xv, wv, b)); }, bv, gv),
              1e-6);
}

// ---- attention ----

const Reals kQ = {1, 0, 0, 2}, kK = {1, 1, 0, 1, -1, 2}, kV = {1, 2, 3, 4, -1, 0};

std::vector<std::pair<std::string, Tensor>> qkv(Sizes prefix, DType dtype = kF64) {
  auto with = [&](Sizes tail) {
    Sizes s = prefix;
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  return {{"q", real_tensor(with({2, 2}), kQ, dtype)},
          {"k", real_tensor(with({3, 2}), kK, dtype)},
          {"v", real_tensor(with({3, 2}), kV, dtype)}};
}

TEST(AttentionKernel, SoftmaxOfScaledScores) {
  Tensor out =
      call_tensor("aten.scaled_dot_product_attention.default", qkv({1}), {T("q"), T("k"), T("v")});
  EXPECT_EQ(out.sizes(), (Sizes{1, 2, 2}));
  expect_near(reals_of(out),
              {1.287932329395764, 2.287932329395764, -0.018525395127930944, 0.9814746048720691});
  // Causal: query i sees keys 0..i (top-left aligned).
  Tensor causal = call_tensor("aten.scaled_dot_product_attention.default", qkv({1}),
                              {T("q"), T("k"), T("v"), None(), F(0), B(true)});
  expect_near(reals_of(causal), {1, 2, 2, 3});
  // scale 0.5 and a boolean mask (false = masked), broadcast from [2, 3].
  auto in = qkv({1});
  in.push_back({"m", int_tensor({2, 3}, {1, 0, 1, 1, 1, 0}, DType::Bool)});
  Tensor masked = call_tensor("aten.scaled_dot_product_attention.default", in,
                              {T("q"), T("k"), T("v"), T("m")}, {{"scale", F(0.5)}});
  expect_near(reals_of(masked), {0.4621171572600098, 1.4621171572600098, 2.0, 3.0});
  // An additive float mask of 0 / -inf is the same.
  in.back().second = f64({2, 3}, {0, -kInf, 0, 0, 0, -kInf});
  expect_near(reals_of(call_tensor("aten.scaled_dot_product_attention.default", in,
                                   {T("q"), T("k"), T("v"), T("m")}, {{"scale", F(0.5)}})),
              {0.4621171572600098, 1.4621171572600098, 2.0, 3.0});
  // Dropout with p = 1 drops every weight.
  expect_near(reals_of(call_tensor("aten.scaled_dot_product_attention.default", qkv({1}),
                                   {T("q"), T("k"), T("v"), None(), F(1.0)})),
              {0, 0, 0, 0});
  std::string e = run_error([&] {
    call_tensor("aten.scaled_dot_product_attention.default", in,
                {T("q"), T("k"), T("v"), T("m"), F(0), B(true)});
  });
  EXPECT_TRUE(Contains(e, "attn_mask should not be set when is_causal")) << e;
}

TEST(AttentionKernel, GroupedQueryHeadsRepeatKeyAndValueHeads) {
  // q has 2 heads that both read the single key / value head.
  Tensor q = f64({1, 2, 2, 2}, {1, 0, 0, 2, 1, 0, 0, 2});
  Tensor k = f64({1, 1, 3, 2}, kK), v = f64({1, 1, 3, 2}, kV);
  Tensor out =
      call_tensor("aten.scaled_dot_product_attention.default", {{"q", q}, {"k", k}, {"v", v}},
                  {T("q"), T("k"), T("v")}, {{"enable_gqa", B(true)}});
  EXPECT_EQ(out.sizes(), (Sizes{1, 2, 2, 2}));
  const Reals one = {1.287932329395764, 2.287932329395764, -0.018525395127930944,
                     0.9814746048720691};
  Reals both = one;
  both.insert(both.end(), one.begin(), one.end());
  expect_near(reals_of(out), both);
}

TEST(AttentionKernel, FusedVariantsReturnLogsumexp) {
  RValue flash = call_kernel("aten._scaled_dot_product_flash_attention.default", qkv({1, 1}),
                             {T("q"), T("k"), T("v"), F(0), B(true), B(true)});
  ASSERT_EQ(flash.items.size(), 9u);
  expect_near(reals_of(flash.items[0].tensor), {1, 2, 2, 3});
  EXPECT_EQ(flash.items[1].tensor.dtype(), kF32);
  expect_near(reals_of(flash.items[1].tensor), {0.7071067811865475, 2.1073607429330403}, 1e-6);
  EXPECT_EQ(flash.items[4].integer, 2);
  EXPECT_EQ(flash.items[5].integer, 3);
  EXPECT_EQ(flash.items[8].tensor.sizes(), (Sizes{1, 1, 2, 128}));

  auto in = qkv({1, 1});
  in.push_back({"m", f64({2, 3}, {0, -kInf, 0, 0, 0, -kInf})});
  RValue cpu = call_kernel("aten._scaled_dot_product_flash_attention_for_cpu.default", in,
                           {T("q"), T("k"), T("v"), F(0), B(false)},
                           {{"attn_mask", T("m")}, {"scale", F(0.5)}});
  expect_near(reals_of(cpu.items[0].tensor), {0.4621171572600098, 1.4621171572600098, 2.0, 3.0});
  expect_near(reals_of(cpu.items[1].tensor), {0.8132616875182228, 1.6931471805599454}, 1e-6);

  RValue eff = call_kernel("aten._scaled_dot_product_efficient_attention.default", qkv({1, 1}),
                           {T("q"), T("k"), T("v"), None(), B(true), F(0), B(false)});
  const Tensor& out = eff.items[0].tensor;
  EXPECT_EQ(out.sizes(), (Sizes{1, 1, 2, 2}));
  EXPECT_EQ(out.strides(), (Sizes{4, 2, 2, 1}));
  expect_near(reals_of(out),
              {1.287932329395764, 2.287932329395764, -0.018525395127930944, 0.9814746048720691});
  // logsumexp padded to 32 rows with +inf.
  Reals lse = reals_of(eff.items[1].tensor);
  ASSERT_EQ(lse.size(), 32u);
  EXPECT_NEAR(lse[0], 1.258797203834439, 1e-6);
  EXPECT_NEAR(lse[1], 3.224672170994607, 1e-6);
  EXPECT_EQ(lse[2], kInf);
}

// ---- property-test cases ----

// x [n, c, t] with per-channel weight, bias and running stats [c].
std::vector<Input> bn_inputs() {
  return {in("x", {"n", "c", "t"}), in("w", {"c"}), in("b", {"c"}), in("rm", {"c"}),
          in("rv", {"c"})};
}

OpCase bn_case(const std::string& name, const std::string& target, std::vector<Arg> extra) {
  std::vector<Arg> args = {T("x"), T("w"), T("b"), T("rm"), T("rv")};
  args.insert(args.end(), extra.begin(), extra.end());
  return {name,
          bn_inputs(),
          {{"op", target, std::move(args)}},
          {Dim("n", 3, 2, 5), Dim("c", 4, 1, 6), Dim("t", 5, 1, 6)}};
}

std::vector<std::pair<std::string, DimDecl>> attention_dims() {
  return {Dim("b", 2, 1, 3), Dim("h", 2, 1, 3), Dim("l", 5, 1, 40), Dim("s", 6, 1, 9),
          Dim("e", 4, 1, 6)};
}

OpCase attention_case(const std::string& name, const std::string& target, std::vector<Input> inputs,
                      std::vector<Arg> args, Kwargs kwargs = {}) {
  return {name,
          std::move(inputs),
          {{"op", target, std::move(args), std::move(kwargs)}},
          attention_dims()};
}

}  // namespace

std::vector<OpCase> norm_cases() {
  const std::vector<Input> qkv4 = {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}),
                                   in("v", {"b", "h", "s", "e"})};
  return {
      bn_case("native_batch_norm.train", "aten.native_batch_norm.default",
              {B(true), F(0.1), F(1e-5)}),
      bn_case("native_batch_norm.eval", "aten.native_batch_norm.default",
              {B(false), F(0.1), F(1e-5)}),
      bn_case("_native_batch_norm_legit", "aten._native_batch_norm_legit.default",
              {B(true), F(0.1), F(1e-5)}),
      {"_native_batch_norm_legit.no_stats",
       {in("x", {"n", "c", "t"}), in("w", {"c"})},
       {{"op",
         "aten._native_batch_norm_legit.no_stats",
         {T("x"), T("w"), None(), B(true), F(0.1), F(1e-5)}}},
       {Dim("n", 3, 2, 5)}},
      bn_case("_native_batch_norm_legit_no_training",
              "aten._native_batch_norm_legit_no_training.default", {F(0.1), F(1e-5)}),
      bn_case("_native_batch_norm_legit_functional",
              "aten._native_batch_norm_legit_functional.default", {B(true), F(0.1), F(1e-5)}),
      bn_case("batch_norm", "aten.batch_norm.default", {B(false), F(0.1), F(1e-5), B(false)}),
      bn_case("batch_norm.train", "aten.batch_norm.default", {B(true), F(0.1), F(1e-5), B(false)}),
      bn_case("_batch_norm_with_update", "aten._batch_norm_with_update.default", {F(0.1), F(1e-5)}),
      bn_case("_batch_norm_with_update_functional",
              "aten._batch_norm_with_update_functional.default", {F(0.1), F(1e-5)}),
      bn_case("_batch_norm_no_update", "aten._batch_norm_no_update.default", {F(0.1), F(1e-5)}),
      bn_case("instance_norm", "aten.instance_norm.default", {B(true), F(0.1), F(1e-5), B(false)}),
      {"instance_norm.running",
       {in("x", {"n", "c", "t", "t"}), in("rm", {"c"}), in("rv", {"c"})},
       {{"op",
         "aten.instance_norm.default",
         {T("x"), None(), None(), T("rm"), T("rv"), B(false), F(0.1), F(1e-5), B(false)}}}},
      {"native_batch_norm_backward",
       {in("g", {"n", "c", "t"}), in("x", {"n", "c", "t"}), in("w", {"c"})},
       {{"op",
         "aten.native_batch_norm_backward.default",
         {T("g"), T("x"), T("w"), None(), None(), None(), None(), B(true), F(1e-5),
          List({B(true), B(true), B(false)})}}},
       {Dim("n", 3, 2, 5)}},
      {"native_layer_norm",
       {in("x", {"b", "s", "d"}), in("w", {"d"}), in("bias", {"d"})},
       {{"op",
         "aten.native_layer_norm.default",
         {T("x"), List({E("d")}), T("w"), T("bias"), F(1e-5)}}}},
      {"native_layer_norm.two_dims",
       {in("x", {"b", "s", "d"})},
       {{"op",
         "aten.native_layer_norm.default",
         {T("x"), List({E("s"), E("d")}), None(), None(), F(1e-5)}}}},
      {"layer_norm",
       {in("x", {"b", "d"}), in("w", {"d"})},
       {{"op", "aten.layer_norm.default", {T("x"), List({E("d")}), T("w")}}}},
      {"rms_norm",
       {in("x", {"b", "s", "d"}), in("w", {"d"})},
       {{"op", "aten.rms_norm.default", {T("x"), List({E("d")}), T("w")}}}},
      {"native_layer_norm_backward",
       {in("g", {"b", "d"}), in("x", {"b", "d"}), in("m", {"b", "1"}), in("r", {"b", "1"}),
        in("w", {"d"})},
       {{"op",
         "aten.native_layer_norm_backward.default",
         {T("g"), T("x"), List({E("d")}), T("m"), T("r"), T("w"), None(),
          List({B(true), B(true), B(true)})}}}},
      {"native_group_norm",
       {in("x", {"n", "6", "h", "w"}), in("wt", {"6"}), in("bias", {"6"})},
       {{"op",
         "aten.native_group_norm.default",
         {T("x"), T("wt"), T("bias"), E("n"), I(6), E("h*w"), I(3), F(1e-5)}}}},
      {"group_norm",
       {in("x", {"n", "8", "t"})},
       {{"op", "aten.group_norm.default", {T("x"), I(4), None(), None(), F(1e-5)}}}},
      {"native_group_norm_backward",
       {in("g", {"n", "6", "t"}), in("x", {"n", "6", "t"}), in("m", {"n", "2"}),
        in("r", {"n", "2"}), in("wt", {"6"})},
       {{"op",
         "aten.native_group_norm_backward.default",
         {T("g"), T("x"), T("m"), T("r"), T("wt"), E("n"), I(6), E("t"), I(2),
          List({B(true), B(true), B(true)})}}}},
      attention_case("scaled_dot_product_attention", "aten.scaled_dot_product_attention.default",
                     qkv4, {T("q"), T("k"), T("v")}),
      attention_case(
          "scaled_dot_product_attention.causal_broadcast",
          "aten.scaled_dot_product_attention.default",
          {in("q", {"b", "h", "l", "e"}), in("k", {"1", "s", "e"}), in("v", {"h", "s", "e"})},
          {T("q"), T("k"), T("v"), None(), F(0.0), B(true)}, {{"scale", F(0.3)}}),
      attention_case("scaled_dot_product_attention.mask",
                     "aten.scaled_dot_product_attention.default",
                     {in("q", {"l", "e"}), in("k", {"s", "e"}), in("v", {"s", "h"}),
                      in("m", {"l", "s"}, DType::Bool)},
                     {T("q"), T("k"), T("v"), T("m"), F(0.5)}),
      attention_case("scaled_dot_product_attention.gqa",
                     "aten.scaled_dot_product_attention.default",
                     {in("q", {"b", "4", "l", "e"}), in("k", {"b", "2", "s", "e"}),
                      in("v", {"b", "2", "s", "e"})},
                     {T("q"), T("k"), T("v")}, {{"enable_gqa", B(true)}}),
      attention_case("_scaled_dot_product_flash_attention",
                     "aten._scaled_dot_product_flash_attention.default", qkv4,
                     {T("q"), T("k"), T("v"), F(0.0), B(false), B(true)}),
      attention_case("_scaled_dot_product_flash_attention_for_cpu",
                     "aten._scaled_dot_product_flash_attention_for_cpu.default",
                     {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}),
                      in("v", {"b", "h", "s", "d"}), in("m", {"l", "s"})},
                     {T("q"), T("k"), T("v"), F(0.0), B(false)}, {{"attn_mask", T("m")}}),
      attention_case("_scaled_dot_product_efficient_attention",
                     "aten._scaled_dot_product_efficient_attention.default",
                     {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}),
                      in("v", {"b", "h", "s", "d"})},
                     {T("q"), T("k"), T("v"), None(), B(true), F(0.0), B(true)}),
  };
}

}  // namespace symshape::testing
