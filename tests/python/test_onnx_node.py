"""ONNX's backend node tests through `symshape check --json`.

python3-onnx ships the generators of ONNX's backend node tests (onnx/backend/test/case/node/): each
builds a small model, runs numpy's reference on example inputs and saves model.onnx with
test_data_set_0/input_<i>.pb and output_<i>.pb. This test generates them into a temporary
directory, turns every int32/int64 graph input into an initializer holding the case's values (so
that shape inputs such as Reshape's target, Slice's starts or TopK's k are known, as they are in
an exported model), runs `symshape check --json` on each case and compares every graph output's
dtype and shape with the expected output_<i>.pb.

Cases listed in onnx_node_expected_failures.txt (one line each: the case and why) may fail; any
other failing case fails the test, and so does a crash (an exit code other than 0, 1 or 2) or a
timeout in any case. Listed cases that pass are printed, not failed: delete their lines.

Regenerate the list (after rules change) with
    /usr/bin/python3 tests/python/test_onnx_node.py --update-expected [--cli build/bin/symshape]
which keeps the hand-written reason of a case that still fails, gives new failures a reason from
what the model uses (sequences, optional values, string tensors, the training domain, a dtype
symshape lacks) or else from symshape's error, and prints a count of failures per op.

Run one case by hand: --only test_reshape_extended_dims --verbose.

--symbolic (a report, not part of the test) runs every case again with each input dim above 1
made a dim_param (`x_d0`) and the outputs' declared shapes dropped, evaluates the output
shapes' expressions at the case's sizes and lists, per op, the cases that fail or are wrong
with symbolic dims while they pass with constant ones (a rule that only handles constants). A
case whose guards reject its own sizes (symshape decides on default hints of 8, not on the
case's sizes) is counted apart: the comparison says nothing there.

Skips when onnx cannot be imported and the environment variable CI is unset (with CI set that is
a failure), or when the CLI (SYMSHAPE_CLI, or --cli) is missing.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import numpy
    import onnx
    from onnx import numpy_helper
    IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = e

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED_FILE = os.path.join(HERE, "onnx_node_expected_failures.txt")
CASE_TIMEOUT = 60  # seconds per `symshape check` (every case takes well under one)

# ONNX's TensorProto element types, by symshape's dtype names; others are not symshape dtypes.
DTYPE_NAMES = {
    1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
    10: "float16", 11: "float64", 14: "complex64", 15: "complex128", 16: "bfloat16",
}
ELEM_TYPE_NAMES = {4: "uint16", 8: "string", 12: "uint32", 13: "uint64", 17: "float8e4m3fn",
                   18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz"}


# ---- generating the cases ----

def numpy_compat():
    """The node-test generators of onnx 1.12 use numpy.float, numpy.int, ... which numpy 1.24
    removed; they were aliases of the builtins."""
    for name, alias in (("float", float), ("int", int), ("bool", bool), ("object", object),
                        ("complex", complex), ("str", str)):
        if name not in numpy.__dict__:
            setattr(numpy, name, alias)


def generate_cases(out_dir):
    """Writes every node test into out_dir/node/<case>/; returns the case directories by name."""
    import warnings

    numpy_compat()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.case import node  # noqa: F401 (registers the cases)
        from onnx.backend.test.cmd_tools import generate_data
        generate_data(argparse.Namespace(output=out_dir, op_type=None))
    root = os.path.join(out_dir, "node")
    return {name: os.path.join(root, name) for name in sorted(os.listdir(root))}


# ---- one case ----

def value_kind(type_proto):
    """'tensor', or what else a value is (sequence, optional, map, sparse tensor)."""
    which = type_proto.WhichOneof("value")
    return {"tensor_type": "tensor", "sequence_type": "sequence", "optional_type": "optional",
            "map_type": "map", "sparse_tensor_type": "sparse tensor"}.get(which, str(which))


def structural_reason(model):
    """Why symshape cannot represent this case at all (None when it can): its values are not
    plain tensors, or their element type is not a symshape dtype, or it uses the training
    domain."""
    graph = model.graph
    values = list(graph.input) + list(graph.output)
    kinds = sorted({value_kind(v.type) for v in values} - {"tensor"})
    if kinds:
        return f"{' and '.join(kinds)} values (symshape has tensors only)"
    types = set()
    for v in values:
        types.add(v.type.tensor_type.elem_type)
    for init in graph.initializer:
        types.add(init.data_type)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                types.add(a.t.data_type)
    missing = sorted(ELEM_TYPE_NAMES.get(t, str(t)) for t in types if t not in DTYPE_NAMES)
    if missing:
        return f"{', '.join(missing)} tensors (not a symshape dtype)"
    domains = sorted({n.domain for n in graph.node} - {"", "ai.onnx"})
    if "ai.onnx.preview.training" in domains:
        return "training domain (ai.onnx.preview.training) ops are not supported"
    if domains:
        return f"domain {', '.join(domains)} is not supported"
    return None


def case_op(model):
    """The op a case tests, for the per-op summary: its node's op_type (the first node's that
    is not a Constant when there are several). An `_expanded` case (the op's function body)
    is named after its unexpanded case by run_all."""
    ops = [n.op_type for n in model.graph.node if n.op_type != "Constant"]
    if not ops:
        ops = [n.op_type for n in model.graph.node] or ["?"]
    return ops[0]


class Case:
    """A node test prepared for symshape: its model with integer inputs made initializers."""

    def __init__(self, name, directory):
        self.name = name
        self.directory = directory
        self.model = onnx.load(os.path.join(directory, "model.onnx"))
        self.op = case_op(self.model)
        self.reason = structural_reason(self.model)
        data = os.path.join(directory, "test_data_set_0")
        self.expected = []  # (output name, dtype name or None, dims) per graph output
        for i, out in enumerate(self.model.graph.output):
            file = os.path.join(data, f"output_{i}.pb")
            if value_kind(out.type) != "tensor" or not os.path.exists(file):
                self.expected.append((out.name, None, None))
                continue
            t = onnx.TensorProto()
            with open(file, "rb") as f:
                t.ParseFromString(f.read())
            self.expected.append((out.name, DTYPE_NAMES.get(t.data_type), list(t.dims)))
        self.input_data = data

    def write_prepared(self, path, symbolic=False):
        """The model with each int32/int64 tensor input replaced by an initializer of its
        value. symbolic: also every other input's dims above 1 become dim_params
        (`<input>_d<k>`) and the outputs' declared shapes are dropped; returns the dims'
        values ({dim_param: size}) and the inputs' sizes ({input: [sizes]})."""
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        graph = model.graph
        bindings, sizes = {}, {}
        keep = []
        for i, inp in enumerate(graph.input):
            if (value_kind(inp.type) == "tensor" and inp.type.tensor_type.elem_type in (6, 7)):
                file = os.path.join(self.input_data, f"input_{i}.pb")
                if os.path.exists(file):
                    t = onnx.TensorProto()
                    with open(file, "rb") as f:
                        t.ParseFromString(f.read())
                    t.name = inp.name
                    graph.initializer.append(t)
                    continue
            keep.append(inp)
        del graph.input[:]
        graph.input.extend(keep)
        if symbolic:
            for inp in graph.input:
                if value_kind(inp.type) != "tensor":
                    continue
                dims = inp.type.tensor_type.shape.dim
                sizes[inp.name] = [d.dim_value for d in dims]
                stem = "".join(c if c.isalnum() else "_" for c in inp.name)
                for k, d in enumerate(dims):
                    if d.HasField("dim_value") and d.dim_value > 1:
                        name = f"{stem}_d{k}"
                        bindings[name] = d.dim_value
                        d.dim_param = name
            for out in graph.output:
                if value_kind(out.type) == "tensor":
                    out.type.tensor_type.ClearField("shape")
            del graph.value_info[:]
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        return bindings, sizes


def check_json(cli, path):
    """`symshape check --json` on the model: ("ok", values by node name), or a status
    ("crash", "fail") and its message."""
    try:
        proc = subprocess.run([cli, "check", "--json", path], capture_output=True, text=True,
                              timeout=CASE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return "crash", f"timed out after {CASE_TIMEOUT} s"
    if proc.returncode not in (0, 1, 2):
        return "crash", (f"exit code {proc.returncode}; stderr: "
                         f"{proc.stderr.strip()[-2000:]}")
    if proc.returncode == 2 and not proc.stdout.strip():
        return "fail", first_line(proc.stderr.replace("symshape: error: ", ""))
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return "crash", f"exit code {proc.returncode} without a JSON document: {proc.stderr!r}"
    if doc.get("status") != "ok":
        return "fail", first_line(doc.get("error") or doc.get("status", "?"))
    return "ok", {n["name"]: n["value"] for n in doc["nodes"]}


def run_case(cli, case, work_dir):
    """Runs symshape on the case; returns (status, message): "ok", "wrong" (a shape or dtype
    differs), "fail" (symshape reports an error) or "crash" (a crash or a timeout)."""
    path = os.path.join(work_dir, case.name + ".onnx")
    case.write_prepared(path)
    status, values = check_json(cli, path)
    if status != "ok":
        return status, values
    problems = []
    for name, dtype, dims in case.expected:
        got = values.get(name)
        if dims is None:
            problems.append(f"{name}: expected a non-tensor value")
            continue
        if not isinstance(got, dict) or "shape" not in got:
            problems.append(f"{name}: symshape gives {json.dumps(got)}, not a tensor")
            continue
        shape = [int(s) if s.lstrip("-").isdigit() else s for s in got["shape"]]
        if shape != dims:
            problems.append(f"{name}: shape {shape}, expected {dims}")
        elif dtype is not None and got.get("dtype") != dtype:
            problems.append(f"{name}: dtype {got.get('dtype')}, expected {dtype}")
    if problems:
        return "wrong", "; ".join(problems)
    return "ok", ""


def run_symbolic_case(cli, case, work_dir):
    """The case with symbolic input dims: every output's shape, evaluated at the case's sizes,
    must be the expected one. Status "rejected" when the guards (decided on symshape's default
    hints, not on the case's sizes) do not accept the case's sizes: then the comparison says
    nothing."""
    path = os.path.join(work_dir, case.name + ".sym.onnx")
    bindings, sizes = case.write_prepared(path, symbolic=True)
    status, values = check_json(cli, path)
    if status != "ok":
        return status, values
    text = " ".join(f"{k}={v}" for k, v in bindings.items())
    lines, expected = [], []
    for name, _, dims in case.expected:
        got = values.get(name)
        if dims is None or not isinstance(got, dict) or "shape" not in got:
            return "wrong", f"{name}: not a tensor"
        if len(got["shape"]) != len(dims):
            return "wrong", f"{name}: rank {len(got['shape'])}, expected {len(dims)}"
        lines += [f"{e}\t{text}" for e in got["shape"]]
        expected.append((name, got["shape"], dims))
    if lines:
        ev = subprocess.run([cli, "expr", "eval", "--batch", "-"], capture_output=True,
                            text=True, input="".join(l + "\n" for l in lines))
        answers = ev.stdout.splitlines()
        k = 0
        for name, shape, dims in expected:
            have = answers[k:k + len(shape)]
            k += len(shape)
            if have != [str(d) for d in dims]:
                problems = f"{name}: {shape} = {have} at {text}, expected {dims}"
                args = [cli, "check-inputs", path]
                for inp, s in sizes.items():
                    args += ["--size", f"{inp}=" + ",".join(str(v) for v in s)]
                guards = subprocess.run(args, capture_output=True, text=True)
                if guards.returncode == 1 and guards.stdout.startswith("rejected"):
                    return "rejected", first_line(guards.stdout)
                return "wrong", problems
    return "ok", ""


def first_line(text):
    text = text.strip()
    line = text.splitlines()[0] if text else "(no message)"
    return line if len(line) <= 200 else line[:197] + "..."


# ---- the expected failures ----

def read_expected(path=EXPECTED_FILE):
    """{case: reason} from the file (missing file: none)."""
    expected = {}
    if not os.path.exists(path):
        return expected
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, reason = line.partition(" ")
            expected[name] = reason.strip()
    return expected


def write_expected(failures, cases, old, path=EXPECTED_FILE):
    """Writes one line per failing case: a reason kept from the old list unless it was made up
    from an error message, else the structural reason, else symshape's message."""
    lines = [
        "# ONNX backend node tests that `symshape check` does not get right yet, one per line:",
        "# the case, then why. tests/python/test_onnx_node.py fails on any other failing case.",
        "# Regenerate: /usr/bin/python3 tests/python/test_onnx_node.py --update-expected",
        "# (a reason not starting with 'fails:' or 'wrong:' is kept while the case still fails).",
    ]
    for name in sorted(failures):
        status, message = failures[name]
        reason = old.get(name, "")
        if not reason or reason.startswith(("fails:", "wrong:")):
            reason = cases[name].reason or (
                ("wrong: " if status == "wrong" else "fails: ") + message)
        lines.append(f"{name} [{cases[name].op}] {reason}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def strip_op(reason):
    """A reason without its leading `[Op]`."""
    if reason.startswith("[") and "] " in reason:
        return reason.split("] ", 1)[1]
    return reason


# ---- running them all ----

def run_all(cli, only=None, jobs=None, verbose=False, symbolic=False):
    """Generates the cases and runs symshape on each; returns (cases, results, seconds), results
    mapping a case to (status, message), status one of ok, fail, wrong, crash."""
    tmp = tempfile.mkdtemp(prefix="symshape-onnx-node-")
    try:
        start = time.monotonic()
        dirs = generate_cases(os.path.join(tmp, "gen"))
        if only:
            dirs = {n: d for n, d in dirs.items() if n in only}
        cases = {name: Case(name, d) for name, d in dirs.items()}
        for name, case in cases.items():
            base = cases.get(name[:-len("_expanded")]) if name.endswith("_expanded") else None
            if base is not None:
                case.op = base.op + " (expanded)"
        work = os.path.join(tmp, "models")
        os.makedirs(work)
        generated = time.monotonic()
        results = {}
        jobs = jobs or max(2, os.cpu_count() or 2)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            run = run_symbolic_case if symbolic else run_case
            futures = {pool.submit(run, cli, c, work): n for n, c in cases.items()}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
        if verbose:
            for name in sorted(results):
                status, message = results[name]
                print(f"{name} [{cases[name].op}]: {status} {message}")
        seconds = (generated - start, time.monotonic() - generated)
        return cases, results, seconds
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def summary_by_op(cases, failures):
    """`Op: failing/total` lines for the ops with failures, most failures first."""
    total = collections.Counter(c.op for c in cases.values())
    failing = collections.Counter(cases[n].op for n in failures)
    rows = sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"  {op}: {count}/{total[op]}" for op, count in rows]


def default_cli():
    if os.environ.get("SYMSHAPE_CLI"):
        return os.environ["SYMSHAPE_CLI"]
    root = os.environ.get("SYMSHAPE_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
    return os.path.join(root, "build", "bin", "symshape")


class OnnxNodeTest(unittest.TestCase):
    def test_node_cases(self):
        if IMPORT_ERROR is not None:
            if os.environ.get("CI"):
                self.fail(f"CI is set but onnx cannot be imported: {IMPORT_ERROR}")
            self.skipTest(f"onnx cannot be imported ({IMPORT_ERROR}); install python3-onnx")
        cli = default_cli()
        if not os.path.exists(cli):
            self.skipTest(f"no symshape CLI at {cli} (set SYMSHAPE_CLI)")
        expected = read_expected()
        cases, results, (gen_s, run_s) = run_all(cli)
        self.assertGreater(len(cases), 500, "the generators made fewer cases than expected")
        passed = sorted(n for n, (s, _) in results.items() if s == "ok")
        crashed = sorted(n for n, (s, _) in results.items() if s == "crash")
        failed = sorted(n for n, (s, _) in results.items() if s in ("fail", "wrong"))
        unexpected = [n for n in failed if n not in expected]
        fixed = [n for n in passed if n in expected]
        print(f"\nONNX node tests: {len(passed)}/{len(cases)} pass, {len(failed)} fail "
              f"({len(failed) - len(unexpected)} expected), {len(crashed)} crash; generated in "
              f"{gen_s:.1f} s, checked in {run_s:.1f} s", file=sys.stderr)
        if fixed:
            print(f"{len(fixed)} cases listed as expected failures now pass (delete their lines "
                  f"from {os.path.basename(EXPECTED_FILE)}): {' '.join(fixed)}", file=sys.stderr)
        stale = sorted(set(expected) - set(cases))
        if stale:
            print(f"listed cases that no longer exist: {' '.join(stale)}", file=sys.stderr)
        report = [f"{n} [{cases[n].op}]: {results[n][0]}: {results[n][1]}"
                  for n in crashed + unexpected]
        self.assertFalse(report, "cases crashed or failed unexpectedly (a crash is never "
                         "expected; a new failure goes into "
                         f"{os.path.basename(EXPECTED_FILE)} with its reason, via "
                         "--update-expected):\n" + "\n".join(report))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update-expected", action="store_true",
                        help=f"rewrite {os.path.basename(EXPECTED_FILE)} from this run")
    parser.add_argument("--cli", default=None, help="the symshape binary (default: "
                        "$SYMSHAPE_CLI, else build/bin/symshape)")
    parser.add_argument("--only", nargs="*", help="run only these cases")
    parser.add_argument("--verbose", action="store_true", help="print every case's result")
    parser.add_argument("-j", "--jobs", type=int, default=None)
    parser.add_argument("--symbolic", action="store_true", help="a report, not a test: every "
                        "input dim above 1 a dim_param, the outputs' expressions evaluated at "
                        "the case's sizes")
    args, rest = parser.parse_known_args()
    if args.symbolic:
        if IMPORT_ERROR is not None:
            sys.exit(f"onnx cannot be imported: {IMPORT_ERROR}")
        cases, results, (gen_s, run_s) = run_all(args.cli or default_cli(), only=args.only,
                                                 jobs=args.jobs, verbose=args.verbose,
                                                 symbolic=True)
        counts = collections.Counter(s for s, _ in results.values())
        print(f"symbolic dims: {counts['ok']}/{len(cases)} ok, {counts['rejected']} rejected by "
              f"the guards (decided on default hints), {counts['fail']} fail, {counts['wrong']} "
              f"wrong, {counts['crash']} crash; checked in {run_s:.1f} s")
        plain = read_expected()
        bad = {n: r for n, r in results.items() if r[0] in ("fail", "wrong", "crash")
               and n not in plain}
        print(f"failing with symbolic dims but passing with constant ones ({len(bad)}), per op:")
        print("\n".join(summary_by_op(cases, bad)))
        for n in sorted(bad):
            print(f"  {n} [{cases[n].op}]: {bad[n][0]}: {bad[n][1]}")
        return
    if not args.update_expected and not args.only and not args.verbose:
        if args.cli:
            os.environ["SYMSHAPE_CLI"] = args.cli
        unittest.main(argv=[sys.argv[0]] + rest)
        return
    if IMPORT_ERROR is not None:
        sys.exit(f"onnx cannot be imported: {IMPORT_ERROR}")
    cli = args.cli or default_cli()
    cases, results, (gen_s, run_s) = run_all(cli, only=args.only, jobs=args.jobs,
                                             verbose=args.verbose)
    failures = {n: r for n, r in results.items() if r[0] != "ok"}
    crashed = sorted(n for n, (s, _) in failures.items() if s == "crash")
    print(f"{len(cases) - len(failures)}/{len(cases)} pass; generated in {gen_s:.1f} s, checked "
          f"in {run_s:.1f} s")
    if args.update_expected:
        if args.only:
            sys.exit("--update-expected needs every case (drop --only)")
        old = {n: strip_op(r) for n, r in read_expected().items()}
        write_expected({n: r for n, r in failures.items() if r[0] != "crash"}, cases, old)
        print(f"wrote {len(failures) - len(crashed)} expected failures to {EXPECTED_FILE}")
        print("failures per op (failing/cases):")
        print("\n".join(summary_by_op(cases, failures)))
    if crashed:
        print(f"{len(crashed)} cases CRASHED (never expected; fix them):")
        for n in crashed:
            print(f"  {n} [{cases[n].op}]: {failures[n][1]}")
        sys.exit(1)


if __name__ == "__main__":
    main()
