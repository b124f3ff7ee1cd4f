// ShapeEnv: the one place that decides questions about symbolic sizes.
//
// It owns the symbols of one graph (with their hints, sources, ranges and kinds), the guards
// recorded while deciding on hints, the runtime asserts deferred for data-dependent values, and
// what those taught it: replacements (a symbol equal to an expression over earlier symbols),
// refined ranges and divisibility facts. Every decision sees all of it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/ranges.h"

namespace symshape {

class ShapeEnv;

// Where a decision was asked for: the node, its op and the rule that asked.
struct Provenance {
  std::string node;
  std::string op;
  std::string rule;
  // "node view_3 (aten.view.default, reshape)"; empty when nothing is known.
  std::string str() const;
};

// A condition the compiled artifact relies on; it held at the hints when it was recorded.
struct Guard {
  Cond cond;
  Provenance where;
};

// A condition on data-dependent values that must be checked when the graph runs.
struct RuntimeAssert {
  Cond cond;
  Provenance where;
};

// A decision that depends on a data-dependent (unbacked) value and could not be made statically.
class DataDependentError : public Error {
 public:
  DataDependentError(std::string expression, Provenance where);
  const std::string& expression() const { return expression_; }
  const Provenance& where() const { return where_; }

 private:
  std::string expression_;
  Provenance where_;
};

// A hint or a guard that contradicts what the user declared about a dimension.
class ConstraintViolation : public Error {
 public:
  using Error::Error;
};

enum class DimPolicy {
  Dynamic,           // a fresh symbol
  Duck,              // sizes with equal hints share one symbol
  Static,            // the hint itself, as a constant
  SizeLikeUnbacked,  // a fresh unbacked, size-like symbol (the hint is ignored)
};

enum class SymbolKind { Backed, Unbacked };

struct SymbolInfo {
  std::string name;
  SymbolKind kind = SymbolKind::Backed;
  std::optional<Int> hint;  // backed symbols only
  std::string source;       // `L['x'].size()[0]`; empty for unbacked symbols
  bool size_like = false;
  std::optional<ValueRange> user_constraint;  // what the user declared, if anything
  size_t index = 0;                           // creation order
};

// How create_symbol names and constrains a new symbol.
// (Every member has an initializer, so designated initializers may name any subset of them.)
struct SymbolOptions {
  std::string name{};                         // the user's name (`batch`); else s0, s1, ...
  std::optional<ValueRange> constraint{};     // the user's [min, max]; checked against the hint
  std::optional<bool> specialize_zero_one{};  // overrides ShapeEnvOptions for this symbol
};

struct ShapeEnvOptions {
  bool duck_shape = true;           // DimPolicy::Duck shares symbols between equal hints
  bool specialize_zero_one = true;  // hints 0 and 1 become constants; others range over [2, inf]
  bool log = false;                 // keep the event log
  // The hints are guesses, not example sizes: a rule that finds an equality false at the hints
  // first tries move_hint_to_satisfy (OpContext::require_equal does).
  bool hints_are_guesses = false;
};

class SymBool;

// A symbolic integer: an expression over the symbols of one ShapeEnv (or a plain constant).
class SymInt {
 public:
  SymInt(int v) : expr_(v) {}  // NOLINT: constants mix freely with symbolic values
  SymInt(long v) : expr_(v) {}
  SymInt(long long v) : expr_(v) {}
  SymInt(Expr e, ShapeEnv* env) : expr_(std::move(e)), env_(env) {}

  const Expr& expr() const { return expr_; }
  ShapeEnv* env() const { return env_; }
  std::optional<int64_t> as_int64() const { return expr_.as_int64(); }
  bool is_constant() const { return expr_.is_constant(); }
  std::string str() const { return expr_.str(); }

  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a);
  friend SymInt floordiv(const SymInt& a, const SymInt& b);
  friend SymInt mod(const SymInt& a, const SymInt& b);
  friend SymInt ceildiv(const SymInt& a, const SymInt& b);
  friend SymInt max(const SymInt& a, const SymInt& b);
  friend SymInt min(const SymInt& a, const SymInt& b);
  friend SymBool operator==(const SymInt& a, const SymInt& b);
  friend SymBool operator!=(const SymInt& a, const SymInt& b);
  friend SymBool operator<(const SymInt& a, const SymInt& b);
  friend SymBool operator<=(const SymInt& a, const SymInt& b);
  friend SymBool operator>(const SymInt& a, const SymInt& b);
  friend SymBool operator>=(const SymInt& a, const SymInt& b);

 private:
  Expr expr_;
  ShapeEnv* env_ = nullptr;
};

// A symbolic boolean: a condition over the symbols of one ShapeEnv.
class SymBool {
 public:
  SymBool(bool v) : cond_(Cond::truth(v)) {}  // NOLINT
  SymBool(Cond c, ShapeEnv* env) : cond_(std::move(c)), env_(env) {}
  const Cond& cond() const { return cond_; }
  ShapeEnv* env() const { return env_; }
  std::string str() const { return cond_.str(); }

  friend SymBool operator&&(const SymBool& a, const SymBool& b);
  friend SymBool operator||(const SymBool& a, const SymBool& b);
  friend SymBool operator!(const SymBool& a);

 private:
  Cond cond_;
  ShapeEnv* env_ = nullptr;
};

class ShapeEnv {
 public:
  explicit ShapeEnv(ShapeEnvOptions options = {});
  ShapeEnv(const ShapeEnv&) = delete;  // SymInts point at their env
  ShapeEnv& operator=(const ShapeEnv&) = delete;

  // ---- symbols ----

  // The size `hint` read from `source`, as a symbol (or a constant: a STATIC policy, or a hint of
  // 0 or 1 when those are specialized). Throws ConstraintViolation when the hint lies outside the
  // user's constraint, or a named dim is seen again with another hint.
  SymInt create_symbol(const Int& hint, const std::string& source,
                       DimPolicy policy = DimPolicy::Duck, const SymbolOptions& options = {});
  // A fresh data-dependent symbol u0, u1, ... ranging over all integers.
  SymInt create_unbacked_symint();
  // Narrows an unbacked symbol's range. Throws ConstraintViolation when the range becomes empty.
  void constrain_range(const SymInt& value, const ValueRange& range);
  // Marks an unbacked symbol as a size: [0, inf], and >= 2 for size-oblivious decisions.
  void constrain_as_size(const SymInt& value, const ValueRange& range = ValueRange::at_least(0));

  const SymbolInfo& symbol(std::string_view name) const;  // throws Error when unknown
  bool has_symbol(std::string_view name) const;
  const std::vector<SymbolInfo>& symbols() const { return symbols_; }
  SymInt sym(std::string_view name);  // the symbol as a SymInt (throws when unknown)
  SymInt wrap(const Expr& e) { return SymInt(e, this); }
  SymBool wrap(const Cond& c) { return SymBool(c, this); }

  // ---- decisions ----

  // What the env can decide without a guard: True, False or Unknown.
  Truth known(const SymBool& cond);
  // True only when cond holds wherever the facts do. Never adds a guard.
  bool statically_known_true(const SymBool& cond) { return known(cond) == Truth::True; }
  // cond's value: statically known, or decided on the hints with a guard recorded (cond or its
  // negation). Throws DataDependentError when it depends on an unbacked symbol.
  bool evaluate(const SymBool& cond, const Provenance& where = {});
  // e's value: statically known, or its value at the hints with the guard `e == value`.
  Int guard_int(const SymInt& e, const Provenance& where = {});
  // Like evaluate, but a data-dependent question answers false (true) with no guard.
  bool guard_or_false(const SymBool& cond, const Provenance& where = {});
  bool guard_or_true(const SymBool& cond, const Provenance& where = {});
  // Decides cond as if every size-like unbacked symbol were >= 2; falls back to evaluate().
  bool guard_size_oblivious(const SymBool& cond, const Provenance& where = {});
  // Records cond as a runtime assert (and a fact) instead of a guard. Throws Error when cond is
  // statically false.
  void defer_runtime_assert(const SymBool& cond, const Provenance& where = {});

  // ---- what the env knows ----

  // e under the replacements, simplified with the ranges and facts.
  Expr simplify(const Expr& e);
  Cond simplify(const Cond& c);
  // e with every replaced symbol substituted (no other simplification).
  Expr substitute(const Expr& e) const;
  Cond substitute(const Cond& c) const;
  ValueRange bound(const Expr& e);
  // e's value under the hints; nullopt when it involves an unbacked symbol.
  std::optional<Int> size_hint(const Expr& e) const;
  // Moves one symbol's hint so that `a == b` holds at the hints, when a - b (under the
  // replacements) is linear in a single backed symbol with an integer solution inside its
  // range, and every guard recorded so far still holds at the moved hint; false (and nothing
  // changed) otherwise. For graphs whose hints are guesses rather than examples (an ONNX
  // model's dims: ShapeEnvOptions::hints_are_guesses), so that a size the graph forces
  // (`Reshape([N], [2, 12])` makes N 24) is taken instead of contradicting the guess.
  bool move_hint_to_satisfy(const Expr& a, const Expr& b);
  // Moves one symbol's hint so that cond holds at the hints, for a requirement (a rule fails
  // unless cond holds) when the hints are guesses: when cond (under the replacements) reads a
  // single backed symbol, its hint becomes the smallest value in the symbol's range, within a
  // bounded scan, at which cond and every guard recorded so far hold (so a guess never decides
  // a requirement against the model: `H >= 11` moves a guessed H of 8 to 11). True when cond
  // holds at the hints already or now; false (and nothing changed) otherwise.
  bool move_hint_to_satisfy(const Cond& cond);
  // True when e involves an unbacked symbol (after replacements).
  bool is_data_dependent(const Expr& e) const;

  const std::vector<Guard>& guards() const { return guards_; }
  const std::vector<RuntimeAssert>& runtime_asserts() const { return runtime_asserts_; }
  // symbol -> expression over earlier symbols, in the order they were learned.
  const std::map<std::string, Expr>& replacements() const { return replacements_; }
  const Facts& facts() const { return facts_; }
  const ShapeEnvOptions& options() const { return options_; }

  // The event log (when options().log): one line per event, in a stable format.
  const std::vector<std::string>& log() const { return log_; }
  void set_logging(bool on) { options_.log = on; }

  // ---- scoped reasoning ----

  // Everything the env has learned so far (symbols, ranges, facts, replacements, guards, runtime
  // asserts, the log), to return to with rollback().
  struct Checkpoint;
  Checkpoint checkpoint() const;
  // Forgets everything learned since cp was taken. SymInts made since then name symbols the env
  // no longer has.
  void rollback(const Checkpoint& cp);
  // Whether an AssumptionScope is open: decisions are then static only (no guard is recorded).
  bool under_assumption() const { return assumption_depth_ > 0; }

 private:
  friend class AssumptionScope;
  // Records a guard (the condition decided on the hints) and learns from it. Throws Error under
  // an assumption: a guard decided there would only hold under the premise.
  void add_guard(const Cond& guard, const Provenance& where);
  void record(std::string line);
  void set_hint(const std::string& name, const Int& value);  // move_hint_to_satisfy's move
  std::string fresh_name(char prefix);
  SymInt add_symbol(SymbolInfo info, const ValueRange& range);
  SymbolInfo& info_of(const SymInt& value, const char* what);
  // c decided from the facts alone; *simplified, when asked for, receives c under the
  // replacements, simplified (what evaluate() guards, so it is not simplified twice).
  Truth decide_static(const Cond& c, const Facts& facts, bool use_cache,
                      Cond* simplified = nullptr);
  // A relation `x + k op y` between two symbols (difference_goal), decided from the difference
  // closure without simplify(): decide_difference gives prove()'s first tier's answer, nullopt
  // when the general path must decide (it may know more).
  struct DifferenceGoal;
  std::optional<DifferenceGoal> difference_goal(const Cond& c) const;
  std::optional<Truth> decide_difference(const DifferenceGoal& goal, const Facts& facts) const;
  // Learns from a condition now known to hold: replacements, ranges, divisibility, facts.
  void learn(const Cond& c);
  void learn_equality(const Expr& lhs, const Expr& rhs);
  void add_replacement(const std::string& name, const Expr& value);
  void refine(const std::string& name, const ValueRange& r);
  const Facts& size_oblivious_facts();
  void check_env(const ShapeEnv* other) const;
  bool has_unbacked(const std::vector<std::string>& symbol_names) const;
  // The guarded form of a substituted and simplified condition, or a DataDependentError.
  Cond prepare_guard(const Cond& simplified, const Provenance& where);

  ShapeEnvOptions options_;
  std::vector<SymbolInfo> symbols_;
  std::unordered_map<std::string, size_t> by_name_;
  std::map<std::string, std::string> duck_by_hint_;  // hint (decimal) -> symbol name
  Bindings hints_;                                   // backed symbol -> hint
  size_t next_backed_ = 0, next_unbacked_ = 0;
  Facts facts_;
  std::map<std::string, Expr> replacements_;
  std::vector<Guard> guards_;
  std::vector<RuntimeAssert> runtime_asserts_;
  std::vector<std::string> log_;
  // Static decisions, valid while facts_.version() is unchanged.
  struct CacheEntry {
    Cond cond;
    Truth truth;
    Cond simplified;
  };
  std::unordered_multimap<size_t, CacheEntry> cache_;
  uint64_t cache_epoch_ = ~uint64_t{0};
  // simplify(Expr) results by the expression's hash, valid like cache_: a graph asks for the
  // same sizes (batch*seq, the hidden width) at every node.
  std::unordered_multimap<unsigned, std::pair<Expr, Expr>> simplify_cache_;
  uint64_t simplify_epoch_ = ~uint64_t{0};
  uint64_t epoch_ = 0;  // bumped whenever the env learns anything
  std::optional<Facts> oblivious_facts_;
  uint64_t oblivious_version_ = ~uint64_t{0};
  int assumption_depth_ = 0;
};

struct ShapeEnv::Checkpoint {
  std::vector<SymbolInfo> symbols;
  std::unordered_map<std::string, size_t> by_name;
  std::map<std::string, std::string> duck_by_hint;
  Bindings hints;
  size_t next_backed = 0, next_unbacked = 0;
  Facts facts;
  std::map<std::string, Expr> replacements;
  std::vector<Guard> guards;
  std::vector<RuntimeAssert> runtime_asserts;
  size_t log_size = 0;
};

// Assumes a condition for a block of reasoning and forgets it, with everything learned under it,
// when the block ends (TVM's ConstraintContext):
//   { AssumptionScope scope(env, env.wrap(n % 4 == 0)); env.known(...); }
// Inside, decisions are static: evaluate() answers what the facts decide and throws Error rather
// than record a guard, since a guard decided under a premise need not hold without it.
class AssumptionScope {
 public:
  // Throws Error when cond is statically false (nothing could be reasoned under it).
  AssumptionScope(ShapeEnv& env, const SymBool& cond);
  ~AssumptionScope();
  AssumptionScope(const AssumptionScope&) = delete;
  AssumptionScope& operator=(const AssumptionScope&) = delete;

 private:
  ShapeEnv& env_;
  ShapeEnv::Checkpoint saved_;
};

}  // namespace symshape
