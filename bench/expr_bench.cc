// Times the expression engine on shape expressions a compiler actually meets: parse, simplify,
// bounds and prove over a fixed corpus, and simplify per expression. Figures: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/ranges.h"
#include "symshape/simplify.h"

namespace symshape {
namespace {

// Reshapes, convolution output sizes, tiling, slicing clamps and the textbook cancellations.
// Fixed on purpose: docs/performance.md reports these exact expressions.
const std::vector<std::string> kCorpus = {
    "s0*s1*4096",                        // reshape: element count
    "(s0*s1*4096)//(s1*64)",             // reshape: inferred -1 dimension
    "(h + 2*3 - 1*(7 - 1) - 1)//2 + 1",  // conv output size, constant kernel 7 stride 2 pad 3
    "(h + 2*p - d*(k - 1) - 1)//s + 1",  // conv output size, every parameter symbolic
    "ceildiv(n, 32)*32",                 // tiling: padded length
    "min(max(start, 0), n)",             // slicing: clamped start
    "max(min(end, n), start) - start",   // slicing: clamped length
    "(n*320 + 255) % 256",               // alignment remainder
    "s0*s1*s2//s0",                      // flatten then unflatten
    "(4*x + 3)//4",                      // rounding that cancels
    "(a*a - b*b)//(a + b)",              // exact polynomial division
    "((w + h)*65)//(w + h)",             // common factor with a sum
};

// Sizes are dimensions ([1, inf]); slice bounds may be negative; padding may be 0.
Facts corpus_facts() {
  Facts facts(ValueRange::at_least(Int(1)));
  facts.set_range("start", ValueRange::all());
  facts.set_range("end", ValueRange::all());
  facts.set_range("p", ValueRange::at_least(Int(0)));
  return facts;
}

// Parse failures mean the corpus or the parser is broken: no figure is worth reporting.
Expr must_parse(const std::string& text) {
  Expected<Expr> e = parse_expr(text);
  if (!e) {
    std::fprintf(stderr, "expr_bench: cannot parse '%s': %s\n", text.c_str(), e.error().c_str());
    std::exit(1);
  }
  return *e;
}

Cond must_parse_cond(const std::string& text) {
  Expected<Cond> c = parse_cond(text);
  if (!c) {
    std::fprintf(stderr, "expr_bench: cannot parse '%s': %s\n", text.c_str(), c.error().c_str());
    std::exit(1);
  }
  return *c;
}

const std::vector<Expr>& parsed_corpus() {
  static const std::vector<Expr> exprs = [] {
    std::vector<Expr> out;
    for (const std::string& text : kCorpus) out.push_back(must_parse(text));
    return out;
  }();
  return exprs;
}

// A condition to prove with the facts it needs.
struct ProveCase {
  std::string cond;
  std::vector<std::pair<std::string, ValueRange>> ranges;
  std::vector<std::string> assumptions;
};

const std::vector<ProveCase> kProveCases = {
    {"x//2 <= x", {}, {}},
    {"i0*32 + i1 < ((n+31)//32)*32",
     {{"i0", ValueRange::at_least(Int(0))}, {"i1", ValueRange::closed(Int(0), Int(31))}},
     {"i0 < (n+31)//32"}},
    {"a < c", {}, {"a < b", "b < c"}},
    {"(n*320 + 255) % 256 >= 63", {}, {}},
    {"ceildiv(n, 32)*32 >= n", {}, {}},
    {"min(max(start, 0), n) <= n", {{"start", ValueRange::all()}}, {}},
};

struct PreparedProve {
  Cond cond;
  Facts facts;
};

const std::vector<PreparedProve>& prepared_prove_cases() {
  static const std::vector<PreparedProve> cases = [] {
    std::vector<PreparedProve> out;
    for (const ProveCase& pc : kProveCases) {
      Facts facts(ValueRange::at_least(Int(1)));
      for (const auto& [name, range] : pc.ranges) facts.set_range(name, range);
      for (const std::string& a : pc.assumptions) facts.assume(must_parse_cond(a));
      out.push_back({must_parse_cond(pc.cond), std::move(facts)});
    }
    return out;
  }();
  return cases;
}

void BM_Parse(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : kCorpus) {
      Expected<Expr> e = parse_expr(text);
      benchmark::DoNotOptimize(e);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kCorpus.size()));
}
BENCHMARK(BM_Parse);

void BM_Simplify(benchmark::State& state) {
  const std::vector<Expr>& exprs = parsed_corpus();
  Facts facts = corpus_facts();
  for (auto _ : state) {
    for (const Expr& e : exprs) {
      Expr s = simplify(e, facts);
      benchmark::DoNotOptimize(s);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(exprs.size()));
}
BENCHMARK(BM_Simplify);

// Range analysis of the expressions as parsed (not simplified first), so this times bound alone.
void BM_Bounds(benchmark::State& state) {
  const std::vector<Expr>& exprs = parsed_corpus();
  Facts facts = corpus_facts();
  for (auto _ : state) {
    for (const Expr& e : exprs) {
      ValueRange r = bound(e, facts);
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(exprs.size()));
}
BENCHMARK(BM_Bounds);

void BM_Prove(benchmark::State& state) {
  const std::vector<PreparedProve>& cases = prepared_prove_cases();
  for (auto _ : state) {
    for (const PreparedProve& pc : cases) {
      Truth t = prove(pc.cond, pc.facts);
      benchmark::DoNotOptimize(t);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(cases.size()));
}
BENCHMARK(BM_Prove);

// One corpus expression per run (the label shows which), to find the slow ones.
void BM_SimplifyExpr(benchmark::State& state) {
  const size_t index = static_cast<size_t>(state.range(0));
  const Expr& e = parsed_corpus()[index];
  Facts facts = corpus_facts();
  for (auto _ : state) {
    Expr s = simplify(e, facts);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kCorpus[index]);
}
BENCHMARK(BM_SimplifyExpr)->DenseRange(0, static_cast<int>(kCorpus.size()) - 1)->ArgName("expr");

// One decision under 20 facts over 10 symbols (issue 17: under 50 us each): chains of
// inequalities, scaled bounds, equalities used as substitutions, a disequality, congruences.
const std::vector<std::string> kManyFactGoals = {
    "s0 <= s9",                  // a chain of inequalities
    "s4 % s5 == 0",              // s4 == s5*s6 rewritten in
    "s9 // 4 % 2 == 0",          // s9 % 8 == 0 through //
    "max(s7, s8) == s8",         // decided by simplify under s7 <= s8
    "s0 < s3",                   // s2 != s3 split on
    "min(s7 + s8, 128) == 100",  // s7 + s8 == 100 rewritten in
    "s0 < s2",                   // undecided: every tier runs
};

// Satisfiable (s0..s9 = 1, 1, 1, 2, 6, 2, 3, 40, 60, 64): an answer under contradictory facts
// would time nothing real.
Facts many_facts() {
  Facts facts(ValueRange::closed(Int(1), Int(1024)));
  const char* texts[] = {
      "s0 <= s1",    "s1 <= s2",
      "s2 <= s3",    "s3 <= s4",
      "s5 <= s4",    "s5 <= s6",
      "s6 <= s7",    "s7 <= s8",
      "s8 <= s9",    "2*s0 + s3 <= s9 + 4",
      "s4 == s5*s6", "s7 + s8 == 100",
      "s2 != s3",    "s9 % 8 == 0",
      "s1 % 4 == 1", "3*s5 <= s4 + 2",
      "s6 >= 2",     "s0 + s1 + s2 <= 3*s9",
      "s3 < s9",     "max(s0, s1) <= 500",
  };
  for (const char* t : texts) facts.assume(must_parse_cond(t));
  return facts;
}

void BM_ProveManyFacts(benchmark::State& state) {
  const size_t index = static_cast<size_t>(state.range(0));
  const Cond goal = must_parse_cond(kManyFactGoals[index]);
  const Facts facts = many_facts();
  Truth t = prove(goal, facts);
  for (auto _ : state) {
    t = prove(goal, facts);
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kManyFactGoals[index] + " -> " + std::string(to_string(t)));
}
BENCHMARK(BM_ProveManyFacts)
    ->DenseRange(0, static_cast<int>(kManyFactGoals.size()) - 1)
    ->ArgName("goal")
    ->Unit(benchmark::kMicrosecond);

// The classes of issue 33, one representative each (bench/peer/run.py's class corpus draws
// 250 of each): parse + simplify per class, the figure the corpus's per-class rows report.
const std::vector<std::pair<std::string, std::string>> kClasses = {
    {"conv_area", "64*((h + 2*1 - 2*(3 - 1) - 1)//2 + 1)*((w + 2*1 - 2*(3 - 1) - 1)//2 + 1)"},
    {"conv_size", "(h + 2*3 - 1*(7 - 1) - 1)//4 + 1"},
    {"reshape_quot", "(a*b*4096)//(b*64)"},
    {"clamp", "min(max(start + 3, 0), n) - max(n, 0)"},
    {"mod_chain", "((x*16 + y % 16) % 64)//16"},
    {"ceildiv", "x + (-x) % 64"},
    {"cancel", "(x + 7)//2 - (x + 1)//2"},
    {"flatten", "(x*y*6)//x + (z + 3)//4"},
};

void BM_SimplifyClass(benchmark::State& state) {
  const auto& [name, text] = kClasses[static_cast<size_t>(state.range(0))];
  const Facts facts = corpus_facts();
  for (auto _ : state) benchmark::DoNotOptimize(simplify(must_parse(text), facts));
  state.SetLabel(name);
}
BENCHMARK(BM_SimplifyClass)
    ->DenseRange(0, static_cast<int>(kClasses.size()) - 1)
    ->ArgName("class")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace symshape

BENCHMARK_MAIN();
