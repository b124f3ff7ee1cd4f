// Building and checking integer linear constraints in the tests of symshape/prove/linear.h.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "symshape/prove/linear.h"

namespace symshape::detail {

// sum(terms) + constant >= 0, and == 0.
inline LinearConstraint ge(std::vector<std::pair<int, int64_t>> terms, int64_t constant) {
  return {std::move(terms), constant, false};
}
inline LinearConstraint eq(std::vector<std::pair<int, int64_t>> terms, int64_t constant) {
  return {std::move(terms), constant, true};
}

// Whether every constraint holds at the point x (a value per variable).
inline bool holds_at(const std::vector<LinearConstraint>& cs, const int64_t* x) {
  for (const LinearConstraint& c : cs) {
    int64_t sum = c.constant;
    for (const auto& [v, a] : c.terms) sum += a * x[v];
    if (c.equality ? sum != 0 : sum < 0) return false;
  }
  return true;
}

}  // namespace symshape::detail
