// `symshape lower GRAPH.json [--passes P1,P2,...|--pipeline NAME] [-o OUT.json] ...`: rewrite a
// graph with lowering passes under the PassManager's checks; `symshape passes`: list them.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "symshape/ir.h"
#include "symshape/passes.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kLowerFlags[] = {
    {"--passes", "P1,P2,...", "the passes to run, in order (`name{key=value;...}` sets options)"},
    {"--pipeline", "NAME", "a named pipeline (default: `default`, every clean-up)"},
    {"--output", "OUT.json", "write the lowered graph there (`-` for stdout); also -o"},
    {"--verify-numerics", "", "run the graph before and after each pass and compare outputs"},
    {"--verify-at-end", "", "check the invariants once after the pipeline, not after each pass"},
    {"--seed", "N", "the seed of the inputs --verify-numerics generates (default 0)"},
    {"--dump-before", "PASS", "print the graph before that pass"},
    {"--dump-after", "PASS", "print the graph after that pass"},
    {"--dim", "NAME=MIN..MAX", "the range of a declared dim (overrides the graph's \"dims\")"},
    {"--json", "", "print the report as one JSON document"},
};

void print_lower_usage(std::ostream& os) {
  os << "usage: symshape lower GRAPH.json [--passes P1,P2,...|--pipeline NAME] [-o OUT.json]\n"
        "                    [--verify-numerics] [--dump-before P] [--dump-after P] [--json]\n\n"
        "Propagates the graph's shapes, runs the passes under the PassManager's checks (the\n"
        "graph verifies, every node's metadata is what the shape rules derive, no symbol is lost\n"
        "or specialized, no undeclared guard), prints what each pass did and writes the lowered\n"
        "graph in the canonical JSON format, which check, guards and run accept.\n"
        "Exit status: 0 when every pass succeeded, 1 when the graph has a shape error or a pass\n"
        "failed its checks, 2 on bad input (the file, a flag, an unknown pass).\n\n"
     << format_flags(kLowerFlags);
}

std::string milliseconds(double seconds) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << seconds * 1e3 << " ms";
  return os.str();
}

void print_report(std::ostream& os, const LowerResult& r) {
  size_t width = 0;
  for (const PassReport& p : r.reports) width = std::max(width, p.pass.size());
  double total = 0;
  for (const PassReport& p : r.reports) {
    total += p.seconds;
    os << std::left << std::setw(static_cast<int>(width)) << p.pass << "  ";
    if (!p.stats.changed()) {
      os << "no change";
    } else {
      os << p.nodes_before << " -> " << p.nodes_after << " nodes (" << p.stats.inserted
         << " inserted, " << p.stats.erased << " erased, " << p.stats.rewritten << " rewritten)";
      for (const auto& [name, n] : p.stats.counters) os << ", " << name << ": " << n;
    }
    if (p.numeric_runs) os << ", numerics checked in " << p.numeric_runs << " runs";
    os << "  " << milliseconds(p.seconds) << "\n";
    for (const Guard& g : p.guards_added) os << "  guard added: " << g.cond.str() << "\n";
  }
  if (!r.reports.empty()) {
    os << "total: " << r.reports.front().nodes_before << " -> " << r.graph.nodes.size()
       << " nodes in " << milliseconds(total) << "\n";
  }
}

nlohmann::ordered_json report_json(const LowerResult& r) {
  nlohmann::ordered_json j;
  j["ok"] = r.ok;
  if (!r.ok) {
    j["error"] = r.error;
    j["failed_pass"] = r.failed_pass;
  }
  j["passes"] = nlohmann::ordered_json::array();
  for (const PassReport& p : r.reports) {
    nlohmann::ordered_json e;
    e["pass"] = p.pass;
    e["changed"] = p.stats.changed();
    e["nodes_before"] = p.nodes_before;
    e["nodes_after"] = p.nodes_after;
    e["inserted"] = p.stats.inserted;
    e["erased"] = p.stats.erased;
    e["rewritten"] = p.stats.rewritten;
    e["counters"] = nlohmann::ordered_json::object();
    for (const auto& [name, n] : p.stats.counters) e["counters"][name] = n;
    e["guards_added"] = nlohmann::ordered_json::array();
    for (const Guard& g : p.guards_added) e["guards_added"].push_back(g.cond.str());
    e["numeric_runs"] = p.numeric_runs;
    e["seconds"] = p.seconds;
    j["passes"].push_back(std::move(e));
  }
  return j;
}

}  // namespace

int run_lower(const Args& raw) {
  Args args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  ParsedArgs parsed = parse_flags(args, kLowerFlags);
  if (parsed.help) {
    print_lower_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  if (parsed.has("--passes") && parsed.has("--pipeline")) {
    throw UsageError("give --passes or --pipeline, not both");
  }
  for (const char* once : {"--passes", "--pipeline", "--output", "--seed"}) {
    if (parsed.all(once).size() > 1) throw UsageError(std::string(once) + " is given twice");
  }
  const PassRegistry& registry = PassRegistry::standard();
  PassManagerOptions options;
  if (parsed.has("--seed")) {
    std::optional<Int> seed = parse_int(parsed.all("--seed")[0]);
    std::optional<int64_t> s = seed ? to_int64(*seed) : std::nullopt;
    if (!s || *s < 0)
      throw UsageError("bad value " + quote(parsed.all("--seed")[0]) + " for --seed");
    options.seed = static_cast<uint64_t>(*s);
  }
  options.verify_numerics = parsed.has("--verify-numerics");
  options.verify_each_pass = !parsed.has("--verify-at-end");
  for (const char* flag : {"--dump-before", "--dump-after"}) {
    for (const std::string& p : parsed.all(flag)) {
      if (!registry.find(p)) throw UsageError("unknown pass " + quote(p) + " for " + flag);
    }
  }
  options.dump_before = parsed.all("--dump-before");
  options.dump_after = parsed.all("--dump-after");
  const std::string output = parsed.has("--output") ? parsed.all("--output")[0] : "";
  // The graph takes stdout when asked for; the report and dumps then go to stderr.
  std::ostream& report_out = output == "-" ? std::cerr : std::cout;
  std::ostringstream dumps;
  options.dump = &dumps;

  const Graph graph = read_graph_arg(parsed.positional[0]);
  options.propagate = dim_overrides(graph, parsed.all("--dim"));

  PassManager manager(registry, options);
  if (parsed.has("--passes")) {
    auto specs = parse_pass_list(parsed.all("--passes")[0], registry);
    if (!specs) throw UsageError(specs.error());
    for (const PassSpec& s : *specs) manager.add(s);
  } else {
    const std::string name = parsed.has("--pipeline") ? parsed.all("--pipeline")[0] : "default";
    if (!registry.pipeline(name)) {
      std::string known;
      for (const auto* p : registry.pipelines()) known += (known.empty() ? "" : ", ") + p->name;
      throw UsageError("unknown pipeline " + quote(name) + " (known: " + known + ")");
    }
    manager.add_pipeline(name);
  }

  ShapeEnv env;
  LowerResult result = manager.run(graph, env);
  if (!result.ok && result.failed_pass.empty()) {
    // The input graph itself does not type-check: the same verdict as `check`.
    Propagation p = propagate(graph, *std::make_unique<ShapeEnv>(), options.propagate);
    print_error(result.error);
    return p.ok() ? kExitShapeError : exit_code(p.status);
  }
  if (!result.ok) {
    print_error(result.error);
    return kExitShapeError;
  }
  report_out << dumps.str();
  if (parsed.has("--json")) {
    report_out << report_json(result).dump(2) << "\n";
  } else {
    print_report(report_out, result);
  }
  if (output == "-") {
    std::cout << write_graph(result.graph);
  } else if (!output.empty()) {
    std::ofstream file(output, std::ios::binary);
    if (!file) throw Error("cannot write " + quote(output));
    file << write_graph(result.graph);
    if (!file) throw Error("cannot write " + quote(output));
  }
  return kExitOk;
}

int run_passes(const Args& args) {
  ParsedArgs parsed = parse_flags(args, {});
  if (parsed.help) {
    std::cout << "usage: symshape passes\n\nLists every lowering pass (name, what it does, its "
                 "options) and the named pipelines.\n";
    return kExitOk;
  }
  expect_positionals(parsed, 0, "nothing");
  const PassRegistry& registry = PassRegistry::standard();
  size_t width = 0;
  for (const Pass* p : registry.passes()) width = std::max(width, p->name().size());
  std::cout << "passes:\n";
  for (const Pass* p : registry.passes()) {
    std::cout << "  " << std::left << std::setw(static_cast<int>(width)) << p->name() << "  "
              << p->description() << "\n";
    for (const PassOption& o : p->options()) {
      std::cout << "  " << std::string(width, ' ') << "    " << o.name << "=" << o.default_value
                << "  " << o.help << "\n";
    }
  }
  std::cout << "\npipelines:\n";
  for (const auto* p : registry.pipelines()) {
    std::cout << "  " << p->name << ": " << p->description << "\n    ";
    for (size_t i = 0; i < p->passes.size(); ++i) std::cout << (i ? "," : "") << p->passes[i];
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace symshape::cli
