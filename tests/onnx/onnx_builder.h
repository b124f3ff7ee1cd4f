// Building small ONNX models in tests, and reading back what symshape infers for them.
//
//   ModelBuilder m(17);
//   m.input("x", 1, {"N", "3", "H", "W"})        // elem type 1 = float; a name is a dim_param
//       .ints("axes", {0})                        // an int64 initializer
//       .node("Conv", {"x", "w"}, {"y"}, {attr_ints("pads", {1, 1, 1, 1})})
//       .output("y");
//   Inferred r = infer(m.bytes());
//   EXPECT_EQ(r.shape("y"), "float32[N, 8, H, W]");
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <vector>

#include "symshape/ir/utf8.h"
#include "symshape/onnx.h"
#include "symshape/onnx/rules.h"
#include "symshape/propagate.h"

namespace symshape::onnx::testing {

inline ::onnx::AttributeProto attr_int(const std::string& name, int64_t v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
inline ::onnx::AttributeProto attr_ints(const std::string& name, std::vector<int64_t> v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}
inline ::onnx::AttributeProto attr_float(const std::string& name, float v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
inline ::onnx::AttributeProto attr_floats(const std::string& name, std::vector<float> v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::FLOATS);
  for (float x : v) a.add_floats(x);
  return a;
}
inline ::onnx::AttributeProto attr_string(const std::string& name, const std::string& v) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
inline ::onnx::AttributeProto attr_graph(const std::string& name, const ::onnx::GraphProto& g) {
  ::onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(::onnx::AttributeProto::GRAPH);
  *a.mutable_g() = g;
  return a;
}

// A value's type: elem type and dims, each a number ("3") or a dim_param ("N"); "?" for a dim
// with neither.
inline void set_type(::onnx::ValueInfoProto* v, int elem_type,
                     const std::vector<std::string>& dims) {
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (d == "?") continue;
    if (!d.empty() && (std::isdigit(static_cast<unsigned char>(d[0])) != 0)) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

// Builds a GraphProto (the main graph, or a subgraph for If / Loop / Scan).
class GraphBuilder {
 public:
  GraphBuilder& input(const std::string& name, int elem_type,
                      const std::vector<std::string>& dims) {
    set_type(graph.add_input(), elem_type, dims);
    graph.mutable_input(graph.input_size() - 1)->set_name(name);
    return *this;
  }
  // An input without type information (a Loop body's, say).
  GraphBuilder& untyped_input(const std::string& name) {
    graph.add_input()->set_name(name);
    return *this;
  }
  // An int64 initializer with these values (1-D unless dims are given).
  GraphBuilder& ints(const std::string& name, const std::vector<int64_t>& values,
                     std::vector<int64_t> dims = {-1}) {
    auto* t = graph.add_initializer();
    t->set_name(name);
    t->set_data_type(7);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  // A float initializer with these values (1-D unless dims are given).
  GraphBuilder& floats(const std::string& name, const std::vector<float>& values,
                       std::vector<int64_t> dims = {-1}) {
    auto* t = graph.add_initializer();
    t->set_name(name);
    t->set_data_type(1);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  // A float initializer of these dims whose values do not matter (weights): zeros.
  GraphBuilder& weight(const std::string& name, const std::vector<int64_t>& dims,
                       int elem_type = 1) {
    auto* t = graph.add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    size_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= static_cast<size_t>(d);
    }
    const std::optional<DType> d = dtype_of_elem_type(elem_type);
    t->set_raw_data(std::string(n * static_cast<size_t>(d ? item_size(*d) : 1), '\0'));
    return *this;
  }
  GraphBuilder& node(const std::string& op_type, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs,
                     const std::vector<::onnx::AttributeProto>& attributes = {},
                     const std::string& domain = "") {
    auto* n = graph.add_node();
    n->set_op_type(op_type);
    n->set_domain(domain);
    n->set_name(op_type + "_" + std::to_string(graph.node_size()));
    for (const std::string& i : inputs) n->add_input(i);
    for (const std::string& o : outputs) n->add_output(o);
    for (const auto& a : attributes) *n->add_attribute() = a;
    return *this;
  }
  GraphBuilder& output(const std::string& name) {
    graph.add_output()->set_name(name);
    return *this;
  }
  GraphBuilder& output(const std::string& name, int elem_type,
                       const std::vector<std::string>& dims) {
    set_type(graph.add_output(), elem_type, dims);
    graph.mutable_output(graph.output_size() - 1)->set_name(name);
    return *this;
  }

  ::onnx::GraphProto graph;
};

class ModelBuilder : public GraphBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17, int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  std::string bytes() const {
    ::onnx::ModelProto m = model_;
    *m.mutable_graph() = graph;
    m.mutable_graph()->set_name("test");
    std::string out;
    m.SerializeToString(&out);
    return out;
  }

 private:
  ::onnx::ModelProto model_;
};

// A model read and propagated.
struct Inferred {
  Graph graph;
  // As the CLI reads a model: its dims' hints are guesses.
  std::unique_ptr<ShapeEnv> env = std::make_unique<ShapeEnv>(guessed_hints());
  static ShapeEnvOptions guessed_hints() {
    ShapeEnvOptions o;
    o.hints_are_guesses = true;
    return o;
  }
  Propagation result;
  std::string import_error;  // when the model did not import

  bool ok() const { return import_error.empty() && result.ok(); }
  std::string error() const { return import_error.empty() ? result.error : import_error; }
  const Value& value(const std::string& name) const {
    static const Value none;
    const size_t k = graph.index_of(name);
    return k < result.values.size() ? result.values[k] : none;
  }
  // "float32[N, 8, H, W]" with the sizes under the env's final replacements.
  std::string shape(const std::string& name) const {
    const Value& v = value(name);
    if (!v.is_tensor()) return v.str();
    TensorMeta t = v.tensor;
    for (Expr& e : t.sizes) e = env->simplify(e);
    return t.str();
  }
  // The value's known elements, "[N, 3]", or "unknown".
  std::string data(const std::string& name) const {
    const Value& v = value(name);
    if (!v.data) return "unknown";
    std::string out = "[";
    for (size_t i = 0; i < v.data->size(); ++i) {
      if (i) out += ", ";
      out += v.data->real ? std::to_string(v.data->reals[i]) : env->simplify(v.data->ints[i]).str();
    }
    return out + "]";
  }
};

inline Inferred infer(const std::string& bytes, const PropagateOptions& base = {}) {
  Inferred r;
  Expected<Graph> g = read_model(bytes, "<test model>");
  if (!g) {
    r.import_error = g.error();
    return r;
  }
  r.graph = std::move(*g);
  PropagateOptions options = base;
  options.registry = &registry();
  r.result = propagate(r.graph, *r.env, options);
  return r;
}

// Whether text is well-formed UTF-8 (what Python's strict codec and JSON readers accept).
inline bool is_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    size_t length = ::symshape::detail::utf8_sequence(text, i, cp);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

}  // namespace symshape::onnx::testing
