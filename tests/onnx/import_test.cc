// Reading ONNX models: inputs, initializers, constants, attributes, several outputs, and bad
// models; shape arithmetic through Shape / Gather / Concat into Reshape.
#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

TEST(OnnxImport, DimParamsAreNamedDimsAndShareASymbol) {
  ModelBuilder m;
  m.input("x", 1, {"batch", "seq", "8"}).input("y", 1, {"batch", "?", "8"});
  m.node("Add", {"x", "y"}, {"z"}).output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("x"), "float32[batch, seq, 8]");
  // y's second dim has no name: a size of its own, which broadcasting against seq guards.
  EXPECT_EQ(r.shape("z"), "float32[batch, seq, 8]");
  ASSERT_NE(r.graph.dim("batch"), nullptr);
}

TEST(OnnxImport, ReshapeToAShapeComputedFromShapeIsExact) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H", "W"});
  m.ints("zero", {0}, {}).ints("minus_one", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"}, {attr_int("axis", 0)});
  m.ints("axes", {0});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Concat", {"n1", "minus_one"}, {"target"}, {attr_int("axis", 0)});
  m.node("Reshape", {"x", "target"}, {"flat"});
  m.output("flat");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("s"), "[N, C, H, W]");
  EXPECT_EQ(r.data("target"), "[N, -1]");
  EXPECT_EQ(r.shape("flat"), "float32[N, C*H*W]");
}

TEST(OnnxImport, SeveralOutputsAreNamedByTheirOnnxNames) {
  ModelBuilder m;
  m.input("x", 1, {"N", "4"});
  m.node("Dropout", {"x"}, {"y", "mask"});
  m.output("y").output("mask");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.import_error.empty()) << r.import_error;
  const Node* y = r.graph.find("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->target, "operator.getitem");
}

TEST(OnnxImport, ConstantsKeepTheirValues) {
  ModelBuilder m;
  m.input("x", 1, {"N", "6"});
  ::onnx::TensorProto t;
  t.set_data_type(7);
  t.add_dims(2);
  t.add_int64_data(3);
  t.add_int64_data(-1);
  ::onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  *value.mutable_t() = t;
  m.node("Constant", {}, {"shape"}, {value});
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.data("shape"), "[3, -1]");
  EXPECT_EQ(r.shape("y"), "float32[3, 2*N]");
}

TEST(OnnxImport, ReshapeThatCannotHoldIsAShapeErrorNamingTheNode) {
  ModelBuilder m;
  m.input("x", 1, {"5", "3"}).ints("target", {4, -1});
  m.node("Reshape", {"x", "target"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("y"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("not a multiple of 4"), std::string::npos) << r.error();
}

TEST(OnnxImport, ATargetComputedFromDataIsUnbacked) {
  ModelBuilder m;
  m.input("x", 1, {"N", "6"}).input("target", 7, {"2"});
  m.node("Reshape", {"x", "target"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[u0, u1]");
}

TEST(OnnxImport, BadModelsAreErrorsNotCrashes) {
  ModelBuilder m;
  m.input("x", 1, {"N", "6"});
  m.node("Relu", {"x"}, {"y"}).output("y");
  const std::string good = m.bytes();
  for (size_t cut : {size_t{1}, good.size() / 2, good.size() - 1}) {
    Expected<Graph> g = read_model(good.substr(0, cut), "m.onnx");
    // A cut may still parse (protobuf fields are optional); when it does not, the error says so.
    if (!g) {
      EXPECT_NE(g.error().find("m.onnx"), std::string::npos) << g.error();
    }
  }
  Expected<Graph> junk = read_model("\xff\xff\xff\xff garbage", "junk.onnx");
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().find("not an ONNX model"), std::string::npos) << junk.error();

  ModelBuilder unknown;
  unknown.input("x", 1, {"N"});
  unknown.node("NoSuchOp", {"x"}, {"y"}).output("y");
  Inferred r = infer(unknown.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("onnx.NoSuchOp"), std::string::npos) << r.error();

  ModelBuilder undefined;
  undefined.input("x", 1, {"N"});
  undefined.node("Relu", {"nowhere"}, {"y"}).output("y");
  Inferred u = infer(undefined.bytes());
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().find("'nowhere'"), std::string::npos) << u.error();
}

TEST(OnnxImport, DeclaredOutputShapesAreChecked) {
  ModelBuilder m;
  m.input("x", 1, {"N", "6"});
  m.node("Relu", {"x"}, {"y"}).output("y", 1, {"N", "7"});
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("declared shape"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace symshape::onnx::testing

namespace symshape::onnx::testing {
namespace {

// An ONNX model's dims have no example sizes, so a size the graph forces is taken rather than
// contradicting the default hint of 8.
TEST(OnnxImport, ASizeTheGraphForcesReplacesTheGuessedHint) {
  ModelBuilder m;
  m.input("x", 1, {"N"}).ints("target", {2, 12});
  m.node("Reshape", {"x", "target"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[2, 12]");
  EXPECT_EQ(r.shape("x"), "float32[24]");

  ModelBuilder b;
  b.input("x", 1, {"N", "3"}).input("y", 1, {"M"});
  b.node("Add", {"x", "y"}, {"z"}).output("z");
  Inferred rb = infer(b.bytes());
  ASSERT_TRUE(rb.ok()) << rb.error();
  EXPECT_EQ(rb.shape("z"), "float32[N, 3]");
  EXPECT_EQ(rb.shape("y"), "float32[3]");
}

TEST(OnnxImport, AForcedSizeThatContradictsAnEarlierGuardIsStillAnError) {
  ModelBuilder m;
  m.input("x", 1, {"N"}).ints("a", {2, 12}).ints("b", {5, 5});
  m.node("Reshape", {"x", "a"}, {"y"}).node("Reshape", {"x", "b"}, {"z"});
  m.output("y").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("z"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace symshape::onnx::testing
