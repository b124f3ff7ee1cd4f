// The ShapeEnv's own decision path for `x + k op y` (issue 33): it reads the relation off the
// difference closure without simplify(), so it is checked against what simplify() (the general
// path) decides and guards, and against brute force over every point the guards allow.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "symshape/prove/limits.h"
#include "symshape/shape_env.h"
#include "symshape/simplify.h"
#include "tests/env/env_test_util.h"

namespace symshape::difference_decisions_test {
namespace {

using env_test::source;

constexpr int kSymbols = 4;
constexpr int kLo = 2, kHi = 8;  // every symbol's declared range: the brute-force box

// `s_a + k op s_b`, or (kind 1) `2*s_a op s_b + k`, or (kind 2) `s_a + s_b op k`: the last two
// are no differences, so they go the general way and make their component inexact.
struct Question {
  int a, b, k, kind;
  RelOp op;

  int lhs(const std::array<int, kSymbols>& v) const {
    return kind == 0 ? v[a] + k : kind == 1 ? 2 * v[a] : v[a] + v[b];
  }
  int rhs(const std::array<int, kSymbols>& v) const {
    return kind == 0 ? v[b] : kind == 1 ? v[b] + k : k;
  }
  bool holds(const std::array<int, kSymbols>& v) const {
    const int l = lhs(v), r = rhs(v);
    switch (op) {
      case RelOp::Eq: return l == r;
      case RelOp::Ne: return l != r;
      case RelOp::Lt: return l < r;
      case RelOp::Le: return l <= r;
      case RelOp::Gt: return l > r;
      case RelOp::Ge: return l >= r;
    }
    return false;
  }
  SymBool on(const std::vector<SymInt>& s) const {
    SymInt l = kind == 0 ? s[a] + k : kind == 1 ? s[a] * 2 : s[a] + s[b];
    SymInt r = kind == 0 ? s[b] : kind == 1 ? s[b] + k : SymInt(k);
    switch (op) {
      case RelOp::Eq: return l == r;
      case RelOp::Ne: return l != r;
      case RelOp::Lt: return l < r;
      case RelOp::Le: return l <= r;
      case RelOp::Gt: return l > r;
      case RelOp::Ge: return l >= r;
    }
    return l == r;
  }
};

Truth truth_of(const Cond& c) {
  return c.is_true() ? Truth::True : c.is_false() ? Truth::False : Truth::Unknown;
}

// Random envs of four symbols in [2, 8] with small hints (so equalities hold and replace), asked
// difference questions of all six relations and a few others. Every static answer of the
// difference path is sound (brute force over the points the guards allow), is the general
// path's answer, and is Unknown only where the general path's is, or where the path's one
// relaxation applies (disequalities on narrow pairs, past kMaxProveAssumptions facts). Every
// guard it records is the relation simplify() leaves, decided on the hints.
TEST(ShapeEnvDifferences, DecisionsAgreeWithTheGeneralPathAndBruteForce) {
  std::mt19937 rng(33);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const RelOp ops[] = {RelOp::Eq, RelOp::Ne, RelOp::Lt, RelOp::Le, RelOp::Gt, RelOp::Ge};
  int decided = 0, guarded = 0, relaxed = 0, replaced = 0;
  for (int round = 0; round < 80; ++round) {
    ShapeEnv env;
    std::vector<SymInt> s;
    std::array<int, kSymbols> hints{};
    for (int i = 0; i < kSymbols; ++i) {
      hints[i] = pick(kLo, 5);
      SymbolOptions options;
      options.constraint = ValueRange::closed(kLo, kHi);
      s.push_back(env.create_symbol(hints[i], source(i), DimPolicy::Dynamic, options));
    }
    std::vector<Question> guards;  // the questions that recorded a guard
    for (int step = 0; step < 40; ++step) {
      Question q{pick(0, kSymbols - 1), 0, pick(-3, 3), pick(0, 9) == 0 ? pick(1, 2) : 0,
                 ops[pick(0, 5)]};
      q.b = (q.a + pick(1, kSymbols - 1)) % kSymbols;
      if (q.kind == 2) q.k = pick(4, 14);
      const SymBool cond = q.on(s);
      // The general path's verdict and guard form, before the env learns anything more.
      const Cond simple = simplify(env.substitute(cond.cond()), env.facts());
      const Truth general = truth_of(simple);
      const Truth t = env.known(cond);
      const std::string where =
          "round " + std::to_string(round) + " step " + std::to_string(step) + ": " + cond.str();
      if (t != Truth::Unknown) {
        ++decided;
        if (general != Truth::Unknown) {
          EXPECT_EQ(t, general) << where;
        }
        // Sound: it holds (or fails) at every point of the box that satisfies the guards.
        std::array<int, kSymbols> v{};
        for (v[0] = kLo; v[0] <= kHi; ++v[0]) {
          for (v[1] = kLo; v[1] <= kHi; ++v[1]) {
            for (v[2] = kLo; v[2] <= kHi; ++v[2]) {
              for (v[3] = kLo; v[3] <= kHi; ++v[3]) {
                bool allowed = true;
                for (const Question& g : guards) allowed = allowed && g.holds(v) == g.holds(hints);
                if (allowed) {
                  ASSERT_EQ(q.holds(v), t == Truth::True) << where;
                }
              }
            }
          }
        }
      } else if (general != Truth::Unknown) {
        // Only the relaxation leaves undecided what the general path decides.
        ++relaxed;
        EXPECT_EQ(q.kind, 0) << where;
        EXPECT_GT(env.facts().assumptions().size(), detail::kMaxProveAssumptions) << where;
      }
      const size_t before = env.guards().size();
      ASSERT_EQ(env.evaluate(cond), q.holds(hints)) << where;
      if (env.guards().size() > before) {
        ASSERT_EQ(t, Truth::Unknown) << where;
        ++guarded;
        guards.push_back(q);
        if (q.kind == 0 && general == Truth::Unknown) {
          const Cond expected = q.holds(hints) ? simple : !simple;
          EXPECT_TRUE(env.guards().back().cond.identical(expected))
              << where << ": guarded " << env.guards().back().cond.str() << ", simplify() gives "
              << expected.str();
        }
      }
    }
    replaced += static_cast<int>(env.replacements().size());
  }
  EXPECT_GT(decided, 1000);
  EXPECT_GT(guarded, 600);
  EXPECT_GT(replaced, 40);  // equalities that held made replacements
  EXPECT_LT(relaxed, decided / 50);
}

// A goal over a symbol that an equality replaced is decided over its replacement, and the facts
// about the two merged symbols (now constant relations) keep the closure exact.
TEST(ShapeEnvDifferences, AReplacementKeepsTheClosureExact) {
  ShapeEnv env;
  std::vector<SymInt> s;
  for (int i = 0; i < 12; ++i) {
    s.push_back(env.create_symbol(100 + 10 * i, source(i), DimPolicy::Dynamic));
  }
  EXPECT_TRUE(env.evaluate(s[11] + 5 != s[10]));  // s11 + 5 != s10, before the replacement
  EXPECT_TRUE(env.evaluate(s[3] + 7 < s[11]));
  EXPECT_TRUE(env.evaluate(s[11] == s[10] + 10));  // s11 := s10 + 10
  ASSERT_EQ(env.replacements().count("s11"), 1u);
  // Neither symbol is rewritten by the facts' own equalities (s11 is the later name).
  EXPECT_EQ(env.facts().substitutions().count("s10"), 0u);
  Facts::DifferenceRange r = env.facts().difference_range("s10", "s3");
  EXPECT_TRUE(r.exact);
  ASSERT_TRUE(r.range.lo());
  EXPECT_EQ(to_string(*r.range.lo()), "-2");  // s3 + 7 < s11 = s10 + 10
  EXPECT_EQ(env.known(s[3] <= s[11] - 8), Truth::True);
  EXPECT_EQ(env.known(s[3] > s[10] + 2), Truth::False);
  EXPECT_EQ(env.known(s[3] + 4 <= s[11] - 6), Truth::Unknown);
  const size_t guards = env.guards().size();
  EXPECT_TRUE(env.evaluate(s[3] + 90 >= s[11]));  // s3 + 90 >= s10 + 10: guarded, over s10
  ASSERT_EQ(env.guards().size(), guards + 1);
  EXPECT_EQ(env.guards().back().cond.str(), "s3 + 90 >= s10 + 10");
}

}  // namespace
}  // namespace symshape::difference_decisions_test
