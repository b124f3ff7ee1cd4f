// `-` reads the graph (check, guards, check-inputs, run, lower) or the expression (expr) from
// standard input, as a file argument would.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace symshape::cli_test {
namespace {

std::string example(const std::string& name) {
  std::ifstream in(std::string(SYMSHAPE_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(StdinCli, GraphCommandsReadDashAsTheFileWouldBe) {
  const std::string path = std::string(SYMSHAPE_SOURCE_DIR) + "/examples/mlp.json";
  const std::string text = example("mlp.json");
  for (std::vector<std::string> command : {std::vector<std::string>{"check"},
                                           {"guards"},
                                           {"run", "--dim", "batch=2"},
                                           {"lower", "--passes", "dce"},
                                           {"check-inputs", "--size", "x=4,128"}}) {
    std::vector<std::string> from_file = command, from_stdin = command;
    from_file.insert(from_file.begin() + 1, path);
    from_stdin.insert(from_stdin.begin() + 1, "-");
    CliResult a = run_cli(from_file), b = run_cli(from_stdin, text);
    EXPECT_EQ(a.exit_code, 0) << command[0] << ": " << a.err;
    EXPECT_EQ(b.exit_code, a.exit_code) << command[0] << ": " << b.err;
    if (command[0] != "lower") {  // lower prints times
      EXPECT_EQ(b.out, a.out) << command[0];
    }
  }
}

TEST(StdinCli, MalformedStdinNamesStdin) {
  CliResult r = run_cli({"check", "-"}, "{\"format\": ");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("symshape: error: <stdin>: ", 0), 0u) << r.err;
}

TEST(StdinCli, ExprReadsDashFromStdin) {
  CliResult r = run_cli({"expr", "simplify", "-"}, "max(a, a + 1)\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a + 1\n");
  CliResult p = run_cli({"expr", "prove", "-", "--range", "n=4..8"}, "n >= 3");
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, "true\n");
}

}  // namespace
}  // namespace symshape::cli_test
