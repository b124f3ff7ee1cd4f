// ValueRange as a set of integers, and the public interval arithmetic (computed by interval.cc).
#include <cln/integer.h>

#include "symshape/ranges.h"
#include "symshape/ranges/interval.h"

namespace symshape {

namespace {

using End = std::optional<Int>;

// The lower of two lower ends (a missing lower end is -inf), and so on.
End min_lo(const End& a, const End& b) { return a && b ? End(cln::min(*a, *b)) : std::nullopt; }
End max_lo(const End& a, const End& b) { return !a ? b : !b ? a : End(cln::max(*a, *b)); }
End min_hi(const End& a, const End& b) { return !a ? b : !b ? a : End(cln::min(*a, *b)); }
End max_hi(const End& a, const End& b) { return a && b ? End(cln::max(*a, *b)) : std::nullopt; }

using detail::Range;

// Runs an operation of interval.cc on ValueRanges.
template <typename F>
ValueRange lift(const ValueRange& a, const ValueRange& b, F f) {
  return f(Range::of(a), Range::of(b)).value_range();
}

}  // namespace

// ---- ValueRange --------------------------------------------------------------------------------

bool ValueRange::is_empty() const { return lo_ && hi_ && *lo_ > *hi_; }

bool ValueRange::is_point() const { return lo_ && hi_ && *lo_ == *hi_; }

bool ValueRange::contains(const Int& v) const { return (!lo_ || *lo_ <= v) && (!hi_ || v <= *hi_); }

bool ValueRange::contains(const ValueRange& r) const {
  if (r.is_empty()) return true;
  if (is_empty()) return false;
  bool lo_ok = !lo_ || (r.lo_ && *lo_ <= *r.lo_);
  bool hi_ok = !hi_ || (r.hi_ && *r.hi_ <= *hi_);
  return lo_ok && hi_ok;
}

ValueRange ValueRange::intersect(const ValueRange& r) const {
  if (is_empty() || r.is_empty()) return empty();
  ValueRange out(max_lo(lo_, r.lo_), min_hi(hi_, r.hi_));
  return out.is_empty() ? empty() : out;
}

ValueRange ValueRange::hull(const ValueRange& r) const {
  if (is_empty()) return r.is_empty() ? empty() : r;
  if (r.is_empty()) return *this;
  return ValueRange(min_lo(lo_, r.lo_), max_hi(hi_, r.hi_));
}

std::string ValueRange::str() const {
  if (is_empty()) return "[]";
  return "[" + (lo_ ? to_string(*lo_) : std::string("-inf")) + ", " +
         (hi_ ? to_string(*hi_) : std::string("inf")) + "]";
}

bool ValueRange::operator==(const ValueRange& r) const {
  bool e = is_empty(), re = r.is_empty();
  if (e || re) return e == re;
  return lo_ == r.lo_ && hi_ == r.hi_;
}

// ---- arithmetic --------------------------------------------------------------------------------

ValueRange operator+(const ValueRange& a, const ValueRange& b) { return lift(a, b, detail::add); }

ValueRange operator-(const ValueRange& a) { return detail::negate(Range::of(a)).value_range(); }

ValueRange operator-(const ValueRange& a, const ValueRange& b) {
  return lift(a, b,
              [](const Range& x, const Range& y) { return detail::add(x, detail::negate(y)); });
}

ValueRange operator*(const ValueRange& a, const ValueRange& b) {
  return lift(a, b, detail::multiply);
}

ValueRange range_floordiv(const ValueRange& a, const ValueRange& b) {
  return lift(a, b, [](const Range& x, const Range& y) { return detail::floordiv(x, y); });
}

ValueRange range_mod(const ValueRange& a, const ValueRange& b) {
  return lift(a, b, [](const Range& x, const Range& y) { return detail::mod(x, y); });
}

ValueRange range_pow(const ValueRange& a, unsigned n) {
  return detail::power(Range::of(a), n).value_range();
}

ValueRange range_max(const ValueRange& a, const ValueRange& b) {
  return lift(a, b, detail::maximum);
}

ValueRange range_min(const ValueRange& a, const ValueRange& b) {
  return lift(a, b, detail::minimum);
}

}  // namespace symshape
