// Simplification of integer and boolean expressions under facts.
#pragma once

#include <memory>

#include "symshape/expr.h"
#include "symshape/facts.h"

namespace symshape {

namespace detail {
class Simplifier;
}

// An expression equal to e at every point satisfying facts, in a simpler form: constants folded,
// nested floor divisions merged, multiples pulled out of // and %, common factors cancelled,
// exact quotients divided out, max / min with a provably dominant side removed, ceildiv by a
// positive constant put in floor form, and any sub-expression whose range is one value replaced
// by it. Deterministic.
Expr simplify(const Expr& e, const Facts& facts);

// c with its expressions simplified and every relation that facts decide replaced by true or
// false; and / or / not folded.
Cond simplify(const Cond& c, const Facts& facts);

// Many simplifications under the same facts (a batch of expressions, the sizes of a graph):
// what one call learns is kept for the next, so a sub-expression met again costs a lookup.
// Kept: each sub-expression's simplified form when computing it did not depend on the call it
// was computed in (see detail::Simplifier), and the ranges and decisions the rules asked for.
// Each result equals its expression wherever the facts hold, as simplify()'s does; it is
// simplify()'s result except, rarely, an equal form of the same or smaller size. What it keeps
// is bounded (past about 260,000 entries it starts afresh). facts must outlive it and must not
// change while it is used.
class Simplification {
 public:
  explicit Simplification(const Facts& facts);
  ~Simplification();
  Simplification(const Simplification&) = delete;
  Simplification& operator=(const Simplification&) = delete;

  Expr simplify(const Expr& e);
  Cond simplify(const Cond& c);

 private:
  std::unique_ptr<detail::Simplifier> s_;
};

}  // namespace symshape
