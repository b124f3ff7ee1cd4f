"""The model matrix of issue 30: models traced with make_fx through symshape.fx, lowered by the
default, decompose, autocast (low=float16) and (for the Llama RoPE model) complex pipelines, and
handed back to PyTorch with to_fx. For each pipeline: no pass refuses a node, every symbolic dim
stays, no guard is added; no dropout, detach, alias, lift_fresh_copy, in-place op (but the
write-back of a written input) or redundant clone (one that copies a value into the layout it
already has) is left; decompose leaves nothing it would decompose again; and the lowered
GraphModule, run in PyTorch eager, computes the model's output at the hints and at two more
sizes of each dynamic dim (torch.testing.assert_close with rtol 1e-4, atol 1e-5 for float32). The
models' batch norms get random statistics (as in test_torch_reference): at the defaults
MobileNetV2's output is ~1e-10, where every comparison passes.

The non-default pipelines run the default one first (`default,decompose`): a user cleans up and
then lowers. float16: PyTorch 1.13 has no CPU float16 kernels for convolution, matmul and a few
more, so the autocast GraphModule runs under Float16Fallback, which computes those ops (and only
those: the count is checked) in float32 from the float16 values and rounds the result to float16,
as a GPU kernel accumulating in float32 does; its output is compared with the model's within the
autocast pass's declared tolerance, 1e-2, taken norm-wise (the largest error against the largest
output: at random weights GPT's float16 logits are off by 1.04e-2 of a 0.56 element). (--verify-numerics, where the interpreter
computes the float16 graph, is left out: after each of the pipeline's passes, at three sizes, it
takes 90 s on ResNet-18.)

Swin-T: PyTorch 1.13's symbolic tracer cannot trace it (narrow, roll, pad ask for concrete sizes),
so it is traced statically (tracing_mode="fake"), and its traced GraphModule is itself not the
model: fake tracing records native_layer_norm's result with the strides of its permuted input,
the eager kernel returns it contiguous, and the _reshape_alias nodes after it read through the
recorded strides (the traced module differs from Swin-T by ~0.06). The lowered modules are
compared with the traced module there (what symshape was given), but the decomposed one, whose
_reshape_alias nodes became reshapes, with the model: it computes Swin-T.

One test per model (cmake: python_lowered_<model>), so that a crash names its model. Skips when
torch cannot be imported unless the environment variable CI is set.
"""
import os
import sys
import unittest

import symshape

try:
    import torch
    import torch.nn as nn
    import torchvision

    import symshape.fx
    import symshape.fx_out
    from test_torch_reference import GPT, Llama, randomize_batch_norms
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e


def setUpModule():
    if IMPORT_ERROR is None:
        torch.set_num_threads(1)  # ctest runs two tests at once on CI's two cores
        return
    if os.environ.get("CI"):
        raise AssertionError(f"CI is set but torch / torchvision cannot be imported: {IMPORT_ERROR}")
    raise unittest.SkipTest(f"torch / torchvision cannot be imported ({IMPORT_ERROR})")


def _tv(name):
    return lambda: getattr(torchvision.models, name)(weights=None, num_classes=10)


def _encoder():
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def _image(batch):
    return (torch.randn(batch, 3, 32, 32),)


def _sequence(batch, seq):
    return (torch.randn(batch, seq, 16),)


def _tokens(batch, seq):
    return (torch.randint(0, 64, (batch, seq)),)


BATCH = {"batch": (3, [2, 5])}  # hint, two more sizes
BATCH_SEQ = {"batch": (3, [2, 5]), "seq": (7, [5, 9])}

# name: (model factory, inputs at given dims, {input: {dim index: dim name}}, dims, pipelines)
MODELS = {
    "resnet18": (_tv("resnet18"), _image, {"x": {0: "batch"}}, BATCH, ()),
    "mobilenet_v2": (_tv("mobilenet_v2"), _image, {"x": {0: "batch"}}, BATCH, ()),
    "efficientnet_b0": (_tv("efficientnet_b0"), _image, {"x": {0: "batch"}}, BATCH, ()),
    "shufflenet_v2": (_tv("shufflenet_v2_x0_5"), _image, {"x": {0: "batch"}}, BATCH, ()),
    "swin_t": (_tv("swin_t"), lambda: _image(1), None, {}, ()),
    "transformer_encoder": (_encoder, _sequence, {"src": {0: "batch", 1: "seq"}}, BATCH_SEQ, ()),
    "gpt": (lambda: GPT(vocab=64, d=32, heads=2, ffn=64, layers=2, max_pos=32), _tokens,
            {"tokens": {0: "batch", 1: "seq"}}, BATCH_SEQ, ()),
    "llama_rope": (lambda: Llama(vocab=64, d=32, heads=2, ffn=64, layers=2, max_seq=32), _tokens,
                   {"tokens": {0: "batch", 1: "seq"}}, BATCH_SEQ, ("complex",)),
}

GONE = ("aten.dropout.", "aten.native_dropout.", "aten.feature_dropout.", "aten.alpha_dropout.",
        "aten.detach.", "aten.alias.", "aten.lift_fresh_copy.", "aten.lift_fresh.")
AUTOCAST_RTOL = 1e-2  # the autocast pass's declared tolerance for low=float16


class Float16Fallback(torch.fx.Interpreter):
    """Runs a GraphModule in eager; an op PyTorch 1.13 has no CPU float16 kernel for (it raises
    "not implemented for 'Half'") is computed in float32 from its float16 operands and rounded
    back to float16. .fallbacks counts the ops computed so."""

    def __init__(self, gm):
        super().__init__(gm)
        self.fallbacks = 0

    def call_function(self, target, args, kwargs):
        try:
            return super().call_function(target, args, kwargs)
        except RuntimeError as e:
            if "Half" not in str(e):
                raise
        up = lambda a: a.float() if isinstance(a, torch.Tensor) and a.dtype == torch.float16 else a  # noqa: E731
        out = target(*[up(a) if not isinstance(a, (list, tuple)) else type(a)(up(x) for x in a)
                       for a in args], **{k: up(v) for k, v in kwargs.items()})
        self.fallbacks += 1
        down = lambda o: o.half() if isinstance(o, torch.Tensor) and o.dtype == torch.float32 else o  # noqa: E731
        return type(out)(down(o) for o in out) if isinstance(out, (list, tuple)) else down(out)


def flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def runs(dims):
    """{dim: size} for the hints, then each dim at its two other sizes (the rest at the hints)."""
    hints = {d: h for d, (h, _) in dims.items()}
    out = [dict(hints)]
    for d, (_, others) in dims.items():
        out += [dict(hints, **{d: v}) for v in others]
    return out


class LoweredModelsTest(unittest.TestCase):
    def trace(self, name):
        factory, make, dynamic, dims, extra = MODELS[name]
        torch.manual_seed(0)
        model = factory().eval()
        # Non-trivial batch-norm statistics: at their defaults MobileNetV2's output is ~1e-10,
        # where any comparison passes.
        randomize_batch_norms(model, torch.Generator().manual_seed(0))
        hints = {d: h for d, (h, _) in dims.items()}
        if dynamic:
            conv = symshape.fx.trace(model, make(**hints), dynamic=dynamic)
        else:
            conv = symshape.fx.trace(model, make(), tracing_mode="fake")
        return model, make, dims, extra, conv

    def pipelines(self, extra):
        default = symshape.pipelines()["default"][1]
        specs = {"default": {"pipeline": "default"},
                 "decompose": {"passes": default + ["decompose"]},
                 "autocast": {"passes": default + ["autocast"],
                              "options": {"autocast": {"low": "float16"}}}}
        if "complex" in extra:
            specs["complex"] = {"passes": default + symshape.pipelines()["complex"][1]}
        return specs

    def check_structure(self, label, conv, low):
        graph = low.lowered_graph
        where = f"{label}: "
        # Every symbolic dim kept: the same dims, the inputs' shapes as they were.
        self.assertEqual(sorted(graph.dims), sorted(conv.graph.dims), where + "dims")
        before = [n["shape"] for n in symshape.fx_out._inputs_of(conv)]
        after = [n["shape"] for n in low.graph_dict["nodes"] if n["op"] == "placeholder"]
        self.assertEqual(after, before, where + "input shapes")
        # No guard added by any pass, and no more guards than the traced graph has.
        self.assertEqual([r.name for r in low.reports if r.guards_added], [], where + "guards")
        self.assertLessEqual(len(symshape.guards(graph)), len(symshape.guards(conv.graph)), where)
        left = []
        for n in low.gm.graph.nodes:
            if n.op != "call_function":
                continue
            target = str(n.target)
            if target.startswith(GONE):
                left.append(n.name)
            elif target == "aten.clone.default":
                src, me = n.args[0].meta["symshape"].tensor, n.meta["symshape"].tensor
                if [str(s) for s in src.stride] == [str(s) for s in me.stride]:
                    left.append(n.name + " (a redundant clone)")
            elif parse_in_place(target) and not (
                    target == "aten.copy_.default" and n.args[0].op in ("placeholder", "get_attr")
                    and not n.users):
                left.append(n.name + " (in place)")
        self.assertEqual(left, [], where + "left over")
        # meta["val"] at the hints on every value node.
        self.assertTrue(all("val" in n.meta for n in low.gm.graph.nodes
                            if n.op in ("placeholder", "call_function") and
                            n.meta["symshape"].kind == "tensor"), where + "meta['val']")

    def check_decomposed(self, low):
        again = symshape.lower(low.lowered_graph, "decompose")
        counters = {k: v for r in again.reports for k, v in r.counters.items()
                    if k.startswith(("decomposed", "kept"))}
        self.assertEqual(counters, {}, "decompose: what a second decompose still finds")

    def compare(self, label, reference, gm, make, dims, rtol, runner=None, norm_wise=False):
        for at in runs(dims):
            torch.manual_seed(1)
            inputs = make(**at)
            with torch.no_grad():
                expected = flat(reference(*inputs))
                actual = flat(runner(gm).run(*inputs) if runner else gm(*inputs))
            self.assertEqual(len(actual), len(expected))
            for i, (e, a) in enumerate(zip(expected, actual)):
                self.assertEqual(a.shape, e.shape, f"{label} at {at}")
                if norm_wise:
                    # float16 through a whole network: the error against the largest output.
                    err = (a.to(e.dtype) - e).abs().max().item()
                    self.assertLessEqual(err, rtol * e.abs().max().item(),
                                         f"{label}: output {i} differs from the model at {at}")
                    continue
                torch.testing.assert_close(
                    a, e, rtol=rtol, atol=1e-5,
                    msg=lambda m: f"{label}: output {i} differs from the model at {at}: {m}")

    def check_model(self, name):
        model, make, dims, extra, conv = self.trace(name)
        reference = model
        if name == "swin_t":  # see the module's docstring
            traced = symshape.fx.to_fx(conv.graph, conv)
            reference = traced
        for label, spec in self.pipelines(extra).items():
            with self.subTest(pipeline=label):
                low = conv.lower(**spec)
                self.check_structure(label, conv, low)
                if label == "decompose":
                    self.check_decomposed(low)
                if label == "autocast":
                    casts = [n for n in low.gm.graph.nodes
                             if n.meta.get("symshape") is not None
                             and n.meta["symshape"].kind == "tensor"
                             and n.meta["symshape"].dtype == "float16"]
                    self.assertGreater(len(casts), 0, "autocast: no float16 value")
                    runners = []

                    def runner(gm):
                        runners.append(Float16Fallback(gm))
                        return runners[-1]

                    self.compare(label, model if name != "swin_t" else reference, low.gm, make,
                                 dims, AUTOCAST_RTOL, runner, norm_wise=True)
                    # Only ops without a CPU float16 kernel fell back, never more than all.
                    self.assertLessEqual(runners[0].fallbacks, len(casts))
                    continue
                if name == "swin_t" and label == "decompose":
                    self.compare("decompose vs Swin-T", model, low.gm, make, dims, 1e-4)
                else:
                    self.compare(label, reference, low.gm, make, dims, 1e-4)

    def test_every_model_has_a_ctest_test(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "cmake", "python.cmake")) as f:
            text = f.read()
        listed = text.split("set(SYMSHAPE_LOWERED_MODELS", 1)[1].split(")", 1)[0].split()
        self.assertEqual(sorted(listed), sorted(MODELS))


def parse_in_place(target):
    """Whether an aten target writes in place (`aten.add_.Tensor`)."""
    parts = target.split(".")
    return len(parts) >= 2 and parts[1].endswith("_") and not parts[1].endswith("__")


def _model_test(name):
    def test(self):
        self.check_model(name)
    return test


for _name in MODELS:
    setattr(LoweredModelsTest, f"test_{_name}", _model_test(_name))


if __name__ == "__main__":
    unittest.main()
