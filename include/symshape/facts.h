// Facts: what the engine may assume about symbols when it simplifies, bounds and proves.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symshape/expr.h"
#include "symshape/ranges.h"

namespace symshape {

namespace detail {
class DifferenceClosure;
}

// A divisibility fact: divisor divides dividend.
struct Divisibility {
  Expr dividend;
  Expr divisor;
};

// Symbol ranges, divisibility facts and assumed conditions. A symbol with no range of its own
// ranges over default_range(). Every change bumps version(), so callers can cache answers.
class Facts {
 public:
  // Symbols are dimensions ([1, inf]) unless said otherwise.
  explicit Facts(ValueRange default_range = ValueRange::at_least(Int(1)));

  const ValueRange& default_range() const { return default_range_; }
  ValueRange range_of(std::string_view symbol) const;
  // Replaces the symbol's range.
  void set_range(const std::string& symbol, const ValueRange& r);
  // Intersects the symbol's range with r.
  void refine_range(const std::string& symbol, const ValueRange& r);
  const std::map<std::string, ValueRange, std::less<>>& ranges() const { return ranges_; }

  // Records that divisor divides dividend.
  void add_divisibility(const Expr& dividend, const Expr& divisor);
  const std::vector<Divisibility>& divisibility() const { return divisibility_; }
  // Indices into divisibility() of the facts whose dividend or divisor mentions the symbol.
  const std::vector<size_t>& divisibility_mentioning(std::string_view symbol) const;
  // The largest known constant c with c | symbol (1 when none), from divisibility facts on the
  // bare symbol.
  Int known_divisor(std::string_view symbol) const;
  // The congruence the symbol is known to satisfy (modulus 1 when none), from divisibility facts
  // on the bare symbol and assumed residues `symbol % c == r`, combined by the Chinese remainder
  // theorem: `a % 4 == 1` and `a % 3 == 1` give a == 1 (mod 12).
  ModularSet known_congruence(std::string_view symbol) const;

  // Assumes c holds. A conjunction is split; `p % q == 0` also records q | p; `x % c == r` for
  // a symbol x and constants c, r records the residue; a bound on a lone symbol (`x >= 5`,
  // `3 < x`, `x == 4`, and `x != 0` when 0 ends its range) also refines its range. Every
  // relation is kept for prove()'s linear reasoning (`!=` ones by case split).
  void assume(const Cond& c);
  const std::vector<Cond>& assumptions() const { return assumptions_; }
  // Indices into assumptions() of the relations that mention the symbol.
  const std::vector<size_t>& assumptions_mentioning(std::string_view symbol) const;

  // The symbol's range narrowed by the assumed linear relations over symbols (bounds propagated
  // to a fixpoint, rounded inward): with `3*y <= x` and x in [4, 20], y lies in [1, 6]. Within
  // range_of(symbol); range_of itself stays the recorded range.
  ValueRange implied_range(std::string_view symbol) const;

  // The assumed equalities as rewrites of one symbol: `p == h*w` gives p -> h*w, `a + b == 7`
  // gives b -> 7 - a (the later name is eliminated, as by PyTorch's replacements). Each value is
  // free of every rewritten symbol.
  const std::map<std::string, Expr>& substitutions() const { return substitutions_; }
  // e (or c) with the substitutions applied: equal to it wherever the facts hold.
  Expr substitute(const Expr& e) const;
  Cond substitute(const Cond& c) const;

  // The range of x - y (of x alone when y is empty) that the symbols' ranges and the difference
  // facts (`x - y <= c`, `x < y + c`, `x == y + c`, bounds on one symbol) imply, read from their
  // shortest-path closure: a lookup once the facts are in. exact: every integer of the range is a
  // value x - y takes under the facts connected to x and y, as no other fact (a sum, a product,
  // a division, a divisibility, a `!=`, a disjunction) constrains them; the general prover cannot
  // do better then. The whole line, not exact, when the closure cannot answer (the facts
  // contradict each other, or the closure is full). exact_pairwise: exact but for disequalities
  // on pairs whose difference had a narrow range when they were assumed (each is in
  // excluded_differences, read by its own pair, but a few of them can together rule out more:
  // a, b, c in [0, 2], pairwise distinct, a != 1 and b != 1 force c == 1).
  struct DifferenceRange {
    ValueRange range = ValueRange::all();
    bool exact = false;
    bool exact_pairwise = false;
  };
  DifferenceRange difference_range(std::string_view x, std::string_view y) const;
  // The values v for which `x - y != v` is assumed (`x != v` when y is empty): the assumed
  // disequalities between two symbols (or a symbol and a constant), indexed by their pair, so a
  // decision about x - y reads only the disequalities of x and y. Sorted, without repeats.
  const std::vector<Int>& excluded_differences(std::string_view x, std::string_view y) const;

  uint64_t version() const { return version_; }
  // Unique to this object among all Facts ever made in the process (a copy gets its own), so
  // that (identity(), version()) names one state of one set of facts: caches key on it.
  uint64_t identity() const { return identity_.value; }

 private:
  // Draws a fresh number on construction, copy and assignment alike.
  struct Identity {
    uint64_t value = next();
    Identity() = default;
    Identity(const Identity&) : value(next()) {}
    Identity& operator=(const Identity&) {
      value = next();
      return *this;
    }
    static uint64_t next();
  };

  // `sum(coefficient * symbol) + constant >= 0`, integer coefficients.
  struct LinearBound {
    std::vector<std::pair<std::string, Int>> terms;
    Int constant;
  };

  // An edge of the difference closure: x_to - x_from <= weight ("" is the constant 0). Range
  // edges are the ones a later, wider set_range takes back.
  struct Difference {
    std::string from, to;
    int64_t weight;
    bool range;
  };

  void exclude_endpoint(const Cond& c);
  // False when c is not captured whole as difference edges.
  bool add_linear(const Cond& c);
  // What keeps a component's difference ranges from being exact (bits): a fact the closure lacks,
  // or a disequality on a narrow pair (indexed, but a few such can combine).
  enum Inexactness : uint8_t { kExact = 0, kMissingFact = 1, kNarrowDisequality = 2 };
  // `x - y != v` (or `x != v`) indexed by its pair; kMissingFact when c is no such disequality,
  // kNarrowDisequality when its pair's range is narrow enough that disequalities could combine
  // (the general prover splits it then).
  Inexactness add_disequality(const Cond& c);
  // The bound as a difference edge; nullopt when it is not one (or its constant is too large).
  static std::optional<Difference> difference_of(const LinearBound& b);
  void add_range_edges(const std::string& symbol, const ValueRange& r);
  // Marks the symbols as connected by a fact (and the fact's inexactness as their component's).
  void link(const std::vector<std::string>& symbols, Inexactness inexact);
  size_t component(const std::string& symbol);
  size_t root(size_t i) const;
  uint8_t inexactness(std::string_view symbol) const;
  void add_substitution(const Cond& c);
  void requeue(std::string_view symbol) const;
  void requeue_fact(size_t index) const;
  void propagate() const;

  ValueRange default_range_;
  std::map<std::string, ValueRange, std::less<>> ranges_;
  std::vector<Divisibility> divisibility_;
  std::map<std::string, std::vector<size_t>, std::less<>> divisibility_by_symbol_;
  std::map<std::string, Int, std::less<>> symbol_divisors_;
  std::map<std::string, ModularSet, std::less<>> symbol_residues_;
  std::vector<Cond> assumptions_;
  std::map<std::string, std::vector<size_t>, std::less<>> by_symbol_;
  std::map<std::string, Expr> substitutions_;
  std::vector<LinearBound> linear_;
  std::map<std::string, std::vector<size_t>, std::less<>> linear_by_symbol_;
  // Bounds propagation, done lazily (range_of stays cheap): the bounds found so far, the facts
  // to revisit, and whether the facts were found contradictory (then nothing is implied).
  mutable std::map<std::string, ValueRange, std::less<>> implied_;
  mutable std::vector<size_t> queue_;
  mutable std::vector<bool> queued_;
  mutable bool contradiction_ = false;
  // Difference closure (difference_range): its edges in the order learned, the closure built
  // from them lazily (shared between copies until one of them adds to it), the symbols' union-find
  // components by the facts that link them, and which components hold a fact the closure lacks.
  std::vector<Difference> differences_;
  // excluded_differences: keyed by "x\ny" with x before y (the values then of x - y).
  std::unordered_map<std::string, std::vector<Int>> disequal_;
  mutable std::shared_ptr<detail::DifferenceClosure> closure_;
  std::map<std::string, size_t, std::less<>> component_of_;
  mutable std::vector<size_t> parent_;
  std::vector<uint8_t> inexact_;  // Inexactness bits, by component root
  bool contradicted_ = false;     // `False` was assumed
  uint64_t version_ = 0;
  Identity identity_;
};

}  // namespace symshape
