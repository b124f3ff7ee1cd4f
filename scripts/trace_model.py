#!/usr/bin/python3
"""Traces a PyTorch model to an ATen-level graph with symbolic sizes and prints it as a
symshape graph (docs/graph-format.md) on stdout.

    /usr/bin/python3 scripts/trace_model.py MODEL [--option value]... > graph.json

MODEL is one of:
  resnet18                   torchvision's ResNet-18, random init, eval mode; input [batch, 3, h, w]
                             (--width N: its blocks with stages N..8N wide instead of 64..512)
  transformer_encoder_train  nn.TransformerEncoder (2 layers), train mode, dropout 0.1;
                             input [batch, seq, d_model]
  gpt                        a small GPT (defined below) in train mode with dropout, a causal mask,
                             a clone and a detach; input tokens [batch, seq]

examples/traced/ holds the three models, written in symshape's canonical layout:

    T=scripts/trace_model.py; S=build/bin/symshape
    /usr/bin/python3 $T resnet18 --width 8 --batch 2 --height 13 --width-px 17 > /tmp/resnet18.json
    /usr/bin/python3 $T transformer_encoder_train > /tmp/transformer_encoder_train.json
    /usr/bin/python3 $T gpt > /tmp/gpt.json
    for m in resnet18 transformer_encoder_train gpt; do
      $S lower /tmp/$m.json --passes remove-alias -o examples/traced/$m.json; done

Runs on PyTorch 1.13 (Debian's python3-torch; `/usr/bin/python3`, not a pyenv interpreter): the
graph comes from `make_fx(f, tracing_mode="symbolic")`, so every op is really traced by torch.
Nothing is downloaded (no pretrained weights). Parameters and buffers become placeholders with
static shapes; batch, seq and the spatial dims stay symbolic.

PyTorch 1.13 specifics this script handles:
  - symbolic tracing runs under FakeTensorMode, which refuses real parameters: the model is run
    through `stateless.functional_call` with its parameters and buffers as traced inputs;
  - inputs that are nn.Parameters keep static sizes (buffers are passed as frozen parameters);
    every other input size >= 2 becomes a symbol, and equal sizes share one (duck shaping, without
    a guard): the input's static dims (an image's 3 channels, a model width) are kept plain ints
    while tracing, and the script refuses hints for the dynamic dims that collide with a static
    size or stride;
  - aten.dropout's C++ composite calls numel(), which symbolic sizes refuse: a Python composite
    for it is registered (it calls native_dropout, as PyTorch 2's decomposition does); the same
    for aten.narrow (a slice) and aten.chunk (a split); float() of a SymInt evaluates it;
  - nothing requires grad: autograd's kernels of view ops (split) ask for concrete sizes;
  - some 1.13 meta kernels (softmax's) evaluate a size and record a guard on its value
    (--show-guards lists them) although every size they compute stays symbolic: the graph is
    what those kernels compute at every size, which `symshape check` then verifies.
"""
import argparse
import contextlib
import json
import math
import operator
import re
import sys

import sympy
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._C import DispatchKey
from torch.fx.experimental import symbolic_shapes
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless

aten = torch.ops.aten


# ---------------------------------------------------------------------------------------------
# aten.dropout under symbolic sizes
# ---------------------------------------------------------------------------------------------
def _dropout(x, p, train):
    if not train or p == 0:
        return x
    return aten.native_dropout.default(x, p, train)[0]


aten.dropout.default.py_impl(DispatchKey.CompositeImplicitAutograd)(_dropout)


# aten.narrow's C++ composite calls sizes() (split_with_sizes's decomposition narrows): a slice.
def _narrow(x, dim, start, length):
    return aten.slice.Tensor(x, dim, start, start + length)


aten.narrow.default.py_impl(DispatchKey.CompositeImplicitAutograd)(_narrow)


# aten.chunk's too (MultiheadAttention chunks its packed projection): a split, as PyTorch 2's
# decomposition does.
def _chunk(x, chunks, dim=0):
    size = x.size(dim)
    return aten.split.Tensor(x, (size + chunks - 1) // chunks, dim)


aten.chunk.default.py_impl(DispatchKey.CompositeImplicitAutograd)(_chunk)


# math.sqrt(E) in multi_head_attention_forward: E is a SymInt even where it is a constant (a view's
# sizes all become SymInts). float() of a SymInt evaluates it, which guards on its value; a
# dynamic dim specialized that way is caught after tracing.
torch.SymIntNode.__float__ = lambda self: float(self.get_pyobj().guard_int("", 0))


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, block_size, dropout):
        super().__init__()
        self.n_head = n_head
        self.d_model = d_model
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        mask = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)
        self.register_buffer("bias", mask)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)
        hd = c // self.n_head
        q = q.view(b, t, self.n_head, hd).transpose(1, 2)
        k = k.view(b, t, self.n_head, hd).transpose(1, 2)
        v = v.view(b, t, self.n_head, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        # self.bias[:, :, :t, :t], written as the slices it traces to: PyTorch 1.13's indexing
        # does not take a SymInt.
        mask = aten.slice.Tensor(aten.slice.Tensor(self.bias, 2, 0, t), 3, 0, t)
        att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, d_model, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.proj = nn.Linear(4 * d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.dropout(self.proj(F.gelu(self.fc(self.ln_2(x)))))


class GPT(nn.Module):
    """A GPT-2 style decoder (nanoGPT's layout) with tied input and output embeddings."""

    def __init__(self, vocab, block_size, d_model, n_head, n_layer, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(block_size, d_model)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(
            [Block(d_model, n_head, block_size, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, idx):
        _, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        # The residual stream's first value is kept apart from the embeddings' output, as
        # implementations that then add in place do.
        x = x.clone()
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        logits = F.linear(x, self.wte.weight)
        # The final hidden state is returned as features, cut from autograd.
        return logits, x.detach()


def narrow_resnet18(width, classes):
    """torchvision's ResNet-18 (its BasicBlock, _make_layer and forward) with the stage widths
    width, 2*width, 4*width, 8*width instead of 64 ... 512."""
    from torchvision.models import resnet

    class NarrowResNet(resnet.ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes = width
            self.dilation = 1
            self.groups = 1
            self.base_width = 64
            self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(resnet.BasicBlock, width, 2)
            self.layer2 = self._make_layer(resnet.BasicBlock, 2 * width, 2, stride=2)
            self.layer3 = self._make_layer(resnet.BasicBlock, 4 * width, 2, stride=2)
            self.layer4 = self._make_layer(resnet.BasicBlock, 8 * width, 2, stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8 * width, classes)

    model = NarrowResNet()
    # torchvision's initialisation: Kaiming for convolutions, BatchNorm at weight 1, bias 0.
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    # Running statistics away from (0, 1), so that eval-mode BatchNorm does some arithmetic.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model


def build(args):
    """The model, its example input, and for each input dim that stays symbolic its name."""
    torch.manual_seed(args.seed)
    if args.model == "resnet18":
        import torchvision

        if args.width == 64:
            model = torchvision.models.resnet18(weights=None, num_classes=args.classes)
        else:
            model = narrow_resnet18(args.width, args.classes)
        model = model.eval()
        x = torch.randn(args.batch, 3, args.height, args.width_px)
        return model, x, {0: "batch", 2: "h", 3: "w"}
    if args.model == "transformer_encoder_train":
        layer = nn.TransformerEncoderLayer(args.d_model, args.heads, args.ff, dropout=0.1,
                                           batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=args.layers,
                                      enable_nested_tensor=False).train()
        x = torch.randn(args.batch, args.seq, args.d_model)
        return model, x, {0: "batch", 1: "seq"}
    if args.model == "gpt":
        model = GPT(args.vocab, args.block, args.d_model, args.heads, args.layers, 0.1).train()
        x = torch.randint(0, args.vocab, (args.batch, args.seq))
        return model, x, {0: "batch", 1: "seq"}
    raise SystemExit(f"unknown model {args.model}")


# ---------------------------------------------------------------------------------------------
# sympy -> symshape's expression grammar
# ---------------------------------------------------------------------------------------------
def expr_text(e):
    """e in the grammar of parse_expr (Python integer arithmetic, FloorDiv as //). Every
    quotient and remainder is parenthesized whole: `8*(a)//(b)` would read as `(8*a)//b`."""
    e = sympy.sympify(e)
    if e.is_Integer:
        return str(int(e))
    if e.is_Symbol:
        return str(e)
    if isinstance(e, symbolic_shapes.FloorDiv):
        return f"(({expr_text(e.args[0])})//({expr_text(e.args[1])}))"
    if isinstance(e, sympy.Mod):
        return f"(({expr_text(e.args[0])}) % ({expr_text(e.args[1])}))"
    if isinstance(e, symbolic_shapes.Ceil):
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
    raise TypeError(f"no symshape form for the size {e!r} ({type(e).__name__})")


# ---------------------------------------------------------------------------------------------
# FX graph -> symshape graph
# ---------------------------------------------------------------------------------------------
class Exporter:
    def __init__(self, gm, placeholder_names, dynamic):
        """placeholder_names: the names to give the placeholders, in order; dynamic: for each
        placeholder index, {dim: name} of the dims that stay symbolic."""
        self.gm = gm
        self.env = gm.shape_env
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.names = {}
        for node, name in zip(self.placeholders, placeholder_names):
            self.names[node] = name
        self.subs = {}
        self.dims = {}
        self._bind_symbols(dynamic)

    def _sym(self, s):
        """The sympy expression of a SymInt (or an int)."""
        if isinstance(s, int):
            return sympy.Integer(s)
        if isinstance(s, symbolic_shapes.PySymInt):
            return s.expr
        return s.get_pyobj().expr  # torch.SymIntNode

    def _bind_symbols(self, dynamic):
        """Names the dynamic dims' symbols and substitutes every other symbol by its value."""
        named = {}
        for index, dims in dynamic.items():
            val = self.placeholders[index].meta["val"]
            for d, name in dims.items():
                expr = self.env.replace(self._sym(val.shape[d]))
                if not expr.is_Symbol:
                    raise SystemExit(f"dim {d} of input {index} ({name}) is not a symbol: {expr}")
                named[expr] = name
        for expr, name in named.items():
            if not self.env.replace(expr).is_Symbol:
                raise SystemExit(f"PyTorch specialized {name} to {self.env.replace(expr)} while "
                                 "tracing (a stride or size of the same value?): choose another "
                                 "size for it")
        for i, node in enumerate(self.placeholders):
            val = node.meta["val"]
            for d, s in enumerate(val.shape):
                expr = self.env.replace(self._sym(s))
                if expr in named and dynamic.get(i, {}).get(d) != named[expr]:
                    raise SystemExit(
                        f"dim {d} of {self.names[node]} has the size of {named[expr]} "
                        f"({self.env.var_to_val[expr]}): PyTorch 1.13 gives both one symbol; "
                        "choose another size for the dynamic dim")
        for sym, val in self.env.var_to_val.items():
            if sym in named:
                self.subs[sym] = sympy.Symbol(named[sym], positive=True, integer=True)
            else:
                self.subs[sym] = sympy.Integer(int(val))
        for sym, name in named.items():
            self.dims[name] = int(self.env.var_to_val[sym])

    def size(self, s):
        expr = self.env.replace(self._sym(s)).xreplace(self.subs)
        expr = sympy.simplify(expr) if not expr.is_Integer else expr
        if expr.is_Integer:
            return int(expr)
        return expr_text(expr)

    def arg(self, a):
        if isinstance(a, torch.fx.Node):
            return {"node": self.name(a)}
        if a is None or isinstance(a, (bool, str)):
            return a
        if isinstance(a, int):
            return a
        if isinstance(a, float):
            return a if math.isfinite(a) else {"float": str(a)}
        if isinstance(a, (torch.SymIntNode, symbolic_shapes.PySymInt)):
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
            return [self.arg(x) for x in a]
        raise TypeError(f"no symshape form for the argument {a!r}")

    def name(self, node):
        return self.names.get(node, node.name)

    @staticmethod
    def target(node):
        t = node.target
        if isinstance(t, torch._ops.OpOverload):
            return str(t)
        if isinstance(t, torch._ops.OpOverloadPacket):
            # PyTorch 1.13 records sym_size by its packet; its one overload is sym_size.int.
            if str(t) == "aten.sym_size":
                return "aten.sym_size.int"
            return str(t) + ".default"
        if t in (operator.getitem, operator.mul, operator.add, operator.sub, operator.floordiv,
                 operator.mod, operator.truediv, operator.neg, operator.eq, operator.ne,
                 operator.lt, operator.le, operator.gt, operator.ge):
            return "operator." + t.__name__
        raise TypeError(f"no symshape target for {t!r}")

    def export(self, declared):
        nodes = []
        for n in self.gm.graph.nodes:
            e = {"name": self.name(n), "op": n.op}
            if n.op == "call_function":
                e["target"] = self.target(n)
            elif n.op not in ("placeholder", "output"):
                raise TypeError(f"unexpected FX node kind {n.op}")
            if n.op in ("call_function", "output"):
                e["args"] = [self.arg(a) for a in n.args]
            if n.kwargs:
                e["kwargs"] = {k: self.arg(v) for k, v in n.kwargs.items()}
            val = n.meta.get("val")
            if isinstance(val, torch.Tensor):
                e["dtype"] = str(val.dtype).replace("torch.", "")
                e["shape"] = [self.size(s) for s in val.shape]
                e["stride"] = [self.size(s) for s in val.stride()]
            nodes.append(e)
        dims = {}
        for name, hint in self.dims.items():
            lo, hi = declared[name]
            dims[name] = {"min": lo, "max": hi, "hint": hint}
        return {"format": "symshape-graph", "version": 1, "dims": dims, "nodes": nodes}


@contextlib.contextmanager
def static_input_dims(static):
    """While tracing, the sizes of the input's dims in `static` (an image's channels, a model
    width) are plain ints rather than symbols. Parameters get no symbols at all, so every
    `t<i>.size(<d>)` symbol PyTorch 1.13 asks for is a size of the input."""
    original = symbolic_shapes.ShapeEnv.create_symint

    def create_symint(self, name, val):
        m = re.fullmatch(r"t\d+\.size\((\d+)\)", name)
        if m and int(m.group(1)) in static:
            return val
        return original(self, name, val)

    symbolic_shapes.ShapeEnv.create_symint = create_symint
    try:
        yield
    finally:
        symbolic_shapes.ShapeEnv.create_symint = original


def trace(args):
    model, x, dynamic_dims = build(args)
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    names = list(params) + list(buffers)
    # MetaConverter gives nn.Parameter inputs static sizes: buffers are passed as (frozen)
    # parameters too, so that only the model's input has symbolic sizes.
    # Nothing requires grad: autograd's kernels of view ops (split) ask for concrete sizes.
    tensors = [nn.Parameter(t.detach(), requires_grad=False)
               for t in list(params.values()) + list(buffers.values())]

    def f(state, inp):
        return stateless.functional_call(model, dict(zip(names, state)), (inp,))

    with static_input_dims(set(range(x.dim())) - set(dynamic_dims)):
        gm = make_fx(f, tracing_mode="symbolic")(tensors, x)
    placeholder_names = [n.replace(".", "_") for n in names] + ["x" if x.is_floating_point() else "tokens"]
    exporter = Exporter(gm, placeholder_names, {len(names): dynamic_dims})
    declared = {
        "batch": (2, args.max_batch),
        "seq": (2, args.block if args.model == "gpt" else args.max_seq),
        "h": (args.min_size, args.max_size),
        "w": (args.min_size, args.max_size),
    }
    graph = exporter.export(declared)
    if args.show_guards:
        print(gm.shape_env.format_guards(verbose=True), file=sys.stderr)
    return graph


def write(graph, out):
    """One node per line, as symshape's canonical layout (symshape rewrites it exactly)."""
    out.write('{"format": "symshape-graph", "version": 1,\n')
    out.write(' "dims": ' + json.dumps(graph["dims"]) + ",\n")
    out.write(' "nodes": [\n')
    out.write(",\n".join("  " + json.dumps(n) for n in graph["nodes"]))
    out.write("]}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", choices=["resnet18", "transformer_encoder_train", "gpt"])
    p.add_argument("--batch", type=int, default=4, help="batch size traced with (the hint)")
    p.add_argument("--seq", type=int, default=11, help="sequence length traced with")
    p.add_argument("--height", type=int, default=37, help="resnet18: image height traced with")
    p.add_argument("--width-px", type=int, default=45, help="resnet18: image width traced with")
    p.add_argument("--max-batch", type=int, default=64)
    p.add_argument("--max-seq", type=int, default=512)
    p.add_argument("--min-size", type=int, default=8, help="resnet18: smallest h and w declared")
    p.add_argument("--max-size", type=int, default=1024)
    p.add_argument("--classes", type=int, default=10, help="resnet18: output classes")
    p.add_argument("--width", type=int, default=64,
                   help="resnet18: the first stage's channels (64 is torchvision's model)")
    p.add_argument("--d-model", type=int, default=16)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--ff", type=int, default=32, help="transformer encoder: feed-forward width")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--block", type=int, default=64, help="gpt: largest sequence (wpe rows)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show-guards", action="store_true",
                   help="print PyTorch's guards, and where they were taken, on stderr")
    args = p.parse_args()
    write(trace(args), sys.stdout)


if __name__ == "__main__":
    main()
