// The graph IR: an FX-like graph of nodes in topological order, with tensor metadata whose
// sizes and strides are symbolic expressions; its JSON form; and the verifier.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// What a node produces: nothing, a tensor, a symbolic int, a float, a bool, or a list of values.
struct Value {
  enum class Kind { None, Tensor, Int, Float, Bool, List };
  Kind kind = Kind::None;
  TensorMeta tensor;          // Kind::Tensor
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

struct Graph {
  std::vector<std::pair<std::string, DimDecl>> dims;  // in the order written
  std::vector<Node> nodes;                            // topological order
  nlohmann::ordered_json extra;                       // unknown top-level keys

  const Node* find(std::string_view name) const;
  size_t index_of(std::string_view name) const;  // nodes.size() when absent
  const DimDecl* dim(std::string_view name) const;
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
