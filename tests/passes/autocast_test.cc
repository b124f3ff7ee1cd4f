// autocast: which nodes run in the low type and which stay in float32 (and why), where the casts
// go, that integer and bool tensors are never cast, that symbolic sizes and the guards stay as
// they were, and that the lowered graph gives the original's numbers within 1e-2 in the
// interpreter (the PassManager's --verify-numerics at the hints and two more batch sizes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

#include "pass_test_util.h"
#include "symshape/interp.h"
#include "symshape/schema.h"

namespace symshape::pass_test {
namespace {

using Options = std::map<std::string, std::string>;

Lowered run_autocast(const Graph& input, Options options, bool verify_numerics = true) {
  Lowered out;
  PassManagerOptions pm;
  pm.verify_numerics = verify_numerics;
  PassManager manager(PassRegistry::standard(), pm);
  manager.add(PassSpec{"autocast", std::move(options)});
  ShapeEnv env;
  out.result = manager.run(input, env);
  out.guards = env.guards().size();
  ShapeEnv plain;
  propagate(input, plain);
  out.input_guards = plain.guards().size();
  return out;
}

Graph cnn() {
  Expected<Graph> g = read_graph_file((source_dir() / "examples/autocast_cnn.json").string());
  if (!g) throw std::runtime_error(g.error());
  return *g;
}

const nlohmann::ordered_json& decisions(const Lowered& l) {
  return l.result.graph.extra.at("autocast");
}

std::set<std::string> high(const Lowered& l) {
  std::set<std::string> out;
  for (auto it = decisions(l)["high"].begin(); it != decisions(l)["high"].end(); ++it)
    out.insert(it.key());
  return out;
}

std::set<std::string> low(const Lowered& l) {
  std::set<std::string> out;
  for (const auto& name : decisions(l)["low"]) out.insert(name.get<std::string>());
  return out;
}

std::string reasons(const Lowered& l, const std::string& node) {
  return decisions(l)["high"].value(node, nlohmann::ordered_json::array()).dump();
}

// The metadata the lowered graph's node has.
const Value& value(const Lowered& l, std::string_view name) {
  const size_t i = l.result.graph.index_of(name);
  if (i >= l.result.values.size()) throw std::runtime_error("no node " + std::string(name));
  return l.result.values[i];
}

DType dtype(const Lowered& l, std::string_view name) { return value(l, name).tensor.dtype; }

// The casts autocast inserted: (the value cast, the dtype it is cast to), in graph order.
std::vector<std::pair<std::string, DType>> casts(const Lowered& l) {
  std::vector<std::pair<std::string, DType>> out;
  for (const Node& n : l.result.graph.nodes) {
    const Arg* d = n.kwarg("dtype");
    if (n.target != "aten._to_copy.default" || !d || n.args.empty()) continue;
    if (n.name != n.args[0].text + "_" + std::string(to_string(d->dtype))) continue;
    out.emplace_back(n.args.at(0).text, d->dtype);
  }
  return out;
}

std::filesystem::path temp_file(const std::string& stem, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / (stem + "_" + std::to_string(getpid()) + ".json");
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// ---- the CNN of the issue ----

TEST(Autocast, CnnExcludingConv1ReluAndFlatten) {
  const Graph input = cnn();
  Lowered l = run_autocast(input, {{"low", "float16"},
                                   {"exclude-node", "^conv1$\nrelu"},
                                   {"exclude-op", "aten.flatten.using_ints"}});
  expect_sound(input, l, 3);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(high(l), (std::set<std::string>{"conv1", "relu1", "relu2", "flatten"}));
  EXPECT_EQ(low(l), (std::set<std::string>{"pool1", "conv2", "pool2", "fc1", "add"}));
  EXPECT_EQ(decisions(l)["low_dtype"], "float16");
  EXPECT_EQ(reasons(l, "conv1"), R"(["exclude-node: name matches '^conv1$'"])");
  EXPECT_EQ(reasons(l, "relu2"), R"(["exclude-node: name matches 'relu'"])");
  EXPECT_EQ(reasons(l, "flatten"), R"(["exclude-op: aten.flatten.using_ints"])");
  EXPECT_EQ(l.counter("low-precision nodes"), 5u);
  EXPECT_EQ(l.counter("high-precision nodes"), 4u);
  EXPECT_EQ(l.counter("kept high: exclude-node"), 3u);
  EXPECT_EQ(l.counter("kept high: exclude-op"), 1u);

  for (const char* n : {"conv1", "relu1", "relu2", "flatten"})
    EXPECT_EQ(dtype(l, n), DType::Float32) << n;
  for (const char* n : {"pool1", "conv2", "pool2", "fc1", "add"})
    EXPECT_EQ(dtype(l, n), DType::Float16) << n;
  // Symbolic sizes stay: fc1 is float16[batch, 10].
  EXPECT_EQ(value(l, "fc1").str(), "float16[batch, 10]");
  EXPECT_EQ(value(l, "flatten").str(), "float32[batch, 256]");
  // A cast on every edge between precisions, the weights of low nodes, and the output back to
  // float32: one per (value, dtype).
  const std::vector<std::pair<std::string, DType>> expected = {
      {"relu1", DType::Float16},      {"conv2_weight", DType::Float16},
      {"conv2_bias", DType::Float16}, {"conv2", DType::Float32},
      {"relu2", DType::Float16},      {"pool2", DType::Float32},
      {"flatten", DType::Float16},    {"fc1_weight", DType::Float16},
      {"fc1_bias", DType::Float16},   {"residual", DType::Float16},
      {"add", DType::Float32}};
  EXPECT_EQ(casts(l), expected);
  EXPECT_EQ(l.counter("casts inserted"), expected.size());
  // The output keeps its dtype.
  EXPECT_EQ(value(l, "output").str(), "(float32[batch, 10],)");
}

TEST(Autocast, CnnWithoutExclusions) {
  const Graph input = cnn();
  Lowered l = run_autocast(input, {});
  expect_sound(input, l, 3);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_TRUE(high(l).empty());
  EXPECT_EQ(low(l).size(), 9u);
  EXPECT_EQ(dtype(l, "flatten"), DType::Float16);
  // Only the inputs, the weights and the output are cast.
  EXPECT_EQ(l.counter("casts inserted"), 9u);
}

// The largest difference between two graphs' float outputs on the same generated inputs (at the
// hints), relative to max(1, |value|) as --verify-numerics measures it.
double max_difference(const Graph& before, const Graph& after) {
  interp::RunResult a = interp::run(before), b = interp::run(after);
  if (!a.ok || !b.ok) throw std::runtime_error(a.ok ? b.error : a.error);
  double worst = 0;
  std::function<void(const interp::RValue&, const interp::RValue&)> walk =
      [&](const interp::RValue& x, const interp::RValue& y) {
        if (x.is_tensor()) {
          if (!y.is_tensor() || x.tensor.numel() != y.tensor.numel())
            throw std::runtime_error("outputs differ in shape");
          for (int64_t i = 0; i < x.tensor.numel(); ++i) {
            const double p = x.tensor.flat(i).as_double(), q = y.tensor.flat(i).as_double();
            worst = std::max(worst, std::abs(p - q) / std::max({1.0, std::abs(p), std::abs(q)}));
          }
        }
        for (size_t i = 0; i < x.items.size() && i < y.items.size(); ++i)
          walk(x.items[i], y.items[i]);
      };
  walk(a.output(), b.output());
  return worst;
}

TEST(Autocast, Bfloat16) {
  // bfloat16 keeps 8 significant bits: a 128-deep product is about 1% off and the CNN's five
  // layers about 3%, more than the 1e-2 the pass declares for --verify-numerics (which float16
  // meets); the numbers are checked here against bfloat16's own precision.
  Expected<Graph> mlp = read_graph_file((source_dir() / "examples/mlp.json").string());
  ASSERT_TRUE(mlp.ok()) << mlp.error();
  for (const Graph& g : {*mlp, cnn()}) {
    Lowered l = run_autocast(g, {{"low", "bfloat16"}}, false);
    ASSERT_TRUE(l.result.ok) << l.result.error;
    EXPECT_EQ(decisions(l)["low_dtype"], "bfloat16");
    EXPECT_TRUE(high(l).empty());
    EXPECT_EQ(l.guards, l.input_guards);
    const double d = max_difference(g, l.result.graph);
    EXPECT_GT(d, 0.0);
    EXPECT_LT(d, 5e-2);
  }
  Lowered cnn_bf16 = run_autocast(cnn(), {{"low", "bfloat16"}}, false);
  EXPECT_EQ(dtype(cnn_bf16, "fc1"), DType::BFloat16);
  EXPECT_EQ(value(cnn_bf16, "output").str(), "(float32[batch, 10],)");
}

TEST(Autocast, ExcludedOpWithoutOverloadCoversEveryOverload) {
  Lowered l = run_autocast(cnn(), {{"exclude-op", "aten.relu, aten.flatten"}}, false);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(high(l), (std::set<std::string>{"relu1", "relu2", "flatten"}));
  EXPECT_EQ(reasons(l, "flatten"),
            R"(["exclude-op: aten.flatten.using_ints matches aten.flatten"])");
}

// ---- magnitudes ----

TEST(Autocast, CalibrationFileKeepsTheNeighboursOfALargeValueHigh) {
  // relu1 recorded large: its input conv1 (relu1 is conv1's user) and its user pool1 stay high;
  // relu1 itself (small inputs, small users) runs low.
  const auto path = temp_file("autocast_calibration",
                              R"({"conv1": 4.5, "relu1": 1000, "pool1": 7.25, "conv2": 20})");
  const Graph input = cnn();
  Lowered l = run_autocast(input, {{"calibration", path.string()}});
  expect_sound(input, l, 3);
  EXPECT_EQ(high(l), (std::set<std::string>{"conv1", "pool1"}));
  EXPECT_EQ(reasons(l, "conv1"), R"(["magnitude: user relu1 has max-abs 1000.0 > 512.0"])");
  EXPECT_EQ(reasons(l, "pool1"), R"(["magnitude: input relu1 has max-abs 1000.0 > 512.0"])");
  EXPECT_EQ(l.counter("kept high: magnitude"), 2u);

  // A higher threshold keeps nothing.
  Lowered relaxed =
      run_autocast(input, {{"calibration", path.string()}, {"magnitude-threshold", "1000"}}, false);
  ASSERT_TRUE(relaxed.result.ok) << relaxed.result.error;
  EXPECT_TRUE(high(relaxed).empty());
  std::filesystem::remove(path);
}

TEST(Autocast, AValueBeyondTheLowTypeKeepsItsOwnNodeHigh) {
  const auto path = temp_file("autocast_overflow", R"({"pool2": 70000, "typo_node": 1})");
  Lowered l =
      run_autocast(cnn(), {{"calibration", path.string()}, {"magnitude-threshold", "1e6"}}, false);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(high(l), (std::set<std::string>{"pool2"}));
  EXPECT_NE(reasons(l, "pool2").find("exceeds float16's largest value 65504.0"), std::string::npos)
      << reasons(l, "pool2");
  EXPECT_EQ(l.counter("calibration entries naming no node"), 1u);
  // bfloat16 holds it.
  Lowered b = run_autocast(
      cnn(), {{"calibration", path.string()}, {"magnitude-threshold", "1e6"}, {"low", "bfloat16"}},
      false);
  ASSERT_TRUE(b.result.ok) << b.result.error;
  EXPECT_TRUE(high(b).empty());
  std::filesystem::remove(path);
}

TEST(Autocast, CalibrationByTheInterpreter) {
  // x in [-1, 1]; big = 2000 * x at most; the interpreter records it.
  const Graph input = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 32, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", 8]},
  {"name": "a", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 2.0]},
  {"name": "big", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "a"}, 1000.0]},
  {"name": "small", "op": "call_function", "target": "aten.div.Tensor", "args": [{"node": "big"}, 4000.0]},
  {"name": "out", "op": "call_function", "target": "aten.tanh.default", "args": [{"node": "small"}]},
  {"name": "output", "op": "output", "args": [{"node": "out"}]}]})");
  Lowered l = run_autocast(input, {{"calibrate", "true"}});
  expect_sound(input, l, 3);
  EXPECT_EQ(high(l), (std::set<std::string>{"a", "small"}));
  EXPECT_EQ(low(l), (std::set<std::string>{"big", "out"}));
  // Without calibration nothing is kept.
  Lowered plain = run_autocast(input, {});
  ASSERT_TRUE(plain.result.ok) << plain.result.error;
  EXPECT_TRUE(high(plain).empty());
}

// ---- integer and bool tensors ----

TEST(Autocast, IntegerAndBoolTensorsAreNeverCast) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 32, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", 2, 4, 4]},
  {"name": "table", "op": "placeholder", "dtype": "float32", "shape": [16, 8]},
  {"name": "ids", "op": "placeholder", "dtype": "int64", "shape": ["b", 4]},
  {"name": "rows", "op": "placeholder", "dtype": "int64", "shape": [2]},
  {"name": "index", "op": "placeholder", "dtype": "int64", "shape": ["b", 4, 8]},
  {"name": "mask", "op": "placeholder", "dtype": "bool", "shape": ["b", 4, 8]},
  {"name": "emb", "op": "call_function", "target": "aten.embedding.default", "args": [{"node": "table"}, {"node": "ids"}]},
  {"name": "picked", "op": "call_function", "target": "aten.index_select.default", "args": [{"node": "emb"}, 1, {"node": "rows"}]},
  {"name": "gathered", "op": "call_function", "target": "aten.gather.default", "args": [{"node": "emb"}, 1, {"node": "index"}]},
  {"name": "masked", "op": "call_function", "target": "aten.where.self", "args": [{"node": "mask"}, {"node": "gathered"}, {"node": "emb"}]},
  {"name": "pool", "op": "call_function", "target": "aten.max_pool2d_with_indices.default", "args": [{"node": "x"}, [2, 2], [2, 2]]},
  {"name": "pooled", "op": "call_function", "target": "operator.getitem", "args": [{"node": "pool"}, 0]},
  {"name": "where_max", "op": "call_function", "target": "operator.getitem", "args": [{"node": "pool"}, 1]},
  {"name": "n", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "masked"}, 0]},
  {"name": "flat", "op": "call_function", "target": "aten.view.default", "args": [{"node": "pooled"}, [{"node": "n"}, -1]]},
  {"name": "positive", "op": "call_function", "target": "aten.gt.Scalar", "args": [{"node": "masked"}, 0.0]},
  {"name": "output", "op": "output", "args": [[{"node": "picked"}, {"node": "masked"}, {"node": "flat"}, {"node": "positive"}, {"node": "ids"}]]}]})");
  Lowered l = run_autocast(g, {});
  expect_sound(g, l, 3);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  // Every cast takes a floating-point tensor.
  for (const auto& [from, to] : casts(l)) {
    EXPECT_TRUE(is_floating(dtype(l, from))) << from;
    EXPECT_NE(from, "ids");
    EXPECT_NE(from, "mask");
  }
  // The index tensors reach their ops as they were.
  const Node* emb = l.result.graph.find("emb");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(emb->args[1].text, "ids");
  EXPECT_EQ(l.result.graph.find("gathered")->args[2].text, "index");
  EXPECT_EQ(l.result.graph.find("masked")->args[0].text, "mask");
  EXPECT_EQ(l.result.graph.find("picked")->args[2].text, "rows");
  // getitem follows the pool: float16 values, int64 indices.
  EXPECT_EQ(dtype(l, "pooled"), DType::Float16);
  EXPECT_EQ(dtype(l, "where_max"), DType::Int64);
  EXPECT_EQ(dtype(l, "positive"), DType::Bool);
  EXPECT_EQ(value(l, "n").str(), "b");
  // The comparison is not a floating-point node: it takes masked back in float32.
  EXPECT_EQ(low(l), (std::set<std::string>{"emb", "picked", "gathered", "masked", "pool", "flat"}));
  EXPECT_EQ(value(l, "output").str(),
            "(float32[b, 2, 8], float32[b, 4, 8], float32[b, 8], bool[b, 4, 8], int64[b, 4])");
}

// ---- reduction depth ----

Graph mm_graph(const std::string& k_dim, const std::string& dims) {
  return parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 16, "hint": 4})" +
                     dims + R"(},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", )" +
                     k_dim + R"(]},
  {"name": "w", "op": "placeholder", "dtype": "float32", "shape": [)" +
                     k_dim + R"(, 4]},
  {"name": "mm", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "x"}, {"node": "w"}]},
  {"name": "relu", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "mm"}]},
  {"name": "output", "op": "output", "args": [{"node": "relu"}]}]})");
}

TEST(Autocast, ReductionDepthWithAConstantK) {
  const Graph g = mm_graph("64", "");
  Lowered deep = run_autocast(g, {{"max-reduction-depth", "32"}});
  expect_sound(g, deep, 3);
  EXPECT_EQ(high(deep), (std::set<std::string>{"mm"}));
  EXPECT_EQ(reasons(deep, "mm"), R"(["reduction depth: 64 > 32"])");
  Lowered fits = run_autocast(g, {{"max-reduction-depth", "64"}}, false);
  ASSERT_TRUE(fits.result.ok) << fits.result.error;
  EXPECT_TRUE(high(fits).empty());
}

TEST(Autocast, ReductionDepthWithASymbolicK) {
  // k <= 16 by its declared range: provably within 16, so low, with no guard.
  const Graph bounded = mm_graph(R"("k")", R"(, "k": {"min": 2, "max": 16, "hint": 8})");
  Lowered l = run_autocast(bounded, {{"max-reduction-depth", "16"}});
  expect_sound(bounded, l, 5);
  EXPECT_TRUE(high(l).empty());
  EXPECT_EQ(low(l), (std::set<std::string>{"mm", "relu"}));
  // A smaller limit: k may exceed it (the hint 8 does not, but no guard is taken on it).
  Lowered tight = run_autocast(bounded, {{"max-reduction-depth", "8"}});
  expect_sound(bounded, tight, 5);
  EXPECT_EQ(reasons(tight, "mm"), R"(["reduction depth: k (range [2, 16]) is not provably <= 8"])");
  // Unbounded k: high whatever the limit.
  const Graph unbounded = mm_graph(R"("k")", R"(, "k": {"min": 2, "hint": 8})");
  Lowered u = run_autocast(unbounded, {{"max-reduction-depth", "4096"}}, false);
  ASSERT_TRUE(u.result.ok) << u.result.error;
  EXPECT_EQ(reasons(u, "mm"), R"(["reduction depth: k (range [2, inf]) is not provably <= 4096"])");
  EXPECT_EQ(u.guards, u.input_guards);
}

TEST(Autocast, ReductionDepthOfConvolutionsLinearAndEinsum) {
  // conv1: 3 in-channels x 3x3 = 27; conv2: 8 x 3x3 = 72; fc1: 256.
  Lowered l = run_autocast(cnn(), {{"max-reduction-depth", "72"}}, false);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(high(l), (std::set<std::string>{"fc1"}));
  EXPECT_EQ(reasons(l, "fc1"), R"(["reduction depth: 256 > 72"])");
  Lowered tighter = run_autocast(cnn(), {{"max-reduction-depth", "71"}}, false);
  ASSERT_TRUE(tighter.result.ok) << tighter.result.error;
  EXPECT_EQ(high(tighter), (std::set<std::string>{"conv2", "fc1"}));

  const Graph e = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 16, "hint": 4}, "s": {"min": 2, "max": 64, "hint": 8}},
 "nodes": [
  {"name": "q", "op": "placeholder", "dtype": "float32", "shape": ["b", "s", 16]},
  {"name": "k", "op": "placeholder", "dtype": "float32", "shape": ["b", "s", 16]},
  {"name": "scores", "op": "call_function", "target": "aten.einsum.default", "args": ["bid,bjd->bij", [{"node": "q"}, {"node": "k"}]]},
  {"name": "mix", "op": "call_function", "target": "aten.einsum.default", "args": ["bij,bjd->bid", [{"node": "scores"}, {"node": "k"}]]},
  {"name": "output", "op": "output", "args": [{"node": "mix"}]}]})");
  // scores sums over d (16), mix over j (s, up to 64).
  Lowered el = run_autocast(e, {{"max-reduction-depth", "32"}});
  expect_sound(e, el, 5);
  EXPECT_EQ(high(el), (std::set<std::string>{"mix"}));
  EXPECT_EQ(reasons(el, "mix"), R"(["reduction depth: s (range [2, 64]) is not provably <= 32"])");
  Lowered eh = run_autocast(e, {{"max-reduction-depth", "64"}}, false);
  ASSERT_TRUE(eh.result.ok) << eh.result.error;
  EXPECT_TRUE(high(eh).empty());
}

// ---- regions, dtype arguments, sharing ----

TEST(Autocast, RegionsDtypeArgumentsAndSharedCasts) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 16, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", 8]},
  {"name": "a", "op": "call_function", "target": "aten.sigmoid.default", "args": [{"node": "x"}]},
  {"name": "b", "op": "call_function", "target": "aten.tanh.default", "args": [{"node": "x"}]},
  {"name": "c", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "a"}, {"node": "b"}]},
  {"name": "soft", "op": "call_function", "target": "aten._softmax.default", "args": [{"node": "c"}, -1, false], "autocast": "high"},
  {"name": "norm", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "c"}], "autocast": "high"},
  {"name": "up", "op": "call_function", "target": "aten._to_copy.default", "args": [{"node": "c"}], "kwargs": {"dtype": {"dtype": "float32"}}},
  {"name": "wide", "op": "call_function", "target": "aten._to_copy.default", "args": [{"node": "c"}], "kwargs": {"dtype": {"dtype": "float64"}}},
  {"name": "sum", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "soft"}, {"node": "norm"}]},
  {"name": "output", "op": "output", "args": [[{"node": "sum"}, {"node": "up"}, {"node": "wide"}]]}]})");
  Lowered l = run_autocast(g, {});
  expect_sound(g, l, 3);
  EXPECT_EQ(high(l), (std::set<std::string>{"soft", "norm", "up"}));
  EXPECT_EQ(reasons(l, "soft"), R"(["region: marked \"autocast\": \"high\""])");
  EXPECT_EQ(reasons(l, "up"), R"(["dtype argument: asks for float32"])");
  EXPECT_EQ(low(l), (std::set<std::string>{"a", "b", "c", "sum"}));
  // x is cast once for a and b; c once back for soft and norm (up converts it itself); sum's
  // inputs once each, and sum back for the output.
  const std::vector<std::pair<std::string, DType>> expected = {{"x", DType::Float16},
                                                               {"c", DType::Float32},
                                                               {"soft", DType::Float16},
                                                               {"norm", DType::Float16},
                                                               {"sum", DType::Float32}};
  EXPECT_EQ(casts(l), expected);
  // Conversions given a dtype (up, to float32, and wide, to float64, which is no float32 node)
  // read c in float16 as it comes: casting it back first would change nothing.
  EXPECT_EQ(l.result.graph.find("up")->args[0].text, "c");
  EXPECT_EQ(l.result.graph.find("wide")->args[0].text, "c");
  EXPECT_EQ(dtype(l, "wide"), DType::Float64);
  EXPECT_EQ(l.result.graph.find("norm")->args[0].text, "c_float32");
  EXPECT_EQ(l.result.graph.find("soft")->args[0].text, "c_float32");
  // The region key is kept on the node.
  EXPECT_EQ(l.result.graph.find("soft")->extra["autocast"], "high");
}

TEST(Autocast, DeclaredMetadataIsDroppedWhereTheDtypeChanged) {
  Expected<Graph> mlp = read_graph_file((source_dir() / "examples/mlp.json").string());
  ASSERT_TRUE(mlp.ok()) << mlp.error();
  Lowered l = run_autocast(*mlp, {});
  expect_sound(*mlp, l, 3);
  const Node* addmm = l.result.graph.find("addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_FALSE(addmm->dtype.has_value());
  EXPECT_EQ(dtype(l, "addmm"), DType::Float16);
  EXPECT_EQ(value(l, "output").str(), "(float32[batch, 64],)");
}

TEST(Autocast, RunningTwiceChangesNothingMore) {
  Lowered once = run_autocast(cnn(), {{"exclude-node", "relu"}}, false);
  ASSERT_TRUE(once.result.ok) << once.result.error;
  Lowered twice = run_autocast(once.result.graph, {{"exclude-node", "relu"}}, false);
  ASSERT_TRUE(twice.result.ok) << twice.result.error;
  EXPECT_EQ(twice.report().stats.inserted, 0u);
  // The float16 nodes are no float32 nodes any more; the casts back to float32 are kept as
  // written (their dtype argument), like the excluded relus.
  EXPECT_EQ(high(twice), (std::set<std::string>{"relu1", "relu2", "conv1_float32", "conv2_float32",
                                                "add_float32"}));
  EXPECT_TRUE(low(twice).empty());
}

TEST(Autocast, AnOpWhoseRuleRefusesTheLowTypeStaysHigh) {
  // A custom op whose rule takes float32 only: its casts are taken back and it stays float32.
  SchemaTable::define("autocast_test::f32_only(Tensor x) -> Tensor");
  OpRegistry ops = OpRegistry::instance();
  ops.add("autocast_test.f32_only", [](OpContext& ctx) {
    TensorMeta x = ctx.tensor("x");
    if (x.dtype != DType::Float32) ctx.bad_input("f32_only takes float32");
    return Value::of(x);
  });
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"b": {"min": 2, "max": 16, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", 8]},
  {"name": "a", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "f", "op": "call_function", "target": "autocast_test.f32_only", "args": [{"node": "a"}]},
  {"name": "c", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "f"}]},
  {"name": "output", "op": "output", "args": [{"node": "c"}]}]})");
  PassManagerOptions pm;
  pm.propagate.registry = &ops;
  PassManager manager(PassRegistry::standard(), pm);
  manager.add(PassSpec{"autocast", {}});
  ShapeEnv env;
  LowerResult r = manager.run(g, env);
  ASSERT_TRUE(r.ok) << r.error;
  Lowered l;
  l.result = r;
  EXPECT_EQ(high(l), (std::set<std::string>{"f"}));
  EXPECT_EQ(reasons(l, "f"),
            R"(["no float16 form: node f (autocast_test.f32_only): f32_only takes float32"])");
  EXPECT_EQ(l.counter("kept high: no low-precision form"), 1u);
  const std::vector<std::pair<std::string, DType>> expected = {
      {"x", DType::Float16}, {"a", DType::Float32}, {"f", DType::Float16}, {"c", DType::Float32}};
  EXPECT_EQ(casts(l), expected);
  EXPECT_EQ(dtype(l, "f"), DType::Float32);
}

// ---- errors ----

struct BadOption {
  Options options;
  std::string message;
};

TEST(Autocast, BadOptionsNameTheOption) {
  const auto malformed = temp_file("autocast_malformed", R"({"conv1": )");
  const auto list = temp_file("autocast_list", R"([1, 2])");
  const auto negative = temp_file("autocast_negative", R"({"conv1": -1})");
  const auto text = temp_file("autocast_text", R"({"conv1": "big"})");
  const std::vector<BadOption> cases = {
      {{{"low", "float33"}}, "option low: unknown dtype 'float33' (expected float16 or bfloat16)"},
      {{{"low", "float32"}}, "option low: float32 is not a low-precision type"},
      {{{"low", "float16\nbfloat16"}}, "option low: takes one value, got 2"},
      {{{"exclude-node", "conv(1"}}, "option exclude-node: invalid regex 'conv(1'"},
      {{{"exclude-op", "aten.flaten"}}, "option exclude-op: no op 'aten.flaten' has a shape rule"},
      {{{"magnitude-threshold", "-1"}},
       "option magnitude-threshold: expected a non-negative number"},
      {{{"max-reduction-depth", "4k"}},
       "option max-reduction-depth: expected `none` or a non-negative integer, got '4k'"},
      {{{"calibration", "/nonexistent/stats.json"}},
       "option calibration: cannot read the calibration file '/nonexistent/stats.json'"},
      {{{"calibration", malformed.string()}},
       "option calibration: " + malformed.string() + ": not valid JSON"},
      {{{"calibration", list.string()}}, "expected a JSON object of node names to max-abs values"},
      {{{"calibration", negative.string()}},
       "node 'conv1': expected a non-negative number, got -1"},
      {{{"calibration", text.string()}},
       "node 'conv1': expected a non-negative number, got \"big\""},
      {{{"calibration", negative.string()}, {"calibrate", "true"}}, "not both"},
      {{{"calibrate", "yes"}}, "option calibrate: takes true or false"},
  };
  const Graph g = cnn();
  for (const BadOption& c : cases) {
    Lowered l = run_autocast(g, c.options, false);
    EXPECT_FALSE(l.result.ok) << c.message;
    EXPECT_EQ(l.result.failed_pass, "autocast");
    EXPECT_NE(l.result.error.find(c.message), std::string::npos)
        << "expected: " << c.message << "\n got: " << l.result.error;
    EXPECT_EQ(l.result.error.rfind("pass autocast: ", 0), 0u) << l.result.error;
  }
  for (const auto& p : {malformed, list, negative, text}) std::filesystem::remove(p);
}

TEST(Autocast, FunctionalizesInPlaceWritesAndRefusesBadRegionMarks) {
  Lowered in_place = run_autocast(parse_graph(R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [4]},
  {"name": "y", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "z", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "y"}, 1.0]},
  {"name": "output", "op": "output", "args": [{"node": "y"}]}]})"),
                                  {}, true);
  // The write is made functional first (the output reads relu(x) + 1), then cast.
  ASSERT_TRUE(in_place.result.ok) << in_place.result.error;
  EXPECT_EQ(in_place.counter("writes made functional"), 1u);
  EXPECT_EQ(count_target(in_place.result.graph, "aten.add_.Tensor"), 0u);
  EXPECT_EQ(count_target(in_place.result.graph, "aten.add.Tensor"), 1u);

  Lowered mark = run_autocast(parse_graph(R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [4]},
  {"name": "y", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}], "autocast": "hi"},
  {"name": "output", "op": "output", "args": [{"node": "y"}]}]})"),
                              {}, false);
  EXPECT_FALSE(mark.result.ok);
  EXPECT_NE(
      mark.result.error.find("node y: key \"autocast\": expected \"high\" or \"auto\", got \"hi\""),
      std::string::npos)
      << mark.result.error;
}

TEST(Autocast, ListedWithItsOptions) {
  const Pass* p = PassRegistry::standard().find("autocast");
  ASSERT_NE(p, nullptr);
  std::set<std::string> names;
  for (const PassOption& o : p->options()) names.insert(o.name);
  EXPECT_EQ(names,
            (std::set<std::string>{"low", "exclude-node", "exclude-op", "magnitude-threshold",
                                   "calibration", "calibrate", "max-reduction-depth"}));
  EXPECT_DOUBLE_EQ(p->tolerance({{"low", "float16"}}), 1e-2);
  EXPECT_DOUBLE_EQ(p->tolerance({{"low", "bfloat16"}}), 8e-2);
  EXPECT_FALSE(p->may_add_guards());
}

}  // namespace
}  // namespace symshape::pass_test
