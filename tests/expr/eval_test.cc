// evaluate(): Python's integer semantics for every sign combination, the errors a user meets
// (division by zero, an unbound symbol, an exact division that is not exact), huge numbers,
// constant folding while building, and conditions with their negations.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"
#include "tests/expr/expr_test_util.h"

namespace symshape {
namespace {

using expr_test::sym;

Int big(const char* digits) { return *parse_int(digits); }

std::string eval_str(const Expr& e, const Bindings& at) { return to_string(evaluate(e, at)); }

// The message of the Error that f throws, or "" when it throws nothing.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Evaluate, DivisionOnEverySignCombinationMatchesPython) {
  struct Case {
    long a, b;
    const char* floordiv;
    const char* mod;
    const char* ceildiv;
  };
  // Written from CPython: a // b, a % b, -((-a) // b).
  const Case cases[] = {
      {7, 2, "3", "1", "4"},    {-7, 2, "-4", "1", "-3"}, {7, -2, "-4", "-1", "-3"},
      {-7, -2, "3", "-1", "4"}, {6, 3, "2", "0", "2"},    {-6, 3, "-2", "0", "-2"},
      {6, -3, "-2", "0", "-2"}, {-6, -3, "2", "0", "2"},  {0, 5, "0", "0", "0"},
      {0, -5, "0", "0", "0"},   {1, 5, "0", "1", "1"},    {-1, 5, "-1", "4", "0"},
      {1, -5, "-1", "-4", "0"}, {-1, -5, "0", "-1", "1"}, {5, 1, "5", "0", "5"},
      {-5, -1, "5", "0", "5"},
  };
  const Expr a = sym("a"), b = sym("b");
  for (const Case& c : cases) {
    const Bindings at = {{"a", Int(c.a)}, {"b", Int(c.b)}};
    SCOPED_TRACE(std::to_string(c.a) + ", " + std::to_string(c.b));
    // Symbolic operands, evaluated at the point.
    EXPECT_EQ(eval_str(floordiv(a, b), at), c.floordiv);
    EXPECT_EQ(eval_str(mod(a, b), at), c.mod);
    EXPECT_EQ(eval_str(ceildiv(a, b), at), c.ceildiv);
    // Constant operands, folded while building.
    const Expr ca(c.a), cb(c.b);
    EXPECT_EQ(floordiv(ca, cb).str(), c.floordiv);
    EXPECT_EQ(mod(ca, cb).str(), c.mod);
    EXPECT_EQ(ceildiv(ca, cb).str(), c.ceildiv);
  }
}

TEST(Evaluate, DivisionIdentitiesHoldOnAGrid) {
  const Expr a = sym("a"), b = sym("b");
  const Expr q = floordiv(a, b), r = mod(a, b), up = ceildiv(a, b);
  for (long x = -25; x <= 25; ++x) {
    for (long y = -7; y <= 7; ++y) {
      if (y == 0) continue;
      const Bindings at = {{"a", Int(x)}, {"b", Int(y)}};
      const Int qv = evaluate(q, at), rv = evaluate(r, at), uv = evaluate(up, at);
      EXPECT_TRUE(qv * Int(y) + rv == Int(x)) << x << " " << y;
      // The remainder has the divisor's sign and is smaller in magnitude.
      EXPECT_TRUE(y > 0 ? (rv >= 0 && rv < Int(y)) : (rv <= 0 && rv > Int(y))) << x << " " << y;
      EXPECT_TRUE(uv == (rv == 0 ? qv : qv + 1)) << x << " " << y;
    }
  }
}

TEST(Evaluate, PolynomialsAndFunctions) {
  const Expr x = sym("x"), y = sym("y");
  const Bindings at = {{"x", Int(-3)}, {"y", Int(4)}};
  EXPECT_EQ(eval_str(pow(x, 3) * y - 2 * x + 1, at), "-101");
  EXPECT_EQ(eval_str(max(x, y) - min(x, y), at), "7");
  EXPECT_EQ(eval_str(max(std::vector<Expr>{x, y, Expr(9)}), at), "9");
  EXPECT_EQ(eval_str(floordiv(x * y, 5) + mod(x, y), at), "-2");  // -12//5 == -3, -3 % 4 == 1
}

TEST(Evaluate, DivisionByZeroIsAnError) {
  const Expr x = sym("x"), y = sym("y");
  // A constant zero divisor is refused while building.
  EXPECT_EQ(error_of([&] { floordiv(x, 0); }), "division by zero");
  EXPECT_EQ(error_of([&] { mod(x, 0); }), "division by zero");
  EXPECT_EQ(error_of([&] { ceildiv(x, 0); }), "division by zero");
  EXPECT_EQ(error_of([&] { exact_div(x, 0); }), "division by zero");
  EXPECT_EQ(error_of([&] { floordiv(Expr(7), y - y); }), "division by zero");
  // A divisor that is zero at the point is refused by evaluate.
  const Bindings at = {{"x", Int(5)}, {"y", Int(0)}};
  EXPECT_EQ(error_of([&] { evaluate(floordiv(x, y), at); }), "division by zero");
  EXPECT_EQ(error_of([&] { evaluate(mod(x, y), at); }), "division by zero");
  EXPECT_EQ(error_of([&] { evaluate(ceildiv(x, y), at); }), "division by zero");
  EXPECT_NE(error_of([&] { evaluate(exact_div(x, y), at); }), "");
}

TEST(Evaluate, UnboundSymbolIsAnErrorNamingIt) {
  const Expr known = sym("known_sym"), missing = sym("missing_sym");
  const std::string msg = error_of([&] { evaluate(known + missing, {{"known_sym", Int(1)}}); });
  EXPECT_NE(msg.find("'missing_sym'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("known_sym'"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { evaluate(known < missing, {{"known_sym", Int(1)}}); }), "");
}

TEST(Evaluate, InexactExactDivisionIsAnError) {
  const Expr x = sym("x"), y = sym("y");
  const Expr half = exact_div(x, 2);
  EXPECT_EQ(eval_str(half, {{"x", Int(8)}}), "4");
  EXPECT_EQ(eval_str(half, {{"x", Int(-8)}}), "-4");
  EXPECT_NE(error_of([&] { evaluate(half, {{"x", Int(7)}}); }), "");
  const Expr quotient = exact_div(x + y, y);
  EXPECT_EQ(eval_str(quotient, {{"x", Int(12)}, {"y", Int(-4)}}), "-2");
  EXPECT_NE(error_of([&] { evaluate(quotient, {{"x", Int(13)}, {"y", Int(-4)}}); }), "");
  // Inside a function argument the non-integer is caught too, not floored.
  EXPECT_NE(error_of([&] { evaluate(floordiv(half, 3), {{"x", Int(7)}}); }), "");
}

TEST(Evaluate, ExactDivisionOfRationalFunctionsAndCalls) {
  const Expr x = sym("x"), y = sym("y"), z = sym("z");
  // A divisor with a symbolic denominator: GiNaC's divide answered 0 for x / (x + 1)**-1.
  const Expr times = exact_div(x, exact_div(1, x + 1));
  EXPECT_EQ(eval_str(times, {{"x", Int(3)}}), "12");
  // A dividend with a symbolic denominator: GiNaC's long division called itself on the same
  // arguments until the stack ran out.
  const Expr nested = exact_div(exact_div(1, x + 1) + 1, y + 1);
  EXPECT_EQ(eval_str(nested, {{"x", Int(-2)}, {"y", Int(5)}}), "0");
  EXPECT_EQ(eval_str(nested, {{"x", Int(0)}, {"y", Int(1)}}), "1");
  // Calls are atoms of the polynomials: divided exactly, or (no symbol outside a call, which
  // GiNaC's divide refused with an exception) kept as a quotient.
  const Expr q = floordiv(x, y);
  EXPECT_TRUE(exact_div(q * z + q, z + 1).identical(q));
  EXPECT_TRUE(exact_div(q * max(x, y), q).identical(max(x, y)));
  const Expr ratio = exact_div(q + 1, q + 2);
  EXPECT_EQ(eval_str(ratio, {{"x", Int(-3)}, {"y", Int(1)}}), "2");
}

TEST(Evaluate, HugeNumbersAreExact) {
  const Int two_200 = big("1606938044258990275541962092341162602522202993782792835301376");
  const Expr p = pow(Expr(2), 200);
  ASSERT_TRUE(p.is_constant());
  EXPECT_TRUE(*p.constant() == two_200);
  EXPECT_EQ(floordiv(p, 3).str(), "535646014752996758513987364113720867507400997927597611767125");
  EXPECT_EQ(mod(p, 3).str(), "1");

  const Expr x = sym("x");
  const Bindings at = {{"x", two_200}};
  EXPECT_EQ(eval_str(floordiv(x, 3), at),
            "535646014752996758513987364113720867507400997927597611767125");
  EXPECT_EQ(eval_str(floordiv(x, -3), at),
            "-535646014752996758513987364113720867507400997927597611767126");
  EXPECT_EQ(eval_str(mod(x, -3), at), "-2");
  EXPECT_EQ(eval_str(mod(-x, 3), at), "2");
  EXPECT_EQ(eval_str(ceildiv(x, 7), at),
            "229562577751284325077423156048737514646028999111827547900197");
  EXPECT_EQ(eval_str(mod(x, 1000000007), at), "499445072");
  EXPECT_EQ(eval_str(x * x - x * x + 1, at), "1");
  EXPECT_FALSE(to_int64(two_200).has_value());
  EXPECT_EQ(to_int64(Int(-7)), std::optional<int64_t>(-7));
}

TEST(Evaluate, ConstantsFoldWhileBuilding) {
  const Expr x = sym("x");
  EXPECT_EQ(floordiv(Expr(7), Expr(2)).as_int64(), std::optional<int64_t>(3));
  EXPECT_EQ(mod(Expr(-7), Expr(2)).as_int64(), std::optional<int64_t>(1));
  EXPECT_EQ(ceildiv(Expr(7), Expr(-2)).as_int64(), std::optional<int64_t>(-3));
  EXPECT_EQ(max(Expr(3), Expr(5)).as_int64(), std::optional<int64_t>(5));
  EXPECT_EQ(min(Expr(3), Expr(-5)).as_int64(), std::optional<int64_t>(-5));
  EXPECT_EQ(max(std::vector<Expr>{Expr(1), Expr(9), Expr(4)}).as_int64(),
            std::optional<int64_t>(9));
  EXPECT_TRUE(floordiv(x, 1).identical(x));
  EXPECT_TRUE(floordiv(x, -1).identical(-x));
  EXPECT_TRUE(ceildiv(x, 1).identical(x));
  EXPECT_TRUE(mod(x, 1).identical(Expr(0)));
  EXPECT_TRUE(mod(x, -1).identical(Expr(0)));
  EXPECT_TRUE(max(x, x).identical(x));
  EXPECT_TRUE(min(x, x).identical(x));
  // Substitution refolds.
  EXPECT_EQ(floordiv(x, 2).subs({{"x", Expr(-7)}}).as_int64(), std::optional<int64_t>(-4));
  EXPECT_EQ(mod(x, 2).subs({{"x", Expr(-7)}}).as_int64(), std::optional<int64_t>(1));
}

TEST(EvaluateCond, RelationsAndConnectives) {
  const Expr x = sym("x"), y = sym("y"), z = sym("z");
  const Bindings at = {{"x", Int(2)}, {"y", Int(5)}, {"z", Int(-1)}};
  EXPECT_TRUE(evaluate(x < y, at));
  EXPECT_FALSE(evaluate(y < x, at));
  EXPECT_TRUE(evaluate(x <= 2, at));
  EXPECT_TRUE(evaluate(x == 2, at));
  EXPECT_TRUE(evaluate(x != y, at));
  EXPECT_TRUE(evaluate(y >= 5, at));
  EXPECT_FALSE(evaluate(z > 0, at));
  EXPECT_TRUE(evaluate((x < y) && (z < 0), at));
  EXPECT_FALSE(evaluate((x < y) && (z > 0), at));
  EXPECT_TRUE(evaluate((x > y) || (z < 0), at));
  EXPECT_FALSE(evaluate((x > y) || (z > 0), at));
  EXPECT_TRUE(evaluate(mod(z, 4) == 3, at));  // -1 % 4 == 3
  EXPECT_TRUE(evaluate(Cond::all({}), at));
  EXPECT_FALSE(evaluate(Cond::any({}), at));
}

TEST(EvaluateCond, RelationsBetweenConstantsFold) {
  const Expr x = sym("x");
  EXPECT_TRUE((Expr(1) < Expr(2)).is_true());
  EXPECT_TRUE((Expr(2) < Expr(2)).is_false());
  EXPECT_TRUE((x <= x).is_true());
  EXPECT_TRUE((x != x).is_false());
  EXPECT_TRUE(((x < 3) && Cond::truth(false)).is_false());
  EXPECT_TRUE(((x < 3) || Cond::truth(true)).is_true());
  EXPECT_TRUE((floordiv(x, 1) == x).is_true());
}

TEST(EvaluateCond, NegationFollowsDeMorgan) {
  const Expr a = sym("a"), b = sym("b"), c = sym("c"), d = sym("d"), e = sym("e"), f = sym("f");
  EXPECT_EQ((!(a < b)).str(), "a >= b");
  EXPECT_EQ((!(a <= b)).str(), "a > b");
  EXPECT_EQ((!(a == b)).str(), "a != b");
  EXPECT_EQ((!(a != b)).str(), "a == b");
  EXPECT_EQ((!((a < b) && (b == c))).str(), "a >= b or b != c");
  EXPECT_EQ((!((a < b) || (b == c))).str(), "a >= b and b != c");
  EXPECT_EQ((!(((a < b) || (c < d)) && (e == f))).str(), "a >= b and c >= d or e != f");
  EXPECT_EQ((!(((a < b) && (c < d)) || (e == f))).str(), "(a >= b or c >= d) and e != f");
  EXPECT_TRUE((!Cond::truth(true)).is_false());

  // Negation is the boolean complement at every point.
  const Cond cond = ((a < b) || (c <= d)) && (mod(e, 3) != f);
  const Cond neg = !cond;
  for (long v = -2; v <= 2; ++v) {
    for (long w = -2; w <= 2; ++w) {
      const Bindings at = {{"a", Int(v)},     {"b", Int(w)},     {"c", Int(w)},
                           {"d", Int(v + w)}, {"e", Int(v * w)}, {"f", Int(w + 1)}};
      EXPECT_NE(evaluate(cond, at), evaluate(neg, at)) << v << " " << w;
    }
  }
}

// The engine's integers go to GiNaC as shared small numbers, machine words or big numbers,
// by size: each comes back as itself, across the boundaries between those.
TEST(Evaluate, IntegersRoundTripThroughTheEngine) {
  const Int two62 = cln::expt_pos(Int(2), 62);
  for (const Int& v : {Int(0), Int(12), Int(-12), Int(13), Int(-13), two62 - 1, -two62, two62,
                       -two62 - 1, cln::expt_pos(Int(2), 63), cln::expt_pos(Int(2), 80)}) {
    for (const Int& w : {v, Int(-v)}) {
      EXPECT_EQ(to_string(detail::int_of(detail::ex_of(w))), to_string(w));
      EXPECT_TRUE(detail::is_int(detail::ex_of(w)));
    }
  }
  const Int two63 = cln::expt_pos(Int(2), 63);
  EXPECT_EQ(to_int64(two63 - 1), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(to_int64(-two63), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(to_int64(Int(-5)), -5);
  EXPECT_FALSE(to_int64(two63).has_value());
  EXPECT_FALSE(to_int64(-two63 - 1).has_value());
}

}  // namespace
}  // namespace symshape
