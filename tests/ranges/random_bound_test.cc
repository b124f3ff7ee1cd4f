// bound() and modular_set() on random expressions: every value the expression takes at points
// allowed by the facts (evaluated with Python semantics) lies in the bound and satisfies the
// congruence.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

const auto& kSymbols = testing::kRandomSymbols;
// Infinite ends are sampled over [-kRandomWindow, kRandomWindow].
constexpr long kRandomWindow = 12;

Expr random_expr(std::mt19937& rng, int depth) {
  if (depth == 0 || rng() % 4 == 0) return testing::random_leaf(rng);
  Expr a = random_expr(rng, depth - 1), b = random_expr(rng, depth - 1);
  try {
    switch (rng() % 12) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return floordiv(a, b);
      case 4: return mod(a, b);
      case 5: return ceildiv(a, b);
      case 6: return max(a, b);
      case 7: return min(a, b);
      case 8: return pow(a, 2 + rng() % 2);
      case 9: return exact_div(a, Expr(2 + static_cast<long>(rng() % 3)));
      case 10: return exact_div(a, Expr::symbol(kSymbols[rng() % 3]));
      default: return floordiv(a, Expr(1 + static_cast<long>(rng() % 8)));
    }
  } catch (const Error&) {
    return a;  // a constant divisor 0
  }
}

struct SymbolFacts {
  std::optional<long> lo, hi;
  long divisor = 1;
  std::vector<long> values() const {
    std::vector<long> out;
    for (long v = lo.value_or(-kRandomWindow); v <= hi.value_or(kRandomWindow); ++v) {
      if (v % divisor == 0) out.push_back(v);
    }
    return out;
  }
};

SymbolFacts random_symbol_facts(std::mt19937& rng) {
  SymbolFacts s;
  long lo = static_cast<long>(rng() % 13) - 6;
  s.lo = lo;
  s.hi = lo + static_cast<long>(rng() % 9);
  if (rng() % 6 == 0) s.lo.reset();
  if (rng() % 6 == 0) s.hi.reset();
  if (rng() % 4 == 0) s.divisor = 2 + static_cast<long>(rng() % 3);
  return s;
}

TEST(RandomBound, BoundsAndCongruencesHoldAtEverySampledPoint) {
  std::mt19937 rng(2024);
  int checked_points = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Facts facts;
    SymbolFacts sf[3];
    for (int i = 0; i < 3; ++i) {
      sf[i] = random_symbol_facts(rng);
      facts.set_range(kSymbols[i], testing::R(sf[i].lo, sf[i].hi));
      if (sf[i].divisor > 1) facts.add_divisibility(Expr::symbol(kSymbols[i]), Expr(sf[i].divisor));
    }
    Expr e = random_expr(rng, 1 + iter % 4);
    ValueRange r = bound(e, facts);
    ModularSet m = modular_set(e, facts);
    std::vector<long> vx = sf[0].values(), vy = sf[1].values(), vz = sf[2].values();
    for (long x : vx) {
      for (long y : vy) {
        for (long z : vz) {
          Bindings b{{"x", Int(x)}, {"y", Int(y)}, {"z", Int(z)}};
          Int v;
          try {
            v = evaluate(e, b);
          } catch (const Error&) {
            continue;  // division by zero or an exact quotient that is not exact here
          }
          ++checked_points;
          ASSERT_TRUE(r.contains(v)) << e.str() << " at x=" << x << " y=" << y << " z=" << z
                                     << " is " << to_string(v) << ", outside " << r.str();
          bool ok = cln::zerop(m.modulus) ? v == m.base : cln::mod(v - m.base, m.modulus) == 0;
          ASSERT_TRUE(ok) << e.str() << " at x=" << x << " y=" << y << " z=" << z << " is "
                          << to_string(v) << ", not " << to_string(m.base) << " mod "
                          << to_string(m.modulus);
        }
      }
    }
  }
  EXPECT_GT(checked_points, 100000);
}

}  // namespace
}  // namespace symshape
