// `symshape check-inputs GRAPH.json --size x=2,128 [--size y=...]... [--stride x=...]...`:
// propagate, produce the guards, and say whether these concrete inputs satisfy them.
#include <iostream>
#include <set>

#include "symshape/guards.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kCheckInputsFlags[] = {
    {"--size", "NAME=N,N,...", "an input's sizes (or the value of a dim no input's size gives)"},
    {"--stride", "NAME=N,N,...", "an input's strides (default: contiguous)"},
    {"--dim", "NAME=MIN..MAX", "declare a dim dynamic in this range (overrides the graph's)"},
    {"--json", "", "print one JSON document instead of text"},
};

void print_check_inputs_usage(std::ostream& os) {
  os << "usage: symshape check-inputs GRAPH.json --size NAME=N,N,... [--size ...]...\n"
        "                             [--stride NAME=N,N,...]... [--dim NAME=MIN..MAX]...\n"
        "                             [--json]\n\n"
        "Propagates shapes, produces the guards and checks them on these concrete inputs: every\n"
        "input needs its sizes; strides default to contiguous. A dim that no input's size\n"
        "determines (a group size W) is given as --size W=N. --json prints one JSON document:\n"
        "accepted or not, the failing guard with its values and provenance, any error.\n"
        "Exit status: 0 when the inputs satisfy every guard, 1 when a guard fails (or on a\n"
        "shape error), 2 on bad input.\n\n"
     << format_flags(kCheckInputsFlags);
}

using Lists = std::map<std::string, std::vector<Int>>;

Lists parse_lists(const ParsedArgs& parsed, std::string_view flag) {
  Lists lists;
  for (const std::string& spec : parsed.all(flag)) {
    auto [name, values] = parse_int_list_spec(spec);
    if (!lists.emplace(name, values).second)
      throw UsageError(std::string(flag) + " " + quote(name) + " is given twice");
    for (const Int& v : values) {
      if (v < 0)
        throw UsageError(std::string(flag) + " " + quote(spec) + ": sizes and strides are >= 0");
    }
  }
  return lists;
}

// One value per source, read off the flags.
std::vector<Int> source_values(const GuardSet& set, const Graph& graph, const Lists& sizes,
                               const Lists& strides) {
  std::set<std::string> used;
  for (const auto& [name, values] : sizes) {
    const Node* n = graph.find(name);
    bool is_input = n && n->op == NodeOp::Placeholder;
    bool is_dim = set.find_source("dims['" + name + "']") < set.sources.size();
    if (!is_input && !is_dim) {
      std::vector<std::string> known = graph_input_names(graph);
      for (const Source& src : set.sources) {
        if (src.kind == Source::Kind::Dim) known.push_back(src.input);
      }
      throw UsageError("--size " + quote(name) + " names no input (and no free dim) of the graph" +
                       did_you_mean(name, known));
    }
    if (is_input && n->shape && values.size() != n->shape->size()) {
      throw UsageError("--size " + quote(name) + " gives " + std::to_string(values.size()) +
                       " sizes but input '" + name + "' has rank " +
                       std::to_string(n->shape->size()));
    }
    if (is_dim && values.size() != 1)
      throw UsageError("--size " + quote(name) + " is a dim: give one value");
  }
  for (const auto& [name, values] : strides) {
    auto s = sizes.find(name);
    if (s == sizes.end()) throw UsageError("--stride " + quote(name) + " without --size");
    if (values.size() != s->second.size())
      throw UsageError("--stride " + quote(name) + " must give one stride per size");
  }
  std::vector<Int> values;
  for (const Source& src : set.sources) {
    const std::string& key = src.input;
    auto s = sizes.find(key);
    if (s == sizes.end()) {
      throw UsageError(src.kind == Source::Kind::Dim
                           ? "the dim " + key + " is no input's size: give --size " + key + "=N"
                           : "no --size for input " + quote(key));
    }
    switch (src.kind) {
      case Source::Kind::Size: values.push_back(s->second.at(src.dim)); break;
      case Source::Kind::Dim: values.push_back(s->second.at(0)); break;
      case Source::Kind::StorageOffset: values.push_back(Int(0)); break;
      case Source::Kind::Stride: {
        auto st = strides.find(key);
        if (st != strides.end()) {
          values.push_back(st->second.at(src.dim));
        } else {
          Int stride = 1;  // contiguous
          for (size_t d = src.dim + 1; d < s->second.size(); ++d) stride = stride * s->second[d];
          values.push_back(stride);
        }
        break;
      }
    }
  }
  return values;
}

// The failing guard as --json prints it: what the text's `rejected:` line says, field by field.
nlohmann::ordered_json failure_json(const CheckFailure& f) {
  nlohmann::ordered_json j;
  j["guard"] = f.text;
  j["index"] = f.guard;
  j["values"] = nlohmann::ordered_json::array();
  for (const auto& [source, value] : f.values) {
    j["values"].push_back({{"source", source}, {"value", int_json(value)}});
  }
  j["reason"] =
      f.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f.reason);
  j["where"] = f.where.str();
  j["provenance"] = {{"node", f.where.node}, {"op", f.where.op}, {"rule", f.where.rule}};
  j["message"] = f.str();
  return j;
}

}  // namespace

int run_check_inputs(const Args& args) {
  ParsedArgs parsed = parse_flags(args, kCheckInputsFlags);
  if (parsed.help) {
    print_check_inputs_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  Lists sizes = parse_lists(parsed, "--size");
  Lists strides = parse_lists(parsed, "--stride");
  LoadedGraph loaded = load_and_propagate(parsed.positional[0], parsed.all("--dim"));
  const bool json = parsed.has("--json");
  if (!loaded.result.ok()) {
    if (json) {
      // As `check --json`: the document holds the error, and nothing goes to stderr.
      nlohmann::ordered_json doc;
      doc["status"] =
          loaded.result.status == Propagation::Status::ShapeError ? "shape_error" : "input_error";
      doc["accepted"] = nullptr;
      doc["guards"] = nullptr;
      doc["runtime_asserts"] = nullptr;
      doc["failure"] = nullptr;
      doc["error"] = loaded.result.error;
      print_json(std::cout, doc);
    } else {
      print_error(loaded.result.error);
    }
    return exit_code(loaded.result.status);
  }
  GuardSet set = produce_guards(*loaded.env, graph_inputs(loaded.graph));
  std::vector<Int> values = source_values(set, loaded.graph, sizes, strides);
  GuardChecker checker(set);
  std::optional<CheckFailure> failure = checker.check(values);
  if (json) {
    nlohmann::ordered_json doc;
    doc["status"] = failure ? "rejected" : "ok";
    doc["accepted"] = !failure;
    doc["guards"] = set.guards.size();
    doc["runtime_asserts"] = set.runtime_asserts.size();
    doc["failure"] = failure ? failure_json(*failure) : nlohmann::ordered_json(nullptr);
    doc["error"] = nullptr;
    print_json(std::cout, doc);
    return failure ? kExitShapeError : kExitOk;
  }
  if (failure) {
    std::cout << "rejected: " << failure->str() << "\n";
    return kExitShapeError;
  }
  std::cout << "ok: the inputs satisfy all " << set.guards.size() << " guards\n";
  if (!set.runtime_asserts.empty()) {
    std::cout << "note: " << set.runtime_asserts.size()
              << " runtime asserts on data-dependent values are checked when the graph runs\n";
  }
  return kExitOk;
}

}  // namespace symshape::cli
