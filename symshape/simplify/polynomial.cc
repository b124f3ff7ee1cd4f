// Polynomial helpers for simplify(): normal form, exact division, common factors. They treat
// function calls (x//y, max(...)) as atoms; GiNaC's divide / gcd / numer_denom only see
// polynomials, so calls are swapped for placeholder symbols around those calls.
#include <cln/integer.h>
#include <cln/rational.h>

#include <algorithm>
#include <exception>
#include <string>

#include "symshape/expr/atomize.h"
#include "symshape/expr/functions.h"
#include "symshape/simplify/simplifier.h"

namespace symshape::detail {

namespace {

using GiNaC::ex;

}  // namespace

// Read on the pairs: a term rest*coeff of a sum needs expanding when rest does (rest is not a
// sum); a factor rest^coeff of a product when rest is a sum and coeff 1 or a natural number
// >= 2, or when rest does.
bool needs_expand(const ex& e) {
  if (is_add(e)) {
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      if (needs_expand(p.rest)) return true;
    }
    return false;
  }
  if (is_mul(e)) {
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      if (is_add(p.rest) && (p.coeff.is_equal(1) || (is_integer(p.coeff) && int_of(p.coeff) >= 2)))
        return true;
      if (needs_expand(p.rest)) return true;
    }
    return false;
  }
  if (is_power(e)) {
    const ex& n = e.op(1);
    if (is_add(e.op(0)) && is_integer(n) && int_of(n) >= 2) return true;
    return needs_expand(e.op(0));
  }
  return false;
}

namespace {

// The lcm of the denominators of the numbers in the skeleton.
Int denominator_lcm(const ex& e) {
  if (is_number(e)) {
    const GiNaC::numeric& v = GiNaC::ex_to<GiNaC::numeric>(e);
    return v.is_rational() ? int_of(v.denom()) : Int(1);
  }
  if (is_add(e) || is_mul(e)) {
    Int l = 1;
    for (size_t i = 0; i < e.nops(); ++i) l = cln::lcm(l, denominator_lcm(e.op(i)));
    return l;
  }
  if (is_power(e)) return denominator_lcm(e.op(0));
  return 1;
}

// The exponent of `base` in a product term (0 when it does not occur).
Int exponent_of(const ex& t, const ex& base) {
  auto factor_exponent = [&](const ex& f) -> Int {
    if (f.is_equal(base)) return 1;
    if (is_power(f) && f.op(0).is_equal(base) && is_integer(f.op(1))) return int_of(f.op(1));
    return 0;
  };
  if (is_mul(t)) {
    for (size_t i = 0; i < t.nops(); ++i) {
      Int k = factor_exponent(t.op(i));
      if (k != 0) return k;
    }
    return 0;
  }
  return factor_exponent(t);
}

ex divide_terms(const ex& n, const ex& g) {
  std::vector<ex> out;
  for (const ex& t : terms_of(n)) out.push_back(t / g);
  return sum_of(out);
}

std::optional<ex> divide_by_sum(const ex& n, const ex& d) {
  std::optional<ex> q = divide_polynomials(n, d);
  if (!q || !integer_polynomial(*q)) return std::nullopt;
  return q;
}

ex rational_normal(const ex& e) {
  Atomizer at;
  ex nd;
  try {
    nd = at.atomize(e).numer_denom();
  } catch (const std::exception&) {
    return e;
  }
  ex num = nd.op(0).expand(), den = nd.op(1).expand();
  return at.restore(num * GiNaC::pow(den, -1));
}

}  // namespace

bool integer_polynomial(const ex& e) {
  if (is_number(e)) return GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
  if (is_power(e)) {
    const ex& n = e.op(1);
    return is_number(n) && GiNaC::ex_to<GiNaC::numeric>(n).is_nonneg_integer() &&
           integer_polynomial(e.op(0));
  }
  if (is_add(e) || is_mul(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (!integer_polynomial(e.op(i))) return false;
    }
  }
  return true;  // symbols, and function calls (integer-valued by construction)
}

// On the pairs: a term rest*coeff has one when rest has; a factor rest^coeff when coeff is a
// negative integer or rest has one.
bool has_symbolic_denominator(const ex& e) {
  if (is_power(e)) {
    if (is_integer(e.op(1)) && int_of(e.op(1)) < 0) return true;
    return has_symbolic_denominator(e.op(0));
  }
  if (is_add(e) || is_mul(e)) {
    const bool product = is_mul(e);
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      if (product && is_integer(p.coeff) && int_of(p.coeff) < 0) return true;
      if (has_symbolic_denominator(p.rest)) return true;
    }
  }
  return false;
}

bool skeleton_has(const ex& e, Fn f) { return (skeleton_calls(e) & fn_bit(f)) != 0; }

unsigned skeleton_calls(const ex& e) {
  if (const Fn f = call_of(e); f != Fn::None) return fn_bit(f);
  unsigned calls = 0;
  if (is_add(e) || is_mul(e)) {
    // The coefficients are numbers.
    for (const GiNaC::expair& p : PairsOf::pairs(e)) calls |= skeleton_calls(p.rest);
  } else if (is_power(e)) {
    calls = skeleton_calls(e.op(0)) | skeleton_calls(e.op(1));
  }
  return calls;
}

// The nodes of e's tree (e's preorder walk, without GiNaC's iterator, whose stack of iterators
// cost more than the count). Iterative: a nest of calls can be deep.
// Sums and products are read on their pairs (see PairsOf): a term rest*coeff of a sum is rest
// when coeff is 1, else a product of rest's factors and coeff (one node more than rest when rest
// is a product, two more otherwise); a factor rest^coeff of a product is rest when coeff is 1,
// else a power (two nodes more). The overall coefficient is one node when present.
size_t node_count(const ex& e) {
  if (e.nops() == 0) return 1;
  size_t n = 0;
  std::vector<ex> todo{e};
  while (!todo.empty()) {
    const ex x = std::move(todo.back());
    todo.pop_back();
    ++n;
    const bool sum = is_add(x);
    if (sum || is_mul(x)) {
      for (const GiNaC::expair& p : PairsOf::pairs(x)) {
        if (!p.coeff.is_equal(1)) n += sum && is_mul(p.rest) ? 1 : 2;
        todo.push_back(p.rest);
      }
      if (!PairsOf::overall(x).is_equal(sum ? 0 : 1)) ++n;
      continue;
    }
    for (size_t i = 0; i < x.nops(); ++i) todo.push_back(x.op(i));
  }
  return n;
}

std::vector<ex> terms_of(const ex& e) {
  if (!is_add(e)) return e.is_zero() ? std::vector<ex>{} : std::vector<ex>{e};
  // A sum's term with a coefficient is a product GiNaC builds (and evaluates) on each e.op(i),
  // and the rules ask for the terms of the same sums one after another: the last few sums' terms
  // are kept per thread, and an equal sum gets them without building them again.
  struct Entry {
    ex sum;
    std::vector<ex> terms;
  };
  constexpr size_t kKept = 8;
  thread_local std::vector<Entry> recent;
  thread_local size_t next = 0;
  const GiNaC::epvector& pairs = PairsOf::pairs(e);
  std::vector<ex> out;
  out.reserve(e.nops());
  if (std::all_of(pairs.begin(), pairs.end(),
                  [](const GiNaC::expair& p) { return p.coeff.is_equal(1); })) {
    // No term to build: the terms are the rests (and the constant).
    for (const GiNaC::expair& p : pairs) out.push_back(p.rest);
    if (!PairsOf::overall(e).is_zero()) out.push_back(PairsOf::overall(e));
    return out;
  }
  for (const Entry& k : recent) {
    if (k.sum.is_equal(e)) return k.terms;
  }
  for (size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
  if (recent.size() < kKept) {
    recent.push_back({e, out});
  } else {
    recent[next] = {e, out};
    next = (next + 1) % kKept;
  }
  return out;
}

ex sum_of(const std::vector<ex>& terms) {
  if (terms.empty()) return 0;
  if (terms.size() == 1) return terms[0];
  GiNaC::exvector v(terms.begin(), terms.end());
  return GiNaC::dynallocate<GiNaC::add>(v);
}

Term split_term(const ex& t) {
  if (is_number(t)) return {GiNaC::ex_to<GiNaC::numeric>(t), ex(1)};
  if (is_mul(t)) {
    const size_t n = t.nops();
    const ex& last = t.op(n - 1);  // GiNaC keeps the numeric coefficient last
    if (is_number(last)) {
      // The other factors, without dividing (t / last builds and evaluates a second product).
      if (n == 2) return {GiNaC::ex_to<GiNaC::numeric>(last), t.op(0)};
      GiNaC::exvector rest;
      rest.reserve(n - 1);
      for (size_t i = 0; i + 1 < n; ++i) rest.push_back(t.op(i));
      return {GiNaC::ex_to<GiNaC::numeric>(last), GiNaC::dynallocate<GiNaC::mul>(rest)};
    }
  }
  return {GiNaC::numeric(1), t};
}

GiNaC::numeric coefficient_of(const ex& t) {
  if (is_number(t)) return GiNaC::ex_to<GiNaC::numeric>(t);
  if (is_mul(t)) {
    const ex& last = t.op(t.nops() - 1);
    if (is_number(last)) return GiNaC::ex_to<GiNaC::numeric>(last);
  }
  return GiNaC::numeric(1);
}

// On a sum's pairs: a term rest*coeff has coefficient coeff (rest has none), and the constant
// term is the overall coefficient.
Int integer_content(const ex& e) {
  Int g = 0;
  auto add = [&g](const GiNaC::numeric& coeff) {
    if (!coeff.is_integer()) return false;
    g = cln::gcd(g, int_of(coeff));
    return g != 1;
  };
  if (!is_add(e)) {
    if (!e.is_zero() && !add(coefficient_of(e))) return 1;
    return g;
  }
  for (const GiNaC::expair& p : PairsOf::pairs(e)) {
    if (!add(GiNaC::ex_to<GiNaC::numeric>(p.coeff))) return 1;
  }
  const ex& constant = PairsOf::overall(e);
  if (!constant.is_zero() && !add(GiNaC::ex_to<GiNaC::numeric>(constant))) return 1;
  return g;
}

namespace {

// An upper bound on the number of terms of e.expand(), saturating above kMaxExpandedTerms.
double expanded_terms(const ex& e) {
  constexpr double kOver = 2 * kMaxExpandedTerms;
  if (is_add(e)) {
    double n = 0;
    for (size_t i = 0; i < e.nops(); ++i) n = std::min(kOver, n + expanded_terms(e.op(i)));
    return n;
  }
  if (is_mul(e)) {
    double n = 1;
    for (size_t i = 0; i < e.nops(); ++i) n = std::min(kOver, n * expanded_terms(e.op(i)));
    return n;
  }
  if (is_power(e) && is_integer(e.op(1)) && int_of(e.op(1)) >= 2) {
    // The monomials of degree k in t terms: C(t + k - 1, k).
    double t = expanded_terms(e.op(0));
    Int k = int_of(e.op(1));
    if (t <= 1) return t;
    if (k > Int(static_cast<long>(kOver))) return kOver;
    double n = 1;
    for (long i = 1, kk = cln::cl_I_to_long(k); i <= kk && n < kOver; ++i) n = n * (t + i - 1) / i;
    return std::min(kOver, n);
  }
  return 1;
}

// t / x for a symbol x that is a factor of t with a natural exponent k: x^k becomes x^(k - 1)
// on t's factors (a product's pairs, a power, x itself), the product GiNaC's t * x^-1 evaluates
// to; nullopt when x is no such factor.
std::optional<ex> divide_by_factor(const ex& t, const ex& x) {
  auto natural = [](const ex& k) {
    return is_number(k) && GiNaC::ex_to<GiNaC::numeric>(k).is_pos_integer();
  };
  if (t.is_equal(x)) return ex(1);
  if (is_power(t)) {
    if (!t.op(0).is_equal(x) || !natural(t.op(1))) return std::nullopt;
    return GiNaC::pow(x, GiNaC::ex_to<GiNaC::numeric>(t.op(1)).sub(GiNaC::numeric(1)));
  }
  if (!is_mul(t)) return std::nullopt;
  const GiNaC::epvector& pairs = PairsOf::pairs(t);
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!pairs[i].rest.is_equal(x) || !natural(pairs[i].coeff)) continue;
    GiNaC::epvector out = pairs;
    if (pairs[i].coeff.is_equal(1)) {
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      out[i].coeff = GiNaC::ex_to<GiNaC::numeric>(pairs[i].coeff).sub(GiNaC::numeric(1));
    }
    return GiNaC::dynallocate<GiNaC::mul>(std::move(out), PairsOf::overall(t));
  }
  return std::nullopt;
}

}  // namespace

ex poly_normal(const ex& e) {
  if (has_symbolic_denominator(e)) return rational_normal(e);
  if (!needs_expand(e)) return e;
  if (expanded_terms(e) <= kMaxExpandedTerms) return e.expand();
  // Too large to expand whole: normalize the parts, and keep the powers that would explode.
  if (is_add(e) || is_mul(e)) {
    std::vector<ex> parts;
    for (size_t i = 0; i < e.nops(); ++i) parts.push_back(poly_normal(e.op(i)));
    if (is_add(e)) return sum_of(parts);
    ex product = 1;
    for (const ex& p : parts) product = product * p;
    return product;
  }
  if (is_power(e)) return GiNaC::pow(poly_normal(e.op(0)), e.op(1));
  return e;
}

std::optional<ex> poly_quotient(const ex& n, const ex& d) {
  if (d.is_zero()) return std::nullopt;
  if (is_number(d)) {
    ex q = n * GiNaC::pow(d, -1);
    if (!integer_polynomial(q)) return std::nullopt;
    return q;
  }
  if (is_add(d)) return divide_by_sum(n, d);
  // A monomial divisor divides term by term; GiNaC cancels the powers in t / d (a symbol
  // divisor that is a factor of t is taken off t's factors directly).
  std::vector<ex> out;
  for (const ex& t : terms_of(n)) {
    std::optional<ex> by_symbol = is_symbol(d) ? divide_by_factor(t, d) : std::nullopt;
    ex q = by_symbol ? *by_symbol : t / d;
    if (!integer_polynomial(q)) return std::nullopt;
    out.push_back(q);
  }
  return sum_of(out);
}

std::optional<IntegerQuotient> integer_quotient(const ex& a, const ex& b) {
  if (!has_denominator(a) && !has_denominator(b)) return IntegerQuotient{a, b, ex(1)};
  IntegerQuotient q;
  if (!has_symbolic_denominator(a) && !has_symbolic_denominator(b)) {
    ex scale = ex_of(cln::lcm(denominator_lcm(a), denominator_lcm(b)));
    q = {poly_normal(a * scale), poly_normal(b * scale), scale};
  } else {
    Atomizer at;
    ex na, nb;
    try {
      na = at.atomize(a).numer_denom();
      nb = at.atomize(b).numer_denom();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    // b's denominator must be a number: were it zero, b (and a // b) would be undefined there,
    // while the cleared form n // d might not be.
    if (!is_number(nb.op(1))) return std::nullopt;
    q = {at.restore((na.op(0) * nb.op(1)).expand()), at.restore((na.op(1) * nb.op(0)).expand()),
         at.restore((na.op(1) * nb.op(1)).expand())};
  }
  if (!integer_polynomial(q.n) || !integer_polynomial(q.d)) return std::nullopt;
  return q;
}

std::optional<CommonFactor> common_symbolic_factor(const ex& n, const ex& d) {
  if (is_number(d) || is_number(n)) return std::nullopt;
  if (!is_add(d)) {
    // A monomial divisor: each of its factors to the least power it has in every term of n.
    std::vector<ex> factors;
    if (is_mul(d)) {
      for (size_t i = 0; i < d.nops(); ++i) {
        if (!is_number(d.op(i))) factors.push_back(d.op(i));
      }
    } else {
      factors.push_back(d);
    }
    std::vector<ex> terms = terms_of(n);
    ex g = 1;
    for (const ex& f : factors) {
      bool is_pow = is_power(f);
      ex base = is_pow ? f.op(0) : f;
      Int k = is_pow ? (is_integer(f.op(1)) ? int_of(f.op(1)) : Int(0)) : Int(1);
      for (const ex& t : terms) {
        if (k <= 0) break;
        k = cln::min(k, exponent_of(t, base));
      }
      if (k > 0) g = g * GiNaC::pow(base, ex_of(k));
    }
    if (g.is_equal(1)) return std::nullopt;
    return CommonFactor{g, divide_terms(n, g), d / g};
  }
  Atomizer at;
  ex nn = at.atomize(n), dd = at.atomize(d), cn, cd, g;
  try {
    g = GiNaC::gcd(nn, dd, &cn, &cd);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (is_number(g)) return std::nullopt;
  CommonFactor out{at.restore(g), at.restore(cn), at.restore(cd)};
  if (!integer_polynomial(out.n) || !integer_polynomial(out.d)) return std::nullopt;
  return out;
}

ex exact_quotient(const ex& n, const ex& d) {
  if (is_number(d)) return poly_normal(n * GiNaC::pow(d, -1));
  if (auto q = poly_quotient(n, d)) return *q;
  return poly_normal(n * GiNaC::pow(d, -1));
}

Int floor_div(const Int& a, const Int& b) { return cln::floor1(a, b); }

bool divides(const Int& d, const Int& n) { return cln::zerop(cln::mod(n, d)); }

}  // namespace symshape::detail
