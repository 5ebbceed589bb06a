"""Kuo 2016, Figs. 12-16: the flexible Delta on the 0.8 s pick-and-place (inverted-U) path.

The motion (Fig. 12: position, velocity, acceleration, ``trajectory.png``), its path in
X, Y, Z (Fig. 13, ``path.png``), the actuator torques, flexible and rigid (Fig. 14,
``torques.png``), the position and attitude variations of the end-effector (Figs. 15-16)
by KED: ``elastodyn simulate delta-kuo2016 --trajectory inverted-u``, the main job of
``python3 dev.py run``. The run warns that this motion takes the linear model out of its
range (docs/theory/ked.rst, "Flexible Delta by KED").
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

# the quick run: about the undeformed pose (Kuo's reference; 3x faster than the deflected one)
quick = ["--reference", "undeformed"] if FAST else []
rc = main(["simulate", "delta-kuo2016", "--trajectory", "inverted-u", *quick,
           "--out", os.path.join(out, "kuo2016-figs12-16")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
