// Internal: refutes systems of integer linear constraints (Fourier–Motzkin elimination with
// integer tightening). prove() uses it to show that facts and a goal cannot hold together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace symshape::detail {

// Numbers (coefficients and constants) must lie within [-kLinearLimit, kLinearLimit]; refute()
// ignores a constraint that does not, which is sound but loses its power.
inline constexpr int64_t kLinearLimit = int64_t{1} << 62;

// sum(coefficient * x[variable]) + constant >= 0, or == 0 when `equality`. Variables are
// non-negative indices; a repeated variable's coefficients add up.
struct LinearConstraint {
  std::vector<std::pair<int, int64_t>> terms;
  int64_t constant = 0;
  bool equality = false;
};

struct LinearLimits {
  // Give up (answer "not refuted") when an elimination step leaves more constraints than this.
  size_t max_constraints = 500;
};

// True when the constraints have no solution in which every variable flagged in `integer` is an
// integer (the other variables, and any index beyond `integer`, range over the rationals). False
// means only "not shown": the method is sound but incomplete (it decides the rational relaxation,
// tightened by gcd rounding). Arithmetic that would overflow int64 drops the derived constraint,
// which is sound. When the answer is false because a solution was found, and `solution` is
// given, it receives that solution (a value per variable; 0 for one no constraint uses).
//
// `start`, when given, holds bounds that every solution of interest satisfies (propagated from
// facts known to hold, which need not be among the constraints): the search for a solution
// starts from them, and a refutation may use them. The first `settled` constraints must be
// among those `start` was propagated from (propagating them again would change nothing).
struct VariableBounds;
bool refute(const std::vector<LinearConstraint>& constraints, const std::vector<bool>& integer,
            const LinearLimits& limits = {}, std::vector<int64_t>* solution = nullptr,
            const VariableBounds* start = nullptr, size_t settled = 0);

// The bounds on each variable that the constraints imply by bounds propagation (integer
// variables rounded inward); nullopt when propagation finds them contradictory.
struct VariableBounds {
  std::vector<std::optional<int64_t>> lo, hi;  // by variable; nullopt: no bound
};
std::optional<VariableBounds> propagate_bounds(std::vector<LinearConstraint> constraints,
                                               const std::vector<bool>& integer);

}  // namespace symshape::detail

namespace symshape::detail {

// The bounds that constraints put on one integer variable (a missing end: none found).
struct ProjectedRange {
  std::optional<int64_t> lo, hi;
};

// The range of x[target] over the integer solutions of the constraints: every other variable
// is eliminated (Fourier–Motzkin, with refute()'s gcd tightening), and the constraints left on
// x[target] give its bounds, rounded inward. Sound but not always tight (rational relaxation).
// nullopt when the constraints were found to have no solution; no bounds when an elimination
// step grows beyond limits.max_constraints.
std::optional<ProjectedRange> project(std::vector<LinearConstraint> constraints,
                                      const std::vector<bool>& integer, int target,
                                      const LinearLimits& limits = {});

}  // namespace symshape::detail
