// The normal form of issue 33: products of window sizes stay factored, offsets print as a person
// writes them, and the canonical forms of real reports. Each form is checked against the original
// by brute force over a range of values.
#include <gtest/gtest.h>

#include <string>

#include "simplify_test_util.h"
#include "symshape/expr.h"
#include "symshape/prove/limits.h"
#include "symshape/simplify/simplifier.h"

namespace symshape {
namespace {

using simplify_test::simp;

Expr parsed(const std::string& text) {
  Expected<Expr> e = parse_expr(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.error();
  return e.ok() ? *e : Expr(0);
}

// simplify(text) under `facts` (a default range that holds all of [lo, hi]), printed; and equal
// to text at every point of [lo, hi]^n for the (at most two) symbols of text.
std::string checked(const std::string& text, const Facts& facts, int64_t lo, int64_t hi) {
  const Expr e = parsed(text);
  const Expr s = simplify(e, facts);
  const std::vector<std::string> names = e.free_symbols();
  EXPECT_LE(names.size(), 2u);
  for (int64_t a = lo; a <= hi; ++a) {
    for (int64_t b = names.size() > 1 ? lo : hi; b <= hi; ++b) {
      Bindings v;
      if (!names.empty()) v[names[0]] = Int(a);
      if (names.size() > 1) v[names[1]] = Int(b);
      EXPECT_EQ(evaluate(e, v), evaluate(s, v))
          << text << " -> " << s.str() << " at " << a << ", " << b;
    }
  }
  // The printed form parses back to the same expression.
  EXPECT_EQ(simplify(parsed(s.str()), facts).str(), s.str());
  return s.str();
}

Facts sizes() { return Facts(ValueRange::at_least(1)); }
Facts all() { return Facts(ValueRange::all()); }

TEST(NormalForm, WindowSizeKeepsItsOffset) {
  EXPECT_EQ(checked("(s - 5)//4 + 1", sizes(), 1, 60), "(s - 1)//4");
  EXPECT_EQ(checked("(s - 5)//4 + 1", all(), -40, 40), "(s - 1)//4");
  EXPECT_EQ(checked("-((s - 5)//4 + 1)", all(), -40, 40), "-((s - 1)//4)");
  // No offset of its own: left as written.
  EXPECT_EQ(checked("s//2 + 1", all(), -20, 20), "s//2 + 1");
}

TEST(NormalForm, ProductOfWindowSizesStaysAProduct) {
  EXPECT_EQ(checked("((s - 5)//4 + 1)*((h - 5)//4 + 1)*64", sizes(), 1, 30),
            "64*((h - 1)//4)*((s - 1)//4)");
  EXPECT_EQ(checked("((s + 2 - 3)//2 + 1)*((s + 2 - 3)//2 + 1)", sizes(), 1, 40),
            "((s + 1)//2)**2");
  // A sum of such products stays a sum of products.
  EXPECT_EQ(checked("64*((s - 5)//4 + 1)*((h - 5)//4 + 1) + 1", sizes(), 1, 30),
            "64*((h - 1)//4)*((s - 1)//4) + 1");
  // Expanding is taken when terms cancel.
  EXPECT_EQ(checked("64*((s - 5)//4 + 1)*((h - 5)//4 + 1) - 64*((s - 1)//4)*((h - 1)//4)", sizes(),
                    1, 30),
            "0");
  EXPECT_EQ(checked("h*((s - 5)//4 + 1) - h*((s - 1)//4)", sizes(), 1, 30), "0");
}

// A power of a window size is a product of equal windows (H == W after duck sizing): it stays a
// power. Expanding (x - 1)**2 merges like terms (3 terms, not 4), which is not cancellation.
TEST(NormalForm, PowerOfAWindowSizeStaysAPower) {
  EXPECT_EQ(checked("((h - 5)//4 + 1)*((h - 5)//4 + 1)*64", sizes(), 1, 60), "64*((h - 1)//4)**2");
  EXPECT_EQ(checked("16*((b - 3)//2 + 1)**2", all(), -30, 30), "16*((b - 1)//2)**2");
  EXPECT_EQ(checked("((h - 5)//4 + 1)**3*((w - 3)//2 + 1)", sizes(), 1, 30),
            "((w - 1)//2)*((h - 1)//4)**3");
  EXPECT_EQ(checked("(h//2 + w)**2", all(), -12, 12), "(w + h//2)**2");
  // Terms that do cancel on expanding still expand.
  EXPECT_EQ(checked("((h + 1)//2 + 1)**2 - ((h + 1)//2)**2", all(), -30, 30), "2*((h + 1)//2) + 1");
}

// Whether a product is expanded is decided without expanding it when its factors share no
// symbol or call; a shared one (or a factor outside sums of quotients) expands it to decide.
TEST(NormalForm, ProductExpandsOnlyWhenTermsCancelOrItGetsSmaller) {
  // A shared quotient whose like terms merge but nothing cancels: (s//4)**2 + 3*(s//4) + 2 is
  // no smaller, so the product stays (as a conv area of two windows over one size does).
  EXPECT_EQ(checked("(s//4 + 1)*(s//4 + 2)", all(), -30, 30), "(s//4 + 1)*(s//4 + 2)");
  EXPECT_EQ(checked("16*((e - 5)//2 + 1)*((e + 1)//2 + 1)", sizes(), 1, 40),
            "16*((e - 3)//2)*((e + 3)//2)");
  // Terms that cancel expand: (s//4 - 1)*(s//4 + 1) is (s//4)**2 - 1.
  EXPECT_EQ(checked("(s//4 - 1)*(s//4 + 1)", all(), -30, 30), "(s//4)**2 - 1");
  EXPECT_EQ(checked("(x//2 + y)*(x//2 - y)", all(), -20, 20), "-y**2 + (x//2)**2");
  // Nothing shared: x*(y//2) + x is no smaller than the product.
  EXPECT_EQ(checked("x*(y//2 + 1)", all(), -20, 20), "x*(y//2 + 1)");
  EXPECT_EQ(checked("(s//4 + 1)*((s + 1)//4 + 1)", all(), -30, 30), "(s//4 + 1)*((s + 5)//4)");
  EXPECT_EQ(checked("(s//4 + 1)*(h//4 + 1)*(s//2)", sizes(), 1, 20),
            "(h//4 + 1)*(s//4 + 1)*(s//2)");
  // Counted exactly without expanding (the coefficients of the expanded terms included): no
  // smaller expanded, so kept.
  EXPECT_EQ(checked("-x*(y//2 - 1)", all(), -20, 20), "-x*(y//2 - 1)");
  EXPECT_EQ(checked("3*x*(y//2 - 1)", all(), -20, 20), "3*x*(y//2 - 1)");
  EXPECT_EQ(checked("5*(x//2 - 1)*(y//3 + 2)", all(), -20, 20), "5*(x//2 - 1)*(y//3 + 2)");
  // Past the 2,000 terms poly_normal expands, the product is kept without expanding it.
  std::string big;
  for (char c : std::string("abcdefghijk")) {
    big += std::string(big.empty() ? "" : "*") + "(" + c + "//2 + 1)";
  }
  EXPECT_EQ(simplify(parsed(big), sizes()).str(), big);
}

// Divisions of one x by one constant with different offsets are related; a sum with fewer than
// two of them (or one remainder with an offset) is left to the other rules.
TEST(NormalForm, OffsetsOfOneDivisionAreRelated) {
  EXPECT_EQ(checked("2 - (t + 1) % 2", all(), -30, 30), "t % 2 + 1");
  EXPECT_EQ(checked("x % 2 + (x + 1) % 2", all(), -30, 30), "1");
  EXPECT_EQ(checked("(x + 1)//2 - x//2", all(), -30, 30), "x % 2");
  // One remainder whose table is no smaller, a divisor past the tabulated ones, one quotient.
  EXPECT_EQ(checked("(t + 3) % 4 + 2", all(), -30, 30), "(t + 3) % 4 + 2");
  EXPECT_EQ(checked("(x + 1) % 17 + 1", all(), -40, 40), "(x + 1) % 17 + 1");
  EXPECT_EQ(checked("(x + 3)//4 + 1", all(), -30, 30), "(x + 7)//4");
  // Tables past 64-bit integers (the offsets, or the sums of coefficients) are tabulated exactly.
  EXPECT_EQ(
      checked("(x + 100000000000000000000)//3 - (x + 99999999999999999999)//3", all(), -30, 30),
      "(x % 3 + 1)//3");
  EXPECT_EQ(
      checked("9223372036854775807*(x//2) + 9223372036854775807*((x + 1)//2)", all(), -30, 30),
      "9223372036854775807*x");
}

// The tables are computed on machine integers when the coefficients and offsets are below 2^19
// in magnitude, else exactly: both sides of that bound give the same forms.
TEST(NormalForm, OffsetTablesOnBothSidesOfTheMachineIntegerBound) {
  EXPECT_EQ(checked("(x + 524287)//2 - (x + 524288)//2", all(), -30, 30), "x % 2 - 1");
  EXPECT_EQ(checked("(x + 1048576)//3 - (x + 1048575)//3", all(), -30, 30), "(x % 3 + 1)//3");
  EXPECT_EQ(checked("524287*(x//2) + 524287*((x + 1)//2)", all(), -30, 30), "524287*x");
  EXPECT_EQ(checked("524288*(x//2) + 524288*((x + 1)//2)", all(), -30, 30), "524288*x");
  EXPECT_EQ(checked("1048576*(x//4) - 1048576*((x + 4)//4)", all(), -30, 30), "-1048576");
}

TEST(NormalForm, CancellationIsKept) {
  EXPECT_EQ(checked("(x + 7)//2 - (x + 1)//2", all(), -30, 30), "3");
  EXPECT_EQ(checked("(x - 1)//4 - (x + 3)//4", all(), -30, 30), "-1");
  EXPECT_EQ(checked("x - 3*(x//3)", all(), -30, 30), "x % 3");
  EXPECT_EQ(checked("8*(x//8) + x % 8", all(), -30, 30), "x");
}

// A power of a sum of window products expanded (its terms merged, which read as cancelling), and
// recombine's search over the expansion's division terms nests (each candidate is simplified in
// full, recombine included): these ran for minutes. The powers now stay powers, and their
// expansions, given as they are, are bounded by the call's recombine budget; what comes out still
// equals the input.
TEST(NormalForm, RecombineOnAnExpandedPowerIsBounded) {
  for (const char* text : {"(((h - 21)//5)*(h + 2)*((w - 2)//4) + 2*w)**2",
                           "-(((h - 21)//5)*(h + 2)*((w - 2)//4) + 2*w)**3",
                           "(((h + 4)//5 - 5)*(h + 2)*((w + 2)//4 - 1) + 2*w)**2"}) {
    const Expr power = parsed(text), expanded(power.ex().expand());
    const Expr kept = simplify(power, sizes()), s = simplify(expanded, sizes());
    const std::string printed = kept.str();
    EXPECT_EQ(printed.find("**"), printed.rfind("**")) << text << " -> " << printed;
    for (int64_t h = 1; h <= 24; ++h) {
      for (int64_t w = 1; w <= 24; w += 3) {
        const Bindings v{{"h", Int(h)}, {"w", Int(w)}};
        ASSERT_EQ(evaluate(power, v), evaluate(kept, v)) << text << " at " << h << ", " << w;
        ASSERT_EQ(evaluate(power, v), evaluate(s, v)) << text << " expanded, at " << h << ", " << w;
      }
    }
  }
}

// The budget is what stops that search (a cut, so the result is not kept as what run() computes
// afresh), while the recombinations the rules exist for spend a sliver of it.
TEST(NormalForm, RecombineBudgetStopsOnlyTheExplodingSearch) {
  struct InsideSimplify {  // as simplify() runs its Simplifier
    bool saved = detail::inside_simplify();
    InsideSimplify() { detail::inside_simplify() = true; }
    ~InsideSimplify() { detail::inside_simplify() = saved; }
  } scope;
  const Facts facts = sizes();
  {
    detail::Simplifier s(facts);
    // The power itself now stays a power; its expansion (offsets as the simplifier keeps them)
    // is what made the search explode.
    s.run(parsed("(((h + 4)//5 - 5)*(h + 2)*((w + 2)//4 - 1) + 2*w)**2").ex().expand());
    EXPECT_GT(s.cuts(), 0u);
    EXPECT_LE(s.recombine_work(), detail::Simplifier::kMaxRecombineWork);
    EXPECT_GT(s.recombine_work(), detail::Simplifier::kMaxRecombineWork / 2);
  }
  for (const char* text : {"8*(x//8) + x % 8", "x - 3*(x//3)", "s + (-s) % 64"}) {
    detail::Simplifier s(facts);
    s.run(parsed(text).ex());
    EXPECT_GT(s.recombine_work(), 0u) << text;
    EXPECT_LT(s.recombine_work(), 100u) << text;
    EXPECT_EQ(s.cuts(), 0u) << text;
  }
}

// ---- canonical forms from real reports ----------------------------------------------------

TEST(NormalForm, RoundUpWithMod) {
  EXPECT_EQ(checked("s + (-s) % 64", all(), -200, 200), "64*((s + 63)//64)");
  EXPECT_EQ(checked("s + (-s) % 8", sizes(), 1, 100), "8*((s + 7)//8)");
}

TEST(NormalForm, FloorOfFloorWithNegatedOperands) {
  EXPECT_EQ(checked("(-(x//2))//3", all(), -60, 60), "-((x + 4)//6)");
  EXPECT_EQ(checked("((x//2))//(-3)", all(), -60, 60), "-((x + 4)//6)");
  EXPECT_EQ(checked("(-((-x)//4))//2", all(), -60, 60), "(x + 3)//8");
}

TEST(NormalForm, ModOfScaledFloorOfMod) {
  // TVM's layout-transform indices: (4*((i % 64)//4)) % 16 is 4*((i % 16)//4).
  EXPECT_EQ(checked("(4*((i % 64)//4)) % 16", all(), -100, 100), "4*((i % 16)//4)");
  EXPECT_EQ(checked("(8*((i % 32)//2)) % 32", all(), -100, 100), "8*((i % 8)//2)");
}

TEST(NormalForm, SamePaddingAmount) {
  EXPECT_EQ(checked("max((ceildiv(t, 2) - 1)*2 + 3 - t, 0)", sizes(), 1, 100), "t % 2 + 1");
}

}  // namespace
}  // namespace symshape
