// ValueRange as a set: emptiness, membership, intersection, hull, printing, equality; and the
// interval arithmetic on hand-picked cases with infinite ends.
#include <gtest/gtest.h>

#include "symshape/ranges.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

using testing::inf;
using testing::P;
using testing::R;

TEST(ValueRange, PrintsEndsAndInfinities) {
  EXPECT_EQ(R(2, inf).str(), "[2, inf]");
  EXPECT_EQ(R(inf, 5).str(), "[-inf, 5]");
  EXPECT_EQ(R(3, 3).str(), "[3, 3]");
  EXPECT_EQ(ValueRange::all().str(), "[-inf, inf]");
  EXPECT_EQ(ValueRange::empty().str(), "[]");
  EXPECT_EQ(R(5, 2).str(), "[]");
  EXPECT_EQ(R(-7, -1).str(), "[-7, -1]");
}

TEST(ValueRange, EmptinessAndPoints) {
  EXPECT_TRUE(ValueRange::empty().is_empty());
  EXPECT_TRUE(R(1, 0).is_empty());
  EXPECT_FALSE(R(0, 0).is_empty());
  EXPECT_FALSE(R(inf, inf).is_empty());
  EXPECT_FALSE(R(5, inf).is_empty());
  EXPECT_TRUE(R(4, 4).is_point());
  EXPECT_FALSE(R(4, 5).is_point());
  EXPECT_FALSE(R(4, inf).is_point());
  EXPECT_FALSE(ValueRange::empty().is_point());
  EXPECT_TRUE(ValueRange::all().is_all());
}

TEST(ValueRange, Contains) {
  EXPECT_TRUE(R(2, inf).contains(Int(2)));
  EXPECT_TRUE(R(2, inf).contains(Int(1000000)));
  EXPECT_FALSE(R(2, inf).contains(Int(1)));
  EXPECT_TRUE(R(inf, -3).contains(Int(-100)));
  EXPECT_FALSE(R(inf, -3).contains(Int(-2)));
  EXPECT_FALSE(ValueRange::empty().contains(Int(0)));

  EXPECT_TRUE(R(0, inf).contains(R(2, inf)));
  EXPECT_FALSE(R(2, inf).contains(R(0, inf)));
  EXPECT_TRUE(ValueRange::all().contains(R(inf, 4)));
  EXPECT_FALSE(R(-10, 10).contains(R(inf, 4)));
  EXPECT_TRUE(R(1, 2).contains(ValueRange::empty()));
  EXPECT_TRUE(ValueRange::empty().contains(ValueRange::empty()));
  EXPECT_FALSE(ValueRange::empty().contains(P(0)));
}

TEST(ValueRange, IntersectAndHull) {
  EXPECT_EQ(R(0, 10).intersect(R(5, inf)), R(5, 10));
  EXPECT_EQ(R(inf, 3).intersect(R(-2, inf)), R(-2, 3));
  EXPECT_TRUE(R(0, 3).intersect(R(4, 9)).is_empty());
  EXPECT_EQ(R(0, 3).intersect(R(4, 9)).str(), "[]");
  EXPECT_TRUE(ValueRange::empty().intersect(ValueRange::all()).is_empty());

  EXPECT_EQ(R(0, 3).hull(R(7, 9)), R(0, 9));
  EXPECT_EQ(R(0, 3).hull(R(inf, -5)), R(inf, 3));
  EXPECT_EQ(R(0, 3).hull(ValueRange::empty()), R(0, 3));
  EXPECT_EQ(ValueRange::empty().hull(R(2, inf)), R(2, inf));
  EXPECT_TRUE(ValueRange::empty().hull(ValueRange::empty()).is_empty());
}

TEST(ValueRange, EqualityTreatsAllEmptiesAlike) {
  EXPECT_EQ(R(5, 2), ValueRange::empty());
  EXPECT_EQ(R(1, 0), R(9, -9));
  EXPECT_FALSE(R(1, 0) == R(0, 0));
  EXPECT_FALSE(R(1, inf) == R(1, 5));
  EXPECT_FALSE(R(inf, 1) == R(0, 1));
  EXPECT_EQ(R(inf, inf), ValueRange::all());
}

TEST(RangeArithmetic, AdditionAndSubtraction) {
  EXPECT_EQ(R(2, inf) + P(-1), R(1, inf));
  EXPECT_EQ(R(2, inf) - P(1), R(1, inf));
  EXPECT_EQ(R(1, 3) + R(10, 20), R(11, 23));
  EXPECT_EQ(R(inf, 3) + R(1, inf), ValueRange::all());
  EXPECT_EQ(R(1, 3) - R(10, 20), R(-19, -7));
  EXPECT_EQ(-R(2, inf), R(inf, -2));
  EXPECT_TRUE((ValueRange::empty() + R(1, 2)).is_empty());
  EXPECT_TRUE((-ValueRange::empty()).is_empty());
}

TEST(RangeArithmetic, MultiplicationWithInfinitiesAndZero) {
  // An infinite end times 0 is 0: the values are finite.
  EXPECT_EQ(R(1, inf) * P(0), P(0));
  EXPECT_EQ(ValueRange::all() * P(0), P(0));
  EXPECT_EQ(R(inf, 5) * R(0, 2), R(inf, 10));
  EXPECT_EQ(R(1, inf) * R(-3, 0), R(inf, 0));
  EXPECT_EQ(R(2, inf) * R(3, inf), R(6, inf));
  EXPECT_EQ(R(-2, 3) * R(-4, 5), R(-12, 15));
  EXPECT_EQ(R(-2, 3) * R(1, inf), ValueRange::all());
  EXPECT_TRUE((ValueRange::empty() * P(0)).is_empty());
}

TEST(RangeArithmetic, PowersOfSignedRanges) {
  EXPECT_EQ(range_pow(R(-3, 2), 2), R(0, 9));
  EXPECT_EQ(range_pow(R(inf, -2), 2), R(4, inf));
  EXPECT_EQ(range_pow(R(inf, 2), 3), R(inf, 8));
  EXPECT_EQ(range_pow(R(-2, inf), 2), R(0, inf));
  EXPECT_EQ(range_pow(ValueRange::all(), 0), P(1));
  EXPECT_EQ(range_pow(R(-5, -5), 3), P(-125));
  EXPECT_TRUE(range_pow(ValueRange::empty(), 0).is_empty());
}

TEST(RangeArithmetic, FloorDivisionRoundsTowardMinusInfinity) {
  EXPECT_EQ(range_floordiv(P(-7), P(2)), P(-4));
  EXPECT_EQ(range_floordiv(P(7), P(-2)), P(-4));
  EXPECT_EQ(range_floordiv(R(2, inf), P(2)), R(1, inf));
  EXPECT_EQ(range_floordiv(P(-5), R(1, inf)), R(-5, -1));
  EXPECT_EQ(range_floordiv(R(0, 100), R(1, inf)), R(0, 100));
  EXPECT_EQ(range_floordiv(R(inf, -1), R(1, inf)), R(inf, -1));
}

TEST(RangeArithmetic, DivisionCountsOnlyNonzeroDivisors) {
  EXPECT_EQ(range_floordiv(P(7), R(-2, 2)), R(-7, 7));
  EXPECT_EQ(range_floordiv(R(0, 10), R(0, 5)), R(0, 10));
  EXPECT_EQ(range_mod(R(0, 10), R(0, 5)), R(0, 4));
  // Division by a range that holds only 0 has no value at all.
  EXPECT_TRUE(range_floordiv(P(10), P(0)).is_empty());
  EXPECT_TRUE(range_mod(P(10), P(0)).is_empty());
}

TEST(RangeArithmetic, ModuloTakesTheDivisorsSign) {
  EXPECT_EQ(range_mod(P(-7), P(2)), P(1));
  EXPECT_EQ(range_mod(P(7), P(-2)), P(-1));
  EXPECT_EQ(range_mod(ValueRange::all(), P(4)), R(0, 3));
  EXPECT_EQ(range_mod(R(5, inf), P(-3)), R(-2, 0));
  EXPECT_EQ(range_mod(R(0, inf), R(1, inf)), R(0, inf));
  EXPECT_EQ(range_mod(R(0, 10), R(20, 30)), R(0, 10));  // a < b leaves a unchanged
  EXPECT_EQ(range_mod(R(13, 14), P(4)), R(1, 2));       // one period: exact
  EXPECT_EQ(range_mod(R(-6, -5), P(4)), R(2, 3));       // one period below 0: exact
  EXPECT_EQ(range_mod(R(3, 5), P(4)), R(0, 3));         // crosses a period
  EXPECT_EQ(range_mod(ValueRange::all(), R(-3, 5)), R(-2, 4));
}

TEST(RangeArithmetic, NegativeDividendModuloIsNotCSemantics) {
  // PyTorch #169602 bounds (-e-1) % 4 with C's remainder; in Python it lies in [0, 3].
  ValueRange e = R(0, inf);
  ValueRange dividend = -e - P(1);
  EXPECT_EQ(dividend, R(inf, -1));
  EXPECT_EQ(range_mod(dividend, P(4)), R(0, 3));
}

TEST(RangeArithmetic, MaxAndMin) {
  EXPECT_EQ(range_max(R(inf, 3), R(1, 2)), R(1, 3));
  EXPECT_EQ(range_max(R(0, inf), R(5, 7)), R(5, inf));
  EXPECT_EQ(range_min(R(inf, 3), R(1, 2)), R(inf, 2));
  EXPECT_EQ(range_min(R(0, inf), R(5, 7)), R(0, 7));
  EXPECT_TRUE(range_max(ValueRange::empty(), R(1, 2)).is_empty());
  EXPECT_TRUE(range_min(R(1, 2), ValueRange::empty()).is_empty());
}

}  // namespace
}  // namespace symshape
