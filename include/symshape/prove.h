// Three-valued decisions: is a condition true, false, or not decidable from the facts?
#pragma once

#include <string_view>

#include "symshape/expr.h"
#include "symshape/facts.h"

namespace symshape {

enum class Truth { False, True, Unknown };
std::string_view to_string(Truth t);
Truth negate(Truth t);

// True when c holds at every point satisfying facts, False when it holds at none, otherwise
// Unknown. Never True or False unless it is so. Uses ranges and modular sets first, then linear
// reasoning over the assumed relations (treating non-linear sub-terms such as x//y as atoms, with
// the bounds that tie them to their arguments).
Truth prove(const Cond& c, const Facts& facts);

}  // namespace symshape
