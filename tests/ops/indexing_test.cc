// Shape rules of indexing: advanced indexing, index_select, gather / scatter, embedding and
// take_along_dim.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

Input index(const std::string& name, std::vector<std::string> shape) {
  return {name, DType::Int64, std::move(shape)};
}

// ---- index.Tensor ----

TEST(Index, SingleIndexReplacesItsDim) {
  OpRun r = run_op({tensor("x", {"a", "b", "c"}), index("i", {"n"})}, "aten.index.Tensor",
                   {T("x"), List({None(), T("i")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, n, c]");
  EXPECT_TRUE(r.guards().empty());
  OpRun first = run_op({tensor("x", {"a", "b", "c"}), index("i", {"2", "3"})}, "aten.index.Tensor",
                       {T("x"), List({T("i")})});
  EXPECT_EQ(first.str(), "float32[2, 3, b, c]");
}

TEST(Index, AdjacentIndicesStayInPlace) {
  OpRun r = run_op({tensor("x", {"a", "b", "c", "d"}), index("i", {"n"}), index("j", {"n"})},
                   "aten.index.Tensor", {T("x"), List({None(), T("i"), T("j")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, n, d]");
}

TEST(Index, NonAdjacentIndicesGoFirst) {
  OpRun r = run_op({tensor("x", {"a", "b", "c", "d"}), index("i", {"n"}), index("j", {"n"})},
                   "aten.index.Tensor", {T("x"), List({None(), T("i"), None(), T("j")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, a, c]");
  OpRun ends = run_op({tensor("x", {"a", "b", "c"}), index("i", {"n"}), index("j", {"n"})},
                      "aten.index.Tensor", {T("x"), List({T("i"), None(), T("j")})});
  EXPECT_EQ(ends.str(), "float32[n, b]");
}

TEST(Index, IndexTensorsBroadcastTogether) {
  OpRun r = run_op({tensor("x", {"a", "b", "c"}), index("i", {"n", "1"}), index("j", {"m"})},
                   "aten.index.Tensor", {T("x"), List({T("i"), T("j")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, m, c]");
  EXPECT_TRUE(r.guards().empty());
  OpRun bad = run_op({tensor("x", {"a", "b"}), index("i", {"3"}), index("j", {"4"})},
                     "aten.index.Tensor", {T("x"), List({T("i"), T("j")})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "cannot broadcast [3] with [4] at dim 0 (3 != 4)"));
}

TEST(Index, BoolMaskGivesAnUnbackedCount) {
  OpRun r = run_op({tensor("x", {"a", "b", "c"}), tensor("m", {"a", "b"}, DType::Bool)},
                   "aten.index.Tensor", {T("x"), List({T("m")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[u0, c]");
  EXPECT_TRUE(r.env->symbol("u0").size_like);
  EXPECT_TRUE(r.guards().empty());
  // A mask after a full slice keeps the leading dim.
  OpRun later = run_op({tensor("x", {"a", "b"}), tensor("m", {"b"}, DType::Bool)},
                       "aten.index.Tensor", {T("x"), List({None(), T("m")})});
  EXPECT_EQ(later.str(), "float32[a, u0]");
}

TEST(Index, BoolMaskMustMatchTheIndexedDims) {
  OpRun guarded = run_op({tensor("x", {"a", "c"}), tensor("m", {"b"}, DType::Bool)},
                         "aten.index.Tensor", {T("x"), List({T("m")})});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(joined(guarded.guards()), "b == a");
  OpRun bad = run_op({tensor("x", {"4", "5"}), tensor("m", {"3"}, DType::Bool)},
                     "aten.index.Tensor", {T("x"), List({T("m")})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "mask [3] does not match [4, 5] at dim 0"));
}

TEST(Index, BadIndices) {
  OpRun many = run_op({tensor("x", {"a"}), index("i", {"2"})}, "aten.index.Tensor",
                      {T("x"), List({T("i"), T("i")})});
  EXPECT_EQ(many.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(many.error(), "too many indices"));
  OpRun floats = run_op({tensor("x", {"a"}), tensor("i", {"2"})}, "aten.index.Tensor",
                        {T("x"), List({T("i")})});
  EXPECT_EQ(floats.result.status, Propagation::Status::InputError);
  OpRun mask = run_op({tensor("x", {"a"}), tensor("m", {"a", "2"}, DType::Bool)},
                      "aten.index.Tensor", {T("x"), List({T("m")})});
  EXPECT_EQ(mask.result.status, Propagation::Status::InputError);
  OpRun not_list =
      run_op({tensor("x", {"a"}), index("i", {"2"})}, "aten.index.Tensor", {T("x"), T("i")});
  EXPECT_EQ(not_list.result.status, Propagation::Status::InputError);
}

TEST(Index, UnsafeIndexSharesTheRule) {
  OpRun r = run_op({tensor("x", {"a", "b"}), index("i", {"n"})}, "aten._unsafe_index.Tensor",
                   {T("x"), List({None(), T("i")})});
  EXPECT_EQ(r.str(), "float32[a, n]");
}

// ---- index_select ----

TEST(IndexSelect, ReplacesTheDimWithTheIndexLength) {
  OpRun r = run_op({tensor("x", {"a", "b"}), index("i", {"n"})}, "aten.index_select.default",
                   {T("x"), I(-1), T("i")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, n]");
  EXPECT_EQ(run_op({tensor("x", {"a", "b"}), index("i", {})}, "aten.index_select.default",
                   {T("x"), I(0), T("i")})
                .str(),
            "float32[1, b]");
  EXPECT_EQ(run_op({tensor("x", {}), index("i", {"1"})}, "aten.index_select.default",
                   {T("x"), I(0), T("i")})
                .str(),
            "float32[]");
  OpRun two_d = run_op({tensor("x", {"a", "b"}), index("i", {"2", "2"})},
                       "aten.index_select.default", {T("x"), I(0), T("i")});
  EXPECT_EQ(two_d.result.status, Propagation::Status::InputError);
  OpRun dim = run_op({tensor("x", {"a", "b"}), index("i", {"2"})}, "aten.index_select.default",
                     {T("x"), I(2), T("i")});
  EXPECT_EQ(dim.result.status, Propagation::Status::InputError);
}

// ---- gather / scatter ----

TEST(Gather, OutputHasTheIndexShape) {
  OpRun r = run_op({tensor("x", {"a", "b"}, DType::Float16), index("i", {"a", "k"})},
                   "aten.gather.default", {T("x"), I(1), T("i")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[a, k]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Gather, IndexMustFitOutsideDim) {
  // index.size(0) <= self.size(0): a guard between two symbols.
  OpRun guarded = run_op({tensor("x", {"a", "b"}), index("i", {"n", "k"})}, "aten.gather.default",
                         {T("x"), I(1), T("i")}, {}, {Dim("a", 8), Dim("n", 4)});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(joined(guarded.guards()), "n <= a");
  OpRun bad = run_op({tensor("x", {"3", "5"}), index("i", {"4", "2"})}, "aten.gather.default",
                     {T("x"), I(1), T("i")});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "size does not match at dimension 0"));
  OpRun rank = run_op({tensor("x", {"3", "5"}), index("i", {"3"})}, "aten.gather.default",
                      {T("x"), I(1), T("i")});
  EXPECT_EQ(rank.result.status, Propagation::Status::ShapeError);
  OpRun bools = run_op({tensor("x", {"3"}), tensor("i", {"3"}, DType::Bool)}, "aten.gather.default",
                       {T("x"), I(0), T("i")});
  EXPECT_EQ(bools.result.status, Propagation::Status::InputError);
}

TEST(Scatter, KeepsSelfAndChecksTheIndex) {
  std::vector<Input> in = {tensor("x", {"a", "b"}), index("i", {"2", "3"}),
                           tensor("src", {"4", "5"})};
  OpRun r = run_op(in, "aten.scatter.src", {T("x"), I(1), T("i"), T("src")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.scatter_add.default", {T("x"), I(0), T("i"), T("src")}).str(),
            "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.scatter.value", {T("x"), I(-1), T("i"), F(1.5)}).str(),
            "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.scatter_reduce.two", {T("x"), I(0), T("i"), T("src"), S("sum")}).str(),
            "float32[a, b]");
  OpRun small_src =
      run_op({tensor("x", {"4", "4"}), index("i", {"2", "3"}), tensor("src", {"2", "2"})},
             "aten.scatter.src", {T("x"), I(0), T("i"), T("src")});
  EXPECT_EQ(small_src.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(small_src.error(), "no larger than src [2, 2]"));
  OpRun rank = run_op({tensor("x", {"4", "4"}), index("i", {"2"}), tensor("src", {"4", "4"})},
                      "aten.scatter.src", {T("x"), I(0), T("i"), T("src")});
  EXPECT_EQ(rank.result.status, Propagation::Status::ShapeError);
  OpRun dim = run_op(in, "aten.scatter.src", {T("x"), I(2), T("i"), T("src")});
  EXPECT_EQ(dim.result.status, Propagation::Status::InputError);
}

TEST(Scatter, InPlaceKeepsSelf) {
  OpRun r = run_op({tensor("x", {"a", "b"}), index("i", {"2", "3"}), tensor("src", {"4", "5"})},
                   "aten.scatter_.src", {T("x"), I(1), T("i"), T("src")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, b]");
}

TEST(IndexUpdates, KeepSelf) {
  std::vector<Input> in = {tensor("x", {"a", "b"}), index("i", {"n"}), tensor("src", {"a", "n"})};
  EXPECT_EQ(run_op(in, "aten.index_add.default", {T("x"), I(1), T("i"), T("src")}).str(),
            "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.index_copy.default", {T("x"), I(1), T("i"), T("src")}).str(),
            "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.index_fill.int_Scalar", {T("x"), I(1), T("i"), F(0.0)}).str(),
            "float32[a, b]");
  EXPECT_EQ(run_op({tensor("x", {"a", "b"}), index("i", {"n"}), tensor("v", {"n", "b"})},
                   "aten.index_put.default", {T("x"), List({T("i")}), T("v")})
                .str(),
            "float32[a, b]");
  EXPECT_EQ(run_op({tensor("x", {"a", "b"}), tensor("m", {"a", "b"}, DType::Bool),
                    tensor("src", {"a", "b"})},
                   "aten.masked_scatter.default", {T("x"), T("m"), T("src")})
                .str(),
            "float32[a, b]");
}

// ---- embedding ----

TEST(Embedding, AppendsTheEmbeddingDim) {
  OpRun r = run_op({tensor("w", {"vocab", "512"}, DType::BFloat16), index("i", {"batch", "seq"})},
                   "aten.embedding.default", {T("w"), T("i")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "bfloat16[batch, seq, 512]");
  EXPECT_EQ(run_op({tensor("w", {"vocab", "d"}), index("i", {})}, "aten.embedding.default",
                   {T("w"), T("i")})
                .str(),
            "float32[d]");
  OpRun bad = run_op({tensor("w", {"vocab"}), index("i", {"3"})}, "aten.embedding.default",
                     {T("w"), T("i")});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  OpRun floats = run_op({tensor("w", {"vocab", "4"}), tensor("i", {"3"})}, "aten.embedding.default",
                        {T("w"), T("i")});
  EXPECT_EQ(floats.result.status, Propagation::Status::InputError);
}

TEST(Embedding, DenseBackwardHasTheWeightShape) {
  OpRun r = run_op({tensor("g", {"batch", "seq", "512"}), index("i", {"batch", "seq"})},
                   "aten.embedding_dense_backward.default",
                   {T("g"), T("i"), E("vocab"), I(-1), B(false)}, {}, {Dim("vocab", 100)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[vocab, 512]");
}

// ---- take_along_dim ----

TEST(TakeAlongDim, WithDimKeepsTheIndexSizeAlongIt) {
  OpRun r = run_op({tensor("x", {"4", "10"}), index("i", {"4", "3"})},
                   "aten.take_along_dim.default", {T("x"), T("i"), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[4, 3]");
  OpRun broadcast = run_op({tensor("x", {"a", "10"}), index("i", {"1", "k"})},
                           "aten.take_along_dim.default", {T("x"), T("i"), I(-1)});
  ASSERT_TRUE(broadcast.ok()) << broadcast.error();
  EXPECT_EQ(broadcast.str(), "float32[a, k]");
  EXPECT_TRUE(broadcast.guards().empty());
}

TEST(TakeAlongDim, WithoutDimFlattens) {
  OpRun r = run_op({tensor("x", {"a", "10"}), index("i", {"n", "2"})},
                   "aten.take_along_dim.default", {T("x"), T("i")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2*n]");
}

TEST(TakeAlongDim, RanksMustMatch) {
  OpRun r = run_op({tensor("x", {"a", "10"}), index("i", {"3"})}, "aten.take_along_dim.default",
                   {T("x"), T("i"), I(0)});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "same number of dimensions"));
  OpRun bad = run_op({tensor("x", {"4", "10"}), index("i", {"3", "3"})},
                     "aten.take_along_dim.default", {T("x"), T("i"), I(1)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
}

}  // namespace
}  // namespace symshape::testing
