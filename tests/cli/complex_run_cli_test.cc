// complex-rewrite checked without the PassManager: `symshape lower` writes the rewritten graph,
// `symshape run --inputs --save` runs the complex graph on complex .npy inputs and the rewritten
// one on their real views ([..., 2], as the graph's complex_io key maps them), and the saved
// outputs are compared here (the complex ones through their real views), within the pass's
// declared tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <unistd.h>

#include "cli_runner.h"
#include "real_view.h"
#include "symshape/interp.h"
#include "symshape/ir.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;
using interp::Scalar;
using interp::Tensor;

fs::path complex_scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() /
               ("symshape_complex_cli_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

Tensor random_tensor(DType dtype, const std::vector<int64_t>& sizes, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  Tensor t = Tensor::zeros(dtype, sizes);
  std::uniform_int_distribution<int64_t> index(0, 1);  // valid along any dim of 2 or more
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (is_complex(dtype)) {
      t.set_flat(i, Scalar::of_complex({u(rng), u(rng)}));
    } else if (dtype == DType::Bool) {
      t.set_flat(i, Scalar::of_bool(u(rng) > 0));
    } else if (dtype == DType::Int64) {
      t.set_flat(i, Scalar::of_int(index(rng)));
    } else {
      t.set_flat(i, Scalar::of_float(u(rng)));
    }
  }
  return t;
}

// The names of the output node's arguments, in order.
std::vector<std::string> graph_output_names(const Graph& g) {
  const Node& out = g.nodes.back();
  std::vector<std::string> names;
  const Arg& a = out.args.at(0);
  if (a.kind == Arg::Kind::List) {
    for (const Arg& item : a.items) names.push_back(item.text);
  } else {
    names.push_back(a.text);
  }
  return names;
}

// Lowers the graph at `path`, runs both forms on the same inputs (`sizes` by placeholder) and
// compares every output.
void expect_same_real_view_outputs(const std::string& name, const std::string& path,
                                   const std::map<std::string, std::vector<int64_t>>& sizes) {
  const fs::path dir = complex_scratch(name);
  const std::string lowered = (dir / "lowered.json").string();
  CliResult low = run_cli({"lower", path, "--passes", "complex-rewrite", "-o", lowered});
  ASSERT_EQ(low.exit_code, 0) << result_text(low);
  Expected<Graph> before = read_graph_file(path), after = read_graph_file(lowered);
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_TRUE(after->extra.contains("complex_io")) << "nothing was complex in " << path;
  const auto& io = after->extra["complex_io"];

  fs::create_directories(dir / "in_complex");
  fs::create_directories(dir / "in_real");
  std::mt19937_64 rng(7);
  for (const Node& n : before->nodes) {
    if (n.op != NodeOp::Placeholder) continue;
    ASSERT_TRUE(sizes.count(n.name)) << "no sizes for input " << n.name;
    Tensor t = random_tensor(*n.dtype, sizes.at(n.name), rng);
    interp::write_npy((dir / "in_complex" / (n.name + ".npy")).string(), t);
    std::string real_name = n.name;
    for (const auto& in : io["inputs"])
      if (in["original"] == n.name) real_name = in["name"].get<std::string>();
    interp::write_npy((dir / "in_real" / (real_name + ".npy")).string(),
                      is_complex(t.dtype()) ? real_view(t) : t);
  }
  for (const char* form : {"complex", "real"}) {
    const std::string graph = std::string(form) == "complex" ? path : lowered;
    CliResult r = run_cli({"run", graph, "--inputs", (dir / ("in_" + std::string(form))).string(),
                           "--save", (dir / ("out_" + std::string(form))).string()});
    ASSERT_EQ(r.exit_code, 0) << form << ": " << result_text(r);
  }
  const std::vector<std::string> a = graph_output_names(*before), b = graph_output_names(*after);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    Tensor x = interp::read_npy((dir / "out_complex" / (a[i] + ".npy")).string());
    Tensor y = interp::read_npy((dir / "out_real" / (b[i] + ".npy")).string());
    if (is_complex(x.dtype())) x = real_view(x);
    ASSERT_EQ(x.sizes(), y.sizes()) << "output " << i << " (" << a[i] << ")";
    for (int64_t k = 0; k < x.numel(); ++k) {
      const double p = x.flat(k).as_double(), q = y.flat(k).as_double();
      EXPECT_NEAR(p, q, 3e-4 * std::max({1.0, std::abs(p), std::abs(q)}))
          << "output " << i << " (" << a[i] << "), element " << k;
    }
  }
  fs::remove_all(dir);
}

TEST(ComplexRunCli, RotaryEmbeddingGivesTheSameNumbersOnRealViews) {
  expect_same_real_view_outputs("rope", source("tests/passes/graphs/complex_rewrite.json"),
                                {{"x", {2, 8, 4, 16}}, {"freqs", {8, 8}}});
}

TEST(ComplexRunCli, TensorParallelBlockGivesTheSameNumbersOnRealViews) {
  expect_same_real_view_outputs("tp", source("examples/tp_complex.json"),
                                {{"x", {4, 2, 16}}, {"freqs", {16}}});
}

// One graph with an output per rewritten op: arithmetic with complex, real and number operands,
// the real-valued ops, shapes, indexing, reductions, products and casts; run at two sizes of n.
TEST(ComplexRunCli, EveryRewrittenOpGivesTheSameNumbers) {
  const fs::path dir = complex_scratch("ops_graph");
  const std::string path = (dir / "ops.json").string();
  // {name, target, args, kwargs}; every node is an output.
  const std::vector<std::array<std::string, 4>> ops = {
      {"mul", "aten.mul.Tensor", R"([{"node": "z"}, {"node": "w"}])", ""},
      {"div", "aten.div.Tensor", R"([{"node": "z"}, {"node": "w"}])", ""},
      {"mul_real", "aten.mul.Tensor", R"([{"node": "z"}, {"node": "r"}])", ""},
      {"div_number", "aten.div.Tensor", R"([{"node": "z"}, 3])", ""},
      {"add_number", "aten.add.Tensor", R"([{"node": "z"}, 1.5])", ""},
      {"add", "aten.add.Tensor", R"([{"node": "z"}, {"node": "w"}])", R"({"alpha": 3})"},
      {"sub_real", "aten.sub.Tensor", R"([{"node": "z"}, {"node": "r"}])", R"({"alpha": 2})"},
      {"neg", "aten.neg.default", R"([{"node": "z"}])", ""},
      {"real", "aten.real.default", R"([{"node": "z"}])", ""},
      {"imag", "aten.imag.default", R"([{"node": "w"}])", ""},
      {"abs", "aten.abs.default", R"([{"node": "z"}])", ""},
      {"angle", "aten.angle.default", R"([{"node": "w"}])", ""},
      {"conj", "aten.conj_physical.default", R"([{"node": "z"}])", ""},
      {"recip", "aten.reciprocal.default", R"([{"node": "w"}])", ""},
      {"exp", "aten.exp.default", R"([{"node": "z"}])", ""},
      {"log", "aten.log.default", R"([{"node": "z"}])", ""},
      {"sqrt", "aten.sqrt.default", R"([{"node": "w"}])", ""},
      {"pow_number", "aten.pow.Tensor_Scalar", R"([{"node": "z"}, 3])", ""},
      {"pow_complex", "aten.pow.Tensor_Tensor", R"([{"node": "z"}, {"node": "w"}])", ""},
      {"pow_real_base", "aten.pow.Tensor_Tensor", R"([{"node": "r"}, {"node": "w"}])", ""},
      {"polar", "aten.polar.default", R"([{"node": "r"}, {"node": "s"}])", ""},
      {"complex", "aten.complex.default", R"([{"node": "r"}, {"node": "s"}])", ""},
      {"cast", "aten._to_copy.default", R"([{"node": "r"}])",
       R"({"dtype": {"dtype": "complex64"}})"},
      {"where", "aten.where.self", R"([{"node": "c"}, {"node": "z"}, {"node": "w"}])", ""},
      {"fill", "aten.masked_fill.Tensor", R"([{"node": "z"}, {"node": "c"}, {"node": "v"}])", ""},
      {"fill_real", "aten.masked_fill.Scalar", R"([{"node": "z"}, {"node": "c"}, 2])", ""},
      {"reshape", "aten.reshape.default", R"([{"node": "q"}, [-1, 4]])", ""},
      {"view", "aten.view.default", R"([{"node": "z"}, [{"expr": "n"}, 2, 2]])", ""},
      {"expand", "aten.expand.default", R"([{"node": "z"}, [2, -1, -1]])", ""},
      {"perm", "aten.permute.default", R"([{"node": "q"}, [2, 0, 1]])", ""},
      {"tr", "aten.transpose.int", R"([{"node": "q"}, -1, 0])", ""},
      {"t", "aten.t.default", R"([{"node": "m"}])", ""},
      {"unsq", "aten.unsqueeze.default", R"([{"node": "z"}, -1])", ""},
      {"squeeze", "aten.squeeze.dim", R"([{"node": "unsq"}, -1])", ""},
      {"flat", "aten.flatten.using_ints", R"([{"node": "q"}, 1])", ""},
      {"sel", "aten.select.int", R"([{"node": "q"}, 1, -1])", ""},
      {"sl", "aten.slice.Tensor", R"([{"node": "z"}, -1, 1, 3])", ""},
      {"narrow", "aten.narrow.default", R"([{"node": "z"}, 0, 1, 1])", ""},
      {"cat", "aten.cat.default", R"([[{"node": "z"}, {"node": "w"}], 0])", ""},
      {"stack", "aten.stack.default", R"([[{"node": "z"}, {"node": "w"}], -1])", ""},
      {"chunks", "aten.chunk.default", R"([{"node": "z"}, 2, 1])", ""},
      {"chunk1", "operator.getitem", R"([{"node": "chunks"}, 1])", ""},
      {"roll", "aten.roll.default", R"([{"node": "q"}, [1, 2], [0, -1]])", ""},
      {"flip", "aten.flip.default", R"([{"node": "q"}, [-1, 0]])", ""},
      {"repeat", "aten.repeat.default", R"([{"node": "z"}, [1, 2]])", ""},
      {"isel", "aten.index_select.default", R"([{"node": "z"}, 1, {"node": "i"}])", ""},
      {"gather", "aten.gather.default", R"([{"node": "z"}, 1, {"node": "j"}])", ""},
      {"sum", "aten.sum.dim_IntList", R"([{"node": "q"}, [-1, 0]])", ""},
      {"mean", "aten.mean.dim", R"([{"node": "q"}, [1], true])", ""},
      {"mm", "aten.mm.default", R"([{"node": "m"}, {"node": "m"}])", ""},
      {"bmm", "aten.bmm.default", R"([{"node": "q"}, {"node": "qt"}])", ""},
      {"qt", "aten.transpose.int", R"([{"node": "q"}, 1, 2])", ""},
      {"matmul", "aten.matmul.default", R"([{"node": "z"}, {"node": "m"}])", ""},
      {"linear", "aten.linear.default", R"([{"node": "q"}, {"node": "m"}, {"node": "e"}])", ""},
      {"einsum", "aten.einsum.default", R"(["nij,jk->nki", [{"node": "q"}, {"node": "m"}]])", ""},
      {"einsum_real", "aten.einsum.default", R"(["ni,ni->n", [{"node": "z"}, {"node": "r"}]])",
       ""}};
  std::string nodes = R"(
  {"name": "z", "op": "placeholder", "dtype": "complex64", "shape": ["n", 4]},
  {"name": "w", "op": "placeholder", "dtype": "complex64", "shape": ["n", 4]},
  {"name": "r", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
  {"name": "s", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
  {"name": "m", "op": "placeholder", "dtype": "complex64", "shape": [4, 4]},
  {"name": "q", "op": "placeholder", "dtype": "complex64", "shape": ["n", 2, 4]},
  {"name": "c", "op": "placeholder", "dtype": "bool", "shape": ["n", 4]},
  {"name": "v", "op": "placeholder", "dtype": "complex64", "shape": []},
  {"name": "e", "op": "placeholder", "dtype": "complex64", "shape": [4]},
  {"name": "i", "op": "placeholder", "dtype": "int64", "shape": [3]},
  {"name": "j", "op": "placeholder", "dtype": "int64", "shape": ["n", 4]},)";
  std::string outputs;
  // qt is used by bmm, which is listed first: emit the producers in dependency order.
  std::vector<std::array<std::string, 4>> ordered = ops;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const auto& op) { return op[0] == "qt"; });
  for (const auto& [name, target, args, kwargs] : ordered) {
    nodes += "\n  {\"name\": \"" + name + "\", \"op\": \"call_function\", \"target\": \"" + target +
             "\", \"args\": " + args + (kwargs.empty() ? "" : ", \"kwargs\": " + kwargs) + "},";
    if (name == "chunks") continue;  // a list; its item is an output
    outputs += std::string(outputs.empty() ? "" : ", ") + "{\"node\": \"" + name + "\"}";
  }
  std::ofstream(path) << R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 2, "max": 16, "hint": 3}},
 "nodes": [)" << nodes << R"(
  {"name": "output", "op": "output", "args": [[)"
                      << outputs << "]]}]}\n";
  for (int64_t n : {3, 6}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_same_real_view_outputs("ops" + std::to_string(n), path,
                                  {{"z", {n, 4}},
                                   {"w", {n, 4}},
                                   {"r", {n, 4}},
                                   {"s", {n, 4}},
                                   {"m", {4, 4}},
                                   {"q", {n, 2, 4}},
                                   {"c", {n, 4}},
                                   {"v", {}},
                                   {"e", {4}},
                                   {"i", {3}},
                                   {"j", {n, 4}}});
  }
  // Every op above was rewritten: nothing is left complex (no graph break).
  CliResult low = run_cli({"lower", path, "--passes", "complex-rewrite", "-o",
                           (dir / "lowered.json").string(), "--json"});
  ASSERT_EQ(low.exit_code, 0) << result_text(low);
  EXPECT_EQ(result_text(low).find("graph break"), std::string::npos) << result_text(low);
  EXPECT_NE(result_text(low).find("rewritten"), std::string::npos) << result_text(low);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symshape::cli_test
