"""The KED Delta about its deflected equilibrium (reference="deflected", issue 15) against
the independent geometrically exact reference (tests/references/reference_delta_sagged.py, written
separately: nodal rotations, joints as nonlinear constraints with Lagrange multipliers,
exact Hessians by jets), the undeformed KED in the limit of no load, and its own
quasi-static limit along a motion."""
import warnings
from dataclasses import replace

import numpy as np
import pytest

import reference_delta_sagged as ref
from elastodyn.formulations.ked.simulation import ReferenceTrack, simulate_ked
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.description.materials import Section
from elastodyn.exceptions import InputError, ModelError
from elastodyn.formulations.ked.blocks import dense_leg_blocks
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.trajectories import Circle

ROBOT = flexible_delta_kuo2016()


def test_default_reference_and_refusals():
    """Deflected where a static equilibrium exists (cubic, locked, no mechanism), else
    undeformed; asking for the deflected reference where it cannot apply is refused."""
    assert KEDEngine(ROBOT).reference == "deflected"
    assert KEDEngine(ROBOT, order="quintic").reference == "undeformed"
    assert KEDEngine(ROBOT, preload=False).reference == "undeformed"
    assert KEDEngine(ROBOT, joint_d="spherical").reference == "undeformed"
    for kw in ({"order": "quintic"}, {"actuators": "free", "preload": False},
               {"joint_d": "spherical"}, {"preload": False}, {"reference": "sagged"}):
        with pytest.raises(InputError, match="reference|preload"):
            KEDEngine(ROBOT, **{"reference": "deflected", **kw})
    with pytest.raises(ModelError, match="undeformed"):
        m = KEDEngine(ROBOT, reference="undeformed")
        m.deflected_reference(m.motion(np.array([[0, 0, 0.5]])))


@pytest.mark.parametrize("X", [(0.0, 0.0, 0.5), (0.1, 0.05, 0.45)])
def test_frequencies_and_sag_match_the_geometrically_exact_reference(X):
    """Kuo's Delta (5 mm steel links, sag 25.5 mm): first eight frequencies and the
    platform's static displacement against the independent reference at the same mesh
    (4 elements per link). The two discretizations differ by O(h^2) (chord-based
    elongation, consistent gravity): 1e-4 measured at 4 elements (their extrapolations
    agree to 1e-6 on the first three modes); tolerance 3e-4 on frequencies whose
    undeformed-reference error is 4.5 %."""
    X = np.array(X)
    m = KEDEngine(ROBOT, elements=4)
    r = ref.sagged_delta(X, n_elements=4, count=8)
    np.testing.assert_allclose(m.modes(X, 8).frequencies_hz, r["frequency_hz"], rtol=3e-4)
    np.testing.assert_allclose(m.static_deflection(X)[:3], r["platform_displacement"],
                               rtol=1e-3, atol=2e-6)
    und = KEDEngine(ROBOT, elements=4, reference="undeformed").modes(X, 8).frequencies_hz
    assert np.max(np.abs(und / r["frequency_hz"] - 1)) > 0.03  # what the reference fixes


def test_another_section_and_a_stiff_robot():
    """A Delta with 6 x 4 mm links (another, non-square section) against the reference
    at 2 elements (discretizations differ by O(h^2): 1e-3); with links 1000 times
    stiffer the deflected and undeformed references agree (the sag is 1000 times
    smaller: frequency change O(sag) ~ 4e-5)."""
    X = np.array([0.05, -0.05, 0.5])
    sec = Section.rectangle(6e-3, 4e-3)
    m = KEDEngine(replace(ROBOT, section=sec), elements=2)
    r = ref.sagged_delta(X, n_elements=2, count=6, section=sec)
    np.testing.assert_allclose(m.modes(X, 6).frequencies_hz, r["frequency_hz"], rtol=1e-3)
    stiff = ROBOT.scaled_stiffness(1000.0)
    fd = KEDEngine(stiff).modes(X, 8).frequencies_hz
    fu = KEDEngine(stiff, reference="undeformed").modes(X, 8).frequencies_hz
    np.testing.assert_allclose(fd, fu, rtol=1e-4)


@pytest.mark.parametrize("joints", [("universal", "universal"), ("spherical", "clamped"),
                                    ("clamped", "spherical"), ("clamped", "universal")])
def test_reduces_to_the_undeformed_model_without_load(joints):
    """g = 0 at rest: reference zero, tangent = the KED's elastic stiffness and mass =
    the KED's mass (the exact configuration map is the KED's S maps to first order, for
    every joint that leaves no mechanism); Hessian by differences of complex-step
    gradients: 1e-8 of the largest entry."""
    r0 = replace(ROBOT, gravity=(0.0, 0.0, 0.0))
    for n in (1, 2):
        X = np.array([0.05, -0.02, 0.5])
        md = KEDEngine(r0, elements=n, joint_b=joints[0], joint_d=joints[1])
        st = md.deflected_reference(md.motion(X[None]))
        s = KEDEngine(r0, elements=n, joint_b=joints[0], joint_d=joints[1],
                          reference="undeformed").at_rest(X)
        assert np.abs(st.delta).max() < 1e-13  # Newton on a zero gradient: round-off
        K = dense_leg_blocks(st.K[0], md.leg_blocks, md.dof)
        M = dense_leg_blocks(st.M[0], md.leg_blocks, md.dof)
        np.testing.assert_allclose(K, s.K_el, atol=1e-8 * np.abs(s.K_el).max())
        np.testing.assert_allclose(M, s.M, atol=1e-14)


def test_frequency_change_is_of_first_order_in_gravity():
    """The change between the references is linear in g for the Delta (a closed chain
    whose frequencies depend on the pose at first order): halving g halves it."""
    X = np.array([0.0, 0.0, 0.5])
    d = []
    for g in (2.0, 1.0):
        rg = replace(ROBOT, gravity=(0.0, 0.0, g))
        fd = KEDEngine(rg).modes(X, 3).frequencies_hz
        fu = KEDEngine(rg, reference="undeformed").modes(X, 3).frequencies_hz
        d.append(fd[1] / fu[1] - 1)
    assert d[1] / d[0] == pytest.approx(0.5, rel=0.05)  # next order: sag / L ~ 0.5 %


def test_quasi_static_motion_follows_the_reference():
    """A slow circle (period 20 s, started from its static deflection): the response
    stays on the reference delta_s(t) (dynamic amplification ~ (T_1 / T)^2 ~ 1e-3 of the
    deflection's variation, and the start's small transient), and the track's splines
    (every 10 ms) equal exact solves (h^4 error, below the Hessian's round-off)."""
    circle = Circle((0.0, 0.0, 0.5), 0.1, period=20.0)
    m = KEDEngine(ROBOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = simulate_ked(m, circle, duration=0.5, step=2e-3)
    k = np.array([0, 60, 125, 250])
    smp = circle.evaluate(sim.time[k])
    exact = m.deflected_reference(m.motion(smp.position, smp.velocity, smp.acceleration))
    np.testing.assert_allclose(sim.delta[k, :3], exact.delta[:, :3], atol=2e-5)  # 1e-3 of sag
    smp = circle.evaluate(sim.time)
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    track = ReferenceTrack(m, mo, sim.time, 2e-3)
    F, K, M, _ = track.at(100, 110)
    d = track.delta_at(sim.time[100:110])
    ex = m.deflected_reference(mo, np.arange(100, 110))
    np.testing.assert_allclose(d, ex.delta, atol=1e-12)
    # F = K_T delta_s carries the Hessian's round-off (1e-9 of EA / l ~ 1e7 N/m) times
    # delta_s (0.03 m): ~4e-4 N on forces of 300 N
    np.testing.assert_allclose(F, ex.F, atol=3e-6 * np.abs(ex.F).max())
    # exact solves carry the Hessian's round-off, eps EA L / (l h) ~ 1e-9 of the largest
    np.testing.assert_allclose(K, ex.K, atol=1e-8 * np.abs(ex.K).max())
    np.testing.assert_allclose(M, ex.M, atol=1e-12)


def test_map_uses_the_deflected_reference():
    """The frequency map along Kuo's circle (6 poses; the ``map`` verb's generic map over
    the model's batched rest_matrices) gives the engine's own modes at each pose
    (batched, warm-started solves: Newton iterates within 1e-9 of the same solution, so
    tangents within ~1e-9 of the axial entries: 1e-8)."""
    from elastodyn.analysis.modes import frequency_map
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    model = build_model(load_description("delta-kuo2016"), "ked")
    assert model.ked.reference == "deflected"
    c = Circle.kuo2016()
    pts = c.evaluate(c.t_start + np.arange(6) / 6 * c.period).position
    fm = frequency_map(model, [model.state(pose=p) for p in pts], count=4)
    for p, om in zip(pts, fm["omega_rad_s"]):
        np.testing.assert_allclose(om, model.ked.modes(p, 4).omega_rad_s, rtol=1e-8)


def test_converged_frequencies_match_the_reference_to_round_off_of_the_extrapolation():
    """Both models converge as h^2 (the corotational elements): their Richardson
    extrapolations from 4 and 8 elements (this model) and 8 and 16 (the reference's
    extrapolated_delta) agree on the first three modes to 1e-5 (measured 1e-6; the
    remaining O(h^4) of the extrapolations) and on the next five to 2e-4 (measured
    1e-4, the platform's inertia that the reference turns with the platform)."""
    X = np.array([0.1, 0.05, 0.45])
    f4, f8 = (KEDEngine(ROBOT, elements=n).modes(X, 8).frequencies_hz for n in (4, 8))
    mine = f8 + (f8 - f4) / 3
    r = ref.extrapolated_delta(X)["frequency_hz"]
    np.testing.assert_allclose(mine[:3], r[:3], rtol=1e-5)
    np.testing.assert_allclose(mine[3:], r[3:], rtol=2e-4)


def test_full_speed_start_from_the_linear_models_rest_state():
    """Kuo's circle starts at full speed from the static deflection at rest. About the
    moving reference the linear model starts from its own state at rest (rest_start):
    at rest it is the exact equilibrium (one Newton step from it: round-off), and at full
    speed the start puts no spurious force in the equations: the first 10 ms of actuator
    torques agree with Kuo's undeformed model's to 2 % of the rigid torque (the
    references differ by O(sag); from the exact rest equilibrium instead, the chord
    shortening of the 0.017 rad tip rotation between the two references made a 600 N
    axial force and torques off by 3 N m)."""
    m = KEDEngine(ROBOT)
    X = np.array([0.1, 0.0, 0.5])
    st = m.deflected_reference(m.motion(X[None]))
    np.testing.assert_allclose(m.rest_start(X, st.delta[0], st.K[0]), st.delta[0],
                               atol=1e-12)
    out = {}
    for ref_ in ("undeformed", "deflected"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[ref_] = simulate_ked(KEDEngine(ROBOT, reference=ref_), Circle.kuo2016(),
                                     duration=0.01, step=1e-3)
    rigid = np.abs(out["undeformed"].rigid_torque).max()
    np.testing.assert_allclose(out["deflected"].torque, out["undeformed"].torque,
                               atol=0.02 * rigid)
