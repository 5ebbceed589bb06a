"""Checks of the independent rigid 3-PRR reference (tests/references/reference_rigid_3prr.py).

The reference is the oracle for the FFRF engine's rigid limit of Rosyid &
El-Khasawneh (2020), so it is checked here against things that do not share its code
paths: hand geometry, a sympy Lagrange derivation of the joint-coordinate equations,
energy conservation, a second integration without coordinate partitioning, the static
virtual-work forces, and inverse dynamics (other partition) of the forward solution.
"""
import numpy as np
import pytest
import scipy.integrate
import sympy as sp

import reference_rigid_3prr as ref

# instants before the first singularity of every load case (it is near 0.38-0.39 s)
EARLY = np.array([0.05, 0.1, 0.15, 0.2, 0.25, 0.3])

LOADS = {
    "sinusoid 10, 2, 2": (ref.sinusoid_forces((10.0, 2.0, 2.0)), ()),
    "sinusoid 10, -2, -2": (ref.sinusoid_forces((10.0, -2.0, -2.0)), ()),
    "pulse 10, -2, -2": (ref.pulse_forces((10.0, -2.0, -2.0)), ref.PULSE_BREAKPOINTS),
}


# ------------------------------------------------------------------ geometry
def test_initial_configuration_matches_hand_geometry():
    q = ref.initial_configuration()
    # by hand: D = (0, 0.4), E = (0.315, 0.4); leg 2 (0.5 m) spans 0.3 m in X
    # (3-4-5), leg 1 (0.486 m) spans sqrt(0.076196) = 0.276036 m, leg 3 (0.507 m)
    # sqrt(0.097049) = 0.311527 m.  Values rounded by hand to 1e-6 m.
    assert q[1] == pytest.approx(0.3, abs=1e-15)
    assert q[0] == pytest.approx(0.315 - 0.276036, abs=1e-6)
    assert q[2] == pytest.approx(0.315 + 0.311527, abs=1e-6)
    # leg 2 angle is that of (-0.3, 0.4) from +X: 180 - 53.130102 degrees
    assert np.degrees(q[4]) == pytest.approx(126.869898, abs=1e-6)
    assert np.degrees(q[3]) == pytest.approx(np.degrees(np.arctan2(0.4, 0.276036)),
                                             abs=1e-4)
    assert q[6] == 0.0
    joints = ref.joint_positions(q)
    np.testing.assert_allclose(joints["D"], [0.0, 0.4], atol=1e-15)
    np.testing.assert_allclose(joints["E"], [0.315, 0.4], atol=1e-15)
    # assembly mode: A left of E, B right of D, C right of E, legs 1 and 2 cross
    assert joints["A"][0] < joints["E"][0]
    assert joints["B"][0] > joints["D"][0]
    assert joints["C"][0] > joints["E"][0]
    A, E, B, D = joints["A"], joints["E"], joints["B"], joints["D"]
    # segments A-E and B-D intersect: solve A + a (E - A) = B + b (D - B)
    a, b = np.linalg.solve(np.column_stack([E - A, B - D]), B - A)
    assert 0.0 < a < 1.0 and 0.0 < b < 1.0


def test_closure_and_both_closed_forms_at_round_off():
    q = ref.initial_configuration()
    # positions are O(1 m) built from a few float operations: round-off is a few eps
    assert np.max(np.abs(ref.closure(q))) < 1e-15
    np.testing.assert_allclose(ref.passive_from_sliders(q[:3]), q[3:], atol=1e-14)
    np.testing.assert_allclose(ref.configuration_from_independent(q[list(ref.INDEPENDENT)]),
                               q, atol=1e-14)
    # singularity measure = sin(phi3 - phi1) sin(theta - phi2), as documented (the
    # identity holds for any q, on the closure or not)
    for q in [q, *np.random.default_rng(3).uniform(-np.pi, np.pi, (5, 7))]:
        assert ref.singularity_measure(q) == pytest.approx(
            np.sin(q[5] - q[3]) * np.sin(q[6] - q[4]), rel=1e-12, abs=1e-15)


def test_closure_jacobian_and_gamma_match_finite_differences(rng):
    for _ in range(3):
        q = ref.initial_configuration() + 0.1 * rng.standard_normal(7)
        qd = rng.standard_normal(7)
        h = 1e-6
        # central differences: truncation h^2 |Phi'''| ~ 1e-12, round-off eps/h ~ 1e-10
        fd = np.column_stack([(ref.closure(q + h * e) - ref.closure(q - h * e)) / (2 * h)
                              for e in np.eye(7)])
        np.testing.assert_allclose(ref.closure_jacobian(q), fd, atol=1e-9)
        fd_gamma = (ref.closure_jacobian(q + h * qd) - ref.closure_jacobian(q - h * qd)) \
            @ qd / (2 * h)
        np.testing.assert_allclose(ref.closure_gamma(q, qd), fd_gamma, atol=1e-8)


# ------------------------------------------------------------------ equations
@pytest.fixture(scope="module")
def sympy_lagrange():
    """M, h, Q_g of the joint coordinates by sympy, from T and V written out here."""
    q = sp.symbols("s1 s2 s3 p1 p2 p3 th")
    qd = sp.symbols("s1d s2d s3d p1d p2d p3d thd")
    s1, s2, s3, p1, p2, p3, th = q
    L2, xpg = sp.Float(ref.LEG_LENGTHS[1]), sp.Float(ref.PLATFORM_COM)
    g = sp.Float(ref.GRAVITY)
    # (mass, inertia, COM position, angle) of every moving body
    bodies = [(sp.Float(ref.SLIDER_MASS[i]), 0, sp.Matrix([q[i], 0]), 0) for i in range(3)]
    for i, (s, p) in enumerate(((s1, p1), (s2, p2), (s3, p3))):
        a = sp.Float(ref.LEG_COM[i])
        bodies.append((sp.Float(ref.LEG_MASS[i]), sp.Float(ref.LEG_INERTIA[i]),
                       sp.Matrix([s + a * sp.cos(p), a * sp.sin(p)]), p))
    bodies.append((sp.Float(ref.PLATFORM_MASS), sp.Float(ref.PLATFORM_INERTIA),
                   sp.Matrix([s2 + L2 * sp.cos(p2) + xpg * sp.cos(th),
                              L2 * sp.sin(p2) + xpg * sp.sin(th)]), th))
    T, V = 0, 0
    for m, inertia, r, angle in bodies:
        v = r.jacobian(q) * sp.Matrix(qd)
        w = sum(sp.diff(angle, qi) * qdi for qi, qdi in zip(q, qd)) if angle != 0 else 0
        T += m * (v.T * v)[0] / 2 + inertia * w ** 2 / 2
        V += m * g * r[1]
    pT = sp.Matrix([sp.diff(T, v) for v in qd])
    M = pT.jacobian(qd)
    h = pT.jacobian(q) * sp.Matrix(qd) - sp.Matrix([sp.diff(T, qi) for qi in q])
    Qg = -sp.Matrix([sp.diff(V, qi) for qi in q])
    args = list(q) + list(qd)
    return (sp.lambdify(args, M, "numpy"), sp.lambdify(args, h, "numpy"),
            sp.lambdify(args, Qg, "numpy"))


def test_equations_match_sympy_lagrange(sympy_lagrange, rng):
    M_fn, h_fn, Qg_fn = sympy_lagrange
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, 7)
        qd = rng.standard_normal(7)
        args = list(q) + list(qd)
        # same float expressions in another order: agreement to ~1e-13 of the entries
        np.testing.assert_allclose(ref.mass_matrix(q), np.array(M_fn(*args), dtype=float),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ref.velocity_forces(q, qd),
                                   np.array(h_fn(*args), dtype=float).ravel(),
                                   rtol=1e-12, atol=1e-11)
        np.testing.assert_allclose(ref.gravity_forces(q),
                                   np.array(Qg_fn(*args), dtype=float).ravel(),
                                   rtol=1e-12, atol=1e-11)
        assert ref.kinetic_energy(q, qd) == pytest.approx(
            0.5 * qd @ ref.mass_matrix(q) @ qd, rel=1e-13)
        # the integrator's one-pass version of the same sums
        for fast, slow in zip(ref._dynamics_terms(q, qd, ref.GRAVITY),
                              (ref.mass_matrix(q), ref.velocity_forces(q, qd),
                               ref.gravity_forces(q))):
            np.testing.assert_allclose(fast, slow, rtol=1e-14, atol=1e-13)


def test_static_holding_forces_match_virtual_work():
    # at rest, the forces holding the start pose are dV(s)/ds (virtual work through
    # the closure), differentiated here numerically with the sliders' closed form
    s0 = ref.initial_configuration()[:3]

    def V(s):
        return ref.potential_energy(np.concatenate([s, ref.passive_from_sliders(s)]))

    h = 1e-6
    # V ~ 100 J: round-off 1e-14 / 1e-6 ~ 1e-8 N, truncation h^2 V''' ~ 1e-9 N
    dV = np.array([(V(s0 + h * e) - V(s0 - h * e)) / (2 * h) for e in np.eye(3)])
    Q = ref.inverse_dynamics(s0, np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(Q, dV, atol=1e-6)


# ------------------------------------------------------------------ free fall
@pytest.fixture(scope="module")
def free_fall():
    return ref.forward_dynamics(ref.zero_forces, 4.0, np.linspace(0.0, 4.0, 801))


def test_free_fall_conserves_energy_until_singularity(free_fall):
    sol = free_fall
    assert sol.status == "singular"
    assert 0.38 < sol.t_singular < 0.39
    E = ref.kinetic_energy(sol.q, sol.qd) + ref.potential_energy(sol.q)
    T_max = np.max(ref.kinetic_energy(sol.q, sol.qd))
    assert T_max > 100.0                     # it really falls: about 134 J at 0.38 s
    # DOP853 at rtol 1e-11 keeps the drift near 1e-9 J (of 112 J of potential at the
    # start); 1e-7 J leaves two orders of margin for other platforms' floating point
    assert np.max(np.abs(E - E[0])) < 1e-7


def test_free_fall_closure_at_round_off(free_fall):
    residual = np.array([ref.closure(q) for q in free_fall.q])
    # dependent coordinates are closed-form functions of the state: no drift at all
    assert np.max(np.abs(residual)) < 1e-14


def test_free_fall_singularity_is_legs_1_and_3_flat(free_fall):
    # the first singularity is E reaching the rail (sin(phi3 - phi1) -> 0); the last
    # output instant (0.38 s) is 3 ms before it, with E 8 mm above the rail
    q = free_fall.q[-1]
    assert free_fall.t[-1] == pytest.approx(0.38)
    assert ref.joint_positions(q)["E"][1] < 0.01
    assert abs(np.sin(q[6] - q[4])) > 0.2
    # the event time converges: tolerances 1e-8 vs 1e-11 agree to 1e-9 s
    coarse = ref.forward_dynamics(ref.zero_forces, 4.0, [0.0], rtol=1e-8, atol=1e-9)
    assert coarse.t_singular == pytest.approx(free_fall.t_singular, abs=1e-9)


def test_free_fall_matches_unpartitioned_index1_integration(free_fall):
    # all 14 joint coordinates and rates, Phi_q qdd = -gamma, no closed forms: a path
    # independent of the partitioning.  Its drift off the closure stays near rtol.
    def rhs(t, y):
        qdd, _ = ref.accelerations(y[:7], y[7:], np.zeros(3))
        return np.concatenate([y[7:], qdd])

    y0 = np.concatenate([ref.initial_configuration(), np.zeros(7)])
    sol = scipy.integrate.solve_ivp(rhs, (0.0, 0.3), y0, method="DOP853", rtol=1e-12,
                                    atol=1e-13, t_eval=EARLY)
    mine = ref.forward_dynamics(ref.zero_forces, 0.3, EARLY)
    # both at ~1e-11 global error; 1e-8 m/rad is far below any engine tolerance
    np.testing.assert_allclose(sol.y[:7].T, mine.q, atol=1e-8)
    np.testing.assert_allclose(sol.y[7:].T, mine.qd, atol=1e-8)


# ------------------------------------------------------------------ loads
@pytest.mark.parametrize("case", list(LOADS))
def test_inverse_dynamics_returns_applied_forces(case):
    force_fn, breakpoints = LOADS[case]
    sol = ref.forward_dynamics(force_fn, 0.3, EARLY, breakpoints=breakpoints)
    assert sol.status == "completed"
    applied = np.array([force_fn(t) for t in sol.t])
    Q = ref.inverse_dynamics(sol.s, sol.sd, sol.sdd)
    # same equations solved through the other partition (sliders independent):
    # agreement at round-off times the conditioning of Phi_p (about 5 up to 0.3 s);
    # seen ~3e-13 N, 1e-9 N leaves margin and is 1e-10 of the 10 N loads
    np.testing.assert_allclose(Q, applied, atol=1e-9)


def test_inverse_dynamics_of_differentiated_trajectory():
    # slider accelerations by Richardson-extrapolated central differences of the
    # integrated velocities, not from the forward model's algebra.  h = 1e-4 s: the
    # plain difference is off by h^2/6 |s| ~ 3e-6 m/s^2 at 0.27 s (s ~ 1.6e3
    # m/s^4 as the fall speeds up); extrapolation leaves O(h^4), and the dense output's
    # ~1e-11 error over h gives ~1e-7 m/s^2; times masses ~ 50 kg: ~1e-5 N at most
    # (seen 2e-7 N).
    force_fn, breakpoints = LOADS["sinusoid 10, 2, 2"]
    h = 1e-4
    centres = np.array([0.07, 0.17, 0.27])
    offsets = np.array([-2 * h, -h, 0.0, h, 2 * h])
    t_eval = (centres[:, None] + offsets).ravel()
    sol = ref.forward_dynamics(force_fn, 0.3, t_eval, breakpoints=breakpoints)
    sd = sol.sd.reshape(3, 5, 3)
    d1 = (sd[:, 3] - sd[:, 1]) / (2 * h)
    d2 = (sd[:, 4] - sd[:, 0]) / (4 * h)
    sdd = (4 * d1 - d2) / 3
    Q = ref.inverse_dynamics(sol.s[2::5], sol.sd[2::5], sdd)
    np.testing.assert_allclose(Q, [force_fn(t) for t in centres], atol=1e-5)


@pytest.mark.parametrize("case", list(LOADS))
def test_load_cases_reach_singularity_after_free_fall(case, free_fall):
    force_fn, breakpoints = LOADS[case]
    sol = ref.forward_dynamics(force_fn, 4.0, [0.0], breakpoints=breakpoints)
    assert sol.status == "singular"
    # the loads (<= 10 N against ~500 N of weight) delay the fall by a few ms only
    assert free_fall.t_singular < sol.t_singular < free_fall.t_singular + 0.01


def test_pulse_shape():
    f = ref.pulse_forces((10.0, -2.0, -2.0))
    np.testing.assert_allclose(f(0.0), 0.0)
    np.testing.assert_allclose(f(0.05), [5.0, -1.0, -1.0])
    np.testing.assert_allclose(f(0.1), [10.0, -2.0, -2.0])
    np.testing.assert_allclose(f(0.15), [5.0, -1.0, -1.0])
    np.testing.assert_allclose(f(0.2), 0.0)
    np.testing.assert_allclose(f(1.0), 0.0)


def test_pulse_without_gravity_runs_4_s_and_balances_work():
    # robot lying flat (gravity 0): the pulse moves it without meeting a singularity
    # over the paper's 0-4 s; the work of the slider forces equals the kinetic energy
    # and T stays constant once the pulse is over (t >= 0.2 s)
    force_fn = ref.pulse_forces((10.0, -2.0, -2.0))
    t = np.linspace(0.0, 4.0, 801)           # 0.1 and 0.2 s are even-indexed nodes
    sol = ref.forward_dynamics(force_fn, 4.0, t, breakpoints=ref.PULSE_BREAKPOINTS,
                               gravity=0.0)
    assert sol.status == "completed" and sol.t_singular is None
    assert len(sol.t) == len(t)
    power = np.einsum("ij,ij->i", np.array([force_fn(ti) for ti in t]), sol.sd)
    work = scipy.integrate.simpson(power, x=t)
    T = ref.kinetic_energy(sol.q, sol.qd)
    assert T[-1] > 0.03                      # about 0.033 J
    # Simpson on panels that do not straddle the kinks: seen 3e-10 J; 1e-8 J is 3e-7
    # of T.  After the pulse, T is a first integral: drift at the 1e-12 J level.
    assert work == pytest.approx(T[-1], abs=1e-8)
    after = t >= 0.2
    assert np.ptp(T[after]) < 1e-10
    Q = ref.inverse_dynamics(sol.s[::100], sol.sd[::100], sol.sdd[::100], gravity=0.0)
    np.testing.assert_allclose(Q, [force_fn(ti) for ti in t[::100]], atol=1e-9)
    assert np.max(np.abs([ref.closure(q) for q in sol.q])) < 1e-14
