"""Using the library (docs/library.rst): one model contract for every formulation.

Builds models from descriptions (``load_description``, ``build_model``) and asks them
what the contract offers: states by inverse kinematics or loop closure, the
linearization, the static deflection under gravity, the mass matrix and bias, inverse and
direct dynamics. The same arm by assumed modes and by NE-PVP gives the same mass matrix.
"""
import sys
import tempfile
from pathlib import Path

import numpy as np

from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-"))
out.mkdir(parents=True, exist_ok=True)
lines = []

# Delta: KED by default, the rigid models on the same description
spec = load_description("delta-kuo2016")            # a preset, or "robot.yaml"
ked = build_model(spec)                              # ked, elements=1, order="cubic"
st = ked.state(pose=[0.1, 0.0, 0.5])                 # inverse kinematics -> q1..q3
lin = ked.linearize(st)                              # M, C, K, F over the 36 elastic dof
sag = ked.static_deflection(st).elastic[:3]          # platform dX, dY, dZ [m]
lines.append(f"KED Delta: {lin.M.shape[0]} elastic dof, platform sag {sag * 1e3} mm")
rigid = build_model(spec, formulation="explicit")    # Asadi's explicit model
s = rigid.state(pose=[0.1, 0.0, 0.5], rates=[0.0, 0.6, 0.0])    # actuated rates [rad/s]
lines.append(f"explicit Delta: bias {rigid.bias(s)} N m, tau {rigid.inverse_dynamics(s).tau}")

# Tree: the five-bar by NE-PVP
fb = build_model(load_description("prrrp-briot2013"), elements=2)
st = fb.state(actuated=[0.0, 0.25])       # loop closure: st.passive, st.pose
eq = fb.static_deflection(st)             # the sag under gravity
eff = fb.inverse_dynamics(eq.with_(a=np.r_[1.0, 0.0, np.zeros(fb.n_elastic)]))
back = fb.direct_dynamics(eq, eff.tau)[:2]
lines.append(f"five-bar: slider forces {eff.tau} N give back accelerations {back} m/s^2")

# Arm: assumed modes, and the same arm by NE-PVP through the contract
spec = load_description("arm-yu2019")
amm = build_model(spec, modes=2, basis="clamped-free")
tree = build_model(spec, formulation="nepvp", modes=2, basis="clamped-free")
sa = amm.state(pose=[0.67, 0.44])                    # tip x, y [m], elbow down
sb = tree.state(actuated=sa.actuated)
diff = abs(amm.mass_matrix(sa) - tree.mass_matrix(sb)).max()
lines.append(f"arm: |M_amm - M_nepvp| = {diff:.1e}; gravity torques {amm.bias(sa)[:2]} N m")

(out / "contract.txt").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"outputs in {out}")
