#include <cln/rational.h>

#include <algorithm>
#include <atomic>
#include <optional>

#include "symshape/expr/functions.h"
#include "symshape/facts.h"
#include "symshape/prove/difference.h"

namespace symshape {

using Rat = cln::cl_RA;

Facts::Facts(ValueRange default_range) : default_range_(std::move(default_range)) {}

uint64_t Facts::Identity::next() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

ValueRange Facts::range_of(std::string_view symbol) const {
  auto it = ranges_.find(symbol);
  return it == ranges_.end() ? default_range_ : it->second;
}

void Facts::set_range(const std::string& symbol, const ValueRange& r) {
  ValueRange before = range_of(symbol);
  ranges_[symbol] = r;
  if (!before.contains(r)) {
    // A wider range: what was implied from the narrower one may no longer hold.
    std::erase_if(differences_, [&](const Difference& d) {
      return d.range && (d.from == symbol || d.to == symbol);
    });
    closure_.reset();
    implied_.clear();
    contradiction_ = false;
    queue_.clear();
    queued_.assign(linear_.size(), false);
    for (size_t i = 0; i < linear_.size(); ++i) requeue_fact(i);
  } else {
    requeue(symbol);
  }
  add_range_edges(symbol, r);
  ++version_;
}

void Facts::refine_range(const std::string& symbol, const ValueRange& r) {
  ValueRange next = range_of(symbol).intersect(r);
  auto it = ranges_.find(symbol);
  if (it != ranges_.end() && it->second == next) return;
  ranges_[symbol] = next;
  requeue(symbol);
  add_range_edges(symbol, next);
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
  link(symbols, kMissingFact);
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

// c's free symbols, sorted; a relation between two symbols plus constants read directly.
std::vector<std::string> symbols_of(const Cond& c) {
  if (c.kind() == Cond::Kind::Rel) {
    auto l = detail::symbol_offset(c.lhs().ex()), r = detail::symbol_offset(c.rhs().ex());
    if (l && r) {
      if (l->name == r->name) return {l->name};
      return l->name < r->name ? std::vector<std::string>{l->name, r->name}
                               : std::vector<std::string>{r->name, l->name};
    }
  }
  return c.free_symbols();
}

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
  Inexactness inexact = kMissingFact;  // kExact: captured whole, as difference edges
  switch (c.kind()) {
    case Cond::Kind::True: return;
    case Cond::Kind::And:
      for (const Cond& o : c.operands()) assume(o);
      return;
    case Cond::Kind::False:
    case Cond::Kind::Or: contradicted_ = contradicted_ || c.kind() == Cond::Kind::False; break;
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
      inexact = c.op() == RelOp::Ne ? add_disequality(c) : add_linear(c) ? kExact : kMissingFact;
      if (c.op() == RelOp::Eq) add_substitution(c);
      break;
    }
  }
  const std::vector<std::string> symbols = symbols_of(c);
  link(symbols, inexact);
  size_t index = assumptions_.size();
  assumptions_.push_back(c);
  for (const std::string& s : symbols) by_symbol_[s].push_back(index);
  ++version_;
}

const std::vector<size_t>& Facts::assumptions_mentioning(std::string_view symbol) const {
  static const std::vector<size_t> none;
  auto it = by_symbol_.find(symbol);
  return it == by_symbol_.end() ? none : it->second;
}

// ---- bounds from linear relations -----------------------------------------------------------

namespace {

// Bounds propagation revisits a fact at most this many times per fact on average (a cycle such
// as x < y, y < x + 5 over wide ranges would otherwise creep one step at a time).
constexpr size_t kPropagationVisitsPerFact = 16;
// Relations with more symbols than this are not used for bounds.
constexpr size_t kMaxLinearTerms = 8;

}  // namespace

namespace detail {

std::optional<LinearOverSymbols> linear_over_symbols(const GiNaC::ex& e) {
  std::vector<std::pair<std::string, Rat>> terms;
  Rat constant = 0;
  auto term = [&](const GiNaC::ex& t) {
    if (detail::is_exactly<GiNaC::numeric>(t)) {
      if (!GiNaC::ex_to<GiNaC::numeric>(t).is_rational()) return false;
      constant = constant + cln::the<Rat>(GiNaC::ex_to<GiNaC::numeric>(t).to_cl_N());
      return true;
    }
    GiNaC::ex x = t;
    Rat k = 1;
    if (detail::is_exactly<GiNaC::mul>(t)) {
      if (t.nops() != 2 || !detail::is_exactly<GiNaC::numeric>(t.op(1)) ||
          !GiNaC::ex_to<GiNaC::numeric>(t.op(1)).is_rational()) {
        return false;
      }
      x = t.op(0);
      k = cln::the<Rat>(GiNaC::ex_to<GiNaC::numeric>(t.op(1)).to_cl_N());
    }
    if (!detail::is_exactly<GiNaC::symbol>(x)) return false;
    terms.emplace_back(GiNaC::ex_to<GiNaC::symbol>(x).get_name(), k);
    return true;
  };
  if (detail::is_exactly<GiNaC::add>(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (!term(e.op(i))) return std::nullopt;
    }
  } else if (!term(e)) {
    return std::nullopt;
  }
  return LinearOverSymbols{std::move(terms), constant};
}

std::optional<SymbolOffset> symbol_offset(const GiNaC::ex& e) {
  auto name = [](const GiNaC::ex& x) { return GiNaC::ex_to<GiNaC::symbol>(x).get_name(); };
  if (is_exactly<GiNaC::symbol>(e)) return SymbolOffset{e, name(e), 0};
  if (!is_exactly<GiNaC::add>(e) || e.nops() != 2) return std::nullopt;
  GiNaC::ex x = e.op(0), k = e.op(1);  // a sum's constant is its last operand
  if (!is_exactly<GiNaC::symbol>(x) || !is_int(k)) return std::nullopt;
  return SymbolOffset{x, name(x), int_of(k)};
}

std::optional<LinearOverSymbols> linear_difference(const GiNaC::ex& lhs, const GiNaC::ex& rhs) {
  auto l = symbol_offset(lhs), r = symbol_offset(rhs);
  if (!l || !r || l->name == r->name) return linear_over_symbols((lhs - rhs).expand());
  // A sum orders its terms by GiNaC's comparison of them (here, of the two symbols).
  LinearOverSymbols out;
  if (l->symbol.compare(r->symbol) < 0) {
    out.terms = {{l->name, 1}, {r->name, -1}};
  } else {
    out.terms = {{r->name, -1}, {l->name, 1}};
  }
  out.constant = l->offset - r->offset;
  return out;
}

}  // namespace detail

namespace {

// `d op 0` for a constant d: a relation whose symbols cancel (a fact rewritten by a replacement,
// `s1 + 2 != s0` with s1 -> s0 + 3). A true one says nothing, so it is captured whole and its
// symbols stay exact; a false one is not (the general prover finds the contradiction).
bool constant_relation_holds(RelOp op, const Rat& d) {
  switch (op) {
    case RelOp::Eq: return cln::zerop(d);
    case RelOp::Ne: return !cln::zerop(d);
    case RelOp::Lt: return cln::minusp(d);
    case RelOp::Le: return !cln::plusp(d);
    case RelOp::Gt: return cln::plusp(d);
    case RelOp::Ge: return !cln::minusp(d);
  }
  return false;
}

}  // namespace

// A relation linear over symbols becomes one or two `d >= 0` bounds (strict ones gain 1, as the
// values are integers).
bool Facts::add_linear(const Cond& c) {
  if (c.op() == RelOp::Ne) return false;
  auto lin = detail::linear_difference(c.lhs().ex(), c.rhs().ex());
  if (lin && lin->terms.empty()) return constant_relation_holds(c.op(), lin->constant);
  if (!lin || lin->terms.size() > kMaxLinearTerms) return false;
  Int scale = cln::denominator(lin->constant);
  for (const auto& [name, k] : lin->terms) scale = cln::lcm(scale, cln::denominator(k));
  LinearBound d;
  for (const auto& [name, k] : lin->terms) d.terms.emplace_back(name, cln::the<Int>(k * scale));
  d.constant = cln::the<Int>(lin->constant * scale);
  auto negated = [](LinearBound b) {
    for (auto& t : b.terms) t.second = -t.second;
    b.constant = -b.constant;
    return b;
  };
  std::vector<LinearBound> bounds;
  switch (c.op()) {
    case RelOp::Eq:
      bounds.push_back(d);
      bounds.push_back(negated(d));
      break;
    case RelOp::Ge: bounds.push_back(d); break;
    case RelOp::Gt:
      d.constant = d.constant - 1;
      bounds.push_back(d);
      break;
    case RelOp::Le: bounds.push_back(negated(d)); break;
    case RelOp::Lt: {
      LinearBound n = negated(d);
      n.constant = n.constant - 1;
      bounds.push_back(n);
      break;
    }
    case RelOp::Ne: return false;
  }
  bool captured = true;
  for (LinearBound& b : bounds) {
    if (auto edge = difference_of(b)) {
      differences_.push_back(std::move(*edge));
    } else {
      captured = false;
    }
    size_t index = linear_.size();
    for (const auto& t : b.terms) linear_by_symbol_[t.first].push_back(index);
    linear_.push_back(std::move(b));
    queued_.push_back(false);
    requeue_fact(index);
  }
  return captured;
}

void Facts::requeue_fact(size_t index) const {
  if (queued_[index]) return;
  queued_[index] = true;
  queue_.push_back(index);
}

void Facts::requeue(std::string_view symbol) const {
  auto it = linear_by_symbol_.find(symbol);
  if (it == linear_by_symbol_.end()) return;
  for (size_t i : it->second) requeue_fact(i);
}

ValueRange Facts::implied_range(std::string_view symbol) const {
  ValueRange r = range_of(symbol);
  if (linear_.empty()) return r;
  if (!queue_.empty()) propagate();
  if (contradiction_) return r;
  auto it = implied_.find(symbol);
  return it == implied_.end() ? r : r.intersect(it->second);
}

// Worklist bounds propagation: from `sum(a_i * x_i) + c >= 0`, a_j * x_j >= -c - max(rest), so
// x_j >= ceil(.../a_j) for a_j > 0 and x_j <= floor(.../a_j) for a_j < 0. Each step only
// narrows a range by what the facts imply, so stopping early is sound.
void Facts::propagate() const {
  auto current = [&](const std::string& name) {
    ValueRange r = range_of(name);
    auto it = implied_.find(name);
    return it == implied_.end() ? r : r.intersect(it->second);
  };
  size_t budget = kPropagationVisitsPerFact * linear_.size();
  size_t head = 0;
  while (head < queue_.size() && !contradiction_) {
    if (budget-- == 0) break;
    size_t index = queue_[head++];
    queued_[index] = false;
    const LinearBound& b = linear_[index];
    // max(a_i * x_i) per term; nullopt when infinite.
    std::vector<std::optional<Int>> most(b.terms.size());
    std::vector<ValueRange> ranges(b.terms.size());
    size_t infinite = 0;
    Int finite_sum = b.constant;
    for (size_t i = 0; i < b.terms.size(); ++i) {
      ranges[i] = current(b.terms[i].first);
      const Int& a = b.terms[i].second;
      const std::optional<Int>& end = a > 0 ? ranges[i].hi() : ranges[i].lo();
      if (end) {
        most[i] = a * *end;
        finite_sum = finite_sum + *most[i];
      } else {
        ++infinite;
      }
    }
    for (size_t j = 0; j < b.terms.size(); ++j) {
      // -c - max(rest) needs every other term bounded.
      if (infinite > (most[j] ? 0u : 1u)) continue;
      Int rest = most[j] ? finite_sum - *most[j] : finite_sum;  // c + max(rest)
      const Int& a = b.terms[j].second;
      ValueRange bound = a > 0 ? ValueRange::at_least(cln::ceiling1(-rest, a))
                               : ValueRange::at_most(cln::floor1(rest, -a));
      ValueRange next = ranges[j].intersect(bound);
      if (next == ranges[j]) continue;
      if (next.is_empty()) {
        contradiction_ = true;  // no point satisfies the facts: imply nothing
        implied_.clear();
        break;
      }
      const std::string& name = b.terms[j].first;
      implied_[name] = next;
      auto it = linear_by_symbol_.find(name);
      for (size_t other : it->second) {
        if (other != index) requeue_fact(other);
      }
    }
  }
  for (size_t i = head; i < queue_.size(); ++i) queued_[queue_[i]] = false;
  queue_.clear();
}

// ---- equalities as substitutions --------------------------------------------------------------

namespace {

constexpr size_t kMaxSubstitutions = 32;

// a comes after b in creation order as names tell it: names that differ only in their trailing
// number compare by that number (s10 after s9, as the ShapeEnv creates them), others as text.
bool later_name(std::string_view a, std::string_view b) {
  auto stem = [](std::string_view n) {
    size_t i = n.size();
    while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9') --i;
    return i;
  };
  const size_t sa = stem(a), sb = stem(b);
  if (a.substr(0, sa) == b.substr(0, sb) && a.size() - sa != b.size() - sb) {
    return a.size() - sa > b.size() - sb;  // more digits: a larger number (s10 after s9)
  }
  return a > b;
}

}  // namespace

void Facts::add_substitution(const Cond& c) {
  if (substitutions_.size() >= kMaxSubstitutions) return;
  GiNaC::ex d = substitute(c.lhs() - c.rhs()).ex().expand();
  if (detail::is_exactly<GiNaC::numeric>(d)) return;
  // A symbol that occurs once, as a term of coefficient +-1: d == k*x + rest, x == -k*rest.
  std::vector<GiNaC::ex> terms;
  if (detail::is_exactly<GiNaC::add>(d)) {
    for (size_t i = 0; i < d.nops(); ++i) terms.push_back(d.op(i));
  } else {
    terms.push_back(d);
  }
  std::string best;
  GiNaC::ex best_rest;
  int best_sign = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    GiNaC::ex x = terms[i];
    int sign = 1;
    if (detail::is_exactly<GiNaC::mul>(x) && x.nops() == 2 && x.op(1).is_equal(-1)) {
      x = x.op(0);
      sign = -1;
    }
    if (!detail::is_exactly<GiNaC::symbol>(x)) continue;
    GiNaC::ex rest = d - terms[i];
    if (rest.has(x) || detail::is_exactly<GiNaC::numeric>(rest)) continue;  // constants: ranges
    std::string name = GiNaC::ex_to<GiNaC::symbol>(x).get_name();
    if (!best.empty() && later_name(best, name)) continue;  // the later name is eliminated
    best = name;
    best_rest = rest;
    best_sign = sign;
  }
  if (best.empty()) return;
  Expr value(-best_sign * best_rest);
  for (auto& [name, v] : substitutions_) {
    if (v.has_symbol(best)) v = v.subs({{best, value}});
  }
  substitutions_.emplace(best, value);
}

Expr Facts::substitute(const Expr& e) const {
  if (substitutions_.empty()) return e;
  return e.subs(substitutions_);
}

Cond Facts::substitute(const Cond& c) const {
  if (substitutions_.empty()) return c;
  return c.subs(substitutions_);
}

// ---- the difference closure ---------------------------------------------------------------

namespace {

// v as an int64 within the closure's limit.
std::optional<int64_t> difference_weight(const Int& v) {
  auto w = to_int64(v);
  if (!w || *w > detail::kDifferenceLimit || *w < -detail::kDifferenceLimit) return std::nullopt;
  return w;
}

bool fits_closure(const ValueRange& r) {
  return (!r.lo() || difference_weight(*r.lo())) && (!r.hi() || difference_weight(*r.hi()));
}

}  // namespace

// `sum(g*a_i*x_i) + c >= 0` is `sum(a_i*x_i) + floor(c/g) >= 0` over integers; with one term
// of coefficient +-1, or two of coefficients 1 and -1, it is an edge.
std::optional<Facts::Difference> Facts::difference_of(const LinearBound& b) {
  if (b.terms.empty() || b.terms.size() > 2) return std::nullopt;
  Int g = 0;
  for (const auto& t : b.terms) g = cln::gcd(g, t.second);
  auto w = difference_weight(cln::floor1(b.constant, g));
  if (!w) return std::nullopt;
  const std::string* plus = nullptr;  // the term of coefficient +1, and of -1
  const std::string* minus = nullptr;
  auto unit = [&](const Int& a) {
    const Int u = cln::exquo(a, g);
    return u == 1 ? 1 : u == -1 ? -1 : 0;
  };
  if (!detail::difference_sides(b.terms, unit, plus, minus)) return std::nullopt;
  // x - y + w >= 0 is y - x <= w: an edge x -> y; the zero node stands in for a missing term.
  static const std::string zero;
  return Difference{plus ? *plus : zero, minus ? *minus : zero, *w, false};
}

void Facts::add_range_edges(const std::string& symbol, const ValueRange& r) {
  if (!fits_closure(r)) {
    link({symbol}, kMissingFact);  // an end the closure cannot hold
    return;
  }
  if (r.lo()) differences_.push_back({symbol, "", -*difference_weight(*r.lo()), true});
  if (r.hi()) differences_.push_back({"", symbol, *difference_weight(*r.hi()), true});
}

size_t Facts::root(size_t i) const {
  while (parent_[i] != i) {
    parent_[i] = parent_[parent_[i]];
    i = parent_[i];
  }
  return i;
}

size_t Facts::component(const std::string& symbol) {
  auto [it, inserted] = component_of_.emplace(symbol, parent_.size());
  if (inserted) {
    parent_.push_back(it->second);
    inexact_.push_back(fits_closure(range_of(symbol)) ? kExact : kMissingFact);
  }
  return root(it->second);
}

void Facts::link(const std::vector<std::string>& symbols, Inexactness inexact) {
  if (symbols.empty()) return;
  size_t r = component(symbols.front());
  for (size_t i = 1; i < symbols.size(); ++i) {
    size_t other = component(symbols[i]);
    if (other == r) continue;
    parent_[other] = r;
    inexact_[r] |= inexact_[other];
  }
  inexact_[r] |= inexact;
}

uint8_t Facts::inexactness(std::string_view symbol) const {
  auto it = component_of_.find(symbol);
  if (it == component_of_.end()) return fits_closure(range_of(symbol)) ? kExact : kMissingFact;
  return inexact_[root(it->second)];
}

Facts::DifferenceRange Facts::difference_range(std::string_view x, std::string_view y) const {
  using detail::DifferenceClosure;
  if (!closure_) {
    closure_ = std::make_shared<DifferenceClosure>();
  } else if (closure_.use_count() > 1) {
    // Shared with a copy of these facts: make it ours before adding our edges and nodes.
    closure_ = std::make_shared<DifferenceClosure>(*closure_);
  }
  DifferenceClosure& closure = *closure_;
  auto node = [&](const std::string& symbol) {
    if (symbol.empty()) return DifferenceClosure::kZero;
    const ValueRange r = range_of(symbol);
    auto end = [](const std::optional<Int>& v) {
      return v ? difference_weight(*v) : std::optional<int64_t>();
    };
    return closure.node(symbol, end(r.lo()), end(r.hi()));
  };
  for (; closure.consumed < differences_.size(); ++closure.consumed) {
    const Difference& d = differences_[closure.consumed];
    const int from = node(d.from), to = node(d.to);
    if (from < 0 || to < 0) break;  // full
    closure.add(from, to, d.weight);
  }
  DifferenceRange out;
  if (closure.contradictory() || closure.full()) return out;
  const int nx = node(std::string(x)), ny = node(std::string(y));
  if (nx < 0 || ny < 0) return out;
  // x - y <= dist(y, x) and y - x <= dist(x, y).
  std::optional<int64_t> hi = closure.upper(ny, nx), neg_lo = closure.upper(nx, ny);
  out.range = ValueRange(neg_lo ? std::optional<Int>(Int(-*neg_lo)) : std::nullopt,
                         hi ? std::optional<Int>(Int(*hi)) : std::nullopt);
  const uint8_t inexact = inexactness(x) | (y.empty() ? uint8_t{0} : inexactness(y));
  out.exact = !contradicted_ && inexact == kExact;
  out.exact_pairwise = !contradicted_ && (inexact & kMissingFact) == 0;
  return out;
}

namespace {

// Disequalities on a pair whose difference ranges over fewer values than this make their
// component's ranges inexact (the general prover splits them): a few of them can together force
// a value (a, b, c in [0, 1], pairwise distinct, is impossible), which a per-pair index does not
// see. They are indexed all the same, so their own pair reads them first.
constexpr int64_t kLooseDisequalityWidth = 64;

std::string pair_key(std::string_view x, std::string_view y) {
  std::string key(x);
  key += '\n';
  key += y;
  return key;
}

}  // namespace

Facts::Inexactness Facts::add_disequality(const Cond& c) {
  auto lin = detail::linear_difference(c.lhs().ex(), c.rhs().ex());
  const std::string* plus = nullptr;
  const std::string* minus = nullptr;
  auto unit = [](const cln::cl_RA& a) { return a == 1 ? 1 : a == -1 ? -1 : 0; };
  if (lin && lin->terms.empty()) {
    return constant_relation_holds(RelOp::Ne, lin->constant) ? kExact : kMissingFact;
  }
  if (!lin || cln::denominator(lin->constant) != 1 ||
      !detail::difference_sides(lin->terms, unit, plus, minus) || !plus) {
    return kMissingFact;
  }
  // plus - minus + k != 0: plus - minus != -k; ordered so that x comes before y ("" last).
  std::string x = *plus, y = minus ? *minus : std::string();
  Int v = -cln::the<Int>(lin->constant);
  if (!y.empty() && y < x) {
    std::swap(x, y);
    v = -v;
  }
  const ValueRange r = difference_range(x, y).range;
  std::vector<Int>& values = disequal_[pair_key(x, y)];
  auto at = std::lower_bound(values.begin(), values.end(), v);
  if (at == values.end() || *at != v) values.insert(at, v);
  const bool loose = !r.lo() || !r.hi() || *r.hi() - *r.lo() >= kLooseDisequalityWidth;
  return loose ? kExact : kNarrowDisequality;
}

const std::vector<Int>& Facts::excluded_differences(std::string_view x, std::string_view y) const {
  static const std::vector<Int> none;
  if (disequal_.empty()) return none;
  auto it = disequal_.find(pair_key(x, y));
  return it == disequal_.end() ? none : it->second;
}

}  // namespace symshape
