"""What a Python test does when a package it needs (torch, torchvision, onnx) or the CLI is
missing: under CI (the CI environment variable set, as .ci/run sets it) that is a failure,
because scripts/setup installs every package; for a user who built without them it is a skip
that says what to install."""

import os
import unittest


def require(import_error, packages, cli=None):
    """Call from setUpModule. `import_error` is the ImportError caught when the test module
    imported its packages (None when they imported); `packages` names them for the message;
    `cli`, when given, is the path of the symshape executable the test runs."""
    if import_error is not None:
        if os.environ.get("CI"):
            raise AssertionError(f"CI is set but {packages} cannot be imported: {import_error}")
        raise unittest.SkipTest(f"{packages} cannot be imported ({import_error}); install the "
                                "Debian packages scripts/setup lists (CI=1 makes this a failure)")
    if cli is not None and not os.path.exists(cli):
        raise unittest.SkipTest(f"no symshape CLI at {cli} (set SYMSHAPE_CLI)")
