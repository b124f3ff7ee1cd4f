// bound(): the range of an expression under facts (symbol ranges and divisibility).
#include <gtest/gtest.h>

#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

using testing::inf;
using testing::P;
using testing::R;

Expr sym(const char* name) { return Expr::symbol(name); }

class Bound : public ::testing::Test {
 protected:
  Facts facts{ValueRange::at_least(Int(0))};
  Expr x = sym("x"), y = sym("y"), n = sym("n"), e = sym("e");
};

TEST_F(Bound, ConstantsAndSymbols) {
  EXPECT_EQ(bound(Expr(7), facts), P(7));
  EXPECT_EQ(bound(Expr(-3), facts), P(-3));
  EXPECT_EQ(bound(x, facts), R(0, inf));
  facts.set_range("x", R(3, 10));
  EXPECT_EQ(bound(x, facts), R(3, 10));
}

TEST_F(Bound, DefaultRangeIsADimension) {
  Facts dims;  // symbols are >= 1 unless said otherwise
  EXPECT_EQ(bound(x, dims), R(1, inf));
  EXPECT_EQ(bound(x * y, dims), R(1, inf));
}

TEST_F(Bound, SymbolEndsRoundToKnownMultiples) {
  facts.set_range("x", R(3, 10));
  facts.add_divisibility(x, Expr(4));
  EXPECT_EQ(bound(x, facts), R(4, 8));
  facts.set_range("y", R(5, 7));
  facts.add_divisibility(y, Expr(4));
  EXPECT_TRUE(bound(y, facts).is_empty());
}

TEST_F(Bound, SumsAndProducts) {
  facts.set_range("x", R(2, inf));
  EXPECT_EQ(bound(x - 1, facts), R(1, inf));
  facts.set_range("x", R(1, inf));
  EXPECT_EQ(bound(4 * x + 2, facts), R(6, inf));
  facts.set_range("y", R(-3, 2));
  EXPECT_EQ(bound(x * y, facts), ValueRange::all());
  EXPECT_EQ(bound(2 * y - 1, facts), R(-7, 3));
  EXPECT_EQ(bound(pow(y, 2), facts), R(0, 9));
  EXPECT_EQ(bound(pow(y, 2) + 1, facts), R(1, 10));
  EXPECT_EQ(bound(-x, facts), R(inf, -1));
}

TEST_F(Bound, IntegerFunctions) {
  facts.set_range("x", R(0, 100));
  facts.set_range("y", R(1, 8));
  EXPECT_EQ(bound(floordiv(x, 4), facts), R(0, 25));
  EXPECT_EQ(bound(floordiv(x, y), facts), R(0, 100));
  EXPECT_EQ(bound(ceildiv(x, 8), facts), R(0, 13));
  EXPECT_EQ(bound(ceildiv(x + 1, y), facts), R(1, 101));
  EXPECT_EQ(bound(mod(x, y), facts), R(0, 7));
  EXPECT_EQ(bound(max(x, Expr(5)), facts), R(5, 100));
  EXPECT_EQ(bound(min(x, y), facts), R(0, 8));
  EXPECT_EQ(bound(floordiv(-x, 4), facts), R(-25, 0));
}

TEST_F(Bound, DivisorRangeWithZeroCountsOnlyNonzeroDivisors) {
  facts.set_range("x", R(10, 20));
  facts.set_range("y", R(0, 5));
  EXPECT_EQ(bound(floordiv(x, y), facts), R(2, 20));
  // A divisor that can only be 0 leaves no value: the range is empty.
  facts.set_range("y", R(0, 0));
  EXPECT_TRUE(bound(floordiv(x, y), facts).is_empty());
}

TEST_F(Bound, ModularSetsTightenModulo) {
  facts.set_range("n", R(1, inf));
  EXPECT_EQ(bound(mod(n * 320 + 255, Expr(256)), facts), R(63, 255));

  EXPECT_EQ(bound(mod(x, Expr(4)), facts), R(0, 3));
  facts.add_divisibility(x, Expr(4));
  EXPECT_EQ(bound(mod(x, Expr(4)), facts), P(0));
  EXPECT_EQ(bound(mod(x + 2, Expr(4)), facts), P(2));
  EXPECT_EQ(bound(mod(x + 2, Expr(8)), facts), R(2, 6));
  EXPECT_EQ(bound(mod(3 * x + 1, Expr(-4)), facts), P(-3));
}

TEST_F(Bound, NegativeDividendModuloUsesPythonSemantics) {
  // PyTorch #169602: (-e-1) % 4 for e >= 0 is in [0, 3] (e == 0 gives 3), not [-3, 0].
  EXPECT_EQ(bound(mod(-e - 1, Expr(4)), facts), R(0, 3));
  EXPECT_TRUE(bound(mod(-e - 1, Expr(4)), facts).contains(Int(3)));
}

TEST_F(Bound, ExactQuotientsRoundInward) {
  facts.set_range("x", R(1, 5));
  facts.set_range("y", R(1, 5));
  EXPECT_EQ(bound(exact_div(x + y, Expr(2)), facts), R(1, 5));
  facts.set_range("x", R(3, 9));
  EXPECT_EQ(bound(exact_div(x, Expr(2)), facts), R(2, 4));
  EXPECT_EQ(bound(exact_div(x, Expr(2)) + 1, facts), R(3, 5));
}

TEST_F(Bound, QuotientOfPositivesIsPositive) {
  facts.set_range("x", R(1, inf));
  facts.set_range("y", R(1, inf));
  // x / y is an integer in (0, inf), so at least 1.
  EXPECT_EQ(bound(exact_div(x, y), facts), R(1, inf));
  facts.set_range("x", R(0, inf));
  EXPECT_EQ(bound(exact_div(x, y), facts), R(0, inf));
  facts.set_range("x", R(1, 12));
  facts.set_range("y", R(2, 3));
  EXPECT_EQ(bound(exact_div(x, y), facts), R(1, 6));
}

TEST_F(Bound, NegativePowerOfARangeWithZeroIsUnbounded) {
  facts.set_range("x", R(1, 10));
  facts.set_range("y", R(-2, 2));
  EXPECT_EQ(bound(exact_div(x, y), facts), ValueRange::all());
}

TEST_F(Bound, EmptyFactsGiveEmptyRanges) {
  facts.set_range("x", ValueRange::empty());
  EXPECT_TRUE(bound(x + 1, facts).is_empty());
  EXPECT_TRUE(bound(max(x, y), facts).is_empty());
}

TEST_F(Bound, HugeExponentsAreUnboundedNotComputed) {
  facts.set_range("x", R(2, 3));
  EXPECT_EQ(bound(pow(x, 1000), facts), ValueRange::all());
  EXPECT_EQ(bound(pow(x, 3), facts), R(8, 27));
}

}  // namespace
}  // namespace symshape
