// End-to-end tests of `symshape ops`: the list of ops with a shape rule and their kernels, in
// text and JSON, agreeing with the registries.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ops.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

TEST(OpsCli, ListsEveryRuleWithItsKernel) {
  CliResult r = run_in_root({"ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> rules = OpRegistry::instance().targets();
  for (const std::string& op : rules) {
    EXPECT_NE(r.out.find(op + " "), std::string::npos) << op;
  }
  EXPECT_NE(r.out.find("\naten.upsample_bilinear2d "), std::string::npos);
  EXPECT_NE(r.out.find(std::to_string(rules.size()) + " ops with a shape rule, "),
            std::string::npos)
      << r.out;
}

TEST(OpsCli, JsonAgreesWithTheRegistries) {
  CliResult r = run_in_root({"ops", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  const std::vector<std::string> rules = OpRegistry::instance().targets();
  ASSERT_EQ(doc["ops"].size(), rules.size());
  EXPECT_EQ(doc["count"], rules.size());
  size_t with_kernel = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    const auto& e = doc["ops"][i];
    EXPECT_EQ(e["name"], rules[i]);
    EXPECT_EQ(e["rule"], true);
    const bool kernel = interp::KernelRegistry::instance().find(rules[i]) != nullptr;
    EXPECT_EQ(e["kernel"], kernel) << rules[i];
    with_kernel += kernel;
  }
  EXPECT_EQ(doc["with_kernel"], with_kernel);
}

TEST(OpsCli, OnnxListsTheOnnxOperatorsOnly) {
  CliResult r = run_in_root({"ops", "--onnx", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_GT(doc["count"].get<size_t>(), 20u) << r.out;
  bool reshape = false;
  for (const auto& e : doc["ops"]) {
    const std::string name = e["name"];
    EXPECT_EQ(name.rfind("aten.", 0), std::string::npos) << name;
    reshape |= name == "onnx.Reshape";
  }
  EXPECT_TRUE(reshape) << r.out;
}

TEST(OpsCli, HelpAndErrors) {
  CliResult help = run_in_root({"ops", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: symshape ops [--json]"), std::string::npos);
  CliResult extra = run_in_root({"ops", "aten.add"});
  EXPECT_EQ(extra.exit_code, 2);
  CliResult flag = run_in_root({"ops", "--jsn"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("--jsn"), std::string::npos) << flag.err;
}

}  // namespace
}  // namespace symshape::cli_test
