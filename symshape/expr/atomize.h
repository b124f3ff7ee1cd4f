// Internal: polynomial division with function calls taken as atoms. GiNaC's divide, gcd and
// numer_denom see polynomials in symbols only: a call (x//y, max(...)) is swapped for a
// placeholder symbol around them, and back. Not part of the public API.
#pragma once

#include <ginac/ginac.h>

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "symshape/expr/functions.h"

namespace symshape::detail {

// Replaces the function calls in an expression's skeleton by placeholder symbols, and back.
// The placeholders are private GiNaC symbols (compared by identity, so no name can clash).
class Atomizer {
 public:
  GiNaC::ex atomize(const GiNaC::ex& e) {
    if (is_exactly<GiNaC::numeric>(e) || is_exactly<GiNaC::symbol>(e)) return e;
    if (is_exactly<GiNaC::function>(e)) {
      auto it = forward_.find(e);
      if (it != forward_.end()) return it->second;
      GiNaC::ex p = placeholder(forward_.size());
      forward_.emplace(e, p);
      back_.emplace(p, e);
      return p;
    }
    AtomizeMap m(*this);
    return e.map(m);
  }
  GiNaC::ex restore(const GiNaC::ex& e) const {
    if (back_.empty()) return e;
    return e.subs(back_, GiNaC::subs_options::no_pattern);
  }

 private:
  struct AtomizeMap : GiNaC::map_function {
    explicit AtomizeMap(Atomizer& a) : self(a) {}
    GiNaC::ex operator()(const GiNaC::ex& e) override { return self.atomize(e); }
    Atomizer& self;
  };

  static GiNaC::ex placeholder(size_t i) {
    static auto* pool = new std::vector<GiNaC::symbol>();
    while (pool->size() <= i) pool->emplace_back("__atom" + std::to_string(pool->size()));
    return (*pool)[i];
  }

  GiNaC::exmap forward_, back_;
};

// n / d when d divides n as polynomials over the rationals, calls taken as atoms; nullopt when it
// does not, or when n or d is no such polynomial (a symbolic denominator, a power with a
// symbolic exponent). GiNaC's divide is asked only about polynomials: on a rational function its
// long division may call itself on the same arguments until the stack runs out, and on a
// negative power of a divisor it answers 0.
inline std::optional<GiNaC::ex> divide_polynomials(const GiNaC::ex& n, const GiNaC::ex& d) {
  Atomizer at;
  const GiNaC::ex nn = at.atomize(n), dd = at.atomize(d);
  if (!nn.info(GiNaC::info_flags::rational_polynomial) ||
      !dd.info(GiNaC::info_flags::rational_polynomial)) {
    return std::nullopt;
  }
  GiNaC::ex q;
  try {
    if (!GiNaC::divide(nn, dd, q)) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;  // a zero divisor, or no symbol to divide by
  }
  return at.restore(q);
}

}  // namespace symshape::detail
