// Property test of functionalize: random graphs of views (slice, select, permute, transpose, view,
// unsqueeze) and in-place writes through them (add_, mul_, fill_, copy_, index_put_, relu_), on a
// graph input and on fresh tensors, with views and inputs among the outputs. After the pass no
// node writes in place except the write-backs of written inputs at the end, and the interpreter
// (which shares storage between views, as PyTorch does) gives the same outputs before and after,
// at the hint and two more batch sizes (the PassManager's --verify-numerics).
#include <gtest/gtest.h>

#include <random>

#include "tests/passes/pass_test_util.h"

namespace symshape::pass_test {
namespace {

class RandomWrites {
 public:
  explicit RandomWrites(uint32_t seed) : rng_(seed) {}

  Graph make() {
    nodes_ = R"(
      {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 6, 4]},
      {"name": "y", "op": "placeholder", "dtype": "float32", "shape": [6, 4]},
      {"name": "idx", "op": "get_attr", "target": "idx", "dtype": "int64", "shape": [2], "value": [1, 0]},
      {"name": "k", "op": "get_attr", "target": "k", "dtype": "float32", "shape": [], "value": 1.5},
      {"name": "a", "op": "call_function", "target": "aten.mul.Tensor", "args": [{"node": "x"}, 2.0]})";
    pool_ = {"x", "a", "y"};
    const int steps = 6 + static_cast<int>(rng_() % 10);
    for (int s = 0; s < steps; ++s) step();
    std::string outs = R"({"node": "x"})";
    for (int i = 0; i < 3; ++i) outs += R"(, {"node": ")" + pick() + R"("})";
    return parse_graph(head() + nodes_ + R"(,
      {"name": "output", "op": "output", "args": [[)" +
                       outs + "]]}]}");
  }

 private:
  static std::string head() {
    return R"({"format": "symshape-graph", "version": 1,
      "dims": {"batch": {"min": 2, "max": 5, "hint": 3}}, "nodes": [)";
  }

  const std::string& pick() { return pool_[rng_() % pool_.size()]; }
  int below(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  // Appends a node when the graph still type-checks with it.
  bool add(const std::string& name, const std::string& target, const std::string& args,
           bool tensor = true) {
    const std::string node = R"(,
      {"name": ")" + name + R"(", "op": "call_function", "target": ")" +
                             target + R"(", "args": [)" + args + "]}";
    const Graph g = parse_graph(head() + nodes_ + node + R"(,
      {"name": "output", "op": "output", "args": [[{"node": "x"}]]}]})");
    ShapeEnv env;
    if (!propagate(g, env).ok()) return false;
    nodes_ += node;
    if (tensor) pool_.push_back(name);
    return true;
  }

  void step() {
    const std::string t = pick();
    const std::string ref = R"({"node": ")" + t + R"("})";
    const std::string name = "n" + std::to_string(counter_++);
    const int dim = below(3);
    switch (below(12)) {
      case 0:
        add(name, "aten.slice.Tensor",
            ref + ", " + std::to_string(dim) + ", " + std::to_string(below(2)) + ", " +
                std::to_string(2 + below(3)));
        break;
      case 1: add(name, "aten.select.int", ref + ", " + std::to_string(dim) + ", 1"); break;
      case 2: add(name, "aten.permute.default", ref + ", [2, 0, 1]"); break;
      case 3: add(name, "aten.transpose.int", ref + ", 0, 1"); break;
      case 4: add(name, "aten.view.default", ref + ", [-1]"); break;
      case 5: add(name, "aten.unsqueeze.default", ref + ", 0"); break;
      case 6: add(name, "aten.add_.Tensor", ref + ", 0.25", false); break;
      case 7: {
        const std::string other = pick();
        add(name, "aten.mul_.Tensor", ref + R"(, {"node": ")" + other + R"("})", false) ||
            add(name, "aten.mul_.Tensor", ref + ", -1.5", false);
        break;
      }
      case 8: add(name, "aten.fill_.Scalar", ref + ", 0.75", false); break;
      case 9: {
        const std::string src = "s" + std::to_string(counter_++);
        if (add(src, "aten.sin.default", R"({"node": ")" + pick() + R"("})"))
          add(name, "aten.copy_.default", ref + R"(, {"node": ")" + src + R"("})", false);
        break;
      }
      case 10:
        add(name, "aten.index_put_.default", ref + R"(, [{"node": "idx"}], {"node": "k"})", false);
        break;
      default: add(name, "aten.relu_.default", ref, false); break;
    }
  }

  std::mt19937 rng_;
  std::string nodes_;
  std::vector<std::string> pool_;
  int counter_ = 0;
};

TEST(FunctionalizeProperty, NoWriteLeftButWriteBacksAndTheSameNumbers) {
  size_t writes_seen = 0, scatters = 0;
  for (uint32_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Graph input = RandomWrites(seed).make();
    Lowered l = lower(input, {"functionalize"});
    ASSERT_TRUE(l.result.ok) << l.result.error << "\n" << write_graph(input);
    EXPECT_EQ(l.guards, l.input_guards);
    const Graph& out = l.result.graph;
    bool tail = true;  // only write-backs between the last write and the output
    for (size_t i = out.nodes.size() - 1; i-- > 0;) {
      const Node& n = out.nodes[i];
      const bool write = n.op == NodeOp::CallFunction && parse_target(n.target).in_place;
      if (!write) {
        tail = false;
        continue;
      }
      EXPECT_TRUE(tail) << n.name << " writes in place before the end\n" << write_graph(out);
      EXPECT_EQ(n.target, "aten.copy_.default");
      ASSERT_FALSE(n.args.empty());
      const Node* self = out.find(n.args[0].text);
      ASSERT_NE(self, nullptr);
      EXPECT_TRUE(self->op == NodeOp::Placeholder || self->op == NodeOp::GetAttr) << n.name;
    }
    if (!l.result.reports.empty()) {
      writes_seen += l.counter("writes made functional");
      scatters += l.counter("scatters");
    }
  }
  // The generator does exercise the pass.
  EXPECT_GT(writes_seen, 100u);
  EXPECT_GT(scatters, 50u);
}

}  // namespace
}  // namespace symshape::pass_test
