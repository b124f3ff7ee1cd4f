// Unbacked (data-dependent) symbols: the typed error when a decision needs their value, and each
// escape hatch (guard_or_false / guard_or_true, size-oblivious reasoning, runtime asserts).
#include <gtest/gtest.h>

#include <string>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

const Provenance kNonzero{"nonzero_1", "aten.nonzero.default", ""};

TEST(ShapeEnvUnbacked, ADecisionOnAnUnbackedSymbolRaisesTheTypedError) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  try {
    env.evaluate(u > 0, kNonzero);
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not guard on data-dependent expression u0 > 0 "
              "(at node nonzero_1 (aten.nonzero.default))");
    EXPECT_EQ(e.expression(), "u0 > 0");
    EXPECT_EQ(e.where().node, "nonzero_1");
  }
  EXPECT_TRUE(env.guards().empty());
  // Without a provenance the message just ends.
  try {
    env.evaluate(u == 3);
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_EQ(std::string(e.what()), "could not guard on data-dependent expression u0 == 3");
  }
  // A DataDependentError is an Error.
  EXPECT_THROW(env.evaluate(u < 7), Error);
}

TEST(ShapeEnvUnbacked, GuardIntOnAnUnbackedValueRaisesTheTypedError) {
  ShapeEnv env;
  SymInt x = env.create_symbol(4, "L['x'].size()[0]");
  SymInt u = env.create_unbacked_symint();
  try {
    env.guard_int(u * x, {"item_2", "aten.item.default", ""});
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not guard on data-dependent expression s0*u0 (at node item_2 "
              "(aten.item.default))");
  }
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvUnbacked, MixedConditionsAreDataDependentToo) {
  ShapeEnv env;
  SymInt x = env.create_symbol(4, "L['x'].size()[0]");
  SymInt u = env.create_unbacked_symint();
  EXPECT_THROW(env.evaluate(u + x > 6), DataDependentError);
  // What ranges decide needs no hint.
  env.constrain_range(u, ValueRange::closed(5, 10));
  EXPECT_TRUE(env.evaluate(u + x > 6));
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvUnbacked, GuardOrFalseAndGuardOrTrueAnswerWithoutAGuard) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  EXPECT_FALSE(env.guard_or_false(u == 0, kNonzero));
  EXPECT_TRUE(env.guard_or_true(u == 0, kNonzero));
  EXPECT_FALSE(env.guard_or_false(u != 0));
  EXPECT_TRUE(env.guard_or_true(u != 0));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
  // A statically known answer is still the answer.
  env.constrain_range(u, ValueRange::closed(3, 9));
  EXPECT_TRUE(env.guard_or_false(u > 2));
  EXPECT_FALSE(env.guard_or_true(u > 9));
}

TEST(ShapeEnvUnbacked, GuardOrFalseOnBackedSymbolsIsAnOrdinaryGuard) {
  ShapeEnv env;
  SymInt x = env.create_symbol(4, "L['x'].size()[0]");
  EXPECT_TRUE(env.guard_or_false(x == 4));
  EXPECT_EQ(env.guards().size(), 1u);
  SymInt y = env.create_symbol(9, "L['y'].size()[0]");
  EXPECT_FALSE(env.guard_or_true(y < 5));
  EXPECT_EQ(env.guards().size(), 2u);
}

TEST(ShapeEnvUnbacked, ConstrainRangeBoundsAnUnbackedSymbol) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_range(u, ValueRange::closed(3, 100));
  EXPECT_EQ(env.bound(u.expr()).str(), "[3, 100]");
  EXPECT_TRUE(env.statically_known_true(u >= 3));
  EXPECT_TRUE(env.evaluate(u * 2 > 5));
  env.constrain_range(u, ValueRange::at_most(50));
  EXPECT_EQ(env.bound(u.expr()).str(), "[3, 50]");
  EXPECT_THROW(env.constrain_range(u, ValueRange::at_least(51)), ConstraintViolation);
  EXPECT_EQ(env.bound(u.expr()).str(), "[3, 50]");
  // Narrowed to one value, the symbol is that value.
  env.constrain_range(u, ValueRange::at_most(3));
  EXPECT_EQ(env.simplify(u.expr()).str(), "3");
  EXPECT_FALSE(env.is_data_dependent(u.expr()));
  EXPECT_EQ(*env.size_hint((u * 2).expr()), 6);
}

TEST(ShapeEnvUnbacked, ConstrainAsSizeMakesASizeLikeSymbol) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_as_size(u);
  EXPECT_TRUE(env.symbol("u0").size_like);
  EXPECT_EQ(env.bound(u.expr()).str(), "[0, inf]");
  EXPECT_TRUE(env.statically_known_true(u >= 0));
  EXPECT_FALSE(env.statically_known_true(u >= 1));
  EXPECT_THROW(env.constrain_as_size(u + 1), Error);  // not a symbol
}

TEST(ShapeEnvUnbacked, ConstrainAsSizeTakesAnUpperBound) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_as_size(u, ValueRange::closed(-5, 64));
  EXPECT_EQ(env.bound(u.expr()).str(), "[0, 64]");
}

TEST(ShapeEnvUnbacked, SizeObliviousReasoningTreatsSizesAsAtLeastTwo) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_as_size(u);
  // A size-like u0 is "not 0 or 1" when size-oblivious: the broadcast and contiguity checks
  // that would otherwise need the value.
  EXPECT_FALSE(env.guard_size_oblivious(u == 1, kNonzero));
  EXPECT_FALSE(env.guard_size_oblivious(u == 0));
  EXPECT_TRUE(env.guard_size_oblivious(u != 1));
  EXPECT_TRUE(env.guard_size_oblivious(u * 3 >= u + 4));
  EXPECT_TRUE(env.guards().empty());
  // Outside size-oblivious mode the same questions are data-dependent.
  EXPECT_THROW(env.evaluate(u == 1), DataDependentError);
  EXPECT_FALSE(env.statically_known_true(u != 1));
  // What size-oblivious reasoning cannot decide is still an error.
  EXPECT_THROW(env.guard_size_oblivious(u == 5, kNonzero), DataDependentError);
}

TEST(ShapeEnvUnbacked, SizeObliviousReasoningOnlyAffectsSizeLikeSymbols) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_range(u, ValueRange::at_least(0));
  EXPECT_THROW(env.guard_size_oblivious(u == 1), DataDependentError);
  // On backed symbols it decides like evaluate, guard included.
  SymInt x = env.create_symbol(4, "L['x'].size()[0]");
  EXPECT_TRUE(env.guard_size_oblivious(x == 4));
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvUnbacked, SizeObliviousReasoningRespectsAnUpperBoundBelowTwo) {
  // u0 is size-like but can only be 0 or 1: pretending it is >= 2 would leave no value at all,
  // from which anything would follow. The env must not decide `u0 == 0` either way.
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_as_size(u, ValueRange::closed(0, 1));
  EXPECT_THROW(env.guard_size_oblivious(u == 0), DataDependentError);
  EXPECT_THROW(env.guard_size_oblivious(u == 1), DataDependentError);
  EXPECT_TRUE(env.guard_size_oblivious(u <= 1));
}

TEST(ShapeEnvUnbacked, DeferredRuntimeAssertIsRecordedAndLearned) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.defer_runtime_assert(u >= 0, kNonzero);
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.runtime_asserts()[0].cond.str(), "u0 >= 0");
  EXPECT_EQ(env.runtime_asserts()[0].where.node, "nonzero_1");
  EXPECT_TRUE(env.guards().empty());
  // Later decisions see it.
  EXPECT_TRUE(env.statically_known_true(u >= 0));
  EXPECT_TRUE(env.evaluate(u > -1));
  EXPECT_EQ(env.bound(u.expr()).str(), "[0, inf]");
  // Already known: nothing more to check at run time.
  env.defer_runtime_assert(u > -5);
  EXPECT_EQ(env.runtime_asserts().size(), 1u);
  // Impossible: an error that names the node.
  try {
    env.defer_runtime_assert(u < 0, kNonzero);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "runtime assertion u0 < 0 can never hold at node nonzero_1 (aten.nonzero.default)");
  }
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvUnbacked, RuntimeAssertsBetweenUnbackedSymbolsAreFacts) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  SymInt v = env.create_unbacked_symint();
  env.defer_runtime_assert(u < v);
  env.defer_runtime_assert(mod(v, 4) == 0);
  EXPECT_TRUE(env.statically_known_true(u <= v - 1));
  EXPECT_TRUE(env.statically_known_true(mod(v, 2) == 0));
  EXPECT_TRUE(env.guard_or_false(u != v));
  EXPECT_EQ(env.runtime_asserts().size(), 2u);
}

TEST(ShapeEnvUnbacked, AnUnbackedSymbolEqualToABackedOneIsReplacedByIt) {
  ShapeEnv env;
  SymInt x = env.create_symbol(6, "L['x'].size()[0]");
  SymInt u = env.create_unbacked_symint();
  env.defer_runtime_assert(u == x);
  ASSERT_EQ(env.replacements().count("u0"), 1u);
  EXPECT_EQ(env.replacements().at("u0").str(), "s0");
  EXPECT_FALSE(env.is_data_dependent((u * 2).expr()));
  EXPECT_EQ(*env.size_hint((u * 2).expr()), 12);
  // u0 has a hint through s0 now: deciding on it adds an ordinary guard.
  EXPECT_TRUE(env.evaluate(u > 5));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].cond.str(), "s0 > 5");
}

TEST(ShapeEnvUnbacked, ABackedSymbolIsNeverReplacedByAnUnbackedExpression) {
  // Solving `u0*u0 == s0` for s0 would make s0 data-dependent: it would lose its hint.
  ShapeEnv env;
  SymInt x = env.create_symbol(9, "L['x'].size()[0]");
  SymInt u = env.create_unbacked_symint();
  env.defer_runtime_assert(u * u == x);
  EXPECT_EQ(env.replacements().count("s0"), 0u);
  EXPECT_FALSE(env.is_data_dependent(x.expr()));
  ASSERT_TRUE(env.size_hint(x.expr()).has_value());
  EXPECT_EQ(*env.size_hint(x.expr()), 9);
  EXPECT_TRUE(env.evaluate(x > 3));
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvUnbacked, RuntimeAssertOnBackedSymbolsMustHoldAtTheHints) {
  ShapeEnv env;
  SymInt x = env.create_symbol(6, "L['x'].size()[0]");
  EXPECT_THROW(env.defer_runtime_assert(x > 10), Error);
  EXPECT_TRUE(env.runtime_asserts().empty());
  EXPECT_FALSE(env.statically_known_true(x > 10));
  env.defer_runtime_assert(x > 3);
  EXPECT_TRUE(env.statically_known_true(x >= 4));
}

}  // namespace
}  // namespace symshape
