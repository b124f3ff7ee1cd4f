// The cost of a `symshape view` page: the layered layout alone, on transformer-like DAGs of
// 1,000 to 100,000 nodes (a chain with side inputs and residual skips), and the page data of a
// generated Llama graph (layout, dims, guards, symbols, groups). Both report nodes/s, which
// must not fall as the graph grows: the layout is linear in nodes and edges up to a sort per row.
//
//   build/bench_view --benchmark_min_time=0.5
//
// Figures: docs/performance.md, "symshape view".
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "symshape/gen.h"
#include "symshape/view.h"

namespace symshape::view {
namespace {

// A decoder-shaped DAG: each block reads the previous one, a weight, and (every 8 nodes) the
// residual from 8 nodes back; a size node early on feeds one node in 20 (long edges).
LayoutGraph decoder_like(size_t n) {
  LayoutGraph g;
  for (size_t v = 0; v < n; ++v) {
    g.widths.push_back(90 + static_cast<double>((v * 37) % 240));
    if (v == 0) continue;
    if (v % 3 == 1) continue;  // a weight: no inputs
    g.edges.emplace_back(static_cast<uint32_t>(v - 1), static_cast<uint32_t>(v));
    if (v >= 2 && v % 3 == 2) g.edges.emplace_back(static_cast<uint32_t>(v - 2), v);
    if (v >= 8 && v % 8 == 0) g.edges.emplace_back(static_cast<uint32_t>(v - 8), v);
    if (v > 1 && v % 20 == 0) g.edges.emplace_back(0u, static_cast<uint32_t>(v));
  }
  return g;
}

void BM_Layout(benchmark::State& state) {
  const LayoutGraph g = decoder_like(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    Layout l = layered_layout(g);
    benchmark::DoNotOptimize(l.x.data());
  }
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * g.widths.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Layout)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_PageData(benchmark::State& state) {
  gen::LlamaOptions o;
  o.layers = state.range(0);
  Expected<std::string> text = gen::llama_graph(o);
  Expected<Graph> graph = text ? read_graph(*text) : Expected<Graph>::failure(text.error());
  if (!graph) {
    std::fprintf(stderr, "bench_view: %s\n", graph.error().c_str());
    std::exit(1);
  }
  for (auto _ : state) {
    const std::string page = page_html(graph_page_data(*graph), "bench");
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * graph->nodes.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PageData)->Arg(1)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace symshape::view

BENCHMARK_MAIN();
