"""Command line (docs/cli/): the verbs on the papers' presets, each writing its output set.

``elastodyn robots``, ``beam-modes`` (Kuo's lower link as a clamped-free beam),
``modes`` and ``convergence`` of the flexible Delta (KED), ``torques`` of the rigid Delta
along Kuo's circle (Lagrange multipliers), ``generate`` of the five-bar's inverse model as
C, and ``compare`` (every flexible formulation on the five-bar), each through
:func:`elastodyn.cli.main`, the function behind the ``elastodyn`` command.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")


def run(*args: str) -> None:
    """Run one command; stop at the first failure with its exit code."""
    print("$ elastodyn", " ".join(args))
    rc = main(list(args))
    if rc:
        raise SystemExit(rc)


run("robots")
run("beam-modes", "--out", os.path.join(out, "beam-modes"))
run("modes", "delta-kuo2016", "--out", os.path.join(out, "modes"))
run("convergence", "delta-kuo2016", "--max-elements", "2" if FAST else "4", "--count", "4",
    "--out", os.path.join(out, "convergence"))
run("torques", "delta-kuo2016", "--out", os.path.join(out, "torques"))
run("generate", "prrrp-briot2013", "--lang", "c", "--out", os.path.join(out, "generate"))
run("compare", "prrrp-briot2013", *(["--elements", "1", "--duration", "0.02"] if FAST else []),
    "--out", os.path.join(out, "compare"))
print(f"outputs in {out}")
