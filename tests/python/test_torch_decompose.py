"""decompose, checked by --verify-numerics, on every model of the node-by-node test.

Each model of test_torch_reference.MODELS (built, traced and converted as that test does, with
its parameters and input) goes through

    symshape lower graph.json --passes decompose --verify-numerics --inputs DIR --json

with DIR holding the model's own parameters and input (as `run --inputs` reads them), so the
reference interpreter runs the graph before and after the pass on the model's numbers, once, at
the traced sizes (the given tensors bind every dim). The pass must succeed, have changed the
graph, and have compared its outputs in at least one run.

One model per test method, each its own ctest process (python_torchdecompose_<model> in
cmake/python.cmake):

    PYTHONPATH=build/python SYMSHAPE_CLI=build/bin/symshape \\
        /usr/bin/python3 -m unittest -v test_torch_decompose.TorchDecomposeTest.test_resnet18

Each test prints one line to stderr: the nodes before and after, the decompositions and the
times. Skips as test_torch_reference does.
"""
import json
import resource
import subprocess
import sys
import tempfile
import time
import unittest

import test_torch_reference as ref
from test_torch_reference import CLI

# Models whose decompose --verify-numerics cannot pass yet, each with the precise cause;
# unittest.expectedFailure marks them (an unexpected success fails the run: take the model off).
EXPECTED_FAILURES = {}


def setUpModule():
    ref.setUpModule()


class TorchDecomposeTest(unittest.TestCase):
    def check_model(self, name):
        model, x, mode = ref.build(name)
        start = time.monotonic()
        conv, args = ref.trace(model, x, mode)
        traced = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"torchdecompose_{name}_") as d:
            graph_path, inputs_dir = ref.save_graph_and_inputs(conv, args, d)
            cmd = [CLI, "lower", graph_path, "--passes", "decompose", "--verify-numerics",
                   "--inputs", inputs_dir, "--json"]
            cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lowered = time.monotonic()
        lower_cpu = (cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime -
                     cpu_before.ru_stime)
        self.assertEqual(proc.returncode, 0, f"{name}: {' '.join(cmd[1:])} exited "
                         f"{proc.returncode}: {proc.stderr.strip()}")
        (report,) = json.loads(proc.stdout)["passes"]
        counters = report["counters"]
        print(f"\n{name}: decompose {report['nodes_before']} -> {report['nodes_after']} nodes "
              f"({', '.join(f'{k}: {v}' for k, v in counters.items())}), numerics checked in "
              f"{report['numeric_runs']} run(s); traced {mode} in {traced - start:.1f}s, lower "
              f"{lowered - traced:.1f}s ({lower_cpu:.1f}s CPU); this process "
              f"{time.process_time():.1f}s CPU", file=sys.stderr)
        self.assertTrue(report["changed"], f"{name}: decompose changed nothing")
        self.assertGreaterEqual(report["numeric_runs"], 1,
                                f"{name}: the graph before decompose ran at no size")


ref.add_model_tests(TorchDecomposeTest, "decompose keeps the model's numbers (--verify-numerics)",
                    EXPECTED_FAILURES)


if __name__ == "__main__":
    unittest.main()
