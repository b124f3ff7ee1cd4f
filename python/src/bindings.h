// Shared pieces of the Python bindings (the extension symshape._core): integer conversion, the
// ShapeEnv as Python owns it, and the SymInt / SymBool values that keep their env alive.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/propagate.h"
#include "symshape/ranges.h"
#include "symshape/shape_env.h"

namespace symshape::python {

namespace py = pybind11;

// A Python int of any size from an Int, and back (TypeError for anything but an int).
py::int_ to_py(const Int& v);
Int to_int(py::handle h);
std::optional<Int> to_optional_int(py::handle h);  // None -> nullopt

// An Expr from an Expr, an int or a str (parsed; Error on a malformed text). TypeError otherwise.
Expr to_expr(py::handle h);
// A Cond from a Cond, a bool or a str (parsed).
Cond to_cond(py::handle h);
// A ValueRange from (lo, hi) (None for an infinite end) or a ValueRange.
ValueRange to_range(py::handle h);

// The ShapeEnv Python code holds, with the provenance that bool(SymBool) and int(SymInt) record
// their guards under (set by `with env.at(...)`).
struct Env {
  explicit Env(ShapeEnvOptions options) : env(options) {}
  ShapeEnv env;
  Provenance where;
};
using EnvPtr = std::shared_ptr<Env>;

// A SymInt and the env its symbols belong to (null for a constant), kept alive while it lives.
struct PySymInt {
  SymInt value;
  EnvPtr env;
};
struct PySymBool {
  SymBool value;
  EnvPtr env;
};

// A provenance from None (the env's current one), a Provenance, a str (the node) or a tuple
// (node, op, rule).
Provenance to_provenance(py::handle h, const Provenance& fallback);

// Propagation options from the graph's dims overridden by {name: (min, max[, hint])} (None: the
// graph's own); an override keeps the graph's hint when it lies in the new range.
PropagateOptions python_propagate_options(const Graph& graph, const py::object& dims);

// The parts of the module, one function per source file.
void bind_expr(py::module_& m);    // expr_bindings.cc
void bind_env(py::module_& m);     // env_bindings.cc
void bind_graph(py::module_& m);   // graph_bindings.cc
void bind_guards(py::module_& m);  // guards_bindings.cc
void bind_passes(py::module_& m);  // passes_bindings.cc
void bind_view(py::module_& m);    // view_bindings.cc

}  // namespace symshape::python
