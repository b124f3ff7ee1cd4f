// Graphs: read, write, verify, and propagate shapes under a ShapeEnv.
#include <fstream>

#include "python/src/bindings.h"
#include "symshape/graph_dims.h"
#include "symshape/ir.h"
#include "symshape/onnx.h"
#include "symshape/propagate.h"

namespace symshape::python {

namespace {

std::string status_name(Propagation::Status s) {
  switch (s) {
    case Propagation::Status::Ok: return "ok";
    case Propagation::Status::ShapeError: return "shape_error";
    case Propagation::Status::InputError: return "input_error";
  }
  return "?";
}

std::string value_kind(Value::Kind k) {
  switch (k) {
    case Value::Kind::None: return "none";
    case Value::Kind::Tensor: return "tensor";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::List: return "list";
  }
  return "?";
}

py::object optional_int(const std::optional<Int>& v) {
  return v ? py::object(to_py(*v)) : py::none();
}

// A dim declaration from (min, max), (min, max, hint), {"min":, "max":, "hint":} or None values.
DimDecl to_dim_decl(const std::string& name, py::handle h) {
  DimDecl d;
  if (py::isinstance<py::dict>(h)) {
    py::dict m = py::reinterpret_borrow<py::dict>(h);
    for (auto [k, v] : m) {
      const std::string key = py::str(k);
      if (key == "min")
        d.min = to_optional_int(v);
      else if (key == "max")
        d.max = to_optional_int(v);
      else if (key == "hint")
        d.hint = to_optional_int(v);
      else
        throw Error("dim '" + name + "': unknown key '" + key + "' (expected min, max, hint)");
    }
    return d;
  }
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(h);
    if (py::len(s) == 2 || py::len(s) == 3) {
      d.min = to_optional_int(s[0]);
      d.max = to_optional_int(s[1]);
      if (py::len(s) == 3) d.hint = to_optional_int(s[2]);
      return d;
    }
  }
  throw Error("dim '" + name + "': expected (min, max), (min, max, hint) or a dict, got " +
              std::string(py::repr(h)));
}

// The graph's dims overridden by `dims` ({name: range}); an override keeps the graph's hint
// when it lies in the new range, as the CLI's --dim does.
PropagateOptions propagate_options(const Graph& g, const py::object& dims, bool skip_unknown) {
  PropagateOptions o;
  o.skip_unknown_ops = skip_unknown;
  if (onnx::is_onnx_graph(g)) o.registry = &onnx::registry();
  if (dims.is_none()) return o;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(dims)) {
    const std::string name = py::str(k);
    const std::string what = "dims['" + name + "']";
    // As the CLI's --dim: a name the graph does not use, and an empty range, are refused.
    if (std::optional<std::string> problem = unknown_dim_problem(g, what, name)) {
      throw Error(*problem);
    }
    DimDecl d = to_dim_decl(name, v);
    if (d.min && d.max && *d.min > *d.max) {
      throw Error(what + ": bad range (" + to_string(*d.min) + ", " + to_string(*d.max) +
                  "): empty (min is greater than max)");
    }
    if (!d.hint) {
      if (const DimDecl* declared = g.dim(name)) d.hint = declared->hint;
      if (d.hint && !ValueRange(d.min, d.max).contains(*d.hint)) d.hint.reset();
    }
    o.dims[name] = d;
  }
  return o;
}

// A propagation with the env it ran under and the graph it describes.
struct PyPropagation {
  Propagation result;
  EnvPtr env;
  Graph graph;
};

}  // namespace

PropagateOptions python_propagate_options(const Graph& g, const py::object& dims) {
  return propagate_options(g, dims, false);
}

void bind_graph(py::module_& m) {
  py::class_<TensorMeta>(m, "TensorMeta", "A tensor's dtype, sizes and strides (Exprs).")
      .def_property_readonly("dtype",
                             [](const TensorMeta& t) { return std::string(to_string(t.dtype)); })
      .def_readonly("shape", &TensorMeta::sizes)
      .def_property_readonly("stride",
                             [](const TensorMeta& t) {
                               return t.strides.empty() ? TensorMeta::contiguous_strides(t.sizes)
                                                        : t.strides;
                             })
      .def("numel", &TensorMeta::numel)
      .def("__str__", &TensorMeta::str)
      .def("__repr__", [](const TensorMeta& t) { return "TensorMeta(" + t.str() + ")"; });

  py::class_<Value>(m, "Value", "What a node produces: a tensor, an int, a float, a bool, a list.")
      .def_property_readonly("kind", [](const Value& v) { return value_kind(v.kind); })
      .def_property_readonly("tensor",
                             [](const Value& v) -> py::object {
                               return v.is_tensor() ? py::cast(v.tensor) : py::none();
                             })
      .def_property_readonly(
          "shape",
          [](const Value& v) -> py::object {
            return v.is_tensor() ? py::cast(v.tensor.sizes) : py::none();
          },
          "The sizes of a tensor value (None for other kinds).")
      .def_property_readonly("dtype",
                             [](const Value& v) -> py::object {
                               if (!v.is_tensor()) return py::none();
                               return py::str(std::string(to_string(v.tensor.dtype)));
                             })
      .def_property_readonly("integer",
                             [](const Value& v) -> py::object {
                               return v.kind == Value::Kind::Int ? py::cast(v.integer) : py::none();
                             })
      .def_readonly("items", &Value::items)
      .def("__str__", &Value::str)
      .def("__repr__", [](const Value& v) { return "Value(" + v.str() + ")"; });

  py::class_<DimDecl>(m, "DimDecl", "A dim the graph declares: min, max, hint (None: not given).")
      .def_property_readonly("min", [](const DimDecl& d) { return optional_int(d.min); })
      .def_property_readonly("max", [](const DimDecl& d) { return optional_int(d.max); })
      .def_property_readonly("hint", [](const DimDecl& d) { return optional_int(d.hint); })
      .def("__repr__", [](const DimDecl& d) {
        auto s = [](const std::optional<Int>& v) {
          return v ? to_string(*v) : std::string("None");
        };
        return "DimDecl(min=" + s(d.min) + ", max=" + s(d.max) + ", hint=" + s(d.hint) + ")";
      });

  py::class_<Node>(m, "Node", "A node of a graph (read-only view).")
      .def_readonly("name", &Node::name)
      .def_property_readonly("op", [](const Node& n) { return std::string(to_string(n.op)); })
      .def_readonly("target", &Node::target)
      .def_property_readonly(
          "args",
          [](const Node& n) {
            py::list out;
            for (const Arg& a : n.args) out.append(a.str());
            return out;
          },
          "The arguments, rendered as text (%x for a node).")
      .def("__repr__", [](const Node& n) {
        return "Node(" + n.name + ", " + std::string(to_string(n.op)) +
               (n.target.empty() ? "" : ", " + n.target) + ")";
      });

  py::class_<Graph>(m, "Graph", R"doc(
A graph in symshape's format (docs/graph-format.md): nodes in topological order, declared dims.
Read one with read_graph(text) or load_graph(path).)doc")
      .def_property_readonly("nodes", [](const Graph& g) { return g.nodes; })
      .def_property_readonly(
          "dims",
          [](const Graph& g) {
            py::dict d;
            for (const auto& [name, decl] : g.dims) d[py::str(name)] = py::cast(decl);
            return d;
          },
          "{name: DimDecl}, in the order written.")
      .def_property_readonly(
          "inputs",
          [](const Graph& g) {
            std::vector<std::string> names;
            for (const Node& n : g.nodes) {
              if (n.op == NodeOp::Placeholder) names.push_back(n.name);
            }
            return names;
          },
          "The placeholders' names, in order.")
      .def("__len__", [](const Graph& g) { return g.nodes.size(); })
      .def(
          "node",
          [](const Graph& g, const std::string& name) {
            const Node* n = g.find(name);
            if (!n) throw Error("the graph has no node '" + name + "'");
            return *n;
          },
          py::arg("name"), "The node with this name (Error when absent).")
      .def("to_json", &write_graph, "The canonical JSON text.")
      .def(
          "save",
          [](const Graph& g, const std::string& path) {
            std::ofstream f(path, std::ios::binary);
            f << write_graph(g);
            if (!f) throw Error("cannot write '" + path + "'");
          },
          py::arg("path"), "Writes the canonical JSON text to a file.")
      .def(
          "verify",
          [](const Graph& g) {
            if (std::optional<std::string> problem = verify(g)) throw Error(*problem);
          },
          "Checks the structure (unique names, references before use, one output, inputs with "
          "dtype and shape); raises Error naming the node.")
      .def("__repr__", [](const Graph& g) {
        return "<symshape.Graph with " + std::to_string(g.nodes.size()) + " nodes>";
      });

  m.def(
      "read_graph",
      [](const std::string& text) {
        Expected<Graph> g = read_graph(text);
        if (!g) throw Error(g.error());
        return std::move(g).value();
      },
      py::arg("text"), "A graph from JSON text. Raises Error naming the node and the key.");
  m.def(
      "load_graph",
      [](const std::string& path) {
        const bool is_onnx = path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
        Expected<Graph> g = is_onnx ? onnx::read_model_file(path) : read_graph_file(path);
        if (!g) throw Error(g.error());
        return std::move(g).value();
      },
      py::arg("path"), "A graph from a JSON file, or from an ONNX model for a .onnx path.");
  m.def(
      "read_onnx",
      [](py::handle model, py::handle origin) {
        // bytes: a serialized ModelProto; str or os.PathLike: a file.
        if (py::isinstance<py::bytes>(model)) {
          const std::string from =
              origin.is_none() ? "<bytes>" : py::str(origin).cast<std::string>();
          Expected<Graph> g =
              onnx::read_model(std::string(py::reinterpret_borrow<py::bytes>(model)), from);
          if (!g) throw Error(g.error());
          return std::move(g).value();
        }
        if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
          const std::string path = py::str(py::module_::import("os").attr("fspath")(model));
          Expected<Graph> g = onnx::read_model_file(path);
          if (!g) throw Error(g.error());
          return std::move(g).value();
        }
        throw py::type_error(
            "read_onnx takes a path (str or os.PathLike) or the model's bytes, got " +
            std::string(py::str(py::type::of(model))));
      },
      py::arg("model"), py::arg("origin") = py::none(),
      "A graph from an ONNX model: a path (str or os.PathLike), or a serialized ModelProto "
      "(model.SerializeToString(); origin names it in errors). Graph inputs are placeholders "
      "with dim_params as named dims, each node an onnx.<OpType> call (docs/onnx.md). Raises "
      "Error naming the file and the problem.");

  py::class_<PyPropagation>(m, "Propagation", R"doc(
The shapes of every node of a graph under one ShapeEnv: ok, status ('ok', 'shape_error',
'input_error'), error, values (one per node), env; p['node'] is a node's Value.)doc")
      .def_property_readonly("ok", [](const PyPropagation& p) { return p.result.ok(); })
      .def_property_readonly("status",
                             [](const PyPropagation& p) { return status_name(p.result.status); })
      .def_property_readonly("error", [](const PyPropagation& p) { return p.result.error; })
      .def_property_readonly("failed_node",
                             [](const PyPropagation& p) -> py::object {
                               if (p.result.ok() || p.result.failed_node >= p.graph.nodes.size())
                                 return py::none();
                               return py::str(p.graph.nodes[p.result.failed_node].name);
                             })
      .def_property_readonly("values", [](const PyPropagation& p) { return p.result.values; })
      .def_property_readonly("env", [](const PyPropagation& p) { return p.env; })
      .def_property_readonly("graph", [](const PyPropagation& p) { return p.graph; })
      .def("__getitem__",
           [](const PyPropagation& p, const std::string& name) {
             size_t i = p.graph.index_of(name);
             if (i >= p.graph.nodes.size()) throw py::key_error(name);
             if (i >= p.result.values.size()) throw py::key_error(name);
             return p.result.values[i];
           })
      .def("__bool__", [](const PyPropagation& p) { return p.result.ok(); })
      .def("__str__", [](const PyPropagation& p) {
        std::string out;
        const size_t shown = p.result.ok() ? p.graph.nodes.size() : p.result.failed_node;
        for (size_t i = 0; i < shown && i < p.result.values.size(); ++i) {
          out += p.graph.nodes[i].name + ": " + p.result.values[i].str() + "\n";
        }
        for (const Guard& g : p.env->env.guards()) {
          out += "guard: " + g.cond.str() + "  # " + g.where.str() + "\n";
        }
        if (!p.result.ok()) out += "error: " + p.result.error + "\n";
        return out;
      });

  m.def(
      "propagate",
      [](const Graph& graph, EnvPtr env, const py::object& dims, bool skip_unknown_ops) {
        if (!env) {
          ShapeEnvOptions options;
          // An ONNX model's dims come without example sizes: the default hints are guesses.
          options.hints_are_guesses = onnx::is_onnx_graph(graph);
          env = std::make_shared<Env>(options);
        }
        PropagateOptions o = propagate_options(graph, dims, skip_unknown_ops);
        PyPropagation p{propagate(graph, env->env, o), env, graph};
        return p;
      },
      py::arg("graph"), py::arg("env") = nullptr, py::arg("dims") = py::none(),
      py::arg("skip_unknown_ops") = false,
      "Runs the shape rules over the graph under env (a new ShapeEnv when None). dims overrides "
      "the graph's declared dims: {name: (min, max)}. Never raises for a shape error: see .ok.");
}

}  // namespace symshape::python
