"""Rosyid & El-Khasawneh 2020, Figs. 12-14: sensitivity of the 3-PRR's end-effector pose.

The derivatives of the end-effector x, y and theta along the force-driven run with
respect to the links' Young's modulus E, density rho and section b, h, by forward
differences (the paper's method) and by the complex step (exact), on one time grid:
``sensitivity_x.png``, ``sensitivity_y.png``, ``sensitivity_theta.png`` (Figs. 12-14):
``elastodyn sensitivity 3prr-rosyid2020``.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

duration = ["--duration", "0.02", "--parameters", "E"] if FAST else []
rc = main(["sensitivity", "3prr-rosyid2020", *duration,
           "--out", os.path.join(out, "rosyid2020-figs12-14")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
