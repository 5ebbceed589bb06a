"""Corotational beam structures (elastodyn.fem.corotational): geometrically exact statics
and the vibration about the sagged equilibrium, against the independent elastica
reference (tests/references/reference_sagged_cantilever.py) and the linear element matrices."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import reference_sagged_cantilever as ref
from elastodyn.description.materials import Material, Section
from elastodyn.fem.corotational import (BeamFrame, CorotationalBeam, potential_derivatives,
                                        so3_exp)
from elastodyn.fem.elements import BeamElement, gravity_load, mass_matrix, stiffness_matrix
from elastodyn.fem.modal import modal_analysis

D = 5e-3
L = 0.4
M_TIP = 0.3
STEEL = Material(E=200e9, G=77e9, rho=7850.0)


def rod(axial_scale=1.0):
    """The 5 mm round steel rod; axial_scale multiplies EA at constant mass per length
    (area x s, density / s): s = 100 approaches the inextensible rod of the reference."""
    c = Section.circle(D)
    sec = Section(area=c.area * axial_scale, iy=c.iy, iz=c.iz, j=c.j, ip=c.ip)
    mat = Material(E=STEEL.E, G=STEEL.G, rho=STEEL.rho / axial_scale)
    return sec, mat


def cantilever(n, theta0=0.0, axial_scale=1.0, m_tip=M_TIP):
    """Cantilever in the x-z plane clamped at the origin at angle theta0 from the
    horizontal x axis (negative: pointing down), tip mass at the free end."""
    sec, mat = rod(axial_scale)
    c, s = np.cos(theta0), np.sin(theta0)
    ex, ez = np.array([c, 0.0, s]), np.array([-s, 0.0, c])
    T = np.stack([ex, np.cross(ez, ex), ez], axis=-1)
    el = CorotationalBeam.of(L / n, sec, mat)
    nodes = np.array([k * L / n * ex for k in range(n + 1)])
    return BeamFrame(nodes, np.repeat(T[None], n + 1, 0), [(k, k + 1, el) for k in range(n)],
                     clamped=[0], masses=[(n, m_tip, np.zeros((3, 3)))])


def in_plane_frequencies(frame, g, count=3):
    """In-plane (x-z) frequencies [Hz] about the equilibrium under gravity g [m/s^2]
    (-z); the in-plane dofs (ux, uz, ry) decouple exactly from the others (checked)."""
    grav = np.array([0.0, 0.0, -g])
    q = frame.equilibrium(grav) if g else np.zeros(frame.dof)
    Mm, K = frame.linearized(q, grav)
    ip = np.array([[6 * k, 6 * k + 2, 6 * k + 4] for k in range(frame.dof // 6)]).ravel()
    off = np.setdiff1d(np.arange(frame.dof), ip)
    assert np.abs(K[np.ix_(ip, off)]).max() < 1e-9 * np.abs(K).max()
    return modal_analysis(Mm[np.ix_(ip, ip)], K[np.ix_(ip, ip)], count=count).frequencies_hz, q


def reference(g, theta0):
    sec, mat = rod()
    return ref.sagged_frequencies(L, mat.E * sec.iz, mat.rho * sec.area, M_TIP, g,
                                  theta0=theta0, count=3)


# ------------------------------------------------------------------------- building blocks
def test_so3_exp_is_the_rotation_on_both_branches():
    """Rodrigues' formula against scipy, on the series (|phi| < 0.1) and closed-form
    branches, and its complex step against a central difference."""
    rng = np.random.default_rng(1)
    for scale in (1e-3, 0.05, 0.3, 2.0):
        phi = rng.normal(size=(5, 3)) * scale
        np.testing.assert_allclose(so3_exp(phi), Rotation.from_rotvec(phi).as_matrix(),
                                   atol=1e-15)
    for phi in (np.array([0.5, 0.2, 0.0]), np.array([1e-3, 0.0, 2e-3])):  # single vectors
        np.testing.assert_allclose(so3_exp(phi), Rotation.from_rotvec(phi).as_matrix(),
                                   atol=1e-15)
    phi, e = rng.normal(size=3) * 0.09, rng.normal(size=3)
    cs = so3_exp(phi + 1e-30j * e).imag / 1e-30
    fd = (so3_exp(phi + 1e-6 * e) - so3_exp(phi - 1e-6 * e)) / 2e-6
    np.testing.assert_allclose(cs, fd, atol=1e-9)  # central difference: h^2 ~ 1e-12


def test_potential_derivatives_of_a_quartic():
    """Exact value, gradient and Hessian of a polynomial (FD truncation h^2 V'''' ~ 1e-11)."""
    A = np.array([[2.0, 0.5], [0.5, 1.0]])

    def f(z):
        return 0.5 * np.einsum("...i,ij,...j->...", z, A, z) + z[..., 0] ** 4

    z0 = np.array([0.3, -0.2])
    v, g, H = potential_derivatives(f, z0)
    assert v == pytest.approx(f(z0))
    np.testing.assert_allclose(g, A @ z0 + [4 * 0.3 ** 3, 0.0], rtol=1e-14)
    np.testing.assert_allclose(H, A + [[12 * 0.3 ** 2, 0], [0, 0]], atol=1e-7)


def test_unloaded_straight_frame_is_the_linear_element_model():
    """At the undeformed configuration the Hessian is the assembled linear stiffness,
    the mass the consistent mass and the gradient the consistent gravity load, for a beam
    along a skew direction with a non-circular section (rotated element matrices)."""
    sec, mat = Section.rectangle(0.01, 0.004), STEEL
    R = Rotation.from_rotvec([0.3, -0.7, 0.4]).as_matrix()
    n, length = 3, 0.5
    el = CorotationalBeam.of(length / n, sec, mat)
    frame = BeamFrame([k * length / n * R[:, 0] for k in range(n + 1)],
                      np.repeat(R[None], n + 1, 0), [(k, k + 1, el) for k in range(n)],
                      clamped=[0])
    g = np.array([0.0, 0.0, -9.81])
    Mm, K = frame.linearized(np.zeros(frame.dof), np.zeros(3))
    _, grad, _, _ = frame._assemble(np.zeros(frame.dof), g)
    be = BeamElement(spatial=True)
    T = np.kron(np.eye(4), R.T)
    ke = T.T @ stiffness_matrix(be, length / n, sec, mat) @ T
    me = T.T @ mass_matrix(be, length / n, sec, mat) @ T
    fe = T.T @ gravity_load(be, length / n, sec, mat, R.T @ g)
    Kl, Ml, Fl = np.zeros((24, 24)), np.zeros((24, 24)), np.zeros(24)
    for k in range(n):
        s = slice(6 * k, 6 * k + 12)
        Kl[s, s] += ke
        Ml[s, s] += me
        Fl[s] += fe
    # Hessian by differences of the complex-step gradient: 1e-9 of the axial stiffness
    np.testing.assert_allclose(K, Kl[6:, 6:], atol=1e-9 * np.abs(Kl).max())
    np.testing.assert_allclose(Mm, Ml[6:, 6:], atol=1e-14)
    # node positions carry round-off ~ eps l: spurious axial forces EA eps ~ 2e-9 N
    np.testing.assert_allclose(-grad, Fl[6:], atol=1e-8)


# ------------------------------------------------------------------------- the sagged cantilever
@pytest.mark.parametrize("theta0", [0.0, -0.5])
def test_vibration_about_the_sag_is_the_elastica(theta0):
    """In-plane frequencies about the sagged equilibrium (5 mm steel rod, 0.4 m, 0.3 kg
    tip mass, g = 9.81; tip sags 11 mm horizontal) against the independent elastica
    linearization, with EA x 100 at the same mass (the reference is inextensible): the
    shift from the straight cantilever is reproduced within 5 % (measured at 16
    elements: 0.6 %, 0.05 %, 2 % of the shifts; discretization error O(h^2) of the local
    rotations), where the linearization about the undeformed beam misses all of it."""
    g = 9.81
    f, q = in_plane_frequencies(cantilever(16, theta0, axial_scale=100.0), g)
    f0, _ = in_plane_frequencies(cantilever(16, theta0, axial_scale=100.0), 0.0)
    fr = reference(g, theta0)
    f0r = reference(0.0, theta0)
    # straight: Hermite elements at 16 elements, third mode 2.6e-5 (h^4); cancels in shifts
    np.testing.assert_allclose(f0, f0r, rtol=5e-5)
    shift, shift_r = f / f0 - 1, fr / f0r - 1
    assert np.all(np.abs(shift - shift_r) <= 0.05 * np.abs(shift_r)), (shift, shift_r)
    sec, mat = rod()
    eq = ref.sagged_equilibrium(L, mat.E * sec.iz, mat.rho * sec.area, M_TIP, g,
                                theta0=theta0)
    tip = q[-6:-3]  # tip displacement (x, y, z)
    assert -tip[2] == pytest.approx(
        -(eq["y"][-1] - L * np.sin(theta0)), rel=1e-4)
    assert tip[0] == pytest.approx(eq["x"][-1] - L * np.cos(theta0), rel=1e-3)


def test_axial_compliance_lowers_the_upper_sagged_modes():
    """The real (extensible) rod: about the curved sagged shape the bending modes couple
    with the axial one (rod + tip mass at about 920 Hz), which lowers the third in-plane
    mode by about 1.4e-4 relative to the inextensible rod; the straight rod shows no
    such coupling (< 1e-5, the Hessian's differences at EA x 100)."""
    ext = in_plane_frequencies(cantilever(16), 9.81)[0]
    inext = in_plane_frequencies(cantilever(16, axial_scale=100.0), 9.81)[0]
    assert -3e-4 < ext[2] / inext[2] - 1 < -0.5e-4
    e0 = in_plane_frequencies(cantilever(16), 0.0)[0]
    i0 = in_plane_frequencies(cantilever(16, axial_scale=100.0), 0.0)[0]
    # Hessian truncation (h / l)^2 EA / l: ~3e-3 N/m at EA x 100 on 16 elements
    np.testing.assert_allclose(e0, i0, rtol=1e-5)


def test_frequency_shift_scales_as_the_sag():
    """Tilted clamp (29 deg down): the shift is of first order in the sag (the axial
    preload of the tilted beam) and halving gravity halves it, up to the next order
    (ratio 0.487 for the elastica); a horizontal clamp is symmetric under (z, g) ->
    (-z, -g) and its shift is of second order: halving gravity quarters it. The sag
    itself halves in both cases."""
    shifts, sags, refs = {}, {}, {}
    for theta0 in (-0.5, 0.0):
        f0, _ = in_plane_frequencies(cantilever(12, theta0, axial_scale=100.0), 0.0)
        for g in (9.81, 9.81 / 2):
            f, q = in_plane_frequencies(cantilever(12, theta0, axial_scale=100.0), g)
            shifts[theta0, g] = f[0] / f0[0] - 1
            sags[theta0, g] = np.linalg.norm(q[-6:-3])
            refs[theta0, g] = reference(g, theta0)[0] / reference(0.0, theta0)[0] - 1
    for theta0, expected in ((-0.5, 0.5), (0.0, 0.25)):
        ratio = shifts[theta0, 9.81 / 2] / shifts[theta0, 9.81]
        assert ratio == pytest.approx(refs[theta0, 9.81 / 2] / refs[theta0, 9.81], rel=0.01)
        assert ratio == pytest.approx(expected, rel=0.05)  # next order: sag / L ~ 3 %
        assert sags[theta0, 9.81 / 2] / sags[theta0, 9.81] == pytest.approx(0.5, rel=0.01)


def test_deflected_reference_tends_to_the_undeformed_one():
    """As g -> 0 the equilibrium tends to the straight beam and the tangent to the linear
    stiffness: the frequencies differ from the straight ones by O(g) (tilted clamp)."""
    frame = cantilever(8, -0.5)
    f0, _ = in_plane_frequencies(frame, 0.0)
    d = [np.max(np.abs(in_plane_frequencies(frame, g)[0] / f0 - 1)) for g in (1e-2, 1e-3)]
    assert d[0] < 1e-5
    assert d[1] / d[0] == pytest.approx(0.1, rel=0.05)


@pytest.mark.parametrize("angle", [0.3, 1.5, 3.0])
def test_local_rotations_are_exact_at_large_angles(angle):
    """One element, its chord fixed along x: an end twisted by ``angle`` about the axis
    stores G J angle^2 / (2 l) (torsion), and ends turned by +angle / 2 and -angle / 2
    about z (a circular arc through the chord) store EI_z angle^2 / (2 l) (the linear
    element's [[4, 2], [2, 4]] EI / l on +-angle / 2), exactly, up to a local angle
    near pi: the local rotations are the rotation vectors of E^T T. (With their sine,
    before, the section twisted by pi stored no energy at all.)"""
    sec, mat = rod()
    l0 = 0.2
    beam = CorotationalBeam.of(l0, sec, mat)
    c0 = np.array([l0, 0.0, 0.0])
    I3, z3 = np.eye(3), np.zeros(3)
    twist = Rotation.from_rotvec([angle, 0.0, 0.0]).as_matrix()
    U = beam.strain_energy(z3, I3, z3, twist, c0)
    assert U == pytest.approx(mat.G * sec.j * angle ** 2 / (2 * l0), rel=1e-12)
    a = Rotation.from_rotvec([0.0, 0.0, angle / 2]).as_matrix()
    b = Rotation.from_rotvec([0.0, 0.0, -angle / 2]).as_matrix()
    U = beam.strain_energy(z3, a, z3, b, c0)
    assert U == pytest.approx(mat.E * sec.iz * angle ** 2 / (2 * l0), rel=1e-12)
