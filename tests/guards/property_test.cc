// Property test of guard generation: for random graphs and random concrete inputs, four judges
// agree on whether the inputs are acceptable:
//   1. the compiled checker (GuardChecker) on the produced guards;
//   2. the Python printer's text, read back by an independent evaluator (python_eval.h);
//   3. the C++ printer's text, compiled by the build's compiler and run;
//   4. re-running propagation with the concrete sizes as the hints: the inputs are acceptable
//      exactly when it succeeds and makes the same decisions (the same guards and replacements).
// Strides are generated contiguous (propagation cannot see strides; the checker does).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/cli/cli_runner.h"
#include "tests/guards/guard_test_util.h"
#include "tests/guards/python_eval.h"

namespace symshape::testing {
namespace {

const char* const kDims[] = {"a", "b", "c", "d"};

struct RandomGraph {
  std::string dims_json, nodes_json;
  std::map<std::string, int64_t> hints;
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  RandomGraph graph() {
    RandomGraph g;
    std::string dims = "{";
    for (const char* d : kDims) {
      int64_t hint = pick(2, 9);
      g.hints[d] = hint;
      std::string decl = "\"hint\": " + std::to_string(hint);
      if (chance(0.3)) {
        decl += ", \"min\": " + std::to_string(pick(2, std::min<int64_t>(3, hint))) +
                ", \"max\": " + std::to_string(pick(std::max<int64_t>(hint, 3), 12));
      }
      dims += std::string(dims.size() > 1 ? ", " : "") + "\"" + d + "\": {" + decl + "}";
    }
    g.dims_json = dims + "}";

    std::vector<std::string> items;
    tensors_.clear();
    int inputs = static_cast<int>(pick(2, 3));
    for (int i = 0; i < inputs; ++i) {
      size_t rank = static_cast<size_t>(pick(1, 3));
      std::string shape = "[";
      for (size_t k = 0; k < rank; ++k) {
        std::string size;
        double r = uniform();
        if (r < 0.65) {
          size = std::string("\"") + kDims[pick(0, 3)] + "\"";
        } else if (r < 0.75) {
          size = std::string("\"2*") + kDims[pick(0, 3)] + "\"";
        } else {
          size = std::to_string(std::vector<int>{1, 2, 3, 4, 6}[pick(0, 4)]);
        }
        shape += (k ? ", " : "") + size;
      }
      std::string name = "in" + std::to_string(i);
      items.push_back(input(name, shape + "]"));
      tensors_.push_back({name, rank});
    }
    int calls = static_cast<int>(pick(1, 4));
    for (int i = 0; i < calls; ++i) items.push_back(random_call("op" + std::to_string(i)));
    items.push_back(output(tensors_.back().name));
    g.nodes_json = nodes(items);
    return g;
  }

  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return uniform() < p; }
  double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

 private:
  struct T {
    std::string name;
    size_t rank;
  };
  std::string ref(const T& t) { return "{\"node\": \"" + t.name + "\"}"; }
  const T& any() { return tensors_[pick(0, static_cast<int64_t>(tensors_.size()) - 1)]; }

  std::string random_call(const std::string& name) {
    const T& x = any();
    const T& y = any();
    std::string c;
    size_t rank = x.rank;
    switch (pick(0, 5)) {
      case 0:
        c = call(name, "aten.add.Tensor", "[" + ref(x) + ", " + ref(y) + "]");
        rank = std::max(x.rank, y.rank);
        break;
      case 1:
        if (x.rank == 2 && y.rank == 2) {
          c = call(name, "aten.mm.default", "[" + ref(x) + ", " + ref(y) + "]");
        } else {
          c = call(name, "aten.mul.Tensor", "[" + ref(x) + ", " + ref(y) + "]");
          rank = std::max(x.rank, y.rank);
        }
        break;
      case 2: {
        int64_t k = pick(2, 4);
        c = call(name, "aten.view.default", "[" + ref(x) + ", [-1, " + std::to_string(k) + "]]");
        rank = 2;
        break;
      }
      case 3: {
        std::string end = std::string(kDims[pick(0, 3)]) + " - " + std::to_string(pick(0, 6));
        c = call(name, "aten.slice.Tensor", "[" + ref(x) + ", 0, 0, {\"expr\": \"" + end + "\"}]");
        break;
      }
      case 4:
        if (x.rank == y.rank) {
          c = call(name, "aten.cat.default", "[[" + ref(x) + ", " + ref(y) + "], 0]");
        } else {
          c = call(name, "aten.sum.dim_IntList", "[" + ref(x) + ", [0]]");
          rank = x.rank - 1;
        }
        break;
      default:
        c = call(name, "aten.expand.default",
                 "[" + ref(x) + ", " + std::string(x.rank == 1 ? "[3, -1]" : "[-1, -1]") + "]");
        if (x.rank > 2) c = call(name, "aten.relu.default", "[" + ref(x) + "]");
        rank = x.rank == 1 ? 2 : x.rank;
        break;
    }
    tensors_.push_back({name, rank});
    return c;
  }

  std::mt19937_64 rng_;
  std::vector<T> tensors_;
};

// Concrete inputs: each placeholder's sizes.
using Sizes = std::map<std::string, std::vector<Int>>;

// The dims bound by concrete sizes, as propagation would need its hints; nullopt when the sizes
// cannot come from any assignment of the dims (a constant or a shared dim disagrees, an odd size
// for 2*d).
std::optional<Bindings> bind_dims(const Graph& g, const Sizes& sizes) {
  Bindings dims;
  std::vector<std::pair<Expr, Int>> later;
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::Placeholder) continue;
    const std::vector<Int>& v = sizes.at(n.name);
    for (size_t k = 0; k < v.size(); ++k) {
      const Expr& e = (*n.shape)[k];
      if (e.is_symbol()) {
        auto [it, fresh] = dims.emplace(e.symbol_name(), v[k]);
        if (!fresh && it->second != v[k]) return std::nullopt;
      } else {
        later.emplace_back(e, v[k]);
      }
    }
  }
  for (const auto& [e, v] : later) {
    std::vector<std::string> syms = e.free_symbols();
    if (syms.size() == 1 && !dims.count(syms[0])) {
      // 2*d: d = v / 2 when even.
      if (cln::oddp(v)) return std::nullopt;
      dims[syms[0]] = cln::exquo(v, 2);
    }
    if (evaluate(e, dims) != v) return std::nullopt;
  }
  return dims;
}

std::vector<std::string> strings_of(const std::vector<Guard>& gs) {
  std::vector<std::string> out;
  for (const Guard& g : gs) out.push_back(g.cond.str());
  return out;
}

std::vector<std::string> strings_of(const std::map<std::string, Expr>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k + " := " + v.str());
  return out;
}

// Judge 4: re-propagate with the concrete sizes as hints; acceptable when the decisions match.
// Dims that no input's size gives (a slice end `a - 3` with `a` on no input) take `free`.
bool repropagation_accepts(const Produced& original, const Sizes& sizes,
                           const std::map<std::string, int64_t>& free) {
  std::optional<Bindings> dims = bind_dims(original.graph, sizes);
  if (!dims) return false;
  PropagateOptions options;
  for (const auto& [name, decl] : original.graph.dims) {
    DimDecl d = decl;
    auto it = dims->find(name);
    if (it != dims->end()) {
      d.hint = it->second;
    } else if (original.set.find_source("dims['" + name + "']") < original.set.sources.size()) {
      d.hint = Int(free.at(name));
    }  // else the dim is used nowhere: it keeps its hint
    options.dims[name] = d;
  }
  ShapeEnv env;
  Propagation r = propagate(original.graph, env, options);
  if (!r.ok()) return false;
  return strings_of(env.guards()) == strings_of(original.env->guards()) &&
         strings_of(env.replacements()) == strings_of(original.env->replacements());
}

// One value per source, for concrete sizes with contiguous strides.
std::vector<Int> source_values(const GuardSet& set, const Sizes& sizes,
                               const std::map<std::string, int64_t>& hints) {
  std::vector<Int> values;
  for (const Source& s : set.sources) {
    switch (s.kind) {
      case Source::Kind::Size: values.push_back(sizes.at(s.input).at(s.dim)); break;
      case Source::Kind::Stride: {
        Int stride = 1;
        const std::vector<Int>& v = sizes.at(s.input);
        for (size_t d = s.dim + 1; d < v.size(); ++d) stride = stride * v[d];
        values.push_back(stride);
        break;
      }
      case Source::Kind::Dim: values.push_back(Int(hints.at(s.input))); break;
      case Source::Kind::StorageOffset: values.push_back(Int(0)); break;
    }
  }
  return values;
}

// Judge 2: every printed Python guard line, evaluated independently.
bool python_accepts(const GuardSet& set, const std::vector<Int>& values) {
  std::map<std::string, Int> named;
  for (size_t i = 0; i < set.sources.size(); ++i) named[set.sources[i].name] = values[i];
  std::istringstream lines(print_python(set));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    try {
      if (!PythonGuardEval(line, named).truth()) return false;
    } catch (const std::runtime_error& e) {
      if (std::string(e.what()).find("ZeroDivisionError") == std::string::npos) throw;
      return false;
    }
  }
  return true;
}

// The C++ printer's output for one graph, wrapped in a function of the source values.
std::string cpp_function(size_t index, const GuardSet& set) {
  std::string f = "static bool guards_" + std::to_string(index) + "(const int64_t* v) {\n";
  for (size_t i = 0; i < set.sources.size(); ++i) {
    f += "  symshape::GuardInt " + set.sources[i].identifier + " = v[" + std::to_string(i) + "];\n";
    f += "  (void)" + set.sources[i].identifier + ";\n";
  }
  return f + "  return\n" + print_cpp(set) + ";\n}\n";
}

TEST(GuardProperty, CheckerPythonCppAndRepropagationAgree) {
  Generator gen(20261122);
  struct Case {
    size_t graph;
    std::vector<int64_t> values;
    bool accepted;
  };
  std::vector<Case> cpp_cases;
  std::string cpp_functions;
  size_t graphs = 0, accepted = 0, rejected = 0, skipped = 0;
  for (int round = 0; round < 250; ++round) {
    RandomGraph rg = gen.graph();
    Produced p = produce(rg.dims_json, rg.nodes_json);
    if (!p.result.ok()) {
      ++skipped;
      continue;
    }
    const size_t index = graphs++;
    cpp_functions += cpp_function(index, p.set);
    GuardChecker checker(p.set);
    for (int trial = 0; trial < 12; ++trial) {
      // Dims: mostly the hints (accepted), else random sizes from 0 up.
      std::map<std::string, int64_t> values = rg.hints;
      for (auto& [name, v] : values) {
        if (gen.chance(0.35)) v = gen.pick(0, 12);
      }
      Sizes sizes;
      for (const Node& n : p.graph.nodes) {
        if (n.op != NodeOp::Placeholder) continue;
        Bindings b;
        for (const auto& [name, v] : values) b[name] = Int(v);
        for (const Expr& e : *n.shape) sizes[n.name].push_back(evaluate(e, b));
        // Sometimes one size is off by one: equalities between sources must catch it.
        if (gen.chance(0.15)) sizes[n.name][gen.pick(0, n.shape->size() - 1)] += 1;
      }
      std::vector<Int> concrete = source_values(p.set, sizes, values);
      const bool by_checker = !checker.check(concrete).has_value();
      const bool by_python = python_accepts(p.set, concrete);
      const bool by_propagation = repropagation_accepts(p, sizes, values);
      std::string where =
          "graph " + rg.nodes_json + "\ndims " + rg.dims_json + "\nguards:\n" + print_python(p.set);
      for (const auto& [name, v] : sizes) {
        where += name + " = [";
        for (const Int& x : v) where += to_string(x) + " ";
        where += "]\n";
      }
      ASSERT_EQ(by_checker, by_python) << where;
      ASSERT_EQ(by_checker, by_propagation) << where;
      (by_checker ? accepted : rejected)++;
      std::vector<int64_t> small;
      for (const Int& v : concrete) small.push_back(*Expr(v).as_int64());
      cpp_cases.push_back({index, small, by_checker});
    }
  }
  EXPECT_GT(graphs, 100u) << "too many random graphs failed to propagate (" << skipped << ")";
  EXPECT_GT(accepted, 300u);
  EXPECT_GT(rejected, 300u);

  // Judge 3: all graphs' C++ guards in one program, compiled once.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("symshape_guard_cpp_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string program =
      "#include <cstdint>\n#include <cstdio>\n#include \"symshape/guard_int.h\"\n";
  program += cpp_functions;
  program += "static bool (*const kGuards[])(const int64_t*) = {";
  for (size_t i = 0; i < graphs; ++i) program += "guards_" + std::to_string(i) + ", ";
  program +=
      "};\nint main() {\n  size_t g, n;\n  while (std::scanf(\"%zu %zu\", &g, &n) == 2) {\n"
      "    int64_t v[64];\n    for (size_t i = 0; i < n; ++i) std::scanf(\"%ld\", &v[i]);\n"
      "    std::printf(\"%d\\n\", kGuards[g](v) ? 1 : 0);\n  }\n}\n";
  std::ofstream(dir / "guards.cc") << program;
  cli_test::CliResult compiled = cli_test::run_program(
      SYMSHAPE_CXX,
      {"-std=c++20", "-O1", "-I", std::string(SYMSHAPE_SOURCE_DIR) + "/include",
       (dir / "guards.cc").string(), "-o", (dir / "guards").string()},
      {}, std::chrono::seconds(300));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  std::string input;
  for (const Case& c : cpp_cases) {
    input += std::to_string(c.graph) + " " + std::to_string(c.values.size());
    for (int64_t v : c.values) input += " " + std::to_string(v);
    input += "\n";
  }
  cli_test::CliResult ran = cli_test::run_program((dir / "guards").string(), {}, input);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::istringstream answers(ran.out);
  for (const Case& c : cpp_cases) {
    int answer = -1;
    answers >> answer;
    ASSERT_EQ(answer, c.accepted ? 1 : 0) << "graph " << c.graph;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symshape::testing
