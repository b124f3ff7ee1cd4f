// decompose: ops a backend would otherwise need a converter for, rewritten as a few core ops
// (mm, add, mul, sqrt, softmax, reductions, reshape, full ...), one small function per
// decomposition in one registry; and fuse-linear, the inverse direction for backends that have
// a fused linear layer. Sizes a decomposition needs at run time come from `sym_size` nodes (and
// Python's operators on them), never from raw symbols, so a dynamic dim stays dynamic and the
// lowered graph names no symbol that its inputs do not bind.
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <set>

#include "passes/families.h"
#include "passes/functionalize.h"
#include "passes/op_classes.h"
#include "symshape/schema.h"

namespace symshape::passes {

namespace {

bool is_getitem(std::string_view target) {
  return target == "operator.getitem" || target == "_operator.getitem";
}

// What a decomposition made: one value, or the items of a tuple result (read by getitem).
struct Replacement {
  std::optional<NodeId> value;
  std::vector<std::optional<NodeId>> items;  // nullopt: an item the decomposition cannot give
};

class Decomposer;
using DecomposeFn = std::function<Replacement(Decomposer&, NodeId, const BoundArgs&)>;

struct Decomposition {
  std::string name;                  // what --decompose / the `only` option name
  std::vector<std::string> packets;  // aten.linear, aten.add_ (in place: see inplace)
  std::string what;                  // one line, for `symshape passes` and the docs
  DecomposeFn fn;
  // Computed in float32 for float16 / bfloat16 tensors, and rounded to the op's dtype once at
  // the end, as the fused kernel (and PyTorch's own decomposition) does: x * sigmoid(x) rounded
  // to bfloat16 after each step is not silu.
  bool in_float32 = false;
};

// Thrown by a decomposition that does not apply to this call (its arguments, dtypes or sizes):
// the node stays as it is and the report says why.
struct NotApplicable {
  std::string why;
};

class Decomposer {
 public:
  explicit Decomposer(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()) {}

  PassContext& ctx() { return ctx_; }
  MutableGraph& graph() { return g_; }
  // Starts a decomposition of the node at pos; with in_float32, tensor_arg reads float16 and
  // bfloat16 tensors through a cast to float32 (see Decomposition::in_float32).
  void at(NodeId pos, bool in_float32 = false) {
    pos_ = pos;
    created_.clear();
    in_float32_ = in_float32;
    widened_.clear();
  }
  // x as dtype d: x itself when it has it, else a cast.
  NodeId cast(NodeId x, DType d) {
    if (tensor(x).dtype == d) return x;
    return call("aten._to_copy.default", {ref(x)}, {{"dtype", dtype(d)}});
  }
  const std::vector<NodeId>& created() const { return created_; }

  // ---- building ----

  NodeId call(std::string target, std::vector<Arg> args,
              std::vector<std::pair<std::string, Arg>> kwargs = {}) {
    NodeId id = ctx_.create_call(pos_, std::move(target), std::move(args), std::move(kwargs));
    created_.push_back(id);
    return id;
  }
  Arg ref(NodeId id) const { return Arg::node(g_.node(id).name); }
  static Arg num(int64_t v) { return Arg::of_int(Expr(v)); }
  static Arg real(double v) {
    Arg a;
    a.kind = Arg::Kind::Float;
    a.real = v;
    return a;
  }
  static Arg text(std::string s) {
    Arg a;
    a.kind = Arg::Kind::String;
    a.text = std::move(s);
    return a;
  }
  static Arg boolean(bool b) {
    Arg a;
    a.kind = Arg::Kind::Bool;
    a.boolean = b;
    return a;
  }
  static Arg dtype(DType d) {
    Arg a;
    a.kind = Arg::Kind::DType;
    a.dtype = d;
    return a;
  }
  static Arg ints(const std::vector<int64_t>& v) {
    std::vector<Arg> items;
    for (int64_t x : v) items.push_back(num(x));
    return Arg::list(std::move(items));
  }

  NodeId unary(std::string_view op, NodeId x) {
    return call("aten." + std::string(op) + ".default", {ref(x)});
  }
  NodeId binary(std::string_view op, NodeId a, NodeId b) {
    return call("aten." + std::string(op) + ".Tensor", {ref(a), ref(b)});
  }
  NodeId binary(std::string_view op, NodeId a, const Arg& b) {
    return call("aten." + std::string(op) + ".Tensor", {ref(a), b});
  }
  NodeId scaled(NodeId x, double factor) {
    return factor == 1 ? x : binary("mul", x, real(factor));
  }
  NodeId mean(NodeId x, const std::vector<int64_t>& dims, bool keepdim) {
    return call("aten.mean.dim", {ref(x), ints(dims), boolean(keepdim)});
  }
  NodeId rsqrt(NodeId x) { return unary("reciprocal", unary("sqrt", x)); }

  // A size of x as an argument: the constant, or a sym_size node (one per tensor and dim).
  Arg size_arg(NodeId x, size_t d) {
    const Expr& s = tensor(x).sizes.at(d);
    if (s.as_int64().has_value()) return num(s.as_int64().value());
    auto key = std::make_pair(x, d);
    auto it = sizes_.find(key);
    if (it == sizes_.end() || !g_.alive(it->second) || !g_.before(it->second, pos_)) {
      NodeId n = call("aten.sym_size.int", {ref(x), num(static_cast<int64_t>(d))});
      it = sizes_.insert_or_assign(key, n).first;
    }
    return ref(it->second);
  }
  Arg sizes_arg(NodeId x) {
    std::vector<Arg> items;
    for (size_t d = 0; d < rank(x); ++d) items.push_back(size_arg(x, d));
    return Arg::list(std::move(items));
  }
  // a op b for size arguments (constants folded; else operator.add / sub / mul nodes).
  Arg size_op(std::string_view op, const Arg& a, const Arg& b) {
    if (a.kind == Arg::Kind::Int && b.kind == Arg::Kind::Int && a.integer.as_int64().has_value() &&
        b.integer.as_int64().has_value()) {
      const int64_t x = a.integer.as_int64().value(), y = b.integer.as_int64().value();
      return num(op == "add" ? x + y : op == "sub" ? x - y : x * y);
    }
    return ref(call("operator." + std::string(op), {a, b}));
  }

  // ---- reading ----

  const TensorMeta& tensor(NodeId id) const { return g_.value(id).tensor; }
  size_t rank(NodeId id) const { return tensor(id).rank(); }
  // The tensor an argument names; NotApplicable when it is not one.
  NodeId tensor_arg(const BoundArgs& b, std::string_view name) {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    NodeId r = a ? g_.referent(*a) : kNoNode;
    if (r == kNoNode || !g_.value(r).is_tensor())
      throw NotApplicable{"`" + std::string(name) + "` is not a tensor"};
    return in_float32_ ? widened(r) : r;
  }
  // An optional tensor argument: kNoNode when None or absent.
  NodeId optional_tensor(const BoundArgs& b, std::string_view name) {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    if (!a || a->kind == Arg::Kind::None) return kNoNode;
    return tensor_arg(b, name);
  }
  // A number argument that is a constant (its default when not given).
  double number(const BoundArgs& b, std::string_view name, double otherwise) const {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    if (!a || a->kind == Arg::Kind::None) return otherwise;
    if (a->kind == Arg::Kind::Float) return a->real;
    if (a->kind == Arg::Kind::Bool) return a->boolean;
    if (a->kind == Arg::Kind::Int && a->integer.as_int64().has_value())
      return static_cast<double>(a->integer.as_int64().value());
    throw NotApplicable{"`" + std::string(name) + "` is not a constant number"};
  }
  bool flag(const BoundArgs& b, std::string_view name, bool otherwise) const {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    if (!a || a->kind == Arg::Kind::None) return otherwise;
    if (a->kind != Arg::Kind::Bool) throw NotApplicable{"`" + std::string(name) + "` is symbolic"};
    return a->boolean;
  }
  std::optional<int64_t> integer(const BoundArgs& b, std::string_view name) const {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    if (!a || a->kind != Arg::Kind::Int || !a->integer.as_int64().has_value()) return std::nullopt;
    return a->integer.as_int64().value();
  }
  // Dims of a tensor of rank n as non-negative dims: an int, a list, or None / [] (every dim).
  std::vector<int64_t> dims(const BoundArgs& b, std::string_view name, size_t n) const {
    const Arg* a = b.declares(name) ? b.get(name) : nullptr;
    std::vector<int64_t> out;
    auto add = [&](const Arg& d) {
      if (d.kind != Arg::Kind::Int || !d.integer.as_int64().has_value())
        throw NotApplicable{"a dim is not a constant"};
      int64_t k = d.integer.as_int64().value();
      const int64_t r = static_cast<int64_t>(std::max<size_t>(n, 1));
      if (k < -r || k >= r) throw NotApplicable{"a dim is out of range"};
      out.push_back(k < 0 ? k + r : k);
    };
    if (a && a->kind == Arg::Kind::List) {
      for (const Arg& d : a->items) add(d);
    } else if (a && a->kind == Arg::Kind::Int) {
      add(*a);
    }
    if (out.empty())
      for (size_t d = 0; d < n; ++d) out.push_back(static_cast<int64_t>(d));
    return out;
  }
  bool provably_contiguous(NodeId x) {
    const TensorMeta& t = tensor(x);
    TensorMeta c = t;
    c.strides = TensorMeta::contiguous_strides(t.sizes);
    if (t.strides.empty()) return true;
    return ctx_.same_meta(t, c);
  }

 private:
  PassContext& ctx_;
  MutableGraph& g_;
  NodeId pos_ = kNoNode;
  std::vector<NodeId> created_;
  std::map<std::pair<NodeId, size_t>, NodeId> sizes_;
  bool in_float32_ = false;
  std::map<NodeId, NodeId> widened_;  // half-precision tensors read as float32, in this call

  NodeId widened(NodeId x) {
    const DType d = tensor(x).dtype;
    if (d != DType::Float16 && d != DType::BFloat16) return x;
    auto it = widened_.find(x);
    if (it == widened_.end()) it = widened_.emplace(x, cast(x, DType::Float32)).first;
    return it->second;
  }
};

// ---- the decompositions ----

Replacement one(NodeId id) { return Replacement{id, {}}; }

// Per-channel parameters [C] of a tensor [N, C, *] as [C, 1, ..., 1], to broadcast over it.
NodeId per_channel(Decomposer& d, NodeId param, size_t input_rank) {
  if (input_rank <= 2) return param;
  std::vector<int64_t> shape{-1};
  shape.resize(input_rank - 1, 1);
  return d.call("aten.reshape.default", {d.ref(param), Decomposer::ints(shape)});
}

// (x - mean) * weight + bias, optional weight and bias, from x - mean and 1/std.
NodeId affine(Decomposer& d, NodeId centred, NodeId rstd, NodeId weight, NodeId bias) {
  NodeId out = d.binary("mul", centred, rstd);
  if (weight != kNoNode) out = d.binary("mul", out, weight);
  if (bias != kNoNode) out = d.binary("add", out, bias);
  return out;
}

Replacement linear(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "input"), w = d.tensor_arg(b, "weight");
  NodeId bias = d.optional_tensor(b, "bias");
  NodeId out = d.call("aten.matmul.default", {d.ref(x), d.ref(d.unary("t", w))});
  return one(bias == kNoNode ? out : d.binary("add", out, bias));
}

// addmm and baddbmm: beta * self + alpha * (mat1 @ mat2); beta 0 ignores self (NaN included).
Replacement add_product(Decomposer& d, NodeId, const BoundArgs& b, const char* product,
                        const char* a, const char* c) {
  NodeId self = d.tensor_arg(b, "self"), m1 = d.tensor_arg(b, a), m2 = d.tensor_arg(b, c);
  const double beta = d.number(b, "beta", 1), alpha = d.number(b, "alpha", 1);
  if (!is_floating(d.tensor(self).dtype) &&
      (beta != std::trunc(beta) || alpha != std::trunc(alpha)))
    throw NotApplicable{"a fractional beta or alpha on an integer tensor"};
  NodeId prod = d.scaled(d.call(product, {d.ref(m1), d.ref(m2)}), alpha);
  if (beta == 0) return one(prod);
  return one(d.binary("add", d.scaled(self, beta), prod));
}

Replacement log_softmax(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "self");
  if (d.flag(b, "half_to_float", false) || (b.declares("dtype") && b.given("dtype")))
    throw NotApplicable{"a change of dtype"};
  const Arg* dim = b.get("dim");
  NodeId soft = d.call("aten._softmax.default", {d.ref(x), *dim, Decomposer::boolean(false)});
  return one(d.unary("log", soft));
}

Replacement gelu(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "self");
  const Arg* approximate = b.get("approximate");
  const std::string mode = approximate ? approximate->text : "none";
  NodeId half = d.scaled(x, 0.5);
  NodeId inner;
  if (mode == "none") {  // x/2 (1 + erf(x / sqrt 2))
    inner = d.unary("erf", d.scaled(x, std::numbers::sqrt2 / 2));
  } else if (mode == "tanh") {  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    NodeId cube = d.call("aten.pow.Tensor_Scalar", {d.ref(x), Decomposer::num(3)});
    NodeId sum = d.binary("add", x, d.scaled(cube, 0.044715));
    inner = d.unary("tanh", d.scaled(sum, std::sqrt(2 / std::numbers::pi)));
  } else {
    throw NotApplicable{"approximate='" + mode + "'"};
  }
  return one(d.binary("mul", half, d.binary("add", inner, Decomposer::num(1))));
}

// var, std, var_mean, std_mean: sum((x - mean)^2) / max(0, N - correction) over the dims.
Replacement variance(Decomposer& d, NodeId id, const BoundArgs& b, bool root, bool with_mean) {
  NodeId x = d.tensor_arg(b, "self");
  const DType dt = d.tensor(x).dtype;
  if (!is_floating(dt)) throw NotApplicable{"a " + std::string(to_string(dt)) + " tensor"};
  const size_t n = d.rank(x);
  std::vector<int64_t> dims = d.dims(b, "dim", n);
  if (n == 0) dims.clear();
  double correction = 1;
  if (b.declares("correction")) {
    correction = d.number(b, "correction", 1);
  } else if (b.declares("unbiased")) {
    correction = d.flag(b, "unbiased", true) ? 1 : 0;
  }
  if (correction != std::trunc(correction) || correction < 0)
    throw NotApplicable{"a correction that is not a non-negative integer"};
  const bool keepdim = d.flag(b, "keepdim", false);
  // N, the number of elements reduced, and N - correction, which must not go below 0.
  Expr count(1);
  Arg count_arg = Decomposer::num(1);
  for (int64_t k : dims) {
    count = count * d.tensor(x).sizes[static_cast<size_t>(k)];
    count_arg = d.size_op("mul", count_arg, d.size_arg(x, static_cast<size_t>(k)));
  }
  const int64_t c = static_cast<int64_t>(correction);
  Arg divisor;
  if (count.as_int64().has_value()) {
    divisor = Decomposer::num(std::max<int64_t>(0, count.as_int64().value() - c));
  } else if (d.ctx().provably(count >= Expr(c))) {
    divisor = d.size_op("sub", count_arg, Decomposer::num(c));
  } else {
    throw NotApplicable{"N - correction may be negative"};
  }
  NodeId centred = d.binary("sub", x, dims.empty() ? x : d.mean(x, dims, true));
  NodeId squares = d.binary("mul", centred, centred);
  NodeId sum = dims.empty()
                   ? squares
                   : d.call("aten.sum.dim_IntList",
                            {d.ref(squares), Decomposer::ints(dims), Decomposer::boolean(keepdim)});
  NodeId var = d.binary("div", sum, divisor);
  if (root) var = d.unary("sqrt", var);
  if (!with_mean) return one(var);
  (void)id;
  NodeId mean = dims.empty() ? x : d.mean(x, dims, keepdim);
  return Replacement{std::nullopt, {var, mean}};
}

// layer_norm and native_layer_norm (out, mean, rstd) over the trailing normalized dims.
Replacement layer_norm(Decomposer& d, NodeId, const BoundArgs& b, bool native) {
  NodeId x = d.tensor_arg(b, "input");
  const Arg* shape = b.get("normalized_shape");
  if (!shape || shape->kind != Arg::Kind::List || shape->items.empty() ||
      shape->items.size() > d.rank(x))
    throw NotApplicable{"normalized_shape is not a list of the trailing sizes"};
  if (!is_floating(d.tensor(x).dtype)) throw NotApplicable{"a non-floating input"};
  std::vector<int64_t> dims;
  for (size_t k = d.rank(x) - shape->items.size(); k < d.rank(x); ++k)
    dims.push_back(static_cast<int64_t>(k));
  const double eps = d.number(b, "eps", 1e-5);
  NodeId mean = d.mean(x, dims, true);
  NodeId centred = d.binary("sub", x, mean);
  NodeId var = d.mean(d.binary("mul", centred, centred), dims, true);
  NodeId rstd = d.rsqrt(d.binary("add", var, Decomposer::real(eps)));
  NodeId out =
      affine(d, centred, rstd, d.optional_tensor(b, "weight"), d.optional_tensor(b, "bias"));
  if (!native) return one(out);
  return Replacement{std::nullopt, {out, mean, rstd}};
}

// group_norm: [N, C, *] as [N, G, C/G * prod(*)], normalized per group, then per-channel affine.
Replacement group_norm(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "input");
  const auto groups = d.integer(b, "num_groups");
  const TensorMeta t = d.tensor(x);  // a copy: building nodes moves the graph's values
  if (t.rank() < 2 || !groups || *groups <= 0 || !t.sizes[1].as_int64().has_value() ||
      t.sizes[1].as_int64().value() % *groups != 0)
    throw NotApplicable{"channels not a constant multiple of num_groups"};
  if (!is_floating(t.dtype)) throw NotApplicable{"a non-floating input"};
  const double eps = d.number(b, "eps", 1e-5);
  // C/G * prod(*) elements per group, as a size argument.
  Arg per_group = Decomposer::num(t.sizes[1].as_int64().value() / *groups);
  for (size_t k = 2; k < t.rank(); ++k) per_group = d.size_op("mul", per_group, d.size_arg(x, k));
  NodeId grouped =
      d.call("aten.reshape.default",
             {d.ref(x), Arg::list({d.size_arg(x, 0), Decomposer::num(*groups), per_group})});
  NodeId mean = d.mean(grouped, {2}, true);
  NodeId centred = d.binary("sub", grouped, mean);
  NodeId var = d.mean(d.binary("mul", centred, centred), {2}, true);
  NodeId rstd = d.rsqrt(d.binary("add", var, Decomposer::real(eps)));
  NodeId normed =
      d.call("aten.reshape.default", {d.ref(d.binary("mul", centred, rstd)), d.sizes_arg(x)});
  NodeId w = d.optional_tensor(b, "weight"), bias = d.optional_tensor(b, "bias");
  NodeId out = normed;
  if (w != kNoNode) out = d.binary("mul", out, per_channel(d, w, t.rank()));
  if (bias != kNoNode) out = d.binary("add", out, per_channel(d, bias, t.rank()));
  return one(out);
}

// batch_norm in inference: (x - running_mean) / sqrt(running_var + eps) * weight + bias.
Replacement batch_norm(Decomposer& d, NodeId, const BoundArgs& b, bool legit) {
  NodeId x = d.tensor_arg(b, "input");
  if (!legit && d.flag(b, "training", true)) throw NotApplicable{"training mode"};
  NodeId rm = d.tensor_arg(b, "running_mean"), rv = d.tensor_arg(b, "running_var");
  const size_t n = d.rank(x);
  const double eps = d.number(b, "eps", 1e-5);
  NodeId centred = d.binary("sub", x, per_channel(d, rm, n));
  NodeId rstd = d.rsqrt(d.binary("add", per_channel(d, rv, n), Decomposer::real(eps)));
  NodeId w = d.optional_tensor(b, "weight"), bias = d.optional_tensor(b, "bias");
  NodeId out = affine(d, centred, rstd, w == kNoNode ? kNoNode : per_channel(d, w, n),
                      bias == kNoNode ? kNoNode : per_channel(d, bias, n));
  if (!legit) return one(out);
  return Replacement{std::nullopt, {out, std::nullopt, std::nullopt}};
}

// instance_norm with the input's statistics: per (sample, channel) over the spatial dims.
Replacement instance_norm(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "input");
  if (!d.flag(b, "use_input_stats", true)) throw NotApplicable{"running statistics"};
  const size_t n = d.rank(x);
  if (n < 3 || !is_floating(d.tensor(x).dtype)) throw NotApplicable{"no spatial dims"};
  std::vector<int64_t> dims;
  for (size_t k = 2; k < n; ++k) dims.push_back(static_cast<int64_t>(k));
  const double eps = d.number(b, "eps", 1e-5);
  NodeId centred = d.binary("sub", x, d.mean(x, dims, true));
  NodeId var = d.mean(d.binary("mul", centred, centred), dims, true);
  NodeId rstd = d.rsqrt(d.binary("add", var, Decomposer::real(eps)));
  NodeId w = d.optional_tensor(b, "weight"), bias = d.optional_tensor(b, "bias");
  return one(affine(d, centred, rstd, w == kNoNode ? kNoNode : per_channel(d, w, n),
                    bias == kNoNode ? kNoNode : per_channel(d, bias, n)));
}

// full_like and friends: full / empty with sizes read from sym_size nodes.
Replacement like(Decomposer& d, NodeId, const BoundArgs& b, std::optional<double> fill) {
  NodeId x = d.tensor_arg(b, "self");
  const Arg* format = b.declares("memory_format") ? b.get("memory_format") : nullptr;
  const bool contiguous_asked =
      format && format->kind == Arg::Kind::MemoryFormat && format->text == "contiguous_format";
  if (!contiguous_asked && !d.provably_contiguous(x))
    throw NotApplicable{"the result keeps a non-contiguous layout"};
  const Arg* dt = b.declares("dtype") ? b.get("dtype") : nullptr;
  const Arg dtype = dt && dt->kind == Arg::Kind::DType ? *dt : Decomposer::dtype(d.tensor(x).dtype);
  std::vector<std::pair<std::string, Arg>> kw{{"dtype", dtype}};
  if (!fill) return one(d.call("aten.empty.memory_format", {d.sizes_arg(x)}, kw));
  Arg value = Decomposer::real(*fill);
  if (b.declares("fill_value")) value = *b.get("fill_value");
  return one(d.call("aten.full.default", {d.sizes_arg(x), value}, kw));
}

// select_scatter(input, src, dim, index) = slice_scatter(input, src[dim], dim, i, i + 1).
Replacement select_scatter(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "self"), src = d.tensor_arg(b, "src");
  const size_t n = d.rank(x);
  if (n == 0) throw NotApplicable{"a 0-dim input"};
  const int64_t dim = d.dims(b, "dim", n).at(0);
  const Arg* index = b.get("index");
  Arg start = *index;
  const bool constant = index->kind == Arg::Kind::Int && index->integer.as_int64().has_value();
  if (!constant) throw NotApplicable{"a symbolic index"};
  if (index->integer.as_int64().value() < 0) {  // counted from the end: size + index
    start = d.size_op("add", d.size_arg(x, static_cast<size_t>(dim)), *index);
  }
  NodeId col = d.call("aten.unsqueeze.default", {d.ref(src), Decomposer::num(dim)});
  Arg end = d.size_op("add", start, Decomposer::num(1));
  return one(d.call("aten.slice_scatter.default",
                    {d.ref(x), d.ref(col), Decomposer::num(dim), start, end, Decomposer::num(1)}));
}

Replacement scatter_add(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId x = d.tensor_arg(b, "self"), index = d.tensor_arg(b, "index"),
         src = d.tensor_arg(b, "src");
  return one(d.call("aten.scatter_reduce.two",
                    {d.ref(x), *b.get("dim"), d.ref(index), d.ref(src), Decomposer::text("sum")},
                    {{"include_self", Decomposer::boolean(true)}}));
}

// scaled_dot_product_attention: softmax(q k^T * scale + mask) v.
Replacement attention(Decomposer& d, NodeId, const BoundArgs& b) {
  NodeId q = d.tensor_arg(b, "query"), k = d.tensor_arg(b, "key"), v = d.tensor_arg(b, "value");
  if (d.number(b, "dropout_p", 0) != 0) throw NotApplicable{"dropout"};
  if (b.declares("enable_gqa") && d.flag(b, "enable_gqa", false))
    throw NotApplicable{"grouped-query attention"};
  const size_t n = d.rank(q);
  if (n < 2 || d.rank(k) < 2) throw NotApplicable{"query or key of rank below 2"};
  double scale = d.number(b, "scale", 0);
  if (!b.declares("scale") || !b.given("scale") || b.get("scale")->kind == Arg::Kind::None) {
    const Expr& e = d.tensor(q).sizes[n - 1];
    if (!e.as_int64().has_value() || e.as_int64().value() <= 0)
      throw NotApplicable{"a symbolic head size"};
    scale = 1 / std::sqrt(static_cast<double>(e.as_int64().value()));
  }
  NodeId kt = d.call("aten.transpose.int", {d.ref(k), Decomposer::num(-2), Decomposer::num(-1)});
  NodeId scores = d.scaled(d.call("aten.matmul.default", {d.ref(q), d.ref(kt)}), scale);
  NodeId mask = d.optional_tensor(b, "attn_mask");
  if (d.flag(b, "is_causal", false)) {
    if (mask != kNoNode) throw NotApplicable{"both a mask and is_causal"};
    // tril(ones(L, S)) as bool, built as arange(S) <= arange(L)[:, None]: a query attends to
    // the keys up to its own position.
    Arg l = d.size_arg(q, n - 2), s = d.size_arg(k, d.rank(k) - 2);
    const std::vector<std::pair<std::string, Arg>> int64{
        {"dtype", Decomposer::dtype(DType::Int64)}};
    NodeId rows = d.call("aten.arange.default", {l}, int64);
    NodeId cols = d.call("aten.arange.default", {s}, int64);
    NodeId column = d.call("aten.unsqueeze.default", {d.ref(rows), Decomposer::num(-1)});
    mask = d.binary("le", cols, column);
  }
  if (mask != kNoNode) {
    if (d.tensor(mask).dtype == DType::Bool) {
      NodeId hidden = d.unary("logical_not", mask);
      scores = d.call("aten.masked_fill.Scalar",
                      {d.ref(scores), d.ref(hidden), Decomposer::real(-INFINITY)});
    } else {
      scores = d.binary("add", scores, mask);
    }
  }
  NodeId weights = d.call("aten._softmax.default",
                          {d.ref(scores), Decomposer::num(-1), Decomposer::boolean(false)});
  return one(d.call("aten.matmul.default", {d.ref(weights), d.ref(v)}));
}

// The decompositions, by name, in the order the docs list them.
const std::vector<Decomposition>& decompositions() {
  using R = Replacement;
  static const std::vector<Decomposition> kAll = {
      {"linear", {"aten.linear"}, "matmul(input, t(weight)) + bias", linear},
      {"addmm",
       {"aten.addmm"},
       "beta * self + alpha * mm(mat1, mat2) (beta 0 ignores self)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) {
         return add_product(d, id, b, "aten.mm.default", "mat1", "mat2");
       }},
      {"baddbmm",
       {"aten.baddbmm"},
       "beta * self + alpha * bmm(batch1, batch2)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) {
         return add_product(d, id, b, "aten.bmm.default", "batch1", "batch2");
       }},
      {"log_softmax",
       {"aten._log_softmax", "aten.log_softmax"},
       "log(softmax(x, dim))",
       log_softmax,
       true},
      {"rsqrt",
       {"aten.rsqrt"},
       "reciprocal(sqrt(x))",
       [](Decomposer& d, NodeId, const BoundArgs& b) -> R {
         return one(d.rsqrt(d.tensor_arg(b, "self")));
       },
       true},
      {"silu",
       {"aten.silu"},
       "x * sigmoid(x)",
       [](Decomposer& d, NodeId, const BoundArgs& b) -> R {
         NodeId x = d.tensor_arg(b, "self");
         return one(d.binary("mul", x, d.unary("sigmoid", x)));
       },
       true},
      {"gelu", {"aten.gelu"}, "x/2 (1 + erf(x/sqrt 2)), or the tanh form", gelu, true},
      {"var",
       {"aten.var"},
       "sum((x - mean)^2) / (N - correction)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) {
         return variance(d, id, b, false, false);
       },
       true},
      {"std",
       {"aten.std"},
       "sqrt of var",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return variance(d, id, b, true, false); },
       true},
      {"var_mean",
       {"aten.var_mean"},
       "(var, mean)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return variance(d, id, b, false, true); },
       true},
      {"std_mean",
       {"aten.std_mean"},
       "(std, mean)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return variance(d, id, b, true, true); },
       true},
      {"layer_norm",
       {"aten.layer_norm"},
       "(x - mean) / sqrt(var + eps) * weight + bias over the normalized dims",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return layer_norm(d, id, b, false); },
       true},
      {"native_layer_norm",
       {"aten.native_layer_norm"},
       "layer_norm, with its mean and 1/std",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return layer_norm(d, id, b, true); },
       true},
      {"group_norm",
       {"aten.group_norm"},
       "layer_norm per group of channels, per-channel affine",
       group_norm,
       true},
      {"batch_norm",
       {"aten.batch_norm"},
       "inference: (x - running_mean) / sqrt(running_var + eps) * weight + bias",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return batch_norm(d, id, b, false); },
       true},
      {"_native_batch_norm_legit_no_training",
       {"aten._native_batch_norm_legit_no_training"},
       "batch_norm in inference (its saved statistics unused)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return batch_norm(d, id, b, true); },
       true},
      {"instance_norm",
       {"aten.instance_norm"},
       "normalized per sample and channel over space",
       instance_norm,
       true},
      {"view",
       {"aten.view", "aten._unsafe_view", "aten._reshape_alias"},
       "reshape",
       [](Decomposer& d, NodeId id, const BoundArgs& b) -> R {
         if (b.schema()->overload == "dtype") throw NotApplicable{"a view as another dtype"};
         NodeId x = d.tensor_arg(b, "self");
         (void)id;
         return one(d.call("aten.reshape.default", {d.ref(x), *b.get("size")}));
       }},
      {"full_like",
       {"aten.full_like"},
       "full(sizes from sym_size, fill_value)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return like(d, id, b, 0.0); }},
      {"zeros_like",
       {"aten.zeros_like"},
       "full(sizes, 0)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return like(d, id, b, 0.0); }},
      {"ones_like",
       {"aten.ones_like"},
       "full(sizes, 1)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return like(d, id, b, 1.0); }},
      {"empty_like",
       {"aten.empty_like"},
       "empty(sizes)",
       [](Decomposer& d, NodeId id, const BoundArgs& b) { return like(d, id, b, std::nullopt); }},
      {"select_scatter",
       {"aten.select_scatter"},
       "slice_scatter of unsqueeze(src, dim)",
       select_scatter},
      {"scatter_add",
       {"aten.scatter_add"},
       "scatter_reduce(..., 'sum', include_self=True)",
       scatter_add},
      {"t",
       {"aten.t"},
       "transpose(x, 0, 1); the input itself below 2 dims",
       [](Decomposer& d, NodeId, const BoundArgs& b) -> R {
         NodeId x = d.tensor_arg(b, "self");
         if (d.rank(x) < 2) return one(x);
         return one(
             d.call("aten.transpose.int", {d.ref(x), Decomposer::num(0), Decomposer::num(1)}));
       }},
      {"expand_same",
       {"aten.expand"},
       "the input, when the sizes are provably its own",
       [](Decomposer& d, NodeId id, const BoundArgs& b) -> R {
         NodeId x = d.tensor_arg(b, "self");
         const TensorMeta &in = d.tensor(x), &out = d.tensor(id);
         if (!d.ctx().same_meta(in, out)) throw NotApplicable{"a real expand"};
         return one(x);
       }},
      {"scaled_dot_product_attention",
       {"aten.scaled_dot_product_attention"},
       "softmax(q k^T * scale, masked) v",
       attention,
       true},
  };
  return kAll;
}

// The names a pipeline asked for: `only` (every one when empty) without `skip`.
std::set<std::string> selected(PassContext& ctx) {
  std::set<std::string> known{"inplace"};
  for (const Decomposition& d : decompositions()) known.insert(d.name);
  auto parse = [&](const std::string& option) {
    std::set<std::string> names;
    std::string_view text = ctx.option(option);
    while (!text.empty()) {
      size_t comma = text.find_first_of(",|\n");  // a flag given twice: one per line
      std::string name(text.substr(0, comma));
      text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
      if (name.empty()) continue;
      if (!known.count(name)) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        ctx.bad_option(option, "unknown decomposition '" + name + "' (known: " + list + ")");
      }
      names.insert(name);
    }
    return names;
  };
  std::set<std::string> only = parse("only"), skip = parse("skip");
  std::set<std::string> out;
  for (const std::string& k : known)
    if ((only.empty() || only.count(k)) && !skip.count(k)) out.insert(k);
  return out;
}

class DecomposePass {
 public:
  explicit DecomposePass(PassContext& ctx) : ctx_(ctx), g_(ctx.graph()), d_(ctx) {}

  void run() {
    const std::set<std::string> wanted = selected(ctx_);
    std::map<std::string, const Decomposition*, std::less<>> by_packet;
    for (const Decomposition& d : decompositions())
      if (wanted.count(d.name))
        for (const std::string& p : d.packets) by_packet.emplace(p, &d);
    report_onnx_ops(ctx_);
    // In-place ops and writes through views first (decompositions build functional graphs).
    if (wanted.count("inplace")) {
      auto writes = [&] {
        auto it = ctx_.counters().find("writes made functional");
        return it == ctx_.counters().end() ? size_t{0} : it->second;
      };
      const size_t before = writes();
      functionalize_graph(ctx_);
      if (const size_t made = writes() - before) {
        ctx_.count("decomposed", made);
        ctx_.count("decomposed: inplace", made);
      }
    }
    // To a fixpoint: a node a decomposition creates is decomposed in turn when one applies (a
    // `silu_` made functional becomes `silu`, then `x * sigmoid(x)`). Each round visits the
    // nodes made by the one before; a decomposition never makes its own op again, so the
    // rounds end (bounded anyway, naming the ops left).
    std::vector<NodeId> round = g_.order();
    for (int depth = 0; !round.empty(); ++depth) {
      std::vector<NodeId> made;
      for (NodeId id : round) {
        if (!g_.alive(id) || g_.node(id).op != NodeOp::CallFunction) continue;
        const TargetName parsed = parse_target(g_.node(id).target);
        if (parsed.in_place) continue;
        auto it = by_packet.find(parsed.packet);
        if (it == by_packet.end()) continue;
        if (depth >= kMaxRounds)
          ctx_.fail(id, "decompose: still decomposing after " + std::to_string(kMaxRounds) +
                            " rounds (" + it->second->name + " keeps making ops to decompose)");
        if (apply(id, *it->second))
          made.insert(made.end(), d_.created().begin(), d_.created().end());
      }
      round = std::move(made);
    }
    if (rederive_) ctx_.rederive_all();
  }

 private:
  void keep(const std::string& name, const std::string& why) {
    ctx_.count("kept " + name + ": " + why);
  }

  static constexpr int kMaxRounds = 16;

  // Decomposes one node; false (the node kept, the report saying why) when it does not apply.
  bool apply(NodeId id, const Decomposition& dec) {
    d_.at(id, dec.in_float32);
    Replacement r;
    BoundArgs b;
    try {
      b = bind_arguments(g_.node(id), SchemaTable::instance().overloads(g_.node(id).target),
                         [&](const Arg& a) {
                           NodeId ref = g_.referent(a);
                           return ref == kNoNode ? ArgClass::Other : arg_class_of(g_.value(ref));
                         });
      r = dec.fn(d_, id, b);
      if (dec.in_float32) r = narrowed(id, r);
      if (!install(id, r))
        throw NotApplicable{"a result item the decomposition does not give is used"};
    } catch (const NotApplicable& e) {
      undo();
      keep(dec.name, e.why);
      return false;
    } catch (const PassError&) {
      throw;
    } catch (const Error& e) {  // a rule refused a node this decomposition built
      undo();
      keep(dec.name, e.what());
      return false;
    }
    ctx_.count("decomposed");
    ctx_.count("decomposed: " + dec.name);
    return true;
  }

  // A result computed in float32 for a half-precision op, rounded back to the op's dtypes.
  Replacement narrowed(NodeId id, Replacement r) {
    const Value& v = g_.value(id);
    auto narrow = [&](std::optional<NodeId>& item, const Value& was) {
      if (item && was.is_tensor() && g_.value(*item).is_tensor())
        item = d_.cast(*item, was.tensor.dtype);
    };
    narrow(r.value, v);
    for (size_t k = 0; k < r.items.size() && k < v.items.size(); ++k)
      narrow(r.items[k], v.items[k]);
    return r;
  }

  void undo() {
    const std::vector<NodeId> made = d_.created();
    for (auto it = made.rbegin(); it != made.rend(); ++it)
      if (g_.alive(*it) && !g_.has_users(*it)) g_.erase(*it);
  }

  // Whether value `now` may stand for `was`: the same dtype and sizes (strides may differ; the
  // metadata downstream is then re-derived).
  bool same_value(const Value& was, const Value& now) {
    if (!was.is_tensor() || !now.is_tensor()) return false;
    const TensorMeta &a = was.tensor, &b = now.tensor;
    if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
    for (size_t k = 0; k < a.rank(); ++k)
      if (!ctx_.provably(a.sizes[k] == b.sizes[k])) return false;
    if (!ctx_.same_meta(a, b)) rederive_ = true;
    return true;
  }

  // Points the users of id at the replacement and erases id; false (nothing changed) when the
  // replacement does not fit.
  bool install(NodeId id, const Replacement& r) {
    if (r.value) {
      if (!same_value(g_.value(id), g_.value(*r.value)))
        throw NotApplicable{"the result's dtype or sizes would differ"};
      g_.replace_all_uses(id, *r.value);
      g_.erase(id);
      return true;
    }
    // A tuple: every user must be a getitem of an item the decomposition gives, or one nothing
    // reads (a trace keeps the getitems of items it never uses: a batch norm's statistics),
    // which goes with the op.
    const Value& v = g_.value(id);
    std::vector<std::pair<NodeId, NodeId>> swaps;
    std::vector<NodeId> unread;
    for (NodeId u : g_.users(id)) {
      const Node& user = g_.node(u);
      if (!is_getitem(user.target) || user.args.size() != 2 ||
          user.args[1].kind != Arg::Kind::Int || !user.args[1].integer.as_int64().has_value())
        return false;
      const int64_t k = user.args[1].integer.as_int64().value();
      if (k < 0 || static_cast<size_t>(k) >= r.items.size() || !r.items[k]) {
        if (g_.has_users(u)) return false;
        unread.push_back(u);
        continue;
      }
      if (static_cast<size_t>(k) >= v.items.size() ||
          !same_value(v.items[static_cast<size_t>(k)], g_.value(*r.items[k])))
        throw NotApplicable{"an item's dtype or sizes would differ"};
      swaps.push_back({u, *r.items[k]});
    }
    for (auto [user, item] : swaps) {
      g_.replace_all_uses(user, item);
      g_.erase(user);
    }
    for (NodeId u : unread) g_.erase(u);
    g_.erase(id);
    return true;
  }

  PassContext& ctx_;
  MutableGraph& g_;
  Decomposer d_;
  bool rederive_ = false;
};

void decompose(PassContext& ctx) { DecomposePass(ctx).run(); }

// ---- fuse-linear ----

// The weight w when x is t(w), transpose(w, 0, 1) / (1, 0) or permute(w, [1, 0]) of a 2-d w.
NodeId transposed_weight(const MutableGraph& g, NodeId x) {
  const Node& n = g.node(x);
  if (n.op != NodeOp::CallFunction || n.args.empty()) return kNoNode;
  const NodeId w = g.referent(n.args[0]);
  if (w == kNoNode || !g.value(w).is_tensor() || g.value(w).tensor.rank() != 2) return kNoNode;
  const std::string_view op = op_name(n.target);
  auto constant = [&](size_t i) -> std::optional<int64_t> {
    if (i >= n.args.size() || n.args[i].kind != Arg::Kind::Int ||
        !n.args[i].integer.as_int64().has_value())
      return std::nullopt;
    return n.args[i].integer.as_int64().value();
  };
  if (op == "t" && n.args.size() == 1) return w;
  if (op == "transpose" && n.args.size() == 3) {
    auto a = constant(1), b = constant(2);
    if (a && b && ((*a + 2) % 2) != ((*b + 2) % 2)) return w;
  }
  if (op == "permute" && n.args.size() == 2 && n.args[1].kind == Arg::Kind::List &&
      n.args[1].items.size() == 2) {
    const Arg& p = n.args[1].items[0];
    if (p.kind == Arg::Kind::Int && p.integer.as_int64().has_value() &&
        (p.integer.as_int64().value() == 1 || p.integer.as_int64().value() == -1))
      return w;
  }
  return kNoNode;
}

// addmm(bias, x, t(w)) with beta = alpha = 1, and add(matmul(x, t(w)), bias) with a 1-d bias
// (either order), become linear(x, w, bias).
void fuse_linear(PassContext& ctx) {
  MutableGraph& g = ctx.graph();
  auto is_default_scale = [](const Node& n, const char* key, size_t position) {
    const Arg* a = n.kwarg(key);
    if (!a && position < n.args.size()) a = &n.args[position];
    if (!a) return true;
    return (a->kind == Arg::Kind::Int && a->integer.as_int64().has_value() &&
            a->integer.as_int64().value() == 1) ||
           (a->kind == Arg::Kind::Float && a->real == 1);
  };
  auto one_d = [&](NodeId b) {
    return b != kNoNode && g.value(b).is_tensor() && g.value(b).tensor.rank() == 1;
  };
  for (NodeId id : g.order()) {
    if (!g.alive(id)) continue;
    const Node n = g.node(id);
    if (n.op != NodeOp::CallFunction || writes_in_place(n)) continue;
    NodeId x = kNoNode, w = kNoNode, bias = kNoNode;
    if (n.target == "aten.addmm.default" && n.args.size() >= 3 && is_default_scale(n, "beta", 3) &&
        is_default_scale(n, "alpha", 4)) {
      bias = g.referent(n.args[0]);
      x = g.referent(n.args[1]);
      const NodeId m2 = g.referent(n.args[2]);
      w = m2 == kNoNode ? kNoNode : transposed_weight(g, m2);
    } else if (n.target == "aten.add.Tensor" && n.args.size() == 2 && !n.kwarg("alpha")) {
      for (size_t side : {0, 1}) {
        const NodeId mm = g.referent(n.args[side]);
        const NodeId other = g.referent(n.args[1 - side]);
        if (mm == kNoNode || !one_d(other)) continue;
        const Node& m = g.node(mm);
        if (m.op != NodeOp::CallFunction ||
            (m.target != "aten.matmul.default" && m.target != "aten.mm.default") ||
            m.args.size() != 2 || g.users(mm).size() != 1)
          continue;
        const NodeId rhs = g.referent(m.args[1]);
        if (rhs == kNoNode || (w = transposed_weight(g, rhs)) == kNoNode) continue;
        x = g.referent(m.args[0]);
        bias = other;
        break;
      }
    }
    if (x == kNoNode || w == kNoNode || !one_d(bias)) continue;
    const Value before = g.value(id);
    NodeId fused = ctx.create_call(
        id, "aten.linear.default",
        {Arg::node(g.node(x).name), Arg::node(g.node(w).name), Arg::node(g.node(bias).name)});
    if (!ctx.same_meta(before.tensor, g.value(fused).tensor)) {  // a broadcast bias, a dtype
      g.erase(fused);
      continue;
    }
    g.replace_all_uses(id, fused);
    g.erase(id);
    ctx.count("fused into linear");
  }
}

}  // namespace

void register_decompose_passes(PassRegistry& r) {
  std::string names = "inplace";
  for (const Decomposition& d : decompositions()) names += ", " + d.name;
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "decompose",
          "ops rewritten as a few core ops (linear, addmm, norms, gelu, var, attention, "
          "in-place ops, ...); sizes come from sym_size nodes",
          {{"only", "", "decompositions to apply, comma-separated (default: every one): " + names},
           {"skip", "", "decompositions not to apply, comma-separated"}},
          false,
          // A decomposed norm or gelu rounds each float32 step where the interpreter's fused
          // kernel accumulates in double.
          1e-4},
      decompose));
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "fuse-linear",
          "addmm(bias, x, t(w)) and matmul(x, t(w)) + bias become linear(x, w, bias)"},
      fuse_linear));
}

}  // namespace symshape::passes
