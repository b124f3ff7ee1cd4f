// Fourier–Motzkin elimination over the integers: equalities are substituted away first, then
// one variable at a time is eliminated from the inequalities. Every constraint whose variables
// are all integers is tightened by its gcd (sum(a*x) >= k becomes sum(a/g*x) >= ceil(k/g)),
// which is what lets the method see that 2*x == 1 or 2*x >= 1, 2*x <= 1 has no integer solution.
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "symshape/prove/linear.h"

namespace symshape::detail {

namespace {

// Every stored number stays within this magnitude, so that negation and abs never overflow and
// a product of two of them fits __int128.
constexpr int64_t kLimit = kLinearLimit;

enum class Status { Keep, Drop, Contradiction };

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

// p*x + q*y, or nullopt when it leaves [-kLimit, kLimit].
std::optional<int64_t> mul_add(int64_t p, int64_t x, int64_t q, int64_t y) {
  __int128 v = static_cast<__int128>(p) * x + static_cast<__int128>(q) * y;
  if (v > kLimit || v < -kLimit) return std::nullopt;
  return static_cast<int64_t>(v);
}

// p*a + q*b (term-wise), keeping a's kind (equality or not).
std::optional<LinearConstraint> combine(int64_t p, const LinearConstraint& a, int64_t q,
                                        const LinearConstraint& b) {
  LinearConstraint out;
  out.equality = a.equality;
  out.terms.reserve(a.terms.size() + b.terms.size());
  size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    int v;
    int64_t ca = 0, cb = 0;
    if (j == b.terms.size() || (i < a.terms.size() && a.terms[i].first < b.terms[j].first)) {
      v = a.terms[i].first;
      ca = a.terms[i++].second;
    } else if (i == a.terms.size() || b.terms[j].first < a.terms[i].first) {
      v = b.terms[j].first;
      cb = b.terms[j++].second;
    } else {
      v = a.terms[i].first;
      ca = a.terms[i++].second;
      cb = b.terms[j++].second;
    }
    auto c = mul_add(p, ca, q, cb);
    if (!c) return std::nullopt;
    if (*c != 0) out.terms.emplace_back(v, *c);
  }
  auto k = mul_add(p, a.constant, q, b.constant);
  if (!k) return std::nullopt;
  out.constant = *k;
  return out;
}

// Divides by the gcd of the coefficients (rounding the constant down for an all-integer
// inequality), folds constant constraints, and gives equalities a positive leading coefficient.
Status normalize(LinearConstraint& c, const std::vector<bool>& integer) {
  if (c.terms.empty()) {
    bool holds = c.equality ? c.constant == 0 : c.constant >= 0;
    return holds ? Status::Drop : Status::Contradiction;
  }
  int64_t g = 0;
  bool all_integer = true;
  for (const auto& [v, a] : c.terms) {
    g = std::gcd(g, a < 0 ? -a : a);
    all_integer = all_integer && static_cast<size_t>(v) < integer.size() && integer[v];
  }
  bool divisible = c.constant % g == 0;
  if (c.equality && all_integer && !divisible) return Status::Contradiction;
  if (g > 1 && (divisible || (all_integer && !c.equality))) {
    for (auto& term : c.terms) term.second /= g;
    c.constant = floor_div(c.constant, g);
  }
  if (c.equality && c.terms[0].second < 0) {
    for (auto& term : c.terms) term.second = -term.second;
    c.constant = -c.constant;
  }
  return Status::Keep;
}

// Sorts the terms, merges repeated variables and drops zero coefficients, in place (the
// constraints a decision builds are usually canonical already); false when a number lies
// outside [-kLimit, kLimit].
bool canonicalize(LinearConstraint& c) {
  auto& t = c.terms;
  if (!std::is_sorted(t.begin(), t.end())) std::sort(t.begin(), t.end());
  size_t w = 0;
  for (size_t r = 0; r < t.size(); ++r) {
    const auto [v, a] = t[r];
    if (v < 0 || a > kLimit || a < -kLimit) return false;
    if (w > 0 && t[w - 1].first == v) {
      auto sum = mul_add(1, t[w - 1].second, 1, a);
      if (!sum) return false;
      t[w - 1].second = *sum;
    } else {
      t[w++] = t[r];
    }
  }
  t.resize(w);
  std::erase_if(t, [](const auto& term) { return term.second == 0; });
  return c.constant <= kLimit && c.constant >= -kLimit;
}

int64_t coefficient_of(const LinearConstraint& c, int v) {
  auto it = std::lower_bound(c.terms.begin(), c.terms.end(), v,
                             [](const std::pair<int, int64_t>& t, int x) { return t.first < x; });
  return it != c.terms.end() && it->first == v ? it->second : 0;
}

// Substitutes every equality away, each on its variable of smallest coefficient other than
// `keep` (an equality over x[keep] alone stays). Returns true on a contradiction.
bool eliminate_equalities(std::vector<LinearConstraint>& cs, const std::vector<bool>& integer,
                          int keep = -1) {
  while (true) {
    auto eq = std::find_if(cs.begin(), cs.end(), [keep](const LinearConstraint& c) {
      return c.equality && !(c.terms.size() == 1 && c.terms[0].first == keep);
    });
    if (eq == cs.end()) return false;
    LinearConstraint e = std::move(*eq);
    cs.erase(eq);
    // A unit coefficient makes the substitution exact over the integers; any other pivot only
    // forgets that the pivot is an integer, which is sound.
    auto pivot = e.terms.end();
    for (auto it = e.terms.begin(); it != e.terms.end(); ++it) {
      if (it->first == keep) continue;
      if (pivot == e.terms.end() || std::abs(it->second) < std::abs(pivot->second)) pivot = it;
    }
    const int v = pivot->first;
    const int64_t a = pivot->second;
    std::vector<LinearConstraint> next;
    next.reserve(cs.size());
    for (LinearConstraint& c : cs) {
      int64_t b = coefficient_of(c, v);
      if (b == 0) {
        next.push_back(std::move(c));
        continue;
      }
      // |a|*c - sign(a)*b*e has no v; scaling c by |a| > 0 keeps its direction.
      auto d = combine(a < 0 ? -a : a, c, a < 0 ? b : -b, e);
      if (!d) continue;  // dropping a constraint only loses power
      switch (normalize(*d, integer)) {
        case Status::Contradiction: return true;
        case Status::Drop: break;
        case Status::Keep: next.push_back(std::move(*d)); break;
      }
    }
    cs = std::move(next);
  }
}

// The variable (other than `keep`) whose Fourier-Motzkin elimination adds the fewest
// constraints: lower bounds times upper bounds, less the constraints it removes. -1 when no
// constraint uses one.
int cheapest_variable(const std::vector<LinearConstraint>& cs, size_t n, int keep = -1) {
  std::vector<size_t> lower(n, 0), upper(n, 0);
  for (const LinearConstraint& c : cs) {
    for (const auto& [v, a] : c.terms) ++(a > 0 ? lower : upper)[static_cast<size_t>(v)];
  }
  int best = -1;
  long best_cost = 0;
  for (size_t v = 0; v < n; ++v) {
    if (static_cast<int>(v) == keep || lower[v] + upper[v] == 0) continue;
    long cost = static_cast<long>(lower[v] * upper[v]) - static_cast<long>(lower[v] + upper[v]);
    if (best < 0 || cost < best_cost) {
      best = static_cast<int>(v);
      best_cost = cost;
    }
  }
  return best;
}

enum class Eliminated { Done, Contradiction, TooMany };

// One Fourier-Motzkin step: replaces the constraints on x[v] by every positive combination of a
// lower and an upper bound on it (gcd-normalized). TooMany when more than limits.max_constraints
// result (cs is then left part-way).
Eliminated eliminate(std::vector<LinearConstraint>& cs, int v, const std::vector<bool>& integer,
                     const LinearLimits& limits) {
  std::vector<LinearConstraint> lows, ups, next;
  for (LinearConstraint& c : cs) {
    int64_t a = coefficient_of(c, v);
    (a > 0 ? lows : a < 0 ? ups : next).push_back(std::move(c));
  }
  for (const LinearConstraint& lo : lows) {
    int64_t a = coefficient_of(lo, v);
    for (const LinearConstraint& up : ups) {
      int64_t b = -coefficient_of(up, v);
      int64_t g = std::gcd(a, b);
      auto d = combine(b / g, lo, a / g, up);
      if (!d) continue;
      switch (normalize(*d, integer)) {
        case Status::Contradiction: return Eliminated::Contradiction;
        case Status::Drop: break;
        case Status::Keep: next.push_back(std::move(*d)); break;
      }
      if (next.size() > limits.max_constraints) return Eliminated::TooMany;
    }
  }
  cs = std::move(next);
  return Eliminated::Done;
}

// Keeps, among constraints with the same terms, the strongest (smallest constant).
void deduplicate(std::vector<LinearConstraint>& cs) {
  std::sort(cs.begin(), cs.end(), [](const LinearConstraint& x, const LinearConstraint& y) {
    if (x.terms != y.terms) return x.terms < y.terms;
    return x.constant < y.constant;
  });
  auto last = std::unique(
      cs.begin(), cs.end(),
      [](const LinearConstraint& x, const LinearConstraint& y) { return x.terms == y.terms; });
  cs.erase(last, cs.end());
}

// Whether every constraint is a difference constraint: `x_u - x_v + k >= 0` or `±x_u + k >= 0`
// (after gcd normalization). Most guards are of this form (`s0 < s1 + 3`, `s0 >= 2`).
bool is_difference(const LinearConstraint& c) {
  if (c.equality) return false;
  if (c.terms.size() == 1) return c.terms[0].second == 1 || c.terms[0].second == -1;
  if (c.terms.size() != 2) return false;
  return c.terms[0].second + c.terms[1].second == 0 &&
         (c.terms[0].second == 1 || c.terms[0].second == -1);
}

bool all_differences(const std::vector<LinearConstraint>& cs) {
  return std::all_of(cs.begin(), cs.end(), is_difference);
}

// A system of difference constraints (with integer constants) has a solution, integer or
// rational alike, iff its constraint graph has no negative cycle: `x_v <= x_u + k` is an edge
// u -> v of weight k, and a bound on one variable an edge to or from a zero node. Bellman-Ford
// from a virtual source decides that exactly, in O(nodes * edges) without Fourier-Motzkin's
// growth.
struct Edge {
  size_t from, to;
  int64_t weight;
};

// The edge of `sign * (terms) + sign * constant >= 0` for a difference constraint's terms.
Edge edge_of(const LinearConstraint& c, int64_t sign, size_t zero) {
  const auto& t = c.terms;
  const int64_t k = sign * c.constant;
  if (t.size() == 1) {
    const size_t u = static_cast<size_t>(t[0].first);
    // x_u + k >= 0: 0 <= x_u + k (u -> zero); -x_u + k >= 0: x_u <= 0 + k (zero -> u).
    return sign * t[0].second > 0 ? Edge{u, zero, k} : Edge{zero, u, k};
  }
  // +x_u - x_v + k >= 0: x_v <= x_u + k.
  const bool first_plus = sign * t[0].second > 0;
  const size_t plus = static_cast<size_t>(first_plus ? t[0].first : t[1].first);
  const size_t minus = static_cast<size_t>(first_plus ? t[1].first : t[0].first);
  return Edge{plus, minus, k};
}

// Whether the graph over n variables and the zero node has a negative cycle.
bool negative_cycle(const std::vector<Edge>& edges, size_t n) {
  // Distances from a virtual source with an edge of weight 0 to every node; __int128 because a
  // path sums up to n + 1 weights of magnitude up to kLimit.
  std::vector<__int128> dist(n + 1, 0);
  for (size_t pass = 0; pass <= n + 1; ++pass) {
    bool changed = false;
    for (const Edge& e : edges) {
      const __int128 through = dist[e.from] + e.weight;
      if (through < dist[e.to]) {
        dist[e.to] = through;
        changed = true;
      }
    }
    if (!changed) return false;  // shortest paths settled: no negative cycle
  }
  return true;  // still relaxing after n + 1 passes over n + 1 nodes: a negative cycle
}

// Whether the constraints (all of difference form) have no solution.
bool refute_differences(const std::vector<LinearConstraint>& cs, size_t n) {
  std::vector<Edge> edges;
  edges.reserve(cs.size());
  for (const LinearConstraint& c : cs) edges.push_back(edge_of(c, 1, n));
  return negative_cycle(edges, n);
}

// Whether the constraints of difference form among cs (an equality `x - y + k == 0` as both of
// its inequalities) have no solution; false when fewer than two of them, or when they are all of
// cs (refute() decides that case whole).
bool refute_difference_subset(const std::vector<LinearConstraint>& cs, size_t n) {
  std::vector<Edge> edges;
  for (const LinearConstraint& c : cs) {
    const auto& t = c.terms;
    const bool unit = t.size() == 1 && (t[0].second == 1 || t[0].second == -1);
    const bool pair =
        t.size() == 2 && t[0].second + t[1].second == 0 && (t[0].second == 1 || t[0].second == -1);
    if (!unit && !pair) continue;
    edges.push_back(edge_of(c, 1, n));
    if (c.equality) edges.push_back(edge_of(c, -1, n));
  }
  if (edges.size() < 2 || edges.size() == cs.size()) return false;
  return negative_cycle(edges, n);
}

// ---- bounds propagation and a search for a solution ------------------------------------------
//
// Most systems a decision builds have an obvious solution (every size at its smallest value that
// the chains of facts allow), and elimination spends tens of microseconds to fail to refute
// them. Bounds propagation narrows each variable's interval from the constraints until nothing
// changes (an empty interval refutes the system), and a greedy search then fixes the variables
// one at a time, propagating after each, and checks the point it reaches exactly. A point that
// satisfies every constraint settles "not refuted", which is what elimination would answer.

// Bounds beyond this magnitude are forgotten (sound: a variable may always be given less
// information), so that a coefficient times a bound, summed over many terms, fits __int128.
constexpr __int128 kBoundLimit = __int128{1} << 50;

struct Interval {
  __int128 lo = -kBoundLimit - 1, hi = kBoundLimit + 1;  // beyond the limit: no bound
  bool has_lo() const { return lo >= -kBoundLimit; }
  bool has_hi() const { return hi <= kBoundLimit; }
};

// Floor and ceiling of a / b for b > 0, in 64-bit arithmetic when both fit (the usual case).
__int128 floor_div(__int128 a, __int128 b) {
  constexpr __int128 kMax = INT64_MAX;
  if (a >= -kMax && a <= kMax && b <= kMax) {
    return floor_div(static_cast<int64_t>(a), static_cast<int64_t>(b));
  }
  __int128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}
__int128 ceil_div(__int128 a, __int128 b) { return -floor_div(-a, b); }

// Propagation steps allowed per constraint, for the first narrowing and again for the search.
constexpr size_t kBudgetPerConstraint = 8;

enum class Search { Infeasible, Feasible, Unknown };

class BoundsSearch {
 public:
  BoundsSearch(const std::vector<LinearConstraint>& cs, const std::vector<bool>& integer, size_t n,
               const VariableBounds* start = nullptr, size_t settled = 0)
      : cs_(cs),
        integer_(integer),
        box_(n),
        first_use_(n + 1, 0),
        queue_(cs.size()),
        queued_(cs.size(), false),
        budget_(kBudgetPerConstraint * cs.size() + 64) {
    if (start) {
      settled_ = std::min(settled, cs.size());
      for (size_t v = 0; v < n && v < start->lo.size(); ++v) {
        if (start->lo[v]) box_[v].lo = *start->lo[v];
        if (start->hi[v]) box_[v].hi = *start->hi[v];
      }
    }
    // The constraints that use each variable, as one flat array indexed by first_use_.
    for (const LinearConstraint& c : cs) {
      for (const auto& term : c.terms) ++first_use_[static_cast<size_t>(term.first) + 1];
    }
    for (size_t v = 0; v < n; ++v) first_use_[v + 1] += first_use_[v];
    uses_.resize(first_use_[n]);
    std::vector<size_t> fill(first_use_.begin(), first_use_.end() - 1);
    for (size_t i = 0; i < cs.size(); ++i) {
      for (const auto& [v, a] : cs[i].terms) {
        // An inequality reads the upper end of a variable with a positive coefficient (the
        // lower end of one with a negative coefficient); an equality reads both.
        const uint8_t ends = cs[i].equality ? kBoth : a > 0 ? kUpper : kLower;
        uses_[fill[static_cast<size_t>(v)]++] = Use{i, ends};
      }
    }
  }

  // Narrows the intervals (run()'s first step alone); false on a contradiction.
  bool narrow_all() {
    for (size_t i = 0; i < cs_.size(); ++i) enqueue(i);
    return propagate();
  }

  // The intervals, as bounds (beyond the limit: none).
  VariableBounds bounds() const {
    VariableBounds out;
    out.lo.resize(box_.size());
    out.hi.resize(box_.size());
    for (size_t v = 0; v < box_.size(); ++v) {
      if (box_[v].has_lo()) out.lo[v] = static_cast<int64_t>(box_[v].lo);
      if (box_[v].has_hi()) out.hi[v] = static_cast<int64_t>(box_[v].hi);
    }
    return out;
  }

  // The point run() found (every used variable fixed; the others 0).
  std::vector<int64_t> solution() const {
    std::vector<int64_t> out(box_.size(), 0);
    for (size_t v = 0; v < box_.size(); ++v) {
      if (box_[v].lo == box_[v].hi) out[v] = static_cast<int64_t>(box_[v].lo);
    }
    return out;
  }

  Search run() {
    for (size_t i = settled_; i < cs_.size(); ++i) enqueue(i);
    if (!propagate()) return Search::Infeasible;
    // A spent budget means bounds creeping around a cycle (x < y, y < x + 1 over a wide range),
    // which elimination settles at once.
    if (budget_ == 0) return Search::Unknown;
    budget_ = kBudgetPerConstraint * cs_.size() + 64;
    trail_.clear();  // the intervals found so far hold whatever is chosen next
    // Fix each variable at one end of its interval (the lower one first), backing off to the
    // other end once when propagation finds the choice infeasible.
    for (size_t v = 0; v < box_.size(); ++v) {
      if (first_use_[v] == first_use_[v + 1]) continue;
      const Interval iv = box_[v];
      __int128 first = iv.has_lo() ? iv.lo : iv.has_hi() ? iv.hi : 0;
      __int128 second = iv.has_lo() && iv.has_hi() ? iv.hi : first;
      const size_t mark = trail_.size();
      if (fix(v, first)) continue;
      if (second == first) return Search::Unknown;
      undo(mark);
      if (!fix(v, second)) return Search::Unknown;
    }
    return satisfied() ? Search::Feasible : Search::Unknown;
  }

 private:
  bool integer_at(size_t v) const { return v < integer_.size() && integer_[v]; }

  void enqueue(size_t i) {
    if (queued_[i]) return;
    queued_[i] = true;
    queue_[(head_ + size_++) % queue_.size()] = i;
  }

  void clear_queue() {
    for (; size_ > 0; --size_, head_ = (head_ + 1) % queue_.size()) queued_[queue_[head_]] = false;
  }

  // Queues the constraints (but `except`) that read an end of x[v] that moved.
  void wake(size_t v, uint8_t moved, size_t except) {
    for (size_t u = first_use_[v]; u < first_use_[v + 1]; ++u) {
      if ((uses_[u].ends & moved) != 0 && uses_[u].constraint != except)
        enqueue(uses_[u].constraint);
    }
  }

  void set(size_t v, const Interval& iv) {
    trail_.emplace_back(v, box_[v]);
    box_[v] = iv;
  }

  void undo(size_t mark) {
    clear_queue();
    for (; trail_.size() > mark; trail_.pop_back())
      box_[trail_.back().first] = trail_.back().second;
  }

  // x[v] = value (within its interval), then propagation; false on a contradiction.
  bool fix(size_t v, __int128 value) {
    if (value < box_[v].lo || value > box_[v].hi) return false;
    const uint8_t moved = (value > box_[v].lo ? kLower : 0) | (value < box_[v].hi ? kUpper : 0);
    set(v, Interval{value, value});
    wake(v, moved, cs_.size());
    return propagate();
  }

  // Narrows intervals until nothing changes or the budget is spent (which stops early but
  // soundly); false when an interval becomes empty.
  bool propagate() {
    while (size_ > 0) {
      if (budget_ == 0) {
        clear_queue();
        return true;
      }
      --budget_;
      const size_t i = queue_[head_];
      head_ = (head_ + 1) % queue_.size();
      --size_;
      queued_[i] = false;
      if (!narrow(i, 1) || (cs_[i].equality && !narrow(i, -1))) {
        clear_queue();
        return false;
      }
    }
    return true;
  }

  // sign * (sum a*x + k) >= 0 for constraint i: each term's bound from the others' extremes.
  bool narrow(size_t i, int sign) {
    const LinearConstraint& c = cs_[i];
    // The largest value of sign * (sum a*x), counting the terms without a bound.
    __int128 most = 0;
    size_t unbounded = 0, unbounded_at = 0;
    for (size_t t = 0; t < c.terms.size(); ++t) {
      const auto& [v, a0] = c.terms[t];
      const __int128 a = static_cast<__int128>(a0) * sign;
      const Interval& iv = box_[static_cast<size_t>(v)];
      if (a > 0 ? iv.has_hi() : iv.has_lo()) {
        most += a * (a > 0 ? iv.hi : iv.lo);
      } else {
        ++unbounded;
        unbounded_at = t;
      }
    }
    const __int128 k = static_cast<__int128>(c.constant) * sign;
    if (unbounded == 0 && most + k < 0) return false;
    if (unbounded > 1) return true;
    for (size_t t = 0; t < c.terms.size(); ++t) {
      if (unbounded == 1 && t != unbounded_at) continue;
      const auto& [v0, a0] = c.terms[t];
      const size_t v = static_cast<size_t>(v0);
      const __int128 a = static_cast<__int128>(a0) * sign;
      Interval iv = box_[v];
      // a*x >= -k - (the others' largest value).
      __int128 others = most;
      if (unbounded == 0) others -= a * (a > 0 ? iv.hi : iv.lo);
      const __int128 need = -k - others;
      const bool exact = integer_at(v);
      if (a > 0) {
        // x >= need / a, rounded up for an integer (down for a rational: a weaker bound).
        const __int128 lo = exact ? ceil_div(need, a) : floor_div(need, a);
        if (lo <= iv.lo || lo < -kBoundLimit || lo > kBoundLimit) continue;
        iv.lo = lo;
      } else {
        const __int128 hi = exact ? floor_div(-need, -a) : ceil_div(-need, -a);
        if (hi >= iv.hi || hi < -kBoundLimit || hi > kBoundLimit) continue;
        iv.hi = hi;
      }
      if (iv.lo > iv.hi) return false;
      set(v, iv);
      // The constraint itself again too when it has other terms: their bounds above were
      // computed from this term's old one.
      wake(v, a > 0 ? kLower : kUpper, c.terms.size() == 1 ? i : cs_.size());
    }
    return true;
  }

  // Whether every variable is fixed and every constraint holds exactly at that point.
  bool satisfied() const {
    for (const LinearConstraint& c : cs_) {
      __int128 sum = c.constant;
      for (const auto& [v, a] : c.terms) {
        const Interval& iv = box_[static_cast<size_t>(v)];
        if (iv.lo != iv.hi) return false;
        sum += static_cast<__int128>(a) * iv.lo;
      }
      if (c.equality ? sum != 0 : sum < 0) return false;
    }
    return true;
  }

  const std::vector<LinearConstraint>& cs_;
  const std::vector<bool>& integer_;
  std::vector<Interval> box_;
  static constexpr uint8_t kLower = 1, kUpper = 2, kBoth = 3;
  struct Use {
    size_t constraint;
    uint8_t ends;  // the ends of the variable the constraint reads (kLower, kUpper or both)
  };
  std::vector<size_t> first_use_;
  std::vector<Use> uses_;
  std::vector<size_t> queue_;  // a ring: each constraint is queued at most once at a time
  size_t head_ = 0, size_ = 0;
  std::vector<bool> queued_;
  std::vector<std::pair<size_t, Interval>> trail_;  // old intervals, to undo a choice
  size_t budget_;
  size_t settled_ = 0;  // constraints already at a fixpoint with the start bounds
};

// Canonical, gcd-normalized copies of the constraints, without the ones that always hold;
// nullopt on a contradiction. `n` becomes the number of variables (at least integer.size()).
std::optional<std::vector<LinearConstraint>> prepared(std::vector<LinearConstraint> constraints,
                                                      const std::vector<bool>& integer, size_t& n) {
  std::vector<LinearConstraint> cs;
  cs.reserve(constraints.size());
  for (LinearConstraint& c : constraints) {
    if (!canonicalize(c)) continue;
    switch (normalize(c, integer)) {
      case Status::Contradiction: return std::nullopt;
      case Status::Drop: break;
      case Status::Keep: cs.push_back(std::move(c)); break;
    }
  }
  n = integer.size();
  for (const LinearConstraint& c : cs) {
    if (!c.terms.empty()) n = std::max(n, static_cast<size_t>(c.terms.back().first) + 1);
  }
  return cs;
}

}  // namespace

std::optional<VariableBounds> propagate_bounds(std::vector<LinearConstraint> constraints,
                                               const std::vector<bool>& integer) {
  size_t n = 0;
  auto cs = prepared(std::move(constraints), integer, n);
  if (!cs) return std::nullopt;
  BoundsSearch search(*cs, integer, n);
  if (!search.narrow_all()) return std::nullopt;
  return search.bounds();
}

namespace {

// Whether every constraint has sorted, distinct variables, coprime non-zero coefficients and
// numbers within the limit (the form the cheap checks below read: 2*x - 2*y >= 1 must become the
// difference x - y >= 1 first), and the number of variables they use.
bool canonical(const std::vector<LinearConstraint>& cs, size_t& n) {
  for (const LinearConstraint& c : cs) {
    if (c.terms.empty() || c.constant > kLimit || c.constant < -kLimit) return false;
    int last = -1;
    int64_t g = 0;
    for (const auto& [v, a] : c.terms) {
      if (v <= last || a == 0 || a > kLimit || a < -kLimit) return false;
      last = v;
      g = std::gcd(g, a < 0 ? -a : a);
    }
    if (g != 1) return false;
    n = std::max(n, static_cast<size_t>(last) + 1);
  }
  return true;
}

// The cheap checks, in order: Bellman-Ford on the difference constraints (an equality of that
// form is two of them: a chain `a <= b <= c` against `c < a` is refuted in microseconds), exactly
// when they are the whole system; then bounds propagation and the search for a solution.
// nullopt when none of them decides.
std::optional<bool> refute_quickly(const std::vector<LinearConstraint>& cs,
                                   const std::vector<bool>& integer, size_t n,
                                   std::vector<int64_t>* solution, const VariableBounds* start,
                                   size_t settled) {
  if (refute_difference_subset(cs, n)) return true;
  if (all_differences(cs)) return refute_differences(cs, n);
  BoundsSearch search(cs, integer, n, start, settled);
  switch (search.run()) {
    case Search::Infeasible: return true;
    case Search::Feasible:
      if (solution) *solution = search.solution();
      return false;
    case Search::Unknown: break;
  }
  return std::nullopt;
}

}  // namespace

bool refute(const std::vector<LinearConstraint>& constraints, const std::vector<bool>& integer,
            const LinearLimits& limits, std::vector<int64_t>* solution, const VariableBounds* start,
            size_t settled) {
  // The constraints a decision builds are usually canonical already: the cheap checks then read
  // them as they are, and only elimination works on normalized copies.
  size_t n = integer.size();
  const bool as_given = canonical(constraints, n);
  if (as_given) {
    if (auto answer = refute_quickly(constraints, integer, n, solution, start, settled)) {
      return *answer;
    }
  }
  auto ready = prepared(constraints, integer, n);
  if (!ready) return true;
  std::vector<LinearConstraint> cs = std::move(*ready);
  if (as_given) {
    if (refute_difference_subset(cs, n)) return true;  // normalizing may have made more of them
  } else if (auto answer = refute_quickly(cs, integer, n, solution, start, 0)) {
    return *answer;
  }
  if (eliminate_equalities(cs, integer)) return true;
  if (all_differences(cs)) return refute_differences(cs, n);
  // Each round eliminates one variable, so n + 1 rounds always suffice.
  for (size_t round = 0; round <= n; ++round) {
    deduplicate(cs);
    if (cs.empty()) return false;
    switch (eliminate(cs, cheapest_variable(cs, n), integer, limits)) {
      case Eliminated::Contradiction: return true;
      case Eliminated::TooMany: return false;
      case Eliminated::Done: break;
    }
  }
  return false;
}

}  // namespace symshape::detail

// ---- the range of one variable (bounds of a linear form under the facts) ---------------------

namespace symshape::detail {

std::optional<ProjectedRange> project(std::vector<LinearConstraint> constraints,
                                      const std::vector<bool>& integer, int target,
                                      const LinearLimits& limits) {
  size_t n = 0;
  // (A constraint out of range is dropped, which only widens the range.)
  auto ready = prepared(std::move(constraints), integer, n);
  if (!ready) return std::nullopt;
  std::vector<LinearConstraint> cs = std::move(*ready);
  n = std::max(n, static_cast<size_t>(target) + 1);
  // Equalities are substituted away on a pivot other than the target; one over the target
  // alone becomes its two inequalities.
  if (eliminate_equalities(cs, integer, target)) return std::nullopt;
  // What equalities are left are over the target alone: a*t + k == 0 is both directions.
  const size_t count = cs.size();
  for (size_t i = 0; i < count; ++i) {
    if (!cs[i].equality) continue;
    cs[i].equality = false;
    LinearConstraint other = cs[i];
    for (auto& term : other.terms) term.second = -term.second;
    other.constant = -other.constant;
    cs.push_back(std::move(other));
  }
  for (size_t round = 0; round <= n; ++round) {
    deduplicate(cs);
    const int best = cheapest_variable(cs, n, target);
    if (best < 0) break;  // only the target is left
    switch (eliminate(cs, best, integer, limits)) {
      case Eliminated::Contradiction: return std::nullopt;
      case Eliminated::TooMany: return ProjectedRange{};
      case Eliminated::Done: break;
    }
  }
  // What is left bounds the target alone: a*t + k >= 0.
  ProjectedRange out;
  const bool integral = static_cast<size_t>(target) < integer.size() && integer[target];
  for (const LinearConstraint& c : cs) {
    if (c.terms.size() != 1 || c.terms[0].first != target) continue;
    const int64_t a = c.terms[0].second, k = c.constant;
    if (!integral) continue;
    if (a > 0) {
      int64_t lo = -floor_div(k, a);  // t >= ceil(-k/a)
      if (!out.lo || lo > *out.lo) out.lo = lo;
    } else {
      int64_t hi = floor_div(k, -a);  // t <= floor(k/(-a))
      if (!out.hi || hi < *out.hi) out.hi = hi;
    }
  }
  if (out.lo && out.hi && *out.lo > *out.hi) return std::nullopt;  // bounds that cross
  return out;
}

}  // namespace symshape::detail
