// functionalize and the alias analysis: writes through views become scatters, written inputs are
// copied back, views of views compose; copy removal and CSE ask the alias analysis; the passes
// that need a functional graph run functionalize first. Every lowering here runs under the
// PassManager's checks and --verify-numerics (the interpreter, which shares storage between
// views, is the reference for the graph before the pass).
#include <gtest/gtest.h>

#include "passes/alias.h"
#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

// A graph on x: float32[batch, 8] (batch in [2, 16]) and y: float32[batch, 8], with the given
// call nodes (JSON objects) and outputs (a JSON list).
Graph graph_of(const std::string& nodes, const std::string& outputs) {
  return parse_graph(R"({"format": "symshape-graph", "version": 1,
    "dims": {"batch": {"min": 2, "max": 16, "hint": 4}},
    "nodes": [
      {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 8]},
      {"name": "y", "op": "placeholder", "dtype": "float32", "shape": ["batch", 8]},
      )" + nodes + R"(
      {"name": "output", "op": "output", "args": [)" +
                     outputs + R"(]}]})");
}

// Whether any node but the write-backs of inputs writes in place.
size_t writes(const Graph& g) {
  size_t n = 0;
  for (const Node& node : g.nodes)
    n += node.op == NodeOp::CallFunction && parse_target(node.target).in_place;
  return n;
}

TEST(Functionalize, SliceFillBecomesSliceScatter) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "x"}]},
    {"name": "s", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "a"}, 1, 2, 5]},
    {"name": "f", "op": "call_function", "target": "aten.fill_.Scalar", "args": [{"node": "s"}, 3.0]},
    {"name": "r", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "s"}, {"node": "s"}]},
    {"name": "q", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "a"}]},
  )",
                               R"([{"node": "r"}, {"node": "q"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  const Graph& out = l.result.graph;
  EXPECT_EQ(writes(out), 0u);
  EXPECT_EQ(count_target(out, "aten.fill.Scalar"), 1u);
  EXPECT_EQ(count_target(out, "aten.slice_scatter.default"), 1u);
  EXPECT_EQ(l.counter("writes made functional"), 1u);
  // r reads the view regenerated from the new value of a, q that value.
  EXPECT_NE(out.find("r")->args[0].text, "s");
  EXPECT_NE(out.find("q")->args[0].text, "a");
}

TEST(Functionalize, InPlaceOnAFreshTensorBecomesItsFunctionalForm) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
    {"name": "r", "op": "call_function", "target": "aten.relu_.default", "args": [{"node": "a"}]},
    {"name": "m", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "r"}, 2.0]},
    {"name": "o", "op": "call_function", "target": "aten.sub.Tensor", "args": [{"node": "a"}, {"node": "y"}]},
  )",
                               R"([{"node": "o"}, {"node": "m"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  const Graph& out = l.result.graph;
  EXPECT_EQ(writes(out), 0u);
  EXPECT_EQ(count_target(out, "aten.relu.default"), 1u);
  EXPECT_EQ(count_target(out, "aten.mul.Tensor"), 1u);
  EXPECT_EQ(count_target(out, "aten.slice_scatter.default"), 0u);
}

TEST(Functionalize, AWrittenInputIsCopiedBackAtTheEnd) {
  const Graph input = graph_of(R"(
    {"name": "v", "op": "call_function", "target": "aten.select.int", "args": [{"node": "x"}, 1, 3]},
    {"name": "w", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "v"}, 1.0]},
    {"name": "o", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 2.0]},
  )",
                               R"([{"node": "o"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  const Graph& out = l.result.graph;
  ASSERT_EQ(writes(out), 1u);
  const Node& back = out.nodes[out.nodes.size() - 2];
  EXPECT_EQ(back.target, "aten.copy_.default");
  EXPECT_EQ(back.args[0].text, "x");
  EXPECT_EQ(count_target(out, "aten.select_scatter.default"), 1u);
  EXPECT_EQ(l.counter("inputs written back"), 1u);
  // Run again: nothing left to do.
  Lowered again = lower(out, {"functionalize"});
  ASSERT_TRUE(again.result.ok) << again.result.error;
  EXPECT_FALSE(again.report().stats.changed());
}

TEST(Functionalize, ViewsOfViewsCompose) {
  // a.t()[1] (a column of a) written, then a view of the permuted tensor read.
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 3.0]},
    {"name": "p", "op": "call_function", "target": "aten.permute.default", "args": [{"node": "a"}, [1, 0]]},
    {"name": "c", "op": "call_function", "target": "aten.select.int", "args": [{"node": "p"}, 0, 1]},
    {"name": "s", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "c"}, 0, 1, 3]},
    {"name": "w", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "s"}, {"node": "s"}]},
    {"name": "t", "op": "call_function", "target": "aten.transpose.int", "args": [{"node": "p"}, 0, 1]},
    {"name": "v", "op": "call_function", "target": "aten.view.default", "args": [{"node": "a"}, [-1]]},
    {"name": "z", "op": "call_function", "target": "aten.zero_.default", "args": [{"node": "v"}]},
    {"name": "o", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "c"}, 2.0]},
  )",
                               R"([{"node": "o"}, {"node": "t"}, {"node": "p"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  const Graph& out = l.result.graph;
  EXPECT_EQ(writes(out), 0u);
  EXPECT_EQ(l.counter("writes made functional"), 2u);
  EXPECT_EQ(count_target(out, "aten.select_scatter.default"), 1u);
  EXPECT_EQ(count_target(out, "aten.slice_scatter.default"), 1u);
}

TEST(Functionalize, ItemsOfSplitAndUnbindScatterBack) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "y"}]},
    {"name": "parts", "op": "call_function", "target": "aten.split.Tensor", "args": [{"node": "a"}, 3, 1]},
    {"name": "p1", "op": "call_function", "target": "operator.getitem", "args": [{"node": "parts"}, 1]},
    {"name": "w", "op": "call_function", "target": "aten.sub_.Tensor", "args": [{"node": "p1"}, 0.5]},
    {"name": "rows", "op": "call_function", "target": "aten.unbind.int", "args": [{"node": "a"}, 1]},
    {"name": "r7", "op": "call_function", "target": "operator.getitem", "args": [{"node": "rows"}, 7]},
    {"name": "col", "op": "call_function", "target": "aten.select.int", "args": [{"node": "p1"}, 1, 0]},
    {"name": "w2", "op": "call_function", "target": "aten.copy_.default", "args": [{"node": "r7"}, {"node": "col"}]},
  )",
                               R"([{"node": "a"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  EXPECT_EQ(writes(l.result.graph), 0u);
}

TEST(Functionalize, AWriteItCannotScatterNamesTheNodeAndTheView) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "x"}]},
    {"name": "u", "op": "call_function", "target": "aten.unfold.default", "args": [{"node": "a"}, 1, 2, 2]},
    {"name": "w", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "u"}, 1.0]},
  )",
                               R"([{"node": "a"}])");
  Lowered l = lower(input, {"functionalize"}, false);
  ASSERT_FALSE(l.result.ok);
  EXPECT_NE(l.result.error.find("node w"), std::string::npos) << l.result.error;
  EXPECT_NE(l.result.error.find("'u' (aten.unfold.default)"), std::string::npos) << l.result.error;
}

TEST(Functionalize, InPlaceViewOpsBecomeViewsWhenNothingReadsTheTensorAfter) {
  // Swin-T's pooled mean: as_strided_ restrides a fresh tensor read only through its result,
  // then a write through the result scatters back onto the buffer.
  const Graph input = graph_of(R"(
    {"name": "m", "op": "call_function", "target": "aten.sum.dim_IntList", "args": [{"node": "x"}, [1], true]},
    {"name": "r", "op": "call_function", "target": "aten.as_strided_.default", "args": [{"node": "m"}, [{"expr": "batch"}, 1], [1, {"expr": "batch"}]]},
    {"name": "w", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "r"}, 3.0]},
    {"name": "o", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "r"}, {"node": "y"}]},
  )",
                               R"([{"node": "o"}, {"node": "w"}])");
  Lowered l = lower(input, {"functionalize"});
  expect_sound(input, l, 3);
  const Graph& out = l.result.graph;
  EXPECT_EQ(writes(out), 0u);
  EXPECT_EQ(count_target(out, "aten.as_strided.default"), 1u);
  EXPECT_EQ(l.counter("in-place views made out-of-place"), 1u);
  EXPECT_EQ(l.counter("writes made functional"), 1u);
}

TEST(Functionalize, AnInPlaceViewOpOfATensorReadAfterwardsNamesTheReader) {
  const Graph input = graph_of(R"(
    {"name": "m", "op": "call_function", "target": "aten.sum.dim_IntList", "args": [{"node": "x"}, [1], true]},
    {"name": "r", "op": "call_function", "target": "aten.as_strided_.default", "args": [{"node": "m"}, [{"expr": "batch"}, 1], [1, {"expr": "batch"}]]},
    {"name": "o", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "m"}]},
  )",
                               R"([{"node": "o"}, {"node": "r"}])");
  Lowered l = lower(input, {"functionalize"}, false);
  ASSERT_FALSE(l.result.ok);
  EXPECT_NE(l.result.error.find("node r"), std::string::npos) << l.result.error;
  EXPECT_NE(l.result.error.find("'o' reads it afterwards"), std::string::npos) << l.result.error;
  // Into a graph input: its caller would see the new strides.
  const Graph on_input = graph_of(R"(
    {"name": "r", "op": "call_function", "target": "aten.as_strided_.default", "args": [{"node": "x"}, [{"expr": "batch"}, 8], [8, 1]]},
  )",
                                  R"([{"node": "r"}])");
  Lowered l2 = lower(on_input, {"functionalize"}, false);
  ASSERT_FALSE(l2.result.ok);
  EXPECT_NE(l2.result.error.find("a graph input or constant"), std::string::npos)
      << l2.result.error;
}

TEST(AliasAnalysis, ClassesWritesAndCopies) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
    {"name": "c", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "a"}]},
    {"name": "v", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "c"}, 0, 0, 1]},
    {"name": "w", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "v"}, 1.0]},
    {"name": "d", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "a"}]},
    {"name": "o", "op": "call_function", "target": "aten.sub.Tensor", "args": [{"node": "c"}, {"node": "a"}]},
  )",
                               R"([{"node": "o"}, {"node": "d"}])");
  ShapeEnv env;
  Propagation p = propagate(input, env);
  ASSERT_TRUE(p.ok()) << p.error;
  MutableGraph g(input, p.values);
  passes::AliasAnalysis a(g);
  const NodeId x = g.find("x"), av = g.find("a"), c = g.find("c"), v = g.find("v"), w = g.find("w"),
               d = g.find("d");
  EXPECT_TRUE(a.may_alias(c, v));
  EXPECT_TRUE(a.may_alias(c, w));
  EXPECT_FALSE(a.may_alias(c, av));
  EXPECT_FALSE(a.may_alias(x, av));
  EXPECT_EQ(a.storage(g.find("output")), kNoNode);
  EXPECT_TRUE(a.written(c));
  EXPECT_FALSE(a.written(av));
  EXPECT_EQ(a.version(c, a.position(w)), 0u);
  EXPECT_EQ(a.version(c, a.position(w) + 1), 1u);
  EXPECT_EQ(a.live_end(x), SIZE_MAX);  // the caller sees an input
  // c is written while a is still read (by o): the copy keeps them apart. d is never written.
  EXPECT_FALSE(a.copy_removable(c, av));
  EXPECT_TRUE(a.copy_removable(d, av));
}

TEST(AliasAnalysis, ViewsAndWritesComeFromTheSignatures) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
    {"name": "t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "a"}]},
    {"name": "parts", "op": "call_function", "target": "aten.split.Tensor", "args": [{"node": "a"}, 2]},
    {"name": "p0", "op": "call_function", "target": "operator.getitem", "args": [{"node": "parts"}, 0]},
    {"name": "cp", "op": "call_function", "target": "aten.fill_.Scalar", "args": [{"node": "p0"}, 1.0]},
  )",
                               R"([{"node": "t"}])");
  ShapeEnv env;
  Propagation p = propagate(input, env);
  ASSERT_TRUE(p.ok()) << p.error;
  MutableGraph g(input, p.values);
  using K = passes::AliasEffect::Kind;
  EXPECT_EQ(passes::alias_effect(g, g.find("a")).kind, K::Fresh);
  EXPECT_EQ(passes::alias_effect(g, g.find("t")).kind, K::View);
  EXPECT_EQ(passes::alias_effect(g, g.find("parts")).kind, K::View);
  EXPECT_EQ(passes::alias_effect(g, g.find("p0")).kind, K::View);
  const passes::AliasEffect cp = passes::alias_effect(g, g.find("cp"));
  EXPECT_EQ(cp.kind, K::Write);
  EXPECT_EQ(cp.source, g.find("p0"));
  EXPECT_TRUE(cp.also_written.empty());
  passes::AliasAnalysis a(g);
  EXPECT_TRUE(a.written(g.find("t")));  // t views a, which the copy_ into p0 writes
  EXPECT_FALSE(a.written(g.find("y")));
}

TEST(RemoveLiftFreshCopy, RemovesACopyThatOnlyFeedsTheValueOfAWrite) {
  // Swin-T's pattern: fill_(slice(mask), lift_fresh_copy(constant)).
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
    "dims": {"batch": {"min": 2, "max": 16, "hint": 4}},
    "nodes": [
      {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 8]},
      {"name": "k", "op": "get_attr", "target": "k", "dtype": "float32", "shape": [], "value": 2.0},
      {"name": "m", "op": "call_function", "target": "aten.zeros_like.default", "args": [{"node": "x"}]},
      {"name": "kc", "op": "call_function", "target": "aten.lift_fresh_copy.default", "args": [{"node": "k"}]},
      {"name": "s", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "m"}, 1, 0, 4]},
      {"name": "f", "op": "call_function", "target": "aten.fill_.Tensor", "args": [{"node": "s"}, {"node": "kc"}]},
      {"name": "o", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "m"}]},
      {"name": "output", "op": "output", "args": [[{"node": "o"}]]}]})");
  Lowered l = lower(input, {"remove-lift-fresh-copy"});
  expect_sound(input, l, 3);
  EXPECT_EQ(count_target(l.result.graph, "aten.lift_fresh_copy.default"), 0u);
}

TEST(Cse, MergesAcrossWritesToOtherTensorsButNeverAcrossAWriteToAnOperand) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "x"}]},
    {"name": "e1", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "y"}]},
    {"name": "n1", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "a"}]},
    {"name": "w", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "a"}, 1.0]},
    {"name": "e2", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "y"}]},
    {"name": "n2", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "a"}]},
    {"name": "o1", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "e1"}, {"node": "n1"}]},
    {"name": "o2", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "e2"}, {"node": "n2"}]},
  )",
                               R"([{"node": "o1"}, {"node": "o2"}])");
  Lowered l = lower(input, {"cse"});
  expect_sound(input, l, 3);
  EXPECT_FALSE(has_node(l.result.graph, "e2"));  // y is never written
  EXPECT_TRUE(has_node(l.result.graph, "n2"));   // a was written between n1 and n2
  EXPECT_EQ(l.counter("nodes merged"), 1u);
}

TEST(Functionalize, ThePassesThatNeedAFunctionalGraphRunItFirst) {
  const Graph input = graph_of(R"(
    {"name": "a", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
    {"name": "r", "op": "call_function", "target": "aten.silu_.default", "args": [{"node": "a"}]},
    {"name": "v", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "x"}, 1, 0, 2]},
    {"name": "w", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "v"}, 0.5]},
  )",
                               R"([{"node": "a"}])");
  for (const char* pass : {"autocast", "decompose", "complex-rewrite"}) {
    Lowered l = lower(input, {pass});
    expect_sound(input, l, 3);
    EXPECT_EQ(l.counter("writes made functional"), 2u) << pass;
    EXPECT_EQ(l.counter("inputs written back"), 1u) << pass;
    EXPECT_EQ(writes(l.result.graph), 1u) << pass;  // the write-back into x
  }
  // decompose reaches a fixpoint: silu_ became silu, which became x * sigmoid(x).
  Lowered d = lower(input, {"decompose"});
  ASSERT_TRUE(d.result.ok) << d.result.error;
  EXPECT_EQ(count_target(d.result.graph, "aten.silu.default"), 0u);
  EXPECT_EQ(count_target(d.result.graph, "aten.sigmoid.default"), 1u);
}

}  // namespace
}  // namespace symshape::pass_test

namespace symshape::pass_test {
namespace {

// The traced ResNet-18 (make_fx keeps relu_ and add_): autocast and decompose run without
// refusing a node, leave no write, keep the symbols and add no guard (numbers checked).
TEST(Functionalize, TracedResNetThroughAutocastAndDecompose) {
  const Graph input = with_small_dims(example("traced/resnet18.json"));
  for (const char* pass : {"autocast", "decompose"}) {
    SCOPED_TRACE(pass);
    Lowered l = lower(input, {pass});
    ASSERT_TRUE(l.result.ok) << l.result.error;
    EXPECT_EQ(l.guards, l.input_guards);
    EXPECT_EQ(l.counter("writes made functional"), 25u);
    EXPECT_EQ(writes(l.result.graph), 0u);
    EXPECT_EQ(placeholder_symbols(l.result.graph), placeholder_symbols(input));
  }
}

}  // namespace
}  // namespace symshape::pass_test
