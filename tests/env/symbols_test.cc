// Creating symbols: naming, policies (duck, dynamic, static, size-like unbacked), 0/1
// specialization, user constraints, and SymInt / SymBool arithmetic.
#include <gtest/gtest.h>

#include <string>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

const std::string kX0 = "L['x'].size()[0]";
const std::string kX1 = "L['x'].size()[1]";
const std::string kY0 = "L['y'].size()[0]";

TEST(ShapeEnvSymbols, BackedSymbolsAreNamedInCreationOrder) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0);
  SymInt b = env.create_symbol(7, kX1);
  SymInt c = env.create_symbol(9, kY0);
  EXPECT_EQ(a.str(), "s0");
  EXPECT_EQ(b.str(), "s1");
  EXPECT_EQ(c.str(), "s2");
  ASSERT_EQ(env.symbols().size(), 3u);
  EXPECT_EQ(env.symbols()[1].name, "s1");
  EXPECT_EQ(env.symbols()[1].index, 1u);
}

TEST(ShapeEnvSymbols, SymbolKeepsHintSourceRangeAndKind) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0);
  const SymbolInfo& info = env.symbol("s0");
  EXPECT_EQ(info.kind, SymbolKind::Backed);
  ASSERT_TRUE(info.hint.has_value());
  EXPECT_EQ(*info.hint, 5);
  EXPECT_EQ(info.source, kX0);
  EXPECT_FALSE(info.size_like);
  EXPECT_EQ(env.facts().range_of("s0").str(), "[2, inf]");
  EXPECT_EQ(env.bound(a.expr()).str(), "[2, inf]");
  EXPECT_EQ(*env.size_hint(a.expr()), 5);
}

TEST(ShapeEnvSymbols, UnbackedSymbolsHaveTheirOwnCounter) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0);
  SymInt u = env.create_unbacked_symint();
  SymInt b = env.create_symbol(6, kX1);
  SymInt v = env.create_unbacked_symint();
  EXPECT_EQ(a.str(), "s0");
  EXPECT_EQ(u.str(), "u0");
  EXPECT_EQ(b.str(), "s1");
  EXPECT_EQ(v.str(), "u1");
  const SymbolInfo& info = env.symbol("u0");
  EXPECT_EQ(info.kind, SymbolKind::Unbacked);
  EXPECT_FALSE(info.hint.has_value());
  EXPECT_TRUE(info.source.empty());
  EXPECT_EQ(env.facts().range_of("u0").str(), "[-inf, inf]");
  EXPECT_FALSE(env.size_hint(u.expr()).has_value());
  EXPECT_FALSE(env.size_hint((a + u).expr()).has_value());
  EXPECT_TRUE(env.is_data_dependent((a + u).expr()));
  EXPECT_FALSE(env.is_data_dependent((a * 2).expr()));
}

TEST(ShapeEnvSymbols, DuckSizingSharesOneSymbolBetweenEqualHints) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0);
  SymInt b = env.create_symbol(5, kY0);
  SymInt c = env.create_symbol(6, kX1);
  EXPECT_EQ(a.str(), "s0");
  EXPECT_EQ(b.str(), "s0");
  EXPECT_EQ(c.str(), "s1");
  EXPECT_EQ(env.symbols().size(), 2u);
  // Sharing a symbol is not a guard: it is how the sizes were named.
  EXPECT_TRUE(env.statically_known_true(a == b));
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvSymbols, DuckSizingOffGivesEveryDimItsOwnSymbol) {
  ShapeEnv env(ShapeEnvOptions{.duck_shape = false});
  SymInt a = env.create_symbol(5, kX0);
  SymInt b = env.create_symbol(5, kY0);
  EXPECT_EQ(a.str(), "s0");
  EXPECT_EQ(b.str(), "s1");
  EXPECT_FALSE(env.statically_known_true(a == b));
  EXPECT_FALSE(env.statically_known_true(a != b));
}

TEST(ShapeEnvSymbols, DynamicPolicyNeverShares) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0, DimPolicy::Dynamic);
  SymInt b = env.create_symbol(5, kY0, DimPolicy::Dynamic);
  // A later duck dim does not join a dynamic one either.
  SymInt c = env.create_symbol(5, kX1, DimPolicy::Duck);
  SymInt d = env.create_symbol(5, "L['z'].size()[0]", DimPolicy::Duck);
  EXPECT_EQ(a.str(), "s0");
  EXPECT_EQ(b.str(), "s1");
  EXPECT_EQ(c.str(), "s2");
  EXPECT_EQ(d.str(), "s2");
}

TEST(ShapeEnvSymbols, StaticPolicyGivesTheHintAsAConstant) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, kX0, DimPolicy::Static);
  EXPECT_TRUE(a.is_constant());
  EXPECT_EQ(a.as_int64(), 5);
  EXPECT_TRUE(env.symbols().empty());
}

TEST(ShapeEnvSymbols, ZeroAndOneAreSpecializedByDefault) {
  ShapeEnv env;
  SymInt zero = env.create_symbol(0, kX0);
  SymInt one = env.create_symbol(1, kX1);
  SymInt dyn_one = env.create_symbol(1, kY0, DimPolicy::Dynamic);
  EXPECT_EQ(zero.as_int64(), 0);
  EXPECT_EQ(one.as_int64(), 1);
  EXPECT_EQ(dyn_one.as_int64(), 1);
  EXPECT_TRUE(env.symbols().empty());
  // The symbols that are created exclude 0 and 1.
  SymInt a = env.create_symbol(2, "L['z'].size()[0]");
  EXPECT_EQ(env.facts().range_of(a.str()).str(), "[2, inf]");
  EXPECT_TRUE(env.statically_known_true(a != 1));
  EXPECT_TRUE(env.statically_known_true(a > 1));
}

TEST(ShapeEnvSymbols, ZeroAndOneStaySymbolicWhenTheEnvSaysSo) {
  ShapeEnv env(ShapeEnvOptions{.specialize_zero_one = false});
  SymInt zero = env.create_symbol(0, kX0);
  SymInt one = env.create_symbol(1, kX1);
  SymInt big = env.create_symbol(8, kY0);
  EXPECT_EQ(zero.str(), "s0");
  EXPECT_EQ(one.str(), "s1");
  EXPECT_EQ(big.str(), "s2");
  EXPECT_EQ(env.facts().range_of("s0").str(), "[0, inf]");
  EXPECT_EQ(env.facts().range_of("s2").str(), "[0, inf]");
  EXPECT_FALSE(env.statically_known_true(big != 1));
  EXPECT_TRUE(env.statically_known_true(big >= 0));
  EXPECT_EQ(*env.size_hint(one.expr()), 1);
}

TEST(ShapeEnvSymbols, ZeroOneSpecializationCanBeTurnedOffPerSymbol) {
  ShapeEnv env;
  SymInt one =
      env.create_symbol(1, kX0, DimPolicy::Duck, SymbolOptions{.specialize_zero_one = false});
  SymInt also_one = env.create_symbol(1, kX1);
  EXPECT_EQ(one.str(), "s0");
  EXPECT_EQ(env.facts().range_of("s0").str(), "[0, inf]");
  EXPECT_EQ(also_one.as_int64(), 1);

  ShapeEnv keep(ShapeEnvOptions{.specialize_zero_one = false});
  SymInt k =
      keep.create_symbol(1, kX0, DimPolicy::Duck, SymbolOptions{.specialize_zero_one = true});
  EXPECT_EQ(k.as_int64(), 1);
}

TEST(ShapeEnvSymbols, UserNamesAreKeptAndDoNotUseUpAutomaticNames) {
  ShapeEnv env;
  SymInt batch = env.create_symbol(8, kX0, DimPolicy::Dynamic, SymbolOptions{.name = "batch"});
  SymInt other = env.create_symbol(3, kX1);
  EXPECT_EQ(batch.str(), "batch");
  EXPECT_EQ(other.str(), "s0");
  EXPECT_EQ(env.symbol("batch").source, kX0);
  // The same named dim seen again is the same symbol.
  SymInt again = env.create_symbol(8, kY0, DimPolicy::Dynamic, SymbolOptions{.name = "batch"});
  EXPECT_EQ(again.str(), "batch");
  EXPECT_EQ(env.symbols().size(), 2u);
}

TEST(ShapeEnvSymbols, NamedDimWithAnotherHintIsAnError) {
  ShapeEnv env;
  env.create_symbol(8, kX0, DimPolicy::Dynamic, SymbolOptions{.name = "batch"});
  try {
    env.create_symbol(4, kY0, DimPolicy::Dynamic, SymbolOptions{.name = "batch"});
    FAIL() << "expected ConstraintViolation";
  } catch (const ConstraintViolation& e) {
    EXPECT_EQ(std::string(e.what()),
              "dim 'batch' is 4 at L['y'].size()[0] but 8 at L['x'].size()[0]");
  }
}

TEST(ShapeEnvSymbols, UserConstraintNarrowsTheRange) {
  ShapeEnv env;
  SymInt b =
      env.create_symbol(8, kX0, DimPolicy::Dynamic,
                        SymbolOptions{.name = "batch", .constraint = ValueRange::closed(1, 64)});
  EXPECT_EQ(env.facts().range_of("batch").str(), "[2, 64]");
  EXPECT_EQ(env.symbol("batch").user_constraint->str(), "[1, 64]");
  EXPECT_TRUE(env.statically_known_true(b <= 64));
  EXPECT_FALSE(env.statically_known_true(b <= 63));
}

TEST(ShapeEnvSymbols, HintOutsideTheUserConstraintIsAClearError) {
  ShapeEnv env;
  try {
    env.create_symbol(100, kX0, DimPolicy::Dynamic,
                      SymbolOptions{.name = "batch", .constraint = ValueRange::closed(2, 64)});
    FAIL() << "expected ConstraintViolation";
  } catch (const ConstraintViolation& e) {
    EXPECT_EQ(std::string(e.what()),
              "size 100 of 'batch' (L['x'].size()[0]) is outside its declared range [2, 64]");
  }
  // A hint of 1 is checked before it is specialized.
  EXPECT_THROW(env.create_symbol(1, kX1, DimPolicy::Dynamic,
                                 SymbolOptions{.constraint = ValueRange::closed(2, 64)}),
               ConstraintViolation);
  EXPECT_TRUE(env.symbols().empty());
}

TEST(ShapeEnvSymbols, NegativeHintIsRejected) {
  ShapeEnv env;
  try {
    env.create_symbol(-3, kX0);
    FAIL() << "expected ConstraintViolation";
  } catch (const ConstraintViolation& e) {
    EXPECT_EQ(std::string(e.what()), "size -3 of L['x'].size()[0] is negative");
  }
}

TEST(ShapeEnvSymbols, SizeLikeUnbackedPolicyIgnoresTheHint) {
  ShapeEnv env;
  SymInt u = env.create_symbol(5, kX0, DimPolicy::SizeLikeUnbacked);
  EXPECT_EQ(u.str(), "u0");
  const SymbolInfo& info = env.symbol("u0");
  EXPECT_EQ(info.kind, SymbolKind::Unbacked);
  EXPECT_TRUE(info.size_like);
  EXPECT_EQ(env.facts().range_of("u0").str(), "[0, inf]");
  EXPECT_FALSE(env.size_hint(u.expr()).has_value());
}

TEST(ShapeEnvSymbols, SymLooksUpSymbolsByName) {
  ShapeEnv env;
  env.create_symbol(5, kX0);
  EXPECT_EQ(env.sym("s0").str(), "s0");
  EXPECT_TRUE(env.has_symbol("s0"));
  EXPECT_FALSE(env.has_symbol("s1"));
  EXPECT_THROW(env.sym("s1"), Error);
  EXPECT_THROW(env.symbol("nope"), Error);
}

TEST(ShapeEnvSymInt, ArithmeticBuildsExpressions) {
  ShapeEnv env;
  SymInt x = env.create_symbol(6, kX0);
  SymInt y = env.create_symbol(4, kX1);
  EXPECT_EQ((x + y * 2).str(), "s0 + 2*s1");
  EXPECT_EQ((x - 1).str(), "s0 - 1");
  EXPECT_EQ((-x).str(), "-s0");
  EXPECT_EQ(floordiv(x, y).str(), "s0//s1");
  EXPECT_EQ(mod(x, 2).str(), "s0 % 2");
  EXPECT_EQ(max(x, y).str(), "max(s0, s1)");
  EXPECT_EQ(min(x, 3).str(), "min(3, s0)");
  EXPECT_EQ((x * y).env(), &env);
  EXPECT_EQ((x + 1).env(), &env);
  EXPECT_EQ(*env.size_hint((x * y + ceildiv(x, y)).expr()), 26);
  SymInt three = 3;
  EXPECT_EQ(three.env(), nullptr);
  EXPECT_EQ((three * 2).as_int64(), 6);
}

TEST(ShapeEnvSymInt, ComparisonsAndConnectivesBuildSymBools) {
  ShapeEnv env;
  SymInt x = env.create_symbol(6, kX0);
  SymInt y = env.create_symbol(4, kX1);
  EXPECT_EQ((x < y).str(), "s0 < s1");
  EXPECT_EQ((x >= 2 * y).str(), "s0 >= 2*s1");
  EXPECT_EQ((!(x < y)).str(), "s0 >= s1");
  EXPECT_EQ(((x < y) || (x == 3)).str(), "s0 < s1 or s0 == 3");
  EXPECT_EQ(((x < y) && (x != 3)).env(), &env);
  EXPECT_TRUE(env.evaluate((x > y) && (x != 3)));
}

TEST(ShapeEnvSymInt, MixingTwoEnvsIsAnError) {
  ShapeEnv a, b;
  SymInt x = a.create_symbol(5, kX0);
  SymInt y = b.create_symbol(7, kX0);
  EXPECT_THROW(x + y, Error);
  EXPECT_THROW(x * y, Error);
  EXPECT_THROW((void)(x < y), Error);
  EXPECT_THROW((void)((x < 9) && (y < 9)), Error);
  // A value of one env is not decided by another.
  EXPECT_THROW(b.evaluate(x < 9), Error);
  EXPECT_THROW(b.statically_known_true(x > 1), Error);
  EXPECT_THROW(b.guard_int(x), Error);
  EXPECT_TRUE(a.guards().empty());
  EXPECT_TRUE(b.guards().empty());
}

}  // namespace
}  // namespace symshape

// A named dim whose hint is specialized stays known by its name: the graph may use the name
// again (another input's shape, a symbolic argument), and it must mean the constant there.
TEST(NamedSpecialization, NameResolvesToTheConstant) {
  symshape::ShapeEnv env;
  symshape::SymbolOptions opts;
  opts.name = "batch";
  symshape::SymInt b = env.create_symbol(1, "L['x'].size()[0]", symshape::DimPolicy::Dynamic, opts);
  EXPECT_EQ(b.str(), "1");
  ASSERT_TRUE(env.has_symbol("batch"));
  EXPECT_EQ(env.simplify(symshape::Expr::symbol("batch") * 4).str(), "4");
  EXPECT_TRUE(*env.size_hint(symshape::Expr::symbol("batch") + 2) == symshape::Int(3));
  // Seen again under the same name with the same hint, it is the same constant.
  EXPECT_EQ(env.create_symbol(1, "L['y'].size()[0]", symshape::DimPolicy::Dynamic, opts).str(),
            "1");
}
