// Shape propagation over whole graphs, through the library: the example models and the small
// graphs in tests/propagate/graphs (whose CLI output tests/cli/check_cli_test.cc compares with
// golden files). These check what a library user reads off the result: statuses, the failing
// node, guards with their provenance, replacements, runtime asserts and unbacked symbols.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/ir.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"
#include "tests/propagate/propagate_test_util.h"

namespace symshape {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = SYMSHAPE_SOURCE_DIR;

using propagate_test::read_text;

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Graph load(const std::string& relative) {
  Expected<Graph> g = read_graph_file((kSourceDir / relative).string());
  EXPECT_TRUE(g.ok()) << g.error();
  return g.ok() ? std::move(g).value() : Graph{};
}

// The value each node produced, by name.
std::string value_of(const Graph& g, const Propagation& p, const std::string& name) {
  size_t i = g.index_of(name);
  return i < p.values.size() ? p.values[i].str() : "<no node " + name + ">";
}

// Every graph file is already in the writer's canonical layout, so that a graph written back by
// a tool compares equal to the file.
TEST(GraphFiles, AreCanonical) {
  for (const fs::path& dir : {kSourceDir / "examples", kSourceDir / "tests/propagate/graphs"}) {
    for (const fs::path& file : json_files(dir)) {
      const std::string text = read_text(file);
      Expected<Graph> g = read_graph(text);
      if (!g) continue;  // the graphs that test reader errors
      EXPECT_EQ(write_graph(*g), text) << file;
    }
  }
}

// The example models type-check for every size their dims allow: no guard, no assert.
TEST(ExampleGraphs, PropagateWithoutGuards) {
  for (const fs::path& file : json_files(kSourceDir / "examples")) {
    Expected<Graph> g = read_graph_file(file.string());
    ASSERT_TRUE(g.ok()) << g.error();
    ShapeEnv env;
    Propagation p = propagate(*g, env);
    EXPECT_TRUE(p.ok()) << file << ": " << p.error;
    EXPECT_TRUE(env.guards().empty()) << file << ": " << env.guards()[0].cond.str();
    EXPECT_TRUE(env.runtime_asserts().empty()) << file;
  }
}

TEST(ExampleGraphs, ResnetStrideTwoConvolutionHalvesRoundingUp) {
  Graph g = load("examples/resnet_block.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  // (h + 2*1 - 1*(3 - 1) - 1)//2 + 1 for the 3x3 conv, (h - 1)//2 + 1 for the 1x1 shortcut.
  EXPECT_EQ(value_of(g, p, "convolution"), "float32[batch, 128, (h + 1)//2, (w + 1)//2]");
  EXPECT_EQ(value_of(g, p, "convolution_2"), "float32[batch, 128, (h + 1)//2, (w + 1)//2]");
  EXPECT_EQ(value_of(g, p, "relu_1"), "float32[batch, 128, (h + 1)//2, (w + 1)//2]");
}

TEST(ExampleGraphs, TensorParallelCollectivesScaleDimZeroByTheGroupSize) {
  Graph g = load("examples/tp_mlp.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(value_of(g, p, "gathered"), "bfloat16[W*seq_shard, batch, 1024]");
  EXPECT_EQ(value_of(g, p, "out"), "bfloat16[seq_shard, batch, 1024]");
}

TEST(ExampleGraphs, RotaryEmbeddingGoesThroughComplexAndBack) {
  Graph g = load("examples/llama_attention.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(value_of(g, p, "xq_c"), "complex64[batch, seq, 4, 32]");
  EXPECT_EQ(value_of(g, p, "q_rot"), "complex64[batch, seq, 4, 32]");
  EXPECT_EQ(value_of(g, p, "q_out"), "float32[batch, seq, 4, 64]");
  EXPECT_EQ(value_of(g, p, "scores"), "float32[batch, 4, seq, seq]");
  EXPECT_EQ(value_of(g, p, "out"), "float32[batch, seq, 256]");
}

TEST(PropagateGraphs, BroadcastingTwoDimsGuardsTheirEqualityAndKeepsOne) {
  Graph g = load("tests/propagate/graphs/broadcast_two_dims.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].cond.str(), "a == b");
  EXPECT_EQ(env.guards()[0].where.node, "add");
  EXPECT_EQ(env.guards()[0].where.op, "aten.add.Tensor");
  EXPECT_EQ(env.guards()[0].where.rule, "broadcast");
  ASSERT_EQ(env.replacements().count("b"), 1u);
  EXPECT_EQ(env.replacements().at("b").str(), "a");
  EXPECT_EQ(value_of(g, p, "mul"), "float32[a, 4]");
}

TEST(PropagateGraphs, BroadcastingAgainstAConstantSpecializes) {
  Graph g = load("tests/propagate/graphs/specialize_constant.json");
  ShapeEnvOptions options;
  options.log = true;
  ShapeEnv env(options);
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].cond.str(), "s == 8");
  EXPECT_EQ(env.replacements().at("s").str(), "8");
  EXPECT_EQ(env.log().back(), "specialize s := 8");
  EXPECT_EQ(env.simplify(Expr::symbol("s") * 2).str(), "16");
}

TEST(PropagateGraphs, NonzeroCreatesAnUnbackedSizeWithARuntimeAssert) {
  Graph g = load("tests/propagate/graphs/nonzero_unbacked.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(value_of(g, p, "nonzero"), "int64[u0, 2]");
  const SymbolInfo& u0 = env.symbol("u0");
  EXPECT_EQ(u0.kind, SymbolKind::Unbacked);
  EXPECT_TRUE(u0.size_like);
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.runtime_asserts()[0].cond.str(), "u0 <= 4*n");
  EXPECT_EQ(env.runtime_asserts()[0].where.node, "nonzero");
  EXPECT_TRUE(env.guards().empty());
}

TEST(PropagateGraphs, AShapeErrorNamesTheNodeAndKeepsTheValuesBeforeIt) {
  Graph g = load("tests/propagate/graphs/broadcast_error.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  EXPECT_EQ(p.status, Propagation::Status::ShapeError);
  EXPECT_EQ(p.error,
            "node add_3 (aten.add.Tensor): cannot broadcast [a, 4] with [a, 5] at dim 1 (4 != 5)");
  ASSERT_EQ(p.failed_node, g.index_of("add_3"));
  EXPECT_EQ(p.values.size(), g.nodes.size());
  EXPECT_EQ(value_of(g, p, "relu"), "float32[a, 4]");
  for (size_t i = p.failed_node; i < p.values.size(); ++i) {
    EXPECT_EQ(p.values[i].kind, Value::Kind::None) << g.nodes[i].name;
  }
}

TEST(PropagateGraphs, VerifierErrorsAreReportedAsTheVerifierWordsThem) {
  struct Case {
    const char* file;
    const char* error;
  };
  for (const Case& c : {
           Case{"dangling_reference", "node 'relu': arg 0 refers to 'nope', which is not defined"},
           Case{"forward_reference",
                "node 'a': arg 1 refers to 'b' before it is defined (a cycle or wrong order)"},
           Case{"negative_size", "node 'x': shape[1] is negative (-3)"},
       }) {
    Graph g = load(std::string("tests/propagate/graphs/") + c.file + ".json");
    ShapeEnv env;
    Propagation p = propagate(g, env);
    EXPECT_EQ(p.status, Propagation::Status::InputError) << c.file;
    EXPECT_EQ(p.error, c.error);
    EXPECT_EQ(p.failed_node, 0u);
  }
}

TEST(PropagateGraphs, DimOverridesChangeWhatSliceClampingCanDrop) {
  Graph g = load("tests/propagate/graphs/slice_clamp.json");
  {
    ShapeEnv env;
    Propagation p = propagate(g, env);
    ASSERT_TRUE(p.ok()) << p.error;
    // m may be below or above 100: the end stays a min.
    EXPECT_EQ(value_of(g, p, "unbounded"), "float32[n, min(100, m), 10]");
    EXPECT_EQ(value_of(g, p, "past_end"), "float32[n, m, 7]");
    EXPECT_EQ(value_of(g, p, "stepped"), "float32[n, m, 3]");
  }
  {
    PropagateOptions options;
    options.dims["m"] = DimDecl{Int(2), Int(50), Int(16)};
    ShapeEnv env;
    Propagation p = propagate(g, env, options);
    ASSERT_TRUE(p.ok()) << p.error;
    EXPECT_EQ(value_of(g, p, "unbounded"), "float32[n, m, 10]");
    EXPECT_TRUE(env.guards().empty());
  }
}

TEST(PropagateGraphs, ADataDependentDecisionIsAShapeErrorNotAGuess) {
  Graph g = load("tests/propagate/graphs/data_dependent_error.json");
  ShapeEnv env;
  Propagation p = propagate(g, env);
  EXPECT_EQ(p.status, Propagation::Status::ShapeError);
  EXPECT_NE(p.error.find("could not guard on data-dependent expression"), std::string::npos)
      << p.error;
  EXPECT_EQ(p.failed_node, g.index_of("split"));
  EXPECT_TRUE(env.guards().empty());
}

}  // namespace
}  // namespace symshape
