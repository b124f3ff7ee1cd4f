// symshape::Simplification: many simplifications under the same facts, sharing what each call
// learns. Its results are simplify()'s, and equal to the expressions by brute force, over a
// corpus whose expressions share sub-expressions (window sizes, mod chains, round-ups).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/simplify.h"
#include "symshape/user_facts.h"

namespace symshape {
namespace {

Expr expr_of(const std::string& text) {
  Expected<Expr> e = parse_expr(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.error();
  return e.ok() ? *e : Expr(0);
}

// Shape expressions over x and y of the kinds users write, drawn so that many share
// sub-expressions (and some repeat whole).
std::vector<std::string> corpus(unsigned seed, int n) {
  std::mt19937 rng(seed);
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + static_cast<long>(rng() % v.size()));
  };
  auto sym = [&] { return std::string(rng() % 2 ? "x" : "y"); };
  auto window = [&](const std::string& s) {
    return "(" + s + " + " + std::to_string(2 * pick({0, 1, 2})) + " - " +
           std::to_string(pick({1, 2})) + "*(" + std::to_string(pick({1, 3, 5})) + " - 1) - 1)//" +
           std::to_string(pick({1, 2, 4})) + " + 1";
  };
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    const std::string s = sym(), t = sym();
    const std::string m = std::to_string(pick({4, 8, 16}));
    switch (i % 8) {
      case 0:
        out.push_back(std::to_string(pick({4, 16})) + "*(" + window(s) + ")*(" + window(t) + ")");
        break;
      case 1: out.push_back(window(s)); break;
      case 2:
        out.push_back("((" + s + "//" + std::to_string(pick({2, 4})) + ") % " + m + ")//2");
        break;
      case 3: out.push_back("((" + s + "*16 + " + t + " % 16) % 64)//16"); break;
      case 4: out.push_back(s + " + (-" + s + ") % " + m); break;
      case 5:
        out.push_back("ceildiv(" + s + " + " + std::to_string(pick({0, 3})) + ", " + m + ") - (" +
                      s + " + " + m + " - 1)//" + m);
        break;
      case 6:
        out.push_back("min(max(" + s + " - " + std::to_string(pick({0, 5})) + ", 0), " + t + ")");
        break;
      default:
        out.push_back("(" + s + " + " + std::to_string(pick({1, 3, 5})) + ")//2 - (" + s +
                      " + 1)//2 + " + s + " % " + m);
        break;
    }
  }
  return out;
}

// Every expression of the corpus through one Simplification: the same text as simplify(), and
// the same value as the original at every point of the facts' box.
void check_session(const Facts& facts, int lo, int hi, bool (*holds)(int, int)) {
  Simplification session(facts);
  int checked = 0;
  for (const std::string& text : corpus(33, 240)) {
    const Expr e = expr_of(text);
    const Expr shared = session.simplify(e);
    EXPECT_EQ(shared.str(), simplify(e, facts).str()) << text;
    for (int a = lo; a <= hi; ++a) {
      for (int b = lo; b <= hi; ++b) {
        if (!holds(a, b)) continue;
        const Bindings v{{"x", Int(a)}, {"y", Int(b)}};
        ASSERT_EQ(evaluate(e, v), evaluate(shared, v))
            << text << " -> " << shared.str() << " at x=" << a << ", y=" << b;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(Simplification, SizesShareSubexpressions) {
  check_session(Facts(ValueRange::at_least(1)), 1, 24, [](int, int) { return true; });
}

TEST(Simplification, UnderRelationsAndNegativeValues) {
  // Decisions (x < y) and ranges that include negative values are kept across calls too.
  UserFacts f;
  f.set_range("x", Int(-20), Int(30));
  f.set_range("y", Int(-20), Int(30));
  f.assume(Cond::rel(RelOp::Lt, Expr::symbol("x"), Expr::symbol("y")), "x < y");
  f.check();
  check_session(f.facts(), -12, 18, [](int a, int b) { return a < b; });
}

TEST(Simplification, RepeatedResultsThatCutACycleAreSimplifys) {
  // Recombining the digits of a mixed-radix index goes through a cycle (x % 8 -> x - 8*(x//8)
  // and back), so the result is not kept for use inside other calls; at the top level it is
  // kept. Repeated, and inside other expressions, each result is still simplify()'s.
  const Facts facts(ValueRange::at_least(0));
  Simplification session(facts);
  const std::vector<std::string> texts = {
      "x % 8 + 8*((x//8) % 4)",      "y % 8 + 8*((y//8) % 4)",     "x % 8 + 8*((x//8) % 4)",
      "(x % 8 + 8*((x//8) % 4))//2", "x % 8 + 8*((x//8) % 4) + y", "x % 8 + 8*((x//8) % 4)",
      "(x % 8 + 8*((x//8) % 4))//2", "y % 8 + 8*((y//8) % 4)"};
  for (const std::string& text : texts) {
    const Expr e = expr_of(text);
    const Expr shared = session.simplify(e);
    EXPECT_EQ(shared.str(), simplify(e, facts).str()) << text;
    for (int a = 0; a <= 70; ++a) {
      const Bindings v{{"x", Int(a)}, {"y", Int(70 - a)}};
      EXPECT_EQ(evaluate(shared, v), evaluate(e, v)) << text << " at x=" << a;
    }
  }
  EXPECT_EQ(session.simplify(expr_of("x % 8 + 8*((x//8) % 4)")).str(), "x % 32");
}

TEST(Simplification, ConditionsAgreeWithSimplify) {
  const Facts facts(ValueRange::at_least(1));
  Simplification session(facts);
  for (const std::string& text : corpus(7, 48)) {
    const Cond c = Cond::rel(RelOp::Ge, expr_of(text), Expr(0));
    EXPECT_EQ(session.simplify(c).str(), simplify(c, facts).str()) << text;
  }
}

}  // namespace
}  // namespace symshape
