"""An ONNX model's dims come without example sizes: symshape guesses them (8) and must never
decide a requirement on the guess. torchvision's SqueezeNet 1.0, exported by torch.onnx with
symbolic batch, height and width, checks without `--dim`, and reports the height and width
ranges it infers: PyTorch runs the model at their least sizes, and the guards refuse one below.

Skips when onnx, torch or torchvision cannot be imported and CI is unset, or when the CLI
(SYMSHAPE_CLI) is missing.
"""
import json
import os
import subprocess
import tempfile
import unittest

from optional_packages import require

try:
    import onnx  # noqa: F401
    import torch
    import torchvision
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e

HERE = os.path.dirname(os.path.abspath(__file__))


def default_cli():
    if os.environ.get("SYMSHAPE_CLI"):
        return os.environ["SYMSHAPE_CLI"]
    root = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
    return os.path.join(root, "build", "bin", "symshape")


CLI = default_cli()


def setUpModule():
    require(IMPORT_ERROR, "onnx, torch or torchvision", cli=CLI)


def run_cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)


def torch_runs(model, h, w):
    try:
        with torch.no_grad():
            model(torch.zeros(1, 3, h, w))
        return True
    except RuntimeError:
        return False


class SqueezeNetWithoutSizes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = torchvision.models.squeezenet1_0(weights=None).eval()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "squeezenet1_0.onnx")
        torch.onnx.export(cls.model, torch.zeros(1, 3, 224, 224), cls.path, input_names=["x"],
                          output_names=["y"], opset_version=13,
                          dynamic_axes={"x": {0: "N", 2: "H", 3: "W"}, "y": {0: "N"}})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_checks_without_dims(self):
        proc = run_cli("check", self.path)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("float32[N, 1000]", proc.stdout)

    def test_inferred_ranges_start_where_pytorch_runs(self):
        proc = run_cli("guards", self.path, "--lang", "json")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        doc = json.loads(proc.stdout)
        ranges = {s["symbol"]: s["range"] for s in doc["symbols"]}
        for dim in ("H", "W"):
            lo = ranges[dim][0]
            self.assertIsNotNone(lo, ranges)
            self.assertGreater(lo, 8, f"{dim}'s least size is above the guess")
            # PyTorch runs the model at the least size symshape infers and above. (Not a bound
            # from below: ONNX's MaxPool needs the padded input to cover the kernel, where
            # PyTorch's ceil mode lets a last window hang over a smaller input.)
            for size in range(lo, lo + 6):
                h, w = (size, 224) if dim == "H" else (224, size)
                self.assertTrue(torch_runs(self.model, h, w), f"{dim} = {size}")
        # The guards accept the least sizes and reject one below.
        lo_h, lo_w = ranges["H"][0], ranges["W"][0]
        ok = run_cli("check-inputs", self.path, "--size", f"x=2,3,{lo_h},{lo_w}")
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        bad = run_cli("check-inputs", self.path, "--size", f"x=2,3,{lo_h - 1},{lo_w}")
        self.assertEqual(bad.returncode, 1, bad.stdout + bad.stderr)


if __name__ == "__main__":
    unittest.main()
