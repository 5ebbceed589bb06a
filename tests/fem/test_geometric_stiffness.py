"""Geometric stiffness: Euler buckling, tensioned beams, linear axial force."""
import math

import numpy as np
import pytest
import scipy.linalg as sla

from elastodyn.analysis import modal_analysis
from elastodyn.fem import BeamElement, Link, geometric_stiffness


@pytest.mark.parametrize("order", ["cubic", "quintic"])
@pytest.mark.parametrize("spatial", [False, True])
def test_euler_buckling_pinned_pinned(order, spatial, steel, rect):
    # det(K + lambda K_g(N = -1)) = 0: smallest lambda is P_cr = pi^2 E I / L^2
    # (Euler; Timoshenko & Gere, Theory of Elastic Stability, 1961, sec. 2.1).
    L = 1.3
    link = Link(BeamElement(spatial, order), L, 12, rect, steel, ends="pinned-pinned")
    f = link.free_dofs()
    if spatial:  # remove the free torsion rigid rotation (pinned: rotations free)
        f = np.setdiff1d(f, [link.dof(0, "rx")])
    K = link.stiffness().toarray()[np.ix_(f, f)]
    Kg = link.geometric_stiffness(1.0).toarray()[np.ix_(f, f)]
    mu = sla.eigh(Kg, K, eigvals_only=True)  # K_g phi = mu K phi, P = 1/mu
    P = 1.0 / mu.max()
    I = min(rect.iz, rect.iy) if spatial else rect.iz
    ref = math.pi**2 * steel.E * I / L**2
    # Cubic Hermite buckling loads converge as O(h^4): (pi/12)^4/720 ~ 6e-6 rel.
    assert P == pytest.approx(ref, rel=2e-5 if order == "cubic" else 1e-9)


@pytest.mark.parametrize("tension", [0.0, 50.0, 5e3, 5e5])
def test_tensioned_pinned_pinned_frequencies_exact_formula(tension, steel, rect):
    # Pinned-pinned beam under tension T: sin(n pi x/L) is exact, so
    # omega_n^2 = [(n pi/L)^4 E I + (n pi/L)^2 T] / (rho A)   (Meirovitch 2001, sec. 8.9).
    L = 1.0
    link = Link(BeamElement(False, "cubic"), L, 24, rect, steel, ends="pinned-pinned")
    K = link.stiffness() + link.geometric_stiffness(tension)
    res = modal_analysis(link.mass(), K, count=12, free_dofs=link.free_dofs())
    # pick bending modes: v-dominated
    Mv = link.field_mass("v")
    ev = np.einsum("ik,ik->k", res.mode_shapes, Mv @ res.mode_shapes)
    w = res.omega_rad_s[ev > 0.5][:3]
    n = np.arange(1, 4)
    k = n * math.pi / L
    ref = np.sqrt((k**4 * steel.E * rect.iz + k**2 * tension) / (steel.rho * rect.area))
    # cubic Hermite: omega error ~ (k_3 h)^4 / 1440 = (3 pi / 24)^4 / 1440 = 1.7e-5
    # (tension only lowers the relative error: its part is reproduced more accurately)
    np.testing.assert_allclose(w, ref, rtol=1.2 * (3 * math.pi / 24) ** 4 / 1440)
    if tension == 5e5:
        # string limit: omega_n -> n pi / L sqrt(T / rho A) when T >> E I (n pi / L)^2
        string = k * math.sqrt(tension / (steel.rho * rect.area))
        ratio = k**2 * steel.E * rect.iz / tension  # bending/tension stiffness ratio
        np.testing.assert_allclose(w / string, np.sqrt(1 + ratio), rtol=1e-5)
        assert np.all(w / string - 1 < 0.01)


def test_linear_axial_force_equals_average_of_constant_split(steel, rect):
    # int N(x) N'N'^T dx is linear in N(x): a linear force (N0, N1) equals
    # N0 * K_g[1 - x/l] + N1 * K_g[x/l]; and (N, N) equals constant N.
    el = BeamElement(True, "quintic")
    l = 0.3
    np.testing.assert_allclose(geometric_stiffness(el, l, (7.0, 7.0)),
                               geometric_stiffness(el, l, 7.0), rtol=1e-13, atol=1e-13)
    lin = geometric_stiffness(el, l, (2.0, 5.0))
    parts = (2.0 * geometric_stiffness(el, l, {"poly": (1.0, -1.0 / l)})
             + 5.0 * geometric_stiffness(el, l, {"poly": (0.0, 1.0 / l)}))
    np.testing.assert_allclose(lin, parts, rtol=1e-12, atol=1e-12)


def test_hanging_beam_fundamental_frequency_rises_with_gravity(steel, rect):
    # A clamped-free beam hanging down (gravity along +x, away from the clamp) is in
    # tension N(x) = rho A g (L - x): the assembled KED link gives the root force
    # rho A g L and a higher first frequency than without gravity.
    L = 2.0
    link = Link(BeamElement(True, "cubic"), L, 10, rect, steel, ends="clamped-free")
    z = np.zeros(3)
    ked = link.moving_frame(velocity=z, omega=z, acceleration=z, alpha=z,
                            gravity=[9.81, 0, 0])
    assert ked.root_axial_force == pytest.approx(steel.rho * rect.area * 9.81 * L, rel=1e-12)
    w0 = modal_analysis(link.mass(), link.stiffness(), count=1, free_dofs=link.free_dofs())
    wg = modal_analysis(ked.M, ked.K, count=1, free_dofs=link.free_dofs())
    assert wg.omega_rad_s[0] > w0.omega_rad_s[0]


def test_compressed_beyond_buckling_is_refused(steel, rect):
    # Past the Euler load K + N K_g has a negative eigenvalue: modal analysis must raise,
    # not report 0 Hz.
    from elastodyn.exceptions import ModelError
    L = 1.0
    link = Link(BeamElement(False, "cubic"), L, 12, rect, steel, ends="pinned-pinned")
    P = 1.05 * math.pi**2 * steel.E * rect.iz / L**2
    with pytest.raises(ModelError, match="positive semi-definite"):
        modal_analysis(link.mass(), link.stiffness() + link.geometric_stiffness(-P),
                       count=2, free_dofs=link.free_dofs())


def test_moving_frame_refuses_point_masses(steel, rect):
    from elastodyn.exceptions import ModelError
    from elastodyn.fem import PointMass
    link = Link(BeamElement(True), 0.6, 4, rect, steel, point_masses=(PointMass(-1, 0.5),))
    z = np.zeros(3)
    with pytest.raises(ModelError, match="point_masses"):
        link.moving_frame(velocity=z, omega=z, acceleration=z, alpha=z, gravity=[9.81, 0, 0])
