// One argument validation per op family (symshape/ops/validate/): a bad call is refused by
// `check` (the shape rule) and by `run` (the kernel) with the same verdict and the same message,
// because both call the same validation. One case per family and kind of check.
#include <gtest/gtest.h>

#include <string>

#include "symshape/interp.h"
#include "symshape/propagate.h"

namespace symshape::interp {
namespace {

struct BadCall {
  const char* what;
  const char* nodes;     // the graph's nodes before the output (the failing one is "y")
  const char* expected;  // a piece of the message both must give
  bool bad_input;        // bad input (exit 2) rather than a failure on well-formed input
};

Graph parse(const std::string& nodes) {
  const std::string text = R"({"format": "symshape-graph", "version": 1, "nodes": [)" + nodes +
                           R"(, {"name": "output", "op": "output", "args": [{"node": "y"}]}]})";
  Expected<Graph> g = read_graph(text);
  EXPECT_TRUE(g.ok()) << g.error() << "\n" << text;
  return g.ok() ? g.value() : Graph{};
}

#define T(name, shape) \
  R"({"name": ")" name R"(", "op": "placeholder", "dtype": "float32", "shape": )" shape "}"
#define Y(target, args) \
  R"({"name": "y", "op": "call_function", "target": ")" target R"(", "args": )" args "}"

const BadCall kCases[] = {
    {"reflection padding as large as the dim",
     T("x", "[1, 2, 3]") ", " Y("aten.reflection_pad1d.default", R"([{"node": "x"}, [3, 0]])"),
     "padding size should be less than the corresponding input dimension", false},
    {"conv2d channels",
     T("x", "[1, 4, 5, 5]") ", " T("w", "[4, 3, 2, 2]") ", " Y("aten.conv2d.default",
                                                               R"([{"node": "x"}, {"node": "w"}])"),
     "expected input [1, 4, 5, 5] to have 3 channels, but got 4 channels instead", false},
    {"conv2d padding string",
     T("x", "[1, 4, 5, 5]") ", " T("w", "[4, 4, 2, 2]") ", " Y(
         "aten.conv2d.padding", R"([{"node": "x"}, {"node": "w"}, null, 1, "middle"])"),
     "invalid padding string 'middle', expected 'same' or 'valid'", true},
    {"max_pool2d padding over half the kernel",
     T("x", "[1, 1, 4, 4]") ", " Y("aten.max_pool2d.default",
                                   R"([{"node": "x"}, [2, 2], [2, 2], [2, 2]])"),
     "pad should be at most half of kernel size", true},
    {"group_norm groups",
     T("x", "[2, 6, 4]") ", " Y("aten.group_norm.default", R"([{"node": "x"}, 4])"),
     "expected number of channels in input to be divisible by num_groups", false},
    {"layer_norm normalized_shape",
     T("x", "[2, 3]") ", " Y("aten.layer_norm.default", R"([{"node": "x"}, [4]])"),
     "given normalized_shape=[4], expected input with shape [*, 4], but got input of size [2, 3]",
     false},
    {"einsum subscript",
     T("x", "[2]") ", " Y("aten.einsum.default", R"(["i1->", [{"node": "x"}]])"),
     "invalid subscript '1' for operand 0", true},
    {"movedim lengths",
     T("x", "[2, 3]") ", " Y("aten.movedim.intlist", R"([{"node": "x"}, [0, 1], [0]])"),
     "dims must have the same number of elements", true},
    {"in-place broadcast of self",
     T("a", "[3, 1]") ", " T("b", "[3, 4]") ", " Y("aten.add_.Tensor",
                                                   R"([{"node": "a"}, {"node": "b"}])"),
     "an in-place op cannot broadcast self [3, 1] to [3, 4]", false},
    {"cdist columns",
     T("a", "[2, 3]") ", " T("b", "[4, 5]") ", " Y("aten.cdist.default",
                                                   R"([{"node": "a"}, {"node": "b"}])"),
     "must have the same number of columns", false},
    {"col2im sliding blocks",
     T("x", "[1, 4, 5]") ", " Y("aten.col2im.default",
                                R"([{"node": "x"}, [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]])"),
     "to match the calculated number of sliding blocks 2 * 2", false},
    {"attention head dims",
     T("q", "[2, 3, 4]") ", " T("k", "[2, 3, 5]") ", " T("v", "[2, 3, 4]") ", " Y(
         "aten.scaled_dot_product_attention.default",
         R"([{"node": "q"}, {"node": "k"}, {"node": "v"}])"),
     "must have the same head dim (4 != 5)", false},
    {"fft dims",
     T("x", "[4, 4]") ", " Y("aten._fft_r2c.default", R"([{"node": "x"}, [0, -2], 0, true])"),
     "dim 0 appears twice", true},
};

#undef T
#undef Y

TEST(SharedValidation, RuleAndKernelRefuseABadCallAlike) {
  for (const BadCall& c : kCases) {
    SCOPED_TRACE(c.what);
    const Graph g = parse(c.nodes);
    ShapeEnv env;
    const Propagation p = propagate(g, env);
    const RunResult r = run(g, RunOptions{});
    ASSERT_FALSE(p.ok()) << "check accepted it";
    ASSERT_FALSE(r.ok) << "run accepted it";
    EXPECT_EQ(p.status == Propagation::Status::InputError, c.bad_input) << p.error;
    EXPECT_EQ(r.input_error, c.bad_input) << r.error;
    EXPECT_NE(p.error.find(c.expected), std::string::npos) << p.error;
    // Both name the node and its op the same way, then say the same thing.
    EXPECT_EQ(p.error, r.error);
  }
}

}  // namespace
}  // namespace symshape::interp
