// Internal: the interval arithmetic behind ValueRange and bound(), on Num ends. Ranges are
// rational so that the parts of an exact quotient ((1/2)*x, x*y^-1) can be bounded; the integer
// functions take integer ranges (closed, integer ends). Not part of the public API.
#pragma once

#include <optional>

#include "symshape/ranges.h"
#include "symshape/ranges/number.h"

namespace symshape::detail {

// The rationals between lo and hi; a missing end is infinite. An open end is a bound that is
// approached but not attained: 1/y for an integer y >= 1 lies in (0, 1], so x/y >= 1 for x >= 1.
struct Range {
  std::optional<Num> lo, hi;
  bool lo_open = false, hi_open = false;

  static Range all() { return {}; }
  static Range point(const Num& v) { return {v, v, false, false}; }
  static Range empty() { return {Num(1), Num(0), false, false}; }
  static Range of(const ValueRange& r);

  bool is_empty() const {
    if (!lo || !hi) return false;
    int c = compare(*lo, *hi);
    return c > 0 || (c == 0 && (lo_open || hi_open));
  }
  bool is_point() const { return lo && hi && !lo_open && !hi_open && *lo == *hi; }
  // The tightest ValueRange holding the integers of this range.
  ValueRange value_range() const;
};

// The integers in r, as a closed range with integer ends (rounding the ends inward).
Range integers(const Range& r);

Range add(const Range& a, const Range& b);
Range negate(const Range& a);
Range multiply(const Range& a, const Range& b);
Range scale(const Range& a, const Num& c);
Range power(const Range& a, unsigned long n);
// 1/x over the range; all rationals when the range may hold 0.
Range reciprocal(const Range& a);

// Integer ranges only. Division and modulo count only the nonzero divisors (empty when b holds
// none).
Range intersect(const Range& a, const Range& b);
Range hull(const Range& a, const Range& b);
Range floordiv(const Range& a, const Range& b);
Range mod(const Range& a, const Range& b);
Range maximum(const Range& a, const Range& b);
Range minimum(const Range& a, const Range& b);

}  // namespace symshape::detail
