// Internal: functionalization, shared by the functionalize pass and the passes that need a
// functional graph (autocast, decompose, complex-rewrite) and run it first.
#pragma once

#include "symshape/passes.h"

namespace symshape::passes {

// Rewrites every in-place op and every write through a view into out-of-place ops and scatters
// onto the base, as PyTorch's functionalization does: `slice(x, ...).fill_(v)` becomes
// `x1 = slice_scatter(x, fill(slice(x, ...), v), ...)` and later readers of x (and of its views)
// read x1 (views regenerated from it); `relu_(x)` becomes `relu(x)`. A graph input or constant
// that was written gets its final value copied back (`copy_`) just before the output, the only
// write left. A write functionalize cannot rewrite fails the pass naming the node and why.
// Counters go to ctx (`writes made functional`, `scatters`, `views regenerated`, `inputs
// written back`). Returns whether the graph changed.
bool functionalize_graph(PassContext& ctx);

// Whether the node is a write-back functionalize leaves: `copy_` into a graph input or constant,
// used by nothing.
bool is_write_back(const MutableGraph& g, NodeId id);

}  // namespace symshape::passes
