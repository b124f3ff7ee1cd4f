// The verifier: each structural rule, with the message naming the node.
#include <gtest/gtest.h>

#include <string>

#include "symshape/ir.h"

namespace symshape {
namespace {

// Reads a graph made of the given node lines; the reader must accept it.
Graph graph(const std::string& nodes) {
  Expected<Graph> g =
      read_graph(R"({"format": "symshape-graph", "version": 1, "nodes": [)" + nodes + "]}");
  EXPECT_TRUE(g.ok()) << g.error();
  return g.ok() ? g.value() : Graph{};
}

const std::string kXAndComma =
    R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]}, )";
const std::string kOut = R"({"name": "output", "op": "output", "args": [[{"node": "y"}]]})";

std::string problem(const Graph& g) { return verify(g).value_or("<no problem>"); }

TEST(Verify, AGoodGraphHasNoProblem) {
  EXPECT_EQ(problem(graph(kXAndComma +
                          R"({"name": "y", "op": "call_function", "target": "aten.neg.default",
                              "args": [{"node": "x"}]}, )" +
                          kOut)),
            "<no problem>");
}

TEST(Verify, UniqueNames) {
  EXPECT_EQ(problem(graph(kXAndComma + kXAndComma +
                          R"({"name": "output", "op": "output", "args": [null]})")),
            "node 'x': duplicate name (node 0 has it too)");
}

TEST(Verify, ReferencesMustBeDefinedEarlier) {
  EXPECT_EQ(problem(graph(kXAndComma +
                          R"({"name": "y", "op": "call_function", "target": "f",
                              "args": [{"node": "x"}, {"node": "z"}]},
                             {"name": "z", "op": "call_function", "target": "f", "args": []}, )" +
                          kOut)),
            "node 'y': arg 1 refers to 'z' before it is defined (a cycle or wrong order)");
  EXPECT_EQ(problem(graph(kXAndComma + R"({"name": "y", "op": "call_function", "target": "f",
                                   "args": [{"node": "y"}]}, )" +
                          kOut)),
            "node 'y': arg 0 refers to 'y' before it is defined (a cycle or wrong order)");
  EXPECT_EQ(problem(graph(kXAndComma + R"({"name": "y", "op": "call_function", "target": "f",
                                   "args": [[1, [{"node": "nope"}]]]}, )" +
                          kOut)),
            "node 'y': arg 0[1][0] refers to 'nope', which is not defined");
  EXPECT_EQ(problem(graph(kXAndComma + R"({"name": "y", "op": "call_function", "target": "f",
                                   "args": [], "kwargs": {"other": {"node": "w"}}}, )" +
                          kOut)),
            "node 'y': kwarg 'other' refers to 'w', which is not defined");
  EXPECT_EQ(
      problem(graph(R"({"name": "output", "op": "output", "args": [{"node": "output"}]})")),
      "node 'output': arg 0 refers to 'output' before it is defined (a cycle or wrong order)");
}

TEST(Verify, ExactlyOneOutputAndLast) {
  EXPECT_EQ(problem(graph(kXAndComma.substr(0, kXAndComma.size() - 2))),
            "the graph has no output node");
  EXPECT_EQ(problem(Graph{}), "the graph has no output node");
  EXPECT_EQ(problem(graph(kXAndComma + R"({"name": "o1", "op": "output", "args": [null]},
                                  {"name": "o2", "op": "output", "args": [null]})")),
            "node 'o2': a second output node (the first is 'o1')");
  EXPECT_EQ(problem(graph(kXAndComma + R"({"name": "output", "op": "output", "args": [null]},
                                  {"name": "z", "op": "call_function", "target": "f", "args": []})")),
            "node 'output': the output node must be the last node (it is followed by 'z')");
  EXPECT_EQ(problem(graph(R"({"name": "output", "op": "output", "args": []})")),
            "node 'output': an output node takes exactly one argument, got 0");
  EXPECT_EQ(problem(graph(R"({"name": "output", "op": "output", "args": [1, 2]})")),
            "node 'output': an output node takes exactly one argument, got 2");
}

TEST(Verify, InputsCarryMetadata) {
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "shape": [2]}, )" + kOut)),
            "node 'x': a placeholder needs a dtype");
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "dtype": "int64"}, )" + kOut)),
            "node 'x': a placeholder needs a shape");
  EXPECT_EQ(
      problem(graph(R"({"name": "w", "op": "get_attr", "target": "w", "shape": []}, )" + kOut)),
      "node 'w': a get_attr needs a dtype");
  EXPECT_EQ(
      problem(graph(R"({"name": "w", "op": "get_attr", "target": "w", "dtype": "bool"}, )" + kOut)),
      "node 'w': a get_attr needs a shape");
  EXPECT_EQ(
      problem(graph(R"({"name": "w", "op": "get_attr", "dtype": "bool", "shape": []}, )" + kOut)),
      "node 'w': a get_attr needs a target (the attribute's path)");
  // A scalar placeholder (shape []) is fine.
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "dtype": "int64", "shape": []},
                             {"name": "output", "op": "output", "args": [{"node": "x"}]})")),
            "<no problem>");
}

TEST(Verify, SizesAreNonNegative) {
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "dtype": "float32",
                              "shape": [2, -3]}, )" +
                          kOut)),
            "node 'x': shape[1] is negative (-3)");
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "dtype": "float32",
                              "shape": ["1 - 4"]}, )" +
                          kOut)),
            "node 'x': shape[0] is negative (-3)");
  // A symbolic size is not known to be negative; zero is a size.
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "dtype": "float32",
                              "shape": ["s0 - 4", 0]},
                             {"name": "output", "op": "output", "args": [{"node": "x"}]})")),
            "<no problem>");
}

TEST(Verify, CallsHaveTargets) {
  EXPECT_EQ(
      problem(graph(kXAndComma + R"({"name": "y", "op": "call_function", "args": []}, )" + kOut)),
      "node 'y': a call_function needs a target");
}

TEST(Verify, EmptyNameInAGraphBuiltInMemory) {
  Graph g;
  g.nodes.resize(2);
  g.nodes[1].op = NodeOp::Output;
  g.nodes[1].name = "output";
  EXPECT_EQ(problem(g), "node 0: empty name");
}

TEST(Verify, ReportsTheFirstProblemInNodeOrder) {
  EXPECT_EQ(problem(graph(R"({"name": "x", "op": "placeholder", "shape": [2]},
                             {"name": "y", "op": "call_function", "args": []},
                             {"name": "output", "op": "output", "args": []})")),
            "node 'x': a placeholder needs a dtype");
}

}  // namespace
}  // namespace symshape
