// simplify() of modulo: one test per rule, with the cases where the rule must not fire.
#include <gtest/gtest.h>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/simplify.h"
#include "tests/simplify/simplify_test_util.h"

namespace symshape {
namespace {

using simplify_test::d;
using simplify_test::simp;
using simplify_test::unconstrained;
using simplify_test::x;
using simplify_test::y;

Facts with_range(const std::string& s, int lo, int hi) {
  Facts f = unconstrained();
  f.set_range(s, ValueRange::closed(Int(lo), Int(hi)));
  return f;
}

TEST(SimplifyMod, FoldsConstantsWithPythonSigns) {
  EXPECT_EQ(simp(mod(Expr(-7), Expr(2))), "1");
  EXPECT_EQ(simp(mod(Expr(7), Expr(-2))), "-1");
}

TEST(SimplifyMod, IsZeroForAPolynomialMultiple) {
  EXPECT_EQ(simp(mod(x * y, y)), "0");
  EXPECT_EQ(simp(mod(4 * x + 8, 4), unconstrained()), "0");
  EXPECT_EQ(simp(mod(x * x - y * y, x + y)), "0");
}

TEST(SimplifyMod, KeepsAMultipleOfADivisorThatMayBeZero) {
  EXPECT_EQ(simp(mod(x * y, y), with_range("y", -3, 3)), "(x*y) % y");
}

TEST(SimplifyMod, IsZeroForAKnownMultiple) {
  Facts even;
  even.add_divisibility(x, Expr(2));
  EXPECT_EQ(simp(mod(x, 2), even), "0");
  EXPECT_EQ(simp(mod(3 * x, 2), even), "0");
  EXPECT_EQ(simp(mod(x, 4), even), "x % 4");  // 2 | x does not give 4 | x
  Facts four;
  four.assume(mod(x, 4) == Expr(0));
  EXPECT_EQ(simp(mod(x + 8, 4), four), "0");
  EXPECT_EQ(simp(mod(x + 6, 4), four), "2");
  Facts sym;
  sym.add_divisibility(x, d);
  EXPECT_EQ(simp(mod(x, d), sym), "0");
}

TEST(SimplifyMod, DropsMultiplesOfTheDivisor) {
  EXPECT_EQ(simp(mod(4 * x + y, 4), unconstrained()), "y % 4");
  EXPECT_EQ(simp(mod(4 * x + 7, 4), unconstrained()), "3");
  EXPECT_EQ(simp(mod(4 * x + y + 7, 4), unconstrained()), "(y + 3) % 4");
  EXPECT_EQ(simp(mod(x * d + y, d), unconstrained()), "y % d");
  // With a negative divisor the constant is reduced into (c, 0].
  EXPECT_EQ(simp(mod(x + 5, -4), unconstrained()), "(x - 3) % (-4)");
}

TEST(SimplifyMod, DropsAnInnerModuloByAMultiple) {
  EXPECT_EQ(simp(mod(mod(x, 8), 4), unconstrained()), "x % 4");
  EXPECT_EQ(simp(mod(mod(x, -8), 4), unconstrained()), "x % 4");
  EXPECT_EQ(simp(mod(mod(x, 8), 3), unconstrained()), "(x % 8) % 3");
}

TEST(SimplifyMod, TakesOutACommonFactor) {
  // (3*x) % 2 is then x % 2: a coefficient at least the divisor is reduced modulo it.
  EXPECT_EQ(simp(mod(6 * x, 4), unconstrained()), "2*(x % 2)");
  EXPECT_EQ(simp(mod(6 * x, 9), unconstrained()), "3*((2*x) % 3)");
  EXPECT_EQ(simp(mod(2 * x, 2 * y), unconstrained()), "2*(x % y)");
}

TEST(SimplifyMod, IsTheDividendWithinOnePeriod) {
  EXPECT_EQ(simp(mod(x, 8), with_range("x", 0, 7)), "x");
  EXPECT_EQ(simp(mod(x, 8), with_range("x", 8, 15)), "x - 8");
  EXPECT_EQ(simp(mod(x, 4), with_range("x", -4, -1)), "x + 4");
  EXPECT_EQ(simp(mod(x, -4), with_range("x", 1, 3)), "x - 4");
  // x may reach 8.
  EXPECT_EQ(simp(mod(x, 8), with_range("x", 0, 8)), "x % 8");
  // A symbolic divisor: 0 <= x < x + 1.
  EXPECT_EQ(simp(mod(x, x + 1)), "x");
  EXPECT_EQ(simp(mod(x, x + 1), with_range("x", -5, 5)), "x % (x + 1)");
}

TEST(SimplifyMod, IsTheDividendWhenAnAssumedRelationKeepsItBelowTheDivisor) {
  Facts f;  // sizes: x, y >= 1
  f.assume(x + y < 8);
  EXPECT_EQ(simp(mod(x + y, 8), f), "x + y");
  EXPECT_EQ(simp(mod(x + y, 9), f), "x + y");
  EXPECT_EQ(simp(mod(x + y, 7), Facts()), "(x + y) % 7");
  Facts g;
  g.assume(x < d);
  EXPECT_EQ(simp(mod(x, d), g), "x");
  EXPECT_EQ(simp(mod(x, d)), "x % d");
}

TEST(SimplifyMod, UsesModularSets) {
  // 2*x + 1 is odd whatever x is; 320*n + 255 is 63 mod 64.
  EXPECT_EQ(simp(mod(2 * x + 1, 2), unconstrained()), "1");
  Expr n = Expr::symbol("n");
  EXPECT_EQ(simp(mod(320 * n + 255, 64)), "63");
}

TEST(SimplifyMod, ClearsExactQuotientsWhenTheRemainderVanishes) {
  Facts four;
  four.add_divisibility(x, Expr(4));
  // (x/2) % 2 == 0 when 4 | x.
  EXPECT_EQ(simp(mod(exact_div(x, Expr(2)), 2), four), "0");
}

}  // namespace
}  // namespace symshape
