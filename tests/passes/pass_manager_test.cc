// The PassManager's checks, each shown catching a pass that breaks the invariant it guards: a
// node whose metadata the rules no longer derive, an undeclared guard, a lost or specialized
// symbol, changed numbers. Also the pass list parser, dumps, and a pass that changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "symshape/interp.h"
#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

// x -> h = relu(x) -> out = add(h, x): small, with dynamic batch and seq.
const char* kGraph = R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "h", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "out", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "h"}, {"node": "x"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}]]}]})";

// A pass for these tests: its body is a lambda.
class TestPass : public Pass {
 public:
  TestPass(std::string name, std::function<void(PassContext&)> body, bool may_guard = false,
           std::vector<PassOption> options = {})
      : name_(std::move(name)),
        body_(std::move(body)),
        may_guard_(may_guard),
        options_(std::move(options)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "a pass of the tests"; }
  std::vector<PassOption> options() const override { return options_; }
  bool may_add_guards() const override { return may_guard_; }
  void run(PassContext& ctx) const override { body_(ctx); }

 private:
  std::string name_;
  std::function<void(PassContext&)> body_;
  bool may_guard_;
  std::vector<PassOption> options_;
};

// The standard passes plus one test pass.
PassRegistry with(std::unique_ptr<Pass> pass) {
  PassRegistry r = PassRegistry::standard();
  r.add(std::move(pass));
  return r;
}

LowerResult run_one(const PassRegistry& registry, const std::string& pass, bool numerics = false,
                    ShapeEnv* env_out = nullptr) {
  PassManagerOptions options;
  options.verify_numerics = numerics;
  PassManager manager(registry, options);
  manager.add(pass);
  ShapeEnv env;
  LowerResult r = manager.run(parse_graph(kGraph), env_out ? *env_out : env);
  return r;
}

NodeId by_name(PassContext& ctx, const char* name) {
  NodeId id = ctx.graph().find(name);
  if (id == kNoNode) throw Error(std::string("no node ") + name);
  return id;
}

TEST(PassManagerChecks, CatchesAShapeChangeLeftUnderived) {
  // relu -> t turns h into [seq, batch], but the pass keeps the old metadata.
  PassRegistry r = with(std::make_unique<TestPass>("retarget", [](PassContext& ctx) {
    ctx.graph().set_target(by_name(ctx, "h"), "aten.t.default");
  }));
  PassManager manager(r);
  manager.add("retarget");
  ShapeEnv env;
  // x -> h = relu(x) -> neg(h): with h transposed the graph still type-checks.
  LowerResult res = manager.run(parse_graph(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}, "seq": {"min": 2, "max": 128, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "seq"]},
  {"name": "h", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}]},
  {"name": "out", "op": "call_function", "target": "aten.neg.default", "args": [{"node": "h"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}]]}]})"),
                                env);
  EXPECT_FALSE(res.ok);
  EXPECT_EQ(res.failed_pass, "retarget");
  EXPECT_NE(res.error.find("pass retarget: node h: "), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("float32[batch, seq]"), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("float32[seq, batch]"), std::string::npos) << res.error;
}

TEST(PassManagerChecks, AcceptsTheSameChangeWhenRederived) {
  // An edit through rewrite_call, which derives h's metadata again: relu -> neg.
  PassRegistry r = with(std::make_unique<TestPass>("retarget", [](PassContext& ctx) {
    NodeId h = by_name(ctx, "h");
    ctx.rewrite_call(h, ctx.graph().node(h).args, {}, "aten.neg.default");
  }));
  LowerResult res = run_one(r, "retarget");
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.graph.find("h")->target, "aten.neg.default");
  EXPECT_TRUE(res.reports[0].stats.changed());
}

// Known bug, left to the PassContext's owner: rewrite_call with a new target changes one node but
// MutableGraph counts set_args and set_target as two rewrites, so the report says
// "2 rewritten". Enable once a node rewritten once counts once.
TEST(PassManagerChecks, RewriteCallCountsOneNodeOnce) {
  PassRegistry r = with(std::make_unique<TestPass>("retarget", [](PassContext& ctx) {
    NodeId h = by_name(ctx, "h");
    ctx.rewrite_call(h, ctx.graph().node(h).args, {}, "aten.neg.default");
  }));
  LowerResult res = run_one(r, "retarget");
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.reports[0].stats.rewritten, 1u);
}

TEST(PassManagerChecks, CatchesAnUndeclaredGuard) {
  auto guarding = [](PassContext& ctx) {
    ctx.env().evaluate(ctx.env().wrap(Expr::symbol("batch") >= 4),
                       {"h", "aten.relu.default", "test"});
  };
  PassRegistry r = with(std::make_unique<TestPass>("guarding", guarding));
  ShapeEnv env;
  LowerResult res = run_one(r, "guarding", false, &env);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.error.find("pass guarding: node h: added a guard it did not declare: batch >= 4"),
            std::string::npos)
      << res.error;

  // Declared: the pass succeeds and its report lists the guard.
  PassRegistry declared = with(std::make_unique<TestPass>("guarding", guarding, true));
  ShapeEnv env2;
  LowerResult ok = run_one(declared, "guarding", false, &env2);
  ASSERT_TRUE(ok.ok) << ok.error;
  ASSERT_EQ(ok.reports[0].guards_added.size(), 1u);
  EXPECT_EQ(ok.reports[0].guards_added[0].cond.str(), "batch >= 4");
  EXPECT_EQ(ok.reports[0].guards_added[0].where.node, "h");
  // A declared guard stays: whoever uses the lowered graph must check it.
  EXPECT_EQ(env2.guards().size(), 1u);
}

TEST(PassManagerChecks, CatchesALostSymbol) {
  // x is swapped for an input of constant batch 4: nothing is sized by batch any more.
  PassRegistry r = with(std::make_unique<TestPass>("pin-batch", [](PassContext& ctx) {
    MutableGraph& g = ctx.graph();
    NodeId x = by_name(ctx, "x");
    Node fixed = g.node(x);
    fixed.name = "x_fixed";
    fixed.shape = std::vector<Expr>{Expr(4), Expr::symbol("seq")};
    TensorMeta meta{DType::Float32, {Expr(4), Expr::symbol("seq")}, {}};
    NodeId f = g.insert_before(x, fixed, Value::of(meta));
    g.replace_all_uses(x, f);
    g.erase(x);
    ctx.rederive_all();
  }));
  LowerResult res = run_one(r, "pin-batch");
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.error.find("pass pin-batch: lost the symbol batch"), std::string::npos)
      << res.error;
}

TEST(PassManagerChecks, CatchesASpecializedSymbol) {
  // Even a pass that may add guards must not pin a dim to its hint.
  PassRegistry r = with(std::make_unique<TestPass>(
      "specialize",
      [](PassContext& ctx) { ctx.env().evaluate(ctx.env().wrap(Expr::symbol("batch") == 4)); },
      true));
  LowerResult res = run_one(r, "specialize");
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.error.find("specialized the symbol batch to 4"), std::string::npos) << res.error;
}

TEST(PassManagerChecks, NumericsCatchAChangeOfNumbersOnly) {
  // add -> sub keeps every shape: only running the graph tells them apart.
  PassRegistry r = with(std::make_unique<TestPass>("add-to-sub", [](PassContext& ctx) {
    NodeId out = by_name(ctx, "out");
    ctx.rewrite_call(out, ctx.graph().node(out).args, {}, "aten.sub.Tensor");
  }));
  LowerResult unchecked = run_one(r, "add-to-sub", false);
  EXPECT_TRUE(unchecked.ok) << unchecked.error;
  LowerResult res = run_one(r, "add-to-sub", true);
  EXPECT_FALSE(res.ok);
  EXPECT_EQ(res.failed_pass, "add-to-sub");
  EXPECT_NE(res.error.find("changed the numbers at the hints: output[0], element"),
            std::string::npos)
      << res.error;
}

TEST(PassManagerChecks, NumericsRunOnTheGivenInputsOnlyAtTheSizesTheyBind) {
  // relu(x) + x and relu(x) - x agree where x is zero: a given x of zeros (as `lower --inputs`
  // gives a model's own input) is what the runs see, at the sizes it binds only: batch 2 and seq
  // 8, once (the run at batch 2, one of the two other sizes of batch, is the same run; the other
  // sizes do not fit x).
  PassRegistry r = with(std::make_unique<TestPass>("add-to-sub", [](PassContext& ctx) {
    NodeId out = by_name(ctx, "out");
    ctx.rewrite_call(out, ctx.graph().node(out).args, {}, "aten.sub.Tensor");
  }));
  PassManagerOptions options;
  options.verify_numerics = true;
  options.numeric_inputs = std::make_shared<const std::map<std::string, interp::Tensor>>(
      std::map<std::string, interp::Tensor>{{"x", interp::Tensor::zeros(DType::Float32, {2, 8})}});
  PassManager manager(r, options);
  manager.add("add-to-sub");
  ShapeEnv env;
  LowerResult res = manager.run(parse_graph(kGraph), env);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.reports[0].numeric_runs, 1u);
  // Generated, x is not zero: the same pass changes the numbers.
  EXPECT_FALSE(run_one(r, "add-to-sub", true).ok);
}

TEST(PassManagerChecks, NumericsGiveEveryRunTheGivenValuesOfAnInputTheGraphWrites) {
  // x.add_(1) writes the given x: the run after the pass starts from x's given zeros too, not
  // from the ones the run before left in it (which gave 4 after, 2 before).
  const char* graph = R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 2, "max": 64, "hint": 4}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 8]},
  {"name": "w", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "x"}, 1]},
  {"name": "h", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "w"}]},
  {"name": "out", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "h"}, {"node": "x"}]},
  {"name": "output", "op": "output", "args": [[{"node": "out"}]]}]})";
  PassRegistry r = with(std::make_unique<TestPass>("rename-op", [](PassContext& ctx) {
    NodeId h = by_name(ctx, "h");
    ctx.rewrite_call(h, ctx.graph().node(h).args, {}, "aten.relu.default");
  }));
  const interp::Tensor x = interp::Tensor::zeros(DType::Float32, {4, 8});
  PassManagerOptions options;
  options.verify_numerics = true;
  options.numeric_inputs = std::make_shared<const std::map<std::string, interp::Tensor>>(
      std::map<std::string, interp::Tensor>{{"x", x}});
  PassManager manager(r, options);
  manager.add("rename-op");
  ShapeEnv env;
  LowerResult res = manager.run(parse_graph(graph), env);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.reports[0].numeric_runs, 1u);
  EXPECT_EQ(x.flat(0).as_double(), 0.0);  // the given tensor is left as it was
}

TEST(PassManagerChecks, NumericsRunAtTheHintsAndTwoSizesPerDim) {
  PassRegistry r = with(std::make_unique<TestPass>("rename-op", [](PassContext& ctx) {
    NodeId h = by_name(ctx, "h");
    ctx.rewrite_call(h, ctx.graph().node(h).args, {}, "aten.relu.default");
  }));
  LowerResult res = run_one(r, "rename-op", true);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.reports[0].numeric_runs, 5u);  // the hints, then batch 2, 3 and seq 2, 3
}

TEST(PassManagerChecks, APassThatChangesNothingReportsSo) {
  PassRegistry r = with(std::make_unique<TestPass>(
      "look", [](PassContext& ctx) { ctx.count("nodes looked at", ctx.graph().size()); }));
  LowerResult res = run_one(r, "look", true);
  ASSERT_TRUE(res.ok) << res.error;
  const PassReport& rep = res.reports[0];
  EXPECT_FALSE(rep.stats.changed());
  EXPECT_EQ(rep.nodes_before, 4u);
  EXPECT_EQ(rep.nodes_after, 4u);
  EXPECT_EQ(rep.numeric_runs, 0u);
  EXPECT_EQ(rep.stats.counters.at("nodes looked at"), 4u);
  EXPECT_EQ(write_graph(res.graph), write_graph(parse_graph(kGraph)));
}

TEST(PassManagerChecks, AnExceptionInAPassNamesThePass) {
  PassRegistry r = with(std::make_unique<TestPass>("erase-used", [](PassContext& ctx) {
    ctx.graph().erase(by_name(ctx, "h"));  // h is used: refused
  }));
  LowerResult res = run_one(r, "erase-used");
  EXPECT_FALSE(res.ok);
  EXPECT_EQ(res.failed_pass, "erase-used");
  EXPECT_NE(res.error.find("pass erase-used: "), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("'h' still has 1 user(s)"), std::string::npos) << res.error;
  // The graph handed back is the one before the failing pass finished: it still verifies.
  EXPECT_FALSE(verify(res.graph).has_value());
}

TEST(PassManagerChecks, TheInputGraphsShapeErrorIsNoPassFailure) {
  Graph g = parse_graph(kGraph);
  g.nodes[2].target = "aten.mm.default";  // [batch, seq] @ [batch, seq]: needs seq == batch
  PassManager manager;
  manager.add("dce");
  ShapeEnv env;
  LowerResult res = manager.run(g, env);
  EXPECT_FALSE(res.ok);
  EXPECT_TRUE(res.failed_pass.empty());
  EXPECT_TRUE(res.reports.empty());
}

// ---- options, the pass list, pipelines ----

std::unique_ptr<Pass> optioned() {
  return std::make_unique<TestPass>(
      "opt",
      [](PassContext& ctx) {
        ctx.count("threshold " + ctx.option("threshold"));
        if (ctx.flag("strict")) ctx.count("strict");
      },
      false,
      std::vector<PassOption>{{"threshold", "3", "how many"}, {"strict", "false", "be strict"}});
}

TEST(ParsePassList, NamesAndOptions) {
  PassRegistry r = with(optioned());
  auto specs = parse_pass_list(" dce, opt{threshold=7; strict=true},cse", r);
  ASSERT_TRUE(specs.ok()) << specs.error();
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].name, "dce");
  EXPECT_EQ((*specs)[1].name, "opt");
  EXPECT_EQ((*specs)[1].options.at("threshold"), "7");
  EXPECT_EQ((*specs)[1].options.at("strict"), "true");
  EXPECT_EQ((*specs)[2].name, "cse");
  EXPECT_TRUE((*specs)[2].options.empty());
  // Spaces after the options are trimmed like those around names.
  auto spaced = parse_pass_list("opt{threshold=7} , dce", r);
  ASSERT_TRUE(spaced.ok()) << spaced.error();
  ASSERT_EQ(spaced->size(), 2u);
  EXPECT_EQ((*spaced)[1].name, "dce");
}

TEST(ParsePassList, OptionsReachThePassAndDefaultsFillTheRest) {
  PassRegistry r = with(optioned());
  for (auto [text, counter] : {std::pair<const char*, const char*>{"opt", "threshold 3"},
                               {"opt{threshold=9}", "threshold 9"}}) {
    auto specs = parse_pass_list(text, r);
    ASSERT_TRUE(specs.ok()) << specs.error();
    PassManager manager(r);
    for (const PassSpec& s : *specs) manager.add(s);
    ShapeEnv env;
    LowerResult res = manager.run(parse_graph(kGraph), env);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.reports[0].stats.counters.count(counter), 1u) << text;
    EXPECT_EQ(res.reports[0].stats.counters.count("strict"), 0u);
  }
  // A flag that is neither true nor false fails the pass, naming the option.
  auto specs = parse_pass_list("opt{strict=maybe}", r);
  ASSERT_TRUE(specs.ok());
  PassManager manager(r);
  manager.add((*specs)[0]);
  ShapeEnv env;
  LowerResult res = manager.run(parse_graph(kGraph), env);
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.error.find("option strict: takes true or false, got 'maybe'"), std::string::npos)
      << res.error;
  EXPECT_TRUE(res.bad_option);
}

TEST(ParsePassList, Errors) {
  PassRegistry r = with(optioned());
  auto unknown = parse_pass_list("dce,nope", r);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown pass 'nope' (known: "), std::string::npos);
  for (const Pass* p : r.passes()) {
    EXPECT_NE(unknown.error().find(std::string(p->name())), std::string::npos) << p->name();
  }
  auto bad_option = parse_pass_list("opt{bogus=1}", r);
  ASSERT_FALSE(bad_option.ok());
  EXPECT_EQ(bad_option.error(), "pass 'opt' has no option 'bogus' (options: threshold, strict)");
  auto none = parse_pass_list("dce{x=1}", r);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "pass 'dce' has no option 'x' (it takes none)");
  EXPECT_FALSE(parse_pass_list("dce,,cse", r).ok());
  EXPECT_FALSE(parse_pass_list("", r).ok());
  EXPECT_FALSE(parse_pass_list("opt{threshold=1", r).ok());
  EXPECT_FALSE(parse_pass_list("opt{threshold}", r).ok());
  EXPECT_FALSE(parse_pass_list("opt{threshold=1}dce", r).ok());
}

TEST(PassManagerAdd, UnknownPassesPipelinesAndOptionsThrowListingTheKnownOnes) {
  PassManager manager;
  try {
    manager.add("nope");
    FAIL();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown pass 'nope' (known: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("remove-dropout"), std::string::npos) << msg;
  }
  EXPECT_THROW(manager.add(PassSpec{"dce", {{"x", "1"}}}), Error);
  try {
    manager.add_pipeline("fastest");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(known: cleanup, complex, default)"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(manager.pipeline().empty());
  manager.add_pipeline("default");
  EXPECT_EQ(manager.pipeline().size(), PassRegistry::standard().pipeline("default")->passes.size());
}

TEST(PassRegistryTest, PipelinesNameOnlyKnownPasses) {
  PassRegistry r;
  r.add(optioned());
  EXPECT_THROW(r.add_pipeline("p", "", {"opt", "dce"}), Error);
  r.add_pipeline("p", "just opt", {"opt"});
  ASSERT_NE(r.pipeline("p"), nullptr);
  EXPECT_EQ(r.passes().size(), 1u);
  // The standard registry is untouched by the copies the tests make.
  EXPECT_EQ(PassRegistry::standard().find("opt"), nullptr);
}

TEST(PassRegistryTest, DefaultPipelineRunsEveryCleanupAndCleanupSkipsDropout) {
  const PassRegistry& r = PassRegistry::standard();
  const auto* def = r.pipeline("default");
  const auto* cleanup = r.pipeline("cleanup");
  ASSERT_NE(def, nullptr);
  ASSERT_NE(cleanup, nullptr);
  auto in = [](const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  for (const char* name :
       {"dce", "cse", "fold-shape-arith", "remove-assert", "remove-dropout", "remove-detach",
        "remove-alias", "remove-clone", "remove-contiguous", "remove-lift-fresh-copy",
        "remove-noop", "fold-transpose-pairs", "fold-view-chains", "lower-tuples",
        "repair-input-as-output", "normalize-negative-slice", "eliminate-sym-min-int64-max"}) {
    EXPECT_NE(r.find(name), nullptr) << name;
    EXPECT_TRUE(in(def->passes, name)) << name;
    EXPECT_EQ(in(cleanup->passes, name), std::string(name) != "remove-dropout") << name;
  }
  // functionalize goes first (the clean-ups then see a functional graph, and what it leaves dce
  // removes), then dropout; the input copies come last (no later pass may remove them).
  EXPECT_EQ(def->passes.at(0), "functionalize");
  EXPECT_EQ(def->passes.at(1), "remove-dropout");
  EXPECT_EQ(cleanup->passes.at(0), "functionalize");
  EXPECT_EQ(def->passes.back(), "repair-input-as-output");
}

// ---- dumps ----

TEST(PassManagerDump, BeforeAndAfterANamedPass) {
  const Graph input = load_graph("dce");
  PassManagerOptions options;
  options.dump_before = {"dce"};
  options.dump_after = {"dce"};
  Lowered l = lower(input, {"remove-noop", "dce"}, false, options);
  ASSERT_TRUE(l.result.ok) << l.result.error;
  const std::string expected =
      "// before dce\n" + write_graph(input) + "// after dce\n" + write_graph(l.result.graph);
  EXPECT_EQ(l.dump, expected);
}

TEST(PassManagerDump, NothingForOtherPasses) {
  PassManagerOptions options;
  options.dump_after = {"cse"};
  Lowered l = lower(parse_graph(kGraph), {"dce"}, false, options);
  ASSERT_TRUE(l.result.ok);
  EXPECT_EQ(l.dump, "");
}

}  // namespace
}  // namespace symshape::pass_test
