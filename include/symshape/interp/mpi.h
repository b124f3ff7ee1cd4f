// A Communicator over MPI: one process per rank, the collectives as MPI's (MPI_Allreduce,
// MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Alltoallv). Built (library
// symshape_mpi, CMake target of the same name) only when CMake finds MPI.
//
//   MPI_Init(&argc, &argv);
//   {
//     symshape::interp::MpiCommunicator comm;    // over MPI_COMM_WORLD
//     symshape::interp::RunOptions options;
//     options.communicator = &comm;
//     symshape::interp::RunResult r = symshape::interp::run(graph, options);  // this rank's
//   }
//   MPI_Finalize();
//
// An MPI call that fails (MPI returns an error, or a count does not fit in an int) prints which
// call failed on which rank and MPI's message to stderr, then ends the whole job with MPI_Abort:
// after a failed collective the group is in no state to go on, and its other ranks would wait.
#pragma once

#include <mpi.h>

#include "symshape/interp/communicator.h"

namespace symshape::interp {

class MpiCommunicator final : public Communicator {
 public:
  // Works on its own duplicate of comm (MPI_Comm_dup), with errors returned to it rather than
  // fatal. MPI must be initialized (and not yet finalized) for the object's whole life; throws
  // Error otherwise.
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  size_t rank() const override { return rank_; }
  size_t world_size() const override { return size_; }

  void all_reduce(std::span<double> data, ReduceOp op) override;
  void all_reduce(std::span<int64_t> data, ReduceOp op) override;
  void all_gather(std::span<const double> in, std::span<double> out) override;
  void all_gather(std::span<const int64_t> in, std::span<int64_t> out) override;
  void reduce_scatter(std::span<const double> in, std::span<double> out, ReduceOp op) override;
  void reduce_scatter(std::span<const int64_t> in, std::span<int64_t> out, ReduceOp op) override;
  void broadcast(std::span<double> data, size_t root) override;
  void broadcast(std::span<int64_t> data, size_t root) override;
  void all_to_all(std::span<const double> in, std::span<const size_t> send_counts,
                  std::span<double> out, std::span<const size_t> recv_counts) override;
  void all_to_all(std::span<const int64_t> in, std::span<const size_t> send_counts,
                  std::span<int64_t> out, std::span<const size_t> recv_counts) override;

  // Prints `symshape: MPI error on rank R: <what>` and ends the job (MPI_Abort with code 3).
  [[noreturn]] void abort(const std::string& what) const;

 private:
  template <class T>
  void reduce_impl(std::span<T> data, ReduceOp op);
  template <class T>
  void gather_impl(std::span<const T> in, std::span<T> out);
  template <class T>
  void scatter_impl(std::span<const T> in, std::span<T> out, ReduceOp op);
  template <class T>
  void broadcast_impl(std::span<T> data, size_t root);
  template <class T>
  void all_to_all_impl(std::span<const T> in, std::span<const size_t> send_counts, std::span<T> out,
                       std::span<const size_t> recv_counts);
  // Aborts (naming the call) unless rc is MPI_SUCCESS.
  void check(int rc, const char* call) const;
  int count(size_t n, const char* call) const;  // n as an MPI count, or abort

  MPI_Comm comm_ = MPI_COMM_NULL;
  size_t rank_ = 0;
  size_t size_ = 1;
};

}  // namespace symshape::interp
