// The deterministic printer and the canonical order it sorts with. GiNaC keeps sums and products
// in hash order, which depends on symbol creation order; we never print in that order.
#include <cln/real.h>

#include <algorithm>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"

namespace symshape {

namespace {

using GiNaC::ex;

// Type ranks for the canonical order: numbers, then symbols and powers (compared as base**exp),
// then products, sums, and function calls.
int rank(const ex& e) {
  if (GiNaC::is_a<GiNaC::numeric>(e)) return 0;
  if (GiNaC::is_a<GiNaC::symbol>(e) || GiNaC::is_a<GiNaC::power>(e)) return 1;
  if (GiNaC::is_a<GiNaC::mul>(e)) return 2;
  if (GiNaC::is_a<GiNaC::add>(e)) return 3;
  return 4;
}

int sign(int v) { return (v > 0) - (v < 0); }

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

}  // namespace

int canonical_compare(const ex& a, const ex& b) {
  if (a.is_equal(b)) return 0;
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return sign(ra - rb);
  switch (ra) {
    case 0:
      return cln::compare(cln::realpart(GiNaC::ex_to<GiNaC::numeric>(a).to_cl_N()),
                          cln::realpart(GiNaC::ex_to<GiNaC::numeric>(b).to_cl_N()));
    case 1: {
      bool pa = GiNaC::is_a<GiNaC::power>(a), pb = GiNaC::is_a<GiNaC::power>(b);
      const ex& base_a = pa ? a.op(0) : a;
      const ex& base_b = pb ? b.op(0) : b;
      if (!pa && !pb) {
        return sign(GiNaC::ex_to<GiNaC::symbol>(a).get_name().compare(
            GiNaC::ex_to<GiNaC::symbol>(b).get_name()));
      }
      if (int c = canonical_compare(base_a, base_b)) return c;
      return canonical_compare(pa ? a.op(1) : ex(1), pb ? b.op(1) : ex(1));
    }
    case 2:
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

Printed print(const ex& e);

std::string wrap(const Printed& p, Prec at_least) {
  return p.prec >= at_least ? p.text : "(" + p.text + ")";
}

// Total degree, counting a function call as one symbol: orders the terms of a sum.
int degree(const ex& e) {
  if (GiNaC::is_a<GiNaC::numeric>(e)) return 0;
  if (GiNaC::is_a<GiNaC::power>(e)) {
    return detail::is_int(e.op(1)) ? degree(e.op(0)) * cln::cl_I_to_int(detail::int_of(e.op(1)))
                                   : 1;
  }
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    int d = 0;
    for (size_t i = 0; i < e.nops(); ++i) d += degree(e.op(i));
    return d;
  }
  if (GiNaC::is_a<GiNaC::add>(e)) {
    int d = 0;
    for (size_t i = 0; i < e.nops(); ++i) d = std::max(d, degree(e.op(i)));
    return d;
  }
  return 1;
}

// Whether printing e needs a quotient: a rational coefficient or a negative power somewhere in
// its top-level sum or product (an exact division).
bool has_denominator(const ex& e) {
  if (GiNaC::is_a<GiNaC::numeric>(e)) return !GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
  if (GiNaC::is_a<GiNaC::power>(e)) {
    return detail::is_int(e.op(1)) && detail::int_of(e.op(1)) < 0;
  }
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (has_denominator(e.op(i))) return true;
    }
  }
  return false;
}

Printed print_binary_fn(const ex& a, const ex& b, const char* op) {
  Printed pa = print(a), pb = print(b);
  // Anything but an atom is parenthesized on either side: `(3*x)//2`, `x//(a*b)`.
  return {wrap(pa, kPower) + op + wrap(pb, kPower), kProduct, true};
}

// Splits a sum's term or a product into its integer coefficient and the rest.
std::pair<Int, ex> split_coefficient(const ex& e) {
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    ex c = e.op(e.nops() - 1);  // GiNaC keeps the numeric coefficient last
    if (detail::is_int(c)) return {detail::int_of(c), e / c};
  }
  if (detail::is_int(e)) return {detail::int_of(e), ex(1)};
  return {Int(1), e};
}

// A product with a non-negative coefficient: `2*x*(y//4)`.
Printed print_product(const Int& coeff, const ex& rest) {
  std::vector<ex> factors;
  if (GiNaC::is_a<GiNaC::mul>(rest)) {
    factors = sorted_operands(rest);
  } else if (!rest.is_equal(1)) {
    factors.push_back(rest);
  }
  bool alone = factors.size() == 1 && coeff == 1;
  if (alone) return print(factors[0]);
  std::string text;
  if (coeff != 1 || factors.empty()) text = to_string(coeff);
  for (const ex& f : factors) {
    Printed pf = print(f);
    // A quotient or remainder inside a product is parenthesized: `2*(x//4)`, never `2*x//4`.
    std::string piece = pf.top_is_div ? "(" + pf.text + ")" : wrap(pf, kProduct);
    text += text.empty() ? piece : "*" + piece;
  }
  return {text, kProduct, false};
}

// A signed term: the sign goes in front, `-(x//4)` where the magnitude is a bare quotient.
Printed print_signed(const Int& coeff, const ex& rest) {
  Printed mag = print_product(cln::abs(coeff), rest);
  if (coeff >= 0) return mag;
  // `-x//4` would mean (-x)//4 in Python, and `-x + y` is not -(x + y).
  if (mag.top_is_div || mag.prec == kSum) return {"-(" + mag.text + ")", kUnary, false};
  return {"-" + mag.text, mag.prec == kProduct ? kProduct : kUnary, false};
}

Printed print_sum(const ex& e) {
  struct Term {
    Int coeff;
    ex rest;
    int degree;
  };
  std::vector<Term> terms;
  Int constant = 0;
  for (size_t i = 0; i < e.nops(); ++i) {
    auto [c, rest] = split_coefficient(e.op(i));
    if (rest.is_equal(1)) {
      constant = constant + c;
    } else {
      terms.push_back({c, rest, degree(rest)});
    }
  }
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
    if (a.degree != b.degree) return a.degree > b.degree;
    return canonical_compare(a.rest, b.rest) < 0;
  });
  std::string text;
  auto append = [&](const Int& c, const ex& rest) {
    if (text.empty()) {
      text = print_signed(c, rest).text;
    } else {
      Printed mag = print_product(cln::abs(c), rest);
      text += (c < 0 ? " - " : " + ") + wrap(mag, kProduct);
    }
  };
  for (const Term& t : terms) append(t.coeff, t.rest);
  if (constant != 0 || text.empty()) append(constant, ex(1));
  return {text, kSum, false};
}

Printed print(const ex& e) {
  if (detail::is_int(e)) {
    Int v = detail::int_of(e);
    return {to_string(v), v < 0 ? kUnary : kAtom, false};
  }
  if (GiNaC::is_a<GiNaC::symbol>(e)) return {GiNaC::ex_to<GiNaC::symbol>(e).get_name(), kAtom};
  if (has_denominator(e)) {
    // An exact quotient: print numerator // denominator, which has the same (integer) value.
    ex nd = e.numer_denom();
    return print_binary_fn(nd.op(0), nd.op(1), "//");
  }
  if (GiNaC::is_a<GiNaC::add>(e)) return print_sum(e);
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    auto [c, rest] = split_coefficient(e);
    return print_signed(c, rest);
  }
  if (GiNaC::is_a<GiNaC::power>(e)) {
    Printed base = print(e.op(0));
    // `**` binds tighter than unary minus on its left: (-2)**3.
    return {wrap(base, kAtom) + "**" + print(e.op(1)).text, kPower, false};
  }
  switch (function_of(e)) {
    case Fn::FloorDiv: return print_binary_fn(e.op(0), e.op(1), "//");
    case Fn::Mod: return print_binary_fn(e.op(0), e.op(1), " % ");
    case Fn::CeilDiv:
      return {"ceildiv(" + print(e.op(0)).text + ", " + print(e.op(1)).text + ")", kAtom};
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
      for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + print(args[i]).text;
      return {text + ")", kAtom};
    }
    case Fn::None: break;
  }
  throw Error("cannot print an expression outside the grammar");
}

}  // namespace

std::string Expr::str() const { return print(e_).text; }

}  // namespace symshape
