// Times the ShapeEnv's decisions: a cached static question, an evaluate that adds a guard, a
// realistic run that records 5,000 guards over 200 symbols, and one decision after N guards (the
// per-decision cost must not grow with N; PyTorch took minutes on such workloads, #128398,
// #123964). Figures: docs/performance.md, "ShapeEnv". `--memory` measures the heap per symbol and
// per guard instead.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <malloc.h>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "symshape/shape_env.h"

namespace symshape {
namespace {

std::string source(size_t i) { return "L['x" + std::to_string(i) + "'].size()[0]"; }

// An env with `count` backed symbols whose hints come from a seeded generator. About one symbol
// in ten repeats an earlier hint (as a separate, dynamic symbol) so that equality guards can
// merge them, and about half the hints are even so that `s % 2 == 0` guards hold.
struct Workload {
  std::unique_ptr<ShapeEnv> env = std::make_unique<ShapeEnv>();
  std::vector<SymInt> syms;
  std::vector<int64_t> hints;
  std::vector<std::pair<size_t, size_t>> equal_pairs;  // symbols with equal hints
  std::vector<size_t> even;                            // symbols with even hints
  std::mt19937_64 rng;

  Workload(size_t count, uint64_t seed) : rng(seed) {
    for (size_t i = 0; i < count; ++i) {
      int64_t hint = 2 + static_cast<int64_t>(rng() % 1023);
      if (i > 0 && rng() % 10 == 0) {
        size_t j = rng() % i;
        hint = hints[j];
        equal_pairs.emplace_back(j, i);
      }
      syms.push_back(env->create_symbol(hint, source(i), DimPolicy::Dynamic));
      hints.push_back(hint);
      if (hint % 2 == 0) even.push_back(i);
    }
  }

  size_t any() { return rng() % syms.size(); }
  int64_t small(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % (hi - lo + 1)); }

  // One decision of the kinds shape rules ask: pairwise comparisons with an offset, a scaled
  // comparison, divisibility on an even hint, an equality between symbols of equal hints.
  SymBool next_question() {
    size_t i = any(), j = any();
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2:
      case 3: return syms[i] < syms[j] + small(-8, 8);
      case 4:
      case 5: return syms[i] * 2 <= syms[j];
      case 6:
        if (!even.empty()) return mod(syms[even[rng() % even.size()]], 2) == 0;
        return syms[i] > 3;
      case 7:
        if (!equal_pairs.empty()) {
          auto [a, b] = equal_pairs[rng() % equal_pairs.size()];
          return syms[a] == syms[b];
        }
        return syms[i] != syms[j];
      case 8: return syms[i] + syms[j] <= syms[any()] + small(0, 64);
      default: return floordiv(syms[i], 2) < syms[j];
    }
  }

  // Asks questions until `guards` guards are recorded (or a cap is hit); returns how many.
  size_t run_until(size_t guards) {
    size_t asked = 0;
    while (env->guards().size() < guards && asked < 20 * guards) {
      env->evaluate(next_question(), {"n" + std::to_string(asked), "aten.bench", "bench"});
      ++asked;
    }
    return asked;
  }
};

// statically_known_true on a question the env has answered before.
void BM_StaticallyKnownTrueWarm(benchmark::State& state) {
  Workload w(16, 1);
  w.env->evaluate(w.syms[0] < w.syms[1] + 100);
  w.env->evaluate(mod(w.syms[w.even.empty() ? 0 : w.even[0]], 2) == 0);
  SymBool q = w.syms[0] * 2 < w.syms[1] * 2 + 200;
  w.env->statically_known_true(q);  // warm the cache
  for (auto _ : state) benchmark::DoNotOptimize(w.env->statically_known_true(q));
  state.counters["guards"] = static_cast<double>(w.env->guards().size());
}
BENCHMARK(BM_StaticallyKnownTrueWarm);

// The same static question asked cold: the cost of simplify + prove without the cache.
void BM_StaticallyKnownTrueCold(benchmark::State& state) {
  Workload w(16, 1);
  w.env->evaluate(w.syms[0] < w.syms[1] + 100);
  int64_t k = 200;
  for (auto _ : state) {
    // A new constant each time, so the cache never answers.
    benchmark::DoNotOptimize(w.env->statically_known_true(w.syms[0] * 2 < w.syms[1] * 2 + k));
    ++k;
  }
}
BENCHMARK(BM_StaticallyKnownTrueCold);

// evaluate() on a question nobody can decide statically: decided on the hints, guard recorded,
// learned. Each batch gets a fresh env (built with the timer paused); each question is about a
// pair of symbols no earlier question touched, so every one adds exactly one guard.
void BM_EvaluateAddsGuard(benchmark::State& state) {
  constexpr size_t kBatch = 32;
  std::unique_ptr<Workload> w;
  size_t used = kBatch;
  int64_t guards = 0;
  for (auto _ : state) {
    if (used == kBatch) {
      state.PauseTiming();
      w = std::make_unique<Workload>(2 * kBatch, 7);
      used = 0;
      state.ResumeTiming();
    }
    const SymInt& a = w->syms[2 * used];
    const SymInt& b = w->syms[2 * used + 1];
    benchmark::DoNotOptimize(w->env->evaluate(a < b + 3));
    ++used;
    if (used == kBatch) {
      state.PauseTiming();
      guards += static_cast<int64_t>(w->env->guards().size());
      w.reset();
      state.ResumeTiming();
    }
  }
  if (w) guards += static_cast<int64_t>(w->env->guards().size());
  if (guards != static_cast<int64_t>(state.iterations())) {
    state.SkipWithError("an evaluate did not add exactly one guard");
  }
}
BENCHMARK(BM_EvaluateAddsGuard);

// Envs with N guards recorded, built once per N and shared by the benchmarks below.
std::unique_ptr<Workload>& env_slot(size_t n) {
  static std::map<size_t, std::unique_ptr<Workload>> built;
  return built[n];
}

Workload& env_with_guards(size_t n) {
  std::unique_ptr<Workload>& slot = env_slot(n);
  if (!slot) {
    slot = std::make_unique<Workload>(200, 42);
    slot->run_until(n);
  }
  return *slot;
}

// The realistic run: 200 symbols, questions until 5,000 guards are recorded. Reports the time
// per decision (every evaluate call, static answers included) and per guard.
void BM_FiveThousandGuards(benchmark::State& state) {
  const size_t target = static_cast<size_t>(state.range(0));
  size_t asked = 0, guards = 0, replacements = 0;
  std::unique_ptr<Workload> last;
  for (auto _ : state) {
    state.PauseTiming();
    last = std::make_unique<Workload>(200, 42);
    state.ResumeTiming();
    asked += last->run_until(target);
    state.PauseTiming();
    guards += last->env->guards().size();
    replacements += last->env->replacements().size();
    state.ResumeTiming();
  }
  // The env it built is the one env_with_guards(target) would build: keep it.
  if (last && !env_slot(target)) env_slot(target) = std::move(last);
  const double runs = static_cast<double>(state.iterations());
  state.counters["decisions"] = static_cast<double>(asked) / runs;
  state.counters["guards"] = static_cast<double>(guards) / runs;
  state.counters["replacements"] = static_cast<double>(replacements) / runs;
  state.counters["time_per_decision"] = benchmark::Counter(
      static_cast<double>(asked), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["time_per_guard"] = benchmark::Counter(
      static_cast<double>(guards), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FiveThousandGuards)->Arg(5000)->Unit(benchmark::kMillisecond)->Iterations(1);

// One static decision about two symbols after N guards: time must stay flat as N grows.
void BM_KnownAfterGuards(benchmark::State& state) {
  Workload& w = env_with_guards(static_cast<size_t>(state.range(0)));
  // Static, so that repetitions ask new questions rather than read the cache.
  static std::mt19937_64 rng(5);
  static int64_t k = 1000;
  int64_t unknown = 0;
  for (auto _ : state) {
    size_t i = rng() % w.syms.size(), j = rng() % w.syms.size();
    // A fresh constant each time, so the cache never answers.
    unknown += w.env->known(w.syms[i] * 3 < w.syms[j] * 2 + k) == Truth::Unknown;
    ++k;
  }
  state.counters["guards"] = static_cast<double>(w.env->guards().size());
  state.counters["unknown"] =
      static_cast<double>(unknown) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_KnownAfterGuards)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMicrosecond);

// One evaluate() about two symbols after N guards; most add a guard (counted). The env grows by
// the guards added, so the iteration count is fixed and small next to N.
void BM_EvaluateAfterGuards(benchmark::State& state) {
  Workload& w = env_with_guards(static_cast<size_t>(state.range(0)));
  const size_t before = w.env->guards().size();
  static std::mt19937_64 rng(9);  // static: repetitions ask new questions
  for (auto _ : state) {
    size_t i = rng() % w.syms.size(), j = rng() % w.syms.size();
    int64_t k = static_cast<int64_t>(rng() % 17) - 8;
    benchmark::DoNotOptimize(w.env->evaluate(w.syms[i] * 3 < w.syms[j] * 2 + k));
  }
  state.counters["guards_added"] = static_cast<double>(w.env->guards().size() - before);
  state.counters["guards"] = static_cast<double>(before);
}
BENCHMARK(BM_EvaluateAfterGuards)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Iterations(100)
    ->Unit(benchmark::kMicrosecond);

// One more decision `s_a + c OP s_b` after N such questions were asked of a 200-symbol env, OP
// drawn from the first `relations` of <, <=, >, >=, ==, !=. Counts the guards the N questions
// recorded and the ones the timed decisions added.
void time_difference_decisions(benchmark::State& state, unsigned relations, uint64_t seed) {
  const size_t asked = static_cast<size_t>(state.range(0));
  Workload w(200, seed);
  auto question = [&w, relations]() {
    const size_t a = w.any(), b = (a + 1 + w.rng() % (w.syms.size() - 1)) % w.syms.size();
    const SymInt lhs = w.syms[a] + w.small(-8, 8);
    switch (w.rng() % relations) {
      case 0: return lhs < w.syms[b];
      case 1: return lhs <= w.syms[b];
      case 2: return lhs > w.syms[b];
      case 3: return lhs >= w.syms[b];
      case 4: return lhs == w.syms[b];
      default: return lhs != w.syms[b];
    }
  };
  for (size_t i = 0; i < asked; ++i) w.env->evaluate(question());
  const size_t before = w.env->guards().size();
  for (auto _ : state) {
    state.PauseTiming();
    SymBool q = question();
    state.ResumeTiming();
    benchmark::DoNotOptimize(w.env->evaluate(q));
  }
  state.counters["guards"] = static_cast<double>(before);
  state.counters["guards_added"] = static_cast<double>(w.env->guards().size() - before);
}

// The peer workload's kind of question (difference constraints, the four orders): each is
// answered from the difference closure, so the time per decision must not grow with N.
void BM_DifferenceDecisionsAfter(benchmark::State& state) {
  time_difference_decisions(state, 4, 11);
}
BENCHMARK(BM_DifferenceDecisionsAfter)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Iterations(2000)
    ->Unit(benchmark::kMicrosecond);

// The same with all six relations (`==` and `!=` too, as Dynamo's guards are): disequalities are
// indexed by their pair of symbols, so a decision reads only its pair's, and the time per
// decision must not grow with N either.
void BM_SixRelationDecisionsAfter(benchmark::State& state) {
  time_difference_decisions(state, 6, 13);
}
BENCHMARK(BM_SixRelationDecisionsAfter)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Iterations(2000)
    ->Unit(benchmark::kMicrosecond);

// `--workload FILE` (bench/peer/run.py): the guard workload of the side-by-side with PyTorch.
// FILE holds `symbols N`, a line of N hints, then one condition per line, `a c OP b` for
// `s_a + c OP s_b` (OP one of < <= > >= == !=). Each is given to evaluate() in order; prints
// one answer per line (true / false) and, on stderr, the CPU time of the evaluate loop.
int workload_main(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) {
    std::fprintf(stderr, "bench_shape_env: cannot read %s\n", path);
    return 2;
  }
  auto fail = [&](const char* what) {
    std::fprintf(stderr, "bench_shape_env: %s: %s\n", path, what);
    std::fclose(f);
    return 2;
  };
  size_t n = 0;
  if (std::fscanf(f, " symbols %zu", &n) != 1 || n == 0 || n > 1000000) return fail("bad header");
  ShapeEnv env;
  std::vector<SymInt> syms;
  for (size_t i = 0; i < n; ++i) {
    long long hint = 0;
    if (std::fscanf(f, " %lld", &hint) != 1 || hint < 0) return fail("bad hint");
    syms.push_back(
        env.create_symbol(Int(static_cast<int64_t>(hint)), source(i), DimPolicy::Dynamic));
  }
  std::vector<SymBool> questions;
  size_t a = 0, b = 0;
  long long c = 0;
  char op[3] = {};
  while (std::fscanf(f, " %zu %lld %2s %zu", &a, &c, op, &b) == 4) {
    if (a >= n || b >= n) return fail("symbol index out of range");
    const SymInt lhs = syms[a] + static_cast<int64_t>(c);
    const std::string o = op;
    if (o == "<") {
      questions.push_back(lhs < syms[b]);
    } else if (o == "<=") {
      questions.push_back(lhs <= syms[b]);
    } else if (o == ">") {
      questions.push_back(lhs > syms[b]);
    } else if (o == ">=") {
      questions.push_back(lhs >= syms[b]);
    } else if (o == "==") {
      questions.push_back(lhs == syms[b]);
    } else if (o == "!=") {
      questions.push_back(lhs != syms[b]);
    } else {
      return fail("bad operator");
    }
  }
  if (!std::feof(f)) return fail("malformed condition line");
  std::fclose(f);
  std::vector<char> answers;
  answers.reserve(questions.size());
  timespec t0{}, t1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (const SymBool& q : questions) answers.push_back(env.evaluate(q) ? 1 : 0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  std::string out;
  for (char v : answers) out += v ? "true\n" : "false\n";
  std::fputs(out.c_str(), stdout);
  const double seconds = static_cast<double>(t1.tv_sec - t0.tv_sec) +
                         static_cast<double>(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  std::fprintf(stderr, "cpu_seconds %.6f conditions %zu guards %zu\n", seconds, questions.size(),
               env.guards().size());
  return 0;
}

// `--memory`: the heap a ShapeEnv holds per symbol and per guard, as glibc's allocator counts
// the bytes in use (mallinfo2) before and after. Symbols: created with hints, the handles
// dropped. Guards: Workload's questions over 200 or 1,000 symbols until N guards are recorded
// (the env's facts, its difference closure, its caches and the questions' own expressions).
// One JSON line per measurement.
int memory_main() {
  auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd);
  };
  for (size_t symbols : {1000, 10000}) {
    const double before = in_use();
    ShapeEnv env;
    std::mt19937_64 rng(7);
    for (size_t i = 0; i < symbols; ++i) {
      env.create_symbol(2 + static_cast<int64_t>(rng() % 1023), source(i), DimPolicy::Dynamic);
    }
    std::printf("{\"symbols\": %zu, \"bytes_per_symbol\": %.0f}\n", symbols,
                (in_use() - before) / static_cast<double>(symbols));
  }
  for (size_t symbols : {200, 1000}) {
    for (size_t guards : {1000, 5000}) {
      Workload w(symbols, 42);
      const double before = in_use();
      const size_t asked = w.run_until(guards);
      const size_t recorded = w.env->guards().size();
      std::printf(
          "{\"symbols\": %zu, \"questions\": %zu, \"guards\": %zu, \"bytes_per_guard\": %.0f}\n",
          symbols, asked, recorded, (in_use() - before) / static_cast<double>(recorded));
    }
  }
  return 0;
}

}  // namespace
}  // namespace symshape

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--workload") == 0) {
    return symshape::workload_main(argv[2]);
  }
  if (argc == 2 && std::strcmp(argv[1], "--memory") == 0) return symshape::memory_main();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
