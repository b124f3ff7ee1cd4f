// The compiled guard checker: a register program over int64 with overflow detection.
//
// Slots hold the sources' values, then the constants, then temporaries. Each guard is a run of
// arithmetic instructions ending in a check; an overflow (or a division by zero) anywhere in a
// guard's run hands that guard to the exact evaluator (CLN), which decides it or explains why
// it cannot be evaluated.
#include <algorithm>
#include <cstring>
#include <map>

#include "guards/internal.h"
#include "symshape/guards.h"

namespace symshape {

// Relations are part of the opcode (CmpEq .. CmpGe and CheckEq .. CheckGe follow RelOp's order),
// so the loop dispatches once per instruction.
enum class GuardChecker::Op : uint8_t {
  Add,
  Sub,
  Mul,
  Neg,
  FloorDiv,
  Mod,
  Max,
  Min,
  CmpEq,  // dst = a rel b (0 or 1)
  CmpNe,
  CmpLt,
  CmpLe,
  CmpGt,
  CmpGe,
  And,      // dst = a & b
  Or,       // dst = a | b
  CheckEq,  // guard dst holds iff a rel b
  CheckNe,
  CheckLt,
  CheckLe,
  CheckGt,
  CheckGe,
  CheckTrue,   // guard dst holds iff a != 0
  CheckRange,  // guard dst holds iff r[b] <= a <= r[b + 1]
  Exact,       // guard dst is decided by exact evaluation only
};

namespace {

using guards::Lowered;

}  // namespace

// Compiles guards into the checker's instruction stream.
struct CheckerAccess {
  GuardChecker& c;
  std::map<std::string, uint32_t> var_slot;
  std::map<std::string, uint32_t> const_slot;  // decimal text -> slot
  std::vector<int64_t> constants;
  uint32_t next_temp = 0;  // counted from the end of the constants, fixed up later
  bool exact_only = false;
  std::vector<size_t>* reads = nullptr;

  static GuardChecker::Op with_relation(GuardChecker::Op first, RelOp rel) {
    return static_cast<GuardChecker::Op>(static_cast<uint8_t>(first) + static_cast<uint8_t>(rel));
  }

  // Temporaries are numbered from kTemp and rebased once the constants are known.
  static constexpr uint32_t kTemp = 1u << 30;

  uint32_t constant(const Int& v) {
    std::optional<int64_t> small = Expr(v).as_int64();
    if (!small) {
      exact_only = true;  // beyond int64: this guard is always decided exactly
      return constant(Int(0));
    }
    std::string key = std::to_string(*small);
    auto it = const_slot.find(key);
    if (it != const_slot.end()) return it->second;
    uint32_t slot = static_cast<uint32_t>(c.sources_ + constants.size());
    constants.push_back(*small);
    const_slot[key] = slot;
    return slot;
  }

  // Two constants in adjacent slots (a range's ends), or nullopt beyond int64.
  std::optional<uint32_t> constant_pair(const Int& lo, const Int& hi) {
    std::optional<int64_t> l = Expr(lo).as_int64(), h = Expr(hi).as_int64();
    if (!l || !h) return std::nullopt;
    uint32_t slot = static_cast<uint32_t>(c.sources_ + constants.size());
    constants.push_back(*l);
    constants.push_back(*h);
    return slot;
  }

  uint32_t emit(GuardChecker::Op op, uint32_t a, uint32_t b) {
    uint32_t dst = kTemp + next_temp++;
    c.code_.push_back({op, dst, a, b});
    return dst;
  }

  // x * -1 (GiNaC's -x): the other factors, when there is such a factor.
  static std::optional<Lowered> negated(const Lowered& l) {
    if (l.op != Lowered::Op::Mul) return std::nullopt;
    for (size_t i = 0; i < l.args.size(); ++i) {
      const Lowered& f = l.args[i];
      if (f.op != Lowered::Op::Const || f.value != -1) continue;
      Lowered rest = l;
      rest.args.erase(rest.args.begin() + static_cast<std::ptrdiff_t>(i));
      if (rest.args.size() == 1) return rest.args[0];
      return rest;
    }
    return std::nullopt;
  }

  uint32_t expr(const Lowered& l) {
    using Op = GuardChecker::Op;
    switch (l.op) {
      case Lowered::Op::Const: return constant(l.value);
      case Lowered::Op::Var: {
        auto it = var_slot.find(l.name);
        if (it == var_slot.end()) throw Error("guard reads the unknown source " + l.name);
        if (std::find(reads->begin(), reads->end(), it->second) == reads->end())
          reads->push_back(it->second);
        return it->second;
      }
      case Lowered::Op::Neg: return emit(Op::Neg, expr(l.args[0]), 0);
      case Lowered::Op::Add: {
        // Left fold, with `x + -1*y` as a subtraction.
        uint32_t acc = expr(l.args[0]);
        for (size_t i = 1; i < l.args.size(); ++i) {
          std::optional<Lowered> minus = negated(l.args[i]);
          acc = minus ? emit(Op::Sub, acc, expr(*minus)) : emit(Op::Add, acc, expr(l.args[i]));
        }
        return acc;
      }
      case Lowered::Op::Mul: {
        uint32_t acc = expr(l.args[0]);
        for (size_t i = 1; i < l.args.size(); ++i) acc = emit(Op::Mul, acc, expr(l.args[i]));
        return acc;
      }
      case Lowered::Op::Pow: {
        // By squaring, from the exponent's highest bit: O(log n) products. An overflow sends the
        // guard to the exact path, as for any product.
        const uint32_t base = expr(l.args[0]);
        uint32_t acc = base;
        for (int bit = static_cast<int>(cln::integer_length(l.value)) - 2; bit >= 0; --bit) {
          acc = emit(Op::Mul, acc, acc);
          if (cln::logbitp(bit, l.value)) acc = emit(Op::Mul, acc, base);
        }
        return acc;
      }
      case Lowered::Op::FloorDiv: return emit(Op::FloorDiv, expr(l.args[0]), expr(l.args[1]));
      case Lowered::Op::Mod: return emit(Op::Mod, expr(l.args[0]), expr(l.args[1]));
      case Lowered::Op::Max: return emit(Op::Max, expr(l.args[0]), expr(l.args[1]));
      case Lowered::Op::Min: return emit(Op::Min, expr(l.args[0]), expr(l.args[1]));
    }
    return 0;
  }

  uint32_t cond(const Cond& k) {
    using Op = GuardChecker::Op;
    switch (k.kind()) {
      case Cond::Kind::True: return constant(Int(1));
      case Cond::Kind::False: return constant(Int(0));
      case Cond::Kind::Rel:
        return emit(with_relation(Op::CmpEq, k.op()), expr(guards::lower(k.lhs())),
                    expr(guards::lower(k.rhs())));
      case Cond::Kind::And:
      case Cond::Kind::Or: {
        Op op = k.kind() == Cond::Kind::And ? Op::And : Op::Or;
        uint32_t acc = cond(k.operands()[0]);
        for (size_t i = 1; i < k.operands().size(); ++i) acc = emit(op, acc, cond(k.operands()[i]));
        return acc;
      }
    }
    return 0;
  }

  // `lo <= x and x <= hi` with constant ends: x's slot and the ends' pair.
  std::optional<std::pair<uint32_t, uint32_t>> range(const Cond& k) {
    if (k.kind() != Cond::Kind::And || k.operands().size() != 2) return std::nullopt;
    const Cond& lo = k.operands()[0];
    const Cond& hi = k.operands()[1];
    if (lo.kind() != Cond::Kind::Rel || hi.kind() != Cond::Kind::Rel || lo.op() != RelOp::Le ||
        hi.op() != RelOp::Le || !lo.lhs().is_constant() || !hi.rhs().is_constant() ||
        !lo.rhs().identical(hi.lhs()))
      return std::nullopt;
    std::optional<uint32_t> ends = constant_pair(*lo.lhs().constant(), *hi.rhs().constant());
    if (!ends) return std::nullopt;
    return std::make_pair(expr(guards::lower(lo.rhs())), *ends);
  }

  void guard(const Cond& k, uint32_t index) {
    using Op = GuardChecker::Op;
    const size_t start = c.code_.size();
    if (auto r = range(k)) {
      c.code_.push_back({Op::CheckRange, index, r->first, r->second});
    } else if (k.kind() == Cond::Kind::Rel) {
      uint32_t a = expr(guards::lower(k.lhs())), b = expr(guards::lower(k.rhs()));
      c.code_.push_back({with_relation(Op::CheckEq, k.op()), index, a, b});
    } else {
      c.code_.push_back({Op::CheckTrue, index, cond(k), 0});
    }
    if (exact_only) {
      // A constant beyond int64: nothing to compute, the exact evaluator decides.
      c.code_.resize(start);
      c.code_.push_back({Op::Exact, index, 0, 0});
    }
  }
};

GuardChecker::GuardChecker(const GuardSet& set) : set_(&set), sources_(set.sources.size()) {
  CheckerAccess b{*this, {}, {}, {}, 0, false, nullptr};
  for (size_t i = 0; i < set.sources.size(); ++i)
    b.var_slot[set.sources[i].identifier] = static_cast<uint32_t>(i);
  for (size_t g = 0; g < set.guards.size(); ++g) {
    conds_.push_back(set.guards[g].cond);
    b.exact_only = false;
    reads_.emplace_back();
    b.reads = &reads_.back();
    b.guard(set.guards[g].cond, static_cast<uint32_t>(g));
    std::sort(reads_.back().begin(), reads_.back().end());  // explanations list sources in order
  }
  constants_ = std::move(b.constants);
  // Rebase temporaries after the constants.
  const uint32_t base = static_cast<uint32_t>(sources_ + constants_.size());
  auto rebase = [&](uint32_t& slot) {
    if (slot >= CheckerAccess::kTemp) slot = slot - CheckerAccess::kTemp + base;
  };
  for (Instr& in : code_) {
    if (in.op < Op::CheckEq) rebase(in.dst);  // a check's dst is its guard
    rebase(in.a);
    rebase(in.b);
  }
  slots_ = base + b.next_temp;
}

bool GuardChecker::exact_or_false(size_t guard, std::span<const int64_t> values) const {
  try {
    return exact_holds(guard, values);
  } catch (const Error&) {
    return false;  // not evaluable (a division by zero): the guard does not hold
  }
}

bool GuardChecker::exact_holds(size_t guard, std::span<const int64_t> values) const {
  Bindings bindings;
  for (size_t s : reads_[guard]) bindings[set_->sources[s].identifier] = Int(values[s]);
  return evaluate(conds_[guard], bindings);  // throws Error on a division by zero
}

size_t GuardChecker::first_failure(std::span<const int64_t> values) const {
  if (values.size() != sources_) {
    throw Error("the checker needs " + std::to_string(sources_) + " source values, got " +
                std::to_string(values.size()));
  }
  thread_local std::vector<int64_t> scratch;
  if (scratch.size() <= slots_) scratch.resize(slots_ + 1);  // slot 0 exists even without sources
  int64_t* r = scratch.data();
  std::memcpy(r, values.data(), sources_ * sizeof(int64_t));
  if (!constants_.empty())
    std::memcpy(r + sources_, constants_.data(), constants_.size() * sizeof(int64_t));

  bool trouble = false;  // an overflow or a division by zero since the last check
  // A check: the guard holds, or (after trouble) the exact evaluator says whether it does.
  auto verdict = [&](bool holds, uint32_t guard) {
    if (trouble) {
      trouble = false;
      return exact_or_false(guard, values);
    }
    return holds;
  };
  for (const Instr& in : code_) {
    const int64_t a = r[in.a], b = r[in.b];
    int64_t* dst = &r[in.dst];
    bool holds = true;
    switch (in.op) {
      case Op::Add: trouble |= __builtin_add_overflow(a, b, dst); continue;
      case Op::Sub: trouble |= __builtin_sub_overflow(a, b, dst); continue;
      case Op::Mul: trouble |= __builtin_mul_overflow(a, b, dst); continue;
      case Op::Neg: trouble |= __builtin_sub_overflow(int64_t{0}, a, dst); continue;
      case Op::FloorDiv:
      case Op::Mod: {
        if (b == 0 || (a == INT64_MIN && b == -1)) {
          trouble = true;
          *dst = 0;
          continue;
        }
        int64_t q = a / b, m = a % b;
        if (m != 0 && ((m < 0) != (b < 0))) {
          q -= 1;
          m += b;
        }
        *dst = in.op == Op::FloorDiv ? q : m;
        continue;
      }
      case Op::Max: *dst = a < b ? b : a; continue;
      case Op::Min: *dst = b < a ? b : a; continue;
      case Op::CmpEq: *dst = a == b; continue;
      case Op::CmpNe: *dst = a != b; continue;
      case Op::CmpLt: *dst = a < b; continue;
      case Op::CmpLe: *dst = a <= b; continue;
      case Op::CmpGt: *dst = a > b; continue;
      case Op::CmpGe: *dst = a >= b; continue;
      case Op::And: *dst = a & b; continue;
      case Op::Or: *dst = a | b; continue;
      case Op::CheckEq: holds = verdict(a == b, in.dst); break;
      case Op::CheckNe: holds = verdict(a != b, in.dst); break;
      case Op::CheckLt: holds = verdict(a < b, in.dst); break;
      case Op::CheckLe: holds = verdict(a <= b, in.dst); break;
      case Op::CheckGt: holds = verdict(a > b, in.dst); break;
      case Op::CheckGe: holds = verdict(a >= b, in.dst); break;
      case Op::CheckTrue: holds = verdict(a != 0, in.dst); break;
      case Op::CheckRange: holds = verdict(b <= a && a <= r[in.b + 1], in.dst); break;
      case Op::Exact: holds = exact_or_false(in.dst, values); break;
    }
    if (!holds) return in.dst;
  }
  return npos;
}

std::string CheckFailure::str() const {
  std::string text = "guard " + this->text + " failed";
  if (!reason.empty()) text += " (" + reason + ")";
  if (!values.empty()) {
    text += " with ";
    for (size_t i = 0; i < values.size(); ++i)
      text += (i ? ", " : "") + values[i].first + " = " + to_string(values[i].second);
  }
  if (!where.node.empty()) {
    text += "; it came from " + where.str();
  } else if (!where.rule.empty()) {
    text += "; it is the " + where.rule;
  }
  return text;
}

namespace {

// Who asked for what failed: of a guard that merges several requirements, the first one these
// values break (an unevaluable one counts as broken); else the guard's own provenance.
Provenance failed_requirement(const ProducedGuard& guard, const std::vector<Int>& values,
                              const GuardSet& set) {
  if (guard.merged.empty()) return guard.where;
  Bindings bindings;
  for (size_t s = 0; s < set.sources.size(); ++s) bindings[set.sources[s].identifier] = values[s];
  for (const Requirement& r : guard.merged) {
    try {
      if (!evaluate(r.cond, bindings)) return r.where;
    } catch (const Error&) {
      return r.where;
    }
  }
  return guard.where;
}

}  // namespace

std::optional<CheckFailure> GuardChecker::check(const std::vector<Int>& values) const {
  if (values.size() != sources_) {
    throw Error("the checker needs " + std::to_string(sources_) + " source values, got " +
                std::to_string(values.size()));
  }
  auto explain = [&](size_t g, std::string reason) {
    CheckFailure f;
    f.guard = g;
    f.text = python_text(*set_, set_->guards[g].cond);
    f.where = failed_requirement(set_->guards[g], values, *set_);
    f.reason = std::move(reason);
    for (size_t s : reads_[g]) f.values.emplace_back(set_->sources[s].name, values[s]);
    return f;
  };
  std::vector<int64_t> small;
  small.reserve(values.size());
  for (const Int& v : values) {
    if (cln::integer_length(v) >= 64) break;  // beyond int64
    small.push_back(cln::cl_I_to_Q(v));
  }
  if (small.size() == values.size()) {
    size_t g = first_failure(small);
    if (g == npos) return std::nullopt;
    std::string reason;
    try {
      exact_holds(g, small);
    } catch (const Error& e) {
      reason = e.what();
    }
    return explain(g, reason);
  }
  // Some value is beyond int64: every guard takes the exact path.
  for (size_t g = 0; g < conds_.size(); ++g) {
    Bindings bindings;
    for (size_t s : reads_[g]) bindings[set_->sources[s].identifier] = values[s];
    try {
      if (!evaluate(conds_[g], bindings)) return explain(g, "");
    } catch (const Error& e) {
      return explain(g, e.what());
    }
  }
  return std::nullopt;
}

}  // namespace symshape
