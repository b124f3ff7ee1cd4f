// Helpers shared by the range tests: short range constructors and Python's // and % on int64.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "symshape/expr.h"
#include "symshape/ranges.h"

namespace symshape::testing {

// The symbols of the random-expression tests, and a random leaf over them: a small constant
// (a third of the time) or one of the symbols.
inline const char* const kRandomSymbols[] = {"x", "y", "z"};

inline Expr random_leaf(std::mt19937& rng) {
  if (rng() % 3 == 0) return Expr(static_cast<long>(rng() % 11) - 5);
  return Expr::symbol(kRandomSymbols[rng() % 3]);
}

// An infinite end for R().
inline constexpr std::nullopt_t inf = std::nullopt;

inline ValueRange R(std::optional<int64_t> lo, std::optional<int64_t> hi) {
  return ValueRange(lo ? std::optional<Int>(Int(static_cast<long>(*lo))) : std::nullopt,
                    hi ? std::optional<Int>(Int(static_cast<long>(*hi))) : std::nullopt);
}

inline ValueRange P(int64_t v) { return R(v, v); }

// Python's a // b (floor) and a % b (the sign of b), for b != 0.
inline int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

inline int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace symshape::testing
