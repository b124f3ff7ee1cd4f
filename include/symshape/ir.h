// The graph IR: an FX-like graph of nodes in topological order, with tensor metadata whose
// sizes and strides are symbolic expressions; its JSON form; and the verifier.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "symshape/expr.h"

namespace symshape {

enum class DType {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128
};
std::string_view to_string(DType d);
std::optional<DType> parse_dtype(std::string_view name);  // "float32" (also "torch.float32")
bool is_floating(DType d);                                // float16 .. float64
bool is_complex(DType d);
bool is_integral(DType d);       // bool excluded
int item_size(DType d);          // bytes
DType complex_to_real(DType d);  // complex64 -> float32, complex128 -> float64
DType real_to_complex(DType d);  // float32 (and lower) -> complex64, float64 -> complex128
// The type both operands of a binary op are computed in (PyTorch's type promotion between two
// tensors of these dtypes).
DType promote_types(DType a, DType b);

// A tensor's metadata: dtype, sizes and strides (in elements) as expressions.
struct TensorMeta {
  DType dtype = DType::Float32;
  std::vector<Expr> sizes;
  std::vector<Expr> strides;  // empty: contiguous

  size_t rank() const { return sizes.size(); }
  Expr numel() const;
  // The contiguous (row-major) strides of sizes.
  static std::vector<Expr> contiguous_strides(const std::vector<Expr>& sizes);
  // "float32[s0, 4096]"
  std::string str() const;
};

// The elements of a small tensor known while shapes are computed: the sizes `Shape(x)` returns,
// the integers of a constant, arithmetic on them. Integral tensors hold `ints` (symbolic
// expressions), floating ones `reals`; row-major, numel elements.
struct KnownData {
  std::vector<Expr> ints;
  std::vector<double> reals;
  bool real = false;  // reals, not ints
  size_t size() const { return real ? reals.size() : ints.size(); }
};

// What a node produces: nothing, a tensor, a symbolic int, a float, a bool, or a list of values.
struct Value {
  enum class Kind { None, Tensor, Int, Float, Bool, List };
  Kind kind = Kind::None;
  TensorMeta tensor;  // Kind::Tensor
  // Kind::Tensor: its elements when they are known (shape arithmetic on ONNX's int64 tensors);
  // nullptr otherwise. Shared, since values are copied along the graph.
  std::shared_ptr<const KnownData> data;
  Expr integer;               // Kind::Int
  double real = 0;            // Kind::Float (its value is not tracked symbolically)
  std::optional<bool> truth;  // Kind::Bool (known value, if any)
  Cond condition;             // Kind::Bool from a symbolic comparison (true when not symbolic)
  std::vector<Value> items;   // Kind::List

  static Value none() { return {}; }
  static Value of(TensorMeta t);
  static Value of_int(Expr e);
  static Value of_float(double v);
  static Value of_bool(std::optional<bool> v);
  static Value list(std::vector<Value> items);
  // A symbolic boolean; its truth is set when the condition is a constant.
  static Value of_cond(const Cond& c) {
    Value v;
    v.kind = Kind::Bool;
    v.condition = c;
    if (c.is_true() || c.is_false()) v.truth = c.is_true();
    return v;
  }
  bool is_tensor() const { return kind == Kind::Tensor; }
  // "float32[s0, 4]", "s0 + 1", "(float32[2], int64[2])"
  std::string str() const;
};

// An argument as written in the graph.
struct Arg {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    String,
    DType,
    Device,
    Layout,
    MemoryFormat,
    Node,
    List
  };
  Kind kind = Kind::None;
  bool boolean = false;
  Expr integer;      // Int: a constant or a symbolic expression
  double real = 0;   // Float
  std::string text;  // String, Device, Layout, MemoryFormat: the text; Node: the node's name
  DType dtype = DType::Float32;
  std::vector<Arg> items;  // List

  static Arg none() { return {}; }
  static Arg node(std::string name);
  static Arg of_int(Expr e);
  static Arg list(std::vector<Arg> items);
  // A short rendering for messages: `%x`, `[2, s0]`, `float16`.
  std::string str() const;
};

enum class NodeOp { Placeholder, GetAttr, CallFunction, Output };
std::string_view to_string(NodeOp op);

struct Node {
  std::string name;
  NodeOp op = NodeOp::CallFunction;
  std::string target;  // "aten.mul.Tensor", "operator.getitem"; for get_attr the attribute path
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  // Declared metadata: required on placeholders and get_attr, optional (checked) elsewhere.
  std::optional<DType> dtype;
  std::optional<std::vector<Expr>> shape;
  std::optional<std::vector<Expr>> stride;
  nlohmann::ordered_json value;  // get_attr: a small constant as nested lists (null when absent)
  nlohmann::ordered_json extra;  // keys this version does not interpret, kept for round trips

  const Arg* kwarg(std::string_view key) const;
};

// A dimension the graph declares: its range and an example value.
struct DimDecl {
  std::optional<Int> min, max, hint;
};

namespace detail {
// Graph::index_of's name -> position map. Every hit is checked against the node it points at and
// a miss rebuilds the map, so edits to Graph::nodes can make it slower once, never wrong.
class NameIndexCache {
 public:
  size_t find(const std::vector<Node>& nodes, std::string_view name) const;

 private:
  mutable std::unordered_map<std::string, size_t> positions_;
};
}  // namespace detail

struct Graph {
  std::vector<std::pair<std::string, DimDecl>> dims;  // in the order written
  std::vector<Node> nodes;                            // topological order
  nlohmann::ordered_json extra;                       // unknown top-level keys

  const Node* find(std::string_view name) const;
  // The position of the (first) node with this name, nodes.size() when absent; constant time
  // while the graph is not edited.
  size_t index_of(std::string_view name) const;
  const DimDecl* dim(std::string_view name) const;

  detail::NameIndexCache name_index{};  // index_of's cache; nothing else reads it
};

// The parts of an op target, as the registries look them up: `aten.add_.Tensor` has the packet
// `aten.add_`, the overload `Tensor`, and is the in-place form of `aten.add.Tensor`.
struct TargetName {
  std::string_view packet;    // everything before the overload: `aten.add_`
  std::string_view overload;  // `Tensor`; empty for `aten.add` and `operator.getitem`
  bool in_place = false;      // the packet's last name ends in `_` (not `__`, not only `_`)
  // The functional target of an in-place one (`aten.add.Tensor`); empty when not in place.
  std::string functional() const;
};
TargetName parse_target(std::string_view target);

// How a target is found among registered names: the full name, else its packet (an overload
// falls back to its packet's entry), else, for an in-place target, its functional form found the
// same way. `registered` says whether a name has an entry. The one resolver every registry,
// propagation and the interpreter use.
struct TargetMatch {
  std::string key;        // the registered name that matched
  bool in_place = false;  // key is the functional form: run it and write the result into self
};
std::optional<TargetMatch> resolve_target(std::string_view target,
                                          const std::function<bool(std::string_view)>& registered);

// ---------------------------------------------------------------------------------------------
// The rewritable graph
// ---------------------------------------------------------------------------------------------

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = ~NodeId{0};

// A graph being rewritten: the nodes in a linked order with stable ids, a name index, the users
// of every node and each node's metadata (a Value), all kept consistent by every edit. An edit
// that would make the graph inconsistent (a reference to a node defined later or not at all, a
// duplicate name, erasing a node that is still used) throws Error and changes nothing.
// Each edit costs time in the size of the nodes it touches, not of the graph.
class MutableGraph {
 public:
  // From a graph that verifies and the value of each of its nodes (what propagate() computed).
  // Throws Error when the graph does not verify or values has another length.
  MutableGraph(Graph graph, std::vector<Value> values);

  // The graph in its current order, and the values aligned with its nodes.
  Graph graph() const;
  std::vector<Value> values() const;

  size_t size() const { return live_; }
  // The live nodes in order (a snapshot: edits during a walk do not disturb it).
  std::vector<NodeId> order() const;
  NodeId front() const { return head_; }
  NodeId next(NodeId id) const { return slot(id).next; }  // kNoNode after the last
  NodeId prev(NodeId id) const { return slot(id).prev; }  // kNoNode before the first
  bool alive(NodeId id) const { return id < slots_.size() && slots_[id].alive; }
  // True when a comes before b in the order.
  bool before(NodeId a, NodeId b) const { return slot(a).key < slot(b).key; }

  const Node& node(NodeId id) const { return slot(id).node; }
  const Value& value(NodeId id) const { return slot(id).value; }
  void set_value(NodeId id, Value v);
  NodeId find(std::string_view name) const;  // kNoNode when absent
  NodeId output() const;                     // the output node
  // The node a Node argument refers to; kNoNode for other arguments.
  NodeId referent(const Arg& a) const;
  const std::vector<std::pair<std::string, DimDecl>>& dims() const { return dims_; }
  // The graph's other top-level keys (Graph::extra): what a pass records for a runtime, such as
  // complex-rewrite's `complex_io`.
  const nlohmann::ordered_json& extra() const { return extra_; }
  nlohmann::ordered_json& extra() { return extra_; }

  // The distinct nodes whose arguments refer to id, in graph order.
  std::vector<NodeId> users(NodeId id) const;
  bool has_users(NodeId id) const { return !slot(id).users.empty(); }
  // The nodes id's arguments refer to, each once, in argument order.
  std::vector<NodeId> inputs(NodeId id) const;

  // A name no node has, made from base (`base`, else `base_1`, `base_2`, ...).
  std::string fresh_name(std::string_view base) const;

  // Inserts a node before (after) pos and returns its id. A name already taken is made fresh;
  // its arguments must refer to nodes before it.
  NodeId insert_before(NodeId pos, Node node, Value value);
  NodeId insert_after(NodeId pos, Node node, Value value);
  // Replaces a node's arguments (references must come before it), and its target when one is
  // given: one rewrite.
  void set_args(NodeId id, std::vector<Arg> args, std::vector<std::pair<std::string, Arg>> kwargs,
                std::string target = "");
  void set_target(NodeId id, std::string target);
  // Drops metadata declared on a call node (a pass that changes what a node computes).
  void clear_declared(NodeId id);
  // Makes every user of `from` refer to `to` instead; `to` must come before every such user.
  // Returns how many users changed.
  size_t replace_all_uses(NodeId from, NodeId to);
  // Makes every reference to `from` the literal `with` (an int, float or bool argument).
  size_t replace_all_uses(NodeId from, const Arg& with);
  // Removes a node that has no users (never the output node).
  void erase(NodeId id);

  // Edits so far, for a pass's statistics: nodes inserted, erased, and rewritten (their
  // arguments or target changed).
  struct EditCounts {
    size_t inserted = 0, erased = 0, rewritten = 0;
  };
  const EditCounts& edits() const { return edits_; }

 private:
  struct Slot {
    Node node;
    Value value;
    bool alive = true;
    NodeId prev = kNoNode, next = kNoNode;
    uint64_t key = 0;           // increasing along the order
    std::vector<NodeId> users;  // distinct, unordered
  };
  const Slot& slot(NodeId id) const;
  Slot& slot(NodeId id);
  NodeId insert_between(NodeId prev, NodeId next, Node node, Value value);
  void renumber();
  void check_args_before(const Node& node, NodeId next) const;
  void link_inputs(NodeId id);
  void unlink_inputs(NodeId id);
  void rewrite_references(NodeId user, const std::string& from, const Arg& with);

  std::vector<Slot> slots_;
  std::unordered_map<std::string, NodeId> by_name_;
  NodeId head_ = kNoNode, tail_ = kNoNode;
  size_t live_ = 0;
  std::vector<std::pair<std::string, DimDecl>> dims_;
  nlohmann::ordered_json extra_;
  EditCounts edits_;
};

// Reads a graph from JSON text (the format of docs/graph-format.md). Errors name the node and
// the key: `node 'y': arg 1: unknown dtype 'float33'`.
Expected<Graph> read_graph(std::string_view json_text);
Expected<Graph> read_graph_file(const std::string& path);
// Writes the canonical JSON text: read_graph(write_graph(g)) writes back byte-identically.
std::string write_graph(const Graph& g);

// Checks the graph's structure: unique names, references defined before use, exactly one output
// node and last, placeholders and get_attrs with dtype and shape, sizes non-negative.
// Returns the first problem, naming the node.
std::optional<std::string> verify(const Graph& g);

}  // namespace symshape
