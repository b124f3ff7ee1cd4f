#!/usr/bin/env python3
"""Times guards printed by symshape's python printer, compiled once by CPython (issue 5, (b)).

This is how PyTorch ships guards: the guard strings joined with ` and ` into one
`lambda L: ...`, compiled once, then called on every invocation. The guards and input sizes
come from the benchmark program:

    SYMSHAPE_DUMP_GUARDS=guards.json build/bench_guards
    python3 bench/python_guards.py guards.json

`L` maps each input name to an object whose `.size()` returns its sizes, as a tensor does, so
that `L['x'].size()[0]` reads the way it does under PyTorch. Two stand-ins for a tensor:

- builtin: `.size` is a C-level bound method (`list.copy`), which returns a fresh list on each
  call, as `torch.Tensor.size` returns a fresh `torch.Size`; the closer one to PyTorch.
- py-method: `.size` is a method written in Python (one extra Python frame per read).

Prints, for each guard set and stand-in, the time per call of the compiled lambda and that time
divided by the number of guards (every guard holds, so every guard is evaluated). Figures:
docs/performance.md, "Guard checking".
"""

import argparse
import json
import statistics
import sys
import time
import timeit
import types


class PyTensor:
    """A tensor whose size() is a Python method."""

    __slots__ = ("_sizes",)

    def __init__(self, sizes):
        self._sizes = sizes

    def size(self):
        return self._sizes


def builtin_tensor(sizes):
    """A tensor whose size() is a C-level bound method returning a fresh list."""
    return types.SimpleNamespace(size=list(sizes).copy)


def compile_guards(lines):
    """One `lambda L: g1 and g2 and ...`, compiled once."""
    source = "lambda L: " + " and ".join("(" + line + ")" for line in lines)
    code = compile(source, "<guards>", "eval")
    return eval(code, {})  # noqa: S307 - our own printer's output


def time_call(fn, arg, min_time, repeats):
    """Median CPU seconds per call over `repeats` runs of at least `min_time` seconds each."""
    timer = timeit.Timer(lambda: fn(arg), timer=time.process_time)
    number, _ = timer.autorange()
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= min_time:
            break
        number *= 2
    runs = [elapsed / number] + [timer.timeit(number) / number for _ in range(repeats - 1)]
    return statistics.median(runs), runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("guards", help="the JSON written by SYMSHAPE_DUMP_GUARDS=... bench_guards")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds per repetition (default 0.5)")
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()

    with open(args.guards) as f:
        data = json.load(f)

    # The cost of calling an empty lambda, to separate the call from the guards.
    empty = eval(compile("lambda L: True", "<empty>", "eval"), {})
    empty_s, _ = time_call(empty, {}, args.min_time, args.repetitions)

    print(f"Python {sys.version.split()[0]}; CPU time, median of {args.repetitions} "
          f"repetitions of >= {args.min_time} s")
    print(f"empty lambda call: {empty_s * 1e9:.1f} ns")
    print(f"{'set':8} {'tensor':9} {'guards':>6} {'per call':>12} {'per guard':>10}  spread")
    for name, entry in data.items():
        lines = entry["guards"]
        fn = compile_guards(lines)
        for kind, make in (("builtin", builtin_tensor), ("py-method", PyTensor)):
            L = {inp: make(sizes) for inp, sizes in entry["inputs"].items()}
            if fn(L) is not True:
                # Find the culprit so that a printer bug is visible.
                for line in lines:
                    if not eval(compile(line, "<guard>", "eval"), {"L": L}):  # noqa: S307
                        sys.exit(f"guard fails on the dumped inputs: {line}")
                sys.exit("the guards do not evaluate to True")
            per_call, runs = time_call(fn, L, args.min_time, args.repetitions)
            spread = (max(runs) - min(runs)) / per_call * 100
            print(f"{name:8} {kind:9} {len(lines):6d} {per_call * 1e6:9.2f} us "
                  f"{per_call / len(lines) * 1e9:7.1f} ns  {spread:4.1f} %")


if __name__ == "__main__":
    main()
