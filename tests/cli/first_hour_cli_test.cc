// What a new user meets in the first hour with the CLI (issue 32's smaller items): the usage
// block of docs/cli.md, `lower`'s flags checked before any pass runs, read errors that name the
// file, reports that read the same in every case, and `--lang cpp-function` that compiles.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <unistd.h>

#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

// A graph file in the temporary directory, removed at the end of the test.
class TempGraph {
 public:
  TempGraph(const std::string& stem, const std::string& text)
      : path_(fs::temp_directory_path() / (stem + "_" + std::to_string(getpid()) + ".json")) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempGraph() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

std::string graph(const std::string& dims, const std::string& nodes) {
  return R"({"format": "symshape-graph", "version": 1, "dims": )" + dims + R"(, "nodes": )" +
         nodes + "}";
}

// The command names of a usage text's `commands:` block.
std::set<std::string> commands_of(const std::string& text) {
  std::set<std::string> names;
  const size_t begin = text.find("commands:\n");
  if (begin == std::string::npos) return names;
  std::istringstream in(text.substr(begin + 10));
  for (std::string line; std::getline(in, line) && line.starts_with("  ");) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.insert(name);
  }
  return names;
}

TEST(FirstHourCli, DocsUsageBlockListsEveryCommand) {
  CliResult help = run_cli({"--help"});
  ASSERT_EQ(help.exit_code, 0) << result_text(help);
  const std::set<std::string> listed = commands_of(help.out);
  ASSERT_TRUE(listed.count("ops") && listed.count("gen")) << help.out;
  EXPECT_EQ(commands_of(read_text(source_dir() / "docs/cli.md")), listed);
}

TEST(FirstHourCli, DumpOfAPassThatDoesNotRunIsAnError) {
  CliResult r = run_lower({"examples/cleanup_demo.json", "--passes", "cse", "--dump-after", "dce"});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_NE(r.err.find("'dce' is not among the passes run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  CliResult before =
      run_lower({"examples/cleanup_demo.json", "--passes", "cse", "--dump-before", "dce"});
  EXPECT_EQ(before.exit_code, 2) << result_text(before);
  CliResult ok =
      run_lower({"examples/cleanup_demo.json", "--passes", "dce", "--dump-after", "dce"});
  EXPECT_EQ(ok.exit_code, 0) << result_text(ok);
}

TEST(FirstHourCli, OutputPathIsCheckedFirstWithTheSystemsReason) {
  CliResult r = run_lower({"examples/cleanup_demo.json", "-o", "/nonexistent/dir/x.json"});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_NE(r.err.find("cannot write '/nonexistent/dir/x.json': No such file or directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "") << "no pass should have run";
}

TEST(FirstHourCli, UndefinedNodeReferenceNamesTheFile) {
  TempGraph g("symshape_undefined_ref",
              graph("{}", R"([{"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]},
                  {"name": "r", "op": "call_function", "target": "aten.relu.default",
                   "args": [{"node": "nowhere"}]},
                  {"name": "output", "op": "output", "args": [{"node": "r"}]}])"));
  for (const char* command : {"check", "guards", "lower"}) {
    CliResult r = run_cli({command, g.path()});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << result_text(r);
    EXPECT_NE(r.err.find("symshape: error: " + g.path() + ": "), std::string::npos)
        << command << ": " << r.err;
    EXPECT_NE(r.err.find("'nowhere'"), std::string::npos) << r.err;
  }
}

TEST(FirstHourCli, OneNumericRunIsSingular) {
  TempGraph g(
      "symshape_one_run",
      graph("{}", R"([{"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2, 3]},
                  {"name": "d", "op": "call_function", "target": "aten.relu.default",
                   "args": [{"node": "x"}]},
                  {"name": "c", "op": "call_function", "target": "aten.clone.default",
                   "args": [{"node": "x"}]},
                  {"name": "output", "op": "output", "args": [{"node": "c"}]}])"));
  CliResult r = run_cli({"lower", g.path(), "--passes", "dce", "--verify-numerics"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("numerics checked in 1 run "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1 runs"), std::string::npos) << r.out;
}

// decompose makes an in-place op on an input functional (functionalize runs first) and writes
// the input back: the report says so whether or not the pass decomposed anything else.
TEST(FirstHourCli, DecomposeReportsWhatItKeptEitherWay) {
  const std::string x = R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [4]})";
  const std::string add_ = R"({"name": "a", "op": "call_function", "target": "aten.add_.Tensor",
                   "args": [{"node": "x"}, {"node": "x"}]})";
  TempGraph write_only(
      "symshape_write_only",
      graph("{}", "[" + x + ", " + add_ +
                      R"(, {"name": "output", "op": "output", "args": [{"node": "a"}]}])"));
  TempGraph write_and_linear(
      "symshape_write_linear",
      graph("{}", "[" + x + ", " + add_ + R"(, {"name": "w", "op": "placeholder",
                   "dtype": "float32", "shape": [3, 4]},
                   {"name": "l", "op": "call_function", "target": "aten.linear.default",
                   "args": [{"node": "a"}, {"node": "w"}]},
                   {"name": "output", "op": "output", "args": [{"node": "l"}]}])"));
  for (const TempGraph* g : {&write_only, &write_and_linear}) {
    CliResult r = run_cli({"lower", g->path(), "--passes", "decompose"});
    ASSERT_EQ(r.exit_code, 0) << result_text(r);
    EXPECT_NE(r.out.find("writes made functional: 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("inputs written back: 1"), std::string::npos) << r.out;
  }
}

// The complete function compiles as is with g++ against symshape/guard_int.h, and answers as
// the guards do.
TEST(FirstHourCli, CppFunctionCompilesAndChecks) {
  CliResult r = run_in_root({"guards", "examples/mlp.json", "--lang", "cpp-function"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("bool guard(const int64_t* sizes)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("//   sizes[0] = L['x'].size()[0]"), std::string::npos) << r.out;
  const fs::path dir = fs::temp_directory_path() / ("symshape_cpp_fn_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "guard.cc") << r.out;
  std::ofstream(dir / "main.cc") << "#include <cstdint>\n#include <cstdlib>\n"
                                    "bool guard(const int64_t* sizes);\n"
                                    "int main(int argc, char** argv) {\n"
                                    "  int64_t v[64] = {};\n"
                                    "  for (int i = 1; i < argc && i <= 64; ++i)\n"
                                    "    v[i - 1] = std::atoll(argv[i]);\n"
                                    "  return guard(v) ? 0 : 3;\n}\n";
  const std::string compile = "g++ -std=c++20 -Wall -Wextra -Werror -I" +
                              (source_dir() / "include").string() + " " +
                              (dir / "guard.cc").string() + " " + (dir / "main.cc").string() +
                              " -o " + (dir / "guard").string() + " 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0) << compile << "\n" << r.out;
  // examples/mlp.json: x[batch, 128] with 2 <= batch <= 64, contiguous.
  auto run = [&](const std::string& values) {
    return std::system(((dir / "guard").string() + " " + values).c_str());
  };
  EXPECT_EQ(run("8 128 128 1"), 0);
  EXPECT_NE(run("8 64 64 1"), 0);     // the wrong feature size
  EXPECT_NE(run("65 128 128 1"), 0);  // batch above its range
  fs::remove_all(dir);
}

// scripts/run-example prints one line per step, and apt's and cmake's output only when a step
// fails. Fake dpkg (every package missing), apt-get and cmake, each chatty, stand in for the
// real ones on PATH; the example itself runs the real build's CLI.
TEST(FirstHourCli, RunExampleIsOneLinePerStep) {
  const fs::path bin =
      fs::temp_directory_path() / ("symshape_fake_bin_" + std::to_string(getpid()));
  fs::create_directories(bin);
  auto fake = [&](const std::string& name, const std::string& body) {
    std::ofstream(bin / name) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(bin / name, fs::perms::owner_all);
  };
  const std::string chatty = "i=0; while [ $i -lt 50 ]; do echo \"$0 line $i\"; i=$((i+1)); done";
  fake("dpkg", "exit 1");
  fake("sudo", "exec \"$@\"");  // when the test runs as a user
  fake("cmake", chatty + "; exit 0");
  fake("apt-get", chatty + "; exit 0");
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
  const std::string script = (source_dir() / "scripts/run-example").string();
  CliResult ok = run_program("/bin/bash", {script});
  fake("apt-get", chatty + "; exit 100");
  CliResult failed = run_program("/bin/bash", {script});
  setenv("PATH", old_path.c_str(), 1);
  fs::remove_all(bin);

  EXPECT_EQ(ok.exit_code, 0) << result_text(ok);
  EXPECT_EQ(ok.out.find("line "), std::string::npos) << ok.out;
  EXPECT_EQ(ok.err.find("line "), std::string::npos) << ok.err;
  EXPECT_EQ(ok.out.rfind("Installing the Debian packages the CLI needs (if missing) ...\n"
                         "Building the symshape CLI in build/ ...\n",
                         0),
            0u)
      << ok.out;
  EXPECT_NE(failed.exit_code, 0) << result_text(failed);
  EXPECT_NE(failed.err.find("apt-get line 49"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("run-example: failed"), std::string::npos) << failed.err;
}

// An error decided at the example sizes says so: the values used and what the op needs. One
// that no size can avoid says nothing of sizes.
TEST(FirstHourCli, ErrorsAtTheExampleSizesNameThemAndTheCondition) {
  TempGraph g("symshape_view_hints",
              graph(R"({"batch": {"hint": 2}, "seq": {"hint": 5}})",
                    R"([{"name": "x", "op": "placeholder", "dtype": "float32",
                         "shape": ["batch", "seq", 64]},
                  {"name": "v", "op": "call_function", "target": "aten.view.default",
                   "args": [{"node": "x"}, [-1, 48]]},
                  {"name": "output", "op": "output", "args": [{"node": "v"}]}])"));
  CliResult r = run_cli({"check", g.path()});
  EXPECT_EQ(r.exit_code, 1) << result_text(r);
  EXPECT_NE(r.err.find("is invalid for input of size 64*batch*seq at the example sizes batch = "
                       "2, seq = 5 (the op needs "),
            std::string::npos)
      << r.err;
  // At sizes where it works, it works.
  CliResult fine = run_cli({"check", g.path(), "--dim", "batch=3..3"});
  EXPECT_EQ(fine.exit_code, 0) << result_text(fine);

  TempGraph s("symshape_view_static",
              graph("{}", R"([{"name": "x", "op": "placeholder", "dtype": "float32", "shape": [4]},
                  {"name": "v", "op": "call_function", "target": "aten.view.default",
                   "args": [{"node": "x"}, [3]]},
                  {"name": "output", "op": "output", "args": [{"node": "v"}]}])"));
  CliResult st = run_cli({"check", s.path()});
  EXPECT_EQ(st.exit_code, 1) << result_text(st);
  EXPECT_EQ(st.err.find("example sizes"), std::string::npos) << st.err;
}

}  // namespace
}  // namespace symshape::cli_test
