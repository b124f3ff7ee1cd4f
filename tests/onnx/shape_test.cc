// ONNX's shape, layout and indexing operators, and shape-as-data: the Shape -> Gather ->
// arithmetic -> Concat -> Reshape / Expand / Slice / Range / ConstantOfShape / Tile chains that
// torch.onnx.export writes for view, flatten and expand with dynamic axes.
#include <functional>
#include <limits>

#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---- exported chains ----

TEST(OnnxShape, ViewWithProductOfTwoDimsIsExact) {
  // x.view(x.size(0), x.size(1), -1) as exported: Shape, Gather, Unsqueeze, Concat, Reshape;
  // and x.view(n, c, h * w) through Mul of two gathered dims.
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.ints("i0", {0}, {}).ints("i1", {1}, {}).ints("i2", {2}, {}).ints("i3", {3}, {});
  m.ints("axes", {0});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i0"}, {"n"}, {attr_int("axis", 0)});
  m.node("Gather", {"s", "i1"}, {"c"}, {attr_int("axis", 0)});
  m.node("Gather", {"s", "i2"}, {"h"}, {attr_int("axis", 0)});
  m.node("Gather", {"s", "i3"}, {"w"}, {attr_int("axis", 0)});
  m.node("Mul", {"h", "w"}, {"hw"});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Unsqueeze", {"c", "axes"}, {"c1"});
  m.node("Unsqueeze", {"hw", "axes"}, {"hw1"});
  m.node("Concat", {"n1", "c1", "hw1"}, {"target"}, {attr_int("axis", 0)});
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("hw"), "[H*W]");
  EXPECT_EQ(r.data("target"), "[N, C, H*W]");
  EXPECT_EQ(r.shape("y"), "float32[N, C, H*W]");
}

TEST(OnnxShape, HalvingADimThroughDivIsFloorDivision) {
  // x.view(n, 2, c // 2): Div of a known non-negative size by 2.
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"});
  m.ints("i0", {0}, {}).ints("i1", {1}, {}).ints("two", {2}, {}).ints("two1", {2});
  m.ints("axes", {0});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i0"}, {"n"});
  m.node("Gather", {"s", "i1"}, {"c"});
  m.node("Div", {"c", "two"}, {"half"});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Unsqueeze", {"half", "axes"}, {"h1"});
  m.node("Concat", {"n1", "two1", "h1"}, {"target"}, {attr_int("axis", 0)});
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("half"), "[C//2]");
  // C must be even for the reshape to hold: a guard, and then the sizes are exact.
  EXPECT_EQ(r.shape("y"), "float32[N, 2, C//2]");
}

TEST(OnnxShape, ExpandToAShapeFromAnotherTensor) {
  // mask.expand(b, s, s) with b and s read from x's shape.
  ModelBuilder m(13);
  m.input("x", 1, {"B", "S"}).input("mask", 9, {"1", "S"});
  m.ints("i0", {0}, {}).ints("i1", {1}, {}).ints("axes", {0});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i0"}, {"b"});
  m.node("Gather", {"s", "i1"}, {"seq"});
  m.node("Unsqueeze", {"b", "axes"}, {"b1"});
  m.node("Unsqueeze", {"seq", "axes"}, {"s1"});
  m.node("Concat", {"b1", "s1", "s1"}, {"target"}, {attr_int("axis", 0)});
  m.node("Expand", {"mask", "target"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "bool[B, S, S]");
}

TEST(OnnxShape, ExpandWithMinusOnesAsTorchExportsIt) {
  // tok.unsqueeze(1).expand(-1, x.size(1), -1): torch writes the -1s through ConstantOfShape,
  // Mul, Equal and Where before the Expand.
  ModelBuilder m(13);
  m.input("x", 1, {"B", "T", "D"}).input("tok", 1, {"B", "1", "D"});
  m.ints("i1", {1}, {}).ints("axes", {0}).ints("minus1", {-1}).ints("three", {3});
  ::onnx::TensorProto one;
  one.set_data_type(7);
  one.add_dims(1);
  one.add_int64_data(1);
  ::onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  *value.mutable_t() = one;
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i1"}, {"t"});
  m.node("Unsqueeze", {"t", "axes"}, {"t1"});
  m.node("Concat", {"minus1", "t1", "minus1"}, {"target"}, {attr_int("axis", 0)});
  m.node("ConstantOfShape", {"three"}, {"ones"}, {value});
  m.node("Mul", {"ones", "minus1"}, {"minus_ones"});
  m.node("Equal", {"target", "minus_ones"}, {"is_minus"});
  m.node("Where", {"is_minus", "ones", "target"}, {"fixed"});
  m.node("Expand", {"tok", "fixed"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("ones"), "[1, 1, 1]");
  EXPECT_EQ(r.data("is_minus"), "[1, 0, 1]");
  EXPECT_EQ(r.data("fixed"), "[1, T, 1]");
  EXPECT_EQ(r.shape("y"), "float32[B, T, D]");
}

TEST(OnnxShape, ExpandBroadcastsBothWays) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "1", "4"}).ints("target", {3, 1});
  m.node("Expand", {"x", "target"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 3, 4]");
}

TEST(OnnxShape, ExpandToATargetFromDataIsUnbacked) {
  ModelBuilder m(13);
  m.input("x", 1, {"1", "4"}).input("target", 7, {"3"});
  m.node("Expand", {"x", "target"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[u0, u1, 4]");

  // The input's dims that are not 1 stay; leading dims the target does not reach stay too.
  ModelBuilder k(13);
  k.input("x", 1, {"B", "N", "1"}).input("target", 7, {"2"});
  k.node("Expand", {"x", "target"}, {"y"}).output("y");
  Inferred q = infer(k.bytes());
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q.shape("y"), "float32[B, N, u0]");
}

TEST(OnnxShape, RangeAndConstantOfShapeFromAShape) {
  // torch.arange(x.size(1)) and torch.zeros(x.shape[:2]) as exported.
  ModelBuilder m(13);
  m.input("x", 1, {"B", "S", "8"});
  m.ints("zero", {0}, {}).ints("one", {1}, {}).ints("i1", {1}, {});
  m.ints("starts", {0}).ints("ends", {2});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i1"}, {"seq"});
  m.node("Range", {"zero", "seq", "one"}, {"positions"});
  m.node("Slice", {"s", "starts", "ends"}, {"bs"});
  m.node("ConstantOfShape", {"bs"}, {"zeros"});
  m.output("positions").output("zeros");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("positions"), "int64[S]");
  EXPECT_EQ(r.data("bs"), "[B, S]");
  EXPECT_EQ(r.shape("zeros"), "float32[B, S]");
}

TEST(OnnxShape, RangeOfConstantsHasItsElements) {
  ModelBuilder m(13);
  m.ints("a", {10}, {}).ints("b", {1}, {}).ints("d", {-3}, {});
  m.node("Range", {"a", "b", "d"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "int64[3]");
  EXPECT_EQ(r.data("y"), "[10, 7, 4]");
}

TEST(OnnxShape, RangeAndConstantOfShapeOfDataAreUnbacked) {
  ModelBuilder m(13);
  m.input("a", 7, {}).ints("b", {5}, {}).ints("d", {1}, {});
  m.node("Range", {"a", "b", "d"}, {"y"}).output("y");
  m.input("shape", 7, {"2"});
  m.node("ConstantOfShape", {"shape"}, {"z"}).output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "int64[u0]");
  EXPECT_EQ(r.shape("z"), "float32[u1, u2]");
}

TEST(OnnxShape, ConstantOfShapeTakesItsValuesType) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "3"});
  ::onnx::TensorProto t;
  t.set_data_type(7);
  t.add_dims(1);
  t.add_int64_data(5);
  ::onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  *value.mutable_t() = t;
  m.node("Shape", {"x"}, {"s"});
  m.node("ConstantOfShape", {"s"}, {"y"}, {value});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "int64[N, 3]");
}

TEST(OnnxShape, TileMultipliesByKnownRepeats) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "3"}).ints("reps", {2, 1});
  m.node("Tile", {"x", "reps"}, {"y"});
  m.node("Shape", {"x"}, {"s"});
  m.ints("two", {2});
  m.node("Tile", {"s", "two"}, {"ss"});
  m.output("y").output("ss");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[2*N, 3]");
  EXPECT_EQ(r.data("ss"), "[N, 3, N, 3]");
}

// ---- Slice ----

TEST(OnnxShape, SliceClampsHugeBoundsOnSymbolicDims) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "T"});
  m.ints("starts", {1}).ints("ends", {kMax}).ints("axes", {1});
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
  // x[:, ::-1]: start -1, end INT64_MIN, step -1.
  m.ints("rs", {-1}).ints("re", {kMin}).ints("rstep", {-1});
  m.node("Slice", {"x", "rs", "re", "axes", "rstep"}, {"rev"});
  // x[:, ::2] of an odd-or-even T.
  m.ints("zero", {0}).ints("two", {2});
  m.node("Slice", {"x", "zero", "ends", "axes", "two"}, {"even"});
  m.output("y").output("rev").output("even");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, T - 1]");
  EXPECT_EQ(r.shape("rev"), "float32[N, T]");
  EXPECT_EQ(r.shape("even"), "float32[N, (T + 1)//2]");
}

TEST(OnnxShape, SliceWithNegativeStepAndConstants) {
  ModelBuilder m(13);
  m.input("x", 1, {"20", "10", "5"});
  // The ONNX node test's case: starts 20, ends 0, step -1 on a dim of 20 -> 19.
  m.ints("starts", {20, 10}).ints("ends", {0, 3}).ints("axes", {0, 1}).ints("steps", {-1, -2});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[19, 3, 5]");
}

TEST(OnnxShape, SliceBeforeOpset10UsesAttributes) {
  ModelBuilder m(9);
  m.input("x", 1, {"N", "10"});
  m.node("Slice", {"x"}, {"y"},
         {attr_ints("starts", {2}), attr_ints("ends", {-1}), attr_ints("axes", {-1})});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 7]");
}

TEST(OnnxShape, SliceOfAShapeKeepsTheElements) {
  // x.shape[-2:] and x.shape[::-1].
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.ints("starts", {-2}).ints("ends", {kMax});
  m.ints("rs", {-1}).ints("re", {kMin}).ints("axes", {0}).ints("step", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "starts", "ends"}, {"hw"});
  m.node("Slice", {"s", "rs", "re", "axes", "step"}, {"rev"});
  m.output("hw").output("rev");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("hw"), "[H, W]");
  EXPECT_EQ(r.data("rev"), "[W, H, C, N]");
}

TEST(OnnxShape, SliceEndFromAShapeIsSymbolic) {
  // x[:, : x.size(1) - 1]
  ModelBuilder m(13);
  m.input("x", 1, {"N", "T"});
  m.ints("i1", {1}).ints("one", {1}).ints("zero", {0}).ints("axes", {1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i1"}, {"t"});
  m.node("Sub", {"t", "one"}, {"end"});
  m.node("Slice", {"x", "zero", "end", "axes"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("end"), "[T - 1]");
  EXPECT_EQ(r.shape("y"), "float32[N, T - 1]");
}

TEST(OnnxShape, SliceBeyondASymbolicDimIsDecidedWithAGuard) {
  // x[:5] of a dim T: whether T <= 5 is a guard on T's hint.
  ModelBuilder m(13);
  m.input("x", 1, {"T"});
  m.ints("zero", {0}).ints("five", {5});
  m.node("Slice", {"x", "zero", "five"}, {"y"}).output("y");
  PropagateOptions options;
  Inferred r = infer(m.bytes(), options);
  ASSERT_TRUE(r.ok()) << r.error();
  // T's default hint is 8: the slice is 5 long, under the guard that T is at least 5.
  EXPECT_EQ(r.shape("y"), "float32[5]");
  ASSERT_EQ(r.env->guards().size(), 1U);
  EXPECT_EQ(r.env->guards()[0].cond.str(), "5 <= T");

  // With T in 2..4 the end is past it statically: the whole dim, and no guard.
  DimDecl small;
  small.min = Int(2);
  small.max = Int(4);
  options.dims["T"] = small;
  Inferred s = infer(m.bytes(), options);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s.shape("y"), "float32[T]");
  EXPECT_TRUE(s.env->guards().empty());

  // A negative start past a symbolic dim: x[-5:] is T long when T < 5 (hint 3), else 5.
  ModelBuilder n(13);
  n.input("x", 1, {"T"}).ints("minus5", {-5}).ints("end", {kMax});
  n.node("Slice", {"x", "minus5", "end"}, {"y"}).output("y");
  DimDecl three;
  three.hint = Int(3);
  PropagateOptions hinted;
  hinted.dims["T"] = three;
  Inferred h = infer(n.bytes(), hinted);
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ(h.shape("y"), "float32[T]");
  ASSERT_EQ(h.env->guards().size(), 1U);
}

TEST(OnnxShape, SliceBoundsFromDataAreUnbacked) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "8"}).input("starts", 7, {"1"}).ints("ends", {kMax}).ints("axes", {1});
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, u0]");
}

TEST(OnnxShape, SliceRejectsAZeroStep) {
  ModelBuilder m(13);
  m.input("x", 1, {"4"}).ints("s", {0}).ints("e", {4}).ints("a", {0}).ints("step", {0});
  m.node("Slice", {"x", "s", "e", "a", "step"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("steps[0] is 0"), std::string::npos) << r.error();
}

// ---- Squeeze / Split / Flatten / Transpose ----

TEST(OnnxShape, SqueezeWithAndWithoutAxes) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "1", "4", "1"}).ints("axes", {-1});
  m.node("Squeeze", {"x", "axes"}, {"y"});
  m.node("Squeeze", {"x"}, {"all"});
  m.output("y").output("all");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 1, 4]");
  EXPECT_EQ(r.shape("all"), "float32[N, 4]");
}

TEST(OnnxShape, SqueezeOfAOneElementShapeIsAScalarWithTheElement) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "3"}).ints("starts", {0}).ints("ends", {1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Slice", {"s", "starts", "ends"}, {"first"});
  m.node("Squeeze", {"first"}, {"n"}, {attr_ints("axes", {0})});
  m.output("n");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("n"), "int64[]");
  EXPECT_EQ(r.data("n"), "[N]");
}

TEST(OnnxShape, SqueezingADimThatIsNotOneFails) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "3"}).ints("axes", {1});
  m.node("Squeeze", {"x", "axes"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cannot squeeze dim 1"), std::string::npos) << r.error();
}

TEST(OnnxShape, SplitEquallyByInputAndByNumOutputs) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "6"}).input("z", 1, {"7", "S"}).ints("sizes", {2, 4});
  m.node("Split", {"x"}, {"a", "b", "c"}, {attr_int("axis", 1), attr_int("num_outputs", 3)});
  m.node("Split", {"x", "sizes"}, {"p", "q"}, {attr_int("axis", -1)});
  m.node("Split", {"z"}, {"u", "v", "w"}, {attr_int("num_outputs", 3)});
  m.output("a").output("c").output("p").output("q").output("u").output("w");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("a"), "float32[N, 2]");
  EXPECT_EQ(r.shape("c"), "float32[N, 2]");
  EXPECT_EQ(r.shape("p"), "float32[N, 2]");
  EXPECT_EQ(r.shape("q"), "float32[N, 4]");
  // 7 in chunks of ceil(7 / 3) = 3: 3, 3, 1.
  EXPECT_EQ(r.shape("u"), "float32[3, S]");
  EXPECT_EQ(r.shape("w"), "float32[1, S]");
}

TEST(OnnxShape, SplitOfASymbolicDimIntoEqualParts) {
  ModelBuilder m(13);
  m.input("x", 1, {"B", "D"});
  m.node("Split", {"x"}, {"a", "b"}, {attr_int("axis", 1)});
  m.node("Shape", {"x"}, {"s"});
  m.node("Split", {"s"}, {"s0", "s1"}, {});
  m.output("a").output("b").output("s0").output("s1");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("b"), "float32[B, D//2]");
  EXPECT_EQ(r.data("s0"), "[B]");
  EXPECT_EQ(r.data("s1"), "[D]");
}

TEST(OnnxShape, SplitSizesThatDoNotAddUpFail) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "6"});
  m.node("Split", {"x"}, {"a", "b"}, {attr_int("axis", 1), attr_ints("split", {2, 3})});
  m.output("a");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("do not add up"), std::string::npos) << r.error();
}

TEST(OnnxShape, FlattenAndTranspose) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.node("Flatten", {"x"}, {"f"});
  m.node("Flatten", {"x"}, {"f0"}, {attr_int("axis", 0)});
  m.node("Flatten", {"x"}, {"f3"}, {attr_int("axis", -1)});
  m.node("Transpose", {"x"}, {"t"});
  m.node("Transpose", {"x"}, {"nhwc"}, {attr_ints("perm", {0, 2, 3, 1})});
  m.output("f").output("f0").output("f3").output("t").output("nhwc");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("f"), "float32[N, C*H*W]");
  EXPECT_EQ(r.shape("f0"), "float32[1, C*H*N*W]");
  EXPECT_EQ(r.shape("f3"), "float32[C*H*N, W]");
  EXPECT_EQ(r.shape("t"), "float32[W, H, C, N]");
  EXPECT_EQ(r.shape("nhwc"), "float32[N, H, W, C]");
}

TEST(OnnxShape, TransposeRejectsABadPerm) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"});
  m.node("Transpose", {"x"}, {"t"}, {attr_ints("perm", {0, 0})}).output("t");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("twice"), std::string::npos) << r.error();
}

// ---- indexing ----

TEST(OnnxShape, GatherNDAndGatherElementsAndScatter) {
  ModelBuilder m(13);
  m.input("data", 1, {"B", "5", "6"}).input("idx", 7, {"B", "K", "1"});
  m.input("el", 7, {"B", "2", "6"}).input("upd", 1, {"B", "2", "6"});
  m.node("GatherND", {"data", "idx"}, {"nd"}, {attr_int("batch_dims", 1)});
  m.node("GatherElements", {"data", "el"}, {"ge"}, {attr_int("axis", 1)});
  m.node("ScatterElements", {"data", "el", "upd"}, {"se"}, {attr_int("axis", 1)});
  m.output("nd").output("ge").output("se");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("nd"), "float32[B, K, 6]");
  EXPECT_EQ(r.shape("ge"), "float32[B, 2, 6]");
  EXPECT_EQ(r.shape("se"), "float32[B, 5, 6]");
}

TEST(OnnxShape, GatherWithAMatrixOfIndices) {
  ModelBuilder m(13);
  m.input("x", 1, {"V", "D"}).input("ids", 7, {"B", "S"});
  m.node("Gather", {"x", "ids"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[B, S, D]");
}

TEST(OnnxShape, OneHotAndCompress) {
  ModelBuilder m(13);
  m.input("ids", 7, {"B", "S"}).input("x", 1, {"N", "4"}).input("cond", 9, {"N"});
  m.ints("depth", {10}, {}).floats("values", {0, 1});
  m.ints("keep", {1, 0, 1, 1});
  m.node("OneHot", {"ids", "depth", "values"}, {"oh"}, {attr_int("axis", 1)});
  m.node("Compress", {"x", "cond"}, {"rows"}, {attr_int("axis", 0)});
  m.node("Compress", {"x", "keep"}, {"cols"}, {attr_int("axis", 1)});
  m.output("oh").output("rows").output("cols");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("oh"), "float32[B, 10, S]");
  EXPECT_EQ(r.shape("rows"), "float32[u0, 4]");
  EXPECT_EQ(r.shape("cols"), "float32[N, 3]");
}

// ---- elementwise ops on known elements ----

TEST(OnnxShape, ComparisonsAndWhereOnKnownElements) {
  // where(shape == 1, 1, shape): the symbolic dim stays, the constant 1 becomes 1.
  ModelBuilder m(13);
  m.input("x", 1, {"N", "1", "3"});
  m.ints("one", {1}, {});
  m.node("Shape", {"x"}, {"s"});
  m.node("Equal", {"s", "one"}, {"is_one"});
  m.node("Less", {"one", "s"}, {"gt_one"});
  m.node("Not", {"is_one"}, {"not_one"});
  m.node("Where", {"is_one", "one", "s"}, {"w"});
  m.node("Max", {"s", "one"}, {"mx"});
  m.output("gt_one").output("not_one").output("w").output("mx");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  // A named dim is at least 2 (as PyTorch assumes of dynamic sizes): N == 1 is known false.
  EXPECT_EQ(r.shape("is_one"), "bool[3]");
  EXPECT_EQ(r.data("is_one"), "[0, 1, 0]");
  EXPECT_EQ(r.data("gt_one"), "[1, 0, 1]");
  EXPECT_EQ(r.data("w"), "[N, 1, 3]");
  EXPECT_EQ(r.data("mx"), "[N, 1, 3]");

  // Whether N == M is not known: the comparison's elements stay unknown.
  ModelBuilder u(13);
  u.input("x", 1, {"N"}).input("y", 1, {"M"});
  u.node("Shape", {"x"}, {"sx"});
  u.node("Shape", {"y"}, {"sy"});
  u.node("Equal", {"sx", "sy"}, {"same"});
  u.output("same");
  Inferred v = infer(u.bytes());
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(v.data("same"), "unknown");

  ModelBuilder c(13);
  c.input("x", 1, {"2", "1", "3"}).ints("one", {1}, {});
  c.node("Shape", {"x"}, {"s"});
  c.node("Equal", {"s", "one"}, {"is_one"});
  c.node("Not", {"is_one"}, {"not_one"});
  c.node("Where", {"is_one", "s", "one"}, {"w"});
  c.output("not_one").output("w");
  Inferred k = infer(c.bytes());
  ASSERT_TRUE(k.ok()) << k.error();
  EXPECT_EQ(k.data("is_one"), "[0, 1, 0]");
  EXPECT_EQ(k.data("not_one"), "[1, 0, 1]");
  EXPECT_EQ(k.data("w"), "[1, 1, 1]");
}

TEST(OnnxShape, ArithmeticOnKnownElements) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "7"});
  m.ints("three", {3}, {}).ints("minus", {-7}, {}).ints("two", {2}, {});
  m.node("Shape", {"x"}, {"s"});
  m.node("Mod", {"s", "three"}, {"pymod"});
  m.node("Mod", {"minus", "two"}, {"pym"});
  m.node("Mod", {"minus", "two"}, {"cm"}, {attr_int("fmod", 1)});
  m.node("Div", {"minus", "two"}, {"trunc"});
  m.node("Neg", {"s"}, {"neg"});
  m.node("Abs", {"neg"}, {"abs"});
  m.node("Min", {"s", "three"}, {"mn"});
  m.node("Clip", {"s", "two", "three"}, {"clip"});
  m.node("Cast", {"s"}, {"s32"}, {attr_int("to", 6)});
  m.output("pymod").output("pym").output("cm").output("trunc").output("abs").output("mn");
  m.output("clip").output("s32");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("pymod"), "[N % 3, 1]");
  EXPECT_EQ(r.data("pym"), "[1]");
  EXPECT_EQ(r.data("cm"), "[-1]");
  EXPECT_EQ(r.data("trunc"), "[-3]");
  EXPECT_EQ(r.data("neg"), "[-N, -7]");
  EXPECT_EQ(r.data("abs"), "[N, 7]");
  EXPECT_EQ(r.data("mn"), "[min(3, N), 3]");
  EXPECT_EQ(r.data("s32"), "[N, 7]");
  EXPECT_EQ(r.shape("s32"), "int32[2]");
}

TEST(OnnxShape, WhereAndPReluBroadcast) {
  ModelBuilder m(13);
  m.input("c", 9, {"1", "S"}).input("x", 1, {"B", "1"}).input("y", 1, {"S"});
  m.input("a", 1, {"N", "C", "H", "W"}).input("slope", 1, {"C", "1", "1"});
  m.node("Where", {"c", "x", "y"}, {"w"});
  m.node("PRelu", {"a", "slope"}, {"p"});
  m.output("w").output("p");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("w"), "float32[B, S]");
  EXPECT_EQ(r.shape("p"), "float32[N, C, H, W]");
}

TEST(OnnxShape, RandomLikeOpsKeepTheShapeAndTakeTheirDtype) {
  ModelBuilder m(15);
  m.input("p", 1, {"N", "S"});
  m.node("Bernoulli", {"p"}, {"b"}, {attr_int("dtype", 7)});
  m.node("RandomUniformLike", {"p"}, {"u"});
  m.node("EyeLike", {"p"}, {"eye"}, {attr_int("dtype", 9)});
  m.output("b").output("u").output("eye");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("b"), "int64[N, S]");
  EXPECT_EQ(r.shape("u"), "float32[N, S]");
  EXPECT_EQ(r.shape("eye"), "bool[N, S]");
}

TEST(OnnxShape, BadIndexingInputsAreErrorsNamingTheProblem) {
  struct Case {
    const char* what;
    std::function<void(ModelBuilder&)> build;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"gather out of range",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "C"}).ints("i", {5}, {});
         m.node("Shape", {"x"}, {"s"});
         m.node("Gather", {"s", "i"}, {"y"});
       },
       "index 5 is out of range"},
      {"tile repeats",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "C"}).ints("r", {2});
         m.node("Tile", {"x", "r"}, {"y"});
       },
       "repeats has 1 entries for an input of rank 2"},
      {"gather_nd tuples",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "C"}).input("i", 7, {"K", "3"});
         m.node("GatherND", {"x", "i"}, {"y"});
       },
       "index past data's rank 2"},
      {"where condition",
       [](ModelBuilder& m) {
         m.input("c", 1, {"N"}).input("x", 1, {"N"});
         m.node("Where", {"c", "x", "x"}, {"y"});
       },
       "condition must be bool"},
      {"slice axes from data",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N"}).ints("s", {0}).ints("e", {1}).input("a", 7, {"1"});
         m.node("Slice", {"x", "s", "e", "a"}, {"y"});
       },
       "axes must be a constant"},
      {"reshape two -1",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "4"}).ints("t", {-1, -1});
         m.node("Reshape", {"x", "t"}, {"y"});
       },
       "more than one -1"},
      {"reshape to a target of a billion dims",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "4"}).input("t", 7, {"1000000000"});
         m.node("Reshape", {"x", "t"}, {"y"});
       },
       "more than any rank"},
      {"slice with more starts than dims",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N"}).input("s", 7, {"3"}).input("e", 7, {"3"});
         m.node("Slice", {"x", "s", "e"}, {"y"});
       },
       "starts has 3 entries for an input of rank 1"},
      {"flatten axis",
       [](ModelBuilder& m) {
         m.input("x", 1, {"N", "4"});
         m.node("Flatten", {"x"}, {"y"}, {attr_int("axis", 3)});
       },
       "axis 3 is out of range"},
  };
  for (const Case& c : cases) {
    ModelBuilder m(13);
    c.build(m);
    m.output("y");
    Inferred r = infer(m.bytes());
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_NE(r.error().find(c.message), std::string::npos) << c.what << ": " << r.error();
    EXPECT_NE(r.error().find("node y"), std::string::npos) << c.what << ": " << r.error();
  }
}

}  // namespace
}  // namespace symshape::onnx::testing
