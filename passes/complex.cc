// complex-rewrite: complex tensors become real ones with a trailing dim of 2 (real, imaginary),
// for backends without a complex dtype. Every complex value gets a real view, built from its
// inputs' real views by real ops; an op without a real form is kept on complex values rebuilt
// around it (view_as_complex before, view_as_real after) and reported as a graph break, never
// computed wrongly. Symbolic sizes pass through unchanged: the real view of [b, s, h] is
// [b, s, h, 2].
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "passes/families.h"
#include "passes/functionalize.h"
#include "passes/op_classes.h"
#include "symshape/schema.h"

namespace symshape::passes {

namespace {

DType real_of(DType d) { return d == DType::Complex128 ? DType::Float64 : DType::Float32; }

bool complex_tensor(const Value& v) { return v.is_tensor() && is_complex(v.tensor.dtype); }

// Whether a value holds a complex tensor anywhere (a tuple of outputs included).
bool holds_complex(const Value& v) {
  if (complex_tensor(v)) return true;
  for (const Value& item : v.items)
    if (holds_complex(item)) return true;
  return false;
}

// Full: every complex value (complex-rewrite). Collectives: only collectives and the ops that
// move bytes between them (complex-collectives); the rest of the graph stays complex.
enum class Mode { Full, Collectives };

// Ops that only move or re-label bytes: lowered in both modes.
bool moves_bytes(std::string_view op) {
  // clang-format off
  static const std::set<std::string_view> kOps = {
      "view", "reshape", "_unsafe_view", "expand", "permute", "transpose", "t", "unsqueeze",
      "squeeze", "flatten", "select", "slice", "narrow", "cat", "stack", "split",
      "split_with_sizes", "chunk", "unbind", "clone", "contiguous", "detach", "alias",
      "lift_fresh_copy", "view_as_real", "view_as_complex", "resolve_conj", "resolve_neg", "roll",
      "flip", "repeat", "index_select", "gather"};
  // clang-format on
  return kOps.count(op) > 0;
}

bool is_getitem(std::string_view target) {
  return target == "operator.getitem" || target == "_operator.getitem";
}

// Calls f on every argument of n and on every item of a list argument, keywords included.
template <class F>
void for_each_argument(Node& n, F&& f) {
  auto visit = [&](Arg& a) {
    f(a);
    for (Arg& item : a.items) f(item);
  };
  for (Arg& a : n.args) visit(a);
  for (auto& [key, a] : n.kwargs) visit(a);
}

class Rewriter {
 public:
  Rewriter(PassContext& ctx, Mode mode) : ctx_(ctx), g_(ctx.graph()), mode_(mode) {}

  void run() {
    for (NodeId id : g_.order()) {
      if (!g_.alive(id)) continue;
      const Node& n = g_.node(id);
      switch (n.op) {
        case NodeOp::Placeholder:
        case NodeOp::GetAttr:
          if (!complex_tensor(g_.value(id))) break;
          if (mode_ == Mode::Full && n.value.is_null()) {
            unpack_input(id);
            break;
          }
          kept_.insert(id);           // stays complex; a real view is made where one is needed
          if (mode_ == Mode::Full) {  // a constant with its values inline stays as written
            ctx_.count("graph breaks");
            ctx_.count("graph break: get_attr");
          }
          break;
        case NodeOp::CallFunction:
          if (touches_complex(id)) rewrite(id);
          break;
        case NodeOp::Output:
          if (mode_ == Mode::Full) {
            rewrite_output(id);
          } else {
            pos_ = id;
            rebuild_complex_args(id);
          }
          break;
      }
    }
    // The complex nodes are unused now: their users read the real views.
    for (auto it = complex_nodes_.rbegin(); it != complex_nodes_.rend(); ++it) {
      if (g_.alive(*it) && !g_.has_users(*it)) g_.erase(*it);
    }
    if (!io_inputs_.empty() || !io_outputs_.empty()) {
      nlohmann::ordered_json io;
      io["inputs"] = io_inputs_;
      io["outputs"] = io_outputs_;
      g_.extra()["complex_io"] = io;
    }
  }

 private:
  // ---- reading a node ----

  bool touches_complex(NodeId id) const {
    if (holds_complex(g_.value(id))) return true;
    for (NodeId in : g_.inputs(id))
      if (holds_complex(g_.value(in))) return true;
    return false;
  }

  BoundArgs bind(NodeId id) const {
    return bind_arguments(g_.node(id), SchemaTable::instance().overloads(g_.node(id).target),
                          [&](const Arg& a) {
                            NodeId r = g_.referent(a);
                            return r == kNoNode ? ArgClass::Other : arg_class_of(g_.value(r));
                          });
  }

  // The node an argument names when it holds a complex tensor; kNoNode otherwise.
  NodeId complex_arg(const Arg* a) const {
    if (!a) return kNoNode;
    NodeId r = g_.referent(*a);
    return r != kNoNode && complex_tensor(g_.value(r)) ? r : kNoNode;
  }
  // The node an argument names when it holds a real tensor; kNoNode otherwise.
  NodeId real_tensor_arg(const Arg* a) const {
    if (!a) return kNoNode;
    NodeId r = g_.referent(*a);
    return r != kNoNode && g_.value(r).is_tensor() && !is_complex(g_.value(r).tensor.dtype)
               ? r
               : kNoNode;
  }
  static bool is_number(const Arg* a) {
    return a &&
           (a->kind == Arg::Kind::Int || a->kind == Arg::Kind::Float || a->kind == Arg::Kind::Bool);
  }
  static std::optional<int64_t> constant(const Arg* a) {
    if (!a || a->kind != Arg::Kind::Int) return std::nullopt;
    return a->integer.as_int64();
  }
  size_t rank(NodeId id) const { return g_.value(id).tensor.rank(); }
  // Whether two tensors provably have the same sizes (strides aside).
  bool same_sizes(const TensorMeta& a, const TensorMeta& b) {
    if (a.rank() != b.rank()) return false;
    for (size_t d = 0; d < a.rank(); ++d)
      if (!ctx_.provably(a.sizes[d] == b.sizes[d])) return false;
    return true;
  }

  // A dim of a complex tensor of rank n as a non-negative dim of its real view (where the
  // trailing 2 is dim n). `insert`: a dim where a new one goes (unsqueeze, stack): [-(n+1), n].
  std::optional<int64_t> real_dim(const Arg* a, size_t n, bool insert = false) const {
    auto d = constant(a);
    if (!d || (n == 0 && !insert)) return std::nullopt;  // a 0-dim tensor's dim 0 is no dim
    const int64_t r = static_cast<int64_t>(insert ? n + 1 : std::max<size_t>(n, 1));
    if (*d < -r || *d >= r) return std::nullopt;
    return *d < 0 ? *d + r : *d;
  }

  // ---- building ----

  Arg ref(NodeId id) const { return Arg::node(g_.node(id).name); }
  static Arg num(int64_t v) { return Arg::of_int(Expr(v)); }

  NodeId call(std::string target, std::vector<Arg> args,
              std::vector<std::pair<std::string, Arg>> kwargs = {}) {
    NodeId id = ctx_.create_call(pos_, std::move(target), std::move(args), std::move(kwargs));
    created_.push_back(id);
    return id;
  }
  // x[..., k:k+1] and x[..., k] of a real view: a part kept as a dim of 1, or dropped.
  NodeId part(NodeId real, int64_t k) {
    return call("aten.slice.Tensor", {ref(real), num(-1), num(k), num(k + 1)});
  }
  NodeId pick(NodeId real, int64_t k) {
    return call("aten.select.int", {ref(real), num(-1), num(k)});
  }
  NodeId binary(std::string_view op, NodeId a, NodeId b) {
    const bool arithmetic = op == "add" || op == "sub" || op == "mul" || op == "div";
    return call("aten." + std::string(op) + (arithmetic ? ".Tensor" : ".default"),
                {ref(a), ref(b)});
  }
  // a*b op c*d (op: add or sub), built in this order.
  NodeId sum_of_products(NodeId a, NodeId b, NodeId c, NodeId d, std::string_view op) {
    NodeId ab = binary("mul", a, b);
    NodeId cd = binary("mul", c, d);
    return binary(op, ab, cd);
  }
  // r * fn(phi), fn cos or sin: a part of r e^(i phi).
  NodeId times(NodeId r, const char* fn, NodeId phi) {
    NodeId f = call(std::string("aten.") + fn + ".default", {ref(phi)});
    return binary("mul", r, f);
  }

  NodeId join(NodeId re, NodeId im) {  // parts with a trailing dim of 1 -> [..., 2]
    return call("aten.cat.default", {Arg::list({ref(re), ref(im)}), num(-1)});
  }
  NodeId stack(NodeId re, NodeId im) {  // parts without it -> [..., 2]
    return call("aten.stack.default", {Arg::list({ref(re), ref(im)}), num(-1)});
  }

  // The real view of a complex node: the one its lowering made, else (a node kept complex)
  // view_as_real of it, made before the node being rewritten and shared by later ones.
  NodeId real(NodeId complex) {
    auto it = real_.find(complex);
    if (it != real_.end()) return it->second;
    if (!kept_.count(complex) || !complex_tensor(g_.value(complex)))
      throw PassError(std::string(pass_name()), g_.node(complex).name, "internal: no real view");
    NodeId view = call("aten.view_as_real.default", {ref(complex)});
    ctx_.count("views inserted");
    real_[complex] = view;
    return view;
  }
  // copy_(x, v) at the end, x a complex input unpacked into a real view: copy_(x_real,
  // real(v)). False when x was not unpacked (it stays complex).
  bool write_back_real(NodeId id) {
    const Node& n = g_.node(id);
    if (mode_ != Mode::Full || n.args.size() != 2) return false;
    const NodeId self = g_.referent(n.args[0]), src = g_.referent(n.args[1]);
    auto it = real_.find(self);
    if (self == kNoNode || src == kNoNode || it == real_.end() || !complex_tensor(g_.value(src)))
      return false;
    const NodeOp kind = g_.node(it->second).op;
    if (kind != NodeOp::Placeholder && kind != NodeOp::GetAttr) return false;
    ctx_.rewrite_call(id, {ref(it->second), ref(real(src))}, {});
    ctx_.count("write-backs into real views");
    return true;
  }
  std::string_view pass_name() const {
    return mode_ == Mode::Full ? "complex-rewrite" : "complex-collectives";
  }

  // ---- inputs and outputs ----

  void unpack_input(NodeId id) {
    const Node& n = g_.node(id);
    const TensorMeta& t = g_.value(id).tensor;
    // An input x becomes x_unpacked_complex; a constant `layer.freqs` becomes `layer__freqs`.
    Node packed;
    packed.op = n.op;
    if (n.op == NodeOp::Placeholder) {
      packed.name = g_.fresh_name(n.name + "_unpacked_complex");
      packed.target = packed.name;
    } else {
      for (char c : n.target) packed.target += c == '.' ? std::string("__") : std::string(1, c);
      packed.name = g_.fresh_name(packed.target);
    }
    packed.dtype = real_of(t.dtype);
    std::vector<Expr> sizes = t.sizes;
    sizes.push_back(Expr(2));
    packed.shape = sizes;
    TensorMeta meta;
    meta.dtype = real_of(t.dtype);
    meta.sizes = sizes;
    if (n.stride) {  // declared strides, in units of the real view's elements
      for (const Expr& s : *n.stride) meta.strides.push_back(s * 2);
      meta.strides.push_back(Expr(1));
      packed.stride = meta.strides;
    }
    const std::string original = n.name;
    const DType dtype = t.dtype;
    NodeId unpacked = g_.insert_before(id, std::move(packed), Value::of(meta));
    real_[id] = unpacked;
    complex_nodes_.push_back(id);
    io_inputs_.push_back({{"name", g_.node(unpacked).name},
                          {"original", original},
                          {"kind", to_string(g_.node(id).op)},
                          {"dtype", std::string(to_string(dtype))}});
    ctx_.count("complex inputs");
  }

  void rewrite_output(NodeId id) {
    pos_ = id;
    Node out = g_.node(id);
    if (out.args.empty()) return;
    auto swap = [&](Arg& a, size_t index) {
      NodeId r = g_.referent(a);
      if (r == kNoNode || !complex_tensor(g_.value(r))) return false;
      a = ref(real(r));
      io_outputs_.push_back(index);
      return true;
    };
    bool changed = false;
    Arg& result = out.args[0];
    Value value = g_.value(id);
    if (result.kind == Arg::Kind::List) {
      for (size_t i = 0; i < result.items.size(); ++i) {
        if (!swap(result.items[i], i)) continue;
        changed = true;
        if (i < value.items.size()) value.items[i] = g_.value(g_.referent(result.items[i]));
      }
    } else if (swap(result, 0)) {
      changed = true;
      value = g_.value(g_.referent(result));
    }
    if (!changed) return;
    g_.set_args(id, out.args, out.kwargs);
    g_.set_value(id, std::move(value));
  }

  // ---- ops ----

  void rewrite(NodeId id) {
    pos_ = id;
    const Node& n = g_.node(id);
    // A write into a complex tensor would go into a rebuilt copy, not into its real view; but
    // functionalize's write-back into an unpacked input writes its real view, which shares the
    // caller's storage (to_fx passes view_as_real of the complex tensor).
    if (writes_in_place(n)) {
      if (is_write_back(g_, id) && write_back_real(id)) return;
      ctx_.fail(id, is_write_back(g_, id)
                        ? "writes a final value back into the input, which stays complex here; "
                          "complex-rewrite cannot write into a rebuilt copy (give the graph a "
                          "fresh buffer: no input written in place)"
                        : "writes in place into a complex tensor; run the functionalize pass "
                          "first");
    }
    const std::string_view op = op_name(n.target);
    std::optional<NodeId> result;
    created_.clear();
    const bool collective = is_collective(n);
    const bool aten = n.target.starts_with("aten.");
    const bool wanted = mode_ == Mode::Full
                            ? aten || collective || is_getitem(n.target)
                            : collective || is_getitem(n.target) || (aten && moves_bytes(op));
    if (wanted) {
      try {
        if (collective) {
          result = lower_collective(id);
        } else if (is_getitem(n.target)) {
          result = lower_getitem(id);
        } else {
          result = lower(id, bind(id), op);
        }
      } catch (const PassError&) {
        throw;
      } catch (const Error&) {
        result.reset();  // arguments this pass does not read: keep the op on complex values
      }
    }
    if (!result) {
      // Undo what a partial lowering built.
      for (auto it = created_.rbegin(); it != created_.rend(); ++it)
        if (g_.alive(*it) && !g_.has_users(*it)) g_.erase(*it);
      return keep_complex(id);
    }
    const Value& v = g_.value(id);
    if (holds_complex(v)) {
      real_[id] = *result;
      complex_nodes_.push_back(id);
    } else {
      // A real (or integer) result read from complex inputs: the new node is the value.
      g_.replace_all_uses(id, *result);
      g_.erase(id);
    }
    ctx_.count("rewritten");
  }

  // An op with no real form here: it runs on complex values rebuilt from the real views, and
  // its complex result gets a real view for the nodes after it.
  void keep_complex(NodeId id) {
    const std::string target = g_.node(id).target;
    rebuild_complex_args(id);
    kept_.insert(id);
    if (mode_ == Mode::Full) {
      ctx_.count("graph breaks");
      ctx_.count("graph break: " + std::string(op_name(target)));
    }
  }

  // Makes node id read complex values rebuilt from the real views where its complex arguments
  // were lowered.
  void rebuild_complex_args(NodeId id) {
    Node n = g_.node(id);
    bool changed = false;
    auto rebuild = [&](Arg& a) {
      NodeId r = g_.referent(a);
      if (r == kNoNode || !complex_tensor(g_.value(r)) || kept_.count(r)) return;
      auto it = rebuilt_.find(r);
      if (it == rebuilt_.end() || !g_.alive(it->second)) {
        pos_ = id;
        it = rebuilt_.insert_or_assign(r, call("aten.view_as_complex.default", {ref(real(r))}))
                 .first;
        ctx_.count("views inserted");
      }
      a = ref(it->second);
      changed = true;
    };
    for_each_argument(n, rebuild);
    if (changed) g_.set_args(id, n.args, n.kwargs);
  }

  // The real form of node id (bound to its signature), or nullopt when there is none here.
  std::optional<NodeId> lower(NodeId id, const BoundArgs& b, std::string_view op) {
    const Arg* self = b.declares("self") ? b.get("self") : nullptr;
    const NodeId z = complex_arg(self);
    const size_t n = z != kNoNode ? rank(z) : 0;

    if (op == "view_as_complex") return real_tensor_arg(self);
    if (op == "view_as_real" || op == "resolve_conj" || op == "resolve_neg") {
      if (z == kNoNode) return std::nullopt;
      return real(z);
    }
    if (op == "where" && b.declares("condition")) {  // where(condition, self, other)
      NodeId cond = real_tensor_arg(b.get("condition"));
      NodeId x = complex_arg(b.get("self")), y = complex_arg(b.get("other"));
      if (cond == kNoNode || x == kNoNode || y == kNoNode) return std::nullopt;
      NodeId c = call("aten.unsqueeze.default", {ref(cond), num(-1)});
      return call("aten.where.self", {ref(c), ref(real(x)), ref(real(y))});
    }
    if (z == kNoNode) return lower_real_self(id, b, op);
    const NodeId rz = real(z);

    if (op == "clone" || op == "contiguous" || op == "detach" || op == "alias" ||
        op == "lift_fresh_copy" || op == "neg") {
      if (op == "contiguous" || op == "clone") {
        if (b.given("memory_format")) return std::nullopt;  // a layout of the complex tensor
      }
      return call("aten." + std::string(op) + ".default", {ref(rz)});
    }
    if (op == "conj" || op == "conj_physical") {
      NodeId re = part(rz, 0), im = part(rz, 1);
      return join(re, call("aten.neg.default", {ref(im)}));
    }
    if (op == "real") return pick(rz, 0);
    if (op == "imag") return pick(rz, 1);
    if (op == "abs" || op == "angle") {
      NodeId re = pick(rz, 0), im = pick(rz, 1);
      return op == "abs" ? binary("hypot", re, im) : binary("atan2", im, re);
    }
    if (op == "add" || op == "sub") return add_sub(b, rz, op == "sub");
    if (op == "mul") return mul(b, rz);
    if (op == "div") return div(b, rz);
    if (op == "reciprocal") {
      NodeId ar = part(rz, 0), ai = part(rz, 1);
      NodeId d = sum_of_products(ar, ar, ai, ai, "add");
      NodeId re = binary("div", ar, d), im = binary("div", ai, d);
      return join(re, call("aten.neg.default", {ref(im)}));
    }
    if (op == "exp") return exp_of(rz);
    if (op == "log") return log_of(rz);
    if (op == "pow" && b.declares("exponent") && !is_number(b.get("exponent"))) {
      // z**w = exp(w log z), the principal branch, for a complex or real tensor w.
      const Arg* exponent = b.get("exponent");
      if (NodeId w = complex_arg(exponent); w != kNoNode)
        return exp_of(complex_product(log_of(rz), real(w)));
      if (NodeId r = real_tensor_arg(exponent); r != kNoNode)
        return exp_of(binary("mul", log_of(rz), call("aten.unsqueeze.default", {ref(r), num(-1)})));
      return std::nullopt;
    }
    if (op == "sqrt" || (op == "pow" && b.declares("exponent") && is_number(b.get("exponent")) &&
                         b.get("exponent")->kind != Arg::Kind::Bool)) {
      // z**p = |z|**p (cos(p arg z) + i sin(p arg z)), the principal branch; sqrt is p = 1/2.
      Arg p;
      p.kind = Arg::Kind::Float;
      p.real = 0.5;
      if (op == "pow") p = *b.get("exponent");
      NodeId ar = pick(rz, 0), ai = pick(rz, 1);
      NodeId r = call("aten.pow.Tensor_Scalar", {ref(binary("hypot", ar, ai)), p});
      NodeId phi = call("aten.mul.Tensor", {ref(binary("atan2", ai, ar)), p});
      NodeId re = times(r, "cos", phi);
      return stack(re, times(r, "sin", phi));
    }
    if (op == "view" || op == "reshape" || op == "_unsafe_view" || op == "expand") {
      if (op == "view" && b.schema()->overload == "dtype") return std::nullopt;
      const Arg* sizes = b.get(b.declares("shape") ? "shape" : "size");
      if (!sizes || sizes->kind != Arg::Kind::List) return std::nullopt;
      Arg with_two = *sizes;
      with_two.items.push_back(num(2));
      return call("aten." + std::string(op) + ".default", {ref(rz), with_two});
    }
    if (op == "permute") {
      const Arg* dims = b.get("dims");
      if (!dims || dims->kind != Arg::Kind::List || dims->items.size() != n) return std::nullopt;
      std::vector<Arg> items;
      for (const Arg& d : dims->items) {
        auto k = real_dim(&d, n);
        if (!k) return std::nullopt;
        items.push_back(num(*k));
      }
      items.push_back(num(static_cast<int64_t>(n)));
      return call("aten.permute.default", {ref(rz), Arg::list(std::move(items))});
    }
    if (op == "transpose") {
      auto d0 = real_dim(b.get("dim0"), n), d1 = real_dim(b.get("dim1"), n);
      if (!d0 || !d1) return std::nullopt;
      return call("aten.transpose.int", {ref(rz), num(*d0), num(*d1)});
    }
    if (op == "t") {
      if (n < 2) return rz;
      return call("aten.transpose.int", {ref(rz), num(0), num(1)});
    }
    if (op == "unsqueeze") {
      auto d = real_dim(b.get("dim"), n, true);
      if (!d) return std::nullopt;
      return call("aten.unsqueeze.default", {ref(rz), num(*d)});
    }
    if (op == "squeeze" && b.declares("dim") && b.schema()->overload == "dim") {
      auto d = real_dim(b.get("dim"), n);
      if (!d || n == 0) return std::nullopt;
      return call("aten.squeeze.dim", {ref(rz), num(*d)});
    }
    if (op == "flatten" && b.declares("start_dim") && b.declares("end_dim")) {
      if (n == 0) return std::nullopt;
      auto s = real_dim(b.get("start_dim"), n), e = real_dim(b.get("end_dim"), n);
      if (!s || !e) return std::nullopt;
      return call("aten.flatten.using_ints", {ref(rz), num(*s), num(*e)});
    }
    if (op == "select" && b.declares("index")) {
      auto d = real_dim(b.get("dim"), n);
      if (!d || n == 0) return std::nullopt;
      return call("aten.select.int", {ref(rz), num(*d), *b.get("index")});
    }
    if (op == "slice" && b.declares("step")) {
      auto d = real_dim(b.get("dim"), n);
      if (!d || n == 0) return std::nullopt;
      auto or_none = [&](const char* name) {
        const Arg* a = b.get(name);
        return a ? *a : Arg::none();
      };
      return call("aten.slice.Tensor",
                  {ref(rz), num(*d), or_none("start"), or_none("end"), or_none("step")});
    }
    if (op == "narrow") {
      auto d = real_dim(b.get("dim"), n);
      if (!d || n == 0) return std::nullopt;
      return call("aten.narrow.default", {ref(rz), num(*d), *b.get("start"), *b.get("length")});
    }
    if ((op == "sum" || op == "mean") && b.declares("dim")) {
      if (b.given("dtype")) return std::nullopt;
      std::vector<Arg> dims;
      const Arg* d = b.get("dim");
      if (d && d->kind == Arg::Kind::List && !d->items.empty()) {
        for (const Arg& item : d->items) {
          auto k = real_dim(&item, n);
          if (!k) return std::nullopt;
          dims.push_back(num(*k));
        }
      } else if (d && d->kind == Arg::Kind::Int) {
        auto k = real_dim(d, n);
        if (!k) return std::nullopt;
        dims.push_back(num(*k));
      } else {
        for (size_t k = 0; k < n; ++k) dims.push_back(num(static_cast<int64_t>(k)));
        if (dims.empty()) return rz;  // a 0-dim sum is the value itself
      }
      const Arg* keepdim = b.get("keepdim");
      return call(op == "sum" ? "aten.sum.dim_IntList" : "aten.mean.dim",
                  {ref(rz), Arg::list(std::move(dims)), keepdim ? *keepdim : Arg::none()});
    }
    if (op == "sym_size" && b.declares("dim")) {
      auto d = real_dim(b.get("dim"), n);
      if (!d || n == 0) return std::nullopt;
      return call("aten.sym_size.int", {ref(rz), num(*d)});
    }
    if (op == "mm" || op == "bmm" || op == "matmul") {
      const Arg* other = b.get(op == "matmul" ? "other" : "mat2");
      return matmul(std::string(op), rz, other);
    }
    if (op == "_to_copy" || (op == "to" && b.schema()->overload == "dtype")) {
      const Arg* dtype = b.get("dtype");
      if (!dtype || dtype->kind != Arg::Kind::DType || b.given("memory_format"))
        return std::nullopt;
      if (!is_complex(dtype->dtype)) return std::nullopt;  // dropping the imaginary part
      const DType target = real_of(dtype->dtype);
      if (g_.value(rz).tensor.dtype == target) return rz;
      Arg d;
      d.kind = Arg::Kind::DType;
      d.dtype = target;
      return call("aten._to_copy.default", {ref(rz)}, {{"dtype", d}});
    }
    if (op == "squeeze" && !b.declares("dim")) {
      return call("aten.squeeze.default", {ref(rz)});  // the trailing 2 is never squeezed
    }
    if (op == "roll" || op == "flip" || (op == "squeeze" && b.schema()->overload == "dims")) {
      // Dims given as a list; roll without dims rolls the flattened tensor, the 2 included.
      const char* dims_name = op == "roll" ? "dims" : op == "flip" ? "dims" : "dim";
      const Arg* dims = b.get(dims_name);
      if (!dims || dims->kind != Arg::Kind::List || (dims->items.empty() && op == "roll"))
        return std::nullopt;
      std::vector<Arg> items;
      for (const Arg& d : dims->items) {
        auto k = real_dim(&d, n);
        if (!k) return std::nullopt;
        items.push_back(num(*k));
      }
      if (op == "roll")
        return call("aten.roll.default", {ref(rz), *b.get("shifts"), Arg::list(std::move(items))});
      return call(op == "flip" ? "aten.flip.default" : "aten.squeeze.dims",
                  {ref(rz), Arg::list(std::move(items))});
    }
    if (op == "repeat") {  // one more repeat, of 1, for the trailing 2
      const Arg* repeats = b.get("repeats");
      if (!repeats || repeats->kind != Arg::Kind::List) return std::nullopt;
      Arg with_one = *repeats;
      with_one.items.push_back(num(1));
      return call("aten.repeat.default", {ref(rz), with_one});
    }
    if (op == "index_select") {
      auto d = real_dim(b.get("dim"), n);
      NodeId index = real_tensor_arg(b.get("index"));
      if (!d || n == 0 || index == kNoNode) return std::nullopt;
      return call("aten.index_select.default", {ref(rz), num(*d), ref(index)});
    }
    if (op == "gather") {  // the index gets the trailing 2 too: both parts move together
      auto d = real_dim(b.get("dim"), n);
      NodeId index = real_tensor_arg(b.get("index"));
      if (!d || n == 0 || index == kNoNode || rank(index) != n) return std::nullopt;
      std::vector<Arg> sizes(n, num(-1));
      sizes.push_back(num(2));
      NodeId col = call("aten.unsqueeze.default", {ref(index), num(-1)});
      NodeId pair = call("aten.expand.default", {ref(col), Arg::list(std::move(sizes))});
      return call("aten.gather.default", {ref(rz), num(*d), ref(pair)});
    }
    if (op == "masked_fill" && b.declares("mask") && b.declares("value")) {
      NodeId mask = real_tensor_arg(b.get("mask"));
      if (mask == kNoNode) return std::nullopt;
      NodeId col = call("aten.unsqueeze.default", {ref(mask), num(-1)});
      const Arg* value = b.get("value");
      if (NodeId v = complex_arg(value); v != kNoNode) {  // a 0-dim complex tensor: its [2]
        if (rank(v) != 0) return std::nullopt;
        return call("aten.where.self", {ref(col), ref(real(v)), ref(rz)});
      }
      if (!is_number(value) && real_tensor_arg(value) == kNoNode) return std::nullopt;
      // A real value fills the real part; the imaginary part becomes 0.
      NodeId re = call(g_.node(id).target, {ref(part(rz, 0)), ref(col), *value});
      NodeId im = call("aten.masked_fill.Scalar", {ref(part(rz, 1)), ref(col), num(0)});
      return join(re, im);
    }
    if (op == "cat") return cat_stack(b, false);
    if (op == "split" || op == "split_with_sizes" || op == "chunk" || op == "unbind") {
      // A list of complex tensors: a list of their real views, read by getitem.
      auto d = real_dim(b.get("dim"), n);
      if (!d) return std::nullopt;
      const std::string target = g_.node(id).target;
      if (op == "unbind") return call(target, {ref(rz), num(*d)});
      const char* count = op == "split" ? "split_size" : op == "chunk" ? "chunks" : "split_sizes";
      if (!b.declares(count) || !b.get(count)) return std::nullopt;
      return call(target, {ref(rz), *b.get(count), num(*d)});
    }
    return std::nullopt;
  }

  // A collective on complex values runs on their real views: the bytes are the same, dim 0
  // (where gathers and scatters work) is the same, and sum and avg reduce each part alone
  // (the rules refuse max, min and products on complex tensors).
  std::optional<NodeId> lower_collective(NodeId id) {
    Node n = g_.node(id);
    bool changed = false;
    auto swap = [&](Arg& a) {
      NodeId r = g_.referent(a);
      if (r == kNoNode || !complex_tensor(g_.value(r))) return;
      a = ref(real(r));
      changed = true;
    };
    for_each_argument(n, swap);
    if (!changed) return std::nullopt;
    ctx_.count("collectives lowered");
    return call(n.target, n.args, n.kwargs);
  }

  // getitem of a list of complex tensors that was lowered (a coalesced collective's result).
  std::optional<NodeId> lower_getitem(NodeId id) {
    const Node& n = g_.node(id);
    if (n.args.size() != 2) return std::nullopt;
    NodeId list = g_.referent(n.args[0]);
    auto it = real_.find(list);
    if (list == kNoNode || it == real_.end()) return std::nullopt;
    const std::string target = n.target;
    const Arg index = n.args[1];
    return call(target, {ref(it->second), index});
  }

  // Ops whose self is real (or absent) but which make or read complex values: complex casts,
  // polar, complex, real * complex, cat/stack (the list is `tensors`).
  std::optional<NodeId> lower_real_self(NodeId id, const BoundArgs& b, std::string_view op) {
    (void)id;
    if (op == "cat" || op == "stack") return cat_stack(b, op == "stack");
    if (op == "mul" && b.declares("other")) {  // real * complex: multiplication commutes
      NodeId c = complex_arg(b.get("other"));
      const Arg* self = b.get("self");
      if (c == kNoNode) return std::nullopt;
      if (NodeId r = real_tensor_arg(self); r != kNoNode)
        return binary("mul", real(c), call("aten.unsqueeze.default", {ref(r), num(-1)}));
      if (is_number(self)) return call("aten.mul.Tensor", {ref(real(c)), *self});
      return std::nullopt;
    }
    if ((op == "_to_copy" || op == "to") && b.declares("dtype")) {
      const Arg* dtype = b.get("dtype");
      NodeId x = real_tensor_arg(b.declares("self") ? b.get("self") : nullptr);
      if (!dtype || dtype->kind != Arg::Kind::DType || !is_complex(dtype->dtype) || x == kNoNode ||
          b.given("memory_format"))
        return std::nullopt;
      Arg d;
      d.kind = Arg::Kind::DType;
      d.dtype = real_of(dtype->dtype);
      NodeId re = call("aten._to_copy.default", {ref(x)}, {{"dtype", d}});
      NodeId im = call("aten.zeros_like.default", {ref(re)});
      return stack(re, im);
    }
    if (op == "einsum") return einsum(b);
    if (op == "linear" && b.declares("input")) {
      NodeId x = complex_arg(b.get("input"));
      if (x == kNoNode) return std::nullopt;
      return linear(b, real(x));
    }
    if (op == "pow" && b.declares("exponent")) {  // a real base, a complex exponent
      NodeId w = complex_arg(b.get("exponent"));
      if (w == kNoNode) return std::nullopt;
      if (NodeId x = real_tensor_arg(b.get("self")); x != kNoNode) {
        // x**w = exp(w log x), log x of a real x: log|x| + i pi [x < 0].
        NodeId ax = call("aten.abs.default", {ref(x)});
        NodeId zero = call("aten.zeros_like.default", {ref(x)});
        NodeId lx = stack(call("aten.log.default", {ref(ax)}), binary("atan2", zero, x));
        return exp_of(complex_product(lx, real(w)));
      }
      return std::nullopt;
    }
    if (op == "polar" || op == "complex") {
      NodeId first = real_tensor_arg(b.get(op == "polar" ? "abs" : "real"));
      NodeId second = real_tensor_arg(b.get(op == "polar" ? "angle" : "imag"));
      if (first == kNoNode || second == kNoNode) return std::nullopt;
      if (!same_sizes(g_.value(first).tensor, g_.value(second).tensor)) return std::nullopt;
      if (op == "complex") return stack(first, second);
      NodeId re = times(first, "cos", second);
      return stack(re, times(first, "sin", second));
    }
    return std::nullopt;
  }

  // cat(tensors, dim) of complex tensors (all of them), and stack.
  std::optional<NodeId> cat_stack(const BoundArgs& b, bool is_stack) {
    const Arg* list = b.get("tensors");
    if (!list || list->kind != Arg::Kind::List || list->items.empty()) return std::nullopt;
    std::vector<Arg> items;
    size_t n = 0;
    for (const Arg& item : list->items) {
      NodeId c = complex_arg(&item);
      if (c == kNoNode) return std::nullopt;
      n = rank(c);
      items.push_back(ref(real(c)));
    }
    if (n == 0 && !is_stack) return std::nullopt;
    auto d = real_dim(b.get("dim"), n, is_stack);
    if (!d) return std::nullopt;
    return call(is_stack ? "aten.stack.default" : "aten.cat.default",
                {Arg::list(std::move(items)), num(*d)});
  }

  // a + alpha * b and a - alpha * b for a complex a.
  std::optional<NodeId> add_sub(const BoundArgs& b, NodeId ra, bool subtract) {
    const Arg* other = b.get("other");
    const Arg* alpha = b.declares("alpha") ? b.get("alpha") : nullptr;
    if (alpha && !is_number(alpha)) return std::nullopt;
    std::vector<std::pair<std::string, Arg>> kw;
    if (alpha && b.given("alpha")) kw.push_back({"alpha", *alpha});
    const std::string target = subtract ? "aten.sub.Tensor" : "aten.add.Tensor";
    if (NodeId c = complex_arg(other); c != kNoNode) {
      return call(target, {ref(ra), ref(real(c))}, kw);
    }
    // A real operand changes the real part only; it must not broadcast the result further
    // (the caller undoes the nodes when it would).
    if (NodeId r = real_tensor_arg(other); r != kNoNode) {
      NodeId re = part(ra, 0);
      NodeId col = call("aten.unsqueeze.default", {ref(r), num(-1)});
      NodeId sum = call(target, {ref(re), ref(col)}, kw);
      if (!same_sizes(g_.value(sum).tensor, g_.value(re).tensor)) return std::nullopt;
      return join(sum, part(ra, 1));
    }
    if (is_number(other)) {
      NodeId re = call(target, {ref(part(ra, 0)), *other}, kw);
      return join(re, part(ra, 1));
    }
    return std::nullopt;
  }

  std::optional<NodeId> mul(const BoundArgs& b, NodeId ra) {
    const Arg* other = b.get("other");
    if (NodeId c = complex_arg(other); c != kNoNode) return complex_product(ra, real(c));
    if (NodeId r = real_tensor_arg(other); r != kNoNode) {
      return binary("mul", ra, call("aten.unsqueeze.default", {ref(r), num(-1)}));
    }
    if (is_number(other)) return call("aten.mul.Tensor", {ref(ra), *other});
    return std::nullopt;
  }

  std::optional<NodeId> div(const BoundArgs& b, NodeId ra) {
    if (b.declares("rounding_mode") && b.given("rounding_mode")) return std::nullopt;
    const Arg* other = b.get("other");
    if (NodeId c = complex_arg(other); c != kNoNode) {
      // (a + bi) / (c + di) = ((ac + bd) + (bc - ad) i) / (c^2 + d^2)
      NodeId rb = real(c);
      NodeId ar = part(ra, 0), ai = part(ra, 1), br = part(rb, 0), bi = part(rb, 1);
      NodeId d = sum_of_products(br, br, bi, bi, "add");
      NodeId re = sum_of_products(ar, br, ai, bi, "add");
      NodeId im = sum_of_products(ai, br, ar, bi, "sub");
      NodeId q_re = binary("div", re, d);
      return join(q_re, binary("div", im, d));
    }
    if (NodeId r = real_tensor_arg(other); r != kNoNode) {
      return binary("div", ra, call("aten.unsqueeze.default", {ref(r), num(-1)}));
    }
    if (is_number(other)) return call("aten.div.Tensor", {ref(ra), *other});
    return std::nullopt;
  }

  // ---- complex arithmetic on real views ----

  // a*b of two complex values, elementwise and broadcasting like mul.
  NodeId complex_product(NodeId ra, NodeId rb) {
    NodeId ar = part(ra, 0), ai = part(ra, 1), br = part(rb, 0), bi = part(rb, 1);
    NodeId re = sum_of_products(ar, br, ai, bi, "sub");
    return join(re, sum_of_products(ar, bi, ai, br, "add"));
  }
  NodeId exp_of(NodeId rz) {  // e^a (cos b + i sin b)
    NodeId ar = part(rz, 0), ai = part(rz, 1);
    NodeId ea = call("aten.exp.default", {ref(ar)});
    NodeId re = times(ea, "cos", ai);
    return join(re, times(ea, "sin", ai));
  }
  NodeId log_of(NodeId rz) {  // log|z| + i arg(z), arg in (-pi, pi]
    NodeId ar = pick(rz, 0), ai = pick(rz, 1);
    NodeId re = call("aten.log.default", {ref(binary("hypot", ar, ai))});
    return stack(re, binary("atan2", ai, ar));
  }

  // A bilinear product of complex operands (a matrix product, linear, a two-operand einsum)
  // as real ones: (Ar + i Ai)(Br + i Bi). `product` makes the real product of two parts.
  // Returns the real and imaginary parts, without the trailing dim.
  template <class Product>
  std::pair<NodeId, NodeId> bilinear(Product&& product, NodeId ra, NodeId rb) {
    NodeId ar = pick(ra, 0), ai = pick(ra, 1);
    NodeId br = pick(rb, 0), bi = pick(rb, 1);
    if (ctx_.option("matmul") == "gauss") {
      // Three products: k1 = (Ar + Ai) Br, k2 = Ar (Bi - Br), k3 = Ai (Br + Bi);
      // re = k1 - k3, im = k1 + k2.
      NodeId k1 = product(binary("add", ar, ai), br);
      NodeId k2 = product(ar, binary("sub", bi, br));
      NodeId k3 = product(ai, binary("add", br, bi));
      NodeId re = binary("sub", k1, k3);
      return {re, binary("add", k1, k2)};
    }
    NodeId rr = product(ar, br), ii = product(ai, bi);
    NodeId re = binary("sub", rr, ii);
    NodeId ri = product(ar, bi), ir = product(ai, br);
    return {re, binary("add", ri, ir)};
  }

  std::optional<NodeId> matmul(const std::string& op, NodeId ra, const Arg* other) {
    const std::string target = "aten." + op + ".default";
    auto product = [&](NodeId x, NodeId y) { return call(target, {ref(x), ref(y)}); };
    NodeId c = complex_arg(other);
    if (c == kNoNode) return std::nullopt;  // PyTorch multiplies matrices of one dtype only
    auto [re, im] = bilinear(product, ra, real(c));
    return stack(re, im);
  }

  // linear(input, weight, bias) = input @ weight^T + bias, all complex (one dtype, as PyTorch
  // requires); the bias's parts go into the real products' sums.
  std::optional<NodeId> linear(const BoundArgs& b, NodeId rx) {
    NodeId w = complex_arg(b.get("weight"));
    if (w == kNoNode) return std::nullopt;
    const Arg* bias = b.get("bias");
    NodeId c = complex_arg(bias);
    if (c == kNoNode && bias && bias->kind != Arg::Kind::None) return std::nullopt;
    auto product = [&](NodeId x, NodeId y) {
      return call("aten.linear.default", {ref(x), ref(y)});
    };
    auto [re, im] = bilinear(product, rx, real(w));
    if (c != kNoNode) {
      NodeId rc = real(c);
      re = binary("add", re, pick(rc, 0));
      im = binary("add", im, pick(rc, 1));
    }
    return stack(re, im);
  }

  // einsum of one or two operands, at least one complex: the equation applies to each part
  // (it is linear in each operand). Three or more operands stay complex.
  std::optional<NodeId> einsum(const BoundArgs& b) {
    const Arg* equation = b.get("equation");
    const Arg* list = b.get("tensors");
    if (!equation || equation->kind != Arg::Kind::String || !list ||
        list->kind != Arg::Kind::List || b.given("path"))
      return std::nullopt;
    auto product = [&](std::vector<NodeId> operands) {
      std::vector<Arg> items;
      for (NodeId x : operands) items.push_back(ref(x));
      return call("aten.einsum.default", {*equation, Arg::list(std::move(items))});
    };
    if (list->items.size() == 1) {
      NodeId z = complex_arg(&list->items[0]);
      if (z == kNoNode) return std::nullopt;
      NodeId rz = real(z);
      NodeId re = product({pick(rz, 0)});
      return stack(re, product({pick(rz, 1)}));
    }
    if (list->items.size() != 2) return std::nullopt;
    NodeId x = complex_arg(&list->items[0]), y = complex_arg(&list->items[1]);
    if (x != kNoNode && y != kNoNode) {
      auto [re, im] = bilinear(
          [&](NodeId p, NodeId q) {
            return product({p, q});
          },
          real(x), real(y));
      return stack(re, im);
    }
    // One real operand: it multiplies each part of the complex one.
    NodeId rx = x != kNoNode ? real(x) : real_tensor_arg(&list->items[0]);
    NodeId ry = y != kNoNode ? real(y) : real_tensor_arg(&list->items[1]);
    if (rx == kNoNode || ry == kNoNode) return std::nullopt;
    auto operands = [&](int k) {
      return x != kNoNode ? std::vector<NodeId>{pick(rx, k), ry}
                          : std::vector<NodeId>{rx, pick(ry, k)};
    };
    NodeId re = product(operands(0));
    return stack(re, product(operands(1)));
  }

  PassContext& ctx_;
  MutableGraph& g_;
  NodeId pos_ = kNoNode;
  std::unordered_map<NodeId, NodeId> real_;     // complex node -> its real view
  std::unordered_map<NodeId, NodeId> rebuilt_;  // complex node -> view_as_complex of its view
  Mode mode_;
  std::vector<NodeId> complex_nodes_;  // to erase once unused, in order
  std::unordered_set<NodeId> kept_;    // ops kept on complex values (graph breaks)
  std::vector<NodeId> created_;        // the nodes the current lowering made
  nlohmann::ordered_json io_inputs_ = nlohmann::ordered_json::array();
  nlohmann::ordered_json io_outputs_ = nlohmann::ordered_json::array();
};

void complex_rewrite(PassContext& ctx) {
  const std::string& matmul = ctx.option("matmul");
  if (matmul != "four" && matmul != "gauss") {
    ctx.bad_option("matmul", "must be `four` or `gauss`, got '" + matmul + "'");
  }
  report_onnx_ops(ctx);
  functionalize_graph(ctx);  // a write would go into a rebuilt copy, not into the real view
  Rewriter(ctx, Mode::Full).run();
}

// view_as_real and view_as_complex nodes in the graph.
size_t count_views(const MutableGraph& g) {
  size_t n = 0;
  for (NodeId id : g.order()) {
    const std::string_view op = op_name(g.node(id).target);
    n += op == "view_as_real" || op == "view_as_complex";
  }
  return n;
}

void complex_collectives(PassContext& ctx) {
  const size_t before = count_views(ctx.graph());
  Rewriter(ctx, Mode::Collectives).run();
  const size_t after = count_views(ctx.graph());
  const auto inserted = ctx.counters().find("views inserted");
  const size_t added = inserted == ctx.counters().end() ? 0 : inserted->second;
  // The views the graph had, or that the pass inserted, and that are gone.
  ctx.count("views cancelled", before + added - after);
}

}  // namespace

void register_complex_passes(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "complex-rewrite",
          "complex tensors become real ones with a trailing dim of 2 (real, "
          "imaginary); ops without a real form stay complex and are reported",
          {{"matmul", "four", "complex matrix products as four real ones, or `gauss`: three"}},
          false,
          // A complex product is rounded real products and a rounded sum in
          // float32 where the interpreter's complex64 kernel rounds once: on
          // examples/llama_attention.json (rotary embedding, then attention over
          // 256 features) the outputs differ by up to 1.4e-4, relative.
          3e-4},
      complex_rewrite));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{"complex-collectives",
                         "collectives on complex tensors (and the byte-moving ops between them) "
                         "run on real views, for collective libraries without a complex dtype"},
      complex_collectives));
}

}  // namespace symshape::passes
