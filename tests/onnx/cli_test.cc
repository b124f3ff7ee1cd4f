// The CLI on ONNX models: check (text and --json, with the known elements of shape tensors),
// guards (sizes only: ONNX tensors have no strides), infer (shapes written back as dim_values
// and expression dim_params), run (no ONNX kernels: a clear error), and bad models.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "tests/cli/cli_runner.h"
#include "tests/onnx/onnx_builder.h"

namespace symshape::onnx::testing {
namespace {

using cli_test::result_text;
using cli_test::run_cli;

// A file in a fresh temporary directory, removed with it.
class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/symshape_onnx_cli_XXXXXX";
    if (mkdtemp(path) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = path;
  }
  ~TempDir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
  }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = file(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

 private:
  std::string dir_;
  std::vector<std::string> files_;
};

// x[N, C, 4] flattened to [N, -1] through Shape / Gather / Unsqueeze / Concat; and x added to
// y, whose first dim has no name (broadcasting makes it N).
std::string flatten_model() {
  ModelBuilder m(13);
  m.input("x", 1, {"N", "C", "4"}).input("y", 1, {"?", "C", "4"});
  m.ints("zero", {0}, {}).ints("axes", {0}).ints("minus_one", {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "zero"}, {"n"}, {attr_int("axis", 0)});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Concat", {"n1", "minus_one"}, {"target"}, {attr_int("axis", 0)});
  m.node("Reshape", {"x", "target"}, {"flat"});
  m.node("Add", {"x", "y"}, {"z"});
  m.output("flat").output("z");
  return m.bytes();
}

TEST(OnnxCli, CheckPrintsShapesAndKnownElements) {
  TempDir tmp;
  const std::string path = tmp.write("flatten.onnx", flatten_model());
  auto r = run_cli({"check", path});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("s: int64[3] = [N, C, 4]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("target: int64[2] = [N, -1]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("flat: float32[N, 4*C]\n"), std::string::npos) << r.out;

  auto j = run_cli({"check", "--json", path});
  ASSERT_EQ(j.exit_code, 0) << result_text(j);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["status"], "ok");
  bool seen = false;
  for (const auto& n : doc["nodes"]) {
    if (n["name"] != "s") continue;
    seen = true;
    EXPECT_EQ(n["value"]["shape"], nlohmann::json::array({"3"}));
    EXPECT_EQ(n["value"]["data"], nlohmann::json::array({"N", "C", "4"}));
  }
  EXPECT_TRUE(seen) << j.out;
}

TEST(OnnxCli, CheckTakesDimRangesByDimParam) {
  TempDir tmp;
  const std::string path = tmp.write("flatten.onnx", flatten_model());
  auto r = run_cli({"check", path, "--dim", "N=1..64"});
  EXPECT_EQ(r.exit_code, 0) << result_text(r);
  auto bad = run_cli({"check", path, "--dim", "M=1..64"});
  EXPECT_EQ(bad.exit_code, 2) << result_text(bad);
  EXPECT_NE(bad.err.find("'M'"), std::string::npos) << bad.err;
}

TEST(OnnxCli, GuardsReadSizesOnlyNoStrides) {
  TempDir tmp;
  const std::string path = tmp.write("flatten.onnx", flatten_model());
  auto r = run_cli({"guards", path});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_EQ(r.out.find("stride"), std::string::npos) << r.out;
  // y's unnamed dim must broadcast with N: a guard over y's sizes.
  EXPECT_NE(r.out.find("L['y'].size()[0]"), std::string::npos) << r.out;
  auto j = run_cli({"guards", path, "--lang", "json"});
  ASSERT_EQ(j.exit_code, 0) << result_text(j);
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  ASSERT_TRUE(doc.contains("sources")) << j.out;
  for (const auto& s : doc["sources"]) EXPECT_NE(s["kind"], "stride") << s.dump();
}

TEST(OnnxCli, InferWritesShapesAsDimValuesAndExpressions) {
  TempDir tmp;
  const std::string path = tmp.write("flatten.onnx", flatten_model());
  const std::string out = tmp.file("inferred.onnx");
  auto r = run_cli({"infer", path, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << result_text(r);
  EXPECT_NE(r.out.find("wrote " + out), std::string::npos) << r.out;

  ::onnx::ModelProto model;
  std::ifstream in(out, std::ios::binary);
  ASSERT_TRUE(model.ParseFromIstream(&in));
  auto dims_of = [](const ::onnx::ValueInfoProto& v) {
    std::vector<std::string> dims;
    for (const auto& d : v.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param());
    return dims;
  };
  std::map<std::string, std::vector<std::string>> info;
  for (const auto& v : model.graph().value_info()) info[v.name()] = dims_of(v);
  EXPECT_EQ(info["target"], (std::vector<std::string>{"2"}));
  EXPECT_EQ(info.count("flat"), 0u) << "graph outputs are typed in place, not in value_info";
  EXPECT_EQ(info["s"], (std::vector<std::string>{"3"}));
  EXPECT_EQ(model.graph().value_info(0).type().tensor_type().elem_type(), 7);  // s: int64
  ASSERT_EQ(model.graph().output_size(), 2);
  EXPECT_EQ(model.graph().output(0).type().tensor_type().elem_type(), 1);
  EXPECT_EQ(dims_of(model.graph().output(0)), (std::vector<std::string>{"N", "4*C"}));
  EXPECT_EQ(dims_of(model.graph().output(1)), (std::vector<std::string>{"N", "C", "4"}));
  // y's unnamed dim got the name broadcasting made it.
  EXPECT_EQ(dims_of(model.graph().input(1)), (std::vector<std::string>{"N", "C", "4"}));
  // x keeps its names.
  EXPECT_EQ(dims_of(model.graph().input(0)), (std::vector<std::string>{"N", "C", "4"}));
  // What infer wrote, symshape reads back.
  auto again = run_cli({"check", out});
  EXPECT_EQ(again.exit_code, 0) << result_text(again);

  // -o - writes the model to stdout.
  auto piped = run_cli({"infer", path, "-o", "-"});
  ASSERT_EQ(piped.exit_code, 0) << result_text(piped);
  ::onnx::ModelProto from_stdout;
  EXPECT_TRUE(from_stdout.ParseFromString(piped.out));
}

TEST(OnnxCli, InferErrorsExitTwoAndWriteNothing) {
  TempDir tmp;
  const std::string good = tmp.write("flatten.onnx", flatten_model());
  const std::string out = tmp.file("out.onnx");
  auto no_output = run_cli({"infer", good});
  EXPECT_EQ(no_output.exit_code, 2) << result_text(no_output);
  EXPECT_NE(no_output.err.find("-o"), std::string::npos) << no_output.err;
  auto not_onnx = run_cli({"infer", tmp.write("g.json", "{}"), "-o", out});
  EXPECT_EQ(not_onnx.exit_code, 2) << result_text(not_onnx);
  const std::string bytes = flatten_model();
  const std::string truncated = tmp.write("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  auto bad = run_cli({"infer", truncated, "-o", out});
  EXPECT_EQ(bad.exit_code, 2) << result_text(bad);
  EXPECT_NE(bad.err.find("does not parse"), std::string::npos) << bad.err;
  auto missing = run_cli({"infer", tmp.file("missing.onnx"), "-o", out});
  EXPECT_EQ(missing.exit_code, 2) << result_text(missing);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "nothing is written on an error";

  // A shape error: exit 1, naming the node.
  ModelBuilder m;
  m.input("x", 1, {"5", "3"}).ints("target", {4, -1});
  m.node("Reshape", {"x", "target"}, {"y"}).output("y");
  auto shape_error = run_cli({"infer", tmp.write("bad_reshape.onnx", m.bytes()), "-o", out});
  EXPECT_EQ(shape_error.exit_code, 1) << result_text(shape_error);
  EXPECT_NE(shape_error.err.find("y"), std::string::npos) << shape_error.err;
  EXPECT_NE(access(out.c_str(), F_OK), 0);
}

TEST(OnnxCli, UnknownOpIsAnErrorNamingIt) {
  TempDir tmp;
  ModelBuilder m;
  m.input("x", 1, {"N"});
  m.node("NoSuchOp", {"x"}, {"y"}).output("y");
  const std::string path = tmp.write("unknown.onnx", m.bytes());
  auto r = run_cli({"check", path});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_NE(r.err.find("onnx.NoSuchOp"), std::string::npos) << r.err;
}

TEST(OnnxCli, RunSaysThereIsNoKernel) {
  TempDir tmp;
  const std::string path = tmp.write("flatten.onnx", flatten_model());
  auto r = run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_NE(r.err.find("no kernel for onnx."), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Names are bytes: one that is not UTF-8 is spelled out as \xNN in the message on stderr and in
// the --json document, which stay UTF-8.
TEST(OnnxCli, NamesThatAreNotUtf8AreEscapedInMessages) {
  TempDir tmp;
  ModelBuilder m;
  m.input("x\xff", 1, {"N\xfe"});
  m.node("NoSuchOp", {"x\xff"}, {"y\xc3"}).output("y\xc3");
  const std::string path = tmp.write("bytes.onnx", m.bytes());
  auto r = run_cli({"check", path});
  EXPECT_EQ(r.exit_code, 2) << result_text(r);
  EXPECT_TRUE(is_utf8(r.err)) << r.err;
  // The node is named by its first output, y\xc3.
  EXPECT_NE(r.err.find("node y\\xc3 (onnx.NoSuchOp)"), std::string::npos) << r.err;
  auto j = run_cli({"check", path, "--json"});
  EXPECT_EQ(j.exit_code, 2) << result_text(j);
  ASSERT_TRUE(is_utf8(j.out)) << result_text(j);
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["nodes"][0]["name"], "x\\xff") << j.out;
  EXPECT_NE(doc["error"].get<std::string>().find("node y\\xc3"), std::string::npos) << j.out;
}

}  // namespace
}  // namespace symshape::onnx::testing
