// Interval arithmetic on Num ends: rational ranges with infinite and open ends, and the integer
// functions with Python semantics.
#include "symshape/ranges/interval.h"

namespace symshape::detail {

namespace {

using OptNum = std::optional<Num>;

// One end of a range: -inf, +inf, or a finite value that may be open (approached only).
struct End {
  int inf = 0;  // -1: -inf, +1: +inf, 0: the finite value v
  Num v;
  bool open = false;
};

End lo_end(const Range& r) { return r.lo ? End{0, *r.lo, r.lo_open} : End{-1, Num(), false}; }
End hi_end(const Range& r) { return r.hi ? End{0, *r.hi, r.hi_open} : End{+1, Num(), false}; }

int sign(const End& e) { return e.inf ? e.inf : e.v.sign(); }
bool is_zero(const End& e) { return e.inf == 0 && e.v.is_zero(); }

int compare(const End& a, const End& b) {
  if (a.inf != b.inf) return a.inf < b.inf ? -1 : 1;
  return a.inf ? 0 : compare(a.v, b.v);
}

// Of two candidate ends at the same value the attained one wins: the result is open only when
// both are.
End lower(const End& a, const End& b) {
  int c = compare(a, b);
  if (c != 0) return c < 0 ? a : b;
  return End{a.inf, a.v, a.open && b.open};
}

End upper(const End& a, const End& b) {
  int c = compare(a, b);
  if (c != 0) return c > 0 ? a : b;
  return End{a.inf, a.v, a.open && b.open};
}

// The product at a corner of two ranges. An infinite end times 0 is 0: the values are finite, so
// the factor that is 0 makes the product 0 (attained when that 0 is).
End times(const End& a, const End& b) {
  bool za = is_zero(a), zb = is_zero(b);
  if (za || zb) return End{0, Num(), !((za && !a.open) || (zb && !b.open))};
  if (a.inf || b.inf) return End{sign(a) * sign(b), Num(), false};
  return End{0, a.v * b.v, a.open || b.open};
}

End power_end(const End& e, unsigned long n) {
  if (e.inf) return End{(n % 2 == 0) ? 1 : e.inf, Num(), false};
  return End{0, power(e.v, n), e.open};
}

End negate_end(const End& e) { return End{-e.inf, -e.v, e.open}; }

Range from_ends(const End& lo, const End& hi) {
  // A lower end at +inf (or an upper end at -inf) holds no finite value.
  if (lo.inf > 0 || hi.inf < 0) return Range::empty();
  Range r;
  if (lo.inf == 0) r.lo = lo.v, r.lo_open = lo.open;
  if (hi.inf == 0) r.hi = hi.v, r.hi_open = hi.open;
  return r;
}

// 1/x at an end: 1/±inf is an open 0, and 1/(open 0) is an infinity of the given sign.
End reciprocal_end(const OptNum& x, bool open, int inf_sign) {
  if (!x) return End{0, Num(), true};
  if (x->is_zero()) return End{inf_sign, Num(), false};
  return End{0, reciprocal(*x), open};
}

// Ends of integer ranges; a missing lower end is -inf, a missing upper end +inf.
OptNum min_lo(const OptNum& a, const OptNum& b) { return a && b ? OptNum(min(*a, *b)) : OptNum(); }
OptNum max_lo(const OptNum& a, const OptNum& b) { return !a ? b : !b ? a : OptNum(max(*a, *b)); }
OptNum min_hi(const OptNum& a, const OptNum& b) { return !a ? b : !b ? a : OptNum(min(*a, *b)); }
OptNum max_hi(const OptNum& a, const OptNum& b) { return a && b ? OptNum(max(*a, *b)) : OptNum(); }

Range closed(OptNum lo, OptNum hi) { return Range{std::move(lo), std::move(hi), false, false}; }

Range positive_part(const Range& r) { return intersect(r, closed(Num(1), std::nullopt)); }
Range negative_part(const Range& r) { return intersect(r, closed(std::nullopt, Num(-1))); }

// a // b for a nonempty a and a divisor range with b.lo >= 1. For a fixed b the quotient grows
// with a; for a fixed a >= 0 it shrinks as b grows, and for a < 0 it grows toward -1.
Range floordiv_by_positive(const Range& a, const Range& b) {
  const Num& c = *b.lo;
  const OptNum& d = b.hi;
  OptNum lo, hi;
  if (a.lo) lo = a.lo->sign() >= 0 ? (d ? floordiv(*a.lo, *d) : Num(0)) : floordiv(*a.lo, c);
  if (a.hi) hi = a.hi->sign() >= 0 ? floordiv(*a.hi, c) : (d ? floordiv(*a.hi, *d) : Num(-1));
  return closed(std::move(lo), std::move(hi));
}

// a % b for a nonempty a and a divisor range with b.lo >= 1: always in [0, b - 1].
Range mod_by_positive(const Range& a, const Range& b) {
  const Num& c = *b.lo;
  if (b.is_point() && a.lo && a.hi) {
    // Within one period [k*c, k*c + c - 1] the remainder is a shifted copy of a; a range that
    // crosses a multiple of c holds both c - 1 and 0.
    Num k = floordiv(*a.lo, c);
    if (floordiv(*a.hi, c) == k) return closed(*a.lo - k * c, *a.hi - k * c);
    return closed(Num(0), c - 1);
  }
  OptNum top = b.hi ? OptNum(*b.hi - 1) : std::nullopt;
  if (a.lo && a.lo->sign() >= 0) {
    // 0 <= a: the remainder never exceeds a, and a < b leaves a unchanged.
    if (a.hi && *a.hi < c) return a;
    return closed(Num(0), min_hi(a.hi, top));
  }
  return closed(Num(0), std::move(top));
}

}  // namespace

// ---- Range -------------------------------------------------------------------------------------

Range Range::of(const ValueRange& r) {
  if (r.is_empty()) return empty();
  Range out;
  if (r.lo()) out.lo = Num::of(*r.lo());
  if (r.hi()) out.hi = Num::of(*r.hi());
  return out;
}

ValueRange Range::value_range() const {
  Range r = integers(*this);
  if (r.is_empty()) return ValueRange::empty();
  return ValueRange(r.lo ? std::optional<Int>(r.lo->to_int()) : std::nullopt,
                    r.hi ? std::optional<Int>(r.hi->to_int()) : std::nullopt);
}

Range integers(const Range& r) {
  if (r.is_empty()) return Range::empty();
  Range out;
  if (r.lo) out.lo = r.lo->is_integer() ? (r.lo_open ? *r.lo + 1 : *r.lo) : r.lo->ceil();
  if (r.hi) out.hi = r.hi->is_integer() ? (r.hi_open ? *r.hi - 1 : *r.hi) : r.hi->floor();
  return out.is_empty() ? Range::empty() : out;
}

// ---- rational arithmetic -----------------------------------------------------------------------

Range add(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  Range r;
  if (a.lo && b.lo) r.lo = *a.lo + *b.lo, r.lo_open = a.lo_open || b.lo_open;
  if (a.hi && b.hi) r.hi = *a.hi + *b.hi, r.hi_open = a.hi_open || b.hi_open;
  return r;
}

Range negate(const Range& a) {
  if (a.is_empty()) return Range::empty();
  Range r;
  if (a.hi) r.lo = -*a.hi, r.lo_open = a.hi_open;
  if (a.lo) r.hi = -*a.lo, r.hi_open = a.lo_open;
  return r;
}

Range multiply(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  // A product is monotone in each factor, so its extremes lie at the corners.
  const End al = lo_end(a), ah = hi_end(a), bl = lo_end(b), bh = hi_end(b);
  const End c[4] = {times(al, bl), times(al, bh), times(ah, bl), times(ah, bh)};
  End lo = c[0], hi = c[0];
  for (int i = 1; i < 4; ++i) {
    lo = lower(lo, c[i]);
    hi = upper(hi, c[i]);
  }
  return from_ends(lo, hi);
}

Range scale(const Range& a, const Num& c) {
  if (a.is_empty()) return Range::empty();
  int s = c.sign();
  if (s == 0) return Range::point(Num(0));
  if (c.is_one()) return a;
  Range r;
  const OptNum& lo = s > 0 ? a.lo : a.hi;
  const OptNum& hi = s > 0 ? a.hi : a.lo;
  if (lo) r.lo = *lo * c, r.lo_open = s > 0 ? a.lo_open : a.hi_open;
  if (hi) r.hi = *hi * c, r.hi_open = s > 0 ? a.hi_open : a.lo_open;
  return r;
}

Range power(const Range& a, unsigned long n) {
  if (a.is_empty()) return Range::empty();
  if (n == 0) return Range::point(Num(1));  // Python: 0 ** 0 == 1
  if (n == 1) return a;
  const End l = lo_end(a), h = hi_end(a);
  if (n % 2 == 1 || sign(l) >= 0) return from_ends(power_end(l, n), power_end(h, n));
  if (sign(h) <= 0) return from_ends(power_end(h, n), power_end(l, n));
  // Straddling 0: 0 is attained, the top is the larger of the two ends' powers.
  return from_ends(End{0, Num(), false}, upper(power_end(negate_end(l), n), power_end(h, n)));
}

Range reciprocal(const Range& a) {
  if (a.is_empty()) return Range::empty();
  bool positive = a.lo && (a.lo->sign() > 0 || (a.lo->is_zero() && a.lo_open));
  bool negative = a.hi && (a.hi->sign() < 0 || (a.hi->is_zero() && a.hi_open));
  if (!positive && !negative) return Range::all();
  // 1/x decreases on each side of 0, so the ends swap.
  return from_ends(reciprocal_end(a.hi, a.hi_open, -1), reciprocal_end(a.lo, a.lo_open, +1));
}

// ---- integer functions -------------------------------------------------------------------------

Range intersect(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  Range r = closed(max_lo(a.lo, b.lo), min_hi(a.hi, b.hi));
  return r.is_empty() ? Range::empty() : r;
}

Range hull(const Range& a, const Range& b) {
  if (a.is_empty()) return b.is_empty() ? Range::empty() : b;
  if (b.is_empty()) return a;
  return closed(min_lo(a.lo, b.lo), max_hi(a.hi, b.hi));
}

Range floordiv(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  if (b.lo && b.lo->sign() > 0) return floordiv_by_positive(a, b);
  // Only the nonzero divisors give values; each sign is monotone on its own.
  Range out = Range::empty();
  Range pos = positive_part(b), neg = negative_part(b);
  if (!pos.is_empty()) out = hull(out, floordiv_by_positive(a, pos));
  if (!neg.is_empty()) out = hull(out, floordiv_by_positive(negate(a), negate(neg)));
  return out;  // a // b == (-a) // (-b) above
}

Range mod(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  if (b.lo && b.lo->sign() > 0) return mod_by_positive(a, b);
  Range out = Range::empty();
  Range pos = positive_part(b), neg = negative_part(b);
  if (!pos.is_empty()) out = hull(out, mod_by_positive(a, pos));
  if (!neg.is_empty()) out = hull(out, negate(mod_by_positive(negate(a), negate(neg))));
  return out;  // a % b == -((-a) % (-b)) above
}

Range maximum(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  return closed(max_lo(a.lo, b.lo), max_hi(a.hi, b.hi));
}

Range minimum(const Range& a, const Range& b) {
  if (a.is_empty() || b.is_empty()) return Range::empty();
  return closed(min_lo(a.lo, b.lo), min_hi(a.hi, b.hi));
}

}  // namespace symshape::detail
