// Fallback partitioning: the partitions of a ResNet block and a GPT with a few ops the backend
// lacks are as few as the dependencies allow, each is a valid graph that propagates on its own,
// the seams keep the symbolic dims, and the partitioned program computes the graph's numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "symshape/partition.h"
#include "tests/passes/pass_test_util.h"

namespace symshape {
namespace {

using pass_test::parse_graph;
using pass_test::source_dir;

Graph example(const std::string& name) {
  Expected<Graph> g = read_graph_file((source_dir() / "examples" / (name + ".json")).string());
  if (!g) throw std::runtime_error(g.error());
  return *g;
}

// The supported set of examples/partition/supported.json: every op of the two examples except
// relu and gelu.
SupportedOps example_supported() {
  Expected<SupportedOps> ops =
      read_supported_ops_file((source_dir() / "examples/partition/supported.json").string());
  if (!ops) throw std::runtime_error(ops.error());
  return *ops;
}

PartitionedProgram split(const Graph& g, SupportedOps supported,
                         std::vector<std::string> fallback = {}, size_t min_block = 1) {
  PartitionOptions options;
  options.supported = std::move(supported);
  options.fallback_nodes = std::move(fallback);
  options.min_block_size = min_block;
  Expected<PartitionedProgram> p = partition_graph(g, options);
  if (!p) throw std::runtime_error(p.error());
  return *p;
}

std::vector<PartitionKind> kinds(const PartitionedProgram& p) {
  std::vector<PartitionKind> out;
  for (const Partition& part : p.partitions) out.push_back(part.kind);
  return out;
}

constexpr PartitionKind B = PartitionKind::Backend;
constexpr PartitionKind F = PartitionKind::Fallback;

std::vector<std::string> symbols_of(const Node& n) {
  std::set<std::string> out;
  if (n.shape) {
    for (const Expr& e : *n.shape)
      for (const std::string& s : e.free_symbols()) out.insert(s);
  }
  return {out.begin(), out.end()};
}

const Node& placeholder(const Partition& p, const std::string& name) {
  const Node* n = p.graph.find(name);
  if (!n || n->op != NodeOp::Placeholder) throw std::runtime_error("no placeholder " + name);
  return *n;
}

// What every partitioning promises: each partition reads back byte for byte, verifies and
// propagates on its own; it reads only graph inputs and earlier partitions' outputs; what it
// outputs has the metadata the whole graph gives that node; it mentions only the graph's
// symbols (its inputs' and declared dims); every compute node of the graph runs in exactly one
// partition.
void expect_valid(const Graph& g, const PartitionedProgram& program) {
  ShapeEnv whole_env;
  Propagation whole = propagate(g, whole_env);
  ASSERT_TRUE(whole.ok()) << whole.error;
  std::set<std::string> graph_symbols;
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::Placeholder) continue;
    for (const std::string& s : symbols_of(n)) graph_symbols.insert(s);
  }
  for (const auto& [name, d] : g.dims) graph_symbols.insert(name);
  std::multiset<std::string> ran;
  for (size_t i = 0; i < program.partitions.size(); ++i) {
    const Partition& p = program.partitions[i];
    SCOPED_TRACE(p.file);
    const std::string text = write_graph(p.graph);
    Expected<Graph> back = read_graph(text);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(write_graph(*back), text);
    EXPECT_FALSE(verify(*back).has_value());
    ShapeEnv env;
    Propagation prop = propagate(*back, env);
    ASSERT_TRUE(prop.ok()) << prop.error;
    EXPECT_FALSE(p.guards.empty());
    for (const PartitionInput& in : p.inputs) {
      if (in.partition) {
        EXPECT_LT(*in.partition, i) << in.name;
        const auto& outs = program.partitions[*in.partition].outputs;
        EXPECT_NE(std::find(outs.begin(), outs.end(), in.value), outs.end()) << in.name;
      }
    }
    for (size_t k = 0; k < p.graph.nodes.size(); ++k) {
      const Node& n = p.graph.nodes[k];
      for (const std::string& s : symbols_of(n)) {
        EXPECT_TRUE(graph_symbols.count(s)) << n.name << " invents symbol " << s;
      }
      const size_t at = g.index_of(n.name);
      if (n.op == NodeOp::CallFunction && at < g.nodes.size()) {
        EXPECT_EQ(prop.values[k].str(), whole.values[at].str()) << n.name;
      }
    }
    for (const std::string& n : p.nodes) ran.insert(n);
  }
  std::multiset<std::string> compute;
  for (const Node& n : g.nodes) {
    if (n.op == NodeOp::CallFunction && n.target != "operator.getitem" &&
        n.target.rfind("aten.sym_size", 0) != 0 && n.target != "operator.mul") {
      compute.insert(n.name);
    }
  }
  EXPECT_EQ(ran, compute);
}

// The partitioned program and the graph give equal numbers at these dims.
void expect_same_numbers(const Graph& g, const PartitionedProgram& program,
                         std::map<std::string, int64_t> dims) {
  interp::RunOptions options;
  options.dims = dims;
  options.seed = 7;
  Bindings used;
  std::optional<std::string> difference = compare_partitioned(g, program, options, &used);
  EXPECT_FALSE(difference.has_value()) << *difference;
  for (const auto& [name, v] : dims) EXPECT_EQ(used[name], Int(v)) << name;
}

// ---- ResNet ------------------------------------------------------------------------------------

// relu is not supported: relu (between bn1 and conv2) and relu_1 (the last op) fall back. relu
// lies on every path from x through conv1 to add, so the backend work before it and after it are
// two partitions, and relu_1 comes after add: backend, fallback, backend, fallback is the
// fewest. The downsample branch (convolution_2, bn3) reads only x and sinks to add's partition.
TEST(Partition, ResNetWithoutReluHasFourPartitions) {
  const Graph g = example("resnet_block");
  const PartitionedProgram p = split(g, example_supported());
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F, B, F}));
  EXPECT_EQ(p.partitions[0].nodes, (std::vector<std::string>{"convolution", "bn1"}));
  EXPECT_EQ(p.partitions[1].nodes, (std::vector<std::string>{"relu"}));
  EXPECT_EQ(p.partitions[2].nodes,
            (std::vector<std::string>{"convolution_1", "bn2", "convolution_2", "bn3", "add"}));
  EXPECT_EQ(p.partitions[3].nodes, (std::vector<std::string>{"relu_1"}));
  EXPECT_EQ(p.partitions[0].file, "part0_backend.json");
  EXPECT_EQ(p.partitions[1].file, "part1_fallback.json");
  expect_valid(g, p);

  // The seams keep the symbolic sizes: relu's input is the strided conv's output, whose
  // spatial sizes (h + 1)//2 do not determine h, so h and w come in size carriers.
  const Partition& relu = p.partitions[1];
  EXPECT_EQ(placeholder(relu, "getitem").shape->at(0).str(), "batch");
  EXPECT_EQ(placeholder(relu, "getitem").shape->at(2).str(), "(h + 1)//2");
  ASSERT_EQ(relu.inputs.size(), 3u);
  EXPECT_EQ(relu.inputs[1].carries, "h");
  EXPECT_EQ(relu.inputs[2].carries, "w");
  EXPECT_EQ(*relu.inputs[1].partition, 0u);
  EXPECT_EQ(placeholder(relu, "size_h").shape->at(0).str(), "h");
  EXPECT_EQ(*placeholder(relu, "size_h").dtype, DType::Int64);
  EXPECT_EQ(p.partitions[0].outputs, (std::vector<std::string>{"getitem", "size_h", "size_w"}));
  // The third reads x itself, which binds every dim: no carrier.
  for (const PartitionInput& in : p.partitions[2].inputs) EXPECT_EQ(in.carries, "") << in.name;
  EXPECT_EQ(p.output.kind, ProgramOutput::Kind::List);
  ASSERT_EQ(p.output.items.size(), 1u);
  EXPECT_EQ(p.output.items[0].partition, 3u);
  EXPECT_EQ(p.output.items[0].name, "relu_1");

  expect_same_numbers(g, p, {{"batch", 1}, {"h", 8}, {"w", 8}});
  // Odd sizes: (h + 1)//2 is the same for h = 9 and 10, so only the carrier makes h exact.
  expect_same_numbers(g, p, {{"batch", 2}, {"h", 9}, {"w", 11}});
}

TEST(Partition, FallbackNodeRegexTakesOnlyTheMiddleRelu) {
  const Graph g = example("resnet_block");
  SupportedOps ops = example_supported();
  ops.add("aten.relu");
  const PartitionedProgram p = split(g, ops, {"^relu$"});
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F, B}));
  EXPECT_EQ(p.partitions[1].nodes, (std::vector<std::string>{"relu"}));
  EXPECT_EQ(p.partitions[2].nodes.back(), "relu_1");
  expect_valid(g, p);
  expect_same_numbers(g, p, {{"batch", 1}, {"h", 9}, {"w", 8}});
  // Everything supported and nothing forced out: one backend partition, reading x alone.
  const PartitionedProgram one = split(g, ops);
  ASSERT_EQ(kinds(one), (std::vector<PartitionKind>{B}));
  EXPECT_EQ(one.partitions[0].inputs.size(), 1u);
}

// min-block-size 3: the first backend block (convolution, bn1) is too small and falls back; the
// work reorders into fallback (convolution, bn1, relu), backend (the five nodes up to add),
// fallback (relu_1). 6: the five-node block falls back too, and all merges into one.
TEST(Partition, MinBlockSizeFoldsSmallBackendBlocks) {
  const Graph g = example("resnet_block");
  const PartitionedProgram three = split(g, example_supported(), {}, 3);
  ASSERT_EQ(kinds(three), (std::vector<PartitionKind>{F, B, F}));
  EXPECT_EQ(three.partitions[0].nodes, (std::vector<std::string>{"convolution", "bn1", "relu"}));
  EXPECT_EQ(three.partitions[1].nodes.size(), 5u);
  expect_valid(g, three);
  expect_same_numbers(g, three, {{"batch", 2}, {"h", 8}, {"w", 9}});

  EXPECT_EQ(kinds(split(g, example_supported(), {}, 5)), (std::vector<PartitionKind>{F, B, F}));
  const PartitionedProgram all = split(g, example_supported(), {}, 6);
  ASSERT_EQ(kinds(all), (std::vector<PartitionKind>{F}));
  EXPECT_EQ(all.partitions[0].nodes.size(), 9u);
  EXPECT_TRUE(all.partitions[0].outputs == std::vector<std::string>{"relu_1"});
  expect_valid(g, all);
}

// ---- GPT ---------------------------------------------------------------------------------------

// gelu is not supported: each of the 8 blocks' MLPs has one, on the residual path, so the
// program alternates backend and fallback: 9 backend partitions around 8 single-gelu fallbacks.
TEST(Partition, GptWithoutGeluAlternatesAroundEachGelu) {
  const Graph g = example("gpt_small");
  const PartitionedProgram p = split(g, example_supported());
  ASSERT_EQ(p.partitions.size(), 17u);
  for (size_t i = 0; i < p.partitions.size(); ++i) {
    const Partition& part = p.partitions[i];
    EXPECT_EQ(part.kind, i % 2 == 0 ? B : F) << i;
    if (i % 2 == 1) {
      EXPECT_EQ(part.nodes, std::vector<std::string>{"h" + std::to_string(i / 2) + "_gelu"});
    }
  }
  expect_valid(g, p);

  // A gelu partition reads [batch*seq, 256]: batch*seq alone determines neither, so batch
  // comes in a carrier (from the first partition, which reads tokens) and seq follows.
  const Partition& gelu = p.partitions[1];
  const std::string fc = "h0_fc_addmm";
  EXPECT_EQ(placeholder(gelu, fc).shape->at(0).str(), "batch*seq");
  ASSERT_EQ(gelu.inputs.size(), 2u);
  EXPECT_EQ(gelu.inputs[1].carries, "batch");
  EXPECT_EQ(*gelu.inputs[1].partition, 0u);
  ASSERT_EQ(gelu.graph.dims.size(), 2u);
  EXPECT_EQ(gelu.graph.dims[0].first, "batch");
  EXPECT_EQ(gelu.graph.dims[1].first, "seq");

  // The next backend partition reads the residual [batch, seq, 64] and the gelu; the shape
  // arithmetic (sym_size of tokens, rows) is copied in, reading the residual's sizes.
  const Partition& next = p.partitions[2];
  EXPECT_EQ(symbols_of(placeholder(next, "h0_res1")), (std::vector<std::string>{"batch", "seq"}));
  const Node* size = next.graph.find("sym_size_batch");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->args[0].text, "h0_res1");
  EXPECT_NE(next.graph.find("rows"), nullptr);
  // Shape arithmetic is not compute: not listed, not counted.
  for (const std::string& n : p.partitions[0].nodes) EXPECT_NE(n, "sym_size_batch");

  expect_same_numbers(g, p, {{"batch", 2}, {"seq", 16}});
  expect_same_numbers(g, p, {{"batch", 3}, {"seq", 5}});
}

TEST(Partition, GptBlockForcedOutByName) {
  const Graph g = example("gpt_small");
  SupportedOps ops = example_supported();
  ops.add("aten.gelu");
  const PartitionedProgram p = split(g, ops, {"^h3_"});
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F, B}));
  for (const std::string& n : p.partitions[1].nodes) EXPECT_EQ(n.substr(0, 3), "h3_") << n;
  EXPECT_EQ(p.partitions[1].nodes.size(), 25u);
  // The weights' transposes of later blocks run next to their users, not in the first.
  for (const std::string& n : p.partitions[0].nodes) {
    for (const char* later : {"h4_", "h5_", "h6_", "h7_", "lm_"}) {
      EXPECT_NE(n.substr(0, 3), later) << n;
    }
  }
  expect_valid(g, p);
  expect_same_numbers(g, p, {{"batch", 1}, {"seq", 7}});
}

// ---- structure ---------------------------------------------------------------------------------

// a feeds both b (unsupported) and c; d joins them. Merging every supported node that touches
// another ({a, c, d}) would make a cycle with {b}: the order is a | b | c, d (c reads only a, so
// it moves next to its user d: a crosses instead of c).
TEST(Partition, DiamondWithUnsupportedMiddleHasNoCycle) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 1, "max": 64, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n", 3]},
  {"name": "a", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 2.0]},
  {"name": "b", "op": "call_function", "target": "aten.sin.default", "args": [{"node": "a"}]},
  {"name": "c", "op": "call_function", "target": "aten.cos.default", "args": [{"node": "a"}]},
  {"name": "d", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "b"}, {"node": "c"}]},
  {"name": "output", "op": "output", "args": [[{"node": "d"}]]}]})");
  const PartitionedProgram p = split(g, SupportedOps({"aten.mul", "aten.cos", "aten.add"}));
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F, B}));
  EXPECT_EQ(p.partitions[0].nodes, (std::vector<std::string>{"a"}));
  EXPECT_EQ(p.partitions[1].nodes, (std::vector<std::string>{"b"}));
  EXPECT_EQ(p.partitions[2].nodes, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(p.partitions[0].outputs, (std::vector<std::string>{"a"}));
  ASSERT_EQ(p.partitions[2].inputs.size(), 2u);
  EXPECT_EQ(p.partitions[2].inputs[0].name, "a");
  EXPECT_EQ(*p.partitions[2].inputs[0].partition, 0u);
  EXPECT_EQ(p.partitions[2].inputs[1].name, "b");
  EXPECT_EQ(*p.partitions[2].inputs[1].partition, 1u);
  expect_valid(g, p);
  expect_same_numbers(g, p, {{"n", 5}});
}

// The view after the fallback needs sizes of x, which that partition does not read: one is
// rewritten to a sym_size of the placeholder with the same size, the product folds to a literal.
// When no placeholder has the size, the value itself is written as a symbolic int and the
// symbol comes in a carrier.
TEST(Partition, ShapeArithmeticIsRewrittenOrWrittenAsLiterals) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"a": {"min": 2, "max": 16, "hint": 3}, "b": {"min": 2, "max": 16, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["a", "b"]},
  {"name": "s0", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "s1", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "m", "op": "call_function", "target": "operator.mul", "args": [{"node": "s0"}, {"node": "s1"}]},
  {"name": "e", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "x"}]},
  {"name": "f", "op": "call_function", "target": "aten.view.default", "args": [{"node": "e"}, [{"node": "m"}]]},
  {"name": "r", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "f"}]},
  {"name": "v", "op": "call_function", "target": "aten.view.default", "args": [{"node": "r"}, [{"node": "s0"}, {"node": "s1"}]]},
  {"name": "w", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "v"}]},
  {"name": "y", "op": "call_function", "target": "aten.view.default", "args": [{"node": "w"}, [{"node": "m"}]]},
  {"name": "output", "op": "output", "args": [[{"node": "y"}, {"node": "s1"}, {"node": "x"}]]}]})");
  const PartitionedProgram p = split(g, SupportedOps({"aten.exp", "aten.view"}));
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F, B, F, B}));
  expect_valid(g, p);
  // The second backend partition reads r [a*b]: s0 and s1 have no twin, so they are literals,
  // and a comes in a carrier (b then follows from a*b).
  const Partition& view = p.partitions[2];
  const Node* v = view.graph.find("v");
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->args[1].items.size(), 2u);
  EXPECT_EQ(v->args[1].items[0].kind, Arg::Kind::Int);
  EXPECT_EQ(v->args[1].items[0].integer.str(), "a");
  EXPECT_EQ(v->args[1].items[1].integer.str(), "b");
  EXPECT_EQ(view.graph.find("s0"), nullptr);
  ASSERT_EQ(view.inputs.size(), 2u);
  EXPECT_EQ(view.inputs[1].carries, "a");
  // The last reads w [a, b]: m is copied with its sym_sizes reading w.
  const Partition& last = p.partitions[4];
  ASSERT_NE(last.graph.find("m"), nullptr);
  EXPECT_EQ(last.graph.find("s0")->args[0].text, "w");
  EXPECT_EQ(last.graph.find("s1")->args[0].text, "w");
  // The program returns the int s1 from the last partition and x as the graph input.
  ASSERT_EQ(p.output.items.size(), 3u);
  EXPECT_EQ(p.output.items[1].kind, ProgramOutput::Kind::Partition);
  EXPECT_EQ(p.output.items[1].partition, 4u);
  EXPECT_EQ(p.output.items[2].kind, ProgramOutput::Kind::Input);
  expect_same_numbers(g, p, {{"a", 3}, {"b", 5}});
}

// y.mul_(2) writes a graph input: `add` must read y before it and `out` after it, though no
// data edge says so. The graph is made functional first: `out` reads mul(y, 2), and y gets its
// final value written back at the end, in a partition of its own.
TEST(Partition, InPlaceWritesAreMadeFunctionalFirst) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 2, "max": 64, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n", 3]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": ["n", 3]},
  {"name": "add", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "scale_y", "op": "call_function", "target": "aten.mul_.Tensor", "args": [{"node": "y"}, 2.0]},
  {"name": "out", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "add"}, {"node": "y"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}]]}]})");
  const PartitionedProgram p = split(g, SupportedOps({"aten.add"}));
  EXPECT_EQ(p.writes_functionalized, 1u);
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{F, B, F}));
  EXPECT_EQ(p.partitions[0].nodes, std::vector<std::string>{"mul"});
  EXPECT_EQ(p.partitions[1].nodes, (std::vector<std::string>{"add", "out"}));
  EXPECT_EQ(p.partitions[2].nodes, std::vector<std::string>{"y_write_back"});
  // Every node of the functional graph runs once.
  PassManager functionalize;
  functionalize.add("functionalize");
  ShapeEnv env;
  const LowerResult functional = functionalize.run(g, env);
  ASSERT_TRUE(functional.ok) << functional.error;
  expect_valid(functional.graph, p);
  expect_same_numbers(g, p, {{"n", 3}});
}

// A getitem of a literal list names a value and computes nothing: it runs wherever it is
// ready, and one of numbers is shape arithmetic.
TEST(Partition, GetitemOfALiteralListIsNotCompute) {
  const Graph g = pass_test::load_graph("lower_tuples");
  const PartitionedProgram p = split(g, SupportedOps({"aten.add"}));
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{B, F}));
  EXPECT_EQ(p.partitions[1].nodes, std::vector<std::string>{"head"});
  EXPECT_NE(p.partitions[1].graph.find("two"), nullptr);
  expect_same_numbers(g, p, {{"batch", 3}, {"seq", 5}});
}

// k is no input's size: the graph takes it from the dims (its hint, or the caller's value), and
// so does every partition; no carrier is made for it.
TEST(Partition, DimsNoInputDeterminesComeFromTheDims) {
  const Graph g = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 2, "max": 64, "hint": 4}, "k": {"min": 1, "max": 8, "hint": 3}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "r", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "f", "op": "call_function", "target": "aten.full.default", "args": [[{"expr": "k"}], 2.0]},
  {"name": "c", "op": "call_function", "target": "aten.cat.default", "args": [[{"node": "r"}, {"node": "f"}]]},
  {"name": "output", "op": "output", "args": [[{"node": "c"}]]}]})");
  const PartitionedProgram p = split(g, SupportedOps({"aten.full", "aten.cat"}));
  ASSERT_EQ(kinds(p), (std::vector<PartitionKind>{F, B}));
  EXPECT_EQ(p.partitions[1].nodes, (std::vector<std::string>{"f", "c"}));
  for (const PartitionInput& in : p.partitions[1].inputs) EXPECT_EQ(in.carries, "") << in.name;
  expect_valid(g, p);
  expect_same_numbers(g, p, {{"n", 5}, {"k", 2}});
  expect_same_numbers(g, p, {{"n", 3}});
}

// A partition with collectives simulates its ranks, but their values and constants differ per
// rank and a partition hands one value on: the runner refuses rather than compare the wrong
// numbers.
TEST(Partition, RunnerRefusesProgramsOverSeveralRanks) {
  const Graph g = example("tp_mlp");
  const PartitionedProgram p = split(g, SupportedOps({"aten.t", "aten.view"}));
  expect_valid(g, p);
  PartitionedRun r = run_partitioned(p);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("runs collectives on 4 ranks: the runner runs a partitioned program as "
                         "one process"),
            std::string::npos)
      << r.error;
}

TEST(Partition, WritesAManifestThatReadsBackAndRuns) {
  const Graph g = example("resnet_block");
  const PartitionedProgram p = split(g, example_supported());
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("symshape_partition_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  // A stale partition file from an earlier, longer program is removed.
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "part9_backend.json") << "{}"; }
  Expected<std::string> path = write_partitioned(p, dir.string());
  ASSERT_TRUE(path.ok()) << path.error();
  EXPECT_EQ(*path, (dir / "partitioned.json").string());
  EXPECT_FALSE(std::filesystem::exists(dir / "part9_backend.json"));
  for (const Partition& part : p.partitions) {
    EXPECT_EQ(pass_test::read_text(dir / part.file), write_graph(part.graph));
  }
  const std::string manifest = pass_test::read_text(*path);
  EXPECT_EQ(manifest, write_manifest(p));
  EXPECT_EQ(manifest.rfind("{\"format\": \"symshape-partitioned\", \"version\": 1,\n", 0), 0u);
  Expected<PartitionedProgram> back = read_partitioned(*path);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(write_manifest(*back), manifest);
  expect_same_numbers(g, *back, {{"batch", 1}, {"h", 10}, {"w", 8}});

  // A reader that checks what it reads: an input from a partition that runs later.
  std::string bad = manifest;
  const std::string from = "{\"partition\": 0, \"output\": \"getitem\"}";
  ASSERT_NE(bad.find(from), std::string::npos);
  bad.replace(bad.find(from), from.size(), "{\"partition\": 2, \"output\": \"add\"}");
  { std::ofstream(dir / "bad.json") << bad; }
  Expected<PartitionedProgram> refused = read_partitioned((dir / "bad.json").string());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("partitions[1].inputs[0].from: partition 2 does not run before "
                                 "this one"),
            std::string::npos)
      << refused.error();

  // Other manifests it refuses, each naming what is wrong.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1,", "line 1, column 4: syntax error"},
      {"[]", "top level: expected an object, got a list"},
      {"{\"format\": \"symshape-graph\", \"version\": 1}",
       "\"format\" must be \"symshape-partitioned\""},
      {"{\"format\": \"symshape-partitioned\", \"version\": 2}", "\"version\" must be 1"},
      {"{\"format\": \"symshape-partitioned\", \"version\": 1, \"inputs\": []}",
       "top level: missing \"partitions\""},
      {"{\"format\": \"symshape-partitioned\", \"version\": 1, \"inputs\": [], \"partitions\": "
       "[{\"kind\": \"gpu\", \"file\": \"part0_backend.json\"}], \"outputs\": []}",
       "partitions[0]: unknown kind 'gpu' (expected backend or fallback)"},
      {"{\"format\": \"symshape-partitioned\", \"version\": 1, \"inputs\": [], \"partitions\": "
       "[{\"kind\": \"backend\", \"file\": \"nope.json\"}], \"outputs\": []}",
       "nope.json: cannot open"},
      {"{\"format\": \"symshape-partitioned\", \"version\": 1, \"inputs\": [], \"partitions\": "
       "[{\"kind\": \"backend\", \"file\": \"part0_backend.json\", \"inputs\": [], "
       "\"outputs\": [\"getitem\", \"size_h\", \"size_w\"]}], \"outputs\": []}",
       "partitions[0]: \"inputs\" does not name part0_backend.json's placeholders in order"},
      {"{\"format\": \"symshape-partitioned\", \"version\": 1, \"inputs\": [], \"partitions\": "
       "[], \"outputs\": [{\"input\": \"x\"}]}",
       "outputs[0]: no program input is named 'x'"},
  };
  for (const auto& [text, message] : cases) {
    { std::ofstream(dir / "bad.json") << text; }
    Expected<PartitionedProgram> r = read_partitioned((dir / "bad.json").string());
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().find(message), std::string::npos) << text << "\n" << r.error();
  }
  std::filesystem::remove_all(dir);
}

// ---- errors ------------------------------------------------------------------------------------

TEST(Partition, ReportsWhatItCannotDo) {
  const Graph g = example("resnet_block");
  PartitionOptions options;
  options.fallback_nodes = {"relu("};
  Expected<PartitionedProgram> bad = partition_graph(g, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("bad fallback-node regex 'relu(': ", 0), 0u) << bad.error();

  // An int computed from a tensor's elements cannot cross a seam.
  const Graph item = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "int64", "shape": [3]},
  {"name": "s", "op": "call_function", "target": "aten.sum.default", "args": [{"node": "x"}]},
  {"name": "i", "op": "call_function", "target": "aten._local_scalar_dense.default", "args": [{"node": "s"}]},
  {"name": "y", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "i"}]},
  {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]})");
  options.fallback_nodes.clear();
  options.supported = SupportedOps({"aten.sum", "aten.add"});
  Expected<PartitionedProgram> crossing = partition_graph(item, options);
  ASSERT_FALSE(crossing.ok());
  EXPECT_NE(crossing.error().find("node 'i' (an int) is computed in partition 1 but node 'y' in "
                                  "partition 2 uses it: only tensors can cross a seam"),
            std::string::npos)
      << crossing.error();

  // A graph that does not propagate is refused with propagation's message.
  const Graph broken = parse_graph(R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [3]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": [4]},
  {"name": "z", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "output", "op": "output", "args": [[{"node": "z"}]]}]})");
  Expected<PartitionedProgram> refused = partition_graph(broken, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("node z"), std::string::npos) << refused.error();
}

TEST(SupportedOps, ReadsListsAndObjectsAndMatchesPackets) {
  Expected<SupportedOps> list = parse_supported_ops(R"(["aten.mm", "aten.add.Tensor"])");
  ASSERT_TRUE(list.ok()) << list.error();
  EXPECT_TRUE(list->contains("aten.mm.default"));
  EXPECT_TRUE(list->contains("aten.mm"));
  EXPECT_TRUE(list->contains("aten.add.Tensor"));
  EXPECT_FALSE(list->contains("aten.add.Scalar"));
  EXPECT_FALSE(list->contains("aten.add_.Tensor"));
  EXPECT_FALSE(list->contains("aten.mmm.default"));
  Expected<SupportedOps> object = parse_supported_ops(R"({"backend": "x", "ops": ["aten.relu"]})");
  ASSERT_TRUE(object.ok()) << object.error();
  EXPECT_EQ(object->names(), std::vector<std::string>{"aten.relu"});
  Expected<SupportedOps> listed = parse_supported_ops_list(" aten.mm, aten.relu,,aten.mm ");
  ASSERT_TRUE(listed.ok()) << listed.error();
  EXPECT_EQ(listed->names(), (std::vector<std::string>{"aten.mm", "aten.relu"}));

  EXPECT_EQ(parse_supported_ops(R"(["aten.mm", 3])").error(),
            "[1]: expected an op name string, got a number");
  EXPECT_EQ(parse_supported_ops(R"({"ops": ["aten.mm", ""]})").error(), "ops[1]: an empty op name");
  EXPECT_EQ(parse_supported_ops(R"({"op": []})").error(), "top level: missing \"ops\"");
  EXPECT_EQ(parse_supported_ops(R"("aten.mm")").error(),
            "top level: expected a list of op names (or an object with \"ops\"), got a string");
  EXPECT_EQ(parse_supported_ops(R"(["aten mm"])").error(), "[0]: op name 'aten mm' holds a space");
  EXPECT_EQ(parse_supported_ops("[\"aten.mm\"").error(),
            "line 1, column 11: syntax error while parsing array - unexpected end of input; "
            "expected ']'");
  Expected<SupportedOps> missing = read_supported_ops_file("/nonexistent/ops.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().rfind("/nonexistent/ops.json: cannot open", 0), 0u) << missing.error();
}

}  // namespace
}  // namespace symshape
