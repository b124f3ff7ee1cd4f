"""The strides symshape's shape rules give fresh results, against PyTorch's fake tensors.

make_fx records each node's strides from PyTorch's meta functions (a fake tensor on the CPU), and
the views of a traced graph (`_reshape_alias`, `as_strided`) read their input through them: the
interpreter lays every value out as symshape's metadata says, so that metadata must be PyTorch's
to the stride, size-1 dims included (TensorIterator orders dims by them).

For each op below, random inputs laid out at random (permuted, sliced with steps, expanded,
channels_last, with size-1 dims) go through one graph of one node per case; symshape.propagate's
strides must equal those of the op's result under FakeTensorMode, for every case. PyTorch 1.13's
meta functions are the reference (Debian's python3-torch): native_layer_norm's composite
(reshape to [1, M, N], batch norm, view back, weight and bias), native_batch_norm's
decomposition (four elementwise ops), constant_pad_nd (a clone without a positive pad, else the
suggested memory format), convolution (channels_last after a channels_last-like input) and the
binary elementwise ops (TensorIterator's order, broadcasting and ties by size).

Skips without torch unless the environment variable CI is set.
"""
import os
import random
import unittest

try:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    import symshape
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e

CASES = 60
SEED = 2931


def setUpModule():
    if IMPORT_ERROR is not None:
        if os.environ.get("CI"):
            raise AssertionError(f"CI is set but torch cannot be imported: {IMPORT_ERROR}")
        raise unittest.SkipTest(f"torch cannot be imported ({IMPORT_ERROR})")


DTYPE = "float32"


def random_layout(rng, sizes):
    """(sizes, strides, storage size) of a tensor of `sizes` laid out at random: contiguous,
    permuted, sliced with steps, expanded along a size-1 dim, or channels_last (rank 4)."""
    rank = len(sizes)
    kind = rng.choice(["contiguous", "permuted", "permuted", "sliced", "expanded",
                       "channels_last"])
    if kind == "channels_last" and rank != 4:
        kind = "permuted"
    if kind == "contiguous":
        return list(torch.empty(sizes).stride())
    if kind == "channels_last":
        return list(torch.empty(sizes).to(memory_format=torch.channels_last).stride())
    if kind == "permuted":
        order = list(range(rank))
        rng.shuffle(order)
        base = torch.empty([sizes[d] for d in order])
        inverse = [order.index(d) for d in range(rank)]
        return list(base.permute(inverse).stride())
    if kind == "sliced":
        steps = [rng.choice([1, 2]) for _ in sizes]
        base = torch.empty([s * k for s, k in zip(sizes, steps)])
        view = base[tuple(slice(None, None, k) for k in steps)]
        return list(view.stride())
    # expanded: a size-1 dim of the base broadcast (stride 0) where the size is > 1
    base_sizes = [1 if s > 1 and rng.random() < 0.4 else s for s in sizes]
    return list(torch.empty(base_sizes).expand(sizes).stride())


def random_sizes(rng, rank):
    return [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(rank)]


class GraphBuilder:
    """One graph with a placeholder per tensor input (its strides declared) and a node per
    case; alongside, the fake tensors' strides of each node."""

    def __init__(self):
        self.nodes = []
        self.expected = {}  # node name -> (item index or None, strides)
        self.about = {}
        self.fake = FakeTensorMode()

    def tensor(self, sizes, strides):
        name = f"x{len(self.nodes)}"
        self.nodes.append({"name": name, "op": "placeholder", "dtype": DTYPE, "shape": sizes,
                           "stride": strides})
        with self.fake:
            t = torch.empty_strided(sizes, strides)
        return name, t

    def call(self, target, args, result, about, item=None):
        name = f"n{len(self.nodes)}"
        self.nodes.append({"name": name, "op": "call_function", "target": target, "args": args})
        value = result[item] if item is not None else result
        self.expected[name] = (item, list(value.stride()))
        self.about[name] = about
        return name

    def check(self, test):
        outputs = [{"node": name} for name in self.expected]
        graph = {"format": "symshape-graph", "version": 1,
                 "nodes": self.nodes + [{"name": "output", "op": "output", "args": [outputs]}]}
        p = symshape.propagate(graph)
        test.assertTrue(p.ok, p.error)
        wrong = []
        for name, (item, strides) in self.expected.items():
            v = p[name]
            if item is not None:
                v = v.items[item]
            mine = [int(str(s)) for s in v.tensor.stride]
            if mine != strides:
                wrong.append(f"{self.about[name]}: symshape {mine}, PyTorch {strides}")
        test.assertFalse(wrong, f"{len(wrong)} of {len(self.expected)} cases differ:\n  " +
                         "\n  ".join(wrong[:10]))
        test.assertGreater(len(self.expected), 10)


def arg(name):
    return {"node": name}


class LayoutTest(unittest.TestCase):
    def cases(self, make_case):
        rng = random.Random(SEED)
        g = GraphBuilder()
        for _ in range(CASES):
            make_case(rng, g)
        g.check(self)

    def test_native_layer_norm(self):
        def case(rng, g):
            rank = rng.randint(1, 4)
            sizes = random_sizes(rng, rank)
            strides = random_layout(rng, sizes)
            x, xt = g.tensor(sizes, strides)
            k = rng.randint(1, rank)
            normalized = sizes[rank - k:]
            w = b = wt = bt = None
            if rng.random() < 0.6:
                w, wt = g.tensor(normalized, list(torch.empty(normalized).stride()))
            if rng.random() < 0.6:
                b, bt = g.tensor(normalized, list(torch.empty(normalized).stride()))
            with g.fake:
                out = torch.ops.aten.native_layer_norm.default(xt, normalized, wt, bt, 1e-5)
            about = (f"native_layer_norm of {sizes} strides {strides}, normalized {normalized}"
                     f"{', weight' if w else ''}{', bias' if b else ''}")
            args = [arg(x), normalized, arg(w) if w else None, arg(b) if b else None, 1e-5]
            g.call("aten.native_layer_norm.default", args, out, about, item=0)

        self.cases(case)

    def test_native_batch_norm(self):
        def case(rng, g):
            rank = rng.randint(2, 4)
            sizes = random_sizes(rng, rank)
            strides = random_layout(rng, sizes)
            x, xt = g.tensor(sizes, strides)
            c = [sizes[1]]
            per_channel = 1
            for k, s in enumerate(sizes):
                per_channel *= s if k != 1 else 1
            # Training needs more than one value per channel (PyTorch divides by n - 1).
            training = per_channel > 1 and rng.random() < 0.5
            params = {}
            for what in ("weight", "bias", "running_mean", "running_var"):
                needed = what.startswith("running") and not training
                if needed or rng.random() < 0.5:
                    params[what] = g.tensor(c, [1])
                else:
                    params[what] = (None, None)
            names = [params[w][0] for w in ("weight", "bias", "running_mean", "running_var")]
            fakes = [params[w][1] for w in ("weight", "bias", "running_mean", "running_var")]
            with g.fake:
                out = torch.ops.aten.native_batch_norm.default(xt, *fakes, training, 0.1, 1e-5)
            about = (f"native_batch_norm of {sizes} strides {strides}, training={training}, "
                     f"{[n is not None for n in names]}")
            args = [arg(x)] + [arg(n) if n else None for n in names] + [training, 0.1, 1e-5]
            g.call("aten.native_batch_norm.default", args, out, about, item=0)

        self.cases(case)

    def test_constant_pad_nd(self):
        def case(rng, g):
            rank = rng.randint(1, 5)
            sizes = random_sizes(rng, rank)
            strides = random_layout(rng, sizes)
            x, xt = g.tensor(sizes, strides)
            pad = []
            for d in range(rng.randint(1, rank)):
                size = sizes[rank - 1 - d]
                pad += [rng.randint(-(size - 1) // 2, 2) if rng.random() < 0.5 else 0,
                        rng.randint(-(size - 1) // 2, 2) if rng.random() < 0.5 else 0]
            with g.fake:
                out = torch.ops.aten.constant_pad_nd.default(xt, pad, 0.0)
            g.call("aten.constant_pad_nd.default", [arg(x), pad, 0.0], out,
                   f"constant_pad_nd of {sizes} strides {strides}, pad {pad}")

        self.cases(case)

    def test_convolution(self):
        def case(rng, g):
            n = rng.choice([1, 2, 2, 3])
            sizes = [rng.choice([1, 2]), rng.choice([1, 2, 3])] + [
                rng.randint(2, 5) for _ in range(n)]
            strides = random_layout(rng, sizes)
            x, xt = g.tensor(sizes, strides)
            out_channels = rng.choice([1, 2, 4])
            wsizes = [out_channels, sizes[1]] + [rng.randint(1, 2) for _ in range(n)]
            w, wt = g.tensor(wsizes, list(torch.empty(wsizes).stride()))
            with g.fake:
                out = torch.ops.aten.convolution.default(xt, wt, None, [1] * n, [0] * n, [1] * n,
                                                         False, [0] * n, 1)
            args = [arg(x), arg(w), None, [1] * n, [0] * n, [1] * n, False, [0] * n, 1]
            g.call("aten.convolution.default", args, out,
                   f"convolution of {sizes} strides {strides}")

        self.cases(case)


if __name__ == "__main__":
    unittest.main()
