"""Force-driven runs of the geometrically exact Delta (issue 31 item 2: ``simulate
--efforts`` on every family), against references independent of the model:

* the rigid counterpart against the rigid Delta's Lagrange equations in task space
  (tests/references/reference_delta_lagrange.py: sympy, closed-form inverse kinematics,
  no elastodyn import), integrated by scipy's DOP853; its holding efforts against the
  same reference's J^T tau = G;
* held at its static equilibrium with no further effort, the flexible Delta stays there;
* the spatial midspan measure against the planar one (another code path) and a node at
  mid-length (exact).
"""
from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.analysis.scenario import build_efforts
from elastodyn.analysis.simulate import simulate_efforts
from elastodyn.description.files import load_description
from elastodyn.fem.corotational import chord_midspan_spatial
from elastodyn.fem.planar_corotational import chord_midspan
from elastodyn.formulations.registry import build_model

from cli_helpers import run

# a Delta unlike Kuo's: skewed legs, longer lower links of aluminium, a heavier platform
# with a motor rotor inertia (generality: our checks use robots we do not see)
OTHER = ["geometry.leg_angles.1=2.0", "geometry.leg_angles.2=4.3",
         "links.lower.length=0.7", "links.lower.material.E=7.0e10",
         "links.lower.material.G=2.6e10", "links.lower.material.rho=2700",
         "platform.mass=0.8", "motors.inertia=2e-4"]


def _reference():
    name = "reference_delta_lagrange"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).resolve().parents[2] / "references" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _params(robot) -> dict:
    """The reference's parameters of a FlexibleDelta with rigid links: the upper link a
    uniform rod (centre at mid-length, m L^2 / 12 about it), the lower link a uniform rod
    as three point masses m / 6, 2 m / 3, m / 6 at its ends and middle (the same mass,
    centre and second moment: the rod's kinetic energy exactly, its spin about its own
    axis aside, O((h / L)^2) of it)."""
    g = robot.geometry
    (su, sl), (mu, ml) = robot.link_sections, robot.link_materials
    m1 = mu.rho * su.area * g.upper_length
    m2 = ml.rho * sl.area * g.lower_length
    body = robot.carried_body
    assert np.allclose(body.com, 0.0), "the reference's platform is a point mass at X"
    return {"L1": g.upper_length, "L2": g.lower_length, "r_A": g.base_radius,
            "r_B": g.platform_radius, "theta": np.asarray(g.leg_angles, dtype=float),
            "g": np.asarray(robot.gravity, dtype=float), "m_P": body.mass,
            "I_mo": robot.motor_inertia, "m_L": m1, "r_L": 0.5,
            "I_L": m1 * g.upper_length ** 2 / 12, "m_C": m2 / 6, "m_A": m2 / 6,
            "m_K": 2 * m2 / 3, "r_K": 0.5}


@pytest.mark.parametrize("extra", [(), OTHER])
def test_rigid_counterpart_equals_the_rigid_lagrange_delta(extra):
    """The rigid counterpart, held at home and given a torque pulse on top of its
    holding efforts, against the reference's task-space Lagrange equations M Xdd + h + G
    = J^T tau (DOP853, rtol 1e-10). The holding efforts agree to the static solve
    (J^T tau = G: 1e-9 relative). The run: generalized-alpha (rho_inf 1), second order;
    the lower links' spin inertia, which the reference leaves out, is (h / L)^2 / 12 ~
    6e-6 of theirs. Measured over 0.25 s, platform position (a travel of 5-8 mm): Kuo's
    robot 7.4e-8 and 1.9e-8 m at 1 and 0.5 ms, the other 1.1e-7 and 2.8e-8 m: the error
    ratio 4.0 of a second-order method; bounds 1e-7 m at 0.5 ms and a ratio in (3, 5)."""
    ref = _reference()
    desc = load_description("delta-kuo2016", list(extra))
    rig = build_model(desc, "exact", elements=1).rigid_counterpart()
    assert rig.n == 3 and rig.n_elastic == 0
    p = _params(rig.robot)
    X0 = rig.pose_of(rig.state().q)
    assert np.allclose(ref.reference_positions(p, X0)["q"], rig.home_actuated(), atol=1e-12)
    # holding efforts: J^T tau = G at rest
    _, _, G, J = ref.reference_dynamics(p, X0, np.zeros(3))
    tau_hold = np.linalg.solve(np.asarray(J, float).T, np.asarray(G, float).reshape(3))
    st, tau = rig.held_start()
    np.testing.assert_allclose(tau, tau_hold, rtol=1e-9)
    pulse = build_efforts({"law": "pulse", "peak": [0.3, -0.2, 0.1], "peak_time": 0.05,
                           "end_time": 0.1}, 3)

    def rhs(t, y):
        X, Xd = y[:3], y[3:]
        M, h, G, J = (np.asarray(a, float) for a in ref.reference_dynamics(p, X, Xd))
        Q = J.T @ (tau_hold + np.asarray(pulse(t)))
        return np.concatenate([Xd, np.linalg.solve(M, Q - h.reshape(3) - G.reshape(3))])

    times = np.linspace(0.0, 0.25, 51)
    sol = solve_ivp(rhs, (0, 0.25), np.concatenate([X0, np.zeros(3)]), method="DOP853",
                    t_eval=times, rtol=1e-10, atol=1e-12)
    Xref = sol.y[:3].T
    assert np.abs(Xref - X0).max() > 5e-3     # a real motion (millimetres), not a rest
    errs = []
    for step in (1e-3, 5e-4):
        r = rig.run_efforts(pulse, times, step=step, rho_inf=1.0, hold=True)
        X = np.array([rig.pose_of(q) for q in r.q])
        errs.append(np.abs(X - Xref).max())
    assert errs[1] < 1e-7
    assert 3.0 < errs[0] / errs[1] < 5.0


def test_held_delta_stays_at_its_static_equilibrium_and_falls_unheld():
    """Held at the static equilibrium with no effort of its own, the flexible Delta
    (2 elements per link) stays: its platform moves by the Newton tolerance's order
    (1e-8 m per step, 1e-9 m measured), not the sag's (4e-4 m); the analysis reports the
    holding efforts. Unheld, the same run warns that gravity loads the actuators."""
    desc = load_description("delta-kuo2016", list(OTHER))
    m = build_model(desc, "exact", elements=2)
    zero = build_efforts({"law": "sine", "amplitude": [0.0, 0.0, 0.0],
                          "angular_rate": 10.0}, 3)
    res = simulate_efforts(m, zero, duration=0.04, output_step=2e-3, step=2e-3,
                           method="generalized-alpha", hold=True)
    q = res.quantities
    st, tau = m.held_start()
    sag = np.linalg.norm(st.pose - m.pose_of(m.state().q))
    assert sag > 1e-4
    drift = np.abs(q["ee_position_m"] - q["ee_position_m"][0]).max()
    assert drift < 1e-3 * sag
    np.testing.assert_allclose(res.summary["holding_efforts"], tau)
    assert "ee_angle_rad" not in q and res.summary["final_ee_angle_rad"] is None
    assert q["joint_positions_m"].shape[1] == 9 * 3
    assert len(res.columns["joint_positions_m"]) == 27
    assert not any("gravity loads" in w for w in res.warnings)
    unheld = simulate_efforts(m, zero, duration=0.004, output_step=2e-3, step=2e-3,
                              method="generalized-alpha")
    assert any("gravity loads the actuators" in w and "--initial static" in w
               for w in unheld.warnings)


def test_spatial_midspan_against_the_planar_measure_and_a_node():
    """A beam clamped at its root and bent in a plane, (u, v, r) at its nodes: the
    spatial measure (Hermite
    curve of the tangents) and the planar one (the element's Hermite cubic in its chord
    frame, linear in the end rotations) agree to second order in the rotations (here
    0.02 rad: 2 % of the deflection bounds it); with a node at mid-length both give its
    exact distance from the chord."""
    L = 0.8
    for k in (1, 3, 2, 4):
        s = np.linspace(0.0, L, k + 1)
        # clamped at the root (the planar measure's nodes are relative to it), bent,
        # its chord tilted
        w = 0.003 * (1.0 - np.cos(math.pi * s / L))
        r = np.arctan(0.003 * math.pi / L * np.sin(math.pi * s / L))
        planar = chord_midspan(s, np.column_stack([np.zeros(k), w[1:], r[1:]]))
        x = np.column_stack([s, w, np.zeros(k + 1)])
        t = np.column_stack([np.cos(r), np.sin(r), np.zeros(k + 1)])
        spatial = chord_midspan_spatial(s, x, t)
        assert spatial == pytest.approx(abs(planar), rel=0.02)
        if k % 2 == 0:
            # the node at L / 2: its distance from the chord through the end nodes
            c = x[-1] - x[0]
            d = x[k // 2] - x[0]
            exact = abs(c[0] * d[1] - c[1] * d[0]) / np.linalg.norm(c)
            assert spatial == pytest.approx(exact, rel=1e-12)


def test_cli_force_driven_delta_held_and_refusals(capsys, tmp_path):
    """The command line runs the exact Delta force-driven with ``--initial static``,
    writes the spatial layout, and refuses ``--initial static`` where it does not
    apply (a formulation without a held start, an unknown start) by name."""
    out = tmp_path / "o"
    rc, _, err = run(capsys, ["simulate", "delta-kuo2016", "--formulation", "exact",
                              "--elements", "1", "--efforts", "pulse", "--peak", "0.1",
                              "0.1", "0.1", "--peak-time", "0.004", "--end-time", "0.008",
                              "--duration", "0.01", "--step", "0.002", "--initial",
                              "static", "--out", str(out)])
    assert rc == 0, err
    header = (out / "simulation.csv").read_text().splitlines()[0].split(",")
    assert "ee_z_m" in header and "leg1.B_z_m" in header and "ee_angle_rad" not in header
    rc, _, err = run(capsys, ["simulate", "3prr-rosyid2020", "--efforts", "pulse",
                              "--peak", "1", "1", "1", "--initial", "static"])
    assert rc == 2 and len(err) == 1 and "--initial" in err[0] and "ffrf" in err[0]
    rc, _, err = run(capsys, ["simulate", "delta-kuo2016", "--efforts", "pulse",
                              "--peak", "1", "1", "1"])
    assert rc == 2 and len(err) == 1 and "exact" in err[0]


@pytest.mark.parametrize("robot, peaks", [("delta-kuo2016", ["1", "1", "1"]),
                                          ("arm-yu2019", ["1", "1"])])
def test_sensitivity_refuses_a_formulation_without_the_verb(capsys, robot, peaks):
    """``sensitivity`` (the beams' E, rho, b, h of a planar tree robot, FFRF) refuses
    the exact formulation by name, in one line (it answered with a traceback: the exact
    Delta and arm have force-driven runs, not the verb's parameters)."""
    rc, _, err = run(capsys, ["sensitivity", robot, "--formulation", "exact", "--efforts",
                              "pulse", "--peak", *peaks])
    assert rc == 2 and len(err) == 1 and "--formulation" in err[0] and "exact" in err[0]
