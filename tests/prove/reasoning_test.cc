// Reasoning with every fact (issue 17): one table per class of reasoning. Each case names its
// symbols' ranges (a finite box is brute-forced; an infinite end is sampled over a window), its
// facts, a question (bound, prove, simplify, modular) and the expected answer. Every case is
// checked twice: the expected answer against Python's // and % at every point of the box that
// satisfies the facts (a case copied wrong fails there), and symshape's answer against the
// expected one and against the same points (a wrong answer fails, whatever was expected).
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <random>
#include <sstream>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/ranges.h"
#include "symshape/simplify.h"

namespace symshape {
namespace {

enum class Ask { Bound, Prove, Simplify, Modular };

struct ReasoningCase {
  const char* ranges;  // "x=0..63 y=1..inf u=-inf..inf"
  const char* facts;   // conditions separated by ';'
  Ask ask;
  const char* expr;      // an expression, or a condition for Prove
  const char* expected;  // "[0, 48]", "true" / "false", a printed expression, "8k+0"
};

// An infinite end is sampled this far from the other end (or from 0).
constexpr int kWindow = 24;

struct Box {
  Facts facts{ValueRange::all()};
  std::vector<std::string> symbols;
  std::map<std::string, std::pair<int, int>> box;
  std::vector<Cond> assumed;
};

Expr parse_e(const std::string& text) {
  auto e = parse_expr(text);
  if (!e) throw std::runtime_error("cannot parse " + text + ": " + e.error());
  return *e;
}

Cond parse_c(const std::string& text) {
  auto c = parse_cond(text);
  if (!c) throw std::runtime_error("cannot parse " + text + ": " + c.error());
  return *c;
}

Box setup(const ReasoningCase& c) {
  Box s;
  std::istringstream in(c.ranges);
  std::string item;
  while (in >> item) {
    size_t eq = item.find('='), dots = item.find("..");
    std::string name = item.substr(0, eq);
    std::string lo = item.substr(eq + 1, dots - eq - 1), hi = item.substr(dots + 2);
    std::optional<Int> l, h;
    if (lo != "-inf") l = Int(std::stoi(lo));
    if (hi != "inf") h = Int(std::stoi(hi));
    s.facts.set_range(name, ValueRange(l, h));
    int bl = l ? std::stoi(lo) : (h ? std::stoi(hi) - kWindow : -kWindow);
    int bh = h ? std::stoi(hi) : bl + 2 * kWindow;
    s.symbols.push_back(name);
    s.box[name] = {bl, bh};
  }
  std::string facts = c.facts;
  size_t start = 0;
  while (start < facts.size()) {
    size_t end = facts.find(';', start);
    if (end == std::string::npos) end = facts.size();
    std::string text = facts.substr(start, end - start);
    if (text.find_first_not_of(' ') != std::string::npos) {
      Cond a = parse_c(text);
      s.facts.assume(a);
      s.assumed.push_back(a);
    }
    start = end + 1;
  }
  return s;
}

// Calls f at every point of the box where the facts hold (and e is defined).
void for_each_point(const Box& s, const std::function<void(const Bindings&)>& f) {
  Bindings b;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == s.symbols.size()) {
      for (const Cond& a : s.assumed) {
        try {
          if (!evaluate(a, b)) return;
        } catch (const Error&) {
          return;
        }
      }
      f(b);
      return;
    }
    auto [lo, hi] = s.box.at(s.symbols[i]);
    for (int v = lo; v <= hi; ++v) {
      b[s.symbols[i]] = Int(v);
      rec(i + 1);
    }
  };
  rec(0);
}

ValueRange parse_range(const std::string& text) {
  // "[lo, hi]" with -inf / inf ends.
  size_t comma = text.find(',');
  std::string lo = text.substr(1, comma - 1), hi = text.substr(comma + 2);
  hi.pop_back();
  std::optional<Int> l, h;
  if (lo != "-inf") l = Int(std::stoi(lo));
  if (hi != "inf") h = Int(std::stoi(hi));
  return ValueRange(l, h);
}

std::string modular_text(const ModularSet& m) {
  return to_string(m.modulus) + "k+" + to_string(m.base);
}

// Runs one table; returns how many cases symshape answers as expected.
void run_table(const char* table, const std::vector<ReasoningCase>& cases) {
  for (const ReasoningCase& c : cases) {
    SCOPED_TRACE(std::string(table) + ": " + c.expr + " under {" + c.facts + "} " + c.ranges);
    Box s = setup(c);
    size_t points = 0;
    switch (c.ask) {
      case Ask::Bound: {
        Expr e = parse_e(c.expr);
        ValueRange want = parse_range(c.expected), got = bound(e, s.facts);
        for_each_point(s, [&](const Bindings& b) {
          Int v = evaluate(e, b);
          ++points;
          EXPECT_TRUE(want.contains(v)) << "expected range misses " << to_string(v);
          EXPECT_TRUE(got.contains(v))
              << "symshape's range " << got.str() << " misses " << to_string(v);
        });
        EXPECT_EQ(got.str(), want.str());
        break;
      }
      case Ask::Prove: {
        Cond g = parse_c(c.expr);
        bool want = std::string(c.expected) == "true";
        Truth got = prove(g, s.facts);
        for_each_point(s, [&](const Bindings& b) {
          ++points;
          bool holds = evaluate(g, b);
          EXPECT_EQ(holds, want) << "the expected answer is wrong at a point";
          if (got != Truth::Unknown) {
            EXPECT_EQ(holds, got == Truth::True) << "unsound answer";
          }
        });
        EXPECT_EQ(to_string(got), c.expected);
        break;
      }
      case Ask::Simplify: {
        Expr e = parse_e(c.expr), want = parse_e(c.expected), got = simplify(e, s.facts);
        for_each_point(s, [&](const Bindings& b) {
          Int v = evaluate(e, b);
          ++points;
          EXPECT_TRUE(evaluate(want, b) == v) << "the expected form differs from the input";
          EXPECT_TRUE(evaluate(got, b) == v) << "symshape's " << got.str() << " differs";
        });
        EXPECT_EQ(got.str(), want.str());
        break;
      }
      case Ask::Modular: {
        Expr e = parse_e(c.expr);
        ModularSet got = modular_set(e, s.facts);
        for_each_point(s, [&](const Bindings& b) {
          Int v = evaluate(e, b);
          ++points;
          bool in =
              got.modulus == 0 ? v == got.base : cln::zerop(cln::mod(v - got.base, got.modulus));
          EXPECT_TRUE(in) << "symshape's congruence " << modular_text(got) << " misses "
                          << to_string(v);
        });
        EXPECT_EQ(modular_text(got), c.expected);
        break;
      }
    }
    EXPECT_GT(points, 0u) << "no point of the box satisfies the facts: the case checks nothing";
  }
}

TEST(Reasoning, BoundsFromLinearFacts) {
  run_table("linear bounds",
            {
                {"x=4..20 y=1..inf", "3*y <= x", Ask::Bound, "y", "[1, 6]"},
                {"x=4..20 y=1..inf", "3*y <= x", Ask::Bound, "3*y", "[3, 18]"},
                {"x=4..20 y=1..inf", "3*y <= x", Ask::Bound, "y // 2", "[0, 3]"},
                {"x=0..10 y=-inf..inf", "y >= x + 2; y <= 2*x", Ask::Bound, "y", "[4, 20]"},
                {"x=0..10 y=-inf..inf", "y >= x + 2; y <= 2*x", Ask::Bound, "x", "[2, 10]"},
                {"a=2..inf b=3..inf", "a + b <= 10", Ask::Bound, "a", "[2, 7]"},
                {"a=-inf..10 b=0..inf", "a - b >= 3", Ask::Bound, "b", "[0, 7]"},
                {"a=-inf..10 b=0..inf", "a - b >= 3", Ask::Bound, "a", "[3, 10]"},
                {"x=0..inf y=0..inf", "2*x + 3*y == 12", Ask::Bound, "x", "[0, 6]"},
                {"x=0..inf y=0..inf", "2*x + 3*y == 12", Ask::Bound, "y", "[0, 4]"},
                {"x=0..5 y=0..5 z=0..5", "x < y; y < z", Ask::Bound, "x", "[0, 3]"},
                {"x=0..5 y=0..5 z=0..5", "x < y; y < z", Ask::Bound, "z", "[2, 5]"},
                {"n=1..inf m=-inf..inf", "2*m + 1 <= n; n <= 9", Ask::Bound, "m", "[-inf, 4]"},
                {"x=4..20 y=1..inf", "3*y <= x", Ask::Prove, "y <= 6", "true"},
            });
}

TEST(Reasoning, EqualitiesAsSubstitutions) {
  run_table("equalities",
            {
                {"p=1..inf h=1..inf w=1..inf", "p == h*w", Ask::Simplify, "p // h", "w"},
                {"p=1..inf h=1..inf w=1..inf", "p == h*w", Ask::Simplify, "p % h", "0"},
                {"p=1..inf h=1..inf w=1..inf", "p == h*w", Ask::Prove, "p % w == 0", "true"},
                {"p=1..inf h=1..inf w=1..inf", "p == h*w", Ask::Prove, "p // w == h", "true"},
                {"p=1..inf h=1..inf w=1..inf", "p == h*w", Ask::Simplify, "p", "p"},
                {"a=0..inf b=0..inf", "a + b == 7", Ask::Prove, "min(a + b, 9) == 7", "true"},
                {"a=0..inf b=0..inf", "a + b == 7", Ask::Simplify, "min(a + b, 9)", "7"},
                {"a=-inf..inf b=-inf..inf", "a + b == 7", Ask::Prove, "max(a + b, 3) > 6", "true"},
                {"s=-inf..inf k=-inf..inf", "s == 4*k", Ask::Simplify, "(s + 3) // 4", "k"},
                {"s=-inf..inf k=-inf..inf", "s == 4*k", Ask::Prove, "s % 4 == 0", "true"},
                {"n=-inf..inf m=-inf..inf", "n == 2*m + 1", Ask::Simplify, "n % 2", "1"},
                {"n=-inf..inf m=-inf..inf", "n == 2*m + 1", Ask::Simplify, "n // 2", "m"},
                {"n=1..inf b=1..inf s=1..inf", "n == b*s", Ask::Bound, "n % s", "[0, 0]"},
            });
}

TEST(Reasoning, ProveReusesSimplify) {
  run_table("prove via simplify",
            {
                {"a=-inf..inf b=-inf..inf", "a <= b", Ask::Prove, "max(a, b) == b", "true"},
                {"a=-inf..inf b=-inf..inf", "a <= b", Ask::Prove, "min(a, b) + max(a, b) == a + b",
                 "true"},
                {"x=0..inf", "x >= 8", Ask::Prove, "max(x, 8) - min(x, 8) == x - 8", "true"},
                {"a=1..inf b=1..inf", "a < b", Ask::Prove, "max(a, b - 1) == b - 1", "true"},
                {"a=-inf..inf b=-inf..inf", "a <= b", Ask::Prove, "max(a, b) == b + 1", "false"},
                {"a=1..inf b=1..inf", "2*a <= b", Ask::Prove, "min(2*a, b) // 2 == a", "true"},
            });
}

// Beyond eight facts prove() no longer simplifies a max / min goal first: the linear tier
// decides it alone, splitting each atom into the argument it equals when that can matter.
TEST(Reasoning, MaxMinAtomsSplitUnderManyFacts) {
  const char* ranges = "a=1..6 b=1..6 c=1..6 d=1..6 e=1..6";
  const char* facts =
      "a <= b; b <= c; c <= d; d <= e; a != 3; b + c <= 10; e - a <= 4; c >= 2; d % 2 == 0";
  run_table("max / min splits",
            {
                {ranges, facts, Ask::Prove, "max(a, c) == c", "true"},
                {ranges, facts, Ask::Prove, "min(b, e) == b", "true"},
                {ranges, facts, Ask::Prove, "max(c, d) <= e", "true"},
                {ranges, facts, Ask::Prove, "max(a, b) > e", "false"},
                {ranges, facts, Ask::Prove, "min(a, d) + max(a, d) == a + d", "true"},
                {ranges, facts, Ask::Prove, "max(a + 1, b) <= c + 1", "true"},
                {ranges, facts, Ask::Prove, "min(c, e) < b", "false"},
            });
}

TEST(Reasoning, ModularThroughOperations) {
  run_table("modular",
            {
                {"s=1..inf", "", Ask::Prove, "(s + (8 - s % 8) % 8) // 4 % 2 == 0", "true"},
                {"s=1..inf", "", Ask::Modular, "(s + (8 - s % 8) % 8) // 4", "2k+0"},
                {"s=-inf..inf", "", Ask::Modular, "(s + (8 - s % 8) % 8) // 2", "4k+0"},
                {"x=-inf..inf", "", Ask::Modular, "x - x % 8", "8k+0"},
                {"x=-inf..inf", "", Ask::Modular, "(x - x % 8) // 2 + 1", "4k+1"},
                {"x=-inf..inf", "", Ask::Modular, "3*x + 5 - (3*x) % 6", "6k+5"},
                {"x=0..inf", "x % 4 == 0", Ask::Prove, "(x + 8) // 2 % 2 == 0", "true"},
                {"x=0..inf", "x % 6 == 3", Ask::Modular, "x // 3", "2k+1"},
                {"s=1..inf n=1..inf", "", Ask::Prove, "(s + (n - s % n) % n) % n == 0", "true"},
                {"s=-inf..inf", "", Ask::Prove, "(s + 7 - (s + 7) % 8) % 8 == 0", "true"},
            });
}

TEST(Reasoning, CorrelatedBounds) {
  run_table("correlated bounds",
            {
                {"x=0..63", "", Ask::Bound, "x - x // 4", "[0, 48]"},
                {"x=-inf..inf", "", Ask::Bound, "x - 2*(x // 2)", "[0, 1]"},
                {"x=0..100", "", Ask::Bound, "x % 8 - x % 4", "[0, 4]"},
                {"x=-20..20", "", Ask::Bound, "x // 2 - x // 4", "[-5, 5]"},
                {"x=0..31", "", Ask::Bound, "x // 4 + x % 4", "[0, 10]"},
                {"x=1..inf", "", Ask::Bound, "ceildiv(x, 4) - x // 4", "[0, 1]"},
                {"x=0..63 y=0..3", "", Ask::Bound, "x - x // 4 + y", "[0, 51]"},
                {"x=0..inf", "x % 2 == 0", Ask::Bound, "x % 4 - x % 2", "[0, 2]"},
            });
}

TEST(Reasoning, IndexIdentities) {
  run_table(
      "index identities",
      {
          {"x=0..200", "", Ask::Simplify, "((x // 2) % 12) // 3", "(x // 6) % 4"},
          {"x=-60..60", "", Ask::Simplify, "((x % 24) // 2) % 4", "(x % 8) // 2"},
          {"x=-60..60", "", Ask::Simplify, "x % 4 + 4*((x // 4) % 3)", "x % 12"},
          {"x=-20..20 a=1..5 b=1..4", "", Ask::Simplify, "x % a + a*((x // a) % b)", "x % (a*b)"},
          {"x=-30..30", "", Ask::Simplify, "(4*x + 3) % 20", "4*(x % 5) + 3"},
          {"s=0..60", "", Ask::Prove, "s + (8 - s % 8) % 8 == 8*ceildiv(s, 8)", "true"},
          {"s=1..30 m=1..6", "", Ask::Prove, "s + (m - s % m) % m == m*ceildiv(s, m)", "true"},
          {"a=-10..10 b=1..5 k=1..4", "", Ask::Prove, "(a*k) % (b*k) == k*(a % b)", "true"},
          {"n=1..40", "", Ask::Prove,
           "max((ceildiv(n, 2) - 1)*2 + 3 - n, 0) == max(2 - (n - 1) % 2, 0)", "true"},
      });
}

TEST(Reasoning, Issue14Gaps) {
  run_table("issue 14", {
                            {"batch=2..64 seq=1..inf", "batch % 2 == 0", Ask::Simplify,
                             "(512*batch*seq) // (batch // 2)", "1024*seq"},
                            {"a=0..20", "", Ask::Bound, "a - 4*(a // 4)", "[0, 3]"},
                            {"a=-inf..inf", "", Ask::Bound, "(a // 4)*4 - a + 10", "[7, 10]"},
                        });
  Facts f(ValueRange::all());
  EXPECT_EQ(simplify(parse_c("4*(a % 4) == 0"), f).str(), "a % 4 == 0");
  EXPECT_EQ(simplify(parse_c("6*(a % 4) != 0"), f).str(), "a % 4 != 0");
}

TEST(Reasoning, BoundsByProjection) {
  run_table(
      "bounds by projection",
      {
          {"a=1..30 b=1..30 c=1..30", "a + 2 <= b; b <= a + 5", Ask::Bound, "b - a", "[2, 5]"},
          {"a=1..30 b=1..30 c=1..30", "a + 2 <= b; b <= a + 5; a + b >= c", Ask::Bound,
           "c - 2*a - 5", "[-60, 0]"},
          {"a=1..20 b=1..20", "2*a + 3*b >= 10", Ask::Bound, "a + b", "[4, 40]"},
          {"a=1..20 b=1..20", "max(a, b) == 5; min(a, b) == 3", Ask::Bound, "a", "[3, 5]"},
          {"a=1..20 b=1..20", "max(a, b) == 5; min(a, b) == 3", Ask::Bound, "max(a, b) + b",
           "[8, 10]"},
          {"a=1..12 b=1..12 c=1..12 d=1..12", "b == a; c >= b + 3; d//2 == max(c, a)//3 + 2",
           Ask::Bound, "d//2 - c//3", "[2, 2]"},
          {"a=1..12 c=1..12 d=1..12", "c >= a + 3; max(d, a) == a + 3", Ask::Bound, "d - a",
           "[-8, 3]"},
          {"a=-40..40", "1 <= a % 58", Ask::Bound, "a % 58 - 1", "[0, 56]"},
          {"x=-10..10 y=-10..10", "x - y >= -3; x - y <= 4", Ask::Bound, "2*y - 2*x + 1",
           "[-7, 7]"},
          {"x=-10..10 y=-10..10", "2*x == 3*y", Ask::Bound, "x - y", "[-3, 3]"},
      });
}

TEST(Reasoning, RemainderBySymbolInSum) {
  run_table("remainder in a sum",
            {
                {"a=1..30", "", Ask::Bound, "a - 5 % a", "[1, 30]"},
                {"a=1..20 b=1..20", "", Ask::Bound, "-a + (b - 5) % a", "[-20, -1]"},
                {"a=-20..-1 x=-20..20", "", Ask::Bound, "x % a - a", "[1, 20]"},
                {"a=2..9 x=0..40", "", Ask::Bound, "2*(x % a) - 2*a", "[-18, -2]"},
            });
}

TEST(Reasoning, DivisionsWithOffsets) {
  run_table("divisions with offsets",
            {
                {"x=-30..30", "", Ask::Simplify, "x % 2 + (x + 1) % 2", "1"},
                {"x=-30..30", "", Ask::Simplify, "(x + 1)//2 - x//2", "x % 2"},
                {"x=-30..30", "", Ask::Simplify, "x//2 - (x - 1)//2", "-(x % 2) + 1"},
                {"x=-30..30", "", Ask::Simplify, "x//2 + x % 2", "(x + 1)//2"},
                {"x=-30..30", "", Ask::Simplify, "(x + 1)//2 - x % 2", "x//2"},
                {"s=-30..30", "", Ask::Simplify, "(s + 1)//2 + (-s)//2", "0"},
                {"x=-30..30", "", Ask::Simplify, "3*(x//3) + x % 3", "x"},
                {"x=-30..30", "", Ask::Simplify, "(x + 4)//3 - (x + 1)//3", "1"},
                {"x=-30..30 y=-5..5", "", Ask::Simplify, "(x + y + 2) % 3 + (-x - y) % 3", "2"},
                {"x=-30..30", "", Ask::Simplify, "(x + 5)//3 - x//3", "(x % 3 + 2)//3 + 1"},
                {"x=-30..30", "", Ask::Simplify, "(x % 2 + 1)//2", "x % 2"},
                {"x=-30..30", "", Ask::Simplify, "(x % 2 + 7)//2", "x % 2 + 3"},
                {"x=-30..30", "", Ask::Simplify, "(3*(x % 4) + 1) % 2", "(x + 1) % 2"},
                {"x=-30..30", "", Ask::Simplify, "(9600*x) % 6400", "3200*(x % 2)"},
                {"x=-30..30", "", Ask::Simplify, "(7*x + 1) % 3", "(x + 1) % 3"},
                {"x=0..1 y=0..6", "", Ask::Simplify, "(360*x + y)//16", "22*x"},
                {"x=0..1 y=0..6", "", Ask::Simplify, "(360*x + y)//25", "14*x"},
                {"x=3..4 y=0..6", "", Ask::Simplify, "(360*x + y) % 16", "-8*x + y + 32"},
                {"x=-6..6 z=-6..6", "x != 0; z != 0", Ask::Simplify, "(x*32*x) % (x*z)",
                 "x*((32*x) % z)"},
                {"a=-10..10 b=-5..5 k=-4..4", "b != 0; k != 0", Ask::Prove,
                 "(a*k) % (b*k) == k*(a % b)", "true"},
            });
}

// Random sums of divisions of x + k (and of -x + k) by one small constant, remainders under a
// division, and divisions over a two-valued symbol u: simplify() must keep every value.
TEST(Reasoning, RandomDivisionsWithOffsetsKeepEveryValue) {
  std::mt19937 rng(1124);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Facts facts(ValueRange::all());
  facts.set_range("u", ValueRange::closed(Int(2), Int(3)));
  facts.set_range("y", ValueRange::closed(Int(-3), Int(3)));
  int rewritten = 0;
  for (int round = 0; round < 400; ++round) {
    const int c = pick(2, 5);
    std::string text;
    const int n = pick(2, 4);
    for (int i = 0; i < n; ++i) {
      if (!text.empty()) text += " + ";
      const int m = pick(-3, 3), k = pick(-6, 6);
      const std::string base = pick(0, 1) ? "x" : "-x";
      switch (pick(0, 3)) {
        case 0:
          text += std::to_string(m) + "*((" + base + " + " + std::to_string(k) + ")//" +
                  std::to_string(c) + ")";
          break;
        case 1:
          text += std::to_string(m) + "*((" + base + " + " + std::to_string(k) + ") % " +
                  std::to_string(c) + ")";
          break;
        case 2:
          text += "(" + std::to_string(m) + "*(x % " + std::to_string(pick(2, 6)) + ") + " +
                  std::to_string(k) + ")//" + std::to_string(c);
          break;
        default:
          text += "(" + std::to_string(pick(-400, 400)) + "*u + y + " + std::to_string(k) +
                  (pick(0, 1) ? ")//" : ") % ") + std::to_string(pick(2, 40));
          break;
      }
    }
    SCOPED_TRACE(text);
    Expr e = parse_e(text);
    Expr got = simplify(e, facts);
    if (!got.identical(e)) ++rewritten;
    for (int x = -30; x <= 30; ++x) {
      for (int u = 2; u <= 3; ++u) {
        for (int y = -3; y <= 3; ++y) {
          Bindings b{{"x", Int(x)}, {"u", Int(u)}, {"y", Int(y)}};
          ASSERT_TRUE(evaluate(got, b) == evaluate(e, b))
              << got.str() << " differs at x=" << x << " u=" << u << " y=" << y;
        }
      }
    }
  }
  EXPECT_GT(rewritten, 100);
}

// Random `==`, `!=` and `<=` facts (linear, scaled, and products of symbols, which become
// substitutions), random goals and terms over small boxes: prove() must never be wrong, bound()
// must hold every value, simplify() must keep every value. Prints the share of goals decided
// (docs/semantics.md reports it).
TEST(Reasoning, RandomFactsAgreeWithBruteForce) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int kRounds = 600;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr int kRounds = 600;
#else
  constexpr int kRounds = 1500;
#endif
#else
  constexpr int kRounds = 1500;
#endif
  std::mt19937 rng(1717);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* names[] = {"x", "y", "z"};
  auto sym = [&]() { return Expr::symbol(names[uniform(0, 2)]); };
  auto linear = [&]() {
    Expr e = Expr(uniform(-3, 3));
    for (int i = uniform(1, 2); i > 0; --i) e += Expr(uniform(-3, 3)) * sym();
    return e;
  };
  auto term = [&]() -> Expr {
    switch (uniform(0, 7)) {
      case 0: return floordiv(linear(), Expr(uniform(2, 4)));
      case 1: return mod(linear(), Expr(uniform(2, 4)));
      case 2: return max(linear(), linear());
      case 3: return min(linear(), sym());
      case 4: return sym() - floordiv(sym(), Expr(uniform(2, 4)));
      case 5: return sym() * sym();
      case 6: return mod(sym() * sym(), sym() + Expr(20));
      default: return linear();
    }
  };
  int decided = 0, goals = 0, bounds = 0, tight_bounds = 0;
  for (int round = 0; round < kRounds; ++round) {
    Box s;
    for (const char* n : names) {
      int lo = uniform(-4, 3), hi = lo + uniform(1, 6);
      s.facts.set_range(n, ValueRange::closed(Int(lo), Int(hi)));
      s.symbols.push_back(n);
      s.box[n] = {lo, hi};
    }
    for (int k = uniform(1, 3); k > 0; --k) {
      Cond a;
      switch (uniform(0, 4)) {
        case 0: a = linear() == linear(); break;
        case 1: a = linear() != linear(); break;
        case 2: a = sym() == sym() * sym(); break;
        default: a = linear() <= linear(); break;
      }
      s.facts.assume(a);
      s.assumed.push_back(a);
    }
    Cond goal = Cond::rel(static_cast<RelOp>(uniform(0, 5)), term(), term());
    Expr e = term() + (uniform(0, 1) ? term() : Expr(0));
    Truth t = prove(goal, s.facts);
    ValueRange r = bound(e, s.facts);
    Expr simple = simplify(e, s.facts);
    // Decided again under the same facts, the goal goes through the prover made once for all the
    // facts (the first decision gathered only the facts it reached): the same answer.
    std::string where;
    for (const Cond& a : s.assumed) where += a.str() + "; ";
    for (const auto& [name, range] : s.box)
      where += name + " in [" + std::to_string(range.first) + ", " + std::to_string(range.second) +
               "]; ";
    EXPECT_EQ(prove(goal, s.facts), t) << goal.str() << " decided again under " << where;
    bool any = false, all = true, none = true;
    std::optional<Int> lo, hi;
    for_each_point(s, [&](const Bindings& b) {
      any = true;
      bool holds = evaluate(goal, b);
      all = all && holds;
      none = none && !holds;
      Int v = evaluate(e, b);
      if (!lo || v < *lo) lo = v;
      if (!hi || v > *hi) hi = v;
      EXPECT_TRUE(r.contains(v)) << e.str() << " bounded " << r.str() << " misses " << to_string(v)
                                 << " under " << where;
      EXPECT_TRUE(evaluate(simple, b) == v)
          << e.str() << " simplified to " << simple.str() << " under " << where;
    });
    if (!any) continue;  // contradictory facts: any answer is vacuously right
    ++goals;
    if (t != Truth::Unknown) ++decided;
    if (t == Truth::True) {
      EXPECT_TRUE(all) << goal.str() << " claimed true under " << where;
    }
    if (t == Truth::False) {
      EXPECT_TRUE(none) << goal.str() << " claimed false under " << where;
    }
    ++bounds;
    if (r == ValueRange::closed(*lo, *hi)) ++tight_bounds;
  }
  EXPECT_GT(goals, kRounds / 3);
  EXPECT_GT(decided, goals / 3);
  std::cout << "goals " << goals << ", decided " << decided << "; bounds " << bounds << ", exact "
            << tight_bounds << "\n";
}

}  // namespace
}  // namespace symshape
