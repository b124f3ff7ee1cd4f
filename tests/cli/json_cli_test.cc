// End-to-end tests of `--json` on `run`, `check-inputs`, `expr` and `guards --lang json`: the real
// binary's stdout parsed with nlohmann::json, concrete values checked, and the errors `check
// --json` puts in its document (status and error, nothing on stderr, the text's exit code).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>
#include <vector>

#include "tests/cli/golden.h"

namespace symshape::cli_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Runs the command from the repository root; it must exit with `exit_code`, print one JSON
// document (and a newline) on stdout and nothing on stderr. Returns the document.
json run_json(const std::vector<std::string>& args, int exit_code) {
  CliResult r = run_in_root(args);
  SCOPED_TRACE(describe(args, r));
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, exit_code);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(r.out.ends_with("}\n"));
  json doc = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(doc.is_object()) << "not one JSON document: " << r.out;
  return doc;
}

bool contains(const json& text, const std::string& part) {
  return text.is_string() && text.get<std::string>().find(part) != std::string::npos;
}

// A graph file in a temporary directory, removed at the end of the test.
class JsonGraphFile {
 public:
  JsonGraphFile(const std::string& name, const json& nodes, const json& dims = json::object()) {
    path_ = fs::temp_directory_path() /
            ("symshape_json_cli_" + std::to_string(::getpid()) + "_" + name);
    json graph = {{"format", "symshape-graph"}, {"version", 1}, {"dims", dims}, {"nodes", nodes}};
    std::ofstream(path_) << graph.dump() << "\n";
  }
  ~JsonGraphFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// ---- run ----

TEST(RunJsonCli, DimsOutputsAndTheTextsChecksum) {
  json doc = run_json({"run", "examples/mlp.json", "--dim", "batch=2", "--json"}, 0);
  EXPECT_EQ(doc["status"], "ok");
  EXPECT_EQ(doc["dims"], json({{"batch", 2}}));
  EXPECT_EQ(doc["world_size"], 1);
  ASSERT_EQ(doc["outputs"].size(), 1u);
  const json& relu = doc["outputs"][0];
  EXPECT_EQ(relu["name"], "relu");
  EXPECT_EQ(relu["dtype"], "float32");
  EXPECT_EQ(relu["shape"], json({2, 64}));
  EXPECT_FALSE(relu.contains("values"));  // only with --print-values
  EXPECT_EQ(doc["runtime_asserts"], json::array());
  EXPECT_TRUE(doc["error"].is_null());
  // The checksum is the one the text prints.
  CliResult text = run_in_root({"run", "examples/mlp.json", "--dim", "batch=2"});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out, "dims: batch=2\nrelu: float32[2, 64] checksum " +
                          relu["checksum"].get<std::string>() + "\n");
}

TEST(RunJsonCli, ValuesAndScalarsAsTheTextShowsThem) {
  JsonGraphFile g("values.json", json::parse(R"([
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "w", "op": "get_attr", "target": "w", "dtype": "bool", "shape": [2], "value": [true, false]},
  {"name": "r", "op": "call_function", "target": "aten.arange.start", "args": [{"expr": "n - 1"}, {"expr": "2*n"}]},
  {"name": "h", "op": "call_function", "target": "aten.full.default", "args": [[2, 1], 0.1], "kwargs": {"dtype": {"dtype": "float16"}}},
  {"name": "n2", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "output", "op": "output", "args": [[{"node": "r"}, {"node": "w"}, {"node": "h"}, {"node": "n2"}]]}])"));
  json doc = run_json({"run", g.path(), "--size", "x=3", "--print-values", "--json"}, 0);
  EXPECT_EQ(doc["dims"], json({{"n", 3}}));
  const json& out = doc["outputs"];
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0]["name"], "r");
  EXPECT_EQ(out[0]["dtype"], "int64");
  EXPECT_EQ(out[0]["values"], json({2, 3, 4, 5}));
  EXPECT_EQ(out[1]["values"], json({true, false}));
  // float16's 0.1 as the text prints it, 0.099975586.
  EXPECT_EQ(out[2]["shape"], json({2, 1}));
  EXPECT_EQ(out[2]["values"], json::parse("[[0.099975586], [0.099975586]]"));
  EXPECT_EQ(out[3], json({{"name", "n2"}, {"value", 3}}));
}

TEST(RunJsonCli, RunTimeFailureIsInTheDocumentWithTheAssertsOutcome) {
  JsonGraphFile g("assert.json", json::parse(R"([
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n"]},
  {"name": "size", "op": "call_function", "target": "aten.sym_size.int", "args": [{"node": "x"}, 0]},
  {"name": "big", "op": "call_function", "target": "operator.ge", "args": [{"node": "size"}, 5]},
  {"name": "check", "op": "call_function", "target": "aten._assert_scalar.default", "args": [{"node": "big"}, "n >= 5"]},
  {"name": "output", "op": "output", "args": [{"node": "x"}]}])"));
  json failed = run_json({"run", g.path(), "--size", "x=3", "--json"}, 1);
  EXPECT_EQ(failed["status"], "runtime_error");
  EXPECT_EQ(failed["outputs"], json::array());
  EXPECT_EQ(failed["error"], "node check (aten._assert_scalar.default): assertion failed: n >= 5");
  EXPECT_EQ(failed["runtime_asserts"],
            json::parse(R"([{"node": "check", "target": "aten._assert_scalar.default",
                             "outcome": "failed"}])"));
  json passed = run_json({"run", g.path(), "--size", "x=5", "--json"}, 0);
  EXPECT_EQ(passed["runtime_asserts"][0]["outcome"], "passed");
  EXPECT_EQ(passed["outputs"][0]["shape"], json({5}));
  // Bad input found by the run (sizes that do not fit the graph) exits 2, in the document too.
  json bad = run_json({"run", "examples/mlp.json", "--size", "x=2,127", "--json"}, 2);
  EXPECT_EQ(bad["status"], "input_error");
  EXPECT_TRUE(contains(bad["error"], "dim 1 of input 'x' is declared 128 but its size is 127"))
      << bad["error"];
}

TEST(RunJsonCli, HostileNamesAreData) {
  const std::string name = "x\"\ny";
  json nodes = json::array();
  nodes.push_back({{"name", name}, {"op", "placeholder"}, {"dtype", "float32"}, {"shape", {3}}});
  nodes.push_back({{"name", "output"}, {"op", "output"}, {"args", {{{{"node", name}}}}}});
  JsonGraphFile g("hostile.json", nodes);
  json doc = run_json({"run", g.path(), "--json"}, 0);
  ASSERT_EQ(doc["outputs"].size(), 1u);
  EXPECT_EQ(doc["outputs"][0]["name"], name);
  EXPECT_EQ(doc["outputs"][0]["shape"], json({3}));
}

TEST(RunJsonCli, AFlagOrAGraphThatCannotBeReadHasNoDocumentAsForCheck) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "no/such/graph.json", "--json"},
        {"run", "examples/mlp.json", "--dim", "bacth=2", "--json"},
        {"run", "examples/mlp.json", "--json=yes"}}) {
    CliResult r = run_in_root(args);
    EXPECT_EQ(r.exit_code, 2) << describe(args, r);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("symshape: error: ")) << r.err;
  }
}

// ---- check-inputs ----

TEST(CheckInputsJsonCli, AcceptedAndRejected) {
  const std::string g = "tests/guards/graphs/merge.json";
  json ok = run_json({"check-inputs", g, "--size", "x=4,32", "--size", "w=32,16", "--json"}, 0);
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["accepted"], true);
  EXPECT_EQ(ok["guards"], 8);
  EXPECT_EQ(ok["runtime_asserts"], 0);
  EXPECT_TRUE(ok["failure"].is_null());
  EXPECT_TRUE(ok["error"].is_null());

  json no = run_json({"check-inputs", g, "--size", "x=4,32", "--size", "w=31,16", "--json"}, 1);
  EXPECT_EQ(no["status"], "rejected");
  EXPECT_EQ(no["accepted"], false);
  const json& f = no["failure"];
  EXPECT_EQ(f["guard"], "L['w'].size()[0] == L['x'].size()[1]");
  EXPECT_EQ(f["values"], json::parse(R"([{"source": "L['x'].size()[1]", "value": 32},
                                         {"source": "L['w'].size()[0]", "value": 31}])"));
  EXPECT_EQ(f["where"], "node mm (aten.mm.default, mm)");
  EXPECT_EQ(f["provenance"], json({{"node", "mm"}, {"op", "aten.mm.default"}, {"rule", "mm"}}));
  EXPECT_TRUE(f["reason"].is_null());
  // The text's line, word for word.
  CliResult text = run_in_root({"check-inputs", g, "--size", "x=4,32", "--size", "w=31,16"});
  EXPECT_EQ(text.out, "rejected: " + f["message"].get<std::string>() + "\n");
}

TEST(CheckInputsJsonCli, ValuesBeyondInt64AreStrings) {
  const std::string big = "123456789012345678901234567890";
  json no = run_json({"check-inputs", "tests/guards/graphs/merge.json", "--size", "x=4," + big,
                      "--size", "w=32,16", "--json"},
                     1);
  ASSERT_TRUE(no["failure"].is_object()) << no;
  bool found = false;
  for (const json& v : no["failure"]["values"]) found = found || v["value"] == big;
  EXPECT_TRUE(found) << no["failure"];
}

TEST(CheckInputsJsonCli, AShapeErrorIsInTheDocument) {
  json doc = run_json({"check-inputs", "tests/propagate/graphs/broadcast_error.json", "--size",
                       "x=2,4", "--size", "y=2,5", "--json"},
                      1);
  EXPECT_EQ(doc["status"], "shape_error");
  EXPECT_TRUE(doc["accepted"].is_null());
  EXPECT_TRUE(contains(doc["error"], "cannot broadcast [a, 4] with [a, 5]")) << doc["error"];
}

// ---- guards --lang json ----

TEST(GuardsJsonCli, AViolatedDeclarationIsADocument) {
  json doc =
      run_json({"guards", "tests/propagate/graphs/reshape_divisible.json", "--lang", "json"}, 1);
  EXPECT_EQ(doc["status"], "constraint_violation");
  ASSERT_EQ(doc["problems"].size(), 1u);
  const json& p = doc["problems"][0];
  EXPECT_EQ(p["dim"], "n");
  EXPECT_TRUE(contains(p["message"], "satisfy the generated guard `n % 2 == 0`")) << p;
  EXPECT_EQ(p["fixes"], json({"_n = Dim('_n', min=1, max=512)", "n = 2*_n"}));
  EXPECT_TRUE(contains(doc["error"], "Constraints violated (n)!"));
  // The text keeps its report on stderr, with the same exit code.
  CliResult text = run_in_root({"guards", "tests/propagate/graphs/reshape_divisible.json"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out, "");
  EXPECT_EQ(text.err, doc["error"].get<std::string>());
}

TEST(GuardsJsonCli, AShapeErrorIsADocument) {
  json doc =
      run_json({"guards", "tests/propagate/graphs/broadcast_error.json", "--lang", "json"}, 1);
  EXPECT_EQ(doc["status"], "shape_error");
  EXPECT_EQ(doc["problems"], json::array());
  EXPECT_TRUE(contains(doc["error"], "node add_3 (aten.add.Tensor): cannot broadcast"));
}

// ---- expr ----

TEST(ExprJsonCli, EveryCommand) {
  json s = run_json({"expr", "simplify", "(4*x + 3)//4", "--range", "x=0..100", "--json"}, 0);
  EXPECT_EQ(s, json::parse(R"({"command": "simplify", "input": "(4*x + 3)//4", "status": "ok",
                               "result": "x", "error": null})"));
  json b = run_json({"expr", "bounds", "(n*320 + 255) % 256", "--json"}, 0);
  EXPECT_EQ(b["result"], "[63, 255]");
  EXPECT_EQ(b["lo"], 63);
  EXPECT_EQ(b["hi"], 255);
  json u = run_json({"expr", "bounds", "x - 1", "--range", "x=-inf..inf", "--json"}, 0);
  EXPECT_EQ(u["result"], "[-inf, inf]");
  EXPECT_TRUE(u["lo"].is_null());
  EXPECT_TRUE(u["hi"].is_null());
  json p =
      run_json({"expr", "prove", "a < c", "--assume", "a < b", "--assume", "b < c", "--json"}, 0);
  EXPECT_EQ(p["command"], "prove");
  EXPECT_EQ(p["result"], "true");
  EXPECT_EQ(run_json({"expr", "prove", "x != 5", "--json"}, 0)["result"], "unknown");
  json e = run_json({"expr", "eval", "x % y", "x=-7", "y=2", "--json"}, 0);
  EXPECT_EQ(e["result"], "1");
  EXPECT_EQ(e["value"], 1);
  EXPECT_EQ(run_json({"expr", "eval", "2**100", "--json"}, 0)["value"],
            "1267650600228229401496703205376");
  EXPECT_EQ(run_json({"expr", "eval", "x < y", "x=1", "y=2", "--json"}, 0)["value"], true);
  // `-` reads the expression from standard input; the document shows it.
  CliResult in = run_cli({"expr", "simplify", "-", "--json"}, "(6*x)//4\n");
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_EQ(json::parse(in.out)["input"], "(6*x)//4");
  EXPECT_EQ(json::parse(in.out)["result"], "(3*x)//2");
}

TEST(ExprJsonCli, ErrorsAreInTheDocument) {
  json z = run_json({"expr", "eval", "x // y", "x=1", "y=0", "--json"}, 2);
  EXPECT_EQ(z["status"], "input_error");
  EXPECT_TRUE(z["result"].is_null());
  EXPECT_EQ(z["error"], "cannot evaluate 'x // y': division by zero");
  json parse = run_json({"expr", "simplify", "(4*x +* 3", "--json"}, 2);
  EXPECT_TRUE(contains(parse["error"], "column 7: expected an expression after '+'"));
  json facts = run_json({"expr", "prove", "x < 1", "--assume", "x < 1", "--json"}, 2);
  EXPECT_TRUE(contains(facts["error"], "contradictory facts")) << facts;
  json missing = run_json({"expr", "bounds", "--json"}, 2);
  EXPECT_TRUE(missing["input"].is_null());
  EXPECT_TRUE(contains(missing["error"], "missing EXPR"));
  // A byte that is not UTF-8 is spelled \xNN, as in the messages: the document stays valid JSON.
  json bytes = run_json({"expr", "simplify", "x\xff", "--json"}, 2);
  EXPECT_EQ(bytes["input"], "x\\xff");
  // A flag parse_flags refuses has no document, as for check.
  CliResult flag = run_cli({"expr", "simplify", "x", "--frobnicate", "--json"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.out, "");
  EXPECT_EQ(flag.err, "symshape: error: unknown flag '--frobnicate'\n");
}

// ---- help ----

TEST(JsonCli, EveryHelpMentionsJson) {
  for (const char* command : {"run", "check-inputs", "expr"}) {
    CliResult r = run_cli({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << command << ": " << r.out;
  }
  CliResult g = run_cli({"guards", "--help"});
  EXPECT_NE(g.out.find("json"), std::string::npos) << g.out;
}

}  // namespace
}  // namespace symshape::cli_test
