// run(): binding dims from sizes, choosing the rest, generated inputs and constants, seeds,
// simulated collectives, errors naming the node, and the examples' shapes against propagation.
#include <gtest/gtest.h>

#include <string>

#include "symshape/interp.h"
#include "symshape/propagate.h"
#include "tests/interp/interp_test_util.h"

namespace symshape::interp {
namespace {

using symshape::testing::ShapeChecker;

Graph parse(const std::string& nodes, const std::string& dims = "{}") {
  std::string text = "{\"format\": \"symshape-graph\", \"version\": 1, \"dims\": " + dims +
                     ", \"nodes\": [" + nodes + "]}";
  Expected<Graph> g = read_graph(text);
  EXPECT_TRUE(g.ok()) << g.error() << "\n" << text;
  return g.ok() ? g.value() : Graph{};
}

size_t index_of(const Graph& g, const std::string& name) { return g.index_of(name); }

std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (const Scalar& v : t.values()) out.push_back(v.as_int());
  return out;
}

Tensor int_tensor(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  std::vector<Scalar> s;
  for (int64_t v : values) s.push_back(Scalar::of_int(v));
  return Tensor::from(DType::Int64, std::move(sizes), s);
}

// x: [batch, 2*seq], y: [seq]; the output is zeros of [batch, seq] (a kernel this file's
// owner wrote) and the sizes read back.
const char* kDerived =
    R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "2*seq"]},
  {"name": "y", "op": "placeholder", "dtype": "int64", "shape": ["seq"]},
  {"name": "b", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "s", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "y"}, 0]},
  {"name": "z", "op": "call_function", "target": "aten.zeros.default", "args": [[{"node": "b"}, {"node": "s"}]]},
  {"name": "output", "op": "output", "args": [[{"node": "z"}, {"node": "b"}, {"node": "s"}]]})";

TEST(RunDims, BindsBareAndDerivedNames) {
  Graph g = parse(kDerived);
  RunOptions o;
  o.sizes["x"] = {3, 8};
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims.at("batch"), 3);
  EXPECT_EQ(r.dims.at("seq"), 4);
  EXPECT_EQ(r.values[index_of(g, "x")].str(), "float32[3, 8]");
  EXPECT_EQ(r.values[index_of(g, "y")].str(), "int64[4]");
  EXPECT_EQ(r.output().str(), "(float32[3, 4], 3, 4)");
}

TEST(RunDims, BindsFromTheOtherInput) {
  Graph g = parse(kDerived);
  RunOptions o;
  o.sizes["y"] = {5};
  o.dims["batch"] = 2;
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values[index_of(g, "x")].str(), "float32[2, 10]");
}

TEST(RunDims, SolvesLinearSizesInOneName) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n + 1", "3*m - 2"]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": ["n*m"]},
  {"name": "output", "op": "output", "args": [{"node": "y"}]})");
  RunOptions o;
  o.sizes["x"] = {5, 7};
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims.at("n"), 4);
  EXPECT_EQ(r.dims.at("m"), 3);
  EXPECT_EQ(r.output().str(), "float32[12]");
  // n*m is not linear in one name: it is checked once n and m are known.
  RunOptions both;
  both.sizes["x"] = {5, 7};
  both.sizes["y"] = {11};
  r = run(g, both);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("dim 0 of input 'y' is declared m*n, which is 12 with m=3, n=4, but its "
                         "size is 11"),
            std::string::npos)
      << r.error;
}

TEST(RunDims, RefusesSizesThatDoNotFit) {
  Graph g = parse(kDerived);
  RunOptions odd;
  odd.sizes["x"] = {3, 7};
  RunResult r = run(g, odd);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("2*seq"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("7"), std::string::npos) << r.error;

  RunOptions clash;
  clash.sizes["x"] = {3, 8};
  clash.sizes["y"] = {5};
  r = run(g, clash);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("seq"), std::string::npos) << r.error;

  RunOptions rank;
  rank.sizes["x"] = {3};
  r = run(g, rank);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("input 'x'"), std::string::npos) << r.error;

  RunOptions dim_clash;
  dim_clash.sizes["x"] = {3, 8};
  dim_clash.dims["batch"] = 4;
  r = run(g, dim_clash);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("batch"), std::string::npos) << r.error;

  RunOptions unknown;
  unknown.sizes["nope"] = {1};
  r = run(g, unknown);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("nope"), std::string::npos) << r.error;
}

TEST(RunDims, ConstantSizesMustMatch) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [4, "n"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  RunOptions o;
  o.sizes["x"] = {5, 2};
  RunResult r = run(g, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("dim 0 of input 'x'"), std::string::npos) << r.error;
  o.sizes["x"] = {4, 2};
  r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output().str(), "float32[4, 2]");
}

TEST(RunDims, ChoosesHintsThenEightClampedThenRandom) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["a", "b", "c", "d"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})",
      R"({"a": {"hint": 3}, "b": {"max": 5}, "c": {"min": 11}, "d": {}})");
  RunResult r = run(g);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output().str(), "float32[3, 5, 11, 8]");
  RunOptions o;
  o.dims["a"] = 1;
  r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims.at("a"), 1);
  o.random_dims = true;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    o.seed = seed;
    r = run(g, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.dims.at("a"), 1);  // given
    EXPECT_GE(r.dims.at("b"), 2);
    EXPECT_LE(r.dims.at("b"), 5);
    EXPECT_EQ(r.dims.at("c"), 11);  // the range's floor is above max_random_dim
    EXPECT_GE(r.dims.at("d"), 2);
    EXPECT_LE(r.dims.at("d"), 6);
  }
}

TEST(RunDims, ResamplesChoicesThatDoNotTypeCheck) {
  // copy_ needs src [m] to broadcast to self [n]: m must be n (or 1, never chosen).
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "y", "op": "placeholder", "dtype": "float32", "shape": ["m"]},
  {"name": "c", "op": "call_function", "target": "aten.copy.default", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "output", "op": "output", "args": [{"node": "c"}]})",
                  R"({"n": {"min": 2, "max": 3}, "m": {"min": 2, "max": 3}})");
  RunOptions o;
  o.random_dims = true;
  int ok = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    o.seed = seed;
    RunResult r = run(g, o);
    if (r.ok) {
      ++ok;
      EXPECT_EQ(r.dims.at("n"), r.dims.at("m"));
    }
  }
  EXPECT_EQ(ok, 10);
}

TEST(RunInputs, DeterministicFromTheSeed) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [3, 4]},
  {"name": "i", "op": "placeholder", "dtype": "int64", "shape": [50]},
  {"name": "c", "op": "placeholder", "dtype": "complex64", "shape": [2]},
  {"name": "h", "op": "placeholder", "dtype": "float16", "shape": [20]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}, {"node": "i"}, {"node": "c"}, {"node": "h"}]]})");
  RunOptions o;
  o.seed = 7;
  RunResult a = run(g, o), b = run(g, o);
  ASSERT_TRUE(a.ok && b.ok);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(checksum(a.values[k].tensor), checksum(b.values[k].tensor));
  }
  o.seed = 8;
  RunResult c = run(g, o);
  EXPECT_NE(checksum(a.values[0].tensor), checksum(c.values[0].tensor));
  for (const Scalar& v : a.values[0].tensor.values()) {
    EXPECT_GE(v.f, -1.0);
    EXPECT_LE(v.f, 1.0);
    EXPECT_EQ(v.f, static_cast<double>(static_cast<float>(v.f)));  // rounded to float32
  }
  for (const Scalar& v : a.values[1].tensor.values()) {
    EXPECT_GE(v.i, 0);
    EXPECT_LT(v.i, 2);
  }
  for (const Scalar& v : a.values[2].tensor.values()) EXPECT_NE(v.c.imag(), 0);
  for (const Scalar& v : a.values[3].tensor.values()) {
    EXPECT_EQ(v.f, cast(Scalar::of_float(v.f), DType::Float16).f);
  }
}

TEST(RunInputs, GivenInputsAreUsed) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": ["n"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  RunOptions o;
  o.inputs["x"] = int_tensor({3}, {4, 5, 6});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dims.at("n"), 3);
  EXPECT_EQ(ints(r.output().tensor), (std::vector<int64_t>{4, 5, 6}));
  o.inputs["x"] = Tensor::zeros(DType::Float32, {3});
  r = run(g, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("int64"), std::string::npos) << r.error;
}

TEST(RunInputs, ConstantsFromValuesOrTheSeed) {
  Graph g = parse(
      R"({"name": "w", "op": "get_attr", "target": "w", "dtype": "int64", "shape": [2, 2], "value": [[1, 2], [3, 4]]},
  {"name": "f", "op": "get_attr", "target": "f", "dtype": "float32", "shape": [2], "value": [0.1, true]},
  {"name": "r", "op": "get_attr", "target": "r", "dtype": "float32", "shape": [4]},
  {"name": "output", "op": "output", "args": [[{"node": "w"}, {"node": "f"}, {"node": "r"}]]})");
  RunResult a = run(g);
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(ints(a.values[0].tensor), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(a.values[1].tensor.flat(0).f, 0.100000001490116119384765625);
  EXPECT_EQ(a.values[1].tensor.flat(1).f, 1.0);
  RunResult b = run(g);
  EXPECT_EQ(checksum(a.values[2].tensor), checksum(b.values[2].tensor));
  RunOptions o;
  o.seed = 1;
  RunResult c = run(g, o);
  EXPECT_NE(checksum(a.values[2].tensor), checksum(c.values[2].tensor));
  EXPECT_EQ(checksum(a.values[0].tensor), checksum(c.values[0].tensor));

  Graph bad = parse(
      R"({"name": "w", "op": "get_attr", "target": "w", "dtype": "int64", "shape": [3], "value": [1, 2]},
  {"name": "output", "op": "output", "args": [{"node": "w"}]})");
  RunResult e = run(bad);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.error.find("node w"), std::string::npos) << e.error;
}

TEST(RunInputs, DeclaredStridesAreHonoured) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2, "n"], "stride": [1, 2]},
  {"name": "st", "op": "call_function", "target": "aten.sym_stride.int", "args": [{"node": "x"}, 1]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}, {"node": "st"}]]})");
  RunOptions o;
  o.dims["n"] = 3;
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values[0].tensor.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(r.values[0].tensor.is_contiguous());
  EXPECT_EQ(r.values[1].integer, 2);
}

// ---- layouts: every value has the strides its metadata says, as PyTorch lays it out ----

// Issue 29's repro: m = t(x) * 1 keeps t's strides (1, 3) in PyTorch, and _reshape_alias reads m's
// storage through them. The numbers are PyTorch 1.13's.
const char* kReshapeAliasOfMul =
    R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [2, 3]},
  {"name": "t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}]},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "t"}, 10]},
  {"name": "r", "op": "call_function", "target": "aten._reshape_alias.default", "args": [{"node": "m"}, [3, 2], [1, 3]]},
  {"name": "output", "op": "output", "args": [[{"node": "r"}, {"node": "m"}]]})";

TEST(RunLayouts, ReshapeAliasReadsTheLayoutPyTorchGives) {
  Graph g = parse(kReshapeAliasOfMul);
  RunOptions o;
  o.inputs["x"] = int_tensor({2, 3}, {0, 1, 2, 3, 4, 5});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values[index_of(g, "m")].tensor.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(ints(r.values[index_of(g, "r")].tensor), (std::vector<int64_t>{0, 30, 10, 40, 20, 50}));
  // Without layouts the kernels' row-major results are read through strides meant for another.
  o.layouts = false;
  RunResult rowmajor = run(g, o);
  ASSERT_TRUE(rowmajor.ok) << rowmajor.error;
  EXPECT_EQ(rowmajor.values[index_of(g, "m")].tensor.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_NE(ints(rowmajor.values[index_of(g, "r")].tensor),
            ints(r.values[index_of(g, "r")].tensor));
}

// A traced graph may declare metadata the rules disagree with (make_fx records batch norm's
// statistics as PyTorch's meta functions give them, [C] outside training, where the rule and the
// CPU kernel give [0]): the layouts of every later node still follow the rules.
TEST(RunLayouts, ADeclaredShapeTheRuleDisagreesWithLeavesLaterLayoutsAlone) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [2, 3]},
  {"name": "f", "op": "placeholder", "dtype": "float32", "shape": [1, 2, 2, 2]},
  {"name": "c", "op": "placeholder", "dtype": "float32", "shape": [2]},
  {"name": "bn", "op": "call_function", "target": "aten.native_batch_norm.default", "args": [{"node": "f"}, {"node": "c"}, {"node": "c"}, {"node": "c"}, {"node": "c"}, false, 0.1, 1e-05]},
  {"name": "mean", "op": "call_function", "target": "operator.getitem", "args": [{"node": "bn"}, 1], "dtype": "float32", "shape": [2], "stride": [1]},
  {"name": "t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}]},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "t"}, 10]},
  {"name": "r", "op": "call_function", "target": "aten._reshape_alias.default", "args": [{"node": "m"}, [3, 2], [1, 3]]},
  {"name": "output", "op": "output", "args": [[{"node": "r"}, {"node": "mean"}]]})");
  RunOptions o;
  o.inputs["x"] = int_tensor({2, 3}, {0, 1, 2, 3, 4, 5});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values[index_of(g, "m")].tensor.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(ints(r.values[index_of(g, "r")].tensor), (std::vector<int64_t>{0, 30, 10, 40, 20, 50}));
}

TEST(RunLayouts, InPlaceWritesThroughAViewReachTheRelaidOutBase) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [2, 3]},
  {"name": "t", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}]},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "t"}, 10]},
  {"name": "s", "op": "call_function", "target": "aten.slice.Tensor", "args": [{"node": "m"}, 0, 0, 3, 2]},
  {"name": "a", "op": "call_function", "target": "aten.add_.Tensor", "args": [{"node": "s"}, 100]},
  {"name": "r", "op": "call_function", "target": "aten._reshape_alias.default", "args": [{"node": "m"}, [6], [1]]},
  {"name": "w", "op": "call_function", "target": "aten.as_strided.default", "args": [{"node": "m"}, [2, 2], [2, 1], 1]},
  {"name": "output", "op": "output", "args": [[{"node": "r"}, {"node": "m"}, {"node": "w"}]]})");
  RunOptions o;
  o.inputs["x"] = int_tensor({2, 3}, {0, 1, 2, 3, 4, 5});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  // PyTorch 1.13: r = [100, 10, 120, 130, 40, 150], m = [[100, 130], [10, 40], [120, 150]],
  // w = [[10, 120], [130, 40]].
  EXPECT_EQ(ints(r.values[index_of(g, "r")].tensor),
            (std::vector<int64_t>{100, 10, 120, 130, 40, 150}));
  EXPECT_EQ(ints(r.values[index_of(g, "m")].tensor),
            (std::vector<int64_t>{100, 130, 10, 40, 120, 150}));
  EXPECT_EQ(ints(r.values[index_of(g, "w")].tensor), (std::vector<int64_t>{10, 120, 130, 40}));
  EXPECT_TRUE(r.values[index_of(g, "a")].tensor.shares_storage(r.values[index_of(g, "m")].tensor));
}

// A given input keeps its layout, and the values computed from it take PyTorch's layouts for it.
TEST(RunLayouts, GivenInputsKeepTheirLayoutAndTheMetadataFollowsIt) {
  Graph g = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [3, 2]},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 10]},
  {"name": "r", "op": "call_function", "target": "aten.as_strided.default", "args": [{"node": "m"}, [6], [1], 0]},
  {"name": "output", "op": "output", "args": [[{"node": "x"}, {"node": "r"}]]})");
  RunOptions o;
  o.inputs["x"] = int_tensor({2, 3}, {0, 1, 2, 3, 4, 5}).as_strided({3, 2}, {1, 3}, 0);
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.values[0].tensor.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(r.values[0].tensor.shares_storage(o.inputs["x"]));
  // x = arange(6).reshape(2, 3).t(); (x * 10).as_strided((6,), (1,), 0)
  EXPECT_EQ(ints(r.values[index_of(g, "r")].tensor), (std::vector<int64_t>{0, 10, 20, 30, 40, 50}));
}

TEST(RunNodes, InPlaceFallbackWritesIntoSelf) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [3]},
  {"name": "y", "op": "placeholder", "dtype": "int64", "shape": [1]},
  {"name": "c", "op": "call_function", "target": "aten.copy_.default", "args": [{"node": "x"}, {"node": "y"}]},
  {"name": "output", "op": "output", "args": [[{"node": "c"}, {"node": "x"}]]})");
  RunOptions o;
  o.inputs["x"] = int_tensor({3}, {1, 2, 3});
  o.inputs["y"] = int_tensor({1}, {9});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(ints(r.output().items[0].tensor), (std::vector<int64_t>{9, 9, 9}));
  EXPECT_TRUE(r.output().items[0].tensor.shares_storage(r.output().items[1].tensor));
}

TEST(RunErrors, NameTheNode) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "size", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "big", "op": "call_function", "target": "operator.ge", "args": [{"node": "size"}, 5]},
  {"name": "check", "op": "call_function", "target": "aten._assert_scalar.default", "args": [{"node": "big"}, "n is too small"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  RunOptions o;
  o.dims["n"] = 3;
  RunResult r = run(g, o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failed_node, 3u);
  EXPECT_NE(r.error.find("node check (aten._assert_scalar.default)"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("n is too small"), std::string::npos) << r.error;
  EXPECT_EQ(r.values.size(), g.nodes.size());
  EXPECT_EQ(r.values[3].kind, RValue::Kind::None);
  EXPECT_TRUE(r.values[0].is_tensor());  // what ran before the failure is kept
  o.dims["n"] = 5;
  r = run(g, o);
  EXPECT_TRUE(r.ok) << r.error;

  Graph unknown = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]},
  {"name": "f", "op": "call_function", "target": "aten.no_such_op.default", "args": [{"node": "x"}]},
  {"name": "output", "op": "output", "args": [{"node": "f"}]})");
  r = run(unknown);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node f"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("no kernel"), std::string::npos) << r.error;
}

TEST(RunErrors, BadGraphsAndHugeSizesAreErrorsNotCrashes) {
  Graph empty;
  RunResult r = run(empty);
  EXPECT_FALSE(r.ok);
  Graph huge =
      parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [100000, 100000]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]})");
  r = run(huge);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("too large"), std::string::npos) << r.error;
  Graph zero = parse(
      R"({"name": "z", "op": "call_function", "target": "aten.arange.start_step", "args": [0, 5, 0]},
  {"name": "output", "op": "output", "args": [{"node": "z"}]})");
  r = run(zero);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node z"), std::string::npos) << r.error;
}

TEST(RunErrors, TheMemoryBudgetNamesTheNodeTheBytesAndTheBudget) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [1000, 100]},
  {"name": "y", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 2.0]},
  {"name": "output", "op": "output", "args": [{"node": "y"}]})");
  RunOptions o;
  o.memory_budget = 1200000;  // x takes 800000 bytes; y does not fit beside it
  RunResult r = run(g, o);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node y"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("800000 bytes"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("budget of 1200000 bytes"), std::string::npos) << r.error;
  o.memory_budget = 2000000;  // x and y, and the kernel's scalar operand
  EXPECT_TRUE(run(g, o).ok);
}

// ---- collectives, simulated ----

std::string collective_graph(const std::string& target, const std::string& args,
                             const std::string& shape = "[4]") {
  return R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": )" + shape + R"(},
  {"name": "c", "op": "call_function", "target": ")" +
         target + R"(", "args": [{"node": "x"}, )" + args + R"(]},
  {"name": "w", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "c"}]},
  {"name": "output", "op": "output", "args": [{"node": "w"}]})";
}

TEST(RunCollectives, AllReduceSumsAndAverages) {
  for (size_t w : {2u, 4u}) {
    Graph g = parse(collective_graph("_c10d_functional.all_reduce.default", R"("sum", "g")"));
    RunOptions o;
    o.world_size = w;
    o.inputs["x"] = int_tensor({4}, {1, 2, 3, -4});
    RunResult r = run(g, o);
    ASSERT_TRUE(r.ok) << r.error;
    const int64_t n = static_cast<int64_t>(w);
    EXPECT_EQ(ints(r.output().tensor), (std::vector<int64_t>{n, 2 * n, 3 * n, -4 * n}));
    ASSERT_EQ(r.ranks.size(), w);
    EXPECT_EQ(ints(r.ranks[w - 1].back().tensor), ints(r.output().tensor));
    // The input is untouched (all_reduce is functional).
    EXPECT_EQ(ints(r.values[0].tensor), (std::vector<int64_t>{1, 2, 3, -4}));
  }
  Graph g = parse(collective_graph("_c10d_functional.all_reduce.default", R"("max", "g")"));
  RunOptions o;
  o.world_size = 2;
  RunResult r = run(g, o);  // generated inputs differ per rank
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<int64_t> a = ints(r.ranks[0][0].tensor), b = ints(r.ranks[1][0].tensor);
  std::vector<int64_t> want;
  for (size_t k = 0; k < a.size(); ++k) want.push_back(std::max(a[k], b[k]));
  EXPECT_EQ(ints(r.output().tensor), want);
}

TEST(RunCollectives, InPlaceAllReduceSeesEveryRanksOriginal) {
  Graph g = parse(collective_graph("_c10d_functional.all_reduce_.default", R"("sum", "g")"));
  RunOptions o;
  o.world_size = 4;
  o.inputs["x"] = int_tensor({4}, {1, 2, 3, 4});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  // Not 1+1, 2+2, ... compounding through rank 0's overwritten tensor: every rank gets 4x.
  EXPECT_EQ(ints(r.ranks[3].back().tensor), (std::vector<int64_t>{4, 8, 12, 16}));
  EXPECT_EQ(ints(r.output().tensor), (std::vector<int64_t>{4, 8, 12, 16}));
}

TEST(RunCollectives, AllGatherConcatenatesRankShards) {
  Graph g = parse(collective_graph("_c10d_functional.all_gather_into_tensor.default",
                                   R"({"expr": "W"}, "g")", "[2, 3]"),
                  R"({"W": {"hint": 4}})");
  RunResult r = run(g);  // W from the group size: 4 ranks
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.output().str(), "int64[8, 3]");
  std::vector<int64_t> want;
  for (size_t rank = 0; rank < 4; ++rank) {
    for (int64_t v : ints(r.ranks[rank][0].tensor)) want.push_back(v);
  }
  for (size_t rank = 0; rank < 4; ++rank) EXPECT_EQ(ints(r.ranks[rank].back().tensor), want);
  // The ranks' inputs differ (seed ^ rank), so the gather is not W copies of one shard.
  EXPECT_NE(checksum(r.ranks[0][0].tensor), checksum(r.ranks[1][0].tensor));

  RunOptions o;
  o.world_size = 2;  // the graph says 4
  r = run(g, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node c"), std::string::npos) << r.error;
}

TEST(RunCollectives, ReduceScatterSumsThenSplits) {
  Graph g = parse(collective_graph("_c10d_functional.reduce_scatter_tensor.default",
                                   R"("sum", 4, "g")", "[8]"));
  RunOptions o;
  o.inputs["x"] = int_tensor({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(ints(r.ranks[0].back().tensor), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(ints(r.ranks[1].back().tensor), (std::vector<int64_t>{8, 12}));
  EXPECT_EQ(ints(r.ranks[3].back().tensor), (std::vector<int64_t>{24, 28}));

  Graph legacy = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [4]},
  {"name": "c", "op": "call_function", "target": "c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "x"}, "avg", "", [0, 1], 2]},
  {"name": "w", "op": "call_function", "target": "c10d_functional.wait_tensor.default", "args": [{"node": "c"}]},
  {"name": "output", "op": "output", "args": [{"node": "w"}]})");
  o.inputs["x"] = int_tensor({4}, {2, 4, 6, 8});
  r = run(legacy, o);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(ints(r.ranks[0].back().tensor), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(ints(r.ranks[1].back().tensor), (std::vector<int64_t>{6, 8}));

  Graph indivisible = parse(collective_graph("_c10d_functional.reduce_scatter_tensor.default",
                                             R"("sum", 3, "g")", "[8]"));
  r = run(indivisible);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("divisible"), std::string::npos) << r.error;
}

TEST(RunCollectives, AllToAllAndBroadcast) {
  Graph g = parse(R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": [4]},
  {"name": "a", "op": "call_function", "target": "_c10d_functional.all_to_all_single.default", "args": [{"node": "x"}, null, null, "g"]},
  {"name": "b", "op": "call_function", "target": "_c10d_functional.broadcast.default", "args": [{"node": "x"}, 1, "g"]},
  {"name": "output", "op": "output", "args": [[{"node": "a"}, {"node": "b"}]]})");
  RunOptions o;
  o.world_size = 2;
  RunResult r = run(g, o);
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<int64_t> x0 = ints(r.ranks[0][0].tensor), x1 = ints(r.ranks[1][0].tensor);
  // Rank 0 receives the first halves of both ranks; rank 1 the second halves.
  EXPECT_EQ(ints(r.ranks[0][1].tensor), (std::vector<int64_t>{x0[0], x0[1], x1[0], x1[1]}));
  EXPECT_EQ(ints(r.ranks[1][1].tensor), (std::vector<int64_t>{x0[2], x0[3], x1[2], x1[3]}));
  EXPECT_EQ(ints(r.ranks[0][2].tensor), x1);
  EXPECT_EQ(ints(r.ranks[1][2].tensor), x1);
}

// ---- the examples: they run, and their shapes are what propagation says ----

void expect_matches_propagation(const std::string& file, const RunOptions& options) {
  SCOPED_TRACE(file);
  Expected<Graph> g = read_graph_file(std::string(SYMSHAPE_SOURCE_DIR) + "/" + file);
  ASSERT_TRUE(g.ok()) << g.error();
  RunResult r = run(*g, options);
  ASSERT_TRUE(r.ok) << r.error;
  PropagateOptions po;
  for (const auto& [name, v] : r.dims) {
    const DimDecl* d = g->dim(name);
    DimDecl decl = d ? *d : DimDecl{};
    decl.hint = v;
    po.dims[name] = decl;
  }
  ShapeEnv env;
  Propagation p = propagate(*g, env, po);
  ASSERT_TRUE(p.ok()) << p.error;
  ShapeChecker checker(env, r.dims);
  auto problem = checker.check(*g, p.values, r.values);
  EXPECT_FALSE(problem.has_value()) << *problem;
  EXPECT_GT(checker.checked_sizes(), 10u);
}

TEST(RunExamples, ResnetBlock) {
  RunOptions o;
  o.dims = {{"batch", 2}, {"h", 8}, {"w", 10}};
  expect_matches_propagation("examples/resnet_block.json", o);
}

TEST(RunExamples, LlamaAttention) {
  RunOptions o;
  o.random_dims = true;
  o.max_random_dim = 5;
  expect_matches_propagation("examples/llama_attention.json", o);
}

// complex-rewrite's unpacked inputs (the graph's complex_io) are generated as the real views of
// the inputs they replace: the lowered graph gets the original's numbers, on every rank.
TEST(RunInputs, AnUnpackedComplexInputIsTheRealViewOfTheOriginal) {
  const Graph original = parse(
      R"({"name": "x", "op": "placeholder", "dtype": "complex64", "shape": [3, 2]},
         {"name": "output", "op": "output", "args": [[{"node": "x"}]]})");
  Graph lowered = parse(
      R"({"name": "x_unpacked_complex", "op": "placeholder", "dtype": "float32", "shape": [3, 2, 2]},
         {"name": "y", "op": "placeholder", "dtype": "float32", "shape": [3, 2, 2]},
         {"name": "output", "op": "output", "args": [[{"node": "x_unpacked_complex"}, {"node": "y"}]]})");
  lowered.extra["complex_io"] = nlohmann::ordered_json::parse(
      R"({"inputs": [{"name": "x_unpacked_complex", "original": "x", "kind": "placeholder",
                      "dtype": "complex64"}], "outputs": []})");
  RunOptions o;
  o.seed = 11;
  o.world_size = 2;
  const RunResult a = run(original, o), b = run(lowered, o);
  ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
  for (size_t r = 0; r < 2; ++r) {
    const Tensor x = a.ranks[r][0].tensor, v = b.ranks[r][0].tensor;
    ASSERT_EQ(v.str(), "float32[3, 2, 2]");
    for (int64_t k = 0; k < x.numel(); ++k) {
      EXPECT_EQ(v.flat(2 * k).as_double(), x.flat(k).as_complex().real()) << "rank " << r;
      EXPECT_EQ(v.flat(2 * k + 1).as_double(), x.flat(k).as_complex().imag()) << "rank " << r;
    }
  }
  // The ranks differ, and an input complex_io does not name is generated as before.
  EXPECT_NE(checksum(b.ranks[0][0].tensor), checksum(b.ranks[1][0].tensor));
  EXPECT_NE(checksum(b.ranks[0][1].tensor), checksum(b.ranks[0][0].tensor));
}

TEST(RunExamples, TensorParallelMlp) {
  RunOptions o;
  o.dims = {{"batch", 2}, {"seq_shard", 3}, {"W", 2}};
  expect_matches_propagation("examples/tp_mlp.json", o);
}

TEST(RunExamples, TransformerMlpAndMlp) {
  RunOptions o;
  o.random_dims = true;
  o.max_random_dim = 4;
  expect_matches_propagation("examples/transformer_mlp.json", o);
  expect_matches_propagation("examples/mlp.json", o);
}

}  // namespace
}  // namespace symshape::interp
