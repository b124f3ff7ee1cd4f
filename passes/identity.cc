// The passes that remove a node whose result is its input: dropout in inference, detach, alias,
// clone and the other copies, and views or casts that provably change nothing.
#include <optional>

#include "passes/alias.h"
#include "passes/families.h"
#include "passes/op_classes.h"

namespace symshape::passes {

namespace {

// The node's first argument when it names a node; kNoNode otherwise.
NodeId self_input(const MutableGraph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.args.empty()) return kNoNode;
  return g.referent(n.args[0]);
}

bool has_device_argument(const Node& n) {
  for (const Arg& a : n.args)
    if (a.kind == Arg::Kind::Device) return true;
  for (const auto& [k, a] : n.kwargs)
    if (a.kind == Arg::Kind::Device || k == "device") return true;
  return false;
}

// Whether a copy may go: the alias analysis says neither side is written while the other is
// still read (else the copy is what keeps two values apart), and it does not hand a graph input
// straight to the output (backends want a fresh buffer there; repair-input-as-output would only
// put the copy back).
bool copy_removable(PassContext& ctx, NodeId copy, NodeId source, AliasAnalysis& aliases) {
  if (!aliases.copy_removable(copy, source)) return false;
  MutableGraph& g = ctx.graph();
  if (g.node(source).op != NodeOp::Placeholder) return true;
  for (NodeId u : g.users(copy)) {
    if (g.node(u).op == NodeOp::Output) return false;
  }
  return true;
}

// Removes the nodes of `ops` whose value is their input's. `copies`: the op makes a new buffer
// (clone), so copy_removable must also hold. `alias_only`: the op only re-labels its input
// (detach), so its result may go even where the rules give it other strides than its input's;
// the metadata downstream is then re-derived.
size_t remove_identities(PassContext& ctx, std::initializer_list<std::string_view> ops, bool copies,
                         bool alias_only) {
  MutableGraph& g = ctx.graph();
  std::optional<AliasAnalysis> aliases;
  if (copies) aliases.emplace(g);
  size_t removed = 0;
  bool rederive = false;
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (n.op != NodeOp::CallFunction || !is_aten(n.target, ops) || writes_in_place(n)) continue;
    if (has_device_argument(n)) continue;
    NodeId source = self_input(g, id);
    if (source == kNoNode || !g.value(id).is_tensor() || !g.value(source).is_tensor()) continue;
    const TensorMeta& in = g.value(source).tensor;
    const TensorMeta& out = g.value(id).tensor;
    bool same = ctx.same_meta(in, out);
    if (!same && alias_only && in.dtype == out.dtype && in.rank() == out.rank()) {
      same = true;
      for (size_t d = 0; d < in.rank(); ++d)
        same = same && ctx.provably(in.sizes[d] == out.sizes[d]);
      rederive = rederive || same;
    }
    if (!same) continue;
    if (copies && !copy_removable(ctx, id, source, *aliases)) continue;
    if (forward(ctx, id, source)) {
      ++removed;
      if (aliases) aliases->merge(source, id);
    }
  }
  if (rederive) ctx.rederive_all();
  return removed;
}

void remove_dropout(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  for (NodeId id : g.order()) {
    if (!g.alive(id)) continue;  // a getitem of a native_dropout removed before it
    const Node& n = g.node(id);
    if (n.op != NodeOp::CallFunction || writes_in_place(n)) continue;
    NodeId input = self_input(g, id);
    if (input == kNoNode) continue;
    if (is_aten(n.target,
                {"dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"})) {
      if (forward(ctx, id, input)) ctx.count("dropouts removed");
      continue;
    }
    if (!is_aten(n.target, {"native_dropout"})) continue;
    // native_dropout returns (output, mask): the output is the input, the mask all true.
    bool all_unpacked = true;
    for (NodeId u : g.users(id)) {
      const Node& user = g.node(u);
      all_unpacked = all_unpacked && op_name(user.target) == "getitem" && user.args.size() == 2 &&
                     user.args[0].kind == Arg::Kind::Node && user.args[1].kind == Arg::Kind::Int;
    }
    if (!all_unpacked) continue;
    for (NodeId u : g.users(id)) {
      const std::optional<int64_t> index = g.node(u).args[1].integer.as_int64();
      if (index == 0 || index == -2) {
        forward(ctx, u, input);
      } else {
        Arg dtype;
        dtype.kind = Arg::Kind::DType;
        dtype.dtype = DType::Bool;
        NodeId ones = ctx.create_call(u, "aten.ones_like.default", {Arg::node(g.node(input).name)},
                                      {{"dtype", dtype}}, g.node(u).name + "_ones");
        forward(ctx, u, ones);
      }
    }
    g.erase(id);
    ctx.count("dropouts removed");
  }
}

void count_removed(PassContext& ctx, size_t n) {
  if (n) ctx.count("nodes removed", n);
}

void remove_noop(PassContext& ctx) {
  // Views and reshapes first: they alias their input, so nothing can tell them apart from it.
  size_t views = remove_identities(ctx,
                                   {"view", "_unsafe_view", "_reshape_alias", "reshape", "expand",
                                    "expand_as", "slice", "permute", "transpose", "flatten",
                                    "unflatten", "squeeze", "narrow", "view_as", "reshape_as"},
                                   false, false);
  // Copies (or ops that may copy): casts to the same dtype, `repeat` by ones.
  size_t copies = remove_identities(ctx, {"_to_copy", "to", "type_as", "repeat"}, true, false);
  if (views + copies) ctx.count("no-ops removed", views + copies);
}

}  // namespace

void register_identity_passes(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-dropout",
                         "inference: dropout (and native_dropout's mask) become the identity "
                         "(and all true)",
                         {},
                         true},
      remove_dropout));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-detach", "remove detach (it changes no value)"},
      [](PassContext& c) { count_removed(c, remove_identities(c, {"detach"}, false, true)); }));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-alias", "remove alias (it changes no value)"},
      [](PassContext& c) { count_removed(c, remove_identities(c, {"alias"}, false, true)); }));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "remove-clone",
          "remove clone where no in-place write could tell the copy apart (alias analysis)"},
      [](PassContext& c) { count_removed(c, remove_identities(c, {"clone"}, true, false)); }));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-contiguous",
                         "remove contiguous on a tensor that provably is contiguous already"},
      [](PassContext& c) { count_removed(c, remove_identities(c, {"contiguous"}, true, false)); }));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-lift-fresh-copy", "remove lift_fresh_copy and lift_fresh"},
      [](PassContext& c) {
        count_removed(c, remove_identities(c, {"lift_fresh_copy", "lift_fresh"}, true, false));
      }));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-noop",
                         "remove views, reshapes, slices, permutes and casts whose result provably "
                         "is their input (no guard)"},
      remove_noop));
}

}  // namespace symshape::passes
