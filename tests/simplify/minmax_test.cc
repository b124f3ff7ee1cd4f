// simplify() of max and min.
#include <gtest/gtest.h>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/simplify.h"
#include "tests/simplify/simplify_test_util.h"

namespace symshape {
namespace {

using simplify_test::simp;
using simplify_test::unconstrained;
using simplify_test::x;
using simplify_test::y;

TEST(SimplifyMaxMin, DropsADominatedArgument) {
  EXPECT_EQ(simp(max(x, x + 1), unconstrained()), "x + 1");
  EXPECT_EQ(simp(min(x, x + 1), unconstrained()), "x");
  // Sizes are at least 1 by default.
  EXPECT_EQ(simp(max(x, 0)), "x");
  EXPECT_EQ(simp(min(x, 0)), "0");
  EXPECT_EQ(simp(max(x, 1)), "x");
  EXPECT_EQ(simp(max(x, 2 * x)), "2*x");
}

TEST(SimplifyMaxMin, KeepsTheBestOfArgumentsThatDifferByAConstant) {
  // Sums sharing their non-constant terms, a sum beside a lone term, and sums that do not share
  // them (as many terms, or not) beside each other.
  EXPECT_EQ(simp(max(x + y + 1, max(x + y + 3, x)), unconstrained()), "max(x, x + y + 3)");
  EXPECT_EQ(simp(min(x - 2, min(x + 5, y)), unconstrained()), "min(y, x - 2)");
  EXPECT_EQ(simp(max(max(x + 2, x), max(2 * y + 1, 2 * y)), unconstrained()),
            "max(2*y + 1, x + 2)");
  EXPECT_EQ(simp(max(x + y + 1, x + 2), unconstrained()), "max(x + y + 1, x + 2)");
  // Arguments that turn out equal leave one call.
  EXPECT_EQ(simp(min(max(x + 1, y), max(y, max(x + 1, x - 4))), unconstrained()), "max(y, x + 1)");
  // A one-term part with a coefficient.
  EXPECT_EQ(simp(max(max(2 * x, 2 * x + 3), y), unconstrained()), "max(y, 2*x + 3)");
  EXPECT_EQ(simp(min(min(2 * x - 1, 3 * x), 2 * x + 3), unconstrained()), "min(3*x, 2*x - 1)");
  // Many arguments (past the few compared pair by pair): x + k for k in [0, 19], and y.
  Expr big_max = y, big_min = y;
  for (int k = 19; k >= 0; --k) {
    big_max = max(big_max, x + k);
    big_min = min(x + k, big_min);
  }
  EXPECT_EQ(simp(big_max, unconstrained()), "max(y, x + 19)");
  EXPECT_EQ(simp(big_min, unconstrained()), "min(x, y)");
}

TEST(SimplifyMaxMin, KeepsArgumentsThatMayEachBeLarger) {
  EXPECT_EQ(simp(max(x, y)), "max(x, y)");
  EXPECT_EQ(simp(max(x, 0), unconstrained()), "max(0, x)");
  EXPECT_EQ(simp(max(x, 2 * x), unconstrained()), "max(x, 2*x)");
}

TEST(SimplifyMaxMin, RemovesRepeatedArguments) {
  EXPECT_EQ(simp(max(max(x, y), x)), "max(x, y)");
  EXPECT_EQ(simp(min(x, min(y, x))), "min(x, y)");
}

TEST(SimplifyMaxMin, MergesConstantArguments) {
  EXPECT_EQ(simp(max(max(x, 3), max(5, y)), unconstrained()), "max(5, x, y)");
  EXPECT_EQ(simp(min(min(x, 3), min(5, y)), unconstrained()), "min(3, x, y)");
}

TEST(SimplifyMaxMin, FlattensNestedCalls) {
  Expr e = simplify(max(max(x, y), max(y, Expr::symbol("z"))), unconstrained());
  EXPECT_EQ(e.str(), "max(x, y, z)");
}

TEST(SimplifyMaxMin, IsDeterministicWhateverTheArgumentOrder) {
  EXPECT_TRUE(simplify(max(x, y), unconstrained()).identical(simplify(max(y, x), unconstrained())));
  EXPECT_TRUE(simplify(min(max(x, 3), y), unconstrained())
                  .identical(simplify(min(y, max(3, x)), unconstrained())));
}

TEST(SimplifyMaxMin, ClampsToAConstantWhenTheRangeIsOnePoint) {
  Facts f = unconstrained();
  f.set_range("x", ValueRange::closed(Int(0), Int(5)));
  EXPECT_EQ(simp(max(x, 10), f), "10");
  EXPECT_EQ(simp(min(max(x, 0), 5), f), "x");
  // A clamped slice bound: min(max(start, 0), size).
  Expr start = Expr::symbol("start"), size = Expr::symbol("size");
  Facts g;  // sizes >= 1
  g.set_range("start", ValueRange::all());
  EXPECT_EQ(simp(min(max(start, 0), size), g), "min(size, max(0, start))");
  EXPECT_EQ(simp(min(max(size - 1, 0), size), g), "size - 1");
}

}  // namespace
}  // namespace symshape
