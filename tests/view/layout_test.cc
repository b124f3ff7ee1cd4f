// The layered layout's invariants on every example graph, on generated models and on random
// DAGs: no two nodes overlap, every edge goes down the page, the nodes of a rank share a row.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "symshape/gen.h"
#include "symshape/ir.h"
#include "symshape/view.h"

namespace symshape::view {
namespace {

// The layout graph of a symshape graph: one node per graph node, an edge per reference.
LayoutGraph layout_graph(const Graph& g) {
  LayoutGraph lg;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    lg.widths.push_back(90 + static_cast<double>(g.nodes[i].name.size() % 7) * 30);
    std::vector<std::string> refs;
    std::function<void(const Arg&)> walk = [&](const Arg& a) {
      if (a.kind == Arg::Kind::Node) refs.push_back(a.text);
      for (const Arg& item : a.items) walk(item);
    };
    for (const Arg& a : g.nodes[i].args) walk(a);
    for (const auto& kv : g.nodes[i].kwargs) walk(kv.second);
    std::sort(refs.begin(), refs.end());
    refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
    for (const std::string& r : refs) {
      lg.edges.emplace_back(static_cast<uint32_t>(g.index_of(r)), static_cast<uint32_t>(i));
    }
  }
  return lg;
}

void expect_invariants(const LayoutGraph& g, const Layout& l, const LayoutOptions& o,
                       const std::string& what) {
  const size_t n = g.widths.size();
  ASSERT_EQ(l.x.size(), n) << what;
  ASSERT_EQ(l.y.size(), n) << what;
  ASSERT_EQ(l.rank.size(), n) << what;
  // Every edge goes down: a later rank, a lower row.
  for (const auto& [s, d] : g.edges) {
    EXPECT_LT(l.rank[s], l.rank[d]) << what << ": edge " << s << " -> " << d;
    EXPECT_LT(l.y[s] + o.node_height, l.y[d] + 1e-9) << what << ": edge " << s << " -> " << d;
  }
  // One row per rank, its nodes left to right without overlap, every node in its row once.
  size_t seen = 0;
  for (size_t r = 0; r < l.rows.size(); ++r) {
    const std::vector<uint32_t>& row = l.rows[r];
    for (size_t k = 0; k < row.size(); ++k) {
      const uint32_t v = row[k];
      ++seen;
      EXPECT_EQ(l.rank[v], r) << what;
      EXPECT_DOUBLE_EQ(l.y[v], l.y[row[0]]) << what << ": rank " << r << " is not one row";
      EXPECT_GE(l.x[v], -1e-9) << what;
      EXPECT_LE(l.x[v] + g.widths[v], l.width + 1e-6) << what;
      if (k > 0) {
        const uint32_t u = row[k - 1];
        EXPECT_LE(l.x[u] + g.widths[u] + o.column_gap, l.x[v] + 1e-6)
            << what << ": nodes " << u << " and " << v << " overlap in rank " << r;
      }
    }
    // Rows do not overlap vertically.
    if (r > 0 && !row.empty() && !l.rows[r - 1].empty()) {
      EXPECT_LE(l.y[l.rows[r - 1][0]] + o.node_height, l.y[row[0]]) << what;
    }
  }
  EXPECT_EQ(seen, n) << what;
  // Stubs are exactly the edges longer than the span.
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const auto [s, d] = g.edges[e];
    EXPECT_EQ(l.stub[e] != 0, l.rank[d] - l.rank[s] > static_cast<uint32_t>(o.long_edge_span))
        << what;
  }
}

TEST(LayeredLayout, EveryExampleGraph) {
  size_t graphs = 0;
  for (const char* dir : {"examples", "examples/traced", "examples/partition"}) {
    const std::filesystem::path folder = std::filesystem::path(SYMSHAPE_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(folder)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      Expected<Graph> g = read_graph_file(file.string());
      if (!g) continue;  // not a graph (a pattern file, a calibration table)
      const LayoutGraph lg = layout_graph(*g);
      const Layout l = layered_layout(lg);
      expect_invariants(lg, l, LayoutOptions{}, file.filename().string());
      ++graphs;
    }
  }
  EXPECT_GE(graphs, 9u);
}

TEST(LayeredLayout, GeneratedModels) {
  gen::LlamaOptions llama;
  llama.layers = 3;
  Expected<std::string> text = gen::llama_graph(llama);
  ASSERT_TRUE(text) << text.error();
  Expected<Graph> g = read_graph(*text);
  ASSERT_TRUE(g) << g.error();
  LayoutGraph lg = layout_graph(*g);
  expect_invariants(lg, layered_layout(lg), LayoutOptions{}, "llama 3 layers");

  gen::ResNetOptions resnet;
  resnet.blocks = 4;
  text = gen::resnet_graph(resnet);
  ASSERT_TRUE(text) << text.error();
  g = read_graph(*text);
  ASSERT_TRUE(g) << g.error();
  lg = layout_graph(*g);
  LayoutOptions tight;
  tight.column_gap = 3;
  tight.long_edge_span = 1;
  tight.sweeps = 1;
  expect_invariants(lg, layered_layout(lg, tight), tight, "resnet 4 blocks");
}

TEST(LayeredLayout, RandomDags) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 60; ++trial) {
    const size_t n = 1 + rng() % 120;
    LayoutGraph g;
    for (size_t v = 0; v < n; ++v) {
      g.widths.push_back(20 + rng() % 300);
      const size_t inputs = v == 0 ? 0 : rng() % 4;
      for (size_t k = 0; k < inputs; ++k) {
        // Mostly near neighbours, sometimes a long skip, sometimes a repeated edge.
        const size_t back = rng() % 5 == 0 ? 1 + rng() % v : 1 + rng() % std::min<size_t>(v, 3);
        g.edges.emplace_back(static_cast<uint32_t>(v - back), static_cast<uint32_t>(v));
      }
    }
    LayoutOptions o;
    o.sweeps = 1 + trial % 5;
    o.long_edge_span = 1 + trial % 4;
    expect_invariants(g, layered_layout(g, o), o, "random DAG " + std::to_string(trial));
  }
}

TEST(LayeredLayout, SameInputSameLayout) {
  LayoutGraph g{{100, 120, 80, 90}, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}};
  const Layout a = layered_layout(g), b = layered_layout(g);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  // A diamond: the two middle nodes share a row, the ends sit above and below them.
  EXPECT_EQ(a.rank, (std::vector<uint32_t>{0, 1, 1, 2}));
}

TEST(LayeredLayout, WeightsSitAboveTheirUser) {
  // x -> a -> b -> c -> mm(c, t(w)): the weight and its transpose sit just above mm.
  LayoutGraph g{{90, 90, 90, 90, 90, 90, 90}, {{0, 1}, {1, 2}, {2, 3}, {4, 5}, {3, 6}, {5, 6}}};
  const Layout l = layered_layout(g);
  EXPECT_EQ(l.rank[6], 4u);
  EXPECT_EQ(l.rank[5], 3u);
  EXPECT_EQ(l.rank[4], 2u);
}

TEST(LayeredLayout, BadEdgesAreErrors) {
  EXPECT_THROW(layered_layout(LayoutGraph{{90, 90}, {{1, 0}}}), Error);
  EXPECT_THROW(layered_layout(LayoutGraph{{90, 90}, {{0, 0}}}), Error);
  EXPECT_THROW(layered_layout(LayoutGraph{{90, 90}, {{0, 5}}}), Error);
  EXPECT_NO_THROW(layered_layout(LayoutGraph{}));
}

}  // namespace
}  // namespace symshape::view
