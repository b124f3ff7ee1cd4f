"""symshape.fx: PyTorch FX graphs in and out.

    import symshape.fx
    conv = symshape.fx.trace(model.eval(), torch.randn(2, 3, 32, 32), dynamic={"x": {0: "batch"}})
    conv.check()              # symshape's shapes, batch symbolic; ShapeError naming the node
    conv.guards().python()    # what a compiled graph needs at run time
    conv.annotate()           # node.meta["symshape"] on every FX node
    conv.save("model.json")   # the graph format (docs/graph-format.md)

trace() runs make_fx(tracing_mode="symbolic") at the ATen level, with the model's parameters and
buffers as static inputs and the dims named in `dynamic` symbolic; from_fx() converts a
GraphModule that was traced that way already. The sizes traced with are the dims' hints.

Tested with PyTorch 1.13 (Debian's python3-torch). PyTorch 1.13 specifics handled here:
  - symbolic tracing runs under FakeTensorMode, which refuses real parameters: the model runs
    through stateless.functional_call with its parameters and buffers as traced inputs;
  - parameters keep static sizes (buffers are passed as frozen parameters); the inputs' dims not
    named dynamic stay plain ints while tracing; each dim named dynamic gets a symbol of its own
    (1.13 would give dims of equal traced size one symbol: duck shaping);
  - aten.dropout's, aten.narrow's and aten.chunk's C++ composites ask for concrete sizes: Python
    composites are registered for them while tracing (as PyTorch 2's decompositions); chunk of a
    symbolic size (after cat) is traced as its slices; Tensor.narrow / torch.narrow with a SymInt
    is a slice; F.pad by SymInt amounts is a cat of filled blocks; basic-indexing assignment is a
    fill or copy of the view; adaptive_avg_pool2d to 1x1 is a mean;
  - the upsample ops (F.interpolate) have no symbolic meta functions: FakeTensor gets them;
  - anything else PyTorch's tracer refuses is a ConversionError that says so (see _tracer_error);
    float() of a SymInt evaluates it;
  - nothing requires grad: autograd's kernels of view ops ask for concrete sizes;
  - the eval-mode fast paths of MultiheadAttention and TransformerEncoderLayer call fused kernels
    without meta functions: those modules are traced through their composite path, which computes
    the same (see _composite_attention);
  - Tensor indexing's C++ code asks for concrete sizes: basic indexing (ints, slices, None, ...)
    is traced as the slices, squeezes and unsqueezes it stands for (see _basic_getitem).
  - view_as_complex / view_as_real have no symbolic meta function and their view-tracking
    kernel asks for concrete sizes: metas are registered for them (see _install_complex_views).
Graphs from torch.export (PyTorch 2) go through from_fx(exported.graph_module, ...) on the same
path; that path has not been tested here (no torch.export in 1.13).

Command line: python3 -m symshape.fx torchvision.models:resnet18 --input 4,3,32,32 \
    --dynamic x:0:batch:2:64 -o resnet18.json      (see main()).

Back to PyTorch (symshape/fx_out.py): to_fx(graph, conv) builds a GraphModule from a symshape
graph; conv.lower(pipeline=..., verify_torch=True) lowers with the library's passes and checks
the result against the original in PyTorch eager; `--lower PIPELINE -o out.py|out.pt` on the
command line.
"""
import contextlib
import inspect
import json
import math
import operator
import re

import sympy
import torch
import torch.nn as nn

import symshape

__all__ = ["Dim", "Conversion", "ConversionError", "trace", "from_fx", "to_fx", "expr_text",
           "dumps"]

aten = torch.ops.aten


class ConversionError(symshape.Error):
    """An FX graph that cannot be converted: names the input, dim or node and why."""


class _DimMode:
    """Dim.AUTO / Dim.DYNAMIC: a dim with no name of its own, its range inferred."""

    def __init__(self, mode):
        self.mode = mode

    def __repr__(self):
        return f"Dim.{self.mode.upper()}"


class Dim:
    """A dynamic dim with a declared range (torch.export's Dim): min defaults to 2 (sizes 0 and 1
    are specialized), max to unbounded. A guard that narrows the range raises ConstraintViolation
    with the fix (`h = Dim('h', min=17)`).

    A plain name instead of a Dim means the range is inferred (torch.export's Dim.DYNAMIC): what
    the model requires is reported (Conversion.ranges()) and no error is raised unless the dim is
    specialized to a constant. Dim.DYNAMIC and Dim.AUTO do the same for a dim named after its
    input and position (`x_2`); Dim.AUTO also lets the dim be specialized."""

    AUTO = _DimMode("auto")
    DYNAMIC = _DimMode("dynamic")

    def __init__(self, name, min=2, max=None):  # noqa: A002 (torch.export's names)
        self.name = name
        self.min = min
        self.max = max

    def __repr__(self):
        return f"Dim({self.name!r}, min={self.min}, max={self.max})"


def _dim(spec, default_name=None):
    """(name, min, max, mode) of a dim given as a name, a Dim, a torch.export Dim or Dim.AUTO /
    Dim.DYNAMIC (theirs or torch.export's). mode: "strict" (a declared range), "dynamic" (the
    range inferred; an error when specialized) or "auto" (inferred; may be specialized)."""
    if isinstance(spec, str):
        return spec, 2, None, "dynamic"
    mode = spec.mode if isinstance(spec, _DimMode) else None
    if mode is None and type(spec).__name__ == "_DimHint":  # torch.export's Dim.AUTO / DYNAMIC
        mode = str(getattr(spec, "type", spec)).rsplit(".", 1)[-1].lower()
        if mode not in ("auto", "dynamic"):
            raise ConversionError(f"{spec!r}: only Dim.AUTO and Dim.DYNAMIC are supported here")
    if mode is not None:
        if default_name is None:
            raise ConversionError(f"{spec!r} needs the input and dim it is given for")
        return default_name, 2, None, mode
    name = getattr(spec, "name", None) or getattr(spec, "__name__", None)
    if not isinstance(name, str):
        raise ConversionError(f"a dynamic dim is a name, a Dim(name, min, max), Dim.AUTO or "
                              f"Dim.DYNAMIC, got {spec!r}")
    lo, hi = getattr(spec, "min", 2), getattr(spec, "max", None)
    # torch.export's Dim spells an unbounded max as a huge int.
    if hi is not None and hi >= 2 ** 62:
        hi = None
    return name, lo, hi, "strict"


# ---------------------------------------------------------------------------------------------
# PyTorch 1.13: composites that work under symbolic sizes
# ---------------------------------------------------------------------------------------------
_composites_installed = False


def _install_symbolic_composites():
    """Registers Python composites for the ops whose 1.13 C++ composites refuse symbolic sizes.
    They only take effect under the Python dispatcher (make_fx), never in eager execution."""
    global _composites_installed
    if _composites_installed or not hasattr(torch, "SymIntNode"):
        return
    from torch._C import DispatchKey

    def dropout(x, p, train):
        if not train or p == 0:
            return x
        return aten.native_dropout.default(x, p, train)[0]

    def narrow(x, dim, start, length):
        return aten.slice.Tensor(x, dim, start, start + length)

    def chunk(x, chunks, dim=0):
        size = x.size(dim)
        step = (size + chunks - 1) // chunks
        if isinstance(step, int):
            return aten.split.Tensor(x, step, dim)
        # 1.13's split.Tensor takes no SymInt (a size after cat): the slices it stands for.
        # Always `chunks` of them, so that no decision on the traced size is hidden in
        # PyTorch's env: where PyTorch returns fewer (ceil(n / ceil(n / chunks)) < chunks, at
        # small n), the extra ones are empty and the others are PyTorch's.
        return [aten.slice.Tensor(x, dim, i * step, (i + 1) * step) for i in range(chunks)]

    def upsample_size(x, output_size, scale_factors):
        """The spatial output size of upsample_*.vec: output_size, or each input size times its
        scale (an integral scale keeps the size symbolic; another specializes it)."""
        if output_size is not None:
            return list(output_size)
        return [x.shape[2 + i] * int(f) if float(f).is_integer() else
                int(float(x.shape[2 + i]) * f) for i, f in enumerate(scale_factors)]

    def upsample_meta(spatial):
        def vec(x, output_size, *rest):
            # (input, output_size, scale_factors) or, for the linear modes, (input,
            # output_size, align_corners, scale_factors)
            size = upsample_size(x, output_size, rest[-1])
            return x.new_empty([x.shape[0], x.shape[1]] + size[:spatial])

        def default(x, output_size, *rest):
            return x.new_empty([x.shape[0], x.shape[1]] + list(output_size)[:spatial])
        return vec, default

    # Ops whose 1.13 meta functions (or C++ composites) are missing for symbolic sizes: meta
    # functions for FakeTensor, which the graph records as the ops themselves.
    from torch._meta_registrations import meta_table
    for name, spatial in (("upsample_nearest1d", 1), ("upsample_nearest2d", 2),
                          ("upsample_nearest3d", 3), ("upsample_linear1d", 1),
                          ("upsample_bilinear2d", 2), ("upsample_bicubic2d", 2),
                          ("upsample_trilinear3d", 3)):
        packet = getattr(aten, name, None)
        if packet is None:
            continue
        vec, default = upsample_meta(spatial)
        for overload, fn in (("vec", vec), ("default", default)):
            op = getattr(packet, overload, None)
            if op is not None and op not in meta_table:
                meta_table[op] = fn

    def adaptive_avg_pool2d(x, output_size):
        # 1.13's C++ composite reads concrete sizes; a 1x1 output (classifier heads) is a mean.
        if list(output_size) == [1, 1]:
            return aten.mean.dim(x, [-1, -2], True)
        return aten._adaptive_avg_pool2d.default(x, output_size)

    aten.adaptive_avg_pool2d.default.py_impl(DispatchKey.CompositeImplicitAutograd)(
        adaptive_avg_pool2d)
    aten.dropout.default.py_impl(DispatchKey.CompositeImplicitAutograd)(dropout)
    aten.narrow.default.py_impl(DispatchKey.CompositeImplicitAutograd)(narrow)
    aten.chunk.default.py_impl(DispatchKey.CompositeImplicitAutograd)(chunk)
    # math.sqrt(E) in multi_head_attention_forward: float() of a SymInt evaluates it (a guard on
    # its value; a dynamic dim specialized that way is caught after tracing).
    torch.SymIntNode.__float__ = lambda self: float(self.get_pyobj().guard_int("", 0))
    _install_complex_views()
    _composites_installed = True


def _install_complex_views():
    """PyTorch 1.13 has no symbolic meta function for view_as_complex / view_as_real, and their
    ADInplaceOrView kernels ask for concrete sizes: while tracing, their metas are registered
    and that kernel is skipped (nothing requires grad while tracing)."""
    from torch._C import DispatchKey
    from torch._meta_registrations import meta_table

    complex_of = {torch.float32: torch.complex64, torch.float64: torch.complex128}
    real_of = {v: k for k, v in complex_of.items()}

    def view_as_complex(x):
        return torch.empty_strided(list(x.shape[:-1]), [s // 2 for s in x.stride()[:-1]],
                                   dtype=complex_of[x.dtype], device=x.device)

    def view_as_real(x):
        return torch.empty_strided(list(x.shape) + [2], [s * 2 for s in x.stride()] + [1],
                                   dtype=real_of[x.dtype], device=x.device)

    def below_view_tracking(op):
        def kernel(x):
            guard = torch._C.ExcludeDispatchKeyGuard(
                torch._C.DispatchKeySet(DispatchKey.ADInplaceOrView))
            try:
                return op(x)
            finally:
                del guard
        return kernel

    for op, meta in ((aten.view_as_complex.default, view_as_complex),
                     (aten.view_as_real.default, view_as_real)):
        meta_table.setdefault(op, meta)
        op.py_impl(DispatchKey.ADInplaceOrView)(below_view_tracking(op))


# ---------------------------------------------------------------------------------------------
# sympy -> symshape's expression grammar
# ---------------------------------------------------------------------------------------------
def _symbolic_shapes():
    from torch.fx.experimental import symbolic_shapes
    return symbolic_shapes


def expr_text(e):
    """A sympy size expression in the grammar of symshape.parse_expr (Python integer arithmetic,
    FloorDiv as //). Every quotient and remainder is parenthesized whole: `8*(a)//(b)` would read
    as `(8*a)//b`."""
    ss = _symbolic_shapes()
    e = sympy.sympify(e)
    if e.is_Integer:
        return str(int(e))
    if e.is_Symbol:
        return str(e)
    if isinstance(e, ss.FloorDiv):
        return f"(({expr_text(e.args[0])})//({expr_text(e.args[1])}))"
    if isinstance(e, sympy.Mod):
        return f"(({expr_text(e.args[0])}) % ({expr_text(e.args[1])}))"
    if hasattr(ss, "Ceil") and isinstance(e, ss.Ceil):
        return expr_text(e.args[0])  # Ceil of an integer expression is itself
    if e.is_Add:
        return "(" + " + ".join(expr_text(a) for a in e.args) + ")"
    if e.is_Mul:
        num, den = e.as_numer_denom()
        if den != 1:
            # Only whole quotients reach here (a FloorDiv that divisibility made exact).
            return f"(({expr_text(num)})//({expr_text(den)}))"
        return "*".join(expr_text(a) for a in e.args)
    if e.is_Pow and e.exp.is_Integer and e.exp > 0:
        return f"({expr_text(e.base)})**{int(e.exp)}"
    if isinstance(e, (sympy.Max, sympy.Min)):
        return ("max(" if isinstance(e, sympy.Max) else "min(") + ", ".join(
            expr_text(a) for a in e.args) + ")"
    raise ConversionError(f"no symshape form for the size {e!r} ({type(e).__name__})")


def _sym_expr(s):
    """The sympy expression of a size: an int, a 1.13 SymIntNode / PySymInt or a 2.x SymInt."""
    if isinstance(s, int):
        return sympy.Integer(s)
    ss = _symbolic_shapes()
    if hasattr(ss, "PySymInt") and isinstance(s, ss.PySymInt):
        return s.expr
    if hasattr(s, "get_pyobj"):
        return s.get_pyobj().expr  # 1.13 torch.SymIntNode
    if hasattr(s, "node") and hasattr(s.node, "expr"):
        return s.node.expr  # 2.x torch.SymInt
    raise ConversionError(f"not a size: {s!r}")


def _is_symint(a):
    return not isinstance(a, (bool, int)) and (
        hasattr(a, "get_pyobj") or (hasattr(a, "node") and hasattr(a.node, "expr"))
        or type(a).__name__ in ("PySymInt", "SymInt", "SymIntNode"))


# ---------------------------------------------------------------------------------------------
# FX graph -> symshape graph
# ---------------------------------------------------------------------------------------------
_OPERATORS = (operator.getitem, operator.mul, operator.add, operator.sub, operator.floordiv,
              operator.mod, operator.truediv, operator.neg, operator.eq, operator.ne,
              operator.lt, operator.le, operator.gt, operator.ge)


def _target(node):
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return str(t)
    if isinstance(t, torch._ops.OpOverloadPacket):
        # PyTorch 1.13 records sym_size and sym_stride by their packets; with a dim, the call is
        # the overload sym_size.int / sym_stride.int (sym_size has no other).
        if str(t) == "aten.sym_size" or (str(t) == "aten.sym_stride"
                                         and len(node.args) + len(node.kwargs) == 2):
            return str(t) + ".int"
        return str(t) + ".default"
    if t in _OPERATORS:
        return "operator." + t.__name__
    raise ConversionError(f"node {node.name}: no symshape target for {t!r}")


def _shape_env(gm):
    env = getattr(gm, "shape_env", None)
    if env is not None:
        return env
    for n in gm.graph.nodes:
        val = n.meta.get("val")
        mode = getattr(val, "fake_mode", None)
        if mode is not None and getattr(mode, "shape_env", None) is not None:
            return mode.shape_env
    return None


# node.meta key of the placeholders trace() passes the model's parameters and buffers in: the
# value is the parameter's name (`conv1.weight`); the graph has them as get_attr nodes.
_PARAMETER = "symshape_parameter"


def _kernel_meta(node, val):
    """node's metadata as PyTorch's kernels give it, where the trace recorded another.
    PyTorch 1.13's meta function of native_batch_norm in inference (training=False, its fake
    tracing) gives save_mean and save_invstd the running statistics' shape [C]; its CPU kernel,
    and its symbolic tracing, give them none: [0]."""
    if (node.op == "call_function" and node.target is operator.getitem
            and isinstance(val, torch.Tensor) and node.args[1] in (1, 2)
            and isinstance(node.args[0], torch.fx.Node)
            and node.args[0].target is torch.ops.aten.native_batch_norm.default):
        bn_args = node.args[0].args
        training = bn_args[5] if len(bn_args) > 5 else node.args[0].kwargs.get("training")
        if training is False and val.dim() == 1 and val.shape[0] != 0:
            return torch.empty((0,), dtype=val.dtype)
    return val


class _Exporter:
    def __init__(self, gm, placeholder_names, dynamic):
        """placeholder_names: the names to give the placeholders, in order; dynamic: for each
        placeholder index, {dim: (name, min, max)} of the dims that stay symbolic."""
        self.gm = gm
        self.env = _shape_env(gm)
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        if len(placeholder_names) != len(self.placeholders):
            raise ConversionError(f"{len(placeholder_names)} input names for "
                                  f"{len(self.placeholders)} placeholders")
        self.names = dict(zip(self.placeholders, placeholder_names))
        self.subs = {}
        self.hints = {}
        self.declared = {}
        self.modes = {}  # dim name -> "strict", "dynamic" or "auto" (see _dim)
        if dynamic and self.env is None:
            raise ConversionError("the GraphModule has no ShapeEnv: trace it with "
                                  "make_fx(f, tracing_mode='symbolic') to keep dims dynamic")
        if self.env is not None:
            self._bind_symbols(dynamic)

    def _replace(self, expr):
        return self.env.replace(expr) if self.env is not None else expr

    def _bind_symbols(self, dynamic):
        """Names the dynamic dims' symbols and substitutes every other symbol by its value."""
        named = {}
        for index, dims in dynamic.items():
            node = self.placeholders[index]
            val = node.meta.get("val")
            if not isinstance(val, torch.Tensor):
                raise ConversionError(f"input {self.names[node]} is not a tensor")
            for d, (name, lo, hi, mode) in dims.items():
                if not -val.dim() <= d < val.dim():
                    raise ConversionError(f"input {self.names[node]} has {val.dim()} dims: "
                                          f"no dim {d} ({name})")
                expr = self._replace(_sym_expr(val.shape[d]))
                if not expr.is_Symbol and mode == "auto":
                    continue  # Dim.AUTO: specialized while tracing, taken as traced
                if not expr.is_Symbol:
                    raise ConversionError(
                        f"dim {d} of {self.names[node]} ({name}) is not symbolic after tracing "
                        f"({expr}): a size of 0 or 1 is specialized; trace with another size")
                if expr in named and named[expr] != name:
                    raise ConversionError(
                        f"{named[expr]} and {name} have the same traced size "
                        f"({self.env.var_to_val[expr]}): PyTorch gives both one symbol; trace "
                        "with different sizes")
                named[expr] = name
                lo0, hi0 = self.declared.get(name, (lo, hi))
                self.declared[name] = (max(lo, lo0), hi if hi0 is None else
                                       (hi0 if hi is None else min(hi, hi0)))
                # A dim given both ways is as strict as its strictest mention.
                order = ("auto", "dynamic", "strict")
                self.modes[name] = max(mode, self.modes.get(name, "auto"), key=order.index)
        for expr, name in named.items():
            if not self._replace(expr).is_Symbol:
                raise ConversionError(
                    f"PyTorch specialized {name} to {self._replace(expr)} while tracing (a stride "
                    "or size of the same value?): trace with another size for it")
        for i, node in enumerate(self.placeholders):
            val = node.meta.get("val")
            if not isinstance(val, torch.Tensor):
                continue
            for d, s in enumerate(val.shape):
                expr = self._replace(_sym_expr(s))
                wanted = dynamic.get(i, {}).get(d) or dynamic.get(i, {}).get(d - val.dim())
                if expr in named and (wanted is None or wanted[0] != named[expr]):
                    raise ConversionError(
                        f"dim {d} of {self.names[node]} has the size of {named[expr]} "
                        f"({self.env.var_to_val[expr]}): PyTorch gives both one symbol; "
                        f"trace with another size for {named[expr]}")
        for sym, val in self.env.var_to_val.items():
            if sym in named:
                self.subs[sym] = sympy.Symbol(named[sym], positive=True, integer=True)
            else:
                self.subs[sym] = sympy.Integer(int(val))
        for sym, name in named.items():
            self.hints[name] = int(self.env.var_to_val[sym])

    def size(self, s):
        # No sympy.simplify: symshape simplifies what it reads, and sympy's simplify of the
        # nested floor divisions of a symbolic height and width takes minutes per model.
        expr = self._replace(_sym_expr(s)).xreplace(self.subs)
        if expr.is_Integer:
            return int(expr)
        return expr_text(expr)

    def arg(self, a, node):
        if isinstance(a, torch.fx.Node):
            return {"node": self.name(a)}
        if a is None or isinstance(a, (bool, str)):
            return a
        if isinstance(a, int):
            return a
        if isinstance(a, float):
            return a if math.isfinite(a) else {"float": str(a)}
        if _is_symint(a):
            v = self.size(a)
            return v if isinstance(v, int) else {"expr": v}
        if isinstance(a, torch.dtype):
            return {"dtype": str(a).replace("torch.", "")}
        if isinstance(a, torch.device):
            return {"device": str(a)}
        if isinstance(a, torch.layout):
            return {"layout": str(a).replace("torch.", "")}
        if isinstance(a, torch.memory_format):
            return {"memory_format": str(a).replace("torch.", "")}
        if isinstance(a, (list, tuple)):
            return [self.arg(x, node) for x in a]
        raise ConversionError(f"node {node.name}: no symshape form for the argument {a!r}")

    def name(self, node):
        return self.names.get(node, node.name)

    def constant(self, n, e):
        """A get_attr node (a tensor constant make_fx captured, `_tensor_constant0`, or a
        parameter of a GraphModule traced with its parameters as attributes): its dtype, shape and
        strides from the tensor itself, and its contents as "value" (nested lists; complex numbers
        as [real, imag] pairs; non-finite floats as {"float": "-inf"}, as arguments write them), so
        that the graph runs with the constant's real values."""
        e["target"] = n.target
        try:
            t = self.gm
            for part in n.target.split("."):
                t = getattr(t, part)
        except AttributeError:
            raise ConversionError(f"node {n.name}: the GraphModule has no attribute "
                                  f"{n.target!r}") from None
        if not isinstance(t, torch.Tensor):
            raise ConversionError(f"node {n.name}: get_attr {n.target!r} is a "
                                  f"{type(t).__name__}, not a tensor")
        t = t.detach()
        if t.device.type == "meta" or type(t).__name__ == "FakeTensor":
            raise ConversionError(f"node {n.name}: the constant {n.target!r} has no values (a "
                                  "fake or meta tensor): trace with real constants")
        e["dtype"] = str(t.dtype).replace("torch.", "")
        e["shape"] = list(t.shape)
        e["stride"] = list(t.stride())
        if t.is_complex():
            t = torch.view_as_real(t.resolve_conj())
        elif t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()  # exact in float32; the dtype says what the constant is
        values = t.cpu().tolist()
        e["value"] = _finite_json(values) if t.is_floating_point() else values
        return e

    def export(self):
        nodes = []
        for n in self.gm.graph.nodes:
            e = {"name": self.name(n), "op": n.op}
            if n.op == "placeholder" and _PARAMETER in n.meta:
                # A parameter or buffer trace() passed: part of the model, not of the call.
                e = {"name": self.name(n), "op": "get_attr", "target": n.meta[_PARAMETER]}
            if n.op == "call_function":
                e["target"] = _target(n)
            elif n.op == "get_attr":
                nodes.append(self.constant(n, e))
                continue
            elif n.op not in ("placeholder", "output"):
                raise ConversionError(f"node {n.name}: unexpected FX node kind {n.op} (convert "
                                      "an ATen-level graph: make_fx or torch.export)")
            if n.op in ("call_function", "output"):
                e["args"] = [self.arg(a, n) for a in n.args]
            if n.kwargs:
                e["kwargs"] = {k: self.arg(v, n) for k, v in n.kwargs.items()}
            scope = _module_path(n)
            if scope:
                e["scope"] = scope
            val = _kernel_meta(n, n.meta.get("val"))
            if isinstance(val, torch.Tensor):
                e["dtype"] = str(val.dtype).replace("torch.", "")
                e["shape"] = [self.size(s) for s in val.shape]
                e["stride"] = [self.size(s) for s in val.stride()]
            elif n.op == "placeholder":
                raise ConversionError(f"input {self.name(n)} has no tensor metadata "
                                      "(node.meta['val']): trace with make_fx or torch.export")
            nodes.append(e)
        dims = {}
        for name, hint in self.hints.items():
            lo, hi = self.declared[name]
            if self.modes[name] != "strict":
                dims[name] = {"hint": hint}  # no declared range: the model's is inferred
                continue
            dims[name] = {"min": lo, "max": hi, "hint": hint} if hi is not None else {
                "min": lo, "hint": hint}
        return {"format": "symshape-graph", "version": 1, "dims": dims, "nodes": nodes}


def _module_path(node):
    """The module the FX node was traced in, `layer1.0.conv1`, from its nn_module_stack (the
    innermost entry; a value is the path and type, or just the type with the path as key)."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    key, value = list(stack.items())[-1]
    path = value[0] if isinstance(value, tuple) and value and isinstance(value[0], str) else key
    return path if isinstance(path, str) else ""


def _finite_json(values):
    """Nested lists of floats with nan and the infinities as {"float": "nan"} (JSON has no
    numbers for them; the graph format's spelling of a non-finite float argument)."""
    if isinstance(values, list):
        return [_finite_json(v) for v in values]
    if isinstance(values, float) and not math.isfinite(values):
        return {"float": str(values)}  # "nan", "inf", "-inf"
    return values


def dumps(graph):
    """A graph dict as JSON text, one node per line (symshape's canonical layout)."""
    out = ['{"format": "symshape-graph", "version": 1,\n']
    if graph.get("dims"):
        out.append(' "dims": ' + json.dumps(graph["dims"]) + ",\n")
    out.append(' "nodes": [\n')
    out.append(",\n".join("  " + json.dumps(n) for n in graph["nodes"]))
    out.append("]}\n")
    return "".join(out)


class Conversion:
    """An FX GraphModule converted to a symshape graph.

    gm: the GraphModule; graph_dict: the graph as a dict in the graph format; graph: the
    symshape.Graph; hints: {dim: traced size}; node_names: {FX node: symshape node name};
    state: for trace(), the model's parameters and buffers, which gm takes before the inputs."""

    def __init__(self, gm, graph_dict, node_names, example_inputs=None):
        self.gm = gm
        self.graph_dict = graph_dict
        self.graph = symshape.read_graph(dumps(graph_dict))
        self.node_names = node_names
        self.hints = {k: v["hint"] for k, v in graph_dict.get("dims", {}).items()}
        self.example_inputs = example_inputs
        self.state = []  # trace(): the parameters and buffers passed before the inputs
        # {dim: "strict" | "dynamic" | "auto"}: how each dynamic dim was given (see Dim).
        self.dim_modes = {}

    def to_json(self):
        """The graph as canonical JSON text."""
        return self.graph.to_json()

    def save(self, path):
        """Writes the graph (canonical JSON) to path."""
        self.graph.save(path)

    def check(self, dims=None, env=None):
        """Propagates symshape's shapes (every dynamic dim symbolic) and returns the
        Propagation; raises symshape.ShapeError naming the node when they do not check. dims
        overrides the declared ranges: {"batch": (1, 64)}."""
        return symshape.check(self.graph, env, dims)

    def guards(self, dims=None):
        """The GuardSet the converted graph needs at run time (see symshape.guards). Raises
        ConstraintViolation when a guard narrows a Dim's declared range, or specializes a dim
        given by a plain name or Dim.DYNAMIC to a constant; the ranges of those are inferred
        (ranges())."""
        p = self._checked(dims)
        return symshape.produce_guards(p.env, p.graph)

    def ranges(self, dims=None):
        """{dim: ValueRange}: the values of each dynamic dim the converted graph accepts (its
        declared range narrowed by what the model requires: a plain name's range is inferred).
        A dim given as Dim.AUTO that the model specializes is a point."""
        p = self._checked(dims)
        return {name: p.env.bound(symshape.Expr.symbol(name)) for name in self.hints}

    def _checked(self, dims):
        """check(), then the constraints of Dim: ConstraintViolation as torch.export's."""
        p = self.check(dims)
        problems = symshape.check_constraints(p.env)
        message = symshape.format_constraint_problems(problems) if problems else ""
        replaced = p.env.replacements
        specialized = [name for name, mode in self.dim_modes.items()
                       if mode == "dynamic" and name in replaced and replaced[name].is_constant()]
        if specialized:
            where = {str(g.cond): g for g in p.env.guards}
            lines = []
            for name in specialized:
                guard = where.get(f"{name} == {replaced[name]}")
                lines.append(f"  - {name} must be {replaced[name]}" +
                             (f" ({guard.where})" if guard is not None else "") +
                             f": give it as Dim.AUTO, or trace it static")
            message += ("" if message else "Constraints violated (" + ", ".join(specialized) +
                        ")!\n") + "the model specializes a dynamic dim to a constant:\n" + \
                "\n".join(lines) + "\n"
        if message:
            raise symshape.ConstraintViolation(message)
        return p

    def view(self, path, dims=None, title=None):
        """Writes the HTML page of the converted graph to path (symshape.view): shapes, guards,
        symbols, and nodes grouped by the module they came from. Returns path."""
        return symshape.view(self.graph, path, dims, title)

    def lower(self, passes=None, pipeline=None, options=None, verify_torch=False,
              verify_numerics=False, seed=0):
        """A new Conversion whose gm is this graph lowered by the library's passes (see
        symshape.lower; default: the default pipeline), back in PyTorch: parameters bound as
        attributes, complex inputs and outputs as here (.complex_io), .reports per pass.
        verify_torch: compare both modules in PyTorch eager at the hints and two more sizes per
        dynamic dim (symshape.fx_out.verify_torch). See symshape/fx_out.py."""
        from symshape import fx_out
        return fx_out.lower(self, passes, pipeline, options, verify_torch=verify_torch,
                            verify_numerics=verify_numerics, seed=seed)

    def annotate(self, propagation=None):
        """Sets node.meta["symshape"] on every FX node to symshape's Value (a tensor's .shape
        is a list of symshape.Expr over the dynamic dims) and returns the Propagation."""
        p = propagation if propagation is not None else self.check()
        for node in self.gm.graph.nodes:
            name = self.node_names.get(node)
            if name is not None:
                node.meta["symshape"] = p[name]
        return p


def to_fx(graph, conversion=None):
    """A torch.fx.GraphModule from a symshape graph (see symshape/fx_out.py): ATen targets to
    their torch.ops.aten overloads, getitem / sym_size / shape arithmetic to their Python forms,
    constants and the conversion's parameters bound as attributes, node.meta["symshape"] on
    every node."""
    from symshape import fx_out
    return fx_out.to_fx(graph, conversion)


def from_fx(gm, dynamic=None, input_names=None, example_inputs=None):
    """Converts an ATen-level GraphModule (make_fx with tracing_mode="symbolic", or torch.export's
    graph_module) into a symshape graph. dynamic: {input: {dim: name or Dim}} keyed by input name
    (input_names, else the placeholders' names) or position; every other size is taken at its
    traced value."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    names = list(input_names) if input_names is not None else [n.name for n in placeholders]
    by_index = {}
    for key, dims in (dynamic or {}).items():
        if isinstance(key, int):
            index = key
        elif key in names:
            index = names.index(key)
        else:
            raise ConversionError(f"dynamic names the input {key!r}, which is not one of the "
                                  f"graph's inputs ({', '.join(names)})")
        by_index[index] = {d: _dim(spec, f"{names[index]}_{d}") for d, spec in dims.items()}
    exporter = _Exporter(gm, names, by_index)
    graph = exporter.export()
    node_names = {n: exporter.name(n) for n in gm.graph.nodes}
    conv = Conversion(gm, graph, node_names, example_inputs)
    conv.dim_modes = {name: exporter.modes[name] for name in exporter.hints}
    return conv


@contextlib.contextmanager
def _static_input_dims(static_by_input):
    """While tracing, the input dims in static_by_input[k] (the k-th input tensor with dims, in
    order) are plain ints rather than symbols, and every other input dim gets a symbol of its own
    (PyTorch 1.13 would give dims of equal traced size one symbol). Parameters get no symbols at
    all, so the tensors PyTorch 1.13 asks symbols for are the inputs, in order."""
    ss = _symbolic_shapes()
    original = getattr(ss.ShapeEnv, "create_symint", None)
    if original is None:
        # Not PyTorch 1.13: every input dim gets a symbol, and the conversion takes the ones not
        # named dynamic at their traced values.
        yield
        return
    order = {}

    def create_symint(self, name, val):
        m = re.fullmatch(r"t(\d+)\.size\((\d+)\)", name)
        if m:
            k = order.setdefault(int(m.group(1)), len(order))
            if k < len(static_by_input) and int(m.group(2)) in static_by_input[k]:
                return val
            # A declared dynamic dim is its own symbol, as torch.export's distinct Dims are:
            # no duck sizing with an earlier dim of the same traced size (square images).
            self.val_to_symint.pop(val, None)
        return original(self, name, val)

    ss.ShapeEnv.create_symint = create_symint
    try:
        yield
    finally:
        ss.ShapeEnv.create_symint = original


@contextlib.contextmanager
def _composite_attention(model):
    """PyTorch 1.13's eval-mode fast paths of MultiheadAttention and TransformerEncoderLayer call
    fused kernels that have no meta function, so symbolic tracing cannot run them. While tracing,
    those modules take their composite path instead: MultiheadAttention in training mode with its
    dropout at 0, TransformerEncoderLayer with its own training flag set (its dropout submodules
    stay in eval mode). Both compute what eval mode computes."""
    saved = []
    if hasattr(torch, "SymIntNode"):
        for m in model.modules():
            if isinstance(m, nn.MultiheadAttention) and not m.training:
                saved.append((m, m.training, m.dropout))
                m.training, m.dropout = True, 0.0
            elif isinstance(m, nn.TransformerEncoderLayer) and not m.training:
                saved.append((m, m.training, None))
                m.training = True
    try:
        yield
    finally:
        for m, training, dropout in saved:
            m.training = training
            if dropout is not None:
                m.dropout = dropout


_INT64_MAX = 2 ** 63 - 1


def _basic_getitem(original):
    """Tensor.__getitem__ for basic indexing (ints, slices, None, Ellipsis) as the ATen ops it
    stands for (slice, squeeze for an int, unsqueeze for None); anything else goes to the
    original. PyTorch 1.13's C++
    indexing asks for concrete sizes, which symbolic tracing refuses."""

    def getitem(self, index):
        items = index if isinstance(index, tuple) else (index,)
        if not all(i is None or i is Ellipsis or isinstance(i, slice) or
                   (isinstance(i, int) and not isinstance(i, bool)) for i in items):
            return original(self, index)
        if sum(i is Ellipsis for i in items) > 1:
            return original(self, index)
        used = sum(1 for i in items if i is not None and i is not Ellipsis)
        if Ellipsis in items:
            at = items.index(Ellipsis)
            items = items[:at] + (slice(None),) * (self.dim() - used) + items[at + 1:]
        x, dim = self, 0
        for i in items:
            if i is None:
                x = aten.unsqueeze.default(x, dim)
                dim += 1
            elif isinstance(i, slice):
                # (not `i != slice(None)`: comparing a SymInt end with None fails in 1.13)
                if not (i.start is None and i.stop is None and i.step is None):
                    x = aten.slice.Tensor(x, dim, 0 if i.start is None else i.start,
                                          _INT64_MAX if i.stop is None else i.stop,
                                          1 if i.step is None else i.step)
                dim += 1
            else:
                # select has no symbolic meta function in 1.13: the slice of one, squeezed.
                x = aten.slice.Tensor(x, dim, i, _INT64_MAX if i == -1 else i + 1, 1)
                x = aten.squeeze.dim(x, dim)
        if x is self:
            x = aten.alias.default(self)
        return x

    return getitem


@contextlib.contextmanager
def _python_indexing():
    """While tracing under PyTorch 1.13, basic indexing goes through _basic_getitem."""
    if not hasattr(torch, "SymIntNode"):
        yield
        return
    original = torch.Tensor.__getitem__
    original_setitem = torch.Tensor.__setitem__
    original_narrow = torch.Tensor.narrow
    getitem = _basic_getitem(original)
    torch.Tensor.__getitem__ = getitem

    def setitem(self, index, value):
        # Basic indexing: an in-place fill or copy of the view getitem gives (the C++ indexing
        # asks for concrete sizes); anything else goes to the original.
        items = index if isinstance(index, tuple) else (index,)
        if not all(i is None or i is Ellipsis or isinstance(i, slice) for i in items):
            return original_setitem(self, index, value)
        view = getitem(self, index)
        if isinstance(value, torch.Tensor):
            view.copy_(value)
        else:
            view.fill_(value)

    torch.Tensor.__setitem__ = setitem

    def narrow(self, dim, start, length):
        # 1.13's Tensor.narrow binding refuses a SymInt start or length: the slice it is.
        if _is_symint(start) or _is_symint(length):
            return aten.slice.Tensor(self, dim, start, start + length)
        return original_narrow(self, dim, start, length)

    original_function = torch.narrow
    original_pad = torch.nn.functional.pad

    def pad(x, pad, mode="constant", value=None):
        # 1.13's pad binding refuses SymInt amounts (a window size padded to a multiple): a
        # constant pad is the input between filled blocks, and a negative amount a slice.
        if mode != "constant" or not any(_is_symint(p) for p in pad):
            return original_pad(x, pad, mode, value) if value is not None else original_pad(
                x, pad, mode)
        for i in range(len(pad) // 2):
            dim = x.dim() - 1 - i
            before, after = pad[2 * i], pad[2 * i + 1]
            parts = []
            for amount, at_end in ((before, False), (after, True)):
                if isinstance(amount, int) and amount == 0:
                    continue
                if isinstance(amount, int) and amount < 0:
                    x = aten.slice.Tensor(x, dim, 0, x.shape[dim] + amount) if at_end else \
                        aten.slice.Tensor(x, dim, -amount, _INT64_MAX)
                    continue
                shape = list(x.shape)
                shape[dim] = amount
                parts.append((at_end, x.new_full(shape, 0.0 if value is None else value)))
            if parts:
                x = torch.cat([p for at_end, p in parts if not at_end] + [x] +
                              [p for at_end, p in parts if at_end], dim)
        return x

    torch.Tensor.narrow = narrow
    torch.narrow = narrow
    torch.nn.functional.pad = pad
    try:
        yield
    finally:
        torch.Tensor.__getitem__ = original
        torch.Tensor.__setitem__ = original_setitem
        torch.Tensor.narrow = original_narrow
        torch.narrow = original_function
        torch.nn.functional.pad = original_pad


def _input_names(model, count):
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    names += [f"input_{i}" for i in range(len(names), count)]
    return names


def _tracer_error(e):
    """A ConversionError saying that PyTorch's symbolic tracer failed, and what to do instead."""
    what = type(e).__name__ + ": " + (str(e).strip().splitlines() or [""])[0][:400]
    return ConversionError(
        f"PyTorch {torch.__version__}'s symbolic tracer (make_fx(tracing_mode='symbolic')) "
        f"failed on this model: {what}. This is a limit of PyTorch's tracer, not of symshape: "
        "trace it statically (symshape.fx.trace without dynamic dims, or "
        "make_fx(f, tracing_mode='real') and symshape.fx.from_fx(gm)), or with a PyTorch that "
        "has torch.export (from_fx(program.graph_module, dynamic)).")


def trace(model, example_inputs, dynamic=None, input_names=None, tracing_mode="symbolic"):
    """Traces model (an nn.Module, in the mode it is in) at the ATen level with make_fx's symbolic
    tracing and converts it. example_inputs: a tensor or a tuple of tensors; their sizes are the
    hints. dynamic: {input name: {dim: name, Dim(name, min, max), Dim.AUTO or Dim.DYNAMIC}}
    (see Dim), input names being forward's parameter names (or input_names). Parameters and
    buffers are the graph's get_attr nodes, with static shapes, named after them (`conv1.weight`
    -> conv1_weight): the guards and the checker are over the real inputs only. (The FX graph
    takes them as placeholders before the inputs: Conversion.state.)

    tracing_mode="fake" traces with static sizes (make_fx(tracing_mode="fake")), for models
    PyTorch 1.13's symbolic tracer fails on (Swin-T: narrow, roll, pad ask for concrete sizes);
    dynamic must then be empty, and the conversion is the same otherwise (parameters bound)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils import stateless

    _install_symbolic_composites()
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    names = list(input_names) if input_names is not None else _input_names(
        model, len(example_inputs))
    dynamic = dict(dynamic or {})
    if tracing_mode not in ("symbolic", "fake"):
        raise ConversionError(f"tracing_mode {tracing_mode!r}: expected 'symbolic' or 'fake'")
    if tracing_mode == "fake" and dynamic:
        raise ConversionError("tracing_mode='fake' traces static sizes: dynamic must be empty "
                              f"(it names {', '.join(map(str, dynamic))})")
    for key in dynamic:
        if key not in names:
            raise ConversionError(f"dynamic names the input {key!r}, which is not one of "
                                  f"forward's inputs ({', '.join(names)})")
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    state_names = list(params) + list(buffers)
    # MetaConverter gives nn.Parameter inputs static sizes: buffers are passed as (frozen)
    # parameters too. Nothing requires grad: autograd's kernels of view ops (split) ask for
    # concrete sizes.
    state = [nn.Parameter(t.detach(), requires_grad=False)
             for t in list(params.values()) + list(buffers.values())]

    def f(state_values, *inputs):
        return stateless.functional_call(model, dict(zip(state_names, state_values)), inputs)

    for key, dims in dynamic.items():
        x = example_inputs[names.index(key)]
        for d, spec in dims.items():
            name = _dim(spec, f"{key}_{d}")[0]
            if not isinstance(x, torch.Tensor) or not -x.dim() <= d < x.dim():
                rank = x.dim() if isinstance(x, torch.Tensor) else 0
                raise ConversionError(f"input {key} has {rank} dims: no dim {d} ({name})")
    static = []
    for name, x in zip(names, example_inputs):
        if isinstance(x, torch.Tensor) and x.dim() > 0:
            wanted = {d % x.dim() for d in dynamic.get(name, {})}
            static.append(set(range(x.dim())) - wanted)
    try:
        with _static_input_dims(static), _composite_attention(model), _python_indexing():
            gm = make_fx(f, tracing_mode=tracing_mode)(state, *example_inputs)
    except (RuntimeError, TypeError, NotImplementedError, AssertionError, RecursionError) as e:
        raise _tracer_error(e) from e
    for node, state_name in zip((n for n in gm.graph.nodes if n.op == "placeholder"), state_names):
        node.meta[_PARAMETER] = state_name
    placeholder_names = [n.replace(".", "_") for n in state_names] + names
    for name in placeholder_names:
        if placeholder_names.count(name) > 1:
            raise ConversionError(f"two inputs are named {name}: pass input_names")
    offset = len(state_names)
    conv = from_fx(gm, {offset + names.index(k): v for k, v in dynamic.items()},
                   placeholder_names, example_inputs)
    conv.state = state
    conv.state_names = state_names  # to_fx binds them at these attribute paths
    conv.buffer_names = set(buffers)
    return conv


def run_fx(conv, *inputs):
    """Runs the traced GraphModule on real inputs (the model's parameters are passed for it) and
    returns {symshape node name: the value each node produced}."""
    values = {}
    names = conv.node_names

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            values[names[n]] = result
            return result

    Recorder(conv.gm).run(*(list(conv.state) + list(inputs)))
    return values


def _parse_dynamic(specs):
    """{input: {dim: name or Dim}} from INPUT:DIM:NAME[:MIN:MAX] texts."""
    dynamic = {}
    for spec in specs:
        parts = spec.split(":")
        if len(parts) not in (3, 5) or not parts[1].lstrip("-").isdigit() or not parts[2]:
            raise ConversionError(f"--dynamic {spec!r}: expected INPUT:DIM:NAME[:MIN:MAX]")
        try:
            # NAME alone: a plain name (the range inferred); with MIN:MAX, a declared Dim.
            dim = parts[2] if len(parts) == 3 else Dim(
                parts[2], int(parts[3] or 2), None if parts[4] in ("", "inf") else int(parts[4]))
        except ValueError:
            raise ConversionError(f"--dynamic {spec!r}: MIN and MAX are integers") from None
        key = int(parts[0]) if parts[0].isdigit() else parts[0]
        dynamic.setdefault(key, {})[int(parts[1])] = dim
    return dynamic


def _load_model(spec, kwargs):
    """The module `package.module:callable` names, called with kwargs."""
    import importlib

    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ConversionError(f"{spec!r}: expected MODULE:CALLABLE (torchvision.models:resnet18)")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ConversionError(f"{spec!r}: {e}") from None
    return factory(**kwargs)


def _example_input(spec):
    """A random tensor from SIZES[:DTYPE] (`4,3,32,32`, `2,16:int64`)."""
    sizes, _, dtype = spec.partition(":")
    try:
        shape = [int(v) for v in sizes.split(",")]
    except ValueError:
        raise ConversionError(f"--input {spec!r}: expected sizes such as 4,3,32,32") from None
    dt = getattr(torch, dtype or "float32", None)
    if not isinstance(dt, torch.dtype):
        raise ConversionError(f"--input {spec!r}: unknown dtype {dtype!r}")
    if dt.is_floating_point:
        return torch.randn(*shape, dtype=dt)
    return torch.randint(0, 2, shape, dtype=dt)


def main(argv=None):
    """python3 -m symshape.fx MODULE:CALLABLE --input 4,3,32,32 --dynamic x:0:batch -o OUT.json

    Builds a model by calling MODULE:CALLABLE (with --kwargs), traces it on random inputs of the
    given sizes and writes the symshape graph; or converts a torch.export program saved with
    torch.export.save (PROGRAM.pt2) where torch.export exists. PyTorch 1.13 cannot save a traced
    GraphModule with its metadata, hence the model form."""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python3 -m symshape.fx",
                                description="Convert a PyTorch model to a symshape graph.")
    p.add_argument("model", help="MODULE:CALLABLE returning an nn.Module "
                   "(torchvision.models:resnet18), or a torch.export program (.pt2)")
    p.add_argument("--kwargs", default="{}", help="JSON keyword arguments for CALLABLE")
    p.add_argument("--input", action="append", default=[], metavar="SIZES[:DTYPE]",
                   help="an example input (repeatable), e.g. 4,3,32,32 or 2,16:int64")
    p.add_argument("--dynamic", action="append", default=[], metavar="INPUT:DIM:NAME[:MIN:MAX]",
                   help="a dynamic dim (repeatable), e.g. x:0:batch:2:64")
    p.add_argument("--train", action="store_true", help="trace in training mode (default eval)")
    p.add_argument("-o", "--output", default="-", help="where to write the graph (default stdout)")
    p.add_argument("--check", action="store_true", help="also check the graph's shapes")
    p.add_argument("--lower", metavar="PIPELINE",
                   help="lower the graph (a pipeline name, or passes as `symshape lower "
                   "--passes` takes them) and write the GraphModule: -o out.py its code, -o "
                   "out.pt the saved module (torch.save), another name the lowered graph")
    p.add_argument("--verify-torch", action="store_true",
                   help="with --lower: run the original and the lowered module in PyTorch at the "
                   "hints and two more sizes per dynamic dim and compare their outputs")
    args = p.parse_args(argv)
    try:
        dynamic = _parse_dynamic(args.dynamic)
        if args.model.endswith(".pt2"):
            if not hasattr(torch, "export"):
                raise ConversionError(f"{args.model}: this PyTorch ({torch.__version__}) has no "
                                      "torch.export")
            program = torch.export.load(args.model)
            conv = from_fx(program.graph_module, dynamic)
        else:
            if not args.input:
                raise ConversionError("give the example inputs' sizes with --input")
            model = _load_model(args.model, json.loads(args.kwargs))
            model = model.train() if args.train else model.eval()
            torch.manual_seed(0)
            conv = trace(model, tuple(_example_input(i) for i in args.input), dynamic)
        if args.check:
            conv.check()
            checked = f"symshape.fx: checked {len(conv.graph.nodes)} nodes: the shapes hold"
            ranges = conv.ranges() if conv.hints else {}
            if ranges:
                checked += "; " + ", ".join(f"{name} in {r}" for name, r in ranges.items())
        if args.verify_torch and not args.lower:
            raise ConversionError("--verify-torch compares a lowered module: give --lower")
        if args.lower:
            from symshape import fx_out
            named = args.lower in symshape.pipelines()
            lowered = conv.lower(passes=None if named else args.lower,
                                 pipeline=args.lower if named else None,
                                 verify_torch=args.verify_torch)
            if args.output == "-":
                sys.stdout.write(lowered.gm.code)
            else:
                fx_out.write_lowered(lowered, args.output)
            if args.check:
                print(checked, file=sys.stderr)
            return 0
        text = conv.to_json()
    except (symshape.Error, OSError, RuntimeError, ValueError, TypeError) as e:
        print(f"symshape.fx: error: {e}", file=sys.stderr)
        return 2
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    if args.check:
        print(checked, file=sys.stderr)  # stdout may be the graph
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
