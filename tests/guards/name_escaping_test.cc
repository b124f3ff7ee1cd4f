// Guard text with hostile input names: a name is data, never code. The printed Python guards
// must parse back (CPython's own `ast`) to exactly the guards produced, with every name's bytes
// intact; the C++ guards must compile; the JSON must be valid.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

#include "symshape/ir/utf8.h"
#include "tests/cli/cli_runner.h"
#include "tests/guards/guard_test_util.h"

namespace symshape::testing {
namespace {

namespace fs = std::filesystem;

// Reads guard lines and prints each in a canonical form: every source `L['...'].size()[k]`,
// `L['...'].stride()[k]`, `dims['...']` becomes the identifier SRC_<hex of the name's bytes>_
// <kind>_<k>, and the line is unparsed. Anything else that is not arithmetic, a comparison or
// a connective (a call, an attribute, another name) is an error: text that escaped its literal.
const char* const kCanonicalize = R"PY(
import ast, sys

class Sources(ast.NodeTransformer):
    def visit_Subscript(self, node):
        def key(sub, table):
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) \
                    and sub.value.id == table and isinstance(sub.slice, ast.Constant) \
                    and isinstance(sub.slice.value, str):
                return sub.slice.value.encode('utf-8', 'surrogateescape').hex()
            return None
        d = key(node, 'dims')
        if d is not None:
            return ast.Name('SRC_%s_dim_0' % d, ast.Load())
        call = node.value
        if isinstance(call, ast.Call) and not call.args and not call.keywords \
                and isinstance(call.func, ast.Attribute) \
                and call.func.attr in ('size', 'stride') and isinstance(node.slice, ast.Constant) \
                and type(node.slice.value) is int:
            k = key(call.func.value, 'L')
            if k is not None:
                return ast.Name('SRC_%s_%s_%d' % (k, call.func.attr, node.slice.value), ast.Load())
        raise SystemExit('not a source: ' + ast.dump(node))

ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.BinOp, ast.UnaryOp,
           ast.Constant, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
           ast.Pow, ast.USub, ast.UAdd, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
           ast.Call)

def canonical(line, sources):
    tree = ast.parse(line, mode='eval')
    if sources:
        tree = Sources().visit(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ALLOWED):
            raise SystemExit('unexpected %s in %r' % (type(node).__name__, line))
        if isinstance(node, ast.Name) and not node.id.startswith('SRC_') \
                and node.id not in ('max', 'min', 'True', 'False'):
            raise SystemExit('unexpected name %s in %r' % (node.id, line))
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in ('max', 'min')):
            raise SystemExit('unexpected call in %r' % line)
    return ast.unparse(tree)

with open(sys.argv[1], encoding='utf-8') as f:
    for line in f.read().split('\n')[:-1]:
        print(canonical(line, True))
print('----')
with open(sys.argv[2], encoding='utf-8') as f:
    for line in f.read().split('\n')[:-1]:
        print(canonical(line, False))
)PY";

std::string hex(std::string_view bytes) {
  static const char* const digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The guard set with each source renamed to its canonical identifier (see kCanonicalize).
GuardSet canonically_named(GuardSet set) {
  for (Source& s : set.sources) {
    switch (s.kind) {
      case Source::Kind::Size:
        s.name = "SRC_" + hex(s.input) + "_size_" + std::to_string(s.dim);
        break;
      case Source::Kind::Stride:
        s.name = "SRC_" + hex(s.input) + "_stride_" + std::to_string(s.dim);
        break;
      case Source::Kind::Dim: s.name = "SRC_" + hex(s.input) + "_dim_0"; break;
      case Source::Kind::StorageOffset: break;
    }
  }
  return set;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("symshape_names_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs the canonicalizer over every set's printed Python guards (plain and verbose) and over the
// same guards printed with canonical names: both must give the same lines.
void expect_python_round_trip(const std::vector<GuardSet>& sets) {
  ScratchDir dir;
  std::string printed, expected;
  for (const GuardSet& set : sets) {
    std::string text = print_python(set);
    std::string verbose = print_verbose(set);
    std::string canonical = print_python(canonically_named(set));
    // One line per guard: a name that breaks the line shows up here already.
    ASSERT_EQ(lines_of(text).size(), set.guards.size()) << text;
    ASSERT_EQ(lines_of(verbose).size(), set.guards.size()) << verbose;
    ASSERT_EQ(lines_of(canonical).size(), set.guards.size()) << canonical;
    // The verbose lines' provenance comments vanish when parsed: the same guards.
    printed += text + verbose;
    expected += canonical + canonical;
  }
  std::ofstream(dir.path() / "script.py") << kCanonicalize;
  std::ofstream(dir.path() / "printed.txt", std::ios::binary) << printed;
  std::ofstream(dir.path() / "expected.txt", std::ios::binary) << expected;
  cli_test::CliResult r =
      cli_test::run_program("/usr/bin/env", {"python3", (dir.path() / "script.py").string(),
                                             (dir.path() / "printed.txt").string(),
                                             (dir.path() / "expected.txt").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << "\nprinted:\n" << printed;
  std::vector<std::string> out = lines_of(r.out);
  auto marker = std::find(out.begin(), out.end(), "----");
  ASSERT_NE(marker, out.end()) << r.out;
  std::vector<std::string> from_printed(out.begin(), marker), from_expected(marker + 1, out.end());
  ASSERT_EQ(from_printed.size(), from_expected.size());
  for (size_t i = 0; i < from_printed.size(); ++i)
    EXPECT_EQ(from_printed[i], from_expected[i]) << "guard " << i;
}

// Every set's C++ guards inside a function of its sources' identifiers, compiled.
void expect_cpp_compiles(const std::vector<GuardSet>& sets) {
  ScratchDir dir;
  std::string program = "#include <cstdint>\n#include \"symshape/guard_int.h\"\n";
  for (size_t k = 0; k < sets.size(); ++k) {
    std::set<std::string> identifiers;
    program += "bool guards_" + std::to_string(k) + "(const int64_t* v) {\n";
    for (size_t i = 0; i < sets[k].sources.size(); ++i) {
      const std::string& id = sets[k].sources[i].identifier;
      EXPECT_TRUE(identifiers.insert(id).second) << "two sources share the identifier " << id;
      program +=
          "  symshape::GuardInt " + id + " = v[" + std::to_string(i) + "];\n  (void)" + id + ";\n";
    }
    program += "  return\n" + print_cpp(sets[k]) + ";\n}\n";
  }
  std::ofstream(dir.path() / "guards.cc") << program;
  cli_test::CliResult compiled = cli_test::run_program(
      SYMSHAPE_CXX,
      {"-std=c++20", "-fsyntax-only", "-Wall", "-Werror", "-I",
       std::string(SYMSHAPE_SOURCE_DIR) + "/include", (dir.path() / "guards.cc").string()},
      {}, std::chrono::seconds(300));
  EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
}

// The JSON document is valid (dump does not throw, parse gives it back) and carries the escaped
// names and the printed Python lines.
void expect_json_valid(const GuardSet& set) {
  std::string text;
  ASSERT_NO_THROW(text = to_json(set).dump(2));
  nlohmann::json back = nlohmann::json::parse(text);
  ASSERT_EQ(back["sources"].size(), set.sources.size());
  for (size_t i = 0; i < set.sources.size(); ++i)
    EXPECT_EQ(back["sources"][i]["name"], set.sources[i].name);
  std::vector<std::string> lines = lines_of(print_python(set));
  ASSERT_EQ(back["guards"].size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(back["guards"][i]["python"], lines[i]);
}

Produced produce_file(const std::string& path) {
  std::ifstream in(std::string(SYMSHAPE_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  Expected<Graph> g = read_graph(text.str());
  if (!g) throw std::runtime_error(path + ": " + g.error());
  Produced p{std::move(*g), std::make_unique<ShapeEnv>(), {}, {}};
  p.result = propagate(p.graph, *p.env);
  if (!p.result.ok()) throw std::runtime_error(path + ": " + p.result.error);
  p.set = produce_guards(*p.env, graph_inputs(p.graph));
  return p;
}

TEST(GuardNames, QuoteInNameStaysInsideTheLiteral) {
  Produced p = produce_file("tests/repros/67_quote_in_name.json");
  EXPECT_TRUE(p.has_line(R"(L['y'].size()[0] == )"
                         R"(L['x\']; __import__(\'os\').system(\'echo pwned\'); #'].size()[0])"))
      << print_python(p.set);
  expect_python_round_trip({p.set});
  expect_json_valid(p.set);
}

TEST(GuardNames, NewlineInNameKeepsOneGuardPerLine) {
  Produced p = produce_file("tests/repros/93_newline_in_name.json");
  EXPECT_TRUE(p.has_line(R"(2 <= L['a\nb'].size()[0])")) << print_python(p.set);
  expect_python_round_trip({p.set});
  expect_json_valid(p.set);
}

TEST(GuardNames, BackslashInNameIsEscaped) {
  Produced p = produce_file("tests/repros/94_backslash_in_name.json");
  EXPECT_TRUE(p.has_line(R"(2 <= L['a\\'].size()[0])")) << print_python(p.set);
  expect_python_round_trip({p.set});
  expect_json_valid(p.set);
}

TEST(GuardNames, PythonLiteralEscapesLikeAscii) {
  EXPECT_EQ(python_string_literal("x"), "'x'");
  EXPECT_EQ(python_string_literal(""), "''");
  EXPECT_EQ(python_string_literal("a'b\"c\\d"), R"('a\'b"c\\d')");
  EXPECT_EQ(python_string_literal(std::string("\n\r\t\0\x7f", 5)), R"('\n\r\t\x00\x7f')");
  EXPECT_EQ(python_string_literal("\xc3\xa9"), R"('\xe9')");                    // é
  EXPECT_EQ(python_string_literal("\xe2\x80\xa8"), R"('\u2028')");              // line separator
  EXPECT_EQ(python_string_literal("\xf0\x9f\x98\x80"), R"('\U0001f600')");      // emoji
  EXPECT_EQ(python_string_literal("\xe9"), R"('\udce9')");                      // a stray byte
  EXPECT_EQ(python_string_literal("\xed\xa0\x80"), R"('\udced\udca0\udc80')");  // a surrogate
  EXPECT_EQ(python_string_literal("\xc0\xaf"), R"('\udcc0\udcaf')");            // overlong '/'
  EXPECT_EQ(python_string_literal("\xe2\x80"), R"('\udce2\udc80')");            // truncated
}

TEST(GuardNames, NamesDifferingOnlyInSpecialCharactersGetDistinctIdentifiers) {
  Produced p = produce(
      "{\"n\": {\"hint\": 8}}",
      nodes({input("a.b", "[\"n\", 4]"), input("a_b", "[\"n\", 4]"), input("a-b", "[\"n\", 4]"),
             call("s", "aten.add.Tensor", "[{\"node\": \"a.b\"}, {\"node\": \"a_b\"}]"),
             call("t", "aten.add.Tensor", "[{\"node\": \"s\"}, {\"node\": \"a-b\"}]"),
             output("t")}));
  ASSERT_TRUE(p.result.ok()) << p.result.error;
  std::set<std::string> identifiers;
  for (const Source& s : p.set.sources)
    EXPECT_TRUE(identifiers.insert(s.identifier).second) << s.identifier;
  expect_cpp_compiles({p.set});
}

// Random names, built through the library (any bytes) and through the graph reader (any code
// point JSON can spell, control characters included).
class NameGenerator {
 public:
  explicit NameGenerator(uint64_t seed) : rng_(seed) {}

  std::string bytes() {
    static const std::vector<std::string> pieces = {"'",
                                                    "\"",
                                                    "\\",
                                                    "\n",
                                                    "\r",
                                                    std::string(1, '\0'),
                                                    "\t",
                                                    "]",
                                                    "[",
                                                    "#",
                                                    ")",
                                                    " ",
                                                    "x",
                                                    "_",
                                                    "0",
                                                    "\xc3\xa9",
                                                    "\xe2\x80\xa8",
                                                    "\xf0\x9f\x98\x80",
                                                    "\xed\xa0\x80",
                                                    "\xc0",
                                                    "\xff",
                                                    "\x80",
                                                    "\x1b",
                                                    "\x7f",
                                                    "'\n__import__('os')#",
                                                    "\\N{DASH}",
                                                    "\\x41"};
    std::string s;
    int n = pick(0, 8);
    for (int i = 0; i < n; ++i) {
      if (pick(0, 3) == 0) {
        s += static_cast<char>(pick(0, 255));
      } else {
        s += pieces[pick(0, static_cast<int>(pieces.size()) - 1)];
      }
    }
    return s;
  }

  // A JSON string body with escapes (\uXXXX for any BMP code point but a surrogate, or a pair).
  std::string json_escaped() {
    std::string s;
    int n = pick(1, 6);
    for (int i = 0; i < n; ++i) {
      int kind = pick(0, 4);
      char buf[16];
      if (kind == 0) {
        s += "a";
      } else if (kind == 1) {
        std::snprintf(buf, sizeof buf, "\\u%04x", pick(0, 0x7f));
        s += buf;
      } else if (kind == 2) {
        int cp = pick(0x80, 0xfffd);
        if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x2028;
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
        s += buf;
      } else if (kind == 3) {
        s += "\\ud83d\\ude00";
      } else {
        s += std::vector<std::string>{"\\\\", "\\\"", "\\n", "'", "\\u0000"}[pick(0, 4)];
      }
    }
    return s;
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// A guard set over three inputs with these names: duck-sized equalities, recorded guards and
// ranges, straight from a ShapeEnv.
GuardSet guards_for(const std::vector<std::string>& names, NameGenerator& gen) {
  ShapeEnv env;
  std::vector<GuardInput> inputs;
  std::vector<SymInt> sizes;
  for (const std::string& name : names) {
    GuardInput in{name, {}, {}};
    for (size_t k = 0; k < 2; ++k) {
      SymInt s = env.create_symbol(Int(gen.pick(2, 6)), size_source(name, k));
      sizes.push_back(s);
      in.sizes.push_back(s.expr());
    }
    inputs.push_back(std::move(in));
  }
  for (int i = 0; i < 3; ++i) {
    const SymInt& a = sizes[gen.pick(0, static_cast<int>(sizes.size()) - 1)];
    const SymInt& b = sizes[gen.pick(0, static_cast<int>(sizes.size()) - 1)];
    env.evaluate(a < b + 2);
    env.evaluate(mod(a * b, SymInt(4)) == 0);
  }
  return produce_guards(env, inputs);
}

TEST(GuardNames, RandomByteNamesRoundTripThroughPythonCppAndJson) {
  NameGenerator gen(20260311);
  std::vector<GuardSet> sets;
  for (int round = 0; round < 150; ++round) {
    std::vector<std::string> names;
    while (names.size() < 3) {
      std::string name = gen.bytes();
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    sets.push_back(guards_for(names, gen));
    for (const Source& s : sets.back().sources) {
      for (char c : s.name) ASSERT_TRUE(c >= 0x20 && c < 0x7f) << hex(s.name);
    }
    expect_json_valid(sets.back());
  }
  expect_python_round_trip(sets);
  expect_cpp_compiles(sets);
}

TEST(GuardNames, NamesTheGraphReaderAcceptsRoundTrip) {
  NameGenerator gen(7);
  std::vector<GuardSet> sets;
  size_t rejected = 0;
  for (int round = 0; round < 60; ++round) {
    std::string x = gen.json_escaped(), y = gen.json_escaped();
    if (x == y) y += "y";
    std::string text = R"({"format": "symshape-graph", "version": 1, "dims": {"n": {"hint": 8}},
      "nodes": [{"name": ")" +
                       x + R"(", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
                {"name": ")" +
                       y + R"(", "op": "placeholder", "dtype": "float32", "shape": ["n", 4]},
                {"name": "s", "op": "call_function", "target": "aten.add.Tensor",
                 "args": [{"node": ")" +
                       x + R"("}, {"node": ")" + y + R"("}]},
                {"name": "output", "op": "output", "args": [[{"node": "s"}]]}]})";
    Expected<Graph> g = read_graph(text);
    if (!g) {
      ++rejected;  // e.g. a name that collides with another after unescaping
      continue;
    }
    ShapeEnv env;
    Propagation r = propagate(*g, env);
    ASSERT_TRUE(r.ok()) << r.error;
    sets.push_back(produce_guards(env, graph_inputs(*g)));
    expect_json_valid(sets.back());
  }
  EXPECT_GT(sets.size(), 40u) << rejected << " graphs rejected";
  expect_python_round_trip(sets);
  expect_cpp_compiles(sets);
}

}  // namespace
}  // namespace symshape::testing
