"""symshape.view and Conversion.view: the page `symshape view` writes, from Python; and the module
scope symshape.fx records from an FX node's nn_module_stack, which the page groups nodes by."""
import json
import os
import re
import subprocess
import tempfile
import unittest

import symshape

SOURCE = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def page_data(path):
    with open(path, encoding="utf-8") as f:
        html = f.read()
    m = re.search(r'<script type="application/json" id="symshape-data">(.*?)</script>', html, re.S)
    return html, json.loads(m.group(1))


class ViewTest(unittest.TestCase):
    def test_page_of_a_graph_matches_the_cli(self):
        graph_path = os.path.join(SOURCE, "examples", "mlp.json")
        with open(graph_path, encoding="utf-8") as f:
            graph = symshape.read_graph(f.read())
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "mlp.html")
            self.assertEqual(symshape.view(graph, page, title="mlp.json"), page)
            html, data = page_data(page)
            self.assertNotIn("http://", html)
            self.assertNotIn("https://", html)
            names = [n["name"] for n in data["stages"][0]["nodes"]]
            self.assertEqual(names, [n.name for n in graph.nodes])
            cli = os.environ.get("SYMSHAPE_CLI")
            if cli:
                out = os.path.join(d, "mlp.json")
                subprocess.run([cli, "view", graph_path, "-o", out, "--json"], check=True)
                with open(out, encoding="utf-8") as f:
                    self.assertEqual(json.load(f), data)

    def test_dims_and_shape_errors(self):
        graph = os.path.join(SOURCE, "examples", "gpt_small.json")
        with open(graph, encoding="utf-8") as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "gpt.html")
            symshape.view(text, page)
            self.assertEqual(page_data(page)[1]["stages"][0]["guards"], [])
            # A seq beyond wpe's 512 rows: the slice guards seq, at node emb.
            symshape.view(text, page, dims={"seq": (1, 1024)})
            guards = page_data(page)[1]["stages"][0]["guards"]
            self.assertEqual([g["node"] for g in guards], ["emb"])
            # A shape error is on the page, at its node, not raised.
            bad = json.loads(text)
            for n in bad["nodes"]:
                if n["name"] == "h0_ln1_w":
                    n["shape"] = [65]
            symshape.view(bad, page)
            stage = page_data(page)[1]["stages"][0]
            self.assertIn("h0_ln1", stage["error"])
            self.assertEqual([n["name"] for n in stage["nodes"] if "error" in n], ["h0_ln1"])


try:
    import torch
    import symshape.fx
    TORCH_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    TORCH_ERROR = e


@unittest.skipIf(TORCH_ERROR is not None and not os.environ.get("CI"), f"no torch: {TORCH_ERROR}")
class FxScopeTest(unittest.TestCase):
    def test_module_path_from_nn_module_stack_groups_the_page(self):
        from torch.fx.experimental.proxy_tensor import make_fx

        def f(x):
            return torch.relu(x * 2) + 1

        gm = make_fx(f, tracing_mode="symbolic")(torch.randn(3, 4))
        calls = [n for n in gm.graph.nodes if n.op == "call_function"]
        # What torch.export / dynamo record: the module path of each node (PyTorch 1.13's make_fx
        # records none, so the test sets it as they do: {key: (path, type)}).
        calls[0].meta["nn_module_stack"] = {"L__self___layer1": ("layer1", torch.nn.Module),
                                            "L__self___layer1_0": ("layer1.0", torch.nn.Module)}
        calls[1].meta["nn_module_stack"] = {"layer1": torch.nn.Module}  # older form: path -> type
        conv = symshape.fx.from_fx(gm, dynamic={0: {0: "batch"}})
        scopes = {n["name"]: n.get("scope") for n in conv.graph_dict["nodes"]}
        self.assertEqual(scopes[conv.node_names[calls[0]]], "layer1.0")
        self.assertEqual(scopes[conv.node_names[calls[1]]], "layer1")
        self.assertIsNone(scopes[conv.node_names[calls[2]]])
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "f.html")
            conv.view(page)
            stage = page_data(page)[1]["stages"][0]
            self.assertEqual([g["id"] for g in stage["groups"]], ["layer1", "layer1.0"])
            self.assertEqual(stage["groups"][0]["count"], 2)
            batch_nodes = [n["name"] for n in stage["nodes"] if "batch" in n["syms"]]
            self.assertIn(conv.node_names[calls[0]], batch_nodes)


if __name__ == "__main__":
    unittest.main()
