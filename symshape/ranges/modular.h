// Internal: the arithmetic of congruences (TVM's ModularSet), on Num. Each function gives a
// congruence that every result satisfies when its integer arguments satisfy theirs. Not part of
// the public API.
#pragma once

#include <optional>

#include "symshape/ranges.h"
#include "symshape/ranges/interval.h"
#include "symshape/ranges/number.h"

namespace symshape::detail {

// x == base (mod modulus). Modulus 0: x == base; modulus 1: nothing known. base is in
// [0, modulus) when modulus > 0.
struct Congruence {
  Num modulus{1};
  Num base{0};

  bool known() const { return !modulus.is_one(); }
  ModularSet modular_set() const { return ModularSet{modulus.to_int(), base.to_int()}; }
};

// The congruence x == base (mod |modulus|), with the base reduced.
Congruence make_congruence(const Num& modulus, const Num& base);

Congruence congruence_add(const Congruence& a, const Congruence& b);
Congruence congruence_negate(const Congruence& a);
Congruence congruence_multiply(const Congruence& a, const Congruence& b);
Congruence congruence_power(const Congruence& a, unsigned long n);
// x // d; something only when d is a nonzero constant that divides x's modulus.
Congruence congruence_floordiv(const Congruence& x, const Congruence& d);
// x % d: x - d*q is congruent to x modulo anything that divides every value of d.
Congruence congruence_mod(const Congruence& x, const Congruence& d);
// A congruence that holds for both (max and min take one of their arguments).
Congruence congruence_union(const Congruence& a, const Congruence& b);
// x / q for an x the congruence shows to be a multiple of q; nullopt when it does not.
std::optional<Congruence> congruence_divide_exact(const Congruence& x, const Num& q);

// An integer range's ends moved inward to the nearest values that satisfy s.
Range tighten(const Range& r, const Congruence& s);

}  // namespace symshape::detail
