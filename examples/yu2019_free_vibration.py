"""Yu & Chen 2019, case 1: free vibration of the two-link arm released under gravity.

The PD holds the joints at 45 and -45 degrees and the undeformed arm is released: the
tip accelerations and their spectrum (``spectrum.png``), whose two peaks are compared
with the frequencies of the closed loop linearized at its equilibrium
(``summary.omega_spectrum_rad_s`` and ``omega_linearized_rad_s``):
``elastodyn simulate arm-yu2019 --scenario free-vibration``.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

duration = "0.2" if FAST else "10"                           # Yu: 10 s
rc = main(["simulate", "arm-yu2019", "--scenario", "free-vibration", "--duration", duration,
           "--out", os.path.join(out, "yu2019-free-vibration")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
