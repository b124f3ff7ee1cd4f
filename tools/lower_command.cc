// `symshape lower GRAPH.json [--passes P1,P2,...|--pipeline NAME] [-o OUT.json] ...`: rewrite a
// graph with lowering passes under the PassManager's checks; `symshape passes`: list them.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "symshape/ir.h"
#include "symshape/onnx.h"
#include "symshape/passes.h"
#include "tools/cli.h"
#include "tools/run_command.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kLowerFlags[] = {
    {"--passes", "P1,P2,...", "the passes to run, in order (`name{key=value;...}` sets options)"},
    {"--pipeline", "NAME", "a named pipeline (default: `default`, every clean-up)"},
    {"--output", "OUT.json", "write the lowered graph there (`-` for stdout); also -o"},
    {"--verify-numerics", "", "run the graph before and after each pass and compare outputs"},
    {"--verify-at-end", "", "check the invariants once after the pipeline, not after each pass"},
    {"--seed", "N", "the seed of the inputs --verify-numerics generates (default 0)"},
    {"--memory-budget", "BYTES",
     "the bytes each --verify-numerics run may hold at once (default 8 GiB; 8 per element)"},
    {"--inputs", "DIR",
     "--verify-numerics reads input or constant NAME from DIR/NAME.npy where that file exists"},
    {"--dump-before", "PASS", "print the graph before that pass"},
    {"--dump-after", "PASS", "print the graph after that pass"},
    {"--dim", "NAME=MIN..MAX", "the range of a declared dim (overrides the graph's \"dims\")"},
    {"--json", "", "print the report as one JSON document"},
    {"--view", "PAGE.html", "write a page of the graph before and after each pass (docs/view.md)"},
};

void print_lower_usage(std::ostream& os) {
  os << "usage: symshape lower GRAPH.json [--passes P1,P2,...|--pipeline NAME] [-o OUT.json]\n"
        "                    [--verify-numerics [--inputs DIR]] [--memory-budget BYTES]\n"
        "                    [--dump-before P] [--dump-after P] [--json]\n"
        "                    [--view PAGE.html]\n"
        "                    [--PASS-OPTION=VALUE ...]\n\n"
        "Propagates the graph's shapes, runs the passes under the PassManager's checks (the\n"
        "graph verifies, every node's metadata is what the shape rules derive, no symbol is lost\n"
        "or specialized, no undeclared guard), prints what each pass did and writes the lowered\n"
        "graph in the canonical JSON format, which check, guards and run accept.\n"
        "Exit status: 0 when every pass succeeded, 1 when the graph has a shape error or a pass\n"
        "failed its checks, 2 on bad input (the file, a flag, an unknown pass).\n\n"
     << format_flags(kLowerFlags)
     << "\nA pass's options are also flags: --PASS-OPTION=VALUE (or --PASS-OPTION VALUE) sets\n"
        "OPTION on every run of PASS, like `PASS{OPTION=VALUE}` (e.g. --autocast-low=bfloat16).\n"
        "A flag given again adds a value: the option gets them one per line, which options\n"
        "taking a list read as items (autocast's exclude-node and exclude-op) and the others\n"
        "refuse. `symshape passes` lists every pass's options. --decompose LIST and\n"
        "--no-decompose LIST are --decompose-only and --decompose-skip.\n";
}

// `--PASS-OPTION=VALUE` flags, by pass and option, each option's values in order.
using PassOptionFlags = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Takes the `--PASS-OPTION[=VALUE]` words (and their values) out of args; the rest is left for
// parse_flags. A word that is neither one of lower's flags nor a known pass's option is an error
// naming the known passes (or, for a known pass, its options).
PassOptionFlags take_pass_option_flags(Args& args, const PassRegistry& registry) {
  PassOptionFlags out;
  Args rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    const size_t eq = word.find('=');
    std::string name = word.substr(0, eq);
    // Torch-TensorRT's spelling of decompose's lists: --decompose A,B and --no-decompose C.
    if (name == "--decompose") name = "--decompose-only";
    if (name == "--no-decompose") name = "--decompose-skip";
    const auto known = std::find_if(std::begin(kLowerFlags), std::end(kLowerFlags),
                                    [&](const FlagSpec& f) { return f.name == name; });
    if (!word.starts_with("--") || word == "--help" || known != std::end(kLowerFlags)) {
      rest.push_back(word);
      // A flag's value is its own, whatever it looks like.
      if (known != std::end(kLowerFlags) && !known->metavar.empty() && eq == std::string::npos &&
          i + 1 < args.size()) {
        rest.push_back(args[++i]);
      }
      continue;
    }
    // The longest pass name that `--NAME-` starts with and that declares the rest as an option.
    const std::string body = name.substr(2);
    const Pass* prefix = nullptr;
    const Pass* pass = nullptr;
    std::string option;
    for (const Pass* p : registry.passes()) {
      const std::string pn(p->name());
      if (!body.starts_with(pn + "-") || (prefix && prefix->name().size() > pn.size())) continue;
      prefix = p;
      const std::string candidate = body.substr(pn.size() + 1);
      for (const PassOption& o : p->options()) {
        if (o.name == candidate && (!pass || pass->name().size() < pn.size())) {
          pass = p;
          option = candidate;
        }
      }
    }
    if (!pass && prefix) {
      std::vector<std::string> options;
      for (const PassOption& o : prefix->options()) options.push_back(o.name);
      throw UsageError(
          "unknown flag " + quote(name) + ": pass " + quote(prefix->name()) + " has no option " +
          quote(body.substr(prefix->name().size() + 1)) +
          (options.empty() ? " (it takes none)" : " (options: " + join_names(options) + ")"));
    }
    if (!pass) {
      std::vector<std::string> passes;
      for (const Pass* p : registry.passes()) passes.emplace_back(p->name());
      throw UsageError("unknown flag " + quote(name) +
                       " (not a flag of lower; pass options are --PASS-OPTION, known passes: " +
                       join_names(passes) + ")");
    }
    std::string value;
    if (eq != std::string::npos) {
      value = word.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw UsageError("flag " + quote(name) + " needs a value (option " + quote(option) +
                       " of pass " + quote(pass->name()) + ")");
    }
    out[std::string(pass->name())][option].push_back(std::move(value));
  }
  args = std::move(rest);
  return out;
}

// Sets the flags' options on every run of their pass; a pass that does not run, or an option
// also given in the pass list, is an error.
void apply_pass_option_flags(const PassOptionFlags& flags, std::vector<PassSpec>& specs) {
  for (const auto& [pass, options] : flags) {
    bool runs = false;
    for (PassSpec& spec : specs) {
      if (spec.name != pass) continue;
      runs = true;
      for (const auto& [option, values] : options) {
        if (spec.options.count(option)) {
          throw UsageError("option " + quote(option) + " of pass " + quote(pass) +
                           " is given both in the pass list and as --" + pass + "-" + option);
        }
        std::string joined;
        for (size_t i = 0; i < values.size(); ++i) joined += (i ? "\n" : "") + values[i];
        spec.options[option] = joined;
      }
    }
    if (!runs) {
      throw UsageError("--" + pass + "-" + options.begin()->first + " sets an option of pass " +
                       quote(pass) + ", which is not among the passes run");
    }
  }
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
      os << "no change";  // counters still say why (`kept gelu: ...`, ONNX ops left)
      for (const auto& [name, n] : p.stats.counters) os << ", " << name << ": " << n;
    } else {
      os << p.nodes_before << " -> " << p.nodes_after << " nodes (" << p.stats.inserted
         << " inserted, " << p.stats.erased << " erased, " << p.stats.rewritten << " rewritten)";
    }
    // The counters whether or not the graph changed: what a pass kept, and why, is the same
    // report in both cases (decompose's `kept inplace: ...`).
    for (const auto& [name, n] : p.stats.counters) os << ", " << name << ": " << n;
    if (p.numeric_runs) {
      os << ", numerics checked in " << p.numeric_runs << (p.numeric_runs == 1 ? " run" : " runs");
    }
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
  const PassRegistry& registry = PassRegistry::standard();
  const PassOptionFlags option_flags = take_pass_option_flags(args, registry);
  ParsedArgs parsed = parse_flags(args, kLowerFlags);
  if (parsed.help) {
    print_lower_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  if (parsed.has("--passes") && parsed.has("--pipeline")) {
    throw UsageError("give --passes or --pipeline, not both");
  }
  for (const char* once :
       {"--passes", "--pipeline", "--output", "--seed", "--view", "--memory-budget", "--inputs"}) {
    if (parsed.all(once).size() > 1) throw UsageError(std::string(once) + " is given twice");
  }
  PassManagerOptions options;
  if (parsed.has("--seed")) {
    std::optional<Int> seed = parse_int(parsed.all("--seed")[0]);
    std::optional<int64_t> s = seed ? to_int64(*seed) : std::nullopt;
    if (!s || *s < 0)
      throw UsageError("bad value " + quote(parsed.all("--seed")[0]) + " for --seed");
    options.seed = static_cast<uint64_t>(*s);
  }
  options.verify_numerics = parsed.has("--verify-numerics");
  if (parsed.has("--memory-budget")) {
    const std::string& text = parsed.all("--memory-budget")[0];
    std::optional<Int> bytes = parse_int(text);
    std::optional<int64_t> b = bytes ? to_int64(*bytes) : std::nullopt;
    if (!b || *b < 1) throw UsageError("bad value " + quote(text) + " for --memory-budget");
    options.memory_budget = *b;
  }
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
  if (parsed.has("--inputs")) {
    if (!options.verify_numerics) throw UsageError("--inputs is for --verify-numerics' runs");
    options.numeric_inputs = std::make_shared<const std::map<std::string, interp::Tensor>>(
        read_input_files(graph, parsed.all("--inputs")[0], "--inputs"));
  }
  options.propagate = dim_overrides(graph, parsed.all("--dim"));
  // An ONNX model's ops have the ONNX registry's shape rules (every pass that needs only shape
  // rules runs on them; decompose and complex-rewrite say they do not apply to ONNX ops).
  if (onnx::is_onnx_graph(graph)) options.propagate.registry = &onnx::registry();

  std::vector<PassSpec> specs;
  if (parsed.has("--passes")) {
    auto listed = parse_pass_list(parsed.all("--passes")[0], registry);
    if (!listed) throw UsageError(listed.error());
    specs = std::move(*listed);
  } else {
    const std::string name = parsed.has("--pipeline") ? parsed.all("--pipeline")[0] : "default";
    const PassRegistry::Pipeline* pipeline = registry.pipeline(name);
    if (!pipeline) {
      std::string known;
      for (const auto* p : registry.pipelines()) known += (known.empty() ? "" : ", ") + p->name;
      throw UsageError("unknown pipeline " + quote(name) + " (known: " + known + ")");
    }
    for (const std::string& pass : pipeline->passes) specs.push_back(PassSpec{pass, {}});
  }
  apply_pass_option_flags(option_flags, specs);
  // A dump of a pass that does not run would print nothing: say so instead.
  for (const char* flag : {"--dump-before", "--dump-after"}) {
    for (const std::string& p : parsed.all(flag)) {
      bool runs = false;
      for (const PassSpec& s : specs) runs = runs || s.name == p;
      if (!runs)
        throw UsageError(flag + (" " + quote(p)) + ": pass " + quote(p) +
                         " is not among the passes run");
    }
  }
  // The output file can be written: checked before any pass runs (an existing file is not
  // touched until the end), with the system's reason.
  if (!output.empty() && output != "-") {
    const std::filesystem::path path(output);
    const std::string dir = path.has_parent_path() ? path.parent_path().string() : ".";
    const bool exists = access(output.c_str(), F_OK) == 0;
    if (exists ? access(output.c_str(), W_OK) != 0 : access(dir.c_str(), W_OK) != 0)
      throw UsageError("cannot write " + quote(output) + ": " + std::strerror(errno));
  }
  PassManager manager(registry, options);
  for (const PassSpec& s : specs) manager.add(s);

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
    return result.bad_option ? kExitBadInput : kExitShapeError;
  }
  report_out << dumps.str();
  if (parsed.has("--json")) {
    print_json(report_out, report_json(result));
  } else {
    print_report(report_out, result);
  }
  if (parsed.has("--view")) {
    write_lowering_view(graph, specs, options, parsed.all("--view")[0],
                        "lower " + parsed.positional[0]);
  }
  if (output == "-") {
    std::cout << write_graph(result.graph);
  } else if (!output.empty()) {
    std::ofstream file(output, std::ios::binary);
    if (file) file << write_graph(result.graph);
    if (!file) throw Error("cannot write " + quote(output) + ": " + std::strerror(errno));
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
