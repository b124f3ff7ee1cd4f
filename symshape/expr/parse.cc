// The parser for the printed grammar, which is Python's: a lazy tokenizer and one recursive-descent
// function per precedence level. Arithmetic and boolean expressions share the levels (a
// parenthesized group may be either), so every level returns a Value that is an Expr or a Cond,
// and each operator checks the kind of its operands.
#include <cln/integer_io.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"

namespace symshape {

namespace {

// Deeper nesting is rejected rather than risking the stack (Python's own limit is about 200).
constexpr int kMaxDepth = 200;
// A constant power with more bits than this is refused: the text is tiny, the number is not.
constexpr long kMaxPowerBits = 1L << 24;

// A failure at a 1-based column; parse_expr / parse_cond turn it into "column N: message".
struct ParseError {
  int col;
  std::string message;
};

enum class Tok {
  End,
  Int,
  Name,
  LParen,
  RParen,
  Comma,
  Plus,
  Minus,
  Star,
  FloorDiv,
  Percent,
  Power,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  int col = 1;
};

// Character classes, looked up in one table.
enum : unsigned char { kDigit = 1, kNameStart = 2, kSpace = 4 };

constexpr std::array<unsigned char, 256> make_char_classes() {
  std::array<unsigned char, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kNameStart;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kNameStart;
  t['_'] = kNameStart;
  for (char c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[static_cast<unsigned char>(c)] = kSpace;
  return t;
}
constexpr std::array<unsigned char, 256> kCharClass = make_char_classes();

bool has_class(char c, unsigned char cls) {
  return (kCharClass[static_cast<unsigned char>(c)] & cls) != 0;
}
bool is_name_start(char c) { return has_class(c, kNameStart); }
bool is_digit(char c) { return has_class(c, kDigit); }
bool is_name_char(char c) { return has_class(c, kNameStart | kDigit); }
bool is_space(char c) { return has_class(c, kSpace); }

// A character for an error message: printable ASCII as is, anything else as \xNN.
std::string show_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  const char* hex = "0123456789abcdef";
  return std::string("\\x") + hex[u >> 4] + hex[u & 15];
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  Token next() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    const size_t start = pos_;
    const int col = static_cast<int>(start) + 1;
    if (pos_ == s_.size()) return {Tok::End, {}, col};
    const char c = s_[pos_];
    if (is_digit(c)) {
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && (is_name_char(s_[pos_]) || s_[pos_] == '.')) {
        while (pos_ < s_.size() && (is_name_char(s_[pos_]) || s_[pos_] == '.')) ++pos_;
        throw ParseError{col, "invalid integer literal '" + std::string(token(start)) + "'"};
      }
      return {Tok::Int, token(start), col};
    }
    if (is_name_start(c)) {
      while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
      return {Tok::Name, token(start), col};
    }
    const char d = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
    auto two = [&](Tok kind) {
      pos_ += 2;
      return Token{kind, token(start), col};
    };
    auto one = [&](Tok kind) {
      pos_ += 1;
      return Token{kind, token(start), col};
    };
    switch (c) {
      case '(': return one(Tok::LParen);
      case ')': return one(Tok::RParen);
      case ',': return one(Tok::Comma);
      case '+': return one(Tok::Plus);
      case '-': return one(Tok::Minus);
      case '%': return one(Tok::Percent);
      case '*': return d == '*' ? two(Tok::Power) : one(Tok::Star);
      case '/':
        if (d == '/') return two(Tok::FloorDiv);
        throw ParseError{col, "use // for floor division"};
      case '=':
        if (d == '=') return two(Tok::Eq);
        throw ParseError{col, "use == to compare"};
      case '!':
        if (d == '=') return two(Tok::Ne);
        break;
      case '<': return d == '=' ? two(Tok::Le) : one(Tok::Lt);
      case '>': return d == '=' ? two(Tok::Ge) : one(Tok::Gt);
      default: break;
    }
    throw ParseError{col, "unexpected character '" + show_char(c) + "'"};
  }

 private:
  std::string_view token(size_t start) const { return s_.substr(start, pos_ - start); }

  std::string_view s_;
  size_t pos_ = 0;
};

// What a precedence level produced, and the column where it starts (for kind errors).
struct Value {
  std::variant<Expr, Cond> v;
  int col;
};

// The functions a call may name: Python's and the spellings of PyTorch's sympy printer.
enum class Call { Max, Min, FloorDiv, Mod, CeilDiv, ExactDiv };

constexpr std::pair<std::string_view, Call> kCalls[] = {
    {"max", Call::Max},           {"Max", Call::Max},         {"min", Call::Min},
    {"Min", Call::Min},           {"ceildiv", Call::CeilDiv}, {"CeilDiv", Call::CeilDiv},
    {"FloorDiv", Call::FloorDiv}, {"Mod", Call::Mod},         {"PythonMod", Call::Mod},
    {"CleanDiv", Call::ExactDiv},
};

constexpr std::string_view kKeywords[] = {"and", "or", "not", "True", "False"};

std::optional<Call> lookup_call(std::string_view name) {
  for (const auto& [n, c] : kCalls) {
    if (n == name) return c;
  }
  return std::nullopt;
}

bool is_keyword(std::string_view name) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords);
}

}  // namespace

bool is_reserved_name(std::string_view name) {
  // The grammar's functions and keywords, the printed infinity, and Python's keywords (what is
  // printed must read back, also as Python). One hashed look-up: the parser asks it of every
  // name it reads.
  static const auto* const reserved = [] {
    auto* set = new std::unordered_set<std::string_view>{
        "inf",   "nan",      "oo",  "None",   "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def", "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",  "import", "in",   "is",     "lambda", "nonlocal", "pass",
        "raise", "return",   "try", "while",  "with", "yield",
    };
    for (std::string_view k : kKeywords) set->insert(k);
    for (const auto& [n, c] : kCalls) set->insert(n);
    return set;
  }();
  return reserved->count(name) != 0;
}

namespace {

std::optional<RelOp> relop_of(Tok t) {
  switch (t) {
    case Tok::Eq: return RelOp::Eq;
    case Tok::Ne: return RelOp::Ne;
    case Tok::Lt: return RelOp::Lt;
    case Tok::Le: return RelOp::Le;
    case Tok::Gt: return RelOp::Gt;
    case Tok::Ge: return RelOp::Ge;
    default: return std::nullopt;
  }
}

// Runs an engine construction, turning its exceptions (division by zero, GiNaC's own) into a
// ParseError at the column of the operator that asked for it.
template <typename F>
auto at_column(int col, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    throw ParseError{col, e.what()};
  }
}

// The terms of a chain of + and -: the non-constant terms as GiNaC builds them (a subtracted
// term negated as `a - b` negates it), and the sum of the integer constants.
class Sum {
 public:
  void add(const Expr& e, bool minus) {
    const GiNaC::ex& x = e.ex();
    if (detail::is_exactly<GiNaC::numeric>(x)) {
      const auto& n = GiNaC::ex_to<GiNaC::numeric>(x);
      if (n.is_integer()) {  // in CLN's integers, without GiNaC's generic numbers
        const Int v = cln::the<cln::cl_I>(n.to_cl_N());
        integer_ = minus ? integer_ - v : integer_ + v;
      } else {
        rational_ = minus ? rational_.sub(n) : rational_.add(n);
      }
    } else {
      terms_.push_back(minus ? -x : x);
    }
  }

  Expr build() {
    const bool zero = cln::zerop(integer_) && rational_.is_zero();
    if (terms_.empty()) return zero ? Expr(0) : Expr(constant_ex());
    if (!zero) {
      GiNaC::ex constant = constant_ex();
      if (!GiNaC::ex_to<GiNaC::numeric>(constant).is_zero()) terms_.push_back(std::move(constant));
    }
    if (terms_.size() == 1) return Expr(terms_[0]);
    // GiNaC builds a sum of two from the pair directly, without flattening a vector.
    if (terms_.size() == 2) return Expr(terms_[0] + terms_[1]);
    return Expr(GiNaC::ex(GiNaC::dynallocate<GiNaC::add>(terms_)));
  }

 private:
  // The sum of the constants; a small integer from GiNaC's shared small numbers.
  GiNaC::ex constant_ex() const {
    if (!rational_.is_zero()) return rational_.add(GiNaC::numeric(cln::cl_N(integer_)));
    if (std::optional<int64_t> small = to_int64(integer_)) {
      return GiNaC::ex(static_cast<long>(*small));
    }
    return detail::ex_of(integer_);
  }

  GiNaC::exvector terms_;
  Int integer_ = 0;              // the integer constants
  GiNaC::numeric rational_ = 0;  // any others
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lex_(text) { advance(); }

  // The whole input as one Value; anything left over is an error.
  Value parse_all() {
    if (cur_.kind == Tok::End) throw ParseError{1, "empty expression"};
    Value v = parse_or();
    if (cur_.kind != Tok::End) throw unexpected(cur_);
    return v;
  }

  static Expr as_expr(const Value& v) {
    if (const Expr* e = std::get_if<Expr>(&v.v)) return *e;
    throw ParseError{v.col, "expected an integer expression, got a condition"};
  }

  static Cond as_cond(const Value& v) {
    if (const Cond* c = std::get_if<Cond>(&v.v)) return *c;
    throw ParseError{v.col, "expected a condition, got an integer expression"};
  }

 private:
  // Counts recursion through parentheses, calls, unary operators and `**`.
  class Nesting {
   public:
    Nesting(Parser& p, int col) : p_(p) {
      if (++p_.depth_ > kMaxDepth) throw ParseError{col, "expression nested too deeply"};
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  void advance() {
    prev_ = cur_;
    has_prev_ = started_;
    started_ = true;
    cur_ = lex_.next();
  }

  bool at_keyword(std::string_view word) const {
    return cur_.kind == Tok::Name && cur_.text == word;
  }

  static std::string describe(const Token& t) {
    return t.kind == Tok::End ? "end of input" : "'" + std::string(t.text) + "'";
  }

  static ParseError unexpected(const Token& t) {
    return ParseError{t.col, "unexpected " + describe(t)};
  }

  // The current token cannot start an operand.
  ParseError missing_operand() const {
    if (has_prev_) {
      return ParseError{cur_.col, "expected an expression after '" + std::string(prev_.text) + "'"};
    }
    return unexpected(cur_);
  }

  // or_test: and_test ('or' and_test)*
  Value parse_or() {
    Value first = parse_and();
    if (!at_keyword("or")) return first;
    std::vector<Cond> operands{as_cond(first)};
    while (at_keyword("or")) {
      advance();
      operands.push_back(as_cond(parse_and()));
    }
    return {Cond::any(std::move(operands)), first.col};
  }

  // and_test: not_test ('and' not_test)*
  Value parse_and() {
    Value first = parse_not();
    if (!at_keyword("and")) return first;
    std::vector<Cond> operands{as_cond(first)};
    while (at_keyword("and")) {
      advance();
      operands.push_back(as_cond(parse_not()));
    }
    return {Cond::all(std::move(operands)), first.col};
  }

  // not_test: 'not' not_test | comparison
  Value parse_not() {
    if (!at_keyword("not")) return parse_comparison();
    const Token op = cur_;
    Nesting nesting(*this, op.col);
    advance();
    return {Cond::negation(as_cond(parse_not())), op.col};
  }

  // comparison: arith (relop arith)*; a chain `a < b < c` is `a < b and b < c`, as in Python.
  Value parse_comparison() {
    Value first = parse_arith();
    if (!relop_of(cur_.kind)) return first;
    Expr lhs = as_expr(first);
    std::vector<Cond> relations;
    while (auto op = relop_of(cur_.kind)) {
      advance();
      Expr rhs = as_expr(parse_arith());
      relations.push_back(Cond::rel(*op, lhs, rhs));
      lhs = rhs;
    }
    return {Cond::all(std::move(relations)), first.col};
  }

  // arith: term (('+' | '-') term)*
  // A chain is built as one GiNaC sum of its terms, with its integer constants added up while
  // parsing: GiNaC's sum is canonical (flat, sorted, like terms combined), so this is the
  // expression the left-to-right fold `(a + b) - c` builds, without the intermediate sums.
  Value parse_arith() {
    Value left = parse_term();
    if (cur_.kind != Tok::Plus && cur_.kind != Tok::Minus) return left;
    const int first_op = cur_.col;
    Sum sum;
    sum.add(as_expr(left), false);
    while (cur_.kind == Tok::Plus || cur_.kind == Tok::Minus) {
      const bool minus = cur_.kind == Tok::Minus;
      advance();
      sum.add(as_expr(parse_term()), minus);
    }
    left.v = at_column(first_op, [&] { return sum.build(); });
    return left;
  }

  // term: factor (('*' | '//' | '%') factor)*
  // Builds what the left-to-right fold `(a * b) // c` builds, but a constant c times a sum is
  // held back as `pending` (with the constants that follow): GiNaC would distribute c over the
  // sum, and a further factor would take it out again as the sum's content. While held, the
  // fold's value is `product * pending`; it is multiplied in before a // or %, at the end, and
  // before a factor that might not give the same product (defer_over).
  Value parse_term() {
    Value left = parse_factor();
    if (cur_.kind != Tok::Star && cur_.kind != Tok::FloorDiv && cur_.kind != Tok::Percent) {
      return left;
    }
    Expr product = as_expr(left);
    Expr pending(1);
    bool held = false;    // whether pending is held back (it is 1 otherwise)
    int pending_col = 0;  // the column of the operator that multiplied it in
    auto settle = [&] {
      if (!held) return;
      product = at_column(pending_col, [&] { return product * pending; });
      held = false;
    };
    while (cur_.kind == Tok::Star || cur_.kind == Tok::FloorDiv || cur_.kind == Tok::Percent) {
      const Token op = cur_;
      advance();
      Expr b = as_expr(parse_factor());
      if (op.kind == Tok::Star) {
        if (held && detail::is_exactly<GiNaC::numeric>(b.ex())) {
          pending = pending * b;
          pending_col = op.col;
          continue;
        }
        if (detail::is_exactly<GiNaC::numeric>(product.ex()) &&
            detail::is_exactly<GiNaC::add>(b.ex())) {
          // c * F is F * c: hold c back.
          settle();
          pending = product;
          held = true;
          pending_col = op.col;
          product = b;
          continue;
        }
        if (held && !defer_over(product.ex(), b.ex(), pending)) settle();
        if (held && cur_.kind != Tok::Star) {
          // The chain's last factor: the held constant goes in with it, as one product.
          product = at_column(op.col, [&] {
            return Expr(
                GiNaC::ex(GiNaC::dynallocate<GiNaC::mul>(product.ex(), b.ex(), pending.ex())));
          });
          held = false;
          continue;
        }
        product = at_column(op.col, [&] { return product * b; });
        continue;
      }
      settle();
      product = at_column(op.col, [&] {
        return op.kind == Tok::FloorDiv ? floordiv(product, b) : mod(product, b);
      });
    }
    settle();
    left.v = std::move(product);
    return left;
  }

  // Whether (p*l)*f is (l*f)*p, for a held constant p and a non-constant factor f. Certainly so
  // when l is not a sum. When l is a sum, p*l is the sum distributed and GiNaC's product then
  // takes each sum's integer content out again, so the two agree unless f may share a base with
  // l or p*l: accepted are a symbol, a call, and a sum that is neither l nor p*l (its constant
  // term differs from p*l's).
  static bool defer_over(const GiNaC::ex& l, const GiNaC::ex& f, const Expr& held) {
    if (!detail::is_exactly<GiNaC::add>(l)) return true;
    const auto& p = GiNaC::ex_to<GiNaC::numeric>(held.ex());
    if (detail::is_exactly<GiNaC::symbol>(f) || detail::is_exactly<GiNaC::function>(f)) {
      return true;
    }
    if (!detail::is_exactly<GiNaC::add>(f) || f.is_equal(l)) return false;
    return !constant_term(f).is_equal(p.mul(constant_term(l)));
  }

  // The constant term of a sum (GiNaC gives it as the last operand when it is not zero).
  static GiNaC::numeric constant_term(const GiNaC::ex& sum) {
    const GiNaC::ex last = sum.op(sum.nops() - 1);
    if (detail::is_exactly<GiNaC::numeric>(last)) return GiNaC::ex_to<GiNaC::numeric>(last);
    return 0;
  }

  // factor: ('+' | '-') factor | power
  Value parse_factor() {
    if (cur_.kind != Tok::Plus && cur_.kind != Tok::Minus) return parse_power();
    const Token op = cur_;
    Nesting nesting(*this, op.col);
    advance();
    Expr e = as_expr(parse_factor());
    return {op.kind == Tok::Minus ? -e : e, op.col};
  }

  // power: atom ['**' factor]; right-associative, and tighter than a unary minus on its left.
  Value parse_power() {
    Value base = parse_atom();
    if (cur_.kind != Tok::Power) return base;
    const Token op = cur_;
    Expr b = as_expr(base);
    Nesting nesting(*this, op.col);
    advance();
    Expr n = as_expr(parse_factor());
    return {power(b, n, op.col), base.col};
  }

  static Expr power(const Expr& base, const Expr& exponent, int col) {
    std::optional<Int> n = exponent.constant();
    if (!n || *n < 0) throw ParseError{col, "exponent must be a non-negative integer constant"};
    if (*n > Int(UINT_MAX)) throw ParseError{col, "exponent too large"};
    const auto k = static_cast<unsigned>(cln::cl_I_to_UL(*n));
    if (k == 0) return Expr(1);  // Python's 0**0 is 1; GiNaC calls it undefined
    if (std::optional<Int> b = base.constant(); b && cln::abs(*b) > 1) {
      if (cln::integer_length(*b) * Int(k) > Int(kMaxPowerBits)) {
        throw ParseError{col, "power too large"};
      }
    }
    return at_column(col, [&] { return pow(base, k); });
  }

  // atom: INT | NAME | NAME '(' args ')' | '(' or_test ')' | 'True' | 'False'
  Value parse_atom() {
    const Token t = cur_;
    switch (t.kind) {
      case Tok::Int: {
        advance();
        return {integer(t.text), t.col};
      }
      case Tok::LParen: {
        Nesting nesting(*this, t.col);
        advance();
        Value inner = parse_or();
        expect_close(t);
        return {std::move(inner.v), t.col};
      }
      case Tok::Name: {
        if (t.text == "True" || t.text == "False") {
          advance();
          return {Cond::truth(t.text == "True"), t.col};
        }
        if (is_keyword(t.text)) break;
        advance();
        if (cur_.kind == Tok::LParen) return parse_call(t);
        return {symbol(t), t.col};
      }
      default: break;
    }
    throw missing_operand();
  }

  // A decimal literal (digits only, the lexer checked): in a machine word when it fits.
  static Expr integer(std::string_view digits) {
    if (digits.size() <= 18) {
      long v = 0;
      for (char c : digits) v = v * 10 + (c - '0');
      return Expr(v);
    }
    const std::string text(digits);
    return Expr(cln::read_integer(10, 0, text.c_str(), 0, text.size()));
  }

  // The symbol a name token names; a reserved word is refused.
  static Expr symbol(const Token& name) {
    if (is_reserved_name(name.text)) {
      throw ParseError{
          name.col, "'" + std::string(name.text) + "' is a reserved word and cannot name a symbol"};
    }
    return Expr::symbol(name.text);
  }

  void expect_close(const Token& open) {
    if (cur_.kind == Tok::RParen) {
      advance();
      return;
    }
    if (cur_.kind == Tok::End) {
      throw ParseError{cur_.col, "missing ')' to close '(' at column " + std::to_string(open.col)};
    }
    throw unexpected(cur_);
  }

  // A call; the current token is its '('.
  Value parse_call(const Token& name) {
    const std::string fname(name.text);
    std::optional<Call> call = lookup_call(name.text);
    if (!call) throw ParseError{name.col, "unknown function '" + fname + "'"};
    const Token open = cur_;
    Nesting nesting(*this, open.col);
    advance();
    std::vector<Expr> args;
    if (cur_.kind != Tok::RParen) {
      while (true) {
        args.push_back(as_expr(parse_or()));
        if (cur_.kind != Tok::Comma) break;
        advance();
      }
    }
    expect_close(open);

    const bool nary = *call == Call::Max || *call == Call::Min;
    if (nary && args.size() < 2) {
      throw ParseError{name.col,
                       fname + " needs at least 2 arguments, got " + std::to_string(args.size())};
    }
    if (!nary && args.size() != 2) {
      throw ParseError{name.col, fname + " takes 2 arguments, got " + std::to_string(args.size())};
    }
    Expr result = at_column(name.col, [&] {
      switch (*call) {
        case Call::Max: return max(args);
        case Call::Min: return min(args);
        case Call::FloorDiv: return floordiv(args[0], args[1]);
        case Call::Mod: return mod(args[0], args[1]);
        case Call::CeilDiv: return ceildiv(args[0], args[1]);
        case Call::ExactDiv: return exact_div(args[0], args[1]);
      }
      throw Error("unreachable");
    });
    // An exact division the text itself shows to be inexact would be a non-integer constant.
    if (detail::is_exactly<GiNaC::numeric>(result.ex()) && !result.is_constant()) {
      throw ParseError{name.col, fname + "(" + args[0].str() + ", " + args[1].str() +
                                     ") is not an exact division"};
    }
    return {result, name.col};
  }

  Lexer lex_;
  Token cur_;
  Token prev_;
  bool has_prev_ = false;
  bool started_ = false;
  int depth_ = 0;
};

// Parses text and converts the result with `finish`; every failure becomes "column N: reason".
template <typename T, typename Finish>
Expected<T> run_parser(std::string_view text, Finish finish) {
  try {
    Parser parser(text);
    return finish(parser.parse_all());
  } catch (const ParseError& e) {
    return Expected<T>::failure("column " + std::to_string(e.col) + ": " + e.message);
  } catch (const std::exception& e) {
    return Expected<T>::failure(std::string("column 1: ") + e.what());
  } catch (...) {
    return Expected<T>::failure("column 1: internal error while parsing");
  }
}

}  // namespace

Expected<Expr> parse_expr(std::string_view text) {
  return run_parser<Expr>(text, [](const Value& v) { return Parser::as_expr(v); });
}

Expected<Cond> parse_cond(std::string_view text) {
  return run_parser<Cond>(text, [](const Value& v) { return Parser::as_cond(v); });
}

std::string parse_failure(std::string_view what, std::string_view text, std::string_view error) {
  constexpr size_t kWhole = 80;    // a text this short is quoted whole
  constexpr size_t kAround = 20;   // characters of a long text shown on each side of the column
  constexpr size_t kReason = 160;  // a reason quoting a long token is cut here
  std::string reason(error.substr(0, kReason));
  if (error.size() > kReason) reason += "...";
  if (text.size() <= kWhole)
    return "cannot parse " + std::string(what) + " '" + std::string(text) + "': " + reason;
  size_t column = 1;
  if (error.substr(0, 7) == "column ")
    column = std::strtoul(std::string(error.substr(7, 20)).c_str(), nullptr, 10);
  size_t at = std::min(text.size(), column == 0 ? 0 : column - 1);
  size_t from = at > kAround ? at - kAround : 0;
  size_t to = std::min(text.size(), at + kAround);
  std::string excerpt = (from > 0 ? "..." : "") + std::string(text.substr(from, to - from)) +
                        (to < text.size() ? "..." : "");
  return "cannot parse " + std::string(what) + " (" + std::to_string(text.size()) +
         " characters): " + reason + ", near '" + excerpt + "'";
}

}  // namespace symshape
