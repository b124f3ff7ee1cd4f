// Times checking 1,000 guards on concrete inputs (issue 5): the compiled checker
// (GuardChecker::first_failure on int64 values, and its full check() on Ints) against evaluating
// the same conditions by substitution (symshape::evaluate, GiNaC/CLN). The third contender, the
// guards printed by print_python and run by CPython the way PyTorch ships them, is timed by
// bench/python_guards.py on the guards this program writes out:
//
//   SYMSHAPE_DUMP_GUARDS=guards.json build/bench_guards   # writes the guards, then exits
//   python3 bench/python_guards.py guards.json
//
// Figures: docs/performance.md, "Guard checking".
#include <benchmark/benchmark.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "symshape/guards.h"

namespace symshape {
namespace {

constexpr size_t kGuards = 1000;
constexpr size_t kDims = 4;
// Graph inputs, each with kDims sizes: 96 sources.
const std::vector<std::string> kInputs = {
    "x",  "y",  "mask", "q",   "k",     "v",      "w1",   "w2",  "b1",  "b2",    "pos", "emb",
    "h0", "c0", "idx",  "tgt", "state", "weight", "bias", "cos", "sin", "scale", "kv",  "logits"};
// The concrete sizes come from these (several sources share a value, so that equalities and
// products between sources hold).
const std::vector<int64_t> kSizeValues = {3, 5, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256};

// `L['x'].size()[0]` -> `L_x_size_0_`: each run of characters that are neither letters, digits
// nor underscores becomes one underscore (the form guards.h documents).
std::string mangle(const std::string& text) {
  std::string out;
  bool in_run = false;
  for (char c : text) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (keep) {
      out += c;
    } else if (!in_run) {
      out += '_';
    }
    in_run = !keep;
  }
  return out;
}

enum class Mix { Mixed, Simple };

struct Workload {
  GuardSet set;
  std::vector<int64_t> values;        // one per source, in set.sources order; every guard holds
  std::map<std::string, size_t> mix;  // guard shape -> count
};

// 1,000 guards over the sources, all holding at `values`.
//
// Mixed, drawn with these weights (a duplicate of an earlier guard, or a draw that does not fit
// the values, is drawn again, so the counts differ: 438, 162, 112, 69, 170, 49; `mix` has them):
//   40 % `s op C`          one comparison with a constant (<=, <, >=, >, !=)
//   20 % `a == b`          an equality between two sources of equal value
//   10 % `lo <= s <= hi`   a range: the And of two comparisons
//   10 % `s % k == 0`      divisibility, k in {2, 4, 8}
//   15 % `2*a + b <= C`    linear
//    5 % `a*b == c*d`      products
// Simple: 1,000 guards `s_i <= C` (source i % 96, C at least its value).
Workload make_workload(Mix mix) {
  Workload w;
  std::mt19937_64 rng(20261121);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (const std::string& input : kInputs) {
    for (size_t d = 0; d < kDims; ++d) {
      Source s;
      s.kind = Source::Kind::Size;
      s.input = input;
      s.dim = d;
      s.name = "L['" + input + "'].size()[" + std::to_string(d) + "]";
      s.identifier = mangle(s.name);
      w.set.sources.push_back(s);
      w.values.push_back(kSizeValues[pick(kSizeValues.size())]);
    }
  }
  const size_t n = w.set.sources.size();
  std::vector<Expr> sym;
  for (const Source& s : w.set.sources) sym.push_back(Expr::symbol(s.identifier));
  auto value = [&](size_t i) { return w.values[i]; };
  std::map<int64_t, std::vector<size_t>> by_value;
  for (size_t i = 0; i < n; ++i) by_value[w.values[i]].push_back(i);
  auto same = [&](int64_t v) {  // a random source of value v
    const std::vector<size_t>& of = by_value.at(v);
    return of[pick(of.size())];
  };

  std::set<std::string> seen;
  auto add = [&](ProducedGuard::Kind kind, const Cond& cond, const char* shape) {
    std::string key = cond.str();
    if (cond.is_true() || cond.is_false() || !seen.insert(key).second) return false;
    w.set.guards.push_back({kind, cond, Provenance{"bench", "bench", shape}});
    ++w.mix[shape];
    return true;
  };

  if (mix == Mix::Simple) {
    for (size_t g = 0; g < kGuards; ++g) {
      size_t i = g % n;
      add(ProducedGuard::Kind::Guard, sym[i] <= Expr(static_cast<long>(value(i) + g / n)),
          "s <= C");
    }
    return w;
  }

  while (w.set.guards.size() < kGuards) {
    size_t roll = pick(100);
    size_t a = pick(n), b = pick(n);
    if (roll < 40) {
      int64_t v = value(a), slack = static_cast<int64_t>(pick(64));
      int64_t low = static_cast<int64_t>(pick(static_cast<size_t>(v)));  // lower bounds stay >= 0
      Cond c;
      switch (pick(5)) {
        case 0: c = sym[a] <= Expr(static_cast<long>(v + slack)); break;
        case 1: c = sym[a] < Expr(static_cast<long>(v + 1 + slack)); break;
        case 2: c = sym[a] >= Expr(static_cast<long>(v - low)); break;
        case 3: c = sym[a] > Expr(static_cast<long>(v - 1 - low)); break;
        default: c = sym[a] != Expr(static_cast<long>(v + 1 + slack)); break;
      }
      add(ProducedGuard::Kind::Guard, c, "s op C");
    } else if (roll < 60) {
      b = same(value(a));
      if (a != b) {
        add(ProducedGuard::Kind::Equality, sym[std::min(a, b)] == sym[std::max(a, b)], "a == b");
      }
    } else if (roll < 70) {
      int64_t lo = 1 + static_cast<int64_t>(pick(static_cast<size_t>(value(a))));
      int64_t hi = value(a) + static_cast<int64_t>(pick(1024));
      Cond c =
          Cond::all({Expr(static_cast<long>(lo)) <= sym[a], sym[a] <= Expr(static_cast<long>(hi))});
      add(ProducedGuard::Kind::Range, c, "lo <= s <= hi");
    } else if (roll < 80) {
      int64_t k = int64_t{2} << pick(3);
      if (value(a) % k == 0)
        add(ProducedGuard::Kind::Guard, mod(sym[a], Expr(static_cast<long>(k))) == Expr(0),
            "s % k == 0");
    } else if (roll < 95) {
      if (a != b) {
        int64_t bound = int64_t{1024} << pick(3);  // 1024 .. 8192; every 2*a + b is at most 768
        add(ProducedGuard::Kind::Guard, Expr(2) * sym[a] + sym[b] <= Expr(static_cast<long>(bound)),
            "2*a + b <= C");
      }
    } else {
      // a*b == c*d with c of b's value and d of a's value, {c, d} not {a, b}.
      size_t c = same(value(b)), d = same(value(a));
      if (a != b && c != d && !((c == a && d == b) || (c == b && d == a))) {
        add(ProducedGuard::Kind::Guard, sym[a] * sym[b] == sym[c] * sym[d], "a*b == c*d");
      }
    }
  }
  return w;
}

const Workload& workload(Mix mix) {
  static const Workload mixed = make_workload(Mix::Mixed);
  static const Workload simple = make_workload(Mix::Simple);
  return mix == Mix::Mixed ? mixed : simple;
}

void report(benchmark::State& state, const Workload& w, const GuardChecker* checker) {
  const double guards = static_cast<double>(w.set.guards.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.set.guards.size()));
  // CPU time per guard (the rate, inverted).
  state.counters["time_per_guard"] = benchmark::Counter(
      guards, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["guards"] = guards;
  if (checker) state.counters["instructions"] = static_cast<double>(checker->instruction_count());
}

// The compiled checker on int64 values. Every guard holds, so every guard is evaluated.
void BM_CompiledFirstFailure(benchmark::State& state, Mix mix) {
  const Workload& w = workload(mix);
  GuardChecker checker(w.set);
  std::span<const int64_t> values(w.values);
  if (checker.first_failure(values) != GuardChecker::npos) {
    state.SkipWithError("a guard fails on the workload's values");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(values.data());
    size_t failure = checker.first_failure(values);
    benchmark::DoNotOptimize(failure);
  }
  report(state, w, &checker);
}
BENCHMARK_CAPTURE(BM_CompiledFirstFailure, mixed, Mix::Mixed);
BENCHMARK_CAPTURE(BM_CompiledFirstFailure, simple, Mix::Simple);

// The compiled checker's full path: Int values (converted to int64 on each call), and the
// explanation it would build on a failure (none here).
void BM_CompiledCheck(benchmark::State& state, Mix mix) {
  const Workload& w = workload(mix);
  GuardChecker checker(w.set);
  std::vector<Int> values;
  for (int64_t v : w.values) values.push_back(Int(static_cast<long>(v)));
  if (checker.check(values)) {
    state.SkipWithError("a guard fails on the workload's values");
    return;
  }
  for (auto _ : state) {
    std::optional<CheckFailure> failure = checker.check(values);
    benchmark::DoNotOptimize(failure);
  }
  report(state, w, &checker);
}
BENCHMARK_CAPTURE(BM_CompiledCheck, mixed, Mix::Mixed);
BENCHMARK_CAPTURE(BM_CompiledCheck, simple, Mix::Simple);

// (a) in the issue: each guard's condition evaluated by substitution (symshape::evaluate over
// GiNaC/CLN), with one Bindings of every source's value built once outside the timing.
void BM_Substitution(benchmark::State& state, Mix mix) {
  const Workload& w = workload(mix);
  Bindings bindings;
  for (size_t i = 0; i < w.values.size(); ++i)
    bindings[w.set.sources[i].identifier] = Int(static_cast<long>(w.values[i]));
  for (const ProducedGuard& g : w.set.guards) {
    if (!evaluate(g.cond, bindings)) {
      state.SkipWithError("a guard fails on the workload's values");
      return;
    }
  }
  for (auto _ : state) {
    bool all = true;
    for (const ProducedGuard& g : w.set.guards) all = all && evaluate(g.cond, bindings);
    benchmark::DoNotOptimize(all);
  }
  report(state, w, nullptr);
}
BENCHMARK_CAPTURE(BM_Substitution, mixed, Mix::Mixed);
BENCHMARK_CAPTURE(BM_Substitution, simple, Mix::Simple);

// SYMSHAPE_DUMP_GUARDS=path: the guards as print_python prints them, one string per guard, and
// the inputs' sizes, for bench/python_guards.py.
int dump(const char* path) {
  nlohmann::ordered_json out;
  for (Mix mix : {Mix::Mixed, Mix::Simple}) {
    const Workload& w = workload(mix);
    nlohmann::ordered_json j;
    j["guards"] = nlohmann::ordered_json::array();
    std::string text = print_python(w.set);
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) j["guards"].push_back(text.substr(start, end - start));
      start = end + 1;
    }
    if (j["guards"].size() != w.set.guards.size()) {
      std::fprintf(stderr, "guards_bench: print_python gave %zu lines for %zu guards\n",
                   j["guards"].size(), w.set.guards.size());
      return 1;
    }
    j["inputs"] = nlohmann::ordered_json::object();
    for (size_t i = 0; i < w.set.sources.size(); ++i)
      j["inputs"][w.set.sources[i].input].push_back(w.values[i]);
    j["mix"] = w.mix;
    out[mix == Mix::Mixed ? "mixed" : "simple"] = j;
  }
  std::ofstream file(path);
  file << out.dump(2) << "\n";
  if (!file) {
    std::fprintf(stderr, "guards_bench: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace symshape

int main(int argc, char** argv) {
  if (const char* path = std::getenv("SYMSHAPE_DUMP_GUARDS")) return symshape::dump(path);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
