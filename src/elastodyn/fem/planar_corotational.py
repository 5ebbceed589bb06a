"""Geometrically exact dynamics of planar beam structures (corotational elements with
consistent inertia): the kernel of the ``exact`` formulation for planar robots (issue 31).

Why planar. A robot that moves in a plane (the arms of Yu & Chen 2019, Briot's five-bar,
Rosyid's 3-PRR) bends in that plane only; with node coordinates (x, y, phi), phi an
absolute angle that simply adds up, rotations of any size (a hub spinning many turns, a
beam rolled up) need no rotation parametrization and no update of triads. The spatial
counterpart (statics, any rotation) is :class:`elastodyn.fem.corotational.BeamFrame`.

Element (the planar corotational Euler-Bernoulli element: M. A. Crisfield, *Non-linear
finite element analysis of solids and structures*, vol. 1, Wiley 1991, section 7.3;
J.-M. Battini, "Co-rotational beam elements in instability problems", KTH 2002). Node
unknowns: displacement (u_x, u_y) from the placement [m] and rotation phi from it [rad].
With the chord d = c0 + u_b - u_a (c0 the placement's chord, of length l0) and the end
tangents t_a = R(phi_a) c0 / l0, t_b = R(phi_b) c0 / l0 (straight elements), the local
deformations are

    u = norm(d) - l0,   theta_a = atan((d x t_a) / (d . t_a)),   theta_b likewise,

(exact angles between the chord and the end sections, no small-angle measure: valid
while they stay below 90 degrees, i.e. any mesh that resolves the curvature), and the
strain energy that of the linear planar element (:func:`elastodyn.fem.elements.
stiffness_matrix`) on d_local = (0, 0, theta_a, u, 0, theta_b): EA/l0 u^2 / 2 plus the
Hermite bending energy. A rigid motion leaves u, theta_a, theta_b unchanged: the model is
objective, exactly.

Inertia (consistent: the kinetic energy of the interpolated axis). The axis point at xi
in [0, 1] is x(xi) = x_a + xi d + v(xi) n, n the chord's normal and v(xi) the Hermite
deflection of the local rotations (:meth:`elastodyn.fem.elements.BeamElement.shape`,
field v). The kinetic energy 1/2 rho A int x_dot . x_dot ds is integrated by 5-point Gauss
(exact for the polynomial interpolation, x cubic in xi, also with a quadratic density
along the element: degree 8), which makes the element the sum of 5 point masses m_g = rho A l0 w_g on material points x_g(q). Lagrange's equations
of T = 1/2 sum m_g x_g_dot . x_g_dot are then exactly

    sum_g m_g J_g^T (J_g q_dd + q_dot^T H_g q_dot) + dV/dq = Q,

J_g, H_g the first and second derivatives of x_g(q), computed exactly by jets
(:mod:`elastodyn.fem.jets`); the mass matrix M(q) = sum m_g J_g^T J_g is the linear
element's consistent mass in the placement and turns and deforms with the element. The
rotary inertia of the sections is left out, as in the linear Euler-Bernoulli elements of
this library. Gravity acts on the same points (a dead load: conservative), and on point
masses at nodes.

Units: SI, angles in rad.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import jets
from .._validate import positive
from ..description.materials import Material, Section
from ..exceptions import InputError, ModelError
from .elements import BeamElement, stiffness_matrix
from .shapes import gauss_legendre_01

__all__ = ["PlanarCorotationalBeam", "PlanarBeamStructure", "PlanarRun", "chord_midspan"]

_PLANAR = BeamElement(spatial=False, order="cubic")
_GAUSS = 5          # points: exact for the kinetic energy of the cubic axis (degree 6)
#                     times a quadratic density (degree 8: a link of given mass
#                     properties, Rosyid's; 4 points left 1.5e-6 on its frequencies)


@dataclass(frozen=True, eq=False)
class PlanarCorotationalBeam:
    """A straight two-node planar corotational beam element (module docstring).

    Build with :meth:`of`. ``length`` l0 [m]; ``ea`` [N], the bending block (2, 2)
    [N m] of the linear element on (theta_a, theta_b); ``rho_a`` [kg/m]; the Gauss
    abscissae (5,), their masses over rho A l0 (5,) and the Hermite rows of v on
    (theta_a, theta_b) at them (5, 2) [m/rad].
    """

    length: float
    ea: float
    bending: np.ndarray
    rho_a: float
    xi: np.ndarray = field(repr=False)
    w: np.ndarray = field(repr=False)
    hv: np.ndarray = field(repr=False)
    fibre: float = 0.0
    """The outer fibre's distance from the axis in the plane [m]
    (:meth:`~elastodyn.description.materials.Section.outer_fibre`; 0: unknown, the
    radius of gyration is taken)."""

    @classmethod
    def of(cls, length: float, section: Section, material: Material, density=None
           ) -> "PlanarCorotationalBeam":
        """Element of length [m] > 0, section and material (bending about the normal to
        the plane: the section's iz). ``density``: None (uniform rho A) or a callable
        xi -> mass per length [kg/m] along the element (xi in [0, 1]), sampled at the
        Gauss points (a link whose mass properties are given: its quadratic density,
        :func:`elastodyn.fem.ffrf.fitted_mass_per_length`; the 5 points integrate the
        kinetic energy of the cubic axis times a quadratic density exactly)."""
        length = positive("length", length)
        K = stiffness_matrix(_PLANAR, length, section, material)
        xi, w = gauss_legendre_01(_GAUSS)
        hv = _PLANAR.shape("v", xi, length)[:, [2, 5]]
        rho_a = float(material.rho * section.area)
        if density is not None:
            mu = np.asarray(density(xi), dtype=float).reshape(len(xi))
            if not np.all(np.isfinite(mu)) or np.any(mu <= 0):
                raise InputError("density", mu.tolist(), "a mass per length > 0 [kg/m]")
            rho_a = float(w @ mu)
            w = w * mu / rho_a
        return cls(length, float(K[0, 0] * length), K[np.ix_([2, 5], [2, 5])].copy(),
                   rho_a, xi, w, hv, section.outer_fibre()[1])


def _perp(d):
    """The normal (-d_y, d_x) of planar vectors (..., 2) (jets or arrays)."""
    return np.stack([-d[..., 1], d[..., 0]], axis=-1)


def _atan(r):
    """atan(r) for arrays or jets (chain rule: 1 / (1 + r^2), -2 r / (1 + r^2)^2)."""
    if not isinstance(r, jets.Jet):
        return np.arctan(r)
    v = r.v
    d1 = 1.0 / (1.0 + v * v)
    return jets.compose(r, np.arctan(v), d1, -2.0 * v * d1 * d1)


def chord_midspan(s, nodes) -> float:
    """The bending at mid-length of a planar beam of elements [m]: the distance of its
    axis point at L / 2 from the chord between its end nodes, positive toward the root
    frame's +y (whatever the frame convention of the linear formulations: their
    fixed-free or pinned-pinned body frames differ by the chord's rotation).

    Parameters
    ----------
    s : array_like, shape (k + 1,)
        The nodes' places along the straight beam from its root (s[0] = 0, s[-1] = L) [m].
    nodes : array_like, shape (k, 3)
        Nodes 1..k's displacement (u, v) [m] and rotation r [rad] in the root's frame
        (the root node clamped: 0, 0, 0).

    Where L / 2 is not a node (an odd number of elements) the element around it is
    interpolated by its Hermite cubic in its chord frame (the corotational element's own
    shape)."""
    s = np.asarray(s, dtype=float)
    E = np.asarray(nodes, dtype=float)
    pts = np.vstack([[0.0, 0.0, 0.0], np.column_stack([s[1:] + E[:, 0], E[:, 1], E[:, 2]])])
    L = s[-1]
    k = int(np.searchsorted(s, 0.5 * L))
    k = min(max(k, 1), len(s) - 1)
    a, b = pts[k - 1], pts[k]
    c = b[:2] - a[:2]
    lc = float(np.hypot(*c))
    xi = (0.5 * L - s[k - 1]) / (s[k] - s[k - 1])
    ph = math.atan2(c[1], c[0])
    ta, tb = a[2] - ph, b[2] - ph
    v = lc * (ta * xi * (1 - xi) ** 2 - tb * xi * xi * (1 - xi))
    mid = a[:2] + xi * c + v * np.array([-c[1], c[0]]) / lc
    chord = pts[-1, :2]
    return float((chord[0] * mid[1] - chord[1] * mid[0]) / np.hypot(*chord))


class PlanarBeamStructure:
    """Planar beams between nodes, point masses at nodes, gravity; the equations of
    motion of the geometrically exact model (module docstring) and their integration.

    Parameters
    ----------
    nodes : array_like (N, 2)
        Placement of the nodes [m].
    elements : sequence of (a, b, PlanarCorotationalBeam)
        Node indices; the element's length must equal the distance between them. Elements
        meeting at a node are rigidly connected there (one rotation per node).
    masses : sequence of (node, mass [kg], rotary inertia [kg m^2]), optional
    gravity : (2,) [m/s^2]

    Unknowns q (3 N): per node (u_x, u_y, phi) from the placement.
    """

    def __init__(self, nodes, elements, masses=(), gravity=(0.0, 0.0)):
        self.x0 = np.asarray(nodes, dtype=float)
        if self.x0.ndim != 2 or self.x0.shape[1] != 2 or not np.all(np.isfinite(self.x0)):
            raise InputError("nodes", np.shape(nodes), "an (N, 2) array of finite positions")
        n = len(self.x0)
        self.dof = 3 * n
        self.elements = [(int(a), int(b), e) for a, b, e in elements]
        if not self.elements and not masses:
            raise InputError("elements", 0, "at least one element or mass")
        for a, b, e in self.elements:
            if not (0 <= a < n and 0 <= b < n and a != b):
                raise InputError("elements", (a, b), f"two different nodes in 0..{n - 1}")
            if not np.isclose(np.linalg.norm(self.x0[b] - self.x0[a]), e.length,
                              rtol=1e-9):
                raise InputError(f"elements ({a}, {b}) length", e.length,
                                 "the distance between its nodes [m]")
        self.masses = [(int(k), float(m), float(J)) for k, m, J in masses]
        self.gravity = np.asarray(gravity, dtype=float)
        # element data stacked for one vectorized evaluation (elements of one kind)
        if not self.elements:         # point masses alone (a rigid robot's bodies)
            return
        self._a = np.array([a for a, _, _ in self.elements])
        self._b = np.array([b for _, b, _ in self.elements])
        E = [e for _, _, e in self.elements]
        self._c0 = self.x0[self._b] - self.x0[self._a]                      # (ne, 2)
        self._l0 = np.array([e.length for e in E])
        self._ea = np.array([e.ea for e in E])
        self._kb = np.stack([e.bending for e in E])                        # (ne, 2, 2)
        self._fibre = np.array([e.fibre for e in E])
        self._mg = np.stack([e.rho_a * e.length * e.w for e in E])         # (ne, 5)
        self._xi = np.stack([e.xi for e in E])                             # (ne, 5)
        self._hv = np.stack([e.hv for e in E])                             # (ne, 5, 2)
        self._cols = np.concatenate([3 * self._a[:, None] + np.arange(3),
                                     3 * self._b[:, None] + np.arange(3)], axis=1)

    # ------------------------------------------------------------------ element terms
    def _element_terms(self, z):
        """Strain energy (ne,) and Gauss-point positions (ne, 5, 2) for element unknowns
        z (ne, 6) = (u_a (2), phi_a, u_b (2), phi_b): arrays or jets."""
        ua, pa, ub, pb = z[..., 0:2], z[..., 2], z[..., 3:5], z[..., 5]
        c0 = self._c0
        dl = ub - ua
        d = c0 + dl
        l0 = self._l0
        s = 2.0 * np.einsum("ei,ei->e", c0, dl) + np.einsum("ei,ei->e", dl, dl)
        length = np.sqrt(l0 * l0 + s)
        u = s / (length + l0)                      # |d| - l0 without cancellation

        def local(phi):
            # the section's turn from the chord, in (-pi, pi): by the half-angle formula
            # 2 atan(sin / (1 + cos)) = atan2(d x t, d . t), smooth on jets. atan of
            # the ratio (d x t) / (d . t) alone is pi-periodic: a section flipped by pi
            # had no bending energy, and a soft arm's static Newton found a link clamped
            # upside down (the tip above its root, a "stable" equilibrium)
            c, sn = np.cos(phi), np.sin(phi)
            t = np.stack([c * c0[:, 0] - sn * c0[:, 1], sn * c0[:, 0] + c * c0[:, 1]], -1)
            t = t / l0[:, None]                                        # unit tangent
            cross = d[..., 0] * t[..., 1] - d[..., 1] * t[..., 0]
            return 2.0 * _atan(cross / (length + np.einsum("ei,ei->e", d, t)))
        tha, thb = local(pa), local(pb)
        th = np.stack([tha, thb], axis=-1)                                  # (ne, 2)
        U = 0.5 * self._ea / l0 * u * u + 0.5 * np.einsum(
            "ei,eij,ej->e", th, self._kb, th)
        v = np.einsum("egk,ek->eg", self._hv, th)                          # (ne, 5)
        n = _perp(d) / length[..., None]
        xa = self.x0[self._a] + ua
        xg = (xa[:, None, :] + self._xi[..., None] * d[:, None, :]
              + v[..., None] * n[:, None, :])
        return U, xg, (u, tha, thb)

    def local_deformations(self, q) -> np.ndarray:
        """(ne, 3): the elongation [m] and the end rotations theta_a, theta_b [rad]
        relative to the chord of every element at q (3 N,)."""
        _, _, (u, ta, tb) = self._element_terms(np.asarray(q, float)[self._cols])
        return np.stack([u, ta, tb], axis=-1)

    def max_axial_strain(self, q) -> float:
        """The largest axial strain |u| / l0 of the elements at q (3 N,) (0 without
        elements)."""
        if not self.elements:
            return 0.0
        return float(np.max(np.abs(self.local_deformations(q)[:, 0]) / self._l0))

    def max_strain(self, q) -> float:
        """The largest strain of the elements' fibres at q (3 N,) [-]: the axial strain
        |u| / l0 plus the bending strain at the outer fibre, c kappa, with c the
        section's :attr:`PlanarCorotationalBeam.fibre` (unknown: the radius of gyration
        sqrt(I / A), a lower bound) and kappa the largest curvature of
        the element's Hermite cubic, at an end: |4 theta_a + 2 theta_b| / l0 or
        |2 theta_a + 4 theta_b| / l0 (0 without elements)."""
        if not self.elements:
            return 0.0
        d = self.local_deformations(q)
        u, ta, tb = d[:, 0], d[:, 1], d[:, 2]
        l0 = self._l0
        r = np.sqrt(self._kb[:, 0, 0] * l0 / 4.0 / self._ea)       # sqrt(EI / EA)
        r = np.where(self._fibre > 0, self._fibre, r)
        kappa = np.maximum(np.abs(4 * ta + 2 * tb), np.abs(2 * ta + 4 * tb)) / l0
        return float(np.max(np.abs(u) / l0 + r * kappa))

    def evaluate(self, q, qd=None):
        """The terms of the equations of motion at (q, qd) (3 N,):

        Returns
        -------
        V : float
            Potential energy (strain + gravity) [J].
        grad : (3 N,)
            dV/dq [N, N m].
        K : (3 N, 3 N)
            d2V/dq2 (the tangent stiffness, geometric terms included).
        M : (3 N, 3 N)
            The mass matrix M(q) [kg, kg m, kg m^2].
        h : (3 N,)
            The velocity forces sum m_g J_g^T (qd^T H_g qd) (centrifugal, Coriolis) (zero
            without qd).
        C : (3 N, 3 N)
            dh/dqd = 2 sum m_g J_g^T (H_g qd) (the gyroscopic tangent).
        """
        q = np.asarray(q, dtype=float)
        N = self.dof
        if not self.elements:
            grad, M = np.zeros(N), np.zeros((N, N))
            V = self._add_masses(q, 0.0, grad, M)
            return V, grad, np.zeros((N, N)), M, np.zeros(N), np.zeros((N, N))
        z = jets.variables(q[self._cols])                                  # (ne, 6)
        U, xg, _ = self._element_terms(z)
        grav = self.gravity
        # the gravity potential of the Gauss points, - sum m_g g . x_g
        Vg = -np.einsum("eg,egi,i->e", self._mg, xg.v, grav)
        Ug, UH = jets.gradient(U, 6), jets.hessian(U, 6)                   # (ne, 6), (ne, 6, 6)
        J = jets.gradient(xg, 6)                                           # (ne, 5, 2, 6)
        H = jets.hessian(xg, 6)                                            # (ne, 5, 2, 6, 6)
        ge = Ug - np.einsum("eg,egik,i->ek", self._mg, J, grav)
        Ke = UH - np.einsum("eg,egikl,i->ekl", self._mg, H, grav)
        Me = np.einsum("eg,egik,egil->ekl", self._mg, J, J)
        N = self.dof
        grad = np.zeros(N)
        K = np.zeros((N, N))
        M = np.zeros((N, N))
        cols = self._cols
        np.add.at(grad, cols, ge)
        idx = (cols[:, :, None], cols[:, None, :])
        np.add.at(K, idx, Ke)
        np.add.at(M, idx, Me)
        h = np.zeros(N)
        C = np.zeros((N, N))
        if qd is not None:
            vd = np.asarray(qd, dtype=float)[cols]                           # (ne, 6)
            Hv = np.einsum("egikl,el->egik", H, vd)                        # (ne, 5, 2, 6)
            quad = np.einsum("egik,ek->egi", Hv, vd)                       # (ne, 5, 2)
            np.add.at(h, cols, np.einsum("eg,egik,egi->ek", self._mg, J, quad))
            np.add.at(C, idx, 2.0 * np.einsum("eg,egik,egil->ekl", self._mg, J, Hv))
        V = self._add_masses(q, float(np.sum(U.v) + np.sum(Vg)), grad, M)
        return V, grad, K, M, h, C

    def _add_masses(self, q, V, grad, M) -> float:
        """The point masses' terms added to grad and M (in place); V plus their gravity
        potential."""
        grav = self.gravity
        for k, m, Jr in self.masses:
            c = 3 * k
            M[c, c] += m
            M[c + 1, c + 1] += m
            M[c + 2, c + 2] += Jr
            V -= m * grav @ (self.x0[k] + q[c:c + 2])
            grad[c:c + 2] -= m * grav
        return V

    def energy(self, q, qd) -> tuple[float, float]:
        """(kinetic, potential) energy [J] at (q, qd)."""
        V, _, _, M, _, _ = self.evaluate(q)
        qd = np.asarray(qd, dtype=float)
        return 0.5 * float(qd @ M @ qd), V

    # ------------------------------------------------------------------ dynamics
    def simulate(self, t_end: float, dt: float, q0=None, qd0=None, *, fixed=(),
                 prescribed=None, rho_inf: float = 0.9, atol: float = 1e-10,
                 progress=None) -> "PlanarRun":
        """Integrate the equations of motion from (q0, qd0) (default rest in the
        placement) to ``t_end`` by the generalized-alpha method
        (:func:`elastodyn.integrators.nonlinear.generalized_alpha_nonlinear`: second
        order, numerical dissipation ``rho_inf`` at infinite frequency; 1: none).

        Parameters
        ----------
        t_end, dt : float
            Window [s] (> 0) and constant step [s] (> 0).
        fixed : sequence of int
            Dofs held at their placement value (a clamp: 3 k, 3 k + 1 hold node k in
            place, 3 k + 2 its rotation).
        prescribed : dict dof -> callable t -> (value, rate, acceleration), optional
            Dofs driven along a motion (a motor turning the root of a link); their
            generalized reaction (the effort the drive applies) [N or N m] is reported.
        atol : float
            Newton tolerance on the positions [m, rad].

        Returns
        -------
        PlanarRun
        """
        prescribed = dict(prescribed or {})
        held = set(int(k) for k in fixed) | set(int(k) for k in prescribed)
        if any(not 0 <= k < self.dof for k in held):
            raise InputError("fixed/prescribed", sorted(held), f"dofs in 0..{self.dof - 1}")
        if set(int(k) for k in fixed) & set(prescribed):
            raise InputError("prescribed", sorted(prescribed), "dofs not also fixed")
        free = np.array([k for k in range(self.dof) if k not in held], dtype=int)
        pres = np.array(sorted(int(k) for k in prescribed), dtype=int)
        laws = [prescribed[k] for k in pres]
        q0 = np.zeros(self.dof) if q0 is None else np.array(q0, dtype=float)
        qd0 = np.zeros(self.dof) if qd0 is None else np.array(qd0, dtype=float)
        structure = self

        def drive(t):
            out = np.array([law(t) for law in laws], dtype=float).reshape(len(laws), 3)
            return out[:, 0], out[:, 1], out[:, 2]

        def full(t, x, v, a):
            q, qd, qdd = np.zeros(self.dof), np.zeros(self.dof), np.zeros(self.dof)
            q[free], qd[free], qdd[free] = x, v, a
            if len(pres):
                q[pres], qd[pres], qdd[pres] = drive(t)
            return q, qd, qdd

        from ..integrators.nonlinear import NonlinearProblem, generalized_alpha_nonlinear

        class Problem(NonlinearProblem):
            n = len(free)
            memo = None

            def terms(self, t, x, v, z):
                key = (t, x.tobytes(), v.tobytes())
                if self.memo is None or self.memo[0] != key:
                    q, qd, _ = full(t, x, v, z)
                    self.memo = (key, structure.evaluate(q, qd))
                return self.memo[1]

            def full_residual(self, t, x, v, z):
                _, grad, _, M, h, _ = self.terms(t, x, v, z)
                _, _, qdd = full(t, x, v, z)
                return M @ qdd + h + grad

            def residual(self, t, x, v, z):
                return self.full_residual(t, x, v, z)[free]

            def matrix(self, t, x, v, z, beta_p, gamma_p):
                # M + gamma' C + beta' K: the derivatives of the velocity forces with
                # respect to the positions (second order in the rates) are left out of
                # the iteration matrix (Newton converges linearly where they matter)
                _, _, K, M, _, C = self.terms(t, x, v, z)
                A = M + gamma_p * C + beta_p * K
                return A[np.ix_(free, free)]

        prob = Problem()
        # consistent initial accelerations: M_ff a_f = -(h + grad + M_fp a_p)_f
        qi, qdi, qddi = full(0.0, q0[free], qd0[free], np.zeros(len(free)))
        if len(pres):
            q0[pres], qd0[pres] = qi[pres], qdi[pres]
        _, grad, _, M, h, _ = self.evaluate(q0, qd0)
        rhs = -(h + grad + M @ qddi)[free]
        try:
            a0 = np.linalg.solve(M[np.ix_(free, free)], rhs)
        except np.linalg.LinAlgError:
            raise ModelError("the mass matrix of the free dofs is singular (a node "
                             "without mass or rotary inertia)") from None
        res = generalized_alpha_nonlinear(prob, q0[free], qd0[free], a0, t_end=t_end,
                                          dt=dt, rho_inf=rho_inf, atol=atol, rtol=0.0,
                                          progress=progress, what="exact (planar)")
        nt = len(res.time)
        Q, QD = np.zeros((nt, self.dof)), np.zeros((nt, self.dof))
        R = np.zeros((nt, len(pres)))
        for k in range(nt):
            q, qd, _ = full(res.time[k], res.x[k], res.v[k], res.z[k])
            Q[k], QD[k] = q, qd
            if len(pres):
                R[k] = prob.full_residual(res.time[k], res.x[k], res.v[k], res.z[k])[pres]
        return PlanarRun(res.time, Q, QD, R, tuple(int(k) for k in pres))


@dataclass(frozen=True, eq=False)
class PlanarRun:
    """A run of :meth:`PlanarBeamStructure.simulate`: times (nt,) [s], q and qd
    (nt, 3 N), the reactions of the prescribed dofs (nt, n_p) [N or N m] (the efforts
    that drive them) and those dofs."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    reactions: np.ndarray
    prescribed: tuple
