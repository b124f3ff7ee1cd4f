// functionalize: in-place ops and writes through views become out-of-place ops and scatters onto
// the base (PyTorch's functionalization). The graph is walked once, in order. Every tensor is a
// root (a buffer of its own: an input, a constant, a functional op's result) or a view of another
// tensor (a view op, a getitem of a view's list, a write's result). Each root has a current value
// and a version; a write computes its functional result, scatters it up the view chain onto the
// root (the intermediate results are the views' new values), and bumps the root's version. A
// reader of a view whose root has changed since reads the view regenerated from the root's
// current value (cached per version), so the cost is linear in the graph.
#include <algorithm>
#include <unordered_map>

#include "passes/alias.h"
#include "passes/families.h"
#include "passes/functionalize.h"
#include "passes/op_classes.h"
#include "symshape/schema.h"

namespace symshape::passes {

namespace {

bool is_getitem(std::string_view target) {
  return target == "operator.getitem" || target == "_operator.getitem";
}

bool tensor_like(const Value& v) {
  if (v.is_tensor()) return true;
  for (const Value& item : v.items)
    if (tensor_like(item)) return true;
  return false;
}

std::optional<int64_t> constant(const Arg* a) {
  if (!a || a->kind != Arg::Kind::Int) return std::nullopt;
  return a->integer.as_int64();
}

// The argument at position pos or keyword name; nullptr when the call passes neither.
const Arg* arg_at(const Node& n, size_t pos, std::string_view name) {
  if (const Arg* k = n.kwarg(name)) return k;
  return pos < n.args.size() ? &n.args[pos] : nullptr;
}

// In-place ops that change their input's sizes or strides rather than its elements.
bool changes_metadata_in_place(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "t_",        "transpose_", "squeeze_", "unsqueeze_", "as_strided_",
      "swapaxes_", "swapdims_",  "resize_",  "resize_as_", "set_"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

class Functionalizer {
 public:
  explicit Functionalizer(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()) {}

  bool run() {
    const std::vector<NodeId> order = g_.order();
    for (size_t i = 0; i < order.size(); ++i) position_[order[i]] = i;
    bool any = false;
    for (NodeId id : order) {
      const AliasEffect e = alias_effect(g_, id);
      if (e.kind == AliasEffect::Kind::Write && !is_write_back(g_, id)) any = true;
    }
    if (!any) return false;
    for (NodeId id : order) visit(id);
    // The writes: nothing reads them any more.
    for (auto it = writes_.rbegin(); it != writes_.rend(); ++it) {
      if (g_.has_users(*it))
        ctx_.fail(*it, "functionalize: the write is still read after the rewrite (a bug)");
      g_.erase(*it);
    }
    ctx_.rederive_all();
    return true;
  }

 private:
  struct Track {
    NodeId root = kNoNode;    // the buffer
    NodeId parent = kNoNode;  // a view's input (kNoNode for a root)
  };
  struct Cached {
    size_t version = 0;
    NodeId value = kNoNode;
  };

  void visit(NodeId id) {
    pos_ = id;
    const Node& n = g_.node(id);
    if (n.op == NodeOp::Output) return finish(id);
    const AliasEffect e = alias_effect(g_, id);
    switch (e.kind) {
      case AliasEffect::Kind::Write: return write(id, e);
      case AliasEffect::Kind::View: {
        read(id);
        const NodeId source = canonical(e.source);
        const Node& now = g_.node(id);
        if (is_getitem(now.target) && !now.args.empty() && now.args[0].kind == Arg::Kind::List) {
          redirect_[id] = source;  // an item of a list written in the graph: that node itself
          return;
        }
        auto t = track_.find(source);
        // A getitem of a fresh tuple (native_batch_norm's items) is a buffer of its own.
        if (t == track_.end() || (t->second.parent == kNoNode && !g_.value(source).is_tensor()))
          return root(id);
        track_[id] = Track{t->second.root, source};
        cache_[id] = Cached{version_[t->second.root], id};
        return;
      }
      case AliasEffect::Kind::None:
        if (n.op == NodeOp::CallFunction) read(id);
        return;
      case AliasEffect::Kind::Opaque: opaque_.insert_or_assign(id, true); [[fallthrough]];
      case AliasEffect::Kind::Fresh:
        if (n.op == NodeOp::CallFunction) read(id);
        return root(id);
    }
  }

  void root(NodeId id) {
    track_[id] = Track{id, kNoNode};
    current_[id] = id;
    version_[id] = 0;
  }

  NodeId canonical(NodeId id) const {
    for (auto it = redirect_.find(id); it != redirect_.end(); it = redirect_.find(id))
      id = it->second;
    return id;
  }

  // The node that holds id's value now.
  NodeId resolve(NodeId id) {
    id = canonical(id);
    auto t = track_.find(id);
    if (t == track_.end()) return id;
    const Track tr = t->second;
    if (tr.parent == kNoNode) return current_.at(id);
    const size_t version = version_.at(tr.root);
    Cached& c = cache_[id];
    if (c.value != kNoNode && c.version == version) return c.value;
    const NodeId base = resolve(tr.parent);
    const NodeId fresh = regenerate(id, base);
    cache_[id] = Cached{version, fresh};
    return fresh;
  }

  // The arguments with every node replaced by its current value.
  bool resolved_args(const Node& n, std::vector<Arg>& args,
                     std::vector<std::pair<std::string, Arg>>& kwargs) {
    bool changed = false;
    std::function<void(Arg&)> swap = [&](Arg& a) {
      if (a.kind == Arg::Kind::Node) {
        const NodeId r = g_.referent(a);
        if (r != kNoNode) {
          const NodeId now = resolve(r);
          if (now != r) {
            a = Arg::node(g_.node(now).name);
            changed = true;
          }
        }
      }
      for (Arg& item : a.items) swap(item);
    };
    args = n.args;
    kwargs = n.kwargs;
    for (Arg& a : args) swap(a);
    for (auto& [k, a] : kwargs) swap(a);
    return changed;
  }

  void read(NodeId id) {
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    if (resolved_args(g_.node(id), args, kwargs)) ctx_.rewrite_call(id, args, kwargs);
  }

  // The view op of `view` applied again to base, the current value of its input.
  NodeId regenerate(NodeId view, NodeId base) {
    const Node n = g_.node(view);
    const NodeId old = g_.referent(n.args.empty() ? Arg::none() : n.args[0]);
    const AliasEffect e = alias_effect(g_, view);
    const NodeId source = e.source != kNoNode ? e.source : old;
    const std::string name = g_.node(base).name;
    std::function<void(Arg&)> swap = [&](Arg& a) {
      if (a.kind == Arg::Kind::Node && g_.referent(a) == source) a = Arg::node(name);
      for (Arg& item : a.items) swap(item);
    };
    std::vector<Arg> args = n.args;
    std::vector<std::pair<std::string, Arg>> kwargs = n.kwargs;
    for (Arg& a : args) swap(a);
    for (auto& [k, a] : kwargs) swap(a);
    ctx_.count("views regenerated");
    return call(pos_, n.target, args, kwargs, n.name);
  }

  // ---- writes ----

  void write(NodeId id, const AliasEffect& e) {
    const Node n = g_.node(id);
    if (is_write_back(g_, id)) {  // a write-back an earlier run left: keep it, reading the end
      read(id);
      return;
    }
    if (!e.also_written.empty())
      ctx_.fail(id, "functionalize: " + n.target +
                        " writes into several tensors, or through out=; it has no functional "
                        "rewrite here");
    const NodeId target = canonical(e.source);
    if (!track_.count(target))
      ctx_.fail(id, "functionalize: " + n.target + " writes into '" + g_.node(target).name +
                        "', which is not a tensor");
    if (opaque_.count(track_.at(target).root))
      ctx_.fail(id, "functionalize: " + n.target + " writes into the result of '" +
                        g_.node(track_.at(target).root).name +
                        "', an op without a signature: what it aliases is not known");
    const TargetName parsed = parse_target(n.target);
    const std::string_view op = op_name(n.target);
    if (op == "detach_") {
      redirect_[id] = target;
      writes_.push_back(id);
      return;
    }
    if (changes_metadata_in_place(op)) return restride(id, n, target, op);
    const std::string functional = parsed.functional();
    if (!parsed.in_place || SchemaTable::instance().overloads(functional).empty())
      ctx_.fail(id, "functionalize: " + n.target + " has no functional form");
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    resolved_args(n, args, kwargs);
    NodeId value = call(id, functional, args, kwargs);
    const TensorMeta& want = g_.value(resolve(target)).tensor;
    if (!g_.value(value).is_tensor())
      ctx_.fail(id, "functionalize: " + functional + " does not give a tensor");
    const TensorMeta got = g_.value(value).tensor;
    bool same_sizes = got.rank() == want.rank();
    for (size_t d = 0; same_sizes && d < want.rank(); ++d)
      same_sizes = ctx_.provably(got.sizes[d] == want.sizes[d]);
    if (!same_sizes)
      ctx_.fail(id, "functionalize: " + functional + " gives " + got.str() + " where " + n.target +
                        " writes " + want.str());
    if (got.dtype != want.dtype) {  // the write casts to self's dtype
      Arg dt;
      dt.kind = Arg::Kind::DType;
      dt.dtype = want.dtype;
      value = call(id, "aten._to_copy.default", {ref(value)}, {{"dtype", dt}});
    }
    value = laid_out_like(resolve(target), value);
    write_ = id;
    assign(target, value);
    redirect_[id] = target;
    writes_.push_back(id);
    ctx_.count("writes made functional");
  }

  // An in-place view op (`as_strided_`, `transpose_`, ...) changes the sizes or strides of one
  // tensor object, not its storage or its other views: when nothing reads that object after the
  // op (its result aside), the op is its out-of-place view, and the result a view of the target.
  void restride(NodeId id, const Node& n, NodeId target, std::string_view op) {
    const std::string view_op =
        op == "transpose_" ? "aten.transpose.int" : parse_target(n.target).functional();
    auto refuse = [&](const std::string& why) {
      ctx_.fail(id, "functionalize: " + n.target + " changes the sizes or strides of '" +
                        g_.node(target).name + "' in place, " + why +
                        "; write it as the out-of-place view (" +
                        std::string(op.substr(0, op.size() - 1)) + ")");
    };
    if (op == "resize_" || op == "resize_as_" || op == "set_" ||
        SchemaTable::instance().overloads(view_op).empty())
      refuse("which has no view form");
    const NodeOp kind = g_.node(target).op;
    if (kind == NodeOp::Placeholder || kind == NodeOp::GetAttr)
      refuse("a graph input or constant, whose caller would see it");
    // The same tensor object: target, and the in-place results redirected to it.
    std::vector<NodeId> same{target};
    for (const auto& [from, to] : redirect_)
      if (canonical(from) == target) same.push_back(from);
    const size_t at = position_.at(id);
    for (NodeId object : same) {
      for (NodeId u : g_.users(object)) {
        auto p = position_.find(u);
        if (u != id && p != position_.end() && p->second > at)
          refuse("and '" + g_.node(u).name + "' reads it afterwards");
      }
    }
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    resolved_args(n, args, kwargs);
    const NodeId view = call(id, view_op, args, kwargs);
    const NodeId root = track_.at(target).root;
    track_[view] = Track{root, target};
    cache_[view] = Cached{version_.at(root), view};
    redirect_[id] = view;
    writes_.push_back(id);
    ctx_.count("in-place views made out-of-place");
  }

  Arg ref(NodeId id) const { return Arg::node(g_.node(id).name); }

  // A new node named after base (its op's name when empty): base itself when free, else base
  // with a serial number, so that naming stays constant time however many nodes share a base
  // (fresh_name tries base_1, base_2, ... in turn).
  NodeId call(NodeId pos, std::string target, std::vector<Arg> args,
              std::vector<std::pair<std::string, Arg>> kwargs = {}, std::string base = "") {
    if (base.empty()) base = std::string(op_name(target));
    if (g_.find(base) != kNoNode) base += "_" + std::to_string(++serial_);
    return ctx_.create_call(pos, std::move(target), std::move(args), std::move(kwargs),
                            std::move(base));
  }

  // target now holds value: scatter it up the view chain onto the root.
  void assign(NodeId target, NodeId value) {
    std::vector<std::pair<NodeId, NodeId>> fresh;  // (view, its new value)
    NodeId at = target;
    NodeId val = value;
    for (;;) {
      const Track tr = track_.at(at);
      if (tr.parent == kNoNode) {
        current_[at] = val;
        ++version_[at];
        break;
      }
      fresh.push_back({at, val});
      const Node& view = g_.node(at);
      const auto parent = track_.find(tr.parent);
      if (is_getitem(view.target) && parent != track_.end() && parent->second.parent != kNoNode &&
          tensor_like(g_.value(tr.parent)) && !g_.value(tr.parent).is_tensor()) {
        // An item of a view's list (split, chunk, unbind): scatter onto the list's input.
        const NodeId list = tr.parent;
        const NodeId base_node = parent->second.parent;
        const NodeId base = resolve(base_node);
        val = laid_out_like(base, scatter_item(list, at, base, val));
        at = base_node;
        continue;
      }
      const NodeId base = resolve(tr.parent);
      val = laid_out_like(base, scatter(at, base, val));
      at = tr.parent;
    }
    const size_t version = version_.at(at);
    for (auto [view, v] : fresh) cache_[view] = Cached{version, v};
  }

  // value with the strides of `like` (same dtype and sizes): itself, or `copy(like, value)`. A
  // tensor's new value keeps its layout, so the views later made from it are the views the
  // graph made (a `view` of a tensor written through its transpose stays valid).
  NodeId laid_out_like(NodeId like, NodeId value) {
    if (ctx_.same_meta(g_.value(like).tensor, g_.value(value).tensor)) return value;
    return call(pos_, "aten.copy.default", {ref(like), ref(value)});
  }

  // The elements of value in a new tensor laid out like `like`: the inverse of a permute or a
  // reshape is a view of src with its own strides, which the base's later views must not see.
  NodeId copied(NodeId like, NodeId value) {
    return call(pos_, "aten.copy.default", {ref(like), ref(value)});
  }

  [[noreturn]] void cannot(NodeId view, const std::string& why) {
    ctx_.fail(write_, "functionalize: the write reaches its base through '" + g_.node(view).name +
                          "' (" + g_.node(view).target + "), " + why);
  }

  // The new value of a view's input once the view holds src.
  NodeId scatter(NodeId view, NodeId base, NodeId src) {
    const Node n = g_.node(view);
    const std::string_view op = op_name(n.target);
    const TensorMeta& in = g_.value(base).tensor;
    const TensorMeta& out = g_.value(view).tensor;
    ctx_.count("scatters");
    auto with = [&](std::string target, size_t from) {
      std::vector<Arg> args{ref(base), ref(src)};
      for (size_t i = from; i < n.args.size(); ++i) args.push_back(n.args[i]);
      return call(pos_, std::move(target), args, n.kwargs);
    };
    if (op == "slice") return with("aten.slice_scatter.default", 1);
    if (op == "select") return with("aten.select_scatter.default", 1);
    if (op == "diagonal") return with("aten.diagonal_scatter.default", 1);
    if (op == "as_strided") {
      // Its sizes and strides address the storage: the base must be a root laid out
      // contiguously from offset 0, as the scatter's result is.
      if (track_.at(track_.at(view).parent).parent != kNoNode ||
          !ctx_.same_meta(in, TensorMeta{in.dtype, in.sizes, {}}))
        cannot(view, "an as_strided of a tensor that is not a contiguous buffer");
      return with("aten.as_strided_scatter.default", 1);
    }
    if (op == "narrow") {
      const auto start = constant(arg_at(n, 2, "start"));
      const auto length = constant(arg_at(n, 3, "length"));
      if (!start || !length) cannot(view, "a narrow with a start or length not constant");
      return call(pos_, "aten.slice_scatter.default",
                  {ref(base), ref(src), *arg_at(n, 1, "dim"), Arg::of_int(Expr(*start)),
                   Arg::of_int(Expr(*start + *length))});
    }
    const bool same_sizes = [&] {
      if (in.dtype != out.dtype || in.rank() != out.rank()) return false;
      for (size_t d = 0; d < in.rank(); ++d)
        if (!ctx_.provably(in.sizes[d] == out.sizes[d])) return false;
      return true;
    }();
    if (op == "alias" || op == "detach" || op == "lift_fresh" ||
        ((op == "contiguous" || op == "to" || op == "type_as" || op == "expand" ||
          op == "expand_as") &&
         ctx_.same_meta(in, out))) {
      if (!same_sizes) cannot(view, "a view of another size");
      return src;
    }
    static constexpr std::string_view kReshapes[] = {"view",    "_reshape_alias", "unflatten",
                                                     "squeeze", "unsqueeze",      "view_as"};
    static constexpr std::string_view kMayCopy[] = {"reshape", "reshape_as", "flatten",
                                                    "_unsafe_view"};
    const bool reshape =
        std::find(std::begin(kReshapes), std::end(kReshapes), op) != std::end(kReshapes);
    const bool may_copy =
        std::find(std::begin(kMayCopy), std::end(kMayCopy), op) != std::end(kMayCopy);
    if (reshape || may_copy) {
      // A reshape keeps the elements' row-major order: the base is src reshaped back. One that
      // may copy is a view only of a contiguous input.
      const TensorMeta& input = g_.value(g_.referent(n.args[0])).tensor;
      if (may_copy && !ctx_.same_meta(input, TensorMeta{input.dtype, input.sizes, {}}))
        cannot(view, "which copies unless its input is contiguous, and that is not provable");
      return copied(base, call(pos_, "aten.reshape_as.default", {ref(src), ref(base)}));
    }
    if (op == "permute") {
      const Arg* dims = arg_at(n, 1, "dims");
      const int64_t rank = static_cast<int64_t>(in.rank());
      std::vector<int64_t> inverse(in.rank(), -1);
      if (!dims || dims->items.size() != in.rank()) cannot(view, "a permute not read");
      for (size_t i = 0; i < dims->items.size(); ++i) {
        auto d = constant(&dims->items[i]);
        if (!d) cannot(view, "a permute by dims not constant");
        const int64_t k = *d < 0 ? *d + rank : *d;
        if (k < 0 || k >= rank) cannot(view, "a permute by a dim out of range");
        inverse[static_cast<size_t>(k)] = static_cast<int64_t>(i);
      }
      std::vector<Arg> items;
      for (int64_t k : inverse) items.push_back(Arg::of_int(Expr(k)));
      return copied(base, call(pos_, "aten.permute.default", {ref(src), Arg::list(items)}));
    }
    if (op == "transpose" || op == "swapaxes" || op == "swapdims") {
      std::vector<Arg> args{ref(src)};
      for (size_t i = 1; i < n.args.size(); ++i) args.push_back(n.args[i]);
      return copied(base, call(pos_, "aten.transpose.int", args, n.kwargs));
    }
    if (op == "t") return copied(base, call(pos_, "aten.t.default", {ref(src)}));
    if (op == "view_as_real") return call(pos_, "aten.view_as_complex.default", {ref(src)});
    if (op == "view_as_complex") return call(pos_, "aten.view_as_real.default", {ref(src)});
    cannot(view, "a view functionalize has no scatter for");
  }

  // The new value of a list view's input (split, chunk, unbind) once item `item` holds src.
  NodeId scatter_item(NodeId list, NodeId item, NodeId base, NodeId src) {
    const Node& l = g_.node(list);
    const std::string_view op = op_name(l.target);
    const auto k = constant(g_.node(item).args.size() > 1 ? &g_.node(item).args[1] : nullptr);
    const Value& parts = g_.value(list);
    if (!k || *k < 0 || static_cast<size_t>(*k) >= parts.items.size())
      cannot(item, "an item not read");
    const Arg dim_arg = [&] {
      const size_t pos = op == "unbind" ? 1 : 2;
      const Arg* d = arg_at(l, pos, "dim");
      return d ? *d : Arg::of_int(Expr(0));
    }();
    ctx_.count("scatters");
    if (op == "unbind")
      return call(pos_, "aten.select_scatter.default",
                  {ref(base), ref(src), dim_arg, Arg::of_int(Expr(*k))});
    if (op != "split" && op != "split_with_sizes" && op != "chunk" && op != "tensor_split")
      cannot(list, "a list of views functionalize has no scatter for");
    auto d = constant(&dim_arg);
    const int64_t rank = static_cast<int64_t>(g_.value(base).tensor.rank());
    if (!d) cannot(list, "a split along a dim not constant");
    const size_t dim = static_cast<size_t>(*d < 0 ? *d + rank : *d);
    int64_t start = 0;
    for (int64_t j = 0; j < *k; ++j) {
      const auto s = parts.items[static_cast<size_t>(j)].tensor.sizes.at(dim).as_int64();
      if (!s) cannot(list, "a split into parts of symbolic size");
      start += *s;
    }
    const auto size = parts.items[static_cast<size_t>(*k)].tensor.sizes.at(dim).as_int64();
    if (!size) cannot(list, "a split into parts of symbolic size");
    return call(pos_, "aten.slice_scatter.default",
                {ref(base), ref(src), Arg::of_int(Expr(static_cast<int64_t>(dim))),
                 Arg::of_int(Expr(start)), Arg::of_int(Expr(start + *size))});
  }

  // The output reads the final values; written inputs and constants get them copied back.
  void finish(NodeId output) {
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    if (resolved_args(g_.node(output), args, kwargs)) g_.set_args(output, args, kwargs);
    for (NodeId id : g_.order()) {
      const Node& n = g_.node(id);
      if (n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) continue;
      auto it = current_.find(id);
      if (it == current_.end() || it->second == id) continue;
      ctx_.create_call(output, "aten.copy_.default", {ref(id), ref(it->second)}, {},
                       n.name + "_write_back");
      ctx_.count("inputs written back");
    }
  }

  PassContext& ctx_;
  MutableGraph& g_;
  NodeId pos_ = kNoNode;    // new nodes go before it
  NodeId write_ = kNoNode;  // the write being rewritten, for messages
  std::unordered_map<NodeId, Track> track_;
  std::unordered_map<NodeId, NodeId> redirect_;  // a write's result: the tensor it wrote
  std::unordered_map<NodeId, NodeId> current_;   // a root's current value
  std::unordered_map<NodeId, size_t> version_;   // a root's writes so far
  std::unordered_map<NodeId, Cached> cache_;     // a view's value at a version of its root
  std::unordered_map<NodeId, bool> opaque_;
  std::unordered_map<NodeId, size_t> position_;  // in the graph as it was given
  std::vector<NodeId> writes_;
  size_t serial_ = 0;
};

void functionalize(PassContext& ctx) { functionalize_graph(ctx); }

}  // namespace

namespace {
bool copies_into_input(const MutableGraph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.op != NodeOp::CallFunction || !is_aten(n.target, {"copy_"}) || g.has_users(id) ||
      n.args.empty())
    return false;
  const NodeId self = g.referent(n.args[0]);
  return self != kNoNode &&
         (g.node(self).op == NodeOp::Placeholder || g.node(self).op == NodeOp::GetAttr);
}
}  // namespace

bool is_write_back(const MutableGraph& g, NodeId id) {
  if (!copies_into_input(g, id)) return false;
  for (NodeId k = g.next(id); k != kNoNode; k = g.next(k)) {
    if (g.node(k).op != NodeOp::Output && !copies_into_input(g, k)) return false;
  }
  return true;
}

bool functionalize_graph(PassContext& ctx) { return Functionalizer(ctx).run(); }

void register_functionalize_pass(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"functionalize",
                         "in-place ops and writes through views become out-of-place ops and "
                         "scatters onto the base; written inputs are copied back at the end"},
      functionalize));
}

}  // namespace symshape::passes
