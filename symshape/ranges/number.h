// Internal: an exact rational that keeps int64 integers inline and computes on them without CLN,
// falling back to CLN on overflow or for fractions. Range analysis is on the hot path of every
// decision, and CLN's out-of-line calls cost tens of nanoseconds each. Not part of the API.
#pragma once

#include <cln/rational.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "symshape/expr.h"

namespace symshape::detail {

using Rat = cln::cl_RA;

class Num {
 public:
  Num() = default;               // 0
  Num(int64_t v) : small_(v) {}  // NOLINT: implicit, so literals read naturally
  // An int64 integer is stored inline. A CLN fixnum (an integer held in the word itself, no
  // wider than 62 bits) is read without a call.
  explicit Num(const Rat& v) {
    if (cln::cl_tag(v.word) == cl_FN_tag) {
      small_ = static_cast<int64_t>(static_cast<cln::cl_sint>(v.word) >> cl_value_shift);
      return;
    }
    init(v);
  }
  static Num of(const Int& v) { return Num(Rat(v)); }

  bool is_small() const { return !big_; }         // an int64 integer, held inline
  int64_t small_value() const { return small_; }  // requires is_small()
  bool is_integer() const { return !big_ || cln::denominator(*big_) == 1; }
  bool is_zero() const { return !big_ && small_ == 0; }  // 0 is always inline
  bool is_one() const { return !big_ && small_ == 1; }
  int sign() const;
  Rat rat() const;
  Int to_int() const;  // requires is_integer()

  Num floor() const;  // the largest integer <= this
  Num ceil() const;   // the smallest integer >= this

  // The int64 paths inline (the analysis does little else), the rest out of line.
  friend Num operator+(const Num& a, const Num& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_add_overflow(a.small_, b.small_, &r)) return Num(r);
    return add_slow(a, b);
  }
  friend Num operator-(const Num& a, const Num& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_sub_overflow(a.small_, b.small_, &r)) return Num(r);
    return subtract_slow(a, b);
  }
  friend Num operator*(const Num& a, const Num& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_mul_overflow(a.small_, b.small_, &r)) return Num(r);
    return multiply_slow(a, b);
  }
  friend Num operator-(const Num& a);
  friend int compare(const Num& a, const Num& b) {
    if (!a.big_ && !b.big_) return (a.small_ > b.small_) - (a.small_ < b.small_);
    return compare_slow(a, b);
  }
  friend bool operator==(const Num& a, const Num& b) {
    // A big value is never an int64 integer, so inline and big values always differ.
    if (!a.big_ && !b.big_) return a.small_ == b.small_;
    if (!a.big_ || !b.big_) return false;
    return equal_slow(a, b);
  }

 private:
  void init(const Rat& v);
  static Num add_slow(const Num& a, const Num& b);
  static Num subtract_slow(const Num& a, const Num& b);
  static Num multiply_slow(const Num& a, const Num& b);
  static int compare_slow(const Num& a, const Num& b);
  static bool equal_slow(const Num& a, const Num& b);

  int64_t small_ = 0;
  std::optional<Rat> big_;  // set when the value is not an int64 integer
};

inline bool operator!=(const Num& a, const Num& b) { return !(a == b); }
inline bool operator<(const Num& a, const Num& b) { return compare(a, b) < 0; }
inline bool operator<=(const Num& a, const Num& b) { return compare(a, b) <= 0; }
inline bool operator>(const Num& a, const Num& b) { return compare(a, b) > 0; }
inline bool operator>=(const Num& a, const Num& b) { return compare(a, b) >= 0; }
inline const Num& min(const Num& a, const Num& b) { return b < a ? b : a; }
inline const Num& max(const Num& a, const Num& b) { return a < b ? b : a; }

// Integer operations (arguments are integers; the divisor is nonzero), with Python semantics.
// The int64 paths inline.
Num floordiv_slow(const Num& a, const Num& b);
Num mod_slow(const Num& a, const Num& b);
inline Num floordiv(const Num& a, const Num& b) {
  if (a.is_small() && b.is_small() &&
      !(a.small_value() == std::numeric_limits<int64_t>::min() && b.small_value() == -1)) {
    int64_t q = a.small_value() / b.small_value();
    if (a.small_value() % b.small_value() != 0 && ((a.small_value() < 0) != (b.small_value() < 0)))
      --q;
    return Num(q);
  }
  return floordiv_slow(a, b);
}
inline Num mod(const Num& a, const Num& b) {
  if (a.is_small() && b.is_small()) {
    if (b.small_value() == -1) return Num(0);
    int64_t r = a.small_value() % b.small_value();
    if (r != 0 && ((r < 0) != (b.small_value() < 0))) r += b.small_value();
    return Num(r);
  }
  return mod_slow(a, b);
}
Num gcd(const Num& a, const Num& b);  // >= 0; gcd(0, 0) == 0
Num abs(const Num& a);
// Rational operations.
Num reciprocal(const Num& a);  // a != 0
Num power(const Num& a, unsigned long n);

}  // namespace symshape::detail
