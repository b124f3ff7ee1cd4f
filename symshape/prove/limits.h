// Internal: the prover's work limits, and whether the last proof on this thread hit the one
// that leaves facts out, so that a caller (the CLI) can say so instead of a bare "unknown".
#pragma once

#include <cstddef>

namespace symshape::detail {

// At most this many assumptions, the ones connected to the goal first (breadth-first from its
// symbols), take part in one linear proof. Leaving one out is sound (the answer can only become
// Unknown), and a faster structure is the performance issue's.
inline constexpr size_t kMaxProveAssumptions = 64;

// Clears, and reads, this thread's record that a proof since the reset left connected
// assumptions out under kMaxProveAssumptions.
void reset_prove_limit();
bool prove_limit_hit();

// Set while a simplify() runs: prove() then answers from the facts alone, without simplifying
// the goal first (simplify() asks prove() about sub-terms, and would recurse).
bool& inside_simplify();

}  // namespace symshape::detail
