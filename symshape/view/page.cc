// The data `symshape view` embeds in its page: every stage's nodes with their values, dims and
// places, the env's guards, asserts, symbols and constraint problems, module-scope groups, and
// what changed between stages. Deterministic: maps are ordered, numbers rounded.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "symshape/guards.h"
#include "symshape/onnx.h"
#include "symshape/view.h"

namespace symshape::view {

namespace {

using json = nlohmann::ordered_json;

// An empty object with room for n keys. ordered_json keeps an object's keys in a vector whose
// elements (a const key and a value) are copied, not moved, when it grows: without the room, each
// key added after a large value (a stage's nodes) would copy that value again.
json object_with_room(size_t n) {
  json j = json::object();
  j.get_ref<json::object_t&>().reserve(n);
  return j;
}

// Dim kinds, as the page colours them.
constexpr const char* kStatic = "c";       // a constant
constexpr const char* kSymbol = "s";       // one backed symbol
constexpr const char* kExpression = "e";   // an expression of backed symbols
constexpr const char* kUnbacked = "u";     // involves a data-dependent symbol
constexpr const char* kSpecialized = "x";  // symbolic, but a guard made it a constant

// Classifies dims and collects their ranges under one env, remembering what it computed.
class DimClassifier {
 public:
  explicit DimClassifier(ShapeEnv& env) : env_(env) {}

  const char* kind(const Expr& e) {
    if (e.is_constant()) return kStatic;
    const std::vector<std::string> symbols = e.free_symbols();
    for (const std::string& s : symbols) {
      if (env_.has_symbol(s) && env_.symbol(s).kind == SymbolKind::Unbacked) return kUnbacked;
    }
    if (env_.substitute(e).is_constant()) return kSpecialized;
    return e.is_symbol() ? kSymbol : kExpression;
  }

  // The dim's range under the env, once per distinct text.
  void note_range(const std::string& text, const Expr& e) {
    if (ranges_.count(text)) return;
    std::string r;
    try {
      r = env_.bound(e).str();
    } catch (const std::exception& ex) {
      r = std::string("unknown (") + ex.what() + ")";
    }
    ranges_.emplace(text, std::move(r));
  }
  const std::map<std::string, std::string>& ranges() const { return ranges_; }

 private:
  ShapeEnv& env_;
  std::map<std::string, std::string> ranges_;
};

json dim_json(const Expr& e, DimClassifier& dims, std::set<std::string>& symbols) {
  std::string text = e.str();
  for (std::string& s : e.free_symbols()) symbols.insert(std::move(s));
  const char* kind = dims.kind(e);
  if (kind != kStatic) dims.note_range(text, e);
  return json::array({std::move(text), kind});
}

// A value with every dim as [text, kind]: {"dtype", "shape"} for a tensor, {"int": dim} for a
// symbolic int, {"items": [...]} for a tuple, {"text"} otherwise.
json value_json(const Value& v, DimClassifier& dims, std::set<std::string>& symbols) {
  json out = json::object();
  switch (v.kind) {
    case Value::Kind::Tensor: {
      out["dtype"] = std::string(to_string(v.tensor.dtype));
      json shape = json::array();
      for (const Expr& e : v.tensor.sizes) shape.push_back(dim_json(e, dims, symbols));
      out["shape"] = std::move(shape);
      break;
    }
    case Value::Kind::Int: out["int"] = dim_json(v.integer, dims, symbols); break;
    case Value::Kind::List: {
      json items = json::array();
      for (const Value& item : v.items) items.push_back(value_json(item, dims, symbols));
      out["items"] = std::move(items);
      break;
    }
    default: out["text"] = v.str(); break;
  }
  return out;
}

// The nodes a node's arguments refer to, each once, in argument order.
void referenced_names(const Arg& a, std::vector<std::string>& out) {
  if (a.kind == Arg::Kind::Node) {
    if (std::find(out.begin(), out.end(), a.text) == out.end()) out.push_back(a.text);
  } else if (a.kind == Arg::Kind::List) {
    for (const Arg& item : a.items) referenced_names(item, out);
  }
}

std::vector<std::string> node_inputs(const Node& node) {
  std::vector<std::string> names;
  for (const Arg& a : node.args) referenced_names(a, names);
  for (const auto& kv : node.kwargs) referenced_names(kv.second, names);
  return names;
}

// The module scope as nested group ids and their labels: symshape.fx records `scope`
// (`layer1.0.conv1`); an ONNX exporter names nodes by scope (`/layer1/layer1.0/conv1/Conv`).
struct Scope {
  std::string text;
  std::vector<std::string> ids, labels;
};

Scope scope_of(const Node& node, bool onnx) {
  Scope s;
  if (node.extra.is_object() && node.extra.contains("scope") && node.extra["scope"].is_string()) {
    s.text = node.extra["scope"].get<std::string>();
    size_t begin = 0;
    while (begin <= s.text.size() && !s.text.empty()) {
      const size_t dot = std::min(s.text.find('.', begin), s.text.size());
      s.ids.push_back(s.text.substr(0, dot));
      s.labels.push_back(s.text.substr(begin, dot - begin));
      begin = dot + 1;
    }
  } else if (onnx && node.name.size() > 1 && node.name[0] == '/') {
    const size_t last = node.name.rfind('/');
    size_t begin = 1;
    while (begin < last) {
      const size_t slash = node.name.find('/', begin);
      s.ids.push_back(node.name.substr(0, slash));
      s.labels.push_back(node.name.substr(begin, slash - begin));
      begin = slash + 1;
    }
    if (last > 0) s.text = node.name.substr(1, last - 1);
  }
  return s;
}

std::string op_label(const Node& node) {
  switch (node.op) {
    case NodeOp::Placeholder: return "input";
    case NodeOp::GetAttr: return "get_attr " + node.target;
    case NodeOp::Output: return "output";
    case NodeOp::CallFunction: return node.target;
  }
  return node.target;
}

// The box width the page needs for a node's three lines (name, op, value) in its 11px
// monospace font, clamped so that one long name cannot widen a whole row.
double node_width(const Node& node, const std::string& value_text) {
  const size_t longest = std::max({node.name.size(), op_label(node).size(), value_text.size()});
  return std::clamp(static_cast<double>(longest) * 6.7 + 20, 90.0, 330.0);
}

std::string rule_of(const Node& node, const OpRegistry& registry) {
  if (node.op != NodeOp::CallFunction) return "";
  const auto match = resolve_target(
      node.target, [&](std::string_view name) { return registry.find(name) != nullptr; });
  if (!match) return "";
  return match->key + (match->in_place ? " (in place)" : "");
}

json provenance_json(const Provenance& where, const Graph& graph) {
  json j = object_with_room(8);
  j["node"] = where.node;
  j["op"] = where.op;
  j["rule"] = where.rule;
  const size_t at = graph.index_of(where.node);
  j["at"] = at < graph.nodes.size() ? static_cast<int64_t>(at) : -1;
  return j;
}

// The sources of a condition's symbols: `L['x'].size()[0]`.
std::string sources_of(const Cond& cond, const ShapeEnv& env) {
  std::string out;
  for (const std::string& s : cond.free_symbols()) {
    if (!env.has_symbol(s)) continue;
    const std::string& src = env.symbol(s).source;
    if (src.empty()) continue;
    out += (out.empty() ? "" : ", ") + src;
  }
  return out;
}

int64_t rounded(double v) { return static_cast<int64_t>(std::llround(v)); }

json stage_json(const Stage& stage, const PageOptions& options) {
  const Graph& graph = *stage.graph;
  const std::vector<Value>& values = *stage.values;
  ShapeEnv& env = *stage.env;
  const bool onnx = onnx::is_onnx_graph(graph);
  const OpRegistry& registry = onnx ? onnx::registry() : OpRegistry::instance();
  const size_t n = graph.nodes.size();
  DimClassifier dims(env);

  json nodes = json::array();
  LayoutGraph lg;
  std::vector<std::set<std::string>> node_symbols(n);
  std::vector<Scope> scopes(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    const Value none;
    const Value& value = i < values.size() ? values[i] : none;
    json j = object_with_room(24);
    j["name"] = node.name;
    j["op"] = std::string(to_string(node.op));
    j["target"] = node.target;
    json args = json::array();
    for (const Arg& a : node.args) args.push_back(a.str());
    for (const auto& [k, a] : node.kwargs) args.push_back(k + "=" + a.str());
    j["args"] = std::move(args);
    j["rule"] = rule_of(node, registry);
    scopes[i] = scope_of(node, onnx);
    j["scope"] = scopes[i].text;
    j["value"] = value_json(value, dims, node_symbols[i]);
    j["syms"] = json(std::vector<std::string>(node_symbols[i].begin(), node_symbols[i].end()));
    j["guards"] = json::array();
    j["asserts"] = json::array();
    nodes.push_back(std::move(j));
    lg.widths.push_back(node_width(node, value.str()));
    for (const std::string& input : node_inputs(node)) {
      const size_t from = graph.index_of(input);
      if (from < i) lg.edges.emplace_back(static_cast<uint32_t>(from), static_cast<uint32_t>(i));
    }
  }
  if (!stage.error.empty() && stage.failed_node < n) {
    nodes[stage.failed_node]["error"] = stage.error;
  }

  json guards = json::array();
  for (size_t g = 0; g < env.guards().size(); ++g) {
    const Guard& guard = env.guards()[g];
    json j = provenance_json(guard.where, graph);
    j["cond"] = guard.cond.str();
    j["source"] = sources_of(guard.cond, env);
    if (j["at"].get<int64_t>() >= 0) nodes[j["at"].get<size_t>()]["guards"].push_back(g);
    guards.push_back(std::move(j));
  }
  json asserts = json::array();
  for (size_t a = 0; a < env.runtime_asserts().size(); ++a) {
    const RuntimeAssert& ra = env.runtime_asserts()[a];
    json j = provenance_json(ra.where, graph);
    j["cond"] = ra.cond.str();
    j["source"] = sources_of(ra.cond, env);
    if (j["at"].get<int64_t>() >= 0) nodes[j["at"].get<size_t>()]["asserts"].push_back(a);
    asserts.push_back(std::move(j));
  }

  // A declared-dynamic dim a guard made constant: the badge goes on the node of the first guard
  // that names it.
  for (const auto& [symbol, replacement] : env.replacements()) {
    if (!replacement.is_constant()) continue;
    for (size_t g = 0; g < env.guards().size(); ++g) {
      const Guard& guard = env.guards()[g];
      const std::vector<std::string> names = guard.cond.free_symbols();
      if (std::find(names.begin(), names.end(), symbol) == names.end()) continue;
      const int64_t at = guards[g]["at"].get<int64_t>();
      if (at >= 0) {
        json& badges = nodes[static_cast<size_t>(at)]["badges"];
        if (badges.is_null()) badges = json::array();
        badges.push_back(symbol + " specialized to " + replacement.str() + " by the guard " +
                         guard.cond.str());
      }
      break;
    }
  }

  json symbols = json::array();
  for (const SymbolInfo& info : env.symbols()) {
    json j = object_with_room(8);
    j["name"] = info.name;
    j["kind"] = info.kind == SymbolKind::Backed ? "backed" : "unbacked";
    j["source"] = info.source;
    j["hint"] = info.hint ? to_string(*info.hint) : "";
    std::string range;
    try {
      range = env.bound(Expr::symbol(info.name)).str();
    } catch (const std::exception& ex) {
      range = std::string("unknown (") + ex.what() + ")";
    }
    j["range"] = range;
    const auto rep = env.replacements().find(info.name);
    j["replacement"] = rep == env.replacements().end() ? "" : rep->second.str();
    // Where it was created: the first node whose value uses it.
    std::string created;
    for (size_t i = 0; i < n && created.empty(); ++i) {
      if (node_symbols[i].count(info.name)) created = graph.nodes[i].name;
    }
    j["created"] = created;
    symbols.push_back(std::move(j));
  }

  json problems = json::array();
  for (const ConstraintProblem& p : check_constraints(env)) {
    problems.push_back({{"dim", p.dim}, {"message", p.message}, {"fixes", p.fixes}});
  }

  const Layout layout = layered_layout(lg, options.layout);
  for (size_t i = 0; i < n; ++i) {
    nodes[i]["x"] = rounded(layout.x[i]);
    nodes[i]["y"] = rounded(layout.y[i]);
    nodes[i]["w"] = rounded(lg.widths[i]);
    nodes[i]["r"] = layout.rank[i];
  }
  json edges = json::array();
  for (size_t e = 0; e < lg.edges.size(); ++e) {
    edges.push_back(json::array({lg.edges[e].first, lg.edges[e].second, layout.stub[e]}));
  }

  // Groups by scope, in order of first appearance; each node joins its innermost group.
  json groups = json::array();
  std::unordered_map<std::string, size_t> group_index;
  struct Box {
    double x0, y0, x1, y1;
    size_t count = 0;
  };
  std::vector<Box> boxes;
  for (size_t i = 0; i < n; ++i) {
    int64_t innermost = -1;
    for (size_t k = 0; k < scopes[i].ids.size(); ++k) {
      auto [it, fresh] = group_index.emplace(scopes[i].ids[k], boxes.size());
      if (fresh) {
        groups.push_back(
            {{"id", scopes[i].ids[k]}, {"label", scopes[i].labels[k]}, {"parent", innermost}});
        boxes.push_back({layout.x[i], layout.y[i], layout.x[i], layout.y[i]});
      }
      Box& b = boxes[it->second];
      b.x0 = std::min(b.x0, layout.x[i]);
      b.y0 = std::min(b.y0, layout.y[i]);
      b.x1 = std::max(b.x1, layout.x[i] + lg.widths[i]);
      b.y1 = std::max(b.y1, layout.y[i] + options.layout.node_height);
      ++b.count;
      innermost = static_cast<int64_t>(it->second);
    }
    nodes[i]["g"] = innermost;
  }
  for (size_t g = 0; g < boxes.size(); ++g) {
    const Box& b = boxes[g];
    groups[g]["count"] = b.count;
    groups[g]["box"] = {rounded(b.x0), rounded(b.y0), rounded(b.x1), rounded(b.y1)};
    groups[g]["collapsed"] = n > options.collapse_above && b.count >= 2;
  }

  json j = object_with_room(16);
  j["name"] = stage.name;
  j["width"] = rounded(layout.width);
  j["height"] = rounded(layout.height);
  j["node_height"] = rounded(options.layout.node_height);
  j["nodes"] = std::move(nodes);
  j["edges"] = std::move(edges);
  j["guards"] = std::move(guards);
  j["asserts"] = std::move(asserts);
  j["symbols"] = std::move(symbols);
  j["problems"] = std::move(problems);
  j["ranges"] = json(dims.ranges());
  j["groups"] = std::move(groups);
  j["error"] = stage.error;
  return j;
}

// What a stage changed from the one before: nodes added, removed (gone by name) and rewritten
// (same name, another op, arguments or value), and for each added node the removed node it
// took the place of: a removed node's users that survive now read an added node, and the added
// nodes feeding that one came with it (a decomposition's new nodes).
json diff_json(const Stage& before, const Stage& after) {
  const Graph& a = *before.graph;
  const Graph& b = *after.graph;
  json added = json::array(), removed = json::array(), rewritten = json::array();
  std::set<std::string> added_set;
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    const Node& node = b.nodes[i];
    const size_t old = a.index_of(node.name);
    if (old >= a.nodes.size()) {
      added.push_back(node.name);
      added_set.insert(node.name);
      continue;
    }
    const Node& prev = a.nodes[old];
    bool same = prev.op == node.op && prev.target == node.target &&
                prev.args.size() == node.args.size() && prev.kwargs.size() == node.kwargs.size();
    for (size_t k = 0; same && k < node.args.size(); ++k)
      same = prev.args[k].str() == node.args[k].str();
    for (size_t k = 0; same && k < node.kwargs.size(); ++k) {
      same = prev.kwargs[k].first == node.kwargs[k].first &&
             prev.kwargs[k].second.str() == node.kwargs[k].second.str();
    }
    if (same && old < before.values->size() && i < after.values->size())
      same = (*before.values)[old].str() == (*after.values)[i].str();
    if (!same) rewritten.push_back(node.name);
  }
  std::unordered_map<std::string, std::vector<size_t>> users;  // in the stage before
  for (size_t u = 0; u < a.nodes.size(); ++u) {
    for (std::string& input : node_inputs(a.nodes[u])) users[std::move(input)].push_back(u);
  }
  std::map<std::string, std::string> replaces;  // added node -> the removed node it replaced
  for (const Node& node : a.nodes) {
    if (b.index_of(node.name) < b.nodes.size()) continue;
    removed.push_back(node.name);
    // The added nodes that the removed node's surviving users read, and their added inputs.
    std::vector<std::string> frontier;
    for (size_t u : users[node.name]) {
      const size_t now = b.index_of(a.nodes[u].name);
      if (now >= b.nodes.size()) continue;
      for (const std::string& input : node_inputs(b.nodes[now])) {
        if (added_set.count(input)) frontier.push_back(input);
      }
    }
    while (!frontier.empty()) {
      const std::string name = frontier.back();
      frontier.pop_back();
      if (!replaces.emplace(name, node.name).second) continue;
      for (const std::string& input : node_inputs(b.nodes[b.index_of(name)])) {
        if (added_set.count(input)) frontier.push_back(input);
      }
    }
  }
  return {{"added", std::move(added)},
          {"removed", std::move(removed)},
          {"rewritten", std::move(rewritten)},
          {"replaces", json(replaces)}};
}

}  // namespace

json page_data(const std::vector<Stage>& stages, const PageOptions& options) {
  json data = object_with_room(4);
  data["format"] = "symshape-view";
  data["version"] = 1;
  data["title"] = options.title;
  json out = json::array();
  for (size_t s = 0; s < stages.size(); ++s) {
    const Stage& stage = stages[s];
    if (!stage.graph || !stage.values || !stage.env)
      throw Error("view: stage " + std::to_string(s) + " (" + stage.name + ") has no graph");
    json j = stage_json(stage, options);
    if (s > 0) j["diff"] = diff_json(stages[s - 1], stage);
    out.push_back(std::move(j));
  }
  data["stages"] = std::move(out);
  return data;
}

std::string data_text(const json& data) {
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

json graph_page_data(const Graph& graph, const PropagateOptions& propagate_options,
                     const PageOptions& options) {
  PropagateOptions po = propagate_options;
  ShapeEnvOptions env_options;
  if (onnx::is_onnx_graph(graph)) {
    po.registry = &onnx::registry();
    env_options.hints_are_guesses = true;
  }
  ShapeEnv env(env_options);
  const Propagation p = propagate(graph, env, po);
  Stage stage{"input", &graph, &p.values, &env, p.error, p.failed_node};
  return page_data({stage}, options);
}

}  // namespace symshape::view
