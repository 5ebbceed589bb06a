"""KED flexible Delta in motion: loads against rigid dynamics, limits, solvers.

Independent references: the rigid-body inverse dynamics of the explicit model (Asadi) with
exact rod equivalents; the static deflection (quasi-static limit); linear elasticity
(deviations scale as 1/E); an adaptive Runge-Kutta solution of the same LTV system.
"""
import warnings
from dataclasses import replace

import numpy as np
import pytest

from elastodyn.formulations.ked.simulation import (KEDValidityWarning, rigid_torques,
                                               simulate_ked)
from elastodyn.description.delta import Friction
from elastodyn.description.flexible_delta import Payload, Platform, flexible_delta_kuo2016
from elastodyn.description.materials import STEEL, Material, Section
from elastodyn.exceptions import InputError
from elastodyn.formulations.ked.engine import KEDEngine
from elastodyn.formulations.ked.batch import KEDBatch
from elastodyn.trajectories import Circle, InvertedU

FRICTION = Friction(viscous=0.02, coulomb=0.05, static=0.08, stribeck_velocity=0.05,
                    smoothing_velocity=1e-2)


@pytest.fixture(scope="module")
def robot():
    return flexible_delta_kuo2016()


def _user_robot(robot, motor=True):
    """A user's Delta: 10 mm round aluminium upper links, 8 x 4 mm steel lower links, a
    general platform with an offset centre of mass, an offset payload with a full
    inertia tensor and (``motor``) geared motors with rotor inertia and friction."""
    return replace(robot, section=Section.circle(10e-3),
                   material=Material(E=70e9, G=26e9, rho=2700.0),
                   lower_section=Section.rectangle(8e-3, 4e-3), lower_material=STEEL,
                   platform=Platform.rigid(0.5, com=(0.0, 0.01, 0.02),
                                           inertia=((5e-4, 0, 1e-5), (0, 4e-4, 0),
                                                    (1e-5, 0, 6e-4))),
                   payload=Payload(0.3, (0.04, -0.02, 0.03),
                                   ((4e-4, 1e-5, -2e-5), (1e-5, 3e-4, 3e-5),
                                    (-2e-5, 3e-5, 5e-4))),
                   motor_inertia=2e-3 if motor else 0.0,
                   friction=FRICTION if motor else Friction())


def _no_torsional_inertia(robot):
    """The robot with a negligible polar moment: the rigid model has no torsional
    inertia of the links about their own axes."""
    su, sl = robot.link_sections
    return replace(robot, section=Section(su.area, su.iy, su.iz, su.j, ip=1e-30),
                   lower_section=Section(sl.area, sl.iy, sl.iz, sl.j, ip=1e-30))


@pytest.mark.parametrize("who", ["kuo", "user"])
@pytest.mark.parametrize("traj", ["circle", "inverted-u"])
def test_quasi_static_torques_equal_rigid_inverse_dynamics(robot, traj, who):
    """The actuator reactions of the rigid-motion loads carried quasi-statically by the
    structure are the rigid robot's inverse-dynamics torques (virtual work on the three
    mechanism freedoms), whatever the stiffness and the internal indeterminacy: an
    independent check of every load (distributed d'Alembert forces, gravity, platform)
    and of the S maps. Reference: Asadi's explicit model with the exact rod equivalents
    of the uniform links. Tolerance: linear solves of condition ~1e8, 1e-8 relative.
    (Valid when the rigid mechanism's motion is admissible in the elastic structure:
    universal joints at B and D, as in Kuo's section 2. A clamped joint forbids the
    relative rotation the rigid motion needs; the structure then shares the loads
    between the actuators and the clamps.) The user's robot (distinct link groups, offset
    platform and payload, motor inertia and friction) checks each group's loads, the
    carried mass (its offset moment does no work on the translating mechanism) and the
    motor terms, which the rigid model adds in its own way (Asadi eq. 24-26)."""
    rb = _no_torsional_inertia(robot if who == "kuo" else _user_robot(robot))
    m = KEDEngine(rb)
    tr = Circle.kuo2016() if traj == "circle" else InvertedU.kuo2016()
    t = np.array([0.05, 0.31, 0.57, 0.73])
    smp = tr.evaluate(t)
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    ref = rigid_torques(rb, smp.position, smp.velocity, smp.acceleration)
    for k in range(len(t)):
        _, _, tq = m.quasi_static(mo, k)
        np.testing.assert_allclose(tq, ref[k], rtol=1e-8, atol=1e-8 * np.abs(ref).max())


def test_newmark_and_runge_kutta_agree(robot):
    """Same LTV system, two integrators: Newmark (average acceleration, second order,
    dt = 2.5e-4 s: phase error (w dt)^2/12 ~ 1e-5 for the 20 Hz modes that carry the
    platform motion) against the adaptive Radau IIA Runge-Kutta method at rtol 1e-6,
    atol 1e-8 (1e-6 of the ~1 cm response; implicit: the kHz axial modes make explicit
    RK45 take ~1e-6 s steps). About the deflected equilibrium (the default): both on the
    same reference track. Measured agreement 4e-6 of the response range (over 0.1 s,
    Kuo's undeformed reference); asserted 1e-4."""
    m = KEDEngine(robot)
    tr = InvertedU.kuo2016()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KEDValidityWarning)
        a = simulate_ked(m, tr, duration=0.05, step=2.5e-4)
        b = simulate_ked(m, tr, duration=0.05, step=2.5e-4, method="radau", rtol=1e-6,
                         atol=1e-8)
    rng = np.ptp(a.position_variation, axis=0).max()
    assert np.abs(a.position_variation - b.position_variation).max() < 1e-4 * rng
    assert np.abs(a.torque - b.torque).max() < 1e-4 * np.abs(a.torque).max()


def test_slow_circle_follows_the_static_sag(robot):
    """Quasi-static limit: on a circle of period 40 s (excitation 0.025 Hz, 130 times below
    the first natural frequency) the elastic state is the static deflection of the
    current pose, to the dynamic amplification (f/f1)^2 ~ 1e-4 plus the small free
    vibration started by the constant-speed start (inertial load r w^2 / g ~ 2.5e-4)."""
    m = KEDEngine(robot)
    tr = Circle((0.0, 0.0, 0.5), 0.1, period=40.0)
    res = simulate_ked(m, tr, duration=2.0, step=1e-2)
    for k in (100, 200):
        ref = m.static_deflection(res.position[k])
        assert np.abs(res.delta[k, :6] - ref[:6]).max() < 2e-3 * np.abs(ref[:6]).max()
    assert res.validity_warning is None


def test_deviations_scale_as_compliance(robot):
    """Rigid limit: E, G -> s E, s G divides the deviations by about s (the elastic
    response is linear in 1/s, the geometric stiffness of the unchanged loads and the
    dynamic amplification change it by a few percent at these stiffnesses)."""
    tr = InvertedU.kuo2016()
    dev = {}
    for s in (100.0, 1000.0):
        m = KEDEngine(robot.scaled_stiffness(s))
        res = simulate_ked(m, tr, duration=0.8, step=1e-3)
        dev[s] = np.abs(res.position_variation).max()
    assert dev[1000.0] * 1000.0 == pytest.approx(dev[100.0] * 100.0, rel=0.1)


def test_validity_warning_on_pick_and_place(robot):
    """Kuo's 0.8 s pick-and-place excites the 3-4 Hz modes of the 5 mm links: the linear
    model leaves its small-deformation range and says so, naming the formulation that
    answers there (issue 31) and how to run it."""
    m = KEDEngine(robot)
    with pytest.warns(KEDValidityWarning, match="small-deformation"):
        res = simulate_ked(m, InvertedU.kuo2016(), duration=0.8, step=2e-3)
    assert res.validity_warning and res.max_rotation_rad > 0.1
    assert "--formulation exact" in res.validity_warning
    assert res.summary()["validity_warning"] == res.validity_warning


def test_reference_refined_where_the_loads_change_fast(robot, monkeypatch):
    """Kuo's inverted U with a ZV-shaped progress at its 3.3 Hz mode (40 m/s^2 peaks):
    between 10 ms reference solves the load changes by 10 %. The track refines itself
    there and the response equals the one with exact solves at every step (measured 0.6 %
    at this 2 ms step, 0.2 % at 1 ms: the estimate's h^4 scaling is only asymptotic on so
    fast a load; bound 1 %); with the refinement off the response diverges - and a response
    beyond a link length is refused by a ModelError, not returned as a number (it was a
    validity warning on 27 km)."""
    import elastodyn.formulations.ked.simulation as fd
    from elastodyn.exceptions import ModelError
    from elastodyn.trajectories.shaping import PathShaped, shaper
    m = KEDEngine(robot, reference="deflected")
    tr = PathShaped(InvertedU.kuo2016(), shaper("zv", 3.269), cycle_time=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KEDValidityWarning)
        adaptive = simulate_ked(m, tr, duration=0.45, step=2e-3)
        monkeypatch.setattr(fd, "REFERENCE_SPACING", 2e-3)        # a solve every step
        exact = simulate_ked(m, tr, duration=0.45, step=2e-3)
        peak = np.abs(exact.position_variation).max()
        assert np.abs(adaptive.position_variation - exact.position_variation).max() < \
            1e-2 * peak
        monkeypatch.setattr(fd, "REFERENCE_SPACING", 1e-2)
        monkeypatch.setattr(fd, "REFERENCE_REFINEMENTS", 0)
        with pytest.raises(ModelError, match="link lengths"):
            simulate_ked(m, tr, duration=0.6, step=2e-3)


def test_initial_conditions(robot):
    m = KEDEngine(robot)
    tr = InvertedU.kuo2016()
    st = simulate_ked(m, tr, duration=0.01, step=1e-3)
    np.testing.assert_allclose(st.delta[0], m.static_deflection(tr.evaluate(0.0).position[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KEDValidityWarning)
        z = simulate_ked(m, tr, duration=0.01, step=1e-3, initial="zero")
    assert np.all(z.delta[0] == 0.0)
    with pytest.raises(InputError, match="initial"):
        simulate_ked(m, tr, initial="rest")
    with pytest.raises(InputError, match="step"):
        simulate_ked(m, tr, duration=0.01, step=3e-3)


class _ExactReference:
    """The deflected reference solved at every sample (for KEDBatch)."""

    def __init__(self, model, mo):
        self.st = model.deflected_reference(mo)

    def at(self, k0, k1):
        s = self.st
        return (s.F[k0:k1], s.K[k0:k1], s.M[k0:k1],
                None if s.D is None else s.D[k0:k1])


def _batch(model, mo):
    ref = _ExactReference(model, mo) if model.reference == "deflected" else None
    return KEDBatch(model, mo, reference=ref)


# the two paths solve the deflected reference separately: their tangents are those of
# Newton iterates within 1e-9 (m, rad) of each other, plus the Hessian's round-off (1e-9
# of the largest, axial, entries ~1e7 N/m), and F = K_T delta_s multiplies those by
# delta_s (~0.03): 1e-6 of each quantity's largest entry (measured 1.6e-7 on F; a
# modelling difference shows at 1e-4 and above)
_TOL = {"undeformed": 1e-9, "deflected": 1e-6}


@pytest.mark.parametrize("joints,n,order", [(("universal", "universal"), 1, "cubic"),
                                            (("spherical", "clamped"), 2, "cubic"),
                                            (("spherical", "universal"), 2, "cubic"),
                                            (("clamped", "universal"), 2, "quintic")])
def test_batched_system_equals_reference_path(robot, joints, n, order):
    """Two code paths for the same equations: the batched evaluation (link matrices as
    coefficient combinations, S split into identity and end blocks, chunks of samples)
    against KEDEngine.system (one sample, dense S, products in the textbook form of
    Kuo eq. 44), about the deflected equilibrium where it applies (the default) and about
    the undeformed one. Round-off: 1e-9 of each matrix's largest entry (_TOL)."""
    m = KEDEngine(robot, elements=n, order=order, joint_b=joints[0], joint_d=joints[1],
                      rayleigh=(0.1, 1e-4))
    tr = InvertedU.kuo2016()
    smp = tr.evaluate(np.linspace(0.05, 0.75, 5))
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    b = _batch(m, mo)
    tol = _TOL[m.reference]
    Mb, Cb, Kb, Kelb, Fb = b.chunk(0, 5)
    rng = np.random.default_rng(7)
    for k in range(5):
        s = m.system(mo, k)
        for ref, got in ((s.M, Mb[k]), (s.C, Cb[k]), (s.K, Kb[k]), (s.K_el, Kelb[k]),
                         (s.F, Fb[k]), (s.end_force, b.end_force[k])):
            assert np.abs(ref - got).max() <= tol * np.abs(ref).max()
        d = rng.normal(size=(3, m.dof))
        ref = m.actuator_torques(mo, k, s.end_force, *d)
        got = b.actuator_torques(np.array([k]), d[0:1], d[1:2], d[2:3])[0]
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("joints,n,order", [(("universal", "universal"), 1, "cubic"),
                                            (("spherical", "universal"), 3, "cubic"),
                                            (("universal", "clamped"), 2, "quintic")])
def test_arrow_solve_equals_dense_solve(robot, joints, n, order):
    """KEDBatch.solve (leg blocks, Schur complement on the platform) against a dense LU
    of the assembled global matrix, for the Newmark matrix M + h C + h^2 K and for K_el
    (the quasi-static solve, used without mechanisms only: a spherical joint makes K_el
    singular and the quasi-static solve falls back to dense least squares). Both are
    backward-stable solves of systems with condition numbers below ~1e8 here: 1e-7
    relative."""
    m = KEDEngine(robot, elements=n, order=order, joint_b=joints[0], joint_d=joints[1])
    tr = InvertedU.kuo2016()
    smp = tr.evaluate(np.array([0.1, 0.3, 0.5]))
    b = _batch(m, m.motion(smp.position, smp.velocity, smp.acceleration))
    M, C, K, Kel, F = b.chunk_blocks(0, 3)
    rng = np.random.default_rng(3)
    for S in (M + 5e-4 * C + 2.5e-7 * K,) + ((Kel,) if not m.mechanisms else ()):
        r = rng.normal(size=F.shape)
        got = b.solve(S, r)
        ref = np.linalg.solve(b.dense(S), b.dense(r)[..., None])[..., 0]
        assert np.abs(got - ref).max() <= 1e-7 * np.abs(ref).max()
        # the block matrices act on global vectors gathered by blocks, platform rows summed
        y = b.matvec(S[0], ref[0][b.blocks])
        np.testing.assert_allclose(b.dense(y[None])[0], b.dense(r)[0],
                                   atol=1e-7 * np.abs(r).max())


def test_interpolated_end_forces_match_exact(robot):
    """The simulation takes the axial end forces from quasi-static solves every 5 ms and
    a cubic spline per smooth piece in between (the pick-and-place's septic segments
    are split at their knots, where higher derivatives jump): spline error h^4 f^(4)/384
    with h = 5 ms and forces varying over the 0.2 s segments, f^(4) ~ (2 pi / 0.2 s)^4 x
    3 N: ~5e-6 N, i.e. ~1e-6 relative (measured 3e-6); asserted 1e-5."""
    from elastodyn.formulations.ked.simulation import interpolated_end_forces
    from elastodyn.formulations.ked.batch import KEDBatch
    m = KEDEngine(robot)
    tr = InvertedU.kuo2016()
    time = np.arange(0, 801) * 1e-3
    smp = tr.evaluate(time)
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    exact = KEDBatch(m, mo).end_force
    interp = interpolated_end_forces(m, mo, time, 1e-3, tr.times)
    assert np.abs(interp - exact).max() < 1e-5 * np.abs(exact).max()


def test_fast_newmark_equals_library_newmark(robot):
    """The simulation's batched Newmark against the library's generic newmark() driven by
    the reference system() (exact end forces): same scheme, two code paths; they differ
    only by the end-force interpolation (1e-5 relative at most, above)."""
    from elastodyn.integrators import newmark
    m = KEDEngine(robot)
    tr = Circle.kuo2016()
    res = simulate_ked(m, tr, duration=0.1, step=1e-3)

    def system(t):
        smp = tr.evaluate(np.array([t]))
        s = m.system(m.motion(smp.position, smp.velocity, smp.acceleration), 0)
        return s.M, s.C, s.K, s.F

    ref = newmark(system, res.delta[0], np.zeros(m.dof), t_end=0.1, dt=1e-3)
    assert np.abs(ref.q - res.delta).max() < 1e-6 * np.abs(res.delta).max()


def test_motor_inertia_and_friction_add_exactly_to_the_torques(robot):
    """With locked actuators the motor does not enter the elastic system: the
    quasi-static, KED (reference and batched paths) and simulated torques of a robot with
    rotor inertia I_m and friction are those without, plus I_m qdd + friction(qd) of
    the rigid motion, qd and qdd from the inverse kinematics. The structural parts are
    computed by the same operations in both models: equal to round-off (1e-12 of the
    torques)."""
    m0 = KEDEngine(_user_robot(robot, motor=False))
    m1 = KEDEngine(_user_robot(robot))
    tr = InvertedU.kuo2016()
    t = np.array([0.0, 0.07, 0.31, 0.57, 0.73])
    smp = tr.evaluate(t)
    mo = m0.motion(smp.position, smp.velocity, smp.acceleration)
    extra = 2e-3 * mo.qdd + FRICTION.torque(mo.qd)
    assert np.abs(extra).max() > 1e-2  # a visible effect (rates up to ~3 rad/s)
    rng = np.random.default_rng(5)
    b0, b1 = KEDBatch(m0, mo), KEDBatch(m1, mo)
    scale = np.abs(b0.quasi_static()[2]).max()
    np.testing.assert_allclose(b1.quasi_static()[2] - b0.quasi_static()[2], extra,
                               atol=1e-12 * scale)
    for k in range(len(t)):
        _, e0, tq0 = m0.quasi_static(mo, k)
        _, e1, tq1 = m1.quasi_static(mo, k)
        np.testing.assert_array_equal(e1, e0)
        np.testing.assert_allclose(tq1 - tq0, extra[k], atol=1e-12 * scale)
        d = rng.normal(size=(3, m0.dof)) * 1e-3
        s = m0.system(mo, k)
        ref = m1.actuator_torques(mo, k, s.end_force, *d) - m0.actuator_torques(
            mo, k, s.end_force, *d)
        np.testing.assert_allclose(ref, extra[k], atol=1e-12 * scale)
        ks = np.array([k])
        got = (b1.actuator_torques(ks, d[0:1], d[1:2], d[2:3])
               - b0.actuator_torques(ks, d[0:1], d[1:2], d[2:3]))[0]
        np.testing.assert_allclose(got, extra[k], atol=1e-12 * scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KEDValidityWarning)
        r0 = simulate_ked(m0, tr, duration=0.2, step=1e-3)
        r1 = simulate_ked(m1, tr, duration=0.2, step=1e-3)
    np.testing.assert_array_equal(r1.delta, r0.delta)
    st = tr.evaluate(r0.time)
    ms = m0.motion(st.position, st.velocity, st.acceleration)
    extra = 2e-3 * ms.qdd + FRICTION.torque(ms.qd)
    scale = np.abs(r0.torque).max()
    np.testing.assert_allclose(r1.torque - r0.torque, extra, atol=1e-12 * scale)
    np.testing.assert_allclose(r1.rigid_torque - r0.rigid_torque, extra, atol=1e-9 * scale)


@pytest.mark.parametrize("joints,n,order,actuators",
                         [(("universal", "universal"), 1, "cubic", "locked"),
                          (("spherical", "clamped"), 2, "cubic", "locked"),
                          (("clamped", "universal"), 1, "quintic", "locked"),
                          (("universal", "universal"), 2, "cubic", "free")])
def test_batched_system_equals_reference_path_for_a_users_robot(robot, joints, n, order,
                                                                 actuators):
    """The user's robot (distinct link groups, offset platform and payload, motor
    inertia; friction only with locked actuators) through the two code paths of
    test_batched_system_equals_reference_path (_TOL of each matrix's largest entry)."""
    rb = _user_robot(robot)
    if actuators == "free":
        rb = replace(rb, friction=Friction())
    m = KEDEngine(rb, elements=n, order=order, joint_b=joints[0], joint_d=joints[1],
                      rayleigh=(0.1, 1e-4), actuators=actuators,
                      preload=actuators == "locked")
    smp = InvertedU.kuo2016().evaluate(np.linspace(0.05, 0.75, 4))
    mo = m.motion(smp.position, smp.velocity, smp.acceleration)
    b = _batch(m, mo)
    Mb, Cb, Kb, Kelb, Fb = b.chunk(0, 4)
    rng = np.random.default_rng(7)
    for k in range(4):
        s = m.system(mo, k)
        for ref, got in ((s.M, Mb[k]), (s.C, Cb[k]), (s.K, Kb[k]), (s.K_el, Kelb[k]),
                         (s.F, Fb[k])):
            assert np.abs(ref - got).max() <= _TOL[m.reference] * np.abs(ref).max()
        d = rng.normal(size=(3, m.dof))
        ref = m.actuator_torques(mo, k, s.end_force, *d)
        got = b.actuator_torques(np.array([k]), d[0:1], d[1:2], d[2:3])[0]
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


def test_users_robot_newmark_equals_library_newmark(robot):
    """The whole simulation of the user's robot (offset platform and payload in motion:
    d'Alembert moment c x m (g - X_ddot)) by the batched Newmark against the library's
    newmark() on the reference system() (same tolerance as for Kuo's robot below)."""
    from elastodyn.integrators import newmark
    m = KEDEngine(_user_robot(robot))
    tr = Circle.kuo2016()
    res = simulate_ked(m, tr, duration=0.1, step=1e-3)

    def system(t):
        smp = tr.evaluate(np.array([t]))
        s = m.system(m.motion(smp.position, smp.velocity, smp.acceleration), 0)
        return s.M, s.C, s.K, s.F

    ref = newmark(system, res.delta[0], np.zeros(m.dof), t_end=0.1, dt=1e-3)
    assert np.abs(ref.q - res.delta).max() < 1e-6 * np.abs(res.delta).max()
    # the payload's offset matters in motion: its rotation response differs from the
    # same mass at P by far more than that tolerance
    rc = replace(m.robot, payload=replace(m.robot.payload, com=(0.0, 0.0, 0.0)))
    res0 = simulate_ked(KEDEngine(rc), tr, duration=0.1, step=1e-3)
    assert np.abs(res0.delta[:, 3:6] - res.delta[:, 3:6]).max() > 1e-3 * np.abs(
        res.delta[:, 3:6]).max()
