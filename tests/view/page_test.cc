// The data `symshape view` embeds: golden documents for the examples (byte for byte), every dim's
// kind, guards and badges tied to their nodes, groups by scope, the pass diff of `lower --view`,
// a page with no external URL, and the command's errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "symshape/view.h"
#include "tests/cli/golden.h"

namespace symshape::view {
namespace {

using json = nlohmann::ordered_json;
using cli_test::read_text;
using cli_test::run_in_root;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("symshape_view_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// The JSON inside the page's data block.
json embedded_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"symshape-data\">";
  const size_t begin = html.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

json data_of(const std::string& graph_json) {
  Expected<Graph> g = read_graph(graph_json);
  EXPECT_TRUE(g) << g.error();
  return graph_page_data(*g);
}

const json& node_named(const json& stage, const std::string& name) {
  for (const json& n : stage["nodes"]) {
    if (n["name"] == name) return n;
  }
  static const json none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

TEST(ViewPage, GoldenDataOfExamples) {
  for (const char* example : {"mlp", "resnet_block", "llama_attention"}) {
    const std::string out = temp_path(std::string(example) + ".json");
    const std::vector<std::string> args = {"view", "examples/" + std::string(example) + ".json",
                                           "-o", out, "--json"};
    const cli_test::CliResult r = run_in_root(args);
    ASSERT_EQ(r.exit_code, 0) << cli_test::describe(args, r);
    const std::string text = read_text(out);
    cli_test::expect_golden(std::string("view/") + example + ".view.json", text);
    // Every node of the graph is in the data, with a place.
    const json data = json::parse(text);
    Expected<Graph> g =
        read_graph_file(cli_test::source("examples/" + std::string(example) + ".json"));
    ASSERT_TRUE(g);
    ASSERT_EQ(data["stages"][0]["nodes"].size(), g->nodes.size());
    std::filesystem::remove(out);
  }
}

TEST(ViewPage, SameGraphSameBytes) {
  const std::string a = temp_path("a.html"), b = temp_path("b.html");
  ASSERT_EQ(run_in_root({"view", "examples/gpt_small.json", "-o", a}).exit_code, 0);
  ASSERT_EQ(run_in_root({"view", "examples/gpt_small.json", "-o", b}).exit_code, 0);
  const std::string page = read_text(a);
  EXPECT_EQ(page, read_text(b));
  // The page embeds exactly the data --json writes.
  const std::string j = temp_path("a.json");
  ASSERT_EQ(run_in_root({"view", "examples/gpt_small.json", "-o", j, "--json"}).exit_code, 0);
  EXPECT_EQ(embedded_data(page), json::parse(read_text(j)));
  for (const auto& p : {a, b, j}) std::filesystem::remove(p);
}

TEST(ViewPage, NoExternalUrlScriptOrStylesheet) {
  const std::string out = temp_path("ext.html");
  ASSERT_EQ(run_in_root({"view", "examples/resnet_block.json", "-o", out}).exit_code, 0);
  const std::string page = read_text(out);
  for (const char* banned : {"http://", "https://", "<link", "src=", "@import", "url(", "//cdn"}) {
    EXPECT_EQ(page.find(banned), std::string::npos) << "the page holds " << banned;
  }
  EXPECT_NE(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find("<style>"), std::string::npos);
  std::filesystem::remove(out);
}

TEST(ViewPage, ScriptTextCannotCloseTheDataBlock) {
  // A node name holding `</script>` stays inside the data block.
  const json data = data_of(R"({"format": "symshape-graph", "version": 1, "nodes": [
    {"name": "x</script><b>", "op": "placeholder", "dtype": "float32", "shape": [2]},
    {"name": "output", "op": "output", "args": [[{"node": "x</script><b>"}]]}]})");
  const std::string page = page_html(data, "t</title>");
  EXPECT_EQ(embedded_data(page), data);
  EXPECT_EQ(page.find("x</script>"), std::string::npos);
  EXPECT_EQ(page.find("t</title>"), std::string::npos);
}

TEST(ViewPage, DimKindsRangesAndSpecializationBadge) {
  // n is declared dynamic, but adding y (3 rows) makes it 3: a guard specializes it.
  const json data = data_of(R"({"format": "symshape-graph", "version": 1,
    "dims": {"n": {"min": 2, "max": 16, "hint": 3}, "m": {"min": 2, "max": 64, "hint": 5}},
    "nodes": [
    {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
    {"name": "y", "op": "placeholder", "dtype": "float32", "shape": [3, 4]},
    {"name": "z", "op": "placeholder", "dtype": "float32", "shape": ["m", 4]},
    {"name": "add", "op": "call_function", "target": "aten.add.Tensor",
     "args": [{"node": "x"}, {"node": "y"}]},
    {"name": "flat", "op": "call_function", "target": "aten.view.default",
     "args": [{"node": "z"}, [-1]]},
    {"name": "nz", "op": "call_function", "target": "aten.nonzero.default",
     "args": [{"node": "z"}]},
    {"name": "output", "op": "output",
     "args": [[{"node": "add"}, {"node": "flat"}, {"node": "nz"}]]}]})");
  const json& st = data["stages"][0];
  EXPECT_EQ(node_named(st, "x")["value"]["shape"], json::parse(R"([["n", "x"], ["4", "c"]])"));
  EXPECT_EQ(node_named(st, "z")["value"]["shape"][0], json::parse(R"(["m", "s"])"));
  EXPECT_EQ(node_named(st, "flat")["value"]["shape"][0], json::parse(R"(["4*m", "e"])"));
  EXPECT_EQ(node_named(st, "nz")["value"]["shape"][0][1], "u");
  EXPECT_EQ(st["ranges"]["4*m"], "[8, 256]");
  // The guard that specialized n is tied to add, which carries the warning badge.
  const json& add = node_named(st, "add");
  ASSERT_FALSE(add["guards"].empty());
  const json& guard = st["guards"][add["guards"][0].get<size_t>()];
  EXPECT_EQ(guard["node"], "add");
  EXPECT_EQ(guard["op"], "aten.add.Tensor");
  EXPECT_EQ(guard["source"], "L['x'].size()[0]");
  ASSERT_TRUE(add.contains("badges"));
  EXPECT_NE(add["badges"][0].get<std::string>().find("n specialized to 3"), std::string::npos);
  // The symbol table and the constraint problem with its fix.
  bool found = false;
  for (const json& s : st["symbols"]) {
    if (s["name"] == "n") {
      found = true;
      EXPECT_EQ(s["replacement"], "3");
      EXPECT_EQ(s["source"], "L['x'].size()[0]");
      EXPECT_EQ(s["created"], "x");
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(st["problems"].size(), 1u);
  EXPECT_EQ(st["problems"][0]["dim"], "n");
  EXPECT_FALSE(st["problems"][0]["fixes"].empty());
  // nonzero's count is a data-dependent symbol.
  EXPECT_EQ(node_named(st, "nz")["syms"], json::parse(R"(["u0"])"));
}

TEST(ViewPage, ShapeErrorIsOnThePage) {
  const std::string out = temp_path("err.html");
  const std::vector<std::string> args = {"view", "tests/propagate/graphs/broadcast_error.json",
                                         "-o", out};
  const cli_test::CliResult r = run_in_root(args);
  EXPECT_EQ(r.exit_code, 1) << cli_test::describe(args, r);
  EXPECT_NE(r.err.find("symshape: error: "), std::string::npos);
  const json data = embedded_data(read_text(out));
  EXPECT_FALSE(data["stages"][0]["error"].get<std::string>().empty());
  bool marked = false;
  for (const json& n : data["stages"][0]["nodes"]) marked = marked || n.contains("error");
  EXPECT_TRUE(marked);
  std::filesystem::remove(out);
}

TEST(ViewPage, CommandErrors) {
  cli_test::CliResult r = run_in_root({"view", "examples/mlp.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing -o"), std::string::npos) << r.err;
  r = run_in_root({"view", "examples/nope.json", "-o", temp_path("x.html")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nope.json"), std::string::npos) << r.err;
  r = run_in_root({"view", "examples/mlp.json", "-o", "/nonexistent-dir/page.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  r = run_in_root({"view", "examples/mlp.json", "-o", temp_path("x.html"), "--dim", "nope=1..4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

TEST(ViewPage, GroupsByScope) {
  // symshape.fx records a node's module path as `scope`.
  const json data = data_of(R"({"format": "symshape-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2, 4]},
    {"name": "a", "op": "call_function", "target": "aten.relu.default",
     "args": [{"node": "x"}], "scope": "layer1.0.conv1"},
    {"name": "b", "op": "call_function", "target": "aten.relu.default",
     "args": [{"node": "a"}], "scope": "layer1.0.conv2"},
    {"name": "c", "op": "call_function", "target": "aten.relu.default",
     "args": [{"node": "b"}], "scope": "layer2"},
    {"name": "output", "op": "output", "args": [[{"node": "c"}]]}]})");
  const json& st = data["stages"][0];
  std::vector<std::string> ids;
  for (const json& g : st["groups"]) ids.push_back(g["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"layer1", "layer1.0", "layer1.0.conv1", "layer1.0.conv2",
                                           "layer2"}));
  EXPECT_EQ(st["groups"][1]["parent"], 0);
  EXPECT_EQ(st["groups"][1]["count"], 2);
  EXPECT_EQ(st["groups"][1]["label"], "0");
  EXPECT_EQ(node_named(st, "b")["g"], 3);
  EXPECT_EQ(node_named(st, "x")["g"], -1);
  EXPECT_FALSE(st["groups"][0]["collapsed"].get<bool>());  // a small graph starts expanded
  // Above the threshold, groups of two or more start collapsed.
  Expected<Graph> g = read_graph(R"({"format": "symshape-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2]},
    {"name": "a", "op": "call_function", "target": "aten.relu.default",
     "args": [{"node": "x"}], "scope": "m"},
    {"name": "b", "op": "call_function", "target": "aten.relu.default",
     "args": [{"node": "a"}], "scope": "m"},
    {"name": "output", "op": "output", "args": [[{"node": "b"}]]}]})");
  ASSERT_TRUE(g);
  PageOptions small;
  small.collapse_above = 3;
  EXPECT_TRUE(graph_page_data(*g, {}, small)["stages"][0]["groups"][0]["collapsed"].get<bool>());
}

TEST(ViewPage, OnnxScopesFromNodeNames) {
  const std::string out = temp_path("onnx.json");
  const std::vector<std::string> args = {"view",
                                         "examples/onnx/small_cnn.onnx",
                                         "-o",
                                         out,
                                         "--json",
                                         "--dim",
                                         "height=16..64",
                                         "--dim",
                                         "width=16..64"};
  const cli_test::CliResult r = run_in_root(args);
  ASSERT_EQ(r.exit_code, 0) << cli_test::describe(args, r);
  const json data = json::parse(read_text(out));
  std::set<std::string> ids;
  for (const json& g : data["stages"][0]["groups"]) ids.insert(g["id"]);
  EXPECT_TRUE(ids.count("/stem")) << data["stages"][0]["groups"].dump();
  EXPECT_TRUE(ids.count("/down")) << data["stages"][0]["groups"].dump();
  std::filesystem::remove(out);
}

TEST(ViewPage, LowerViewDiffTiesDecompositionToTheNodeItReplaced) {
  const std::string out = temp_path("lower.html");
  const std::vector<std::string> args = {"lower",
                                         "examples/gpt_small.json",
                                         "--passes",
                                         "decompose,dce",
                                         "--decompose-only",
                                         "layer_norm",
                                         "--view",
                                         out};
  const cli_test::CliResult r = run_in_root(args);
  ASSERT_EQ(r.exit_code, 0) << cli_test::describe(args, r);
  const json data = embedded_data(read_text(out));
  ASSERT_EQ(data["stages"].size(), 3u);
  EXPECT_EQ(data["stages"][0]["name"], "input");
  EXPECT_EQ(data["stages"][1]["name"], "after decompose");
  EXPECT_FALSE(data["stages"][0].contains("diff"));
  const json& d = data["stages"][1]["diff"];
  std::set<std::string> removed(d["removed"].begin(), d["removed"].end());
  std::set<std::string> added(d["added"].begin(), d["added"].end());
  EXPECT_EQ(removed.size(), 17u);  // every layer_norm of the model
  EXPECT_TRUE(removed.count("h0_ln1"));
  EXPECT_FALSE(added.empty());
  // Every tie names an added node and a removed one; h0_ln1 has its own new nodes.
  size_t for_h0 = 0;
  for (const auto& [node, replaced] : d["replaces"].items()) {
    EXPECT_TRUE(added.count(node)) << node;
    EXPECT_TRUE(removed.count(replaced.get<std::string>())) << replaced;
    for_h0 += replaced == "h0_ln1";
  }
  EXPECT_GE(for_h0, 3u);
  // The users of a decomposed layer_norm read a new node: rewritten.
  std::set<std::string> rewritten(d["rewritten"].begin(), d["rewritten"].end());
  EXPECT_TRUE(rewritten.count("h0_ln1_2d")) << d["rewritten"].dump();
  // dce changed nothing.
  EXPECT_TRUE(data["stages"][2]["diff"]["added"].empty());
  EXPECT_TRUE(data["stages"][2]["diff"]["removed"].empty());
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace symshape::view
