// The transport of a multi-process run: the reference interpreter runs one rank of a graph per
// process, and its collective kernels exchange tensors through a Communicator instead of reading
// the other simulated ranks' arguments (RunOptions::communicator).
//
// A Communicator moves flat buffers of elements as the interpreter holds them: floating values
// (and the two parts of complex ones) as double, bools and integers as int64. Tensors are
// flattened and rebuilt by the interpreter, so a Communicator knows nothing of dtypes or shapes.
// symshape/interp/mpi.h has one over MPI (built when CMake finds MPI).
//
// Every operation is collective: each rank of the group calls it, in the same order, with the
// counts described. An implementation that cannot complete an operation must not return to a
// caller whose peers wait in it: MpiCommunicator reports the error and ends the job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace symshape::interp {

// How all_reduce and reduce_scatter combine the ranks' elements. An average is a Sum that the
// interpreter divides afterwards (so integer averages truncate as in the simulated run).
enum class ReduceOp { Sum, Product, Min, Max, BitAnd, BitOr, BitXor };

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual size_t rank() const = 0;        // in [0, world_size())
  virtual size_t world_size() const = 0;  // at least 1

  // data[i] becomes op over every rank's data[i]; every rank passes the same count. On int64,
  // Sum and Product wrap modulo 2^64 and Min and Max compare as signed; the bitwise ops are for
  // int64 only.
  virtual void all_reduce(std::span<double> data, ReduceOp op) = 0;
  virtual void all_reduce(std::span<int64_t> data, ReduceOp op) = 0;

  // out holds every rank's in, in rank order: out.size() == world_size() * in.size(), the same
  // on every rank.
  virtual void all_gather(std::span<const double> in, std::span<double> out) = 0;
  virtual void all_gather(std::span<const int64_t> in, std::span<int64_t> out) = 0;

  // in reduced across ranks, and rank r keeps block r of it:
  // in.size() == world_size() * out.size(), the same on every rank.
  virtual void reduce_scatter(std::span<const double> in, std::span<double> out, ReduceOp op) = 0;
  virtual void reduce_scatter(std::span<const int64_t> in, std::span<int64_t> out, ReduceOp op) = 0;

  // data becomes rank root's data; every rank passes the same count.
  virtual void broadcast(std::span<double> data, size_t root) = 0;
  virtual void broadcast(std::span<int64_t> data, size_t root) = 0;

  // in holds send_counts[r] elements for rank r, in rank order; out receives recv_counts[r]
  // elements from rank r, in rank order. Both count lists have world_size() entries, and what
  // rank a sends to rank b is what b expects from a.
  virtual void all_to_all(std::span<const double> in, std::span<const size_t> send_counts,
                          std::span<double> out, std::span<const size_t> recv_counts) = 0;
  virtual void all_to_all(std::span<const int64_t> in, std::span<const size_t> send_counts,
                          std::span<int64_t> out, std::span<const size_t> recv_counts) = 0;
};

// One rank's error, as agree_on_error reports it.
struct RankError {
  size_t rank = 0;
  std::string message;
  bool on_every_rank = false;  // every rank failed, with this message
};

// A step every rank takes together, for a program's own checks around a run (reading its flags
// and files): every rank passes its own error, or nullopt, and every rank gets the error of the
// lowest rank that failed, or nullopt when none did. So all ranks stop, or none does.
std::optional<RankError> agree_on_error(Communicator& comm, const std::optional<std::string>& mine);

}  // namespace symshape::interp
