"""Natural frequencies of uniform beams against analytic references.

References: the characteristic equations of Euler-Bernoulli beams (e.g. Meirovitch,
Fundamentals of Vibrations, 2001, sec. 8.6; Blevins, Formulas for Natural Frequency and
Mode Shape, table 8-1), solved here with brentq (not hard-coded). Axial and torsional
rods: omega_n = (2n-1) pi / (2L) sqrt(E/rho) (clamped-free), n pi / L sqrt(.) (free-free).
"""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from elastodyn.analysis import beam_modes
from elastodyn.fem import BeamElement, Link, PointMass

# Characteristic equations f(x) = 0 in x = beta L, divided by cosh x for stability.
CHAR = {
    "clamped-free": (lambda x: math.cos(x) + 1 / math.cosh(x), lambda n: (2 * n - 1) * math.pi / 2),
    "free-free": (lambda x: math.cos(x) - 1 / math.cosh(x), lambda n: (2 * n + 1) * math.pi / 2),
    "clamped-clamped": (lambda x: math.cos(x) - 1 / math.cosh(x), lambda n: (2 * n + 1) * math.pi / 2),
    "clamped-pinned": (lambda x: math.sin(x) - math.cos(x) * math.tanh(x), lambda n: (4 * n + 1) * math.pi / 4),
    "pinned-pinned": (lambda x: math.sin(x), lambda n: n * math.pi),
}


def beta_l(ends, n):
    f, guess = CHAR[ends]
    g = guess(n)
    return brentq(f, g - 0.6, g + 0.6, xtol=1e-15)


def test_reference_roots_match_literature():
    # Sanity of the reference itself against tabulated values (Blevins table 8-1).
    assert beta_l("clamped-free", 1) == pytest.approx(1.87510407, abs=1e-8)
    assert beta_l("free-free", 1) == pytest.approx(4.73004074, abs=1e-8)
    assert beta_l("clamped-pinned", 1) == pytest.approx(3.92660231, abs=1e-8)


def bending_omegas(link, field, count):
    res = beam_modes(link, count=count)
    kinds = np.array(res.kinds)
    w = res.omega_rad_s[(kinds == f"bending-{field}") & (res.omega_rad_s > 0)]
    return w


@pytest.mark.parametrize("ends", list(CHAR))
@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_bending_frequencies_first_four_modes(ends, order, steel, rect):
    L = 0.8
    link = Link(BeamElement(spatial=True, order=order), L, 16, rect, steel, ends=ends)
    for field, I in (("v", rect.iz), ("w", rect.iy)):
        w = bending_omegas(link, field, 30)[:4]
        c = math.sqrt(steel.E * I / (steel.rho * rect.area)) / L**2
        ref = np.array([beta_l(ends, n) ** 2 * c for n in range(1, 5)])
        # Cubic Hermite: eigenvalue error ~ (beta_n h)^4 / 720, so omega's is half:
        # mode 4 with 16 elements, (10.996/16)^4/1440 = 1.6e-4. Quintic: O(h^8) < 1e-7.
        tol = 1.2 * (beta_l(ends, 4) / 16) ** 4 / 1440 if order == "cubic" else 1e-7
        np.testing.assert_allclose(w, ref, rtol=tol)


@pytest.mark.parametrize("ends", list(CHAR))
def test_planar_element_bending(ends, steel, rect):
    L = 1.2
    link = Link(BeamElement(spatial=False), L, 16, rect, steel, ends=ends)
    w = bending_omegas(link, "v", 20)[:4]
    c = math.sqrt(steel.E * rect.iz / (steel.rho * rect.area)) / L**2
    ref = np.array([beta_l(ends, n) ** 2 * c for n in range(1, 5)])
    # cubic Hermite: omega error ~ (beta_n h)^4 / 1440 (see above)
    np.testing.assert_allclose(w, ref, rtol=1.2 * (beta_l(ends, 4) / 16) ** 4 / 1440)


def _rel_error(order, n_el, steel, sec, mode=4):
    L = 1.0
    link = Link(BeamElement(True, order), L, n_el, sec, steel, ends="clamped-free")
    w = bending_omegas(link, "v", min(6 * n_el, 40))
    c = math.sqrt(steel.E * sec.iz / (steel.rho * sec.area)) / L**2
    return abs(w[mode - 1] / (beta_l("clamped-free", mode) ** 2 * c) - 1)


@pytest.mark.parametrize("order,n_list,slope", [
    # Hermite cubic bending: eigenvalue error O(h^(2(p+1-m))) = O(h^4) with p=3, m=2
    ("cubic", [8, 12, 16, 24, 32], 4.0),
    # Hermite quintic bending: O(h^8); few elements before round-off is reached
    ("quintic", [2, 3, 4, 5], 8.0),
])
def test_bending_convergence_rate(order, n_list, slope, steel, rect):
    err = [_rel_error(order, n, steel, rect) for n in n_list]
    fit = np.polyfit(np.log(1.0 / np.array(n_list)), np.log(err), 1)[0]
    # Pre-asymptotic effects on mode 4 with few elements: allow +-0.6 on the slope.
    assert abs(fit - slope) < 0.6, (fit, err)


def _axial_torsion(link, kind, count=60):
    res = beam_modes(link, count=count)
    return res.omega_rad_s[np.array(res.kinds) == kind]


@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_axial_and_torsion_frequencies(order, steel, rect):
    L = 0.5
    link = Link(BeamElement(True, order), L, 12, rect, steel, ends="clamped-free")
    n = np.arange(1, 4)
    ax_ref = (2 * n - 1) * math.pi / (2 * L) * math.sqrt(steel.E / steel.rho)
    to_ref = (2 * n - 1) * math.pi / (2 * L) * math.sqrt(steel.G * rect.j / (steel.rho * rect.ip))
    count = min(link.free_dofs().size, 72)
    ax = _axial_torsion(link, "axial", count)[:3]
    to = _axial_torsion(link, "torsion", count)[:3]
    # Linear rods (cubic family): consistent-mass error (k h)^2 / 24 with k the mode's
    # wavenumber: mode 3, k = 5 pi / (2L), h = L/12 gives 1.8e-2. Cubic rods (quintic
    # family) converge as O(h^6): ~1e-6 here.
    kh = 5 * math.pi / (2 * L) * (L / 12)
    tol = 1.2 * kh**2 / 24 if order == "cubic" else 1e-5
    np.testing.assert_allclose(ax, ax_ref, rtol=tol)
    np.testing.assert_allclose(to, to_ref, rtol=tol)


@pytest.mark.parametrize("order,n_list,slope", [("cubic", [4, 8, 16, 32], 2.0),
                                                 ("quintic", [12, 16, 24, 32], 6.0)])
def test_axial_convergence_rate(order, n_list, slope, steel, rect):
    L = 1.0
    ref = 5 * math.pi / (2 * L) * math.sqrt(steel.E / steel.rho)  # third axial mode
    err = []
    for n_el in n_list:
        link = Link(BeamElement(True, order), L, n_el, rect, steel, ends="clamped-free")
        ax = _axial_torsion(link, "axial", link.free_dofs().size)
        err.append(abs(ax[2] / ref - 1))
    fit = np.polyfit(np.log(1.0 / np.array(n_list)), np.log(err), 1)[0]
    assert abs(fit - slope) < 0.4, (fit, err)


@pytest.mark.parametrize("mass_ratio", [0.5, 2.0])
def test_clamped_free_with_tip_mass(mass_ratio, steel, rect):
    # Frequency equation (Blevins table 8-1 case 'cantilever with end mass';
    # Meirovitch 2001 eq. 8.187): 1 + cos x cosh x + mu x (cos x sinh x - sin x cosh x) = 0
    L = 0.6
    m_beam = steel.rho * rect.area * L
    mu = mass_ratio

    def f(x):
        return 1 / math.cosh(x) + math.cos(x) + mu * x * (math.cos(x) * math.tanh(x) - math.sin(x))

    grid = np.linspace(0.3, 12, 4000)
    vals = [f(x) for x in grid]
    roots = [brentq(f, a, b) for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:])
             if fa * fb < 0][:3]
    link = Link(BeamElement(False), L, 20, rect, steel, ends="clamped-free",
                point_masses=(PointMass(node=-1, mass=mu * m_beam),))
    w = bending_omegas(link, "v", 10)[:3]
    c = math.sqrt(steel.E * rect.iz / (steel.rho * rect.area)) / L**2
    # cubic Hermite omega error ~ (beta h)^4 / 1440 for the highest mode compared
    np.testing.assert_allclose(w, np.array(roots) ** 2 * c, rtol=1.2 * (roots[-1] / 20) ** 4 / 1440)


def test_pinned_pinned_spatial_has_free_torsion(steel, rect):
    # pinned = translations fixed, rotations free: the torsion rotation is a rigid mode
    link = Link(BeamElement(True), 1.0, 8, rect, steel, ends="pinned-pinned")
    res = beam_modes(link, count=3)
    assert res.omega_rad_s[0] == 0.0 and res.kinds[0] == "torsion"
    assert res.omega_rad_s[1] > 0
