// GuardInt: the exact integer that C++ guards printed by symshape (print_cpp) compute with.
//
// Header-only and free of dependencies, so that generated guard code compiles on its own:
//
//   #include "symshape/guard_int.h"
//   bool guards_hold(int64_t x0, int64_t x1) {
//     symshape::GuardInt L_x_size_0_ = x0, L_x_size_1_ = x1;
//     return <the printed expression>;
//   }
//
// Values that fit int64 take a fast path with overflow checks; anything larger continues exactly
// in sign-magnitude base 2^32. `//` and `%` follow Python (floor division; the remainder has the
// divisor's sign); a division by zero throws std::domain_error. A power above the 64th is
// printed as pow(x, N), computed exactly by squaring.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace symshape {

class GuardInt {
 public:
  GuardInt() = default;
  GuardInt(int64_t v) : small_(v) {}  // NOLINT: integer literals mix freely
  GuardInt(int v) : small_(v) {}      // NOLINT
  // A decimal literal of any size, with an optional leading '-'.
  explicit GuardInt(std::string_view decimal) {
    bool negative = !decimal.empty() && decimal[0] == '-';
    if (negative) decimal.remove_prefix(1);
    if (decimal.empty()) throw std::invalid_argument("GuardInt: empty literal");
    GuardInt v;
    for (char c : decimal) {
      if (c < '0' || c > '9') throw std::invalid_argument("GuardInt: bad digit");
      v = v * GuardInt(10) + GuardInt(c - '0');
    }
    *this = negative ? -v : v;
  }

  bool is_small() const { return !big_; }  // the value fits int64
  std::string str() const {
    if (!big_) return std::to_string(small_);
    std::vector<uint32_t> mag = mag_;
    std::string digits;
    while (!mag.empty()) {
      uint32_t rem = div_small(mag, 1000000000u);
      for (int i = 0; i < 9; ++i) {
        digits += static_cast<char>('0' + rem % 10);
        rem /= 10;
        if (mag.empty() && rem == 0) break;
      }
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    if (negative_) digits += '-';
    std::reverse(digits.begin(), digits.end());
    return digits;
  }

  friend GuardInt operator-(const GuardInt& a) {
    if (!a.big_ && a.small_ != INT64_MIN) return GuardInt(-a.small_);
    GuardInt r = a.to_big();
    if (!r.mag_.empty()) r.negative_ = !r.negative_;
    return r.normalized();
  }
  friend GuardInt operator+(const GuardInt& a, const GuardInt& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_add_overflow(a.small_, b.small_, &r)) return GuardInt(r);
    return add(a.to_big(), b.to_big(), false);
  }
  friend GuardInt operator-(const GuardInt& a, const GuardInt& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_sub_overflow(a.small_, b.small_, &r)) return GuardInt(r);
    return add(a.to_big(), b.to_big(), true);
  }
  friend GuardInt operator*(const GuardInt& a, const GuardInt& b) {
    int64_t r;
    if (!a.big_ && !b.big_ && !__builtin_mul_overflow(a.small_, b.small_, &r)) return GuardInt(r);
    GuardInt x = a.to_big(), y = b.to_big();
    GuardInt out;
    out.big_ = true;
    out.mag_.assign(x.mag_.size() + y.mag_.size(), 0);
    for (size_t i = 0; i < x.mag_.size(); ++i) {
      uint64_t carry = 0;
      for (size_t j = 0; j < y.mag_.size(); ++j) {
        uint64_t t = uint64_t{x.mag_[i]} * y.mag_[j] + out.mag_[i + j] + carry;
        out.mag_[i + j] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
      out.mag_[i + y.mag_.size()] = static_cast<uint32_t>(carry);
    }
    out.negative_ = x.negative_ != y.negative_;
    return out.normalized();
  }
  // Python's a // b.
  friend GuardInt floordiv(const GuardInt& a, const GuardInt& b) {
    GuardInt q, r;
    divmod(a, b, q, r);
    return q;
  }
  // Python's a % b.
  friend GuardInt mod(const GuardInt& a, const GuardInt& b) {
    GuardInt q, r;
    divmod(a, b, q, r);
    return r;
  }
  // a**n, exactly (by squaring).
  friend GuardInt pow(GuardInt a, uint64_t n) {
    GuardInt r(1);
    for (; n != 0; n >>= 1) {
      if (n & 1) r = r * a;
      if (n > 1) a = a * a;
    }
    return r;
  }
  friend GuardInt max(const GuardInt& a, const GuardInt& b) { return a < b ? b : a; }
  friend GuardInt min(const GuardInt& a, const GuardInt& b) { return b < a ? b : a; }

  friend bool operator==(const GuardInt& a, const GuardInt& b) { return compare(a, b) == 0; }
  friend bool operator!=(const GuardInt& a, const GuardInt& b) { return compare(a, b) != 0; }
  friend bool operator<(const GuardInt& a, const GuardInt& b) { return compare(a, b) < 0; }
  friend bool operator<=(const GuardInt& a, const GuardInt& b) { return compare(a, b) <= 0; }
  friend bool operator>(const GuardInt& a, const GuardInt& b) { return compare(a, b) > 0; }
  friend bool operator>=(const GuardInt& a, const GuardInt& b) { return compare(a, b) >= 0; }

 private:
  // The big form of any value (sign and magnitude), whatever its size.
  GuardInt to_big() const {
    if (big_) return *this;
    GuardInt r;
    r.big_ = true;
    r.negative_ = small_ < 0;
    uint64_t m = small_ < 0 ? 0 - static_cast<uint64_t>(small_) : static_cast<uint64_t>(small_);
    while (m != 0) {
      r.mag_.push_back(static_cast<uint32_t>(m));
      m >>= 32;
    }
    return r;
  }
  // Back to the small form when the value fits int64.
  GuardInt normalized() {
    while (!mag_.empty() && mag_.back() == 0) mag_.pop_back();
    if (mag_.empty()) return GuardInt(0);
    if (mag_.size() <= 2) {
      uint64_t m = mag_[0] | (mag_.size() > 1 ? uint64_t{mag_[1]} << 32 : 0);
      if (!negative_ && m <= uint64_t{INT64_MAX}) return GuardInt(static_cast<int64_t>(m));
      if (negative_ && m <= uint64_t{INT64_MAX} + 1) return GuardInt(static_cast<int64_t>(0 - m));
    }
    return *this;
  }
  static int compare_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (size_t i = a.size(); i-- > 0;) {
      if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
  }
  static int compare(const GuardInt& a, const GuardInt& b) {
    if (!a.big_ && !b.big_) return a.small_ < b.small_ ? -1 : a.small_ > b.small_ ? 1 : 0;
    GuardInt x = a.to_big(), y = b.to_big();
    if (x.negative_ != y.negative_) return x.negative_ ? -1 : 1;
    int c = compare_mag(x.mag_, y.mag_);
    return x.negative_ ? -c : c;
  }
  static std::vector<uint32_t> add_mag(const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b) {
    std::vector<uint32_t> r(std::max(a.size(), b.size()) + 1, 0);
    uint64_t carry = 0;
    for (size_t i = 0; i + 1 < r.size(); ++i) {
      uint64_t t = carry + (i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
      r[i] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    r.back() = static_cast<uint32_t>(carry);
    return r;
  }
  // a - b for |a| >= |b|.
  static std::vector<uint32_t> sub_mag(const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b) {
    std::vector<uint32_t> r(a.size(), 0);
    int64_t borrow = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      int64_t t = int64_t{a[i]} - (i < b.size() ? b[i] : 0) - borrow;
      borrow = t < 0;
      r[i] = static_cast<uint32_t>(t + (borrow << 32));
    }
    return r;
  }
  static GuardInt add(const GuardInt& x, const GuardInt& y, bool subtract) {
    bool y_negative = subtract ? !y.negative_ : y.negative_;
    GuardInt r;
    r.big_ = true;
    if (x.negative_ == y_negative) {
      r.mag_ = add_mag(x.mag_, y.mag_);
      r.negative_ = x.negative_;
    } else if (compare_mag(x.mag_, y.mag_) >= 0) {
      r.mag_ = sub_mag(x.mag_, y.mag_);
      r.negative_ = x.negative_;
    } else {
      r.mag_ = sub_mag(y.mag_, x.mag_);
      r.negative_ = y_negative;
    }
    return r.normalized();
  }
  // mag /= d, returning the remainder.
  static uint32_t div_small(std::vector<uint32_t>& mag, uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = mag.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | mag[i];
      mag[i] = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    while (!mag.empty() && mag.back() == 0) mag.pop_back();
    return static_cast<uint32_t>(rem);
  }
  // Python's divmod: q = a // b, r = a % b.
  static void divmod(const GuardInt& a, const GuardInt& b, GuardInt& q, GuardInt& r) {
    if (!b.big_ && b.small_ == 0) throw std::domain_error("integer division by zero");
    if (!a.big_ && !b.big_ && !(a.small_ == INT64_MIN && b.small_ == -1)) {
      int64_t qq = a.small_ / b.small_, rr = a.small_ % b.small_;
      if (rr != 0 && ((rr < 0) != (b.small_ < 0))) {
        qq -= 1;
        rr += b.small_;
      }
      q = GuardInt(qq);
      r = GuardInt(rr);
      return;
    }
    GuardInt x = a.to_big(), y = b.to_big();
    // Truncated quotient of the magnitudes, one bit at a time.
    std::vector<uint32_t> quot(x.mag_.size(), 0), rem;
    for (size_t bit = x.mag_.size() * 32; bit-- > 0;) {
      // rem = rem * 2 + the next bit of |x|
      uint32_t carry = (x.mag_[bit / 32] >> (bit % 32)) & 1u;
      for (uint32_t& limb : rem) {
        uint32_t next = limb >> 31;
        limb = (limb << 1) | carry;
        carry = next;
      }
      if (carry) rem.push_back(carry);
      if (compare_mag(rem, y.mag_) >= 0) {
        rem = sub_mag(rem, y.mag_);
        while (!rem.empty() && rem.back() == 0) rem.pop_back();
        quot[bit / 32] |= 1u << (bit % 32);
      }
    }
    GuardInt tq, tr;
    tq.big_ = tr.big_ = true;
    tq.mag_ = quot;
    tq.negative_ = x.negative_ != y.negative_;
    tr.mag_ = rem;
    tr.negative_ = x.negative_;
    tq = tq.normalized();
    tr = tr.normalized();
    if (tr != GuardInt(0) && (tr < GuardInt(0)) != (b < GuardInt(0))) {
      tq = tq - GuardInt(1);
      tr = tr + b;
    }
    q = tq;
    r = tr;
  }

  int64_t small_ = 0;
  bool big_ = false;  // the value lives in negative_ and mag_
  bool negative_ = false;
  std::vector<uint32_t> mag_;  // little-endian base 2^32, no leading zeros
};

}  // namespace symshape
