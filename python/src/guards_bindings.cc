// Guard production, the printers, the compiled checker and the user-constraint report.
#include <memory>

#include "python/src/bindings.h"
#include "symshape/guards.h"

namespace symshape::python {

namespace {

using GuardSetPtr = std::shared_ptr<const GuardSet>;

// The checker keeps the set it explains failures from alive.
struct PyChecker {
  GuardSetPtr set;
  std::shared_ptr<GuardChecker> checker;
};

// One value per source, in the set's order: from a list, or from a dict keyed by source name or
// identifier (every source must be given).
std::vector<Int> source_values(const GuardSet& set, py::handle values) {
  std::vector<Int> out;
  if (py::isinstance<py::dict>(values)) {
    py::dict d = py::reinterpret_borrow<py::dict>(values);
    std::vector<std::optional<Int>> found(set.sources.size());
    for (auto [k, v] : d) {
      const std::string key = py::str(k);
      size_t i = set.find_source(key);
      if (i >= set.sources.size()) throw Error("the guards read no source '" + key + "'");
      found[i] = to_int(v);
    }
    for (size_t i = 0; i < found.size(); ++i) {
      if (!found[i]) throw Error("no value given for the source " + set.sources[i].name);
      out.push_back(*found[i]);
    }
    return out;
  }
  for (py::handle v : values) out.push_back(to_int(v));
  if (out.size() != set.sources.size()) {
    throw Error("expected " + std::to_string(set.sources.size()) + " source values, got " +
                std::to_string(out.size()));
  }
  return out;
}

// GuardInputs from a Graph (its placeholders) or a list of (name, sizes[, strides]).
std::vector<GuardInput> guard_inputs(py::handle h) {
  if (py::isinstance<Graph>(h)) return graph_inputs(h.cast<const Graph&>());
  std::vector<GuardInput> out;
  for (py::handle item : h) {
    py::sequence t = py::reinterpret_borrow<py::sequence>(item);
    if (py::len(t) != 2 && py::len(t) != 3) {
      throw py::type_error("an input is (name, sizes) or (name, sizes, strides), got " +
                           std::string(py::repr(item)));
    }
    GuardInput in;
    in.name = py::str(t[0]);
    for (py::handle s : t[1]) in.sizes.push_back(to_expr(s));
    if (py::len(t) == 3) {
      for (py::handle s : t[2]) in.strides.push_back(to_expr(s));
    }
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace

void bind_guards(py::module_& m) {
  py::class_<Source>(m, "Source", "A value read off the inputs: L['x'].size()[0].")
      .def_property_readonly("kind", [](const Source& s) { return std::string(kind_name(s.kind)); })
      .def_readonly("input", &Source::input)
      .def_readonly("dim", &Source::dim)
      .def_readonly("name", &Source::name)
      .def_readonly("identifier", &Source::identifier)
      .def("__repr__", [](const Source& s) { return "Source(" + s.name + ")"; });

  py::class_<SymbolDefinition>(m, "SymbolDefinition", "A symbol and how the sources give it.")
      .def_readonly("symbol", &SymbolDefinition::symbol)
      .def_readonly("value", &SymbolDefinition::value)
      .def_readonly("range", &SymbolDefinition::range);

  py::class_<CheckFailure>(m, "CheckFailure", "Why the inputs fail a guard.")
      .def_readonly("guard", &CheckFailure::guard)
      .def_readonly("text", &CheckFailure::text)
      .def_readonly("where", &CheckFailure::where)
      .def_property_readonly("values",
                             [](const CheckFailure& f) {
                               py::dict d;
                               for (const auto& [k, v] : f.values) d[py::str(k)] = to_py(v);
                               return d;
                             })
      .def_readonly("reason", &CheckFailure::reason)
      .def("__str__", &CheckFailure::str)
      .def("__repr__", [](const CheckFailure& f) { return "CheckFailure(" + f.text + ")"; });

  py::class_<GuardSet, std::shared_ptr<GuardSet>>(m, "GuardSet", R"doc(
The guards a compiled graph needs: conditions on its inputs' sizes and strides under which every
decision made on the hints stays valid. Print with python(), verbose(), cpp() or json(); check
values with checker().)doc")
      .def_readonly("sources", &GuardSet::sources)
      .def_property_readonly(
          "guards",
          [](const GuardSet& s) {
            py::list out;
            for (const ProducedGuard& g : s.guards) {
              out.append(py::make_tuple(std::string(kind_name(g.kind)), g.cond,
                                        python_text(s, g.cond), g.where));
            }
            return out;
          },
          "(kind, cond over identifiers, Python text, provenance) per guard.")
      .def_readonly("symbols", &GuardSet::symbols)
      .def_readonly("runtime_asserts", &GuardSet::runtime_asserts)
      .def("__len__", [](const GuardSet& s) { return s.guards.size(); })
      .def("python", &print_python, "One Python expression per guard (PyTorch's strings).")
      .def("verbose", &print_verbose, "Each guard with its provenance, then the runtime asserts.")
      .def("cpp", &print_cpp, "A C++ boolean expression over GuardInt source identifiers.")
      .def(
          "json_text", [](const GuardSet& s) { return to_json(s).dump(2); },
          "The JSON document (symshape.GuardSet.json() parses it).")
      .def("python_text", &python_text, py::arg("cond"),
           "A condition over the source identifiers printed with the sources' names.")
      .def(
          "checker",
          [](const std::shared_ptr<GuardSet>& s) {
            return PyChecker{s, std::make_shared<GuardChecker>(*s)};
          },
          "The guards compiled into a fast checker.");

  py::class_<PyChecker>(m, "GuardChecker", R"doc(
The guards compiled to a register program over int64 (exact arithmetic when a value overflows).
check(values) takes one int per source, as a list in GuardSet.sources order or a dict by name.)doc")
      .def_property_readonly("source_count",
                             [](const PyChecker& c) { return c.checker->source_count(); })
      .def_property_readonly(
          "sources", [](const PyChecker& c) { return c.set->sources; },
          "The sources check() takes values for, in order (GuardSet.sources).")
      .def_property_readonly("instruction_count",
                             [](const PyChecker& c) { return c.checker->instruction_count(); })
      .def(
          "check",
          [](const PyChecker& c, py::handle values) -> py::object {
            std::optional<CheckFailure> f = c.checker->check(source_values(*c.set, values));
            return f ? py::cast(*f) : py::none();
          },
          py::arg("values"), "None when every guard holds, else the first failure explained.")
      .def(
          "holds",
          [](const PyChecker& c, py::handle values) {
            return !c.checker->check(source_values(*c.set, values)).has_value();
          },
          py::arg("values"), "Whether every guard holds.");

  m.def(
      "produce_guards",
      [](const EnvPtr& env, py::handle inputs) {
        return std::make_shared<GuardSet>(produce_guards(env->env, guard_inputs(inputs)));
      },
      py::arg("env"), py::arg("inputs"),
      "The minimal guard set over the inputs (a Graph's placeholders, or a list of (name, sizes"
      "[, strides])) for what env decided.");

  py::class_<ConstraintProblem>(m, "ConstraintProblem",
                                "A declared dynamic dim that the guards contradict.")
      .def_readonly("dim", &ConstraintProblem::dim)
      .def_readonly("message", &ConstraintProblem::message)
      .def_readonly("fixes", &ConstraintProblem::fixes)
      .def("__repr__",
           [](const ConstraintProblem& p) { return "ConstraintProblem(" + p.dim + ")"; });
  m.def(
      "check_constraints", [](const EnvPtr& env) { return check_constraints(env->env); },
      py::arg("env"), "The declared dims the guards restrict (empty when the declarations hold).");
  m.def("format_constraint_problems", &format_constraint_problems, py::arg("problems"),
        "torch.export's report: Constraints violated (...)! and the suggested fixes.");
}

}  // namespace symshape::python
