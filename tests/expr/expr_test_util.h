// Helpers shared by the tests of symshape/expr.h in tests/expr/.
#pragma once

#include <string_view>

#include "symshape/expr.h"

namespace symshape::expr_test {

// The symbol `name`.
inline Expr sym(std::string_view name) { return Expr::symbol(name); }

}  // namespace symshape::expr_test
