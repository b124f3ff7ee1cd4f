// Guard generation: the exact conditions on a graph's inputs under which what the ShapeEnv
// decided stays valid, printed for Python, C++ and JSON, or compiled into a fast checker.
//
// The guards are conditions over *sources*, the values a caller can read off its inputs
// (`L['x'].size()[0]`, `L['x'].stride()[1]`), not over the env's symbols: a symbol stands for the
// first source that defines it, and every other source becomes an equality.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/ir.h"
#include "symshape/shape_env.h"

namespace symshape {

// A value read off the inputs.
struct Source {
  enum class Kind { Size, Stride, StorageOffset, Dim };
  Kind kind = Kind::Size;
  std::string input;  // the placeholder (Size, Stride, StorageOffset) or the dim's name (Dim)
  size_t dim = 0;     // Size, Stride
  // `L['x'].size()[0]`, `L['x'].stride()[1]`, `L['x'].storage_offset()`; a dim that no input's
  // size determines (a symbolic group size W) is `dims['W']`.
  std::string name;
  // The name mangled into a C identifier: `L_x_size_0_`, `L_x_stride_1_`, `dims_W_`. Guards'
  // conditions use these as their symbols.
  std::string identifier;
};

// One node's requirement that a guard carries: several merge into one guard (the lower bounds
// of one dim, from each window op, merge into its range line).
struct Requirement {
  Cond cond;         // over Source::identifier symbols
  Provenance where;  // the node, op and rule that required it
};

struct ProducedGuard {
  enum class Kind {
    Equality,  // sources that must agree (duck sizing, replacements, strides, constants)
    Guard,     // a recorded guard that nothing else implies
    Range,     // a symbol's range on its source
  };
  Kind kind = Kind::Guard;
  Cond cond;         // over Source::identifier symbols
  Provenance where;  // the node, op and rule that caused it (empty when the user declared it);
                     // of merged requirements, the one that decides the bound
  // When several requirements merged into this guard: all of them, in the order the graph
  // recorded them (a range line ends with the declared or default range of its dim, for the ends
  // no node sets). Empty otherwise.
  std::vector<Requirement> merged{};
};

// A symbol of the env and how the sources give its value.
struct SymbolDefinition {
  std::string symbol;  // the env's name: batch, s0
  Expr value;          // over source identifiers: `L_x_size_0_`, `(L_x_size_1_ - 1)//2`
  ValueRange range;    // the env's (refined) range
};

// What produce_guards returns: the sources, the guards in order (equalities, guards, ranges),
// the symbol table, and the runtime asserts (conditions on data-dependent values that the
// graph must check when it runs; not checkable on input sizes).
struct GuardSet {
  std::vector<Source> sources;
  std::vector<ProducedGuard> guards;
  std::vector<SymbolDefinition> symbols;
  std::vector<RuntimeAssert> runtime_asserts;  // over source identifiers and unbacked symbols

  // The index of the source with this name or identifier (sources.size() when absent).
  size_t find_source(std::string_view name_or_identifier) const;
};

// One graph input: its name and its sizes and strides as the env's expressions.
struct GuardInput {
  std::string name;
  std::vector<Expr> sizes;
  std::vector<Expr> strides;  // empty: contiguous
  bool has_strides = true;    // false: no stride sources (an ONNX tensor has no strides)
};

// The minimal guard set over these inputs: equalities between sources (each symbol is defined by
// the first source equal to it, or to a*symbol + b, with a divisibility guard); every recorded
// guard under the replacements, normalized, unless implied by the ranges, the source equalities
// and the other guards (duplicates merged); then each symbol's range (infinite ends omitted).
GuardSet produce_guards(const ShapeEnv& env, const std::vector<GuardInput>& inputs);
// The graph's placeholders as inputs (declared sizes and strides; an ONNX model's inputs have
// sizes only).
std::vector<GuardInput> graph_inputs(const Graph& graph);

// ---- printers ----

// The names the JSON printer (and the Python bindings) give the kinds: "equality", "guard",
// "range"; "size", "stride", "storage_offset", "dim".
std::string_view kind_name(ProducedGuard::Kind k);
std::string_view kind_name(Source::Kind k);

// One line per guard, PyTorch's strings (each a Python expression; joinable with ` and `).
std::string print_python(const GuardSet& set);
// Each guard followed by `  # <provenance>`, then the runtime asserts as comments.
std::string print_verbose(const GuardSet& set);
// A C++ boolean expression over the source identifiers, one guard per line joined by `&&`. The
// identifiers are symshape::GuardInt (include/symshape/guard_int.h): exact arithmetic, so no
// int64 overflow for any input that fits its type.
std::string print_cpp(const GuardSet& set);
// Guards with their provenance, the source and symbol tables, and the runtime asserts.
nlohmann::ordered_json to_json(const GuardSet& set);
// A condition over source identifiers printed with the sources' names.
std::string python_text(const GuardSet& set, const Cond& cond);

// ---- the compiled checker ----

// Why a check failed: the guard, its provenance and the sources it reads, with their values.
struct CheckFailure {
  size_t guard = 0;  // index into GuardSet::guards
  std::string text;  // the guard, as Python
  Provenance where;  // of a merged guard, the first requirement (in graph order) these values fail
  std::vector<std::pair<std::string, Int>> values;  // source name -> value, for the sources read
  std::string reason;  // empty, or why it could not be evaluated (`division by zero`)
  std::string str() const;
};

// The guards lowered to a compact register program over int64. The GuardSet must outlive the
// checker (failures are explained from it). Every operation checks for
// overflow; a guard whose evaluation overflows is evaluated again with exact arithmetic.
class GuardChecker {
 public:
  explicit GuardChecker(const GuardSet& set);

  size_t source_count() const { return sources_; }
  // The index of the first failing guard, or npos when all hold. `values` holds one value per
  // source, in GuardSet::sources order.
  static constexpr size_t npos = std::numeric_limits<size_t>::max();
  size_t first_failure(std::span<const int64_t> values) const;
  // The same with a full explanation; values may be any size (the exact path takes over).
  std::optional<CheckFailure> check(const std::vector<Int>& values) const;

  size_t instruction_count() const { return code_.size(); }

 private:
  enum class Op : uint8_t;
  struct Instr {
    Op op;
    uint32_t dst, a, b;  // slots; a check's dst is its guard's index
  };
  bool exact_holds(size_t guard, std::span<const int64_t> values) const;
  bool exact_or_false(size_t guard, std::span<const int64_t> values) const;

  const GuardSet* set_ = nullptr;
  std::vector<Cond> conds_;  // per guard, for the exact path
  size_t sources_ = 0;
  std::vector<Instr> code_;
  std::vector<int64_t> constants_;  // slots [sources, sources + constants)
  size_t slots_ = 0;
  std::vector<std::vector<size_t>> reads_;  // per guard: the sources it reads
  friend struct CheckerAccess;
};

// ---- user constraints ----

// A declared dynamic dim that the guards contradict, and how to fix the declaration.
struct ConstraintProblem {
  std::string dim;                 // the user's dim name
  std::string message;             // one or two sentences: which dim, which guard, for which values
  std::vector<std::string> fixes;  // suggested declarations in the user's vocabulary
};

// The declared dims (symbols with a user constraint) that the guards restrict: specialized to a
// constant, narrowed, forced to a multiple (a derived dim), equal to another dim, or tied by
// another guard. Empty when the declarations hold.
std::vector<ConstraintProblem> check_constraints(const ShapeEnv& env);
// torch.export's report: `Constraints violated (batch)! ...`, each problem, then
// `Suggested fixes:` with the fixes (merged, in order).
std::string format_constraint_problems(const std::vector<ConstraintProblem>& problems);

}  // namespace symshape
