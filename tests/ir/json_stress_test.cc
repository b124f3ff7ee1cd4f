// Large inputs and mangled inputs: the reader stays fast, and never crashes or throws.
#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "symshape/ir.h"
#include "tests/ir/ir_test_util.h"

namespace symshape {
namespace {

using Json = nlohmann::ordered_json;

// Sanitizer and unoptimized builds are too slow for time limits; they still run the tests. Time is
// the process's CPU time, so that a loaded machine does not fail the test.
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
constexpr bool kTimed = true;
#else
constexpr bool kTimed = false;
#endif

using ir_test::slurp;

double seconds_since(std::clock_t start) {
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

// A chain of n elementwise nodes on one input, each about 200 bytes in canonical form.
std::string chain(int n) {
  std::string s = R"({"format": "symshape-graph", "version": 1,
 "dims": {"batch": {"min": 1, "max": 64, "hint": 8}, "seq": {"min": 2, "hint": 16}},
 "nodes": [
  {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", "2*seq", 128]})";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = "add_" + std::to_string(i);
    s +=
        ",\n  {\"name\": \"" + name +
        R"(", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": ")" + prev +
        R"("}, {"node": "x"}], "kwargs": {"alpha": 0.5}, "dtype": "float32", "shape": ["batch", "2*seq", 128], "stride": ["256*seq", 128, 1]})";
    prev = name;
  }
  s += ",\n  {\"name\": \"output\", \"op\": \"output\", \"args\": [[{\"node\": \"" + prev +
       "\"}]]}]}\n";
  return s;
}

// 10 MB where time is measured; a fifth of that where only memory safety is (under ASan the
// full size takes tens of seconds and finds nothing more).
constexpr int kChainNodes = kTimed ? 50000 : 10000;

TEST(GraphJsonStress, LargeChainReadsVerifiesAndWritesQuickly) {
  std::string text = chain(kChainNodes);
  ASSERT_GT(text.size(), kChainNodes * 200u);
  std::clock_t start = std::clock();
  Expected<Graph> g = read_graph(text);
  double read_s = seconds_since(start);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->nodes.size(), kChainNodes + 2u);

  start = std::clock();
  EXPECT_EQ(verify(*g), std::nullopt);
  double verify_s = seconds_since(start);

  start = std::clock();
  std::string written = write_graph(*g);
  double write_s = seconds_since(start);
  EXPECT_TRUE(written == text) << "the generated chain is canonical and must round-trip";

  if (kTimed) {
    EXPECT_LT(read_s, 1.5);  // about 0.35 s when measured
    EXPECT_LT(verify_s, 0.5);
    EXPECT_LT(write_s, 1.0);  // about 0.05 s
  }
  RecordProperty("read_seconds", std::to_string(read_s));
  RecordProperty("write_seconds", std::to_string(write_s));
}

// One random edit of the text: the kinds of damage hand edits and broken tools do.
void mutate(std::string& s, std::mt19937& rng) {
  static const char* const kTokens[] = {
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      "\"",
      "null",
      "true",
      "-1",
      "0.5",
      "1e999",
      "99999999999999999999",
      "-0",
      "\"\"",
      "{}",
      "[]",
      "\"node\"",
      "{\"node\": \"zz\"}",
      "{\"node\": \"x\"}",
      "{\"expr\": \"1//0\"}",
      "{\"expr\": \"batch*(\"}",
      "{\"dtype\": \"x\"}",
      "{\"float\": \"inf\"}",
      "\"placeholder\"",
      "\"output\"",
      "\"get_attr\"",
      "\"batch\"",
      "\"-5\"",
      "\"name\"",
      "\"args\"",
      "\"shape\": [1]",
      "\\u0000",
      "\xff",
      "\"dims\"",
      "{\"min\": 9, \"max\": 2}",
      "\"version\": 2",
  };
  auto pos = [&](size_t extra = 0) {
    return std::uniform_int_distribution<size_t>(0, s.size() + extra - (s.empty() ? 0 : 1))(rng);
  };
  switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
    case 0:  // delete a run of characters
      if (!s.empty()) s.erase(pos(), std::uniform_int_distribution<size_t>(1, 8)(rng));
      break;
    case 1:  // duplicate a run
      if (!s.empty()) {
        size_t p = pos();
        s.insert(p, s.substr(p, std::uniform_int_distribution<size_t>(1, 40)(rng)));
      }
      break;
    case 2:  // swap two characters
      if (s.size() > 1) std::swap(s[pos()], s[pos()]);
      break;
    case 3: {  // replace a short run by a token
      const char* t =
          kTokens[std::uniform_int_distribution<size_t>(0, std::size(kTokens) - 1)(rng)];
      size_t p = pos(1);
      s.replace(p, std::uniform_int_distribution<size_t>(0, 6)(rng), t);
      break;
    }
    case 4:  // truncate
      s.resize(pos(1));
      break;
    case 5: {  // insert nesting, sometimes past the limit
      int depth = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                      ? 1500
                      : std::uniform_int_distribution<int>(1, 30)(rng);
      bool close = std::uniform_int_distribution<int>(0, 1)(rng);
      std::string open(depth, std::uniform_int_distribution<int>(0, 1)(rng) ? '[' : '{');
      s.insert(pos(1), open + (close ? std::string(depth, open[0] == '[' ? ']' : '}') : ""));
      break;
    }
    case 6:  // a random byte
      s.insert(pos(1), 1, static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng)));
      break;
    default: {  // move a line elsewhere (reorders nodes)
      size_t a = s.find('\n', pos());
      if (a == std::string::npos) break;
      size_t b = s.find('\n', a + 1);
      if (b == std::string::npos) break;
      std::string line = s.substr(a, b - a);
      s.erase(a, b - a);
      size_t to = s.find('\n', pos());
      s.insert(to == std::string::npos ? s.size() : to, line);
      break;
    }
  }
}

// Reads text; whatever reads is written canonically, the canonical text is a fixed point, and the
// verifier says the same of both. Counts the successes; false (with failures added) when a
// property does not hold.
bool check_reads_consistently(const std::string& text, int& read_ok, int& verified_ok) {
  Expected<Graph> g = Expected<Graph>::failure("threw");
  try {
    g = read_graph(text);
  } catch (...) {
    ADD_FAILURE() << "read_graph threw";
    return false;
  }
  if (!g.ok()) {
    EXPECT_FALSE(g.error().empty());
    return !g.error().empty();
  }
  ++read_ok;
  std::optional<std::string> problem;
  try {
    problem = verify(*g);
  } catch (...) {
    ADD_FAILURE() << "verify threw";
    return false;
  }
  if (!problem) ++verified_ok;
  std::string written = write_graph(*g);
  Expected<Graph> again = read_graph(written);
  if (!again.ok()) {
    ADD_FAILURE() << "the written graph does not read: " << again.error() << "\n" << written;
    return false;
  }
  if (write_graph(*again) != written || verify(*again) != problem) {
    ADD_FAILURE() << "not a fixed point:\n" << written;
    return false;
  }
  return true;
}

TEST(GraphJsonStress, MangledInputsNeverCrashOrThrow) {
  const std::string original = slurp(std::string(SYMSHAPE_SOURCE_DIR) + "/examples/mlp.json");
  ASSERT_FALSE(original.empty());
  std::mt19937 rng(20240607);
  int read_ok = 0, verified_ok = 0;
  constexpr int kRounds = 4000;
  for (int round = 0; round < kRounds; ++round) {
    std::string text = original;
    int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int e = 0; e < edits; ++e) mutate(text, rng);
    if (check_reads_consistently(text, read_ok, verified_ok)) continue;
    ADD_FAILURE() << "on input:\n" << text;
    break;
  }
  // Some must stay readable, or the test checks only the JSON parser (the document-level test
  // below exercises the rest).
  EXPECT_GT(read_ok, kRounds / 40);
  EXPECT_GT(verified_ok, 0);
  RecordProperty("read_ok", read_ok);
  RecordProperty("verified_ok", verified_ok);
}

// A random JSON value of the kinds the format uses, mostly plausible, sometimes not.
Json random_value(std::mt19937& rng, int depth = 0) {
  static const char* const kStrings[] = {
      "batch",         "2*batch",  "batch//0",       "s0 +",    "float33", "float16", "placeholder",
      "output",        "get_attr", "call_function",  "",        "x",       "t",       "relu",
      "addmm",         "output",   "aten.t.default", "inf",     "-inf",    "nan",     "strided",
      "channels_last", "cpu",      "torch.int64",    "\xc3\xa9"};
  static const char* const kForms[] = {"node",   "expr",          "dtype", "device",
                                       "layout", "memory_format", "float", "tensor"};
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto str = [&] { return std::string(kStrings[pick(std::size(kStrings))]); };
  switch (pick(depth > 3 ? 6 : 9)) {
    case 0: return nullptr;
    case 1: return pick(2) == 1;
    case 2: {
      const int64_t ints[] = {0, 1, -1, 2, 64, 128, INT64_MAX, INT64_MIN, 7};
      return ints[pick(std::size(ints))];
    }
    case 3: return std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
    case 4:
    case 5: return str();
    case 6: {
      Json list = Json::array();
      for (int i = pick(4); i > 0; --i) list.push_back(random_value(rng, depth + 1));
      return list;
    }
    default: {
      Json obj = Json::object();
      obj[kForms[pick(std::size(kForms))]] = pick(4) ? Json(str()) : random_value(rng, depth + 1);
      return obj;
    }
  }
}

// Every value inside j (j included), for picking one to change.
void collect(Json& j, std::vector<Json*>& out) {
  out.push_back(&j);
  if (j.is_structured()) {
    for (Json& item : j) collect(item, out);
  }
}

void mutate_document(Json& doc, std::mt19937& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::vector<Json*> values;
  collect(doc, values);
  Json& target = *values[pick(values.size())];
  Json none;
  Json& nodes = doc.is_object() && doc.contains("nodes") ? doc["nodes"] : none;
  switch (pick(6)) {
    case 0: target = random_value(rng); break;
    case 1:  // drop a key or an item
      if (target.is_object() && !target.empty()) {
        auto it = target.begin();
        std::advance(it, pick(target.size()));
        target.erase(it.key());
      } else if (target.is_array() && !target.empty()) {
        target.erase(pick(target.size()));
      }
      break;
    case 2:  // add a key
      if (target.is_object()) {
        const char* keys[] = {"name",   "op",    "target", "args", "kwargs", "dtype", "shape",
                              "stride", "value", "meta",   "min",  "max",    "hint",  "dims"};
        target[keys[pick(std::size(keys))]] = random_value(rng);
      }
      break;
    case 3:  // duplicate a node
      if (nodes.is_array() && !nodes.empty()) {
        size_t from = pick(nodes.size());
        nodes.insert(nodes.begin() + static_cast<long>(pick(nodes.size() + 1)), Json(nodes[from]));
      }
      break;
    case 4:  // swap two nodes
      if (nodes.is_array() && nodes.size() > 1)
        std::swap(nodes[pick(nodes.size())], nodes[pick(nodes.size())]);
      break;
    default:  // rename a node or change its op
      if (nodes.is_array() && !nodes.empty()) {
        Json& n = nodes[pick(nodes.size())];
        if (n.is_object()) n[pick(2) ? "name" : "op"] = random_value(rng);
      }
      break;
  }
}

TEST(GraphJsonStress, MutatedDocumentsNeverCrashOrThrow) {
  const Json original = Json::parse(slurp(std::string(SYMSHAPE_SOURCE_DIR) + "/examples/mlp.json"));
  std::mt19937 rng(7);
  int read_ok = 0, verified_ok = 0;
  constexpr int kRounds = 2000;
  for (int round = 0; round < kRounds; ++round) {
    Json doc = original;
    int edits = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int e = 0; e < edits; ++e) mutate_document(doc, rng);
    std::string text = doc.dump(round % 2 ? 1 : -1);
    if (check_reads_consistently(text, read_ok, verified_ok)) continue;
    ADD_FAILURE() << "on input:\n" << text;
    break;
  }
  EXPECT_GT(read_ok, kRounds / 4);
  EXPECT_GT(verified_ok, kRounds / 20);
  RecordProperty("read_ok", read_ok);
  RecordProperty("verified_ok", verified_ok);
}

}  // namespace
}  // namespace symshape
