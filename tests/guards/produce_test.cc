// produce_guards: which guards come out, in which form and order, and what is left out.
#include <gtest/gtest.h>

#include "tests/guards/guard_test_util.h"

namespace symshape::testing {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

TEST(ProduceGuards, SameDimInTwoInputsIsAnEqualityBetweenSources) {
  Produced p =
      produce(R"({"batch": {"hint": 4}})",
              nodes({input("x", R"(["batch", 8])"), input("y", R"(["batch"])"), output("x")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_EQ(joined(p.python_lines()),
            "L['x'].size()[1] == 8\n"
            "L['y'].size()[0] == L['x'].size()[0]\n"
            "L['x'].stride()[0] == 8\n"
            "L['x'].stride()[1] == 1\n"
            "L['y'].stride()[0] == 1\n"
            "2 <= L['x'].size()[0]\n");
}

TEST(ProduceGuards, ReplacementFromAGuardCitesTheNodeThatMadeIt) {
  Produced p = produce(
      R"({"n": {"hint": 4}, "k1": {"hint": 8}, "k2": {"hint": 8}})",
      nodes({input("x", R"(["n", "k1"])"), input("w", R"(["k2", 3])"),
             call("mm", "aten.mm.default", R"([{"node": "x"}, {"node": "w"}])"), output("mm")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_TRUE(p.has_line("L['w'].size()[0] == L['x'].size()[1]")) << print_python(p.set);
  const ProducedGuard& eq = p.set.guards[0];
  EXPECT_EQ(eq.kind, ProducedGuard::Kind::Equality);
  EXPECT_EQ(eq.where.str(), "node mm (aten.mm.default, mm)");
  // k2 is gone: only n and k1 have ranges.
  EXPECT_TRUE(p.has_line("2 <= L['x'].size()[0]"));
  EXPECT_TRUE(p.has_line("2 <= L['x'].size()[1]"));
  EXPECT_FALSE(p.has_line("2 <= L['w'].size()[0]"));
}

TEST(ProduceGuards, DivisibilityGuardIsNormalized) {
  Produced p = produce(
      R"({"n": {"hint": 8}})",
      nodes({input("x", R"(["n", 6])"),
             call("view", "aten.view.default", R"([{"node": "x"}, [-1, 4]])"), output("view")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  // The env records 3*n divisible by 2; the guard is printed on n itself.
  EXPECT_TRUE(p.has_line("L['x'].size()[0] % 2 == 0")) << print_python(p.set);
  EXPECT_EQ(p.set.guards.size(), 5u) << print_python(p.set);
}

TEST(ProduceGuards, GuardThatNarrowsARangeMovesIntoTheRange) {
  Produced p = produce(
      R"({"n": {"hint": 16}, "k": {"hint": 4}})",
      nodes({input("x", R"(["n", 8])"), input("idx", R"(["k"])", "int64"),
             call("slice", "aten.slice.Tensor", R"([{"node": "x"}, 0, 0, {"expr": "k - 6"}])"),
             output("slice")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  ASSERT_EQ(p.env->guards().size(), 1u);
  EXPECT_EQ(p.env->guards()[0].cond.str(), "k - 6 < 0");
  // No Guard-kind entry: `k < 6` is the range's upper end.
  for (const ProducedGuard& g : p.set.guards) EXPECT_NE(g.kind, ProducedGuard::Kind::Guard);
  EXPECT_TRUE(p.has_line("2 <= L['idx'].size()[0] <= 5")) << print_python(p.set);
  EXPECT_EQ(p.set.guards.back().where.str(), "node slice (aten.slice.Tensor, slice_end)");
}

// A ShapeEnv driven directly, with inputs x: [a], y: [b], z: [c] (separate symbols).
struct DirectEnv {
  ShapeEnv env;
  SymInt a, b, c;
  DirectEnv(long ha, long hb, long hc)
      : a(env.create_symbol(Int(ha), "L['x'].size()[0]", DimPolicy::Dynamic)),
        b(env.create_symbol(Int(hb), "L['y'].size()[0]", DimPolicy::Dynamic)),
        c(env.create_symbol(Int(hc), "L['z'].size()[0]", DimPolicy::Dynamic)) {}
  GuardSet produce() {
    return produce_guards(env,
                          {{"x", {a.expr()}, {}}, {"y", {b.expr()}, {}}, {"z", {c.expr()}, {}}});
  }
};

std::vector<std::string> guard_lines(const GuardSet& set) {
  std::vector<std::string> out;
  for (const ProducedGuard& g : set.guards) {
    if (g.kind == ProducedGuard::Kind::Guard) out.push_back(python_text(set, g.cond));
  }
  return out;
}

TEST(ProduceGuards, AGuardImpliedByALaterOneIsDropped) {
  DirectEnv d(8, 8, 8);
  EXPECT_TRUE(d.env.evaluate(d.a + d.b > 10));
  EXPECT_TRUE(d.env.evaluate(d.a + d.b > 12));
  EXPECT_EQ(d.env.guards().size(), 2u);
  std::vector<std::string> lines = guard_lines(d.produce());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "L['x'].size()[0] + L['y'].size()[0] > 12");
}

TEST(ProduceGuards, GuardsThatBecomeTheSameUnderAReplacementAreMerged) {
  DirectEnv d(4, 4, 8);
  EXPECT_TRUE(d.env.evaluate(d.a * d.c > 20));
  EXPECT_TRUE(d.env.evaluate(d.b * d.c > 20));
  EXPECT_TRUE(d.env.evaluate(d.a == d.b));  // b := a
  GuardSet set = d.produce();
  std::vector<std::string> lines = guard_lines(set);
  ASSERT_EQ(lines.size(), 1u) << print_python(set);
  EXPECT_EQ(lines[0], "L['x'].size()[0]*L['z'].size()[0] > 20");
  EXPECT_EQ(python_text(set, set.guards[0].cond), "L['y'].size()[0] == L['x'].size()[0]");
}

TEST(ProduceGuards, ConstantFactorOfAMultipleTestIsDroppedFromTheGuard) {
  DirectEnv d(8, 3, 3);
  EXPECT_TRUE(d.env.evaluate(mod(4 * d.a, SymInt(16)) == 0));
  std::vector<std::string> lines = guard_lines(d.produce());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "L['x'].size()[0] % 4 == 0");
}

TEST(ProduceGuards, AClampThatMustNotClampIsABoundInTheRange) {
  // Slicing a [512, 4] table to the sequence length and adding it to a [2, seq, 4] tensor
  // guards seq == min(512, seq), which simplify() writes as the bound it means, seq <= 512, and
  // which joins seq's range.
  Produced p = produce(
      R"({"seq": {"hint": 16}})",
      nodes({input("tokens", R"([2, "seq"])", "int64"), input("wpe", "[512, 4]"),
             call("s", "aten.sym_size.int", R"([{"node": "tokens"}, 1])"),
             call("pos", "aten.slice.Tensor", R"([{"node": "wpe"}, 0, 0, {"node": "s"}])"),
             call("e", "aten.embedding.default", R"([{"node": "wpe"}, {"node": "tokens"}])"),
             call("add", "aten.add.Tensor", R"([{"node": "e"}, {"node": "pos"}])"),
             output("add")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  ASSERT_EQ(p.env->guards().size(), 1u);
  EXPECT_EQ(p.env->guards()[0].cond.str(), "seq <= 512");
  EXPECT_TRUE(p.has_line("2 <= L['tokens'].size()[1] <= 512")) << print_python(p.set);
  EXPECT_EQ(p.set.guards.back().where.str(), "node add (aten.add.Tensor, broadcast)");
  for (const ProducedGuard& g : p.set.guards) EXPECT_NE(g.kind, ProducedGuard::Kind::Guard);
}

TEST(ProduceGuards, DerivedDimIsDefinedByItsInputWithADivisibilityGuard) {
  Produced p =
      produce(R"({"seq": {"min": 2, "max": 512, "hint": 8}})",
              nodes({input("x", R"(["2*seq"])"), input("y", R"(["seq + 1"])"), output("x")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_EQ(joined(p.python_lines()),
            "L['x'].size()[0] % 2 == 0\n"
            "L['y'].size()[0] == (L['x'].size()[0] + 2)//2\n"
            "L['x'].stride()[0] == 1\n"
            "L['y'].stride()[0] == 1\n"
            "4 <= L['x'].size()[0] <= 1024\n");
  ASSERT_EQ(p.set.symbols.size(), 1u);
  EXPECT_EQ(p.set.symbols[0].symbol, "seq");
}

TEST(ProduceGuards, DimThatNoInputSizeGivesIsADimsSource) {
  Produced p = produce(R"({"tokens": {"hint": 64}, "W": {"hint": 4}})",
                       nodes({input("x", R"(["tokens", 16])"),
                              call("rs", "_c10d_functional.reduce_scatter_tensor.default",
                                   R"([{"node": "x"}, "sum", {"expr": "W"}, "tp"])"),
                              output("rs")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_TRUE(p.has_line("L['x'].size()[0] % dims['W'] == 0")) << print_python(p.set);
  EXPECT_TRUE(p.has_line("2 <= dims['W']"));
  size_t w = p.set.find_source("dims['W']");
  ASSERT_LT(w, p.set.sources.size());
  EXPECT_EQ(p.set.sources[w].identifier, "dims_W_");
  EXPECT_EQ(p.set.sources[w].kind, Source::Kind::Dim);
}

TEST(ProduceGuards, RuntimeAssertsAreListedApartFromTheGuards) {
  Produced p = produce(
      R"({"n": {"min": 2, "max": 1024, "hint": 8}})",
      nodes({input("x", R"(["n"])"), call("nz", "aten.nonzero.default", R"([{"node": "x"}])"),
             call("view", "aten.view.default", R"([{"node": "nz"}, [-1, 2]])"), output("view")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  ASSERT_EQ(p.set.runtime_asserts.size(), 2u);
  EXPECT_EQ(python_text(p.set, p.set.runtime_asserts[0].cond), "u0 <= L['x'].size()[0]");
  EXPECT_EQ(python_text(p.set, p.set.runtime_asserts[1].cond), "u0 % 2 == 0");
  for (const ProducedGuard& g : p.set.guards) {
    for (const std::string& s : g.cond.free_symbols()) EXPECT_NE(s, "u0");
  }
  EXPECT_NE(print_python(p.set).find("# u0 % 2 == 0\n"), std::string::npos);
}

TEST(ProduceGuards, DeclaredStridesAreGuarded) {
  std::string x = R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["m", "n"],
                      "stride": [1, "m"]})";
  Produced p = produce(R"({"m": {"hint": 4}, "n": {"hint": 6}})", nodes({x, output("x")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_TRUE(p.has_line("L['x'].stride()[0] == 1")) << print_python(p.set);
  EXPECT_TRUE(p.has_line("L['x'].stride()[1] == L['x'].size()[0]"));
}

TEST(ProduceGuards, SpecializedSizeIsAnEqualityWithAConstant) {
  Produced p = produce(
      R"({"s": {"hint": 8}, "t": {"hint": 1}})",
      nodes({input("x", R"(["s", 4])"), input("y", R"([8, 4])"), input("z", R"(["t"])"),
             call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "y"}])"), output("add")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  EXPECT_TRUE(p.has_line("L['x'].size()[0] == 8"));
  EXPECT_TRUE(p.has_line("L['z'].size()[0] == 1"));
  EXPECT_EQ(p.set.guards[0].where.str(), "node add (aten.add.Tensor, broadcast)");
  EXPECT_TRUE(p.set.symbols.empty());  // nothing is left dynamic
}

TEST(ProduceGuards, OutputIsDeterministic) {
  auto once = [] {
    Produced p = produce(R"({"a": {"hint": 8}, "b": {"hint": 8}, "c": {"hint": 3}})",
                         nodes({input("x", R"(["a", "c"])"), input("y", R"(["b", "c"])"),
                                call("add", "aten.add.Tensor", R"([{"node": "x"}, {"node": "y"}])"),
                                output("add")}));
    return print_verbose(p.set) + to_json(p.set).dump() + print_cpp(p.set);
  };
  EXPECT_EQ(once(), once());
}

TEST(ProduceGuards, PrintersAgreeOnTheGuards) {
  Produced p = produce(
      R"({"n": {"hint": 8}})",
      nodes({input("x", R"(["n", 6])"),
             call("view", "aten.view.default", R"([{"node": "x"}, [-1, 4]])"), output("view")}));
  ASSERT_TRUE(p.result.ok());
  EXPECT_EQ(print_cpp(p.set),
            "(L_x_size_1_ == 6) &&\n"
            "(L_x_stride_0_ == 6) &&\n"
            "(L_x_stride_1_ == 1) &&\n"
            "(mod(L_x_size_0_, 2) == 0) &&\n"
            "(2 <= L_x_size_0_)\n");
  EXPECT_EQ(print_verbose(p.set),
            "L['x'].size()[1] == 6  # node x (placeholder, static size)\n"
            "L['x'].stride()[0] == 6  # node x (placeholder, stride)\n"
            "L['x'].stride()[1] == 1  # node x (placeholder, stride)\n"
            "L['x'].size()[0] % 2 == 0  # node view (aten.view.default, reshape_divisible)\n"
            "2 <= L['x'].size()[0]  # (range of dynamic dim n)\n");
  nlohmann::ordered_json j = to_json(p.set);
  ASSERT_EQ(j["guards"].size(), 5u);
  EXPECT_EQ(j["guards"][3]["kind"], "guard");
  EXPECT_EQ(j["guards"][3]["python"], "L['x'].size()[0] % 2 == 0");
  EXPECT_EQ(j["guards"][3]["expr"], "L_x_size_0_ % 2 == 0");
  EXPECT_EQ(j["guards"][3]["provenance"]["node"], "view");
  EXPECT_EQ(j["symbols"][0]["symbol"], "n");
  EXPECT_EQ(j["symbols"][0]["range"][0], 2);
  EXPECT_TRUE(j["symbols"][0]["range"][1].is_null());
}

TEST(ProduceGuards, CeilDivPrintsAsPythonFloorDivision) {
  DirectEnv d(9, 3, 3);
  EXPECT_TRUE(d.env.evaluate(ceildiv(d.a, d.b) > 2));
  GuardSet set = d.produce();
  std::vector<std::string> lines = guard_lines(set);
  ASSERT_EQ(lines.size(), 1u) << print_python(set);
  EXPECT_EQ(lines[0].find("ceildiv"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace symshape::testing
