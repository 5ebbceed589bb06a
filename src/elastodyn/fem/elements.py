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

The moving-frame terms of Kuo's section 3 (gyroscopic, centrifugal, load, axial force;
``ked_element_terms``) are in :mod:`elastodyn.fem.moving_frame`, built on the integrals
here, and exported by :mod:`elastodyn.fem`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .._validate import choice, finite, positive, real_array, scalar, vector
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
        xi = np.atleast_1d(real_array(xi))    # complex under a complex step
        return _shape_values(self, name, tuple(xi.tolist()), deriv) * _scale(
            self, name, scalar(length), deriv)

    def dof_labels(self) -> list[str]:
        """Labels of the element dofs, e.g. ``['u1', 'v1', ..., 'rz2']``."""
        return [f"{d}{n}" for n in (1, 2) for d in self.node_dofs]


def _scale(el: BeamElement, name: str, length: float, deriv: int) -> np.ndarray:
    idx, sgn, dord = el._placement[name]
    s = np.zeros(el.n_dofs, np.result_type(length, float))  # complex under a complex step
    s[idx] = sgn * length ** dord / length ** deriv
    return s


@lru_cache(maxsize=256)
def _shape_values(el: BeamElement, name: str, xi: tuple, deriv: int) -> np.ndarray:
    """Unscaled, unsigned reference basis placed on element dofs (cached)."""
    idx, _, _ = el._placement[name]
    ref = reference_basis(el.field_order(name), np.array(xi), deriv)
    out = np.zeros((len(xi), el.n_dofs), ref.dtype)
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
# Integrals shared with the moving-frame terms (elastodyn.fem.moving_frame)
# --------------------------------------------------------------------------------------
def shape_table(el: BeamElement, name: str, length: float, deriv: int = 0) -> np.ndarray:
    """Shapes of field ``name`` (derivative ``deriv``) at the N_GAUSS Gauss-Legendre points
    of an element of ``length`` [m] (points ``gauss_legendre_01(N_GAUSS)`` scaled by the
    length), shape (N_GAUSS, n_dofs)."""
    choice("field", name, el.fields)
    return _gauss(el, name, _check(el, length), deriv)


def field_mass_matrix(el: BeamElement, length: float, section: Section, material: Material,
                      name: str) -> np.ndarray:
    """Kinetic-energy matrix of one field [kg or kg m^2]: rho A int N_f N_f^T dx
    (rho I_p for the torsion angle ``phi``); the sum over the fields is
    :func:`mass_matrix`. Shape (n_dofs, n_dofs)."""
    choice("field", name, el.fields)
    l = _check(el, length)
    N = _gauss(el, name, l, 0)
    rho_a = material.rho * (section.ip if name == "phi" else section.area)
    return rho_a * _gram(N, N, _weights(l))


def translation_grams(el: BeamElement, length: float, section: Section,
                      material: Material) -> np.ndarray:
    """Q[a][b] = rho A int N_a N_b^T dx for a, b in (u, v, w) [kg], shape (3, 3, n, n)
    (spatial element): the constant matrices of the gyroscopic and centrifugal terms
    (Kuo eqs. 22-23, :mod:`elastodyn.fem.moving_frame`)."""
    l = _check(el, length)
    w = _weights(l)
    N = [_gauss(el, f, l, 0) for f in ("u", "v", "w")]
    rA = material.rho * section.area
    return np.array([[rA * _gram(N[a], N[b], w) for b in range(3)] for a in range(3)])
