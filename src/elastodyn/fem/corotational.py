"""Geometrically exact statics of spatial beam structures and their linearization about a
deflected equilibrium (corotational beam elements).

Why. A linear (or kineto-elasto-dynamic) beam model linearizes about the *undeformed*
configuration. Under gravity a light structure sags, and its vibration happens about the
sagged shape: the geometry, the internal forces and hence the frequencies change with
the sag (for a closed chain such as the Delta at first order in the sag, for a single
cantilever at second order). This module gives the equilibrium of the geometrically
exact model and the tangent (the Hessian of the total potential) and mass there.

Element (the corotational method: C. A. Felippa, B. Haugen, "A unified formulation of
small-strain corotational finite elements", CMAME 194, 2005; J.-M. Battini, C. Pacoste,
"Co-rotational beam elements with warping effects in instability problems", CMAME 191,
2002). Each two-node element carries an element frame E = [e1 e2 e3] that follows it:
e1 along the chord x_b - x_a, e3 = unit(e1 x q), e2 = e3 x e1 with q the mean of the
two end triads' y axes. Relative to E the element deforms little; its local
deformations are

    u = l - l0 (l = |x_b - x_a|),   theta_a = log(E^T T_a),  theta_b likewise,

(T_a, T_b the end triads, log the rotation vector of a rotation below pi,
:func:`rotation_log`), and its strain energy is that of the linear element of the same
family in those local dofs,

    U_e = 1/2 d^T K_e d,   d = (0, 0, 0, theta_a, u, 0, 0, theta_b)  (node dofs u v w rx ry rz),

exactly the linear cubic (Hermite) element's energy (:func:`elastodyn.fem.elements.
stiffness_matrix`, which vanishes on rigid motions) when the element does not rotate. The
rigid rotation of the element is thus exact, and so is the local rotation (the planar
element's likewise, :mod:`elastodyn.fem.planar_corotational`): a section twisted by theta
stores GJ theta^2 / (2 l) up to theta = pi. Decision (2026-11-28): the local rotations
were vee(skew(E^T T)) = sin(theta) n before, the rotation to first order only (Felippa
& Haugen's small-strain choice): 3 % softer at 0.3 rad per element, and a section
twisted by pi stored no energy at all (a physically impossible answer). The model
converges to the exact rod as the mesh refines (theta_local ~ curvature x element
length), tested against an independent elastica solution.

Loads. Body forces per unit mass b(s) = b0 + s b1 (world; gravity and the d'Alembert
forces of a rigid frame motion are of this form) on the material points of the axis,
x(xi) = (1 - xi) x_a + xi x_b + E (0, v(xi), w(xi)), with the Hermite shapes of the local
rotations v = H2 theta_az + H4 theta_bz, w = -(H2 theta_ay + H4 theta_by): the potential
-rho A int b . x ds is conservative (dead loads on material points) and its gradient is
the consistent load vector of the linear element when the element does not rotate.

Derivatives. The gradient and the Hessian of any such scalar potential with respect to
any smooth parametrization of the configuration are exact to round-off
(:func:`potential_derivatives`): the same functions that evaluate it are run on jets
(:mod:`elastodyn.fem.jets`: value, gradient and Hessian carried through every operation
by the chain rule), with no step. Every function here is complex-analytic (rotations by
:func:`so3_exp`, no abs, conj or real parts), so the data (lengths, sections, loads,
geometry) and the jets' components may be complex: an outer complex step on a
description parameter passes through the value, the gradient and the Hessian alike
(:mod:`elastodyn.analysis.frequency_sensitivity`).

Units: SI; rotations in rad.
"""
from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np

from . import jets
from .jets import Jet
from .._validate import positive
from ..exceptions import InputError, ModelError
from ..description.materials import Material, Section
from .elements import BeamElement, mass_matrix, stiffness_matrix
from .shapes import gauss_legendre_01

__all__ = ["so3_exp", "axis_rotation", "rotation_coefficients", "vee_skew",
           "CorotationalBeam", "BeamFrame", "FrameState", "potential_derivatives",
           "potential_gradient", "spin_jacobian", "chord_midspan_spatial", "rotation_log"]


def chord_midspan_spatial(s, x, t) -> float:
    """The bending at mid-length of a spatial beam of elements [m]: the distance of its
    axis point at L / 2 from the chord between its end nodes (>= 0; the planar
    counterpart, signed, is :func:`~elastodyn.fem.planar_corotational.chord_midspan`).

    Parameters
    ----------
    s : array_like, shape (k + 1,)
        The nodes' places along the straight beam from its root (s[0] = 0, s[-1] = L) [m].
    x : array_like, shape (k + 1, 3)
        The nodes' positions [m].
    t : array_like, shape (k + 1, 3)
        The axis's unit tangent at each node (the first column of the node's triad).

    Where L / 2 is not a node (an odd number of elements) the element around it is
    interpolated by the cubic Hermite curve of its end positions and tangents, the
    tangents scaled by the element's chord length (the corotational element's own
    cubic to first order in its end rotations)."""
    s = np.asarray(s, dtype=float)
    x, t = np.asarray(x, dtype=float), np.asarray(t, dtype=float)
    L = s[-1]
    k = min(max(int(np.searchsorted(s, 0.5 * L)), 1), len(s) - 1)
    a, b = x[k - 1], x[k]
    lc = float(np.linalg.norm(b - a))
    xi = (0.5 * L - s[k - 1]) / (s[k] - s[k - 1])
    h00, h10 = 2 * xi ** 3 - 3 * xi ** 2 + 1, xi ** 3 - 2 * xi ** 2 + xi
    h01, h11 = -2 * xi ** 3 + 3 * xi ** 2, xi ** 3 - xi ** 2
    mid = h00 * a + h10 * lc * t[k - 1] + h01 * b + h11 * lc * t[k]
    c = x[-1] - x[0]
    u = c / np.linalg.norm(c)
    d = mid - x[0]
    return float(np.linalg.norm(d - (d @ u) * u))


def so3_exp(phi) -> np.ndarray:
    """Rotation matrix exp([phi]x), shape (..., 3, 3), of rotation vectors phi (..., 3)
    [rad] (Rodrigues' formula R = I + a [phi]x + b [phi]x^2 = (1 - b t^2) I + a [phi]x +
    b phi phi^T; a = sin(t)/t and b = (1 - cos t)/t^2 are even functions of t = |phi|,
    evaluated from t^2 = phi . phi (:func:`rotation_coefficients`)). Complex-analytic:
    complex phi (an outer complex step) goes through; so do jets
    (:class:`elastodyn.fem.jets.Jet`), giving the exact derivatives."""
    if isinstance(phi, Jet):
        t2 = np.einsum("...i,...i->...", phi, phi)
        order = 1 if t2.H is None else 2
        A, B = rotation_coefficients(t2.v, order)
        return _rodrigues(phi, jets.compose(t2, *A), jets.compose(t2, *B), t2)
    phi = np.asarray(phi)
    phi = phi.astype(np.result_type(phi, float), copy=False)
    t2 = np.asarray(np.einsum("...i,...i->...", phi, phi))
    (a,), (b,) = rotation_coefficients(t2, 0)
    return _rodrigues(phi, a, b, t2)


# Taylor coefficients in s = t^2 of a(s) = sin(t)/t = sum (-1)^k s^k / (2k+1)! and
# b(s) = (1 - cos t)/t^2 = sum (-1)^k s^k / (2k+2)!: 12 terms, remainder of the second
# derivative below 1 / 25! * 12 * 11 ~ 1e-23 for |s| <= 1
_SERIES_A = np.array([(-1) ** k / math.factorial(2 * k + 1) for k in range(12)])
_SERIES_B = np.array([(-1) ** k / math.factorial(2 * k + 2) for k in range(12)])


def _series(c, s, order):
    """sum c_k s^k and its first ``order`` derivatives in s (Horner)."""
    out = []
    for d in range(order + 1):
        cd = c[d:] * np.array([math.perm(k + d, d) for k in range(len(c) - d)])
        acc = np.zeros_like(s) + cd[-1]
        for ck in cd[-2::-1]:
            acc = acc * s + ck
        out.append(acc)
    return out


def rotation_coefficients(t2, order: int = 0):
    """a(s) = sin(t)/t and b(s) = (1 - cos t)/t^2 of s = t^2 (..., real or complex) and
    their first ``order`` (0..2) derivatives in s: ((a, a', a''), (b, b', b'')) cut to
    ``order``. Taylor series for |s| < 1 (:data:`_SERIES_A`), closed forms above
    (their cancellation, ~ 3 / (t^5 / 15) eps, is below 1e-14 there):
    a' = (t cos t - sin t) / (2 t^3), a'' = (3 sin t - 3 t cos t - t^2 sin t) / (4 t^5),
    b' = (t sin t - 2 (1 - cos t)) / (2 t^4), b'' = (t^2 cos t - 5 t sin t + 8 (1 -
    cos t)) / (4 t^6) (the chain rule d/ds = d/dt / (2t); even in t, so either square
    root of a complex s gives the same values)."""
    s = np.asarray(t2)
    s = s.astype(np.result_type(s, float), copy=False)
    if s.ndim == 0:     # one rotation: on a 1-element array (scalars take no masks)
        A, B = rotation_coefficients(s[None], order)
        return tuple(a[0] for a in A), tuple(b[0] for b in B)
    A = _series(_SERIES_A, s, order)
    B = _series(_SERIES_B, s, order)
    big = np.abs(s) >= 1.0
    if np.any(big):
        sb = s[big]
        t = np.sqrt(sb + 0j) if np.iscomplexobj(sb) else np.sqrt(sb)
        sn, cs = np.sin(t), np.cos(t)
        omc = 1.0 - cs
        vals_a = [sn / t, (t * cs - sn) / (2 * t ** 3),
                  (3 * sn - 3 * t * cs - t * t * sn) / (4 * t ** 5)]
        vals_b = [omc / sb, (t * sn - 2 * omc) / (2 * sb * sb),
                  (sb * cs - 5 * t * sn + 8 * omc) / (4 * sb ** 3)]
        for k in range(order + 1):
            A[k][big] = vals_a[k]
            B[k][big] = vals_b[k]
    return tuple(A), tuple(B)


# Taylor coefficients in x of h(x) = asin(sqrt x) / sqrt x = sum c_k x^k, c_k = (2k)! /
# (4^k (k!)^2 (2k + 1)): 40 terms for |x| < 1/4, the remainder of the second derivative
# below 40^2 c_40 (1/4)^38 ~ 1e-20
_SERIES_ASIN = np.array([math.comb(2 * k, k) / 4.0 ** k / (2 * k + 1) for k in range(40)])


def _asin_ratio(x, order: int):
    """h(x) = asin(sqrt x) / sqrt x of x (..., real or complex, |x| < 1) and its first
    ``order`` (0..2) derivatives in x: Taylor series for |x| < 1/4, closed forms above
    (y = sqrt x, g(y) = asin(y) / y: h' = g'(y) / (2 y), h'' = (y g''(y) - g'(y)) / (4
    y^3), g' = 1 / (y sqrt(1 - y^2)) - asin(y) / y^2, g'' = (1 - y^2)^(-3/2) - 2 (1 -
    y^2)^(-1/2) / y^2 + 2 asin(y) / y^3; their cancellation at y = 1/2 costs a decade of
    round-off at most)."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x, float), copy=False)
    if x.ndim == 0:
        return tuple(v[0] for v in _asin_ratio(x[None], order))
    out = _series(_SERIES_ASIN, x, order)
    big = np.abs(x) >= 0.25
    if np.any(big):
        y = np.sqrt(x[big])
        a, r = np.arcsin(y), np.sqrt(1.0 - y * y)
        g1 = 1.0 / (y * r) - a / (y * y)
        g2 = r ** -3 - 2.0 / (r * y * y) + 2.0 * a / y ** 3
        vals = [a / y, g1 / (2.0 * y), (y * g2 - g1) / (4.0 * y ** 3)]
        for k in range(order + 1):
            out[k][big] = vals[k]
    return tuple(out)


def rotation_log(R):
    """The rotation vector theta n (..., 3) [rad] of rotations R (..., 3, 3) (arrays,
    complex or jets) whose angle is below pi: R = exp([theta n]x). By the half angle: w =
    vee(skew(R)) / sqrt(1 + tr R) = sin(theta / 2) n, theta n = 2 h(|w|^2) w with h(x) =
    asin(sqrt x) / sqrt x (:func:`_asin_ratio`: analytic in x, so jets carry exact
    derivatives through theta = 0); where every angle is below pi / 2 (tr R > 1), v =
    vee(skew(R)) = sin(theta) n directly, theta n = h(|v|^2) v (the same values, one
    operation fewer). vee(skew(R)) alone is the rotation vector to first order only,
    and vanishes again at theta = pi."""
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    v = vee_skew(R)
    # every angle below pi / 2 (tr R > 1, an element's local rotations): v = sin(theta)
    # n itself, theta n = h(|v|^2) v (one operation fewer on jets than the half angle)
    half = not np.all(np.real(jets.value(tr)) > 1.0)
    w = v / np.sqrt(1.0 + tr)[..., None] if half else v
    x = np.einsum("...i,...i->...", w, w)
    if isinstance(x, Jet):
        h = jets.compose(x, *_asin_ratio(x.v, 1 if x.H is None else 2))
    else:
        (h,) = _asin_ratio(x, 0)
    return (2.0 if half else 1.0) * h[..., None] * w


def axis_rotation(angle, axis) -> np.ndarray:
    """exp(angle [axis]x) (..., 3, 3) for angles (...,) [rad] (real, complex or jets)
    about unit axes (..., 3) (real or complex): I + sin(angle) [n]x + (1 - cos(angle))
    [n]x^2."""
    if not isinstance(angle, Jet):
        angle = np.asarray(angle)
    n = np.asarray(axis)
    n = n.astype(np.result_type(n, float), copy=False)
    return _rodrigues(n, np.sin(angle), 1.0 - np.cos(angle), 1.0)


def _rodrigues(v, a, b, v2):
    """(1 - b v2) I + a [v]x + b v v^T, elementwise (no small-matrix products)."""
    if any(isinstance(x, Jet) for x in (v, a, b, v2)):
        x, y, z = v[..., 0], v[..., 1], v[..., 2]
        c = 1.0 - b * v2
        ax, ay, az = a * x, a * y, a * z
        bx, by, bz = b * x, b * y, b * z
        bxy, bxz, byz = bx * y, bx * z, by * z
        R = np.stack([c + bx * x, bxy - az, bxz + ay, bxy + az, c + by * y, byz - ax,
                      bxz - ay, byz + ax, c + bz * z], axis=-1)
        return R.reshape(R.shape[:-1] + (3, 3))
    v, a, b, v2 = np.broadcast_arrays(v, np.asarray(a)[..., None], np.asarray(b)[..., None],
                                      np.asarray(v2)[..., None])
    a, b, v2 = a[..., 0], b[..., 0], v2[..., 0]
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    c = 1.0 - b * v2
    ax, ay, az = a * x, a * y, a * z
    bxy, bxz, byz = b * x * y, b * x * z, b * y * z
    # written entry by entry (4x faster than nested np.stack on arrays)
    R = np.empty(c.shape + (3, 3), dtype=np.result_type(v, a, b, v2, 1.0))
    R[..., 0, 0], R[..., 0, 1], R[..., 0, 2] = c + b * x * x, bxy - az, bxz + ay
    R[..., 1, 0], R[..., 1, 1], R[..., 1, 2] = bxy + az, c + b * y * y, byz - ax
    R[..., 2, 0], R[..., 2, 1], R[..., 2, 2] = bxz - ay, byz + ax, c + b * z * z
    return R


def vee_skew(A) -> np.ndarray:
    """Axial vector of the skew part (A - A^T)/2 of A (..., 3, 3): for a rotation
    exp([theta]x), sin|theta| times its axis (theta to first order)."""
    return 0.5 * np.stack([A[..., 2, 1] - A[..., 1, 2], A[..., 0, 2] - A[..., 2, 0],
                           A[..., 1, 0] - A[..., 0, 1]], axis=-1)


_NONZERO = np.array([3, 4, 5, 6, 9, 10, 11])   # theta_a, u_b (the elongation), theta_b


def _local_dofs(du, tha, thb):
    """(0, 0, 0, theta_a, du, 0, 0, theta_b) (..., 12) in the element's dof order."""
    z = np.zeros(du.shape, dtype=du.dtype)
    return np.stack([z, z, z, tha[..., 0], tha[..., 1], tha[..., 2],
                     du, z, z, thb[..., 0], thb[..., 1], thb[..., 2]], -1)


def _unit(v):
    return v / np.sqrt(np.einsum("...i,...i->...", v, v))[..., None]


@dataclass(frozen=True, eq=False)
class CorotationalBeam:
    """A straight two-node spatial beam element of the cubic (Hermite) family, undeformed
    length l0 [m], with its linear stiffness and consistent mass in local dofs (node dofs
    u v w rx ry rz; :mod:`elastodyn.fem.elements`) and its mass per length [kg/m]
    (complex, as the matrices, when a description entry carries a complex step).

    Build with :meth:`of` from a section and a material.
    """

    length: float
    stiffness: np.ndarray
    mass: np.ndarray
    rho_a: float
    fibre: tuple = (0.0, 0.0)
    """The outer fibres' distances (c_y, c_z) [m] in bending about the element y and z
    axes (:meth:`~elastodyn.description.materials.Section.outer_fibre`; 0: unknown)."""

    @classmethod
    def of(cls, length: float, section: Section, material: Material) -> "CorotationalBeam":
        """Element of length [m] > 0 with the given section and material."""
        length = positive("length", length)
        el = BeamElement(spatial=True, order="cubic")
        # rho A kept complex under a complex step (frequency_sensitivity)
        rho_a = material.rho * section.area
        return cls(length, stiffness_matrix(el, length, section, material),
                   mass_matrix(el, length, section, material),
                   rho_a if isinstance(rho_a, complex) else float(rho_a),
                   section.outer_fibre())

    # ------------------------------------------------------------------ kinematics
    # Positions enter as displacements ua, ub (..., 3) [m] from a reference placement
    # of the element whose chord is chord0 (3,) or (..., 3) [m] (|chord0| = length): the
    # elongation is then computed without cancellation (its round-off would otherwise be
    # eps |x| EA / l, differentiated twice by the Hessian's differences).
    def frame(self, ua, ta, ub, tb, chord0):
        """Element frame E (..., 3, 3) (columns e1 e2 e3), elongation l - l0 (...,) [m]
        and local rotations theta_a, theta_b (..., 3) in E, for end displacements ua, ub
        from the placement of chord chord0 and end triads ta, tb (..., 3, 3)."""
        c0 = np.asarray(chord0)
        c0 = c0.astype(np.result_type(c0, float), copy=False)
        dlt = ub - ua
        d = c0 + dlt
        l0 = self.length
        e = (2.0 * np.einsum("...i,...i->...", c0, dlt) + np.einsum("...i,...i->...", dlt, dlt)
             + (c0 @ c0 if c0.ndim == 1 else np.einsum("...i,...i->...", c0, c0)) - l0 * l0) \
            / (l0 * l0)
        root = np.sqrt(1.0 + e)
        e1 = d / (l0 * root)[..., None]
        q = 0.5 * (ta[..., :, 1] + tb[..., :, 1])
        e3 = _unit(np.cross(e1, q))
        e2 = np.cross(e3, e1)
        E = np.stack([e1, e2, e3], axis=-1)
        Et = np.swapaxes(E, -1, -2)
        return E, l0 * e / (root + 1.0), rotation_log(Et @ ta), rotation_log(Et @ tb)

    def local_dofs(self, ua, ta, ub, tb, chord0) -> np.ndarray:
        """Local deformation dofs d (..., 12) of the linear element (module docstring)."""
        _, du, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return _local_dofs(du, tha, thb)

    # ------------------------------------------------------------------ potentials
    def strain_energy(self, ua, ta, ub, tb, chord0) -> np.ndarray:
        """U_e = 1/2 d^T K_e d [J], shape (...,)."""
        _, du, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return self._strain(du, tha, thb)

    def _strain(self, du, tha, thb):
        # 1/2 d^T K_e d over the 7 dofs of d that are not zero (theta_a, u, theta_b)
        d7 = np.concatenate([tha, du[..., None], thb], axis=-1)
        return jets.quadratic_form(d7, self._k7)

    @property
    def _k7(self):
        return self.local_stiffness_7

    @property
    def local_stiffness_7(self) -> np.ndarray:
        """The linear element's stiffness (7, 7) on the local deformations that are not
        zero by the frame's definition, (theta_a (3), u, theta_b (3)) [N m/rad, N/m]:
        U_e = 1/2 d7^T K_7 d7. Symmetric positive semi-definite."""
        return self.stiffness[np.ix_(_NONZERO, _NONZERO)]

    def load_potential(self, ua, ta, ub, tb, chord0, b0, b1=None) -> np.ndarray:
        """-rho A int_0^l0 b(s) . u(s) ds [J], shape (...,) (the potential up to a
        constant: u the displacement of the axis points from the reference placement),
        for body forces per unit mass b(s) = b0 + s b1 (..., 3) [m/s^2, 1/s^2] (world; s
        from end a) on the axis points (module docstring; 3-point Gauss, exact for these
        cubic x linear terms)."""
        E, _, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return self._load(E, tha, thb, ua, ub, b0, b1)

    def potential(self, ua, ta, ub, tb, chord0, b0, b1=None) -> np.ndarray:
        """strain_energy + load_potential [J], shape (...,), with the element frame
        computed once."""
        E, du, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return self._strain(du, tha, thb) + self._load(E, tha, thb, ua, ub, b0, b1)

    def _load(self, E, tha, thb, ua, ub, b0, b1):
        xi, wg = gauss_legendre_01(3)
        l0 = self.length
        x = self._points(E, tha, thb, ua, ub, xi)
        b0 = np.asarray(b0)
        b = b0[..., None, :] + (0.0 if b1 is None else
                                (l0 * xi)[:, None] * np.asarray(b1)[..., None, :])
        return -self.rho_a * l0 * np.einsum("g,...gi,...gi->...", wg, b, x)

    def _points(self, E, tha, thb, ua, ub, xi):
        """Displacements (..., g, 3) of the axis points at xi (g,) from the placement:
        (1 - xi) u_a + xi u_b + E (0, v, w), v, w the Hermite deflections of the local
        rotations (module docstring)."""
        l0 = self.length
        h2 = l0 * (xi - 2 * xi**2 + xi**3)
        h4 = l0 * (-xi**2 + xi**3)
        v = h2 * tha[..., 2, None] + h4 * thb[..., 2, None]          # (..., g)
        w = -(h2 * tha[..., 1, None] + h4 * thb[..., 1, None])
        return ((1 - xi)[:, None] * ua[..., None, :] + xi[:, None] * ub[..., None, :]
                + v[..., None] * E[..., None, :, 1] + w[..., None] * E[..., None, :, 2])

    def axis_points(self, ua, ta, ub, tb, chord0, count: int = 4):
        """The element as point masses for its kinetic energy: the displacements
        (..., count, 3) [m] of the axis points at the Gauss-Legendre abscissae of
        [0, 1] from the placement, and their masses (count,) [kg] (rho A l0 times the
        weights). ``count`` = 4 integrates the kinetic energy of the cubic axis
        exactly (degree 6), so that sum m_g |x_g_dot|^2 / 2 is the consistent
        translational kinetic energy of the element (the linear element's consistent
        mass in the placement; :mod:`elastodyn.fem.planar_corotational` does the same
        in the plane). Returns (E, points, masses), E the element frame."""
        xi, wg = gauss_legendre_01(int(count))
        E, _, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return E, self._points(E, tha, thb, ua, ub, xi), self.rho_a * self.length * wg

    def energy_and_points(self, ua, ta, ub, tb, chord0, count: int = 4):
        """(strain energy (...,) [J], axis points (..., count, 3) [m], their masses
        (count,) [kg]) from one evaluation of the element frame
        (:meth:`strain_energy`, :meth:`axis_points`)."""
        xi, wg = gauss_legendre_01(int(count))
        E, du, tha, thb = self.frame(ua, ta, ub, tb, chord0)
        return (self._strain(du, tha, thb), self._points(E, tha, thb, ua, ub, xi),
                self.rho_a * self.length * wg)

    def world_mass(self, ua, ta, ub, tb, chord0) -> np.ndarray:
        """Consistent mass (..., 12, 12) [kg, kg m^2] on world increments (dx_a, spin_a,
        dx_b, spin_b): T^T M_e T with T = diag(E^T x 4), E the current element frame."""
        E = self.frame(ua, ta, ub, tb, chord0)[0]
        T = np.zeros(E.shape[:-2] + (12, 12), dtype=np.result_type(E, self.mass))
        Et = np.swapaxes(E, -1, -2)
        for k in range(4):
            T[..., 3 * k:3 * k + 3, 3 * k:3 * k + 3] = Et
        return np.swapaxes(T, -1, -2) @ self.mass @ T


def potential_gradient(f, z0) -> np.ndarray:
    """Gradient (..., nv) of a scalar potential f at z0 (..., nv), exact (first-order
    jets; f as in :func:`potential_derivatives`)."""
    z = jets.variables(z0, order=1)
    return jets.gradient(f(z), z.nv)


def potential_derivatives(f, z0):
    """Value, gradient and Hessian of a scalar potential at z0, exact to round-off.

    Parameters
    ----------
    f : callable
        f(z) with z of shape (..., nv) returning shape (...,), written with numpy
        operations that :class:`elastodyn.fem.jets.Jet` implements (it is called once,
        with z a jet); complex-analytic (no abs, conj or real/imag parts of z) so that
        complex data pass; broadcasting over leading axes.
    z0 : array_like, shape (..., nv)
        Point(s) of evaluation (real or complex).

    Returns
    -------
    (V (...,), g (..., nv), H (..., nv, nv)): by second-order jets (module docstring),
    H symmetric by construction.
    """
    z = jets.variables(z0, order=2)
    out = f(z)
    return jets.value(out), jets.gradient(out, z.nv), jets.hessian(out, z.nv)


def spin_jacobian(config, z0):
    """Jacobians of positions and world spins with respect to parameters z.

    ``config(z)`` returns (x (..., k, 3), R (..., k, 3, 3)) of k points with triads for
    parameters z (..., nv) (numpy operations on jets, as :func:`potential_derivatives`).
    Returns J (..., k, 6, nv): rows (dx, spin) with spin_j = vee([dR/dz_j] R^T), exact
    (first-order jets)."""
    z = jets.variables(z0, order=1)
    nv = z.nv
    x, R = config(z)
    dx = jets.gradient(x, nv)                                              # (..., k, 3, nv)
    dR = jets.gradient(R, nv)                                              # (..., k, 3, 3, nv)
    W = np.einsum("...imY,...jm->...ijY", dR, jets.value(R))               # dR R^T
    w = 0.5 * np.stack([W[..., 2, 1, :] - W[..., 1, 2, :], W[..., 0, 2, :] - W[..., 2, 0, :],
                        W[..., 1, 0, :] - W[..., 0, 1, :]], axis=-2)      # (..., k, 3, nv)
    return np.concatenate([dx, w], axis=-2)                                # (..., k, 6, nv)


# --------------------------------------------------------------------------------------
# A frame of corotational elements with clamped nodes and point masses
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FrameState:
    """A configuration of a :class:`BeamFrame`: node displacements from the undeformed
    placement (n, 3) [m] and node triads (n, 3, 3) (columns: axes), with the load factor
    it carries and, from :meth:`BeamFrame.solve_static`, the load factors of the
    converged steps and their Newton iterations."""

    displacement: np.ndarray
    triads: np.ndarray
    load_factor: float = 0.0
    steps: tuple = ()
    iterations: tuple = ()


class BeamFrame:
    """A structure of corotational beam elements between nodes; geometrically exact
    statics under gravity and the linearized (tangent) vibration about an equilibrium.

    Parameters
    ----------
    nodes : array_like (n, 3)
        Undeformed node positions [m].
    triads : array_like (n, 3, 3)
        Undeformed node triads (columns: axes); each element's end triad is its node's
        (the element axis is the triads' x axis: straight elements along the triads).
    elements : sequence of (a, b, CorotationalBeam)
        Node indices and element; its length must equal |nodes[b] - nodes[a]|.
    clamped : sequence of int
        Nodes held in position and rotation.
    masses : sequence of (node, mass [kg], inertia (3, 3) [kg m^2] about the node, world
        axes of the undeformed configuration; it turns with the node)

    Unknowns q (6 per free node): displacement u and rotation vector r, x = x0 + u,
    T = exp([r]x) T0. Gravity enters as a dead load on the element axes and the masses.
    """

    def __init__(self, nodes, triads, elements, clamped=(), masses=()):
        self.x0 = np.asarray(nodes, dtype=float)
        self.T0 = np.asarray(triads, dtype=float)
        n = len(self.x0)
        self.elements = [(int(a), int(b), e) for a, b, e in elements]
        for a, b, e in self.elements:
            if not np.isclose(np.linalg.norm(self.x0[b] - self.x0[a]), e.length, rtol=1e-9):
                raise InputError(f"elements ({a}, {b}) length", e.length,
                                 "the distance between its nodes [m]")
        if any(not 0 <= int(k) < n for k in clamped):
            raise InputError("clamped", list(clamped), f"node indices in 0..{n - 1}")
        self.free = np.array([k for k in range(n) if k not in set(clamped)], dtype=int)
        self.index = -np.ones(n, dtype=int)
        self.index[self.free] = np.arange(len(self.free))
        self.dof = 6 * len(self.free)
        self.masses = [(int(k), float(m), np.asarray(J, dtype=float)) for k, m, J in masses]

    def _cols(self, k):
        i = self.index[k]
        return np.arange(6 * i, 6 * i + 6) if i >= 0 else None

    def _assemble(self, q, gravity, with_mass=False, state=None, loads=None):
        """Potential, gradient, Hessian (and mass) of the whole frame at q: increments
        (u, r) per free node about ``state`` (the undeformed placement when None; a
        :class:`FrameState` otherwise: x = x0 + D + u, T = exp([r]x) T_current), and the
        dead ``loads`` (forces (n, 3) [N] and moments (n, 3) [N m], already scaled by the
        load factor) on the free nodes."""
        q = np.asarray(q, dtype=float)
        D, Tc = ((np.zeros_like(self.x0), self.T0) if state is None
                 else (state.displacement, state.triads))
        N = self.dof
        g = np.zeros(N)
        K = np.zeros((N, N))
        M = np.zeros((N, N)) if with_mass else None
        V = 0.0
        grav = np.asarray(gravity, dtype=float)

        def node_at(k, z):
            return D[k] + z[..., 0:3], so3_exp(z[..., 3:6]) @ Tc[k]

        def pair(a, b, z):
            xa, ta = node_at(a, z[..., 0:6])
            xb, tb = node_at(b, z[..., 6:12])
            return np.stack([xa, xb], axis=-2), np.stack([ta, tb], axis=-3)

        for a, b, e in self.elements:
            za = self._local(q, a)
            zb = self._local(q, b)

            c0 = self.x0[b] - self.x0[a]

            def f(z, a=a, b=b, e=e, c0=c0):
                ua, ta = node_at(a, z[..., 0:6])
                ub, tb = node_at(b, z[..., 6:12])
                return e.potential(ua, ta, ub, tb, c0, grav)

            v, ge, He = potential_derivatives(f, np.concatenate([za, zb]))
            V += float(v)
            cols = [self._cols(a), self._cols(b)]
            sel = np.concatenate([np.arange(6 * j, 6 * j + 6) for j, c in enumerate(cols)
                                  if c is not None])
            gc = np.concatenate([c for c in cols if c is not None])
            g[gc] += ge[sel]
            K[np.ix_(gc, gc)] += He[np.ix_(sel, sel)]
            if with_mass:
                J = spin_jacobian(lambda z, a=a, b=b: pair(a, b, z),
                                  np.concatenate([za, zb]))             # (2, 6, 12)
                J = J.reshape(12, 12)
                xa, ta = node_at(a, za)
                xb, tb = node_at(b, zb)
                Mw = J.T @ e.world_mass(xa, ta, xb, tb, c0) @ J
                M[np.ix_(gc, gc)] += Mw[np.ix_(sel, sel)]
        for k, m, Jk in self.masses:
            c = self._cols(k)
            if c is None:
                continue
            V -= m * grav @ (self.x0[k] + D[k] + q[c[0:3]])
            g[c[0:3]] -= m * grav
            if with_mass:
                Jr = spin_jacobian(lambda z, k=k: pair(k, k, np.concatenate([z, z], -1)),
                                   q[c])[0]                             # (6, 6)
                # the inertia turns with the node (from its undeformed triad)
                R = so3_exp(q[c][3:6]) @ Tc[k] @ self.T0[k].T
                M[np.ix_(c, c)] += Jr.T @ np.block([[m * np.eye(3), np.zeros((3, 3))],
                                                    [np.zeros((3, 3)), R @ Jk @ R.T]]) @ Jr
        if loads is not None:
            # dead nodal forces: potential -f . (x0 + D + u); moments about fixed world
            # axes: -m . r on the rotation increment (exact work for a node turning about
            # the moment's axis, a planar structure's case; in space a moment that keeps
            # its axis is not conservative and this is its first-order work per step)
            forces, moments = loads
            for k in self.free:
                c = self._cols(k)
                V -= forces[k] @ (self.x0[k] + D[k] + q[c[0:3]]) + moments[k] @ q[c[3:6]]
                g[c[0:3]] -= forces[k]
                g[c[3:6]] -= moments[k]
        return V, g, K, M

    def _local(self, q, k):
        c = self._cols(k)
        return np.zeros(6) if c is None else q[c]

    def equilibrium(self, gravity, *, q0=None, tol: float = 1e-12, max_iter: int = 50):
        """Static equilibrium q (dof,) under gravity (3,) [m/s^2] by Newton's method on
        the exact gradient with the Hessian (converged when the step is below ``tol``
        times the largest node distance, in m and rad). Rotations of the nodes below pi
        (the unknowns are total rotation vectors); :meth:`solve_static` for any."""
        q = np.zeros(self.dof) if q0 is None else np.array(q0, dtype=float)
        scale = max(1.0, float(np.ptp(self.x0, axis=0).max()))
        for _ in range(max_iter):
            _, g, K, _ = self._assemble(q, gravity)
            dq = np.linalg.solve(K, -g)
            q += dq
            if np.max(np.abs(dq)) < tol * scale:
                return q
        raise ModelError(f"BeamFrame.equilibrium: no convergence in {max_iter} iterations "
                         "(buckling, or loads the structure cannot carry)")

    def _loads(self, forces, moments):
        n = len(self.x0)
        F, Mo = np.zeros((n, 3)), np.zeros((n, 3))
        for name, items, out in (("forces", forces, F), ("moments", moments, Mo)):
            for k, v in dict(items).items():
                k = int(k)
                if not 0 <= k < n or self.index[k] < 0:
                    raise InputError(f"{name} node", k, f"a free node in 0..{n - 1}")
                v = np.asarray(v, dtype=float)
                if v.shape != (3,) or not np.all(np.isfinite(v)):
                    raise InputError(f"{name}[{k}]", v.tolist(), "3 finite components")
                out[k] += v
        return F, Mo

    def solve_static(self, gravity=(0.0, 0.0, 0.0), *, forces=None, moments=None,
                     plane=None, tol: float = 1e-11, max_iter: int = 25,
                     min_step: float = 1e-4, state=None) -> "FrameState":
        """Geometrically exact static equilibrium under gravity and dead nodal loads, for
        any rotation of the nodes: Newton's method on the exact gradient and Hessian in
        the increments (u, r) about the current configuration (the triads updated by
        exp([r]x) after every iteration: no singularity of the rotation parametrization
        at 2 pi), with the loads applied in steps of the load factor lambda in (0, 1].

        Parameters
        ----------
        gravity : (3,) [m/s^2]
            On the elements' and the point masses' mass, times lambda.
        forces, moments : dict node -> (3,), optional
            Dead nodal forces [N] and moments about fixed world axes [N m] on free
            nodes, times lambda.
        tol : float
            Converged when the largest increment is below tol times the structure's size
            (m and rad) and the out-of-balance force below tol times the loads' scale.
        max_iter : int
            Newton iterations per load step before the step is halved.
        min_step : float
            Smallest load-factor step (> 0): below it the loads cannot be followed (a
            limit point: buckling, snap-through, or more load than the structure
            carries) and a ModelError names the load factor reached.
        plane : (3,), optional
            The normal of a plane of motion: the nodes move in the plane through their
            placement and turn about the normal only (a planar structure under in-plane
            loads, whose out-of-plane dofs are held; otherwise a moment about a fixed
            axis, which is not conservative in space, may buckle it sideways).
        state : FrameState, optional
            Start (default the undeformed placement).

        Returns
        -------
        FrameState
            Displacements (n, 3) [m], triads (n, 3, 3), the load factors of the
            converged steps and the Newton iterations of each.

        Steps: the first is the whole load; a step that fails, or ends on an unstable
        equilibrium (a tangent stiffness that is not positive definite: another branch,
        or past a bifurcation), is halved; one that converges in at most 5 iterations
        lets the next grow by 2 (to the rest of the load). Where steps down to
        ``min_step`` end unstable, the structure buckles there: a ModelError says so.
        """
        F, Mo = self._loads(forces or {}, moments or {})
        grav = np.asarray(gravity, dtype=float)
        P = self._plane_basis(plane)
        size = max(1.0, float(np.ptp(self.x0, axis=0).max()))
        # scale of the out-of-balance force: the loads (gravity on the total mass, the
        # nodal forces, the moments over the size)
        mass = sum(e.rho_a * e.length for _, _, e in self.elements).real + sum(
            m for _, m, _ in self.masses)
        fscale = max(mass * float(np.linalg.norm(grav)), float(np.abs(F).sum()),
                     float(np.abs(Mo).sum()) / size, 1e-30)
        st = state or FrameState(np.zeros_like(self.x0), self.T0.copy())
        lam, dlam = st.load_factor, 1.0 - st.load_factor
        steps, iters = list(st.steps), list(st.iterations)
        unstable = None
        while lam < 1.0 - 1e-15:
            dlam = min(dlam, 1.0 - lam)
            trial = self._newton(st, grav, F, Mo, lam + dlam, tol, max_iter, size, fscale,
                                 P)
            if trial is not None:
                # a step must end on a stable equilibrium: one on another branch (a
                # large step can reach one) or past a bifurcation is not followed
                w = self._lowest_tangent(trial[0], grav, F, Mo, lam + dlam, P)
                if w is not None:
                    unstable, trial = (lam + dlam, w), None
            if trial is None:
                dlam *= 0.5
                if dlam < min_step:
                    if unstable is not None and unstable[0] - lam < 4 * min_step:
                        raise ModelError(
                            f"static equilibrium: the structure buckles at load factor "
                            f"{lam:.6g} (beyond it the equilibrium is unstable: its tangent "
                            f"stiffness has a negative eigenvalue, {unstable[1]:.3g})")
                    raise ModelError(
                        f"static equilibrium: the loads cannot be followed beyond load "
                        f"factor {lam:.6g} (Newton fails at every step down to "
                        f"{min_step:g}): a limit point (buckling, snap-through) or more "
                        "load than the structure carries")
                continue
            st, it = trial
            lam += dlam
            steps.append(lam)
            iters.append(it)
            if it <= 5:
                dlam *= 2.0
        return FrameState(st.displacement, st.triads, 1.0, tuple(steps), tuple(iters))

    def _lowest_tangent(self, st, grav, F, Mo, lam, P):
        """None if the tangent stiffness at ``st`` (loads times ``lam``) is positive
        definite on the allowed increments, else its lowest eigenvalue."""
        _, _, K, _ = self._assemble(np.zeros(self.dof), lam * grav, state=st,
                                    loads=(lam * F, lam * Mo))
        K = P.T @ K @ P
        K = 0.5 * (K + K.T)
        try:
            np.linalg.cholesky(K)
            return None
        except np.linalg.LinAlgError:
            return float(np.linalg.eigvalsh(K)[0])

    def _plane_basis(self, plane):
        """(dof, m) orthonormal basis of the allowed increments: all (identity) or, for
        a plane of normal n, per free node the two in-plane translations and the
        rotation about n."""
        if plane is None:
            return np.eye(self.dof)
        n = np.asarray(plane, dtype=float)
        if n.shape != (3,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
            raise InputError("plane", plane, "a normal vector (3 finite components, not 0)")
        n = n / np.linalg.norm(n)
        a = np.eye(3)[int(np.argmin(np.abs(n)))]
        e1 = np.cross(n, a)
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        node = np.zeros((6, 3))
        node[0:3, 0], node[0:3, 1], node[3:6, 2] = e1, e2, n
        return np.kron(np.eye(len(self.free)), node)

    def _newton(self, st, grav, F, Mo, lam, tol, max_iter, size, fscale, P):
        """One load step: (FrameState at lam, iterations) or None if Newton fails."""
        D, T = st.displacement.copy(), st.triads.copy()
        for it in range(1, max_iter + 1):
            cur = FrameState(D, T)
            _, g, K, _ = self._assemble(np.zeros(self.dof), lam * grav, state=cur,
                                        loads=(lam * F, lam * Mo))
            try:
                dz = P @ np.linalg.solve(P.T @ K @ P, -(P.T @ g))
            except np.linalg.LinAlgError:
                return None
            g = P.T @ g
            if not np.all(np.isfinite(dz)):
                return None
            for k in self.free:
                c = self._cols(k)
                D[k] = D[k] + dz[c[0:3]]
                T[k] = so3_exp(dz[c[3:6]]) @ T[k]
            if np.max(np.abs(dz)) > 0.5 * size + np.pi:
                return None          # a step larger than the structure: diverging
            if (np.max(np.abs(dz)) < tol * size
                    and np.max(np.abs(g)) < max(tol * 1e3, 1e-8) * fscale):
                return FrameState(D, T, lam), it
        return None

    def linearized(self, q, gravity):
        """(M, K) (dof, dof) at q: the mass and the Hessian of the total potential."""
        _, _, K, M = self._assemble(q, gravity, with_mass=True)
        return M, K
