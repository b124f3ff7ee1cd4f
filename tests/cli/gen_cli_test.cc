// `symshape gen`: generated graphs that the other subcommands accept.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/cli_runner.h"

namespace symshape::cli_test {
namespace {

std::string describe_without_stdout(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\n  stderr: " + r.err;
}

TEST(GenCli, LlamaWithTensorParallelismChecksWithSymbolicSizes) {
  const std::string path = ::testing::TempDir() + "symshape_gen_llama.json";
  CliResult r = run_cli({"gen", "llama", "--layers", "2", "--tp", "2", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << describe_without_stdout(r);
  EXPECT_EQ(r.out, "");
  CliResult check = run_cli({"check", path});
  EXPECT_EQ(check.exit_code, 0) << describe_without_stdout(check);
  EXPECT_NE(check.out.find("float32[batch, seq, 512]"), std::string::npos) << check.out;
  // Written to a file or to stdout, the bytes are the same.
  CliResult again = run_cli({"gen", "llama", "--layers", "2", "--tp", "2"});
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(again.out, text.str());
  std::remove(path.c_str());
}

TEST(GenCli, ResNetRunsAtSmallSizes) {
  CliResult g = run_cli({"gen", "resnet", "--blocks", "4", "--width", "4", "--classes", "3"});
  ASSERT_EQ(g.exit_code, 0) << describe_without_stdout(g);
  CliResult r = run_cli({"run", "-", "--dim", "batch=1", "--dim", "h=32", "--dim", "w=32"}, g.out);
  EXPECT_EQ(r.exit_code, 0) << describe_without_stdout(r);
}

TEST(GenCli, BadOptionsAreBadInput) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"gen", "llama", "--layers", "0"},
                                                                {"gen", "llama", "--tp", "3"},
                                                                {"gen", "resnet", "--layers", "2"},
                                                                {"gen", "gpt"},
                                                                {"gen"}}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << describe_without_stdout(r);
    EXPECT_TRUE(r.err.starts_with("symshape: error: ")) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace symshape::cli_test
