// Passes on the graph's structure: transpose and permute pairs that cancel, view chains, getitem
// of a tuple written in the graph, and graph inputs returned as outputs.
#include <numeric>

#include "passes/families.h"
#include "passes/op_classes.h"

namespace symshape::passes {

namespace {

// The permutation a t / transpose / permute node applies (out dim i is input dim p[i]); nullopt
// when the node is none of them or its dims are not constants in range.
std::optional<std::vector<size_t>> permutation_of(const MutableGraph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.op != NodeOp::CallFunction || n.args.empty()) return std::nullopt;
  NodeId self = g.referent(n.args[0]);
  if (self == kNoNode || !g.value(self).is_tensor()) return std::nullopt;
  const size_t rank = g.value(self).tensor.rank();
  std::vector<size_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  auto dim = [&](const Arg* a) -> std::optional<size_t> {
    if (!a || a->kind != Arg::Kind::Int) return std::nullopt;
    std::optional<int64_t> d = a->integer.as_int64();
    const int64_t r = static_cast<int64_t>(rank);
    if (!d || *d < -r || *d >= r) return std::nullopt;
    return static_cast<size_t>(*d < 0 ? *d + r : *d);
  };
  auto arg = [&](size_t pos, const char* key) -> const Arg* {
    if (const Arg* a = n.kwarg(key)) return a;
    return pos < n.args.size() ? &n.args[pos] : nullptr;
  };
  if (is_aten(n.target, {"t"})) {
    if (rank == 2) std::swap(p[0], p[1]);
    return p;
  }
  if (is_aten(n.target, {"transpose", "swapaxes", "swapdims"})) {
    auto a = dim(arg(1, "dim0")), b = dim(arg(2, "dim1"));
    if (!a || !b) return std::nullopt;
    std::swap(p[*a], p[*b]);
    return p;
  }
  if (is_aten(n.target, {"permute"})) {
    const Arg* dims = arg(1, "dims");
    if (!dims || dims->kind != Arg::Kind::List || dims->items.size() != rank) return std::nullopt;
    std::vector<bool> used(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      auto d = dim(&dims->items[i]);
      if (!d || used[*d]) return std::nullopt;
      used[*d] = true;
      p[i] = *d;
    }
    return p;
  }
  return std::nullopt;
}

// t(t(x)), transpose(transpose(x, a, b), a, b) and permute pairs that compose to the identity:
// the outer node's users take x.
void fold_transpose_pairs(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  for (NodeId id : g.order()) {
    if (!g.alive(id)) continue;
    auto outer = permutation_of(g, id);
    if (!outer) continue;
    NodeId inner = g.referent(g.node(id).args[0]);
    auto first = permutation_of(g, inner);
    if (!first || first->size() != outer->size()) continue;
    bool identity = true;
    for (size_t i = 0; i < outer->size(); ++i) identity = identity && (*first)[(*outer)[i]] == i;
    if (!identity) continue;
    NodeId x = g.referent(g.node(inner).args[0]);
    if (!ctx.same_meta(g.value(x).tensor, g.value(id).tensor)) continue;
    if (!forward(ctx, id, x)) continue;
    if (!g.has_users(inner)) g.erase(inner);
    ctx.count("pairs folded");
  }
}

// view(view(x, a), b) -> view(x, b), and the same for reshape, when x is contiguous (then any
// shape with its number of elements is a view of it).
void fold_view_chains(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  for (NodeId id : g.order()) {
    if (!g.alive(id)) continue;
    const Node& n = g.node(id);
    const bool is_view = is_aten(n.target, {"view", "_unsafe_view"});
    // A shape, not a dtype: view.dtype reinterprets the elements and is no reshape.
    auto takes_shape = [](const Node& v) {
      return v.args.size() >= 2 && v.args[1].kind == Arg::Kind::List;
    };
    if ((!is_view && !is_aten(n.target, {"reshape"})) || !takes_shape(n)) continue;
    NodeId inner = g.referent(n.args[0]);
    if (inner == kNoNode) continue;
    const Node& m = g.node(inner);
    if (!(is_view ? is_aten(m.target, {"view", "_unsafe_view"})
                  : is_aten(m.target, {"reshape", "view"})) ||
        !takes_shape(m))
      continue;
    NodeId x = g.referent(m.args[0]);
    if (x == kNoNode || !g.value(x).is_tensor()) continue;
    const TensorMeta& t = g.value(x).tensor;
    TensorMeta contiguous = t;
    contiguous.strides = TensorMeta::contiguous_strides(t.sizes);
    if (!ctx.same_meta(t, contiguous)) continue;
    std::vector<Arg> args = n.args;
    args[0] = Arg::node(g.node(x).name);
    ctx.rewrite_call(id, std::move(args), n.kwargs);
    if (!g.has_users(inner)) g.erase(inner);
    ctx.count("views folded");
  }
}

// getitem of a tuple or list written in the graph (`getitem([%a, %b], 1)`) is its item.
void lower_tuples(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (n.op != NodeOp::CallFunction || op_name(n.target) != "getitem" || n.args.size() != 2)
      continue;
    const Arg& seq = n.args[0];
    const Arg& index = n.args[1];
    if (seq.kind != Arg::Kind::List || index.kind != Arg::Kind::Int) continue;
    std::optional<int64_t> i = index.integer.as_int64();
    const int64_t size = static_cast<int64_t>(seq.items.size());
    if (!i || *i < -size || *i >= size) continue;
    const Arg item = seq.items[static_cast<size_t>(*i < 0 ? *i + size : *i)];
    if (item.kind == Arg::Kind::Node) {
      NodeId target = g.referent(item);
      if (target == kNoNode || !forward(ctx, id, target)) continue;
    } else if (item.kind == Arg::Kind::Int || item.kind == Arg::Kind::Float ||
               item.kind == Arg::Kind::Bool) {
      g.replace_all_uses(id, item);
      g.erase(id);
    } else {
      continue;
    }
    ctx.count("getitems lowered");
  }
}

// An output that is a graph input gets a copy (`clone`), as backends want outputs in buffers of
// their own.
void repair_input_as_output(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  const NodeId out = g.output();
  Node n = g.node(out);
  std::map<std::string, std::string> copies;
  auto repair = [&](auto& self, Arg& a) -> void {
    if (a.kind == Arg::Kind::List) {
      for (Arg& item : a.items) self(self, item);
      return;
    }
    NodeId ref = g.referent(a);
    if (ref == kNoNode || g.node(ref).op != NodeOp::Placeholder) return;
    auto it = copies.find(a.text);
    if (it == copies.end()) {
      NodeId c = ctx.create_call(out, "aten.clone.default", {a}, {}, a.text + "_copy");
      it = copies.emplace(a.text, g.node(c).name).first;
      ctx.count("inputs copied");
    }
    a = Arg::node(it->second);
  };
  for (Arg& a : n.args) repair(repair, a);
  if (copies.empty()) return;
  g.set_args(out, std::move(n.args), std::move(n.kwargs));
}

}  // namespace

void register_structure_passes(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"fold-transpose-pairs",
                         "remove t(t(x)), transpose pairs and permute pairs that cancel"},
      fold_transpose_pairs));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "fold-view-chains",
          "view(view(x, a), b) -> view(x, b) (and reshape chains) on a contiguous x"},
      fold_view_chains));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"lower-tuples",
                         "getitem of a tuple written in the graph becomes its item"},
      lower_tuples));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"repair-input-as-output",
                         "an output that is a graph input gets a copy, as backends require"},
      repair_input_as_output));
}

}  // namespace symshape::passes

namespace symshape {

void register_cleanup_passes(PassRegistry& r) {
  using namespace passes;
  register_dce_cse(r);
  register_identity_passes(r);
  register_shape_passes(r);
  register_structure_passes(r);
  register_rewrite_pass(r);
  register_complex_passes(r);
  register_decompose_passes(r);
  register_autocast_passes(r);
  register_functionalize_pass(r);
  r.add_pipeline(
      "default",
      "functionalize, then every clean-up, in an order where each leaves work for the next",
      {"functionalize", "remove-dropout", "lower-tuples", "remove-detach", "remove-alias",
       "remove-lift-fresh-copy", "remove-clone", "remove-contiguous", "eliminate-sym-min-int64-max",
       "fold-shape-arith", "remove-assert", "fold-transpose-pairs", "fold-view-chains",
       "remove-noop", "normalize-negative-slice", "cse", "dce", "repair-input-as-output"});
  r.add_pipeline(
      "cleanup", "the default pipeline without the inference-only remove-dropout",
      {"functionalize", "lower-tuples", "remove-detach", "remove-alias", "remove-lift-fresh-copy",
       "remove-clone", "remove-contiguous", "eliminate-sym-min-int64-max", "fold-shape-arith",
       "remove-assert", "fold-transpose-pairs", "fold-view-chains", "remove-noop",
       "normalize-negative-slice", "cse", "dce", "repair-input-as-output"});
  r.add_pipeline("complex",
                 "complex tensors to real ones with a trailing 2, then the duplicates and dead "
                 "nodes the rewrite leaves removed",
                 {"functionalize", "complex-rewrite", "cse", "dce"});
}

}  // namespace symshape
