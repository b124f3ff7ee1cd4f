// Reduction kernels: hand-computed sums, means, variances, orderings with NaN and ties, scans,
// softmax and its backward, norms; and the op cases of the shape property test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

void expect_reduction_reals(const Tensor& t, const std::vector<double>& expected,
                            double tol = 1e-12) {
  std::vector<double> got = reals_of(t);
  ASSERT_EQ(got.size(), expected.size()) << t.str();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " of " << t.str() << " is " << got[i];
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i << " of " << t.str();
    } else {
      EXPECT_NEAR(got[i], expected[i], tol) << "element " << i << " of " << t.str();
    }
  }
}

using Sizes = std::vector<int64_t>;
using Values = std::vector<int64_t>;

// (values, indices) of target(x, args...).
std::pair<Tensor, Tensor> pair_on(const std::string& target, const Tensor& x,
                                  std::vector<Arg> args = {}, Kwargs kwargs = {}) {
  args.insert(args.begin(), T("x"));
  RValue v = call_kernel(target, {{"x", x}}, std::move(args), std::move(kwargs));
  if (v.items.size() != 2) throw std::runtime_error(target + " did not return a pair: " + v.str());
  return {v.items[0].tensor, v.items[1].tensor};
}

// ---- sums and means ----

TEST(ReductionKernels, SumDtypesAndShapes) {
  Tensor x = int_tensor({2, 3}, {1, 2, 3, 4, 5, 6}, I32);
  Tensor rows = on("aten.sum.dim_IntList", x, {Ints({1})});
  EXPECT_EQ(rows.dtype(), I64);
  EXPECT_EQ(rows.sizes(), (Sizes{2}));
  EXPECT_EQ(ints_of(rows), (Values{6, 15}));
  Tensor kept = on("aten.sum.dim_IntList", x, {I(0), B(true)});
  EXPECT_EQ(kept.sizes(), (Sizes{1, 3}));
  EXPECT_EQ(ints_of(kept), (Values{5, 7, 9}));
  Tensor all = on("aten.sum", x);
  EXPECT_EQ(all.sizes(), (Sizes{}));
  EXPECT_EQ(ints_of(all), (Values{21}));
  Tensor neg = on("aten.sum.dim_IntList", x, {Ints({-1, 0})});
  EXPECT_EQ(ints_of(neg), (Values{21}));
  // Bools count; dtype= casts first (2.7 + 2.7 in int32 is 4).
  EXPECT_EQ(ints_of(on("aten.sum", int_tensor({3}, {1, 0, 1}, B8))), (Values{2}));
  Tensor cast = on("aten.sum", real_tensor({2}, {2.7, 2.7}), {}, {{"dtype", D(I32)}});
  EXPECT_EQ(cast.dtype(), I32);
  EXPECT_EQ(ints_of(cast), (Values{4}));
  // int64 sums and products wrap.
  EXPECT_EQ(ints_of(on("aten.sum", int_tensor({2}, {kMax, 1}))), (Values{kMin}));
  EXPECT_EQ(ints_of(on("aten.prod", int_tensor({2}, {int64_t{1} << 32, int64_t{1} << 32}))),
            (Values{0}));
  EXPECT_EQ(ints_of(on("aten.prod.dim_int", int_tensor({2, 2}, {2, 3, 4, 5}), {I(1)})),
            (Values{6, 20}));
  // A dim listed twice is refused.
  std::string e = run_error([&] { on("aten.sum.dim_IntList", x, {Ints({1, -1})}); });
  EXPECT_TRUE(Contains(e, "more than once")) << e;
}

TEST(ReductionKernels, MeanAndNaNAwareReductions) {
  Tensor x = real_tensor({2, 2}, {1, 2, 3, 4});
  expect_reduction_reals(on("aten.mean.dim", x, {Ints({0})}), {2, 3});
  Tensor ints = int_tensor({4}, {1, 2, 3, 4});
  std::string e = run_error([&] { on("aten.mean", ints); });
  EXPECT_TRUE(Contains(e, "could not infer output dtype")) << e;
  Tensor m = on("aten.mean", ints, {}, {{"dtype", D(F64)}});
  EXPECT_EQ(m.dtype(), F64);
  expect_reduction_reals(m, {2.5});
  Tensor with_nan = real_tensor({3}, {1, kNaN, 2});
  expect_reduction_reals(on("aten.sum", with_nan), {kNaN});
  expect_reduction_reals(on("aten.nansum", with_nan), {3});
  expect_reduction_reals(on("aten.mean", with_nan), {kNaN});
  expect_reduction_reals(on("aten.nanmean", with_nan), {1.5});
  // The mean of nothing is NaN.
  expect_reduction_reals(on("aten.mean.dim", real_tensor({0, 2}, {}), {Ints({0})}), {kNaN, kNaN});
}

TEST(ReductionKernels, VarianceAndCorrection) {
  // [1, 2, 3, 4]: mean 2.5, squared deviations sum to 5.
  Tensor x = real_tensor({4}, {1, 2, 3, 4}, F64);
  expect_reduction_reals(on("aten.var.dim", x, {Ints({0})}), {5.0 / 3});
  expect_reduction_reals(on("aten.var.dim", x, {Ints({0}), B(false)}), {1.25});
  expect_reduction_reals(on("aten.var.correction", x, {Ints({0})}, {{"correction", I(0)}}), {1.25});
  expect_reduction_reals(on("aten.var.correction", x, {None()}, {{"correction", I(2)}}), {2.5});
  expect_reduction_reals(on("aten.std.dim", x, {Ints({0})}), {std::sqrt(5.0 / 3)});
  expect_reduction_reals(on("aten.var.default", x, {B(false)}), {1.25});
  expect_reduction_reals(on("aten.std.default", x), {std::sqrt(5.0 / 3)});
  auto [v, m] = pair_on("aten.var_mean.correction", x, {Ints({0})}, {{"correction", I(1)}});
  expect_reduction_reals(v, {5.0 / 3});
  expect_reduction_reals(m, {2.5});
  auto [s, m2] = pair_on("aten.std_mean.default", real_tensor({2, 2}, {1, 2, 3, 4}), {B(false)});
  EXPECT_EQ(s.sizes(), (Sizes{}));
  expect_reduction_reals(s, {std::sqrt(1.25)}, 1e-6);
  expect_reduction_reals(m2, {2.5});
  // keepdim at position 3.
  Tensor rows =
      on("aten.var.dim", real_tensor({2, 2}, {1, 3, 5, 9}), {Ints({1}), B(true), B(true)});
  EXPECT_EQ(rows.sizes(), (Sizes{2, 1}));
  expect_reduction_reals(rows, {2, 8});
  // Too few elements for the correction: 0 / 0 is NaN, positive / 0 is inf.
  expect_reduction_reals(on("aten.var.dim", real_tensor({1}, {1}), {Ints({0})}), {kNaN});
  expect_reduction_reals(
      on("aten.var.correction", real_tensor({2}, {1, 3}), {Ints({0})}, {{"correction", I(3)}}),
      {kInf});
  // Complex: the variance of |x - mean|, a real result.
  Tensor c = Tensor::from(C64, {2}, {Scalar::of_complex({1, 1}), Scalar::of_complex({-1, -1})});
  Tensor cv = on("aten.var.dim", c, {Ints({0})});
  EXPECT_EQ(cv.dtype(), F32);
  expect_reduction_reals(cv, {4});
  std::string e = run_error([] { on("aten.var.dim", int_tensor({2}, {1, 2}), {Ints({0})}); });
  EXPECT_TRUE(Contains(e, "floating point")) << e;
}

// ---- orderings ----

TEST(ReductionKernels, ArgmaxFirstOccurrenceAndNaN) {
  Tensor x = real_tensor({2, 2}, {1, 5, 5, 2});
  Tensor flat = on("aten.argmax", x);
  EXPECT_EQ(flat.dtype(), I64);
  EXPECT_EQ(flat.sizes(), (Sizes{}));
  EXPECT_EQ(ints_of(flat), (Values{1}));
  EXPECT_EQ(on("aten.argmax", x, {None(), B(true)}).sizes(), (Sizes{1, 1}));
  EXPECT_EQ(ints_of(on("aten.argmax", x, {I(0)})), (Values{1, 0}));
  Tensor kept = on("aten.argmin", x, {I(1), B(true)});
  EXPECT_EQ(kept.sizes(), (Sizes{2, 1}));
  EXPECT_EQ(ints_of(kept), (Values{0, 1}));
  // NaN is the maximum and the minimum: its first index.
  Tensor nan = real_tensor({4}, {1, kNaN, 3, kNaN});
  EXPECT_EQ(ints_of(on("aten.argmax", nan)), (Values{1}));
  EXPECT_EQ(ints_of(on("aten.argmin", nan)), (Values{1}));
  std::string e = run_error([] { on("aten.argmax", real_tensor({0}, {})); });
  EXPECT_TRUE(Contains(e, "non-empty")) << e;
}

TEST(ReductionKernels, MaxMinOverloads) {
  Tensor x = int_tensor({2, 3}, {1, 5, 5, 7, 2, 7});
  auto [values, indices] = pair_on("aten.max.dim", x, {I(1)});
  EXPECT_EQ(values.dtype(), I64);
  EXPECT_EQ(ints_of(values), (Values{5, 7}));
  EXPECT_EQ(ints_of(indices), (Values{1, 0}));
  auto [lo, lo_i] = pair_on("aten.min.dim", x, {I(0), B(true)});
  EXPECT_EQ(lo.sizes(), (Sizes{1, 3}));
  EXPECT_EQ(ints_of(lo), (Values{1, 2, 5}));
  EXPECT_EQ(ints_of(lo_i), (Values{0, 1, 0}));
  EXPECT_EQ(ints_of(on("aten.max", x)), (Values{7}));
  expect_reduction_reals(on("aten.max", real_tensor({3}, {1, kNaN, 3})), {kNaN});
  expect_reduction_reals(on("aten.min", real_tensor({3}, {1, kNaN, 3})), {kNaN});
  Tensor other = call_tensor("aten.max.other",
                             {{"x", real_tensor({2}, {1, 4})}, {"y", real_tensor({2}, {3, 2})}},
                             {T("x"), T("y")});
  expect_reduction_reals(other, {3, 4});
  auto [mn, mx] = pair_on("aten.aminmax", real_tensor({2, 2}, {3, -1, 8, 2}), {},
                          {{"dim", I(1)}, {"keepdim", B(true)}});
  EXPECT_EQ(mn.sizes(), (Sizes{2, 1}));
  expect_reduction_reals(mn, {-1, 2});
  expect_reduction_reals(mx, {3, 8});
  expect_reduction_reals(on("aten.amax", real_tensor({2, 2}, {3, -1, 8, 2}), {Ints({0})}), {8, 2});
  expect_reduction_reals(on("aten.amin", real_tensor({2, 2}, {3, -1, 8, 2})), {-1});
  // Reducing an empty dim has no identity; a tensor empty elsewhere is fine.
  std::string e = run_error([] { on("aten.amax", real_tensor({0, 3}, {}), {Ints({0})}); });
  EXPECT_TRUE(Contains(e, "non-empty")) << e;
  EXPECT_EQ(on("aten.amax", real_tensor({2, 0}, {}), {Ints({0})}).sizes(), (Sizes{0}));
  // A 0-dim tensor: dim 0 is its only element.
  auto [v0, i0] = pair_on("aten.max.dim", real_tensor({}, {4}), {I(0)});
  EXPECT_EQ(v0.sizes(), (Sizes{}));
  EXPECT_EQ(ints_of(i0), (Values{0}));
}

TEST(ReductionKernels, SortWithNaNAndTies) {
  Tensor x = real_tensor({4}, {3, kNaN, 1, 2});
  auto [up, up_i] = pair_on("aten.sort", x);
  expect_reduction_reals(up, {1, 2, 3, kNaN});
  EXPECT_EQ(ints_of(up_i), (Values{2, 3, 0, 1}));
  auto [down, down_i] = pair_on("aten.sort", x, {I(0), B(true)});
  expect_reduction_reals(down, {kNaN, 3, 2, 1});
  EXPECT_EQ(ints_of(down_i), (Values{1, 0, 3, 2}));
  // Ties keep their order (stable).
  Tensor ties = int_tensor({2, 2}, {2, 1, 2, 1});
  auto [s, s_i] = pair_on("aten.sort.stable", ties, {},
                          {{"stable", B(true)}, {"dim", I(0)}, {"descending", B(true)}});
  EXPECT_EQ(ints_of(s), (Values{2, 1, 2, 1}));
  EXPECT_EQ(ints_of(s_i), (Values{0, 0, 1, 1}));
  EXPECT_EQ(ints_of(on("aten.argsort", int_tensor({4}, {2, 1, 2, 1}))), (Values{1, 3, 0, 2}));
  EXPECT_EQ(ints_of(on("aten.argsort.stable", int_tensor({4}, {2, 1, 2, 1}), {},
                       {{"stable", B(true)}, {"descending", B(true)}})),
            (Values{0, 2, 1, 3}));
  auto [top, top_i] = pair_on("aten.topk", real_tensor({4}, {1, 4, 2, 4}), {I(2)});
  expect_reduction_reals(top, {4, 4});
  EXPECT_EQ(ints_of(top_i), (Values{1, 3}));
  auto [bottom, bottom_i] =
      pair_on("aten.topk", real_tensor({2, 3}, {5, 1, 3, 0, 9, 8}), {I(2), I(1), B(false)});
  EXPECT_EQ(bottom.sizes(), (Sizes{2, 2}));
  expect_reduction_reals(bottom, {1, 3, 0, 8});
  EXPECT_EQ(ints_of(bottom_i), (Values{1, 2, 0, 2}));
  std::string e = run_error([] { pair_on("aten.topk", real_tensor({2}, {1, 2}), {I(3)}); });
  EXPECT_TRUE(Contains(e, "k out of range")) << e;
}

TEST(ReductionKernels, KthvalueMedianMode) {
  auto [k, k_i] = pair_on("aten.kthvalue", real_tensor({3}, {3, 1, 2}), {I(2)});
  expect_reduction_reals(k, {2});
  EXPECT_EQ(ints_of(k_i), (Values{2}));
  std::string e = run_error([] { pair_on("aten.kthvalue", real_tensor({3}, {3, 1, 2}), {I(4)}); });
  EXPECT_TRUE(Contains(e, "out of range")) << e;
  // The lower median of an even count.
  expect_reduction_reals(on("aten.median", real_tensor({4}, {4, 1, 3, 2})), {2});
  auto [m, m_i] = pair_on("aten.median.dim", real_tensor({1, 4}, {4, 1, 3, 2}), {I(1), B(true)});
  EXPECT_EQ(m.sizes(), (Sizes{1, 1}));
  expect_reduction_reals(m, {2});
  EXPECT_EQ(ints_of(m_i), (Values{3}));
  expect_reduction_reals(on("aten.median", real_tensor({3}, {kNaN, 1, 3})), {kNaN});
  expect_reduction_reals(on("aten.nanmedian", real_tensor({3}, {kNaN, 1, 3})), {1});
  expect_reduction_reals(on("aten.nanmedian", real_tensor({2}, {kNaN, kNaN})), {kNaN});
  // The most frequent value; the smallest of equally frequent ones.
  auto [mode, mode_i] = pair_on("aten.mode", int_tensor({5}, {3, 2, 1, 2, 3}));
  EXPECT_EQ(ints_of(mode), (Values{2}));
  EXPECT_EQ(ints_of(mode_i), (Values{3}));
}

// ---- scans ----

TEST(ReductionKernels, CumulativeOps) {
  Tensor c = on("aten.cumsum", int_tensor({3}, {1, 2, 3}, I32), {I(0)});
  EXPECT_EQ(c.dtype(), I64);
  EXPECT_EQ(ints_of(c), (Values{1, 3, 6}));
  EXPECT_EQ(ints_of(on("aten.cumsum", int_tensor({2, 2}, {1, 2, 3, 4}), {I(0)})),
            (Values{1, 2, 4, 6}));
  EXPECT_EQ(ints_of(on("aten.cumsum", int_tensor({2, 2}, {1, 2, 3, 4}), {I(-1)})),
            (Values{1, 3, 3, 7}));
  Tensor f = on("aten.cumsum", int_tensor({2}, {1, 2}), {I(0)}, {{"dtype", D(F64)}});
  EXPECT_EQ(f.dtype(), F64);
  EXPECT_EQ(ints_of(on("aten.cumprod", int_tensor({4}, {1, 2, 3, 4}), {I(0)})),
            (Values{1, 2, 6, 24}));
  expect_reduction_reals(on("aten.logcumsumexp", real_tensor({3}, {0, 0, -kInf}, F64), {I(0)}),
                         {0, std::log(2.0), std::log(2.0)});
  auto [mx, mx_i] = pair_on("aten.cummax", real_tensor({6}, {1, 3, 2, 3, kNaN, 5}), {I(0)});
  expect_reduction_reals(mx, {1, 3, 3, 3, kNaN, kNaN});
  EXPECT_EQ(ints_of(mx_i), (Values{0, 1, 1, 3, 4, 4}));
  auto [mn, mn_i] = pair_on("aten.cummin", int_tensor({4}, {2, 1, 1, 3}), {I(0)});
  EXPECT_EQ(ints_of(mn), (Values{2, 1, 1, 1}));
  EXPECT_EQ(ints_of(mn_i), (Values{0, 1, 2, 2}));
  // A 0-dim tensor scans along dim 0 / -1.
  Tensor scalar = on("aten.cumsum", real_tensor({}, {2}), {I(-1)});
  EXPECT_EQ(scalar.sizes(), (Sizes{}));
  expect_reduction_reals(scalar, {2});
}

// ---- softmax ----

TEST(ReductionKernels, SoftmaxAndLogSoftmax) {
  Tensor x = real_tensor({3}, {1, 2, 3}, F64);
  expect_reduction_reals(on("aten._softmax", x, {I(0), B(false)}),
                         {0.09003057317038046, 0.24472847105479764, 0.6652409557748219});
  expect_reduction_reals(on("aten._log_softmax", x, {I(-1), B(false)}),
                         {-2.4076059644443806, -1.4076059644443806, -0.4076059644443806});
  // Rows are independent; large values do not overflow.
  expect_reduction_reals(
      on("aten.softmax.int", real_tensor({2, 2}, {1000, 1000, 0, -kInf}, F64), {I(1)}),
      {0.5, 0.5, 1, 0});
  // dtype= / half_to_float choose the result dtype; ints need one.
  EXPECT_EQ(on("aten.softmax.int", int_tensor({2}, {1, 2}), {I(0), D(F32)}).dtype(), F32);
  EXPECT_EQ(on("aten._softmax", real_tensor({2}, {1, 2}, F16), {I(0), B(true)}).dtype(), F32);
  std::string e = run_error([] { on("aten.log_softmax.int", int_tensor({2}, {1, 2}), {I(0)}); });
  EXPECT_TRUE(Contains(e, "floating point")) << e;
  expect_reduction_reals(on("aten.logsumexp", x, {Ints({0})}), {3.40760596444438});
  expect_reduction_reals(
      on("aten.logsumexp", real_tensor({2, 2}, {-kInf, -kInf, kInf, 1}), {Ints({1})}),
      {-kInf, kInf});
  EXPECT_EQ(on("aten.logsumexp", int_tensor({2}, {0, 0}), {Ints({0})}).dtype(), F32);
}

TEST(ReductionKernels, SoftmaxBackward) {
  // softmax: y * (g - sum(g * y)) = [0.5, 0.5] * ([1, 0] - 0.5).
  Tensor g = real_tensor({2}, {1, 0}, F64), y = real_tensor({2}, {0.5, 0.5}, F64);
  expect_reduction_reals(call_tensor("aten._softmax_backward_data", {{"g", g}, {"y", y}},
                                     {T("g"), T("y"), I(0), D(F64)}),
                         {0.25, -0.25});
  // log_softmax: g - exp(y) * sum(g).
  Tensor log_y = real_tensor({2}, {std::log(0.5), std::log(0.5)}, F64);
  expect_reduction_reals(call_tensor("aten._log_softmax_backward_data", {{"g", g}, {"y", log_y}},
                                     {T("g"), T("y"), I(-1), D(F64)}),
                         {0.5, -0.5});
}

// ---- norms and boolean reductions ----

TEST(ReductionKernels, VectorNorms) {
  Tensor x = real_tensor({2}, {3, -4}, F64);
  expect_reduction_reals(on("aten.linalg_vector_norm", x), {5});
  expect_reduction_reals(on("aten.linalg_vector_norm", x, {I(1)}), {7});
  expect_reduction_reals(on("aten.linalg_vector_norm", x, {F(kInf)}), {4});
  expect_reduction_reals(on("aten.linalg_vector_norm", x, {F(-kInf)}), {3});
  expect_reduction_reals(on("aten.linalg_vector_norm", x, {I(0)}), {2});
  expect_reduction_reals(on("aten.norm.ScalarOpt_dim", x, {I(3), Ints({0})}), {std::cbrt(91.0)});
  Tensor rows =
      on("aten.norm.ScalarOpt_dim", real_tensor({2, 2}, {3, 4, 6, 8}), {F(2), Ints({1}), B(true)});
  EXPECT_EQ(rows.sizes(), (Sizes{2, 1}));
  expect_reduction_reals(rows, {5, 10}, 1e-6);
  Tensor c = on("aten.linalg_vector_norm", Tensor::from(C64, {1}, {Scalar::of_complex({3, 4})}));
  EXPECT_EQ(c.dtype(), F32);
  expect_reduction_reals(c, {5});
  std::string e = run_error([] { on("aten.linalg_vector_norm", int_tensor({1}, {1})); });
  EXPECT_TRUE(Contains(e, "floating point")) << e;
}

TEST(ReductionKernels, AnyAllCountNonzero) {
  Tensor x = real_tensor({2, 3}, {0, 0, 1, kNaN, 2, 3});
  EXPECT_EQ(ints_of(on("aten.any.dim", x, {I(1)})), (Values{1, 1}));
  EXPECT_EQ(ints_of(on("aten.all.dim", x, {I(1)})), (Values{0, 1}));
  Tensor kept = on("aten.all.dims", x, {Ints({0}), B(true)});
  EXPECT_EQ(kept.dtype(), B8);
  EXPECT_EQ(kept.sizes(), (Sizes{1, 3}));
  EXPECT_EQ(ints_of(kept), (Values{0, 0, 1}));
  EXPECT_EQ(ints_of(on("aten.any", real_tensor({0}, {}))), (Values{0}));
  EXPECT_EQ(ints_of(on("aten.all", real_tensor({0}, {}))), (Values{1}));
  EXPECT_EQ(on("aten.any", int_tensor({2}, {0, 7}, U8)).dtype(), U8);
  EXPECT_EQ(ints_of(on("aten.count_nonzero.dim_IntList", x, {Ints({0})})), (Values{1, 1, 2}));
  EXPECT_EQ(ints_of(on("aten.count_nonzero", x)), (Values{4}));
}

}  // namespace

std::vector<OpCase> reductions_cases() {
  std::vector<OpCase> cases;
  auto one = [&cases](std::string name, std::vector<Input> inputs, const std::string& target,
                      std::vector<Arg> args, Kwargs kwargs = {},
                      std::vector<std::pair<std::string, DimDecl>> dims = {}) {
    cases.push_back({std::move(name),
                     std::move(inputs),
                     {{"op", target, std::move(args), std::move(kwargs)}},
                     std::move(dims)});
  };
  const std::vector<Input> x2 = {In("x", F32, {"a", "b"})};
  const std::vector<Input> x3 = {In("x", F32, {"a", "b", "c"})};

  // Sums: dims, keepdim, dtype, integer accumulation, 0-dim.
  for (const char* op : {"sum", "nansum", "prod"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x2, target, {T("x")});
    one(std::string(op) + ".dim_keepdim", x3, target, {T("x"), Ints({1}), B(true)});
    one(std::string(op) + ".int32", {In("x", I32, {"a", "b"})}, target, {T("x"), Ints({-1})});
    one(std::string(op) + ".dtype", x2, target, {T("x"), Ints({0})}, {{"dtype", D(F64)}});
    one(std::string(op) + ".zero_dim", {In("x", F32, {})}, target, {T("x")});
  }
  one("sum.bool", {In("x", B8, {"a", "b"})}, "aten.sum.dim_IntList", {T("x"), Ints({0, 1})});
  one("sum.dims_list", x3, "aten.sum.dim_IntList", {T("x"), Ints({2, 0}), B(false)});
  one("prod.dim_int", x2, "aten.prod.dim_int", {T("x"), I(1), B(true)});
  for (const char* op : {"mean", "nanmean"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x2, target, {T("x")});
    one(std::string(op) + ".dims", x3, target, {T("x"), Ints({0, 2}), B(true)});
    one(std::string(op) + ".int_dtype", {In("x", I64, {"a"})}, target, {T("x"), None()},
        {{"dtype", D(F32)}});
    one(std::string(op) + ".complex", {In("x", C64, {"a", "b"})}, target, {T("x"), Ints({1})});
  }
  for (const char* op : {"amax", "amin"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x2, target, {T("x")});
    one(std::string(op) + ".dims", x3, target, {T("x"), Ints({1, 2}), B(true)});
    one(std::string(op) + ".int", {In("x", I32, {"a", "b"})}, target, {T("x"), Ints({0})});
  }
  for (const char* op : {"var", "std"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".dim", x3, target, {T("x"), Ints({1}), B(true), B(true)});
    one(std::string(op) + ".correction", x2, target + ".correction", {T("x"), None()},
        {{"correction", I(0)}, {"keepdim", B(true)}});
    one(std::string(op) + ".complex", {In("x", C64, {"a", "b"})}, target, {T("x"), Ints({0})});
    one(std::string(op) + ".default", x2, target + ".default", {T("x"), B(false)});
    one(std::string(op) + "_mean", x3, target + "_mean", {T("x"), Ints({0, 2})},
        {{"correction", I(1)}, {"keepdim", B(false)}});
    one(std::string(op) + "_mean.default", {In("x", F64, {"a"})}, target + "_mean.default",
        {T("x")});
  }
  for (const char* op : {"argmax", "argmin"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x3, target, {T("x")});
    one(std::string(op) + ".all_keepdim", x2, target, {T("x"), None(), B(true)});
    one(std::string(op) + ".dim", x3, target, {T("x"), I(-2), B(true)});
    one(std::string(op) + ".int", {In("x", I64, {"a"})}, target, {T("x"), I(0)});
  }
  for (const char* op : {"max", "min"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x2, target, {T("x")});
    one(std::string(op) + ".dim", x3, target + ".dim", {T("x"), I(1)});
    one(std::string(op) + ".dim_keepdim", {In("x", I32, {"a", "b"})}, target + ".dim",
        {T("x"), I(-1), B(true)});
    one(std::string(op) + ".other", {In("x", F32, {"a", "1"}), In("y", F32, {"b"})},
        target + ".other", {T("x"), T("y")});
    one(std::string(op) + ".zero_dim", {In("x", F64, {})}, target + ".dim", {T("x"), I(0)});
  }
  one("aminmax.all", x2, "aten.aminmax", {T("x")});
  one("aminmax.dim", x3, "aten.aminmax", {T("x")}, {{"dim", I(1)}, {"keepdim", B(true)}});
  for (const char* op : {"any", "all"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", {In("x", B8, {"a", "b"})}, target, {T("x")});
    one(std::string(op) + ".dim", x3, target + ".dim", {T("x"), I(2), B(true)});
    one(std::string(op) + ".dims", {In("x", I64, {"a", "b", "c"})}, target + ".dims",
        {T("x"), Ints({0, 1})});
    one(std::string(op) + ".uint8", {In("x", U8, {"a"})}, target, {T("x")});
  }
  one("logsumexp", x3, "aten.logsumexp", {T("x"), Ints({1}), B(false)});
  one("logsumexp.keepdim_int", {In("x", I64, {"a", "b"})}, "aten.logsumexp",
      {T("x"), Ints({0, 1}), B(true)});
  one("norm.p_dim", x3, "aten.norm.ScalarOpt_dim", {T("x"), F(2), Ints({2}), B(true)});
  one("norm.all", {In("x", C64, {"a", "b"})}, "aten.norm.Scalar", {T("x"), I(1)});
  one("linalg_vector_norm.inf", x2, "aten.linalg_vector_norm",
      {T("x"), F(std::numeric_limits<double>::infinity()), Ints({0})});
  one("linalg_vector_norm.dtype", x2, "aten.linalg_vector_norm", {T("x")},
      {{"dim", Ints({1})}, {"keepdim", B(true)}, {"dtype", D(F64)}});
  one("count_nonzero.dims", x3, "aten.count_nonzero.dim_IntList", {T("x"), Ints({0, 2})});
  one("count_nonzero.all", {In("x", I64, {"a", "b"})}, "aten.count_nonzero", {T("x")});

  // Scans keep the shape.
  for (const char* op : {"cumsum", "cumprod"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".float", x3, target, {T("x"), I(1)});
    one(std::string(op) + ".int32", {In("x", I32, {"a", "b"})}, target, {T("x"), I(-1)});
    one(std::string(op) + ".dtype", {In("x", I64, {"a"})}, target, {T("x"), I(0)},
        {{"dtype", D(F32)}});
    one(std::string(op) + ".zero_dim", {In("x", F32, {})}, target, {T("x"), I(0)});
  }
  one("logcumsumexp", x3, "aten.logcumsumexp", {T("x"), I(2)});
  for (const char* op : {"cummax", "cummin"}) {
    one(std::string(op), x3, std::string("aten.") + op, {T("x"), I(0)});
    one(std::string(op) + ".int", {In("x", I64, {"a", "b"})}, std::string("aten.") + op,
        {T("x"), I(-1)});
  }

  // Softmax and its backward.
  one("softmax", x3, "aten.softmax.int", {T("x"), I(-1)});
  one("softmax.int_dtype", {In("x", I64, {"a", "b"})}, "aten.softmax.int", {T("x"), I(0), D(F64)});
  one("log_softmax", x2, "aten.log_softmax.int", {T("x"), I(1)});
  one("_softmax", {In("x", F16, {"a", "b"})}, "aten._softmax", {T("x"), I(1), B(true)});
  one("_log_softmax", x3, "aten._log_softmax", {T("x"), I(0), B(false)});
  for (const char* op : {"_softmax_backward_data", "_log_softmax_backward_data"}) {
    one(op, {In("g", F32, {"a", "b"}), In("y", F32, {"a", "b"})}, std::string("aten.") + op,
        {T("g"), T("y"), I(1), D(F32)});
  }
  cases.push_back({"softmax.forward_backward",
                   {In("x", F32, {"n", "d"}), In("g", F32, {"n", "d"})},
                   {{"y", "aten._log_softmax", {T("x"), I(-1), B(false)}},
                    {"gi", "aten._log_softmax_backward_data", {T("g"), T("y"), I(-1), D(F32)}}},
                   {Dim("n", 3, 1, 5), Dim("d", 4, 2, 6)}});

  // Sorting and selection.
  one("topk", x3, "aten.topk", {T("x"), I(2)}, {}, {Dim("c", 3, 2, 6)});
  one("topk.dim_smallest", x2, "aten.topk", {T("x"), I(1), I(0), B(false)});
  one("topk.symbolic_k", {In("x", F32, {"a", "b"})}, "aten.topk", {T("x"), E("b - 1")});
  one("sort", x3, "aten.sort", {T("x")});
  one("sort.dim_descending", {In("x", I64, {"a", "b"})}, "aten.sort", {T("x"), I(0), B(true)});
  one("sort.stable", x2, "aten.sort.stable", {T("x")},
      {{"stable", B(true)}, {"dim", I(0)}, {"descending", B(false)}});
  one("argsort", x3, "aten.argsort", {T("x"), I(1)});
  one("argsort.stable", x2, "aten.argsort.stable", {T("x")}, {{"stable", B(true)}});
  one("kthvalue", x3, "aten.kthvalue", {T("x"), I(1), I(0), B(true)});
  one("kthvalue.last_dim", x2, "aten.kthvalue", {T("x"), I(2)}, {}, {Dim("b", 3, 2, 6)});
  one("mode", x3, "aten.mode", {T("x")});
  one("mode.dim", {In("x", I64, {"a", "b"})}, "aten.mode", {T("x"), I(0), B(true)});
  for (const char* op : {"median", "nanmedian"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".all", x2, target, {T("x")});
    one(std::string(op) + ".dim", x3, target + ".dim", {T("x"), I(1), B(true)});
  }
  return cases;
}

}  // namespace symshape::testing
