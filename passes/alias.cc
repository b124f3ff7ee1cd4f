// Alias analysis: storage classes by union-find over the graph's views and in-place writes, as
// the op signatures' alias annotations say.
#include <algorithm>

#include "passes/alias.h"
#include "passes/op_classes.h"
#include "symshape/schema.h"

namespace symshape::passes {

namespace {

bool is_getitem_target(std::string_view target) {
  return target == "operator.getitem" || target == "_operator.getitem";
}

bool holds_tensor(const Value& v) {
  if (v.is_tensor()) return true;
  for (const Value& item : v.items)
    if (holds_tensor(item)) return true;
  return false;
}

// The argument a call passes for parameter p of schema s: by position, else by keyword.
const Arg* argument(const Node& n, const OpSchema& s, size_t index) {
  const Param& p = s.params[index];
  if (!p.kwarg_only && index < n.args.size()) return &n.args[index];
  return n.kwarg(p.name);
}

// The nodes an argument names (a list's items too).
void referents(const MutableGraph& g, const Arg* a, std::vector<NodeId>& out) {
  if (!a) return;
  if (a->kind == Arg::Kind::Node) {
    if (NodeId r = g.referent(*a); r != kNoNode) out.push_back(r);
  }
  for (const Arg& item : a->items) referents(g, &item, out);
}

// Views whose op copies when the input's strides do not allow a view (PyTorch documents them as
// "may return a view"). `_unsafe_view` shares its input's storage in PyTorch although its
// signature carries no annotation (autograd does not track it as a view).
bool may_copy(std::string_view op) {
  static constexpr std::string_view kOps[] = {"reshape", "reshape_as", "contiguous",  "to",
                                              "type_as", "flatten",    "_unsafe_view"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

}  // namespace

AliasEffect alias_effect(const MutableGraph& g, NodeId id) {
  AliasEffect e;
  const Node& n = g.node(id);
  const Value& v = g.value(id);
  if (n.op == NodeOp::Output) return e;
  if (n.op != NodeOp::CallFunction) {
    if (holds_tensor(v)) e.kind = AliasEffect::Kind::Fresh;
    return e;
  }
  if (is_getitem_target(n.target)) {
    if (!holds_tensor(v) || n.args.empty()) return e;
    const Arg& list = n.args[0];
    if (list.kind == Arg::Kind::Node) {
      e.kind = AliasEffect::Kind::View;
      e.source = g.referent(list);
    } else if (list.kind == Arg::Kind::List && n.args.size() > 1 &&
               n.args[1].kind == Arg::Kind::Int && n.args[1].integer.as_int64().has_value()) {
      int64_t k = n.args[1].integer.as_int64().value();
      const int64_t size = static_cast<int64_t>(list.items.size());
      if (k < 0) k += size;
      if (k >= 0 && k < size && list.items[static_cast<size_t>(k)].kind == Arg::Kind::Node) {
        e.kind = AliasEffect::Kind::View;
        e.source = g.referent(list.items[static_cast<size_t>(k)]);
      }
    }
    if (e.source == kNoNode) {  // an item we cannot name: any of the list's tensors
      e.kind = AliasEffect::Kind::Opaque;
      e.source = kNoNode;
    }
    return e;
  }
  const std::vector<const OpSchema*> overloads = SchemaTable::instance().overloads(n.target);
  const std::string_view op = op_name(n.target);
  if (overloads.empty()) {
    if (holds_tensor(v)) e.kind = AliasEffect::Kind::Opaque;
    return e;
  }
  const OpSchema& s = *overloads.front();
  const std::vector<std::string> results = s.return_alias_sets();
  auto returned = [&](const std::string& set) {
    return !set.empty() && std::find(results.begin(), results.end(), set) != results.end();
  };
  std::vector<NodeId> written;
  NodeId viewed = kNoNode, written_returned = kNoNode;
  for (size_t i = 0; i < s.params.size(); ++i) {
    const Param& p = s.params[i];
    if (p.alias_set.empty()) continue;
    std::vector<NodeId> refs;
    referents(g, argument(n, s, i), refs);
    if (p.writes) {
      if (written_returned == kNoNode && returned(p.alias_set) && refs.size() == 1)
        written_returned = refs.front();
      written.insert(written.end(), refs.begin(), refs.end());
    } else if (returned(p.alias_set) && viewed == kNoNode && refs.size() == 1) {
      viewed = refs.front();
    }
  }
  if (!written.empty()) {
    e.kind = AliasEffect::Kind::Write;
    e.source = written_returned != kNoNode ? written_returned : written.front();
    for (NodeId w : written)
      if (w != e.source) e.also_written.push_back(w);
    if (written_returned == kNoNode || n.kwarg("out"))
      e.also_written.push_back(e.source);  // not the single self-returning write
    return e;
  }
  if (op == "_unsafe_view" && !n.args.empty()) viewed = g.referent(n.args[0]);
  if (viewed != kNoNode) {
    e.kind = AliasEffect::Kind::View;
    e.source = viewed;
    e.may_copy = may_copy(op);
    return e;
  }
  if (holds_tensor(v)) e.kind = AliasEffect::Kind::Fresh;
  return e;
}

const std::vector<size_t> AliasAnalysis::kNoWrites;

AliasAnalysis::AliasAnalysis(const MutableGraph& g) {
  const std::vector<NodeId> order = g.order();
  NodeId max_id = 0;
  for (NodeId id : order) max_id = std::max(max_id, id);
  const size_t n = order.empty() ? 0 : static_cast<size_t>(max_id) + 1;
  parent_.resize(n);
  for (size_t i = 0; i < n; ++i) parent_[i] = static_cast<NodeId>(i);
  pos_.assign(n, 0);
  has_storage_.assign(n, false);
  classes_.resize(n);
  std::vector<AliasEffect> effects(n);
  auto unite = [&](NodeId a, NodeId b) {
    if (a >= n || b >= n) return;
    NodeId ra = find(a), rb = find(b);
    if (ra != rb) parent_[rb] = ra;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const NodeId id = order[i];
    pos_[id] = i;
    AliasEffect& e = effects[id] = alias_effect(g, id);
    has_storage_[id] = e.kind != AliasEffect::Kind::None;
    switch (e.kind) {
      case AliasEffect::Kind::View:
      case AliasEffect::Kind::Write:
        unite(e.source, id);
        for (NodeId w : e.also_written) unite(w, id);
        break;
      case AliasEffect::Kind::Opaque:
        for (NodeId in : g.inputs(id))
          if (holds_tensor(g.value(in))) unite(in, id);
        if (is_getitem_target(g.node(id).target))  // a literal list's item we cannot name
          for (NodeId in : g.inputs(id)) unite(in, id);
        break;
      default: break;
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const NodeId id = order[i];
    const Node& node = g.node(id);
    if (has_storage_[id] && (node.op == NodeOp::Placeholder || node.op == NodeOp::GetAttr))
      classes_[find(id)].live_end = SIZE_MAX;
    const AliasEffect& e = effects[id];
    if (e.kind == AliasEffect::Kind::Write) {
      std::vector<NodeId> targets = e.also_written;
      targets.push_back(e.source);
      std::vector<NodeId> roots;
      for (NodeId t : targets)
        if (t < n && has_storage_[t]) roots.push_back(find(t));
      std::sort(roots.begin(), roots.end());
      roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
      for (NodeId r : roots) classes_[r].writes.push_back(i);  // in order: sorted
    }
    const size_t read_at = node.op == NodeOp::Output ? SIZE_MAX : i;
    for (NodeId in : g.inputs(id)) {
      if (in >= n || !has_storage_[in]) continue;
      Class& c = classes_[find(in)];
      c.live_end = std::max(c.live_end, read_at);
    }
  }
}

NodeId AliasAnalysis::find(NodeId id) {
  while (parent_[id] != id) {
    parent_[id] = parent_[parent_[id]];
    id = parent_[id];
  }
  return id;
}

NodeId AliasAnalysis::storage(NodeId id) {
  if (id >= parent_.size() || !has_storage_[id]) return kNoNode;
  return find(id);
}

const std::vector<size_t>& AliasAnalysis::writes(NodeId id) {
  const NodeId c = storage(id);
  return c == kNoNode ? kNoWrites : classes_[c].writes;
}

bool AliasAnalysis::written_between(NodeId id, size_t after, size_t before) {
  const std::vector<size_t>& w = writes(id);
  auto it = std::upper_bound(w.begin(), w.end(), after);
  return it != w.end() && *it < before;
}

size_t AliasAnalysis::version(NodeId id, size_t pos) {
  const std::vector<size_t>& w = writes(id);
  return static_cast<size_t>(std::lower_bound(w.begin(), w.end(), pos) - w.begin());
}

size_t AliasAnalysis::live_end(NodeId id) {
  const NodeId c = storage(id);
  return c == kNoNode ? 0 : classes_[c].live_end;
}

bool AliasAnalysis::copy_removable(NodeId copy, NodeId source) {
  const NodeId cc = storage(copy), cs = storage(source);
  if (cc == kNoNode || cs == kNoNode) return false;
  if (cc == cs) return true;
  const size_t at = pos_.at(copy);
  // A write into the copy (or a view of it) while the source is still read (for a graph input
  // or a constant: ever, since the caller sees it).
  if (!classes_[cc].writes.empty() && classes_[cc].writes.front() <= classes_[cs].live_end)
    return false;
  // A write into the source after the copy was taken while the copy is still read.
  const size_t copy_end = classes_[cc].live_end;
  return !written_between(source, at, copy_end == SIZE_MAX ? SIZE_MAX : copy_end + 1);
}

void AliasAnalysis::merge(NodeId a, NodeId b) {
  const NodeId ca = storage(a), cb = storage(b);
  if (ca == kNoNode || cb == kNoNode || ca == cb) return;
  Class& into = classes_[ca];
  Class& from = classes_[cb];
  std::vector<size_t> w;
  std::merge(into.writes.begin(), into.writes.end(), from.writes.begin(), from.writes.end(),
             std::back_inserter(w));
  into.writes = std::move(w);
  into.live_end = std::max(into.live_end, from.live_end);
  from = Class{};
  parent_[cb] = ca;
}

}  // namespace symshape::passes
