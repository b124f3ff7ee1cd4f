// complex-rewrite: complex tensors become real ones with a trailing 2. Every op case runs the
// complex graph and the rewritten one in the interpreter at three sizes of the batch and
// compares (the PassManager's --verify-numerics, which feeds the rewritten graph the real views
// of the same inputs), and checks that no complex value is left and no guard was added.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace symshape::pass_test {
namespace {

// Placeholders z, w: complex64 [b, 3]; r, s: float32 [b, 3]; m: complex64 [3, 3];
// c: bool [b, 3]; q: complex64 [b, 3, 3]; i: int64 [2] and j: int64 [b, 3] (indices, generated
// in [0, 2)); v: complex64 []; e: complex64 [3]. One call `op`, the output.
Graph complex_op_graph(const std::string& target, const std::string& args,
                       const std::string& kwargs = "") {
  std::string json = R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 64, "hint": 4}},
 "nodes": [
  {"name": "z", "op": "placeholder", "dtype": "complex64", "shape": ["b", 3]},
  {"name": "w", "op": "placeholder", "dtype": "complex64", "shape": ["b", 3]},
  {"name": "r", "op": "placeholder", "dtype": "float32", "shape": ["b", 3]},
  {"name": "s", "op": "placeholder", "dtype": "float32", "shape": ["b", 3]},
  {"name": "m", "op": "placeholder", "dtype": "complex64", "shape": [3, 3]},
  {"name": "c", "op": "placeholder", "dtype": "bool", "shape": ["b", 3]},
  {"name": "q", "op": "placeholder", "dtype": "complex64", "shape": ["b", 3, 3]},
  {"name": "i", "op": "placeholder", "dtype": "int64", "shape": [2]},
  {"name": "j", "op": "placeholder", "dtype": "int64", "shape": ["b", 3]},
  {"name": "v", "op": "placeholder", "dtype": "complex64", "shape": []},
  {"name": "e", "op": "placeholder", "dtype": "complex64", "shape": [3]},
  {"name": "op", "op": "call_function", "target": ")" +
                     target + R"(", "args": )" + args +
                     (kwargs.empty() ? "" : R"(, "kwargs": )" + kwargs) + R"(},
  {"name": "output", "op": "output", "args": [{"node": "op"}]}]})";
  return parse_graph(json);
}

bool any_complex(const Graph& g) {
  ShapeEnv env;
  Propagation p = propagate(g, env);
  for (const Value& v : p.values) {
    if (v.is_tensor() && is_complex(v.tensor.dtype)) return true;
    for (const Value& item : v.items)
      if (item.is_tensor() && is_complex(item.tensor.dtype)) return true;
  }
  return false;
}

struct OpCase {
  std::string name, target, args, kwargs = "";
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

class ComplexOps : public ::testing::TestWithParam<OpCase> {};

TEST_P(ComplexOps, RewritesToRealOpsWithTheSameNumbers) {
  const OpCase& c = GetParam();
  const Graph input = complex_op_graph(c.target, c.args, c.kwargs);
  Lowered l = lower(input, {"complex-rewrite"});
  // The hints and two more batch sizes.
  expect_sound(input, l, 3);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(l.counter("graph breaks"), 0u);
  EXPECT_EQ(l.counter("rewritten"), 1u);
  EXPECT_FALSE(any_complex(l.result.graph)) << write_graph(l.result.graph);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, ComplexOps,
    ::testing::Values(
        OpCase{"add", "aten.add.Tensor", R"([{"node": "z"}, {"node": "w"}])"},
        OpCase{"add_alpha", "aten.add.Tensor", R"([{"node": "z"}, {"node": "w"}])",
               R"({"alpha": 2})"},
        OpCase{"sub_real", "aten.sub.Tensor", R"([{"node": "z"}, {"node": "r"}])"},
        OpCase{"add_scalar", "aten.add.Tensor", R"([{"node": "z"}, 1.5])"},
        OpCase{"mul", "aten.mul.Tensor", R"([{"node": "z"}, {"node": "w"}])"},
        OpCase{"mul_real", "aten.mul.Tensor", R"([{"node": "z"}, {"node": "r"}])"},
        OpCase{"real_mul", "aten.mul.Tensor", R"([{"node": "r"}, {"node": "z"}])"},
        OpCase{"mul_scalar", "aten.mul.Tensor", R"([{"node": "z"}, 2.5])"},
        OpCase{"div", "aten.div.Tensor", R"([{"node": "z"}, {"node": "w"}])"},
        OpCase{"div_real", "aten.div.Tensor", R"([{"node": "z"}, {"node": "r"}])"},
        OpCase{"div_scalar", "aten.div.Tensor", R"([{"node": "z"}, 4])"},
        OpCase{"neg", "aten.neg.default", R"([{"node": "z"}])"},
        OpCase{"conj_physical", "aten.conj_physical.default", R"([{"node": "z"}])"},
        OpCase{"real", "aten.real.default", R"([{"node": "z"}])"},
        OpCase{"imag", "aten.imag.default", R"([{"node": "z"}])"},
        OpCase{"abs", "aten.abs.default", R"([{"node": "z"}])"},
        OpCase{"angle", "aten.angle.default", R"([{"node": "z"}])"},
        OpCase{"reciprocal", "aten.reciprocal.default", R"([{"node": "z"}])"},
        OpCase{"exp", "aten.exp.default", R"([{"node": "z"}])"},
        OpCase{"log", "aten.log.default", R"([{"node": "z"}])"},
        OpCase{"sqrt", "aten.sqrt.default", R"([{"node": "z"}])"},
        OpCase{"pow_scalar", "aten.pow.Tensor_Scalar", R"([{"node": "z"}, 3])"},
        OpCase{"pow_fraction", "aten.pow.Tensor_Scalar", R"([{"node": "z"}, -0.75])"},
        OpCase{"clone", "aten.clone.default", R"([{"node": "z"}])"},
        OpCase{"reshape", "aten.reshape.default", R"([{"node": "z"}, [-1]])"},
        OpCase{"view", "aten.view.default", R"([{"node": "z"}, [{"expr": "b"}, 3, 1]])"},
        OpCase{"expand", "aten.expand.default", R"([{"node": "z"}, [2, {"expr": "b"}, 3]])"},
        OpCase{"permute", "aten.permute.default", R"([{"node": "q"}, [2, 0, -2]])"},
        OpCase{"transpose", "aten.transpose.int", R"([{"node": "z"}, 0, -1])"},
        OpCase{"t", "aten.t.default", R"([{"node": "z"}])"},
        OpCase{"unsqueeze", "aten.unsqueeze.default", R"([{"node": "z"}, -1])"},
        OpCase{"flatten", "aten.flatten.using_ints", R"([{"node": "q"}, 1])"},
        OpCase{"select", "aten.select.int", R"([{"node": "z"}, -1, 1])"},
        OpCase{"slice", "aten.slice.Tensor", R"([{"node": "z"}, 1, 0, 2])"},
        OpCase{"narrow", "aten.narrow.default", R"([{"node": "z"}, -1, 1, 2])"},
        OpCase{"cat", "aten.cat.default", R"([[{"node": "z"}, {"node": "w"}], -1])"},
        OpCase{"stack", "aten.stack.default", R"([[{"node": "z"}, {"node": "w"}], -1])"},
        OpCase{"sum", "aten.sum.dim_IntList", R"([{"node": "z"}, [-1]])"},
        OpCase{"mean_keepdim", "aten.mean.dim", R"([{"node": "z"}, [0], true])"},
        OpCase{"sym_size_negative_dim", "aten.sym_size.int", R"([{"node": "z"}, -1])"},
        OpCase{"mm", "aten.mm.default", R"([{"node": "m"}, {"node": "m"}])"},
        OpCase{"bmm", "aten.bmm.default", R"([{"node": "q"}, {"node": "q"}])"},
        OpCase{"matmul", "aten.matmul.default", R"([{"node": "z"}, {"node": "m"}])"},
        OpCase{"to_complex", "aten._to_copy.default", R"([{"node": "r"}])",
               R"({"dtype": {"dtype": "complex64"}})"},
        OpCase{"polar", "aten.polar.default", R"([{"node": "r"}, {"node": "s"}])"},
        OpCase{"complex", "aten.complex.default", R"([{"node": "r"}, {"node": "s"}])"},
        OpCase{"where", "aten.where.self", R"([{"node": "c"}, {"node": "z"}, {"node": "w"}])"},
        OpCase{"pow_complex", "aten.pow.Tensor_Tensor", R"([{"node": "z"}, {"node": "w"}])"},
        OpCase{"pow_real_exponent", "aten.pow.Tensor_Tensor", R"([{"node": "z"}, {"node": "r"}])"},
        OpCase{"pow_real_base", "aten.pow.Tensor_Tensor", R"([{"node": "r"}, {"node": "z"}])"},
        OpCase{"squeeze_all", "aten.squeeze.default", R"([{"node": "v"}])"},
        OpCase{"roll", "aten.roll.default", R"([{"node": "q"}, [1, -1], [0, -1]])"},
        OpCase{"flip", "aten.flip.default", R"([{"node": "q"}, [-1, 1]])"},
        OpCase{"repeat", "aten.repeat.default", R"([{"node": "z"}, [2, 1, 3]])"},
        OpCase{"index_select", "aten.index_select.default",
               R"([{"node": "z"}, -1, {"node": "i"}])"},
        OpCase{"gather", "aten.gather.default", R"([{"node": "z"}, 1, {"node": "j"}])"},
        OpCase{"masked_fill_complex", "aten.masked_fill.Tensor",
               R"([{"node": "z"}, {"node": "c"}, {"node": "v"}])"},
        OpCase{"masked_fill_real", "aten.masked_fill.Scalar",
               R"([{"node": "z"}, {"node": "c"}, -2.5])"},
        OpCase{"linear", "aten.linear.default", R"([{"node": "q"}, {"node": "m"}, {"node": "e"}])"},
        OpCase{"linear_no_bias", "aten.linear.default", R"([{"node": "z"}, {"node": "m"}])"},
        OpCase{"einsum", "aten.einsum.default", R"(["bi,ij->bj", [{"node": "z"}, {"node": "m"}]])"},
        OpCase{"einsum_one", "aten.einsum.default", R"(["bij->bj", [{"node": "q"}]])"},
        OpCase{"einsum_real", "aten.einsum.default",
               R"(["bi,bi->b", [{"node": "r"}, {"node": "z"}]])"}),
    [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; });

// The motivating case: Llama's rotary embedding on a dynamic batch and sequence.
TEST(ComplexRewrite, RotaryEmbeddingLowersWithNoComplexLeft) {
  const Graph input = load_graph("complex_rewrite");
  Lowered l = lower(input, {"complex-rewrite"});
  expect_sound(input, l, 5);
  expect_golden_graph("complex_rewrite", l.result.graph);
  const Graph& out = l.result.graph;
  EXPECT_FALSE(any_complex(out));
  EXPECT_EQ(l.counter("graph breaks"), 0u);
  EXPECT_FALSE(has_node(out, "freqs"));
  ASSERT_TRUE(has_node(out, "freqs_unpacked_complex"));
  EXPECT_EQ(out.find("freqs_unpacked_complex")->dtype, DType::Float32);
  // The runtime learns which inputs and outputs were complex.
  ASSERT_TRUE(out.extra.contains("complex_io"));
  EXPECT_EQ(out.extra["complex_io"]["inputs"][0]["original"], "freqs");
  EXPECT_EQ(out.extra["complex_io"]["outputs"], nlohmann::ordered_json::parse("[2]"));
}

// matmul=gauss: three real products instead of four, the same numbers.
TEST(ComplexRewrite, GaussMatmulUsesThreeProducts) {
  const Graph input = complex_op_graph("aten.bmm.default", R"([{"node": "q"}, {"node": "q"}])");
  PassManagerOptions options;
  options.verify_numerics = true;
  PassManager manager(PassRegistry::standard(), options);
  manager.add(PassSpec{"complex-rewrite", {{"matmul", "gauss"}}});
  ShapeEnv env;
  LowerResult r = manager.run(input, env);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(count_target(r.graph, "aten.bmm.default"), 3u);
  EXPECT_GT(r.reports.at(0).numeric_runs, 0u);
  EXPECT_FALSE(any_complex(r.graph));
  Lowered four = lower(input, {"complex-rewrite"});
  EXPECT_EQ(count_target(four.result.graph, "aten.bmm.default"), 4u);
}

// examples/llama_attention.json: rotary embedding, attention and output projection with a
// dynamic batch and sequence, through the `complex` pipeline.
TEST(ComplexRewrite, LlamaAttentionExampleLowersWithNoComplexLeft) {
  Expected<Graph> read = read_graph_file((source_dir() / "examples/llama_attention.json").string());
  ASSERT_TRUE(read.ok()) << read.error();
  const Graph input = with_small_dims(*read);
  Lowered l = lower(input, {"complex-rewrite", "cse", "dce"});
  expect_sound(input, l, 5);
  EXPECT_FALSE(any_complex(l.result.graph));
  EXPECT_EQ(l.counter("graph breaks"), 0u);
  EXPECT_EQ(count_target(l.result.graph, "aten.view_as_complex.default"), 0u);
  EXPECT_EQ(count_target(l.result.graph, "aten.view_as_real.default"), 0u);
}

// Ops returning lists of complex tensors give lists of real views, which getitem reads.
TEST(ComplexRewrite, ListsOfComplexTensorsBecomeListsOfRealViews) {
  for (const auto& [target, args] : std::vector<std::pair<std::string, std::string>>{
           {"aten.split.Tensor", R"([{"node": "z"}, 2, -1])"},
           {"aten.split_with_sizes.default", R"([{"node": "z"}, [1, 2], 1])"},
           {"aten.chunk.default", R"([{"node": "q"}, 2, 1])"},
           {"aten.unbind.int", R"([{"node": "q"}, -1])"}}) {
    SCOPED_TRACE(target);
    Graph input = complex_op_graph(target, args);
    // Read the second piece rather than the list itself.
    Node piece;
    piece.name = "piece";
    piece.target = "operator.getitem";
    piece.args = {Arg::node("op"), Arg::of_int(Expr(1))};
    input.nodes.insert(input.nodes.end() - 1, piece);
    input.nodes.back().args = {Arg::node("piece")};
    Lowered l = lower(input, {"complex-rewrite"});
    expect_sound(input, l, 3);
    EXPECT_FALSE(any_complex(l.result.graph)) << write_graph(l.result.graph);
    EXPECT_EQ(l.counter("graph breaks"), 0u);
  }
}

// An op without a real form stays on complex values rebuilt around it, and is reported.
TEST(ComplexRewrite, AnOpWithoutARealFormIsAReportedGraphBreak) {
  const Graph input = complex_op_graph("aten.sin.default", R"([{"node": "z"}])");
  Lowered l = lower(input, {"complex-rewrite"});
  expect_sound(input, l, 3);
  EXPECT_EQ(l.counter("graph breaks"), 1u);
  EXPECT_EQ(l.counter("graph break: sin"), 1u);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "aten.view_as_complex.default"), 1u);
  EXPECT_EQ(count_target(out, "aten.view_as_real.default"), 1u);
}

// The tensor-parallel block: all_gather, two views, a complex multiply, reduce_scatter and a
// broadcast, with symbolic batch, shard and group size.
TEST(ComplexCollectives, RunsTheCollectivesOnRealViewsWithOnePairAroundTheCompute) {
  const Graph input = example("tp_complex.json");
  Lowered l = lower(input, {"complex-collectives"});
  expect_sound(input, l, 7);  // the hints and two more values of each of three dims
  EXPECT_EQ(l.counter("collectives lowered"), 6u);  // three collectives and their waits
  // view_as_real of x, then view_as_complex / view_as_real around the multiply, then
  // view_as_complex for the output: one pair per stretch of collectives, not one per op.
  EXPECT_EQ(l.counter("views inserted"), 4u);
  EXPECT_EQ(l.counter("views cancelled"), 0u);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "aten.view_as_real.default"), 2u);
  EXPECT_EQ(count_target(out, "aten.view_as_complex.default"), 2u);
  ShapeEnv env;
  Propagation p = propagate(out, env);
  ASSERT_TRUE(p.ok()) << p.error;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    const Node& n = out.nodes[i];
    if (n.target.find("c10d_functional") == std::string::npos) continue;
    EXPECT_EQ(p.values[i].tensor.dtype, DType::Float32) << n.name << " is still complex";
  }
}

// A graph that already wraps each collective in its own pair of views (as a per-op lowering
// would) keeps one pair for the whole chain.
TEST(ComplexCollectives, CancelsThePairsBetweenChainedCollectives) {
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 1, "max": 64, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "complex64", "shape": ["n", 8]},
  {"name": "r1", "op": "call_function", "target": "aten.view_as_real.default", "args": [{"node": "x"}]},
  {"name": "ag", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "r1"}, 2, "tp"]},
  {"name": "w1", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "ag"}]},
  {"name": "c1", "op": "call_function", "target": "aten.view_as_complex.default", "args": [{"node": "w1"}]},
  {"name": "r2", "op": "call_function", "target": "aten.view_as_real.default", "args": [{"node": "c1"}]},
  {"name": "rs", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "r2"}, "sum", 2, "tp"]},
  {"name": "w2", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "rs"}]},
  {"name": "c2", "op": "call_function", "target": "aten.view_as_complex.default", "args": [{"node": "w2"}]},
  {"name": "output", "op": "output", "args": [{"node": "c2"}]}]})");
  Lowered l = lower(input, {"complex-collectives", "dce"});
  expect_sound(input, l, 3);
  // x's view and the output's are the chain's one pair; the four written views are gone.
  EXPECT_EQ(l.counter("views inserted"), 2u);
  EXPECT_EQ(l.counter("views cancelled"), 4u);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "aten.view_as_real.default"), 1u);
  EXPECT_EQ(count_target(out, "aten.view_as_complex.default"), 1u);
}

TEST(ComplexRewrite, TensorParallelBlockLowersToRealCollectives) {
  const Graph input = example("tp_complex.json");
  Lowered l = lower(input, {"complex-rewrite"});
  expect_sound(input, l, 7);
  EXPECT_FALSE(any_complex(l.result.graph));
  EXPECT_EQ(l.counter("collectives lowered"), 6u);
  EXPECT_EQ(l.counter("graph breaks"), 0u);
}

TEST(ComplexRewrite, WritesBackIntoTheRealViewOfAComplexInput) {
  // complex-rewrite functionalizes first; the write into the input z is then the write-back of
  // its final value, which goes into z's real view: to_fx passes view_as_real(z), which shares
  // the caller's storage, as the interpreter's real input does.
  const Graph input = complex_op_graph("aten.mul_.Tensor", R"([{"node": "z"}, {"node": "w"}])");
  Lowered l = lower(input, {"complex-rewrite"});
  ASSERT_TRUE(l.result.ok) << l.result.error;
  const Graph& out = l.result.graph;
  EXPECT_FALSE(any_complex(out)) << write_graph(out);
  const Node& back = out.nodes[out.nodes.size() - 2];
  EXPECT_EQ(back.target, "aten.copy_.default");
  EXPECT_EQ(back.args[0].text, "z_unpacked_complex");
  EXPECT_EQ(l.counter("write-backs into real views"), 1u);
}

}  // namespace
}  // namespace symshape::pass_test
