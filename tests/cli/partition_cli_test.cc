// End-to-end tests of `symshape partition`: the summary, the files it writes (which `check`
// accepts), --verify, and the errors a user meets, with their exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "symshape/ir.h"
#include "symshape/partition.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;

CliResult run_partition(std::vector<std::string> args) {
  args.insert(args.begin(), "partition");
  return run_in_root(args);
}

// A fresh directory under /tmp, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& stem)
      : path_(fs::temp_directory_path() / (stem + "_" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  std::string file(const std::string& name, const std::string& text = "") const {
    const fs::path p = path_ / name;
    if (!text.empty()) std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

TEST(PartitionCli, SplitsResNetAndVerifies) {
  TempDir dir("symshape_partition_cli");
  const std::string out = (dir.path() / "resnet").string();
  CliResult r = run_partition(
      {"examples/resnet_block.json", "--supported", "examples/partition/supported.json", "-o", out,
       "--verify", "--verify-dim", "batch=1", "--verify-dim", "h=9", "--verify-dim", "w=8"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "part0_backend.json   backend   2 nodes  inputs: x  outputs: getitem, size_h, size_w\n"
            "part1_fallback.json  fallback  1 node   inputs: getitem, size_h (size h), size_w "
            "(size w)  outputs: relu\n"
            "part2_backend.json   backend   5 nodes  inputs: x, relu  outputs: add\n"
            "part3_fallback.json  fallback  1 node   inputs: add, size_h (size h), size_w (size "
            "w)  outputs: relu_1\n"
            "4 partitions (2 backend, 2 fallback) written to " +
                out +
                "/partitioned.json\n"
                "verified: the partitioned program's outputs equal the graph's at batch=1, "
                "h=9, w=8\n");
  // Every partition is a graph `check` accepts, and the manifest reads back.
  for (const char* file :
       {"part0_backend.json", "part1_fallback.json", "part2_backend.json", "part3_fallback.json"}) {
    CliResult check = run_in_root({"check", out + "/" + file});
    EXPECT_EQ(check.exit_code, 0) << file << "\n" << result_text(check);
  }
  CliResult relu = run_in_root({"check", out + "/part1_fallback.json"});
  EXPECT_NE(relu.out.find("size_h: int64[h]"), std::string::npos) << relu.out;
  Expected<PartitionedProgram> back = read_partitioned(out + "/partitioned.json");
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->partitions.size(), 4u);
}

TEST(PartitionCli, NamesForcedOutAndCommaListedOps) {
  TempDir dir("symshape_partition_cli_gpt");
  const std::string out = (dir.path() / "gpt").string();
  CliResult r = run_partition({"examples/gpt_small.json", "--supported",
                               "examples/partition/supported.json", "--supported-ops", "aten.gelu",
                               "--fallback-node", "^h3_", "-o", out, "--verify"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("part1_fallback.json  fallback  25 nodes  inputs: h2_res2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("3 partitions (2 backend, 1 fallback) written to "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verified: the partitioned program's outputs equal the graph's at "
                       "batch=2, seq=16\n"),
            std::string::npos)
      << r.out;
  // min-block-size above every block: one fallback partition.
  CliResult one = run_partition({"examples/gpt_small.json", "--supported-ops", "aten.mm,aten.add",
                                 "--min-block-size", "1000", "-o", out});
  ASSERT_EQ(one.exit_code, 0) << result_text(one);
  EXPECT_NE(one.out.find("1 partition (0 backend, 1 fallback)"), std::string::npos) << one.out;
  // The files of the earlier, longer program are gone.
  EXPECT_FALSE(fs::exists(out + "/part2_backend.json"));
  EXPECT_TRUE(fs::exists(out + "/part0_fallback.json"));
}

TEST(PartitionCli, HelpDescribesTheCommand) {
  CliResult r = run_partition({"--help"});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("usage: symshape partition GRAPH.json --supported FILE"), std::string::npos);
  EXPECT_NE(r.out.find("--fallback-node REGEX"), std::string::npos);
  CliResult list = run_in_root({"--help"});
  EXPECT_NE(list.out.find("  partition "), std::string::npos) << list.out;
}

// docs/cli.md: every `$ symshape partition ...` example shows the real output.
TEST(PartitionCli, DocExamplesShowTheRealOutput) {
  auto examples = doc_examples("partition");
  EXPECT_GE(examples.size(), 3u) << "docs/cli.md: too few `symshape partition` examples";
  for (const auto& [args, expected] : examples) {
    std::vector<std::string> full = {"partition"};
    for (const std::string& a : args) {
      // The shell's quotes around a regex.
      full.push_back(a.size() > 1 && a.front() == '\'' ? a.substr(1, a.size() - 2) : a);
    }
    CliResult r = run_in_root(full);
    EXPECT_EQ(r.out + r.err, expected) << "docs/cli.md: " << result_text(r);
  }
  fs::remove_all("/tmp/symshape_resnet_parts");
}

struct BadCase {
  std::vector<std::string> args;
  int exit_code;
  std::string message;  // in stderr
};

TEST(PartitionCli, BadInputIsRefusedWithItsReason) {
  TempDir dir("symshape_partition_cli_bad");
  const std::string out = (dir.path() / "out").string();
  const std::string graph = "examples/resnet_block.json";
  const std::string ok = "examples/partition/supported.json";
  const std::string malformed = dir.file("malformed.json", "[\"aten.mm\",");
  const std::string wrong = dir.file("wrong.json", "{\"ops\": [\"aten.mm\", 7]}");
  const std::string not_dir = dir.file("a_file", "x");
  const std::vector<BadCase> cases = {
      {{graph, "--supported", ok}, 2, "symshape: error: missing -o DIR"},
      {{graph, "-o", out}, 2, "symshape: error: missing --supported FILE"},
      {{graph, "--supported", malformed, "-o", out}, 2, "symshape: error: " + malformed + ": "},
      {{graph, "--supported", wrong, "-o", out},
       2,
       "symshape: error: " + wrong + ": ops[1]: expected an op name string, got a number"},
      {{graph, "--supported", dir.file("missing.json"), "-o", out},
       2,
       "missing.json: cannot open: No such file or directory"},
      {{graph, "--supported", ok, "--fallback-node", "relu(", "-o", out},
       2,
       "symshape: error: bad --fallback-node regex 'relu(': "},
      {{graph, "--supported", ok, "--min-block-size", "-3", "-o", out},
       2,
       "bad value '-3' for --min-block-size (expected a non-negative integer)"},
      {{graph, "--supported", ok, "--bogus", "-o", out},
       2,
       "symshape: error: unknown flag '--bogus'"},
      {{graph, "--supported", ok, "--supported", ok, "-o", out}, 2, "--supported is given twice"},
      {{graph, "--supported-ops", "aten.mm,aten add", "-o", out},
       2,
       "--supported-ops 'aten.mm,aten add': op name 'aten add' holds a space"},
      {{"examples/nope.json", "--supported", ok, "-o", out}, 2, "examples/nope.json: cannot open"},
      {{graph, "--supported", ok, "-o", not_dir}, 2, "a_file: cannot create the directory"},
      {{graph, "--supported", ok, "--verify-dim", "q=3", "-o", out},
       2,
       "--verify-dim 'q': the graph has no dim 'q'"},
      {{"tests/propagate/graphs/broadcast_error.json", "--supported", ok, "-o", out},
       1,
       "symshape: error: "},
      {{graph}, 2, "symshape: error: missing -o DIR"},
      {{}, 2, "symshape: error: missing GRAPH.json"},
  };
  for (const BadCase& c : cases) {
    CliResult r = run_partition(c.args);
    std::string what;
    for (const std::string& a : c.args) what += " " + a;
    EXPECT_EQ(r.exit_code, c.exit_code) << what << "\n" << result_text(r);
    EXPECT_EQ(r.signal, 0) << what;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << what << "\n" << result_text(r);
    EXPECT_EQ(r.out, "") << what;
  }
}

}  // namespace
}  // namespace symshape::cli_test
