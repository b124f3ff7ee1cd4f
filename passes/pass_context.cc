// PassContext, PassRegistry and the pass-list parser: what every pass and the manager share.
#include <algorithm>

#include "symshape/passes.h"

namespace symshape {

namespace {

std::string node_label(std::string_view node) {
  return node.empty() ? std::string() : "node " + std::string(node) + ": ";
}

}  // namespace

PassError::PassError(std::string pass, std::string node, const std::string& message)
    : Error("pass " + pass + ": " + node_label(node) + message),
      pass_(std::move(pass)),
      node_(std::move(node)) {}

bool PassStats::changed() const { return inserted + erased + rewritten > 0; }

// ---- PassContext ----

PassContext::PassContext(std::string pass, MutableGraph& graph, ShapeEnv& env,
                         const OpRegistry& ops, std::map<std::string, std::string> options,
                         PropagateOptions propagate_options)
    : pass_(std::move(pass)),
      graph_(graph),
      env_(env),
      ops_(ops),
      options_(std::move(options)),
      propagate_options_(std::move(propagate_options)) {}

const std::string& PassContext::option(std::string_view name) const {
  auto it = options_.find(std::string(name));
  if (it == options_.end()) {
    throw PassError(pass_, "",
                    "asked for option '" + std::string(name) + "', which it does not declare");
  }
  return it->second;
}

bool PassContext::flag(std::string_view name) const {
  const std::string& v = option(name);
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  bad_option(name, "takes true or false, got '" + v + "'");
}

void PassContext::bad_option(std::string_view option, const std::string& message) const {
  throw PassOptionError(pass_, "", "option " + std::string(option) + ": " + message);
}

void PassContext::fail(NodeId node, const std::string& message) const {
  throw PassError(pass_, graph_.alive(node) ? graph_.node(node).name : "", message);
}

ValueLookup PassContext::values() const {
  return [this](std::string_view name) -> const Value* {
    NodeId id = graph_.find(name);
    return id == kNoNode ? nullptr : &graph_.value(id);
  };
}

Value PassContext::run_rule(const Node& node) {
  const ShapeRule* rule = ops_.find(node.target);
  if (!rule) throw PassError(pass_, node.name, "unknown op '" + node.target + "' (no shape rule)");
  OpContext ctx(env_, node, values());
  try {
    return (*rule)(ctx);
  } catch (const PassError&) {
    throw;
  } catch (const std::exception& e) {
    throw PassError(pass_, node.name, e.what());
  }
}

NodeId PassContext::create_call(NodeId pos, std::string target, std::vector<Arg> args,
                                std::vector<std::pair<std::string, Arg>> kwargs, std::string name) {
  Node n;
  n.op = NodeOp::CallFunction;
  if (name.empty()) {
    TargetName parts = parse_target(target);
    size_t dot = parts.packet.rfind('.');
    name = std::string(dot == std::string_view::npos ? parts.packet : parts.packet.substr(dot + 1));
  }
  n.name = graph_.fresh_name(name);
  n.target = std::move(target);
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  Value v = run_rule(n);
  try {
    return graph_.insert_before(pos, std::move(n), std::move(v));
  } catch (const PassError&) {
    throw;
  } catch (const Error& e) {
    throw PassError(pass_, "", e.what());
  }
}

void PassContext::rewrite_call(NodeId id, std::vector<Arg> args,
                               std::vector<std::pair<std::string, Arg>> kwargs,
                               std::string target) {
  Node candidate = graph_.node(id);
  candidate.args = args;
  candidate.kwargs = kwargs;
  if (!target.empty()) candidate.target = target;
  Value v = run_rule(candidate);
  try {
    graph_.set_args(id, std::move(args), std::move(kwargs), std::move(target));
  } catch (const Error& e) {
    throw PassError(pass_, graph_.node(id).name, e.what());
  }
  graph_.set_value(id, std::move(v));
}

Value PassContext::derive(NodeId id) { return run_rule(graph_.node(id)); }

void PassContext::rederive_all() {
  for (NodeId id = graph_.front(); id != kNoNode; id = graph_.next(id)) {
    const Node& n = graph_.node(id);
    if (n.op == NodeOp::CallFunction) {
      graph_.set_value(id, run_rule(n));
    } else if (n.op == NodeOp::Output) {
      OpContext ctx(env_, n, values());
      graph_.set_value(id, ctx.value_of(n.args[0]));
    }
  }
}

Truth PassContext::known(const Cond& c) { return env_.known(env_.wrap(c)); }

bool PassContext::same_meta(const TensorMeta& a, const TensorMeta& b) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  std::vector<Expr> sa = a.strides.empty() ? TensorMeta::contiguous_strides(a.sizes) : a.strides;
  std::vector<Expr> sb = b.strides.empty() ? TensorMeta::contiguous_strides(b.sizes) : b.strides;
  for (size_t d = 0; d < a.rank(); ++d) {
    if (!provably(a.sizes[d] == b.sizes[d])) return false;
    if (!provably(sa[d] == sb[d])) return false;
  }
  return true;
}

// ---- PassRegistry ----

void PassRegistry::add(std::unique_ptr<Pass> pass) {
  std::string name(pass->name());
  passes_[name] = std::shared_ptr<const Pass>(std::move(pass));
}

void PassRegistry::add_pipeline(std::string name, std::string description,
                                std::vector<std::string> passes) {
  for (const std::string& p : passes) {
    if (!find(p)) throw Error("pipeline " + name + " names an unknown pass '" + p + "'");
  }
  std::string key = name;
  pipelines_[key] = Pipeline{std::move(name), std::move(description), std::move(passes)};
}

const Pass* PassRegistry::find(std::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : it->second.get();
}

std::vector<const Pass*> PassRegistry::passes() const {
  std::vector<const Pass*> out;
  for (const auto& [name, p] : passes_) out.push_back(p.get());
  return out;
}

const PassRegistry::Pipeline* PassRegistry::pipeline(std::string_view name) const {
  auto it = pipelines_.find(name);
  return it == pipelines_.end() ? nullptr : &it->second;
}

std::vector<const PassRegistry::Pipeline*> PassRegistry::pipelines() const {
  std::vector<const Pipeline*> out;
  for (const auto& [name, p] : pipelines_) out.push_back(&p);
  return out;
}

const PassRegistry& PassRegistry::standard() {
  static const PassRegistry* registry = [] {
    auto* r = new PassRegistry();
    register_cleanup_passes(*r);
    return r;
  }();
  return *registry;
}

// ---- parsing `a,b{k=v;k2=v2},c` ----

namespace {

std::string known_passes(const PassRegistry& registry) {
  std::string out;
  for (const Pass* p : registry.passes()) out += (out.empty() ? "" : ", ") + std::string(p->name());
  return out;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

}  // namespace

Expected<std::vector<PassSpec>> parse_pass_list(std::string_view text,
                                                const PassRegistry& registry) {
  using Result = Expected<std::vector<PassSpec>>;
  std::vector<PassSpec> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = i;
    while (end < text.size() && text[end] != ',' && text[end] != '{') ++end;
    PassSpec spec;
    spec.name = trim(text.substr(i, end - i));
    if (spec.name.empty()) {
      return Result::failure("empty pass name at position " + std::to_string(i + 1) +
                             " of the pass list");
    }
    const Pass* pass = registry.find(spec.name);
    if (!pass) {
      return Result::failure("unknown pass '" + spec.name + "' (known: " + known_passes(registry) +
                             ")");
    }
    if (end < text.size() && text[end] == '{') {
      size_t close = text.find('}', end);
      if (close == std::string_view::npos) {
        return Result::failure("pass '" + spec.name + "': unterminated '{' in the pass list");
      }
      std::string_view body = text.substr(end + 1, close - end - 1);
      size_t j = 0;
      while (j <= body.size() && !body.empty()) {
        size_t semi = body.find(';', j);
        if (semi == std::string_view::npos) semi = body.size();
        std::string item = trim(body.substr(j, semi - j));
        size_t eq = item.find('=');
        if (eq == std::string::npos) {
          return Result::failure("pass '" + spec.name + "': option '" + item +
                                 "' needs the form key=value");
        }
        std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
        auto declared = pass->options();
        auto it = std::find_if(declared.begin(), declared.end(),
                               [&](const PassOption& o) { return o.name == key; });
        if (it == declared.end()) {
          std::string names;
          for (const PassOption& o : declared) names += (names.empty() ? "" : ", ") + o.name;
          return Result::failure(
              "pass '" + spec.name + "' has no option '" + key + "'" +
              (names.empty() ? " (it takes none)" : " (options: " + names + ")"));
        }
        spec.options[key] = value;
        j = semi + 1;
      }
      end = close + 1;
      while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
      if (end < text.size() && text[end] != ',') {
        return Result::failure("pass '" + spec.name + "': expected ',' after its options");
      }
    }
    out.push_back(std::move(spec));
    if (end >= text.size()) break;
    i = end + 1;
  }
  return out;
}

}  // namespace symshape
