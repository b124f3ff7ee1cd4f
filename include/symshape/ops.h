// Shape rules: the registry of ops and the context a rule computes its output metadata in.
//
// A rule never compares symbolic sizes itself: it asks the ShapeEnv through the context (decide,
// known), so every decision is either static or a guard with this node as its provenance.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symshape/ir.h"
#include "symshape/schema.h"
#include "symshape/shape_env.h"

namespace symshape {

// A graph whose shapes do not type-check: names the node, its op and what is wrong.
class ShapeError : public Error {
 public:
  ShapeError(const Node& node, const std::string& message);
};

// Bad input to a rule (a missing or mistyped argument, a dim out of range): also names the node.
class InputError : public Error {
 public:
  InputError(const Node& node, const std::string& message);
};

// The value an earlier node produced, by its name; nullptr when no such node has a value.
using ValueLookup = std::function<const Value*(std::string_view name)>;

class OpContext {
 public:
  // `values` finds the value of every node the arguments refer to.
  OpContext(ShapeEnv& env, const Node& node, ValueLookup values);

  const Node& node() const { return node_; }
  // The ShapeEnv the rule decides in (control flow propagates its subgraphs under the same one).
  ShapeEnv& env() const { return env_; }

  // ---- arguments, by their name in the call's signature (schema.h) ----
  // The call is bound to one overload of its target's signature on first use; a call that fits
  // none is bad input. An argument the call did not pass reads as the parameter's default.
  const OpSchema& schema() const;
  // Whether the bound overload has a parameter `name` (a rule shared by a family of ops or by
  // several overloads asks before reading one only some of them have).
  bool declares(std::string_view name) const;
  // The argument, or nullptr when absent, None, or not a parameter of the bound overload.
  const Arg* arg(std::string_view name) const;
  // Whether the call has the argument: false too when its overload has no such parameter.
  bool has(std::string_view name) const { return declares(name) && arg(name) != nullptr; }
  // A node argument's value, or a literal turned into a Value.
  Value value(std::string_view name) const;
  Value value_of(const Arg& a) const;
  TensorMeta tensor(std::string_view name) const;
  std::optional<TensorMeta> optional_tensor(std::string_view name) const;
  std::vector<TensorMeta> tensor_list(std::string_view name) const;
  // An int (literal, symbolic expression, or a node producing a SymInt).
  Expr integer(std::string_view name) const;
  Expr integer(std::string_view name, const Expr& fallback) const;
  std::optional<Expr> optional_integer(std::string_view name) const;
  // A list of ints; a single int is accepted as a one-element list.
  std::vector<Expr> int_list(std::string_view name) const;
  std::vector<Expr> int_list(std::string_view name, const std::vector<Expr>& fallback) const;
  std::optional<std::vector<Expr>> optional_int_list(std::string_view name) const;
  // A plain (concrete) int such as a dim index; symbolic values are an error.
  int64_t constant(std::string_view name) const;
  int64_t constant(std::string_view name, int64_t fallback) const;
  double real(std::string_view name, double fallback) const;
  bool boolean(std::string_view name, bool fallback) const;
  std::string string(std::string_view name, const std::string& fallback) const;
  std::optional<DType> dtype(std::string_view name) const;
  // A scalar argument (number or 0-dim tensor) or a tensor: its dtype for type promotion.
  bool is_tensor_arg(std::string_view name) const;

  // ---- decisions ----
  Provenance where(std::string_view rule) const;
  // The value of cond: static, or decided on the hints with a guard naming this node and rule.
  bool decide(const Cond& cond, std::string_view rule) const;
  // Static knowledge only (no guard).
  Truth known(const Cond& cond) const;
  // Records a runtime assert (data-dependent sizes) naming this node and rule.
  void assert_runtime(const Cond& cond, std::string_view rule) const;
  // Requires a == b (a guard, or a runtime assert when data-dependent); fails with message
  // when they differ at the hints.
  void require_equal(const Expr& a, const Expr& b, std::string_view rule,
                     const std::string& message) const;
  // The same with the message built only on failure (a message that prints shapes costs more
  // than the check when it holds, as it almost always does).
  void require_equal(const Expr& a, const Expr& b, std::string_view rule,
                     const std::function<std::string()>& message) const;
  Expr simplify(const Expr& e) const;
  ValueRange bound(const Expr& e) const;
  // Whether e (or a relation of c) involves a data-dependent (unbacked) symbol.
  bool is_data_dependent(const Expr& e) const;
  bool is_data_dependent(const Cond& c) const;
  // cond decided statically, else as if every size-like data-dependent symbol were >= 2 (PyTorch's
  // size-oblivious reasoning), else on the hints with a guard.
  bool decide_size_oblivious(const Cond& cond, std::string_view rule) const;
  // e's value: static, or its value at the hints with the guard `e == value`.
  Int decide_int(const Expr& e, std::string_view rule) const;
  // A fresh data-dependent int (item()'s value), and a fresh size-like one in range (nonzero's
  // count).
  Expr new_unbacked_int() const;
  Expr new_unbacked_size(const ValueRange& range = ValueRange::at_least(0)) const;
  // Narrows the range of a data-dependent symbol (as a size when as_size); ShapeError when the
  // range becomes empty or contradicts what is known.
  void constrain_range(const Expr& symbol, const ValueRange& range, bool as_size) const;

  // A dim index normalized into [0, rank) (rank 0 accepts -1 and 0 as PyTorch does).
  size_t normalize_dim(int64_t dim, size_t rank) const;

  [[noreturn]] void fail(const std::string& message) const;       // ShapeError
  [[noreturn]] void bad_input(const std::string& message) const;  // InputError

 private:
  const BoundArgs& bound() const;
  ShapeEnv& env_;
  const Node& node_;
  ValueLookup values_;
  mutable std::optional<BoundArgs> bound_;
};

using ShapeRule = std::function<Value(OpContext&)>;

// The registered shape rules, by target, found by resolve_target (ir.h): a target
// `aten.add.Tensor` under its full name or its overload packet `aten.add`; `aten.add_.Tensor`
// without a rule of its own gets `aten.add.Tensor`'s, with the result written into self (its
// shape and a dtype castable to self's). A registry is a value: copy the standard one to narrow
// or extend it for a test or a pass.
class OpRegistry {
 public:
  // Every family's rules.
  static const OpRegistry& instance();
  void add(const std::string& target, ShapeRule rule);
  void remove(std::string_view target);
  // The rule for target, or nullptr.
  const ShapeRule* find(std::string_view target) const;
  std::vector<std::string> targets() const;  // registered names, sorted

 private:
  std::map<std::string, ShapeRule, std::less<>> rules_;
  // In-place rules made from functional ones on first use, kept so pointers stay valid.
  mutable std::map<std::string, ShapeRule, std::less<>> in_place_;
};

}  // namespace symshape
