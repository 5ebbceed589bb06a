"""Kuo 2016, Figs. 5-11: the flexible Delta's vibrations along the circle.

The KED simulation (Newmark, 1 ms step) of 5 periods of the 1 s circle of centre
(0, 0, 0.5) m and radius 0.1 m: the actuator torques (Fig. 5, ``torques.png``), the
position and attitude variations of the end-effector (Figs. 6-7,
``position_variation.png``, ``attitude_variation.png``) and the axial, torsional and
transverse displacements of the links at half length (Figs. 8-11, ``midspan.png``):
``elastodyn simulate delta-kuo2016 --trajectory circle``.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

# the quick run: a fifth of a period about the undeformed pose (Kuo's reference)
quick = ["--periods", "0.2", "--reference", "undeformed"] if FAST else ["--periods", "5"]
rc = main(["simulate", "delta-kuo2016", "--trajectory", "circle", *quick,
           "--out", os.path.join(out, "kuo2016-figs5-11")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
