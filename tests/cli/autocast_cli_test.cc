// End-to-end: `symshape lower --passes autocast` with the pass's options given as flags
// (--autocast-low, --autocast-exclude-node, ...), on the CNN of examples/autocast_cnn.json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "symshape/ir.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& stem, const std::string& text) {
  const fs::path path =
      fs::temp_directory_path() / (stem + "_" + std::to_string(getpid()) + ".json");
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::set<std::string> high_nodes(const Graph& g) {
  std::set<std::string> out;
  for (auto it = g.extra["autocast"]["high"].begin(); it != g.extra["autocast"]["high"].end(); ++it)
    out.insert(it.key());
  return out;
}

std::set<std::string> low_nodes(const Graph& g) {
  std::set<std::string> out;
  for (const auto& n : g.extra["autocast"]["low"]) out.insert(n.get<std::string>());
  return out;
}

TEST(AutocastCli, TheIssueCommandOnTheCnn) {
  // Recorded magnitudes all below the threshold: they keep nothing high.
  const fs::path stats = write_temp(
      "autocast_stats", R"({"x": 1.0, "conv1": 3.1, "relu1": 3.1, "pool1": 3.1, "conv2": 9.5,
 "relu2": 9.5, "pool2": 9.5, "flatten": 9.5, "fc1": 41.0, "add": 41.5})");
  CliResult r = run_lower(
      {"examples/autocast_cnn.json", "--passes", "autocast", "--autocast-low=float16",
       "--autocast-exclude-node=^conv1$", "--autocast-exclude-node", "relu",
       "--autocast-exclude-op=aten.flatten.using_ints", "--autocast-calibration=" + stats.string(),
       "--autocast-max-reduction-depth=4096", "--verify-numerics", "-o", "-"});
  fs::remove(stats);
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  Expected<Graph> g = read_graph(r.out);
  ASSERT_TRUE(g.ok()) << g.error() << "\n" << r.out;
  EXPECT_EQ(write_graph(*g), r.out);
  EXPECT_EQ(high_nodes(*g), (std::set<std::string>{"conv1", "relu1", "relu2", "flatten"}));
  EXPECT_EQ(low_nodes(*g), (std::set<std::string>{"pool1", "conv2", "pool2", "fc1", "add"}));
  expect_golden("passes/autocast_cnn.lower.json", r.out);
  // The report (on stderr with -o -): the counters, and the numbers checked at three sizes.
  for (const char* part :
       {"autocast  18 -> 29 nodes (11 inserted, 0 erased, 8 rewritten), casts inserted: 11, "
        "high-precision nodes: 4, kept high: exclude-node: 3, kept high: exclude-op: 1, "
        "low-precision nodes: 5, numerics checked in 3 runs",
        "total: 18 -> 29 nodes"}) {
    EXPECT_NE(r.err.find(part), std::string::npos) << part << "\n" << r.err;
  }
  // The lowered graph is a graph like any other: check accepts it with batch still symbolic.
  const fs::path out = write_temp("autocast_out", r.out);
  CliResult check = run_in_root({"check", out.string()});
  fs::remove(out);
  EXPECT_EQ(check.exit_code, 0) << result_text(check);
  EXPECT_NE(check.out.find("float16[batch, 10]"), std::string::npos) << check.out;
}

TEST(AutocastCli, FlagsAndBracesSetTheSameOptions) {
  CliResult braces = run_lower(
      {"examples/autocast_cnn.json", "--passes",
       "autocast{low=bfloat16;exclude-node=^conv1$|relu;exclude-op=aten.flatten}", "-o", "-"});
  CliResult flags = run_lower({"examples/autocast_cnn.json", "--passes", "autocast",
                               "--autocast-low", "bfloat16", "--autocast-exclude-node=^conv1$|relu",
                               "--autocast-exclude-op=aten.flatten", "-o", "-"});
  ASSERT_EQ(braces.exit_code, 0) << result_text(braces);
  ASSERT_EQ(flags.exit_code, 0) << result_text(flags);
  EXPECT_EQ(braces.out, flags.out);
  Expected<Graph> g = read_graph(flags.out);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(high_nodes(*g), (std::set<std::string>{"conv1", "relu1", "relu2", "flatten"}));
  EXPECT_EQ(g->extra["autocast"]["low_dtype"], "bfloat16");
}

TEST(AutocastCli, OptionFlagErrors) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--passes", "autocast", "--autocast-lowe=float16"},
       2,
       "symshape: error: unknown flag '--autocast-lowe': pass 'autocast' has no option 'lowe' "
       "(options: low, exclude-node, exclude-op, magnitude-threshold, calibration, calibrate, "
       "max-reduction-depth)\n"},
      {{"--passes", "autocast", "--autocst-low=float16"},
       2,
       "symshape: error: unknown flag '--autocst-low' (not a flag of lower; pass options are "
       "--PASS-OPTION, known passes: autocast, "},
      {{"--passes", "dce", "--autocast-low=float16"},
       2,
       "symshape: error: --autocast-low sets an option of pass 'autocast', which is not among "
       "the passes run\n"},
      {{"--passes", "autocast{low=float16}", "--autocast-low=bfloat16"},
       2,
       "symshape: error: option 'low' of pass 'autocast' is given both in the pass list and as "
       "--autocast-low\n"},
      {{"--passes", "autocast", "--autocast-low"},
       2,
       "symshape: error: flag '--autocast-low' needs a value (option 'low' of pass 'autocast')\n"},
      {{"--passes", "autocast", "--autocast-low=float33"},
       2,
       "symshape: error: pass autocast: option low: unknown dtype 'float33' (expected float16 or "
       "bfloat16)\n"},
      {{"--passes", "autocast", "--autocast-low=float16", "--autocast-low=bfloat16"},
       2,
       "symshape: error: pass autocast: option low: takes one value, got 2\n"},
      {{"--passes", "autocast", "--autocast-exclude-node=conv(1"},
       2,
       "symshape: error: pass autocast: option exclude-node: invalid regex 'conv(1': "},
      {{"--passes", "autocast", "--autocast-calibration=no_such_stats.json"},
       2,
       "symshape: error: pass autocast: option calibration: cannot read the calibration file "
       "'no_such_stats.json'\n"},
      {{"--frobnicate"}, 2, "symshape: error: unknown flag '--frobnicate' (not a flag of lower"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"examples/autocast_cnn.json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CliResult r = run_lower(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << result_text(r);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.substr(0, c.message.size()), c.message) << result_text(r);
  }
}

TEST(AutocastCli, AnotherPassTakesOptionFlagsToo) {
  // complex-rewrite's matmul option as a flag, with the pass in a pipeline of several.
  CliResult r = run_lower({"examples/llama_attention.json", "--passes", "complex-rewrite,cse,dce",
                           "--complex-rewrite-matmul=gauss", "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  CliResult braces = run_lower({"examples/llama_attention.json", "--passes",
                                "complex-rewrite{matmul=gauss},cse,dce", "-o", "-"});
  ASSERT_EQ(braces.exit_code, 0) << result_text(braces);
  EXPECT_EQ(r.out, braces.out);
  CliResult bad = run_lower({"examples/llama_attention.json", "--passes", "complex-rewrite",
                             "--complex-rewrite-matmul=three"});
  EXPECT_EQ(bad.exit_code, 2);  // a refused option value is bad input
  EXPECT_NE(bad.err.find("option matmul: must be `four` or `gauss`, got 'three'"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace symshape::cli_test
