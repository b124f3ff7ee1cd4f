"""What a new user hits in the first hour (issue 32), from Python: contradictory facts, dims
that do not exist, inverted ranges, SymInt arithmetic, reading ONNX, and symshape.fx on real
models (dynamic height and width, parameters apart from inputs, the tracer's limits).

Run by ctest (python_first_hour) with PYTHONPATH=build/python:
/usr/bin/python3 -m unittest test_first_hour
"""
import os
import pathlib
import subprocess
import tempfile
import unittest

import symshape
from symshape import Truth

try:
    import torch
    import torchvision

    import symshape.fx
    from symshape.fx import Dim
    TORCH_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    TORCH_ERROR = e


def need_torch():
    """Skips without torch / torchvision, unless CI is set (then a missing torch fails)."""
    if TORCH_ERROR is None:
        return
    if os.environ.get("CI"):
        raise AssertionError(f"CI is set but torch / torchvision cannot be imported: {TORCH_ERROR}")
    raise unittest.SkipTest(f"torch / torchvision cannot be imported ({TORCH_ERROR})")

ROOT = pathlib.Path(os.environ.get("SYMSHAPE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


class ContradictoryFactsTest(unittest.TestCase):
    """Facts no value satisfies are refused (ContradictoryFacts names them) rather than making
    every answer vacuous, in every entry point that takes facts or ranges."""

    def assertContradictory(self, f, *parts):
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            f()
        self.assertIsInstance(cm.exception, symshape.Error)
        for part in parts:
            self.assertIn(part, str(cm.exception))

    def test_prove_bounds_simplify_refuse_contradictory_facts(self):
        x = symshape.Expr.symbol("x")
        self.assertContradictory(lambda: symshape.prove("x > 100", ranges={"x": (5, 2)}),
                                 "contradictory facts", "[5, 2]", "x")
        self.assertContradictory(lambda: symshape.prove("x == 3", assume=["x < 1"]),
                                 "no value of x satisfies assume 'x < 1'",
                                 "default range [1, inf]")
        self.assertContradictory(lambda: symshape.prove("x < 0", assume=["x > y", "y > x"]),
                                 "no values of x, y satisfy assume 'x > y', 'y > x'")
        self.assertContradictory(lambda: symshape.simplify(x, ranges={"x": (5, 2)}), "x")
        self.assertContradictory(lambda: symshape.bounds(x, ranges={"x": (0, 9)},
                                                         assume=["x > 4", "x < 2"]),
                                 "'x > 4', 'x < 2' with its range")
        # Only the default range makes `x + y <= 1` impossible: the message says so.
        self.assertContradictory(lambda: symshape.bounds(x, assume=["x + y <= 1"]),
                                 "with x, y in the default range [1, inf]")
        # The same facts over all integers are consistent.
        self.assertEqual(symshape.bounds(x, ranges={"x": (None, None)}, assume=["x < 1"]),
                         (None, 0))
        self.assertIs(symshape.prove("x < 5", ranges={"x": (2, 4)}), Truth.TRUE)

    def test_facts_object_refuses_and_keeps_its_state(self):
        facts = symshape.Facts()
        facts.set_range("n", (1, 64))
        facts.assume("n % 8 == 0")
        with self.assertRaises(symshape.ContradictoryFacts):
            facts.set_range("m", (10, 4))
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            facts.assume("n > 64")
        self.assertIn("'n % 8 == 0', 'n > 64' with its range", str(cm.exception))
        facts.assume("a < b")
        with self.assertRaises(symshape.ContradictoryFacts):
            facts.assume("b < a")
        # The refused facts were not taken: the object answers as before them.
        self.assertIs(symshape.prove("(3*n) % 4 == 0", facts), Truth.TRUE)
        self.assertEqual(symshape.bounds(symshape.parse_expr("n // 8"), facts), (1, 8))
        # Keyword facts on top of a Facts object neither change it nor escape the check.
        with self.assertRaises(symshape.ContradictoryFacts):
            symshape.prove("n > 0", facts, assume=["n > 100"])
        self.assertEqual(facts.range_of("n"), (1, 64))

    def test_shape_env_refuses_contradictory_facts(self):
        env = symshape.ShapeEnv()
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            env.create_symbol(6, "L['x'].size()[0]", name="h", min=10, max=4)
        self.assertIn("'h'", str(cm.exception))
        self.assertIn("min=10, max=4", str(cm.exception))
        u = env.create_unbacked_symint()
        with self.assertRaises(symshape.ContradictoryFacts):
            env.constrain_range(u, 5, 2)
        with self.assertRaises(symshape.ContradictoryFacts):
            env.constrain_as_size(u, 9, 3)
        s = env.create_symbol(6, "L['y'].size()[0]")
        with self.assertRaises(symshape.ContradictoryFacts):
            with env.assume(s < 1):
                pass


class CheckDimsTest(unittest.TestCase):
    """check(graph, dims=...) refuses what the CLI's --dim refuses, with the same words."""

    def test_unknown_dim_and_inverted_range(self):
        graph = symshape.load_graph(str(ROOT / "examples/mlp.json"))
        with self.assertRaises(symshape.Error) as cm:
            symshape.check(graph, dims={"btch": (2, 8)})
        self.assertIn("dims['btch']: the graph has no dim 'btch' (did you mean 'batch'?)",
                      str(cm.exception))
        with self.assertRaises(symshape.Error) as cm:
            symshape.guards(graph, dims={"batch": (8, 2)})
        self.assertNotIn("fc_weight", str(cm.exception))
        self.assertIn("dims['batch']: bad range (8, 2): empty (min is greater than max)",
                      str(cm.exception))
        with self.assertRaises(symshape.Error):
            symshape.lower(graph, ["dce"], dims={"btch": (2, 8)})
        self.assertTrue(symshape.check(graph, dims={"batch": (2, 8)}).ok)


class SmallThingsTest(unittest.TestCase):
    def test_symint_power_true_division_and_floats(self):
        env = symshape.ShapeEnv()
        a = env.create_symbol(8, "L['x'].size()[0]")
        square = a ** 2
        self.assertIsInstance(square, symshape.SymInt)
        self.assertEqual(square.hint, 64)
        self.assertEqual(len(env.guards), 0)
        for value, expected in ((a / 2, 4.0), (a * 0.5, 4.0), (0.25 * a, 2.0), (3 / a, 0.375),
                                (a ** -1, 0.125), (a + 0.5, 8.5), ((a / 3) * 3.0, 8.0),
                                (a / a, 1.0)):
            self.assertIsInstance(value, symshape.SymFloat)
            self.assertAlmostEqual(value.hint, expected)
        self.assertEqual(len(env.guards), 0)  # hints do not guard
        self.assertAlmostEqual(float(a / 3), 8 / 3)  # float() specializes, as PyTorch's does
        self.assertEqual([str(g.cond) for g in env.guards], ["s0 == 8"])
        self.assertEqual(str(a * 2 + 1), "2*s0 + 1")  # int arithmetic stays exact

    def test_expr_and_symint_mix(self):
        env = symshape.ShapeEnv()
        a = env.create_symbol(8, "L['x'].size()[0]")
        y = symshape.Expr.symbol("y")
        self.assertEqual(str(y + a), "s0 + y")
        self.assertEqual(str(y * a - a), str(symshape.simplify(y * a.expr - a.expr)))

    def test_parse_cond_reads_sympy_relations(self):
        self.assertTrue(symshape.parse_cond("Eq(s0, 2*s1)").identical(
            symshape.parse_cond("s0 == 2*s1")))
        self.assertTrue(symshape.parse_cond("Ne(Mod(a, 4), 0)").identical(
            symshape.parse_cond("a % 4 != 0")) or str(symshape.parse_cond("Ne(a, b)")) == "a != b")
        self.assertEqual(str(symshape.parse_cond("Ne(a, b)")), "a != b")
        c = symshape.parse_cond("Or(Eq(a, 2), Not(Ne(b, 3)))")
        for a_ in range(1, 5):
            for b_ in range(1, 5):
                self.assertEqual(c.eval(a=a_, b=b_), a_ == 2 or b_ == 3)
        self.assertIs(symshape.prove("Eq(x, x)"), Truth.TRUE)
        with self.assertRaises(symshape.Error):
            symshape.parse_cond("Eq(a, b, c)")

    def test_read_onnx_takes_a_path_or_bytes(self):
        path = ROOT / "examples/onnx/small_cnn.onnx"
        from_path = symshape.read_onnx(path)
        self.assertEqual(symshape.read_onnx(str(path)).to_json(), from_path.to_json())
        self.assertEqual(symshape.read_onnx(path.read_bytes()).to_json(), from_path.to_json())
        with self.assertRaises(symshape.Error) as cm:
            symshape.read_onnx(ROOT / "no_such.onnx")
        self.assertIn("no_such.onnx", str(cm.exception))
        with self.assertRaises(TypeError):
            symshape.read_onnx(42)

    def test_fx_command_line_check_says_so(self):
        need_torch()
        import sys
        env = dict(os.environ, PYTHONPATH=str(pathlib.Path(symshape.__file__).parents[1]))
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run(
                [sys.executable, "-m", "symshape.fx", "torch.nn:Linear", "--kwargs",
                 '{"in_features": 4, "out_features": 3}', "--input", "5,4", "--dynamic",
                 "input:0:batch", "--check", "-o", os.path.join(tmp, "g.json")],
                capture_output=True, text=True, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("checked", run.stderr)
        self.assertIn("batch in [2, inf]", run.stderr)


class DynamicHeightWidthTest(unittest.TestCase):
    """Square images with dynamic height and width: distinct symbols, inferred ranges."""

    @classmethod
    def setUpClass(cls):
        need_torch()
        torch.manual_seed(0)
        cls.squeezenet = torchvision.models.squeezenet1_0(num_classes=10).eval()
        cls.conv = symshape.fx.trace(cls.squeezenet, torch.randn(2, 3, 64, 64),
                                     dynamic={"x": {2: "h", 3: "w"}})

    def runs_in_pytorch(self, h, w):
        try:
            with torch.no_grad():
                self.squeezenet(torch.randn(2, 3, h, w))
            return True
        except RuntimeError:
            return False

    def test_squeezenet_plain_names_infer_the_ranges(self):
        conv = self.conv
        self.assertEqual(sorted(conv.hints), ["h", "w"])  # two symbols, though both traced 64
        ranges = conv.ranges()
        self.assertEqual(ranges["h"], (21, None))
        self.assertEqual(ranges["w"], (21, None))
        checker = conv.guards().checker()  # no ConstraintViolation: the ranges are inferred
        # The inferred bound is PyTorch's: eager SqueezeNet runs at 21 and fails at 20, and the
        # guards say the same, for each of h and w, with the other one different.
        for h, w in ((21, 40), (40, 21), (20, 40), (40, 20), (33, 57)):
            x = torch.randn(2, 3, h, w)
            ok = checker.check_tensors(x) is None
            self.assertEqual(ok, self.runs_in_pytorch(h, w), (h, w))

    def test_a_declared_dim_is_strict(self):
        conv = symshape.fx.trace(self.squeezenet, torch.randn(1, 3, 64, 48),
                                 dynamic={"x": {2: Dim("h"), 3: Dim.AUTO}})
        self.assertEqual(conv.dim_modes, {"h": "strict", "x_3": "auto"})
        with self.assertRaises(symshape.ConstraintViolation) as cm:
            conv.guards()
        self.assertIn("h = Dim('h', min=21)", str(cm.exception))
        self.assertNotIn("x_3 = Dim", str(cm.exception))

    def test_resnet_square_dynamic_height_and_width(self):
        model = torchvision.models.resnet18(num_classes=10).eval()
        conv = symshape.fx.trace(model, torch.randn(1, 3, 32, 32), dynamic={"x": {2: "h", 3: "w"}})
        ranges = conv.ranges()
        self.assertEqual(set(ranges), {"h", "w"})
        self.assertIsNone(ranges["h"].hi)
        self.assertIn("L['x'].size()[2]", conv.guards().python())

    def test_two_flattened_branches_read_a_stride_by_dim(self):
        # Flattening a slice makes PyTorch 1.13 record sym_stride(x, dim) by its packet: the
        # overload sym_stride.int. The concatenated size prints as the user would write it and
        # has the value eager PyTorch gives.
        class TwoBranches(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Conv2d(3, 64, 3, stride=8, padding=1)
                self.b = torch.nn.Conv2d(3, 1, 3, stride=4, padding=1)

            def forward(self, x):
                return torch.cat([torch.flatten(self.a(x), 1),
                                  torch.flatten(self.b(x)[:, :, :, :1], 1)], 1)

        model = TwoBranches().eval()
        conv = symshape.fx.trace(model, torch.randn(2, 3, 64, 48), dynamic={"x": {2: "h", 3: "w"}})
        output = str(conv.check()).splitlines()[-1]
        size = output[output.index("float32[2, ") + len("float32[2, "):output.index("]")]
        self.assertEqual(size, "64*((h + 7)//8)*((w + 7)//8) + (h + 3)//4")
        for h, w in ((64, 48), (9, 17), (31, 8), (100, 57)):
            with torch.no_grad():
                eager = model(torch.randn(2, 3, h, w)).shape[1]
            self.assertEqual(eval(size, {}, {"h": h, "w": w}), eager, (h, w))

    def test_specialized_dims(self):
        class AddRow(torch.nn.Module):
            def forward(self, x):
                return x + torch.ones(16)  # w must be 16

        # A plain name (Dim.DYNAMIC) specialized to a constant is an error naming it; Dim.AUTO
        # lets it be specialized and keeps the other dim dynamic.
        with self.assertRaises(symshape.Error) as cm:
            symshape.fx.trace(AddRow(), torch.randn(2, 8, 16), dynamic={"x": {1: "h", 2: "w"}})
        self.assertIn("w", str(cm.exception))
        conv = symshape.fx.trace(AddRow(), torch.randn(2, 8, 16),
                                 dynamic={"x": {1: "h", 2: Dim.AUTO}})
        self.assertEqual(list(conv.ranges()), ["h"])


class ParametersAreNotInputsTest(unittest.TestCase):
    """A traced model's parameters and buffers are the graph's get_attr nodes: the guards, the
    checker and check-inputs are over the real inputs only."""

    def test_resnet_guards_are_over_x_only(self):
        need_torch()
        torch.manual_seed(0)
        model = torchvision.models.resnet18(num_classes=10).eval()
        conv = symshape.fx.trace(model, torch.randn(4, 3, 32, 32),
                                 dynamic={"x": {0: Dim("batch", max=64)}})
        state = len(list(model.parameters())) + len(list(model.buffers()))
        ops = [n["op"] for n in conv.graph_dict["nodes"]]
        self.assertEqual(ops.count("get_attr"), state)
        self.assertEqual(ops.count("placeholder"), 1)
        gs = conv.guards()
        self.assertEqual({s.input for s in gs.sources}, {"x"})
        self.assertLessEqual(len(gs.python().splitlines()), 10)
        checker = gs.checker()
        self.assertIsNone(checker.check_tensors(torch.randn(7, 3, 32, 32)))
        failure = checker.check_tensors(x=torch.randn(7, 3, 31, 32))
        self.assertIn("L['x'].size()[2] == 32", failure.text)
        self.assertIsNotNone(checker.check_tensors(torch.randn(65, 3, 32, 32)))
        # A transposed input: its strides are not the traced ones.
        self.assertIsNotNone(checker.check_tensors(torch.randn(32, 32, 3, 7).permute(3, 2, 1, 0)))
        with self.assertRaises(symshape.Error):
            checker.check_tensors(torch.randn(7, 3, 32, 32), torch.randn(2, 2))
        # check-inputs asks for x alone.
        cli = os.environ.get("SYMSHAPE_CLI", str(ROOT / "build/bin/symshape"))
        if os.path.exists(cli):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "resnet18.json")
                conv.save(path)
                run = subprocess.run([cli, "check-inputs", path, "--size", "x=7,3,32,32"],
                                     capture_output=True, text=True)
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertIn("ok", run.stdout)


class TracerWorkaroundsTest(unittest.TestCase):
    """What PyTorch 1.13's symbolic make_fx refuses and symshape.fx traces anyway: each output's
    symbolic shape is PyTorch's at other sizes; what it cannot trace says it is the tracer."""

    @classmethod
    def setUpClass(cls):
        need_torch()

    def check_against_eager(self, f, shape, dims, sizes):
        """Traces f on randn(shape) with dims ({dim: name}) dynamic; at each {name: value} of
        sizes, the output shape symshape gives is the shape eager PyTorch computes."""
        class Wrap(torch.nn.Module):
            def forward(self, x):
                return f(x)

        conv = symshape.fx.trace(Wrap(), torch.randn(*shape), dynamic={"x": dims})
        p = conv.check()
        out = p["output"].items[0].shape
        for values in sizes:
            real = list(shape)
            for d, name in dims.items():
                real[d] = values[name]
            with torch.no_grad():
                expected = list(f(torch.randn(*real)).shape)
            self.assertEqual([e.eval(**values) if not e.is_constant() else int(e) for e in out],
                             expected, values)

    def test_ops_the_tracer_refused(self):
        import torch.nn.functional as F
        cases = {
            "interpolate nearest": lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
            "interpolate bilinear to a size": lambda x: F.interpolate(
                x, size=(8, 5), mode="bilinear", align_corners=False),
            "pad by a symbolic amount": lambda x: F.pad(x, (0, (4 - x.shape[-1] % 4) % 4, 1, 0)),
            "narrow by a symbolic length": lambda x: x.narrow(3, 1, x.shape[3] - 2),
            "torch.narrow": lambda x: torch.narrow(x, 3, 0, x.shape[3] // 2),
            "chunk after cat": lambda x: torch.cat([x, x], 3).chunk(3, 3)[1],
            "slice to a symbolic end": lambda x: x[:, :, :, : x.shape[3] - 1],
            "adaptive average pool": lambda x: F.adaptive_avg_pool2d(x, 1),
        }
        for name, f in cases.items():
            with self.subTest(name):
                self.check_against_eager(f, (2, 3, 6, 7), {3: "w"},
                                         [{"w": 2}, {"w": 5}, {"w": 9}, {"w": 12}])

    def test_setitem_with_slices(self):
        def f(x):
            mask = x.new_zeros(x.shape)
            mask[:, :, :, : x.shape[3] - 2] = 1.0
            return x * mask

        self.check_against_eager(f, (2, 3, 6, 7), {3: "w"}, [{"w": 5}, {"w": 9}])

    def test_a_tracer_failure_says_it_is_the_tracer(self):
        class NonZero(torch.nn.Module):
            def forward(self, x):
                return torch.nonzero(x)

        with self.assertRaises(symshape.fx.ConversionError) as cm:
            symshape.fx.trace(NonZero(), torch.randn(4, 5), dynamic={"x": {0: "batch"}})
        message = str(cm.exception)
        self.assertIn("symbolic tracer", message)
        self.assertIn("PyTorch", message)
        self.assertIn("from_fx", message)
        self.assertIn("nonzero", message)

    def test_swin_t(self):
        model = torchvision.models.swin_t().eval()
        conv = symshape.fx.trace(model, torch.randn(2, 3, 224, 224), dynamic={"x": {0: "batch"}})
        p = conv.check()
        self.assertEqual([str(e) for e in p[conv.graph.nodes[-2].name].shape], ["batch", "1000"])


if __name__ == "__main__":
    unittest.main()
