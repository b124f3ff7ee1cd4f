// Every way the reader refuses input, and the message that says where and why.
#include <gtest/gtest.h>

#include <string>

#include "symshape/ir.h"

namespace symshape {
namespace {

// A document around the given node lines (a JSON list body), with a batch dim.
std::string doc(const std::string& nodes) {
  return R"({"format": "symshape-graph", "version": 1, "dims": {"batch": {"min": 1}}, "nodes": [)" +
         nodes + "]}";
}

const char* const kX = R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]})";

// A call node y = f(args) after x.
std::string call(const std::string& args, const std::string& more = "") {
  return doc(std::string(kX) + R"(, {"name": "y", "op": "call_function", "target": "f", "args": )" +
             args + more + "}");
}

std::string error_of(const std::string& text) {
  Expected<Graph> g = read_graph(text);
  if (g.ok()) return "<read without error>";
  return g.error();
}

TEST(GraphJsonErrors, MessagesFromTheIssue) {
  EXPECT_EQ(error_of(call(R"([{"node": "x"}, {"dtype": "float33"}])")),
            "node 'y': arg 1: unknown dtype 'float33'");
  EXPECT_EQ(error_of(doc(R"({"name": "y", "op": "call_method"})")),
            "node 'y': unknown op kind 'call_method' (expected placeholder, get_attr, "
            "call_function or output)");
  EXPECT_EQ(error_of(doc(std::string(kX) + ", " + kX + ", " + kX + R"(, {"op": "output"})")),
            "node 3: missing \"name\"");
  EXPECT_EQ(error_of(R"({"format": "onnx", "version": 1, "nodes": []})"),
            "top level: \"format\" must be \"symshape-graph\"");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": 2, "nodes": []})"),
            "version 2 is not supported (this reader reads version 1)");
}

TEST(GraphJsonErrors, SyntaxErrorsCarryLineAndColumn) {
  std::string text = "{\"format\": \"symshape-graph\",\n \"version\": 1,\n \"nodes\": [tru]}";
  std::string e = error_of(text);
  EXPECT_EQ(e.rfind("line 3, column 15: ", 0), 0u) << e;  // the bracket ending the literal
  EXPECT_NE(e.find("syntax error"), std::string::npos) << e;

  e = error_of("{\"format\": \"symshape-graph\",\n\n    \"version\" 1}");
  EXPECT_EQ(e.rfind("line 3, column 15: ", 0), 0u) << e;

  e = error_of("");
  EXPECT_EQ(e.rfind("line 1, column 1: ", 0), 0u) << e;

  e = error_of("{\"format\": \"symshape-graph\", \"version\": 1, \"nodes\": []} extra");
  EXPECT_EQ(e.rfind("line 1, column 57: ", 0), 0u) << e;

  e = error_of("{\"format\": \"symshape-graph\", \"version\": 1, \"nodes\": [");
  EXPECT_EQ(e.rfind("line 1, column 54: ", 0), 0u) << e;

  e = error_of("{\"nodes\": [1e400]}");
  EXPECT_EQ(e, "line 1, column 16: number overflow parsing '1e400'");

  e = error_of("{\"a\": \"\xff\"}");
  EXPECT_EQ(e.rfind("line 1, column 8: ", 0), 0u) << e;
  EXPECT_NE(e.find("UTF-8"), std::string::npos) << e;
}

TEST(GraphJsonErrors, TopLevelShape) {
  EXPECT_EQ(error_of("[]"), "top level: expected a JSON object, got a list");
  EXPECT_EQ(error_of("7"), "top level: expected a JSON object, got an integer");
  EXPECT_EQ(error_of(R"({"version": 1, "nodes": []})"),
            "top level: \"format\" must be \"symshape-graph\"");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "nodes": []})"),
            "top level: missing \"version\"");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": "1", "nodes": []})"),
            "top level: \"version\" must be an integer");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": 1})"),
            "top level: missing \"nodes\"");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": 1, "nodes": {}})"),
            "top level: \"nodes\" must be a list, got an object");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": 1, "dims": [], "nodes": []})"),
            "top level: \"dims\" must be an object, got a list");
  EXPECT_EQ(error_of(R"({"format": "symshape-graph", "version": 1, "nodes": [], "nodes": []})"),
            "duplicate key \"nodes\" at top level");
}

TEST(GraphJsonErrors, Dims) {
  auto with_dims = [](const std::string& dims) {
    return error_of(R"({"format": "symshape-graph", "version": 1, "dims": )" + dims +
                    R"(, "nodes": []})");
  };
  EXPECT_EQ(with_dims(R"({"batch": {"min": 5, "max": 3}})"), "dim 'batch': min 5 > max 3");
  EXPECT_EQ(with_dims(R"({"batch": {"min": -1}})"), "dim 'batch': negative min -1");
  EXPECT_EQ(with_dims(R"({"batch": {"max": -1}})"), "dim 'batch': negative max -1");
  EXPECT_EQ(with_dims(R"({"batch": {"min": 1, "max": 64, "hint": 100}})"),
            "dim 'batch': hint 100 outside [1, 64]");
  EXPECT_EQ(with_dims(R"({"batch": {"min": 4, "hint": 2}})"),
            "dim 'batch': hint 2 outside [4, inf]");
  EXPECT_EQ(with_dims(R"({"batch": {"max": 4, "hint": -2}})"), "dim 'batch': negative hint -2");
  EXPECT_EQ(with_dims(R"({"batch": {"min": 1, "step": 2}})"),
            "dim 'batch': unknown key \"step\" (a dim has min, max and hint)");
  EXPECT_EQ(with_dims(R"({"batch": {"min": 1.5}})"),
            "dim 'batch': \"min\" must be an integer, got a float");
  EXPECT_EQ(with_dims(R"({"batch": {"min": "1"}})"),
            "dim 'batch': \"min\" must be an integer, got a string");
  EXPECT_EQ(with_dims(R"({"batch": {"max": "infinity"}})"),
            "dim 'batch': \"max\" must be an integer, got a string");
  EXPECT_EQ(with_dims(R"({"batch": 8})"),
            "dim 'batch': expected an object such as {\"min\": 1, \"max\": 64, \"hint\": 8}, got "
            "an integer");
  EXPECT_EQ(with_dims(R"({"2x": {}})"), "dim '2x': not a valid symbol name");
  EXPECT_EQ(with_dims(R"({"a b": {}})"), "dim 'a b': not a valid symbol name");
  EXPECT_EQ(with_dims(R"({"batch": {}, "batch": {}})"), "duplicate key \"batch\" in dims");
  EXPECT_EQ(with_dims(R"({"batch": {"max": 99999999999999999999}})"),
            "dim 'batch': \"max\": integer 99999999999999999999 out of range");
}

TEST(GraphJsonErrors, IntegersBeyondInt64) {
  std::string e = error_of(call("[18446744073709551616]"));
  EXPECT_EQ(e,
            "node 'y': arg 0: integer 18446744073709551616 out of range; write it as an "
            "{\"expr\": \"18446744073709551616\"} string");
  // Between int64 and uint64 (nlohmann reads these as unsigned).
  e = error_of(call("[1, [9223372036854775808]]"));
  EXPECT_EQ(e.rfind("node 'y': arg 1[0]: integer 9223372036854775808 out of range", 0), 0u) << e;
  e = error_of(call("[-9223372036854775809]"));
  EXPECT_EQ(e.rfind("node 'y': arg 0: integer -9223372036854775809 out of range", 0), 0u) << e;
  e = error_of(doc(
      R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2, 99999999999999999999]})"));
  EXPECT_EQ(e,
            "node 'x': shape[1]: integer 99999999999999999999 out of range; write it as the "
            "string \"99999999999999999999\"");
  e = error_of(call("[]", R"(, "kwargs": {"n": 99999999999999999999})"));
  EXPECT_EQ(e.rfind("node 'y': kwarg 'n': integer 99999999999999999999 out of range", 0), 0u);
  e = error_of(call("[]", R"(, "value": [[1, 99999999999999999999]])"));
  EXPECT_EQ(e, "node 'y': \"value\": integer 99999999999999999999 out of range (beyond int64)");
  e = error_of(call("[]", R"(, "meta": {"a": [99999999999999999999]})"));
  EXPECT_EQ(e, "node 'y': \"meta\": integer 99999999999999999999 out of range (beyond int64)");
  e = error_of(
      R"({"format": "symshape-graph", "version": 1, "nodes": [], "x": 99999999999999999999})");
  EXPECT_EQ(e, "top level: \"x\": integer 99999999999999999999 out of range (beyond int64)");
  e = error_of(R"({"format": "symshape-graph", "version": 99999999999999999999, "nodes": []})");
  EXPECT_EQ(e, "top level: \"version\" must be an integer");
  // The largest values that fit are fine, and so is the same number as an expression.
  EXPECT_TRUE(read_graph(call("[9223372036854775807, -9223372036854775808]")).ok());
  EXPECT_TRUE(read_graph(call(R"([{"expr": "18446744073709551616"}])")).ok());
}

TEST(GraphJsonErrors, DeepNestingIsRefusedNotCrashed) {
  std::string deep(100000, '[');
  std::string e = error_of(call(deep + std::string(100000, ']')));
  EXPECT_NE(e.find("nesting deeper than 1000"), std::string::npos) << e;
  // The top-level object is level 1, "nodes" 2, the node 3, and the first bracket (the args list)
  // 4: the 998th bracket opens level 1001.
  size_t args_at = call("").size() - 3;  // the offset of the args text: "}]}" follows it
  EXPECT_EQ(e, "line 1, column " + std::to_string(args_at + 998) + ": nesting deeper than 1000");
  // Unbalanced, and deep inside a string that only looks nested.
  e = error_of(call(deep));
  EXPECT_NE(e.find("nesting deeper than 1000"), std::string::npos) << e;
  e = error_of(call("[\"" + deep + "\"]"));
  EXPECT_EQ(e, "<read without error>");
  // Exactly at the limit reads fine.
  EXPECT_TRUE(read_graph(call(std::string(997, '[') + std::string(997, ']'))).ok());
  e = error_of(call(std::string(998, '[') + std::string(998, ']')));
  EXPECT_NE(e.find("nesting deeper than 1000"), std::string::npos) << e;
  // Deep objects too.
  std::string objects;
  for (int i = 0; i < 5000; ++i) objects += "{\"a\": ";
  e = error_of(call("[]", ", \"meta\": " + objects));
  EXPECT_NE(e.find("nesting deeper than 1000"), std::string::npos) << e;
}

TEST(GraphJsonErrors, Nodes) {
  EXPECT_EQ(error_of(doc("7")), "node 0: expected an object, got an integer");
  EXPECT_EQ(error_of(doc(R"({"name": 3, "op": "output"})")),
            "node 0: \"name\" must be a non-empty string");
  EXPECT_EQ(error_of(doc(R"({"name": "", "op": "output"})")),
            "node 0: \"name\" must be a non-empty string");
  EXPECT_EQ(error_of(doc(R"({"name": "y"})")), "node 'y': missing \"op\"");
  EXPECT_EQ(error_of(doc(R"({"name": "y", "op": 1})")),
            "node 'y': \"op\" must be a string, got an integer");
  EXPECT_EQ(error_of(doc(R"({"name": "y", "op": "call_function", "target": ["f"]})")),
            "node 'y': \"target\" must be a string, got a list");
  EXPECT_EQ(error_of(call("{}")), "node 'y': \"args\" must be a list, got an object");
  EXPECT_EQ(error_of(call("[]", R"(, "kwargs": [])")),
            "node 'y': \"kwargs\" must be an object, got a list");
  EXPECT_EQ(error_of(call("[]", R"(, "dtype": "float33")")), "node 'y': unknown dtype 'float33'");
  EXPECT_EQ(error_of(call("[]", R"(, "dtype": 32)")),
            "node 'y': \"dtype\" must be a string such as \"float32\", got an integer");
  EXPECT_EQ(error_of(call("[]", R"(, "shape": "batch")")),
            "node 'y': \"shape\" must be a list of integers and expression strings, got a string");
  EXPECT_EQ(error_of(call("[]", R"(, "shape": [1, 2.0])")),
            "node 'y': shape[1]: expected an integer or an expression string, got a float");
  EXPECT_EQ(error_of(call("[]", R"(, "stride": [null])")),
            "node 'y': stride[0]: expected an integer or an expression string, got null");
  std::string e = error_of(call("[]", R"(, "shape": ["bat ch"])"));
  EXPECT_EQ(e.rfind("node 'y': shape[0]: cannot parse expression 'bat ch': column 5: ", 0), 0u)
      << e;
  e = error_of(call("[]", R"(, "shape": ["s0 // 0"])"));
  EXPECT_EQ(e.rfind("node 'y': shape[0]: cannot parse expression 's0 // 0': ", 0), 0u) << e;
  EXPECT_EQ(error_of(call("[]", R"(, "args": [])")), "duplicate key \"args\" in nodes[1]");
}

TEST(GraphJsonErrors, Args) {
  EXPECT_EQ(error_of(call(R"([{"node": 1}])")),
            "node 'y': arg 0: {\"node\": ...} takes a non-empty string, got an integer");
  EXPECT_EQ(error_of(call(R"([{"node": ""}])")),
            "node 'y': arg 0: {\"node\": ...} takes a non-empty string");
  EXPECT_EQ(error_of(call(R"([1, [2, [3, {"dtype": "float33"}]]])")),
            "node 'y': arg 1[1][1]: unknown dtype 'float33'");
  EXPECT_EQ(error_of(call("[]", R"(, "kwargs": {"dtype": {"dtype": "float33"}})")),
            "node 'y': kwarg 'dtype': unknown dtype 'float33'");
  EXPECT_EQ(error_of(call("[]", R"(, "kwargs": {"size": [1, {"expr": "2*"}]})"))
                .rfind("node 'y': kwarg 'size'[1]: cannot parse expression '2*': column ", 0),
            0u);
  EXPECT_EQ(error_of(call(R"([{"tensor": "x"}])")),
            "node 'y': arg 0: unknown argument form {\"tensor\": ...} (expected node, expr, dtype, "
            "device, layout, memory_format or float)");
  EXPECT_EQ(error_of(call(R"([{}])")),
            "node 'y': arg 0: an argument object has exactly one key (node, expr, dtype, device, "
            "layout, memory_format or float), got 0");
  EXPECT_EQ(error_of(call(R"([{"node": "x", "dtype": "float32"}])")),
            "node 'y': arg 0: an argument object has exactly one key (node, expr, dtype, device, "
            "layout, memory_format or float), got 2");
  EXPECT_EQ(error_of(call(R"([{"expr": 3}])")),
            "node 'y': arg 0: {\"expr\": ...} takes a string, got an integer");
  EXPECT_EQ(error_of(call(R"([{"layout": "dense"}])")),
            "node 'y': arg 0: unknown layout 'dense' (known: strided, sparse_coo, sparse_csr, "
            "sparse_csc, sparse_bsr, sparse_bsc, _mkldnn, jagged)");
  EXPECT_EQ(error_of(call(R"([{"memory_format": "nhwc"}])")),
            "node 'y': arg 0: unknown memory_format 'nhwc' (known: contiguous_format, "
            "channels_last, channels_last_3d, preserve_format)");
  EXPECT_EQ(error_of(call(R"([{"device": ""}])")),
            "node 'y': arg 0: {\"device\": ...} takes a non-empty string");
  EXPECT_EQ(error_of(call(R"([{"float": "1.5"}])")),
            "node 'y': arg 0: {\"float\": ...} takes \"inf\", \"-inf\" or \"nan\"");
  EXPECT_EQ(error_of(call(R"([{"dtype": "x", "dtype": "y"}])")),
            "duplicate key \"dtype\" in nodes[1].args[0]");
}

TEST(GraphJsonErrors, ReadGraphFile) {
  Expected<Graph> g = read_graph_file("/nonexistent/graph.json");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "/nonexistent/graph.json: cannot open: No such file or directory");
  g = read_graph_file("/tmp");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "/tmp: is a directory, not a graph file");
  // Errors inside the file name the file first.
  std::string path = testing::TempDir() + "/symshape_bad_graph.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"({"format": "symshape-graph", "version": 2, "nodes": []})", f);
    std::fclose(f);
  }
  g = read_graph_file(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), path + ": version 2 is not supported (this reader reads version 1)");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace symshape
