// Congruence arithmetic: x == base (mod modulus) carried through + * ** // % max min.
#include "symshape/ranges/modular.h"

namespace symshape::detail {

Congruence make_congruence(const Num& modulus, const Num& base) {
  Num m = abs(modulus);
  if (m.is_zero()) return Congruence{m, base};
  return Congruence{m, mod(base, m)};
}

Congruence congruence_add(const Congruence& a, const Congruence& b) {
  if (!a.known() || !b.known()) return Congruence{};
  return make_congruence(gcd(a.modulus, b.modulus), a.base + b.base);
}

Congruence congruence_negate(const Congruence& a) {
  if (!a.known()) return a;
  return make_congruence(a.modulus, -a.base);
}

Congruence congruence_multiply(const Congruence& a, const Congruence& b) {
  if (!a.known() && !b.known()) return Congruence{};
  // (b1 + m1*i) * (b2 + m2*j) = b1*b2 + m1*b2*i + m2*b1*j + m1*m2*i*j
  Num g = gcd(a.modulus * b.modulus, gcd(a.modulus * b.base, b.modulus * a.base));
  return make_congruence(g, a.base * b.base);
}

Congruence congruence_power(const Congruence& a, unsigned long n) {
  if (!a.known() && n > 0) return Congruence{};
  Congruence result{Num(0), Num(1)};
  Congruence square = a;
  while (n > 0) {
    if (n & 1) result = congruence_multiply(result, square);
    n >>= 1;
    if (n > 0) square = congruence_multiply(square, square);
  }
  return result;
}

Congruence congruence_floordiv(const Congruence& x, const Congruence& d) {
  if (!d.modulus.is_zero() || d.base.is_zero() || !x.known()) return Congruence{};
  // x // c == (-x) // (-c): make the divisor positive.
  Num c = d.base;
  Congruence n = x;
  if (c.sign() < 0) {
    c = -c;
    n = congruence_negate(x);
  }
  // (b + m*k) // c == b // c + (m/c)*k when c divides m.
  if (n.modulus.is_zero()) return Congruence{Num(0), floordiv(n.base, c)};
  if (!mod(n.modulus, c).is_zero()) return Congruence{};
  return make_congruence(floordiv(n.modulus, c), floordiv(n.base, c));
}

Congruence congruence_mod(const Congruence& x, const Congruence& d) {
  if (!x.known() || !d.known()) return Congruence{};
  // Every value of d is a multiple of g = gcd(m, b), so x - d*q == x (mod g).
  Num g = gcd(d.modulus, d.base);
  if (g.is_zero()) return Congruence{};  // d == 0: no value at all
  return make_congruence(gcd(x.modulus, g), x.base);
}

Congruence congruence_union(const Congruence& a, const Congruence& b) {
  if (!a.known() || !b.known()) return Congruence{};
  return make_congruence(gcd(gcd(a.modulus, b.modulus), a.base - b.base), a.base);
}

std::optional<Congruence> congruence_divide_exact(const Congruence& x, const Num& q) {
  if (q.is_zero() || !mod(x.base, q).is_zero()) return std::nullopt;
  if (x.modulus.is_zero()) return Congruence{Num(0), floordiv(x.base, q)};
  if (!mod(x.modulus, q).is_zero()) return std::nullopt;
  return make_congruence(floordiv(x.modulus, q), floordiv(x.base, q));
}

Range tighten(const Range& r, const Congruence& s) {
  if (!s.known() || r.is_empty()) return r;
  if (s.modulus.is_zero()) return intersect(r, Range::point(s.base));
  Range out = r;
  if (out.lo) out.lo = *out.lo + mod(s.base - *out.lo, s.modulus);
  if (out.hi) out.hi = *out.hi - mod(*out.hi - s.base, s.modulus);
  return out.is_empty() ? Range::empty() : out;
}

}  // namespace symshape::detail
