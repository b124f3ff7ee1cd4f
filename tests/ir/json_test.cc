// Reading and writing the graph format: what is read, and byte-identical round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "symshape/ir.h"
#include "tests/ir/ir_test_util.h"

namespace symshape {
namespace {

using ir_test::slurp;

const std::string kMlpPath = std::string(SYMSHAPE_SOURCE_DIR) + "/examples/mlp.json";

// Reads text that must be valid, failing the test with the reader's message otherwise.
Graph must_read(const std::string& text) {
  Expected<Graph> g = read_graph(text);
  EXPECT_TRUE(g.ok()) << g.error();
  return g.ok() ? g.value() : Graph{};
}

// A canonical text reads and writes back byte for byte, and the result reads again.
void expect_canonical(const std::string& text) {
  Expected<Graph> g = read_graph(text);
  ASSERT_TRUE(g.ok()) << g.error();
  std::string written = write_graph(*g);
  EXPECT_EQ(written, text);
  Expected<Graph> again = read_graph(written);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(write_graph(*again), written);
}

TEST(GraphJson, ExampleMlpIsCanonical) {
  std::string text = slurp(kMlpPath);
  ASSERT_FALSE(text.empty()) << kMlpPath;
  expect_canonical(text);
  Expected<Graph> g = read_graph_file(kMlpPath);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(verify(*g), std::nullopt);
  EXPECT_EQ(g->nodes.size(), 7u);
  ASSERT_EQ(g->dims.size(), 1u);
  EXPECT_EQ(g->dims[0].first, "batch");
  EXPECT_EQ(to_string(*g->dims[0].second.min), "1");
  EXPECT_EQ(to_string(*g->dims[0].second.max), "64");
  EXPECT_EQ(to_string(*g->dims[0].second.hint), "8");
  const Node* x = g->find("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->op, NodeOp::Placeholder);
  EXPECT_EQ(x->dtype, DType::Float32);
  ASSERT_TRUE(x->shape);
  EXPECT_TRUE((*x->shape)[0].is_symbol());
  EXPECT_EQ((*x->shape)[0].str(), "batch");
  EXPECT_EQ((*x->shape)[1].as_int64(), 128);
  const Node* addmm = g->find("addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->target, "aten.addmm.default");
  ASSERT_EQ(addmm->args.size(), 3u);
  EXPECT_EQ(addmm->args[1].kind, Arg::Kind::Node);
  EXPECT_EQ(addmm->args[1].text, "x");
  EXPECT_EQ(g->nodes.back().op, NodeOp::Output);
  EXPECT_EQ(g->nodes.back().args[0].str(), "[%relu]");
}

TEST(GraphJson, TheDocsShowTheExampleAsItIs) {
  std::string docs = slurp(std::string(SYMSHAPE_SOURCE_DIR) + "/docs/graph-format.md");
  EXPECT_NE(docs.find("```json\n" + slurp(kMlpPath) + "```"), std::string::npos)
      << "docs/graph-format.md must quote examples/mlp.json verbatim";
}

TEST(GraphJson, TheIssueSkeletonReads) {
  Graph g = must_read(R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 1, "max": 64, "hint": 8}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 128]},
  {"name": "w", "op": "get_attr", "target": "fc.weight", "dtype": "float32", "shape": [64, 128]},
  {"name": "wt", "op": "call_function", "target": "aten.t.default", "args": [{"node": "w"}]},
  {"name": "y", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "x"}, {"node": "wt"}], "kwargs": {}},
  {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]})");
  EXPECT_EQ(verify(g), std::nullopt);
  EXPECT_EQ(g.nodes.size(), 5u);
  EXPECT_TRUE(g.nodes[3].kwargs.empty());
  // The canonical form leaves out the empty kwargs, and is then stable.
  expect_canonical(write_graph(g));
  EXPECT_EQ(write_graph(g).find("\"kwargs\""), std::string::npos);
}

// Every argument form, dims with missing bounds, strides, values, and unknown keys.
const char* const kEveryForm =
    R"json({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 1, "max": 64, "hint": 8}, "seq": {"min": 2}, "free": {}},
 "producer": {"tool": "fx2symshape", "torch": "2.5"},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float16", "shape": ["batch", "2*seq", 4], "stride": ["8*seq", 4, 1]},
  {"name": "c", "op": "get_attr", "target": "consts.c", "dtype": "int64", "shape": [2, 2], "value": [[1, 2], [3, -4]]},
  {"name": "s", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 1]},
  {"name": "h", "op": "call_function", "target": "operator.floordiv", "args": [{"node": "s"}, 2], "source_fn": "foo", "stack": [1, 2.5, null, true]},
  {"name": "v", "op": "call_function", "target": "aten.view.default", "args": [{"node": "x"}, [{"expr": "batch*seq"}, -1, {"node": "h"}]]},
  {"name": "k", "op": "call_function", "target": "aten._to_copy.default", "args": [{"node": "v"}], "kwargs": {"dtype": {"dtype": "float32"}, "layout": {"layout": "strided"}, "device": {"device": "cuda:0"}, "pin_memory": false, "non_blocking": true, "memory_format": {"memory_format": "channels_last"}, "generator": null}},
  {"name": "m", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "k"}, 0.5]},
  {"name": "a", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "m"}, 1.0], "kwargs": {"alpha": 1e-05}},
  {"name": "cl", "op": "call_function", "target": "aten.clamp.default", "args": [{"node": "a"}, {"float": "-inf"}, {"float": "inf"}]},
  {"name": "d", "op": "call_function", "target": "aten.div.Tensor_mode", "args": [{"node": "cl"}, 3], "kwargs": {"rounding_mode": "floor"}},
  {"name": "e", "op": "call_function", "target": "aten.expand.default", "args": [{"node": "d"}, [{"expr": "batch//2"}, {"expr": "max(batch, seq)"}, [[]]]]},
  {"name": "g", "op": "call_function", "target": "operator.getitem", "args": [{"node": "e"}, 0], "dtype": "bfloat16", "shape": [], "meta": {"stack": ["a", "b"], "nested": {"deep": [[], {}]}}},
  {"name": "n", "op": "call_function", "target": "aten.nan_to_num.default", "args": [{"node": "g"}, {"float": "nan"}, -9223372036854775808, 9223372036854775807]},
  {"name": "output", "op": "output", "args": [[{"node": "n"}, null]]}]}
)json";

TEST(GraphJson, EveryFormRoundTripsByteForByte) { expect_canonical(kEveryForm); }

TEST(GraphJson, EveryFormReadsAsWritten) {
  Graph g = must_read(kEveryForm);
  EXPECT_EQ(verify(g), std::nullopt);
  ASSERT_EQ(g.dims.size(), 3u);
  EXPECT_EQ(g.dims[1].first, "seq");
  EXPECT_TRUE(g.dims[1].second.min);
  EXPECT_FALSE(g.dims[1].second.max);  // missing max: unbounded
  EXPECT_FALSE(g.dims[1].second.hint);
  EXPECT_FALSE(g.dims[2].second.min);
  EXPECT_EQ(g.extra.dump(), R"({"producer":{"tool":"fx2symshape","torch":"2.5"}})");

  const Node& x = *g.find("x");
  EXPECT_EQ(x.dtype, DType::Float16);
  ASSERT_TRUE(x.stride);
  EXPECT_EQ((*x.shape)[1].str(), "2*seq");
  EXPECT_EQ((*x.stride)[0].str(), "8*seq");

  const Node& c = *g.find("c");
  EXPECT_EQ(c.op, NodeOp::GetAttr);
  EXPECT_EQ(c.target, "consts.c");
  EXPECT_EQ(c.value.dump(), "[[1,2],[3,-4]]");

  const Node& h = *g.find("h");
  EXPECT_EQ(h.extra.dump(), R"({"source_fn":"foo","stack":[1,2.5,null,true]})");

  const Node& v = *g.find("v");
  ASSERT_EQ(v.args[1].kind, Arg::Kind::List);
  EXPECT_EQ(v.args[1].items[0].kind, Arg::Kind::Int);
  EXPECT_EQ(v.args[1].items[0].integer.str(), "batch*seq");
  EXPECT_EQ(v.args[1].items[1].integer.as_int64(), -1);
  EXPECT_EQ(v.args[1].str(), "[batch*seq, -1, %h]");

  const Node& k = *g.find("k");
  ASSERT_EQ(k.kwargs.size(), 7u);
  EXPECT_EQ(k.kwargs[0].first, "dtype");  // in the order written
  EXPECT_EQ(k.kwarg("dtype")->kind, Arg::Kind::DType);
  EXPECT_EQ(k.kwarg("dtype")->dtype, DType::Float32);
  EXPECT_EQ(k.kwarg("layout")->kind, Arg::Kind::Layout);
  EXPECT_EQ(k.kwarg("layout")->text, "strided");
  EXPECT_EQ(k.kwarg("device")->kind, Arg::Kind::Device);
  EXPECT_EQ(k.kwarg("device")->text, "cuda:0");
  EXPECT_EQ(k.kwarg("pin_memory")->kind, Arg::Kind::Bool);
  EXPECT_FALSE(k.kwarg("pin_memory")->boolean);
  EXPECT_TRUE(k.kwarg("non_blocking")->boolean);
  EXPECT_EQ(k.kwarg("memory_format")->kind, Arg::Kind::MemoryFormat);
  EXPECT_EQ(k.kwarg("memory_format")->text, "channels_last");
  EXPECT_EQ(k.kwarg("generator")->kind, Arg::Kind::None);

  const Node& a = *g.find("a");
  EXPECT_EQ(a.args[1].kind, Arg::Kind::Float);  // 1.0 is a float, not the int 1
  EXPECT_EQ(a.args[1].real, 1.0);
  EXPECT_EQ(a.kwarg("alpha")->real, 1e-05);

  const Node& cl = *g.find("cl");
  EXPECT_TRUE(std::isinf(cl.args[1].real) && cl.args[1].real < 0);
  EXPECT_TRUE(std::isinf(cl.args[2].real) && cl.args[2].real > 0);

  const Node& d = *g.find("d");
  EXPECT_EQ(d.args[1].kind, Arg::Kind::Int);
  EXPECT_EQ(d.kwarg("rounding_mode")->kind, Arg::Kind::String);
  EXPECT_EQ(d.kwarg("rounding_mode")->text, "floor");

  const Node& gi = *g.find("g");
  ASSERT_TRUE(gi.shape);
  EXPECT_TRUE(gi.shape->empty());  // a scalar: shape [] is not the same as no shape

  const Node& n = *g.find("n");
  EXPECT_TRUE(std::isnan(n.args[1].real));
  EXPECT_EQ(n.args[2].integer.as_int64(), INT64_MIN);
  EXPECT_EQ(n.args[3].integer.as_int64(), INT64_MAX);
}

TEST(GraphJson, FloatsKeepTheirValueAndAFraction) {
  const char* head = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "f", "op": "call_function", "target": "t", "args": [)";
  const char* tail = "]}]}\n";
  for (const char* number : {"1.0", "0.1", "-0.0", "1e-05", "1e+20", "123456.0", "2.5e-300",
                             "1.7976931348623157e+308", "5e-324", "0.30000000000000004"}) {
    std::string text = std::string(head) + number + tail;
    SCOPED_TRACE(number);
    expect_canonical(text);
    Graph g = must_read(text);
    EXPECT_EQ(g.nodes[0].args[0].kind, Arg::Kind::Float);
  }
  // Non-canonical spellings are read exactly and written in the shortest form.
  Graph g = must_read(std::string(head) + "1.50, 1E2, 0.10000000000000000001, 1e0" + tail);
  EXPECT_EQ(write_graph(g), std::string(head) + "1.5, 100.0, 0.1, 1.0" + tail);
}

TEST(GraphJson, IntegersAndExpressionsInArgs) {
  const char* head = R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "f", "op": "call_function", "target": "t", "args": [)";
  const char* tail = "]}]}\n";
  // An {"expr"} that folds to a constant is written as the plain integer.
  Graph g = must_read(std::string(head) + R"({"expr": "2*3"}, {"expr": "s0 - s0 + 4"}, 7)" + tail);
  EXPECT_EQ(write_graph(g), std::string(head) + "6, 4, 7" + tail);
  // A constant beyond int64 (which a JSON number may not hold) is written as an expression.
  g.nodes[0].args = {Arg::of_int(Expr(parse_int("123456789012345678901234567890").value()))};
  std::string big = write_graph(g);
  EXPECT_EQ(big, std::string(head) + R"({"expr": "123456789012345678901234567890"})" + tail);
  expect_canonical(big);
}

TEST(GraphJson, ShapesAcceptExpressionStringsAndWriteConstantsAsNumbers) {
  Graph g = must_read(R"({"format": "symshape-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "dtype": "torch.float32", "shape": ["s0//2", "seq*2", "4", 5]},
    {"name": "output", "op": "output", "args": [{"node": "x"}]}]})");
  EXPECT_EQ(write_graph(g), R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["s0//2", "2*seq", 4, 5]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]}]}
)");
}

TEST(GraphJson, StringsWithEscapesAndUnicode) {
  expect_canonical(R"({"format": "symshape-graph", "version": 1,
 "nodes": [
  {"name": "x\"y", "op": "placeholder", "dtype": "float32", "shape": [1], "note": "tab\there\nnewline \\ é ✓ \u0001"},
  {"name": "output", "op": "output", "args": ["quote \" and é"]}]}
)");
  // \u escapes of printable characters are read, and written as the characters themselves.
  Graph g = must_read(R"({"format": "symshape-graph", "version": 1, "nodes": [
    {"name": "\u00e9", "op": "output", "args": [null]}]})");
  EXPECT_EQ(g.nodes[0].name, "\xc3\xa9");
}

TEST(GraphJson, EmptyGraphAndEmptyPieces) {
  expect_canonical("{\"format\": \"symshape-graph\", \"version\": 1,\n \"nodes\": []}\n");
  expect_canonical(R"({"format": "symshape-graph", "version": 1,
 "dims": {"a": {}, "b": {"max": 3}, "c": {"hint": 0}},
 "nodes": [
  {"name": "f", "op": "call_function", "target": "aten.zeros.default", "args": [[]], "kwargs": {"dtype": null}, "shape": [], "stride": []},
  {"name": "output", "op": "output", "args": [[]]}]}
)");
}

TEST(GraphJson, NonCanonicalInputsBecomeCanonical) {
  // Keys in any order, extra whitespace, "max": "inf", layouts and memory formats spelled as
  // torch prints them, kwargs: {} and a null value.
  Graph g = must_read(R"(
  {
    "nodes": [
      {"shape": [2], "dtype": "torch.float16", "op": "placeholder", "name": "x", "zz": 1, "aa": 2},
      {"kwargs": {}, "args": [{"node": "x"}, {"layout": "torch.strided"},
                              {"memory_format": "torch.contiguous_format"}],
       "target": "aten.clone.default", "op": "call_function", "name": "y", "value": null},
      {"op": "output", "name": "output", "args": [{"node": "y"}]}
    ],
    "dims": {"n": {"hint": 3, "max": "inf", "min": 2}},
    "version": 1,
    "format": "symshape-graph"
  })");
  std::string canonical = R"({"format": "symshape-graph", "version": 1,
 "dims": {"n": {"min": 2, "hint": 3}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float16", "shape": [2], "zz": 1, "aa": 2},
  {"name": "y", "op": "call_function", "target": "aten.clone.default", "args": [{"node": "x"}, {"layout": "strided"}, {"memory_format": "contiguous_format"}]},
  {"name": "output", "op": "output", "args": [{"node": "y"}]}]}
)";
  EXPECT_EQ(write_graph(g), canonical);
  expect_canonical(canonical);
}

TEST(GraphJson, TopLevelExtraKeysKeepTheirOrder) {
  expect_canonical(R"({"format": "symshape-graph", "version": 1,
 "zeta": 1,
 "alpha": [1, {"b": 2.0}],
 "nodes": [
  {"name": "output", "op": "output", "args": [null]}]}
)");
}

TEST(GraphJson, WriterSkipsExtraKeysThatWouldShadowFixedOnes) {
  Graph g;
  g.extra["nodes"] = 5;
  g.extra["tool"] = "me";
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.args = {Arg::none()};
  out.extra["args"] = 1;
  out.extra["note"] = "kept";
  g.nodes.push_back(out);
  std::string text = write_graph(g);
  EXPECT_EQ(text, R"({"format": "symshape-graph", "version": 1,
 "tool": "me",
 "nodes": [
  {"name": "output", "op": "output", "args": [null], "note": "kept"}]}
)");
  expect_canonical(text);
}

// Spelled \xNN, as in the messages (detail::escape_invalid_utf8): the text reads back.
TEST(GraphJson, WriterSpellsBytesThatAreNotUtf8) {
  Graph g;
  Node out;
  out.name = "out\xff\xc3";  // a stray byte and a truncated sequence
  out.op = NodeOp::Output;
  out.args = {Arg::none()};
  g.nodes.push_back(out);
  std::string text = write_graph(g);
  EXPECT_NE(text.find(R"("out\\xff\\xc3")"), std::string::npos) << text;
  expect_canonical(text);
}

TEST(GraphJson, BuiltInMemoryGraphRoundTrips) {
  Graph g;
  g.dims.push_back({"s0", DimDecl{Int(2), std::nullopt, Int(5)}});
  Node x;
  x.name = "x";
  x.op = NodeOp::Placeholder;
  x.dtype = DType::Complex64;
  x.shape = std::vector<Expr>{Expr::symbol("s0"), 3};
  Node y;
  y.name = "y";
  y.target = "aten.view_as_real.default";
  y.args = {Arg::node("x")};
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.args = {Arg::list({Arg::node("y")})};
  g.nodes = {x, y, out};
  std::string text = write_graph(g);
  EXPECT_EQ(text, R"({"format": "symshape-graph", "version": 1,
 "dims": {"s0": {"min": 2, "hint": 5}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "complex64", "shape": ["s0", 3]},
  {"name": "y", "op": "call_function", "target": "aten.view_as_real.default", "args": [{"node": "x"}]},
  {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}
)");
  expect_canonical(text);
}

TEST(GraphJson, ReadGraphFileReadsTheFile) {
  Expected<Graph> g = read_graph_file(kMlpPath);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(write_graph(*g), slurp(kMlpPath));
}

}  // namespace
}  // namespace symshape
