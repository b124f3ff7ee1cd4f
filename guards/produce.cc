// produce_guards: from what the ShapeEnv decided to conditions over the inputs' sources.
#include <ginac/ginac.h>

#include <algorithm>
#include <set>

#include "guards/internal.h"
#include "symshape/expr/functions.h"
#include "symshape/guards.h"
#include "symshape/onnx.h"
#include "symshape/propagate.h"
#include "symshape/prove.h"
#include "symshape/simplify.h"

namespace symshape {

size_t GuardSet::find_source(std::string_view name_or_identifier) const {
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].name == name_or_identifier || sources[i].identifier == name_or_identifier)
      return i;
  }
  return sources.size();
}

std::vector<GuardInput> graph_inputs(const Graph& graph) {
  std::vector<GuardInput> inputs;
  const bool onnx = onnx::is_onnx_graph(graph);
  for (const Node& n : graph.nodes) {
    if (n.op != NodeOp::Placeholder || !n.shape) continue;
    inputs.push_back({n.name, *n.shape, n.stride ? *n.stride : std::vector<Expr>{}, !onnx});
  }
  return inputs;
}

namespace guards {

std::string mangle(std::string_view text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

Cond normalize(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True:
    case Cond::Kind::False: return c;
    case Cond::Kind::And:
    case Cond::Kind::Or: {
      std::vector<Cond> parts;
      for (const Cond& o : c.operands()) parts.push_back(normalize(o));
      return c.kind() == Cond::Kind::And ? Cond::all(std::move(parts))
                                         : Cond::any(std::move(parts));
    }
    case Cond::Kind::Rel: break;
  }
  // `k*X op 0` (or `0 op k*X`) with a constant k: `X op' 0`, flipping inequalities for k < 0.
  // The env records `4*(a % 4) == 0` when a rule asks whether 4*a is a multiple of 16.
  // `x == min(x, y)` is `x <= y`, and `x == max(x, y)` is `x >= y` (a clamp that must not
  // clamp); != negates them.
  if (c.op() == RelOp::Eq || c.op() == RelOp::Ne) {
    for (int flip = 0; flip < 2; ++flip) {
      const Expr& x = flip ? c.rhs() : c.lhs();
      const GiNaC::ex& m = (flip ? c.lhs() : c.rhs()).ex();
      Fn f = function_of(m);
      if (f != Fn::Min && f != Fn::Max) continue;
      for (int k = 0; k < 2; ++k) {
        if (!Expr(m.op(k)).identical(x)) continue;
        Cond bound = Cond::rel(f == Fn::Min ? RelOp::Le : RelOp::Ge, x, Expr(m.op(1 - k)));
        return c.op() == RelOp::Eq ? normalize(bound) : normalize(Cond::negation(bound));
      }
    }
  }
  RelOp op = c.op();
  Expr side = c.lhs();
  if (c.lhs().is_constant() && *c.lhs().constant() == 0) {
    side = c.rhs();
    op = reverse(op);
  } else if (!(c.rhs().is_constant() && *c.rhs().constant() == 0)) {
    return c;
  }
  const GiNaC::ex& e = side.ex();
  if (!detail::is_exactly<GiNaC::mul>(e)) return reduce_multiple(Cond::rel(op, side, Expr(0)));
  GiNaC::ex coeff = 1, rest = 1;
  for (size_t i = 0; i < e.nops(); ++i) {
    if (detail::is_int(e.op(i))) {
      coeff *= e.op(i);
    } else {
      rest *= e.op(i);
    }
  }
  if (coeff.is_equal(1) || !detail::is_int(coeff)) return reduce_multiple(c);
  if (detail::int_of(coeff) < 0 && op != RelOp::Eq && op != RelOp::Ne) op = reverse(op);
  return reduce_multiple(Cond::rel(op, Expr(rest), Expr(0)));
}

Cond reduce_multiple(const Cond& c) {
  // `(a*x + b) % k == 0` (or != 0) with constant k > 0: each coefficient and the constant only
  // matter modulo k, and a common factor g of them all and k divides out: `(3*n) % 2 == 0` is
  // `n % 2 == 0`, `(4*n + 2) % 6 == 0` is `(2*n + 1) % 3 == 0`.
  if (c.kind() != Cond::Kind::Rel || (c.op() != RelOp::Eq && c.op() != RelOp::Ne)) return c;
  if (!c.rhs().is_constant() || *c.rhs().constant() != 0) return c;
  const GiNaC::ex& m = c.lhs().ex();
  if (function_of(m) != Fn::Mod || !detail::is_int(m.op(1))) return c;
  const Int k = detail::int_of(m.op(1));
  if (k <= 1) return c;
  GiNaC::ex x = m.op(0).expand();
  if (!detail::has_integer_coefficients(x)) return c;
  std::vector<std::pair<Int, GiNaC::ex>> terms;  // coefficient mod k, monomial
  auto add_term = [&](const GiNaC::ex& t) {
    if (detail::is_int(t)) {
      terms.emplace_back(cln::mod(detail::int_of(t), k), GiNaC::ex(1));
      return;
    }
    GiNaC::ex coeff = 1, rest = 1;
    if (detail::is_exactly<GiNaC::mul>(t)) {
      for (size_t i = 0; i < t.nops(); ++i) (detail::is_int(t.op(i)) ? coeff : rest) *= t.op(i);
    } else {
      rest = t;
    }
    terms.emplace_back(cln::mod(detail::int_of(coeff), k), rest);
  };
  if (detail::is_exactly<GiNaC::add>(x)) {
    for (size_t i = 0; i < x.nops(); ++i) add_term(x.op(i));
  } else {
    add_term(x);
  }
  Int g = k;
  for (const auto& [a, t] : terms) g = cln::gcd(g, a);
  GiNaC::ex reduced = 0;
  for (const auto& [a, t] : terms) reduced += detail::ex_of(cln::exquo(a, g)) * t;
  Int modulus = cln::exquo(k, g);
  if (modulus == 1) return Cond::truth(c.op() == RelOp::Eq);
  return Cond::rel(c.op(), mod(Expr(reduced), Expr(modulus)), Expr(0));
}

std::optional<ValueRange> lone_bound(const Cond& c, const std::string& name) {
  if (c.kind() != Cond::Kind::Rel) return std::nullopt;
  RelOp op = c.op();
  Expr side = c.lhs(), bound = c.rhs();
  if (side.is_constant()) {
    std::swap(side, bound);
    op = reverse(op);
  }
  if (!side.is_symbol() || side.symbol_name() != name || !bound.is_constant()) return std::nullopt;
  const Int b = *bound.constant();
  switch (op) {
    case RelOp::Eq: return ValueRange::point(b);
    case RelOp::Lt: return ValueRange::at_most(b - 1);
    case RelOp::Le: return ValueRange::at_most(b);
    case RelOp::Gt: return ValueRange::at_least(b + 1);
    case RelOp::Ge: return ValueRange::at_least(b);
    case RelOp::Ne: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace guards

namespace {

using guards::mangle;

// A source and what the env says its value is.
struct Read {
  size_t source;
  Expr value;     // over the env's symbols, replacements applied
  Expr declared;  // as the graph wrote it
  std::string input;
};

class Producer {
 public:
  explicit Producer(const ShapeEnv& env) : env_(env) {}

  GuardSet run(const std::vector<GuardInput>& inputs) {
    add_reads(inputs);
    collect_used_symbols();
    define_symbols();
    emit_equalities();
    emit_guards();
    emit_ranges();
    emit_runtime_asserts();
    return std::move(set_);
  }

 private:
  size_t add_source(Source s) {
    std::string id = s.identifier;
    for (int k = 2; taken_.count(id); ++k) id = s.identifier + std::to_string(k) + "_";
    taken_.insert(id);
    s.identifier = id;
    set_.sources.push_back(std::move(s));
    return set_.sources.size() - 1;
  }

  Expr var(size_t source) const { return Expr::symbol(set_.sources[source].identifier); }

  Expr value_of(const Expr& declared) const {
    return simplify(env_.substitute(declared), env_.facts());
  }

  void add_reads(const std::vector<GuardInput>& inputs) {
    // Sizes first (they define the symbols), then strides.
    for (const GuardInput& in : inputs) {
      for (size_t k = 0; k < in.sizes.size(); ++k) {
        Source s{Source::Kind::Size, in.name, k, size_source(in.name, k),
                 "L_" + mangle(in.name) + "_size_" + std::to_string(k) + "_"};
        reads_.push_back({add_source(std::move(s)), value_of(in.sizes[k]), in.sizes[k], in.name});
      }
    }
    for (const GuardInput& in : inputs) {
      if (!in.has_strides) continue;
      std::vector<Expr> strides = in.strides.size() == in.sizes.size()
                                      ? in.strides
                                      : TensorMeta::contiguous_strides(in.sizes);
      for (size_t k = 0; k < strides.size(); ++k) {
        Source s{Source::Kind::Stride, in.name, k, stride_source(in.name, k),
                 "L_" + mangle(in.name) + "_stride_" + std::to_string(k) + "_"};
        reads_.push_back({add_source(std::move(s)), value_of(strides[k]), strides[k], in.name});
        stride_reads_.insert(reads_.size() - 1);
      }
    }
  }

  bool is_backed(const std::string& name) const {
    return env_.has_symbol(name) && env_.symbol(name).kind == SymbolKind::Backed;
  }

  void collect_used_symbols() {
    auto note = [&](const std::vector<std::string>& names) {
      for (const std::string& n : names) {
        if (is_backed(n)) used_.insert(n);
      }
    };
    for (const Read& r : reads_) note(r.value.free_symbols());
    for (const Guard& g : env_.guards()) note(env_.substitute(g.cond).free_symbols());
    for (const RuntimeAssert& a : env_.runtime_asserts())
      note(env_.substitute(a.cond).free_symbols());
  }

  // Each used symbol is the first source equal to it; else (src - b)/a for the first source
  // equal to a*symbol + b; else a `dims['name']` source of its own.
  void define_symbols() {
    for (size_t i = 0; i < reads_.size(); ++i) {
      const Read& r = reads_[i];
      if (r.value.is_symbol() && used_.count(r.value.symbol_name()) &&
          !definition_.count(r.value.symbol_name())) {
        definition_[r.value.symbol_name()] = var(r.source);
        defining_read_[i] = r.value.symbol_name();
      }
    }
    for (size_t i = 0; i < reads_.size(); ++i) {
      const Read& r = reads_[i];
      std::vector<std::string> syms = r.value.free_symbols();
      if (syms.size() != 1 || definition_.count(syms[0]) || !used_.count(syms[0])) continue;
      GiNaC::ex e = r.value.ex().expand();
      GiNaC::ex s = Expr::symbol(syms[0]).ex();
      if (!e.is_polynomial(s) || e.degree(s) != 1) continue;
      GiNaC::ex a = e.coeff(s, 1), b = e.coeff(s, 0);
      if (!detail::is_int(a) || !detail::is_int(b)) continue;
      Expr src = var(r.source);
      definition_[syms[0]] = exact_div(src - Expr(b), Expr(a));
      linear_[i] = {syms[0], detail::int_of(a), detail::int_of(b)};
      defining_read_[i] = syms[0];
    }
    for (const SymbolInfo& info : env_.symbols()) {
      if (!used_.count(info.name) || definition_.count(info.name)) continue;
      Source s{Source::Kind::Dim, info.name, 0, "dims[" + python_string_literal(info.name) + "]",
               "dims_" + mangle(info.name) + "_"};
      definition_[info.name] = var(add_source(std::move(s)));
    }
    for (const SymbolInfo& info : env_.symbols()) {
      auto it = definition_.find(info.name);
      if (it == definition_.end()) continue;
      set_.symbols.push_back({info.name, it->second, env_.facts().range_of(info.name)});
    }
  }

  Expr to_sources(const Expr& e) const { return e.subs(definition_); }
  Cond to_sources(const Cond& c) const { return c.subs(definition_); }

  // Which guard made `name` what it is (a replacement or a narrowed range): the first guard
  // whose condition mentions it.
  Provenance cause(const std::string& name) const {
    for (const Guard& g : env_.guards()) {
      for (const std::string& s : g.cond.free_symbols()) {
        if (s == name) return g.where;
      }
    }
    return {};
  }

  Provenance equality_cause(const Read& r, size_t index) const {
    if (stride_reads_.count(index)) {
      return {r.input, "placeholder", r.declared.is_constant() ? "stride" : "strides"};
    }
    // A declared symbol that a guard replaced, or specialized.
    for (const std::string& s : r.declared.free_symbols()) {
      if (env_.replacements().count(s)) {
        Provenance p = cause(s);
        if (!p.str().empty()) return p;
        if (env_.has_symbol(s) && env_.symbol(s).hint)
          return {r.input, "placeholder",
                  "size " + to_string(*env_.symbol(s).hint) + " specialized"};
      }
    }
    if (r.declared.is_constant()) return {r.input, "placeholder", "static size"};
    if (r.value.is_symbol())
      return {r.input, "placeholder", "same dim '" + r.value.symbol_name() + "'"};
    return {r.input, "placeholder", "size " + r.declared.str()};
  }

  void emit_equalities() {
    for (size_t i = 0; i < reads_.size(); ++i) {
      const Read& r = reads_[i];
      auto lin = linear_.find(i);
      if (lin != linear_.end()) {
        // The source defines its symbol as (src - b)/a: it must be b modulo a.
        const auto& [name, a, b] = lin->second;
        if (a != 1 && a != -1) {
          Cond c = mod(var(r.source) - Expr(b), Expr(cln::abs(a))) == Expr(0);
          set_.guards.push_back({ProducedGuard::Kind::Equality,
                                 c,
                                 {r.input, "placeholder", "size " + r.declared.str()}});
        }
        continue;
      }
      if (defining_read_.count(i)) continue;
      Cond c = var(r.source) == to_sources(r.value);
      if (c.is_true()) continue;
      set_.guards.push_back({ProducedGuard::Kind::Equality, c, equality_cause(r, i)});
    }
  }

  // The facts every input satisfies once the equalities and ranges hold.
  Facts base_facts() const {
    Facts f(env_.facts().default_range());
    for (const auto& [name, range] : env_.facts().ranges()) f.set_range(name, range);
    return f;
  }

  void emit_guards() {
    struct Candidate {
      Cond cond;  // over the env's symbols
      Provenance where;
      std::vector<Provenance> duplicates;  // later guards with the same condition
      bool kept = true;
    };
    std::vector<Candidate> cands;
    std::map<std::string, size_t> seen;  // condition text -> candidate
    const Facts ranges = base_facts();
    for (const Guard& g : env_.guards()) {
      Cond substituted = env_.substitute(g.cond);
      Cond c = guards::normalize(simplify(substituted, ranges));
      if (c.is_true()) {
        // Implied by the ranges, which it may have narrowed: the range line cites it.
        absorb(substituted, g.where);
        continue;
      }
      auto [it, fresh] = seen.emplace(c.str(), cands.size());
      if (!fresh) {
        cands[it->second].duplicates.push_back(g.where);
        continue;
      }
      cands.push_back({c, g.where, {}});
    }
    auto absorb_candidate = [&](const Candidate& c) {
      absorb(c.cond, c.where);
      for (const Provenance& d : c.duplicates) absorb(c.cond, d);
    };
    // Forward: drop what the ranges and the earlier kept guards imply.
    Facts facts = base_facts();
    for (Candidate& c : cands) {
      if (prove(c.cond, facts) == Truth::True) {
        c.kept = false;
        absorb_candidate(c);
        continue;
      }
      facts.assume(c.cond);
    }
    // Backward (bounded, it rebuilds the facts per guard): drop a kept guard that the later
    // ones imply.
    constexpr size_t kBackwardLimit = 256;
    if (cands.size() <= kBackwardLimit) {
      for (size_t i = cands.size(); i-- > 0;) {
        if (!cands[i].kept) continue;
        Facts others = base_facts();
        for (size_t j = 0; j < cands.size(); ++j) {
          if (j != i && cands[j].kept) others.assume(cands[j].cond);
        }
        if (prove(cands[i].cond, others) == Truth::True) cands[i].kept = false;
      }
    }
    for (const Candidate& c : cands) {
      if (!c.kept) continue;
      // A bound on one symbol (`seq <= 512`) joins that symbol's range line.
      std::vector<std::string> syms = c.cond.free_symbols();
      if (syms.size() == 1 && definition_.count(syms[0])) {
        if (auto r = guards::lone_bound(c.cond, syms[0])) {
          bounds_[syms[0]] = bounds_.count(syms[0]) ? bounds_[syms[0]].intersect(*r) : *r;
          absorb_candidate(c);
          continue;
        }
      }
      ProducedGuard g{ProducedGuard::Kind::Guard, to_sources(c.cond), c.where, {}};
      if (!c.duplicates.empty()) {
        g.merged.push_back({g.cond, c.where});
        for (const Provenance& d : c.duplicates) g.merged.push_back({g.cond, d});
      }
      set_.guards.push_back(std::move(g));
    }
  }

  // A guard that the ranges or the other guards imply: a range line may cite it.
  void absorb(const Cond& cond, const Provenance& where) {
    absorbed_.push_back({cond, where, cond.free_symbols()});
  }

  // Whether a requirement on one symbol rejects the value v: it is what sets a range end next to
  // v. A requirement that cannot be evaluated there rejects nothing.
  static bool rejects(const Cond& cond, const std::string& symbol, const Int& v) {
    try {
      return !evaluate(cond, Bindings{{symbol, v}});
    } catch (const Error&) {
      return false;
    }
  }

  // The requirements a symbol's range line merges, over the env's symbols: each node's, in the
  // order they were recorded, then the declared or default range for the ends no node decides.
  // `decider` is the first that decides an end (fails just outside the range).
  std::vector<Requirement> range_requirements(const SymbolInfo& info, const ValueRange& r,
                                              Provenance& decider) const {
    std::vector<Requirement> out;
    bool lo_decided = false, hi_decided = false, found = false;
    for (const Absorbed& a : absorbed_) {
      if (a.symbols.size() != 1 || a.symbols[0] != info.name) continue;
      bool lo = r.lo() && rejects(a.cond, info.name, *r.lo() - 1);
      bool hi = r.hi() && rejects(a.cond, info.name, *r.hi() + 1);
      lo_decided = lo_decided || lo;
      hi_decided = hi_decided || hi;
      if ((lo || hi) && !found) {
        decider = a.where;
        found = true;
      }
      out.push_back({a.cond, a.where});
    }
    std::vector<Cond> rest;  // the ends no node decides
    Expr sym = Expr::symbol(info.name);
    if (r.lo() && !lo_decided) rest.push_back(Cond::rel(RelOp::Le, Expr(*r.lo()), sym));
    if (r.hi() && !hi_decided) rest.push_back(Cond::rel(RelOp::Le, sym, Expr(*r.hi())));
    if (!rest.empty()) out.push_back({Cond::all(rest), range_cause(info)});
    if (!found) decider = range_cause(info);
    return out;
  }

  // The provenance of a symbol's range that no node's requirement sets: the user's declaration,
  // else the default.
  static Provenance range_cause(const SymbolInfo& info) {
    if (info.user_constraint) return {"", "", "declared range of dim " + info.name};
    return {"", "", "range of dynamic dim " + info.name};
  }

  void emit_ranges() {
    for (const SymbolDefinition& def : set_.symbols) {
      const SymbolInfo& info = env_.symbol(def.symbol);
      auto bound = bounds_.find(def.symbol);
      ValueRange r = bound == bounds_.end() ? def.range : def.range.intersect(bound->second);
      if (r.is_all()) continue;
      Provenance decider;
      std::vector<Requirement> requirements = range_requirements(info, r, decider);
      // A linearly defined symbol's range moves onto its source: a*lo + b <= src <= a*hi + b.
      Expr on = def.value;
      for (const auto& [read, lin] : linear_) {
        const auto& [name, a, b] = lin;
        if (name != def.symbol) continue;
        on = var(reads_[read].source);
        std::optional<Int> lo, hi;
        if (r.lo()) (a > 0 ? lo : hi) = a * *r.lo() + b;
        if (r.hi()) (a > 0 ? hi : lo) = a * *r.hi() + b;
        r = ValueRange(lo, hi);
      }
      std::vector<Cond> parts;
      if (r.lo()) parts.push_back(Cond::rel(RelOp::Le, Expr(*r.lo()), on));
      if (r.hi()) parts.push_back(Cond::rel(RelOp::Le, on, Expr(*r.hi())));
      ProducedGuard g{ProducedGuard::Kind::Range, Cond::all(parts), decider, {}};
      // Merged when nodes' requirements met here: two or more, or one and the user's declaration
      // (a lone node's bound over the default range is that node's line, as before).
      size_t from_nodes = 0;
      for (const Requirement& q : requirements) from_nodes += !q.where.node.empty();
      if (from_nodes >= 2 || (from_nodes == 1 && info.user_constraint && requirements.size() > 1)) {
        for (Requirement& q : requirements) g.merged.push_back({to_sources(q.cond), q.where});
      }
      set_.guards.push_back(std::move(g));
    }
  }

  void emit_runtime_asserts() {
    for (const RuntimeAssert& a : env_.runtime_asserts()) {
      set_.runtime_asserts.push_back({to_sources(env_.substitute(a.cond)), a.where});
    }
  }

  const ShapeEnv& env_;
  GuardSet set_;
  std::set<std::string> taken_;
  std::vector<Read> reads_;
  std::set<size_t> stride_reads_;
  std::set<std::string> used_;
  std::map<std::string, Expr> definition_;
  std::map<size_t, std::string> defining_read_;
  std::map<size_t, std::tuple<std::string, Int, Int>> linear_;
  std::map<std::string, ValueRange> bounds_;  // lone-symbol bounds kept as guards by the env
  // Guards the ranges or other guards imply, over the env's symbols, with the symbols they read.
  struct Absorbed {
    Cond cond;
    Provenance where;
    std::vector<std::string> symbols;
  };
  std::vector<Absorbed> absorbed_;
};

}  // namespace

GuardSet produce_guards(const ShapeEnv& env, const std::vector<GuardInput>& inputs) {
  return Producer(env).run(inputs);
}

}  // namespace symshape
