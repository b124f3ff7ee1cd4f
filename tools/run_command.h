// `symshape run`'s steps, shared with symshape-mpirun (tools/mpi/mpirun_main.cc), which runs the
// same graph with the same flags as one process per rank: read the flags and files into a plan,
// run it, report the result as `symshape run` prints it.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "symshape/interp.h"
#include "tools/cli.h"

namespace symshape::cli {

struct RunPlan {
  Graph graph;
  interp::RunOptions options;
  bool json = false;           // --json
  bool print_values = false;   // --print-values
  std::string save_dir;        // --save: rank 0's outputs, as DIR/NAME.npy
  std::string save_ranks_dir;  // --save-ranks: every rank's outputs, as DIR/rank<R>/NAME.npy
  std::string save_nodes_dir;  // --save-nodes: rank 0's value of every node but --inputs'
};

// Parses `symshape run`'s flags, reads the graph and the --inputs files. Prints the usage with
// `usage` and returns nullopt for --help. Throws UsageError or Error on bad input.
std::optional<RunPlan> plan_run(const Args& args, void (*usage)(std::ostream&));

// The tensors of DIR/NAME.npy by NAME, each an input or constant (placeholder or get_attr) of
// graph, converted to its dtype (`run --inputs`, `lower --inputs`). Throws UsageError naming
// `flag` for a missing folder or a file that names no input or constant.
std::map<std::string, interp::Tensor> read_input_files(const Graph& graph, const std::string& dir,
                                                       const std::string& flag);

// `symshape run`'s flags as help lines.
std::string run_flags_help();

// Prints the result as `symshape run` does (text, or --json), saves the outputs (--save: the
// result's own values; --save-ranks: every rank's values the result holds), saves every node's
// value (--save-nodes: also after a failure, the nodes that ran before it) and returns the exit
// code.
int report_run(const RunPlan& plan, const interp::RunResult& result);

// --save-ranks alone: every rank's outputs the result holds (a multi-process run's result holds
// its own rank's).
void save_rank_outputs(const RunPlan& plan, const interp::RunResult& result);

}  // namespace symshape::cli
