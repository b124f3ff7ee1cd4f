// Times the default lowering pipeline (issue 10) on GPT-like graphs of growing size, to show that
// it is linear in the number of nodes: the passes alone (invariants checked once, after the
// pipeline) and with the PassManager's checks after every pass (the default).
//
//   build/bench_passes --benchmark_counters_tabular=true
//
// Figures: docs/performance.md, "Lowering passes".
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "symshape/passes.h"

namespace symshape {
namespace {

// A GPT-like graph in training form: per layer a layer norm, q/k/v projections with views and a
// transpose pair, attention, an MLP, two dropouts, a detach, a clone and a view that changes
// nothing; batch and seq symbolic. About 40 nodes per layer.
Graph gpt_like(int layers) {
  constexpr int d = 32, heads = 4, head_dim = d / heads, ffn = 64;
  GraphBuilder b;
  const Expr batch = Expr::symbol("batch"), seq = Expr::symbol("seq");
  Arg x = b.input("x", DType::Float32, std::vector<Expr>{batch, seq, Expr(d)});
  Arg bs = b.call("aten.sym_size.int", {x, Arg::of_int(0)}, {}, "batch_size");
  Arg ss = b.call("aten.sym_size.int", {x, Arg::of_int(1)}, {}, "seq_size");
  Arg rows = b.call("operator.mul", {bs, ss}, {}, "rows");
  auto weight = [&](const std::string& name, std::vector<Expr> shape) {
    return b.input(name, DType::Float32, std::move(shape));
  };
  auto number = [](double v) {
    Arg a;
    a.kind = Arg::Kind::Float;
    a.real = v;
    return a;
  };
  auto flag = [](bool v) {
    Arg a;
    a.kind = Arg::Kind::Bool;
    a.boolean = v;
    return a;
  };
  auto linear = [&](const Arg& in2d, const Arg& w, const Arg& bias) {
    return b.call("aten.addmm.default", {bias, in2d, b.call("aten.t.default", {w})});
  };
  for (int i = 0; i < layers; ++i) {
    const std::string p = "l" + std::to_string(i) + "_";
    Arg ln_w = weight(p + "ln_w", {Expr(d)}), ln_b = weight(p + "ln_b", {Expr(d)});
    Arg qkv_w = weight(p + "qkv_w", {Expr(3 * d), Expr(d)}),
        qkv_b = weight(p + "qkv_b", {Expr(3 * d)});
    Arg fc_w = weight(p + "fc_w", {Expr(ffn), Expr(d)}), fc_b = weight(p + "fc_b", {Expr(ffn)});
    Arg pr_w = weight(p + "pr_w", {Expr(d), Expr(ffn)}), pr_b = weight(p + "pr_b", {Expr(d)});
    Arg ln = b.call("aten.layer_norm.default", {x, Arg::list({Arg::of_int(d)}), ln_w, ln_b});
    Arg ln_d = b.call("aten.detach.default", {ln});
    Arg flat = b.call("aten.view.default", {ln_d, Arg::list({rows, Arg::of_int(d)})});
    Arg qkv = linear(flat, qkv_w, qkv_b);
    Arg heads5 = b.call(
        "aten.view.default",
        {qkv, Arg::list({bs, ss, Arg::of_int(3), Arg::of_int(heads), Arg::of_int(head_dim)})});
    Arg perm = b.call("aten.permute.default",
                      {heads5, Arg::list({Arg::of_int(2), Arg::of_int(0), Arg::of_int(3),
                                          Arg::of_int(1), Arg::of_int(4)})});
    Arg q = b.call("aten.select.int", {perm, Arg::of_int(0), Arg::of_int(0)});
    Arg k = b.call("aten.select.int", {perm, Arg::of_int(0), Arg::of_int(1)});
    Arg v = b.call("aten.select.int", {perm, Arg::of_int(0), Arg::of_int(2)});
    Arg kt = b.call("aten.transpose.int", {k, Arg::of_int(2), Arg::of_int(3)});
    Arg ktt = b.call("aten.transpose.int", {kt, Arg::of_int(2), Arg::of_int(3)});
    Arg att = b.call("aten.scaled_dot_product_attention.default", {q, ktt, v});
    Arg att_t = b.call("aten.transpose.int", {att, Arg::of_int(1), Arg::of_int(2)});
    Arg att2d = b.call("aten.reshape.default", {att_t, Arg::list({rows, Arg::of_int(d)})});
    Arg att3d = b.call("aten.view.default", {att2d, Arg::list({bs, ss, Arg::of_int(d)})});
    Arg drop1 = b.call("aten.dropout.default", {att3d, number(0.1), flag(true)});
    x = b.call("aten.add.Tensor", {x, drop1});
    Arg flat2 = b.call("aten.view.default", {x, Arg::list({rows, Arg::of_int(d)})});
    Arg same = b.call("aten.view.default", {flat2, Arg::list({rows, Arg::of_int(d)})});
    Arg fc = linear(same, fc_w, fc_b);
    Arg act = b.call("aten.gelu.default", {fc});
    Arg act_c = b.call("aten.clone.default", {act});
    Arg proj = linear(act_c, pr_w, pr_b);
    Arg proj3 = b.call("aten.view.default", {proj, Arg::list({bs, ss, Arg::of_int(d)})});
    Arg drop2 = b.call("aten.dropout.default", {proj3, number(0.1), flag(true)});
    x = b.call("aten.add.Tensor", {x, drop2});
  }
  Graph g = b.build(Arg::list({x}));
  g.dims = {{"batch", DimDecl{1, 64, 4}}, {"seq", DimDecl{1, 2048, 16}}};
  return g;
}

void lower(benchmark::State& state, bool verify_each_pass) {
  const Graph g = gpt_like(static_cast<int>(state.range(0)));
  PassManagerOptions options;
  options.verify_each_pass = verify_each_pass;
  PassManager pm(PassRegistry::standard(), options);
  pm.add_pipeline("default");
  size_t after = 0;
  for (auto _ : state) {
    ShapeEnv env;
    LowerResult r = pm.run(g, env);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    after = r.graph.nodes.size();
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
  state.counters["nodes_after"] = static_cast<double>(after);
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.nodes.size()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DefaultPipeline_CheckedOnce(benchmark::State& state) { lower(state, false); }
void BM_DefaultPipeline_CheckedEachPass(benchmark::State& state) { lower(state, true); }

BENCHMARK(BM_DefaultPipeline_CheckedOnce)
    ->Arg(25)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(400)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DefaultPipeline_CheckedEachPass)
    ->Arg(25)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace symshape

BENCHMARK_MAIN();
