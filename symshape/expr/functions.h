// Internal: the GiNaC functions behind the integer functions, and small GiNaC helpers shared by
// the engine's sources. Not part of the public API.
#pragma once

#include <ginac/ginac.h>

#include <vector>

#include "symshape/expr.h"

namespace symshape {

DECLARE_FUNCTION_2P(ss_floordiv)
DECLARE_FUNCTION_2P(ss_mod)
DECLARE_FUNCTION_2P(ss_ceildiv)
DECLARE_FUNCTION_2P(ss_max)
DECLARE_FUNCTION_2P(ss_min)

namespace detail {

// Whether e is exactly of the registered GiNaC class T (numeric, symbol, add, mul, power,
// function): its registered class information is T's, one virtual call and a pointer comparison.
// GiNaC::is_exactly_a compares type_info objects, which compares their mangled names with strcmp
// whenever the types differ, and GiNaC::is_a is a dynamic_cast: together they were a sixth of
// simplify()'s time. A subclass without a registration of its own (realsymbol) counts as its base.
template <class T>
inline bool is_exactly(const GiNaC::ex& e) {
  return &GiNaC::ex_to<GiNaC::basic>(e).get_class_info() == &T::get_class_info_static();
}

// The (rest, coefficient) pairs of a sum or a product, read in place. e.op(i) of a sum builds
// the product rest*coeff for each term with a coefficient (and of a product, the power
// rest^coeff), which a walk that only looks does not need. A term of a sum is rest*coeff (rest
// is not a sum, nor a product with a coefficient); a factor of a product is rest^coeff. The
// overall coefficient (0 for a sum, 1 for a product when absent) is not among the pairs.
struct PairsOf : GiNaC::expairseq {
  static const GiNaC::epvector& pairs(const GiNaC::ex& e) {
    return GiNaC::ex_to<GiNaC::expairseq>(e).*(&PairsOf::seq);
  }
  static const GiNaC::ex& overall(const GiNaC::ex& e) {
    return GiNaC::ex_to<GiNaC::expairseq>(e).*(&PairsOf::overall_coeff);
  }
};

// The call f(a, b) (serial: ss_floordiv_SERIAL::serial, ...) as its evaluation leaves it when no
// rule applies (held): for a caller that knows none does.
GiNaC::ex held_call(unsigned serial, const GiNaC::ex& a, const GiNaC::ex& b);
// The arguments of a nest of f calls (`max(max(a, b), c)`: a, b, c), left to right, appended to
// out; iterative, as a nest can be deep. e itself when it is no call of f.
void flatten_calls(const GiNaC::ex& e, Fn f, std::vector<GiNaC::ex>& out);
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
