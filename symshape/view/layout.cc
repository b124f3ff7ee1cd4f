// The layered layout: ranks from the topological order, barycenter sweeps, rows placed by
// isotonic regression. Long edges become stubs, so there are no dummy nodes and every step is
// linear in nodes and edges (plus a sort per row).
#include <algorithm>
#include <numeric>
#include <string>

#include "symshape/view.h"

namespace symshape::view {

namespace {

// Adjacency in compressed form: the neighbours of node v are ids[start[v] .. start[v + 1]).
struct Adjacency {
  std::vector<uint32_t> start, ids;
  size_t degree(uint32_t v) const { return start[v + 1] - start[v]; }
};

Adjacency adjacency(size_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                    bool forward) {
  Adjacency a;
  a.start.assign(n + 1, 0);
  for (const auto& [s, d] : edges) ++a.start[(forward ? s : d) + 1];
  std::partial_sum(a.start.begin(), a.start.end(), a.start.begin());
  a.ids.resize(edges.size());
  std::vector<uint32_t> fill(a.start.begin(), a.start.end() - 1);
  for (const auto& [s, d] : edges) a.ids[fill[forward ? s : d]++] = forward ? d : s;
  return a;
}

// Places one row's nodes, in their order, as close to the desired centers as the widths and the
// gap allow (least squares): pool adjacent violators on the left edges less the widths before.
void place_row(const std::vector<uint32_t>& row, const std::vector<double>& desired,
               const std::vector<double>& widths, double gap, std::vector<double>& x) {
  struct Block {
    double sum;
    size_t count, first;
  };
  std::vector<Block> blocks;
  std::vector<double> offset(row.size());
  double o = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    offset[i] = o;
    o += widths[row[i]] + gap;
    const double target = desired[i] - widths[row[i]] / 2 - offset[i];
    blocks.push_back({target, 1, i});
    while (blocks.size() > 1) {
      Block& last = blocks.back();
      Block& prev = blocks[blocks.size() - 2];
      if (prev.sum / static_cast<double>(prev.count) <= last.sum / static_cast<double>(last.count))
        break;
      prev.sum += last.sum;
      prev.count += last.count;
      blocks.pop_back();
    }
  }
  for (const Block& b : blocks) {
    const double z = b.sum / static_cast<double>(b.count);
    for (size_t i = b.first; i < b.first + b.count; ++i) x[row[i]] = z + offset[i];
  }
}

double center(const std::vector<double>& x, const std::vector<double>& widths, uint32_t v) {
  return x[v] + widths[v] / 2;
}

// Reorders each row by the mean center of its neighbours in `adj` (a node without neighbours
// keeps its place) and places it there. Rows are visited in the given order.
void sweep(std::vector<std::vector<uint32_t>>& rows, const std::vector<size_t>& row_order,
           const Adjacency& adj, const std::vector<double>& widths, double gap,
           std::vector<double>& x) {
  std::vector<std::pair<double, uint32_t>> keyed;
  std::vector<double> desired;
  for (size_t r : row_order) {
    std::vector<uint32_t>& row = rows[r];
    keyed.clear();
    for (uint32_t v : row) {
      double key = center(x, widths, v);
      if (adj.degree(v) > 0) {
        double sum = 0;
        for (uint32_t i = adj.start[v]; i < adj.start[v + 1]; ++i)
          sum += center(x, widths, adj.ids[i]);
        key = sum / static_cast<double>(adj.degree(v));
      }
      keyed.emplace_back(key, v);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    desired.resize(keyed.size());
    for (size_t i = 0; i < keyed.size(); ++i) {
      row[i] = keyed[i].second;
      desired[i] = keyed[i].first;
    }
    place_row(row, desired, widths, gap, x);
  }
}

}  // namespace

Layout layered_layout(const LayoutGraph& graph, const LayoutOptions& options) {
  const size_t n = graph.widths.size();
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const auto [s, d] = graph.edges[i];
    if (s >= n || d >= n) {
      throw Error("layout: edge " + std::to_string(i) + " names node " +
                  std::to_string(std::max(s, d)) + " of " + std::to_string(n));
    }
    if (s >= d) {
      throw Error("layout: edge " + std::to_string(i) + " goes from node " + std::to_string(s) +
                  " to node " + std::to_string(d) + ", not down the topological order");
    }
  }
  const Adjacency all_succs = adjacency(n, graph.edges, true);

  Layout out;
  out.rank.assign(n, 0);
  {
    const Adjacency all_preds = adjacency(n, graph.edges, false);
    for (uint32_t v = 0; v < n; ++v) {
      for (uint32_t i = all_preds.start[v]; i < all_preds.start[v + 1]; ++i)
        out.rank[v] = std::max(out.rank[v], out.rank[all_preds.ids[i]] + 1);
    }
  }
  // Then every node moves down to just above its first user (a weight, its transpose, an input
  // read late), which keeps the top rows from filling with everything that has no inputs.
  for (uint32_t v = static_cast<uint32_t>(n); v-- > 0;) {
    if (all_succs.degree(v) == 0) continue;
    uint32_t lowest = ~uint32_t{0};
    for (uint32_t i = all_succs.start[v]; i < all_succs.start[v + 1]; ++i)
      lowest = std::min(lowest, out.rank[all_succs.ids[i]]);
    out.rank[v] = std::max(out.rank[v], lowest - 1);  // every user sits below v, so lowest >= 1
  }
  uint32_t ranks = 0;
  for (uint32_t r : out.rank) ranks = std::max(ranks, r + 1);
  out.rows.assign(ranks, {});
  for (uint32_t v = 0; v < n; ++v) out.rows[out.rank[v]].push_back(v);

  // Long edges are drawn as stubs, so where their ends sit does not matter to the picture: only
  // the short edges, drawn as lines, pull nodes together (a size used by every layer does not
  // drag the whole graph towards it).
  out.stub.resize(graph.edges.size());
  std::vector<std::pair<uint32_t, uint32_t>> short_edges;
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const auto [s, d] = graph.edges[i];
    out.stub[i] = out.rank[d] - out.rank[s] > static_cast<uint32_t>(options.long_edge_span);
    if (!out.stub[i]) short_edges.emplace_back(s, d);
  }
  const Adjacency preds = adjacency(n, short_edges, false);
  const Adjacency succs = adjacency(n, short_edges, true);

  out.x.assign(n, 0);
  std::vector<size_t> down(ranks), up(ranks);
  std::iota(down.begin(), down.end(), 0);
  std::iota(up.rbegin(), up.rend(), 0);
  for (int s = 0; s < std::max(1, options.sweeps); ++s) {
    sweep(out.rows, down, preds, graph.widths, options.column_gap, out.x);
    if (s + 1 < options.sweeps) sweep(out.rows, up, succs, graph.widths, options.column_gap, out.x);
  }

  double min_x = 0, max_x = 0;
  for (uint32_t v = 0; v < n; ++v) {
    min_x = v == 0 ? out.x[v] : std::min(min_x, out.x[v]);
    max_x = v == 0 ? out.x[v] + graph.widths[v] : std::max(max_x, out.x[v] + graph.widths[v]);
  }
  const double pitch = options.node_height + options.row_gap;
  out.y.resize(n);
  for (uint32_t v = 0; v < n; ++v) {
    out.x[v] -= min_x;
    out.y[v] = out.rank[v] * pitch;
  }
  out.width = n ? max_x - min_x : 0;
  out.height = ranks ? ranks * pitch - options.row_gap : 0;
  return out;
}

}  // namespace symshape::view
