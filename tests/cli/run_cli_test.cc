// End-to-end tests of `symshape run`: the real binary on the examples and on small graphs written
// by the tests, checking the printed lines, determinism and the exit codes 0, 1 and 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "symshape/interp.h"
#include "tests/cli/cli_runner.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

// Runs `symshape run ARGS...` from the repository root.
CliResult run_run(const std::vector<std::string>& args) {
  static const bool in_root = [] {
    fs::current_path(SYMSHAPE_SOURCE_DIR);
    return true;
  }();
  (void)in_root;
  std::vector<std::string> full = {"run"};
  full.insert(full.end(), args.begin(), args.end());
  return run_cli(full);
}

// A graph file in a temporary directory, removed at the end of the test.
class TextGraphFile {
 public:
  TextGraphFile(const std::string& name, const std::string& nodes, const std::string& dims = "{}") {
    path_ =
        fs::temp_directory_path() / ("symshape_run_cli_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream out(path_);
    out << "{\"format\": \"symshape-graph\", \"version\": 1, \"dims\": " << dims << ", \"nodes\": ["
        << nodes << "]}\n";
  }
  ~TextGraphFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(RunCli, MlpPrintsDimsAndOneLinePerOutput) {
  CliResult r = run_run({"examples/mlp.json", "--dim", "batch=2"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_EQ(r.err, "");
  std::regex expected("dims: batch=2\nrelu: float32\\[2, 64\\] checksum [0-9a-f]{16}\n");
  EXPECT_TRUE(std::regex_match(r.out, expected)) << r.out;
  // --size binds batch from the input's sizes; the same seed prints the same checksum.
  CliResult sized = run_run({"examples/mlp.json", "--size", "x=2,128"});
  ASSERT_EQ(sized.exit_code, 0) << result_text(sized);
  EXPECT_EQ(sized.out, r.out);
  CliResult other = run_run({"examples/mlp.json", "--dim", "batch=2", "--seed", "5"});
  ASSERT_EQ(other.exit_code, 0) << result_text(other);
  EXPECT_NE(other.out, r.out);
  EXPECT_EQ(other.out.substr(0, other.out.find("checksum")),
            r.out.substr(0, r.out.find("checksum")));
}

TEST(RunCli, PrintValues) {
  TextGraphFile g("values.json",
                  R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "w", "op": "get_attr", "target": "w", "dtype": "bool", "shape": [2], "value": [true, false]},
  {"name": "r", "op": "call_function", "target": "aten.arange.start", "args": [{"expr": "n - 1"}, {"expr": "2*n"}]},
  {"name": "h", "op": "call_function", "target": "aten.full.default", "args": [[2, 1], 0.1], "kwargs": {"dtype": {"dtype": "float16"}}},
  {"name": "n2", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "output", "op": "output", "args": [[{"node": "r"}, {"node": "w"}, {"node": "h"}, {"node": "n2"}]]})");
  CliResult r = run_run({g.path(), "--size", "x=3", "--print-values"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  std::regex expected(
      "dims: n=3\n"
      "r: int64\\[4\\] checksum [0-9a-f]{16}\n  \\[2, 3, 4, 5\\]\n"
      "w: bool\\[2\\] checksum [0-9a-f]{16}\n  \\[True, False\\]\n"
      "h: float16\\[2, 1\\] checksum [0-9a-f]{16}\n  \\[\\[0.099975586\\], \\[0.099975586\\]\\]\n"
      "n2: 3\n");
  EXPECT_TRUE(std::regex_match(r.out, expected)) << r.out;
  // Large tensors are not printed.
  CliResult big = run_run({g.path(), "--dim", "n=70", "--print-values"});
  ASSERT_EQ(big.exit_code, 0) << result_text(big);
  EXPECT_EQ(big.out.find("[69,"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("r: int64[71]"), std::string::npos) << big.out;
}

TEST(RunCli, SimulatesCollectives) {
  CliResult r =
      run_run({"examples/tp_mlp.json", "--dim", "batch=2", "--dim", "seq_shard=1", "--dim", "W=2"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  std::regex expected(
      "dims: W=2 batch=2 seq_shard=1\nworld size: 2 \\(outputs of rank 0\\)\n"
      "out: bfloat16\\[1, 2, 1024\\] checksum [0-9a-f]{16}\n");
  EXPECT_TRUE(std::regex_match(r.out, expected)) << r.out;
  // The graph's group size is W: simulating another number of ranks is a run-time error.
  CliResult wrong = run_run({"examples/tp_mlp.json", "--dim", "batch=2", "--dim", "seq_shard=1",
                             "--dim", "W=2", "--world-size", "3"});
  EXPECT_EQ(wrong.exit_code, 1) << result_text(wrong);
  EXPECT_NE(wrong.err.find("node all_gather"), std::string::npos) << wrong.err;
}

TEST(RunCli, RunTimeFailureExitsOneNamingTheNode) {
  TextGraphFile g("assert.json",
                  R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "size", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "big", "op": "call_function", "target": "operator.ge", "args": [{"node": "size"}, 5]},
  {"name": "check", "op": "call_function", "target": "aten._assert_scalar.default", "args": [{"node": "big"}, "n >= 5"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  CliResult r = run_run({g.path(), "--size", "x=3"});
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  EXPECT_EQ(r.out, "");  // on an error, nothing goes to stdout
  EXPECT_EQ(
      r.err,
      "symshape: error: node check (aten._assert_scalar.default): assertion failed: n >= 5\n");
  CliResult ok = run_run({g.path(), "--size", "x=5"});
  EXPECT_EQ(ok.exit_code, 0) << result_text(ok);
}

TEST(RunCli, BadInputExitsTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"examples/mlp.json", "--size", "x=2,127"},
       "dim 1 of input 'x' is declared 128 but its size is 127"},
      {{"examples/mlp.json", "--size", "x=2"}, "input 'x' is declared with 2 dims"},
      {{"examples/mlp.json", "--size", "y=2"}, "--size 'y': the graph has no input 'y'"},
      {{"examples/mlp.json", "--size", "xx=2,128"},
       "--size 'xx': the graph has no input 'xx' (did you mean 'x'?)"},
      {{"examples/mlp.json", "--dim", "bacth=2"},
       "--dim 'bacth': the graph has no dim 'bacth' (did you mean 'batch'?)"},
      {{"examples/mlp.json", "--dim", "batch=2", "--dim", "batch=3"}, "--dim given twice"},
      {{"examples/tp_mlp.json", "--size", "W=2"}, "W is a dim: give --dim W=N"},
      // Declared ranges hold for given dims as they do for check: batch is 1..64.
      {{"examples/mlp.json", "--dim", "batch=65"},
       "--dim batch makes dim batch 65, outside its declared range [1, 64]"},
      {{"examples/mlp.json", "--size", "x=0,128"}, "outside its declared range [1, 64]"},
      {{"examples/mlp.json", "--size", "x=2,a"}, "bad value 'a'"},
      {{"examples/mlp.json", "--dim", "batch"}, "expected NAME=INT"},
      {{"examples/mlp.json", "--world-size", "0"}, "--world-size 0 is out of range"},
      {{"examples/mlp.json", "--seed", "x"}, "bad value 'x' for --seed"},
      {{"examples/mlp.json", "--frobnicate"}, "unknown flag"},
      {{"no/such/graph.json"}, "no/such/graph.json"},
      {{}, "GRAPH.json"},
  };
  for (const Case& c : cases) {
    CliResult r = run_run(c.args);
    EXPECT_EQ(r.exit_code, 2) << result_text(r);
    EXPECT_EQ(r.signal, 0);
    EXPECT_NE(r.err.find(c.error), std::string::npos) << "wanted '" << c.error << "' in " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  for (const Case& c : cases) EXPECT_EQ(run_run(c.args).out, "") << c.error;
  // Sizes too large for the interpreter are bad input too, never a crash.
  TextGraphFile wide("wide.json",
                     R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n", "n"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  CliResult huge = run_run({wide.path(), "--dim", "n=1000000"});
  EXPECT_EQ(huge.exit_code, 2) << result_text(huge);
  EXPECT_NE(huge.err.find("too large"), std::string::npos) << huge.err;
}

// Issue 11's repros: `check` and `run` once gave these graphs different exit codes. One graph,
// one verdict: bad input (an unknown op, a malformed argument, an index out of range) exits 2
// from both, a shape error 1.
TEST(RunCli, CheckAndRunExitAlikeOnTheRepros) {
  const std::vector<std::pair<std::string, int>> repros = {
      {"19_unknown_target.json", 2},
      {"51_view_two_minus1.json", 2},
      {"56_sym_size_oob.json", 2},
      {"61_getitem_oob.json", 2},
      {"62_cat_empty.json", 2},
      {"63_expand_neg.json", 2},
      {"75_stride_neg.json", 2},
      {"83_permute_bad.json", 2},
      {"84_unsqueeze_oob.json", 2},
      {"99_all_to_all_bool_splits.json", 2},
      {"99b_all_to_all_int_splits.json", 2},
  };
  for (const auto& [file, code] : repros) {
    const std::string path = "tests/repros/" + file;
    CliResult run = run_run({path});  // first: it moves to the repository root, where path is
    CliResult check = run_cli({"check", path});
    EXPECT_EQ(check.err.find("cannot open"), std::string::npos) << check.err;
    EXPECT_EQ(check.exit_code, code) << file << " (check)\n" << result_text(check);
    EXPECT_EQ(run.exit_code, code) << file << " (run)\n" << result_text(run);
    EXPECT_EQ(run.signal, 0) << file;
  }
}

// repros/graphs/100: the hint n=5 cannot broadcast with 3. `check` says so; `run` once drew
// n=3 in silence and succeeded. Hints are not redrawn: the same error, the same exit code.
TEST(RunCli, FailsLikeCheckWhenTheHintsDoNotTypeCheck) {
  const std::string path = "tests/repros/100_run_redraws_hint.json";
  CliResult run = run_run({path});  // first: it moves to the repository root, where path is
  CliResult check = run_cli({"check", path});
  EXPECT_EQ(check.exit_code, 1) << result_text(check);
  EXPECT_EQ(run.exit_code, 1) << result_text(run);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("node a (aten.add.Tensor)"), std::string::npos) << run.err;
  // Dims that type-check run; --random-dims draws dims, again until the graph type-checks.
  EXPECT_EQ(run_run({path, "--dim", "n=3"}).exit_code, 0);
  CliResult drawn = run_run({path, "--random-dims"});
  EXPECT_EQ(drawn.exit_code, 0) << result_text(drawn);
  EXPECT_EQ(drawn.out.rfind("dims: n=3\n", 0), 0u) << drawn.out;
}

// --save-nodes writes every node's tensor value (inputs, constants, ops; a list's items as
// NAME_0, NAME_1, ...), also the nodes that ran before a failure; non-finite constants written
// {"float": "-inf"} (as from_fx writes them) hold those values.
TEST(RunCli, SaveNodesWritesEveryNodesValue) {
  TextGraphFile g("save_nodes.json",
                  R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]},
  {"name": "c", "op": "get_attr", "target": "c", "dtype": "float32", "shape": [2], "value": [{"float": "-inf"}, 1.5]},
  {"name": "m", "op": "call_function", "target": "aten.maximum.default", "args": [{"node": "x"}, {"node": "c"}]},
  {"name": "s", "op": "call_function", "target": "aten.split.Tensor", "args": [{"node": "m"}, 1]},
  {"name": "n", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "output", "op": "output", "args": [[{"node": "m"}]]})");
  const fs::path dir =
      fs::temp_directory_path() / ("symshape_run_cli_nodes_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CliResult r = run_run({g.path(), "--save-nodes", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"c.npy", "m.npy", "s_0.npy", "s_1.npy", "x.npy"}));
  interp::Tensor c = interp::read_npy((dir / "c.npy").string());
  ASSERT_EQ(c.numel(), 2);
  EXPECT_EQ(c.values()[0].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.values()[1].as_double(), 1.5);
  interp::Tensor x = interp::read_npy((dir / "x.npy").string());
  interp::Tensor m = interp::read_npy((dir / "m.npy").string());
  interp::Tensor s1 = interp::read_npy((dir / "s_1.npy").string());
  EXPECT_EQ(m.values()[0].as_double(), x.values()[0].as_double());
  EXPECT_EQ(m.values()[1].as_double(), std::max(1.5, x.values()[1].as_double()));
  EXPECT_EQ(s1.values()[0].as_double(), m.values()[1].as_double());
  fs::remove_all(dir);

  // Inputs read from --inputs are not written again.
  const fs::path in = dir.string() + "_in";
  fs::create_directories(in);
  interp::write_npy((in / "x.npy").string(), x);
  CliResult given = run_run({g.path(), "--inputs", in.string(), "--save-nodes", dir.string()});
  ASSERT_EQ(given.exit_code, 0) << result_text(given);
  EXPECT_FALSE(fs::exists(dir / "x.npy"));
  EXPECT_TRUE(fs::exists(dir / "m.npy"));
  fs::remove_all(dir);
  fs::remove_all(in);

  // After a failure: the nodes before it.
  TextGraphFile bad("save_nodes_bad.json",
                    R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [3]},
  {"name": "y", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "x"}]},
  {"name": "v", "op": "call_function", "target": "aten.view.default", "args": [{"node": "y"}, [2, -1]]},
  {"name": "output", "op": "output", "args": [[{"node": "v"}]]})");
  CliResult failed = run_run({bad.path(), "--save-nodes", dir.string()});
  EXPECT_NE(failed.exit_code, 0) << result_text(failed);
  EXPECT_TRUE(fs::exists(dir / "x.npy"));
  EXPECT_TRUE(fs::exists(dir / "y.npy"));
  EXPECT_FALSE(fs::exists(dir / "v.npy"));
  fs::remove_all(dir);
}

// A model's parameters are get_attr nodes (symshape.fx writes them so): --inputs gives their
// values as it gives the placeholders'; a file naming neither is still an error.
TEST(RunCli, InputsGiveConstantsTheirValues) {
  TextGraphFile g("inputs_constants.json",
                  R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]},
  {"name": "w", "op": "get_attr", "target": "fc.weight", "dtype": "float32", "shape": [2]},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, {"node": "w"}]},
  {"name": "output", "op": "output", "args": [[{"node": "m"}]]})");
  const fs::path in =
      fs::temp_directory_path() / ("symshape_run_cli_consts_" + std::to_string(::getpid()));
  fs::remove_all(in);
  fs::create_directories(in);
  interp::write_npy((in / "x.npy").string(), interp::Tensor::from(DType::Float32, {2},
                                                                  {interp::Scalar::of_float(2.0),
                                                                   interp::Scalar::of_float(3.0)}));
  interp::write_npy(
      (in / "w.npy").string(),
      interp::Tensor::from(DType::Float32, {2},
                           {interp::Scalar::of_float(5.0), interp::Scalar::of_float(-1.0)}));
  const fs::path out = in.string() + "_out";
  CliResult r = run_run({g.path(), "--inputs", in.string(), "--save", out.string()});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  interp::Tensor m = interp::read_npy((out / "m.npy").string());
  ASSERT_EQ(m.numel(), 2);
  EXPECT_EQ(m.values()[0].as_double(), 10.0);
  EXPECT_EQ(m.values()[1].as_double(), -3.0);
  fs::remove_all(out);

  interp::write_npy(
      (in / "wx.npy").string(),
      interp::Tensor::from(DType::Float32, {2},
                           {interp::Scalar::of_float(1.0), interp::Scalar::of_float(1.0)}));
  CliResult typo = run_run({g.path(), "--inputs", in.string()});
  EXPECT_EQ(typo.exit_code, 2) << result_text(typo);
  EXPECT_NE(typo.err.find("wx.npy' names no input or constant of the graph"), std::string::npos)
      << typo.err;
  fs::remove_all(in);
}

TEST(RunCli, Help) {
  CliResult r = run_run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("usage: symshape run GRAPH.json", 0), 0u) << r.out;
  CliResult top = run_cli({"--help"});
  EXPECT_NE(top.out.find("  run "), std::string::npos) << top.out;
}

}  // namespace
}  // namespace symshape::cli_test
