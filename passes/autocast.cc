// autocast: rule-based mixed precision (Torch-TensorRT's rule-based autocast; semantics in
// ../shared/SEMANTICS.md, "Autocast"). Every floating-point node (a call whose result holds a
// float32 tensor computed from floating-point tensors) runs in the low type (float16 or bfloat16)
// unless a rule keeps it in float32: its name matches an excluded regex, its op is excluded, its
// inputs' or users' recorded magnitudes exceed a threshold, its reduction depth may exceed a
// maximum (a symbolic depth decided by the ShapeEnv from ranges, never by a guard), it sits in a
// region marked `"autocast": "high"`, or it has a dtype argument of its own.
//
// Casts are real `_to_copy(x, dtype=...)` nodes whose metadata the shape rules derive: a cast is
// inserted before a consumer whose input has another dtype than the consumer computes in (a
// low-precision node takes its floating inputs in the low type; every other consumer, the
// graph's output included, takes each input in the dtype it had before the pass), one per
// (value, dtype), shared by every consumer after it. Integer and bool tensors are never cast, and
// sizes are never touched (a cast keeps its input's symbolic sizes).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "passes/families.h"
#include "passes/functionalize.h"
#include "passes/op_classes.h"
#include "symshape/interp.h"
#include "symshape/ir/float_text.h"
#include "symshape/schema.h"

namespace symshape::passes {

namespace {

constexpr std::string_view kCast = "aten._to_copy.default";

// ---- options ----

struct Options {
  DType low = DType::Float16;
  std::vector<std::pair<std::string, std::regex>> exclude_node;  // as written, compiled
  std::vector<std::string> exclude_op;
  double threshold = 512;
  std::optional<int64_t> max_depth;       // nullopt: no limit
  std::map<std::string, double> max_abs;  // recorded magnitudes by node name
};

[[noreturn]] void bad_option(const PassContext& ctx, std::string_view option,
                             const std::string& message) {
  ctx.bad_option(option, message);
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// The items of a list option: one per line (the CLI joins a repeated flag's values with
// newlines), and also split at `separators`; empty items are dropped.
std::vector<std::string> list_items(std::string_view text, std::string_view separators) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n' || separators.find(text[i]) != std::string_view::npos) {
      std::string item = trim(text.substr(start, i - start));
      if (!item.empty()) out.push_back(std::move(item));
      start = i + 1;
    }
  }
  return out;
}

// A single-valued option given more than once (a repeated CLI flag) is an error.
const std::string& single(const PassContext& ctx, std::string_view option) {
  const std::string& v = ctx.option(option);
  if (v.find('\n') != std::string::npos) {
    bad_option(ctx, option, "takes one value, got " + std::to_string(list_items(v, "").size()));
  }
  return v;
}

DType parse_low(const PassContext& ctx) {
  const std::string text = trim(single(ctx, "low"));
  std::optional<DType> d = parse_dtype(text);
  if (!d) bad_option(ctx, "low", "unknown dtype '" + text + "' (expected float16 or bfloat16)");
  if (*d != DType::Float16 && *d != DType::BFloat16) {
    bad_option(ctx, "low",
               std::string(to_string(*d)) + " is not a low-precision type (float16 or bfloat16)");
  }
  return *d;
}

double parse_threshold(const PassContext& ctx) {
  const std::string text = trim(single(ctx, "magnitude-threshold"));
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) {
    bad_option(ctx, "magnitude-threshold", "expected a non-negative number, got '" + text + "'");
  }
  return v;
}

std::optional<int64_t> parse_max_depth(const PassContext& ctx) {
  const std::string text = trim(single(ctx, "max-reduction-depth"));
  if (text == "none") return std::nullopt;
  std::optional<Int> v;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    v = parse_int(text);
  }
  std::optional<int64_t> n = v ? to_int64(*v) : std::nullopt;
  if (!n) {
    bad_option(ctx, "max-reduction-depth",
               "expected `none` or a non-negative integer, got '" + text + "'");
  }
  return n;
}

// {"node name": max-abs, ...}: what a calibration run recorded for each node's result.
std::map<std::string, double> read_calibration(const PassContext& ctx, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_option(ctx, "calibration", "cannot read the calibration file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) bad_option(ctx, "calibration", path + ": not valid JSON");
  if (!doc.is_object()) {
    bad_option(ctx, "calibration",
               path +
                   ": expected a JSON object of node names to max-abs values, like "
                   "{\"conv1\": 3.5}");
  }
  std::map<std::string, double> out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it.value().is_number() || it.value().get<double>() < 0) {
      bad_option(ctx, "calibration",
                 path + ": node '" + it.key() + "': expected a non-negative number, got " +
                     it.value().dump());
    }
    out[it.key()] = it.value().get<double>();
  }
  return out;
}

// The largest |element| of a floating-point tensor (NaN left out), over a list's items too;
// nullopt when the value holds none.
std::optional<double> max_abs_of(const interp::RValue& v) {
  std::optional<double> out;
  if (v.is_tensor() && is_floating(v.tensor.dtype())) {
    double m = 0;
    for (int64_t i = 0; i < v.tensor.numel(); ++i) {
      const double x = std::abs(v.tensor.flat(i).as_double());
      if (!std::isnan(x)) m = std::max(m, x);
    }
    out = m;
  }
  for (const interp::RValue& item : v.items) {
    if (std::optional<double> m = max_abs_of(item)) out = std::max(out.value_or(0), *m);
  }
  return out;
}

// Runs the graph in the reference interpreter on generated inputs (the dims at their hints, seed
// 0) and records each node's max-abs.
std::map<std::string, double> calibrate_in_interpreter(PassContext& ctx) {
  const Graph graph = ctx.graph().graph();
  interp::RunOptions options;
  for (const auto& [name, decl] : ctx.graph().dims()) {
    if (!ctx.env().has_symbol(name)) continue;
    std::optional<Int> hint = ctx.env().size_hint(Expr::symbol(name));
    if (std::optional<int64_t> h = hint ? to_int64(*hint) : std::nullopt) options.dims[name] = *h;
  }
  interp::RunResult r = interp::run(graph, options);
  if (!r.ok) bad_option(ctx, "calibrate", "the reference run failed: " + r.error);
  std::map<std::string, double> out;
  for (size_t i = 0; i < graph.nodes.size() && i < r.values.size(); ++i) {
    if (std::optional<double> m = max_abs_of(r.values[i])) out[graph.nodes[i].name] = *m;
  }
  return out;
}

Options read_options(PassContext& ctx) {
  Options o;
  o.low = parse_low(ctx);
  for (const std::string& re : list_items(ctx.option("exclude-node"), "")) {
    try {
      o.exclude_node.emplace_back(re, std::regex(re, std::regex::ECMAScript));
    } catch (const std::regex_error& e) {
      bad_option(ctx, "exclude-node", "invalid regex '" + re + "': " + e.what());
    }
  }
  for (const std::string& op : list_items(ctx.option("exclude-op"), ",")) {
    if (!ctx.ops().find(op)) bad_option(ctx, "exclude-op", "no op '" + op + "' has a shape rule");
    o.exclude_op.push_back(op);
  }
  o.threshold = parse_threshold(ctx);
  o.max_depth = parse_max_depth(ctx);
  const std::string path = trim(single(ctx, "calibration"));
  const bool interpret = ctx.flag("calibrate");
  if (!path.empty() && interpret) {
    ctx.fail(kNoNode,
             "options calibration and calibrate: give a calibration file or calibrate=true, "
             "not both");
  }
  if (!path.empty()) o.max_abs = read_calibration(ctx, path);
  if (interpret) o.max_abs = calibrate_in_interpreter(ctx);
  return o;
}

// ---- what a node is ----

bool holds_float32(const Value& v) {
  if (v.is_tensor()) return v.tensor.dtype == DType::Float32;
  for (const Value& item : v.items)
    if (holds_float32(item)) return true;
  return false;
}

bool floating_tensor(const Value& v) { return v.is_tensor() && is_floating(v.tensor.dtype); }

// Nodes that only pass a value on or read its metadata: they take their inputs as they come
// (no cast) and their results follow them.
bool passes_through(const Node& n) {
  if (n.target == "operator.getitem" || n.target == "_operator.getitem") return true;
  const std::string_view op = op_name(n.target);
  return op == "wait_tensor" || op.starts_with("sym_");
}

// Casts that convert to the dtype they are given: they take their input in whatever dtype it has.
bool is_conversion(const Node& n) { return is_aten(n.target, {"_to_copy", "to"}); }

enum class Kind {
  Follow,    // passes through (getitem, wait_tensor, sym_size, ...)
  Other,     // not a floating-point node: takes its inputs in their dtypes before the pass
  Floating,  // a floating-point node: low or high precision, by the rules
};

class Autocast {
 public:
  Autocast(PassContext& ctx, Options options)
      : ctx_(ctx), g_(ctx.graph()), o_(std::move(options)) {}

  void run() {
    const std::vector<NodeId> order = g_.order();
    for (NodeId id : order) {
      const Node& n = g_.node(id);
      if (writes_in_place(n) && !is_write_back(g_, id)) refuse_in_place(id);
      before_[id] = g_.value(id);
      if (n.op == NodeOp::CallFunction) kind_[id] = classify(id);
      if (n.op == NodeOp::CallFunction && is_conversion(n) && dtype_argument(id)) {
        converts_.insert(id);
      }
    }
    // The rules read the graph as it was: decide every node before rewriting any.
    for (NodeId id : order) {
      if (kind_.count(id) && kind_[id] == Kind::Floating) decide(id);
    }
    for (NodeId id : order) {
      const NodeOp op = g_.node(id).op;  // not a reference: rewriting inserts casts
      if (op == NodeOp::CallFunction) {
        rewrite(id);
      } else if (op == NodeOp::Output) {
        rewrite_output(id);
      }
    }
    report();
  }

 private:
  // ---- classification and rules ----

  void refuse_in_place(NodeId id) const {
    bool floating = floating_tensor(g_.value(id));
    for (NodeId in : g_.inputs(id)) floating = floating || floating_tensor(g_.value(in));
    if (floating) {
      ctx_.fail(id,
                "writes in place into a floating-point tensor; autocast needs a functional graph "
                "(its casts are copies, so the write would land in a copy): run the "
                "functionalize pass first");
    }
  }

  Kind classify(NodeId id) const {
    const Node& n = g_.node(id);
    if (passes_through(n)) return Kind::Follow;
    if (is_write_back(g_, id)) return Kind::Other;  // writes the input in its own dtype
    if (!holds_float32(g_.value(id))) return Kind::Other;
    for (NodeId in : g_.inputs(id))
      if (floating_tensor(g_.value(in))) return Kind::Floating;
    return Kind::Other;  // a factory (zeros, arange, ...): consumers cast what it makes
  }

  std::optional<BoundArgs> bind(NodeId id) const {
    try {
      return bind_arguments(g_.node(id), SchemaTable::instance().overloads(g_.node(id).target),
                            [&](const Arg& a) {
                              NodeId r = g_.referent(a);
                              return r == kNoNode ? ArgClass::Other : arg_class_of(g_.value(r));
                            });
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  void decide(NodeId id) {
    const Node& n = g_.node(id);
    std::vector<std::string>& why = reasons_[id];
    std::set<std::string> rules;
    auto keep = [&](const std::string& rule, std::string reason) {
      why.push_back(rule + ": " + std::move(reason));
      if (rules.insert(rule).second) ctx_.count("kept high: " + rule);  // nodes, by rule
    };
    for (const auto& [text, re] : o_.exclude_node) {
      if (std::regex_search(n.name, re)) {
        keep("exclude-node", "name matches '" + text + "'");
        break;
      }
    }
    for (const std::string& op : o_.exclude_op) {
      if (op_matches(op, n.target)) {
        keep("exclude-op", n.target == op ? op : n.target + " matches " + op);
        break;
      }
    }
    std::optional<BoundArgs> bound = bind(id);
    if (!o_.max_abs.empty()) check_magnitudes(id, keep);
    if (o_.max_depth) check_depth(id, bound, keep);
    if (n.extra.is_object() && n.extra.contains("autocast")) {
      const auto& mark = n.extra["autocast"];
      if (mark == "high") {
        keep("region", "marked \"autocast\": \"high\"");
      } else if (mark != "auto") {
        ctx_.fail(id, "key \"autocast\": expected \"high\" or \"auto\", got " + mark.dump());
      }
    }
    // A dtype argument of its own (`_to_copy(x, dtype=float32)`, `sum(x, dtype=float32)`) says
    // what it computes in: it is kept as written.
    if (std::optional<DType> d = dtype_argument(id); d && is_floating(*d)) {
      keep("dtype argument", "asks for " + std::string(to_string(*d)));
    }
  }

  // The dtype argument the call gives, if any.
  std::optional<DType> dtype_argument(NodeId id) const {
    std::optional<BoundArgs> bound = bind(id);
    if (!bound || !bound->declares("dtype") || !bound->given("dtype")) return std::nullopt;
    const Arg* d = bound->get("dtype");
    if (!d || d->kind != Arg::Kind::DType) return std::nullopt;
    return d->dtype;
  }

  // An excluded op: the same target, or the same op when the entry names no overload
  // (`aten.flatten` excludes `aten.flatten.using_ints`); `.default` is the op itself.
  static bool op_matches(const std::string& entry, const std::string& target) {
    if (entry == target) return true;
    TargetName e = parse_target(entry), t = parse_target(target);
    if (e.packet != t.packet) return false;
    auto plain = [](std::string_view o) { return o.empty() || o == "default"; };
    return plain(e.overload) ? (e.overload.empty() || plain(t.overload)) : false;
  }

  template <class Keep>
  void check_magnitudes(NodeId id, Keep& keep) {
    auto recorded = [&](NodeId other) -> std::optional<double> {
      auto it = o_.max_abs.find(g_.node(other).name);
      return it == o_.max_abs.end() ? std::nullopt : std::optional<double>(it->second);
    };
    auto over = [&](NodeId other, const char* role) {
      std::optional<double> m = recorded(other);
      if (!m || *m <= o_.threshold) return false;
      keep("magnitude", std::string(role) + " " + g_.node(other).name + " has max-abs " +
                            detail::float_text(*m) + " > " + detail::float_text(o_.threshold));
      return true;
    };
    bool fired = false;
    for (NodeId in : g_.inputs(id)) {
      if (!fired) fired = over(in, "input");
    }
    for (NodeId user : g_.users(id)) {
      if (!fired) fired = over(user, "user");
    }
    // Its own result would not fit in the low type at all.
    const double largest = o_.low == DType::Float16 ? 65504.0 : 3.3895313892515355e38;
    if (std::optional<double> own = recorded(id); own && *own > largest) {
      keep("magnitude", "its max-abs " + detail::float_text(*own) + " exceeds " +
                            std::string(to_string(o_.low)) + "'s largest value " +
                            detail::float_text(largest));
    }
  }

  // ---- reduction depth ----

  const TensorMeta* tensor_of(const Arg* a) const {
    if (!a) return nullptr;
    NodeId r = g_.referent(*a);
    return r != kNoNode && g_.value(r).is_tensor() ? &g_.value(r).tensor : nullptr;
  }

  // The depths of the sums the op computes each output element with: empty when it computes
  // none, nullopt when it does but they cannot be read off its arguments.
  std::optional<std::vector<Expr>> depths(NodeId id, const std::optional<BoundArgs>& b,
                                          std::string& unknown) const {
    const Node& n = g_.node(id);
    auto arg = [&](const char* name) -> const TensorMeta* {
      return b && b->declares(name) ? tensor_of(b->get(name)) : nullptr;
    };
    auto dim = [&](const TensorMeta* t, int64_t d) -> std::optional<Expr> {
      if (!t) return std::nullopt;
      const int64_t rank = static_cast<int64_t>(t->rank());
      if (d < 0) d += rank;
      if (d < 0 || d >= rank) return std::nullopt;
      return t->sizes[static_cast<size_t>(d)];
    };
    auto one = [&](std::optional<Expr> k) -> std::optional<std::vector<Expr>> {
      if (!k) {
        unknown = "its arguments do not give a reduction depth";
        return std::nullopt;
      }
      return std::vector<Expr>{*k};
    };
    if (is_aten(n.target, {"mm"})) return one(dim(arg("self"), 1));
    if (is_aten(n.target, {"addmm", "_addmm_activation"})) return one(dim(arg("mat1"), 1));
    if (is_aten(n.target, {"bmm"})) return one(dim(arg("self"), 2));
    if (is_aten(n.target, {"baddbmm"})) return one(dim(arg("batch1"), 2));
    if (is_aten(n.target, {"addbmm"})) {
      auto b0 = dim(arg("batch1"), 0), k = dim(arg("batch1"), 2);
      return one(b0 && k ? std::optional<Expr>(*b0 * *k) : std::nullopt);
    }
    if (is_aten(n.target, {"matmul"})) return one(dim(arg("self"), -1));
    if (is_aten(n.target, {"linear"})) return one(dim(arg("input"), -1));
    if (is_aten(n.target, {"mv"})) return one(dim(arg("self"), 1));
    if (is_aten(n.target, {"addmv"})) return one(dim(arg("mat"), 1));
    if (is_aten(n.target, {"dot", "vdot"})) return one(dim(arg("self"), 0));
    if (is_aten(n.target, {"scaled_dot_product_attention"})) {
      // softmax(q k^T) v: sums over the head dim E, then over the key sequence S.
      auto e = dim(arg("query"), -1), s = dim(arg("key"), -2);
      if (!e || !s) return one(std::nullopt);
      return std::vector<Expr>{*e, *s};
    }
    if (is_aten(n.target, {"convolution", "_convolution", "conv1d", "conv2d", "conv3d",
                           "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"})) {
      // weight [out, in/groups, k...] (transposed: [in, out/groups, k...]): in_channels (per
      // group) times the kernel volume.
      const TensorMeta* w = arg("weight");
      if (!w || w->rank() < 2) return one(std::nullopt);
      bool transposed = op_name(n.target).starts_with("conv_transpose");
      if (b && b->declares("transposed")) {
        const Arg* t = b->get("transposed");
        transposed = t && t->kind == Arg::Kind::Bool && t->boolean;
      }
      Expr k = transposed ? w->sizes[0] : w->sizes[1];
      for (size_t d = 2; d < w->rank(); ++d) k = k * w->sizes[d];
      return std::vector<Expr>{k};
    }
    if (is_aten(n.target, {"einsum"})) return einsum_depth(b, unknown);
    return std::vector<Expr>{};
  }

  // einsum: the product of the sizes of the summed letters (those of the inputs that the output
  // does not keep). Ellipsis dims are batch dims when the output keeps them (implicit output, or
  // `...` on the right); other equations are not analysed.
  std::optional<std::vector<Expr>> einsum_depth(const std::optional<BoundArgs>& b,
                                                std::string& unknown) const {
    unknown = "einsum equation not analysed";
    const Arg* eq = b && b->declares("equation") ? b->get("equation") : nullptr;
    const Arg* ops = b && b->declares("tensors") ? b->get("tensors") : nullptr;
    if (!eq || eq->kind != Arg::Kind::String || !ops || ops->kind != Arg::Kind::List) {
      return std::nullopt;
    }
    std::string text;
    for (char c : eq->text)
      if (c != ' ') text += c;
    const size_t arrow = text.find("->");
    const std::string lhs = text.substr(0, arrow);
    std::vector<std::string> terms = list_items(lhs, ",");
    if (terms.size() != ops->items.size() ||
        std::count(lhs.begin(), lhs.end(), ',') + 1 != static_cast<std::ptrdiff_t>(terms.size())) {
      return std::nullopt;
    }
    std::map<char, Expr> size;
    std::map<char, int> count;
    bool ellipsis = false;
    for (size_t i = 0; i < terms.size(); ++i) {
      const TensorMeta* t = tensor_of(&ops->items[i]);
      if (!t) return std::nullopt;
      std::string term = terms[i];
      const size_t dots = term.find("...");
      std::string front = term.substr(0, dots), back;
      if (dots != std::string::npos) {
        ellipsis = true;
        back = term.substr(dots + 3);
        if (back.find('.') != std::string::npos) return std::nullopt;
      }
      if (front.size() + back.size() > t->rank() ||
          (dots == std::string::npos && front.size() != t->rank())) {
        return std::nullopt;
      }
      auto take = [&](char c, const Expr& e) {
        if (!std::isalpha(static_cast<unsigned char>(c))) return false;
        if (!size.count(c)) size.emplace(c, e);
        ++count[c];
        return true;
      };
      for (size_t k = 0; k < front.size(); ++k)
        if (!take(front[k], t->sizes[k])) return std::nullopt;
      for (size_t k = 0; k < back.size(); ++k)
        if (!take(back[k], t->sizes[t->rank() - back.size() + k])) return std::nullopt;
    }
    std::set<char> kept;
    if (arrow == std::string::npos) {
      for (const auto& [c, n] : count)
        if (n == 1) kept.insert(c);
    } else {
      const std::string rhs = text.substr(arrow + 2);
      if (ellipsis && rhs.find("...") == std::string::npos) return std::nullopt;
      for (char c : rhs)
        if (c != '.') kept.insert(c);
    }
    Expr k = 1;
    for (const auto& [c, e] : size)
      if (!kept.count(c)) k = k * e;
    return std::vector<Expr>{k};
  }

  template <class Keep>
  void check_depth(NodeId id, const std::optional<BoundArgs>& b, Keep& keep) {
    std::string unknown;
    std::optional<std::vector<Expr>> ks = depths(id, b, unknown);
    if (!ks) {
      keep("reduction depth", unknown + " (kept high to be safe)");
      return;
    }
    const Expr limit(static_cast<long long>(*o_.max_depth));
    for (const Expr& k : *ks) {
      if (ctx_.provably(k <= limit)) continue;
      const std::string limit_text = std::to_string(*o_.max_depth);
      if (k.is_constant()) {
        keep("reduction depth", k.str() + " > " + limit_text);
      } else {
        keep("reduction depth", k.str() + " (range " + ctx_.env().bound(k).str() +
                                    ") is not provably <= " + limit_text);
      }
      return;
    }
  }

  // ---- rewriting ----

  bool low(NodeId id) const {
    auto it = reasons_.find(id);
    return kind_.at(id) == Kind::Floating && it != reasons_.end() && it->second.empty();
  }

  // The dtype a consumer takes the tensor `input` in; nullopt: as it comes.
  std::optional<DType> wanted(NodeId consumer, NodeId input) const {
    const Value& was = before_.at(input);
    if (!floating_tensor(was)) return std::nullopt;
    if (consumer == kNoNode) return was.tensor.dtype;  // the graph's output
    if (kind_.at(consumer) == Kind::Follow) return std::nullopt;
    if (low(consumer)) return o_.low;
    // A conversion to a dtype it is given reads its input exactly as the cast back would give it.
    if (converts_.count(consumer)) return std::nullopt;
    return was.tensor.dtype;
  }

  // The cast of `value` to `dtype`, made before `pos` on first use.
  NodeId cast(NodeId value, DType dtype, NodeId pos) {
    auto key = std::make_pair(value, dtype);
    auto it = casts_.find(key);
    if (it != casts_.end()) return it->second;
    Arg d;
    d.kind = Arg::Kind::DType;
    d.dtype = dtype;
    NodeId c =
        ctx_.create_call(pos, std::string(kCast), {Arg::node(g_.node(value).name)}, {{"dtype", d}},
                         g_.node(value).name + "_" + std::string(to_string(dtype)));
    casts_.emplace(key, c);
    made_.push_back(c);
    return c;
  }

  // n's arguments with every floating tensor input in the dtype consumer wants (kNoNode: the
  // graph's output); `changed` tells whether any was replaced by a cast.
  std::pair<std::vector<Arg>, std::vector<std::pair<std::string, Arg>>> cast_args(NodeId id,
                                                                                  NodeId consumer,
                                                                                  bool& changed) {
    // A copy: making a cast inserts a node, which may move the graph's nodes in memory.
    const Node n = g_.node(id);
    std::function<Arg(const Arg&)> adapt = [&](const Arg& a) -> Arg {
      if (a.kind == Arg::Kind::List) {
        Arg out = a;
        for (Arg& item : out.items) item = adapt(item);
        return out;
      }
      const NodeId r = a.kind == Arg::Kind::Node ? g_.referent(a) : kNoNode;
      if (r == kNoNode || !before_.count(r)) return a;
      const Value& now = g_.value(r);
      // Integer and bool tensors are never cast; neither is anything that is not a tensor.
      if (!floating_tensor(now)) return a;
      std::optional<DType> want = wanted(consumer, r);
      if (!want || *want == now.tensor.dtype) return a;
      changed = true;
      return Arg::node(g_.node(cast(r, *want, id)).name);
    };
    std::vector<Arg> args;
    for (const Arg& a : n.args) args.push_back(adapt(a));
    std::vector<std::pair<std::string, Arg>> kwargs;
    for (const auto& [key, a] : n.kwargs) kwargs.emplace_back(key, adapt(a));
    return {std::move(args), std::move(kwargs)};
  }

  bool inputs_changed(NodeId id) const {
    for (NodeId in : g_.inputs(id))
      if (retyped_.count(in)) return true;
    return false;
  }

  void rewrite(NodeId id) {
    const size_t made_before = made_.size();
    bool changed = false;
    auto [args, kwargs] = cast_args(id, id, changed);
    try {
      if (changed) {
        ctx_.rewrite_call(id, std::move(args), std::move(kwargs));
      } else if (inputs_changed(id)) {
        g_.set_value(id, ctx_.derive(id));
      }
    } catch (const PassError& e) {
      if (!low(id)) throw;
      // The op's rule refuses the low type: the node stays high, and its inputs come back.
      for (size_t i = made_.size(); i-- > made_before;) {
        for (auto it = casts_.begin(); it != casts_.end(); ++it) {
          if (it->second == made_[i]) {
            casts_.erase(it);
            break;
          }
        }
        g_.erase(made_[i]);
      }
      made_.resize(made_before);
      std::string why = e.what();
      const std::string prefix = "pass autocast: node " + g_.node(id).name + ": ";
      if (why.starts_with(prefix)) why = why.substr(prefix.size());
      reasons_[id].push_back("no " + std::string(to_string(o_.low)) + " form: " + why);
      ctx_.count("kept high: no low-precision form");
      rewrite(id);
      return;
    }
    settle(id);
  }

  // Records whether the node's result changed, and drops metadata it declared that no longer
  // holds.
  void settle(NodeId id) {
    const Value& now = g_.value(id);
    const Value& was = before_.at(id);
    if (signature(now) == signature(was)) return;
    retyped_.insert(id);
    const Node& n = g_.node(id);
    const bool dtype_moved = n.dtype && (!now.is_tensor() || *n.dtype != now.tensor.dtype);
    const bool strides_moved = n.stride && strides_of(now) != strides_of(was);
    if (dtype_moved || strides_moved) g_.clear_declared(id);
  }

  static std::string strides_of(const Value& v) {
    std::string out;
    if (v.is_tensor()) {
      for (const Expr& e : v.tensor.strides) out += e.str() + ",";
    }
    for (const Value& item : v.items) out += "(" + strides_of(item) + ")";
    return out;
  }

  // What a consumer's metadata can depend on: dtypes, sizes and strides.
  static std::string signature(const Value& v) { return v.str() + "|" + strides_of(v); }

  Value value_of(const Arg& a) const {
    switch (a.kind) {
      case Arg::Kind::None: return Value::none();
      case Arg::Kind::Bool: return Value::of_bool(a.boolean);
      case Arg::Kind::Int: return Value::of_int(a.integer);
      case Arg::Kind::Float: return Value::of_float(a.real);
      case Arg::Kind::Node: return g_.value(g_.referent(a));
      case Arg::Kind::List: {
        std::vector<Value> items;
        for (const Arg& item : a.items) items.push_back(value_of(item));
        return Value::list(std::move(items));
      }
      default: return Value::none();
    }
  }

  // The graph's outputs keep their dtypes: a low-precision result is cast back.
  void rewrite_output(NodeId id) {
    bool changed = false;
    auto [args, kwargs] = cast_args(id, kNoNode, changed);
    if (!changed && !inputs_changed(id)) return;
    if (changed) g_.set_args(id, args, kwargs);
    g_.set_value(id, value_of(g_.node(id).args.at(0)));
  }

  // ---- the report ----

  void report() {
    nlohmann::ordered_json low_nodes = nlohmann::ordered_json::array();
    nlohmann::ordered_json high_nodes = nlohmann::ordered_json::object();
    for (NodeId id : g_.order()) {
      auto it = reasons_.find(id);
      if (it == reasons_.end()) continue;
      if (it->second.empty()) {
        low_nodes.push_back(g_.node(id).name);
        ctx_.count("low-precision nodes");
      } else {
        high_nodes[g_.node(id).name] = it->second;
        ctx_.count("high-precision nodes");
      }
    }
    if (!made_.empty()) ctx_.count("casts inserted", made_.size());
    size_t unknown = 0;
    for (const auto& [name, m] : o_.max_abs) unknown += g_.find(name) == kNoNode;
    if (unknown) ctx_.count("calibration entries naming no node", unknown);
    nlohmann::ordered_json j;
    j["low_dtype"] = std::string(to_string(o_.low));
    j["low"] = std::move(low_nodes);
    j["high"] = std::move(high_nodes);
    g_.extra()["autocast"] = std::move(j);
  }

  PassContext& ctx_;
  MutableGraph& g_;
  Options o_;
  std::map<NodeId, Value> before_;                      // every node's result before the pass
  std::map<NodeId, Kind> kind_;                         // call nodes
  std::map<NodeId, std::vector<std::string>> reasons_;  // floating-point nodes: empty = low
  std::set<NodeId> converts_;  // conversions given a dtype: they take inputs as they come
  std::map<std::pair<NodeId, DType>, NodeId> casts_;
  std::vector<NodeId> made_;  // the casts, in the order made
  std::set<NodeId> retyped_;  // nodes whose result changed
};

void autocast(PassContext& ctx) {
  functionalize_graph(ctx);  // casts are copies: a write would land in a copy
  Autocast(ctx, read_options(ctx)).run();
}

// float16 keeps 11 significant bits: each rounding is off by up to 2^-11, and a few layers of
// rounded inputs and results stay within 1e-2 on the examples' generated inputs. bfloat16 keeps
// 8, three fewer: the same bound scaled by 2^3.
double autocast_tolerance(const std::map<std::string, std::string>& options) {
  auto low = options.find("low");
  if (low == options.end()) return 1e-2;
  std::optional<DType> d = parse_dtype(trim(low->second));
  return d == DType::BFloat16 ? 8e-2 : 1e-2;
}

}  // namespace

void register_autocast_passes(PassRegistry& r) {
  r.add(std::make_unique<FunctionPass>(
      FunctionPass::Info{
          "autocast",
          "rule-based mixed precision: floating-point nodes run in float16 or bfloat16 unless a "
          "rule keeps them in float32; casts are shared, integer and bool tensors never cast",
          {{"low", "float16", "the low-precision type: float16 or bfloat16"},
           {"exclude-node", "",
            "node names kept in float32: an ECMAScript regex searched in the name (several: "
            "one per line, or a repeated CLI flag)"},
           {"exclude-op", "",
            "ops kept in float32: targets, comma-separated (`aten.flatten` covers every "
            "overload)"},
           {"magnitude-threshold", "512",
            "keep a node in float32 when an input's or a user's recorded max-abs exceeds this"},
           {"calibration", "",
            "a JSON file of recorded max-abs values by node name: {\"conv1\": 3.5, ...}"},
           {"calibrate", "false",
            "record max-abs values by running the reference interpreter on generated inputs"},
           {"max-reduction-depth", "none",
            "keep a matmul (K) or convolution (in_channels x kernel volume) in float32 unless "
            "its reduction depth is provably at most this"}},
          false,
          1e-2,
          autocast_tolerance},
      autocast));
}

}  // namespace symshape::passes
