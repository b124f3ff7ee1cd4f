// OpContext: typed access to a node's arguments, and decisions that name the node.
#include "symshape/ops.h"
#include "symshape/ops/families.h"
#include "symshape/ops/schema_table.h"
#include "symshape/ops/validate/arguments.h"

namespace symshape {

namespace {
std::string label(const Node& node) {
  return "node " + node.name + (node.target.empty() ? "" : " (" + node.target + ")");
}
}  // namespace

ShapeError::ShapeError(const Node& node, const std::string& message)
    : Error(label(node) + ": " + message) {}

InputError::InputError(const Node& node, const std::string& message)
    : Error(label(node) + ": " + message) {}

OpContext::OpContext(ShapeEnv& env, const Node& node, ValueLookup values)
    : env_(env), node_(node), values_(std::move(values)) {}

void OpContext::fail(const std::string& message) const { throw ShapeError(node_, message); }
void OpContext::bad_input(const std::string& message) const { throw InputError(node_, message); }

const BoundArgs& OpContext::bound() const {
  if (!bound_) {
    auto classify = [&](const Arg& a) {
      const Value* v = values_(a.text);
      return v ? arg_class_of(*v) : ArgClass::Other;
    };
    try {
      bound_ = detail::bind_call(node_, classify);
    } catch (const Error& e) {
      bad_input(e.what());
    }
  }
  return *bound_;
}

const OpSchema& OpContext::schema() const { return *bound().schema(); }
bool OpContext::declares(std::string_view name) const { return bound().declares(name); }

namespace {
std::string no_value_yet(const Arg& a) {
  return "refers to '" + a.text + "', which has no value yet";
}
}  // namespace

const Arg* OpContext::arg(std::string_view name) const {
  const Arg* a = detail::read_argument(node_, bound(), name);
  if (!a || a->kind == Arg::Kind::None) return nullptr;
  if (a->kind == Arg::Kind::Node) {
    const Value* v = values_(a->text);
    if (!v) bad_input(no_value_yet(*a));
    // A node that produced None (an optional output) counts as absent.
    if (v->kind == Value::Kind::None) return nullptr;
  }
  return a;
}

Value OpContext::value_of(const Arg& a) const {
  switch (a.kind) {
    case Arg::Kind::None: return Value::none();
    case Arg::Kind::Bool: return Value::of_bool(a.boolean);
    case Arg::Kind::Int: return Value::of_int(a.integer);
    case Arg::Kind::Float: return Value::of_float(a.real);
    case Arg::Kind::Node: {
      const Value* v = values_(a.text);
      if (!v) bad_input(no_value_yet(a));
      return *v;
    }
    case Arg::Kind::List: {
      std::vector<Value> items;
      for (const Arg& item : a.items) items.push_back(value_of(item));
      return Value::list(std::move(items));
    }
    default: return Value::none();  // strings, dtypes, devices: not values
  }
}

Value OpContext::value(std::string_view name) const {
  const Arg* a = arg(name);
  return a ? value_of(*a) : Value::none();
}

namespace {
std::string arg_label(const std::optional<BoundArgs>& bound, std::string_view name) {
  return detail::argument_label(bound ? bound->schema() : nullptr, name);
}
}  // namespace

TensorMeta OpContext::tensor(std::string_view name) const {
  return validate::tensor_arg(*this, value(name), arg_label(bound_, name));
}

std::optional<TensorMeta> OpContext::optional_tensor(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return tensor(name);
}

std::vector<TensorMeta> OpContext::tensor_list(std::string_view name) const {
  return validate::tensor_list_arg(*this, value(name), arg_label(bound_, name));
}

namespace {
std::optional<Expr> as_integer(const Value& v) {
  if (v.kind == Value::Kind::Int) return v.integer;
  if (v.kind == Value::Kind::Bool && v.truth) return Expr(*v.truth ? 1 : 0);
  return std::nullopt;
}
}  // namespace

std::optional<Expr> OpContext::optional_integer(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return integer(name);
}

Expr OpContext::integer(std::string_view name) const {
  if (!has(name)) bad_input("missing " + arg_label(bound_, name));
  return validate::int_arg(*this, as_integer(value(name)), arg_label(bound_, name),
                           arg(name)->str());
}

Expr OpContext::integer(std::string_view name, const Expr& fallback) const {
  return has(name) ? integer(name) : fallback;
}

std::optional<std::vector<Expr>> OpContext::optional_int_list(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return validate::int_list_arg(*this, value(name), arg_label(bound_, name), arg(name)->str(),
                                [](const Value& v) { return as_integer(v); });
}

std::vector<Expr> OpContext::int_list(std::string_view name) const {
  return validate::required(*this, optional_int_list(name), arg_label(bound_, name));
}

std::vector<Expr> OpContext::int_list(std::string_view name,
                                      const std::vector<Expr>& fallback) const {
  auto list = optional_int_list(name);
  return list ? *list : fallback;
}

int64_t OpContext::constant(std::string_view name) const {
  Expr e = simplify(integer(name));
  auto v = e.as_int64();
  if (!v) bad_input(arg_label(bound_, name) + " must be a constant int, got " + e.str());
  return *v;
}

int64_t OpContext::constant(std::string_view name, int64_t fallback) const {
  return has(name) ? constant(name) : fallback;
}

double OpContext::real(std::string_view name, double fallback) const {
  const Arg* a = arg(name);
  if (!a) return fallback;
  if (a->kind == Arg::Kind::Float) return a->real;
  if (a->kind == Arg::Kind::Int && a->integer.as_int64()) {
    return static_cast<double>(*a->integer.as_int64());
  }
  Value v = value_of(*a);
  if (v.kind == Value::Kind::Float) return v.real;
  bad_input(arg_label(bound_, name) + " must be a number, got " + a->str());
}

bool OpContext::boolean(std::string_view name, bool fallback) const {
  const Arg* a = arg(name);
  if (!a) return fallback;
  if (a->kind == Arg::Kind::Bool) return a->boolean;
  if (a->kind == Arg::Kind::Int && a->integer.is_constant()) return !a->integer.identical(0);
  bad_input(arg_label(bound_, name) + " must be a bool, got " + a->str());
}

std::string OpContext::string(std::string_view name, const std::string& fallback) const {
  return validate::string_arg(*this, arg(name), arg_label(bound_, name), fallback);
}

std::optional<DType> OpContext::dtype(std::string_view name) const {
  return validate::dtype_arg(*this, arg(name), arg_label(bound_, name));
}

bool OpContext::is_tensor_arg(std::string_view name) const {
  return value(name).kind == Value::Kind::Tensor;
}

Provenance OpContext::where(std::string_view rule) const {
  return Provenance{node_.name, node_.target, std::string(rule)};
}

bool OpContext::decide(const Cond& cond, std::string_view rule) const {
  return env_.evaluate(env_.wrap(cond), where(rule));
}

Truth OpContext::known(const Cond& cond) const { return env_.known(env_.wrap(cond)); }

void OpContext::assert_runtime(const Cond& cond, std::string_view rule) const {
  env_.defer_runtime_assert(env_.wrap(cond), where(rule));
}

void OpContext::require_equal(const Expr& a, const Expr& b, std::string_view rule,
                              const std::string& message) const {
  require_equal(a, b, rule, [&] { return message; });
}

void OpContext::require_equal(const Expr& a, const Expr& b, std::string_view rule,
                              const std::function<std::string()>& message) const {
  Cond eq = a == b;
  Truth t = known(eq);
  if (t == Truth::True) return;
  if (t == Truth::False) fail(message());
  if (env_.is_data_dependent(a) || env_.is_data_dependent(b)) {
    assert_runtime(eq, rule);
    return;
  }
  // Guessed hints give way to a size the graph forces (before the guess is recorded as a guard).
  if (env_.options().hints_are_guesses && env_.size_hint(a) != env_.size_hint(b))
    env_.move_hint_to_satisfy(a, b);
  const std::string why = ops::at_the_hints(*this, eq);  // before the guard decides it
  if (!decide(eq, rule)) fail(message() + why);
}

Expr OpContext::simplify(const Expr& e) const { return env_.simplify(e); }

ValueRange OpContext::bound(const Expr& e) const { return env_.bound(e); }

bool OpContext::is_data_dependent(const Expr& e) const { return env_.is_data_dependent(e); }

bool OpContext::is_data_dependent(const Cond& c) const {
  switch (c.kind()) {
    case Cond::Kind::Rel: return is_data_dependent(c.lhs()) || is_data_dependent(c.rhs());
    case Cond::Kind::And:
    case Cond::Kind::Or:
      for (const Cond& o : c.operands()) {
        if (is_data_dependent(o)) return true;
      }
      return false;
    default: return false;
  }
}

bool OpContext::decide_size_oblivious(const Cond& cond, std::string_view rule) const {
  return env_.guard_size_oblivious(env_.wrap(cond), where(rule));
}

Int OpContext::decide_int(const Expr& e, std::string_view rule) const {
  return env_.guard_int(env_.wrap(e), where(rule));
}

Expr OpContext::new_unbacked_int() const { return env_.create_unbacked_symint().expr(); }

Expr OpContext::new_unbacked_size(const ValueRange& range) const {
  SymInt u = env_.create_unbacked_symint();
  env_.constrain_as_size(u, range);
  return u.expr();
}

void OpContext::constrain_range(const Expr& symbol, const ValueRange& range, bool as_size) const {
  SymInt value = env_.wrap(symbol);
  try {
    if (as_size && env_.is_data_dependent(symbol) && symbol.is_symbol()) {
      env_.constrain_as_size(value, range);
    } else {
      env_.constrain_range(value, range);
    }
  } catch (const ConstraintViolation& e) {
    fail(e.what());
  }
}

size_t OpContext::normalize_dim(int64_t dim, size_t rank) const {
  return validate::dim_index(*this, dim, rank);
}

}  // namespace symshape
