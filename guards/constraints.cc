// User constraints: declared dynamic dims that the guards contradict, with fixes in the manner of
// torch.export (`batch = Dim('batch', min=2, max=64)`, `seq = 2*_seq`, `batch = 8`).
#include <set>

#include "guards/internal.h"
#include "symshape/expr/functions.h"
#include "symshape/guards.h"
#include "symshape/prove.h"

namespace symshape {

namespace {

std::string bound_text(const Int& v) { return to_string(v); }

// "2 <= batch <= 64", "batch <= 1024", "batch >= 2".
std::string range_text(const std::string& name, const ValueRange& r) {
  if (r.lo() && r.hi()) return bound_text(*r.lo()) + " <= " + name + " <= " + bound_text(*r.hi());
  if (r.lo()) return name + " >= " + bound_text(*r.lo());
  if (r.hi()) return name + " <= " + bound_text(*r.hi());
  return name + " (unbounded)";
}

// Dim('batch', min=2, max=64), leaving out infinite ends.
std::string dim_decl(const std::string& name, const std::optional<Int>& lo,
                     const std::optional<Int>& hi) {
  std::string text = "Dim('" + name + "'";
  if (lo) text += ", min=" + bound_text(*lo);
  if (hi) text += ", max=" + bound_text(*hi);
  return text + ")";
}

Int ceil_div(const Int& a, const Int& b) { return cln::ceiling1(a, b); }
Int floor_div(const Int& a, const Int& b) { return cln::floor1(a, b); }

class ConstraintChecker {
 public:
  explicit ConstraintChecker(const ShapeEnv& env) : env_(env) {}

  std::vector<ConstraintProblem> run() {
    for (const SymbolInfo& info : env_.symbols()) {
      if (info.kind != SymbolKind::Backed || !info.user_constraint) continue;
      check(info);
    }
    return std::move(problems_);
  }

 private:
  // The range a dynamic dim may take at all: the declaration, from 2 up when 0 and 1 are
  // specialized (a declared min of 0 or 1 is not a violation, as in torch.export).
  ValueRange base_range(const SymbolInfo& info) const {
    ValueRange floor = ValueRange::at_least(env_.options().specialize_zero_one ? 2 : 0);
    return info.user_constraint->intersect(floor);
  }

  std::string label(const SymbolInfo& info) const {
    return info.name + (info.source.empty() ? "" : " = " + info.source);
  }

  std::string intro(const SymbolInfo& info) const {
    return "Not all values of " + label(info) + " in the specified range " +
           range_text(info.name, *info.user_constraint);
  }

  // The env's guards mentioning the symbol, under the replacements (each printed once).
  std::vector<std::pair<Cond, Provenance>> guards_on(const std::string& name,
                                                     bool raw = false) const {
    std::vector<std::pair<Cond, Provenance>> out;
    std::set<std::string> seen;
    for (const Guard& g : env_.guards()) {
      Cond c = raw ? g.cond : guards::normalize(env_.substitute(g.cond));
      if (c.is_true()) continue;
      bool mentions = false;
      for (const std::string& s : c.free_symbols()) mentions |= s == name;
      if (mentions && seen.insert(c.str()).second) out.emplace_back(c, g.where);
    }
    return out;
  }

  static std::string cite(const Cond& c, const Provenance& where) {
    std::string p = where.str();
    return "`" + c.str() + "`" + (p.empty() ? "" : " (" + p + ")");
  }

  void add(const SymbolInfo& info, std::string message, std::vector<std::string> fixes) {
    problems_.push_back({info.name, std::move(message), std::move(fixes)});
  }

  void check(const SymbolInfo& info) {
    auto rep = env_.replacements().find(info.name);
    if (rep != env_.replacements().end()) {
      check_replacement(info, rep->second);
      return;
    }
    const ValueRange base = base_range(info);
    ValueRange now = env_.facts().range_of(info.name);
    // A bound the env kept as a guard rather than a range (`seq == min(512, seq)`, which
    // normalizes to `seq <= 512`) narrows the range the same way.
    for (const auto& [c, where] : guards_on(info.name)) {
      if (auto r = guards::lone_bound(c, info.name)) now = now.intersect(*r);
    }
    if (!(now == base) && base.contains(now)) {
      std::string guards;
      for (const auto& [c, where] : guards_on(info.name)) {
        if (c.free_symbols().size() == 1) guards += (guards.empty() ? "" : ", ") + cite(c, where);
      }
      // Keep the user's own ends where the guards did not move them.
      std::optional<Int> lo = now.lo(), hi = now.hi();
      if (lo && base.lo() && *lo == *base.lo()) lo = info.user_constraint->lo();
      add(info,
          intro(info) + " satisfy the generated guard" + (guards.empty() ? "s" : " " + guards) +
              "; the guards allow " + range_text(info.name, now) + ".",
          {info.name + " = " + dim_decl(info.name, lo, hi)});
    }
    // A multiple-of guard on the dim alone: a derived dim k*_dim.
    Int k = 1;
    std::string cited;
    for (const auto& [c, where] : guards_on(info.name)) {
      if (c.kind() != Cond::Kind::Rel || c.op() != RelOp::Eq || !c.rhs().is_constant()) continue;
      const GiNaC::ex& m = c.lhs().ex();
      if (function_of(m) != Fn::Mod || !Expr(m.op(0)).is_symbol() || !detail::is_int(m.op(1)))
        continue;
      k = cln::lcm(k, detail::int_of(m.op(1)));
      cited += (cited.empty() ? "" : ", ") + cite(c, where);
    }
    if (k > 1) {
      const std::string root = "_" + info.name;
      std::optional<Int> lo, hi;
      if (now.lo()) lo = ceil_div(*now.lo(), k);
      if (now.hi()) hi = floor_div(*now.hi(), k);
      add(info,
          intro(info) + " satisfy the generated guard " + cited + ": " + info.name +
              " must be a multiple of " + to_string(k) + ".",
          {root + " = " + dim_decl(root, lo, hi), info.name + " = " + to_string(k) + "*" + root});
    }
    check_relations(info, base);
  }

  void check_replacement(const SymbolInfo& info, const Expr& value) {
    auto guards = guards_on(info.name, /*raw=*/true);
    std::string because =
        guards.empty() ? "" : " (from the guard " + cite(guards[0].first, guards[0].second) + ")";
    if (value.is_constant()) {
      std::string why = guards.empty() && info.hint && (*info.hint == 0 || *info.hint == 1)
                            ? " (sizes 0 and 1 are specialized: give an example size of at least 2)"
                            : because;
      add(info,
          intro(info) + " are valid because " + info.name + " was inferred to be a constant (" +
              value.str() + ")" + why + ".",
          {info.name + " = " + value.str()});
      return;
    }
    std::string other = value.is_symbol() ? value.symbol_name() : "";
    std::string what = other.empty() ? label(info) + " must always equal " + value.str()
                                     : "The values of " + label(info) + " and " +
                                           label(env_.symbol(other)) + " must always be equal";
    add(info, what + because + ".", {info.name + " = " + value.str()});
  }

  // A guard tying the dim to other dims (`a <= b`, `(a*b) % 4 == 0`) that the declarations do
  // not imply. No declaration fixes it; the report says which guard.
  void check_relations(const SymbolInfo& info, const ValueRange& base) {
    Facts declared(env_.facts().default_range());
    for (const SymbolInfo& s : env_.symbols()) {
      if (s.user_constraint && s.kind == SymbolKind::Backed) {
        declared.set_range(s.name, base_range(s));
      } else {
        declared.set_range(s.name, env_.facts().range_of(s.name));
      }
    }
    declared.set_range(info.name, base);
    for (const auto& [c, where] : guards_on(info.name)) {
      if (c.free_symbols().size() < 2) continue;  // ranges and multiples are reported above
      if (prove(c, declared) == Truth::True) continue;
      add(info, intro(info) + " satisfy the generated guard " + cite(c, where) + ".", {});
    }
  }

  const ShapeEnv& env_;
  std::vector<ConstraintProblem> problems_;
};

}  // namespace

std::vector<ConstraintProblem> check_constraints(const ShapeEnv& env) {
  return ConstraintChecker(env).run();
}

std::string format_constraint_problems(const std::vector<ConstraintProblem>& problems) {
  if (problems.empty()) return "";
  std::vector<std::string> dims;
  for (const ConstraintProblem& p : problems) {
    if (std::find(dims.begin(), dims.end(), p.dim) == dims.end()) dims.push_back(p.dim);
  }
  std::string text = "Constraints violated (";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + dims[i];
  text += ")!\n";
  std::vector<std::string> fixes;
  for (const ConstraintProblem& p : problems) {
    text += "  - " + p.message + "\n";
    for (const std::string& f : p.fixes) {
      if (std::find(fixes.begin(), fixes.end(), f) == fixes.end()) fixes.push_back(f);
    }
  }
  if (!fixes.empty()) {
    text += "Suggested fixes:\n";
    for (const std::string& f : fixes) text += "  " + f + "\n";
  }
  return text;
}

}  // namespace symshape
