// The parser for the printed grammar, which is Python's: a lazy tokenizer and one recursive-descent
// function per precedence level. Arithmetic and boolean expressions share the levels (a
// parenthesized group may be either), so every level returns a Value that is an Expr or a Cond,
// and each operator checks the kind of its operands.
#include <cln/integer_io.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <forward_list>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

// The lexer's failures, out of its loop (building a message needs registers the scan does not).
[[noreturn, gnu::cold, gnu::noinline]] void fail_lexing(int col, const char* start, const char* p,
                                                        const char* end) {
  const char c = *start;
  if (c >= '0' && c <= '9') {
    while (p != end && (is_name_char(*p) || *p == '.')) ++p;
    throw ParseError{col, "invalid integer literal '" + std::string(start, p) + "'"};
  }
  if (c == '/') throw ParseError{col, "use // for floor division"};
  if (c == '=') throw ParseError{col, "use == to compare"};
  throw ParseError{col, "unexpected character '" + show_char(c) + "'"};
}

// What a token starting with a character is, in one table.
enum class Start : unsigned char {
  Invalid,
  Digit,
  Name,
  LParen,
  RParen,
  Comma,
  Plus,
  Minus,
  Percent,
  Star,
  Slash,
  Equal,
  Bang,
  Less,
  Greater,
};

constexpr std::array<Start, 256> make_starts() {
  std::array<Start, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (kCharClass[c] & kDigit) t[c] = Start::Digit;
    if (kCharClass[c] & kNameStart) t[c] = Start::Name;
  }
  t['('] = Start::LParen;
  t[')'] = Start::RParen;
  t[','] = Start::Comma;
  t['+'] = Start::Plus;
  t['-'] = Start::Minus;
  t['%'] = Start::Percent;
  t['*'] = Start::Star;
  t['/'] = Start::Slash;
  t['='] = Start::Equal;
  t['!'] = Start::Bang;
  t['<'] = Start::Less;
  t['>'] = Start::Greater;
  return t;
}
constexpr std::array<Start, 256> kStarts = make_starts();

class Lexer {
 public:
  explicit Lexer(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  // Scans the next token into t: a token is a view of the text, never a string of its own.
  void next(Token& t) {
    const char* p = p_;
    while (p != end_ && is_space(*p)) ++p;
    const char* start = p;
    const int col = static_cast<int>(start - begin_) + 1;
    Tok kind = Tok::End;
    if (p != end_) {
      // The character after the first, for the two-character operators.
      auto second_is = [&](char c) { return p + 1 != end_ && p[1] == c; };
      auto take = [&](Tok k, int width) {
        kind = k;
        p += width;
      };
      switch (kStarts[static_cast<unsigned char>(*p)]) {
        case Start::Digit:
          ++p;
          while (p != end_ && is_digit(*p)) ++p;
          if (p != end_ && (is_name_char(*p) || *p == '.')) fail_lexing(col, start, p, end_);
          kind = Tok::Int;
          break;
        case Start::Name:
          ++p;
          while (p != end_ && is_name_char(*p)) ++p;
          kind = Tok::Name;
          break;
        case Start::LParen: take(Tok::LParen, 1); break;
        case Start::RParen: take(Tok::RParen, 1); break;
        case Start::Comma: take(Tok::Comma, 1); break;
        case Start::Plus: take(Tok::Plus, 1); break;
        case Start::Minus: take(Tok::Minus, 1); break;
        case Start::Percent: take(Tok::Percent, 1); break;
        case Start::Star:
          if (second_is('*')) {
            take(Tok::Power, 2);
          } else {
            take(Tok::Star, 1);
          }
          break;
        case Start::Slash:
          if (!second_is('/')) fail_lexing(col, start, p, end_);
          take(Tok::FloorDiv, 2);
          break;
        case Start::Equal:
          if (!second_is('=')) fail_lexing(col, start, p, end_);
          take(Tok::Eq, 2);
          break;
        case Start::Bang:
          if (!second_is('=')) fail_lexing(col, start, p, end_);
          take(Tok::Ne, 2);
          break;
        case Start::Less:
          if (second_is('=')) {
            take(Tok::Le, 2);
          } else {
            take(Tok::Lt, 1);
          }
          break;
        case Start::Greater:
          if (second_is('=')) {
            take(Tok::Ge, 2);
          } else {
            take(Tok::Gt, 1);
          }
          break;
        case Start::Invalid: fail_lexing(col, start, p, end_);
      }
    }
    p_ = p;
    t.kind = kind;
    t.text = std::string_view(start, static_cast<size_t>(p - start));
    t.col = col;
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
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
  // Most names are rejected by their length or first character before any comparison.
  if (name.size() < 2 || name.size() > 5) return false;
  const char c = name[0];
  if (c != 'a' && c != 'o' && c != 'n' && c != 'T' && c != 'F') return false;
  return std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords);
}

}  // namespace

namespace {

// The words is_reserved_name refuses: the grammar's functions and keywords, the printed
// infinity, and Python's keywords (what is printed must read back, also as Python).
constexpr std::string_view kOtherReserved[] = {
    "inf",   "nan",      "oo",  "None",   "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def", "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",  "import", "in",   "is",     "lambda", "nonlocal", "pass",
    "raise", "return",   "try", "while",  "with", "yield",
};
constexpr size_t kLongestReserved = 16;  // at least the longest word

template <typename F>
constexpr void for_each_reserved(F&& f) {
  for (std::string_view w : kOtherReserved) f(w);
  for (std::string_view w : kKeywords) f(w);
  for (const auto& [w, c] : kCalls) f(w);
}

// Bit (character & 63) of masks[length]: the (length, first character) pairs of the reserved
// words (at = 0), or their (length, last character) pairs (at = 1).
constexpr std::array<uint64_t, kLongestReserved + 1> reserved_chars(int at) {
  std::array<uint64_t, kLongestReserved + 1> m{};
  for_each_reserved([&](std::string_view w) {
    m[w.size()] |= uint64_t{1} << (w[at == 0 ? 0 : w.size() - 1] & 63);
  });
  return m;
}
constexpr std::array<uint64_t, kLongestReserved + 1> kReservedFirst = reserved_chars(0);
constexpr std::array<uint64_t, kLongestReserved + 1> kReservedLast = reserved_chars(1);

[[gnu::noinline]] bool is_reserved_word(std::string_view name) {
  bool found = false;
  for_each_reserved([&](std::string_view w) { found = found || w == name; });
  return found;
}

}  // namespace

bool is_reserved_name(std::string_view name) {
  // The parser asks it of every name it reads: the masks of (length, first character) and
  // (length, last character) answer most names at once, and the few that pass are compared
  // with the words.
  if (name.empty() || name.size() > kLongestReserved) return false;
  if ((kReservedFirst[name.size()] >> (name[0] & 63) & 1) == 0) return false;
  if ((kReservedLast[name.size()] >> (name.back() & 63) & 1) == 0) return false;
  return is_reserved_word(name);
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

// What a precedence level produced, and the column where it starts (for kind errors). An
// integer expression is kept in a light form while that is possible, so that constants fold
// and sums collect their terms without a GiNaC object for each step: a machine integer, or a
// machine-integer coefficient times a term (what a GiNaC sum keeps as the rest of one of its
// pairs: a symbol, a call, a power, or a product without a numeric factor). Anything else is
// the GiNaC expression. Each form stands for exactly the expression the Expr operators build
// (to_ex builds it).
struct Value {
  enum class Kind : unsigned char { Int, Scaled, Ex, Cond };
  Kind kind = Kind::Int;
  int col = 1;
  int64_t k = 0;               // Int: the value; Scaled: the coefficient (never 0)
  GiNaC::ex e;                 // Scaled: the term; Ex: the expression
  const Cond* cond = nullptr;  // Cond: kept by the parser (a Value stays cheap to copy)

  Value() = default;
  Value(Kind kind_, int col_, int64_t k_, const GiNaC::ex& e_)
      : kind(kind_), col(col_), k(k_), e(e_) {}

  static Value integer(int64_t v, int col) {
    Value r;
    r.col = col;
    r.k = v;
    return r;
  }
  static Value scaled(const GiNaC::ex& term, int64_t coeff, int col) {
    return Value(Kind::Scaled, col, coeff, term);
  }
  static Value condition(const Cond* c, int col) {
    Value r;
    r.kind = Kind::Cond;
    r.col = col;
    r.cond = c;
    return r;
  }
  // An expression in its lightest form.
  static Value of(const GiNaC::ex& x, int col);

  bool is_cond() const { return kind == Kind::Cond; }
};

// Whether x is what GiNaC keeps as the rest of a pair of a sum (with the pair's coefficient
// apart): not a number, not a sum, and not a product with a numeric factor.
bool is_term(const GiNaC::ex& x) {
  // The class asked once (each is_exactly is a virtual call).
  const auto* cls = &GiNaC::ex_to<GiNaC::basic>(x).get_class_info();
  if (cls == &GiNaC::symbol::get_class_info_static() ||
      cls == &GiNaC::function::get_class_info_static() ||
      cls == &GiNaC::power::get_class_info_static()) {
    return true;
  }
  if (cls != &GiNaC::mul::get_class_info_static()) return false;
  const GiNaC::ex& c = detail::PairsOf::overall(x);
  static const GiNaC::ex* const one = new GiNaC::ex(1);  // GiNaC's shared 1
  return GiNaC::are_ex_trivially_equal(c, *one) ||
         GiNaC::ex_to<GiNaC::numeric>(c).is_equal(GiNaC::ex_to<GiNaC::numeric>(*one));
}

Value Value::of(const GiNaC::ex& x, int col) {
  if (detail::is_exactly<GiNaC::numeric>(x)) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(x);
    if (n.is_integer()) {
      const Int v = cln::the<cln::cl_I>(n.to_cl_N());
      if (std::optional<int64_t> small = to_int64(v)) return integer(*small, col);
    }
  } else if (is_term(x)) {
    return scaled(x, 1, col);
  }
  return Value(Kind::Ex, col, 0, x);
}

// The GiNaC sum of pairs (term, coefficient) and a numeric constant, built as GiNaC's own
// constructors build it (pairs sorted, like terms combined, zero coefficients dropped) but
// without their flattening pass, which asks every pair whether it is a sum or a number: these
// pairs are terms already (is_term), so it would find nothing to do. A sum of two or more
// pairs, or of one and a nonzero constant, is what evaluation leaves as it is (its pairs are
// evaluated expressions), so it is marked evaluated; anything smaller is evaluated by GiNaC.
struct SumOfPairs : GiNaC::add {
  static GiNaC::ex build(GiNaC::epvector&& pairs, const GiNaC::ex& constant) {
    GiNaC::add& sum = GiNaC::dynallocate<GiNaC::add>();
    GiNaC::epvector& seq = sum.*(&SumOfPairs::seq);
    seq = std::move(pairs);
    sum.*(&SumOfPairs::overall_coeff) = constant;
    if (seq.size() >= 2) {
      (sum.*(&SumOfPairs::canonicalize))();
      (sum.*(&SumOfPairs::combine_same_terms_sorted_seq))();
    }
    if (seq.size() >= 2 || (seq.size() == 1 && !GiNaC::ex_to<GiNaC::numeric>(constant).is_zero())) {
      sum.setflag(GiNaC::status_flags::evaluated);
    }
    return GiNaC::ex(sum);
  }
};

// The GiNaC product of factors and a numeric coefficient, built as GiNaC's constructor builds
// it from the factors (products flattened, a power with a numeric exponent as its base and
// exponent, pairs sorted, like bases combined), without its flattening pass's questions to
// each factor. Marked evaluated when evaluation would leave it as it is: a nonzero
// coefficient, and either one pair with a coefficient other than 1 that is not a sum to
// distribute over, or two or more pairs where every sum (to the first power) is already
// primitive with a positive leading coefficient (evaluation takes out the integer content and
// the sign of any other). Anything else is evaluated by GiNaC.
struct ProductOfPairs : GiNaC::mul {
  // coeff: a numeric.
  static GiNaC::ex build(std::initializer_list<const GiNaC::ex*> factors, const GiNaC::ex& coeff) {
    GiNaC::mul& product = GiNaC::dynallocate<GiNaC::mul>();
    GiNaC::epvector& seq = product.*(&ProductOfPairs::seq);
    GiNaC::ex& c = product.*(&ProductOfPairs::overall_coeff);
    c = coeff;
    size_t n = 0;
    for (const GiNaC::ex* f : factors) {
      n += detail::is_exactly<GiNaC::mul>(*f) ? detail::PairsOf::pairs(*f).size() : 1;
    }
    seq.reserve(n);
    auto scale = [&](const GiNaC::ex& k) {
      if (!GiNaC::are_ex_trivially_equal(k, one()) &&
          !GiNaC::ex_to<GiNaC::numeric>(k).is_equal(GiNaC::ex_to<GiNaC::numeric>(one()))) {
        c = GiNaC::ex_to<GiNaC::numeric>(c).mul(GiNaC::ex_to<GiNaC::numeric>(k));
      }
    };
    for (const GiNaC::ex* f : factors) {
      if (detail::is_exactly<GiNaC::numeric>(*f)) {
        scale(*f);
      } else if (detail::is_exactly<GiNaC::mul>(*f)) {
        const GiNaC::epvector& pairs = detail::PairsOf::pairs(*f);
        seq.insert(seq.end(), pairs.begin(), pairs.end());
        scale(detail::PairsOf::overall(*f));
      } else if (detail::is_exactly<GiNaC::power>(*f) &&
                 detail::is_exactly<GiNaC::numeric>(f->op(1))) {
        seq.emplace_back(f->op(0), f->op(1));
      } else {
        seq.emplace_back(*f, one());
      }
    }
    // One factor's pairs are sorted and combined already (a product's are, as GiNaC built it).
    if (factors.size() >= 2 && seq.size() >= 2) {
      (product.*(&ProductOfPairs::canonicalize))();
      (product.*(&ProductOfPairs::combine_same_terms_sorted_seq))();
    }
    if (evaluation_keeps(seq, GiNaC::ex_to<GiNaC::numeric>(c))) {
      product.setflag(GiNaC::status_flags::evaluated);
    }
    return GiNaC::ex(product);
  }

 private:
  static const GiNaC::ex& one() {
    static const GiNaC::ex* const e = new GiNaC::ex(1);
    return *e;
  }

  static bool evaluation_keeps(const GiNaC::epvector& seq, const GiNaC::numeric& c) {
    static const GiNaC::numeric one(1);
    if (c.is_zero() || seq.empty()) return false;
    if (seq.size() == 1) {
      return !c.is_equal(one) && !(detail::is_exactly<GiNaC::add>(seq[0].rest) &&
                                   GiNaC::ex_to<GiNaC::numeric>(seq[0].coeff).is_equal(one));
    }
    for (const GiNaC::expair& p : seq) {
      if (detail::is_exactly<GiNaC::add>(p.rest) &&
          GiNaC::ex_to<GiNaC::numeric>(p.coeff).is_equal(one) && !primitive_unit(p.rest)) {
        return false;
      }
    }
    return true;
  }

  // The sum's integer content is 1 (integer coefficients without a common factor) and its first
  // pair's coefficient is positive.
  static bool primitive_unit(const GiNaC::ex& sum) {
    const GiNaC::epvector& pairs = detail::PairsOf::pairs(sum);
    if (pairs.empty() || !GiNaC::ex_to<GiNaC::numeric>(pairs[0].coeff).is_positive()) return false;
    Int g = 0;
    auto take = [&](const GiNaC::ex& x) {
      const auto& n = GiNaC::ex_to<GiNaC::numeric>(x);
      if (!n.is_integer()) return false;
      g = cln::gcd(g, cln::the<cln::cl_I>(n.to_cl_N()));
      return true;
    };
    for (const GiNaC::expair& p : pairs) {
      if (!take(p.coeff)) return false;
    }
    return take(detail::PairsOf::overall(sum)) && g == 1;
  }
};

// A machine integer as GiNaC's number (a small one is GiNaC's shared number).
GiNaC::ex number(int64_t v) { return GiNaC::ex(static_cast<long>(v)); }

// The expression an arithmetic value stands for.
GiNaC::ex to_ex(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Int: return number(v.k);
    case Value::Kind::Scaled:
      if (v.k == 1) return v.e;
      return ProductOfPairs::build({&v.e}, number(v.k));
    default: return v.e;
  }
}

// Python's a // b and a % b on machine integers; nullopt for the one overflow (min // -1).
std::optional<int64_t> floor_div(int64_t a, int64_t b) {
  if (b == -1 && a == std::numeric_limits<int64_t>::min()) return std::nullopt;
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
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

// The terms of a chain of + and -, collected as the pairs (term, coefficient) of the GiNaC sum
// the left-to-right fold `(a + b) - c` builds, with the constants added up apart: GiNaC's sum is
// canonical (flat, sorted, like terms combined), so one sum built from the pairs is the fold's,
// without its intermediate sums and without a product for each coefficient. A term that is no
// such pair (a product with a rational or huge factor) sends the chain back to GiNaC's own
// splitting of terms (a sum built from the terms as expressions).
class Sum {
 public:
  void add(const Value& v, bool minus) {
    switch (v.kind) {
      case Value::Kind::Int:
        if (!minus) {
          add_int(v.k);
        } else if (v.k != std::numeric_limits<int64_t>::min()) {
          add_int(-v.k);
        } else {
          add_big(-Int(static_cast<long>(v.k)));
        }
        return;
      case Value::Kind::Scaled:
        if (pairs_.empty()) pairs_.reserve(4);
        if (!minus) {
          pairs_.emplace_back(v.e, number(v.k));
        } else if (v.k != std::numeric_limits<int64_t>::min()) {
          pairs_.emplace_back(v.e, number(-v.k));
        } else {
          pairs_.emplace_back(v.e, detail::ex_of(-Int(static_cast<long>(v.k))));
        }
        return;
      default: add_ex(v.e, minus);
    }
  }

  Value build(int col) {
    if (!odd_.empty()) return Value::of(build_from_terms(), col);
    const bool zero = !rational_ && !has_big_ && small_ == 0;
    if (pairs_.empty()) return Value::of(constant_ex(), col);
    if (zero && pairs_.size() == 1) {
      // What the sum's evaluation gives for one pair: the term times its coefficient.
      const auto& c = GiNaC::ex_to<GiNaC::numeric>(pairs_[0].coeff);
      if (c.is_integer()) {
        const Int v = cln::the<cln::cl_I>(c.to_cl_N());
        if (std::optional<int64_t> small = to_int64(v)) {
          return Value::scaled(std::move(pairs_[0].rest), *small, col);
        }
      }
    }
    GiNaC::ex constant = zero ? GiNaC::ex(0) : constant_ex();
    return Value::of(SumOfPairs::build(std::move(pairs_), constant), col);
  }

 private:
  void add_int(int64_t v) {
    int64_t sum;
    if (__builtin_add_overflow(small_, v, &sum)) return add_big(Int(static_cast<long>(v)));
    small_ = sum;
  }

  // An integer constant past the machine word (kept apart; it may still cancel to 0).
  [[gnu::noinline]] void add_big(const Int& v) {
    big_ = big_ + v;
    has_big_ = true;
  }

  void add_number(const GiNaC::numeric& n, bool minus) {
    if (n.is_integer()) {
      const Int v = cln::the<cln::cl_I>(n.to_cl_N());
      add_big(minus ? Int(-v) : v);
    } else {
      const GiNaC::numeric m = minus ? n.mul(GiNaC::numeric(-1)) : n;
      rational_ = rational_ ? rational_->add(m) : m;
    }
  }

  void add_ex(const GiNaC::ex& x, bool minus) {
    if (detail::is_exactly<GiNaC::numeric>(x)) {
      add_number(GiNaC::ex_to<GiNaC::numeric>(x), minus);
    } else if (detail::is_exactly<GiNaC::add>(x)) {
      // A sum's pairs join this one's, negated when it is subtracted.
      for (const GiNaC::expair& p : detail::PairsOf::pairs(x)) {
        if (!minus) {
          pairs_.push_back(p);
        } else {
          pairs_.emplace_back(p.rest,
                              GiNaC::ex_to<GiNaC::numeric>(p.coeff).mul(GiNaC::numeric(-1)));
        }
      }
      add_number(GiNaC::ex_to<GiNaC::numeric>(detail::PairsOf::overall(x)), minus);
    } else {
      odd_.push_back(minus ? -x : x);
    }
  }

  // The sum of the constants; a small integer from GiNaC's shared small numbers.
  GiNaC::ex constant_ex() const {
    if (rational_) {
      return rational_->add(GiNaC::numeric(cln::cl_N(big_ + Int(static_cast<long>(small_)))));
    }
    if (!has_big_) return number(small_);
    return detail::ex_of(big_ + Int(static_cast<long>(small_)));
  }

  // The sum as GiNaC builds it from its terms as expressions.
  GiNaC::ex build_from_terms() {
    GiNaC::exvector terms = std::move(odd_);
    for (const GiNaC::expair& p : pairs_) terms.push_back(p.rest * p.coeff);
    terms.push_back(constant_ex());
    return GiNaC::ex(GiNaC::dynallocate<GiNaC::add>(terms));
  }

  GiNaC::epvector pairs_;
  GiNaC::exvector odd_;
  int64_t small_ = 0;                       // the machine-integer constants
  Int big_ = 0;                             // any larger integer constants
  bool has_big_ = false;                    // whether big_ was added to
  std::optional<GiNaC::numeric> rational_;  // any others
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
    if (v.is_cond()) throw ParseError{v.col, "expected an integer expression, got a condition"};
    return Expr(to_ex(v));
  }

  static Cond as_cond(const Value& v) {
    if (v.is_cond()) return *v.cond;
    throw ParseError{v.col, "expected a condition, got an integer expression"};
  }

 private:
  // A condition as a Value; the parser keeps it.
  Value condition(Cond c, int col) {
    conds_.push_front(std::move(c));
    return Value::condition(&conds_.front(), col);
  }

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
    prev_text_ = cur_.text;
    lex_.next(cur_);
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
    if (prev_text_.data() != nullptr) {  // a token was read before cur_
      return ParseError{cur_.col, "expected an expression after '" + std::string(prev_text_) + "'"};
    }
    return unexpected(cur_);
  }

  // An arithmetic operand (a condition is refused at its column).
  static const Value& arith(const Value& v) {
    if (v.is_cond()) throw ParseError{v.col, "expected an integer expression, got a condition"};
    return v;
  }

  // The levels from or_test down to comparison are inlined into parse_or, each with its
  // operator's rest apart: most operands (every parenthesized group, every call argument) have
  // no boolean operator at all.

  // or_test: and_test ('or' and_test)*
  Value parse_or() {
    Value first = parse_and();
    if (!at_keyword("or")) return first;
    return parse_or_rest(first);
  }

  Value parse_or_rest(const Value& first) {
    std::vector<Cond> operands{as_cond(first)};
    while (at_keyword("or")) {
      advance();
      operands.push_back(as_cond(parse_and()));
    }
    return condition(Cond::any(std::move(operands)), first.col);
  }

  // and_test: not_test ('and' not_test)*
  [[gnu::always_inline]] Value parse_and() {
    Value first = parse_not();
    if (!at_keyword("and")) return first;
    return parse_and_rest(first);
  }

  Value parse_and_rest(const Value& first) {
    std::vector<Cond> operands{as_cond(first)};
    while (at_keyword("and")) {
      advance();
      operands.push_back(as_cond(parse_not()));
    }
    return condition(Cond::all(std::move(operands)), first.col);
  }

  // not_test: 'not' not_test | comparison
  [[gnu::always_inline]] Value parse_not() {
    if (!at_keyword("not")) return parse_comparison();
    return parse_negation();
  }

  Value parse_negation() {
    const Token op = cur_;
    Nesting nesting(*this, op.col);
    advance();
    return condition(Cond::negation(as_cond(parse_not())), op.col);
  }

  // comparison: arith (relop arith)*; a chain `a < b < c` is `a < b and b < c`, as in Python.
  [[gnu::always_inline]] Value parse_comparison() {
    Value first = parse_arith();
    if (!relop_of(cur_.kind)) return first;
    return parse_relations(first);
  }

  Value parse_relations(const Value& first) {
    Expr lhs = as_expr(first);
    std::vector<Cond> relations;
    while (auto op = relop_of(cur_.kind)) {
      advance();
      Expr rhs = as_expr(parse_arith());
      relations.push_back(Cond::rel(*op, lhs, rhs));
      lhs = rhs;
    }
    return condition(Cond::all(std::move(relations)), first.col);
  }

  // arith: term (('+' | '-') term)*
  // A chain is built as one GiNaC sum of its terms (see Sum), with its constants added up while
  // parsing.
  Value parse_arith() {
    Value left = parse_term();
    if (cur_.kind != Tok::Plus && cur_.kind != Tok::Minus) return left;
    return parse_sum(left);
  }

  // The chain after its first term (apart, so that a lone term passes through a small frame).
  [[gnu::noinline]] Value parse_sum(const Value& left) {
    const int first_op = cur_.col;
    Sum sum;
    sum.add(arith(left), false);
    while (cur_.kind == Tok::Plus || cur_.kind == Tok::Minus) {
      const bool minus = cur_.kind == Tok::Minus;
      advance();
      sum.add(arith(parse_term()), minus);
    }
    return at_column(first_op, [&] { return sum.build(left.col); });
  }

  // a * b into a, in the light forms, when both are light and the product is: constants
  // multiply and coefficients multiply; the terms of two scaled terms multiply in GiNaC, which
  // is the fold's product when that product is again a term (a product of terms has no sum to
  // distribute over nor integer content to take out). False, with a as it was, otherwise.
  static bool light_product(Value& a, const Value& b) {
    using K = Value::Kind;
    int64_t k;
    if (a.kind == K::Int && b.kind == K::Int) {
      if (__builtin_mul_overflow(a.k, b.k, &k)) return false;
      a.k = k;
      return true;
    }
    if ((a.kind == K::Int && b.kind == K::Scaled) || (a.kind == K::Scaled && b.kind == K::Int)) {
      if (__builtin_mul_overflow(a.k, b.k, &k)) return false;
      if (k == 0) {  // GiNaC's 0*x is 0
        a.kind = K::Int;
        a.k = 0;
        return true;
      }
      if (b.kind == K::Scaled) a.e = b.e;
      a.kind = K::Scaled;
      a.k = k;
      return true;
    }
    if (a.kind == K::Scaled && b.kind == K::Scaled) {
      if (__builtin_mul_overflow(a.k, b.k, &k)) return false;
      GiNaC::ex p = ProductOfPairs::build({&a.e, &b.e}, GiNaC::ex(1));
      if (!is_term(p)) return false;
      a.e = p;
      a.k = k;
      return true;
    }
    return false;
  }

  // a // b or a % b (by the operator at column col): machine integers divide in place, a
  // division by 1 leaves a light a as it is, and where the evaluation of floordiv / mod would
  // hold the call (a non-numeric a by a constant other than 0, 1 and -1, or anything by a term)
  // the held call is built directly; anything else is the engine's floordiv / mod.
  static Value divide(Tok op, const Value& a, const Value& b, int col) {
    using K = Value::Kind;
    const unsigned serial =
        op == Tok::FloorDiv ? ss_floordiv_SERIAL::serial : ss_mod_SERIAL::serial;
    if (b.kind == K::Int) {
      if (b.k == 0) throw ParseError{col, "division by zero"};
      if (a.kind == K::Int) {
        if (op == Tok::Percent) return Value::integer(floor_mod(a.k, b.k), a.col);
        if (std::optional<int64_t> q = floor_div(a.k, b.k)) return Value::integer(*q, a.col);
      }
      if (op == Tok::FloorDiv && b.k == 1) return a;
      if (b.k != 1 && b.k != -1 && a.kind != K::Int && !detail::is_exactly<GiNaC::numeric>(a.e)) {
        return Value::scaled(detail::held_call(serial, to_ex(a), number(b.k)), 1, a.col);
      }
    } else if (b.kind == K::Scaled) {
      return Value::scaled(detail::held_call(serial, to_ex(a), to_ex(b)), 1, a.col);
    }
    const Expr x(to_ex(a)), y(to_ex(b));
    return Value::of(
        at_column(col, [&] { return op == Tok::FloorDiv ? floordiv(x, y) : mod(x, y); }).ex(),
        a.col);
  }

  // term: factor (('*' | '//' | '%') factor)*
  // Builds what the left-to-right fold `(a * b) // c` builds. While the operands are light (see
  // light_product) the fold runs on the light forms; from the first factor that is not, the
  // fold continues on GiNaC expressions (continue_term).
  Value parse_term() {
    Value left = parse_factor();
    if (cur_.kind != Tok::Star && cur_.kind != Tok::FloorDiv && cur_.kind != Tok::Percent) {
      return left;
    }
    return parse_product(left);
  }

  // The term after its first factor (apart, like parse_sum).
  [[gnu::noinline]] Value parse_product(const Value& left) {
    Value product = arith(left);
    while (cur_.kind == Tok::Star || cur_.kind == Tok::FloorDiv || cur_.kind == Tok::Percent) {
      const Token op = cur_;
      advance();
      Value b = parse_factor();
      arith(b);
      if (op.kind != Tok::Star) {
        product = divide(op.kind, product, b, op.col);
        continue;
      }
      if (light_product(product, b)) continue;
      return continue_term(Expr(to_ex(product)), op, Expr(to_ex(b)), product.col);
    }
    return product;
  }

  // The rest of a term's fold on GiNaC expressions, from `product op b`.
  // A constant c times a sum is held back as `pending` (with the constants that follow): GiNaC
  // would distribute c over the sum, and a further factor would take it out again as the sum's
  // content. While held, the fold's value is `product * pending`; it is multiplied in before a
  // // or %, at the end, and before a factor that might not give the same product (defer_over).
  Value continue_term(Expr product, Token op, Expr b, int col) {
    Expr pending(1);
    bool held = false;    // whether pending is held back (it is 1 otherwise)
    int pending_col = 0;  // the column of the operator that multiplied it in
    auto settle = [&] {
      if (!held) return;
      product = at_column(pending_col, [&] { return product * pending; });
      held = false;
    };
    while (true) {
      if (op.kind == Tok::Star) {
        if (held && detail::is_exactly<GiNaC::numeric>(b.ex())) {
          pending = pending * b;
          pending_col = op.col;
        } else if (detail::is_exactly<GiNaC::numeric>(product.ex()) &&
                   detail::is_exactly<GiNaC::add>(b.ex())) {
          // c * F is F * c: hold c back.
          settle();
          pending = product;
          held = true;
          pending_col = op.col;
          product = b;
        } else {
          if (held && !defer_over(product.ex(), b.ex(), pending)) settle();
          if (held && cur_.kind != Tok::Star) {
            // The chain's last factor: the held constant goes in with it, as one product.
            product = at_column(op.col, [&] {
              return Expr(ProductOfPairs::build({&product.ex(), &b.ex()},
                                                GiNaC::ex_to<GiNaC::numeric>(pending.ex())));
            });
            held = false;
          } else {
            product = at_column(op.col, [&] { return product * b; });
          }
        }
      } else {
        settle();
        product = at_column(op.col, [&] {
          return op.kind == Tok::FloorDiv ? floordiv(product, b) : mod(product, b);
        });
      }
      if (cur_.kind != Tok::Star && cur_.kind != Tok::FloorDiv && cur_.kind != Tok::Percent) break;
      op = cur_;
      advance();
      b = as_expr(parse_factor());
    }
    settle();
    return Value::of(product.ex(), col);
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

  // -a in the light forms (what the Expr operator gives).
  [[gnu::noinline]] static Value negate(const Value& a, int col) {
    using K = Value::Kind;
    if ((a.kind == K::Int || a.kind == K::Scaled) && a.k != std::numeric_limits<int64_t>::min()) {
      Value r = a;
      r.k = -a.k;
      r.col = col;
      return r;
    }
    return Value::of((-Expr(to_ex(a))).ex(), col);
  }

  // factor: ('+' | '-') factor | power
  Value parse_factor() {
    if (cur_.kind != Tok::Plus && cur_.kind != Tok::Minus) return parse_power();
    return parse_unary();
  }

  [[gnu::noinline]] Value parse_unary() {
    const Token op = cur_;
    Nesting nesting(*this, op.col);
    advance();
    Value e = parse_factor();
    arith(e);
    if (op.kind == Tok::Minus) return negate(e, op.col);
    e.col = op.col;
    return e;
  }

  // power: atom ['**' factor]; right-associative, and tighter than a unary minus on its left.
  [[gnu::always_inline]] Value parse_power() {
    Value base = parse_atom();
    if (cur_.kind != Tok::Power) return base;
    return parse_exponent(base);
  }

  [[gnu::noinline]] Value parse_exponent(const Value& base) {
    const Token op = cur_;
    Expr b = as_expr(base);
    Nesting nesting(*this, op.col);
    advance();
    Expr n = as_expr(parse_factor());
    return Value::of(power(b, n, op.col).ex(), base.col);
  }

  [[gnu::noinline]] static Expr power(const Expr& base, const Expr& exponent, int col) {
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
  [[gnu::always_inline]] Value parse_atom() {
    const Token t = cur_;
    switch (t.kind) {
      case Tok::Int: {
        advance();
        return integer(t);
      }
      case Tok::LParen: return parse_group(t);
      case Tok::Name: {
        if ((t.text[0] == 'T' || t.text[0] == 'F') && (t.text == "True" || t.text == "False")) {
          advance();
          return condition(Cond::truth(t.text == "True"), t.col);
        }
        if (is_keyword(t.text)) break;
        advance();
        if (cur_.kind == Tok::LParen) return parse_call(t);
        return Value::scaled(symbol(t).ex(), 1, t.col);
      }
      default: break;
    }
    throw missing_operand();
  }

  // '(' or_test ')'; the current token is the '('.
  [[gnu::noinline]] Value parse_group(const Token& open) {
    Nesting nesting(*this, open.col);
    advance();
    Value inner = parse_or();
    expect_close(open);
    inner.col = open.col;
    return inner;
  }

  // A decimal literal (digits only, the lexer checked): in a machine word when it fits.
  static Value integer(const Token& t) {
    if (t.text.size() <= 18) {
      int64_t v = 0;
      for (char c : t.text) v = v * 10 + (c - '0');
      return Value::integer(v, t.col);
    }
    return big_integer(t);
  }

  [[gnu::noinline]] static Value big_integer(const Token& t) {
    const std::string text(t.text);
    return Value::of(Expr(cln::read_integer(10, 0, text.c_str(), 0, text.size())).ex(), t.col);
  }

  // The symbol a name token names; a reserved word is refused.
  static Expr symbol(const Token& name) {
    if (is_reserved_name(name.text)) refuse_reserved(name);
    return Expr::symbol(name.text);
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void refuse_reserved(const Token& name) {
    throw ParseError{
        name.col, "'" + std::string(name.text) + "' is a reserved word and cannot name a symbol"};
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
  [[gnu::noinline]] Value parse_call(const Token& name) {
    std::optional<Call> call = lookup_call(name.text);
    if (!call) throw ParseError{name.col, "unknown function '" + std::string(name.text) + "'"};
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
      throw ParseError{name.col, std::string(name.text) + " needs at least 2 arguments, got " +
                                     std::to_string(args.size())};
    }
    if (!nary && args.size() != 2) {
      throw ParseError{name.col, std::string(name.text) + " takes 2 arguments, got " +
                                     std::to_string(args.size())};
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
      throw ParseError{name.col, std::string(name.text) + "(" + args[0].str() + ", " +
                                     args[1].str() + ") is not an exact division"};
    }
    return Value::of(result.ex(), name.col);
  }

  Lexer lex_;
  std::forward_list<Cond> conds_;  // built only for conditions
  Token cur_;
  // The text of the token before cur_; no data before the first (cur_ starts as a token with
  // none, and every token read is a view into the text).
  std::string_view prev_text_;
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
