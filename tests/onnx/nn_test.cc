// The neural-network rules: convolution and pooling windows, normalization outputs, Gemm,
// MatMul and Einsum, Resize's exact scaling, Pad, layout moves and the RNNs, on symbolic sizes.
#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

TEST(OnnxNn, ConvWithPadsStridesAndDilationsOnSymbolicSizes) {
  ModelBuilder m;
  m.input("x", 1, {"N", "3", "H", "W"}).weight("w", {8, 3, 3, 3}).weight("b", {8});
  m.node("Conv", {"x", "w", "b"}, {"y"},
         {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2})});
  m.node("Conv", {"x", "w"}, {"z"}, {attr_ints("dilations", {2, 1})});
  m.output("y").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 8, (H + 1)//2, (W + 1)//2]");
  EXPECT_EQ(r.shape("z"), "float32[N, 8, H - 4, W - 2]");
}

TEST(OnnxNn, ConvAutoPadGroupsAndOneAndThreeSpatialDims) {
  ModelBuilder m;
  m.input("x", 1, {"N", "4", "L"}).weight("w", {6, 2, 5});
  m.node("Conv", {"x", "w"}, {"same"},
         {attr_string("auto_pad", "SAME_UPPER"), attr_int("group", 2), attr_ints("strides", {3})});
  m.node("Conv", {"x", "w"}, {"valid"}, {attr_string("auto_pad", "VALID"), attr_int("group", 2)});
  m.input("v", 1, {"1", "2", "D", "8", "8"}).weight("k", {4, 2, 1, 3, 3});
  m.node("Conv", {"v", "k"}, {"vol"}, {attr_ints("kernel_shape", {1, 3, 3})});
  m.output("same").output("valid").output("vol");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("same"), "float32[N, 6, (L + 2)//3]");
  EXPECT_EQ(r.shape("valid"), "float32[N, 6, L - 4]");
  EXPECT_EQ(r.shape("vol"), "float32[1, 4, D, 6, 6]");
}

TEST(OnnxNn, ConvChannelMismatchAndBadAutoPadAreErrors) {
  ModelBuilder m;
  m.input("x", 1, {"N", "3", "H", "W"}).weight("w", {8, 4, 3, 3});
  m.node("Conv", {"x", "w"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("channels"), std::string::npos) << r.error();

  ModelBuilder pad;
  pad.input("x", 1, {"N", "3", "H", "W"}).weight("w", {8, 3, 3, 3});
  pad.node("Conv", {"x", "w"}, {"y"}, {attr_string("auto_pad", "SAME")}).output("y");
  Inferred p = infer(pad.bytes());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("auto_pad"), std::string::npos) << p.error();

  ModelBuilder small;
  small.input("x", 1, {"1", "3", "2", "2"}).weight("w", {8, 3, 3, 3});
  small.node("Conv", {"x", "w"}, {"y"}).output("y");
  Inferred s = infer(small.bytes());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("smaller than the kernel"), std::string::npos) << s.error();
}

TEST(OnnxNn, ConvTransposeOutputPaddingOutputShapeAndSame) {
  ModelBuilder m;
  m.input("x", 1, {"N", "3", "H", "W"}).weight("w", {3, 2, 3, 3});
  m.node("ConvTranspose", {"x", "w"}, {"y"},
         {attr_ints("strides", {3, 2}), attr_ints("output_padding", {1, 1}),
          attr_ints("pads", {1, 2, 1, 2})});
  m.node("ConvTranspose", {"x", "w"}, {"shaped"},
         {attr_ints("strides", {3, 2}), attr_ints("output_shape", {10, 8}), attr_int("group", 1)});
  m.node("ConvTranspose", {"x", "w"}, {"same"},
         {attr_ints("strides", {2, 2}), attr_string("auto_pad", "SAME_UPPER")});
  m.output("y").output("shaped").output("same");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 2, 3*H - 1, 2*W - 2]");
  EXPECT_EQ(r.shape("shaped"), "float32[N, 2, 10, 8]");
  EXPECT_EQ(r.shape("same"), "float32[N, 2, 2*H, 2*W]");
}

TEST(OnnxNn, MaxPoolCeilModeAndIndices) {
  ModelBuilder m;
  m.input("x", 1, {"N", "C", "5", "H"});
  m.node(
      "MaxPool", {"x"}, {"y", "i"},
      {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2}), attr_int("ceil_mode", 1)});
  m.node("AveragePool", {"x"}, {"avg"},
         {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})});
  m.node("GlobalAveragePool", {"x"}, {"g"});
  m.output("y").output("i").output("avg").output("g");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, 3, (H + 1)//2]");
  EXPECT_EQ(r.shape("i"), "int64[N, C, 3, (H + 1)//2]");
  EXPECT_EQ(r.shape("avg"), "float32[N, C, 5, H]");
  EXPECT_EQ(r.shape("g"), "float32[N, C, 1, 1]");
}

TEST(OnnxNn, PoolWithoutKernelShapeIsBadInput) {
  ModelBuilder m;
  m.input("x", 1, {"N", "C", "H", "W"});
  m.node("MaxPool", {"x"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("kernel_shape"), std::string::npos) << r.error();
}

TEST(OnnxNn, NormalizationOutputs) {
  ModelBuilder m(15);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.input("s", 1, {"C"}).input("b", 1, {"C"}).input("mean", 1, {"C"}).input("var", 1, {"C"});
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "rm", "rv"},
         {attr_int("training_mode", 1)});
  m.input("t", 1, {"B", "S", "E"}).input("g", 1, {"E"});
  m.node("LayerNormalization", {"t", "g"}, {"ln", "mu", "inv"}, {attr_int("axis", -1)});
  m.node("Dropout", {"t"}, {"d", "mask"});
  m.output("y").output("rm").output("rv").output("ln").output("mu").output("inv");
  m.output("d").output("mask");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, H, W]");
  EXPECT_EQ(r.shape("rv"), "float32[C]");
  EXPECT_EQ(r.shape("ln"), "float32[B, S, E]");
  EXPECT_EQ(r.shape("mu"), "float32[B, S, 1]");
  EXPECT_EQ(r.shape("mask"), "bool[B, S, E]");
}

TEST(OnnxNn, BatchNormScaleOfTheWrongSizeIsAnError) {
  ModelBuilder m;
  m.input("x", 1, {"N", "3", "H"}).weight("s", {4}).weight("b", {3});
  m.weight("mean", {3}).weight("var", {3});
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("scale"), std::string::npos) << r.error();
}

TEST(OnnxNn, GemmTransposesAndBroadcastsC) {
  ModelBuilder m;
  m.input("a", 1, {"K", "M"}).input("b", 1, {"N", "K"}).input("c", 1, {"N"});
  m.node("Gemm", {"a", "b", "c"}, {"y"}, {attr_int("transA", 1), attr_int("transB", 1)});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[M, N]");

  ModelBuilder bad;
  bad.input("a", 1, {"4", "3"}).input("b", 1, {"3", "5"}).input("c", 1, {"4", "1", "5"});
  bad.node("Gemm", {"a", "b", "c"}, {"y"}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("rank <= 2"), std::string::npos) << e.error();
}

TEST(OnnxNn, MatMulVectorsAndBatchBroadcasting) {
  ModelBuilder m;
  m.input("a", 1, {"B", "1", "M", "K"}).input("b", 1, {"H", "K", "N"}).input("v", 1, {"K"});
  m.node("MatMul", {"a", "b"}, {"ab"});
  m.node("MatMul", {"v", "b"}, {"vb"});
  m.node("MatMul", {"a", "v"}, {"av"});
  m.output("ab").output("vb").output("av");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("ab"), "float32[B, H, M, N]");
  EXPECT_EQ(r.shape("vb"), "float32[H, N]");
  EXPECT_EQ(r.shape("av"), "float32[B, 1, M]");

  ModelBuilder bad;
  bad.input("a", 1, {"2", "3"}).input("b", 1, {"4", "5"});
  bad.node("MatMul", {"a", "b"}, {"y"}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("inner sizes"), std::string::npos) << e.error();
}

TEST(OnnxNn, EinsumExplicitImplicitAndEllipsis) {
  ModelBuilder m(12);
  m.input("a", 1, {"B", "I", "J"})
      .input("b", 1, {"B", "J", "K"})
      .input("x", 1, {"S", "T", "I", "J"});
  m.node("Einsum", {"a", "b"}, {"bmm"}, {attr_string("equation", "bij, bjk -> bik")});
  m.node("Einsum", {"a"}, {"implicit"}, {attr_string("equation", "bji")});
  m.node("Einsum", {"x", "b"}, {"dots"}, {attr_string("equation", "...ij,bjk->...ik")});
  m.output("bmm").output("implicit").output("dots");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("bmm"), "float32[B, I, K]");
  EXPECT_EQ(r.shape("implicit"), "float32[B, J, I]");
  EXPECT_EQ(r.shape("dots"), "float32[S, T, I, K]");

  ModelBuilder bad;
  bad.input("a", 1, {"2", "3"});
  bad.node("Einsum", {"a"}, {"y"}, {attr_string("equation", "ijk->i")}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("does not fit"), std::string::npos) << e.error();
}

TEST(OnnxNn, ResizeScalesAreExactOnSymbolicSizes) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.floats("scales", {1, 1, 1.5f, 0.25f});
  m.node("Resize", {"x", "", "scales"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, (3*H)//2, W//4]");
}

TEST(OnnxNn, ResizeSizesWithAxesAndAspectPolicy) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "3", "20", "40"});
  m.ints("sizes", {10, 10});
  m.node("Resize", {"x", "", "", "sizes"}, {"small"},
         {attr_ints("axes", {2, 3}), attr_string("keep_aspect_ratio_policy", "not_larger")});
  m.node("Resize", {"x", "", "", "sizes"}, {"big"},
         {attr_ints("axes", {-2, -1}), attr_string("keep_aspect_ratio_policy", "not_smaller")});
  m.node("Resize", {"x", "", "", "sizes"}, {"stretch"}, {attr_ints("axes", {3, 2})});
  m.output("small").output("big").output("stretch");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("small"), "float32[N, 3, 5, 10]");
  EXPECT_EQ(r.shape("big"), "float32[N, 3, 10, 20]");
  EXPECT_EQ(r.shape("stretch"), "float32[N, 3, 10, 10]");

  ModelBuilder both(13);
  both.input("x", 1, {"N", "C"}).floats("scales", {1, 2}).ints("sizes", {1, 2});
  both.node("Resize", {"x", "", "scales", "sizes"}, {"y"}).output("y");
  Inferred e = infer(both.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("exactly one of scales and sizes"), std::string::npos) << e.error();
}

TEST(OnnxNn, UpsampleAttributeAndInputScales) {
  ModelBuilder old(7);
  old.input("x", 1, {"N", "C", "H", "W"});
  old.node("Upsample", {"x"}, {"y"}, {attr_floats("scales", {1, 1, 2, 3})}).output("y");
  Inferred r = infer(old.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, 2*H, 3*W]");
}

TEST(OnnxNn, PadBeginEndNegativeAndAxes) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "C", "H", "W"}).ints("pads", {0, 0, 1, -1, 0, 0, 2, -1});
  m.node("Pad", {"x", "pads"}, {"y"}, {attr_string("mode", "reflect")});
  m.ints("axes", {-1}).ints("two", {3, 4});
  m.node("Pad", {"x", "two", "", "axes"}, {"z"});
  m.output("y").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, H + 3, W - 2]");
  EXPECT_EQ(r.shape("z"), "float32[N, C, H, W + 7]");

  ModelBuilder old(2);
  old.input("x", 1, {"N", "4"});
  old.node("Pad", {"x"}, {"y"}, {attr_ints("pads", {1, 0, 1, -5})}).output("y");
  Inferred e = infer(old.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("negative"), std::string::npos) << e.error();
}

TEST(OnnxNn, LayoutMoves) {
  ModelBuilder m;
  m.input("x", 1, {"N", "C", "H", "W"});
  m.node("DepthToSpace", {"x"}, {"d2s"}, {attr_int("blocksize", 2), attr_string("mode", "CRD")});
  m.node("SpaceToDepth", {"x"}, {"s2d"}, {attr_int("blocksize", 2)});
  m.node("Flatten", {"x"}, {"flat"}, {attr_int("axis", -1)});
  m.node("Flatten", {"x"}, {"all"}, {attr_int("axis", 0)});
  m.output("d2s").output("s2d").output("flat").output("all");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("d2s"), "float32[N, C//4, 2*H, 2*W]");
  EXPECT_EQ(r.shape("s2d"), "float32[N, 4*C, H//2, W//2]");
  EXPECT_EQ(r.shape("flat"), "float32[C*H*N, W]");
  EXPECT_EQ(r.shape("all"), "float32[1, C*H*N*W]");

  ModelBuilder bad;
  bad.input("x", 1, {"1", "6", "2", "2"});
  bad.node("DepthToSpace", {"x"}, {"y"}, {attr_int("blocksize", 2)}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("not a multiple of blocksize"), std::string::npos) << e.error();
}

TEST(OnnxNn, LstmAndGruOutputsInBothLayouts) {
  ModelBuilder m(14);
  m.input("x", 1, {"S", "B", "10"}).weight("w", {2, 32, 10}).weight("r", {2, 32, 8});
  m.node("LSTM", {"x", "w", "r"}, {"y", "h", "c"},
         {attr_int("hidden_size", 8), attr_string("direction", "bidirectional")});
  m.input("xb", 1, {"B", "S", "10"}).weight("gw", {1, 24, 10}).weight("gr", {1, 24, 8});
  m.node("GRU", {"xb", "gw", "gr"}, {"", "gh"}, {attr_int("layout", 1)});
  m.output("y").output("h").output("c").output("gh");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[S, 2, B, 8]");
  EXPECT_EQ(r.shape("h"), "float32[2, B, 8]");
  EXPECT_EQ(r.shape("c"), "float32[2, B, 8]");
  EXPECT_EQ(r.shape("gh"), "float32[B, 1, 8]");

  ModelBuilder bad(14);
  bad.input("x", 1, {"S", "B", "10"}).weight("w", {1, 30, 10}).weight("r", {1, 32, 8});
  bad.node("LSTM", {"x", "w", "r"}, {"y"}, {attr_int("hidden_size", 8)}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("hidden_size rows"), std::string::npos) << e.error();
}

TEST(OnnxNn, QuantizedOps) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "K"}).floats("scale", {0.5f}, {}).input("zp", 3, {});
  m.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"});
  m.node("DequantizeLinear", {"q", "scale", "zp"}, {"dq"});
  m.node("DynamicQuantizeLinear", {"x"}, {"y", "ys", "yz"});
  m.input("w", 2, {"K", "M"});
  m.node("MatMulInteger", {"y", "w"}, {"mi"});
  m.output("q").output("dq").output("ys").output("yz").output("mi");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("q"), "int8[N, K]");
  EXPECT_EQ(r.shape("dq"), "float32[N, K]");
  EXPECT_EQ(r.shape("ys"), "float32[]");
  EXPECT_EQ(r.shape("yz"), "uint8[]");
  EXPECT_EQ(r.shape("mi"), "int32[N, M]");
}

TEST(OnnxNn, QuantizedAndDeformableConvolutions) {
  ModelBuilder m(19);
  m.input("x", 2, {"N", "4", "H", "W"}).input("w", 2, {"6", "4", "3", "3"});
  m.node("ConvInteger", {"x", "w"}, {"ci"}, {attr_ints("pads", {1, 1, 1, 1})});
  m.floats("s", {0.5f}, {}).input("zp", 3, {});
  m.node("QLinearConv", {"x", "s", "zp", "w", "s", "zp", "s", "zp"}, {"qc"});
  m.input("f", 1, {"N", "4", "H", "W"}).input("fw", 1, {"6", "4", "3", "3"});
  m.input("offset", 1, {"N", "18", "?", "?"});
  m.node("DeformConv", {"f", "fw", "offset"}, {"dc"});
  m.output("ci").output("qc").output("dc");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("ci"), "int32[N, 6, H, W]");
  EXPECT_EQ(r.shape("qc"), "int8[N, 6, H - 2, W - 2]");
  EXPECT_EQ(r.shape("dc"), "float32[N, 6, H - 2, W - 2]");
}

TEST(OnnxNn, MaxUnpoolRoisAndGridSample) {
  ModelBuilder m(16);
  m.input("x", 1, {"N", "C", "H", "W"}).input("i", 7, {"N", "C", "H", "W"});
  m.node("MaxUnpool", {"x", "i"}, {"up"},
         {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})});
  m.ints("out", {1, 2, 9, 9});
  m.node("MaxUnpool", {"x", "i", "out"}, {"shaped"}, {attr_ints("kernel_shape", {2, 2})});
  m.input("rois", 1, {"R", "4"}).input("bi", 7, {"R"});
  m.node("RoiAlign", {"x", "rois", "bi"}, {"ra"},
         {attr_int("output_height", 5), attr_int("output_width", 7)});
  m.input("grid", 1, {"N", "P", "Q", "2"});
  m.node("GridSample", {"x", "grid"}, {"gs"});
  m.output("up").output("shaped").output("ra").output("gs");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("up"), "float32[N, C, 2*H, 2*W]");
  EXPECT_EQ(r.shape("shaped"), "float32[1, 2, 9, 9]");
  EXPECT_EQ(r.shape("ra"), "float32[R, C, 5, 7]");
  EXPECT_EQ(r.shape("gs"), "float32[N, C, P, Q]");
}

TEST(OnnxNn, GroupAndInstanceNormalization) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "6", "L"}).weight("g", {6});
  m.node("InstanceNormalization", {"x", "g", "g"}, {"in"});
  m.node("GroupNormalization", {"x", "g", "g"}, {"gn"}, {attr_int("num_groups", 3)});
  m.output("in").output("gn");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("in"), "float32[N, 6, L]");
  EXPECT_EQ(r.shape("gn"), "float32[N, 6, L]");

  ModelBuilder bad(18);
  bad.input("x", 1, {"N", "6", "L"}).weight("g", {6});
  bad.node("GroupNormalization", {"x", "g", "g"}, {"gn"}, {attr_int("num_groups", 4)});
  bad.output("gn");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("num_groups"), std::string::npos) << e.error();
}

TEST(OnnxNn, TargetsComputedFromDataAreUnbacked) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "C", "H", "W"}).input("scales", 1, {"4"}).input("pads", 7, {"4"});
  m.node("Resize", {"x", "", "scales"}, {"r"});
  m.ints("axes", {2, 3});
  m.node("Pad", {"x", "pads", "", "axes"}, {"p"});
  m.output("r").output("p");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("r"), "float32[u0, u1, u2, u3]");
  EXPECT_EQ(r.shape("p"), "float32[N, C, u4, u5]");
}

TEST(OnnxNn, PadsComputedFromShapeAreSymbolic) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "L"});
  m.node("Shape", {"x"}, {"s"});  // [N, L]: pad dim 1 by N before and L after
  m.ints("axes", {1});
  m.node("Pad", {"x", "s", "", "axes"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 2*L + N]");
}

TEST(OnnxNn, CenterCropPadCol2ImAndAffineGrid) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "H", "W", "3"}).ints("crop", {10, 12});
  m.node("CenterCropPad", {"x", "crop"}, {"c"}, {attr_ints("axes", {1, 2})});
  m.input("cols", 1, {"N", "18", "L"}).ints("image", {5, 6}).ints("block", {3, 3});
  m.node("Col2Im", {"cols", "image", "block"}, {"im"});
  m.input("theta", 1, {"4", "2", "3"}).ints("size", {4, 3, 7, 9});
  m.node("AffineGrid", {"theta", "size"}, {"grid"});
  m.output("c").output("im").output("grid");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("c"), "float32[N, 10, 12, 3]");
  EXPECT_EQ(r.shape("im"), "float32[N, 2, 5, 6]");
  EXPECT_EQ(r.shape("grid"), "float32[4, 7, 9, 2]");
}

TEST(OnnxNn, RnnOptionalInputsAreChecked) {
  ModelBuilder m(14);
  m.input("x", 1, {"S", "B", "10"}).weight("w", {1, 8, 10}).weight("r", {1, 8, 8});
  m.input("bias", 1, {"1", "16"}).input("h0", 1, {"1", "B", "8"});
  m.node("RNN", {"x", "w", "r", "bias", "", "h0"}, {"y", "h"}, {attr_int("hidden_size", 8)});
  m.output("y").output("h");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[S, 1, B, 8]");

  ModelBuilder bad(14);
  bad.input("x", 1, {"S", "B", "10"}).weight("w", {1, 8, 10}).weight("r", {1, 8, 8});
  bad.input("h0", 1, {"1", "B", "4"});
  bad.node("RNN", {"x", "w", "r", "", "", "h0"}, {"y"}).output("y");
  Inferred e = infer(bad.bytes());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("initial_h"), std::string::npos) << e.error();
}

TEST(OnnxNn, MaxRoiPool) {
  ModelBuilder m;
  m.input("x", 1, {"N", "C", "H", "W"}).input("rois", 1, {"R", "5"});
  m.node("MaxRoiPool", {"x", "rois"}, {"y"}, {attr_ints("pooled_shape", {2, 3})});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[R, C, 2, 3]");
}

TEST(OnnxNn, MalformedNodesAreErrorsNotCrashes) {
  struct Case {
    std::string op;
    std::vector<std::string> inputs;
    std::vector<::onnx::AttributeProto> attrs;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"Conv", {"m", "w4"}, {}, "rank >= 3"},
      {"Conv", {"x", "m"}, {}, "rank of X"},
      {"Conv", {"x", "w4"}, {attr_ints("strides", {1})}, "strides"},
      {"Conv", {"x", "w4"}, {attr_ints("strides", {0, 1})}, "strides"},
      {"Conv", {"x", "w4"}, {attr_int("group", 0)}, "group"},
      {"MaxPool", {"x"}, {attr_ints("kernel_shape", {2, 2}), attr_ints("pads", {1, 1})}, "pads"},
      {"Einsum", {"m"}, {attr_string("equation", "i...j...->ij")}, "two ellipses"},
      {"Einsum", {"m"}, {attr_string("equation", "ij->k")}, "in no input"},
      {"Einsum", {"m"}, {attr_string("equation", "i1")}, "bad character"},
      {"Einsum", {"m", "m"}, {attr_string("equation", "ij")}, "terms"},
      {"Resize", {"x", "", "bad_scales"}, {}, "scales has"},
      {"Resize", {"x", "", "zero_scales"}, {}, "positive"},
      {"Pad", {"x", "odd"}, {}, "pads has"},
      {"Flatten", {"x"}, {attr_int("axis", 5)}, "axis"},
      {"DepthToSpace", {"x"}, {}, "blocksize"},
      {"LayerNormalization", {"x", "x"}, {attr_int("axis", 4)}, "axis"},
      {"LSTM", {"m", "w4", "w4"}, {}, "rank 3"},
      {"Gemm", {"m", "x"}, {}, "rank 2"},
      {"MatMul", {"x", "i"}, {}, "element types"},
  };
  for (const Case& c : cases) {
    ModelBuilder m(13);
    m.input("x", 1, {"N", "4", "H", "W"}).input("m", 1, {"N", "4"}).input("i", 7, {"W", "N"});
    m.weight("w4", {8, 4, 3, 3}).floats("bad_scales", {1, 2}).floats("zero_scales", {1, 1, 0, 1});
    m.ints("odd", {1, 1, 1});
    m.node(c.op, c.inputs, {"y"}, c.attrs).output("y");
    Inferred r = infer(m.bytes());
    ASSERT_FALSE(r.ok()) << c.op << " " << c.message;
    EXPECT_NE(r.error().find(c.message), std::string::npos) << c.op << ": " << r.error();
  }
}

}  // namespace
}  // namespace symshape::onnx::testing
