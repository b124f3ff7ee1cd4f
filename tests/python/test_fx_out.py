"""symshape.fx out: symshape graphs back to torch.fx GraphModules (to_fx), Conversion.lower and
--verify-torch, on models traced with make_fx (ResNet-18, MobileNetV2, a TransformerEncoder and a
Llama-style rotary attention block with complex numbers): each lowered GraphModule runs in
PyTorch eager and matches the original model at the hints and at two more sizes of each dynamic
dim.

Skips only when torch or torchvision cannot be imported and the environment variable CI is unset;
with CI set, a missing torch is a failure.
"""
import contextlib
import io
import os
import tempfile
import unittest

from optional_packages import require

import symshape

try:
    import torch
    import torch.nn as nn
    import torchvision

    import symshape.fx
    import symshape.fx_out
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e


def setUpModule():
    require(IMPORT_ERROR, "torch / torchvision")


def functional_activations(model):
    """The model with in-place activations off (ReLU(inplace=True) -> ReLU()): autocast needs a
    functional graph until the functionalize pass does that for it."""
    for m in model.modules():
        if hasattr(m, "inplace"):
            m.inplace = False
    return model


if IMPORT_ERROR is None:
    class RotaryAttention(nn.Module):
        """Llama's attention scores with rotary embeddings in complex numbers: q and k as complex
        pairs times freqs_cis (a complex input, as Llama passes it), back to real. Returns the
        attention weights and the rotated queries (complex)."""

        def __init__(self, dim=16, heads=2):
            super().__init__()
            self.heads, self.head_dim = heads, dim // heads
            self.wq = nn.Linear(dim, dim, bias=False)
            self.wk = nn.Linear(dim, dim, bias=False)

        def forward(self, x, freqs_cis):
            b, s, _ = x.shape
            h, d = self.heads, self.head_dim
            q = torch.view_as_complex(self.wq(x).view(b, s, h, d // 2, 2))
            k = torch.view_as_complex(self.wk(x).view(b, s, h, d // 2, 2))
            f = freqs_cis.view(1, s, 1, d // 2)
            qr = torch.view_as_real(q * f).flatten(3).transpose(1, 2)
            kr = torch.view_as_real(k * f).flatten(3).transpose(1, 2)
            scores = torch.softmax(qr @ kr.transpose(-1, -2) / d ** 0.5, -1)
            return scores, q * f


    class RotaryAttentionBuffer(RotaryAttention):
        """The same with freqs_cis a complex buffer of the module, sliced to the sequence."""

        def __init__(self, max_seq=32):
            super().__init__()
            self.register_buffer("freqs_cis", rotary_freqs(max_seq))

        def forward(self, x):
            # aten.slice: symshape.fx's traced indexing cannot take a symbolic stop (freqs[:s])
            # in PyTorch 1.13.
            freqs = torch.ops.aten.slice.Tensor(self.freqs_cis, 0, 0, x.shape[1])
            return super().forward(x, freqs)


def rotary_freqs(seq, head_dim=8):
    freqs = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(seq).float(), freqs)
    return torch.polar(torch.ones_like(angles), angles)


def flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


class LoweredModelTest(unittest.TestCase):
    """Round trips of traced models through to_fx, unlowered and lowered, run in PyTorch."""

    def assert_matches_model(self, model, gm, make_inputs, sizes, rtol=1e-4, atol=1e-5):
        """gm (taking the model's inputs) computes what the model computes at each size."""
        for size in sizes:
            torch.manual_seed(1)
            inputs = make_inputs(**size)
            with torch.no_grad():
                expected, actual = flat(model(*inputs)), flat(gm(*inputs))
            self.assertEqual(len(expected), len(actual))
            for e, a in zip(expected, actual):
                self.assertEqual(a.shape, e.shape, f"at {size}")
                self.assertEqual(a.dtype, e.dtype, f"at {size}")
                torch.testing.assert_close(a, e, rtol=rtol, atol=atol, msg=lambda m: f"{size}: {m}")

    def lower_and_run(self, model, conv, make_inputs, sizes, pipelines):
        gm = symshape.fx.to_fx(conv.graph, conv)
        # No lowering: the same graph, parameters bound, the model's inputs only.
        self.assertEqual(len([n for n in gm.graph.nodes if n.op == "placeholder"]),
                         len(make_inputs(**sizes[0])))
        self.assertTrue(all("symshape" in n.meta for n in gm.graph.nodes))
        self.assert_matches_model(model, gm, make_inputs, sizes)
        lowered = {}
        for label, spec in pipelines.items():
            low = conv.lower(verify_torch=True, **spec)
            self.assertEqual(low.torch_runs, 1 + 2 * len(conv.hints), label)
            self.assertTrue(all("symshape" in n.meta for n in low.gm.graph.nodes), label)
            lowered[label] = low
        return gm, lowered

    def test_resnet18(self):
        model = torchvision.models.resnet18(weights=None, num_classes=10).eval()
        make = lambda batch: (torch.randn(batch, 3, 32, 32),)  # noqa: E731
        conv = symshape.fx.trace(model, make(3), dynamic={"x": {0: "batch"}})
        _, lowered = self.lower_and_run(
            model, conv, make, [{"batch": 2}, {"batch": 5}],
            {"default": {"pipeline": "default"}, "decompose": {"passes": "decompose"}})
        self.assert_matches_model(model, lowered["default"].gm, make, [{"batch": 4}])
        self.assert_matches_model(model, lowered["decompose"].gm, make, [{"batch": 4}])
        # The parameters and buffers are the module's, at the model's paths.
        gm = lowered["default"].gm
        self.assertIn("layer1.0.conv1.weight", dict(gm.named_parameters()))
        self.assertIn("bn1.running_var", dict(gm.named_buffers()))
        # The default pipeline removed the getitems of unused outputs; the code is make_fx's.
        self.assertIn("torch.ops.aten.convolution.default", gm.code)
        # ResNet's `out += identity` and relu_ write in place into batch-norm outputs: the
        # default pipeline and autocast functionalize them first.
        targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
        self.assertNotIn("aten.relu_.default", targets)
        self.assertNotIn("aten.add_.Tensor", targets)
        self.assertIn("aten.relu.default", targets)
        low = conv.lower(passes="autocast", options={"autocast": {"low": "bfloat16"}},
                         verify_torch=True)
        self.assertEqual(low.torch_runs, 3)

    def test_mobilenet_v2(self):
        model = functional_activations(
            torchvision.models.mobilenet_v2(weights=None, num_classes=10)).eval()
        make = lambda batch: (torch.randn(batch, 3, 32, 32),)  # noqa: E731
        conv = symshape.fx.trace(model, make(3), dynamic={"x": {0: "batch"}})
        _, lowered = self.lower_and_run(
            model, conv, make, [{"batch": 2}, {"batch": 5}],
            {"default": {"pipeline": "default"}, "decompose": {"passes": "decompose"},
             "autocast": {"passes": "autocast", "options": {"autocast": {"low": "bfloat16"}}}})
        self.assertIn("torch.bfloat16", lowered["autocast"].gm.code)
        self.check_float16(conv)

    def check_float16(self, conv):
        """autocast with low=float16: PyTorch 1.13's CPU kernels have no float16 convolution or
        matmul, so the numbers are the interpreter's (verify_numerics) and the GraphModule is
        checked for its casts; verify_torch says why it cannot run."""
        low = conv.lower(passes="autocast", options={"autocast": {"low": "float16"}},
                         verify_numerics=True)
        casts = [n for n in low.gm.graph.nodes if n.op == "call_function"
                 and n.target == torch.ops.aten._to_copy.default
                 and n.kwargs.get("dtype") == torch.float16]
        self.assertGreater(len(casts), 0)
        self.assertTrue(all(n.meta["symshape"].dtype == "float16" for n in casts))
        try:
            symshape.fx_out.verify_torch(conv, low)
        except symshape.fx.ConversionError as e:
            self.assertIn("not implemented for 'Half'", str(e))
            self.assertIn("at the hints", str(e))

    def test_transformer_encoder(self):
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
        make = lambda batch, seq: (torch.randn(batch, seq, 16),)  # noqa: E731
        conv = symshape.fx.trace(model, make(3, 7), dynamic={"src": {0: "batch", 1: "seq"}})
        _, lowered = self.lower_and_run(
            model, conv, make, [{"batch": 2, "seq": 5}, {"batch": 4, "seq": 9}],
            {"default": {"pipeline": "default"}, "decompose": {"passes": "decompose"},
             "autocast": {"passes": "autocast", "options": {"autocast": {"low": "bfloat16"}}}})
        # decompose leaves none of the ops it decomposes.
        targets = {str(n.target) for n in lowered["decompose"].gm.graph.nodes}
        self.assertNotIn("aten.native_layer_norm.default", targets)
        self.assertNotIn("aten.addmm.default", targets)
        self.assert_matches_model(model, lowered["decompose"].gm, make, [{"batch": 3, "seq": 6}])
        self.check_float16(conv)

    def test_rotary_attention_complex(self):
        model = RotaryAttention().eval()
        make = lambda batch, seq: (torch.randn(batch, seq, 16), rotary_freqs(seq))  # noqa: E731
        conv = symshape.fx.trace(model, make(3, 5), dynamic={
            "x": {0: "batch", 1: "seq"}, "freqs_cis": {0: "seq"}})
        _, lowered = self.lower_and_run(
            model, conv, make, [{"batch": 2, "seq": 4}, {"batch": 4, "seq": 7}],
            {"default": {"pipeline": "default"}, "decompose": {"passes": "decompose"},
             "complex": {"pipeline": "complex"}})
        low = lowered["complex"]
        # The real-view input and output come back as complex ones, as complex_io records.
        self.assertEqual(low.complex_io["outputs"], [1])
        self.assertEqual([e["original"] for e in low.complex_io["inputs"]], ["freqs_cis"])
        placeholders = [n for n in low.gm.graph.nodes if n.op == "placeholder"]
        self.assertEqual([n.meta["symshape"].dtype for n in placeholders], ["float32", "complex64"])
        self.assertEqual(str(placeholders[1].meta["symshape"].shape[0]), "seq")
        real_view = list(placeholders[1].users)[0]
        self.assertEqual(real_view.target, torch.ops.aten.view_as_real.default)
        self.assertEqual(real_view.name, "freqs_cis_unpacked_complex")
        output = [n for n in low.gm.graph.nodes if n.op == "output"][0]
        self.assertEqual(output.args[0][1].target, torch.ops.aten.view_as_complex.default)
        # Inside, no complex value is left.
        inner = [n for n in low.gm.graph.nodes if n.op == "call_function"
                 and n.target not in (torch.ops.aten.view_as_real.default,
                                      torch.ops.aten.view_as_complex.default)]
        self.assertFalse([n.name for n in inner
                          if n.meta["symshape"].kind == "tensor"
                          and n.meta["symshape"].dtype.startswith("complex")])
        self.assert_matches_model(model, low.gm, make, [{"batch": 2, "seq": 3}], rtol=3e-4)
        # A lowered conversion lowers again: its parameters and complex interface stay.
        again = low.lower(passes="decompose", verify_torch=True)
        self.assertEqual(again.torch_runs, 5)
        self.assert_matches_model(model, again.gm, make, [{"batch": 3, "seq": 6}], rtol=3e-4)


    def test_rotary_complex_buffer(self):
        # A complex buffer unpacked by complex-rewrite stays the module's complex buffer, with
        # view_as_real after it.
        model = RotaryAttentionBuffer().eval()
        make = lambda batch, seq: (torch.randn(batch, seq, 16),)  # noqa: E731
        conv = symshape.fx.trace(model, make(3, 5), dynamic={"x": {0: "batch", 1: "seq"}})
        low = conv.lower(pipeline="complex", verify_torch=True)
        self.assertEqual(low.torch_runs, 5)
        self.assertEqual([(n, b.dtype) for n, b in low.gm.named_buffers()],
                         [("freqs_cis", torch.complex64)])
        self.assert_matches_model(model, low.gm, make, [{"batch": 2, "seq": 9}], rtol=3e-4)


class ComplexWriteBackTest(unittest.TestCase):
    def test_a_complex_input_written_in_place_is_written_back_through_its_real_view(self):
        # f.mul_(2) and f[:, 0] = 0 on a complex input: functionalize makes the graph functional
        # with a write-back copy_ into f; complex-rewrite writes it into f's real view, which
        # to_fx's module makes with view_as_real of the caller's tensor: the caller's f changes
        # as it does in eager.
        class Model(nn.Module):
            def forward(self, x, f):
                f.mul_(2)
                f[:, 0] = 0
                return torch.view_as_real(torch.view_as_complex(x) * f)

        x = torch.randn(4, 3, 2)
        f = torch.randn(4, 3, dtype=torch.complex64)
        conv = symshape.fx.trace(Model(), (x, f.clone()), tracing_mode="fake")
        low = conv.lower(pipeline="complex", verify_numerics=True)
        self.assertEqual([e["original"] for e in low.complex_io["inputs"]], ["f"])
        f_eager, f_lowered = f.clone(), f.clone()
        expected = Model()(x, f_eager)
        actual = low.gm(x, f_lowered)
        torch.testing.assert_close(actual, expected)
        self.assertTrue(torch.equal(f_lowered, f_eager))
        self.assertFalse(torch.equal(f_lowered, f))


class ToFxTest(unittest.TestCase):
    def test_meta_val_is_what_pytorch_computes_at_the_hints(self):
        # meta["val"]: a FakeTensor with the dtype, sizes and strides PyTorch gives each node at
        # the hints, an int for a size; checked against the values of a real run.
        from torch._subclasses.fake_tensor import FakeTensor

        model = functional_activations(
            torchvision.models.resnet18(weights=None, num_classes=10)).eval()
        x = torch.randn(3, 3, 32, 32)
        conv = symshape.fx.trace(model, (x,), dynamic={"x": {0: "batch"}})
        gm = conv.lower(pipeline="default").gm
        values = {}

        class Recorder(torch.fx.Interpreter):
            def run_node(self, n):
                values[n] = super().run_node(n)
                return values[n]

        with torch.no_grad():
            Recorder(gm).run(x)
        checked = 0
        for n in gm.graph.nodes:
            if n.op == "output":
                continue
            val, real = n.meta["val"], values[n]
            if isinstance(real, torch.Tensor):
                self.assertIsInstance(val, FakeTensor, n.name)
                self.assertEqual((val.shape, val.dtype), (real.shape, real.dtype), n.name)
                if real.dim() and n.op != "get_attr":
                    self.assertEqual(val.stride(), real.stride(), n.name)
                self.assertEqual(n.meta["tensor_meta"].shape, real.shape, n.name)
                checked += 1
            elif isinstance(real, int):
                self.assertEqual(val, real, n.name)
        self.assertGreater(checked, 50)
        # The fake values share one FakeTensorMode, as make_fx's do.
        modes = {id(n.meta["val"].fake_mode) for n in gm.graph.nodes
                 if isinstance(n.meta.get("val"), FakeTensor)}
        self.assertEqual(len(modes), 1)

    def test_sizes_in_arguments_become_sym_size_arithmetic(self):
        # A graph whose view takes sizes as expressions ({"expr": ...}): to_fx computes them
        # from the input's sizes with sym_size and operator arithmetic, as make_fx does.
        graph = symshape.read_graph({
            "format": "symshape-graph", "version": 1,
            "dims": {"b": {"min": 2, "hint": 3}, "s": {"min": 2, "hint": 4}},
            "nodes": [
                {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["b", "s", 6]},
                {"name": "v", "op": "call_function", "target": "aten.view.default",
                 "args": [{"node": "x"}, [{"expr": "b*s"}, {"expr": "ceildiv(6, 4)"}, -1]]},
                {"name": "r", "op": "call_function", "target": "aten.relu.default",
                 "args": [{"node": "v"}]},
                {"name": "output", "op": "output", "args": [[{"node": "r"}]]}]})
        gm = symshape.fx.to_fx(graph)
        targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        self.assertIn(torch.ops.aten.sym_size.int, targets)
        self.assertIn(__import__("operator").mul, targets)
        for b, s in ((3, 4), (5, 2)):
            x = torch.randn(b, s, 6)
            torch.testing.assert_close(gm(x)[0], torch.relu(x.view(b * s, 2, 3)))
        v = [n for n in gm.graph.nodes if n.name == "v"][0]
        self.assertEqual([str(e) for e in v.meta["symshape"].shape], ["b*s", "2", "3"])

    def test_complex_graph_without_conversion(self):
        # The rotary embedding graph of tests/passes (sizes as {"expr": ...} arguments, a
        # complex input and output), and the complex pipeline's real-view graph (a LowerResult):
        # both modules take and return the same complex tensors and agree.
        root = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__),
                                                                  "..", ".."))
        path = os.path.join(root, "tests/passes/graphs/complex_rewrite.json")
        graph = symshape.load_graph(path)
        before = symshape.fx.to_fx(path)
        after = symshape.fx.to_fx(symshape.lower(graph, pipeline="complex"))
        inputs = [n for n in after.graph.nodes if n.op == "placeholder"]
        self.assertEqual([(n.name, n.meta["symshape"].dtype) for n in inputs],
                         [("x", "float32"), ("freqs", "complex64")])
        torch.manual_seed(0)
        for batch, seq in ((2, 8), (3, 5)):
            x, freqs = torch.randn(batch, seq, 4, 16), torch.randn(seq, 8, dtype=torch.complex64)
            expected, actual = before(x, freqs), after(x, freqs)
            self.assertEqual([t.dtype for t in actual], [torch.float32, torch.float32,
                                                         torch.complex64])
            for e, a in zip(expected, actual):
                torch.testing.assert_close(a, e, rtol=3e-4, atol=1e-5)

    def test_constants_and_errors(self):
        graph = {
            "format": "symshape-graph", "version": 1,
            "nodes": [
                {"name": "x.0", "op": "placeholder", "dtype": "float32", "shape": [2]},
                {"name": "w", "op": "get_attr", "target": "layer.w", "dtype": "float32",
                 "shape": [2], "value": [1.5, -2.0]},
                {"name": "y", "op": "call_function", "target": "aten.mul.Tensor",
                 "args": [{"node": "x.0"}, {"node": "w"}]},
                {"name": "output", "op": "output", "args": [[{"node": "y"}]]}]}
        gm = symshape.fx.to_fx(graph)
        self.assertEqual(list(dict(gm.named_buffers())), ["layer.w"])
        torch.testing.assert_close(gm(torch.ones(2))[0], torch.tensor([1.5, -2.0]))
        self.assertIn("def forward(self, x_0)", gm.code)  # an input name Python can take
        # A constant without a value and without the conversion it came from.
        del graph["nodes"][1]["value"]
        with self.assertRaises(symshape.fx.ConversionError) as cm:
            symshape.fx.to_fx(graph)
        self.assertIn("node w: no value for the constant layer.w", str(cm.exception))
        # A target PyTorch does not have, named with its node.
        graph["nodes"][1]["value"] = [1.0, 1.0]
        graph["nodes"][2]["target"] = "aten.no_such_op.default"
        with self.assertRaises(symshape.fx.ConversionError) as cm:
            symshape.fx.to_fx(graph)
        self.assertIn("node y", str(cm.exception))
        self.assertIn("aten.no_such_op.default", str(cm.exception))

    def test_verify_torch_names_the_output_and_sizes(self):
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU()).eval()
        conv = symshape.fx.trace(model, torch.randn(3, 4), dynamic={"input": {0: "batch"}})
        low = conv.lower(pipeline="default")
        self.assertEqual(symshape.fx_out.verify_torch(conv, low), 3)
        # A lowered module that computes something else is caught, naming output and sizes.
        relu = [n for n in low.gm.graph.nodes if n.target == torch.ops.aten.relu.default][0]
        relu.target = torch.ops.aten.sigmoid.default
        low.gm.recompile()
        with self.assertRaises(symshape.fx.ConversionError) as cm:
            symshape.fx_out.verify_torch(conv, low)
        message = str(cm.exception)
        self.assertIn("output 0 (relu)", message)
        self.assertIn("at the hints", message)

    def test_command_line_lower(self):
        with tempfile.TemporaryDirectory() as d:
            base = ["torch.nn:Linear", "--kwargs", '{"in_features": 4, "out_features": 8}',
                    "--input", "3,4", "--dynamic", "input:0:batch:2:32"]
            py, pt = os.path.join(d, "linear.py"), os.path.join(d, "linear.pt")
            self.assertEqual(symshape.fx.main(base + ["--lower", "decompose", "--verify-torch",
                                                      "-o", py]), 0)
            with open(py) as f:
                code = f.read()
            self.assertIn("torch.ops.aten.mm.default", code)  # decompose made addmm an mm
            self.assertEqual(symshape.fx.main(base + ["--lower", "default", "-o", pt]), 0)
            gm = torch.load(pt)
            x = torch.randn(5, 4)
            self.assertEqual(list(gm(x).shape), [5, 8])  # a tensor, as the model returns
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                self.assertEqual(symshape.fx.main(base + ["--lower", "nope", "-o", py]), 2)
            self.assertIn("nope", stderr.getvalue())


if __name__ == "__main__":
    unittest.main()
