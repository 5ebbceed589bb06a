"""Asadi & Heydari 2020, Fig. 4: the explicit rigid Delta model along the circle.

The actuator torques of Asadi's Delta along x = 0.25 cos t, y = 0.25 sin t at z = 0.45 m
from his explicit M, C, G, J (Fig. 4, ``torques.png``: ``elastodyn torques
delta-asadi2020``), then the same circle tracked by his joint PD (200, 10) and by
computed torque (``tracking.png``: ``elastodyn simulate delta-asadi2020``), and the model
as C code for a controller (``elastodyn generate delta-asadi2020 --lang c``).
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

window = ["--duration", "0.2"] if FAST else []              # default: one period, 2 pi s
rc = main(["torques", "delta-asadi2020", *window, "--out", os.path.join(out, "asadi2020-fig4")])
rc = rc or main(["simulate", "delta-asadi2020", *window,
                 "--out", os.path.join(out, "asadi2020-pd")])
rc = rc or main(["simulate", "delta-asadi2020", "--controller", "computed-torque", *window,
                 "--out", os.path.join(out, "asadi2020-computed-torque")])
rc = rc or main(["generate", "delta-asadi2020", "--lang", "c",
                 "--out", os.path.join(out, "asadi2020-code")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
