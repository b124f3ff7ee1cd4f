// Range analysis of an Expr: one walk over the GiNaC tree computes, for every node, a rational
// range and (for the nodes known to be integers) a congruence, each tightening the other.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symshape/expr/functions.h"
#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "symshape/ranges/bound.h"
#include "symshape/ranges/interval.h"
#include "symshape/ranges/modular.h"
#include "symshape/ranges/number.h"

namespace symshape {

namespace {

using detail::Congruence;
using detail::Num;
using detail::PairsOf;
using detail::Range;

// Exponents above this are left unbounded rather than computed (the ends' powers get huge).
constexpr unsigned long kMaxExponent = 256;

// What the analysis knows about one node. `integral` says the node is an integer whatever the
// symbols are; only then does `mod` say anything (it is `nothing known` otherwise). Parts of an
// exact quotient, like (1/2)*x, are not integral; the whole expression and every function
// argument are integers (evaluation requires it), so their ranges round inward.
struct Info {
  Range range;
  Congruence mod;
  bool integral = false;
};

Info unknown() { return Info{}; }
Info rational(Range r) { return Info{std::move(r), Congruence{}, false}; }

// An integral node keeps only the integers in its range that satisfy its congruence, and a
// point range is itself a congruence (modulus 0).
Info integral(Range r, Congruence c, bool round = false) {
  if (round) r = detail::integers(r);
  if (c.known()) r = detail::tighten(r, c);
  if (r.is_point()) c = Congruence{Num(0), *r.lo};
  return Info{std::move(r), std::move(c), true};
}

Num num_of(const GiNaC::numeric& n) { return Num(cln::the<detail::Rat>(n.to_cl_N())); }

enum class Kind { Numeric, Symbol, Add, Mul, Power, Function, Other };

// The node's class, by its registered class information (detail::is_exactly).
Kind kind_of(const GiNaC::ex& e) {
  const GiNaC::registered_class_info* c = &GiNaC::ex_to<GiNaC::basic>(e).get_class_info();
  if (c == &GiNaC::numeric::get_class_info_static()) return Kind::Numeric;
  if (c == &GiNaC::symbol::get_class_info_static()) return Kind::Symbol;
  if (c == &GiNaC::add::get_class_info_static()) return Kind::Add;
  if (c == &GiNaC::mul::get_class_info_static()) return Kind::Mul;
  if (c == &GiNaC::power::get_class_info_static()) return Kind::Power;
  if (c == &GiNaC::function::get_class_info_static()) return Kind::Function;
  return Kind::Other;
}

using InfoMemo = GiNaC::exhashmap<Info>;

class Analyzer {
 public:
  explicit Analyzer(const Facts& facts, const detail::BoundOptions& options = {},
                    InfoMemo* memo = nullptr)
      : facts_(facts), options_(options), memo_(memo) {}

  // A node's analysis at the top level of the walk (not inside a rewritten sum or a case split,
  // where it depends on the walk) is a function of the node: remembered in memo_ when there is
  // one.
  Info visit(const GiNaC::ex& e) {
    if (memo_ == nullptr || depth_ != 0 || splitting_ || e.nops() == 0) return visit_node(e);
    if (auto it = memo_->find(e); it != memo_->end()) return it->second;
    Info i = visit_node(e);
    memo_->emplace(e, i);
    return i;
  }

 private:
  Info visit_node(const GiNaC::ex& e) {
    switch (kind_of(e)) {
      case Kind::Numeric: return visit_numeric(e);
      case Kind::Symbol: return visit_symbol(e);
      case Kind::Add: return visit_add(e);
      case Kind::Mul: return visit_mul(e);
      case Kind::Power: return visit_power(e);
      case Kind::Function:
        if (Fn f = function_of(e); f != Fn::None) return visit_function(f, e);
        break;
      case Kind::Other: break;
    }
    return unknown();  // not an expression of ours
  }

  static Info visit_numeric(const GiNaC::ex& e) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (n.is_integer()) {
      Num v = num_of(n);
      return Info{Range::point(v), Congruence{Num(0), v}, true};
    }
    if (n.is_rational()) return rational(Range::point(num_of(n)));
    return unknown();
  }

  Info visit_symbol(const GiNaC::ex& e) {
    // A symbol often occurs several times; the facts' lookups by name cost more than this scan
    // (by identity: one name is one interned symbol, and its name is not copied).
    for (const auto& [seen, info] : symbols_) {
      if (seen.is_equal(e)) return info;
    }
    // A symbol's analysis depends on the facts alone: remembered in memo_ too, outside a case
    // split (whose placeholder is in symbols_).
    const bool remember = memo_ != nullptr && !splitting_;
    if (remember) {
      if (auto it = memo_->find(e); it != memo_->end()) {
        symbols_.emplace_back(e, it->second);
        return it->second;
      }
    }
    const std::string& name = GiNaC::ex_to<GiNaC::symbol>(e).get_name();
    ModularSet known = facts_.known_congruence(name);
    Congruence c =
        known.modulus > 1 ? Congruence{Num::of(known.modulus), Num::of(known.base)} : Congruence{};
    Info info = integral(
        Range::of(options_.implied_ranges ? facts_.implied_range(name) : facts_.range_of(name)), c);
    symbols_.emplace_back(e, info);
    if (remember) memo_->emplace(e, info);
    return info;
  }

  Info visit_add(const GiNaC::ex& e) {
    return visit_sum(PairsOf::pairs(e), PairsOf::overall(e), &e, nullptr);
  }

  // The analysis of the sum e with these pairs and overall coefficient; or, without e and with
  // a shift, of the sum of the pairs and overall + *shift without building it. The caller of the
  // latter makes sure that sum is what GiNaC would build (RemainderTerms::shiftable) and that
  // the steps that read e as an expression would find nothing in it: no call among its terms
  // (the residue congruence and the rewritten sums look at calls only; the latter then only
  // rounds the range to integers), and no remainder split (splitting_).
  Info visit_sum(const GiNaC::epvector& pairs, const GiNaC::ex& overall, const GiNaC::ex* e,
                 const Num* shift) {
    // The terms in e.op()'s order, read on the pairs (a term rest*c is analysed as the product it
    // is without being built), then the overall coefficient.
    Info acc;
    for (size_t i = 0, n = pairs.size(); i < n; ++i) {
      Info t = visit_term(pairs[i].rest, pairs[i].coeff);
      if (i == 0) {
        acc = std::move(t);
        continue;
      }
      add_to(acc, t);
    }
    if (shift != nullptr) {
      // What visit_numeric gives for the number overall + shift.
      const Num total = num_of(GiNaC::ex_to<GiNaC::numeric>(overall)) + *shift;
      Info o = total.is_integer() ? Info{Range::point(total), Congruence{Num(0), total}, true}
                                  : rational(Range::point(total));
      if (pairs.empty()) {
        acc = std::move(o);
      } else if (!total.is_zero()) {
        add_to(acc, o);
      }
    } else if (pairs.empty()) {
      acc = visit(overall);
    } else if (!overall.is_zero()) {
      add_to(acc, visit(overall));
    }
    if (!acc.integral) return rational(std::move(acc.range));
    if (e == nullptr) {
      if (depth_ < kMaxRewriteDepth && !acc.range.is_point()) {
        acc.range = detail::integers(acc.range);
      }
      return integral(std::move(acc.range), std::move(acc.mod));
    }
    // A residue modulo a multiple of the congruence's modulus is finer: 3*x + 5 - (3*x) % 6
    // is 5 (mod 6), where term by term it is only 2 (mod 3).
    if (Congruence rc = residue_congruence(*e); rc.known()) {
      if (!acc.mod.known() ||
          (!acc.mod.modulus.is_zero() && detail::mod(rc.modulus, acc.mod.modulus).is_zero())) {
        acc.mod = rc;
      }
    }
    if (depth_ < kMaxRewriteDepth && !acc.range.is_point()) {
      ++depth_;
      acc.range = rewritten_sum(*e, detail::integers(acc.range));
      --depth_;
    }
    if (options_.remainder_splits && !splitting_ && !acc.range.is_point()) {
      acc.range = split_on_remainder(*e, detail::integers(acc.range));
    }
    return integral(std::move(acc.range), std::move(acc.mod));
  }

  static void add_to(Info& acc, const Info& t) {
    acc.range = detail::add(acc.range, t.range);
    // A non-integral term has `nothing known`, so the sum's congruence becomes that too.
    acc.mod = detail::congruence_add(acc.mod, t.mod);
    acc.integral = acc.integral && t.integral;
  }

  // The term rest*c of a sum (a pair of it): rest itself when c is 1, else the product rest*c,
  // whose factors are rest's (rest itself when it is not a product) and then c.
  Info visit_term(const GiNaC::ex& rest, const GiNaC::ex& c) {
    if (GiNaC::ex_to<GiNaC::numeric>(c).is_equal(one())) return visit(rest);
    return visit_factors(rest, &c);
  }

  static const GiNaC::numeric& one() {
    static const GiNaC::numeric n(1);
    return n;
  }

  // The range of a sum, tightened by equal forms in which terms that share symbols meet:
  // a term k*max(x, y) gives max(L + k*x, L + k*y) (min for k < 0), L being the other terms,
  // so max(a, b) - a is max(0, b - a); a term k*(E // c), c > 0, gives
  // L + (k/c)*E - (k/c)*r with r == E % c in [0, c - 1], so a - a//2 lies in [1, inf] for
  // a >= 1. `r` is an integer range; the result is too.
  Range rewritten_sum(const GiNaC::ex& e, Range r) {
    // The terms k*call with a rational k, read on the pairs (the overall coefficient is none).
    const GiNaC::epvector& pairs = PairsOf::pairs(e);
    for (size_t i = 0, n = pairs.size(); i < n && !r.is_point(); ++i) {
      const GiNaC::ex& call = pairs[i].rest;
      const auto& coeff = GiNaC::ex_to<GiNaC::numeric>(pairs[i].coeff);
      if (kind_of(call) != Kind::Function || !coeff.is_rational()) continue;
      const Num k = num_of(coeff);
      Fn f = function_of(call);
      // L, the other terms, built only for a term one of the rewrites below reads.
      auto rest_of = [&] { return e - e.op(i); };
      auto kx_of = [&] { return GiNaC::ex(GiNaC::numeric(cln::cl_N(k.rat()))); };
      Range alt;
      if (f == Fn::Max || f == Fn::Min) {
        const GiNaC::ex rest = rest_of(), kx = kx_of();
        bool as_max = (f == Fn::Max) == (k > Num(0));
        GiNaC::ex x = (rest + kx * call.op(0)).expand(), y = (rest + kx * call.op(1)).expand();
        Info a = visit(x), b = visit(y);
        if (!a.integral || !b.integral) continue;
        alt = as_max ? detail::maximum(a.range, b.range) : detail::minimum(a.range, b.range);
      } else if (f == Fn::FloorDiv && detail::is_int(call.op(1)) &&
                 detail::int_of(call.op(1)) > 0) {
        Num c = Num::of(detail::int_of(call.op(1)));
        Num kc = k * detail::reciprocal(c);
        GiNaC::ex q = GiNaC::numeric(cln::cl_N(kc.rat()));
        Info a = visit((rest_of() + q * call.op(0)).expand());
        Range remainder{Num(0), c - Num(1), false, false};
        alt = detail::integers(detail::add(a.range, detail::scale(remainder, -kc)));
      } else if (f == Fn::Mod && kind_of(call.op(1)) != Kind::Numeric) {
        // E % D for a divisor D >= 1 lies in [0, D - 1] pointwise (for D <= -1, in
        // [D + 1, 0]), so the sum lies between L and L + k*(D -+ 1): a - 5 % a >= 1.
        Info d = visit(call.op(1));
        const bool positive = d.range.lo && *d.range.lo >= Num(1);
        const bool negative = d.range.hi && *d.range.hi <= Num(-1);
        if (!positive && !negative) continue;
        const GiNaC::ex rest = rest_of();
        GiNaC::ex far = (rest + kx_of() * (call.op(1) + (positive ? -1 : 1))).expand();
        Info a = visit(rest), b = visit(far);
        if (!a.integral || !b.integral) continue;
        alt = detail::hull(a.range, b.range);
      } else {
        continue;
      }
      r = detail::intersect(r, alt);
    }
    return r;
  }

  // The range of a sum in which a symbol x occurs in several terms, at least one of them under a
  // division by a constant: by cases x == L*q + r, r in [0, L) (L the lcm of those divisors),
  // where (a*x + b) // c with c | a*L is (a*L/c)*q + (a*r + b) // c, and likewise for % and
  // ceildiv, so the terms no longer vary apart: x - x//4 for x in [0, 63] is 3*q + r - r//4,
  // in [0, 48]; x % 8 - x % 4 is in [0, 4]. The hull of the cases, within r.
  Range split_on_remainder(const GiNaC::ex& e, Range r) {
    // A term that is a call or a product with a call among its factors (read on the pairs: a
    // factor rest^c is a call when rest is one and c is 1).
    bool has_call = false;
    const GiNaC::epvector& pairs = PairsOf::pairs(e);
    for (size_t i = 0, n = pairs.size(); i < n && !has_call; ++i) {
      const GiNaC::ex& t = pairs[i].rest;
      has_call = kind_of(t) == Kind::Function;
      if (kind_of(t) != Kind::Mul) continue;
      for (const GiNaC::expair& p : PairsOf::pairs(t)) {
        if (kind_of(p.rest) == Kind::Function &&
            GiNaC::ex_to<GiNaC::numeric>(p.coeff).is_equal(one())) {
          has_call = true;
          break;
        }
      }
    }
    if (!has_call) return r;
    // symbol -> lcm of the constant divisors over it (few: a small vector, no names built).
    std::vector<std::pair<GiNaC::ex, Int>> lcm_of;
    collect_divisors(e, lcm_of);
    if (lcm_of.empty()) return r;
    // The first by name, so that the answer does not depend on GiNaC's term order.
    std::sort(lcm_of.begin(), lcm_of.end(), [](const auto& a, const auto& b) {
      return GiNaC::ex_to<GiNaC::symbol>(a.first).get_name() <
             GiNaC::ex_to<GiNaC::symbol>(b.first).get_name();
    });
    for (const auto& [x, l] : lcm_of) {
      if (l > kMaxSplitCases) continue;
      size_t mentions = 0;
      for (size_t i = 0; i < pairs.size() && mentions < 2; ++i) {
        mentions += pairs[i].rest.has(x) ? 1 : 0;
      }
      if (mentions < 2) continue;
      return detail::intersect(r, split_cases(e, x, l, r));
    }
    return r;
  }

  // Adds, for each division by a constant c > 1 in e, c to the lcm of every symbol of its
  // dividend. Recursive (GiNaC's preorder iterator allocates; this runs on every sum).
  static void collect_divisors(const GiNaC::ex& e, std::vector<std::pair<GiNaC::ex, Int>>& out) {
    switch (kind_of(e)) {
      case Kind::Numeric:
      case Kind::Symbol:
      case Kind::Other: return;
      case Kind::Function: {
        Fn f = function_of(e);
        if ((f == Fn::FloorDiv || f == Fn::Mod || f == Fn::CeilDiv) && detail::is_int(e.op(1)) &&
            detail::int_of(e.op(1)) > 1) {
          add_symbols(e.op(0), detail::int_of(e.op(1)), out);
        }
        break;
      }
      case Kind::Add:
      case Kind::Mul:
        // The pairs' rests (their coefficients and the overall one are numbers).
        for (const GiNaC::expair& p : PairsOf::pairs(e)) collect_divisors(p.rest, out);
        return;
      default: break;
    }
    for (size_t i = 0, n = e.nops(); i < n; ++i) collect_divisors(e.op(i), out);
  }

  static void add_symbols(const GiNaC::ex& e, const Int& c,
                          std::vector<std::pair<GiNaC::ex, Int>>& out) {
    if (kind_of(e) == Kind::Symbol) {
      auto entry =
          std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first.is_equal(e); });
      if (entry == out.end()) {
        out.emplace_back(e, c);
      } else {
        entry->second = cln::lcm(entry->second, c);
      }
      return;
    }
    if (kind_of(e) == Kind::Add || kind_of(e) == Kind::Mul) {
      for (const GiNaC::expair& p : PairsOf::pairs(e)) add_symbols(p.rest, c, out);
      return;
    }
    for (size_t i = 0, n = e.nops(); i < n; ++i) add_symbols(e.op(i), c, out);
  }

  // The hull of the cases' ranges, or a range holding `within` once the cases seen hold it (the
  // caller intersects the answer with `within`, so the cases left cannot change it then).
  Range split_cases(const GiNaC::ex& e, const GiNaC::ex& x, const Int& l, const Range& within) {
    const bool within_known = !within.is_empty();
    static const GiNaC::ex q = Expr::symbol("%q").ex();  // no parsed name has a %
    static const GiNaC::ex r = Expr::symbol("%r").ex();
    const Info xi = visit_symbol(x);
    const Num L = Num::of(l);
    Range out = Range::empty();
    splitting_ = true;
    symbols_.emplace_back(q, Info{});
    const size_t slot = symbols_.size() - 1;
    // e rewritten once with the remainder a symbol r, each case then putting its value in, when
    // every choice of the rewrite is the same whatever r is (see SplitRewrite): building the
    // rewrite per case cost more than bounding it.
    std::optional<GiNaC::ex> shared;
    bool shared_tried = false;
    // The shared rewrite as (terms without r) + (terms in r alone), when it is a sum that splits
    // so: a case is then the first part plus the second's value, no substitution (see
    // RemainderTerms).
    std::optional<RemainderTerms> parts;
    for (Int rem = 0; rem < l; rem = rem + 1) {
      Num rn = Num::of(rem);
      // x == L*q + rem within x's range and congruence.
      if (xi.mod.known()) {
        Num g = detail::gcd(xi.mod.modulus, L);
        if (!g.is_zero() && !detail::mod(rn - xi.mod.base, g).is_zero()) continue;
      }
      Range qr;
      if (xi.range.lo) qr.lo = detail::floordiv(*xi.range.lo - rn + L - Num(1), L);
      if (xi.range.hi) qr.hi = detail::floordiv(*xi.range.hi - rn, L);
      if (qr.is_empty()) continue;
      symbols_[slot].second = integral(qr, Congruence{});
      GiNaC::ex rewritten;
      std::optional<Num> value;
      try {
        if (!shared_tried) {
          // Built at the first case that needs it, so that it throws where that case would.
          shared_tried = true;
          SplitRewrite t{x, q, l, detail::ex_of(l) * q + r, &r};
          GiNaC::ex built = t.run(e);
          if (t.uniform) {
            shared = std::move(built);
            parts = RemainderTerms::of(*shared, r);
          }
        }
        if (parts) value = parts->value_at(r, rn);
        if (value && parts->shiftable(*value)) {
          // Analysed below as others + value, not built.
        } else if (value) {
          rewritten = parts->others + GiNaC::numeric(cln::cl_N(value->rat()));
        } else if (shared) {
          rewritten =
              shared->subs(GiNaC::exmap{{r, detail::ex_of(rem)}}, GiNaC::subs_options::no_pattern);
        } else {
          rewritten = SplitRewrite{x, q, l, detail::ex_of(l) * q + detail::ex_of(rem)}.run(e);
        }
      } catch (const Error&) {
        out = Range::all();
        break;
      }
      Info c = value && parts->shiftable(*value)
                   ? visit_sum(parts->terms, parts->constant, nullptr, &*value)
                   : visit(rewritten);
      out = detail::hull(out, c.integral ? c.range : detail::integers(c.range));
      if (within_known && holds(out, within)) break;
    }
    symbols_.erase(symbols_.begin() + static_cast<std::ptrdiff_t>(slot));
    splitting_ = false;
    return out;
  }

  // A sum split into the terms without the symbol r (`others`, with the overall coefficient) and
  // the terms in r alone (no other symbol). With r == v put in, each of the latter is a number,
  // so the sum is others + their total: the same expression as the substitution gives (GiNaC
  // folds the numbers into the overall coefficient and leaves the other terms as they are),
  // built with one addition instead of a walk and rebuild of every term. value_at is nullopt
  // where a term does not come out as a number GiNaC would fold (a division by zero, a
  // non-integer argument or exponent): the caller substitutes then.
  struct RemainderTerms {
    GiNaC::ex sum;  // keeps the pairs below alive
    GiNaC::ex others;
    std::vector<const GiNaC::expair*> in_r;
    GiNaC::epvector terms;    // others' terms as the pairs of a sum
    GiNaC::ex constant = 0;   // and its constant
    bool calls_free = false;  // see shiftable()

    static std::optional<RemainderTerms> of(const GiNaC::ex& sum, const GiNaC::ex& r) {
      if (kind_of(sum) != Kind::Add) return std::nullopt;
      RemainderTerms out;
      out.sum = sum;
      out.others = PairsOf::overall(sum);
      for (const GiNaC::expair& p : PairsOf::pairs(out.sum)) {
        if (!p.rest.has(r)) {
          out.others += p.rest * p.coeff;
        } else if (only_symbol(p.rest, r)) {
          out.in_r.push_back(&p);
        } else {
          return std::nullopt;
        }
      }
      // others as the terms and constant of a sum, as GiNaC splits a term into a pair: a sum
      // as it is, a symbol s as (s, 1), a product c*f of one factor as (f, c).
      const GiNaC::ex& o = out.others;
      if (kind_of(o) == Kind::Add) {
        out.terms = PairsOf::pairs(o);
        out.constant = PairsOf::overall(o);
      } else if (kind_of(o) == Kind::Symbol) {
        out.terms.emplace_back(o, GiNaC::ex(1));
      } else if (kind_of(o) == Kind::Mul && PairsOf::pairs(o).size() == 1 &&
                 GiNaC::ex_to<GiNaC::numeric>(PairsOf::pairs(o)[0].coeff).is_equal(one())) {
        out.terms.emplace_back(PairsOf::pairs(o)[0].rest, PairsOf::overall(o));
      } else {
        return out;  // not shiftable
      }
      out.calls_free = !out.terms.empty() &&
                       GiNaC::ex_to<GiNaC::numeric>(out.constant).is_rational() &&
                       std::all_of(out.terms.begin(), out.terms.end(), [](const GiNaC::expair& p) {
                         return kind_of(p.rest) != Kind::Function &&
                                GiNaC::ex_to<GiNaC::numeric>(p.coeff).is_rational();
                       });
      return out;
    }

    // Whether others + v, the sum of `terms` and constant + v, is a sum GiNaC builds with these
    // pairs, which visit_sum can analyse unbuilt: two terms or more, or one and a nonzero
    // constant (GiNaC makes a lone term the term itself).
    bool shiftable(const Num& v) const {
      if (!calls_free) return false;
      if (terms.size() >= 2) return true;
      return !(num_of(GiNaC::ex_to<GiNaC::numeric>(constant)) + v).is_zero();
    }

    // On Num (exact; int64 values without CLN calls).
    std::optional<Num> value_at(const GiNaC::ex& r, const Num& v) const {
      Num total(0);
      for (const GiNaC::expair* p : in_r) {
        std::optional<Num> t = value(p->rest, r, v), c = rational(p->coeff);
        if (!t || !c) return std::nullopt;
        total = total + *t * *c;
      }
      return total;
    }

    // Whether every symbol of e is r.
    static bool only_symbol(const GiNaC::ex& e, const GiNaC::ex& r) {
      if (kind_of(e) == Kind::Symbol) return e.is_equal(r);
      for (size_t i = 0, n = e.nops(); i < n; ++i) {
        if (!only_symbol(e.op(i), r)) return false;
      }
      return true;
    }

    static std::optional<Num> rational(const GiNaC::ex& e) {
      if (kind_of(e) != Kind::Numeric || !GiNaC::ex_to<GiNaC::numeric>(e).is_rational()) {
        return std::nullopt;
      }
      return num_of(GiNaC::ex_to<GiNaC::numeric>(e));
    }

    static std::optional<Num> integer(const std::optional<Num>& q) {
      if (!q || !q->is_integer()) return std::nullopt;
      return q;
    }

    // e's value at r == v, e having no other symbol.
    static std::optional<Num> value(const GiNaC::ex& e, const GiNaC::ex& r, const Num& v) {
      switch (kind_of(e)) {
        case Kind::Numeric: return rational(e);
        case Kind::Symbol: return v;
        case Kind::Add:
        case Kind::Mul: {
          const bool sum = kind_of(e) == Kind::Add;
          std::optional<Num> acc = rational(PairsOf::overall(e));
          if (!acc) return std::nullopt;
          for (const GiNaC::expair& p : PairsOf::pairs(e)) {
            std::optional<Num> x = value(p.rest, r, v), c = rational(p.coeff);
            if (!x || !c) return std::nullopt;
            if (sum) {
              acc = *acc + *x * *c;
            } else {
              std::optional<Num> f = power_of(*x, integer(c));
              if (!f) return std::nullopt;
              acc = *acc * *f;
            }
          }
          return acc;
        }
        case Kind::Power: {
          std::optional<Num> b = value(e.op(0), r, v);
          if (!b) return std::nullopt;
          return power_of(*b, integer(rational(e.op(1))));
        }
        case Kind::Function: {
          const Fn f = function_of(e);
          std::optional<Num> a = integer(value(e.op(0), r, v));
          std::optional<Num> b = integer(value(e.op(1), r, v));
          if (f == Fn::None || !a || !b) return std::nullopt;
          switch (f) {
            case Fn::FloorDiv:
              if (b->is_zero()) return std::nullopt;
              return detail::floordiv(*a, *b);
            case Fn::Mod:
              if (b->is_zero()) return std::nullopt;
              return detail::mod(*a, *b);
            case Fn::CeilDiv:
              if (b->is_zero()) return std::nullopt;
              return -detail::floordiv(-*a, *b);
            case Fn::Max: return *a >= *b ? *a : *b;
            case Fn::Min: return *a <= *b ? *a : *b;
            case Fn::None: break;
          }
          return std::nullopt;
        }
        case Kind::Other: break;
      }
      return std::nullopt;
    }

    // b**n for an integer n (nullopt otherwise, and for 0 to a negative power).
    static std::optional<Num> power_of(const Num& b, const std::optional<Num>& n) {
      if (!n || detail::abs(*n) > Num(static_cast<int64_t>(kMaxExponent))) return std::nullopt;
      const auto k = static_cast<unsigned long>(detail::abs(*n).small_value());
      if (n->sign() < 0) {
        if (b.is_zero()) return std::nullopt;
        return detail::reciprocal(detail::power(b, k));
      }
      return detail::power(b, k);
    }
  };

  // Whether the closed range outer holds the nonempty closed range inner.
  static bool holds(const Range& outer, const Range& inner) {
    if (outer.is_empty()) return false;
    return (!outer.lo || (inner.lo && *outer.lo <= *inner.lo)) &&
           (!outer.hi || (inner.hi && *outer.hi >= *inner.hi));
  }

  // e with x == l*q + rem put in, divisions by constants that divide q's coefficient split.
  // With `placeholder`, rem is that symbol, and `uniform` says whether putting a value v in for it
  // afterwards gives what the rewrite with rem == v gives: false when a choice could depend on
  // the value (a divisor, a max or min argument or the q-coefficient of a dividend holding it, a
  // dividend not linear in q, a node of another kind).
  struct SplitRewrite {
    const GiNaC::ex& x;
    const GiNaC::ex& q;
    const Int& l;
    GiNaC::ex replacement;  // l*q + rem
    const GiNaC::ex* placeholder = nullptr;
    bool uniform = true;

    GiNaC::ex run(const GiNaC::ex& e) {
      if (e.is_equal(x)) return replacement;
      if (!e.has(x)) return e;
      Fn f = function_of(e);
      if (f == Fn::None) return rebuild(e);
      GiNaC::ex a = run(e.op(0)).expand();
      GiNaC::ex b = run(e.op(1)).expand();
      // Whether a is linear in q, and its q-coefficient: each computed once, when first asked
      // (both tests below read them).
      std::optional<bool> linear;
      auto linear_in_q = [&] {
        if (!linear) linear = a.is_polynomial(q) && a.degree(q) == 1;
        return *linear;
      };
      std::optional<GiNaC::ex> slope;
      auto q_coefficient = [&]() -> const GiNaC::ex& {
        if (!slope) slope = a.coeff(q, 1);
        return *slope;
      };
      if (placeholder && uniform) {
        const GiNaC::ex& p = *placeholder;
        if (b.has(p) || ((f == Fn::Max || f == Fn::Min) && a.has(p)) ||
            (a.has(q) && a.is_polynomial(q) && (!linear_in_q() || q_coefficient().has(p)))) {
          uniform = false;
        }
      }
      if ((f == Fn::FloorDiv || f == Fn::Mod || f == Fn::CeilDiv) && detail::is_int(b) &&
          detail::int_of(b) > 0 && linear_in_q() && detail::is_int(q_coefficient())) {
        Int k = detail::int_of(q_coefficient()), c = detail::int_of(b);
        GiNaC::ex rest = a.coeff(q, 0);
        if (cln::mod(k, c) == 0 && !rest.has(q)) {
          GiNaC::ex kq = detail::ex_of(cln::exquo(k, c)) * q;
          switch (f) {
            case Fn::FloorDiv: return kq + apply(f, Expr(rest), Expr(b)).ex();
            case Fn::CeilDiv: return kq + apply(f, Expr(rest), Expr(b)).ex();
            default: return apply(f, Expr(rest), Expr(b)).ex();
          }
        }
      }
      return apply(f, Expr(a), Expr(b)).ex();
    }

    // A sum, product or power with its operands rewritten.
    GiNaC::ex rebuild(const GiNaC::ex& e) {
      switch (kind_of(e)) {
        case Kind::Add: {
          GiNaC::ex acc = 0;
          for (size_t i = 0; i < e.nops(); ++i) acc += run(e.op(i));
          return acc.expand();
        }
        case Kind::Mul: {
          GiNaC::ex acc = 1;
          for (size_t i = 0; i < e.nops(); ++i) acc *= run(e.op(i));
          return acc;
        }
        case Kind::Power: return GiNaC::pow(run(e.op(0)), e.op(1));
        default: break;
      }
      if (placeholder) uniform = false;
      return e.subs(x == replacement);
    }
  };

  // A congruence of a sum whose terms share a symbol through a remainder: for a term
  // k*(E % c) with a constant c, E % c == E (mod c), so s + (8 - s % 8) % 8 == 0 (mod 8).
  // The sum's residue modulo c is computed as a polynomial, remainders by multiples of c
  // replaced by their dividends; a constant residue is a congruence.
  static Congruence residue_congruence(const GiNaC::ex& e) {
    Congruence best;
    // The terms k*(E % c), read on the pairs (rest E % c, any coefficient).
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      const GiNaC::ex& t = p.rest;
      if (function_of(t) != Fn::Mod || !detail::is_int(t.op(1))) continue;
      Int m = cln::abs(detail::int_of(t.op(1)));
      if (m <= 1 || (best.known() && cln::mod(best.modulus.to_int(), m) == 0)) continue;
      // Read on the tree first; built as a polynomial only where that reading stops.
      LinearResidue lr;
      const Reading reading = linear_residue(e, 1, m, lr);
      if (reading == Reading::NoResidue) continue;
      if (reading == Reading::Read) {
        const bool constant = std::all_of(lr.monomials.begin(), lr.monomials.end(),
                                          [](const auto& mk) { return cln::zerop(mk.second); });
        if (!constant) continue;
        if (!best.known() || m > best.modulus.to_int()) {
          best = detail::make_congruence(Num::of(m), Num::of(lr.constant));
        }
        continue;
      }
      auto r = residue(e, m);
      if (!r) continue;
      GiNaC::ex reduced = 0;
      for (const GiNaC::ex& term : terms(r->expand())) {
        GiNaC::ex rest = term;
        Int k = 1;
        if (kind_of(term) == Kind::Numeric) {
          if (!detail::is_int(term)) return Congruence{};
          k = detail::int_of(term);
          rest = 1;
        } else if (kind_of(term) == Kind::Mul && detail::is_int(term.op(term.nops() - 1))) {
          k = detail::int_of(term.op(term.nops() - 1));
          rest = term / term.op(term.nops() - 1);
        }
        k = cln::mod(k, m);
        if (k != 0) reduced += detail::ex_of(k) * rest;
      }
      if (!detail::is_int(reduced)) continue;
      if (!best.known() || m > best.modulus.to_int()) {
        best = detail::make_congruence(Num::of(m), Num::of(detail::int_of(reduced)));
      }
    }
    return best;
  }

  // residue(e, m) with its terms' coefficients reduced modulo m, read without building it, for
  // the sums whose residue is linear in its monomials (products and powers of atoms): each
  // monomial's coefficient and the constant, modulo m. The expanded residue's terms are these
  // monomials (expand leaves a product of atoms, and a call's arguments, as they are), so it is
  // constant exactly when every coefficient here is 0. NoResidue where residue() is nullopt;
  // Unsupported where the residue is not read so (a product with a sum or a remainder by a
  // multiple of m among its factors, a product with a coefficient and several factors): the
  // caller builds it then.
  enum class Reading { Read, NoResidue, Unsupported };
  struct LinearResidue {
    std::vector<std::pair<GiNaC::ex, Int>> monomials;
    Int constant = 0;
    void add(const GiNaC::ex& monomial, const Int& k, const Int& m) {
      for (auto& [seen, c] : monomials) {
        if (seen.is_equal(monomial)) {
          c = cln::mod(c + k, m);
          return;
        }
      }
      monomials.emplace_back(monomial, cln::mod(k, m));
    }
  };

  // A remainder by a nonzero multiple of m, which residue() replaces by its dividend's residue.
  static bool reducible(const GiNaC::ex& e, const Int& m) {
    return function_of(e) == Fn::Mod && detail::is_int(e.op(1)) && detail::int_of(e.op(1)) != 0 &&
           cln::mod(detail::int_of(e.op(1)), m) == 0;
  }

  // An atom of the residue: a symbol, or a call that residue() keeps.
  static bool residue_atom(const GiNaC::ex& e, const Int& m) {
    if (kind_of(e) == Kind::Symbol) return true;
    return kind_of(e) == Kind::Function && function_of(e) != Fn::None && !reducible(e, m);
  }

  static Reading linear_residue(const GiNaC::ex& e, const Int& k, const Int& m,
                                LinearResidue& out) {
    switch (kind_of(e)) {
      case Kind::Numeric:
        if (!detail::is_int(e)) return Reading::NoResidue;
        out.constant = cln::mod(out.constant + k * detail::int_of(e), m);
        return Reading::Read;
      case Kind::Symbol: out.add(e, k, m); return Reading::Read;
      case Kind::Add: {
        for (const GiNaC::expair& p : PairsOf::pairs(e)) {
          if (!detail::is_int(p.coeff)) return Reading::NoResidue;
          Reading r = linear_residue(p.rest, k * detail::int_of(p.coeff), m, out);
          if (r != Reading::Read) return r;
        }
        return linear_residue(PairsOf::overall(e), k, m, out);
      }
      case Kind::Mul: {
        const GiNaC::ex& overall = PairsOf::overall(e);
        if (!detail::is_int(overall)) return Reading::NoResidue;
        const GiNaC::epvector& pairs = PairsOf::pairs(e);
        for (const GiNaC::expair& p : pairs) {
          if (!detail::is_int(p.coeff) || detail::int_of(p.coeff) < 0) return Reading::NoResidue;
          if (!residue_atom(p.rest, m)) return Reading::Unsupported;
        }
        const Int c = detail::int_of(overall);
        if (c == 1) {
          out.add(e, k, m);
        } else if (pairs.size() == 1 && detail::int_of(pairs[0].coeff) == 1) {
          out.add(pairs[0].rest, k * c, m);
        } else {
          return Reading::Unsupported;
        }
        return Reading::Read;
      }
      case Kind::Power:
        if (!detail::is_int(e.op(1)) || detail::int_of(e.op(1)) < 0) return Reading::NoResidue;
        if (!residue_atom(e.op(0), m)) return Reading::Unsupported;
        out.add(e, k, m);
        return Reading::Read;
      case Kind::Function:
        if (reducible(e, m)) return linear_residue(e.op(0), k, m, out);
        if (function_of(e) == Fn::None) return Reading::NoResidue;
        out.add(e, k, m);
        return Reading::Read;
      case Kind::Other: break;
    }
    return Reading::NoResidue;
  }

  static std::vector<GiNaC::ex> terms(const GiNaC::ex& e) {
    std::vector<GiNaC::ex> out;
    if (kind_of(e) == Kind::Add) {
      for (size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
    } else {
      out.push_back(e);
    }
    return out;
  }

  // R with e == R (mod m) at every integer point: remainders by multiples of m are replaced by
  // their dividends, other calls kept as integer atoms. nullopt for non-integer coefficients.
  static std::optional<GiNaC::ex> residue(const GiNaC::ex& e, const Int& m) {
    switch (kind_of(e)) {
      case Kind::Numeric:
        if (!detail::is_int(e)) return std::nullopt;
        return detail::ex_of(cln::mod(detail::int_of(e), m));
      case Kind::Symbol: return e;
      case Kind::Add:
      case Kind::Mul: {
        GiNaC::ex acc = kind_of(e) == Kind::Add ? GiNaC::ex(0) : GiNaC::ex(1);
        for (size_t i = 0; i < e.nops(); ++i) {
          auto r = residue(e.op(i), m);
          if (!r) return std::nullopt;
          acc = kind_of(e) == Kind::Add ? acc + *r : acc * *r;
        }
        return acc;
      }
      case Kind::Power: {
        if (!detail::is_int(e.op(1)) || detail::int_of(e.op(1)) < 0) return std::nullopt;
        auto r = residue(e.op(0), m);
        if (!r) return std::nullopt;
        return GiNaC::pow(*r, e.op(1));
      }
      case Kind::Function:
        if (function_of(e) == Fn::Mod && detail::is_int(e.op(1)) && detail::int_of(e.op(1)) != 0 &&
            cln::mod(detail::int_of(e.op(1)), m) == 0) {
          return residue(e.op(0), m);
        }
        if (function_of(e) != Fn::None) return e;
        return std::nullopt;
      case Kind::Other: break;
    }
    return std::nullopt;
  }

  Info visit_mul(const GiNaC::ex& e) { return visit_factors(e, nullptr); }

  // The product of e's factors (e itself when it is not a product) and then of *last, if given.
  Info visit_factors(const GiNaC::ex& e, const GiNaC::ex* last) {
    Info acc{Range::point(Num(1)), Congruence{Num(0), Num(1)}, true};
    Num coeff(1);
    bool first = true;
    auto factor = [&](const GiNaC::ex& f) {
      if (kind_of(f) == Kind::Numeric && GiNaC::ex_to<GiNaC::numeric>(f).is_rational()) {
        coeff = coeff * num_of(GiNaC::ex_to<GiNaC::numeric>(f));
        return;
      }
      Info t = visit(f);
      if (first && !t.range.is_empty()) {
        // 1 * t: the range itself, and the congruence 1 * t.mod is t.mod with its base reduced.
        first = false;
        acc.range = std::move(t.range);
        acc.integral = t.integral;
        acc.mod = t.integral ? detail::make_congruence(t.mod.modulus, t.mod.base) : Congruence{};
        return;
      }
      first = false;
      acc.range = detail::multiply(acc.range, t.range);
      // The product rule for congruences holds for integer factors only.
      acc.integral = acc.integral && t.integral;
      acc.mod = acc.integral ? detail::congruence_multiply(acc.mod, t.mod) : Congruence{};
    };
    if (kind_of(e) == Kind::Mul) {
      for (size_t i = 0, n = e.nops(); i < n; ++i) factor(e.op(i));
    } else {
      factor(e);
    }
    if (last != nullptr) factor(*last);
    acc.range = detail::scale(acc.range, coeff);
    if (!acc.integral) return rational(std::move(acc.range));
    if (coeff.is_integer()) {
      return integral(std::move(acc.range),
                      detail::congruence_multiply(acc.mod, Congruence{Num(0), coeff}));
    }
    // (p/q) * x is an integer when the congruence of p*x shows that q divides it.
    detail::Rat c = coeff.rat();
    Congruence scaled = detail::congruence_multiply(
        acc.mod, Congruence{Num(0), Num(detail::Rat(cln::numerator(c)))});
    auto divided = detail::congruence_divide_exact(scaled, Num(detail::Rat(cln::denominator(c))));
    if (!divided) return rational(std::move(acc.range));
    return integral(std::move(acc.range), std::move(*divided), /*round=*/true);
  }

  Info visit_power(const GiNaC::ex& e) {
    const GiNaC::ex& exponent = e.op(1);
    if (!detail::is_int(exponent)) return unknown();
    Int n = detail::int_of(exponent);
    Int magnitude = cln::abs(n);
    if (magnitude > kMaxExponent) return unknown();
    unsigned long k = cln::cl_I_to_ulong(magnitude);
    Info base = visit(e.op(0));
    Range r = detail::power(base.range, k);
    if (cln::minusp(n)) return rational(detail::reciprocal(r));
    if (!base.integral) return rational(std::move(r));
    return integral(std::move(r), detail::congruence_power(base.mod, k));
  }

  Info visit_function(Fn f, const GiNaC::ex& e) {
    // A product divided by one of its factors (n % s, n // s for n == b*s rewritten in):
    // where the division is defined, the remainder is 0 and the quotient the cofactor.
    if ((f == Fn::Mod || f == Fn::FloorDiv) && kind_of(e.op(0)) == Kind::Mul &&
        kind_of(e.op(1)) != Kind::Numeric) {
      GiNaC::ex q = e.op(0) * GiNaC::pow(e.op(1), -1);
      if (detail::has_integer_coefficients(q)) {
        if (f == Fn::Mod) return integral(Range::point(Num(0)), Congruence{Num(0), Num(0)});
        return visit(q);
      }
    }
    Info a = visit(e.op(0)), b = visit(e.op(1));
    // Function arguments are integers; integral nodes are already rounded.
    Range ra = a.integral ? std::move(a.range) : detail::integers(a.range);
    Range rb = b.integral ? std::move(b.range) : detail::integers(b.range);
    switch (f) {
      case Fn::FloorDiv:
        return integral(detail::floordiv(ra, rb), detail::congruence_floordiv(a.mod, b.mod));
      case Fn::Mod: return integral(detail::mod(ra, rb), detail::congruence_mod(a.mod, b.mod));
      case Fn::CeilDiv: {
        // ceildiv(a, b) == -((-a) // b)
        Congruence c = detail::congruence_negate(
            detail::congruence_floordiv(detail::congruence_negate(a.mod), b.mod));
        return integral(detail::negate(detail::floordiv(detail::negate(ra), rb)), c);
      }
      case Fn::Max:
        return integral(detail::maximum(ra, rb), detail::congruence_union(a.mod, b.mod));
      case Fn::Min:
        return integral(detail::minimum(ra, rb), detail::congruence_union(a.mod, b.mod));
      case Fn::None: break;
    }
    return unknown();
  }

  static constexpr int kMaxRewriteDepth = 3;
  // Remainder case splits are tried for moduli up to this (one bound of the sum per case).
  static constexpr int kMaxSplitCases = 16;
  bool splitting_ = false;
  const Facts& facts_;
  const detail::BoundOptions options_;
  std::vector<std::pair<GiNaC::ex, Info>> symbols_;
  int depth_ = 0;
  InfoMemo* memo_;
};

}  // namespace

namespace {

// The analysis of e with the assumed equalities rewritten in (p == h*w: p % h is 0), a second
// sound one; nullopt when they do not change e.
std::optional<Info> rewritten_analysis(Analyzer& a, const Expr& e, const Facts& facts) {
  if (facts.substitutions().empty()) return std::nullopt;
  Expr s = facts.substitute(e);
  if (s.identical(e)) return std::nullopt;
  return a.visit(s.ex());
}

// The same, from the plain analysis's range already rounded.
ValueRange narrowed(ValueRange r, const std::optional<Info>& rewritten) {
  if (rewritten) {
    ValueRange both = r.intersect(rewritten->range.value_range());
    if (!both.is_empty()) r = both;
  }
  return r;
}

// The range of e's analysis, narrowed by the rewritten one (unless they contradict).
ValueRange narrowed(const Info& plain, const std::optional<Info>& rewritten) {
  // The expression is an integer, so its range rounds inward even when its parts are rational.
  return narrowed(plain.range.value_range(), rewritten);
}

// The congruence of e's analysis, or of the rewritten one when there is one.
ModularSet congruence(const Info& plain, const std::optional<Info>& rewritten) {
  const Info& i = rewritten ? *rewritten : plain;
  return i.integral ? i.mod.modular_set() : ModularSet{};
}

bool congruence_unknown(const Info& i) { return !i.integral || !i.mod.known(); }

}  // namespace

namespace detail {

// Bounds by projection are sought under at most this many assumptions.
constexpr size_t kMaxLinearFacts = 32;

ValueRange bound_with(const Expr& e, const Facts& facts, const BoundOptions& options) {
  Analyzer a(facts, options);
  const Info plain = a.visit(e.ex());
  ValueRange r = plain.range.value_range();
  if (options.substitutions && !r.is_point()) r = narrowed(plain, rewritten_analysis(a, e, facts));
  if (options.linear_facts && !r.is_point() && !facts.assumptions().empty() &&
      facts.assumptions().size() <= kMaxLinearFacts) {
    bool connected = false;
    for (const std::string& s : e.free_symbols()) {
      if (!facts.assumptions_mentioning(s).empty()) {
        connected = true;
        break;
      }
    }
    if (connected) {
      ValueRange both = r.intersect(linear_range(e, facts));
      if (!both.is_empty()) r = both;  // empty: contradictory facts, keep the plain range
    }
  }
  return r;
}

struct AnalysisMemo::Table {
  InfoMemo infos;
};
AnalysisMemo::AnalysisMemo() : table_(std::make_unique<Table>()) {}
AnalysisMemo::~AnalysisMemo() = default;
size_t AnalysisMemo::size() const { return table_->infos.size(); }
void AnalysisMemo::clear() { table_->infos.clear(); }

namespace {

RangeAndModular range_and_modular_with(const Expr& e, const Facts& facts, InfoMemo* memo) {
  Analyzer a(facts, BoundOptions{}, memo);
  const Info plain = a.visit(e.ex());
  ValueRange range = plain.range.value_range();
  const bool range_wants = !range.is_point();
  const bool modular_wants = congruence_unknown(plain);
  std::optional<Info> rewritten;
  if (range_wants || modular_wants) rewritten = rewritten_analysis(a, e, facts);
  return {narrowed(std::move(range), range_wants ? rewritten : std::nullopt),
          congruence(plain, modular_wants ? rewritten : std::nullopt)};
}

}  // namespace

RangeAndModular range_and_modular_set(const Expr& e, const Facts& facts) {
  return range_and_modular_with(e, facts, nullptr);
}

RangeAndModular range_and_modular_set(const Expr& e, const Facts& facts, AnalysisMemo& memo) {
  return range_and_modular_with(e, facts, &memo.table().infos);
}

}  // namespace detail

ValueRange bound(const Expr& e, const Facts& facts) {
  detail::BoundOptions options;
  options.linear_facts = true;
  return detail::bound_with(e, facts, options);
}

ModularSet modular_set(const Expr& e, const Facts& facts) {
  Analyzer a(facts);
  const Info plain = a.visit(e.ex());
  return congruence(plain,
                    congruence_unknown(plain) ? rewritten_analysis(a, e, facts) : std::nullopt);
}

}  // namespace symshape
