// The printer: golden text for the shapes users read in guards and errors, and output that does
// not depend on the order in which symbols were created (GiNaC's own order does).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "tests/expr/expr_test_util.h"

namespace symshape {
namespace {

using expr_test::sym;

TEST(Print, QuotientsAndRemainders) {
  const Expr x = sym("x"), y = sym("y"), a = sym("a"), b = sym("b");
  EXPECT_EQ((2 * x + floordiv(y, 4)).str(), "2*x + y//4");
  EXPECT_EQ(floordiv(3 * x, 2).str(), "(3*x)//2");
  EXPECT_EQ(floordiv(x, a * b).str(), "x//(a*b)");
  EXPECT_EQ(floordiv(x + 1, a + b).str(), "(x + 1)//(a + b)");
  EXPECT_EQ((2 * floordiv(x, 4)).str(), "2*(x//4)");
  EXPECT_EQ((-floordiv(x, 4)).str(), "-(x//4)");
  EXPECT_EQ((floordiv(x, 4) * -2).str(), "-2*(x//4)");
  EXPECT_EQ((y - floordiv(x, 4)).str(), "y - x//4");
  EXPECT_EQ(floordiv(-x, 4).str(), "(-x)//4");
  EXPECT_EQ(floordiv(floordiv(x, 2), 3).str(), "(x//2)//3");
  EXPECT_EQ(mod(x, 4).str(), "x % 4");
  EXPECT_EQ(mod(2 * x, 4).str(), "(2*x) % 4");
  EXPECT_EQ((2 * mod(x, 4)).str(), "2*(x % 4)");
  EXPECT_EQ((-mod(x, 4)).str(), "-(x % 4)");
  EXPECT_EQ((y - mod(x, 4)).str(), "y - x % 4");
  EXPECT_EQ(mod(floordiv(x, 2), 7).str(), "(x//2) % 7");
  EXPECT_EQ(ceildiv(x, 4).str(), "ceildiv(x, 4)");
  EXPECT_EQ(ceildiv(x * y, a + 1).str(), "ceildiv(x*y, a + 1)");
  EXPECT_EQ((3 * ceildiv(x, 4)).str(), "3*ceildiv(x, 4)");
}

// A sum's constant goes into its quotients, the largest coefficient first, each taking the
// multiple of its coefficient the constant holds; the printed text reads back to the same value.
TEST(Print, ConstantsFoldIntoQuotientsLargestCoefficientFirst) {
  const Expr s = sym("s"), h = sym("h"), x = sym("x"), y = sym("y");
  const Expr window_s = floordiv(s + 7, 8) - 1, window_h = floordiv(h + 3, 4) - 1;
  const std::vector<std::pair<Expr, std::string>> cases = {
      {64 * window_s, "64*((s - 1)//8)"},
      {-64 * window_s, "-64*((s - 1)//8)"},
      {-64 * window_s + 3, "-64*((s - 1)//8) + 3"},
      {64 * window_s + window_h, "(h - 1)//4 + 64*((s - 1)//8)"},
      {64 * window_s + 7 * window_h, "7*((h - 1)//4) + 64*((s - 1)//8)"},
      {2 * floordiv(x + 1, 2) + floordiv(y + 1, 2) - 3, "2*((x - 1)//2) + (y - 1)//2"},
      // Less than the coefficient: kept as a constant.
      {2 * floordiv(x + 3, 4) - 1, "2*((x + 3)//4) - 1"},
      // No offset of its own: as written.
      {floordiv(x, 2) + 1, "x//2 + 1"},
  };
  for (const auto& [e, text] : cases) {
    EXPECT_EQ(e.str(), text);
    Expected<Expr> back = parse_expr(e.str());
    ASSERT_TRUE(back) << e.str();
    for (long a = -9; a <= 9; ++a) {
      for (long b = -9; b <= 9; b += 3) {
        const Bindings at = {{"s", Int(a)}, {"h", Int(b)}, {"x", Int(a)}, {"y", Int(b)}};
        EXPECT_EQ(to_string(evaluate(*back, at)), to_string(evaluate(e, at))) << text;
      }
    }
  }
}

TEST(Print, MaxAndMinAreFlattenedAndSorted) {
  const Expr a = sym("a"), b = sym("b"), c = sym("c");
  EXPECT_EQ(max(a, max(b, c)).str(), "max(a, b, c)");
  EXPECT_EQ(max(max(c, a), b).str(), "max(a, b, c)");
  EXPECT_EQ(max(std::vector<Expr>{c, b, a}).str(), "max(a, b, c)");
  EXPECT_EQ(min(c, min(a, b)).str(), "min(a, b, c)");
  EXPECT_EQ(max(a, -3).str(), "max(-3, a)");
  // A min inside a max is an argument, not flattened into it.
  EXPECT_EQ(max(min(b, c), a).str(), "max(a, min(b, c))");
  EXPECT_EQ((max(a, b) + min(a, b)).str(), "max(a, b) + min(a, b)");
}

TEST(Print, Polynomials) {
  const Expr x = sym("x"), y = sym("y");
  EXPECT_EQ((pow(x, 2) * y + x * y - x + 3).str(), "x**2*y + x*y - x + 3");
  EXPECT_EQ((3 - x + x * y + y * pow(x, 2)).str(), "x**2*y + x*y - x + 3");
  EXPECT_EQ(pow(x + 1, 2).str(), "(x + 1)**2");
  EXPECT_EQ((-pow(x, 2)).str(), "-x**2");
  EXPECT_EQ(pow(floordiv(x, 2), 3).str(), "(x//2)**3");
  // Sums as factors are ordered by the canonical order (constants first), not by name.
  EXPECT_EQ(((x + 1) * (y - 1)).str(), "(y - 1)*(x + 1)");
  EXPECT_EQ((-(x + y)).str(), "-x - y");
}

TEST(Print, ExactQuotients) {
  const Expr x = sym("x"), y = sym("y");
  EXPECT_EQ(exact_div(x + y, 2).str(), "(x + y)//2");
  EXPECT_EQ(exact_div(x, y).str(), "x//y");
  EXPECT_EQ(exact_div(6 * x, 4).str(), "(3*x)//2");
  EXPECT_EQ(exact_div(-x, 2).str(), "(-x)//2");
  EXPECT_EQ(exact_div(2 * x + 4, 2).str(), "x + 2");
  EXPECT_EQ(exact_div(x * y, y).str(), "x");
  // Multiplying an exact quotient back cancels: y * (x // y) is x when y divides x.
  EXPECT_EQ((y * exact_div(x, y)).str(), "x");
}

TEST(Print, NegativeConstants) {
  const Expr x = sym("x");
  EXPECT_EQ(Expr(-5).str(), "-5");
  EXPECT_EQ((x - 5).str(), "x - 5");
  EXPECT_EQ((-5 + x).str(), "x - 5");
  EXPECT_EQ((-x - 5).str(), "-x - 5");
  EXPECT_EQ((-5 * x).str(), "-5*x");
  EXPECT_EQ((-5 * x + 1).str(), "-5*x + 1");
  EXPECT_EQ(floordiv(x, -2).str(), "x//(-2)");
  EXPECT_EQ(mod(x, -3).str(), "x % (-3)");
  EXPECT_EQ(ceildiv(x, -3).str(), "ceildiv(x, -3)");
  EXPECT_EQ(Expr(0).str(), "0");
  const std::string big = "-123456789012345678901234567890123456789012345678901234567890";
  EXPECT_EQ(Expr(*parse_int(big)).str(), big);
  const std::string minus_big = "x - " + big.substr(1);
  EXPECT_EQ((x + Expr(*parse_int(big))).str(), minus_big);
}

// Corner cases of the printer's paths: a constant folded into a sum's one quotient (printed with
// the offset in place, including when the numerator is left with one term), folded among several
// terms (the order is that of the folded quotient), integers past int64 as coefficients,
// constants and offsets, sum factors whose sign is taken out, nested calls, and powers.
TEST(Print, CornerCasesOfThePrintersPaths) {
  const Expr s = sym("s"), h = sym("h"), a = sym("a"), b = sym("b"), x = sym("x"), z = sym("z");
  const Expr big(*parse_int("1180591620717411303424"));  // 2**70
  EXPECT_EQ((floordiv(s + 3, 4) - 1).str(), "(s - 1)//4");
  EXPECT_EQ((1 - floordiv(s + 3, 4)).str(), "-((s - 1)//4)");
  EXPECT_EQ((floordiv(2 * s + 5, 4) - 1).str(), "(2*s + 1)//4");
  EXPECT_EQ((floordiv(s + 8, 4) - 2).str(), "s//4");
  EXPECT_EQ((floordiv(2 * s + 8, 4) - 2).str(), "(2*s)//4");
  EXPECT_EQ((5 - floordiv(3 * s * h + 20, 4)).str(), "-((3*h*s)//4)");
  EXPECT_EQ((floordiv(pow(s, 2) + 8, 4) - 2).str(), "s**2//4");
  EXPECT_EQ((64 * (floordiv(s + 3, 4) - 1) * (floordiv(h + 1, 2) + 2)).str(),
            "64*((s - 1)//4)*((h + 5)//2)");
  EXPECT_EQ((floordiv(s + 3, 4) + floordiv(h + 1, 2) - 1).str(), "(h - 1)//2 + (s + 3)//4");
  EXPECT_EQ((floordiv(h + 3, 4) - floordiv(s + 1, 2) + 3).str(), "-((s - 5)//2) + (h + 3)//4");
  EXPECT_EQ((floordiv(s + 3, 4) - big).str(), "(s - 4722366482869645213693)//4");
  EXPECT_EQ((big * s - 3 * floordiv(h, 4) + big).str(),
            "1180591620717411303424*s - 3*(h//4) + 1180591620717411303424");
  EXPECT_EQ((-big * s * h + 1).str(), "-1180591620717411303424*h*s + 1");
  EXPECT_EQ((3 * ceildiv(s - 1, 8) - ceildiv(big, h)).str(),
            "-ceildiv(1180591620717411303424, h) + 3*ceildiv(s - 1, 8)");
  EXPECT_EQ(pow(1 - x, 3).str(), "-(x - 1)**3");
  EXPECT_EQ(((a - z) * (1 - x)).str(), "-(x - 1)*(a - z)");
  EXPECT_EQ((pow(1 - x, 2) * a).str(), "a*(x - 1)**2");
  EXPECT_EQ((floordiv(max(a, min(b, s + 1)), 4) + mod(min(a, max(b, 2)), 3) * 2).str(),
            "max(a, min(b, s + 1))//4 + 2*(min(a, max(2, b)) % 3)");
  EXPECT_EQ(max(a, max(b, a)).str(), "max(a, b)");
  EXPECT_EQ((pow(min(a, b), 2) - pow(max(a, 1), 3)).str(), "-max(1, a)**3 + min(a, b)**2");
  EXPECT_EQ((-2 * pow(floordiv(s, 2), 3)).str(), "-2*(s//2)**3");
  EXPECT_EQ(exact_div(a - 2 * b, 3).str(), "(a - 2*b)//3");
  EXPECT_EQ(exact_div(s * h, 2 - a).str(), "(-h*s)//(a - 2)");
  EXPECT_EQ(Expr(-7).str(), "-7");
}

// The printer reuses per-thread scratch space; an expression outside the grammar, met deep inside
// another, is an error that leaves the next print unaffected.
TEST(Print, AnErrorDeepInsideLeavesTheNextPrintIntact) {
  const Expr s = sym("s"), h = sym("h");
  const Expr good = 64 * (floordiv(s + 3, 4) - 1) * max(h, floordiv(h + 1, 2) + 2) + 3 * s;
  const std::string expected = good.str();
  const Expr bad = 2 * max(h, Expr(GiNaC::sin(s.ex())) + 1) + floordiv(s + 3, 4) * good;
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW((void)bad.str(), Error);
    EXPECT_EQ(good.str(), expected);
  }
}

TEST(Print, Conditions) {
  const Expr x = sym("x"), y = sym("y"), z = sym("z");
  EXPECT_EQ((x < y).str(), "x < y");
  EXPECT_EQ((x + 1 <= 2 * y).str(), "x + 1 <= 2*y");
  EXPECT_EQ(((x < y) && ((y < z) || (z == 1))).str(), "x < y and (y < z or z == 1)");
  EXPECT_EQ(((x < 5) || ((y >= 2) && (z != 3))).str(), "x < 5 or y >= 2 and z != 3");
  EXPECT_EQ((mod(x, 2) == 0).str(), "x % 2 == 0");
  EXPECT_EQ(Cond::truth(true).str(), "True");
  EXPECT_EQ(Cond::truth(false).str(), "False");
}

// Expressions over three symbols; each test passes symbols created in its own order.
std::vector<Expr> expr_family(const Expr& aa, const Expr& mm, const Expr& zz) {
  return {
      zz + aa + mm,
      3 * zz * pow(aa, 2) - mm * zz + aa - 7,
      max(std::vector<Expr>{zz, mm, aa}),
      min(zz, min(aa, mm)),
      floordiv(zz, aa * mm) + mod(aa * zz + 1, 7),
      ceildiv(mm + zz, aa) - floordiv(aa, 4),
      exact_div(aa + zz, 2),
      exact_div(zz * mm + aa, mm),
      pow(zz + aa, 3),
      (zz - aa) * (mm + aa),
      max(zz, aa) * min(mm, zz) - max(mm, zz),
      // GiNaC moves the sign of a sum factor in or out by hash order: (zz - aa)*mm may be
      // stored as -(aa - zz)*mm. The printer must not show which.
      (zz - aa) * mm,
      pow(zz - aa, 3),
      pow(zz - aa, 2) * mm,
      (zz - aa) * (mm - aa) * (zz - mm),
      exact_div(mm, zz - aa),
      exact_div(mm + 1, 2 * (zz - aa)),
      floordiv(mm, (zz - aa) * (mm - aa)),
      max((zz - aa) * mm, (aa - zz) * aa),
      mm + (zz - aa) * (mm - aa) * zz,
  };
}

std::vector<std::string> print_family(const Expr& aa, const Expr& mm, const Expr& zz) {
  std::vector<std::string> out;
  for (const Expr& e : expr_family(aa, mm, zz)) out.push_back(e.str());
  out.push_back((((zz < aa) || (mm == aa)) && (zz + mm >= aa)).str());
  return out;
}

std::string strip(std::string text, const std::string& suffix) {
  for (size_t p = text.find(suffix); p != std::string::npos; p = text.find(suffix, p)) {
    text.erase(p, suffix.size());
  }
  return text;
}

TEST(Print, TextDoesNotDependOnSymbolCreationOrder) {
  // zz before mm before aa ...
  const Expr zz_p = sym("zz_p"), mm_p = sym("mm_p"), aa_p = sym("aa_p");
  // ... and aa before mm before zz.
  const Expr aa_q = sym("aa_q"), mm_q = sym("mm_q"), zz_q = sym("zz_q");
  const std::vector<std::string> p = print_family(aa_p, mm_p, zz_p);
  const std::vector<std::string> q = print_family(aa_q, mm_q, zz_q);
  ASSERT_EQ(p.size(), q.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(strip(p[i], "_p"), strip(q[i], "_q"));

  const std::vector<std::string> golden = {
      "aa + mm + zz",
      "3*aa**2*zz - mm*zz + aa - 7",
      "max(aa, mm, zz)",
      "min(aa, mm, zz)",
      "zz//(aa*mm) + (aa*zz + 1) % 7",
      "-(aa//4) + ceildiv(mm + zz, aa)",
      "(aa + zz)//2",
      "(mm*zz + aa)//mm",
      "(aa + zz)**3",
      "-(aa + mm)*(aa - zz)",
      "max(aa, zz)*min(mm, zz) - max(mm, zz)",
      "-mm*(aa - zz)",
      "-(aa - zz)**3",
      "mm*(aa - zz)**2",
      "-(aa - mm)*(aa - zz)*(mm - zz)",
      "(-mm)//(aa - zz)",
      "(-mm - 1)//(2*aa - 2*zz)",
      "mm//((aa - mm)*(aa - zz))",
      "max(aa*(aa - zz), -mm*(aa - zz))",
      "zz*(aa - mm)*(aa - zz) + mm",
      "(zz < aa or mm == aa) and mm + zz >= aa",
  };
  ASSERT_EQ(p.size(), golden.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(strip(p[i], "_p"), golden[i]) << i;
}

TEST(Print, PrintedTextHasTheExpressionsValue) {
  // The printed text, read back, has the value of the expression wherever that is an integer
  // (an exact quotient is only defined where the division is exact).
  const Expr aa = sym("aa_v"), mm = sym("mm_v"), zz = sym("zz_v");
  for (const Expr& e : expr_family(aa, mm, zz)) {
    Expected<Expr> back = parse_expr(e.str());
    ASSERT_TRUE(back) << e.str() << ": " << back.error();
    int compared = 0;
    for (long a = -4; a <= 4; ++a) {
      for (long m = -4; m <= 4; ++m) {
        for (long z = -4; z <= 4; ++z) {
          const Bindings at = {{"aa_v", Int(a)}, {"mm_v", Int(m)}, {"zz_v", Int(z)}};
          Int expected;
          try {
            expected = evaluate(e, at);
          } catch (const Error&) {
            continue;  // a zero divisor or an inexact quotient at this point
          }
          EXPECT_EQ(to_string(evaluate(*back, at)), to_string(expected))
              << e.str() << " at " << a << ", " << m << ", " << z;
          ++compared;
        }
      }
    }
    EXPECT_GT(compared, 0) << e.str();
  }
}

TEST(Print, CanonicalCompareIsAStrictOrder) {
  const Expr x = sym("x"), y = sym("y");
  const std::vector<Expr> items = {
      Expr(-3),       Expr(0),   Expr(5),       x,         y,
      pow(x, 2),      x * y,     2 * x,         x + y,     x + 1,
      floordiv(x, 2), mod(x, 2), ceildiv(x, 2), max(x, y), min(x, y),
  };
  for (const Expr& a : items) {
    EXPECT_EQ(canonical_compare(a.ex(), a.ex()), 0) << a.str();
    for (const Expr& b : items) {
      if (a.identical(b)) continue;
      const int ab = canonical_compare(a.ex(), b.ex());
      const int ba = canonical_compare(b.ex(), a.ex());
      EXPECT_NE(ab, 0) << a.str() << " vs " << b.str();
      EXPECT_EQ(ab > 0, ba < 0) << a.str() << " vs " << b.str();
    }
  }
}

// Two sums compare as the lists of their operands sorted in the canonical order (shorter first
// when one is the other's start), whether or not their constant terms differ.
TEST(Print, SumsCompareAsTheirSortedOperands) {
  const Expr x = sym("x"), y = sym("y"), z = sym("z");
  const std::vector<Expr> sums = {
      x + 1,
      x + 2,
      x - 1,
      y + 1,
      x + y,
      x + y + 1,
      x + y - 3,
      2 * x + 1,
      x + z,
      y + z + 5,
      floordiv(x, 2) + 1,
      3 * x - 1,
      x * y + 1,
      pow(x, 2) + x,
      x - y,
      -x - 1,
  };
  auto sorted = [](const Expr& e) {
    std::vector<GiNaC::ex> ops;
    for (size_t i = 0; i < e.ex().nops(); ++i) ops.push_back(e.ex().op(i));
    std::sort(ops.begin(), ops.end(),
              [](const GiNaC::ex& a, const GiNaC::ex& b) { return canonical_compare(a, b) < 0; });
    return ops;
  };
  for (const Expr& a : sums) {
    for (const Expr& b : sums) {
      const std::vector<GiNaC::ex> la = sorted(a), lb = sorted(b);
      int expected = 0;
      for (size_t i = 0; i < la.size() && i < lb.size() && expected == 0; ++i) {
        expected = canonical_compare(la[i], lb[i]);
      }
      if (expected == 0) expected = (la.size() > lb.size()) - (la.size() < lb.size());
      EXPECT_EQ(canonical_compare(a.ex(), b.ex()), expected) << a.str() << " vs " << b.str();
    }
  }
}

}  // namespace
}  // namespace symshape
