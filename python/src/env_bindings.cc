// The ShapeEnv, SymInt and SymBool: symbols with hints and sources, decisions that record guards,
// unbacked symbols and runtime asserts.
#include "python/src/bindings.h"
#include "symshape/user_facts.h"

namespace symshape::python {

namespace {

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// A SymInt operand: a SymInt or an int (nullopt for anything else: the operator returns
// NotImplemented).
std::optional<PySymInt> symint_operand(py::handle h) {
  if (py::isinstance<PySymInt>(h)) return h.cast<PySymInt>();
  if (PyLong_Check(h.ptr())) return PySymInt{SymInt(Expr(to_int(h)), nullptr), nullptr};
  return std::nullopt;
}

std::optional<PySymBool> symbool_operand(py::handle h) {
  if (py::isinstance<PySymBool>(h)) return h.cast<PySymBool>();
  if (PyBool_Check(h.ptr())) return PySymBool{SymBool(h.ptr() == Py_True), nullptr};
  return std::nullopt;
}

EnvPtr common(const EnvPtr& a, const EnvPtr& b) { return a ? a : b; }

template <typename F>
py::object int_binary(const PySymInt& self, py::handle other, bool reflected, F f) {
  std::optional<PySymInt> o = symint_operand(other);
  if (!o) return not_implemented();
  SymInt r = reflected ? f(o->value, self.value) : f(self.value, o->value);
  return py::cast(PySymInt{r, common(self.env, o->env)});
}

template <typename F>
py::object compare(const PySymInt& self, py::handle other, F f) {
  std::optional<PySymInt> o = symint_operand(other);
  if (!o) return not_implemented();
  return py::cast(PySymBool{f(self.value, o->value), common(self.env, o->env)});
}

template <typename F>
py::object bool_binary(const PySymBool& self, py::handle other, bool reflected, F f) {
  std::optional<PySymBool> o = symbool_operand(other);
  if (!o) return not_implemented();
  SymBool r = reflected ? f(o->value, self.value) : f(self.value, o->value);
  return py::cast(PySymBool{r, common(self.env, o->env)});
}

// The condition of a SymBool or bool argument, checked to belong to env.
SymBool symbool_arg(py::handle h) {
  std::optional<PySymBool> b = symbool_operand(h);
  if (!b) {
    throw py::type_error("expected a SymBool or a bool, got " +
                         std::string(py::str(py::type::of(h))));
  }
  return b->value;
}

PySymInt symint_value(py::handle h) {
  std::optional<PySymInt> v = symint_operand(h);
  if (!v) {
    throw py::type_error("expected a SymInt or an int, got " +
                         std::string(py::str(py::type::of(h))));
  }
  return *v;
}

SymInt symint_arg(py::handle h) { return symint_value(h).value; }

// bool(SymBool): statically known, or decided on the hints with a guard (PyTorch's SymBool).
bool decide(const PySymBool& b) {
  const Cond& c = b.value.cond();
  if (c.is_true() || c.is_false()) return c.is_true();
  if (!b.env) throw Error("the condition " + c.str() + " belongs to no ShapeEnv");
  return b.env->env.evaluate(b.value, b.env->where);
}

// int(SymInt): its value, with the guard `e == value` unless it is known.
py::int_ specialize(const PySymInt& v) {
  if (std::optional<Int> c = v.value.expr().constant()) return to_py(*c);
  if (!v.env) throw Error("the value " + v.value.str() + " belongs to no ShapeEnv");
  return to_py(v.env->env.guard_int(v.value, v.env->where));
}

DimPolicy to_policy(const std::string& name) {
  if (name == "duck") return DimPolicy::Duck;
  if (name == "dynamic") return DimPolicy::Dynamic;
  if (name == "static") return DimPolicy::Static;
  if (name == "size_like_unbacked") return DimPolicy::SizeLikeUnbacked;
  throw py::value_error("unknown policy '" + name +
                        "' (expected duck, dynamic, static or size_like_unbacked)");
}

// The range [min, max] a user gave `what`; an inverted one is ContradictoryFacts naming it.
ValueRange user_range(const std::string& what, py::handle min, py::handle max) {
  const std::optional<Int> lo = to_optional_int(min), hi = to_optional_int(max);
  if (lo && hi && *lo > *hi) {
    throw ContradictoryFacts("contradictory facts: " + what + ": bad range min=" + to_string(*lo) +
                             ", max=" + to_string(*hi) + ": empty (min is greater than max)");
  }
  return ValueRange(lo, hi);
}

std::string truth_text(Truth t) { return std::string(to_string(t)); }

// `with env.at(node, op, rule):` decisions inside record this provenance.
struct ProvenanceScope {
  EnvPtr env;
  Provenance where;
  Provenance saved;
};

// `with env.assume(cond):` reasons under cond and forgets it afterwards.
struct AssumptionBlock {
  EnvPtr env;
  SymBool cond;
  std::unique_ptr<AssumptionScope> scope;
};

}  // namespace

void bind_env(py::module_& m) {
  py::class_<Provenance>(m, "Provenance", "Where a decision was asked for: node, op and rule.")
      .def(py::init([](std::string node, std::string op, std::string rule) {
             return Provenance{std::move(node), std::move(op), std::move(rule)};
           }),
           py::arg("node") = "", py::arg("op") = "", py::arg("rule") = "")
      .def_readonly("node", &Provenance::node)
      .def_readonly("op", &Provenance::op)
      .def_readonly("rule", &Provenance::rule)
      .def("__str__", &Provenance::str)
      .def("__repr__", [](const Provenance& p) { return "Provenance('" + p.str() + "')"; });

  py::class_<Guard>(m, "Guard", "A condition the env decided on the hints, and where.")
      .def_readonly("cond", &Guard::cond)
      .def_readonly("where", &Guard::where)
      .def("__str__",
           [](const Guard& g) {
             std::string w = g.where.str();
             return g.cond.str() + (w.empty() ? "" : "  # " + w);
           })
      .def("__repr__", [](const Guard& g) { return "Guard('" + g.cond.str() + "')"; });
  py::class_<RuntimeAssert>(m, "RuntimeAssert",
                            "A condition on data-dependent values checked when the graph runs.")
      .def_readonly("cond", &RuntimeAssert::cond)
      .def_readonly("where", &RuntimeAssert::where)
      .def("__str__", [](const RuntimeAssert& g) { return g.cond.str(); })
      .def("__repr__",
           [](const RuntimeAssert& g) { return "RuntimeAssert('" + g.cond.str() + "')"; });

  py::class_<SymbolInfo>(m, "SymbolInfo", "A symbol of a ShapeEnv: name, kind, hint, source.")
      .def_readonly("name", &SymbolInfo::name)
      .def_property_readonly(
          "kind",
          [](const SymbolInfo& s) { return s.kind == SymbolKind::Backed ? "backed" : "unbacked"; })
      .def_property_readonly("hint",
                             [](const SymbolInfo& s) -> py::object {
                               if (!s.hint) return py::none();
                               return to_py(*s.hint);
                             })
      .def_readonly("source", &SymbolInfo::source)
      .def_readonly("size_like", &SymbolInfo::size_like)
      .def_readonly("user_constraint", &SymbolInfo::user_constraint)
      .def_readonly("index", &SymbolInfo::index)
      .def("__repr__", [](const SymbolInfo& s) {
        return "SymbolInfo(" + s.name + (s.source.empty() ? "" : ", " + s.source) + ")";
      });

  py::class_<PySymInt> symint(m, "SymInt", R"doc(
A symbolic integer of a ShapeEnv. Supports + - * // % and comparisons with ints and SymInts;
comparisons give a SymBool. int(s) specializes it to its hint and records the guard s == hint.)doc");
  symint
      .def(py::init([](py::handle v) {
             return PySymInt{SymInt(Expr(to_int(v)), nullptr), nullptr};
           }),
           py::arg("value"), "A constant SymInt.")
      .def_property_readonly(
          "expr", [](const PySymInt& s) { return s.value.expr(); }, "The expression (an Expr).")
      .def_property_readonly(
          "env", [](const PySymInt& s) { return s.env; }, "The ShapeEnv (None for a constant).")
      .def_property_readonly(
          "hint",
          [](const PySymInt& s) -> py::object {
            if (std::optional<Int> c = s.value.expr().constant()) return to_py(*c);
            if (!s.env) return py::none();
            std::optional<Int> h = s.env->env.size_hint(s.value.expr());
            return h ? py::object(to_py(*h)) : py::none();
          },
          "The value at the hints, without a guard (None when data-dependent).")
      .def("is_constant", [](const PySymInt& s) { return s.value.is_constant(); })
      .def("__str__", [](const PySymInt& s) { return s.value.str(); })
      .def("__repr__", [](const PySymInt& s) { return "SymInt(" + s.value.str() + ")"; })
      .def("__int__", &specialize)
      .def("__index__", &specialize)
      .def("__bool__",
           [](const PySymInt& s) {
             return decide(PySymBool{s.value != SymInt(0), s.env});
           })
      .def("__neg__",
           [](const PySymInt& s) {
             return PySymInt{-s.value, s.env};
           })
      .def("__pos__", [](const PySymInt& s) { return s; })
      .attr("__hash__") = py::none();
  using SI = const SymInt&;
  auto add = [](SI a, SI b) { return a + b; };
  auto sub = [](SI a, SI b) { return a - b; };
  auto mul = [](SI a, SI b) { return a * b; };
  auto fdiv = [](SI a, SI b) { return floordiv(a, b); };
  auto md = [](SI a, SI b) { return mod(a, b); };
  symint
      .def("__add__",
           [add](const PySymInt& s, py::handle o) { return int_binary(s, o, false, add); })
      .def("__radd__",
           [add](const PySymInt& s, py::handle o) { return int_binary(s, o, true, add); })
      .def("__sub__",
           [sub](const PySymInt& s, py::handle o) { return int_binary(s, o, false, sub); })
      .def("__rsub__",
           [sub](const PySymInt& s, py::handle o) { return int_binary(s, o, true, sub); })
      .def("__mul__",
           [mul](const PySymInt& s, py::handle o) { return int_binary(s, o, false, mul); })
      .def("__rmul__",
           [mul](const PySymInt& s, py::handle o) { return int_binary(s, o, true, mul); })
      .def("__floordiv__",
           [fdiv](const PySymInt& s, py::handle o) { return int_binary(s, o, false, fdiv); })
      .def("__rfloordiv__",
           [fdiv](const PySymInt& s, py::handle o) { return int_binary(s, o, true, fdiv); })
      .def("__mod__", [md](const PySymInt& s, py::handle o) { return int_binary(s, o, false, md); })
      .def("__rmod__", [md](const PySymInt& s, py::handle o) { return int_binary(s, o, true, md); })
      .def("__eq__", [](const PySymInt& s,
                        py::handle o) { return compare(s, o, [](SI a, SI b) { return a == b; }); })
      .def("__ne__", [](const PySymInt& s,
                        py::handle o) { return compare(s, o, [](SI a, SI b) { return a != b; }); })
      .def("__lt__", [](const PySymInt& s,
                        py::handle o) { return compare(s, o, [](SI a, SI b) { return a < b; }); })
      .def("__le__", [](const PySymInt& s,
                        py::handle o) { return compare(s, o, [](SI a, SI b) { return a <= b; }); })
      .def("__gt__", [](const PySymInt& s,
                        py::handle o) { return compare(s, o, [](SI a, SI b) { return a > b; }); })
      .def("__ge__", [](const PySymInt& s, py::handle o) {
        return compare(s, o, [](SI a, SI b) { return a >= b; });
      });

  m.def(
      "sym_ceildiv",
      [](py::handle a, py::handle b) {
        PySymInt x = symint_value(a), y = symint_value(b);
        return PySymInt{ceildiv(symint_arg(a), symint_arg(b)), common(x.env, y.env)};
      },
      py::arg("a"), py::arg("b"), "Ceiling division of SymInts (or ints).");
  m.def(
      "sym_max",
      [](py::handle a, py::handle b) {
        PySymInt x = symint_value(a), y = symint_value(b);
        return PySymInt{max(symint_arg(a), symint_arg(b)), common(x.env, y.env)};
      },
      py::arg("a"), py::arg("b"), "The larger of two SymInts (or ints), symbolically.");
  m.def(
      "sym_min",
      [](py::handle a, py::handle b) {
        PySymInt x = symint_value(a), y = symint_value(b);
        return PySymInt{min(symint_arg(a), symint_arg(b)), common(x.env, y.env)};
      },
      py::arg("a"), py::arg("b"), "The smaller of two SymInts (or ints), symbolically.");

  using SB = const SymBool&;
  py::class_<PySymBool>(m, "SymBool", R"doc(
A symbolic condition of a ShapeEnv. Combine with & | ~. bool(b) decides it through the env: from
what the env knows, or on the hints with a guard recorded (as PyTorch's SymBool does).)doc")
      .def_property_readonly(
          "cond", [](const PySymBool& b) { return b.value.cond(); }, "The condition (a Cond).")
      .def_property_readonly("env", [](const PySymBool& b) { return b.env; })
      .def("__str__", [](const PySymBool& b) { return b.value.str(); })
      .def("__repr__", [](const PySymBool& b) { return "SymBool(" + b.value.str() + ")"; })
      .def("__bool__", &decide)
      .def("__and__",
           [](const PySymBool& s, py::handle o) {
             return bool_binary(s, o, false, [](SB a, SB b) { return a && b; });
           })
      .def("__rand__",
           [](const PySymBool& s, py::handle o) {
             return bool_binary(s, o, true, [](SB a, SB b) { return a && b; });
           })
      .def("__or__",
           [](const PySymBool& s, py::handle o) {
             return bool_binary(s, o, false, [](SB a, SB b) { return a || b; });
           })
      .def("__ror__",
           [](const PySymBool& s, py::handle o) {
             return bool_binary(s, o, true, [](SB a, SB b) { return a || b; });
           })
      .def("__invert__",
           [](const PySymBool& s) {
             return PySymBool{!s.value, s.env};
           })
      .attr("__hash__") = py::none();

  py::class_<ProvenanceScope>(m, "_ProvenanceScope")
      .def("__enter__",
           [](ProvenanceScope& s) {
             s.saved = s.env->where;
             s.env->where = s.where;
             return s.where;
           })
      .def("__exit__", [](ProvenanceScope& s, py::args) {
        s.env->where = s.saved;
        return false;
      });
  py::class_<AssumptionBlock>(m, "_AssumptionScope")
      .def("__enter__",
           [](AssumptionBlock& b) {
             if (b.scope) throw Error("this assumption scope is already open");
             b.scope = std::make_unique<AssumptionScope>(b.env->env, b.cond);
           })
      .def("__exit__", [](AssumptionBlock& b, py::args) {
        b.scope.reset();
        return false;
      });

  py::class_<Env, EnvPtr>(m, "ShapeEnv", R"doc(
The one place that decides questions about symbolic sizes: symbols with hints and sources,
value ranges, guards recorded while deciding on hints, runtime asserts, unbacked symbols.
Not thread-safe: use one env (and its values) from one thread at a time.)doc")
      .def(py::init([](bool duck_shape, bool specialize_zero_one, bool log) {
             ShapeEnvOptions o;
             o.duck_shape = duck_shape;
             o.specialize_zero_one = specialize_zero_one;
             o.log = log;
             return std::make_shared<Env>(o);
           }),
           py::arg("duck_shape") = true, py::arg("specialize_zero_one") = true,
           py::arg("log") = false)
      .def(
          "create_symbol",
          [](const EnvPtr& self, py::handle hint, const std::string& source,
             const std::string& policy, const std::string& name, py::handle min, py::handle max,
             std::optional<bool> specialize_zero_one) {
            SymbolOptions o;
            o.name = name;
            if (!min.is_none() || !max.is_none()) {
              o.constraint = user_range(
                  "create_symbol " + (name.empty() ? source : "'" + name + "' (" + source + ")"),
                  min, max);
            }
            o.specialize_zero_one = specialize_zero_one;
            return PySymInt{self->env.create_symbol(to_int(hint), source, to_policy(policy), o),
                            self};
          },
          py::arg("hint"), py::arg("source"), py::arg("policy") = "duck", py::arg("name") = "",
          py::arg("min") = py::none(), py::arg("max") = py::none(),
          py::arg("specialize_zero_one") = py::none(),
          "A size `hint` read from `source` (L['x'].size()[0]) as a symbol, or a constant (policy "
          "static, or a hint of 0 or 1). name: the user's name for it; min / max: the user's "
          "range, checked against the hint (ConstraintViolation).")
      .def(
          "create_unbacked_symint",
          [](const EnvPtr& self) {
            return PySymInt{self->env.create_unbacked_symint(), self};
          },
          "A fresh data-dependent symbol u0, u1, ... ranging over all integers.")
      .def(
          "constrain_range",
          [](const EnvPtr& self, py::handle v, py::handle min, py::handle max) {
            const SymInt value = symint_arg(v);
            self->env.constrain_range(value,
                                      user_range("constrain_range " + value.str(), min, max));
          },
          py::arg("value"), py::arg("min") = py::none(), py::arg("max") = py::none(),
          "Narrows an unbacked symbol's range.")
      .def(
          "constrain_as_size",
          [](const EnvPtr& self, py::handle v, py::handle min, py::handle max) {
            const SymInt value = symint_arg(v);
            self->env.constrain_as_size(value,
                                        user_range("constrain_as_size " + value.str(), min, max));
          },
          py::arg("value"), py::arg("min") = 0, py::arg("max") = py::none(),
          "Marks an unbacked symbol as a size (>= 0, and >= 2 for size-oblivious decisions).")
      .def(
          "symbol", [](const EnvPtr& self, const std::string& n) { return self->env.symbol(n); },
          py::arg("name"), "The symbol's information (Error when unknown).")
      .def_property_readonly(
          "symbols", [](const EnvPtr& self) { return self->env.symbols(); },
          "Every symbol, in creation order.")
      .def(
          "sym",
          [](const EnvPtr& self, const std::string& n) {
            return PySymInt{self->env.sym(n), self};
          },
          py::arg("name"), "The symbol as a SymInt.")
      .def(
          "wrap",
          [](const EnvPtr& self, py::handle e) {
            return PySymInt{self->env.wrap(to_expr(e)), self};
          },
          py::arg("expr"), "An expression over this env's symbols as a SymInt.")
      .def(
          "known",
          [](const EnvPtr& self, py::handle c) {
            return truth_text(self->env.known(symbool_arg(c)));
          },
          py::arg("cond"), "'true', 'false' or 'unknown', without a guard (symshape wraps it).")
      .def(
          "statically_known_true",
          [](const EnvPtr& self, py::handle c) {
            return self->env.statically_known_true(symbool_arg(c));
          },
          py::arg("cond"), "True only when cond holds wherever the facts do. Never adds a guard.")
      .def(
          "evaluate",
          [](const EnvPtr& self, py::handle c, py::handle where) {
            return self->env.evaluate(symbool_arg(c), to_provenance(where, self->where));
          },
          py::arg("cond"), py::arg("where") = py::none(),
          "cond's value: known, or decided on the hints with a guard recorded. Raises "
          "DataDependentError when it depends on an unbacked symbol.")
      .def(
          "guard_int",
          [](const EnvPtr& self, py::handle v, py::handle where) {
            return to_py(self->env.guard_int(symint_arg(v), to_provenance(where, self->where)));
          },
          py::arg("value"), py::arg("where") = py::none(),
          "The value: known, or its hint with the guard value == hint.")
      .def(
          "guard_or_false",
          [](const EnvPtr& self, py::handle c, py::handle where) {
            return self->env.guard_or_false(symbool_arg(c), to_provenance(where, self->where));
          },
          py::arg("cond"), py::arg("where") = py::none(),
          "Like evaluate, but a data-dependent question answers False with no guard.")
      .def(
          "guard_or_true",
          [](const EnvPtr& self, py::handle c, py::handle where) {
            return self->env.guard_or_true(symbool_arg(c), to_provenance(where, self->where));
          },
          py::arg("cond"), py::arg("where") = py::none(),
          "Like evaluate, but a data-dependent question answers True with no guard.")
      .def(
          "guard_size_oblivious",
          [](const EnvPtr& self, py::handle c, py::handle where) {
            return self->env.guard_size_oblivious(symbool_arg(c),
                                                  to_provenance(where, self->where));
          },
          py::arg("cond"), py::arg("where") = py::none(),
          "Decides cond as if every size-like unbacked symbol were >= 2.")
      .def(
          "defer_runtime_assert",
          [](const EnvPtr& self, py::handle c, py::handle where) {
            self->env.defer_runtime_assert(symbool_arg(c), to_provenance(where, self->where));
          },
          py::arg("cond"), py::arg("where") = py::none(),
          "Records cond as a runtime assert (and a fact). Raises Error when it is provably false.")
      .def(
          "simplify",
          [](const EnvPtr& self, py::handle e) -> py::object {
            if (py::isinstance<PySymBool>(e) || py::isinstance<Cond>(e)) {
              return py::cast(self->env.simplify(to_cond(e)));
            }
            return py::cast(self->env.simplify(to_expr(e)));
          },
          py::arg("value"), "The expression (or condition) under what the env knows, simplified.")
      .def(
          "bound", [](const EnvPtr& self, py::handle e) { return self->env.bound(to_expr(e)); },
          py::arg("value"), "The range of the expression's values under what the env knows.")
      .def(
          "size_hint",
          [](const EnvPtr& self, py::handle e) -> py::object {
            std::optional<Int> h = self->env.size_hint(to_expr(e));
            return h ? py::object(to_py(*h)) : py::none();
          },
          py::arg("value"), "The value at the hints (None when data-dependent).")
      .def(
          "is_data_dependent",
          [](const EnvPtr& self, py::handle e) { return self->env.is_data_dependent(to_expr(e)); },
          py::arg("value"), "Whether the expression involves an unbacked symbol.")
      .def_property_readonly(
          "guards", [](const EnvPtr& self) { return self->env.guards(); },
          "The guards recorded so far, with their provenance.")
      .def_property_readonly(
          "runtime_asserts", [](const EnvPtr& self) { return self->env.runtime_asserts(); },
          "The runtime asserts recorded so far.")
      .def_property_readonly(
          "replacements",
          [](const EnvPtr& self) {
            py::dict d;
            for (const auto& [k, v] : self->env.replacements()) d[py::str(k)] = py::cast(v);
            return d;
          },
          "{symbol: expression over earlier symbols}, learned from guards.")
      .def_property_readonly(
          "log", [](const EnvPtr& self) { return self->env.log(); },
          "The event log (when created with log=True).")
      .def(
          "at",
          [](const EnvPtr& self, std::string node, std::string op, std::string rule) {
            return ProvenanceScope{
                self, Provenance{std::move(node), std::move(op), std::move(rule)}, {}};
          },
          py::arg("node") = "", py::arg("op") = "", py::arg("rule") = "",
          "A context manager: guards recorded by bool() and int() inside carry this provenance.")
      .def(
          "assume",
          [](const EnvPtr& self, py::handle c) {
            return AssumptionBlock{self, symbool_arg(c), nullptr};
          },
          py::arg("cond"),
          "A context manager: inside, cond is assumed and decisions are static only; what was "
          "learned is forgotten at the end.");
}

}  // namespace symshape::python
