// Times the alias analysis and the functionalize pass on graphs of growing size, to show that
// both are linear in the number of nodes: the generated Llama (views, no writes) and a generated
// graph where every block writes in place, through views of views too.
//
//   build/bench_alias --benchmark_counters_tabular=true
//
// Figures: docs/performance.md, "Alias analysis and functionalize".
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "passes/alias.h"
#include "symshape/gen.h"
#include "symshape/passes.h"
#include "symshape/propagate.h"

namespace symshape {
namespace {

Arg real(double v) {
  Arg a;
  a.kind = Arg::Kind::Float;
  a.real = v;
  return a;
}

// Per block (13 nodes): a fresh tensor written by relu_, a slice of it scaled in place, a row of
// its transpose filled, a view of it incremented, then read by the next block.
Graph writes_graph(int blocks) {
  GraphBuilder b;
  const Expr batch = Expr::symbol("batch");
  Arg x = b.input("x", DType::Float32, std::vector<Expr>{batch, Expr(16)});
  Arg w = b.input("w", DType::Float32, std::vector<Expr>{batch, Expr(16)});
  auto i = [](int64_t v) { return Arg::of_int(Expr(v)); };
  for (int k = 0; k < blocks; ++k) {
    Arg a = b.call("aten.add.Tensor", {x, w});
    b.call("aten.relu_.default", {a});
    Arg s = b.call("aten.slice.Tensor", {a, i(1), i(2), i(10)});
    b.call("aten.mul_.Tensor", {s, real(0.5)});
    Arg t = b.call("aten.t.default", {a});
    Arg row = b.call("aten.select.int", {t, i(0), i(3)});
    b.call("aten.fill_.Scalar", {row, real(1.0)});
    Arg v = b.call("aten.view.default", {a, Arg::list({i(-1)})});
    b.call("aten.add_.Tensor", {v, real(2.0)});
    Arg read = b.call("aten.mul.Tensor", {s, real(3.0)});
    Arg sum = b.call("aten.sum.dim_IntList", {read, Arg::list({i(1)}), Arg()});
    Arg u = b.call("aten.unsqueeze.default", {sum, i(1)});
    x = b.call("aten.add.Tensor", {a, u});
  }
  Graph g = b.build(Arg::list({x}));
  g.dims = {{"batch", DimDecl{1, 64, 4}}};
  return g;
}

Graph llama(int layers) {
  gen::LlamaOptions o;
  o.layers = layers;
  Expected<std::string> text = gen::llama_graph(o);
  Expected<Graph> g = read_graph(*text);
  return *g;
}

void analyse(benchmark::State& state, const Graph& g) {
  ShapeEnv env;
  Propagation p = propagate(g, env);
  if (!p.ok()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  MutableGraph mg(g, std::move(p.values));
  size_t written = 0;
  for (auto _ : state) {
    passes::AliasAnalysis a(mg);
    written = 0;
    for (NodeId id : mg.order()) written += a.written(id);
    benchmark::DoNotOptimize(written);
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
  state.counters["written"] = static_cast<double>(written);
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(g.nodes.size()),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// functionalize alone: the pass's own time, without the PassManager's checks.
void functionalize(benchmark::State& state, const Graph& g) {
  PassManagerOptions options;
  options.verify_each_pass = false;
  PassManager pm(PassRegistry::standard(), options);
  pm.add("functionalize");
  size_t after = 0;
  for (auto _ : state) {
    ShapeEnv env;
    LowerResult r = pm.run(g, env);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    state.SetIterationTime(r.reports.front().seconds);
    after = r.graph.nodes.size();
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
  state.counters["nodes_after"] = static_cast<double>(after);
}

void BM_AliasAnalysis_Llama(benchmark::State& s) {
  analyse(s, llama(static_cast<int>(s.range(0))));
}
void BM_AliasAnalysis_Writes(benchmark::State& s) {
  analyse(s, writes_graph(static_cast<int>(s.range(0))));
}
void BM_Functionalize_Llama(benchmark::State& s) {
  functionalize(s, llama(static_cast<int>(s.range(0))));
}
void BM_Functionalize_Writes(benchmark::State& s) {
  functionalize(s, writes_graph(static_cast<int>(s.range(0))));
}

BENCHMARK(BM_AliasAnalysis_Llama)->Arg(30)->Arg(300)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AliasAnalysis_Writes)->Arg(80)->Arg(800)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Functionalize_Llama)
    ->Arg(30)
    ->Arg(300)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Functionalize_Writes)
    ->Arg(80)
    ->Arg(800)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace symshape

BENCHMARK_MAIN();
