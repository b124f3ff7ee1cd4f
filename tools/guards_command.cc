// `symshape guards GRAPH.json [--dim NAME=MIN..MAX]... [--lang
// python|verbose|cpp|cpp-function|json]`: propagate, then print the guards under which the graph's
// shapes stay valid.
#include <iostream>

#include "symshape/guards.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kGuardsFlags[] = {
    {"--dim", "NAME=MIN..MAX", "declare a dim dynamic in this range (overrides the graph's)"},
    {"--lang", "LANG", "python (default), verbose, cpp, cpp-function or json"},
};

void print_guards_usage(std::ostream& os) {
  os << "usage: symshape guards GRAPH.json [--dim NAME=MIN..MAX]... [--lang LANG]\n\n"
        "Propagates shapes, then prints the guards: the conditions on the inputs' sizes and\n"
        "strides under which every decision made on the example sizes stays valid. Equalities\n"
        "between sources come first, then the guards nothing else implies, then each dim's\n"
        "range. When the guards contradict a declared dim's range, prints what is violated and\n"
        "suggested fixes instead (on stderr; with --lang json, as a JSON document on stdout,\n"
        "as is a shape error). A file ending in .onnx is read as an ONNX model (its inputs have\n"
        "sizes only: no stride guards). --lang cpp prints one C++ expression over the sources;\n"
        "--lang cpp-function a complete function, bool guard(const int64_t* sizes), that\n"
        "compiles as is against symshape/guard_int.h (its comment lists what sizes[i] holds).\n"
        "Exit status: 0 ok, 1 on a shape error or a violated declaration, 2 on bad input.\n\n"
     << format_flags(kGuardsFlags);
}

// The guards as a complete C++ function over the source values, in GuardSet::sources order.
std::string cpp_function(const GuardSet& set) {
  std::string out =
      "// The guards as a C++ function (symshape guards --lang cpp-function): true when the\n"
      "// inputs satisfy every guard. sizes[i] is the value of source i (sizes, strides and\n"
      "// dims alike):\n";
  for (size_t i = 0; i < set.sources.size(); ++i)
    out += "//   sizes[" + std::to_string(i) + "] = " + set.sources[i].name + "\n";
  out +=
      "// Exact arithmetic (symshape::GuardInt): no int64 overflow; a division by zero throws\n"
      "// std::domain_error.\n"
      "#include <cstdint>\n\n"
      "#include \"symshape/guard_int.h\"\n\n"
      "bool guard(const int64_t* sizes) {\n";
  for (size_t i = 0; i < set.sources.size(); ++i) {
    out += "  [[maybe_unused]] const symshape::GuardInt " + set.sources[i].identifier +
           " = sizes[" + std::to_string(i) + "];\n";
  }
  std::string body = print_cpp(set);
  while (!body.empty() && body.back() == '\n') body.pop_back();
  std::string indented;
  for (char c : body) indented += c == '\n' ? std::string("\n         ") : std::string(1, c);
  out += "  return " + indented + ";\n}\n";
  return out;
}

}  // namespace

int run_guards(const Args& args) {
  ParsedArgs parsed = parse_flags(args, kGuardsFlags);
  if (parsed.help) {
    print_guards_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  std::string lang = parsed.has("--lang") ? parsed.all("--lang").back() : "python";
  if (lang != "python" && lang != "verbose" && lang != "cpp" && lang != "cpp-function" &&
      lang != "json") {
    throw UsageError("unknown --lang " + quote(lang) +
                     " (expected python, verbose, cpp, cpp-function or json)");
  }
  LoadedGraph loaded = load_and_propagate(parsed.positional[0], parsed.all("--dim"));
  const bool json = lang == "json";
  if (!loaded.result.ok()) {
    if (json) {
      // As `check --json`: the document holds the error, and nothing goes to stderr.
      nlohmann::ordered_json doc;
      doc["status"] =
          loaded.result.status == Propagation::Status::ShapeError ? "shape_error" : "input_error";
      doc["problems"] = nlohmann::ordered_json::array();
      doc["error"] = loaded.result.error;
      print_json(std::cout, doc);
    } else {
      print_error(loaded.result.error);
    }
    return exit_code(loaded.result.status);
  }
  GuardSet set = produce_guards(*loaded.env, graph_inputs(loaded.graph));
  std::vector<ConstraintProblem> problems = check_constraints(*loaded.env);
  if (!problems.empty()) {
    if (json) {
      nlohmann::ordered_json doc;
      doc["status"] = "constraint_violation";
      doc["problems"] = nlohmann::ordered_json::array();
      for (const ConstraintProblem& p : problems) {
        doc["problems"].push_back({{"dim", p.dim}, {"message", p.message}, {"fixes", p.fixes}});
      }
      // The report the text prints to stderr, several lines.
      doc["error"] = format_constraint_problems(problems);
      print_json(std::cout, doc);
    } else {
      std::cerr << format_constraint_problems(problems);
    }
    return kExitShapeError;
  }
  if (lang == "python") std::cout << print_python(set);
  if (lang == "verbose") std::cout << print_verbose(set);
  if (lang == "cpp") std::cout << print_cpp(set);
  if (lang == "cpp-function") std::cout << cpp_function(set);
  if (lang == "json") std::cout << to_json(set).dump(2) << "\n";
  return kExitOk;
}

}  // namespace symshape::cli
