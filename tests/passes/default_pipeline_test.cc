// The default pipeline on every graph in examples/: it succeeds under every check, adds no guard,
// keeps every symbolic dim of the inputs, and leaves a graph that lowers to itself (its numbers
// are checked by traced_models_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

std::vector<std::string> example_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "examples")) {
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> default_passes() {
  return PassRegistry::standard().pipeline("default")->passes;
}

class DefaultPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(DefaultPipeline, AddsNoGuardAndKeepsEverySymbol) {
  Expected<Graph> g =
      read_graph_file((source_dir() / "examples" / (GetParam() + ".json")).string());
  ASSERT_TRUE(g.ok()) << g.error();
  Lowered l = lower(*g, default_passes(), false);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  EXPECT_EQ(l.guards, l.input_guards);
  EXPECT_EQ(placeholder_symbols(l.result.graph), placeholder_symbols(*g));
  EXPECT_LE(l.result.graph.nodes.size(), g->nodes.size() + 1);
  // A fixed point: lowering the result again changes nothing.
  Lowered again = lower(l.result.graph, default_passes(), false);
  ASSERT_TRUE(again.result.ok) << again.result.error;
  for (const PassReport& r : again.result.reports) EXPECT_FALSE(r.stats.changed()) << r.pass;
}

INSTANTIATE_TEST_SUITE_P(Examples, DefaultPipeline, ::testing::ValuesIn(example_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace symshape::pass_test
