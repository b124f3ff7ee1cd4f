// The event log: off by default, one stable line per event (golden).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

TEST(ShapeEnvLog, IsOffByDefault) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, "L['x'].size()[0]");
  env.evaluate(x > 3);
  EXPECT_TRUE(env.log().empty());
  EXPECT_FALSE(env.options().log);
}

TEST(ShapeEnvLog, GoldenLines) {
  ShapeEnv env(ShapeEnvOptions{.log = true});
  SymInt x = env.create_symbol(5, "L['x'].size()[0]");
  SymInt y = env.create_symbol(5, "L['y'].size()[0]", DimPolicy::Dynamic);
  SymInt one = env.create_symbol(1, "L['x'].size()[1]");
  SymInt b =
      env.create_symbol(8, "L['z'].size()[0]", DimPolicy::Dynamic,
                        SymbolOptions{.name = "batch", .constraint = ValueRange::closed(2, 64)});
  env.evaluate(x == y, {"add_1", "aten.add.Tensor", "broadcast"});
  env.evaluate(b > 4);
  env.guard_int(x, {"view_3", "reshape", ""});
  SymInt u = env.create_unbacked_symint();
  env.defer_runtime_assert(u >= 0);
  env.constrain_range(u, ValueRange::closed(0, 100));
  SymInt v = env.create_unbacked_symint();
  env.constrain_as_size(v);
  env.defer_runtime_assert(v < u, {"nonzero_1", "aten.nonzero.default", ""});
  (void)one;
  const std::vector<std::string> expected = {
      "create_symbol s0 = 5 for L['x'].size()[0] [2, inf]",
      "create_symbol s1 = 5 for L['y'].size()[0] [2, inf]",
      "specialize L['x'].size()[1] = 1",
      "create_symbol batch = 8 for L['z'].size()[0] [2, 64]",
      "guard s0 == s1 at node add_1 (aten.add.Tensor, broadcast)",
      "replace s1 := s0",
      "guard batch > 4",
      "guard s0 == 5 at node view_3 (reshape)",
      "specialize s0 := 5",
      "create_unbacked_symint u0 [-inf, inf]",
      "runtime_assert u0 >= 0",
      "constrain_range u0 [0, 100]",
      "create_unbacked_symint u1 [-inf, inf]",
      "constrain_range u1 [0, inf]",
      "runtime_assert u1 < u0 at node nonzero_1 (aten.nonzero.default)",
  };
  EXPECT_EQ(env.log(), expected);
}

TEST(ShapeEnvLog, CanBeTurnedOnLater) {
  ShapeEnv env;
  SymInt x = env.create_symbol(5, "L['x'].size()[0]");
  env.set_logging(true);
  SymInt y = env.create_symbol(7, "L['x'].size()[1]");
  env.evaluate(x + 2 == y);
  const std::vector<std::string> expected = {
      "create_symbol s1 = 7 for L['x'].size()[1] [2, inf]",
      "guard s0 + 2 == s1",
      "replace s1 := s0 + 2",
  };
  EXPECT_EQ(env.log(), expected);
}

TEST(ShapeEnvLog, SameProgramSameLog) {
  auto run = [] {
    ShapeEnv env(ShapeEnvOptions{.log = true});
    SymInt a = env.create_symbol(6, "L['a'].size()[0]");
    SymInt b = env.create_symbol(4, "L['a'].size()[1]");
    SymInt c = env.create_symbol(12, "L['b'].size()[0]");
    env.evaluate(a * b > c);
    env.evaluate(mod(c, b) == 0);
    env.guard_int(floordiv(c, b));
    return env.log();
  };
  std::vector<std::string> first = run();
  EXPECT_EQ(first, run());
  EXPECT_EQ(first.size(), 6u);
}

}  // namespace
}  // namespace symshape
