// The reader's fast path (json.cc, FastReader) held to its document path. Whatever the fast path
// reads must be exactly the graph the document path reads from the same text; on anything else
// it must give up, so that read_graph's answer (the graph, or the message) is the document path's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/gen.h"
#include "symshape/ir.h"
#include "symshape/ir/json_paths.h"

namespace symshape {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = SYMSHAPE_SOURCE_DIR;

std::string fast_file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Holds the paths to each other on one text and returns whether the fast path read it. When it
// did, the document path must read the same graph (the canonical writer prints both the same);
// either way read_graph must answer as the document path does.
bool fast_path_agrees(const std::string& text, const std::string& what) {
  const std::optional<Graph> fast = detail::read_graph_fast(text);
  const Expected<Graph> document = detail::read_graph_document(text);
  const Expected<Graph> public_answer = read_graph(text);
  EXPECT_EQ(public_answer.ok(), document.ok()) << what;
  if (public_answer.ok() && document.ok()) {
    EXPECT_EQ(write_graph(*public_answer), write_graph(*document)) << what;
  } else if (!public_answer.ok() && !document.ok()) {
    EXPECT_EQ(public_answer.error(), document.error()) << what;
  }
  if (!fast) return false;
  EXPECT_TRUE(document.ok()) << what << ": the fast path read a text the document path refuses ("
                             << document.error() << ")";
  if (document.ok()) {
    EXPECT_EQ(write_graph(*fast), write_graph(*document)) << what;
  }
  return true;
}

std::string fast_graph_text(const std::string& nodes, const std::string& dims = "") {
  return R"({"format": "symshape-graph", "version": 1, )" +
         (dims.empty() ? "" : R"("dims": )" + dims + ", ") + R"("nodes": [)" + nodes + "]}";
}

const char* const kFastX =
    R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [2, "n"]})";

// Every JSON file in the repository (graphs, and files that are not graphs at all).
TEST(GraphJsonFastPath, AgreesOnEveryJsonFileInTheRepository) {
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json")
        files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 50u);
  size_t fast = 0;
  for (const fs::path& f : files) fast += fast_path_agrees(fast_file_text(f), f.string());
  // Not a lower bound to tune: the examples below must all take the fast path.
  EXPECT_GT(fast, 0u);
  for (const auto& entry : fs::directory_iterator(kSourceDir / "examples")) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_TRUE(detail::read_graph_fast(fast_file_text(entry.path())))
        << entry.path() << " no longer takes the fast path";
  }
}

TEST(GraphJsonFastPath, ReadsTheGeneratedGraphs) {
  std::vector<std::pair<std::string, Expected<std::string>>> texts;
  texts.emplace_back("llama", gen::llama_graph({.layers = 2}));
  texts.emplace_back("llama tp 2", gen::llama_graph({.layers = 2, .tp = 2}));
  texts.emplace_back("resnet", gen::resnet_graph({.blocks = 1}));
  for (const auto& [what, text] : texts) {
    ASSERT_TRUE(text.ok()) << what;
    EXPECT_TRUE(fast_path_agrees(*text, what)) << what << " did not take the fast path";
  }
}

// The common forms the fast path reads itself, each checked against the document path.
TEST(GraphJsonFastPath, ReadsTheCommonForms) {
  const std::vector<std::string> texts = {
      fast_graph_text(kFastX, R"({"n": {"min": 2, "max": 64, "hint": 8}})"),
      fast_graph_text(kFastX, R"({"n": {"min": null, "max": "inf"}})"),
      fast_graph_text(
          std::string(kFastX) +
          R"(, {"name": "y", "op": "call_function", "target": "aten.sum.dim_IntList",)"
          R"( "args": [{"node": "x"}, [-1, 0], true, null, -0, 1.5e-3, 2.0, "mean",)"
          R"( {"expr": "2*n"}, {"dtype": "float16"}, {"device": "cpu"},)"
          R"( {"layout": "torch.strided"}, {"memory_format": "channels_last"}, [[], [[]]]],)"
          R"( "kwargs": {"dim": [0], "keepdim": false}, "stride": ["n", 1], "dtype": "float32"})"),
      // White space everywhere JSON allows it.
      " \n\t\r{ \"format\" : \"symshape-graph\" , \"version\" : 1 , \"nodes\" : [ ] } \n",
      // Keys in any order.
      R"({"nodes": [], "version": 1, "format": "symshape-graph"})",
      fast_graph_text(R"({"op": "output", "args": [[]], "name": "out"})"),
      fast_graph_text(
          R"({"name": "c", "op": "call_function", "target": "aten.full.default",)"
          R"( "args": [[3], -9223372036854775808, 9223372036854775807, 1e308, -2.5E-7]})"),
  };
  for (const std::string& text : texts) EXPECT_TRUE(fast_path_agrees(text, text)) << text;
}

// Everything else: the fast path gives up and the document path answers, graph or message.
TEST(GraphJsonFastPath, GivesUpOnTheRareFormsAndOnEveryError) {
  const std::vector<std::string> texts = {
      // Rare forms that read fine.
      fast_graph_text(R"({"name": "a\"b", "op": "placeholder", "dtype": "float32", "shape": []})"),
      fast_graph_text(
          R"({"name": "caf\u00e9", "op": "placeholder", "dtype": "float32", "shape": []})"),
      fast_graph_text(
          "{\"name\": \"caf\xc3\xa9\", \"op\": \"placeholder\", \"dtype\": \"float32\", "
          "\"shape\": []}"),
      fast_graph_text(R"({"name": "w", "op": "get_attr", "target": "w", "dtype": "float32",)"
                      R"( "shape": [2], "value": [1.0, 2.0]})"),
      fast_graph_text(
          R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [], "note": 1})"),
      R"({"format": "symshape-graph", "version": 1, "nodes": [], "producer": "test"})",
      fast_graph_text(R"({"name": "f", "op": "call_function", "target": "aten.full.default",)"
                      R"( "args": [[2], {"float": "inf"}]})"),
      fast_graph_text(R"({"name": "f", "op": "call_function", "target": "aten.full.default",)"
                      R"( "args": [[2], 1e400]})"),
      // Errors.
      fast_graph_text(R"({"name": "x", "op": "placeholder", "name": "y"})"),
      fast_graph_text(
          R"({"name": "y", "op": "call_function", "target": "t", "kwargs": {"a": 1, "a": 2}})"),
      fast_graph_text(R"({"name": "", "op": "placeholder"})"),
      fast_graph_text(R"({"name": "x"})"),
      fast_graph_text(R"({"name": "x", "op": "constant"})"),
      fast_graph_text(R"({"name": "x", "op": "placeholder", "dtype": "float33"})"),
      fast_graph_text(
          R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["n +"]})"),
      fast_graph_text(R"({"name": "x", "op": "placeholder", "dtype": "float32", "shape": [1.5]})"),
      fast_graph_text(
          R"({"name": "y", "op": "call_function", "target": "t", "args": [{"node": ""}]})"),
      fast_graph_text(
          R"({"name": "y", "op": "call_function", "target": "t", "args": [{"node": "x", "expr": "1"}]})"),
      fast_graph_text(
          R"({"name": "y", "op": "call_function", "target": "t", "args": [{"layout": "dense"}]})"),
      fast_graph_text(
          R"({"name": "y", "op": "call_function", "target": "t", "args": [18446744073709551616]})"),
      fast_graph_text(R"({"name": "y", "op": "call_function", "target": "t", "args": [01]})"),
      fast_graph_text(R"({"name": "y", "op": "call_function", "target": "t", "args": [1.]})"),
      fast_graph_text(R"({"name": "y", "op": "call_function", "target": "t", "args": [+1]})"),
      fast_graph_text(R"({"name": "y", "op": "call_function", "target": "t", "args": [nul]})"),
      fast_graph_text(kFastX, R"({"n": {"min": 9, "max": 2}})"),
      fast_graph_text(kFastX, R"({"max": {"min": 1}})"),
      fast_graph_text(kFastX, R"({"n": {"min": 1, "min": 2}})"),
      R"({"format": "symshape-graph", "version": 2, "nodes": []})",
      R"({"format": "symshape-graph", "version": 1.0, "nodes": []})",
      R"({"format": "symshape-graph", "version": 1, "nodes": [], "nodes": []})",
      R"({"format": "symshape-graph", "version": 1})",
      R"({"format": "symshape-graph", "version": 1, "nodes": []} [])",
      R"({"format": "symshape-graph", "version": 1, "nodes": [)",
      R"({"format": "symshape-graph", "version": 1, "nodes": [],})",
      "\xef\xbb\xbf"
      R"({"format": "symshape-graph", "version": 1, "nodes": []})",
      "",
      "[]",
      fast_graph_text(std::string(200, '[') + std::string(200, ']')),
  };
  for (const std::string& text : texts) {
    EXPECT_FALSE(fast_path_agrees(text, text)) << "the fast path read: " << text;
  }
}

// Random edits of real graph texts: bytes deleted, inserted and replaced with the characters
// that matter to JSON. Whatever the fast path reads must match the document path.
TEST(GraphJsonFastPath, AgreesOnMutatedGraphs) {
  Expected<std::string> llama = gen::llama_graph({.layers = 1});
  ASSERT_TRUE(llama.ok());
  const std::vector<std::string> seeds = {fast_file_text(kSourceDir / "examples/mlp.json"), *llama};
  const std::string alphabet = "{}[]\",:0123456789-+.eE \\nulltruefalse\x01\xc3";
  std::mt19937 rng(20261125);
  size_t fast = 0, total = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 600; ++i) {
      std::string text = seed;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const size_t at = rng() % text.size();
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0: text.erase(at, 1); break;
          case 1: text.insert(at, 1, c); break;
          default: text[at] = c; break;
        }
      }
      ++total;
      fast += fast_path_agrees(text, "mutant " + std::to_string(total));
    }
  }
  // Both outcomes occur, so the comparison above ran both ways.
  EXPECT_GT(fast, 0u);
  EXPECT_LT(fast, total);
}

}  // namespace
}  // namespace symshape
