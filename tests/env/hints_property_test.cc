// Property: random guards on random hints never make the env contradict its hints, and never
// lose a guard. Every statically decided condition agrees with the hints, every recorded guard,
// replacement, range and fact holds at the hints, and each decision that was not statically
// known appends exactly one guard.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

constexpr int kSymbols = 6;
constexpr int kRounds = 300;
constexpr int kDecisionsPerRound = 40;

// Random conditions over the env's symbols. Half of them are built from the hints so that they
// hold (equalities that merge symbols, divisibility, bounds that pin a symbol), since those are
// the decisions that teach the env the most.
class ConditionGen {
 public:
  ConditionGen(uint64_t seed, std::vector<Expr> syms, std::vector<Int> hints)
      : rng_(seed), syms_(std::move(syms)), hints_(std::move(hints)) {}

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  size_t any_symbol() { return static_cast<size_t>(pick(0, static_cast<int>(syms_.size()) - 1)); }

  Expr linear() {
    Expr e = pick(-6, 6);
    for (int t = pick(1, 3); t > 0; --t) {
      int c = pick(-3, 3);
      e += Expr(c == 0 ? 1 : c) * syms_[any_symbol()];
    }
    return e;
  }

  // A divisor that is positive at every point the env allows.
  Expr divisor() {
    switch (pick(0, 2)) {
      case 0: return pick(2, 6);
      case 1: return syms_[any_symbol()];
      default: return syms_[any_symbol()] + pick(0, 3);
    }
  }

  Expr nonlinear() {
    const Expr& a = syms_[any_symbol()];
    const Expr& b = syms_[any_symbol()];
    switch (pick(0, 7)) {
      case 0: return a * b;
      case 1: return floordiv(a + pick(-3, 3), divisor());
      case 2: return mod(a * pick(1, 3) + b, divisor());
      case 3: return floordiv(a * b, divisor());
      case 4: return max(a, b + pick(-4, 4));
      case 5: return min(a * 2, b + pick(0, 8));
      case 6: return ceildiv(a, divisor());
      default: return a * a - b;
    }
  }

  Expr expr() { return pick(0, 1) == 0 ? linear() : nonlinear(); }

  Cond random_relation() {
    RelOp op = static_cast<RelOp>(pick(0, 5));
    return Cond::rel(op, expr(), pick(0, 2) == 0 ? Expr(pick(-4, 70)) : expr());
  }

  // Conditions that hold at the hints and constrain the env strongly.
  Cond true_at_hints() {
    size_t i = any_symbol(), j = any_symbol();
    const Expr& a = syms_[i];
    const Expr& b = syms_[j];
    Int ha = hints_[i], hb = hints_[j];
    switch (pick(0, 6)) {
      case 0: return a == b + Expr(ha - hb);  // an equality that merges two symbols
      case 1: return a * 2 <= b * 2 + Expr(ha * 2 - hb * 2 + pick(0, 3));
      case 2: {
        int q = pick(2, 4);
        return mod(a, q) == Expr(cln::mod(ha, q));
      }
      case 3: return a <= Expr(ha + pick(0, 2));  // pins a from above
      case 4: return a >= Expr(ha - pick(0, 2));  // and from below
      case 5: return a < b + Expr(ha - hb + 1 + pick(0, 2));
      default: {
        int q = pick(2, 3);
        return mod(a * b, q) == Expr(cln::mod(ha * hb, q));
      }
    }
  }

  Cond cond() {
    switch (pick(0, 3)) {
      case 0: return true_at_hints();
      case 1: return !true_at_hints();
      case 2: return random_relation() || random_relation();
      default: return random_relation();
    }
  }

 private:
  std::mt19937_64 rng_;
  std::vector<Expr> syms_;
  std::vector<Int> hints_;
};

bool holds(const Cond& c, const Bindings& hints) { return evaluate(c, hints); }

std::string describe(const ShapeEnv& env) {
  std::ostringstream os;
  os << "guards:";
  for (const Guard& g : env.guards()) os << "\n  " << g.cond.str();
  os << "\nreplacements:";
  for (const auto& [name, value] : env.replacements())
    os << "\n  " << name << " := " << value.str();
  os << "\nranges:";
  for (const auto& [name, r] : env.facts().ranges()) os << "\n  " << name << " " << r.str();
  return os.str();
}

// Everything the env has learned holds at the hints.
void check_invariants(const ShapeEnv& env, const Bindings& hints) {
  for (const Guard& g : env.guards()) {
    ASSERT_TRUE(holds(g.cond, hints)) << "guard " << g.cond.str() << " fails at the hints";
  }
  for (const auto& [name, value] : env.replacements()) {
    ASSERT_EQ(hints.at(name), evaluate(value, hints))
        << "replacement " << name << " := " << value.str() << " fails at the hints";
  }
  for (const auto& [name, r] : env.facts().ranges()) {
    ASSERT_TRUE(r.contains(hints.at(name))) << name << " " << r.str() << " excludes its hint";
  }
  for (const Cond& c : env.facts().assumptions()) {
    ASSERT_TRUE(holds(c, hints)) << "fact " << c.str() << " fails at the hints";
  }
  for (const Divisibility& d : env.facts().divisibility()) {
    Int divisor = evaluate(d.divisor, hints);
    ASSERT_NE(divisor, 0);
    ASSERT_EQ(cln::mod(evaluate(d.dividend, hints), divisor), 0)
        << d.divisor.str() << " does not divide " << d.dividend.str() << " at the hints";
  }
}

void run_round(uint64_t seed) {
  std::mt19937_64 setup(seed);
  ShapeEnv env;
  std::vector<Expr> syms;
  std::vector<Int> sym_hints;
  for (int i = 0; i < kSymbols; ++i) {
    // Hints from a narrow band half the time, so that duck sizing and equalities happen.
    int hint = setup() % 2 ? 2 + static_cast<int>(setup() % 63) : 2 + static_cast<int>(setup() % 6);
    DimPolicy policy = setup() % 3 == 0 ? DimPolicy::Duck : DimPolicy::Dynamic;
    SymInt s = env.create_symbol(hint, "L['x'].size()[" + std::to_string(i) + "]", policy);
    syms.push_back(s.expr());
    sym_hints.push_back(hint);
  }
  Bindings hints;
  for (const SymbolInfo& info : env.symbols()) hints[info.name] = *info.hint;

  ConditionGen gen(seed * 7919 + 17, syms, sym_hints);
  for (int step = 0; step < kDecisionsPerRound; ++step) {
    const size_t before = env.guards().size();
    const int kind = gen.pick(0, 3);
    if (kind == 3) {
      Expr e = gen.expr();
      SCOPED_TRACE("guard_int(" + e.str() + ")\n" + describe(env));
      bool constant = env.simplify(e).is_constant();
      Int value = env.guard_int(env.wrap(e));
      ASSERT_EQ(value, evaluate(e, hints));
      ASSERT_EQ(env.guards().size(), before + (constant ? 0 : 1));
    } else {
      Cond c = gen.cond();
      SCOPED_TRACE("cond " + c.str() + "\n" + describe(env));
      const bool at_hints = holds(c, hints);
      const Truth t = env.known(env.wrap(c));
      if (t != Truth::Unknown) {
        ASSERT_EQ(t == Truth::True, at_hints) << "statically decided wrong";
      }
      const Truth not_t = env.known(env.wrap(!c));
      if (not_t != Truth::Unknown) {
        ASSERT_EQ(not_t == Truth::True, !at_hints) << "not c decided wrong";
      }
      if (kind == 0) {
        ASSERT_EQ(env.statically_known_true(env.wrap(c)), t == Truth::True);
        ASSERT_EQ(env.guards().size(), before) << "a static question added a guard";
      } else {
        ASSERT_EQ(env.evaluate(env.wrap(c)), at_hints);
        ASSERT_EQ(env.guards().size(), before + (t == Truth::Unknown ? 1 : 0));
        if (t == Truth::Unknown) {
          ASSERT_TRUE(holds(env.guards().back().cond, hints));
          // What was just guarded is known from now on.
          ASSERT_EQ(env.known(env.wrap(c)), at_hints ? Truth::True : Truth::False);
        }
      }
    }
    check_invariants(env, hints);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ShapeEnvProperty, RandomGuardsNeverContradictTheHintsNorLoseAGuard) {
  for (uint64_t seed = 1; seed <= kRounds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    run_round(seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace symshape
