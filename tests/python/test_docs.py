"""Runs every ```python block of docs/python.md, and the README's, in order (one namespace per
file, so that a block may use what an earlier one defined), from the source tree's root, and
docs/python.md's ```sh blocks with bash in a scratch directory. A
block's `# prints: TEXT` comments are checked, in order, against the lines it printed.

Blocks that import torch skip (with the rest of their file) when torch cannot be imported and the
environment variable CI is unset; with CI set, a missing torch is a failure.
"""
import contextlib
import io
import os
import pathlib
import re
import subprocess
import tempfile
import unittest

ROOT = pathlib.Path(os.environ.get("SYMSHAPE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))

try:
    import torch  # noqa: F401
    import torchvision  # noqa: F401
    TORCH_ERROR = None
except ImportError as e:  # pragma: no cover - depends on the machine
    TORCH_ERROR = e


def python_blocks(path, language="python"):
    """The ```python (or other language's) blocks of a markdown file, with their first line
    numbers."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if current is None and line.strip() == "```" + language:
            current, start = [], number + 1
        elif current is not None and line.strip() == "```":
            blocks.append((start, "\n".join(current) + "\n"))
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        raise AssertionError(f"{path}:{start}: unterminated ```{language} block")
    return blocks


def expected_prints(code):
    """The `# prints: TEXT` comments, in order."""
    return [m.group(1).strip() for m in re.finditer(r"#\s*prints:\s*(.*)$", code, re.M)]


class DocsTest(unittest.TestCase):
    def run_file(self, relative, min_blocks):
        path = ROOT / relative
        blocks = python_blocks(path)
        self.assertGreaterEqual(len(blocks), min_blocks, f"{relative} lost its examples")
        namespace = {"__name__": "__docs__"}
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            for start, code in blocks:
                if "torch" in code and TORCH_ERROR is not None:
                    if os.environ.get("CI"):
                        self.fail(f"CI is set but torch cannot be imported: {TORCH_ERROR}")
                    self.skipTest(f"{relative}:{start} needs torch ({TORCH_ERROR})")
                out = io.StringIO()
                with self.subTest(block=f"{relative}:{start}"), contextlib.redirect_stdout(out):
                    exec(compile(code, f"{relative}:{start}", "exec"), namespace)
                # The `# prints:` lines, in order, among the lines printed.
                printed = [line.strip() for line in out.getvalue().splitlines()]
                at = 0
                for text in expected_prints(code):
                    self.assertIn(text, printed[at:],
                                  f"{relative}:{start} should print {text!r} (in this order); "
                                  "it printed:\n" + out.getvalue())
                    at = printed.index(text, at) + 1
        finally:
            os.chdir(cwd)

    def test_python_md(self):
        self.run_file("docs/python.md", min_blocks=6)

    def test_python_md_shell(self):
        """The shell blocks, with build/python and build/bin/symshape the build tree's."""
        blocks = python_blocks(ROOT / "docs" / "python.md", "sh")
        self.assertGreaterEqual(len(blocks), 2)
        python_dir = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
        cli = os.environ.get("SYMSHAPE_CLI")
        if not python_dir or not cli:
            self.skipTest("needs PYTHONPATH (build/python) and SYMSHAPE_CLI, as ctest sets them")
        for start, code in blocks:
            if "torch" in code and TORCH_ERROR is not None:
                if os.environ.get("CI"):
                    self.fail(f"CI is set but torch cannot be imported: {TORCH_ERROR}")
                continue
            script = code.replace("build/python", python_dir).replace("build/bin/symshape", cli)
            with self.subTest(block=f"docs/python.md:{start}"), tempfile.TemporaryDirectory() as d:
                run = subprocess.run(["bash", "-e", "-c", script], cwd=d, capture_output=True,
                                     text=True, timeout=120)
                self.assertEqual(run.returncode, 0, f"docs/python.md:{start}:\n{script}\n"
                                 f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}")
                self.assertTrue(run.stdout.strip(), f"docs/python.md:{start} printed nothing")

    def test_readme(self):
        self.run_file("README.md", min_blocks=1)


if __name__ == "__main__":
    unittest.main()
