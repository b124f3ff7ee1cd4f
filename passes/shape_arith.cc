// Passes on the graph's symbolic scalars: constant folding of shape arithmetic, removal of
// asserts the ShapeEnv proves, negative slice ends made explicit, and sym_min(s, int64 max).
#include <limits>
#include <set>

#include "passes/families.h"
#include "passes/op_classes.h"

namespace symshape::passes {

namespace {

// The nodes an assert's condition is computed from: rewriting them could turn the condition
// into one its own fact proves, so the folding passes leave them alone.
std::set<NodeId> assert_cones(const MutableGraph& g) {
  std::set<NodeId> cone;
  std::vector<NodeId> work;
  for (NodeId id = g.front(); id != kNoNode; id = g.next(id)) {
    if (is_assert(g.node(id))) work.push_back(id);
  }
  while (!work.empty()) {
    NodeId id = work.back();
    work.pop_back();
    for (NodeId input : g.inputs(id)) {
      if (cone.insert(input).second) work.push_back(input);
    }
  }
  return cone;
}

// sym_size, sym_numel and operator chains whose value the ShapeEnv knows become constants in
// their users' arguments; the rest stays symbolic.
void fold_shape_arith(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  const std::set<NodeId> cone = assert_cones(g);
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    const Value& v = g.value(id);
    if (n.op != NodeOp::CallFunction || v.kind != Value::Kind::Int || cone.count(id)) continue;
    if (has_side_effects(n) || !g.has_users(id)) continue;
    Expr folded = ctx.env().simplify(v.integer);
    if (!folded.is_constant()) continue;
    g.replace_all_uses(id, Arg::of_int(folded));
    g.erase(id);
    ctx.count("scalars folded");
  }
}

// Asserts (`_assert_scalar`) the ShapeEnv proves without them are removed; one it proves false
// is an error. The proof runs in a fresh ShapeEnv over the graph without its asserts, since the
// env that propagated the graph learned each assert as a fact and would prove it by itself.
void remove_assert(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  std::vector<NodeId> asserts;
  for (NodeId id = g.front(); id != kNoNode; id = g.next(id)) {
    const Node& n = g.node(id);
    if (is_aten(n.target, {"_assert_scalar"}) && !n.args.empty() && !g.has_users(id))
      asserts.push_back(id);
  }
  if (asserts.empty()) return;
  Graph without;
  {
    Graph full = g.graph();
    without.dims = full.dims;
    without.extra = full.extra;
    for (Node& n : full.nodes) {
      if (!is_assert(n)) without.nodes.push_back(std::move(n));
    }
  }
  ShapeEnv fresh(ctx.env().options());
  Propagation p = propagate(without, fresh, ctx.propagate_options());
  if (!p.ok()) return;  // the asserts are what makes the graph type-check: keep them all
  for (NodeId id : asserts) {
    const Arg& a = g.node(id).args[0];
    Value v;
    if (a.kind == Arg::Kind::Node) {
      size_t i = without.index_of(a.text);
      if (i >= p.values.size()) continue;
      v = p.values[i];
    } else if (a.kind == Arg::Kind::Bool) {
      v = Value::of_bool(a.boolean);
    } else {
      continue;
    }
    if (v.kind != Value::Kind::Bool) continue;
    Truth t = v.truth
                  ? (*v.truth ? Truth::True : Truth::False)
                  : (v.condition.is_true() ? Truth::Unknown : fresh.known(fresh.wrap(v.condition)));
    if (t == Truth::False) ctx.fail(id, "the assert " + v.condition.str() + " can never hold");
    if (t != Truth::True) continue;
    g.erase(id);
    ctx.count("asserts removed");
  }
}

// A slice whose start or end is a negative constant -k on a symbolic dim gets the end written as
// `sym_size(x, d) - k`, computed in the graph, where the ShapeEnv proves the dim is at least k
// (else -k would wrap differently from size - k, and the slice is left alone).
void normalize_negative_slice(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  bool normalized = false;
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (!is_aten(n.target, {"slice"}) || n.args.empty()) continue;
    NodeId self = g.referent(n.args[0]);
    if (self == kNoNode || !g.value(self).is_tensor()) continue;
    const TensorMeta& t = g.value(self).tensor;
    std::vector<Arg> args = n.args;
    std::vector<std::pair<std::string, Arg>> kwargs = n.kwargs;
    auto find = [&](size_t pos, const char* key) -> Arg* {
      for (auto& [k, a] : kwargs)
        if (k == key) return &a;
      return pos < args.size() ? &args[pos] : nullptr;
    };
    int64_t dim = 0;
    if (Arg* d = find(1, "dim")) {
      if (d->kind != Arg::Kind::Int || !d->integer.as_int64()) continue;
      dim = *d->integer.as_int64();
    }
    const int64_t rank = static_cast<int64_t>(t.rank());
    if (dim < -rank || dim >= rank || rank == 0) continue;
    if (dim < 0) dim += rank;
    const Expr& size = t.sizes[static_cast<size_t>(dim)];
    if (size.is_constant()) continue;
    bool changed = false;
    NodeId size_node = kNoNode;
    for (auto [pos, key] : {std::pair<size_t, const char*>{2, "start"}, {3, "end"}}) {
      Arg* bound = find(pos, key);
      if (!bound || bound->kind != Arg::Kind::Int) continue;
      std::optional<int64_t> k = bound->integer.as_int64();
      if (!k || *k >= 0 || *k == std::numeric_limits<int64_t>::min()) continue;
      if (!ctx.provably(size >= Expr(-*k))) continue;
      if (size_node == kNoNode) {
        size_node = ctx.create_call(id, "aten.sym_size.int",
                                    {Arg::node(g.node(self).name), Arg::of_int(Expr(dim))}, {},
                                    g.node(self).name + "_size");
      }
      NodeId sub = ctx.create_call(id, "operator.sub",
                                   {Arg::node(g.node(size_node).name), Arg::of_int(Expr(-*k))}, {},
                                   std::string(key));
      *bound = Arg::node(g.node(sub).name);
      changed = true;
    }
    if (!changed) continue;
    ctx.rewrite_call(id, std::move(args), std::move(kwargs));
    ctx.count("slices normalized");
    normalized = true;
  }
  // The rule sizes `x[size - 2 : size - 1]` as 1 where it sized `x[-2:-1]` as
  // `size - max(0, size - 2) - 1`, which the ShapeEnv need not prove equal: the users' metadata
  // is derived again from the exact one.
  if (normalized) ctx.rederive_all();
}

// `sym_min(s, 2**63 - 1)` is s: every size is an int64 at run time.
void eliminate_sym_min_int64_max(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  const Expr int64_max(Int(std::numeric_limits<int64_t>::max()));
  bool changed = false;
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (n.target.rfind("torch.sym_min", 0) != 0 || n.args.size() != 2) continue;
    for (size_t k = 0; k < 2; ++k) {
      const Arg& bound = n.args[k];
      const Arg other = n.args[1 - k];
      if (bound.kind != Arg::Kind::Int || !bound.integer.identical(int64_max)) continue;
      if (other.kind == Arg::Kind::Node) {
        NodeId o = g.referent(other);
        if (o == kNoNode || !forward(ctx, id, o)) break;
      } else if (other.kind == Arg::Kind::Int) {
        g.replace_all_uses(id, other);
        g.erase(id);
      } else {
        break;
      }
      ctx.count("sym_min removed");
      changed = true;
      break;
    }
  }
  // Users computed min(s, 2**63 - 1), which the ShapeEnv cannot reduce to s (it does not bound
  // sizes by int64): their metadata is derived again from s.
  if (changed) ctx.rederive_all();
}

}  // namespace

void register_shape_passes(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"fold-shape-arith",
                         "replace sym_size and operator chains whose value the ShapeEnv knows by "
                         "constants"},
      fold_shape_arith));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"remove-assert",
                         "remove asserts the ShapeEnv proves without them; a provably false one "
                         "is an error"},
      remove_assert));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"normalize-negative-slice",
                         "write a negative slice bound -k on a symbolic dim as sym_size - k"},
      normalize_negative_slice));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"eliminate-sym-min-int64-max", "replace sym_min(s, 2**63 - 1) by s"},
      eliminate_sym_min_int64_max));
}

}  // namespace symshape::passes
