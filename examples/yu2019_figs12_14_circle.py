"""Yu & Chen 2019, Figs. 12-14 (case 2): the two-link flexible arm tracking a circle.

The arm of Yu's Table 2 by assumed modes (two sine modes per link) under a joint PD
(kp 125, kd 25) tracking the circle x = 0.67 + 0.1 cos(0.2 pi t), y = 0.34 + 0.1 sin(0.2
pi t): the joint angles against their set points (Fig. 12, ``joints.png``) and the tip
accelerations (Figs. 13-14, ``tip_acceleration.png``):
``elastodyn simulate arm-yu2019 --trajectory circle --controller pd``.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

duration = "0.05" if FAST else "10"                          # Yu: 10 s
rc = main(["simulate", "arm-yu2019", "--trajectory", "circle", "--controller", "pd",
           "--duration", duration, "--out", os.path.join(out, "yu2019-figs12-14")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
