// What ONNX shape rules are written with: a view of an imported ONNX node (its inputs by
// position, its attributes by name, its opset) over the OpContext every rule runs in, and the
// shape arithmetic on small int64 tensors (KnownData) that Shape, Gather, Concat and friends do.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/ir.h"
#include "symshape/ops.h"

namespace symshape::onnx {

// ONNX's TensorProto element types, as symshape dtypes: nullopt for the ones it has no dtype for
// (strings, unsigned 16-64 bit, float8).
std::optional<DType> dtype_of_elem_type(int elem_type);
int elem_type_of(DType d);

// An ONNX node as its shape rule sees it.
class Op {
 public:
  explicit Op(OpContext& ctx) : ctx_(ctx) {}

  OpContext& ctx() const { return ctx_; }
  const Node& node() const { return ctx_.node(); }
  // "Conv" for `onnx.Conv`.
  std::string_view op_type() const;
  // The opset the model imports for the node's domain (the importer records it).
  int64_t opset() const;

  // How many outputs the node has (an op with several returns a list of that many values).
  size_t num_outputs() const;

  // ---- inputs, by position; an optional input left out (or passed as "") is absent ----
  size_t num_inputs() const { return node().args.size(); }
  bool has_input(size_t i) const;
  Value input(size_t i) const;        // bad input when absent
  TensorMeta tensor(size_t i) const;  // bad input when absent or not a tensor
  // The input's elements when they are known while shapes are computed (a Shape's sizes, a
  // constant, arithmetic on those); nullopt when they depend on the data. Integral inputs only
  // (floating ones give nullopt from ints and their values from reals).
  std::optional<std::vector<Expr>> ints(size_t i) const;
  std::optional<std::vector<double>> reals(size_t i) const;
  // ints(i) as plain integers: nullopt when unknown or symbolic.
  std::optional<std::vector<int64_t>> constants(size_t i) const;

  // ---- attributes ----
  bool has_attr(std::string_view name) const;
  int64_t attr_int(std::string_view name, int64_t fallback) const;
  std::optional<int64_t> optional_attr_int(std::string_view name) const;
  double attr_float(std::string_view name, double fallback) const;
  std::string attr_string(std::string_view name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(std::string_view name) const;  // empty when absent
  std::optional<std::vector<int64_t>> optional_attr_ints(std::string_view name) const;
  std::vector<double> attr_floats(std::string_view name) const;
  // A TENSOR attribute (Constant's and ConstantOfShape's value): the importer makes it a
  // get_attr node; its value, with its elements when small.
  std::optional<Value> attr_tensor(std::string_view name) const;

  // An axis attribute or input normalized into [0, rank), with a message naming it otherwise.
  size_t axis(int64_t axis, size_t rank, std::string_view what = "axis") const;

  [[noreturn]] void fail(const std::string& message) const { ctx_.fail(message); }
  [[noreturn]] void bad_input(const std::string& message) const { ctx_.bad_input(message); }

 private:
  const Arg* kwarg(std::string_view name) const { return node().kwarg(name); }
  OpContext& ctx_;
};

// The sizes as plain integers (after simplifying) when all are constant.
std::optional<std::vector<int64_t>> constant_sizes(Op& op, const std::vector<Expr>& sizes);

// A tensor value of dtype and sizes (contiguous).
Value tensor_value(DType dtype, std::vector<Expr> sizes);
// A tensor with known integral elements (rank 1 of data.size(), or the given sizes).
Value int_tensor(DType dtype, std::vector<Expr> elements);
Value int_tensor(DType dtype, std::vector<Expr> sizes, std::vector<Expr> elements);

// Elementwise arithmetic on known integral elements with ONNX (numpy) broadcasting of two
// shapes of constants; nullopt when a shape is symbolic or the shapes do not broadcast.
std::optional<std::vector<Expr>> broadcast_elements(
    const std::vector<Expr>& a, const std::vector<Expr>& a_sizes, const std::vector<Expr>& b,
    const std::vector<Expr>& b_sizes, const std::function<Expr(const Expr&, const Expr&)>& f,
    std::vector<Expr>* out_sizes);

using Rule = std::function<Value(Op&)>;
// Registers rule for `onnx.<op_type>`.
void add(OpRegistry& r, const std::string& op_type, Rule rule);

// The families (one file each).
void add_elementwise_rules(OpRegistry& r);   // elementwise.cc: math, logic, activations, Where
void add_shape_rules(OpRegistry& r);         // shape.cc: Shape, Reshape, Gather, Slice, Concat, ...
void add_nn_rules(OpRegistry& r);            // nn.cc: Conv, pools, norms, Resize, Pad, Gemm, ...
void add_misc_rules(OpRegistry& r);          // misc.cc: reductions, data-dependent, signal, losses
void add_control_flow_rules(OpRegistry& r);  // control_flow.cc: If, Loop, Scan

}  // namespace symshape::onnx
