// decompose and fuse-linear: every decomposition runs the original op and its decomposition in
// the interpreter at three sizes of each symbolic dim (the PassManager's --verify-numerics) and
// checks that the op is gone, the output's symbolic shape is the original's, and no guard or
// raw symbol was added.
#include <gtest/gtest.h>

#include <set>

#include "pass_test_util.h"

namespace symshape::pass_test {
namespace {

// Placeholders (b and n symbolic):
//   x, src: float32 [b, 8]; w: [6, 8]; bias: [6]; m2: [8, 6]; s: [b, 6];
//   bb: [b, 3, 4]; b1: [b, 3, 5]; b2: [b, 5, 4]; img: [b, 4, 5, 5]; ch: [4]; pos: [4] (> 0);
//   q: [b, 2, n, 8]; k, v: [b, 2, 7, 8]; mask: bool [n, 7]; idx: int64 [b, 8] in [0, 2);
//   row: float32 [b]; t3: [b, 2, 3] (transposed strides).
// `pre` nodes come before the call `op`, `post` nodes after it; `result` is the output.
Graph op_graph(const std::string& target, const std::string& args, const std::string& kwargs = "",
               const std::string& pre = "", const std::string& post = "",
               const std::string& result = "op") {
  std::string json = R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 64, "hint": 4}, "n": {"min": 2, "max": 16, "hint": 5}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", 8]},
  {"name": "src", "op": "placeholder", "dtype": "float32", "shape": ["b", 8]},
  {"name": "w", "op": "placeholder", "dtype": "float32", "shape": [6, 8]},
  {"name": "bias", "op": "placeholder", "dtype": "float32", "shape": [6]},
  {"name": "m2", "op": "placeholder", "dtype": "float32", "shape": [8, 6]},
  {"name": "s", "op": "placeholder", "dtype": "float32", "shape": ["b", 6]},
  {"name": "bb", "op": "placeholder", "dtype": "float32", "shape": ["b", 3, 4]},
  {"name": "b1", "op": "placeholder", "dtype": "float32", "shape": ["b", 3, 5]},
  {"name": "b2", "op": "placeholder", "dtype": "float32", "shape": ["b", 5, 4]},
  {"name": "img", "op": "placeholder", "dtype": "float32", "shape": ["b", 4, 5, 5]},
  {"name": "ch", "op": "placeholder", "dtype": "float32", "shape": [4]},
  {"name": "q", "op": "placeholder", "dtype": "float32", "shape": ["b", 2, "n", 8]},
  {"name": "k", "op": "placeholder", "dtype": "float32", "shape": ["b", 2, 7, 8]},
  {"name": "v", "op": "placeholder", "dtype": "float32", "shape": ["b", 2, 7, 8]},
  {"name": "mask", "op": "placeholder", "dtype": "bool", "shape": ["n", 7]},
  {"name": "idx", "op": "placeholder", "dtype": "int64", "shape": ["b", 8]},
  {"name": "row", "op": "placeholder", "dtype": "float32", "shape": ["b"]},
  {"name": "pos0", "op": "placeholder", "dtype": "float32", "shape": [4]},
  {"name": "pos", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "pos0"}]},)" +
                     pre + R"(
  {"name": "op", "op": "call_function", "target": ")" +
                     target + R"(", "args": )" + args +
                     (kwargs.empty() ? "" : R"(, "kwargs": )" + kwargs) + R"(},)" + post + R"(
  {"name": "output", "op": "output", "args": [{"node": ")" +
                     result + R"("}]}]})";
  return parse_graph(json);
}

bool writes_in_place_target(const std::string& target) { return parse_target(target).in_place; }

// The output's metadata, propagated under a fresh env.
Value output_value(const Graph& g) {
  ShapeEnv env;
  Propagation p = propagate(g, env);
  if (!p.ok()) throw std::runtime_error(p.error);
  return p.values.back();
}

struct DecompCase {
  std::string name, target, args, kwargs = "", pre = "", post = "", result = "op";
  std::string decomposition = "";  // the counter's name; the case name when empty
};

void PrintTo(const DecompCase& c, std::ostream* os) { *os << c.name; }

class Decompositions : public ::testing::TestWithParam<DecompCase> {};

TEST_P(Decompositions, GiveTheSameNumbersAndTheSameSymbolicShape) {
  const DecompCase& c = GetParam();
  const Graph input = op_graph(c.target, c.args, c.kwargs, c.pre, c.post, c.result);
  Lowered l = lower(input, {"decompose"});
  expect_sound(input, l, 5);  // the hints and two more values of each of b and n
  ASSERT_TRUE(l.result.ok) << l.result.error;
  const std::string name = c.decomposition.empty() ? c.name : c.decomposition;
  EXPECT_EQ(l.counter("decomposed: " + name), 1u) << write_graph(l.result.graph);
  EXPECT_EQ(count_target(l.result.graph, c.target), 0u) << write_graph(l.result.graph);
  const Value before = output_value(input), after = output_value(l.result.graph);
  ASSERT_TRUE(before.is_tensor() && after.is_tensor());
  EXPECT_EQ(before.tensor.str(), after.tensor.str());
  // Sizes come from sym_size nodes: no argument of the lowered graph names a symbol.
  for (const Node& n : l.result.graph.nodes) {
    if (n.op != NodeOp::CallFunction) continue;
    for (const Arg& a : n.args) {
      EXPECT_TRUE(a.kind != Arg::Kind::Int || a.integer.free_symbols().empty())
          << n.name << " names a symbol: " << a.str();
      for (const Arg& item : a.items)
        EXPECT_TRUE(item.kind != Arg::Kind::Int || item.integer.free_symbols().empty())
            << n.name << " names a symbol: " << item.str();
    }
  }
}

constexpr const char* kGetitem0 = R"(
  {"name": "first", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 0]},)";
// Items 1 and 2 of op, read by nothing: a trace keeps them (make_fx's batch norms).
constexpr const char* kGetitem0AndUnread = R"(
  {"name": "first", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 0]},
  {"name": "second", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 1]},
  {"name": "third", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 2]},)";
constexpr const char* kSrcRow = R"(
  {"name": "src_row", "op": "call_function", "target": "aten.select.int", "args": [{"node": "src"}, 0, 0]},)";

INSTANTIATE_TEST_SUITE_P(
    Ops, Decompositions,
    ::testing::Values(
        DecompCase{"linear", "aten.linear.default",
                   R"([{"node": "x"}, {"node": "w"}, {"node": "bias"}])"},
        DecompCase{"linear_no_bias", "aten.linear.default", R"([{"node": "x"}, {"node": "w"}])", "",
                   "", "", "op", "linear"},
        DecompCase{"addmm", "aten.addmm.default",
                   R"([{"node": "s"}, {"node": "x"}, {"node": "m2"}])",
                   R"({"beta": 0.5, "alpha": 2})"},
        DecompCase{"addmm_beta_zero", "aten.addmm.default",
                   R"([{"node": "bias"}, {"node": "x"}, {"node": "m2"}])", R"({"beta": 0})", "", "",
                   "op", "addmm"},
        DecompCase{"baddbmm", "aten.baddbmm.default",
                   R"([{"node": "bb"}, {"node": "b1"}, {"node": "b2"}])", R"({"alpha": 3})"},
        DecompCase{"log_softmax", "aten._log_softmax.default", R"([{"node": "x"}, 1, false])"},
        DecompCase{"log_softmax_int", "aten.log_softmax.int", R"([{"node": "img"}, -3])", "", "",
                   "", "op", "log_softmax"},
        DecompCase{"rsqrt", "aten.rsqrt.default", R"([{"node": "pos"}])"},
        DecompCase{"silu", "aten.silu.default", R"([{"node": "x"}])"},
        DecompCase{"gelu", "aten.gelu.default", R"([{"node": "x"}])"},
        DecompCase{"gelu_tanh", "aten.gelu.default", R"([{"node": "x"}])",
                   R"({"approximate": "tanh"})", "", "", "op", "gelu"},
        DecompCase{"var", "aten.var.correction", R"([{"node": "img"}, [1, -1]])",
                   R"({"correction": 0, "keepdim": true})"},
        DecompCase{"var_symbolic_dim", "aten.var.correction", R"([{"node": "x"}, [0]])", "", "", "",
                   "op", "var"},
        DecompCase{"var_all", "aten.var.default", R"([{"node": "x"}])", "", "", "", "op", "var"},
        DecompCase{"std", "aten.std.dim", R"([{"node": "img"}, [2, 3], false, true])"},
        DecompCase{"var_mean", "aten.var_mean.correction", R"([{"node": "q"}, [2]])",
                   R"({"correction": 1})", "",
                   R"(
  {"name": "v0", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 0]},
  {"name": "v1", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 1]},
  {"name": "sum", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "v0"}, {"node": "v1"}]},)",
                   "sum"},
        DecompCase{"layer_norm", "aten.layer_norm.default",
                   R"([{"node": "img"}, [5, 5], {"node": "w25"}, {"node": "b25"}, 1e-3])", "",
                   R"(
  {"name": "w25", "op": "call_function", "target": "aten.ones.default", "args": [[5, 5]]},
  {"name": "b25", "op": "call_function", "target": "aten.full.default", "args": [[5, 5], 0.25]},)"},
        DecompCase{"native_layer_norm", "aten.native_layer_norm.default",
                   R"([{"node": "x"}, [8], {"node": "src_row"}, null, 1e-5])", "", kSrcRow,
                   R"(
  {"name": "n0", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 0]},
  {"name": "n2", "op": "call_function", "target": "operator.getitem", "args": [{"node": "op"}, 2]},
  {"name": "prod", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "n0"}, {"node": "n2"}]},)",
                   "prod"},
        DecompCase{"group_norm", "aten.group_norm.default",
                   R"([{"node": "img"}, 2, {"node": "ch"}, {"node": "pos"}, 1e-5])"},
        DecompCase{
            "batch_norm", "aten.batch_norm.default",
            R"([{"node": "img"}, {"node": "ch"}, {"node": "ch"}, {"node": "ch"}, {"node": "pos"}, false, 0.1, 1e-5, false])"},
        DecompCase{
            "_native_batch_norm_legit_no_training",
            "aten._native_batch_norm_legit_no_training.default",
            R"([{"node": "img"}, null, {"node": "ch"}, {"node": "ch"}, {"node": "pos"}, 0.1, 1e-5])",
            "", "", kGetitem0, "first"},
        // The statistics' getitems that nothing reads go with the op (they kept it before).
        DecompCase{
            "_native_batch_norm_legit_unread_items",
            "aten._native_batch_norm_legit_no_training.default",
            R"([{"node": "img"}, {"node": "ch"}, null, {"node": "ch"}, {"node": "pos"}, 0.1, 1e-5])",
            "", "", kGetitem0AndUnread, "first", "_native_batch_norm_legit_no_training"},
        DecompCase{
            "instance_norm", "aten.instance_norm.default",
            R"([{"node": "img"}, {"node": "ch"}, {"node": "ch"}, null, null, true, 0.1, 1e-5, false])"},
        DecompCase{"view", "aten.view.default", R"([{"node": "img"}, [-1, 25]])"},
        DecompCase{"unsafe_view", "aten._unsafe_view.default", R"([{"node": "x"}, [-1, 2, 4]])", "",
                   "", "", "op", "view"},
        DecompCase{"full_like", "aten.full_like.default", R"([{"node": "q"}, 2.5])"},
        DecompCase{"zeros_like", "aten.zeros_like.default", R"([{"node": "q"}])",
                   R"({"dtype": {"dtype": "int32"}})"},
        DecompCase{"ones_like", "aten.ones_like.default", R"([{"node": "x"}])"},
        DecompCase{"select_scatter", "aten.select_scatter.default",
                   R"([{"node": "x"}, {"node": "row"}, 1, -1])"},
        DecompCase{"select_scatter_symbolic_dim", "aten.select_scatter.default",
                   R"([{"node": "src"}, {"node": "src_row"}, 0, -1])", "", kSrcRow, "", "op",
                   "select_scatter"},
        DecompCase{"scatter_add", "aten.scatter_add.default",
                   R"([{"node": "x"}, 1, {"node": "idx"}, {"node": "src"}])"},
        DecompCase{"t", "aten.t.default", R"([{"node": "w"}])"},
        DecompCase{"expand_same", "aten.expand.default", R"([{"node": "x"}, [-1, 8]])"},
        DecompCase{"scaled_dot_product_attention", "aten.scaled_dot_product_attention.default",
                   R"([{"node": "q"}, {"node": "k"}, {"node": "v"}, {"node": "mask"}])"},
        DecompCase{"sdpa_causal", "aten.scaled_dot_product_attention.default",
                   R"([{"node": "q"}, {"node": "q"}, {"node": "q"}])",
                   R"({"is_causal": true, "scale": 0.3})", "", "", "op",
                   "scaled_dot_product_attention"},
        DecompCase{"inplace", "aten.mul_.Tensor", R"([{"node": "cl"}, {"node": "src"}])", "",
                   R"(
  {"name": "cl", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, 1]},)",
                   R"(
  {"name": "after", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "cl"}, {"node": "op"}]},)",
                   "after", "inplace"}),
    [](const ::testing::TestParamInfo<DecompCase>& info) { return info.param.name; });

LowerResult lower_with(const Graph& input, const PassSpec& spec, bool numerics = true) {
  PassManagerOptions options;
  options.verify_numerics = numerics;
  PassManager manager(PassRegistry::standard(), options);
  manager.add(spec);
  ShapeEnv env;
  return manager.run(input, env);
}

size_t counter(const LowerResult& r, const std::string& name) {
  const auto& c = r.reports.at(0).stats.counters;
  auto it = c.find(name);
  return it == c.end() ? 0 : it->second;
}

// A GPT model (layer_norm, addmm, gelu, scaled_dot_product_attention, t, view on a symbolic
// sequence) lowers to core ops only, with the same numbers.
TEST(Decompose, GptSmallLowersToCoreOps) {
  const Graph input = with_small_dims(example("gpt_small.json"));
  Lowered l = lower(input, {"decompose"});
  expect_sound(input, l, 5);  // the hints and two more values of batch and seq
  const Graph& out = l.result.graph;
  for (const char* gone :
       {"aten.layer_norm.default", "aten.addmm.default", "aten.gelu.default",
        "aten.scaled_dot_product_attention.default", "aten.t.default", "aten.view.default"}) {
    EXPECT_EQ(count_target(out, gone), 0u) << gone;
  }
  EXPECT_EQ(l.counter("decomposed: scaled_dot_product_attention"), 8u);
  EXPECT_EQ(output_value(input).tensor.str(), output_value(out).tensor.str());
}

// A float16 or bfloat16 op that PyTorch computes in float32 and rounds once (activations,
// norms, softmax, variance, attention) decomposes into float32 steps between one cast up per
// input and one cast down per result: no arithmetic step of the decomposition rounds to the low
// type. (x * sigmoid(x) rounded to bfloat16 after each step moved a SwiGLU layer's outputs by
// an ulp.)
TEST(Decompose, HalfPrecisionOpsComputeInFloat32AndRoundOnce) {
  const std::vector<std::pair<std::string, DecompCase>> cases = {
      {"silu", {"silu", "aten.silu.default", R"([{"node": "x"}])"}},
      {"gelu", {"gelu", "aten.gelu.default", R"([{"node": "x"}])", R"({"approximate": "tanh"})"}},
      {"rsqrt", {"rsqrt", "aten.rsqrt.default", R"([{"node": "pos"}])"}},
      {"log_softmax", {"log_softmax", "aten._log_softmax.default", R"([{"node": "x"}, 1, false])"}},
      {"var", {"var", "aten.var.correction", R"([{"node": "img"}, [1, -1]])"}},
      {"group_norm",
       {"group_norm", "aten.group_norm.default",
        R"([{"node": "img"}, 2, {"node": "ch"}, {"node": "pos"}, 1e-5])"}},
      {"scaled_dot_product_attention",
       {"scaled_dot_product_attention", "aten.scaled_dot_product_attention.default",
        R"([{"node": "q"}, {"node": "k"}, {"node": "v"}, {"node": "mask"}])"}},
  };
  for (const char* low : {"bfloat16", "float16"}) {
    for (const auto& [name, c] : cases) {
      SCOPED_TRACE(std::string(low) + " " + name);
      Graph input = op_graph(c.target, c.args, c.kwargs);
      for (Node& n : input.nodes)
        if (n.op == NodeOp::Placeholder && n.dtype == DType::Float32) n.dtype = parse_dtype(low);
      std::set<std::string> original;
      for (const Node& n : input.nodes) original.insert(n.name);
      Lowered l = lower(input, {"decompose"});
      expect_sound(input, l, 5);
      ASSERT_TRUE(l.result.ok) << l.result.error;
      EXPECT_EQ(l.counter("decomposed: " + name), 1u);
      // Every node the decomposition made computes in float32, but the casts down.
      ShapeEnv env;
      Propagation p = propagate(l.result.graph, env);
      ASSERT_TRUE(p.ok()) << p.error;
      size_t down = 0, up = 0;
      for (size_t i = 0; i < l.result.graph.nodes.size(); ++i) {
        const Node& n = l.result.graph.nodes[i];
        if (n.op != NodeOp::CallFunction || original.count(n.name)) continue;
        const Value& v = p.values[i];
        if (!v.is_tensor() || !is_floating(v.tensor.dtype)) continue;
        if (n.target == "aten._to_copy.default" && v.tensor.dtype != DType::Float32) {
          ++down;
          continue;
        }
        up += n.target == "aten._to_copy.default";
        EXPECT_EQ(v.tensor.dtype, DType::Float32) << n.name << " " << n.target;
      }
      EXPECT_EQ(down, 1u) << write_graph(l.result.graph);
      EXPECT_GE(up, 1u) << write_graph(l.result.graph);
    }
  }
}

TEST(Decompose, OnlyAndSkipChooseDecompositionsByName) {
  const Graph input = op_graph("aten.gelu.default", R"([{"node": "x"}])");
  for (const PassSpec& spec : {PassSpec{"decompose", {{"only", "linear,addmm"}}},
                               PassSpec{"decompose", {{"skip", "silu|gelu"}}}}) {
    LowerResult r = lower_with(input, spec);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(count_target(r.graph, "aten.gelu.default"), 1u);
    EXPECT_EQ(counter(r, "decomposed"), 0u);
  }
  LowerResult r = lower_with(input, PassSpec{"decompose", {{"only", "gelu"}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(count_target(r.graph, "aten.gelu.default"), 0u);
  LowerResult bad = lower_with(input, PassSpec{"decompose", {{"skip", "gelu,nope"}}});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("unknown decomposition 'nope'"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("scaled_dot_product_attention"), std::string::npos) << bad.error;
}

// A decomposition that would be wrong for a call leaves the node and says why.
TEST(Decompose, KeepsWhatItCannotDecomposeSoundly) {
  struct Kept {
    std::string target, args, kwargs, counter;
  };
  const std::vector<Kept> cases = {
      // N = b >= 2 does not prove N >= 3: PyTorch would clamp the divisor at 0.
      {"aten.var.correction", R"([{"node": "x"}, [0]])", R"({"correction": 3})",
       "kept var: N - correction may be negative"},
      // The head size is symbolic: the scale would need a symbolic square root.
      {"aten.scaled_dot_product_attention.default",
       R"([{"node": "qn"}, {"node": "qn"}, {"node": "qn"}])", "",
       "kept scaled_dot_product_attention: a symbolic head size"},
      // full_like of a transposed tensor keeps its layout; full would not.
      {"aten.full_like.default", R"([{"node": "xt"}, 1.0])", "",
       "kept full_like: the result keeps a non-contiguous layout"},
  };
  const std::string pre = R"(
  {"name": "qn", "op": "call_function", "target": "aten.permute.default", "args": [{"node": "q"}, [0, 1, 3, 2]]},
  {"name": "xt", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}]},)";
  for (const Kept& c : cases) {
    SCOPED_TRACE(c.target);
    const Graph input = op_graph(c.target, c.args, c.kwargs, pre);
    Lowered l = lower(input, {"decompose"});
    ASSERT_TRUE(l.result.ok) << l.result.error;
    EXPECT_EQ(count_target(l.result.graph, c.target), 1u);
    EXPECT_EQ(l.counter(c.counter), 1u) << "counters: " << [&] {
      std::string all;
      for (const auto& [k, v] : l.report().stats.counters) all += k + "; ";
      return all;
    }();
  }
}

// A graph input written in place: the caller sees the write, so functionalization copies the
// final value back into it at the end, the only write left.
TEST(Decompose, AWrittenInputGetsItsValueWrittenBack) {
  const Graph input = op_graph("aten.mul_.Tensor", R"([{"node": "x"}, 2])", "");
  Lowered l = lower(input, {"decompose"});
  expect_sound(input, l, 5);
  const Graph& out = l.result.graph;
  EXPECT_EQ(count_target(out, "aten.mul_.Tensor"), 0u);
  ASSERT_EQ(count_target(out, "aten.copy_.default"), 1u);
  EXPECT_EQ(out.nodes[out.nodes.size() - 2].target, "aten.copy_.default");
  EXPECT_EQ(out.nodes[out.nodes.size() - 2].args[0].text, "x");
  EXPECT_EQ(l.counter("inputs written back"), 1u);
}

// A write into a tensor read again later: the later reader reads the new value.
TEST(Decompose, InPlaceWritesBecomeValuesReadByLaterUsers) {
  const Graph input = op_graph("aten.add_.Tensor", R"([{"node": "buf"}, {"node": "src"}])", "",
                               R"(
  {"name": "buf", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 3]},
  {"name": "before", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "buf"}]},)",
                               R"(
  {"name": "relu_", "op": "call_function", "target": "aten.relu_.default", "args": [{"node": "buf"}]},
  {"name": "after", "op": "call_function", "target": "aten.sub.Tensor", "args": [{"node": "buf"}, {"node": "before"}]},)",
                               "after");
  Lowered l = lower(input, {"decompose{only=inplace}"});
  expect_sound(input, l, 5);
  EXPECT_EQ(l.counter("decomposed: inplace"), 2u);
  for (const Node& n : l.result.graph.nodes)
    EXPECT_FALSE(writes_in_place_target(n.target)) << n.name;
}

TEST(FuseLinear, AddmmAndMatmulPlusBiasBecomeLinear) {
  // addmm(bias, x, t(w)), as make_fx writes a linear layer on 2-d input.
  const Graph mlp =
      op_graph("aten.addmm.default", R"([{"node": "bias"}, {"node": "x"}, {"node": "wt"}])", "", R"(
  {"name": "wt", "op": "call_function", "target": "aten.t.default", "args": [{"node": "w"}]},)");
  Lowered l = lower(mlp, {"fuse-linear", "dce"});
  expect_sound(mlp, l, 5);
  EXPECT_EQ(l.counter("fused into linear"), 1u);
  EXPECT_EQ(count_target(l.result.graph, "aten.addmm.default"), 0u);
  EXPECT_EQ(count_target(l.result.graph, "aten.t.default"), 0u);
  EXPECT_EQ(count_target(l.result.graph, "aten.linear.default"), 1u);

  const Graph added = op_graph("aten.add.Tensor", R"([{"node": "bias"}, {"node": "mm"}])", "", R"(
  {"name": "wt", "op": "call_function", "target": "aten.transpose.int", "args": [{"node": "w"}, 0, 1]},
  {"name": "mm", "op": "call_function", "target": "aten.matmul.default", "args": [{"node": "x"}, {"node": "wt"}]},)");
  Lowered m = lower(added, {"fuse-linear", "dce"});
  expect_sound(added, m, 5);
  EXPECT_EQ(count_target(m.result.graph, "aten.linear.default"), 1u);
  EXPECT_EQ(count_target(m.result.graph, "aten.matmul.default"), 0u);

  // decompose undoes it (addmm -> add(bias, mm)), and fuse-linear puts it back.
  Lowered round = lower(mlp, {"decompose{only=addmm}", "fuse-linear", "dce"});
  expect_sound(mlp, round, 5);
  EXPECT_EQ(count_target(round.result.graph, "aten.linear.default"), 1u);
  EXPECT_EQ(count_target(round.result.graph, "aten.mm.default"), 0u);
}

// alpha or beta other than 1, or a 2-d bias, is not a linear layer.
TEST(FuseLinear, LeavesScaledAndBroadcastProductsAlone) {
  const std::string pre = R"(
  {"name": "wt", "op": "call_function", "target": "aten.t.default", "args": [{"node": "w"}]},)";
  for (auto [args, kwargs] : std::vector<std::pair<std::string, std::string>>{
           {R"([{"node": "bias"}, {"node": "x"}, {"node": "wt"}])", R"({"alpha": 2})"},
           {R"([{"node": "s"}, {"node": "x"}, {"node": "wt"}])", ""}}) {
    const Graph input = op_graph("aten.addmm.default", args, kwargs, pre);
    Lowered l = lower(input, {"fuse-linear"});
    ASSERT_TRUE(l.result.ok) << l.result.error;
    EXPECT_EQ(count_target(l.result.graph, "aten.addmm.default"), 1u) << args << kwargs;
  }
}

}  // namespace
}  // namespace symshape::pass_test
