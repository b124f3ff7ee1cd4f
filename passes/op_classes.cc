// Op classes for the passes.
#include <algorithm>

#include "passes/op_classes.h"
#include "symshape/ir/float_text.h"

namespace symshape::passes {

std::string_view op_name(std::string_view target) {
  std::string_view packet = parse_target(target).packet;
  size_t dot = packet.rfind('.');
  return dot == std::string_view::npos ? packet : packet.substr(dot + 1);
}

bool is_aten(std::string_view target, std::initializer_list<std::string_view> names) {
  std::string_view packet = parse_target(target).packet;
  if (!packet.starts_with("aten.")) return false;
  std::string_view op = packet.substr(5);
  return std::find(names.begin(), names.end(), op) != names.end();
}

bool writes_in_place(const Node& n) {
  if (n.op != NodeOp::CallFunction) return false;
  return parse_target(n.target).in_place || n.kwarg("out") != nullptr;
}

bool is_collective(const Node& n) {
  return n.op == NodeOp::CallFunction && n.target.find("c10d") != std::string::npos;
}

bool is_assert(const Node& n) {
  if (n.op != NodeOp::CallFunction) return false;
  std::string_view op = op_name(n.target);
  return op.starts_with("_assert") || op.starts_with("_functional_assert") ||
         op.starts_with("sym_constrain_range");
}

bool is_random(const Node& n) {
  if (n.op != NodeOp::CallFunction) return false;
  static constexpr std::string_view kRandom[] = {"rand",           "randn",
                                                 "randint",        "randperm",
                                                 "rand_like",      "randn_like",
                                                 "randint_like",   "bernoulli",
                                                 "multinomial",    "normal",
                                                 "uniform",        "exponential",
                                                 "poisson",        "dropout",
                                                 "native_dropout", "feature_dropout",
                                                 "alpha_dropout",  "feature_alpha_dropout",
                                                 "random",         "cauchy",
                                                 "log_normal",     "geometric"};
  std::string_view op = op_name(n.target);
  if (parse_target(n.target).in_place) op = op.substr(0, op.size() - 1);
  return std::find(std::begin(kRandom), std::end(kRandom), op) != std::end(kRandom);
}

bool has_side_effects(const Node& n) {
  return n.op != NodeOp::CallFunction || writes_in_place(n) || is_collective(n) || is_assert(n);
}

bool graph_mutates(const MutableGraph& g) {
  for (NodeId id = g.front(); id != kNoNode; id = g.next(id)) {
    if (writes_in_place(g.node(id))) return true;
  }
  return false;
}

namespace {
void collect_symbols(const Value& v, std::vector<std::string>& out) {
  switch (v.kind) {
    case Value::Kind::Tensor:
      for (const Expr& e : v.tensor.sizes)
        for (auto& s : e.free_symbols()) out.push_back(s);
      break;
    case Value::Kind::Int:
      for (auto& s : v.integer.free_symbols()) out.push_back(s);
      break;
    case Value::Kind::List:
      for (const Value& item : v.items) collect_symbols(item, out);
      break;
    default: break;
  }
}
}  // namespace

bool makes_unbacked(const MutableGraph& g, const ShapeEnv& env, NodeId id) {
  std::vector<std::string> mine, theirs;
  collect_symbols(g.value(id), mine);
  for (NodeId input : g.inputs(id)) collect_symbols(g.value(input), theirs);
  for (const std::string& s : mine) {
    if (!env.has_symbol(s) || env.symbol(s).kind != SymbolKind::Unbacked) continue;
    if (std::find(theirs.begin(), theirs.end(), s) == theirs.end()) return true;
  }
  return false;
}

size_t count_onnx_ops(const MutableGraph& g) {
  size_t n = 0;
  for (NodeId id = g.front(); id != kNoNode; id = g.next(id)) {
    const Node& node = g.node(id);
    n += node.op == NodeOp::CallFunction && node.target.starts_with("onnx.");
  }
  return n;
}

void report_onnx_ops(PassContext& ctx) {
  if (size_t n = count_onnx_ops(ctx.graph()))
    ctx.count("ONNX ops left as they are (the pass rewrites ATen ops)", n);
}

void append_arg_key(const Arg& a, std::string& out) {
  out += std::to_string(static_cast<int>(a.kind));
  out += ':';
  switch (a.kind) {
    case Arg::Kind::Bool: out += a.boolean ? '1' : '0'; break;
    case Arg::Kind::Int: out += a.integer.str(); break;
    case Arg::Kind::Float: out += detail::float_text(a.real); break;
    case Arg::Kind::DType: out += to_string(a.dtype); break;
    case Arg::Kind::List:
      out += '[';
      for (const Arg& item : a.items) {
        append_arg_key(item, out);
        out += ',';
      }
      out += ']';
      break;
    default: out += a.text; break;  // strings, devices, layouts, formats, node names
  }
}

bool forward(PassContext& ctx, NodeId node, NodeId replacement) {
  MutableGraph& g = ctx.graph();
  for (NodeId u : g.users(node)) {
    if (!g.before(replacement, u)) return false;
  }
  g.replace_all_uses(node, replacement);
  g.erase(node);
  return true;
}

}  // namespace symshape::passes
