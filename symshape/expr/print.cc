// The deterministic printer and the canonical order it sorts with. GiNaC keeps sums and products
// in hash order, which depends on symbol creation order; we never print in that order.
#include <cln/real.h>

#include <algorithm>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"

namespace symshape {

namespace {

using GiNaC::ex;

int sign(int v) { return (v > 0) - (v < 0); }

// One factor base**exp of a product (exp is 1 for a plain factor).
struct Factor {
  ex base;
  ex exp;
};

// A product coeff * base1**exp1 * ... in a form that does not depend on GiNaC's choices. GiNaC
// moves the sign of a sum factor in or out by hash order (`(z - a)*m` may be stored as
// `-(a - z)*m`), so every sum base here has a positive leading term, and the factors are sorted.
struct Monomial {
  GiNaC::numeric coeff;
  std::vector<Factor> factors;
};

Monomial monomial(const ex& e);

int compare_factors(const Factor& a, const Factor& b) {
  if (int c = canonical_compare(a.base, b.base)) return c;
  return canonical_compare(a.exp, b.exp);
}

int compare_factor_lists(const std::vector<Factor>& a, const std::vector<Factor>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = compare_factors(a[i], b[i])) return c;
  }
  return sign(static_cast<int>(a.size()) - static_cast<int>(b.size()));
}

// Total degree, counting a function call as one symbol: orders the terms of a sum. Exact, since
// nested powers such as ((x**2 + 1)**2 + 1)**2... overflow any machine integer.
Int degree(const ex& e) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return 0;
  if (detail::is_exactly<GiNaC::power>(e)) {
    const ex exponent = e.op(1);
    return detail::is_int(exponent) ? degree(e.op(0)) * detail::int_of(exponent) : Int(1);
  }
  if (detail::is_exactly<GiNaC::mul>(e)) {
    Int d = 0;
    for (size_t i = 0, n = e.nops(); i < n; ++i) d = d + degree(e.op(i));
    return d;
  }
  if (detail::is_exactly<GiNaC::add>(e)) {
    Int d = 0;
    for (size_t i = 0, n = e.nops(); i < n; ++i) d = cln::max(d, degree(e.op(i)));
    return d;
  }
  return 1;
}

// A non-constant term of a sum, in the order the printer writes them: highest degree first.
struct Term {
  Monomial m;
  Int degree;
};

Term make_term(const ex& e) { return {monomial(e), degree(e)}; }

bool term_before(const Term& a, const Term& b) {
  if (a.degree != b.degree) return a.degree > b.degree;
  return compare_factor_lists(a.m.factors, b.m.factors) < 0;
}

// The sign of the term a sum prints first.
int leading_sign(const ex& sum) {
  std::optional<Term> lead;
  for (size_t i = 0, n = sum.nops(); i < n; ++i) {
    const ex term = sum.op(i);
    if (detail::is_exactly<GiNaC::numeric>(term)) continue;  // constants print last
    Term t = make_term(term);
    if (!lead || term_before(t, *lead)) lead = std::move(t);
  }
  return lead ? lead->m.coeff.csgn() : 1;
}

void add_factor(Monomial& m, const ex& f) {
  const bool is_power = detail::is_exactly<GiNaC::power>(f);
  Factor factor{is_power ? f.op(0) : f, is_power ? f.op(1) : ex(1)};
  if (detail::is_exactly<GiNaC::add>(factor.base) && detail::is_int(factor.exp) &&
      leading_sign(factor.base) < 0) {
    factor.base = -factor.base;  // still a sum: GiNaC distributes a numeric factor over it
    if (cln::oddp(detail::int_of(factor.exp))) m.coeff = -m.coeff;
  }
  m.factors.push_back(std::move(factor));
}

// One operand of a product: its numeric coefficient or a factor.
void add_product_operand(Monomial& m, const ex& f) {
  if (detail::is_exactly<GiNaC::numeric>(f)) {
    m.coeff = m.coeff * GiNaC::ex_to<GiNaC::numeric>(f);
  } else {
    add_factor(m, f);
  }
}

void sort_factors(Monomial& m) {
  std::sort(m.factors.begin(), m.factors.end(),
            [](const Factor& a, const Factor& b) { return compare_factors(a, b) < 0; });
}

Monomial monomial(const ex& e) {
  Monomial m{GiNaC::numeric(1), {}};
  if (detail::is_exactly<GiNaC::numeric>(e)) {
    m.coeff = GiNaC::ex_to<GiNaC::numeric>(e);
  } else if (detail::is_exactly<GiNaC::mul>(e)) {
    // GiNaC builds a power per call of op(i) on a product: each operand is read once.
    const size_t n = e.nops();
    m.factors.reserve(n);
    for (size_t i = 0; i < n; ++i) add_product_operand(m, e.op(i));
  } else if (detail::is_exactly<GiNaC::power>(e)) {
    add_factor(m, e);
  } else {
    m.factors.push_back({e, ex(1)});  // a sum on its own keeps its sign: it is the value
  }
  sort_factors(m);
  return m;
}

// The sign the printer gives e: of its first term for a sum, of its coefficient otherwise.
int canonical_sign(const ex& e) {
  if (detail::is_exactly<GiNaC::add>(e)) return leading_sign(e);
  return monomial(e).coeff.csgn();
}

// Type ranks for the canonical order: numbers, then symbols and powers (compared as base**exp),
// then products, sums, and function calls. Ranked on the monomial, since GiNaC may store the
// same power as a power or as -1 times a power.
int rank(const ex& e, const Monomial& m) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return 0;
  if (m.factors.size() != 1 || m.coeff != 1) return 2;
  const Factor& f = m.factors[0];
  if (detail::is_exactly<GiNaC::symbol>(f.base) || !f.exp.is_equal(1)) return 1;
  if (detail::is_exactly<GiNaC::add>(f.base)) return 3;
  return 4;
}

std::vector<ex> sorted_operands(const ex& e) {
  std::vector<ex> ops;
  ops.reserve(e.nops());
  for (size_t i = 0; i < e.nops(); ++i) ops.push_back(e.op(i));
  std::sort(ops.begin(), ops.end(),
            [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
  return ops;
}

int compare_lists(const std::vector<ex>& a, const std::vector<ex>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = canonical_compare(a[i], b[i])) return c;
  }
  return sign(static_cast<int>(a.size()) - static_cast<int>(b.size()));
}

// The constant term of a sum, or 0 if it has none: GiNaC gives it as the last operand when it
// is not zero.
ex sum_constant(const ex& sum) {
  ex last = sum.op(sum.nops() - 1);
  return detail::is_exactly<GiNaC::numeric>(last) ? last : ex(0);
}

// Two sums compare as their sorted operands. A number sorts first (and a sum has at most one),
// so the constant terms decide when they differ, without sorting either sum.
int compare_sums(const ex& a, const ex& b) {
  const ex ca = sum_constant(a), cb = sum_constant(b);
  const auto& na = GiNaC::ex_to<GiNaC::numeric>(ca);
  const auto& nb = GiNaC::ex_to<GiNaC::numeric>(cb);
  if (na.is_zero() != nb.is_zero()) return na.is_zero() ? 1 : -1;
  if (!na.is_equal(nb)) {
    return cln::compare(cln::realpart(na.to_cl_N()), cln::realpart(nb.to_cl_N()));
  }
  return compare_lists(sorted_operands(a), sorted_operands(b));
}

}  // namespace

namespace {

// The rank of a number (0), a symbol (1), a sum (3) or a function call (4), which are their own
// monomials (coefficient 1, exponent 1); -1 for the rest, whose rank is read from their monomial.
int atom_rank(const ex& e) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return 0;
  if (detail::is_exactly<GiNaC::symbol>(e)) return 1;
  if (detail::is_exactly<GiNaC::add>(e)) return 3;
  if (detail::is_exactly<GiNaC::function>(e)) return 4;
  return -1;
}

}  // namespace

int canonical_compare(const ex& a, const ex& b) {
  if (a.is_equal(b)) return 0;
  // Two atoms or sums (the common case when sorting terms and factors) compare without building
  // their monomials: the order is the one below.
  if (const int ra = atom_rank(a), rb = atom_rank(b); ra >= 0 && rb >= 0) {
    if (ra != rb) return sign(ra - rb);
    if (ra == 3) return compare_sums(a, b);
    if (ra == 1) {
      return sign(GiNaC::ex_to<GiNaC::symbol>(a).get_name().compare(
          GiNaC::ex_to<GiNaC::symbol>(b).get_name()));
    }
    if (ra == 4) {
      Fn fa = function_of(a), fb = function_of(b);
      if (fa != fb) return sign(static_cast<int>(fa) - static_cast<int>(fb));
      for (size_t i = 0; i < a.nops() && i < b.nops(); ++i) {
        if (int c = canonical_compare(a.op(i), b.op(i))) return c;
      }
      return sign(static_cast<int>(a.nops()) - static_cast<int>(b.nops()));
    }
  }
  const Monomial ma = monomial(a), mb = monomial(b);
  int ra = rank(a, ma), rb = rank(b, mb);
  if (ra != rb) return sign(ra - rb);
  switch (ra) {
    case 0:
      return cln::compare(cln::realpart(GiNaC::ex_to<GiNaC::numeric>(a).to_cl_N()),
                          cln::realpart(GiNaC::ex_to<GiNaC::numeric>(b).to_cl_N()));
    case 1: {
      const Factor& fa = ma.factors[0];
      const Factor& fb = mb.factors[0];
      if (detail::is_exactly<GiNaC::symbol>(a) && detail::is_exactly<GiNaC::symbol>(b)) {
        return sign(GiNaC::ex_to<GiNaC::symbol>(a).get_name().compare(
            GiNaC::ex_to<GiNaC::symbol>(b).get_name()));
      }
      return compare_factors(fa, fb);
    }
    case 2: {
      if (int c = compare_factor_lists(ma.factors, mb.factors)) return c;
      return canonical_compare(ma.coeff, mb.coeff);
    }
    case 3: return compare_lists(sorted_operands(a), sorted_operands(b));
    default: {
      Fn fa = function_of(a), fb = function_of(b);
      if (fa != fb) return sign(static_cast<int>(fa) - static_cast<int>(fb));
      std::vector<ex> la, lb;
      for (size_t i = 0; i < a.nops(); ++i) la.push_back(a.op(i));
      for (size_t i = 0; i < b.nops(); ++i) lb.push_back(b.op(i));
      return compare_lists(la, lb);
    }
  }
}

namespace {

// Python precedence, loosest first.
enum Prec { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

struct Printed {
  std::string text;
  Prec prec;
  bool top_is_div = false;  // the outermost operator is // or % (unary minus must not touch it)
};

// `integral`: e is known to have no denominator (has_denominator is false), as every term,
// factor and base of an expression without one is; function arguments are checked afresh.
Printed print(const ex& e, bool integral = false);

// p's text, in parentheses unless it binds at least as tightly as at_least.
std::string wrap(Printed&& p, Prec at_least) {
  if (p.prec >= at_least) return std::move(p.text);
  std::string text;
  text.reserve(p.text.size() + 2);
  text += '(';
  text += p.text;
  text += ')';
  return text;
}

Printed print_binary_fn(const ex& a, const ex& b, const char* op) {
  // Anything but an atom is parenthesized on either side: `(3*x)//2`, `x//(a*b)`.
  std::string text = wrap(print(a), kPower);
  text += op;
  text += wrap(print(b), kPower);
  return {std::move(text), kProduct, true};
}

// A factor of a product without a denominator.
Printed print_factor(const Factor& f) {
  if (f.exp.is_equal(1)) return print(f.base, true);
  // `**` binds tighter than unary minus on its left: (-2)**3.
  std::string text = wrap(print(f.base, true), kAtom);
  text += "**";
  text += print(f.exp).text;
  return {std::move(text), kPower, false};
}

// A product with a non-negative coefficient: `2*x*(y//4)`.
Printed print_product(const Int& coeff, const std::vector<Factor>& factors) {
  bool alone = factors.size() == 1 && coeff == 1;
  if (alone) return print_factor(factors[0]);
  std::string text;
  if (coeff != 1 || factors.empty()) text = to_string(coeff);
  for (const Factor& f : factors) {
    Printed pf = print_factor(f);
    if (!text.empty()) text += '*';
    // A quotient or remainder inside a product is parenthesized: `2*(x//4)`, never `2*x//4`.
    if (pf.top_is_div) {
      text += '(';
      text += pf.text;
      text += ')';
    } else {
      text += wrap(std::move(pf), kProduct);
    }
  }
  return {std::move(text), kProduct, false};
}

// A signed term: the sign goes in front, `-(x//4)` where the magnitude is a bare quotient.
Printed print_signed(const Int& coeff, const std::vector<Factor>& factors) {
  if (coeff >= 0) return print_product(coeff, factors);
  Printed mag = print_product(-coeff, factors);
  // `-x//4` would mean (-x)//4 in Python, and `-x + y` is not -(x + y).
  const bool paren = mag.top_is_div || mag.prec == kSum;
  std::string text;
  text.reserve(mag.text.size() + 3);
  text += paren ? "-(" : "-";
  text += mag.text;
  if (paren) {
    text += ')';
    return {std::move(text), kUnary, false};
  }
  return {std::move(text), mag.prec == kProduct ? kProduct : kUnary, false};
}

// The coefficient of a monomial outside a quotient, which is an integer.
Int int_coeff(const Monomial& m) { return cln::the<cln::cl_I>(m.coeff.to_cl_N()); }

// The constant term of a sum, folded into a quotient of the sum as a person writes a window
// size: `(s + 3)//4 - 1` prints as `(s - 1)//4`, since (E + j)//c + k == (E + j + k*c)//c for
// c > 0. The simplifier keeps offsets in [0, c) (so equal quotients meet and cancel); the
// printer folds the constant into the first quotient, in print order, that has 1 or -1 as
// coefficient, a constant divisor and an offset of its own. `x//2 + 1` stays as it is.
// Returns whether the terms are left sorted (they are when nothing was folded).
bool fold_offset(std::vector<Term>& terms, Int& constant) {
  if (constant == 0) return false;
  std::sort(terms.begin(), terms.end(), term_before);
  for (Term& t : terms) {
    if ((t.m.coeff != 1 && t.m.coeff != -1) || t.m.factors.size() != 1 ||
        !t.m.factors[0].exp.is_equal(1))
      continue;
    const ex& q = t.m.factors[0].base;
    if (function_of(q) != Fn::FloorDiv || !detail::is_int(q.op(1))) continue;
    const Int c = detail::int_of(q.op(1));
    if (c <= 0 || !detail::is_exactly<GiNaC::add>(q.op(0))) continue;
    bool offset = false;
    for (size_t i = 0; i < q.op(0).nops(); ++i) offset = offset || detail::is_int(q.op(0).op(i));
    if (!offset) continue;
    // coeff*Q + k == coeff*(Q + coeff*k) for coeff == +-1.
    const Int coeff = int_coeff(t.m);
    // The term stays coeff times a quotient (degree 1); only the quotient changes.
    t.m.factors[0].base =
        ss_floordiv(q.op(0) + detail::ex_of(coeff * constant * c), q.op(1)).hold();
    constant = 0;
    return false;
  }
  return true;
}

// A sum, given its operands (GiNaC builds an ex per operand of a sum: they are read once).
Printed print_sum(const std::vector<ex>& operands) {
  std::vector<Term> terms;
  Int constant = 0;
  terms.reserve(operands.size());
  for (const ex& term : operands) {
    if (detail::is_int(term)) {
      constant = constant + detail::int_of(term);
    } else {
      terms.push_back(make_term(term));
    }
  }
  const bool sorted = fold_offset(terms, constant);
  // A sum folded into one quotient prints as that quotient: `64*((s - 1)//4)`.
  if (terms.size() == 1 && constant == 0)
    return print_signed(int_coeff(terms[0].m), terms[0].m.factors);
  if (!sorted) std::sort(terms.begin(), terms.end(), term_before);
  std::string text;
  auto append = [&](const Int& c, const std::vector<Factor>& factors) {
    if (text.empty()) {
      text = print_signed(c, factors).text;
    } else {
      text += c < 0 ? " - " : " + ";
      text += wrap(print_product(cln::abs(c), factors), kProduct);
    }
  };
  for (const Term& t : terms) append(int_coeff(t.m), t.m.factors);
  if (constant != 0 || text.empty()) append(constant, {});
  return {std::move(text), kSum, false};
}

Printed print(const ex& e, bool integral) {
  if (detail::is_int(e)) {
    Int v = detail::int_of(e);
    return {to_string(v), v < 0 ? kUnary : kAtom, false};
  }
  if (detail::is_exactly<GiNaC::symbol>(e))
    return {GiNaC::ex_to<GiNaC::symbol>(e).get_name(), kAtom};
  // The operands of a sum or a product, read once (GiNaC builds an ex per op(i) call): for
  // has_denominator, which is that of one of them, and for printing.
  const bool is_sum = detail::is_exactly<GiNaC::add>(e);
  const bool is_product = detail::is_exactly<GiNaC::mul>(e);
  std::vector<ex> operands;
  if (is_sum || is_product) {
    const size_t n = e.nops();
    operands.reserve(n);
    for (size_t i = 0; i < n; ++i) operands.push_back(e.op(i));
  }
  if (!integral &&
      (operands.empty() ? detail::has_denominator(e)
                        : std::any_of(operands.begin(), operands.end(), detail::has_denominator))) {
    // An exact quotient: print numerator // denominator, which has the same (integer) value.
    // GiNaC picks the denominator's sign by hash order; pick it by the printed form instead.
    ex nd = e.numer_denom();
    ex num = nd.op(0), den = nd.op(1);
    if (canonical_sign(den) < 0) {
      num = -num;
      den = -den;
    }
    return print_binary_fn(num, den, "//");
  }
  if (is_sum) return print_sum(operands);
  if (is_product) {
    Monomial m{GiNaC::numeric(1), {}};
    m.factors.reserve(operands.size());
    for (const ex& f : operands) add_product_operand(m, f);
    sort_factors(m);
    return print_signed(int_coeff(m), m.factors);
  }
  if (detail::is_exactly<GiNaC::power>(e)) {
    Monomial m = monomial(e);
    return print_signed(int_coeff(m), m.factors);
  }
  switch (function_of(e)) {
    case Fn::FloorDiv: return print_binary_fn(e.op(0), e.op(1), "//");
    case Fn::Mod: return print_binary_fn(e.op(0), e.op(1), " % ");
    case Fn::CeilDiv: {
      std::string text = "ceildiv(";
      text += print(e.op(0)).text;
      text += ", ";
      text += print(e.op(1)).text;
      text += ')';
      return {std::move(text), kAtom};
    }
    case Fn::Max:
    case Fn::Min: {
      // Nested binary calls print as one n-ary call with sorted arguments.
      Fn f = function_of(e);
      std::vector<ex> args;
      std::vector<ex> todo{e};
      while (!todo.empty()) {
        ex x = todo.back();
        todo.pop_back();
        if (function_of(x) == f) {
          todo.push_back(x.op(1));
          todo.push_back(x.op(0));
        } else {
          args.push_back(x);
        }
      }
      std::sort(args.begin(), args.end(),
                [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
      args.erase(std::unique(args.begin(), args.end(),
                             [](const ex& a, const ex& b) { return a.is_equal(b); }),
                 args.end());
      std::string text = f == Fn::Max ? "max(" : "min(";
      for (size_t i = 0; i < args.size(); ++i) {
        if (i) text += ", ";
        text += print(args[i]).text;
      }
      text += ')';
      return {std::move(text), kAtom};
    }
    case Fn::None: break;
  }
  throw Error("cannot print an expression outside the grammar");
}

}  // namespace

std::string Expr::str() const { return print(e_).text; }

// Whether printing e needs a quotient: a rational coefficient or a negative power somewhere in
// its top-level sum or product (an exact division).
bool detail::has_denominator(const ex& e) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return !GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
  if (detail::is_exactly<GiNaC::power>(e)) {
    if (detail::is_int(e.op(1)) && detail::int_of(e.op(1)) < 0) return true;
    return detail::has_denominator(e.op(0));
  }
  if (detail::is_exactly<GiNaC::add>(e) || detail::is_exactly<GiNaC::mul>(e)) {
    for (size_t i = 0, n = e.nops(); i < n; ++i) {
      if (detail::has_denominator(e.op(i))) return true;
    }
  }
  return false;
}

}  // namespace symshape
