// Large and adversarial inputs stay fast and small: max / min over many arguments (once cubic in
// their number: 200 arguments took 9 s), a power of a sum that would expand into megabytes, and
// a graph whose shape holds a 200-argument max. Each runs at a size the old code needed seconds
// (or hours) for; the time checks are generous, the speedups are orders of magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/propagate.h"
#include "symshape/simplify.h"

namespace symshape {
namespace {

using Clock = std::chrono::steady_clock;

std::string repro(const std::string& name) {
  std::ifstream in(std::string(SYMSHAPE_SOURCE_DIR) + "/tests/repros/" + name);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// simplify(e) equals e at random points where every symbol lies in [lo, hi].
void expect_same_values(const Expr& e, const Expr& simplified, int64_t lo, int64_t hi) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    Bindings b;
    for (const std::string& s : e.free_symbols())
      b[s] = Int(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    ASSERT_EQ(evaluate(e, b), evaluate(simplified, b)) << "trial " << trial;
  }
}

TEST(SimplifyBlowup, MaxOf200ArgumentsRepro) {
  Expected<Expr> e = parse_expr(repro("e57_max_200_args.txt"));
  ASSERT_TRUE(e.ok()) << e.error();
  auto start = Clock::now();
  Expr s = simplify(*e, Facts());
  EXPECT_LT(seconds_since(start), 2.0);
  // Distinct sizes: none dominates another, all 200 stay (in the printer's order).
  EXPECT_EQ(s.free_symbols().size(), 200u);
  EXPECT_TRUE(s.str().starts_with("max(x0, x1, x10, x100, ")) << s.str().substr(0, 80);
  expect_same_values(*e, s, 1, 1000);
}

TEST(SimplifyBlowup, MinMaxOf1000ArgumentsRepro) {
  Expected<Expr> e = parse_expr(repro("e55_min_max_1000_args.txt"));
  ASSERT_TRUE(e.ok()) << e.error();
  auto start = Clock::now();
  Expr s = simplify(*e, Facts());
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(s.free_symbols().size(), e->free_symbols().size());
  expect_same_values(*e, s, 1, 1000);
}

TEST(SimplifyBlowup, MaxOf3000ArgumentsDropsTheDominatedInOnePass) {
  // x_{i mod 30} + i: of each x_k + c only the largest c can win; 2 * x0 + 5000 beats the
  // group of x0 (sizes are >= 1), and the constants lose to x1 + 2971 and its kind.
  std::vector<std::string> args;
  for (size_t i = 0; i < 3000; ++i)
    args.push_back("x" + std::to_string(i % 30) + " + " + std::to_string(i));
  args.push_back("2*x0 + 5000");
  args.push_back("17");
  std::string text = "max(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i];
  text += ")";
  Expected<Expr> e = parse_expr(text);
  ASSERT_TRUE(e.ok()) << e.error();
  auto start = Clock::now();
  Expr s = simplify(*e, Facts());
  EXPECT_LT(seconds_since(start), 5.0);
  std::string printed = s.str();
  EXPECT_NE(printed.find("2*x0 + 5000"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("x0 + 2970"), std::string::npos) << printed;
  EXPECT_NE(printed.find("x29 + 2999"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("x29 + 2969"), std::string::npos) << printed;
  // 29 groups and 2*x0 + 5000: the constant 17 went too.
  EXPECT_EQ(std::count(printed.begin(), printed.end(), ','), 29) << printed;
  EXPECT_EQ(s.free_symbols().size(), 30u);
  expect_same_values(*e, s, 1, 10000);
}

TEST(SimplifyBlowup, PowerOfASumKeepsTheCompactForm) {
  Expected<Expr> e = parse_expr(repro("e17_binomial_blowup.txt"));
  ASSERT_TRUE(e.ok()) << e.error();
  auto start = Clock::now();
  EXPECT_EQ(simplify(*e, Facts()).str(), "(a + b + c + d + e)**30");
  // Six terms to the 30th would be 324,632 terms.
  Expected<Expr> six = parse_expr("(a + b + c + d + e + f)**30 + (x + 1)*(x - 1)");
  ASSERT_TRUE(six.ok());
  Expr s = simplify(*six, Facts());
  EXPECT_EQ(s.str(), "(a + b + c + d + e + f)**30 + x**2 - 1");
  EXPECT_LT(seconds_since(start), 2.0);
  expect_same_values(*six, s, -3, 3);
  // Small powers still expand, so that terms can cancel.
  Expected<Expr> small = parse_expr("(a + b)**3 - a**3");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(simplify(*small, Facts()).str(), "3*a*b**2 + 3*a**2*b + b**3");
}

TEST(SimplifyBlowup, GraphWithA200ArgumentMaxShapeChecksFast) {
  Expected<Graph> g = read_graph(repro("98_shape_max_200_args.json"));
  ASSERT_TRUE(g.ok()) << g.error();
  auto start = Clock::now();
  ShapeEnv env;
  Propagation r = propagate(*g, env);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_LT(seconds_since(start), 3.0);
}

}  // namespace
}  // namespace symshape
