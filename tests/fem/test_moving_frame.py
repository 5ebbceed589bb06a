"""Moving-frame (KED) element terms of Kuo 2016 section 3 against independent references.

The references here never call the element kernels' integrals: they integrate the
kinematics point by point with their own quadrature (numpy leggauss, 20 points) using only
the element's shape functions (the interpolation itself is tested elsewhere).
"""
import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from elastodyn.analysis import modal_analysis
from elastodyn.fem import BeamElement, Link, ked_element_terms

L_EL = 0.23
XI, WQ = np.polynomial.legendre.leggauss(20)
XI = 0.5 * (XI + 1.0)
WQ = 0.5 * WQ * L_EL


def _fields(el, q, deriv=0):
    return {f: el.shape(f, XI, L_EL, deriv) @ q for f in el.fields}


def _random_motion(rng):
    return dict(velocity=rng.normal(size=3), omega=rng.normal(size=3),
                acceleration=rng.normal(size=3), alpha=rng.normal(size=3),
                gravity=rng.normal(size=3) * 5)


@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_kinetic_energy_quadratic_form(order, steel, rect, rng):
    """T_e of Kuo eq. (20) equals 1/2 rho A int |V + w x r + r_dot|^2 + 1/2 rho Ip int (w_x + phi_dot)^2."""
    el = BeamElement(True, order)
    mo = _random_motion(rng)
    t = ked_element_terms(el, L_EL, rect, steel, **mo)
    V, w = mo["velocity"], mo["omega"]
    for _ in range(3):
        d = rng.normal(size=el.n_dofs) * 1e-2
        dd = rng.normal(size=el.n_dofs)
        f, fd = _fields(el, d), _fields(el, dd)
        r = np.stack([XI * L_EL + f["u"], f["v"], f["w"]], axis=1)
        rdot = np.stack([fd["u"], fd["v"], fd["w"]], axis=1)
        vel = V + np.cross(w, r) + rdot
        T_direct = 0.5 * steel.rho * rect.area * WQ @ np.sum(vel**2, axis=1) \
            + 0.5 * steel.rho * rect.ip * WQ @ (w[0] + fd["phi"]) ** 2
        # C_e (eq. 26) from the same direct integral with delta = 0
        r0 = np.stack([XI * L_EL, 0 * XI, 0 * XI], axis=1)
        C_e = 0.5 * steel.rho * rect.area * WQ @ np.sum((V + np.cross(w, r0)) ** 2, axis=1) \
            + 0.5 * steel.rho * rect.ip * L_EL * w[0] ** 2
        T_model = (0.5 * dd @ t.M_e @ dd + dd @ t.B_e @ d + 0.5 * d @ t.M_s @ d
                   + t.Y_e @ d + t.Z_e @ dd + C_e)
        # polynomial integrands, both quadratures exact: agreement to round-off
        assert T_model == pytest.approx(T_direct, rel=1e-11)


def test_matrix_symmetries(steel, rect, rng):
    el = BeamElement(True, "quintic")
    t = ked_element_terms(el, L_EL, rect, steel, **_random_motion(rng))
    for S in (t.M_e, t.M_s, t.K_e, t.K_g, t.A_s, t.B_s, t.C_s):
        np.testing.assert_allclose(S, S.T, atol=1e-12 * np.abs(S).max())
    for A in (t.B_e, t.B_e_dot):
        np.testing.assert_allclose(A, -A.T, atol=1e-12 * np.abs(A).max())


def test_coriolis_force_sign(steel, rect, rng):
    """2 B_e d(delta) is the generalized force of the Coriolis inertia 2 m w x r_dot.

    In the equation M dd + 2 B_e d + ... = P_e the term 2 B_e d(delta) sits with the
    inertia, so it must equal + rho A int N3^T (2 w x r_dot) dx.
    """
    el = BeamElement(True, "cubic")
    mo = _random_motion(rng)
    t = ked_element_terms(el, L_EL, rect, steel, **mo)
    dd = rng.normal(size=el.n_dofs)
    N3 = np.stack([el.shape(f, XI, L_EL) for f in ("u", "v", "w")], axis=1)
    rdot = np.einsum("gin,n->gi", N3, dd)
    ref = steel.rho * rect.area * np.einsum("g,gi,gin->n", WQ, 2 * np.cross(mo["omega"], rdot), N3)
    np.testing.assert_allclose(2 * t.B_e @ dd, ref, rtol=1e-11, atol=1e-11 * np.abs(ref).max())


@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_rigid_motion_load_is_minus_rigid_inertia(order, steel, rect, rng):
    """G_e + Y_e - dZ_e/dt = rho A int N3^T (g - a_rigid(x)) dx - rho Ip alpha_x int N_phi.

    a_rigid(x) = a + alpha x r0 + w x (w x r0): the absolute acceleration of the axis
    point in frame components (D'Alembert). This checks eqs. (24), (25), (32), (41).
    """
    el = BeamElement(True, order)
    mo = _random_motion(rng)
    t = ked_element_terms(el, L_EL, rect, steel, **mo)
    r0 = np.stack([XI * L_EL, 0 * XI, 0 * XI], axis=1)
    w, al = mo["omega"], mo["alpha"]
    a_rig = mo["acceleration"] + np.cross(al, r0) + np.cross(w, np.cross(w, r0))
    N3 = np.stack([el.shape(f, XI, L_EL) for f in ("u", "v", "w")], axis=1)
    Np = el.shape("phi", XI, L_EL)
    ref = steel.rho * rect.area * np.einsum("g,gi,gin->n", WQ, mo["gravity"] - a_rig, N3) \
        - steel.rho * rect.ip * al[0] * (WQ @ Np)
    np.testing.assert_allclose(t.P_e, ref, rtol=1e-11, atol=1e-11 * np.abs(ref).max())


def test_axial_force_matches_static_equilibrium(steel, rect, rng):
    """K_g equals int N(x) (N_v' N_v'^T + N_w' N_w'^T) with N(x) from integrating the
    axial load q = rho A (g_x - a_x(x)) from the tip: N(x) = P_r + int_x^l q ds."""
    el = BeamElement(True, "cubic")
    mo = _random_motion(rng)
    Pr = 3.7
    t = ked_element_terms(el, L_EL, rect, steel, tip_force=Pr, **mo)
    w = mo["omega"]
    rA = steel.rho * rect.area

    def q(s):  # axial load per length at s
        a_x = mo["acceleration"][0] - (w[1] ** 2 + w[2] ** 2) * s
        return rA * (mo["gravity"][0] - a_x)

    N = np.array([Pr + quad(q, x, L_EL)[0] for x in XI * L_EL])
    Nv = el.shape("v", XI, L_EL, 1)
    Nw = el.shape("w", XI, L_EL, 1)
    ref = np.einsum("g,gi,gj->ij", WQ * N, Nv, Nv) + np.einsum("g,gi,gj->ij", WQ * N, Nw, Nw)
    np.testing.assert_allclose(t.K_g, ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


# ---- rotating cantilever: centrifugal stiffening (Southwell coefficient) -----------------
def _cantilever_mode():
    b = brentq(lambda x: math.cos(x) + 1 / math.cosh(x), 1.0, 3.0, xtol=1e-15)
    s = (math.cosh(b) + math.cos(b)) / (math.sinh(b) + math.sin(b))

    def phi(x):
        return math.cosh(b * x) - math.cos(b * x) - s * (math.sinh(b * x) - math.sin(b * x))

    def dphi(x):
        return b * (math.sinh(b * x) + math.sin(b * x) - s * (math.cosh(b * x) - math.cos(b * x)))

    return b, phi, dphi


def southwell_coefficient():
    """d(omega^2)/d(Omega^2) at Omega = 0 for the first flapwise mode of a uniform
    cantilever rotating about its root (hub radius 0), by first-order perturbation with
    the exact non-rotating mode (unit length, unit rho A):
    K1 = int_0^1 1/2 (1 - x^2) phi'^2 dx / int_0^1 phi^2 dx.
    Literature: K1 = 1.1933 (Southwell & Gough 1921; Wright et al., J. Appl. Mech. 49
    (1982) 197-202, hub radius 0)."""
    _, phi, dphi = _cantilever_mode()
    num = quad(lambda x: 0.5 * (1 - x * x) * dphi(x) ** 2, 0, 1, epsabs=1e-14)[0]
    den = quad(lambda x: phi(x) ** 2, 0, 1, epsabs=1e-14)[0]
    return num / den


def test_southwell_reference_value():
    assert southwell_coefficient() == pytest.approx(1.1933, abs=2e-4)


def _rotating_frequencies(link, Omega):
    z = np.zeros(3)
    ked = link.moving_frame(velocity=z, omega=[0.0, 0.0, Omega], acceleration=z,
                            alpha=z, gravity=z)
    res = modal_analysis(ked.M, ked.K, count=2, free_dofs=link.free_dofs())
    shapes = res.mode_shapes
    ev = np.einsum("ik,ik->k", shapes, link.field_mass("v") @ shapes)
    ew = np.einsum("ik,ik->k", shapes, link.field_mass("w") @ shapes)
    wv = res.omega_rad_s[np.argmax(ev)]
    ww = res.omega_rad_s[np.argmax(ew)]
    return wv, ww


def test_rotating_cantilever_centrifugal_stiffening(steel):
    """Flapwise (w, along the spin axis z): omega^2 = omega0^2 + K1 Omega^2;
    lead-lag (v, in the plane of rotation): omega^2 = omega0^2 + (K1 - 1) Omega^2
    (spin softening M_s removes Omega^2). Tested at small Omega where the first-order
    perturbation holds, and the exact model identity omega_w^2 - omega_v^2 = Omega^2."""
    from elastodyn.description import Section
    sec = Section.rectangle(5e-3, 5e-3)  # square: same omega0 in both planes
    L = 1.0
    link = Link(BeamElement(True, "cubic"), L, 16, sec, steel, ends="clamped-free")
    w0v, w0w = _rotating_frequencies(link, 0.0)
    Om = 0.05 * w0v  # (Omega/omega0)^2 = 2.5e-3: second-order terms ~1e-5 relative
    wv, ww = _rotating_frequencies(link, Om)
    K1 = southwell_coefficient()
    # FE discretization (16 cubic elements) changes the slope by ~1e-5, the O(Omega^4)
    # remainder by ~(Om/w0)^2 ~ 2.5e-3 relative to the slope: tolerance 5e-3.
    assert (ww**2 - w0w**2) / Om**2 == pytest.approx(K1, rel=5e-3)
    assert (wv**2 - w0v**2) / Om**2 == pytest.approx(K1 - 1.0, rel=2e-2)
    # exact identity of the model: the two planes differ only by -Omega^2 M_v
    Om2 = 3.0 * w0v
    wv2, ww2 = _rotating_frequencies(link, Om2)
    assert ww2**2 - wv2**2 == pytest.approx(Om2**2, rel=1e-8)
    assert ww2 > 2.0 * w0w  # strongly stiffened at Omega = 3 omega0


@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_element_inertia_equals_absolute_acceleration(order, steel, rect, rng):
    """M dd + 2B d + (dB/dt - M_s) delta - (Y - dZ/dt) = int N3^T rho A a_abs
    + rho I_p int N_phi (alpha_x + phi_dd), with the absolute acceleration of the deformed
    point a_abs = a + alpha x (r0 + s) + w x (w x (r0 + s)) + 2 w x s_d + s_dd
    (s: elastic displacement field). Pins dB/dt (= B(alpha)), M_s, Y_e, dZ_e/dt."""
    el = BeamElement(True, order)
    mo = _random_motion(rng)
    mo["gravity"] = np.zeros(3)
    t = ked_element_terms(el, L_EL, rect, steel, **mo)
    d, dd, ddd = (rng.normal(size=el.n_dofs) * c for c in (1e-2, 1.0, 10.0))
    # through the assembled terms: C = 2 B_e, K_d - K_g = dB/dt - M_s, P_e = Y - dZ/dt (g = 0)
    lhs = t.M_e @ ddd + t.C @ dd + (t.K_d - t.K_g) @ d - t.P_e
    N3 = np.stack([el.shape(f, XI, L_EL) for f in ("u", "v", "w")], axis=1)
    Np = el.shape("phi", XI, L_EL)
    s, sd, sdd = (np.einsum("gin,n->gi", N3, q) for q in (d, dd, ddd))
    r = np.stack([XI * L_EL, 0 * XI, 0 * XI], axis=1) + s
    w, al = mo["omega"], mo["alpha"]
    a_abs = mo["acceleration"] + np.cross(al, r) + np.cross(w, np.cross(w, r)) \
        + 2 * np.cross(w, sd) + sdd
    rhs = steel.rho * rect.area * np.einsum("g,gi,gin->n", WQ, a_abs, N3) \
        + steel.rho * rect.ip * np.einsum("g,g,gn->n", WQ, al[0] + Np @ ddd, Np)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10 * np.abs(rhs).max())


@pytest.mark.parametrize("order", ["cubic", "quintic"])
def test_rotation_dof_signs(order):
    """rz = v', ry = -w' (and drz = v'', dry = -w'' for quintic) at the nodes."""
    el = BeamElement(True, order)
    for node in (0, 1):
        for name, field, deriv, sign in (("rz", "v", 1, 1.0), ("ry", "w", 1, -1.0),
                                         ("drz", "v", 2, 1.0), ("dry", "w", 2, -1.0)):
            if name not in el.node_dofs:
                continue
            q = np.zeros(el.n_dofs)
            q[node * el.n_node_dofs + el.node_dofs.index(name)] = 1.0
            val = el.shape(field, [float(node)], L_EL, deriv) @ q
            assert val[0] == pytest.approx(sign, abs=1e-9)


# ---- link-level terms (fem.moving_frame) -------------------------------------------------
@pytest.mark.parametrize("order,n", [("cubic", 1), ("cubic", 4), ("quintic", 3)])
def test_link_matrices_equal_the_chained_element_terms(order, n, steel, rect, rng):
    """A link of n elements in one frame, two aggregations: LinkMatrices (integrals over
    the link coordinate s, axial force as one quadratic polynomial in s) against
    Link.moving_frame (each element in its own frame at s_j with its origin's
    acceleration a + al x s_j + w x (w x s_j), its tip force chained element by element).
    Round-off of sums of O(|K|) terms: 1e-10 of each matrix's largest entry."""
    from elastodyn.fem.moving_frame import link_matrices
    el = BeamElement(True, order)
    L = 0.7
    mo = _random_motion(rng)
    tip = 2.3
    ked = Link(el, L, n, rect, steel, ends="free-free").moving_frame(tip_force=tip, **mo)
    lm = link_matrices(el, L, n, rect, steel)
    w, al, a0, g = mo["omega"], mo["alpha"], mo["acceleration"], mo["gravity"]
    for ref, got in ((ked.M.toarray(), lm.M), (ked.C.toarray(), 2.0 * lm.gyroscopic(w)),
                     (ked.K.toarray(), lm.stiffness(w, al, a0, g, tip)),
                     (ked.f, lm.load(w, al, a0, g))):
        assert np.abs(ref - got).max() <= 1e-10 * np.abs(ref).max()
    # the root axial force of the chain is N(0) of the link's polynomial
    assert ked.root_axial_force == pytest.approx(lm.axial_force(w, a0, g, tip)[0], rel=1e-12)


def test_coefficient_functions_batch_and_rows(steel, rect, rng):
    """Batched coefficients (leading sample axes) equal the per-sample ones, and the row
    restrictions and dof selections of LinkMatrices equal slices of the full matrices
    (same floating-point operations up to summation order: 1e-14)."""
    from elastodyn.fem import moving_frame as mf
    lm = mf.link_matrices(BeamElement(True, "cubic"), 0.5, 3, rect, steel)
    W, Al, A0, G = (rng.normal(size=(5, 3)) for _ in range(4))
    E = rng.normal(size=5)
    KB = lm.stiffness(W, Al, A0, G, E)
    BB = lm.gyroscopic(W)
    PB = lm.load(W, Al, A0, G)
    for k in range(5):
        K1 = lm.stiffness(W[k], Al[k], A0[k], G[k], E[k])
        np.testing.assert_allclose(KB[k], K1, rtol=0, atol=1e-14 * np.abs(K1).max())
        np.testing.assert_allclose(BB[k], lm.gyroscopic(W[k]), rtol=0,
                                   atol=1e-14 * np.abs(BB[k]).max())
        np.testing.assert_allclose(PB[k], lm.load(W[k], Al[k], A0[k], G[k]), rtol=0,
                                   atol=1e-14 * np.abs(PB[k]).max())
        np.testing.assert_allclose(lm.stiffness(W[k], Al[k], A0[k], G[k], E[k], rows=4),
                                   K1[4], rtol=0, atol=1e-14 * np.abs(K1).max())
    dofs = np.array([7, 3, 20, 11])
    sub = lm.restricted(dofs)
    np.testing.assert_array_equal(sub.M, lm.M[np.ix_(dofs, dofs)])
    np.testing.assert_allclose(sub.stiffness(W, Al, A0, G, E), KB[:, dofs[:, None], dofs],
                               rtol=0, atol=1e-14 * np.abs(KB).max())
    np.testing.assert_allclose(sub.load(W, Al, A0, G), PB[:, dofs], rtol=0,
                               atol=1e-14 * np.abs(PB).max())
    np.testing.assert_array_equal(sub.field_rows(0.2)["w"], lm.field_rows(0.2)["w"][dofs])
    with pytest.raises(ValueError, match="dofs"):
        lm.restricted([1, 1])
    # centrifugal + stiffness coefficients: B(al) - M_s(w)
    np.testing.assert_allclose(mf.stiffness_coefficients(W, Al),
                               mf.gyroscopic_coefficients(Al) - mf.centrifugal_coefficients(W),
                               rtol=0, atol=0)
