// Reading an ONNX ModelProto into the graph IR (onnx.h says what it becomes).
#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "symshape/ir/utf8.h"
#include "symshape/onnx.h"
#include "symshape/onnx/rules.h"

namespace symshape::onnx {

bool import_available() { return true; }

namespace {

using json = nlohmann::ordered_json;

std::string domain_prefix(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" ? "onnx" : domain;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A number read from a TensorProto's storage, as JSON.
class TensorReader {
 public:
  TensorReader(const ::onnx::TensorProto& t, const std::string& what) : t_(t), what_(what) {}

  // The elements as a flat JSON array; nullopt when absent (external data) or too many.
  std::optional<json> flat(size_t limit) const {
    const int type = t_.data_type();
    const std::optional<DType> d = dtype_of_elem_type(type);
    if (!d || is_complex(*d)) return std::nullopt;
    if (t_.data_location() == ::onnx::TensorProto::EXTERNAL) return std::nullopt;
    const size_t n = numel();
    if (n > limit) return std::nullopt;
    json out = json::array();
    const bool raw = t_.has_raw_data();
    const std::string& bytes = t_.raw_data();
    if (raw && bytes.size() != n * static_cast<size_t>(item_size(*d))) {
      throw Error(what_ + ": raw_data holds " + std::to_string(bytes.size()) + " bytes, " +
                  std::to_string(n) + " elements of " + std::string(to_string(*d)) + " need " +
                  std::to_string(n * static_cast<size_t>(item_size(*d))));
    }
    auto raw_at = [&](size_t i, auto zero) {
      decltype(zero) v;
      std::memcpy(&v, bytes.data() + i * sizeof(v), sizeof(v));
      return v;
    };
    auto expect = [&](int have) {
      if (static_cast<size_t>(have) != n) {
        throw Error(what_ + ": holds " + std::to_string(have) + " values for " + std::to_string(n) +
                    " elements");
      }
    };
    switch (*d) {
      case DType::Float32:
        if (raw) {
          for (size_t i = 0; i < n; ++i) out.push_back(raw_at(i, float{}));
        } else {
          expect(t_.float_data_size());
          for (float v : t_.float_data()) out.push_back(v);
        }
        break;
      case DType::Float64:
        if (raw) {
          for (size_t i = 0; i < n; ++i) out.push_back(raw_at(i, double{}));
        } else {
          expect(t_.double_data_size());
          for (double v : t_.double_data()) out.push_back(v);
        }
        break;
      case DType::Int64:
        if (raw) {
          for (size_t i = 0; i < n; ++i) out.push_back(raw_at(i, int64_t{}));
        } else {
          expect(t_.int64_data_size());
          for (int64_t v : t_.int64_data()) out.push_back(v);
        }
        break;
      case DType::Float16:
      case DType::BFloat16: return std::nullopt;  // only their shapes matter here
      case DType::Bool:
      case DType::UInt8:
      case DType::Int8:
      case DType::Int16:
      case DType::Int32: {
        const size_t size = static_cast<size_t>(item_size(*d));
        if (!raw) expect(t_.int32_data_size());
        for (size_t i = 0; i < n; ++i) {
          int64_t v = 0;
          if (!raw) {
            v = t_.int32_data(static_cast<int>(i));
          } else if (size == 1) {
            v = *d == DType::Int8 ? static_cast<int64_t>(static_cast<int8_t>(bytes[i]))
                                  : static_cast<int64_t>(static_cast<uint8_t>(bytes[i]));
          } else if (size == 2) {
            v = raw_at(i, int16_t{});
          } else {
            v = raw_at(i, int32_t{});
          }
          if (*d == DType::Bool) {
            out.push_back(v != 0);
          } else {
            out.push_back(v);
          }
        }
        break;
      }
      default: return std::nullopt;
    }
    return out;
  }

  size_t numel() const {
    size_t n = 1;
    for (int64_t d : t_.dims()) {
      if (d < 0) throw Error(what_ + ": negative dim " + std::to_string(d));
      if (d > 0 && n > (size_t{1} << 62) / static_cast<size_t>(d))
        throw Error(what_ + ": too many elements");
      n *= static_cast<size_t>(d);
    }
    return n;
  }

 private:
  const ::onnx::TensorProto& t_;
  std::string what_;
};

// Nests a flat array into lists of the given sizes (row-major).
json nest(const json& flat, const std::vector<int64_t>& dims, size_t axis, size_t& pos) {
  if (axis == dims.size()) return flat[pos++];
  json out = json::array();
  for (int64_t i = 0; i < dims[axis]; ++i) out.push_back(nest(flat, dims, axis + 1, pos));
  return out;
}

class Importer {
 public:
  Importer(const ImportOptions& options, std::string origin)
      : options_(options), origin_(std::move(origin)) {}

  Graph run(const ::onnx::ModelProto& model) {
    for (const auto& o : model.opset_import()) opsets_[domain_prefix(o.domain())] = o.version();
    if (!model.has_graph()) throw Error(origin_ + ": the model has no graph");
    Graph g = import_graph(model.graph(), /*top=*/true);
    json info = json::object();
    info["ir_version"] = model.ir_version();
    json opsets = json::object();
    for (const auto& [domain, version] : opsets_) opsets[domain] = version;
    info["opset_import"] = opsets;
    if (!model.producer_name().empty()) info["producer"] = model.producer_name();
    if (!dim_params_.empty()) {
      json params = json::object();
      for (const auto& [param, symbol] : dim_params_) params[symbol] = param;
      info["dim_params"] = params;
    }
    g.extra = json::object();
    g.extra["onnx"] = info;
    for (const auto& [param, symbol] : dim_params_) g.dims.emplace_back(symbol, DimDecl{});
    return g;
  }

 private:
  Graph import_graph(const ::onnx::GraphProto& graph, bool top) {
    Graph g;
    std::set<std::string> defined;
    std::set<std::string> initializers;
    for (const auto& init : graph.initializer()) initializers.insert(init.name());

    for (const auto& input : graph.input()) {
      if (initializers.count(input.name())) continue;  // an initializer gives its value
      g.nodes.push_back(placeholder(input, top));
      defined.insert(input.name());
    }
    for (const auto& init : graph.initializer()) {
      g.nodes.push_back(constant_node(init.name(), init, "initializer " + quote(init.name())));
      defined.insert(init.name());
    }
    std::vector<std::string> outer;  // a subgraph's names from its enclosing graphs
    for (int k = 0; k < graph.node_size(); ++k)
      import_node(graph.node(k), k, g, defined, outer, top);

    Node out;
    out.op = NodeOp::Output;
    out.name = unique_name("output", defined);
    std::vector<Arg> results;
    for (const auto& o : graph.output()) {
      if (!defined.count(o.name())) {
        if (top) throw Error(origin_ + ": graph output " + quote(o.name()) + " is never computed");
        note_outer(o.name(), defined, outer);
      }
      results.push_back(Arg::node(o.name()));
      declare_output(g, o);
    }
    out.args.push_back(Arg::list(std::move(results)));
    g.nodes.push_back(std::move(out));

    // Names a subgraph reads from outside become placeholders its rule gives values to.
    std::vector<Node> captured;
    for (const std::string& name : outer) {
      Node p;
      p.op = NodeOp::Placeholder;
      p.name = name;
      p.dtype = DType::Float32;
      p.shape = std::vector<Expr>{};
      p.extra = json::object({{"outer", true}});
      captured.push_back(std::move(p));
    }
    g.nodes.insert(g.nodes.begin(), captured.begin(), captured.end());
    return g;
  }

  static std::string quote(const std::string& s) { return "'" + s + "'"; }

  std::string unique_name(const std::string& base, const std::set<std::string>& defined) {
    std::string name = base;
    for (int k = 1; defined.count(name) || reserved_.count(name); ++k)
      name = base + "_" + std::to_string(k);
    reserved_.insert(name);
    return name;
  }

  void note_outer(const std::string& name, std::set<std::string>& defined,
                  std::vector<std::string>& outer) {
    defined.insert(name);
    outer.push_back(name);
  }

  std::string symbol_for(const std::string& param) {
    auto it = dim_params_.find(param);
    if (it != dim_params_.end()) return it->second;
    std::string name = param;
    if (!is_identifier(name)) {
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "d_" + name;
    }
    std::string base = name;
    for (int k = 1; used_symbols_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_symbols_.insert(name);
    dim_params_.emplace(param, name);
    return name;
  }

  std::vector<Expr> shape_of(const ::onnx::TensorShapeProto& shape, const std::string& value) {
    std::vector<Expr> sizes;
    for (int d = 0; d < shape.dim_size(); ++d) {
      const auto& dim = shape.dim(d);
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        sizes.emplace_back(static_cast<long long>(dim.dim_value()));
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        sizes.push_back(Expr::symbol(symbol_for(dim.dim_param())));
      } else {
        // Neither value nor name: a size of its own.
        sizes.push_back(Expr::symbol(symbol_for(value + "_dim" + std::to_string(d))));
      }
    }
    return sizes;
  }

  Node placeholder(const ::onnx::ValueInfoProto& input, bool top) {
    Node p;
    p.op = NodeOp::Placeholder;
    p.name = input.name();
    const std::string what = "graph input " + quote(input.name());
    if (!input.has_type() || !input.type().has_tensor_type()) {
      if (top)
        throw Error(origin_ + ": " + what +
                    " is not a tensor (sequences, maps and optionals are not supported)");
      // A subgraph's input: its control-flow rule gives the value.
      p.dtype = DType::Float32;
      p.shape = std::vector<Expr>{};
      p.extra = json::object({{"formal", true}});
      return p;
    }
    const auto& t = input.type().tensor_type();
    std::optional<DType> d = dtype_of_elem_type(t.elem_type());
    if (!t.has_shape() || !d) {
      if (top) {
        throw Error(origin_ + ": " + what +
                    (d ? " has no shape (symshape needs the rank of every graph input)"
                       : " has element type " + std::to_string(t.elem_type()) +
                             ", which symshape has no dtype for"));
      }
      p.dtype = d.value_or(DType::Float32);
      p.shape = std::vector<Expr>{};
      p.extra = json::object({{"formal", true}});
      return p;
    }
    p.dtype = *d;
    p.shape = shape_of(t.shape(), input.name());
    if (!top) p.extra = json::object({{"formal", true}});
    return p;
  }

  Node constant_node(const std::string& name, const ::onnx::TensorProto& t,
                     const std::string& what) {
    Node n;
    n.op = NodeOp::GetAttr;
    n.name = name;
    n.target = name;
    std::optional<DType> d = dtype_of_elem_type(t.data_type());
    if (!d) {
      throw Error(origin_ + ": " + what + " has element type " + std::to_string(t.data_type()) +
                  ", which symshape has no dtype for");
    }
    n.dtype = *d;
    std::vector<Expr> shape;
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    for (int64_t s : dims) {
      if (s < 0) throw Error(origin_ + ": " + what + " has negative dim " + std::to_string(s));
      shape.emplace_back(static_cast<long long>(s));
    }
    n.shape = shape;
    TensorReader reader(t, origin_ + ": " + what);
    const size_t limit = is_floating(*d) ? std::min<size_t>(64, options_.max_int_constant)
                                         : options_.max_int_constant;
    if (std::optional<json> flat = reader.flat(limit)) {
      size_t pos = 0;
      n.value = nest(*flat, dims, 0, pos);
    }
    return n;
  }

  // A Constant node's value attribute in any of its forms, as a TensorProto.
  ::onnx::TensorProto constant_value(const ::onnx::NodeProto& node, const std::string& what) {
    for (const auto& a : node.attribute()) {
      ::onnx::TensorProto t;
      if (a.name() == "value") return a.t();
      if (a.name() == "value_int") {
        t.set_data_type(7);
        t.add_int64_data(a.i());
        return t;
      }
      if (a.name() == "value_ints") {
        t.set_data_type(7);
        t.add_dims(a.ints_size());
        for (int64_t v : a.ints()) t.add_int64_data(v);
        return t;
      }
      if (a.name() == "value_float") {
        t.set_data_type(1);
        t.add_float_data(a.f());
        return t;
      }
      if (a.name() == "value_floats") {
        t.set_data_type(1);
        t.add_dims(a.floats_size());
        for (float v : a.floats()) t.add_float_data(v);
        return t;
      }
    }
    throw Error(origin_ + ": " + what +
                " has no value symshape can read (sparse and string constants are not supported)");
  }

  Arg attribute(const ::onnx::AttributeProto& a, const std::string& node_name, Graph& g,
                std::set<std::string>& defined, std::vector<std::string>& outer, bool top,
                json& extra) {
    switch (a.type()) {
      case ::onnx::AttributeProto::INT: return Arg::of_int(Expr(static_cast<long long>(a.i())));
      case ::onnx::AttributeProto::FLOAT: {
        Arg f;
        f.kind = Arg::Kind::Float;
        f.real = a.f();
        return f;
      }
      case ::onnx::AttributeProto::STRING: {
        Arg s;
        s.kind = Arg::Kind::String;
        s.text = a.s();
        return s;
      }
      case ::onnx::AttributeProto::INTS: {
        std::vector<Arg> items;
        for (int64_t v : a.ints()) items.push_back(Arg::of_int(Expr(static_cast<long long>(v))));
        return Arg::list(std::move(items));
      }
      case ::onnx::AttributeProto::FLOATS: {
        std::vector<Arg> items;
        for (float v : a.floats()) {
          Arg f;
          f.kind = Arg::Kind::Float;
          f.real = v;
          items.push_back(f);
        }
        return Arg::list(std::move(items));
      }
      case ::onnx::AttributeProto::STRINGS: {
        std::vector<Arg> items;
        for (const std::string& v : a.strings()) {
          Arg s;
          s.kind = Arg::Kind::String;
          s.text = v;
          items.push_back(s);
        }
        return Arg::list(std::move(items));
      }
      case ::onnx::AttributeProto::TENSOR: {
        const std::string name = unique_name(node_name + "." + a.name(), defined);
        g.nodes.push_back(constant_node(
            name, a.t(), "attribute " + quote(a.name()) + " of node " + quote(node_name)));
        defined.insert(name);
        return Arg::node(name);
      }
      case ::onnx::AttributeProto::GRAPH: {
        Graph sub = import_graph(a.g(), false);
        // What the subgraph reads from outside, this graph reads from outside too unless it
        // defines it: the control-flow rule hands the values down.
        for (const Node& p : sub.nodes) {
          if (p.op != NodeOp::Placeholder || !p.extra.is_object() || !p.extra.contains("outer"))
            continue;
          if (defined.count(p.name)) continue;
          if (top) {
            throw Error(origin_ + ": a subgraph of node " + quote(node_name) + " reads " +
                        quote(p.name) + ", which is not defined");
          }
          note_outer(p.name, defined, outer);
        }
        if (!extra.contains("subgraphs")) extra["subgraphs"] = json::object();
        extra["subgraphs"][a.name()] = json::parse(write_graph(sub));
        return Arg::none();
      }
      default: return Arg::none();  // sparse tensors, type protos, lists of tensors or graphs
    }
  }

  void import_node(const ::onnx::NodeProto& node, int index, Graph& g,
                   std::set<std::string>& defined, std::vector<std::string>& outer, bool top) {
    const std::string prefix = domain_prefix(node.domain());
    const std::string label =
        node.name().empty() ? node.op_type() + " #" + std::to_string(index) : quote(node.name());
    const std::string what = "node " + label + " (" + node.op_type() + ")";
    for (const std::string& in : node.input()) {
      if (in.empty() || defined.count(in)) continue;
      if (top)
        throw Error(origin_ + ": " + what + " reads " + quote(in) +
                    ", which is not defined before it");
      note_outer(in, defined, outer);
    }
    if (prefix == "onnx" && node.op_type() == "Constant") {
      if (node.output_size() != 1) throw Error(origin_ + ": " + what + " needs one output");
      g.nodes.push_back(constant_node(node.output(0), constant_value(node, what), what));
      defined.insert(node.output(0));
      return;
    }
    Node n;
    n.op = NodeOp::CallFunction;
    n.target = prefix + "." + node.op_type();
    std::vector<std::string> outputs(node.output().begin(), node.output().end());
    const bool single = outputs.size() == 1 && !outputs[0].empty();
    n.name = single ? outputs[0]
                    : unique_name(node.name().empty() ? node.op_type() : node.name(), defined);
    for (const std::string& in : node.input())
      n.args.push_back(in.empty() ? Arg::none() : Arg::node(in));
    json extra = json::object();
    auto opset = opsets_.find(prefix);
    extra["opset"] = opset == opsets_.end() ? 1 : opset->second;
    if (!node.name().empty()) extra["onnx_name"] = node.name();
    for (const auto& a : node.attribute()) {
      Arg value = attribute(a, n.name, g, defined, outer, top, extra);
      if (value.kind != Arg::Kind::None) n.kwargs.emplace_back(a.name(), std::move(value));
    }
    if (!single) extra["outputs"] = outputs.size();
    n.extra = std::move(extra);
    if (defined.count(n.name))
      throw Error(origin_ + ": " + what + ": " + quote(n.name) + " is defined twice");
    defined.insert(n.name);
    const std::string producer = n.name;
    g.nodes.push_back(std::move(n));
    if (single) return;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].empty()) continue;
      if (defined.count(outputs[i]))
        throw Error(origin_ + ": " + what + ": output " + quote(outputs[i]) + " is defined twice");
      Node item;
      item.op = NodeOp::CallFunction;
      item.name = outputs[i];
      item.target = "operator.getitem";
      item.args = {Arg::node(producer), Arg::of_int(Expr(static_cast<long long>(i)))};
      defined.insert(item.name);
      g.nodes.push_back(std::move(item));
    }
  }

  // A graph output's declared type goes on the node that computes it, which checks it.
  void declare_output(Graph& g, const ::onnx::ValueInfoProto& o) {
    if (!o.has_type() || !o.type().has_tensor_type()) return;
    const auto& t = o.type().tensor_type();
    const size_t k = g.index_of(o.name());
    if (k >= g.nodes.size() || g.nodes[k].op != NodeOp::CallFunction) return;
    Node& n = g.nodes[k];
    if (std::optional<DType> d = dtype_of_elem_type(t.elem_type())) n.dtype = d;
    if (!t.has_shape()) return;
    std::vector<Expr> sizes;
    for (int d = 0; d < t.shape().dim_size(); ++d) {
      const auto& dim = t.shape().dim(d);
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        sizes.emplace_back(static_cast<long long>(dim.dim_value()));
      } else if (dim.has_dim_param() && dim_params_.count(dim.dim_param())) {
        // The same name as an input's dim: ONNX says they are equal.
        sizes.push_back(Expr::symbol(dim_params_.at(dim.dim_param())));
      } else {
        // A name no input has, or none: a size nobody constrains; the rule decides it.
        n.extra["declared_shape_partial"] = true;
        n.shape.reset();
        return;
      }
    }
    n.shape = std::move(sizes);
  }

  const ImportOptions& options_;
  std::string origin_;
  std::map<std::string, int64_t> opsets_;
  std::map<std::string, std::string> dim_params_;  // dim_param -> symbol
  std::set<std::string> used_symbols_;
  std::set<std::string> reserved_;  // names made up here (output nodes, attribute constants)
};

}  // namespace

Expected<Graph> read_model(std::string_view bytes, const std::string& origin,
                           const ImportOptions& options) {
  ::onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Expected<Graph>::failure(
        origin + ": not an ONNX model (the protobuf does not parse; a truncated or corrupt file?)");
  }
  try {
    Graph g = Importer(options, origin).run(model);
    // Names in the model are bytes: the message is UTF-8 (\xNN for a byte that is not).
    if (auto problem = verify(g))
      return Expected<Graph>::failure(detail::escape_invalid_utf8(origin + ": " + *problem));
    return g;
  } catch (const std::exception& e) {
    return Expected<Graph>::failure(detail::escape_invalid_utf8(e.what()));
  }
}

Expected<Graph> read_model_file(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Expected<Graph>::failure(path + ": cannot open");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return read_model(bytes.str(), path, options);
}

}  // namespace symshape::onnx
