// The deterministic printer and the canonical order it sorts with. GiNaC keeps sums and products
// in hash order, which depends on symbol creation order; we never print in that order.
#include <cln/real.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <optional>

#include "symshape/expr.h"
#include "symshape/expr/functions.h"
#include "symshape/ranges/number.h"

namespace symshape {

namespace {

using GiNaC::ex;

int sign(int v) { return (v > 0) - (v < 0); }

// GiNaC objects' parts read in place: their accessors return copies (a string, a number, an ex).
struct NameOf : GiNaC::symbol {
  static const std::string& of(const ex& e) {
    return GiNaC::ex_to<GiNaC::symbol>(e).*(&NameOf::name);
  }
};
struct ValueOf : GiNaC::numeric {
  static const cln::cl_N& of(const ex& e) {
    return GiNaC::ex_to<GiNaC::numeric>(e).*(&ValueOf::value);
  }
};
struct PowerOf : GiNaC::power {
  static const ex& base(const ex& e) { return GiNaC::ex_to<GiNaC::power>(e).*(&PowerOf::basis); }
  static const ex& exp(const ex& e) { return GiNaC::ex_to<GiNaC::power>(e).*(&PowerOf::exponent); }
};

// The order of two symbols: by name.
int compare_names(const ex& a, const ex& b) {
  const std::string& na = NameOf::of(a);
  const std::string& nb = NameOf::of(b);
  if (na.empty() || nb.empty()) {  // an unnamed symbol: GiNaC names it
    return sign(GiNaC::ex_to<GiNaC::symbol>(a).get_name().compare(
        GiNaC::ex_to<GiNaC::symbol>(b).get_name()));
  }
  return sign(na.compare(nb));
}

// One factor base**exp of a product (exp is 1 for a plain factor).
struct Factor {
  ex base;
  ex exp;
};

// A product coeff * base1**exp1 * ... in a form that does not depend on GiNaC's choices. GiNaC
// moves the sign of a sum factor in or out by hash order (`(z - a)*m` may be stored as
// `-(a - z)*m`), so every sum base here has a positive leading term, and the factors are sorted.
struct Monomial {
  GiNaC::numeric coeff;
  std::vector<Factor> factors;
};

Monomial monomial(const ex& e);

int compare_factors(const Factor& a, const Factor& b) {
  if (int c = canonical_compare(a.base, b.base)) return c;
  return canonical_compare(a.exp, b.exp);
}

int compare_factor_lists(const std::vector<Factor>& a, const std::vector<Factor>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = compare_factors(a[i], b[i])) return c;
  }
  return sign(static_cast<int>(a.size()) - static_cast<int>(b.size()));
}

// Total degree, counting a function call as one symbol: orders the terms of a sum. Exact, since
// nested powers such as ((x**2 + 1)**2 + 1)**2... overflow any machine integer.
Int degree(const ex& e) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return 0;
  if (detail::is_exactly<GiNaC::power>(e)) {
    const ex exponent = e.op(1);
    return detail::is_int(exponent) ? degree(e.op(0)) * detail::int_of(exponent) : Int(1);
  }
  if (detail::is_exactly<GiNaC::mul>(e)) {
    Int d = 0;
    for (size_t i = 0, n = e.nops(); i < n; ++i) d = d + degree(e.op(i));
    return d;
  }
  if (detail::is_exactly<GiNaC::add>(e)) {
    Int d = 0;
    for (size_t i = 0, n = e.nops(); i < n; ++i) d = cln::max(d, degree(e.op(i)));
    return d;
  }
  return 1;
}

// A non-constant term of a sum, in the order the printer writes them: highest degree first.
struct Term {
  Monomial m;
  Int degree;
};

Term make_term(const ex& e) { return {monomial(e), degree(e)}; }

bool term_before(const Term& a, const Term& b) {
  if (a.degree != b.degree) return a.degree > b.degree;
  return compare_factor_lists(a.m.factors, b.m.factors) < 0;
}

// The sign of the term a sum prints first.
int leading_sign(const ex& sum) {
  std::optional<Term> lead;
  for (size_t i = 0, n = sum.nops(); i < n; ++i) {
    const ex term = sum.op(i);
    if (detail::is_exactly<GiNaC::numeric>(term)) continue;  // constants print last
    Term t = make_term(term);
    if (!lead || term_before(t, *lead)) lead = std::move(t);
  }
  return lead ? lead->m.coeff.csgn() : 1;
}

void add_factor(Monomial& m, const ex& f) {
  const bool is_power = detail::is_exactly<GiNaC::power>(f);
  Factor factor{is_power ? f.op(0) : f, is_power ? f.op(1) : ex(1)};
  if (detail::is_exactly<GiNaC::add>(factor.base) && detail::is_int(factor.exp) &&
      leading_sign(factor.base) < 0) {
    factor.base = -factor.base;  // still a sum: GiNaC distributes a numeric factor over it
    if (cln::oddp(detail::int_of(factor.exp))) m.coeff = -m.coeff;
  }
  m.factors.push_back(std::move(factor));
}

// One operand of a product: its numeric coefficient or a factor.
void add_product_operand(Monomial& m, const ex& f) {
  if (detail::is_exactly<GiNaC::numeric>(f)) {
    m.coeff = m.coeff * GiNaC::ex_to<GiNaC::numeric>(f);
  } else {
    add_factor(m, f);
  }
}

void sort_factors(Monomial& m) {
  std::sort(m.factors.begin(), m.factors.end(),
            [](const Factor& a, const Factor& b) { return compare_factors(a, b) < 0; });
}

Monomial monomial(const ex& e) {
  Monomial m{GiNaC::numeric(1), {}};
  if (detail::is_exactly<GiNaC::numeric>(e)) {
    m.coeff = GiNaC::ex_to<GiNaC::numeric>(e);
  } else if (detail::is_exactly<GiNaC::mul>(e)) {
    // GiNaC builds a power per call of op(i) on a product: each operand is read once.
    const size_t n = e.nops();
    m.factors.reserve(n);
    for (size_t i = 0; i < n; ++i) add_product_operand(m, e.op(i));
  } else if (detail::is_exactly<GiNaC::power>(e)) {
    add_factor(m, e);
  } else {
    m.factors.push_back({e, ex(1)});  // a sum on its own keeps its sign: it is the value
  }
  sort_factors(m);
  return m;
}

// The sign the printer gives e: of its first term for a sum, of its coefficient otherwise.
int canonical_sign(const ex& e) {
  if (detail::is_exactly<GiNaC::add>(e)) return leading_sign(e);
  return monomial(e).coeff.csgn();
}

// Type ranks for the canonical order: numbers, then symbols and powers (compared as base**exp),
// then products, sums, and function calls. Ranked on the monomial, since GiNaC may store the
// same power as a power or as -1 times a power.
int rank(const ex& e, const Monomial& m) {
  if (detail::is_exactly<GiNaC::numeric>(e)) return 0;
  if (m.factors.size() != 1 || m.coeff != 1) return 2;
  const Factor& f = m.factors[0];
  if (detail::is_exactly<GiNaC::symbol>(f.base) || !f.exp.is_equal(1)) return 1;
  if (detail::is_exactly<GiNaC::add>(f.base)) return 3;
  return 4;
}

std::vector<ex> sorted_operands(const ex& e) {
  std::vector<ex> ops;
  ops.reserve(e.nops());
  for (size_t i = 0; i < e.nops(); ++i) ops.push_back(e.op(i));
  std::sort(ops.begin(), ops.end(),
            [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
  return ops;
}

int compare_lists(const std::vector<ex>& a, const std::vector<ex>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = canonical_compare(a[i], b[i])) return c;
  }
  return sign(static_cast<int>(a.size()) - static_cast<int>(b.size()));
}

// The constant term of a sum, or 0 if it has none (GiNaC gives it as the last operand when it
// is not zero), read in place: op() of the last term builds it when it has a coefficient.
const ex& sum_constant(const ex& sum) { return detail::PairsOf::overall(sum); }

// Two sums compare as their sorted operands. A number sorts first (and a sum has at most one),
// so the constant terms decide when they differ, without sorting either sum.
int compare_sums(const ex& a, const ex& b) {
  const ex &ca = sum_constant(a), &cb = sum_constant(b);
  const auto& na = GiNaC::ex_to<GiNaC::numeric>(ca);
  const auto& nb = GiNaC::ex_to<GiNaC::numeric>(cb);
  if (na.is_zero() != nb.is_zero()) return na.is_zero() ? 1 : -1;
  if (!na.is_equal(nb)) {
    return cln::compare(cln::realpart(na.to_cl_N()), cln::realpart(nb.to_cl_N()));
  }
  return compare_lists(sorted_operands(a), sorted_operands(b));
}

}  // namespace

namespace {

// The rank of a number (0), a symbol (1), a sum (3) or a function call (4), which are their own
// monomials (coefficient 1, exponent 1); -1 for the rest, whose rank is read from their monomial.
int atom_rank(const ex& e) {
  const GiNaC::registered_class_info* type = &GiNaC::ex_to<GiNaC::basic>(e).get_class_info();
  if (type == &GiNaC::numeric::get_class_info_static()) return 0;
  if (type == &GiNaC::symbol::get_class_info_static()) return 1;
  if (type == &GiNaC::add::get_class_info_static()) return 3;
  if (type == &GiNaC::function::get_class_info_static()) return 4;
  return -1;
}

}  // namespace

int canonical_compare(const ex& a, const ex& b) {
  // Two atoms or sums (the common case when sorting terms and factors) compare without building
  // their monomials: the order is the one below. Symbols and calls of different ranks, names or
  // arguments are not equal, and equal ones compare as 0 here, so they skip the equality test.
  const int ra = atom_rank(a), rb = atom_rank(b);
  const bool atoms = ra >= 0 && rb >= 0;
  if (atoms && ra != rb) return sign(ra - rb);
  if (atoms && ra == 1) return compare_names(a, b);
  if (!atoms || ra != 4) {
    if (a.is_equal(b)) return 0;
  }
  if (atoms) {
    if (ra == 3) return compare_sums(a, b);
    if (ra == 4) {
      Fn fa = function_of(a), fb = function_of(b);
      if (fa != fb) return sign(static_cast<int>(fa) - static_cast<int>(fb));
      for (size_t i = 0; i < a.nops() && i < b.nops(); ++i) {
        if (int c = canonical_compare(a.op(i), b.op(i))) return c;
      }
      return sign(static_cast<int>(a.nops()) - static_cast<int>(b.nops()));
    }
  }
  const Monomial ma = monomial(a), mb = monomial(b);
  const int ka = rank(a, ma), kb = rank(b, mb);
  if (ka != kb) return sign(ka - kb);
  switch (ka) {
    case 0:
      return cln::compare(cln::realpart(GiNaC::ex_to<GiNaC::numeric>(a).to_cl_N()),
                          cln::realpart(GiNaC::ex_to<GiNaC::numeric>(b).to_cl_N()));
    case 1: {
      const Factor& fa = ma.factors[0];
      const Factor& fb = mb.factors[0];
      if (detail::is_exactly<GiNaC::symbol>(a) && detail::is_exactly<GiNaC::symbol>(b)) {
        return compare_names(a, b);
      }
      return compare_factors(fa, fb);
    }
    case 2: {
      if (int c = compare_factor_lists(ma.factors, mb.factors)) return c;
      return canonical_compare(ma.coeff, mb.coeff);
    }
    case 3: return compare_lists(sorted_operands(a), sorted_operands(b));
    default: {
      Fn fa = function_of(a), fb = function_of(b);
      if (fa != fb) return sign(static_cast<int>(fa) - static_cast<int>(fb));
      std::vector<ex> la, lb;
      for (size_t i = 0; i < a.nops(); ++i) la.push_back(a.op(i));
      for (size_t i = 0; i < b.nops(); ++i) lb.push_back(b.op(i));
      return compare_lists(la, lb);
    }
  }
}

namespace {

// Python precedence, loosest first.
enum Prec { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

// How the text a printing step appended binds.
struct Shape {
  Prec prec;
  bool top_is_div = false;  // the outermost operator is // or % (unary minus must not touch it)
};

const ex& one() {
  static const ex value(1);
  return value;
}

// Whether a numeric is 1 (always a CLN fixnum, compared as one machine word).
bool is_one_number(const ex& e) { return ValueOf::of(e).word == cln::cl_combine(cl_FN_tag, 1); }

// Whether e is the number 1 (an exponent may be any expression).
bool is_one(const ex& e) { return detail::is_exactly<GiNaC::numeric>(e) && is_one_number(e); }

// A numeric integer as a Num: inline when it is a CLN fixnum (all but huge ones are).
[[gnu::noinline]] detail::Num big_num_of(const ex& e) { return detail::Num::of(detail::int_of(e)); }

inline bool is_fixnum(const cln::cl_N& v) {
  return !v.pointer_p() && v.nonpointer_tag() == cl_FN_tag;
}

inline detail::Num num_of(const ex& e) {
  const cln::cl_N& v = ValueOf::of(e);
  if (is_fixnum(v)) {
    return detail::Num(static_cast<int64_t>(static_cast<cln::cl_sint>(v.word) >> cl_value_shift));
  }
  return big_num_of(e);
}

// Whether a numeric is an integer, a fixnum without asking CLN.
inline bool is_integer_number(const ex& e) {
  return is_fixnum(ValueOf::of(e)) || GiNaC::ex_to<GiNaC::numeric>(e).is_integer();
}

// The sign of v, inline when v is.
inline int sign_of(const detail::Num& v) {
  return v.is_small() ? (v.small_value() > 0) - (v.small_value() < 0) : v.sign();
}

void append_symbol(std::string& out, const ex& e) {
  const std::string& name = NameOf::of(e);
  if (name.empty()) {
    out += GiNaC::ex_to<GiNaC::symbol>(e).get_name();  // an unnamed symbol: GiNaC names it
  } else {
    out += name;
  }
}

// Decimal digits, without CLN's streams when v fits in 64 bits (it nearly always does).
void append_int(std::string& out, const detail::Num& v) {
  if (v.is_small()) {
    if (const int64_t x = v.small_value(); x >= 0 && x < 10) {
      out += static_cast<char>('0' + x);
      return;
    }
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.small_value());
    out.append(buf, end);
  } else {
    out += to_string(v.to_int());
  }
}

// degree(e) in a machine integer; false when it overflows one (then degree gives it exactly).
// Read on the pairs of sums and products, as degree reads their operands.
bool small_degree(const ex& e, int64_t& d) {
  if (detail::is_exactly<GiNaC::numeric>(e)) {
    d = 0;
    return true;
  }
  auto scaled = [](const ex& base, const ex& exponent, int64_t& out) {
    if (!detail::is_int(exponent)) {
      out = 1;
      return true;
    }
    const detail::Num k = num_of(exponent);
    int64_t b = 0;
    return k.is_small() && small_degree(base, b) &&
           !__builtin_mul_overflow(b, k.small_value(), &out);
  };
  if (detail::is_exactly<GiNaC::power>(e)) return scaled(PowerOf::base(e), PowerOf::exp(e), d);
  if (detail::is_exactly<GiNaC::mul>(e)) {
    // A factor rest**coeff (rest itself when coeff is 1); the overall coefficient adds 0.
    d = 0;
    for (const GiNaC::expair& p : detail::PairsOf::pairs(e)) {
      int64_t x = 0;
      if (!scaled(p.rest, p.coeff, x) || __builtin_add_overflow(d, x, &d)) return false;
    }
    return true;
  }
  if (detail::is_exactly<GiNaC::add>(e)) {
    // A term rest*coeff has rest's degree; the constant term has 0.
    d = 0;
    for (const GiNaC::expair& p : detail::PairsOf::pairs(e)) {
      int64_t x = 0;
      if (!small_degree(p.rest, x)) return false;
      d = std::max(d, x);
    }
    return true;
  }
  d = 1;
  return true;
}

// A factor base**exp of a product being printed, pointing into the expression (or into the
// printer's own expressions): the same Factor as Monomial's, without reference counting.
struct PFactor {
  const ex* base;
  const ex* exp;
};

int compare_pfactors(const PFactor& a, const PFactor& b) {
  if (int c = canonical_compare(*a.base, *b.base)) return c;
  return canonical_compare(*a.exp, *b.exp);
}

bool pfactor_before(const PFactor& a, const PFactor& b) { return compare_pfactors(a, b) < 0; }

// A term of a sum being printed: coeff times the factors pool[first, first + count), which are
// sorted, of degree `degree` (rest's degree, exact when big). The same monomial as Monomial's,
// read on the pairs without building GiNaC objects.
struct PTerm {
  detail::Num coeff;
  const ex* rest = nullptr;
  int64_t degree = 0;
  bool big_degree = false;
  size_t first = 0;
  size_t count = 0;
};

int compare_degrees(const PTerm& a, const PTerm& b) {
  if (!a.big_degree && !b.big_degree) return (a.degree > b.degree) - (a.degree < b.degree);
  return cln::compare(degree(*a.rest), degree(*b.rest));
}

// Takes the entries from n on off v (a few at most, so one at a time, inline).
template <class T>
void truncate(std::vector<T>& v, size_t n) {
  while (v.size() > n) v.pop_back();
}

// Scratch space reused across calls (per thread), used as stacks: each level of the recursion
// appends its factors, terms, arguments and built expressions above its callers' and takes them
// off when done. Entries are addressed by index (a deeper level may move the storage); the
// built expressions are in a deque, which keeps them in place, since factors point to them.
struct Scratch {
  std::vector<PFactor> pool;
  std::vector<PTerm> terms;
  std::vector<ex> args;
  std::deque<ex> built;
  std::string text;  // the output, copied out at the end (at its size)
};

// Prints into one string: each step appends its text to out and returns how it binds, and its
// caller parenthesizes that text in place when it must.
class Printer {
 public:
  Printer(std::string& out, Scratch& s)
      : out_(out), pool_(s.pool), terms_(s.terms), args_(s.args), built_(s.built) {}

  // `integral`: e is known to have no denominator (has_denominator is false), as every term,
  // factor and base of an expression without one is; function arguments are checked afresh.
  Shape expr(const ex& e, bool integral = false);

 private:
  // The text from start on, in parentheses unless it binds at least as tightly as at_least.
  void wrap(size_t start, Shape s, Prec at_least) {
    if (s.prec < at_least) parenthesize(start);
  }
  void parenthesize(size_t start) {
    out_.insert(start, 1, '(');
    out_ += ')';
  }
  const ex* keep(ex e) {
    built_.push_back(std::move(e));
    return &built_.back();
  }
  void release(size_t pool, size_t built) {
    truncate(pool_, pool);
    if (!built_.empty() && built_.size() > built) built_.resize(built);
  }

  Shape quotient(const ex& e);
  Shape binary_fn(const ex& a, const ex& b, const char* op);
  Shape floordiv_with_offset(const ex& sum, const detail::Num& k, const ex& d);
  Shape min_max(const ex& e, Fn f);
  Shape factor(size_t i);
  Shape product(const detail::Num& coeff, size_t first, size_t count);
  Shape signed_product(const detail::Num& coeff, size_t first, size_t count);
  Shape sum(const ex& e, const detail::Num& extra);

  bool push_factor(const ex& base, const ex& exp);
  bool push_rest(const ex& r, detail::Num& coeff);
  void push_product(const ex& m, detail::Num& coeff);
  PTerm make_term(const GiNaC::expair& p);
  bool term_before(const PTerm& a, const PTerm& b) const;
  void sort_terms(size_t from);
  int leading_sign(const ex& sum);

  std::string& out_;
  std::vector<PFactor>& pool_;
  std::vector<PTerm>& terms_;
  std::vector<ex>& args_;
  std::deque<ex>& built_;
};

// ---- the monomials of terms and products, as monomial() builds them ----------------------------

// Appends base**exp, a factor of a product, with a sum base's sign taken out as add_factor does
// (GiNaC moves it in or out by hash order); returns whether that flips the coefficient's sign.
bool Printer::push_factor(const ex& base, const ex& exp) {
  if (detail::is_exactly<GiNaC::add>(base) && detail::is_int(exp) && leading_sign(base) < 0) {
    // Still a sum: GiNaC distributes a numeric factor over it.
    pool_.push_back({keep(-base), &exp});
    return cln::oddp(detail::int_of(exp));
  }
  pool_.push_back({&base, &exp});
  return false;
}

// An operand r of a product (a pair's rest when its coefficient is 1): a number multiplies
// coeff, a power gives its base and exponent, anything else is a factor of its own.
bool Printer::push_rest(const ex& r, detail::Num& coeff) {
  if (detail::is_exactly<GiNaC::numeric>(r)) {
    coeff = coeff * num_of(r);
    return false;
  }
  if (detail::is_exactly<GiNaC::power>(r)) return push_factor(PowerOf::base(r), PowerOf::exp(r));
  return push_factor(r, one());
}

// The factors of a product m, from its pairs rest**coeff (GiNaC builds the power on each
// m.op(i)) and its overall coefficient.
void Printer::push_product(const ex& m, detail::Num& coeff) {
  bool flip = false;
  for (const GiNaC::expair& p : detail::PairsOf::pairs(m)) {
    flip ^= is_one_number(p.coeff) ? push_rest(p.rest, coeff) : push_factor(p.rest, p.coeff);
  }
  const ex& overall = detail::PairsOf::overall(m);
  if (!is_one_number(overall)) coeff = coeff * num_of(overall);
  if (flip) coeff = -coeff;
}

// The term rest*coeff of a sum, its factors sorted (GiNaC builds the product on each op(i)).
PTerm Printer::make_term(const GiNaC::expair& p) {
  PTerm t;
  t.coeff = num_of(p.coeff);
  t.first = pool_.size();
  const ex& r = p.rest;
  if (detail::is_exactly<GiNaC::mul>(r)) {
    push_product(r, t.coeff);
  } else if (push_rest(r, t.coeff)) {
    t.coeff = -t.coeff;
  }
  t.count = pool_.size() - t.first;
  if (t.count > 1) {
    std::sort(pool_.begin() + static_cast<std::ptrdiff_t>(t.first), pool_.end(), pfactor_before);
  }
  t.rest = &r;
  t.big_degree = !small_degree(r, t.degree);
  return t;
}

// Highest degree first, then by the factor lists (as term_before orders Terms).
bool Printer::term_before(const PTerm& a, const PTerm& b) const {
  if (int c = compare_degrees(a, b)) return c > 0;
  for (size_t i = 0; i < a.count && i < b.count; ++i) {
    if (int c = compare_pfactors(pool_[a.first + i], pool_[b.first + i])) return c < 0;
  }
  return a.count < b.count;
}

// Sorts terms[from, end) in print order: as std::sort does, without its set-up for two terms.
void Printer::sort_terms(size_t from) {
  const size_t n = terms_.size() - from;
  if (n == 2) {
    if (term_before(terms_[from + 1], terms_[from])) std::swap(terms_[from], terms_[from + 1]);
  } else if (n > 2) {
    std::sort(terms_.begin() + static_cast<std::ptrdiff_t>(from), terms_.end(),
              [this](const PTerm& a, const PTerm& b) { return term_before(a, b); });
  }
}

// The sign of the term a sum prints first (leading_sign, on the pairs).
int Printer::leading_sign(const ex& sum) {
  const size_t mark = pool_.size(), mark_built = built_.size();
  std::optional<PTerm> lead;
  for (const GiNaC::expair& p : detail::PairsOf::pairs(sum)) {
    PTerm t = make_term(p);
    if (!lead || term_before(t, *lead)) lead = std::move(t);
  }
  const bool negative = lead && sign_of(lead->coeff) < 0;
  release(mark, mark_built);
  return negative ? -1 : 1;
}

// ---- printing ----------------------------------------------------------------------------------

// An exact quotient: print numerator // denominator, which has the same (integer) value. GiNaC
// picks the denominator's sign by hash order; pick it by the printed form instead.
Shape Printer::quotient(const ex& e) {
  ex nd = e.numer_denom();
  ex num = nd.op(0), den = nd.op(1);
  if (canonical_sign(den) < 0) {
    num = -num;
    den = -den;
  }
  return binary_fn(num, den, "//");
}

Shape Printer::binary_fn(const ex& a, const ex& b, const char* op) {
  // Anything but an atom is parenthesized on either side: `(3*x)//2`, `x//(a*b)`.
  size_t start = out_.size();
  wrap(start, expr(a), kPower);
  out_ += op;
  start = out_.size();
  wrap(start, expr(b), kPower);
  return {kProduct, true};
}

// (s + k)//d, as binary_fn prints it, without building s + k: the sum's pairs with its constant
// moved by k. A sum left with one term and no constant is that term (as GiNaC gives it), which
// sum() prints as expr() would.
Shape Printer::floordiv_with_offset(const ex& s, const detail::Num& k, const ex& d) {
  size_t start = out_.size();
  if (detail::has_denominator(s)) {
    wrap(start, expr(s + detail::ex_of(k.to_int())), kPower);
  } else {
    wrap(start, sum(s, k), kPower);
  }
  out_ += "//";
  start = out_.size();
  wrap(start, expr(d), kPower);
  return {kProduct, true};
}

// A factor of a product without a denominator.
Shape Printer::factor(size_t i) {
  const PFactor f = pool_[i];  // a copy: printing appends to the pool
  if (is_one(*f.exp)) return expr(*f.base, true);
  // `**` binds tighter than unary minus on its left: (-2)**3.
  const size_t start = out_.size();
  wrap(start, expr(*f.base, true), kAtom);
  out_ += "**";
  expr(*f.exp);
  return {kPower, false};
}

// A product with a non-negative coefficient: `2*x*(y//4)`.
Shape Printer::product(const detail::Num& coeff, size_t first, size_t count) {
  const bool unit = coeff.is_one();
  if (count == 1 && unit) return factor(first);
  bool any = false;
  if (!unit || count == 0) {
    append_int(out_, coeff);
    any = true;
  }
  for (size_t i = first; i < first + count; ++i) {
    if (any) out_ += '*';
    any = true;
    const size_t start = out_.size();
    const Shape s = factor(i);
    // A quotient or remainder inside a product is parenthesized: `2*(x//4)`, never `2*x//4`.
    if (s.top_is_div) {
      parenthesize(start);
    } else {
      wrap(start, s, kProduct);
    }
  }
  return {kProduct, false};
}

// A signed term: the sign goes in front, `-(x//4)` where the magnitude is a bare quotient.
Shape Printer::signed_product(const detail::Num& coeff, size_t first, size_t count) {
  if (sign_of(coeff) >= 0) return product(coeff, first, count);
  const size_t start = out_.size();
  out_ += '-';
  const Shape mag = product(-coeff, first, count);
  // `-x//4` would mean (-x)//4 in Python, and `-x + y` is not -(x + y).
  if (mag.top_is_div || mag.prec == kSum) {
    parenthesize(start + 1);
    return {kUnary, false};
  }
  return {mag.prec == kProduct ? kProduct : kUnary, false};
}

// A sum without a denominator, with extra added to its constant term.
//
// The constant term is folded into the sum's quotients as a person writes window sizes:
// `(s + 3)//4 - 1` prints as `(s - 1)//4`, since (E + j)//c + k == (E + j + k*c)//c for c > 0,
// and m*Q + m*k == m*(Q + k). The simplifier keeps offsets in [0, c) (so equal quotients meet and
// cancel). A quotient that can take part of the constant has a constant divisor, an offset of its
// own and an integer coefficient m with |m| <= |k|; the one with the largest |m| (the first in
// print order among equal ones) takes the multiple of m the constant holds, rounded toward zero,
// and the rest goes on to the next: `64*((s + 7)//8) + (h + 3)//4 - 65` prints as
// `(h - 1)//4 + 64*((s - 1)//8)`. `x//2 + 1` and `2*((s + 3)//4) - 1` stay as they are.
Shape Printer::sum(const ex& e, const detail::Num& extra) {
  const size_t mark_terms = terms_.size(), mark_pool = pool_.size(), mark_built = built_.size();
  for (const GiNaC::expair& p : detail::PairsOf::pairs(e)) terms_.push_back(make_term(p));
  detail::Num constant = num_of(detail::PairsOf::overall(e)) + extra;
  const size_t n = terms_.size() - mark_terms;
  auto done = [&] {
    truncate(terms_, mark_terms);
    release(mark_pool, mark_built);
  };
  // Whether term t is a quotient that can take a multiple of its coefficient from the constant.
  auto takes_part = [&](const PTerm& t) {
    if (t.count != 1 || !is_one(*pool_[t.first].exp) || !t.coeff.is_integer() ||
        detail::abs(t.coeff) > detail::abs(constant)) {
      return false;
    }
    const ex& q = *pool_[t.first].base;
    if (function_of(q) != Fn::FloorDiv || !detail::is_int(q.op(1)) ||
        sign_of(num_of(q.op(1))) <= 0 || !detail::is_exactly<GiNaC::add>(q.op(0))) {
      return false;
    }
    const ex& offset = detail::PairsOf::overall(q.op(0));
    return detail::is_int(offset) && !offset.is_zero();
  };
  bool sorted = false;
  while (!constant.is_zero()) {
    if (!sorted) sort_terms(mark_terms);
    sorted = true;
    size_t best = terms_.size();
    for (size_t i = mark_terms; i < terms_.size(); ++i) {
      if (!takes_part(terms_[i])) continue;
      if (best == terms_.size() || detail::abs(terms_[i].coeff) > detail::abs(terms_[best].coeff)) {
        best = i;
      }
    }
    if (best == terms_.size()) break;
    const PTerm& t = terms_[best];
    const ex& q = *pool_[t.first].base;
    const ex num = q.op(0), d = q.op(1);
    const detail::Num c = num_of(d);
    // j = k/m rounded toward zero; |k - j*m| < |m| <= |k|, so the constant shrinks each round.
    detail::Num j = detail::floordiv(detail::abs(constant), detail::abs(t.coeff));
    if ((sign_of(constant) < 0) != (sign_of(t.coeff) < 0)) j = -j;
    const detail::Num offset = j * c;
    if (n == 1 && (t.coeff == 1 || t.coeff == -1)) {
      // The sum is that one quotient: `(s - 1)//4`, or `-((s - 1)//4)`. Printed with the
      // offset in place, as signed_product prints the term with the folded quotient.
      const bool negative = sign_of(t.coeff) < 0;
      done();
      const size_t start = out_.size();
      if (negative) out_ += '-';
      floordiv_with_offset(num, offset, d);
      if (!negative) return {kProduct, true};
      parenthesize(start + 1);
      return {kUnary, false};
    }
    // The term stays m times a quotient (degree 1); only the quotient changes, and with it the
    // order.
    constant = constant - j * t.coeff;
    pool_[t.first].base = keep(ss_floordiv(num + detail::ex_of(offset.to_int()), d).hold());
    sort_terms(mark_terms);
  }
  if (constant.is_zero() && n == 1) {
    // One term and no constant: the term itself (a sum folded into one quotient, or a sum
    // printed after its constant was folded away).
    const PTerm t = terms_[mark_terms];
    const Shape s = signed_product(t.coeff, t.first, t.count);
    done();
    return s;
  }
  if (!sorted) sort_terms(mark_terms);
  bool any = false;
  auto append = [&](const detail::Num& c, size_t first, size_t count) {
    if (!any) {
      signed_product(c, first, count);
      any = true;
    } else {
      const bool negative = sign_of(c) < 0;
      out_ += negative ? " - " : " + ";
      const size_t start = out_.size();
      wrap(start, negative ? product(-c, first, count) : product(c, first, count), kProduct);
    }
  };
  for (size_t i = mark_terms; i < mark_terms + n; ++i) {
    const PTerm t = terms_[i];  // a copy: printing appends to the terms
    append(t.coeff, t.first, t.count);
  }
  if (!constant.is_zero() || !any) append(constant, 0, 0);
  done();
  return {kSum, false};
}

// Nested binary calls print as one n-ary call with sorted arguments.
Shape Printer::min_max(const ex& e, Fn f) {
  const size_t mark = args_.size();
  detail::flatten_calls(e, f, args_);
  const auto begin = args_.begin() + static_cast<std::ptrdiff_t>(mark);
  std::sort(begin, args_.end(),
            [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
  args_.erase(
      std::unique(begin, args_.end(), [](const ex& a, const ex& b) { return a.is_equal(b); }),
      args_.end());
  out_ += f == Fn::Max ? "max(" : "min(";
  for (size_t i = mark; i < args_.size(); ++i) {
    if (i != mark) out_ += ", ";
    const ex arg = args_[i];  // a copy: printing appends to the arguments
    expr(arg);
  }
  out_ += ')';
  truncate(args_, mark);
  return {kAtom};
}

Shape Printer::expr(const ex& e, bool integral) {
  const GiNaC::registered_class_info* type = &GiNaC::ex_to<GiNaC::basic>(e).get_class_info();
  if (type == &GiNaC::numeric::get_class_info_static()) {
    if (is_integer_number(e)) {
      const detail::Num v = num_of(e);
      append_int(out_, v);
      return {sign_of(v) < 0 ? kUnary : kAtom};
    }
    if (!integral) return quotient(e);
  } else if (type == &GiNaC::symbol::get_class_info_static()) {
    append_symbol(out_, e);
    return {kAtom};
  } else if (type == &GiNaC::function::get_class_info_static()) {
    const Fn f = function_of(e);
    switch (f) {
      case Fn::FloorDiv: return binary_fn(e.op(0), e.op(1), "//");
      case Fn::Mod: return binary_fn(e.op(0), e.op(1), " % ");
      case Fn::CeilDiv: {
        out_ += "ceildiv(";
        expr(e.op(0));
        out_ += ", ";
        expr(e.op(1));
        out_ += ')';
        return {kAtom};
      }
      case Fn::Max:
      case Fn::Min: return min_max(e, f);
      case Fn::None: break;
    }
  } else if (type == &GiNaC::add::get_class_info_static()) {
    if (!integral && detail::has_denominator(e)) return quotient(e);
    return sum(e, detail::Num(0));
  } else if (type == &GiNaC::mul::get_class_info_static() ||
             type == &GiNaC::power::get_class_info_static()) {
    if (!integral && detail::has_denominator(e)) return quotient(e);
    const size_t mark = pool_.size(), mark_built = built_.size();
    detail::Num coeff = 1;
    if (type == &GiNaC::mul::get_class_info_static()) {
      push_product(e, coeff);
    } else if (push_factor(PowerOf::base(e), PowerOf::exp(e))) {
      coeff = -coeff;
    }
    std::sort(pool_.begin() + static_cast<std::ptrdiff_t>(mark), pool_.end(), pfactor_before);
    const Shape s = signed_product(coeff, mark, pool_.size() - mark);
    release(mark, mark_built);
    return s;
  }
  throw Error("cannot print an expression outside the grammar");
}

}  // namespace

std::string Expr::str() const {
  thread_local Scratch scratch;
  std::string& out = scratch.text;
  out.clear();
  try {
    Printer(out, scratch).expr(e_);
  } catch (...) {
    // Each level takes off what it added, except when a throw cuts it short.
    scratch = Scratch();
    throw;
  }
  return out;
}

// Whether printing e needs a quotient: a rational coefficient or a negative power somewhere in
// its top-level sum or product (an exact division). Read on the pairs of a sum or a product: a
// term rest*coeff has one when coeff is not an integer or rest has one, a factor rest**coeff
// when coeff is a negative integer or rest has one, and the overall coefficient when it is not
// an integer (GiNaC builds the term or factor on each op(i)).
bool detail::has_denominator(const ex& e) {
  const GiNaC::registered_class_info* type = &GiNaC::ex_to<GiNaC::basic>(e).get_class_info();
  if (type == &GiNaC::numeric::get_class_info_static()) {
    return !is_integer_number(e);
  }
  if (type == &GiNaC::power::get_class_info_static()) {
    const ex& exponent = PowerOf::exp(e);
    if (detail::is_exactly<GiNaC::numeric>(exponent)) {
      const auto& k = GiNaC::ex_to<GiNaC::numeric>(exponent);
      if (k.is_integer() && k.is_negative()) return true;
    }
    return detail::has_denominator(PowerOf::base(e));
  }
  const bool is_sum = type == &GiNaC::add::get_class_info_static();
  if (is_sum || type == &GiNaC::mul::get_class_info_static()) {
    if (!is_integer_number(PairsOf::overall(e))) return true;
    for (const GiNaC::expair& p : PairsOf::pairs(e)) {
      const bool integer = is_integer_number(p.coeff);
      if (is_sum ? !integer : integer && GiNaC::ex_to<GiNaC::numeric>(p.coeff).is_negative())
        return true;
      if (detail::has_denominator(p.rest)) return true;
    }
  }
  return false;
}

}  // namespace symshape
