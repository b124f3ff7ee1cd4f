// Structural fuzzing of shape propagation: every example graph, mutated thousands of times with a
// fixed seed (arguments changed, swapped, dropped or retyped; targets swapped for other
// registered ops; input sizes and dtypes changed; references renamed), must propagate to Ok, a
// ShapeError or an InputError. A crash, an abort, a sanitizer report or an escaping exception is
// a bug in a shape rule.
//
// SYMSHAPE_FUZZ_TRACE=1 prints each mutated graph before it runs, to replay a crash;
// SYMSHAPE_FUZZ_ROUNDS=N and SYMSHAPE_FUZZ_SEED=N run a longer or different hunt locally.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/ir.h"
#include "symshape/ops.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"
#include "tests/propagate/propagate_test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SYMSHAPE_FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYMSHAPE_FUZZ_SANITIZED 1
#endif
#endif

namespace symshape {
namespace {

namespace fs = std::filesystem;

// Sanitized builds run several times slower: fewer rounds keep the test to a few seconds there.
#ifdef SYMSHAPE_FUZZ_SANITIZED
constexpr int kRoundsPerGraph = 100;
#else
constexpr int kRoundsPerGraph = 1500;
#endif

using propagate_test::read_text;

// The graphs to mutate: the examples and the propagate test graphs that read cleanly.
std::vector<std::pair<std::string, Graph>> seed_graphs() {
  std::vector<std::pair<std::string, Graph>> out;
  const fs::path root = SYMSHAPE_SOURCE_DIR;
  for (const fs::path& dir : {root / "examples", root / "tests/propagate/graphs"}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // a fixed order, for a reproducible run
    for (const fs::path& f : files) {
      Expected<Graph> g = read_graph(read_text(f));
      if (g) out.emplace_back(f.filename().string(), std::move(g).value());
    }
  }
  return out;
}

// A deterministic source of choices (std distributions differ between standard libraries).
class Dice {
 public:
  explicit Dice(uint64_t seed) : rng_(seed) {}
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

 private:
  std::mt19937_64 rng_;
};

// Every argument slot of a node, nested list items included, so a mutation can reach any.
void collect_args(std::vector<Arg>& args, std::vector<Arg*>& out) {
  for (Arg& a : args) {
    out.push_back(&a);
    if (a.kind == Arg::Kind::List) collect_args(a.items, out);
  }
}

std::vector<Arg*> all_args(Node& n) {
  std::vector<Arg*> out;
  collect_args(n.args, out);
  for (auto& [key, a] : n.kwargs) {
    out.push_back(&a);
    if (a.kind == Arg::Kind::List) collect_args(a.items, out);
  }
  return out;
}

class Mutator {
 public:
  Mutator(const Graph& g, Dice& dice) : dice_(dice) {
    for (const auto& [name, d] : g.dims) symbols_.push_back(name);
    symbols_.push_back("fresh");  // a dim no declaration mentions
    for (const Node& n : g.nodes) names_.push_back(n.name);
    names_.push_back("no_such_node");
  }

  // A size: small and edge-case constants, symbols, expressions that may be negative or zero.
  Expr size() {
    const Expr s = Expr::symbol(dice_.pick(symbols_));
    switch (dice_.below(12)) {
      case 0: return Expr(0);
      case 1: return Expr(1);
      case 2: return Expr(-1);
      case 3: return Expr(-2);
      case 4: return Expr(Int(1) << 62);
      case 5: return Expr(Int(1) << 80);  // beyond int64
      case 6: return s;
      case 7: return s - 100;
      case 8: return s * s;
      case 9: return floordiv(s, Expr(3));
      case 10: return Expr(static_cast<long>(dice_.below(9)));
      default: return Expr(static_cast<long>(dice_.below(4096)));
    }
  }

  DType dtype() {
    return static_cast<DType>(dice_.below(static_cast<size_t>(DType::Complex128) + 1));
  }

  // A replacement for an argument: any kind, any value.
  Arg arg() {
    Arg a;
    switch (dice_.below(10)) {
      case 0: return Arg::none();
      case 1:
        a.kind = Arg::Kind::Bool;
        a.boolean = dice_.chance(50);
        return a;
      case 2:
        a.kind = Arg::Kind::Float;
        a.real = dice_.chance(50) ? 0.5 : -1e300;
        return a;
      case 3:
        a.kind = Arg::Kind::String;
        a.text = dice_.chance(50) ? "sum" : "bogus";
        return a;
      case 4:
        a.kind = Arg::Kind::DType;
        a.dtype = dtype();
        return a;
      case 5: return Arg::node(dice_.pick(names_));
      case 6: {
        std::vector<Arg> items;
        for (size_t k = dice_.below(5); k > 0; --k) items.push_back(Arg::of_int(size()));
        return Arg::list(std::move(items));
      }
      case 7: return Arg::list({});
      default: return Arg::of_int(size());
    }
  }

  void mutate(Graph& g, const std::vector<std::string>& targets) {
    if (g.nodes.empty()) return;
    Node& n = g.nodes[dice_.below(g.nodes.size())];
    std::vector<Arg*> args = all_args(n);
    switch (dice_.below(11)) {
      case 0: {  // change an int argument
        std::vector<Arg*> ints;
        for (Arg* a : args) {
          if (a->kind == Arg::Kind::Int) ints.push_back(a);
        }
        if (!ints.empty()) dice_.pick(ints)->integer = size();
        break;
      }
      case 1:  // swap two positional arguments
        if (n.args.size() >= 2)
          std::swap(n.args[dice_.below(n.args.size())], n.args[dice_.below(n.args.size())]);
        break;
      case 2:  // drop an argument
        if (!n.args.empty() && dice_.chance(70)) {
          n.args.erase(n.args.begin() + static_cast<long>(dice_.below(n.args.size())));
        } else if (!n.kwargs.empty()) {
          n.kwargs.erase(n.kwargs.begin() + static_cast<long>(dice_.below(n.kwargs.size())));
        }
        break;
      case 3:  // another registered op, as a packet or an overload
        if (n.op == NodeOp::CallFunction) {
          n.target = dice_.pick(targets);
          if (dice_.chance(15) && n.target.starts_with("aten.")) {
            n.target += "_.default";  // the in-place form, which must keep self's shape
          } else if (dice_.chance(30)) {
            n.target += ".default";
          }
        }
        break;
      case 4:  // one dim of an input
        if (n.shape && !n.shape->empty()) (*n.shape)[dice_.below(n.shape->size())] = size();
        break;
      case 5:  // an input's rank
        if (n.shape) {
          if (dice_.chance(50) && !n.shape->empty()) {
            n.shape->pop_back();
          } else {
            n.shape->push_back(size());
          }
        }
        break;
      case 6:  // a dtype: the node's own, or a dtype argument
        if (n.dtype || dice_.chance(50)) {
          n.dtype = dtype();
        } else {
          for (Arg* a : args) {
            if (a->kind == Arg::Kind::DType) a->dtype = dtype();
          }
        }
        break;
      case 7: {  // rename a reference
        std::vector<Arg*> refs;
        for (Arg* a : args) {
          if (a->kind == Arg::Kind::Node) refs.push_back(a);
        }
        if (!refs.empty()) dice_.pick(refs)->text = dice_.pick(names_);
        break;
      }
      case 8:  // replace any argument by anything
        if (!args.empty()) *dice_.pick(args) = arg();
        break;
      case 9:  // an extra argument, positional or keyword
        if (dice_.chance(50)) {
          n.args.push_back(arg());
        } else {
          n.kwargs.emplace_back(
              dice_.pick(std::vector<std::string>{"dim", "keepdim", "dtype", "size", "out"}),
              arg());
        }
        break;
      default:  // a declared shape on a call that may disagree with its rule
        if (n.op == NodeOp::CallFunction) {
          n.dtype = dtype();
          n.shape = std::vector<Expr>{size(), size()};
        }
        break;
    }
  }

 private:
  Dice& dice_;
  std::vector<std::string> symbols_;
  std::vector<std::string> names_;
};

TEST(PropagateFuzz, MutatedGraphsNeverCrashOrThrow) {
  const bool trace = std::getenv("SYMSHAPE_FUZZ_TRACE") != nullptr;
  const char* rounds_env = std::getenv("SYMSHAPE_FUZZ_ROUNDS");
  const char* seed_env = std::getenv("SYMSHAPE_FUZZ_SEED");
  const int rounds = rounds_env ? std::atoi(rounds_env) : kRoundsPerGraph;
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 0x5eed0000;
  const std::vector<std::string> targets = OpRegistry::instance().targets();
  ASSERT_FALSE(targets.empty());
  auto seeds = seed_graphs();
  ASSERT_GE(seeds.size(), 5u) << "the examples were not found under " << SYMSHAPE_SOURCE_DIR;

  size_t counts[3] = {0, 0, 0};
  double slowest = 0;  // seconds, of one propagation
  std::string slowest_graph;
  for (size_t s = 0; s < seeds.size(); ++s) {
    const auto& [name, base] = seeds[s];
    Dice dice(seed + s);
    Mutator mutator(base, dice);
    for (int round = 0; round < rounds; ++round) {
      Graph g = base;
      for (size_t k = 1 + dice.below(3); k > 0; --k) mutator.mutate(g, targets);
      if (trace) std::cerr << "== " << name << " round " << round << "\n" << write_graph(g);
      ShapeEnv env;
      Propagation p;
      const auto start = std::chrono::steady_clock::now();
      try {
        p = propagate(g, env);
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " round " << round << ": propagate threw: " << e.what() << "\n"
                      << write_graph(g);
        continue;
      } catch (...) {
        ADD_FAILURE() << name << " round " << round << ": propagate threw a non-std exception\n"
                      << write_graph(g);
        continue;
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (seconds > slowest) {
        slowest = seconds;
        slowest_graph = name + " round " + std::to_string(round);
      }
      ++counts[static_cast<int>(p.status)];
      if (!p.ok()) {
        EXPECT_FALSE(p.error.empty()) << name << " round " << round << "\n" << write_graph(g);
        EXPECT_LE(p.failed_node, g.nodes.size());
      } else {
        EXPECT_EQ(p.values.size(), g.nodes.size());
      }
    }
  }
  // The mutations must reach all three outcomes, or they are not exercising the rules.
  EXPECT_GT(counts[0], 0u) << "no mutated graph propagated";
  EXPECT_GT(counts[1], 0u) << "no mutated graph gave a shape error";
  EXPECT_GT(counts[2], 0u) << "no mutated graph gave an input error";
  std::cout << "[ fuzz ] ok " << counts[0] << ", shape errors " << counts[1] << ", input errors "
            << counts[2] << "; slowest " << slowest << " s (" << slowest_graph << ")\n";
  // A rule that loops over a size (split, unbind) must refuse huge ones rather than hang.
  EXPECT_LT(slowest, 10.0) << slowest_graph;
}

// Every registered op on odd arguments: 0-dim, empty and symbolic tensors; dims 0, -1 and out of
// range; empty, huge and negative sizes; missing and extra arguments. Each must give Ok or a
// clean error, never a crash (rank-0 tensors and out-of-range dims are where indexing slips).
TEST(PropagateFuzz, EveryOpOnOddArgumentsNeverCrashes) {
  Graph base;
  base.dims.emplace_back("n", DimDecl{Int(1), Int(64), Int(8)});
  auto input = [&](const std::string& name, DType dtype, std::vector<Expr> shape) {
    Node n;
    n.name = name;
    n.op = NodeOp::Placeholder;
    n.dtype = dtype;
    n.shape = std::move(shape);
    base.nodes.push_back(std::move(n));
  };
  const Expr sym_n = Expr::symbol("n");
  input("scalar", DType::Float32, {});
  input("vector", DType::Float32, {sym_n});
  input("matrix", DType::Int64, {sym_n, Expr(3)});
  input("empty", DType::Bool, {Expr(0), Expr(2)});
  input("cube", DType::Complex64, {Expr(2), sym_n, Expr(1)});
  // Splitting or unbinding this must be refused, not attempted.
  input("huge", DType::Float16, {Expr(Int(1) << 62), Expr(2)});

  auto I = [](long v) { return Arg::of_int(Expr(v)); };
  const std::vector<Arg> extras = {
      I(0),
      I(-1),
      I(1),
      I(7),
      Arg::of_int(Expr(Int(1) << 62)),
      Arg::of_int(sym_n - 9),
      Arg::list({}),
      Arg::list({I(0)}),
      Arg::list({I(-1), I(0)}),
      Arg::list({Arg::of_int(sym_n), I(-1)}),
      Arg::list({I(2), I(2), I(2)}),
      Arg::none(),
      Arg::node("vector"),
      Arg::node("empty"),
      Arg::list({Arg::node("scalar"), Arg::node("matrix")}),
  };
  const std::vector<std::string> tensors = {"scalar", "vector", "matrix", "empty", "cube", "huge"};

  std::vector<std::vector<Arg>> arg_lists = {{}};
  for (const std::string& t : tensors) {
    arg_lists.push_back({Arg::node(t)});
    for (const Arg& a : extras) {
      arg_lists.push_back({Arg::node(t), a});
      arg_lists.push_back({Arg::node(t), a, a});
      arg_lists.push_back({Arg::node(t), I(0), a, I(-1)});
    }
  }

  // Sanitized builds run every eighth argument list per op, a different eighth for each op.
#ifdef SYMSHAPE_FUZZ_SANITIZED
  constexpr size_t kStride = 8;
#else
  constexpr size_t kStride = 1;
#endif
  size_t runs = 0;
  const std::vector<std::string> targets = OpRegistry::instance().targets();
  for (size_t t = 0; t < targets.size(); ++t) {
    const std::string& target = targets[t];
    for (size_t k = t % kStride; k < arg_lists.size(); k += kStride) {
      const std::vector<Arg>& args = arg_lists[k];
      Graph g = base;
      Node call;
      call.name = "op";
      call.target = target;
      call.args = args;
      g.nodes.push_back(call);
      Node out;
      out.name = "output";
      out.op = NodeOp::Output;
      out.args = {Arg::list({Arg::node("op")})};
      g.nodes.push_back(out);
      ShapeEnv env;
      try {
        Propagation p = propagate(g, env);
        EXPECT_TRUE(p.ok() || !p.error.empty()) << target;
      } catch (...) {
        ADD_FAILURE() << target << ": propagate threw\n" << write_graph(g);
      }
      ++runs;
    }
  }
  EXPECT_GT(runs, 1000u);
}

}  // namespace
}  // namespace symshape
