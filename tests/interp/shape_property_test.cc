// The shape property test: every shape rule against the interpreter.
//
// For every op case of every kernel family (and every graph under tests/ and examples/ that
// propagates), shape propagation at the default hints gives symbolic shapes and the guards they
// rely on. Random concrete dims inside the symbols' ranges are then accepted iff every guard
// holds at them; at an accepted assignment the interpreter must run, and every node's dtype and
// sizes, and every tensor's strides (on its dims of size > 1), must equal the symbolic ones
// evaluated there. Rejected assignments (some generated to
// break guards on purpose) are only counted.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "symshape/interp.h"
#include "symshape/ops.h"
#include "symshape/propagate.h"
#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {
namespace {

using interp::RunOptions;
using interp::RunResult;

// Targets with a shape rule that need neither a kernel nor a case, and why. Keep it tiny.
const std::map<std::string, std::string> kExempt = {};

struct Family {
  const char* name;
  std::vector<OpCase> (*cases)();
};

const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"elementwise", elementwise_cases},
      {"reductions", reductions_cases},
      {"complex", complex_cases},
      {"views", views_cases},
      {"indexing", indexing_cases},
      {"linalg", linalg_cases},
      {"conv_pool", conv_pool_cases},
      {"norm", norm_cases},
      {"creation", creation_cases},
      {"symbolic", symbolic_cases},
      {"data_dependent", data_dependent_cases},
      {"collectives", collectives_cases},
      {"structured", structured_cases},
      {"coverage", coverage_cases},
  };
  return all;
}

std::vector<std::pair<std::string, OpCase>> all_named_cases() {
  std::vector<std::pair<std::string, OpCase>> out;
  for (const Family& f : families()) {
    for (OpCase& c : f.cases()) out.emplace_back(f.name, std::move(c));
  }
  return out;
}

Graph build_graph(const OpCase& c) { return graph_of(c.inputs, c.calls, c.dims); }

// The named dims of a graph: in its shapes, strides, arguments and declarations.
std::vector<std::string> dim_names(const Graph& g) {
  std::set<std::string> names;
  std::function<void(const Arg&)> visit = [&](const Arg& a) {
    if (a.kind == Arg::Kind::Int) {
      for (const std::string& s : a.integer.free_symbols()) names.insert(s);
    }
    for (const Arg& item : a.items) visit(item);
  };
  for (const Node& n : g.nodes) {
    for (const auto* list : {&n.shape, &n.stride}) {
      if (!*list) continue;
      for (const Expr& e : **list) {
        for (const std::string& s : e.free_symbols()) names.insert(s);
      }
    }
    for (const Arg& a : n.args) visit(a);
    for (const auto& [k, a] : n.kwargs) visit(a);
  }
  for (const auto& [name, d] : g.dims) names.insert(name);
  return {names.begin(), names.end()};
}

struct Tally {
  size_t accepted = 0, rejected = 0, random_accepted = 0, sizes_checked = 0, strides_checked = 0;
  // Rejected assignments, run anyway: where the kernels fail or disagree with the symbolic
  // shapes (the guard was needed), and where they would have been fine (a guard that is
  // sufficient but not necessary, such as a specialization).
  size_t rejected_different = 0, rejected_fine = 0;
  size_t runtime_assert_failures = 0;  // runs refused by a false runtime assert
};

// Checks one graph: propagation at the hints, then random assignments. Failures are reported
// with `label`; returns the tally.
Tally check_graph(const std::string& label, const Graph& g, int wanted, int max_tries,
                  int64_t max_dim, uint64_t seed, bool require_propagation, bool run_hints) {
  Tally tally;
  ShapeEnv env;
  Propagation p = propagate(g, env);
  if (!p.ok()) {
    if (require_propagation) ADD_FAILURE() << label << ": propagation failed: " << p.error;
    return tally;
  }
  const std::vector<std::string> names = dim_names(g);
  auto decl_of = [&](const std::string& name) {
    const DimDecl* d = g.dim(name);
    return d ? *d : DimDecl{};
  };
  // The backed symbols by name; names the env specialized to constants keep their hint.
  std::mt19937_64 rng(seed);
  auto random_value = [&](const std::string& name, bool wide) -> Int {
    DimDecl d = decl_of(name);
    int64_t lo = 2, hi = max_dim;
    if (d.min) {
      if (auto m = to_int64(*d.min)) lo = std::max<int64_t>(lo, *m);
    }
    if (d.max) {
      if (auto m = to_int64(*d.max)) hi = std::min<int64_t>(hi, *m);
    }
    if (wide) {
      lo = 0;  // sizes that break `>= 2` guards and ranges on purpose
      hi = std::max<int64_t>(hi, 3) + 2;
    }
    if (hi < lo) hi = lo;
    return Int(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  };

  auto assignment_for = [&](int attempt) {
    const bool wide = attempt % 5 == 4;  // every fifth try may break guards
    Bindings values;
    for (const std::string& name : names) {
      if (!env.has_symbol(name)) values[name] = default_hint(decl_of(name));
    }
    // Symbols in creation order: a replaced symbol follows its replacement (so that equality
    // guards mostly hold); the others are drawn at random.
    for (const SymbolInfo& s : env.symbols()) {
      if (s.kind != SymbolKind::Backed) continue;
      auto r = env.replacements().find(s.name);
      if (r != env.replacements().end() && attempt % 3 != 2) {
        try {
          values[s.name] = evaluate(r->second, values);
          continue;
        } catch (const Error&) {
        }
      }
      values[s.name] = random_value(s.name, wide);
    }
    return values;
  };

  auto accepted = [&](const Bindings& values) {
    for (const SymbolInfo& s : env.symbols()) {
      if (s.kind != SymbolKind::Backed) continue;
      auto it = values.find(s.name);
      if (it == values.end()) return false;
      if (!env.bound(Expr::symbol(s.name)).contains(it->second)) return false;
    }
    for (const Guard& guard : env.guards()) {
      bool unbacked = false;
      for (const std::string& s : guard.cond.free_symbols()) {
        unbacked |= env.has_symbol(s) && env.symbol(s).kind == SymbolKind::Unbacked;
      }
      if (unbacked) continue;
      try {
        if (!evaluate(guard.cond, values)) return false;
      } catch (const Error&) {
        return false;  // e.g. a division by zero at these values
      }
    }
    return true;
  };

  auto run_at = [&](const Bindings& values, uint64_t run_seed) {
    RunOptions o;
    o.seed = run_seed;
    for (const auto& [name, v] : values) {
      if (auto small = to_int64(v)) o.dims[name] = *small;
    }
    RunResult r = interp::run(g, o);
    std::string where;
    for (const auto& [name, v] : values) where += " " + name + "=" + to_string(v);
    ShapeChecker checker(env, values);
    checker.set_check_strides(true);
    auto problem = checker.check(g, p.values, r.values);
    if (!r.ok) {
      // Guards cannot promise what a runtime assert checks (data-dependent sizes): a failure
      // where one of those is false at this run's values is the graph's, not the kernels'.
      if (auto failed = checker.failed_runtime_assert()) {
        ++tally.runtime_assert_failures;
        return;
      }
      ADD_FAILURE() << label << ": the interpreter failed at" << where << ": " << r.error;
      return;
    }
    if (problem) ADD_FAILURE() << label << ": at" << where << ": " << *problem;
    if (auto failed = checker.failed_runtime_assert()) {
      ADD_FAILURE() << label << ": at" << where << " the run succeeded but the runtime assert "
                    << *failed << " is false";
    }
    tally.sizes_checked += checker.checked_sizes();
    tally.strides_checked += checker.checked_strides();
  };

  // The hints themselves (accepted by construction; skipped for graphs whose hints are
  // realistic sizes, too large for the interpreter), then random assignments.
  if (run_hints) {
    Bindings hints;
    for (const std::string& name : names) hints[name] = default_hint(decl_of(name));
    for (const SymbolInfo& s : env.symbols()) {
      if (s.kind == SymbolKind::Backed && s.hint) hints[s.name] = *s.hint;
    }
    if (accepted(hints)) {
      ++tally.accepted;
      run_at(hints, seed);
    }
  }
  for (int attempt = 0; attempt < max_tries && static_cast<int>(tally.random_accepted) < wanted;
       ++attempt) {
    Bindings values = assignment_for(attempt);
    if (!accepted(values)) {
      ++tally.rejected;
      RunOptions o;
      o.seed = seed;
      for (const auto& [name, v] : values) {
        if (auto small = to_int64(v)) o.dims[name] = *small;
      }
      RunResult r = interp::run(g, o);
      ShapeChecker checker(env, values);
      const bool same = r.ok && !checker.check(g, p.values, r.values);
      ++(same ? tally.rejected_fine : tally.rejected_different);
      continue;
    }
    ++tally.accepted;
    ++tally.random_accepted;
    run_at(values, seed + static_cast<uint64_t>(attempt) + 1);
  }
  return tally;
}

TEST(ShapeProperty, EveryOpCase) {
  auto cases = all_named_cases();
  std::set<std::string> seen;
  size_t accepted = 0, rejected = 0, refused = 0, sizes = 0, strides = 0, different = 0;
  uint64_t seed = 1;
  for (const auto& [family, c] : cases) {
    const std::string label = family + "/" + c.name;
    EXPECT_TRUE(seen.insert(c.name).second) << "duplicate case name " << label;
    Graph g = build_graph(c);
    Tally t = check_graph(label, g, 6, 40, 7, seed++, true, true);
    // Cases whose every symbol is pinned (or that have none) accept only the hints.
    bool has_backed = false;
    {
      ShapeEnv env;
      if (propagate(g, env).ok()) {
        for (const SymbolInfo& s : env.symbols()) has_backed |= s.kind == SymbolKind::Backed;
      }
    }
    if (has_backed) {
      EXPECT_GE(t.random_accepted, 1u) << label << ": no random assignment satisfied the guards";
    }
    accepted += t.accepted;
    rejected += t.rejected;
    different += t.rejected_different;
    refused += t.runtime_assert_failures;
    sizes += t.sizes_checked;
    strides += t.strides_checked;
  }
  std::cout << "[ property ] " << cases.size() << " op cases, " << accepted
            << " accepted assignments, " << rejected << " rejected by guards (at " << different
            << " of them the kernels indeed fail or disagree), " << refused
            << " runs refused by a false runtime assert, " << sizes << " sizes and " << strides
            << " tensors' strides checked\n";
  EXPECT_GT(strides, 0u);
}

// The registry entry a call target resolves to (as OpRegistry::find and propagate resolve it).
std::optional<std::string> resolve(const std::set<std::string>& targets, const std::string& t) {
  if (targets.count(t)) return t;
  size_t first = t.find('.'), last = t.rfind('.');
  if (first != std::string::npos && last != first && targets.count(t.substr(0, last))) {
    return t.substr(0, last);
  }
  if (last == std::string::npos) return std::nullopt;
  std::string packet = first != last ? t.substr(0, last) : t;
  std::string overload = first != last ? t.substr(last) : "";
  if (packet.size() > 1 && packet.back() == '_') {
    return resolve(targets, packet.substr(0, packet.size() - 1) + overload);
  }
  return std::nullopt;
}

TEST(ShapeProperty, EveryRuleHasAKernelAndACase) {
  const std::vector<std::string> rules = OpRegistry::instance().targets();
  const std::set<std::string> targets(rules.begin(), rules.end());
  std::set<std::string> exercised;
  for (const auto& [family, c] : all_named_cases()) {
    for (const Call& call : c.calls) {
      if (auto entry = resolve(targets, call.target)) exercised.insert(*entry);
    }
  }
  std::vector<std::string> no_kernel, no_case;
  for (const std::string& t : rules) {
    if (kExempt.count(t)) continue;
    if (!interp::KernelRegistry::instance().find(t)) no_kernel.push_back(t);
    if (!exercised.count(t)) no_case.push_back(t);
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& t : v) s += "\n  " + t;
    return s;
  };
  EXPECT_TRUE(no_kernel.empty()) << no_kernel.size() << " of " << rules.size()
                                 << " targets have no kernel:" << joined(no_kernel);
  EXPECT_TRUE(no_case.empty()) << no_case.size() << " of " << rules.size()
                               << " targets have no op case:" << joined(no_case);
  std::cout << "[ property ] " << rules.size()
            << " targets with a shape rule: " << rules.size() - no_kernel.size()
            << " with a kernel, " << exercised.size() << " exercised by op cases, "
            << kExempt.size() << " exempt\n";
  for (const auto& [t, why] : kExempt) {
    EXPECT_TRUE(targets.count(t)) << "exempt target " << t << " has no rule any more";
  }
}

// PyTorch's Core ATen opset (tests/ops/core_aten_ops.txt): every op in it has a shape rule, a
// kernel and an op case that calls it by that overload, and its cases pass the property check.
TEST(ShapeProperty, CoreAtenOpset) {
  // The table lists atan2's out= form, which a functional graph never calls: its functional
  // form stands in for it.
  const std::map<std::string, std::string> kFunctionalForm = {
      {"aten.atan2.out", "aten.atan2.default"}};
  std::ifstream in(std::string(SYMSHAPE_SOURCE_DIR) + "/tests/ops/core_aten_ops.txt");
  ASSERT_TRUE(in) << "cannot read tests/ops/core_aten_ops.txt";
  std::vector<std::string> ops;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') ops.push_back(line);
  }
  EXPECT_GE(ops.size(), 180u);
  const std::vector<std::string> rules = OpRegistry::instance().targets();
  const std::set<std::string> targets(rules.begin(), rules.end());
  // The cases calling each target, under both spellings of a default overload.
  std::map<std::string, std::vector<const OpCase*>> callers;
  const auto cases = all_named_cases();
  for (const auto& [family, c] : cases) {
    for (const Call& call : c.calls) {
      callers[call.target].push_back(&c);
      const std::string suffix = ".default";
      if (call.target.size() > suffix.size() &&
          call.target.compare(call.target.size() - suffix.size(), suffix.size(), suffix) == 0) {
        callers[call.target.substr(0, call.target.size() - suffix.size())].push_back(&c);
      } else if (std::count(call.target.begin(), call.target.end(), '.') == 1) {
        callers[call.target + suffix].push_back(&c);
      }
    }
  }
  std::vector<std::string> no_rule, no_kernel, no_case;
  size_t covered = 0;
  uint64_t seed = 500;
  for (const std::string& op : ops) {
    auto alias = kFunctionalForm.find(op);
    const std::string target = alias == kFunctionalForm.end() ? op : alias->second;
    const bool rule = resolve(targets, target).has_value();
    const bool kernel = interp::KernelRegistry::instance().find(target) != nullptr;
    auto c = callers.find(target);
    if (!rule) no_rule.push_back(op);
    if (!kernel) no_kernel.push_back(op);
    if (c == callers.end()) no_case.push_back(op);
    if (!rule || !kernel || c == callers.end()) continue;
    ++covered;
    // The first case calling it, at a few more sizes than EveryOpCase draws.
    const OpCase& first = *c->second.front();
    Tally t = check_graph("core " + op + " (" + first.name + ")", build_graph(first), 3, 20, 9,
                          seed++, true, true);
    EXPECT_GE(t.accepted, 1u) << op << ": no assignment of " << first.name << " was run";
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& t : v) s += "\n  " + t;
    return s;
  };
  EXPECT_TRUE(no_rule.empty()) << no_rule.size()
                               << " Core ATen ops have no shape rule:" << joined(no_rule);
  EXPECT_TRUE(no_kernel.empty()) << no_kernel.size()
                                 << " Core ATen ops have no kernel:" << joined(no_kernel);
  EXPECT_TRUE(no_case.empty()) << no_case.size()
                               << " Core ATen ops are called by no op case:" << joined(no_case);
  std::cout << "[ core aten ] " << covered << " of " << ops.size()
            << " Core ATen ops have a shape rule, a kernel and a checked op case\n";
}

TEST(ShapeProperty, EveryGraphInTestsAndExamples) {
  namespace fs = std::filesystem;
  const fs::path root(SYMSHAPE_SOURCE_DIR);
  size_t graphs = 0, checked = 0;
  uint64_t seed = 100;
  // Every JSON file under tests/ (graphs of the propagation, guard and golden tests) and
  // examples/; files that are not graphs (golden outputs, malformed inputs) are skipped.
  for (const char* dir : {"tests", "examples"}) {
    if (!fs::is_directory(root / dir)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      Expected<Graph> g = read_graph_file(file.string());
      if (!g.ok()) continue;
      ++graphs;
      const std::string label = fs::relative(file, root).string();
      const auto start = std::chrono::steady_clock::now();
      Tally t = check_graph(label, *g, 2, 15, 3, seed++, false, false);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cout << "[ property ] " << label << ": " << t.accepted << " runs, " << t.rejected
                << " rejected, " << t.runtime_assert_failures << " refused by runtime asserts ("
                << seconds << " s)\n";
      if (t.accepted > 0) ++checked;
    }
  }
  std::cout << "[ property ] " << graphs << " graphs read, " << checked
            << " propagated and ran at accepted dims\n";
  EXPECT_GE(checked, 5u);
}

}  // namespace
}  // namespace symshape::testing
