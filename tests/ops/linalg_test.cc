// Shape rules of matrix products, linear and einsum.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

// Runs a binary_shapes op on a and b.
OpRun binary_shapes(const std::string& target, std::vector<std::string> a,
                    std::vector<std::string> b) {
  return run_op({tensor("a", std::move(a)), tensor("b", std::move(b))}, target, {T("a"), T("b")});
}

// ---- mm, bmm ----

TEST(Outer, PromotesLikeABroadcastMultiply) {
  for (const char* op : {"aten.outer.default", "aten.ger.default"}) {
    OpRun r = run_op({tensor("a", {"n"}, DType::Int64), tensor("b", {"m"}, DType::Float32)}, op,
                     {T("a"), T("b")});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.str(), "float32[n, m]") << op;
  }
}

TEST(Mm, ConcreteAndSymbolic) {
  EXPECT_EQ(binary_shapes("aten.mm.default", {"2", "3"}, {"3", "5"}).str(), "float32[2, 5]");
  OpRun r = binary_shapes("aten.mm.default", {"n", "k"}, {"k", "p"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, p]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Mm, DifferentInnerSymbolsAreGuardedEqual) {
  OpRun r = binary_shapes("aten.mm.default", {"n", "k"}, {"m", "p"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, p]");
  EXPECT_EQ(r.guards(), std::vector<std::string>{"k == m"});
}

TEST(Mm, InnerMismatchNamesTheNodeAndShapes) {
  OpRun r = binary_shapes("aten.mm.default", {"n", "3"}, {"4", "p"});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (aten.mm.default): mm: shapes [n, 3] and [4, p] cannot be multiplied "
            "(3 != 4)");
}

TEST(Mm, WrongRankAndMixedDtypesAreBadInput) {
  OpRun rank = binary_shapes("aten.mm.default", {"2", "3", "4"}, {"4", "5"});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(rank.error(), "mm: self must be 2-D, got 3-D [2, 3, 4]"));
  OpRun dtypes = run_op({tensor("a", {"2", "3"}), tensor("b", {"3", "4"}, DType::Float64)},
                        "aten.mm.default", {T("a"), T("b")});
  EXPECT_EQ(dtypes.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(dtypes.error(), "same dtype, got float32 and float64"));
}

TEST(Bmm, BatchMustMatchExactly) {
  EXPECT_EQ(binary_shapes("aten.bmm.default", {"b", "n", "k"}, {"b", "k", "p"}).str(),
            "float32[b, n, p]");
  OpRun r = binary_shapes("aten.bmm.default", {"2", "n", "k"}, {"3", "k", "p"});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "must have the same number of batches (2 != 3)"));
}

// ---- matmul, every rank case ----

TEST(Matmul, VectorTimesVectorIsAScalar) {
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"k"}, {"k"}).str(), "float32[]");
}

TEST(Matmul, MatrixAndVectorCases) {
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"n", "k"}, {"k"}).str(), "float32[n]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"k"}, {"k", "p"}).str(), "float32[p]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"n", "k"}, {"k", "p"}).str(), "float32[n, p]");
}

TEST(Matmul, BatchedWithMatrixOrVector) {
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"b", "n", "k"}, {"k", "p"}).str(),
            "float32[b, n, p]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"b", "n", "k"}, {"k"}).str(), "float32[b, n]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"k"}, {"b", "k", "p"}).str(), "float32[b, p]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"n", "k"}, {"b", "h", "k", "p"}).str(),
            "float32[b, h, n, p]");
}

TEST(Matmul, BatchDimsBroadcast) {
  OpRun r = binary_shapes("aten.matmul.default", {"batch", "1", "n", "k"}, {"heads", "k", "p"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, heads, n, p]");
  EXPECT_EQ(binary_shapes("aten.matmul.default", {"2", "1", "3", "4"}, {"5", "4", "6"}).str(),
            "float32[2, 5, 3, 6]");
}

TEST(Matmul, BatchMismatchAndInnerMismatchAreShapeErrors) {
  OpRun batch = binary_shapes("aten.matmul.default", {"2", "3", "4"}, {"5", "4", "6"});
  EXPECT_EQ(batch.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(batch.error(), "cannot broadcast [2] with [5]"));
  OpRun inner = binary_shapes("aten.matmul.default", {"b", "n", "4"}, {"5"});
  EXPECT_EQ(inner.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(inner.error(), "matmul: shapes [b, n, 4] and [5] cannot be multiplied"));
}

TEST(Matmul, ZeroDimOperandIsBadInput) {
  OpRun r = binary_shapes("aten.matmul.default", {}, {"3", "4"});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "need to be at least 1-D, got 0-D and 2-D"));
}

// ---- addmm, baddbmm, addmv, addr, addbmm ----

TEST(Addmm, BiasBroadcastsToTheProduct) {
  auto addmm = [](std::vector<std::string> bias) {
    return run_op(
        {tensor("bias", std::move(bias)), tensor("a", {"n", "k"}), tensor("b", {"k", "p"})},
        "aten.addmm.default", {T("bias"), T("a"), T("b")});
  };
  EXPECT_EQ(addmm({"p"}).str(), "float32[n, p]");
  EXPECT_EQ(addmm({"n", "1"}).str(), "float32[n, p]");
  EXPECT_EQ(addmm({}).str(), "float32[n, p]");
  OpRun bad = addmm({"3"});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "cannot broadcast self [3] to the result [n, p]"));
  OpRun too_big = addmm({"2", "n", "p"});
  EXPECT_EQ(too_big.result.status, Propagation::Status::ShapeError);
}

TEST(Baddbmm, AddsABatchOfProducts) {
  OpRun r = run_op(
      {tensor("c", {"1", "n", "p"}), tensor("a", {"b", "n", "k"}), tensor("d", {"b", "k", "p"})},
      "aten.baddbmm.default", {T("c"), T("a"), T("d")}, {{"beta", F(0.5)}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, n, p]");
}

TEST(Addmv, AddrAndAddbmm) {
  EXPECT_EQ(run_op({tensor("c", {"n"}), tensor("a", {"n", "k"}), tensor("v", {"k"})},
                   "aten.addmv.default", {T("c"), T("a"), T("v")})
                .str(),
            "float32[n]");
  EXPECT_EQ(run_op({tensor("c", {"1"}), tensor("u", {"n"}), tensor("v", {"m"})},
                   "aten.addr.default", {T("c"), T("u"), T("v")})
                .str(),
            "float32[n, m]");
  EXPECT_EQ(
      run_op({tensor("c", {"n", "p"}), tensor("a", {"b", "n", "k"}), tensor("d", {"b", "k", "p"})},
             "aten.addbmm.default", {T("c"), T("a"), T("d")})
          .str(),
      "float32[n, p]");
}

// ---- linear, dot, mv, outer ----

TEST(Linear, BatchedInputWithBias) {
  OpRun r = run_op({tensor("x", {"batch", "seq", "768"}), tensor("w", {"3072", "768"}),
                    tensor("bias", {"3072"})},
                   "aten.linear.default", {T("x"), T("w"), T("bias")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, seq, 3072]");
}

TEST(Linear, OneDimWeightAndMismatch) {
  EXPECT_EQ(run_op({tensor("x", {"n", "in"}), tensor("w", {"in"})}, "aten.linear.default",
                   {T("x"), T("w")})
                .str(),
            "float32[n]");
  OpRun bad = run_op({tensor("x", {"n", "64"}), tensor("w", {"10", "32"})}, "aten.linear.default",
                     {T("x"), T("w")});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "shapes [n, 64] and [32, 10] cannot be multiplied (64 != 32)"));
  OpRun bias = run_op({tensor("x", {"n", "32"}), tensor("w", {"10", "32"}), tensor("b", {"11"})},
                      "aten.linear.default", {T("x"), T("w"), T("b")});
  EXPECT_EQ(bias.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bias.error(), "cannot broadcast bias [11] to the result [n, 10]"));
}

TEST(Dot, VectorsOfEqualLength) {
  EXPECT_EQ(binary_shapes("aten.dot.default", {"n"}, {"n"}).str(), "float32[]");
  OpRun bad = binary_shapes("aten.dot.default", {"3"}, {"4"});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "dot: inconsistent tensor sizes [3] and [4]"));
  EXPECT_EQ(binary_shapes("aten.dot.default", {"3", "1"}, {"3"}).result.status,
            Propagation::Status::InputError);
}

TEST(Mv, AndOuter) {
  EXPECT_EQ(binary_shapes("aten.mv.default", {"n", "k"}, {"k"}).str(), "float32[n]");
  EXPECT_EQ(binary_shapes("aten.outer.default", {"n"}, {"m"}).str(), "float32[n, m]");
}

// ---- einsum ----

OpRun einsum(const std::string& equation, std::vector<Input> inputs) {
  std::vector<Arg> operands;
  for (const Input& in : inputs) operands.push_back(T(in.name));
  return run_op(inputs, "aten.einsum.default", {S(equation), List(std::move(operands))});
}

TEST(Einsum, BatchedMatmul) {
  OpRun r = einsum("bij,bjk->bik", {tensor("x", {"b", "n", "k"}), tensor("y", {"b", "k", "p"})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, n, p]");
}

TEST(Einsum, AttentionScores) {
  OpRun r = einsum("bhqd,bhkd->bhqk", {tensor("q", {"batch", "8", "L", "64"}),
                                       tensor("k", {"batch", "8", "S", "64"})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 8, L, S]");
}

TEST(Einsum, DiagonalAndTrace) {
  EXPECT_EQ(einsum("ii->i", {tensor("x", {"n", "n"})}).str(), "float32[n]");
  // Implicit output: a repeated label is summed, leaving a scalar.
  EXPECT_EQ(einsum("ii", {tensor("x", {"4", "4"})}).str(), "float32[]");
  OpRun bad = einsum("ii->i", {tensor("x", {"3", "4"})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(),
                       "einsum(): subscript i is repeated for operand 0 but the sizes "
                       "don't match, 3 != 4"));
}

TEST(Einsum, EllipsisBroadcastsBatchDims) {
  OpRun r = einsum("...ij,...jk->...ik",
                   {tensor("x", {"batch", "1", "n", "k"}), tensor("y", {"heads", "k", "p"})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, heads, n, p]");
  // Implicit output puts the ellipsis dims first.
  EXPECT_EQ(einsum("...ij,...jk", {tensor("x", {"2", "n", "k"}), tensor("y", {"k", "p"})}).str(),
            "float32[2, n, p]");
  // An explicit output without the ellipsis sums its dims.
  EXPECT_EQ(einsum("...i->i", {tensor("x", {"2", "3", "n"})}).str(), "float32[n]");
}

TEST(Einsum, ImplicitOutputSortsLabelsSeenOnce) {
  EXPECT_EQ(einsum("ij,jk", {tensor("x", {"n", "k"}), tensor("y", {"k", "p"})}).str(),
            "float32[n, p]");
  EXPECT_EQ(einsum("ba", {tensor("x", {"2", "3"})}).str(), "float32[3, 2]");
  EXPECT_EQ(einsum("bA", {tensor("x", {"2", "3"})}).str(), "float32[3, 2]");
}

TEST(Einsum, SizeOneLabelsBroadcastAcrossOperands) {
  EXPECT_EQ(einsum("ij,ij->ij", {tensor("x", {"1", "4"}), tensor("y", {"n", "4"})}).str(),
            "float32[n, 4]");
  OpRun bad = einsum("ij,jk->ik", {tensor("x", {"2", "3"}), tensor("y", {"4", "5"})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "einsum(): operands do not broadcast: subscript j"));
}

TEST(Einsum, SymbolicLabelSizesAreGuardedEqual) {
  OpRun r = einsum("ij,jk->ik", {tensor("x", {"n", "a"}), tensor("y", {"b", "p"})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, p]");
  EXPECT_EQ(r.guards(), std::vector<std::string>{"a == b"});
}

TEST(Einsum, MalformedEquationsAreBadInput) {
  auto status = [](const OpRun& r) { return r.result.status; };
  const Input x = tensor("x", {"2", "3"});
  EXPECT_EQ(status(einsum("ij,jk->ik", {x})), Propagation::Status::InputError);
  EXPECT_EQ(status(einsum("ijk->i", {x})), Propagation::Status::InputError);
  EXPECT_EQ(status(einsum("i1->i", {x})), Propagation::Status::InputError);
  EXPECT_EQ(status(einsum("ij->ik", {x})), Propagation::Status::InputError);
  EXPECT_EQ(status(einsum("ij->ii", {x})), Propagation::Status::InputError);
  EXPECT_EQ(status(einsum("i..j->ij", {x})), Propagation::Status::InputError);
  EXPECT_TRUE(Contains(einsum("ijk->i", {x}).error(),
                       "the number of subscripts in the equation (3) does not match the number "
                       "of dimensions (2) for operand 0"));
}

}  // namespace
}  // namespace symshape::testing
