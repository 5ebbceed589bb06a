"""Describing a robot (docs/describing-robots.rst): a Delta of your own and a tree robot.

Writes the documentation's two example YAML files (a Delta with aluminium lower links and
a gripper payload; one flexible link on a motor hub with a sensor and a gripper), then
runs ``elastodyn describe`` on a preset and ``modes``/``torques`` on the files, with a
``--set`` override: the same commands as the documentation's, on files written here.
"""
import os
import sys
import tempfile
from pathlib import Path

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-"))
out.mkdir(parents=True, exist_ok=True)

MY_DELTA = """\
# A Delta with light aluminium lower links and a gripper payload.
family: delta
name: my-delta
convention: kuo2016
gravity: [0.0, 0.0, 9.81]        # m/s^2, world Z points down
geometry:
  base_radius: 0.15              # m, O to the actuated joints A_i
  platform_radius: 0.04          # m, P to the platform joints
links:
  upper:
    length: 0.3
    section: {shape: rectangle, width: 0.012, height: 0.008}
    material: {E: 210.0e+9, G: 80.0e+9, rho: 7800.0}       # steel
  lower:
    length: 0.7
    section: {shape: circle, diameter: 0.008}
    material: {E: 70.0e+9, G: 26.0e+9, rho: 2700.0}       # aluminium
joints: {b: universal, d: universal}
platform:
  mass: 0.3
  inertia: [[4.0e-4, 0, 0], [0, 4.0e-4, 0], [0, 0, 7.0e-4]]   # kg m^2 about its centre of mass
payload:
  mass: 0.2
  com: [0.0, 0.0, 0.03]          # m from P (world axes)
motors:
  inertia: 2.0e-4                # kg m^2, reflected to the joint
  friction: {viscous: 0.01, coulomb: 0.05}
"""

SPINNING_LINK = """\
# One flexible link on a motor hub, spinning in the horizontal plane, with a sensor
# clamped at mid-length and a gripper at the tip.
family: tree
name: spinning-link
gravity: [0.0, 0.0, 0.0]
joints:
  - {name: hub, type: revolute, actuated: true}     # MDH row: all parameters 0
  - {name: tip, parent: hub, type: fixed, d: 0.5}   # the end of the beam (s = 0.5 m)
bodies:
  hub:
    beam:
      length: 0.5
      section: {shape: rectangle, width: 0.002, height: 0.02}   # bends in x-y
      material: {E: 70.0e+9, G: 26.0e+9, rho: 2700.0}
attachments:
  - {name: sensor, beam: hub, at: 0.25, mass: 0.05}
terminals: [tip]
platform:                       # carried by the tip: the gripper
  mass: 0.1
  inertia: [[0, 0, 0], [0, 0, 0], [0, 0, 1.0e-5]]
closure: [vx, vy, wz]
motors:
  hub: {inertia: 1.0e-3}
"""


def run(*args: str) -> None:
    """Run one command; stop at the first failure with its exit code."""
    print("$ elastodyn", " ".join(args))
    rc = main(list(args))
    if rc:
        raise SystemExit(rc)


delta, link = out / "my-delta.yaml", out / "spinning-link.yaml"
delta.write_text(MY_DELTA)
link.write_text(SPINNING_LINK)
run("describe", "delta-kuo2016", "--output", str(out / "kuo.yaml"))
run("modes", str(delta), "--at", "0", "0", "0.7", "--count", "6")       # 8.01, 8.01, 27.1 Hz
run("modes", str(delta), "--at", "0", "0", "0.7", "--count", "3",
    "--set", "links.lower.section.diameter=0.010", "--set", "payload.mass=0.5")
run("torques", str(delta), "--formulation", "explicit", "--trajectory", "circle",
    "--centre", "0", "0", "0.7", "--radius", "0.1", "--period", "0.5",
    "--out", str(out / "my-delta-torques"))
run("modes", str(link), "--elements", "2" if FAST else "4", "--count", "3")   # 2.19 Hz first
run("modes", str(link), "--speed", "10")                                      # stiffened: 2.37 Hz
print(f"outputs in {out}")
