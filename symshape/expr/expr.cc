// Expr and the integer functions as GiNaC functions, with constant folding in their eval.
#include <cln/integer_io.h>
#include <cln/rational.h>

#include <array>
#include <charconv>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "symshape/expr.h"
#include "symshape/expr/atomize.h"
#include "symshape/expr/functions.h"

namespace symshape {

// ---- integers ------------------------------------------------------------------------------

std::string to_string(const Int& v) {
  if (std::optional<int64_t> small = to_int64(v)) {  // the usual case, without CLN's streams
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *small);
    return std::string(buf, end);
  }
  std::ostringstream os;
  cln::fprintdecimal(os, v);
  return os.str();
}

std::optional<Int> parse_int(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  if (i == text.size()) return std::nullopt;
  Int v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return negative ? Int(-v) : v;
}

std::optional<int64_t> to_int64(const Int& v) {
  // -2**63 <= v < 2**63 exactly when v needs at most 63 bits besides its sign.
  if (cln::integer_length(v) > 63) return std::nullopt;
  return static_cast<int64_t>(cln::cl_I_to_Q(v));
}

namespace detail {

bool is_int(const GiNaC::ex& e) {
  return detail::is_exactly<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
}

Int int_of(const GiNaC::ex& e) {
  return cln::the<cln::cl_I>(GiNaC::ex_to<GiNaC::numeric>(e).to_cl_N());
}

// A small integer (most are) as GiNaC's shared number where it has one (-12..12), without a
// new numeric.
GiNaC::ex ex_of(const Int& v) {
  if (cln::integer_length(v) <= 62) return GiNaC::ex(static_cast<long>(cln::cl_I_to_long(v)));
  return GiNaC::numeric(cln::cl_N(v));
}

// Built once on the heap with its evaluated flag set: `ss_floordiv(a, b).hold()` builds it twice
// (a temporary, then its copy), and building `ss_floordiv(a, b)` to evaluate it once more.
GiNaC::ex held_call(unsigned serial, const GiNaC::ex& a, const GiNaC::ex& b) {
  return GiNaC::dynallocate<GiNaC::function>(serial, a, b).setflag(GiNaC::status_flags::evaluated);
}

// ---- the integer functions as GiNaC functions ------------------------------------------------

namespace {

bool is_zero_constant(const GiNaC::ex& e) {
  return detail::is_exactly<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_zero();
}

void check_divisor(const GiNaC::ex& b) {
  if (is_zero_constant(b)) throw Error("division by zero");
}

GiNaC::ex floordiv_eval(const GiNaC::ex& a, const GiNaC::ex& b) {
  check_divisor(b);
  if (is_int(a) && is_int(b)) return ex_of(cln::floor1(int_of(a), int_of(b)));
  if (b.is_equal(1)) return a;
  if (b.is_equal(-1)) return -a;
  return held_call(ss_floordiv_SERIAL::serial, a, b);
}

GiNaC::ex mod_eval(const GiNaC::ex& a, const GiNaC::ex& b) {
  check_divisor(b);
  if (is_int(a) && is_int(b)) return ex_of(cln::mod(int_of(a), int_of(b)));
  if (b.is_equal(1) || b.is_equal(-1)) return 0;
  return held_call(ss_mod_SERIAL::serial, a, b);
}

GiNaC::ex ceildiv_eval(const GiNaC::ex& a, const GiNaC::ex& b) {
  check_divisor(b);
  if (is_int(a) && is_int(b)) return ex_of(cln::ceiling1(int_of(a), int_of(b)));
  if (b.is_equal(1)) return a;
  return held_call(ss_ceildiv_SERIAL::serial, a, b);
}

GiNaC::ex max_eval(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (is_int(a) && is_int(b)) return int_of(a) >= int_of(b) ? a : b;
  if (a.is_equal(b)) return a;
  return held_call(ss_max_SERIAL::serial, a, b);
}

GiNaC::ex min_eval(const GiNaC::ex& a, const GiNaC::ex& b) {
  if (is_int(a) && is_int(b)) return int_of(a) <= int_of(b) ? a : b;
  if (a.is_equal(b)) return a;
  return held_call(ss_min_SERIAL::serial, a, b);
}

}  // namespace
}  // namespace detail

REGISTER_FUNCTION(ss_floordiv, eval_func(detail::floordiv_eval))
REGISTER_FUNCTION(ss_mod, eval_func(detail::mod_eval))
REGISTER_FUNCTION(ss_ceildiv, eval_func(detail::ceildiv_eval))
REGISTER_FUNCTION(ss_max, eval_func(detail::max_eval))
REGISTER_FUNCTION(ss_min, eval_func(detail::min_eval))

Fn function_of(const GiNaC::ex& e) {
  if (!detail::is_exactly<GiNaC::function>(e)) return Fn::None;
  unsigned s = GiNaC::ex_to<GiNaC::function>(e).get_serial();
  if (s == ss_floordiv_SERIAL::serial) return Fn::FloorDiv;
  if (s == ss_mod_SERIAL::serial) return Fn::Mod;
  if (s == ss_ceildiv_SERIAL::serial) return Fn::CeilDiv;
  if (s == ss_max_SERIAL::serial) return Fn::Max;
  if (s == ss_min_SERIAL::serial) return Fn::Min;
  return Fn::None;
}

Expr apply(Fn f, const Expr& a, const Expr& b) {
  switch (f) {
    case Fn::FloorDiv: return floordiv(a, b);
    case Fn::Mod: return mod(a, b);
    case Fn::CeilDiv: return ceildiv(a, b);
    case Fn::Max: return max(a, b);
    case Fn::Min: return min(a, b);
    case Fn::None: break;
  }
  throw Error("apply: not an integer function");
}

// ---- Expr ------------------------------------------------------------------------------------

Expr::Expr() : e_(0) {}
Expr::Expr(int v) : e_(v) {}
Expr::Expr(long v) : e_(v) {}
Expr::Expr(long long v) : e_(v) {}
Expr::Expr(const Int& v) : e_(detail::ex_of(v)) {}
Expr::Expr(GiNaC::ex e) : e_(std::move(e)) {}

Expr Expr::symbol(std::string_view name) {
  // Interned so that one name is one GiNaC symbol; GiNaC compares symbols by identity.
  // Looked up by the view itself (no string built for a name met before). Never destroyed: no
  // exit-time order to care about.
  // FNV-1a: names are short, and the library's hash of a string costs several times more.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      uint64_t h = 14695981039346656037ull;
      for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
  static auto* table = new std::unordered_map<std::string, Expr, Hash, std::equal_to<>>();
  // The names of a batch repeat: a direct-mapped cache of recent look-ups (pointers to the
  // table's entries, which never move) answers most of them without the table's bucket walk.
  struct Recent {
    const std::string* name = nullptr;
    const Expr* expr = nullptr;
  };
  static auto* recent = new std::array<Recent, 256>();
  Recent& slot = (*recent)[Hash{}(name)&255];
  if (slot.name != nullptr && *slot.name == name) return *slot.expr;
  auto it = table->find(name);
  if (it == table->end()) {
    it = table->emplace(std::string(name), Expr(GiNaC::ex(GiNaC::symbol(std::string(name))))).first;
  }
  slot = {&it->first, &it->second};
  return it->second;
}

bool Expr::is_constant() const { return detail::is_int(e_); }

std::optional<Int> Expr::constant() const {
  if (!is_constant()) return std::nullopt;
  return detail::int_of(e_);
}

std::optional<int64_t> Expr::as_int64() const {
  if (!is_constant()) return std::nullopt;
  return to_int64(detail::int_of(e_));
}

bool Expr::is_symbol() const { return detail::is_exactly<GiNaC::symbol>(e_); }

std::string Expr::symbol_name() const {
  if (!is_symbol()) throw Error("symbol_name: " + str() + " is not a symbol");
  return GiNaC::ex_to<GiNaC::symbol>(e_).get_name();
}

namespace {
void collect_symbols(const GiNaC::ex& e, std::vector<std::string>& out) {
  if (detail::is_exactly<GiNaC::symbol>(e)) {
    out.push_back(GiNaC::ex_to<GiNaC::symbol>(e).get_name());
    return;
  }
  for (size_t i = 0; i < e.nops(); ++i) collect_symbols(e.op(i), out);
}
}  // namespace

std::vector<std::string> Expr::free_symbols() const {
  std::vector<std::string> out;
  collect_symbols(e_, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool Expr::has_symbol(std::string_view name) const { return e_.has(Expr::symbol(name).ex()); }

Expr Expr::subs(const std::map<std::string, Expr>& m) const {
  if (m.empty()) return *this;
  GiNaC::exmap em;
  for (const auto& [name, value] : m) em[Expr::symbol(name).ex()] = value.ex();
  return Expr(e_.subs(em, GiNaC::subs_options::no_pattern));
}

Expr& Expr::operator+=(const Expr& o) { return *this = *this + o; }
Expr& Expr::operator-=(const Expr& o) { return *this = *this - o; }
Expr& Expr::operator*=(const Expr& o) { return *this = *this * o; }

// Two constants add in CLN, without building a sum first (as operator* does for products).
Expr operator+(const Expr& a, const Expr& b) {
  using detail::is_exactly;
  using GiNaC::ex_to;
  using GiNaC::numeric;
  if (is_exactly<numeric>(a.e_) && is_exactly<numeric>(b.e_)) {
    return Expr(GiNaC::ex(ex_to<numeric>(a.e_).add_dyn(ex_to<numeric>(b.e_))));
  }
  return Expr(a.e_ + b.e_);
}
Expr operator-(const Expr& a, const Expr& b) {
  using detail::is_exactly;
  using GiNaC::ex_to;
  using GiNaC::numeric;
  if (is_exactly<numeric>(a.e_) && is_exactly<numeric>(b.e_)) {
    return Expr(GiNaC::ex(ex_to<numeric>(a.e_).sub_dyn(ex_to<numeric>(b.e_))));
  }
  return Expr(a.e_ - b.e_);
}
Expr operator*(const Expr& a, const Expr& b) {
  // Most products in the shape rules (strides, element counts) have a constant factor. Two
  // constants multiply in CLN, and a factor 1 drops, as GiNaC's evaluation of the product would
  // do, without building the product first.
  using detail::is_exactly;
  using GiNaC::ex_to;
  using GiNaC::numeric;
  static const numeric one(1);
  if (is_exactly<numeric>(a.e_)) {
    const numeric& x = ex_to<numeric>(a.e_);
    if (is_exactly<numeric>(b.e_)) return Expr(GiNaC::ex(x.mul_dyn(ex_to<numeric>(b.e_))));
    if (x.is_equal(one)) return b;
  } else if (is_exactly<numeric>(b.e_) && ex_to<numeric>(b.e_).is_equal(one)) {
    return a;
  }
  return Expr(a.e_ * b.e_);
}
Expr operator-(const Expr& a) {
  if (detail::is_exactly<GiNaC::numeric>(a.e_)) {
    return Expr(GiNaC::ex(GiNaC::ex_to<GiNaC::numeric>(a.e_).mul_dyn(GiNaC::numeric(-1))));
  }
  return Expr(-a.e_);
}

// The functions' evaluations called directly: what building ss_floordiv(a, b) and evaluating it
// gives, without building the call first.
Expr floordiv(const Expr& a, const Expr& b) { return Expr(detail::floordiv_eval(a.ex(), b.ex())); }
Expr mod(const Expr& a, const Expr& b) { return Expr(detail::mod_eval(a.ex(), b.ex())); }
Expr ceildiv(const Expr& a, const Expr& b) { return Expr(detail::ceildiv_eval(a.ex(), b.ex())); }
Expr max(const Expr& a, const Expr& b) { return Expr(detail::max_eval(a.ex(), b.ex())); }
Expr min(const Expr& a, const Expr& b) { return Expr(detail::min_eval(a.ex(), b.ex())); }

Expr exact_div(const Expr& a, const Expr& b) {
  if (detail::is_zero_constant(b.ex())) throw Error("division by zero");
  // A polynomial quotient with integer coefficients needs no rational form. normal() takes
  // anything else: it puts its own symbols for calls and handles denominators.
  if (auto q = detail::divide_polynomials(a.ex(), b.ex());
      q && detail::has_integer_coefficients(*q)) {
    return Expr(*q);
  }
  return Expr(GiNaC::normal(a.ex() / b.ex()));
}

namespace {
Expr fold_nary(const std::vector<Expr>& args, Expr (*f)(const Expr&, const Expr&),
               const char* name) {
  if (args.empty()) throw Error(std::string(name) + "() needs at least one argument");
  Expr acc = args[0];
  for (size_t i = 1; i < args.size(); ++i) acc = f(acc, args[i]);
  return acc;
}
}  // namespace

Expr max(const std::vector<Expr>& args) {
  return fold_nary(args, static_cast<Expr (*)(const Expr&, const Expr&)>(&max), "max");
}
Expr min(const std::vector<Expr>& args) {
  return fold_nary(args, static_cast<Expr (*)(const Expr&, const Expr&)>(&min), "min");
}

// GiNaC leaves pow(0, 0) undefined; Python's 0**0 is 1.
Expr pow(const Expr& a, unsigned n) { return n == 0 ? Expr(1) : Expr(GiNaC::pow(a.ex(), n)); }

namespace detail {
void flatten_calls(const GiNaC::ex& e, Fn f, std::vector<GiNaC::ex>& out) {
  auto calls_f = [f](const GiNaC::ex& x) {
    return is_exactly<GiNaC::function>(x) && function_of(x) == f;
  };
  if (!calls_f(e)) {
    out.push_back(e);
    return;
  }
  // The common case, a call whose arguments are not calls of f, without a stack.
  const GiNaC::ex& a = e.op(0);
  const GiNaC::ex& b = e.op(1);
  if (!calls_f(a) && !calls_f(b)) {
    out.push_back(a);
    out.push_back(b);
    return;
  }
  std::vector<GiNaC::ex> stack{e};
  while (!stack.empty()) {
    const GiNaC::ex x = stack.back();
    stack.pop_back();
    if (calls_f(x)) {
      stack.push_back(x.op(1));
      stack.push_back(x.op(0));
    } else {
      out.push_back(x);
    }
  }
}

bool has_integer_coefficients(const GiNaC::ex& e) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
  if (detail::is_exactly<GiNaC::power>(e)) {
    const GiNaC::ex& n = e.op(1);
    return is_int(n) && int_of(n) >= 0 && has_integer_coefficients(e.op(0));
  }
  if (detail::is_exactly<GiNaC::add>(e) || detail::is_exactly<GiNaC::mul>(e)) {
    for (size_t i = 0; i < e.nops(); ++i) {
      if (!has_integer_coefficients(e.op(i))) return false;
    }
  }
  return true;  // symbols, and function calls (integer-valued by construction)
}
}  // namespace detail

// ---- evaluation ------------------------------------------------------------------------------

namespace {

using Rat = cln::cl_RA;

Int require_int(const Rat& r, const char* what) {
  if (cln::denominator(r) != 1) {
    throw Error(std::string(what) +
                " of a non-integer value (an exact division that is not exact)");
  }
  return cln::the<cln::cl_I>(r);
}

Rat eval_rat(const GiNaC::ex& e, const Bindings& values) {
  using namespace GiNaC;
  if (detail::is_exactly<numeric>(e)) return cln::the<cln::cl_RA>(ex_to<numeric>(e).to_cl_N());
  if (detail::is_exactly<symbol>(e)) {
    const std::string& name = ex_to<symbol>(e).get_name();
    auto it = values.find(name);
    if (it == values.end()) throw Error("symbol '" + name + "' has no value");
    return it->second;
  }
  if (detail::is_exactly<add>(e)) {
    Rat acc = 0;
    for (size_t i = 0; i < e.nops(); ++i) acc = acc + eval_rat(e.op(i), values);
    return acc;
  }
  if (detail::is_exactly<mul>(e)) {
    Rat acc = 1;
    for (size_t i = 0; i < e.nops(); ++i) acc = acc * eval_rat(e.op(i), values);
    return acc;
  }
  if (detail::is_exactly<power>(e)) {
    Rat base = eval_rat(e.op(0), values);
    if (!detail::is_int(e.op(1))) throw Error("non-integer exponent");
    Int n = detail::int_of(e.op(1));
    if (n < 0) {
      if (cln::zerop(base)) throw Error("division by zero");
      return cln::recip(cln::expt(base, cln::cl_I_to_long(-n)));
    }
    return cln::expt(base, cln::cl_I_to_long(n));
  }
  Fn f = function_of(e);
  if (f == Fn::None) throw Error("cannot evaluate an unknown function");
  Int a = require_int(eval_rat(e.op(0), values), "argument");
  Int b = require_int(eval_rat(e.op(1), values), "argument");
  switch (f) {
    case Fn::FloorDiv:
    case Fn::Mod:
    case Fn::CeilDiv:
      if (cln::zerop(b)) throw Error("division by zero");
      if (f == Fn::FloorDiv) return cln::floor1(a, b);
      if (f == Fn::Mod) return cln::mod(a, b);
      return cln::ceiling1(a, b);
    case Fn::Max: return a >= b ? a : b;
    case Fn::Min: return a <= b ? a : b;
    case Fn::None: break;
  }
  throw Error("unreachable");
}

}  // namespace

Int evaluate(const Expr& e, const Bindings& values) {
  return require_int(eval_rat(e.ex(), values), "result");
}

}  // namespace symshape
