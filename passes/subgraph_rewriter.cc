// The subgraph rewriter: patterns written as small graphs, matched by target and dataflow, with
// size constraints the ShapeEnv must prove, replaced by graphs whose metadata the rules derive.
// Also GraphBuilder, and the `rewrite` pass that applies patterns read from a file.
#include <fstream>
#include <regex>
#include <sstream>

#include "passes/families.h"
#include "passes/op_classes.h"

namespace symshape {

// ---- GraphBuilder ----

std::string GraphBuilder::fresh(const std::string& base) {
  size_t& n = used_[base];
  std::string name = n == 0 ? base : base + "_" + std::to_string(n);
  ++n;
  return name;
}

Arg GraphBuilder::input(const std::string& name, std::optional<DType> dtype,
                        std::optional<std::vector<Expr>> shape) {
  Node n;
  n.op = NodeOp::Placeholder;
  n.name = fresh(name);
  n.dtype = dtype;
  n.shape = std::move(shape);
  graph_.nodes.push_back(n);
  return Arg::node(n.name);
}

Arg GraphBuilder::call(const std::string& target, std::vector<Arg> args,
                       std::vector<std::pair<std::string, Arg>> kwargs, const std::string& name) {
  Node n;
  n.op = NodeOp::CallFunction;
  n.target = target;
  n.name = fresh(name.empty() ? std::string(passes::op_name(target)) : name);
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  graph_.nodes.push_back(n);
  return Arg::node(n.name);
}

Graph GraphBuilder::build(const Arg& result) {
  Node out;
  out.op = NodeOp::Output;
  out.name = fresh("output");
  out.args = {result};
  Graph g = std::move(graph_);
  g.nodes.push_back(std::move(out));
  graph_ = Graph();
  used_.clear();
  return g;
}

// ---- reading patterns ----

Expected<std::vector<RewritePattern>> read_patterns(std::string_view json_text) {
  using Result = Expected<std::vector<RewritePattern>>;
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("patterns") ||
      !doc["patterns"].is_array()) {
    return Result::failure("a pattern file is a JSON object with a \"patterns\" list");
  }
  std::vector<RewritePattern> out;
  for (size_t i = 0; i < doc["patterns"].size(); ++i) {
    const nlohmann::json& p = doc["patterns"][i];
    std::string where = "pattern " + std::to_string(i);
    if (!p.is_object()) return Result::failure(where + ": not an object");
    RewritePattern rp;
    if (p.contains("name")) {
      if (!p["name"].is_string()) return Result::failure(where + ": \"name\" is not a string");
      rp.name = p["name"].get<std::string>();
      where += " '" + rp.name + "'";
    } else {
      rp.name = "pattern_" + std::to_string(i);
    }
    for (const char* key : {"pattern", "replacement"}) {
      if (!p.contains(key)) return Result::failure(where + ": missing \"" + key + "\"");
      Expected<Graph> g = read_graph(p[key].dump());
      if (!g) return Result::failure(where + ": \"" + key + "\": " + g.error());
      (std::string(key) == "pattern" ? rp.pattern : rp.replacement) = std::move(*g);
    }
    if (p.contains("constraints")) {
      if (!p["constraints"].is_array())
        return Result::failure(where + ": \"constraints\" is not a list");
      for (const auto& c : p["constraints"]) {
        if (!c.is_string()) return Result::failure(where + ": a constraint is not a string");
        rp.constraints.push_back(c.get<std::string>());
      }
    }
    out.push_back(std::move(rp));
  }
  return out;
}

namespace passes {

namespace {

// A match in progress: pattern node name -> graph node.
struct Match {
  std::map<std::string, NodeId> nodes;
};

class Matcher {
 public:
  Matcher(const MutableGraph& g, const Graph& pattern) : g_(g), pattern_(pattern) {}

  bool match_node(const std::string& pname, NodeId gid, Match& m) const {
    size_t pi = pattern_.index_of(pname);
    if (pi >= pattern_.nodes.size()) return false;
    const Node& p = pattern_.nodes[pi];
    auto bound = m.nodes.find(pname);
    if (bound != m.nodes.end()) return bound->second == gid;
    if (p.op == NodeOp::Placeholder) {
      m.nodes.emplace(pname, gid);
      return true;
    }
    const Node& n = g_.node(gid);
    if (p.op != NodeOp::CallFunction || n.op != NodeOp::CallFunction) return false;
    if (!same_target(p.target, n.target)) return false;
    if (p.args.size() != n.args.size() || p.kwargs.size() != n.kwargs.size()) return false;
    m.nodes.emplace(pname, gid);
    for (size_t i = 0; i < p.args.size(); ++i) {
      if (!match_arg(p.args[i], n.args[i], m)) return false;
    }
    for (const auto& [key, parg] : p.kwargs) {
      const Arg* garg = n.kwarg(key);
      if (!garg || !match_arg(parg, *garg, m)) return false;
    }
    return true;
  }

 private:
  static bool same_target(std::string_view pattern, std::string_view target) {
    if (pattern == target) return true;
    TargetName p = parse_target(pattern), t = parse_target(target);
    return p.overload.empty() && p.packet == t.packet;
  }

  bool match_arg(const Arg& p, const Arg& a, Match& m) const {
    if (p.kind == Arg::Kind::Node) {
      NodeId r = g_.referent(a);
      return r != kNoNode && match_node(p.text, r, m);
    }
    if (p.kind == Arg::Kind::List) {
      if (a.kind != Arg::Kind::List || a.items.size() != p.items.size()) return false;
      for (size_t i = 0; i < p.items.size(); ++i) {
        if (!match_arg(p.items[i], a.items[i], m)) return false;
      }
      return true;
    }
    std::string pk, ak;
    append_arg_key(p, pk);
    append_arg_key(a, ak);
    return pk == ak;
  }

  const MutableGraph& g_;
  const Graph& pattern_;
};

// `x.size(1) % 8 == 0` with x bound: the condition over the matched sizes.
std::optional<Cond> constraint_of(PassContext& ctx, const std::string& text, const Graph& pattern,
                                  const Match& m) {
  static const std::regex size_ref(R"(([A-Za-z_][A-Za-z0-9_]*)\.size\((\d+)\))");
  std::map<std::string, Expr> subs;
  std::string rewritten;
  auto begin = std::sregex_iterator(text.begin(), text.end(), size_ref);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& sm = *it;
    auto bound = m.nodes.find(sm[1].str());
    if (bound == m.nodes.end()) return std::nullopt;
    const Value& v = ctx.graph().value(bound->second);
    size_t dim = std::stoul(sm[2].str());
    if (!v.is_tensor() || dim >= v.tensor.rank()) return std::nullopt;
    std::string symbol = "__pattern_size_" + std::to_string(subs.size());
    subs[symbol] = v.tensor.sizes[dim];
    rewritten += text.substr(last, static_cast<size_t>(sm.position(0)) - last) + symbol;
    last = static_cast<size_t>(sm.position(0) + sm.length(0));
  }
  rewritten += text.substr(last);
  for (const Node& n : pattern.nodes) {
    if (n.op != NodeOp::Placeholder) continue;
    auto bound = m.nodes.find(n.name);
    if (bound == m.nodes.end()) continue;
    const Value& v = ctx.graph().value(bound->second);
    if (v.kind == Value::Kind::Int) subs[n.name] = v.integer;
  }
  Expected<Cond> c = parse_cond(rewritten);
  if (!c) throw Error("constraint '" + text + "': " + c.error());
  return c->subs(subs);
}

}  // namespace

}  // namespace passes

size_t rewrite_subgraphs(PassContext& ctx, const RewritePattern& rp) {
  using namespace passes;
  MutableGraph& g = ctx.graph();
  const Graph& pattern = rp.pattern;
  if (pattern.nodes.empty() || pattern.nodes.back().op != NodeOp::Output ||
      pattern.nodes.back().args.size() != 1 ||
      pattern.nodes.back().args[0].kind != Arg::Kind::Node) {
    throw Error("pattern '" + rp.name + "': its output must name one node");
  }
  const std::string root_name = pattern.nodes.back().args[0].text;
  size_t root_index = pattern.index_of(root_name);
  if (root_index >= pattern.nodes.size() || pattern.nodes[root_index].op != NodeOp::CallFunction) {
    throw Error("pattern '" + rp.name + "': its output must be a call node of the pattern");
  }
  Matcher matcher(g, pattern);
  size_t rewrites = 0;
  for (NodeId root : g.order()) {
    if (!g.alive(root)) continue;
    Match m;
    if (!matcher.match_node(root_name, root, m)) continue;
    // Inner nodes (matched call nodes other than the root) may be used only inside the match.
    std::vector<NodeId> inner;
    std::set<NodeId> matched;
    for (const auto& [pname, id] : m.nodes) matched.insert(id);
    bool closed = true;
    for (const auto& [pname, id] : m.nodes) {
      const Node& p = pattern.nodes[pattern.index_of(pname)];
      if (p.op != NodeOp::CallFunction || id == root) continue;
      inner.push_back(id);
      for (NodeId u : g.users(id)) closed = closed && matched.count(u) > 0;
    }
    if (!closed) continue;
    bool proved = true;
    for (const std::string& text : rp.constraints) {
      std::optional<Cond> c = constraint_of(ctx, text, pattern, m);
      proved = proved && c && ctx.provably(*c);
    }
    if (!proved) continue;

    // The replacement, before the root; its placeholders stand for the pattern's inputs.
    std::map<std::string, std::string> names;
    std::vector<NodeId> created;
    std::function<Arg(const Arg&)> map_arg = [&](const Arg& a) -> Arg {
      if (a.kind == Arg::Kind::Node) {
        auto it = names.find(a.text);
        if (it == names.end())
          throw Error("pattern '" + rp.name + "': the replacement refers to unknown '" + a.text +
                      "'");
        return Arg::node(it->second);
      }
      if (a.kind != Arg::Kind::List) return a;
      Arg out = a;
      for (Arg& item : out.items) item = map_arg(item);
      return out;
    };
    std::optional<Arg> result;
    for (const Node& r : rp.replacement.nodes) {
      if (r.op == NodeOp::Placeholder) {
        auto bound = m.nodes.find(r.name);
        if (bound == m.nodes.end() ||
            pattern.nodes[pattern.index_of(r.name)].op != NodeOp::Placeholder) {
          throw Error("pattern '" + rp.name + "': the replacement's input '" + r.name +
                      "' is no input of the pattern");
        }
        names[r.name] = g.node(bound->second).name;
      } else if (r.op == NodeOp::CallFunction) {
        std::vector<Arg> args;
        for (const Arg& a : r.args) args.push_back(map_arg(a));
        std::vector<std::pair<std::string, Arg>> kwargs;
        for (const auto& [k, a] : r.kwargs) kwargs.emplace_back(k, map_arg(a));
        NodeId id = ctx.create_call(root, r.target, std::move(args), std::move(kwargs), r.name);
        created.push_back(id);
        names[r.name] = g.node(id).name;
      } else if (r.op == NodeOp::Output && r.args.size() == 1) {
        result = map_arg(r.args[0]);
      } else {
        throw Error("pattern '" + rp.name +
                    "': a replacement holds placeholders, call nodes and "
                    "one output");
      }
    }
    NodeId replacement = result ? g.referent(*result) : kNoNode;
    const bool same = replacement != kNoNode &&
                      g.value(root).is_tensor() == g.value(replacement).is_tensor() &&
                      (!g.value(root).is_tensor() ||
                       ctx.same_meta(g.value(root).tensor, g.value(replacement).tensor));
    if (!same || !forward(ctx, root, replacement)) {
      for (auto it = created.rbegin(); it != created.rend(); ++it) {
        if (!g.has_users(*it)) g.erase(*it);
      }
      continue;
    }
    // Inner nodes from the root back: each is unused once the ones after it are gone.
    std::sort(inner.begin(), inner.end(), [&](NodeId a, NodeId b) { return g.before(b, a); });
    for (NodeId id : inner) {
      if (g.alive(id) && !g.has_users(id)) g.erase(id);
    }
    ++rewrites;
  }
  return rewrites;
}

namespace passes {

namespace {

class RewritePass : public Pass {
 public:
  std::string_view name() const override { return "rewrite"; }
  std::string_view description() const override {
    return "replace the subgraphs that match the patterns of a file (subgraph rewriter)";
  }
  std::vector<PassOption> options() const override {
    return {{"patterns", "",
             "the pattern file: {\"patterns\": [{name, pattern, replacement, constraints}]}"}};
  }
  void run(PassContext& ctx) const override {
    const std::string& path = ctx.option("patterns");
    if (path.empty()) ctx.bad_option("patterns", "the rewrite pass needs patterns=FILE");
    std::ifstream in(path, std::ios::binary);
    if (!in) ctx.bad_option("patterns", "cannot read the pattern file '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    Expected<std::vector<RewritePattern>> patterns = read_patterns(text.str());
    if (!patterns) ctx.bad_option("patterns", path + ": " + patterns.error());
    for (const RewritePattern& p : *patterns) {
      if (size_t n = rewrite_subgraphs(ctx, p)) ctx.count(p.name, n);
    }
  }
};

}  // namespace

void register_rewrite_pass(PassRegistry& r) { r.add(std::make_unique<RewritePass>()); }

}  // namespace passes

}  // namespace symshape
