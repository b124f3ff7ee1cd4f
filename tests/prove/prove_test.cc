// prove(): the documented examples, the Truth helpers, and connectives.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "tests/prove/prove_test_util.h"

namespace symshape {
namespace {

using prove_test::C;

Expr E(const char* text) {
  Expected<Expr> e = parse_expr(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.error();
  return e.ok() ? e.value() : Expr(0);
}

Truth P(const char* text, const Facts& facts = Facts()) { return prove(C(text), facts); }

TEST(TruthTest, ToStringAndNegate) {
  EXPECT_EQ(to_string(Truth::True), "true");
  EXPECT_EQ(to_string(Truth::False), "false");
  EXPECT_EQ(to_string(Truth::Unknown), "unknown");
  EXPECT_EQ(negate(Truth::True), Truth::False);
  EXPECT_EQ(negate(Truth::False), Truth::True);
  EXPECT_EQ(negate(Truth::Unknown), Truth::Unknown);
}

TEST(ProveTest, Constants) {
  EXPECT_EQ(prove(Cond::truth(true), Facts()), Truth::True);
  EXPECT_EQ(prove(Cond::truth(false), Facts()), Truth::False);
  EXPECT_EQ(P("x + 1 > x"), Truth::True);
  EXPECT_EQ(P("x + 1 == x"), Truth::False);
}

// `!=` facts (issue #17): they decide the matching `==` / `!=`, take part in the linear
// reasoning by a case split (d < 0 or d > 0), and cut an end off a symbol's range. Every answer
// is checked here by brute force over the symbols' ranges.
TEST(ProveTest, DisequalityFactsDecide) {
  struct Case {
    std::vector<const char*> facts;
    std::map<std::string, std::pair<int, int>> box;
    const char* goal;
    Truth expected;
  };
  const std::vector<Case> cases = {
      {{"x != 0"}, {{"x", {-5, 5}}}, "x != 0", Truth::True},
      {{"x != 0"}, {{"x", {-5, 5}}}, "x == 0", Truth::False},
      {{"x != 0"}, {{"x", {0, 5}}}, "x >= 1", Truth::True},
      {{"x != 0"}, {{"x", {0, 5}}}, "x*3 > 2", Truth::True},
      {{"a - 3 != -b"}, {{"a", {-4, 4}}, {"b", {-4, 4}}}, "a + b != 3", Truth::True},
      {{"x != y", "x <= y"}, {{"x", {-3, 3}}, {"y", {-3, 3}}}, "x < y", Truth::True},
      {{"x != 5", "x >= 5"}, {{"x", {-9, 9}}}, "x > 5", Truth::True},
      {{"x != 1", "x != 2"}, {{"x", {1, 3}}}, "x == 3", Truth::True},
      {{"x != 1"}, {{"x", {0, 3}}}, "x == 0", Truth::Unknown},  // x may be 0, 2 or 3
      {{"x != 1"}, {{"x", {0, 3}}}, "x != 2", Truth::Unknown},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.goal);
    Facts facts(ValueRange::all());
    for (const auto& [name, lohi] : c.box)
      facts.set_range(name, ValueRange::closed(Int(lohi.first), Int(lohi.second)));
    for (const char* f : c.facts) facts.assume(C(f));
    EXPECT_EQ(P(c.goal, facts), c.expected);
    // Brute force: true at every point where the facts hold, false at none, else unknown.
    std::vector<std::string> names;
    for (const auto& [name, lohi] : c.box) names.push_back(name);
    size_t holds = 0, points = 0;
    std::map<std::string, int> at;
    std::function<void(size_t)> visit = [&](size_t i) {
      if (i == names.size()) {
        auto value = [&](const char* text) {
          std::map<std::string, Expr> values;
          for (const auto& [n, v] : at) values.emplace(n, Expr(v));
          return C(text).subs(values).kind() == Cond::Kind::True;
        };
        for (const char* f : c.facts)
          if (!value(f)) return;
        ++points;
        holds += value(c.goal);
        return;
      }
      for (int v = c.box.at(names[i]).first; v <= c.box.at(names[i]).second; ++v) {
        at[names[i]] = v;
        visit(i + 1);
      }
    };
    visit(0);
    ASSERT_GT(points, 0u) << "the facts are contradictory";
    const Truth truth = holds == points ? Truth::True : holds == 0 ? Truth::False : Truth::Unknown;
    EXPECT_EQ(truth, c.expected) << "the table is wrong";
  }
}

TEST(ProveTest, DisequalityCutsAnEndOffARange) {
  Facts facts;
  facts.set_range("x", ValueRange::closed(Int(0), Int(5)));
  facts.assume(C("x != 0"));
  EXPECT_EQ(facts.range_of("x").str(), ValueRange::closed(Int(1), Int(5)).str());
  facts.assume(C("5 != x"));
  EXPECT_EQ(facts.range_of("x").str(), ValueRange::closed(Int(1), Int(4)).str());
  facts.assume(C("x != 3"));  // inside the range: kept as a fact only
  EXPECT_EQ(facts.range_of("x").str(), ValueRange::closed(Int(1), Int(4)).str());
}

TEST(ProveTest, RangesDecideSimpleBounds) {
  // Symbols default to [1, inf].
  EXPECT_EQ(P("x >= 1"), Truth::True);
  EXPECT_EQ(P("x <= 0"), Truth::False);
  EXPECT_EQ(P("x >= 2"), Truth::Unknown);
  EXPECT_EQ(P("x + y > 1"), Truth::True);
  EXPECT_EQ(P("x != 0"), Truth::True);
}

TEST(ProveTest, TransitivityOfAssumedRelations) {
  Facts f;
  f.assume(C("a < b"));
  f.assume(C("b < c"));
  EXPECT_EQ(P("a < c", f), Truth::True);
  EXPECT_EQ(P("a >= c", f), Truth::False);
  EXPECT_EQ(P("a + 2 <= c", f), Truth::True);  // integers: a < b < c leaves a gap of 2
  EXPECT_EQ(P("a + 3 <= c", f), Truth::Unknown);
  EXPECT_EQ(P("c > a", f), Truth::True);
  EXPECT_EQ(P("a != c", f), Truth::True);
  EXPECT_EQ(P("a == c", f), Truth::False);
}

TEST(ProveTest, TiledLoopIndexStaysInsideThePaddedExtent) {
  Facts f;
  f.set_range("i0", ValueRange::at_least(Int(0)));
  f.set_range("i1", ValueRange::closed(Int(0), Int(31)));
  f.assume(C("i0 < (n + 31)//32"));
  EXPECT_EQ(P("i0*32 + i1 < ((n + 31)//32)*32", f), Truth::True);
  EXPECT_EQ(P("i0*32 + i1 >= ((n + 31)//32)*32", f), Truth::False);
  // Without the assumption nothing ties i0 to n.
  Facts g;
  g.set_range("i0", ValueRange::at_least(Int(0)));
  g.set_range("i1", ValueRange::closed(Int(0), Int(31)));
  EXPECT_EQ(P("i0*32 + i1 < ((n + 31)//32)*32", g), Truth::Unknown);
}

TEST(ProveTest, AssumedLowerBound) {
  Facts f;
  f.assume(C("x > 4"));
  EXPECT_EQ(P("x != 4", f), Truth::True);
  EXPECT_EQ(P("x >= 5", f), Truth::True);
  EXPECT_EQ(P("x != 5", f), Truth::Unknown);
  EXPECT_EQ(P("x == 3", f), Truth::False);
}

TEST(ProveTest, IntegerFunctionsTiedToTheirArguments) {
  EXPECT_EQ(P("x // 2 <= x"), Truth::True);
  EXPECT_EQ(P("x % 4 < 4"), Truth::True);
  EXPECT_EQ(P("2*(x // 2) <= x"), Truth::True);
  EXPECT_EQ(P("2*(x // 2) >= x - 1"), Truth::True);
  EXPECT_EQ(P("x // 2 >= 1"), Truth::Unknown);
  EXPECT_EQ(P("4*(x // 4) + x % 4 == x"), Truth::True);
  EXPECT_EQ(P("ceildiv(x, 4)*4 >= x"), Truth::True);
  EXPECT_EQ(P("ceildiv(x, 4)*4 <= x + 3"), Truth::True);
  EXPECT_EQ(P("ceildiv(x, 4)*4 <= x + 2"), Truth::Unknown);
  EXPECT_EQ(P("-2*(x // -2) >= x"), Truth::True);
  EXPECT_EQ(P("max(x, y) >= x"), Truth::True);
  EXPECT_EQ(P("max(x, y) >= y + 1"), Truth::Unknown);
  EXPECT_EQ(P("min(x, y) <= y"), Truth::True);
  EXPECT_EQ(P("min(x, y) > x"), Truth::False);
}

TEST(ProveTest, SymbolicDivisors) {
  // y >= 1 and x >= 1 by default.
  EXPECT_EQ(P("x // y <= x"), Truth::True);
  EXPECT_EQ(P("x % y < y"), Truth::True);
  EXPECT_EQ(P("x % y <= x"), Truth::True);
  EXPECT_EQ(P("x % y < x"), Truth::Unknown);
}

TEST(ProveTest, ModularSetOfAnAffineRemainder) {
  EXPECT_EQ(P("(n*320 + 255) % 256 >= 63"), Truth::True);
}

TEST(ProveTest, DivisibilityFacts) {
  Facts f;
  f.add_divisibility(E("x"), E("2"));
  EXPECT_EQ(P("x % 2 == 0", f), Truth::True);
  EXPECT_EQ(P("x % 2 == 1", f), Truth::False);
  EXPECT_EQ(P("x // 2 * 2 == x", f), Truth::True);

  Facts g;
  g.assume(C("x % 2 == 0"));
  EXPECT_EQ(P("x % 2 == 0", g), Truth::True);
  EXPECT_EQ(P("x % 2 == 1", g), Truth::False);
  EXPECT_EQ(P("x != 3", g), Truth::True);

  // A divisibility fact on a sum.
  Facts h;
  h.add_divisibility(E("x + y"), E("4"));
  EXPECT_EQ(P("x + y != 6", h), Truth::True);
  EXPECT_EQ(P("x + y >= 4", h), Truth::True);
  EXPECT_EQ(P("x + y == 8", h), Truth::Unknown);
}

TEST(ProveTest, ParityFromIntegerTightening) {
  EXPECT_EQ(P("2*x == 2*y + 1"), Truth::False);
  EXPECT_EQ(P("2*x != 2*y + 1"), Truth::True);
  Facts f;
  f.assume(C("2*x <= 2*y + 1"));
  EXPECT_EQ(P("x <= y", f), Truth::True);
}

TEST(ProveTest, EqualitiesAreSubstituted) {
  Facts f;
  f.assume(C("x == y + 1"));
  EXPECT_EQ(P("x > y", f), Truth::True);
  EXPECT_EQ(P("x == y", f), Truth::False);
  EXPECT_EQ(P("x >= 2", f), Truth::True);
  EXPECT_EQ(P("x == 5", f), Truth::Unknown);
}

TEST(ProveTest, NonLinearTermsAreAtoms) {
  Facts f;
  f.assume(C("x*y <= 10"));
  EXPECT_EQ(P("y*x < 11", f), Truth::True);
  EXPECT_EQ(P("x*y + x <= 10 + x", f), Truth::True);
  // (x + 1)*y expands to x*y + y.
  EXPECT_EQ(P("(x + 1)*y <= 10 + y", f), Truth::True);
  EXPECT_EQ(P("x*y > 11", f), Truth::False);
  EXPECT_EQ(P("x*y < 10", f), Truth::Unknown);
}

TEST(ProveTest, ProductsAreBoundedByTheirFactors) {
  // Sizes (>= 1): a product is at least each factor.
  EXPECT_EQ(P("x*y >= x"), Truth::True);
  EXPECT_EQ(P("x*y >= x + y - 1"), Truth::True);
  EXPECT_EQ(P("x*y < y"), Truth::False);
  EXPECT_EQ(P("x*x >= x"), Truth::True);
  EXPECT_EQ(P("x*y >= x + 1"), Truth::Unknown);
  Facts f;
  f.set_range("i", ValueRange::closed(Int(0), Int(7)));
  f.set_range("j", ValueRange::closed(Int(0), Int(3)));
  EXPECT_EQ(P("i*j <= 3*i", f), Truth::True);
  EXPECT_EQ(P("i*j + 3*i + 7*j <= 63", f), Truth::True);  // attained at i = 7, j = 3
  EXPECT_EQ(P("i*j + 3*i + 7*j <= 62", f), Truth::Unknown);
  // Over all integers a product says nothing about its factors.
  Facts g(ValueRange::all());
  EXPECT_EQ(P("x*y >= x", g), Truth::Unknown);
}

TEST(ProveTest, ExactQuotients) {
  Expr x = Expr::symbol("x");
  Facts f;
  f.add_divisibility(x, Expr(2));
  Expr half = exact_div(x, Expr(2));
  EXPECT_EQ(prove(half <= x, f), Truth::True);
  EXPECT_EQ(prove(half >= Expr(1), f), Truth::True);
  EXPECT_EQ(prove(half * Expr(2) == x, f), Truth::True);
  EXPECT_EQ(prove(half > x, f), Truth::False);
}

TEST(ProveTest, AndOr) {
  Facts f;
  f.assume(C("x > 4"));
  EXPECT_EQ(P("x > 4 and x > 3", f), Truth::True);
  EXPECT_EQ(P("x > 4 and x == 3", f), Truth::False);
  EXPECT_EQ(P("x > 4 and x > 5", f), Truth::Unknown);
  EXPECT_EQ(P("x == 3 or x > 4", f), Truth::True);
  EXPECT_EQ(P("x == 3 or x < 2", f), Truth::False);
  EXPECT_EQ(P("x == 5 or x == 6", f), Truth::Unknown);
  // Decided only jointly: no operand is true or false alone.
  EXPECT_EQ(P("y > 4 and y < 3"), Truth::False);
  EXPECT_EQ(P("y >= 3 or y <= 3"), Truth::True);
  EXPECT_EQ(P("y < 3 or y > 2"), Truth::True);
  EXPECT_EQ(P("y != 3 or y == 3"), Truth::True);
  EXPECT_EQ(P("y < 3 or y > 3"), Truth::Unknown);
}

TEST(ProveTest, IgnoredFactsOnlyLosePower) {
  Facts f;
  f.assume(C("x < 3 or x > 10"));
  f.assume(C("x != 5"));
  // The disjunction is left out of the linear tier: x == 7 is not refuted by it.
  EXPECT_EQ(P("x == 7", f), Truth::Unknown);
  EXPECT_EQ(P("x >= 1", f), Truth::True);
  // An assumed `!=` decides its own relation, and that relation's negation.
  EXPECT_EQ(P("x == 5", f), Truth::False);
  EXPECT_EQ(P("5 != x", f), Truth::True);
}

TEST(ProveTest, ContradictoryFactsDoNotCrash) {
  Facts f;
  f.assume(C("x < 0"));  // contradicts the default range [1, inf]
  f.assume(C("y > z"));
  f.assume(C("z > y"));
  for (const char* goal : {"x > 5", "x == 2", "y == z", "y != z", "x // 3 > y"}) {
    Truth t = P(goal, f);
    EXPECT_TRUE(t == Truth::True || t == Truth::False || t == Truth::Unknown) << goal;
  }
  Facts g;
  g.assume(Cond::truth(false));
  EXPECT_NO_FATAL_FAILURE(P("x > 1", g));
}

TEST(ProveTest, DefaultRangeAllIntegers) {
  Facts f(ValueRange::all());
  EXPECT_EQ(P("x >= 1", f), Truth::Unknown);
  EXPECT_NE(P("x*x >= 0", f), Truth::False);
  EXPECT_EQ(P("x % 3 <= 2", f), Truth::True);
  EXPECT_EQ(P("x // 3 * 3 <= x", f), Truth::True);
  EXPECT_EQ(P("x // 3 * 3 < x", f), Truth::Unknown);
  f.assume(C("x < y"));
  f.assume(C("y <= -5"));
  EXPECT_EQ(P("x <= -6", f), Truth::True);
  EXPECT_EQ(P("x % 7 >= 0", f), Truth::True);
}

TEST(ProveTest, HugeConstantsAreSafe) {
  Facts f;
  f.assume(C("x < 100000000000000000000000000000"));
  EXPECT_EQ(P("x < 100000000000000000000000000001", f), Truth::True);
  Truth t = P("x*100000000000000000000 + y < 100000000000000000000000000000000000000000", f);
  EXPECT_NE(t, Truth::False);
}

TEST(ProveTest, Deterministic) {
  Facts f;
  f.assume(C("a < b"));
  f.assume(C("b < c"));
  f.assume(C("c // 4 >= d"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(P("4*d <= c", f), Truth::True);
    EXPECT_EQ(P("a < 4*d", f), Truth::Unknown);
  }
}

}  // namespace
}  // namespace symshape
