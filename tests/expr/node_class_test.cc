// detail::is_exactly (symshape/expr/functions.h): the engine's test of a GiNaC node's class, by
// its registered class information. It must agree with GiNaC::is_exactly_a on every kind of node
// the engine builds, and tell a registered subclass (fderivative of function) from its base.
#include <ginac/ginac.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"

namespace symshape {
namespace {

// Whether the two tests agree on e for each class the engine distinguishes.
void expect_agrees(const GiNaC::ex& e, const std::string& what) {
  using detail::is_exactly;
  EXPECT_EQ(is_exactly<GiNaC::numeric>(e), GiNaC::is_exactly_a<GiNaC::numeric>(e)) << what;
  EXPECT_EQ(is_exactly<GiNaC::symbol>(e), GiNaC::is_exactly_a<GiNaC::symbol>(e)) << what;
  EXPECT_EQ(is_exactly<GiNaC::add>(e), GiNaC::is_exactly_a<GiNaC::add>(e)) << what;
  EXPECT_EQ(is_exactly<GiNaC::mul>(e), GiNaC::is_exactly_a<GiNaC::mul>(e)) << what;
  EXPECT_EQ(is_exactly<GiNaC::power>(e), GiNaC::is_exactly_a<GiNaC::power>(e)) << what;
  EXPECT_EQ(is_exactly<GiNaC::function>(e), GiNaC::is_exactly_a<GiNaC::function>(e)) << what;
}

TEST(NodeClass, AgreesWithGinacOnEveryKindOfNode) {
  const std::vector<std::string> texts = {
      "7",     "-3",        "x",         "x + 1",         "2*x*y",  "x**3",          "x//4",
      "x % 8", "max(x, y)", "min(x, 2)", "ceildiv(x, 3)", "x*y//z", "(x + y)**2 - 1"};
  size_t seen = 0;
  for (const std::string& t : texts) {
    Expected<Expr> e = parse_expr(t);
    ASSERT_TRUE(e.ok()) << t;
    // The node and every node below it.
    for (auto it = e->ex().preorder_begin(); it != e->ex().preorder_end(); ++it, ++seen) {
      expect_agrees(*it, t);
    }
  }
  EXPECT_GT(seen, texts.size());
  // A rational and an exact quotient's negative power.
  expect_agrees(GiNaC::numeric(1, 3), "1/3");
  expect_agrees(GiNaC::pow(GiNaC::symbol("q"), -1), "q**-1");
}

TEST(NodeClass, TellsEachClassApart) {
  using detail::is_exactly;
  const GiNaC::symbol x("x");
  EXPECT_TRUE(is_exactly<GiNaC::symbol>(x));
  EXPECT_FALSE(is_exactly<GiNaC::numeric>(x));
  EXPECT_TRUE(is_exactly<GiNaC::numeric>(GiNaC::ex(5)));
  EXPECT_TRUE(is_exactly<GiNaC::add>(x + 1));
  EXPECT_FALSE(is_exactly<GiNaC::mul>(x + 1));
  EXPECT_TRUE(is_exactly<GiNaC::mul>(2 * x));
  EXPECT_TRUE(is_exactly<GiNaC::power>(GiNaC::pow(x, 2)));
  EXPECT_TRUE(is_exactly<GiNaC::function>(mod(Expr::symbol("x"), Expr::symbol("y")).ex()));
  // A registered subclass is not its base: the derivative of a function is no function call.
  // (ss_max has no derivative of its own, so GiNaC keeps the derivative unevaluated.)
  const GiNaC::ex d = ss_max(x, 2).diff(x);
  ASSERT_TRUE(GiNaC::is_exactly_a<GiNaC::fderivative>(d)) << d;
  EXPECT_FALSE(is_exactly<GiNaC::function>(d));
  EXPECT_TRUE(GiNaC::is_a<GiNaC::function>(d));
  // A subclass without a registration of its own counts as its base.
  EXPECT_TRUE(is_exactly<GiNaC::symbol>(GiNaC::realsymbol("r")));
}

}  // namespace
}  // namespace symshape
