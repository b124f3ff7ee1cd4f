"""Runs every ```python block of docs/python.md, and the README's, in order (one namespace per
file, so that a block may use what an earlier one defined), from the source tree's root,
docs/python.md's ```sh blocks with bash in a scratch directory, and the C++ programs of
docs/library.md and the README against the build's library. A block's `# prints: TEXT` (C++:
`// prints: TEXT`) comments are checked, in order, against the lines it printed.

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


def expected_prints(code, comment="#"):
    """The `# prints: TEXT` (or `// prints: TEXT`) comments, in order."""
    pattern = re.escape(comment) + r"\s*prints:\s*(.*)$"
    return [m.group(1).strip() for m in re.finditer(pattern, code, re.M)]


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

    def test_cpp_programs(self):
        """The ```cpp blocks of docs/library.md and the README that are whole programs (they
        define main), compiled against the build tree's library and run from the source tree's
        root; their `// prints:` comments are checked as the Python blocks' are."""
        cxx, lib = os.environ.get("SYMSHAPE_CXX"), os.environ.get("SYMSHAPE_LIB")
        if not cxx or not lib:
            self.skipTest("needs SYMSHAPE_CXX and SYMSHAPE_LIB, as ctest sets them")
        link = subprocess.run(["pkg-config", "--cflags", "--libs", "ginac", "cln"],
                              capture_output=True, text=True, check=True).stdout.split()
        programs = 0
        for relative in ("docs/library.md", "README.md"):
            for start, code in python_blocks(ROOT / relative, "cpp"):
                if "int main(" not in code:
                    continue
                programs += 1
                where = f"{relative}:{start}"
                with self.subTest(block=where), tempfile.TemporaryDirectory() as d:
                    source, program = pathlib.Path(d) / "main.cc", pathlib.Path(d) / "main"
                    source.write_text(code)
                    built = subprocess.run(
                        [cxx, "-std=c++20", "-I", str(ROOT / "include"), str(source), lib, *link,
                         "-o", str(program)], capture_output=True, text=True, timeout=300)
                    self.assertEqual(built.returncode, 0, f"{where} does not compile:\n{built.stderr}")
                    run = subprocess.run([str(program)], cwd=ROOT, capture_output=True, text=True,
                                         timeout=120)
                    self.assertEqual(run.returncode, 0,
                                     f"{where} failed:\n{run.stdout}\n{run.stderr}")
                    printed = [line.strip() for line in run.stdout.splitlines()]
                    at = 0
                    for text in expected_prints(code, "//"):
                        self.assertIn(text, printed[at:], f"{where} should print {text!r} (in "
                                      "this order); it printed:\n" + run.stdout)
                        at = printed.index(text, at) + 1
        self.assertGreaterEqual(programs, 4, "docs/library.md lost its programs")


if __name__ == "__main__":
    unittest.main()
