// The graph generators (include/symshape/gen.h): their graphs read, type-check under symbolic
// dims, run on small concrete tensors, grow by a fixed number of nodes per layer, and come out
// byte-identical for the same options.
#include <gtest/gtest.h>

#include <string>

#include "symshape/gen.h"
#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/propagate.h"

namespace symshape {
namespace {

Graph read(const Expected<std::string>& text) {
  EXPECT_TRUE(text.ok()) << text.error();
  Expected<Graph> g = read_graph(*text);
  EXPECT_TRUE(g.ok()) << g.error();
  return g.ok() ? std::move(g).value() : Graph{};
}

// The output's shape, printed, after propagating under a fresh env.
std::string output_shape(const Graph& g, ShapeEnv& env) {
  Propagation p = propagate(g, env);
  EXPECT_TRUE(p.ok()) << p.error;
  if (!p.ok()) return "";
  const Value& out = p.values.back();
  EXPECT_EQ(out.kind, Value::Kind::List);
  if (out.kind != Value::Kind::List || out.items.empty()) return "";
  return out.items[0].tensor.str();
}

gen::LlamaOptions small_llama(int64_t layers, int64_t tp) {
  gen::LlamaOptions o;
  o.layers = layers;
  o.hidden = 32;
  o.heads = 4;
  o.ffn = 48;
  o.vocab = 24;
  o.tp = tp;
  return o;
}

TEST(GraphGen, LlamaTypeChecksWithSymbolicBatchAndSeq) {
  gen::LlamaOptions o;
  o.layers = 3;
  Graph g = read(gen::llama_graph(o));
  ShapeEnv env;
  EXPECT_EQ(output_shape(g, env), "float32[batch, seq, 512]");
  // RoPE goes through complex views, and the MLP through SiLU.
  size_t complex_views = 0, silus = 0;
  for (const Node& n : g.nodes) {
    complex_views += n.target == "aten.view_as_complex.default";
    silus += n.target == "aten.silu.default";
  }
  EXPECT_EQ(complex_views, 6u);
  EXPECT_EQ(silus, 3u);
}

TEST(GraphGen, LlamaGrowsByTheSameNodesPerLayer) {
  auto nodes = [](int64_t layers) {
    gen::LlamaOptions o;
    o.layers = layers;
    return read(gen::llama_graph(o)).nodes.size();
  };
  const size_t one = nodes(1), two = nodes(2), five = nodes(5);
  EXPECT_GT(two, one);
  EXPECT_EQ(five - one, 4 * (two - one));
}

TEST(GraphGen, TensorParallelLlamaHasCollectivesAndTypeChecks) {
  gen::LlamaOptions o;
  o.layers = 2;
  o.tp = 2;
  Graph g = read(gen::llama_graph(o));
  size_t all_reduce = 0;
  for (const Node& n : g.nodes) all_reduce += n.target == "_c10d_functional.all_reduce.default";
  EXPECT_EQ(all_reduce, 4u);  // attention output and MLP down projection, per layer
  ShapeEnv env;
  EXPECT_EQ(output_shape(g, env), "float32[batch, seq, 512]");
}

TEST(GraphGen, ResNetTypeChecksWithSymbolicBatchHeightAndWidth) {
  gen::ResNetOptions o;
  o.blocks = 8;
  Graph g = read(gen::resnet_graph(o));
  ShapeEnv env;
  EXPECT_EQ(output_shape(g, env), "float32[batch, 1000]");
  size_t convs = 0;
  for (const Node& n : g.nodes) convs += n.target == "aten.convolution.default";
  EXPECT_EQ(convs, 1u + 2 * 8 + 3);  // stem, two per block, a downsample per later stage
}

TEST(GraphGen, SameOptionsGiveTheSameBytes) {
  gen::LlamaOptions o = small_llama(4, 2);
  const Expected<std::string> a = gen::llama_graph(o), b = gen::llama_graph(o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  // And the text is in canonical form once read and written back.
  EXPECT_EQ(write_graph(read(a)), write_graph(read(b)));
  gen::ResNetOptions r;
  r.blocks = 5;
  EXPECT_EQ(*gen::resnet_graph(r), *gen::resnet_graph(r));
  o.layers = 5;
  EXPECT_NE(*gen::llama_graph(o), *a);
}

TEST(GraphGen, SmallLlamaRunsOnTheInterpreter) {
  Graph g = read(gen::llama_graph(small_llama(2, 1)));
  interp::RunOptions run;
  run.dims = {{"batch", 2}, {"seq", 3}};
  interp::RunResult r = interp::run(g, run);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.output().kind, interp::RValue::Kind::List);
  EXPECT_EQ(r.output().items.at(0).tensor.sizes(), (std::vector<int64_t>{2, 3, 24}));
}

TEST(GraphGen, SmallTensorParallelLlamaRunsOnTwoSimulatedRanks) {
  Graph g = read(gen::llama_graph(small_llama(1, 2)));
  interp::RunOptions run;
  run.dims = {{"batch", 1}, {"seq", 4}};
  run.world_size = 2;
  interp::RunResult r = interp::run(g, run);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.world_size, 2u);
  EXPECT_EQ(r.output().items.at(0).tensor.sizes(), (std::vector<int64_t>{1, 4, 24}));
}

TEST(GraphGen, SmallResNetRunsOnTheInterpreter) {
  gen::ResNetOptions o;
  o.blocks = 4;
  o.width = 4;
  o.classes = 5;
  Graph g = read(gen::resnet_graph(o));
  interp::RunOptions run;
  run.dims = {{"batch", 1}, {"h", 32}, {"w", 40}};
  interp::RunResult r = interp::run(g, run);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output().items.at(0).tensor.sizes(), (std::vector<int64_t>{1, 5}));
}

TEST(GraphGen, BadOptionsAreErrorsNamingTheOption) {
  gen::LlamaOptions o;
  o.layers = 0;
  EXPECT_NE(gen::llama_graph(o).error().find("layers"), std::string::npos);
  o.layers = 1;
  o.tp = 3;  // does not divide 4 heads
  EXPECT_NE(gen::llama_graph(o).error().find("tp"), std::string::npos);
  o.tp = 1;
  o.hidden = 20;  // head width 5 is odd: no complex pairs
  EXPECT_NE(gen::llama_graph(o).error().find("hidden"), std::string::npos);
  gen::ResNetOptions r;
  r.blocks = -1;
  EXPECT_NE(gen::resnet_graph(r).error().find("blocks"), std::string::npos);
}

}  // namespace
}  // namespace symshape
