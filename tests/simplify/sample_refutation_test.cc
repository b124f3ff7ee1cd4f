// The simplifier's questions (is e >= 0, > 0, != 0, n < d?) skip prove() when a sample point
// the facts allow is a counterexample. The shortcut must never change an answer: on random
// expressions under random ranges, shown() agrees with prove() itself, and what it shows holds at
// every point of the box (brute force).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/prove.h"
#include "symshape/simplify/simplifier.h"
#include "tests/support/random_expr.h"

namespace symshape {
namespace {

using test_support::Generator;

struct Box {
  Facts facts;
  std::vector<std::pair<std::string, std::pair<int, int>>> window;  // each symbol's values
};

Box random_box(Generator& g) {
  Box b{g.chance(0.5) ? Facts() : Facts(ValueRange::closed(Int(-6), Int(6))), {}};
  const bool sizes = b.facts.default_range().lo() == Int(1);
  for (const char* s : {"x", "y"}) {
    std::pair<int, int> w = sizes ? std::pair{1, 24} : std::pair{-6, 6};
    switch (g.uniform(0, 4)) {
      case 0: w = {0, 3}; break;
      case 1: w = {-4, -1}; break;
      case 2: w = {2, 9}; break;
      default: break;  // the default range
    }
    if (w != (sizes ? std::pair{1, 24} : std::pair{-6, 6}) || !sizes) {
      b.facts.set_range(s, ValueRange::closed(Int(w.first), Int(w.second)));
    }
    b.window.emplace_back(s, w);
  }
  return b;
}

bool holds_everywhere(const Box& b, RelOp op, const Expr& e, const Expr& rhs) {
  for (int x = b.window[0].second.first; x <= b.window[0].second.second; ++x) {
    for (int y = b.window[1].second.first; y <= b.window[1].second.second; ++y) {
      const Bindings v{{"x", Int(x)}, {"y", Int(y)}};
      try {
        if (!evaluate(Cond::rel(op, e, rhs), v)) return false;
      } catch (const Error&) {
        // undefined there (a division by zero)
      }
    }
  }
  return true;
}

TEST(SampleRefutation, NeverChangesAnAnswer) {
  int shown = 0, refuted = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Generator g(seed, {"x", "y"});
    const Box box = random_box(g);
    Expr e(0), d(1);
    try {
      e = test_support::to_expr(*g.expr(3));
      d = test_support::to_expr(*g.expr(2));
    } catch (const Error&) {
      continue;  // a constant division by zero
    }
    detail::Simplifier s(box.facts);
    for (RelOp op : {RelOp::Ge, RelOp::Gt, RelOp::Ne, RelOp::Lt}) {
      const Expr rhs = op == RelOp::Lt ? d : Expr(0);
      const bool by_prove = prove(Cond::rel(op, e, rhs), box.facts) == Truth::True;
      const bool got = s.shown(op, e.ex(), rhs.ex());
      EXPECT_EQ(got, by_prove) << e.str() << " " << to_string(op) << " " << rhs.str();
      if (got) {
        ++shown;
        EXPECT_TRUE(holds_everywhere(box, op, e, rhs)) << e.str() << " vs " << rhs.str();
      } else if (!by_prove) {
        ++refuted;
      }
    }
  }
  // Both kinds of answer occur.
  EXPECT_GT(shown, 50);
  EXPECT_GT(refuted, 50);
}

}  // namespace
}  // namespace symshape
