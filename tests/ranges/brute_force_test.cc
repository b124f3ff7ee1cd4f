// Every interval operation against enumeration: for random small ranges (ends in [-12, 12],
// sometimes infinite), the result holds every value that Python semantics give for operands in
// the ranges, and equals the enumerated hull where tightness is easy to promise.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "symshape/ranges.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

using testing::py_floordiv;
using testing::py_mod;
using testing::R;

// Infinite ends are sampled over this window.
constexpr int64_t kWindow = 40;

struct Case {
  std::optional<int64_t> lo, hi;
  ValueRange range() const { return R(lo, hi); }
  bool finite() const { return lo && hi; }
  std::vector<int64_t> values() const {
    std::vector<int64_t> out;
    for (int64_t v = lo.value_or(-kWindow); v <= hi.value_or(kWindow); ++v) out.push_back(v);
    return out;
  }
};

Case random_case(std::mt19937& rng) {
  std::uniform_int_distribution<int> end(-12, 12), coin(0, 5);
  int a = end(rng), b = end(rng);
  if (a > b) std::swap(a, b);
  if (coin(rng) == 0) b = a;  // points are common in shapes
  Case c{a, b};
  if (coin(rng) == 0) c.lo.reset();
  if (coin(rng) == 0) c.hi.reset();
  return c;
}

ValueRange hull_of(const std::vector<int64_t>& values) {
  if (values.empty()) return ValueRange::empty();
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return R(*lo, *hi);
}

using RangeOp = std::function<ValueRange(const ValueRange&, const ValueRange&)>;
using ValueOp = std::function<std::optional<int64_t>(int64_t, int64_t)>;

// Checks soundness on every pair of cases, and exact equality with the enumerated hull when
// both operands are finite and `tight(a, b)` says tightness is promised.
void check_binary(const char* name, const RangeOp& range_op, const ValueOp& value_op,
                  const std::function<bool(const Case&, const Case&)>& tight) {
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 3000; ++iter) {
    Case a = random_case(rng), b = random_case(rng);
    ValueRange got = range_op(a.range(), b.range());
    std::vector<int64_t> seen;
    for (int64_t x : a.values()) {
      for (int64_t y : b.values()) {
        if (auto v = value_op(x, y)) seen.push_back(*v);
      }
    }
    for (int64_t v : seen) {
      ASSERT_TRUE(got.contains(Int(static_cast<long>(v))))
          << name << " " << a.range().str() << " " << b.range().str() << " gave " << got.str()
          << " but " << v << " is possible";
    }
    if (a.finite() && b.finite() && tight(a, b)) {
      ASSERT_EQ(got, hull_of(seen))
          << name << " " << a.range().str() << " " << b.range().str() << " gave " << got.str();
    }
  }
}

bool always(const Case&, const Case&) { return true; }

TEST(BruteForce, Addition) {
  check_binary(
      "+", [](auto& a, auto& b) { return a + b; },
      [](int64_t x, int64_t y) { return std::optional<int64_t>(x + y); }, always);
}

TEST(BruteForce, Subtraction) {
  check_binary(
      "-", [](auto& a, auto& b) { return a - b; },
      [](int64_t x, int64_t y) { return std::optional<int64_t>(x - y); }, always);
}

TEST(BruteForce, Multiplication) {
  check_binary(
      "*", [](auto& a, auto& b) { return a * b; },
      [](int64_t x, int64_t y) { return std::optional<int64_t>(x * y); }, always);
}

TEST(BruteForce, FloorDivision) {
  check_binary(
      "//", [](auto& a, auto& b) { return range_floordiv(a, b); },
      [](int64_t x, int64_t y) {
        return y == 0 ? std::nullopt : std::optional<int64_t>(py_floordiv(x, y));
      },
      always);
}

TEST(BruteForce, Modulo) {
  // Tight for a constant divisor; for a divisor range only sound.
  check_binary(
      "%", [](auto& a, auto& b) { return range_mod(a, b); },
      [](int64_t x, int64_t y) {
        return y == 0 ? std::nullopt : std::optional<int64_t>(py_mod(x, y));
      },
      [](const Case&, const Case& b) { return *b.lo == *b.hi; });
}

TEST(BruteForce, MaxAndMin) {
  check_binary(
      "max", [](auto& a, auto& b) { return range_max(a, b); },
      [](int64_t x, int64_t y) { return std::optional<int64_t>(std::max(x, y)); }, always);
  check_binary(
      "min", [](auto& a, auto& b) { return range_min(a, b); },
      [](int64_t x, int64_t y) { return std::optional<int64_t>(std::min(x, y)); }, always);
}

TEST(BruteForce, Powers) {
  std::mt19937 rng(777);
  for (int iter = 0; iter < 2000; ++iter) {
    Case a = random_case(rng);
    unsigned n = rng() % 5;
    ValueRange got = range_pow(a.range(), n);
    std::vector<int64_t> seen;
    for (int64_t x : a.values()) {
      int64_t p = 1;
      for (unsigned i = 0; i < n; ++i) p *= x;
      seen.push_back(p);
      ASSERT_TRUE(got.contains(Int(static_cast<long>(p))))
          << a.range().str() << " ** " << n << " gave " << got.str() << " but " << p;
    }
    if (a.finite()) {
      ASSERT_EQ(got, hull_of(seen)) << a.range().str() << " ** " << n;
    }
  }
}

TEST(BruteForce, NegationIsExact) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 500; ++iter) {
    Case a = random_case(rng);
    ValueRange n = -a.range();
    EXPECT_EQ(n.lo().has_value(), a.hi.has_value());
    EXPECT_EQ(n.hi().has_value(), a.lo.has_value());
    EXPECT_EQ(-n, a.range());
  }
}

TEST(BruteForce, PointOperandsGiveThePointResult) {
  for (int64_t x = -12; x <= 12; ++x) {
    for (int64_t y = -12; y <= 12; ++y) {
      ValueRange a = testing::P(x), b = testing::P(y);
      EXPECT_EQ(a + b, testing::P(x + y));
      EXPECT_EQ(a * b, testing::P(x * y));
      if (y != 0) {
        EXPECT_EQ(range_floordiv(a, b), testing::P(py_floordiv(x, y)));
        EXPECT_EQ(range_mod(a, b), testing::P(py_mod(x, y)));
      }
    }
  }
}

}  // namespace
}  // namespace symshape
