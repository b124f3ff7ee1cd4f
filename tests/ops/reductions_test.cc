// Shape rules of reductions, scans, softmax, topk and sort.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

const Input kX{"x", DType::Float32, {"batch", "4", "seq"}};
const Input kInts{"x", DType::Int32, {"batch", "4", "seq"}};

// ---- sum, mean, prod, amax ----

TEST(Sum, ListOfDimsWithNegativeDimAndKeepdim) {
  OpRun r = run_op({kX}, "aten.sum.dim_IntList", {T("x"), Ints({1, -1}), B(true)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 1, 1]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Sum, WithoutDimsReducesEverythingAndIntegersAccumulateInInt64) {
  OpRun r = run_op({kInts}, "aten.sum.default", {T("x")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[]");
  // An empty dim list also means every dim.
  EXPECT_EQ(run_op({kX}, "aten.sum.dim_IntList", {T("x"), Ints({})}).str(), "float32[]");
}

TEST(Sum, DtypeKeywordWins) {
  OpRun r = run_op({kInts}, "aten.sum.dim_IntList", {T("x"), Ints({0, 1})},
                   {{"dtype", D(DType::Float64)}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float64[seq]");
}

TEST(Sum, DimOutOfRangeIsBadInput) {
  OpRun r = run_op({kX}, "aten.sum.dim_IntList", {T("x"), Ints({3})});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "dim 3 is out of range for a tensor of rank 3"));
  OpRun twice = run_op({kX}, "aten.sum.dim_IntList", {T("x"), Ints({1, -2})});
  EXPECT_TRUE(Contains(twice.error(), "more than once"));
}

TEST(Mean, FloatingInputKeepsDtype) {
  OpRun r = run_op({kX}, "aten.mean.dim", {T("x"), Ints({-1})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 4]");
  EXPECT_EQ(run_op({kX}, "aten.mean.default", {T("x")}).str(), "float32[]");
}

TEST(Mean, IntegerInputWithoutFloatingDtypeIsRejectedAsPyTorchDoes) {
  OpRun r = run_op({kInts}, "aten.mean.dim", {T("x"), Ints({1})});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(),
                       "node op (aten.mean.dim): mean(): could not infer output "
                       "dtype. Input dtype must be either a floating point or "
                       "complex dtype, got int32"));
  OpRun with_dtype =
      run_op({kInts}, "aten.mean.dim", {T("x"), Ints({1})}, {{"dtype", D(DType::Float16)}});
  ASSERT_TRUE(with_dtype.ok()) << with_dtype.error();
  EXPECT_EQ(with_dtype.str(), "float16[batch, seq]");
  OpRun int_dtype =
      run_op({kX}, "aten.mean.dim", {T("x"), Ints({1})}, {{"dtype", D(DType::Int64)}});
  EXPECT_TRUE(Contains(int_dtype.error(), "Optional dtype must be"));
}

TEST(Prod, SingleDimAndIntegerAccumulation) {
  OpRun r = run_op({kInts}, "aten.prod.dim_int", {T("x"), I(1), B(true)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[batch, 1, seq]");
  EXPECT_EQ(run_op({kX}, "aten.prod.default", {T("x")}).str(), "float32[]");
}

TEST(Amax, DimsAndKeepdim) {
  EXPECT_EQ(run_op({kX}, "aten.amax.default", {T("x"), Ints({0, 2})}).str(), "float32[4]");
  EXPECT_EQ(run_op({kX}, "aten.amin.default", {T("x"), Ints({-1}), B(true)}).str(),
            "float32[batch, 4, 1]");
  EXPECT_EQ(run_op({kX}, "aten.amax.default", {T("x")}).str(), "float32[]");
}

TEST(Amax, EmptyReducedDimIsAShapeError) {
  OpRun r = run_op({{"x", DType::Float32, {"3", "0"}}}, "aten.amax.default", {T("x"), Ints({1})});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "amax(): expected reduction dim 1 to have non-zero size"));
  // Reducing the non-empty dim is fine.
  EXPECT_EQ(
      run_op({{"x", DType::Float32, {"3", "0"}}}, "aten.amax.default", {T("x"), Ints({0})}).str(),
      "float32[0]");
}

// ---- var, std ----

TEST(Var, CorrectionOverloadWithKeywordKeepdim) {
  OpRun r = run_op({kX}, "aten.var.correction", {T("x"), Ints({1})},
                   {{"correction", I(0)}, {"keepdim", B(true)}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 1, seq]");
}

TEST(Var, DimOverloadAndDefaultOverload) {
  EXPECT_EQ(run_op({kX}, "aten.var.dim", {T("x"), Ints({2}), B(false), B(true)}).str(),
            "float32[batch, 4, 1]");
  // var.default's second argument is `unbiased`, not a dim.
  EXPECT_EQ(run_op({kX}, "aten.std.default", {T("x"), B(true)}).str(), "float32[]");
}

TEST(Var, ComplexGivesRealAndIntegersAreRejected) {
  OpRun c =
      run_op({{"z", DType::Complex64, {"n", "3"}}}, "aten.std.correction", {T("z"), Ints({1})});
  EXPECT_EQ(c.str(), "float32[n]");
  OpRun i = run_op({kInts}, "aten.var.correction", {T("x"), Ints({1})});
  EXPECT_EQ(i.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(i.error(), "std and var only support floating point and complex"));
}

TEST(VarMean, ReturnsVarianceAndMean) {
  OpRun r = run_op({{"z", DType::Complex128, {"n", "3"}}}, "aten.var_mean.correction",
                   {T("z"), Ints({0})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float64[3], complex128[3])");
}

// ---- argmax, max, min ----

TEST(Argmax, WithoutDimGivesAScalarOrAllOnesUnderKeepdim) {
  EXPECT_EQ(run_op({kX}, "aten.argmax.default", {T("x")}).str(), "int64[]");
  EXPECT_EQ(run_op({kX}, "aten.argmax.default", {T("x"), None(), B(true)}).str(), "int64[1, 1, 1]");
}

TEST(Argmax, AlongADim) {
  EXPECT_EQ(run_op({kX}, "aten.argmin.default", {T("x"), I(-1), B(true)}).str(),
            "int64[batch, 4, 1]");
  EXPECT_EQ(run_op({kX}, "aten.argmax.default", {T("x")}, {{"dim", I(0)}}).str(), "int64[4, seq]");
}

TEST(Argmax, EmptyTensorWithoutDimIsAShapeError) {
  OpRun r = run_op({{"x", DType::Float32, {"0", "4"}}}, "aten.argmax.default", {T("x")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "cannot reduce a tensor with no elements without a dim"));
}

TEST(Max, DimOverloadGivesValuesAndInt64Indices) {
  OpRun r = run_op({kX}, "aten.max.dim", {T("x"), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, seq], int64[batch, seq])");
  EXPECT_EQ(run_op({kX}, "aten.min.dim", {T("x"), I(-1), B(true)}).str(),
            "(float32[batch, 4, 1], int64[batch, 4, 1])");
}

TEST(Max, WithoutDimGivesAScalarAndOtherBroadcasts) {
  EXPECT_EQ(run_op({kInts}, "aten.max.default", {T("x")}).str(), "int32[]");
  OpRun other = run_op({kX, {"y", DType::Float64, {"seq"}}}, "aten.max.other", {T("x"), T("y")});
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_EQ(other.str(), "float64[batch, 4, seq]");
}

TEST(Aminmax, KeywordDim) {
  EXPECT_EQ(run_op({kX}, "aten.aminmax.default", {T("x")}, {{"dim", I(1)}}).str(),
            "(float32[batch, seq], float32[batch, seq])");
}

// ---- any, all, logsumexp, norm, count_nonzero ----

TEST(AnyAll, BoolResultExceptUint8) {
  EXPECT_EQ(run_op({kX}, "aten.any.dim", {T("x"), I(1)}).str(), "bool[batch, seq]");
  EXPECT_EQ(run_op({kX}, "aten.all.default", {T("x")}).str(), "bool[]");
  EXPECT_EQ(
      run_op({{"m", DType::UInt8, {"n"}}}, "aten.all.dims", {T("m"), Ints({0}), B(true)}).str(),
      "uint8[1]");
}

TEST(Logsumexp, IntegersComputeInFloat) {
  EXPECT_EQ(run_op({kInts}, "aten.logsumexp.default", {T("x"), Ints({1})}).str(),
            "float32[batch, seq]");
  EXPECT_EQ(run_op({kX}, "aten.logsumexp.default", {T("x"), Ints({2}), B(true)}).str(),
            "float32[batch, 4, 1]");
}

TEST(Norm, ComplexGivesRealAndDimsAreAtPositionTwo) {
  EXPECT_EQ(run_op({{"z", DType::Complex64, {"n", "3"}}}, "aten.norm.ScalarOpt_dim",
                   {T("z"), F(2.0), Ints({1}), B(true)})
                .str(),
            "float32[n, 1]");
  EXPECT_EQ(run_op({kX}, "aten.norm.Scalar", {T("x")}).str(), "float32[]");
  EXPECT_EQ(run_op({kX}, "aten.linalg_vector_norm.default", {T("x"), F(2.0), Ints({-1})}).str(),
            "float32[batch, 4]");
  OpRun ints = run_op({kInts}, "aten.norm.Scalar", {T("x")});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
}

TEST(CountNonzero, Int64WithoutKeepdim) {
  EXPECT_EQ(run_op({kX}, "aten.count_nonzero.dim_IntList", {T("x"), Ints({0, 1})}).str(),
            "int64[seq]");
}

// ---- scans ----

TEST(Cumsum, KeepsShapeAndAccumulatesIntegersInInt64) {
  EXPECT_EQ(run_op({kInts}, "aten.cumsum.default", {T("x"), I(-1)}).str(), "int64[batch, 4, seq]");
  EXPECT_EQ(run_op({kX}, "aten.cumprod.default", {T("x"), I(0)}).str(), "float32[batch, 4, seq]");
  EXPECT_EQ(
      run_op({kInts}, "aten.cumsum.default", {T("x"), I(1)}, {{"dtype", D(DType::Float32)}}).str(),
      "float32[batch, 4, seq]");
  OpRun bad = run_op({kX}, "aten.cumsum.default", {T("x"), I(5)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
}

TEST(Cummax, ValuesAndIndices) {
  EXPECT_EQ(run_op({kX}, "aten.cummax.default", {T("x"), I(1)}).str(),
            "(float32[batch, 4, seq], int64[batch, 4, seq])");
}

// ---- softmax ----

TEST(Softmax, KeepsShapeAndDtype) {
  EXPECT_EQ(run_op({kX}, "aten._softmax.default", {T("x"), I(-1), B(false)}).str(),
            "float32[batch, 4, seq]");
  EXPECT_EQ(run_op({kX}, "aten.log_softmax.int", {T("x"), I(1)}).str(), "float32[batch, 4, seq]");
}

TEST(Softmax, HalfToFloatAndDtypeArgument) {
  const Input half{"h", DType::Float16, {"n", "8"}};
  EXPECT_EQ(run_op({half}, "aten._softmax.default", {T("h"), I(1), B(true)}).str(),
            "float32[n, 8]");
  EXPECT_EQ(run_op({half}, "aten._log_softmax.default", {T("h"), I(1), B(false)}).str(),
            "float16[n, 8]");
  EXPECT_EQ(run_op({kInts}, "aten.softmax.int", {T("x"), I(1), D(DType::Float64)}).str(),
            "float64[batch, 4, seq]");
}

TEST(Softmax, IntegerInputWithoutDtypeAndBadDimAreRejected) {
  OpRun ints = run_op({kInts}, "aten.softmax.int", {T("x"), I(1)});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(ints.error(), "softmax needs a floating point input"));
  OpRun dim = run_op({kX}, "aten._softmax.default", {T("x"), I(-4), B(false)});
  EXPECT_EQ(dim.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(dim.error(), "dim -4 is out of range"));
}

TEST(Softmax, BackwardTakesTheInputDtype) {
  OpRun r =
      run_op({{"g", DType::Float32, {"n", "8"}}, {"y", DType::Float32, {"n", "8"}}},
             "aten._softmax_backward_data.default", {T("g"), T("y"), I(1), D(DType::Float16)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[n, 8]");
  OpRun bad =
      run_op({{"g", DType::Float32, {"n", "8"}}, {"y", DType::Float32, {"n", "9"}}},
             "aten._softmax_backward_data.default", {T("g"), T("y"), I(1), D(DType::Float32)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
}

// ---- topk, sort ----

TEST(Topk, ConcreteK) {
  OpRun r = run_op({{"x", DType::Float32, {"4", "10"}}}, "aten.topk.default", {T("x"), I(3)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[4, 3], int64[4, 3])");
  EXPECT_EQ(
      run_op({{"x", DType::Float32, {"4", "10"}}}, "aten.topk.default", {T("x"), I(2), I(0)}).str(),
      "(float32[2, 10], int64[2, 10])");
}

TEST(Topk, KLargerThanTheDimIsAShapeError) {
  OpRun r = run_op({{"x", DType::Float32, {"4", "10"}}}, "aten.topk.default", {T("x"), I(11)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "node op (aten.topk.default): selected index k out of range: "
                       "k = 11 for size 10 of [4, 10] at dim 1"));
}

TEST(Topk, SymbolicKIsGuardedAgainstTheSize) {
  // k is a size of another input; the output holds k along the dim, guarded by k <= n.
  OpRun r = run_op({{"x", DType::Float32, {"b", "n"}}, {"kk", DType::Float32, {"k"}}},
                   "aten.topk.default", {T("x"), E("k")}, {}, {Dim("k", 3), Dim("n", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[b, k], int64[b, k])");
  EXPECT_EQ(r.guards(), std::vector<std::string>{"k <= n"});
  // At hints that break it, the same graph fails.
  OpRun too_big = run_op({{"x", DType::Float32, {"b", "n"}}, {"kk", DType::Float32, {"k"}}},
                         "aten.topk.default", {T("x"), E("k")}, {}, {Dim("k", 9), Dim("n", 8)});
  EXPECT_EQ(too_big.result.status, Propagation::Status::ShapeError);
}

TEST(Topk, DataDependentKBecomesARuntimeAssert) {
  // k read from a tensor (item()) is unbacked: the check cannot be guarded, so it is deferred.
  OpRun r = run_ops(
      {{"x", DType::Float32, {"b", "n"}}, {"kt", DType::Int64, {}}},
      {{"k", "aten.item.default", {T("kt")}}, {"op", "aten.topk.default", {T("x"), T("k")}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[b, u0], int64[b, u0])");
  EXPECT_TRUE(r.guards().empty());
  ASSERT_EQ(r.runtime_asserts().size(), 1u);
  EXPECT_TRUE(Contains(r.runtime_asserts()[0], "u0 <= n"));
}

TEST(Amax, DataDependentReducedDimIsAssertedNonEmpty) {
  // nonzero's row count u0 may be 0: amax over it needs a runtime check, not a guard.
  OpRun r = run_ops({{"x", DType::Float32, {"n", "4"}}},
                    {{"nz", "aten.nonzero.default", {T("x")}},
                     {"op", "aten.amax.default", {T("nz"), Ints({0})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[2]");
  EXPECT_TRUE(r.guards().empty());
  bool asserted = false;
  for (const std::string& a : r.runtime_asserts()) asserted |= a == "u0 != 0";
  EXPECT_TRUE(asserted);
}

TEST(Sort, ValuesAndIndicesWithStableKeywordDim) {
  EXPECT_EQ(run_op({kX}, "aten.sort.default", {T("x")}).str(),
            "(float32[batch, 4, seq], int64[batch, 4, seq])");
  EXPECT_EQ(run_op({kX}, "aten.sort.stable", {T("x")}, {{"stable", B(true)}, {"dim", I(0)}}).str(),
            "(float32[batch, 4, seq], int64[batch, 4, seq])");
  OpRun bad = run_op({kX}, "aten.sort.stable", {T("x")}, {{"dim", I(3)}});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_EQ(run_op({kX}, "aten.argsort.default", {T("x"), I(1)}).str(), "int64[batch, 4, seq]");
}

TEST(Kthvalue, ReducesTheDimAndChecksK) {
  EXPECT_EQ(run_op({kX}, "aten.kthvalue.default", {T("x"), I(2), I(1)}).str(),
            "(float32[batch, seq], int64[batch, seq])");
  OpRun bad = run_op({kX}, "aten.kthvalue.default", {T("x"), I(5), I(1)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
}

TEST(Median, ScalarOrAlongADim) {
  EXPECT_EQ(run_op({kX}, "aten.median.default", {T("x")}).str(), "float32[]");
  EXPECT_EQ(run_op({kX}, "aten.median.dim", {T("x"), I(0), B(true)}).str(),
            "(float32[1, 4, seq], int64[1, 4, seq])");
}

}  // namespace
}  // namespace symshape::testing
