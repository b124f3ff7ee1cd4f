"""symshape vs onnx.shape_inference on real exported models: which outputs each resolves exactly,
and how long each takes.

    /usr/bin/python3 bench/onnx/compare.py [--cli build/bin/symshape] [--markdown] [MODEL...]

The models are tests/python/onnx_models.py's (torchvision's ResNet-18, MobileNetV2, ShuffleNetV2,
EfficientNet-B0, a small ViT, a transformer encoder, an LSTM text model, LRASPP and a small UNet),
exported by torch.onnx with dynamic batch, height and width (vision) or batch and seq (text).
Before either tool sees a model, the exporter's own shape annotations are removed (value_info,
and every graph output's shape; the element types stay), so each tool infers from the inputs.

An output is *resolved* when its rank is known and every dim is exact: a number, or a symbolic
dim that, at each of the model's test sizes (three points per dynamic dim), evaluates to the size
PyTorch's output has there. For symshape a symbolic dim is an expression over the inputs'
dim_params (`batch`, `(height - 1)//32 + 1`), evaluated with `symshape expr eval`. For onnx a
symbolic dim is a dim_param, which onnx never computes with: it counts only when it is one of
the input's dim_params and that dim's value is the output's size at every test point (an
invented name such as `unk__3`, or a dim without value or name, is not resolved). An output
symshape cannot check at all (an error) counts as unresolved.

The second group of columns counts the values the nodes compute (Constant nodes aside) and how
many of them each tool gives a shape written in the inputs' terms: for symshape, a shape with no
unbacked size; for onnx, a shape whose every dim is a number or one of the input's dim_params
(not checked against the truth, which only the outputs have here; onnx's invented `unk__N`
names do not count).

symshape gets each dynamic dim's range (`--dim batch=2..64 --dim height=33..1024`, ...; see
tests/python/onnx_models.py), which also sets the example value it decides on.

Times are wall-clock: symshape's is the whole `symshape check --json` process (reading the
protobuf included), onnx's is the infer_shapes call (the model already in memory), best of 3.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import onnx  # noqa: E402
from onnx import shape_inference  # noqa: E402

import onnx_models  # noqa: E402


def strip_annotations(model):
    """The model without inferred shapes: no value_info, graph outputs with element type only."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.value_info[:]
    for o in m.graph.output:
        if o.type.HasField("tensor_type"):
            o.type.tensor_type.ClearField("shape")
    return m


def best_of(n, f):
    best, result = None, None
    for _ in range(n):
        start = time.perf_counter()
        result = f()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def evaluate(cli, lines):
    proc = subprocess.run([cli, "expr", "eval", "--batch", "-"], capture_output=True, text=True,
                          input="".join(l + "\n" for l in lines))
    out = []
    for answer in proc.stdout.splitlines():
        out.append(None if answer.startswith("error:") else int(answer))
    return out + [None] * (len(lines) - len(out))


def symshape_resolved(cli, path, outputs, spec, truths):
    """[resolved?] per output, the shapes as text, and the seconds."""
    dims = [a for d in spec.dims for a in ("--dim", d)]
    seconds, proc = best_of(3, lambda: subprocess.run([cli, "check", "--json", path, *dims],
                                                      capture_output=True, text=True))
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return [False] * len(outputs), [proc.stderr.strip()] * len(outputs), seconds, 0
    if doc.get("status") != "ok":
        return [False] * len(outputs), [doc.get("error", "?")] * len(outputs), seconds, 0
    values = {n["name"]: n["value"] for n in doc["nodes"]}
    shapes = [values.get(o, {}).get("shape") if isinstance(values.get(o), dict) else None
              for o in outputs]
    determined = sum(1 for name in node_outputs(onnx.load(path))
                     if isinstance(values.get(name), dict) and "shape" in values[name]
                     and not any(e.startswith("u") and e[1:].isdigit()
                                 for e in values[name]["shape"]))
    lines, keys = [], []
    for point, sizes in enumerate(spec.sizes):
        bindings = " ".join(f"{k}={v}" for k, v in sizes.items())
        for i, shape in enumerate(shapes):
            for d, e in enumerate(shape or []):
                lines.append(f"{e}\t{bindings}")
                keys.append((point, i, d))
    got = dict(zip(keys, evaluate(cli, lines)))
    resolved = []
    for i, shape in enumerate(shapes):
        ok = shape is not None and all(
            len(shape) == len(truths[p][i]) and
            all(got.get((p, i, d)) == truths[p][i][d] for d in range(len(shape)))
            for p in range(len(spec.sizes)))
        resolved.append(ok)
    return (resolved, [f"[{', '.join(s)}]" if s is not None else "?" for s in shapes], seconds,
            determined)


def onnx_resolved(model, outputs, spec, truths, data_prop):
    seconds, inferred = best_of(
        3, lambda: shape_inference.infer_shapes(model, strict_mode=False, data_prop=data_prop))
    types = {o.name: o.type for o in inferred.graph.output}
    types.update({v.name: v.type for v in inferred.graph.value_info})
    input_dims = set(spec.dynamic.values())
    determined = sum(1 for name in node_outputs(model) if determined_by_onnx(types.get(name),
                                                                              input_dims))
    resolved, texts = [], []
    for i, name in enumerate(outputs):
        t = types.get(name)
        if t is None or not t.tensor_type.HasField("shape"):
            resolved.append(False)
            texts.append("?")
            continue
        dims = t.tensor_type.shape.dim
        text = []
        ok = all(len(dims) == len(truths[p][i]) for p in range(len(spec.sizes)))
        for d, dim in enumerate(dims):
            if dim.HasField("dim_value"):
                text.append(str(dim.dim_value))
                values = [dim.dim_value] * len(spec.sizes)
            elif dim.HasField("dim_param"):
                text.append(dim.dim_param)
                values = ([sizes[dim.dim_param] for sizes in spec.sizes]
                          if dim.dim_param in input_dims else None)
            else:
                text.append("?")
                values = None
            if values is None or (ok and any(values[p] != truths[p][i][d]
                                             for p in range(len(spec.sizes)))):
                ok = False
        resolved.append(ok)
        texts.append(f"[{', '.join(text)}]")
    return resolved, texts, seconds, determined


def node_outputs(model):
    """The names of the values the graph's nodes compute (Constant nodes' excluded)."""
    return [o for n in model.graph.node if n.op_type != "Constant" for o in n.output if o]


def determined_by_onnx(type_proto, input_dims):
    """Whether onnx gave the value a shape whose every dim is a number or an input's dim_param
    (not necessarily the right one: a shape onnx could have written down without inventing)."""
    if type_proto is None or not type_proto.HasField("tensor_type"):
        return False
    t = type_proto.tensor_type
    if not t.HasField("shape"):
        return False
    return all(d.HasField("dim_value") or (d.HasField("dim_param") and d.dim_param in input_dims)
               for d in t.shape.dim)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="a subset of the models (default: all)")
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "symshape"))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--shapes", action="store_true", help="print each output's shapes")
    args = parser.parse_args()
    specs = [onnx_models.BY_NAME[m] for m in args.models] if args.models else onnx_models.SPECS
    rows = []
    totals = [0, 0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            model = onnx_models.build(spec)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exported = onnx_models.export(spec, tmp, model)
            stripped = strip_annotations(onnx.load(exported))
            path = os.path.join(tmp, spec.name + ".stripped.onnx")
            onnx.save(stripped, path)
            outputs = [o.name for o in stripped.graph.output]
            truths = [onnx_models.torch_shapes(spec, model, s) for s in spec.sizes]
            sym = symshape_resolved(args.cli, path, outputs, spec, truths)
            plain = onnx_resolved(stripped, outputs, spec, truths, data_prop=False)
            prop = onnx_resolved(stripped, outputs, spec, truths, data_prop=True)
            n = len(outputs)
            totals = [totals[0] + n, totals[1] + sum(sym[0]), totals[2] + sum(plain[0]),
                      totals[3] + sum(prop[0])]
            rows.append((spec.name, n, sum(sym[0]), sum(plain[0]), sum(prop[0]),
                         sym[2], plain[2], prop[2], len(node_outputs(stripped)), sym[3],
                         plain[3], prop[3]))
            if args.shapes:
                for i, o in enumerate(outputs):
                    print(f"{spec.name} {o}: truth {truths[0][i]} at {spec.sizes[0]}\n"
                          f"  symshape {sym[1][i]}\n  onnx {plain[1][i]}\n"
                          f"  onnx data_prop {prop[1][i]}", file=sys.stderr)
    header = ("model", "outputs", "symshape", "onnx", "onnx data_prop", "values",
              "symshape", "onnx", "onnx data_prop", "symshape ms", "onnx ms",
              "onnx data_prop ms")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[8]} | {r[9]} | {r[10]} | "
                  f"{r[11]} | {r[5] * 1e3:.1f} | {r[6] * 1e3:.1f} | {r[7] * 1e3:.1f} |")
        print(f"| **total** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | "
              f"{sum(r[8] for r in rows)} | {sum(r[9] for r in rows)} | "
              f"{sum(r[10] for r in rows)} | {sum(r[11] for r in rows)} | | | |")
    else:
        print(f"{'model':22} {'outs':>4} {'symshape':>8} {'onnx':>5} {'onnx+dp':>7} "
              f"{'values':>6} {'symshape':>8} {'onnx':>5} {'onnx+dp':>7} "
              f"{'symshape ms':>11} {'onnx ms':>8} {'onnx+dp ms':>10}")
        for r in rows:
            print(f"{r[0]:22} {r[1]:4} {r[2]:8} {r[3]:5} {r[4]:7} {r[8]:6} {r[9]:8} {r[10]:5} "
                  f"{r[11]:7} {r[5] * 1e3:11.1f} {r[6] * 1e3:8.1f} {r[7] * 1e3:10.1f}")
        print(f"{'total':22} {totals[0]:4} {totals[1]:8} {totals[2]:5} {totals[3]:7}")


if __name__ == "__main__":
    main()
