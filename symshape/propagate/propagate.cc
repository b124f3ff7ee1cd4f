// Shape propagation: symbols for the inputs, then every node's rule in order.
#include "symshape/ir/utf8.h"
#include "symshape/ops/families.h"
#include "symshape/propagate.h"

namespace symshape {

std::string size_source(const std::string& input, size_t dim) {
  return "L[" + python_string_literal(input) + "].size()[" + std::to_string(dim) + "]";
}

std::string stride_source(const std::string& input, size_t dim) {
  return "L[" + python_string_literal(input) + "].stride()[" + std::to_string(dim) + "]";
}

// A declared dim's example value: its hint, else 8 moved into [max(min, 2), max] so that a
// default never lands on the specialized sizes 0 and 1.
Int default_hint(const DimDecl& d) {
  if (d.hint) return *d.hint;
  Int h = 8;
  if (d.min && h < *d.min) h = *d.min;
  if (d.max && h > *d.max) h = *d.max;
  if (h < 2 && (!d.max || *d.max >= 2)) h = 2;
  return h;
}

namespace {

// Appends the numbers of nested lists to data; false on anything else or too many.
bool flatten_numbers(const nlohmann::ordered_json& j, KnownData& data, size_t max_elements) {
  if (j.is_array()) {
    for (const auto& item : j)
      if (!flatten_numbers(item, data, max_elements)) return false;
    return true;
  }
  if (data.size() >= max_elements) return false;
  if (data.real) {
    if (!j.is_number()) return false;
    data.reals.push_back(j.get<double>());
  } else if (j.is_boolean()) {
    data.ints.emplace_back(j.get<bool>() ? 1 : 0);
  } else if (j.is_number_integer()) {
    data.ints.emplace_back(static_cast<long long>(j.get<int64_t>()));
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<const KnownData> constant_data(const Node& node, size_t max_elements) {
  if (node.value.is_null() || !node.dtype || !node.shape || is_complex(*node.dtype)) return nullptr;
  Int numel = 1;
  for (const Expr& e : *node.shape) {
    std::optional<Int> c = e.constant();
    if (!c) return nullptr;
    numel *= *c;
  }
  if (numel > Int(static_cast<long long>(max_elements))) return nullptr;
  auto data = std::make_shared<KnownData>();
  data->real = is_floating(*node.dtype);
  if (!flatten_numbers(node.value, *data, max_elements)) return nullptr;
  if (Int(static_cast<long long>(data->size())) != numel) return nullptr;
  return data;
}

namespace {

class Propagator {
 public:
  Propagator(const Graph& g, ShapeEnv& env, const PropagateOptions& options)
      : graph_(g), env_(env), options_(options) {}

  Propagation run() {
    Propagation result;
    result.values.assign(graph_.nodes.size(), Value::none());
    size_t i = 0;
    try {
      // The verifier's message names its node already: no "node <first>: " label in front.
      if (auto problem = verify(graph_)) {
        return failure(std::move(result), Propagation::Status::InputError, *problem, 0);
      }
      for (size_t k = 0; k < graph_.nodes.size(); ++k) index_.emplace(graph_.nodes[k].name, k);
      create_input_symbols();
      for (; i < graph_.nodes.size(); ++i)
        result.values[i] = run_node(graph_.nodes[i], result.values);
    } catch (const ShapeError& e) {
      return failure(std::move(result), Propagation::Status::ShapeError, e.what(), i);
    } catch (const DataDependentError& e) {
      return failure(std::move(result), Propagation::Status::ShapeError, label(i) + e.what(), i);
    } catch (const InputError& e) {
      return failure(std::move(result), Propagation::Status::InputError, e.what(), i);
    } catch (const std::exception& e) {
      return failure(std::move(result), Propagation::Status::InputError, label(i) + e.what(), i);
    }
    return result;
  }

 private:
  std::string label(size_t i) const {
    if (i >= graph_.nodes.size()) return "";
    const Node& n = graph_.nodes[i];
    return "node " + n.name + (n.target.empty() ? "" : " (" + n.target + ")") + ": ";
  }

  Propagation failure(Propagation r, Propagation::Status s, std::string message, size_t i) {
    r.status = s;
    r.error = detail::escape_invalid_utf8(message);  // node names are bytes; the message is UTF-8
    r.failed_node = i;
    for (size_t k = i; k < r.values.size(); ++k) r.values[k] = Value::none();
    return r;
  }

  DimDecl decl(const std::string& name) const {
    auto it = options_.dims.find(name);
    if (it != options_.dims.end()) return it->second;
    const DimDecl* d = graph_.dim(name);
    return d ? *d : DimDecl{};
  }

  void create_symbol(const std::string& name, const std::string& source) {
    if (env_.has_symbol(name)) return;
    DimDecl d = decl(name);
    SymbolOptions opts;
    opts.name = name;
    if (d.min || d.max) opts.constraint = ValueRange(d.min, d.max);
    env_.create_symbol(default_hint(d), source, DimPolicy::Dynamic, opts);
  }

  // Named dims become symbols: first those written bare (with the size they stand for as their
  // source), then any that appear only inside expressions such as `2*seq`.
  void create_input_symbols() {
    std::vector<std::pair<std::string, std::string>> derived;
    for (const Node& n : graph_.nodes) {
      if (n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) continue;
      if (!n.shape || options_.inputs.count(n.name)) continue;
      for (size_t k = 0; k < n.shape->size(); ++k) {
        const Expr& e = (*n.shape)[k];
        if (e.is_symbol()) {
          create_symbol(e.symbol_name(), size_source(n.name, k));
        } else {
          for (const std::string& s : e.free_symbols())
            derived.emplace_back(s, "dims['" + s + "']");
        }
      }
    }
    for (const auto& [name, source] : derived) create_symbol(name, source);
    // Declared dims used only in arguments (a symbolic group size W) are symbols too.
    for (const auto& [name, d] : graph_.dims) create_symbol(name, "dims['" + name + "']");
  }

  TensorMeta declared_tensor(const Node& n) const {
    TensorMeta t;
    t.dtype = *n.dtype;
    for (const Expr& e : *n.shape) {
      Expr s = env_.simplify(e);
      if (s.is_constant() && *s.constant() < 0) {
        throw InputError(n, "size " + s.str() + " is negative");
      }
      t.sizes.push_back(s);
    }
    t.strides = n.stride ? *n.stride : TensorMeta::contiguous_strides(t.sizes);
    return t;
  }

  Value run_node(const Node& n, const std::vector<Value>& values) {
    switch (n.op) {
      case NodeOp::Placeholder: {
        auto given = options_.inputs.find(n.name);
        if (given != options_.inputs.end()) return given->second;
        return Value::of(declared_tensor(n));
      }
      case NodeOp::GetAttr: {
        Value v = Value::of(declared_tensor(n));
        v.data = constant_data(n);
        return v;
      }
      case NodeOp::Output: {
        OpContext ctx(env_, n, lookup(values));
        return n.args.empty() ? Value::none() : ctx.value_of(n.args[0]);
      }
      case NodeOp::CallFunction: break;
    }
    OpContext ctx(env_, n, lookup(values));
    const ShapeRule* rule = rule_of(n.target);
    if (!rule) {
      if (options_.skip_unknown_ops && n.dtype && n.shape) return Value::of(declared_tensor(n));
      throw InputError(n, "unknown op '" + n.target + "' (no shape rule)");
    }
    Value out = (*rule)(ctx);
    check_declared(ctx, out);
    return out;
  }

  // The registry's rule for target, looked up once per target of the graph (a lookup resolves
  // overload and in-place spellings).
  const ShapeRule* rule_of(std::string_view target) {
    auto [it, inserted] = rules_.try_emplace(target, nullptr);
    if (inserted) {
      const OpRegistry& r = options_.registry ? *options_.registry : OpRegistry::instance();
      it->second = r.find(target);
    }
    return it->second;
  }

  // The values of the nodes run so far, by name.
  ValueLookup lookup(const std::vector<Value>& values) const {
    return [this, &values](std::string_view name) -> const Value* {
      auto it = index_.find(name);
      return it != index_.end() && it->second < values.size() ? &values[it->second] : nullptr;
    };
  }

  // Metadata written on a call_function node must agree with what its rule computed.
  void check_declared(const OpContext& ctx, const Value& out) {
    const Node& n = ctx.node();
    if (!n.dtype && !n.shape) return;
    if (!out.is_tensor()) return;
    if (n.dtype && *n.dtype != out.tensor.dtype) {
      ctx.fail("declared dtype " + std::string(to_string(*n.dtype)) + " but the rule computed " +
               std::string(to_string(out.tensor.dtype)));
    }
    if (!n.shape) return;
    const std::string mismatch = "declared shape " + ops::shape_str(*n.shape) +
                                 " but the rule computed " + ops::shape_str(out.tensor.sizes);
    if (n.shape->size() != out.tensor.rank()) ctx.fail(mismatch);
    for (size_t d = 0; d < out.tensor.rank(); ++d) {
      const Expr& declared = (*n.shape)[d];
      bool known_symbols = true;
      for (const std::string& s : declared.free_symbols()) known_symbols &= env_.has_symbol(s);
      // A declared data-dependent size (u0) may be named differently here: not comparable.
      if (known_symbols)
        ctx.require_equal(declared, out.tensor.sizes[d], "declared_shape", mismatch);
    }
  }

  const Graph& graph_;
  ShapeEnv& env_;
  const PropagateOptions& options_;
  // Views of graph_'s node names.
  std::unordered_map<std::string_view, size_t> index_;
  std::unordered_map<std::string_view, const ShapeRule*> rules_;  // views of graph_'s targets
};

}  // namespace

Propagation propagate(const Graph& graph, ShapeEnv& env, const PropagateOptions& options) {
  return Propagator(graph, env, options).run();
}

}  // namespace symshape
