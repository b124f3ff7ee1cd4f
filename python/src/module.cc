// The extension module symshape._core: conversions shared by the bindings, the exceptions, and
// the module's entry point. The Python package (python/symshape/__init__.py) re-exports it.
#include <Python.h>
#include <cctype>
#include <map>
#include <string_view>
#include <vector>

#include "python/src/bindings.h"
#include "symshape/passes.h"
#include "symshape/user_facts.h"

namespace symshape::python {

py::int_ to_py(const Int& v) {
  const std::string text = to_string(v);
  return py::reinterpret_steal<py::int_>(PyLong_FromString(text.c_str(), nullptr, 10));
}

Int to_int(py::handle h) {
  if (!PyLong_Check(h.ptr())) {
    throw py::type_error("expected an int, got " + std::string(py::str(py::type::of(h))));
  }
  std::optional<Int> v = parse_int(std::string(py::str(h)));
  if (!v) throw py::value_error("not an integer: " + std::string(py::str(h)));
  return *v;
}

std::optional<Int> to_optional_int(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_int(h);
}

Expr to_expr(py::handle h) {
  if (py::isinstance<Expr>(h)) return h.cast<Expr>();
  if (py::isinstance<PySymInt>(h)) return h.cast<const PySymInt&>().value.expr();
  if (PyLong_Check(h.ptr())) return Expr(to_int(h));
  if (py::isinstance<py::str>(h)) {
    const std::string text = h.cast<std::string>();
    Expected<Expr> e = parse_expr(text);
    if (!e) throw Error(parse_failure("expression", text, e.error()));
    return *e;
  }
  throw py::type_error("expected an Expr, a SymInt, an int or a str, got " +
                       std::string(py::str(py::type::of(h))));
}

namespace {

// The text of sympy's relations and connectives (`Eq(a, b)`, `Ne(a, b)`, `Lt`, `Le`, `Gt`,
// `Ge`, `And(p, q, ...)`, `Or`, `Not(p)`: how PyTorch prints its guards) in the condition
// grammar; nullopt when the text has none, or they are malformed.
std::optional<std::string> from_sympy_relations(std::string_view text) {
  static const std::map<std::string_view, std::string_view> kInfix = {
      {"Eq", "=="}, {"Ne", "!="}, {"Lt", "<"},    {"Le", "<="},
      {"Gt", ">"},  {"Ge", ">="}, {"And", "and"}, {"Or", "or"}};
  std::string out;
  bool changed = false;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      const std::string_view word = text.substr(i, j - i);
      size_t k = j;
      while (k < text.size() && text[k] == ' ') ++k;
      const bool call = k < text.size() && text[k] == '(';
      const bool known = kInfix.count(word) > 0 || word == "Not";
      if (!call || !known) {
        out += word;
        i = j;
        continue;
      }
      // The arguments: split at the top-level commas up to the matching parenthesis.
      std::vector<std::string_view> args;
      int depth = 0;
      size_t start = k + 1, end = std::string_view::npos;
      for (size_t p = k + 1; p < text.size(); ++p) {
        if (text[p] == '(') ++depth;
        if (text[p] == ')' && depth-- == 0) {
          args.push_back(text.substr(start, p - start));
          end = p;
          break;
        }
        if (text[p] == ',' && depth == 0) {
          args.push_back(text.substr(start, p - start));
          start = p + 1;
        }
      }
      if (end == std::string_view::npos) return std::nullopt;
      std::vector<std::string> converted;
      for (std::string_view a : args) {
        std::optional<std::string> inner = from_sympy_relations(a);
        converted.push_back(inner ? *inner : std::string(a));
      }
      if (word == "Not") {
        if (converted.size() != 1) return std::nullopt;
        out += "(not (" + converted[0] + "))";
      } else {
        const bool relation = word != "And" && word != "Or";
        if (relation ? converted.size() != 2 : converted.size() < 2) return std::nullopt;
        out += "(";
        for (size_t a = 0; a < converted.size(); ++a) {
          if (a) out += " " + std::string(kInfix.at(word)) + " ";
          out += "(" + converted[a] + ")";
        }
        out += ")";
      }
      changed = true;
      i = end + 1;
      continue;
    }
    out += c;
    ++i;
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace

Cond to_cond(py::handle h) {
  if (py::isinstance<Cond>(h)) return h.cast<Cond>();
  if (py::isinstance<PySymBool>(h)) return h.cast<const PySymBool&>().value.cond();
  if (PyBool_Check(h.ptr())) return Cond::truth(h.ptr() == Py_True);
  if (py::isinstance<py::str>(h)) {
    const std::string text = h.cast<std::string>();
    Expected<Cond> c = parse_cond(text);
    if (!c) {
      // sympy's spelling, as PyTorch prints guards: Eq(s0, 2*s1).
      if (std::optional<std::string> converted = from_sympy_relations(text)) {
        Expected<Cond> again = parse_cond(*converted);
        if (again) return *again;
      }
      throw Error(parse_failure("condition", text, c.error()));
    }
    return *c;
  }
  throw py::type_error("expected a Cond, a SymBool, a bool or a str, got " +
                       std::string(py::str(py::type::of(h))));
}

ValueRange to_range(py::handle h) {
  if (py::isinstance<ValueRange>(h)) return h.cast<ValueRange>();
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(h);
    if (py::len(s) == 2) return ValueRange(to_optional_int(s[0]), to_optional_int(s[1]));
  }
  throw py::type_error("expected a range (lo, hi) with None for an infinite end, got " +
                       std::string(py::repr(h)));
}

Provenance to_provenance(py::handle h, const Provenance& fallback) {
  if (h.is_none()) return fallback;
  if (py::isinstance<Provenance>(h)) return h.cast<Provenance>();
  if (py::isinstance<py::str>(h)) return Provenance{h.cast<std::string>(), "", ""};
  if (py::isinstance<py::tuple>(h)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(h);
    if (t.size() >= 1 && t.size() <= 3) {
      Provenance p;
      p.node = t[0].cast<std::string>();
      if (t.size() > 1) p.op = t[1].cast<std::string>();
      if (t.size() > 2) p.rule = t[2].cast<std::string>();
      return p;
    }
  }
  throw py::type_error(
      "expected a provenance: None, a Provenance, a node name or a tuple "
      "(node, op, rule), got " +
      std::string(py::repr(h)));
}

}  // namespace symshape::python

PYBIND11_MODULE(_core, m) {
  using namespace symshape;
  using namespace symshape::python;
  m.attr("__doc__") = "symshape's C++ engine (pybind11 bindings); use the package `symshape`.";

  // Every library error is a symshape.Error carrying the library's message; the more specific
  // ones derive from it.
  auto error = py::register_exception<Error>(m, "Error");
  error.attr("__doc__") =
      "An error of the symshape library: bad input, an impossible shape, a misuse.";
  auto data_dependent =
      py::register_exception<DataDependentError>(m, "DataDependentError", error.ptr());
  data_dependent.attr("__doc__") =
      "A decision that depends on an unbacked (data-dependent) symbol.";
  auto violation =
      py::register_exception<ConstraintViolation>(m, "ConstraintViolation", error.ptr());
  violation.attr("__doc__") =
      "A hint or a guard that contradicts what the user declared about a dim.";
  auto contradictory =
      py::register_exception<ContradictoryFacts>(m, "ContradictoryFacts", error.ptr());
  contradictory.attr("__doc__") =
      "Facts (ranges, assumptions) that contradict each other; the message names them.";
  auto pass_error = py::register_exception<PassError>(m, "PassError", error.ptr());
  pass_error.attr("__doc__") = "A lowering pass failed its checks; names the pass and the node.";
  auto option_error =
      py::register_exception<PassOptionError>(m, "PassOptionError", pass_error.ptr());
  option_error.attr("__doc__") = "A lowering pass refused the value of one of its options.";

  bind_expr(m);
  bind_env(m);
  bind_graph(m);
  bind_guards(m);
  bind_passes(m);
  bind_view(m);
}
