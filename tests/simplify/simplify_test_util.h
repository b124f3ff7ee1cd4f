// Helpers shared by the tests of symshape/simplify.h in tests/simplify/.
#pragma once

#include <string>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/simplify.h"

namespace symshape::simplify_test {

inline const Expr x = Expr::symbol("x"), y = Expr::symbol("y"), d = Expr::symbol("d");

// Facts under which every symbol ranges over all integers.
inline Facts unconstrained() { return Facts(ValueRange::all()); }

// simplify(e, f), printed.
inline std::string simp(const Expr& e, const Facts& f = Facts()) { return simplify(e, f).str(); }
inline std::string simp(const Cond& c, const Facts& f = Facts()) { return simplify(c, f).str(); }

}  // namespace symshape::simplify_test
