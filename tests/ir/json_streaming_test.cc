// The reader converts each node as soon as the parser has finished it (json.cc, on_node). The
// messages and their precedence must be what reading the whole document first gave: a syntax
// error anywhere beats a bad node, top-level problems beat bad nodes, and among nodes the first
// in the list is reported, streamed or not.
#include <gtest/gtest.h>

#include <string>

#include "symshape/ir.h"

namespace symshape {
namespace {

const char* const kStreamX =
    R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]})";

std::string streamed_graph(const std::string& nodes, const std::string& after = "") {
  return R"({"format": "symshape-graph", "version": 1, "nodes": [)" + nodes + "]" + after + "}";
}

std::string stream_error(const std::string& text) {
  Expected<Graph> g = read_graph(text);
  return g.ok() ? "<read without error>" : g.error();
}

TEST(GraphJsonStreaming, ASyntaxErrorAfterABadNodeIsReported) {
  const std::string e =
      stream_error(streamed_graph(std::string(kStreamX) + R"(, {"name": "y"})", ", \"x\": ]"));
  EXPECT_NE(e.find("line 1, column"), std::string::npos) << e;
  EXPECT_EQ(e.find("missing \"op\""), std::string::npos) << e;
}

TEST(GraphJsonStreaming, TopLevelProblemsComeBeforeBadNodes) {
  EXPECT_EQ(stream_error(R"({"nodes": [{"name": "y"}], "format": "onnx", "version": 1})"),
            "top level: \"format\" must be \"symshape-graph\"");
  EXPECT_EQ(stream_error(R"({"nodes": [{"name": "y"}], "format": "symshape-graph"})"),
            "top level: missing \"version\"");
  EXPECT_EQ(stream_error(R"({"nodes": [{"name": "y"}], "format": "symshape-graph", )"
                         R"("version": 1, "dims": 3})"),
            "top level: \"dims\" must be an object, got an integer");
}

TEST(GraphJsonStreaming, TheFirstBadNodeInTheListIsReported) {
  // Element 0 is no object (never streamed); element 1 is a bad object (streamed first).
  EXPECT_EQ(stream_error(streamed_graph(R"(7, {"name": "y"})")),
            "node 0: expected an object, got an integer");
  EXPECT_EQ(stream_error(streamed_graph(std::string(kStreamX) + R"(, {"name": "y"}, 7)")),
            "node 'y': missing \"op\"");
  // Nodes after the first bad one are not converted, and not reported.
  EXPECT_EQ(stream_error(streamed_graph(std::string(kStreamX) +
                                        R"(, {"name": "y"}, {"name": "z", "op": 1})")),
            "node 'y': missing \"op\"");
}

TEST(GraphJsonStreaming, OutOfRangeIntegersInsideAStreamedNode) {
  EXPECT_EQ(stream_error(streamed_graph(
                R"({"name": "y", "op": "placeholder", "value": 99999999999999999999})")),
            "node 'y': \"value\": integer 99999999999999999999 out of range (beyond int64)");
}

TEST(GraphJsonStreaming, NodesKeepTheirOrderAndContent) {
  std::string nodes = kStreamX;
  for (int i = 0; i < 50; ++i) {
    nodes += R"(, {"name": "r)" + std::to_string(i) +
             R"(", "op": "call_function", "target": "aten.relu.default", "args": [{"node": ")" +
             (i == 0 ? std::string("x") : "r" + std::to_string(i - 1)) + R"("}], "meta": {"k": )" +
             std::to_string(i) + "}}";
  }
  nodes += R"(, {"name": "out", "op": "output", "args": [{"node": "r49"}]})";
  Expected<Graph> g = read_graph(streamed_graph(nodes));
  ASSERT_TRUE(g.ok()) << g.error();
  ASSERT_EQ(g->nodes.size(), 52u);
  for (int i = 0; i < 50; ++i) {
    const Node& n = g->nodes[static_cast<size_t>(i) + 1];
    EXPECT_EQ(n.name, "r" + std::to_string(i));
    ASSERT_EQ(n.args.size(), 1u);
    EXPECT_EQ(n.args[0].text, i == 0 ? std::string("x") : "r" + std::to_string(i - 1));
    EXPECT_EQ(n.extra.at("meta").at("k"), i);
  }
  // Written and read again, the graph is the same text.
  const std::string once = write_graph(*g);
  Expected<Graph> again = read_graph(once);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(write_graph(*again), once);
}

}  // namespace
}  // namespace symshape
