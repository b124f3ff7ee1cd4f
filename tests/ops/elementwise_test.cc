// Shape rules of elementwise ops: type promotion, broadcasting, where / clamp, unary ops and the
// in-place variants.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

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

// ---- output layout (PyTorch's TensorIterator: the output follows the inputs' memory layout) ----

// A placeholder with explicit strides ("" strides: contiguous).
struct Strided {
  std::string name;
  std::vector<std::string> shape;
  std::vector<std::string> strides;
};

// The strides of the last call's output on strided placeholders.
std::string layout(const std::vector<Strided>& inputs, std::vector<Call> calls) {
  Graph g;
  for (const Strided& in : inputs) {
    Node n;
    n.name = in.name;
    n.op = NodeOp::Placeholder;
    n.target = in.name;
    n.dtype = DType::Float32;
    std::vector<Expr> shape, strides;
    for (const std::string& e : in.shape) shape.push_back(parse_expr(e).value());
    for (const std::string& e : in.strides) strides.push_back(parse_expr(e).value());
    n.shape = shape;
    if (!strides.empty()) n.stride = strides;
    g.nodes.push_back(std::move(n));
  }
  for (Call& c : calls) {
    Node call;
    call.name = c.name;
    call.op = NodeOp::CallFunction;
    call.target = c.target;
    call.args = std::move(c.args);
    call.kwargs = std::move(c.kwargs);
    g.nodes.push_back(std::move(call));
  }
  Node output;
  output.name = "output";
  output.op = NodeOp::Output;
  output.target = "output";
  output.args = {Arg::node(g.nodes.back().name)};
  g.nodes.push_back(std::move(output));
  ShapeEnv env;
  Propagation p = propagate(g, env);
  if (p.status != Propagation::Status::Ok) return "error: " + p.error;
  return strides_str(p.values[g.nodes.size() - 2]);
}

std::string binary_layout(const std::string& target, const std::vector<Strided>& inputs, Arg a,
                          Arg b) {
  return layout(inputs, {{"op", target, {std::move(a), std::move(b)}}});
}

// The expected strides are torch 1.13's (`.stride()` of the result), at the concrete sizes; the
// symbolic cases are the same layouts with the sizes as symbols.
TEST(ElementwiseLayout, ChannelsLastIsKept) {
  // x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last): strides (60, 1, 15, 3).
  const Strided x = {"x", {"2", "3", "4", "5"}, {"60", "1", "15", "3"}};
  const Strided y = {"y", {"2", "3", "4", "5"}, {}};
  // x + 1, relu(x), exp(x): (60, 1, 15, 3).
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x}, T("x"), I(1)), "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x}, {{"op", "aten.relu.default", {T("x")}}}), "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x}, {{"op", "aten.exp.default", {T("x")}}}), "[60, 1, 15, 3]");
  // x + y keeps x's channels_last; y + x: the first operand wins, contiguous (60, 20, 5, 1).
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, y}, T("x"), T("y")), "[60, 1, 15, 3]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, y}, T("y"), T("x")), "[60, 20, 5, 1]");
  // Broadcast operands do not decide: x + b(3, 1, 1), b + x, x + b(5): (60, 1, 15, 3).
  const Strided b = {"b", {"3", "1", "1"}, {}};
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, b}, T("x"), T("b")), "[60, 1, 15, 3]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, b}, T("b"), T("x")), "[60, 1, 15, 3]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, {"v", {"5"}, {}}}, T("x"), T("v")),
            "[60, 1, 15, 3]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, {"w", {"4", "5"}, {}}}, T("x"), T("w")),
            "[60, 1, 15, 3]");
  // Comparisons, where (the condition is the first operand) and clamp.
  EXPECT_EQ(binary_layout("aten.eq.Tensor", {x, y}, T("x"), T("y")), "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x, y}, {{"c", "aten.gt.Scalar", {T("x"), I(0)}},
                            {"op", "aten.where.self", {T("c"), T("x"), T("y")}}}),
            "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x, y}, {{"c", "aten.gt.Scalar", {T("y"), I(0)}},
                            {"op", "aten.where.self", {T("c"), T("x"), T("y")}}}),
            "[60, 20, 5, 1]");
  EXPECT_EQ(layout({x}, {{"op", "aten.clamp.default", {T("x"), F(0.0)}}}), "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x, y}, {{"op", "aten.clamp.Tensor", {T("x"), T("y")}}}), "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x, y}, {{"op", "aten.lerp.Scalar", {T("x"), T("y"), F(0.5)}}}),
            "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x}, {{"op", "aten.addcmul.default", {T("x"), T("x"), T("x")}}}),
            "[60, 1, 15, 3]");
  EXPECT_EQ(layout({x}, {{"op", "aten.nan_to_num.default", {T("x")}}}), "[60, 1, 15, 3]");
  // masked_fill fills a contiguous clone: x.masked_fill(m, 0.) is (60, 20, 5, 1).
  EXPECT_EQ(layout({x, {"m", {"2", "3", "4", "5"}, {}}},
                   {{"b", "aten.gt.Scalar", {T("m"), I(0)}},
                    {"op", "aten.masked_fill.Scalar", {T("x"), T("b"), F(0.0)}}}),
            "[60, 20, 5, 1]");
  // channels_last_3d: torch.randn(2, 3, 4, 5, 6).to(memory_format=torch.channels_last_3d) * 2
  // is (360, 1, 90, 18, 3).
  const Strided x3 = {"x", {"2", "3", "4", "5", "6"}, {"360", "1", "90", "18", "3"}};
  EXPECT_EQ(binary_layout("aten.mul.Tensor", {x3}, T("x"), I(2)), "[360, 1, 90, 18, 3]");
}

TEST(ElementwiseLayout, SizeOneDimsFollowTensorIterator) {
  // z = torch.randn(2, 1, 4, 5).to(memory_format=torch.channels_last): (20, 1, 5, 1), which is
  // also row-major contiguous. relu(z) and z + z take the contiguous fast path: (20, 20, 5, 1);
  // z + 1 (a wrapped scalar operand) orders the dims: (20, 1, 5, 1).
  const Strided z = {"z", {"2", "1", "4", "5"}, {"20", "1", "5", "1"}};
  EXPECT_EQ(layout({z}, {{"op", "aten.relu.default", {T("z")}}}), "[20, 20, 5, 1]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {z}, T("z"), T("z")), "[20, 20, 5, 1]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {z}, T("z"), I(1)), "[20, 1, 5, 1]");
}

TEST(ElementwiseLayout, TransposedAndPermuted) {
  // a = torch.randn(3, 4); a.t(): [4, 3] strides (1, 4).
  const Strided at = {"a", {"4", "3"}, {"1", "4"}};
  const Strided c = {"c", {"4", "3"}, {}};
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at}, T("a"), I(1)), "[1, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at}, T("a"), T("a")), "[1, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at, c}, T("a"), T("c")), "[1, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at, c}, T("c"), T("a")), "[3, 1]");
  // a.t() + torch.randn(1, 3).expand(4, 3): (1, 4).
  const Strided e = {"e", {"4", "3"}, {"0", "1"}};
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at, e}, T("a"), T("e")), "[1, 4]");
  // torch.randn(3, 1).expand(3, 4) + 1 and torch.randn(1, 4).expand(3, 4) + 1: (4, 1).
  EXPECT_EQ(binary_layout("aten.add.Tensor", {{"e", {"3", "4"}, {"1", "0"}}}, T("e"), I(1)),
            "[4, 1]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {{"e", {"3", "4"}, {"0", "1"}}}, T("e"), I(1)),
            "[4, 1]");
  // p = torch.randn(2, 3, 4).permute(2, 0, 1): [4, 2, 3] strides (1, 12, 4). p * 2, p + q and
  // p + b(3), p + b(4, 1, 1) keep it; q + p (q contiguous first) is (6, 3, 1).
  const Strided p = {"p", {"4", "2", "3"}, {"1", "12", "4"}};
  const Strided q = {"q", {"4", "2", "3"}, {}};
  EXPECT_EQ(binary_layout("aten.mul.Tensor", {p}, T("p"), I(2)), "[1, 12, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {p, q}, T("p"), T("q")), "[1, 12, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {p, q}, T("q"), T("p")), "[6, 3, 1]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {p, {"v", {"3"}, {}}}, T("p"), T("v")), "[1, 12, 4]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {p, {"v", {"4", "1", "1"}, {}}}, T("p"), T("v")),
            "[1, 12, 4]");
  // Non-dense inputs give a dense output in their order: torch.randn(4, 6)[:, ::2] + 1 is
  // (3, 1); torch.randn(6, 4).t()[:, ::2] ([4, 3] strides (1, 8)) + 1 is (1, 4).
  EXPECT_EQ(binary_layout("aten.add.Tensor", {{"s", {"4", "3"}, {"6", "2"}}}, T("s"), I(1)),
            "[3, 1]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {{"s", {"4", "3"}, {"1", "8"}}}, T("s"), I(1)),
            "[1, 4]");
}

TEST(ElementwiseLayout, SymbolicSizes) {
  // The same layouts over symbolic sizes: a channels_last [n, c, h, w] input.
  const Strided x = {"x", {"n", "c", "h", "w"}, {"c*h*w", "1", "c*w", "c"}};
  const Strided y = {"y", {"n", "c", "h", "w"}, {}};
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x}, T("x"), I(1)), "[c*h*w, 1, c*w, c]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, y}, T("x"), T("y")), "[c*h*w, 1, c*w, c]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {x, y}, T("y"), T("x")), "[c*h*w, h*w, w, 1]");
  EXPECT_EQ(binary_layout("aten.mul.Tensor", {x, {"b", {"c", "1", "1"}, {}}}, T("b"), T("x")),
            "[c*h*w, 1, c*w, c]");
  // A transposed [m, k] matrix (strides (1, m)) and a permuted [d0, d1, d2] tensor of a
  // contiguous [d1, d2, d0] one (strides (1, d2*d0, d0)).
  const Strided at = {"a", {"m", "k"}, {"1", "m"}};
  EXPECT_EQ(binary_layout("aten.add.Tensor", {at}, T("a"), I(1)), "[1, m]");
  EXPECT_EQ(binary_layout("aten.sub.Tensor", {at, {"c", {"m", "k"}, {}}}, T("c"), T("a")),
            "[k, 1]");
  const Strided p = {"p", {"d0", "d1", "d2"}, {"1", "d0*d2", "d0"}};
  EXPECT_EQ(layout({p}, {{"op", "aten.sigmoid.default", {T("p")}}}), "[1, d0*d2, d0]");
  EXPECT_EQ(binary_layout("aten.add.Tensor", {p, {"v", {"d2"}, {}}}, T("p"), T("v")),
            "[1, d0*d2, d0]");
}

}  // namespace
}  // namespace symshape::testing
