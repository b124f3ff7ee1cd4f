// The lowering passes: the registry's passes and pipelines, and `lower`.
#include "python/src/bindings.h"
#include "symshape/passes.h"

namespace symshape::python {

namespace {

// An option value as the pass reads it: a str as is, a bool as true / false, a list one item per
// line (as repeated CLI flags give it), anything else as str().
std::string option_text(py::handle v) {
  if (PyBool_Check(v.ptr())) return v.ptr() == Py_True ? "true" : "false";
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string joined;
    for (py::handle item : v) joined += (joined.empty() ? "" : "\n") + option_text(item);
    return joined;
  }
  return py::str(v);
}

struct PyLowerResult {
  LowerResult result;
  EnvPtr env;
};

}  // namespace

void bind_passes(py::module_& m) {
  py::class_<PassOption>(m, "PassOption", "An option a pass accepts, its default and help.")
      .def_readonly("name", &PassOption::name)
      .def_readonly("default", &PassOption::default_value)
      .def_readonly("help", &PassOption::help)
      .def("__repr__", [](const PassOption& o) { return "PassOption(" + o.name + ")"; });

  m.def(
      "pass_list",
      []() {
        py::list out;
        for (const Pass* p : PassRegistry::standard().passes()) {
          out.append(
              py::make_tuple(std::string(p->name()), std::string(p->description()), p->options()));
        }
        return out;
      },
      "(name, description, options) of every pass, sorted by name.");
  m.def(
      "pipeline_list",
      []() {
        py::dict out;
        for (const auto* p : PassRegistry::standard().pipelines()) {
          out[py::str(p->name)] = py::make_tuple(p->description, p->passes);
        }
        return out;
      },
      "{name: (description, [passes])} of the named pipelines.");

  py::class_<PassReport>(m, "PassReport", "What one pass did.")
      .def_readonly("name", &PassReport::pass)
      .def_property_readonly("changed", [](const PassReport& r) { return r.stats.changed(); })
      .def_property_readonly("inserted", [](const PassReport& r) { return r.stats.inserted; })
      .def_property_readonly("erased", [](const PassReport& r) { return r.stats.erased; })
      .def_property_readonly("rewritten", [](const PassReport& r) { return r.stats.rewritten; })
      .def_property_readonly("counters", [](const PassReport& r) { return r.stats.counters; })
      .def_readonly("guards_added", &PassReport::guards_added)
      .def_readonly("seconds", &PassReport::seconds)
      .def_readonly("nodes_before", &PassReport::nodes_before)
      .def_readonly("nodes_after", &PassReport::nodes_after)
      .def_readonly("numeric_runs", &PassReport::numeric_runs)
      .def("__repr__", [](const PassReport& r) {
        return "PassReport(" + r.pass + ", " + std::to_string(r.nodes_before) + " -> " +
               std::to_string(r.nodes_after) + " nodes)";
      });

  py::class_<PyLowerResult>(m, "LowerResult", "The lowered graph, what each pass did, the env.")
      .def_property_readonly("ok", [](const PyLowerResult& r) { return r.result.ok; })
      .def_property_readonly("error", [](const PyLowerResult& r) { return r.result.error; })
      .def_property_readonly("failed_pass",
                             [](const PyLowerResult& r) { return r.result.failed_pass; })
      .def_property_readonly("bad_option",
                             [](const PyLowerResult& r) { return r.result.bad_option; })
      .def_property_readonly("graph", [](const PyLowerResult& r) { return r.result.graph; })
      .def_property_readonly("values", [](const PyLowerResult& r) { return r.result.values; })
      .def_property_readonly("reports", [](const PyLowerResult& r) { return r.result.reports; })
      .def_property_readonly("env", [](const PyLowerResult& r) { return r.env; });

  m.def(
      "lower_graph",
      [](const Graph& graph, const std::string& passes, const std::string& pipeline,
         const py::object& options, const py::object& dims, bool verify_numerics,
         bool verify_each_pass, uint64_t seed, EnvPtr env) {
        const PassRegistry& registry = PassRegistry::standard();
        std::vector<PassSpec> specs;
        if (!passes.empty()) {
          Expected<std::vector<PassSpec>> listed = parse_pass_list(passes, registry);
          if (!listed) throw Error(listed.error());
          specs = std::move(listed).value();
        } else {
          const std::string name = pipeline.empty() ? "default" : pipeline;
          const PassRegistry::Pipeline* p = registry.pipeline(name);
          if (!p) {
            std::string known;
            for (const auto* q : registry.pipelines())
              known += (known.empty() ? "" : ", ") + q->name;
            throw Error("unknown pipeline '" + name + "' (known: " + known + ")");
          }
          for (const std::string& pass : p->passes) specs.push_back(PassSpec{pass, {}});
        }
        if (!options.is_none()) {
          for (auto [pass_name, pass_options] : py::reinterpret_borrow<py::dict>(options)) {
            const std::string pass = py::str(pass_name);
            bool runs = false;
            for (PassSpec& s : specs) {
              if (s.name != pass) continue;
              runs = true;
              for (auto [k, v] : py::reinterpret_borrow<py::dict>(pass_options)) {
                s.options[py::str(k)] = option_text(v);
              }
            }
            if (!runs) throw Error("options given for pass '" + pass + "', which does not run");
          }
        }
        PassManagerOptions o;
        o.verify_numerics = verify_numerics;
        o.verify_each_pass = verify_each_pass;
        o.seed = seed;
        o.propagate = python_propagate_options(graph, dims);
        PassManager manager(registry, o);
        for (const PassSpec& s : specs) manager.add(s);  // Error for an unknown option
        if (!env) env = std::make_shared<Env>(ShapeEnvOptions{});
        return PyLowerResult{manager.run(graph, env->env), env};
      },
      py::arg("graph"), py::arg("passes") = "", py::arg("pipeline") = "",
      py::arg("options") = py::none(), py::arg("dims") = py::none(),
      py::arg("verify_numerics") = false, py::arg("verify_each_pass") = true, py::arg("seed") = 0,
      py::arg("env") = nullptr,
      "Runs passes ('dce,cse{...}') or a pipeline under the PassManager's checks; "
      "symshape.lower wraps it and raises on failure.");
}

}  // namespace symshape::python
