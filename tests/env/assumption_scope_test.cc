// AssumptionScope and checkpoints: a premise holds for a block of reasoning and is forgotten
// after it, no guard is ever recorded under it, and rollback forgets exactly what was learned
// after the checkpoint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/shape_env.h"
#include "tests/env/env_test_util.h"

namespace symshape {
namespace {

using env_test::guard_strings;
using env_test::source;

TEST(AssumptionScope, KnownAnswersUnderThePremiseAndForgetsItAfter) {
  ShapeEnv env;
  SymInt n = env.create_symbol(8, source(0));
  EXPECT_EQ(env.known(mod(n, 4) == 0), Truth::Unknown);
  {
    AssumptionScope scope(env, mod(n, 4) == 0);
    EXPECT_TRUE(env.under_assumption());
    EXPECT_EQ(env.known(mod(n, 4) == 0), Truth::True);
    EXPECT_EQ(env.known(mod(n, 2) == 0), Truth::True);  // what follows from it
    EXPECT_EQ(env.known(mod(n, 4) == 1), Truth::False);
    EXPECT_EQ(env.simplify((floordiv(n, 4) * 4).expr()).str(), "s0");
  }
  EXPECT_FALSE(env.under_assumption());
  EXPECT_EQ(env.known(mod(n, 4) == 0), Truth::Unknown);
  EXPECT_EQ(env.known(mod(n, 2) == 0), Truth::Unknown);
  EXPECT_EQ(env.simplify((floordiv(n, 4) * 4).expr()).str(), "4*(s0//4)");
  EXPECT_TRUE(env.guards().empty());
}

TEST(AssumptionScope, RangesAndEqualitiesAreScopedToo) {
  ShapeEnv env;
  SymInt a = env.create_symbol(8, source(0));
  SymInt b = env.create_symbol(16, source(1));
  {
    AssumptionScope scope(env, a >= 10);
    EXPECT_EQ(env.known(a > 9), Truth::True);
    EXPECT_EQ(env.known(a * 2 >= 20), Truth::True);
  }
  EXPECT_EQ(env.known(a > 9), Truth::Unknown);
  {
    AssumptionScope scope(env, a == b);
    EXPECT_EQ(env.known(a - b == 0), Truth::True);
  }
  EXPECT_EQ(env.known(a == b), Truth::Unknown);
  EXPECT_TRUE(env.replacements().empty());
}

TEST(AssumptionScope, EvaluateThatWouldNeedAGuardThrowsAndRecordsNothing) {
  ShapeEnv env;
  env.set_logging(true);
  SymInt n = env.create_symbol(8, source(0));
  SymInt m = env.create_symbol(6, source(1));
  const size_t log_before = env.log().size();
  {
    AssumptionScope scope(env, n >= 4);
    // Decided by the premise: fine, no guard.
    EXPECT_TRUE(env.evaluate(n > 3));
    // Not decided by it: true at the hints, but a guard recorded here would hold only under
    // the premise.
    EXPECT_THROW(env.evaluate(m > 5), Error);
    EXPECT_THROW(env.guard_int(n + m), Error);
    EXPECT_TRUE(env.guards().empty());
    // The failed decisions taught nothing either.
    EXPECT_EQ(env.known(m > 5), Truth::Unknown);
  }
  EXPECT_TRUE(env.guards().empty());
  EXPECT_EQ(env.log().size(), log_before);
  // Outside, the same question guards as usual.
  EXPECT_TRUE(env.evaluate(m > 5));
  EXPECT_EQ(guard_strings(env), (std::vector<std::string>{"s1 > 5"}));
}

TEST(AssumptionScope, Nested) {
  ShapeEnv env;
  SymInt n = env.create_symbol(12, source(0));
  {
    AssumptionScope outer(env, mod(n, 2) == 0);
    {
      AssumptionScope inner(env, mod(n, 3) == 0);
      EXPECT_EQ(env.known(mod(n, 6) == 0), Truth::True);
      EXPECT_EQ(env.known(mod(n, 2) == 0), Truth::True);
    }
    EXPECT_TRUE(env.under_assumption());
    EXPECT_EQ(env.known(mod(n, 2) == 0), Truth::True);
    EXPECT_EQ(env.known(mod(n, 3) == 0), Truth::Unknown);
    EXPECT_EQ(env.known(mod(n, 6) == 0), Truth::Unknown);
  }
  EXPECT_FALSE(env.under_assumption());
  EXPECT_EQ(env.known(mod(n, 2) == 0), Truth::Unknown);
}

TEST(AssumptionScope, AStaticallyFalseAssumptionThrows) {
  ShapeEnv env;
  SymInt n = env.create_symbol(8, source(0));  // n >= 2
  EXPECT_THROW(AssumptionScope(env, n < 2), Error);
  EXPECT_FALSE(env.under_assumption());
  {
    AssumptionScope scope(env, n <= 5);
    EXPECT_THROW(AssumptionScope(env, n > 5), Error);
    EXPECT_TRUE(env.under_assumption());  // the outer scope is still open
    EXPECT_EQ(env.known(n <= 5), Truth::True);
  }
  EXPECT_FALSE(env.under_assumption());
  EXPECT_EQ(env.known(n <= 5), Truth::Unknown);
}

TEST(AssumptionScope, GuardsRecordedBeforeTheScopeStay) {
  ShapeEnv env;
  SymInt n = env.create_symbol(8, source(0));
  EXPECT_TRUE(env.evaluate(n > 4));
  {
    AssumptionScope scope(env, n < 100);
    EXPECT_EQ(env.known(n > 4), Truth::True);
  }
  EXPECT_EQ(guard_strings(env), (std::vector<std::string>{"s0 > 4"}));
  EXPECT_EQ(env.known(n > 4), Truth::True);
}

TEST(Checkpoint, RollbackDropsSymbolsGuardsAndFactsLearnedAfterIt) {
  ShapeEnv env;
  SymInt a = env.create_symbol(8, source(0));
  EXPECT_TRUE(env.evaluate(a > 4));
  const ShapeEnv::Checkpoint cp = env.checkpoint();

  SymInt b = env.create_symbol(16, source(1));
  SymInt u = env.create_unbacked_symint();
  env.constrain_range(u, ValueRange(Int(0), Int(10)));
  EXPECT_TRUE(env.evaluate(mod(a, 4) == 0));
  EXPECT_TRUE(env.evaluate(b == a * 2));  // a replacement: s1 := 2*s0
  env.defer_runtime_assert(u >= 1);
  EXPECT_EQ(env.symbols().size(), 3u);
  EXPECT_EQ(env.guards().size(), 3u);
  EXPECT_FALSE(env.replacements().empty());
  EXPECT_EQ(env.runtime_asserts().size(), 1u);

  env.rollback(cp);
  EXPECT_EQ(env.symbols().size(), 1u);
  EXPECT_FALSE(env.has_symbol("s1"));
  EXPECT_FALSE(env.has_symbol("u0"));
  EXPECT_EQ(guard_strings(env), (std::vector<std::string>{"s0 > 4"}));
  EXPECT_TRUE(env.replacements().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
  EXPECT_EQ(env.known(mod(a, 4) == 0), Truth::Unknown);  // the fact is gone with its guard
  EXPECT_EQ(env.known(a > 4), Truth::True);              // the one before the checkpoint is not
  // Names are handed out again from where the checkpoint was.
  SymInt c = env.create_symbol(32, source(2));
  EXPECT_EQ(c.str(), "s1");
  EXPECT_EQ(env.create_unbacked_symint().str(), "u0");
}

TEST(Checkpoint, ADecisionCachedAfterTheCheckpointIsNotReusedAfterRollback) {
  ShapeEnv env;
  SymInt a = env.create_symbol(8, source(0));
  const ShapeEnv::Checkpoint cp = env.checkpoint();
  EXPECT_TRUE(env.evaluate(a >= 8));
  EXPECT_EQ(env.known(a >= 8), Truth::True);
  env.rollback(cp);
  EXPECT_EQ(env.known(a >= 8), Truth::Unknown);
  EXPECT_TRUE(env.guards().empty());
}

}  // namespace
}  // namespace symshape
