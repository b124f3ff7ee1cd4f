// Property test: on random conditions over small boxes, prove() is checked against brute force.
// True must hold at every point satisfying the facts, False at none.
#include <gtest/gtest.h>

#include <random>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"

namespace symshape {
namespace {

struct Case {
  std::vector<std::string> symbols;
  std::map<std::string, std::pair<int, int>> box;
  Facts facts;
  std::vector<Cond> assumed;
  std::vector<std::pair<Expr, int>> divisible;  // (dividend, constant divisor)
};

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(1, 100) <= percent; }

  Expr symbol(const Case& c) { return Expr::symbol(c.symbols[uniform(0, c.symbols.size() - 1)]); }

  // A symbol whose range excludes 0, if any: a divisor that is never zero.
  std::optional<Expr> nonzero_symbol(const Case& c) {
    for (int tries = 0; tries < 3; ++tries) {
      const std::string& s = c.symbols[uniform(0, c.symbols.size() - 1)];
      auto [lo, hi] = c.box.at(s);
      if (lo > 0 || hi < 0) return Expr::symbol(s);
    }
    return std::nullopt;
  }

  Expr linear(const Case& c) {
    Expr e = Expr(uniform(-3, 3));
    int n = uniform(1, 2);
    for (int i = 0; i < n; ++i) e += Expr(uniform(-3, 3)) * symbol(c);
    return e;
  }

  int nonzero_constant() {
    int v = uniform(-4, 4);
    return v == 0 ? 3 : v;
  }

  Expr term(const Case& c, int depth) {
    if (depth == 0) return chance(70) ? linear(c) : symbol(c);
    Expr a = term(c, depth - 1);
    switch (uniform(0, 11)) {
      case 0: return floordiv(a, Expr(nonzero_constant()));
      case 1: return mod(a, Expr(nonzero_constant()));
      case 2: return ceildiv(a, Expr(nonzero_constant()));
      case 3:
        if (auto d = nonzero_symbol(c)) return chance(50) ? floordiv(a, *d) : mod(a, *d);
        return floordiv(a, Expr(2));
      case 4: return max(a, term(c, depth - 1));
      case 5: return min(a, term(c, depth - 1));
      case 6: return symbol(c) * symbol(c);
      case 7: return a * symbol(c) + Expr(uniform(-2, 2));
      case 8: return pow(symbol(c), 2);
      case 9: return Expr(uniform(-3, 3)) * a + term(c, depth - 1);
      default: return a + linear(c);
    }
  }

  Cond relation(const Case& c, int depth) {
    static const RelOp ops[] = {RelOp::Eq, RelOp::Ne, RelOp::Lt, RelOp::Le, RelOp::Gt, RelOp::Ge};
    return Cond::rel(ops[uniform(0, 5)], term(c, depth), term(c, depth > 0 ? depth - 1 : 0));
  }

  Case make_case() {
    Case c;
    int n = uniform(2, 3);
    static const char* names[] = {"x", "y", "z"};
    for (int i = 0; i < n; ++i) {
      int lo = uniform(-4, 3), hi = lo + uniform(0, 5);
      c.symbols.push_back(names[i]);
      c.box[names[i]] = {lo, hi};
      c.facts.set_range(names[i], ValueRange::closed(Int(lo), Int(hi)));
    }
    int k = uniform(0, 3);
    for (int i = 0; i < k; ++i) {
      Cond a = relation(c, uniform(0, 1));
      c.facts.assume(a);
      c.assumed.push_back(a);
    }
    if (chance(20)) {
      int d = uniform(2, 3);
      Expr p = chance(50) ? symbol(c) : linear(c);
      if (chance(50)) {
        c.facts.add_divisibility(p, Expr(d));
      } else {
        c.facts.assume(mod(p, Expr(d)) == Expr(0));
      }
      c.divisible.emplace_back(p, d);
    }
    return c;
  }

  Cond goal(const Case& c) {
    if (!c.divisible.empty() && chance(30)) {
      // An exact quotient, valid wherever the facts hold.
      const auto& [p, d] = c.divisible.front();
      Expr q = exact_div(p, Expr(d));
      return Cond::rel(RelOp::Le, q, term(c, uniform(0, 1)));
    }
    Cond g = relation(c, uniform(0, 2));
    if (chance(20)) g = chance(50) ? (g && relation(c, 1)) : (g || relation(c, 1));
    return g;
  }

 private:
  std::mt19937 rng_;
};

// Calls f on every point of the box.
template <typename F>
void for_each_case_point(const Case& c, F&& f) {
  Bindings b;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == c.symbols.size()) {
      f(b);
      return;
    }
    auto [lo, hi] = c.box.at(c.symbols[i]);
    for (int v = lo; v <= hi; ++v) {
      b[c.symbols[i]] = Int(v);
      rec(i + 1);
    }
  };
  rec(0);
}

TEST(ProveSoundnessTest, AgreesWithBruteForce) {
  Generator gen(20240611);
  int counts[3] = {0, 0, 0};
  int checked = 0;
  for (int round = 0; round < 4000; ++round) {
    Case c = gen.make_case();
    Cond g = gen.goal(c);
    Truth t = prove(g, c.facts);
    bool any = false, all_hold = true, none_hold = true;
    for_each_case_point(c, [&](const Bindings& b) {
      for (const Cond& a : c.assumed) {
        if (!evaluate(a, b)) return;
      }
      for (const auto& [p, d] : c.divisible) {
        if (cln::mod(evaluate(p, b), Int(d)) != 0) return;
      }
      any = true;
      bool holds = evaluate(g, b);
      all_hold = all_hold && holds;
      none_hold = none_hold && !holds;
    });
    if (!any) continue;  // contradictory facts: any answer is vacuously right
    ++checked;
    ++counts[static_cast<int>(t)];
    std::string facts_text;
    for (const Cond& a : c.assumed) facts_text += a.str() + "; ";
    for (const auto& s : c.symbols) {
      facts_text += s + " in [" + std::to_string(c.box.at(s).first) + ", " +
                    std::to_string(c.box.at(s).second) + "]; ";
    }
    for (const auto& [p, d] : c.divisible)
      facts_text += p.str() + " % " + std::to_string(d) + " == 0; ";
    if (t == Truth::True) {
      EXPECT_TRUE(all_hold) << g.str() << " claimed true under " << facts_text;
    }
    if (t == Truth::False) {
      EXPECT_TRUE(none_hold) << g.str() << " claimed false under " << facts_text;
    }
  }
  // Not vacuous: a fair share of the random conditions is decided.
  int decided = counts[static_cast<int>(Truth::True)] + counts[static_cast<int>(Truth::False)];
  EXPECT_GT(checked, 2000);
  EXPECT_GT(decided, checked / 3) << "true " << counts[1] << ", false " << counts[0] << ", unknown "
                                  << counts[2];
  std::cout << "checked " << checked << ": true " << counts[1] << ", false " << counts[0]
            << ", unknown " << counts[2] << "\n";
}

// Linear facts and goals only: the ground where the linear tier does the work (chains of
// inequalities, equalities, parity), with `!=` and connectives in the goal.
TEST(ProveSoundnessTest, LinearSystemsAgreeWithBruteForce) {
  std::mt19937 rng(99);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const RelOp ops[] = {RelOp::Eq, RelOp::Ne, RelOp::Lt, RelOp::Le, RelOp::Gt, RelOp::Ge};
  int counts[3] = {0, 0, 0};
  int checked = 0, missed = 0;
  for (int round = 0; round < 2000; ++round) {
    Case c;
    static const char* names[] = {"x", "y", "z"};
    for (const char* n : names) {
      int lo = uniform(-3, 2), hi = lo + uniform(1, 4);
      c.symbols.push_back(n);
      c.box[n] = {lo, hi};
      c.facts.set_range(n, ValueRange::closed(Int(lo), Int(hi)));
    }
    auto linear = [&]() {
      Expr e = Expr(uniform(-4, 4));
      for (const char* n : names) e += Expr(uniform(-2, 2)) * Expr::symbol(n);
      return e;
    };
    auto relation = [&]() { return Cond::rel(ops[uniform(0, 5)], linear(), linear()); };
    int k = uniform(1, 4);
    for (int i = 0; i < k; ++i) {
      Cond a = relation();
      c.facts.assume(a);
      c.assumed.push_back(a);
    }
    Cond g = relation();
    int shape = uniform(0, 4);
    if (shape == 0) g = g && relation();
    if (shape == 1) g = g || relation();
    Truth t = prove(g, c.facts);
    bool any = false, all_hold = true, none_hold = true;
    for_each_case_point(c, [&](const Bindings& b) {
      for (const Cond& a : c.assumed) {
        if (!evaluate(a, b)) return;
      }
      any = true;
      bool holds = evaluate(g, b);
      all_hold = all_hold && holds;
      none_hold = none_hold && !holds;
    });
    if (!any) continue;
    ++checked;
    ++counts[static_cast<int>(t)];
    if (t == Truth::Unknown && (all_hold || none_hold)) ++missed;
    std::string facts_text;
    for (const Cond& a : c.assumed) facts_text += a.str() + "; ";
    if (t == Truth::True) {
      EXPECT_TRUE(all_hold) << g.str() << " claimed true under " << facts_text;
    }
    if (t == Truth::False) {
      EXPECT_TRUE(none_hold) << g.str() << " claimed false under " << facts_text;
    }
  }
  int decided = counts[static_cast<int>(Truth::True)] + counts[static_cast<int>(Truth::False)];
  EXPECT_GT(checked, 700);
  EXPECT_GT(decided, checked / 3);
  std::cout << "checked " << checked << ": true " << counts[1] << ", false " << counts[0]
            << ", unknown " << counts[2] << " (of which decidable in the box: " << missed << ")\n";
}

}  // namespace
}  // namespace symshape
