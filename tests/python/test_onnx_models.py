"""Real models exported by torch.onnx with dynamic axes (onnx_models.py: ResNet-18, MobileNetV2,
ShuffleNetV2, EfficientNet-B0, a small ViT, a transformer encoder, an LSTM text model, two
segmentation models that upsample) through `symshape check --json`: every graph output's
symbolic shape, evaluated at several sizes of each dynamic dim, is the shape PyTorch computes at
those sizes, and the guards accept those sizes (`symshape check-inputs`). Also `symshape infer`
on one model: the written model passes onnx's checker and its outputs' dim_params are the
symbolic expressions.

A model in EXPECTED_FAILURES whose check fails is skipped with the listed reason and symshape's
error (a non-strict expected failure); one that passes prints so, to be taken off the list. A
crash always fails.

Skips when onnx, torch or torchvision cannot be imported and the environment variable CI is
unset (with CI set that is a failure), or when the CLI (SYMSHAPE_CLI) is missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from optional_packages import require

try:
    import onnx
    import torch  # noqa: F401
    import torchvision  # noqa: F401

    import onnx_models
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e

HERE = os.path.dirname(os.path.abspath(__file__))

# Models that may fail until the rules they need exist: the reason (the ops, as of writing).
# Take a model off once it passes (the test prints which).
EXPECTED_FAILURES = {}  # every model checks; a model added here names what it lacks


def default_cli():
    if os.environ.get("SYMSHAPE_CLI"):
        return os.environ["SYMSHAPE_CLI"]
    root = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
    return os.path.join(root, "build", "bin", "symshape")


CLI = default_cli()


def setUpModule():
    require(IMPORT_ERROR, "onnx, torch or torchvision", cli=CLI)


def run_cli(*args, stdin=None):
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def missing_ops(error):
    """The ops an error says have no rule."""
    return sorted(set(re.findall(r"unknown op '([^']+)'", error)))


def evaluate(lines):
    """Evaluates `expr\\tNAME=INT ...` lines with one `symshape expr eval --batch`; returns the
    values (ints) or raises naming the line that failed."""
    proc = run_cli("expr", "eval", "--batch", "-", stdin="".join(l + "\n" for l in lines))
    answers = proc.stdout.splitlines()
    if len(answers) != len(lines):
        raise AssertionError(f"expr eval answered {len(answers)} of {len(lines)} lines: "
                             f"{proc.stderr}")
    values = []
    for line, answer in zip(lines, answers):
        if answer.startswith("error:"):
            raise AssertionError(f"cannot evaluate {line!r}: {answer}")
        values.append(int(answer))
    return values


class OnnxModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="symshape-onnx-models-")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_model(self, name):
        spec = onnx_models.BY_NAME[name]
        model = onnx_models.build(spec)
        path = onnx_models.export(spec, self.tmp.name, model)
        dims = [a for d in spec.dims for a in ("--dim", d)]
        proc = run_cli("check", "--json", path, *dims)
        self.assertIn(proc.returncode, (0, 1, 2), f"{name}: symshape crashed: {proc.stderr}")
        error = None
        doc = None
        if proc.returncode == 2 and not proc.stdout.strip():
            error = proc.stderr.strip()
        else:
            doc = json.loads(proc.stdout)
            if doc["status"] != "ok":
                error = doc["error"]
        if error is not None:
            if name in EXPECTED_FAILURES:
                ops = missing_ops(error)
                self.skipTest(f"expected failure ({EXPECTED_FAILURES[name]}): "
                              + (f"no rule for {', '.join(ops)}" if ops else error))
            self.fail(f"{name}: symshape check fails: {error}")

        graph = onnx.load(path, load_external_data=False).graph
        outputs = [o.name for o in graph.output]
        values = {n["name"]: n["value"] for n in doc["nodes"]}
        shapes = []
        for o in outputs:
            v = values.get(o)
            self.assertTrue(isinstance(v, dict) and "shape" in v,
                            f"{name}: output {o} is not a tensor: {v}")
            shapes.append(v["shape"])
        # Every dynamic dim stays symbolic somewhere (the first output keeps the batch).
        self.assertFalse(shapes[0][0].lstrip("-").isdigit(),
                         f"{name}: the batch of {outputs[0]} is a constant: {shapes[0]}")
        lines, where = [], []
        for sizes in spec.sizes:
            bindings = " ".join(f"{k}={v}" for k, v in sizes.items())
            for o, shape in zip(outputs, shapes):
                for d, e in enumerate(shape):
                    lines.append(f"{e}\t{bindings}")
                    where.append((bindings, o, d))
        got = evaluate(lines)
        k = 0
        for sizes in spec.sizes:
            expected = onnx_models.torch_shapes(spec, model, sizes)
            self.assertEqual(len(expected), len(outputs), f"{name}: outputs")
            for o, shape, want in zip(outputs, shapes, expected):
                have = got[k:k + len(shape)]
                k += len(shape)
                self.assertEqual(have, want, f"{name}: output {o} = {shape} at {sizes}: "
                                 f"{have}, PyTorch {want}")
        # The guards hold at every size compared.
        for sizes in spec.sizes:
            shape = ",".join(str(s) for s in onnx_models.input_shape(spec, sizes))
            r = run_cli("check-inputs", path, "--size", f"{spec.input_name}={shape}", *dims)
            self.assertEqual(r.returncode, 0, f"{name}: the guards reject {sizes}: "
                             f"{r.stdout}{r.stderr}")
        if name in EXPECTED_FAILURES:
            print(f"\n{name} is listed in EXPECTED_FAILURES but passes: take it off",
                  file=sys.stderr)
        return path, outputs, shapes


def add_model_test(name):
    def test(self):
        self.check_model(name)
    test.__name__ = f"test_{name}"
    test.__doc__ = f"{name}: output shapes equal PyTorch's at every size"
    setattr(OnnxModelTest, test.__name__, test)


if IMPORT_ERROR is None:
    for _spec in onnx_models.SPECS:
        add_model_test(_spec.name)


class OnnxInferTest(unittest.TestCase):
    """`symshape infer` on the small UNet: the written model is valid
    ONNX and its outputs carry symshape's shapes."""

    def test_infer_writes_shapes(self):
        spec = onnx_models.BY_NAME["unet"]
        with tempfile.TemporaryDirectory() as tmp:
            path = onnx_models.export(spec, tmp)
            out = os.path.join(tmp, "inferred.onnx")
            proc = run_cli("infer", path, "-o", out,
                           *[a for d in spec.dims for a in ("--dim", d)])
            self.assertIn(proc.returncode, (0, 1, 2), f"symshape crashed: {proc.stderr}")
            if proc.returncode != 0:
                if "unknown op" in proc.stderr:
                    self.skipTest(f"expected failure until the rules land: {proc.stderr.strip()}")
                self.fail(f"infer failed: {proc.stderr}")
            model = onnx.load(out)
            onnx.checker.check_model(model)
            y = model.graph.output[0].type.tensor_type.shape.dim
            dims = [d.dim_param or d.dim_value for d in y]
            # Two 2x2 poolings and two 2x upsamplings: an odd side loses its last rows, as in
            # PyTorch.
            self.assertEqual(dims, ["batch", 3, "4*(height//4)", "4*(width//4)"])
            # Every intermediate value has a type, and the conv feature maps' sides are
            # expressions over height and width.
            infos = {v.name: v for v in model.graph.value_info}
            self.assertGreater(len(infos), 10)
            params = {d.dim_param for v in infos.values()
                      for d in v.type.tensor_type.shape.dim if d.dim_param}
            self.assertTrue(any("height" in p and p != "height" for p in params), params)


if __name__ == "__main__":
    unittest.main()
