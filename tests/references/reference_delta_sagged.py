"""Independent reference: the flexible Delta robot linearized about its sagged equilibrium.

Test oracle for the natural frequencies of the Delta robot of Kuo 2016 (Table 1) with
flexible links, locked actuators, under gravity, linearized about its *geometrically
exact* static equilibrium (the "deflected-reference" model).  Written from scratch: from
``elastodyn`` it only uses the linear element matrices (``elastodyn.fem.elements``:
``stiffness_matrix``, ``mass_matrix``, ``BeamElement``) and the material / section data
(``elastodyn.description.materials``); from ``tests/references/reference_delta_frame.py`` (the
independent LINEAR frame reference of the same robot) only the geometry and constants
(``leg_geometry``: inverse kinematics, points A_i, B_i, D_i and link frames;
``M_PLATFORM``, ``platform_inertia``, ``SECTION``, ``MATERIAL``).  All nonlinear parts (corotational element, nonlinear joints,
Newton, tangent) are new code here.  SI units; world Z points DOWN (gravity +z).

Unknowns
--------
Every link node carries a world position x and a rotation matrix Q (its triad, columns =
the node's material axes in world components; initially the link frame R_u or R_l of
reference_delta_frame, so Q[:, 1] = y_i on the upper link and Q[:, 2] = z_l on the lower
link).  The platform is a rigid body: position P of its centre (= centre of mass) and
rotation R_P (initially I).  Increments are (dx, dtheta) per node / body with the
multiplicative update Q <- expm(skew(dtheta)) Q (dtheta a WORLD rotation vector), so the
linearized dofs are the same as reference_delta_frame's (3 translations, 3 small world
rotations per node).  The base nodes A_i are clamped by elimination (they are not
unknowns): equivalent to the six constraint rows of the frame reference.

Corotational element (Crisfield / Battini-Pacoste style, own derivation)
-----------------------------------------------------------------------
Two nodes (x1, Q1), (x2, Q2), reference length l0, both triads equal to the element frame
E0 in the stress-free state.  Current element frame E = [e1 e2 e3]:
``e1 = (x2 - x1) / l``, ``e3 = unit(e1 x p)``, ``e2 = e3 x e1`` with
``p = (Q1[:, 1] + Q2[:, 1]) / 2`` (mean of the nodal y axes).  Local deformations:
elongation ``u = l - l0`` (computed as ``(l^2 - l0^2) / (l + l0)``) and local end
rotations ``theta_a = log(E^T Q_a)`` (rotation vector, evaluated as
``asin(s)/s * w`` with ``w = vee(skew part of E^T Q_a)``, ``s = |w|``, a power series in
s^2, smooth at the identity).  Strain energy ``U = 1/2 d^T K_e d`` with
``d = (0, 0, 0, theta_1, u, 0, 0, theta_2)`` in the local dof order (u v w rx ry rz per
node) and K_e the linear cubic Euler-Bernoulli element (``stiffness_matrix``).

Gravity (choice): dead load on the link material, the exact potential of the element's
own (corotational) interpolation of the centre line r(s) = x1 + s/l0 (x2 - x1)
+ v(s) e2 + w(s) e3 (Hermite v, w from the local end rotations, v' = theta_z,
w' = -theta_y): ``V = -rho A g . int r ds = -rho A [ l0 g.(x1+x2)/2
+ l0^2/12 ((g.e2)(theta_1z - theta_2z) + (g.e3)(theta_2y - theta_1y)) ]``.  Linearized
at the straight state it is the consistent load of ``gravity_load``; its rotation
dependence gives a (small) load stiffness, included.  Platform weight at P (its centre of
mass).

Derivatives: every energy and constraint is evaluated on second-order forward-mode jets
(value, gradient, Hessian w.r.t. the 12 increments of the element / joint, exact to
round-off, no finite differences).  expm(S) = I + S + S^2/2 is exact to that order at
zero increment, so the jets give the exact gradient and Hessian in exponential
coordinates about the current state.

Joints: nonlinear constraints c(q) = 0 with Lagrange multipliers
------------------------------------------------------------------
* B_i: x_ub - x_lb = 0 (3 rows); ``Q_ub[:, 1] . Q_lb[:, 2] = 0`` (the cross axes y_i,
  carried by the upper tip node, and z_l, carried by the lower link's first node, stay
  perpendicular).
* D_i: x_d - P - R_P (D_i - X) = 0 (3 rows); ``Q_d[:, 2] . (R_P y_i) = 0``.

Statics: Newton on the Lagrangian ``L = U + V + lambda . c`` (KKT system; full tangent
``K_t = Hess(U + V) + sum_k lambda_k Hess(c_k)``).  Vibration: ``K_r = Z^T K_t Z``,
``M_r = Z^T M Z`` with Z an orthonormal basis of null(J) (J = dc/dq at equilibrium).
This is the exact second variation of the potential restricted to the constraint
manifold (the multiplier term is what the curvature of the constraints contributes).
Mass (choice): the linear consistent element mass matrix (``mass_matrix``) rotated to
the current element frame E, ``T^T M_e T`` with T = blockdiag(E^T x4); plus the platform
mass and its inertia ``R_P I R_P^T`` about P.

Accuracy (see tests/references/test_reference_delta_sagged.py)
----------------------------------------------------
* gravity -> 0: the frequencies equal reference_delta_frame.frame_delta(preload=False)
  to round-off (<= 2e-9 relative up to n = 4).
* Element: the cantilever of reference_sagged_cantilever (elastica) is reproduced with
  errors ~ n^-2 (n = 16: sag 1e-6, frequency shifts 1e-6 absolute, tilted / hanging /
  welded rigid tip body 1.4e-5 relative).
* Mesh: the standard corotational element with a linear local element converges as
  n^-2 (chord-based elongation, no intra-element geometric stiffness): on the Delta the
  frequencies move by 7e-3 (n = 1), 1.5e-3 (2), 3.8e-4 (4), 8e-5 (8) relative to n = 16;
  Richardson (8, 16) and (16, 32) agree to 6 digits.  The mass choice (chord frame vs
  nodal triads) changes the frequencies by <= 7e-5 at n = 4, 4e-6 at n = 16.

API
---
``sagged_delta(X, n_elements=2, count=8, gravity=9.81, section=None) -> dict``
``extrapolated_delta(X, meshes=(8, 16)) -> dict`` (Richardson, error ~ n^-2)
``sagged_cantilever(L, section, material, m_tip, gravity, n_elements, count) -> dict``
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from elastodyn.description.materials import Material, Section
from elastodyn.fem.elements import BeamElement, mass_matrix, stiffness_matrix

__all__ = ["Jet", "Structure", "build_delta", "sagged_delta", "extrapolated_delta",
           "build_cantilever", "sagged_cantilever"]


import reference_delta_frame as _frame  # noqa: E402
leg_geometry = _frame.leg_geometry
L1, L2, M_PLATFORM = _frame.L1, _frame.L2, _frame.M_PLATFORM
SECTION, MATERIAL = _frame.SECTION, _frame.MATERIAL
platform_inertia = _frame.platform_inertia

try:  # small dense problems: BLAS threads only add contention
    from threadpoolctl import threadpool_limits as _threadpool_limits

    def _one_thread():
        return _threadpool_limits(limits=1)
except ImportError:  # pragma: no cover
    import contextlib

    def _one_thread():
        return contextlib.nullcontext()

_ELEMENT = BeamElement(spatial=True, order="cubic")
_IDX7 = np.array([3, 4, 5, 6, 9, 10, 11])   # local dofs rx1 ry1 rz1 u2 rx2 ry2 rz2


# ---------------------------------------------------------------------------------------
# Second-order forward-mode jets
# ---------------------------------------------------------------------------------------
def _tail(a, k: int):
    a = np.asarray(a, dtype=float)
    return a[(...,) + (None,) * k]


class Jet:
    """Value v (shape S), gradient g (S + (N,)) and Hessian H (S + (N, N)) of a quantity
    depending on N variables.  The first axis is a batch axis; indexing and axis arguments
    refer to the value's axes only (non-negative axes)."""

    __slots__ = ("v", "g", "H")
    __array_ufunc__ = None          # ndarray (op) Jet defers to Jet's reflected operators

    def __init__(self, v, g, H):
        self.v, self.g, self.H = v, g, H

    # -- structure --------------------------------------------------------------------
    def __getitem__(self, key):
        return Jet(self.v[key], self.g[key], self.H[key])

    def sum(self, axis: int):
        return Jet(self.v.sum(axis), self.g.sum(axis), self.H.sum(axis))

    def T(self):
        """Swap the value axes 1 and 2 (matrix transpose for a batch of matrices)."""
        return Jet(self.v.swapaxes(1, 2), self.g.swapaxes(1, 2), self.H.swapaxes(1, 2))

    @staticmethod
    def stack(jets, axis: int):
        return Jet(np.stack([j.v for j in jets], axis), np.stack([j.g for j in jets], axis),
                   np.stack([j.H for j in jets], axis))

    # -- arithmetic -------------------------------------------------------------------
    def __add__(self, o):
        if isinstance(o, Jet):
            return Jet(self.v + o.v, self.g + o.g, self.H + o.H)
        v = self.v + o
        n = self.g.shape[-1]
        return Jet(v, np.broadcast_to(self.g, v.shape + (n,)),
                   np.broadcast_to(self.H, v.shape + (n, n)))

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, -self.g, -self.H)

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Jet):
            gg = self.g[..., :, None] * o.g[..., None, :]
            return Jet(self.v * o.v,
                       self.g * _tail(o.v, 1) + _tail(self.v, 1) * o.g,
                       self.H * _tail(o.v, 2) + _tail(self.v, 2) * o.H
                       + gg + np.swapaxes(gg, -1, -2))
        return Jet(self.v * o, self.g * _tail(o, 1), self.H * _tail(o, 2))

    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Jet):
            return self * o.reciprocal()
        return self * (1.0 / np.asarray(o, dtype=float))

    def compose(self, f0, f1, f2):
        """f(self) given f, f', f'' evaluated at self.v (elementwise)."""
        gg = self.g[..., :, None] * self.g[..., None, :]
        return Jet(f0, _tail(f1, 1) * self.g, _tail(f1, 2) * self.H + _tail(f2, 2) * gg)

    def reciprocal(self):
        v = self.v
        return self.compose(1.0 / v, -1.0 / v**2, 2.0 / v**3)

    def sqrt(self):
        r = np.sqrt(self.v)
        return self.compose(r, 0.5 / r, -0.25 / (r * self.v))

    def rsqrt(self):
        r = np.sqrt(self.v)
        return self.compose(1.0 / r, -0.5 / (r * self.v), 0.75 / (r * self.v**2))


def _const(a, n: int) -> Jet:
    a = np.asarray(a, dtype=float)
    return Jet(a, np.zeros(a.shape + (n,)), np.zeros(a.shape + (n, n)))


def _dot(a, b) -> Jet:
    p = a * b
    return p.sum(p.v.ndim - 1)


def _cross(a: Jet, b) -> Jet:
    if not isinstance(b, Jet):
        b = _const(np.broadcast_to(b, a.v.shape), a.g.shape[-1])
    c = [a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
         a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
         a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]]
    return Jet.stack(c, 1)


def _matmul(A: Jet, C: Jet) -> Jet:
    """Batch of 3x3 products A @ C."""
    return (A[:, :, :, None] * C[:, None, :, :]).sum(2)


def _matvec(A, x) -> Jet:
    """Batch A @ x; either argument may be a plain array."""
    if isinstance(A, Jet):
        return (A * np.asarray(x)[:, None, :] if not isinstance(x, Jet)
                else A * x[:, None, :]).sum(2)
    return (x[:, None, :] * np.asarray(A)).sum(2)


def _skew(a) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


_GEN = np.array([_skew(e) for e in np.eye(3)])                       # G_k = skew(e_k)
_GEN2 = 0.5 * (np.einsum("kab,lbc->klac", _GEN, _GEN)
               + np.einsum("lab,kbc->klac", _GEN, _GEN))            # sym(G_k G_l)


def _pos_jet(x0: np.ndarray, off: int, n: int) -> Jet:
    """x0 + dx, dx = variables off..off+2.  x0: (B, 3)."""
    x0 = np.asarray(x0, dtype=float)
    g = np.zeros(x0.shape + (n,))
    g[:, :, off:off + 3] = np.eye(3)
    return Jet(x0.copy(), g, np.zeros(x0.shape + (n, n)))


def _rot_jet(Q0: np.ndarray, off: int, n: int) -> Jet:
    """expm(skew(dtheta)) Q0 to second order, dtheta = variables off..off+2.  Q0: (B,3,3)."""
    Q0 = np.asarray(Q0, dtype=float)
    g = np.zeros(Q0.shape + (n,))
    H = np.zeros(Q0.shape + (n, n))
    g[..., off:off + 3] = np.einsum("kab,Bbc->Back", _GEN, Q0)
    H[..., off:off + 3, off:off + 3] = np.einsum("klab,Bbc->Backl", _GEN2, Q0)
    return Jet(Q0.copy(), g, H)


# asin(sqrt(x)) / sqrt(x) = sum c_k x^k, c_k = c_{k-1} (2k-1)^2 / (2k (2k+1)); the series
# is used for x = sin^2(theta) <= 0.5 (|theta| <= 45 deg), truncation < 1e-20.
_ASIN_C = np.ones(120)
for _k in range(1, _ASIN_C.size):
    _ASIN_C[_k] = _ASIN_C[_k - 1] * (2 * _k - 1) ** 2 / (2 * _k * (2 * _k + 1))
_ASIN_C1 = np.polynomial.polynomial.polyder(_ASIN_C)
_ASIN_C2 = np.polynomial.polynomial.polyder(_ASIN_C, 2)


def _logvec(R: Jet) -> Jet:
    """Rotation vector of a batch of rotation matrices (|angle| < 45 deg)."""
    w = Jet.stack([(R[:, 2, 1] - R[:, 1, 2]) * 0.5, (R[:, 0, 2] - R[:, 2, 0]) * 0.5,
                   (R[:, 1, 0] - R[:, 0, 1]) * 0.5], 1)           # sin(theta) n
    x = _dot(w, w)
    if np.any(x.v > 0.5) or np.any(np.trace(R.v, axis1=1, axis2=2) < 1.0):
        raise ValueError("local element rotation beyond 45 deg: refine the mesh")
    pv = np.polynomial.polynomial.polyval
    h = x.compose(pv(x.v, _ASIN_C), pv(x.v, _ASIN_C1), pv(x.v, _ASIN_C2))
    return w * h[:, None]


def _expm_so3(a: np.ndarray) -> np.ndarray:
    t = float(np.linalg.norm(a))
    S = _skew(a)
    if t < 1e-8:
        return np.eye(3) + S + 0.5 * S @ S
    return np.eye(3) + np.sin(t) / t * S + (1.0 - np.cos(t)) / t**2 * S @ S


def _rotvec(R: np.ndarray) -> np.ndarray:
    w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    s, c = np.linalg.norm(w), 0.5 * (np.trace(R) - 1.0)
    return w if s < 1e-300 else np.arctan2(s, c) / s * w


# ---------------------------------------------------------------------------------------
# Corotational element energy (batch)
# ---------------------------------------------------------------------------------------
def _element_energy(x1, Q1, x2, Q2, l0, K7, rho_a, g_vec):
    """Jets (12 variables: dx1, dtheta1, dx2, dtheta2) of the strain energy plus gravity
    potential of a batch of elements, and the current element frames E (B, 3, 3)."""
    n = 12
    X1, R1 = _pos_jet(x1, 0, n), _rot_jet(Q1, 3, n)
    X2, R2 = _pos_jet(x2, 6, n), _rot_jet(Q2, 9, n)
    d = X2 - X1
    dd = _dot(d, d)
    ln = dd.sqrt()
    e1 = d * ln.reciprocal()[:, None]
    elong = (dd - l0**2) * (ln + l0).reciprocal()
    p = (R1[:, :, 1] + R2[:, :, 1]) * 0.5
    t = _cross(e1, p)
    e3 = t * _dot(t, t).rsqrt()[:, None]
    e2 = _cross(e3, e1)
    E = Jet.stack([e1, e2, e3], 2)                      # columns e1 e2 e3
    ET = E.T()
    th1 = _logvec(_matmul(ET, R1))
    th2 = _logvec(_matmul(ET, R2))
    d7 = Jet.stack([th1[:, 0], th1[:, 1], th1[:, 2], elong, th2[:, 0], th2[:, 1],
                    th2[:, 2]], 1)
    U = _dot(d7, _matvec(K7, d7)) * 0.5
    energy = U
    if np.any(g_vec != 0.0):
        g_b = np.broadcast_to(g_vec, x1.shape)
        mid = _dot(X1 + X2, g_b) * (0.5 * l0)
        bend = (_dot(e2, g_b) * (th1[:, 2] - th2[:, 2])
                + _dot(e3, g_b) * (th2[:, 1] - th1[:, 1])) * (l0**2 / 12.0)
        energy = energy - (mid + bend) * rho_a
    return energy, E.v


# ---------------------------------------------------------------------------------------
# Structure: nodes, elements, rigid body, point masses, nonlinear joints
# ---------------------------------------------------------------------------------------
class Structure:
    """Beam nodes (position, triad), corotational elements, one optional rigid body,
    point masses and nonlinear joint constraints; statics and linearized vibration."""

    def __init__(self, gravity):
        self.g_vec = np.asarray(gravity, dtype=float)
        self.x0, self.Q0, self.fixed = [], [], []
        self.elements = []          # (node1, node2, l0, K7, Me, rho_a)
        self.point_masses = []      # (node, mass)
        self.body = None            # dict(P, R, m, I)
        self.constraints = []       # tuples, see _constraint_jet

    def add_node(self, x, Q, fixed=False) -> int:
        self.x0.append(np.asarray(x, dtype=float))
        self.Q0.append(np.asarray(Q, dtype=float))
        self.fixed.append(bool(fixed))
        return len(self.x0) - 1

    def add_element(self, a: int, b: int, section: Section, material: Material):
        l0 = float(np.linalg.norm(self.x0[b] - self.x0[a]))
        E0 = self.Q0[a]
        if not (np.allclose(E0, self.Q0[b], atol=1e-14)
                and np.allclose(E0[:, 0], (self.x0[b] - self.x0[a]) / l0, atol=1e-12)):
            raise ValueError("element nodes must share the triad, x along the chord")
        Ke = stiffness_matrix(_ELEMENT, l0, section, material)
        Me = mass_matrix(_ELEMENT, l0, section, material)
        self.elements.append((a, b, l0, Ke[np.ix_(_IDX7, _IDX7)], Me,
                              material.rho * section.area))

    def set_body(self, P, R, m, inertia):
        self.body = dict(P=np.asarray(P, float), R=np.asarray(R, float), m=float(m),
                         I=np.asarray(inertia, float))

    # -- bookkeeping ------------------------------------------------------------------
    def finalize(self):
        self.n_nodes = len(self.x0)
        self.node_dof = -np.ones(self.n_nodes, dtype=int)
        k = 0
        for i in range(self.n_nodes):
            if not self.fixed[i]:
                self.node_dof[i] = k
                k += 6
        self.body_dof = k if self.body is not None else -1
        self.ndof = k + (6 if self.body is not None else 0)
        el = self.elements
        self.e_a = np.array([e[0] for e in el])
        self.e_b = np.array([e[1] for e in el])
        self.e_l0 = np.array([e[2] for e in el])
        self.e_K7 = np.array([e[3] for e in el])
        self.e_M = np.array([e[4] for e in el])
        self.e_rho_a = np.array([e[5] for e in el])
        self.e_dofs = np.array([np.r_[self._dofs6(a), self._dofs6(b)] for a, b in
                                zip(self.e_a, self.e_b)])
        self.n_rows = sum(3 if c[0] in ("coincide", "attach") else 1
                          for c in self.constraints)
        return self

    def _dofs6(self, node: int) -> np.ndarray:
        d = self.node_dof[node]
        return -np.ones(6, dtype=int) if d < 0 else np.arange(d, d + 6)

    def _body_dofs(self) -> np.ndarray:
        return np.arange(self.body_dof, self.body_dof + 6)

    def initial_state(self) -> dict:
        st = dict(x=np.array(self.x0), Q=np.array(self.Q0), lam=np.zeros(self.n_rows))
        if self.body is not None:
            st.update(P=self.body["P"].copy(), R=self.body["R"].copy())
        return st

    # -- constraints ------------------------------------------------------------------
    def _constraint_jet(self, c, st):
        """Jet (shape (1, rows), 12 variables) of one joint and the global dof of each
        variable (-1: fixed)."""
        n = 12
        kind, a = c[0], c[1]
        xa, Qa = _pos_jet(st["x"][a][None], 0, n), _rot_jet(st["Q"][a][None], 3, n)
        if kind in ("coincide", "perp"):
            b = c[2] if kind == "coincide" else c[3]
            xb, Qb = _pos_jet(st["x"][b][None], 6, n), _rot_jet(st["Q"][b][None], 9, n)
            dofs = np.r_[self._dofs6(a), self._dofs6(b)]
        else:
            xb, Qb = _pos_jet(st["P"][None], 6, n), _rot_jet(st["R"][None], 9, n)
            dofs = np.r_[self._dofs6(a), self._body_dofs()]
        if kind == "coincide":                     # x_a = x_b
            jet = xa - xb
        elif kind == "perp":                       # Q_a[:, ia] . Q_b[:, ib] = 0
            jet = _dot(Qa[:, :, c[2]], Qb[:, :, c[4]])[:, None]
        elif kind == "attach":                     # x_a = P + R_P r (r in body axes)
            jet = xa - xb - _matvec(Qb, np.asarray(c[2], float)[None])
        elif kind == "perp_body":                  # Q_a[:, ia] . (R_P y) = 0
            jet = _dot(Qa[:, :, c[2]], _matvec(Qb, np.asarray(c[3], float)[None]))[:, None]
        else:
            raise ValueError(kind)
        return jet, dofs

    # -- evaluation -------------------------------------------------------------------
    def evaluate(self, st, gravity_on=True):
        """Potential, its gradient and Hessian (exponential coordinates about st),
        constraints c, Jacobian J, sum_k lambda_k Hess c_k, and the mass matrix."""
        nd = self.ndof
        g_vec = self.g_vec if gravity_on else np.zeros(3)
        x, Q = st["x"], st["Q"]
        en, E = _element_energy(x[self.e_a], Q[self.e_a], x[self.e_b], Q[self.e_b],
                                self.e_l0, self.e_K7, self.e_rho_a, g_vec)
        Pi = float(en.v.sum())
        G = np.zeros(nd)
        K = np.zeros((nd, nd))
        M = np.zeros((nd, nd))
        for k, dofs in enumerate(self.e_dofs):
            m = dofs >= 0
            dm = dofs[m]
            G[dm] += en.g[k][m]
            K[np.ix_(dm, dm)] += en.H[k][np.ix_(m, m)]
            T = np.kron(np.eye(4), E[k].T)
            M[np.ix_(dm, dm)] += (T.T @ self.e_M[k] @ T)[np.ix_(m, m)]
        for node, mass in self.point_masses:
            d = self.node_dof[node]
            M[d:d + 3, d:d + 3] += mass * np.eye(3)
            G[d:d + 3] -= mass * g_vec
            Pi -= mass * g_vec @ x[node]
        if self.body is not None:
            b, body = self.body_dof, self.body
            M[b:b + 3, b:b + 3] += body["m"] * np.eye(3)
            M[b + 3:b + 6, b + 3:b + 6] += st["R"] @ body["I"] @ st["R"].T
            G[b:b + 3] -= body["m"] * g_vec
            Pi -= body["m"] * g_vec @ st["P"]
        c = np.zeros(self.n_rows)
        J = np.zeros((self.n_rows, nd))
        HL = np.zeros((nd, nd))
        r = 0
        for con in self.constraints:
            jet, dofs = self._constraint_jet(con, st)
            m = dofs >= 0
            dm = dofs[m]
            for k in range(jet.v.shape[1]):
                c[r] = jet.v[0, k]
                J[r, dm] = jet.g[0, k][m]
                HL[np.ix_(dm, dm)] += st["lam"][r] * jet.H[0, k][np.ix_(m, m)]
                r += 1
        return dict(Pi=Pi, G=G, K=0.5 * (K + K.T), c=c, J=J, HL=0.5 * (HL + HL.T), M=M)

    def update(self, st, dq, dlam) -> dict:
        new = dict(st)
        x, Q = st["x"].copy(), st["Q"].copy()
        for i in range(self.n_nodes):
            d = self.node_dof[i]
            if d >= 0:
                x[i] += dq[d:d + 3]
                Q[i] = _expm_so3(dq[d + 3:d + 6]) @ Q[i]
        new.update(x=x, Q=Q, lam=st["lam"] + dlam)
        if self.body is not None:
            b = self.body_dof
            new.update(P=st["P"] + dq[b:b + 3], R=_expm_so3(dq[b + 3:b + 6]) @ st["R"])
        return new

    # -- statics and vibration --------------------------------------------------------
    def solve_static(self, tol=1e-10, max_iter=40):
        """Newton on the KKT system of the Lagrangian.  Converged when the largest
        increment (m, rad) is below tol; returns the state, the number of Newton updates
        and the history, one row per Newton update plus one at the end:
        (||grad L|| [N, N m], ||c|| [m], max |increment| [m, rad]; NaN at the end)."""
        st = self.initial_state()
        nd, nc = self.ndof, self.n_rows
        history = []
        for it in range(1, max_iter + 1):
            ev = self.evaluate(st)
            res = ev["G"] + ev["J"].T @ st["lam"]
            A = np.block([[ev["K"] + ev["HL"], ev["J"].T], [ev["J"], np.zeros((nc, nc))]])
            sol = np.linalg.solve(A, -np.r_[res, ev["c"]])
            step = float(np.max(np.abs(sol[:nd])))
            history.append((np.linalg.norm(res), np.linalg.norm(ev["c"]), step))
            st = self.update(st, sol[:nd], sol[nd:])
            if step < tol:
                break
        else:
            raise RuntimeError(f"Newton did not converge in {max_iter} iterations: {history}")
        ev = self.evaluate(st)
        history.append((np.linalg.norm(ev["G"] + ev["J"].T @ st["lam"]),
                        np.linalg.norm(ev["c"]), np.nan))
        return st, it, np.array(history), ev

    def modes(self, ev, count=None, gravity_on=True):
        """Eigenvalues / vectors of the tangent restricted to null(J), in the basis Z."""
        K = ev["K"] + ev["HL"]
        Z = sla.null_space(ev["J"]) if ev["J"].shape[0] else np.eye(self.ndof)
        Kr = Z.T @ K @ Z
        Mr = Z.T @ ev["M"] @ Z
        lam, V = sla.eigh(0.5 * (Kr + Kr.T), 0.5 * (Mr + Mr.T))
        with np.errstate(invalid="ignore"):
            f = np.sqrt(np.where(lam >= 0.0, lam, np.nan)) / (2.0 * np.pi)
        if count is not None:
            lam, f, V = lam[:count], f[:count], V[:, :count]
        return dict(eigenvalues=lam, frequency_hz=f, modes=Z @ V, Z=Z)


# ---------------------------------------------------------------------------------------
# Delta robot
# ---------------------------------------------------------------------------------------
def build_delta(X, n_elements=2, gravity=9.81, section=None, material=None) -> Structure:
    """The Kuo 2016 Delta at pose X (actuators locked at the inverse-kinematics angles),
    undeformed, universal joints at B_i and D_i; gravity [m/s^2] along +Z (down)."""
    n = int(n_elements)
    sec = SECTION if section is None else section
    mat = MATERIAL if material is None else material
    X = np.asarray(X, dtype=float)
    s = Structure(np.array([0.0, 0.0, float(gravity)]))
    for leg in leg_geometry(X):
        A, B, D = leg["A"], leg["B"], leg["D"]
        up = [s.add_node(A + j / n * (B - A), leg["R_u"], fixed=(j == 0)) for j in range(n + 1)]
        lo = [s.add_node(B + j / n * (D - B), leg["R_l"]) for j in range(n + 1)]
        for j in range(n):
            s.add_element(up[j], up[j + 1], sec, mat)
        for j in range(n):
            s.add_element(lo[j], lo[j + 1], sec, mat)
        s.constraints += [("coincide", up[n], lo[0]), ("perp", up[n], 1, lo[0], 2),
                          ("attach", lo[n], D - X), ("perp_body", lo[n], 2, leg["y"])]
    s.set_body(X, np.eye(3), M_PLATFORM, platform_inertia())
    return s.finalize()


def sagged_delta(X, n_elements=2, count=8, gravity=9.81, section=None, material=None) -> dict:
    """Frequencies of the Delta at pose X linearized about its sagged equilibrium.

    Returns a dict with
      ``frequency_hz`` (count,) about the sagged equilibrium,
      ``frequency_hz_undeformed`` (count,) the same model linearized about the undeformed
      pose without gravity (= reference_delta_frame.frame_delta(..., preload=False)),
      ``platform_displacement`` (3,) P - X [m] (world, Z down: sag > 0),
      ``platform_rotation`` (3,) rotation vector of R_P [rad],
      ``iterations`` (Newton updates), ``residuals`` (history of ||grad L||, ||c||),
      ``multipliers`` (joint reaction multipliers), ``eigenvalues`` (count,) [rad^2/s^2],
      ``structure``, ``state``.
    """
    s = build_delta(X, n_elements, gravity, section, material)
    with _one_thread():
        st, it, hist, ev = s.solve_static()
        md = s.modes(ev, count)
        ev0 = s.evaluate(s.initial_state(), gravity_on=False)
        md0 = s.modes(ev0, count)
    return dict(frequency_hz=md["frequency_hz"], eigenvalues=md["eigenvalues"],
                frequency_hz_undeformed=md0["frequency_hz"],
                platform_displacement=st["P"] - np.asarray(X, float),
                platform_rotation=_rotvec(st["R"]), iterations=it, residuals=hist,
                multipliers=st["lam"], structure=s, state=st, modes=md["modes"])


def extrapolated_delta(X, meshes=(8, 16), count=8, gravity=9.81, section=None,
                       material=None) -> dict:
    """Richardson extrapolation (error ~ n^-2, observed: the differences between
    successive meshes drop by 3.3 .. 5) of the frequencies and the platform displacement
    from the two meshes n1 < n2 = 2 n1: ``x_inf = x2 + (x2 - x1) / 3``."""
    r1, r2 = (sagged_delta(X, n, count, gravity, section, material) for n in meshes)
    if meshes[1] != 2 * meshes[0]:
        raise ValueError("meshes must be (n, 2 n)")
    ext = lambda k: r2[k] + (r2[k] - r1[k]) / 3.0
    return dict(frequency_hz=ext("frequency_hz"), platform_displacement=ext(
        "platform_displacement"), coarse=r1, fine=r2)


# ---------------------------------------------------------------------------------------
# Cantilever (element check against tests/references/reference_sagged_cantilever.py)
# ---------------------------------------------------------------------------------------
def build_cantilever(L, section, material, m_tip, gravity, n_elements, theta0=0.0,
                     J_tip=None) -> Structure:
    """Cantilever in the world x-z plane clamped at the origin, pointing along
    t = (cos theta0, 0, -sin theta0) (theta0 > 0: upwards, Z is down), gravity [m/s^2]
    along +z.  Tip mass: a point mass at the tip node (``J_tip=None``), or a rigid body
    (mass m_tip, inertia J_tip I) tied to the tip node by the nonlinear constraints
    ``attach`` (r = 0) and three ``perp_body`` rows (a welded joint)."""
    n = int(n_elements)
    t = np.array([np.cos(theta0), 0.0, -np.sin(theta0)])
    E0 = np.column_stack([t, [0.0, 1.0, 0.0], np.cross(t, [0.0, 1.0, 0.0])])
    s = Structure(np.array([0.0, 0.0, float(gravity)]))
    nodes = [s.add_node(j * L / n * t, E0, fixed=(j == 0)) for j in range(n + 1)]
    for j in range(n):
        s.add_element(nodes[j], nodes[j + 1], section, material)
    if J_tip is None:
        s.point_masses.append((nodes[-1], float(m_tip)))
    else:
        s.set_body(L * t, np.eye(3), m_tip, J_tip * np.eye(3))
        s.constraints += [("attach", nodes[-1], np.zeros(3)),
                          ("perp_body", nodes[-1], 1, E0[:, 2]),
                          ("perp_body", nodes[-1], 2, E0[:, 0]),
                          ("perp_body", nodes[-1], 0, E0[:, 1])]
    return s.finalize()


def sagged_cantilever(L, section, material, m_tip, gravity, n_elements=8, count=3,
                      theta0=0.0, J_tip=None) -> dict:
    """In-plane (x-z) frequencies [Hz] about the sagged state (see build_cantilever) and
    the tip position: ``tip_deflection`` = tip z (down, = -y of
    reference_sagged_cantilever), ``tip_x``."""
    s = build_cantilever(L, section, material, m_tip, gravity, n_elements, theta0, J_tip)
    with _one_thread():
        st, it, hist, ev = s.solve_static()
        md = s.modes(ev)
    modes = md["modes"]
    inplane = np.zeros(s.ndof, dtype=bool)
    starts = [d for d in s.node_dof if d >= 0] + ([s.body_dof] if s.body is not None else [])
    for d in starts:
        inplane[[d, d + 2, d + 4]] = True          # x, z translations, rotation about y
    frac = np.sum(modes[inplane] ** 2, axis=0) / np.sum(modes ** 2, axis=0)
    sel = frac > 0.5
    tip = st["x"][s.n_nodes - 1]
    return dict(frequency_hz=md["frequency_hz"][sel][:count],
                out_of_plane_hz=md["frequency_hz"][~sel][:count],
                plane_fraction=frac, tip_deflection=tip[2], tip_x=tip[0], iterations=it,
                residuals=hist, structure=s, state=st)


if __name__ == "__main__":  # pragma: no cover - quick look
    import time
    np.set_printoptions(precision=6, linewidth=140)
    for X in ((0.0, 0.0, 0.5), (0.1, 0.05, 0.45)):
        for n in (1, 2, 4):
            t0 = time.perf_counter()
            r = sagged_delta(X, n_elements=n)
            print(f"X={X} n={n} ({time.perf_counter() - t0:.2f} s, {r['iterations']} it):"
                  f" sag={r['platform_displacement']}")
            print("   f      =", r["frequency_hz"])
            print("   f_undef=", r["frequency_hz_undeformed"])
