// The range of one variable over a system of integer linear constraints (detail::project, behind
// bound()'s projection over the facts): exact on small cases, and never narrower than the
// values the integer solutions take (brute-forced over random systems).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "linear_test_util.h"

namespace symshape::detail {
namespace {

TEST(Project, DifferenceUnderTwoRelations) {
  // a + 2 <= b <= a + 5, a, b >= 1; t == b - a.
  std::vector<LinearConstraint> cs = {ge({{1, 1}, {0, -1}}, -2), ge({{0, 1}, {1, -1}}, 5),
                                      ge({{0, 1}}, -1), ge({{1, 1}}, -1),
                                      eq({{2, 1}, {1, -1}, {0, 1}}, 0)};
  auto r = project(cs, {true, true, true}, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 2);
  EXPECT_EQ(r->hi, 5);
}

TEST(Project, IntegerRoundingInward) {
  // 2*a + 3*b >= 10, a, b >= 1; t == a + b: rationally t >= 11/3, so t >= 4.
  std::vector<LinearConstraint> cs = {ge({{0, 2}, {1, 3}}, -10), ge({{0, 1}}, -1), ge({{1, 1}}, -1),
                                      eq({{2, 1}, {0, -1}, {1, -1}}, 0)};
  auto r = project(cs, {true, true, true}, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 4);
  EXPECT_FALSE(r->hi);
}

TEST(Project, TargetFixedByAnEquality) {
  // 3*t == 12.
  auto r = project({eq({{0, 3}}, -12)}, {true}, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 4);
  EXPECT_EQ(r->hi, 4);
}

TEST(Project, ContradictionIsReported) {
  // x >= 3, x <= 2, t == x.
  EXPECT_FALSE(
      project({ge({{0, 1}}, -3), ge({{0, -1}}, 2), eq({{1, 1}, {0, -1}}, 0)}, {true, true}, 1));
}

TEST(Project, UnboundedSideStaysOpen) {
  // x >= 0, t == x.
  auto r = project({ge({{0, 1}}, 0), eq({{1, 1}, {0, -1}}, 0)}, {true, true}, 1);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 0);
  EXPECT_FALSE(r->hi);
}

// Random systems over x0, x1, x2 in [-4, 4] (bounds included as constraints), a random target
// t == a0*x0 + a1*x1 + a2*x2 + k: wherever the system has an integer solution in the box, the
// projection must hold every value t takes there.
TEST(Project, RandomSystemsHoldEveryValue) {
  std::mt19937 rng(20261124);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int systems = 0, exact = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<LinearConstraint> cs;
    for (int v = 0; v < 3; ++v) {
      cs.push_back(ge({{v, 1}}, 4));
      cs.push_back(ge({{v, -1}}, 4));
    }
    const int n = pick(1, 3);
    for (int i = 0; i < n; ++i) {
      LinearConstraint c;
      for (int v = 0; v < 3; ++v) {
        int a = pick(-3, 3);
        if (a != 0) c.terms.emplace_back(v, a);
      }
      c.constant = pick(-6, 6);
      c.equality = pick(0, 4) == 0;
      if (!c.terms.empty()) cs.push_back(c);
    }
    int64_t a[3] = {pick(-3, 3), pick(-3, 3), pick(-3, 3)};
    int64_t k = pick(-5, 5);
    LinearConstraint target;
    target.equality = true;
    target.terms = {{0, -a[0]}, {1, -a[1]}, {2, -a[2]}, {3, 1}};
    std::erase_if(target.terms, [](const auto& t) { return t.second == 0; });
    target.constant = -k;
    std::vector<LinearConstraint> with_target = cs;
    with_target.push_back(target);
    // Brute force over the box.
    std::optional<int64_t> lo, hi;
    for (int x0 = -4; x0 <= 4; ++x0) {
      for (int x1 = -4; x1 <= 4; ++x1) {
        for (int x2 = -4; x2 <= 4; ++x2) {
          const int64_t x[3] = {x0, x1, x2};
          if (!holds_at(cs, x)) continue;
          int64_t t = a[0] * x0 + a[1] * x1 + a[2] * x2 + k;
          lo = lo ? std::min(*lo, t) : t;
          hi = hi ? std::max(*hi, t) : t;
        }
      }
    }
    auto r = project(with_target, {true, true, true, true}, 3);
    if (!lo) continue;  // no solution: any answer is right
    ++systems;
    ASSERT_TRUE(r) << "round " << round << ": a system with solutions was found contradictory";
    if (r->lo) {
      EXPECT_LE(*r->lo, *lo) << "round " << round;
    }
    if (r->hi) {
      EXPECT_GE(*r->hi, *hi) << "round " << round;
    }
    if (r->lo == lo && r->hi == hi) ++exact;
  }
  EXPECT_GT(systems, 500);
  std::cout << "project: " << systems << " satisfiable systems, " << exact << " exact ranges\n";
}

}  // namespace
}  // namespace symshape::detail
