// MpiCommunicator (include/symshape/interp/mpi.h): the Communicator operations as MPI
// collectives. Compiled into the symshape_mpi library only when CMake finds MPI.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "symshape/expr.h"  // Error
#include "symshape/interp/mpi.h"

namespace symshape::interp {

namespace {

// MPI's name for a Communicator element type, as the op reads it: integer sums, products and
// bitwise ops work on the unsigned type (they wrap modulo 2^64), Min and Max on the signed one.
template <class T>
MPI_Datatype datatype(ReduceOp op) {
  if constexpr (std::is_same_v<T, double>) {
    return MPI_DOUBLE;
  } else {
    return op == ReduceOp::Min || op == ReduceOp::Max ? MPI_INT64_T : MPI_UINT64_T;
  }
}

template <class T>
MPI_Datatype datatype() {
  return datatype<T>(ReduceOp::Sum);
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return MPI_SUM;
    case ReduceOp::Product: return MPI_PROD;
    case ReduceOp::Min: return MPI_MIN;
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::BitAnd: return MPI_BAND;
    case ReduceOp::BitOr: return MPI_BOR;
    case ReduceOp::BitXor: return MPI_BXOR;
  }
  return MPI_OP_NULL;
}

bool bitwise(ReduceOp op) {
  return op == ReduceOp::BitAnd || op == ReduceOp::BitOr || op == ReduceOp::BitXor;
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) {
    throw Error("MpiCommunicator: MPI is not initialized (or already finalized)");
  }
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS)
    throw Error("MpiCommunicator: MPI_Comm_dup failed");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  check(MPI_Comm_rank(comm_, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size), "MPI_Comm_size");
  rank_ = static_cast<size_t>(rank);
  size_ = static_cast<size_t>(size);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::abort(const std::string& what) const {
  std::fprintf(stderr, "symshape: MPI error on rank %zu: %s\n", rank_, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();  // MPI_Abort does not return; should it, this process still must not go on
}

void MpiCommunicator::check(int rc, const char* call) const {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  abort(std::string(call) + " failed: " +
        (length > 0 ? std::string(text, static_cast<size_t>(length))
                    : "error " + std::to_string(rc)));
}

int MpiCommunicator::count(size_t n, const char* call) const {
  if (n > static_cast<size_t>(INT_MAX)) {
    abort(std::string(call) + ": " + std::to_string(n) + " elements do not fit in an MPI count");
  }
  return static_cast<int>(n);
}

template <class T>
void MpiCommunicator::reduce_impl(std::span<T> data, ReduceOp op) {
  if (std::is_same_v<T, double> && bitwise(op)) abort("MPI_Allreduce: a bitwise op on doubles");
  if (data.empty()) return;  // the same count on every rank: all skip
  check(MPI_Allreduce(MPI_IN_PLACE, data.data(), count(data.size(), "MPI_Allreduce"),
                      datatype<T>(op), mpi_op(op), comm_),
        "MPI_Allreduce");
}

template <class T>
void MpiCommunicator::gather_impl(std::span<const T> in, std::span<T> out) {
  if (out.size() != in.size() * size_) abort("MPI_Allgather: the output does not fit the group");
  if (in.empty()) return;
  const int n = count(in.size(), "MPI_Allgather");
  count(out.size(), "MPI_Allgather");
  check(MPI_Allgather(in.data(), n, datatype<T>(), out.data(), n, datatype<T>(), comm_),
        "MPI_Allgather");
}

template <class T>
void MpiCommunicator::scatter_impl(std::span<const T> in, std::span<T> out, ReduceOp op) {
  if (std::is_same_v<T, double> && bitwise(op)) {
    abort("MPI_Reduce_scatter_block: a bitwise op on doubles");
  }
  if (in.size() != out.size() * size_) {
    abort("MPI_Reduce_scatter_block: the input is not one block per rank");
  }
  if (out.empty()) return;
  count(in.size(), "MPI_Reduce_scatter_block");
  check(
      MPI_Reduce_scatter_block(in.data(), out.data(), count(out.size(), "MPI_Reduce_scatter_block"),
                               datatype<T>(op), mpi_op(op), comm_),
      "MPI_Reduce_scatter_block");
}

template <class T>
void MpiCommunicator::broadcast_impl(std::span<T> data, size_t root) {
  if (root >= size_) abort("MPI_Bcast: root " + std::to_string(root) + " is outside the group");
  if (data.empty()) return;
  check(MPI_Bcast(data.data(), count(data.size(), "MPI_Bcast"), datatype<T>(),
                  static_cast<int>(root), comm_),
        "MPI_Bcast");
}

template <class T>
void MpiCommunicator::all_to_all_impl(std::span<const T> in, std::span<const size_t> send_counts,
                                      std::span<T> out, std::span<const size_t> recv_counts) {
  if (send_counts.size() != size_ || recv_counts.size() != size_) {
    abort("MPI_Alltoallv: the counts are not one per rank");
  }
  std::vector<int> sends, send_at, recvs, recv_at;
  size_t sent = 0, received = 0;
  for (size_t r = 0; r < size_; ++r) {
    sends.push_back(count(send_counts[r], "MPI_Alltoallv"));
    send_at.push_back(count(sent, "MPI_Alltoallv"));
    sent += send_counts[r];
    recvs.push_back(count(recv_counts[r], "MPI_Alltoallv"));
    recv_at.push_back(count(received, "MPI_Alltoallv"));
    received += recv_counts[r];
  }
  if (sent != in.size() || received != out.size()) {
    abort("MPI_Alltoallv: the counts do not add up to the buffers");
  }
  // Some ranks may send or receive nothing while others do: every rank calls, with a valid
  // address even for an empty buffer.
  T none[1] = {};
  check(MPI_Alltoallv(in.empty() ? none : in.data(), sends.data(), send_at.data(), datatype<T>(),
                      out.empty() ? none : out.data(), recvs.data(), recv_at.data(), datatype<T>(),
                      comm_),
        "MPI_Alltoallv");
}

void MpiCommunicator::all_reduce(std::span<double> data, ReduceOp op) { reduce_impl(data, op); }
void MpiCommunicator::all_reduce(std::span<int64_t> data, ReduceOp op) { reduce_impl(data, op); }
void MpiCommunicator::all_gather(std::span<const double> in, std::span<double> out) {
  gather_impl(in, out);
}
void MpiCommunicator::all_gather(std::span<const int64_t> in, std::span<int64_t> out) {
  gather_impl(in, out);
}
void MpiCommunicator::reduce_scatter(std::span<const double> in, std::span<double> out,
                                     ReduceOp op) {
  scatter_impl(in, out, op);
}
void MpiCommunicator::reduce_scatter(std::span<const int64_t> in, std::span<int64_t> out,
                                     ReduceOp op) {
  scatter_impl(in, out, op);
}
void MpiCommunicator::broadcast(std::span<double> data, size_t root) { broadcast_impl(data, root); }
void MpiCommunicator::broadcast(std::span<int64_t> data, size_t root) {
  broadcast_impl(data, root);
}
void MpiCommunicator::all_to_all(std::span<const double> in, std::span<const size_t> send_counts,
                                 std::span<double> out, std::span<const size_t> recv_counts) {
  all_to_all_impl(in, send_counts, out, recv_counts);
}
void MpiCommunicator::all_to_all(std::span<const int64_t> in, std::span<const size_t> send_counts,
                                 std::span<int64_t> out, std::span<const size_t> recv_counts) {
  all_to_all_impl(in, send_counts, out, recv_counts);
}

}  // namespace symshape::interp
