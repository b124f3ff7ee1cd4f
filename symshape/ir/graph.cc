// The graph IR's plain helpers: tensor metadata, values, arguments, lookups and their renderings.
#include <charconv>
#include <cmath>
#include <string>

#include "symshape/ir.h"
#include "symshape/ir/float_text.h"

namespace symshape {

namespace detail {

std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace detail

namespace {

std::string join(const std::vector<Expr>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i].str();
  }
  return out;
}

}  // namespace

Expr TensorMeta::numel() const {
  Expr n = 1;
  for (const Expr& s : sizes) n *= s;
  return n;
}

std::vector<Expr> TensorMeta::contiguous_strides(const std::vector<Expr>& sizes) {
  // Propagation asks for the strides of the same few shapes over and over (every elementwise op
  // of a layer has the layer's activation shape): the last few answers are kept per thread, and
  // a shape of the very same expressions is answered without multiplying again.
  struct Entry {
    std::vector<Expr> sizes, strides;
  };
  constexpr size_t kKept = 8;
  thread_local std::vector<Entry> recent;
  thread_local size_t next = 0;
  for (const Entry& e : recent) {
    if (e.sizes.size() == sizes.size() &&
        std::equal(sizes.begin(), sizes.end(), e.sizes.begin(),
                   [](const Expr& a, const Expr& b) { return a.identical(b); })) {
      return e.strides;
    }
  }
  // PyTorch multiplies by max(size, 1) so that a zero size does not zero the outer strides. We do
  // that for constants; a symbolic size is taken as is, since strides only matter for a tensor
  // that has elements, and then every size is at least 1.
  std::vector<Expr> strides(sizes.size());
  Expr acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    std::optional<Int> c = sizes[i].constant();
    if (c) {
      if (*c > 1) acc *= sizes[i];
    } else {
      acc *= sizes[i];
    }
  }
  if (sizes.size() > 1) {
    Entry entry{sizes, strides};
    if (recent.size() < kKept) {
      recent.push_back(std::move(entry));
    } else {
      recent[next] = std::move(entry);
      next = (next + 1) % kKept;
    }
  }
  return strides;
}

std::string TensorMeta::str() const {
  return std::string(to_string(dtype)) + "[" + join(sizes) + "]";
}

Value Value::of(TensorMeta t) {
  Value v;
  v.kind = Kind::Tensor;
  v.tensor = std::move(t);
  return v;
}

Value Value::of_int(Expr e) {
  Value v;
  v.kind = Kind::Int;
  v.integer = std::move(e);
  return v;
}

Value Value::of_float(double x) {
  Value v;
  v.kind = Kind::Float;
  v.real = x;
  return v;
}

Value Value::of_bool(std::optional<bool> b) {
  Value v;
  v.kind = Kind::Bool;
  v.truth = b;
  return v;
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.kind = Kind::List;
  v.items = std::move(items);
  return v;
}

std::string Value::str() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Tensor: return tensor.str();
    case Kind::Int: return integer.str();
    case Kind::Float: return detail::float_text(real);
    case Kind::Bool: return truth ? (*truth ? "True" : "False") : "bool";
    case Kind::List: {
      // A tuple, as Python prints it: `(a,)` for one item.
      std::string out = "(";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += items[i].str();
      }
      if (items.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "?";
}

Arg Arg::node(std::string name) {
  Arg a;
  a.kind = Kind::Node;
  a.text = std::move(name);
  return a;
}

Arg Arg::of_int(Expr e) {
  Arg a;
  a.kind = Kind::Int;
  a.integer = std::move(e);
  return a;
}

Arg Arg::list(std::vector<Arg> items) {
  Arg a;
  a.kind = Kind::List;
  a.items = std::move(items);
  return a;
}

std::string Arg::str() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return boolean ? "True" : "False";
    case Kind::Int: return integer.str();
    case Kind::Float: return detail::float_text(real);
    case Kind::String: return "'" + text + "'";
    case Kind::DType: return std::string(to_string(dtype));
    case Kind::Device:
    case Kind::Layout:
    case Kind::MemoryFormat: return text;
    case Kind::Node: return "%" + text;
    case Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += items[i].str();
      }
      return out + "]";
    }
  }
  return "?";
}

std::string_view to_string(NodeOp op) {
  switch (op) {
    case NodeOp::Placeholder: return "placeholder";
    case NodeOp::GetAttr: return "get_attr";
    case NodeOp::CallFunction: return "call_function";
    case NodeOp::Output: return "output";
  }
  return "?";
}

const Arg* Node::kwarg(std::string_view key) const {
  for (const auto& [k, a] : kwargs) {
    if (k == key) return &a;
  }
  return nullptr;
}

const Node* Graph::find(std::string_view name) const {
  size_t i = index_of(name);
  return i < nodes.size() ? &nodes[i] : nullptr;
}

size_t Graph::index_of(std::string_view name) const { return name_index.find(nodes, name); }

namespace detail {

size_t NameIndexCache::find(const std::vector<Node>& nodes, std::string_view name) const {
  const std::string key(name);
  auto hit = positions_.find(key);
  if (hit != positions_.end() && hit->second < nodes.size() && nodes[hit->second].name == name)
    return hit->second;
  positions_.clear();
  positions_.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) positions_.emplace(nodes[i].name, i);
  auto it = positions_.find(key);
  return it == positions_.end() ? nodes.size() : it->second;
}

}  // namespace detail

TargetName parse_target(std::string_view target) {
  TargetName t;
  // `ns.op.overload` has an overload; `ns.op` (and `operator.getitem`) has none.
  size_t first = target.find('.'), last = target.rfind('.');
  bool has_overload = first != std::string_view::npos && last != first;
  t.packet = has_overload ? target.substr(0, last) : target;
  t.overload = has_overload ? target.substr(last + 1) : std::string_view();
  size_t op_start = t.packet.rfind('.');
  std::string_view op =
      op_start == std::string_view::npos ? t.packet : t.packet.substr(op_start + 1);
  // `add_` is in place; `__and__`, `_foo` and `_` are not.
  t.in_place = op.size() >= 2 && op.back() == '_' && op[op.size() - 2] != '_';
  return t;
}

std::string TargetName::functional() const {
  if (!in_place) return "";
  std::string f(packet.substr(0, packet.size() - 1));
  if (!overload.empty()) f += "." + std::string(overload);
  return f;
}

std::optional<TargetMatch> resolve_target(std::string_view target,
                                          const std::function<bool(std::string_view)>& registered) {
  auto direct = [&](std::string_view t) -> std::optional<std::string> {
    if (registered(t)) return std::string(t);
    TargetName parts = parse_target(t);
    if (!parts.overload.empty() && registered(parts.packet)) return std::string(parts.packet);
    return std::nullopt;
  };
  if (auto key = direct(target)) return TargetMatch{*key, false};
  TargetName parts = parse_target(target);
  if (!parts.in_place) return std::nullopt;
  if (auto key = direct(parts.functional())) return TargetMatch{*key, true};
  return std::nullopt;
}

const DimDecl* Graph::dim(std::string_view name) const {
  for (const auto& [n, d] : dims) {
    if (n == name) return &d;
  }
  return nullptr;
}

}  // namespace symshape
