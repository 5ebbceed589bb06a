"""A Delta robot with lumped rigid links (no sections), described only in a YAML file
written here from the numbers of Asadi & Heydari 2020's appendix, run through the
command line: its inverse dynamics (torques) and its closed-loop simulation under PD
control equal those of the preset delta-asadi2020 (built in code from the same
numbers), and modes, which needs flexible links, is refused in one line.

The file gives Asadi's leg position angles phi = pi, -pi/3, pi/3 as the radial angles
theta = phi + pi/2 of the schema, written as decimals: they differ from the preset's
computed phi + pi/2 in the last bit at most (1 ulp), so the results agree to round-off,
not bit for bit; the preset described by ``elastodyn describe`` (the same numbers,
bit for bit) gives the preset's results exactly.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from elastodyn.cli import main

ASADI = """\
# Asadi & Heydari 2020, appendix: r_b = r_a = 0.2 m, l_L = 0.2 m, r_L = 0.3933,
# m_L = 0.116 kg, I_L = 6.4345319e-4 kg m^2, l_K = 0.52 m, r_K = 0.5, intermediary leg
# pair M_K = 2 x 0.05788 kg, I_K = 5.74769459e-3 kg m^2, m_P = 1.055 kg,
# I_mo = 0.0465475 kg m^2; phi = pi, -pi/3, pi/3 (theta = phi + pi/2)
family: delta
name: asadi-by-hand
convention: asadi2020
gravity: [0, 0, 9.81]
geometry:
  base_radius: 0.2
  platform_radius: 0.2
  leg_angles: [4.71238898038469, 0.5235987755982988, 2.6179938779914944]
links:
  upper: {length: 0.2, mass: 0.116, com_ratio: 0.3933, inertia: 6.4345319e-4}
  lower: {length: 0.52, mass: 0.11576, com_ratio: 0.5, inertia: 5.74769459e-3}
platform: {mass: 1.055, thickness: 0.01}
motors: {inertia: 0.0465475}
"""

CIRCLE = ["--trajectory", "circle", "--centre", "0", "0", "0.45", "--radius", "0.25",
          "--period", repr(2 * math.pi)]



@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("delta")
    hand = d / "asadi.yaml"
    hand.write_text(ASADI)
    return d, hand


def run(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_json(argv, capsys):
    rc, out, err = run(argv, capsys)
    assert rc == 0, err
    return json.loads(out)


def test_the_file_is_the_preset_robot(files):
    """The rigid Delta of the file is the preset's: the same mass model (bit for bit:
    eq. 22 solved from the same numbers) and geometry (leg angles to 1 ulp)."""
    from elastodyn.description.convert import rigid_delta
    from elastodyn.description.delta import delta_asadi2020
    from elastodyn.description.files import load_description
    robot, preset = rigid_delta(load_description(files[1])), delta_asadi2020()
    assert robot.masses == preset.masses and robot.friction == preset.friction
    assert robot.gravity == preset.gravity
    g, h = robot.geometry, preset.geometry
    assert (g.base_radius, g.platform_radius, g.upper_length, g.lower_length,
            g.convention) == (h.base_radius, h.platform_radius, h.upper_length,
                              h.lower_length, h.convention)
    ga, ha = np.array(g.leg_angles), np.array(h.leg_angles)
    assert np.all(np.abs(ga - ha) <= np.spacing(ha))


def test_torques_equal_the_preset(files, capsys):
    """torques FILE along Asadi's circle (x = 0.25 cos t, y = 0.25 sin t, z = 0.45 m):
    the explicit rigid model (a file has no paper scenario: the circle is given); the
    preset along the same circle. Torques and joint angles agree to round-off (the leg
    angles' last bit: 1e-12 relative asserted, measured 9e-16); the preset written by
    describe gives the preset's numbers exactly."""
    d, hand = files
    step = ["--step", "0.05", "--json"]
    a = run_json(["torques", str(hand), *CIRCLE, *step], capsys)
    b = run_json(["torques", "delta-asadi2020", *CIRCLE, *step], capsys)
    assert a["formulation"] == b["formulation"] == "explicit" and a["robot"] == "asadi-by-hand"
    ta, tb = np.array(a["torque_nm"]), np.array(b["torque_nm"])
    assert ta.shape == (126, 3) and np.abs(tb).max() > 1.0
    np.testing.assert_allclose(ta, tb, rtol=0, atol=1e-12 * np.abs(tb).max())
    np.testing.assert_allclose(a["actuated"], b["actuated"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(a["ee_position_m"], b["ee_position_m"], rtol=0, atol=1e-15)
    described = d / "described.yaml"
    rc, text, err = run(["describe", "delta-asadi2020"], capsys)
    assert rc == 0, err
    described.write_text(text)
    c = run_json(["torques", str(described), *CIRCLE, *step], capsys)
    assert c["torque_nm"] == b["torque_nm"]


def test_pd_simulation_equals_the_preset(files, capsys):
    """simulate FILE --controller pd along the same circle for 2 s (the analysis's
    default gains, 200 N m/rad and 10 N m s/rad): the closed loop tracks (errors of a
    few mm, as the preset's) and its torques and positions equal the preset's run to
    1e-9 relative (the 1-ulp differences of the leg angles pass through an adaptive
    integration: measured 1.4e-13)."""
    d, hand = files
    opts = ["--controller", "pd", *CIRCLE, "--duration", "2", "--json"]
    a = run_json(["simulate", str(hand), *opts], capsys)
    b = run_json(["simulate", "delta-asadi2020", *opts], capsys)
    assert a["inputs"]["controller"] == "pd" and (a["inputs"]["kp"], a["inputs"]["kd"]) == (
        200.0, 10.0)
    assert 1e-4 < a["summary"]["max_position_error_m"] < 1e-2
    for key in ("torque_nm", "ee_position_m", "joint_error_rad", "position_error_m"):
        x, y = np.array(a[key]), np.array(b[key])
        assert x.shape == (201, 3)
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-9 * np.abs(y).max())


def test_modes_of_a_rigid_delta_is_refused_in_one_line(files, capsys):
    """No natural frequencies without flexible links: exit 2, one line naming ROBOT,
    that the robot is rigid and what to give; nothing on standard output."""
    rc, out, err = run(["modes", str(files[1])], capsys)
    lines = err.strip().splitlines()
    assert rc == 2 and out == "" and len(lines) == 1
    assert lines[0].startswith(f"elastodyn: error: invalid ROBOT: got '{files[1]}'")
    assert "rigid" in lines[0] and "section and material" in lines[0]
