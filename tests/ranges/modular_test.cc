// modular_set(): the congruence every value of an expression satisfies under the facts.
#include <gtest/gtest.h>

#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

using testing::R;

::testing::AssertionResult congruent(const ModularSet& got, long modulus, long base) {
  if (got.modulus == modulus && got.base == base) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got (" << to_string(got.modulus) << ", " << to_string(got.base) << "), want ("
         << modulus << ", " << base << ")";
}

class Modular : public ::testing::Test {
 protected:
  Facts facts;
  Expr x = Expr::symbol("x"), y = Expr::symbol("y"), n = Expr::symbol("n");
};

TEST_F(Modular, ConstantsAndSymbols) {
  EXPECT_TRUE(congruent(modular_set(Expr(7), facts), 0, 7));
  EXPECT_TRUE(congruent(modular_set(Expr(-7), facts), 0, -7));
  EXPECT_TRUE(congruent(modular_set(x, facts), 1, 0));
  facts.add_divisibility(x, Expr(4));
  EXPECT_TRUE(congruent(modular_set(x, facts), 4, 0));
  facts.add_divisibility(x, Expr(6));  // 4 | x and 6 | x: 12 | x
  EXPECT_TRUE(congruent(modular_set(x, facts), 12, 0));
}

TEST_F(Modular, APointRangeIsAConstant) {
  facts.set_range("x", R(5, 5));
  EXPECT_TRUE(congruent(modular_set(x, facts), 0, 5));
  EXPECT_TRUE(congruent(modular_set(x * y, facts), 5, 0));
}

TEST_F(Modular, SumsAndProducts) {
  EXPECT_TRUE(congruent(modular_set(4 * x + 2, facts), 4, 2));
  EXPECT_TRUE(congruent(modular_set(6 * x - 1, facts), 6, 5));
  EXPECT_TRUE(congruent(modular_set(n * 320 + 255, facts), 320, 255));
  facts.add_divisibility(x, Expr(4));
  facts.add_divisibility(y, Expr(6));
  EXPECT_TRUE(congruent(modular_set(x * y, facts), 24, 0));
  EXPECT_TRUE(congruent(modular_set(x + y, facts), 2, 0));
  // (4i + 1)(6j + 2) = 24ij + 8i + 6j + 2
  EXPECT_TRUE(congruent(modular_set((x + 1) * (y + 2), facts), 2, 0));
  EXPECT_TRUE(congruent(modular_set(pow(2 * n + 1, 2), facts), 2, 1));
}

TEST_F(Modular, DivisionAndModuloByConstants) {
  EXPECT_TRUE(congruent(modular_set(mod(n * 320 + 255, Expr(256)), facts), 64, 63));
  EXPECT_TRUE(congruent(modular_set(floordiv(8 * n + 4, Expr(4)), facts), 2, 1));
  EXPECT_TRUE(congruent(modular_set(floordiv(8 * n + 4, Expr(-4)), facts), 2, 1));
  EXPECT_TRUE(congruent(modular_set(floordiv(8 * n + 4, Expr(3)), facts), 1, 0));
  // Congruent to 1 mod 4 and in [-3, 0]: the value is -3.
  EXPECT_TRUE(congruent(modular_set(mod(8 * n + 5, Expr(-4)), facts), 0, -3));
}

// A sum whose terms share a symbol through a remainder by a constant c: the sum's residue modulo
// c, with each remainder replaced by its dividend, is a constant. The residue is read on the
// terms when its monomials are products and powers of atoms (symbols, calls) and built as a
// polynomial otherwise; both give the same congruence.
TEST_F(Modular, ResiduesThroughRemainders) {
  // x*y + 5 - x*y: monomial x*y.
  EXPECT_TRUE(congruent(modular_set(x * y + mod(5 - x * y, Expr(4)), facts), 4, 1));
  // x**2 + max(x, y) + 3 - x**2 - max(x, y): a power and a call as monomials.
  const Expr m = max(x, y);
  EXPECT_TRUE(congruent(modular_set(pow(x, 2) + m + mod(3 - pow(x, 2) - m, Expr(8)), facts), 8, 3));
  // x + 3*x: a product with a coefficient as the dividend.
  EXPECT_TRUE(congruent(modular_set(x + mod(3 * x, Expr(4)), facts), 4, 0));
  // x*(y + 1) + 2 - x*y - x: a product with a sum among its factors, built and expanded.
  EXPECT_TRUE(congruent(modular_set(x * (y + 1) + mod(2 - x * y - x, Expr(4)), facts), 4, 2));
  // A remainder by a multiple of the modulus inside one: x + 2 - (x % 12) is 2 modulo 4.
  EXPECT_TRUE(congruent(modular_set(x + mod(2 - mod(x, Expr(12)), Expr(4)), facts), 4, 2));
  // Not a constant: x + x is 2*x modulo 4.
  EXPECT_TRUE(congruent(modular_set(x + mod(x, Expr(4)), facts), 1, 0));
}

TEST_F(Modular, ModuloBySymbolsKeepsCommonFactors) {
  facts.add_divisibility(x, Expr(4));
  facts.add_divisibility(y, Expr(6));
  EXPECT_TRUE(congruent(modular_set(mod(x, y), facts), 2, 0));
  EXPECT_TRUE(congruent(modular_set(floordiv(x, y), facts), 1, 0));
}

TEST_F(Modular, MaxAndMinKeepWhatBothShare) {
  EXPECT_TRUE(congruent(modular_set(max(4 * x + 1, 8 * y + 5), facts), 4, 1));
  EXPECT_TRUE(congruent(modular_set(min(4 * x + 1, 6 * y), facts), 1, 0));
}

TEST_F(Modular, ExactQuotients) {
  facts.add_divisibility(x, Expr(8));
  EXPECT_TRUE(congruent(modular_set(exact_div(x, Expr(2)), facts), 4, 0));
  // Without a congruence showing the quotient is an integer, nothing is known.
  EXPECT_TRUE(congruent(modular_set(exact_div(x + y, Expr(2)), facts), 1, 0));
}

}  // namespace
}  // namespace symshape
