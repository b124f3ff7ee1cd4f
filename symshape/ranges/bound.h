// Internal: the range analysis with its optional parts chosen. Not part of the public API.
#pragma once

#include <memory>

#include "symshape/facts.h"
#include "symshape/ranges.h"

namespace symshape::detail {

struct BoundOptions {
  // Symbols range over Facts::implied_range (narrowed by the linear facts), not range_of.
  bool implied_ranges = true;
  // The assumed equalities are rewritten in, and the tighter range kept.
  bool substitutions = true;
  // Sums that meet a symbol under a division are bounded by cases on its remainder.
  bool remainder_splits = true;
  // The range is also sought over the assumed relations connected to e, with every other
  // variable projected out (linear_range): b - a in [2, 5] under a + 2 <= b <= a + 5. Costly,
  // so only the public bound() asks for it, and only where an assumption mentions e's symbols.
  bool linear_facts = false;
};

// bound() with the given parts. prove()'s linear tier bounds its atoms with all three off: it
// reasons over the linear facts itself, and more (redundant) bounds only make its elimination
// grow.
ValueRange bound_with(const Expr& e, const Facts& facts, const BoundOptions& options);

// The range of e as the linear tier of prove() sees it: the assumed relations connected to e's
// symbols (and the definitions of its max, min, // and % atoms) as linear constraints, every
// variable but e's value eliminated. Empty when the facts were found to contradict each other;
// all integers when nothing is found. In prove.cc.
ValueRange linear_range(const Expr& e, const Facts& facts);

// bound_with(e, facts, {}) and modular_set(e, facts) from one analysis of e (and at most one of
// e with the assumed equalities rewritten in), for prove()'s range tier, which asks for both.
struct RangeAndModular {
  ValueRange range;
  ModularSet modular;
};
RangeAndModular range_and_modular_set(const Expr& e, const Facts& facts);

// The analyses of the sub-terms met by range_and_modular_set under one set of facts, so that a
// sub-term met again (the rules ask about a sum, then about its terms, or the sum with a term
// changed) is not walked again. Holds only what a fresh analysis computes; valid while the facts
// stay as they were. Owned by the caller (the Simplifier).
class AnalysisMemo {
 public:
  AnalysisMemo();
  ~AnalysisMemo();
  AnalysisMemo(const AnalysisMemo&) = delete;
  AnalysisMemo& operator=(const AnalysisMemo&) = delete;
  size_t size() const;
  void clear();
  struct Table;
  Table& table() { return *table_; }

 private:
  std::unique_ptr<Table> table_;
};
RangeAndModular range_and_modular_set(const Expr& e, const Facts& facts, AnalysisMemo& memo);

}  // namespace symshape::detail
