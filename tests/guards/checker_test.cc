// The compiled checker and GuardInt: exact answers with and without int64 overflow.
#include <gtest/gtest.h>

#include <random>

#include "symshape/guard_int.h"
#include "tests/guards/guard_test_util.h"

namespace symshape::testing {
namespace {

// A guard set over sources a, b, c (identifiers a_, b_, c_) with the given conditions.
GuardSet set_of(const std::vector<std::string>& conds) {
  GuardSet set;
  for (const char* n : {"a", "b", "c"}) {
    set.sources.push_back(
        {Source::Kind::Dim, n, 0, std::string("dims['") + n + "']", std::string(n) + "_"});
  }
  for (const std::string& c : conds) {
    Expected<Cond> parsed = parse_cond(c);
    if (!parsed) throw std::runtime_error(parsed.error());
    set.guards.push_back({ProducedGuard::Kind::Guard, *parsed, {"n", "op", c}});
  }
  return set;
}

Bindings bind(const std::vector<Int>& v) { return {{"a_", v[0]}, {"b_", v[1]}, {"c_", v[2]}}; }

// The first guard that is false (or not evaluable) by exact evaluation; npos when all hold.
size_t exact_first_failure(const GuardSet& set, const std::vector<Int>& v) {
  for (size_t g = 0; g < set.guards.size(); ++g) {
    try {
      if (!evaluate(set.guards[g].cond, bind(v))) return g;
    } catch (const Error&) {
      return g;
    }
  }
  return GuardChecker::npos;
}

TEST(GuardChecker, SimpleGuards) {
  GuardSet set = set_of({"a_ == b_", "2 <= a_ and a_ <= 64", "c_ % 8 == 0", "a_*b_ + c_ > 20"});
  GuardChecker checker(set);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{4, 4, 16}), GuardChecker::npos);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{4, 5, 16}), 0u);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{65, 65, 16}), 1u);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{4, 4, 12}), 2u);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{2, 2, 8}), 3u);
}

TEST(GuardChecker, OverflowFallsBackToExactArithmetic) {
  // a*b overflows int64 for these values; the exact answer decides.
  GuardSet set = set_of({"a_*b_ > c_", "a_*b_ - c_*c_ == 0"});
  GuardChecker checker(set);
  const int64_t big = int64_t{1} << 40;
  // 2^80 > 2^40 holds, and 2^80 - (2^40)^2 == 0 holds: nothing fails although every product
  // overflows.
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{big, big, big}), GuardChecker::npos);
  // 2^80 - (2^40 + 1)^2 != 0.
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{big, big, big + 1}), 1u);
  // 2^80 wraps to 0 in int64: a wrapping checker would say 0 > 3 fails.
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{big, big, 3}), 1u);
}

// Powers above the unrolled ones (repros/graphs/29: n**100000) are raised by squaring, exactly;
// every printer and the checker handle them alike.
TEST(GuardChecker, LargePowersAreExact) {
  GuardSet set = set_of({"a_ == b_**65"});
  GuardChecker checker(set);
  const Int two65 = *parse_int("36893488147419103232");
  EXPECT_FALSE(checker.check({two65, Int(2), Int(0)}).has_value());
  EXPECT_TRUE(checker.check({two65 + 1, Int(2), Int(0)}).has_value());
  EXPECT_TRUE(checker.check({two65, Int(3), Int(0)}).has_value());
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{1, 1, 0}), GuardChecker::npos);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{-1, -1, 0}), GuardChecker::npos);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{0, 2, 0}), 0u);  // 2**65 overflows: exact
  GuardSet huge = set_of({"b_**100000 > a_"});
  GuardChecker huge_checker(huge);
  EXPECT_EQ(huge_checker.first_failure(std::vector<int64_t>{5, 3, 0}), GuardChecker::npos);
  EXPECT_EQ(huge_checker.first_failure(std::vector<int64_t>{5, 1, 0}), 0u);
}

TEST(GuardInt, PowBySquaring) {
  EXPECT_EQ(pow(GuardInt(2), 65).str(), "36893488147419103232");
  EXPECT_EQ(pow(GuardInt(-3), 3).str(), "-27");
  EXPECT_EQ(pow(GuardInt(7), 1).str(), "7");
  EXPECT_EQ(pow(GuardInt(0), 100000).str(), "0");
  EXPECT_EQ(pow(GuardInt(-1), 100001).str(), "-1");
  EXPECT_EQ(pow(GuardInt(10), 40).str(), "1" + std::string(40, '0'));
}

TEST(GuardChecker, DivisionByZeroFailsTheGuardWithAReason) {
  GuardSet set = set_of({"a_ % b_ == 0"});
  GuardChecker checker(set);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{4, 0, 0}), 0u);
  std::optional<CheckFailure> f = checker.check({Int(4), Int(0), Int(0)});
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->reason.find("zero"), std::string::npos) << f->reason;
  EXPECT_EQ(f->text, "dims['a'] % dims['b'] == 0");
}

TEST(GuardChecker, FailureNamesTheGuardItsProvenanceAndTheValues) {
  GuardSet set = set_of({"a_ <= 64", "b_ + c_ == 10"});
  GuardChecker checker(set);
  std::optional<CheckFailure> f = checker.check({Int(3), Int(4), Int(5)});
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->guard, 1u);
  EXPECT_EQ(f->str(),
            "guard dims['b'] + dims['c'] == 10 failed with dims['b'] = 4, dims['c'] = 5; it came "
            "from node n (op, b_ + c_ == 10)");
  EXPECT_FALSE(checker.check({Int(3), Int(4), Int(6)}).has_value());
}

TEST(GuardChecker, ValuesBeyondInt64AreCheckedExactly) {
  GuardSet set = set_of({"a_ - b_ == 1", "c_ >= 0"});
  GuardChecker checker(set);
  Int huge = *parse_int("100000000000000000000000000001");
  EXPECT_FALSE(checker.check({huge, huge - 1, Int(0)}).has_value());
  std::optional<CheckFailure> f = checker.check({huge, huge, Int(0)});
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->guard, 0u);
}

TEST(GuardChecker, ConstantsBeyondInt64) {
  GuardSet set = set_of({"a_*b_ < 100000000000000000000000"});
  GuardChecker checker(set);
  const int64_t big = int64_t{1} << 38;  // 2^76 < 10^23
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{big, big, 0}), GuardChecker::npos);
  EXPECT_EQ(checker.first_failure(std::vector<int64_t>{big * 4, big, 0}), 0u);  // 2^78 > 10^23
}

TEST(GuardChecker, WrongNumberOfValuesIsAnError) {
  GuardChecker checker(set_of({"a_ > 0"}));
  EXPECT_THROW(checker.first_failure(std::vector<int64_t>{1, 2}), Error);
}

// Random guards over random values, including values near the int64 limits: the checker's
// first failure is the exact evaluator's.
TEST(GuardChecker, AgreesWithExactEvaluationOnRandomGuards) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> templates = {
      "a_ + b_ > c_",      "a_*b_ == c_",        "a_*b_*c_ > 1000",
      "a_ - b_*c_ < 0",    "a_ % 7 == b_ % 7",   "a_//b_ >= c_",
      "max(a_, b_) < c_",  "-a_ <= min(b_, c_)", "a_*a_ - b_*b_ != 0",
      "(a_ + 3)//4 == c_", "a_ % b_ != c_ % 5",  "a_*9223372036854775807 > b_"};
  std::vector<int64_t> pool = {0,
                               1,
                               2,
                               3,
                               7,
                               64,
                               1000,
                               -5,
                               -64,
                               int64_t{1} << 31,
                               int64_t{1} << 62,
                               INT64_MAX,
                               INT64_MIN,
                               INT64_MAX - 1,
                               -(int64_t{1} << 40)};
  int overflowing = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> conds;
    for (int k = 0; k < 3; ++k) conds.push_back(templates[rng() % templates.size()]);
    GuardSet set = set_of(conds);
    GuardChecker checker(set);
    std::vector<int64_t> v = {pool[rng() % pool.size()], pool[rng() % pool.size()],
                              pool[rng() % pool.size()]};
    std::vector<Int> exact = {Int(v[0]), Int(v[1]), Int(v[2])};
    size_t expected = exact_first_failure(set, exact);
    EXPECT_EQ(checker.first_failure(v), expected)
        << conds[0] << "; " << conds[1] << "; " << conds[2] << " at " << v[0] << ", " << v[1]
        << ", " << v[2];
    std::optional<CheckFailure> f = checker.check(exact);
    EXPECT_EQ(f ? f->guard : GuardChecker::npos, expected);
    auto large = [](int64_t x) { return x > (int64_t{1} << 32) || x < -(int64_t{1} << 32); };
    overflowing += large(v[0]) || large(v[1]);
  }
  EXPECT_GT(overflowing, 50);  // the overflow path was exercised
}

// ---- GuardInt ----

Int to_int(const GuardInt& g) { return *parse_int(g.str()); }

TEST(GuardInt, ArithmeticMatchesCln) {
  std::mt19937_64 rng(11);
  auto random_value = [&]() -> std::pair<GuardInt, Int> {
    // Products of up to three int64 values, with random signs: up to ~2^190.
    GuardInt g = 1;
    Int i = 1;
    int factors = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < factors; ++k) {
      int64_t f = static_cast<int64_t>(rng() >> (rng() % 63));
      if (rng() % 2) f = -f;
      g = g * GuardInt(f);
      i = i * Int(f);
    }
    return {g, i};
  };
  for (int round = 0; round < 2000; ++round) {
    auto [ga, ia] = random_value();
    auto [gb, ib] = random_value();
    ASSERT_EQ(to_int(ga), ia);
    EXPECT_EQ(to_int(ga + gb), ia + ib);
    EXPECT_EQ(to_int(ga - gb), ia - ib);
    EXPECT_EQ(to_int(ga * gb), ia * ib);
    EXPECT_EQ(to_int(-ga), -ia);
    EXPECT_EQ(ga < gb, ia < ib);
    EXPECT_EQ(ga == gb, ia == ib);
    if (!cln::zerop(ib)) {
      EXPECT_EQ(to_int(floordiv(ga, gb)), cln::floor1(ia, ib)) << ga.str() << " // " << gb.str();
      EXPECT_EQ(to_int(mod(ga, gb)), cln::mod(ia, ib)) << ga.str() << " % " << gb.str();
    }
  }
}

TEST(GuardInt, EdgeCases) {
  GuardInt min = GuardInt(INT64_MIN);
  EXPECT_EQ((-min).str(), "9223372036854775808");
  EXPECT_FALSE((-min).is_small());
  EXPECT_EQ(floordiv(min, GuardInt(-1)).str(), "9223372036854775808");
  EXPECT_EQ(mod(min, GuardInt(-1)).str(), "0");
  EXPECT_EQ(floordiv(GuardInt(-7), GuardInt(2)).str(), "-4");
  EXPECT_EQ(mod(GuardInt(-7), GuardInt(2)).str(), "1");
  EXPECT_EQ(mod(GuardInt(7), GuardInt(-2)).str(), "-1");
  EXPECT_EQ(GuardInt("-123456789012345678901234567890").str(), "-123456789012345678901234567890");
  EXPECT_TRUE((GuardInt("18446744073709551616") - GuardInt("18446744073709551615")).is_small());
  EXPECT_THROW(floordiv(GuardInt(1), GuardInt(0)), std::domain_error);
  EXPECT_THROW(GuardInt("12a"), std::invalid_argument);
}

}  // namespace
}  // namespace symshape::testing
