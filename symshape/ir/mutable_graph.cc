// MutableGraph: the graph as passes rewrite it, with its name index, users and order kept exact.
#include <algorithm>
#include <string>
#include <utility>

#include "symshape/ir.h"

namespace symshape {

namespace {

// Room left between consecutive order keys, so that most insertions find a key between two.
constexpr uint64_t kKeyGap = uint64_t{1} << 32;

// Calls f with the name of every node an argument (or its list items) refers to.
template <typename F>
void for_each_reference(const Arg& a, F&& f) {
  if (a.kind == Arg::Kind::Node) f(a.text);
  for (const Arg& item : a.items) for_each_reference(item, f);
}

template <typename F>
void for_each_reference(const Node& n, F&& f) {
  for (const Arg& a : n.args) for_each_reference(a, f);
  for (const auto& [key, a] : n.kwargs) for_each_reference(a, f);
}

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

MutableGraph::MutableGraph(Graph graph, std::vector<Value> values) {
  if (auto problem = verify(graph)) throw Error(*problem);
  if (values.size() != graph.nodes.size()) {
    throw Error(
        "a rewritable graph needs one value per node: " + std::to_string(graph.nodes.size()) +
        " nodes, " + std::to_string(values.size()) + " values");
  }
  dims_ = std::move(graph.dims);
  extra_ = std::move(graph.extra);
  slots_.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Slot s;
    s.node = std::move(graph.nodes[i]);
    s.value = std::move(values[i]);
    s.key = (i + 1) * kKeyGap;
    s.prev = i == 0 ? kNoNode : static_cast<NodeId>(i - 1);
    s.next = i + 1 == graph.nodes.size() ? kNoNode : static_cast<NodeId>(i + 1);
    by_name_.emplace(s.node.name, static_cast<NodeId>(i));
    slots_.push_back(std::move(s));
  }
  live_ = slots_.size();
  head_ = slots_.empty() ? kNoNode : 0;
  tail_ = slots_.empty() ? kNoNode : static_cast<NodeId>(slots_.size() - 1);
  for (NodeId id = 0; id < slots_.size(); ++id) link_inputs(id);
}

const MutableGraph::Slot& MutableGraph::slot(NodeId id) const {
  if (!alive(id)) throw Error("node id " + std::to_string(id) + " is not in the graph");
  return slots_[id];
}

MutableGraph::Slot& MutableGraph::slot(NodeId id) {
  if (!alive(id)) throw Error("node id " + std::to_string(id) + " is not in the graph");
  return slots_[id];
}

Graph MutableGraph::graph() const {
  Graph g;
  g.dims = dims_;
  g.extra = extra_;
  g.nodes.reserve(live_);
  for (NodeId id = head_; id != kNoNode; id = slots_[id].next) g.nodes.push_back(slots_[id].node);
  return g;
}

std::vector<Value> MutableGraph::values() const {
  std::vector<Value> out;
  out.reserve(live_);
  for (NodeId id = head_; id != kNoNode; id = slots_[id].next) out.push_back(slots_[id].value);
  return out;
}

std::vector<NodeId> MutableGraph::order() const {
  std::vector<NodeId> out;
  out.reserve(live_);
  for (NodeId id = head_; id != kNoNode; id = slots_[id].next) out.push_back(id);
  return out;
}

void MutableGraph::set_value(NodeId id, Value v) { slot(id).value = std::move(v); }

NodeId MutableGraph::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? kNoNode : it->second;
}

NodeId MutableGraph::output() const { return tail_; }

NodeId MutableGraph::referent(const Arg& a) const {
  return a.kind == Arg::Kind::Node ? find(a.text) : kNoNode;
}

std::vector<NodeId> MutableGraph::users(NodeId id) const {
  std::vector<NodeId> out = slot(id).users;
  std::sort(out.begin(), out.end(),
            [&](NodeId a, NodeId b) { return slots_[a].key < slots_[b].key; });
  return out;
}

std::vector<NodeId> MutableGraph::inputs(NodeId id) const {
  std::vector<NodeId> out;
  for_each_reference(slot(id).node, [&](const std::string& name) {
    NodeId r = find(name);
    if (r != kNoNode && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  });
  return out;
}

std::string MutableGraph::fresh_name(std::string_view base) const {
  std::string stem(base.empty() ? "node" : base);
  if (find(stem) == kNoNode) return stem;
  for (size_t k = 1;; ++k) {
    std::string candidate = stem + "_" + std::to_string(k);
    if (find(candidate) == kNoNode) return candidate;
  }
}

void MutableGraph::link_inputs(NodeId id) {
  for (NodeId input : inputs(id)) slots_[input].users.push_back(id);
}

void MutableGraph::unlink_inputs(NodeId id) {
  for (NodeId input : inputs(id)) {
    auto& u = slots_[input].users;
    u.erase(std::find(u.begin(), u.end(), id));
  }
}

// Every reference of `node` must name a live node that comes before `next` (the node it will
// precede; kNoNode: the end of the graph).
void MutableGraph::check_args_before(const Node& node, NodeId next) const {
  for_each_reference(node, [&](const std::string& name) {
    NodeId r = find(name);
    if (r == kNoNode) {
      throw Error("node " + in_quotes(node.name) + " refers to " + in_quotes(name) +
                  ", which is not in the graph");
    }
    if (next == kNoNode) return;
    if (!before(r, next)) {
      throw Error("node " + in_quotes(node.name) + " would refer to " + in_quotes(name) +
                  ", which comes after it");
    }
  });
}

void MutableGraph::renumber() {
  uint64_t key = kKeyGap;
  for (NodeId id = head_; id != kNoNode; id = slots_[id].next, key += kKeyGap) slots_[id].key = key;
}

NodeId MutableGraph::insert_between(NodeId prev, NodeId next, Node node, Value value) {
  if (node.op == NodeOp::Output) throw Error("a graph has exactly one output node");
  if (node.name.empty() || find(node.name) != kNoNode) node.name = fresh_name(node.name);
  check_args_before(node, next);
  if (next == kNoNode && tail_ != kNoNode && slots_[tail_].node.op == NodeOp::Output) {
    throw Error("node " + in_quotes(node.name) + " cannot follow the output node");
  }
  uint64_t lo = prev == kNoNode ? 0 : slots_[prev].key;
  uint64_t hi = next == kNoNode ? lo + 2 * kKeyGap : slots_[next].key;
  if (hi - lo < 2) {
    renumber();
    lo = prev == kNoNode ? 0 : slots_[prev].key;
    hi = next == kNoNode ? lo + 2 * kKeyGap : slots_[next].key;
  }
  Slot s;
  s.node = std::move(node);
  s.value = std::move(value);
  s.key = lo + (hi - lo) / 2;
  s.prev = prev;
  s.next = next;
  const NodeId id = static_cast<NodeId>(slots_.size());
  by_name_.emplace(s.node.name, id);
  slots_.push_back(std::move(s));
  (prev == kNoNode ? head_ : slots_[prev].next) = id;
  (next == kNoNode ? tail_ : slots_[next].prev) = id;
  ++live_;
  link_inputs(id);
  ++edits_.inserted;
  return id;
}

NodeId MutableGraph::insert_before(NodeId pos, Node node, Value value) {
  const Slot& at = slot(pos);
  return insert_between(at.prev, pos, std::move(node), std::move(value));
}

NodeId MutableGraph::insert_after(NodeId pos, Node node, Value value) {
  const Slot& at = slot(pos);
  if (at.node.op == NodeOp::Output) throw Error("nothing can be inserted after the output node");
  return insert_between(pos, at.next, std::move(node), std::move(value));
}

void MutableGraph::set_args(NodeId id, std::vector<Arg> args,
                            std::vector<std::pair<std::string, Arg>> kwargs, std::string target) {
  if (!target.empty() && slot(id).node.op != NodeOp::CallFunction) {
    throw Error("node " + in_quotes(slot(id).node.name) + " is a " +
                std::string(to_string(slot(id).node.op)) +
                ": only a call_function's target can change");
  }
  Node candidate;
  candidate.name = slot(id).node.name;
  candidate.args = std::move(args);
  candidate.kwargs = std::move(kwargs);
  check_args_before(candidate, id);
  unlink_inputs(id);
  slots_[id].node.args = std::move(candidate.args);
  slots_[id].node.kwargs = std::move(candidate.kwargs);
  if (!target.empty()) slots_[id].node.target = std::move(target);
  link_inputs(id);
  ++edits_.rewritten;
}

void MutableGraph::set_target(NodeId id, std::string target) {
  Slot& s = slot(id);
  if (s.node.op != NodeOp::CallFunction) {
    throw Error("node " + in_quotes(s.node.name) + " is a " + std::string(to_string(s.node.op)) +
                ": only a call_function's target can change");
  }
  if (target.empty()) throw Error("node " + in_quotes(s.node.name) + ": an empty target");
  s.node.target = std::move(target);
  ++edits_.rewritten;
}

void MutableGraph::clear_declared(NodeId id) {
  Slot& s = slot(id);
  if (s.node.op != NodeOp::CallFunction) return;
  s.node.dtype.reset();
  s.node.shape.reset();
  s.node.stride.reset();
}

void MutableGraph::rewrite_references(NodeId user, const std::string& from, const Arg& with) {
  auto rewrite = [&](auto& self, Arg& a) -> void {
    if (a.kind == Arg::Kind::Node && a.text == from) {
      a = with;
      return;
    }
    for (Arg& item : a.items) self(self, item);
  };
  Node& n = slots_[user].node;
  for (Arg& a : n.args) rewrite(rewrite, a);
  for (auto& [key, a] : n.kwargs) rewrite(rewrite, a);
}

size_t MutableGraph::replace_all_uses(NodeId from, NodeId to) {
  if (from == to) return 0;
  const Slot& source = slot(from);
  const Slot& target = slot(to);
  const std::vector<NodeId> users = source.users;
  for (NodeId u : users) {
    if (!before(to, u)) {
      throw Error("cannot replace the uses of " + in_quotes(source.node.name) + " with " +
                  in_quotes(target.node.name) + ": its user " + in_quotes(slots_[u].node.name) +
                  " comes before it");
    }
  }
  const Arg with = Arg::node(target.node.name);
  const std::string name = source.node.name;
  for (NodeId u : users) {
    unlink_inputs(u);
    rewrite_references(u, name, with);
    link_inputs(u);
    ++edits_.rewritten;
  }
  return users.size();
}

size_t MutableGraph::replace_all_uses(NodeId from, const Arg& with) {
  if (with.kind == Arg::Kind::Node || with.kind == Arg::Kind::List) {
    throw Error("replace_all_uses with a literal takes a single value, not " + with.str());
  }
  const std::vector<NodeId> users = slot(from).users;
  const std::string name = slots_[from].node.name;
  for (NodeId u : users) {
    unlink_inputs(u);
    rewrite_references(u, name, with);
    link_inputs(u);
    ++edits_.rewritten;
  }
  return users.size();
}

void MutableGraph::erase(NodeId id) {
  Slot& s = slot(id);
  if (s.node.op == NodeOp::Output) throw Error("the output node cannot be erased");
  if (!s.users.empty()) {
    throw Error("node " + in_quotes(s.node.name) + " still has " + std::to_string(s.users.size()) +
                " user(s), the first " + in_quotes(slots_[users(id).front()].node.name));
  }
  unlink_inputs(id);
  (s.prev == kNoNode ? head_ : slots_[s.prev].next) = s.next;
  (s.next == kNoNode ? tail_ : slots_[s.next].prev) = s.prev;
  by_name_.erase(s.node.name);
  s.alive = false;
  s.node = Node();
  s.value = Value();
  --live_;
  ++edits_.erased;
}

}  // namespace symshape
