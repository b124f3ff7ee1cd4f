// Num: int64 fast paths with overflow checks, CLN for everything else.
#include <cln/integer.h>

#include <limits>
#include <numeric>

#include "symshape/ranges/number.h"

namespace symshape::detail {

namespace {
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
}  // namespace

void Num::init(const Rat& v) {
  if (cln::denominator(v) == 1) {
    const Int& i = cln::the<Int>(v);
    if (cln::integer_length(i) < 64) {
      small_ = cln::cl_I_to_Q(i);
      return;
    }
  }
  big_ = v;
}

int Num::sign() const {
  if (!big_) return (small_ > 0) - (small_ < 0);
  return cln::plusp(*big_) ? 1 : cln::minusp(*big_) ? -1 : 0;
}

Rat Num::rat() const { return big_ ? *big_ : Rat(Int(static_cast<long long>(small_))); }

Int Num::to_int() const {
  return big_ ? cln::the<Int>(*big_) : Int(static_cast<long long>(small_));
}

Num Num::floor() const { return big_ ? Num(Rat(cln::floor1(*big_))) : *this; }

Num Num::ceil() const { return big_ ? Num(Rat(cln::ceiling1(*big_))) : *this; }

Num Num::add_slow(const Num& a, const Num& b) { return Num(a.rat() + b.rat()); }

Num Num::subtract_slow(const Num& a, const Num& b) { return Num(a.rat() - b.rat()); }

Num Num::multiply_slow(const Num& a, const Num& b) { return Num(a.rat() * b.rat()); }

Num operator-(const Num& a) {
  if (!a.big_ && a.small_ != kMin) return Num(-a.small_);
  return Num(-a.rat());
}

int Num::compare_slow(const Num& a, const Num& b) { return cln::compare(a.rat(), b.rat()); }

bool Num::equal_slow(const Num& a, const Num& b) { return *a.big_ == *b.big_; }

Num floordiv_slow(const Num& a, const Num& b) {
  return Num(Rat(cln::floor1(a.to_int(), b.to_int())));
}

Num mod_slow(const Num& a, const Num& b) { return Num(Rat(cln::mod(a.to_int(), b.to_int()))); }

Num gcd(const Num& a, const Num& b) {
  if (a.is_small() && b.is_small() && a.small_value() != kMin && b.small_value() != kMin) {
    return Num(std::gcd(a.small_value(), b.small_value()));
  }
  return Num(Rat(cln::gcd(a.to_int(), b.to_int())));
}

Num abs(const Num& a) { return a.sign() < 0 ? -a : a; }

Num reciprocal(const Num& a) {
  if (a.is_small() && (a.small_value() == 1 || a.small_value() == -1)) return a;
  return Num(cln::recip(a.rat()));
}

Num power(const Num& a, unsigned long n) {
  if (n == 0) return Num(1);
  if (a.is_small()) {
    int64_t v = a.small_value();
    if (v == 0 || v == 1) return a;
    if (v == -1) return Num(n % 2 == 0 ? 1 : -1);
    // |v| >= 2 overflows within 63 steps, so the loop is short.
    int64_t r = 1;
    bool overflow = false;
    for (unsigned long i = 0; i < n && !overflow; ++i) overflow = __builtin_mul_overflow(r, v, &r);
    if (!overflow) return Num(r);
  }
  return Num(cln::expt(a.rat(), Int(n)));
}

}  // namespace symshape::detail
