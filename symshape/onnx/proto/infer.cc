// Writing inferred shapes back into an ONNX model.
#include <onnx/onnx_pb.h>

#include <map>
#include <set>

#include "symshape/onnx.h"
#include "symshape/onnx/rules.h"

namespace symshape::onnx {

namespace {

// The dim_param a symbolic size is written as: an input's own name for a bare symbol, else the
// expression over those names.
class DimNames {
 public:
  explicit DimNames(const Graph& graph) {
    if (!is_onnx_graph(graph)) return;
    const auto& info = graph.extra["onnx"];
    if (!info.contains("dim_params")) return;
    for (const auto& [symbol, param] : info["dim_params"].items()) {
      if (param.is_string() && param.get<std::string>() != symbol)
        renames_.emplace(symbol, Expr::symbol(param.get<std::string>()));
    }
  }
  std::string operator()(const Expr& e) const {
    return renames_.empty() ? e.str() : e.subs(renames_).str();
  }

 private:
  std::map<std::string, Expr> renames_;
};

void write_type(::onnx::TypeProto* type, const TensorMeta& t, ShapeEnv& env,
                const DimNames& names) {
  auto* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(elem_type_of(t.dtype));
  auto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (const Expr& size : t.sizes) {
    const Expr e = env.simplify(size);
    auto* dim = shape->add_dim();
    if (std::optional<int64_t> c = e.as_int64()) {
      dim->set_dim_value(*c);
    } else {
      dim->set_dim_param(names(e));
    }
  }
}

}  // namespace

Expected<std::string> write_inferred(std::string_view bytes, const Graph& graph,
                                     const Propagation& propagation, ShapeEnv& env) {
  ::onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Expected<std::string>::failure("not an ONNX model (the protobuf does not parse)");
  }
  if (!propagation.ok()) return Expected<std::string>::failure(propagation.error);
  const DimNames names(graph);
  auto tensor_of = [&](const std::string& name) -> const TensorMeta* {
    const size_t k = graph.index_of(name);
    if (k >= propagation.values.size() || !propagation.values[k].is_tensor()) return nullptr;
    return &propagation.values[k].tensor;
  };
  auto* g = model.mutable_graph();
  std::set<std::string> outputs, inputs;
  for (const auto& i : g->input()) inputs.insert(i.name());
  // A graph input's dim with neither value nor name gets the name symshape gave it (or the
  // value a guard fixed), so that the expressions below read the input's own names.
  for (auto& i : *g->mutable_input()) {
    const Node* p = graph.find(i.name());
    if (!p || p->op != NodeOp::Placeholder || !p->shape) continue;
    if (!i.has_type() || !i.type().has_tensor_type() || !i.type().tensor_type().has_shape())
      continue;
    auto* shape = i.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (static_cast<size_t>(shape->dim_size()) != p->shape->size()) continue;
    for (int d = 0; d < shape->dim_size(); ++d) {
      auto* dim = shape->mutable_dim(d);
      if (dim->has_dim_value() || (dim->has_dim_param() && !dim->dim_param().empty())) continue;
      const Expr e = env.simplify((*p->shape)[static_cast<size_t>(d)]);
      if (std::optional<int64_t> c = e.as_int64()) {
        dim->set_dim_value(*c);
      } else {
        dim->set_dim_param(names(e));
      }
    }
  }
  for (const auto& i : g->initializer()) inputs.insert(i.name());
  for (auto& o : *g->mutable_output()) {
    outputs.insert(o.name());
    if (const TensorMeta* t = tensor_of(o.name())) write_type(o.mutable_type(), *t, env, names);
  }
  std::map<std::string, ::onnx::ValueInfoProto*> info;
  for (auto& v : *g->mutable_value_info()) info[v.name()] = &v;
  for (const auto& node : g->node()) {
    for (const std::string& out : node.output()) {
      if (out.empty() || outputs.count(out) || inputs.count(out)) continue;
      const TensorMeta* t = tensor_of(out);
      if (!t) continue;
      auto it = info.find(out);
      ::onnx::ValueInfoProto* v = it != info.end() ? it->second : g->add_value_info();
      v->set_name(out);
      info[out] = v;
      write_type(v->mutable_type(), *t, env, names);
    }
  }
  std::string out;
  if (!model.SerializeToString(&out))
    return Expected<std::string>::failure("the model does not serialize");
  return out;
}

}  // namespace symshape::onnx
