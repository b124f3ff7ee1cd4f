#include <algorithm>

#include "symshape/graph_dims.h"

namespace symshape {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

void note_symbols(const Expr& e, std::set<std::string>& names) {
  for (const std::string& s : e.free_symbols()) names.insert(s);
}

void note_arg_symbols(const Arg& a, std::set<std::string>& names) {
  if (a.kind == Arg::Kind::Int) note_symbols(a.integer, names);
  for (const Arg& item : a.items) note_arg_symbols(item, names);
}

std::string single_quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  return best ? " (did you mean " + single_quoted(*best) + "?)" : "";
}

std::set<std::string> used_dim_names(const Graph& graph) {
  std::set<std::string> names;
  for (const Node& n : graph.nodes) {
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) {
      for (const auto* list : {&n.shape, &n.stride}) {
        if (!*list) continue;
        for (const Expr& e : **list) note_symbols(e, names);
      }
    }
    for (const Arg& a : n.args) note_arg_symbols(a, names);
    for (const auto& [k, a] : n.kwargs) note_arg_symbols(a, names);
  }
  return names;
}

std::vector<std::string> graph_dim_names(const Graph& graph) {
  std::set<std::string> names = used_dim_names(graph);
  for (const auto& [name, d] : graph.dims) names.insert(name);
  return {names.begin(), names.end()};
}

std::optional<std::string> unknown_dim_problem(const Graph& graph, std::string_view what,
                                               const std::string& name) {
  if (used_dim_names(graph).count(name)) return std::nullopt;
  if (graph.dim(name)) {
    return std::string(what) + ": the graph declares dim " + single_quoted(name) +
           " but no shape or argument uses it";
  }
  return std::string(what) + ": the graph has no dim " + single_quoted(name) +
         did_you_mean(name, graph_dim_names(graph));
}

}  // namespace symshape
