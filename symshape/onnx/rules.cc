// The ONNX rules' node view and registry.
#include "symshape/onnx.h"
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

std::optional<DType> dtype_of_elem_type(int elem_type) {
  switch (elem_type) {
    case 1: return DType::Float32;
    case 2: return DType::UInt8;
    case 3: return DType::Int8;
    case 5: return DType::Int16;
    case 6: return DType::Int32;
    case 7: return DType::Int64;
    case 9: return DType::Bool;
    case 10: return DType::Float16;
    case 11: return DType::Float64;
    case 14: return DType::Complex64;
    case 15: return DType::Complex128;
    case 16: return DType::BFloat16;
    default: return std::nullopt;  // undefined, string, uint16/32/64, float8
  }
}

int elem_type_of(DType d) {
  switch (d) {
    case DType::Float32: return 1;
    case DType::UInt8: return 2;
    case DType::Int8: return 3;
    case DType::Int16: return 5;
    case DType::Int32: return 6;
    case DType::Int64: return 7;
    case DType::Bool: return 9;
    case DType::Float16: return 10;
    case DType::Float64: return 11;
    case DType::Complex64: return 14;
    case DType::Complex128: return 15;
    case DType::BFloat16: return 16;
  }
  return 0;
}

std::string_view Op::op_type() const {
  std::string_view t = node().target;
  size_t dot = t.rfind('.');
  return dot == std::string_view::npos ? t : t.substr(dot + 1);
}

int64_t Op::opset() const {
  const auto& extra = node().extra;
  if (extra.is_object()) {
    auto it = extra.find("opset");
    if (it != extra.end() && it->is_number_integer()) return it->get<int64_t>();
  }
  return 18;  // a graph written by hand: the newest opset the rules know
}

size_t Op::num_outputs() const {
  const auto& extra = node().extra;
  if (extra.is_object()) {
    auto it = extra.find("outputs");
    if (it != extra.end() && it->is_number_unsigned()) return it->get<size_t>();
  }
  return 1;
}

bool Op::has_input(size_t i) const {
  return i < num_inputs() && node().args[i].kind != Arg::Kind::None;
}

Value Op::input(size_t i) const {
  if (!has_input(i)) bad_input("input " + std::to_string(i) + " is missing");
  return ctx_.value_of(node().args[i]);
}

TensorMeta Op::tensor(size_t i) const {
  Value v = input(i);
  if (!v.is_tensor()) {
    bad_input("input " + std::to_string(i) + " (" + node().args[i].str() +
              ") is not a tensor: " + v.str());
  }
  return v.tensor;
}

std::optional<std::vector<Expr>> Op::ints(size_t i) const {
  if (!has_input(i)) return std::nullopt;
  Value v = input(i);
  if (!v.is_tensor() || !v.data || v.data->real) return std::nullopt;
  return v.data->ints;
}

std::optional<std::vector<double>> Op::reals(size_t i) const {
  if (!has_input(i)) return std::nullopt;
  Value v = input(i);
  if (!v.is_tensor() || !v.data) return std::nullopt;
  if (v.data->real) return v.data->reals;
  std::vector<double> out;
  for (const Expr& e : v.data->ints) {
    std::optional<int64_t> c = e.as_int64();
    if (!c) return std::nullopt;
    out.push_back(static_cast<double>(*c));
  }
  return out;
}

std::optional<std::vector<int64_t>> Op::constants(size_t i) const {
  std::optional<std::vector<Expr>> known = ints(i);
  if (!known) return std::nullopt;
  std::vector<int64_t> out;
  for (const Expr& e : *known) {
    std::optional<int64_t> c = ctx_.simplify(e).as_int64();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

bool Op::has_attr(std::string_view name) const {
  const Arg* a = kwarg(name);
  return a && a->kind != Arg::Kind::None;
}

int64_t Op::attr_int(std::string_view name, int64_t fallback) const {
  return optional_attr_int(name).value_or(fallback);
}

std::optional<int64_t> Op::optional_attr_int(std::string_view name) const {
  const Arg* a = kwarg(name);
  if (!a || a->kind == Arg::Kind::None) return std::nullopt;
  if (a->kind == Arg::Kind::Bool) return a->boolean ? 1 : 0;
  std::optional<int64_t> v = a->kind == Arg::Kind::Int ? a->integer.as_int64() : std::nullopt;
  if (!v) bad_input("attribute '" + std::string(name) + "' is not an int: " + a->str());
  return v;
}

double Op::attr_float(std::string_view name, double fallback) const {
  const Arg* a = kwarg(name);
  if (!a || a->kind == Arg::Kind::None) return fallback;
  if (a->kind == Arg::Kind::Float) return a->real;
  if (a->kind == Arg::Kind::Int) {
    if (std::optional<int64_t> v = a->integer.as_int64()) return static_cast<double>(*v);
  }
  bad_input("attribute '" + std::string(name) + "' is not a float: " + a->str());
}

std::string Op::attr_string(std::string_view name, const std::string& fallback) const {
  const Arg* a = kwarg(name);
  if (!a || a->kind == Arg::Kind::None) return fallback;
  if (a->kind != Arg::Kind::String)
    bad_input("attribute '" + std::string(name) + "' is not a string: " + a->str());
  return a->text;
}

std::optional<std::vector<int64_t>> Op::optional_attr_ints(std::string_view name) const {
  const Arg* a = kwarg(name);
  if (!a || a->kind == Arg::Kind::None) return std::nullopt;
  std::vector<int64_t> out;
  auto one = [&](const Arg& item) {
    std::optional<int64_t> v = item.kind == Arg::Kind::Int ? item.integer.as_int64() : std::nullopt;
    if (!v) bad_input("attribute '" + std::string(name) + "' is not a list of ints: " + a->str());
    out.push_back(*v);
  };
  if (a->kind == Arg::Kind::List) {
    for (const Arg& item : a->items) one(item);
  } else {
    one(*a);
  }
  return out;
}

std::vector<int64_t> Op::attr_ints(std::string_view name) const {
  return optional_attr_ints(name).value_or(std::vector<int64_t>{});
}

std::vector<double> Op::attr_floats(std::string_view name) const {
  const Arg* a = kwarg(name);
  std::vector<double> out;
  if (!a || a->kind == Arg::Kind::None) return out;
  auto one = [&](const Arg& item) {
    if (item.kind == Arg::Kind::Float) {
      out.push_back(item.real);
    } else if (std::optional<int64_t> v =
                   item.kind == Arg::Kind::Int ? item.integer.as_int64() : std::nullopt) {
      out.push_back(static_cast<double>(*v));
    } else {
      bad_input("attribute '" + std::string(name) + "' is not a list of floats: " + a->str());
    }
  };
  if (a->kind == Arg::Kind::List) {
    for (const Arg& item : a->items) one(item);
  } else {
    one(*a);
  }
  return out;
}

std::optional<Value> Op::attr_tensor(std::string_view name) const {
  const Arg* a = kwarg(name);
  if (!a || a->kind == Arg::Kind::None) return std::nullopt;
  if (a->kind != Arg::Kind::Node)
    bad_input("attribute '" + std::string(name) + "' is not a tensor: " + a->str());
  return ctx_.value_of(*a);
}

size_t Op::axis(int64_t axis, size_t rank, std::string_view what) const {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    bad_input(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank) + " (expected [" + std::to_string(-r) + ", " +
              std::to_string(r - 1) + "])");
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::optional<std::vector<int64_t>> constant_sizes(Op& op, const std::vector<Expr>& sizes) {
  std::vector<int64_t> out;
  for (const Expr& e : sizes) {
    std::optional<int64_t> c = op.ctx().simplify(e).as_int64();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

Value tensor_value(DType dtype, std::vector<Expr> sizes) {
  return Value::of(ops::contiguous(dtype, std::move(sizes)));
}

Value int_tensor(DType dtype, std::vector<Expr> elements) {
  std::vector<Expr> sizes{Expr(static_cast<long long>(elements.size()))};
  return int_tensor(dtype, std::move(sizes), std::move(elements));
}

Value int_tensor(DType dtype, std::vector<Expr> sizes, std::vector<Expr> elements) {
  Value v = tensor_value(dtype, std::move(sizes));
  auto data = std::make_shared<KnownData>();
  data->ints = std::move(elements);
  v.data = std::move(data);
  return v;
}

std::optional<std::vector<Expr>> broadcast_elements(
    const std::vector<Expr>& a, const std::vector<Expr>& a_sizes, const std::vector<Expr>& b,
    const std::vector<Expr>& b_sizes, const std::function<Expr(const Expr&, const Expr&)>& f,
    std::vector<Expr>* out_sizes) {
  auto constants = [](const std::vector<Expr>& sizes) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (const Expr& e : sizes) {
      std::optional<int64_t> c = e.as_int64();
      if (!c) return std::nullopt;
      out.push_back(*c);
    }
    return out;
  };
  std::optional<std::vector<int64_t>> as = constants(a_sizes), bs = constants(b_sizes);
  if (!as || !bs) return std::nullopt;
  const size_t rank = std::max(as->size(), bs->size());
  std::vector<int64_t> shape(rank), sa(rank, 1), sb(rank, 1);
  for (size_t d = 0; d < as->size(); ++d) sa[rank - as->size() + d] = (*as)[d];
  for (size_t d = 0; d < bs->size(); ++d) sb[rank - bs->size() + d] = (*bs)[d];
  int64_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (sa[d] != sb[d] && sa[d] != 1 && sb[d] != 1) return std::nullopt;
    shape[d] = sa[d] == 1 ? sb[d] : sa[d];
    numel *= shape[d];
  }
  std::vector<Expr> out;
  out.reserve(static_cast<size_t>(numel));
  std::vector<int64_t> index(rank, 0);
  auto offset = [&](const std::vector<int64_t>& sizes) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) o = o * sizes[d] + (sizes[d] == 1 ? 0 : index[d]);
    return static_cast<size_t>(o);
  };
  for (int64_t k = 0; k < numel; ++k) {
    size_t ia = offset(sa), ib = offset(sb);
    if (ia >= a.size() || ib >= b.size()) return std::nullopt;
    out.push_back(f(a[ia], b[ib]));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  if (out_sizes) {
    out_sizes->clear();
    for (int64_t s : shape) out_sizes->emplace_back(static_cast<long long>(s));
  }
  return out;
}

void add(OpRegistry& r, const std::string& op_type, Rule rule) {
  r.add("onnx." + op_type, [rule = std::move(rule)](OpContext& ctx) {
    Op op(ctx);
    return rule(op);
  });
}

const OpRegistry& registry() {
  static const OpRegistry* r = [] {
    auto* out = new OpRegistry(OpRegistry::instance());
    add_elementwise_rules(*out);
    add_shape_rules(*out);
    add_nn_rules(*out);
    add_misc_rules(*out);
    add_control_flow_rules(*out);
    return out;
  }();
  return *r;
}

bool is_onnx_graph(const Graph& graph) {
  return graph.extra.is_object() && graph.extra.contains("onnx");
}

}  // namespace symshape::onnx
