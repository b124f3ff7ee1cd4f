// Shape rules of functional collectives (native _c10d_functional and legacy c10d_functional).
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

// ---- all_gather ----

TEST(AllGather, MultipliesDimZeroByAConstantGroup) {
  OpRun r = run_op({tensor("x", {"batch", "4"})}, "_c10d_functional.all_gather_into_tensor.default",
                   {T("x"), I(8), S("default")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[8*batch, 4]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(AllGather, SymbolicGroupSizeFromDims) {
  OpRun r = run_op({tensor("x", {"batch", "4"}, DType::BFloat16)},
                   "_c10d_functional.all_gather_into_tensor.default", {T("x"), E("W"), S("tp")}, {},
                   {Dim("W", 4)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "bfloat16[W*batch, 4]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(AllGather, LegacySchemaHasTheGroupSizeLast) {
  OpRun r = run_op({tensor("x", {"3", "4"})}, "c10d_functional.all_gather_into_tensor.default",
                   {T("x"), S(""), Ints({0, 1}), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[6, 4]");
}

TEST(AllGather, CoalescedGathersEachTensor) {
  OpRun r = run_op({tensor("x", {"a"}), tensor("y", {"2", "b"})},
                   "_c10d_functional.all_gather_into_tensor_coalesced.default",
                   {List({T("x"), T("y")}), I(4), S("g")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[4*a], float32[8, b])");
}

TEST(AllGather, BadGroupsAndScalars) {
  OpRun zero = run_op({tensor("x", {"3"})}, "_c10d_functional.all_gather_into_tensor.default",
                      {T("x"), I(0), S("g")});
  EXPECT_EQ(zero.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(zero.error(), "group size 0 must be positive"));
  OpRun scalar = run_op({tensor("x", {})}, "_c10d_functional.all_gather_into_tensor.default",
                        {T("x"), I(2), S("g")});
  EXPECT_EQ(scalar.result.status, Propagation::Status::InputError);
}

// ---- reduce_scatter ----

TEST(ReduceScatter, DividesDimZero) {
  OpRun r = run_op({tensor("x", {"8", "4"})}, "_c10d_functional.reduce_scatter_tensor.default",
                   {T("x"), S("sum"), I(4), S("g")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2, 4]");
  OpRun gathered = run_ops(
      {tensor("x", {"batch", "4"})},
      {{"g", "_c10d_functional.all_gather_into_tensor.default", {T("x"), E("W"), S("g")}},
       {"s", "_c10d_functional.reduce_scatter_tensor.default", {T("g"), S("avg"), E("W"), S("g")}}},
      {Dim("W", 4)});
  ASSERT_TRUE(gathered.ok()) << gathered.error();
  EXPECT_EQ(gathered.str(), "float32[batch, 4]");
  EXPECT_TRUE(gathered.guards().empty());
}

TEST(ReduceScatter, SymbolicDimIsGuardedDivisible) {
  OpRun r = run_op({tensor("x", {"n", "4"})}, "_c10d_functional.reduce_scatter_tensor.default",
                   {T("x"), S("sum"), I(4), S("g")}, {}, {Dim("n", 12)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n//4, 4]");
  ASSERT_EQ(r.guards().size(), 1u);
  EXPECT_TRUE(evaluate(r.env->guards()[0].cond, {{"n", Int(12)}}));
  EXPECT_FALSE(evaluate(r.env->guards()[0].cond, {{"n", Int(10)}}));
}

TEST(ReduceScatter, IndivisibleDimFails) {
  OpRun r = run_op({tensor("x", {"6", "4"})}, "_c10d_functional.reduce_scatter_tensor.default",
                   {T("x"), S("sum"), I(4), S("g")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (_c10d_functional.reduce_scatter_tensor.default): reduce_scatter: dim 0 of "
            "size 6 is not divisible by the group size 4");
  OpRun symbolic =
      run_op({tensor("x", {"n", "4"})}, "_c10d_functional.reduce_scatter_tensor.default",
             {T("x"), S("sum"), I(4), S("g")}, {}, {Dim("n", 10)});
  EXPECT_EQ(symbolic.result.status, Propagation::Status::ShapeError);
}

TEST(ReduceScatter, LegacyAndCoalesced) {
  OpRun legacy = run_op({tensor("x", {"8", "4"})}, "c10d_functional.reduce_scatter_tensor.default",
                        {T("x"), S("sum"), S(""), Ints({0, 1}), I(2)});
  ASSERT_TRUE(legacy.ok()) << legacy.error();
  EXPECT_EQ(legacy.str(), "float32[4, 4]");
  OpRun coalesced = run_op({tensor("x", {"8"}), tensor("y", {"4", "3"})},
                           "_c10d_functional.reduce_scatter_tensor_coalesced.default",
                           {List({T("x"), T("y")}), S("sum"), I(2), S("g")});
  ASSERT_TRUE(coalesced.ok()) << coalesced.error();
  EXPECT_EQ(coalesced.str(), "(float32[4], float32[2, 3])");
}

// ---- all_reduce ----

TEST(AllReduce, KeepsTheShape) {
  OpRun r = run_op({tensor("x", {"batch", "4"}, DType::Float16)},
                   "_c10d_functional.all_reduce.default", {T("x"), S("max"), S("g")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[batch, 4]");
  EXPECT_EQ(run_op({tensor("x", {"3"})}, "_c10d_functional.all_reduce_.default",
                   {T("x"), S("sum"), S("g")})
                .str(),
            "float32[3]");
  EXPECT_EQ(run_op({tensor("x", {"3"})}, "c10d_functional.all_reduce.default",
                   {T("x"), S("avg"), S(""), Ints({0, 1}), I(2)})
                .str(),
            "float32[3]");
  EXPECT_EQ(run_op({tensor("x", {"3"}), tensor("y", {"a"})},
                   "_c10d_functional.all_reduce_coalesced.default",
                   {List({T("x"), T("y")}), S("sum"), S("g")})
                .str(),
            "(float32[3], float32[a])");
}

TEST(AllReduce, ComplexOnlySumsAndAverages) {
  std::vector<Input> z = {tensor("z", {"batch"}, DType::Complex64)};
  EXPECT_TRUE(run_op(z, "_c10d_functional.all_reduce.default", {T("z"), S("sum"), S("g")}).ok());
  EXPECT_TRUE(run_op(z, "_c10d_functional.all_reduce.default", {T("z"), S("avg"), S("g")}).ok());
  OpRun max = run_op(z, "_c10d_functional.all_reduce.default", {T("z"), S("max"), S("g")});
  EXPECT_EQ(max.result.status, Propagation::Status::InputError);
  EXPECT_EQ(max.error(),
            "node op (_c10d_functional.all_reduce.default): reduce op 'max' is not defined on "
            "complex tensors (only sum and avg)");
  OpRun product = run_op(z, "_c10d_functional.reduce_scatter_tensor.default",
                         {T("z"), S("product"), I(1), S("g")});
  EXPECT_EQ(product.result.status, Propagation::Status::InputError);
  OpRun unknown = run_op({tensor("x", {"3"})}, "_c10d_functional.all_reduce.default",
                         {T("x"), S("median"), S("g")});
  EXPECT_EQ(unknown.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(unknown.error(), "unknown reduce op 'median'"));
}

// ---- all_to_all_single / broadcast / wait_tensor ----

TEST(AllToAllSingle, OutputSplitsGiveDimZero) {
  OpRun r = run_op({tensor("x", {"6", "4"})}, "_c10d_functional.all_to_all_single.default",
                   {T("x"), Ints({1, 2, 3, 4}), Ints({1, 1, 2, 2}), S("g")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[10, 4]");
  OpRun symbolic =
      run_op({tensor("x", {"a + b", "4"})}, "_c10d_functional.all_to_all_single.default",
             {T("x"), List({E("c"), E("d")}), List({E("a"), E("b")}), S("g")}, {},
             {Dim("a", 2), Dim("b", 3), Dim("c", 4), Dim("d", 5)});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(symbolic.str(), "float32[c + d, 4]");
  EXPECT_TRUE(symbolic.guards().empty());
}

TEST(AllToAllSingle, InputSplitsMustAddUp) {
  OpRun r = run_op({tensor("x", {"6", "4"})}, "_c10d_functional.all_to_all_single.default",
                   {T("x"), Ints({3, 3}), Ints({2, 2}), S("g")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "input split sizes [2, 2] do not add up to dim 0 of size 6"));
  // Legacy: absent (None) splits keep dim 0.
  OpRun legacy = run_op({tensor("x", {"6", "4"})}, "c10d_functional.all_to_all_single.default",
                        {T("x"), None(), None(), S(""), Ints({0, 1}), I(2)});
  ASSERT_TRUE(legacy.ok()) << legacy.error();
  EXPECT_EQ(legacy.str(), "float32[6, 4]");
}

TEST(BroadcastAndWait, KeepTheTensor) {
  std::vector<Input> x = {tensor("x", {"batch", "4"}, DType::Int64)};
  EXPECT_EQ(run_op(x, "_c10d_functional.broadcast.default", {T("x"), I(0), S("g")}).str(),
            "int64[batch, 4]");
  EXPECT_EQ(run_op(x, "_c10d_functional.broadcast_.default", {T("x"), I(0), S("g")}).str(),
            "int64[batch, 4]");
  EXPECT_EQ(run_op(x, "_c10d_functional.wait_tensor.default", {T("x")}).str(), "int64[batch, 4]");
  EXPECT_EQ(run_op(x, "_c10d_functional.wait_tensor.default", {}, {{"tensor", T("x")}}).str(),
            "int64[batch, 4]");
  EXPECT_EQ(run_op(x, "c10d_functional.wait_tensor.default", {T("x")}).str(), "int64[batch, 4]");
  OpRun chained =
      run_ops(x, {{"g", "_c10d_functional.all_gather_into_tensor.default", {T("x"), I(2), S("g")}},
                  {"w", "_c10d_functional.wait_tensor.default", {T("g")}}});
  EXPECT_EQ(chained.str(), "int64[2*batch, 4]");
}

// The source rank is an int, and no rank is negative (the group's size is the run's to check).
TEST(BroadcastAndWait, SourceRankIsAnIntThatIsNotNegative) {
  std::vector<Input> x = {tensor("x", {"batch", "4"})};
  OpRun list = run_op(x, "_c10d_functional.broadcast.default", {T("x"), Ints({2, 0}), S("g")});
  EXPECT_EQ(list.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(list.error(), "must be an int")) << list.error();
  OpRun negative = run_op(x, "_c10d_functional.broadcast_.default", {T("x"), I(-1), S("g")});
  EXPECT_EQ(negative.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(negative.error(), "source rank must not be negative, got -1"));
}

}  // namespace
}  // namespace symshape::testing
