"""Whole workspace and design sweeps (docs/cli/map.rst, docs/cli/sweep.rst): where the
Delta is softest, and what a design change does to its frequencies.

``elastodyn map delta-kuo2016 --workspace``: the lowest natural frequencies (modes tracked
from point to point) over a grid of the reachable workspace, here a slice z = 0.5 m;
``elastodyn sweep``: the frequencies at a pose against the lower links' section width.
Both on the serial scheduler here (``--scheduler local`` runs a Dask cluster).
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


run("map", "delta-kuo2016", "--workspace", "--plane", "z=0.5",
    "--grid", "4" if FAST else "20", "--reference", "undeformed", "--scheduler", "serial",
    "--out", os.path.join(out, "workspace"))
run("sweep", "delta-kuo2016", "--set",
    "links.lower.section.width=0.004:0.008:" + ("2" if FAST else "5"),
    "--count", "3", "--scheduler", "serial", "--out", os.path.join(out, "sweep"))
print(f"outputs in {out}")
