// Test helpers for the interpreter: compare what a graph's run produced with what shape
// propagation said, at the run's dims.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/shape_env.h"
#include "tests/ops/op_test_util.h"

namespace symshape::testing {

// The graph run_ops builds: placeholders for `inputs`, the `calls` in order, and an output node
// returning the last call.
inline Graph graph_of(const std::vector<Input>& inputs, const std::vector<Call>& calls,
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
  for (const Call& c : calls) {
    Node n;
    n.name = c.name;
    n.op = NodeOp::CallFunction;
    n.target = c.target;
    n.args = c.args;
    n.kwargs = c.kwargs;
    g.nodes.push_back(std::move(n));
  }
  Node output;
  output.name = "output";
  output.op = NodeOp::Output;
  output.target = "output";
  if (!g.nodes.empty()) output.args = {Arg::node(g.nodes.back().name)};
  g.nodes.push_back(std::move(output));
  return g;
}

// Runs calls on given input tensors (placeholders shaped like them, with constant sizes).
inline interp::RunResult run_calls(
    const std::vector<std::pair<std::string, interp::Tensor>>& inputs,
    const std::vector<Call>& calls, interp::RunOptions options = {}) {
  std::vector<Input> decls;
  for (const auto& [name, t] : inputs) {
    Input in{name, t.dtype(), {}};
    for (int64_t s : t.sizes()) in.shape.push_back(std::to_string(s));
    decls.push_back(in);
    options.inputs[name] = t;
  }
  return interp::run(graph_of(decls, calls), options);
}

// A tensor from row-major values.
inline interp::Tensor tensor_of(DType dtype, std::vector<int64_t> sizes,
                                const std::vector<double>& values) {
  std::vector<interp::Scalar> s;
  for (double v : values) {
    if (is_floating(dtype) || is_complex(dtype))
      s.push_back(interp::Scalar::of_float(v));
    else
      s.push_back(interp::Scalar::of_int(static_cast<int64_t>(v)));
  }
  return interp::Tensor::from(dtype, std::move(sizes), s);
}

// A tensor's values as doubles (the real part of complex ones), row-major.
inline std::vector<double> values_of(const interp::Tensor& t) {
  std::vector<double> out;
  for (const interp::Scalar& v : t.values()) out.push_back(v.as_double());
  return out;
}

// Compares run-time values with propagated ones, node by node. Sizes over the named dims must
// equal their expressions evaluated at `dims`; a size holding a data-dependent symbol (u0)
// must be consistent: the same symbol has the same value everywhere in the run. Returns the
// first disagreement, or nullopt.
class ShapeChecker {
 public:
  ShapeChecker(const ShapeEnv& env, Bindings dims) : env_(env), dims_(std::move(dims)) {}

  std::optional<std::string> check(const Graph& g, const std::vector<Value>& symbolic,
                                   const std::vector<interp::RValue>& actual) {
    for (size_t i = 0; i < g.nodes.size() && i < symbolic.size() && i < actual.size(); ++i) {
      if (auto problem = compare(symbolic[i], actual[i])) {
        return "node " + g.nodes[i].name + " (" + g.nodes[i].target + "): " + *problem;
      }
    }
    return std::nullopt;
  }

  size_t checked_sizes() const { return checked_; }

  // Also compare every tensor's strides with the metadata's, on the dims of size > 1 of nonempty
  // tensors (the others address nothing, as PyTorch's is_contiguous ignores them).
  void set_check_strides(bool on) { check_strides_ = on; }
  size_t checked_strides() const { return checked_strides_; }

  // The dims and the data-dependent values seen so far.
  Bindings bindings() const {
    Bindings all = dims_;
    for (const auto& [name, v] : unbacked_) all[name] = v;
    return all;
  }

  // The first runtime assert that is false at bindings() (asserts over symbols not seen are
  // skipped), or nullopt.
  std::optional<std::string> failed_runtime_assert() const {
    const Bindings all = bindings();
    for (const RuntimeAssert& a : env_.runtime_asserts()) {
      try {
        if (!evaluate(a.cond, all)) return a.cond.str() + " (" + a.where.str() + ")";
      } catch (const Error&) {
      }
    }
    return std::nullopt;
  }

 private:
  bool is_unbacked(const std::string& name) const {
    if (!env_.has_symbol(name)) return !dims_.count(name);
    return env_.symbol(name).kind == SymbolKind::Unbacked;
  }

  // Compares one size or int; nullopt when it agrees (or cannot be judged yet).
  std::optional<std::string> compare_int(const Expr& e, int64_t got) {
    ++checked_;
    std::vector<std::string> unbacked;
    for (const std::string& s : e.free_symbols()) {
      if (is_unbacked(s)) unbacked.push_back(s);
    }
    if (unbacked.empty()) {
      Int want = evaluate(e, dims_);
      if (want != Int(got)) {
        return "expected " + e.str() + " = " + to_string(want) + ", got " + std::to_string(got);
      }
      return std::nullopt;
    }
    if (e.is_symbol()) {
      auto [it, fresh] = unbacked_.emplace(e.symbol_name(), Int(got));
      if (!fresh && it->second != Int(got)) {
        return "data-dependent " + e.str() + " was " + to_string(it->second) + " before, now " +
               std::to_string(got);
      }
      return std::nullopt;
    }
    Bindings all = dims_;
    for (const auto& [name, v] : unbacked_) all[name] = v;
    try {
      Int want = evaluate(e, all);
      if (want != Int(got)) {
        return "expected " + e.str() + " = " + to_string(want) + ", got " + std::to_string(got);
      }
    } catch (const Error&) {
      // An unbacked symbol not seen bare yet: nothing to compare against.
    }
    return std::nullopt;
  }

  // The strides of a tensor whose sizes agree with want's; nullopt when they agree too, or when
  // a stride cannot be evaluated yet (over a data-dependent symbol not seen bare).
  std::optional<std::string> compare_strides(const TensorMeta& want, const interp::Tensor& got) {
    if (got.numel() == 0) return std::nullopt;
    std::vector<int64_t> expected = interp::contiguous_strides(got.sizes());
    if (!want.strides.empty()) {
      if (want.strides.size() != got.rank()) return "expected strides of rank " + want.str();
      try {
        for (size_t d = 0; d < got.rank(); ++d) {
          auto v = to_int64(evaluate(want.strides[d], bindings()));
          if (!v) return "stride " + want.strides[d].str() + " does not fit in int64";
          expected[d] = *v;
        }
      } catch (const Error&) {
        return std::nullopt;
      }
    }
    ++checked_strides_;
    if (got.strides_equivalent(expected)) return std::nullopt;
    std::string w, g;
    for (size_t d = 0; d < got.rank(); ++d) {
      w += (d ? ", " : "") + std::to_string(expected[d]);
      g += (d ? ", " : "") + std::to_string(got.strides()[d]);
    }
    return "expected strides (" + w + ") for " + got.str() + ", got (" + g + ")";
  }

  std::optional<std::string> compare(const Value& want, const interp::RValue& got) {
    using K = Value::Kind;
    using RK = interp::RValue::Kind;
    switch (want.kind) {
      case K::Tensor: {
        if (got.kind != RK::Tensor) return "expected a tensor " + want.str() + ", got " + got.str();
        const TensorMeta& t = want.tensor;
        if (t.dtype != got.tensor.dtype()) {
          return "expected dtype " + std::string(to_string(t.dtype)) + ", got " + got.str();
        }
        if (t.rank() != got.tensor.rank()) return "expected " + want.str() + ", got " + got.str();
        for (size_t d = 0; d < t.rank(); ++d) {
          if (auto p = compare_int(t.sizes[d], got.tensor.sizes()[d])) {
            return "dim " + std::to_string(d) + " of " + want.str() + " vs " + got.str() + ": " +
                   *p;
          }
        }
        if (check_strides_) return compare_strides(t, got.tensor);
        return std::nullopt;
      }
      case K::Int:
        if (got.kind != RK::Int) return "expected an int " + want.str() + ", got " + got.str();
        return compare_int(want.integer, got.integer);
      case K::List: {
        if (got.kind != RK::List || got.items.size() != want.items.size()) {
          return "expected " + want.str() + ", got " + got.str();
        }
        for (size_t k = 0; k < want.items.size(); ++k) {
          if (auto p = compare(want.items[k], got.items[k])) {
            return "item " + std::to_string(k) + ": " + *p;
          }
        }
        return std::nullopt;
      }
      case K::Float:
        if (got.kind != RK::Float) return "expected a float, got " + got.str();
        return std::nullopt;
      case K::Bool:
        if (got.kind != RK::Bool) return "expected a bool, got " + got.str();
        if (want.truth && *want.truth != got.truth) {
          return "expected " + want.str() + ", got " + got.str();
        }
        if (!want.truth && !want.condition.is_true()) {
          bool unbacked = false;
          for (const std::string& s : want.condition.free_symbols()) unbacked |= is_unbacked(s);
          if (!unbacked) {
            const bool expected = evaluate(want.condition, dims_);
            if (expected != got.truth) {
              return "expected " + want.condition.str() + " to be " +
                     (expected ? "True" : "False") + " at these dims, got " + got.str();
            }
          }
        }
        return std::nullopt;
      case K::None: return std::nullopt;
    }
    return std::nullopt;
  }

  const ShapeEnv& env_;
  Bindings dims_;
  std::map<std::string, Int> unbacked_;
  size_t checked_ = 0;
  bool check_strides_ = false;
  size_t checked_strides_ = 0;
};

}  // namespace symshape::testing
