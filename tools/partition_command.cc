// `symshape partition GRAPH.json --supported FILE [--min-block-size N] [--fallback-node REGEX]...
// -o DIR`: split a graph into backend and fallback partitions, each a graph of its own, and write
// them with the manifest that calls them in order.
#include <iomanip>
#include <iostream>
#include <regex>

#include "symshape/onnx.h"
#include "symshape/partition.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kPartitionFlags[] = {
    {"--supported", "FILE", "the ops the backend runs: a JSON list, or {\"ops\": [...]}"},
    {"--supported-ops", "OP,OP,...", "more supported ops, comma-separated (repeatable)"},
    {"--min-block-size", "N", "backend blocks with fewer compute nodes fall back (default 1)"},
    {"--fallback-node", "REGEX", "nodes whose name matches run in a fallback partition"},
    {"--output", "DIR", "write partitioned.json and the partitions there; also -o"},
    {"--dim", "NAME=MIN..MAX", "the range of a declared dim (overrides the graph's \"dims\")"},
    {"--verify", "", "run the graph and the program; their outputs must be equal"},
    {"--verify-dim", "NAME=N", "a dim's value for --verify (default: the hints; implies it)"},
    {"--seed", "N", "the seed of the inputs --verify generates (default 0)"},
};

void print_partition_usage(std::ostream& os) {
  os << "usage: symshape partition GRAPH.json --supported FILE [--min-block-size N]\n"
        "                          [--fallback-node REGEX]... -o DIR [--verify]\n\n"
        "Splits the graph into partitions the backend runs (every compute node's op in the\n"
        "supported set, no node matched by --fallback-node) and fallback partitions, in an\n"
        "order where each reads only earlier ones. Writes each partition as a graph of its own\n"
        "(values crossing a seam become placeholders with their symbolic shapes) and the\n"
        "manifest DIR/partitioned.json that calls them (docs/graph-format.md). Prints one line\n"
        "per partition.\n"
        "Exit status: 0 ok, 1 when the graph has a shape error, cannot be partitioned, or\n"
        "--verify finds a difference, 2 on bad input (the files, a flag, a regex).\n\n"
     << format_flags(kPartitionFlags);
}

std::string joined(const std::vector<std::string>& items) {
  if (items.empty()) return "-";
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

void print_summary(std::ostream& os, const PartitionedProgram& program, const std::string& path) {
  if (program.writes_functionalized)
    os << "functionalized first: " << program.writes_functionalized
       << " in-place writes made out-of-place\n";
  size_t width = 0;
  for (const Partition& p : program.partitions) width = std::max(width, p.file.size());
  for (const Partition& p : program.partitions) {
    std::vector<std::string> inputs;
    for (const PartitionInput& in : p.inputs) {
      inputs.push_back(in.carries.empty() ? in.name : in.name + " (size " + in.carries + ")");
    }
    os << std::left << std::setw(static_cast<int>(width)) << p.file << "  " << std::setw(8)
       << to_string(p.kind) << "  " << p.nodes.size() << (p.nodes.size() == 1 ? " node " : " nodes")
       << "  inputs: " << joined(inputs) << "  outputs: " << joined(p.outputs) << "\n";
  }
  const size_t n = program.partitions.size();
  os << n << (n == 1 ? " partition" : " partitions") << " ("
     << program.count(PartitionKind::Backend) << " backend, "
     << program.count(PartitionKind::Fallback) << " fallback) written to " << path << "\n";
}

size_t parse_count(const std::string& text, std::string_view flag) {
  std::optional<Int> v = parse_int(text);
  std::optional<int64_t> small = v ? to_int64(*v) : std::nullopt;
  if (!small || *small < 0) {
    throw UsageError("bad value " + quote(text) + " for " + std::string(flag) +
                     " (expected a non-negative integer)");
  }
  return static_cast<size_t>(*small);
}

}  // namespace

int run_partition(const Args& raw) {
  Args args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  ParsedArgs parsed = parse_flags(args, kPartitionFlags);
  if (parsed.help) {
    print_partition_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  for (const char* once : {"--supported", "--min-block-size", "--output", "--seed"}) {
    if (parsed.all(once).size() > 1) throw UsageError(std::string(once) + " is given twice");
  }
  if (!parsed.has("--output")) throw UsageError("missing -o DIR (where to write the partitions)");
  if (!parsed.has("--supported") && !parsed.has("--supported-ops")) {
    throw UsageError("missing --supported FILE (the ops the backend runs)");
  }
  PartitionOptions options;
  if (parsed.has("--supported")) {
    Expected<SupportedOps> ops = read_supported_ops_file(parsed.all("--supported")[0]);
    if (!ops) throw UsageError(ops.error());
    options.supported = *ops;
  }
  for (const std::string& list : parsed.all("--supported-ops")) {
    Expected<SupportedOps> ops = parse_supported_ops_list(list);
    if (!ops) throw UsageError("--supported-ops " + quote(list) + ": " + ops.error());
    for (const std::string& name : ops->names()) options.supported.add(name);
  }
  if (parsed.has("--min-block-size")) {
    options.min_block_size = parse_count(parsed.all("--min-block-size")[0], "--min-block-size");
  }
  for (const std::string& r : parsed.all("--fallback-node")) {
    try {
      std::regex check(r, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw UsageError("bad --fallback-node regex " + quote(r) + ": " + e.what());
    }
    options.fallback_nodes.push_back(r);
  }
  interp::RunOptions run_options;
  if (parsed.has("--seed")) run_options.seed = parse_count(parsed.all("--seed")[0], "--seed");
  const bool verify_run = parsed.has("--verify") || parsed.has("--verify-dim");

  LoadedGraph loaded = load_and_propagate(parsed.positional[0], parsed.all("--dim"));
  if (!loaded.result.ok()) {
    print_error(loaded.result.error);
    return exit_code(loaded.result.status);
  }
  options.propagate = dim_overrides(loaded.graph, parsed.all("--dim"));
  // An ONNX model's ops have the ONNX registry's shape rules.
  if (onnx::is_onnx_graph(loaded.graph)) options.propagate.registry = &onnx::registry();
  for (const std::string& spec : parsed.all("--verify-dim")) {
    auto [name, value] = parse_binding(spec);
    expect_dim_of(loaded.graph, "--verify-dim", name);
    std::optional<int64_t> v = to_int64(value);
    if (!v || *v < 0) throw UsageError("bad value for --verify-dim " + quote(spec));
    run_options.dims[name] = *v;
  }

  Expected<PartitionedProgram> program = partition_graph(loaded.graph, options);
  if (!program) {
    print_error(program.error());
    return kExitShapeError;
  }
  Expected<std::string> path = write_partitioned(*program, parsed.all("--output")[0]);
  if (!path) throw Error(path.error());
  print_summary(std::cout, *program, *path);
  if (verify_run) {
    Bindings at;
    if (auto difference = compare_partitioned(loaded.graph, *program, run_options, &at)) {
      print_error("--verify: " + *difference);
      return kExitShapeError;
    }
    std::string dims;
    for (const auto& [name, v] : at) dims += (dims.empty() ? "" : ", ") + name + "=" + to_string(v);
    std::cout << "verified: the partitioned program's outputs equal the graph's"
              << (dims.empty() ? "" : " at " + dims) << "\n";
  }
  return kExitOk;
}

}  // namespace symshape::cli
