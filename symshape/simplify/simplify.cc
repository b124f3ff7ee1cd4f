// simplify(): a bottom-up rewrite. Function calls have their arguments simplified first, then the
// rules of their kind run at the node, and a node that changed is simplified again (up to a cap)
// until it is a fixpoint. Sums, products and powers are put in polynomial normal form.
#include <exception>

#include "symshape/expr/functions.h"
#include "symshape/simplify.h"
#include "symshape/simplify/simplifier.h"

namespace symshape {

namespace detail {

namespace {

// How many times in a row a rewritten node may be simplified again: a guard against rules that
// would take turns undoing each other, never reached by the rules as written.
constexpr int kMaxDepth = 16;

struct RunMap : GiNaC::map_function {
  explicit RunMap(Simplifier& s) : s(s) {}
  ex operator()(const ex& e) override { return s.run(e); }
  Simplifier& s;
};

}  // namespace

ex Simplifier::run(const ex& e) {
  if (is_number(e) || is_symbol(e)) return e;
  if (auto it = memo_.find(e); it != memo_.end()) return it->second;
  ex r = call_of(e) != Fn::None ? run_function(e) : run_polynomial(e);
  memo_.emplace(e, r);
  memo_.emplace(r, r);
  return r;
}

ex Simplifier::run_polynomial(const ex& e) {
  RunMap m(*this);
  return recombine(poly_normal(e.map(m)));
}

namespace {

size_t node_count(const ex& e) {
  size_t n = 0;
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it) ++n;
  return n;
}

// The division call f (E // d or E % d) that term t is a multiple of, and the multiplier:
// t == m * d * f for a floor division (so t == m*(E - E % d)), t == m * f for a modulo (so
// t == m*(E - d*(E // d))). nullopt when t has no such factor.
struct DivisionTerm {
  ex call;
  ex multiplier;
};

std::optional<DivisionTerm> division_term(const ex& t) {
  std::vector<ex> factors;
  if (is_mul(t)) {
    for (size_t i = 0; i < t.nops(); ++i) factors.push_back(t.op(i));
  } else {
    factors.push_back(t);
  }
  for (size_t i = 0; i < factors.size(); ++i) {
    Fn f = call_of(factors[i]);
    if (f != Fn::FloorDiv && f != Fn::Mod) continue;
    ex rest = 1;
    for (size_t j = 0; j < factors.size(); ++j) {
      if (j != i) rest = rest * factors[j];
    }
    if (f == Fn::Mod) return DivisionTerm{factors[i], rest};
    const ex& d = factors[i].op(1);
    if (is_integer(d)) {
      // (k*c) * (E // c): the multiplier is k, an integer.
      ex m = poly_normal(rest / d);
      if (integer_polynomial(m)) return DivisionTerm{factors[i], m};
    } else if (auto q = poly_quotient(poly_normal(rest), d)) {
      return DivisionTerm{factors[i], *q};
    }
  }
  return std::nullopt;
}

}  // namespace

// Rule: recombine divisions in a sum by d*(E // d) + E % d == E (for d != 0): a term that is a
// multiple of d*(E // d) is written m*(E - E % d), or a multiple of E % d is written
// m*(E - d*(E // d)), when that makes the sum smaller: x - 3*(x//3) == x % 3,
// 8*(x//8) + x % 8 == x. Greedy: one rewrite at a time, while the sum shrinks.
ex Simplifier::recombine(const ex& e) {
  if (!is_add(e) || (!skeleton_has(e, Fn::FloorDiv) && !skeleton_has(e, Fn::Mod))) return e;
  ex cur = e;
  size_t size = node_count(cur);
  for (int round = 0; round < 8; ++round) {
    bool improved = false;
    for (const ex& t : terms_of(cur)) {
      auto dt = division_term(t);
      if (!dt) continue;
      const ex& call = dt->call;
      const ex &n = call.op(0), &d = call.op(1);
      // The result may no longer divide by d: it must not be zero.
      if (!nonzero(d)) continue;
      ex replacement = call_of(call) == Fn::FloorDiv
                           ? dt->multiplier * (n - mod(Expr(n), Expr(d)).ex())
                           : dt->multiplier * (n - d * floordiv(Expr(n), Expr(d)).ex());
      ex candidate = poly_normal(cur - t + replacement);
      ++depth_;
      candidate = depth_ < kMaxDepth ? run(candidate) : candidate;
      --depth_;
      size_t cs = node_count(candidate);
      if (cs < size) {
        cur = candidate;
        size = cs;
        improved = true;
        break;
      }
    }
    if (!improved || !is_add(cur)) break;
  }
  return cur;
}

ex Simplifier::run_function(const ex& e) {
  Fn f = call_of(e);
  ex cur;
  try {
    if (f == Fn::Max || f == Fn::Min) {
      // A nest of max (min) calls is one n-ary call: its arguments are simplified once and its
      // rules run once, not once per level of the nest (which made max of n arguments cubic).
      cur = run_args(e, f);
    } else {
      cur = apply(f, Expr(run(e.op(0))), Expr(run(e.op(1)))).ex();
    }
  } catch (const Error&) {
    // The divisor simplified to 0: e is undefined wherever the facts hold. Leave it as written
    // rather than guess.
    return e;
  }
  if (call_of(cur) == Fn::None) return cur;  // folded by the function's own eval
  ex r;
  try {
    r = apply_rules(cur);
  } catch (const Error&) {
    r = cur;  // a rule built a division by zero: keep the call as it is
  }
  if (!r.is_equal(cur) && depth_ < kMaxDepth) {
    ++depth_;
    r = run(r);
    --depth_;
  }
  // A call whose range is one value is that value, unless the call may divide by zero (it is
  // undefined there, and the constant would not be).
  if (call_of(r) != Fn::None) {
    ValueRange rr = range(r);
    if (rr.is_point() && divisors_nonzero(r)) return ex_of(*rr.lo());
  }
  return r;
}

ex Simplifier::run_args(const ex& e, Fn f) {
  std::vector<ex> args;
  flatten_calls(e, f, args);
  for (ex& a : args) a = run(a);
  ex out = args[0];
  for (size_t i = 1; i < args.size(); ++i) out = apply(f, Expr(out), Expr(args[i])).ex();
  return out;
}

bool Simplifier::divisors_nonzero(const ex& e) {
  Fn f = call_of(e);
  if ((f == Fn::FloorDiv || f == Fn::Mod || f == Fn::CeilDiv) && !nonzero(e.op(1))) return false;
  for (size_t i = 0; i < e.nops(); ++i) {
    if (!is_number(e.op(i)) && !is_symbol(e.op(i)) && !divisors_nonzero(e.op(i))) return false;
  }
  return true;
}

ex Simplifier::apply_rules(const ex& e) {
  Fn f = call_of(e);
  switch (f) {
    case Fn::FloorDiv: return floordiv_rules(*this, e.op(0), e.op(1));
    case Fn::Mod: return mod_rules(*this, e.op(0), e.op(1));
    case Fn::CeilDiv: return ceildiv_rules(*this, e.op(0), e.op(1));
    case Fn::Max:
    case Fn::Min: return minmax_rules(*this, f, e);
    case Fn::None: break;
  }
  return e;
}

ValueRange Simplifier::range(const ex& e) {
  if (is_integer(e)) return ValueRange::point(int_of(e));
  if (auto it = ranges_.find(e); it != ranges_.end()) return it->second;
  ValueRange r;
  try {
    r = bound(Expr(e), facts_);
  } catch (const Error&) {
    r = ValueRange::all();
  }
  ranges_.emplace(e, r);
  return r;
}

ModularSet Simplifier::modular(const ex& e) {
  try {
    return modular_set(Expr(e), facts_);
  } catch (const Error&) {
    return {};
  }
}

bool Simplifier::range_is_exact(const ex& e) const {
  if (is_integer(e)) return true;
  if (!is_symbol(e)) return false;
  return facts_.assumptions_mentioning(GiNaC::ex_to<GiNaC::symbol>(e).get_name()).empty();
}

Truth Simplifier::decide(RelOp op, const ex& lhs, const ex& rhs) {
  ex key = GiNaC::lst{static_cast<int>(op), lhs, rhs};
  if (auto it = decisions_.find(key); it != decisions_.end()) return it->second;
  Truth t;
  try {
    t = prove(Cond::rel(op, Expr(lhs), Expr(rhs)), facts_);
  } catch (const Error&) {
    t = Truth::Unknown;
  }
  decisions_.emplace(key, t);
  return t;
}

// The three below settle what the range settles (including a range that shows the answer is
// no), and ask prove() only about the rest.

bool Simplifier::nonzero(const ex& e) {
  ValueRange r = range(e);
  if (!r.contains(Int(0))) return true;
  if (r.is_point() || range_is_exact(e)) return false;
  return decide(RelOp::Ne, e, 0) == Truth::True;
}

bool Simplifier::positive(const ex& e) {
  ValueRange r = range(e);
  if (r.lo() && *r.lo() > 0) return true;
  if ((r.hi() && *r.hi() <= 0) || range_is_exact(e)) return false;
  return decide(RelOp::Gt, e, 0) == Truth::True;
}

bool Simplifier::nonnegative(const ex& e) {
  ValueRange r = range(e);
  if (r.lo() && *r.lo() >= 0) return true;
  if ((r.hi() && *r.hi() < 0) || range_is_exact(e)) return false;
  return decide(RelOp::Ge, e, 0) == Truth::True;
}

bool Simplifier::below_divisor(const ex& n, const ex& d) {
  ValueRange rn = range(n), rd = range(d);
  if (rn.lo() && rd.hi() && *rn.lo() >= *rd.hi()) return false;  // n >= d everywhere
  if (rn.hi() && rd.lo() && *rn.hi() < *rd.lo()) return nonnegative(n);
  if (range_is_exact(n) && range_is_exact(d)) return false;
  return nonnegative(n) && decide(RelOp::Lt, n, d) == Truth::True;
}

bool Simplifier::term_multiple_by_divisors(const ex& t, const Int& c) const {
  // coefficient * the known divisors of the symbols in the product, each to its power.
  Term term = split_term(t);
  if (!term.coeff.is_integer()) return false;
  Int m = int_of(term.coeff);
  auto factor_divisor = [&](const ex& f) -> Int {
    if (is_symbol(f)) {
      return facts_.known_divisor(GiNaC::ex_to<GiNaC::symbol>(f).get_name());
    }
    if (is_power(f) && is_symbol(f.op(0)) && is_integer(f.op(1)) && int_of(f.op(1)) > 0) {
      Int d = facts_.known_divisor(GiNaC::ex_to<GiNaC::symbol>(f.op(0)).get_name());
      return cln::expt_pos(d, cln::cl_I_to_ulong(int_of(f.op(1))));
    }
    return 1;
  };
  if (is_mul(term.rest)) {
    for (size_t i = 0; i < term.rest.nops(); ++i) m = m * factor_divisor(term.rest.op(i));
  } else {
    m = m * factor_divisor(term.rest);
  }
  return divides(c, m);
}

const std::vector<std::pair<ex, ex>>& Simplifier::normalized_facts() {
  if (!facts_normal_) {
    facts_normal_.emplace();
    for (const Divisibility& f : facts_.divisibility()) {
      facts_normal_->emplace_back(poly_normal(f.dividend.ex()), poly_normal(f.divisor.ex()));
    }
  }
  return *facts_normal_;
}

bool Simplifier::multiple_by_facts(const ex& t, const ex& d) {
  if (is_integer(d)) {
    Int c = cln::abs(int_of(d));
    if (c == 0) return false;
    if (c == 1) return true;
    std::vector<ex> terms = terms_of(t);
    bool all = !terms.empty();
    for (const ex& term : terms) {
      if (!term_multiple_by_divisors(term, c)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  for (const auto& [p, q] : normalized_facts()) {
    if (is_number(p)) continue;
    // d | q and q | p and p | t.
    bool d_divides_q = q.is_equal(d) || poly_quotient(q, d).has_value();
    if (!d_divides_q) continue;
    if (t.is_equal(p) || poly_quotient(t, p).has_value()) return true;
  }
  return false;
}

// ---- conditions ------------------------------------------------------------------------------

namespace {

bool holds(RelOp op, const Int& v) {  // v op 0
  switch (op) {
    case RelOp::Eq: return v == 0;
    case RelOp::Ne: return v != 0;
    case RelOp::Lt: return v < 0;
    case RelOp::Le: return v <= 0;
    case RelOp::Gt: return v > 0;
    case RelOp::Ge: return v >= 0;
  }
  return false;
}

Cond simplify_cond(Simplifier& s, const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True:
    case Cond::Kind::False: return c;
    case Cond::Kind::And:
    case Cond::Kind::Or: {
      std::vector<Cond> ops;
      ops.reserve(c.operands().size());
      for (const Cond& o : c.operands()) ops.push_back(simplify_cond(s, o));
      return c.kind() == Cond::Kind::And ? Cond::all(std::move(ops)) : Cond::any(std::move(ops));
    }
    case Cond::Kind::Rel: break;
  }
  Expr l(s.run(c.lhs().ex())), r(s.run(c.rhs().ex()));
  // Both sides moved to one: constant when they differ by a constant.
  ex diff = poly_normal(l.ex() - r.ex());
  if (is_integer(diff)) return Cond::truth(holds(c.op(), int_of(diff)));
  Cond rel = Cond::rel(c.op(), l, r);
  if (rel.kind() != Cond::Kind::Rel) return rel;
  switch (s.decide(c.op(), l.ex(), r.ex())) {
    case Truth::True: return Cond::truth(true);
    case Truth::False: return Cond::truth(false);
    case Truth::Unknown: break;
  }
  return rel;
}

}  // namespace
}  // namespace detail

Expr simplify(const Expr& e, const Facts& facts) {
  detail::Simplifier s(facts);
  return Expr(s.run(e.ex()));
}

Cond simplify(const Cond& c, const Facts& facts) {
  detail::Simplifier s(facts);
  return detail::simplify_cond(s, c);
}

}  // namespace symshape
