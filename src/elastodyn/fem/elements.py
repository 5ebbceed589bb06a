"""Euler-Bernoulli beam finite elements: planar and spatial, two interpolation families.

Element frame and sign conventions (Kuo 2016, Fig. 3 and eq. 17)
-----------------------------------------------------------------
The element frame has its origin at the left node, x along the undeformed axis, y and z
transverse. The fields are the axial displacement u(x), the transverse displacements v(x)
(along y) and w(x) (along z), and the torsion angle phi(x) about x [m, m, m, rad].

Nodal degrees of freedom (per node, in this order)
---------------------------------------------------
=====================  =====================================================================
element                node dofs
=====================  =====================================================================
planar,  cubic         u, v, rz                                  (3 per node)
planar,  quintic       u, v, rz, du, drz                         (5 per node)
spatial, cubic         u, v, w, rx, ry, rz                       (6 per node)
spatial, quintic       u, v, w, rx, ry, rz, du, drx, dry, drz    (10 per node)
=====================  =====================================================================

with the small rotations rx = phi, ry = -w', rz = v' [rad] (right-handed rotations about the
element axes, so the first six node dofs of a spatial element transform as a displacement
and a rotation vector), and the derivatives du = u' (axial strain), drx = phi' (twist rate),
dry = -w'', drz = v'' (curvatures) [1/m]. Element dofs are node 1's then node 2's.

``order="cubic"`` is Kuo's Table 2 family: linear axial and torsion, cubic Hermite bending.
``order="quintic"`` is Kuo's Table 3 family: cubic Hermite axial and torsion, quintic
Hermite bending. Planar elements have the axial field and the bending field v only; their
cubic element is the classical 6-dof frame element [u1, v1, theta1, u2, v2, theta2]
(Rosyid 2020 eq. 46 ordering).

All matrices are integrated by Gauss-Legendre quadrature with enough points to be exact
for the polynomial integrands (8 points: exact to degree 15).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from .._validate import choice, finite, positive, vector
from ..description.materials import Material, Section
from .shapes import derivative_orders, gauss_legendre_01, reference_basis

ORDERS = ("cubic", "quintic")
N_GAUSS = 8

# field -> interpolation continuity r, for each order
_FIELD_R = {
    "cubic": {"u": 0, "phi": 0, "v": 1, "w": 1},
    "quintic": {"u": 1, "phi": 1, "v": 2, "w": 2},
}
# field -> node dofs carrying value, first and second derivative, with their sign
_FIELD_DOFS = {
    "u": (("u", 1.0), ("du", 1.0)),
    "phi": (("rx", 1.0), ("drx", 1.0)),
    "v": (("v", 1.0), ("rz", 1.0), ("drz", 1.0)),
    "w": (("w", 1.0), ("ry", -1.0), ("dry", -1.0)),
}
_NODE_DOFS = {
    (False, "cubic"): ("u", "v", "rz"),
    (False, "quintic"): ("u", "v", "rz", "du", "drz"),
    (True, "cubic"): ("u", "v", "w", "rx", "ry", "rz"),
    (True, "quintic"): ("u", "v", "w", "rx", "ry", "rz", "du", "drx", "dry", "drz"),
}
# dofs that carry a rigid displacement or rotation (constrained by end conditions)
TRANSLATION_DOFS = ("u", "v", "w")
ROTATION_DOFS = ("rx", "ry", "rz")


@dataclass(frozen=True)
class BeamElement:
    """Type of a two-node Euler-Bernoulli beam element.

    Parameters
    ----------
    spatial : bool
        True for the spatial element (axial, torsion, two bendings), False for the planar
        element (axial and bending in the x-y plane).
    order : {"cubic", "quintic"}
        Interpolation family (see module docstring).
    """

    spatial: bool = True
    order: str = "cubic"

    def __post_init__(self):
        choice("order", self.order, ORDERS)

    @cached_property
    def node_dofs(self) -> tuple[str, ...]:
        """Names of the dofs of one node, in order."""
        return _NODE_DOFS[(bool(self.spatial), self.order)]

    @property
    def n_node_dofs(self) -> int:
        return len(self.node_dofs)

    @property
    def n_dofs(self) -> int:
        """Number of element dofs (two nodes)."""
        return 2 * self.n_node_dofs

    @cached_property
    def fields(self) -> tuple[str, ...]:
        return ("u", "v", "w", "phi") if self.spatial else ("u", "v")

    def field_order(self, name: str) -> int:
        """Continuity order r of the interpolation of field ``name``."""
        return _FIELD_R[self.order][name]

    @cached_property
    def _placement(self) -> dict:
        """field -> (element dof index, sign, derivative order) of each basis function."""
        out = {}
        for f in self.fields:
            r = self.field_order(f)
            idx, sgn = [], []
            for node in (0, 1):
                for d in range(r + 1):
                    name, s = _FIELD_DOFS[f][d]
                    idx.append(node * self.n_node_dofs + self.node_dofs.index(name))
                    sgn.append(s)
            out[f] = (np.array(idx), np.array(sgn), derivative_orders(r))
        return out

    def shape(self, name: str, xi, length: float, deriv: int = 0) -> np.ndarray:
        """Row vectors N_f^T(x) of field ``name`` at x = xi*length over the element dofs.

        Parameters
        ----------
        name : {"u", "v", "w", "phi"}
            Field (planar elements have "u" and "v").
        xi : array_like, shape (n,)
            Reference coordinates in [0, 1].
        length : float
            Element length l [m]; > 0.
        deriv : int
            Order of the x-derivative.

        Returns
        -------
        ndarray, shape (n, n_dofs)
            f^(deriv)(x) = shape(...) @ delta_e.
        """
        choice("field", name, self.fields)
        xi = np.atleast_1d(np.asarray(xi, dtype=float))
        return _shape_values(self, name, tuple(xi.tolist()), deriv) * _scale(
            self, name, float(length), deriv)

    def dof_labels(self) -> list[str]:
        """Labels of the element dofs, e.g. ``['u1', 'v1', ..., 'rz2']``."""
        return [f"{d}{n}" for n in (1, 2) for d in self.node_dofs]


def _scale(el: BeamElement, name: str, length: float, deriv: int) -> np.ndarray:
    idx, sgn, dord = el._placement[name]
    s = np.zeros(el.n_dofs)
    s[idx] = sgn * length ** dord / length ** deriv
    return s


@lru_cache(maxsize=256)
def _shape_values(el: BeamElement, name: str, xi: tuple, deriv: int) -> np.ndarray:
    """Unscaled, unsigned reference basis placed on element dofs (cached)."""
    idx, _, _ = el._placement[name]
    ref = reference_basis(el.field_order(name), np.array(xi), deriv)
    out = np.zeros((len(xi), el.n_dofs))
    out[:, idx] = ref
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def _gauss_shapes(el: BeamElement, name: str, deriv: int) -> np.ndarray:
    x, _ = gauss_legendre_01(N_GAUSS)
    return _shape_values(el, name, tuple(x.tolist()), deriv)


def _gauss(el: BeamElement, name: str, length: float, deriv: int) -> np.ndarray:
    """Field shapes at the Gauss points, shape (N_GAUSS, n_dofs)."""
    return _gauss_shapes(el, name, deriv) * _scale(el, name, length, deriv)


def _weights(length: float, weight=None) -> np.ndarray:
    x, w = gauss_legendre_01(N_GAUSS)
    w = w * length
    if weight is not None:
        w = w * weight(x * length)
    return w


def _gram(A: np.ndarray, B: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_g w_g A_g^T B_g  (integral of N_a N_b^T)."""
    return (A * w[:, None]).T @ B


def _check(el, length):
    if not isinstance(el, BeamElement):
        raise TypeError(f"element must be a BeamElement, got {type(el).__name__}")
    return positive("length", length)


# --------------------------------------------------------------------------------------
# Constant element matrices
# --------------------------------------------------------------------------------------
def mass_matrix(el: BeamElement, length: float, section: Section, material: Material) -> np.ndarray:
    """Consistent mass matrix M_e of Kuo 2016 eq. (21) [kg, kg m, kg m^2].

    M_e = rho A int (N_u N_u^T + N_v N_v^T + N_w N_w^T) dx + rho I_p int N_phi N_phi^T dx.
    Rotary inertia of the bending cross-sections is neglected (Euler-Bernoulli, as Kuo).

    Returns
    -------
    ndarray, shape (n_dofs, n_dofs), symmetric positive definite.
    """
    l = _check(el, length)
    w = _weights(l)
    rA = material.rho * section.area
    M = sum(rA * _gram(N, N, w) for N in (_gauss(el, f, l, 0) for f in ("u", "v", "w")
                                          if f in el.fields))
    if el.spatial:
        Np = _gauss(el, "phi", l, 0)
        M = M + material.rho * section.ip * _gram(Np, Np, w)
    return M


def stiffness_matrix(el: BeamElement, length: float, section: Section,
                     material: Material) -> np.ndarray:
    """Elastic stiffness matrix K_e of Kuo 2016 eq. (29) [N/m, N, N m].

    K_e = EA int N_u' N_u'^T + EI_z int N_v'' N_v''^T + EI_y int N_w'' N_w''^T
          + GJ int N_phi' N_phi'^T   (J: Saint-Venant constant, see Section).

    Returns
    -------
    ndarray, shape (n_dofs, n_dofs), symmetric positive semi-definite; its null space is
    the rigid-body motions (3 planar, 6 spatial).
    """
    l = _check(el, length)
    w = _weights(l)
    E, G = material.E, material.G
    Nu = _gauss(el, "u", l, 1)
    Nv = _gauss(el, "v", l, 2)
    K = E * section.area * _gram(Nu, Nu, w) + E * section.iz * _gram(Nv, Nv, w)
    if el.spatial:
        Nw = _gauss(el, "w", l, 2)
        Np = _gauss(el, "phi", l, 1)
        K = K + E * section.iy * _gram(Nw, Nw, w) + G * section.j * _gram(Np, Np, w)
    return K


def geometric_stiffness(el: BeamElement, length: float, axial_force) -> np.ndarray:
    """Geometric (stress) stiffness for an axial force N(x) [N/m].

    From the work of the axial force on the transverse slopes, Kuo 2016 eq. (34):
    W_t = 1/2 int N(x) (v'^2 + w'^2) dx, giving K_g = int N(x) (N_v' N_v'^T + N_w' N_w'^T).
    Tension (N > 0) stiffens: K_g is added to K_e (the errata of Kuo's eq. (38) sign).

    Parameters
    ----------
    axial_force : float or sequence
        A float: constant axial force N [N] (tension > 0). A pair (N_left, N_right): force
        varying linearly along the element. A mapping ``{"poly": (c0, c1, c2, ...)}``:
        N(x) = c0 + c1 x + c2 x^2 + ... with x [m] from the left node (degree <= 4).

    Returns
    -------
    ndarray, shape (n_dofs, n_dofs), symmetric.
    """
    l = _check(el, length)
    if isinstance(axial_force, dict):
        coeffs = [finite("axial_force coefficient", c) for c in axial_force["poly"]]
    elif np.ndim(axial_force) == 0:
        coeffs = [finite("axial_force", axial_force)]
    else:
        n0, n1 = vector("axial_force", axial_force, 2)
        coeffs = [n0, (n1 - n0) / l]
    if len(coeffs) > 5:
        raise ValueError("axial_force polynomial degree must be <= 4 for exact quadrature")
    w = _weights(l, lambda x: np.polynomial.polynomial.polyval(x, coeffs))
    Nv = _gauss(el, "v", l, 1)
    K = _gram(Nv, Nv, w)
    if el.spatial:
        Nw = _gauss(el, "w", l, 1)
        K = K + _gram(Nw, Nw, w)
    return K


def gravity_load(el: BeamElement, length: float, section: Section, material: Material,
                 gravity) -> np.ndarray:
    """Consistent gravity load vector G_e [N, N m] (Kuo 2016 eq. 32).

    G_e = rho A int (g_x N_u + g_y N_v + g_z N_w) dx with ``gravity`` the gravitational
    acceleration vector in the element frame [m/s^2] (pointing where bodies fall, so
    G_e is the generalized gravity *force*; the potential is V_g = -G_e^T delta_e).

    Parameters
    ----------
    gravity : array_like, shape (3,) spatial or (2,) planar [m/s^2].

    Returns
    -------
    ndarray, shape (n_dofs,)
    """
    l = _check(el, length)
    comps = ("u", "v", "w") if el.spatial else ("u", "v")
    g = vector("gravity", gravity, len(comps))
    w = _weights(l)
    rA = material.rho * section.area
    return rA * sum(gi * (w @ _gauss(el, f, l, 0)) for gi, f in zip(g, comps))


def shape_moments(el: BeamElement, length: float, power: int = 0) -> dict:
    """Moments int_0^l x^p N_f(x) dx of every field's shapes [m^(p+1)].

    Parameters
    ----------
    power : int
        p in 0..4 (exact quadrature).

    Returns
    -------
    dict field name -> ndarray, shape (n_dofs,)
    """
    l = _check(el, length)
    if power not in range(5):
        raise ValueError(f"invalid power: got {power!r}; allowed: 0..4")
    w = _weights(l, lambda x: x ** power)
    return {f: w @ _gauss(el, f, l, 0) for f in el.fields}


# --------------------------------------------------------------------------------------
# Moving-frame (kineto-elasto-dynamic) terms, Kuo 2016 section 3
# --------------------------------------------------------------------------------------
def _skew(a: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _translation_grams(el, l, section, material):
    """Q[a][b] = rho A int N_a N_b^T for a, b in (u, v, w): shape (3, 3, n, n)."""
    w = _weights(l)
    N = [_gauss(el, f, l, 0) for f in ("u", "v", "w")]
    rA = material.rho * section.area
    return np.array([[rA * _gram(N[a], N[b], w) for b in range(3)] for a in range(3)])


def axial_force_polynomial(length: float, *, tip_force: float, axial_acceleration: float,
                           gravity_x: float, omega_perp_sq: float,
                           mass_per_length: float) -> tuple[float, float, float]:
    """Coefficients (c0, c1, c2) of the axial force N(x) = c0 + c1 x + c2 x^2 [N].

    Kuo 2016 eq. (35), re-derived: the axial equilibrium of the element under its own
    axial inertial and gravity load q(x) = rho A (g_x - a_ox + (w_y^2 + w_z^2) x) with
    N(l) = P_r gives

        N(x) = P_r + rho A [(g_x - a_ox)(l - x) + 1/2 (w_y^2 + w_z^2)(l^2 - x^2)].

    Departure from the paper: Kuo writes -(a_ox + g_x), i.e. his g is the reaction to
    gravity (his V_g = +rho A int g.r); here ``gravity_x`` is the gravitational
    acceleration itself, so a beam hanging under gravity (g_x > 0 along the beam) is in
    tension.
    """
    l = length
    rA = mass_per_length
    b = gravity_x - axial_acceleration
    c0 = tip_force + rA * (b * l + 0.5 * omega_perp_sq * l * l)
    c1 = -rA * b
    c2 = -0.5 * rA * omega_perp_sq
    return c0, c1, c2


@dataclass(frozen=True)
class KEDElementTerms:
    """Moving-frame element terms of Kuo 2016 section 3 (all arrays in element dofs).

    The element equation (Kuo eq. 39, signs re-derived) is

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


def _centrifugal(om: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return np.einsum("ab,abij->ij", om @ om * np.eye(3) - np.outer(om, om), Q)


def _gyroscopic(om: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return np.einsum("ab,abij->ij", _skew(om), Q)


def centrifugal_matrix(el, length, section, material, omega) -> np.ndarray:
    """M_s of Kuo 2016 eq. (22): rho A int N3^T (|w|^2 I - w w^T) N3 dx [kg/s^2].

    N3 = [N_u; N_v; N_w]. It enters the stiffness with a minus sign (spin softening).
    ``omega``: angular velocity of the element frame in element components [rad/s].
    """
    l = _check(el, length)
    om = vector("omega", omega, 3)
    return _centrifugal(om, _translation_grams(el, l, section, material))


def gyroscopic_matrix(el, length, section, material, omega) -> np.ndarray:
    """B_e: rho A int N3^T [w]x N3 dx [kg/s], skew-symmetric.

    Re-derived from T = 1/2 rho A int |V + w x r + r_dot|^2: the cross term is
    r_dot . (w x r) = d(delta)^T B_e delta. Departure: Kuo's printed eq. (23) is the
    negative of this matrix; with it the Coriolis force 2 B_e d(delta) of eq. (39) would
    have the wrong sign (tested against 2 m w x r_dot).
    """
    l = _check(el, length)
    om = vector("omega", omega, 3)
    return _gyroscopic(om, _translation_grams(el, l, section, material))


def _frame_terms(el, l, section, material, velocity, omega, acceleration, alpha):
    xg, _ = gauss_legendre_01(N_GAUSS)
    x = xg * l
    w = _weights(l)
    N3 = np.stack([_gauss(el, f, l, 0) for f in ("u", "v", "w")], axis=1)  # (g, 3, n)
    Np = _gauss(el, "phi", l, 0)
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
    l = _check(el, length)
    if not el.spatial:
        raise ValueError("invalid element: got a planar element; allowed: a spatial element "
                         "(the moving-frame terms of Kuo section 3 are spatial)")
    V, om, a, al, g, Pr = frame_motion(velocity, omega, acceleration, alpha, gravity, tip_force)
    Q = _translation_grams(el, l, section, material)
    Ms = _centrifugal(om, Q)
    Be = _gyroscopic(om, Q)
    Bdot = _gyroscopic(al, Q)  # dB_e/dt: B_e is linear in w
    Ke = stiffness_matrix(el, l, section, material)
    # A_s, B_s, C_s normalized to the same units [1/m]: int N'N'^T x^k dx / l^k
    # (Kuo eq. 37 carries stray factors of l in A_s and B_s relative to eq. 36).
    As = geometric_stiffness(el, l, 1.0)
    Bs = geometric_stiffness(el, l, {"poly": (0.0, 1.0 / l)})
    Cs = geometric_stiffness(el, l, {"poly": (0.0, 0.0, 1.0 / l**2)})
    rA = material.rho * section.area
    wperp2 = om[1] ** 2 + om[2] ** 2
    c0, c1, c2 = axial_force_polynomial(l, tip_force=Pr, axial_acceleration=a[0],
                                        gravity_x=g[0], omega_perp_sq=wperp2,
                                        mass_per_length=rA)
    Kg = c0 * As + c1 * l * Bs + c2 * l**2 * Cs
    Kd = Bdot - Ms + Kg
    Ge = gravity_load(el, l, section, material, g)
    Y, Z, Zdot = _frame_terms(el, l, section, material, V, om, a, al)
    return KEDElementTerms(M_e=mass_matrix(el, l, section, material), M_s=Ms, B_e=Be,
                           B_e_dot=Bdot, K_e=Ke, K_g=Kg, K_d=Kd, A_s=As, B_s=Bs, C_s=Cs,
                           G_e=Ge, Y_e=Y, Z_e=Z, Z_e_dot=Zdot, P_e=Ge + Y - Zdot,
                           axial_force=(c0, c1, c2))
