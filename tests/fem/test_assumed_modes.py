"""Tests of elastodyn.fem.assumed_modes (sine and clamped-free assumed-mode bases).

Tolerances.  The integrands are analytic; Gauss-Legendre with the default 6 count + 24 points
converges to round-off, so integrals are compared at relative 1e-12 (M, K scale as O(1) and
O((bL)^4) respectively; round-off of the sums ~ count * eps * largest term).  Stiffness
off-diagonals are compared with sqrt(K_ii K_jj) at 1e-9: phi'' grows like (b_k L)^2, the
cancellation in off-diagonal sums loses ~log10((b L)^4) digits.  Boundary values are scaled
by b^n (the natural size of the n-th derivative).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from elastodyn.exceptions import DimensionError, InputError
from elastodyn.fem.assumed_modes import (
    ClampedFreeModes,
    ModalIntegrals,
    SineModes,
    cantilever_roots,
)
from elastodyn.fem.ffrf import ffrf_invariants, planar_stiffness

L = 0.8            # m
RHO_A = 1.7        # kg/m
EI = 35.0          # N m^2


# ------------------------------------------------------------------ sine modes
def test_sine_integrals_closed_form():
    n = 5
    modes = SineModes(L, n)
    I = modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    assert isinstance(I, ModalIntegrals)
    k = np.arange(1, n + 1)
    kp = k * math.pi / L
    np.testing.assert_allclose(I.mass_matrix, RHO_A * L / 2 * np.eye(n), rtol=1e-13, atol=1e-14 * RHO_A * L)
    K = EI * kp**4 * L / 2
    np.testing.assert_allclose(I.stiffness_matrix, np.diag(K), rtol=1e-12, atol=1e-12 * K.max())
    G = kp**2 * L / 2
    np.testing.assert_allclose(I.geometric_matrix, np.diag(G), rtol=1e-12, atol=1e-12 * G.max())
    # int_0^L sin(k pi x/L) dx = L (1 - cos k pi) / (k pi); int x sin = -L^2 cos(k pi) / (k pi)
    np.testing.assert_allclose(I.translation_coupling, RHO_A * L * (1 - np.cos(k * math.pi)) / (k * math.pi),
                               rtol=1e-13, atol=1e-14 * RHO_A * L)
    np.testing.assert_allclose(I.rotation_coupling, -RHO_A * L**2 * np.cos(k * math.pi) / (k * math.pi),
                               rtol=1e-13)
    np.testing.assert_allclose(I.tip_displacement, 0.0, atol=1e-14)
    np.testing.assert_allclose(I.tip_slope, kp * np.cos(k * math.pi), rtol=1e-13)
    assert not I.mass_matrix.flags.writeable


def test_sine_stiffness_matches_yu_chen_eq21():
    """Yu & Chen (2019) eq. (21): U = pi^4 EI (f1^2 + 16 f2^2) / (4 L^3) for two sine modes."""
    I = SineModes(L, 2).integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    f = np.array([0.013, -0.004])
    U = 0.5 * f @ I.stiffness_matrix @ f
    assert U == pytest.approx(math.pi**4 * EI * (f[0] ** 2 + 16 * f[1] ** 2) / (4 * L**3), rel=1e-12)


def test_sine_derivatives_and_pinned_ends():
    modes = SineModes(L, 4)
    x = np.linspace(0.0, L, 9)
    b = np.arange(1, 5) * math.pi / L
    expected = [np.sin(np.outer(x, b)), b * np.cos(np.outer(x, b)),
                -b**2 * np.sin(np.outer(x, b)), -b**3 * np.cos(np.outer(x, b))]
    for d in range(4):
        np.testing.assert_allclose(modes.shape(x, d), expected[d], atol=1e-12 * b.max() ** d)
    ends = np.array([0.0, L])
    # pinned-pinned (not clamped): phi = phi'' = 0 at both ends, phi'(0) != 0
    assert np.abs(modes.shape(ends, 0)).max() < 1e-14
    assert np.abs(modes.shape(ends, 2)).max() < 1e-13 * b.max() ** 2
    assert np.all(np.abs(modes.shape(0.0, 1)) > 1.0)
    assert modes.shape(0.4, 0).shape == (4,)


# ------------------------------------------------------------------ clamped-free
def test_cantilever_first_root_literature_value():
    """beta_1 L = 1.8751040687 (Blevins, Formulas for Natural Frequency and Mode Shape, 1979,
    Table 8-1; also Meirovitch, Elements of Vibration Analysis), and following roots."""
    z = cantilever_roots(5)
    assert z[0] == pytest.approx(1.8751040687, abs=2e-10)
    np.testing.assert_allclose(z, [1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349, 14.1371683910],
                               atol=2e-10)
    # residual of the frequency equation relative to its scale cosh(z)
    assert np.abs((1 + np.cos(z) * np.cosh(z)) / np.cosh(z)).max() < 1e-14
    zz = cantilever_roots(30)
    k = np.arange(1, 31)
    assert abs(zz[-1] - (2 * 30 - 1) * math.pi / 2) < 1e-12     # asymptote (2k-1) pi/2
    assert np.all(np.diff(zz) > 0)
    assert np.all((zz > (k - 1) * math.pi) & (zz < k * math.pi))


def test_clamped_free_boundary_conditions():
    modes = ClampedFreeModes(L, 8)
    b = modes.wavenumbers
    assert np.abs(modes.shape(0.0, 0)).max() < 1e-13
    assert np.abs(modes.shape(0.0, 1) / b).max() < 1e-13
    assert np.abs(modes.shape(L, 2) / b**2).max() < 1e-11
    assert np.abs(modes.shape(L, 3) / b**3).max() < 1e-11
    # classical tip value |phi(L)| = 2 for this normalization
    np.testing.assert_allclose(np.abs(modes.tip_values()[0]), 2.0, rtol=1e-12)


def test_clamped_free_matches_textbook_form_for_low_modes():
    """The cancellation-free evaluation equals cosh - cos - sigma (sinh - sin) where the
    latter is still accurate (b L < 12)."""
    modes = ClampedFreeModes(L, 4)
    x = np.linspace(0.0, L, 11)
    bx = np.outer(x, modes.wavenumbers)
    z = modes.roots
    sigma = (np.cosh(z) + np.cos(z)) / (np.sinh(z) + np.sin(z))
    np.testing.assert_allclose(modes.sigma, sigma, rtol=1e-14)
    naive = np.cosh(bx) - np.cos(bx) - sigma * (np.sinh(bx) - np.sin(bx))
    np.testing.assert_allclose(modes.shape(x), naive, atol=1e-10)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_clamped_free_derivatives_match_finite_differences(d):
    modes = ClampedFreeModes(L, 5)
    x = np.linspace(0.05, 0.95, 7) * L
    h = 1e-6 * L
    fd = (modes.shape(x + h, d - 1) - modes.shape(x - h, d - 1)) / (2 * h)
    b = modes.wavenumbers
    # truncation ~ (b h)^2 / 6 relative, round-off ~ eps / (b h)
    np.testing.assert_allclose(modes.shape(x, d) / b**d, fd / b**d, atol=1e-7)


def test_clamped_free_orthogonality_and_exact_frequencies():
    n = 8
    modes = ClampedFreeModes(L, n)
    I = modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    M, K = I.mass_matrix, I.stiffness_matrix
    # normalization int phi^2 dx = L  ->  M_kk = rho A L
    np.testing.assert_allclose(np.diag(M), RHO_A * L, rtol=1e-12)
    off = ~np.eye(n, dtype=bool)
    assert np.abs(M[off]).max() < 1e-12 * RHO_A * L
    dK = np.sqrt(np.outer(np.diag(K), np.diag(K)))
    assert np.abs(K[off] / dK[off]).max() < 1e-9
    # Rayleigh quotient of each exact eigenfunction = omega_k^2 = (b_k L)^4 EI / (rho A L^4)
    np.testing.assert_allclose(np.diag(K) / np.diag(M), modes.roots**4 * EI / (RHO_A * L**4), rtol=1e-11)
    # generalized eigenvalues of (K, M) reproduce the exact cantilever frequencies
    from scipy.linalg import eigh
    w2 = eigh(K, M, eigvals_only=True)
    np.testing.assert_allclose(np.sqrt(w2), modes.roots**2 * math.sqrt(EI / (RHO_A * L**4)), rtol=1e-10)


def test_clamped_free_coupling_integrals_closed_form():
    """From phi'''' = b^4 phi and the boundary conditions: int phi dx = -phi'''(0)/b^4
    = 2 sigma / b and int x phi dx = phi''(0)/b^4 = 2 / b^2."""
    modes = ClampedFreeModes(L, 6)
    I = modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    b = modes.wavenumbers
    np.testing.assert_allclose(I.translation_coupling, RHO_A * 2 * modes.sigma / b, rtol=1e-12)
    np.testing.assert_allclose(I.rotation_coupling, RHO_A * 2 / b**2, rtol=1e-12)
    np.testing.assert_allclose(I.tip_slope, modes.shape(L, 1), rtol=0)


def test_clamped_free_geometric_matrix_against_scipy_quad():
    modes = ClampedFreeModes(L, 3)
    I = modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    for i in range(3):
        for j in range(i, 3):
            val, _ = integrate.quad(lambda x: modes.shape(x, 1)[i] * modes.shape(x, 1)[j], 0.0, L,
                                    epsabs=1e-13, epsrel=1e-13, limit=200)
            assert I.geometric_matrix[i, j] == pytest.approx(val, rel=1e-10, abs=1e-11)


@pytest.mark.parametrize("cls", [SineModes, ClampedFreeModes])
def test_shape_matrix_plugs_into_ffrf(cls):
    """The FFRF adaptor (axial row zero) reproduces the modal integrals through ffrf.py."""
    modes = cls(L, 4)
    I = modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI)
    inv = ffrf_invariants(modes.shape_matrix, length=L, mass_per_length=RHO_A, n_gauss=60)
    np.testing.assert_allclose(inv.S_ff, I.mass_matrix, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(inv.S_bar[1], I.translation_coupling, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(inv.J_of, I.rotation_coupling, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(inv.S_tilde, 0.0, atol=0)
    K = planar_stiffness(modes.shape_matrix, length=L, axial_stiffness=0.0, bending_stiffness=EI, n_gauss=60)
    np.testing.assert_allclose(K, I.stiffness_matrix, rtol=1e-10, atol=1e-10 * np.abs(K).max())


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("cls", [SineModes, ClampedFreeModes])
def test_bad_input(cls):
    for length, count in ((0.0, 2), (-1.0, 2), (float("nan"), 2), (1.0, 0), (1.0, 1.5), (1.0, True)):
        with pytest.raises(InputError):
            cls(length, count)
    modes = cls(L, 3)
    for x in (-0.01, L * 1.01, float("inf")):
        with pytest.raises(InputError):
            modes.shape(x)
    with pytest.raises(DimensionError):
        modes.shape(np.zeros((2, 2)))
    for d in (-1, 4, 2.0):
        with pytest.raises(InputError):
            modes.shape(0.1, derivative=d)
    with pytest.raises(InputError):
        modes.shape_matrix(1.5)
    with pytest.raises(InputError) as err:
        modes.integrals(mass_per_length=0.0, bending_stiffness=EI)
    assert err.value.name == "mass_per_length"
    with pytest.raises(InputError):
        modes.integrals(mass_per_length=RHO_A, bending_stiffness=-1.0)
    with pytest.raises(InputError):
        modes.integrals(mass_per_length=RHO_A, bending_stiffness=EI, n_gauss=0)
    with pytest.raises(InputError):
        cantilever_roots(0)
    assert isinstance(InputError("a", 1, "b"), ValueError)


# ------------------------------------------------------------------ chord-frame ModeShapes
def test_mode_shapes_live_in_fem_and_are_re_exported():
    from elastodyn.fem.assumed_modes import ModeShapes
    from elastodyn.formulations.amm.generator import ModeShapes as FromArm
    assert FromArm is ModeShapes


@pytest.mark.parametrize("kind", ["sine", "clamped-free"])
def test_mode_shapes_symbolic_values_and_slopes(kind):
    """ModeShapes.symbolic (sympy, used with symbolic positions by the arm generator)
    equals the numerical values and slopes (the symbolic clamped-free form cosh - sigma
    sinh cancels terms of size exp(b) / 2, b_4 = 10.9955 for the fourth mode, 1e-15 exp(b_4)
    (b_4 + 1) = 7e-10 allowed, b_4 times that for the slopes, whose terms are b times
    larger; 4e-11 and 2.9e-9 measured, the latter with sympy 1.14), and the numerical slopes equal central
    differences of the values (step 1e-6: truncation (k pi)^3 h^2 / 6 ~ 1e-9, asserted
    1e-7 of the slope scale k pi). Both vanish at the ends of the chord."""
    import sympy as sp
    from elastodyn.fem.assumed_modes import ModeShapes
    m = ModeShapes(kind, 4)
    xi = np.array([0.0, 0.13, 0.5, 0.77, 1.0])
    x = sp.Symbol("x", real=True)
    bmax = 10.9955
    for d in (0, 1):
        f = sp.lambdify(x, m.symbolic(x, d), "numpy")
        sym = np.array([np.broadcast_to(f(v), (4,)) for v in xi], dtype=float)
        # the slope's cancelling terms carry one more factor b (d/dx of cosh(b x))
        np.testing.assert_allclose(sym, m.values(xi, d), rtol=0,
                                   atol=1e-15 * np.exp(bmax) * (bmax + 1) * bmax**d)
    h = 1e-6
    inner = xi[1:-1]
    fd = (m.values(inner + h) - m.values(inner - h)) / (2 * h)
    scale = np.pi * np.arange(1, 5)
    assert np.abs((fd - m.values(inner, 1)) / scale).max() < 1e-7
    assert np.abs(m.values([0.0, 1.0])).max() < 1e-12


def test_mode_shapes_bad_input():
    from elastodyn.fem.assumed_modes import ModeShapes
    for kwargs, name in (({"kind": "legendre", "count": 2}, "basis"),
                         ({"kind": "sine", "count": 0}, "count")):
        with pytest.raises(InputError) as err:
            ModeShapes(**kwargs)
        assert err.value.name == name
    with pytest.raises(InputError):
        ModeShapes("sine", 2).symbolic(0.5, 2)
