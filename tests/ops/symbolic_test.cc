// Shape rules of symbolic scalars: sizes read off tensors, Python operators on SymInts, getitem,
// asserts and range constraints.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

const Input kSeqX = tensor("x", {"batch", "seq", "512"});

// sym_size.int(x, 0) as `b` and sym_size.int(x, 1) as `s`, then `calls`.
OpRun with_sizes(std::vector<Call> calls, std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  std::vector<Call> all = {{"b", "aten.sym_size.int", {T("x"), I(0)}},
                           {"s", "aten.sym_size.int", {T("x"), I(1)}}};
  all.insert(all.end(), calls.begin(), calls.end());
  return run_ops({kSeqX}, std::move(all), std::move(dims));
}

// The value of a single `target(a, b)` call after the two sizes.
OpRun binary(const std::string& target, Arg a, Arg b,
             std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  return with_sizes({{"op", target, {std::move(a), std::move(b)}}}, std::move(dims));
}

// ---- sizes, strides, numel ----

TEST(SymSize, ReadsOneOrAllSizes) {
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_size.int", {T("x"), I(0)}).str(), "batch");
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_size.int", {T("x"), I(-1)}).str(), "512");
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_size.default", {T("x")}).str(), "(batch, seq, 512)");
  OpRun bad = run_op({kSeqX}, "aten.sym_size.int", {T("x"), I(3)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad.error(), "dim 3 is out of range for a tensor of rank 3"));
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.sym_size.int", {T("x"), I(0)}).result.status,
            Propagation::Status::InputError);
}

TEST(SymStride, ContiguousOrStored) {
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_stride.int", {T("x"), I(0)}).str(), "512*seq");
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_stride.default", {T("x")}).str(), "(512*seq, 512, 1)");
  OpRun transposed = run_ops({kSeqX}, {{"t", "aten.transpose.int", {T("x"), I(0), I(2)}},
                                       {"st", "aten.sym_stride.int", {T("t"), I(0)}}});
  EXPECT_EQ(transposed.str(), "1");
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.sym_stride.int", {T("x"), I(0)}).result.status,
            Propagation::Status::InputError);
}

TEST(SymNumel, ProductOfSizes) {
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_numel.default", {T("x")}).str(), "512*batch*seq");
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.sym_numel.default", {T("x")}).str(), "1");
  EXPECT_EQ(run_op({kSeqX}, "aten.sym_storage_offset.default", {T("x")}).str(), "0");
  EXPECT_EQ(run_op({kSeqX}, "aten.dim.default", {T("x")}).str(), "3");
}

// sym_is_contiguous: PyTorch's is_contiguous (a size-1 dim's stride does not matter), for
// contiguous_format and channels_last.
TEST(SymIsContiguous, RowMajorAndChannelsLast) {
  const Input x = tensor("x", {"2", "3", "4", "5"});
  EXPECT_EQ(run_op({x}, "aten.sym_is_contiguous.default", {T("x")}).str(), "True");
  auto after = [&](std::vector<Call> calls) { return run_ops({x}, std::move(calls)).str(); };
  // Transposed: not contiguous; permuted to NHWC, made contiguous and permuted back: channels
  // last.
  EXPECT_EQ(after({{"t", "aten.transpose.int", {T("x"), I(1), I(2)}},
                   {"op", "aten.sym_is_contiguous.default", {T("t")}}}),
            "False");
  const std::vector<Call> nhwc = {{"p", "aten.permute.default", {T("x"), Ints({0, 2, 3, 1})}},
                                  {"c", "aten.contiguous.default", {T("p")}},
                                  {"cl", "aten.permute.default", {T("c"), Ints({0, 3, 1, 2})}}};
  auto with = [&](Call last) {
    std::vector<Call> calls = nhwc;
    calls.push_back(std::move(last));
    return after(calls);
  };
  EXPECT_EQ(with({"op", "aten.sym_is_contiguous.default", {T("cl")}}), "False");
  EXPECT_EQ(
      with({"op", "aten.sym_is_contiguous.default", {T("cl"), MemoryFormat("channels_last")}}),
      "True");
  EXPECT_EQ(
      run_op({x}, "aten.sym_is_contiguous.default", {T("x"), MemoryFormat("channels_last")}).str(),
      "False");
  // channels_last needs rank 4: a 3-d tensor is not.
  EXPECT_EQ(run_op({tensor("y", {"2", "3", "4"})}, "aten.sym_is_contiguous.default",
                   {T("y"), MemoryFormat("channels_last")})
                .str(),
            "False");
}

// ---- operators on SymInts ----

TEST(Operators, ArithmeticOnSymInts) {
  EXPECT_EQ(binary("operator.add", T("b"), I(1)).str(), "batch + 1");
  EXPECT_EQ(binary("operator.sub", T("b"), T("s")).str(), "batch - seq");
  EXPECT_EQ(binary("operator.mul", T("b"), T("s")).str(), "batch*seq");
  EXPECT_EQ(binary("operator.floordiv", T("b"), I(4)).str(), "batch//4");
  EXPECT_EQ(binary("operator.mod", T("b"), I(4)).str(), "batch % 4");
  EXPECT_EQ(binary("operator.floordiv", T("b"), T("s")).str(), "batch//seq");
  EXPECT_EQ(binary("_operator.mul", I(6), I(7)).str(), "42");
  EXPECT_EQ(binary("torch.sym_max", T("b"), I(1)).str(), "batch");
  EXPECT_EQ(binary("torch.sym_min", T("b"), T("s")).str(), "min(batch, seq)");
  EXPECT_EQ(with_sizes({{"n", "operator.neg", {T("b")}}}).str(), "-batch");
}

TEST(Operators, PythonDivisionSemanticsOnConstants) {
  EXPECT_EQ(binary("operator.floordiv", I(-7), I(2)).str(), "-4");
  EXPECT_EQ(binary("operator.mod", I(-7), I(2)).str(), "1");
  EXPECT_EQ(binary("operator.mod", I(7), I(-2)).str(), "-1");
  OpRun zero = binary("operator.floordiv", T("b"), I(0));
  EXPECT_EQ(zero.result.status, Propagation::Status::InputError);
  EXPECT_EQ(binary("operator.mod", T("b"), I(0)).result.status, Propagation::Status::InputError);
}

TEST(Operators, FloatOperandsGiveFloats) {
  OpRun r = binary("operator.truediv", I(7), I(2));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().kind, Value::Kind::Float);
  EXPECT_EQ(r.value().real, 3.5);
  EXPECT_EQ(binary("operator.mul", F(1.5), I(2)).value().real, 3.0);
}

TEST(Operators, SymbolicResultsFeedShapes) {
  OpRun r = with_sizes({{"half", "operator.floordiv", {T("b"), I(2)}},
                        {"v", "aten.view.default", {T("x"), List({T("half"), I(-1)})}}},
                       {Dim("batch", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<Expr>& sizes = r.value().tensor.sizes;
  EXPECT_EQ(sizes[0].str(), "batch//2");
  // The inferred dim is 1024*seq wherever the divisibility guard holds (even batch).
  ASSERT_EQ(r.guards().size(), 1u) << joined(r.guards());
  for (auto [b, s] : {std::pair{8, 8}, std::pair{6, 3}, std::pair{2, 5}}) {
    Bindings at = {{"batch", Int(b)}, {"seq", Int(s)}};
    EXPECT_TRUE(evaluate(r.env->guards()[0].cond, at));
    EXPECT_EQ(evaluate(sizes[1], at), Int(1024 * s));
  }
}

// ---- comparisons ----

TEST(Comparisons, StaticWhenRangesDecide) {
  OpRun ge = binary("operator.ge", T("b"), I(2));
  ASSERT_TRUE(ge.ok()) << ge.error();
  EXPECT_EQ(ge.str(), "True");
  EXPECT_EQ(binary("operator.lt", T("b"), I(2)).str(), "False");
  EXPECT_EQ(binary("operator.ne", T("b"), I(1)).str(), "True");
  EXPECT_EQ(binary("operator.eq", I(3), I(3)).str(), "True");
  EXPECT_TRUE(binary("operator.ge", T("b"), I(2)).guards().empty());
}

TEST(Comparisons, SymbolicConditionsStayOpenWithoutGuards) {
  OpRun r = binary("operator.eq", T("b"), T("s"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r.value().truth.has_value());
  EXPECT_EQ(r.value().condition.str(), "batch == seq");
  EXPECT_TRUE(r.guards().empty());
  EXPECT_EQ(binary("operator.lt", T("b"), I(8)).value().condition.str(), "batch < 8");
}

TEST(Comparisons, IntAgainstFloatLiteral) {
  // batch < 2.5 is batch < 3; batch < 1.5 is false; batch == 2.5 never holds.
  EXPECT_EQ(binary("operator.lt", T("b"), F(2.5)).value().condition.str(), "batch < 3");
  EXPECT_EQ(binary("operator.lt", T("b"), F(1.5)).str(), "False");
  EXPECT_EQ(binary("operator.eq", T("b"), F(2.5)).str(), "False");
  EXPECT_EQ(binary("operator.ge", T("b"), F(2.0)).str(), "True");
  EXPECT_EQ(binary("operator.gt", F(2.5), T("b")).value().condition.str(), "batch < 3");
  EXPECT_EQ(binary("operator.lt", F(1.5), F(2.5)).str(), "True");
}

TEST(Comparisons, UntrackedFloatsGiveUnknownBools) {
  // A float computed from data has no value here: comparing it must not invent one.
  OpRun r = run_ops({tensor("t", {})},
                    {{"f", "aten.item.default", {T("t")}}, {"c", "operator.lt", {T("f"), F(0.5)}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().kind, Value::Kind::Bool);
  EXPECT_FALSE(r.value().truth.has_value());
}

// ---- getitem ----

TEST(Getitem, IndexesTuples) {
  std::vector<Call> sizes = {{"all", "aten.sym_size.default", {T("x")}}};
  auto item = [&](long i) {
    std::vector<Call> calls = sizes;
    calls.push_back({"g", "operator.getitem", {T("all"), I(i)}});
    return run_ops({kSeqX}, calls);
  };
  EXPECT_EQ(item(1).str(), "seq");
  EXPECT_EQ(item(-1).str(), "512");
  OpRun past = item(3);
  EXPECT_EQ(past.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(past.error(), "index 3 is out of range for 3 items"));
  EXPECT_EQ(item(-4).result.status, Propagation::Status::InputError);
  OpRun split =
      run_ops({tensor("x", {"10", "4"})}, {{"parts", "aten.split.Tensor", {T("x"), I(4)}},
                                           {"last", "_operator.getitem", {T("parts"), I(2)}}});
  EXPECT_EQ(split.str(), "float32[2, 4]");
  OpRun not_tuple = run_op({kSeqX}, "operator.getitem", {T("x"), I(0)});
  EXPECT_EQ(not_tuple.result.status, Propagation::Status::InputError);
}

// ---- _assert_scalar ----

TEST(AssertScalar, RecordsARuntimeAssertThatLaterDecisionsUse) {
  OpRun r = with_sizes({{"ge", "operator.ge", {T("b"), I(4)}},
                        {"a", "aten._assert_scalar.default", {T("ge"), S("batch >= 4")}},
                        {"again", "operator.ge", {T("b"), I(3)}}},
                       {Dim("batch", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(joined(r.runtime_asserts()), "batch >= 4");
  EXPECT_TRUE(r.guards().empty());
  EXPECT_EQ(r.str(), "True");
}

TEST(AssertScalar, StaticallyFalseIsAnError) {
  OpRun r = with_sizes({{"lt", "operator.lt", {T("b"), I(2)}},
                        {"a", "aten._assert_scalar.default", {T("lt"), S("too small")}}});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "node a (aten._assert_scalar.default): assertion"));
  EXPECT_TRUE(Contains(r.error(), "can never hold: too small"));
}

TEST(AssertScalar, FalseForTheExampleInputsIsAnError) {
  OpRun r = with_sizes({{"ge", "operator.ge", {T("b"), I(16)}},
                        {"a", "aten._assert_scalar.default", {T("ge"), S("big")}}},
                       {Dim("batch", 8)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "batch >= 16"));
}

TEST(AssertScalar, UnbackedConditionsAndUntrackedBools) {
  OpRun r = run_ops({tensor("t", {}, DType::Int64)},
                    {{"u", "aten.item.default", {T("t")}},
                     {"ge", "operator.ge", {T("u"), I(0)}},
                     {"a", "aten._assert_scalar.default", {T("ge"), S("u >= 0")}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 >= 0");
  // An untracked bool (from a bool tensor's item) adds nothing, and is no error.
  OpRun untracked = run_ops({tensor("t", {}, DType::Bool)},
                            {{"b", "aten.item.default", {T("t")}},
                             {"a", "aten._assert_scalar.default", {T("b"), S("flag")}}});
  ASSERT_TRUE(untracked.ok()) << untracked.error();
  EXPECT_TRUE(untracked.runtime_asserts().empty());
}

// ---- sym_constrain_range ----

TEST(ConstrainRange, NarrowsAnUnbackedValue) {
  OpRun r =
      run_ops({tensor("t", {}, DType::Int64)},
              {{"u", "aten.item.default", {T("t")}},
               {"c", "aten.sym_constrain_range.default", {T("u")}, {{"min", I(0)}, {"max", I(10)}}},
               {"ok", "operator.le", {T("u"), I(10)}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.env->bound(Expr::symbol("u0")).str(), "[0, 10]");
  EXPECT_EQ(r.str(), "True");
  EXPECT_FALSE(r.env->symbol("u0").size_like);
}

TEST(ConstrainRange, ForSizeMarksItSizeLike) {
  OpRun r =
      run_ops({tensor("t", {}, DType::Int64)},
              {{"u", "aten.item.default", {T("t")}},
               {"c", "aten.sym_constrain_range_for_size.default", {T("u")}, {{"max", I(100)}}},
               {"z", "aten.zeros.default", {List({T("u"), I(4)})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r.env->symbol("u0").size_like);
  EXPECT_EQ(r.env->bound(Expr::symbol("u0")).str(), "[0, 100]");
  EXPECT_EQ(r.str(), "float32[u0, 4]");
}

TEST(ConstrainRange, ContradictionsAreErrors) {
  OpRun backed = with_sizes({{"c", "aten.sym_constrain_range.default", {T("b")}, {{"min", I(16)}}}},
                            {Dim("batch", 8)});
  EXPECT_EQ(backed.result.status, Propagation::Status::ShapeError);
  OpRun constant =
      run_op({}, "aten.sym_constrain_range.default", {I(5)}, {{"min", I(0)}, {"max", I(3)}});
  EXPECT_EQ(constant.result.status, Propagation::Status::ShapeError);
  OpRun symbolic_bound =
      with_sizes({{"c", "aten.sym_constrain_range.default", {T("b")}, {{"max", T("s")}}}});
  EXPECT_EQ(symbolic_bound.result.status, Propagation::Status::InputError);
}

}  // namespace
}  // namespace symshape::testing
