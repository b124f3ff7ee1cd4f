// Elementwise kernels: hand-computed values for the tricky cases (Python floor division and
// modulo of negatives, int64 wrap-around, type promotion, NaN handling, rounding), and the op
// cases of the shape property test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

// Expects t's values to be `expected` (NaN matches NaN), each within tol.
void expect_reals(const Tensor& t, const std::vector<double>& expected, double tol = 0) {
  std::vector<double> got = reals_of(t);
  ASSERT_EQ(got.size(), expected.size()) << t.str();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " of " << t.str() << " is " << got[i];
    } else if (std::isinf(expected[i]) || tol == 0) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i << " of " << t.str();
    } else {
      EXPECT_NEAR(got[i], expected[i], tol) << "element " << i << " of " << t.str();
    }
  }
}

// One binary op on a tensor and a number argument.
Tensor with_number(const std::string& target, const Tensor& a, Arg number) {
  return call_tensor(target, {{"a", a}}, {T("a"), std::move(number)});
}
Tensor unary(const std::string& target, const Tensor& a, Kwargs kwargs = {}) {
  return call_tensor(target, {{"a", a}}, {T("a")}, std::move(kwargs));
}

const std::vector<int64_t> kDividends = {7, -7, 7, -7, 0, -1, 1};
const std::vector<int64_t> kDivisors = {2, 2, -2, -2, 3, 5, -5};

TEST(ElementwiseKernels, ClampByAFloatBoundAndSquareOfBoolPromote) {
  // torch.clamp_min(torch.tensor([-2, 0, 3]), 0.5) == tensor([0.5, 0.5, 3.])
  Tensor lo = with_number("aten.clamp_min", int_tensor({3}, {-2, 0, 3}), F(0.5));
  EXPECT_EQ(lo.dtype(), F32);
  EXPECT_EQ(reals_of(lo), (std::vector<double>{0.5, 0.5, 3.0}));
  Tensor hi = with_number("aten.clamp_max", int_tensor({3}, {-2, 0, 3}), F(0.5));
  EXPECT_EQ(reals_of(hi), (std::vector<double>{-2.0, 0.0, 0.5}));
  // An int bound keeps the int dtype.
  EXPECT_EQ(with_number("aten.clamp_min", int_tensor({2}, {-2, 3}), I(0)).dtype(), I64);
  // torch.square(torch.tensor([True, False])) == tensor([1, 0])
  Tensor sq = unary("aten.square", int_tensor({2}, {1, 0}, B8));
  EXPECT_EQ(sq.dtype(), I64);
  EXPECT_EQ(ints_of(sq), (std::vector<int64_t>{1, 0}));
}

// ---- integer division and modulo (Python semantics, values from Python's // and %) ----

TEST(ElementwiseKernels, FloorDivideOfNegativeIntegers) {
  Tensor q = binary("aten.floor_divide", int_tensor({7}, kDividends), int_tensor({7}, kDivisors));
  EXPECT_EQ(q.dtype(), I64);
  EXPECT_EQ(ints_of(q), (std::vector<int64_t>{3, -4, -4, 3, 0, -1, -1}));
  Tensor floor = binary("aten.div.Tensor_mode", int_tensor({7}, kDividends),
                        int_tensor({7}, kDivisors), {{"rounding_mode", S("floor")}});
  EXPECT_EQ(ints_of(floor), (std::vector<int64_t>{3, -4, -4, 3, 0, -1, -1}));
  Tensor trunc = binary("aten.div.Tensor_mode", int_tensor({7}, kDividends),
                        int_tensor({7}, kDivisors), {{"rounding_mode", S("trunc")}});
  EXPECT_EQ(trunc.dtype(), I64);
  EXPECT_EQ(ints_of(trunc), (std::vector<int64_t>{3, -3, -3, 3, 0, 0, 0}));
}

TEST(ElementwiseKernels, RemainderTakesTheDivisorsSignAndFmodTheDividends) {
  Tensor r =
      binary("aten.remainder.Tensor", int_tensor({7}, kDividends), int_tensor({7}, kDivisors));
  EXPECT_EQ(ints_of(r), (std::vector<int64_t>{1, 1, -1, -1, 0, 4, -4}));
  Tensor f = binary("aten.fmod.Tensor", int_tensor({7}, kDividends), int_tensor({7}, kDivisors));
  EXPECT_EQ(ints_of(f), (std::vector<int64_t>{1, -1, 1, -1, 0, -1, 1}));
  // A Python int divisor keeps int32.
  Tensor r32 = with_number("aten.remainder.Scalar", int_tensor({3}, {-7, 7, -1}, I32), I(-3));
  EXPECT_EQ(r32.dtype(), I32);
  EXPECT_EQ(ints_of(r32), (std::vector<int64_t>{-1, -2, -1}));
}

TEST(ElementwiseKernels, FloatingFloorDivisionAndModulo) {
  Tensor a = real_tensor({6}, {5.5, -5.5, 5.5, -7.0, 1.0, -1.0}, F64);
  Tensor b = real_tensor({6}, {2.0, 2.0, -2.0, 2.0, 0.0, 0.0}, F64);
  expect_reals(binary("aten.floor_divide", a, b), {2, -3, -3, -4, kInf, -kInf});
  expect_reals(binary("aten.remainder.Tensor", a, b), {1.5, 0.5, -0.5, 1, kNaN, kNaN});
  expect_reals(binary("aten.fmod.Tensor", a, b), {1.5, -1.5, 1.5, -1, kNaN, kNaN});
  // 0 // 0 is NaN; a zero quotient keeps the sign of the true quotient.
  Tensor z = binary("aten.floor_divide", real_tensor({2}, {0.0, 0.0}, F64),
                    real_tensor({2}, {0.0, -3.0}, F64));
  EXPECT_TRUE(std::isnan(reals_of(z)[0]));
  EXPECT_EQ(reals_of(z)[1], 0.0);
  EXPECT_TRUE(std::signbit(reals_of(z)[1]));
}

TEST(ElementwiseKernels, IntegerDivisionByZeroIsARunError) {
  Tensor a = int_tensor({2}, {1, 2}), zero = int_tensor({2}, {1, 0});
  for (const char* target : {"aten.floor_divide", "aten.remainder.Tensor", "aten.fmod.Tensor"}) {
    std::string e = run_error([&] { binary(target, a, zero); });
    EXPECT_TRUE(Contains(e, "ZeroDivisionError")) << target << ": " << e;
  }
  std::string e = run_error([&] {
    binary("aten.div.Tensor_mode", a, zero, {{"rounding_mode", S("trunc")}});
  });
  EXPECT_TRUE(Contains(e, "ZeroDivisionError")) << e;
  // True division of integers computes in float32: 1 / 0 is inf.
  expect_reals(binary("aten.div.Tensor", a, zero), {1, kInf});
  e = run_error([&] { with_number("aten.remainder.Scalar", a, I(0)); });
  EXPECT_TRUE(Contains(e, "ZeroDivisionError")) << e;
  e = run_error([&] { binary("aten.div.Tensor_mode", a, zero, {{"rounding_mode", S("round")}}); });
  EXPECT_TRUE(Contains(e, "rounding_mode")) << e;
}

TEST(ElementwiseKernels, Int64ArithmeticWrapsAround) {
  Tensor big = int_tensor({2}, {kMax, kMin});
  EXPECT_EQ(ints_of(with_number("aten.add.Tensor", big, I(1))),
            (std::vector<int64_t>{kMin, kMin + 1}));
  EXPECT_EQ(ints_of(with_number("aten.sub.Tensor", big, I(1))),
            (std::vector<int64_t>{kMax - 1, kMax}));
  EXPECT_EQ(ints_of(with_number("aten.mul.Tensor", big, I(-1))),
            (std::vector<int64_t>{-kMax, kMin}));
  EXPECT_EQ(ints_of(with_number("aten.floor_divide", big, I(-1))),
            (std::vector<int64_t>{-kMax, kMin}));
  EXPECT_EQ(ints_of(with_number("aten.remainder.Scalar", big, I(-1))),
            (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ints_of(unary("aten.neg", big)), (std::vector<int64_t>{-kMax, kMin}));
  EXPECT_EQ(ints_of(unary("aten.abs", big)), (std::vector<int64_t>{kMax, kMin}));
  EXPECT_EQ(ints_of(unary("aten.square", big)), (std::vector<int64_t>{1, 0}));
  // 2 ** 63 wraps to kMin; 3 ** 40 mod 2 ** 64 (Python: (3**40) % 2**64 as signed).
  Tensor p = binary("aten.pow.Tensor_Tensor", int_tensor({2}, {2, 3}), int_tensor({2}, {63, 40}));
  EXPECT_EQ(ints_of(p), (std::vector<int64_t>{kMin, -6289078614652622815}));
  // add with alpha: kMax + 2 * kMax wraps.
  Tensor alpha = binary("aten.add.Tensor", int_tensor({1}, {kMax}), int_tensor({1}, {kMax}),
                        {{"alpha", I(2)}});
  EXPECT_EQ(ints_of(alpha), (std::vector<int64_t>{kMax - 2}));
}

TEST(ElementwiseKernels, NarrowIntegersWrapToTheirWidth) {
  Tensor a = int_tensor({2}, {2147483647, -2147483647 - 1}, I32);
  Tensor sum = with_number("aten.add.Tensor", a, I(1));
  EXPECT_EQ(sum.dtype(), I32);
  EXPECT_EQ(ints_of(sum), (std::vector<int64_t>{-2147483647 - 1, -2147483647}));
  // int8 [3, -3] * 1000 stays int8: 3000 mod 256 = 184 -> -72.
  Tensor m = with_number("aten.mul.Tensor", int_tensor({2}, {3, -3}, I8), I(1000));
  EXPECT_EQ(m.dtype(), I8);
  EXPECT_EQ(ints_of(m), (std::vector<int64_t>{-72, 72}));
  // uint8 0 - 1 = 255.
  Tensor u = with_number("aten.sub.Tensor", int_tensor({1}, {0}, U8), I(1));
  EXPECT_EQ(ints_of(u), (std::vector<int64_t>{255}));
}

// ---- type promotion ----

TEST(ElementwiseKernels, TypePromotion) {
  Tensor i32 = int_tensor({2}, {1, 2}, I32);
  EXPECT_EQ(with_number("aten.add.Tensor", i32, F(2.5)).dtype(), F32);
  expect_reals(with_number("aten.add.Tensor", i32, F(2.5)), {3.5, 4.5});
  EXPECT_EQ(binary("aten.add.Tensor", i32, int_tensor({2}, {1, 1}, I64)).dtype(), I64);
  // A 0-dim float64 tensor does not widen a float32 tensor; a 0-dim one lifts an int tensor.
  Tensor zero_dim = real_tensor({}, {0.5}, F64);
  EXPECT_EQ(binary("aten.mul.Tensor", real_tensor({2}, {1, 2}), zero_dim).dtype(), F32);
  EXPECT_EQ(binary("aten.mul.Tensor", i32, zero_dim).dtype(), F64);
  // bool + bool is bool (logical or); bool + int number is int64.
  Tensor bools = int_tensor({2}, {1, 0}, B8);
  Tensor both = binary("aten.add.Tensor", bools, bools);
  EXPECT_EQ(both.dtype(), B8);
  EXPECT_EQ(ints_of(both), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(with_number("aten.add.Tensor", bools, I(1)).dtype(), I64);
  // True division of ints is float32; float16 stays float16 (rounded: 1/3 -> 0.333251953125).
  Tensor d = binary("aten.div.Tensor", int_tensor({2}, {7, -7}), int_tensor({2}, {2, 2}));
  EXPECT_EQ(d.dtype(), F32);
  expect_reals(d, {3.5, -3.5});
  Tensor h = with_number("aten.div.Tensor", real_tensor({1}, {1}, F16), I(3));
  EXPECT_EQ(h.dtype(), F16);
  expect_reals(h, {0.333251953125});
  // Comparisons give bool, computed in the promoted type (int 2 vs float 2.5).
  Tensor lt = with_number("aten.lt.Scalar", int_tensor({3}, {2, 3, -1}), F(2.5));
  EXPECT_EQ(lt.dtype(), B8);
  EXPECT_EQ(ints_of(lt), (std::vector<int64_t>{1, 0, 1}));
  // Integer math functions compute in float32.
  Tensor e = unary("aten.exp", int_tensor({1}, {0}));
  EXPECT_EQ(e.dtype(), F32);
  expect_reals(e, {1});
  // atan2 / hypot / copysign / xlogy of ints give float32 (PyTorch's floating ops).
  EXPECT_EQ(binary("aten.atan2", int_tensor({1}, {1}), int_tensor({1}, {1})).dtype(), F32);
}

TEST(ElementwiseKernels, BroadcastingShapes) {
  Tensor col = real_tensor({2, 1}, {1, 2});
  Tensor row = real_tensor({3}, {10, 20, 30});
  Tensor s = binary("aten.add.Tensor", col, row);
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{2, 3}));
  expect_reals(s, {11, 21, 31, 12, 22, 32});
  // rsub(self, other, alpha) = other - alpha * self.
  Tensor r = binary("aten.rsub.Tensor", col, row, {{"alpha", I(2)}});
  expect_reals(r, {8, 18, 28, 6, 16, 26});
}

// ---- other binary ops ----

TEST(ElementwiseKernels, NaNPropagationInMaximumAndNotInFmax) {
  Tensor a = real_tensor({3}, {1, kNaN, 3}), b = real_tensor({3}, {2, 0, kNaN});
  expect_reals(binary("aten.maximum", a, b), {2, kNaN, kNaN});
  expect_reals(binary("aten.minimum", a, b), {1, kNaN, kNaN});
  expect_reals(binary("aten.fmax", a, b), {2, 0, 3});
  expect_reals(binary("aten.fmin", a, b), {1, 0, 3});
  // NaN compares unequal to everything, itself included.
  Tensor eq = binary("aten.eq.Tensor", a, a);
  EXPECT_EQ(ints_of(eq), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(ints_of(binary("aten.ne.Tensor", a, a)), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(ints_of(binary("aten.ge.Tensor", a, b)), (std::vector<int64_t>{0, 0, 0}));
}

TEST(ElementwiseKernels, PowersOfIntegers) {
  // Negative integer exponents: 1 / a truncated (PyTorch's powi).
  Tensor p = binary("aten.pow.Tensor_Tensor", int_tensor({5}, {2, 1, -1, -1, 0}),
                    int_tensor({5}, {-1, -3, -3, -2, 0}));
  EXPECT_EQ(ints_of(p), (std::vector<int64_t>{0, 1, -1, 1, 1}));
  std::string e =
      run_error([] { with_number("aten.pow.Tensor_Scalar", int_tensor({1}, {2}), I(-1)); });
  EXPECT_TRUE(Contains(e, "negative integer powers")) << e;
  // A float exponent makes the result float32; a number base with a tensor exponent.
  expect_reals(with_number("aten.pow.Tensor_Scalar", int_tensor({2}, {4, 9}), F(0.5)), {2, 3});
  Tensor scalar_base =
      call_tensor("aten.pow.Scalar", {{"e", int_tensor({3}, {0, 1, 10})}}, {I(2), T("e")});
  EXPECT_EQ(scalar_base.dtype(), I64);
  EXPECT_EQ(ints_of(scalar_base), (std::vector<int64_t>{1, 2, 1024}));
}

TEST(ElementwiseKernels, BitwiseAndLogicalOps) {
  Tensor a = int_tensor({2}, {12, -1}), b = int_tensor({2}, {10, 5});
  EXPECT_EQ(ints_of(binary("aten.bitwise_and.Tensor", a, b)), (std::vector<int64_t>{8, 5}));
  EXPECT_EQ(ints_of(binary("aten.bitwise_or.Tensor", a, b)), (std::vector<int64_t>{14, -1}));
  EXPECT_EQ(ints_of(binary("aten.bitwise_xor.Tensor", a, b)), (std::vector<int64_t>{6, -6}));
  EXPECT_EQ(ints_of(unary("aten.bitwise_not", a)), (std::vector<int64_t>{-13, 0}));
  Tensor bools = int_tensor({2}, {1, 0}, B8);
  EXPECT_EQ(ints_of(unary("aten.bitwise_not", bools)), (std::vector<int64_t>{0, 1}));
  std::string e = run_error(
      [] { binary("aten.bitwise_and.Tensor", real_tensor({1}, {1}), real_tensor({1}, {1})); });
  EXPECT_TRUE(Contains(e, "bitwise_and is not supported for float32")) << e;
  Tensor x = real_tensor({3}, {0, 2, kNaN}), y = int_tensor({3}, {5, 0, 0});
  EXPECT_EQ(ints_of(binary("aten.logical_and", x, y)), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(ints_of(binary("aten.logical_or", x, y)), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints_of(binary("aten.logical_xor", x, y)), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints_of(unary("aten.logical_not", x)), (std::vector<int64_t>{1, 0, 0}));
  // Negating a bool tensor is refused.
  e = run_error([&] { unary("aten.neg", bools); });
  EXPECT_TRUE(Contains(e, "bool")) << e;
  e = run_error([&] { binary("aten.sub.Tensor", bools, bools); });
  EXPECT_TRUE(Contains(e, "bool")) << e;
}

TEST(ElementwiseKernels, WhereClampLerpAddcmul) {
  Tensor cond = int_tensor({2, 1}, {1, 0}, B8);
  Tensor w = call_tensor("aten.where.ScalarOther", {{"c", cond}, {"x", int_tensor({3}, {1, 2, 3})}},
                         {T("c"), T("x"), F(0.5)});
  EXPECT_EQ(w.dtype(), F32);  // int64 tensor with a Python float
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{2, 3}));
  expect_reals(w, {1, 2, 3, 0.5, 0.5, 0.5});
  Tensor c = call_tensor("aten.clamp", {{"x", real_tensor({4}, {-2, 0.5, 3, kNaN})}},
                         {T("x"), F(-1), F(1)});
  expect_reals(c, {-1, 0.5, 1, kNaN});
  // min > max: everything is max.
  Tensor inverted =
      call_tensor("aten.clamp", {{"x", real_tensor({2}, {-5, 5})}}, {T("x"), I(2), I(1)});
  expect_reals(inverted, {1, 1});
  Tensor only_max =
      call_tensor("aten.clip", {{"x", int_tensor({3}, {-5, 0, 5})}}, {T("x"), None(), I(1)});
  EXPECT_EQ(only_max.dtype(), I64);
  EXPECT_EQ(ints_of(only_max), (std::vector<int64_t>{-5, 0, 1}));
  expect_reals(
      call_tensor("aten.lerp.Scalar",
                  {{"a", real_tensor({2}, {0, 10}, F64)}, {"b", real_tensor({2}, {4, 20}, F64)}},
                  {T("a"), T("b"), F(0.75)}),
      {3, 17.5});
  expect_reals(call_tensor("aten.addcmul",
                           {{"s", real_tensor({2}, {1, 1}, F64)},
                            {"a", real_tensor({2}, {2, 3}, F64)},
                            {"b", real_tensor({2}, {4, 5}, F64)}},
                           {T("s"), T("a"), T("b")}, {{"value", F(0.5)}}),
               {5, 8.5});
  expect_reals(call_tensor("aten.addcdiv",
                           {{"s", real_tensor({2}, {1, 1}, F64)},
                            {"a", real_tensor({2}, {2, 3}, F64)},
                            {"b", real_tensor({2}, {4, -6}, F64)}},
                           {T("s"), T("a"), T("b")}, {{"value", I(2)}}),
               {2, 0});
  Tensor filled = call_tensor(
      "aten.masked_fill.Scalar",
      {{"x", int_tensor({2, 2}, {1, 2, 3, 4}, I32)}, {"m", int_tensor({2}, {0, 1}, B8)}},
      {T("x"), T("m"), F(-7.9)});
  EXPECT_EQ(filled.dtype(), I32);
  EXPECT_EQ(ints_of(filled), (std::vector<int64_t>{1, -7, 3, -7}));
}

// ---- unary ops ----

TEST(ElementwiseKernels, RoundingHalfToEven) {
  Tensor x = real_tensor({6}, {0.5, 1.5, 2.5, -0.5, -2.5, 2.6}, F64);
  expect_reals(unary("aten.round", x), {0, 2, 2, -0.0, -2, 3});
  expect_reals(unary("aten.floor", x), {0, 1, 2, -1, -3, 2});
  expect_reals(unary("aten.ceil", x), {1, 2, 3, -0.0, -2, 3});
  expect_reals(unary("aten.trunc", x), {0, 1, 2, -0.0, -2, 2});
  expect_reals(unary("aten.frac", x), {0.5, 0.5, 0.5, -0.5, -0.5, 2.6 - 2});
  // decimals: 1.25 * 10 = 12.5 rounds to 12; 1250 with decimals=-2 -> 12.5 -> 12 -> 1200.
  expect_reals(
      unary("aten.round.decimals", real_tensor({2}, {1.25, 1250}, F64), {{"decimals", I(1)}}),
      {1.2, 1250});
  expect_reals(
      unary("aten.round.decimals", real_tensor({2}, {1250, 1350}, F64), {{"decimals", I(-2)}}),
      {1200, 1400});
  // Integers are unchanged.
  EXPECT_EQ(ints_of(unary("aten.round", int_tensor({1}, {-3}))), (std::vector<int64_t>{-3}));
}

TEST(ElementwiseKernels, SpecialFunctions) {
  Tensor x = real_tensor({3}, {-1, 0, kNaN}, F64);
  expect_reals(unary("aten.sign", x), {-1, 0, 0});
  expect_reals(unary("aten.relu", x), {0, 0, kNaN});
  EXPECT_EQ(ints_of(unary("aten.signbit", real_tensor({2}, {-0.0, 0.0}))),
            (std::vector<int64_t>{1, 0}));
  const double tol = 1e-12;
  // erfinv(0.5) and erf(erfinv(y)) == y; digamma(1) = -euler_gamma; lgamma(5) = ln 24.
  expect_reals(unary("aten.erfinv", real_tensor({4}, {0.5, 0, -0.9, 1}, F64)),
               {0.4769362762044699, 0, -1.1630871536766743, kInf}, tol);
  expect_reals(unary("aten.digamma", real_tensor({4}, {1, 0.5, -0.5, 0}, F64)),
               {-0.5772156649015329, -1.9635100260214235, 0.03648997397857652, -kInf}, 1e-10);
  expect_reals(unary("aten.lgamma", real_tensor({1}, {5}, F64)), {std::log(24.0)}, tol);
  expect_reals(unary("aten.gelu", real_tensor({2}, {1, -1}, F64)),
               {0.8413447460685429, -0.15865525393145707}, tol);
  expect_reals(unary("aten.gelu", real_tensor({1}, {1}, F64), {{"approximate", S("tanh")}}),
               {0.8411919906082768}, tol);
  expect_reals(unary("aten.sinc", real_tensor({2}, {0, 0.5}, F64)), {1, 2 / std::numbers::pi}, tol);
  expect_reals(unary("aten.hardswish", real_tensor({3}, {-4, 1, 4}, F64)), {0, 4.0 / 6, 4}, tol);
  expect_reals(unary("aten.logit", real_tensor({2}, {0.5, 0.75}, F64)), {0, std::log(3.0)}, tol);
  expect_reals(unary("aten.log_sigmoid", real_tensor({2}, {0, -1000}, F64)),
               {-std::log(2.0), -1000}, tol);
  expect_reals(unary("aten.softplus", real_tensor({2}, {0, 30}, F64)), {std::log(2.0), 30}, tol);
  expect_reals(call_tensor("aten.threshold", {{"x", real_tensor({3}, {-1, 0.5, 2}, F64)}},
                           {T("x"), F(0.5), I(-9)}),
               {-9, -9, 2});
  expect_reals(call_tensor("aten.hardtanh", {{"x", real_tensor({3}, {-3, 0.5, 3}, F64)}},
                           {T("x"), F(-2), F(2)}),
               {-2, 0.5, 2});
  expect_reals(
      call_tensor("aten.leaky_relu", {{"x", real_tensor({2}, {-2, 3}, F64)}}, {T("x"), F(0.25)}),
      {-0.5, 3});
  expect_reals(unary("aten.nan_to_num", real_tensor({3}, {kNaN, kInf, -kInf})),
               {0, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()});
  expect_reals(call_tensor("aten.nan_to_num", {{"x", real_tensor({3}, {kNaN, kInf, -kInf}, F64)}},
                           {T("x"), F(1), F(2), F(3)}),
               {1, 2, 3});
  EXPECT_EQ(ints_of(unary("aten.isnan", real_tensor({3}, {kNaN, kInf, 1}))),
            (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(ints_of(unary("aten.isinf", real_tensor({3}, {kNaN, -kInf, 1}))),
            (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(ints_of(unary("aten.isfinite", int_tensor({1}, {3}))), (std::vector<int64_t>{1}));
  EXPECT_EQ(ints_of(unary("aten.isneginf", real_tensor({2}, {-kInf, kInf}))),
            (std::vector<int64_t>{1, 0}));
}

TEST(ElementwiseKernels, ViewsCopiesAndFills) {
  Tensor x = real_tensor({2}, {1, 2});
  Tensor alias = unary("aten.alias", x);
  EXPECT_TRUE(alias.shares_storage(x));
  EXPECT_TRUE(unary("aten.detach", x).shares_storage(x));
  Tensor clone = unary("aten.clone", x);
  EXPECT_FALSE(clone.shares_storage(x));
  expect_reals(clone, {1, 2});
  Tensor filled =
      call_tensor("aten.fill.Scalar", {{"x", int_tensor({2}, {5, 6}, I32)}}, {T("x"), F(2.7)});
  EXPECT_EQ(filled.dtype(), I32);
  EXPECT_EQ(ints_of(filled), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ints_of(unary("aten.zero", int_tensor({2}, {5, 6}))), (std::vector<int64_t>{0, 0}));
  // dropout in eval mode is the input; p = 1 zeroes everything; native_dropout's mask.
  Tensor eval = call_tensor("aten.dropout", {{"x", x}}, {T("x"), F(0.5), B(false)});
  EXPECT_TRUE(eval.shares_storage(x));
  expect_reals(call_tensor("aten.dropout", {{"x", x}}, {T("x"), F(1.0), B(true)}), {0, 0});
  RValue nd =
      call_kernel("aten.native_dropout", {{"x", real_tensor({64}, std::vector<double>(64, 1.0))}},
                  {T("x"), F(0.5), B(true)});
  ASSERT_EQ(nd.items.size(), 2u);
  std::vector<double> out = reals_of(nd.items[0].tensor);
  std::vector<int64_t> mask = ints_of(nd.items[1].tensor);
  int kept = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], mask[i] ? 2.0 : 0.0);  // scaled by 1 / (1 - p)
    kept += mask[i] ? 1 : 0;
  }
  EXPECT_GT(kept, 10);
  EXPECT_LT(kept, 54);
  expect_reals(call_tensor("aten.native_dropout_backward",
                           {{"g", real_tensor({2}, {3, 3})}, {"m", int_tensor({2}, {1, 0}, B8)}},
                           {T("g"), T("m"), F(2)}),
               {6, 0});
}

TEST(ElementwiseKernels, InPlaceWritesIntoSelf) {
  Tensor x = real_tensor({2}, {1, 2});
  Tensor y = call_tensor("aten.add_.Tensor", {{"x", x}, {"y", real_tensor({2}, {10, 20})}},
                         {T("x"), T("y")});
  EXPECT_TRUE(y.shares_storage(x));
  expect_reals(x, {11, 22});
  // A float result cannot be written into an int tensor; self is never broadcast.
  std::string e = run_error([] {
    call_tensor("aten.div_.Tensor",
                {{"x", int_tensor({2}, {1, 2})}, {"y", int_tensor({2}, {2, 2})}}, {T("x"), T("y")});
  });
  EXPECT_TRUE(Contains(e, "can't be cast")) << e;
  e = run_error([] {
    call_tensor("aten.mul_.Tensor", {{"x", real_tensor({1}, {1})}, {"y", real_tensor({2}, {2, 2})}},
                {T("x"), T("y")});
  });
  EXPECT_FALSE(e.empty());
}

// ---- op cases for the shape property test ----

}  // namespace

std::vector<OpCase> elementwise_cases() {
  std::vector<OpCase> cases;
  auto add = [&cases](std::string name, std::vector<Input> inputs, std::vector<Call> calls,
                      std::vector<std::pair<std::string, DimDecl>> dims = {}) {
    cases.push_back({std::move(name), std::move(inputs), std::move(calls), std::move(dims)});
  };
  // One call `op` of target on args.
  auto one = [&add](std::string name, std::vector<Input> inputs, const std::string& target,
                    std::vector<Arg> args, Kwargs kwargs = {}) {
    add(std::move(name), std::move(inputs), {{"op", target, std::move(args), std::move(kwargs)}});
  };

  // Binary ops with broadcasting [a, 1] x [b], in place on [a, b] x [b].
  for (const char* op :
       {"add",         "sub",        "mul",         "maximum",      "minimum", "remainder",
        "fmod",        "fmax",       "fmin",        "copysign",     "hypot",   "atan2",
        "xlogy",       "div",        "true_divide", "floor_divide", "rsub",    "pow",
        "eq",          "ne",         "lt",          "le",           "gt",      "ge",
        "logical_and", "logical_or", "logical_xor"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".broadcast", {In("x", F32, {"a", "1"}), In("y", F32, {"b"})}, target,
        {T("x"), T("y")});
    one(std::string(op) + "_.in_place", {In("x", F32, {"a", "b"}), In("y", F32, {"b"})},
        target + "_", {T("x"), T("y")});
  }
  // Integer and mixed dtypes: integer divisors are numbers (generated ints may be 0).
  one("add.int32_int64", {In("x", I32, {"a", "b"}), In("y", I64, {"b"})}, "aten.add.Tensor",
      {T("x"), T("y")}, {{"alpha", I(3)}});
  one("add.int_float_number", {In("x", I32, {"a"})}, "aten.add.Tensor", {T("x"), F(2.5)});
  one("mul.zero_dim_f64", {In("x", F16, {"a", "b"}), In("s", F64, {})}, "aten.mul.Tensor",
      {T("x"), T("s")});
  one("mul.bool_int", {In("x", B8, {"a"}), In("y", I64, {"a"})}, "aten.mul.Tensor",
      {T("x"), T("y")});
  one("div.int_true", {In("x", I64, {"a", "b"}), In("y", I32, {"b"})}, "aten.div.Tensor",
      {T("x"), T("y")});
  one("div.int_floor_number", {In("x", I64, {"a", "b"})}, "aten.div.Tensor_mode", {T("x"), I(-3)},
      {{"rounding_mode", S("floor")}});
  one("div.trunc_float", {In("x", F32, {"a", "1"}), In("y", F64, {"b"})}, "aten.div.Tensor_mode",
      {T("x"), T("y")}, {{"rounding_mode", S("trunc")}});
  one("floor_divide.int_number", {In("x", I32, {"a"})}, "aten.floor_divide.Scalar",
      {T("x"), I(-2)});
  one("remainder.int_number", {In("x", I64, {"a", "b"})}, "aten.remainder.Scalar", {T("x"), I(5)});
  one("fmod.int_number", {In("x", I8, {"a"})}, "aten.fmod.Scalar", {T("x"), I(3)});
  one("pow.int_int", {In("x", I64, {"a", "1"}), In("y", I64, {"b"})}, "aten.pow.Tensor_Tensor",
      {T("x"), T("y")});
  one("pow.float_exponent", {In("x", I32, {"a"})}, "aten.pow.Tensor_Scalar", {T("x"), F(0.5)});
  one("pow.scalar_base", {In("e", F32, {"a", "b"})}, "aten.pow.Scalar", {I(2), T("e")});
  one("pow.complex", {In("x", C64, {"a"}), In("y", F32, {"a"})}, "aten.pow.Tensor_Tensor",
      {T("x"), T("y")});
  one("mul.complex_float", {In("x", C64, {"a", "1"}), In("y", F64, {"b"})}, "aten.mul.Tensor",
      {T("x"), T("y")});
  one("eq.int_float", {In("x", I64, {"a"}), In("y", F32, {"a"})}, "aten.eq.Tensor",
      {T("x"), T("y")});
  one("lt.number", {In("x", I32, {"a", "b"})}, "aten.lt.Scalar", {T("x"), F(0.5)});
  one("ne.complex", {In("x", C64, {"a"}), In("y", C64, {"1"})}, "aten.ne.Tensor", {T("x"), T("y")});
  one("logical_and.int_bool", {In("x", I64, {"a"}), In("y", B8, {"a"})}, "aten.logical_and",
      {T("x"), T("y")});
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".int", {In("x", I32, {"a", "1"}), In("y", I64, {"b"})},
        target + ".Tensor", {T("x"), T("y")});
    one(std::string(op) + ".bool", {In("x", B8, {"a"}), In("y", B8, {"a"})}, target + ".Tensor",
        {T("x"), T("y")});
    one(std::string(op) + "_.in_place", {In("x", I64, {"a", "b"}), In("y", I64, {"b"})},
        target + "_", {T("x"), T("y")});
  }
  one("bitwise_not", {In("x", I32, {"a", "b"})}, "aten.bitwise_not", {T("x")});
  one("bitwise_not.bool", {In("x", B8, {"a"})}, "aten.bitwise_not", {T("x")});
  one("bitwise_not_.in_place", {In("x", I64, {"a"})}, "aten.bitwise_not_", {T("x")});

  // where, clamp, lerp, addcmul, addcdiv, masked_fill.
  one("where.broadcast", {In("c", B8, {"a", "1"}), In("x", F32, {"b"}), In("y", F64, {"a", "b"})},
      "aten.where.self", {T("c"), T("x"), T("y")});
  one("where.numbers", {In("c", B8, {"a", "b"})}, "aten.where.Scalar", {T("c"), F(1.0), I(0)});
  one("where.int_number", {In("c", B8, {"a"}), In("x", I32, {"a"})}, "aten.where.ScalarOther",
      {T("c"), T("x"), I(2)});
  for (const char* op : {"clamp", "clip"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".numbers", {In("x", F32, {"a", "b"})}, target,
        {T("x"), F(-0.5), F(0.5)});
    one(std::string(op) + ".tensors",
        {In("x", F32, {"a", "1"}), In("lo", F32, {"b"}), In("hi", F64, {"a", "b"})},
        target + ".Tensor", {T("x"), T("lo"), T("hi")});
    one(std::string(op) + ".int_max_only", {In("x", I64, {"a"})}, target, {T("x"), None(), I(1)});
    one(std::string(op) + "_.in_place", {In("x", F32, {"a", "b"})}, target + "_",
        {T("x"), F(-0.25)});
  }
  one("lerp.scalar_weight", {In("x", F32, {"a", "1"}), In("y", F32, {"b"})}, "aten.lerp.Scalar",
      {T("x"), T("y"), F(0.3)});
  one("lerp.tensor_weight",
      {In("x", F32, {"a", "b"}), In("y", F32, {"b"}), In("w", F32, {"a", "1"})}, "aten.lerp.Tensor",
      {T("x"), T("y"), T("w")});
  one("lerp_.in_place", {In("x", F64, {"a"}), In("y", F64, {"a"})}, "aten.lerp_.Scalar",
      {T("x"), T("y"), F(0.7)});
  for (const char* op : {"addcmul", "addcdiv"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op) + ".broadcast",
        {In("s", F32, {"b"}), In("x", F32, {"a", "1"}), In("y", F32, {"a", "b"})}, target,
        {T("s"), T("x"), T("y")}, {{"value", F(0.5)}});
    one(std::string(op) + "_.in_place",
        {In("s", F64, {"a", "b"}), In("x", F64, {"b"}), In("y", F64, {"a", "1"})}, target + "_",
        {T("s"), T("x"), T("y")});
  }
  one("addcmul.int", {In("s", I64, {"a"}), In("x", I32, {"a"}), In("y", I32, {"a"})},
      "aten.addcmul", {T("s"), T("x"), T("y")}, {{"value", I(2)}});
  one("masked_fill.broadcast", {In("x", F32, {"a", "1"}), In("m", B8, {"b"})},
      "aten.masked_fill.Scalar", {T("x"), T("m"), F(-1.5)});
  one("masked_fill.int_tensor_value",
      {In("x", I32, {"a", "b"}), In("m", B8, {"a", "1"}), In("v", I64, {})},
      "aten.masked_fill.Tensor", {T("x"), T("m"), T("v")});
  one("masked_fill_.in_place", {In("x", F32, {"a", "b"}), In("m", B8, {"b"})},
      "aten.masked_fill_.Scalar", {T("x"), T("m"), I(0)});

  // Unary ops keeping the dtype (float, and int where PyTorch allows it), each also in place.
  struct Unary {
    const char* op;
    std::vector<Arg> extra;
    Kwargs kwargs;
    bool ints;
  };
  const std::vector<Unary> same = {
      {"neg", {}, {}, true},
      {"relu", {}, {}, true},
      {"sign", {}, {}, true},
      {"floor", {}, {}, true},
      {"ceil", {}, {}, true},
      {"round", {}, {}, true},
      {"trunc", {}, {}, true},
      {"clone", {}, {}, true},
      {"hardtanh", {F(-0.5), F(0.5)}, {}, false},
      {"leaky_relu", {F(0.2)}, {}, false},
      {"relu6", {}, {}, false},
      {"alias", {}, {}, true},
      {"positive", {}, {}, true},
      {"fill", {F(1.5)}, {}, true},
      {"zero", {}, {}, true},
      {"detach", {}, {}, true},
      {"contiguous", {}, {}, true},
      {"square", {}, {}, true},
      {"elu", {F(1.0)}, {}, false},
      {"celu", {}, {{"alpha", F(2.0)}}, false},
      {"selu", {}, {}, false},
      {"hardshrink", {F(0.3)}, {}, false},
      {"threshold", {F(0.1), F(-2)}, {}, false},
      {"nan_to_num", {}, {{"posinf", F(1.0)}}, true},
      {"clamp_min", {F(0.0)}, {}, false},
      {"clamp_max", {I(0)}, {}, false},
      {"frac", {}, {}, false},
      {"dropout", {F(0.5), B(true)}, {}, false},
      {"lift_fresh_copy", {}, {}, true},
      {"abs", {}, {}, true},
  };
  for (const Unary& u : same) {
    std::vector<Arg> args = {T("x")};
    args.insert(args.end(), u.extra.begin(), u.extra.end());
    const std::string target = std::string("aten.") + u.op;
    one(std::string(u.op), {In("x", F32, {"a", "b"})}, target, args, u.kwargs);
    one(std::string(u.op) + "_.in_place", {In("x", F64, {"a"})}, target + "_", args, u.kwargs);
    if (u.ints)
      one(std::string(u.op) + ".int32", {In("x", I32, {"a", "3"})}, target, args, u.kwargs);
  }
  one("round.decimals", {In("x", F64, {"a", "b"})}, "aten.round.decimals", {T("x")},
      {{"decimals", I(2)}});
  one("fill.tensor_value", {In("x", F16, {"a"}), In("v", F64, {})}, "aten.fill.Tensor",
      {T("x"), T("v")});
  one("clamp_min.tensor", {In("x", F32, {"a", "b"}), In("m", F32, {"a", "b"})},
      "aten.clamp_min.Tensor", {T("x"), T("m")});
  // Promotion the rules once got wrong: an int tensor clamped by a float bound is float32, and
  // a bool tensor squares to int64.
  one("clamp_min.int_by_float", {In("x", I64, {"a", "b"})}, "aten.clamp_min", {T("x"), F(0.5)});
  one("clamp_max.int_by_float", {In("x", I32, {"a"})}, "aten.clamp_max", {T("x"), F(0.5)});
  one("square.bool", {In("x", B8, {"a", "b"})}, "aten.square", {T("x")});
  one("abs.complex", {In("x", C64, {"a", "b"})}, "aten.abs", {T("x")});
  one("neg.complex", {In("x", C64, {"a"})}, "aten.neg", {T("x")});
  one("dropout.eval", {In("x", F32, {"a", "b"})}, "aten.dropout", {T("x"), F(0.1), B(false)});
  one("native_dropout_backward", {In("g", F32, {"a", "b"}), In("m", B8, {"a", "b"})},
      "aten.native_dropout_backward", {T("g"), T("m"), F(2.0)});
  one("native_dropout_backward_.in_place", {In("g", F32, {"a"}), In("m", B8, {"a"})},
      "aten.native_dropout_backward_", {T("g"), T("m"), F(2.0)});
  one("native_dropout.train", {In("x", F32, {"a", "b"})}, "aten.native_dropout",
      {T("x"), F(0.25), B(true)});
  one("native_dropout.eval", {In("x", F64, {"a"})}, "aten.native_dropout",
      {T("x"), F(0.25), B(false)});

  // Unary ops computing in floating point: float16, int (-> float32), in place on float32.
  for (const char* op :
       {"exp",     "exp2",      "expm1",       "log",      "log2",       "log10",       "log1p",
        "sqrt",    "rsqrt",     "sin",         "cos",      "tan",        "asin",        "acos",
        "atan",    "sinh",      "cosh",        "tanh",     "asinh",      "acosh",       "atanh",
        "sigmoid", "erf",       "erfc",        "erfinv",   "reciprocal", "gelu",        "silu",
        "mish",    "hardswish", "hardsigmoid", "softplus", "logit",      "log_sigmoid", "digamma",
        "lgamma",  "sinc"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op), {In("x", F16, {"a", "b"})}, target, {T("x")});
    one(std::string(op) + ".int", {In("x", I64, {"a"})}, target, {T("x")});
    one(std::string(op) + "_.in_place", {In("x", F32, {"a", "b"})}, target + "_", {T("x")});
  }
  for (const char* op : {"exp", "log", "sqrt", "sin", "tanh", "sigmoid", "reciprocal"}) {
    one(std::string(op) + ".complex", {In("x", C64, {"a"})}, std::string("aten.") + op, {T("x")});
  }
  one("gelu.tanh", {In("x", F32, {"a"})}, "aten.gelu", {T("x")}, {{"approximate", S("tanh")}});
  one("softplus.params", {In("x", F32, {"a"})}, "aten.softplus", {T("x"), F(2), F(5)});
  one("logit.eps", {In("x", F32, {"a"})}, "aten.logit", {T("x"), F(1e-3)});

  // Predicates: bool results.
  for (const char* op :
       {"isnan", "isinf", "isfinite", "logical_not", "isneginf", "isposinf", "signbit"}) {
    const std::string target = std::string("aten.") + op;
    one(std::string(op), {In("x", F32, {"a", "b"})}, target, {T("x")});
    one(std::string(op) + ".int", {In("x", I32, {"a"})}, target, {T("x")});
    one(std::string(op) + "_.in_place", {In("x", F32, {"a"})}, target + "_", {T("x")});
  }
  one("isnan.complex", {In("x", C64, {"a"})}, "aten.isnan", {T("x")});

  // A chain through several ops over symbolic dims, with a declared range.
  add("chain.mlp_like", {In("x", F32, {"n", "d"}), In("w", F32, {"d"}), In("m", B8, {"n", "1"})},
      {{"y", "aten.mul.Tensor", {T("x"), T("w")}},
       {"z", "aten.gelu", {T("y")}},
       {"u", "aten.masked_fill.Scalar", {T("z"), T("m"), F(0.0)}},
       {"v", "aten.div.Tensor", {T("u"), I(4)}},
       {"out", "aten.where.self", {T("m"), T("v"), T("x")}}},
      {Dim("n", 4, 2, 6), Dim("d", 3, 1, 5)});
  return cases;
}

}  // namespace symshape::testing
