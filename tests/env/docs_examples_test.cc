// The examples of docs/semantics.md, exactly as printed there: if one of these changes, update
// the page with the new output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

TEST(SemanticsDoc, PythonIntegerSemantics) {
  EXPECT_EQ(floordiv(Expr(-7), Expr(2)).str(), "-4");
  EXPECT_EQ(floordiv(Expr(7), Expr(-2)).str(), "-4");
  EXPECT_EQ(mod(Expr(-7), Expr(2)).str(), "1");
  EXPECT_EQ(mod(Expr(7), Expr(-2)).str(), "-1");
  EXPECT_EQ(ceildiv(Expr(7), Expr(2)).str(), "4");
  EXPECT_THROW(floordiv(Expr(7), Expr(0)), Error);
}

TEST(SemanticsDoc, Walkthrough) {
  ShapeEnv env(ShapeEnvOptions{.log = true});
  SymInt n = env.create_symbol(6, "L['x'].size()[0]");
  SymInt m = env.create_symbol(6, "L['y'].size()[0]");
  SymInt k = env.create_symbol(8, "L['x'].size()[1]");
  SymInt one = env.create_symbol(1, "L['x'].size()[2]");
  EXPECT_EQ(n.str(), "s0");
  EXPECT_EQ(m.str(), "s0");
  EXPECT_EQ(k.str(), "s1");
  EXPECT_EQ(one.str(), "1");

  // Ranges.
  EXPECT_EQ(env.bound(n.expr()).str(), "[2, inf]");
  EXPECT_EQ(env.bound(floordiv(n, k).expr()).str(), "[0, inf]");
  EXPECT_EQ(env.bound(mod(n * 320 + 255, 256).expr()).str(), "[63, 255]");

  // Three-valued decisions.
  EXPECT_EQ(to_string(env.known(n >= 2)), "true");
  EXPECT_EQ(to_string(env.known(n > 4)), "unknown");
  EXPECT_EQ(to_string(env.known(n < 2)), "false");

  // A guard, and what it teaches.
  EXPECT_TRUE(env.evaluate(n > 4, {"view_1", "aten.view.default", "reshape"}));
  EXPECT_EQ(to_string(env.known(n != 4)), "true");
  EXPECT_EQ(to_string(env.known(n >= 5)), "true");
  EXPECT_EQ(to_string(env.known(n != 5)), "unknown");

  // Divisibility.
  EXPECT_TRUE(env.evaluate(mod(n, 2) == 0));
  EXPECT_EQ(env.simplify((2 * floordiv(n, 2)).expr()).str(), "s0");
  EXPECT_EQ(env.simplify(floordiv(n, floordiv(n, 2)).expr()).str(), "2");

  // guard_int specializes.
  EXPECT_EQ(env.guard_int(k * 2), 16);
  EXPECT_EQ(env.simplify((k + n).expr()).str(), "s0 + 8");

  // Unbacked symbols and the escape hatches.
  SymInt u = env.create_unbacked_symint();
  try {
    env.evaluate(u > 0, {"nonzero_1", "aten.nonzero.default", ""});
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not guard on data-dependent expression u0 > 0 (at node nonzero_1 "
              "(aten.nonzero.default))");
  }
  EXPECT_FALSE(env.guard_or_false(u > 0));
  EXPECT_TRUE(env.guard_or_true(u > 0));
  env.constrain_as_size(u);
  EXPECT_FALSE(env.guard_size_oblivious(u == 1));
  env.defer_runtime_assert(u < 4 * n, {"nonzero_1", "aten.nonzero.default", ""});

  std::vector<std::string> guards;
  for (const Guard& g : env.guards()) guards.push_back(g.cond.str() + "  # " + g.where.str());
  const std::vector<std::string> expected_guards = {
      "s0 > 4  # node view_1 (aten.view.default, reshape)",
      "s0 % 2 == 0  # ",
      "2*s1 == 16  # ",
  };
  EXPECT_EQ(guards, expected_guards);
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.runtime_asserts()[0].cond.str(), "u0 < 4*s0");
  ASSERT_EQ(env.replacements().size(), 1u);
  EXPECT_EQ(env.replacements().at("s1").str(), "8");

  const std::vector<std::string> expected_log = {
      "create_symbol s0 = 6 for L['x'].size()[0] [2, inf]",
      "create_symbol s1 = 8 for L['x'].size()[1] [2, inf]",
      "specialize L['x'].size()[2] = 1",
      "guard s0 > 4 at node view_1 (aten.view.default, reshape)",
      "guard s0 % 2 == 0",
      "guard 2*s1 == 16",
      "specialize s1 := 8",
      "create_unbacked_symint u0 [-inf, inf]",
      "constrain_range u0 [0, inf]",
      "runtime_assert u0 < 4*s0 at node nonzero_1 (aten.nonzero.default)",
  };
  EXPECT_EQ(env.log(), expected_log);
}

TEST(SemanticsDoc, EqualityMergesSymbols) {
  ShapeEnv env(ShapeEnvOptions{.duck_shape = false, .log = true});
  SymInt a = env.create_symbol(5, "L['a'].size()[0]");
  SymInt b = env.create_symbol(5, "L['b'].size()[0]");
  SymInt c = env.create_symbol(7, "L['c'].size()[0]");
  EXPECT_TRUE(env.evaluate(a == b));
  EXPECT_TRUE(env.evaluate(c == a + 2));
  EXPECT_EQ(env.simplify((a + b + c).expr()).str(), "3*s0 + 2");
  const std::vector<std::string> expected_log = {
      "create_symbol s0 = 5 for L['a'].size()[0] [2, inf]",
      "create_symbol s1 = 5 for L['b'].size()[0] [2, inf]",
      "create_symbol s2 = 7 for L['c'].size()[0] [2, inf]",
      "guard s0 == s1",
      "replace s1 := s0",
      "guard s2 == s0 + 2",
      "replace s2 := s0 + 2",
  };
  EXPECT_EQ(env.log(), expected_log);
}

}  // namespace
}  // namespace symshape
