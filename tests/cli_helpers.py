"""In-process runs of the command line for the tests (exit code, stdout, stderr lines)."""
from __future__ import annotations

import json

from elastodyn.cli import main


def run(capsys, argv):
    """(exit code, stdout, stderr lines) of one in-process run of ``elastodyn argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def run_json(capsys, argv):
    """The JSON document of a successful run (fails the test with stderr otherwise)."""
    code, out, err = run(capsys, argv)
    assert code == 0, err
    return json.loads(out)
