// The passes on the graph's structure: fold-transpose-pairs, fold-view-chains, lower-tuples and
// repair-input-as-output. Each on a graph with dynamic batch and seq: golden before/after,
// counters, numbers at several sizes, symbols kept, no guard; and the pairs and chains they must
// leave (a pair that does not cancel, a chain on a tensor that is not contiguous).
#include <gtest/gtest.h>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

TEST(FoldTransposePairs, FoldsInversePairsOnly) {
  const Graph input = load_graph("fold_transpose_pairs");
  Lowered l = lower(input, {"fold-transpose-pairs"});
  expect_sound(input, l, 5);
  expect_golden_graph("fold_transpose_pairs", l.result.graph);
  const Graph& out = l.result.graph;
  // t(t(x)), transpose(transpose(z, 0, 2), 2, 0), permute [1, 2, 0] then [2, 0, 1].
  EXPECT_EQ(l.counter("pairs folded"), 3u);
  for (const char* gone : {"t", "t_t", "tr", "tr_tr", "rot", "unrot"}) {
    EXPECT_FALSE(has_node(out, gone)) << gone;
  }
  EXPECT_EQ(out.find("a")->args[0].text, "x");
  EXPECT_EQ(out.find("b")->args[0].text, "z");
  EXPECT_EQ(out.find("b")->args[1].text, "z");
  // [1, 2, 0] twice is a rotation by two; transpose 0-1 then 1-2 is a rotation too.
  for (const char* kept : {"rot2", "rot_twice", "tr01", "tr12"}) {
    EXPECT_TRUE(has_node(out, kept)) << kept;
  }
}

TEST(FoldTransposePairs, KeepsTheInnerNodeWhileItHasOtherUsers) {
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}]},
  {"name": "t_t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "t"}]},
  {"name": "a", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "t_t"}]},
  {"name": "b", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "t"}]},
  {"name": "output", "op": "output", "args": [[{"node": "a"}, {"node": "b"}]]}]})");
  Lowered l = lower(input, {"fold-transpose-pairs"});
  expect_sound(input, l, 5);
  EXPECT_EQ(names(l.result.graph), (std::vector<std::string>{"x", "t", "a", "b", "output"}));
  EXPECT_EQ(l.result.graph.find("a")->args[0].text, "x");
}

TEST(FoldViewChains, FoldsChainsOnContiguousTensors) {
  const Graph input = load_graph("fold_view_chains");
  Lowered l = lower(input, {"fold-view-chains"});
  expect_sound(input, l, 5);
  expect_golden_graph("fold_view_chains", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_EQ(l.counter("views folded"), 2u);
  EXPECT_FALSE(has_node(out, "rows"));
  EXPECT_FALSE(has_node(out, "flat"));
  EXPECT_EQ(out.find("per_batch")->args[0].text, "x");
  EXPECT_EQ(out.find("pairs")->args[0].text, "x");
  // swapped is not contiguous: reshaping it copies, and the chain stays.
  EXPECT_EQ(out.find("swapped_rows")->args[0].text, "swapped_flat");
  EXPECT_EQ(l.result.values[out.index_of("per_batch")].str(), "float32[batch, 4*seq]");
}

TEST(FoldViewChains, LeavesDtypeViews) {
  // view.dtype reinterprets the bytes: [batch, seq, 4] float32 as int16 is [batch, seq, 8]. It is
  // no reshape, so a chain through it is no chain of reshapes.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq", 4]},
  {"name": "rows", "op": "call_function", "target": "aten.view.default", "args": [{"node": "x"}, [-1, 4]]},
  {"name": "halves", "op": "call_function", "target": "aten.view.dtype", "args": [{"node": "rows"}, {"dtype": "int16"}]},
  {"name": "bits", "op": "call_function", "target": "aten.view.dtype", "args": [{"node": "x"}, {"dtype": "int32"}]},
  {"name": "flat_bits", "op": "call_function", "target": "aten.view.default", "args": [{"node": "bits"}, [-1]]},
  {"name": "output", "op": "output", "args": [[{"node": "halves"}, {"node": "flat_bits"}]]}]})");
  Lowered l = lower(input, {"fold-view-chains"});
  expect_sound(input, l, 5);
  EXPECT_EQ(l.result.graph.find("halves")->args[0].text, "rows");
  EXPECT_EQ(l.result.graph.find("flat_bits")->args[0].text, "bits");
}

TEST(LowerTuples, GetitemOfAWrittenTupleIsItsItem) {
  const Graph input = load_graph("lower_tuples");
  Lowered l = lower(input, {"lower-tuples"});
  expect_sound(input, l, 5);
  expect_golden_graph("lower_tuples", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "operator.getitem"), 0u);
  EXPECT_EQ(l.counter("getitems lowered"), 3u);
  EXPECT_EQ(out.find("sum")->args[0].text, "y");
  EXPECT_EQ(out.find("sum")->args[1].text, "x");
  EXPECT_EQ(out.find("head")->args[3].str(), "2");
}

TEST(RepairInputAsOutput, CopiesAnInputReturnedAsOutputOnce) {
  const Graph input = load_graph("repair_input_as_output");
  Lowered l = lower(input, {"repair-input-as-output"});
  expect_sound(input, l, 5);
  expect_golden_graph("repair_input_as_output", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_EQ(l.counter("inputs copied"), 1u);
  EXPECT_EQ(count_target(out, "aten.clone.default"), 1u);
  EXPECT_EQ(out.nodes.back().args[0].str(), "[%x_copy, %h, %x_copy]");
}

TEST(RepairInputAsOutput, ThenRemoveCloneKeepsTheCopy) {
  // remove-clone must not undo the repair: the pipeline would go round in circles.
  const Graph input = load_graph("repair_input_as_output");
  Lowered l = lower(input, {"repair-input-as-output", "remove-clone"});
  expect_sound(input, l, 5);
  EXPECT_TRUE(has_node(l.result.graph, "x_copy"));
  EXPECT_FALSE(l.report(1).stats.changed());
}

}  // namespace
}  // namespace symshape::pass_test
