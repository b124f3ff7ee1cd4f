// Random integer expressions for property tests: a tiny AST independent of the engine, with its
// own evaluator (Python semantics on __int128, guarded against overflow) and a conversion to an
// Expr through the public API only. Generation is seeded (std::mt19937_64), so a failing case is
// reproduced from its seed; str() prints the case in Python syntax for the failure message.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "symshape/expr.h"

namespace symshape::test_support {

enum class Op { Const, Sym, Add, Sub, Mul, FloorDiv, Mod, CeilDiv, Max, Min, Pow };

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  Op op = Op::Const;
  int64_t value = 0;   // Const
  std::string name;    // Sym
  unsigned power = 0;  // Pow: the natural exponent
  NodePtr lhs, rhs;    // operands (Pow uses lhs only)
};

// A point: a value for every symbol.
using Point = std::map<std::string, int64_t>;

// What evaluating at a point gave. Values beyond +-2^62 count as overflow (the sample is
// skipped); a division by zero is Python's ZeroDivisionError.
enum class Status { Ok, DivisionByZero, Overflow };
struct Value {
  Status status = Status::Ok;
  __int128 v = 0;
};

inline constexpr __int128 kValueLimit = static_cast<__int128>(1) << 62;

namespace random_expr_detail {

inline __int128 py_floordiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

inline __int128 py_mod(__int128 a, __int128 b) {
  __int128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

inline Value checked(__int128 v) {
  if (v > kValueLimit || v < -kValueLimit) return {Status::Overflow, 0};
  return {Status::Ok, v};
}

inline std::string int_str(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string digits;
  for (__int128 m = negative ? -v : v; m > 0; m /= 10) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  }
  return negative ? "-" + digits : digits;
}

}  // namespace random_expr_detail

// The value of n at p with Python semantics (// floors, % takes the divisor's sign).
inline Value eval(const Node& n, const Point& p) {
  using namespace random_expr_detail;
  switch (n.op) {
    case Op::Const: return checked(n.value);
    case Op::Sym: return checked(p.at(n.name));
    case Op::Pow: {
      Value base = eval(*n.lhs, p);
      if (base.status != Status::Ok) return base;
      __int128 acc = 1;
      for (unsigned i = 0; i < n.power; ++i) {
        Value next = checked(acc * base.v);
        if (next.status != Status::Ok) return next;
        acc = next.v;
      }
      return {Status::Ok, acc};
    }
    default: break;
  }
  // Python evaluates both operands before applying the operator: the first error wins.
  Value a = eval(*n.lhs, p);
  if (a.status != Status::Ok) return a;
  Value b = eval(*n.rhs, p);
  if (b.status != Status::Ok) return b;
  switch (n.op) {
    case Op::Add: return checked(a.v + b.v);
    case Op::Sub: return checked(a.v - b.v);
    case Op::Mul: return checked(a.v * b.v);
    case Op::FloorDiv:
      if (b.v == 0) return {Status::DivisionByZero, 0};
      return checked(py_floordiv(a.v, b.v));
    case Op::Mod:
      if (b.v == 0) return {Status::DivisionByZero, 0};
      return checked(py_mod(a.v, b.v));
    case Op::CeilDiv:
      if (b.v == 0) return {Status::DivisionByZero, 0};
      return checked(-py_floordiv(-a.v, b.v));
    case Op::Max: return checked(a.v >= b.v ? a.v : b.v);
    case Op::Min: return checked(a.v <= b.v ? a.v : b.v);
    default: break;
  }
  return {Status::Overflow, 0};
}

// n as an Expr, built with the public API. Throws Error when a divisor folds to the constant 0.
inline Expr to_expr(const Node& n) {
  switch (n.op) {
    case Op::Const: return Expr(static_cast<long long>(n.value));
    case Op::Sym: return Expr::symbol(n.name);
    case Op::Pow: return pow(to_expr(*n.lhs), n.power);
    default: break;
  }
  Expr a = to_expr(*n.lhs), b = to_expr(*n.rhs);
  switch (n.op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::FloorDiv: return floordiv(a, b);
    case Op::Mod: return mod(a, b);
    case Op::CeilDiv: return ceildiv(a, b);
    case Op::Max: return max(a, b);
    case Op::Min: return min(a, b);
    default: break;
  }
  throw Error("random_expr: bad node");
}

// n in Python syntax, fully parenthesized.
inline std::string str(const Node& n) {
  switch (n.op) {
    case Op::Const:
      return n.value < 0 ? "(" + std::to_string(n.value) + ")" : std::to_string(n.value);
    case Op::Sym: return n.name;
    case Op::Pow: return "(" + str(*n.lhs) + " ** " + std::to_string(n.power) + ")";
    default: break;
  }
  std::string a = str(*n.lhs), b = str(*n.rhs);
  switch (n.op) {
    case Op::Add: return "(" + a + " + " + b + ")";
    case Op::Sub: return "(" + a + " - " + b + ")";
    case Op::Mul: return "(" + a + " * " + b + ")";
    case Op::FloorDiv: return "(" + a + " // " + b + ")";
    case Op::Mod: return "(" + a + " % " + b + ")";
    case Op::CeilDiv: return "ceildiv(" + a + ", " + b + ")";
    case Op::Max: return "max(" + a + ", " + b + ")";
    case Op::Min: return "min(" + a + ", " + b + ")";
    default: break;
  }
  return "?";
}

inline std::string str(const Value& v) {
  switch (v.status) {
    case Status::Ok: return random_expr_detail::int_str(v.v);
    case Status::DivisionByZero: return "ZeroDivisionError";
    case Status::Overflow: return "overflow";
  }
  return "?";
}

inline std::string str(const Point& p) {
  std::string out = "{";
  for (const auto& [name, v] : p) {
    out += (out.size() > 1 ? ", " : "") + name + "=" + std::to_string(v);
  }
  return out + "}";
}

// Draws random expression trees over the given symbols.
class Generator {
 public:
  Generator(uint64_t seed, std::vector<std::string> symbols)
      : rng_(seed), symbols_(std::move(symbols)) {}

  std::mt19937_64& rng() { return rng_; }

  // A tree of at most max_depth operator levels.
  NodePtr expr(int max_depth) {
    if (max_depth <= 0 || chance(0.25)) return leaf();
    static constexpr Op kOps[] = {Op::Add,      Op::Add,      Op::Sub, Op::Mul, Op::Mul,
                                  Op::FloorDiv, Op::FloorDiv, Op::Mod, Op::Mod, Op::CeilDiv,
                                  Op::Max,      Op::Min,      Op::Pow};
    Op op = kOps[uniform(0, std::size(kOps) - 1)];
    auto n = std::make_shared<Node>();
    n->op = op;
    if (op == Op::Pow) {
      n->power = static_cast<unsigned>(uniform(0, 3));
      n->lhs = expr(std::min(max_depth - 1, 1));  // keeps expanded powers small
      return n;
    }
    n->lhs = expr(max_depth - 1);
    // Divisors are often small constants, as in shape code; sometimes any expression.
    bool division = op == Op::FloorDiv || op == Op::Mod || op == Op::CeilDiv;
    n->rhs = division && chance(0.5) ? constant(true) : expr(max_depth - 1);
    return n;
  }

  NodePtr leaf() { return chance(0.6) ? symbol() : constant(false); }

  NodePtr symbol() {
    auto n = std::make_shared<Node>();
    n->op = Op::Sym;
    n->name = symbols_[uniform(0, symbols_.size() - 1)];
    return n;
  }

  // A small constant, negative ones included; a divisor is never 0.
  NodePtr constant(bool divisor) {
    static constexpr int64_t kValues[] = {-7, -4, -3, -2, -1, 0, 1, 2, 2, 3, 4, 4, 5, 6, 8, 16, 64};
    auto n = std::make_shared<Node>();
    n->op = Op::Const;
    do {
      n->value = kValues[uniform(0, std::size(kValues) - 1)];
    } while (divisor && n->value == 0);
    return n;
  }

  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> symbols_;
};

}  // namespace symshape::test_support
