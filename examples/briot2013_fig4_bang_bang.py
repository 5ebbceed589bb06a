"""Briot & Khalil 2013, Fig. 4 (and Table II): the flexible five-bar on its bang-bang motion.

The PRRRP five-bar by NE-PVP (one element per beam): its natural frequencies with the
sliders locked at q1 = 0, q4 = 0.25 m (Table II, ``modes prrrp-briot2013 --actuated 0
0.25``), then the section V motion (``simulate prrrp-briot2013``): the sliders follow a
bang-bang profile to (0.1, 0.2) m in 0.75 s; ``simulation.png`` is Fig. 4 (the
end-effector velocity, flexible and rigid, their difference, the beams' deflections and
rotations).
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

rc = main(["modes", "prrrp-briot2013", "--actuated", "0", "0.25",
           "--out", os.path.join(out, "briot2013-table2")])
duration = "0.3" if FAST else "1"                            # Briot: 1 s window
rc = rc or main(["simulate", "prrrp-briot2013", "--duration", duration,
                 "--out", os.path.join(out, "briot2013-fig4")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
