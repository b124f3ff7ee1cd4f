// The rules for max and min: nested calls flattened, constant arguments merged, repeated ones
// removed, and an argument that another one provably dominates dropped. Near-linear in the
// number of arguments: ranges settle dominance in one pass over the arguments sorted by bound,
// `r + c` beats `r + c'` by its constant alone, and prove() is asked only about arguments that
// share a symbol (directly or through a fact), since unrelated ones are settled by their ranges.
#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "symshape/expr/functions.h"
#include "symshape/simplify/simplifier.h"

namespace symshape::detail {

namespace {

// Whether x dominates y (x >= y for max, x <= y for min) at every point: ranges first, then
// prove(). False means y strictly dominates x.
Truth dominates(Simplifier& s, Fn f, const ex& x, const ex& y) {
  ValueRange rx = s.range(x), ry = s.range(y);
  const ValueRange& hi_side = f == Fn::Max ? rx : ry;  // should be the larger
  const ValueRange& lo_side = f == Fn::Max ? ry : rx;
  if (hi_side.lo() && lo_side.hi() && *hi_side.lo() >= *lo_side.hi()) return Truth::True;
  if (hi_side.hi() && lo_side.lo() && *hi_side.hi() < *lo_side.lo()) return Truth::False;
  // Two distinct exactly-ranged atoms take their values independently: the ranges said it all.
  if (s.range_is_exact(x) && s.range_is_exact(y)) return Truth::Unknown;
  return s.decide(f == Fn::Max ? RelOp::Ge : RelOp::Le, x, y);
}

// Rule: drop every argument whose range lies wholly on the losing side of the best guaranteed
// value (max: hi <= the largest lo; min: lo >= the smallest hi). The argument that guarantees
// that value is kept (of several, the one that reaches furthest: max(x, 1) is x for x >= 1).
// args keeps the survivors, in order.
void drop_dominated_by_range(Simplifier& s, Fn f, std::vector<ex>& args) {
  std::optional<Int> best;
  size_t best_index = 0;
  // The arguments' ranges, in place for the few arguments most calls have.
  std::array<ValueRange, 4> few;
  std::vector<ValueRange> many(args.size() > few.size() ? args.size() : 0);
  ValueRange* ranges = many.empty() ? few.data() : many.data();
  // Whether a reaches further than b (nullopt: infinitely far).
  auto further = [&](const std::optional<Int>& a, const std::optional<Int>& b) {
    if (!b) return false;
    return !a || (f == Fn::Max ? *a > *b : *a < *b);
  };
  auto reach = [&](size_t i) -> const std::optional<Int>& {
    return f == Fn::Max ? ranges[i].hi() : ranges[i].lo();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    ranges[i] = s.range(args[i]);
    const std::optional<Int>& guaranteed = f == Fn::Max ? ranges[i].lo() : ranges[i].hi();
    if (!guaranteed) continue;
    if (!best || (f == Fn::Max ? *guaranteed > *best : *guaranteed < *best) ||
        (*guaranteed == *best && further(reach(i), reach(best_index)))) {
      best = guaranteed;
      best_index = i;
    }
  }
  if (!best) return;  // nothing is guaranteed, so nothing is beaten
  size_t kept = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::optional<Int>& r = reach(i);
    bool beaten = i != best_index && r && (f == Fn::Max ? *r <= *best : *r >= *best);
    if (beaten) continue;
    if (kept != i) args[kept] = std::move(args[i]);
    ++kept;
  }
  args.resize(kept);
}

// The pairs of two sums, equal one for one (both in GiNaC's canonical order).
bool same_pairs(const GiNaC::epvector& a, const GiNaC::epvector& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const GiNaC::expair& x, const GiNaC::expair& y) { return x.is_equal(y); });
}

// Whether the distinct arguments a and b have the same non-constant part, a_constant (b_constant)
// saying that a (b) is a sum with a nonzero integer constant: read on their pairs, the part being
// built only to compare a one-term part k*t (k != 1) with a product.
bool same_non_constant_part(const ex& a, bool a_constant, const ex& b, bool b_constant) {
  if (!a_constant && !b_constant) return false;  // each is its own part, and they differ
  if (a_constant && b_constant) return same_pairs(PairsOf::pairs(a), PairsOf::pairs(b));
  const ex& sum = a_constant ? a : b;  // the one with a constant
  const ex& other = a_constant ? b : a;
  const GiNaC::epvector& pairs = PairsOf::pairs(sum);
  if (pairs.size() >= 2) {
    return is_add(other) && PairsOf::overall(other).is_zero() &&
           same_pairs(pairs, PairsOf::pairs(other));
  }
  const GiNaC::expair& term = pairs[0];
  if (term.coeff.is_equal(1)) return other.is_equal(term.rest);
  return is_mul(other) && PairsOf::overall(other).is_equal(term.coeff) &&
         other.is_equal(term.rest * term.coeff);
}

// Up to this many arguments, drop_dominated_by_constant compares them pair by pair instead of
// building each one's non-constant part to look it up.
constexpr size_t kComparedPairwise = 16;

// drop_dominated_by_constant by comparing the arguments pair by pair: an argument stays when no
// other with the same non-constant part has a better constant (c == 0 for none).
template <class ConstantTerm>
void keep_best_by_constant_pairwise(Fn f, std::vector<ex>& args,
                                    const ConstantTerm& constant_term) {
  const size_t n = args.size();
  std::vector<std::optional<Int>> constant(n);
  for (size_t i = 0; i < n; ++i) constant[i] = constant_term(args[i]);
  auto value = [&](size_t i) { return constant[i] ? *constant[i] : Int(0); };
  std::vector<bool> beaten(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (is_number(args[i])) continue;  // no sum with a constant has a number for its part
    for (size_t j = i + 1; j < n; ++j) {
      if (is_number(args[j]) || !same_non_constant_part(args[i], constant[i].has_value(), args[j],
                                                        constant[j].has_value())) {
        continue;
      }
      // The later one wins only when strictly better (the first best is kept).
      const bool j_better = f == Fn::Max ? value(j) > value(i) : value(j) < value(i);
      (j_better ? beaten[i] : beaten[j]) = true;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (beaten[i]) continue;
    if (kept != i) args[kept] = std::move(args[i]);
    ++kept;
  }
  args.resize(kept);
}

// Rule: of arguments `r + c` with the same non-constant part r, only the largest (max) or
// smallest (min) constant c can win.
void drop_dominated_by_constant(Fn f, std::vector<ex>& args) {
  // A sum keeps its constant term last (GiNaC's overall coefficient).
  auto constant_term = [](const ex& a) -> std::optional<Int> {
    if (!is_add(a)) return std::nullopt;
    const ex& last = PairsOf::overall(a);  // 0 when a has none (no other term is a number)
    if (last.is_zero() || !is_integer(last)) return std::nullopt;
    return int_of(last);
  };
  // The arguments are distinct: two share their non-constant part only when one has a constant
  // and both have as many non-constant terms (a number shares it with none). Most calls have a
  // sum with a constant among at least two non-numbers.
  if (std::count_if(args.begin(), args.end(), [](const ex& a) { return !is_number(a); }) < 2 ||
      std::none_of(args.begin(), args.end(),
                   [&](const ex& a) { return constant_term(a).has_value(); })) {
    return;
  }
  std::vector<std::pair<size_t, bool>> shapes;  // (non-constant terms, has a constant)
  shapes.reserve(args.size());
  for (const ex& a : args) {
    if (is_number(a)) continue;
    const bool constant = constant_term(a).has_value();
    shapes.emplace_back(is_add(a) ? a.nops() - (constant ? 1 : 0) : 1, constant);
  }
  std::sort(shapes.begin(), shapes.end());
  bool may_share = false;
  for (size_t i = 1; i < shapes.size() && !may_share; ++i) {
    // Sorted, so a run of equal counts ends with its members that have a constant.
    may_share = shapes[i].first == shapes[i - 1].first && shapes[i].second;
  }
  if (!may_share) return;
  if (args.size() <= kComparedPairwise) {
    keep_best_by_constant_pairwise(f, args, constant_term);
    return;
  }
  struct Split {
    ex rest;
    Int c;
  };
  std::vector<Split> split;
  GiNaC::exhashmap<size_t> best_of_rest;  // rest -> index of its best argument
  for (size_t i = 0; i < args.size(); ++i) {
    Int c = 0;
    ex rest = args[i];
    if (std::optional<Int> k = constant_term(args[i])) {
      c = *k;
      // The non-constant terms, without subtracting (which evaluates a second sum).
      rest = GiNaC::dynallocate<GiNaC::add>(PairsOf::pairs(args[i]), ex(0));
    }
    split.push_back({rest, c});
    auto [it, fresh] = best_of_rest.emplace(rest, i);
    if (!fresh && (f == Fn::Max ? c > split[it->second].c : c < split[it->second].c))
      it->second = i;
  }
  size_t kept = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (best_of_rest.find(split[i].rest)->second != i) continue;
    if (kept != i) args[kept] = std::move(args[i]);
    ++kept;
  }
  args.resize(kept);
}

// A symbol's name, read in place (symbol::get_name() returns a copy).
struct SymbolName : GiNaC::symbol {
  static std::string_view of(const ex& e) {
    const GiNaC::symbol& x = GiNaC::ex_to<GiNaC::symbol>(e);
    const std::string& name = x.*(&SymbolName::name);
    if (name.empty()) (void)x.get_name();  // GiNaC names an unnamed symbol on first request
    return name;
  }
};

// The first index seen with each key: a short list searched in order while it holds a few keys,
// a hash table beyond (so that a long max / min stays near-linear).
template <class Key>
class FirstSeen {
 public:
  // The index first seen with key: i when key is new.
  size_t emplace(const Key& key, size_t i) {
    if (!table_.empty()) return table_.emplace(key, i).first->second;
    for (const auto& [k, first] : list_) {
      if (k == key) return first;
    }
    list_.emplace_back(key, i);
    if (list_.size() > kListed) table_.insert(list_.begin(), list_.end());
    return i;
  }

 private:
  static constexpr size_t kListed = 16;
  std::vector<std::pair<Key, size_t>> list_;
  std::unordered_map<Key, size_t> table_;
};

// Arguments that may be related beyond their ranges: they share a symbol, or their symbols meet
// in an assumption or a divisibility fact. `root` names each argument's group; `order` lists the
// arguments group by group (the groups in the order of their roots, each in index order). Empty
// when no two arguments are related (as when fewer than two hold a symbol: a number is related
// to nothing).
struct RelatedGroups {
  std::vector<size_t> order, root;
};
RelatedGroups related_groups(const Facts& facts, const std::vector<ex>& args) {
  RelatedGroups out;
  if (std::count_if(args.begin(), args.end(), [](const ex& a) { return !is_number(a); }) < 2) {
    return out;
  }
  std::vector<size_t>& parent = out.root;
  parent.resize(args.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // The first argument seen with each symbol (by name, as the facts know them; the names live
  // in args' symbols), assumption and divisibility fact.
  FirstSeen<std::string_view> by_symbol;
  FirstSeen<size_t> by_assumption, by_divisibility;
  auto join = [&](auto& table, const auto& key, size_t i) {
    if (size_t first = table.emplace(key, i); first != i) parent[find(i)] = find(first);
  };
  const bool facts_relate = !facts.assumptions().empty() || !facts.divisibility().empty();
  std::vector<ex> todo;
  for (size_t i = 0; i < args.size(); ++i) {
    todo.assign(1, args[i]);
    while (!todo.empty()) {  // every symbol of args[i], by a walk (no sorted list of names)
      const ex x = std::move(todo.back());
      todo.pop_back();
      if (is_add(x) || is_mul(x)) {
        // A sum's or product's symbols are in its pairs' rests (coefficients and exponents are
        // numbers), read in place.
        for (const GiNaC::expair& p : PairsOf::pairs(x)) todo.push_back(p.rest);
        continue;
      }
      if (!is_symbol(x)) {
        for (size_t k = 0; k < x.nops(); ++k) todo.push_back(x.op(k));
        continue;
      }
      const std::string_view name = SymbolName::of(x);
      join(by_symbol, name, i);
      if (!facts_relate) continue;
      for (size_t a : facts.assumptions_mentioning(name)) join(by_assumption, a, i);
      for (size_t d : facts.divisibility_mentioning(name)) join(by_divisibility, d, i);
    }
  }
  bool joined = false;
  for (size_t i = 0; i < args.size(); ++i) {
    out.root[i] = find(i);
    joined = joined || out.root[i] != i;
  }
  if (!joined) {  // every argument is alone in its group: no two to compare
    out.root.clear();
    return out;
  }
  out.order.resize(args.size());
  std::iota(out.order.begin(), out.order.end(), 0);
  std::stable_sort(out.order.begin(), out.order.end(),
                   [&](size_t x, size_t y) { return out.root[x] < out.root[y]; });
  return out;
}

// e is f(...f(f(args[0], args[1]), args[2])..., args[n - 1]) (n >= 2).
bool is_left_nest(const ex& e, Fn f, const std::vector<ex>& args) {
  ex node = e;
  for (size_t i = args.size() - 1; i > 0; --i) {
    if (call_of(node) != f || !node.op(1).is_equal(args[i])) return false;
    node = node.op(0);
  }
  return node.is_equal(args[0]);
}

}  // namespace

ex minmax_rules(Simplifier& s, Fn f, const ex& e) {
  std::vector<ex> kept;
  flatten_calls(e, f, kept);
  // Rule: constant arguments merge into the largest (max) or smallest (min) one.
  std::optional<Int> best;
  size_t n = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!is_integer(kept[i])) {
      if (n != i) kept[n] = std::move(kept[i]);
      ++n;
      continue;
    }
    Int v = int_of(kept[i]);
    if (!best || (f == Fn::Max ? v > *best : v < *best)) best = v;
  }
  kept.resize(n);
  if (best) kept.push_back(ex_of(*best));
  // Rule: repeated arguments count once. The canonical order makes the result deterministic.
  std::sort(kept.begin(), kept.end(),
            [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
  kept.erase(
      std::unique(kept.begin(), kept.end(), [](const ex& a, const ex& b) { return a.is_equal(b); }),
      kept.end());
  drop_dominated_by_range(s, f, kept);
  drop_dominated_by_constant(f, kept);
  if (kept.size() == 1) return kept[0];
  // Rule: drop an argument another one of its group dominates, max(x + 1, 2*x) == 2*x when
  // x >= 1.
  const RelatedGroups related = related_groups(s.facts(), kept);
  const std::vector<size_t>& order = related.order;
  std::vector<bool> dropped(order.empty() ? 0 : kept.size(), false);
  for (size_t begin = 0, end = 0; begin < order.size(); begin = end) {
    // The group order[begin, end).
    end = begin + 1;
    while (end < order.size() && related.root[order[end]] == related.root[order[begin]]) ++end;
    for (size_t gi = begin; gi < end; ++gi) {
      size_t i = order[gi];
      for (size_t gj = gi + 1; gj < end && !dropped[i]; ++gj) {
        size_t j = order[gj];
        if (dropped[j]) continue;
        Truth t = dominates(s, f, kept[i], kept[j]);
        if (t == Truth::True) {
          dropped[j] = true;
        } else if (t == Truth::False || dominates(s, f, kept[j], kept[i]) == Truth::True) {
          dropped[i] = true;
        }
      }
    }
  }
  // The arguments left (kept itself when none was compared).
  std::vector<ex>& live = kept;
  if (!order.empty()) {
    size_t n = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (dropped[i]) continue;
      if (n != i) kept[n] = std::move(kept[i]);
      ++n;
    }
    kept.resize(n);
  }
  if (live.size() == 1) return live[0];
  // The arguments are distinct and at most one is a constant, so f's eval holds each call
  // f(x, y) as written: e is the result when it already is that left-nested call.
  if (is_left_nest(e, f, live)) return e;
  ex out = live[0];
  for (size_t i = 1; i < live.size(); ++i) out = apply(f, Expr(out), Expr(live[i])).ex();
  return out;
}

}  // namespace symshape::detail
