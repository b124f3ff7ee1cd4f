// simplify() of conditions: relations decided from the facts, connectives folded.
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

TEST(SimplifyCond, DecidesRelationsThatDifferByAConstant) {
  EXPECT_EQ(simp(x + 1 > x, unconstrained()), "True");
  EXPECT_EQ(simp((x + 1) * (x + 1) == x * x + 2 * x + 1, unconstrained()), "True");
  EXPECT_EQ(simp(x * (y + 1) < x * y + x, unconstrained()), "False");
}

TEST(SimplifyCond, DecidesRelationsFromTheFacts) {
  EXPECT_EQ(simp(x >= 1), "True");
  EXPECT_EQ(simp(x < 0), "False");
  EXPECT_EQ(simp(floordiv(x, 2) <= x), "True");
  EXPECT_EQ(simp(x >= 5), "x >= 5");
  EXPECT_EQ(simp(x >= 5, unconstrained()), "x >= 5");
}

TEST(SimplifyCond, SimplifiesBothSides) {
  EXPECT_EQ(simp(floordiv(4 * x + y, 4) == x, unconstrained()), "x + y//4 == x");
  Facts f;
  f.assume(mod(x, 2) == Expr(0));
  EXPECT_EQ(simp(floordiv(x, floordiv(x, 2)) == Expr(2), f), "True");
}

TEST(SimplifyCond, FoldsAndAndOr) {
  EXPECT_EQ(simp(x >= 1 && y > 100), "y > 100");
  EXPECT_EQ(simp(x < 0 || y > 100), "y > 100");
  EXPECT_EQ(simp(x < 0 && y > 100), "False");
  EXPECT_EQ(simp(x >= 1 || y > 100), "True");
  EXPECT_EQ(simp(!(x < 0)), "True");
}

TEST(SimplifyCond, AnArgumentEqualToItsMinOrMaxBoundsTheOthers) {
  // A slice x[:s] of a dim of 32 has min(32, s) rows; a trace saying it has s means s <= 32.
  EXPECT_EQ(simp(x == min(Expr(32), x)), "x <= 32");
  EXPECT_EQ(simp(min(Expr(32), x) == x), "x <= 32");
  EXPECT_EQ(simp(x != min(Expr(32), x)), "x > 32");
  EXPECT_EQ(simp(x == max(y, x), unconstrained()), "x - y >= 0");
  EXPECT_EQ(simp(y + 1 == min(x, min(Expr(8), y + 1))), "y <= 7 and -x + y <= -1");
  // Not an argument of the min: unchanged.
  EXPECT_EQ(simp(y == min(Expr(32), x)), "y == min(32, x)");
}

}  // namespace
}  // namespace symshape
