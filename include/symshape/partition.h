// Fallback partitioning: splits a graph into partitions a backend runs and partitions that run
// outside it (the "fallback"), each partition a graph of its own in the JSON format, plus a
// manifest that calls them in order. Symbolic sizes survive the seams: a value that crosses from
// one partition to another becomes a placeholder with its symbolic shape, and a partition whose
// inputs do not determine a symbol it needs gets that symbol as a "size carrier" input.
//
// See docs/passes.md, "## partition", for the algorithm and docs/graph-format.md, "Partitioned
// programs", for the manifest.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/propagate.h"

namespace symshape {

// The ops a backend runs, by target (`aten.mm.default`: that overload) or by packet (`aten.mm`:
// every overload of it).
class SupportedOps {
 public:
  SupportedOps() = default;
  explicit SupportedOps(const std::vector<std::string>& names);
  void add(std::string name);
  // Whether the backend runs target: its full name or its packet is in the set.
  bool contains(std::string_view target) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;  // in the order given, without repeats
};

// A supported-ops document: a JSON list of strings, or an object {"ops": [...]} (other keys are
// ignored). Each entry is an op target or packet: no spaces, not empty. Errors name the entry:
// `ops[2]: expected a string, got a number`.
Expected<SupportedOps> parse_supported_ops(std::string_view json_text);
// The same from a file; errors start with the path.
Expected<SupportedOps> read_supported_ops_file(const std::string& path);
// A comma-separated list (`aten.mm,aten.add`); empty items are skipped.
Expected<SupportedOps> parse_supported_ops_list(std::string_view text);

struct PartitionOptions {
  SupportedOps supported;
  // Node-name regexes (ECMAScript, searched anywhere in the name: anchor with ^...$): matching
  // compute nodes run in a fallback partition whatever their op.
  std::vector<std::string> fallback_nodes;
  // A backend partition with fewer compute nodes than this runs as fallback instead.
  size_t min_block_size = 1;
  // Dim overrides for propagating the input graph (the CLI's --dim); the partitions and the
  // manifest declare the dims with these applied.
  PropagateOptions propagate;
};

enum class PartitionKind { Backend, Fallback };
std::string_view to_string(PartitionKind kind);

// Where one placeholder of a partition gets its value.
struct PartitionInput {
  std::string name;                 // the placeholder in the partition's graph
  std::optional<size_t> partition;  // the earlier partition that outputs it; none: a graph input
  std::string value;  // the graph input's name, or the output's name in that partition
  // A size carrier: an int64 tensor of shape [symbol] that only binds the symbol (its elements
  // mean nothing); empty for ordinary inputs.
  std::string carries;
};

struct Partition {
  PartitionKind kind = PartitionKind::Fallback;
  std::string file;  // its file name in the output directory: part3_fallback.json
  Graph graph;
  std::vector<PartitionInput> inputs;  // one per placeholder of graph, in order
  std::vector<std::string> outputs;    // the items of graph's output node, by node name
  std::vector<std::string> nodes;      // the compute nodes of the input graph it runs, in order
  std::vector<std::string> guards;     // the guards of propagating graph alone (Python)
};

// What the program returns: the input graph's output argument with every node reference
// replaced by where the value comes from.
struct ProgramOutput {
  enum class Kind { None, Input, Partition, List };
  Kind kind = Kind::None;
  std::string name;  // Input: the graph input; Partition: the output's name in the partition
  size_t partition = 0;
  std::vector<ProgramOutput> items;  // List
};

struct PartitionedProgram {
  std::vector<std::pair<std::string, DimDecl>> dims;  // the input graph's, overrides applied
  std::vector<Node> inputs;                           // the input graph's placeholders
  std::vector<Partition> partitions;                  // in the order they run
  ProgramOutput output;
  // In-place writes the input graph had, made functional before partitioning (partition_graph
  // runs the functionalize pass first; a written input is copied back at the end).
  size_t writes_functionalized = 0;

  size_t count(PartitionKind kind) const;
};

// Splits the graph. Fails (naming the node) when the graph does not verify or propagate, when a
// regex is malformed, or when a value that is not a tensor would have to cross a seam.
Expected<PartitionedProgram> partition_graph(const Graph& graph, const PartitionOptions& options);

// The symbols that the sizes of these nodes' placeholders determine at run time, solving one
// size linear in one unknown symbol at a time as run() does: `2*seq` determines seq, `batch*seq`
// determines seq once batch is known, `(h + 1)//2` determines nothing.
std::set<std::string> determined_symbols(const std::vector<Node>& nodes);

// ---- the manifest ----

// The manifest document (docs/graph-format.md, "Partitioned programs").
nlohmann::ordered_json manifest_json(const PartitionedProgram& program);
// Its text in the canonical layout: one line per input, a few lines per partition.
std::string write_manifest(const PartitionedProgram& program);
// Writes DIR/partitioned.json and each partition's graph as DIR/<file>, creating DIR. Returns
// the manifest's path, or the error.
Expected<std::string> write_partitioned(const PartitionedProgram& program, const std::string& dir);
// Reads a manifest and the partition graphs it names (relative to the manifest's directory),
// checking that every input names an earlier partition's output or a graph input.
Expected<PartitionedProgram> read_partitioned(const std::string& manifest_path);

// ---- running it ----

struct PartitionedRun {
  bool ok = false;
  std::string error;  // names the partition and, from the interpreter, the node
  Bindings dims;      // the dims the program's inputs give
  // The program's inputs, as given or generated: copies taken before any partition ran.
  std::vector<interp::Tensor> inputs;
  interp::RValue output;                // shaped like the input graph's output
  std::vector<interp::RunResult> runs;  // one per partition that ran
};

// Runs the program in the reference interpreter: the program's inputs are taken from
// options.inputs or generated as run() generates the input graph's (options.sizes, dims, seed),
// then each partition runs on its inputs alone (only the dims no program input determines, such
// as a group size, are passed: its placeholders must determine the others; constants are
// generated from the seed and their name, as in the input graph),
// and a partition that binds a dim to another value than the program's inputs give is an error.
PartitionedRun run_partitioned(const PartitionedProgram& program,
                               const interp::RunOptions& options = {});

// Runs the input graph and the program on the same inputs (the program's, generated as
// run_partitioned does) and compares the outputs exactly: dtype, sizes and every element (NaN
// equals NaN). Returns the first difference, or why either failed to run; nullopt when equal.
// `dims`, when given, receives the dims of the run.
std::optional<std::string> compare_partitioned(const Graph& graph,
                                               const PartitionedProgram& program,
                                               const interp::RunOptions& options = {},
                                               Bindings* dims = nullptr);

}  // namespace symshape
