// simplify() of sums and products: polynomial normal form, exact quotients, point ranges.
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

TEST(SimplifyPolynomial, ExpandsSumsAndProducts) {
  EXPECT_EQ(simp(x * (x + 1) + (x + 2) * (x + 3)), "2*x**2 + 6*x + 6");
  EXPECT_EQ(simp((x + 1) * (x - 1) - x * x), "-1");
  EXPECT_EQ(simp(pow(x + y, 2) - pow(x - y, 2)), "4*x*y");
}

TEST(SimplifyPolynomial, GivesEqualPolynomialsOneForm) {
  EXPECT_TRUE(simplify((x + y) * (x - y), Facts()).identical(simplify(x * x - y * y, Facts())));
}

TEST(SimplifyPolynomial, NormalizesInsideFunctionArguments) {
  Expr a = simplify(floordiv((x + 1) * (x + 1), y), unconstrained());
  Expr b = simplify(floordiv(x * x + 2 * x + 1, y), unconstrained());
  EXPECT_TRUE(a.identical(b)) << a.str() << " vs " << b.str();
  EXPECT_EQ(a.str(), "(x**2 + 2*x + 1)//y");
}

TEST(SimplifyPolynomial, KeepsExactQuotients) {
  Expr half = exact_div(x, Expr(2));
  EXPECT_TRUE(simplify(half, Facts()).identical(half));
  EXPECT_EQ(simp(half + half), "x");
  EXPECT_EQ(simp(2 * half), "x");
  EXPECT_EQ(simp(exact_div(x * y, y)), "x");
  // A symbolic denominator cancels against the numerator once expanded.
  Expr q = exact_div(x * x + x * y, x);
  EXPECT_EQ(simp(q), "x + y");
}

TEST(SimplifyPolynomial, ReplacesACallWithOneValueByIt) {
  Facts f = unconstrained();
  f.set_range("x", ValueRange::closed(Int(0), Int(3)));
  EXPECT_EQ(simp(floordiv(x, 4) + mod(x, 4), f), "x");
  EXPECT_EQ(simp(y * floordiv(x, 8) + 1, f), "1");
}

TEST(SimplifyPolynomial, KeepsAConstantCallThatMayDivideByZero) {
  // 0 // y is 0 wherever it is defined, but undefined at y == 0.
  Facts f = unconstrained();
  EXPECT_EQ(simp(floordiv(Expr(0), y), f), "0//y");
  EXPECT_EQ(simp(mod(x * y, y), f), "(x*y) % y");
  f.set_range("y", ValueRange::closed(Int(1), Int(9)));
  EXPECT_EQ(simp(floordiv(Expr(0), y), f), "0");
  EXPECT_EQ(simp(mod(x * y, y), f), "0");
}

}  // namespace
}  // namespace symshape
