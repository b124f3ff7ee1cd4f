// Test helper for kernels: calls one op's kernel directly on given tensors, so that a test sees
// the very tensor the kernel returns (a view shares its input's storage).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "symshape/interp.h"
#include "tests/ops/op_test_util.h"

namespace symshape::testing {

using interp::RValue;
using interp::Scalar;
using interp::Tensor;

// A tensor of `dtype` and `sizes` from row-major integer values.
inline Tensor int_tensor(std::vector<int64_t> sizes, const std::vector<int64_t>& values,
                         DType dtype = DType::Int64) {
  std::vector<Scalar> s;
  for (int64_t v : values) s.push_back(Scalar::of_int(v));
  return Tensor::from(dtype, std::move(sizes), s);
}

// A tensor of `dtype` and `sizes` from row-major real values.
inline Tensor real_tensor(std::vector<int64_t> sizes, const std::vector<double>& values,
                          DType dtype = DType::Float32) {
  std::vector<Scalar> s;
  for (double v : values) s.push_back(Scalar::of_float(v));
  return Tensor::from(dtype, std::move(sizes), s);
}

// 0, 1, ..., numel - 1 with the given sizes.
inline Tensor iota(std::vector<int64_t> sizes, DType dtype = DType::Int64) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(i);
  return int_tensor(std::move(sizes), values, dtype);
}

// A tensor's elements (row-major) as integers / as doubles.
inline std::vector<int64_t> ints_of(const Tensor& t) {
  std::vector<int64_t> out;
  for (const Scalar& s : t.values()) out.push_back(s.as_int());
  return out;
}
inline std::vector<double> reals_of(const Tensor& t) {
  std::vector<double> out;
  for (const Scalar& s : t.values()) out.push_back(s.as_double());
  return out;
}

// Runs the kernel of `target` with `args` and `kwargs`; T("name") refers to inputs[name].
inline RValue call_kernel(const std::string& target,
                          const std::vector<std::pair<std::string, Tensor>>& inputs,
                          std::vector<Arg> args, Kwargs kwargs = {}) {
  Graph g;
  std::vector<std::vector<RValue>> ranks(1);
  for (const auto& [name, t] : inputs) {
    Node n;
    n.name = name;
    n.op = NodeOp::Placeholder;
    n.target = name;
    n.dtype = t.dtype();
    std::vector<Expr> shape;
    for (int64_t s : t.sizes()) shape.push_back(Expr(static_cast<long>(s)));
    n.shape = shape;
    g.nodes.push_back(std::move(n));
    ranks[0].push_back(RValue::of(t));
  }
  Node call;
  call.name = "op";
  call.op = NodeOp::CallFunction;
  call.target = target;
  call.args = std::move(args);
  call.kwargs = std::move(kwargs);
  g.nodes.push_back(std::move(call));
  ranks[0].push_back(RValue::none());
  const interp::Kernel* kernel = interp::KernelRegistry::instance().find(target);
  if (!kernel) throw std::runtime_error("no kernel for " + target);
  Bindings dims;
  std::mt19937_64 rng(0);
  interp::KernelContext ctx(g, g.nodes.back(), ranks, 0, dims, rng);
  return (*kernel)(ctx);
}

// The tensor the kernel returns.
inline Tensor call_tensor(const std::string& target,
                          const std::vector<std::pair<std::string, Tensor>>& inputs,
                          std::vector<Arg> args, Kwargs kwargs = {}) {
  RValue v = call_kernel(target, inputs, std::move(args), std::move(kwargs));
  if (!v.is_tensor()) throw std::runtime_error(target + " returned " + v.str());
  return v.tensor;
}

// The message of the RunError the call throws ("" when it throws none).
inline std::string run_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const interp::RunError& e) {
    return e.what();
  }
  return "";
}

}  // namespace symshape::testing
