"""Moving-frame (kineto-elasto-dynamic) beam terms: Kuo 2016 section 3, eqs. (20)-(41).

A straight beam whose frame follows a rigid motion (origin acceleration a0, angular
velocity w, angular acceleration al, gravity g; all in frame components, SI) and carries
small elastic displacements delta (node dofs of :mod:`elastodyn.fem.elements`) obeys
(Kuo eq. 39, signs re-derived, see ../shared/papers/kuo2016-errata.md)

    M delta_dd + 2 B(w) delta_d + (K_e + B(al) - M_s(w) + K_g) delta = P.

Every time-varying term is a linear combination of constant matrices with coefficients
from the frame motion; this module is the one implementation of both:

* constant matrices of a beam of n equal elements in one frame (:class:`LinkMatrices`,
  :func:`link_matrices`; n = 1 is a single element):

  - Q_ab = rho A int N_a N_b^T ds (a, b in u, v, w), shape (3, 3, nl, nl);
  - G_k = int s^k (N_v' N_v'^T + N_w' N_w'^T) ds, k = 0, 1, 2 (Kuo eq. 37, normalized);
  - I0 = rho A int N3 ds, I1 = rho A int s N3 ds (N3 = [N_u; N_v; N_w]), shape (3, nl);
    Iphi = rho I_p int N_phi ds, shape (nl,);

* coefficient functions (any leading sample axes):

  - gyroscopic B(w) = sum_ab [w]x_ab Q_ab (Kuo eq. 23 with the sign re-derived; its rate
    dB/dt = B(al), eq. 40): :func:`gyroscopic_coefficients`;
  - centrifugal M_s(w) = sum_ab (|w|^2 I - w w^T)_ab Q_ab (eq. 22):
    :func:`centrifugal_coefficients`; the stiffness part B(al) - M_s(w):
    :func:`stiffness_coefficients`;
  - load P = G + Y - dZ/dt (eqs. 32, 24, 25, 41) = rho A int N3^T (g - a(s)) ds -
    rho I_p al_x int N_phi ds with a(s) = a0 + al x s e_x + w x (w x s e_x), i.e.
    P = (g - a0) I0 + c1 I1 - al_x Iphi, c1 = -(al x e_x) - w x (w x e_x):
    :func:`load_coefficients`;
  - axial force N(s) = N0 + N1 s + N2 s^2 = P_end + rho A [(g_x - a0_x)(L - s) +
    1/2 (w_y^2 + w_z^2)(L^2 - s^2)] (eq. 35 re-derived; tension > 0), whose geometric
    stiffness (eqs. 34, 36) is K_g = N0 G_0 + N1 G_1 + N2 G_2:
    :func:`axial_force_coefficients`.

Users: :func:`ked_element_terms` (one element, with Kuo's named terms),
:meth:`elastodyn.fem.assembly.Link.moving_frame` (through it), the KED Delta model
:class:`elastodyn.formulations.ked.engine.KEDEngine` (one sample at a time) and its
batched evaluation :class:`elastodyn.formulations.ked_delta_batch.KEDBatch` (the
coefficients of a whole chunk of samples contracted with the constant matrices at once).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validate import finite, positive, positive_int, real_array, vector
from ..exceptions import InputError
from ..description.materials import Material, Section
from .elements import (N_GAUSS, BeamElement, geometric_stiffness, gravity_load,
                       mass_matrix, shape_moments, shape_table, stiffness_matrix,
                       translation_grams)
from .shapes import gauss_legendre_01

__all__ = ["skew", "gyroscopic_coefficients", "centrifugal_coefficients",
           "stiffness_coefficients", "load_coefficients", "axial_force_coefficients",
           "LinkMatrices", "link_matrices", "KEDElementTerms", "ked_element_terms",
           "axial_force_polynomial", "centrifugal_matrix", "gyroscopic_matrix",
           "frame_motion"]


# --------------------------------------------------------------------------------------
# Coefficient functions (leading sample axes allowed)
# --------------------------------------------------------------------------------------
def skew(v) -> np.ndarray:
    """Cross-product matrix [v]x, shape (..., 3, 3), of v of shape (..., 3) (real or
    complex: complex-step derivatives go through it)."""
    v = np.asarray(v)
    v = v.astype(np.result_type(v, float), copy=False)
    if v.ndim == 1:
        return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    z = np.zeros(v.shape[:-1], dtype=v.dtype)
    return np.stack([np.stack([z, -v[..., 2], v[..., 1]], -1),
                     np.stack([v[..., 2], z, -v[..., 0]], -1),
                     np.stack([-v[..., 1], v[..., 0], z], -1)], -2)


def gyroscopic_coefficients(omega) -> np.ndarray:
    """Coefficients c (..., 9) of B(w) = sum_ab c_ab Q_ab: c = [w]x (Kuo eq. 23, sign
    re-derived from the kinetic energy: the cross term r_dot . (w x r) = delta_d^T B delta).
    B is skew-symmetric, [kg/s] for w [rad/s]; B(al) is its rate dB/dt (eq. 40)."""
    w = real_array(omega)
    return skew(w).reshape(w.shape[:-1] + (9,))


def centrifugal_coefficients(omega) -> np.ndarray:
    """Coefficients c (..., 9) of the centrifugal matrix M_s(w) = sum_ab c_ab Q_ab,
    c = |w|^2 I - w w^T (Kuo eq. 22) [1/s^2]; M_s enters the stiffness with a minus sign
    (spin softening)."""
    w = real_array(omega)
    if w.ndim == 1:
        c = (w @ w) * np.eye(3) - np.outer(w, w)
    else:
        c = (np.einsum("...a,...a->...", w, w)[..., None, None] * np.eye(3)
             - w[..., :, None] * w[..., None, :])
    return c.reshape(w.shape[:-1] + (9,))


def stiffness_coefficients(omega, alpha) -> np.ndarray:
    """Coefficients (..., 9) of the frame-motion stiffness dB/dt - M_s = B(al) - M_s(w)
    (Kuo eq. 40 without the geometric stiffness) [1/s^2]."""
    al = real_array(alpha)
    return skew(al).reshape(al.shape[:-1] + (9,)) - centrifugal_coefficients(omega)


def load_coefficients(omega, alpha, a0, gravity):
    """Coefficients (b0, b1, b2) of the load P = b0 I0 + b1 I1 + b2 Iphi (Kuo eq. 41,
    P = G + Y - dZ/dt, re-derived: the gravity and d'Alembert load of the frame's rigid
    acceleration a(s) = a0 + al x s e_x + w x (w x s e_x)).

    Parameters
    ----------
    omega, alpha : array_like, shape (..., 3)
        Angular velocity [rad/s] and acceleration [rad/s^2] of the frame, frame components.
    a0 : array_like, shape (..., 3)
        Absolute acceleration of the frame origin (s = 0) [m/s^2], frame components.
    gravity : array_like, shape (..., 3)
        Gravitational acceleration [m/s^2], frame components.

    Returns
    -------
    b0 : (..., 3) = g - a0 [m/s^2]; b1 : (..., 3) = -(al x e_x) - w x (w x e_x) [1/s^2];
    b2 : (...,) = -al_x [1/s^2].
    """
    w, al = real_array(omega), real_array(alpha)
    b0 = real_array(gravity) - real_array(a0)
    if w.ndim == 1:  # one sample: scalars (the reference path's speed)
        w0, w1, w2 = w.tolist()
        a0_, a1, a2 = al.tolist()
        return b0, np.array([w1 * w1 + w2 * w2, -a2 - w0 * w1, a1 - w0 * w2]), -a0_
    b1 = np.stack([w[..., 1] ** 2 + w[..., 2] ** 2, -al[..., 2] - w[..., 0] * w[..., 1],
                   al[..., 1] - w[..., 0] * w[..., 2]], axis=-1)
    return b0, b1, -al[..., 0]


def _axial_polynomial(L, rA, b, wp2, end_force):
    """(N0, N1, N2) for b = g_x - a0_x [m/s^2] and wp2 = w_y^2 + w_z^2 [1/s^2]."""
    return end_force + rA * (b * L + 0.5 * wp2 * L * L), -rA * b, -0.5 * rA * wp2


def axial_force_coefficients(length: float, mass_per_length: float, omega, a0, gravity,
                             end_force) -> np.ndarray:
    """Coefficients (N0, N1, N2), shape (..., 3), of the axial force
    N(s) = N0 + N1 s + N2 s^2 [N, N/m, N/m^2] along a beam of length L (s from its origin).

    Kuo eq. (35), re-derived: the axial equilibrium of [s, L] under the axial gravity and
    d'Alembert load rho A (g_x - a0_x + (w_y^2 + w_z^2) s) with N(L) = P_end gives

        N(s) = P_end + rho A [(g_x - a0_x)(L - s) + 1/2 (w_y^2 + w_z^2)(L^2 - s^2)].

    Departure from the paper: Kuo writes -(a_ox + g_x) (his g is the reaction to gravity);
    here ``gravity`` is the gravitational acceleration itself, so a beam hanging under
    gravity is in tension.

    Parameters
    ----------
    length : float
        L [m].
    mass_per_length : float
        rho A [kg/m].
    omega, a0, gravity : array_like, shape (..., 3)
        Frame angular velocity [rad/s], origin acceleration and gravity [m/s^2], frame
        components.
    end_force : float or array_like, shape (...)
        P_end, the axial force at s = L [N] (tension > 0).
    """
    w = real_array(omega)
    b = real_array(gravity)[..., 0] - real_array(a0)[..., 0]
    wp2 = w[..., 1] ** 2 + w[..., 2] ** 2
    n = _axial_polynomial(length, mass_per_length, b, wp2, end_force)
    if w.ndim == 1 and np.ndim(end_force) == 0:
        return np.array(n)
    return np.stack(np.broadcast_arrays(*n), axis=-1)


# --------------------------------------------------------------------------------------
# Constant matrices of a beam of n equal elements in one frame
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LinkMatrices:
    """Constant matrices of one link of n equal elements, in the link frame.

    Link dofs: node j's dofs (``element.node_dofs``) at [j nd, (j+1) nd), j = 0..n
    (natural order), or a selection of them in the order ``dofs`` (:meth:`restricted`).

    Attributes
    ----------
    M, Ke : (nl, nl)
        Mass [kg, kg m, kg m^2] and elastic stiffness [N/m, N, N m] (Kuo eqs. 21, 29).
    Q : (3, 3, nl, nl)
        Q[a, b] = rho A int N_a N_b^T ds (a, b in u, v, w) [kg].
    G : (3, nl, nl)
        G[k] = int s^k (N_v' N_v'^T + N_w' N_w'^T) ds, k = 0, 1, 2 [m^(k-1)].
    I0, I1 : (3, nl)
        rho A int s^k N3 ds, k = 0, 1 [kg, kg m].
    Iphi : (nl,)
        rho I_p int N_phi ds [kg m].
    rho_a : float
        Mass per length [kg/m].
    dofs : ndarray of int or None
        The natural dof index of each row (None: all dofs in natural order).
    """

    element: BeamElement
    length: float
    n_elements: int
    rho_a: float
    M: np.ndarray
    Ke: np.ndarray
    Q: np.ndarray
    G: np.ndarray
    I0: np.ndarray
    I1: np.ndarray
    Iphi: np.ndarray
    dofs: np.ndarray | None = None
    _rows: dict = field(default_factory=dict, init=False, repr=False)  # Q rows cache

    @property
    def nd(self) -> int:
        """Dofs per node."""
        return self.element.n_node_dofs

    @property
    def n_dofs(self) -> int:
        """nl: (n + 1) nd, or the number of kept dofs (:meth:`restricted`)."""
        return (self.n_elements + 1) * self.nd if self.dofs is None else len(self.dofs)

    @cached_property
    def Q9(self) -> np.ndarray:
        """Q reshaped (9, nl * nl) for fast contractions."""
        return self.Q.reshape(9, self.n_dofs * self.n_dofs)

    def _q9_rows(self, rows) -> np.ndarray:
        """Q restricted to dof rows ``rows`` (int or tuple), reshaped (9, -1) (cached)."""
        if rows not in self._rows:
            self._rows[rows] = np.ascontiguousarray(
                self.Q[:, :, rows, :]).reshape(9, -1)
        return self._rows[rows]

    def combine(self, c, rows=None) -> np.ndarray:
        """sum_ab c_ab Q_ab for coefficients c (..., 9): shape (..., nl, nl), or the rows
        ``rows`` only (an int: shape (..., nl); a tuple of ints: (..., len(rows), nl))."""
        c = real_array(c)
        nl = self.n_dofs
        if rows is None:
            return (c @ self.Q9).reshape(c.shape[:-1] + (nl, nl))
        return (c @ self._q9_rows(rows)).reshape(c.shape[:-1] + np.shape(rows) + (nl,))

    def gyroscopic(self, omega, rows=None) -> np.ndarray:
        """B(w) [kg/s], shape (..., nl, nl) (see :func:`gyroscopic_coefficients`)."""
        return self.combine(gyroscopic_coefficients(omega), rows)

    def centrifugal(self, omega, rows=None) -> np.ndarray:
        """M_s(w) [kg/s^2], shape (..., nl, nl) (Kuo eq. 22)."""
        return self.combine(centrifugal_coefficients(omega), rows)

    def geometric(self, axial, rows=None) -> np.ndarray:
        """K_g = N0 G_0 + N1 G_1 + N2 G_2 [N/m] for axial-force coefficients (..., 3)
        (:func:`axial_force_coefficients`; Kuo eqs. 34-37)."""
        G = self.G if rows is None else self.G[:, rows]
        axial = real_array(axial)
        return (axial @ G.reshape(3, -1)).reshape(axial.shape[:-1] + G.shape[1:])

    def axial_force(self, omega, a0, gravity, end_force) -> np.ndarray:
        """(N0, N1, N2), shape (..., 3), of this link (:func:`axial_force_coefficients`)."""
        return axial_force_coefficients(self.length, self.rho_a, omega, a0, gravity,
                                        end_force)

    def stiffness(self, omega, alpha, a0=None, gravity=None, end_force=None,
                  rows=None) -> np.ndarray:
        """K_e + B(al) - M_s(w) [+ K_g] [N/m], shape (..., nl, nl) (Kuo eqs. 39-40).

        The geometric stiffness K_g of the axial force is included when ``end_force``
        (P_end at s = L [N]) is given, with ``a0`` and ``gravity`` (..., 3)."""
        Ke = self.Ke if rows is None else self.Ke[rows]
        K = Ke + self.combine(stiffness_coefficients(omega, alpha), rows)
        if end_force is not None:
            K = K + self.geometric(self.axial_force(omega, a0, gravity, end_force), rows)
        return K

    def load(self, omega, alpha, a0, gravity) -> np.ndarray:
        """P = G + Y - dZ/dt (Kuo eq. 41) [N, N m], shape (..., nl): gravity and
        d'Alembert load of the frame's rigid motion (:func:`load_coefficients`)."""
        b0, b1, b2 = load_coefficients(omega, alpha, a0, gravity)
        if np.ndim(b2) == 0:
            return b0 @ self.I0 + b1 @ self.I1 + b2 * self.Iphi
        return b0 @ self.I0 + b1 @ self.I1 + b2[..., None] * self.Iphi

    def restricted(self, dofs) -> "LinkMatrices":
        """The same matrices on the dofs ``dofs`` only (distinct natural dof indices), in
        that order (e.g. a permutation, or the dofs left free by the supports)."""
        p = np.asarray(dofs, dtype=int)
        if p.ndim != 1 or len(set(p.tolist())) != p.size or p.size == 0 or \
                p.min() < 0 or p.max() >= self.n_dofs:
            raise InputError("dofs", dofs, f"distinct indices in 0..{self.n_dofs - 1}")
        base = np.arange(self.n_dofs) if self.dofs is None else self.dofs
        ix = np.ix_(p, p)
        return LinkMatrices(self.element, self.length, self.n_elements, self.rho_a,
                            self.M[ix], self.Ke[ix], self.Q[:, :, p[:, None], p[None, :]],
                            self.G[:, p[:, None], p[None, :]], self.I0[:, p],
                            self.I1[:, p], self.Iphi[p], base[p])

    def field_rows(self, s: float) -> dict:
        """Rows giving u, v, w, phi at link coordinate s in [0, L] from the link dofs."""
        el, n, l = self.element, self.n_elements, self.length / self.n_elements
        k = min(int(s / l), n - 1)
        xi = (s - k * l) / l
        nl = (n + 1) * self.nd
        out = {}
        for f in el.fields:
            row = np.zeros(nl)
            row[k * self.nd:(k + 2) * self.nd] = el.shape(f, [xi], l)[0]
            out[f] = row if self.dofs is None else row[self.dofs]
        return out


def link_matrices(element: BeamElement, length: float, n: int, section: Section,
                  material: Material) -> LinkMatrices:
    """Assemble the constant matrices of a link of ``n`` equal elements (see
    :class:`LinkMatrices`), length [m], in the link frame (natural dof order)."""
    if not isinstance(element, BeamElement) or not element.spatial:
        raise ValueError(f"invalid element: got {element!r}; allowed: a spatial BeamElement")
    length = positive("length", length)
    n = positive_int("n", n)
    l = length / n
    nd, ne = element.n_node_dofs, element.n_dofs
    nl = (n + 1) * nd
    rA = material.rho * section.area
    me = mass_matrix(element, l, section, material)
    ke = stiffness_matrix(element, l, section, material)
    qe = translation_grams(element, l, section, material)
    dt = np.result_type(me, ke, qe, rA, l)     # complex under a complex step
    M = np.zeros((nl, nl), dt)
    Ke = np.zeros((nl, nl), dt)
    Q = np.zeros((3, 3, nl, nl), dt)
    G = np.zeros((3, nl, nl), dt)
    I0 = np.zeros((3, nl), dt)
    I1 = np.zeros((3, nl), dt)
    Iphi = np.zeros(nl, dt)
    m0, m1 = shape_moments(element, l, 0), shape_moments(element, l, 1)
    for k in range(n):
        sk = k * l
        sl = slice(k * nd, k * nd + ne)
        M[sl, sl] += me
        Ke[sl, sl] += ke
        Q[:, :, sl, sl] += qe
        # int over the element of (s_k + x)^p N'N'^T, p = 0, 1, 2
        for p, poly in enumerate(((1.0,), (sk, 1.0), (sk * sk, 2 * sk, 1.0))):
            G[p, sl, sl] += geometric_stiffness(element, l, {"poly": poly})
        for a, f in enumerate(("u", "v", "w")):
            I0[a, sl] += rA * m0[f]
            I1[a, sl] += rA * (sk * m0[f] + m1[f])
        Iphi[sl] += material.rho * section.ip * m0["phi"]
    return LinkMatrices(element, length, n, rA, M, Ke, Q, G, I0, I1, Iphi)


# --------------------------------------------------------------------------------------
# One element with Kuo's named terms
# --------------------------------------------------------------------------------------
def axial_force_polynomial(length: float, *, tip_force: float, axial_acceleration: float,
                           gravity_x: float, omega_perp_sq: float,
                           mass_per_length: float) -> tuple[float, float, float]:
    """Coefficients (c0, c1, c2) of the axial force N(x) = c0 + c1 x + c2 x^2 [N] of an
    element (Kuo eq. 35 re-derived; :func:`axial_force_coefficients` with scalar inputs):

        N(x) = P_r + rho A [(g_x - a_ox)(l - x) + 1/2 (w_y^2 + w_z^2)(l^2 - x^2)].
    """
    c = _axial_polynomial(length, mass_per_length, gravity_x - axial_acceleration,
                          omega_perp_sq, tip_force)
    return float(c[0]), float(c[1]), float(c[2])


@dataclass(frozen=True)
class KEDElementTerms:
    """Moving-frame element terms of Kuo 2016 section 3 (all arrays in element dofs).

    The element equation (Kuo eq. 39, signs re-derived) is::

        M_e dd(delta) + 2 B_e d(delta) + (K_e + K_d) delta = P_e,
        K_d = dB_e/dt - M_s + K_g,    P_e = G_e + Y_e - dZ_e/dt,
        K_g = [P_r + rho A l (g_x - a_ox) + 1/2 rho A l^2 w_perp^2] A_s
              - rho A l (g_x - a_ox) B_s - 1/2 rho A l^2 w_perp^2 C_s,

    with w_perp^2 = w_y^2 + w_z^2. Fields: ``M_e``, ``M_s``, ``B_e``, ``B_e_dot``,
    ``K_e``, ``K_g``, ``K_d``, ``A_s``, ``B_s``, ``C_s`` (n, n); ``G_e``, ``Y_e``,
    ``Z_e``, ``Z_e_dot``, ``P_e`` (n,); ``axial_force`` polynomial (c0, c1, c2) [N, N/m,
    N/m^2]. Properties ``C`` = 2 B_e and ``K`` = K_e + K_d.
    """

    M_e: np.ndarray
    M_s: np.ndarray
    B_e: np.ndarray
    B_e_dot: np.ndarray
    K_e: np.ndarray
    K_g: np.ndarray
    K_d: np.ndarray
    A_s: np.ndarray
    B_s: np.ndarray
    C_s: np.ndarray
    G_e: np.ndarray
    Y_e: np.ndarray
    Z_e: np.ndarray
    Z_e_dot: np.ndarray
    P_e: np.ndarray
    axial_force: tuple = field(default=(0.0, 0.0, 0.0))

    @property
    def C(self) -> np.ndarray:
        """Gyroscopic (Coriolis) matrix 2 B_e [kg/s]."""
        return 2.0 * self.B_e

    @property
    def K(self) -> np.ndarray:
        """Total stiffness K_e + K_d [N/m]."""
        return self.K_e + self.K_d


def _check_element(el, length):
    if not isinstance(el, BeamElement):
        raise TypeError(f"element must be a BeamElement, got {type(el).__name__}")
    return positive("length", length)


def centrifugal_matrix(el, length, section, material, omega) -> np.ndarray:
    """M_s of Kuo 2016 eq. (22): rho A int N3^T (|w|^2 I - w w^T) N3 dx [kg/s^2].

    N3 = [N_u; N_v; N_w]. It enters the stiffness with a minus sign (spin softening).
    ``omega``: angular velocity of the element frame in element components [rad/s].
    """
    l = _check_element(el, length)
    om = vector("omega", omega, 3)
    return np.einsum("a,aij->ij", centrifugal_coefficients(om),
                     translation_grams(el, l, section, material).reshape(9, *([el.n_dofs] * 2)))


def gyroscopic_matrix(el, length, section, material, omega) -> np.ndarray:
    """B_e: rho A int N3^T [w]x N3 dx [kg/s], skew-symmetric.

    Re-derived from T = 1/2 rho A int |V + w x r + r_dot|^2: the cross term is
    r_dot . (w x r) = d(delta)^T B_e delta. Departure: Kuo's printed eq. (23) is the
    negative of this matrix; with it the Coriolis force 2 B_e d(delta) of eq. (39) would
    have the wrong sign (tested against 2 m w x r_dot).
    """
    l = _check_element(el, length)
    om = vector("omega", omega, 3)
    return np.einsum("a,aij->ij", gyroscopic_coefficients(om),
                     translation_grams(el, l, section, material).reshape(9, *([el.n_dofs] * 2)))


def _frame_terms(el, l, section, material, velocity, omega, acceleration, alpha):
    """Y_e, Z_e and dZ_e/dt of Kuo eqs. (24)-(25) (signs re-derived), one by one (their
    sum enters the load through :func:`load_coefficients`)."""
    xg, wg = gauss_legendre_01(N_GAUSS)
    x = xg * l
    w = wg * l
    N3 = np.stack([shape_table(el, f, l, 0) for f in ("u", "v", "w")], axis=1)  # (g, 3, n)
    Np = shape_table(el, "phi", l, 0)
    rA = material.rho * section.area
    rIp = material.rho * section.ip
    r0 = np.stack([x, 0 * x, 0 * x], axis=1)  # material points of the axis (g, 3)
    a0 = velocity + np.cross(omega, r0)  # rigid velocity of the axis points (g, 3)
    # Y_e = rho A int N3^T (a0 x w) dx  (Kuo eq. 24, signs re-derived: centrifugal term
    # of the y and z rows is -w_x w_y x and -w_x w_z x; Kuo's first N_v reads N_u).
    Y = rA * np.einsum("g,gi,gin->n", w, np.cross(a0, omega), N3)
    # Z_e = rho A int N3^T a0 dx + rho I_p w_x int N_phi dx  (Kuo eq. 25)
    Z = rA * np.einsum("g,gi,gin->n", w, a0, N3) + rIp * omega[0] * (w @ Np)
    # dZ_e/dt with the rates of the frame components: dV/dt|frame = a - w x V.
    vdot = acceleration - np.cross(omega, velocity)
    a0dot = vdot + np.cross(alpha, r0)
    Zdot = rA * np.einsum("g,gi,gin->n", w, a0dot, N3) + rIp * alpha[0] * (w @ Np)
    return Y, Z, Zdot


def frame_motion(velocity, omega, acceleration, alpha, gravity, tip_force=0.0):
    """Validate a frame motion: five 3-vectors [SI] and the tip axial force [N]."""
    return (vector("velocity", velocity, 3), vector("omega", omega, 3),
            vector("acceleration", acceleration, 3), vector("alpha", alpha, 3),
            vector("gravity", gravity, 3), finite("tip_force", tip_force))


def ked_element_terms(el: BeamElement, length: float, section: Section, material: Material,
                      *, velocity, omega, acceleration, alpha, gravity,
                      tip_force: float = 0.0) -> KEDElementTerms:
    """All moving-frame terms of a spatial element (Kuo 2016 eqs. 20-41).

    The element is a link of one element (:func:`link_matrices`); its time-varying terms
    come from the coefficient functions of this module.

    Parameters
    ----------
    el : BeamElement
        A spatial element.
    length : float
        Element length l [m]; > 0.
    section, material : Section, Material
    velocity : array_like, shape (3,)
        Velocity V_o of the element frame origin (left node), element components [m/s].
    omega : array_like, shape (3,)
        Angular velocity w_o of the element frame, element components [rad/s].
    acceleration : array_like, shape (3,)
        Absolute acceleration a_o of the origin, element components [m/s^2].
    alpha : array_like, shape (3,)
        Angular acceleration of the frame, element components [rad/s^2] (for an angular
        velocity, the rate of the frame components equals the absolute rate).
    gravity : array_like, shape (3,)
        Gravitational acceleration in element components [m/s^2].
    tip_force : float
        Axial force P_r at the right node [N], tension > 0 (the load the rest of the link
        puts on this element; Kuo leaves it undefined at rest, see the errata).

    Returns
    -------
    KEDElementTerms
    """
    l = _check_element(el, length)
    if not el.spatial:
        raise ValueError("invalid element: got a planar element; allowed: a spatial element "
                         "(the moving-frame terms of Kuo section 3 are spatial)")
    V, om, a, al, g, Pr = frame_motion(velocity, omega, acceleration, alpha, gravity, tip_force)
    lm = link_matrices(el, l, 1, section, material)
    Ms = lm.centrifugal(om)
    Be = lm.gyroscopic(om)
    Bdot = lm.gyroscopic(al)  # dB_e/dt: B_e is linear in w
    # A_s, B_s, C_s normalized to the same units [1/m]: int N'N'^T x^k dx / l^k
    # (Kuo eq. 37 carries stray factors of l in A_s and B_s relative to eq. 36).
    As, Bs, Cs = lm.G[0], lm.G[1] / l, lm.G[2] / l**2
    axial = lm.axial_force(om, a, g, Pr)
    Kg = lm.geometric(axial)
    Ge = gravity_load(el, l, section, material, g)
    Y, Z, Zdot = _frame_terms(el, l, section, material, V, om, a, al)
    return KEDElementTerms(M_e=lm.M, M_s=Ms, B_e=Be, B_e_dot=Bdot, K_e=lm.Ke, K_g=Kg,
                           K_d=Bdot - Ms + Kg, A_s=As, B_s=Bs, C_s=Cs, G_e=Ge, Y_e=Y,
                           Z_e=Z, Z_e_dot=Zdot, P_e=lm.load(om, al, a, g),
                           axial_force=tuple(float(c) for c in axial))
