// The peers' integer-arithmetic test suites (TVM, JAX, PyTorch, MLIR), ported as data tables in
// tests/expr/peer_suites/*.txt and run against symshape.
//
// Each case is first checked by itself: its expected answer must hold at every point of a small
// box of its symbols' ranges that satisfies its facts (Python integer semantics), so a case that
// was copied wrong fails here. Then symshape answers it:
//   simplify  pass: the result prints as the expected form, or is equivalent and has no more
//             nodes; not yet: equivalent but larger.
//   cond      the same for a condition.
//   bound     pass: symshape's bound lies within the expected one (ends written `?` are not
//             checked); not yet: wider.
//   prove     pass: the expected true / false; not yet: unknown.
//   modular   pass: symshape's modular set is at least as fine as the expected one.
// Any answer that is wrong at a point of the box (a simplification that changes a value, a bound
// that excludes a value, a wrong true / false, a wrong congruence) fails the test: that is a bug.
// Cases symshape does not settle yet are listed, with the pass rate of each suite.
//
// The file format, one case a line (`#` starts a comment line):
//   @suite NAME FILE              the peer suite and file the following cases come from
//   @default [LO, HI]             the range of a symbol no fact names (until the next @suite)
//   KIND | INPUT | EXPECTED | FACTS [| NOTE]
//   inapplicable | WHAT | REASON  a peer case whose semantics differ from Python's
// FACTS is a `;`-separated list of `x in [LO, HI]` and conditions; it may be empty.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/ranges.h"
#include "symshape/simplify.h"

namespace symshape {
namespace {

std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(sep, pos);
    out.push_back(trim(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos)));
    if (next == std::string::npos) break;
    pos = next + sep.size();
  }
  return out;
}

// "[LO, HI]" with inf / -inf / ? ends (? and an infinite end are nullopt).
bool parse_interval(const std::string& text, std::optional<Int>& lo, std::optional<Int>& hi) {
  std::string t = trim(text);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return false;
  std::vector<std::string> ends = split(t.substr(1, t.size() - 2), ",");
  if (ends.size() != 2) return false;
  auto end = [](const std::string& e, std::optional<Int>& out) {
    if (e == "inf" || e == "-inf" || e == "?") {
      out.reset();
      return true;
    }
    out = parse_int(e);
    return out.has_value();
  };
  return end(ends[0], lo) && end(ends[1], hi);
}

struct Case {
  std::string suite, file, kind, input, expected, facts_text, note;
  int line = 0;
  ValueRange default_range;
};

struct Outcome {
  enum Kind { Pass, NotYet, Inapplicable } kind = Pass;
  std::string detail;
};

std::vector<Case> read_cases(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<Case> out;
  std::string line, suite, file;
  ValueRange def = ValueRange::all();
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("@suite ", 0) == 0) {
      std::vector<std::string> w = split(line.substr(7), " ");
      suite = w.at(0);
      file = w.size() > 1 ? w[1] : "";
      def = ValueRange::all();
      continue;
    }
    if (line.rfind("@default ", 0) == 0) {
      std::optional<Int> lo, hi;
      EXPECT_TRUE(parse_interval(line.substr(9), lo, hi)) << path << ":" << n;
      def = ValueRange(lo, hi);
      continue;
    }
    std::vector<std::string> f = split(line, "|");
    Case c;
    c.suite = suite;
    c.file = file;
    c.line = n;
    c.default_range = def;
    c.kind = f.at(0);
    if (f.size() > 1) c.input = f[1];
    if (f.size() > 2) c.expected = f[2];
    if (f.size() > 3) c.facts_text = f[3];
    if (f.size() > 4) c.note = f[4];
    EXPECT_TRUE(f.size() >= 3 && f.size() <= 5) << path << ":" << n << ": " << line;
    out.push_back(c);
  }
  return out;
}

// The facts of a case, and the box of points its brute-force check runs over.
struct Context {
  Facts facts;
  std::vector<Cond> conds;
  std::vector<std::string> symbols;
  std::vector<std::vector<Int>> values;  // per symbol
};

std::vector<Int> sample(const ValueRange& r, int count) {
  std::set<Int, std::function<bool(const Int&, const Int&)>> s(
      [](const Int& a, const Int& b) { return a < b; });
  const Int half(count / 2);
  if (r.lo() && r.hi()) {
    if (*r.hi() - *r.lo() < Int(count)) {
      for (Int v = *r.lo(); v <= *r.hi(); v = v + 1) s.insert(v);
    } else {
      for (Int v = *r.lo(); v < *r.lo() + half; v = v + 1) s.insert(v);
      for (Int v = *r.hi() - half + 1; v <= *r.hi(); v = v + 1) s.insert(v);
      s.insert(cln::floor1(*r.lo() + *r.hi(), 2));
    }
  } else if (r.lo()) {
    for (Int v = *r.lo(); v < *r.lo() + Int(count); v = v + 1) s.insert(v);
  } else if (r.hi()) {
    for (Int v = *r.hi() - Int(count) + 1; v <= *r.hi(); v = v + 1) s.insert(v);
  } else {
    for (Int v = -half; v < Int(count) - half; v = v + 1) s.insert(v);
  }
  return {s.begin(), s.end()};
}

bool build_context(const Case& c, const std::vector<std::string>& extra_symbols, Context& ctx,
                   std::string& error) {
  ctx.facts = Facts(c.default_range);
  std::set<std::string> syms(extra_symbols.begin(), extra_symbols.end());
  if (!c.facts_text.empty()) {
    for (const std::string& part : split(c.facts_text, ";")) {
      size_t in = part.find(" in ");
      if (in != std::string::npos) {
        std::optional<Int> lo, hi;
        std::string name = trim(part.substr(0, in));
        if (!parse_interval(part.substr(in + 4), lo, hi)) {
          error = "bad range: " + part;
          return false;
        }
        ctx.facts.set_range(name, ValueRange(lo, hi));
        syms.insert(name);
        continue;
      }
      auto cond = parse_cond(part);
      if (!cond) {
        error = "bad fact: " + part + ": " + cond.error();
        return false;
      }
      ctx.facts.assume(*cond);
      ctx.conds.push_back(*cond);
      for (const std::string& s : cond->free_symbols()) syms.insert(s);
    }
  }
  ctx.symbols.assign(syms.begin(), syms.end());
  const int k = std::max<int>(1, static_cast<int>(ctx.symbols.size()));
  const int count = std::clamp(static_cast<int>(std::pow(6000.0, 1.0 / k)), 5, 40);
  for (const std::string& s : ctx.symbols)
    ctx.values.push_back(sample(ctx.facts.range_of(s), count));
  return true;
}

// Calls f at every point of the box that satisfies the facts; returns how many there were.
template <typename F>
int for_each_point(const Context& ctx, F&& f) {
  std::vector<size_t> idx(ctx.symbols.size(), 0);
  int points = 0;
  Bindings b;
  while (true) {
    for (size_t i = 0; i < idx.size(); ++i) b[ctx.symbols[i]] = ctx.values[i][idx[i]];
    bool ok = true;
    for (const Cond& cond : ctx.conds) {
      try {
        if (!evaluate(cond, b)) ok = false;
      } catch (const Error&) {
        ok = false;
      }
      if (!ok) break;
    }
    if (ok) {
      ++points;
      f(b);
    }
    size_t i = 0;
    while (i < idx.size() && ++idx[i] == ctx.values[i].size()) idx[i++] = 0;
    if (i == idx.size()) break;
  }
  return points;
}

std::optional<Int> value_at(const Expr& e, const Bindings& b) {
  try {
    return evaluate(e, b);
  } catch (const Error&) {
    return std::nullopt;  // undefined here (a division by zero)
  }
}

std::optional<bool> truth_at(const Cond& c, const Bindings& b) {
  try {
    return evaluate(c, b);
  } catch (const Error&) {
    return std::nullopt;
  }
}

size_t node_count(const GiNaC::ex& e) {
  size_t n = 0;
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it) ++n;
  return n;
}

size_t cond_node_count(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True:
    case Cond::Kind::False: return 1;
    case Cond::Kind::Rel: return 1 + node_count(c.lhs().ex()) + node_count(c.rhs().ex());
    case Cond::Kind::And:
    case Cond::Kind::Or: {
      size_t n = 1;
      for (const Cond& o : c.operands()) n += cond_node_count(o);
      return n;
    }
  }
  return 0;
}

// Runs one case. A transcription error or an unsound answer is an ADD_FAILURE.
Outcome run_case(const Case& c) {
  const std::string where =
      c.suite + " (" + c.file + ") line " + std::to_string(c.line) + ": " + c.kind + " " + c.input;
  if (c.kind == "inapplicable") return {Outcome::Inapplicable, c.expected};
  std::vector<std::string> syms;
  std::optional<Expr> input;
  std::optional<Cond> input_cond;
  if (c.kind == "prove" || c.kind == "cond") {
    auto p = parse_cond(c.input);
    if (!p) {
      ADD_FAILURE() << where << ": " << p.error();
      return {Outcome::NotYet, "unparsed"};
    }
    input_cond = *p;
    syms = p->free_symbols();
  } else {
    auto p = parse_expr(c.input);
    if (!p) {
      ADD_FAILURE() << where << ": " << p.error();
      return {Outcome::NotYet, "unparsed"};
    }
    input = *p;
    syms = p->free_symbols();
  }
  Context ctx;
  std::string error;
  if (!build_context(c, syms, ctx, error)) {
    ADD_FAILURE() << where << ": " << error;
    return {Outcome::NotYet, error};
  }

  if (c.kind == "simplify") {
    auto expected = parse_expr(c.expected);
    if (!expected) {
      ADD_FAILURE() << where << ": expected: " << expected.error();
      return {Outcome::NotYet, ""};
    }
    Expr got = simplify(*input, ctx.facts);
    bool transcribed = true, sound = true;
    std::string bad;
    int points = for_each_point(ctx, [&](const Bindings& b) {
      auto v = value_at(*input, b);
      if (!v) return;
      auto e = value_at(*expected, b), g = value_at(got, b);
      if (transcribed && (!e || *e != *v)) {
        transcribed = false;
        bad = "expected differs at a point";
      }
      if (sound && (!g || *g != *v)) {
        sound = false;
        for (const auto& [k, x] : b) bad += " " + k + "=" + to_string(x);
      }
    });
    EXPECT_GT(points, 0) << where << ": no point of the box satisfies the facts";
    EXPECT_TRUE(transcribed) << where << ": the expected " << expected->str() << ": " << bad;
    EXPECT_TRUE(sound) << where << ": UNSOUND simplification to " << got.str() << " at" << bad;
    if (got.str() == expected->str() || node_count(got.ex()) <= node_count(expected->ex())) {
      return {Outcome::Pass, got.str()};
    }
    return {Outcome::NotYet, "gives " + got.str() + ", expected " + expected->str()};
  }

  if (c.kind == "cond") {
    auto expected = parse_cond(c.expected);
    if (!expected) {
      ADD_FAILURE() << where << ": expected: " << expected.error();
      return {Outcome::NotYet, ""};
    }
    Cond got = simplify(*input_cond, ctx.facts);
    bool transcribed = true, sound = true;
    for_each_point(ctx, [&](const Bindings& b) {
      auto v = truth_at(*input_cond, b);
      if (!v) return;
      auto e = truth_at(*expected, b), g = truth_at(got, b);
      if (!e || *e != *v) transcribed = false;
      if (!g || *g != *v) sound = false;
    });
    EXPECT_TRUE(transcribed) << where << ": the expected " << expected->str();
    EXPECT_TRUE(sound) << where << ": UNSOUND simplification to " << got.str();
    if (got.str() == expected->str() || cond_node_count(got) <= cond_node_count(*expected)) {
      return {Outcome::Pass, got.str()};
    }
    return {Outcome::NotYet, "gives " + got.str() + ", expected " + expected->str()};
  }

  if (c.kind == "bound") {
    std::optional<Int> lo, hi;
    if (!parse_interval(c.expected, lo, hi)) {
      ADD_FAILURE() << where << ": bad expected bound " << c.expected;
      return {Outcome::NotYet, ""};
    }
    std::vector<std::string> ends = split(c.expected.substr(1, c.expected.size() - 2), ",");
    const bool check_lo = ends[0] != "?", check_hi = ends[1] != "?";
    ValueRange got = bound(*input, ctx.facts);
    bool transcribed = true, sound = true;
    std::string bad;
    for_each_point(ctx, [&](const Bindings& b) {
      auto v = value_at(*input, b);
      if (!v) return;
      if ((check_lo && lo && *v < *lo) || (check_hi && hi && *v > *hi)) transcribed = false;
      if (sound && !got.contains(*v)) {
        sound = false;
        bad = to_string(*v) + " at";
        for (const auto& [k, x] : b) bad += " " + k + "=" + to_string(x);
      }
    });
    EXPECT_TRUE(transcribed) << where << ": a value lies outside the expected " << c.expected;
    EXPECT_TRUE(sound) << where << ": UNSOUND bound " << got.str() << " excludes " << bad;
    bool lo_ok = !check_lo || (lo ? got.lo() && *got.lo() >= *lo : true);
    bool hi_ok = !check_hi || (hi ? got.hi() && *got.hi() <= *hi : true);
    if (lo_ok && hi_ok) return {Outcome::Pass, got.str()};
    return {Outcome::NotYet, "gives " + got.str() + ", expected " + c.expected};
  }

  if (c.kind == "prove") {
    if (c.expected != "true" && c.expected != "false") {
      ADD_FAILURE() << where << ": expected true or false, not " << c.expected;
      return {Outcome::NotYet, ""};
    }
    const bool want = c.expected == "true";
    bool transcribed = true;
    for_each_point(ctx, [&](const Bindings& b) {
      auto v = truth_at(*input_cond, b);
      if (v && *v != want) transcribed = false;
    });
    EXPECT_TRUE(transcribed) << where << ": the condition is not always " << c.expected;
    Truth got = prove(*input_cond, ctx.facts);
    if (got == Truth::Unknown) return {Outcome::NotYet, "unknown, expected " + c.expected};
    EXPECT_EQ(got == Truth::True, want) << where << ": UNSOUND answer " << to_string(got);
    return {Outcome::Pass, std::string(to_string(got))};
  }

  if (c.kind == "modular") {
    std::vector<std::string> w = split(c.expected, ",");
    auto coeff = parse_int(w.at(0));
    auto base = w.size() > 1 ? parse_int(w[1]) : std::nullopt;
    if (!coeff || !base) {
      ADD_FAILURE() << where << ": bad expected modular set " << c.expected;
      return {Outcome::NotYet, ""};
    }
    ModularSet got = modular_set(*input, ctx.facts);
    bool transcribed = true, sound = true;
    for_each_point(ctx, [&](const Bindings& b) {
      auto v = value_at(*input, b);
      if (!v) return;
      if (*coeff == 0 ? *v != *base : cln::mod(*v - *base, *coeff) != 0) transcribed = false;
      if (got.modulus == 0 ? *v != got.base : cln::mod(*v - got.base, got.modulus) != 0) {
        sound = false;
      }
    });
    EXPECT_TRUE(transcribed) << where << ": a value is not " << to_string(*base) << " mod "
                             << to_string(*coeff);
    EXPECT_TRUE(sound) << where << ": UNSOUND modular set " << to_string(got.base) << " mod "
                       << to_string(got.modulus);
    // As fine as expected: every value of got's set lies in the expected set.
    bool finer =
        *coeff == 0 ? got.modulus == 0 && got.base == *base
                    : cln::mod(got.modulus, *coeff) == 0 && cln::mod(got.base - *base, *coeff) == 0;
    std::string text = to_string(got.base) + " mod " + to_string(got.modulus);
    if (finer) return {Outcome::Pass, text};
    return {Outcome::NotYet, "gives " + text + ", expected " + c.expected};
  }

  ADD_FAILURE() << where << ": unknown kind";
  return {Outcome::NotYet, ""};
}

TEST(PeerSuites, EveryCaseIsRightAndSymshapeIsSound) {
  const std::filesystem::path dir =
      std::filesystem::path(SYMSHAPE_SOURCE_DIR) / "tests" / "expr" / "peer_suites";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());

  struct Tally {
    int pass = 0, not_yet = 0, inapplicable = 0;
  };
  std::map<std::string, Tally> tally;
  std::vector<std::string> not_yet, inapplicable;
  int total = 0;
  for (const auto& path : files) {
    for (const Case& c : read_cases(path)) {
      ++total;
      Outcome o = run_case(c);
      const std::string key = c.suite + " " + c.file;
      const std::string what = path.filename().string() + ":" + std::to_string(c.line) + " [" +
                               key + "] " + c.kind + " " + c.input;
      switch (o.kind) {
        case Outcome::Pass: ++tally[key].pass; break;
        case Outcome::NotYet:
          ++tally[key].not_yet;
          not_yet.push_back(what + ": " + o.detail);
          break;
        case Outcome::Inapplicable:
          ++tally[key].inapplicable;
          inapplicable.push_back(what + ": " + o.detail);
          break;
      }
    }
  }
  std::ostringstream out;
  out << "peer suites: " << total << " cases\n";
  for (const auto& [key, t] : tally) {
    const int applicable = t.pass + t.not_yet;
    out << "  " << key << ": " << t.pass << "/" << applicable << " pass";
    if (applicable > 0) out << " (" << (100 * t.pass / applicable) << "%)";
    if (t.inapplicable > 0) out << ", " << t.inapplicable << " inapplicable";
    out << "\n";
  }
  if (!not_yet.empty()) {
    out << "not settled yet:\n";
    for (const std::string& s : not_yet) out << "  " << s << "\n";
  }
  if (!inapplicable.empty()) {
    out << "inapplicable:\n";
    for (const std::string& s : inapplicable) out << "  " << s << "\n";
  }
  std::cout << out.str();
}

}  // namespace
}  // namespace symshape
