// Shared by the pass tests: load a small graph, lower it through the PassManager with every check
// on (numerics at several sizes included), compare the result with a golden file, and check that
// the lowered graph keeps the input's symbolic dims and added no guard.
//
// SYMSHAPE_UPDATE_GOLDEN=1 rewrites tests/golden/passes/*.after.json from the current output
// instead of comparing; review every changed file before keeping it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "symshape/ir.h"
#include "symshape/passes.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape::pass_test {

inline const std::filesystem::path& source_dir() {
  static const std::filesystem::path dir = SYMSHAPE_SOURCE_DIR;
  return dir;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A graph from JSON text; throws (failing the test) when it does not read.
inline Graph parse_graph(std::string_view json) {
  Expected<Graph> g = read_graph(json);
  if (!g) throw std::runtime_error("test graph does not read: " + g.error());
  return *g;
}

// tests/passes/graphs/<name>.json
inline Graph load_graph(const std::string& name) {
  const std::filesystem::path path = source_dir() / "tests/passes/graphs" / (name + ".json");
  Expected<Graph> g = read_graph_file(path.string());
  if (!g) throw std::runtime_error("test graph does not read: " + g.error());
  return *g;
}

// The graph examples/<name> of the repository.
inline Graph example(const std::string& name) {
  Expected<Graph> g = read_graph_file((source_dir() / "examples" / name).string());
  if (!g) throw std::runtime_error(g.error());
  return *g;
}

// The symbols the shapes of a graph's placeholders mention.
inline std::set<std::string> placeholder_symbols(const Graph& g) {
  std::set<std::string> out;
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::Placeholder || !n.shape) continue;
    for (const Expr& e : *n.shape)
      for (const std::string& s : e.free_symbols()) out.insert(s);
  }
  return out;
}

// Node names in order.
inline std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.push_back(n.name);
  return out;
}

inline bool has_node(const Graph& g, std::string_view name) { return g.find(name) != nullptr; }

inline size_t count_target(const Graph& g, std::string_view target) {
  size_t n = 0;
  for (const Node& node : g.nodes) n += node.target == target;
  return n;
}

// One PassManager run under a fresh ShapeEnv, with what a test wants to look at.
struct Lowered {
  LowerResult result;
  size_t guards = 0;        // the env's guards after lowering
  size_t input_guards = 0;  // the guards propagating the input alone records
  std::string dump;         // what dump_before / dump_after printed

  const PassReport& report(size_t i = 0) const { return result.reports.at(i); }
  size_t counter(const std::string& name, size_t i = 0) const {
    auto it = report(i).stats.counters.find(name);
    return it == report(i).stats.counters.end() ? 0 : it->second;
  }
};

inline Lowered lower(const Graph& input, const std::vector<std::string>& passes,
                     bool verify_numerics = true, PassManagerOptions options = {}) {
  Lowered out;
  std::ostringstream dump;
  options.verify_numerics = verify_numerics;
  if (!options.dump) options.dump = &dump;
  PassManager manager(PassRegistry::standard(), options);
  // A pass may carry options: `decompose{only=linear}`.
  for (const std::string& p : passes) {
    Expected<std::vector<PassSpec>> specs = parse_pass_list(p, PassRegistry::standard());
    if (!specs) throw std::runtime_error(specs.error());
    for (const PassSpec& spec : *specs) manager.add(spec);
  }
  ShapeEnv env;
  out.result = manager.run(input, env);
  out.guards = env.guards().size();
  ShapeEnv plain;
  propagate(input, plain, options.propagate);
  out.input_guards = plain.guards().size();
  out.dump = dump.str();
  return out;
}

// Compares the canonical JSON of `g` with tests/golden/passes/<name>.after.json.
inline void expect_golden_graph(const std::string& name, const Graph& g) {
  const std::filesystem::path path = source_dir() / "tests/golden/passes" / (name + ".after.json");
  const std::string actual = write_graph(g);
  const char* update = std::getenv("SYMSHAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing; run with SYMSHAPE_UPDATE_GOLDEN=1 to create it, then review it";
  EXPECT_EQ(actual, read_text(path))
      << "the lowered graph differs from " << path << " (SYMSHAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// What every pass promises on a graph with dynamic dims: it succeeds, the lowered graph reads
// back and propagates, every placeholder symbol of the input is still a placeholder symbol (and
// still a declared dim), no guard was added, and the numbers were compared at `numeric_runs`
// sizes (the hints and two more per dim) when the pass changed something.
// g with each dim's hint just above the bottom of its range and the range cut to six values, so
// that --verify-numerics' reference runs on a bundled example stay small (its symbols, ops and
// guards are the same).
inline Graph with_small_dims(Graph g) {
  for (auto& [name, d] : g.dims) {
    const int64_t lo = d.min ? to_int64(*d.min).value_or(1) : 1;
    const int64_t hi = d.max ? to_int64(*d.max).value_or(lo + 5) : lo + 5;
    d.max = Int(std::min(hi, lo + 5));
    d.hint = Int(std::min(hi, lo + 1));
  }
  return g;
}

inline void expect_sound(const Graph& input, const Lowered& l, size_t numeric_runs) {
  ASSERT_TRUE(l.result.ok) << l.result.error;
  const Graph& out = l.result.graph;
  EXPECT_EQ(placeholder_symbols(out), placeholder_symbols(input));
  for (const std::string& s : placeholder_symbols(input)) {
    EXPECT_NE(out.dim(s), nullptr) << "the lowered graph no longer declares dim " << s;
  }
  EXPECT_EQ(l.guards, l.input_guards) << "lowering added a guard";
  for (const PassReport& r : l.result.reports) {
    EXPECT_TRUE(r.guards_added.empty()) << r.pass << " added a guard";
    if (r.stats.changed()) {
      EXPECT_EQ(r.numeric_runs, numeric_runs) << r.pass;
    }
  }
  Expected<Graph> back = read_graph(write_graph(out));
  ASSERT_TRUE(back.ok()) << back.error();
  ShapeEnv env;
  Propagation p = propagate(*back, env);
  EXPECT_TRUE(p.ok()) << p.error;
}

}  // namespace symshape::pass_test
