// Lowering GiNaC's forms into plain integer operations.
#include <ginac/ginac.h>

#include "guards/internal.h"
#include "symshape/expr/functions.h"

namespace symshape::guards {

namespace {

Lowered node(Lowered::Op op, std::vector<Lowered> args) {
  Lowered l;
  l.op = op;
  l.args = std::move(args);
  return l;
}

Lowered lower_ex(const GiNaC::ex& e) {
  if (detail::is_int(e)) {
    Lowered l;
    l.value = detail::int_of(e);
    return l;
  }
  if (detail::is_exactly<GiNaC::symbol>(e)) {
    Lowered l;
    l.op = Lowered::Op::Var;
    l.name = GiNaC::ex_to<GiNaC::symbol>(e).get_name();
    return l;
  }
  if (detail::has_denominator(e)) {
    // An exact quotient: numerator // denominator has the same value.
    GiNaC::ex nd = e.numer_denom();
    return node(Lowered::Op::FloorDiv, {lower_ex(nd.op(0)), lower_ex(nd.op(1))});
  }
  if (detail::is_exactly<GiNaC::add>(e) || detail::is_exactly<GiNaC::mul>(e)) {
    std::vector<Lowered> args;
    for (size_t i = 0; i < e.nops(); ++i) args.push_back(lower_ex(e.op(i)));
    return node(detail::is_exactly<GiNaC::add>(e) ? Lowered::Op::Add : Lowered::Op::Mul,
                std::move(args));
  }
  if (detail::is_exactly<GiNaC::power>(e)) {
    if (!detail::is_int(e.op(1)) || detail::int_of(e.op(1)) < 1 ||
        detail::int_of(e.op(1)) > Int(INT64_MAX)) {
      throw Error("cannot lower the power " + Expr(e).str() + " to integer operations");
    }
    Lowered base = lower_ex(e.op(0));
    const Int n = detail::int_of(e.op(1));
    if (n > kMaxUnrolledPower) {
      // Kept whole: printers and the checker raise it by squaring, exactly.
      Lowered pow = node(Lowered::Op::Pow, {std::move(base)});
      pow.value = n;
      return pow;
    }
    std::vector<Lowered> factors(cln::cl_I_to_long(n), base);
    return node(Lowered::Op::Mul, std::move(factors));
  }
  switch (function_of(e)) {
    case Fn::FloorDiv: return node(Lowered::Op::FloorDiv, {lower_ex(e.op(0)), lower_ex(e.op(1))});
    case Fn::Mod: return node(Lowered::Op::Mod, {lower_ex(e.op(0)), lower_ex(e.op(1))});
    case Fn::CeilDiv: {
      // ceildiv(a, b) == -((-a) // b)
      Lowered neg_a = node(Lowered::Op::Neg, {lower_ex(e.op(0))});
      return node(Lowered::Op::Neg, {node(Lowered::Op::FloorDiv, {neg_a, lower_ex(e.op(1))})});
    }
    case Fn::Max: return node(Lowered::Op::Max, {lower_ex(e.op(0)), lower_ex(e.op(1))});
    case Fn::Min: return node(Lowered::Op::Min, {lower_ex(e.op(0)), lower_ex(e.op(1))});
    case Fn::None: break;
  }
  throw Error("cannot lower " + Expr(e).str() + " to integer operations");
}

}  // namespace

Lowered lower(const Expr& e) { return lower_ex(e.ex()); }

}  // namespace symshape::guards
