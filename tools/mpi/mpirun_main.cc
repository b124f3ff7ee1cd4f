// symshape-mpirun: `symshape run`, one process per rank, under MPI.
//
//   mpirun -np 4 symshape-mpirun GRAPH.json [the flags of symshape run]
//
// Every process reads the same graph, flags and files. Rank r generates the inputs the simulated
// run generates for rank r, and the graph's collectives exchange tensors through MPI
// (interp::MpiCommunicator). Rank 0 prints, and with --save writes, what `symshape run` prints
// and writes for the simulated run; with --save-ranks every rank writes its own outputs. A
// failure on any rank fails every rank, with one error naming the rank it happened on, and the
// exit code is `symshape run`'s. Built only when CMake finds MPI.
#include <exception>
#include <iostream>
#include <mpi.h>
#include <optional>
#include <string>

#include "symshape/interp/mpi.h"
#include "tools/run_command.h"

namespace symshape::cli {

namespace {

bool g_prints = true;  // only rank 0 prints the usage

void print_usage(std::ostream& os) {
  if (!g_prints) return;
  os << "usage: mpirun -np W symshape-mpirun GRAPH.json [--size NAME=N,N,...]... [--dim "
        "NAME=N]...\n"
        "                  [--seed N] [--world-size W] [--random-dims] [--print-values]\n"
        "                  [--inputs DIR] [--save DIR] [--save-ranks DIR] [--json]\n\n"
        "Runs the graph as `symshape run` does, but as W processes, one rank each, whose\n"
        "collectives exchange tensors through MPI (all_reduce as MPI_Allreduce, all_gather as\n"
        "MPI_Allgather, reduce_scatter as MPI_Reduce_scatter_block, broadcast as MPI_Bcast,\n"
        "all_to_all_single as MPI_Alltoallv). Rank r's generated inputs are the simulated run's\n"
        "for rank r, so the outputs compare with `symshape run --world-size W`. Rank 0 prints\n"
        "its outputs as `symshape run` does; --save-ranks has every rank write its own.\n"
        "Exit status: as `symshape run`'s (an error names the rank it happened on).\n\n"
     << run_flags_help();
}

std::string on_rank(size_t rank, size_t world, const std::string& message) {
  return world > 1 ? "rank " + std::to_string(rank) + ": " + message : message;
}

int run_ranks(const Args& args) {
  interp::MpiCommunicator comm;
  const size_t rank = comm.rank(), world = comm.world_size();
  g_prints = rank == 0;

  // The flags and the files, read on every rank: all go on, or all stop.
  std::optional<RunPlan> plan;
  std::optional<std::string> error;
  try {
    plan = plan_run(args, print_usage);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (std::optional<interp::RankError> e = interp::agree_on_error(comm, error)) {
    if (rank == 0) print_error(e->on_every_rank ? e->message : on_rank(e->rank, world, e->message));
    return kExitBadInput;
  }
  if (!plan) return kExitOk;  // --help, on every rank

  plan->options.communicator = &comm;
  const interp::RunResult result = interp::run(plan->graph, plan->options);
  // The run's verdict is the same on every rank. Rank 0 reports it; the others only save.
  try {
    if (rank == 0) return report_run(*plan, result);
    save_rank_outputs(*plan, result);
  } catch (const std::exception& e) {
    print_error(on_rank(rank, world, e.what()));
    return kExitBadInput;
  }
  if (result.ok) return kExitOk;
  return result.input_error ? kExitBadInput : kExitShapeError;
}

}  // namespace

}  // namespace symshape::cli

int main(int argc, char** argv) {
  using namespace symshape::cli;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    print_error("MPI_Init failed");
    return kExitBadInput;
  }
  int code = kExitBadInput;
  try {
    code = run_ranks(Args(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    // Before any exchange (the communicator could not be made): every rank fails alike.
    print_error(e.what());
  }
  std::cout.flush();
  std::cerr.flush();
  // No rank leaves before rank 0 has printed: a launcher ends the job when a process exits
  // with a non-zero code.
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
