// `symshape expr ... --batch FILE`: one input per line, one answer per line, errors per line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace symshape::cli_test {
namespace {

std::string describe(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.signal) +
         "\n  stdout: " + r.out + "\n  stderr: " + r.err;
}

TEST(ExprBatchCli, SimplifiesEveryLineOfStandardInput) {
  CliResult r = run_cli({"expr", "simplify", "--batch", "-", "--range", "x=0..100"},
                        "(4*x + 3)//4\ns0*s1*s2//s0\n((w + h)*65)//(w + h)\n");
  SCOPED_TRACE(describe(r));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "x\ns1*s2\n65\n");
  EXPECT_EQ(r.err, "");
}

TEST(ExprBatchCli, AnErrorIsReportedOnItsLineAndTheOthersStillRun) {
  CliResult r = run_cli({"expr", "bounds", "--batch", "-"}, "(n*320 + 255) % 256\nx +\nx//2\n");
  SCOPED_TRACE(describe(r));
  EXPECT_EQ(r.exit_code, 2);
  const size_t first = r.out.find('\n');
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(r.out.substr(0, first), "[63, 255]");
  EXPECT_TRUE(r.out.substr(first + 1).starts_with("error: ")) << r.out;
  EXPECT_TRUE(r.out.ends_with("\n[0, inf]\n")) << r.out;
  EXPECT_TRUE(r.err.starts_with("symshape: error: line 2: ")) << r.err;
  EXPECT_EQ(r.err.find("line 1"), std::string::npos);
  EXPECT_EQ(r.err.find("line 3"), std::string::npos);
}

TEST(ExprBatchCli, ProvesWithSharedFactsAndReadsAFile) {
  const std::string path = ::testing::TempDir() + "symshape_batch_prove.txt";
  {
    std::ofstream f(path);
    f << "a < c\na > c\nc < 10\n";
  }
  CliResult r =
      run_cli({"expr", "prove", "--batch", path, "--assume", "a < b", "--assume", "b < c"});
  SCOPED_TRACE(describe(r));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "true\nfalse\nunknown\n");
  std::remove(path.c_str());
}

TEST(ExprBatchCli, EvalTakesBindingsPerLineAfterATabAndFromTheCommandLine) {
  CliResult r = run_cli({"expr", "eval", "--batch", "-", "y=2"}, "x % y\tx=-7\nx*y < 3\tx=1\nx\n");
  SCOPED_TRACE(describe(r));
  EXPECT_EQ(r.exit_code, 2);  // the third line has x unbound
  EXPECT_EQ(r.out.substr(0, r.out.find("error")), "1\ntrue\n");
  EXPECT_NE(r.err.find("line 3: unbound symbol 'x'"), std::string::npos) << r.err;
}

TEST(ExprBatchCli, JsonGivesOneDocumentPerLine) {
  CliResult r = run_cli({"expr", "simplify", "--batch", "-", "--json"}, "2*x - x\n)\n");
  SCOPED_TRACE(describe(r));
  EXPECT_EQ(r.exit_code, 2);
  const size_t first = r.out.find('\n');
  EXPECT_EQ(r.out.substr(0, first),
            R"({"command":"simplify","input":"2*x - x","status":"ok","result":"x","error":null})");
  EXPECT_NE(r.out.find(R"("status":"input_error")", first), std::string::npos) << r.out;
}

TEST(ExprBatchCli, AMissingFileOrAnExtraExpressionIsBadInput) {
  CliResult r = run_cli({"expr", "simplify", "--batch", "/nonexistent/symshape.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/symshape.txt"), std::string::npos) << r.err;
  r = run_cli({"expr", "simplify", "x + 1", "--batch", "-"}, "x\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("symshape: error: ")) << r.err;
}

// The input is read in blocks: a line longer than a block, lines across block boundaries, CRLF
// line ends and a last line without its newline all answer as short LF input does.
TEST(ExprBatchCli, ReadsInputLongerThanItsBuffersWithCrlfAndNoFinalNewline) {
  std::string input, expected;
  std::string sum = "1";
  for (int i = 1; i < 20000; ++i) sum += " + 1";  // 80,000 characters on one line
  input += sum + "\r\n";
  expected += "20000\n";
  for (int k = 1; k <= 3000; ++k) {
    input += "x + " + std::to_string(k) + (k % 2 ? "\n" : "\r\n");
    expected += "x + " + std::to_string(k) + "\n";
  }
  input += "2*y - y";  // no newline at the end
  expected += "y\n";
  ASSERT_GT(input.size(), size_t{100000});
  CliResult r = run_cli({"expr", "simplify", "--batch", "-"}, input);
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, expected);
  const std::string path = ::testing::TempDir() + "symshape_batch_long.txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << input;
  }
  CliResult from_file = run_cli({"expr", "simplify", "--batch", path});
  EXPECT_EQ(from_file.exit_code, 0);
  EXPECT_EQ(from_file.out, expected);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace symshape::cli_test
