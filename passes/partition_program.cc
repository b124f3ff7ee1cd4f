// The partitioned program around the partitioner: the supported-ops file, the manifest
// (partitioned.json) written and read back, and the runner that executes the partitions in the
// reference interpreter one after another.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "symshape/partition.h"

namespace symshape {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr std::string_view kManifestFormat = "symshape-partitioned";
constexpr std::string_view kManifestFile = "partitioned.json";

std::string json_type(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "a list";
  return "an object";
}

std::optional<std::string> read_text(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": cannot open: " + std::strerror(errno);
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return std::nullopt;
}

// nlohmann's parse error without its tag: `line 2, column 1: syntax error while parsing ...`,
// as the graph reader words it.
std::string parse_error_text(const nlohmann::json::parse_error& e) {
  const std::string m = e.what();
  size_t at = m.find("parse error at ");
  if (at != std::string::npos) return m.substr(at + 15);
  at = m.find("] ");
  return at == std::string::npos ? m : m.substr(at + 2);
}

// An op name as a supported-ops entry: not empty, no white space.
std::optional<std::string> bad_op_name(const std::string& name) {
  if (name.empty()) return "an empty op name";
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) return "op name '" + name + "' holds a space";
  }
  return std::nullopt;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// Supported ops
// -------------------------------------------------------------------------------------------

SupportedOps::SupportedOps(const std::vector<std::string>& names) {
  for (const std::string& n : names) add(n);
}

void SupportedOps::add(std::string name) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) {
    names_.push_back(std::move(name));
  }
}

bool SupportedOps::contains(std::string_view target) const {
  const std::string_view packet = parse_target(target).packet;
  for (const std::string& n : names_) {
    if (n == target || n == packet) return true;
  }
  return false;
}

Expected<SupportedOps> parse_supported_ops(std::string_view json_text) {
  using Result = Expected<SupportedOps>;
  Json doc;
  try {
    doc = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    return Result::failure(parse_error_text(e));
  }
  const Json* list = &doc;
  std::string where = "";
  if (doc.is_object()) {
    auto it = doc.find("ops");
    if (it == doc.end()) return Result::failure("top level: missing \"ops\"");
    list = &*it;
    where = "ops";
  }
  if (!list->is_array()) {
    return Result::failure((where.empty() ? "top level" : where) +
                           ": expected a list of op names (or an object with \"ops\"), got " +
                           json_type(*list));
  }
  SupportedOps ops;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    const std::string at = (where.empty() ? "" : where) + "[" + std::to_string(i) + "]";
    if (!item.is_string()) {
      return Result::failure(at + ": expected an op name string, got " + json_type(item));
    }
    const std::string name = item.get<std::string>();
    if (auto bad = bad_op_name(name)) return Result::failure(at + ": " + *bad);
    ops.add(name);
  }
  return ops;
}

Expected<SupportedOps> read_supported_ops_file(const std::string& path) {
  std::string text;
  if (auto problem = read_text(path, text)) {
    return Expected<SupportedOps>::failure(*problem);
  }
  Expected<SupportedOps> ops = parse_supported_ops(text);
  if (!ops) return Expected<SupportedOps>::failure(path + ": " + ops.error());
  return ops;
}

Expected<SupportedOps> parse_supported_ops_list(std::string_view text) {
  SupportedOps ops;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) {
      item.remove_prefix(1);
    }
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) {
      item.remove_suffix(1);
    }
    if (!item.empty()) {
      if (auto bad = bad_op_name(std::string(item))) {
        return Expected<SupportedOps>::failure(*bad);
      }
      ops.add(std::string(item));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ops;
}

// -------------------------------------------------------------------------------------------
// The manifest
// -------------------------------------------------------------------------------------------

namespace {

// A name none of the nodes has, for the output node of a graph made of the program's inputs.
std::string unused_name(const std::vector<Node>& nodes, std::string base) {
  for (;;) {
    bool taken = false;
    for (const Node& n : nodes) taken = taken || n.name == base;
    if (!taken) return base;
    base += "_";
  }
}

// The program's inputs as a graph of their own: its dims, its placeholders, an output listing
// them. The manifest writes its dims and inputs through the graph writer, and the runner
// generates the inputs by running it.
Graph inputs_graph(const std::vector<std::pair<std::string, DimDecl>>& dims,
                   const std::vector<Node>& inputs) {
  Graph g;
  g.dims = dims;
  g.nodes = inputs;
  Node out;
  out.name = unused_name(inputs, "output");
  out.op = NodeOp::Output;
  std::vector<Arg> items;
  for (const Node& n : inputs) items.push_back(Arg::node(n.name));
  out.args = {Arg::list(std::move(items))};
  g.nodes.push_back(std::move(out));
  return g;
}

Json output_json(const ProgramOutput& o) {
  switch (o.kind) {
    case ProgramOutput::Kind::None: return nullptr;
    case ProgramOutput::Kind::Input: return Json{{"input", o.name}};
    case ProgramOutput::Kind::Partition:
      return Json{{"partition", o.partition}, {"output", o.name}};
    case ProgramOutput::Kind::List: {
      Json list = Json::array();
      for (const ProgramOutput& item : o.items) list.push_back(output_json(item));
      return list;
    }
  }
  return nullptr;
}

}  // namespace

Json manifest_json(const PartitionedProgram& program) {
  Json doc;
  doc["format"] = std::string(kManifestFormat);
  doc["version"] = 1;
  const Json graph = Json::parse(write_graph(inputs_graph(program.dims, program.inputs)));
  doc["dims"] = graph.contains("dims") ? graph["dims"] : Json::object();
  Json inputs = graph["nodes"];
  inputs.erase(inputs.size() - 1);
  doc["inputs"] = inputs;
  doc["partitions"] = Json::array();
  for (const Partition& p : program.partitions) {
    Json e;
    e["kind"] = to_string(p.kind);
    e["file"] = p.file;
    e["nodes"] = p.nodes;
    e["inputs"] = Json::array();
    for (const PartitionInput& in : p.inputs) {
      Json i;
      i["name"] = in.name;
      if (in.partition) {
        i["from"] = Json{{"partition", *in.partition}, {"output", in.value}};
      } else {
        i["from"] = Json{{"input", in.value}};
      }
      if (!in.carries.empty()) i["carries"] = in.carries;
      e["inputs"].push_back(std::move(i));
    }
    e["outputs"] = p.outputs;
    e["guards"] = p.guards;
    doc["partitions"].push_back(std::move(e));
  }
  doc["outputs"] = output_json(program.output);
  return doc;
}

namespace {

// One line, with the separators of the graph format: `{"a": 1, "b": [2, 3]}`.
std::string one_line(const Json& j) {
  if (j.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      s += (first ? "" : ", ") + Json(it.key()).dump() + ": " + one_line(it.value());
      first = false;
    }
    return s + "}";
  }
  if (j.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + one_line(j[i]);
    return s + "]";
  }
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string write_manifest(const PartitionedProgram& program) {
  const Json doc = manifest_json(program);
  std::string s = "{\"format\": " + one_line(doc["format"]) + ", \"version\": 1,\n";
  s += " \"dims\": " + one_line(doc["dims"]) + ",\n";
  auto list = [&](const char* key, const std::function<std::string(const Json&)>& item) {
    const Json& items = doc[key];
    s += " \"" + std::string(key) + "\": [";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ",\n  " : "\n  ") + item(items[i]);
    s += "],\n";
  };
  list("inputs", one_line);
  list("partitions", [](const Json& p) {
    std::string t = "{";
    bool first = true;
    for (auto it = p.begin(); it != p.end(); ++it) {
      // The kind and file on the first line, then one line per key.
      const bool same_line = first || it.key() == "file";
      t += std::string(first       ? ""
                       : same_line ? ", "
                                   : ",\n   ") +
           Json(it.key()).dump() + ": " + one_line(it.value());
      first = false;
    }
    return t + "}";
  });
  s += " \"outputs\": " + one_line(doc["outputs"]) + "}\n";
  return s;
}

Expected<std::string> write_partitioned(const PartitionedProgram& program, const std::string& dir) {
  using Result = Expected<std::string>;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Result::failure(dir + ": cannot create the directory: " + ec.message());
  if (!fs::is_directory(dir, ec)) return Result::failure(dir + ": not a directory");
  // Partition files an earlier run left behind would look like part of this program.
  std::set<std::string> ours;
  for (const Partition& p : program.partitions) ours.insert(p.file);
  const std::regex stale("part[0-9]+_(backend|fallback)\\.json");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && std::regex_match(name, stale) && !ours.count(name)) {
      fs::remove(entry.path(), ec);
    }
  }
  auto write = [&](const fs::path& path, const std::string& text) -> std::optional<std::string> {
    std::ofstream out(path, std::ios::binary);
    if (out) out << text;
    if (!out) return path.string() + ": cannot write: " + std::strerror(errno);
    return std::nullopt;
  };
  for (const Partition& p : program.partitions) {
    if (auto problem = write(fs::path(dir) / p.file, write_graph(p.graph))) {
      return Result::failure(*problem);
    }
  }
  const fs::path manifest = fs::path(dir) / kManifestFile;
  if (auto problem = write(manifest, write_manifest(program))) {
    return Result::failure(*problem);
  }
  return manifest.string();
}

namespace {

// Reads a manifest; throws Error with the key path.
class ManifestReader {
 public:
  explicit ManifestReader(std::string path) : path_(std::move(path)) {}

  PartitionedProgram read() {
    std::string text;
    if (auto problem = read_text(path_, text)) throw Error(*problem);
    Json doc;
    try {
      doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
      fail(parse_error_text(e));
    }
    if (!doc.is_object()) fail("top level: expected an object, got " + json_type(doc));
    if (doc.value("format", Json()) != Json(std::string(kManifestFormat))) {
      fail("top level: \"format\" must be \"" + std::string(kManifestFormat) + "\"");
    }
    if (doc.value("version", Json()) != Json(1)) fail("top level: \"version\" must be 1");
    PartitionedProgram program;
    read_inputs(doc, program);
    const Json& parts = need(doc, "partitions", "top level");
    if (!parts.is_array()) fail("\"partitions\" must be a list, got " + json_type(parts));
    for (size_t i = 0; i < parts.size(); ++i) {
      program.partitions.push_back(read_partition(parts[i], i, program));
    }
    program.output = read_output(need(doc, "outputs", "top level"), "outputs", program);
    return program;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw Error(path_ + ": " + message); }

  const Json& need(const Json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object()) fail(where + ": expected an object, got " + json_type(obj));
    auto it = obj.find(key);
    if (it == obj.end()) fail(where + ": missing \"" + key + "\"");
    return *it;
  }

  std::string string_at(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = need(obj, key, where);
    if (!v.is_string()) {
      fail(where + ": \"" + key + "\" must be a string, got " + json_type(v));
    }
    return v.get<std::string>();
  }

  std::vector<std::string> strings_at(const Json& obj, const char* key,
                                      const std::string& where) const {
    std::vector<std::string> out;
    auto it = obj.find(key);
    if (it == obj.end()) return out;
    if (!it->is_array()) fail(where + ": \"" + key + "\" must be a list, got " + json_type(*it));
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        fail(where + "." + key + "[" + std::to_string(i) + "]: expected a string, got " +
             json_type((*it)[i]));
      }
      out.push_back((*it)[i].get<std::string>());
    }
    return out;
  }

  void read_inputs(const Json& doc, PartitionedProgram& program) const {
    Json graph;
    graph["format"] = "symshape-graph";
    graph["version"] = 1;
    if (doc.contains("dims")) graph["dims"] = doc["dims"];
    const Json& inputs = need(doc, "inputs", "top level");
    if (!inputs.is_array()) fail("\"inputs\" must be a list, got " + json_type(inputs));
    graph["nodes"] = inputs;
    // The output node the graph reader wants: a name no input has.
    std::set<std::string> names;
    for (const Json& n : inputs) {
      if (n.is_object() && n.contains("name") && n["name"].is_string())
        names.insert(n["name"].get<std::string>());
    }
    std::string out = "output";
    while (names.count(out)) out += "_";
    graph["nodes"].push_back(
        Json{{"name", out}, {"op", "output"}, {"args", Json::array({Json::array()})}});
    Expected<Graph> g = read_graph(graph.dump());
    if (!g) fail("inputs: " + g.error());
    if (auto problem = verify(*g)) fail("inputs: " + *problem);
    program.dims = g->dims;
    for (size_t i = 0; i + 1 < g->nodes.size(); ++i) {
      if (g->nodes[i].op != NodeOp::Placeholder) {
        fail("inputs: '" + g->nodes[i].name + "' is not a placeholder");
      }
      program.inputs.push_back(g->nodes[i]);
    }
  }

  bool is_input(const PartitionedProgram& program, const std::string& name) const {
    for (const Node& n : program.inputs) {
      if (n.name == name) return true;
    }
    return false;
  }

  // {"input": NAME} or {"partition": I, "output": NAME}, I an earlier partition (< before).
  std::pair<std::optional<size_t>, std::string> read_source(const Json& from,
                                                            const std::string& where,
                                                            const PartitionedProgram& program,
                                                            size_t before) const {
    if (!from.is_object()) fail(where + ": expected an object, got " + json_type(from));
    if (from.contains("input")) {
      const std::string name = string_at(from, "input", where);
      if (!is_input(program, name)) fail(where + ": no program input is named '" + name + "'");
      return {std::nullopt, name};
    }
    const Json& p = need(from, "partition", where);
    if (!p.is_number_unsigned()) fail(where + ": \"partition\" must be a partition's index");
    const size_t index = p.get<size_t>();
    if (index >= before) {
      fail(where + ": partition " + std::to_string(index) +
           " does not run before this one (a partition reads only earlier ones)");
    }
    const std::string name = string_at(from, "output", where);
    const std::vector<std::string>& outs = program.partitions[index].outputs;
    if (std::find(outs.begin(), outs.end(), name) == outs.end()) {
      fail(where + ": partition " + std::to_string(index) + " has no output '" + name + "'");
    }
    return {index, name};
  }

  Partition read_partition(const Json& e, size_t i, const PartitionedProgram& program) const {
    const std::string where = "partitions[" + std::to_string(i) + "]";
    Partition p;
    const std::string kind = string_at(e, "kind", where);
    if (kind == "backend") {
      p.kind = PartitionKind::Backend;
    } else if (kind == "fallback") {
      p.kind = PartitionKind::Fallback;
    } else {
      fail(where + ": unknown kind '" + kind + "' (expected backend or fallback)");
    }
    p.file = string_at(e, "file", where);
    const fs::path file = fs::path(path_).parent_path() / p.file;
    Expected<Graph> g = read_graph_file(file.string());
    if (!g) throw Error(g.error());
    if (auto problem = verify(*g)) throw Error(file.string() + ": " + *problem);
    p.graph = std::move(*g);
    p.nodes = strings_at(e, "nodes", where);
    p.guards = strings_at(e, "guards", where);
    p.outputs = strings_at(e, "outputs", where);
    // The outputs are the items of the graph's output node, in order.
    std::vector<std::string> items;
    const Node& out = p.graph.nodes.back();
    if (!out.args.empty()) {
      const Arg& a = out.args[0];
      if (a.kind == Arg::Kind::Node) items.push_back(a.text);
      for (const Arg& item : a.items) {
        if (item.kind == Arg::Kind::Node) items.push_back(item.text);
      }
    }
    if (items != p.outputs) {
      fail(where + ": \"outputs\" does not list the items of " + p.file + "'s output node");
    }
    // One input per placeholder, in order.
    const Json& inputs = need(e, "inputs", where);
    if (!inputs.is_array()) fail(where + ": \"inputs\" must be a list, got " + json_type(inputs));
    std::vector<std::string> placeholders;
    for (const Node& n : p.graph.nodes) {
      if (n.op == NodeOp::Placeholder) placeholders.push_back(n.name);
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      const std::string at = where + ".inputs[" + std::to_string(k) + "]";
      PartitionInput in;
      in.name = string_at(inputs[k], "name", at);
      auto [partition, value] = read_source(need(inputs[k], "from", at), at + ".from", program, i);
      in.partition = partition;
      in.value = value;
      if (inputs[k].contains("carries")) in.carries = string_at(inputs[k], "carries", at);
      p.inputs.push_back(std::move(in));
    }
    std::vector<std::string> named;
    for (const PartitionInput& in : p.inputs) named.push_back(in.name);
    if (named != placeholders) {
      fail(where + ": \"inputs\" does not name " + p.file + "'s placeholders in order");
    }
    return p;
  }

  ProgramOutput read_output(const Json& j, const std::string& where,
                            const PartitionedProgram& program) const {
    ProgramOutput o;
    if (j.is_null()) return o;
    if (j.is_array()) {
      o.kind = ProgramOutput::Kind::List;
      for (size_t i = 0; i < j.size(); ++i) {
        o.items.push_back(read_output(j[i], where + "[" + std::to_string(i) + "]", program));
      }
      return o;
    }
    auto [partition, name] = read_source(j, where, program, program.partitions.size());
    o.kind = partition ? ProgramOutput::Kind::Partition : ProgramOutput::Kind::Input;
    o.partition = partition.value_or(0);
    o.name = name;
    return o;
  }

  std::string path_;
};

}  // namespace

Expected<PartitionedProgram> read_partitioned(const std::string& manifest_path) {
  try {
    return ManifestReader(manifest_path).read();
  } catch (const std::exception& e) {
    return Expected<PartitionedProgram>::failure(e.what());
  }
}

namespace {

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t k = 0; k < sizes.size(); ++k) s += (k ? ", " : "") + std::to_string(sizes[k]);
  return s + "]";
}

bool same_scalar(const interp::Scalar& a, const interp::Scalar& b) {
  using K = interp::Scalar::Kind;
  if (a.kind != b.kind) return false;
  auto same = [](double x, double y) { return x == y || (x != x && y != y); };
  switch (a.kind) {
    case K::Bool:
    case K::Int: return a.i == b.i;
    case K::Float: return same(a.f, b.f);
    case K::Complex: return same(a.c.real(), b.c.real()) && same(a.c.imag(), b.c.imag());
  }
  return false;
}

std::optional<std::string> difference(const interp::RValue& a, const interp::RValue& b,
                                      const std::string& where) {
  using K = interp::RValue::Kind;
  if (a.kind != b.kind) return where + ": " + a.str() + " vs " + b.str();
  switch (a.kind) {
    case K::None: return std::nullopt;
    case K::Int:
      if (a.integer != b.integer) return where + ": " + a.str() + " vs " + b.str();
      return std::nullopt;
    case K::Float:
      if (!(a.real == b.real || (a.real != a.real && b.real != b.real))) {
        return where + ": " + a.str() + " vs " + b.str();
      }
      return std::nullopt;
    case K::Bool:
      if (a.truth != b.truth) return where + ": " + a.str() + " vs " + b.str();
      return std::nullopt;
    case K::List:
      if (a.items.size() != b.items.size()) return where + ": " + a.str() + " vs " + b.str();
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (auto d = difference(a.items[i], b.items[i], where + "[" + std::to_string(i) + "]")) {
          return d;
        }
      }
      return std::nullopt;
    case K::Tensor: break;
  }
  const interp::Tensor& x = a.tensor;
  const interp::Tensor& y = b.tensor;
  if (x.dtype() != y.dtype() || x.sizes() != y.sizes()) {
    return where + ": " + x.str() + " vs " + y.str();
  }
  for (int64_t k = 0; k < x.numel(); ++k) {
    if (!same_scalar(x.flat(k), y.flat(k))) {
      std::ostringstream os;
      os << where << ": element " << k << " of " << sizes_text(x.sizes()) << " differs: ";
      auto text = [](const interp::Scalar& v) {
        std::ostringstream t;
        t.precision(17);
        switch (v.kind) {
          case interp::Scalar::Kind::Bool:
          case interp::Scalar::Kind::Int: t << v.i; break;
          case interp::Scalar::Kind::Float: t << v.f; break;
          case interp::Scalar::Kind::Complex: t << v.c; break;
        }
        return t.str();
      };
      os << text(x.flat(k)) << " vs " << text(y.flat(k));
      return os.str();
    }
  }
  return std::nullopt;
}

std::string dims_text(const Bindings& dims) {
  std::string s;
  for (const auto& [name, v] : dims) s += (s.empty() ? "" : ", ") + name + "=" + to_string(v);
  return s.empty() ? "no dims" : s;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// The runner
// -------------------------------------------------------------------------------------------

PartitionedRun run_partitioned(const PartitionedProgram& program,
                               const interp::RunOptions& options) {
  using interp::RValue;
  PartitionedRun out;
  // The program's inputs, generated as run() generates the input graph's.
  const Graph inputs = inputs_graph(program.dims, program.inputs);
  interp::RunResult given = interp::run(inputs, options);
  if (!given.ok) {
    out.error = "the program's inputs: " + given.error;
    return out;
  }
  out.dims = given.dims;
  // Dims no input determines (a group size W) are passed to every partition, as run() would
  // choose them for the graph; the others each partition binds from its own inputs.
  const std::set<std::string> determined = determined_symbols(program.inputs);
  std::map<std::string, int64_t> program_dims;
  for (const auto& [name, v] : given.dims) {
    std::optional<int64_t> small = to_int64(v);
    if (!determined.count(name) && small) program_dims[name] = *small;
  }
  std::map<std::string, interp::Tensor> graph_inputs;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    // A copy: the partitions may write into their inputs in place.
    out.inputs.push_back(given.values[i].tensor.clone());
    graph_inputs[program.inputs[i].name] = given.values[i].tensor;
  }
  std::vector<std::map<std::string, RValue>> produced(program.partitions.size());
  for (size_t p = 0; p < program.partitions.size(); ++p) {
    const Partition& part = program.partitions[p];
    const std::string what = "partition " + std::to_string(p) + " (" + part.file + ")";
    interp::RunOptions po = options;
    po.inputs.clear();
    po.sizes.clear();
    po.dims = program_dims;
    po.random_dims = false;
    for (const PartitionInput& in : part.inputs) {
      const RValue* v = nullptr;
      if (!in.partition) {
        auto it = graph_inputs.find(in.value);
        if (it != graph_inputs.end()) po.inputs[in.name] = it->second;
        continue;
      }
      if (*in.partition < p) {
        auto it = produced[*in.partition].find(in.value);
        if (it != produced[*in.partition].end()) v = &it->second;
      }
      if (!v || !v->is_tensor()) {
        out.error = what + ": input '" + in.name + "' is not a tensor an earlier partition made";
        return out;
      }
      po.inputs[in.name] = v->tensor;
    }
    interp::RunResult r = interp::run(part.graph, po);
    if (r.ranks.size() > 1) {
      // Every rank of a program has constants and values of its own; one partition's ranks can
      // be simulated, but not handed on to the next partition's.
      out.error = what + " runs collectives on " + std::to_string(r.ranks.size()) +
                  " ranks: the runner runs a partitioned program as one process";
      out.runs.push_back(std::move(r));
      return out;
    }
    if (!r.ok) {
      out.error = what + ": " + r.error;
      out.runs.push_back(std::move(r));
      return out;
    }
    for (const auto& [name, value] : r.dims) {
      auto it = out.dims.find(name);
      if (it != out.dims.end() && it->second != value) {
        out.error = what + " binds dim " + name + " = " + to_string(value) +
                    ", but the program's inputs make it " + to_string(it->second);
        out.runs.push_back(std::move(r));
        return out;
      }
    }
    const RValue& result = r.output();
    if (result.kind != RValue::Kind::List || result.items.size() != part.outputs.size()) {
      out.error = what + ": its output is not the list of its " +
                  std::to_string(part.outputs.size()) + " outputs";
      return out;
    }
    for (size_t k = 0; k < part.outputs.size(); ++k) produced[p][part.outputs[k]] = result.items[k];

    out.runs.push_back(std::move(r));
  }
  std::function<RValue(const ProgramOutput&)> assemble = [&](const ProgramOutput& o) -> RValue {
    switch (o.kind) {
      case ProgramOutput::Kind::None: return RValue::none();
      case ProgramOutput::Kind::Input: return RValue::of(graph_inputs.at(o.name));
      case ProgramOutput::Kind::Partition: {
        if (o.partition >= produced.size() || !produced[o.partition].count(o.name)) {
          throw Error("output '" + o.name + "' of partition " + std::to_string(o.partition) +
                      " was not made");
        }
        return produced[o.partition].at(o.name);
      }
      case ProgramOutput::Kind::List: {
        std::vector<RValue> items;
        for (const ProgramOutput& item : o.items) items.push_back(assemble(item));
        return RValue::list(std::move(items));
      }
    }
    return RValue::none();
  };
  try {
    out.output = assemble(program.output);
  } catch (const std::exception& e) {
    out.error = e.what();
    return out;
  }
  out.ok = true;
  return out;
}

std::optional<std::string> compare_partitioned(const Graph& graph,
                                               const PartitionedProgram& program,
                                               const interp::RunOptions& options, Bindings* dims) {
  PartitionedRun split = run_partitioned(program, options);
  if (dims) *dims = split.dims;
  if (!split.ok) return "the partitioned program fails: " + split.error;
  interp::RunOptions whole = options;
  whole.sizes.clear();
  whole.random_dims = false;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    whole.inputs[program.inputs[i].name] = split.inputs[i];
  }
  interp::RunResult r = interp::run(graph, whole);
  if (!r.ok) return "the graph fails at " + dims_text(split.dims) + ": " + r.error;
  if (auto d = difference(r.output(), split.output, "output")) {
    return "the partitioned program's " + *d + " (the graph's value first) at " +
           dims_text(split.dims);
  }
  return std::nullopt;
}

}  // namespace symshape
