"""Random chains of views against PyTorch: `symshape run` must give PyTorch's values.

Each chain starts from an integer tensor (arange, so that every element is distinct) laid out
at random: contiguous, copied into an empty_strided with permuted strides, a mul of a transposed or permuted tensor
(a non-view result PyTorch keeps in its input's order), a channels_last clone, or a slice with a
step. It then applies random views: permute, transpose, slice with steps, expand, unsqueeze,
select, `_reshape_alias` (as make_fx emits for every reshape that can view), view and reshape,
as_strided and unfold, and now and then an in-place add through the latest view. Every chain of
a seed goes into one graph, run once by `symshape run --save`; every node's value must equal
PyTorch's exactly, after the whole chain ran (so that in-place writes show in their bases).

Needs torch and the CLI (SYMSHAPE_CLI, as ctest sets it); skips without them unless the
environment variable CI is set.
"""

import json
import os
import pathlib
import random
import subprocess
import tempfile
import unittest

try:
    import numpy as np
    import torch
except ImportError:  # pragma: no cover - the skip below says why
    torch = None

CHAINS = 300
SEED = 29


def _storage_size(t):
    return t.storage().size()


class ChainBuilder:
    """Builds one graph of many chains and, alongside, runs each op in PyTorch."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inputs = {}  # placeholder name -> numpy array given with --inputs
        self.torch_values = {}  # node name -> the PyTorch tensor (compared after every chain)
        self.about = {}  # node name -> the chain so far, for messages
        self.count = 0

    def name(self, stem):
        self.count += 1
        return f"{stem}{self.count}"

    def call(self, stem, target, args, value, about, kwargs=None):
        n = self.name(stem)
        node = {"name": n, "op": "call_function", "target": target, "args": args}
        if kwargs:
            node["kwargs"] = kwargs
        self.nodes.append(node)
        self.torch_values[n] = value
        self.about[n] = about
        return n

    # ---- starting layouts ----

    def start(self, c):
        rng = self.rng
        rank = rng.randint(1, 4)
        sizes = [rng.randint(1, 4) for _ in range(rank)]
        dtype = rng.choice([torch.int64, torch.int32])
        dname = str(dtype).removeprefix("torch.")
        numel = 1
        for s in sizes:
            numel *= s
        base = torch.arange(numel, dtype=dtype).reshape(sizes)
        x = f"x{c}"
        node = {"name": x, "op": "placeholder", "dtype": dname, "shape": sizes}
        kind = rng.choice(["contiguous", "declared", "mul_of_permuted", "channels_last", "sliced"])
        if kind == "channels_last" and rank != 4:
            kind = "mul_of_permuted"
        self.nodes.append(node)
        self.inputs[x] = base.numpy().copy()
        self.torch_values[x] = base
        about = f"{x}{tuple(sizes)}"
        if kind == "declared" and rank >= 2:
            # torch.empty_strided with permuted strides, then copy_: a layout no op computes.
            perm = list(range(rank))
            rng.shuffle(perm)
            v = torch.empty_like(base.permute(perm).contiguous()).permute(
                [perm.index(d) for d in range(rank)])
            e = self.call("e", "aten.empty_strided.default", [sizes, list(v.stride())], v,
                          about + f" empty_strided {tuple(v.stride())}",
                          kwargs={"dtype": {"dtype": dname}})
            v.copy_(base)
            c = self.call("c", "aten.copy_.default", [{"node": e}, {"node": x}], v,
                          self.about[e] + ".copy_(x)")
            return c, v, self.about[c]
        if kind == "mul_of_permuted" and rank >= 2:
            perm = list(range(rank))
            rng.shuffle(perm)
            p = self.call("p", "aten.permute.default", [{"node": x}, perm], base.permute(perm),
                          about + f".permute({perm})")
            mv = base.permute(perm) * 3
            m = self.call("m", "aten.mul.Tensor", [{"node": p}, 3], mv, about + " * 3")
            return m, mv, self.about[m]
        if kind == "channels_last":
            v = base.clone(memory_format=torch.channels_last)
            cl = self.call("cl", "aten.clone.default", [{"node": x}], v,
                           about + ".clone(channels_last)",
                           kwargs={"memory_format": {"memory_format": "channels_last"}})
            return cl, v, self.about[cl]
        if kind == "sliced" and sizes[0] > 1:
            v = base[::2]
            s = self.call("s", "aten.slice.Tensor", [{"node": x}, 0, 0, sizes[0], 2], v,
                          about + "[::2]")
            return s, v, self.about[s]
        return x, base, about

    # ---- one random view ----

    def step(self, node, t, about):
        """A random view of t (node), or None when the drawn op does not apply."""
        rng = self.rng
        rank = t.dim()
        op = rng.choice(["permute", "transpose", "slice", "expand", "unsqueeze", "select",
                         "reshape_alias", "view", "reshape", "as_strided", "unfold"])
        if op == "permute" and rank >= 2:
            perm = list(range(rank))
            rng.shuffle(perm)
            return ("aten.permute.default", [perm], t.permute(perm), f".permute({perm})")
        if op == "transpose" and rank >= 2:
            a, b = rng.sample(range(rank), 2)
            return ("aten.transpose.int", [a, b], t.transpose(a, b), f".transpose({a}, {b})")
        if op == "slice" and rank >= 1:
            d = rng.randrange(rank)
            size = t.shape[d]
            start = rng.randint(0, max(size - 1, 0))
            end = rng.randint(start, size)
            step = rng.randint(1, 3)
            v = torch.ops.aten.slice.Tensor(t, d, start, end, step)
            return ("aten.slice.Tensor", [d, start, end, step], v,
                    f".slice({d}, {start}, {end}, {step})")
        if op == "expand" and rank >= 1 and rank < 5:
            target = [s if s != 1 else rng.randint(1, 3) for s in t.shape]
            if rng.random() < 0.5:
                target = [rng.randint(1, 3)] + target
            return ("aten.expand.default", [target], t.expand(target), f".expand({target})")
        if op == "unsqueeze" and rank < 5:
            d = rng.randint(0, rank)
            return ("aten.unsqueeze.default", [d], t.unsqueeze(d), f".unsqueeze({d})")
        if op == "select" and rank >= 1:
            d = rng.randrange(rank)
            if t.shape[d] == 0:
                return None
            i = rng.randrange(t.shape[d])
            return ("aten.select.int", [d, i], t.select(d, i), f".select({d}, {i})")
        if op in ("reshape_alias", "view", "reshape"):
            shape = self.random_shape(t.numel())
            try:
                v = t.view(shape)
            except RuntimeError:
                if op != "reshape":
                    return None
                return ("aten.reshape.default", [shape], t.reshape(shape), f".reshape({shape})")
            if op == "reshape_alias":
                return ("aten._reshape_alias.default", [shape, list(v.stride())], v,
                        f"._reshape_alias({shape}, {list(v.stride())})")
            target = "aten.view.default" if op == "view" else "aten.reshape.default"
            return (target, [shape], v, f".{op}({shape})")
        if op == "as_strided":
            storage = _storage_size(t)
            if storage == 0:
                return None
            r = rng.randint(1, 3)
            sizes = [rng.randint(1, 3) for _ in range(r)]
            strides = [rng.randint(0, 4) for _ in range(r)]
            reach = sum((s - 1) * st for s, st in zip(sizes, strides))
            if reach >= storage:
                return None
            offset = rng.randint(0, storage - 1 - reach)
            v = t.as_strided(sizes, strides, offset)
            return ("aten.as_strided.default", [sizes, strides, offset], v,
                    f".as_strided({sizes}, {strides}, {offset})")
        if op == "unfold" and rank >= 1:
            d = rng.randrange(rank)
            size = rng.randint(0, t.shape[d])
            step = rng.randint(1, 3)
            return ("aten.unfold.default", [d, size, step], t.unfold(d, size, step),
                    f".unfold({d}, {size}, {step})")
        return None

    def random_shape(self, numel):
        rng = self.rng
        shape = []
        rest = numel
        for _ in range(rng.randint(0, 3)):
            divisors = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1]
            k = rng.choice(divisors)
            shape.append(k)
            rest = rest // k if k else 0
        if rng.random() < 0.3 and numel > 0:
            shape.append(-1)
        elif rest != 1 or not shape:
            shape.append(rest)
        return shape

    def chain(self, c):
        node, t, about = self.start(c)
        for _ in range(self.rng.randint(1, 5)):
            drawn = self.step(node, t, about)
            if drawn is None:
                continue
            target, args, v, text = drawn
            about = about + text
            node = self.call("v", target, [{"node": node}] + args, v, about)
            t = v
            # Now and then an in-place write through the view, when no two of its elements
            # share memory (PyTorch refuses that).
            if self.rng.random() < 0.15 and self.non_overlapping(t) and t.numel() > 0:
                t.add_(100)
                node = self.call("w", "aten.add_.Tensor", [{"node": node}, 100], t,
                                 about + ".add_(100)")

    @staticmethod
    def non_overlapping(t):
        dims = sorted((st, s) for s, st in zip(t.shape, t.stride()) if s > 1)
        reach = 0
        for st, s in dims:
            if st <= reach:
                return False
            reach += (s - 1) * st
        return True

    def graph(self):
        outputs = [{"node": n["name"]} for n in self.nodes]
        nodes = self.nodes + [{"name": "output", "op": "output", "args": [outputs]}]
        return {"format": "symshape-graph", "version": 1, "nodes": nodes}


@unittest.skipIf(torch is None and not os.environ.get("CI"), "needs torch (python3-torch)")
class ViewChainsAgainstPyTorch(unittest.TestCase):
    def test_random_view_chains(self):
        cli = os.environ.get("SYMSHAPE_CLI")
        if not cli or not pathlib.Path(cli).exists():
            if os.environ.get("CI"):
                self.fail("SYMSHAPE_CLI is not set to the symshape CLI")
            self.skipTest("needs SYMSHAPE_CLI (the symshape CLI), as ctest sets it")
        builder = ChainBuilder(random.Random(SEED))
        for c in range(CHAINS):
            builder.chain(c)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            (tmp / "inputs").mkdir()
            for name, value in builder.inputs.items():
                np.save(tmp / "inputs" / f"{name}.npy", value)
            graph = tmp / "chains.json"
            graph.write_text(json.dumps(builder.graph()))
            r = subprocess.run([cli, "run", str(graph), "--inputs", str(tmp / "inputs"),
                                "--save", str(tmp / "out")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            compared = 0
            for name, want in builder.torch_values.items():
                got = np.load(tmp / "out" / f"{name}.npy")
                want = want.numpy()
                self.assertEqual(got.shape, want.shape, builder.about.get(name, name))
                self.assertTrue(np.array_equal(got, want),
                                f"{name}: {builder.about.get(name, name)}\n"
                                f"symshape: {got.tolist()}\nPyTorch: {want.tolist()}")
                compared += 1
            self.assertGreater(compared, CHAINS)
            print(f"[ view chains ] {CHAINS} chains, {compared} values equal to PyTorch's")


if __name__ == "__main__":
    unittest.main()
