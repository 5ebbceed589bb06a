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

    u = l - l0 (l = |x_b - x_a|),   theta_a = vee(skew(E^T T_a)),  theta_b likewise,

(T_a, T_b the end triads, vee(skew(A)) = the axial vector of (A - A^T)/2, i.e. sin(theta)
times the axis: the local rotation to first order), and its strain energy is that of the
linear element of the same family in those local dofs,

    U_e = 1/2 d^T K_e d,   d = (0, 0, 0, theta_a, u, 0, 0, theta_b)  (node dofs u v w rx ry rz),

exactly the linear cubic (Hermite) element's energy (:func:`elastodyn.fem.elements.
stiffness_matrix`, which vanishes on rigid motions) when the element does not rotate. The
rigid rotation of the element is thus exact; the local constitutive choice (sin theta for
theta) differs from any other at order theta_local^2 per element, which vanishes with the
mesh (theta_local ~ curvature x element length): the model converges to the exact rod
(the elastica in the plane), tested against an independent elastica solution.

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
           "CorotationalBeam", "BeamFrame", "potential_derivatives", "potential_gradient",
           "spin_jacobian"]


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

    @classmethod
    def of(cls, length: float, section: Section, material: Material) -> "CorotationalBeam":
        """Element of length [m] > 0 with the given section and material."""
        length = positive("length", length)
        el = BeamElement(spatial=True, order="cubic")
        # rho A kept complex under a complex step (frequency_sensitivity)
        rho_a = material.rho * section.area
        return cls(length, stiffness_matrix(el, length, section, material),
                   mass_matrix(el, length, section, material),
                   rho_a if isinstance(rho_a, complex) else float(rho_a))

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
        return E, l0 * e / (root + 1.0), vee_skew(Et @ ta), vee_skew(Et @ tb)

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
        h2 = l0 * (xi - 2 * xi**2 + xi**3)
        h4 = l0 * (-xi**2 + xi**3)
        v = h2 * tha[..., 2, None] + h4 * thb[..., 2, None]          # (..., g)
        w = -(h2 * tha[..., 1, None] + h4 * thb[..., 1, None])
        # displacements of the axis points (..., g, 3)
        x = ((1 - xi)[:, None] * ua[..., None, :] + xi[:, None] * ub[..., None, :]
             + v[..., None] * E[..., None, :, 1] + w[..., None] * E[..., None, :, 2])
        b0 = np.asarray(b0)
        b = b0[..., None, :] + (0.0 if b1 is None else
                                (l0 * xi)[:, None] * np.asarray(b1)[..., None, :])
        return -self.rho_a * l0 * np.einsum("g,...gi,...gi->...", wg, b, x)

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

    def _assemble(self, q, gravity, with_mass=False):
        """Potential, gradient, Hessian (and mass) of the whole frame at q."""
        q = np.asarray(q, dtype=float)
        N = self.dof
        g = np.zeros(N)
        K = np.zeros((N, N))
        M = np.zeros((N, N)) if with_mass else None
        V = 0.0
        grav = np.asarray(gravity, dtype=float)
        for a, b, e in self.elements:
            za = self._local(q, a)
            zb = self._local(q, b)

            c0 = self.x0[b] - self.x0[a]

            def f(z, a=a, b=b, e=e, c0=c0):
                ua, ta = self._node_at(a, z[..., 0:6])
                ub, tb = self._node_at(b, z[..., 6:12])
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
                J = spin_jacobian(lambda z, a=a, b=b: self._pair(a, b, z),
                                  np.concatenate([za, zb]))             # (2, 6, 12)
                J = J.reshape(12, 12)
                xa, ta = self._node_at(a, za)
                xb, tb = self._node_at(b, zb)
                Mw = J.T @ e.world_mass(xa, ta, xb, tb, c0) @ J
                M[np.ix_(gc, gc)] += Mw[np.ix_(sel, sel)]
        for k, m, Jk in self.masses:
            c = self._cols(k)
            if c is None:
                continue
            V -= m * grav @ (self.x0[k] + q[c[0:3]])
            g[c[0:3]] -= m * grav
            if with_mass:
                Jr = spin_jacobian(lambda z, k=k: self._pair(k, k, np.concatenate([z, z], -1)),
                                   q[c])[0]                             # (6, 6)
                R = so3_exp(q[c][3:6])  # the inertia turns with the node
                M[np.ix_(c, c)] += Jr.T @ np.block([[m * np.eye(3), np.zeros((3, 3))],
                                                    [np.zeros((3, 3)), R @ Jk @ R.T]]) @ Jr
        return V, g, K, M

    def _local(self, q, k):
        c = self._cols(k)
        return np.zeros(6) if c is None else q[c]

    def _node_at(self, k, z):
        """Displacement and triad of node k for its unknowns z (..., 6)."""
        return z[..., 0:3], so3_exp(z[..., 3:6]) @ self.T0[k]

    def _pair(self, a, b, z):
        xa, ta = self._node_at(a, z[..., 0:6])
        xb, tb = self._node_at(b, z[..., 6:12])
        return np.stack([xa, xb], axis=-2), np.stack([ta, tb], axis=-3)

    def equilibrium(self, gravity, *, q0=None, tol: float = 1e-12, max_iter: int = 50):
        """Static equilibrium q (dof,) under gravity (3,) [m/s^2] by Newton's method on
        the exact gradient with the Hessian (converged when the step is below ``tol``
        times the largest node distance, in m and rad)."""
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

    def linearized(self, q, gravity):
        """(M, K) (dof, dof) at q: the mass and the Hessian of the total potential."""
        _, _, K, M = self._assemble(q, gravity, with_mass=True)
        return M, K
