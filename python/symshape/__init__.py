"""symshape: symbolic-shape reasoning on GiNaC, from Python.

Expressions (parse_expr, simplify, bounds, prove, Expr.eval), the ShapeEnv (symbols with hints
and sources, SymInt / SymBool arithmetic that records guards as PyTorch's does, unbacked symbols,
runtime asserts), graphs (read_graph, load_graph, propagate, check), guards (guards /
produce_guards with every printer and the compiled checker) and the lowering passes (lower).
symshape.fx converts torch.fx graphs. See docs/python.md.

One ShapeEnv, and every value made from it, belongs to one thread at a time.
"""
import enum
import json as _json

from symshape import _core
from symshape._core import (  # noqa: F401 (re-exported)
    CheckFailure,
    Cond,
    ContradictoryFacts,
    ConstraintProblem,
    ConstraintViolation,
    DataDependentError,
    DimDecl,
    Error,
    Expr,
    Facts,
    Graph,
    Guard,
    GuardChecker,
    GuardSet,
    LowerResult,
    Node,
    PassError,
    PassOption,
    PassOptionError,
    PassReport,
    Propagation,
    Provenance,
    RuntimeAssert,
    ShapeEnv,
    Source,
    SymBool,
    SymbolDefinition,
    SymbolInfo,
    SymInt,
    TensorMeta,
    Value,
    ValueRange,
    check_constraints,
    format_constraint_problems,
    load_graph,
    read_onnx,
    parse_cond,
    parse_expr,
    produce_guards,
    sym_ceildiv,
    sym_max,
    sym_min,
)

__version__ = "0.1.0"


class ShapeError(Error):
    """A graph whose shapes do not check: the message names the node and what is wrong."""


class Truth(enum.Enum):
    """A three-valued decision. It has no truth value of its own, so that UNKNOWN is never read
    as False by accident: compare with `is Truth.TRUE`."""

    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    def __bool__(self):
        raise TypeError(f"Truth.{self.name} has no truth value: compare it with Truth.TRUE")


def _facts(facts=None, ranges=None, assume=None):
    """facts with the ranges and assumptions added (a copy: `facts` is not changed); raises
    ContradictoryFacts when they contradict each other."""
    if ranges is None and assume is None:
        return facts
    if isinstance(assume, (str, Cond)):
        assume = [assume]
    return _core.facts_with(facts, ranges, assume)


def simplify(e, facts=None, *, ranges=None, assume=None):
    """e (an Expr, a Cond, or the text of either) in simplest form under the facts: symbols range
    over [1, inf] unless `ranges` ({name: (lo, hi)}, None for an infinite end) says otherwise, and
    `assume` lists conditions taken to hold. Raises ContradictoryFacts, naming them, when the
    facts contradict each other (every answer would be vacuous)."""
    if isinstance(e, str):
        e = _parse(e)
    return _core.simplify(e, _facts(facts, ranges, assume))


def bounds(e, facts=None, *, ranges=None, assume=None):
    """A sound ValueRange of every value e takes under the facts (see simplify)."""
    return _core.bounds(e, _facts(facts, ranges, assume))


def prove(cond, facts=None, *, ranges=None, assume=None):
    """Truth.TRUE when cond holds at every point the facts allow, Truth.FALSE when at none,
    else Truth.UNKNOWN. Never guesses."""
    return Truth(_core.prove_text(cond, _facts(facts, ranges, assume)))


def evaluate(e, **values):
    """The value of an expression or condition (or its text) with every symbol bound."""
    if isinstance(e, str):
        e = _parse(e)
    return e.eval(**values)


def _parse(text):
    """A condition when the text has a comparison, else an expression."""
    try:
        return parse_expr(text)
    except Error as expr_error:
        try:
            return parse_cond(text)
        except Error:
            raise expr_error from None


def ceildiv(a, b):
    """Ceiling division of Exprs, SymInts or ints."""
    if isinstance(a, Expr) or isinstance(b, Expr):
        return _core.expr_ceildiv(a, b)
    return sym_ceildiv(a, b)


def known(env, cond):
    """What env can decide about cond without a guard: a Truth."""
    return Truth(env.known(cond))


def read_graph(text):
    """A Graph from JSON text or from a dict in the graph format (docs/graph-format.md)."""
    if not isinstance(text, str):
        text = _json.dumps(text)
    return _core.read_graph(text)


def propagate(graph, env=None, dims=None, *, skip_unknown_ops=False):
    """Propagates shapes through graph under env (a new ShapeEnv when None); dims overrides the
    graph's declared dims, {name: (min, max)}. Returns a Propagation; a shape error is reported
    in it (.ok, .error), not raised."""
    if isinstance(graph, (str, dict)):
        graph = read_graph(graph)
    return _core.propagate(graph, env, dims, skip_unknown_ops)


def check(graph, env=None, dims=None):
    """propagate(), raising ShapeError with the library's message when the shapes do not check.
    Returns the Propagation."""
    p = propagate(graph, env, dims)
    if not p.ok:
        raise ShapeError(p.error)
    return p


def guards(graph, dims=None, env=None):
    """Checks graph and returns the GuardSet over its inputs; raises ShapeError when the shapes
    do not check and ConstraintViolation (with torch.export's report) when the guards contradict
    a declared dim's range."""
    p = check(graph, env, dims)
    problems = check_constraints(p.env)
    if problems:
        raise ConstraintViolation(format_constraint_problems(problems))
    return produce_guards(p.env, p.graph)


def view(graph, path, dims=None, title=None):
    """Writes one self-contained HTML page of graph to path (docs/view.md): the graph drawn top
    to bottom with every value's dtype and symbolic shape, its guards, symbols, runtime asserts
    and constraint problems, each linked to its node. dims overrides the declared dims,
    {name: (min, max)}; a shape error is shown on the page. Returns path."""
    if isinstance(graph, (str, dict)):
        graph = read_graph(graph)
    page = _core.view_page(graph, dims, title if title is not None else "symshape view")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(page)
    return path


def _guard_set_json(self):
    """The guards as a JSON document (a dict): guards with provenance, sources, symbols."""
    return _json.loads(self.json_text())


GuardSet.json = _guard_set_json


def _checker_check_tensors(self, *tensors, dims=None, **named):
    """check() on the values read off tensors (torch tensors, or anything with .shape, .stride()
    and .storage_offset()): given in the order of the graph's inputs (those with sizes; others,
    and non-tensors, are skipped) or by input name. dims: {name: value} for dims no input's size
    gives (`dims['W']` sources). None when every guard holds, else the CheckFailure."""
    inputs = list(dict.fromkeys(s.input for s in self.sources if s.kind != "dim"))
    given = dict(named)
    positional = [t for t in tensors if len(getattr(t, "shape", ())) > 0]
    if len(positional) > len(inputs):
        raise Error(f"{len(positional)} tensors for the {len(inputs)} inputs the guards read "
                    f"({', '.join(inputs)})")
    for name, t in zip(inputs, positional):
        if name in given:
            raise Error(f"input {name} is given twice (by position and by name)")
        given[name] = t
    values = {}
    for s in self.sources:
        if s.kind == "dim":
            if not dims or s.input not in dims:
                raise Error(f"the guards read the dim {s.input}: give dims={{'{s.input}': ...}}")
            values[s.name] = int(dims[s.input])
            continue
        if s.input not in given:
            raise Error(f"no tensor for the input {s.input} (the guards read {s.name}); the "
                        f"inputs are {', '.join(inputs)}")
        t = given[s.input]
        if s.kind == "size":
            values[s.name] = int(t.shape[s.dim])
        elif s.kind == "stride":
            values[s.name] = int(t.stride()[s.dim])
        else:
            values[s.name] = int(t.storage_offset())
    return self.check(values)


GuardChecker.check_tensors = _checker_check_tensors


def _number(v):
    """float() of an int, a float, a SymInt (specialized, with its guard) or a SymFloat."""
    return float(int(v)) if isinstance(v, SymInt) else float(v)


def _hint(v):
    if isinstance(v, SymInt):
        return None if v.hint is None else float(v.hint)
    if isinstance(v, SymFloat):
        return v.hint
    return float(v)


class SymFloat:
    """A float computed from SymInts (`s / 2`, `s * 0.5`, `s ** -1`), as PyTorch's SymFloat:
    `hint` is its value at the hints without a guard; float() specializes the SymInts it comes
    from (recording their guards) and computes it. Arithmetic with numbers, SymInts and
    SymFloats gives a SymFloat."""

    __slots__ = ("_op", "_a", "_b")
    _OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
            "/": lambda a, b: a / b, "**": lambda a, b: a ** b}

    def __init__(self, op, a, b):
        self._op, self._a, self._b = op, a, b

    @property
    def hint(self):
        a, b = _hint(self._a), _hint(self._b)
        return None if a is None or b is None else self._OPS[self._op](a, b)

    def __float__(self):
        return self._OPS[self._op](_number(self._a), _number(self._b))

    def __str__(self):
        return f"({self._a} {self._op} {self._b})"

    def __repr__(self):
        return f"SymFloat{self}"

    def __bool__(self):
        return float(self) != 0.0

    __hash__ = None


def _sym_operand(v):
    return isinstance(v, (int, float, SymInt, SymFloat)) and not isinstance(v, bool)


def _sym_float_op(op, reflected=False):
    def method(self, other):
        if not _sym_operand(other):
            return NotImplemented
        return SymFloat(op, other, self) if reflected else SymFloat(op, self, other)
    return method


for _op, _name in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("**", "pow")):
    setattr(SymFloat, f"__{_name}__", _sym_float_op(_op))
    setattr(SymFloat, f"__r{_name}__", _sym_float_op(_op, True))


def _symint_truediv(self, other):
    """s / x: a SymFloat, as PyTorch's SymInt's true division."""
    return SymFloat("/", self, other) if _sym_operand(other) else NotImplemented


def _symint_rtruediv(self, other):
    return SymFloat("/", other, self) if _sym_operand(other) else NotImplemented


_symint_mul = SymInt.__mul__
_symint_rmul = SymInt.__rmul__
_symint_add = SymInt.__add__
_symint_radd = SymInt.__radd__
_symint_sub = SymInt.__sub__
_symint_rsub = SymInt.__rsub__


def _with_float(int_method, op, reflected=False):
    """A SymInt operator that also takes a float (giving a SymFloat)."""
    def method(self, other):
        if isinstance(other, (float, SymFloat)):
            return SymFloat(op, other, self) if reflected else SymFloat(op, self, other)
        return int_method(self, other)
    method.__doc__ = int_method.__doc__
    return method


def _symint_pow(self, other):
    """s ** n: a SymInt for an int n >= 0, else a SymFloat (as PyTorch's)."""
    if isinstance(other, int) and not isinstance(other, bool) and other >= 0:
        return self.env.wrap(self.expr ** other) if self.env is not None else SymInt(
            int(self) ** other)
    return SymFloat("**", self, other) if _sym_operand(other) else NotImplemented


def _symint_rpow(self, other):
    return SymFloat("**", other, self) if _sym_operand(other) else NotImplemented


SymInt.__truediv__ = _symint_truediv
SymInt.__rtruediv__ = _symint_rtruediv
SymInt.__mul__ = _with_float(_symint_mul, "*")
SymInt.__rmul__ = _with_float(_symint_rmul, "*", True)
SymInt.__add__ = _with_float(_symint_add, "+")
SymInt.__radd__ = _with_float(_symint_radd, "+", True)
SymInt.__sub__ = _with_float(_symint_sub, "-")
SymInt.__rsub__ = _with_float(_symint_rsub, "-", True)
SymInt.__pow__ = _symint_pow
SymInt.__rpow__ = _symint_rpow


def passes():
    """{name: (description, [PassOption])} of every lowering pass."""
    return {name: (description, options) for name, description, options in _core.pass_list()}


def pipelines():
    """{name: (description, [pass names])} of the named pipelines."""
    return _core.pipeline_list()


def lower(graph, passes=None, *, pipeline=None, options=None, dims=None, verify_numerics=False,
          verify_each_pass=True, seed=0, env=None):
    """Runs lowering passes under the PassManager's checks and returns a LowerResult (.graph,
    .reports, .env). passes: 'dce,cse' or a list of names (a name may carry options,
    'cse{max=4}'); else `pipeline` (default: 'default'). options: {pass: {option: value}}.
    Raises PassError naming the pass and the node when a pass fails its checks, ShapeError when
    the input graph does not check, Error for an unknown pass or option."""
    if isinstance(graph, (str, dict)):
        graph = read_graph(graph)
    if passes is not None and pipeline is not None:
        raise Error("give passes or pipeline, not both")
    if passes is not None and not isinstance(passes, str):
        passes = ",".join(passes)
    result = _core.lower_graph(graph, passes or "", pipeline or "", options, dims,
                               verify_numerics, verify_each_pass, seed, env)
    if not result.ok:
        if not result.failed_pass:
            raise ShapeError(result.error)
        if result.bad_option:
            raise PassOptionError(result.error)
        raise PassError(result.error)
    return result


__all__ = [name for name in dir() if not name.startswith("_") and name not in ("enum",)]
