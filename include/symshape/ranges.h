// Value ranges: integer intervals with -inf / +inf ends, and the range analysis of an Expr.
#pragma once

#include <optional>
#include <string>

#include "symshape/expr.h"

namespace symshape {

class Facts;

// A set of integers [lo, hi]; a missing end is infinite. May be empty (lo > hi).
class ValueRange {
 public:
  ValueRange() = default;  // all integers
  static ValueRange all() { return {}; }
  static ValueRange point(const Int& v) { return ValueRange(v, v); }
  static ValueRange closed(const Int& lo, const Int& hi) { return ValueRange(lo, hi); }
  static ValueRange at_least(const Int& lo) { return ValueRange(lo, std::nullopt); }
  static ValueRange at_most(const Int& hi) { return ValueRange(std::nullopt, hi); }
  static ValueRange empty() { return ValueRange(Int(1), Int(0)); }
  ValueRange(std::optional<Int> lo, std::optional<Int> hi)
      : lo_(std::move(lo)), hi_(std::move(hi)) {}

  const std::optional<Int>& lo() const { return lo_; }  // nullopt: -inf
  const std::optional<Int>& hi() const { return hi_; }  // nullopt: +inf
  bool is_empty() const;
  bool is_point() const;
  bool is_all() const { return !lo_ && !hi_; }
  bool contains(const Int& v) const;
  bool contains(const ValueRange& r) const;  // r is a subset of this
  ValueRange intersect(const ValueRange& r) const;
  ValueRange hull(const ValueRange& r) const;  // the smallest range holding both
  // "[2, inf]", "[-inf, 5]", "[3, 3]"; "[]" when empty.
  std::string str() const;
  bool operator==(const ValueRange& r) const;

 private:
  std::optional<Int> lo_, hi_;
};

// Interval arithmetic, sound for integer values (the Python semantics of // and %).
ValueRange operator+(const ValueRange& a, const ValueRange& b);
ValueRange operator-(const ValueRange& a);
ValueRange operator-(const ValueRange& a, const ValueRange& b);
ValueRange operator*(const ValueRange& a, const ValueRange& b);
ValueRange range_floordiv(const ValueRange& a, const ValueRange& b);  // b containing 0: only the
ValueRange range_mod(const ValueRange& a, const ValueRange& b);       // nonzero divisors count
// range_floordiv, range_mod: a divisor range holding only 0 gives the empty range (no value is
// defined); bound() passes that on, so an expression that always divides by 0 has an empty bound.
ValueRange range_pow(const ValueRange& a, unsigned n);
ValueRange range_max(const ValueRange& a, const ValueRange& b);
ValueRange range_min(const ValueRange& a, const ValueRange& b);

// e takes only values congruent to `base` modulo `modulus` (modulus 0: e == base; modulus 1:
// nothing known). base is in [0, modulus) when modulus > 0.
struct ModularSet {
  Int modulus{1};
  Int base{0};
};

// A sound range for every value e takes when the symbols satisfy facts (ranges, divisibility).
// Tightened by modular sets: `(n*320 + 255) % 256` lies in [63, 255].
// Exact quotients ((1/2)*x + (1/2)*y, x*y^-1) are bounded as rationals, then rounded inward to
// the integers. Never throws; unknown node kinds and exponents above 256 give all integers.
ValueRange bound(const Expr& e, const Facts& facts);
// The congruence every value of e satisfies (modulus 1 when nothing is known).
ModularSet modular_set(const Expr& e, const Facts& facts);

}  // namespace symshape
