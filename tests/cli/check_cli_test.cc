// End-to-end tests of `symshape check`: the real binary on the example graphs and on small graphs
// that exercise guards, specialization, data-dependent sizes and every kind of error. stdout is
// compared byte for byte with tests/golden/<name>; exit code and stderr with the table below.
//
// SYMSHAPE_UPDATE_GOLDEN=1 rewrites the golden files from the current output instead of comparing
// (exit codes and error messages are still checked). Review every changed file before keeping it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = SYMSHAPE_SOURCE_DIR;

// Runs `symshape check ARGS...` from the repository root, so that graphs are named as a user at
// the root names them and messages holding a path are the same on every machine.
CliResult run_check(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"check"};
  full.insert(full.end(), args.begin(), args.end());
  return run_in_root(full);
}

std::string describe_check(const std::vector<std::string>& args, const CliResult& r) {
  std::string cmd = "symshape check";
  for (const std::string& a : args) cmd += " '" + a + "'";
  return cmd + "\n  exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\n  stderr: " + r.err;
}

// One run of `symshape check`: its arguments, where its stdout is kept, and its exit code and
// stderr, which are written here rather than in a golden file so that updating cannot change them.
struct CheckCase {
  std::string golden;             // stdout's golden file; empty: stdout must be empty
  std::vector<std::string> args;  // after `check`
  int exit_code = 0;
  std::string err;  // the exact stderr (empty on success)
};

void PrintTo(const CheckCase& c, std::ostream* os) { *os << "check " << c.golden; }

void run_case(const CheckCase& c) {
  CliResult r = run_check(c.args);
  SCOPED_TRACE(describe_check(c.args, r));
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, c.exit_code);
  EXPECT_EQ(r.err, c.err);
  if (c.golden.empty()) {
    EXPECT_EQ(r.out, "");
  } else {
    expect_golden(c.golden, r.out);
  }
}

// ---- the examples: every examples/*.json has a golden file ----

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSourceDir / "examples")) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class ExampleCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleCheck, MatchesGolden) {
  run_case({GetParam() + ".check.txt", {"examples/" + GetParam() + ".json"}, 0, ""});
}

// Running twice gives the same bytes (the printer orders terms itself, not by GiNaC's hashes).
TEST_P(ExampleCheck, IsDeterministic) {
  const std::vector<std::string> args = {"examples/" + GetParam() + ".json", "--log"};
  EXPECT_EQ(run_check(args).out, run_check(args).out);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleCheck, ::testing::ValuesIn(example_names()),
                         [](const auto& info) { return info.param; });

// Each example again with its dims narrowed by --dim; --log shows the ranges the symbols got
// (a --dim keeps the graph's hint when it lies inside the new range, else picks one inside).
const std::vector<std::pair<std::string, std::vector<std::string>>> kDimOverrides = {
    {"autocast_cnn", {"--dim", "batch=2..16"}},
    {"cleanup_demo", {"--dim", "batch=2..16", "--dim", "seq=16..128"}},
    {"gpt_small", {"--dim", "seq=2..1024"}},
    {"llama_attention", {"--dim", "batch=2..16", "--dim", "seq=128..2048"}},
    {"mlp", {"--dim", "batch=2..16"}},
    {"resnet_block", {"--dim", "batch=2..16", "--dim=h=100..200"}},
    {"tp_complex", {"--dim", "batch=2..16", "--dim", "W=2..8"}},
    {"tp_mlp", {"--dim", "batch=2..16", "--dim", "W=2..8"}},
    {"transformer_mlp", {"--dim", "batch=2..16", "--dim", "seq=1..512"}},
};

TEST(ExampleCheckDims, EveryExampleHasAnOverrideRun) {
  for (const std::string& name : example_names()) {
    bool found = false;
    for (const auto& [example, flags] : kDimOverrides) found |= example == name;
    EXPECT_TRUE(found) << "add examples/" << name << ".json to kDimOverrides";
  }
}

TEST(ExampleCheckDims, MatchesGolden) {
  for (const auto& [name, flags] : kDimOverrides) {
    std::vector<std::string> args = {"examples/" + name + ".json"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("--log");
    run_case({name + ".dims.check.txt", args, 0, ""});
  }
}

// ---- --json ----

TEST(CheckJson, ExamplesMatchGolden) {
  run_case({"llama_attention.check.json", {"examples/llama_attention.json", "--json"}, 0, ""});
  run_case({"tp_mlp.check.json", {"examples/tp_mlp.json", "--json", "--log"}, 0, ""});
}

TEST(CheckJson, GuardsAndAShapeErrorMatchGolden) {
  // The error is in the document; stderr stays empty so stdout is one JSON value.
  run_case({"broadcast_two_dims.check.json",
            {"tests/propagate/graphs/broadcast_two_dims.json", "--json"},
            0,
            ""});
  run_case({"broadcast_error.check.json",
            {"tests/propagate/graphs/broadcast_error.json", "--json"},
            1,
            ""});
}

// ---- small graphs: guards, specialization, data-dependent sizes, errors ----

const std::string kGraphs = "tests/propagate/graphs/";

CheckCase graph_case(const std::string& name, std::vector<std::string> flags, int exit_code,
                     const std::string& error, const std::string& golden_suffix = ".check.txt") {
  std::vector<std::string> args = {kGraphs + name + ".json"};
  args.insert(args.end(), flags.begin(), flags.end());
  return {name + golden_suffix, args, exit_code,
          error.empty() ? "" : "symshape: error: " + error + "\n"};
}

// A graph that is refused before any node runs: nothing on stdout.
CheckCase refused(const std::string& name, const std::string& error) {
  return {"", {kGraphs + name + ".json"}, 2, "symshape: error: " + error + "\n"};
}

const std::vector<CheckCase> kGraphCases = {
    // Two inputs' dims a and b broadcast against each other: the guard a == b, then one symbol.
    graph_case("broadcast_two_dims", {"--log"}, 0, ""),
    // view(x[n, 6], [-1, 4]) needs 4 | 6*n: a guard (n is even at its hint 8) ...
    graph_case("reshape_divisible", {}, 0, ""),
    // ... and a shape error at the odd hint 7, which says it was decided there.
    graph_case("reshape_indivisible", {}, 1,
               "node view (aten.view.default): shape [-1, 4] is invalid for input of size 6*n at "
               "the example sizes n = 7 (the op needs n % 2 == 0)"),
    // Slice ends past a dim's end clamp to it: to a constant, to the dim, or to a min().
    graph_case("slice_clamp", {}, 0, ""),
    // With m at most 50, the end 100 is past every possible m: the min() disappears.
    graph_case("slice_clamp", {"--dim", "m=2..50"}, 0, "", ".dims.check.txt"),
    // Named dims are never duck-sized: k1 and k2 stay apart until mm needs them equal.
    graph_case("equal_inputs_merge", {"--log"}, 0, ""),
    // Broadcasting s against the constant 8 specializes s: the guard s == 8 and `specialize`.
    graph_case("specialize_constant", {"--log"}, 0, ""),
    // nonzero's row count is an unbacked u0, bounded by a runtime assert.
    graph_case("nonzero_unbacked", {"--log"}, 0, ""),
    // Viewing the data-dependent rows as pairs needs 2 | u0: a runtime assert, not a guard.
    graph_case("nonzero_view", {}, 0, ""),
    // Splitting them into pieces of 2 needs the number of pieces: a shape error, not a guess.
    graph_case("data_dependent_error", {}, 1,
               "node split (aten.split.Tensor): could not guard on data-dependent expression "
               "max(1, (u0 + 1)//2) (at node split (aten.split.Tensor, split_count))"),
    // Shape errors (exit 1): the nodes before the failure are printed, then the error.
    graph_case("broadcast_error", {}, 1,
               "node add_3 (aten.add.Tensor): cannot broadcast [a, 4] with [a, 5] at dim 1 "
               "(4 != 5)"),
    graph_case("broadcast_error", {"--log"}, 1,
               "node add_3 (aten.add.Tensor): cannot broadcast [a, 4] with [a, 5] at dim 1 "
               "(4 != 5)",
               ".log.check.txt"),
    graph_case("declared_shape_mismatch", {}, 1,
               "node sum (aten.sum.dim_IntList): declared shape [n] but the rule computed [n, 1]"),
    graph_case("declared_dtype_mismatch", {}, 1,
               "node half (aten.div.Tensor): declared dtype int64 but the rule computed float32"),
    // Bad input (exit 2) found while running the rules.
    graph_case("unknown_op", {}, 2,
               "node frob (aten.frobnicate.default): unknown op 'aten.frobnicate.default' (no "
               "shape rule)"),
    graph_case("missing_arg", {}, 2,
               "node mm (aten.mm.default): argument 'mat2' (position 1) must be a tensor, got "
               "nothing"),
    graph_case("wrong_arg_type", {}, 2,
               "node view (aten.view.default): aten.view argument 'size' is SymInt[], got 'six'; "
               "its signature: aten.view(Tensor(a) self, SymInt[] size) -> Tensor(a)"),
    graph_case("negative_view_size", {}, 2,
               "node view (aten.view.default): invalid size -2 in [-2, -3]"),
    // Bad input found by the reader or the verifier: nothing runs. Each names the file.
    refused("negative_size", kGraphs + "negative_size.json: node 'x': shape[1] is negative (-3)"),
    refused("unknown_dtype", kGraphs + "unknown_dtype.json: node 'x': unknown dtype 'float33'"),
    refused("dangling_reference", kGraphs + "dangling_reference.json: node 'relu': arg 0 refers "
                                            "to 'nope', which is not defined"),
    refused("forward_reference", kGraphs + "forward_reference.json: node 'a': arg 1 refers to 'b' "
                                           "before it is defined (a cycle or wrong order)"),
    refused("bad_json", kGraphs +
                            "bad_json.json: line 4, column 65: syntax error while parsing value - "
                            "unexpected ']'; expected '[', '{', or a literal"),
};

class GraphCheck : public ::testing::TestWithParam<CheckCase> {};

TEST_P(GraphCheck, MatchesGoldenAndError) { run_case(GetParam()); }

std::string case_name(const ::testing::TestParamInfo<CheckCase>& info) {
  std::string name = info.param.args[0];
  name = fs::path(name).stem().string() + "_" + std::to_string(info.index);
  return name;
}

INSTANTIATE_TEST_SUITE_P(Graphs, GraphCheck, ::testing::ValuesIn(kGraphCases), case_name);

// Every graph in tests/propagate/graphs is run by some case above.
TEST(GraphCheckCoverage, EveryGraphHasACase) {
  for (const auto& entry : fs::directory_iterator(kSourceDir / kGraphs)) {
    if (entry.path().extension() != ".json") continue;
    const std::string arg = kGraphs + entry.path().filename().string();
    bool found = false;
    for (const CheckCase& c : kGraphCases) found |= c.args[0] == arg;
    EXPECT_TRUE(found) << arg << " has no case in kGraphCases";
  }
}

// ---- a large graph ----

#if defined(__SANITIZE_ADDRESS__)
#define SYMSHAPE_CLI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYMSHAPE_CLI_SANITIZED 1
#endif
#endif

// A 10 MB graph (a chain of 60,000 elementwise ops on a symbolic [batch, 64] input) is read,
// propagated and printed in reasonable time. A sanitized build (tests and CLI are built alike)
// runs a tenth of it, which still takes seconds there.
TEST(CheckLarge, TenMegabyteChain) {
#ifdef SYMSHAPE_CLI_SANITIZED
  constexpr int kNodes = 6000;
  constexpr uintmax_t kMinBytes = 900'000;
#else
  constexpr int kNodes = 60000;
  constexpr uintmax_t kMinBytes = 10'000'000;
#endif
  const fs::path path = fs::temp_directory_path() /
                        ("symshape_check_large_chain_" + std::to_string(getpid()) + ".json");
  {
    std::ofstream out(path, std::ios::binary);
    out << "{\"format\": \"symshape-graph\", \"version\": 1,\n"
           " \"dims\": {\"batch\": {\"min\": 1, \"max\": 4096, \"hint\": 32}},\n"
           " \"nodes\": [\n"
           "  {\"name\": \"x\", \"op\": \"placeholder\", \"dtype\": \"float32\", "
           "\"shape\": [\"batch\", 64]},\n";
    const char* ops[] = {"aten.add.Tensor", "aten.mul.Tensor", "aten.sub.Tensor"};
    std::string prev = "x";
    for (int i = 0; i < kNodes; ++i) {
      std::string name = "node_" + std::to_string(i);
      out << "  {\"name\": \"" << name << "\", \"op\": \"call_function\", \"target\": \""
          << (i % 4 == 3 ? "aten.relu.default" : ops[i % 3]) << "\", \"args\": [{\"node\": \""
          << prev << "\"}" << (i % 4 == 3 ? "" : ", {\"node\": \"x\"}")
          << "], \"dtype\": \"float32\", \"shape\": [\"batch\", 64]},\n";
      prev = name;
    }
    out << "  {\"name\": \"output\", \"op\": \"output\", \"args\": [[{\"node\": \"" << prev
        << "\"}]]}]}\n";
  }
  ASSERT_GE(fs::file_size(path), kMinBytes);

  auto start = std::chrono::steady_clock::now();
  CliResult r = run_check({path.string()});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove(path);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(r.out.ends_with("node_" + std::to_string(kNodes - 1) +
                              ": float32[batch, 64]\noutput: (float32[batch, 64],)\n"));
  // About a second in a release build; sanitizers and a busy machine get a wide margin.
  EXPECT_LT(seconds, 45.0);
}

// ---- docs/cli.md: every `$ symshape check ...` example shows the real output ----

TEST(CheckDocs, ExamplesShowTheRealOutput) {
  auto examples = doc_examples("check");
  ASSERT_GE(examples.size(), 5u) << "docs/cli.md: too few `symshape check` examples";
  for (const auto& [args, expected] : examples) {
    CliResult r = run_check(args);
    EXPECT_EQ(r.out + r.err, expected) << "docs/cli.md: $ symshape check " << args[0];
  }
}

// ---- the command line itself ----

TEST(CheckCli, HelpShowsUsageFlagsAndExitCodes) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "--help"}, {"help", "check"}}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "");
    for (const char* word : {"usage: symshape check GRAPH.json", "--dim NAME=MIN..MAX", "--json",
                             "--log", "1 on a shape error"}) {
      EXPECT_NE(r.out.find(word), std::string::npos) << word << " not in: " << r.out;
    }
  }
}

TEST(CheckCli, TopLevelHelpListsCheck) {
  CliResult r = run_cli({"--help"});
  EXPECT_NE(r.out.find("check"), std::string::npos);
}

// `symshape --version` prints CMake's project version (CMakeLists.txt: project(... VERSION)).
TEST(CheckCli, VersionPrintsTheProjectVersion) {
  CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "symshape 0.1.0\n");
  EXPECT_EQ(r.err, "");
  EXPECT_NE(run_cli({"--help"}).out.find("--version"), std::string::npos);
}

TEST(CheckCli, UsageErrorsExitTwoWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "symshape: error: missing GRAPH.json\n"},
      {{"examples/mlp.json", "--frobnicate"}, "symshape: error: unknown flag '--frobnicate'\n"},
      {{"examples/mlp.json", "--dim"},
       "symshape: error: flag '--dim' needs a value (NAME=MIN..MAX)\n"},
      {{"examples/mlp.json", "--dim", "batch=5..2"},
       "symshape: error: bad range 'batch=5..2': empty (LO is greater than HI)\n"},
      {{"examples/mlp.json", "--dim", "batch"},
       "symshape: error: expected NAME=LO..HI, got 'batch'\n"},
      {{"examples/mlp.json", "--json=yes"}, "symshape: error: flag '--json' takes no value\n"},
      {{"examples/mlp.json", "--dim", "bacth=2..8"},
       "symshape: error: --dim 'bacth': the graph has no dim 'bacth' (did you mean 'batch'?)\n"},
      {{"examples/mlp.json", "--dim", "hidden=2..8"},
       "symshape: error: --dim 'hidden': the graph has no dim 'hidden'\n"},
      {{"examples/mlp.json", "--dim", "batch=2..8", "--dim", "batch=3..8"},
       "symshape: error: --dim 'batch' is given twice\n"},
      {{"no/such/graph.json"},
       "symshape: error: no/such/graph.json: cannot open: No such file or directory\n"},
  };
  for (const auto& [args, err] : cases) {
    CliResult r = run_check(args);
    SCOPED_TRACE(describe_check(args, r));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, err);
  }
}

TEST(CheckCli, AnExtraArgumentIsRefused) {
  CliResult r = run_check({"examples/mlp.json", "examples/mlp.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("symshape: error: unexpected argument 'examples/mlp.json'"))
      << r.err;
}

// A file that is not a graph at all, or not JSON, is bad input and never a crash.
// A reserved word (inf, max, a Python keyword) names no dim, in "dims" or in a shape.
TEST(CheckCli, ReservedWordsNameNoDim) {
  const std::vector<std::pair<std::string, std::string>> graphs = {
      {R"("dims": {"inf": {"min": 2}}, "nodes": [{"name": "x", "op": "placeholder", )"
       R"("dtype": "float32", "shape": [2]}, {"name": "output", "op": "output", "args": [[]]}])",
       "a reserved word cannot name a dim"},
      {R"("nodes": [{"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["max", 2]},)"
       R"( {"name": "output", "op": "output", "args": [[]]}])",
       "'max' is a reserved word and cannot name a symbol"},
  };
  for (const auto& [body, error] : graphs) {
    const fs::path path =
        fs::temp_directory_path() / ("symshape_reserved_" + std::to_string(::getpid()) + ".json");
    std::ofstream(path) << R"({"format": "symshape-graph", "version": 1, )" << body << "}\n";
    CliResult r = run_check({path.string()});
    fs::remove(path);
    SCOPED_TRACE(describe_check({path.string()}, r));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(error), std::string::npos);
  }
}

// --dim naming a dim the graph declares but no shape or argument uses is an error too: the
// range would constrain nothing.
TEST(CheckCli, DimDeclaredButUnusedIsAnError) {
  const fs::path path =
      fs::temp_directory_path() / ("symshape_unused_dim_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path)
      << R"({"format": "symshape-graph", "version": 1, )"
      << R"("dims": {"n": {"min": 2}, "unused": {"min": 2}}, "nodes": [)"
      << R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},)"
      << R"( {"name": "output", "op": "output", "args": [["x"]]}]})"
      << "\n";
  CliResult used = run_check({path.string(), "--dim", "n=2..8"});
  CliResult unused = run_check({path.string(), "--dim", "unused=2..8"});
  fs::remove(path);
  EXPECT_EQ(used.exit_code, 0) << used.err;
  EXPECT_EQ(unused.exit_code, 2);
  EXPECT_EQ(unused.out, "");
  EXPECT_EQ(unused.err,
            "symshape: error: --dim 'unused': the graph declares dim 'unused' but no shape or "
            "argument uses it\n");
}

TEST(CheckCli, NonGraphFilesAreBadInput) {
  for (const char* file : {"README.md", "CMakeLists.txt", "docs", "/dev/null"}) {
    CliResult r = run_check({file});
    SCOPED_TRACE(describe_check({file}, r));
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("symshape: error: ")) << r.err;
  }
}

// ---- --time ----

// The phase times of `--time`, parsed from its stderr line
// `symshape: time: read 2.104 ms, propagate 3.512 ms, print 1.987 ms (2198 nodes)`; nullopt
// when the line is not exactly of that form.
struct PhaseTimes {
  double read = -1, propagate = -1, print = -1;
  long nodes = -1;
};

std::optional<PhaseTimes> parse_time_line(const std::string& line) {
  PhaseTimes t;
  int consumed = -1;
  if (std::sscanf(line.c_str(),
                  "symshape: time: read %lf ms, propagate %lf ms, print %lf ms (%ld nodes)\n%n",
                  &t.read, &t.propagate, &t.print, &t.nodes, &consumed) != 4 ||
      consumed != static_cast<int>(line.size())) {
    return std::nullopt;
  }
  return t;
}

size_t graph_node_count(const std::string& path) {
  std::ifstream in(kSourceDir / path);
  return nlohmann::json::parse(in).at("nodes").size();
}

// --time adds one line to stderr and changes nothing else: stdout is byte for byte the output
// without it, in text and in JSON, and the exit code is the same.
TEST(CheckTime, ReportsEachPhaseOnStderrAndLeavesStdoutAlone) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--json"}}) {
    std::vector<std::string> args = {"examples/llama_attention.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult plain = run_check(args);
    args.push_back("--time");
    const CliResult timed = run_check(args);
    SCOPED_TRACE(describe_check(args, timed));
    EXPECT_EQ(timed.exit_code, 0);
    EXPECT_EQ(timed.out, plain.out);
    std::optional<PhaseTimes> t = parse_time_line(timed.err);
    ASSERT_TRUE(t) << timed.err;
    EXPECT_EQ(t->nodes, static_cast<long>(graph_node_count("examples/llama_attention.json")));
    EXPECT_GE(t->read, 0);
    EXPECT_GE(t->propagate, 0);
    EXPECT_GE(t->print, 0);
  }
}

// On a shape error the error comes first and the time line last; the exit code stays 1.
TEST(CheckTime, FollowsAShapeError) {
  const std::string graph = "tests/propagate/graphs/broadcast_error.json";
  const CliResult plain = run_check({graph});
  const CliResult timed = run_check({graph, "--time"});
  SCOPED_TRACE(describe_check({graph, "--time"}, timed));
  EXPECT_EQ(timed.exit_code, 1);
  EXPECT_EQ(timed.out, plain.out);
  ASSERT_TRUE(timed.err.starts_with(plain.err)) << timed.err;
  std::optional<PhaseTimes> t = parse_time_line(timed.err.substr(plain.err.size()));
  ASSERT_TRUE(t) << timed.err;
  EXPECT_EQ(t->nodes, static_cast<long>(graph_node_count(graph)));
}

}  // namespace
}  // namespace symshape::cli_test
