"""symshape.fx_out: symshape graphs back to torch.fx GraphModules, and PyTorch as their oracle.

    gm = symshape.fx.to_fx(graph, conv)          # a torch.fx.GraphModule PyTorch runs
    low = conv.lower(pipeline="default", verify_torch=True)
    low.gm(x)                                     # the lowered model, in PyTorch eager

to_fx() maps every node back to what make_fx emits: ATen targets to their torch.ops.aten
overloads, getitem / sym_size / shape arithmetic to operator.* on SymInts; a size written as an
expression ({"expr": "2*seq"}) becomes sym_size nodes and operator arithmetic. Constants
(get_attr) and the parameters and buffers of the conversion (trace() passes them as the first
placeholders) are bound as attributes of the GraphModule, so its inputs are the model's inputs.
A graph complex-rewrite unpacked (its `complex_io` key) takes and returns complex tensors again,
as Torch-TensorRT's runtime does: view_as_real on the way in, view_as_complex on the way out.

Every FX node's meta["symshape"] is symshape's Value of it (dtype and symbolic shape): the graph
the GraphModule mirrors, wrappers included, is propagated once. meta["val"] is what make_fx
records there, at the dims' hints (PyTorch 1.13's FakeTensors have concrete sizes): a FakeTensor
with the value's dtype, sizes and strides, an int for a size, a tuple for a list; a tensor's
meta["tensor_meta"] is shape_prop's TensorMetadata of it.
"""
import ast
import builtins
import json
import keyword
import operator
import re

import torch

import symshape
from symshape.fx import Conversion, ConversionError, dumps

__all__ = ["to_fx", "lower", "verify_torch", "write_lowered"]

_DTYPES = {name: getattr(torch, name) for name in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex64", "complex128")}
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def _graph_doc(graph):
    """The graph as a dict in the graph format, from a Graph, a LowerResult, JSON text, a file's
    path or a dict."""
    if isinstance(graph, dict):
        return json.loads(json.dumps(graph))
    if isinstance(graph, str):
        text = graph.lstrip()
        g = symshape.read_graph(graph) if text.startswith("{") else symshape.load_graph(graph)
        return json.loads(g.to_json())
    graph = getattr(graph, "graph", graph)  # a LowerResult
    if not isinstance(graph, symshape.Graph):
        raise ConversionError(f"to_fx takes a symshape.Graph (or its JSON), got "
                              f"{type(graph).__name__}")
    return json.loads(graph.to_json())


# ---------------------------------------------------------------------------------------------
# Targets and arguments
# ---------------------------------------------------------------------------------------------
def _resolve_target(target, node):
    """The Python callable of a symshape target, as make_fx records it; ConversionError naming
    the node when this PyTorch has none."""
    ns, _, rest = target.partition(".")
    if ns in ("operator", "_operator"):
        fn = getattr(operator, rest, None)
        if fn is None:
            raise ConversionError(f"node {node}: no Python operator {target}")
        return fn
    if ns == "torch" and rest in ("sym_max", "sym_min"):
        # PyTorch 1.13 has no torch.sym_max: on the ints eager execution gives, max is the same.
        return getattr(torch, rest, builtins.max if rest == "sym_max" else builtins.min)
    op, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, ns), op)
        return getattr(packet, overload or "default")
    except (AttributeError, RuntimeError):
        raise ConversionError(
            f"node {node}: {target} has no PyTorch equivalent in this PyTorch "
            f"({torch.__version__}): no torch.ops.{ns}.{op}.{overload or 'default'}") from None


def _arg_value(a, nodes, node):
    """A graph-format argument as the Python value FX records; node references through
    nodes ({symshape name: FX node})."""
    if isinstance(a, list):
        return [_arg_value(x, nodes, node) for x in a]
    if not isinstance(a, dict):
        return a  # int, float, bool, str, None
    (key, v), = a.items()
    if key == "node":
        return nodes[v]
    if key == "float":
        return float(v)
    if key == "dtype":
        return _DTYPES[v]
    if key == "device":
        return torch.device(v)
    if key in ("layout", "memory_format"):
        return getattr(torch, v)
    if key == "expr":  # a constant one: the plan replaced every symbolic one by nodes
        return int(symshape.parse_expr(v).eval())
    raise ConversionError(f"node {node}: no Python form for the argument {a!r}")


def _real_tensor(value, dtype):
    """A constant's inline value (nested lists; [re, im] pairs for complex) as a tensor."""
    if dtype in _REAL_OF:
        return torch.view_as_complex(torch.tensor(value, dtype=_DTYPES[_REAL_OF[dtype]]))
    return torch.tensor(value, dtype=_DTYPES[dtype])


def _attr_path_value(module, path):
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if isinstance(obj, torch.Tensor) else None


# ---------------------------------------------------------------------------------------------
# The plan: the graph the GraphModule will mirror, in the graph format
# ---------------------------------------------------------------------------------------------
class _Plan:
    """Rewrites the graph's nodes into the ones the GraphModule has: bound parameters become
    get_attrs, complex_io's real views get their complex inputs and outputs back, symbolic
    sizes in arguments become sym_size nodes and arithmetic. Records the attribute values."""

    def __init__(self, doc, conversion):
        self.doc = doc
        self.conversion = conversion
        self.names = {n["name"] for n in doc["nodes"]}
        self.out = []
        self.attrs = {}  # attribute path -> tensor (an nn.Parameter stays one)
        self.bound = self._bound_state(conversion)
        io = doc.get("complex_io") or {}
        self.complex_inputs = {e["name"]: e for e in io.get("inputs", [])}
        self.complex_outputs = set(io.get("outputs", []))
        self.size_of = {}  # symbol -> (node name, dim) of a bare size
        self.size_nodes = {}  # expression text -> node name computing it

    @staticmethod
    def _bound_state(conversion):
        """{name: (attribute path, tensor)} of the conversion's parameters and buffers, by the
        node name trace() gives them (the path with `.` as `_`; trace() writes them as get_attr
        nodes of their paths, and a graph that takes them as placeholders names them so)."""
        if conversion is None or not getattr(conversion, "state", None):
            return {}
        paths = getattr(conversion, "state_names", None) or []
        buffers = getattr(conversion, "buffer_names", ())
        bound = {}
        for path, t in zip(paths, conversion.state):
            if path in buffers:
                t = t.detach()
            elif not isinstance(t, torch.nn.Parameter):
                t = torch.nn.Parameter(t, requires_grad=False)
            bound[path.replace(".", "_")] = (path, t)
        return bound

    def fresh(self, base):
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def emit(self, node):
        self.out.append(node)
        for d, s in enumerate(node.get("shape") or ()):
            if isinstance(s, str) and s.isidentifier() and s not in self.size_of:
                self.size_of[s] = (node["name"], d)
        return node["name"]

    def call(self, base, target, args, kwargs=None):
        node = {"name": self.fresh(base), "op": "call_function", "target": target, "args": args}
        if kwargs:
            node["kwargs"] = kwargs
        return self.emit(node)

    # -- constants and inputs --

    def constant(self, n, path, value_node=None):
        """Binds the get_attr n (or a bound placeholder) to its value at path."""
        if path in self.attrs:
            return
        value = None
        if value_node is not None and value_node.get("value") is not None:
            value = _real_tensor(value_node["value"], value_node["dtype"])
        elif self.conversion is not None:
            # trace() writes the model's parameters and buffers as get_attrs of their paths;
            # its GraphModule takes them as placeholders, so their values are the bound state's.
            value = dict(self.bound.values()).get(path)
            if value is None:
                value = _attr_path_value(self.conversion.gm, path)
        if value is None:
            raise ConversionError(
                f"node {n['name']}: no value for the constant {path}: give the Conversion the "
                "graph came from (to_fx(graph, conversion)) or an inline \"value\"")
        self.attrs[path] = value

    def original_target(self, name):
        """The attribute path of the get_attr called name in the conversion's graph."""
        if self.conversion is not None:
            for n in self.conversion.graph.nodes:
                if n.name == name and n.op == "get_attr":
                    return n.target
        return None

    def complex_input(self, n, entry):
        """A real view the graph takes for a complex input or constant: the complex value, then
        its view_as_real under the graph's name."""
        original = entry["original"]
        dtype = entry.get("dtype") or _COMPLEX_OF.get(n["dtype"])
        if dtype not in _REAL_OF:
            raise ConversionError(f"node {n['name']}: complex_io names a {dtype} input")
        shape = list(n["shape"][:-1])
        self.names.discard(n["name"])  # the view gets it
        original = self.fresh(original) if original != n["name"] else self.fresh(original + "_c")
        node = {"name": original, "op": "placeholder", "dtype": dtype, "shape": shape}
        if entry["original"] in self.bound:
            path, value = self.bound[entry["original"]]
            node.update(op="get_attr", target=path)
            self.attrs[path] = value
        elif entry.get("kind") == "get_attr":
            path = self.original_target(entry["original"])
            if path is None:
                raise ConversionError(
                    f"node {n['name']}: the complex constant {entry['original']} it unpacks is "
                    "not in the conversion's graph: give the Conversion (to_fx(graph, conv))")
            node.update(op="get_attr", target=path)
            self.constant(node, path)
        self.emit(node)
        self.names.add(n["name"])
        real = {"name": n["name"], "op": "call_function", "target": "aten.view_as_real.default",
                "args": [{"node": original}]}
        self.emit(real)

    # -- sizes in arguments --

    def size_arg(self, text, node):
        """The name of a node computing the size text (sym_size of an input whose dim is the
        symbol, and operator arithmetic), made once per expression."""
        try:
            tree = ast.parse(text, mode="eval").body
        except SyntaxError:
            raise ConversionError(f"node {node}: cannot read the size {text!r}") from None
        return self._size_node(tree, node)

    def _size_node(self, e, node):
        key = ast.dump(e)
        if key in self.size_nodes:
            return self.size_nodes[key]
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return e.value
        if isinstance(e, ast.Name):
            if e.id not in self.size_of:
                raise ConversionError(
                    f"node {node}: its size uses {e.id}, which is no input's dim: PyTorch cannot "
                    "compute it at run time")
            source, dim = self.size_of[e.id]
            result = self.call(f"sym_size_{e.id}", "aten.sym_size.int", [{"node": source}, dim])
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            result = self._apply("operator.neg", [e.operand], node)
        elif isinstance(e, ast.BinOp) and type(e.op) in _BINOPS:
            if isinstance(e.op, ast.Pow):
                if not (isinstance(e.right, ast.Constant) and isinstance(e.right.value, int)
                        and e.right.value >= 1):
                    raise ConversionError(f"node {node}: no size arithmetic for {ast.unparse(e)}")
                product = e.left
                for _ in range(e.right.value - 1):
                    product = ast.BinOp(product, ast.Mult(), e.left)
                return self._size_node(product, node)
            result = self._apply(_BINOPS[type(e.op)], [e.left, e.right], node)
        elif (isinstance(e, ast.Call) and isinstance(e.func, ast.Name)
              and e.func.id in ("max", "min", "ceildiv") and len(e.args) == 2):
            if e.func.id == "ceildiv":  # -((-a) // b)
                a, b = e.args
                quotient = ast.BinOp(ast.UnaryOp(ast.USub(), a), ast.FloorDiv(), b)
                return self._size_node(ast.UnaryOp(ast.USub(), quotient), node)
            result = self._apply(f"torch.sym_{e.func.id}", e.args, node)
        else:
            raise ConversionError(f"node {node}: no size arithmetic for {ast.unparse(e)}")
        self.size_nodes[key] = result
        return result

    def _apply(self, target, operands, node):
        args = []
        for o in operands:
            v = self._size_node(o, node)
            args.append({"node": v} if isinstance(v, str) else v)
        if all(isinstance(a, int) for a in args):  # a constant part of a symbolic size
            return _resolve_target(target, node)(*args)
        return self.call(target.rpartition(".")[2], target, args)

    def args(self, a, node):
        if isinstance(a, list):
            return [self.args(x, node) for x in a]
        if isinstance(a, dict) and "expr" in a:
            try:
                return int(symshape.parse_expr(a["expr"]).eval())
            except symshape.Error:  # symbolic: computed from the inputs' sizes
                v = self.size_arg(a["expr"], node)
                return {"node": v} if isinstance(v, str) else v
        return a

    # -- the whole graph --

    def run(self):
        for n in self.doc["nodes"]:
            name = n["name"]
            if name in self.complex_inputs and n["op"] in ("placeholder", "get_attr"):
                self.complex_input(n, self.complex_inputs[name])
            elif n["op"] == "placeholder" and name in self.bound:
                path, value = self.bound[name]
                self.attrs[path] = value
                node = {k: v for k, v in n.items() if k != "target"}
                node.update(op="get_attr", target=path)
                self.emit(node)
            elif n["op"] == "placeholder":
                self.emit({k: v for k, v in n.items() if k != "target"})
            elif n["op"] == "get_attr":
                self.constant(n, n["target"], n)
                self.emit(n)
            elif n["op"] == "call_function":
                n = dict(n)
                n["args"] = self.args(n.get("args", []), name)
                if n.get("kwargs"):
                    n["kwargs"] = {k: self.args(v, name) for k, v in n["kwargs"].items()}
                self.emit(n)
            elif n["op"] == "output":
                self.emit(self.output(n))
            else:
                raise ConversionError(f"node {name}: unknown op kind {n['op']}")
        doc = {k: v for k, v in self.doc.items() if k not in ("nodes", "complex_io")}
        doc["nodes"] = self.out
        return doc

    def output(self, n):
        if not self.complex_outputs:
            return n
        n = json.loads(json.dumps(n))
        result = n["args"][0]
        items = result if isinstance(result, list) else [result]
        for i in sorted(self.complex_outputs):
            if i >= len(items) or not (isinstance(items[i], dict) and "node" in items[i]):
                raise ConversionError(f"complex_io: output {i} is not a node of the output")
            real = items[i]["node"]
            dense = self.call(real + "_contiguous", "aten.clone.default", [{"node": real}],
                              {"memory_format": {"memory_format": "contiguous_format"}})
            items[i] = {"node": self.call(real + "_complex", "aten.view_as_complex.default",
                                          [{"node": dense}])}
        n["args"][0] = items if isinstance(result, list) else items[0]
        return n


_BINOPS = {ast.Add: "operator.add", ast.Sub: "operator.sub", ast.Mult: "operator.mul",
           ast.FloorDiv: "operator.floordiv", ast.Mod: "operator.mod", ast.Pow: None}


# ---------------------------------------------------------------------------------------------
# Emitting the GraphModule
# ---------------------------------------------------------------------------------------------
def _root_module(attrs):
    """An nn.Module holding each attribute at its dotted path: parameters as parameters, other
    tensors as buffers."""
    root = torch.nn.Module()
    for path, value in attrs.items():
        *prefix, field = path.split(".")
        m = root
        for part in prefix:
            if not hasattr(m, part):
                m.add_module(part, torch.nn.Module())
            m = getattr(m, part)
        if isinstance(value, torch.nn.Parameter):
            m.register_parameter(field, value)
        else:
            m.register_buffer(field, value)
    return root


def _identifier(name, taken):
    """A Python parameter name for the input called name (forward's signature), unique."""
    base = re.sub(r"\W", "_", name)
    if not base or base[0].isdigit() or keyword.iskeyword(base):
        base = "_" + base
    out, k = base, 0
    while out in taken:
        k += 1
        out = f"{base}_{k}"
    taken.add(out)
    return out


def _model_structure(fx_graph, conversion):
    """When the conversion's module returns what the model returns (make_fx's pytree codegen),
    the new module does too: a tensor for a model returning one, a tuple for a tuple."""
    codegen = getattr(getattr(conversion, "gm", None), "graph", None)
    info = getattr(getattr(codegen, "_codegen", None), "pytree_info", None)
    if info is None or info.out_spec is None:
        return
    from torch.fx.graph import _PyTreeCodeGen, _PyTreeInfo
    from torch.utils._pytree import tree_flatten

    output = [n for n in fx_graph.nodes if n.op == "output"][0]
    flat = output.args[0]
    if not isinstance(flat, (list, tuple)) or len(flat) != info.out_spec.num_leaves:
        return
    names = [n.target for n in fx_graph.nodes if n.op == "placeholder"]
    in_spec = tree_flatten(tuple(range(len(names))))[1]
    fx_graph._codegen = _PyTreeCodeGen(_PyTreeInfo(names, in_spec, info.out_spec))


class _FakeValues:
    """meta["val"] as make_fx writes it, at the dims' hints: a FakeTensor (of one FakeTensorMode
    per module) with the value's dtype, sizes and strides, an int for a size, a tuple for a
    list. PyTorch 1.13's FakeTensors have concrete sizes: the symbolic ones are in
    meta["symshape"]. None where a size is not known at the hints (an unbacked symbol)."""

    def __init__(self, doc):
        from torch._subclasses.fake_tensor import FakeTensorMode

        self.mode = FakeTensorMode()
        self.hints = {k: d["hint"] for k, d in (doc.get("dims") or {}).items()
                      if isinstance(d, dict) and d.get("hint") is not None}

    def _int(self, e):
        return int(e.eval(**self.hints))

    def of(self, value):
        try:
            return self._of(value)
        except (symshape.Error, TypeError, ValueError, RuntimeError):
            return None

    def _of(self, value):
        from torch._subclasses.fake_tensor import FakeTensor

        if value.kind == "tensor":
            t = value.tensor
            meta = torch.empty_strided([self._int(e) for e in t.shape],
                                       [self._int(e) for e in t.stride],
                                       dtype=_DTYPES[t.dtype], device="meta")
            return FakeTensor(self.mode, meta, torch.device("cpu"))
        if value.kind == "int":
            return self._int(value.integer)
        if value.kind == "list":
            return tuple(self._of(v) for v in value.items)
        return None


def _set_tensor_meta(fx, val):
    """meta["tensor_meta"] as torch.fx.passes.shape_prop records it, for a tensor value."""
    if not isinstance(val, torch.Tensor):
        return
    try:
        from torch.fx.passes.shape_prop import _extract_tensor_metadata

        fx.meta["tensor_meta"] = _extract_tensor_metadata(val)
    except Exception:  # noqa: BLE001 (a PyTorch without it: meta["val"] is what passes read)
        pass


def _build(graph, conversion=None):
    """(GraphModule, the graph it mirrors as a dict, {FX node: symshape name})."""
    doc = _graph_doc(graph)
    plan = _Plan(doc, conversion)
    mirrored = plan.run()
    targets = {n["name"]: _resolve_target(n["target"], n["name"])
               for n in mirrored["nodes"] if n["op"] == "call_function"}
    p = symshape.check(symshape.read_graph(dumps(mirrored)))
    fx_graph = torch.fx.Graph()
    fakes = _FakeValues(mirrored)
    nodes, node_names, taken = {}, {}, set()
    for n in mirrored["nodes"]:
        name = n["name"]
        if n["op"] == "placeholder":
            fx = fx_graph.create_node("placeholder", _identifier(name, taken), name=name)
        elif n["op"] == "get_attr":
            fx = fx_graph.create_node("get_attr", n["target"], name=name)
        elif n["op"] == "call_function":
            fn = targets[name]
            args = tuple(_arg_value(a, nodes, name) for a in n.get("args", []))
            kwargs = {k: _arg_value(v, nodes, name) for k, v in (n.get("kwargs") or {}).items()}
            fx = fx_graph.create_node("call_function", fn, args, kwargs, name=name)
        else:
            fx = fx_graph.output(_arg_value(n["args"][0], nodes, name))
        fx.meta["symshape"] = p[name]
        if n["op"] != "output":
            val = fakes.of(p[name])
            if val is not None:
                fx.meta["val"] = val
                _set_tensor_meta(fx, val)
        nodes[name] = fx
        node_names[fx] = name
    fx_graph.lint()
    _model_structure(fx_graph, conversion)
    gm = torch.fx.GraphModule(_root_module(plan.attrs), fx_graph)
    return gm, mirrored, node_names, doc.get("complex_io")


def to_fx(graph, conversion=None):
    """A torch.fx.GraphModule computing graph (a symshape.Graph, a LowerResult, its JSON, a
    file's path or a dict). conversion: the Conversion the graph came from, whose parameters and constants are
    bound as the module's attributes (without it, parameters stay inputs and a constant needs an
    inline value). Raises ConversionError naming the node that has no PyTorch equivalent, and
    symshape.ShapeError when the graph does not check."""
    return _build(graph, conversion)[0]


# ---------------------------------------------------------------------------------------------
# Conversion.lower and the PyTorch oracle
# ---------------------------------------------------------------------------------------------
def lower(conversion, passes=None, pipeline=None, options=None, verify_torch=False,
          verify_numerics=False, seed=0):
    """Conversion.lower: runs the library's passes (symshape.lower) on the conversion's graph
    and returns a new Conversion whose gm is the lowered GraphModule (parameters bound, complex
    inputs and outputs as in the original); .reports says what each pass did, .complex_io what
    complex-rewrite unpacked. verify_torch: run both in PyTorch eager (verify_torch())."""
    result = symshape.lower(conversion.graph, passes, pipeline=pipeline, options=options,
                            verify_numerics=verify_numerics, seed=seed)
    gm, mirrored, node_names, complex_io = _build(result.graph, conversion)
    lowered = Conversion(gm, mirrored, node_names, conversion.example_inputs)
    lowered.reports = list(result.reports)
    lowered.complex_io = complex_io if complex_io is not None else getattr(
        conversion, "complex_io", None)
    lowered.source = conversion
    lowered.lowered_graph = result.graph
    if verify_torch:
        lowered.torch_runs = globals()["verify_torch"](conversion, lowered, seed=seed)
    return lowered


def _inputs_of(conversion):
    """The conversion's input placeholders (not its bound parameters), as graph-format dicts,
    in order."""
    bound = _Plan._bound_state(conversion)
    return [n for n in conversion.graph_dict["nodes"]
            if n["op"] == "placeholder" and n["name"] not in bound]


def _run_dims(conversion):
    """The hints (an empty dict), then for each dim two other values inside its declared range
    that every guard of the graph accepts with the other dims at their hints (as
    --verify-numerics chooses them)."""
    p = conversion.check()
    hints = dict(conversion.hints)
    guards = list(p.env.guards)

    def accepted(b):
        try:
            return all(g.cond.eval(**b) for g in guards)
        except symshape.Error:
            return False

    runs = [{}]
    for name, hint in hints.items():
        decl = conversion.graph.dims[name]
        lo = decl.min if decl.min is not None else 0
        hi = decl.max
        seen, taken = {hint}, 0
        for v in (2, 3, 4, 5, 6, 7, hint - 1, hint + 1, hint // 2, 2 * hint):
            if taken == 2:
                break
            if v in seen or v < lo or (hi is not None and v > hi):
                continue
            seen.add(v)
            if accepted(dict(hints, **{name: v})):
                runs.append({name: v})
                taken += 1
    return runs


def _random_input(node, bindings, generator):
    """A random tensor for the placeholder at the dims' values: floats and complex parts in
    [-1, 1], integers in {0, 1} (a valid index into any dim), bools at random."""
    shape = [s if isinstance(s, int) else int(symshape.parse_expr(s).eval(**bindings))
             for s in node["shape"]]
    dtype = _DTYPES[node["dtype"]]
    if dtype.is_complex:
        real = torch.rand(shape + [2], generator=generator, dtype=torch.float64) * 2 - 1
        return torch.view_as_complex(real).to(dtype)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1).to(dtype)
    return torch.randint(0, 2, shape, generator=generator).to(dtype)


# The relative tolerance the autocast pass declares for its numbers (docs/passes.md, autocast):
# a whole network run in the low type drifts further than one op's rounding.
_AUTOCAST_TOLERANCE = {"float16": 1e-2, "bfloat16": 8e-2}


def _tolerance(lowered):
    """(rtol, atol) for the lowered graph's outputs: 1e-4 relative for float32, torch.testing's
    defaults for a float16 or bfloat16 value computed, and the autocast pass's own tolerance for
    a graph it lowered."""
    low = (lowered.graph_dict.get("autocast") or {}).get("low_dtype")
    if low in _AUTOCAST_TOLERANCE:
        return _AUTOCAST_TOLERANCE[low], 1e-5
    dtypes = {v.dtype for v in (n.meta.get("symshape") for n in lowered.gm.graph.nodes)
              if v is not None and v.kind == "tensor"}
    if "bfloat16" in dtypes:
        return 1.6e-2, 1e-5
    if "float16" in dtypes:
        return 1e-3, 1e-5
    return 1e-4, 0.0


def _compare(a, b, rtol, atol):
    """Empty when b matches a; else what differs first. Floats within
    atol + rtol * max(1, |a|, |b|) (--verify-numerics's measure), integers and bools exactly."""
    if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor):
        return f"{type(a).__name__} original, {type(b).__name__} lowered"
    if not isinstance(a, torch.Tensor):
        return "" if a == b else f"{a} original, {b} lowered"
    if a.shape != b.shape:
        return f"shape {list(a.shape)} original, {list(b.shape)} lowered"
    if a.dtype.is_floating_point or a.dtype.is_complex:
        x, y = torch.view_as_real(a.to(torch.complex128)), torch.view_as_real(
            b.to(torch.complex128))
        scale = torch.maximum(torch.ones_like(x), torch.maximum(x.abs(), y.abs()))
        bad = ~((x - y).abs() <= atol + rtol * scale)
        bad &= ~(torch.isnan(x) & torch.isnan(y))
        bad &= ~(torch.isinf(x) & (x == y))
    else:
        x, y = a, b
        bad = x != y
    if not bool(bad.any()):
        return ""
    index = tuple(int(i) for i in bad.nonzero()[0])
    at = index[:a.dim()]
    return (f"element {list(at)}: {a[at].item() if a.dim() else a.item()} original, "
            f"{b[at].item() if b.dim() else b.item()} lowered")


def _output_names(conversion):
    """The names of the graph's outputs, flattened as PyTorch flattens them."""
    out = conversion.graph_dict["nodes"][-1]["args"][0]
    names = []

    def walk(a):
        if isinstance(a, list):
            for x in a:
                walk(x)
        else:
            names.append(a["node"] if isinstance(a, dict) and "node" in a else repr(a))

    walk(out)
    return names


def verify_torch(original, lowered, seed=0, rtol=None, atol=None):
    """Runs the original conversion's GraphModule and the lowered one in PyTorch eager at the
    hints (the example inputs when the conversion has them) and at two more sizes per dynamic
    dim, on the same random inputs, and compares every output: 1e-4 relative for float32,
    torch.testing's tolerance for float16 and bfloat16, the autocast pass's for a graph it
    lowered (see _tolerance; rtol / atol override). Raises ConversionError naming the output and
    the sizes on a mismatch; returns the number of runs compared."""
    from torch.utils._pytree import tree_flatten

    inputs = _inputs_of(original)
    lowered_inputs = [n for n in lowered.gm.graph.nodes if n.op == "placeholder"]
    if len(lowered_inputs) != len(inputs):
        raise ConversionError(f"--verify-torch: the lowered module takes {len(lowered_inputs)} "
                              f"inputs, the original {len(inputs)}")
    r0, a0 = _tolerance(lowered)
    rtol = r0 if rtol is None else rtol
    atol = a0 if atol is None else atol
    names = _output_names(original)
    runs = 0
    for dims in _run_dims(original):
        bindings = dict(original.hints, **dims)
        generator = torch.Generator().manual_seed(seed + runs)
        examples = original.example_inputs
        if not dims and examples is not None and len(examples) == len(inputs):
            values = list(examples)
        else:
            values = [_random_input(n, bindings, generator) for n in inputs]
        at = "at the hints" if not dims else "at " + ", ".join(
            f"{k}={v}" for k, v in dims.items())
        with torch.no_grad():
            expected = torch.fx.Interpreter(original.gm).run(
                *(list(original.state) + [v.clone() for v in values]))
            try:
                actual = lowered.gm(*[v.clone() for v in values])
            except Exception as e:  # noqa: BLE001 (PyTorch raises many kinds)
                raise ConversionError(f"--verify-torch: the lowered module fails {at}: "
                                      f"{type(e).__name__}: {e}") from e
        flat_a, _ = tree_flatten(expected)
        flat_b, _ = tree_flatten(actual)
        if len(flat_a) != len(flat_b):
            raise ConversionError(f"--verify-torch: {len(flat_a)} outputs original, "
                                  f"{len(flat_b)} lowered {at}")
        for i, (a, b) in enumerate(zip(flat_a, flat_b)):
            d = _compare(a, b, rtol, atol)
            if d:
                label = f"output {i}" + (f" ({names[i]})" if i < len(names) else "")
                raise ConversionError(f"--verify-torch: {label} differs {at} "
                                      f"(rtol {rtol:g}, atol {atol:g}): {d}")
        runs += 1
    return runs


def write_lowered(conversion, path):
    """Writes the lowered GraphModule: its Python code (out.py), the saved module (out.pt, with
    torch.save) or the lowered symshape graph (any other name, JSON)."""
    if path.endswith(".pt"):
        torch.save(conversion.gm, path)
        return
    if path.endswith(".py"):
        with open(path, "w") as f:
            f.write("# A GraphModule's forward, written by python3 -m symshape.fx --lower.\n"
                    "# Parameters and buffers are attributes of the module (save it as .pt).\n")
            f.write("import torch\n")
            f.write(conversion.gm.code.lstrip("\n"))
        return
    getattr(conversion, "lowered_graph", conversion.graph).save(path)
