// The analyses the simplifier shares between its questions (detail::AnalysisMemo) and the
// remainder case split's shared rewrite change no answer: with one memo across many expressions
// under the same facts, range_and_modular_set gives what a fresh analysis gives; and the bounds
// a case split finds are the ones brute force shows to be tight.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "symshape/ranges/bound.h"
#include "tests/ranges/range_testing.h"

namespace symshape {
namespace {

using testing::inf;
using testing::R;

const auto& kNames = testing::kRandomSymbols;

// Sums of terms that share symbols, under divisions by constants and symbols, max and min: the
// shapes the rules ask about, with sub-terms that recur across expressions.
Expr term(std::mt19937& rng, int depth) {
  if (depth == 0 || rng() % 4 == 0) return testing::random_leaf(rng);
  Expr a = term(rng, depth - 1), b = term(rng, depth - 1);
  const Expr c(static_cast<long>(2 + rng() % 15));
  try {
    switch (rng() % 9) {
      case 0: return a + b;
      case 1: return a - Expr(static_cast<long>(1 + rng() % 4)) * b;
      case 2: return a * b;
      case 3: return floordiv(a, c);
      case 4: return mod(a, c);
      case 5: return ceildiv(a, c);
      case 6: return max(a, b);
      case 7: return min(a, b);
      default: return mod(a, b);
    }
  } catch (const Error&) {
    return a;
  }
}

TEST(AnalysisMemo, SharedAnalysesGiveTheFreshAnswers) {
  std::mt19937 rng(33);
  int compared = 0;
  for (int round = 0; round < 16; ++round) {
    Facts facts;
    for (const char* n : kNames) {
      const long lo = static_cast<long>(rng() % 9) - 3;
      facts.set_range(n, rng() % 3 == 0 ? R(lo, inf) : R(lo, lo + static_cast<long>(rng() % 40)));
    }
    if (rng() % 3 == 0) facts.add_divisibility(Expr::symbol("y"), Expr(4));
    if (rng() % 3 == 0)
      facts.assume(Cond::rel(RelOp::Eq, Expr::symbol("z"), Expr::symbol("x") * Expr(2)));
    detail::AnalysisMemo memo;
    std::vector<Expr> pool;
    for (int i = 0; i < 30; ++i) {
      // Half of the expressions reuse an earlier term, so the memo is hit.
      const Expr t = term(rng, 3);
      const Expr e = !pool.empty() && rng() % 2 == 0 ? t + pool[rng() % pool.size()] : t;
      pool.push_back(t);
      detail::RangeAndModular fresh, shared;
      bool fresh_failed = false, shared_failed = false;
      try {
        fresh = detail::range_and_modular_set(e, facts);
      } catch (const Error&) {
        fresh_failed = true;
      }
      try {
        shared = detail::range_and_modular_set(e, facts, memo);
      } catch (const Error&) {
        shared_failed = true;
      }
      ASSERT_EQ(fresh_failed, shared_failed) << e.str();
      if (fresh_failed) continue;
      EXPECT_EQ(fresh.range, shared.range) << e.str();
      EXPECT_EQ(fresh.modular.modulus, shared.modular.modulus) << e.str();
      EXPECT_EQ(fresh.modular.base, shared.modular.base) << e.str();
      ++compared;
    }
    EXPECT_GT(memo.size(), 0u);
  }
  EXPECT_GT(compared, 300);
}

// Sums the remainder case split bounds (x occurs in several terms, under divisions by divisors
// of 16): each bound is the exact range, checked by brute force over x in [lo, lo + 200].
TEST(AnalysisMemo, CaseSplitBoundsAreTight) {
  const Expr x = Expr::symbol("x");
  const std::vector<Expr> sums = {
      Expr(16) * x + mod(x, Expr(16)),  // 16*x + x % 16
      x - floordiv(x, Expr(4)),
      mod(x, Expr(8)) - mod(x, Expr(4)),
      Expr(3) * floordiv(x + Expr(5), Expr(16)) - floordiv(Expr(3) * x, Expr(16)) + Expr(7),
      ceildiv(x, Expr(8)) * Expr(8) - x,
  };
  for (long lo : {0L, 1L, 5L}) {
    for (long width : {63L, 200L}) {
      Facts facts;
      facts.set_range("x", R(lo, lo + width));
      for (const Expr& e : sums) {
        const ValueRange r = bound(e, facts);
        std::optional<Int> min, max;
        for (long v = lo; v <= lo + width; ++v) {
          const Int value = evaluate(e, Bindings{{"x", Int(v)}});
          if (!min || value < *min) min = value;
          if (!max || value > *max) max = value;
        }
        EXPECT_EQ(r, ValueRange(min, max))
            << e.str() << " over [" << lo << ", " << lo + width << "]";
      }
    }
  }
}

// The same with a second symbol beside the split one (its terms stay as they are in every case):
// brute force over both.
TEST(AnalysisMemo, CaseSplitBoundsWithAnotherSymbolAreTight) {
  const Expr x = Expr::symbol("x"), y = Expr::symbol("y");
  const std::vector<Expr> sums = {
      x - floordiv(x, Expr(4)) + y,
      Expr(16) * x + mod(x, Expr(16)) - Expr(3) * y + Expr(5),
      mod(x, Expr(8)) - mod(x, Expr(4)) + Expr(2) * y,
  };
  for (long lo : {0L, 1L, 5L}) {
    Facts facts;
    facts.set_range("x", R(lo, lo + 63));
    facts.set_range("y", R(-2, 3));
    for (const Expr& e : sums) {
      const ValueRange r = bound(e, facts);
      std::optional<Int> min, max;
      for (long v = lo; v <= lo + 63; ++v) {
        for (long w = -2; w <= 3; ++w) {
          const Int value = evaluate(e, Bindings{{"x", Int(v)}, {"y", Int(w)}});
          if (!min || value < *min) min = value;
          if (!max || value > *max) max = value;
        }
      }
      EXPECT_EQ(r, ValueRange(min, max))
          << e.str() << " with x in [" << lo << ", " << lo + 63 << "], y in [-2, 3]";
    }
  }
}

}  // namespace
}  // namespace symshape
