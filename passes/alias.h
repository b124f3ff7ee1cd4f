// Alias analysis: which values of a graph share storage, which nodes write into which storage,
// and the order constraints that follow. What an op does to storage is read from its signature's
// alias annotations (the one schema table, include/symshape/schema.h): `Tensor(a) self ->
// Tensor(a)` is a view of self, `Tensor(a!) self` is written, a result without an annotation is a
// fresh buffer. Passes ask it instead of refusing every graph that writes in place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symshape/ir.h"

namespace symshape::passes {

// What one node does to storage.
struct AliasEffect {
  enum class Kind {
    None,   // no tensor result (a size, a bool, an assert) and no write
    Fresh,  // a new buffer: a functional op, a graph input, a constant
    View,   // shares the storage of `source` (a view; a getitem of a view's list or of a tuple)
    Write,  // writes into `source` (an in-place op) and returns it
    Opaque  // an op without a signature that returns a tensor: may share any tensor input's
  };
  Kind kind = Kind::None;
  // View and Write: the argument whose storage the result shares (a node's name), and where it
  // is (position, or the keyword's name).
  NodeId source = kNoNode;
  // Write: the op writes more than its first aliased argument, or through `out=`: functionalize
  // does not rewrite it, and the analysis takes every written argument as written.
  std::vector<NodeId> also_written;
  bool may_copy = false;  // View: `reshape`, `contiguous`: a view only when no copy is needed
};

// The effect of node id (the graph's metadata is read for getitem and literal lists).
AliasEffect alias_effect(const MutableGraph& g, NodeId id);

// The storage classes of a graph: values that may share storage are in one class. Linear in the
// graph's size (union-find). Positions are the nodes' places in the order the analysis was made
// in: a pass that edits the graph keeps it current through merge().
class AliasAnalysis {
 public:
  explicit AliasAnalysis(const MutableGraph& g);

  // The class of a node's storage; kNoNode for a node without a tensor (or list) value.
  NodeId storage(NodeId id);
  bool may_alias(NodeId a, NodeId b) { return storage(a) != kNoNode && storage(a) == storage(b); }
  // Whether some node writes into the class of id's storage at a position in (after, before).
  bool written_between(NodeId id, size_t after, size_t before);
  bool written(NodeId id) { return !writes(id).empty(); }
  // The writes into id's class, by position.
  const std::vector<size_t>& writes(NodeId id);
  // How many writes into id's class come before position pos: the version of the storage a
  // reader at pos sees.
  size_t version(NodeId id, size_t pos);
  // The position of the last node that reads id's class (its members used as arguments, the
  // output included); SIZE_MAX for a class holding a graph input or a constant (its caller sees
  // the storage after the graph ran).
  size_t live_end(NodeId id);
  // The node's position in the order the analysis was made in.
  size_t position(NodeId id) const { return pos_.at(id); }

  // A copy `copy` of `source` may become `source` when neither is written while the other is
  // still read: no write into copy's class before source's class is last read, and no write
  // into source's class after the copy while the copy's class is read.
  bool copy_removable(NodeId copy, NodeId source);
  // After a pass made `a` and `b` one value (removed a copy, merged two nodes): their classes
  // become one.
  void merge(NodeId a, NodeId b);

 private:
  NodeId find(NodeId id);
  struct Class {
    std::vector<size_t> writes;  // sorted
    size_t live_end = 0;
  };
  std::vector<NodeId> parent_;
  std::vector<size_t> pos_;
  std::vector<Class> classes_;  // by representative
  std::vector<bool> has_storage_;
  static const std::vector<size_t> kNoWrites;
};

}  // namespace symshape::passes
