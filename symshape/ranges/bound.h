// Internal: the range analysis with its optional parts chosen. Not part of the public API.
#pragma once

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
};

// bound() with the given parts. prove()'s linear tier bounds its atoms with all three off: it
// reasons over the linear facts itself, and more (redundant) bounds only make its elimination
// grow.
ValueRange bound_with(const Expr& e, const Facts& facts, const BoundOptions& options);

}  // namespace symshape::detail
