#include <algorithm>

#include "symshape/expr/functions.h"
#include "symshape/facts.h"

namespace symshape {

Facts::Facts(ValueRange default_range) : default_range_(std::move(default_range)) {}

ValueRange Facts::range_of(std::string_view symbol) const {
  auto it = ranges_.find(symbol);
  return it == ranges_.end() ? default_range_ : it->second;
}

void Facts::set_range(const std::string& symbol, const ValueRange& r) {
  ranges_[symbol] = r;
  ++version_;
}

void Facts::refine_range(const std::string& symbol, const ValueRange& r) {
  ValueRange next = range_of(symbol).intersect(r);
  auto it = ranges_.find(symbol);
  if (it != ranges_.end() && it->second == next) return;
  ranges_[symbol] = next;
  ++version_;
}

void Facts::add_divisibility(const Expr& dividend, const Expr& divisor) {
  size_t index = divisibility_.size();
  divisibility_.push_back({dividend, divisor});
  std::vector<std::string> symbols = dividend.free_symbols();
  for (std::string& s : divisor.free_symbols()) symbols.push_back(std::move(s));
  std::sort(symbols.begin(), symbols.end());
  symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
  for (const std::string& s : symbols) divisibility_by_symbol_[s].push_back(index);
  if (dividend.is_symbol() && divisor.is_constant()) {
    // Two constant divisors of one symbol combine into their lcm.
    Int d = cln::abs(*divisor.constant());
    if (d != 0) {
      auto [it, inserted] = symbol_divisors_.emplace(dividend.symbol_name(), d);
      if (!inserted) it->second = cln::lcm(it->second, d);
    }
  }
  ++version_;
}

const std::vector<size_t>& Facts::divisibility_mentioning(std::string_view symbol) const {
  static const std::vector<size_t> none;
  auto it = divisibility_by_symbol_.find(symbol);
  return it == divisibility_by_symbol_.end() ? none : it->second;
}

namespace {

// x == a.base (mod a.modulus) and x == b.base (mod b.modulus) together; nullopt when no x is
// both (the facts contradict each other).
std::optional<ModularSet> combine(const ModularSet& a, const ModularSet& b) {
  if (a.modulus == 1) return b;
  if (b.modulus == 1) return a;
  if (a.modulus == 0 || b.modulus == 0) {
    const ModularSet& point = a.modulus == 0 ? a : b;
    const ModularSet& other = a.modulus == 0 ? b : a;
    if (other.modulus != 0 && cln::mod(point.base - other.base, other.modulus) != 0) {
      return std::nullopt;
    }
    if (other.modulus == 0 && point.base != other.base) return std::nullopt;
    return point;
  }
  // a.base + a.modulus*t == b.base (mod b.modulus): solvable when g | (b.base - a.base).
  Int u, v;
  Int g = cln::xgcd(a.modulus, b.modulus, &u, &v);  // u*a.modulus + v*b.modulus == g
  Int diff = b.base - a.base;
  if (cln::mod(diff, g) != 0) return std::nullopt;
  Int n = cln::exquo(b.modulus, g);
  Int t = cln::mod(cln::exquo(diff, g) * u, n);
  Int l = a.modulus * n;
  return ModularSet{l, cln::mod(a.base + a.modulus * t, l)};
}

}  // namespace

Int Facts::known_divisor(std::string_view symbol) const {
  auto it = symbol_divisors_.find(symbol);
  return it == symbol_divisors_.end() ? Int(1) : it->second;
}

ModularSet Facts::known_congruence(std::string_view symbol) const {
  ModularSet m{known_divisor(symbol), Int(0)};
  if (m.modulus == 1) m = ModularSet{};
  auto it = symbol_residues_.find(symbol);
  if (it == symbol_residues_.end()) return m;
  auto both = combine(m, it->second);
  return both ? *both : m;  // contradictory facts: keep the divisors alone (sound)
}

namespace {

// The constant bound that `symbol op constant` (or its mirror) puts on a lone symbol.
std::optional<std::pair<std::string, ValueRange>> symbol_bound(const Cond& c) {
  Expr lhs = c.lhs(), rhs = c.rhs();
  RelOp op = c.op();
  if (lhs.is_constant() && rhs.is_symbol()) {
    std::swap(lhs, rhs);
    op = reverse(op);
  }
  if (!lhs.is_symbol() || !rhs.is_constant()) return std::nullopt;
  Int v = *rhs.constant();
  switch (op) {
    case RelOp::Eq: return std::make_pair(lhs.symbol_name(), ValueRange::point(v));
    case RelOp::Lt: return std::make_pair(lhs.symbol_name(), ValueRange::at_most(v - 1));
    case RelOp::Le: return std::make_pair(lhs.symbol_name(), ValueRange::at_most(v));
    case RelOp::Gt: return std::make_pair(lhs.symbol_name(), ValueRange::at_least(v + 1));
    case RelOp::Ge: return std::make_pair(lhs.symbol_name(), ValueRange::at_least(v));
    case RelOp::Ne: break;
  }
  return std::nullopt;
}

}  // namespace

// `x != k` on a lone symbol whose range ends at k: the range loses that end ([0, 5] -> [1, 5]).
void Facts::exclude_endpoint(const Cond& c) {
  if (c.op() != RelOp::Ne) return;
  Expr x = c.lhs(), k = c.rhs();
  if (x.is_constant()) std::swap(x, k);
  if (!x.is_symbol() || !k.is_constant()) return;
  const ValueRange r = range_of(x.symbol_name());
  const Int v = *k.constant();
  if (r.lo() && *r.lo() == v) refine_range(x.symbol_name(), ValueRange::at_least(v + 1));
  if (r.hi() && *r.hi() == v) refine_range(x.symbol_name(), ValueRange::at_most(v - 1));
}

void Facts::assume(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True: return;
    case Cond::Kind::And:
      for (const Cond& o : c.operands()) assume(o);
      return;
    case Cond::Kind::False:
    case Cond::Kind::Or: break;
    case Cond::Kind::Rel: {
      if (auto b = symbol_bound(c)) refine_range(b->first, b->second);
      exclude_endpoint(c);
      // `p % q == 0` (either way round) is a divisibility fact.
      const Expr& l = c.lhs();
      const Expr& r = c.rhs();
      if (c.op() == RelOp::Eq) {
        const Expr* m = r.is_constant() && r.constant() == Int(0)   ? &l
                        : l.is_constant() && l.constant() == Int(0) ? &r
                                                                    : nullptr;
        if (m && function_of(m->ex()) == Fn::Mod) {
          add_divisibility(Expr(m->ex().op(0)), Expr(m->ex().op(1)));
        }
        // `x % c == r` (either way round) for a symbol x and constants c != 0, r: x == r (mod c)
        // when r lies where x % c does ([0, c) for c > 0, (c, 0] for c < 0).
        const Expr* call = function_of(l.ex()) == Fn::Mod && r.is_constant()   ? &l
                           : function_of(r.ex()) == Fn::Mod && l.is_constant() ? &r
                                                                               : nullptr;
        const Expr* value = call == &l ? &r : &l;
        if (call) {
          Expr x(call->ex().op(0)), d(call->ex().op(1));
          if (x.is_symbol() && d.is_constant() && *d.constant() != 0) {
            Int c = *d.constant(), v = *value->constant();
            bool in_range = c > 0 ? (v >= 0 && v < c) : (v <= 0 && v > c);
            if (in_range && v != 0) {
              Int modulus = cln::abs(c);
              ModularSet fact{modulus, cln::mod(v, modulus)};
              auto [it, inserted] = symbol_residues_.emplace(x.symbol_name(), fact);
              if (!inserted) {
                if (auto both = combine(it->second, fact)) it->second = *both;
              }
            }
          }
        }
      }
      break;
    }
  }
  size_t index = assumptions_.size();
  assumptions_.push_back(c);
  for (const std::string& s : c.free_symbols()) by_symbol_[s].push_back(index);
  ++version_;
}

const std::vector<size_t>& Facts::assumptions_mentioning(std::string_view symbol) const {
  static const std::vector<size_t> none;
  auto it = by_symbol_.find(symbol);
  return it == by_symbol_.end() ? none : it->second;
}

}  // namespace symshape
