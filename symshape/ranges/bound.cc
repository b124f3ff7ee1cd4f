// Range analysis of an Expr: one walk over the GiNaC tree computes, for every node, a rational
// range and (for the nodes known to be integers) a congruence, each tightening the other.
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "symshape/expr/functions.h"
#include "symshape/facts.h"
#include "symshape/ranges.h"
#include "symshape/ranges/interval.h"
#include "symshape/ranges/modular.h"
#include "symshape/ranges/number.h"

namespace symshape {

namespace {

using detail::Congruence;
using detail::Num;
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

// The node's class. Comparing type_info addresses is a load and a compare, where is_a<> is a
// dynamic_cast and is_exactly_a<> may strcmp the type names; the is_a<> chain catches
// subclasses (and type_info objects that are not unique).
Kind kind_of(const GiNaC::ex& e) {
  const std::type_info* t = &typeid(GiNaC::ex_to<GiNaC::basic>(e));
  if (t == &typeid(GiNaC::numeric)) return Kind::Numeric;
  if (t == &typeid(GiNaC::symbol)) return Kind::Symbol;
  if (t == &typeid(GiNaC::add)) return Kind::Add;
  if (t == &typeid(GiNaC::mul)) return Kind::Mul;
  if (t == &typeid(GiNaC::power)) return Kind::Power;
  if (t == &typeid(GiNaC::function)) return Kind::Function;
  if (GiNaC::is_a<GiNaC::numeric>(e)) return Kind::Numeric;
  if (GiNaC::is_a<GiNaC::symbol>(e)) return Kind::Symbol;
  if (GiNaC::is_a<GiNaC::add>(e)) return Kind::Add;
  if (GiNaC::is_a<GiNaC::mul>(e)) return Kind::Mul;
  if (GiNaC::is_a<GiNaC::power>(e)) return Kind::Power;
  if (GiNaC::is_a<GiNaC::function>(e)) return Kind::Function;
  return Kind::Other;
}

class Analyzer {
 public:
  explicit Analyzer(const Facts& facts) : facts_(facts) {}

  Info visit(const GiNaC::ex& e) {
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

 private:
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
    std::string name = GiNaC::ex_to<GiNaC::symbol>(e).get_name();
    // A symbol often occurs several times; the facts' lookups by name cost more than this scan.
    for (const auto& [seen, info] : symbols_) {
      if (seen == name) return info;
    }
    ModularSet known = facts_.known_congruence(name);
    Congruence c =
        known.modulus > 1 ? Congruence{Num::of(known.modulus), Num::of(known.base)} : Congruence{};
    Info info = integral(Range::of(facts_.range_of(name)), c);
    symbols_.emplace_back(std::move(name), info);
    return info;
  }

  Info visit_add(const GiNaC::ex& e) {
    size_t n = e.nops();
    Info acc = visit(e.op(0));
    for (size_t i = 1; i < n; ++i) {
      Info t = visit(e.op(i));
      acc.range = detail::add(acc.range, t.range);
      // A non-integral term has `nothing known`, so the sum's congruence becomes that too.
      acc.mod = detail::congruence_add(acc.mod, t.mod);
      acc.integral = acc.integral && t.integral;
    }
    if (!acc.integral) return rational(std::move(acc.range));
    if (depth_ < kMaxRewriteDepth && !acc.range.is_point()) {
      ++depth_;
      acc.range = rewritten_sum(e, detail::integers(acc.range));
      --depth_;
    }
    return integral(std::move(acc.range), std::move(acc.mod));
  }

  // The range of a sum, tightened by equal forms in which terms that share symbols meet:
  // a term k*max(x, y) gives max(L + k*x, L + k*y) (min for k < 0), L being the other terms,
  // so max(a, b) - a is max(0, b - a); a term k*(E // c), c > 0, gives
  // L + (k/c)*E - (k/c)*r with r == E % c in [0, c - 1], so a - a//2 lies in [1, inf] for
  // a >= 1. `r` is an integer range; the result is too.
  Range rewritten_sum(const GiNaC::ex& e, Range r) {
    for (size_t i = 0, n = e.nops(); i < n && !r.is_point(); ++i) {
      const GiNaC::ex& t = e.op(i);
      GiNaC::ex call = t;
      Num k(1);
      if (kind_of(t) == Kind::Mul && t.nops() == 2 && kind_of(t.op(1)) == Kind::Numeric &&
          GiNaC::ex_to<GiNaC::numeric>(t.op(1)).is_rational()) {
        call = t.op(0);
        k = num_of(GiNaC::ex_to<GiNaC::numeric>(t.op(1)));
      }
      if (kind_of(call) != Kind::Function) continue;
      Fn f = function_of(call);
      GiNaC::ex rest = e - t;
      GiNaC::ex kx = GiNaC::numeric(cln::cl_N(k.rat()));
      Range alt;
      if (f == Fn::Max || f == Fn::Min) {
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
        Info a = visit((rest + q * call.op(0)).expand());
        Range remainder{Num(0), c - Num(1), false, false};
        alt = detail::integers(detail::add(a.range, detail::scale(remainder, -kc)));
      } else {
        continue;
      }
      r = detail::intersect(r, alt);
    }
    return r;
  }

  Info visit_mul(const GiNaC::ex& e) {
    Info acc{Range::point(Num(1)), Congruence{Num(0), Num(1)}, true};
    Num coeff(1);
    for (size_t i = 0, n = e.nops(); i < n; ++i) {
      const GiNaC::ex f = e.op(i);
      if (kind_of(f) == Kind::Numeric && GiNaC::ex_to<GiNaC::numeric>(f).is_rational()) {
        coeff = coeff * num_of(GiNaC::ex_to<GiNaC::numeric>(f));
        continue;
      }
      Info t = visit(f);
      acc.range = detail::multiply(acc.range, t.range);
      // The product rule for congruences holds for integer factors only.
      acc.integral = acc.integral && t.integral;
      acc.mod = acc.integral ? detail::congruence_multiply(acc.mod, t.mod) : Congruence{};
    }
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
  const Facts& facts_;
  std::vector<std::pair<std::string, Info>> symbols_;
  int depth_ = 0;
};

}  // namespace

ValueRange bound(const Expr& e, const Facts& facts) {
  // The expression is an integer, so its range rounds inward even when its parts are rational.
  return Analyzer(facts).visit(e.ex()).range.value_range();
}

ModularSet modular_set(const Expr& e, const Facts& facts) {
  Info i = Analyzer(facts).visit(e.ex());
  return i.integral ? i.mod.modular_set() : ModularSet{};
}

}  // namespace symshape
