"""Tests of elastodyn.fem.ffrf (planar floating frame of reference, Rosyid & El-Khasawneh 2020).

Tolerances.  Gauss-Legendre quadrature with the default 12 points is exact for the polynomial
Rayleigh-Ritz shapes, so quadrature-vs-closed-form comparisons differ only by round-off
(relative 1e-13 allows ~500 ulp).  The kinetic-energy check uses a complex-step time
derivative (exact to round-off) and adaptive scipy quadrature (epsabs/epsrel 1e-13), hence
relative 1e-10.  The Lagrange check uses central differences with step h = 1e-5: the mass
matrix is quadratic in q_f (central differences exact up to round-off ~eps/h ~ 1e-11) and
trigonometric in theta (truncation ~h^2/6 ~ 2e-11), hence relative 1e-8.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import integrate

from elastodyn.exceptions import DimensionError, InputError
from elastodyn.fem.ffrf import (
    I_TILDE,
    FFRFInvariants,
    ffrf_invariants,
    planar_body_mass_matrix,
    planar_quadratic_velocity,
    planar_stiffness,
    rayleigh_ritz_shape,
    rosyid_element_matrices,
    rosyid_element_stiffness,
)

L = 0.486            # m, leg 1 of Rosyid section 8.1
RHO_A = 2700.0 * 0.15 * 0.05   # kg/m, aluminium-like 150 x 50 mm section
EA = 7.0e10 * 0.15 * 0.05
EI = 7.0e10 * 0.15 * 0.05**3 / 12


def _shape(reduced):
    return functools.partial(rayleigh_ritz_shape, length=L, reduced=reduced)


@pytest.fixture(scope="module", params=[False, True], ids=["full", "reduced"])
def case(request):
    reduced = request.param
    return reduced, ffrf_invariants(_shape(reduced), length=L, mass_per_length=RHO_A)


def _rot(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _random_state(rng, n_f):
    q_f = 0.05 * L * rng.standard_normal(n_f)
    q_f_dot = 0.5 * rng.standard_normal(n_f)
    return (rng.standard_normal(2), rng.uniform(-np.pi, np.pi), q_f,
            rng.standard_normal(2), 2.0 * rng.standard_normal(), q_f_dot)


# ------------------------------------------------------------------ shape matrix
def test_shape_interpolates_nodal_coordinates():
    q = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])        # u1, v1, th1, u2, v2, th2
    S0, S1 = rayleigh_ritz_shape(0.0, L), rayleigh_ritz_shape(1.0, L)
    dS0 = rayleigh_ritz_shape(0.0, L, derivative=1) / L   # d/dx
    dS1 = rayleigh_ritz_shape(1.0, L, derivative=1) / L
    np.testing.assert_allclose(S0 @ q, [0.1, 0.2], atol=1e-15)
    np.testing.assert_allclose(S1 @ q, [0.4, 0.5], atol=1e-15)
    assert dS0[1] @ q == pytest.approx(0.3, abs=1e-14)
    assert dS1[1] @ q == pytest.approx(0.6, abs=1e-14)


def test_shape_vectorized_and_reduced_is_last_three_columns():
    xi = np.linspace(0.0, 1.0, 7)
    full = rayleigh_ritz_shape(xi, L)
    red = rayleigh_ritz_shape(xi, L, reduced=True)
    assert full.shape == (7, 2, 6) and red.shape == (7, 2, 3)
    assert rayleigh_ritz_shape(0.3, L).shape == (2, 6)
    np.testing.assert_array_equal(red, full[:, :, 3:])
    np.testing.assert_allclose(full[3], rayleigh_ritz_shape(xi[3], L), rtol=0, atol=0)
    # reduced eq. (52) written out by hand
    x = 0.3
    np.testing.assert_allclose(rayleigh_ritz_shape(x, L, reduced=True),
                               [[x, 0, 0], [0, 3 * x**2 - 2 * x**3, L * (x**3 - x**2)]], rtol=1e-15)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_shape_derivatives_match_finite_differences(d):
    # cubic polynomials: the central difference of a degree <= 3 polynomial has truncation
    # error h^2/6 * f''' ~ 1e-11 (h = 1e-5 scaled); round-off ~ eps/h ~ 1e-11
    xi = np.linspace(0.1, 0.9, 5)
    h = 1e-5
    fd = (rayleigh_ritz_shape(xi + h, L, derivative=d - 1)
          - rayleigh_ritz_shape(xi - h, L, derivative=d - 1)) / (2 * h)
    np.testing.assert_allclose(rayleigh_ritz_shape(xi, L, derivative=d), fd, atol=1e-8)


# ------------------------------------------------------------------ invariants
def test_closed_form_element_matrices_equal_quadrature():
    """Rosyid eqs. (125)-(127) (closed form) vs ffrf_invariants of S_b (Gauss quadrature)."""
    inv = ffrf_invariants(_shape(False), length=L, mass_per_length=RHO_A)
    cf = rosyid_element_matrices(RHO_A * L, L)
    m = RHO_A * L
    np.testing.assert_allclose(inv.S_ff, cf.S_ff, rtol=1e-13, atol=1e-13 * m)
    np.testing.assert_allclose(inv.S_bar, cf.S_bar, rtol=1e-13, atol=1e-13 * m)
    np.testing.assert_allclose(inv.S_tilde, cf.S_tilde, rtol=1e-13, atol=1e-13 * m)
    # spot values, signs restored from the extracted text
    assert cf.S_tilde[0, 5] == pytest.approx(-2 * L * m / 60)
    assert cf.S_ff[1, 5] == pytest.approx(-13 * L * m / 420)
    assert cf.S_bar[1, 5] == pytest.approx(-L * m / 12)


def test_closed_form_element_stiffness_equals_quadrature():
    K = planar_stiffness(_shape(False), length=L, axial_stiffness=EA, bending_stiffness=EI)
    Kc = rosyid_element_stiffness(L, axial_stiffness=EA, bending_stiffness=EI)
    np.testing.assert_allclose(K, Kc, rtol=1e-12, atol=1e-12 * np.abs(Kc).max())
    # rigid-body modes of the element (translations and small rotation) are strain free
    rigid = np.array([[1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0], [0, 0, 1, 0, L, 1]], dtype=float)
    assert np.abs(Kc @ rigid.T).max() <= 1e-12 * np.abs(Kc).max()


def test_invariant_identities(case):
    reduced, inv = case
    m = RHO_A * L
    n = 3 if reduced else 6
    assert isinstance(inv, FFRFInvariants) and inv.n_f == n
    assert inv.mass == pytest.approx(m, rel=1e-15)
    np.testing.assert_allclose(inv.I1, [m * L / 2, 0.0], rtol=1e-14)
    assert inv.J_oo == pytest.approx(m * L**2 / 3, rel=1e-14)
    np.testing.assert_array_equal(inv.S21, inv.S12.T)
    np.testing.assert_allclose(inv.S_ff, inv.S11 + inv.S22, rtol=0, atol=0)
    np.testing.assert_allclose(inv.S_tilde, -inv.S_tilde.T, atol=0)
    assert np.linalg.eigvalsh(inv.S_ff).min() > 0.0
    # hand integrals of S_b: int rho x S_1 dx and int rho x S_2 dx
    I_o = m * L * np.array([1 / 6, 0, 0, 1 / 3, 0, 0])
    J_of = m * L * np.array([0, 3 / 20, L / 30, 0, 7 / 20, -L / 20])
    if reduced:
        I_o, J_of = I_o[3:], J_of[3:]
    np.testing.assert_allclose(inv.I_o, I_o, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(inv.J_of, J_of, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(inv.I_bar[1], 0.0)
    # I_tilde form: S_tilde = int rho S^T I_tilde S dV
    xi, w = np.polynomial.legendre.leggauss(12)
    S = _shape(reduced)(0.5 * (xi + 1))
    direct = np.einsum("q,qia,ij,qjb->ab", 0.5 * w * m, S, I_TILDE, S)
    np.testing.assert_allclose(inv.S_tilde, direct, rtol=1e-13, atol=1e-15)
    assert not inv.S_ff.flags.writeable


# ------------------------------------------------------------------ mass matrix
def test_mass_matrix_symmetric_positive_definite_reduced():
    inv = ffrf_invariants(_shape(True), length=L, mass_per_length=RHO_A)
    rng = np.random.default_rng(1)
    for _ in range(10):
        _, th, q_f, *_ = _random_state(rng, 3)
        M = planar_body_mass_matrix(inv, th, q_f)
        assert M.shape == (6, 6)
        np.testing.assert_array_equal(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 1e-8 * np.linalg.eigvalsh(M).max()


def test_mass_matrix_full_shape_has_rigid_null_space():
    # with S_b the nodal rigid-body modes duplicate R and theta: at q_f = 0 M has exactly
    # three zero eigenvalues (x and y translations, and rotation about the body origin)
    inv = ffrf_invariants(_shape(False), length=L, mass_per_length=RHO_A)
    theta = 0.7
    M = planar_body_mass_matrix(inv, theta, np.zeros(6))
    ev = np.linalg.eigvalsh(M)
    assert np.all(ev > -1e-12 * ev.max())
    assert np.sum(ev < 1e-10 * ev.max()) == 3
    A = _rot(theta)
    null = np.array([[*A @ [1, 0], 0, -1, 0, 0, -1, 0, 0],
                     [*A @ [0, 1], 0, 0, -1, 0, 0, -1, 0],
                     [0, 0, 1, 0, 0, -1, 0, -L, -1]])
    assert np.abs(M @ null.T).max() <= 1e-12 * ev.max()


def _kinetic_energy_direct(reduced, R, th, q_f, R_dot, th_dot, q_f_dot):
    """1/2 int rho |r_dot|^2 dx with r_dot by complex step in time and adaptive quadrature."""
    h = 1e-30
    shape = _shape(reduced)

    def integrand(xi):
        S = shape(xi)
        u = lambda t: np.array([L * xi, 0.0]) + S @ (q_f + t * q_f_dot)  # noqa: E731
        t = 1j * h
        ang = th + t * th_dot
        A = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        r = R + t * R_dot + A @ u(t)
        r_dot = r.imag / h
        return 0.5 * RHO_A * L * (r_dot @ r_dot)

    val, _ = integrate.quad(integrand, 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200)
    return val


def test_kinetic_energy_matches_direct_integration(case):
    reduced, inv = case
    rng = np.random.default_rng(2)
    for _ in range(4):
        R, th, q_f, R_dot, th_dot, q_f_dot = _random_state(rng, inv.n_f)
        qd = np.concatenate([R_dot, [th_dot], q_f_dot])
        T = 0.5 * qd @ planar_body_mass_matrix(inv, th, q_f) @ qd
        T_direct = _kinetic_energy_direct(reduced, R, th, q_f, R_dot, th_dot, q_f_dot)
        assert T == pytest.approx(T_direct, rel=1e-10)


def test_quadratic_velocity_matches_lagrange_equations(case):
    """Q_v = -(dM/dt q_dot - d/dq (1/2 q_dot^T M q_dot)), eq. (30) vs finite differences."""
    _, inv = case
    n = 3 + inv.n_f
    rng = np.random.default_rng(3)
    h = 1e-5

    def M(q):
        return planar_body_mass_matrix(inv, q[2], q[3:])

    for _ in range(4):
        R, th, q_f, R_dot, th_dot, q_f_dot = _random_state(rng, inv.n_f)
        q = np.concatenate([R, [th], q_f])
        qd = np.concatenate([R_dot, [th_dot], q_f_dot])
        Mdot_qd = (M(q + h * qd) - M(q - h * qd)) @ qd / (2 * h)
        dT = np.array([0.5 * qd @ (M(q + h * e) - M(q - h * e)) @ qd / (2 * h) for e in np.eye(n)])
        expected = -Mdot_qd + dT
        Qv = planar_quadratic_velocity(inv, th, th_dot, q_f, q_f_dot)
        scale = np.abs(M(q)).max() * (qd @ qd)
        np.testing.assert_allclose(Qv, expected, rtol=0, atol=1e-8 * scale)
        assert np.abs(Qv).max() > 1e-3 * scale    # not trivially zero


def test_quadratic_velocity_vanishes_at_rest(case):
    _, inv = case
    Qv = planar_quadratic_velocity(inv, 0.3, 0.0, np.full(inv.n_f, 0.01), np.zeros(inv.n_f))
    np.testing.assert_array_equal(Qv, 0.0)


# ------------------------------------------------------------------ stiffness
def test_reduced_stiffness_hand_values():
    """Eqs. (54)-(55) with S of eq. (52): axial EA/L and the clamped-free Hermite block."""
    K = planar_stiffness(_shape(True), length=L, axial_stiffness=EA, bending_stiffness=EI)
    hand = np.array([[EA / L, 0, 0],
                     [0, 12 * EI / L**3, -6 * EI / L**2],
                     [0, -6 * EI / L**2, 4 * EI / L]])
    np.testing.assert_allclose(K, hand, rtol=1e-12, atol=1e-12 * np.abs(hand).max())
    # static tip deflection under a tip force P: v = P L^3 / (3 EI), slope = P L^2 / (2 EI)
    P = 100.0
    sol = np.linalg.solve(K[1:, 1:], [P, 0.0])
    np.testing.assert_allclose(sol, [P * L**3 / (3 * EI), P * L**2 / (2 * EI)], rtol=1e-10)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, name", [
    (dict(length=0.0, mass_per_length=1.0), "length"),
    (dict(length=-1.0, mass_per_length=1.0), "length"),
    (dict(length=1.0, mass_per_length=float("nan")), "mass_per_length"),
    (dict(length=1.0, mass_per_length=1.0, n_gauss=0), "n_gauss"),
    (dict(length=1.0, mass_per_length=1.0, n_gauss=2.5), "n_gauss"),
])
def test_invariants_bad_input(kwargs, name):
    with pytest.raises(InputError) as err:
        ffrf_invariants(_shape(True), **kwargs)
    assert err.value.name == name


def test_bad_shape_function_and_states():
    with pytest.raises(DimensionError):
        ffrf_invariants(lambda xi: np.zeros((xi.size, 3, 2)), length=1.0, mass_per_length=1.0)
    with pytest.raises(InputError):
        ffrf_invariants("not callable", length=1.0, mass_per_length=1.0)
    with pytest.raises(InputError):
        ffrf_invariants(lambda xi: np.full((xi.size, 2, 2), np.inf), length=1.0, mass_per_length=1.0)
    inv = ffrf_invariants(_shape(True), length=L, mass_per_length=RHO_A)
    with pytest.raises(DimensionError):
        planar_body_mass_matrix(inv, 0.0, np.zeros(6))
    with pytest.raises(InputError):
        planar_body_mass_matrix(inv, float("inf"), np.zeros(3))
    with pytest.raises(InputError):
        planar_body_mass_matrix("inv", 0.0, np.zeros(3))
    with pytest.raises(InputError):
        planar_quadratic_velocity(inv, 0.0, float("nan"), np.zeros(3), np.zeros(3))
    with pytest.raises(DimensionError):
        planar_quadratic_velocity(inv, 0.0, 1.0, np.zeros(3), np.zeros(2))


def test_bad_shape_and_stiffness_arguments():
    for xi in (-0.1, 1.1, float("nan"), [0.5, 2.0]):
        with pytest.raises(InputError):
            rayleigh_ritz_shape(xi, 1.0)
    with pytest.raises(DimensionError):
        rayleigh_ritz_shape(np.zeros((2, 2)), 1.0)
    for d in (-1, 4, 1.0, True):
        with pytest.raises(InputError):
            rayleigh_ritz_shape(0.5, 1.0, derivative=d)
    with pytest.raises(InputError):
        rayleigh_ritz_shape(0.5, 0.0)
    with pytest.raises(InputError):
        planar_stiffness(_shape(True), length=L, axial_stiffness=-1.0, bending_stiffness=EI)
    with pytest.raises(InputError):
        rosyid_element_matrices(0.0, 1.0)
    with pytest.raises(InputError):
        rosyid_element_stiffness(1.0, axial_stiffness=EA, bending_stiffness=-EI)
    assert issubclass(InputError, ValueError)
