// Internal: the machinery shared by simplify()'s rule families (the driver in simplify.cc, the
// division rules in div_rules.cc, max / min in minmax_rules.cc, polynomial helpers in
// polynomial.cc). Not part of the public API.
#pragma once

#include <ginac/ginac.h>

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/ranges.h"
#include "symshape/ranges/bound.h"

namespace symshape::detail {

using GiNaC::ex;

// ---- node tests ------------------------------------------------------------------------------
// By exact registered class (detail::is_exactly): GiNaC's is_a<> is a dynamic_cast and its
// is_exactly_a<> compares type names, and the engine never subclasses these classes.

inline bool is_add(const ex& e) { return detail::is_exactly<GiNaC::add>(e); }
inline bool is_mul(const ex& e) { return detail::is_exactly<GiNaC::mul>(e); }
inline bool is_power(const ex& e) { return detail::is_exactly<GiNaC::power>(e); }
inline bool is_number(const ex& e) { return detail::is_exactly<GiNaC::numeric>(e); }
inline bool is_symbol(const ex& e) { return detail::is_exactly<GiNaC::symbol>(e); }
inline bool is_integer(const ex& e) {
  return is_number(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
}
// PairsOf (reading a sum's or product's pairs in place) is in symshape/expr/functions.h.

// Which integer function e calls (Fn::None for anything else).
inline Fn call_of(const ex& e) {
  return detail::is_exactly<GiNaC::function>(e) ? function_of(e) : Fn::None;
}

// flatten_calls (the arguments of a nest of max or min calls) is in symshape/expr/functions.h.

// ---- polynomial helpers (polynomial.cc) ------------------------------------------------------
// They look at the sum / product / power skeleton of an expression: function calls are atoms.

// A polynomial with integer coefficients and natural powers (function calls are integers):
// integer-valued without any divisibility fact.
bool integer_polynomial(const ex& e);
// (has_denominator, whether the skeleton is an exact quotient, is in symshape/expr/functions.h.)
// The skeleton has a negative power (a symbolic denominator such as y^-1).
bool has_symbolic_denominator(const ex& e);
// The skeleton has a product with a sum among its factors, or a sum to a natural power >= 2.
bool needs_expand(const ex& e);
// The nodes of e's tree as e.op() shows them (a call and its arguments included).
size_t node_count(const ex& e);
// The skeleton contains a function call of kind f.
bool skeleton_has(const ex& e, Fn f);
// The kinds of function call the skeleton contains, as a set of fn_bit()s.
constexpr unsigned fn_bit(Fn f) { return 1u << static_cast<unsigned>(f); }
unsigned skeleton_calls(const ex& e);
inline constexpr unsigned kDivisionCalls =
    fn_bit(Fn::FloorDiv) | fn_bit(Fn::Mod) | fn_bit(Fn::CeilDiv);
// The terms of a sum; e itself for a non-sum; none for 0.
std::vector<ex> terms_of(const ex& e);
// Adds up terms (GiNaC orders and combines them).
ex sum_of(const std::vector<ex>& terms);

// A term split as (rational coefficient) * rest, rest having coefficient 1.
struct Term {
  GiNaC::numeric coeff;
  ex rest;
};
Term split_term(const ex& t);
// split_term(t).coeff, without building the rest.
GiNaC::numeric coefficient_of(const ex& t);
// The gcd of the integer coefficients of a polynomial with integer coefficients (0 for 0).
Int integer_content(const ex& e);

// Expanding further than this many terms keeps the compact form: (a+b+c+d+e)**30 would be 46,376
// terms (megabytes of text) where the power is 23 bytes. Simplest means smallest.
inline constexpr double kMaxExpandedTerms = 2000;
// The polynomial normal form: sums and products expanded (up to kMaxExpandedTerms terms); a
// symbolic denominator cancelled against the numerator (numerator / denominator, both
// expanded). Cheap when nothing changes.
ex poly_normal(const ex& e);

// q such that n == q * d with q a polynomial with integer coefficients (so d divides n at every
// integer point); nullopt when none is found.
std::optional<ex> poly_quotient(const ex& n, const ex& d);

// a / b == n / d with n, d polynomials with integer coefficients, and a * scale == n,
// b * scale == d. nullopt when b's denominator is symbolic (clearing it could hide an error).
struct IntegerQuotient {
  ex n, d, scale;
};
std::optional<IntegerQuotient> integer_quotient(const ex& a, const ex& b);

// A non-constant common factor g of n and d (n == g * n', d == g * d'); nullopt when none is
// found. Monomial factors are found directly; GiNaC's gcd is used only when d is a sum.
struct CommonFactor {
  ex g, n, d;
};
std::optional<CommonFactor> common_symbolic_factor(const ex& n, const ex& d);

// n / d for a division the caller knows to be exact: the polynomial quotient when there is
// one, else the rational form in polynomial normal form.
ex exact_quotient(const ex& n, const ex& d);

// Python floor division and modulo of integers (cln::floor1 / cln::mod, named for the reader).
Int floor_div(const Int& a, const Int& b);
bool divides(const Int& d, const Int& n);  // d != 0

// ---- the simplifier (simplify.cc) -------------------------------------------------------------

// One simplify() call, or a run of them under the same facts (symshape::Simplification): the
// facts, memo tables and the questions the rules ask (ranges first, prove only when a range does
// not settle it).
//
// What depends only on the expression and the facts (ranges, decisions) is kept across calls,
// and so is each top-level result (see top_level_result). So is a simplified form, when computing
// it met no cycle cut, no depth cap and no memo entry of the kind below: it is then what run()
// computes afresh. Within one call, a result r is also remembered as its own simplified form (an
// assumed fixpoint) and a node already being simplified further up the stack is left as it is; a
// result that used either is remembered for that call only.
class Simplifier {
 public:
  explicit Simplifier(const Facts& facts) : facts_(facts) {}

  // e simplified (memoized; rewritten nodes are simplified again, up to a depth cap).
  ex run(const ex& e);
  // Starts another top-level call: forgets what held only within the last one.
  void begin_call();
  // The result of an earlier top-level call on e (simplify_substituted, from an empty memo_,
  // so what simplify() gives) that cut a cycle, and so is not in clean_; nullptr when there is
  // none. Looked up only at the top level: inside another call, run(e) may meet the cycle
  // differently.
  const ex* top_level_result(const ex& e) const;
  void remember_top_level(const ex& e, const ex& r) { top_.emplace(e, r); }
  // How many cycle cuts, depth caps and call-only memo entries results have met so far (a
  // result that met none is kept in clean_ already).
  unsigned long cuts() const { return cuts_; }
  // The work recombine may do in one top-level call, in terms read: each candidate sum it builds
  // costs two per term (building it, and a round of recombine on it). Each candidate is
  // simplified in full, recombine included, so the search nests as deep as kMaxDepth with a
  // branch per division term: on a sum of dozens of division terms (a power of a sum of window
  // products, expanded) it ran for minutes. Past the budget recombine keeps the sums as they
  // are (a cut: what it returns depends on the call). The whole budget is spent in about 0.1 s;
  // the tests' calls spend at most 240, the expression corpora's 20.
  static constexpr unsigned long kMaxRecombineWork = 1ul << 16;
  // The recombine work spent in the current call.
  unsigned long recombine_work() const { return recombine_work_; }

  const Facts& facts() const { return facts_; }
  // skeleton_calls(e) (a walk of the skeleton costs less than looking it up in a table).
  unsigned calls_in(const ex& e);
  ValueRange range(const ex& e);
  // Whether range(e) is exactly the set of values e takes: e is a constant, or a symbol no
  // assumed relation mentions. prove() can then tell no more than the range.
  bool range_is_exact(const ex& e) const;
  ModularSet modular(const ex& e);
  // prove(lhs op rhs), cached for the call.
  Truth decide(RelOp op, const ex& lhs, const ex& rhs);
  // Whether lhs op rhs is shown to hold: decide() is True, asked only when no sample point
  // the facts allow is a counterexample (see refuted_by_sample).
  bool shown(RelOp op, const ex& lhs, const ex& rhs);
  bool nonzero(const ex& e);
  bool positive(const ex& e);
  bool nonnegative(const ex& e);
  // 0 <= n < d at every point (so n // d == 0 and n % d == n).
  bool below_divisor(const ex& n, const ex& d);
  // Every division in e has a divisor shown to be nonzero.
  bool divisors_nonzero(const ex& e);
  // t is a multiple of d by the divisibility facts (known divisors of symbols, or a fact
  // (p, q) with d | q and p | t).
  bool multiple_by_facts(const ex& t, const ex& d);

 private:
  ex run_function(const ex& e);
  // The nest of f calls e with each argument simplified, as one left-nested nest.
  ex run_args(const ex& e, Fn f);
  ex run_polynomial(const ex& e);
  ex recombine(const ex& e);
  ex relate_offsets(const ex& e);
  ex apply_rules(const ex& e);
  bool term_multiple_by_divisors(const ex& t, const Int& c) const;
  bool refuted_by_sample(RelOp op, const ex& lhs, const ex& rhs);
  // range(e) and modular(e) from one analysis, remembered.
  const RangeAndModular& analysis(const ex& e);
  const std::vector<std::pair<ex, ex>>& normalized_facts();

  // A simplified form remembered for the current call; `clean` when it is what run() computes
  // afresh (see the class comment).
  struct Memo {
    ex result;
    bool clean;
  };
  // A cycle cut, a depth cap or a use of a call-only memo entry: the results being computed
  // depend on the call they are computed in.
  void cut() { ++cuts_; }
  bool below_depth_cap() {
    if (depth_ < kMaxDepth) return true;
    cut();
    return false;
  }

  // How many times in a row a rewritten node may be simplified again: a guard against rules
  // that would take turns undoing each other. Of the rules as written only recombine's nested
  // search on a sum of many division terms reaches it (see kMaxRecombineWork).
  static constexpr int kMaxDepth = 16;
  // Spends `terms` of the call's recombine budget; false (and a cut) when it would run out.
  bool spend_recombine_work(size_t terms) {
    if (recombine_work_ + terms > kMaxRecombineWork) {
      cut();
      return false;
    }
    recombine_work_ += terms;
    return true;
  }

  const Facts& facts_;
  GiNaC::exhashmap<Memo> memo_;
  GiNaC::exhashmap<ex> clean_;  // kept across calls
  GiNaC::exhashmap<ex> top_;    // top-level results, kept across calls
  unsigned long cuts_ = 0;
  // The expressions run() is simplifying further up the stack, innermost last. A rewrite that
  // leads back to one of them (recombine's E // d -> E - E % d and back) is a cycle: it is left
  // as it is. A stack, not a table: it is as deep as run()'s recursion (a few dozen), and each
  // entry is compared on its hash first.
  std::vector<ex> active_;
  bool is_active(const ex& e) const;
  AnalysisMemo analysis_memo_;                // the sub-terms' analyses behind ranges_
  GiNaC::exhashmap<RangeAndModular> ranges_;  // range() and modular()
  // decide() and shown() answers, by question (no GiNaC list built to key them).
  struct Question {
    RelOp op;
    bool shown;  // shown()'s answer (True or False), else decide()'s
    ex lhs, rhs;
    bool operator==(const Question& o) const {
      return op == o.op && shown == o.shown && lhs.is_equal(o.lhs) && rhs.is_equal(o.rhs);
    }
  };
  struct QuestionHash {
    size_t operator()(const Question& q) const {
      size_t h = q.lhs.gethash();
      h = h * 1000003u ^ q.rhs.gethash();
      return h * 31u + static_cast<size_t>(q.op) * 2u + (q.shown ? 1u : 0u);
    }
  };
  std::unordered_map<Question, Truth, QuestionHash> decisions_;
  std::optional<std::vector<std::pair<ex, ex>>> facts_normal_;
  int depth_ = 0;
  unsigned long recombine_work_ = 0;  // spent in this call, up to kMaxRecombineWork
  ex last_calls_of_;                  // calls_in's last question
  unsigned last_calls_ = 0;           // and its answer
};

// ---- rule families ------------------------------------------------------------------------------
// Each takes simplified arguments and returns an equal expression (the plain call when no rule
// fires); the driver simplifies the result again when it changed.

// The division rules take the call (a // b, a % b, ceildiv(a, b)), handed back as it is when no
// rule fires.
ex floordiv_rules(Simplifier& s, const ex& call);   // div_rules.cc
ex mod_rules(Simplifier& s, const ex& call);        // div_rules.cc
ex ceildiv_rules(Simplifier& s, const ex& call);    // div_rules.cc
ex minmax_rules(Simplifier& s, Fn f, const ex& e);  // minmax_rules.cc

}  // namespace symshape::detail
