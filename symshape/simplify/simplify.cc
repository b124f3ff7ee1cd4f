// simplify(): a bottom-up rewrite. Function calls have their arguments simplified first, then the
// rules of their kind run at the node, and a node that changed is simplified again (up to a cap)
// until it is a fixpoint. Sums, products and powers are put in polynomial normal form.
#include <algorithm>
#include <cmath>
#include <exception>

#include "symshape/expr/functions.h"
#include "symshape/prove/limits.h"
#include "symshape/ranges/bound.h"
#include "symshape/ranges/number.h"
#include "symshape/simplify.h"
#include "symshape/simplify/simplifier.h"

namespace symshape {

namespace detail {

namespace {

struct RunMap : GiNaC::map_function {
  explicit RunMap(Simplifier& s) : s(s) {}
  ex operator()(const ex& e) override { return s.run(e); }
  Simplifier& s;
};

// A symbol, a number, or a symbol to a natural power.
bool monomial_factor(const ex& f) {
  if (is_symbol(f) || is_number(f)) return true;
  return is_power(f) && is_symbol(f.op(0)) && is_integer(f.op(1)) && int_of(f.op(1)) > 0;
}

// A product of monomial factors; read on its pairs (rest^coeff, see PairsOf).
bool monomial(const ex& t) {
  if (!is_mul(t)) return monomial_factor(t);
  for (const GiNaC::expair& p : PairsOf::pairs(t)) {
    const bool factor = p.coeff.is_equal(1)
                            ? is_symbol(p.rest) || is_number(p.rest)
                            : is_symbol(p.rest) && is_integer(p.coeff) && int_of(p.coeff) > 0;
    if (!factor) return false;
  }
  return true;
}

// A polynomial in symbols, expanded and without denominators (a sum of monomials, or one):
// run() leaves it as it is (no call, so no rule applies; nothing to expand, and its children are
// such polynomials too), so it is returned without looking it up or remembering it. A term
// rest*coeff of a sum is a monomial when rest is.
bool inert_polynomial(const ex& e) {
  if (!is_add(e)) return monomial(e);
  for (const GiNaC::expair& p : PairsOf::pairs(e)) {
    if (!monomial(p.rest)) return false;
  }
  return true;
}

}  // namespace

unsigned Simplifier::calls_in(const ex& e) {
  // The driver asks about the same object several times in a row (recombine, merge_remainders
  // and relate_offsets each on a sum they left as it is): the last answer is kept with the
  // object, which is held so that its address names it.
  if (are_ex_trivially_equal(e, last_calls_of_)) return last_calls_;
  last_calls_ = skeleton_calls(e);
  last_calls_of_ = e;
  return last_calls_;
}

bool Simplifier::is_active(const ex& e) const {
  const unsigned h = e.gethash();
  return std::any_of(active_.begin(), active_.end(),
                     [&](const ex& a) { return a.gethash() == h && a.is_equal(e); });
}

ex Simplifier::run(const ex& e) {
  if (is_number(e) || is_symbol(e) || inert_polynomial(e)) return e;
  if (auto it = clean_.find(e); it != clean_.end()) return it->second;
  if (auto it = memo_.find(e); it != memo_.end()) {
    if (!it->second.clean) cut();
    return it->second.result;
  }
  if (is_active(e)) {
    cut();
    return e;
  }
  active_.push_back(e);
  struct Leave {  // e stops being active however run() leaves (a rule may throw Error)
    std::vector<ex>& active;
    ~Leave() { active.pop_back(); }
  } leave{active_};
  const unsigned long cuts_before = cuts_;
  ex r = call_of(e) != Fn::None ? run_function(e) : run_polynomial(e);
  const bool clean = cuts_ == cuts_before;
  // A clean result is found in clean_ first, so it is not kept in memo_ too.
  if (clean) {
    clean_.emplace(e, r);
  } else {
    memo_.emplace(e, Memo{r, false});
  }
  // r as its own simplified form: assumed, not computed, so for this call only. (Not for e
  // itself, nor for what run() returns as it is without looking it up.)
  if (!are_ex_trivially_equal(r, e) && !is_number(r) && !is_symbol(r) && !inert_polynomial(r)) {
    memo_.emplace(r, Memo{r, false});
  }
  return r;
}

void Simplifier::begin_call() {
  memo_.clear();
  active_.clear();
  depth_ = 0;
  recombine_work_ = 0;
  // What is kept across calls is bounded: past the bound it is dropped whole (each kept entry
  // is what computing afresh gives, so dropping changes no answer, only the cost).
  constexpr size_t kMaxKept = size_t{1} << 18;
  if (clean_.size() + top_.size() + ranges_.size() + decisions_.size() > kMaxKept) {
    clean_.clear();
    top_.clear();
    ranges_.clear();
    decisions_.clear();
  }
}

const ex* Simplifier::top_level_result(const ex& e) const {
  if (top_.empty()) return nullptr;
  auto it = top_.find(e);
  return it == top_.end() ? nullptr : &it->second;
}

namespace {

// Rule: k*(x % a) + k*a*((x // a) % b) == k*(x % (a*b)) for a, b > 0 (symbolic too): with
// x == a*b*m + r, x % a == r % a and (x // a) % b == r // a. Repeated while it applies, so the
// digits of a mixed-radix index recombine: x % 2 + 2*((x//2) % 3) + 6*((x//6) % 4) == x % 24.
ex merge_remainders(Simplifier& s, const ex& e) {
  if (!is_add(e) || !(s.calls_in(e) & fn_bit(Fn::Mod))) return e;
  std::vector<ex> terms = terms_of(e);
  for (size_t i = 0; i < terms.size(); ++i) {
    Term ti = split_term(terms[i]);
    if (call_of(ti.rest) != Fn::Mod) continue;
    const ex& x = ti.rest.op(0);
    const ex& a = ti.rest.op(1);
    // The term j the rule pairs with is (coeff*a)*((x // a) % b): that remainder is one of its
    // factors (the polynomial arithmetic below treats calls as atoms, so it finds no remainder
    // a term does not hold). Told before dividing, which most terms fail.
    auto digit_of_x = [&](const ex& f) {
      if (call_of(f) != Fn::Mod) return false;
      const ex& inner = f.op(0);
      return call_of(inner) == Fn::FloorDiv && inner.op(0).is_equal(x) && inner.op(1).is_equal(a);
    };
    auto may_pair = [&](const ex& t) {
      if (!is_mul(t)) return digit_of_x(t);
      for (size_t k = 0; k < t.nops(); ++k) {
        if (digit_of_x(t.op(k))) return true;
      }
      return false;
    };
    for (size_t j = 0; j < terms.size(); ++j) {
      if (j == i || !may_pair(terms[j])) continue;
      ex ratio = poly_normal(terms[j] / (ti.coeff * a));
      if (call_of(ratio) != Fn::Mod) continue;
      const ex& inner = ratio.op(0);
      if (call_of(inner) != Fn::FloorDiv || !inner.op(0).is_equal(x) || !inner.op(1).is_equal(a)) {
        continue;
      }
      const ex& b = ratio.op(1);
      if (!s.positive(a) || !s.positive(b)) continue;
      std::vector<ex> rest;
      for (size_t k = 0; k < terms.size(); ++k) {
        if (k != i && k != j) rest.push_back(terms[k]);
      }
      rest.push_back(ti.coeff * s.run(mod(Expr(x), Expr(poly_normal(a * b))).ex()));
      return merge_remainders(s, sum_of(rest));
    }
  }
  return e;
}

}  // namespace

namespace {

// A product (or natural power) with a sum of quotients among its factors, as window sizes
// multiplied in a flatten: `64*((s - 5)//4 + 1)*((h - 5)//4 + 1)`. Polynomials without calls
// expand as before (cheap, and one form for equal polynomials).
// Read on the product's pairs rest^coeff (a product's pair is never a product, and its
// coefficient is a number, which is neither).
bool product_of_windows(Simplifier& s, const ex& e) {
  auto window = [&](const ex& f) { return is_add(f) && (s.calls_in(f) & kDivisionCalls); };
  if (is_power(e)) return window(e.op(0)) && is_integer(e.op(1)) && int_of(e.op(1)) > 0;
  if (!is_mul(e)) return false;
  for (const GiNaC::expair& p : PairsOf::pairs(e)) {
    if (p.coeff.is_equal(1)) {
      if (window(p.rest) || product_of_windows(s, p.rest)) return true;
    } else if (window(p.rest) && is_integer(p.coeff) && int_of(p.coeff) > 0) {
      return true;  // the factor rest^coeff, a natural power of a window
    }
  }
  return false;
}

// Upper bounds on what e expands to: `total` terms, of which `constant` (0 or 1 for a sum, or a
// product's constant part) may be a constant; total - constant bounds the non-constant terms.
// Saturating. Fewer non-constant terms than that after expanding means terms cancelled.
struct ExpansionBound {
  double total = 1, constant = 1;
};

ExpansionBound expansion_bound(const ex& e) {
  constexpr double kCap = 1e9;
  if (is_number(e)) return {1, 1};
  if (is_add(e)) {
    // The constants of the terms add up to one.
    double nonconstant = 0, constant = 0;
    for (size_t i = 0; i < e.nops(); ++i) {
      ExpansionBound o = expansion_bound(e.op(i));
      nonconstant = std::min(kCap, nonconstant + o.total - o.constant);
      constant = std::max(constant, o.constant);
    }
    return {nonconstant + constant, constant};
  }
  if (is_mul(e)) {
    ExpansionBound b{1, 1};
    for (size_t i = 0; i < e.nops(); ++i) {
      ExpansionBound o = expansion_bound(e.op(i));
      b.total = std::min(kCap, b.total * o.total);
      b.constant = b.constant * o.constant;
    }
    return b;
  }
  if (is_power(e) && is_integer(e.op(1)) && int_of(e.op(1)) > 0) {
    // Each term of base^k is the product of a multiset of k of the base's terms: at most
    // C(n + k - 1, k) different ones for n terms, as many as there are when the base's terms
    // multiply to different monomials ((a + b)**2 has three, not four). Counting n^k would read
    // the merging of a*b and b*a as cancellation.
    ExpansionBound base = expansion_bound(e.op(0)), b{1, base.constant};
    for (long i = 1, k = cln::cl_I_to_long(int_of(e.op(1))); i <= k && b.total < kCap; ++i) {
      b.total =
          std::round(b.total * (base.total + static_cast<double>(i - 1)) / static_cast<double>(i));
    }
    b.total = std::min(kCap, b.total);
    return b;
  }
  return {1, 0};
}

// e with every number of its polynomial structure (a sum's coefficients and constant, a
// product's number) replaced by its absolute value; symbols, calls and exponents as they are.
// Expanding it cancels nothing, so it has as many terms as e's expansion has monomials before
// like terms cancel: e's expansion has fewer exactly when some cancelled.
ex majorant(const ex& e) {
  if (is_number(e)) return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(e));
  if (is_add(e) || is_mul(e)) {
    GiNaC::exvector ops;
    ops.reserve(e.nops());
    for (size_t i = 0; i < e.nops(); ++i) ops.push_back(majorant(e.op(i)));
    if (is_add(e)) return GiNaC::dynallocate<GiNaC::add>(ops);
    return GiNaC::dynallocate<GiNaC::mul>(ops);
  }
  if (is_power(e)) return GiNaC::pow(majorant(e.op(0)), e.op(1));
  return e;
}

// Read on a sum's pairs (its constant is the overall coefficient, never a pair).
size_t nonconstant_terms(const ex& e) {
  if (is_add(e)) return PairsOf::pairs(e).size();
  return is_number(e) ? 0 : 1;
}

size_t sign_free_node_count(const ex& e);

// Whether expanding the product e would leave it factored in run_polynomial (no fewer
// non-constant terms than expansion_bound, no fewer nodes than sign_free_node_count(e)), shown
// without expanding it. e is a number times sums of monomials times other monomial factors,
// over atoms (symbols and calls, to natural powers). When no atom occurs in two of the factors,
// each choice of one term per factor gives a different monomial: nothing cancels, the expansion
// has exactly the bound's terms, and its node count is known from the choices: each term's
// atoms (one node more for the product when there are two or more), its coefficient (the
// product of the chosen terms' and e's; a node when it is not 1, one more when the atom is
// alone), and the constant, the choice without atoms. A cheap lower bound (each term's atoms
// only) is tried first. false when e is not of this shape, or the expansion would be smaller
// (the caller then expands).
bool product_stays_factored(const ex& e) {
  if (!is_mul(e)) return false;
  struct Term {  // one term of a sum: its coefficient, how many atom factors, their nodes
    GiNaC::numeric coeff;
    size_t atoms = 0;
    double nodes = 0;
    bool unit = false, negative = false, fraction = false;  // the coefficient's kind
    void classify() {
      fraction = !coeff.is_integer();
      unit = coeff.is_equal(1) || coeff.is_equal(-1);
      negative = coeff.is_negative();
    }
  };
  struct Group {  // one factor that is a sum, or the other factors together
    std::vector<ex> atoms;
    double terms = 1, atom_nodes = 0;
    std::vector<Term> choices;
  };
  auto add_atom = [](const ex& f, Group& g) {
    ex base = f;
    if (is_power(f)) {
      if (!is_integer(f.op(1)) || int_of(f.op(1)) <= 0) return false;
      base = f.op(0);
    }
    if (!is_symbol(base) && call_of(base) == Fn::None) return false;
    g.atoms.push_back(base);
    g.atom_nodes += static_cast<double>(node_count(f));
    return true;
  };
  GiNaC::numeric coeff = 1;      // e's number
  std::vector<Group> groups(1);  // groups[0]: the factors that are not sums
  for (size_t i = 0; i < e.nops(); ++i) {
    const ex f = e.op(i);
    if (is_number(f)) {
      coeff = coeff * GiNaC::ex_to<GiNaC::numeric>(f);
      continue;
    }
    if (!is_add(f)) {
      if (!add_atom(f, groups[0])) return false;
      continue;
    }
    Group g;
    g.terms = static_cast<double>(f.nops());
    g.choices.reserve(f.nops());
    for (size_t j = 0; j < f.nops(); ++j) {
      const ex t = f.op(j);
      Term term{1, 0, 0};
      if (is_number(t)) {
        term.coeff = GiNaC::ex_to<GiNaC::numeric>(t);
        g.choices.push_back(term);
        continue;
      }
      const double before = g.atom_nodes;
      const size_t atoms_before = g.atoms.size();
      if (!is_mul(t)) {
        if (!add_atom(t, g)) return false;
      } else {
        for (size_t k = 0; k < t.nops(); ++k) {
          if (is_number(t.op(k))) {
            term.coeff = term.coeff * GiNaC::ex_to<GiNaC::numeric>(t.op(k));
          } else if (!add_atom(t.op(k), g)) {
            return false;
          }
        }
      }
      term.atoms = g.atoms.size() - atoms_before;
      term.nodes = g.atom_nodes - before;
      g.choices.push_back(term);
    }
    groups.push_back(std::move(g));
  }
  if (groups.size() < 2) return false;
  double expanded_terms = 1;
  for (const Group& g : groups) expanded_terms *= g.terms;
  // Past poly_normal's bound it does not expand e whole: the caller decides on what it gives.
  if (expanded_terms > kMaxExpandedTerms) return false;
  for (size_t a = 0; a < groups.size(); ++a) {
    for (size_t b = a + 1; b < groups.size(); ++b) {
      for (const ex& x : groups[a].atoms) {
        for (const ex& y : groups[b].atoms) {
          if (x.is_equal(y)) return false;
        }
      }
    }
  }
  // Each atom factor of a term of a sum occurs in expanded_terms / terms expanded terms; the
  // other factors occur in all of them.
  double lower = 1;
  for (const Group& g : groups) lower += expanded_terms / g.terms * g.atom_nodes;
  const double factored = static_cast<double>(node_count(e));
  if (lower >= factored) return true;
  // The exact count, choice by choice (an odometer over the sums' terms).
  for (Group& g : groups) {
    for (Term& t : g.choices) t.classify();
  }
  const bool coeff_fraction = !coeff.is_integer();
  const bool coeff_unit = coeff.is_equal(1) || coeff.is_equal(-1);
  const bool coeff_negative = coeff.is_negative();
  std::vector<size_t> at(groups.size(), 0);
  double nodes = 1;  // the sum
  while (true) {
    size_t atoms = groups[0].atoms.size();
    double atom_nodes = groups[0].atom_nodes;
    // The coefficient's product is 1 when each integer factor is 1 or -1 with an even number of
    // -1s; a fraction among them is multiplied out.
    bool units = coeff_unit, negative = coeff_negative, fraction = coeff_fraction;
    for (size_t g = 1; g < groups.size(); ++g) {
      const Term& t = groups[g].choices[at[g]];
      units = units && t.unit;
      negative = negative != t.negative;
      fraction = fraction || t.fraction;
      atoms += t.atoms;
      atom_nodes += t.nodes;
    }
    bool one = units && !negative;
    if (fraction) {
      GiNaC::numeric c = coeff;
      for (size_t g = 1; g < groups.size(); ++g) c = c * groups[g].choices[at[g]].coeff;
      one = c.is_equal(1);
    }
    if (atoms == 0) {
      nodes += 1;  // the constant
    } else {
      nodes += atom_nodes + (atoms >= 2 ? 1 : 0);
      if (!one) nodes += atoms >= 2 ? 1 : 2;
    }
    size_t g = 1;
    while (g < groups.size() && ++at[g] == groups[g].choices.size()) at[g++] = 0;
    if (g == groups.size()) break;
  }
  return nodes >= static_cast<double>(sign_free_node_count(e));
}

// How many nodes node_count saves on the product p (whose own coefficient costs `outer` nodes
// now, and `outer_flipped` with the opposite sign) when the sign moves into or out of its one
// sum factor: GiNaC puts it where its hash order says, so the count of -x*(a - b) and of
// x*(b - a) differ from run to run. 0 when the other placement is no smaller.
size_t sign_saving(const ex& p, size_t outer, size_t outer_flipped) {
  const ex* sum = nullptr;
  for (const GiNaC::expair& f : PairsOf::pairs(p)) {
    if (!is_add(f.rest)) continue;
    if (sum || !f.coeff.is_equal(1)) return 0;
    sum = &f.rest;
  }
  if (!sum) return 0;
  size_t now = outer, flipped = outer_flipped;
  for (const GiNaC::expair& t : PairsOf::pairs(*sum)) {
    const size_t cost = is_mul(t.rest) ? 1 : 2;
    if (t.coeff.is_equal(1)) flipped += cost;
    if (t.coeff.is_equal(-1)) now += cost;
  }
  return now > flipped ? now - flipped : 0;
}

// node_count(e) with the sign of each product with one sum factor placed where it costs least:
// the same for every placement GiNaC chooses.
size_t sign_free_node_count(const ex& e) {
  size_t n = node_count(e);
  if (is_mul(e)) {
    const ex& c = PairsOf::overall(e);
    if (c.is_equal(1) || c.is_equal(-1))
      n -= sign_saving(e, c.is_equal(1) ? 0 : 1, c.is_equal(1) ? 1 : 0);
    return n;
  }
  if (!is_add(e)) return n;
  for (const GiNaC::expair& t : PairsOf::pairs(e)) {
    if (!is_mul(t.rest) || !PairsOf::overall(t.rest).is_equal(1)) continue;
    if (t.coeff.is_equal(1) || t.coeff.is_equal(-1)) {
      n -= sign_saving(t.rest, t.coeff.is_equal(1) ? 0 : 1, t.coeff.is_equal(1) ? 1 : 0);
    }
  }
  return n;
}

// e with run() applied to each child, in GiNaC's order of operands (as e.map would), and e
// itself when no child changes (e.map rebuilds and evaluates the node even then).
ex run_children(Simplifier& s, const ex& e) {
  if (!is_add(e) && !is_mul(e) && !is_power(e)) {
    RunMap m(s);
    return e.map(m);
  }
  const size_t n = e.nops();
  GiNaC::exvector ops;
  ops.reserve(n);
  bool changed = false;
  for (size_t i = 0; i < n; ++i) {
    ex c = e.op(i);
    ex r = s.run(c);
    if (!changed && !r.is_equal(c)) changed = true;
    ops.push_back(std::move(r));
  }
  if (!changed) return e;
  if (is_add(e)) return GiNaC::dynallocate<GiNaC::add>(ops);
  if (is_mul(e)) return GiNaC::dynallocate<GiNaC::mul>(ops);
  return GiNaC::pow(ops[0], ops[1]);
}

}  // namespace

// The normal form keeps products of window sizes factored: a product whose factors are sums of
// quotients stays a product of simplified factors, and a sum of such products stays a sum of
// them, unless expanding cancels terms or makes the expression smaller; then the sum rules run on
// the expanded form (x*((y + 1)//2) - x*((y + 1)//2 - 1) is x). The expanded form is built only
// to make that choice, so no rule walks the terms a product would expand to.
ex Simplifier::run_polynomial(const ex& e) {
  ex mapped = run_children(*this, e);
  bool factored = false;
  if (is_add(mapped)) {
    // A term rest*coeff is a product of windows when rest is (a number coefficient adds no
    // factor that is a window), read on the pairs without building the terms.
    for (const GiNaC::expair& p : PairsOf::pairs(mapped)) {
      if (product_of_windows(*this, p.rest)) {
        factored = true;
        break;
      }
    }
  } else {
    factored = product_of_windows(*this, mapped);
  }
  if (factored && !has_symbolic_denominator(mapped)) {
    // (The sum rules below leave a product as it is.)
    if (product_stays_factored(mapped)) return mapped;
    ex expanded = poly_normal(mapped);
    const ExpansionBound bound = expansion_bound(mapped);
    // Terms cancelled when the expansion has fewer than the bound, and fewer than the expansion
    // of the product with its numbers made positive (like terms that merge, as in
    // (x - 2)*(x + 1), are no cancellation).
    const size_t terms = nonconstant_terms(expanded);
    const bool cancelled = static_cast<double>(terms) < bound.total - bound.constant &&
                           terms < nonconstant_terms(poly_normal(majorant(mapped)));
    if (!cancelled && node_count(expanded) >= sign_free_node_count(mapped)) {
      return relate_offsets(merge_remainders(*this, recombine(mapped)));
    }
    mapped = expanded;
  } else {
    mapped = poly_normal(mapped);
  }
  return relate_offsets(merge_remainders(*this, recombine(mapped)));
}

namespace {

// The division call f (E // d, ceildiv(E, d) or E % d) that term t is a multiple of, and the
// multiplier: t == m * d * f for a floor division (so t == m*(E - E % d)) or a ceiling division
// (t == m*(E + (-E) % d)), t == m * f for a modulo (so t == m*(E - d*(E // d))). nullopt when
// t has no such factor.
struct DivisionTerm {
  ex call;
  ex multiplier;
};

// terms_of(e).size(), without building the terms.
size_t term_count(const ex& e) {
  if (is_add(e)) return e.nops();
  return e.is_zero() ? 0 : 1;
}

std::optional<DivisionTerm> division_term(const ex& t) {
  // The factors are t's operands (t itself when it is not a product), read in place.
  const bool product = is_mul(t);
  const size_t count = product ? t.nops() : 1;
  for (size_t i = 0; i < count; ++i) {
    const ex& factor = product ? t.op(i) : t;
    Fn f = call_of(factor);
    if (f != Fn::FloorDiv && f != Fn::Mod && f != Fn::CeilDiv) continue;
    // The other factors' product (one factor is itself; none is 1).
    ex rest = 1;
    if (count == 2) {
      rest = t.op(1 - i);
    } else if (count > 2) {
      GiNaC::exvector others;
      others.reserve(count - 1);
      for (size_t j = 0; j < count; ++j) {
        if (j != i) others.push_back(t.op(j));
      }
      rest = GiNaC::dynallocate<GiNaC::mul>(others);
    }
    if (f == Fn::Mod) return DivisionTerm{factor, rest};
    const ex& d = factor.op(1);
    if (is_integer(d)) {
      // (k*c) * (E // c): the multiplier is k, an integer.
      if (is_number(rest) && !d.is_zero()) {  // the common case, without building a quotient
        // A rational that is not an integer over an integer is not an integer.
        if (!is_integer(rest) || !divides(int_of(d), int_of(rest))) continue;
        return DivisionTerm{factor, ex_of(cln::exquo(int_of(rest), int_of(d)))};
      }
      ex m = poly_normal(rest / d);
      if (integer_polynomial(m)) return DivisionTerm{factor, m};
    } else if (auto q = poly_quotient(poly_normal(rest), d)) {
      return DivisionTerm{factor, *q};
    }
  }
  return std::nullopt;
}

// Whether division_term may find a term of the sum e, read on its pairs rest*coeff without
// building the terms: the calls among a term's factors are those among its rest's. A term that
// is a coefficient times a lone E // c or ceildiv(E, c) (c a nonzero integer) is one only when c
// divides the coefficient; any other term with a division call among its factors may be.
bool may_hold_division_term(const ex& e) {
  auto division = [](const ex& f) {
    const Fn fn = call_of(f);
    return fn == Fn::FloorDiv || fn == Fn::Mod || fn == Fn::CeilDiv;
  };
  for (const GiNaC::expair& p : PairsOf::pairs(e)) {
    if (is_mul(p.rest)) {
      for (size_t i = 0; i < p.rest.nops(); ++i) {
        if (division(p.rest.op(i))) return true;
      }
      continue;
    }
    if (!division(p.rest)) continue;
    const ex& d = p.rest.op(1);
    if (call_of(p.rest) == Fn::Mod || !is_integer(d) || d.is_zero()) return true;
    // A rational that is not an integer over an integer is not an integer.
    if (is_integer(p.coeff) && divides(int_of(d), int_of(p.coeff))) return true;
  }
  return false;
}

// Whether e's tree holds the call f(n, d) (what e.has(f(n, d)) tells, without building the call):
// a sum's or product's numbers hold no call, so their pairs' rests are walked.
bool holds_call(const ex& e, Fn f, const ex& n, const ex& d) {
  if (is_number(e) || is_symbol(e)) return false;
  if (is_add(e) || is_mul(e)) {
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      if (holds_call(p.rest, f, n, d)) return true;
    }
    return false;
  }
  if (call_of(e) == f && e.op(0).is_equal(n) && e.op(1).is_equal(d)) return true;
  for (size_t i = 0; i < e.nops(); ++i) {
    if (holds_call(e.op(i), f, n, d)) return true;
  }
  return false;
}

// An atom (a symbol or a call) times a number, read in place: `c*x` (GiNaC's product of one
// factor x to the power 1 and a number c) or x itself (c == 1). nullptr for anything else.
const ex* scaled_atom(const ex& e, GiNaC::numeric& c) {
  auto atom = [](const ex& x) { return is_symbol(x) || call_of(x) != Fn::None; };
  if (atom(e)) {
    c = 1;
    return &e;
  }
  if (!is_mul(e)) return nullptr;
  const GiNaC::epvector& pairs = PairsOf::pairs(e);
  if (pairs.size() != 1 || !pairs[0].coeff.is_equal(1) || !atom(pairs[0].rest)) return nullptr;
  c = GiNaC::ex_to<GiNaC::numeric>(PairsOf::overall(e));
  return &pairs[0].rest;
}

// Whether rewriting term t of sum by d*(E // d) + E % d == E can make the sum smaller: the
// rewrite brings in m*E and the partner call (E % d for a floor division, E // d for a modulo,
// (-E) % d for a ceiling division), so it shrinks the sum only when another term holds the
// partner call or a term of m*E. Checked before the candidate is built and simplified, which
// is what made a sum of products of quotients cost hundreds of microseconds.
//
// sum is the sum whose terms are `terms` (terms_of(sum)), t its term at index `index`. Read on
// the pairs of sum (the rest of the term rest*coeff is split_term's), and, when m is a number
// and m*E needs no expanding, on the pairs of E, so nothing is built on the common path.
bool may_pair_in_place(const ex& sum, size_t index, const DivisionTerm& dt) {
  const ex& n = dt.call.op(0);
  const ex& d = dt.call.op(1);
  const Fn f = call_of(dt.call);
  // The partner as it evaluates: the call, as d is not +-1 (the division would have folded) and
  // n, d are not both numbers; only ceildiv(E, -1) stays a call (its partner would fold to 0).
  const Fn pf = f == Fn::Mod ? Fn::FloorDiv : Fn::Mod;
  const ex pn = f == Fn::CeilDiv ? poly_normal(-n) : n;
  const GiNaC::epvector& pairs = PairsOf::pairs(sum);
  GiNaC::exvector others;  // the other non-constant terms' rests
  for (size_t k = 0; k < pairs.size(); ++k) {
    if (k == index) continue;
    if (holds_call(pairs[k].rest, pf, pn, d)) return true;
    others.push_back(pairs[k].rest);
  }
  // A constant that is not an integer is a term with rest 1.
  const ex& constant = PairsOf::overall(sum);
  if (index != pairs.size() && !is_integer(constant)) others.push_back(ex(1));
  if (others.empty()) return false;
  auto other_rest = [&](const ex& rest) {
    return std::any_of(others.begin(), others.end(), [&](const ex& o) { return o.is_equal(rest); });
  };
  const GiNaC::numeric& m = GiNaC::ex_to<GiNaC::numeric>(dt.multiplier);
  // m*E's terms: E's pairs' rests, and E's constant times m (a term with rest 1 when it is not
  // an integer).
  if (is_add(n)) {
    for (const GiNaC::expair& p : PairsOf::pairs(n)) {
      if (other_rest(p.rest)) return true;
    }
    const GiNaC::numeric c = GiNaC::ex_to<GiNaC::numeric>(PairsOf::overall(n)) * m;
    return !c.is_integer() && other_rest(ex(1));
  }
  if (is_number(n)) {
    const GiNaC::numeric c = GiNaC::ex_to<GiNaC::numeric>(n) * m;
    return !c.is_integer() && other_rest(ex(1));
  }
  // c*x for an atom x: m*E is one term whose rest is x.
  GiNaC::numeric c;
  return other_rest(*scaled_atom(n, c));
}

// may_pair_in_place when it applies (a number m that is not 0, and an E that is a sum needing no
// expanding, a number, or a number times a symbol or a call, so that m*E's terms are read on E; a
// partner call that does not fold: d is not +-1 and n, d are not both numbers), else the same
// question with the partner call and m*E built.
bool may_pair(const ex& sum, const std::vector<ex>& terms, size_t index, const DivisionTerm& dt) {
  const ex& n = dt.call.op(0);
  const ex& d = dt.call.op(1);
  const Fn f = call_of(dt.call);
  GiNaC::numeric c;
  const bool simple_n = is_add(n) ? !needs_expand(n) && !has_symbolic_denominator(n)
                                  : is_number(n) || scaled_atom(n, c) != nullptr;
  if (simple_n && is_number(dt.multiplier) && !dt.multiplier.is_zero() && !d.is_equal(1) &&
      !d.is_equal(-1) && !(is_number(n) && is_number(d)) && index < PairsOf::pairs(sum).size()) {
    return may_pair_in_place(sum, index, dt);
  }
  const ex& t = terms[index];
  const ex partner = f == Fn::FloorDiv  ? mod(Expr(n), Expr(d)).ex()
                     : f == Fn::CeilDiv ? mod(Expr(poly_normal(-n)), Expr(d)).ex()
                                        : floordiv(Expr(n), Expr(d)).ex();
  std::vector<ex> others;
  for (const ex& u : terms) {
    if (u.is_equal(t) || is_integer(u)) continue;
    if (u.has(partner)) return true;
    others.push_back(split_term(u).rest);
  }
  if (others.empty()) return false;
  for (const ex& u : terms_of(poly_normal(dt.multiplier * n))) {
    if (is_integer(u)) continue;
    const ex rest = split_term(u).rest;
    for (const ex& o : others) {
      if (o.is_equal(rest)) return true;
    }
  }
  return false;
}

// The sum with its term at `index` (a multiple of a division, see DivisionTerm) rewritten, as
// recombine writes it: for a number m, m*(E - E % d), m*(E + (-E) % d) or m*(E - d*(E // d)) in
// place of the term (d a number for the last). Built as one sum from pairs (the sum's others,
// E's scaled by m, the partner call's), which is what cur - t + replacement evaluates to, without
// the sums and products in between. nullopt when m is not a number, E is not a sum, a number or
// a number times a symbol or a call, or the partner call folds.
std::optional<ex> rewritten_sum(const ex& sum, size_t index, const DivisionTerm& dt) {
  const ex& n = dt.call.op(0);
  const ex& d = dt.call.op(1);
  const Fn f = call_of(dt.call);
  if (!is_number(dt.multiplier) || dt.multiplier.is_zero()) return std::nullopt;
  GiNaC::numeric c;
  const ex* atom = is_add(n) || is_number(n) ? nullptr : scaled_atom(n, c);
  if (!is_add(n) && !is_number(n) && !atom) return std::nullopt;
  if (f == Fn::Mod && !is_number(d)) return std::nullopt;
  const GiNaC::numeric& m = GiNaC::ex_to<GiNaC::numeric>(dt.multiplier);
  ex partner;
  GiNaC::numeric partner_coeff;
  switch (f) {
    case Fn::FloorDiv:
      partner = mod(Expr(n), Expr(d)).ex();
      partner_coeff = -m;
      break;
    case Fn::CeilDiv:
      partner = mod(Expr(-n), Expr(d)).ex();
      partner_coeff = m;
      break;
    default:
      partner = floordiv(Expr(n), Expr(d)).ex();
      partner_coeff = -m * GiNaC::ex_to<GiNaC::numeric>(d);
      break;
  }
  if (call_of(partner) == Fn::None) return std::nullopt;
  const GiNaC::epvector& pairs = PairsOf::pairs(sum);
  GiNaC::epvector out;
  out.reserve(pairs.size() + (is_add(n) ? n.nops() : 1) + 1);
  for (size_t k = 0; k < pairs.size(); ++k) {
    if (k != index) out.push_back(pairs[k]);
  }
  GiNaC::numeric overall = GiNaC::ex_to<GiNaC::numeric>(PairsOf::overall(sum));
  if (is_add(n)) {
    for (const GiNaC::expair& p : PairsOf::pairs(n)) {
      out.emplace_back(p.rest, GiNaC::ex_to<GiNaC::numeric>(p.coeff) * m);
    }
    overall = overall + GiNaC::ex_to<GiNaC::numeric>(PairsOf::overall(n)) * m;
  } else if (is_number(n)) {
    overall = overall + GiNaC::ex_to<GiNaC::numeric>(n) * m;
  } else {
    out.emplace_back(*atom, c * m);
  }
  out.emplace_back(partner, partner_coeff);
  return ex(GiNaC::dynallocate<GiNaC::add>(std::move(out), overall));
}

}  // namespace

// Rule: recombine divisions in a sum by d*(E // d) + E % d == E (for d != 0): a term that is a
// multiple of d*(E // d) is written m*(E - E % d), or a multiple of E % d is written
// m*(E - d*(E // d)), when that makes the sum smaller: x - 3*(x//3) == x % 3,
// 8*(x//8) + x % 8 == x. Greedy: one rewrite at a time, while the sum shrinks; each round takes
// the best rewrite (smallest, then fewest terms, then first in the canonical order), never the
// first found: the terms come in GiNaC's order, which follows hashes seeded by addresses, so
// the first found differs from run to run. Each candidate is simplified in full, so the search
// nests; its work is bounded by the call's budget (kMaxRecombineWork).
ex Simplifier::recombine(const ex& e) {
  if (!is_add(e) || !(calls_in(e) & kDivisionCalls)) return e;
  ex cur = e;
  std::optional<size_t> size;  // node_count(cur), counted when a candidate is
  for (int round = 0; round < 8; ++round) {
    if (!may_hold_division_term(cur)) break;
    std::optional<ex> best;
    size_t best_size = 0, best_terms = 0;
    const std::vector<ex> terms = terms_of(cur);
    for (size_t index = 0; index < terms.size(); ++index) {
      const ex& t = terms[index];
      auto dt = division_term(t);
      if (!dt) continue;
      const ex& call = dt->call;
      const ex &n = call.op(0), &d = call.op(1);
      if (!may_pair(cur, terms, index, *dt)) continue;
      // The result may no longer divide by d: it must not be zero.
      if (!nonzero(d)) continue;
      // Building the candidate reads each of its terms, and so does each round of recombine
      // on it when it is simplified (a round that finds no candidate ends recombine).
      // Past the budget, the round's best so far is the last rewrite.
      if (!spend_recombine_work(2 * terms.size())) return best ? *best : cur;
      // d*ceildiv(n, d) == -d*((-n) // d) == n + (-n) % d.
      ex candidate;
      if (std::optional<ex> direct = rewritten_sum(cur, index, *dt)) {
        candidate = poly_normal(*direct);
      } else {
        ex replacement = call_of(call) == Fn::FloorDiv
                             ? dt->multiplier * (n - mod(Expr(n), Expr(d)).ex())
                         : call_of(call) == Fn::CeilDiv
                             ? dt->multiplier * (n + mod(Expr(-n), Expr(d)).ex())
                             : dt->multiplier * (n - d * floordiv(Expr(n), Expr(d)).ex());
        candidate = poly_normal(cur - t + replacement);
      }
      ++depth_;
      candidate = below_depth_cap() ? run(candidate) : candidate;
      --depth_;
      // Taken when smaller, or as small and with fewer terms: s + (-s) % 64 is
      // 64*((s + 63)//64).
      size_t cs = node_count(candidate);
      if (!size) size = node_count(cur);
      const size_t ct = term_count(candidate);
      if (!(cs < *size || (cs == *size && ct < terms.size()))) continue;
      if (best &&
          (cs > best_size || (cs == best_size && ct > best_terms) ||
           (cs == best_size && ct == best_terms && canonical_compare(candidate, *best) >= 0))) {
        continue;
      }
      best = candidate;
      best_size = cs;
      best_terms = ct;
    }
    if (!best) break;
    cur = *best;
    size = best_size;
    if (!is_add(cur)) break;
  }
  return cur;
}

namespace {

// Divisions related by relate_offsets: by constants up to this (one value per residue).
constexpr int kMaxOffsetModulus = 16;

// A term m*(E // c) or m*(E % c) with an integer m, a constant 2 <= c <= kMaxOffsetModulus and
// E == x + k for a constant k and a non-constant x.
struct OffsetTerm {
  Int m, c, k;
  ex x;
  bool floor;
};

std::optional<OffsetTerm> offset_term(const ex& t) {
  // The call split_term would find, without building the rest of a product: a product of more
  // than a call and a coefficient has no call as its rest.
  const Fn f0 =
      is_mul(t) ? (t.nops() == 2 && is_number(t.op(1)) ? call_of(t.op(0)) : Fn::None) : call_of(t);
  if (f0 != Fn::FloorDiv && f0 != Fn::Mod) return std::nullopt;
  Term term = split_term(t);
  Fn f = call_of(term.rest);
  if ((f != Fn::FloorDiv && f != Fn::Mod) || !term.coeff.is_integer()) return std::nullopt;
  const ex& d = term.rest.op(1);
  if (!is_integer(d) || int_of(d) < 2 || int_of(d) > kMaxOffsetModulus) return std::nullopt;
  Int k = 0;
  std::vector<ex> rest;
  for (const ex& u : terms_of(term.rest.op(0))) {
    if (is_integer(u)) {
      k = k + int_of(u);
    } else {
      rest.push_back(u);
    }
  }
  if (rest.empty()) return std::nullopt;
  return OffsetTerm{int_of(term.coeff), int_of(d), k, sum_of(rest), f == Fn::FloorDiv};
}

// Whether relate_offsets can find something in the sum e: two offset terms, or one remainder
// with an offset (the test below on the parsed terms), told without building each term's x.
// A term is an offset term when offset_term would parse it: a call to // or % with an integer
// coefficient and a divisor in [2, kMaxOffsetModulus], of a non-constant argument, whose
// constant k is the argument's numeric coefficient when that is an integer.
bool may_relate_offsets(const ex& e) {
  size_t found = 0;
  bool mod_with_offset = false;
  for (const GiNaC::expair& p : PairsOf::pairs(e)) {
    if (!is_integer(p.coeff)) continue;
    const Fn f = call_of(p.rest);
    if (f != Fn::FloorDiv && f != Fn::Mod) continue;
    const ex& d = p.rest.op(1);
    if (!is_integer(d) || int_of(d) < 2 || int_of(d) > kMaxOffsetModulus) continue;
    const ex& n = p.rest.op(0);
    if (is_integer(n)) continue;
    ++found;
    const bool offset =
        is_add(n) && is_integer(PairsOf::overall(n)) && !PairsOf::overall(n).is_zero();
    mod_with_offset = f == Fn::Mod && offset;
  }
  return found >= 2 || (found == 1 && mod_with_offset);
}

// relate_offsets' tables compute on Num (exact past machine integers), or, when every
// coefficient and offset is small enough that no table value nears 2^63, on int64_t without
// Num's checks. The same values either way; these name the operations for both.
Num table_floordiv(const Num& a, const Num& b) { return floordiv(a, b); }
Num table_mod(const Num& a, const Num& b) { return mod(a, b); }
int64_t table_floordiv(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return a % b != 0 && a < 0 ? q - 1 : q;
}
int64_t table_mod(int64_t a, int64_t b) { return a - b * table_floordiv(a, b); }  // b > 0
bool table_zero(const Num& v) { return v.is_zero(); }
bool table_zero(int64_t v) { return v == 0; }
// An integer of relate_offsets' tables as an expression: a value that fits a machine word (the
// coefficients, offsets and divisors of a sum nearly always do) without going through CLN.
ex ex_of_num(const Num& v) { return v.is_small() ? ex(v.small_value()) : ex_of(v.to_int()); }
ex ex_of_num(int64_t v) { return ex(v); }
Num table_num(const Int& v, Num*) { return Num::of(v); }
int64_t table_num(const Int& v, int64_t*) { return cln::cl_I_to_long(v); }

// relate_offsets' candidates for the members (term index, sign of x) of one group over x and c,
// in its order: F tabulated over r in [0, c - 1], then each rewrite F fits, on numbers T.
template <typename T>
void offset_candidates_on(const std::vector<std::optional<OffsetTerm>>& parsed,
                          const std::vector<std::pair<size_t, int>>& members, const ex& x,
                          const Int& c_int, std::vector<ex>& candidates) {
  const long n = cln::cl_I_to_long(c_int);
  const T c(n);
  T a_q(0);
  std::vector<T> f(static_cast<size_t>(n), T(0));
  for (const auto& [j, sign] : members) {
    const OffsetTerm& o = *parsed[j];
    const T m = table_num(o.m, static_cast<T*>(nullptr)),
            k = table_num(o.k, static_cast<T*>(nullptr));
    if (o.floor) a_q = a_q + m * T(sign);
    for (long r = 0; r < n; ++r) {
      const T v = T(sign * r) + k;
      f[static_cast<size_t>(r)] =
          f[static_cast<size_t>(r)] + m * (o.floor ? table_floordiv(v, c) : table_mod(v, c));
    }
  }
  const ex cx = detail::ex_of(c_int);
  // The candidates' parts are built only for a table they fit (most fit none).
  auto rx = [&] { return symshape::mod(Expr(x), Expr(cx)).ex(); };
  auto fits = [&](auto&& g) {
    for (long r = 0; r < n; ++r) {
      if (!(f[static_cast<size_t>(r)] == g(T(r)))) return false;
    }
    return true;
  };
  const T a0 = f[0], b = f[1] - f[0];
  if (fits([&](const T& r) { return a0 + b * r; })) {
    candidates.push_back(a_q == b * c
                             ? ex_of_num(b) * x + ex_of_num(a0)
                             : ex_of_num(a_q) * symshape::floordiv(Expr(x), Expr(cx)).ex() +
                                   ex_of_num(b) * rx() + ex_of_num(a0));
  }
  for (long jl = 0; jl < n; ++jl) {
    const T j(jl);
    auto shifted = [&] { return poly_normal(x + ex(jl)); };
    if (a_q == T(1) || a_q == T(-1)) {
      if (fits([&](const T& r) { return a0 + a_q * table_floordiv(r + j, c); })) {
        candidates.push_back(ex_of_num(a_q) * symshape::floordiv(Expr(shifted()), Expr(cx)).ex() +
                             ex_of_num(a0));
      }
    } else if (table_zero(a_q)) {
      for (long sbl : {1L, -1L}) {
        const T sb(sbl);
        if (jl > 0 && fits([&](const T& r) { return a0 + sb * table_floordiv(r + j, c); })) {
          ex step = symshape::floordiv(Expr(rx() + ex(jl)), Expr(cx)).ex();
          candidates.push_back(ex(sbl) * step + ex_of_num(a0));
        }
        const T base = f[0] - sb * table_mod(j, c);
        if (fits([&](const T& r) { return base + sb * table_mod(r + j, c); })) {
          candidates.push_back(ex(sbl) * symshape::mod(Expr(shifted()), Expr(cx)).ex() +
                               ex_of_num(base));
        }
      }
    }
  }
}

// offset_candidates_on machine integers when every member's coefficient and offset is below
// 2^19 in magnitude and there are fewer than 256 members (so each table value is below 2^47
// and b*r, with r < kMaxOffsetModulus, below 2^53), else on Num.
void offset_candidates(const std::vector<std::optional<OffsetTerm>>& parsed,
                       const std::vector<std::pair<size_t, int>>& members, const ex& x,
                       const Int& c_int, std::vector<ex>& candidates) {
  bool small = members.size() < 256;
  for (const auto& [j, sign] : members) {
    if (!small) break;
    small = cln::integer_length(parsed[j]->m) < 20 && cln::integer_length(parsed[j]->k) < 20;
  }
  if (small) {
    offset_candidates_on<int64_t>(parsed, members, x, c_int, candidates);
  } else {
    offset_candidates_on<Num>(parsed, members, x, c_int, candidates);
  }
}

}  // namespace

// Rule: divisions of x + k by one constant c with different offsets k (and of -x + k) are
// related through q == x // c and r == x % c: (s*x + k) // c == s*q + (s*r + k) // c and
// (s*x + k) % c == (s*r + k) % c for s == +-1. Their sum is A*q + F(r), F tabulated over
// r in [0, c - 1], and rewritten as the smallest of: A*q + b*r + a (b*x + a when A == b*c) when F
// is linear in r, A*((x + j) // c) + a for A == +-1, b*((x + j) % c) + a and
// b*((x % c + j) // c) + a for A == 0:
// x % 2 + (x + 1) % 2 == 1, (x + 1)//2 - x//2 == x % 2, x//2 + x % 2 == (x + 1)//2. Taken when
// the sum gets smaller.
ex Simplifier::relate_offsets(const ex& e) {
  if (!is_add(e) || !(calls_in(e) & (fn_bit(Fn::FloorDiv) | fn_bit(Fn::Mod)))) return e;
  if (!may_relate_offsets(e)) return e;
  std::vector<ex> terms = terms_of(e);
  std::vector<std::optional<OffsetTerm>> parsed;
  size_t found = 0;
  for (const ex& t : terms) {
    parsed.push_back(offset_term(t));
    if (parsed.back()) ++found;
  }
  // One remainder with a constant beside it is related too: 2 - (t + 1) % 2 is t % 2 + 1.
  bool lone_mod = false;
  if (found == 1) {
    for (size_t i = 0; i < terms.size(); ++i) {
      if (parsed[i] && !parsed[i]->floor && parsed[i]->k != 0) lone_mod = true;
    }
  }
  if (found < 2 && !lone_mod) return e;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!parsed[i]) continue;
    const ex x = parsed[i]->x;
    const Int c = parsed[i]->c;
    // The members: the terms over x or -x by c.
    std::vector<std::pair<size_t, int>> members;
    for (size_t j = i; j < terms.size(); ++j) {
      if (!parsed[j] || parsed[j]->c != c) continue;
      if (parsed[j]->x.is_equal(x)) {
        members.emplace_back(j, 1);
      } else if (poly_normal(parsed[j]->x + x).is_zero()) {
        members.emplace_back(j, -1);
      }
    }
    if (members.size() < 2 && !lone_mod) continue;
    size_t before = 1;  // the sum node
    for (const auto& [j, sign] : members) before += node_count(terms[j]);
    std::vector<ex> candidates;
    offset_candidates(parsed, members, x, c, candidates);
    std::optional<ex> best;
    size_t best_size = before;
    for (const ex& cand : candidates) {
      size_t size = node_count(cand);
      if (size < best_size) {
        best = cand;
        best_size = size;
      }
    }
    if (!best) continue;
    std::vector<ex> rest;
    std::vector<bool> used(terms.size(), false);
    for (const auto& [j, sign] : members) used[j] = true;
    for (size_t j = 0; j < terms.size(); ++j) {
      if (!used[j]) rest.push_back(terms[j]);
    }
    rest.push_back(*best);
    ex out = poly_normal(sum_of(rest));
    if (below_depth_cap()) {
      ++depth_;
      out = run(out);
      --depth_;
    }
    return node_count(out) < node_count(e) ? out : e;
  }
  return e;
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
      const ex a = run(e.op(0)), b = run(e.op(1));
      // With its arguments unchanged the call is e itself (evaluating it again gives e).
      cur = a.is_equal(e.op(0)) && b.is_equal(e.op(1)) ? e : apply(f, Expr(a), Expr(b)).ex();
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
  if (r.is_equal(cur)) {
    r = cur;  // the same object, which later comparisons tell at once
  } else if (below_depth_cap()) {
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

namespace {

// Whether the nest of f calls e is what run_args builds from its arguments as they are: nested
// to the left (f(f(a, b), c), no call of f as a right argument), with a bottom call that f's
// evaluation keeps (not two numbers, not two equal arguments; the calls above it have a call of
// f on the left and something else on the right, which it keeps too).
bool left_nested_as_built(const ex& e, Fn f) {
  ex cur = e;
  while (call_of(cur) == f) {
    const ex& a = cur.op(0);
    const ex& b = cur.op(1);
    if (call_of(b) == f) return false;
    if (call_of(a) != f) return !(is_integer(a) && is_integer(b)) && !a.is_equal(b);
    cur = a;
  }
  return false;
}

}  // namespace

ex Simplifier::run_args(const ex& e, Fn f) {
  std::vector<ex> args;
  flatten_calls(e, f, args);
  bool changed = false;
  for (ex& a : args) {
    ex r = run(a);
    if (!changed && !r.is_equal(a)) changed = true;
    a = std::move(r);
  }
  // Rebuilt from unchanged arguments, a nest already in that form is itself.
  if (!changed && left_nested_as_built(e, f)) return e;
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
    case Fn::FloorDiv: return floordiv_rules(*this, e);
    case Fn::Mod: return mod_rules(*this, e);
    case Fn::CeilDiv: return ceildiv_rules(*this, e);
    case Fn::Max:
    case Fn::Min: return minmax_rules(*this, f, e);
    case Fn::None: break;
  }
  return e;
}

ValueRange Simplifier::range(const ex& e) {
  if (is_integer(e)) return ValueRange::point(int_of(e));
  return analysis(e).range;
}

ModularSet Simplifier::modular(const ex& e) { return analysis(e).modular; }

// One analysis of e gives both its range and its modular set (range_and_modular_set, the same
// answers as bound_with(e, facts, {}) and modular_set(e, facts)); the rules ask both of the same
// sub-terms (mod_by_constant asks the modular set, then the range).
const RangeAndModular& Simplifier::analysis(const ex& e) {
  if (auto it = ranges_.find(e); it != ranges_.end()) return it->second;
  RangeAndModular both;
  try {
    // Without bounds by projection over the relations: costly on every sub-term, and the
    // rules that need a relation ask prove().
    // The memo is bounded like the tables begin_call() bounds: past the bound, dropped whole.
    if (analysis_memo_.size() > (size_t{1} << 16)) analysis_memo_.clear();
    both = detail::range_and_modular_set(Expr(e), facts_, analysis_memo_);
  } catch (const Error&) {
    // One of the two refused (a possibly-zero divisor): each on its own, as each would be asked.
    try {
      both.range = detail::bound_with(Expr(e), facts_, {});
    } catch (const Error&) {
      both.range = ValueRange::all();
    }
    try {
      both.modular = modular_set(Expr(e), facts_);
    } catch (const Error&) {
      both.modular = {};
    }
  }
  return ranges_.emplace(e, std::move(both)).first->second;
}

bool Simplifier::range_is_exact(const ex& e) const {
  if (is_integer(e)) return true;
  if (!is_symbol(e)) return false;
  return facts_.assumptions().empty() ||
         facts_.assumptions_mentioning(GiNaC::ex_to<GiNaC::symbol>(e).get_name()).empty();
}

Truth Simplifier::decide(RelOp op, const ex& lhs, const ex& rhs) {
  Question key{op, false, lhs, rhs};
  if (auto it = decisions_.find(key); it != decisions_.end()) return it->second;
  Truth t;
  try {
    t = prove(Cond::rel(op, Expr(lhs), Expr(rhs)), facts_);
  } catch (const Error&) {
    t = Truth::Unknown;
  }
  decisions_.emplace(std::move(key), t);
  return t;
}

// The three below settle what the range settles (including a range that shows the answer is
// no), and ask prove() only about the rest.

bool Simplifier::nonzero(const ex& e) {
  ValueRange r = range(e);
  if (!r.contains(Int(0))) return true;
  if (r.is_point() || range_is_exact(e)) return false;
  // A product is nonzero when every factor is (a natural power when its base is).
  if (is_mul(e) || (is_power(e) && is_integer(e.op(1)) && int_of(e.op(1)) > 0)) {
    bool all = true;
    if (is_power(e)) {
      all = nonzero(e.op(0));
    } else {
      for (size_t i = 0; i < e.nops() && all; ++i) {
        const ex& f = e.op(i);
        all = is_number(f) ? !f.is_zero() : nonzero(f);
      }
    }
    if (all) return true;
  }
  return shown(RelOp::Ne, e, 0);
}

bool Simplifier::positive(const ex& e) {
  ValueRange r = range(e);
  if (r.lo() && *r.lo() > 0) return true;
  if ((r.hi() && *r.hi() <= 0) || range_is_exact(e)) return false;
  return shown(RelOp::Gt, e, 0);
}

namespace {

// s.nonnegative(e) for e whose range r is known.
bool nonnegative_in(Simplifier& s, const ex& e, const ValueRange& r) {
  if (r.lo() && *r.lo() >= 0) return true;
  if ((r.hi() && *r.hi() < 0) || s.range_is_exact(e)) return false;
  return s.shown(RelOp::Ge, e, 0);
}

}  // namespace

bool Simplifier::nonnegative(const ex& e) { return nonnegative_in(*this, e, range(e)); }

bool Simplifier::below_divisor(const ex& n, const ex& d) {
  ValueRange rn = range(n), rd = range(d);
  if (rn.lo() && rd.hi() && *rn.lo() >= *rd.hi()) return false;  // n >= d everywhere
  if (rn.hi() && rd.lo() && *rn.hi() < *rd.lo()) return nonnegative_in(*this, n, rn);
  if (range_is_exact(n) && range_is_exact(d)) return false;
  return nonnegative_in(*this, n, rn) && shown(RelOp::Lt, n, d);
}

namespace {

// e's value where each symbol takes its value in `at` (by identity); nullopt when e divides by
// zero there, has a non-integer coefficient, or a symbol without a value.
std::optional<Int> value_at(const ex& e, const std::vector<std::pair<ex, Int>>& at) {
  if (is_number(e)) {
    if (!is_integer(e)) return std::nullopt;
    return int_of(e);
  }
  if (is_symbol(e)) {
    for (const auto& [symbol, v] : at) {
      if (symbol.is_equal(e)) return v;
    }
    return std::nullopt;
  }
  if (is_add(e) || is_mul(e)) {
    // Read on the pairs (see PairsOf): a term rest*c of a sum, a factor rest^c of a product, and
    // the overall coefficient, which must be integers (a factor's exponent also natural, <= 64).
    const bool sum = is_add(e);
    Int acc = sum ? 0 : 1;
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      const auto& c = GiNaC::ex_to<GiNaC::numeric>(p.coeff);
      if (!c.is_integer()) return std::nullopt;
      const Int k = cln::the<Int>(c.to_cl_N());
      if (!sum && (k < 0 || k > 64)) return std::nullopt;
      std::optional<Int> v = value_at(p.rest, at);
      if (!v) return std::nullopt;
      if (sum) {
        acc = acc + (k == 1 ? *v : *v * k);
      } else {
        acc = acc * (k == 1 ? *v : cln::expt_pos(*v, cln::cl_I_to_ulong(k)));
      }
    }
    const ex& overall = PairsOf::overall(e);
    if (!is_integer(overall)) return std::nullopt;
    return sum ? acc + int_of(overall) : acc * int_of(overall);
  }
  if (is_power(e)) {
    if (!is_integer(e.op(1)) || int_of(e.op(1)) < 0 || int_of(e.op(1)) > 64) return std::nullopt;
    std::optional<Int> b = value_at(e.op(0), at);
    if (!b) return std::nullopt;
    return cln::expt_pos(*b, cln::cl_I_to_ulong(int_of(e.op(1))));
  }
  const Fn f = call_of(e);
  if (f == Fn::None) return std::nullopt;
  std::optional<Int> a = value_at(e.op(0), at), b = value_at(e.op(1), at);
  if (!a || !b) return std::nullopt;
  switch (f) {
    case Fn::FloorDiv: return *b == 0 ? std::nullopt : std::optional<Int>(floor_div(*a, *b));
    case Fn::Mod: return *b == 0 ? std::nullopt : std::optional<Int>(cln::mod(*a, *b));
    case Fn::CeilDiv: return *b == 0 ? std::nullopt : std::optional<Int>(-floor_div(-*a, *b));
    case Fn::Max: return cln::max(*a, *b);
    case Fn::Min: return cln::min(*a, *b);
    case Fn::None: break;
  }
  return std::nullopt;
}

// The distinct symbols of e (by identity), each with the value 0.
void collect_symbols(const ex& e, std::vector<std::pair<ex, Int>>& out) {
  if (is_symbol(e)) {
    for (const auto& [symbol, v] : out) {
      if (symbol.is_equal(e)) return;
    }
    out.emplace_back(e, Int(0));
    return;
  }
  if (is_add(e) || is_mul(e)) {  // the pairs' rests (their coefficients are numbers)
    for (const GiNaC::expair& p : PairsOf::pairs(e)) collect_symbols(p.rest, out);
    return;
  }
  for (size_t i = 0, n = e.nops(); i < n; ++i) collect_symbols(e.op(i), out);
}

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

}  // namespace

// A point the facts allow where lhs op rhs is false: prove() (sound) cannot show the relation
// then, and is not asked. Only under facts that are ranges alone (no assumption, no
// divisibility fact), where a point is allowed exactly when each symbol lies in its range. The
// points: every symbol at the low end of its range (the high end or 0 when it has none), then
// at distinct small, larger and far offsets from there (kept within the range). The far point
// refutes the bounds the rules ask of unbounded sizes (x//8 < 4, x + 5 < 16), which prove() would
// only fail to show.
bool Simplifier::refuted_by_sample(RelOp op, const ex& lhs, const ex& rhs) {
  if (!facts_.assumptions().empty() || !facts_.divisibility().empty()) return false;
  // lhs - rhs, whose value is asked; against a constant, lhs's value less it (the same symbols
  // and the same value, without building the difference).
  const bool constant_rhs = is_integer(rhs);
  const ex d = constant_rhs ? lhs : lhs - rhs;
  const Int offset = constant_rhs ? int_of(rhs) : Int(0);
  std::vector<std::pair<ex, Int>> at;
  collect_symbols(d, at);
  std::sort(at.begin(), at.end(), [](const auto& a, const auto& b) {
    return GiNaC::ex_to<GiNaC::symbol>(a.first).get_name() <
           GiNaC::ex_to<GiNaC::symbol>(b.first).get_name();
  });
  std::vector<ValueRange> ranges;
  ranges.reserve(at.size());
  for (const auto& [symbol, value] : at) {
    ranges.push_back(facts_.range_of(GiNaC::ex_to<GiNaC::symbol>(symbol).get_name()));
  }
  // The far point first: it refutes most of what the rules ask (on the expression corpus, every
  // refuted question), and the answer, whether some point refutes, is the same in any order.
  for (int k : {3, 0, 1, 2}) {
    for (size_t i = 0; i < at.size(); ++i) {
      const ValueRange& r = ranges[i];
      const long step = k == 0   ? 0
                        : k == 1 ? 1 + static_cast<long>(i * 3 % 7)
                        : k == 2 ? 9 + 13 * static_cast<long>(i)
                                 : 1000 + 37 * static_cast<long>(i);
      Int v = r.lo() ? *r.lo() + step : r.hi() ? *r.hi() - step : Int(step);
      if (r.hi() && v > *r.hi()) v = *r.hi();
      if (r.lo() && v < *r.lo()) v = *r.lo();
      at[i].second = v;
    }
    std::optional<Int> v = value_at(d, at);
    if (v && !holds(op, *v - offset)) return true;
  }
  return false;
}

bool Simplifier::shown(RelOp op, const ex& lhs, const ex& rhs) {
  Question key{op, true, lhs, rhs};
  if (auto it = decisions_.find(key); it != decisions_.end()) return it->second == Truth::True;
  bool yes;
  if (auto it = decisions_.find(Question{op, false, lhs, rhs}); it != decisions_.end()) {
    // Decided already: a sample point can refute only what prove() (sound) did not show.
    yes = it->second == Truth::True;
  } else {
    yes = !refuted_by_sample(op, lhs, rhs) && decide(op, lhs, rhs) == Truth::True;
  }
  decisions_.emplace(std::move(key), yes ? Truth::True : Truth::False);
  return yes;
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
  if (facts_.divisibility().empty()) {
    // No known divisor of a symbol and no fact (p, q): only the coefficients can be multiples
    // of d, read without splitting the terms.
    if (!is_integer(d)) return false;
    // On Num, whose int64 remainder needs no CLN call.
    const Num c(cln::the<Rat>(GiNaC::ex_to<GiNaC::numeric>(d).to_cl_N()));
    if (c.is_zero()) return false;
    if (c.is_one() || (c.is_small() && c.small_value() == -1)) return true;
    if (t.is_zero()) return false;
    auto multiple = [&](const GiNaC::numeric& k) {
      return k.is_integer() && detail::mod(Num(cln::the<Rat>(k.to_cl_N())), c).is_zero();
    };
    if (!is_add(t)) return multiple(coefficient_of(t));
    // Read on the pairs (t.op(i) would build each term): a term rest*coeff has coefficient
    // coeff, and the constant term is the overall coefficient (no term when it is 0).
    for (const GiNaC::expair& p : PairsOf::pairs(t)) {
      if (!multiple(GiNaC::ex_to<GiNaC::numeric>(p.coeff))) return false;
    }
    const auto& overall = GiNaC::ex_to<GiNaC::numeric>(PairsOf::overall(t));
    return overall.is_zero() || multiple(overall);
  }
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

// `m op 0` written with its constant on the right, and turned around when every other
// coefficient is negative: x - 2 < 0 is `x < 2`, -x - 2 < 0 is `x > -2`.
Cond oriented(RelOp op, const ex& m) {
  ex k = 0;
  std::vector<ex> rest;
  bool all_negative = true;
  for (const ex& t : terms_of(m)) {
    if (is_integer(t)) {
      k = t;
      continue;
    }
    rest.push_back(t);
    if (!coefficient_of(t).is_negative()) all_negative = false;
  }
  ex lhs = sum_of(rest);
  if (all_negative && !rest.empty()) return Cond::rel(reverse(op), Expr(-lhs), Expr(k));
  return Cond::rel(op, Expr(lhs), Expr(-k));
}

// Rule: a relation `d op 0` whose terms share a factor g. For == and != every non-constant
// coefficient is a multiple of g (the constant too, or the relation is decided):
// 4*(a % 4) == 0 is a % 4 == 0. For an order, d is put as e < 0 (d <= 0 is d - 1 < 0, d > 0 is
// -d < 0, d >= 0 is -d - 1 < 0), and e == g*q + r with r in [k*g, k*g + g - 1] gives q + k < 0:
// 8*x + y < 16 is x < 2 for y in [0, 7]. The largest such g is taken.
std::optional<Cond> divide_relation(Simplifier& s, RelOp op, const ex& d) {
  std::vector<ex> terms = terms_of(d);
  for (const ex& t : terms) {
    if (!coefficient_of(t).is_integer()) return std::nullopt;
  }
  if (op == RelOp::Eq || op == RelOp::Ne) {
    Int g = 0, k = 0;
    for (const ex& t : terms) {
      if (is_integer(t)) {
        k = int_of(t);
      } else {
        g = cln::gcd(g, int_of(coefficient_of(t)));
      }
    }
    if (g <= 1 || !divides(g, k)) return std::nullopt;
    return oriented(op, exact_quotient(d, ex_of(g)));
  }
  ex e = op == RelOp::Lt ? d : op == RelOp::Le ? d - 1 : op == RelOp::Gt ? -d : -d - 1;
  e = poly_normal(e);
  terms = terms_of(e);
  std::vector<Int> candidates;
  for (const ex& t : terms) {
    if (is_integer(t)) continue;
    Int c = cln::abs(int_of(coefficient_of(t)));
    if (c > 1) candidates.push_back(c);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Int& a, const Int& b) { return a > b; });
  std::vector<Int> tried;
  for (const Int& c : candidates) {
    // Every divisor of a coefficient could serve; the gcds of pairs of coefficients cover the
    // useful ones (g must divide the coefficients it keeps).
    for (const Int& other : candidates) {
      Int g = cln::gcd(c, other);
      if (g <= 1 || std::find(tried.begin(), tried.end(), g) != tried.end()) continue;
      tried.push_back(g);
    }
  }
  std::sort(tried.begin(), tried.end(), [](const Int& a, const Int& b) { return a > b; });
  for (const Int& g : tried) {
    std::vector<ex> multiples, others;
    for (const ex& t : terms) {
      if (!is_integer(t) && divides(g, int_of(coefficient_of(t)))) {
        multiples.push_back(t);
      } else {
        others.push_back(t);
      }
    }
    ValueRange rr = s.range(sum_of(others));
    if (!rr.lo() || !rr.hi()) continue;
    Int k = floor_div(*rr.lo(), g);
    if (k != floor_div(*rr.hi(), g)) continue;
    return oriented(RelOp::Lt, poly_normal(sum_of(multiples) / ex_of(g) + ex_of(k)));
  }
  return std::nullopt;
}

// Rule: `d op 0` with d == ±(E // c) + k for a constant c > 0 is solved for E:
// E // c < k is E < k*c, E // c <= k is E < (k + 1)*c, E // c == k is
// k*c <= E < (k + 1)*c (and the duals); (a + 10)//3 == 3 is a < 2 for a >= 1.
std::optional<Cond> solve_floordiv(RelOp op, const ex& d) {
  ex call;
  Int sign = 0, k = 0;
  for (const ex& t : terms_of(d)) {
    if (is_integer(t)) {
      k = int_of(t);
      continue;
    }
    Term term = split_term(t);
    if (sign != 0 || call_of(term.rest) != Fn::FloorDiv) return std::nullopt;
    if (!term.coeff.is_equal(1) && !term.coeff.is_equal(-1)) return std::nullopt;
    call = term.rest;
    sign = term.coeff.is_equal(1) ? 1 : -1;
  }
  if (sign == 0 || !is_integer(call.op(1)) || int_of(call.op(1)) <= 0) return std::nullopt;
  // F op -k (sign 1), or -F op -k, that is F reverse(op) k.
  RelOp rel = op;
  Int v = -k;
  if (sign == -1) {
    rel = reverse(op);
    v = k;
  }
  const ex& n = call.op(0);
  const Int c = int_of(call.op(1));
  auto below = [&](const Int& bound) { return oriented(RelOp::Lt, poly_normal(n - ex_of(bound))); };
  auto at_least = [&](const Int& bound) {
    return oriented(RelOp::Ge, poly_normal(n - ex_of(bound)));
  };
  switch (rel) {
    case RelOp::Lt: return below(v * c);
    case RelOp::Le: return below((v + 1) * c);
    case RelOp::Gt: return at_least((v + 1) * c);
    case RelOp::Ge: return at_least(v * c);
    case RelOp::Eq: return Cond::all({at_least(v * c), below((v + 1) * c)});
    case RelOp::Ne: return Cond::any({below(v * c), at_least((v + 1) * c)});
  }
  return std::nullopt;
}

// Rule: `y == min(a, ..., y)` says y is the smallest: y <= a and ...; `y == max(a, ..., y)`
// that it is the largest (and `!=` the negation). d is ±(y - min(...)) with y one of min's
// arguments: a slice `t[:s]` of a dim of size 32 has size min(32, s), and PyTorch's trace
// declaring it s guards s <= 32, which this makes a range.
std::optional<Cond> solve_minmax_argument(RelOp op, const ex& d) {
  if (op != RelOp::Eq && op != RelOp::Ne) return std::nullopt;
  for (const ex& t : terms_of(d)) {
    const Term call = split_term(t);
    const Fn f = call_of(call.rest);
    if ((f != Fn::Min && f != Fn::Max) || !(call.coeff.is_equal(1) || call.coeff.is_equal(-1)))
      continue;
    // d is c*(call - y): y is -(d - c*call)/c.
    const ex y = poly_normal(-(d - t) / call.coeff);
    std::vector<ex> args;
    flatten_calls(call.rest, f, args);
    if (std::none_of(args.begin(), args.end(), [&](const ex& a) { return a.is_equal(y); }))
      continue;
    std::vector<Cond> bounds;
    for (const ex& a : args) {
      if (a.is_equal(y)) continue;
      bounds.push_back(oriented(f == Fn::Min ? RelOp::Le : RelOp::Ge, poly_normal(y - a)));
    }
    const Cond all = Cond::all(std::move(bounds));
    return op == RelOp::Eq ? all : !all;
  }
  return std::nullopt;
}

// e simplified, and e with the assumed equalities rewritten in (p == h*w: p // h is w)
// simplified too; the smaller is taken (both equal e wherever the facts hold).
ex simplify_substituted(Simplifier& s, const ex& e) {
  ex r = s.run(e);
  if (s.facts().substitutions().empty()) return r;
  ex sub = s.facts().substitute(Expr(e)).ex();
  if (sub.is_equal(e)) return r;
  ex r2 = s.run(sub);
  return node_count(r2) < node_count(r) ? r2 : r;
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
  Expr l(simplify_substituted(s, c.lhs().ex())), r(simplify_substituted(s, c.rhs().ex()));
  // Both sides moved to one: constant when they differ by a constant.
  ex diff = poly_normal(l.ex() - r.ex());
  if (is_integer(diff)) return Cond::truth(holds(c.op(), int_of(diff)));
  // The difference simplified as a whole: its divisions may recombine across the two sides,
  // s + (-s) % m - m*ceildiv(s, m) is 0.
  if (s.calls_in(diff) & kDivisionCalls) {
    ex d1 = s.run(diff);
    if (is_integer(d1)) return Cond::truth(holds(c.op(), int_of(d1)));
  }
  if (!s.facts().substitutions().empty()) {
    // The same under the assumed equalities: a + b - 7 is 0 given b == 7 - a.
    ex d2 = s.run(s.facts().substitute(Expr(diff)).ex());
    if (is_integer(d2)) return Cond::truth(holds(c.op(), int_of(d2)));
  }
  Cond rel = Cond::rel(c.op(), l, r);
  if (rel.kind() != Cond::Kind::Rel) return rel;
  switch (s.decide(c.op(), l.ex(), r.ex())) {
    case Truth::True: return Cond::truth(true);
    case Truth::False: return Cond::truth(false);
    case Truth::Unknown: break;
  }
  if (auto divided = divide_relation(s, c.op(), diff)) return *divided;
  if (auto solved = solve_minmax_argument(c.op(), diff)) return simplify_cond(s, *solved);
  if (auto solved = solve_floordiv(c.op(), diff)) {
    Cond r2 = simplify_cond(s, *solved);
    // Taken when it leaves one relation (or a decision), not a pair of them.
    if (r2.kind() != Cond::Kind::And && r2.kind() != Cond::Kind::Or) return r2;
  }
  return rel;
}

}  // namespace
}  // namespace detail

namespace {

// Marks the thread as inside simplify() (see detail::inside_simplify) for one call.
class SimplifyScope {
 public:
  SimplifyScope() : saved_(detail::inside_simplify()) { detail::inside_simplify() = true; }
  ~SimplifyScope() { detail::inside_simplify() = saved_; }
  SimplifyScope(const SimplifyScope&) = delete;
  SimplifyScope& operator=(const SimplifyScope&) = delete;

 private:
  bool saved_;
};

}  // namespace

Expr simplify(const Expr& e, const Facts& facts) {
  SimplifyScope scope;
  detail::Simplifier s(facts);
  return Expr(detail::simplify_substituted(s, e.ex()));
}

Cond simplify(const Cond& c, const Facts& facts) {
  SimplifyScope scope;
  detail::Simplifier s(facts);
  return detail::simplify_cond(s, c);
}

Simplification::Simplification(const Facts& facts)
    : s_(std::make_unique<detail::Simplifier>(facts)) {}
Simplification::~Simplification() = default;

Expr Simplification::simplify(const Expr& e) {
  SimplifyScope scope;
  s_->begin_call();
  if (const GiNaC::ex* r = s_->top_level_result(e.ex())) return Expr(*r);
  const unsigned long cuts = s_->cuts();
  const GiNaC::ex r = detail::simplify_substituted(*s_, e.ex());
  if (s_->cuts() != cuts) s_->remember_top_level(e.ex(), r);
  return Expr(r);
}

Cond Simplification::simplify(const Cond& c) {
  SimplifyScope scope;
  s_->begin_call();
  return detail::simplify_cond(*s_, c);
}

}  // namespace symshape
