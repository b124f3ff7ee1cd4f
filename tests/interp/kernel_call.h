// Test helper for kernels: calls one op's kernel directly on given tensors, so that a test sees
// the very tensor the kernel returns (a view shares its input's storage).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
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

// Short names of the dtypes the kernel tests use.
inline constexpr DType B8 = DType::Bool, U8 = DType::UInt8, I8 = DType::Int8, I32 = DType::Int32,
                       I64 = DType::Int64, F16 = DType::Float16, F32 = DType::Float32,
                       F64 = DType::Float64, C64 = DType::Complex64, C128 = DType::Complex128;
inline constexpr DType kF32 = DType::Float32, kF64 = DType::Float64, kI64 = DType::Int64;

inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// An input of the graph a test runs: name, dtype and shape.
inline Input In(const std::string& name, DType d, std::vector<std::string> shape) {
  return {name, d, std::move(shape)};
}
// The same with the dtype last (float32 unless given).
inline Input in(const std::string& name, std::vector<std::string> shape, DType dtype = kF32) {
  return {name, dtype, std::move(shape)};
}

// target(x, args...) for one input tensor x.
inline Tensor on(const std::string& target, const Tensor& x, std::vector<Arg> args = {},
                 Kwargs kwargs = {}) {
  args.insert(args.begin(), T("x"));
  return call_tensor(target, {{"x", x}}, std::move(args), std::move(kwargs));
}

// The same with the target second and the arguments after x required.
inline Tensor on_x(const Tensor& x, const std::string& target, std::vector<Arg> args,
                   Kwargs kwargs = {}) {
  std::vector<Arg> all = {T("x")};
  all.insert(all.end(), args.begin(), args.end());
  return call_tensor(target, {{"x", x}}, std::move(all), std::move(kwargs));
}

// The message of the RunError that on_x throws ("" when it throws none).
inline std::string error_on_x(const Tensor& x, const std::string& target, std::vector<Arg> args,
                              Kwargs kwargs = {}) {
  return run_error([&] { on_x(x, target, std::move(args), std::move(kwargs)); });
}

// One binary op on two tensors a and b.
inline Tensor binary(const std::string& target, const Tensor& a, const Tensor& b,
                     Kwargs kwargs = {}) {
  return call_tensor(target, {{"a", a}, {"b", b}}, {T("a"), T("b")}, std::move(kwargs));
}

}  // namespace symshape::testing
