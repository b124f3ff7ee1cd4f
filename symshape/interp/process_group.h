// Internal: one process's side of a multi-process run (RunOptions::communicator), and the
// protocol that keeps the ranks in step when one of them fails.
//
// A rank that fails cannot simply stop: its peers would wait for it in their next collective.
// So every rank takes part in exactly one exchange per communicating node (every collective but
// wait_tensor), whether it runs the node or has failed before it, plus one at the start of the
// run (the ranks check that they run the same graph) and one at its end. An exchange gathers
// one record from every rank: the node's payload (a kernel's metadata: its tensors' dtypes and
// sizes, its split sizes), or the rank's failure. A kernel sees every rank's payload, so it can
// check them all (do the shapes agree, does a split fit) exactly as the simulated run does and
// every rank decides alike; a failure in a record fails the node on every rank. The exchange at
// the end gives every rank the same verdict: the failure of the lowest rank that failed first.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "symshape/interp.h"

namespace symshape::interp {

// Where a multi-process run failed first.
struct GroupFailure {
  size_t rank = 0;  // the rank it happened on
  size_t node = 0;  // the node's index; the graph's node count when before any node ran
  bool input_error = false;
  std::string message;  // as RunResult::error holds it in a simulated run
  // Set by the exchanges: every rank failed there itself, at the same node with the same message
  // (a check on every rank's metadata, such as ranks that disagree on a shape).
  bool on_every_rank = false;

  // The failure an exception thrown while running node (index `index`) on `rank` is: the
  // message and the input_error verdict the simulated run gives it.
  static GroupFailure of(const std::exception& e, const Node& node, size_t index, size_t rank);
};

// Thrown on a rank whose peer failed: its run stops with the peer's failure.
class GroupFailed : public std::exception {
 public:
  explicit GroupFailed(GroupFailure f) : failure(std::move(f)) {}
  const char* what() const noexcept override { return failure.message.c_str(); }
  GroupFailure failure;
};

class ProcessGroup {
 public:
  explicit ProcessGroup(Communicator& comm) : comm_(comm) {}

  Communicator& comm() const { return comm_; }
  size_t rank() const { return comm_.rank(); }
  size_t world_size() const { return comm_.world_size(); }

  // The runner: node `index` is about to run; whether its exchange has taken place since.
  void begin_node(size_t index) {
    node_ = index;
    exchanged_ = false;
  }
  size_t node() const { return node_; }
  bool exchanged() const { return exchanged_; }

  // A kernel's exchange: every rank's payload, in rank order. Throws GroupFailed with the
  // failure of the lowest rank that failed when any did.
  std::vector<std::vector<int64_t>> exchange(const std::vector<int64_t>& payload);
  // An exchange carrying this rank's failure, or none, and no payload: a node this rank does not
  // run (it failed before), a node whose kernel failed before its exchange, the end of the run.
  // Returns the failure of the lowest rank that failed, if any did.
  std::optional<GroupFailure> agree(const std::optional<GroupFailure>& mine);

  // Every rank's record, in rank order: two all_gathers (the lengths, then the records padded
  // to the longest).
  static std::vector<std::vector<int64_t>> gather(Communicator& comm,
                                                  const std::vector<int64_t>& record);

 private:
  Communicator& comm_;
  size_t node_ = 0;
  bool exchanged_ = false;
};

}  // namespace symshape::interp
