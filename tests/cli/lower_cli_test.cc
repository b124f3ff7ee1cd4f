// End-to-end tests of `symshape lower` and `symshape passes`: the report, the lowered graph on
// stdout or in a file (which `check` accepts), the JSON report, and the errors a user meets.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/passes.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

// The report with its times (which vary from run to run) written as `<t> ms`.
std::string without_times(const std::string& report) {
  return std::regex_replace(report, std::regex("[0-9]+\\.[0-9]{3} ms"), "<t> ms");
}

fs::path temp_path(const std::string& stem) {
  return fs::temp_directory_path() / (stem + "_" + std::to_string(getpid()) + ".json");
}

TEST(LowerCli, PrintsTheReportOfTheDefaultPipeline) {
  CliResult r = run_lower({"examples/cleanup_demo.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  expect_golden("passes/cleanup_demo.lower.txt", without_times(r.out));
  // One line per pass of the pipeline, then the total.
  for (const std::string& p : PassRegistry::standard().pipeline("default")->passes) {
    EXPECT_NE(("\n" + r.out).find("\n" + p + " "), std::string::npos) << p;
  }
  EXPECT_NE(r.out.find("\ntotal: 18 -> 13 nodes in "), std::string::npos) << r.out;
}

TEST(LowerCli, OutputFileRoundTripsThroughCheck) {
  const fs::path out = temp_path("symshape_lower_out");
  CliResult r = run_lower({"examples/cleanup_demo.json", "-o", out.string(), "--verify-numerics"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("numerics checked in"), std::string::npos) << r.out;
  Expected<Graph> lowered = read_graph_file(out.string());
  ASSERT_TRUE(lowered.ok()) << lowered.error();
  // Canonical: written back byte for byte.
  EXPECT_EQ(write_graph(*lowered), read_text(out));
  CliResult check = run_in_root({"check", out.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  // Lowering the lowered graph again changes nothing.
  CliResult again = run_lower({out.string(), "-o", "-"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, read_text(out));
  size_t unchanged = 0;
  for (size_t at = again.err.find("no change"); at != std::string::npos;
       at = again.err.find("no change", at + 1)) {
    ++unchanged;
  }
  EXPECT_EQ(unchanged, PassRegistry::standard().pipeline("default")->passes.size()) << again.err;
  fs::remove(out);
}

// --verify-numerics runs under a memory budget as `run` does (--memory-budget, the same
// default): a graph it cannot hold fails the pass naming the tensor, rather than passing
// unverified.
TEST(LowerCli, VerifyNumericsHasAMemoryBudget) {
  CliResult r = run_lower(
      {"examples/cleanup_demo.json", "--verify-numerics", "--memory-budget", "64", "-o", "-"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("--verify-numerics cannot run the graph before it at the hints"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("a tensor [a-z0-9]+\\[[0-9, ]*\\] is too "
                                                  "large for the interpreter")))
      << r.err;
  EXPECT_NE(r.err.find("memory budget of 64 bytes"), std::string::npos) << r.err;
  // The default holds it; a bad value is a usage error.
  CliResult ok = run_lower({"examples/cleanup_demo.json", "--verify-numerics", "-o", "-"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  CliResult bad = run_lower({"examples/cleanup_demo.json", "--memory-budget", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--memory-budget"), std::string::npos) << bad.err;
}

TEST(LowerCli, DashWritesTheGraphToStdoutAndTheReportToStderr) {
  CliResult r = run_lower({"examples/mlp.json", "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Expected<Graph> g = read_graph(r.out);
  ASSERT_TRUE(g.ok()) << g.error() << "\n" << r.out;
  EXPECT_EQ(write_graph(*g), r.out);
  EXPECT_NE(r.err.find("total: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("total: "), std::string::npos);
}

TEST(LowerCli, JsonReport) {
  CliResult r = run_lower({"examples/llama_attention.json", "--json", "--passes", "cse,dce"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  ASSERT_EQ(j["passes"].size(), 2u);
  EXPECT_EQ(j["passes"][0]["pass"], "cse");
  EXPECT_EQ(j["passes"][1]["pass"], "dce");
  for (const auto& p : j["passes"]) {
    for (const char* key : {"changed", "nodes_before", "nodes_after", "inserted", "erased",
                            "rewritten", "counters", "guards_added", "numeric_runs", "seconds"}) {
      EXPECT_TRUE(p.contains(key)) << key;
    }
    EXPECT_TRUE(p["guards_added"].empty());
  }
}

TEST(LowerCli, VerifyNumericsReadsGivenInputsAndRunsAtTheSizesTheyBind) {
  const fs::path dir =
      fs::temp_directory_path() / ("symshape_lower_inputs_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // x at batch 2 and seq 8 (the hints are 4 and 16), and the constant w.
  interp::write_npy((dir / "x.npy").string(), interp::Tensor::zeros(DType::Float32, {2, 8, 32}));
  interp::write_npy((dir / "w.npy").string(), interp::Tensor::zeros(DType::Float32, {32, 32}));
  CliResult generated = run_lower({"examples/cleanup_demo.json", "--verify-numerics", "--json"});
  CliResult given = run_lower(
      {"examples/cleanup_demo.json", "--verify-numerics", "--json", "--inputs", dir.string()});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const nlohmann::json a = nlohmann::json::parse(generated.out);
  const nlohmann::json b = nlohmann::json::parse(given.out);
  ASSERT_EQ(a["passes"].size(), b["passes"].size());
  size_t checked = 0;
  for (size_t i = 0; i < a["passes"].size(); ++i) {
    if (!a["passes"][i]["changed"]) continue;
    ++checked;
    // Generated: the hints, two more batches and two more seqs. Given: x binds batch 2 and
    // seq 8, so one run.
    EXPECT_EQ(a["passes"][i]["numeric_runs"], 5) << a["passes"][i];
    EXPECT_EQ(b["passes"][i]["numeric_runs"], 1) << b["passes"][i];
  }
  EXPECT_GT(checked, 0u);

  // An x that fits no size: nothing is compared, and that is an error, not a pass verified.
  interp::write_npy((dir / "x.npy").string(), interp::Tensor::zeros(DType::Float32, {2, 8, 31}));
  CliResult unfit =
      run_lower({"examples/cleanup_demo.json", "--verify-numerics", "--inputs", dir.string()});
  EXPECT_EQ(unfit.exit_code, 1);
  EXPECT_NE(unfit.err.find("--verify-numerics: the graph before it does not run on the given "
                           "inputs (at the hints: "),
            std::string::npos)
      << unfit.err;

  CliResult alone = run_lower({"examples/cleanup_demo.json", "--inputs", dir.string()});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--inputs is for --verify-numerics' runs"), std::string::npos)
      << alone.err;
  interp::write_npy((dir / "y.npy").string(), interp::Tensor::zeros(DType::Float32, {2}));
  CliResult stray =
      run_lower({"examples/cleanup_demo.json", "--verify-numerics", "--inputs", dir.string()});
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.err.find("y.npy' names no input or constant of the graph"), std::string::npos)
      << stray.err;
  CliResult missing = run_lower(
      {"examples/cleanup_demo.json", "--verify-numerics", "--inputs", (dir / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("is no folder"), std::string::npos) << missing.err;
  fs::remove_all(dir);
}

TEST(LowerCli, DumpBeforeAndAfter) {
  CliResult r = run_lower({"examples/mlp.json", "--passes", "remove-noop,dce", "--dump-before",
                           "dce", "--dump-after", "dce"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t before = r.out.find("// before dce\n{\"format\": \"symshape-graph\"");
  const size_t after = r.out.find("// after dce\n{\"format\": \"symshape-graph\"");
  EXPECT_NE(before, std::string::npos) << r.out;
  EXPECT_NE(after, std::string::npos) << r.out;
  EXPECT_LT(before, after);
  CliResult bad = run_lower({"examples/mlp.json", "--dump-after", "nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown pass 'nope'"), std::string::npos) << bad.err;
}

TEST(LowerCli, UnknownPassIsBadInputListingTheKnownOnes) {
  CliResult r = run_lower({"examples/mlp.json", "--passes", "dce,frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("symshape: error: unknown pass 'frobnicate' (known: "), std::string::npos)
      << r.err;
  for (const Pass* p : PassRegistry::standard().passes()) {
    EXPECT_NE(r.err.find(std::string(p->name())), std::string::npos) << p->name();
  }
  CliResult pipeline = run_lower({"examples/mlp.json", "--pipeline", "fastest"});
  EXPECT_EQ(pipeline.exit_code, 2);
  EXPECT_NE(pipeline.err.find("unknown pipeline 'fastest' (known: cleanup, complex, default)"),
            std::string::npos)
      << pipeline.err;
  CliResult both = run_lower({"examples/mlp.json", "--passes", "dce", "--pipeline", "default"});
  EXPECT_EQ(both.exit_code, 2);
  CliResult option = run_lower({"examples/mlp.json", "--passes", "dce{aggressive=1}"});
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_NE(option.err.find("pass 'dce' has no option 'aggressive'"), std::string::npos)
      << option.err;
}

TEST(LowerCli, AGraphWithAShapeErrorExitsAsCheckDoes) {
  for (const char* graph :
       {"tests/propagate/graphs/broadcast_error.json", "tests/propagate/graphs/unknown_op.json",
        "tests/propagate/graphs/reshape_indivisible.json",
        "tests/propagate/graphs/forward_reference.json"}) {
    CliResult check = run_in_root({"check", graph});
    CliResult lower = run_lower({graph});
    EXPECT_NE(check.exit_code, 0) << graph;
    EXPECT_EQ(lower.exit_code, check.exit_code) << graph << "\n" << lower.err;
    EXPECT_NE(lower.err, "") << graph;
  }
  CliResult missing = run_lower({"tests/passes/graphs/no_such_graph.json"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(LowerCli, PassesListsEveryRegisteredPassAndPipeline) {
  CliResult r = run_in_root({"passes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const Pass* p : PassRegistry::standard().passes()) {
    EXPECT_NE(r.out.find("  " + std::string(p->name()) + " "), std::string::npos) << p->name();
    EXPECT_NE(r.out.find(std::string(p->description())), std::string::npos) << p->name();
  }
  for (const auto* p : PassRegistry::standard().pipelines()) {
    EXPECT_NE(r.out.find("  " + p->name + ": " + p->description), std::string::npos) << p->name;
  }
  EXPECT_EQ(run_in_root({"passes", "extra"}).exit_code, 2);
}

// decompose's lists as flags: --decompose A,B (only these) and --no-decompose C (all but these),
// as Torch-TensorRT names them; the report counts each decomposition by name.
TEST(LowerCli, DecomposeListsAsFlags) {
  CliResult only = run_lower({"examples/gpt_small.json", "--passes", "decompose", "--decompose",
                              "layer_norm,gelu", "--verify-numerics", "--dim", "seq=1..6", "--dim",
                              "batch=1..6"});
  ASSERT_EQ(only.exit_code, 0) << only.err;
  EXPECT_NE(only.out.find("decomposed: gelu: 8, decomposed: layer_norm: 17"), std::string::npos)
      << only.out;
  EXPECT_EQ(only.out.find("decomposed: addmm"), std::string::npos) << only.out;
  CliResult skip = run_lower({"examples/gpt_small.json", "--passes", "decompose",
                              "--no-decompose=view", "--no-decompose", "t|addmm"});
  ASSERT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_NE(skip.out.find("decomposed: scaled_dot_product_attention: 8"), std::string::npos)
      << skip.out;
  for (const char* skipped : {"decomposed: view", "decomposed: t:", "decomposed: addmm"})
    EXPECT_EQ(skip.out.find(skipped), std::string::npos) << skipped << "\n" << skip.out;
  CliResult bad = run_lower(
      {"examples/gpt_small.json", "--passes", "decompose", "--decompose", "layer_norm,softmax"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out;  // a refused option value is bad input
  EXPECT_NE(bad.err.find("unknown decomposition 'softmax'"), std::string::npos) << bad.err;
}

// A value a pass refuses is bad input (exit 2), like an unknown pass or option.
TEST(LowerCli, ARefusedOptionValueIsBadInput) {
  CliResult missing = run_lower(
      {"examples/cleanup_demo.json", "--passes", "rewrite{patterns=/nonexistent/patterns.json}"});
  EXPECT_EQ(missing.exit_code, 2) << result_text(missing);
  EXPECT_NE(missing.err.find("option patterns: cannot read the pattern file"), std::string::npos)
      << missing.err;
  CliResult flag = run_lower(
      {"examples/cleanup_demo.json", "--passes", "autocast", "--autocast-calibrate=maybe"});
  EXPECT_EQ(flag.exit_code, 2) << result_text(flag);
  EXPECT_NE(flag.err.find("option calibrate: takes true or false, got 'maybe'"), std::string::npos)
      << flag.err;
}

// decompose and fuse-linear keep the numbers of every bundled graph (examples/ and
// examples/traced/), checked by --verify-numerics at three sizes of each dim. Each dim is narrowed
// to the bottom of its range so that the reference runs stay small. Three examples are left out:
// their constant widths (1024-wide weights, 64-channel convolutions) make the seven reference
// runs take 10-30 s even at the smallest dims; decompose_test.cc covers each of their ops.
TEST(LowerCli, DecompositionsKeepTheNumbersOfEveryBundledGraph) {
  std::vector<fs::path> graphs;
  for (const char* dir : {"examples", "examples/traced"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(SYMSHAPE_SOURCE_DIR) / dir))
      if (entry.path().extension() == ".json") graphs.push_back(entry.path());
  }
  std::sort(graphs.begin(), graphs.end());
  ASSERT_GE(graphs.size(), 12u);
  const std::set<std::string> too_large = {"resnet_block", "tp_mlp", "transformer_mlp"};
  for (const fs::path& graph : graphs) {
    if (graph.parent_path().filename() == "examples" && too_large.count(graph.stem().string()))
      continue;
    std::ifstream in(graph);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<std::string> args{graph.string(), "--passes", "decompose,fuse-linear",
                                  "--verify-numerics"};
    const nlohmann::json& dims = doc.contains("dims") ? doc.at("dims") : nlohmann::json::object();
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      const std::string& name = it.key();
      const nlohmann::json& dim = it.value();
      const int64_t lo = dim.value("min", 1), hi = dim.value("max", lo + 3);
      args.push_back("--dim");
      args.push_back(name + "=" + std::to_string(lo) + ".." + std::to_string(std::min(hi, lo + 3)));
    }
    CliResult r = run_lower(args);
    EXPECT_EQ(r.exit_code, 0) << graph << "\n" << result_text(r);
    EXPECT_NE(r.out.find("numerics checked in"), std::string::npos) << graph << "\n" << r.out;
  }
}

}  // namespace
}  // namespace symshape::cli_test

namespace symshape::cli_test {
namespace {

// ONNX models go through lower and partition with the ONNX registry's shape rules; decompose
// and complex-rewrite leave ONNX ops as they are and say so instead of failing on a missing rule.
TEST(LowerCli, LowersAndPartitionsAnOnnxModel) {
  const std::vector<std::string> dims = {"--dim", "height=16..256", "--dim", "width=16..256"};
  CliResult read = run_in_root({"check", "examples/onnx/small_cnn.onnx", "--dim", "height=16..256",
                                "--dim", "width=16..256"});
  if (read.exit_code != 0 && read.err.find("built without ONNX support") != std::string::npos)
    GTEST_SKIP() << read.err;
  auto with_dims = [&](std::vector<std::string> args) {
    args.insert(args.end(), dims.begin(), dims.end());
    return args;
  };
  CliResult r = run_lower(with_dims({"examples/onnx/small_cnn.onnx"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("total: 28 -> 28 nodes"), std::string::npos) << r.out;
  CliResult d = run_lower(with_dims({"examples/onnx/small_cnn.onnx", "--passes", "decompose"}));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("ONNX ops left as they are (the pass rewrites ATen ops): 15"),
            std::string::npos)
      << d.out;
  const fs::path dir = fs::temp_directory_path() / ("onnx_parts_" + std::to_string(getpid()));
  CliResult p =
      run_in_root(with_dims({"partition", "examples/onnx/small_cnn.onnx", "--supported-ops",
                             "onnx.Conv,onnx.Relu", "-o", dir.string()}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("4 partitions (2 backend, 2 fallback)"), std::string::npos) << p.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symshape::cli_test
