// KernelContext: a node's arguments as run-time values, looked up as OpContext looks them up.
#include "symshape/interp.h"
#include "symshape/ops/schema_table.h"
#include "symshape/ops/validate/arguments.h"

namespace symshape::interp {

KernelContext::KernelContext(const Graph& graph, const Node& node,
                             const std::vector<std::vector<RValue>>& ranks, size_t rank,
                             const Bindings& dims, std::mt19937_64& rng)
    : graph_(graph),
      node_(node),
      ranks_(ranks),
      slot_(rank),
      group_rank_(rank),
      group_size_(ranks.size()),
      dims_(dims),
      rng_(rng) {}

void KernelContext::set_process_group(ProcessGroup* group, size_t rank, size_t world_size) {
  group_ = group;
  group_rank_ = rank;
  group_size_ = world_size;
}

void KernelContext::fail(const std::string& message) const { throw RunError(node_, message); }

void KernelContext::bad_input(const std::string& message) const {
  throw RunInputError(node_, message);
}

const BoundArgs& KernelContext::bound() const {
  if (!bound_) {
    auto classify = [&](const Arg& a) { return arg_class_of(value_of(a)); };
    try {
      bound_ = detail::bind_call(node_, classify);
    } catch (const Error& e) {
      bad_input(e.what());
    }
  }
  return *bound_;
}

const OpSchema& KernelContext::schema() const { return *bound().schema(); }
bool KernelContext::declares(std::string_view name) const { return bound().declares(name); }

const Arg* KernelContext::arg(std::string_view name) const {
  const Arg* a = detail::read_argument(node_, bound(), name);
  if (!a || a->kind == Arg::Kind::None) return nullptr;
  // A node that produced None (an optional output) counts as absent.
  if (a->kind == Arg::Kind::Node && value_of(*a).kind == RValue::Kind::None) return nullptr;
  return a;
}

namespace {

std::string arg_label(const std::optional<BoundArgs>& bound, std::string_view name) {
  return detail::argument_label(bound ? bound->schema() : nullptr, name);
}

// An argument's value as seen on one rank.
RValue value_on(const KernelContext& ctx, const Graph& graph,
                const std::vector<std::vector<RValue>>& ranks, size_t rank, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::None: return RValue::none();
    case Arg::Kind::Bool: return RValue::of_bool(a.boolean);
    case Arg::Kind::Int: {
      Int v;
      try {
        v = evaluate(a.integer, ctx.dims());
      } catch (const Error& e) {
        ctx.fail("cannot evaluate the int argument " + a.integer.str() + ": " + e.what());
      }
      auto small = to_int64(v);
      if (!small) ctx.fail("the int argument " + a.integer.str() + " does not fit in int64");
      return RValue::of_int(*small);
    }
    case Arg::Kind::Float: return RValue::of_float(a.real);
    case Arg::Kind::Node: {
      size_t index = graph.index_of(a.text);
      if (rank >= ranks.size() || index >= ranks[rank].size()) {
        ctx.bad_input("refers to '" + a.text + "', which has no value yet");
      }
      return ranks[rank][index];
    }
    case Arg::Kind::List: {
      std::vector<RValue> items;
      for (const Arg& item : a.items) items.push_back(value_on(ctx, graph, ranks, rank, item));
      return RValue::list(std::move(items));
    }
    default: return RValue::none();  // strings, dtypes, devices: not values
  }
}

std::optional<int64_t> as_integer(const RValue& v) {
  if (v.kind == RValue::Kind::Int) return v.integer;
  if (v.kind == RValue::Kind::Bool) return v.truth ? 1 : 0;
  return std::nullopt;
}

}  // namespace

RValue KernelContext::value_of(const Arg& a) const {
  return value_on(*this, graph_, ranks_, slot_, a);
}

RValue KernelContext::value(std::string_view name) const {
  const Arg* a = arg(name);
  return a ? value_of(*a) : RValue::none();
}

Tensor KernelContext::tensor(std::string_view name) const {
  return validate::tensor_arg(*this, value(name), arg_label(bound_, name));
}

std::optional<Tensor> KernelContext::optional_tensor(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return tensor(name);
}

std::vector<Tensor> KernelContext::tensor_list(std::string_view name) const {
  return validate::tensor_list_arg(*this, value(name), arg_label(bound_, name));
}

std::vector<std::optional<Tensor>> KernelContext::optional_tensor_list(
    std::string_view name) const {
  RValue v = value(name);
  if (v.kind != RValue::Kind::List)
    bad_input(arg_label(bound_, name) + " must be a list of tensors");
  std::vector<std::optional<Tensor>> out;
  for (const RValue& item : v.items) {
    if (item.kind == RValue::Kind::None) {
      out.push_back(std::nullopt);
    } else if (item.kind == RValue::Kind::Tensor) {
      out.push_back(item.tensor);
    } else {
      bad_input(arg_label(bound_, name) + " must be a list of optional tensors, got " + item.str());
    }
  }
  return out;
}

int64_t KernelContext::integer(std::string_view name) const {
  if (!has(name)) bad_input("missing " + arg_label(bound_, name));
  return validate::int_arg(*this, as_integer(value(name)), arg_label(bound_, name),
                           arg(name)->str());
}

int64_t KernelContext::integer(std::string_view name, int64_t fallback) const {
  return has(name) ? integer(name) : fallback;
}

std::optional<int64_t> KernelContext::optional_integer(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return integer(name);
}

std::optional<std::vector<int64_t>> KernelContext::optional_int_list(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return validate::int_list_arg(*this, value(name), arg_label(bound_, name), arg(name)->str(),
                                [](const RValue& v) { return as_integer(v); });
}

std::vector<int64_t> KernelContext::int_list(std::string_view name) const {
  return validate::required(*this, optional_int_list(name), arg_label(bound_, name));
}

std::vector<int64_t> KernelContext::int_list(std::string_view name,
                                             const std::vector<int64_t>& fallback) const {
  auto list = optional_int_list(name);
  return list ? *list : fallback;
}

double KernelContext::real(std::string_view name, double fallback) const {
  const Arg* a = arg(name);
  if (!a) return fallback;
  RValue v = value_of(*a);
  if (v.kind == RValue::Kind::Float) return v.real;
  if (v.kind == RValue::Kind::Int) return static_cast<double>(v.integer);
  bad_input(arg_label(bound_, name) + " must be a number, got " + a->str());
}

bool KernelContext::boolean(std::string_view name, bool fallback) const {
  const Arg* a = arg(name);
  if (!a) return fallback;
  if (a->kind == Arg::Kind::Bool) return a->boolean;
  if (a->kind == Arg::Kind::Int && a->integer.is_constant()) return !a->integer.identical(0);
  if (a->kind == Arg::Kind::Node) {
    RValue v = value_of(*a);
    if (v.kind == RValue::Kind::Bool) return v.truth;
  }
  bad_input(arg_label(bound_, name) + " must be a bool, got " + a->str());
}

std::string KernelContext::string(std::string_view name, const std::string& fallback) const {
  return validate::string_arg(*this, arg(name), arg_label(bound_, name), fallback);
}

std::optional<DType> KernelContext::dtype(std::string_view name) const {
  return validate::dtype_arg(*this, arg(name), arg_label(bound_, name));
}

std::optional<Scalar> KernelContext::optional_scalar(std::string_view name) const {
  const Arg* a = arg(name);
  if (!a) return std::nullopt;
  RValue v = value_of(*a);
  switch (v.kind) {
    case RValue::Kind::Int: return Scalar::of_int(v.integer);
    case RValue::Kind::Float: return Scalar::of_float(v.real);
    case RValue::Kind::Bool: return Scalar::of_bool(v.truth);
    default: break;
  }
  bad_input(arg_label(bound_, name) + " must be a number, got " + a->str());
}

Scalar KernelContext::scalar(std::string_view name) const {
  auto s = optional_scalar(name);
  if (!s) bad_input("missing " + arg_label(bound_, name));
  return *s;
}

bool KernelContext::is_tensor_arg(std::string_view name) const {
  return value(name).kind == RValue::Kind::Tensor;
}

std::vector<RValue> KernelContext::group_values(std::string_view name) const {
  if (group_) bad_input("needs every rank's argument, which a multi-process run does not have");
  const Arg* a = detail::read_argument(node_, bound(), name);
  std::vector<RValue> out;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    out.push_back(a ? value_on(*this, graph_, ranks_, r, *a) : RValue::none());
  }
  return out;
}

size_t KernelContext::normalize_dim(int64_t dim, size_t rank) const {
  return validate::dim_index(*this, dim, rank);
}

}  // namespace symshape::interp
