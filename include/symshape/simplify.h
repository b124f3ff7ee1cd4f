// Simplification of integer and boolean expressions under facts.
#pragma once

#include "symshape/expr.h"
#include "symshape/facts.h"

namespace symshape {

// An expression equal to e at every point satisfying facts, in a simpler form: constants folded,
// nested floor divisions merged, multiples pulled out of // and %, common factors cancelled,
// exact quotients divided out, max / min with a provably dominant side removed, ceildiv by a
// positive constant put in floor form, and any sub-expression whose range is one value replaced
// by it. Deterministic.
Expr simplify(const Expr& e, const Facts& facts);

// c with its expressions simplified and every relation that facts decide replaced by true or
// false; and / or / not folded.
Cond simplify(const Cond& c, const Facts& facts);

}  // namespace symshape
