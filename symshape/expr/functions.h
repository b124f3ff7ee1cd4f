// Internal: the GiNaC functions behind the integer functions, and small GiNaC helpers shared by
// the engine's sources. Not part of the public API.
#pragma once

#include <ginac/ginac.h>

#include "symshape/expr.h"

namespace symshape {

DECLARE_FUNCTION_2P(ss_floordiv)
DECLARE_FUNCTION_2P(ss_mod)
DECLARE_FUNCTION_2P(ss_ceildiv)
DECLARE_FUNCTION_2P(ss_max)
DECLARE_FUNCTION_2P(ss_min)

namespace detail {

// e is a numeric integer.
bool is_int(const GiNaC::ex& e);
// The value of a numeric integer.
Int int_of(const GiNaC::ex& e);
GiNaC::ex ex_of(const Int& v);
// e is a polynomial (over symbols and function calls) whose coefficients are integers and whose
// powers are natural: integer-valued without any divisibility fact.
bool has_integer_coefficients(const GiNaC::ex& e);
// e is an exact quotient: a rational coefficient or a negative power somewhere in its top-level
// sum or product (its value is numer_denom()'s numerator // denominator).
bool has_denominator(const GiNaC::ex& e);

}  // namespace detail
}  // namespace symshape
