// symshape.view: the page `symshape view` writes, from Python.
#include "python/src/bindings.h"
#include "symshape/view.h"

namespace symshape::python {

void bind_view(py::module_& m) {
  m.def(
      "view_page",
      [](const Graph& graph, const py::object& dims, const std::string& title, bool data_only) {
        const PropagateOptions options = python_propagate_options(graph, dims);
        view::PageOptions page;
        page.title = title;
        const nlohmann::ordered_json data = view::graph_page_data(graph, options, page);
        if (data_only) {
          return data.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
        }
        return view::page_html(data, title);
      },
      py::arg("graph"), py::arg("dims") = py::none(), py::arg("title") = "symshape view",
      py::arg("data_only") = false,
      "The HTML page of the graph (propagated under a new ShapeEnv; a shape error is shown on "
      "the page), or with data_only its embedded data as JSON text (docs/view.md).");
}

}  // namespace symshape::python
