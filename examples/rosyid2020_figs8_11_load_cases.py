"""Rosyid & El-Khasawneh 2020, Figs. 8-11: the flexible 3-PRR under slider forces.

The floating-frame model (finite-element bodies, ``--shape fem``; Rayleigh-Ritz with
``--shape rr``) of the 3-PRR under the section 8.2 forces (10, 2, 2) sin 20t N, the rigid
model alongside: the end-effector position and orientation (Figs. 8-9, ``pose.png``)
and their elastic part (Figs. 10-11, ``elastic.png``):
``elastodyn simulate 3prr-rosyid2020 --scenario sine``. The mechanism falls under
gravity towards a singular configuration near 0.39 s, where the run stops with a warning.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

duration = ["--duration", "0.05"] if FAST else []          # default: the paper's 4 s window
rc = main(["simulate", "3prr-rosyid2020", "--scenario", "sine", *duration,
           "--out", os.path.join(out, "rosyid2020-figs8-11")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
