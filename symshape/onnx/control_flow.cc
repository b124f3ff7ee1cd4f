// ONNX's control flow: If, Loop and Scan. Their subgraphs (stored by the importer as graph JSON in
// node.extra["subgraphs"]) are propagated under the same ShapeEnv, so that the symbols of the
// enclosing graph mean the same inside; names a subgraph reads from outside get their values from
// the enclosing graph.
#include <set>

#include "symshape/onnx.h"
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

// A subgraph attribute of the node, with its formal inputs and the names it reads from outside.
struct Subgraph {
  std::string attr;
  Graph graph;
  std::vector<std::string> formals;
  std::vector<std::string> outer;
};

bool flagged(const Node& n, const char* key) {
  return n.op == NodeOp::Placeholder && n.extra.is_object() && n.extra.contains(key);
}

Subgraph subgraph(Op& op, const std::string& attr) {
  const auto& extra = op.node().extra;
  if (!extra.is_object() || !extra.contains("subgraphs") || !extra["subgraphs"].contains(attr))
    op.bad_input("attribute '" + attr + "' (a graph) is missing");
  Expected<Graph> g = read_graph(extra["subgraphs"][attr].dump());
  if (!g) op.bad_input("attribute '" + attr + "' is not a graph: " + g.error());
  Subgraph s{attr, std::move(g.value()), {}, {}};
  for (const Node& n : s.graph.nodes) {
    if (flagged(n, "formal")) s.formals.push_back(n.name);
    if (flagged(n, "outer")) s.outer.push_back(n.name);
  }
  return s;
}

// Propagates the subgraph with these values for its formal inputs; its outputs.
std::vector<Value> run(Op& op, const Subgraph& s, const std::vector<Value>& formals) {
  const std::string what = std::string(op.op_type()) + " " + s.attr;
  if (formals.size() != s.formals.size()) {
    op.bad_input(what + " has " + std::to_string(s.formals.size()) + " inputs, " +
                 std::string(op.op_type()) + " gives it " + std::to_string(formals.size()));
  }
  PropagateOptions options;
  options.registry = &registry();
  for (size_t i = 0; i < formals.size(); ++i) options.inputs[s.formals[i]] = formals[i];
  for (const std::string& name : s.outer) options.inputs[name] = op.ctx().value_of(Arg::node(name));
  Propagation p = propagate(s.graph, op.ctx().env(), options);
  if (!p.ok()) {
    const std::string message = "in " + what + ": " + p.error;
    if (p.status == Propagation::Status::InputError) op.bad_input(message);
    op.fail(message);
  }
  if (p.values.empty() || p.values.back().kind != Value::Kind::List)
    op.bad_input(what + " has no outputs");
  return p.values.back().items;
}

// The node's outputs: a list, or the one value when it has one.
Value outputs(Op& op, std::vector<Value> values) {
  const size_t n = op.num_outputs();
  if (n != values.size()) {
    op.bad_input("has " + std::to_string(n) + " outputs, its subgraph computes " +
                 std::to_string(values.size()));
  }
  if (n == 1) return values[0];
  return Value::list(std::move(values));
}

const TensorMeta& tensor_output(Op& op, const Value& v, const std::string& what) {
  if (!v.is_tensor()) {
    op.bad_input(what + " is not a tensor (sequences and optionals are not supported): " + v.str());
  }
  return v.tensor;
}

// A tensor value in a single element (a condition, a trip count): its known element.
std::optional<Expr> known_scalar(Op& op, size_t i) {
  std::optional<std::vector<Expr>> e = op.ints(i);
  if (!e || e->size() != 1) return std::nullopt;
  return op.ctx().simplify((*e)[0]);
}

// Whether a known element is statically nonzero (true), zero (false), or not known.
std::optional<bool> known_truth(Op& op, const Value& v) {
  if (!v.is_tensor() || !v.data || v.data->real || v.data->ints.size() != 1) return std::nullopt;
  Truth t = op.ctx().known(Cond::rel(RelOp::Ne, v.data->ints[0], Expr(0)));
  if (t == Truth::Unknown) return std::nullopt;
  return t == Truth::True;
}

// ---- If ----

// One output of the two branches: they must agree in dtype and rank; a size that may differ is
// a data-dependent size that is one of the two.
Value merge_branches(Op& op, size_t k, const Value& a, const Value& b) {
  const std::string what = "output " + std::to_string(k);
  const TensorMeta& x = tensor_output(op, a, "then_branch's " + what);
  const TensorMeta& y = tensor_output(op, b, "else_branch's " + what);
  if (x.dtype != y.dtype) {
    op.fail(what + " is " + std::string(to_string(x.dtype)) + " in then_branch and " +
            std::string(to_string(y.dtype)) + " in else_branch");
  }
  if (x.rank() != y.rank()) {
    op.fail(what + " has rank " + std::to_string(x.rank()) + " in then_branch (" + x.str() +
            ") and " + std::to_string(y.rank()) + " in else_branch (" + y.str() +
            "); symshape needs the rank");
  }
  std::vector<Expr> sizes;
  bool same = true;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (op.ctx().known(Cond::rel(RelOp::Eq, x.sizes[d], y.sizes[d])) == Truth::True) {
      sizes.push_back(x.sizes[d]);
      continue;
    }
    same = false;
    const Expr p = op.ctx().simplify(x.sizes[d]), q = op.ctx().simplify(y.sizes[d]);
    ValueRange range = op.ctx().bound(p).hull(op.ctx().bound(q)).intersect(ValueRange::at_least(0));
    Expr u = op.ctx().new_unbacked_size(range);
    op.ctx().assert_runtime(Cond::any({Cond::rel(RelOp::Eq, u, p), Cond::rel(RelOp::Eq, u, q)}),
                            "if_branches");
    sizes.push_back(u);
  }
  Value out = tensor_value(x.dtype, sizes);
  // Elements known and equal in both branches stay known.
  if (same && a.data && b.data && !a.data->real && !b.data->real &&
      a.data->ints.size() == b.data->ints.size()) {
    bool equal = true;
    for (size_t i = 0; equal && i < a.data->ints.size(); ++i)
      equal = op.ctx().known(Cond::rel(RelOp::Eq, a.data->ints[i], b.data->ints[i])) == Truth::True;
    if (equal) out.data = a.data;
  }
  return out;
}

Value if_rule(Op& op) {
  const TensorMeta cond = op.tensor(0);
  ops::require(op.ctx(), Cond::rel(RelOp::Eq, cond.numel(), Expr(1)), "if",
               [&] { return "cond must hold one element, got " + cond.str(); });
  const Subgraph then_branch = subgraph(op, "then_branch");
  const Subgraph else_branch = subgraph(op, "else_branch");
  // A condition known while shapes are computed (a comparison of sizes) takes one branch: known
  // statically, or decided with a guard when it involves no data-dependent value.
  if (std::optional<Expr> c = known_scalar(op, 0)) {
    const Cond taken = Cond::rel(RelOp::Ne, *c, Expr(0));
    std::optional<bool> which;
    if (Truth t = op.ctx().known(taken); t != Truth::Unknown) {
      which = t == Truth::True;
    } else if (!op.ctx().is_data_dependent(taken)) {
      which = op.ctx().decide(taken, "if_condition");
    }
    if (which) return outputs(op, run(op, *which ? then_branch : else_branch, {}));
  }
  const std::vector<Value> a = run(op, then_branch, {});
  const std::vector<Value> b = run(op, else_branch, {});
  if (a.size() != b.size()) {
    op.bad_input("then_branch has " + std::to_string(a.size()) + " outputs, else_branch " +
                 std::to_string(b.size()));
  }
  std::vector<Value> merged;
  for (size_t k = 0; k < a.size(); ++k) merged.push_back(merge_branches(op, k, a[k], b[k]));
  return outputs(op, std::move(merged));
}

// ---- Loop and Scan ----

// A body run until its loop-carried values keep their shapes: a size that changes from one
// iteration to the next becomes a data-dependent size (for the body's input and the final value).
struct Iteration {
  std::vector<Value> outs;        // the body's outputs on the last run
  std::vector<Value> finals;      // the final loop-carried values
  std::set<std::string> varying;  // the data-dependent sizes standing for changing ones
};

Iteration iterate(Op& op, const Subgraph& body, const std::vector<Value>& before,
                  const std::vector<Value>& carried, const std::vector<Value>& after,
                  size_t out_offset) {
  Iteration it;
  std::vector<TensorMeta> in;
  for (size_t i = 0; i < carried.size(); ++i)
    in.push_back(tensor_output(op, carried[i], "loop-carried value " + std::to_string(i)));
  std::vector<std::vector<bool>> varying(in.size());
  for (size_t i = 0; i < in.size(); ++i) varying[i].assign(in[i].rank(), false);
  for (;;) {
    std::vector<Value> formals = before;
    for (const TensorMeta& t : in) formals.push_back(Value::of(t));
    formals.insert(formals.end(), after.begin(), after.end());
    it.outs = run(op, body, formals);
    if (it.outs.size() < out_offset + in.size()) {
      op.bad_input("body has " + std::to_string(it.outs.size()) + " outputs, needs at least " +
                   std::to_string(out_offset + in.size()));
    }
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      const std::string what = "loop-carried value " + std::to_string(i);
      const TensorMeta& out = tensor_output(op, it.outs[out_offset + i], "body's " + what);
      if (out.dtype != in[i].dtype) {
        op.fail(what + " is " + std::string(to_string(in[i].dtype)) + " before the loop and " +
                std::string(to_string(out.dtype)) + " after an iteration");
      }
      if (out.rank() != in[i].rank()) {
        op.fail(what + " changes rank across an iteration: " + in[i].str() + " becomes " +
                out.str());
      }
      for (size_t d = 0; d < out.rank(); ++d) {
        if (varying[i][d]) continue;
        if (op.ctx().known(Cond::rel(RelOp::Eq, out.sizes[d], in[i].sizes[d])) == Truth::True)
          continue;
        varying[i][d] = true;
        in[i].sizes[d] = op.ctx().new_unbacked_size();
        it.varying.insert(in[i].sizes[d].symbol_name());
        changed = true;
      }
      in[i].strides.clear();
    }
    if (!changed) break;
  }
  for (size_t i = 0; i < in.size(); ++i) {
    TensorMeta t = in[i];
    // A changing size after the last iteration: another data-dependent size.
    for (size_t d = 0; d < t.rank(); ++d)
      if (varying[i][d]) t.sizes[d] = op.ctx().new_unbacked_size();
    it.finals.push_back(Value::of(ops::contiguous(t.dtype, t.sizes)));
  }
  return it;
}

// A scan output: the per-iteration value stacked along a new axis of length count at axis.
Value stacked(Op& op, const Iteration& it, const Value& v, size_t k, const Expr& count,
              int64_t axis) {
  const TensorMeta& t = tensor_output(op, v, "scan output " + std::to_string(k));
  std::vector<Expr> sizes;
  for (const Expr& e : t.sizes) {
    bool varies = false;
    for (const std::string& s : e.free_symbols()) varies |= it.varying.count(s) > 0;
    // A size that follows a changing loop-carried size: the same in every iteration (ONNX stacks
    // them) but not known here.
    sizes.push_back(varies ? op.ctx().new_unbacked_size() : e);
  }
  const size_t a = op.axis(axis, t.rank() + 1, "scan_output_axes entry");
  sizes.insert(sizes.begin() + static_cast<long>(a), count);
  return tensor_value(t.dtype, sizes);
}

// Whether the body's condition output is its condition input passed through (directly or by
// Identity nodes): the loop then runs until the trip count.
bool passes_condition_through(const Subgraph& body) {
  if (body.formals.size() < 2 || body.graph.nodes.empty()) return false;
  const Node& out = body.graph.nodes.back();
  if (out.op != NodeOp::Output || out.args.empty() || out.args[0].kind != Arg::Kind::List ||
      out.args[0].items.empty() || out.args[0].items[0].kind != Arg::Kind::Node)
    return false;
  std::string name = out.args[0].items[0].text;
  for (size_t hops = 0; hops <= body.graph.nodes.size(); ++hops) {
    if (name == body.formals[1]) return true;
    const Node* n = body.graph.find(name);
    if (!n || n->target != "onnx.Identity" || n->args.empty() || n->args[0].kind != Arg::Kind::Node)
      return false;
    name = n->args[0].text;
  }
  return false;
}

Value loop_rule(Op& op) {
  const Subgraph body = subgraph(op, "body");
  const size_t n = op.num_inputs() < 2 ? 0 : op.num_inputs() - 2;
  std::vector<Value> carried;
  for (size_t i = 0; i < n; ++i) carried.push_back(op.input(2 + i));
  // The trip count: M when the loop has no condition (or one known to stay true), at most M
  // otherwise, unknown without M.
  std::optional<Expr> m;
  if (op.has_input(0)) {
    const TensorMeta t = op.tensor(0);
    if (t.rank() > 1) op.bad_input("M must be a scalar, got " + t.str());
    m = known_scalar(op, 0);
  }
  std::optional<bool> initial = true;
  if (op.has_input(1)) initial = known_truth(op, op.input(1));
  // The body runs only while the condition holds: its condition input is true.
  const Value iteration = tensor_value(DType::Int64, {});
  const Value holds = int_tensor(DType::Bool, {}, {Expr(1)});
  Iteration it = iterate(op, body, {iteration, holds}, carried, {}, 1);
  std::optional<bool> stays = known_truth(op, it.outs[0]);
  if (!stays && passes_condition_through(body)) stays = true;
  Expr count;
  if (initial && !*initial) {
    count = Expr(0);
  } else if (m && (!op.has_input(1) || (initial && stays && *stays))) {
    count = *m;
  } else if (m) {
    const Expr bound = *m;
    if (std::optional<Int> c = bound.constant()) {
      count = op.ctx().new_unbacked_size(ValueRange::closed(Int(0), *c < 0 ? Int(0) : *c));
    } else {
      count = op.ctx().new_unbacked_size();
      op.ctx().assert_runtime(Cond::rel(RelOp::Le, count, bound), "loop_trip_count");
    }
  } else {
    count = op.ctx().new_unbacked_size();
  }
  std::vector<Value> out = it.finals;
  for (size_t k = 1 + n; k < it.outs.size(); ++k)
    out.push_back(stacked(op, it, it.outs[k], k - 1 - n, count, 0));
  return outputs(op, std::move(out));
}

// Scan: opset 9 on, the state values and scan inputs as they are, each scan input along its
// scan_input_axes entry; opset 8 has a leading input sequence_lens and a batch dim (0) on every
// input and output, the sequence along dim 1.
Value scan_rule(Op& op) {
  const bool batched = op.opset() < 9;
  const size_t first = batched ? 1 : 0;  // opset 8: input 0 is sequence_lens (optional)
  const Subgraph body = subgraph(op, "body");
  std::optional<int64_t> m_attr = op.optional_attr_int("num_scan_inputs");
  if (!m_attr) op.bad_input("attribute 'num_scan_inputs' is required");
  if (*m_attr < 1 || static_cast<size_t>(*m_attr) + first > op.num_inputs()) {
    op.bad_input("num_scan_inputs is " + std::to_string(*m_attr) + " for " +
                 std::to_string(op.num_inputs()) + " inputs");
  }
  const auto m = static_cast<size_t>(*m_attr);
  const size_t n = op.num_inputs() - first - m;
  std::vector<int64_t> in_axes = batched ? std::vector<int64_t>{} : op.attr_ints("scan_input_axes");
  if (in_axes.empty()) in_axes.assign(m, batched ? 1 : 0);
  if (in_axes.size() != m) {
    op.bad_input("scan_input_axes has " + std::to_string(in_axes.size()) + " entries for " +
                 std::to_string(m) + " scan inputs");
  }
  // Opset 8's batch dim: the same on every input, and dropped for the body.
  std::optional<Expr> batch;
  auto unbatch = [&](const TensorMeta& t, const std::string& what) {
    if (!batched) return t;
    if (t.rank() == 0) op.bad_input(what + " has no batch dim: " + t.str());
    if (!batch) {
      batch = t.sizes[0];
    } else {
      const Expr b = *batch;
      op.ctx().require_equal(t.sizes[0], b, "scan", [&] {
        return what + " " + t.str() + " has batch size " + t.sizes[0].str() + ", not " + b.str();
      });
    }
    TensorMeta out = t;
    out.sizes.erase(out.sizes.begin());
    out.strides.clear();
    return out;
  };
  std::vector<Value> carried, elements;
  for (size_t i = 0; i < n; ++i) {
    carried.push_back(Value::of(unbatch(op.tensor(first + i), "state input " + std::to_string(i))));
  }
  std::optional<Expr> length;
  for (size_t j = 0; j < m; ++j) {
    const std::string what = "scan input " + std::to_string(j);
    const TensorMeta t = unbatch(op.tensor(first + n + j), what);
    if (t.rank() == 0) op.bad_input(what + " has no scan axis");
    const size_t a = batched ? 0 : op.axis(in_axes[j], t.rank(), "scan_input_axes entry");
    if (!length) {
      length = t.sizes[a];
    } else {
      const Expr l = *length;
      op.ctx().require_equal(t.sizes[a], l, "scan", [&] {
        return what + " " + t.str() + " has " + t.sizes[a].str() +
               " elements along its scan axis, scan input 0 has " + l.str();
      });
    }
    std::vector<Expr> sizes = t.sizes;
    sizes.erase(sizes.begin() + static_cast<long>(a));
    elements.push_back(tensor_value(t.dtype, sizes));
  }
  Iteration it = iterate(op, body, {}, carried, elements, 0);
  const size_t k_count = it.outs.size() - n;
  std::vector<int64_t> out_axes =
      batched ? std::vector<int64_t>{} : op.attr_ints("scan_output_axes");
  if (out_axes.empty()) out_axes.assign(k_count, 0);
  if (out_axes.size() != k_count) {
    op.bad_input("scan_output_axes has " + std::to_string(out_axes.size()) + " entries for " +
                 std::to_string(k_count) + " scan outputs");
  }
  std::vector<Value> out = it.finals;
  for (size_t k = 0; k < k_count; ++k)
    out.push_back(stacked(op, it, it.outs[n + k], k, *length, out_axes[k]));
  if (batched) {
    // Without any input there is no batch size: an opset-8 Scan has at least one scan input.
    for (Value& v : out) {
      v.tensor.sizes.insert(v.tensor.sizes.begin(), *batch);
      v = Value::of(ops::contiguous(v.tensor.dtype, v.tensor.sizes));
    }
  }
  return outputs(op, std::move(out));
}

}  // namespace

void add_control_flow_rules(OpRegistry& r) {
  add(r, "If", if_rule);
  add(r, "Loop", loop_rule);
  add(r, "Scan", scan_rule);
}

}  // namespace symshape::onnx
