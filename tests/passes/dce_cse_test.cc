// dce and cse on small graphs with dynamic batch and seq: the lowered graph against a golden file,
// the pass's counters, the numbers at several sizes, the symbols kept; and the nodes they must
// never touch (in-place writes, collectives, asserts; random ops; merges across an in-place op).
#include <gtest/gtest.h>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

TEST(Dce, RemovesDeadChainsAndKeepsSideEffects) {
  const Graph input = load_graph("dce");
  Lowered l = lower(input, {"dce"});
  expect_sound(input, l, 5);
  expect_golden_graph("dce", l.result.graph);
  const Graph& out = l.result.graph;
  // The dead chain goes in one walk, and so does an unused sym_size.
  EXPECT_FALSE(has_node(out, "dead_mul"));
  EXPECT_FALSE(has_node(out, "dead_relu"));
  EXPECT_FALSE(has_node(out, "dead_size"));
  EXPECT_EQ(l.counter("dead nodes removed"), 3u);
  EXPECT_EQ(l.report().stats.erased, 3u);
  EXPECT_EQ(l.report().nodes_before - l.report().nodes_after, 3u);
  // Unused, but each has an effect: an in-place write to an input, a collective, an assert (and
  // the scalars the assert reads).
  EXPECT_TRUE(has_node(out, "scale_y"));
  EXPECT_TRUE(has_node(out, "reduce"));
  EXPECT_TRUE(has_node(out, "check"));
  EXPECT_TRUE(has_node(out, "ge"));
  EXPECT_TRUE(has_node(out, "batch_size"));
}

TEST(Dce, SecondRunChangesNothing) {
  const Graph input = load_graph("dce");
  Lowered l = lower(input, {"dce", "dce"});
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_TRUE(l.report(0).stats.changed());
  EXPECT_FALSE(l.report(1).stats.changed());
  EXPECT_EQ(l.report(1).numeric_runs, 0u);  // nothing changed, nothing to compare
  EXPECT_EQ(l.report(1).nodes_before, l.report(1).nodes_after);
}

TEST(Cse, MergesPureDuplicatesOnly) {
  const Graph input = load_graph("cse");
  Lowered l = lower(input, {"cse"});
  expect_sound(input, l, 5);
  expect_golden_graph("cse", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_FALSE(has_node(out, "add_again"));
  EXPECT_FALSE(has_node(out, "width_x"));
  EXPECT_EQ(l.counter("nodes merged"), 2u);
  // Two random draws are two values.
  EXPECT_TRUE(has_node(out, "noise"));
  EXPECT_TRUE(has_node(out, "noise_again"));
  EXPECT_TRUE(has_node(out, "drop"));
  EXPECT_TRUE(has_node(out, "drop_again"));
  // sum now adds `add` to itself; head slices to the first sym_size.
  const Node* sum = out.find("sum");
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ(sum->args.size(), 2u);
  EXPECT_EQ(sum->args[0].text, "add");
  EXPECT_EQ(sum->args[1].text, "add");
  EXPECT_EQ(out.find("head")->args[3].text, "width");
  // The same size read from another tensor is another node: cse compares arguments, not values.
  EXPECT_TRUE(has_node(out, "width_again"));
}

TEST(Cse, NeverMergesTensorsAroundAnInPlaceWrite) {
  // a and a_again are equal until bump writes into a; prod and prod_after differ because x
  // changed in between. Merging either pair would change the outputs.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "a", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "a_again", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "bump", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "a"}, 1.0]},
  {"name": "prod", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "bump_x", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "x"}, 2.0]},
  {"name": "prod_after", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "output", "op": "output", "args": [[{"node": "a"}, {"node": "a_again"}, {"node": "prod"}, {"node": "prod_after"}]]}]})");
  Lowered l = lower(input, {"cse"});
  expect_sound(input, l, 5);
  EXPECT_FALSE(l.report().stats.changed());
  EXPECT_EQ(write_graph(l.result.graph), write_graph(input));
}

TEST(Cse, MergesScalarsInAGraphThatWritesInPlace) {
  // Sizes are not buffers: two sym_size reads of x merge even where x is written in place
  // (though never across the write).
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "n", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "n_again", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "bump", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "x"}, 1.0]},
  {"name": "n_after", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "total", "op": "call_function", "target": "operator.add", "args": [{"node": "n"}, {"node": "n_again"}]},
  {"name": "total2", "op": "call_function", "target": "operator.add", "args": [{"node": "total"}, {"node": "n_after"}]},
  {"name": "head", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "x"}, 1, 0, {"node": "total2"}]},
  {"name": "output", "op": "output", "args": [[{"node": "head"}]]}]})");
  Lowered l = lower(input, {"cse"});
  expect_sound(input, l, 5);
  EXPECT_FALSE(has_node(l.result.graph, "n_again"));
  EXPECT_TRUE(has_node(l.result.graph, "n_after"));
  EXPECT_EQ(l.counter("nodes merged"), 1u);
}

TEST(Cse, NeverMergesTwoDataDependentValues) {
  // Two nonzero calls on the same input give sizes u0 and u1: merging them would claim u0 == u1.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "nz", "op": "call_function", "target": "aten.nonzero.default", "args": [{"node": "x"}]},
  {"name": "nz_again", "op": "call_function", "target": "aten.nonzero.default", "args": [{"node": "x"}]},
  {"name": "output", "op": "output", "args": [[{"node": "nz"}, {"node": "nz_again"}, {"node": "x"}]]}]})");
  Lowered l = lower(input, {"cse"});
  expect_sound(input, l, 5);
  EXPECT_TRUE(has_node(l.result.graph, "nz_again"));
  EXPECT_FALSE(l.report().stats.changed());
}

TEST(Cse, ThenDceOnDuplicatedChains) {
  // cse merges the first duplicate; the second chain's tail then repeats the first's and merges
  // too, leaving nothing dead.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "a", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "b", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "a"}]},
  {"name": "a2", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "b2", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "a2"}]},
  {"name": "out", "op": "call_function", "target": "aten.sub.Tensor", "args": [{"node": "b"}, {"node": "b2"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}]]}]})");
  Lowered l = lower(input, {"cse", "dce"});
  expect_sound(input, l, 5);
  EXPECT_EQ(l.counter("nodes merged", 0), 2u);
  EXPECT_EQ(names(l.result.graph), (std::vector<std::string>{"x", "a", "b", "out", "output"}));
  EXPECT_FALSE(l.report(1).stats.changed());
}

}  // namespace
}  // namespace symshape::pass_test
