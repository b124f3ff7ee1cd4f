// Num, the range analysis' number type: its int64 fast paths agree with exact CLN arithmetic at
// the int64 boundaries and beyond, and ranges with huge ends stay exact.
#include <cln/integer.h>
#include <cln/rational.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "symshape/ranges.h"
#include "symshape/ranges/number.h"

namespace symshape {
namespace {

using detail::Num;
using detail::Rat;

std::vector<Rat> sample_values() {
  const long long kMax = std::numeric_limits<long long>::max();
  const long long kMin = std::numeric_limits<long long>::min();
  std::vector<Rat> out;
  for (long long v : {0LL, 1LL, -1LL, 2LL, -2LL, 3LL, -7LL, 12LL, 3037000499LL, -3037000500LL,
                      4294967296LL, kMax, kMax - 1, kMin, kMin + 1}) {
    out.push_back(Rat(Int(v)));
  }
  // Either side of the end of CLN's fixnums (integers held in the word itself, read without a
  // call), whatever its width.
  for (int bits : {29, 30, 31, 32, 60, 61, 62}) {
    const Int p = cln::expt_pos(Int(2), bits);
    for (const Int& v : {p - 1, p, -p, -p - 1}) out.push_back(Rat(v));
  }
  out.push_back(Rat(cln::expt_pos(Int(2), 64)));
  out.push_back(Rat(-cln::expt_pos(Int(2), 70) + 3));
  out.push_back(Rat(1) / Rat(2));
  out.push_back(Rat(-7) / Rat(3));
  return out;
}

bool is_int(const Rat& r) { return cln::denominator(r) == 1; }

// The representation is canonical: an int64 integer is always inline.
bool canonical(const Num& n) {
  Rat r = n.rat();
  bool fits = is_int(r) && cln::integer_length(cln::the<Int>(r)) < 64;
  return n.is_small() == fits;
}

TEST(Num, ArithmeticMatchesExactArithmetic) {
  std::vector<Rat> values = sample_values();
  for (const Rat& a : values) {
    Num na(a);
    ASSERT_TRUE(na.rat() == a);
    ASSERT_TRUE(canonical(na));
    EXPECT_EQ(-na, Num(-a));
    for (const Rat& b : values) {
      Num nb(b);
      Num sum = na + nb, diff = na - nb, prod = na * nb;
      EXPECT_TRUE(sum.rat() == a + b && canonical(sum));
      EXPECT_TRUE(diff.rat() == a - b && canonical(diff));
      EXPECT_TRUE(prod.rat() == a * b && canonical(prod));
      EXPECT_EQ(compare(na, nb), cln::compare(a, b));
      EXPECT_EQ(na == nb, a == b);
    }
  }
}

TEST(Num, IntegerFunctionsUsePythonSemantics) {
  std::vector<Rat> values = sample_values();
  for (const Rat& a : values) {
    if (!is_int(a)) continue;
    Int ia = cln::the<Int>(a);
    for (const Rat& b : values) {
      if (!is_int(b)) continue;
      Int ib = cln::the<Int>(b);
      EXPECT_TRUE(detail::gcd(Num(a), Num(b)).rat() == cln::gcd(ia, ib));
      if (cln::zerop(ib)) continue;
      Num q = detail::floordiv(Num(a), Num(b)), r = detail::mod(Num(a), Num(b));
      EXPECT_TRUE(q.rat() == cln::floor1(ia, ib) && canonical(q));
      EXPECT_TRUE(r.rat() == cln::mod(ia, ib) && canonical(r));
    }
  }
  EXPECT_EQ(detail::floordiv(Num(-7), Num(2)), Num(-4));
  EXPECT_EQ(detail::mod(Num(-7), Num(2)), Num(1));
  EXPECT_EQ(detail::mod(Num(7), Num(-2)), Num(-1));
}

TEST(Num, PowersAndRounding) {
  EXPECT_EQ(detail::power(Num(-1), 7), Num(-1));
  EXPECT_EQ(detail::power(Num(-1), 8), Num(1));
  EXPECT_EQ(detail::power(Num(0), 0), Num(1));
  EXPECT_EQ(detail::power(Num(3), 4), Num(81));
  EXPECT_TRUE(detail::power(Num(2), 100).rat() == cln::expt_pos(Int(2), 100));
  EXPECT_TRUE(detail::power(Num(-3), 41).rat() == -cln::expt_pos(Int(3), 41));
  Num half(Rat(-5) / Rat(2));
  EXPECT_EQ(half.floor(), Num(-3));
  EXPECT_EQ(half.ceil(), Num(-2));
  EXPECT_TRUE(detail::reciprocal(Num(4)).rat() == Rat(1) / Rat(4));
}

TEST(Num, RangesWithHugeEndsStayExact) {
  Int big = cln::expt_pos(Int(2), 80);
  ValueRange r = ValueRange::closed(big, big + 5);
  EXPECT_EQ(r + ValueRange::point(Int(1)), ValueRange::closed(big + 1, big + 6));
  EXPECT_EQ(r * ValueRange::point(Int(-2)), ValueRange::closed(-2 * big - 10, -2 * big));
  EXPECT_EQ(range_mod(r, ValueRange::point(Int(8))), ValueRange::closed(0, 5));
  EXPECT_EQ(range_floordiv(r, ValueRange::point(big)), ValueRange::point(Int(1)));
  Int max = Int(std::numeric_limits<long long>::max());
  EXPECT_EQ(ValueRange::point(max) + ValueRange::point(max), ValueRange::point(2 * max));
  EXPECT_EQ(range_pow(ValueRange::closed(-3, 2), 64),
            ValueRange::closed(0, cln::expt_pos(Int(3), 64)));
}

}  // namespace
}  // namespace symshape
