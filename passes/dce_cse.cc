// dce: nodes nobody uses; cse: a node that computes what an earlier one already did.
#include <unordered_map>

#include "passes/alias.h"
#include "passes/families.h"
#include "passes/op_classes.h"

namespace symshape::passes {

namespace {

// Erases, from the last node back, every call node without users or side effects, so that a
// chain of dead nodes goes in one walk.
void dce(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  for (NodeId id = g.output(); id != kNoNode;) {
    NodeId prev = g.prev(id);
    const Node& n = g.node(id);
    if (n.op == NodeOp::CallFunction && !g.has_users(id) && !has_side_effects(n)) {
      g.erase(id);
      ctx.count("dead nodes removed");
    }
    id = prev;
  }
}

// Whether a value is or holds a tensor: a buffer an in-place op could write.
bool holds_tensor(const Value& v) {
  if (v.is_tensor()) return true;
  for (const Value& item : v.items) {
    if (holds_tensor(item)) return true;
  }
  return false;
}

// Merges nodes with the same target, arguments and keyword arguments. Nodes with side effects,
// random ones and ones that make a data-dependent symbol are never merged, and no merge reaches
// across a collective or an assert. In-place writes are tracked by the alias analysis: each
// tensor operand is keyed by the version of its storage (the writes into it so far), so a node
// never merges with one that read the operand before a write to it; and two tensors are merged
// only when neither storage is written after the first of them (then one buffer would see the
// other's writes).
void cse(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  AliasAnalysis aliases(g);
  std::unordered_map<std::string, NodeId> seen;
  size_t epoch = 0;
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (has_side_effects(n)) {
      if (n.op == NodeOp::CallFunction && !writes_in_place(n)) ++epoch;
      continue;
    }
    if (is_random(n) || makes_unbacked(g, ctx.env(), id)) continue;
    const size_t at = aliases.position(id);
    const bool tensor = holds_tensor(g.value(id));
    if (tensor && aliases.written_between(id, at, SIZE_MAX)) continue;
    std::string key = std::to_string(epoch) + "|" + n.target + "|";
    for (const Arg& a : n.args) {
      append_arg_key(a, key);
      key += ';';
    }
    key += '|';
    for (const auto& [k, a] : n.kwargs) {
      key += k + '=';
      append_arg_key(a, key);
      key += ';';
    }
    for (NodeId in : g.inputs(id)) {
      if (aliases.storage(in) == kNoNode) continue;
      key += '#' + std::to_string(aliases.version(in, at));
    }
    auto [it, fresh] = seen.emplace(key, id);
    if (fresh) continue;
    const NodeId first = it->second;
    if (tensor && aliases.written_between(first, aliases.position(first), SIZE_MAX)) continue;
    if (forward(ctx, id, first)) {
      ctx.count("nodes merged");
      aliases.merge(first, id);
    }
  }
}

}  // namespace

void register_dce_cse(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"dce",
                         "remove nodes whose results nobody uses (collectives, in-place writes "
                         "and asserts stay)"},
      dce));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"cse",
                         "merge nodes with the same target and arguments (never random ones, nor "
                         "across side effects)"},
      cse));
}

}  // namespace symshape::passes
