// Test helper for shape rules: builds a graph of placeholders and one call node, propagates it
// under a fresh ShapeEnv, and exposes the result, the guards and the error.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "symshape/ir.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape::testing {

// A placeholder: its name, dtype and sizes written as expressions ("batch", "4", "2*seq").
struct Input {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<std::string> shape;
};

// The input `name` of the given shape (float32 unless given).
inline Input tensor(const std::string& name, std::vector<std::string> shape,
                    DType dtype = DType::Float32) {
  return {name, dtype, std::move(shape)};
}

// ---- argument builders ----
inline Arg T(const std::string& node) { return Arg::node(node); }
inline Arg I(long v) { return Arg::of_int(Expr(v)); }
// A symbolic int such as "h - 1"; the expression must parse.
inline Arg E(const std::string& text) { return Arg::of_int(parse_expr(text).value()); }
inline Arg Ints(const std::vector<long>& vs) {
  std::vector<Arg> items;
  for (long v : vs) items.push_back(I(v));
  return Arg::list(std::move(items));
}
inline Arg List(std::vector<Arg> items) { return Arg::list(std::move(items)); }
inline Arg B(bool v) {
  Arg a;
  a.kind = Arg::Kind::Bool;
  a.boolean = v;
  return a;
}
inline Arg F(double v) {
  Arg a;
  a.kind = Arg::Kind::Float;
  a.real = v;
  return a;
}
inline Arg S(const std::string& text) {
  Arg a;
  a.kind = Arg::Kind::String;
  a.text = text;
  return a;
}
inline Arg D(DType d) {
  Arg a;
  a.kind = Arg::Kind::DType;
  a.dtype = d;
  return a;
}
inline Arg None() { return Arg::none(); }
inline Arg MemoryFormat(const std::string& f) {
  Arg a;
  a.kind = Arg::Kind::MemoryFormat;
  a.text = f;
  return a;
}

using Kwargs = std::vector<std::pair<std::string, Arg>>;

// The outcome of running one op: the propagation (values, status, error) and its ShapeEnv.
struct OpRun {
  Propagation result;
  std::unique_ptr<ShapeEnv> env;
  size_t call_index = 0;

  bool ok() const { return result.ok(); }
  const std::string& error() const { return result.error; }
  // The call node's value.
  const Value& value() const { return result.values.at(call_index); }
  // "float32[s0, 4]", or "(float32[2], int64[2])" for a list.
  std::string str() const { return value().str(); }
  // The recorded guards, each printed.
  std::vector<std::string> guards() const {
    std::vector<std::string> out;
    for (const Guard& g : env->guards()) out.push_back(g.cond.str());
    return out;
  }
  std::vector<std::string> runtime_asserts() const {
    std::vector<std::string> out;
    for (const RuntimeAssert& a : env->runtime_asserts()) out.push_back(a.cond.str());
    return out;
  }
};

// A call node: its name, target and arguments.
struct Call {
  std::string name;
  std::string target;
  std::vector<Arg> args;
  Kwargs kwargs = {};
};

// Builds placeholders for `inputs`, the `calls` in order, and an output node returning the last
// call; runs propagate. `dims` declares named dims (ranges, hints).
inline OpRun run_ops(const std::vector<Input>& inputs, std::vector<Call> calls,
                     std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  Graph g;
  g.dims = std::move(dims);
  for (const Input& in : inputs) {
    Node n;
    n.name = in.name;
    n.op = NodeOp::Placeholder;
    n.target = in.name;
    n.dtype = in.dtype;
    std::vector<Expr> shape;
    for (const std::string& s : in.shape) shape.push_back(parse_expr(s).value());
    n.shape = shape;
    g.nodes.push_back(std::move(n));
  }
  for (Call& c : calls) {
    Node call;
    call.name = c.name;
    call.op = NodeOp::CallFunction;
    call.target = c.target;
    call.args = std::move(c.args);
    call.kwargs = std::move(c.kwargs);
    g.nodes.push_back(std::move(call));
  }
  Node output;
  output.name = "output";
  output.op = NodeOp::Output;
  output.target = "output";
  output.args = {Arg::node(g.nodes.back().name)};
  g.nodes.push_back(std::move(output));

  OpRun run;
  run.env = std::make_unique<ShapeEnv>();
  run.call_index = g.nodes.size() - 2;
  run.result = propagate(g, *run.env);
  return run;
}

// One call node `name` of `target` on placeholders for `inputs`.
inline OpRun run_op(const std::vector<Input>& inputs, const std::string& target,
                    std::vector<Arg> args, Kwargs kwargs = {},
                    std::vector<std::pair<std::string, DimDecl>> dims = {},
                    const std::string& name = "op") {
  return run_ops(inputs, {Call{name, target, std::move(args), std::move(kwargs)}}, std::move(dims));
}

// Passes when `part` occurs in `text` (the tests link GoogleTest only, no gmock matchers).
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

// A dim declaration with a hint (and optionally a range).
inline std::pair<std::string, DimDecl> Dim(const std::string& name, long hint,
                                           std::optional<long> min = std::nullopt,
                                           std::optional<long> max = std::nullopt) {
  DimDecl d;
  d.hint = Int(hint);
  if (min) d.min = Int(*min);
  if (max) d.max = Int(*max);
  return {name, d};
}

// A tensor value's strides, printed like its sizes: "[4, 1]" (contiguous when none are stored).
inline std::string strides_str(const Value& v) {
  const TensorMeta& t = v.tensor;
  std::vector<Expr> strides =
      t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
  std::string s = "[";
  for (size_t i = 0; i < strides.size(); ++i) s += (i ? ", " : "") + strides[i].str();
  return s + "]";
}

// Items joined with "; ", to compare a list of guards or asserts in one expectation.
inline std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "; " : "") + items[i];
  return s;
}

}  // namespace symshape::testing
