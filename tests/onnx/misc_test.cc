// ONNX reductions, data-dependent operators, signal operators, losses, training operators and
// control flow (If, Loop, Scan).
#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

// A bool scalar initializer.
void bool_scalar(GraphBuilder& g, const std::string& name, bool v) {
  auto* t = g.graph.add_initializer();
  t->set_name(name);
  t->set_data_type(9);
  t->add_int32_data(v ? 1 : 0);
}

size_t runtime_asserts(const Inferred& r) { return r.env->runtime_asserts().size(); }

// ---- reductions ----

TEST(OnnxReduce, AxesAsInputAndAttributeKeepdimsAndNoop) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H"}).ints("axes", {-1, 1});
  m.node("ReduceSum", {"x", "axes"}, {"s"}, {attr_int("keepdims", 0)});
  m.node("ReduceMean", {"x"}, {"mean"}, {attr_ints("axes", {0})});  // attribute until opset 18
  m.node("ReduceMax", {"x"}, {"all"}, {attr_int("keepdims", 0)});
  m.node("ReduceSum", {"x"}, {"noop"}, {attr_int("noop_with_empty_axes", 1)});
  m.output("s").output("mean").output("all").output("noop");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("s"), "float32[N]");
  EXPECT_EQ(r.shape("mean"), "float32[1, C, H]");
  EXPECT_EQ(r.shape("all"), "float32[]");
  EXPECT_EQ(r.shape("noop"), "float32[N, C, H]");
}

TEST(OnnxReduce, Opset18TakesAxesAsInput) {
  ModelBuilder m(18);
  m.input("x", 1, {"N", "C", "H"}).ints("axes", {2});
  m.node("ReduceL2", {"x", "axes"}, {"y"});
  m.node("ReduceLogSumExp", {"x"}, {"z"}, {attr_int("noop_with_empty_axes", 0)});
  m.output("y").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, C, 1]");
  EXPECT_EQ(r.shape("z"), "float32[1, 1, 1]");
}

TEST(OnnxReduce, ProductOfAShapeIsKnown) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "4"});
  m.node("Shape", {"x"}, {"s"});
  m.node("ReduceProd", {"s"}, {"numel"}, {attr_int("keepdims", 1)});
  m.output("numel");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("numel"), "int64[1]");
  EXPECT_EQ(r.data("numel"), "[4*C*N]");
}

TEST(OnnxReduce, BadAxesAreErrors) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"}).ints("axes", {1, -1});
  m.node("ReduceSum", {"x", "axes"}, {"y"}).output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("twice"), std::string::npos) << r.error();

  ModelBuilder data(13);
  data.input("x", 1, {"N", "C"}).input("axes", 7, {"1"});
  data.node("ReduceSum", {"x", "axes"}, {"y"}).output("y");
  Inferred d = infer(data.bytes());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("axes must be known"), std::string::npos) << d.error();
}

TEST(OnnxReduce, ArgMaxAndArgMinAreInt64) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "H"});
  m.node("ArgMax", {"x"}, {"a"}, {attr_int("axis", -1)});
  m.node("ArgMin", {"x"}, {"b"},
         {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", 1)});
  m.output("a").output("b");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("a"), "int64[N, C, 1]");
  EXPECT_EQ(r.shape("b"), "int64[N, H]");
}

// ---- data-dependent ----

TEST(OnnxDataDependent, NonZeroCountIsUnbackedUpToNumel) {
  ModelBuilder m;
  m.input("x", 1, {"3", "4"}).input("y", 1, {"N", "M"});
  m.node("NonZero", {"x"}, {"i"}).node("NonZero", {"y"}, {"j"});
  m.output("i").output("j");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("i"), "int64[2, u0]");
  EXPECT_EQ(r.env->bound(Expr::symbol("u0")).str(), "[0, 12]");
  EXPECT_EQ(r.shape("j"), "int64[2, u1]");
  EXPECT_EQ(runtime_asserts(r), 1u);  // u1 <= M*N
}

TEST(OnnxDataDependent, NonZeroOfAConstantIsExact) {
  ModelBuilder m;
  m.ints("c", {0, 3, 0, 5, 1});
  m.node("NonZero", {"c"}, {"i"}).output("i");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("i"), "int64[1, 3]");
}

TEST(OnnxDataDependent, TopKWithKnownKIsExact) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "10"}).ints("k", {3});
  m.node("TopK", {"x", "k"}, {"values", "indices"});
  m.output("values").output("indices");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("values"), "float32[N, 3]");
  EXPECT_EQ(r.shape("indices"), "int64[N, 3]");

  ModelBuilder old(9);
  old.input("x", 1, {"N", "10"});
  old.node("TopK", {"x"}, {"v", "i"}, {attr_int("k", 2), attr_int("axis", 0)});
  old.output("v").output("i");
  Inferred o = infer(old.bytes());
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o.shape("v"), "float32[2, 10]");
}

TEST(OnnxDataDependent, TopKWithADataKIsUnbackedAndTooLargeKFails) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "10"}).input("k", 7, {"1"});
  m.node("TopK", {"x", "k"}, {"values", "indices"});
  m.output("values").output("indices");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("values"), "float32[N, u0]");
  EXPECT_EQ(r.env->bound(Expr::symbol("u0")).str(), "[0, 10]");

  ModelBuilder big(11);
  big.input("x", 1, {"N", "10"}).ints("k", {11});
  big.node("TopK", {"x", "k"}, {"values", "indices"});
  big.output("values").output("indices");
  Inferred b = infer(big.bytes());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("larger than dim 1"), std::string::npos) << b.error();
}

TEST(OnnxDataDependent, TopKWithASymbolicKGuards) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "L"}).input("y", 1, {"K"}).ints("zero", {0}, {}).ints("axes", {0});
  m.node("Shape", {"y"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"k0"});
  m.node("Unsqueeze", {"k0", "axes"}, {"k"});
  m.node("TopK", {"x", "k"}, {"values", "indices"});
  m.output("values").output("indices");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("values"), "float32[N, K]");
  EXPECT_FALSE(r.env->guards().empty());  // K <= L
}

TEST(OnnxDataDependent, UniqueFlattenedAndAlongAnAxis) {
  ModelBuilder m(11);
  m.input("x", 1, {"N", "4"});
  m.node("Unique", {"x"}, {"y", "idx", "inv", "counts"});
  m.node("Unique", {"x"}, {"z"}, {attr_int("axis", -1)});
  m.output("y").output("idx").output("inv").output("counts").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[u0]");
  EXPECT_EQ(r.shape("idx"), "int64[u0]");
  EXPECT_EQ(r.shape("inv"), "int64[4*N]");
  EXPECT_EQ(r.shape("counts"), "int64[u0]");
  EXPECT_EQ(r.shape("z"), "float32[N, u1]");
  EXPECT_EQ(r.env->bound(Expr::symbol("u1")).str(), "[0, 4]");
}

TEST(OnnxDataDependent, NonMaxSuppression) {
  ModelBuilder m(11);
  m.input("boxes", 1, {"B", "S", "4"}).input("scores", 1, {"B", "C", "S"});
  m.ints("max", {3}, {});
  m.node("NonMaxSuppression", {"boxes", "scores", "max"}, {"sel"});
  m.node("NonMaxSuppression", {"boxes", "scores"}, {"none"});
  m.output("sel").output("none");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("sel"), "int64[u0, 3]");
  EXPECT_EQ(r.shape("none"), "int64[0, 3]");

  ModelBuilder bad(11);
  bad.input("boxes", 1, {"B", "5", "4"}).input("scores", 1, {"B", "2", "6"});
  bad.node("NonMaxSuppression", {"boxes", "scores"}, {"sel"}).output("sel");
  Inferred b = infer(bad.bytes());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("spatial_dimension"), std::string::npos) << b.error();
}

// ---- random, signal ----

TEST(OnnxMisc, RandomOperators) {
  ModelBuilder m(15);
  m.input("x", 10, {"N", "3"}).input("p", 1, {"B", "K"});
  m.node("Bernoulli", {"x"}, {"b"});
  m.node("RandomUniformLike", {"x"}, {"u"}, {attr_int("dtype", 11)});
  m.node("RandomNormal", {}, {"n"}, {attr_ints("shape", {2, 5})});
  m.node("Multinomial", {"p"}, {"s"}, {attr_int("sample_size", 7), attr_int("dtype", 7)});
  m.output("b").output("u").output("n").output("s");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("b"), "float16[N, 3]");
  EXPECT_EQ(r.shape("u"), "float64[N, 3]");
  EXPECT_EQ(r.shape("n"), "float32[2, 5]");
  EXPECT_EQ(r.shape("s"), "int64[B, 7]");
}

TEST(OnnxMisc, TfIdfVectorizerCountsUpToTheLargestIndex) {
  ModelBuilder m(9);
  m.input("x", 6, {"N", "12"}).input("t", 7, {"C"});
  m.node("TfIdfVectorizer", {"x"}, {"y"}, {attr_ints("ngram_indexes", {0, 1, 6, 2})});
  m.node("TfIdfVectorizer", {"t"}, {"z"}, {attr_ints("ngram_indexes", {3})});
  m.output("y").output("z");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[N, 7]");
  EXPECT_EQ(r.shape("z"), "float32[4]");
  ModelBuilder bad(9);
  bad.input("x", 6, {"N", "12", "2"});
  bad.node("TfIdfVectorizer", {"x"}, {"y"}, {attr_ints("ngram_indexes", {0})}).output("y");
  EXPECT_FALSE(infer(bad.bytes()).ok());
}

TEST(OnnxMisc, WindowsOfKnownAndDataSizes) {
  ModelBuilder m(17);
  m.input("x", 1, {"L"}).input("n", 7, {});
  m.node("Shape", {"x"}, {"s"});
  m.ints("zero", {0}, {});
  m.node("Gather", {"s", "zero"}, {"len"});
  m.node("HannWindow", {"len"}, {"w"}, {attr_int("output_datatype", 11)});
  m.node("BlackmanWindow", {"n"}, {"v"}, {attr_int("periodic", 0)});
  m.output("w").output("v");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("w"), "float64[L]");
  EXPECT_EQ(r.shape("v"), "float32[u0]");
}

TEST(OnnxMisc, DftShapes) {
  ModelBuilder m(17);
  m.input("x", 1, {"B", "T", "1"}).input("c", 1, {"B", "T", "F", "2"}).ints("len", {16}, {});
  m.node("DFT", {"x"}, {"full"});
  m.node("DFT", {"x"}, {"half"}, {attr_int("onesided", 1)});
  m.node("DFT", {"c", "len"}, {"padded"}, {attr_int("axis", -2), attr_int("inverse", 1)});
  m.output("full").output("half").output("padded");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("full"), "float32[B, T, 2]");
  EXPECT_EQ(r.shape("half"), "float32[B, T//2 + 1, 2]");
  EXPECT_EQ(r.shape("padded"), "float32[B, T, 16, 2]");

  ModelBuilder bad(17);
  bad.input("x", 1, {"B", "T", "3"});
  bad.node("DFT", {"x"}, {"y"}).output("y");
  Inferred b = infer(bad.bytes());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("1 (real) or 2 (complex)"), std::string::npos) << b.error();
}

TEST(OnnxMisc, StftAndMelWeightMatrix) {
  ModelBuilder m(17);
  m.input("signal", 1, {"B", "L", "1"}).input("window", 1, {"4"}).ints("step", {2}, {});
  m.node("STFT", {"signal", "step", "window"}, {"spec"});
  m.ints("mel", {10}, {}).ints("dft", {16}, {});
  m.floats("rate", {8000}, {}).floats("lo", {0}, {}).floats("hi", {4000}, {});
  m.node("MelWeightMatrix", {"mel", "dft", "rate", "lo", "hi"}, {"w"});
  m.output("spec").output("w");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("spec"), "float32[B, L//2 - 1, 3, 2]");
  EXPECT_FALSE(r.env->guards().empty());  // 4 <= L
  EXPECT_EQ(r.shape("w"), "float32[9, 10]");
}

// ---- linear algebra, losses, training ----

TEST(OnnxMisc, DetAndLosses) {
  ModelBuilder m(13);
  m.input("a", 1, {"B", "M", "M"});
  m.input("scores", 1, {"N", "C", "D"}).input("labels", 7, {"N", "D"});
  m.node("Det", {"a"}, {"det"});
  m.node("NegativeLogLikelihoodLoss", {"scores", "labels"}, {"nll"},
         {attr_string("reduction", "none")});
  m.node("SoftmaxCrossEntropyLoss", {"scores", "labels"}, {"sce", "log_prob"});
  m.output("det").output("nll").output("sce").output("log_prob");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("det"), "float32[B]");
  EXPECT_EQ(r.shape("nll"), "float32[N, D]");
  EXPECT_EQ(r.shape("sce"), "float32[]");
  EXPECT_EQ(r.shape("log_prob"), "float32[N, C, D]");

  ModelBuilder bad(13);
  bad.input("scores", 1, {"N", "C"}).input("labels", 7, {"N", "2"});
  bad.node("NegativeLogLikelihoodLoss", {"scores", "labels"}, {"nll"}).output("nll");
  Inferred b = infer(bad.bytes());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("the target must be [N, d...]"), std::string::npos) << b.error();
}

TEST(OnnxMisc, TrainingOperatorsKeepShapes) {
  ModelBuilder m(17);
  m.input("r", 1, {}).input("t", 7, {});
  m.input("x1", 1, {"N"}).input("x2", 1, {"3", "4"});
  m.input("g1", 1, {"N"}).input("g2", 1, {"3", "4"});
  m.input("v1", 1, {"N"}).input("v2", 1, {"3", "4"});
  m.input("h1", 1, {"N"}).input("h2", 1, {"3", "4"});
  m.node("Adam", {"r", "t", "x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"},
         {"nx1", "nx2", "nv1", "nv2", "nh1", "nh2"}, {}, "ai.onnx.preview.training");
  m.output("nx1").output("nv2").output("nh2");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("nx1"), "float32[N]");
  EXPECT_EQ(r.shape("nv2"), "float32[3, 4]");
  EXPECT_EQ(r.shape("nh2"), "float32[3, 4]");
}

// ---- control flow ----

// A branch computing `name` = op(input).
GraphBuilder branch(const std::string& op_type, const std::string& input, const std::string& name,
                    const std::vector<::onnx::AttributeProto>& attrs = {}) {
  GraphBuilder b;
  b.node(op_type, {input}, {name}, attrs).output(name);
  return b;
}

TEST(OnnxControlFlow, IfWithAKnownConditionTakesOneBranch) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"});
  bool_scalar(m, "cond", false);
  GraphBuilder then_b = branch("Relu", "x", "a");
  GraphBuilder else_b;
  else_b.ints("perm_axes", {0});
  else_b.node("ReduceSum", {"x", "perm_axes"}, {"b"}).output("b");
  m.node("If", {"cond"}, {"y"},
         {attr_graph("then_branch", then_b.graph), attr_graph("else_branch", else_b.graph)});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[1, C]");
}

TEST(OnnxControlFlow, IfBranchesThatAgreeKeepTheirSizesOthersAreUnbacked) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"}).input("cond", 9, {});
  GraphBuilder then_b = branch("Relu", "x", "a");
  GraphBuilder else_b;
  else_b.node("Concat", {"x", "x"}, {"b"}, {attr_int("axis", 0)}).output("b");
  m.node("If", {"cond"}, {"y"},
         {attr_graph("then_branch", then_b.graph), attr_graph("else_branch", else_b.graph)});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("y"), "float32[u0, C]");
  EXPECT_EQ(runtime_asserts(r), 1u);  // u0 is N or 2*N
}

TEST(OnnxControlFlow, IfBranchesMustAgreeInRankAndErrorsNameTheBranch) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"}).input("cond", 9, {});
  GraphBuilder then_b = branch("Relu", "x", "a");
  GraphBuilder else_b = branch("ReduceSum", "x", "b", {attr_int("keepdims", 0)});
  m.node("If", {"cond"}, {"y"},
         {attr_graph("then_branch", then_b.graph), attr_graph("else_branch", else_b.graph)});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("rank 2 in then_branch"), std::string::npos) << r.error();

  ModelBuilder e(13);
  e.input("x", 1, {"N", "C"}).input("cond", 9, {});
  GraphBuilder good = branch("Relu", "x", "a");
  GraphBuilder broken = branch("ArgMax", "x", "b", {attr_int("axis", 5)});
  e.node("If", {"cond"}, {"y"},
         {attr_graph("then_branch", good.graph), attr_graph("else_branch", broken.graph)});
  e.output("y");
  Inferred b = infer(e.bytes());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("If else_branch"), std::string::npos) << b.error();
  EXPECT_NE(b.error().find("axis 5 is out of range"), std::string::npos) << b.error();
}

// A Loop body: (i, cond, carried) -> (cond, carried op'd, scan output).
TEST(OnnxControlFlow, LoopWithAKnownTripCountStacksScanOutputs) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"}).ints("M", {5}, {});
  GraphBuilder body;
  body.input("i", 7, {}).input("c", 9, {}).untyped_input("acc");
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Add", {"acc", "x"}, {"acc_out"});
  body.node("ReduceSum", {"acc"}, {"row"}, {attr_int("keepdims", 0), attr_ints("axes", {1})});
  body.output("c_out").output("acc_out").output("row");
  m.node("Loop", {"M", "", "x"}, {"final", "rows"}, {attr_graph("body", body.graph)});
  m.output("final").output("rows");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("final"), "float32[N, C]");
  EXPECT_EQ(r.shape("rows"), "float32[5, N]");
}

TEST(OnnxControlFlow, LoopWithAConditionAndAGrowingValue) {
  ModelBuilder m(13);
  m.input("x", 1, {"N"}).input("cond", 9, {}).input("M", 7, {});
  GraphBuilder body;
  body.input("i", 7, {}).input("c", 9, {}).untyped_input("acc");
  body.node("Concat", {"acc", "x"}, {"acc_out"}, {attr_int("axis", 0)});
  body.node("Identity", {"c"}, {"c_out"});
  body.output("c_out").output("acc_out").output("acc");
  m.node("Loop", {"M", "cond", "x"}, {"final", "history"}, {attr_graph("body", body.graph)});
  m.output("final").output("history");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  // The carried value grows each iteration: its size is data-dependent, as is the trip count;
  // the stacked history follows the changing size.
  const std::string final_shape = r.shape("final");
  EXPECT_EQ(final_shape.substr(0, 9), "float32[u") << final_shape;
  const std::string history = r.shape("history");
  EXPECT_EQ(history.substr(0, 9), "float32[u") << history;
  EXPECT_EQ(r.value("history").tensor.rank(), 2u);
}

TEST(OnnxControlFlow, ScanAlongAxes) {
  ModelBuilder m(16);
  m.input("init", 1, {"C"}).input("seq", 1, {"C", "T"});
  GraphBuilder body;
  body.untyped_input("state").untyped_input("elem");
  body.node("Add", {"state", "elem"}, {"next"});
  body.node("Identity", {"next"}, {"out"});
  body.output("next").output("out");
  m.node("Scan", {"init", "seq"}, {"final", "outs"},
         {attr_graph("body", body.graph), attr_int("num_scan_inputs", 1),
          attr_ints("scan_input_axes", {1}), attr_ints("scan_output_axes", {-1})});
  m.output("final").output("outs");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("final"), "float32[C]");
  EXPECT_EQ(r.shape("outs"), "float32[C, T]");
}

TEST(OnnxControlFlow, Opset8ScanHasABatchDim) {
  ModelBuilder m(8);
  m.input("init", 1, {"B", "C"}).input("seq", 1, {"B", "T", "C"});
  GraphBuilder body;
  body.untyped_input("state").untyped_input("elem");
  body.node("Add", {"state", "elem"}, {"next"});
  body.node("Identity", {"next"}, {"out"});
  body.output("next").output("out");
  m.node("Scan", {"", "init", "seq"}, {"final", "outs"},
         {attr_graph("body", body.graph), attr_int("num_scan_inputs", 1)});
  m.output("final").output("outs");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("final"), "float32[B, C]");
  EXPECT_EQ(r.shape("outs"), "float32[B, T, C]");
}

TEST(OnnxControlFlow, LoopWhoseBodyPassesItsConditionThroughRunsMTimes) {
  ModelBuilder m(13);
  m.input("x", 1, {"N"}).ints("M", {4}, {});
  bool_scalar(m, "cond", true);
  GraphBuilder body;
  body.input("i", 7, {}).input("c", 9, {}).untyped_input("acc");
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Relu", {"acc"}, {"acc_out"});
  body.output("c_out").output("acc_out").output("acc_out");
  m.node("Loop", {"M", "cond", "x"}, {"final", "all"}, {attr_graph("body", body.graph)});
  m.output("final").output("all");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("all"), "float32[4, N]");

  // The same loop under a condition from data runs at most M times.
  ModelBuilder d(13);
  d.input("x", 1, {"N"}).ints("M", {4}, {}).input("cond", 9, {});
  GraphBuilder body2;
  body2.input("i", 7, {}).input("c", 9, {}).untyped_input("acc");
  body2.node("Relu", {"acc"}, {"acc_out"});
  body2.node("Not", {"c"}, {"c_out"});
  body2.output("c_out").output("acc_out").output("acc_out");
  d.node("Loop", {"M", "cond", "x"}, {"final", "all"}, {attr_graph("body", body2.graph)});
  d.output("final").output("all");
  Inferred e = infer(d.bytes());
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e.shape("all"), "float32[u0, N]");
  EXPECT_EQ(e.env->bound(Expr::symbol("u0")).str(), "[0, 4]");
}

TEST(OnnxControlFlow, AnIfInsideALoopReadsTheOuterGraph) {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C"}).input("flag", 9, {}).ints("M", {3}, {});
  GraphBuilder then_b = branch("Relu", "x", "a");
  GraphBuilder else_b = branch("Sigmoid", "x", "b");
  GraphBuilder body;
  body.input("i", 7, {}).input("c", 9, {});
  body.node("Identity", {"c"}, {"c_out"});
  body.node("If", {"flag"}, {"picked"},
            {attr_graph("then_branch", then_b.graph), attr_graph("else_branch", else_b.graph)});
  body.output("c_out").output("picked");
  m.node("Loop", {"M", ""}, {"stack"}, {attr_graph("body", body.graph)});
  m.output("stack");
  Inferred r = infer(m.bytes());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.shape("stack"), "float32[3, N, C]");
}

TEST(OnnxControlFlow, ABodyWithTheWrongInputsIsBadInput) {
  ModelBuilder m(13);
  m.input("x", 1, {"N"}).ints("M", {3}, {});
  GraphBuilder body;
  body.input("i", 7, {});
  body.node("Identity", {"i"}, {"c_out"});
  body.output("c_out");
  m.node("Loop", {"M", "", "x"}, {"y"}, {attr_graph("body", body.graph)});
  m.output("y");
  Inferred r = infer(m.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_NE(r.error().find("Loop body has 1 inputs, Loop gives it 3"), std::string::npos)
      << r.error();
}

}  // namespace
}  // namespace symshape::onnx::testing
