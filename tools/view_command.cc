// `symshape view GRAPH.json|MODEL.onnx -o page.html [--dim NAME=MIN..MAX]...`: one self-contained
// HTML page of the graph, its symbolic shapes, guards and symbols; and the page `lower --view`
// writes, with the graph after every pass.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "symshape/onnx.h"
#include "symshape/view.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kViewFlags[] = {
    {"--output", "PAGE.html", "write the page there (required; also -o)"},
    {"--dim", "NAME=MIN..MAX", "the range of a declared dim (overrides the graph's \"dims\")"},
    {"--title", "TEXT", "the page's title (default: the graph's file name)"},
    {"--json", "", "write the page's data (one JSON document) instead of the page"},
    {"--collapse-above", "N", "start module-scope groups collapsed above N nodes (default 300)"},
    {"--time", "", "report the CPU time of reading, propagating and writing on stderr"},
};

void print_view_usage(std::ostream& os) {
  os << "usage: symshape view GRAPH.json|MODEL.onnx -o PAGE.html [--dim NAME=MIN..MAX]...\n"
        "                    [--title TEXT] [--json] [--collapse-above N] [--time]\n\n"
        "Writes one self-contained HTML page (no network needed) that draws the graph top to\n"
        "bottom with every value's dtype and symbolic shape, each dim coloured by kind (static,\n"
        "symbol, expression, unbacked, specialized), and lists the guards, symbols, runtime\n"
        "asserts and constraint problems, each linked to its node. See docs/view.md.\n"
        "Exit status: 0 when the graph type-checks, 1 on a shape error (the page shows it), 2\n"
        "on bad input.\n\n"
     << format_flags(kViewFlags);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  if (!file) throw Error("cannot write " + quote(path));
  file << text;
  if (!file) throw Error("cannot write " + quote(path));
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ms(double seconds) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << seconds * 1e3 << " ms";
  return os.str();
}

}  // namespace

int run_view(const Args& raw) {
  Args args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  const ParsedArgs parsed = parse_flags(args, kViewFlags);
  if (parsed.help) {
    print_view_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  for (const char* once : {"--output", "--title", "--collapse-above"}) {
    if (parsed.all(once).size() > 1) throw UsageError(std::string(once) + " is given twice");
  }
  if (!parsed.has("--output")) throw UsageError("missing -o PAGE.html (where to write the page)");
  const std::string output = parsed.all("--output")[0];
  view::PageOptions options;
  const std::string& path = parsed.positional[0];
  options.title = parsed.has("--title") ? parsed.all("--title")[0]
                                        : (path == "-" ? std::string("<stdin>") : base_name(path));
  if (parsed.has("--collapse-above")) {
    const std::string& text = parsed.all("--collapse-above")[0];
    const std::optional<Int> n = parse_int(text);
    const std::optional<int64_t> v = n ? to_int64(*n) : std::nullopt;
    if (!v || *v < 0) throw UsageError("bad value " + quote(text) + " for --collapse-above");
    options.collapse_above = static_cast<size_t>(*v);
  }

  const LoadedGraph loaded = load_and_propagate(path, parsed.all("--dim"));
  const double before_write = cpu_seconds();
  const view::Stage stage{"input",          &loaded.graph,       &loaded.result.values,
                          loaded.env.get(), loaded.result.error, loaded.result.failed_node};
  const nlohmann::ordered_json data = view::page_data({stage}, options);
  if (parsed.has("--json")) {
    write_file(output,
               data.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  } else {
    write_file(output, view::page_html(data, options.title));
  }
  if (!loaded.result.ok()) print_error(loaded.result.error);
  if (parsed.has("--time")) {
    std::cerr << "symshape: time: read " << ms(loaded.read_seconds) << ", propagate "
              << ms(loaded.propagate_seconds) << ", write " << ms(cpu_seconds() - before_write)
              << " (" << loaded.graph.nodes.size() << " nodes)\n";
  }
  return exit_code(loaded.result.status);
}

void write_lowering_view(const Graph& graph, const std::vector<PassSpec>& specs,
                         const PassManagerOptions& manager_options, const std::string& path,
                         const std::string& title) {
  PassManagerOptions options = manager_options;
  options.verify_numerics = false;
  options.dump_before.clear();
  options.dump_after.clear();
  options.dump = nullptr;
  // Every stage keeps its own graph, values and env: the input as propagated, then the graph
  // after each pass, each pass run by a manager of its own on the graph before it.
  std::vector<std::unique_ptr<ShapeEnv>> envs;
  std::vector<std::unique_ptr<LowerResult>> results;
  std::vector<view::Stage> stages;
  {
    PassManager identity(PassRegistry::standard(), options);
    envs.push_back(std::make_unique<ShapeEnv>());
    results.push_back(std::make_unique<LowerResult>(identity.run(graph, *envs.back())));
    if (!results.back()->ok) throw Error(results.back()->error);
    stages.push_back(
        {"input", &results.back()->graph, &results.back()->values, envs.back().get(), "", 0});
  }
  for (const PassSpec& spec : specs) {
    PassManager manager(PassRegistry::standard(), options);
    manager.add(spec);
    const Graph& before = results.back()->graph;
    envs.push_back(std::make_unique<ShapeEnv>());
    results.push_back(std::make_unique<LowerResult>(manager.run(before, *envs.back())));
    if (!results.back()->ok) throw Error(results.back()->error);
    stages.push_back({"after " + spec.name, &results.back()->graph, &results.back()->values,
                      envs.back().get(), "", 0});
  }
  view::PageOptions page;
  page.title = title;
  write_file(path, view::page_html(view::page_data(stages, page), title));
}

}  // namespace symshape::cli
