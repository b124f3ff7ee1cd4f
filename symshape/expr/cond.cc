// Cond: boolean expressions over relations, folded as they are built.
#include <algorithm>

#include "symshape/expr.h"

namespace symshape {

struct Cond::Node {
  Kind kind;
  RelOp op = RelOp::Eq;
  Expr lhs, rhs;
  std::vector<Cond> operands;
};

std::string_view to_string(RelOp op) {
  switch (op) {
    case RelOp::Eq: return "==";
    case RelOp::Ne: return "!=";
    case RelOp::Lt: return "<";
    case RelOp::Le: return "<=";
    case RelOp::Gt: return ">";
    case RelOp::Ge: return ">=";
  }
  return "?";
}

RelOp negate(RelOp op) {
  switch (op) {
    case RelOp::Eq: return RelOp::Ne;
    case RelOp::Ne: return RelOp::Eq;
    case RelOp::Lt: return RelOp::Ge;
    case RelOp::Le: return RelOp::Gt;
    case RelOp::Gt: return RelOp::Le;
    case RelOp::Ge: return RelOp::Lt;
  }
  return op;
}

RelOp reverse(RelOp op) {
  switch (op) {
    case RelOp::Lt: return RelOp::Gt;
    case RelOp::Le: return RelOp::Ge;
    case RelOp::Gt: return RelOp::Lt;
    case RelOp::Ge: return RelOp::Le;
    default: return op;
  }
}

namespace {

bool compare_ints(RelOp op, const Int& a, const Int& b) {
  switch (op) {
    case RelOp::Eq: return a == b;
    case RelOp::Ne: return a != b;
    case RelOp::Lt: return a < b;
    case RelOp::Le: return a <= b;
    case RelOp::Gt: return a > b;
    case RelOp::Ge: return a >= b;
  }
  return false;
}

}  // namespace

Cond::Cond() : Cond(truth(true)) {}

Cond Cond::truth(bool v) {
  static const Cond t(std::make_shared<const Node>(Node{Kind::True, RelOp::Eq, {}, {}, {}}));
  static const Cond f(std::make_shared<const Node>(Node{Kind::False, RelOp::Eq, {}, {}, {}}));
  return v ? t : f;
}

Cond Cond::rel(RelOp op, const Expr& lhs, const Expr& rhs) {
  if (lhs.is_constant() && rhs.is_constant()) {
    return truth(compare_ints(op, *lhs.constant(), *rhs.constant()));
  }
  if (lhs.identical(rhs)) return truth(op == RelOp::Eq || op == RelOp::Le || op == RelOp::Ge);
  return Cond(std::make_shared<const Node>(Node{Kind::Rel, op, lhs, rhs, {}}));
}

namespace {
// Flattens nested connectives of the same kind and folds the absorbing / neutral constants.
Cond connective(Cond::Kind kind, std::vector<Cond> operands,
                const std::function<Cond(std::vector<Cond>)>& make) {
  const bool is_and = kind == Cond::Kind::And;
  std::vector<Cond> flat;
  for (Cond& c : operands) {
    if (c.kind() == kind) {
      for (const Cond& inner : c.operands()) flat.push_back(inner);
    } else if (is_and ? c.is_false() : c.is_true()) {
      return Cond::truth(!is_and);
    } else if (!(is_and ? c.is_true() : c.is_false())) {
      flat.push_back(std::move(c));
    }
  }
  // Drop repeated operands, keeping the first.
  std::vector<Cond> unique;
  for (Cond& c : flat) {
    bool seen =
        std::any_of(unique.begin(), unique.end(), [&](const Cond& u) { return u.identical(c); });
    if (!seen) unique.push_back(std::move(c));
  }
  if (unique.empty()) return Cond::truth(is_and);
  if (unique.size() == 1) return unique[0];
  return make(std::move(unique));
}
}  // namespace

Cond Cond::all(std::vector<Cond> operands) {
  return connective(Kind::And, std::move(operands), [](std::vector<Cond> ops) {
    return Cond(std::make_shared<const Node>(Node{Kind::And, RelOp::Eq, {}, {}, std::move(ops)}));
  });
}

Cond Cond::any(std::vector<Cond> operands) {
  return connective(Kind::Or, std::move(operands), [](std::vector<Cond> ops) {
    return Cond(std::make_shared<const Node>(Node{Kind::Or, RelOp::Eq, {}, {}, std::move(ops)}));
  });
}

Cond Cond::negation(const Cond& c) {
  switch (c.kind()) {
    case Kind::True: return truth(false);
    case Kind::False: return truth(true);
    case Kind::Rel: return rel(negate(c.op()), c.lhs(), c.rhs());
    case Kind::And:
    case Kind::Or: {
      std::vector<Cond> ops;
      for (const Cond& o : c.operands()) ops.push_back(negation(o));
      return c.kind() == Kind::And ? any(std::move(ops)) : all(std::move(ops));
    }
  }
  return c;
}

Cond::Kind Cond::kind() const { return n_->kind; }

RelOp Cond::op() const {
  if (kind() != Kind::Rel) throw Error("Cond::op on a non-relation");
  return n_->op;
}
const Expr& Cond::lhs() const {
  if (kind() != Kind::Rel) throw Error("Cond::lhs on a non-relation");
  return n_->lhs;
}
const Expr& Cond::rhs() const {
  if (kind() != Kind::Rel) throw Error("Cond::rhs on a non-relation");
  return n_->rhs;
}
const std::vector<Cond>& Cond::operands() const { return n_->operands; }

std::vector<std::string> Cond::free_symbols() const {
  std::vector<std::string> out;
  if (kind() == Kind::Rel) {
    out = lhs().free_symbols();
    for (auto& s : rhs().free_symbols()) out.push_back(s);
  }
  for (const Cond& o : operands()) {
    for (auto& s : o.free_symbols()) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Cond Cond::subs(const std::map<std::string, Expr>& m) const {
  switch (kind()) {
    case Kind::True:
    case Kind::False: return *this;
    case Kind::Rel: return rel(op(), lhs().subs(m), rhs().subs(m));
    case Kind::And:
    case Kind::Or: {
      std::vector<Cond> ops;
      for (const Cond& o : operands()) ops.push_back(o.subs(m));
      return kind() == Kind::And ? all(std::move(ops)) : any(std::move(ops));
    }
  }
  return *this;
}

std::string Cond::str() const {
  switch (kind()) {
    case Kind::True: return "True";
    case Kind::False: return "False";
    case Kind::Rel: return lhs().str() + " " + std::string(to_string(op())) + " " + rhs().str();
    case Kind::And:
    case Kind::Or: {
      std::string text;
      for (const Cond& o : operands()) {
        if (!text.empty()) text += kind() == Kind::And ? " and " : " or ";
        // `and` binds tighter than `or`, so only an `or` inside an `and` needs parentheses.
        bool paren = kind() == Kind::And && o.kind() == Kind::Or;
        text += paren ? "(" + o.str() + ")" : o.str();
      }
      return text;
    }
  }
  return "?";
}

bool Cond::identical(const Cond& other) const {
  if (n_ == other.n_) return true;
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::True:
    case Kind::False: return true;
    case Kind::Rel:
      return op() == other.op() && lhs().identical(other.lhs()) && rhs().identical(other.rhs());
    case Kind::And:
    case Kind::Or:
      if (operands().size() != other.operands().size()) return false;
      for (size_t i = 0; i < operands().size(); ++i) {
        if (!operands()[i].identical(other.operands()[i])) return false;
      }
      return true;
  }
  return false;
}

Cond operator&&(const Cond& a, const Cond& b) { return Cond::all({a, b}); }
Cond operator||(const Cond& a, const Cond& b) { return Cond::any({a, b}); }
Cond operator!(const Cond& a) { return Cond::negation(a); }

Cond operator==(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Eq, a, b); }
Cond operator!=(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Ne, a, b); }
Cond operator<(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Lt, a, b); }
Cond operator<=(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Le, a, b); }
Cond operator>(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Gt, a, b); }
Cond operator>=(const Expr& a, const Expr& b) { return Cond::rel(RelOp::Ge, a, b); }

bool evaluate(const Cond& c, const Bindings& values) {
  switch (c.kind()) {
    case Cond::Kind::True: return true;
    case Cond::Kind::False: return false;
    case Cond::Kind::Rel:
      return compare_ints(c.op(), evaluate(c.lhs(), values), evaluate(c.rhs(), values));
    case Cond::Kind::And:
      return std::all_of(c.operands().begin(), c.operands().end(),
                         [&](const Cond& o) { return evaluate(o, values); });
    case Cond::Kind::Or:
      return std::any_of(c.operands().begin(), c.operands().end(),
                         [&](const Cond& o) { return evaluate(o, values); });
  }
  return false;
}

}  // namespace symshape
