// Fallback partitioning: which compute node runs where (a Kahn order that keeps emitting nodes of
// the current kind, cut into runs, nodes sunk towards their users, small backend blocks folded
// into the fallback), then each partition built as a graph of its own: seams as placeholders with
// their symbolic shapes, constants copied, shape arithmetic copied or rewritten, and size carriers
// for the symbols a partition's inputs do not determine.
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <regex>
#include <set>
#include <sstream>

#include "passes/op_classes.h"
#include "symshape/guards.h"
#include "symshape/partition.h"

namespace symshape {

namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// What a node is to the partitioner.
enum class Role {
  Input,     // a placeholder: a program input, available to every partition
  Constant,  // a get_attr: copied into every partition that uses it
  Output,    // the output node
  Free,      // shape arithmetic (sym_size, operator.* on sizes): copied where needed
  Glued,     // a getitem of a compute node's tuple: runs with that node
  Compute,   // everything else: runs in one backend or fallback partition
};

bool starts_with(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

bool is_getitem(std::string_view target) {
  return target == "operator.getitem" || target == "_operator.getitem";
}

// Ops that read a tensor's metadata, never its elements.
bool reads_metadata(std::string_view target) {
  const std::string_view packet = parse_target(target).packet;
  for (std::string_view p :
       {"aten.sym_size", "aten.sym_stride", "aten.sym_numel", "aten.sym_storage_offset",
        "aten.size", "aten.stride", "aten.numel", "aten.dim"}) {
    if (packet == p) return true;
  }
  return false;
}

// Ops on Python scalars (sizes and the numbers computed from them).
bool is_scalar_op(std::string_view target) {
  return reads_metadata(target) || starts_with(target, "operator.") ||
         starts_with(target, "_operator.") || starts_with(target, "torch.sym_") ||
         starts_with(target, "math.");
}

// Checks that hold on any side of a seam: they run in whichever partition is being emitted.
bool is_neutral(std::string_view target) {
  const std::string_view packet = parse_target(target).packet;
  for (std::string_view p : {"aten._assert_scalar", "aten.sym_constrain_range",
                             "aten.sym_constrain_range_for_size", "aten._assert_async"}) {
    if (packet == p) return true;
  }
  return false;
}

// An int, float or bool, or a list of them.
bool is_scalar(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Int:
    case Value::Kind::Float:
    case Value::Kind::Bool: return true;
    case Value::Kind::List:
      for (const Value& item : v.items) {
        if (!is_scalar(item)) return false;
      }
      return true;
    default: return false;
  }
}

std::string_view value_kind(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return "None";
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::Int: return "an int";
    case Value::Kind::Float: return "a float";
    case Value::Kind::Bool: return "a bool";
    case Value::Kind::List: return "a list";
  }
  return "a value";
}

void for_each_ref(const Arg& a, const std::function<void(const std::string&)>& f) {
  if (a.kind == Arg::Kind::Node) f(a.text);
  for (const Arg& item : a.items) for_each_ref(item, f);
}

void for_each_ref(const Node& n, const std::function<void(const std::string&)>& f) {
  for (const Arg& a : n.args) for_each_ref(a, f);
  for (const auto& [k, a] : n.kwargs) for_each_ref(a, f);
}

Arg map_refs(const Arg& a, const std::function<Arg(const std::string&)>& f) {
  if (a.kind == Arg::Kind::Node) return f(a.text);
  Arg out = a;
  for (Arg& item : out.items) item = map_refs(item, f);
  return out;
}

void note_symbols(const Expr& e, std::set<std::string>& out) {
  for (const std::string& s : e.free_symbols()) out.insert(s);
}

void note_arg_symbols(const Arg& a, std::set<std::string>& out) {
  if (a.kind == Arg::Kind::Int) note_symbols(a.integer, out);
  for (const Arg& item : a.items) note_arg_symbols(item, out);
}

// The symbols a graph mentions: in its placeholders' and constants' shapes and strides and in
// its symbolic int arguments (what run() binds or evaluates).
std::set<std::string> mentioned_symbols(const std::vector<Node>& nodes) {
  std::set<std::string> out;
  for (const Node& n : nodes) {
    for (const auto* list : {&n.shape, &n.stride}) {
      if (!*list) continue;
      for (const Expr& e : **list) note_symbols(e, out);
    }
    for (const Arg& a : n.args) note_arg_symbols(a, out);
    for (const auto& [k, a] : n.kwargs) note_arg_symbols(a, out);
  }
  return out;
}

// Whether e, once every symbol but s is known, determines s: e is linear in s (what run()
// solves when it binds dims from input sizes).
bool determines(const Expr& e, const std::string& s) {
  const Expr symbol = Expr::symbol(s);
  const GiNaC::symbol& sym = GiNaC::ex_to<GiNaC::symbol>(symbol.ex());
  GiNaC::ex x = e.ex().expand();
  return x.is_polynomial(sym) && x.degree(sym) == 1;
}

// The symbols that the sizes of inputs with these shapes determine, solving one symbol at a
// time as run() does.
std::set<std::string> bound_symbols(const std::vector<const std::vector<Expr>*>& shapes) {
  std::set<std::string> known;
  bool progress = true;
  while (progress) {
    progress = false;
    for (const auto* shape : shapes) {
      for (const Expr& e : *shape) {
        std::vector<std::string> unknown;
        for (const std::string& s : e.free_symbols()) {
          if (!known.count(s)) unknown.push_back(s);
        }
        if (unknown.size() == 1 && determines(e, unknown[0])) {
          known.insert(unknown[0]);
          progress = true;
        }
      }
    }
  }
  return known;
}

bool is_contiguous_meta(const TensorMeta& t) {
  if (t.strides.empty()) return true;
  const std::vector<Expr> c = TensorMeta::contiguous_strides(t.sizes);
  if (c.size() != t.strides.size()) return false;
  for (size_t k = 0; k < c.size(); ++k) {
    if (c[k].str() != t.strides[k].str()) return false;
  }
  return true;
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options) : g_(graph), options_(options) {}

  PartitionedProgram run() {
    if (auto problem = verify(g_)) throw Error(*problem);
    ShapeEnv env;
    Propagation p = propagate(g_, env, options_.propagate);
    if (!p.ok()) throw Error(p.error);
    values_ = std::move(p.values);
    for (const Node& n : g_.nodes) used_names_.insert(n.name);
    // Symbols the graph's own inputs do not determine (a group size W, a dim only an argument
    // names) come from the dims at run time, for the graph and for every partition alike.
    const std::set<std::string> determined = determined_symbols(g_.nodes);
    for (const std::string& s : mentioned_symbols(g_.nodes)) {
      if (!determined.count(s)) program_dims_.insert(s);
    }
    compile_regexes();
    classify();
    assign();
    build();
    return finish();
  }

 private:
  // ---------------------------------------------------------------------------------------
  // Roles and units
  // ---------------------------------------------------------------------------------------

  void compile_regexes() {
    for (const std::string& r : options_.fallback_nodes) {
      try {
        regexes_.emplace_back(r, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw Error("bad fallback-node regex '" + r + "': " + e.what());
      }
    }
  }

  size_t index(const std::string& name) const { return g_.index_of(name); }

  void classify() {
    const size_t n = g_.nodes.size();
    role_.assign(n, Role::Compute);
    owner_.assign(n, kNone);
    unit_of_.assign(n, kNone);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = g_.nodes[i];
      switch (node.op) {
        case NodeOp::Placeholder: role_[i] = Role::Input; continue;
        case NodeOp::GetAttr: role_[i] = Role::Constant; continue;
        case NodeOp::Output: role_[i] = Role::Output; continue;
        case NodeOp::CallFunction: break;
      }
      if (is_getitem(node.target) && !node.args.empty() && node.args[0].kind == Arg::Kind::Node) {
        const size_t src = index(node.args[0].text);
        if (role_[src] == Role::Free && is_scalar(values_[i])) {
          role_[i] = Role::Free;
          continue;
        }
        if (role_[src] == Role::Compute || role_[src] == Role::Glued) {
          role_[i] = Role::Glued;
          owner_[i] = owner_[src];
          continue;
        }
      }
      if (is_scalar_op(node.target) && is_scalar(values_[i]) &&
          (!is_getitem(node.target) || node.args.empty() || node.args[0].kind != Arg::Kind::Node)) {
        role_[i] = Role::Free;  // a getitem of a literal list of numbers too
        continue;
      }
      role_[i] = Role::Compute;
      owner_[i] = i;
      unit_of_[i] = units_.size();
      units_.push_back(i);
    }
    for (size_t i = 0; i < n; ++i) {
      if (role_[i] == Role::Glued) unit_of_[i] = unit_of_[owner_[i]];
    }

    const size_t u = units_.size();
    kind_.assign(u, UnitKind::Backend);
    for (size_t k = 0; k < u; ++k) {
      const Node& node = g_.nodes[units_[k]];
      // A getitem of a literal list of tensors only names one of them.
      const bool alias =
          is_getitem(node.target) && !node.args.empty() && node.args[0].kind == Arg::Kind::List;
      if (is_neutral(node.target) || alias) {
        kind_[k] = UnitKind::Neutral;
        continue;
      }
      bool forced = false;
      for (const std::regex& r : regexes_) forced = forced || std::regex_search(node.name, r);
      kind_[k] = !forced && options_.supported.contains(node.target) ? UnitKind::Backend
                                                                     : UnitKind::Fallback;
    }
    deps_.assign(u, {});
    users_.assign(u, {});
    free_deps_.assign(n, std::nullopt);
    std::vector<std::set<size_t>> deps(u);
    for (size_t k = 0; k < u; ++k) collect_deps(g_.nodes[units_[k]], deps[k]);
    // An in-place write keeps its place: what comes before it in the graph runs before it, what
    // comes after it after it (without alias information, any tensor may be what it writes).
    // Each write follows the units since the previous one, and each unit the last write before
    // it; the rest follows by transitivity.
    size_t last_write = kNone;
    for (size_t k = 0; k < u; ++k) {
      if (last_write != kNone) deps[k].insert(last_write);
      if (!passes::writes_in_place(g_.nodes[units_[k]])) continue;
      for (size_t j = last_write == kNone ? 0 : last_write + 1; j < k; ++j) deps[k].insert(j);
      last_write = k;
    }
    for (size_t k = 0; k < u; ++k) {
      deps[k].erase(k);
      deps_[k].assign(deps[k].begin(), deps[k].end());
      for (size_t d : deps_[k]) users_[d].push_back(k);
    }
  }

  // The units a node's arguments depend on, through shape arithmetic too.
  void collect_deps(const Node& node, std::set<size_t>& deps) {
    for_each_ref(node, [&](const std::string& name) {
      const size_t r = index(name);
      if (role_[r] == Role::Compute || role_[r] == Role::Glued) deps.insert(unit_of_[r]);
      if (role_[r] == Role::Free) {
        const std::vector<size_t>& fd = free_deps(r);
        deps.insert(fd.begin(), fd.end());
      }
    });
  }

  const std::vector<size_t>& free_deps(size_t f) {
    if (!free_deps_[f]) {
      std::set<size_t> deps;
      collect_deps(g_.nodes[f], deps);
      free_deps_[f] = std::vector<size_t>(deps.begin(), deps.end());
    }
    return *free_deps_[f];
  }

  // ---------------------------------------------------------------------------------------
  // Assigning units to partitions
  // ---------------------------------------------------------------------------------------

  enum class UnitKind { Backend, Fallback, Neutral };

  struct Plan {
    std::vector<size_t> part;          // per unit
    std::vector<PartitionKind> kinds;  // per partition
  };

  // Kahn's algorithm that keeps emitting units of the current kind while any is ready, ties
  // broken by the original order; a new partition starts when the kind has to change.
  Plan schedule(PartitionKind first, std::vector<size_t>& order) const {
    const size_t n = units_.size();
    std::vector<size_t> indegree(n);
    using Heap = std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>>;
    Heap ready[2], neutral;
    auto push = [&](size_t u) {
      if (kind_[u] == UnitKind::Neutral) {
        neutral.push(u);
      } else {
        ready[kind_[u] == UnitKind::Backend ? 0 : 1].push(u);
      }
    };
    for (size_t u = 0; u < n; ++u) {
      indegree[u] = deps_[u].size();
      if (indegree[u] == 0) push(u);
    }
    Plan plan;
    plan.part.assign(n, kNone);
    order.clear();
    int current = first == PartitionKind::Backend ? 0 : 1;
    bool started = false;
    while (order.size() < n) {
      size_t u;
      if (!neutral.empty()) {
        u = neutral.top();
        neutral.pop();
        if (!started) {
          plan.kinds.push_back(current == 0 ? PartitionKind::Backend : PartitionKind::Fallback);
          started = true;
        }
      } else {
        if (ready[current].empty()) {
          current = 1 - current;
          started = false;
        }
        if (ready[current].empty()) throw Error("internal: the compute nodes form a cycle");
        if (!started) {
          plan.kinds.push_back(current == 0 ? PartitionKind::Backend : PartitionKind::Fallback);
          started = true;
        }
        u = ready[current].top();
        ready[current].pop();
      }
      plan.part[u] = plan.kinds.size() - 1;
      order.push_back(u);
      for (size_t v : users_[u]) {
        if (--indegree[v] == 0) push(v);
      }
    }
    return plan;
  }

  // The distinct tensors a unit reads from graph inputs and other units (its own getitems and
  // constants not counted).
  size_t value_inputs(size_t u) const {
    std::set<size_t> sources;
    for_each_ref(g_.nodes[units_[u]], [&](const std::string& name) {
      const size_t r = index(name);
      if (role_[r] == Role::Input) sources.insert(r);
      if ((role_[r] == Role::Compute || role_[r] == Role::Glued) && unit_of_[r] != u) {
        sources.insert(r);
      }
    });
    return sources.size();
  }

  // Moves units that read at most one tensor towards their users: to the last partition of
  // their kind before the first partition that uses them. Constant-only work (a weight's
  // transpose) then runs next to its user instead of crossing every seam in between, and no
  // seam is added (the one tensor it reads crosses instead of the one it makes).
  void sink(Plan& plan, const std::vector<size_t>& order) const {
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const size_t u = *it;
      if (kind_[u] == UnitKind::Neutral || users_[u].empty() || value_inputs(u) > 1) continue;
      size_t limit = kNone;
      for (size_t v : users_[u]) limit = std::min(limit, plan.part[v]);
      const PartitionKind kind = plan.kinds[plan.part[u]];
      for (size_t k = limit; k != kNone && k > plan.part[u]; --k) {
        if (plan.kinds[k] == kind) {
          plan.part[u] = k;
          break;
        }
      }
    }
    compact(plan);
  }

  // Drops empty partitions, gives partitions of neutral units alone to the next one (or the
  // previous), and merges neighbours of one kind.
  void compact(Plan& plan) const {
    const size_t count = plan.kinds.size();
    std::vector<size_t> real(count, 0), total(count, 0);
    for (size_t u = 0; u < units_.size(); ++u) {
      ++total[plan.part[u]];
      if (kind_[u] != UnitKind::Neutral) ++real[plan.part[u]];
    }
    std::vector<bool> keep(count);
    for (size_t k = 0; k < count; ++k) keep[k] = real[k] > 0;
    bool any = std::find(keep.begin(), keep.end(), true) != keep.end();
    std::vector<PartitionKind> kinds;
    std::vector<size_t> renumber(count, kNone);
    for (size_t k = 0; k < count; ++k) {
      if (!keep[k]) continue;
      if (!kinds.empty() && kinds.back() == plan.kinds[k]) {
        renumber[k] = kinds.size() - 1;
      } else {
        kinds.push_back(plan.kinds[k]);
        renumber[k] = kinds.size() - 1;
      }
    }
    if (!any && count > 0) {
      // Only neutral units: one partition of the first kind.
      kinds = {plan.kinds[0]};
      std::fill(renumber.begin(), renumber.end(), 0);
    }
    // A dropped partition's neutral units join the next kept partition, else the last one.
    size_t next = kNone;
    for (size_t k = count; k-- > 0;) {
      if (renumber[k] != kNone) {
        next = renumber[k];
      } else if (total[k] > 0) {
        renumber[k] = next != kNone ? next : kinds.size() - 1;
      }
    }
    for (size_t u = 0; u < units_.size(); ++u) plan.part[u] = renumber[plan.part[u]];
    plan.kinds = std::move(kinds);
  }

  Plan plan_once() const {
    Plan best;
    bool have = false;
    for (PartitionKind first : {PartitionKind::Backend, PartitionKind::Fallback}) {
      std::vector<size_t> order;
      Plan plan = schedule(first, order);
      sink(plan, order);
      if (!have || plan.kinds.size() < best.kinds.size()) {
        best = std::move(plan);
        have = true;
      }
    }
    return best;
  }

  void assign() {
    if (units_.empty()) return;
    for (;;) {
      Plan plan = plan_once();
      std::vector<size_t> compute(plan.kinds.size(), 0);
      for (size_t u = 0; u < units_.size(); ++u) {
        if (kind_[u] != UnitKind::Neutral) ++compute[plan.part[u]];
      }
      bool changed = false;
      for (size_t u = 0; u < units_.size(); ++u) {
        const size_t k = plan.part[u];
        if (plan.kinds[k] == PartitionKind::Backend && compute[k] < options_.min_block_size &&
            kind_[u] == UnitKind::Backend) {
          kind_[u] = UnitKind::Fallback;
          changed = true;
        }
      }
      if (!changed) {
        plan_ = std::move(plan);
        return;
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Building the partitions
  // ---------------------------------------------------------------------------------------

  // How a partition gets the value of a shape-arithmetic node.
  struct FreeDecision {
    enum class How { Copy, Rewrite, Literal } how = How::Copy;
    size_t tensor = kNone;  // Rewrite: the placeholder whose size it reads
    size_t dim = 0;         // Rewrite: that placeholder's dim
  };

  struct Building {
    PartitionKind kind = PartitionKind::Fallback;
    std::vector<size_t> members;  // compute and glued nodes, in order
    std::set<size_t> member_set;
    std::vector<size_t> seams;  // placeholders: graph inputs and earlier values
    std::set<size_t> seam_set;
    std::set<size_t> constants;            // get_attrs copied in
    std::map<size_t, FreeDecision> frees;  // shape arithmetic it needs
    std::vector<Node> carrier_inputs;      // size-carrier placeholders
    std::vector<PartitionInput> carrier_sources;
    std::vector<Node> tail;                            // size-carrier producers, before the output
    std::map<std::string, std::string> carriers_made;  // symbol -> output name made here
    std::vector<std::pair<size_t, std::string>> outputs;  // (order key, name)
    std::set<std::string> output_set;
    std::set<std::string> bound;  // symbols its placeholders determine
  };

  size_t part_of(size_t node) const { return plan_.part[unit_of_[node]]; }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (size_t k = 1; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  void request_output(size_t p, size_t key, const std::string& name) {
    Building& b = parts_[p];
    if (b.output_set.insert(name).second) b.outputs.emplace_back(key, name);
  }

  // Makes node r (a graph input, or a tensor an earlier partition computes) a placeholder of p.
  void add_seam(size_t p, size_t r, const std::string& user) {
    Building& b = parts_[p];
    if (b.seam_set.count(r)) return;
    if (role_[r] == Role::Compute || role_[r] == Role::Glued) {
      const size_t q = part_of(r);
      if (!values_[r].is_tensor()) {
        throw Error("node '" + g_.nodes[r].name + "' (" + std::string(value_kind(values_[r])) +
                    ") is computed in partition " + std::to_string(q) + " but node '" + user +
                    "' in partition " + std::to_string(p) +
                    " uses it: only tensors can cross a seam");
      }
      request_output(q, r, g_.nodes[r].name);
    }
    b.seam_set.insert(r);
    b.seams.push_back(r);
  }

  // Whether node r's value is at hand in partition p without a new input.
  bool available(size_t p, size_t r) const {
    const Building& b = parts_[p];
    return b.member_set.count(r) || b.seam_set.count(r) || role_[r] == Role::Constant;
  }

  // The tensor argument a metadata op reads, and its dim argument when it is a constant.
  std::pair<size_t, std::optional<int64_t>> metadata_operands(const Node& n) const {
    size_t tensor = kNone;
    std::optional<int64_t> dim;
    const Arg* self = n.args.empty() ? n.kwarg("self") : &n.args[0];
    if (self && self->kind == Arg::Kind::Node) tensor = index(self->text);
    const Arg* d = n.args.size() > 1 ? &n.args[1] : n.kwarg("dim");
    if (d && d->kind == Arg::Kind::Int) dim = d->integer.as_int64();
    return {tensor, dim};
  }

  // A placeholder of p with a size identical to `size`: (placeholder, dim).
  std::optional<std::pair<size_t, size_t>> placeholder_with_size(size_t p, const Expr& size) const {
    for (size_t s : parts_[p].seams) {
      if (!values_[s].is_tensor()) continue;
      const std::vector<Expr>& sizes = values_[s].tensor.sizes;
      for (size_t k = 0; k < sizes.size(); ++k) {
        if (sizes[k].identical(size)) return std::make_pair(s, k);
      }
    }
    return std::nullopt;
  }

  // Decides how partition p gets the value of shape-arithmetic node f: a copy (its tensors at
  // hand, or made inputs when `materialize`), a sym_size of another placeholder with the same
  // size, or the value itself as a symbolic int literal.
  FreeDecision::How decide(size_t p, size_t f, bool materialize) {
    Building& b = parts_[p];
    if (auto it = b.frees.find(f); it != b.frees.end()) {
      if (!materialize || it->second.how != FreeDecision::How::Literal) return it->second.how;
    }
    const Node& n = g_.nodes[f];
    const Value& v = values_[f];
    const bool literal_ok = !materialize && v.kind == Value::Kind::Int;
    FreeDecision d;
    if (reads_metadata(n.target)) {
      auto [tensor, dim] = metadata_operands(n);
      if (tensor == kNone || available(p, tensor)) {
        if (tensor != kNone && role_[tensor] == Role::Constant) b.constants.insert(tensor);
      } else if (dim && parse_target(n.target).packet.ends_with("size") &&
                 values_[tensor].is_tensor()) {
        const std::vector<Expr>& sizes = values_[tensor].tensor.sizes;
        const int64_t rank = static_cast<int64_t>(sizes.size());
        const int64_t k = *dim < 0 ? *dim + rank : *dim;
        std::optional<std::pair<size_t, size_t>> twin;
        if (k >= 0 && k < rank) twin = placeholder_with_size(p, sizes[static_cast<size_t>(k)]);
        if (twin) {
          d.how = FreeDecision::How::Rewrite;
          d.tensor = twin->first;
          d.dim = twin->second;
        } else if (literal_ok) {
          d.how = FreeDecision::How::Literal;
        } else {
          add_seam(p, tensor, n.name);
        }
      } else if (literal_ok) {
        d.how = FreeDecision::How::Literal;
      } else {
        add_seam(p, tensor, n.name);
      }
      b.frees[f] = d;
      return d.how;
    }
    bool all_literal = true, any_ref = false, force_literal = false;
    for_each_ref(n, [&](const std::string& name) {
      const size_t r = index(name);
      any_ref = true;
      if (role_[r] == Role::Free) {
        all_literal = decide(p, r, materialize) == FreeDecision::How::Literal && all_literal;
        return;
      }
      all_literal = false;
      if (role_[r] == Role::Constant) {
        b.constants.insert(r);
      } else if (!available(p, r)) {
        if (role_[r] == Role::Input || values_[r].is_tensor()) {
          add_seam(p, r, n.name);
        } else if (!literal_ok) {
          throw Error("node '" + n.name + "' in partition " + std::to_string(p) + " needs node '" +
                      name + "' (" + std::string(value_kind(values_[r])) +
                      "), which another partition computes: only tensors can cross a seam");
        } else {
          force_literal = true;  // the whole value becomes a literal below
        }
      }
    });
    if (literal_ok && (force_literal || (any_ref && all_literal))) {
      d.how = FreeDecision::How::Literal;
    }
    b.frees[f] = d;
    return d.how;
  }

  // Node f's copy in partition p: its arguments with literal shape arithmetic substituted.
  Arg partition_arg(size_t p, const Arg& a) const {
    return map_refs(a, [&](const std::string& name) {
      const size_t r = index(name);
      if (role_[r] == Role::Free) {
        auto it = parts_[p].frees.find(r);
        if (it != parts_[p].frees.end() && it->second.how == FreeDecision::How::Literal) {
          return Arg::of_int(values_[r].integer);
        }
      }
      return Arg::node(name);
    });
  }

  Node copy_node(size_t p, size_t i) const {
    Node n = g_.nodes[i];
    for (Arg& a : n.args) a = partition_arg(p, a);
    for (auto& [k, a] : n.kwargs) a = partition_arg(p, a);
    return n;
  }

  // The placeholder for seam r of partition p.
  Node seam_placeholder(size_t r) const {
    const Node& original = g_.nodes[r];
    if (role_[r] == Role::Input) return original;
    Node n;
    n.name = original.name;
    n.op = NodeOp::Placeholder;
    const TensorMeta& t = values_[r].tensor;
    n.dtype = t.dtype;
    n.shape = t.sizes;
    if (!is_contiguous_meta(t)) n.stride = t.strides;
    return n;
  }

  // The nodes of partition p before its size carriers' producers and its output.
  std::vector<Node> body(size_t p) const {
    const Building& b = parts_[p];
    std::vector<Node> nodes;
    std::vector<size_t> seams = b.seams;
    std::sort(seams.begin(), seams.end());
    for (size_t s : seams) nodes.push_back(seam_placeholder(s));
    for (const Node& c : b.carrier_inputs) nodes.push_back(c);
    std::set<size_t> inner(b.member_set);
    inner.insert(b.constants.begin(), b.constants.end());
    for (const auto& [f, d] : b.frees) {
      if (d.how != FreeDecision::How::Literal) inner.insert(f);
    }
    for (size_t i : inner) {
      if (role_[i] == Role::Free) {
        const FreeDecision& d = b.frees.at(i);
        if (d.how == FreeDecision::How::Rewrite) {
          Node n = g_.nodes[i];
          n.args = {Arg::node(g_.nodes[d.tensor].name),
                    Arg::of_int(Expr(static_cast<long>(d.dim)))};
          n.kwargs.clear();
          nodes.push_back(std::move(n));
          continue;
        }
      }
      nodes.push_back(copy_node(p, i));
    }
    return nodes;
  }

  std::set<std::string> compute_bound(size_t p) const {
    const Building& b = parts_[p];
    std::vector<const std::vector<Expr>*> shapes;
    for (size_t s : b.seams) {
      const Node& n = g_.nodes[s];
      if (role_[s] == Role::Input) {
        if (n.shape) shapes.push_back(&*n.shape);
      } else {
        shapes.push_back(&values_[s].tensor.sizes);
      }
    }
    for (const Node& c : b.carrier_inputs) shapes.push_back(&*c.shape);
    return bound_symbols(shapes);
  }

  // A size carrier for symbol s made by partition q (an earlier one), or nullopt when q cannot
  // make one: a tensor of q with a dim exactly s gives `sym_size`, else a symbol q's inputs
  // determine is written as a literal.
  std::optional<std::string> carrier_from(size_t q, const std::string& s) {
    Building& b = parts_[q];
    if (auto it = b.carriers_made.find(s); it != b.carriers_made.end()) return it->second;
    const Expr symbol = Expr::symbol(s);
    std::optional<std::pair<std::string, size_t>> reader;
    auto scan = [&](const std::string& name, const Value& v) {
      if (reader || !v.is_tensor()) return;
      for (size_t k = 0; k < v.tensor.sizes.size(); ++k) {
        if (v.tensor.sizes[k].identical(symbol)) {
          reader = std::make_pair(name, k);
          return;
        }
      }
    };
    std::vector<size_t> seams = b.seams;
    std::sort(seams.begin(), seams.end());
    for (size_t i : seams) scan(g_.nodes[i].name, values_[i]);
    for (size_t i : b.members) scan(g_.nodes[i].name, values_[i]);
    Arg size;
    if (reader) {
      Node sym;
      sym.name = fresh("size_" + s + "_value");
      sym.op = NodeOp::CallFunction;
      sym.target = "aten.sym_size.int";
      sym.args = {Arg::node(reader->first), Arg::of_int(Expr(static_cast<long>(reader->second)))};
      size = Arg::node(sym.name);
      b.tail.push_back(std::move(sym));
    } else if (b.bound.count(s)) {
      size = Arg::of_int(symbol);
    } else {
      return std::nullopt;
    }
    Node carrier;
    carrier.name = fresh("size_" + s);
    carrier.op = NodeOp::CallFunction;
    carrier.target = "aten.empty.memory_format";
    carrier.args = {Arg::list({size})};
    Arg dtype;
    dtype.kind = Arg::Kind::DType;
    dtype.dtype = DType::Int64;
    carrier.kwargs = {{"dtype", dtype}};
    const std::string name = carrier.name;
    b.tail.push_back(std::move(carrier));
    b.carriers_made[s] = name;
    request_output(q, kNone, name);
    return name;
  }

  // Gives partition p inputs for every symbol it mentions that its placeholders do not
  // determine: a size carrier from the first earlier partition that can make one, else a graph
  // input whose shape determines the symbol.
  void bind_symbols(size_t p) {
    std::vector<Node> nodes = body(p);
    const std::set<std::string> mentioned = mentioned_symbols(nodes);
    // The order: the graph's dims first, in their order, then the rest by name.
    std::vector<std::string> wanted;
    for (const auto& [name, d] : g_.dims) {
      if (mentioned.count(name)) wanted.push_back(name);
    }
    for (const std::string& s : mentioned) {
      if (std::find(wanted.begin(), wanted.end(), s) == wanted.end()) wanted.push_back(s);
    }
    Building& b = parts_[p];
    b.bound = compute_bound(p);
    for (const std::string& s : wanted) {
      if (b.bound.count(s) || program_dims_.count(s)) continue;
      std::optional<std::string> carrier;
      size_t from = kNone;
      for (size_t q = 0; q < p && !carrier; ++q) {
        carrier = carrier_from(q, s);
        from = q;
      }
      if (carrier) {
        Node ph;
        ph.name = *carrier;
        ph.op = NodeOp::Placeholder;
        ph.dtype = DType::Int64;
        ph.shape = std::vector<Expr>{Expr::symbol(s)};
        parts_[p].carrier_inputs.push_back(std::move(ph));
        parts_[p].carrier_sources.push_back({*carrier, from, *carrier, s});
      } else {
        size_t input = kNone;
        for (size_t i = 0; i < g_.nodes.size() && input == kNone; ++i) {
          const Node& n = g_.nodes[i];
          if (role_[i] != Role::Input || !n.shape) continue;
          if (bound_symbols({&*n.shape}).count(s)) input = i;
        }
        if (input == kNone) {
          throw Error("partition " + std::to_string(p) + " needs the value of symbol " + s +
                      ", which neither its inputs, an earlier partition nor a graph input's size "
                      "determines");
        }
        add_seam(p, input, "");
      }
      parts_[p].bound = compute_bound(p);
    }
  }

  ProgramOutput program_output(const Arg& a) {
    ProgramOutput out;
    switch (a.kind) {
      case Arg::Kind::None: return out;
      case Arg::Kind::List:
        out.kind = ProgramOutput::Kind::List;
        for (const Arg& item : a.items) out.items.push_back(program_output(item));
        return out;
      case Arg::Kind::Node: break;
      default:
        throw Error("the graph's output holds " + a.str() +
                    ": a partitioned program returns only values its nodes compute");
    }
    const size_t r = index(a.text);
    const std::string& name = g_.nodes[r].name;
    if (role_[r] == Role::Input) {
      out.kind = ProgramOutput::Kind::Input;
      out.name = name;
      return out;
    }
    size_t p = parts_.size() - 1;
    if (role_[r] == Role::Compute || role_[r] == Role::Glued) {
      p = part_of(r);
    } else if (role_[r] == Role::Constant) {
      parts_[p].constants.insert(r);
    } else if (role_[r] == Role::Free) {
      decide(p, r, true);
    }
    request_output(p, r, name);
    out.kind = ProgramOutput::Kind::Partition;
    out.name = name;
    out.partition = p;
    return out;
  }

  bool output_needs_partition(const Arg& a) const {
    if (a.kind == Arg::Kind::Node) {
      const Role r = role_[index(a.text)];
      return r == Role::Constant || r == Role::Free;
    }
    for (const Arg& item : a.items) {
      if (output_needs_partition(item)) return true;
    }
    return false;
  }

  void build() {
    parts_.assign(plan_.kinds.size(), {});
    for (size_t p = 0; p < parts_.size(); ++p) parts_[p].kind = plan_.kinds[p];
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (role_[i] != Role::Compute && role_[i] != Role::Glued) continue;
      Building& b = parts_[part_of(i)];
      b.members.push_back(i);
      b.member_set.insert(i);
    }
    const Node& out_node = g_.nodes.back();
    if (!out_node.args.empty() && output_needs_partition(out_node.args[0]) && parts_.empty()) {
      parts_.emplace_back();
      parts_.back().kind = PartitionKind::Fallback;
    }
    for (size_t p = 0; p < parts_.size(); ++p) {
      Building& b = parts_[p];
      // The tensors it reads first, so that shape arithmetic can read their sizes.
      for (size_t m : b.members) {
        for_each_ref(g_.nodes[m], [&](const std::string& name) {
          const size_t r = index(name);
          if (role_[r] == Role::Input) add_seam(p, r, g_.nodes[m].name);
          if (role_[r] == Role::Constant) parts_[p].constants.insert(r);
          if ((role_[r] == Role::Compute || role_[r] == Role::Glued) && part_of(r) != p) {
            add_seam(p, r, g_.nodes[m].name);
          }
        });
      }
      for (size_t m : parts_[p].members) {
        for_each_ref(g_.nodes[m], [&](const std::string& name) {
          const size_t r = index(name);
          if (role_[r] == Role::Free) decide(p, r, false);
        });
      }
      if (p + 1 == parts_.size() && !out_node.args.empty()) {
        output_ = program_output(out_node.args[0]);
      }
      bind_symbols(p);
    }
    if (parts_.empty() && !out_node.args.empty()) output_ = program_output(out_node.args[0]);
  }

  // ---------------------------------------------------------------------------------------
  // The result
  // ---------------------------------------------------------------------------------------

  std::vector<std::pair<std::string, DimDecl>> effective_dims() const {
    std::vector<std::pair<std::string, DimDecl>> dims = g_.dims;
    for (const auto& [name, decl] : options_.propagate.dims) {
      bool found = false;
      for (auto& [n, d] : dims) {
        if (n == name) {
          d = decl;
          found = true;
        }
      }
      if (!found) dims.emplace_back(name, decl);
    }
    return dims;
  }

  PartitionedProgram finish() {
    PartitionedProgram program;
    program.dims = effective_dims();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (role_[i] == Role::Input) program.inputs.push_back(g_.nodes[i]);
    }
    const std::string out_name = g_.nodes.back().name;
    for (size_t p = 0; p < parts_.size(); ++p) {
      Building& b = parts_[p];
      Partition part;
      part.kind = b.kind;
      part.file = "part" + std::to_string(p) + "_" + std::string(to_string(b.kind)) + ".json";
      std::vector<Node> nodes = body(p);
      for (const Node& n : b.tail) nodes.push_back(n);
      std::stable_sort(b.outputs.begin(), b.outputs.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      Node out;
      out.name = out_name;
      out.op = NodeOp::Output;
      std::vector<Arg> items;
      for (const auto& [key, name] : b.outputs) {
        items.push_back(Arg::node(name));
        part.outputs.push_back(name);
      }
      out.args = {Arg::list(std::move(items))};
      nodes.push_back(std::move(out));
      const std::set<std::string> mentioned = mentioned_symbols(nodes);
      for (const auto& [name, d] : program.dims) {
        if (mentioned.count(name)) part.graph.dims.emplace_back(name, d);
      }
      part.graph.nodes = std::move(nodes);
      std::vector<size_t> seams = b.seams;
      std::sort(seams.begin(), seams.end());
      for (size_t s : seams) {
        PartitionInput in;
        in.name = g_.nodes[s].name;
        in.value = in.name;
        if (role_[s] != Role::Input) in.partition = part_of(s);
        part.inputs.push_back(std::move(in));
      }
      for (const PartitionInput& c : b.carrier_sources) part.inputs.push_back(c);
      for (size_t m : b.members) {
        if (role_[m] == Role::Compute) part.nodes.push_back(g_.nodes[m].name);
      }
      check_partition(p, part);
      program.partitions.push_back(std::move(part));
    }
    program.output = output_;
    return program;
  }

  // Propagates the partition on its own: it must, and its guards are what that records.
  void check_partition(size_t p, Partition& part) const {
    const std::string what =
        "partition " + std::to_string(p) + " (" + std::string(to_string(part.kind)) + ")";
    if (auto problem = verify(part.graph)) throw Error(what + " is not a valid graph: " + *problem);
    ShapeEnv env;
    PropagateOptions po = options_.propagate;
    po.dims.clear();
    Propagation result = propagate(part.graph, env, po);
    if (!result.ok()) throw Error(what + " does not propagate: " + result.error);
    GuardSet guards = produce_guards(env, graph_inputs(part.graph));
    std::istringstream lines(print_python(guards));
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) part.guards.push_back(line);
    }
  }

  const Graph& g_;
  const PartitionOptions& options_;
  std::vector<Value> values_;
  std::vector<std::regex> regexes_;
  std::set<std::string> used_names_;
  std::set<std::string> program_dims_;  // symbols no input determines
  std::vector<Role> role_;
  std::vector<size_t> owner_;    // Compute: itself; Glued: its compute node
  std::vector<size_t> unit_of_;  // Compute and Glued: the unit
  std::vector<size_t> units_;    // the compute nodes, in order
  std::vector<UnitKind> kind_;
  std::vector<std::vector<size_t>> deps_, users_;
  std::vector<std::optional<std::vector<size_t>>> free_deps_;
  Plan plan_;
  std::vector<Building> parts_;
  ProgramOutput output_;
};

}  // namespace

std::set<std::string> determined_symbols(const std::vector<Node>& nodes) {
  std::vector<const std::vector<Expr>*> shapes;
  for (const Node& n : nodes) {
    if (n.op == NodeOp::Placeholder && n.shape) shapes.push_back(&*n.shape);
  }
  return bound_symbols(shapes);
}

std::string_view to_string(PartitionKind kind) {
  return kind == PartitionKind::Backend ? "backend" : "fallback";
}

size_t PartitionedProgram::count(PartitionKind kind) const {
  size_t n = 0;
  for (const Partition& p : partitions) n += p.kind == kind;
  return n;
}

Expected<PartitionedProgram> partition_graph(const Graph& graph, const PartitionOptions& options) {
  try {
    // A write in place keeps its place among the partitions but would split a value's storage
    // across them: the graph is made functional first (written inputs are copied back at its
    // end), under the PassManager's checks.
    bool writes = false;
    for (const Node& n : graph.nodes) writes = writes || passes::writes_in_place(n);
    if (writes) {
      PassManagerOptions pm_options;
      pm_options.propagate = options.propagate;
      PassManager manager(PassRegistry::standard(), pm_options);
      manager.add("functionalize");
      ShapeEnv env;
      LowerResult lowered = manager.run(graph, env);
      if (!lowered.ok) return Expected<PartitionedProgram>::failure(lowered.error);
      const auto& counters = lowered.reports.front().stats.counters;
      auto made = counters.find("writes made functional");
      PartitionedProgram program = Partitioner(lowered.graph, options).run();
      program.writes_functionalized = made == counters.end() ? 0 : made->second;
      return program;
    }
    return Partitioner(graph, options).run();
  } catch (const std::exception& e) {
    return Expected<PartitionedProgram>::failure(e.what());
  }
}

}  // namespace symshape
