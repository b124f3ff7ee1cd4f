// Shape rules of elementwise ops: type promotion, broadcasting, where / clamp, unary ops and the
// in-place variants.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

Input tensor(const std::string& name, std::vector<std::string> shape,
             DType dtype = DType::Float32) {
  return {name, dtype, std::move(shape)};
}

// a + b for two tensors of the given shapes and dtypes.
OpRun add(std::vector<std::string> a, DType da, std::vector<std::string> b, DType db,
          std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  return run_op({tensor("a", std::move(a), da), tensor("b", std::move(b), db)}, "aten.add.Tensor",
                {T("a"), T("b")}, {}, std::move(dims));
}

// The dtype `target(x, scalar)` computes for a tensor x of `shape` and `dtype`.
std::string with_scalar(const std::string& target, DType dtype, Arg scalar,
                        std::vector<std::string> shape = {"3"}) {
  return run_op({tensor("x", std::move(shape), dtype)}, target, {T("x"), std::move(scalar)}).str();
}

constexpr DType F16 = DType::Float16, F32 = DType::Float32, F64 = DType::Float64, I8 = DType::Int8,
                I32 = DType::Int32, I64 = DType::Int64, B8 = DType::Bool, C64 = DType::Complex64,
                C128 = DType::Complex128, BF16 = DType::BFloat16;

// ---- type promotion ----

TEST(TypePromotion, TensorsOfOneTier) {
  EXPECT_EQ(add({"3"}, I32, {"3"}, I64).str(), "int64[3]");
  EXPECT_EQ(add({"3"}, F16, {"3"}, F32).str(), "float32[3]");
  EXPECT_EQ(add({"3"}, BF16, {"3"}, F16).str(), "float32[3]");
  EXPECT_EQ(add({"3"}, I64, {"3"}, F16).str(), "float16[3]");
  EXPECT_EQ(add({"3"}, F32, {"3"}, C64).str(), "complex64[3]");
  EXPECT_EQ(add({"3"}, F64, {"3"}, C64).str(), "complex128[3]");
  EXPECT_EQ(add({"3"}, B8, {"3"}, B8).str(), "bool[3]");
  EXPECT_EQ(add({"3"}, B8, {"3"}, I8).str(), "int8[3]");
}

TEST(TypePromotion, PythonScalarsOnlyRaiseTheCategory) {
  EXPECT_EQ(with_scalar("aten.add.Tensor", I32, F(2.5)), "float32[3]");
  EXPECT_EQ(with_scalar("aten.mul.Tensor", I8, I(1000)), "int8[3]");
  EXPECT_EQ(with_scalar("aten.add.Tensor", F16, F(2.5)), "float16[3]");
  EXPECT_EQ(with_scalar("aten.add.Tensor", B8, I(1)), "int64[3]");
  EXPECT_EQ(with_scalar("aten.add.Tensor", B8, F(1.0)), "float32[3]");
  EXPECT_EQ(with_scalar("aten.add.Tensor", I32, B(true)), "int32[3]");
  EXPECT_EQ(with_scalar("aten.mul.Tensor", F64, F(0.5)), "float64[3]");
}

TEST(TypePromotion, ZeroDimTensorsRankBetweenTensorsAndScalars) {
  EXPECT_EQ(add({}, F64, {"3"}, F32).str(), "float32[3]");
  EXPECT_EQ(add({"3"}, I32, {}, F64).str(), "float64[3]");
  EXPECT_EQ(add({"3"}, B8, {}, I32).str(), "int32[3]");
  EXPECT_EQ(add({"3"}, I32, {}, I64).str(), "int32[3]");
  EXPECT_EQ(add({"3"}, I32, {}, C128).str(), "complex128[3]");
  EXPECT_EQ(add({"3"}, F16, {}, C128).str(), "complex64[3]");
  EXPECT_EQ(add({}, F64, {}, F32).str(), "float64[]");
  // A 0-dim int tensor with a Python float: the float's default dtype.
  EXPECT_EQ(with_scalar("aten.add.Tensor", I64, F(1.5), {}), "float32[]");
}

TEST(TypePromotion, SymIntScalars) {
  OpRun r = run_ops(
      {tensor("x", {"batch", "4"}, F16)},
      {{"n", "aten.sym_size.int", {T("x"), I(0)}}, {"y", "aten.mul.Tensor", {T("x"), T("n")}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[batch, 4]");
  OpRun ints = run_ops({tensor("x", {"batch"}, I32)}, {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                                                       {"y", "aten.add.Tensor", {T("x"), T("n")}}});
  EXPECT_EQ(ints.str(), "int32[batch]");
}

TEST(TypePromotion, DivisionAndFloatingOps) {
  EXPECT_EQ(add({"3"}, I32, {"3"}, I64).str(), "int64[3]");
  OpRun div = run_op({tensor("a", {"3"}, I32), tensor("b", {"3"}, I64)}, "aten.div.Tensor",
                     {T("a"), T("b")});
  EXPECT_EQ(div.str(), "float32[3]");
  OpRun floor = run_op({tensor("a", {"3"}, I32), tensor("b", {"3"}, I64)}, "aten.div.Tensor_mode",
                       {T("a"), T("b")}, {{"rounding_mode", S("floor")}});
  EXPECT_EQ(floor.str(), "int64[3]");
  EXPECT_EQ(with_scalar("aten.div.Scalar", I64, I(2)), "float32[3]");
  EXPECT_EQ(with_scalar("aten.div.Scalar", F64, I(2)), "float64[3]");
  EXPECT_EQ(with_scalar("aten.true_divide.Scalar", B8, I(2)), "float32[3]");
  EXPECT_EQ(with_scalar("aten.pow.Tensor_Scalar", I32, I(2)), "int32[3]");
  EXPECT_EQ(with_scalar("aten.pow.Tensor_Scalar", I32, F(0.5)), "float32[3]");
  EXPECT_EQ(run_op({tensor("e", {"3"}, I32)}, "aten.pow.Scalar", {F(2.0), T("e")}).str(),
            "float32[3]");
}

TEST(TypePromotion, FloatOnlyBinaryOpsOnIntegers) {
  // copysign, atan2 and xlogy compute integers in float32; hypot refuses them.
  for (const char* op : {"aten.copysign.Tensor", "aten.atan2.default", "aten.xlogy.Tensor"}) {
    OpRun r = run_op({tensor("a", {"3"}, I32), tensor("b", {"3"}, I64)}, op, {T("a"), T("b")});
    EXPECT_EQ(r.str(), "float32[3]") << op;
  }
  OpRun h = run_op({tensor("a", {"3"}, I32), tensor("b", {"3"}, I64)}, "aten.hypot.default",
                   {T("a"), T("b")});
  EXPECT_FALSE(h.ok());
  EXPECT_TRUE(Contains(h.error(), "hypot is not implemented for int64 tensors")) << h.error();
  OpRun hf = run_op({tensor("a", {"3"}, F64), tensor("b", {"3"}, I64)}, "aten.hypot.default",
                    {T("a"), T("b")});
  EXPECT_EQ(hf.str(), "float64[3]");
}

TEST(TypePromotion, ClampBoundsAndSquareOfBool) {
  EXPECT_EQ(with_scalar("aten.clamp_min.default", I64, F(0.5)), "float32[3]");
  EXPECT_EQ(with_scalar("aten.clamp_max.default", I32, I(2)), "int32[3]");
  EXPECT_EQ(run_op({tensor("x", {"3"}, B8)}, "aten.square.default", {T("x")}).str(), "int64[3]");
  EXPECT_EQ(run_op({tensor("x", {"3"}, I32)}, "aten.square.default", {T("x")}).str(), "int32[3]");
  OpRun c = run_op({tensor("x", {"3"}, C64)}, "aten.clamp_min.default", {T("x"), F(0.5)});
  EXPECT_TRUE(Contains(c.error(), "clamp is not supported for complex types")) << c.error();
}

TEST(TypePromotion, UnaryOps) {
  std::vector<Input> ints = {tensor("x", {"a"}, I32)};
  EXPECT_EQ(run_op(ints, "aten.sigmoid.default", {T("x")}).str(), "float32[a]");
  EXPECT_EQ(run_op(ints, "aten.neg.default", {T("x")}).str(), "int32[a]");
  EXPECT_EQ(run_op(ints, "aten.isnan.default", {T("x")}).str(), "bool[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, F16)}, "aten.exp.default", {T("x")}).str(), "float16[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, C64)}, "aten.abs.default", {T("x")}).str(), "float32[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, C128)}, "aten.exp.default", {T("x")}).str(),
            "complex128[a]");
}

TEST(TensorComparisons, AreBoolAndBroadcast) {
  EXPECT_EQ(with_scalar("aten.lt.Scalar", I32, F(0.5)), "bool[3]");
  OpRun r = run_op({tensor("a", {"n", "1"}, F16), tensor("b", {"m"}, I64)}, "aten.eq.Tensor",
                   {T("a"), T("b")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "bool[n, m]");
  EXPECT_EQ(run_op({tensor("a", {"3"}, B8), tensor("b", {"3"}, B8)}, "aten.logical_and.default",
                   {T("a"), T("b")})
                .str(),
            "bool[3]");
}

// ---- broadcasting ----

TEST(Broadcast, AlignsFromTheRight) {
  EXPECT_EQ(add({"3", "1", "5"}, F32, {"4", "1"}, F32).str(), "float32[3, 4, 5]");
  OpRun r = add({"s0", "1"}, F32, {"4"}, F32);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[s0, 4]");
  EXPECT_TRUE(r.guards().empty());
  EXPECT_EQ(add({}, F32, {"a", "b"}, F32).str(), "float32[a, b]");
}

TEST(Broadcast, MismatchNamesTheNodeShapesAndDim) {
  OpRun r = run_op({tensor("x", {"s0", "4"}), tensor("y", {"s0", "5"})}, "aten.add.Tensor",
                   {T("x"), T("y")}, {}, {}, "add_3");
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node add_3 (aten.add.Tensor): cannot broadcast [s0, 4] with [s0, 5] at dim 1 "
            "(4 != 5)");
}

TEST(Broadcast, SymbolAgainstOneNeedsNoGuard) {
  OpRun r = add({"batch", "1"}, F32, {"1", "seq"}, F32);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, seq]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Broadcast, ExpressionThatMayBeOneIsGuarded) {
  // n - 1 ranges over [1, inf]; at the hint n = 5 it is 4, so it must equal the other side.
  OpRun r = add({"n - 1"}, F32, {"4"}, F32, {Dim("n", 5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[4]");
  EXPECT_EQ(joined(r.guards()), "n - 1 != 1; n - 1 == 4");
  OpRun one = add({"n - 1"}, F32, {"4"}, F32, {Dim("n", 2)});
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(one.str(), "float32[4]");
  EXPECT_EQ(joined(one.guards()), "n - 1 == 1");
}

TEST(Broadcast, TwoSymbolsAreGuardedEqualThenReplaced) {
  OpRun r = run_ops(
      {tensor("x", {"a"}), tensor("y", {"b"})},
      {{"s", "aten.add.Tensor", {T("x"), T("y")}}, {"again", "aten.neg.default", {T("y")}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.result.values[2].str(), "float32[a]");
  EXPECT_EQ(joined(r.guards()), "a == b");
  EXPECT_EQ(r.env->replacements().count("b"), 1u);
  EXPECT_EQ(r.str(), "float32[a]");
  OpRun mismatch = add({"a"}, F32, {"b"}, F32, {Dim("a", 3), Dim("b", 4)});
  EXPECT_EQ(mismatch.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(mismatch.error(), "cannot broadcast [a] with [b] at dim 0 (a != b)"));
}

TEST(Broadcast, UnbackedSizesAreSizeOblivious) {
  std::vector<Call> nz = {{"nz", "aten.nonzero.default", {T("m")}}};
  std::vector<Call> with_one = nz;
  with_one.push_back({"s", "aten.add.Tensor", {T("nz"), T("o")}});
  OpRun r = run_ops({tensor("m", {"3", "4"}), tensor("o", {"1", "2"}, I64)}, with_one);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[u0, 2]");
  EXPECT_TRUE(r.guards().empty());
  std::vector<Call> with_three = nz;
  with_three.push_back({"s", "aten.add.Tensor", {T("nz"), T("o")}});
  OpRun asserted = run_ops({tensor("m", {"3", "4"}), tensor("o", {"3", "2"}, I64)}, with_three);
  ASSERT_TRUE(asserted.ok()) << asserted.error();
  EXPECT_EQ(joined(asserted.runtime_asserts()), "u0 == 3");
  EXPECT_TRUE(asserted.guards().empty());
}

// ---- where / clamp / masked_fill / n-ary ----

TEST(Where, BroadcastsAllThreeAndPromotesTheValues) {
  OpRun r = run_op({tensor("c", {"a", "1"}, B8), tensor("x", {"1", "b"}, F16)}, "aten.where.self",
                   {T("c"), T("x"), F(0.0)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[a, b]");
  EXPECT_EQ(run_op({tensor("c", {"3"}, B8), tensor("x", {"3"}, I32)}, "aten.where.ScalarOther",
                   {T("c"), T("x"), F(1.5)})
                .str(),
            "float32[3]");
  EXPECT_EQ(run_op({tensor("c", {"3"}, B8)}, "aten.where.Scalar", {T("c"), I(1), I(0)}).str(),
            "int64[3]");
  OpRun floats =
      run_op({tensor("c", {"3"}), tensor("x", {"3"})}, "aten.where.self", {T("c"), T("x"), T("x")});
  EXPECT_EQ(floats.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(floats.error(), "condition to be a boolean tensor"));
}

TEST(Clamp, ScalarsPromoteAndTensorsBroadcast) {
  EXPECT_EQ(run_op({tensor("x", {"a"}, I32)}, "aten.clamp.default", {T("x"), F(0.5)}).str(),
            "float32[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, I32)}, "aten.clamp.default", {T("x"), None(), I(3)}).str(),
            "int32[a]");
  OpRun tensors = run_op({tensor("x", {"a", "1"}), tensor("lo", {"b"}), tensor("hi", {"1", "1"})},
                         "aten.clamp.Tensor", {T("x"), T("lo"), T("hi")});
  ASSERT_TRUE(tensors.ok()) << tensors.error();
  EXPECT_EQ(tensors.str(), "float32[a, b]");
  OpRun neither = run_op({tensor("x", {"a"})}, "aten.clamp.default", {T("x")});
  EXPECT_EQ(neither.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(neither.error(), "at least one of 'min' or 'max'"));
  OpRun complex = run_op({tensor("x", {"a"}, C64)}, "aten.clamp.default", {T("x"), F(0.0)});
  EXPECT_EQ(complex.result.status, Propagation::Status::InputError);
}

TEST(MaskedFill, KeepsSelfsDtypeAndBroadcasts) {
  OpRun r = run_op({tensor("x", {"a", "b"}, F16), tensor("m", {"b"}, B8)},
                   "aten.masked_fill.Scalar", {T("x"), T("m"), F(-1e9)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[a, b]");
}

TEST(Ternary, LerpAddcmul) {
  EXPECT_EQ(run_op({tensor("x", {"a", "1"}), tensor("y", {"b"}), tensor("w", {})},
                   "aten.lerp.Tensor", {T("x"), T("y"), T("w")})
                .str(),
            "float32[a, b]");
  EXPECT_EQ(run_op({tensor("x", {"3"}, F16), tensor("y", {"3"}, F16), tensor("z", {"2", "1"}, F16)},
                   "aten.addcmul.default", {T("x"), T("y"), T("z")})
                .str(),
            "float16[2, 3]");
}

TEST(NativeDropout, ReturnsOutputAndMask) {
  EXPECT_EQ(run_op({tensor("x", {"a", "4"}, F16)}, "aten.native_dropout.default",
                   {T("x"), F(0.1), B(true)})
                .str(),
            "(float16[a, 4], bool[a, 4])");
}

// ---- in place ----

TEST(InPlace, KeepsSelfsShapeDtypeAndStrides) {
  OpRun r = run_op({tensor("x", {"a", "4"}, F16), tensor("y", {"4"})}, "aten.add_.Tensor",
                   {T("x"), T("y")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[a, 4]");
  OpRun transposed =
      run_ops({tensor("x", {"a", "b"})},
              {{"t", "aten.t.default", {T("x")}}, {"m", "aten.mul_.Scalar", {T("t"), F(2.0)}}});
  EXPECT_EQ(transposed.str(), "float32[b, a]");
  EXPECT_EQ(strides_str(transposed.value()), "[1, b]");
  // A comparison in place writes bools into self's dtype.
  EXPECT_EQ(with_scalar("aten.lt_.Scalar", F32, F(0.0)), "float32[3]");
  EXPECT_EQ(run_op({tensor("x", {"3"}, F16)}, "aten.sigmoid_.default", {T("x")}).str(),
            "float16[3]");
}

TEST(InPlace, BroadcastingSelfIsAnError) {
  OpRun r = run_op({tensor("x", {"a", "1"}), tensor("y", {"a", "4"})}, "aten.add_.Tensor",
                   {T("x"), T("y")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (aten.add_.Tensor): an in-place op cannot broadcast self [a, 1] to [a, 4]");
  OpRun rank =
      run_op({tensor("x", {"4"}), tensor("y", {"2", "4"})}, "aten.mul_.Tensor", {T("x"), T("y")});
  EXPECT_EQ(rank.result.status, Propagation::Status::ShapeError);
}

TEST(InPlace, ResultMustBeCastableToSelf) {
  OpRun r =
      run_op({tensor("x", {"3"}, I32), tensor("y", {"3"})}, "aten.add_.Tensor", {T("x"), T("y")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "result type float32 can't be cast to the desired output type "
                       "int32"));
  EXPECT_FALSE(run_op({tensor("x", {"3"}, I64)}, "aten.div_.Scalar", {T("x"), I(2)}).ok());
  EXPECT_FALSE(run_op({tensor("x", {"3"}, F32), tensor("z", {"3"}, C64)}, "aten.mul_.Tensor",
                      {T("x"), T("z")})
                   .ok());
  EXPECT_EQ(run_op({tensor("x", {"3"}, F16), tensor("y", {"3"}, F64)}, "aten.mul_.Tensor",
                   {T("x"), T("y")})
                .str(),
            "float16[3]");
  EXPECT_EQ(with_scalar("aten.add_.Scalar", I64, I(1)), "int64[3]");
}

// ---- unknown ops ----

TEST(UnknownOp, IsAClearErrorNamingIt) {
  OpRun r = run_op({tensor("x", {"3"})}, "aten.frobnicate.default", {T("x")}, {}, {}, "f");
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_EQ(r.error(),
            "node f (aten.frobnicate.default): unknown op 'aten.frobnicate.default' "
            "(no shape rule)");
}

TEST(BadOperands, AreInputErrors) {
  OpRun missing = run_op({}, "aten.add.Tensor", {});
  EXPECT_EQ(missing.result.status, Propagation::Status::InputError);
  OpRun string = run_op({tensor("x", {"3"})}, "aten.add.Tensor", {T("x"), S("two")});
  EXPECT_EQ(string.result.status, Propagation::Status::InputError);
}

// An in-place op without a rule of its own (`cumsum_`) runs its functional rule written into
// self: self's dtype and shape, not the functional result's (cumsum of int32 is int64).
TEST(InPlace, FallbackForAnyOpKeepsSelf) {
  OpRun r = run_op({tensor("x", {"a", "4"}, I32)}, "aten.cumsum_.default", {T("x"), I(0)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int32[a, 4]");
  OpRun f = run_op({tensor("x", {"a", "4"}, I32)}, "aten.cumsum.default", {T("x"), I(0)});
  EXPECT_EQ(f.str(), "int64[a, 4]");
}

}  // namespace
}  // namespace symshape::testing
