// User constraints: declared dynamic dims that the guards contradict, and the suggested fixes.
#include <gtest/gtest.h>

#include "tests/guards/guard_test_util.h"

namespace symshape::testing {
namespace {

std::vector<ConstraintProblem> problems(const Produced& p) {
  EXPECT_TRUE(p.result.ok()) << p.result.error;
  return check_constraints(*p.env);
}

std::string fixes(const std::vector<ConstraintProblem>& ps) {
  std::string s;
  for (const ConstraintProblem& p : ps) {
    for (const std::string& f : p.fixes) s += f + "\n";
  }
  return s;
}

TEST(Constraints, DeclarationsTheGuardsRespectAreFine) {
  Produced p = produce(
      R"({"batch": {"min": 1, "max": 64, "hint": 4}, "seq": {"hint": 32}})",
      nodes({input("x", R"(["batch", "seq"])"), input("b", R"(["batch", 1])"),
             call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "b"}])"), output("add")}));
  EXPECT_TRUE(problems(p).empty());
  EXPECT_EQ(format_constraint_problems({}), "");
}

TEST(Constraints, SpecializationSuggestsTheConstant) {
  Produced p = produce(
      R"({"s": {"min": 2, "max": 64, "hint": 8}})",
      nodes({input("x", R"(["s", 4])"), input("y", R"([8, 4])"),
             call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "y"}])"), output("add")}));
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].dim, "s");
  EXPECT_EQ(ps[0].message,
            "Not all values of s = L['x'].size()[0] in the specified range 2 <= s <= 64 are "
            "valid because s was inferred to be a constant (8) (from the guard `s == 8` (node add "
            "(aten.add.Tensor, broadcast))).");
  EXPECT_EQ(fixes(ps), "s = 8\n");
}

TEST(Constraints, ExampleSizeOneSaysWhy) {
  Produced p = produce(R"({"s": {"min": 1, "max": 64, "hint": 1}})",
                       nodes({input("x", R"(["s", 4])"), output("x")}));
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_NE(ps[0].message.find("give an example size of at least 2"), std::string::npos)
      << ps[0].message;
  EXPECT_EQ(fixes(ps), "s = 1\n");
}

TEST(Constraints, NarrowedRangeSuggestsTheNewBounds) {
  Produced p = produce(
      R"({"n": {"hint": 16}, "k": {"min": 2, "max": 100, "hint": 4}})",
      nodes({input("x", R"(["n", 8])"), input("idx", R"(["k"])", "int64"),
             call("slice", "aten.slice.Tensor", R"([{"node": "x"}, 0, 0, {"expr": "k - 6"}])"),
             output("slice")}));
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(
      ps[0].message,
      "Not all values of k = L['idx'].size()[0] in the specified range 2 <= k <= 100 "
      "satisfy the generated guard `k - 6 < 0` (node slice (aten.slice.Tensor, slice_end)); the "
      "guards allow 2 <= k <= 5.");
  EXPECT_EQ(fixes(ps), "k = Dim('k', min=2, max=5)\n");
}

TEST(Constraints, DivisibilitySuggestsADerivedDim) {
  Produced p = produce(
      R"({"n": {"min": 1, "max": 1024, "hint": 8}})",
      nodes({input("x", R"(["n", 6])"),
             call("view", "aten.view.default", R"([{"node": "x"}, [-1, 4]])"), output("view")}));
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(fixes(ps), "_n = Dim('_n', min=1, max=512)\nn = 2*_n\n");
  EXPECT_EQ(format_constraint_problems(ps),
            "Constraints violated (n)!\n"
            "  - Not all values of n = L['x'].size()[0] in the specified range 1 <= n <= 1024 "
            "satisfy the generated guard `n % 2 == 0` (node view (aten.view.default, "
            "reshape_divisible)): n must be a multiple of 2.\n"
            "Suggested fixes:\n"
            "  _n = Dim('_n', min=1, max=512)\n"
            "  n = 2*_n\n");
}

TEST(Constraints, TwoDeclaredDimsForcedEqual) {
  Produced p = produce(
      R"({"a": {"min": 2, "max": 64, "hint": 8}, "b": {"min": 2, "max": 64, "hint": 8}})",
      nodes({input("x", R"(["a"])"), input("y", R"(["b"])"),
             call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "y"}])"), output("add")}));
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].dim, "b");
  EXPECT_EQ(ps[0].message,
            "The values of b = L['y'].size()[0] and a = L['x'].size()[0] must always be equal "
            "(from the guard `a == b` (node add (aten.add.Tensor, broadcast))).");
  EXPECT_EQ(fixes(ps), "b = a\n");
}

TEST(Constraints, GuardTyingTwoDimsIsReportedWithoutAFix) {
  ShapeEnv env;
  SymbolOptions oa{.name = "a", .constraint = ValueRange::closed(2, 64)};
  SymbolOptions ob{.name = "b", .constraint = ValueRange::closed(2, 64)};
  SymInt a = env.create_symbol(Int(8), "L['x'].size()[0]", DimPolicy::Dynamic, oa);
  SymInt b = env.create_symbol(Int(6), "L['y'].size()[0]", DimPolicy::Dynamic, ob);
  EXPECT_TRUE(env.evaluate(a * b > 40, {"mul", "aten.mul.Tensor", "test"}));
  std::vector<ConstraintProblem> ps = check_constraints(env);
  ASSERT_EQ(ps.size(), 2u);  // reported for each dim the guard restricts
  EXPECT_EQ(ps[0].dim, "a");
  EXPECT_EQ(ps[1].dim, "b");
  EXPECT_NE(ps[0].message.find("`a*b > 40` (node mul (aten.mul.Tensor, test))"), std::string::npos)
      << ps[0].message;
  EXPECT_TRUE(ps[0].fixes.empty());
}

TEST(Constraints, UndeclaredDimsAreNeverViolations) {
  Produced p = produce(
      R"({"s": {"hint": 8}})",
      nodes({input("x", R"(["s", 4])"), input("y", R"([8, 4])"),
             call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "y"}])"), output("add")}));
  EXPECT_TRUE(problems(p).empty());
}

TEST(Constraints, CommandLineDimDeclaresTheRange) {
  PropagateOptions options;
  options.dims["n"] = DimDecl{Int(2), Int(100), std::nullopt};
  Produced p = produce(
      R"({"n": {"hint": 8}})",
      nodes({input("x", R"(["n", 6])"),
             call("view", "aten.view.default", R"([{"node": "x"}, [-1, 4]])"), output("view")}),
      options);
  std::vector<ConstraintProblem> ps = problems(p);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(fixes(ps), "_n = Dim('_n', min=1, max=50)\nn = 2*_n\n");
}

}  // namespace
}  // namespace symshape::testing
