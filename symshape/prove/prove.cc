// prove(): three-valued decisions. A relation is first decided from the range and modular set
// of `lhs - rhs`; failing that, by linear reasoning: the facts connected to the goal become
// linear constraints over symbols and atoms (non-linear sub-terms), and the goal is shown true
// (false) when the facts and its negation (the goal itself) have no integer solution.
#include <cln/integer.h>
#include <cln/rational.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>

#include "symshape/expr/functions.h"
#include "symshape/prove.h"
#include "symshape/prove/difference.h"
#include "symshape/prove/limits.h"
#include "symshape/prove/linear.h"
#include "symshape/ranges/bound.h"
#include "symshape/simplify.h"

namespace symshape {

std::string_view to_string(Truth t) {
  switch (t) {
    case Truth::False: return "false";
    case Truth::True: return "true";
    case Truth::Unknown: return "unknown";
  }
  return "?";
}

Truth negate(Truth t) {
  switch (t) {
    case Truth::False: return Truth::True;
    case Truth::True: return Truth::False;
    case Truth::Unknown: break;
  }
  return Truth::Unknown;
}

namespace {

using GiNaC::ex;
using Rat = cln::cl_RA;

// Work caps: beyond them the answer is Unknown (or a fact is left out, which is sound).
constexpr size_t kMaxAssumptions = detail::kMaxProveAssumptions;
thread_local bool limit_hit = false;  // detail::prove_limit_hit()
constexpr size_t kMaxBranches = 16;
constexpr size_t kMaxExpandedTerms = 32;

bool is_rational(const ex& e) {
  return detail::is_exactly<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_rational();
}

Rat rational_of(const ex& e) {
  return cln::the<cln::cl_RA>(GiNaC::ex_to<GiNaC::numeric>(e).to_cl_N());
}

// The range the linear tier gives an atom: from the recorded ranges alone (the tier has the
// linear facts themselves; bounds implied by them only add constraints to eliminate).
ValueRange atom_bound(const ex& e, const Facts& facts) {
  try {
    return detail::bound_with(Expr(e), facts, {false, false, false});
  } catch (const Error&) {
    return ValueRange::all();
  }
}

// ---- tier 1: the range and modular set of lhs - rhs --------------------------------------------

// The lcm of the denominators of the numeric coefficients of d's terms.
Int coefficient_denominator(const ex& d) {
  auto of_term = [](const ex& t) -> Int {
    ex c = detail::is_exactly<GiNaC::mul>(t) ? t.op(t.nops() - 1) : t;  // GiNaC keeps it last
    return is_rational(c) ? cln::denominator(rational_of(c)) : Int(1);
  };
  if (!detail::is_exactly<GiNaC::add>(d)) return of_term(d);
  Int l = 1;
  for (size_t i = 0; i < d.nops(); ++i) l = cln::lcm(l, of_term(d.op(i)));
  return l;
}

// Narrows r to the values congruent to m.base modulo m.modulus.
ValueRange tighten(const ValueRange& r, const ModularSet& m) {
  if (m.modulus == 0) return r.intersect(ValueRange::point(m.base));
  if (m.modulus <= 1) return r;
  std::optional<Int> lo = r.lo(), hi = r.hi();
  if (lo) lo = *lo + cln::mod(m.base - *lo, m.modulus);
  if (hi) hi = *hi - cln::mod(*hi - m.base, m.modulus);
  return ValueRange(lo, hi);
}

// Decides `d op 0` for d in r; zero_possible is false when the modular set excludes 0.
Truth decide_range(RelOp op, const ValueRange& r, bool zero_possible) {
  auto lo_at_least = [&](int v) { return r.lo() && *r.lo() >= v; };
  auto hi_at_most = [&](int v) { return r.hi() && *r.hi() <= v; };
  bool no_zero = !zero_possible || !r.contains(Int(0));
  bool only_zero = r.is_point() && *r.lo() == 0;
  switch (op) {
    case RelOp::Lt:
      return hi_at_most(-1) ? Truth::True : lo_at_least(0) ? Truth::False : Truth::Unknown;
    case RelOp::Le:
      return hi_at_most(0) ? Truth::True : lo_at_least(1) ? Truth::False : Truth::Unknown;
    case RelOp::Gt:
      return lo_at_least(1) ? Truth::True : hi_at_most(0) ? Truth::False : Truth::Unknown;
    case RelOp::Ge:
      return lo_at_least(0) ? Truth::True : hi_at_most(-1) ? Truth::False : Truth::Unknown;
    case RelOp::Eq: return only_zero ? Truth::True : no_zero ? Truth::False : Truth::Unknown;
    case RelOp::Ne: return no_zero ? Truth::True : only_zero ? Truth::False : Truth::Unknown;
  }
  return Truth::Unknown;
}

Truth by_ranges(const Cond& rel, const Facts& facts) {
  ex d = rel.lhs().ex() - rel.rhs().ex();
  // A positive factor keeps the relation and makes exact quotients like x/2 integral terms.
  Int den = coefficient_denominator(d);
  if (den != 1) d = d * detail::ex_of(den);
  // (The linear tier is this file's own: the range tier does not project over the facts.)
  detail::RangeAndModular both;
  try {
    both = detail::range_and_modular_set(Expr(d), facts);
  } catch (const Error&) {
    return Truth::Unknown;  // the range analysis refuses (a possibly-zero divisor)
  }
  ValueRange r = both.range;
  if (r.is_empty()) return Truth::Unknown;  // contradictory facts: leave it to the linear tier
  Truth t = decide_range(rel.op(), r, true);
  if (t != Truth::Unknown) return t;
  // The modular set tells that 2*x - 1 is never 0 (inequalities get the same from the linear
  // tier's integer tightening).
  if (rel.op() != RelOp::Eq && rel.op() != RelOp::Ne) return Truth::Unknown;
  const ModularSet& m = both.modular;
  if (m.modulus == 1) return Truth::Unknown;
  r = tighten(r, m);
  if (r.is_empty()) return Truth::Unknown;
  bool zero_possible = m.modulus == 0 ? m.base == 0 : cln::mod(m.base, m.modulus) == 0;
  return decide_range(rel.op(), r, zero_possible);
}

// ---- tier 0: difference facts -----------------------------------------------------------------

// `x - y + k op 0` (either symbol may be missing) decided by the facts' difference closure
// (Facts::difference_range; detail::decide_difference): a lookup, where the tiers below linearize
// the facts. nullopt when the goal is not of that form or the closure cannot tell.
std::optional<Truth> by_differences(const Cond& rel, const Facts& facts) {
  auto lin = detail::linear_difference(rel.lhs().ex(), rel.rhs().ex());
  const std::string* plus = nullptr;  // the term of coefficient 1, and the one of -1
  const std::string* minus = nullptr;
  auto unit = [](const Rat& a) { return a == 1 ? 1 : a == -1 ? -1 : 0; };
  if (!lin || cln::denominator(lin->constant) != 1 ||
      !detail::difference_sides(lin->terms, unit, plus, minus)) {
    return std::nullopt;
  }
  return detail::decide_difference(facts, rel.op(), plus, minus, cln::the<Int>(lin->constant));
}

// ---- tier 2: linear reasoning ----------------------------------------------------------------

// sum(coefficient * variable) + constant, over the rationals (exact quotients give fractions).
// Terms are few, so they are kept in a small unsorted vector.
struct Linear {
  std::vector<std::pair<int, Rat>> terms;
  Rat constant = 0;

  void add(const Linear& o, const Rat& k) {
    if (cln::zerop(k)) return;
    for (const auto& [v, a] : o.terms) {
      auto it =
          std::find_if(terms.begin(), terms.end(), [v = v](const auto& t) { return t.first == v; });
      if (it == terms.end()) {
        if (!cln::zerop(a)) terms.emplace_back(v, k * a);
      } else {
        it->second = it->second + k * a;
        if (cln::zerop(it->second)) terms.erase(it);
      }
    }
    constant = constant + k * o.constant;
  }
  static Linear of(int v, const Rat& k = 1, const Rat& c = 0) {
    Linear l;
    if (!cln::zerop(k)) l.terms.emplace_back(v, k);
    l.constant = c;
    return l;
  }
};

Linear negated(const Linear& a) {
  Linear n;
  n.add(a, -1);
  return n;
}

Linear operator-(Linear a, const Linear& b) {
  a.add(b, -1);
  return a;
}

// A relation `d op 0` (op is never Ne).
struct Relation {
  Linear d;
  RelOp op;
};

// Bounds by projection: at most this many max / min atoms are resolved first, and an
// elimination step may leave at most this many constraints.
constexpr size_t kMaxMinMaxChoices = 4;
constexpr size_t kMaxProjectionConstraints = 200;

// `!=` facts a decision splits on, and the max / min atoms whose value it splits into its
// arguments (2^k systems per branch at most, k the splits connected to the goal).
constexpr size_t kMaxDisequalities = 4;
constexpr size_t kMaxSplits = 6;

// Whether `value op 0`.
bool relation_holds(const Rat& value, RelOp op) {
  const int sign = cln::minusp(value) ? -1 : cln::zerop(value) ? 0 : 1;
  switch (op) {
    case RelOp::Eq: return sign == 0;
    case RelOp::Ne: return sign != 0;
    case RelOp::Lt: return sign < 0;
    case RelOp::Le: return sign <= 0;
    case RelOp::Gt: return sign > 0;
    case RelOp::Ge: return sign >= 0;
  }
  return false;
}

// A disjunction of two linear relations (d op 0) that a refutation may split on.
struct Split {
  std::pair<Linear, RelOp> sides[2];
  // For a max (min) atom, its variable: the split can only matter when a constraint other than
  // the atom's two definitions bounds it from below (above); otherwise lowering (raising) the
  // atom to its largest (smallest) argument turns any solution into one of a side.
  int atom = -1;
  bool is_max = false;
  std::optional<Int> known;  // the atom's own lower (upper) bound, which needs no split
};

// A conjunction of goal relations, by index into the goal's relations, with the op to use.
using Branch = std::vector<std::pair<size_t, RelOp>>;

// How many terms expanding e gives (an over-estimate, capped).
size_t expanded_terms(const ex& e) {
  if (detail::is_exactly<GiNaC::add>(e)) {
    size_t n = 0;
    for (size_t i = 0; i < e.nops(); ++i) n += expanded_terms(e.op(i));
    return std::min(n, kMaxExpandedTerms + 1);
  }
  if (detail::is_exactly<GiNaC::mul>(e)) {
    size_t n = 1;
    for (size_t i = 0; i < e.nops(); ++i) {
      n = std::min(n * expanded_terms(e.op(i)), kMaxExpandedTerms + 1);
    }
    return n;
  }
  if (detail::is_exactly<GiNaC::power>(e) && detail::is_int(e.op(1)) &&
      detail::int_of(e.op(1)) > 0) {
    size_t base = expanded_terms(e.op(0)), n = 1;
    for (Int k = detail::int_of(e.op(1)); k > 0 && n <= kMaxExpandedTerms; k = k - 1) n *= base;
    return std::min(n, kMaxExpandedTerms + 1);
  }
  return 1;
}

bool is_sum_power(const ex& e) {
  return detail::is_exactly<GiNaC::power>(e) && detail::is_exactly<GiNaC::add>(e.op(0)) &&
         detail::is_int(e.op(1)) && detail::int_of(e.op(1)) > 0;
}

bool is_negative_power(const ex& e) {
  return detail::is_exactly<GiNaC::power>(e) &&
         !(detail::is_int(e.op(1)) && detail::int_of(e.op(1)) >= 0);
}

// The linear system of one decision: variables (symbols, atoms, divisibility witnesses), the
// constraints the facts give about them, and the goal's relations.
class LinearProver {
 public:
  explicit LinearProver(const Facts& facts) : facts_(facts) {}

  // Linearizes every relation of the goal (registering its variables), then gathers the facts
  // connected to them.
  void prepare(const Cond& goal) {
    add_goal(goal);
    collect_facts();
    finish();
  }

  // Gathers every fact, with no goal: the prototype that later decisions under the same facts
  // copy (prepare_on_prototype) instead of linearizing the facts again. False when the facts are
  // more than one decision would gather.
  bool prepare_facts() {
    if (facts_.assumptions().size() > kMaxAssumptions) return false;
    std::set<std::string> names;
    for (const Cond& a : facts_.assumptions()) {
      for (std::string& n : a.free_symbols()) names.insert(std::move(n));
    }
    for (const Divisibility& d : facts_.divisibility()) {
      for (std::string& n : d.dividend.free_symbols()) names.insert(std::move(n));
      for (std::string& n : d.divisor.free_symbols()) names.insert(std::move(n));
    }
    for (const std::string& n : names) {
      if (followed_.insert(n).second) pending_.push_back(n);
    }
    collect_facts();
    if (limit_hit) return false;
    finish();
    // Bounds every fact implies, from which each decision's search for a solution starts (left
    // out when the facts contradict each other: decisions then see only the facts they reach).
    if (auto bounds = detail::propagate_bounds(base_, integer_)) {
      fact_bounds_ = std::make_shared<const detail::VariableBounds>(std::move(*bounds));
      bounded_facts_ = base_.size();
    }
    return true;
  }

  // A copy of a prototype (prepare_facts) takes its goal: the goal's variables new to the facts
  // are placed after the facts' ones, and the constraints they bring are added.
  void prepare_on_prototype(const Cond& goal) {
    const size_t vars_before = vars_.size(), relations_before = facts_rel_.size();
    add_goal(goal);
    // Every symbol a fact mentions was followed by the prototype: a new one has no facts.
    pending_.clear();
    place(vars_before);
    for (size_t i = relations_before; i < facts_rel_.size(); ++i)
      append(facts_rel_[i].d, facts_rel_[i].op, base_);
  }

  // Whether the facts and c (or not c, when negated) have no integer solution together.
  bool refutes(const Cond& c, bool negate_goal) {
    std::vector<Branch> branches;
    size_t next = 0;
    if (!dnf(c, negate_goal, next, branches)) return false;
    for (const Branch& b : branches) {
      std::vector<detail::LinearConstraint> goal;
      for (const auto& [index, op] : b) {
        if (!append(goal_[index], op, goal)) return false;
      }
      // Only the facts connected to the goal's variables can take part in a refutation (the
      // others have a solution of their own unless they contradict each other, which is the
      // one power this gives up).
      std::vector<bool> in_reach = reach(goal);
      std::vector<detail::LinearConstraint> cs;
      // The facts fact_bounds_ was propagated from come first: those are at a fixpoint with it.
      size_t facts = 0;
      for (size_t i = 0; i < base_.size(); ++i) {
        const detail::LinearConstraint& c = base_[i];
        if (!c.terms.empty() && in_reach[static_cast<size_t>(c.terms[0].first)]) {
          cs.push_back(c);
          if (i < bounded_facts_) facts = cs.size();
        }
      }
      cs.insert(cs.end(), std::make_move_iterator(goal.begin()),
                std::make_move_iterator(goal.end()));
      // The max / min atoms first, the goal's own (made last) before the facts', then the `!=`
      // facts: a goal about a max is usually decided by splitting that max, and a solution
      // found before a split often takes a side of the `!=` facts already.
      std::vector<const Split*> splits;
      auto consider = [&](const Split& split) {
        const Linear& d = split.sides[0].first;
        if (splits.size() < kMaxSplits && (split.atom < 0 || needs_split(split, cs)) &&
            std::any_of(d.terms.begin(), d.terms.end(), [&](const auto& t) {
              return in_reach[static_cast<size_t>(position_[t.first])];
            })) {
          splits.push_back(&split);
        }
      };
      for (auto it = splits_.rbegin(); it != splits_.rend(); ++it) {
        if (it->atom >= 0) consider(*it);
      }
      for (const Split& split : splits_) {
        if (split.atom < 0) consider(split);
      }
      if (!refute_split(cs, facts, splits, 0)) return false;
    }
    return true;
  }

  // The range of e under the facts connected to it (detail::linear_range): e's linear form L
  // becomes a new variable t == s*L (s clearing L's denominators) and every other variable is
  // projected out. A max or min atom whose argument order the facts settle is first tied to
  // that argument (max(c, a) == c for c >= a + 3). All integers when nothing is found.
  ValueRange range_of(const ex& e) {
    Linear target = linearize(e);
    collect_facts();
    finish();
    // Each max / min atom (of e or of the facts) splits into `m == a or m == b`: the difference
    // of its sides is a - b.
    size_t tried = 0;
    for (const Split& split : splits_) {
      if (split.atom < 0) continue;
      if (tried++ == kMaxMinMaxChoices) break;
      auto r = project_linear(split.sides[1].first - split.sides[0].first);
      if (!r) return ValueRange::empty();  // the facts have no solution
      int side = -1;                       // the argument the call equals
      if (r->lo() && *r->lo() >= 0) side = split.is_max ? 0 : 1;
      if (r->hi() && *r->hi() <= 0) side = split.is_max ? 1 : 0;
      if (side >= 0) append(split.sides[side].first, RelOp::Eq, base_);
    }
    auto r = project_linear(target);
    return r ? *r : ValueRange::empty();
  }

 private:
  enum Rank { kSymbol = 0, kAtom = 1, kWitness = 2 };
  struct Var {
    ex key;
    Rank rank;
    bool integer;
  };

  void add_goal(const Cond& c) {
    switch (c.kind()) {
      case Cond::Kind::True:
      case Cond::Kind::False: return;
      case Cond::Kind::Rel:
        goal_.push_back(linearize(c.lhs().ex()) - linearize(c.rhs().ex()));
        return;
      case Cond::Kind::And:
      case Cond::Kind::Or:
        for (const Cond& o : c.operands()) add_goal(o);
        return;
    }
  }

  // The branches of c's (or its negation's) disjunctive normal form, relations numbered in the
  // order add_goal met them. False when there would be too many.
  bool dnf(const Cond& c, bool negate_goal, size_t& next, std::vector<Branch>& out) {
    out.clear();
    switch (c.kind()) {
      case Cond::Kind::True:
      case Cond::Kind::False:
        if ((c.kind() == Cond::Kind::True) != negate_goal) out.emplace_back();
        return true;
      case Cond::Kind::Rel: {
        size_t index = next++;
        RelOp op = negate_goal ? negate(c.op()) : c.op();
        if (op == RelOp::Ne) {
          out.push_back({{index, RelOp::Lt}});
          out.push_back({{index, RelOp::Gt}});
        } else {
          out.push_back({{index, op}});
        }
        return true;
      }
      case Cond::Kind::And:
      case Cond::Kind::Or: {
        bool conjunction = (c.kind() == Cond::Kind::And) != negate_goal;
        if (conjunction) out.emplace_back();
        for (const Cond& o : c.operands()) {
          std::vector<Branch> sub;
          if (!dnf(o, negate_goal, next, sub)) return false;
          if (conjunction) {
            std::vector<Branch> product;
            for (const Branch& a : out) {
              for (const Branch& b : sub) {
                Branch ab = a;
                ab.insert(ab.end(), b.begin(), b.end());
                product.push_back(std::move(ab));
              }
            }
            out = std::move(product);
          } else {
            out.insert(out.end(), sub.begin(), sub.end());
          }
          if (out.size() > kMaxBranches) return false;
        }
        return true;
      }
    }
    return false;
  }

  // ---- variables ----

  int find(const ex& e) const {
    auto range = index_.equal_range(e.gethash());
    for (auto it = range.first; it != range.second; ++it) {
      if (vars_[it->second].key.is_equal(e)) return it->second;
    }
    return -1;
  }

  int new_var(const ex& key, Rank rank, bool integer) {
    int v = static_cast<int>(vars_.size());
    vars_.push_back({key, rank, integer});
    if (rank != kWitness) index_.emplace(key.gethash(), v);
    return v;
  }

  void add_bounds(int v, const ValueRange& r) {
    if (r.lo()) facts_rel_.push_back({Linear::of(v, 1, -*r.lo()), RelOp::Ge});
    if (r.hi()) facts_rel_.push_back({Linear::of(v, -1, *r.hi()), RelOp::Ge});
  }

  // Queues the symbols of e for fact gathering.
  void follow(const ex& e) {
    if (detail::is_exactly<GiNaC::symbol>(e)) {
      const std::string& name = GiNaC::ex_to<GiNaC::symbol>(e).get_name();
      if (followed_.insert(name).second) pending_.push_back(name);
      return;
    }
    for (size_t i = 0; i < e.nops(); ++i) follow(e.op(i));
  }

  int symbol_var(const ex& e) {
    if (int v = find(e); v >= 0) return v;
    int v = new_var(e, kSymbol, true);
    const std::string& name = GiNaC::ex_to<GiNaC::symbol>(e).get_name();
    add_bounds(v, facts_.range_of(name));
    Int c = facts_.known_divisor(name);
    if (c > 1) {
      // x == c*k for an integer k.
      int k = new_var(e, kWitness, true);
      Linear d = Linear::of(v);
      d.terms.emplace_back(k, -c);
      facts_rel_.push_back({std::move(d), RelOp::Eq});
    }
    follow(e);
    return v;
  }

  int atom_var(const ex& e) {
    if (int v = find(e); v >= 0) return v;
    // An exact quotient such as x*y^-1 is integral only as a whole term with its coefficient,
    // so atoms with negative powers are reasoned about as rationals.
    int v = new_var(e, kAtom, detail::has_integer_coefficients(e));
    const ValueRange range = atom_bound(e, facts_);
    add_bounds(v, range);
    follow(e);
    define(v, e, range);
    return v;
  }

  // Linear constraints that tie an atom's value (variable v, in `range`) to its arguments.
  void define(int v, const ex& e, const ValueRange& range) {
    if (detail::is_exactly<GiNaC::mul>(e) && e.nops() == 2) {
      define_product(v, e.op(0), e.op(1));
      return;
    }
    if (detail::is_exactly<GiNaC::power>(e) && e.op(1).is_equal(2)) {
      define_product(v, e.op(0), e.op(0));
      return;
    }
    Fn f = function_of(e);
    if (f == Fn::None) return;
    const ex& a = e.op(0);
    const ex& b = e.op(1);
    Linear A = linearize(a);
    auto ge = [&](Linear d) { facts_rel_.push_back({std::move(d), RelOp::Ge}); };
    auto plus = [](Linear d, int var, const Rat& k, const Rat& c) {
      d.add(Linear::of(var, k, c), 1);
      return d;
    };
    Linear negA = negated(A);
    if (f == Fn::Max || f == Fn::Min) {
      // max: m >= a and m >= b;  min: m <= a and m <= b.
      Linear B = linearize(b);
      if (f == Fn::Max) {
        ge(plus(negA, v, 1, 0));
        ge(plus(negated(B), v, 1, 0));
      } else {
        ge(plus(A, v, -1, 0));
        ge(plus(B, v, -1, 0));
      }
      // ... and equal to one of them: m - a == 0 or m - b == 0, split on when needed (the
      // constraints above already tie m to the variables of a and b).
      splits_.push_back(
          Split{{{plus(negA, v, 1, 0), RelOp::Eq}, {plus(negated(B), v, 1, 0), RelOp::Eq}},
                v,
                f == Fn::Max,
                f == Fn::Max ? range.lo() : range.hi()});
      return;
    }
    if (detail::is_int(b)) {
      Int c = detail::int_of(b);
      if (c == 0) return;
      switch (f) {
        case Fn::FloorDiv:
          // c > 0: c*q <= a <= c*q + c - 1;  c < 0: c*q + c + 1 <= a <= c*q.
          if (c > 0) {
            ge(plus(A, v, -c, 0));
            ge(plus(negA, v, c, c - 1));
          } else {
            ge(plus(A, v, -c, -c - 1));
            ge(plus(negA, v, c, 0));
          }
          return;
        case Fn::CeilDiv:
          // c > 0: c*q - c + 1 <= a <= c*q;  c < 0: c*q <= a <= c*q - c - 1.
          if (c > 0) {
            ge(plus(A, v, -c, c - 1));
            ge(plus(negA, v, c, 0));
          } else {
            ge(plus(A, v, -c, 0));
            ge(plus(negA, v, c, -c - 1));
          }
          return;
        case Fn::Mod: {
          // r == a - c*(a // c), with the quotient's own definition.
          int q = atom_var(floordiv(Expr(a), Expr(b)).ex());
          Linear d = plus(A, q, -c, 0);
          d.add(Linear::of(v), -1);
          facts_rel_.push_back({std::move(d), RelOp::Eq});
          return;
        }
        default: return;
      }
    }
    // A symbolic divisor: only what its sign and the dividend's sign allow.
    ValueRange rb = atom_bound(b, facts_);
    bool positive = rb.lo() && *rb.lo() >= 1, negative = rb.hi() && *rb.hi() <= -1;
    if (!positive && !negative) return;
    ValueRange ra = atom_bound(a, facts_);
    bool a_nonneg = ra.lo() && *ra.lo() >= 0, a_nonpos = ra.hi() && *ra.hi() <= 0;
    // Orient as a divisor > 0: a // b == (-a) // (-b), and likewise for ceildiv.
    const Linear& num = positive ? A : negA;
    bool num_nonneg = positive ? a_nonneg : a_nonpos;
    bool num_nonpos = positive ? a_nonpos : a_nonneg;
    if (f == Fn::FloorDiv || f == Fn::CeilDiv) {
      // 0 <= n: q <= n;  n <= 0: q >= n (for a divisor >= 1).
      if (num_nonneg) ge(plus(num, v, -1, 0));
      if (num_nonpos) ge(plus(negated(num), v, 1, 0));
      return;
    }
    if (f == Fn::Mod) {
      Linear B = linearize(b);
      if (positive) {
        // 0 <= r <= b - 1, and r <= a when a >= 0.
        ge(Linear::of(v));
        ge(plus(B, v, -1, -1));
        if (a_nonneg) ge(plus(A, v, -1, 0));
      } else {
        // b + 1 <= r <= 0, and r >= a when a <= 0.
        ge(plus(negated(B), v, 1, -1));
        ge(Linear::of(v, -1));
        if (a_nonpos) ge(plus(negA, v, 1, 0));
      }
    }
  }

  // The product p = f*g within the box of f's and g's ranges lies above and below the planes
  // through its corners (McCormick): (f - lo_f)*(g - lo_g) >= 0 gives p >= lo_g*f + lo_f*g -
  // lo_f*lo_g, and so on. This is what shows x*y >= x for sizes.
  void define_product(int v, const ex& f, const ex& g) {
    if (is_negative_power(f) || is_negative_power(g)) return;
    ValueRange rf = atom_bound(f, facts_), rg = atom_bound(g, facts_);
    if (rf.is_all() || rg.is_all()) return;
    Linear F = linearize(f), G = linearize(g);
    // s*((f - a)*(g - b)) >= 0 with s = +1 for same-side corners, -1 for opposite ones:
    // s*(p - b*f - a*g + a*b) >= 0.
    auto corner = [&](const Int& a, const Int& b, int s) {
      Linear d = Linear::of(v, s, Rat(s) * a * b);
      d.add(F, Rat(-s) * b);
      d.add(G, Rat(-s) * a);
      facts_rel_.push_back({std::move(d), RelOp::Ge});
    };
    if (rf.lo() && rg.lo()) corner(*rf.lo(), *rg.lo(), 1);
    if (rf.hi() && rg.hi()) corner(*rf.hi(), *rg.hi(), 1);
    if (rf.lo() && rg.hi()) corner(*rf.lo(), *rg.hi(), -1);
    if (rf.hi() && rg.lo()) corner(*rf.hi(), *rg.lo(), -1);
  }

  Linear linearize(const ex& e, bool may_expand = true) {
    if (detail::is_exactly<GiNaC::numeric>(e)) {
      if (!is_rational(e)) throw Error("prove: a non-rational constant");
      Linear l;
      l.constant = rational_of(e);
      return l;
    }
    if (detail::is_exactly<GiNaC::symbol>(e)) return Linear::of(symbol_var(e));
    if (detail::is_exactly<GiNaC::add>(e)) {
      Linear l;
      for (size_t i = 0; i < e.nops(); ++i) l.add(linearize(e.op(i), may_expand), 1);
      return l;
    }
    if (detail::is_exactly<GiNaC::mul>(e)) {
      Rat k = 1;
      ex rest = 1;
      size_t factors = 0;
      bool has_sum = false, has_negative = false;
      for (size_t i = 0; i < e.nops(); ++i) {
        const ex& f = e.op(i);
        if (is_rational(f)) {
          k = k * rational_of(f);
          continue;
        }
        rest = rest * f;
        ++factors;
        has_sum = has_sum || detail::is_exactly<GiNaC::add>(f) || is_sum_power(f);
        has_negative = has_negative || is_negative_power(f);
      }
      Linear l;
      if (factors == 0) {
        l.constant = k;
      } else if (factors == 1) {
        l.add(linearize(rest, may_expand), k);
      } else if (may_expand && has_sum && !has_negative && expanded_terms(e) <= kMaxExpandedTerms) {
        // (a + 1)*b is a*b + b: the product becomes an atom, b stays linear.
        return linearize(e.expand(), false);
      } else {
        l.add(Linear::of(atom_var(rest)), k);
      }
      return l;
    }
    if (may_expand && is_sum_power(e) && expanded_terms(e) <= kMaxExpandedTerms) {
      return linearize(e.expand(), false);
    }
    return Linear::of(atom_var(e));
  }

  // ---- facts ----

  void add_assumption(const Cond& c) {
    // Disjunctions are left out, and `!=` facts past the first few: ignoring a fact is sound.
    if (c.kind() != Cond::Kind::Rel) return;
    if (c.op() == RelOp::Ne && disequalities_ >= kMaxDisequalities) return;
    try {
      Linear d = linearize(c.lhs().ex()) - linearize(c.rhs().ex());
      if (c.op() == RelOp::Ne) {
        // d != 0: d < 0 or d > 0.
        ++disequalities_;
        splits_.push_back(Split{{{d, RelOp::Lt}, {d, RelOp::Gt}}, -1, false, std::nullopt});
      } else {
        facts_rel_.push_back({std::move(d), c.op()});
      }
    } catch (const Error&) {
    }
  }

  // Whether the constraints have no integer solution under every split from `from` on (a `!=`
  // fact, or a max / min atom equal to one of its arguments): the system is refuted when it is
  // without the split, or else when it is on both of its sides.
  // The first `facts` constraints of cs are facts (which fact_bounds_ was propagated from).
  bool refute_split(std::vector<detail::LinearConstraint>& cs, size_t facts,
                    const std::vector<const Split*>& splits, size_t from) {
    if (from == splits.size()) {
      return detail::refute(cs, integer_, {}, nullptr, fact_bounds_.get(), facts);
    }
    std::vector<int64_t> point;
    // Refuted without the remaining splits: they are not needed.
    if (detail::refute(cs, integer_, {}, &point, fact_bounds_.get(), facts)) return true;
    // A solution that takes a side of every remaining split solves one of the systems below.
    if (!point.empty() && std::all_of(splits.begin() + static_cast<long>(from), splits.end(),
                                      [&](const Split* split) {
                                        return holds_at(split->sides[0], point) ||
                                               holds_at(split->sides[1], point);
                                      })) {
      return false;
    }
    // Each side in turn, appended to cs and taken off again.
    const size_t size = cs.size();
    for (const auto& [d, op] : splits[from]->sides) {
      const bool refuted = append(d, op, cs) && refute_split(cs, facts, splits, from + 1);
      cs.resize(size);
      if (!refuted) return false;
    }
    return true;
  }

  // Whether a constraint beyond the atom's two definitions pushes a max atom up (a min atom
  // down), so that splitting it into its arguments can matter.
  bool needs_split(const Split& split, const std::vector<detail::LinearConstraint>& cs) const {
    const int at = position_[split.atom];
    size_t pushing = 0;
    for (const detail::LinearConstraint& c : cs) {
      if (c.terms.size() == 1 && c.terms[0].first == at && !c.equality && split.known) {
        // a*m + k >= 0: the atom's own bound (max: m >= -k/a; min: m <= k/-a) is no push.
        const int64_t a = c.terms[0].second;
        if (split.is_max && a > 0 && Int(-c.constant) <= *split.known * a) continue;
        if (!split.is_max && a < 0 && Int(c.constant) >= *split.known * -a) continue;
      }
      for (const auto& [v, a] : c.terms) {
        if (v == at && (c.equality || (a > 0) == split.is_max)) ++pushing;
      }
    }
    return pushing > 2;
  }

  // Whether `d op 0` holds at a point of the linear system (values by position; a variable the
  // system does not use has any value, 0 here).
  bool holds_at(const std::pair<Linear, RelOp>& side, const std::vector<int64_t>& point) const {
    Rat value = side.first.constant;
    for (const auto& [v, a] : side.first.terms) {
      const size_t at = static_cast<size_t>(position_[v]);
      if (at < point.size()) value = value + a * Int(point[at]);
    }
    return relation_holds(value, side.second);
  }

  // The variables (by position) that the goal's constraints reach through the facts' shared
  // variables, the `!=` facts included.
  std::vector<bool> reach(const std::vector<detail::LinearConstraint>& goal) const {
    const size_t n = vars_.size();
    std::vector<size_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = i;
    auto root = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto join = [&](size_t a, size_t b) { parent[root(a)] = root(b); };
    for (const detail::LinearConstraint& c : base_) {
      for (size_t i = 1; i < c.terms.size(); ++i)
        join(static_cast<size_t>(c.terms[0].first), static_cast<size_t>(c.terms[i].first));
    }
    for (const Split& split : splits_) {
      const Linear& d = split.sides[0].first;
      for (size_t i = 1; i < d.terms.size(); ++i) {
        join(static_cast<size_t>(position_[d.terms[0].first]),
             static_cast<size_t>(position_[d.terms[i].first]));
      }
    }
    std::vector<bool> goal_root(n, false);
    for (const detail::LinearConstraint& c : goal) {
      for (const auto& [v, a] : c.terms) goal_root[root(static_cast<size_t>(v))] = true;
    }
    std::vector<bool> out(n, false);
    for (size_t i = 0; i < n; ++i) out[i] = goal_root[root(i)];
    return out;
  }

  void add_divisibility(const Divisibility& fact) {
    if (fact.dividend.is_symbol() || !fact.divisor.is_constant()) return;  // the former: symbol_var
    Int c = cln::abs(*fact.divisor.constant());
    if (c <= 1) return;
    try {
      Linear d = linearize(fact.dividend.ex());
      d.add(Linear::of(new_var(fact.dividend.ex(), kWitness, true), -c), 1);  // p == c*k
      facts_rel_.push_back({std::move(d), RelOp::Eq});
    } catch (const Error&) {
    }
  }

  // Breadth-first from the goal's symbols, layer by layer in name order, so that the cost (and
  // the facts kept under the cap) depend only on what is connected to the goal.
  void collect_facts() {
    std::set<size_t> assumptions, divisibility;
    while (!pending_.empty()) {
      std::vector<std::string> layer = std::move(pending_);
      pending_.clear();
      std::sort(layer.begin(), layer.end());
      for (const std::string& name : layer) {
        for (size_t i : facts_.divisibility_mentioning(name)) {
          if (divisibility.insert(i).second) add_divisibility(facts_.divisibility()[i]);
        }
        for (size_t i : facts_.assumptions_mentioning(name)) {
          if (assumptions.count(i)) continue;
          if (assumptions.size() >= kMaxAssumptions) {
            limit_hit = true;  // a connected fact left out
            return;
          }
          assumptions.insert(i);
          add_assumption(facts_.assumptions()[i]);
        }
      }
    }
  }

  // Orders the variables canonically (so that answers do not depend on GiNaC's hash order) and
  // converts the facts to integer constraints.
  void finish() {
    place(0);
    for (const Relation& r : facts_rel_) append(r.d, r.op, base_);  // an unfit fact is dropped
  }

  // Gives the variables from `from` on their positions, after those of the earlier ones.
  void place(size_t from) {
    std::vector<int> order(vars_.size() - from);
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(from + i);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      const Var& a = vars_[x];
      const Var& b = vars_[y];
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.rank == kSymbol) {
        return GiNaC::ex_to<GiNaC::symbol>(a.key).get_name() <
               GiNaC::ex_to<GiNaC::symbol>(b.key).get_name();
      }
      return canonical_compare(a.key, b.key) < 0;
    });
    position_.resize(vars_.size(), 0);
    integer_.resize(vars_.size(), false);
    for (size_t i = 0; i < order.size(); ++i) {
      position_[order[i]] = static_cast<int>(from + i);
      integer_[from + i] = vars_[order[i]].integer;
    }
  }

  // The range of the integer value d over the gathered constraints (nullopt: no solution).
  std::optional<ValueRange> project_linear(const Linear& d) const {
    Int scale = cln::denominator(d.constant);
    for (const auto& [v, a] : d.terms) scale = cln::lcm(scale, cln::denominator(a));
    auto fit = [&](const Rat& x) -> std::optional<int64_t> {
      auto v = to_int64(cln::the<Int>(x * scale));
      if (!v || *v > detail::kLinearLimit || *v < -detail::kLinearLimit) return std::nullopt;
      return v;
    };
    // t - scale*d == 0, t a new integer variable after every other.
    const int t = static_cast<int>(vars_.size());
    detail::LinearConstraint c;
    c.equality = true;
    for (const auto& [v, a] : d.terms) {
      auto x = fit(a);
      if (!x) return ValueRange::all();
      c.terms.emplace_back(position_[static_cast<size_t>(v)], -*x);
    }
    auto k = fit(d.constant);
    if (!k) return ValueRange::all();
    c.constant = -*k;
    c.terms.emplace_back(t, 1);
    std::sort(c.terms.begin(), c.terms.end());
    std::vector<detail::LinearConstraint> cs = base_;
    cs.push_back(std::move(c));
    std::vector<bool> integer = integer_;
    integer.resize(vars_.size() + 1, false);
    integer[static_cast<size_t>(t)] = true;
    detail::LinearLimits limits;
    limits.max_constraints = kMaxProjectionConstraints;
    auto p = detail::project(std::move(cs), integer, t, limits);
    if (!p) return std::nullopt;
    std::optional<Int> lo, hi;  // d == t/scale, an integer: rounded inward
    if (p->lo) lo = cln::ceiling1(Int(*p->lo), scale);
    if (p->hi) hi = cln::floor1(Int(*p->hi), scale);
    return ValueRange(lo, hi);
  }

  // Appends `d op 0` as an integer constraint; false when its numbers do not fit.
  bool append(const Linear& d, RelOp op, std::vector<detail::LinearConstraint>& out) const {
    if (op == RelOp::Ne) return true;
    // Scale fractions (exact quotients) away; most relations have integer coefficients.
    Int scale = 1;
    bool integral = true;
    Int den = cln::denominator(d.constant);
    if (den != 1) scale = den;
    for (const auto& [v, a] : d.terms) {
      den = cln::denominator(a);
      if (den != 1) scale = cln::lcm(scale, den);
      integral = integral && vars_[v].integer;
    }
    // A strict relation over integer values gains 1; over rationals it is relaxed (sound).
    bool flip = op == RelOp::Lt || op == RelOp::Le;
    int64_t strict = (op == RelOp::Lt || op == RelOp::Gt) && integral ? 1 : 0;
    auto fit = [&](const Rat& x) -> std::optional<int64_t> {
      Int y = scale == 1 ? cln::the<Int>(x) : cln::the<Int>(x * scale);
      auto v = to_int64(y);
      if (!v || *v > detail::kLinearLimit || *v < -detail::kLinearLimit) return std::nullopt;
      return flip ? -*v : *v;
    };
    detail::LinearConstraint c;
    c.equality = op == RelOp::Eq;
    c.terms.reserve(d.terms.size());
    for (const auto& [v, a] : d.terms) {
      auto x = fit(a);
      if (!x) return false;
      c.terms.emplace_back(position_[v], *x);
    }
    auto k = fit(d.constant);
    if (!k) return false;
    c.constant = *k - strict;
    std::sort(c.terms.begin(), c.terms.end());
    out.push_back(std::move(c));
    return true;
  }

  const Facts& facts_;
  std::vector<Var> vars_;
  std::unordered_multimap<unsigned, int> index_;
  std::set<std::string> followed_;
  std::vector<std::string> pending_;
  std::vector<Linear> goal_;
  std::vector<Relation> facts_rel_;
  // Disjunctions the linear system splits on when needed: `d != 0` facts, and max / min atoms.
  std::vector<Split> splits_;
  size_t disequalities_ = 0;
  std::vector<int> position_;
  std::vector<bool> integer_;
  std::vector<detail::LinearConstraint> base_;
  // Bounds propagated from the first bounded_facts_ constraints of base_ (every fact; a goal's
  // atoms add their definitions after them). Prototypes only.
  std::shared_ptr<const detail::VariableBounds> fact_bounds_;
  size_t bounded_facts_ = 0;
};

// An assumed `p != q` decides the goals `d != 0` and `d == 0` for d == p - q or d == q - p (the
// linear tier leaves `!=` facts out, as they are disjunctions).
Truth by_assumed_inequality(const Cond& rel, const Facts& facts) {
  if (rel.op() != RelOp::Eq && rel.op() != RelOp::Ne) return Truth::Unknown;
  std::vector<std::string> names = rel.free_symbols();
  if (names.empty()) return Truth::Unknown;
  ex d = (rel.lhs().ex() - rel.rhs().ex()).expand();
  for (size_t i : facts.assumptions_mentioning(names.front())) {
    const Cond& a = facts.assumptions()[i];
    if (a.kind() != Cond::Kind::Rel || a.op() != RelOp::Ne) continue;
    ex fd = (a.lhs().ex() - a.rhs().ex()).expand();
    if ((d - fd).expand().is_zero() || (d + fd).expand().is_zero()) {
      return rel.op() == RelOp::Ne ? Truth::True : Truth::False;
    }
  }
  return Truth::Unknown;
}

// The prover of the last facts seen on this thread with every fact gathered, made on the second
// decision under the same facts (one decision alone gathers only what it needs): decisions under
// unchanged facts then only linearize their goal.
struct PrototypeCache {
  uint64_t identity = 0, version = 0;
  int decisions = 0;
  std::shared_ptr<const LinearProver> prover;
};

std::shared_ptr<const LinearProver> prototype_for(const Facts& facts) {
  thread_local PrototypeCache cache;
  if (cache.identity != facts.identity() || cache.version != facts.version())
    cache = PrototypeCache{facts.identity(), facts.version(), 0, nullptr};
  if (cache.prover || ++cache.decisions < 2) return cache.prover;
  auto prover = std::make_shared<LinearProver>(facts);
  const bool was_hit = limit_hit;
  if (prover->prepare_facts()) {
    cache.prover = std::move(prover);
  } else {
    limit_hit = was_hit;  // gathering all facts is this cache's business, not the decision's
    cache.decisions = std::numeric_limits<int>::min();  // too many facts: never again for these
  }
  return cache.prover;
}

// The linear system of the facts and the goal.
LinearProver prover_for(const Facts& facts, const Cond& goal) {
  if (std::shared_ptr<const LinearProver> prototype = prototype_for(facts)) {
    LinearProver p = *prototype;
    p.prepare_on_prototype(goal);
    return p;
  }
  LinearProver p(facts);
  p.prepare(goal);
  return p;
}

class Decider {
 public:
  explicit Decider(const Facts& facts) : facts_(facts) {}

  Truth decide(const Cond& c) {
    switch (c.kind()) {
      case Cond::Kind::True: return Truth::True;
      case Cond::Kind::False: return Truth::False;
      case Cond::Kind::Rel: {
        if (std::optional<Truth> t = by_differences(c, facts_)) return *t;
        Truth t = by_ranges(c, facts_);
        if (t != Truth::Unknown) return t;
        t = by_assumed_inequality(c, facts_);
        if (t != Truth::Unknown) return t;
        LinearProver p = prover_for(facts_, c);
        if (p.refutes(c, true)) return Truth::True;
        if (p.refutes(c, false)) return Truth::False;
        return Truth::Unknown;
      }
      case Cond::Kind::And:
      case Cond::Kind::Or: {
        // And: one false operand decides, all true decide; Or is the dual.
        const bool is_and = c.kind() == Cond::Kind::And;
        const Truth absorbing = is_and ? Truth::False : Truth::True;
        bool all_neutral = true;
        for (const Cond& o : c.operands()) {
          Truth t = decide(o);
          if (t == absorbing) return t;
          if (t != negate(absorbing)) all_neutral = false;
        }
        if (all_neutral) return negate(absorbing);
        // Jointly: `a and b` can be false (and `a or b` true) though no operand decides alone.
        LinearProver p = prover_for(facts_, c);
        return p.refutes(c, !is_and) ? absorbing : Truth::Unknown;
      }
    }
    return Truth::Unknown;
  }

 private:
  const Facts& facts_;
};

}  // namespace

namespace {

// c mentions a floor division, a modulo or a ceiling division (divisions: true), or a max or a
// min (divisions: false): the calls that simplify() may reduce under the facts.
bool has_call(const Cond& c, bool divisions) {
  auto in = [divisions](const ex& e) {
    for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it) {
      Fn f = function_of(*it);
      bool division = f == Fn::FloorDiv || f == Fn::Mod || f == Fn::CeilDiv;
      if (divisions ? division : (f == Fn::Max || f == Fn::Min)) return true;
    }
    return false;
  };
  switch (c.kind()) {
    case Cond::Kind::True:
    case Cond::Kind::False: return false;
    case Cond::Kind::Rel: return in(c.lhs().ex()) || in(c.rhs().ex());
    case Cond::Kind::And:
    case Cond::Kind::Or:
      for (const Cond& o : c.operands()) {
        if (has_call(o, divisions)) return true;
      }
      return false;
  }
  return false;
}

// A max / min goal is simplified (each argument order asked of the linear tier) only under this
// many assumptions: under 20 it took a millisecond, twenty times a plain decision.
constexpr size_t kMaxAssumptionsToSimplifyMinMax = 8;

}  // namespace

namespace detail {
ValueRange linear_range(const Expr& e, const Facts& facts) {
  const bool was_hit = limit_hit;
  try {
    LinearProver p(facts);
    ValueRange r = p.range_of(e.ex());
    limit_hit = was_hit;
    return r;
  } catch (const std::exception&) {
    limit_hit = was_hit;
    return ValueRange::all();
  }
}
bool& inside_simplify() {
  thread_local bool inside = false;
  return inside;
}
void reset_prove_limit() { limit_hit = false; }
bool prove_limit_hit() { return limit_hit; }

std::optional<Truth> decide_difference(const Facts& facts, RelOp op, const std::string* plus,
                                       const std::string* minus, const Int& k, bool pairwise) {
  Facts::DifferenceRange r = plus ? facts.difference_range(*plus, minus ? *minus : "")
                                  : facts.difference_range(*minus, "");
  if (r.range.is_empty()) return std::nullopt;
  ValueRange range = (plus ? r.range : -r.range) + ValueRange::point(k);
  // The goal's value is D + k with D == x - y (the pair's order in the disequality index):
  // each excluded value of D is excluded from the goal's value, and an excluded end of the range
  // moves inward.
  const std::string& a = plus ? *plus : *minus;
  const std::string b = plus && minus ? *minus : std::string();
  const bool swapped = !b.empty() && b < a;
  const std::vector<Int>& excluded =
      swapped ? facts.excluded_differences(b, a) : facts.excluded_differences(a, b);
  std::vector<Int> values;  // excluded values of the goal's left side d (d op 0)
  for (const Int& v : excluded) {
    const Int d = swapped ? -v : v;  // a value of a - b
    values.push_back((plus ? d : -d) + k);
  }
  if (!values.empty()) {
    std::sort(values.begin(), values.end());
    while (range.lo() && std::binary_search(values.begin(), values.end(), *range.lo()) &&
           (!range.hi() || *range.lo() < *range.hi())) {
      range = ValueRange(*range.lo() + 1, range.hi());
    }
    while (range.hi() && std::binary_search(values.begin(), values.end(), *range.hi()) &&
           (!range.lo() || *range.lo() < *range.hi())) {
      range = ValueRange(range.lo(), *range.hi() - 1);
    }
    if (range.is_point() && std::binary_search(values.begin(), values.end(), *range.lo())) {
      return std::nullopt;  // every value excluded: the facts contradict; the prover says so
    }
    if (std::binary_search(values.begin(), values.end(), Int(0))) {
      if (op == RelOp::Eq) return Truth::False;
      if (op == RelOp::Ne) return Truth::True;
    }
  }
  Truth t = decide_range(op, range, true);
  if (t != Truth::Unknown || r.exact || (pairwise && r.exact_pairwise)) return t;
  return std::nullopt;
}

}  // namespace detail

Truth prove(const Cond& c, const Facts& facts) {
  try {
    Decider decider(facts);
    Truth t = decider.decide(c);
    if (t != Truth::Unknown) return t;
    // The assumed equalities rewritten in: given p == h*w, p % h == 0 is h*w % h == 0.
    Cond goal = facts.substitute(c);
    if (!goal.identical(c)) {
      if (goal.is_true() || goal.is_false()) return goal.is_true() ? Truth::True : Truth::False;
      t = decider.decide(goal);
      if (t != Truth::Unknown) return t;
    }
    if (detail::inside_simplify()) return t;
    if (!has_call(goal, true) &&
        !(has_call(goal, false) && facts.assumptions().size() <= kMaxAssumptionsToSimplifyMinMax)) {
      return t;
    }
    // Both sides simplified under the facts may be decided where they were not: s0//(s0//2) == 2
    // for an even s0 is 2 == 2 once the division is exact; max(a, b) == b for a <= b.
    Cond s = simplify(c, facts);
    if (s.is_true()) return Truth::True;
    if (s.is_false()) return Truth::False;
    return s.identical(c) || s.identical(goal) ? t : decider.decide(s);
  } catch (const std::exception&) {
    // Whatever the engine cannot analyse (an unexpected expression form) is simply unknown.
    return Truth::Unknown;
  }
}

}  // namespace symshape
