// The rules for floor division, modulo and ceiling division. Both arguments are first brought to
// polynomials with integer coefficients (exact quotients cleared: a // b == (a*k) // (b*k)).
// Every rule that needs a sign or a nonzero divisor asks the simplifier, and does nothing when
// that is not shown; a rule whose result no longer divides by d (so would be defined where
// a // d is not) needs d != 0.
#include <cln/integer.h>

#include <algorithm>

#include "symshape/expr/functions.h"
#include "symshape/simplify/simplifier.h"

namespace symshape::detail {

namespace {

ex make_floordiv(const ex& a, const ex& b) { return floordiv(Expr(a), Expr(b)).ex(); }
ex make_mod(const ex& a, const ex& b) { return mod(Expr(a), Expr(b)).ex(); }
ex make_ceildiv(const ex& a, const ex& b) { return ceildiv(Expr(a), Expr(b)).ex(); }

// The call f(n, d): `call` itself when it is that call (the rules' input, handed back when no
// rule fired, without building an equal call), else a new one.
ex remake(const ex& call, Fn f, const ex& n, const ex& d) {
  if (call_of(call) == f && call.op(0).is_equal(n) && call.op(1).is_equal(d)) return call;
  switch (f) {
    case Fn::FloorDiv: return make_floordiv(n, d);
    case Fn::Mod: return make_mod(n, d);
    default: return make_ceildiv(n, d);
  }
}

// A polynomial with its terms, taken apart once for the several rules that walk them (each
// term of a sum with a coefficient is a product GiNaC builds when asked for it).
struct Sum {
  explicit Sum(const ex& e) : e(e), terms(terms_of(e)) {}
  ex e;
  std::vector<ex> terms;
};

// n split into the terms that are multiples of d (divided by d: `quotient`) and the others
// (`rest`). A constant divisor also splits the constant term: k == c*(k // c) + k % c.
struct Split {
  ex quotient = 0;
  ex rest = 0;
  bool moved = false;  // some term went to the quotient
};

// e / g for an integer g != 0 that divides e's content (every coefficient and the constant): the
// coefficients of e's sum or product divided where they are, then in polynomial normal form (a
// no-op unless e was not), so exact_quotient(e, g) without building e * g^-1 first.
ex divide_content(const ex& e, const Int& g) {
  if (is_integer(e)) return ex_of(cln::exquo(int_of(e), g));
  const bool sum = is_add(e);
  if (!sum && !is_mul(e)) return exact_quotient(e, ex_of(g));
  const ex& overall = PairsOf::overall(e);
  if (!is_integer(overall)) return exact_quotient(e, ex_of(g));
  const GiNaC::epvector& pairs = PairsOf::pairs(e);
  GiNaC::epvector out;
  if (sum) {
    out.reserve(pairs.size());
    for (const GiNaC::expair& p : pairs) {
      if (!is_integer(p.coeff)) return exact_quotient(e, ex_of(g));
      out.emplace_back(p.rest, ex_of(cln::exquo(int_of(p.coeff), g)));
    }
    return poly_normal(
        GiNaC::dynallocate<GiNaC::add>(std::move(out), ex_of(cln::exquo(int_of(overall), g))));
  }
  // A product's factors stay; its numeric coefficient is divided. k*t / k is t (a factor
  // t^1, as GiNaC would evaluate the product).
  const Int k = cln::exquo(int_of(overall), g);
  if (k == 1 && pairs.size() == 1 && pairs[0].coeff.is_equal(1)) return poly_normal(pairs[0].rest);
  out = pairs;
  return poly_normal(GiNaC::dynallocate<GiNaC::mul>(std::move(out), ex_of(k)));
}

// gcd(integer_content(n), integer_content(d)), n's content not read when d's is 1 (a divisor
// such as x or x + 1).
Int common_content(const ex& n, const ex& d) {
  // A symbol, call or power has coefficient 1.
  if (!is_add(d) && !is_mul(d) && !is_number(d)) return 1;
  Int cd = integer_content(d);
  if (cd == 1) return cd;
  return cln::gcd(integer_content(n), cd);
}

// The sum of the terms rest*coeff of `terms` (GiNaC's pairs) and a constant, built from the
// pairs (no term is built, none is split again).
ex sum_of_pairs(GiNaC::epvector&& terms, const Int& constant) {
  if (terms.empty()) return ex_of(constant);
  // One term rest*1 and no constant: the sum GiNaC would build evaluates to rest.
  if (terms.size() == 1 && cln::zerop(constant) && terms[0].coeff.is_equal(1)) {
    return terms[0].rest;
  }
  return GiNaC::dynallocate<GiNaC::add>(std::move(terms), ex_of(constant));
}

// -n + k in polynomial normal form, for n in normal form: a sum's pairs negated where they are
// (no -n built and then added to).
ex negated_plus(const ex& n, const Int& k) {
  if (is_mul(n) && is_integer(PairsOf::overall(n))) {
    return poly_normal(divide_content(n, -1) + ex_of(k));  // -(m*t) is (-m)*t
  }
  if (!is_add(n) || !is_integer(PairsOf::overall(n))) {
    return poly_normal(poly_normal(-n) + ex_of(k));
  }
  GiNaC::epvector pairs = PairsOf::pairs(n);
  for (GiNaC::expair& p : pairs) p.coeff = GiNaC::ex_to<GiNaC::numeric>(p.coeff).mul(-1);
  return poly_normal(sum_of_pairs(std::move(pairs), k - int_of(PairsOf::overall(n))));
}

// split_multiples for a sum n and a constant c != 0, read on n's pairs (rest, coefficient): a
// moved term rest*k is the pair (rest, k/c) of the quotient, and the pairs that stay make the rest,
// so no term is built and neither sum is built from terms. Without divisibility facts a term with
// an integer coefficient is a multiple of c by its coefficient alone (multiple_by_facts would
// answer the same), so the facts are asked only when there are some.
Split split_sum_by_constant(Simplifier& s, const ex& n, const Int& c) {
  const bool facts = !s.facts().divisibility().empty();
  const ex cx = ex_of(c);
  const GiNaC::epvector& pairs = PairsOf::pairs(n);
  // Which pairs move; none is recorded until the first does.
  std::vector<char> moves;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const GiNaC::numeric& k = GiNaC::ex_to<GiNaC::numeric>(pairs[i].coeff);
    bool multiple = k.is_integer() && divides(c, int_of(pairs[i].coeff));
    if (!multiple && (facts || !k.is_integer())) multiple = s.multiple_by_facts(n.op(i), cx);
    if (multiple && moves.empty()) moves.assign(pairs.size(), 0);
    if (multiple) moves[i] = 1;
  }
  // The constant term k == c*(k // c) + k % c.
  const Int k = int_of(PairsOf::overall(n));
  const Int q = floor_div(k, c);
  Split out;
  out.moved = !moves.empty() || q != 0;
  if (!out.moved) {  // every term stayed as it was: the rest is n (not rebuilt)
    out.rest = n;
    return out;
  }
  GiNaC::epvector quotient, rest;
  if (moves.empty()) {
    rest = pairs;
  } else {
    const GiNaC::numeric inverse = GiNaC::numeric(1) / GiNaC::ex_to<GiNaC::numeric>(cx);
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (!moves[i]) {
        rest.push_back(pairs[i]);
        continue;
      }
      quotient.emplace_back(pairs[i].rest,
                            GiNaC::ex_to<GiNaC::numeric>(pairs[i].coeff).mul(inverse));
    }
  }
  out.quotient = sum_of_pairs(std::move(quotient), q);
  out.rest = sum_of_pairs(std::move(rest), k - q * c);
  return out;
}

Split split_multiples(Simplifier& s, const Sum& n, const ex& d) {
  if (is_add(n.e) && is_integer(d)) return split_sum_by_constant(s, n.e, int_of(d));
  std::vector<ex> quotient, rest;
  const bool constant = is_integer(d);
  const bool facts = !s.facts().divisibility().empty();
  const Int c = constant ? int_of(d) : Int(0);
  for (const ex& t : n.terms) {
    if (constant) {
      if (is_integer(t)) {
        Int k = int_of(t), q = floor_div(k, c);
        if (q == 0) {
          rest.push_back(t);
          continue;
        }
        quotient.push_back(ex_of(q));
        if (k - q * c != 0) rest.push_back(ex_of(k - q * c));
        continue;
      }
      // Without divisibility facts, multiple_by_facts would look at an integer coefficient
      // alone (see split_sum_by_constant).
      const GiNaC::numeric coeff = coefficient_of(t);
      if ((coeff.is_integer() && divides(c, int_of(coeff))) ||
          ((facts || !coeff.is_integer()) && s.multiple_by_facts(t, d))) {
        quotient.push_back(t * GiNaC::pow(d, -1));
        continue;
      }
    } else if (auto q = poly_quotient(t, d)) {
      quotient.push_back(*q);
      continue;
    } else if (s.multiple_by_facts(t, d)) {
      quotient.push_back(exact_quotient(t, d));
      continue;
    }
    rest.push_back(t);
  }
  Split out;
  out.moved = !quotient.empty();
  if (!out.moved) {  // every term stayed as it was: the rest is n (not rebuilt)
    out.rest = n.e;
    return out;
  }
  out.quotient = sum_of(quotient);
  out.rest = sum_of(rest);
  return out;
}

// t as coeff * atom with atom a symbol or a function call (not a product, sum or number):
// split_term(t) when its rest is such an atom, read off without building the rest.
struct AtomTerm {
  GiNaC::numeric coeff;
  ex atom;
};
std::optional<AtomTerm> atom_term(const ex& t) {
  if (is_symbol(t) || call_of(t) != Fn::None) return AtomTerm{GiNaC::numeric(1), t};
  if (is_mul(t) && t.nops() == 2 && is_number(t.op(1))) {
    const ex& atom = t.op(0);
    if (is_symbol(atom) || call_of(atom) != Fn::None) {
      return AtomTerm{GiNaC::ex_to<GiNaC::numeric>(t.op(1)), atom};
    }
  }
  return std::nullopt;
}

// d's written sign is negative: -x, -2*y, -x - y.
bool looks_negative(const ex& d) {
  std::vector<ex> terms = terms_of(d);
  if (terms.empty()) return false;
  for (const ex& t : terms) {
    if (coefficient_of(t).is_nonneg_integer()) return false;
  }
  return true;
}

// ---- floor division ----------------------------------------------------------------------------

// Rule: nested division, (x // a + k) // d == (x + k*a) // (a*d) for d > 0 and a constant k
// (any a != 0): x // a + k == (x + k*a) // a, and floor(floor(r) / d) == floor(r / d).
std::optional<ex> merge_nested(Simplifier& s, const Sum& n, const ex& d) {
  ex inner, k = 0;
  for (const ex& t : n.terms) {
    if (is_integer(t)) {
      k = t;
    } else if (call_of(t) == Fn::FloorDiv && inner.is_zero()) {
      inner = t;
    } else {
      return std::nullopt;
    }
  }
  if (inner.is_zero() || !s.positive(d)) return std::nullopt;
  const ex& a = inner.op(1);
  return make_floordiv(poly_normal(inner.op(0) + k * a), poly_normal(a * d));
}

// Rule: r // c for a constant c > 0 when a range, a modular set or the facts settle it:
// r in [k*c, k*c + c - 1] gives k; r == m (mod c) gives (r - m) / c, an exact quotient.
// r is the rest split_multiples left (not a constant), so without divisibility facts it is no
// multiple of c: multiple_by_facts would look at the coefficients alone, and every term whose
// coefficient c divides has moved (the constant term is in [0, c)).
std::optional<ex> floordiv_remainder_by_facts(Simplifier& s, const ex& r, const Int& c) {
  if (!s.facts().divisibility().empty() && s.multiple_by_facts(r, ex_of(c))) {
    return exact_quotient(r, ex_of(c));
  }
  ModularSet ms = s.modular(r);
  if (ms.modulus == 0) return ex_of(floor_div(ms.base, c));
  if (divides(c, ms.modulus)) {
    Int m = cln::mod(ms.base, c);
    return exact_quotient(r - ex_of(m), ex_of(c));
  }
  ValueRange rr = s.range(r);
  if (rr.lo() && rr.hi()) {
    Int k = floor_div(*rr.lo(), c);
    if (k == floor_div(*rr.hi(), c)) return ex_of(k);
  }
  return std::nullopt;
}

// n split as g*q + r with 1 < g < c, g | c, and r in [k*g, k*g + g - 1]: the terms of n whose
// coefficients g divides (divided by g, with k added: `quotient`) and the others (`rest`, r - k*g,
// in [0, g - 1]). Then n // c == quotient // (c/g) and n % c == g*(quotient % (c/g)) + rest,
// as floor((g*q + r)/(g*c')) == floor(floor((g*q + r)/g)/c') == (q + k) // c'. The largest such
// g is taken.
struct BlockSplit {
  Int g;
  ex quotient, rest;
};

std::optional<BlockSplit> split_blocks(Simplifier& s, const Sum& n, const Int& c) {
  const std::vector<ex>& terms = n.terms;
  if (terms.size() < 2 || !is_add(n.e) || !is_integer(PairsOf::overall(n.e))) return std::nullopt;
  const GiNaC::epvector& pairs = PairsOf::pairs(n.e);
  const Int constant = int_of(PairsOf::overall(n.e));
  std::vector<Int> candidates;
  for (const GiNaC::expair& p : pairs) {  // the non-constant terms' coefficients
    if (!is_integer(p.coeff)) return std::nullopt;
    Int g = cln::gcd(int_of(p.coeff), c);
    if (g > 1 && g < c) candidates.push_back(g);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Int& a, const Int& b) { return a > b; });
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Int& g = candidates[i];
    if (i > 0 && candidates[i - 1] == g) continue;
    // On n's pairs: the multiples' pairs (rest, coeff), the others' pairs and the constant.
    GiNaC::epvector multiples, others;
    for (const GiNaC::expair& p : pairs) {
      (divides(g, int_of(p.coeff)) ? multiples : others).push_back(p);
    }
    if (others.empty() && constant == 0) continue;
    ex r = sum_of_pairs(std::move(others), constant);
    ValueRange rr = s.range(r);
    if (!rr.lo() || !rr.hi()) continue;
    Int k = floor_div(*rr.lo(), g);
    if (k != floor_div(*rr.hi(), g)) continue;
    const GiNaC::numeric inverse = GiNaC::numeric(1) / GiNaC::ex_to<GiNaC::numeric>(ex_of(g));
    for (GiNaC::expair& p : multiples) p.coeff = GiNaC::ex_to<GiNaC::numeric>(p.coeff).mul(inverse);
    ex q = poly_normal(sum_of_pairs(std::move(multiples), k));
    // r - k*g: r's pairs with the constant lowered (r is rebuilt, as its pairs were moved).
    ex rest = cln::zerop(k) ? r
              : is_add(r)   ? sum_of_pairs(GiNaC::epvector(PairsOf::pairs(r)),
                                           int_of(PairsOf::overall(r)) - k * g)
                            : r - ex_of(k * g);
    return BlockSplit{g, q, poly_normal(rest)};
  }
  return std::nullopt;
}

// Rule: in (S + m*(E % d)) % c with c | d, E % d may be replaced by E: the two differ by a
// multiple of d, so of c. Also for a symbolic c with d == c or d == -c. Returns n with every
// such term replaced (n itself when none is).
ex drop_inner_mods(const ex& n, const ex& c) {
  // Whether the factor f is such a remainder E % d.
  auto droppable = [&](const ex& f) {
    if (call_of(f) != Fn::Mod) return false;
    const ex& d = f.op(1);
    if (is_integer(d) && is_integer(c)) {
      return !cln::zerop(int_of(c)) && divides(int_of(c), int_of(d));
    }
    return d.is_equal(c) || poly_normal(d + c).is_zero();
  };
  // A term's factors, read in place (a sum's pairs: rest * coeff; a product's factors).
  auto any_factor = [&](const ex& t) {
    if (!is_mul(t)) return droppable(t);
    for (size_t i = 0; i < t.nops(); ++i) {
      if (droppable(t.op(i))) return true;
    }
    return false;
  };
  // Most sums have none: looked for before any term is built.
  bool found = false;
  if (is_add(n)) {
    for (const GiNaC::expair& p : PairsOf::pairs(n)) found = found || any_factor(p.rest);
  } else {
    found = any_factor(n);
  }
  if (!found) return n;
  std::vector<ex> out;
  for (const ex& t : terms_of(n)) {
    std::vector<ex> factors;
    if (is_mul(t)) {
      for (size_t i = 0; i < t.nops(); ++i) factors.push_back(t.op(i));
    } else {
      factors.push_back(t);
    }
    ex term = 1;
    for (const ex& f : factors) term = term * (droppable(f) ? f.op(0) : f);
    out.push_back(term);
  }
  return poly_normal(sum_of(out));
}

// Rule: a function of one remainder r == E % c2 (2 <= c2 <= 16) that is linear over its values
// r in [0, c2 - 1]: n == m*r + k gives (n // c or n % c) == a + b*r when that holds at every r:
// (x % 2 + 1)//2 == x % 2, (x % 2 + 7) // 2 == x % 2 + 3.
std::optional<ex> linear_in_remainder(const Sum& n, const Int& c, bool floor) {
  ex call;
  Int m = 0, k = 0;
  for (const ex& t : n.terms) {
    if (is_integer(t)) {
      k = int_of(t);
      continue;
    }
    std::optional<AtomTerm> term = atom_term(t);
    if (!call.is_zero() || !term || call_of(term->atom) != Fn::Mod || !term->coeff.is_integer()) {
      return std::nullopt;
    }
    call = term->atom;
    m = int_of(term->coeff);
  }
  if (call.is_zero() || !is_integer(call.op(1))) return std::nullopt;
  const Int c2 = int_of(call.op(1));
  if (c2 < 2 || c2 > 16) return std::nullopt;
  auto value = [&](const Int& r) {
    Int v = m * r + k;
    return floor ? floor_div(v, c) : cln::mod(v, c);
  };
  const Int a = value(0), b = value(1) - a;
  for (Int r = 2; r < c2; r = r + 1) {
    if (value(r) != a + b * r) return std::nullopt;
  }
  return ex_of(a) + ex_of(b) * call;
}

// n with the coefficients reduced (see mod_by_constant); nullopt when none is.
std::optional<ex> reduce_coefficients(const Sum& n, const Int& c) {
  const std::vector<ex>& terms = n.terms;
  // Most sums have no such coefficient: looked for (on a sum's pairs) before any term is split.
  auto large = [&](const GiNaC::numeric& coeff) {
    return coeff.is_integer() && cln::abs(cln::the<Int>(coeff.to_cl_N())) >= c;
  };
  const bool some = is_add(n.e)
                        ? std::any_of(PairsOf::pairs(n.e).begin(), PairsOf::pairs(n.e).end(),
                                      [&](const GiNaC::expair& p) {
                                        return large(GiNaC::ex_to<GiNaC::numeric>(p.coeff));
                                      })
                        : !is_integer(n.e) && large(coefficient_of(n.e));
  if (!some) return std::nullopt;
  std::vector<ex> out;
  bool changed = false;
  for (const ex& t : terms) {
    Term term = split_term(t);
    if (!is_integer(t) && term.coeff.is_integer() && cln::abs(int_of(term.coeff)) >= c &&
        integer_polynomial(term.rest)) {
      out.push_back(ex_of(cln::mod(int_of(term.coeff), c)) * term.rest);
      changed = true;
    } else {
      out.push_back(t);
    }
  }
  if (!changed) return std::nullopt;
  return poly_normal(sum_of(out));
}

// Rule: a symbol x of n that takes two values a, a + 1 under the facts: n // c (or n % c) is
// f(a) + (x - a)*(f(a + 1) - f(a)), f(v) being the division with v put for x and simplified,
// taken when that difference is a constant: (360*x + y)//16 == 22*x for x in [0, 1] and
// y in [0, 6]. (Wherever the facts hold, x is a or a + 1, and each f(v) equals the division
// with x == v there.)
std::optional<ex> two_valued(Simplifier& s, const Sum& n, const Int& c, bool floor) {
  for (const ex& t : n.terms) {
    std::optional<AtomTerm> term = atom_term(t);
    if (!term || !is_symbol(term->atom)) continue;
    const ex& x = term->atom;
    ValueRange r = s.range(x);
    if (!r.lo() || !r.hi() || *r.hi() - *r.lo() != 1) continue;
    const Int a = *r.lo();
    auto at = [&](const Int& v) {
      ex nv = poly_normal(n.e.subs(x == ex_of(v)));
      return s.run(floor ? floordiv(Expr(nv), Expr(ex_of(c))).ex()
                         : mod(Expr(nv), Expr(ex_of(c))).ex());
    };
    ex lo = at(a), hi = at(a + 1);
    ex step = poly_normal(hi - lo);
    if (!is_integer(step)) continue;
    return poly_normal(lo + step * (x - ex_of(a)));
  }
  return std::nullopt;
}

// Every non-constant term of n has a negative integer coefficient, and there is one:
// -x, -(E // a) + 3.
bool negative_numerator(const Sum& n) {
  bool found = false;
  for (const ex& t : n.terms) {
    if (is_integer(t)) continue;
    const GiNaC::numeric coeff = coefficient_of(t);
    if (!coeff.is_integer() || !coeff.is_negative()) return false;
    found = true;
  }
  return found;
}

// n // c for a constant c != 0 (`call` is the call the rules were asked about).
ex floordiv_by_constant(Simplifier& s, const ex& call, ex n, Int c) {
  if (c < 0) {  // a // c == (-a) // (-c)
    n = -n;
    c = -c;
  }
  if (is_integer(n)) return ex_of(floor_div(int_of(n), c));
  // Rule: cancel the common content, (6*x) // 4 == (3*x) // 2.
  Int g = cln::gcd(integer_content(n), c);
  if (g > 1) {
    n = divide_content(n, g);
    c = cln::exquo(c, g);
  }
  if (c == 1) return n;
  // Rule: ((x // a) % b) // c == (x // (a*c)) % (b // c) for b > 0 and c | b: with
  // E == b*k + r, E // c == (b/c)*k + r // c and r // c < b/c.
  if (call_of(n) == Fn::Mod && call_of(n.op(0)) == Fn::FloorDiv && is_integer(n.op(1)) &&
      int_of(n.op(1)) > 0 && divides(c, int_of(n.op(1)))) {
    return make_mod(make_floordiv(n.op(0), ex_of(c)), ex_of(cln::exquo(int_of(n.op(1)), c)));
  }
  // Rule: a negated numerator, (-y) // c == -((y + c - 1) // c) for c > 0, so that quotients
  // have positive terms and meet their negations: (-x)//4 == -((x + 3)//4), and a nested
  // quotient then merges, (-(x//2))//3 == -((x//2 + 2)//3) == -((x + 4)//6).
  const Sum sum(n);
  if (negative_numerator(sum)) {
    return -make_floordiv(negated_plus(n, c - 1), ex_of(c));
  }
  // Rule: pull multiples out, (c*x + y) // c == x + y // c.
  const ex cx = ex_of(c);
  Split sp = split_multiples(s, sum, cx);
  if (is_integer(sp.rest)) return sp.quotient;  // the rest is a constant in [0, c)
  // The rest's terms: n's when nothing moved.
  std::optional<Sum> moved_rest;
  if (sp.moved) moved_rest.emplace(sp.rest);
  const Sum& rest = sp.moved ? *moved_rest : sum;
  // quotient + q, without building a sum when nothing moved.
  auto plus_quotient = [&](const ex& q) { return sp.moved ? sp.quotient + q : q; };
  if (auto q = floordiv_remainder_by_facts(s, sp.rest, c)) return plus_quotient(*q);
  if (auto merged = merge_nested(s, rest, cx)) return plus_quotient(*merged);
  // Rule: bounded low terms, (8*x + y) // 16 == x // 2 for y in [0, 7].
  if (auto b = split_blocks(s, rest, c)) {
    return plus_quotient(make_floordiv(b->quotient, ex_of(cln::exquo(c, b->g))));
  }
  // Rule: 0 <= r < c gives 0 (beyond what the range showed: relations between symbols).
  if (s.below_divisor(sp.rest, cx)) return sp.quotient;
  if (auto l = linear_in_remainder(rest, c, true)) return plus_quotient(*l);
  if (auto v = two_valued(s, rest, c, true)) return plus_quotient(*v);
  return plus_quotient(remake(call, Fn::FloorDiv, sp.rest, cx));
}

// n // d for a non-constant d (`call` is the call the rules were asked about).
ex floordiv_by_expression(Simplifier& s, const ex& call, ex n, ex d) {
  if (looks_negative(d)) {  // a // d == (-a) // (-d)
    n = -n;
    d = -d;
  }
  // Rule: cancel a common constant, (2*x) // (2*y) == x // y.
  Int g = common_content(n, d);
  if (g > 1) return make_floordiv(divide_content(n, g), divide_content(d, g));
  // Rule: ((x // a) % b) // c == (x // (a*c)) % (b / c) for b > 0, c > 0 and c | b.
  if (call_of(n) == Fn::Mod && call_of(n.op(0)) == Fn::FloorDiv) {
    if (auto q = poly_quotient(n.op(1), d); q && s.positive(d) && s.positive(n.op(1))) {
      return make_mod(make_floordiv(n.op(0), d), *q);
    }
  }
  // Rule: exact polynomial division, (a*a - b*b) // (a + b) == a - b (needs d != 0).
  if (auto q = poly_quotient(n, d); q && s.nonzero(d)) return *q;
  // Rule: a divisibility fact says d | n, so n // d is the exact quotient.
  if (s.multiple_by_facts(n, d) && s.nonzero(d)) return exact_quotient(n, d);
  // Rule: cancel a common factor, (x*y) // (x*z) == y // z (needs d != 0, so the factor is).
  if (auto cf = common_symbolic_factor(n, d); cf && s.nonzero(d)) {
    return make_floordiv(cf->n, cf->d);
  }
  // Rule: pull multiples out, (d*x + y) // d == x + y // d.
  // When every term moved, d | n but d != 0 was not shown: keep the division (and its error).
  const Sum sum(n);
  Split sp = split_multiples(s, sum, d);
  if (sp.moved && !sp.rest.is_zero()) return sp.quotient + make_floordiv(sp.rest, d);
  if (auto merged = merge_nested(s, sum, d)) return *merged;
  // Rule: 0 <= n < d gives 0.
  if (s.below_divisor(n, d)) return 0;
  return remake(call, Fn::FloorDiv, n, d);
}

// ---- modulo ------------------------------------------------------------------------------------

// n % c for a constant c != 0 (the result takes c's sign; `call` is the call the rules were
// asked about).
ex mod_by_constant(Simplifier& s, const ex& call, const ex& n, const Int& c) {
  if (is_integer(n)) return ex_of(cln::mod(int_of(n), c));
  if (c == 1 || c == -1) return 0;
  const ex cx = ex_of(c);
  if (s.calls_in(n) & fn_bit(Fn::Mod)) {  // drop_inner_mods looks for % calls
    if (ex m = drop_inner_mods(n, cx); !m.is_equal(n)) return make_mod(m, cx);
  }
  // Rule: drop multiples of c, (c*x + y) % c == y % c; the constant term is reduced mod c.
  const Sum sum(n);
  Split sp = split_multiples(s, sum, cx);
  if (is_integer(sp.rest)) return ex_of(cln::mod(int_of(sp.rest), c));
  // Rule: a coefficient m with |m| >= |c| of an integer term t is reduced modulo c (the two
  // differ by a multiple of c*t): (9600*x) % 6400 == (3200*x) % 6400, (3*x) % 2 == x % 2.
  std::optional<Sum> moved_rest, reduced;
  if (sp.moved) moved_rest.emplace(sp.rest);
  const Sum& split_rest = sp.moved ? *moved_rest : sum;  // n's terms when nothing moved
  if (std::optional<ex> m = reduce_coefficients(split_rest, cln::abs(c))) reduced.emplace(*m);
  const Sum& rs = reduced ? *reduced : split_rest;  // r's terms
  const ex& r = rs.e;
  // Rule: a common factor comes out, (6*x) % 4 == 2*((3*x) % 2).
  Int g = cln::gcd(integer_content(r), cln::abs(c));
  if (g > 1) {
    return ex_of(g) * make_mod(divide_content(r, g), ex_of(cln::exquo(c, g)));
  }
  // Rule: (x % a) % c == x % c when c divides a.
  if (call_of(r) == Fn::Mod && is_integer(r.op(1)) && divides(c, int_of(r.op(1)))) {
    return make_mod(r.op(0), cx);
  }
  // Rule: ((x % a) // b) % c == (x % (b*c)) // b for a, b, c > 0 and b*c | a: both are
  // (x // b) % c, as b | a and c | a/b.
  if (c > 0 && call_of(r) == Fn::FloorDiv && call_of(r.op(0)) == Fn::Mod && is_integer(r.op(1)) &&
      is_integer(r.op(0).op(1))) {
    Int b = int_of(r.op(1)), a = int_of(r.op(0).op(1));
    if (b > 0 && a > 0 && divides(b * c, a)) {
      return make_floordiv(make_mod(r.op(0).op(0), ex_of(b * c)), ex_of(b));
    }
  }
  // Rule: a modular set fixes the residue: r == m (mod k) and c | k give m % c.
  ModularSet ms = s.modular(r);
  if (ms.modulus == 0 || divides(c, ms.modulus)) return ex_of(cln::mod(ms.base, c));
  // Rule: r within one period: r in [k*c, k*c + c - 1] (c > 0) gives r - k*c.
  ValueRange rr = s.range(r);
  if (rr.lo() && rr.hi()) {
    Int k = floor_div(*rr.lo(), c);
    if (k == floor_div(*rr.hi(), c)) return poly_normal(r - ex_of(k * c));
  }
  if (c > 0 && s.below_divisor(r, cx)) return r;
  if (auto l = linear_in_remainder(rs, c, false)) return *l;
  if (auto v = two_valued(s, rs, c, false)) return *v;
  // Rule: bounded low terms, (32*x + y) % 64 == 32*(x % 2) + y for y in [0, 31].
  if (c > 0) {
    if (auto b = split_blocks(s, rs, c)) {
      return ex_of(b->g) * make_mod(b->quotient, ex_of(cln::exquo(c, b->g))) + b->rest;
    }
  }
  return remake(call, Fn::Mod, r, cx);
}

// n % d for a non-constant d (`call` is the call the rules were asked about).
ex mod_by_expression(Simplifier& s, const ex& call, const ex& n, const ex& d) {
  if (ex m = drop_inner_mods(n, d); !m.is_equal(n)) return make_mod(m, d);
  // Rule: a common constant comes out, (2*x) % (2*y) == 2*(x % y).
  Int g = common_content(n, d);
  if (g > 1) {
    return ex_of(g) * make_mod(divide_content(n, g), divide_content(d, g));
  }
  // Rule: d divides n (polynomially or by a fact) gives 0 (needs d != 0).
  if ((poly_quotient(n, d) || s.multiple_by_facts(n, d)) && s.nonzero(d)) return 0;
  // Rule: a common factor comes out, (a*k) % (b*k) == k*(a % b) for k != 0: the quotients
  // (a*k) / (b*k) and a / b are the same rational, so (a*k) // (b*k) == a // b and
  // a*k - b*k*(a // b) == k*(a % b).
  if (auto cf = common_symbolic_factor(n, d); cf && s.nonzero(cf->g)) {
    return cf->g * make_mod(cf->n, cf->d);
  }
  // Rule: drop multiples of d, (d*x + y) % d == y % d.
  Split sp = split_multiples(s, Sum(n), d);
  if (sp.moved && !sp.rest.is_zero()) return make_mod(sp.rest, d);
  // Rule: 0 <= n < d gives n.
  if (s.below_divisor(n, d)) return n;
  return remake(call, Fn::Mod, n, d);
}

ex mod_core(Simplifier& s, const ex& call, const ex& n, const ex& d) {
  return is_integer(d) ? mod_by_constant(s, call, n, int_of(d)) : mod_by_expression(s, call, n, d);
}

// -t, where a term -(r // d) becomes ceildiv(-r, d).
ex negate_back(const ex& t) {
  std::vector<ex> out;
  for (const ex& term : terms_of(t)) {
    if (call_of(term) == Fn::FloorDiv) {
      out.push_back(make_ceildiv(poly_normal(-term.op(0)), term.op(1)));
    } else {
      out.push_back(-term);
    }
  }
  return sum_of(out);
}

}  // namespace

ex floordiv_rules(Simplifier& s, const ex& call) {
  const ex a = call.op(0), b = call.op(1);
  if (a.is_zero() && s.nonzero(b)) return 0;
  auto q = integer_quotient(a, b);
  if (!q) return call;
  if (is_integer(q->d)) return floordiv_by_constant(s, call, q->n, int_of(q->d));
  return floordiv_by_expression(s, call, q->n, q->d);
}

ex mod_rules(Simplifier& s, const ex& call) {
  const ex a = call.op(0), b = call.op(1);
  if (a.is_zero() && s.nonzero(b)) return 0;
  auto q = integer_quotient(a, b);
  if (!q) return call;
  if (q->scale.is_equal(1)) return mod_core(s, call, q->n, q->d);
  // a % b == ((a*k) % (b*k)) / k. Taken only when the remainder went away: otherwise the
  // scaled form is no simpler.
  ex r = mod_core(s, call, q->n, q->d);
  if (skeleton_has(r, Fn::Mod)) return call;
  return exact_quotient(r, q->scale);
}

ex ceildiv_rules(Simplifier& s, const ex& call) {
  const ex a = call.op(0), b = call.op(1);
  if (is_integer(b)) {
    // Rule: floor form, ceildiv(a, c) == (a + c - 1) // c for c > 0, and -(a // -c) for c < 0.
    Int c = int_of(b);
    if (c > 0) return make_floordiv(poly_normal(a + ex_of(c - 1)), b);
    return -make_floordiv(a, ex_of(-c));
  }
  // Rule: ceildiv(a, b) == -((-a) // b), taken only when that floor division simplifies.
  ex t = s.run(make_floordiv(poly_normal(-a), b));
  if (call_of(t) == Fn::FloorDiv) return call;
  return negate_back(t);
}

}  // namespace symshape::detail
