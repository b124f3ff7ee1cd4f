// Integer and boolean symbolic expressions on GiNaC, with Python integer semantics.
//
// An Expr is an integer-valued expression over named symbols: polynomials (GiNaC's add, mul,
// natural power) plus the integer functions floor division, modulo, ceiling division, max and
// min. Exact quotients (a division known to leave no remainder) are kept as GiNaC rational
// expressions, so that `q * (p // q)` cancels to `p` by ordinary algebra once `q | p` is known.
//
// A Cond is a boolean expression: relations between Exprs joined by and / or / not.
//
// Both print deterministically in the grammar that parse_expr / parse_cond read, which is also
// valid Python (with `ceildiv` as the only function Python lacks).
//
// GiNaC is not thread-safe: use expressions from one thread at a time.
#pragma once

#include <cln/integer.h>
#include <ginac/ginac.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace symshape {

// An arbitrary-precision integer.
using Int = cln::cl_I;

std::string to_string(const Int& v);
// Parses a decimal integer (optional leading '-'); nullopt when `text` is not one.
std::optional<Int> parse_int(std::string_view text);
// The value as int64, or nullopt when it does not fit.
std::optional<int64_t> to_int64(const Int& v);

// The error every engine function throws on misuse or impossible input (division by zero, an
// unbound symbol, a malformed expression). Boundary functions turn it into a value.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value or an error message: what boundary functions (parse, read, the CLI's helpers) return.
template <typename T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  static Expected failure(std::string message) {
    Expected e;
    e.error_ = std::move(message);
    return e;
  }
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  // Like value(): `std::move(*e)` moves the value out (a const-only operator* made it a copy).
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  const std::string& error() const { return error_; }

 private:
  Expected() = default;
  std::optional<T> value_;
  std::string error_;
};

class Cond;

class Expr {
 public:
  Expr();  // the integer 0
  Expr(int v);
  Expr(long v);
  Expr(long long v);
  explicit Expr(const Int& v);
  explicit Expr(GiNaC::ex e);

  // The symbol with this name (one GiNaC symbol per name, process-wide).
  static Expr symbol(std::string_view name);

  const GiNaC::ex& ex() const { return e_; }

  bool is_constant() const;  // an integer constant
  std::optional<Int> constant() const;
  std::optional<int64_t> as_int64() const;
  bool is_symbol() const;
  std::string symbol_name() const;  // requires is_symbol()
  // The names of the free symbols, sorted.
  std::vector<std::string> free_symbols() const;
  bool has_symbol(std::string_view name) const;

  // Structural identity (not mathematical equality; see prove()).
  bool identical(const Expr& other) const { return e_.is_equal(other.e_); }
  unsigned hash() const { return e_.gethash(); }

  // Substitutes symbols by name; the result is re-evaluated (constants fold).
  Expr subs(const std::map<std::string, Expr>& m) const;

  // Deterministic text in the parser's grammar.
  std::string str() const;

  Expr& operator+=(const Expr& o);
  Expr& operator-=(const Expr& o);
  Expr& operator*=(const Expr& o);

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a);

 private:
  GiNaC::ex e_;
};

// Python floor division `a // b`. Throws Error when b is the constant 0.
Expr floordiv(const Expr& a, const Expr& b);
// Python modulo `a % b` (the sign of b). Throws Error when b is the constant 0.
Expr mod(const Expr& a, const Expr& b);
// Ceiling division, `-((-a) // b)`. Throws Error when b is the constant 0.
Expr ceildiv(const Expr& a, const Expr& b);
// The quotient a / b for a division the caller knows to be exact (b divides a). It is kept as
// a rational expression, so b * exact_div(a, b) == a structurally.
Expr exact_div(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const std::vector<Expr>& args);  // two or more arguments
Expr min(const std::vector<Expr>& args);
// a ** n for a natural n.
Expr pow(const Expr& a, unsigned n);

// Which integer function a GiNaC function node is (None for anything else).
enum class Fn { None, FloorDiv, Mod, CeilDiv, Max, Min };
Fn function_of(const GiNaC::ex& e);
// Rebuilds a function node of kind f from two arguments, folding constants.
Expr apply(Fn f, const Expr& a, const Expr& b);

// Values of symbols for evaluation.
using Bindings = std::map<std::string, Int, std::less<>>;

// The value of e with Python semantics. Throws Error on an unbound symbol, a division by zero,
// or a non-integer result (an exact-division fact that does not hold at this point).
Int evaluate(const Expr& e, const Bindings& values);

enum class RelOp { Eq, Ne, Lt, Le, Gt, Ge };
std::string_view to_string(RelOp op);
RelOp negate(RelOp op);   // the relation that holds exactly when op does not
RelOp reverse(RelOp op);  // a op b  <=>  b reverse(op) a

// A boolean expression: true, false, a relation, or and / or of others. Negation is pushed
// down to the relations (`not (a < b)` is `a >= b` on integers), so there is no Not node.
class Cond {
 public:
  enum class Kind { True, False, Rel, And, Or };

  Cond();  // true
  static Cond truth(bool v);
  static Cond rel(RelOp op, const Expr& lhs, const Expr& rhs);
  static Cond all(std::vector<Cond> operands);  // and; true when empty
  static Cond any(std::vector<Cond> operands);  // or; false when empty
  static Cond negation(const Cond& c);

  Kind kind() const;
  bool is_true() const { return kind() == Kind::True; }
  bool is_false() const { return kind() == Kind::False; }
  RelOp op() const;                           // Kind::Rel
  const Expr& lhs() const;                    // Kind::Rel
  const Expr& rhs() const;                    // Kind::Rel
  const std::vector<Cond>& operands() const;  // And, Or

  std::vector<std::string> free_symbols() const;
  Cond subs(const std::map<std::string, Expr>& m) const;
  std::string str() const;
  bool identical(const Cond& other) const;

  friend Cond operator&&(const Cond& a, const Cond& b);
  friend Cond operator||(const Cond& a, const Cond& b);
  friend Cond operator!(const Cond& a);

 private:
  struct Node;
  explicit Cond(std::shared_ptr<const Node> n) : n_(std::move(n)) {}
  std::shared_ptr<const Node> n_;
};

Cond operator==(const Expr& a, const Expr& b);
Cond operator!=(const Expr& a, const Expr& b);
Cond operator<(const Expr& a, const Expr& b);
Cond operator<=(const Expr& a, const Expr& b);
Cond operator>(const Expr& a, const Expr& b);
Cond operator>=(const Expr& a, const Expr& b);

// Whether c holds with Python semantics. Throws like evaluate().
bool evaluate(const Cond& c, const Bindings& values);

// Parsers for the printed grammar. Errors carry the position (1-based column) and the reason.
// A reserved word (is_reserved_name) is refused as a symbol.
Expected<Expr> parse_expr(std::string_view text);
Expected<Cond> parse_cond(std::string_view text);
// The message for a text that parse_expr / parse_cond refused with `error` (`column N: reason`),
// the text being named `what`: `cannot parse expression 'a + * b': column 5: ...` when it is
// short; a long text is never quoted whole: the reason comes first, then a short excerpt around
// the column, `cannot parse expression (10001 characters): column 201: expression nested too
// deeply, near '((((((((...'`.
std::string parse_failure(std::string_view what, std::string_view text, std::string_view error);
// Whether name is reserved and cannot name a symbol: the grammar's functions (max, min,
// ceildiv, ...) and keywords (and, or, not, True, False), inf, nan, oo and Python's keywords.
bool is_reserved_name(std::string_view name);

// A total order on expressions that depends only on their structure and symbol names (never on
// GiNaC's hash order): negative, zero or positive like strcmp. The printer sorts with it.
int canonical_compare(const GiNaC::ex& a, const GiNaC::ex& b);

}  // namespace symshape
