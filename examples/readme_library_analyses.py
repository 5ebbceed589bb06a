"""Using the library (docs/library.rst): the analyses as free functions over the contract.

``modes``, ``frequency_map`` and ``convergence`` of the flexible Delta, ``simulate_motion``
(KED on Kuo's pick-and-place; NE-PVP on Briot's bang-bang), ``torques`` of the rigid
Delta, ``simulate_controlled`` (the arm under a joint PD); each result saves its output
set (``Result.save``: JSON, CSV, figures, summary).
"""
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from elastodyn.analysis.modes import convergence, frequency_map, modes
from elastodyn.analysis.simulate import simulate_controlled, simulate_motion, torques
from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model
from elastodyn.trajectories import BangBang, Circle, InvertedU

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-"))

kuo = load_description("delta-kuo2016")
ked = build_model(kuo)
res = modes(ked, ked.state(pose=[0.1, 0.0, 0.5]), count=3)
print("Delta frequencies [Hz]:", res["frequencies_hz"])
res.save(out / "modes")
n_points = 6 if FAST else 36
circle = [ked.state(pose=[0.1 * np.cos(t), 0.1 * np.sin(t), 0.5])
          for t in np.linspace(0, 2 * np.pi, n_points, endpoint=False)]
fmap = frequency_map(ked, circle, count=2)
print("lowest along the circle [Hz]:", fmap.summary["min_frequencies_hz"])
fmap.save(out / "map")
conv = convergence(lambda n: build_model(kuo, elements=n),
                   lambda m: m.state(pose=[0.1, 0.0, 0.5]), max_n=2 if FAST else 3, count=2)
conv.save(out / "convergence")
sim = simulate_motion(ked, InvertedU.kuo2016(), step=1e-3,
                      duration=0.1 if FAST else None)   # KED Newmark; sim.warnings
sim.save(out / "pick", formats=("png",) if FAST else ("png", "svg"))
tq = torques(build_model(kuo, formulation="multipliers"), Circle.kuo2016(),
             duration=0.2 if FAST else None)
print("rigid Delta peak torques [N m]:", tq.summary["peak_torque_nm"])
fb = simulate_motion(build_model(load_description("prrrp-briot2013")), BangBang.briot2013(),
                     duration=0.2 if FAST else 1.0)
print("five-bar peak forces [N]:", fb.summary["peak_force_n"])
arm = simulate_controlled(build_model(load_description("arm-yu2019")), Circle.yu2019(),
                          {"kind": "pd", "kp": 125.0, "kd": 25.0},
                          duration=0.05 if FAST else 0.5, step=1e-3)
arm.save(out / "arm")
print(f"outputs in {out}")
