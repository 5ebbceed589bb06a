"""Tests of elastodyn.integrators (Newmark, generalised-alpha, solve_ivp layer).

References used for the expected values:
Newmark 1959; Chung & Hulbert 1993 (J. Appl. Mech. 60:371-375); the trapezoidal-rule
period formula tan(Omega dt / 2) = omega dt / 2; the textbook steady state of a forced
damped oscillator.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from elastodyn.exceptions import DimensionError, InputError, ModelError
from elastodyn.integrators import (
    ConstantSystem,
    GeneralizedAlphaScheme,
    NewmarkScheme,
    SecondOrderResult,
    StateSpaceResult,
    constant_system,
    generalized_alpha,
    generalized_alpha_parameters,
    newmark,
    newmark_parameters,
    second_order_to_state_space,
    simulate_state_space,
)
from elastodyn.integrators.nonlinear import NonlinearProblem, generalized_alpha_nonlinear

TWO_PI = 2.0 * math.pi


def _slope(dts, errors):
    """Least-squares slope of log(error) against log(dt)."""
    return float(np.polyfit(np.log(dts), np.log(errors), 1)[0])


def _oscillator(omega=TWO_PI, mass=1.0):
    return constant_system([[mass]], [[0.0]], [[mass * omega**2]])


# --------------------------------------------------------------------------- LTV models
def _manufactured_ltv():
    """2-DOF LTV system with time-varying M, C, K and an exact solution q_ex(t).

    f(t) is built from q_ex so that q_ex solves M q'' + C q' + K q = f exactly.
    """

    def M(t):
        return np.array([[2.0 + 0.5 * np.sin(t), 0.3], [0.3, 1.0 + 0.4 * np.cos(2.0 * t)]])

    def C(t):
        return np.array([[0.1, 0.0], [0.0, 0.2 + 0.1 * np.sin(t)]])

    def K(t):
        return np.array([[10.0 + 3.0 * np.cos(t), -2.0], [-2.0, 6.0 + np.sin(1.5 * t)]])

    def exact(t):
        e = np.exp(-0.1 * t)
        c, s = np.cos(2.1 * t), np.sin(2.1 * t)
        q = np.array([np.sin(1.3 * t) + 0.5 * np.cos(0.7 * t), e * c])
        qd = np.array([1.3 * np.cos(1.3 * t) - 0.35 * np.sin(0.7 * t), e * (-0.1 * c - 2.1 * s)])
        qdd = np.array(
            [-1.69 * np.sin(1.3 * t) - 0.245 * np.cos(0.7 * t), e * ((0.01 - 4.41) * c + 0.42 * s)]
        )
        return q, qd, qdd

    def system(t):
        q, qd, qdd = exact(t)
        Mt, Ct, Kt = M(t), C(t), K(t)
        return Mt, Ct, Kt, Mt @ qdd + Ct @ qd + Kt @ q

    return system, exact


def _mathieu_2dof():
    """Damped 2-DOF Mathieu-type system K(t) = K0 + K1 cos(t), harmonic forcing."""
    M = np.diag([2.0, 1.0])
    K0 = np.array([[6.0, -2.0], [-2.0, 4.0]])
    K1 = np.array([[1.0, 0.0], [0.0, 0.5]])
    C = 0.1 * M + 0.05 * K0  # Rayleigh damping

    def system(t):
        return M, C, K0 + K1 * np.cos(t), np.array([np.sin(1.3 * t), 0.5 * np.cos(0.4 * t)])

    return system


# --------------------------------------------------------------------------- helpers
def test_constant_system_variants():
    s0 = constant_system(2.0, 0.1, 8.0)
    assert isinstance(s0, ConstantSystem)
    M, C, K, f = s0(0.3)
    assert M.shape == C.shape == K.shape == (1, 1) and f.shape == (1,)
    assert f[0] == 0.0  # f=None means no force

    s1 = constant_system(np.eye(2), np.zeros((2, 2)), np.eye(2), f=[1.0, 2.0])
    np.testing.assert_array_equal(s1(5.0)[3], [1.0, 2.0])

    s2 = constant_system(np.eye(2), np.zeros((2, 2)), np.eye(2), f=lambda t: [t, 2.0 * t])
    np.testing.assert_array_equal(s2(1.5)[3], [1.5, 3.0])

    with pytest.raises(DimensionError, match="C"):
        constant_system(np.eye(2), np.zeros((3, 3)), np.eye(2))
    with pytest.raises(DimensionError, match="f"):
        constant_system(np.eye(2), np.zeros((2, 2)), np.eye(2), f=[1.0, 2.0, 3.0])


def test_generalized_alpha_parameters_match_chung_hulbert():
    # Exact rational values of Chung & Hulbert (1993) eqs. (25), (17), (18); float
    # arithmetic on these short expressions is exact to a few ulp, hence 1e-15.
    p = generalized_alpha_parameters(1.0)
    assert (p.alpha_m, p.alpha_f, p.beta, p.gamma) == (0.5, 0.5, 0.25, 0.5)
    p = generalized_alpha_parameters(0.0)
    assert (p.alpha_m, p.alpha_f, p.beta, p.gamma) == (-1.0, 0.0, 1.0, 1.5)
    p = generalized_alpha_parameters(0.5)
    assert p.alpha_m == pytest.approx(0.0, abs=1e-15)
    assert p.alpha_f == pytest.approx(1.0 / 3.0, rel=1e-15)
    assert p.gamma == pytest.approx(0.5 + 1.0 / 3.0, rel=1e-15)
    assert p.beta == pytest.approx((4.0 / 3.0) ** 2 / 4.0, rel=1e-15)


# --------------------------------------------------------------------------- Newmark
def test_newmark_result_layout_and_frozen():
    res = newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=0.1, t0=0.0)
    assert isinstance(res, SecondOrderResult)
    assert res.time.shape == (11,) and res.q.shape == res.qd.shape == res.qdd.shape == (11, 1)
    assert res.n_steps == 10
    assert res.time[0] == 0.0 and res.time[-1] == 1.0
    assert res.method == "newmark(beta=0.25, gamma=0.5)"
    # the initial acceleration solves the equation of motion at t0: -omega^2 q0
    assert res.qdd[0, 0] == pytest.approx(-(TWO_PI**2), rel=1e-14)  # one division: ulp level
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.method = "other"
    with pytest.raises(ValueError):  # arrays are read-only
        res.q[0, 0] = 2.0


def test_newmark_energy_conserved_undamped_2dof():
    # Average acceleration = trapezoidal rule, which conserves the quadratic energy of a
    # linear undamped constant system exactly; only round-off remains.
    M = np.diag([1.0, 2.0])
    K = np.array([[5.0, -2.0], [-2.0, 3.0]])
    sys2 = constant_system(M, np.zeros((2, 2)), K)
    omega_max = math.sqrt(max(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    period_min = TWO_PI / omega_max
    res = newmark(sys2, [1.0, 0.5], [0.0, 1.0], t_end=100.0, dt=0.01)
    assert res.time[-1] / period_min > 30  # many periods of both modes
    energy = 0.5 * np.einsum("ki,ij,kj->k", res.qd, M, res.qd) + 0.5 * np.einsum(
        "ki,ij,kj->k", res.q, K, res.q
    )
    # 10^4 steps, each adding a few ulp (2.2e-16) of relative error: worst case
    # ~1e4 * 1e-15 = 1e-11; a numerical damping of even 1e-8 per step would show up as
    # ~1e-4, so 1e-11 separates round-off from any real dissipation.
    assert np.max(np.abs(energy / energy[0] - 1.0)) < 1e-11


def test_newmark_average_acceleration_period_elongation():
    # For the trapezoidal rule the map (omega q, qd) -> next is an exact rotation by
    # Omega dt with tan(Omega dt / 2) = omega dt / 2, so q_k = cos(Omega t_k) exactly
    # (q0 = 1, qd0 = 0); period elongation T_num / T = omega dt / (2 atan(omega dt / 2)).
    omega, dt = TWO_PI, 0.05
    res = newmark(_oscillator(omega), [1.0], [0.0], t_end=20.0, dt=dt)
    Omega = 2.0 * math.atan(omega * dt / 2.0) / dt
    # 400 steps of ulp-level round-off on O(1) values: 1e-12 leaves a 10x margin
    np.testing.assert_allclose(res.q[:, 0], np.cos(Omega * res.time), rtol=0, atol=1e-12)
    elongation = omega / Omega
    # series: 1 + x^2/12 - x^4/180 + ..., x = omega dt = 0.31; the second term changes
    # the first by x^2/15 = 6.6e-3 relative, so 2e-2 checks the leading coefficient
    assert elongation - 1.0 == pytest.approx((omega * dt) ** 2 / 12.0, rel=2e-2)


def test_newmark_second_order_convergence_undamped():
    omega = TWO_PI
    dts = [1.0 / 25, 1.0 / 50, 1.0 / 100, 1.0 / 200, 1.0 / 400]
    errors = []
    for dt in dts:
        res = newmark(_oscillator(omega), [1.0], [0.0], t_end=2.0, dt=dt)
        errors.append(np.max(np.abs(res.q[:, 0] - np.cos(omega * res.time))))
    # second order: the phase error is (omega dt)^2 omega t / 12 + O(dt^4); over this dt
    # range the O(dt^4) part shifts the fitted slope by < 0.02, well inside +-0.1
    assert _slope(dts, errors) == pytest.approx(2.0, abs=0.1)


def test_newmark_second_order_convergence_ltv_manufactured():
    system, exact = _manufactured_ltv()
    q0, qd0, _ = exact(0.0)
    dts = [0.04, 0.02, 0.01, 0.005]
    errors = []
    for dt in dts:
        res = newmark(system, q0, qd0, t_end=4.0, dt=dt)
        errors.append(np.linalg.norm(res.q[-1] - exact(4.0)[0]))
    # global error O(dt^2) for the time-varying M, C, K too; +-0.1 as above
    assert _slope(dts, errors) == pytest.approx(2.0, abs=0.1)


# --------------------------------------------------------------------------- Newmark kernel
@pytest.mark.parametrize("beta,gamma", [(0.25, 0.5), (1.0 / 6.0, 0.5), (0.3, 0.6)])
def test_newmark_scheme_predictor_corrector_are_newmarks_formulas(beta, gamma):
    """The kernel's updates written out as in Newmark 1959 (q_{k+1} = q_k + h v_k +
    h^2 [(1/2 - beta) a_k + beta a_{k+1}], v_{k+1} = v_k + h [(1 - gamma) a_k + gamma
    a_{k+1}]), on arrays with a leading batch axis. Round-off of O(1) sums: 1e-15."""
    rng = np.random.default_rng(11)
    h = 0.013
    q, v, a, a1 = (rng.normal(size=(4, 3)) for _ in range(4))
    sch = NewmarkScheme(h, beta, gamma)
    q1, v1, a_new = sch.step(q, v, a, lambda qp, vp: a1)
    np.testing.assert_allclose(q1, q + h * v + h * h * ((0.5 - beta) * a + beta * a1),
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(v1, v + h * ((1 - gamma) * a + gamma * a1), rtol=0, atol=1e-15)
    assert a_new is a1
    assert sch.bh2 == pytest.approx(beta * h * h, rel=1e-15)
    assert sch.gh == pytest.approx(gamma * h, rel=1e-15)
    M, C, K = (rng.normal(size=(3, 3)) for _ in range(3))
    np.testing.assert_allclose(sch.effective(M, C, K), M + gamma * h * C + beta * h * h * K,
                               rtol=0, atol=1e-15)


def test_newmark_scheme_step_with_dense_solve_equals_newmark():
    """Driving the kernel by hand (effective matrix, numpy's dense solve of
    f - C v~ - K q~, the balance at t_{k+1}) on a time-varying system reproduces newmark()
    (scipy's LU with a condition check): same scheme, two drivers; they differ by the
    round-off of two solves of well-conditioned 2 x 2 systems (asserted 1e-14)."""
    system, _exact = _manufactured_ltv()
    h, n = 0.01, 50
    res = newmark(system, [0.1, -0.2], [0.3, 0.0], t_end=n * h, dt=h)
    sch = NewmarkScheme(h)
    q, v = np.array([0.1, -0.2]), np.array([0.3, 0.0])
    M0, C0, K0, f0 = system(0.0)
    a = np.linalg.solve(M0, f0 - C0 @ v - K0 @ q)
    for k in range(n):
        Mk, Ck, Kk, fk = system((k + 1) * h)
        S = sch.effective(Mk, Ck, Kk)
        q, v, a = sch.step(q, v, a, lambda qp, vp: np.linalg.solve(S, fk - Ck @ vp - Kk @ qp))
        np.testing.assert_allclose(q, res.q[k + 1], rtol=1e-14, atol=1e-14 * np.abs(res.q).max())
        np.testing.assert_allclose(v, res.qd[k + 1], rtol=1e-14,
                                   atol=1e-14 * np.abs(res.qd).max())


@pytest.mark.parametrize("kwargs,name", [(dict(dt=0.0), "dt"), (dict(dt=float("nan")), "dt"),
                                         (dict(dt=0.1, beta=-0.1), "beta"),
                                         (dict(dt=0.1, gamma="x"), "gamma")])
def test_newmark_scheme_bad_input(kwargs, name):
    with pytest.raises(InputError, match=name):
        NewmarkScheme(**kwargs)


# --------------------------------------------------------------------------- gen-alpha
@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.8, 1.0])
def test_generalized_alpha_second_order_convergence_ltv(rho_inf):
    # Time-varying M, C, K: this also checks that evaluating every matrix at
    # t_{n+1-alpha_f} keeps second order (M at t_{n+1-alpha_m} gives slope ~1).
    system, exact = _manufactured_ltv()
    q0, qd0, _ = exact(0.0)
    t_end = 4.0
    q_ex, qd_ex, _ = exact(t_end)
    dts = [0.04, 0.02, 0.01, 0.005]
    err_q, err_qd = [], []
    for dt in dts:
        res = generalized_alpha(system, q0, qd0, t_end=t_end, dt=dt, rho_inf=rho_inf)
        err_q.append(np.linalg.norm(res.q[-1] - q_ex))
        err_qd.append(np.linalg.norm(res.qd[-1] - qd_ex))
    # asymptotic slope 2 (Chung & Hulbert 1993); the fitted slopes measured 1.99-2.03,
    # the +-0.1 band leaves room for the O(dt^3) terms at the coarsest step
    assert _slope(dts, err_q) == pytest.approx(2.0, abs=0.1)
    assert _slope(dts, err_qd) == pytest.approx(2.0, abs=0.1)


def _amplification_spectral_radius(rho_inf, omega_dt):
    """Spectral radius of the one-step map of (q, dt*qd, dt^2*qdd) for qdd + q = 0.

    Built column by column by taking one step from unit initial states. The scaling by
    dt is a similarity transform (same eigenvalues) that keeps the matrix well scaled.
    """
    dt = omega_dt  # omega = 1
    sys1 = _oscillator(omega=1.0)
    cols = []
    for q0, v0, a0 in ((1.0, 0.0, 0.0), (0.0, 1.0 / dt, 0.0), (0.0, 0.0, 1.0 / dt**2)):
        res = generalized_alpha(sys1, [q0], [v0], qdd0=[a0], t_end=dt, dt=dt, rho_inf=rho_inf)
        cols.append([res.q[1, 0], dt * res.qd[1, 0], dt**2 * res.qdd[1, 0]])
    return float(np.max(np.abs(np.linalg.eigvals(np.array(cols).T))))


@pytest.mark.parametrize("rho_inf", [0.0, 0.3, 0.5, 0.8])
def test_generalized_alpha_high_frequency_spectral_radius(rho_inf):
    # Chung & Hulbert choose alpha_m, alpha_f so that the three eigenvalues coincide at
    # -rho_inf as omega dt -> inf. A triple root moves like eps^(1/3) under an O(eps)
    # perturbation, and here eps ~ (omega dt)^-2, so |rho - rho_inf| ~ (omega dt)^(-2/3):
    # ~2e-3 at 1e4 and ~1e-4 at 1e6 (measured 1.5e-3..2.2e-3 and 0.7e-4..1.0e-4).
    rho_4 = _amplification_spectral_radius(rho_inf, 1e4)
    rho_6 = _amplification_spectral_radius(rho_inf, 1e6)
    assert rho_4 == pytest.approx(rho_inf, abs=5e-3)
    assert rho_6 == pytest.approx(rho_inf, abs=3e-4)
    # and the deviation does shrink like (omega dt)^(-2/3): factor 100^(2/3) ~ 21.5
    assert 10.0 < abs(rho_4 - rho_inf) / abs(rho_6 - rho_inf) < 40.0


def test_generalized_alpha_rho_one_is_non_dissipative():
    # rho_inf = 1 is the trapezoidal rule: |eigenvalues| = 1 at every omega dt, to
    # round-off of the eigenvalue computation (1e-12)
    for omega_dt in (1e-2, 1.0, 1e4):
        assert _amplification_spectral_radius(1.0, omega_dt) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.8])
def test_generalized_alpha_low_frequency_spectral_radius_near_one(rho_inf):
    # Low-frequency numerical damping of the generalised-alpha method is third order
    # (ratio ~ (omega dt)^3), so 1 - rho = O((omega dt)^4) ~ 1e-8 at omega dt = 1e-2
    # (measured <= 5e-9); the spurious root -rho_inf never exceeds 1.
    rho = _amplification_spectral_radius(rho_inf, 1e-2)
    assert 1.0 - 1e-8 < rho <= 1.0 + 1e-12


def test_generalized_alpha_rho_one_equals_newmark_average_acceleration():
    # Unforced constant system: with alpha_m = alpha_f = 1/2 the mid-step balance is the
    # average of the equations at t_k and t_{k+1}; starting from a consistent a_0 it
    # reproduces Newmark average acceleration up to round-off (500 steps -> 1e-11).
    M = np.diag([1.0, 3.0])
    C = np.array([[0.2, -0.1], [-0.1, 0.3]])
    K = np.array([[8.0, -3.0], [-3.0, 5.0]])
    sys2 = constant_system(M, C, K)
    a = newmark(sys2, [1.0, -1.0], [0.5, 0.0], t_end=5.0, dt=0.01)
    b = generalized_alpha(sys2, [1.0, -1.0], [0.5, 0.0], t_end=5.0, dt=0.01, rho_inf=1.0)
    np.testing.assert_allclose(b.q, a.q, rtol=0, atol=1e-11)
    np.testing.assert_allclose(b.qd, a.qd, rtol=0, atol=1e-11)
    assert b.method == "generalized_alpha(rho_inf=1.0)"


def test_generalized_alpha_damps_high_frequency_mode():
    # Stiff mode with omega dt = 100: with rho_inf = 0 it is annihilated, while the
    # trapezoidal rule (rho_inf = 1) keeps its amplitude forever.
    sys1 = _oscillator(omega=1e4)
    kw = dict(t_end=0.5, dt=0.01)
    damped = generalized_alpha(sys1, [1.0], [0.0], rho_inf=0.0, **kw)
    kept = generalized_alpha(sys1, [1.0], [0.0], rho_inf=1.0, **kw)
    # spectral radius ~ (omega dt)^(-2/3) ~ 0.05 per step: after 50 steps << 1e-6
    assert abs(damped.q[-1, 0]) < 1e-6
    # energy-conserving: |q| stays on the unit ellipse; amplitude 1 to round-off
    amp = np.hypot(kept.q[:, 0], kept.qd[:, 0] / 1e4)
    np.testing.assert_allclose(amp, 1.0, rtol=1e-10)


def test_scheme_step_satisfies_chung_hulbert_midpoint_balance():
    """One step of the shared formulas (:class:`GeneralizedAlphaScheme`: Arnold & Bruels'
    end-point form, the equation at t_{k+1} with the true accelerations) satisfies Chung &
    Hulbert's balance at the generalized midpoint, M a_{k+1-am} + C v_{k+1-af} +
    K x_{k+1-af} = (1-af) f_{k+1} + af f_k, for constant matrices and a consistent start:
    the equivalence the module docstring states. Random 3-dof data of size 1: round-off of
    a few dense 3 x 3 products and one solve, 1e-12."""
    rng = np.random.default_rng(7)
    n, h = 3, 0.05
    M = np.eye(n) + 0.1 * rng.normal(size=(n, n))
    M = M @ M.T
    C, K = 0.1 * np.eye(n), np.diag([4.0, 9.0, 25.0])
    f0, f1 = rng.normal(size=n), rng.normal(size=n)
    x, v, a = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    z = np.linalg.solve(M, f0 - C @ v - K @ x)          # consistent x_dd_k
    for rho in (0.0, 0.6, 1.0):
        p = generalized_alpha_parameters(rho)
        sch = GeneralizedAlphaScheme(p, h)
        xp, vp, ak = sch.start(x, v, a, z)
        # the equation at t_{k+1} is affine in x_dd: solve it with the scheme's
        # derivatives beta' = dx/dx_dd, gamma' = dv/dx_dd
        x0_, v0_ = sch.correct(xp, vp, sch.algorithmic(ak, np.zeros(n)))
        S = M + sch.gamma_p * C + sch.beta_p * K
        z1 = np.linalg.solve(S, f1 - C @ v0_ - K @ x0_)
        a1 = sch.algorithmic(ak, z1)
        x1, v1 = sch.correct(xp, vp, a1)
        np.testing.assert_allclose(M @ z1 + C @ v1 + K @ x1, f1, atol=1e-12)
        am, af = p.alpha_m, p.alpha_f
        lhs = (M @ ((1 - am) * a1 + am * a) + C @ ((1 - af) * v1 + af * v)
               + K @ ((1 - af) * x1 + af * x))
        np.testing.assert_allclose(lhs, (1 - af) * f1 + af * f0, atol=1e-12)
        assert sch.beta_p == pytest.approx(h * h * p.beta * (1 - af) / (1 - am), rel=1e-15)
        assert sch.gamma_p == pytest.approx(h * p.gamma * (1 - af) / (1 - am), rel=1e-15)
        np.testing.assert_allclose(sch.true_accelerations(ak, a1), z1, rtol=1e-12)


class _Pendulum(NonlinearProblem):
    """theta'' + (g / L) sin(theta) = 0 as a residual in theta'' (Newton: the
    iteration matrix 1 + beta' (g / L) cos(theta), the exact derivative)."""

    n = 1
    w2 = 9.81 / 0.5

    def residual(self, t, x, v, z):
        return z + self.w2 * np.sin(x)

    def matrix(self, t, x, v, z, beta_p, gamma_p):
        return np.array([[1.0 + beta_p * self.w2 * np.cos(x[0])]])


@pytest.mark.parametrize("rho_inf", [0.5, 1.0])
def test_shared_loop_is_second_order_on_a_nonlinear_pendulum(rho_inf):
    """The one generalized-alpha loop with Newton iterations on a nonlinear equation (a
    pendulum released at 1.2 rad, 2 s, about 2 periods) against DOP853 at rtol 1e-12
    (reference error ~1e-11): errors in theta fall as dt^2 (Arnold & Bruels 2007,
    Theorem 1); measured 2.0e-3..1.2e-4 (rho_inf 0.5) and 1.3e-3..8.3e-5 (1.0), slopes
    1.997 and 2.000, asserted 2 +- 0.1. Newton to 1e-13 rad per step, far below those
    errors: 2 iterations per step (exact tangent; asserted <= 4)."""
    from scipy.integrate import solve_ivp
    th0, T = 1.2, 2.0
    w2 = _Pendulum.w2
    ref = solve_ivp(lambda t, y: [y[1], -w2 * np.sin(y[0])], (0, T), [th0, 0.0],
                    method="DOP853", rtol=1e-12, atol=1e-12).y[0, -1]
    dts, errs = [0.01, 0.005, 0.0025], []
    for dt in dts:
        res = generalized_alpha_nonlinear(_Pendulum(), [th0], [0.0], [-w2 * np.sin(th0)],
                                          t_end=T, dt=dt, rho_inf=rho_inf, atol=1e-13)
        assert res.newton[1:].max() <= 4 and res.stopped == ""
        errs.append(abs(res.x[-1, 0] - ref))
    assert _slope(dts, errs) == pytest.approx(2.0, abs=0.1)


def test_linear_integrator_is_the_shared_loop():
    """generalized_alpha (linear, one exact Newton step per step) and the shared loop
    iterating on the same oscillator written as a nonlinear problem agree to the
    latter's Newton tolerance (1e-14 m per step, 200 steps: 1e-11)."""
    class Oscillator(NonlinearProblem):
        n = 1

        def residual(self, t, x, v, z):
            return z + 0.2 * v + 40.0 * x - np.cos(3.0 * t)

        def matrix(self, t, x, v, z, beta_p, gamma_p):
            return np.array([[1.0 + 0.2 * gamma_p + 40.0 * beta_p]])

    sys1 = constant_system(1.0, 0.2, 40.0, f=lambda t: [np.cos(3.0 * t)])
    lin = generalized_alpha(sys1, [0.1], [0.0], t_end=2.0, dt=0.01, rho_inf=0.7)
    it = generalized_alpha_nonlinear(Oscillator(), [0.1], [0.0], [1.0 - 4.0], t_end=2.0,
                                     dt=0.01, rho_inf=0.7, atol=1e-14, rtol=0.0)
    np.testing.assert_allclose(lin.q, it.x, rtol=0, atol=1e-11)
    np.testing.assert_allclose(lin.qdd, it.a, rtol=0, atol=1e-9)


def test_newmark_parameters():
    p = newmark_parameters(0.3, 0.6)
    assert (p.alpha_m, p.alpha_f, p.beta, p.gamma) == (0.0, 0.0, 0.3, 0.6)
    assert math.isnan(p.rho_inf)
    with pytest.raises(InputError, match="beta"):
        newmark_parameters(-1.0, 0.5)


# --------------------------------------------------------------------------- vs solve_ivp
@pytest.mark.parametrize("integrator", [newmark, generalized_alpha])
def test_implicit_integrators_match_runge_kutta_on_mathieu_2dof(integrator):
    system = _mathieu_2dof()
    q0, qd0 = np.array([0.1, -0.2]), np.array([0.0, 0.3])
    t_end = 10.0
    rhs = second_order_to_state_space(system)
    errors = []
    for dt in (0.02, 0.01):
        res = integrator(system, q0, qd0, t_end=t_end, dt=dt)
        # DOP853 at rtol = atol = 1e-12: reference error ~1e-11, negligible against the
        # O(dt^2) ~ 1e-5 error of the implicit schemes
        ref = simulate_state_space(
            rhs, np.concatenate([q0, qd0]), t_span=(0.0, t_end), t_eval=res.time,
            method="DOP853", rtol=1e-12, atol=1e-12,
        )
        assert ref.state.shape == (res.time.size, 4)
        err_q = np.max(np.abs(res.q - ref.state[:, :2]))
        err = max(err_q, np.max(np.abs(res.qd - ref.state[:, 2:])))
        errors.append(err)
    # O(dt^2) error C dt^2: measured 8.6e-4 (Newmark) and 9.3e-4 (gen-alpha) at dt = 0.02,
    # i.e. C ~ 2.3 for states of size ~1 (modes 1.4 and 2.2 rad/s, forcing 1.3 rad/s,
    # 10 s); 2e-3 (C = 5) keeps a 2x margin while still failing for a first-order scheme
    assert errors[0] < 2e-3
    # halving dt divides a second-order error by 4; 3.6..4.4 allows O(dt^3) terms (~5%)
    assert 3.6 < errors[0] / errors[1] < 4.4


# --------------------------------------------------------------------------- steady state
def _forced_sdof():
    m, omega_n, zeta, F0 = 2.0, TWO_PI, 0.1, 3.0
    k, c = m * omega_n**2, 2.0 * zeta * m * omega_n
    Omega = 1.5 * omega_n
    amplitude = F0 / math.hypot(k - m * Omega**2, c * Omega)
    phase = math.atan2(c * Omega, k - m * Omega**2)  # q = X cos(Omega t - phase)
    return dict(m=m, c=c, k=k, F0=F0, Omega=Omega, X=amplitude, phi=phase, decay=zeta * omega_n)


def _fit_harmonic(time, q, Omega):
    """Least-squares amplitude and phase of q ~ X cos(Omega t - phi)."""
    basis = np.column_stack([np.cos(Omega * time), np.sin(Omega * time)])
    (a, b), *_ = np.linalg.lstsq(basis, q, rcond=None)
    return math.hypot(a, b), math.atan2(b, a)


@pytest.mark.parametrize(
    "integrate",
    [
        lambda s, **kw: newmark(s, [0.0], [0.0], **kw),
        lambda s, **kw: generalized_alpha(s, [0.0], [0.0], rho_inf=0.8, **kw),
    ],
    ids=["newmark", "generalized_alpha"],
)
def test_forced_damped_sdof_steady_state_amplitude_and_phase(integrate):
    p = _forced_sdof()
    force = lambda t: [p["F0"] * math.cos(p["Omega"] * t)]  # noqa: E731
    sys1 = constant_system(p["m"], p["c"], p["k"], f=force)
    period = TWO_PI / p["Omega"]
    t_end = 45 * period  # 30 s: transient e^{-zeta omega_n t} ~ 7e-9 of its start
    assert math.exp(-p["decay"] * t_end) < 1e-8
    res = integrate(sys1, t_end=t_end, dt=period / 200)
    last = res.time >= t_end - 4 * period
    X, phi = _fit_harmonic(res.time[last], res.q[last, 0], p["Omega"])
    # With 200 steps per forcing period, Omega dt = 0.031: the O((Omega dt)^2) errors are
    # measured at 2.8e-4 (Newmark) / 1.8e-4 (gen-alpha) in amplitude and 5e-5 rad in
    # phase; 1e-3 keeps a 3.5x margin while a first-order error (~3e-2) would fail
    assert X == pytest.approx(p["X"], rel=1e-3)
    assert phi == pytest.approx(p["phi"], abs=1e-3)


def test_simulate_state_space_forced_sdof_with_input_and_params():
    p = _forced_sdof()

    def rhs(t, x, u, params):  # python-control convention
        return np.array([x[1], (u - params["c"] * x[1] - params["k"] * x[0]) / params["m"]])

    period = TWO_PI / p["Omega"]
    t_end = 45 * period
    t_eval = np.linspace(t_end - 4 * period, t_end, 401)
    res = simulate_state_space(
        rhs, [0.0, 0.0], t_span=(0.0, t_end), t_eval=t_eval, method="DOP853",
        rtol=1e-10, atol=1e-12, params={k: p[k] for k in ("m", "c", "k")},
        u=lambda t: p["F0"] * math.cos(p["Omega"] * t),
    )
    assert isinstance(res, StateSpaceResult) and res.success and res.nfev > 0
    assert res.state.shape == (401, 2) and np.array_equal(res.time, t_eval)
    X, phi = _fit_harmonic(res.time, res.state[:, 0], p["Omega"])
    # tolerance 1e-10 and residual transient ~7e-9: amplitude/phase to ~1e-8; 1e-6 margin
    assert X == pytest.approx(p["X"], rel=1e-6)
    assert phi == pytest.approx(p["phi"], abs=1e-6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.success = False


def test_second_order_to_state_space_rhs():
    sys1 = constant_system(np.diag([2.0, 4.0]), np.eye(2), np.diag([8.0, 4.0]), f=[2.0, 0.0])
    rhs = second_order_to_state_space(sys1)
    dx = rhs(0.0, np.array([1.0, 1.0, 0.0, 2.0]), None, None)
    # qdd = M^-1 (f - C qd - K q) = [(2 - 0 - 8)/2, (0 - 2 - 4)/4]; exact in binary
    np.testing.assert_array_equal(dx, [0.0, 2.0, -3.0, -1.5])
    dx_u = rhs(0.0, np.array([1.0, 1.0, 0.0, 2.0]), np.array([2.0, 4.0]), None)
    np.testing.assert_array_equal(dx_u, [0.0, 2.0, -2.0, -0.5])  # u adds to f
    with pytest.raises(DimensionError, match="x"):
        rhs(0.0, np.zeros(3), None, None)


# --------------------------------------------------------------------------- bad input
def _singular_mass_system(t):
    return np.array([[1.0, 1.0], [1.0, 1.0]]), np.zeros((2, 2)), np.eye(2), np.zeros(2)


_OK = dict(t_end=1.0, dt=0.1)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=0.0), "dt"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=-0.1), "dt"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=float("nan")), "dt"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=0.3), "dt"),  # 3.33 steps
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=5.0), "dt"),  # 0 steps
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=0.0, dt=0.1), "t_end"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], t_end=1.0, t0=2.0, dt=0.1), "t_end"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], beta=-0.1, **_OK), "beta"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], gamma=float("inf"), **_OK), "gamma"),
        (lambda: newmark(_oscillator(), [1.0, 2.0], [0.0], **_OK), "q0"),
        (lambda: newmark(_oscillator(), [1.0], [[0.0]], **_OK), "qd0"),
        (lambda: newmark(_oscillator(), [float("nan")], [0.0], **_OK), "q0"),
        (lambda: newmark(_oscillator(), [1.0], [0.0], qdd0=[1.0, 2.0], **_OK), "qdd0"),
        (lambda: newmark(_singular_mass_system, [1.0, 0.0], [0.0, 0.0], **_OK), "system"),
        (lambda: newmark("not callable", [1.0], [0.0], **_OK), "system"),
        (lambda: newmark(lambda t: (1.0, 2.0), [1.0], [0.0], **_OK), "system"),
        (lambda: generalized_alpha(_oscillator(), [1.0], [0.0], rho_inf=-0.1, **_OK), "rho_inf"),
        (lambda: generalized_alpha(_oscillator(), [1.0], [0.0], rho_inf=1.1, **_OK), "rho_inf"),
        (lambda: generalized_alpha(_oscillator(), [1.0], [0.0], rho_inf=math.nan, **_OK),
         "rho_inf"),
        (lambda: generalized_alpha(_oscillator(), [1.0], [0.0], t_end=1.0, dt=-1.0), "dt"),
        (lambda: generalized_alpha(_oscillator(), [1.0], [0.0], t_end=-1.0, dt=0.1), "t_end"),
        (lambda: generalized_alpha(_oscillator(), [1.0, 0.0], [0.0], **_OK), "q0"),
        (lambda: generalized_alpha(_singular_mass_system, [1, 0], [0, 0], **_OK), "system"),
    ],
)
def test_bad_input_second_order(call, name):
    with pytest.raises(ValueError) as info:
        call()
    assert isinstance(info.value, (InputError, DimensionError, ModelError))
    assert name in str(info.value)
    if isinstance(info.value, InputError):
        assert info.value.name == name


def test_dt_mismatch_message_explains_the_rule():
    with pytest.raises(InputError) as info:
        newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=0.3)
    msg = str(info.value)
    assert "integer number of steps" in msg and "1e-9" in msg
    # a dt within 1e-9 relative of the exact division is accepted, t_end is hit exactly
    res = newmark(_oscillator(), [1.0], [0.0], t_end=1.0, dt=0.1 * (1 + 1e-11))
    assert res.n_steps == 10 and res.time[-1] == 1.0


def test_singular_step_matrix_during_run_raises_model_error():
    # M(t) = 1 - t becomes exactly singular at t = 1 (a grid point; C = K = 0)
    def system(t):
        return np.array([[1.0 - t]]), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1)

    with pytest.raises(ModelError, match="singular"):
        newmark(system, [0.0], [0.0], t_end=2.0, dt=0.5)


def test_singular_mass_in_state_space_rhs():
    rhs = second_order_to_state_space(_singular_mass_system)
    with pytest.raises(ModelError, match="singular"):
        rhs(0.0, np.zeros(4), None, None)


def _decay(t, x, u, params):
    return -x


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(rhs="f", x0=[1.0], t_span=(0, 1)), "rhs"),
        (dict(rhs=_decay, x0=[[1.0]], t_span=(0, 1)), "x0"),
        (dict(rhs=_decay, x0=[float("nan")], t_span=(0, 1)), "x0"),
        (dict(rhs=_decay, x0=[1.0], t_span=(1, 0)), "t_span"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0,)), "t_span"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), t_eval=[0.5, 2.0]), "t_eval"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), t_eval=[0.5, 0.2]), "t_eval"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), method="Euler"), "method"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), rtol=0.0), "rtol"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), atol=-1.0), "atol"),
        (dict(rhs=_decay, x0=[1.0], t_span=(0, 1), u=3.0), "u"),
        (dict(rhs=lambda t, x, u, p: np.zeros(2), x0=[1.0], t_span=(0, 1)), "rhs"),
    ],
)
def test_bad_input_state_space(kwargs, name):
    rhs = kwargs.pop("rhs")
    x0 = kwargs.pop("x0")
    with pytest.raises(ValueError) as info:
        simulate_state_space(rhs, x0, **kwargs)
    assert isinstance(info.value, (InputError, DimensionError))
    assert name in str(info.value)


def test_state_space_integration_failure_raises_model_error():
    # x' = x^2, x(0) = 1 blows up at t = 1: solve_ivp cannot reach t = 2
    with pytest.raises(ModelError) as info:
        simulate_state_space(lambda t, x, u, p: x**2, [1.0], t_span=(0.0, 2.0))
    assert isinstance(info.value, ValueError)
    assert "step size" in str(info.value)  # solve_ivp's own message is passed on
