"""What a new user hits in the first hour (issue 32), from Python: contradictory facts, dims
that do not exist, inverted ranges, SymInt arithmetic, reading ONNX, and symshape.fx on real
models (dynamic height and width, parameters apart from inputs, the tracer's limits).

Run by ctest (python_first_hour) with PYTHONPATH=build/python:
/usr/bin/python3 -m unittest test_first_hour
"""
import os
import pathlib
import unittest

import symshape
from symshape import Truth

ROOT = pathlib.Path(os.environ.get("SYMSHAPE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


class ContradictoryFactsTest(unittest.TestCase):
    """Facts no value satisfies are refused (ContradictoryFacts names them) rather than making
    every answer vacuous, in every entry point that takes facts or ranges."""

    def assertContradictory(self, f, *parts):
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            f()
        self.assertIsInstance(cm.exception, symshape.Error)
        for part in parts:
            self.assertIn(part, str(cm.exception))

    def test_prove_bounds_simplify_refuse_contradictory_facts(self):
        x = symshape.Expr.symbol("x")
        self.assertContradictory(lambda: symshape.prove("x > 100", ranges={"x": (5, 2)}),
                                 "contradictory facts", "[5, 2]", "x")
        self.assertContradictory(lambda: symshape.prove("x == 3", assume=["x < 1"]),
                                 "no value of x satisfies assume 'x < 1'",
                                 "default range [1, inf]")
        self.assertContradictory(lambda: symshape.prove("x < 0", assume=["x > y", "y > x"]),
                                 "no values of x, y satisfy assume 'x > y', 'y > x'")
        self.assertContradictory(lambda: symshape.simplify(x, ranges={"x": (5, 2)}), "x")
        self.assertContradictory(lambda: symshape.bounds(x, ranges={"x": (0, 9)},
                                                         assume=["x > 4", "x < 2"]),
                                 "'x > 4', 'x < 2' with its range")
        # Only the default range makes `x + y <= 1` impossible: the message says so.
        self.assertContradictory(lambda: symshape.bounds(x, assume=["x + y <= 1"]),
                                 "with x, y in the default range [1, inf]")
        # The same facts over all integers are consistent.
        self.assertEqual(symshape.bounds(x, ranges={"x": (None, None)}, assume=["x < 1"]),
                         (None, 0))
        self.assertIs(symshape.prove("x < 5", ranges={"x": (2, 4)}), Truth.TRUE)

    def test_facts_object_refuses_and_keeps_its_state(self):
        facts = symshape.Facts()
        facts.set_range("n", (1, 64))
        facts.assume("n % 8 == 0")
        with self.assertRaises(symshape.ContradictoryFacts):
            facts.set_range("m", (10, 4))
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            facts.assume("n > 64")
        self.assertIn("'n % 8 == 0', 'n > 64' with its range", str(cm.exception))
        facts.assume("a < b")
        with self.assertRaises(symshape.ContradictoryFacts):
            facts.assume("b < a")
        # The refused facts were not taken: the object answers as before them.
        self.assertIs(symshape.prove("(3*n) % 4 == 0", facts), Truth.TRUE)
        self.assertEqual(symshape.bounds(symshape.parse_expr("n // 8"), facts), (1, 8))
        # Keyword facts on top of a Facts object neither change it nor escape the check.
        with self.assertRaises(symshape.ContradictoryFacts):
            symshape.prove("n > 0", facts, assume=["n > 100"])
        self.assertEqual(facts.range_of("n"), (1, 64))

    def test_shape_env_refuses_contradictory_facts(self):
        env = symshape.ShapeEnv()
        with self.assertRaises(symshape.ContradictoryFacts) as cm:
            env.create_symbol(6, "L['x'].size()[0]", name="h", min=10, max=4)
        self.assertIn("'h'", str(cm.exception))
        self.assertIn("min=10, max=4", str(cm.exception))
        u = env.create_unbacked_symint()
        with self.assertRaises(symshape.ContradictoryFacts):
            env.constrain_range(u, 5, 2)
        with self.assertRaises(symshape.ContradictoryFacts):
            env.constrain_as_size(u, 9, 3)
        s = env.create_symbol(6, "L['y'].size()[0]")
        with self.assertRaises(symshape.ContradictoryFacts):
            with env.assume(s < 1):
                pass


class CheckDimsTest(unittest.TestCase):
    """check(graph, dims=...) refuses what the CLI's --dim refuses, with the same words."""

    def test_unknown_dim_and_inverted_range(self):
        graph = symshape.load_graph(str(ROOT / "examples/mlp.json"))
        with self.assertRaises(symshape.Error) as cm:
            symshape.check(graph, dims={"btch": (2, 8)})
        self.assertIn("dims['btch']: the graph has no dim 'btch' (did you mean 'batch'?)",
                      str(cm.exception))
        with self.assertRaises(symshape.Error) as cm:
            symshape.guards(graph, dims={"batch": (8, 2)})
        self.assertNotIn("fc_weight", str(cm.exception))
        self.assertIn("dims['batch']: bad range (8, 2): empty (min is greater than max)",
                      str(cm.exception))
        with self.assertRaises(symshape.Error):
            symshape.lower(graph, ["dce"], dims={"btch": (2, 8)})
        self.assertTrue(symshape.check(graph, dims={"batch": (2, 8)}).ok)


if __name__ == "__main__":
    unittest.main()
