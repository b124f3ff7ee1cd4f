#include <algorithm>

#include "symshape/expr/functions.h"
#include "symshape/prove/difference.h"
#include "symshape/prove/limits.h"
#include "symshape/shape_env.h"
#include "symshape/simplify.h"
#include "symshape/user_facts.h"

namespace symshape {

// ---- small types ---------------------------------------------------------------------------

std::string Provenance::str() const {
  std::string inner = op;
  if (!rule.empty()) inner += (inner.empty() ? "" : ", ") + rule;
  std::string text = node.empty() ? "" : "node " + node;
  if (!inner.empty()) text += (text.empty() ? "(" : " (") + inner + ")";
  return text;
}

namespace {
std::string at(const Provenance& where) {
  std::string p = where.str();
  return p.empty() ? "" : " at " + p;
}
}  // namespace

DataDependentError::DataDependentError(std::string expression, Provenance where)
    : Error("could not guard on data-dependent expression " + expression +
            (where.str().empty() ? "" : " (at " + where.str() + ")")),
      expression_(std::move(expression)),
      where_(std::move(where)) {}

// ---- SymInt / SymBool ----------------------------------------------------------------------

namespace {

ShapeEnv* common_env(ShapeEnv* a, ShapeEnv* b) {
  if (a && b && a != b) throw Error("cannot combine symbolic values of two different ShapeEnvs");
  return a ? a : b;
}

}  // namespace

SymInt operator+(const SymInt& a, const SymInt& b) {
  return SymInt(a.expr_ + b.expr_, common_env(a.env_, b.env_));
}
SymInt operator-(const SymInt& a, const SymInt& b) {
  return SymInt(a.expr_ - b.expr_, common_env(a.env_, b.env_));
}
SymInt operator*(const SymInt& a, const SymInt& b) {
  return SymInt(a.expr_ * b.expr_, common_env(a.env_, b.env_));
}
SymInt operator-(const SymInt& a) { return SymInt(-a.expr_, a.env_); }
SymInt floordiv(const SymInt& a, const SymInt& b) {
  return SymInt(floordiv(a.expr_, b.expr_), common_env(a.env_, b.env_));
}
SymInt mod(const SymInt& a, const SymInt& b) {
  return SymInt(mod(a.expr_, b.expr_), common_env(a.env_, b.env_));
}
SymInt ceildiv(const SymInt& a, const SymInt& b) {
  return SymInt(ceildiv(a.expr_, b.expr_), common_env(a.env_, b.env_));
}
SymInt max(const SymInt& a, const SymInt& b) {
  return SymInt(max(a.expr_, b.expr_), common_env(a.env_, b.env_));
}
SymInt min(const SymInt& a, const SymInt& b) {
  return SymInt(min(a.expr_, b.expr_), common_env(a.env_, b.env_));
}
SymBool operator==(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ == b.expr_, common_env(a.env_, b.env_));
}
SymBool operator!=(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ != b.expr_, common_env(a.env_, b.env_));
}
SymBool operator<(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ < b.expr_, common_env(a.env_, b.env_));
}
SymBool operator<=(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ <= b.expr_, common_env(a.env_, b.env_));
}
SymBool operator>(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ > b.expr_, common_env(a.env_, b.env_));
}
SymBool operator>=(const SymInt& a, const SymInt& b) {
  return SymBool(a.expr_ >= b.expr_, common_env(a.env_, b.env_));
}
SymBool operator&&(const SymBool& a, const SymBool& b) {
  return SymBool(a.cond_ && b.cond_, common_env(a.env_, b.env_));
}
SymBool operator||(const SymBool& a, const SymBool& b) {
  return SymBool(a.cond_ || b.cond_, common_env(a.env_, b.env_));
}
SymBool operator!(const SymBool& a) { return SymBool(!a.cond_, a.env_); }

// ---- symbols -------------------------------------------------------------------------------

// Symbols of an env always have a range of their own; the default only covers strangers.
ShapeEnv::ShapeEnv(ShapeEnvOptions options) : options_(options), facts_(ValueRange::all()) {}

void ShapeEnv::record(std::string line) {
  if (options_.log) log_.push_back(std::move(line));
}

std::string ShapeEnv::fresh_name(char prefix) {
  size_t& counter = prefix == 'u' ? next_unbacked_ : next_backed_;
  for (;;) {
    std::string name = prefix + std::to_string(counter++);
    if (!by_name_.count(name)) return name;
  }
}

SymInt ShapeEnv::add_symbol(SymbolInfo info, const ValueRange& range) {
  info.index = symbols_.size();
  const std::string name = info.name;
  by_name_[name] = symbols_.size();
  if (info.hint) hints_[name] = *info.hint;
  facts_.set_range(name, range);
  symbols_.push_back(std::move(info));
  ++epoch_;
  return SymInt(Expr::symbol(name), this);
}

SymInt ShapeEnv::create_symbol(const Int& hint, const std::string& source, DimPolicy policy,
                               const SymbolOptions& options) {
  if (policy == DimPolicy::SizeLikeUnbacked) {
    SymInt u = create_unbacked_symint();
    constrain_as_size(u);
    return u;
  }
  const std::string label =
      options.name.empty() ? source : "'" + options.name + "' (" + source + ")";
  if (hint < 0)
    throw ConstraintViolation("size " + to_string(hint) + " of " + label + " is negative");
  if (options.constraint && !options.constraint->contains(hint)) {
    throw ConstraintViolation("size " + to_string(hint) + " of " + label +
                              " is outside its declared range " + options.constraint->str());
  }
  if (policy == DimPolicy::Static) return SymInt(Expr(hint), this);
  const bool specialize = options.specialize_zero_one.value_or(options_.specialize_zero_one);
  if (specialize && (hint == 0 || hint == 1)) {
    record("specialize " + source + " = " + to_string(hint));
    // A named dim stays known by its name (the graph may mention it elsewhere), replaced by
    // the constant.
    if (!options.name.empty() && !by_name_.count(options.name)) {
      SymbolInfo info;
      info.name = options.name;
      info.hint = hint;
      info.source = source;
      info.user_constraint = options.constraint;
      add_symbol(std::move(info), ValueRange::point(hint));
      add_replacement(options.name, Expr(hint));
    }
    return SymInt(Expr(hint), this);
  }
  if (!options.name.empty()) {
    auto it = by_name_.find(options.name);
    if (it != by_name_.end()) {
      const SymbolInfo& existing = symbols_[it->second];
      if (existing.kind != SymbolKind::Backed || *existing.hint != hint) {
        throw ConstraintViolation(
            "dim '" + options.name + "' is " + to_string(hint) + " at " + source + " but " +
            (existing.hint ? to_string(*existing.hint) : "unbacked") + " at " + existing.source);
      }
      if (options.constraint) refine(options.name, *options.constraint);
      return SymInt(Expr::symbol(options.name), this);
    }
  }
  const bool duck = policy == DimPolicy::Duck && options_.duck_shape && options.name.empty();
  if (duck) {
    auto it = duck_by_hint_.find(to_string(hint));
    if (it != duck_by_hint_.end()) {
      if (options.constraint) refine(it->second, *options.constraint);
      return SymInt(Expr::symbol(it->second), this);
    }
  }
  SymbolInfo info;
  info.name = options.name.empty() ? fresh_name('s') : options.name;
  info.kind = SymbolKind::Backed;
  info.hint = hint;
  info.source = source;
  info.user_constraint = options.constraint;
  ValueRange range = ValueRange::at_least(specialize ? 2 : 0);
  if (options.constraint) range = range.intersect(*options.constraint);
  if (range.is_empty()) {
    throw ConstraintViolation("the declared range " + options.constraint->str() + " of " + label +
                              " holds no size a dynamic dim may take");
  }
  if (duck) duck_by_hint_[to_string(hint)] = info.name;
  record("create_symbol " + info.name + " = " + to_string(hint) + " for " + source + " " +
         range.str());
  return add_symbol(std::move(info), range);
}

SymInt ShapeEnv::create_unbacked_symint() {
  SymbolInfo info;
  info.name = fresh_name('u');
  info.kind = SymbolKind::Unbacked;
  record("create_unbacked_symint " + info.name + " " + ValueRange::all().str());
  return add_symbol(std::move(info), ValueRange::all());
}

SymbolInfo& ShapeEnv::info_of(const SymInt& value, const char* what) {
  check_env(value.env());
  if (!value.expr().is_symbol() || !by_name_.count(value.expr().symbol_name())) {
    throw Error(std::string(what) + ": " + value.str() + " is not a symbol of this ShapeEnv");
  }
  return symbols_[by_name_.at(value.expr().symbol_name())];
}

void ShapeEnv::constrain_range(const SymInt& value, const ValueRange& range) {
  check_env(value.env());
  Expr e = substitute(value.expr());
  if (e.is_constant()) {
    if (!range.contains(*e.constant())) {
      throw ConstraintViolation(value.str() + " = " + e.str() + " is outside " + range.str());
    }
    return;
  }
  if (!e.is_symbol()) {
    if (range.lo()) defer_runtime_assert(wrap(e >= Expr(*range.lo())));
    if (range.hi()) defer_runtime_assert(wrap(e <= Expr(*range.hi())));
    return;
  }
  const SymbolInfo* info = has_symbol(e.symbol_name()) ? &symbol(e.symbol_name()) : nullptr;
  if (info && info->hint && !range.contains(*info->hint)) {
    // The example inputs are outside the range: every later decision would contradict them.
    throw ConstraintViolation(e.str() + " = " + to_string(*info->hint) + " (" + info->source +
                              ") is outside " + range.str());
  }
  record("constrain_range " + e.str() + " " + range.str());
  refine(e.symbol_name(), range);
}

void ShapeEnv::constrain_as_size(const SymInt& value, const ValueRange& range) {
  SymbolInfo& info = info_of(value, "constrain_as_size");
  info.size_like = true;
  ++epoch_;
  constrain_range(value, range.intersect(ValueRange::at_least(0)));
}

const SymbolInfo& ShapeEnv::symbol(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) throw Error("unknown symbol '" + std::string(name) + "'");
  return symbols_[it->second];
}

bool ShapeEnv::has_symbol(std::string_view name) const {
  return by_name_.count(std::string(name)) > 0;
}

SymInt ShapeEnv::sym(std::string_view name) {
  symbol(name);  // throws when unknown
  return SymInt(Expr::symbol(name), this);
}

void ShapeEnv::check_env(const ShapeEnv* other) const {
  if (other && other != this) throw Error("a symbolic value from another ShapeEnv was passed in");
}

// ---- what the env knows --------------------------------------------------------------------

Expr ShapeEnv::substitute(const Expr& e) const {
  if (replacements_.empty()) return e;
  std::map<std::string, Expr> m;
  for (const std::string& s : e.free_symbols()) {
    auto it = replacements_.find(s);
    if (it != replacements_.end()) m.emplace(s, it->second);
  }
  return e.subs(m);
}

Cond ShapeEnv::substitute(const Cond& c) const {
  if (replacements_.empty()) return c;
  std::map<std::string, Expr> m;
  for (const std::string& s : c.free_symbols()) {
    auto it = replacements_.find(s);
    if (it != replacements_.end()) m.emplace(s, it->second);
  }
  return c.subs(m);
}

Expr ShapeEnv::simplify(const Expr& e) {
  if (e.is_constant()) return e;
  if (simplify_epoch_ != epoch_ + facts_.version()) {
    simplify_cache_.clear();
    simplify_epoch_ = epoch_ + facts_.version();
  }
  const unsigned key = e.hash();
  auto [lo, hi] = simplify_cache_.equal_range(key);
  for (auto it = lo; it != hi; ++it) {
    if (it->second.first.identical(e)) return it->second.second;
  }
  Expr simple = symshape::simplify(substitute(e), facts_);
  simplify_cache_.emplace(key, std::make_pair(e, simple));
  return simple;
}
Cond ShapeEnv::simplify(const Cond& c) { return symshape::simplify(substitute(c), facts_); }
ValueRange ShapeEnv::bound(const Expr& e) { return symshape::bound(simplify(e), facts_); }

bool ShapeEnv::has_unbacked(const std::vector<std::string>& names) const {
  for (const std::string& s : names) {
    auto it = by_name_.find(s);
    if (it != by_name_.end() && symbols_[it->second].kind == SymbolKind::Unbacked) return true;
  }
  return false;
}

bool ShapeEnv::is_data_dependent(const Expr& e) const {
  return has_unbacked(substitute(e).free_symbols());
}

std::optional<Int> ShapeEnv::size_hint(const Expr& e) const {
  Expr s = substitute(e);
  if (has_unbacked(s.free_symbols())) return std::nullopt;
  return symshape::evaluate(s, hints_);
}

bool ShapeEnv::move_hint_to_satisfy(const Expr& a, const Expr& b) {
  const Expr d = simplify(a - b);
  const std::vector<std::string> names = d.free_symbols();
  if (names.size() != 1 || has_unbacked(names)) return false;
  const std::string& name = names.front();
  auto hint = hints_.find(name);
  if (hint == hints_.end()) return false;
  // d == c*s + r with integer c and r: read them off at s = 0 and s = 1, and check linearity at
  // s = 2 (d holds no other symbol).
  auto at = [&](long long v) { return symshape::evaluate(d, Bindings{{name, Int(v)}}); };
  Int r, c;
  try {
    r = at(0);
    c = at(1) - r;
    if (at(2) != r + 2 * c || c == 0) return false;
  } catch (const Error&) {
    return false;
  }
  if (!cln::zerop(cln::mod(r, c))) return false;
  const Int value = -cln::exquo(r, c);
  if (!facts_.range_of(name).contains(value)) return false;
  Bindings moved = hints_;
  moved[name] = value;
  for (const Guard& g : guards_) {
    try {
      if (!symshape::evaluate(substitute(g.cond), moved)) return false;
    } catch (const Error&) {
      return false;
    }
  }
  set_hint(name, value);
  return true;
}

void ShapeEnv::set_hint(const std::string& name, const Int& value) {
  auto hint = hints_.find(name);
  record("move hint " + name + ": " + to_string(hint->second) + " -> " + to_string(value));
  auto duck = duck_by_hint_.find(to_string(hint->second));
  if (duck != duck_by_hint_.end() && duck->second == name) duck_by_hint_.erase(duck);
  hint->second = value;
  for (SymbolInfo& info : symbols_) {
    if (info.name == name) info.hint = value;
  }
  ++epoch_;
}

bool ShapeEnv::move_hint_to_satisfy(const Cond& cond) {
  const Cond c = substitute(cond);
  auto holds = [&](const Cond& x, const Bindings& at) {
    try {
      return symshape::evaluate(x, at);
    } catch (const Error&) {
      return false;
    }
  };
  const std::vector<std::string> names = c.free_symbols();
  if (names.size() != 1 || has_unbacked(names)) return holds(c, hints_);
  if (holds(c, hints_)) return true;
  const std::string& name = names.front();
  if (!hints_.count(name)) return false;
  // The guards that read the symbol: the others hold at any value of it.
  std::vector<Cond> reading;
  for (const Guard& g : guards_) {
    Cond sg = substitute(g.cond);
    for (const std::string& s : sg.free_symbols()) {
      if (s == name) {
        reading.push_back(sg);
        break;
      }
    }
  }
  // Candidates from the range's low end up (a window op's requirements are lower bounds, so
  // the smallest value meeting them all is the model's least size), at most kScan of them.
  constexpr long kScan = 1 << 14;
  const ValueRange range = facts_.range_of(name);
  const Int lo = range.lo() ? *range.lo() : Int(0);
  Bindings moved = hints_;
  for (long k = 0; k < kScan; ++k) {
    const Int v = lo + k;
    if (range.hi() && v > *range.hi()) break;
    moved[name] = v;
    if (!holds(c, moved)) continue;
    bool all = true;
    for (const Cond& g : reading) {
      if (!holds(g, moved)) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    set_hint(name, v);
    return true;
  }
  return false;
}

// ---- decisions -----------------------------------------------------------------------------

namespace {

size_t cond_hash(const Cond& c) {
  size_t h = static_cast<size_t>(c.kind()) * 0x9e3779b97f4a7c15ULL;
  if (c.kind() == Cond::Kind::Rel) {
    h ^= static_cast<size_t>(c.op()) + (size_t{c.lhs().hash()} << 1) +
         (size_t{c.rhs().hash()} << 33);
  }
  for (const Cond& o : c.operands()) h = h * 31 + cond_hash(o);
  return h;
}

// The disjuncts of c: its operands when it is an `or`, else c itself.
void add_disjuncts(const Cond& c, std::vector<Cond>& out) {
  if (c.kind() == Cond::Kind::Or) {
    out.insert(out.end(), c.operands().begin(), c.operands().end());
  } else {
    out.push_back(c);
  }
}

// a and b are the same condition as written, or one is the other mirrored (`x == y`, `y == x`).
bool same_condition(const Cond& a, const Cond& b) {
  if (a.identical(b)) return true;
  return a.kind() == Cond::Kind::Rel && b.kind() == Cond::Kind::Rel && a.op() == reverse(b.op()) &&
         a.lhs().identical(b.rhs()) && a.rhs().identical(b.lhs());
}

// f implies the disjunction `pool` when each disjunct of f is one of pool's.
bool implies(const Cond& f, const std::vector<Cond>& pool) {
  std::vector<Cond> parts;
  add_disjuncts(f, parts);
  for (const Cond& p : parts) {
    bool found = false;
    for (const Cond& q : pool) found = found || same_condition(q, p);
    if (!found) return false;
  }
  return true;
}

// prove() reasons with relations and leaves guarded disjunctions and `!=` out; without this a
// guard `a != b` would not decide `a == b` the next time, and the env would guard it again.
// A fact decides a question that contains it literally: f implies c when each disjunct of f is
// a disjunct of one of the forms of c, and implies not c likewise.
Truth recall(const ShapeEnv& env, const std::vector<Cond>& forms, const Facts& facts) {
  std::vector<Cond> yes, no;
  for (const Cond& c : forms) {
    add_disjuncts(c, yes);
    add_disjuncts(!c, no);
  }
  std::vector<size_t> seen;
  for (const std::string& s : forms.front().free_symbols()) {
    for (size_t i : facts.assumptions_mentioning(s)) {
      const Cond& f = facts.assumptions()[i];
      bool left_out =
          f.kind() == Cond::Kind::Or || (f.kind() == Cond::Kind::Rel && f.op() == RelOp::Ne);
      if (!left_out || std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
      seen.push_back(i);
      Cond now = env.substitute(f);  // the fact may predate a replacement
      if (now.is_true() || now.is_false()) continue;
      if (implies(now, yes)) return Truth::True;
      if (implies(now, no)) return Truth::False;
    }
  }
  return Truth::Unknown;
}

// prove() on the simplest form, then the facts it leaves out, then operand by operand on every
// compound form: `a or b` is false when a guard refutes each disjunct as it was written, even if
// simplifying with the newer facts rewrote them past what prove() can connect.
// `simplified`: forms.back() is simplify()'s output, whose relations prove() already left
// undecided (simplify asks it about each one), so a lone relation is not proved again.
Truth decide_with_facts(const ShapeEnv& env, const std::vector<Cond>& forms, const Facts& facts,
                        bool simplified) {
  const Cond& c = forms.back();
  if (c.is_true()) return Truth::True;
  if (c.is_false()) return Truth::False;
  Truth t = simplified && c.kind() == Cond::Kind::Rel ? Truth::Unknown : prove(c, facts);
  if (t == Truth::Unknown) t = recall(env, forms, facts);
  if (t != Truth::Unknown) return t;
  for (size_t i = 0; i < forms.size(); ++i) {
    const Cond& f = forms[i];
    if (f.kind() != Cond::Kind::And && f.kind() != Cond::Kind::Or) continue;
    if (i + 1 < forms.size() && f.identical(c)) continue;  // the same form comes again
    const bool is_and = f.kind() == Cond::Kind::And;
    const Truth absorbing = is_and ? Truth::False : Truth::True;
    const bool operands_simplified = simplified && i + 1 == forms.size();
    bool all_neutral = true;
    for (const Cond& o : f.operands()) {
      Truth ot = decide_with_facts(env, {o}, facts, operands_simplified);
      if (ot == absorbing) return absorbing;
      all_neutral = all_neutral && ot == negate(absorbing);
    }
    if (all_neutral) return negate(absorbing);
  }
  return Truth::Unknown;
}

}  // namespace

// ---- the difference fast path ----------------------------------------------------------------

namespace {

bool holds(RelOp op, const Int& d) {  // d op 0
  switch (op) {
    case RelOp::Eq: return d == 0;
    case RelOp::Ne: return d != 0;
    case RelOp::Lt: return d < 0;
    case RelOp::Le: return d <= 0;
    case RelOp::Gt: return d > 0;
    case RelOp::Ge: return d >= 0;
  }
  return false;
}

}  // namespace

// `x - y + k op 0`; cond is the relation under the replacements, as simplify() leaves it.
struct ShapeEnv::DifferenceGoal {
  Cond cond;
  std::string x, y;
  Int k;
  RelOp op;
};

std::optional<ShapeEnv::DifferenceGoal> ShapeEnv::difference_goal(const Cond& c) const {
  if (c.kind() != Cond::Kind::Rel) return std::nullopt;
  using detail::SymbolOffset;
  auto read = [](const Cond& rel, std::optional<SymbolOffset>& l, std::optional<SymbolOffset>& r) {
    l = detail::symbol_offset(rel.lhs().ex());
    r = detail::symbol_offset(rel.rhs().ex());
    return l && r;
  };
  std::optional<SymbolOffset> l, r;
  if (!read(c, l, r)) return std::nullopt;
  Cond cond = c;
  if (!replacements_.empty() &&
      (replacements_.count(l->name) != 0 || replacements_.count(r->name) != 0)) {
    // Replacement values are free of replaced symbols: one substitution is final.
    cond = substitute(c);
    if (cond.kind() != Cond::Kind::Rel || !read(cond, l, r)) return std::nullopt;
  }
  if (l->name == r->name) return std::nullopt;
  return DifferenceGoal{cond, l->name, r->name, l->offset - r->offset, c.op()};
}

std::optional<Truth> ShapeEnv::decide_difference(const DifferenceGoal& goal,
                                                 const Facts& facts) const {
  // simplify() would rewrite a goal over a symbol the facts' own equalities eliminate.
  const std::map<std::string, Expr>& subs = facts.substitutions();
  if (!subs.empty() && (subs.count(goal.x) != 0 || subs.count(goal.y) != 0)) return std::nullopt;
  // The general path simplifies the goal (both sides are as simple as they get, and it proves
  // the relation with prove(), whose first tier this is) and then recalls the assumed `!=` and
  // `or` facts that mention it literally: the pair's `!=` facts are in the closure's index, and
  // any other makes the closure's answer inexact (nullopt here). So True and False are the
  // general path's answers, and so is Unknown where the closure is exact. Where only
  // disequalities on narrow pairs keep it from being exact, the general prover might split them
  // into a decision: it is asked while it sees every fact (a few dozen); past that it sees only
  // some of them, costs milliseconds per decision and almost never decides (4 of 191 such goals
  // in the guards6 workload at 20,000 conditions), so the Unknown stands, and the guard recorded
  // at the hints (which satisfy every fact) is true either way.
  const bool pairwise = facts.assumptions().size() > detail::kMaxProveAssumptions;
  return detail::decide_difference(facts, goal.op, &goal.x, &goal.y, goal.k, pairwise);
}

Truth ShapeEnv::decide_static(const Cond& c, const Facts& facts, bool use_cache, Cond* simplified) {
  if (std::optional<DifferenceGoal> goal = difference_goal(c)) {
    if (std::optional<Truth> t = decide_difference(*goal, facts)) {
      if (simplified) {
        *simplified = *t == Truth::Unknown ? goal->cond : Cond::truth(*t == Truth::True);
      }
      return *t;
    }
  }
  Cond subst = substitute(c);
  if (simplified) *simplified = subst;
  if (subst.is_true()) return Truth::True;
  if (subst.is_false()) return Truth::False;
  size_t key = 0;
  if (use_cache) {
    if (cache_epoch_ != epoch_ + facts_.version()) {
      cache_.clear();
      cache_epoch_ = epoch_ + facts_.version();
    }
    key = cond_hash(subst);
    auto [lo, hi] = cache_.equal_range(key);
    for (auto it = lo; it != hi; ++it) {
      if (it->second.cond.identical(subst)) {
        if (simplified) *simplified = it->second.simplified;
        return it->second.truth;
      }
    }
  }
  Cond simple = symshape::simplify(subst, facts);
  Truth t = decide_with_facts(*this, {subst, simple}, facts, true);
  if (use_cache) cache_.emplace(key, CacheEntry{subst, t, simple});
  if (simplified) *simplified = simple;
  return t;
}

Truth ShapeEnv::known(const SymBool& cond) {
  check_env(cond.env());
  return decide_static(cond.cond(), facts_, true);
}

Cond ShapeEnv::prepare_guard(const Cond& simplified, const Provenance& where) {
  if (has_unbacked(simplified.free_symbols())) {
    throw DataDependentError(simplified.str(), where);
  }
  return simplified;
}

bool ShapeEnv::evaluate(const SymBool& cond, const Provenance& where) {
  check_env(cond.env());
  if (std::optional<DifferenceGoal> goal = difference_goal(cond.cond())) {
    std::optional<Truth> t = decide_difference(*goal, facts_);
    if (t && *t != Truth::Unknown) return *t == Truth::True;
    auto hx = hints_.find(goal->x), hy = hints_.find(goal->y);
    if (t && hx != hints_.end() && hy != hints_.end()) {
      // Decided on the hints, as below (an unbacked symbol has none: the general path says so).
      const bool value = holds(goal->op, hx->second - hy->second + goal->k);
      add_guard(value ? goal->cond : !goal->cond, where);
      return value;
    }
  }
  Cond simple;
  Truth t = decide_static(cond.cond(), facts_, true, &simple);
  if (t != Truth::Unknown) return t == Truth::True;
  Cond c = prepare_guard(simple, where);
  bool value = symshape::evaluate(c, hints_);
  add_guard(value ? c : !c, where);
  return value;
}

void ShapeEnv::add_guard(const Cond& guard, const Provenance& where) {
  if (assumption_depth_ > 0) {
    throw Error("cannot decide " + guard.str() + at(where) +
                " under an assumption: only static decisions are allowed there");
  }
  guards_.push_back({guard, where});
  if (options_.log) record("guard " + guard.str() + at(where));
  learn(guard);
}

Int ShapeEnv::guard_int(const SymInt& e, const Provenance& where) {
  check_env(e.env());
  Expr s = simplify(e.expr());
  if (auto v = s.constant()) return *v;
  if (has_unbacked(s.free_symbols())) throw DataDependentError(s.str(), where);
  Int value = symshape::evaluate(s, hints_);
  add_guard(s == Expr(value), where);
  return value;
}

bool ShapeEnv::guard_or_false(const SymBool& cond, const Provenance& where) {
  Truth t = known(cond);
  if (t != Truth::Unknown) return t == Truth::True;
  if (has_unbacked(substitute(cond.cond()).free_symbols())) return false;
  return evaluate(cond, where);
}

bool ShapeEnv::guard_or_true(const SymBool& cond, const Provenance& where) {
  Truth t = known(cond);
  if (t != Truth::Unknown) return t == Truth::True;
  if (has_unbacked(substitute(cond.cond()).free_symbols())) return true;
  return evaluate(cond, where);
}

const Facts& ShapeEnv::size_oblivious_facts() {
  if (!oblivious_facts_ || oblivious_version_ != epoch_ + facts_.version()) {
    oblivious_facts_ = facts_;
    for (const SymbolInfo& info : symbols_) {
      if (!info.size_like) continue;
      // A size-like symbol that cannot reach 2 keeps its range: an empty one would prove anything.
      const ValueRange r = facts_.range_of(info.name);
      if (!r.hi() || *r.hi() >= 2)
        oblivious_facts_->refine_range(info.name, ValueRange::at_least(2));
    }
    oblivious_version_ = epoch_ + facts_.version();
  }
  return *oblivious_facts_;
}

bool ShapeEnv::guard_size_oblivious(const SymBool& cond, const Provenance& where) {
  check_env(cond.env());
  Truth t = decide_static(cond.cond(), size_oblivious_facts(), false);
  if (t != Truth::Unknown) return t == Truth::True;
  return evaluate(cond, where);
}

void ShapeEnv::defer_runtime_assert(const SymBool& cond, const Provenance& where) {
  Truth t = known(cond);
  if (t == Truth::True) return;
  Cond subst = substitute(cond.cond());
  if (t == Truth::False) {
    // The condition as asked (simplified, it would only read `False`).
    throw Error("runtime assertion " + subst.str() + " can never hold" + at(where));
  }
  Cond c = symshape::simplify(subst, facts_);
  if (!has_unbacked(c.free_symbols()) && !symshape::evaluate(c, hints_)) {
    // Learning it would make the env contradict the example inputs it was built from.
    throw Error("runtime assertion " + subst.str() + " fails for the example inputs" + at(where));
  }
  runtime_asserts_.push_back({c, where});
  record("runtime_assert " + c.str() + at(where));
  learn(c);
}

// ---- learning ------------------------------------------------------------------------------

namespace {

// d as c*x + k for one symbol x and integer constants c != 0, k.
struct LinearInOne {
  std::string symbol;
  Int coeff;
  Int constant;
};

// d times the lcm of its coefficients' denominators: the same sign, integer coefficients. Exact
// quotients carry rational coefficients (`s0//2 >= 5` is (1/2)*s0 - 5 >= 0, i.e. s0 - 10 >= 0).
GiNaC::ex without_denominators(const GiNaC::ex& d) {
  GiNaC::ex e = d.expand();
  if (!detail::is_exactly<GiNaC::add>(e) && !detail::is_exactly<GiNaC::mul>(e)) return e;
  GiNaC::numeric den = e.integer_content().denom();
  return den.is_equal(1) ? e : (e * den).expand();
}

std::optional<LinearInOne> linear_in_one(const Expr& d) {
  std::vector<std::string> syms = d.free_symbols();
  if (syms.size() != 1) return std::nullopt;
  GiNaC::ex e = without_denominators(d.ex());
  GiNaC::ex x = Expr::symbol(syms[0]).ex();
  if (!e.is_polynomial(x) || e.degree(x) != 1) return std::nullopt;
  GiNaC::ex c = e.coeff(x, 1), k = e.coeff(x, 0);
  if (!detail::is_int(c) || !detail::is_int(k)) return std::nullopt;
  return LinearInOne{syms[0], detail::int_of(c), detail::int_of(k)};
}

// The range of x implied by c*x + k `op` 0.
ValueRange solve_bound(const LinearInOne& l, RelOp op) {
  // Normalize to x op' v with v = -k / c (rational), flipping op when c < 0.
  RelOp o = l.coeff < 0 ? reverse(op) : op;
  Int num = -l.constant, den = l.coeff;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  Int fl = cln::floor1(num, den), ce = cln::ceiling1(num, den);
  switch (o) {
    case RelOp::Ge: return ValueRange::at_least(ce);
    case RelOp::Gt: return ValueRange::at_least(fl + 1);
    case RelOp::Le: return ValueRange::at_most(fl);
    case RelOp::Lt: return ValueRange::at_most(ce - 1);
    case RelOp::Eq: return fl == ce ? ValueRange::point(fl) : ValueRange::empty();
    case RelOp::Ne: break;
  }
  return ValueRange::all();
}

// Records divisor | dividend in its most useful form. For a polynomial with integer coefficients
// and content g, (divisor / gcd(divisor, g)) | (dividend / g): `3 | 2*s0` becomes `3 | s0`, which
// the ranges and the simplifier can use (a bare symbol's divisor is kept separately).
void add_divisibility_reduced(Facts& facts, const Expr& dividend, Int divisor) {
  divisor = cln::abs(divisor);
  if (divisor == 0 || divisor == 1) return;
  GiNaC::ex d = dividend.ex().expand();
  if (detail::has_integer_coefficients(d) && !d.is_zero()) {
    Int g = detail::int_of(d.integer_content());
    divisor = cln::exquo(divisor, cln::gcd(divisor, g));
    d = (d / detail::ex_of(g)).expand();
  }
  if (divisor == 1) return;
  Expr e(d);
  if ((-e).is_symbol()) e = -e;  // d | -x is d | x
  facts.add_divisibility(e, Expr(divisor));
}

}  // namespace

void ShapeEnv::refine(const std::string& name, const ValueRange& r) {
  ValueRange before = facts_.range_of(name);
  ValueRange after = before.intersect(r);
  if (after == before) return;
  if (after.is_empty()) {
    throw ConstraintViolation("the range of " + name + " became empty: " + before.str() + " and " +
                              r.str() + " do not meet");
  }
  facts_.set_range(name, after);
  ++epoch_;
  if (after.is_point()) add_replacement(name, Expr(*after.lo()));
}

void ShapeEnv::learn(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True: return;
    case Cond::Kind::False: throw Error("learned a condition that is false: the facts contradict");
    case Cond::Kind::And:
      for (const Cond& o : c.operands()) learn(substitute(o));
      return;
    case Cond::Kind::Or: facts_.assume(c); return;
    case Cond::Kind::Rel: break;
  }
  ++epoch_;
  if (c.op() == RelOp::Eq) {
    // `k*(p % q) == 0` says what `p % q == 0` says: record it in that form, as divisibility.
    Expr d = c.lhs() - c.rhs();
    if (detail::is_exactly<GiNaC::mul>(d.ex())) {
      GiNaC::ex k = d.ex().op(d.ex().nops() - 1);
      if (detail::is_int(k) && !k.is_zero()) d = Expr(d.ex() / k);
    }
    facts_.assume(function_of(d.ex()) == Fn::Mod ? (d == 0) : c);
    learn_equality(c.lhs(), c.rhs());
    return;
  }
  // `x + a op y + b` over two symbols: no bound on one symbol (linear_in_one), and nothing to
  // substitute unless a replacement names one of them; read without building the difference.
  auto x = detail::symbol_offset(c.lhs().ex()), y = detail::symbol_offset(c.rhs().ex());
  if (x && y && x->name != y->name) {
    const bool replaced = !replacements_.empty() &&
                          (replacements_.count(x->name) != 0 || replacements_.count(y->name) != 0);
    facts_.assume(replaced ? substitute(c) : c);
    return;
  }
  Expr d = c.lhs() - c.rhs();
  if (auto l = linear_in_one(d)) {
    if (c.op() == RelOp::Ne) {
      // x != v at an end of x's range moves that end.
      ValueRange r = facts_.range_of(l->symbol);
      ValueRange eq = solve_bound(*l, RelOp::Eq);
      if (eq.is_point() && r.lo() && *r.lo() == *eq.lo())
        refine(l->symbol, ValueRange::at_least(*r.lo() + 1));
      if (eq.is_point() && r.hi() && *r.hi() == *eq.lo())
        refine(l->symbol, ValueRange::at_most(*r.hi() - 1));
    } else {
      refine(l->symbol, solve_bound(*l, c.op()));
    }
  }
  facts_.assume(substitute(c));
}

void ShapeEnv::learn_equality(const Expr& lhs, const Expr& rhs) {
  GiNaC::ex d = without_denominators((lhs - rhs).ex());
  // Solve for one symbol that occurs linearly with a constant coefficient: unbacked symbols
  // first (a backed expression has a hint), then the latest, preferring a coefficient of +-1.
  const SymbolInfo* best = nullptr;
  Int best_coeff;
  auto better = [&](const SymbolInfo& a, const Int& ca) {
    if (!best) return true;
    bool ua = a.kind == SymbolKind::Unbacked, ub = best->kind == SymbolKind::Unbacked;
    if (ua != ub) return ua;
    bool oa = cln::abs(ca) == 1, ob = cln::abs(best_coeff) == 1;
    if (oa != ob) return oa;
    return a.index > best->index;
  };
  for (const std::string& s : Expr(d).free_symbols()) {
    GiNaC::ex x = Expr::symbol(s).ex();
    if (!d.is_polynomial(x) || d.degree(x) != 1) continue;
    GiNaC::ex c = d.coeff(x, 1);
    if (!detail::is_int(c) || d.coeff(x, 0).has(x) || !has_symbol(s)) continue;
    const SymbolInfo& info = symbol(s);
    // A backed symbol equal to a data-dependent expression is not solved for: it keeps its hint.
    if (info.kind == SymbolKind::Backed && has_unbacked(Expr(d.coeff(x, 0)).free_symbols())) {
      continue;
    }
    if (better(info, detail::int_of(c))) {
      best = &info;
      best_coeff = detail::int_of(c);
    }
  }
  if (!best) return;  // non-linear: kept as a fact by the caller
  GiNaC::ex x = Expr::symbol(best->name).ex();
  Expr rest(-(d.coeff(x, 0)));
  Expr value =
      cln::abs(best_coeff) == 1 ? rest * Expr(best_coeff) : exact_div(rest, Expr(best_coeff));
  if (cln::abs(best_coeff) != 1) add_divisibility_reduced(facts_, rest, best_coeff);
  add_replacement(best->name, value);
}

void ShapeEnv::add_replacement(const std::string& name, const Expr& raw_value) {
  Expr value = substitute(raw_value);
  if (value.has_symbol(name)) return;  // not a solution
  replacements_[name] = value;
  ++epoch_;
  for (auto& [other, v] : replacements_) {
    if (other != name && v.has_symbol(name)) v = v.subs({{name, value}});
  }
  record((value.is_constant() ? "specialize " : "replace ") + name + " := " + value.str());
  // What was known of the replaced symbol now constrains its replacement.
  ValueRange r = facts_.range_of(name);
  if (auto v = value.constant()) {
    if (!r.contains(*v)) {
      throw ConstraintViolation(name + " := " + value.str() + " is outside its range " + r.str());
    }
  } else {
    if (r.lo()) learn(Cond::rel(RelOp::Ge, value, Expr(*r.lo())));
    if (r.hi()) learn(Cond::rel(RelOp::Le, value, Expr(*r.hi())));
    Int divisor = facts_.known_divisor(name);
    if (divisor != 1) add_divisibility_reduced(facts_, value, divisor);
  }
  std::vector<Cond> stale;
  for (size_t i : facts_.assumptions_mentioning(name)) stale.push_back(facts_.assumptions()[i]);
  for (const Cond& c : stale) facts_.assume(substitute(c));
}

ShapeEnv::Checkpoint ShapeEnv::checkpoint() const {
  return Checkpoint{symbols_,     by_name_,         duck_by_hint_, hints_,
                    next_backed_, next_unbacked_,   facts_,        replacements_,
                    guards_,      runtime_asserts_, log_.size()};
}

void ShapeEnv::rollback(const Checkpoint& cp) {
  symbols_ = cp.symbols;
  by_name_ = cp.by_name;
  duck_by_hint_ = cp.duck_by_hint;
  hints_ = cp.hints;
  next_backed_ = cp.next_backed;
  next_unbacked_ = cp.next_unbacked;
  facts_ = cp.facts;
  replacements_ = cp.replacements;
  guards_ = cp.guards;
  runtime_asserts_ = cp.runtime_asserts;
  if (log_.size() > cp.log_size) log_.resize(cp.log_size);
  // The facts' version may now repeat one the caches saw with other contents.
  ++epoch_;
  cache_.clear();
  simplify_cache_.clear();
  oblivious_facts_.reset();
}

AssumptionScope::AssumptionScope(ShapeEnv& env, const SymBool& cond)
    : env_(env), saved_(env.checkpoint()) {
  env.check_env(cond.env());
  if (env.known(cond) == Truth::False) {
    throw ContradictoryFacts("contradictory facts: cannot assume " + cond.str() +
                             ": the facts say it is false");
  }
  ++env.assumption_depth_;
  try {
    env.learn(env.substitute(cond.cond()));
  } catch (...) {
    --env.assumption_depth_;
    env.rollback(saved_);
    throw;
  }
}

AssumptionScope::~AssumptionScope() {
  --env_.assumption_depth_;
  env_.rollback(saved_);
}

}  // namespace symshape
