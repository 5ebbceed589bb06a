"""Using the library (docs/library.rst), lower-level modules: one beam's modes, the rigid
Delta's explicit and multiplier models, and Kuo's KED model used directly.

``beam_modes`` of Kuo's lower link (clamped-free, 8 spatial cubic elements: 11.64 Hz
twice), the rigid Delta's inverse kinematics, Asadi's explicit M, C, G, J and the
Lagrange-multiplier inverse dynamics, then ``KEDEngine`` (two elements per link): its
modes, static deflection and ``simulate_ked`` on the pick-and-place path.
"""
import os
import sys
import tempfile
from pathlib import Path

from elastodyn import STEEL, BeamElement, Link, Section, beam_modes
from elastodyn.formulations.ked.simulation import simulate_ked
from elastodyn.description.delta import delta_kuo2016
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.formulations import ExplicitDeltaEngine, MultiplierDeltaEngine
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.kinematics import DeltaKinematics
from elastodyn.trajectories import InvertedU

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-"))
out.mkdir(parents=True, exist_ok=True)
lines = []

link = Link(BeamElement(spatial=True, order="cubic"), length=0.6, n_elements=8,
            section=Section.rectangle(5e-3, 5e-3), material=STEEL, ends="clamped-free")
res = beam_modes(link, count=6)
lines.append(f"beam: {res.frequencies_hz} Hz, {res.kinds}")

robot = delta_kuo2016()
kin = DeltaKinematics(robot.geometry)
lines.append(f"Delta joints [rad]: {kin.inverse_kinematics([0.1, 0.0, 0.5])}")
M, C, G, J = ExplicitDeltaEngine(robot).matrices([0.1, 0.0, 0.5], [0.0, 0.6, 0.0])
lines.append(f"explicit M:\n{M}")
mult = MultiplierDeltaEngine(robot).inverse_dynamics([0.1, 0, 0.5], [0, 0.6, 0], [-0.4, 0, 0])
lines.append(f"multipliers: torque {mult.torque}, tension {mult.lower_link_tension}")

model = KEDEngine(flexible_delta_kuo2016(), elements=1 if FAST else 2, order="cubic")
lines.append(f"KED: {model.modes([0.1, 0.0, 0.5], count=8).frequencies_hz} Hz")
lines.append(f"KED static deflection: {model.static_deflection([0.1, 0.0, 0.5])[:6]}")
if not FAST:      # the whole 0.8 s pick-and-place (a few seconds)
    sim = simulate_ked(model, InvertedU.kuo2016(), step=1e-3)
    lines.append(f"KED pick-and-place: {sim.summary()}")

(out / "lower_level.txt").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"outputs in {out}")
