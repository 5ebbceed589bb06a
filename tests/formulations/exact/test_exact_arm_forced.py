"""Force-driven runs of the geometrically exact arm (issue 31 item 2: ``simulate`` with
efforts on the actuators, ``--efforts``), against references independent of the model:

* the rigid counterpart against the rigid arm's Lagrange equations written in
  tests/references/reference_arm_lagrange.py (sympy, world positions; its theta rows at
  zero deflection are the rigid arm's), integrated by scipy's DOP853;
* the flexible arm tends to the rigid one as the links stiffen (its elastic response,
  quasi-static and vibratory, scales as 1 / EI);
* a Coulomb friction larger than the gravity torque holds the released arm: the smoothed
  law lets the joint creep at v_s atanh(tau_g / tau_c), nothing more.
"""
from __future__ import annotations


import numpy as np
from scipy.integrate import solve_ivp

from elastodyn.analysis.scenario import build_efforts
from elastodyn.analysis.simulate import simulate_efforts
from elastodyn.cli import main
from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model

FRICTIONLESS = ["links.0.coulomb=0", "links.0.viscous=0", "links.1.coulomb=0",
                "links.1.viscous=0"]
SINE = {"law": "sine", "amplitude": [2.0, 0.5], "angular_rate": 10.0}


def _arm(sets=()):
    return load_description("arm-yu2019", list(FRICTIONLESS) + list(sets))


def test_rigid_counterpart_equals_the_rigid_lagrange_arm():
    """Yu's arm with rigid links (uniform rods, the lumped masses at the link ends),
    released from the straight pose under gravity and sine torques. The reference is
    M(q) qdd + c(q, qd) = tau from reference_arm_lagrange at zero deflection (one mode
    per link, all held at zero), by DOP853 at rtol 1e-10. Generalized-alpha (rho_inf 1)
    is second order: over 0.3 s the joint angles agree to 2.06e-6, 5.15e-7 and 1.29e-7
    rad at 0.5, 0.25 and 0.125 ms (measured); bounds: 2e-6 at 0.25 ms and an error
    ratio of 3 to 5 from 0.5 ms (4 for second order)."""
    from reference_arm_lagrange import arm_lagrange
    spec = _arm()
    rig = build_model(spec, "exact", elements=2).rigid_counterpart()
    assert rig.n == 2 and rig.n_elastic == 0
    arm = rig.robot
    params = {"L": [lk.length for lk in arm.links], "m": [lk.mass for lk in arm.links],
              "EI": [lk.E * lk.I for lk in arm.links],
              "masses": [[(b[0], b[2], b[1]) for b in arm.link_bodies(i)] or [(0, 0, 0)]
                         for i in range(arm.n)],
              "g": arm.gravity}
    eff = build_efforts(SINE, 2)

    def rhs(t, y):
        th, thd = y[:2], y[2:]
        d = arm_lagrange(2, 1, params, [th[0], th[1], 0.0, 0.0], [thd[0], thd[1], 0.0, 0.0])
        # at zero deflection the motors' rows are the theta rows (B = I there)
        assert np.allclose(d["B"][:2], np.eye(2))
        return np.concatenate([thd, np.linalg.solve(d["M"][:2, :2],
                                                    np.asarray(eff(t)) - d["c"][:2])])

    times = np.linspace(0.0, 0.3, 31)
    ref = solve_ivp(rhs, (0, 0.3), np.zeros(4), method="DOP853", rtol=1e-10, atol=1e-12,
                    t_eval=times)
    err = [np.abs(rig.run_efforts(eff, times, step=h, rho_inf=1.0).q - ref.y[:2].T).max()
           for h in (5e-4, 2.5e-4)]
    assert err[1] < 2e-6 and 3.0 < err[0] / err[1] < 5.0
    assert np.abs(ref.y[:2, -1]).max() > 0.3          # a large motion: it fell


def test_flexible_arm_tends_to_the_rigid_one():
    """The elastic part of the end-effector's motion (flexible - rigid) scales as 1 / EI
    in the small-deformation range: the joints' viscous friction (15 and 2.4 N m s/rad)
    bends the links at their roots, and E x 10 -> E x 1000 gives 1/100 of the
    deviation (measured 8.10 mm -> 0.0807 mm: 0.00997; bounds a factor 2 either side,
    the vibration's phase shifting with the frequency)."""
    eff = build_efforts(SINE, 2)
    dev = []
    for k in (10.0, 1000.0):
        spec = load_description("arm-yu2019", ["links.0.coulomb=0", "links.1.coulomb=0"]
                                + [f"links.{i}.E={2.06e11 * k}" for i in (0, 1)])
        r = simulate_efforts(build_model(spec, "exact", elements=2), eff, duration=0.2,
                             output_step=1e-3, method="generalized-alpha")
        dev.append(r.summary["max_ee_deviation_m"])
    assert dev[0] > 1e-3
    assert dev[0] / 200 < dev[1] < dev[0] / 50


def test_coulomb_friction_holds_the_arm():
    """Coulomb torques of 64 and 32 N m at the joints (1 N m at the motors) against a
    gravity torque of about 20 and 2 N m: the released arm stays, its joints creeping at
    the smoothed law's v_s atanh(tau_g / tau_c) (v_s = 1e-3 rad/s: 0.3 mrad/s);
    without friction it falls by tenths of a radian in the same time."""
    spec = load_description("arm-yu2019", ["links.0.coulomb=1", "links.1.coulomb=1"])
    m = build_model(spec, "exact", elements=2)
    times = np.linspace(0.0, 0.2, 21)
    run = m.run_efforts(lambda t: np.zeros(2), times)
    tau_g = np.abs(m.rigid_counterpart().bias(m.rigid_counterpart().state()))
    creep = 1e-3 * np.arctanh(tau_g / np.array([64.0, 32.0]))
    assert np.all(np.abs(run.q[-1, :2]) <= 2 * creep * 0.2 + 1e-6)
    free = build_model(_arm(), "exact", elements=2).run_efforts(lambda t: np.zeros(2), times)
    assert abs(free.q[-1, 0]) > 0.1


def test_command_line_efforts(tmp_path, capsys):
    """``simulate ... --efforts``: the force-driven layout (time, poses flexible and
    rigid, elastic coordinates, joint positions, efforts); the careless inputs end in one
    line naming the option (exit 2)."""
    import json
    assert main(["simulate", "arm-yu2019", "--formulation", "exact", "--elements", "1",
                 "--efforts", "sine", "--amplitude", "2", "0.5", "--rate", "10",
                 "--duration", "0.05", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    q = doc                      # the quantities at the top level (docs/results.rst)
    assert np.shape(q["ee_position_m"]) == (51, 3) and np.shape(q["torque_nm"]) == (51, 2)
    assert np.shape(q["joint_positions_m"]) == (51, 6)
    assert doc["inputs"]["efforts"]["law"] == "sine"
    bad = [(["--amplitude", "2", "0.5"], "--amplitude"),
           (["--efforts", "sine", "--amplitude", "2", "0.5", "--rate", "10",
             "--trajectory", "circle"], "--trajectory"),
           (["--efforts", "pulse"], "--peak"),
           (["--efforts", "sine", "--amplitude", "1", "--rate", "10"], "--amplitude"),
           (["--efforts", "sine", "--peak", "1", "1"], "--peak")]
    for extra, flag in bad:
        rc = main(["simulate", "arm-yu2019", "--formulation", "exact", "--duration",
                   "0.01"] + extra)
        err = capsys.readouterr().err.strip().splitlines()
        assert rc == 2 and flag in err[-1] and len(err) == 1, (extra, err)
    rc = main(["simulate", "arm-yu2019", "--efforts", "sine", "--amplitude", "2", "0.5",
               "--rate", "10", "--duration", "0.01"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and "--formulation" in err[-1] and "amm" in err[-1]
