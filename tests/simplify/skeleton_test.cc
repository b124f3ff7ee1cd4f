// The skeleton walks of the simplifier (node_count, skeleton_calls, has_symbolic_denominator,
// needs_expand, integer_content) read sums and products on GiNaC's (rest, coefficient) pairs
// instead of building each operand with e.op(i). They must answer what a walk over e.op(i) answers:
// checked against such a walk on random expressions, scaled by rationals and divided by powers, and
// on the shapes the pairs spell differently (a coefficient times a product, a power of a sum).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/simplify/simplifier.h"
#include "tests/support/random_expr.h"

namespace symshape {
namespace {

using detail::ex;
using detail::is_add;
using detail::is_integer;
using detail::is_mul;
using detail::is_power;

// The walks over e.op(i), as the simplifier first wrote them.
size_t reference_nodes(const ex& e) {
  size_t n = 1;
  for (size_t i = 0; i < e.nops(); ++i) n += reference_nodes(e.op(i));
  return n;
}

unsigned reference_calls(const ex& e) {
  if (const Fn f = detail::call_of(e); f != Fn::None) return detail::fn_bit(f);
  unsigned calls = 0;
  if (is_add(e) || is_mul(e) || is_power(e)) {
    for (size_t i = 0; i < e.nops(); ++i) calls |= reference_calls(e.op(i));
  }
  return calls;
}

bool reference_denominator(const ex& e) {
  if (is_power(e)) {
    if (is_integer(e.op(1)) && detail::int_of(e.op(1)) < 0) return true;
    return reference_denominator(e.op(0));
  }
  if (is_add(e) || is_mul(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (reference_denominator(e.op(i))) return true;
    }
  }
  return false;
}

bool reference_needs_expand(const ex& e) {
  if (is_add(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (reference_needs_expand(e.op(i))) return true;
    }
    return false;
  }
  if (is_mul(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (is_add(e.op(i)) || reference_needs_expand(e.op(i))) return true;
    }
    return false;
  }
  if (is_power(e)) {
    const ex& n = e.op(1);
    if (is_add(e.op(0)) && is_integer(n) && detail::int_of(n) >= 2) return true;
    return reference_needs_expand(e.op(0));
  }
  return false;
}

Int reference_content(const ex& e) {
  Int g = 0;
  for (const ex& t : detail::terms_of(e)) {
    const GiNaC::numeric coeff = detail::coefficient_of(t);
    if (!coeff.is_integer()) return 1;
    g = cln::gcd(g, detail::int_of(coeff));
    if (g == 1) break;
  }
  return g;
}

bool reference_integer_polynomial(const ex& e) {
  if (detail::is_number(e)) return GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
  if (is_power(e)) {
    const ex& n = e.op(1);
    return detail::is_number(n) && GiNaC::ex_to<GiNaC::numeric>(n).is_nonneg_integer() &&
           reference_integer_polynomial(e.op(0));
  }
  if (is_add(e) || is_mul(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (!reference_integer_polynomial(e.op(i))) return false;
    }
  }
  return true;
}

void expect_walks_agree(const ex& e) {
  const std::string text = Expr(e).str();
  EXPECT_EQ(detail::node_count(e), reference_nodes(e)) << text;
  EXPECT_EQ(detail::skeleton_calls(e), reference_calls(e)) << text;
  EXPECT_EQ(detail::has_symbolic_denominator(e), reference_denominator(e)) << text;
  EXPECT_EQ(detail::needs_expand(e), reference_needs_expand(e)) << text;
  EXPECT_EQ(detail::integer_content(e), reference_content(e)) << text;
  EXPECT_EQ(detail::integer_polynomial(e), reference_integer_polynomial(e)) << text;
}

TEST(SkeletonWalks, AgreeWithAWalkOverOperandsOnRandomExpressions) {
  const ex x = Expr::symbol("x").ex(), y = Expr::symbol("y").ex();
  const std::vector<ex> scales = {1,
                                  -3,
                                  GiNaC::numeric(2, 3),
                                  GiNaC::pow(x, -1),
                                  GiNaC::pow(x + y, -2),
                                  x * y * 5,
                                  GiNaC::pow(x + 1, 2)};
  for (uint64_t seed = 0; seed < 300; ++seed) {
    test_support::Generator g(seed, {"x", "y", "z"});
    Expr e(0);
    try {
      e = test_support::to_expr(*g.expr(4));
    } catch (const Error&) {
      continue;  // a divisor folded to 0
    }
    for (const ex& s : scales) {
      expect_walks_agree(e.ex() * s);
      expect_walks_agree(e.ex() * s + y * s);
    }
  }
}

TEST(SkeletonWalks, AgreeOnTheShapesPairsSpellDifferently) {
  const ex x = Expr::symbol("x").ex(), y = Expr::symbol("y").ex();
  const ex q = floordiv(Expr(x), Expr(4)).ex(), r = mod(Expr(y + 1), Expr(3)).ex();
  for (const ex& e : std::vector<ex>{
           3 * x * y + 2 * q - 5,                   // coefficients of products and calls
           -(x * y * q) + GiNaC::numeric(1, 2),     // a negated product, a rational constant
           2 * GiNaC::pow(x + 1, 2) * r,            // a power of a sum in a product
           GiNaC::pow(x + q, 3) - 4 * x,            // ... in a sum
           (x + 1) * (y - q) * 7,                   // a product of sums
           GiNaC::pow(q, 2) * GiNaC::pow(x, -3),    // powers of a call and a symbol
           GiNaC::pow(x + y, -1) * 6 + y,           // a symbolic denominator
           x * GiNaC::pow(y, GiNaC::numeric(1, 2))  // a power that is not natural
       }) {
    expect_walks_agree(e);
  }
}

// divides() computes on machine integers below 2^61 in magnitude and with CLN past them: both
// agree with CLN's remainder on each side of that bound, signs included.
TEST(SkeletonWalks, DividesAgreesWithTheRemainderAcrossTheMachineIntegerBound) {
  const Int big = cln::ash(Int(1), 61);
  const std::vector<Int> values = {1,       2,       3,           6,           7,       big - 1,
                                   big,     big + 1, 2 * big,     3 * big - 3, big * 6, big * big,
                                   big * 3, 12,      big * 2 - 2, 1000000007};
  for (const Int& a : values) {
    for (const Int& b : values) {
      for (const Int& d : {a, Int(-a)}) {
        for (const Int& n : {b, Int(-b), Int(0)}) {
          EXPECT_EQ(detail::divides(d, n), cln::zerop(cln::mod(n, d)))
              << to_string(d) << " | " << to_string(n);
        }
      }
    }
  }
}

}  // namespace
}  // namespace symshape
