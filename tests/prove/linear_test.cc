// The integer linear refuter behind prove(): what it refutes, and that it never refutes a
// satisfiable system.
#include <gtest/gtest.h>

#include <random>

#include "linear_test_util.h"

namespace symshape::detail {
namespace {

const std::vector<bool> kInts3{true, true, true};

TEST(LinearTest, EmptySystemIsNotRefuted) { EXPECT_FALSE(refute({}, kInts3)); }

TEST(LinearTest, ConstantConstraints) {
  EXPECT_TRUE(refute({ge({}, -1)}, kInts3));
  EXPECT_FALSE(refute({ge({}, 0)}, kInts3));
  EXPECT_TRUE(refute({eq({}, 2)}, kInts3));
}

TEST(LinearTest, OppositeBounds) {
  // x >= 3 and x <= 2.
  EXPECT_TRUE(refute({ge({{0, 1}}, -3), ge({{0, -1}}, 2)}, kInts3));
  // x >= 3 and x <= 3.
  EXPECT_FALSE(refute({ge({{0, 1}}, -3), ge({{0, -1}}, 3)}, kInts3));
}

TEST(LinearTest, Transitivity) {
  // x - y >= 1, y - z >= 1, z - x >= -1  (x > y > z, x <= z + 1).
  EXPECT_TRUE(refute(
      {ge({{0, 1}, {1, -1}}, -1), ge({{1, 1}, {2, -1}}, -1), ge({{0, -1}, {2, 1}}, 1)}, kInts3));
  // ... x <= z + 2 is satisfiable.
  EXPECT_FALSE(refute(
      {ge({{0, 1}, {1, -1}}, -1), ge({{1, 1}, {2, -1}}, -1), ge({{0, -1}, {2, 1}}, 2)}, kInts3));
}

TEST(LinearTest, IntegerTighteningSeesParity) {
  // 2x >= 1 and 2x <= 1: rational x = 1/2 only.
  EXPECT_TRUE(refute({ge({{0, 2}}, -1), ge({{0, -2}}, 1)}, kInts3));
  EXPECT_FALSE(refute({ge({{0, 2}}, -1), ge({{0, -2}}, 1)}, {false}));
  // 2x - 2y == 1.
  EXPECT_TRUE(refute({eq({{0, 2}, {1, -2}}, -1)}, kInts3));
  EXPECT_FALSE(refute({eq({{0, 2}, {1, -2}}, -1)}, {false, true}));
}

TEST(LinearTest, EqualitySubstitution) {
  // x == 2k, x - 1 == 2m: x is even and odd.
  EXPECT_TRUE(refute({eq({{0, 1}, {1, -2}}, 0), eq({{0, 1}, {2, -2}}, -1)}, kInts3));
  // x == y + 1, x <= y.
  EXPECT_TRUE(refute({eq({{0, 1}, {1, -1}}, -1), ge({{0, -1}, {1, 1}}, 0)}, kInts3));
}

TEST(LinearTest, TermsInAnyOrderWithRepeatsAndZeros) {
  // 0*y + x + x >= 3 (x >= 2 since 2x >= 3) and x <= 1, terms unsorted and repeated.
  EXPECT_TRUE(refute({ge({{1, 0}, {0, 1}, {0, 1}}, -3), ge({{0, -1}}, 1)}, kInts3));
  // x - x + 0*y >= -1 holds everywhere.
  EXPECT_FALSE(refute({ge({{0, 1}, {1, 0}, {0, -1}}, 1)}, kInts3));
  // A variable beyond the integer flags is a rational: 2v == 1 is satisfiable.
  EXPECT_FALSE(refute({eq({{7, 2}}, -1)}, kInts3));
}

TEST(LinearTest, UnboundedVariablesAreDropped) {
  // x >= y + 5 with y free: satisfiable.
  EXPECT_FALSE(refute({ge({{0, 1}, {1, -1}}, -5), ge({{0, -1}}, 10)}, kInts3));
}

TEST(LinearTest, OverflowIsSoundlyIgnored) {
  const int64_t big = kLinearLimit;
  // Combining these overflows; the system is satisfiable (x = y = 0), so it must not be refuted.
  EXPECT_FALSE(refute({ge({{0, big}, {1, -big + 1}}, 0), ge({{0, -big + 3}, {1, big}}, 0),
                       ge({{0, 1}}, 0), ge({{0, -1}}, 0)},
                      kInts3));
  // A constraint outside the limit is ignored rather than misread.
  EXPECT_FALSE(refute({ge({{0, 1}}, INT64_MIN), ge({{0, 1}}, 0)}, kInts3));
}

TEST(LinearTest, ConstraintCapGivesUp) {
  // Many unbounded variables with pairwise links (bounds propagation learns nothing) and a
  // contradiction only elimination finds: sum(x) >= 1 and sum(x) <= 0. The cap stops the
  // blow-up before the contradiction is reached; without it the system is refuted.
  std::vector<LinearConstraint> cs;
  const int n = 8;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) cs.push_back(ge({{i, 1}, {j, -3}}, 100 + i * j));
  }
  LinearConstraint at_least_one, at_most_zero;
  for (int i = 0; i < n; ++i) {
    at_least_one.terms.emplace_back(i, 1);
    at_most_zero.terms.emplace_back(i, -1);
  }
  at_least_one.constant = -1;
  cs.push_back(at_least_one);
  cs.push_back(at_most_zero);
  std::vector<bool> ints(n, true);
  LinearLimits tiny;
  tiny.max_constraints = 10;
  EXPECT_FALSE(refute(cs, ints, tiny));
  EXPECT_TRUE(refute(cs, ints));
}

// Bounds propagation refutes what intervals alone contradict, rounding integers inward.
TEST(LinearTest, BoundsPropagationRefutes) {
  // x + y >= 7 with x, y <= 3.
  EXPECT_TRUE(refute({ge({{0, 1}, {1, 1}}, -7), ge({{0, -1}}, 3), ge({{1, -1}}, 3)}, kInts3));
  // 3x >= 4 and 3x <= 5 has no integer x (x in [4/3, 5/3]) but a rational one.
  const std::vector<LinearConstraint> gap = {ge({{0, 3}}, -4), ge({{0, -3}}, 5)};
  EXPECT_TRUE(refute(gap, kInts3));
  EXPECT_FALSE(refute(gap, {false, false, false}));
  // x - y >= 1 and y - x >= 1 over unbounded variables: elimination, not propagation.
  EXPECT_TRUE(refute({ge({{0, 1}, {1, -1}}, -1), ge({{0, -1}, {1, 1}}, -1)}, kInts3));
}

// A system shown satisfiable by the search hands back its solution, which must satisfy every
// constraint (checked here independently), and the search finds one for most such systems.
TEST(LinearTest, SolutionsSatisfyTheSystem) {
  std::mt19937 rng(777);
  std::uniform_int_distribution<int> coef(-3, 3), cst(-6, 6), count(1, 6), kind(0, 5);
  int satisfiable = 0, with_solution = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<LinearConstraint> cs;
    for (int v = 0; v < 3; ++v) {
      cs.push_back(ge({{v, 1}}, 3));
      cs.push_back(ge({{v, -1}}, 3));
    }
    for (int i = count(rng); i > 0; --i) {
      LinearConstraint c;
      for (int v = 0; v < 3; ++v) {
        if (int a = coef(rng); a != 0) c.terms.emplace_back(v, a);
      }
      c.constant = cst(rng);
      c.equality = kind(rng) == 0;
      cs.push_back(c);
    }
    bool sat = false;
    for (int p = 0; p < 7 * 7 * 7 && !sat; ++p) {
      const int64_t x[3] = {p % 7 - 3, p / 7 % 7 - 3, p / 49 - 3};
      sat = holds_at(cs, x);
    }
    std::vector<int64_t> solution;
    const bool refuted = refute(cs, kInts3, {}, &solution);
    if (!solution.empty()) {
      ASSERT_EQ(solution.size(), 3u);
      EXPECT_FALSE(refuted);
      EXPECT_TRUE(holds_at(cs, solution.data())) << "round " << round;
      ++with_solution;
    }
    satisfiable += sat;
    if (sat) {
      EXPECT_FALSE(refuted) << "round " << round;
    }
  }
  EXPECT_GT(satisfiable, 300);
  EXPECT_GT(with_solution, satisfiable / 2);
}

// Brute force: random small systems over 3 integer variables, checked against every point of a
// box. A system with a solution in the box must never be refuted; variables are bounded to the
// box so "no solution in the box" is exactly "no solution".
TEST(LinearTest, NeverRefutesASatisfiableSystem) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> coef(-3, 3), cst(-6, 6), count(1, 5), kind(0, 5);
  int refuted = 0, satisfiable = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<LinearConstraint> cs;
    for (int v = 0; v < 3; ++v) {
      cs.push_back(ge({{v, 1}}, 3));   // x >= -3
      cs.push_back(ge({{v, -1}}, 3));  // x <= 3
    }
    int m = count(rng);
    for (int i = 0; i < m; ++i) {
      LinearConstraint c;
      for (int v = 0; v < 3; ++v) {
        int a = coef(rng);
        if (a != 0) c.terms.emplace_back(v, a);
      }
      c.constant = cst(rng);
      c.equality = kind(rng) == 0;
      cs.push_back(c);
    }
    bool sat = false;
    for (int x = -3; x <= 3 && !sat; ++x) {
      for (int y = -3; y <= 3 && !sat; ++y) {
        for (int z = -3; z <= 3 && !sat; ++z) {
          const int64_t p[3] = {x, y, z};
          sat = holds_at(cs, p);
        }
      }
    }
    bool r = refute(cs, kInts3);
    if (sat) {
      ++satisfiable;
      EXPECT_FALSE(r) << "round " << round;
    }
    if (r) ++refuted;
  }
  // The method is incomplete but not weak: most unsatisfiable systems are refuted.
  EXPECT_GT(refuted, (3000 - satisfiable) * 8 / 10);
}

// Difference constraints (x - y + k >= 0 and bounds) are decided exactly (Bellman-Ford): a cycle
// of strict inequalities is refuted, and so is every unsatisfiable system, not only most.
TEST(LinearTest, DifferenceCycleIsRefuted) {
  // x < y, y < z, z < x: y - x - 1 >= 0, z - y - 1 >= 0, x - z - 1 >= 0.
  EXPECT_TRUE(refute(
      {ge({{1, 1}, {0, -1}}, -1), ge({{2, 1}, {1, -1}}, -1), ge({{0, 1}, {2, -1}}, -1)}, kInts3));
  // x <= y + 3, y <= x - 4: x - y in [4, 3].
  EXPECT_TRUE(refute({ge({{1, 1}, {0, -1}}, 3), ge({{0, 1}, {1, -1}}, -4)}, kInts3));
  // x <= y, y <= z, z <= x with x >= 5 and z <= 5: x = y = z = 5.
  EXPECT_FALSE(refute({ge({{1, 1}, {0, -1}}, 0), ge({{2, 1}, {1, -1}}, 0), ge({{0, 1}, {2, -1}}, 0),
                       ge({{0, 1}}, -5), ge({{2, -1}}, 5)},
                      kInts3));
}

TEST(LinearTest, DifferenceSystemsAreDecidedExactly) {
  std::mt19937 rng(15);
  const std::vector<bool> ints(4, true);
  int satisfiable = 0;
  for (int round = 0; round < 2000; ++round) {
    // Every variable in [-3, 3], so that the search below is exhaustive.
    std::vector<LinearConstraint> cs;
    for (int v = 0; v < 4; ++v) {
      cs.push_back(ge({{v, 1}}, 3));
      cs.push_back(ge({{v, -1}}, 3));
    }
    const int extra = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < extra; ++i) {
      const int a = static_cast<int>(rng() % 4), b = static_cast<int>(rng() % 4);
      const int64_t k = static_cast<int64_t>(rng() % 9) - 4;
      if (a == b) {
        cs.push_back(ge({{a, rng() % 2 ? 1 : -1}}, k));
      } else {
        cs.push_back(ge({{a, 1}, {b, -1}}, k));
      }
    }
    bool sat = false;
    for (int p = 0; p < 7 * 7 * 7 * 7 && !sat; ++p) {
      const int64_t x[4] = {p % 7 - 3, p / 7 % 7 - 3, p / 49 % 7 - 3, p / 343 - 3};
      sat = holds_at(cs, x);
    }
    satisfiable += sat;
    EXPECT_EQ(refute(cs, ints), !sat) << "round " << round;
  }
  // Both kinds occur.
  EXPECT_GT(satisfiable, 200);
  EXPECT_LT(satisfiable, 1800);
}

TEST(LinearTest, PropagatedBoundsSeeAContradiction) {
  // 2x + 5z == -3 with x in [-2, 3], z in [0, 5] has no integer solution (z = 0 leaves 2x == -3).
  const std::vector<LinearConstraint> cs = {
      ge({{0, 1}}, 2),  ge({{0, -1}}, 3),           ge({{2, 1}}, 0),
      ge({{2, -1}}, 5), eq({{0, -2}, {2, -5}}, -3), ge({{1, 1}}, -2),
      ge({{1, -1}}, 4), ge({{1, 1}, {2, -1}}, 3)};
  EXPECT_FALSE(propagate_bounds(cs, kInts3).has_value());
  EXPECT_TRUE(refute(cs, kInts3));
}

}  // namespace
}  // namespace symshape::detail
