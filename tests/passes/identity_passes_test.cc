// The passes that remove a node whose result is its input: remove-dropout, remove-detach,
// remove-alias, remove-clone, remove-contiguous, remove-lift-fresh-copy and remove-noop. Each on
// a graph with dynamic batch and seq: golden before/after, counters, numbers at several sizes,
// symbols kept, no guard; and the nodes each must keep.
#include <gtest/gtest.h>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

TEST(RemoveDropout, DropoutAndNativeDropoutBecomeTheIdentity) {
  const Graph input = load_graph("remove_dropout");
  Lowered l = lower(input, {"remove-dropout"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_dropout", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "aten.dropout.default"), 0u);
  EXPECT_EQ(count_target(out, "aten.native_dropout.default"), 0u);
  EXPECT_EQ(count_target(out, "operator.getitem"), 0u);
  EXPECT_EQ(l.counter("dropouts removed"), 2u);
  // The mask native_dropout returned is now all true, in bool, shaped like its input.
  ASSERT_EQ(count_target(out, "aten.ones_like.default"), 1u);
  const std::vector<Value>& values = l.result.values;
  const Node& mask = out.nodes[out.index_of("mask_ones")];
  EXPECT_EQ(mask.target, "aten.ones_like.default");
  EXPECT_EQ(values[out.index_of("mask_ones")].str(), "bool[batch, seq]");
}

TEST(RemoveDropout, DeclaresInferenceNumerics) {
  // In training mode the dropout's numbers are random; the pass is judged in eval mode.
  const Pass* p = PassRegistry::standard().find("remove-dropout");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->numerics_in_eval_mode());
  EXPECT_FALSE(PassRegistry::standard().find("cse")->numerics_in_eval_mode());
}

TEST(RemoveDetach, RemovesDetachEvenOnAStridedView) {
  const Graph input = load_graph("remove_detach");
  Lowered l = lower(input, {"remove-detach"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_detach", l.result.graph);
  EXPECT_EQ(count_target(l.result.graph, "aten.detach.default"), 0u);
  EXPECT_EQ(l.counter("nodes removed"), 3u);
  // neg now reads the transposed view directly, with its strides.
  EXPECT_EQ(l.result.graph.find("out_t")->args[0].text, "t");
}

TEST(RemoveAlias, RemovesEveryAlias) {
  const Graph input = load_graph("remove_alias");
  Lowered l = lower(input, {"remove-alias"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_alias", l.result.graph);
  EXPECT_EQ(count_target(l.result.graph, "aten.alias.default"), 0u);
  EXPECT_EQ(l.counter("nodes removed"), 3u);
}

TEST(RemoveClone, RemovesCopiesButNotAnInputReturnedAsOutput) {
  const Graph input = load_graph("remove_clone");
  Lowered l = lower(input, {"remove-clone"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_clone", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_FALSE(has_node(out, "h_copy"));
  EXPECT_FALSE(has_node(out, "x_copy_used"));
  // The output wants a buffer of its own, not the input's.
  EXPECT_TRUE(has_node(out, "x_copy"));
  EXPECT_EQ(l.counter("nodes removed"), 2u);
}

TEST(RemoveClone, KeepsEveryCloneWhenTheGraphWritesInPlace) {
  // out = (relu(x) + 1) - relu(x) is 1 everywhere; without the clone the in-place add would
  // change h itself and out would be 0.
  const Graph input = load_graph("remove_clone_inplace");
  Lowered l = lower(input, {"remove-clone"});
  expect_sound(input, l, 5);
  EXPECT_TRUE(has_node(l.result.graph, "h_copy"));
  EXPECT_FALSE(l.report().stats.changed());
  EXPECT_EQ(write_graph(l.result.graph), write_graph(input));
}

TEST(RemoveContiguous, RemovesOnlyWhereTheTensorIsContiguousAlready) {
  const Graph input = load_graph("remove_contiguous");
  Lowered l = lower(input, {"remove-contiguous"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_contiguous", l.result.graph);
  EXPECT_FALSE(has_node(l.result.graph, "h_contiguous"));
  // t(h) has strides [1, seq]: the copy makes it contiguous, and the view after needs that.
  EXPECT_TRUE(has_node(l.result.graph, "t_contiguous"));
  EXPECT_EQ(l.counter("nodes removed"), 1u);
}

TEST(RemoveLiftFreshCopy, RemovesTheCopyOfAConstant) {
  const Graph input = load_graph("remove_lift_fresh_copy");
  Lowered l = lower(input, {"remove-lift-fresh-copy"});
  expect_sound(input, l, 5);
  expect_golden_graph("remove_lift_fresh_copy", l.result.graph);
  EXPECT_EQ(count_target(l.result.graph, "aten.lift_fresh_copy.default"), 0u);
  EXPECT_EQ(l.counter("nodes removed"), 1u);
}

TEST(RemoveNoop, RemovesProvableNoopsAndKeepsTheRest) {
  const Graph input = load_graph("remove_noop");
  Lowered l = lower(input, {"remove-noop"});
  // The dims: batch, seq and seq2, at their hints and two more sizes each.
  expect_sound(input, l, 7);
  expect_golden_graph("remove_noop", l.result.graph);
  const Graph& out = l.result.graph;
  for (const char* gone :
       {"same_view", "same_reshape", "same_expand", "full_slice", "same_permute", "same_dtype"}) {
    EXPECT_FALSE(has_node(out, gone)) << gone;
  }
  EXPECT_EQ(l.counter("no-ops removed"), 6u);
  EXPECT_EQ(out.find("out")->args[0].text, "h");
  // They change the shape or the dtype.
  EXPECT_TRUE(has_node(out, "swapped_view"));
  EXPECT_TRUE(has_node(out, "short_slice"));
  EXPECT_TRUE(has_node(out, "half"));
  // seq2 == seq holds at no hint and is not known: deciding it would take a guard.
  EXPECT_TRUE(has_node(out, "seq2_slice"));
}

TEST(RemoveNoop, KeepsASliceWhoseEqualityWouldNeedAGuard) {
  // seq2's hint is seq's, so a guard seq2 >= seq would hold at the hints, but nothing proves it.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}, "seq2": {"min": 2, "max": 128, "hint": 9}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "ids", "op": "placeholder", "dtype": "int64", "shape": ["seq2"]},
  {"name": "head", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "x"}, 1, 0, {"expr": "seq2"}]},
  {"name": "out", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "head"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}, {"node": "ids"}]]}]})");
  Lowered l = lower(input, {"remove-noop"});
  expect_sound(input, l, 7);
  EXPECT_TRUE(has_node(l.result.graph, "head"));
  EXPECT_FALSE(l.report().stats.changed());
}

}  // namespace
}  // namespace symshape::pass_test
