// complex-rewrite checked without the PassManager: `symshape lower` writes the rewritten graph,
// `symshape run --inputs --save` runs the complex graph on complex .npy inputs and the rewritten
// one on their real views ([..., 2], as the graph's complex_io key maps them), and the saved
// outputs are compared here (the complex ones through their real views), within the pass's
// declared tolerance.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <unistd.h>

#include "cli_runner.h"
#include "symshape/interp.h"
#include "symshape/ir.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;
using interp::Scalar;
using interp::Tensor;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() /
               ("symshape_complex_cli_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// [..., 2] holding the real and imaginary parts, computed here from the elements.
Tensor real_view(const Tensor& t) {
  std::vector<int64_t> sizes = t.sizes();
  sizes.push_back(2);
  Tensor out =
      Tensor::zeros(t.dtype() == DType::Complex128 ? DType::Float64 : DType::Float32, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    out.set_flat(2 * i, Scalar::of_float(t.flat(i).as_complex().real()));
    out.set_flat(2 * i + 1, Scalar::of_float(t.flat(i).as_complex().imag()));
  }
  return out;
}

Tensor random_tensor(DType dtype, const std::vector<int64_t>& sizes, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  Tensor t = Tensor::zeros(dtype, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    t.set_flat(i,
               is_complex(dtype) ? Scalar::of_complex({u(rng), u(rng)}) : Scalar::of_float(u(rng)));
  }
  return t;
}

// The names of the output node's arguments, in order.
std::vector<std::string> output_names(const Graph& g) {
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
void expect_same_outputs(const std::string& name, const std::string& path,
                         const std::map<std::string, std::vector<int64_t>>& sizes) {
  const fs::path dir = scratch(name);
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
  const std::vector<std::string> a = output_names(*before), b = output_names(*after);
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

std::string source(const std::string& relative) {
  return (fs::path(SYMSHAPE_SOURCE_DIR) / relative).string();
}

TEST(ComplexRunCli, RotaryEmbeddingGivesTheSameNumbersOnRealViews) {
  expect_same_outputs("rope", source("tests/passes/graphs/complex_rewrite.json"),
                      {{"x", {2, 8, 4, 16}}, {"freqs", {8, 8}}});
}

TEST(ComplexRunCli, TensorParallelBlockGivesTheSameNumbersOnRealViews) {
  expect_same_outputs("tp", source("examples/tp_complex.json"),
                      {{"x", {4, 2, 16}}, {"freqs", {16}}});
}

// One graph with an output per kind of rewrite: arithmetic with complex, real and number
// operands, the real-valued ops, shapes, reductions, a matrix product and a cast.
TEST(ComplexRunCli, EveryKindOfRewrittenOpGivesTheSameNumbers) {
  const fs::path dir = scratch("ops_graph");
  const std::string path = (dir / "ops.json").string();
  std::ofstream(path) << R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 2, "max": 16, "hint": 3}},
 "nodes": [
  {"name": "z", "op": "placeholder", "dtype": "complex64", "shape": ["n", 4]},
  {"name": "w", "op": "placeholder", "dtype": "complex64", "shape": ["n", 4]},
  {"name": "r", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
  {"name": "m", "op": "placeholder", "dtype": "complex64", "shape": [4, 4]},
  {"name": "q", "op": "placeholder", "dtype": "complex64", "shape": ["n", 2, 4]},
  {"name": "mul", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "z"}, {"node": "w"}]},
  {"name": "div", "op": "call_function", "target": "aten.div.Tensor", "args": [{"node": "z"}, {"node": "w"}]},
  {"name": "mul_real", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "z"}, {"node": "r"}]},
  {"name": "add_number", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "z"}, 1.5]},
  {"name": "sub_real", "op": "call_function", "target": "aten.sub.Tensor", "args": [{"node": "z"}, {"node": "r"}], "kwargs": {"alpha": 2}},
  {"name": "abs", "op": "call_function", "target": "aten.abs.default", "args": [{"node": "z"}]},
  {"name": "angle", "op": "call_function", "target": "aten.angle.default", "args": [{"node": "w"}]},
  {"name": "conj", "op": "call_function", "target": "aten.conj_physical.default", "args": [{"node": "z"}]},
  {"name": "recip", "op": "call_function", "target": "aten.reciprocal.default", "args": [{"node": "w"}]},
  {"name": "exp", "op": "call_function", "target": "aten.exp.default", "args": [{"node": "z"}]},
  {"name": "perm", "op": "call_function", "target": "aten.permute.default", "args": [{"node": "q"}, [2, 0, 1]]},
  {"name": "tr", "op": "call_function", "target": "aten.transpose.int", "args": [{"node": "q"}, -1, 0]},
  {"name": "sl", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "z"}, -1, 1, 3]},
  {"name": "cat", "op": "call_function", "target": "aten.cat.default", "args": [[{"node": "z"}, {"node": "w"}], 0]},
  {"name": "sum", "op": "call_function", "target": "aten.sum.dim_IntList", "args": [{"node": "q"}, [-1, 0]]},
  {"name": "mm", "op": "call_function", "target": "aten.matmul.default", "args": [{"node": "z"}, {"node": "m"}]},
  {"name": "cast", "op": "call_function", "target": "aten._to_copy.default", "args": [{"node": "r"}], "kwargs": {"dtype": {"dtype": "complex64"}}},
  {"name": "output", "op": "output", "args": [[{"node": "mul"}, {"node": "div"}, {"node": "mul_real"}, {"node": "add_number"}, {"node": "sub_real"}, {"node": "abs"}, {"node": "angle"}, {"node": "conj"}, {"node": "recip"}, {"node": "exp"}, {"node": "perm"}, {"node": "tr"}, {"node": "sl"}, {"node": "cat"}, {"node": "sum"}, {"node": "mm"}, {"node": "cast"}]]}]}
)";
  expect_same_outputs(
      "ops", path, {{"z", {3, 4}}, {"w", {3, 4}}, {"r", {3, 4}}, {"m", {4, 4}}, {"q", {3, 2, 4}}});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symshape::cli_test
