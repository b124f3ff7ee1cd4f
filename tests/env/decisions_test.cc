// Decisions on backed symbols: what is statically known, what is decided on the hints (with a
// guard and its provenance), and what the guards teach later decisions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/shape_env.h"
#include "tests/env/env_test_util.h"

namespace symshape {
namespace {

using env_test::guard_strings;
using env_test::source;

TEST(ShapeEnvDecisions, StaticallyKnownTrueNeverAddsAGuard) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  EXPECT_TRUE(env.statically_known_true(x >= 2));
  EXPECT_TRUE(env.statically_known_true(x * 2 >= x + 2));
  EXPECT_FALSE(env.statically_known_true(x > 4));  // true at the hint, but not known
  EXPECT_FALSE(env.statically_known_true(x < 2));  // known false
  EXPECT_EQ(env.known(x < 2), Truth::False);
  EXPECT_EQ(env.known(x > 4), Truth::Unknown);
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvDecisions, EvaluateAnswersStaticallyKnownConditionsWithoutAGuard) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  EXPECT_TRUE(env.evaluate(x >= 2));
  EXPECT_FALSE(env.evaluate(x == 1));
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvDecisions, EvaluateDecidesOnTheHintAndRecordsTheGuardWithProvenance) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(7, source(1));
  Provenance where{"view_3", "aten.view.default", "reshape"};
  EXPECT_TRUE(env.evaluate(x < y, where));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].cond.str(), "s0 < s1");
  EXPECT_EQ(env.guards()[0].where.node, "view_3");
  EXPECT_EQ(env.guards()[0].where.str(), "node view_3 (aten.view.default, reshape)");
  // The negation is recorded when the condition is false at the hints.
  EXPECT_FALSE(env.evaluate(x * 2 < y, {"add_1", "aten.add.Tensor", ""}));
  ASSERT_EQ(env.guards().size(), 2u);
  EXPECT_EQ(env.guards()[1].cond.str(), "2*s0 >= s1");
  EXPECT_EQ(env.guards()[1].where.str(), "node add_1 (aten.add.Tensor)");
  // Asked again, both are now known: no new guard.
  EXPECT_TRUE(env.evaluate(x < y));
  EXPECT_FALSE(env.evaluate(x * 2 < y));
  EXPECT_EQ(env.guards().size(), 2u);
}

TEST(ShapeEnvDecisions, ProvenancePrintsWhatIsKnown) {
  EXPECT_EQ((Provenance{"view_3", "reshape", ""}).str(), "node view_3 (reshape)");
  EXPECT_EQ((Provenance{"n", "", "broadcast"}).str(), "node n (broadcast)");
  EXPECT_EQ((Provenance{"", "aten.mm", ""}).str(), "(aten.mm)");
  EXPECT_EQ((Provenance{}).str(), "");
}

TEST(ShapeEnvDecisions, GuardIntRecordsTheValue) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(3, source(1));
  EXPECT_EQ(env.guard_int(x * y + 1, {"view_3", "reshape", ""}), 16);
  EXPECT_EQ(guard_strings(env), std::vector<std::string>{"s0*s1 + 1 == 16"});
  EXPECT_EQ(env.guards()[0].where.str(), "node view_3 (reshape)");
  // A known value needs no guard.
  EXPECT_EQ(env.guard_int(x - x + 4), 4);
  EXPECT_EQ(env.guard_int(SymInt(9)), 9);
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvDecisions, GuardIntOnASymbolSpecializesIt) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(3, source(1));
  EXPECT_EQ(env.guard_int(x), 5);
  EXPECT_EQ(guard_strings(env), std::vector<std::string>{"s0 == 5"});
  ASSERT_EQ(env.replacements().count("s0"), 1u);
  EXPECT_EQ(env.replacements().at("s0").str(), "5");
  EXPECT_EQ(env.simplify((x * y).expr()).str(), "5*s1");
  EXPECT_TRUE(env.statically_known_true(x == 5));
  EXPECT_EQ(env.bound(x.expr()).str(), "[5, 5]");
}

TEST(ShapeEnvDecisions, AStrictBoundRefinesTheRange) {
  // The example: after `x > 4`, `x != 4` and `x >= 5` are known and `x != 5` is not.
  ShapeEnv env;
  SymInt x = env.create_symbol(9, source(0));
  EXPECT_TRUE(env.evaluate(x > 4));
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.facts().range_of("s0").str(), "[5, inf]");
  EXPECT_TRUE(env.statically_known_true(x != 4));
  EXPECT_TRUE(env.statically_known_true(x >= 5));
  EXPECT_FALSE(env.statically_known_true(x != 5));
  EXPECT_EQ(env.known(x != 5), Truth::Unknown);
  EXPECT_EQ(env.bound(x.expr()).str(), "[5, inf]");
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvDecisions, UpperAndLowerBoundsRefineFromEitherSide) {
  ShapeEnv env;
  SymInt x = env.create_symbol(9, source(0));
  EXPECT_FALSE(env.evaluate(x >= 16));        // guard x < 16
  EXPECT_TRUE(env.evaluate(3 * x + 1 > 20));  // 3x > 19: x >= 7
  EXPECT_EQ(env.facts().range_of("s0").str(), "[7, 15]");
  EXPECT_TRUE(env.statically_known_true(x <= 15));
  EXPECT_TRUE(env.statically_known_true(x * 2 > 13));
  EXPECT_EQ(env.bound((x * 2).expr()).str(), "[14, 30]");
}

TEST(ShapeEnvDecisions, ARangeShrunkToOneValueBecomesAReplacement) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(8, source(1));
  EXPECT_TRUE(env.evaluate(x <= 5));
  EXPECT_TRUE(env.replacements().empty());
  EXPECT_TRUE(env.evaluate(x > 4));
  ASSERT_EQ(env.replacements().count("s0"), 1u);
  EXPECT_EQ(env.replacements().at("s0").str(), "5");
  EXPECT_EQ(env.simplify((x + y).expr()).str(), "s1 + 5");
  EXPECT_EQ(env.guard_int(x), 5);
  EXPECT_EQ(env.guards().size(), 2u);  // x is known now: guard_int added nothing
}

TEST(ShapeEnvDecisions, NotEqualAtTheEndOfARangeMovesTheEnd) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  EXPECT_FALSE(env.evaluate(x == 2));  // guard x != 2 at the low end of [2, inf]
  EXPECT_EQ(env.facts().range_of("s0").str(), "[3, inf]");
  EXPECT_TRUE(env.statically_known_true(x > 2));
}

TEST(ShapeEnvDecisions, AnEqualityGuardTurnsTwoSymbolsIntoOne) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0), DimPolicy::Dynamic);
  SymInt y = env.create_symbol(5, source(1), DimPolicy::Dynamic);
  EXPECT_FALSE(env.statically_known_true(x == y));
  EXPECT_TRUE(env.evaluate(x == y, {"add_1", "aten.add.Tensor", "broadcast"}));
  EXPECT_EQ(guard_strings(env), std::vector<std::string>{"s0 == s1"});
  // The later symbol is replaced by the earlier one.
  ASSERT_EQ(env.replacements().size(), 1u);
  EXPECT_EQ(env.replacements().at("s1").str(), "s0");
  EXPECT_EQ(env.simplify((x + y).expr()).str(), "2*s0");
  EXPECT_TRUE(env.statically_known_true(x == y));
  EXPECT_TRUE(env.statically_known_true(x - y == 0));
  EXPECT_EQ(env.simplify(floordiv(x * y, y).expr()).str(), "s0");
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvDecisions, WhatWasKnownOfTheReplacedSymbolCarriesOver) {
  ShapeEnv env;
  SymInt x = env.create_symbol(9, source(0), DimPolicy::Dynamic);
  SymInt y = env.create_symbol(9, source(1), DimPolicy::Dynamic);
  EXPECT_TRUE(env.evaluate(y > 6));  // a range on the symbol about to be replaced
  EXPECT_TRUE(env.evaluate(mod(y, 3) == 0));
  EXPECT_TRUE(env.evaluate(x == y));
  EXPECT_EQ(env.replacements().at("s1").str(), "s0");
  EXPECT_TRUE(env.statically_known_true(x >= 7));
  EXPECT_TRUE(env.statically_known_true(mod(x, 3) == 0));
}

TEST(ShapeEnvDecisions, LinearEqualitiesAreSolvedForOneSymbol) {
  ShapeEnv env;
  SymInt a = env.create_symbol(3, source(0));
  SymInt b = env.create_symbol(5, source(1));
  SymInt c = env.create_symbol(16, source(2));
  EXPECT_TRUE(env.evaluate(b == a + 2));
  EXPECT_EQ(env.replacements().at("s1").str(), "s0 + 2");
  EXPECT_TRUE(env.evaluate(a + b + c == 24));
  EXPECT_EQ(env.replacements().at("s2").str(), "-2*s0 + 22");
  EXPECT_EQ(env.simplify((a + b + c).expr()).str(), "24");
  EXPECT_TRUE(env.statically_known_true(c + 2 * a == 22));
  // The replaced symbols' ranges ([2, inf]) now bound s0: s0 + 2 >= 2 and 22 - 2*s0 >= 2.
  EXPECT_EQ(env.facts().range_of("s0").str(), "[2, 10]");
  EXPECT_EQ(*env.size_hint(c.expr()), 16);
}

TEST(ShapeEnvDecisions, AnEqualityWithANonUnitCoefficientKeepsTheQuotientExact) {
  ShapeEnv env;
  SymInt a = env.create_symbol(6, source(0));
  SymInt b = env.create_symbol(4, source(1));
  EXPECT_TRUE(env.evaluate(2 * a == 3 * b));
  // s1 is 2*s0/3: integer because 3 divides s0, which the env now knows.
  EXPECT_EQ(env.simplify(b.expr()).str(), "(2*s0)//3");
  EXPECT_EQ(*env.size_hint(b.expr()), 4);
  EXPECT_TRUE(env.statically_known_true(mod(a, 3) == 0));
  EXPECT_TRUE(env.statically_known_true(3 * b == 2 * a));
}

TEST(ShapeEnvDecisions, DivisibilityGuardMakesDivisionExact) {
  // The example: after `s0 % 2 == 0`, `s0 // (s0 // 2) == 2` is statically true.
  ShapeEnv env;
  SymInt x = env.create_symbol(6, source(0));
  SymInt q = floordiv(x, 2);
  EXPECT_FALSE(env.statically_known_true(floordiv(x, q) == 2));
  EXPECT_TRUE(env.evaluate(mod(x, 2) == 0, {"view_1", "aten.view.default", "reshape"}));
  EXPECT_EQ(guard_strings(env), std::vector<std::string>{"s0 % 2 == 0"});
  EXPECT_TRUE(env.statically_known_true(floordiv(x, q) == 2));
  // q * (p // q) is p.
  EXPECT_TRUE(env.statically_known_true(2 * q == x));
  EXPECT_EQ(env.simplify((2 * q).expr()).str(), "s0");
  EXPECT_TRUE(env.statically_known_true(mod(x, 2) == 0));
  EXPECT_TRUE(env.statically_known_true(mod(x + 1, 2) == 1));
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvDecisions, GuardsOnAnExactQuotientTeachTheSymbol) {
  ShapeEnv env;
  SymInt x = env.create_symbol(12, source(0));
  SymInt y = env.create_symbol(12, source(1), DimPolicy::Dynamic);
  EXPECT_TRUE(env.evaluate(mod(x, 2) == 0));
  EXPECT_TRUE(env.evaluate(mod(y, 4) == 0));
  // x // 2 is the exact x/2 now: a bound on it bounds x.
  EXPECT_TRUE(env.evaluate(floordiv(x, 2) >= 5));
  EXPECT_EQ(env.facts().range_of("s0").str(), "[10, inf]");
  EXPECT_TRUE(env.statically_known_true(x > 9));
  // And its value fixes x.
  EXPECT_EQ(env.guard_int(floordiv(y, 4)), 3);
  EXPECT_EQ(env.replacements().at("s1").str(), "12");
  EXPECT_EQ(env.simplify((x + y).expr()).str(), "s0 + 12");
}

TEST(ShapeEnvDecisions, DivisibilityBySymbolMakesTheProductCancel) {
  ShapeEnv env;
  SymInt p = env.create_symbol(12, source(0));
  SymInt q = env.create_symbol(4, source(1));
  EXPECT_TRUE(env.evaluate(mod(p, q) == 0));
  EXPECT_TRUE(env.statically_known_true(q * floordiv(p, q) == p));
}

TEST(ShapeEnvDecisions, GuardsBecomeFactsForLaterProofs) {
  ShapeEnv env;
  SymInt a = env.create_symbol(3, source(0));
  SymInt b = env.create_symbol(5, source(1));
  SymInt c = env.create_symbol(8, source(2));
  EXPECT_TRUE(env.evaluate(a < b));
  EXPECT_TRUE(env.evaluate(b < c));
  EXPECT_TRUE(env.statically_known_true(a < c));
  EXPECT_TRUE(env.statically_known_true(a + 1 < c));
  EXPECT_TRUE(env.statically_known_true(a <= b));
  EXPECT_FALSE(env.statically_known_true(a + 3 < c));
  EXPECT_EQ(env.guards().size(), 2u);
}

TEST(ShapeEnvDecisions, ANotEqualGuardDecidesTheEqualityNextTime) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(8, source(1));
  EXPECT_FALSE(env.evaluate(x == y));
  EXPECT_EQ(guard_strings(env), std::vector<std::string>{"s0 != s1"});
  EXPECT_FALSE(env.evaluate(x == y));
  EXPECT_TRUE(env.evaluate(x != y));
  EXPECT_EQ(env.known(y == x), Truth::False);
  EXPECT_EQ(env.guards().size(), 1u);
  // Non-linear too: prove() does not use `!=` facts, the env recalls them.
  EXPECT_FALSE(env.evaluate(x * y == 41));
  EXPECT_EQ(env.known(x * y == 41), Truth::False);
  EXPECT_EQ(env.guards().size(), 2u);
}

TEST(ShapeEnvDecisions, AGuardedDisjunctionDecidesItselfNextTime) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  SymInt y = env.create_symbol(8, source(1));
  SymBool either = (x * y == 40) || (x * x == y + 3);
  EXPECT_TRUE(env.evaluate(either));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.known(either), Truth::True);
  EXPECT_EQ(env.known(!either), Truth::False);
  // A wider disjunction follows from it.
  EXPECT_EQ(env.known(either || (x == 7)), Truth::True);
  // And its negation, once guarded, decides it false.
  SymBool neither = (x * y == 41) || (x * x == y + 4);
  EXPECT_FALSE(env.evaluate(neither));
  EXPECT_EQ(env.known(neither), Truth::False);
  EXPECT_EQ(env.guards().size(), 2u);
}

TEST(ShapeEnvDecisions, CachedAnswersAreInvalidatedWhenFactsChange) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, source(0));
  SymInt y = env.create_symbol(3, source(1));
  // Asked twice, so the unknown answer is cached.
  EXPECT_EQ(env.known(x >= 5), Truth::Unknown);
  EXPECT_EQ(env.known(x >= 5), Truth::Unknown);
  EXPECT_EQ(env.known(x == y + 5), Truth::Unknown);
  EXPECT_TRUE(env.evaluate(x > 4));
  EXPECT_EQ(env.known(x >= 5), Truth::True);
  EXPECT_TRUE(env.evaluate(x == y + 5));
  EXPECT_EQ(env.known(x == y + 5), Truth::True);
}

TEST(ShapeEnvDecisions, SimplifyUsesReplacementsRangesAndFacts) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, source(0));
  SymInt y = env.create_symbol(3, source(1));
  EXPECT_TRUE(env.evaluate(y < 4));  // y in [2, 3]
  EXPECT_EQ(env.simplify(floordiv(y, 4).expr()).str(), "0");
  EXPECT_EQ(env.simplify(mod(y, 8).expr()).str(), "s1");
  EXPECT_EQ(env.simplify(max(y, 3).expr()).str(), "3");
  EXPECT_EQ(env.bound((x * y).expr()).str(), "[4, inf]");
  EXPECT_TRUE(env.simplify((x < x + y).cond()).is_true());
  EXPECT_EQ(*env.size_hint((x * y).expr()), 24);
}

TEST(ShapeEnvDecisions, ConditionsWithAndOrAreGuardedWhole) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, source(0));
  SymInt y = env.create_symbol(3, source(1));
  EXPECT_TRUE(env.evaluate((x > 5) && (y < 5)));
  EXPECT_EQ(env.guards().size(), 1u);
  // Both halves are learned.
  EXPECT_TRUE(env.statically_known_true(x >= 6));
  EXPECT_TRUE(env.statically_known_true(y <= 4));
  EXPECT_FALSE(env.evaluate((x < 3) || (y > 3)));
  EXPECT_EQ(env.guards().size(), 2u);
  EXPECT_TRUE(env.statically_known_true(y <= 3));
}

TEST(ShapeEnvDecisions, ConstrainRangeOfABackedSymbolMustHoldAtItsHint) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, source(0));
  env.constrain_range(x, ValueRange::closed(2, 8));
  EXPECT_EQ(env.facts().range_of("s0").str(), "[2, 8]");
  EXPECT_THROW(env.constrain_range(x, ValueRange::closed(6, 8)), ConstraintViolation);
  EXPECT_EQ(env.facts().range_of("s0").str(), "[2, 8]");
}

}  // namespace
}  // namespace symshape

namespace symshape {
namespace {

TEST(ShapeEnvMoveHint, MovesTheOneSymbolOfALinearEquationWhenTheGuardsStillHold) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, "L['x'].size()[0]");
  SymInt y = env.create_symbol(9, "L['y'].size()[0]");
  EXPECT_TRUE(env.evaluate(x != 5));  // a guard the moved hint must keep
  EXPECT_TRUE(env.move_hint_to_satisfy((x * 2 + 4).expr(), Expr(52)));
  EXPECT_EQ(env.size_hint(x.expr()), Int(24));
  EXPECT_TRUE(env.move_hint_to_satisfy(x.expr(), (y * 3).expr() - Expr(3)) ==
              false);                                                // two symbols
  EXPECT_FALSE(env.move_hint_to_satisfy((x * 2).expr(), Expr(7)));   // no integer solution
  EXPECT_FALSE(env.move_hint_to_satisfy(x.expr(), Expr(5)));         // the guard x != 5
  EXPECT_FALSE(env.move_hint_to_satisfy(x.expr(), Expr(1)));         // outside [2, inf]
  EXPECT_FALSE(env.move_hint_to_satisfy((x * x).expr(), Expr(36)));  // not linear
  EXPECT_EQ(env.size_hint(x.expr()), Int(24));
  EXPECT_EQ(env.size_hint(y.expr()), Int(9));
}

}  // namespace
}  // namespace symshape
