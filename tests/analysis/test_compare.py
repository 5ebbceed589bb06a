"""``compare``: one robot through every formulation. The acceptance pairs must agree
where they are the same linear model (3-PRR by ffrf and NE-PVP with the same elements;
Yu's arm by assumed modes and NE-PVP with the same modes; Kuo's Delta by KED and NE-PVP,
no preload, same elements), and a different discretization must differ by its error
(which shrinks with the mesh); the command line and its refusals."""
import json

import numpy as np
import pytest

from elastodyn.analysis.compare import compare
from elastodyn.cli import main
from elastodyn.description.delta_tree import delta_tree
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.formulations.ked.model import KEDModel
from elastodyn.formulations.nepvp.model import NEPVPModel


def _json(capsys, args):
    rc = main(["compare"] + args + ["--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def _freqs(d, label):
    return np.asarray(d["frequencies_hz"])[:, d["variants"].index(label)]


def test_3prr_ffrf_and_nepvp_are_one_model(capsys):
    d = _json(capsys, ["3prr-rosyid2020", "--elements", "2", "--count", "6",
                       "--duration", "0"])
    assert d["variants"] == ["exact-2", "ffrf-fem-2", "ffrf-rr", "nepvp-2"]
    # the same cubic elements clamped at the joints, the same fitted density: eigen-
    # solver round-off (measured 1e-13)
    np.testing.assert_allclose(_freqs(d, "nepvp-2"), _freqs(d, "ffrf-fem-2"), rtol=1e-9)
    # Rayleigh-Ritz is one cubic per body: stiffer than 2 elements by its discretization
    # error (several %), never below the finer mesh (Rayleigh quotient)
    rr, fem = _freqs(d, "ffrf-rr"), _freqs(d, "ffrf-fem-2")
    assert np.all(rr >= fem * (1 - 1e-12)) and np.max(rr / fem - 1) > 0.02
    # against the geometrically exact reference (the same elements, the same density
    # at its Gauss points): FFRF's elements to round-off, Rayleigh-Ritz by its
    # discretization error, NE-PVP to round-off
    assert "round-off" in d["notes"][0] and "discretization error" in d["notes"][1]
    assert "round-off" in d["notes"][2]
    assert d["warnings"] == [] or all("static" not in w for w in d["warnings"])
    D = np.asarray([d["static_deflection"][v] for v in d["variants"]], dtype=float)
    # under gravity the platform sags: micrometres for these stiff links, every model
    assert np.all(np.abs(D[:, 1]) < 1e-4) and np.all(D[:, 1] < 0)
    assert "simulation" not in d


def test_rayleigh_ritz_and_finite_elements_converge_together(capsys):
    gaps = []
    for n in (1, 2, 4):
        d = _json(capsys, ["prrrp-briot2013", "--elements", str(n), "--count", "2",
                           "--duration", "0"])
        gaps.append(np.max(np.abs(_freqs(d, f"ffrf-fem-{n}") / _freqs(d, f"nepvp-{n}") - 1)))
        if n == 1:   # Rayleigh-Ritz is the one-element body
            np.testing.assert_allclose(_freqs(d, "ffrf-rr"), _freqs(d, "ffrf-fem-1"),
                                       rtol=1e-10)
    assert max(gaps) < 1e-9


def test_arm_amm_and_nepvp_modes_agree(capsys):
    d = _json(capsys, ["arm-yu2019", "--modes", "3", "--duration", "0"])
    np.testing.assert_allclose(_freqs(d, "nepvp-modes-3"), _freqs(d, "amm-3"), rtol=1e-9)
    f = np.asarray(d["frequencies_hz"])
    assert np.isnan(f[:, 0]).sum() == 0     # 2 links x 3 modes = 6 frequencies


def test_delta_ked_and_nepvp_agree_without_preload():
    kuo = flexible_delta_kuo2016()
    ked = KEDModel(kuo, elements=1, order="cubic", preload=True)
    nep = NEPVPModel(delta_tree(kuo, 1), {"elements": 1})
    q = ked.state(pose=np.array([0.1, 0.0, 0.5])).actuated
    r = compare([("ked-1", ked, "cubic FE x 1"), ("nepvp-1", nep, "cubic FE x 1")],
                lambda m: m.state(actuated=q), count=6, robot="delta-kuo2016")
    F = np.asarray(r["frequencies_hz"])
    np.testing.assert_allclose(F[:, 1], F[:, 0], rtol=1e-8)
    assert r.summary["max_relative_difference_nepvp-1"] < 1e-8
    # both sag under gravity by about 26 mm (Z down; Kuo's preset: 25.7 mm, issue 15)
    for v in ("ked-1", "nepvp-1"):
        assert 0.02 < r["static_deflection"][v][2] < 0.03, (v, r["static_deflection"])
    assert set(r.figures()) == {"compare"}


def test_a_disagreement_of_one_model_is_warned():
    """Two models declared the same discretization whose frequencies differ: warned."""
    from elastodyn.description.presets import get_preset
    from elastodyn.formulations.ffrf.model import FFRFModel
    rob = get_preset("prrrp-briot2013")
    a = FFRFModel(rob, {"elements": 1})
    b = FFRFModel(rob, {"elements": 2})
    r = compare([("a", a, "same"), ("b", b, "same")], lambda m: m.state(), count=2)
    assert any("should be the same linear model" in w for w in r.warnings)


@pytest.mark.parametrize("args, flag", [
    (["delta-asadi2020"], "ROBOT"),
    (["3prr-rosyid2020", "--modes", "3"], "--modes"),
    (["3prr-rosyid2020", "--count", "0"], "--count"),
    (["3prr-rosyid2020", "--elements", "0"], "--elements"),
    (["3prr-rosyid2020", "--actuated", "1"], "--actuated"),
    (["3prr-rosyid2020", "--move", "0"], "--move"),
    (["3prr-rosyid2020", "--duration", "-1"], "--duration"),
    (["3prr-rosyid2020", "--duration", "0.1", "--step", "0.05"], "--step"),
    (["3prr-rosyid2020", "--duration", "0", "--move", "0.01"], "--move"),
])
def test_bad_input(capsys, args, flag):
    rc = main(["compare"] + args)
    err = capsys.readouterr().err
    assert rc == 2 and flag in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_short_simulation_arm_models_agree_and_layout(tmp_path):
    """Yu's arm by assumed modes and by NE-PVP with the same modes, moved by the same
    rest-to-rest law: the same equations through the same integrator (DOP853 at rtol
    1e-9), so the runs agree far below its tolerance; the CSV has one row per mode (the
    per-variant static deflections and runs are JSON objects)."""
    assert main(["compare", "arm-yu2019", "--modes", "2", "--count", "4", "--duration",
                 "0.05", "--move", "0.05", "--out", str(tmp_path)]) == 0
    d = json.loads((tmp_path / "compare.json").read_text())
    sim = d["simulation"]
    # every formulation that takes the arm; the geometrically exact one (issue 31) is the
    # reference the others are measured against (first), at the same mesh
    assert d["variants"][0] == "exact-2"
    assert set(sim["variants"]) == {"amm-2", "nepvp-modes-2", "nepvp-fem-2", "exact-2"}
    a = np.asarray(sim["variants"]["amm-2"]["effort_elastic"])
    b = np.asarray(sim["variants"]["nepvp-modes-2"]["effort_elastic"])
    assert a.shape == (len(sim["time_s"]), 2) and np.abs(a).max() > 1e-3
    assert np.abs(a - b).max() < 1e-7 * np.abs(a).max()
    # the same mesh (2 cubic elements per link) in both frameworks: the same linear model
    # (frequencies to 1e-8), and the run differs by the small-rotation terms NE-PVP
    # leaves out and the two integrators (measured 1.0e-3 of the peak); another
    # discretization (2 modes against 2 elements): a larger difference (4.5e-3)
    assert d["summary"]["max_relative_difference_nepvp-fem-2"] < 1e-6
    fem = d["summary"]["simulation_relative_difference_nepvp-fem-2"]
    assert fem < 3e-3 < d["summary"]["simulation_relative_difference_amm-2"]
    rows = (tmp_path / "compare.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 4 and "static" not in rows[0]


def test_linear_ffrf_instability_is_detected():
    """The five-bar of Briot & Khalil hangs a 1 kg platform on two 4.5 g legs: the linear
    FFRF (no geometric stiffening, eqs. (36)-(38)) loses stability under that load (its
    tangent stiffness, through the closure, has a negative eigenvalue; the potential
    energy's Hessian, computed here independently by differences of the energy along the
    closure, says the same), where NE-PVP stays at rest. The 3-PRR's stiff links carry
    their loads: its tangent is the linear stiffness to 1e-4."""
    import scipy.linalg as sl
    from elastodyn.description.presets import get_preset
    from elastodyn.formulations.ffrf.model import FFRFModel
    m = FFRFModel(get_preset("prrrp-briot2013"), {"elements": 2})
    S = m.system
    q = m.tree.q_home
    lo_t, lo_k = m.tangent_stability(q)
    assert lo_k > 0 > lo_t
    assert "unstable" in m.stability_warning(q)
    # the energy Hessian along the closure (elastic + gravity), by differences
    na, ne = S.n_actuated, S.n_elastic
    s = S.actuated_coordinates(q)[0]
    e0 = q[S.el_index]

    def V(e):
        qq = S.close(q, s, e)
        _, U, Vg = S.energy(qq, np.zeros(S.n))
        return U + Vg
    h = 1e-5
    I = np.eye(ne) * h
    H = np.array([[(V(e0 + I[i] + I[j]) - V(e0 + I[i] - I[j]) - V(e0 - I[i] + I[j])
                    + V(e0 - I[i] - I[j])) / (4 * h * h) for j in range(ne)]
                  for i in range(ne)])
    Mr = S.reduced(q, np.zeros(na + ne))[0][na:, na:]
    lo_h = sl.eigh(0.5 * (H + H.T), Mr, eigvals_only=True)[0]
    # differences of the energy (1e-5 steps, O(h^2) and round-off 1e-16 / h^2 of 10 J)
    assert lo_h == pytest.approx(lo_t, rel=1e-3)
    prr = FFRFModel(get_preset("3prr-rosyid2020"), {"elements": 2})
    lo_t, lo_k = prr.tangent_stability(prr.tree.q_home)
    assert lo_t == pytest.approx(lo_k, rel=1e-4)
    assert prr.stability_warning(prr.tree.q_home) is None


@pytest.mark.slow        # ~70 s: the reference path is Radau on stiff equations in NumPy
def test_ffrf_motion_engine_against_the_contract_path():
    """The FFRF engine for prescribed motions (generalized-alpha on the partitioned
    equations, compiled kernel) against the generic path of the same model (Radau at rtol
    1e-9 on the contract's inverse dynamics, NumPy mass matrix and bias): the slider
    crank's crank moved 0.05 rad rest to rest in 2 ms. The elastic coordinates agree to
    the generalized-alpha error at a 1e-6 s step (second order; the axial element
    mode near 1e5 rad/s is resolved by 60 steps per period)."""
    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.description.presets import get_preset
    from elastodyn.formulations.ffrf.model import FFRFModel
    from elastodyn.trajectories.polynomial import RestToRest
    m = FFRFModel(get_preset("slider-crank-simeon"), {"shape": "sine", "modes": 2})
    a0 = np.asarray(m.home_actuated())
    traj = RestToRest(a0, a0 + 0.05, t0=0.0, tf=0.002, order=7, space="joint")
    ga = simulate_motion(m, traj, duration=0.002, step=1e-6, initial="zero")
    gen = simulate_motion(m, traj, duration=0.002, step=1e-6, initial="zero",
                          method="radau")
    E1, E2 = np.asarray(ga["elastic"]), np.asarray(gen["elastic"])
    assert ga.summary["integrator_step_s"] == pytest.approx(1e-6)
    assert np.abs(E1).max() > 1e-7
    assert np.abs(E1 - E2).max() < 2e-3 * np.abs(E2).max()


def test_ked_takes_a_joint_space_motion():
    """KED follows a platform path; a motion of the actuated angles becomes the platform
    path of the rigid motion (forward kinematics, Jacobian): the reference positions of
    the run are the forward kinematics of the angles, computed here independently, and
    the reference velocities their central differences in time."""
    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.trajectories.polynomial import RestToRest
    kuo = flexible_delta_kuo2016()
    ked = KEDModel(kuo, elements=1, order="cubic", preload=True)
    a0 = np.asarray(ked.state(pose=np.array([0.1, 0.0, 0.5])).actuated)
    traj = RestToRest(a0, a0 + 0.02, t0=0.0, tf=0.05, order=7, space="joint")
    r = simulate_motion(ked, traj, duration=0.05, step=5e-4)
    t = np.asarray(r["time_s"])
    rigid = np.asarray(r["rigid_ee_position_m"])  # KED's reference: the rigid platform
    fk = np.array([ked.kinematics.forward_kinematics(q)
                   for q in traj.evaluate(t).position])
    np.testing.assert_allclose(rigid, fk, atol=1e-12)
    h = 1e-6
    for k in (20, 50, 80):
        qp, qm = traj.evaluate(np.array([t[k] + h, t[k] - h])).position
        v = (ked.kinematics.forward_kinematics(qp) - ked.kinematics.forward_kinematics(qm)) / (2 * h)
        # central differences: O(h^2) with the path's third derivative (~1e2 m/s^3)
        np.testing.assert_allclose(np.asarray(r["reference_velocity_m_s"])[k], v, atol=1e-8)


def test_a_default_move_the_reference_cannot_run_is_quartered(monkeypatch):
    """A default --move too violent for the reference (its short run fails) is quartered
    until it runs, every model then runs that move and the result says so; a move the
    user gave is kept (the failure reported); short runs that disagree beyond a quarter
    of the peak are warned. The runs are stand-ins here (the logic, not a model):
    a reference that fails above 3 mm and runs whose elastic efforts scale with the
    move."""
    import elastodyn.analysis.compare as C
    from elastodyn.exceptions import ModelError

    class Stub:
        n_elastic, capabilities, formulation = 2, frozenset(), "stub"

    t = np.linspace(0, 0.1, 11)

    def short_run(model, state, simulation, robot):
        mv = simulation["move"]
        if model.label == "ref" and mv > 3e-3:
            raise ModelError("Newton did not converge")
        gain = 1.0 if model.label == "ref" else model.gain
        return t, gain * mv * np.ones((11, 1)), np.zeros((11, 3)), []

    monkeypatch.setattr(C, "_short_run", short_run)
    monkeypatch.setattr(C, "modes", lambda m, st, count, preload: {
        "frequencies_hz": [1.0, 2.0], "dof": 2})
    models = []
    for label, gain in (("ref", 1.0), ("close", 1.01), ("far", 2.0)):
        m = Stub()
        m.label, m.gain = label, gain
        models.append((label, m, "cubic FE x 2"))

    def state_of(m):
        from elastodyn.model import State
        return State.build(1, 2, actuated=[0.0])

    sim = {"duration": 0.1, "move": 0.02, "step": 0.01, "adapt": True}
    r = C.compare(models, state_of, count=2, static=False, simulation=sim)
    assert r.summary["simulation_move"] == pytest.approx(0.02 / 16)   # 0.02, 5e-3, 1.25e-3
    assert any("default move 0.02" in w for w in r.warnings)
    assert r.summary["simulation_relative_difference_close"] == pytest.approx(0.01)
    assert any(w.startswith("far's short simulation differs") for w in r.warnings)
    assert not any(w.startswith("close's short simulation") for w in r.warnings)
    r = C.compare(models, state_of, count=2, static=False,
                  simulation={**sim, "adapt": False})
    assert r.summary["simulation_move"] == 0.02
    assert any("ref: short simulation failed" in w for w in r.warnings)
