// Scaling with model size (issue 15): a generated Llama-style decoder (include/symshape/gen.h)
// with L = 1, 8, 32, 128, 512 layers, symbolic batch and seq, through each stage a compiler
// runs: JSON read, propagation, guard production, the default lowering pipeline and the compiled
// guard check. Every benchmark reports nodes/s; time per node must not grow with L.
//
//   build/bench_scale --benchmark_min_time=0.5
//   build/bench_scale --rss L     # one pipeline run at L layers; prints the peak RSS
//
// Figures: docs/performance.md, "Scaling with model size".
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "symshape/gen.h"
#include "symshape/guards.h"
#include "symshape/ir.h"
#include "symshape/passes.h"
#include "symshape/propagate.h"

namespace symshape {
namespace {

const std::string& llama_text(int64_t layers, int64_t tp = 1) {
  static std::map<std::pair<int64_t, int64_t>, std::string> cache;
  std::string& text = cache[{layers, tp}];
  if (text.empty()) {
    gen::LlamaOptions o;
    o.layers = layers;
    o.tp = tp;
    Expected<std::string> t = gen::llama_graph(o);
    if (!t) {
      std::fprintf(stderr, "bench_scale: %s\n", t.error().c_str());
      std::exit(1);
    }
    text = *t;
  }
  return text;
}

const Graph& llama(int64_t layers, int64_t tp = 1) {
  static std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Graph>> cache;
  std::unique_ptr<Graph>& g = cache[{layers, tp}];
  if (!g) g = std::make_unique<Graph>(read_graph(llama_text(layers, tp)).value());
  return *g;
}

void report_nodes(benchmark::State& state, size_t nodes) {
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ns/node"] = benchmark::Counter(
      static_cast<double>(nodes) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ReadJson(benchmark::State& state) {
  const std::string& text = llama_text(state.range(0));
  size_t nodes = 0;
  for (auto _ : state) {
    Expected<Graph> g = read_graph(text);
    if (!g) {
      state.SkipWithError(g.error().c_str());
      return;
    }
    nodes = g->nodes.size();
  }
  report_nodes(state, nodes);
  state.counters["bytes"] = static_cast<double>(text.size());
}

// A fresh ShapeEnv per iteration: propagation creates the symbols and records the guards.
void BM_Propagate(benchmark::State& state) {
  const Graph& g = llama(state.range(0), state.range(1));
  size_t guards = 0;
  for (auto _ : state) {
    ShapeEnv env;
    Propagation p = propagate(g, env);
    if (!p.ok()) {
      state.SkipWithError(p.error.c_str());
      return;
    }
    guards = env.guards().size();
  }
  report_nodes(state, g.nodes.size());
  state.counters["guards"] = static_cast<double>(guards);
}

// produce_guards on an env that propagation filled (propagation untimed).
void BM_ProduceGuards(benchmark::State& state) {
  const Graph& g = llama(state.range(0));
  ShapeEnv env;
  if (!propagate(g, env).ok()) {
    state.SkipWithError("propagation failed");
    return;
  }
  const std::vector<GuardInput> inputs = graph_inputs(g);
  size_t produced = 0;
  for (auto _ : state) produced = produce_guards(env, inputs).guards.size();
  report_nodes(state, g.nodes.size());
  state.counters["guards"] = static_cast<double>(produced);
}

// The default pipeline, checked once at the end (propagation included, as `symshape lower`).
void BM_DefaultPipeline(benchmark::State& state) {
  const Graph& g = llama(state.range(0));
  PassManagerOptions options;
  options.verify_each_pass = false;
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
  report_nodes(state, g.nodes.size());
  state.counters["nodes_after"] = static_cast<double>(after);
}

// The compiled checker on the graph's guards at its hints (all hold).
void BM_GuardCheck(benchmark::State& state) {
  const Graph& g = llama(state.range(0));
  ShapeEnv env;
  if (!propagate(g, env).ok()) {
    state.SkipWithError("propagation failed");
    return;
  }
  const std::vector<GuardInput> inputs = graph_inputs(g);
  const GuardSet set = produce_guards(env, inputs);
  Bindings dims;
  for (const auto& [name, decl] : g.dims) dims[name] = decl.hint ? *decl.hint : default_hint(decl);
  std::vector<int64_t> values;
  for (const Source& s : set.sources) {
    Int v = 0;
    if (s.kind == Source::Kind::Dim) {
      v = dims.at(s.input);
    } else if (s.kind != Source::Kind::StorageOffset) {
      const GuardInput* in = nullptr;
      for (const GuardInput& i : inputs) in = i.name == s.input ? &i : in;
      std::vector<Expr> sizes = in->sizes;
      const std::vector<Expr> strides =
          in->strides.empty() ? TensorMeta::contiguous_strides(sizes) : in->strides;
      v = evaluate(s.kind == Source::Kind::Size ? sizes[s.dim] : strides[s.dim], dims);
    }
    values.push_back(*to_int64(v));
  }
  GuardChecker checker(set);
  size_t failed = 0;
  for (auto _ : state) failed = checker.first_failure(values);
  if (failed != GuardChecker::npos) state.SkipWithError("a guard failed at the hints");
  state.counters["guards"] = static_cast<double>(set.guards.size());
  state.counters["guards/s"] = benchmark::Counter(static_cast<double>(set.guards.size()),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void layers(benchmark::internal::Benchmark* b) {
  for (int64_t l : {1, 8, 32, 128, 512}) b->Arg(l);
  b->ArgName("L")->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ReadJson)->Apply(layers);
BENCHMARK(BM_Propagate)
    ->ArgsProduct({{1, 8, 32, 128, 512}, {1}})
    ->Args({32, 4})
    ->ArgNames({"L", "tp"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProduceGuards)->Apply(layers);
BENCHMARK(BM_DefaultPipeline)->Apply(layers);
BENCHMARK(BM_GuardCheck)->Apply(layers)->Unit(benchmark::kMicrosecond);

// `--rss L`: generate, read, propagate and produce guards once, then print the peak RSS.
int rss_main(const char* arg) {
  char* end = nullptr;
  const long l = std::strtol(arg, &end, 10);
  if (end == arg || *end != '\0' || l < 1 || l > 100000) {
    std::fprintf(stderr, "bench_scale: --rss needs a layer count in [1, 100000], got '%s'\n", arg);
    return 2;
  }
  // Not the benchmarks' cache: the text is freed once read, as `symshape check` frees it.
  Graph g;
  {
    gen::LlamaOptions o;
    o.layers = l;
    Expected<std::string> text = gen::llama_graph(o);
    if (!text) {
      std::fprintf(stderr, "bench_scale: %s\n", text.error().c_str());
      return 1;
    }
    g = read_graph(*text).value();
  }
  ShapeEnv env;
  Propagation p = propagate(g, env);
  if (!p.ok()) {
    std::fprintf(stderr, "bench_scale: %s\n", p.error.c_str());
    return 1;
  }
  const GuardSet set = produce_guards(env, graph_inputs(g));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("{\"layers\": %ld, \"nodes\": %zu, \"guards\": %zu, \"max_rss_kb\": %ld}\n", l,
              g.nodes.size(), set.guards.size(), usage.ru_maxrss);
  return 0;
}

}  // namespace
}  // namespace symshape

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--rss") == 0) return symshape::rss_main(argv[2]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
