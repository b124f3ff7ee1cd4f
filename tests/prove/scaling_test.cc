// The linear tier reads only the facts connected to the goal: thousands of unrelated
// assumptions neither change an answer nor (by design) the work done for it.
#include <gtest/gtest.h>

#include <random>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"

namespace symshape {
namespace {

std::vector<Cond> goals() {
  Expr a = Expr::symbol("a"), b = Expr::symbol("b");
  return {a < b,
          a + 1 <= b,
          a >= b,
          a + 5 <= b,
          floordiv(a, Expr(2)) < b,
          a != b,
          a == b,
          mod(b, Expr(4)) + a * Expr(4) < b * Expr(4) + Expr(4),
          (a < b) || (a > b + Expr(3))};
}

Facts base() {
  Facts f;
  f.assume(Expr::symbol("a") < Expr::symbol("b"));
  return f;
}

TEST(ProveScalingTest, UnrelatedAssumptionsDoNotChangeAnswers) {
  Facts small = base();
  Facts big = base();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 199), c(-5, 5), kind(0, 3);
  for (int i = 0; i < 5000; ++i) {
    Expr s = Expr::symbol("s" + std::to_string(pick(rng)));
    Expr t = Expr::symbol("s" + std::to_string(pick(rng)));
    switch (kind(rng)) {
      case 0: big.assume(s < t + Expr(c(rng))); break;
      case 1: big.assume(floordiv(s, Expr(3)) <= t); break;
      case 2: big.assume(s * t >= Expr(c(rng))); break;
      default: big.assume(s + t == Expr(c(rng) + 20)); break;
    }
  }
  ASSERT_EQ(big.assumptions().size(), 5001u);
  for (const Cond& g : goals()) {
    EXPECT_EQ(prove(g, small), prove(g, big)) << g.str();
  }
  EXPECT_EQ(prove(goals()[0], big), Truth::True);
  EXPECT_EQ(prove(goals()[2], big), Truth::False);
  EXPECT_EQ(prove(goals()[3], big), Truth::Unknown);
}

TEST(ProveScalingTest, ManyConnectedAssumptionsStayBounded) {
  // A chain a < s0 < s1 < ... < s999 < b: the cap on gathered facts keeps the decision cheap;
  // the answer may be Unknown, but never wrong.
  Facts f;
  Expr prev = Expr::symbol("a");
  for (int i = 0; i < 1000; ++i) {
    Expr next = Expr::symbol("c" + std::to_string(i));
    f.assume(prev < next);
    prev = next;
  }
  f.assume(prev < Expr::symbol("b"));
  Truth t = prove(Expr::symbol("a") < Expr::symbol("b"), f);
  EXPECT_NE(t, Truth::False);
  // A short chain is within reach.
  EXPECT_EQ(prove(Expr::symbol("a") + Expr(3) <= Expr::symbol("c2"), f), Truth::True);
}

}  // namespace
}  // namespace symshape
