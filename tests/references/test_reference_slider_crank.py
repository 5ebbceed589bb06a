"""Checks of the independent slider-crank reference (tests/references/reference_slider_crank.py).

Against the published IVP Test Set solution at t = 0.1 s (crank.f ``solut`` =
deTestSet ``cranksoln``, MEBDFI at atol = rtol = 1e-14; rforge/bvpsolve
pkg/deTestSet/src/Ex_crank.f) and its consistent initial values, and against physics:
constraints, the DAE residual, Lagrange's equations, the power balance and the rigid
limit. One nominal run (DOP853, rtol = 1e-10) is shared by the module.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import reference_slider_crank as sc


@pytest.fixture(scope="module")
def nominal():
    # rtol = 1e-10 instead of the module's 1e-12 to keep the run near 2 s: the values at
    # t = 0.1 change by < 4e-15 m in q and < 4e-8 N m in lambda3 between the two.
    return sc.simulate(t_end=0.1, t_eval=np.linspace(0.0, 0.1, 101), rtol=1e-10)


def _random_states(n, seed=20260601):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        t = rng.uniform(0.0, 0.1)
        q = rng.normal(size=4) * [1e-3, 1e-4, 1e-5, 1e-5]
        qd = rng.normal(size=4) * [1.0, 1e-1, 1e-2, 1e-2]
        yield t, q, qd


# --- data and rod invariants -----------------------------------------------------
def test_rod_data_relations():
    # M2 is the rod's own mass rho A L2 and J2 its rotary inertia about the crank-rod
    # joint, M2 (L2^2/3 + HH^2/12); J2 is published to 1e-10 kg m^2, hence 5e-11.
    assert sc.M2 == pytest.approx(sc.RHO * sc.BB * sc.HH * sc.L2, rel=1e-14)
    assert sc.J2 == pytest.approx(sc.M2 * (sc.L2**2 / 3 + sc.HH**2 / 12), abs=5e-11)
    assert sc.M3 == pytest.approx(sc.M2 / 2, rel=1e-14)


def test_shape_functions_and_midspan():
    # pinned-pinned lateral modes, axial u(0) = 0, u(1/2) = q3, u(1) = q4: exact up to
    # the rounding of sin(pi), sin(2 pi) (< 3e-16)
    np.testing.assert_allclose(sc.lateral_shapes([0.0, 1.0]), 0.0, atol=3e-16)
    np.testing.assert_allclose(sc.axial_shapes([0.0, 0.5, 1.0]), [[0, 1, 0], [0, 0, 1]],
                               atol=0)
    q = np.array([1.3e-3, -7e-4, 2e-5, -3e-5])
    assert sc.midspan_deflection(q) == pytest.approx(q[0], rel=1e-12)


def test_quadrature_invariants_match_published_closed_forms():
    # The rod matrices of crank.f, re-evaluated with numpy's pi, equal the Gauss-Legendre
    # quadrature of the shape functions to round-off (24 points integrate the sines to
    # 1e-16), except the axial mass block: crank.f's is 15 times the element's.
    quad = sc.rod_model("consistent")
    closed = sc._testset_invariants(sc.EE, pi=math.pi)
    for key in ("kq", "bq", "c1", "c2", "c12", "c21"):
        np.testing.assert_allclose(quad[key], closed[key], rtol=1e-13,
                                   atol=1e-13 * np.abs(closed[key]).max(), err_msg=key)
    np.testing.assert_allclose(quad["mq"][0:2, 0:2], closed["mq"][0:2, 0:2], rtol=1e-13,
                               atol=1e-15)
    np.testing.assert_allclose(15.0 * quad["mq"][2:4, 2:4], closed["mq"][2:4, 2:4],
                               rtol=1e-13)
    assert np.all(quad["mq"][0:2, 2:4] == 0)


# --- the equations ---------------------------------------------------------------
@pytest.mark.parametrize("variant", ["testset", "consistent"])
def test_forces_are_lagrange_equations_of_the_kinetic_energy(variant):
    # F = -M' p' + dT/dp - dU/dp with dM/dp_k by complex step (exact to round-off);
    # tolerance 1e-12 of the largest term of F (round-off of sums of that size).
    model = sc.rod_model(variant)
    h = 1e-30
    for t, q, qd in _random_states(5):
        p, pd, _, _ = sc.accelerations(t, q, qd, model)
        dm = []
        for k in range(7):
            pk = p.astype(complex)
            pk[k] += 1j * h
            dm.append(sc.mass_matrix(pk, model).imag / h)
        mdot_pd = sum(pd[k] * dm[k] for k in range(7)) @ pd
        dT_dp = np.array([0.5 * pd @ dm[k] @ pd for k in range(7)])
        dU_dp = np.concatenate((np.zeros(3), model["kq"] @ q))
        lagrange = -mdot_pd + dT_dp - dU_dp
        f = sc.forces(p, pd, model)
        np.testing.assert_allclose(f, lagrange, rtol=0, atol=1e-12 * np.abs(f).max())


@pytest.mark.parametrize("variant", ["testset", "consistent"])
def test_fast_rhs_equals_full_equations(variant):
    # the unrolled right-hand side against the 7x7 route of ``accelerations``:
    # round-off only (1e-12 relative)
    model = sc.rod_model(variant)
    for t, q, qd in _random_states(5):
        out = np.array(sc._rhs(t, np.concatenate((q, qd, [0.0])), model))
        _, _, pdd, lam = sc.accelerations(t, q, qd, model)
        np.testing.assert_allclose(out[4:8], pdd[3:7], rtol=1e-12,
                                   atol=1e-12 * np.abs(pdd[3:7]).max())
        assert out[8] == pytest.approx(-lam[2] * sc.OMEGA, rel=1e-12)


def test_initial_state_reproduces_test_set_consistent_values():
    # Positions and velocities from q(0), q'(0): the test set prints 9 digits, so
    # x3(0) and phi2'(0) agree to 3e-10 m and 5e-8 rad/s (their rounding).
    y0 = sc.full_state(0.0, sc.Q0, sc.QD0, sc.rod_model())
    ref = sc.Y0_TESTSET
    np.testing.assert_allclose(y0[0:7], ref[0:7], rtol=0, atol=3e-10)
    np.testing.assert_allclose(y0[7:14], ref[7:14], rtol=0, atol=5e-8)
    # Rigid accelerations (x3'' = -5062 m/s^2): 1e-8 relative (observed 3e-10).
    np.testing.assert_allclose(y0[14:17], ref[14:17], rtol=1e-8)
    # Elastic accelerations are small differences of large terms: lateral ones of
    # coupling terms ~3e-4 m/s^2 (q2'' is 0 to round-off here, 1.4e-8 in the test set),
    # axial ones of elastic forces ~2e3 N over ~1 kg, where q3, q4 rounded to 9 digits
    # already make 1e-6 m/s^2; observed 3.4e-8 (q1'') and 2.4e-7 (q3'').
    diff = y0[17:21] - ref[17:21]
    assert np.all(np.abs(diff) < [1e-7, 1e-7, 1e-6, 1e-6]), diff
    # Multipliers: lambda2 = 382 N to 1e-8 relative (observed 3e-10); lambda1 and
    # lambda3 vanish at this dead centre up to ~1e-8 (observed 1.6e-9 and 2.6e-10).
    np.testing.assert_allclose(y0[21:24], ref[21:24], rtol=1e-8, atol=5e-9)


# --- the published reference at t = 0.1 ------------------------------------------
def test_reference_solution_at_t_01(nominal):
    y = nominal["y"][:, -1]
    ref = sc.REFERENCE_T01
    model = nominal["model"]
    assert nominal["t"][-1] == 0.1
    # The test set integrates the index-2 DAE (velocity constraints), so its initial
    # position offset g2(0) = x3(0) - L1 - L2 - q4(0) = 2.03e-10 m (9-digit x3) is
    # carried unchanged to t = 0.1; here the constraints hold exactly. Likewise its
    # phi1 has drifted by 1.0e-12 rad.
    offset = sc.Y0_TESTSET[2] - (sc.L1 + sc.L2 + sc.Q0[3])
    assert offset == pytest.approx(2.031e-10, rel=1e-3)
    assert y[0] == pytest.approx(ref[0], abs=2e-12)
    # phi2 and the corrected x3: observed differences 2e-14 rad, 3e-13 m
    assert y[1] == pytest.approx(ref[1], abs=1e-12)
    assert y[2] == pytest.approx(ref[2] - offset, abs=1e-12)
    # Elastic coordinates: 2e-11 m (observed 5.7e-12 on q1, 7e-13 on q2). This is tight
    # enough to see the model: crank.f's truncated pi = 3.1415927 moves q1(0.1) by
    # 3.8e-11 m, its 15-fold axial mass by 1.1e-8 m.
    np.testing.assert_allclose(y[3:7], ref[3:7], rtol=0, atol=2e-11)
    # Velocities: rigid 2e-9 (observed 5.7e-10 on 60 rad/s), elastic 1e-8 m/s (observed
    # 2.4e-9 on q1' = 0.03 m/s).
    np.testing.assert_allclose(y[7:10], ref[7:10], rtol=0, atol=2e-9)
    np.testing.assert_allclose(y[10:14], ref[10:14], rtol=0, atol=1e-8)
    # Accelerations: phi2'', x3'' contain q4'' through the constraint, which is
    # Kq/Mq ~ 3e8 s^-2 times the error of q4 (~3e-14 m at rtol 1e-10): 2e-8 relative
    # (observed 5e-9). The elastic ones are K/M times the position error, so
    # 2e-11 m * Kq_ii / Mq_ii (observed 7e-6 and 1.7e-5 on q1'', q2'' against allowed
    # 3.3e-5, 5.2e-4).
    np.testing.assert_allclose(y[15:17], ref[15:17], rtol=2e-8)
    tol_qdd = 2e-11 * np.diag(model["kq"]) / np.diag(model["mq"])
    diff = y[17:21] - ref[17:21]
    assert np.all(np.abs(diff) < tol_qdd), (diff, tol_qdd)
    # Multipliers (joint forces [N], drive torque [N m]): 1e-7 relative (observed 2e-8).
    np.testing.assert_allclose(y[21:24], ref[21:24], rtol=1e-7)


# --- physics along the run -------------------------------------------------------
def test_constraints_hold_to_round_off(nominal):
    # Position, velocity and acceleration constraints of crank.f, evaluated on the
    # reconstructed 7 coordinates: round-off of their terms, i.e. eps times
    # L1 + L2 = 0.45 m, L1 OMEGA = 22.5 m/s and L1 OMEGA^2 = 3375 m/s^2 (x 10).
    ys, ts = nominal["y"], nominal["t"]
    eps = np.finfo(float).eps
    for k, t in enumerate(ts):
        p, pd, pdd = ys[0:7, k], ys[7:14, k], ys[14:21, k]
        assert np.abs(sc.constraints(t, p)).max() < 10 * eps * 0.45
        vel = sc.constraint_jacobian(p) @ pd - [0.0, 0.0, sc.OMEGA]
        assert np.abs(vel).max() < 10 * eps * 22.5
        assert np.abs(sc.acceleration_constraints(p, pd, pdd)).max() < 10 * eps * 3375


def test_dae_residual_vanishes(nominal):
    # M p'' - F + G^T lambda = 0 (crank.f's dynamic equations) with the closed-form
    # multipliers: round-off, 1e-12 of the largest term.
    ys, model = nominal["y"], nominal["model"]
    for k in range(ys.shape[1]):
        p, pd, pdd, lam = ys[0:7, k], ys[7:14, k], ys[14:21, k], ys[21:24, k]
        m, f = sc.mass_matrix(p, model), sc.forces(p, pd, model)
        residual = m @ pdd - f + sc.constraint_jacobian(p).T @ lam
        scale = max(np.abs(m @ pdd).max(), np.abs(f).max())
        assert np.abs(residual).max() < 1e-12 * scale


def test_power_balance(nominal):
    # Work of the driving torque -lambda3 (integrated with the state) equals the change
    # of kinetic plus elastic energy. The energies are ~40-100 J and the work reaches
    # 53 J; rtol = 1e-10 on the work bounds the mismatch by ~1e-8 J (observed 1e-13 J).
    energy = nominal["kinetic_energy"] + nominal["elastic_energy"]
    np.testing.assert_allclose(energy - energy[0], nominal["work"], rtol=0, atol=1e-8)
    assert np.ptp(nominal["work"]) > 50.0  # the check is not vacuous


def test_outputs(nominal):
    # slider position and mid-span deflection are the state components x3 and q1
    np.testing.assert_array_equal(nominal["x3"], nominal["y"][2])
    np.testing.assert_allclose(nominal["midspan_deflection"], nominal["y"][3], rtol=1e-12)
    # the elastic motion is real: the mid-span deflection reaches 1.65 mm (1.648 mm on
    # this 1 ms output grid)
    assert 1.6e-3 < np.abs(nominal["midspan_deflection"]).max() < 1.7e-3


# --- rigid limit -----------------------------------------------------------------
def _rigid_torque(phi1):
    """Driving torque of the rigid slider crank at constant OMEGA [N m].

    T = 1/2 I(phi1) OMEGA^2 with I = J1 + M2 L1^2 + M2 L1 L2 cos(phi1 - phi2) k2
    + J2 k2^2 + M3 k3^2 (k2 = dphi2/dphi1, k3 = dx3/dphi1); tau OMEGA = dT/dt gives
    tau = 1/2 OMEGA^2 dI/dphi1 (complex-step derivative).
    """
    def inertia(phi):
        phi2 = np.arcsin(-sc.L1 * np.sin(phi) / sc.L2)
        k2 = -sc.L1 * np.cos(phi) / (sc.L2 * np.cos(phi2))
        k3 = -sc.L1 * np.sin(phi) - sc.L2 * np.sin(phi2) * k2
        return (sc.J1 + sc.M2 * sc.L1**2 + sc.M2 * sc.L1 * sc.L2 * np.cos(phi - phi2) * k2
                + sc.J2 * k2**2 + sc.M3 * k3**2)

    h = 1e-20
    return 0.5 * sc.OMEGA**2 * inertia(phi1 + 1j * h).imag / h


def _rigid_limit_run(factor):
    # E -> factor E. Radau (L-stable) with error control off (rtol 1e-3, atol 1e3) and
    # h = 1e-4 s (h OMEGA = 0.015): the elastic oscillations (>= 1.3e5 rad/s here) are
    # not resolved and are damped numerically, which leaves the quasi-static limit;
    # started from q = q' = 0.
    model = sc.rod_model("testset", sc.EE * factor)
    t_eval = np.linspace(0.0, 0.1, 51)
    sol = solve_ivp(sc._rhs, (0.0, 0.1), np.zeros(9), method="Radau", t_eval=t_eval,
                    rtol=1e-3, atol=1e3, max_step=1e-4, args=(model,))
    assert sol.success
    ys = np.array([sc.full_state(t, y[0:4], y[4:8], model)
                   for t, y in zip(sol.t, sol.y.T)]).T
    return sol.t, ys


def test_rigid_limit():
    devs, tau_devs = [], []
    for factor in (1e4, 1e6):
        t, ys = _rigid_limit_run(factor)
        phi1 = ys[0]
        assert np.abs(phi1 - sc.OMEGA * t).max() == 0
        dev = np.abs(ys[2] - sc.rigid_slider_position(phi1)).max()
        phi2_rigid = np.arcsin(-sc.L1 * np.sin(phi1) / sc.L2)
        # the deviations are quasi-static deflections ~ 1/E: q4 ~ 1.7e-5 m / factor
        assert dev < 3e-5 / factor
        assert np.abs(ys[1] - phi2_rigid).max() < 3e-4 / factor
        steady = t >= 0.002  # after the start transient from q = 0
        tau = -ys[23]
        tau_devs.append(np.abs(tau[steady] - _rigid_torque(phi1[steady])).max())
        devs.append(dev)
        # the drive torque tends to the rigid inverse dynamics (|tau| <= 70 N m)
        assert tau_devs[-1] < 2.0 / factor
    # and both deviations shrink like 1/E (factor 100 between the runs, +-10 %)
    assert devs[0] / devs[1] == pytest.approx(100.0, rel=0.1)
    assert tau_devs[0] / tau_devs[1] == pytest.approx(100.0, rel=0.1)
