// simplify() of floor and ceiling division: one test per rule, with the cases where the rule
// must not fire because its precondition is not known.
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

const Expr z = Expr::symbol("z");
const Expr a = Expr::symbol("a"), b = Expr::symbol("b");
const Expr w = Expr::symbol("w"), h = Expr::symbol("h");

// Facts under which every symbol ranges over [lo, hi].
Facts ranged(int lo, int hi) { return Facts(ValueRange::closed(Int(lo), Int(hi))); }

TEST(SimplifyFloorDiv, FoldsConstants) {
  EXPECT_EQ(simp(floordiv(Expr(-7), Expr(2))), "-4");
  EXPECT_EQ(simp(floordiv(Expr(7), Expr(-2))), "-4");
  // Folding happens again once a substitution makes the arguments constant.
  Expr e = floordiv(x + 3, y).subs({{"x", Expr(4)}, {"y", Expr(2)}});
  EXPECT_EQ(simp(e), "3");
}

TEST(SimplifyFloorDiv, MergesNestedDivisions) {
  EXPECT_EQ(simp(floordiv(floordiv(x, 2), 3), unconstrained()), "x//6");
  EXPECT_EQ(simp(floordiv(floordiv(x, a), b)), "x//(a*b)");
  // Only the outer divisor must be positive: floor(floor(r) / b) == floor(r / b) for b > 0.
  Facts f = unconstrained();
  f.set_range("b", ValueRange::at_least(Int(1)));
  EXPECT_EQ(simp(floordiv(floordiv(x, a), b), f), "x//(a*b)");
}

TEST(SimplifyFloorDiv, KeepsNestedDivisionsWhenTheOuterDivisorMayBeNegative) {
  // x = 1, a = 2, b = -1: (1 // 2) // -1 == 0 while 1 // -2 == -1. The rule needs b > 0.
  EXPECT_EQ(simp(floordiv(floordiv(x, a), b), ranged(-5, 5)), "(x//a)//b");
  // A negated quotient merges too: (-(x//2))//3 == -((x//2 + 2)//3) == -((x + 4)//6).
  EXPECT_EQ(simp(floordiv(floordiv(x, 2), -3), unconstrained()), "-((x + 4)//6)");
}

TEST(SimplifyFloorDiv, PullsMultiplesOfAConstantDivisor) {
  EXPECT_EQ(simp(floordiv(4 * x + 3, 4), unconstrained()), "x");
  EXPECT_EQ(simp(floordiv(4 * x + y, 4), unconstrained()), "x + y//4");
  EXPECT_EQ(simp(floordiv(8 * x + 4 * y + z, 4), unconstrained()), "2*x + y + z//4");
  // The constant term is split too: 9 == 2*4 + 1, so quotients with offsets that differ by a
  // multiple of 4 meet; the printer folds the constant back in, as a person writes it.
  EXPECT_EQ(simp(floordiv(x + 9, 4), unconstrained()), "(x + 9)//4");
  EXPECT_EQ(simp(floordiv(x - 1, 4), unconstrained()), "(x - 1)//4");
  EXPECT_EQ(simp(floordiv(x + 9, 4) - floordiv(x + 1, 4), unconstrained()), "2");
  EXPECT_EQ(simp(floordiv(x - 1, 4) - floordiv(x + 3, 4), unconstrained()), "-1");
}

TEST(SimplifyFloorDiv, PullsMultiplesOfASymbolicDivisor) {
  EXPECT_EQ(simp(floordiv(x * d + y, d), unconstrained()), "x + y//d");
  EXPECT_EQ(simp(floordiv(x * y + 3, y), unconstrained()), "x + 3//y");
  // Nothing moves when no term is a multiple.
  EXPECT_EQ(simp(floordiv(x + y, d), unconstrained()), "(x + y)//d");
}

TEST(SimplifyFloorDiv, CancelsCommonFactors) {
  EXPECT_EQ(simp(floordiv(6 * x, 4), unconstrained()), "(3*x)//2");
  EXPECT_EQ(simp(floordiv(2 * x, 2 * y), unconstrained()), "x//y");
  EXPECT_EQ(simp(floordiv(6 * x + 4, 2 * y), unconstrained()), "(3*x + 2)//y");
  EXPECT_EQ(simp(floordiv(x * y, x * z)), "y//z");
  EXPECT_EQ(simp(floordiv(x * x * y, x * z)), "(x*y)//z");
  // A polynomial common factor.
  EXPECT_EQ(simp(floordiv((a + b) * x, (a + b) * y)), "x//y");
}

TEST(SimplifyFloorDiv, KeepsACommonFactorThatMayBeZero) {
  // With x == 0 the division is undefined; cancelling x would make it defined.
  EXPECT_EQ(simp(floordiv(x * y, x * z), ranged(-3, 3)), "(x*y)//(x*z)");
}

TEST(SimplifyFloorDiv, DividesPolynomialsExactly) {
  EXPECT_EQ(simp(floordiv(a * a - b * b, a + b)), "a - b");
  EXPECT_EQ(simp(floordiv((w + h) * 65, w + h)), "65");
  EXPECT_EQ(simp(floordiv(x * y + x, x)), "y + 1");
  EXPECT_EQ(simp(floordiv(x * y * a, y * a)), "x");
  // A symbol divisor taken off each term's factors: a power lowered, a factor dropped.
  EXPECT_EQ(simp(floordiv(x * x * x * y, x)), "x**2*y");
  EXPECT_EQ(simp(floordiv(pow(x, 2), x)), "x");
  EXPECT_EQ(simp(floordiv(4 * x * x + 768 * x * y + x, x)), "4*x + 768*y + 1");
  EXPECT_EQ(simp(floordiv(x * y + 2 * x, z)), "(x*y + 2*x)//z");
}

TEST(SimplifyFloorDiv, LeavesAloneADivisorThatMayBeZero) {
  EXPECT_EQ(simp(floordiv(a * a - b * b, a + b), ranged(-5, 5)), "(a**2 - b**2)//(a + b)");
  EXPECT_EQ(simp(floordiv(x * y, y), ranged(-5, 5)), "(x*y)//y");
}

TEST(SimplifyFloorDiv, IsZeroBelowTheDivisor) {
  EXPECT_EQ(simp(floordiv(x, x + 1)), "0");
  Facts f = unconstrained();
  f.set_range("x", ValueRange::closed(Int(0), Int(100)));
  EXPECT_EQ(simp(floordiv(x, x + 1), f), "0");
  // x may be negative: -1 // 0 is not the question, but -3 // -2 == 1.
  EXPECT_EQ(simp(floordiv(x, x + 1), ranged(-20, 20)), "x//(x + 1)");
}

TEST(SimplifyFloorDiv, IsZeroWhenAnAssumedRelationKeepsTheDividendBelowTheDivisor) {
  Facts f;  // sizes: x, y >= 1
  f.assume(x + y < 8);
  EXPECT_EQ(simp(floordiv(x + y, 8), f), "0");
  EXPECT_EQ(simp(floordiv(x + y, 8)), "(x + y)//8");
  Facts g;
  g.assume(x < d);
  EXPECT_EQ(simp(floordiv(x, d), g), "0");
  EXPECT_EQ(simp(floordiv(x, d)), "x//d");
}

TEST(SimplifyFloorDiv, UsesRangesForAConstantResult) {
  Facts f = unconstrained();
  f.set_range("x", ValueRange::closed(Int(8), Int(11)));
  EXPECT_EQ(simp(floordiv(x, 4), f), "2");
  EXPECT_EQ(simp(floordiv(x + 1, 4), f), "(x + 1)//4");  // 9..12 spans two quotients
  f.set_range("y", ValueRange::closed(Int(0), Int(6)));
  EXPECT_EQ(simp(floordiv(y + 1, 8), f), "0");
}

TEST(SimplifyFloorDiv, UsesDivisibilityFacts) {
  Facts even;
  even.add_divisibility(x, Expr(2));
  // x // 2 is the exact quotient (printed as x//2, but a rational expression, not a call).
  Expr half = simplify(floordiv(x, 2), even);
  EXPECT_TRUE(half.identical(exact_div(x, Expr(2)))) << half.str();
  EXPECT_EQ(function_of(half.ex()), Fn::None);
  EXPECT_EQ(simp(floordiv(x, floordiv(x, 2)), even), "2");
  // Four times the exact quotient is 2*x.
  EXPECT_EQ(simp(4 * floordiv(x, 2), even), "2*x");
  // 2 | x does not make x // 4 exact, but it does split x + 8.
  EXPECT_EQ(function_of(simplify(floordiv(x, 4), even).ex()), Fn::FloorDiv);
  EXPECT_EQ(simp(floordiv(x + 8, 4), even), "x//4 + 2");

  Facts four;
  four.add_divisibility(x, Expr(4));
  EXPECT_TRUE(simplify(floordiv(x + 8, 4), four).identical(exact_div(x + 8, Expr(4))));
  EXPECT_TRUE(simplify(floordiv(x, 2), four).identical(exact_div(x, Expr(2))));
}

TEST(SimplifyFloorDiv, UsesAnAssumedRemainderOfZero) {
  // What the ShapeEnv records from a guard `s0 % 2 == 0`: then s0 // (s0 // 2) == 2.
  Expr s0 = Expr::symbol("s0");
  Facts f;
  f.assume(mod(s0, 2) == Expr(0));
  EXPECT_EQ(simp(floordiv(s0, floordiv(s0, 2)), f), "2");
  EXPECT_EQ(simp(2 * floordiv(s0, 2), f), "s0");
}

TEST(SimplifyFloorDiv, UsesASymbolicDivisibilityFact) {
  Facts f;
  f.add_divisibility(x * y, z);
  Expr q = simplify(floordiv(x * y, z), f);
  EXPECT_TRUE(q.identical(exact_div(x * y, z))) << q.str();
  EXPECT_EQ(simp(z * floordiv(x * y, z), f), "x*y");
  // A fact about x*y says nothing about x.
  EXPECT_EQ(simp(floordiv(x, z), f), "x//z");
}

TEST(SimplifyFloorDiv, NormalizesTheSignOfTheDivisor) {
  // A negated numerator comes out too: (-x)//2 == -((x + 1)//2).
  EXPECT_EQ(simp(floordiv(x, -2), unconstrained()), "-((x + 1)//2)");
  EXPECT_EQ(simp(floordiv(x, -y), unconstrained()), "(-x)//y");
}

TEST(SimplifyFloorDiv, ClearsExactQuotientsInTheArguments) {
  Facts even;
  even.add_divisibility(x, Expr(2));
  // (x/2) // 3 == x // 6 for every x, and the simplified form has no fraction inside.
  EXPECT_EQ(simp(floordiv(exact_div(x, Expr(2)), 3), even), "x//6");
}

TEST(SimplifyCeilDiv, UsesTheFloorFormForAConstantDivisor) {
  EXPECT_EQ(simp(ceildiv(x, 4), unconstrained()), "(x + 3)//4");
  EXPECT_EQ(simp(ceildiv(4 * x, 4), unconstrained()), "x");
  EXPECT_EQ(simp(ceildiv(4 * x + 1, 4), unconstrained()), "x + 1");
  EXPECT_EQ(simp(ceildiv(x, -2), unconstrained()), "-(x//2)");
  EXPECT_EQ(simp(ceildiv(Expr(7), Expr(2))), "4");
}

TEST(SimplifyCeilDiv, KeepsASymbolicDivisorUnlessTheFloorFormSimplifies) {
  EXPECT_EQ(simp(ceildiv(x, y), unconstrained()), "ceildiv(x, y)");
  EXPECT_EQ(simp(ceildiv(x * y, y)), "x");
  EXPECT_EQ(simp(ceildiv(x * y + z, y), unconstrained()), "x + ceildiv(z, y)");
  // ceildiv(1, y) is 1 for every y >= 1.
  EXPECT_EQ(simp(ceildiv(x * y + 1, y)), "x + 1");
}

}  // namespace
}  // namespace symshape
