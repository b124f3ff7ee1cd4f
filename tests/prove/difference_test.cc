// The difference closure behind Facts::difference_range and prove()'s first tier (issue 15):
// its ranges against brute force over small boxes, its exactness claim (an Unknown it calls
// final must be undecidable), and the cases where it must step aside.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/prove/difference.h"
#include "symshape/shape_env.h"
#include "tests/prove/prove_test_util.h"

namespace symshape {
namespace {

using prove_test::C;

const std::string kB = "b";

const char* const kOps[] = {"<", "<=", ">", ">=", "==", "!="};

// Three symbols in small boxes, random facts, and every point of the box that satisfies them.
struct System {
  static constexpr const char* kNames[] = {"a", "b", "c"};
  Facts facts{ValueRange::all()};
  std::vector<Cond> assumed;
  int lo[3], hi[3];
  std::vector<std::array<int, 3>> points;
  std::string text;

  System(std::mt19937& rng, bool mixed) {
    std::ostringstream out;
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::uniform_int_distribution<int>(-4, 3)(rng);
      hi[i] = lo[i] + std::uniform_int_distribution<int>(0, 7)(rng);
      facts.set_range(kNames[i], ValueRange::closed(lo[i], hi[i]));
      out << kNames[i] << " in [" << lo[i] << ", " << hi[i] << "]; ";
    }
    const int n = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int f = 0; f < n; ++f) {
      int x = std::uniform_int_distribution<int>(0, 2)(rng);
      int y = (x + std::uniform_int_distribution<int>(1, 2)(rng)) % 3;
      int k = std::uniform_int_distribution<int>(-3, 3)(rng);
      std::string op = kOps[std::uniform_int_distribution<int>(0, mixed ? 5 : 4)(rng)];
      std::ostringstream fact;
      switch (mixed ? std::uniform_int_distribution<int>(0, 4)(rng) : f % 2) {
        case 0: fact << kNames[x] << " " << op << " " << kNames[y] << " + " << k; break;
        case 1: fact << kNames[x] << " + " << k << " " << op << " 0"; break;
        case 2: fact << kNames[x] << " + " << kNames[y] << " " << op << " " << k; break;
        case 3: fact << kNames[x] << " % 2 == " << (k & 1); break;
        default: fact << "2*" << kNames[x] << " " << op << " " << kNames[y] << " + " << k; break;
      }
      assumed.push_back(C(fact.str()));
      facts.assume(assumed.back());
      out << fact.str() << "; ";
    }
    text = out.str();
    for (int a = lo[0]; a <= hi[0]; ++a) {
      for (int b = lo[1]; b <= hi[1]; ++b) {
        for (int c = lo[2]; c <= hi[2]; ++c) {
          Bindings at{{"a", a}, {"b", b}, {"c", c}};
          bool all = true;
          for (const Cond& fact : assumed) all = all && evaluate(fact, at);
          if (all) points.push_back({a, b, c});
        }
      }
    }
  }
};

// Over difference facts alone the closure's range of every x - y (and of every x) is exactly the
// values it takes, and it says so; contradictory facts give no answer.
TEST(DifferenceClosure, RangesAreExactOverDifferenceFacts) {
  std::mt19937 rng(15);
  int solvable = 0;
  for (int round = 0; round < 1500; ++round) {
    System s(rng, false);
    for (int x = 0; x < 3; ++x) {
      for (int y = -1; y < 3; ++y) {
        if (y == x) continue;
        std::string yn = y < 0 ? "" : System::kNames[y];
        Facts::DifferenceRange r = s.facts.difference_range(System::kNames[x], yn);
        if (s.points.empty()) {
          EXPECT_FALSE(r.exact) << s.text;
          continue;
        }
        int lo = 1 << 20, hi = -(1 << 20);
        for (const auto& p : s.points) {
          int v = p[x] - (y < 0 ? 0 : p[y]);
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        EXPECT_TRUE(r.exact) << s.text;
        EXPECT_EQ(r.range, ValueRange::closed(lo, hi))
            << s.text << " range of " << System::kNames[x] << " - " << (y < 0 ? "0" : yn);
      }
    }
    solvable += !s.points.empty();
  }
  EXPECT_GT(solvable, 600);  // half the table is satisfiable systems
}

// prove() answers every difference goal soundly; over difference facts alone it decides
// exactly what brute force decides (an Unknown means both answers occur).
TEST(DifferenceClosure, ProveAgreesWithBruteForce) {
  std::mt19937 rng(16);
  int decided = 0, asked = 0;
  for (int round = 0; round < 1500; ++round) {
    const bool mixed = round % 2 == 1;
    System s(rng, mixed);
    if (s.points.empty()) continue;
    for (int q = 0; q < 4; ++q) {
      int x = std::uniform_int_distribution<int>(0, 2)(rng);
      int y = (x + std::uniform_int_distribution<int>(1, 2)(rng)) % 3;
      int k = std::uniform_int_distribution<int>(-4, 4)(rng);
      std::ostringstream goal;
      goal << System::kNames[x] << " + " << k << " " << kOps[q == 3 ? 4 : q] << " "
           << System::kNames[y];
      Cond g = C(goal.str());
      bool some_true = false, some_false = false;
      for (const auto& p : s.points) {
        bool v = evaluate(g, {{"a", p[0]}, {"b", p[1]}, {"c", p[2]}});
        (v ? some_true : some_false) = true;
      }
      Truth t = prove(g, s.facts);
      ++asked;
      decided += t != Truth::Unknown;
      if (t == Truth::True) {
        EXPECT_FALSE(some_false) << s.text << goal.str();
      }
      if (t == Truth::False) {
        EXPECT_FALSE(some_true) << s.text << goal.str();
      }
      if (!mixed) {
        Truth expected = !some_false ? Truth::True : !some_true ? Truth::False : Truth::Unknown;
        EXPECT_EQ(t, expected) << s.text << goal.str();
      }
    }
  }
  EXPECT_GT(decided, asked / 4);
}

// A fact the closure cannot hold makes its component inexact, and only its component.
TEST(DifferenceClosure, OtherFactsMakeOnlyTheirComponentInexact) {
  Facts f;  // symbols >= 1
  f.assume(C("a <= b + 2"));
  f.assume(C("c + d <= 10"));  // a sum: not a difference
  f.assume(C("e % 4 == 0"));
  f.assume(C("g != h"));  // a disequality over a wide range: indexed by its pair, not inexact
  f.assume(C("m <= 3"));
  f.assume(C("n <= 3"));
  f.assume(C("m != n"));  // over a narrow range: left to the general prover
  EXPECT_TRUE(f.difference_range("a", "b").exact);
  EXPECT_EQ(f.difference_range("a", "b").range.hi(), Int(2));
  EXPECT_FALSE(f.difference_range("c", "").exact);
  EXPECT_FALSE(f.difference_range("e", "").exact);
  EXPECT_TRUE(f.difference_range("g", "h").exact);
  EXPECT_FALSE(f.difference_range("m", "n").exact);
  EXPECT_TRUE(f.difference_range("a", "x").exact);  // x has no facts: [1, inf) only
  // The sum still leaves c <= 9 to the general prover, which the closure does not claim.
  EXPECT_EQ(prove(C("c <= 9"), f), Truth::True);
  f.assume(C("b <= c"));  // links a and b to the sum
  EXPECT_FALSE(f.difference_range("a", "b").exact);
  EXPECT_EQ(prove(C("a <= 11"), f), Truth::True);  // a <= b + 2 <= c + 2 <= 11
}

// A chain longer than the general prover's fact cap (64) is decided end to end.
TEST(DifferenceClosure, LongChainsNeedNoCap) {
  Facts f(ValueRange::all());
  const int n = 300;
  auto x = [](int i) { return "x" + std::to_string(i); };
  for (int i = 0; i + 1 < n; ++i) f.assume(C(x(i) + " < " + x(i + 1)));
  EXPECT_EQ(prove(C(x(0) + " + 299 <= " + x(n - 1)), f), Truth::True);
  EXPECT_EQ(prove(C(x(0) + " + 299 > " + x(n - 1)), f), Truth::False);
  EXPECT_EQ(prove(C(x(0) + " + 300 <= " + x(n - 1)), f), Truth::Unknown);
  f.assume(C(x(0) + " >= 0"));
  f.assume(C(x(n - 1) + " <= 299"));
  EXPECT_EQ(prove(C(x(150) + " == 150"), f), Truth::True);
  EXPECT_EQ(f.difference_range(x(7), "").range, ValueRange::point(7));
}

// A wider range replaces a narrower one: its old ends stop counting.
TEST(DifferenceClosure, WiderRangeTakesBackTheOldEnds) {
  Facts f(ValueRange::all());
  f.assume(C("a <= b"));
  f.set_range("b", ValueRange::closed(0, 5));
  EXPECT_EQ(f.difference_range("a", "").range.hi(), Int(5));
  f.set_range("b", ValueRange::closed(0, 10));
  EXPECT_EQ(f.difference_range("a", "").range.hi(), Int(10));
  f.refine_range("b", ValueRange::at_most(8));
  EXPECT_EQ(f.difference_range("a", "").range.hi(), Int(8));
}

// A copy of facts shares the closure only until one side learns something.
TEST(DifferenceClosure, CopiesKeepTheirOwnFacts) {
  Facts f(ValueRange::at_least(0));
  f.assume(C("a < b"));
  EXPECT_EQ(f.difference_range("b", "a").range.lo(), Int(1));
  Facts g = f;
  g.assume(C("b >= a + 5"));
  g.refine_range("a", ValueRange::at_least(3));
  EXPECT_EQ(g.difference_range("b", "a").range.lo(), Int(5));
  EXPECT_EQ(g.difference_range("b", "").range.lo(), Int(8));
  EXPECT_EQ(f.difference_range("b", "a").range.lo(), Int(1));
  EXPECT_EQ(f.difference_range("b", "").range.lo(), Int(1));
  f.assume(C("b <= a + 1"));
  EXPECT_EQ(f.difference_range("b", "a").range, ValueRange::point(1));
  EXPECT_EQ(g.difference_range("b", "a").range.hi(), std::nullopt);
}

// Numbers beyond the closure's limit, and more symbols than it holds, leave the answer to the
// general prover.
TEST(DifferenceClosure, StepsAsideWhenItCannotHoldTheFacts) {
  Facts f(ValueRange::at_least(0));
  f.assume(C("a <= b + 1000000000000000000"));
  EXPECT_FALSE(f.difference_range("a", "b").exact);
  EXPECT_EQ(prove(C("a <= b + 1000000000000000000"), f), Truth::True);
  f.set_range("h", ValueRange::at_most(Int(1) << 70));
  EXPECT_FALSE(f.difference_range("h", "").exact);

  Facts many(ValueRange::at_least(0));
  auto y = [](int i) { return "y" + std::to_string(i); };
  for (int i = 0; i < 1100; ++i) many.assume(C(y(i) + " < " + y(i + 1)));
  EXPECT_FALSE(many.difference_range(y(0), y(1)).exact);
  EXPECT_EQ(prove(C(y(0) + " < " + y(1)), many), Truth::True);
  EXPECT_EQ(prove(C(y(0) + " + 2 <= " + y(2)), many), Truth::True);
}

// `False` assumed: the facts contradict each other, and no Unknown is final.
TEST(DifferenceClosure, AssumedFalseIsNeverExact) {
  Facts f;
  f.assume(Cond::truth(false));
  EXPECT_FALSE(f.difference_range("a", "b").exact);
}

// A ShapeEnv given thousands of difference conditions decides each one that its guards settle,
// and every decision agrees with the hints (which satisfy every guard).
TEST(DifferenceClosure, ShapeEnvDecisionsAgreeWithHints) {
  std::mt19937 rng(17);
  ShapeEnv env;
  std::vector<SymInt> s;
  std::vector<int> hints;
  for (int i = 0; i < 60; ++i) {
    hints.push_back(std::uniform_int_distribution<int>(2, 200)(rng));
    s.push_back(env.create_symbol(Int(hints.back()), "x" + std::to_string(i), DimPolicy::Dynamic));
  }
  int statically = 0;
  for (int q = 0; q < 3000; ++q) {
    int a = std::uniform_int_distribution<int>(0, 59)(rng);
    int b = (a + std::uniform_int_distribution<int>(1, 59)(rng)) % 60;
    int k = std::uniform_int_distribution<int>(-8, 8)(rng);
    bool hint = hints[a] + k <= hints[b];
    SymBool cond = s[a] + k <= s[b];
    Truth known = env.known(cond);
    if (known != Truth::Unknown) {
      ++statically;
      ASSERT_EQ(known == Truth::True, hint) << q;
    }
    ASSERT_EQ(env.evaluate(cond), hint) << q;
  }
  EXPECT_GT(statically, 1500);  // most questions are settled by earlier guards
}

// Disequalities between two symbols are indexed by their pair: a decision about x - y reads the
// values its pair excludes (and an excluded end of its range moves inward), and only those.
TEST(DifferenceClosure, DisequalitiesDecideTheirPair) {
  Facts f;  // symbols >= 1
  f.assume(C("x + 3 != y"));
  f.assume(C("y <= x + 5"));
  f.assume(C("x <= y + 1"));
  f.assume(C("y != x + 5"));
  f.assume(C("z != 7"));
  EXPECT_EQ(prove(C("y == x + 3"), f), Truth::False);
  EXPECT_EQ(prove(C("x - y != -3"), f), Truth::True);
  EXPECT_EQ(prove(C("y - x != 3"), f), Truth::True);
  EXPECT_EQ(prove(C("y < x + 5"), f), Truth::True);  // y - x in [-1, 5], 5 excluded
  EXPECT_EQ(prove(C("y <= x + 4"), f), Truth::True);
  EXPECT_EQ(prove(C("y == x + 2"), f), Truth::Unknown);
  EXPECT_EQ(prove(C("z == 7"), f), Truth::False);
  EXPECT_EQ(prove(C("z == 6"), f), Truth::Unknown);
  // Many disequalities elsewhere are not read: the answer is the same after 2,000 of them.
  for (int i = 0; i < 1000; ++i) {
    f.assume(C("p" + std::to_string(i) + " != q" + std::to_string(i) + " + 2"));
    f.assume(C("p" + std::to_string(i) + " != x + " + std::to_string(i)));
  }
  EXPECT_EQ(prove(C("y == x + 3"), f), Truth::False);
  EXPECT_EQ(prove(C("p5 == q5 + 2"), f), Truth::False);
  EXPECT_EQ(prove(C("p5 == x + 5"), f), Truth::False);
  EXPECT_EQ(prove(C("p5 == x + 6"), f), Truth::Unknown);
}

// A disequality on a narrow pair is indexed too (its own pair reads it), but its component is
// exact only pairwise: a few such can force a value the index does not see, which the general
// prover finds by splitting them.
TEST(DifferenceClosure, NarrowDisequalitiesAreExactOnlyPairwise) {
  Facts f;  // symbols >= 1
  f.assume(C("y <= x + 5"));
  f.assume(C("x <= y + 1"));
  f.assume(C("y != x + 5"));  // y - x in [-1, 5]: narrow
  EXPECT_EQ(f.excluded_differences("x", "y"), std::vector<Int>{Int(-5)});
  Facts::DifferenceRange r = f.difference_range("y", "x");
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(r.exact_pairwise);
  EXPECT_EQ(prove(C("y < x + 5"), f), Truth::True);
  EXPECT_EQ(prove(C("y == x + 5"), f), Truth::False);

  // a, b in [0, 1], a != b and a != 0: b == 0, which no pair's index tells.
  Facts g{ValueRange::all()};
  for (const char* v : {"a", "b"}) g.set_range(v, ValueRange::closed(0, 1));
  for (const char* fact : {"a != b", "a != 0"}) g.assume(C(fact));
  Facts::DifferenceRange b = g.difference_range("b", "");
  EXPECT_FALSE(b.exact);
  EXPECT_TRUE(b.exact_pairwise);
  EXPECT_EQ(detail::decide_difference(g, RelOp::Eq, &kB, nullptr, Int(0), true), Truth::Unknown);
  EXPECT_EQ(detail::decide_difference(g, RelOp::Eq, &kB, nullptr, Int(0), false), std::nullopt);
  EXPECT_EQ(prove(C("b == 0"), g), Truth::True);  // the general prover splits a != b
  // A fact the closure lacks leaves no pairwise exactness either.
  g.assume(C("a + b <= 3"));
  EXPECT_FALSE(g.difference_range("b", "").exact_pairwise);
}

// A relation whose symbols cancel (a fact rewritten by a replacement) says nothing when it
// holds: the component stays exact. One that fails is a fact the closure cannot hold.
TEST(DifferenceClosure, RelationsWhoseSymbolsCancel) {
  Facts f;
  f.assume(C("x - y <= 4"));
  f.assume(C("x + 2 != x"));
  f.assume(C("x + 1 > x"));
  f.assume(C("2*(x + 1) == 2*x + 2"));
  EXPECT_TRUE(f.difference_range("x", "y").exact);
  f.assume(C("x + 1 < x"));
  EXPECT_FALSE(f.difference_range("x", "y").exact);
  EXPECT_FALSE(f.difference_range("x", "y").exact_pairwise);
}

// An equality is kept as a rewrite of its later name, by creation order as the names tell it:
// s164 after s95 (as the ShapeEnv would replace it), not as text.
TEST(DifferenceClosure, EqualitiesRewriteTheLaterName) {
  Facts f;
  f.assume(C("s95 + 6 == s164"));
  f.assume(C("a == b + 1"));
  f.assume(C("s7 == t2 + 3"));
  EXPECT_EQ(f.substitutions().count("s164"), 1u);
  EXPECT_EQ(f.substitutions().count("s95"), 0u);
  EXPECT_EQ(f.substitutions().count("b"), 1u);
  EXPECT_EQ(f.substitutions().count("t2"), 1u);  // different stems: as text
}

}  // namespace
}  // namespace symshape
