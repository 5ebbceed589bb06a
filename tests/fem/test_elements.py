"""Element matrices: identities, rigid-body null spaces, textbook closed forms."""

import numpy as np
import pytest
import scipy.linalg as sla

from elastodyn.analysis import beam_modes, modal_analysis
from elastodyn.description import Section
from elastodyn.exceptions import InputError
from elastodyn.fem import (BeamElement, Link, hermite_coefficients, mass_matrix,
                           stiffness_matrix)
from elastodyn.fem.shapes import reference_basis

ELEMENTS = [BeamElement(s, o) for s in (True, False) for o in ("cubic", "quintic")]


def rigid_modes(link):
    """Rigid-body displacement fields written on the link dofs (independent of K)."""
    el = link.element
    x = link.node_x
    modes = []
    spatial = el.spatial
    names = el.node_dofs

    def vec(**fields):
        q = np.zeros(link.n_dofs)
        for n in range(link.n_nodes):
            for name, val in fields.items():
                if name in names:
                    q[link.dof(n, name)] = val(x[n]) if callable(val) else val
        return q

    modes.append(vec(u=1.0))
    modes.append(vec(v=1.0))
    modes.append(vec(v=lambda s: s, rz=1.0))  # small rotation about z: v = theta x
    if spatial:
        modes.append(vec(w=1.0))
        modes.append(vec(w=lambda s: -s, ry=1.0))  # rotation about y: w = -theta x
        modes.append(vec(rx=1.0))
    return np.array(modes).T


@pytest.mark.parametrize("el", ELEMENTS, ids=str)
def test_mass_spd_stiffness_psd_with_rigid_null_space(el, steel, rect):
    link = Link(el, 0.7, 3, rect, steel, ends="free-free")
    M = link.mass().toarray()
    K = link.stiffness().toarray()
    np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-14 * abs(M).max())
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-14 * abs(K).max())
    assert np.linalg.eigvalsh(M).min() > 0
    R = rigid_modes(link)
    n_rigid = 6 if el.spatial else 3
    assert R.shape[1] == n_rigid
    # K annihilates the rigid motions (to round-off relative to |K|)
    assert np.abs(K @ R).max() < 1e-9 * np.abs(K).max() * np.abs(R).max()
    # the null space of K has exactly the rigid-body dimension
    ev = np.linalg.eigvalsh(K)
    assert np.sum(np.abs(ev) < 1e-9 * ev.max()) == n_rigid
    # rigid translation carries the whole mass: m = rho A L
    m = steel.rho * rect.area * 0.7
    assert R[:, 0] @ M @ R[:, 0] == pytest.approx(m, rel=1e-12)


@pytest.mark.parametrize("el", ELEMENTS, ids=str)
def test_free_free_has_exactly_rigid_zero_frequencies(el, steel, rect):
    link = Link(el, 0.7, 6, rect, steel, ends="free-free")
    res = beam_modes(link, count=8)
    n_rigid = 6 if el.spatial else 3
    assert np.all(res.omega_rad_s[:n_rigid] == 0.0)
    assert res.omega_rad_s[n_rigid] > 100.0  # first elastic mode ~ 4.73^2 sqrt(EI/rhoA)/L^2


@pytest.mark.parametrize("el", ELEMENTS, ids=str)
def test_rayleigh_quotient_equals_eigenvalue(el, steel, rect):
    link = Link(el, 0.9, 5, rect, steel, ends="clamped-free")
    res = beam_modes(link, count=6)
    M, K = link.mass().toarray(), link.stiffness().toarray()
    f = link.free_dofs()
    lam_max = sla.eigh(K[np.ix_(f, f)], M[np.ix_(f, f)], eigvals_only=True)[-1]
    for k in range(6):
        phi = res.mode_shapes[:, k]
        assert phi @ M @ phi == pytest.approx(1.0, rel=1e-10)
        # Rayleigh quotient (phi is mass-normalized): the symmetric eigensolver's
        # absolute eigenvalue error is O(eps lambda_max) (measured ~0.25 eps lambda_max);
        # 4 eps lambda_max leaves a margin.
        assert phi @ K @ phi == pytest.approx(res.omega_rad_s[k] ** 2,
                                              abs=4 * np.finfo(float).eps * lam_max)


def test_cubic_planar_matches_textbook_closed_form(steel, rect):
    # Przemieniecki, Theory of Matrix Structural Analysis (1968), eqs. 5.116 and 11.40:
    # the 6-dof frame element [u1, v1, th1, u2, v2, th2].
    L = 0.37
    el = BeamElement(spatial=False, order="cubic")
    E, A, I, rho = steel.E, rect.area, rect.iz, steel.rho
    K = np.zeros((6, 6))
    K[np.ix_([0, 3], [0, 3])] = E * A / L * np.array([[1, -1], [-1, 1]])
    K[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = E * I / L**3 * np.array([
        [12, 6 * L, -12, 6 * L], [6 * L, 4 * L**2, -6 * L, 2 * L**2],
        [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L**2, -6 * L, 4 * L**2]])
    M = np.zeros((6, 6))
    M[np.ix_([0, 3], [0, 3])] = rho * A * L / 6 * np.array([[2, 1], [1, 2]])
    M[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = rho * A * L / 420 * np.array([
        [156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
        [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
    np.testing.assert_allclose(stiffness_matrix(el, L, rect, steel), K, rtol=1e-12, atol=1e-9 * abs(K).max())
    np.testing.assert_allclose(mass_matrix(el, L, rect, steel), M, rtol=1e-12, atol=1e-12 * abs(M).max())


def test_spatial_bending_w_uses_minus_slope_rotation(steel, rect):
    # ry = -w': a rigid rotation about +y moves a point at +x towards -z.
    el = BeamElement(True, "cubic")
    L = 0.5
    q = np.zeros(12)
    q[el.node_dofs.index("ry")] = 1.0
    q[6 + el.node_dofs.index("ry")] = 1.0
    q[6 + el.node_dofs.index("w")] = -L
    w_end = el.shape("w", [1.0], L) @ q
    assert w_end[0] == pytest.approx(-L)
    assert np.abs(stiffness_matrix(el, L, rect, steel) @ q).max() < 1e-6


@pytest.mark.parametrize("r", [0, 1, 2])
def test_hermite_basis_nodal_conditions(r):
    C = hermite_coefficients(r)
    for d in range(r + 1):
        vals = np.vstack([reference_basis(r, [0.0, 1.0], d)])
        expect = np.zeros((2, 2 * (r + 1)))
        expect[0, d] = 1.0
        expect[1, (r + 1) + d] = 1.0
        np.testing.assert_allclose(vals, expect, atol=1e-12)
    assert C.shape == (2 * (r + 1), 2 * (r + 1))
    # partition of unity of the value functions
    xi = np.linspace(0, 1, 7)
    B = reference_basis(r, xi)
    np.testing.assert_allclose(B[:, 0] + B[:, r + 1], 1.0, atol=1e-12)


@pytest.mark.parametrize("el", ELEMENTS, ids=str)
def test_gravity_load_total_force(el, steel, rect):
    L = 0.8
    g = np.array([1.0, -9.81, 3.0])[: 3 if el.spatial else 2]
    link = Link(el, L, 4, rect, steel, ends="free-free")
    G = link.gravity_load(g)
    R = rigid_modes(link)
    m = steel.rho * rect.area * L
    # virtual work of gravity on rigid translations = m g_i; on the rotation about z:
    # moment of the weight about the origin = m g_y L/2
    assert R[:, 0] @ G == pytest.approx(m * g[0], rel=1e-12)
    assert R[:, 1] @ G == pytest.approx(m * g[1], rel=1e-12)
    assert R[:, 2] @ G == pytest.approx(m * g[1] * L / 2, rel=1e-12)


def test_dense_and_sparse_eigensolvers_agree(steel, rect):
    link = Link(BeamElement(True, "cubic"), 1.0, 100, rect, steel, ends="clamped-free")
    M, K, free = link.mass(), link.stiffness(), link.free_dofs()
    assert free.size > 400  # sparse path
    sparse = modal_analysis(M, K, count=10, free_dofs=free)
    Md, Kd = M.toarray()[np.ix_(free, free)], K.toarray()[np.ix_(free, free)]
    lam = sla.eigh(Kd, Md, eigvals_only=True)
    # both solvers are accurate to O(eps lambda_max) in lambda (see modal_analysis)
    np.testing.assert_allclose(sparse.omega_rad_s**2, lam[:10], rtol=0,
                               atol=4 * np.finfo(float).eps * lam[-1])


@pytest.mark.parametrize("kwargs,name", [
    (dict(width=-1.0, height=1e-3), "width"),
    (dict(width=1e-3, height=0.0), "height"),
])
def test_bad_section(kwargs, name):
    with pytest.raises(InputError, match=name) as exc:
        Section.rectangle(**kwargs)
    assert isinstance(exc.value, ValueError)


def test_bad_link_inputs(steel, rect):
    el = BeamElement()
    with pytest.raises(InputError, match="elements"):
        Link(el, 1.0, 0, rect, steel)
    with pytest.raises(InputError, match="length"):
        Link(el, 0.0, 2, rect, steel)
    with pytest.raises(InputError, match="ends"):
        Link(el, 1.0, 2, rect, steel, ends="glued-free")
    with pytest.raises(InputError, match="order"):
        BeamElement(order="septic")
    with pytest.raises(InputError, match="rho"):
        type(steel)(E=1.0, G=1.0, rho=-2.0)
    link = Link(el, 1.0, 2, rect, steel)
    with pytest.raises(InputError, match="count"):
        beam_modes(link, count=link.free_dofs().size + 1)
