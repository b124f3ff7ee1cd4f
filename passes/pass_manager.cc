// The PassManager: runs a pipeline and, after every pass, checks that the graph still verifies,
// that the shape rules derive the metadata the pass left, that no input symbol was lost or
// specialized, that no undeclared guard appeared, and (on request) that the numbers agree.
#include <algorithm>
#include <set>

#include "passes/numerics.h"
#include "symshape/passes.h"

namespace symshape {

PassManager::PassManager(const PassRegistry& registry, PassManagerOptions options)
    : registry_(registry), options_(std::move(options)) {}

void PassManager::add(const PassSpec& spec) {
  const Pass* pass = registry_.find(spec.name);
  if (!pass) {
    std::string known;
    for (const Pass* p : registry_.passes())
      known += (known.empty() ? "" : ", ") + std::string(p->name());
    throw Error("unknown pass '" + spec.name + "' (known: " + known + ")");
  }
  for (const auto& [key, value] : spec.options) {
    auto declared = pass->options();
    if (std::none_of(declared.begin(), declared.end(),
                     [&](const PassOption& o) { return o.name == key; })) {
      throw Error("pass '" + spec.name + "' has no option '" + key + "'");
    }
  }
  specs_.push_back(spec);
}

void PassManager::add_pipeline(std::string_view name) {
  const PassRegistry::Pipeline* p = registry_.pipeline(name);
  if (!p) {
    std::string known;
    for (const auto* q : registry_.pipelines()) known += (known.empty() ? "" : ", ") + q->name;
    throw Error("unknown pipeline '" + std::string(name) + "' (known: " + known + ")");
  }
  for (const std::string& pass : p->passes) add(pass);
}

namespace {

// The symbols an input graph's placeholders and constants are sized by (after replacements):
// what every pass must keep symbolic.
std::set<std::string> input_symbols(const MutableGraph& g, const ShapeEnv& env) {
  std::set<std::string> out;
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) continue;
    const Value& v = g.value(id);
    if (!v.is_tensor()) continue;
    for (const Expr& e : v.tensor.sizes) {
      for (const std::string& s : env.substitute(e).free_symbols()) out.insert(s);
    }
  }
  return out;
}

// Compares what a pass left on a node with what the rules derive now. Symbols the re-derivation
// created (a nonzero's fresh u3 for the u0 it had) are matched to the old expression on first
// sight.
class MetaComparer {
 public:
  MetaComparer(ShapeEnv& env, std::set<std::string> old_symbols)
      : env_(env), old_(std::move(old_symbols)) {}

  // Empty when equal; else what differs.
  std::string compare(const Value& left, const Value& derived) {
    if (left.kind != derived.kind)
      return "a " + kind(left) + " where the rule derives a " + kind(derived);
    switch (left.kind) {
      case Value::Kind::Tensor: return compare_tensor(left.tensor, derived.tensor);
      case Value::Kind::Int:
        return same(left.integer, derived.integer)
                   ? ""
                   : "the int " + left.integer.str() + " where the rule derives " +
                         derived.integer.str();
      case Value::Kind::List: {
        if (left.items.size() != derived.items.size()) {
          return std::to_string(left.items.size()) + " items where the rule derives " +
                 std::to_string(derived.items.size());
        }
        for (size_t i = 0; i < left.items.size(); ++i) {
          std::string d = compare(left.items[i], derived.items[i]);
          if (!d.empty()) return "item " + std::to_string(i) + ": " + d;
        }
        return "";
      }
      default: return "";  // None, floats and bools carry no shape
    }
  }

 private:
  static std::string kind(const Value& v) {
    switch (v.kind) {
      case Value::Kind::None: return "None";
      case Value::Kind::Tensor: return "tensor";
      case Value::Kind::Int: return "int";
      case Value::Kind::Float: return "float";
      case Value::Kind::Bool: return "bool";
      case Value::Kind::List: return "list";
    }
    return "?";
  }

  std::string compare_tensor(const TensorMeta& a, const TensorMeta& b) {
    // Built only when they differ: printing both for every node made the check cost more than
    // the comparison.
    auto both = [&] { return a.str() + " where the rule derives " + b.str(); };
    if (a.dtype != b.dtype || a.rank() != b.rank()) return both();
    for (size_t d = 0; d < a.rank(); ++d) {
      if (!same(a.sizes[d], b.sizes[d])) return both();
    }
    auto sa = a.strides.empty() ? TensorMeta::contiguous_strides(a.sizes) : a.strides;
    auto sb = b.strides.empty() ? TensorMeta::contiguous_strides(b.sizes) : b.strides;
    for (size_t d = 0; d < a.rank(); ++d) {
      if (!same(sa[d], sb[d])) {
        return "strides [" + join(sa) + "] where the rule derives [" + join(sb) + "] (" + a.str() +
               ")";
      }
    }
    return "";
  }

  static std::string join(const std::vector<Expr>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i].str();
    return out;
  }

  bool same(const Expr& left, const Expr& derived) {
    Expr d = derived;
    if (d.is_symbol() && !old_.count(d.symbol_name()) && !bound_.count(d.symbol_name())) {
      bound_.emplace(d.symbol_name(), left);
      return true;
    }
    if (!bound_.empty()) d = d.subs(bound_);
    return env_.known(env_.wrap(left == d)) == Truth::True;
  }

  ShapeEnv& env_;
  std::set<std::string> old_;
  std::map<std::string, Expr> bound_;
};

class Run {
 public:
  Run(const PassRegistry& registry, const PassManagerOptions& options, ShapeEnv& env)
      : registry_(registry), options_(options), env_(env) {}

  LowerResult run(const Graph& input, const std::vector<PassSpec>& specs) {
    LowerResult result;
    result.graph = input;
    Propagation p = propagate(input, env_, options_.propagate);
    if (!p.ok()) {
      result.error = p.error;
      return result;
    }
    MutableGraph graph(input, std::move(p.values));
    const std::set<std::string> symbols = input_symbols(graph, env_);
    const size_t guards_before = env_.guards().size();
    bool may_add_guards = false;
    for (const PassSpec& spec : specs) {
      const Pass* pass = registry_.find(spec.name);
      if (!pass) {
        result.error = "unknown pass '" + spec.name + "'";
        result.failed_pass = spec.name;
        break;
      }
      may_add_guards = may_add_guards || pass->may_add_guards();
      try {
        result.reports.push_back(run_pass(*pass, spec, graph, symbols));
      } catch (const PassOptionError& e) {
        result.error = e.what();
        result.failed_pass = spec.name;
        result.bad_option = true;
        break;
      } catch (const std::exception& e) {
        result.error = e.what();
        result.failed_pass = spec.name;
        break;
      }
    }
    if (result.error.empty() && !options_.verify_each_pass && !specs.empty()) {
      try {
        check("the pipeline", may_add_guards, graph, symbols, guards_before);
      } catch (const std::exception& e) {
        result.error = e.what();
        result.failed_pass = "the pipeline";
      }
    }
    result.graph = graph.graph();
    result.values = graph.values();
    result.ok = result.error.empty();
    return result;
  }

 private:
  bool dumps(const std::vector<std::string>& names, std::string_view pass) const {
    return options_.dump && std::find(names.begin(), names.end(), pass) != names.end();
  }

  PassReport run_pass(const Pass& pass, const PassSpec& spec, MutableGraph& graph,
                      const std::set<std::string>& symbols) {
    const std::string name(pass.name());
    if (dumps(options_.dump_before, name)) {
      *options_.dump << "// before " << name << "\n" << write_graph(graph.graph());
    }
    PassReport report;
    report.pass = name;
    report.nodes_before = graph.size();
    std::map<std::string, std::string> opts;
    for (const PassOption& o : pass.options()) opts[o.name] = o.default_value;
    for (const auto& [k, v] : spec.options) opts[k] = v;

    const size_t guards_before = env_.guards().size();
    const MutableGraph::EditCounts edits_before = graph.edits();
    std::optional<Graph> before_graph;
    if (options_.verify_numerics) before_graph = graph.graph();

    const auto start = std::chrono::steady_clock::now();
    PassContext ctx(name, graph, env_, registry_ops(), opts, options_.propagate);
    try {
      pass.run(ctx);
    } catch (const PassError&) {
      throw;
    } catch (const std::exception& e) {
      throw PassError(name, "", e.what());
    }
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.stats.inserted = graph.edits().inserted - edits_before.inserted;
    report.stats.erased = graph.edits().erased - edits_before.erased;
    report.stats.rewritten = graph.edits().rewritten - edits_before.rewritten;
    report.stats.counters = ctx.counters();
    report.nodes_after = graph.size();

    if (options_.verify_each_pass)
      check(name, pass.may_add_guards(), graph, symbols, guards_before);
    for (size_t i = guards_before; i < env_.guards().size(); ++i)
      report.guards_added.push_back(env_.guards()[i]);
    if (before_graph && report.stats.changed()) {
      static const std::map<std::string, interp::Tensor> kNoInputs;
      const auto& given = options_.numeric_inputs ? *options_.numeric_inputs : kNoInputs;
      report.numeric_runs = passes::compare_numerics(*before_graph, graph.graph(), env_, pass, opts,
                                                     options_.seed, options_.memory_budget, given);
    }
    if (dumps(options_.dump_after, name)) {
      *options_.dump << "// after " << name << "\n" << write_graph(graph.graph());
    }
    return report;
  }

  const OpRegistry& registry_ops() const {
    return options_.propagate.registry ? *options_.propagate.registry : OpRegistry::instance();
  }

  // The invariants every pass keeps; a PassError naming the node otherwise.
  void check(const std::string& name, bool may_add_guards, MutableGraph& graph,
             const std::set<std::string>& symbols, size_t guards_before) {
    const Graph g = graph.graph();
    if (auto problem = verify(g))
      throw PassError(name, "", "the graph no longer verifies: " + *problem);

    std::set<std::string> old_symbols;
    for (const SymbolInfo& s : env_.symbols()) old_symbols.insert(s.name);
    const ShapeEnv::Checkpoint before = env_.checkpoint();
    const size_t guards_mid = env_.guards().size();
    Propagation q = propagate(g, env_, options_.propagate);
    if (!q.ok()) {
      env_.rollback(before);
      throw PassError(name, "", "its graph no longer type-checks: " + q.error);
    }
    MetaComparer comparer(env_, old_symbols);
    const std::vector<NodeId> order = graph.order();
    for (size_t i = 0; i < order.size(); ++i) {
      std::string diff = comparer.compare(graph.value(order[i]), q.values[i]);
      if (!diff.empty()) {
        env_.rollback(before);
        throw PassError(name, g.nodes[i].name, "left " + diff);
      }
    }
    const bool rederive_guarded = env_.guards().size() > guards_mid;
    if (!may_add_guards && env_.guards().size() > guards_before) {
      const Guard& first = env_.guards()[guards_before];
      std::string what =
          first.cond.str() + (first.where.node.empty() ? "" : " (" + first.where.str() + ")");
      env_.rollback(before);
      throw PassError(name, first.where.node, "added a guard it did not declare: " + what);
    }
    if (!rederive_guarded) env_.rollback(before);

    std::set<std::string> kept;
    for (const Node& n : g.nodes) {
      if ((n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) || !n.shape) continue;
      for (const Expr& e : *n.shape)
        for (const std::string& s : env_.substitute(e).free_symbols()) kept.insert(s);
    }
    for (const std::string& s : symbols) {
      Expr now = env_.substitute(Expr::symbol(s));
      if (now.is_constant()) {
        throw PassError(name, "", "specialized the symbol " + s + " to " + now.str());
      }
      for (const std::string& t : now.free_symbols()) {
        if (!kept.count(t)) {
          throw PassError(name, "", "lost the symbol " + t + ": no input is sized by it any more");
        }
      }
    }
  }

  const PassRegistry& registry_;
  const PassManagerOptions& options_;
  ShapeEnv& env_;
};

}  // namespace

LowerResult PassManager::run(const Graph& graph, ShapeEnv& env) const {
  try {
    return Run(registry_, options_, env).run(graph, specs_);
  } catch (const std::exception& e) {
    LowerResult r;
    r.graph = graph;
    r.error = e.what();
    return r;
  }
}

}  // namespace symshape
