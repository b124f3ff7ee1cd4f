// Expressions, conditions, value ranges and facts: parse, simplify, bound, prove, evaluate.
#include <pybind11/operators.h>

#include "python/src/bindings.h"
#include "symshape/prove.h"
#include "symshape/simplify.h"
#include "symshape/user_facts.h"

namespace symshape::python {

namespace {

Bindings to_bindings(const py::dict& values) {
  Bindings b;
  for (auto [k, v] : values) b.emplace(py::str(k).cast<std::string>(), to_int(v));
  return b;
}

std::map<std::string, Expr> to_substitution(const py::dict& values) {
  std::map<std::string, Expr> m;
  for (auto [k, v] : values) m.emplace(py::str(k).cast<std::string>(), to_expr(v));
  return m;
}

py::object optional_int(const std::optional<Int>& v) {
  if (!v) return py::none();
  return to_py(*v);
}

// Operands of an Expr's operators: another Expr or an int (anything else: NotImplemented).
// A SymInt's expression takes part too (Expr + SymInt is an Expr).
bool is_expr_operand(py::handle h) {
  return py::isinstance<Expr>(h) || py::isinstance<PySymInt>(h) || PyLong_Check(h.ptr());
}

template <typename F>
py::object expr_binary(const Expr& self, py::handle other, bool reflected, F f) {
  if (!is_expr_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  const Expr o = to_expr(other);
  return py::cast(reflected ? f(o, self) : f(self, o));
}

template <typename F>
py::object cond_binary(const Expr& self, py::handle other, F f) {
  if (!is_expr_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(f(self, to_expr(other)));
}

std::vector<Expr> to_exprs(const py::args& args) {
  std::vector<Expr> out;
  for (py::handle a : args) out.push_back(to_expr(a));
  return out;
}

// The Python spelling of facts in ContradictoryFacts' messages.
FactSpelling python_fact_spelling() {
  return FactSpelling{"assume", "range", "the range (None, None) to NAME"};
}

// A range (lo, hi) of the user's: an inverted one is ContradictoryFacts naming the symbol.
void set_user_range(UserFacts& f, const std::string& symbol, py::handle r) {
  if (py::isinstance<ValueRange>(r)) {
    const ValueRange v = r.cast<ValueRange>();
    if (v.is_empty()) {
      throw ContradictoryFacts("contradictory facts: the range of " + symbol + " is empty");
    }
    f.set_range(symbol, v.lo(), v.hi());
    return;
  }
  if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(r);
    if (py::len(s) == 2) {
      f.set_range(symbol, to_optional_int(s[0]), to_optional_int(s[1]));
      return;
    }
  }
  throw py::type_error("expected a range (lo, hi) with None for an infinite end for " + symbol +
                       ", got " + std::string(py::repr(r)));
}

// An assumption as the user gave it: its text, or the printed Cond.
void assume_user_cond(UserFacts& f, py::handle c) {
  const Cond cond = to_cond(c);
  f.assume(cond, py::isinstance<py::str>(c) ? c.cast<std::string>() : cond.str());
}

// Runs change on a copy of f and keeps it only when it succeeds (contradictory facts are not
// taken).
template <typename F>
void transactionally(UserFacts& f, F change) {
  UserFacts copy = f;
  change(copy);
  f = std::move(copy);
}

}  // namespace

void bind_expr(py::module_& m) {
  py::class_<Expr> expr(m, "Expr", R"doc(
An integer expression over named symbols, with Python's semantics (// floors, % takes the sign of
the divisor). Build one with parse_expr("a*b + 1"), Expr.symbol("a"), or arithmetic on Exprs and
ints. Comparisons build a Cond; use identical() for structural equality.)doc");
  expr.def(py::init([](py::handle v) { return to_expr(v); }), py::arg("value"),
           "An Expr from an int, a str (parsed) or another Expr.")
      .def_static(
          "symbol", [](const std::string& name) { return Expr::symbol(name); }, py::arg("name"),
          "The symbol with this name.")
      .def("__str__", &Expr::str)
      .def("__repr__", [](const Expr& e) { return "Expr('" + e.str() + "')"; })
      .def("is_constant", &Expr::is_constant, "Whether the expression is an integer constant.")
      .def("is_symbol", &Expr::is_symbol, "Whether the expression is a single symbol.")
      .def("free_symbols", &Expr::free_symbols, "The names of the free symbols, sorted.")
      .def("identical", &Expr::identical, py::arg("other"),
           "Structural identity (not mathematical equality: see prove()).")
      .def(
          "subs",
          [](const Expr& e, const py::dict& values) { return e.subs(to_substitution(values)); },
          py::arg("values"), "Substitutes symbols by name ({name: Expr or int}).")
      .def(
          "eval",
          [](const Expr& e, const py::kwargs& values) {
            return to_py(evaluate(e, to_bindings(values)));
          },
          "The value with every symbol bound: e.eval(a=3, b=4). Raises Error on an unbound "
          "symbol or a division by zero.")
      .def("__int__",
           [](const Expr& e) {
             std::optional<Int> c = e.constant();
             if (!c) throw py::type_error("int() of the non-constant expression " + e.str());
             return to_py(*c);
           })
      .def("__bool__",
           [](const Expr& e) {
             std::optional<Int> c = e.constant();
             if (!c) {
               throw py::type_error("the truth value of the expression " + e.str() +
                                    " depends on its symbols: compare it and use prove()");
             }
             return !zerop(*c);
           })
      .def("__neg__", [](const Expr& e) { return -e; })
      .def("__pos__", [](const Expr& e) { return e; })
      .def("__pow__", [](const Expr& e, unsigned n) { return pow(e, n); })
      .attr("__hash__") = py::none();
  auto add = [](const Expr& a, const Expr& b) { return a + b; };
  auto sub = [](const Expr& a, const Expr& b) { return a - b; };
  auto mul = [](const Expr& a, const Expr& b) { return a * b; };
  auto fdiv = [](const Expr& a, const Expr& b) { return floordiv(a, b); };
  auto md = [](const Expr& a, const Expr& b) { return mod(a, b); };
  expr.def("__add__", [add](const Expr& s, py::handle o) { return expr_binary(s, o, false, add); })
      .def("__radd__", [add](const Expr& s, py::handle o) { return expr_binary(s, o, true, add); })
      .def("__sub__", [sub](const Expr& s, py::handle o) { return expr_binary(s, o, false, sub); })
      .def("__rsub__", [sub](const Expr& s, py::handle o) { return expr_binary(s, o, true, sub); })
      .def("__mul__", [mul](const Expr& s, py::handle o) { return expr_binary(s, o, false, mul); })
      .def("__rmul__", [mul](const Expr& s, py::handle o) { return expr_binary(s, o, true, mul); })
      .def("__floordiv__",
           [fdiv](const Expr& s, py::handle o) { return expr_binary(s, o, false, fdiv); })
      .def("__rfloordiv__",
           [fdiv](const Expr& s, py::handle o) { return expr_binary(s, o, true, fdiv); })
      .def("__mod__", [md](const Expr& s, py::handle o) { return expr_binary(s, o, false, md); })
      .def("__rmod__", [md](const Expr& s, py::handle o) { return expr_binary(s, o, true, md); })
      .def("__eq__",
           [](const Expr& s, py::handle o) {
             return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a == b; });
           })
      .def("__ne__",
           [](const Expr& s, py::handle o) {
             return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a != b; });
           })
      .def("__lt__",
           [](const Expr& s, py::handle o) {
             return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a < b; });
           })
      .def("__le__",
           [](const Expr& s, py::handle o) {
             return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a <= b; });
           })
      .def("__gt__",
           [](const Expr& s, py::handle o) {
             return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a > b; });
           })
      .def("__ge__", [](const Expr& s, py::handle o) {
        return cond_binary(s, o, [](const Expr& a, const Expr& b) { return a >= b; });
      });

  m.def(
      "expr_ceildiv", [](py::handle a, py::handle b) { return ceildiv(to_expr(a), to_expr(b)); },
      py::arg("a"), py::arg("b"), "Ceiling division of two expressions.");
  m.def(
      "expr_max", [](const py::args& args) { return max(to_exprs(args)); },
      "The maximum of two or more expressions.");
  m.def(
      "expr_min", [](const py::args& args) { return min(to_exprs(args)); },
      "The minimum of two or more expressions.");

  py::class_<Cond>(m, "Cond", R"doc(
A condition: true, false, a relation between Exprs, or and / or of others. Combine with & | ~.
It has no truth value of its own: decide it with prove() or eval().)doc")
      .def(py::init([](py::handle v) { return to_cond(v); }), py::arg("value"),
           "A Cond from a bool, a str (parsed) or another Cond.")
      .def("__str__", &Cond::str)
      .def("__repr__", [](const Cond& c) { return "Cond('" + c.str() + "')"; })
      .def("is_true", &Cond::is_true, "Whether the condition is the constant true.")
      .def("is_false", &Cond::is_false, "Whether the condition is the constant false.")
      .def("free_symbols", &Cond::free_symbols, "The names of the free symbols, sorted.")
      .def("identical", &Cond::identical, py::arg("other"), "Structural identity.")
      .def(
          "subs",
          [](const Cond& c, const py::dict& values) { return c.subs(to_substitution(values)); },
          py::arg("values"), "Substitutes symbols by name ({name: Expr or int}).")
      .def(
          "eval",
          [](const Cond& c, const py::kwargs& values) { return evaluate(c, to_bindings(values)); },
          "Whether the condition holds with every symbol bound: c.eval(a=3, b=4).")
      .def("__and__", [](const Cond& a, py::handle b) { return a && to_cond(b); })
      .def("__rand__", [](const Cond& a, py::handle b) { return to_cond(b) && a; })
      .def("__or__", [](const Cond& a, py::handle b) { return a || to_cond(b); })
      .def("__ror__", [](const Cond& a, py::handle b) { return to_cond(b) || a; })
      .def("__invert__", [](const Cond& a) { return !a; })
      .def("__bool__",
           [](const Cond& c) -> bool {
             if (c.is_true() || c.is_false()) return c.is_true();
             throw py::type_error("the condition " + c.str() +
                                  " has no truth value of its own: use prove() or eval()");
           })
      .attr("__hash__") = py::none();

  m.def(
      "parse_expr", [](const std::string& text) { return to_expr(py::str(text)); }, py::arg("text"),
      "Parses an integer expression (Python syntax: + - * // % **, max, min, ceildiv). Raises "
      "Error naming the column on a malformed text.");
  m.def(
      "parse_cond", [](const std::string& text) { return to_cond(py::str(text)); }, py::arg("text"),
      "Parses a condition (== != < <= > >=, and, or, not).");

  py::class_<ValueRange>(m, "ValueRange",
                         "A set of integers [lo, hi]; lo / hi are None when infinite.")
      .def(py::init([](py::handle lo, py::handle hi) {
             return ValueRange(to_optional_int(lo), to_optional_int(hi));
           }),
           py::arg("lo") = py::none(), py::arg("hi") = py::none())
      .def_property_readonly(
          "lo", [](const ValueRange& r) { return optional_int(r.lo()); },
          "The lower end (None: -inf).")
      .def_property_readonly(
          "hi", [](const ValueRange& r) { return optional_int(r.hi()); },
          "The upper end (None: +inf).")
      .def("is_empty", &ValueRange::is_empty)
      .def("is_point", &ValueRange::is_point)
      .def(
          "__contains__", [](const ValueRange& r, py::handle v) { return r.contains(to_int(v)); },
          py::arg("value"))
      .def("__eq__",
           [](const ValueRange& r, py::handle o) {
             if (py::isinstance<ValueRange>(o) || py::isinstance<py::tuple>(o)) {
               return py::cast(r == to_range(o));
             }
             return py::reinterpret_borrow<py::object>(Py_NotImplemented);
           })
      .def(
          "as_tuple",
          [](const ValueRange& r) {
            return py::make_tuple(optional_int(r.lo()), optional_int(r.hi()));
          },
          "(lo, hi), None for an infinite end.")
      .def("__str__", &ValueRange::str)
      .def("__repr__", [](const ValueRange& r) { return "ValueRange" + r.str(); })
      .attr("__hash__") = py::none();

  py::class_<UserFacts>(m, "Facts", R"doc(
What simplify, bounds and prove may assume: each symbol's range (default [1, inf], sizes),
divisibility and assumed conditions. Facts that contradict each other raise ContradictoryFacts
naming them (and are not taken), as answers under them would be vacuous.)doc")
      .def(py::init([](py::handle default_range) {
             return UserFacts(python_fact_spelling(), default_range.is_none()
                                                          ? ValueRange::at_least(Int(1))
                                                          : to_range(default_range));
           }),
           py::arg("default_range") = py::none(),
           "Facts where every symbol ranges over default_range ((1, None) when not given).")
      .def(
          "set_range",
          [](UserFacts& f, const std::string& s, py::handle r) {
            transactionally(f, [&](UserFacts& g) {
              set_user_range(g, s, r);
              g.check();
            });
          },
          py::arg("symbol"), py::arg("range"),
          "Sets the symbol's range: (lo, hi), None infinite. Raises ContradictoryFacts (and "
          "keeps the facts as they were) when the range is empty or contradicts an assumption.")
      .def(
          "range_of",
          [](const UserFacts& f, const std::string& s) { return f.facts().range_of(s); },
          py::arg("symbol"), "The symbol's range.")
      .def(
          "assume",
          [](UserFacts& f, py::handle c) {
            transactionally(f, [&](UserFacts& g) {
              assume_user_cond(g, c);
              g.check();
            });
          },
          py::arg("cond"),
          "Assumes a condition (a Cond or its text) holds. Raises ContradictoryFacts (and keeps "
          "the facts as they were) when it contradicts the facts so far.")
      .def(
          "copy", [](const UserFacts& f) { return f; }, "An independent copy.");

  m.def(
      "facts_with",
      [](const UserFacts* base, py::handle ranges, py::handle assume) {
        UserFacts f = base ? *base : UserFacts(python_fact_spelling());
        if (!ranges.is_none()) {
          for (auto [name, r] : py::reinterpret_borrow<py::dict>(ranges)) {
            set_user_range(f, py::str(name).cast<std::string>(), r);
          }
        }
        if (!assume.is_none()) {
          for (py::handle c : assume) assume_user_cond(f, c);
        }
        f.check();
        return f;
      },
      py::arg("facts").none(true), py::arg("ranges").none(true), py::arg("assume").none(true),
      "A copy of facts (or new facts) with the ranges ({name: (lo, hi)}) and assumptions "
      "added, checked for a contradiction once (symshape.prove and friends call it).");

  m.def(
      "simplify",
      [](py::handle e, const UserFacts* facts) -> py::object {
        const Facts none;
        const Facts& f = facts ? facts->facts() : none;
        if (py::isinstance<Cond>(e) || py::isinstance<PySymBool>(e) || PyBool_Check(e.ptr())) {
          return py::cast(simplify(to_cond(e), f));
        }
        return py::cast(simplify(to_expr(e), f));
      },
      py::arg("e"), py::arg("facts") = nullptr,
      "An equal expression (or condition) in simplest form under the facts.");
  m.def(
      "bounds",
      [](py::handle e, const UserFacts* facts) {
        return bound(to_expr(e), facts ? facts->facts() : Facts());
      },
      py::arg("e"), py::arg("facts") = nullptr,
      "A sound range of every value the expression takes under the facts.");
  m.def(
      "prove_text",
      [](py::handle c, const UserFacts* facts) {
        return std::string(to_string(prove(to_cond(c), facts ? facts->facts() : Facts())));
      },
      py::arg("cond"), py::arg("facts") = nullptr,
      "'true', 'false' or 'unknown' (symshape.prove wraps it in Truth).");
}

}  // namespace symshape::python
