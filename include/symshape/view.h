// Pictures of graphs: the layered layout that places a graph's nodes top to bottom, and the one
// self-contained HTML page (`symshape view`) that draws a graph with its symbolic shapes, guards,
// symbols and, for a lowering, what each pass changed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "symshape/ir.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape::view {

// ---- the layered layout ----

// A graph to lay out: nodes 0..n-1 in topological order, each with a width, and edges from an
// earlier node to a later one.
struct LayoutGraph {
  std::vector<double> widths;
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (source, target), source < target
};

struct LayoutOptions {
  double node_height = 54;  // every node's height
  double row_gap = 38;      // vertical space between two rows
  double column_gap = 24;   // least horizontal space between two nodes of a row
  int sweeps = 4;           // barycenter sweeps (each one down and one up)
  // An edge that spans more ranks than this is drawn as two short labelled stubs, not a line.
  int long_edge_span = 3;
};

// Where every node goes: its rank (row), its box's top-left corner and the edges drawn as stubs.
struct Layout {
  std::vector<uint32_t> rank;
  std::vector<double> x, y;                 // top-left corner of each node's box
  std::vector<uint8_t> stub;                // per edge: 1 when the edge is drawn as two stubs
  std::vector<std::vector<uint32_t>> rows;  // the nodes of each rank, left to right
  double width = 0, height = 0;             // the bounding box (from 0, 0)
};

// Ranks from the topological order (a node sits at least one row below each input, and then
// just above its first user, so weights and their transposes sit next to where they are used), a
// few barycenter sweeps against crossings, then each row placed as close to its nodes' barycenters
// as non-overlap allows. Time O((n + e) log n) per sweep; no dummy nodes. Throws Error when an edge
// does not go from an earlier node to a later one, or names a node that does not exist.
Layout layered_layout(const LayoutGraph& graph, const LayoutOptions& options = {});

// ---- the page ----

// One graph to show: the input, or the graph after one pass of a lowering.
struct Stage {
  std::string name;  // "input", "after dce"
  const Graph* graph = nullptr;
  const std::vector<Value>* values = nullptr;  // one per node (what propagate computed)
  ShapeEnv* env = nullptr;                     // the env the values were computed under
  std::string error;                           // a propagation error, when there was one
  size_t failed_node = 0;                      // the node that failed (when error is set)
};

struct PageOptions {
  std::string title = "symshape view";
  // Module-scope groups start collapsed when a graph has more nodes than this.
  size_t collapse_above = 300;
  LayoutOptions layout{};
};

// The data the page embeds and draws: per stage its nodes (op, arguments, value with every dim's
// text and kind, scope, place), edges, guards, runtime asserts, symbols, constraint problems and
// groups, and between consecutive stages the nodes added, removed and rewritten. The same inputs
// always give the same document. Format: docs/view.md.
nlohmann::ordered_json page_data(const std::vector<Stage>& stages, const PageOptions& options = {});

// The data as the page embeds it: compact JSON, every `<` escaped as \u003c.
std::string data_text(const nlohmann::ordered_json& data);

// The HTML page (its script and style inline; no external URL) that shows the data.
std::string page_html(const nlohmann::ordered_json& data, const std::string& title);

// Propagates graph under a fresh ShapeEnv and returns its page data (a shape error is shown on
// the page, not thrown). The convenience behind `symshape view` and symshape.view().
nlohmann::ordered_json graph_page_data(const Graph& graph, const PropagateOptions& propagate = {},
                                       const PageOptions& options = {});

// The page's script and style, written in this project (page_script.cc).
const char* page_script();
const char* page_style();

}  // namespace symshape::view
