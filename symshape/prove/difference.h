// The difference constraints among the facts (`x - y <= c`, and bounds `x <= c`, `-x <= c`),
// kept closed under shortest paths so that the tightest bound they imply on any `x - y` is one
// lookup away. Internal to Facts, prove() and the ShapeEnv.
#pragma once

#include <cln/rational.h>
#include <ginac/ginac.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symshape/prove.h"

namespace symshape::detail {

// e as sum(coefficient * symbol) + constant with rational coefficients (a symbol may repeat only
// if e is not expanded); nullopt when some term is not a constant multiple of a symbol.
struct LinearOverSymbols {
  std::vector<std::pair<std::string, cln::cl_RA>> terms;
  cln::cl_RA constant;
};
std::optional<LinearOverSymbols> linear_over_symbols(const GiNaC::ex& e);

// e as a symbol plus an integer constant (`s3`, `s3 + 4`, `s3 - 1`), read off GiNaC's sum
// without building anything; nullopt for any other form.
struct SymbolOffset {
  GiNaC::ex symbol;
  std::string name;
  cln::cl_I offset;
};
std::optional<SymbolOffset> symbol_offset(const GiNaC::ex& e);

// lhs - rhs of a relation as linear_over_symbols reads its expansion (the same terms in the same
// order); a relation between two symbols plus constants (`s3 + 4 < s7`) is read without building
// the difference.
std::optional<LinearOverSymbols> linear_difference(const GiNaC::ex& lhs, const GiNaC::ex& rhs);

// The names of the terms of coefficient +1 and -1 in a sum of one or two (name, coefficient)
// terms, where unit(coefficient) is 1, -1, or 0 for any other: false when it is no difference
// (a coefficient other than +-1, or two of one sign).
template <class Terms, class Unit>
bool difference_sides(const Terms& terms, Unit unit, const std::string*& plus,
                      const std::string*& minus) {
  plus = minus = nullptr;
  if (terms.empty() || terms.size() > 2) return false;
  for (const auto& [name, a] : terms) {
    const int u = unit(a);
    if (u == 1 && !plus) {
      plus = &name;
    } else if (u == -1 && !minus) {
      minus = &name;
    } else {
      return false;
    }
  }
  return true;
}

// `plus - minus + k op 0` (either symbol may be missing, not both) decided by the facts'
// difference closure (Facts::difference_range) and the disequalities of the pair
// (Facts::excluded_differences): prove()'s first tier. An answer (Unknown included) when the
// closure decides the goal or holds every fact connected to it, as then no tier of prove() can
// do better; nullopt when the closure cannot tell. pairwise: an Unknown is final also when only
// disequalities on narrow pairs, each read by its own pair, keep the closure from being exact
// (Facts::DifferenceRange::exact_pairwise): what the ShapeEnv accepts, as every Unknown there is
// settled by a guard at the hints, which satisfy every fact.
std::optional<Truth> decide_difference(const Facts& facts, RelOp op, const std::string* plus,
                                       const std::string* minus, const Int& k,
                                       bool pairwise = false);

// Weights (and range ends) must lie within [-kDifferenceLimit, kDifferenceLimit]: a path's
// length then stays far inside int64 for every graph the closure agrees to hold.
inline constexpr int64_t kDifferenceLimit = int64_t{1} << 48;

// Nodes are symbols plus a zero node; an edge u -> v of weight w says x_v - x_u <= w, and dist(u,
// v) is the shortest such path: the tightest bound on x_v - x_u the edges imply. Over integers
// that bound is exact (difference systems are totally unimodular), and every integer between
// -dist(v, u) and dist(u, v) is a value x_v - x_u takes in some solution.
//
// Adding an edge updates every pair it shortens: the rows that reach its tail more cheaply than
// its head, times the columns its head reaches more cheaply than its tail. The matrix is dense,
// so the closure holds at most kMaxNodes nodes; past that it stops (full()), and its callers fall
// back to the general prover.
class DifferenceClosure {
 public:
  static constexpr int kZero = 0;
  static constexpr size_t kMaxNodes = 1024;

  DifferenceClosure();

  // The node of symbol, made (with bounds lo / hi, absent when unbounded) when new; -1 when the
  // closure is full.
  int node(const std::string& symbol, std::optional<int64_t> lo, std::optional<int64_t> hi);

  // Adds x_v - x_u <= w. Afterwards contradictory() tells whether the edges have no solution.
  void add(int u, int v, int64_t w);

  // The tightest bound on x_v - x_u (nullopt: unbounded above).
  std::optional<int64_t> upper(int u, int v) const {
    int64_t d = at(u, v);
    return d >= kInfinity ? std::nullopt : std::optional<int64_t>(d);
  }

  bool contradictory() const { return contradictory_; }
  bool full() const { return full_; }

  // How far a log of edges has been consumed (the owner's business).
  size_t consumed = 0;

 private:
  static constexpr int64_t kInfinity = int64_t{1} << 62;

  int64_t& at(int u, int v) { return dist_[static_cast<size_t>(u) * capacity_ + v]; }
  int64_t at(int u, int v) const { return dist_[static_cast<size_t>(u) * capacity_ + v]; }
  void grow();

  std::unordered_map<std::string, int> nodes_;
  std::vector<int64_t> dist_;  // capacity_ x capacity_, row-major
  size_t capacity_ = 0, size_ = 0;
  bool contradictory_ = false, full_ = false;
  // Scratch for add(): the rows and columns an edge shortens.
  std::vector<int> rows_, cols_;
};

}  // namespace symshape::detail
