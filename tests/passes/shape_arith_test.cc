// The passes on symbolic scalars: fold-shape-arith, remove-assert, normalize-negative-slice and
// eliminate-sym-min-int64-max. Each on a graph with dynamic batch and seq: golden before/after,
// counters, numbers at several sizes, symbols kept, no guard; and what soundness asks them to
// leave alone (an assert nothing proves, a slice whose dim may be shorter than its bound).
#include <gtest/gtest.h>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

TEST(FoldShapeArith, FoldsKnownScalarsAndKeepsSymbolicOnes) {
  const Graph input = load_graph("fold_shape_arith");
  Lowered l = lower(input, {"fold-shape-arith"});
  expect_sound(input, l, 5);
  expect_golden_graph("fold_shape_arith", l.result.graph);
  const Graph& out = l.result.graph;
  // width is 8 and half_width 4: both become constants in the view's arguments.
  EXPECT_FALSE(has_node(out, "width"));
  EXPECT_FALSE(has_node(out, "half_width"));
  EXPECT_EQ(l.counter("scalars folded"), 2u);
  const Node* flat = out.find("flat");
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(flat->args[1].str(), "[%tokens, 4, -1]");
  EXPECT_EQ(out.find("back")->args[1].str(), "[%batch_size, %seq_size, 8]");
  // batch, seq and their product stay computed from the input.
  EXPECT_TRUE(has_node(out, "batch_size"));
  EXPECT_TRUE(has_node(out, "seq_size"));
  EXPECT_TRUE(has_node(out, "tokens"));
}

TEST(FoldShapeArith, LeavesTheInputsOfAnAssert) {
  // The assert's condition is constant (8 >= 4), but folding its inputs would hide what it checks.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq", 8]},
  {"name": "width", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 2]},
  {"name": "wide", "op": "call_function", "target": "operator.ge", "args": [{"node": "width"}, 4]},
  {"name": "check", "op": "call_function", "target": "aten._assert_scalar.default", "args": [{"node": "wide"}, "wide"]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}]]}]})");
  Lowered l = lower(input, {"fold-shape-arith"});
  expect_sound(input, l, 5);
  EXPECT_TRUE(has_node(l.result.graph, "width"));
  EXPECT_FALSE(l.report().stats.changed());
}

TEST(RemoveAssert, RemovesWhatRangesAndGuardsProveAndKeepsTheRest) {
  const Graph input = load_graph("remove_assert");
  Lowered l = lower(input, {"remove-assert"});
  // The view guards seq % 2 == 0, so seq runs at 2 and 4 besides its hint.
  expect_sound(input, l, 5);
  expect_golden_graph("remove_assert", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_FALSE(has_node(out, "assert_batch"));  // batch >= 2: its declared range
  EXPECT_FALSE(has_node(out, "assert_even"));   // seq % 2 == 0: the view's guard
  EXPECT_TRUE(has_node(out, "assert_n"));       // n >= 0: nothing knows n before it runs
  EXPECT_EQ(l.counter("asserts removed"), 2u);
}

TEST(RemoveAssert, AProvablyFalseAssertIsAnErrorNamingTheNode) {
  // Through the PassManager such a graph does not even type-check: the assert's own rule refuses.
  const std::string text = R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "batch_size", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "tiny", "op": "call_function", "target": "operator.lt", "args": [{"node": "batch_size"}, 2]},
  {"name": "check_tiny", "op": "call_function", "target": "aten._assert_scalar.default", "args": [{"node": "tiny"}, "batch < 2"]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}]]}]})";
  Lowered l = lower(parse_graph(text), {"remove-assert"});
  EXPECT_FALSE(l.result.ok);
  EXPECT_TRUE(l.result.failed_pass.empty());
  EXPECT_NE(l.result.error.find("check_tiny"), std::string::npos) << l.result.error;

  // Given such an assert directly (a pass before it made one), the pass itself refuses it.
  Graph g = parse_graph(text);
  Node assert_node = g.nodes[3];
  g.nodes.erase(g.nodes.begin() + 3);
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  MutableGraph mg(g, p.values);
  mg.insert_before(mg.output(), assert_node, Value::none());
  PassContext ctx("remove-assert", mg, env, OpRegistry::instance(), {}, {});
  try {
    PassRegistry::standard().find("remove-assert")->run(ctx);
    FAIL() << "a provably false assert was accepted";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "remove-assert");
    EXPECT_EQ(e.node(), "check_tiny");
    EXPECT_NE(std::string(e.what()).find("can never hold"), std::string::npos) << e.what();
  }
}

TEST(NormalizeNegativeSlice, WritesNegativeBoundsAsSizeMinusK) {
  const Graph input = load_graph("normalize_negative_slice");
  Lowered l = lower(input, {"normalize-negative-slice"});
  expect_sound(input, l, 5);
  expect_golden_graph("normalize_negative_slice", l.result.graph);
  const Graph& out = l.result.graph;
  // drop_last's end, middle's start and end, rows' end: three slices, one size node per slice.
  EXPECT_EQ(l.counter("slices normalized"), 3u);
  EXPECT_EQ(count_target(out, "aten.sym_size.int"), 3u);
  EXPECT_EQ(count_target(out, "operator.sub"), 4u);
  for (const char* name : {"drop_last", "rows"}) {
    const Node* n = out.find(name);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->args[3].kind, Arg::Kind::Node) << name;
  }
  // seq >= 3 is not known (seq may be 2): -3 stays, since seq - 3 would be negative there.
  const Node* three = out.find("drop_three");
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(three->args[3].str(), "-3");
}

TEST(NormalizeNegativeSlice, LeavesConstantDims) {
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq", 6]},
  {"name": "cut", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "x"}, 2, 0, -2]},
  {"name": "output", "op": "output", "args": [[{"node": "cut"}]]}]})");
  Lowered l = lower(input, {"normalize-negative-slice"});
  expect_sound(input, l, 5);
  EXPECT_FALSE(l.report().stats.changed());
}

TEST(EliminateSymMinInt64Max, ReplacesTheMinBySize) {
  const Graph input = load_graph("eliminate_sym_min");
  Lowered l = lower(input, {"eliminate-sym-min-int64-max"});
  expect_sound(input, l, 5);
  expect_golden_graph("eliminate_sym_min", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "torch.sym_min"), 0u);
  EXPECT_EQ(l.counter("sym_min removed"), 2u);
  EXPECT_EQ(out.find("head")->args[3].text, "seq_size");
  EXPECT_EQ(out.find("first2")->args[3].str(), "2");
  // The slice's size is seq again, not min(seq, 2**63 - 1).
  EXPECT_EQ(l.result.values[out.index_of("head")].str(), "float32[batch, seq]");
}

TEST(EliminateSymMinInt64Max, LeavesOtherMins) {
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "seq_size", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "capped", "op": "call_function", "target": "torch.sym_min", "args": [{"node": "seq_size"}, 9223372036854775806]},
  {"name": "head", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "x"}, 1, 0, {"node": "capped"}]},
  {"name": "output", "op": "output", "args": [[{"node": "head"}]]}]})");
  Lowered l = lower(input, {"eliminate-sym-min-int64-max"});
  expect_sound(input, l, 5);
  EXPECT_EQ(count_target(l.result.graph, "torch.sym_min"), 1u);
  EXPECT_FALSE(l.report().stats.changed());
}

}  // namespace
}  // namespace symshape::pass_test
