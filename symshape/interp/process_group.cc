// The exchanges that keep a multi-process run's ranks in step (process_group.h).
#include <algorithm>

#include "symshape/interp/process_group.h"

namespace symshape::interp {

namespace {

// A record is [kOk, payload...] or [kFailed, rank, node, input_error, characters...].
constexpr int64_t kOk = 0;
constexpr int64_t kFailed = 1;

std::vector<int64_t> failure_record(const GroupFailure& f) {
  std::vector<int64_t> r{kFailed, static_cast<int64_t>(f.rank), static_cast<int64_t>(f.node),
                         f.input_error ? 1 : 0};
  for (unsigned char c : f.message) r.push_back(c);
  return r;
}

// The failure a record holds, if it holds one. Records come from this file on every rank; one
// that is malformed is an error on every rank alike.
std::optional<GroupFailure> failure_in(const std::vector<int64_t>& record, size_t from) {
  if (record.empty() || (record[0] != kOk && record[0] != kFailed)) {
    throw Error("rank " + std::to_string(from) + " sent a malformed record");
  }
  if (record[0] == kOk) return std::nullopt;
  if (record.size() < 4 || record[1] < 0 || record[2] < 0) {
    throw Error("rank " + std::to_string(from) + " sent a malformed failure record");
  }
  GroupFailure f;
  f.rank = static_cast<size_t>(record[1]);
  f.node = static_cast<size_t>(record[2]);
  f.input_error = record[3] != 0;
  for (size_t k = 4; k < record.size(); ++k) {
    f.message.push_back(static_cast<char>(static_cast<unsigned char>(record[k] & 0xff)));
  }
  return f;
}

// The failure of the lowest rank that failed, among the records.
std::optional<GroupFailure> first_failure(const std::vector<std::vector<int64_t>>& records) {
  std::optional<GroupFailure> first;
  bool alike = true;  // every rank failed itself, at one node with one message
  for (size_t r = 0; r < records.size(); ++r) {
    std::optional<GroupFailure> f = failure_in(records[r], r);
    if (!f || f->rank != r) {
      alike = false;
    } else if (first && (f->node != first->node || f->message != first->message)) {
      alike = false;
    }
    if (f && (!first || f->rank < first->rank)) first = std::move(f);
  }
  if (first) first->on_every_rank = alike;
  return first;
}

}  // namespace

GroupFailure GroupFailure::of(const std::exception& e, const Node& node, size_t index,
                              size_t rank) {
  GroupFailure f;
  f.rank = rank;
  f.node = index;
  // As the simulated run decides: a kernel's RunInputError is bad input; any other failure is
  // bad input unless it happened in an op (an input or a constant could not be made).
  const bool in_op = node.op == NodeOp::CallFunction;
  if (dynamic_cast<const RunInputError*>(&e)) {
    f.input_error = true;
    f.message = e.what();
  } else if (dynamic_cast<const RunError*>(&e)) {
    f.input_error = !in_op;
    f.message = e.what();
  } else {
    f.input_error = !in_op;
    f.message = RunError(node, e.what()).what();
  }
  return f;
}

std::vector<std::vector<int64_t>> ProcessGroup::gather(Communicator& comm,
                                                       const std::vector<int64_t>& record) {
  const size_t w = comm.world_size();
  const int64_t mine = static_cast<int64_t>(record.size());
  std::vector<int64_t> lengths(w);
  comm.all_gather(std::span<const int64_t>(&mine, 1), lengths);
  int64_t longest = 0;
  for (int64_t n : lengths) {
    if (n < 0) throw Error("a rank sent a negative record length");
    longest = std::max(longest, n);
  }
  std::vector<int64_t> padded(record);
  padded.resize(static_cast<size_t>(longest), 0);
  std::vector<int64_t> all(w * static_cast<size_t>(longest));
  comm.all_gather(padded, all);
  std::vector<std::vector<int64_t>> out(w);
  for (size_t r = 0; r < w; ++r) {
    auto begin = all.begin() + static_cast<std::ptrdiff_t>(r * static_cast<size_t>(longest));
    out[r].assign(begin, begin + lengths[r]);
  }
  return out;
}

std::vector<std::vector<int64_t>> ProcessGroup::exchange(const std::vector<int64_t>& payload) {
  std::vector<int64_t> record{kOk};
  record.insert(record.end(), payload.begin(), payload.end());
  exchanged_ = true;
  std::vector<std::vector<int64_t>> records = gather(comm_, record);
  if (std::optional<GroupFailure> f = first_failure(records)) throw GroupFailed(std::move(*f));
  for (std::vector<int64_t>& r : records) r.erase(r.begin());
  return records;
}

std::optional<GroupFailure> ProcessGroup::agree(const std::optional<GroupFailure>& mine) {
  exchanged_ = true;
  return first_failure(gather(comm_, mine ? failure_record(*mine) : std::vector<int64_t>{kOk}));
}

std::optional<RankError> agree_on_error(Communicator& comm,
                                        const std::optional<std::string>& mine) {
  std::optional<GroupFailure> f;
  if (mine) f = GroupFailure{comm.rank(), 0, false, *mine};
  std::optional<GroupFailure> first =
      first_failure(ProcessGroup::gather(comm, f ? failure_record(*f) : std::vector<int64_t>{kOk}));
  if (!first) return std::nullopt;
  return RankError{first->rank, first->message, first->on_every_rank};
}

}  // namespace symshape::interp
