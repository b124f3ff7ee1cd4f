#include <algorithm>

#include "symshape/prove/difference.h"

namespace symshape::detail {

DifferenceClosure::DifferenceClosure() {
  capacity_ = 16;
  dist_.assign(capacity_ * capacity_, kInfinity);
  size_ = 1;  // the zero node
  at(kZero, kZero) = 0;
}

void DifferenceClosure::grow() {
  const size_t capacity = std::min(capacity_ * 2, kMaxNodes);
  std::vector<int64_t> dist(capacity * capacity, kInfinity);
  for (size_t u = 0; u < size_; ++u) {
    std::copy_n(&dist_[u * capacity_], size_, &dist[u * capacity]);
  }
  dist_ = std::move(dist);
  capacity_ = capacity;
}

int DifferenceClosure::node(const std::string& symbol, std::optional<int64_t> lo,
                            std::optional<int64_t> hi) {
  if (auto it = nodes_.find(symbol); it != nodes_.end()) return it->second;
  if (full_ || size_ == kMaxNodes) {
    full_ = true;
    return -1;
  }
  if (size_ == capacity_) grow();
  const int v = static_cast<int>(size_++);
  nodes_.emplace(symbol, v);
  at(v, v) = 0;                 // a new node has no edges: its row and column are infinite
  if (hi) add(kZero, v, *hi);   // x_v - 0 <= hi
  if (lo) add(v, kZero, -*lo);  // 0 - x_v <= -lo
  return v;
}

void DifferenceClosure::add(int u, int v, int64_t w) {
  if (contradictory_ || at(u, v) <= w) return;  // implied already
  if (at(v, u) < kInfinity && at(v, u) + w < 0) {
    contradictory_ = true;  // a negative cycle through the new edge
    return;
  }
  // i -> u -> v -> j is shorter than i -> j only if i -> u -> v beats i -> v and u -> v -> j
  // beats u -> j (the closure satisfies the triangle inequality).
  rows_.clear();
  cols_.clear();
  const int n = static_cast<int>(size_);
  for (int i = 0; i < n; ++i) {
    const int64_t iu = at(i, u);
    if (iu < kInfinity && iu + w < at(i, v)) rows_.push_back(i);
  }
  for (int j = 0; j < n; ++j) {
    const int64_t vj = at(v, j);
    if (vj < kInfinity && w + vj < at(u, j)) cols_.push_back(j);
  }
  for (int i : rows_) {
    const int64_t through = at(i, u) + w;
    int64_t* row = &dist_[static_cast<size_t>(i) * capacity_];
    const int64_t* from_v = &dist_[static_cast<size_t>(v) * capacity_];
    for (int j : cols_) row[j] = std::min(row[j], through + from_v[j]);
  }
}

}  // namespace symshape::detail
