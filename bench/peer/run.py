#!/usr/bin/python3
"""Side by side with the peers, in one run (issue 15).

Generates five workloads deterministically, runs each through the peer and through symshape in
the same run, and prints CPU times, the ratio and whether the answers agree:

  guards       200 symbols with hints, 5,000 conditions `s_a + c OP s_b` given to evaluate:
               PyTorch's ShapeEnv.evaluate_expr against bench_shape_env --workload.
               OP is one of < <= > >=.
  guards6      the same with OP drawn from all six relations (== and != too, as Dynamo's
               guards are).
  expressions  2,000 shape expressions (conv sizes, reshape products, clamps, floor/mod):
               sympy build + expand against `symshape expr simplify --batch` (whole process);
               agreement: sympy's value of the original against symshape's value of its
               simplified form, at one point per expression.
  classes      2,000 expressions in eight classes of 250 (conv-area products with padding and
               dilation, conv sizes, reshape quotients, clamps with min/max, mod chains,
               ceildiv round-ups, cancellations, flatten sizes), one row per class: sympy build +
               expand against `symshape expr simplify --batch` per class, the process's start-up
               (a one-line batch) taken off; each answer checked at one point.
  propagation  a generated Llama-style decoder (`symshape gen llama`), static sizes at its hints:
               PyTorch's FakeTensorProp on the same graph rebuilt in torch.fx against
               `symshape check` (whole process: start, read, propagate, print), and against
               its propagate phase alone (`check --time`), which is what FakeTensorProp's
               propagate() does.

Run with the Python that has sympy and torch (Debian's: /usr/bin/python3):

  /usr/bin/python3 bench/peer/run.py --build build [--layers 32] [--quick]

A peer that is not importable is skipped with a message. Exit 1 when answers disagree.
"""
import argparse
import warnings
import operator
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_child(cmd, stdin_text=None):
    """Runs cmd; returns (stdout, stderr, exit code, CPU seconds of the child)."""
    before = child_cpu()
    p = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True)
    return p.stdout, p.stderr, p.returncode, child_cpu() - before


def row(name, peer, peer_s, ours_s, n, unit, agree):
    ratio = peer_s / ours_s if ours_s > 0 else float("inf")
    print(f"{name:12} {n:6} {unit:10} {peer:28} {peer_s / n * 1e6:12.1f} us"
          f" {ours_s / n * 1e6:10.2f} us {ratio:9.1f}x  {agree}")


# ---------------------------------------------------------------------------------------------
# guards
# ---------------------------------------------------------------------------------------------

OPS = ["<", "<=", ">", ">="]
ALL_OPS = OPS + ["==", "!="]


def guard_workload(n_symbols, n_conds, seed=15, ops=OPS):
    rng = random.Random(seed)
    hints = [rng.randint(2, 1024) for _ in range(n_symbols)]
    conds = []
    for _ in range(n_conds):
        a = rng.randrange(n_symbols)
        b = rng.randrange(n_symbols - 1)
        b += b >= a  # a != b
        conds.append((a, rng.randint(-8, 8), rng.choice(ops), b))
    return hints, conds


def truth(hints, cond):
    a, c, op, b = cond
    lhs, rhs = hints[a] + c, hints[b]
    return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs,
            "==": lhs == rhs, "!=": lhs != rhs}[op]


def torch_guards(hints, conds):
    import sympy
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    env = ShapeEnv()
    syms = [sympy.Symbol(f"s{i}", positive=True, integer=True) for i in range(len(hints))]
    for s, h in zip(syms, hints):
        env.var_to_val[s] = sympy.Integer(h)
    rel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "==": sympy.Eq,
           "!=": sympy.Ne}
    exprs = [rel[op](syms[a] + c, syms[b]) for a, c, op, b in conds]
    t0 = time.process_time()
    answers = [bool(env.evaluate_expr(e)) for e in exprs]
    return answers, time.process_time() - t0


def run_guards(args, ops=OPS, name="guards"):
    hints, conds = guard_workload(200, 500 if args.quick else 5000, ops=ops)
    expected = [truth(hints, c) for c in conds]
    path = os.path.join(args.tmp, f"{name}.txt")
    with open(path, "w") as f:
        f.write(f"symbols {len(hints)}\n{' '.join(map(str, hints))}\n")
        for a, c, op, b in conds:
            f.write(f"{a} {c} {op} {b}\n")
    out, err, code, _ = run_child([os.path.join(args.build, "bench_shape_env"), "--workload", path])
    if code != 0:
        print(f"{name}: bench_shape_env failed: {err.strip()}")
        return False
    ours = [line == "true" for line in out.splitlines()]
    ours_s = float(err.split()[1])
    ok = ours == expected
    try:
        theirs, peer_s = torch_guards(hints, conds)
    except ImportError as e:
        print(f"{name}: PyTorch not importable ({e}); symshape alone: "
              f"{ours_s / len(conds) * 1e6:.1f} us/cond, answers {'right' if ok else 'WRONG'}")
        return ok
    agree = ok and theirs == expected
    row(name, "torch ShapeEnv.evaluate_expr", peer_s, ours_s, len(conds), "conds",
        "agree" if agree else f"DISAGREE (symshape {sum(o != e for o, e in zip(ours, expected))},"
        f" torch {sum(t != e for t, e in zip(theirs, expected))} wrong)")
    return agree


def run_guards_six(args):
    """The same workload drawn from all six relations (== and != as well), as Dynamo's guards
    are: duck sizing and 0/1 specialization make many of them equalities."""
    return run_guards(args, ALL_OPS, "guards6")


# ---------------------------------------------------------------------------------------------
# expressions
# ---------------------------------------------------------------------------------------------

SYMBOLS = ["s0", "s1", "s2", "h", "w", "n", "k", "p", "d", "s", "start", "end", "a", "b"]


def expression_workload(count, seed=16):
    rng = random.Random(seed)
    sym = lambda: rng.choice(SYMBOLS)
    exprs = []
    for i in range(count):
        kind = i % 8
        if kind == 0:  # conv output size, constant parameters
            kk, st, pd, dl = rng.choice([1, 3, 5, 7]), rng.choice([1, 2]), rng.randint(0, 3), rng.choice([1, 2])
            e = f"({sym()} + 2*{pd} - {dl}*({kk} - 1) - 1)//{st} + 1"
        elif kind == 1:  # conv output size, symbolic parameters
            e = f"({sym()} + 2*p - d*(k - 1) - 1)//{rng.choice([1, 2, 's'])} + 1"
        elif kind == 2:  # reshape: inferred dim
            c = rng.choice([64, 128, 4096])
            e = f"({sym()}*{sym()}*{c})//({sym()}*{rng.choice([1, 2, 64])})"
        elif kind == 3:  # reshape: element count
            e = f"{sym()}*{sym()}*{rng.choice([3, 8, 256])} + {sym()}*{rng.randint(1, 9)}"
        elif kind == 4:  # clamps
            e = f"min(max({sym()} - {rng.randint(0, 9)}, 0), {sym()})"
        elif kind == 5:  # alignment
            m = rng.choice([8, 16, 64, 256])
            e = f"({sym()}*{rng.randint(1, 512)} + {m - 1}) % {m}"
        elif kind == 6:  # tiling
            t = rng.choice([16, 32, 128])
            e = f"ceildiv({sym()}, {t})*{t} - {sym()}"
        else:  # flatten / unflatten
            x = sym()
            e = f"({x}*{sym()}*{rng.randint(2, 16)})//{x} + ({sym()} + {rng.randint(0, 7)})//{rng.choice([2, 4, 8])}"
        exprs.append(e)
    point = {s: rng.randint(1, 300) for s in SYMBOLS}
    return exprs, point


def class_workload(per_class, seed=33):
    """Shape expressions by class, as users write them (issue 33): each class `per_class`
    expressions. Returns {class: [expression]} in a fixed order, and one point to evaluate at."""
    rng = random.Random(seed)
    sym = lambda: rng.choice(SYMBOLS)

    def window(x):  # a conv / pool output size with padding and dilation
        kk, st, pd, dl = rng.choice([1, 3, 5, 7]), rng.choice([1, 2, 4]), rng.randint(0, 3), rng.choice([1, 2])
        return f"({x} + {2 * pd} - {dl}*({kk} - 1) - 1)//{st} + 1"

    makers = {
        "conv_area": lambda: f"{rng.choice([16, 64, 256])}*({window(sym())})*({window(sym())})",
        "conv_size": lambda: window(sym()),
        "reshape_quot": lambda: (lambda x, y: f"({x}*{y}*{rng.choice([64, 768, 4096])})"
                                 f"//({y}*{rng.choice([1, 2, 64])})")(sym(), sym()),
        "clamp": lambda: rng.choice([
            f"min(max({sym()} - {rng.randint(0, 9)}, 0), {sym()})",
            f"max(min({sym()}, {sym()}), 0)",
            f"min(max({sym()} + {rng.randint(-9, 9)}, 0), {sym()}) - max({sym()}, 0)"]),
        "mod_chain": lambda: (lambda x: rng.choice([
            f"(({x}//{rng.choice([2, 4])}) % {rng.choice([8, 16])})//2",
            f"({x} % {rng.choice([64, 128])}) % {rng.choice([8, 16])}",
            f"(({x}*16 + {sym()} % 16) % 64)//16",
            f"{x} % 8 + 8*(({x}//8) % 4)"]))(sym()),
        "ceildiv": lambda: (lambda x, t: rng.choice([
            f"ceildiv({x}, {t})*{t}",
            f"{x} + (-{x}) % {t}",
            f"ceildiv({x} + {rng.randint(0, 7)}, {t}) - ({x} + {t - 1})//{t}"]))(sym(), rng.choice([8, 16, 64])),
        "cancel": lambda: (lambda x, k: rng.choice([
            f"({x} + {2 * k + 1})//2 - ({x} + 1)//2",
            f"{x} - 3*({x}//3) - {x} % 3",
            f"({x}*{sym()} + {x})//{x}",
            f"4*({x}//4) + {x} % 4 - {x}"]))(sym(), rng.randint(0, 9)),
        "flatten": lambda: (lambda x: f"({x}*{sym()}*{rng.randint(2, 16)})//{x} + "
                            f"({sym()} + {rng.randint(0, 7)})//{rng.choice([2, 4, 8])}")(sym()),
    }
    classes = {name: [make() for _ in range(per_class)] for name, make in makers.items()}
    point = {s: rng.randint(1, 300) for s in SYMBOLS}
    return classes, point


def run_classes(args):
    """The class corpus: each class through `symshape expr simplify --batch` (the process's
    start-up, measured on a one-line batch, taken off) and through sympy build + expand."""
    classes, point = class_workload(25 if args.quick else 250)
    symshape = os.path.join(args.build, "bin", "symshape")
    starts = [run_child([symshape, "expr", "simplify", "--batch", "-"], "1\n")[3]
              for _ in range(8)]
    start_s = sum(starts) / len(starts)  # the process's start-up: a one-line batch
    try:
        import sympy
        ns = sympy_namespace()
    except ImportError:
        sympy = None
    py_ns = dict(point, min=min, max=max, ceildiv=lambda a, b: -((-a) // b))
    bindings = [f"{k}={v}" for k, v in point.items()]
    ok = True
    total_ours = total_peer = 0.0
    count = 0
    # The batch holds the class `reps` times (a class's CPU time well above a tick), each
    # repetition with its symbols renamed (s0 -> s0_r1, ...): one batch shares simplified
    # sub-expressions between its lines, so repeating the same lines would time lookups.
    reps = 1 if args.quick else 8
    names = re.compile(r"\b(" + "|".join(SYMBOLS) + r")\b")
    for name, exprs in classes.items():
        lines = list(exprs)
        for r in range(1, reps):
            lines += [names.sub(lambda m: f"{m.group(1)}_r{r}", e) for e in exprs]
        out, err, code, ours_s = run_child([symshape, "expr", "simplify", "--batch", "-"],
                                           "\n".join(lines) + "\n")
        if code != 0:
            print(f"classes: symshape failed on {name}: {err.strip()[:500]}")
            return False
        ours_s = max(ours_s - start_s, 1e-9) / reps
        simplified = out.splitlines()[:len(exprs)]
        ev, err, code, _ = run_child([symshape, "expr", "eval", "--batch", "-"] + bindings,
                                     "\n".join(simplified) + "\n")
        expected = [eval(e, {}, py_ns) for e in exprs]
        right = code == 0 and [int(v) for v in ev.splitlines()] == expected
        ok = ok and right
        peer_s = float("nan")
        if sympy is not None:
            t0 = time.process_time()
            for e in exprs:
                sympy.expand(eval(e, {}, ns))
            peer_s = time.process_time() - t0
            total_peer += peer_s
        total_ours += ours_s
        count += len(exprs)
        example = simplified[0] if simplified else ""
        row(name, "sympy build + expand", peer_s, ours_s, len(exprs), "exprs",
            ("right" if right else "WRONG") + f"  e.g. {exprs[0]}  ->  {example}")
    row("classes", "sympy build + expand", total_peer, total_ours, count, "exprs",
        "all right" if ok else "SOME WRONG")
    return ok


def sympy_namespace():
    import sympy
    ns = {s: sympy.Symbol(s, integer=True, positive=True) for s in SYMBOLS}
    ns.update(min=sympy.Min, max=sympy.Max, ceildiv=lambda a, b: -((-a) // b))
    return ns


def run_expressions(args):
    exprs, point = expression_workload(200 if args.quick else 2000)
    text = "\n".join(exprs) + "\n"
    symshape = os.path.join(args.build, "bin", "symshape")
    out, err, code, ours_s = run_child([symshape, "expr", "simplify", "--batch", "-"], text)
    if code != 0:
        print(f"expressions: symshape failed: {err.strip()[:500]}")
        return False
    simplified = out.splitlines()
    bindings = " ".join(f"{k}={v}" for k, v in point.items())
    ev, err, code, _ = run_child([symshape, "expr", "eval", "--batch", "-"] + bindings.split(),
                                 "\n".join(simplified) + "\n")
    if code != 0:
        print(f"expressions: symshape eval failed: {err.strip()[:500]}")
        return False
    ours = [int(v) for v in ev.splitlines()]
    # The reference values: Python's own integer semantics at the point.
    py_ns = dict(point, min=min, max=max, ceildiv=lambda a, b: -((-a) // b))
    expected = [eval(e, {}, py_ns) for e in exprs]
    ok = ours == expected
    try:
        import sympy
    except ImportError as e:
        print(f"expressions: sympy not importable ({e}); symshape alone: "
              f"{ours_s / len(exprs) * 1e6:.1f} us/expr, answers {'right' if ok else 'WRONG'}")
        return ok
    ns = sympy_namespace()
    t0 = time.process_time()
    built = [sympy.expand(eval(e, {}, ns)) for e in exprs]
    peer_s = time.process_time() - t0
    subs = {ns[k]: v for k, v in point.items()}
    theirs = [int(b.subs(subs)) for b in built]
    agree = ok and theirs == expected
    bad = [i for i, (o, e) in enumerate(zip(ours, expected)) if o != e]
    row("expressions", "sympy build + expand", peer_s, ours_s, len(exprs), "exprs",
        "agree" if agree else f"DISAGREE (symshape wrong on {bad[:5]}, sympy wrong on "
        f"{[i for i, (t, e) in enumerate(zip(theirs, expected)) if t != e][:5]})")
    return agree


# ---------------------------------------------------------------------------------------------
# propagation
# ---------------------------------------------------------------------------------------------

def fx_from_symshape(doc):
    """The symshape graph as a torch.fx GraphModule; constants become inputs (FakeTensorProp
    fakes its inputs, not module attributes). Returns the module and example inputs."""
    import torch
    import torch.fx as fx
    dims = {k: v.get("hint", 8) for k, v in doc.get("dims", {}).items()}
    g = fx.Graph()
    env, inputs = {}, []

    def size_of(x):
        return dims[x] if isinstance(x, str) else x

    def target_of(name):
        if name.startswith("operator."):
            return getattr(operator, name.split(".", 1)[1])
        if name == "aten.sym_size.int":
            return torch.ops.aten.sym_size
        _, op, overload = name.split(".")
        return getattr(getattr(torch.ops.aten, op), overload)

    def arg(a):
        if isinstance(a, list):
            return [arg(x) for x in a]
        if isinstance(a, dict):
            if "node" in a:
                return env[a["node"]]
            if "memory_format" in a:
                return getattr(torch, a["memory_format"])
            raise ValueError(f"unsupported argument {a}")
        return a

    for n in doc["nodes"]:
        if n["op"] in ("placeholder", "get_attr"):
            env[n["name"]] = g.placeholder(n["name"])
            dtype = getattr(torch, n["dtype"])
            inputs.append(torch.zeros([size_of(x) for x in n["shape"]], dtype=dtype))
        elif n["op"] == "call_function":
            kwargs = {k: arg(v) for k, v in n.get("kwargs", {}).items()}
            env[n["name"]] = g.call_function(target_of(n["target"]), tuple(arg(n["args"])), kwargs)
        elif n["op"] == "output":
            g.output(arg(n["args"][0]))
    return fx.GraphModule(torch.nn.Module(), g), inputs, dims


def run_propagation(args):
    import json
    symshape = os.path.join(args.build, "bin", "symshape")
    layers = 2 if args.quick else args.layers
    path = os.path.join(args.tmp, f"llama{layers}.json")
    _, err, code, _ = run_child([symshape, "gen", "llama", "--layers", str(layers), "-o", path])
    if code != 0:
        print(f"propagation: symshape gen failed: {err.strip()}")
        return False
    with open(path) as f:
        doc = json.load(f)
    n = len(doc["nodes"])
    out, err, code, ours_s = run_child([symshape, "check", path, "--time"])
    if code != 0:
        print(f"propagation: symshape check failed: {err.strip()[:500]}")
        return False
    dims = {k: v.get("hint", 8) for k, v in doc["dims"].items()}
    line = [l for l in out.splitlines() if l.startswith("output:")][0]
    # `output: (float32[batch, seq, 512],)`: each size evaluated at the hints.
    sizes = line[line.index("[") + 1:line.index("]")].split(", ")
    ours = [eval(s.replace("//", "//"), {}, dict(dims)) for s in sizes]
    try:
        import torch  # noqa: F401
        from torch.fx.passes.fake_tensor_prop import FakeTensorProp
    except ImportError as e:
        print(f"propagation: PyTorch not importable ({e}); symshape alone: "
              f"{n / ours_s:.0f} nodes/s (whole process)")
        return True
    gm, inputs, _ = fx_from_symshape(doc)
    t0 = time.process_time()
    result = FakeTensorProp(gm).propagate(*inputs)
    peer_s = time.process_time() - t0
    theirs = list(result[0].shape)
    agree = theirs == ours
    answers = "agree" if agree else f"DISAGREE (symshape {ours}, torch {theirs})"
    row("propagation", f"torch FakeTensorProp (L={layers})", peer_s, ours_s, n, "nodes",
        answers + " (symshape: whole process)")
    # Like for like: FakeTensorProp's propagate() against symshape's propagate(), each run once
    # in a process that has already read the graph (`check --time` reports its phases).
    phase_s = propagate_seconds(err)
    row("propagation", f"torch FakeTensorProp (L={layers})", peer_s, phase_s, n, "nodes",
        answers + " (symshape: propagate, one run)")
    print(f"{'':12} nodes/s: torch {n / peer_s:,.0f}, symshape {n / ours_s:,.0f} (whole process),"
          f" {n / phase_s:,.0f} (propagate); symshape's phases: {err.strip().split('time: ')[1]}")
    return agree


def propagate_seconds(stderr):
    """The propagate phase of `symshape check --time`'s last stderr line, in seconds."""
    line = stderr.strip().splitlines()[-1]
    ms = line.split("propagate ")[1].split(" ms")[0]
    return float(ms) / 1e3


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--layers", type=int, default=32, help="decoder layers for propagation")
    parser.add_argument("--quick", action="store_true", help="small workloads (a smoke run)")
    parser.add_argument("--only", choices=["guards", "guards6", "expressions", "classes",
                                           "propagation"])
    args = parser.parse_args()
    for tool in ("bench_shape_env", os.path.join("bin", "symshape")):
        if not os.path.exists(os.path.join(args.build, tool)):
            sys.exit(f"run.py: {os.path.join(args.build, tool)} not found (build it first)")
    print(f"{'workload':12} {'n':>6} {'unit':10} {'peer':28} {'peer/item':>15}"
          f" {'symshape/item':>13} {'ratio':>10}  answers")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        args.tmp = tmp
        for name, fn in (("guards", run_guards), ("guards6", run_guards_six),
                         ("expressions", run_expressions), ("classes", run_classes),
                         ("propagation", run_propagation)):
            if args.only in (None, name):
                ok = fn(args) and ok
    print("CPU time (process_time for the peers; symshape: the evaluate loop for guards, the"
          " whole process for expressions, and for propagation both the whole process and the"
          " propagate phase).")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
