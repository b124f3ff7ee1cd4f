"""PyTorch as the reference interpreter, node by node, on real models.

Each model (torchvision's, an nn.TransformerEncoder, and small GPT and Llama modules of the
structure `symshape gen` and scripts/make_gpt_example.py generate) is built with random weights
(batch norms with random running statistics), traced with make_fx at the ATen level (symbolic with
a dynamic batch where PyTorch 1.13 can, else tracing_mode="fake"), converted with symshape.fx,
and run twice on the same parameters and input: by PyTorch (a torch.fx.Interpreter over the traced
GraphModule that keeps every node's result) and by `symshape run` (--inputs with the parameters
and the input as .npy files, --save-nodes writing every node's value). Every tensor-valued node
must agree: the same shape and dtype, integers and bools exactly, floats within 1e-4 of the
tensor's scale (max|symshape - torch| <= 1e-4 * max(1, max|torch|)), nan where PyTorch has nan.

One model per test method, and ctest runs each method as its own process (python_torchref_<model>
in cmake/python.cmake), so that a crash names its model:

    PYTHONPATH=build/python SYMSHAPE_CLI=build/bin/symshape \\
        /usr/bin/python3 -m unittest -v test_torch_reference.TorchReferenceTest.test_resnet18

Each test prints one line to stderr: the nodes of the graph, the tensors compared, the trace
mode and the times. Skips only when torch or torchvision cannot be imported and the environment
variable CI is unset (with CI set, that is a failure), or when the CLI is missing.
"""
import operator
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import unittest

from optional_packages import require

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils import stateless

    import symshape.fx
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e
    nn = type("nn", (), {"Module": object})  # the classes below still define; setUpModule skips


def default_cli():
    if os.environ.get("SYMSHAPE_CLI"):
        return os.environ["SYMSHAPE_CLI"]
    root = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
    return os.path.join(root, "build", "bin", "symshape")


CLI = default_cli()
RTOL = 1e-4


def setUpModule():
    require(IMPORT_ERROR, "torch / torchvision", cli=CLI)
    # ctest runs two models at once on CI's two cores.
    torch.set_num_threads(1)


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------
class GPT(nn.Module):
    """A GPT-2 style decoder as scripts/make_gpt_example.py generates it: token and position
    embeddings, pre-norm blocks with causal attention and a tanh-GELU MLP, a final norm and a head
    tied to the token embedding."""

    def __init__(self, vocab=128, d=64, heads=4, ffn=256, layers=2, max_pos=64):
        super().__init__()
        self.heads = heads
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            block = nn.Module()
            block.ln_1, block.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            block.c_attn, block.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            block.c_fc, block.mlp_proj = nn.Linear(d, ffn), nn.Linear(ffn, d)
            self.blocks.append(block)
        self.ln_f = nn.LayerNorm(d)
        self.register_buffer("causal", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool)))

    def forward(self, tokens):
        b, t = tokens.shape
        d = self.wte.weight.shape[1]
        hd = d // self.heads
        x = self.wte(tokens) + self.wpe.weight[:t]
        for blk in self.blocks:
            qkv = blk.c_attn(blk.ln_1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = (q @ k.transpose(-2, -1)) * (1.0 / hd ** 0.5)
            att = att.masked_fill(~self.causal[:t, :t], float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + blk.c_proj(y)
            x = x + blk.mlp_proj(F.gelu(blk.c_fc(blk.ln_2(x)), approximate="tanh"))
        return self.ln_f(x) @ self.wte.weight.t()


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Llama(nn.Module):
    """A Llama-style decoder as `symshape gen llama` generates it: RMSNorm, attention with RoPE
    through view_as_complex, a SwiGLU MLP, a causal mask, untied output head."""

    def __init__(self, vocab=128, d=64, heads=4, ffn=172, layers=2, max_seq=64):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            layer = nn.Module()
            layer.attn_norm, layer.mlp_norm = RMSNorm(d), RMSNorm(d)
            layer.wq, layer.wk = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
            layer.wv, layer.wo = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
            layer.w1, layer.w3 = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
            layer.w2 = nn.Linear(ffn, d, bias=False)
            self.layers.append(layer)
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        freqs = 1.0 / (10000.0 ** (torch.arange(0, hd, 2).float() / hd))
        angles = torch.outer(torch.arange(max_seq).float(), freqs)
        self.register_buffer("rope_cos", angles.cos())
        self.register_buffer("rope_sin", angles.sin())

    def rope(self, x, t):
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        rot = torch.complex(self.rope_cos[:t], self.rope_sin[:t]).view(1, t, 1, -1)
        return torch.view_as_real(xc * rot).flatten(3)

    def forward(self, tokens):
        b, t = tokens.shape
        x = self.embed(tokens)
        d = x.shape[-1]
        hd = d // self.heads
        mask = torch.full((t, t), float("-inf")).triu(1)
        for layer in self.layers:
            h = layer.attn_norm(x)
            q = self.rope(layer.wq(h).view(b, t, self.heads, hd), t).transpose(1, 2)
            k = self.rope(layer.wk(h).view(b, t, self.heads, hd), t).transpose(1, 2)
            v = layer.wv(h).view(b, t, self.heads, hd).transpose(1, 2)
            att = ((q @ k.transpose(-2, -1)) / hd ** 0.5 + mask).softmax(-1)
            x = x + layer.wo((att @ v).transpose(1, 2).reshape(b, t, d))
            h = layer.mlp_norm(x)
            x = x + layer.w2(F.silu(layer.w1(h)) * layer.w3(h))
        return self.head(self.norm(x))


class OutputOf(nn.Module):
    """A model whose forward returns a dict, reduced to one of its entries."""

    def __init__(self, model, key):
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, x):
        return self.model(x)[self.key]


def _tv(name, **kwargs):
    return lambda: getattr(torchvision.models, name)(weights=None, **kwargs)


def _transformer_encoder():
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def _image(*sizes):
    return lambda: torch.randn(*sizes)


def _tokens(batch, seq, vocab=128):
    return lambda: torch.randint(0, vocab, (batch, seq))


SYMBOLIC, FAKE = "symbolic", "fake"

# name: (the model, its input, how make_fx traces it). Symbolic tracing keeps the batch dynamic
# (a batch of 2: 1 is specialized); "fake" where PyTorch 1.13's symbolic tracing fails on the
# model (the C++ composites of narrow, roll, pad, interpolate, ... ask for concrete sizes).
MODELS = {
    "resnet18": (_tv("resnet18"), _image(2, 3, 32, 32), SYMBOLIC),
    "resnet50": (_tv("resnet50"), _image(2, 3, 32, 32), SYMBOLIC),
    "mobilenet_v2": (_tv("mobilenet_v2"), _image(2, 3, 32, 32), SYMBOLIC),
    "mobilenet_v3_small": (_tv("mobilenet_v3_small"), _image(2, 3, 32, 32), SYMBOLIC),
    "efficientnet_b0": (_tv("efficientnet_b0"), _image(2, 3, 32, 32), SYMBOLIC),
    "shufflenet_v2_x0_5": (_tv("shufflenet_v2_x0_5"), _image(2, 3, 32, 32), SYMBOLIC),
    "densenet121": (_tv("densenet121"), _image(1, 3, 32, 32), FAKE),
    "squeezenet1_1": (_tv("squeezenet1_1"), _image(1, 3, 64, 64), FAKE),
    "googlenet": (_tv("googlenet", aux_logits=False, init_weights=True), _image(1, 3, 32, 32),
                  FAKE),
    "regnet_y_400mf": (_tv("regnet_y_400mf"), _image(1, 3, 32, 32), FAKE),
    "convnext_tiny": (_tv("convnext_tiny"), _image(1, 3, 32, 32), FAKE),
    "swin_t": (_tv("swin_t"), _image(1, 3, 32, 32), FAKE),
    "vit_b_16": (_tv("vit_b_16", image_size=32), _image(1, 3, 32, 32), FAKE),
    # MaxViT's partition size (7) must divide every stage's grid: 224 is its smallest input.
    "maxvit_t": (_tv("maxvit_t"), _image(1, 3, 224, 224), FAKE),
    "vgg11_bn": (_tv("vgg11_bn"), _image(1, 3, 32, 32), FAKE),
    "lraspp_mobilenet_v3_large": (
        lambda: OutputOf(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=3), "out"),
        _image(1, 3, 32, 32), FAKE),
    "r3d_18": (lambda: torchvision.models.video.r3d_18(weights=None), _image(1, 3, 4, 32, 32),
               FAKE),
    "transformer_encoder": (_transformer_encoder, _image(2, 7, 32), FAKE),
    "gpt": (GPT, _tokens(1, 8), FAKE),
    "llama": (Llama, _tokens(1, 8), FAKE),
}

# Models that cannot agree yet, each with the precise cause; unittest.expectedFailure marks them
# (an unexpected success fails the run: take the model off then).
EXPECTED_FAILURES = {}


def randomize_batch_norms(model, gen):
    """Non-trivial running statistics and affine parameters for every batch norm (a positive
    running_var: a negative one turns every output into nan)."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.2)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)


def trace(model, x, mode):
    """The symshape.fx Conversion of model at x, and the GraphModule's arguments (the parameters
    and buffers, then x). Parameters and buffers are graph inputs named after them."""
    if mode == SYMBOLIC:
        conv = symshape.fx.trace(model, x, dynamic={"x": {0: "batch"}}, input_names=["x"])
        return conv, list(conv.state) + [x]
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    names = list(state)
    values = [t.detach() for t in state.values()]

    def f(state_values, inp):
        return stateless.functional_call(model, dict(zip(names, state_values)), (inp,))

    # PyTorch 1.13's eval-mode attention fast paths have no meta functions (see symshape.fx).
    with symshape.fx._composite_attention(model):
        gm = make_fx(f, tracing_mode="fake")(values, x)
    conv = symshape.fx.from_fx(gm, input_names=[n.replace(".", "_") for n in names] + ["x"])
    return conv, values + [x]


def _storages(value):
    if isinstance(value, torch.Tensor):
        return {value.storage().data_ptr()}
    if isinstance(value, (list, tuple)):
        return set().union(*(_storages(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return _storages(list(value.values()))
    return set()


def _laid_out_as_traced(result, meta, inputs):
    """result with the strides the trace recorded (meta), where PyTorch's CPU kernel gave a fresh
    tensor another layout: PyTorch 1.13's meta functions and kernels disagree on some ops
    (native_layer_norm of a permuted input: the meta function keeps the input's layout, the CPU
    kernel returns a contiguous tensor), and the traced graph's _reshape_alias nodes read their
    input through the traced strides. Views and in-place results (sharing an input's storage) are
    left as they are."""
    if isinstance(result, (list, tuple)) and isinstance(meta, (list, tuple)) and len(
            result) == len(meta):
        items = [_laid_out_as_traced(r, m, inputs) for r, m in zip(result, meta)]
        return type(result)(items) if isinstance(result, tuple) else items
    if not isinstance(result, torch.Tensor) or not isinstance(meta, torch.Tensor):
        return result
    stride = meta.stride()
    if not all(isinstance(s, int) for s in stride) or tuple(result.shape) != tuple(meta.shape):
        return result  # symbolic strides: the batch is traced symbolic
    if all(a == b for a, b, n in zip(result.stride(), stride, result.shape) if n > 1):
        return result
    if result.storage().data_ptr() in inputs:
        return result
    out = torch.empty_strided(result.shape, stride, dtype=result.dtype)
    out.copy_(result)
    return out


def torch_values(conv, args):
    """{symshape node name: PyTorch's value} for every node, as the tensors stand after the run
    (an in-place op's input then holds what the graph left in it, as in symshape's run). Fresh
    results take the layout the trace recorded (_laid_out_as_traced)."""
    values = {}
    names = conv.node_names

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            if n.op == "call_function":
                # An item of a multi-output op (which has no "val" of its own in 1.13) is as
                # fresh as the op's result: what it aliases are the op's inputs.
                source = n
                if n.target is operator.getitem and n.args[0].op == "call_function":
                    source = n.args[0]
                inputs = _storages([self.env[a] for a in source.all_input_nodes if a in self.env])
                result = _laid_out_as_traced(result, n.meta.get("val"), inputs)
            values[names[n]] = result
            return result

    with torch.no_grad():
        Recorder(conv.gm).run(*args)
    return values


def tensors_of(name, value):
    """(file stem, tensor) for each tensor of a node's value, named as --save-nodes names them."""
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if isinstance(value, (list, tuple)):
        return [item for k, v in enumerate(value) for item in tensors_of(f"{name}_{k}", v)]
    return []


def mismatch(expected, actual):
    """Why actual (a NumPy array from symshape) is not PyTorch's expected tensor, or None."""
    exp = expected.detach()
    if exp.is_complex():
        exp = torch.view_as_real(exp.resolve_conj())
    if exp.dtype in (torch.float16, torch.bfloat16):
        exp = exp.float()
    exp = exp.cpu().numpy()
    if actual.dtype.kind == "c":
        actual = np.stack([actual.real, actual.imag], axis=-1)
    if tuple(actual.shape) != tuple(exp.shape):
        return f"shape {list(actual.shape)}, PyTorch {list(exp.shape)}"
    # Equal elements agree (the usual case for views and copies, and cheap on VGG's 100 M-element
    # weights); anything else (nan included: nan != nan) takes the checks below.
    if actual.dtype == exp.dtype and np.array_equal(actual, exp):
        return None
    if exp.dtype.kind in "biu":
        if actual.dtype.kind not in "biu":
            return f"dtype {actual.dtype}, PyTorch {exp.dtype}"
        wrong = np.flatnonzero(actual.astype(np.int64) != exp.astype(np.int64))
        if wrong.size:
            k = wrong[0]
            return (f"{wrong.size} of {exp.size} elements differ (flat {k}: "
                    f"{actual.reshape(-1)[k]}, PyTorch {exp.reshape(-1)[k]})")
        return None
    a, e = actual.astype(np.float64), exp.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return (f"nan at {int(np.isnan(a).sum())} elements, PyTorch at "
                f"{int(np.isnan(e).sum())}")
    finite = np.isfinite(e)
    if not np.array_equal(a[~finite & ~np.isnan(e)], e[~finite & ~np.isnan(e)]):
        return "the infinities differ"
    if not finite.any():
        return None
    diff = np.abs(a[finite] - e[finite])
    scale = max(1.0, float(np.abs(e[finite]).max()))
    if not np.isfinite(diff).all() or diff.max() > RTOL * scale:
        k = int(np.nanargmax(np.where(np.isfinite(diff), diff, np.inf)))
        return (f"max |difference| {diff.max():.3g} > {RTOL} * {scale:.3g} "
                f"(at finite element {k}: {a[finite][k]!r}, PyTorch {e[finite][k]!r})")
    return None


def build(name):
    """MODELS[name] as the tests run it: (the model in eval mode with random weights and batch
    norm statistics, its input, the trace mode), the same on every call."""
    make_model, make_input, mode = MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = make_model()
    randomize_batch_norms(model, gen)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model, make_input(), mode


def save_graph_and_inputs(conv, args, d):
    """Writes conv's graph as d/graph.json and its arguments (trace's) as d/inputs/NAME.npy, one
    per placeholder, as `run --inputs` and `lower --inputs` read them; returns both paths."""
    graph_path = os.path.join(d, "graph.json")
    conv.save(graph_path)
    inputs_dir = os.path.join(d, "inputs")
    os.makedirs(inputs_dir)
    placeholders = [conv.node_names[n] for n in conv.gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        raise AssertionError(f"{len(placeholders)} placeholders for {len(args)} arguments")
    for pname, value in zip(placeholders, args):
        np.save(os.path.join(inputs_dir, pname + ".npy"), value.detach().numpy())
    return graph_path, inputs_dir


class TorchReferenceTest(unittest.TestCase):
    def check_model(self, name):
        model, x, mode = build(name)
        start = time.monotonic()
        conv, args = trace(model, x, mode)
        traced = time.monotonic()
        expected = torch_values(conv, args)
        with torch.no_grad():
            eager = model(x)
        out_node = [n for n in conv.gm.graph.nodes if n.op == "output"][0]
        (graph_out,) = [v for v in out_node.args[0]] if isinstance(
            out_node.args[0], (list, tuple)) else [out_node.args[0]]
        # The traced graph computes what the model does (else the comparison would be moot).
        torch.testing.assert_close(expected[conv.node_names[graph_out]], eager, rtol=1e-4,
                                   atol=1e-5)
        referenced = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"torchref_{name}_") as d:
            graph_path, inputs_dir = save_graph_and_inputs(conv, args, d)
            nodes_dir = os.path.join(d, "nodes")
            cmd = [CLI, "run", graph_path, "--inputs", inputs_dir, "--save-nodes", nodes_dir]
            cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
            run_cpu = (cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime -
                       cpu_before.ru_stime)
            ran = time.monotonic()
            failures, compared = [], 0
            for node in conv.gm.graph.nodes:
                if node.op in ("placeholder", "output"):
                    continue  # the inputs are the files given; the outputs are nodes
                node_name = conv.node_names[node]
                for stem, tensor in tensors_of(node_name, expected[node_name]):
                    path = os.path.join(nodes_dir, stem + ".npy")
                    if not os.path.exists(path):
                        failures.append(f"{stem} ({node.target}): no value from symshape run")
                        continue
                    why = mismatch(tensor, np.load(path))
                    compared += 1
                    if why:
                        failures.append(f"{stem} ({node.target}): {why}")
        done = time.monotonic()
        print(f"\n{name}: {len(conv.gm.graph.nodes)} nodes, {compared} tensors compared, "
              f"{compared - len([f for f in failures if 'no value' not in f])} agree; traced "
              f"{mode} in {traced - start:.1f}s, PyTorch {referenced - traced:.1f}s, symshape run "
              f"{ran - referenced:.1f}s ({run_cpu:.1f}s CPU), compared in {done - ran:.1f}s; "
              f"this process {time.process_time():.1f}s CPU", file=sys.stderr)
        problems = []
        if proc.returncode != 0:
            problems.append(f"symshape run exited {proc.returncode}: {proc.stderr.strip()}")
        if failures:
            problems.append(f"{len(failures)} node values differ from PyTorch's; the first "
                            "ones in graph order:\n  " + "\n  ".join(failures[:8]))
        self.assertFalse(problems, f"{name}: " + "\n".join(problems))
        self.assertGreater(compared, 10, f"{name}: too few tensors compared")

    def test_every_model_has_a_ctest_test(self):
        """cmake/python.cmake registers one ctest test per model (python_torchref_<model>)."""
        with open(os.path.join(HERE, "..", "..", "cmake", "python.cmake")) as f:
            text = f.read()
        m = re.search(r"set\(SYMSHAPE_TORCHREF_MODELS([^)]*)\)", text)
        self.assertIsNotNone(m, "cmake/python.cmake lists SYMSHAPE_TORCHREF_MODELS")
        self.assertEqual(m.group(1).split(), list(MODELS))


def add_model_tests(case, what, expected_failures):
    """Gives the TestCase `case` a test_NAME per model of MODELS, calling case.check_model(NAME),
    documented as "NAME: " + what; those in expected_failures (NAME -> cause) are marked
    unittest.expectedFailure."""
    for name in MODELS:
        def test(self, name=name):
            self.check_model(name)

        test.__name__ = f"test_{name}"
        test.__doc__ = f"{name}: {what}"
        setattr(case, test.__name__,
                unittest.expectedFailure(test) if name in expected_failures else test)


add_model_tests(TorchReferenceTest, "every tensor-valued node agrees with PyTorch",
                EXPECTED_FAILURES)


if __name__ == "__main__":
    unittest.main()
