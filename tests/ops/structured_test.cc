// Shape rules of structured ops: tril / triu, diagonals, unfold, as_strided_scatter, one_hot,
// bucketize / searchsorted and cdist, over symbolic sizes.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

OpRun on_x(std::vector<std::string> shape, const std::string& target, std::vector<Arg> args,
           Kwargs kwargs = {}, std::vector<std::pair<std::string, DimDecl>> dims = {},
           DType dtype = DType::Float32) {
  std::vector<Arg> all = {T("x")};
  all.insert(all.end(), args.begin(), args.end());
  return run_op({tensor("x", std::move(shape), dtype)}, target, std::move(all), std::move(kwargs),
                std::move(dims));
}

TEST(TriangleRule, KeepsTheShapeAndNeedsTwoDims) {
  OpRun r = on_x({"a", "b"}, "aten.tril.default", {I(-1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, b]");
  EXPECT_TRUE(r.guards().empty());
  OpRun bad = on_x({"a"}, "aten.triu.default", {});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad.error(), "triu: input tensor must have at least 2 dimensions"));
}

TEST(DiagonalRule, LengthIsTheClampedMinimumWithoutGuards) {
  OpRun r = on_x({"a", "b"}, "aten.diagonal.default", {I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[" + r.value().tensor.sizes[0].str() + "]");
  EXPECT_TRUE(r.guards().empty());
  // A square matrix: the main diagonal is its side.
  OpRun square = on_x({"n", "n"}, "aten.diagonal.default", {});
  ASSERT_TRUE(square.ok()) << square.error();
  EXPECT_EQ(square.str(), "float32[n]");
  // With the other dims first and the stride of both.
  OpRun dims = on_x({"c", "n", "n"}, "aten.diagonal.default", {I(0), I(1), I(2)});
  ASSERT_TRUE(dims.ok()) << dims.error();
  EXPECT_EQ(dims.str(), "float32[c, n]");
  EXPECT_EQ(strides_str(dims.value()), "[n**2, n + 1]");
  OpRun same = on_x({"a", "b"}, "aten.diagonal.default", {I(0), I(1), I(-1)});
  EXPECT_EQ(same.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(same.error(), "diagonal dimensions cannot be identical"));
}

TEST(DiagRule, VectorToMatrixAndMatrixToVector) {
  OpRun m = on_x({"n"}, "aten.diag.default", {I(-2)});
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m.str(), "float32[n + 2, n + 2]");
  OpRun v = on_x({"n", "n + 3"}, "aten.diag.default", {I(3)});
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v.str(), "float32[n]");
  OpRun bad = on_x({"a", "b", "c"}, "aten.diag.default", {});
  EXPECT_TRUE(Contains(bad.error(), "diag: supports 1D or 2D tensors, got 3D"));
}

TEST(DiagEmbedRule, InsertsTheSquarePairOfDims) {
  OpRun r = on_x({"a", "b"}, "aten.diag_embed.default", {I(-1), I(0), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b + 1, a, b + 1]");
}

TEST(ScatterRules, SrcMustHaveTheViewsShape) {
  OpRun ok = run_op({tensor("x", {"a", "a + 1"}), tensor("s", {"a"})},
                    "aten.diagonal_scatter.default", {T("x"), T("s"), I(1)});
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok.str(), "float32[a, a + 1]");
  OpRun rank = run_op({tensor("x", {"a", "a"}), tensor("s", {"a", "1"})},
                      "aten.diagonal_scatter.default", {T("x"), T("s")});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(rank.error(), "diagonal_scatter: src [a, 1] must have the shape"));
  OpRun strided =
      run_op({tensor("x", {"a", "4"}), tensor("s", {"a", "2"})}, "aten.as_strided_scatter.default",
             {T("x"), T("s"), List({E("a"), I(2)}), Ints({4, 1}), I(1)});
  ASSERT_TRUE(strided.ok()) << strided.error();
  EXPECT_EQ(strided.str(), "float32[a, 4]");
  EXPECT_TRUE(strided.guards().empty());  // 4a - 2 < 4a is known
  OpRun outside =
      run_op({tensor("x", {"a", "4"}), tensor("s", {"a", "2"})}, "aten.as_strided_scatter.default",
             {T("x"), T("s"), List({E("a"), I(2)}), Ints({4, 3}), I(1)});
  EXPECT_EQ(outside.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(outside.error(), "out of bounds for self [a, 4]"));
}

TEST(UnfoldRule, WindowCountIsAFloorDivisionAndTheSizeIsGuarded) {
  OpRun r = on_x({"a", "b"}, "aten.unfold.default", {I(1), I(3), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a, (b - 1)//2, 3]");
  EXPECT_EQ(joined(r.guards()), "3 <= b");
  OpRun known = on_x({"a", "7"}, "aten.unfold.default", {I(-1), I(2), I(2)});
  ASSERT_TRUE(known.ok()) << known.error();
  EXPECT_EQ(known.str(), "float32[a, 3, 2]");
  OpRun big = on_x({"a", "7"}, "aten.unfold.default", {I(1), I(8), I(1)});
  EXPECT_EQ(big.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(big.error(), "maximum size for tensor at dimension 1 is 7 but size is 8"));
  OpRun step = on_x({"a"}, "aten.unfold.default", {I(0), I(1), I(0)});
  EXPECT_EQ(step.result.status, Propagation::Status::InputError);
}

TEST(OneHotRule, GivenOrDataDependentClassCount) {
  OpRun r = on_x({"a"}, "aten.one_hot.default", {I(4)}, {}, {}, DType::Int64);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[a, 4]");
  OpRun inferred = on_x({"a", "b"}, "aten.one_hot.default", {}, {}, {}, DType::Int64);
  ASSERT_TRUE(inferred.ok()) << inferred.error();
  const Expr classes = inferred.value().tensor.sizes[2];
  ASSERT_EQ(classes.free_symbols().size(), 1u);
  EXPECT_EQ(inferred.env->symbol(classes.str()).kind, SymbolKind::Unbacked);
  OpRun zero = on_x({"a"}, "aten.one_hot.default", {I(0)}, {}, {}, DType::Int64);
  EXPECT_EQ(zero.result.status, Propagation::Status::ShapeError);
  OpRun floats = on_x({"a"}, "aten.one_hot.default", {I(3)});
  EXPECT_EQ(floats.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(floats.error(), "type int64"));
}

TEST(SearchRules, ShapeOfTheValuesAndIndexDtype) {
  OpRun b = run_op({tensor("x", {"a", "b"}), tensor("bounds", {"c"})}, "aten.bucketize.Tensor",
                   {T("x"), T("bounds")}, {{"out_int32", B(true)}});
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b.str(), "int32[a, b]");
  OpRun rows = run_op({tensor("seq", {"a", "c"}), tensor("x", {"d", "b"})},
                      "aten.searchsorted.Tensor", {T("seq"), T("x")});
  ASSERT_TRUE(rows.ok()) << rows.error();
  EXPECT_EQ(rows.str(), "int64[d, b]");  // a and d are one size now
  EXPECT_EQ(rows.guards().size(), 1u);
  OpRun scalar = run_op({tensor("seq", {"c"})}, "aten.searchsorted.Scalar", {T("seq"), F(1.0)});
  ASSERT_TRUE(scalar.ok()) << scalar.error();
  EXPECT_EQ(scalar.str(), "int64[]");
  OpRun two_d = run_op({tensor("bounds", {"a", "c"}), tensor("x", {"a"})}, "aten.bucketize.Tensor",
                       {T("x"), T("bounds")});
  EXPECT_EQ(two_d.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(two_d.error(), "boundaries must be 1 dimension"));
  OpRun opposite = run_op({tensor("seq", {"c"}), tensor("x", {"a"})}, "aten.searchsorted.Tensor",
                          {T("seq"), T("x")}, {{"right", B(true)}, {"side", S("left")}});
  EXPECT_TRUE(Contains(opposite.error(), "side and right can't be set to opposites"));
}

TEST(CdistRule, BroadcastsBatchDimsAndGuardsTheColumns) {
  OpRun r = run_op({tensor("x1", {"b", "1", "p", "m"}), tensor("x2", {"a", "r", "k"})},
                   "aten.cdist.default", {T("x1"), T("x2")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, a, p, r]");
  EXPECT_TRUE(Contains(joined(r.guards()), "k")) << joined(r.guards());
  OpRun ints = run_op({tensor("x1", {"p", "m"}, DType::Int64), tensor("x2", {"r", "m"})},
                      "aten.cdist.default", {T("x1"), T("x2")});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
  OpRun negative = run_op({tensor("x1", {"p", "m"}), tensor("x2", {"r", "m"})},
                          "aten.cdist.default", {T("x1"), T("x2"), F(-1.0)});
  EXPECT_TRUE(Contains(negative.error(), "non-negative p"));
}

TEST(PadRules, ReflectionPaddingMustBeSmallerThanTheDim) {
  OpRun r = on_x({"n", "c", "w"}, "aten.reflection_pad1d.default", {Ints({2, 1})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, c, w + 3]");
  EXPECT_EQ(joined(r.guards()), "2 < w");
  OpRun known = on_x({"n", "c", "w"}, "aten.reflection_pad1d.default", {Ints({2, 1})}, {},
                     {Dim("c", 4, 1), Dim("w", 8, 3)});
  ASSERT_TRUE(known.ok()) << known.error();
  EXPECT_TRUE(known.guards().empty()) << joined(known.guards());
  OpRun small = on_x({"n", "c", "2"}, "aten.reflection_pad1d.default", {Ints({2, 1})});
  EXPECT_EQ(small.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(small.error(), "padding size should be less than"));
  OpRun replicate = on_x({"c", "h", "w"}, "aten.replication_pad2d.default", {Ints({1, 1, 5, 0})});
  ASSERT_TRUE(replicate.ok()) << replicate.error();
  EXPECT_EQ(replicate.str(), "float32[c, h + 5, w + 2]");
  OpRun circular = on_x({"n", "c", "w"}, "aten.pad.default", {Ints({3, 0}), S("circular")});
  ASSERT_TRUE(circular.ok()) << circular.error();
  EXPECT_EQ(circular.str(), "float32[n, c, w + 3]");
  OpRun rank = on_x({"w"}, "aten.reflection_pad1d.default", {Ints({1, 1})});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
}

TEST(UpsampleRules, ScaleFactorsGiveExactSizesOrADataDependentOne) {
  OpRun twice =
      on_x({"n", "c", "h", "w"}, "aten.upsample_nearest2d.vec", {None(), List({F(2.0), F(0.5)})});
  ASSERT_TRUE(twice.ok()) << twice.error();
  EXPECT_EQ(twice.str(), "float32[n, c, 2*h, w//2]");
  OpRun half = on_x({"n", "c", "h"}, "aten.upsample_nearest1d.vec", {None(), List({F(1.5)})});
  ASSERT_TRUE(half.ok()) << half.error();
  EXPECT_EQ(half.str(), "float32[n, c, (3*h)//2]");
  // 0.1 is not a short binary fraction: the double product may round across an integer.
  OpRun tenth = on_x({"n", "c", "h"}, "aten.upsample_nearest1d.vec", {None(), List({F(0.1)})});
  ASSERT_TRUE(tenth.ok()) << tenth.error();
  const Expr size = tenth.value().tensor.sizes[2];
  EXPECT_EQ(tenth.env->symbol(size.str()).kind, SymbolKind::Unbacked);
  // A constant size is computed as PyTorch does, in double.
  OpRun constant = on_x({"n", "c", "30"}, "aten.upsample_nearest1d.vec", {None(), List({F(0.1)})});
  EXPECT_EQ(constant.str(), "float32[n, c, 3]");
  OpRun sized = on_x({"n", "c", "h", "w"}, "aten.upsample_bilinear2d.default",
                     {List({E("2*h"), I(7)}), B(true)});
  EXPECT_EQ(sized.str(), "float32[n, c, 2*h, 7]");
  OpRun both = on_x({"n", "c", "h"}, "aten.upsample_nearest1d.vec", {Ints({4}), List({F(2.0)})});
  EXPECT_EQ(both.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(both.error(), "exactly one of output_size and scale_factors"));
  OpRun rank = on_x({"n", "h", "w"}, "aten.upsample_nearest2d.default", {Ints({4, 4})});
  EXPECT_EQ(rank.result.status, Propagation::Status::InputError);
}

TEST(MultiHeadAttentionRule, OutputAndWeightsOverSymbolicBatchAndSequence) {
  auto mha = [](bool need_weights, bool average, const std::string& d) {
    return run_op({tensor("x", {"b", "s", d}), tensor("w", {"3*" + d, d}), tensor("bias", {"24"}),
                   tensor("pw", {d, d}), tensor("pb", {d})},
                  "aten._native_multi_head_attention.default",
                  {T("x"), T("x"), T("x"), I(8), I(2), T("w"), T("bias"), T("pw"), T("pb"), None(),
                   B(need_weights), B(average)});
  };
  OpRun r = mha(true, true, "8");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[b, s, 8], float32[b, s, s])");
  EXPECT_TRUE(r.guards().empty()) << joined(r.guards());
  EXPECT_EQ(mha(true, false, "8").str(), "(float32[b, s, 8], float32[b, 2, s, s])");
  EXPECT_EQ(mha(false, true, "8").str(), "(float32[b, s, 8], None)");
  OpRun wrong = mha(true, true, "6");
  EXPECT_EQ(wrong.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(wrong.error(), "embed_dim 8 didn't match last dim of query"));
}

TEST(TransformerEncoderLayerRule, KeepsSrcsShapeAndChecksEveryWeight) {
  auto layer = [](const std::string& hidden_in) {
    return run_op({tensor("x", {"b", "s", "8"}), tensor("w", {"24", "8"}), tensor("bias", {"24"}),
                   tensor("pw", {"8", "8"}), tensor("d", {"8"}), tensor("f1", {"16", "8"}),
                   tensor("fb", {"16"}), tensor("f2", {"8", hidden_in})},
                  "aten._transformer_encoder_layer_fwd.default",
                  {T("x"), I(8), I(2), T("w"), T("bias"), T("pw"), T("d"), B(true), B(false),
                   F(1e-5), T("d"), T("d"), T("d"), T("d"), T("f1"), T("fb"), T("f2"), T("d")});
  };
  OpRun r = layer("16");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, s, 8]");
  EXPECT_TRUE(r.guards().empty()) << joined(r.guards());
  OpRun wrong = layer("12");
  EXPECT_EQ(wrong.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(wrong.error(), "expected `ffn_weight_2` of [8, 16], got [8, 12]"));
}

}  // namespace
}  // namespace symshape::testing
