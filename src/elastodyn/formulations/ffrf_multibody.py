"""Planar flexible multibody systems by the floating frame of reference (FFRF).

Rosyid & El-Khasawneh (2020), "Multibody dynamics of nonsymmetric planar 3PRR parallel
manipulator with fully flexible links", Appl. Sci. 10, 4816 (sections 2-7), after
Shabana, *Dynamics of Multibody Systems* (3rd ed., 2005).

Each body i has the reference coordinates ``(R_x, R_y, theta)`` of its frame and, when
flexible, elastic coordinates ``q_f`` (eq. (9)); a material point is at
``r = R + A(theta) (u_o + S q_f)`` (eqs. (1)-(8)). The body terms (mass matrix eqs.
(16)-(28), quadratic-velocity vector eq. (30), gravity eq. (33), stiffness eqs.
(37)-(38)) come from :mod:`elastodyn.fem.ffrf`; a rigid body is a body without elastic
coordinates whose invariants are its mass, first moment and inertia about the frame
origin. Joints are constraint equations ``C(q) = 0`` between *markers* (a point of a body
and a direction there: on a flexible body, a point of the beam axis that follows the
elastic displacement ``S(x) q_f`` and the slope ``v'(x)``): revolute (2 equations),
prismatic (2), rigid (3). Their Jacobians ``C_q`` and the acceleration right-hand sides
``gamma = -(C_q q_dot)_q q_dot`` are analytic (eqs. (43)-(44), (60)-(87)).

The equations of motion are the DAEs (eqs. (43)-(44))

    M q_dd + C_q^T lambda = Q_v + Q_g + Q_e - K q,     C(q) = 0,

solved two ways (:mod:`elastodyn.analysis.ffrf`):

* **coordinate partitioning** (eqs. (91)-(106)), as the paper: the independent
  coordinates are the actuated joint coordinates (the sliders of the 3-PRR) and the
  elastic coordinates; the dependent reference coordinates follow from ``C = 0`` by
  Newton, their rates and accelerations from ``C_q``. This is :meth:`MultibodySystem.
  reduced` (``M_r = N^T M N``, the model of the contract);
* **index reduction with projection**: all coordinates, accelerations and multipliers
  from the augmented system ``[[M, C_q^T], [C_q, 0]]``, positions and velocities
  projected back onto ``C = 0``, ``C_q q_dot = 0`` (:meth:`MultibodySystem.project`).

Units SI; angles in rad.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..exceptions import InputError, ModelError
from ..fem.ffrf import (BeamShape, FFRFInvariants, ffrf_invariants,
                        planar_body_mass_matrix, planar_quadratic_velocity, planar_stiffness)

__all__ = ["Body", "rigid_body", "flexible_body", "Marker", "Joint", "MultibodySystem",
           "SingularConfiguration"]


class SingularConfiguration(ModelError):
    """The dependent coordinates cannot be solved for: the Jacobian of the constraints
    (and actuated coordinates) with respect to them lost rank."""

    def __init__(self, message: str, t: float | None = None):
        super().__init__(message)
        self.t = t


def _rot(theta: float):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])


@dataclass(frozen=True)
class Body:
    """One body: its shape integrals, stiffness and (flexible) shape.

    Attributes
    ----------
    name : str
    inv : FFRFInvariants
        Mass, first moment ``I1`` (2,) [kg m], ``J_oo`` (inertia about the frame origin)
        and the elastic integrals (empty for a rigid body).
    K : (n_f, n_f) [N/m, N, N m]
    shape : BeamShape or None
        The flexible body's shape (None: rigid).
    """

    name: str
    inv: FFRFInvariants
    K: np.ndarray
    shape: BeamShape | None = None

    @property
    def n_f(self) -> int:
        return 0 if self.shape is None else self.shape.n_f

    @property
    def n(self) -> int:
        return 3 + self.n_f

    @property
    def length(self) -> float:
        return 0.0 if self.shape is None else self.shape.length


def rigid_body(name: str, mass: float, com=(0.0, 0.0), inertia_com: float = 0.0) -> Body:
    """A rigid body: mass [kg], centre of mass in the body frame [m] and rotary inertia
    about the centre of mass [kg m^2] (>= 0; zero mass makes a massless frame)."""
    m = float(mass)
    c = np.asarray(com, dtype=float).reshape(2)
    if not np.isfinite(m) or m < 0 or not np.all(np.isfinite(c)) or inertia_com < 0:
        raise InputError(f"body {name}", {"mass": mass, "com": list(c), "inertia": inertia_com},
                         "mass >= 0, a finite centre of mass and inertia >= 0")
    z2, z0 = np.zeros((2, 0)), np.zeros((0, 0))
    I1 = m * c
    inv = FFRFInvariants(length=0.0, mass_per_length=0.0, mass=m, I1=I1, S_bar=z2,
                         S11=z0, S12=z0, S21=z0, S22=z0, S_ff=z0, S_tilde=z0,
                         I_bar=np.zeros((2, 2, 0)), I_o=np.zeros(0),
                         J_oo=float(inertia_com + m * c @ c), J_of=np.zeros(0))
    return Body(name, inv, np.zeros((0, 0)), None)


def flexible_body(name: str, shape: BeamShape, mass_per_length, *, EA: float,
                  EI: float) -> Body:
    """A straight flexible beam along x of its frame, ``0 <= x <= L``: its shape (Rayleigh-
    Ritz or finite elements with the boundary conditions of the frame), mass per length
    [kg/m] (constant or a callable of xi) and stiffnesses EA [N], EI [N m^2]."""
    inv = ffrf_invariants(shape, length=shape.length, mass_per_length=mass_per_length,
                          breaks=shape.breaks)
    K = planar_stiffness(shape, length=shape.length, axial_stiffness=EA,
                         bending_stiffness=EI, breaks=shape.breaks)
    return Body(name, inv, K, shape)


@dataclass(frozen=True)
class Marker:
    """A point of a body and a direction there.

    ``body`` is the index of the body (-1: the ground); ``point`` (2,) its position in the
    body frame, undeformed [m] (on a flexible body a point of the axis: ``point[1]`` must be
    0 and ``0 <= point[0] <= L``); ``angle`` the marker's direction in the body frame
    [rad]. On a flexible body the point moves by ``S(x) q_f`` and the direction turns by
    the slope ``v'(x)`` (linear elastic rotations, as the FFRF's small deformations).
    """

    body: int
    point: tuple = (0.0, 0.0)
    angle: float = 0.0


@dataclass(frozen=True)
class Joint:
    """A joint between marker ``a`` (parent) and marker ``b`` (child).

    kind : "revolute" (points coincide), "prismatic" (b's point slides along a's
    direction, the directions keep their relative angle), "rigid" (points coincide, the
    directions keep their relative angle). ``name`` names the joint coordinate
    (revolute: the angle of b's direction from a's [rad]; prismatic: the travel of b's
    point along a's direction [m], each less its value at assembly ``offset``).
    """

    name: str
    kind: str
    a: Marker
    b: Marker
    angle0: float = 0.0      # relative angle phi_b - phi_a kept by prismatic and rigid
    offset: float = 0.0      # coordinate value subtracted (joint coordinate 0 at assembly)

    @property
    def n_equations(self) -> int:
        return {"revolute": 2, "prismatic": 2, "rigid": 3}[self.kind]


@dataclass
class _MarkerState:
    r: np.ndarray            # (2,) position
    phi: float               # direction angle
    Jr: np.ndarray           # (2, n) position Jacobian over the system coordinates
    Jphi: np.ndarray         # (n,) angle Jacobian
    ar: np.ndarray           # (2,) quadratic part of r_dd (r_dd = Jr q_dd + ar)
    rd: np.ndarray = field(default_factory=lambda: np.zeros(2))
    phid: float = 0.0


class MultibodySystem:
    """Bodies, joints, gravity and the actuated joints of a planar FFRF system.

    Parameters
    ----------
    bodies : sequence of Body
    joints : sequence of Joint
    gravity : (2,) [m/s^2]
    actuated : sequence of str
        Names of the joints whose coordinates are actuated (efforts act along them; in
        the partitioned model they are the independent reference coordinates).
    """

    def __init__(self, bodies, joints, gravity=(0.0, 0.0), actuated=()):
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.gravity = np.asarray(gravity, dtype=float).reshape(2)
        names = [j.name for j in self.joints]
        self.actuated = tuple(actuated)
        for a in self.actuated:
            if a not in names:
                raise InputError("actuated", a, "a joint name: " + ", ".join(names))
        self._act = [names.index(a) for a in self.actuated]
        for a in self._act:
            if self.joints[a].kind == "rigid":
                raise InputError("actuated", self.joints[a].name, "a revolute or prismatic joint")
        offs, o = [], 0
        for b in self.bodies:
            offs.append(o)
            o += b.n
        self.offsets = tuple(offs)
        self.n = o
        self.ref_index = np.array([self.offsets[i] + k for i in range(len(self.bodies))
                                   for k in range(3)], dtype=int)
        self.el_index = np.array([self.offsets[i] + 3 + k for i, b in enumerate(self.bodies)
                                  for k in range(b.n_f)], dtype=int)
        self.n_c = sum(j.n_equations for j in self.joints)
        if self.n_c + len(self._act) != self.ref_index.size:
            raise InputError("joints", f"{self.n_c} constraint equations and "
                             f"{len(self._act)} actuated coordinates",
                             f"as many as the {self.ref_index.size} reference coordinates "
                             "of the bodies (an isostatic mechanism whose actuated "
                             "coordinates fix its rigid motion)")
        K = np.zeros((self.n, self.n))
        for i, b in enumerate(self.bodies):
            s = slice(self.offsets[i] + 3, self.offsets[i] + b.n)
            K[s, s] = b.K
        self.K = K
        self._Kel = K[np.ix_(self.el_index, self.el_index)]
        self._shape_cache = {}

    # ------------------------------------------------------------------ coordinates
    def body_slice(self, i: int) -> slice:
        return slice(self.offsets[i], self.offsets[i] + self.bodies[i].n)

    @property
    def n_actuated(self) -> int:
        return len(self._act)

    @property
    def n_elastic(self) -> int:
        return int(self.el_index.size)

    def elastic_names(self) -> tuple:
        return tuple(f"{b.name}.{n}" for b in self.bodies if b.shape is not None
                     for n in b.shape.names)

    def elastic_units(self) -> tuple:
        return tuple(u for b in self.bodies if b.shape is not None for u in b.shape.units)

    def elastic_stiffness(self) -> np.ndarray:
        return self._Kel

    # ------------------------------------------------------------------ body terms
    def mass_matrix(self, q) -> np.ndarray:
        """Block-diagonal M(q) (n, n), eqs. (16)-(28) and (134)."""
        M = np.zeros((self.n, self.n))
        for i, b in enumerate(self.bodies):
            s = self.body_slice(i)
            M[s, s] = planar_body_mass_matrix(b.inv, q[s][2], q[s][3:])
        return M

    def forces(self, q, qd) -> np.ndarray:
        """Q_v + Q_g - K q (n,): quadratic velocity (eq. (30)), gravity (eq. (33)) and
        elastic forces (eqs. (36)-(38))."""
        Q = np.zeros(self.n)
        g = self.gravity
        for i, b in enumerate(self.bodies):
            s = self.body_slice(i)
            qi, vi = q[s], qd[s]
            th, qf = qi[2], qi[3:]
            A, At = _rot(th)
            Qi = planar_quadratic_velocity(b.inv, th, vi[2], qf, vi[3:])
            first = b.inv.I1 + b.inv.S_bar @ qf
            Qi[0:2] += b.inv.mass * g
            Qi[2] += (At @ first) @ g
            Qi[3:] += (A @ b.inv.S_bar).T @ g - b.K @ qf
            Q[s] += Qi
        return Q

    # ------------------------------------------------------------------ markers
    def _shape_at(self, i: int, x: float):
        key = (i, x)
        hit = self._shape_cache.get(key)
        if hit is None:
            b = self.bodies[i]
            xi = min(max(x / b.length, 0.0), 1.0)
            S = b.shape(xi)
            slope = b.shape(xi, derivative=1)[1] / b.length
            hit = (S, slope)
            self._shape_cache[key] = hit
        return hit

    def marker(self, m: Marker, q, qd=None) -> _MarkerState:
        n = self.n
        Jr, Jphi = np.zeros((2, n)), np.zeros(n)
        if m.body < 0:
            p = np.asarray(m.point, dtype=float)
            return _MarkerState(p, float(m.angle), Jr, Jphi, np.zeros(2))
        b, s = self.bodies[m.body], self.body_slice(m.body)
        qi = q[s]
        th = qi[2]
        A, At = _rot(th)
        u = np.asarray(m.point, dtype=float).copy()
        phi = th + m.angle
        o = self.offsets[m.body]
        Jr[:, o:o + 2] = np.eye(2)
        Jphi[o + 2] = 1.0
        if b.shape is not None:
            S, slope = self._shape_at(m.body, float(m.point[0]))
            qf = qi[3:]
            u = u + S @ qf
            phi = phi + slope @ qf
            Jr[:, o + 3:o + b.n] = A @ S
            Jphi[o + 3:o + b.n] = slope
        Jr[:, o + 2] = At @ u
        r = qi[0:2] + A @ u
        st = _MarkerState(r, float(phi), Jr, Jphi, np.zeros(2))
        if qd is not None:
            vi = qd[s]
            w = vi[2]
            st.rd = Jr @ qd
            st.phid = float(Jphi @ qd)
            # r_dd = R_dd + A_theta u th_dd + A S qf_dd  - A u w^2 + 2 A_theta S qf_d w
            ar = -A @ u * w * w
            if b.shape is not None:
                ar = ar + 2.0 * w * (At @ (S @ vi[3:]))
            st.ar = ar
        return st

    # ------------------------------------------------------------------ joints
    def _joint_terms(self, j: Joint, q, qd=None):
        """(C (k,), C_q (k, n), quadratic part of C_dd (k,) or None) of one joint."""
        A = self.marker(j.a, q, qd)
        B = self.marker(j.b, q, qd)
        d = B.r - A.r
        Jd = B.Jr - A.Jr
        if j.kind in ("revolute", "rigid"):
            C = [d[0], d[1]]
            Cq = [Jd[0], Jd[1]]
            quad = None if qd is None else list(B.ar - A.ar)
            if j.kind == "rigid":
                C.append(B.phi - A.phi - j.angle0)
                Cq.append(B.Jphi - A.Jphi)
                if quad is not None:
                    quad.append(0.0)
            return np.array(C), np.array(Cq), (None if quad is None else np.array(quad))
        # prismatic: angle kept, b's point on a's line
        t = np.array([np.cos(A.phi), np.sin(A.phi)])
        nv = np.array([-t[1], t[0]])
        C = np.array([B.phi - A.phi - j.angle0, nv @ d])
        Cq = np.array([B.Jphi - A.Jphi, -(t @ d) * A.Jphi + nv @ Jd])
        quad = None
        if qd is not None:
            dd = B.rd - A.rd
            w = A.phid
            quad = np.array([0.0, -(nv @ d) * w * w - 2.0 * (t @ dd) * w + nv @ (B.ar - A.ar)])
        return C, Cq, quad

    def _joint_coordinate(self, j: Joint, q, qd=None):
        """(value, Jacobian (n,), quadratic part of its second derivative or None)."""
        A = self.marker(j.a, q, qd)
        B = self.marker(j.b, q, qd)
        if j.kind == "revolute":
            return B.phi - A.phi - j.offset, B.Jphi - A.Jphi, (None if qd is None else 0.0)
        t = np.array([np.cos(A.phi), np.sin(A.phi)])
        nv = np.array([-t[1], t[0]])
        d = B.r - A.r
        val = t @ d - j.offset
        J = (nv @ d) * A.Jphi + t @ (B.Jr - A.Jr)
        quad = None
        if qd is not None:
            dd = B.rd - A.rd
            w = A.phid
            quad = t @ (B.ar - A.ar) + 2.0 * (nv @ dd) * w - (t @ d) * w * w
        return val, J, quad

    def constraints(self, q, qd=None):
        """C (n_c,), C_q (n_c, n) and, with velocities, gamma = -quadratic part of C_dd."""
        Cs, Js, gs = [], [], []
        for j in self.joints:
            C, Cq, quad = self._joint_terms(j, q, qd)
            Cs.append(C)
            Js.append(Cq)
            if qd is not None:
                gs.append(-quad)
        C = np.concatenate(Cs) if Cs else np.zeros(0)
        Cq = np.vstack(Js) if Js else np.zeros((0, self.n))
        return (C, Cq) if qd is None else (C, Cq, np.concatenate(gs) if gs else np.zeros(0))

    def actuated_coordinates(self, q, qd=None):
        """Actuated joint coordinates (n_a,), their Jacobian (n_a, n) and, with
        velocities, gamma (n_a,)."""
        vals, Js, gs = [], [], []
        for a in self._act:
            v, J, quad = self._joint_coordinate(self.joints[a], q, qd)
            vals.append(v)
            Js.append(J)
            if qd is not None:
                gs.append(-quad)
        out = (np.array(vals), np.array(Js).reshape(len(vals), self.n))
        return out if qd is None else out + (np.array(gs),)

    def joint_coordinates(self, q) -> dict:
        """Every joint coordinate (revolute and prismatic) at q, by name."""
        return {j.name: float(self._joint_coordinate(j, q)[0]) for j in self.joints
                if j.kind != "rigid"}

    # ------------------------------------------------------------------ closure
    def _phi(self, q, s):
        C, Cq = self.constraints(q)
        a, Ja = self.actuated_coordinates(q)
        return np.concatenate([C, a - s]), np.vstack([Cq, Ja])

    def dependent_jacobian(self, q) -> np.ndarray:
        """Jacobian of [C; actuated coordinates] over the reference coordinates (square):
        singular where the actuated coordinates no longer fix the rigid motion
        (a direct-kinematics singularity of the mechanism)."""
        return self._phi(q, np.zeros(self.n_actuated))[1][:, self.ref_index]

    def close(self, q_guess, s, qf=None, *, tol: float = 1e-12, max_iter: int = 30):
        """Positions: the reference coordinates that satisfy C = 0 with actuated
        coordinates ``s`` and elastic coordinates ``qf`` (default: those of q_guess), by
        Newton from ``q_guess``. Converged when |Phi| < tol (m or rad).

        Raises
        ------
        SingularConfiguration
            Newton does not converge (a singular configuration or no assembly).
        """
        q = np.array(q_guess, dtype=float)
        if qf is not None:
            q[self.el_index] = qf
        s = np.asarray(s, dtype=float)
        r = None
        for _ in range(max_iter):
            r, J = self._phi(q, s)
            if np.abs(r).max(initial=0.0) < tol:
                return q
            Jd = J[:, self.ref_index]
            try:
                dq = np.linalg.solve(Jd, -r)
            except np.linalg.LinAlgError:
                raise SingularConfiguration("the constraint Jacobian of the dependent "
                                            "coordinates is singular") from None
            q[self.ref_index] += dq
        raise SingularConfiguration(f"loop closure did not converge in {max_iter} Newton "
                                    f"steps (residual {np.abs(r).max():.3g}): a singular "
                                    "configuration or no assembly")

    def velocity_map(self, q):
        """N (n, n_a + n_e): q_dot = N [s_dot; qf_dot] on the constraints (eqs. (95)-(99))."""
        _, J = self._phi(q, np.zeros(self.n_actuated))
        Jd = J[:, self.ref_index]
        na, ne = self.n_actuated, self.n_elastic
        rhs = np.zeros((J.shape[0], na + ne))
        rhs[self.n_c:, :na] = np.eye(na)
        rhs[:, na:] = -J[:, self.el_index]
        N = np.zeros((self.n, na + ne))
        N[self.ref_index] = np.linalg.solve(Jd, rhs)
        N[self.el_index, na:] = np.eye(ne)
        return N

    def convective(self, q, qd) -> np.ndarray:
        """nu (n,): q_dd = N v_dd + nu on the constraints (eqs. (100)-(104))."""
        _, Cq, gc = self.constraints(q, qd)
        _, Ja, ga = self.actuated_coordinates(q, qd)
        J = np.vstack([Cq, Ja])
        nu = np.zeros(self.n)
        nu[self.ref_index] = np.linalg.solve(J[:, self.ref_index], np.concatenate([gc, ga]))
        return nu

    def reduced(self, q, v):
        """The partitioned equations in the independent coordinates (eqs. (105)-(106)):
        ``M_r v_dd + c_r = [tau; 0]`` with M_r = N^T M N, c_r = N^T (M nu - Q), at the
        independent rates ``v = [s_dot; qf_dot]``. Returns (M_r, c_r, N, q_dot)."""
        N = self.velocity_map(q)
        qd = N @ np.asarray(v, dtype=float)
        M = self.mass_matrix(q)
        nu = self.convective(q, qd)
        Q = self.forces(q, qd)
        return N.T @ M @ N, N.T @ (M @ nu - Q), N, qd

    # ------------------------------------------------------------------ augmented
    def accelerations(self, q, qd, tau=None, *, driven: bool = False):
        """Accelerations (n,) and multipliers from the augmented system (eqs. (43)-(44)):
        ``[[M, Phi_q^T], [Phi_q, 0]] [q_dd; lambda] = [Q + J_a^T tau; gamma]``. Force
        driven (``driven`` False): Phi = C and the efforts ``tau`` act along the actuated
        coordinates; motion driven: Phi also holds the actuated coordinates, whose
        accelerations are then ``tau`` (the prescribed ones)."""
        M = self.mass_matrix(q)
        Q = self.forces(q, qd)
        _, Cq, gc = self.constraints(q, qd)
        _, Ja, ga = self.actuated_coordinates(q, qd)
        na = self.n_actuated
        tau = np.zeros(na) if tau is None else np.asarray(tau, dtype=float)
        if driven:
            P, g = np.vstack([Cq, Ja]), np.concatenate([gc, ga + tau])
        else:
            P, g = Cq, gc
            Q = Q + Ja.T @ tau
        k = P.shape[0]
        A = np.zeros((self.n + k, self.n + k))
        A[:self.n, :self.n] = M
        A[:self.n, self.n:] = P.T
        A[self.n:, :self.n] = P
        try:
            x = np.linalg.solve(A, np.concatenate([Q, g]))
        except np.linalg.LinAlgError:
            raise SingularConfiguration("the augmented matrix is singular (redundant "
                                        "constraints or a mass-less motion)") from None
        return x[:self.n], x[self.n:]

    def project(self, q, qd, *, driven_s=None, tol: float = 1e-12, max_iter: int = 20):
        """Positions and velocities projected onto the constraint manifold: the
        minimum-norm corrections ``dq = -P^T (P P^T)^-1 Phi`` (Gauss-Newton, until |Phi|
        < tol) and ``qd -= P^T (P P^T)^-1 P qd`` (with ``driven_s`` = (s, s_dot), the
        actuated coordinates are held on them too)."""
        q = np.array(q, dtype=float)
        for _ in range(max_iter):
            C, P = self.constraints(q)
            if driven_s is not None:
                a, Ja = self.actuated_coordinates(q)
                C, P = np.concatenate([C, a - driven_s[0]]), np.vstack([P, Ja])
            if np.abs(C).max(initial=0.0) < tol:
                break
            q -= P.T @ np.linalg.solve(P @ P.T, C)
        else:
            raise SingularConfiguration("projection onto the constraints did not converge")
        C, P = self.constraints(q)
        rhs = np.zeros(P.shape[0])
        if driven_s is not None:
            _, Ja = self.actuated_coordinates(q)
            P = np.vstack([P, Ja])
            rhs = np.concatenate([rhs, np.asarray(driven_s[1], dtype=float)])
        qd = np.asarray(qd, dtype=float)
        qd = qd - P.T @ np.linalg.solve(P @ P.T, P @ qd - rhs)
        return q, qd

    # ------------------------------------------------------------------ energy
    def energy(self, q, qd) -> tuple[float, float, float]:
        """Kinetic, elastic and gravity potential energy [J]."""
        T = 0.5 * qd @ self.mass_matrix(q) @ qd
        qf = q[self.el_index]
        U = 0.5 * qf @ self._Kel @ qf
        V = 0.0
        for i, b in enumerate(self.bodies):
            s = self.body_slice(i)
            A, _ = _rot(q[s][2])
            first = b.inv.I1 + b.inv.S_bar @ q[s][3:]
            V -= self.gravity @ (b.inv.mass * q[s][0:2] + A @ first)
        return float(T), float(U), float(V)
