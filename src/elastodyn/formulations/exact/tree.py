"""Planar tree and closed-loop robots (the ``tree`` family: Briot's five-bar, Rosyid's
3-PRR, Simeon's slider crank, a user's planar mechanism) of geometrically exact beams
(issue 31).

The structure. The joints of the description (modified Denavit-Hartenberg rows,
:mod:`elastodyn.description.tree`) place frames; a flexible beam lies along the x axis
of its joint's frame, clamped there, and is a chain of planar corotational elements
(:class:`~elastodyn.fem.planar_corotational.PlanarCorotationalBeam`, consistent
inertia; ``elements`` per beam, plus a node wherever a child joint is attached); a
child of a beam is attached at its node and follows its displacement and rotation; a
rigid body (and the platform, carried by the first leg's terminal frame) is a point
mass at its centre of mass with its rotary inertia about the plane's normal; motor
inertias and joint friction act on the joint variables. Gravity: its component in the
plane (an out-of-plane component is carried by the joints of a planar robot).

The coordinates of the contract, q_c = (q_a, e):

* q_a: the actuated joint variables [rad or m];
* e: for every beam, per node but its root, the displacement (u, v) [m] and the
  rotation r [rad] in the frame of its joint, from the node's place on the straight
  beam: small while the beam bends little, whatever the robot's motion.

The passive joint variables q_p follow from the loop closure g(q_a, q_p, e) = 0 (the
legs' terminal frames coincide in the closure rows, :class:`~elastodyn.description.
tree.TreeRobot`), solved by Newton (:func:`~elastodyn.kinematics.closure.close_loops`)
at every evaluation, to 1e-12 m: the loops hold exactly, with the beams' deformation
in them, and there are no multipliers and no drift (generalized coordinate
partitioning: R. A. Wehage, E. J. Haug, J. Mech. Des. 104, 1982). Its derivatives are
exact: with y = q_c, P = dq_p/dy = -g_p^-1 g_y, and the second derivatives
d2q_p/dy2 = -g_p^-1 (the second derivative of g along (I; P) with q_p's own second
derivative left out) (the implicit function theorem, differentiated twice). The
node coordinates of the structure are then an exact function q_s = Phi(q_c) with its
first and second derivatives G, H from one pass of second-order jets over (y, q_p)
(:mod:`elastodyn.fem.jets`), and Lagrange's equations are those of the planar arm
(:mod:`elastodyn.formulations.exact.arm`):

    M_c = G^T M_s G + G_j^T J_m G_j,
    c_c = G^T (M_s (qd^T H qd) + h_s + dV/dq_s) + G_j^T (J_m (qd^T H_j qd) + f(G_j qd)),

G_j, H_j the derivatives of the joint variables, J_m the motor inertias and f the
joint friction (viscous, Coulomb smoothed as :class:`~elastodyn.description.friction.
Friction` does: tanh at 1e-3 rad/s or m/s).

Decisions:

* The description's ``elements``, ``shapes`` and ``geometric_stiffening`` are the
  discretization of the linear formulations; this one has its own (``--elements``) and
  is always geometrically exact (stiffening, shortening and large rotations in the
  element frames).
* A beam with given mass properties (Rosyid's links) carries their quadratic density
  (:func:`~elastodyn.fem.ffrf.fitted_mass_per_length`), as the FFRF formulation does,
  at the elements' Gauss points.
* Planar beams only (a spatial beam, or a robot whose closure rows are not a plane, is
  not taken: ``applies``); the Delta's spatial beams are in :mod:`.delta`.

Units: SI, rad.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...description.friction import Friction
from ...description.tree import FlexibleBeam, RigidBody, TreeRobot
from ...exceptions import InputError, ModelError
from ...fem import jets
from ...fem.ffrf import fitted_mass_per_length
from ...fem.planar_corotational import (PlanarBeamStructure, PlanarCorotationalBeam,
                                        chord_midspan)
from ...kinematics.closure import CLOSURE_MAX_ITER, ClosureError, close_loops
from ...model import Coordinates, State
from ..base import NONLINEAR_CAPABILITIES
from .engine import CONTROLLERS, ExactModel

__all__ = ["ExactTreeModel"]

_TOL = 1e-9
"""Tolerance of the planarity checks (unit vectors' components): far above the
round-off of the home placement (1e-16 per product), far below any tilt a description
means."""

MAX_CONTINUATION = 400
"""Most continuation steps of one loop closure (20 rad or m from the last solution or
home): coordinates farther than that from both (1e300 from a careless input, or a
diverging Newton iterate of the statics) are no pose of the robot; the closure fails by
name instead of taking 1e302 steps."""

BRANCH_STEP = 0.05
"""Largest change of the contract's coordinates [rad or m] between two loop closures
(the last solution and a new one, or the steps of a continuation): a twentieth of a
radian, 5 cm, well inside the basin of Newton's method on the assembly branch for
links of 0.1 m and more (a far start may converge to another assembly mode)."""


def _rigidified(robot: TreeRobot) -> TreeRobot:
    """The robot with every beam a rigid body of its mass properties (mass, centre of
    mass on its axis, rotary inertia about the centre of mass about z: the given
    ``mass_properties``, else rho A L at L / 2 and m L^2 / 12): the rigid counterpart
    of a force-driven run."""
    bodies = {}
    for j, b in robot.bodies.items():
        if isinstance(b, FlexibleBeam):
            if b.mass_properties is not None:
                m, xc, Ic = (float(np.real(v)) for v in b.mass_properties)
            else:
                m, xc = float(b.mass), 0.5 * float(b.length)
                Ic = m * float(b.length) ** 2 / 12.0
            Iz = Ic + m * xc * xc
            b = RigidBody(m, (m * xc, 0.0, 0.0), ((0.0, 0.0, 0.0), (0.0, Iz, 0.0),
                                                  (0.0, 0.0, Iz)))
        bodies[j] = b
    return replace(robot, bodies=bodies)


def _turn(R, c, s):
    """R Rot(z, angle) from its cosine and sine (R (3, 3), c and s scalars; arrays or
    jets): the columns x' = c x + s y, y' = -s x + c y, z' = z."""
    x, y = R[:, 0], R[:, 1]
    return np.stack([c * x + s * y, c * y - s * x, R[:, 2]], axis=-1)


def _flat(x):
    """x (a scalar or an array; number or jet) as a 1-D vector."""
    return x.reshape(-1) if isinstance(x, jets.Jet) else np.atleast_1d(np.asarray(x)).reshape(-1)


def _cat(parts):
    """The 1-D parts (jets or arrays) end to end."""
    return np.concatenate(parts) if parts else np.zeros(0)


def _angle(v, e1, e2):
    """The angle of the in-plane vector v (3,) (array or jet) from e1 toward e2 [rad].
    A jet's angle is theta0 + u, theta0 = atan2 of the values and u = tan(angle -
    theta0) (zero value: atan(u) = u to second order), exact in its first and second
    derivatives without an atan2 of jets."""
    a = np.einsum("...i,i->...", v, e1)
    b = np.einsum("...i,i->...", v, e2)
    if not isinstance(a, jets.Jet):
        return math.atan2(float(b), float(a))
    t0 = math.atan2(float(np.real(b.v)), float(np.real(a.v)))
    c, s = math.cos(t0), math.sin(t0)
    return t0 + (b * c - a * s) / (a * c + b * s)


class ExactTreeModel(ExactModel):
    """A planar TreeRobot of geometrically exact beams (module docstring).

    Parameters
    ----------
    robot : TreeRobot
        Planar (closure rows of a plane), planar beams.
    options : dict
        ``elements``: elements per beam, integer in [1, 64] (default 4).
    """

    formulation = "exact"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "energy", "simulate_controlled",
                                             "simulate_efforts", "held_start",
                                             "step_error_estimate"}
    controllers = CONTROLLERS
    default_preload = False

    def __init__(self, robot: TreeRobot, options: dict | None = None):
        if not isinstance(robot, TreeRobot):
            raise InputError("robot", type(robot).__name__, "a TreeRobot")
        self.robot = robot
        self.options = {"elements": 4, **dict(options or {})}
        ne = self.options["elements"]
        if isinstance(ne, bool) or not isinstance(ne, (int, np.integer)) or not 1 <= ne <= 64:
            raise InputError("--elements", ne, "an integer in [1, 64]")
        ne = int(ne)
        self._rigid_links = bool(self.options.get("rigid", False))
        if self._rigid_links:
            robot = _rigidified(robot)
        plane = robot.plane()
        if plane is None:
            raise InputError("closure", list(robot.closure_rows),
                             "the three rows of a plane (the exact tree model is planar)")
        self._e1, self._e2, self._n = plane
        J = robot.joints
        self._A = [jt.placement() for jt in J]
        self._var = [jt.kind != "fixed" for jt in J]
        names = [jt.name for jt in J]
        act = [j for j, jt in enumerate(J, 1) if jt.kind != "fixed" and jt.actuated]
        pas = [j for j, jt in enumerate(J, 1) if jt.kind != "fixed" and not jt.actuated]
        self._act, self._pas = act, pas
        self._home_q = {j: float(robot.home.get(J[j - 1].name, 0.0)) for j in act + pas}
        # the home placement: frames of the rigid robot
        R0, p0 = self._rigid_frames({j: self._home_q.get(j, 0.0) for j in range(1, len(J) + 1)})
        nrm = self._n
        for j, jt in enumerate(J, 1):
            z = R0[j][:, 2]
            if jt.kind == "revolute" and abs(abs(z @ nrm) - 1.0) > _TOL:
                raise InputError(f"joints.{jt.name}", "axis",
                                 "a revolute axis normal to the plane (planar robot)")
            if jt.kind == "prismatic" and abs(z @ nrm) > _TOL:
                raise InputError(f"joints.{jt.name}", "axis", "a prismatic axis in the plane")
        # beams: stations (a node wherever a child is attached) and their elements
        children = {}
        for j, jt in enumerate(J, 1):
            children.setdefault(jt.antecedent, []).append(j)
        self._beams = {}          # joint -> (stations s (nn + 1,), elastic indices (nn, 3))
        self._attach = {}         # child joint -> (beam joint, node index)
        nodes2, elements, masses = [], [], []
        coord_names, coord_units = [names[j - 1] for j in act], [
            "m" if J[j - 1].kind == "prismatic" else "rad" for j in act]
        for j, body in sorted(robot.bodies.items()):
            if not isinstance(body, FlexibleBeam):
                continue
            if body.spatial:
                raise InputError(f"bodies.{names[j - 1]}.beam.spatial", True,
                                 "planar beams (the exact tree model is planar)")
            R = R0[j]
            if abs(R[:, 0] @ nrm) > _TOL or abs(abs(R[:, 2] @ nrm) - 1.0) > _TOL:
                raise InputError(f"bodies.{names[j - 1]}.beam", "orientation",
                                 "a beam along x of its frame, bending in the plane")
            L = float(body.length)
            st = set(np.round(np.linspace(0.0, L, ne + 1), 12))
            for c in children.get(j, []):
                Ap = self._A[c - 1][:3, 3]
                if abs(Ap[1]) > _TOL * max(1.0, L) or abs(Ap[2]) > _TOL * max(1.0, L) or \
                        not -_TOL <= Ap[0] <= L * (1 + _TOL):
                    raise InputError(f"joints.{names[c - 1]}", Ap.tolist(),
                                     "a joint carried by a beam on its axis, 0 <= d <= L")
                st.add(round(min(max(float(Ap[0]), 0.0), L), 12))
            s = np.array(sorted(st))
            for c in children.get(j, []):
                self._attach[c] = (j, int(np.argmin(np.abs(s - self._A[c - 1][0, 3]))))
            first = len(coord_names)
            idx = first + np.arange(3 * (len(s) - 1)).reshape(-1, 3)
            for k in range(1, len(s)):
                coord_names += [f"{names[j - 1]}.u{k}", f"{names[j - 1]}.v{k}",
                                f"{names[j - 1]}.r{k}"]
                coord_units += ["m", "m", "rad"]
            self._beams[j] = (s, idx, float(np.sign(R[:, 2] @ nrm)))
            mp = body.mass_properties
            mu = None if mp is None else fitted_mass_per_length(
                L, *(float(np.real(v)) for v in mp))
            n0 = len(nodes2)
            for sk in s:
                x = p0[j] + R[:, 0] * sk
                nodes2.append((x @ self._e1, x @ self._e2))
            for k in range(len(s) - 1):
                a, b = s[k], s[k + 1]
                dens = None if mu is None else (
                    lambda xi, a=a, b=b: mu((a + xi * (b - a)) / L))
                elements.append((n0 + k, n0 + k + 1, PlanarCorotationalBeam.of(
                    b - a, body.section, body.material, density=dens)))
        if not elements and not self._rigid_links:
            raise InputError("bodies", "no flexible beam",
                             "at least one beam (a rigid robot has its own formulation)")
        # rigid bodies and the platform: point masses at their centres of mass
        self._rigid = []          # (joint, centre in the frame (3,), in-plane axis index)
        rigid = [(j, b) for j, b in sorted(robot.bodies.items()) if isinstance(b, RigidBody)]
        rigid.append((robot.terminals[0], robot.platform))
        for j, b in rigid:
            m = float(b.mass)
            ms, I = np.asarray(b.ms, dtype=float), np.asarray(b.inertia, dtype=float)
            R = R0[j]
            nb = R.T @ nrm
            ax = int(np.argmin(np.abs(nb)))
            if m <= 0 and not np.any(I):
                continue
            c = ms / m if m > 0 else np.zeros(3)
            cp = c - (c @ nb) * nb
            Jc = float(nb @ I @ nb - m * (cp @ cp))
            if Jc < -1e-12 * max(1.0, float(np.abs(I).max())):
                raise InputError(f"bodies.{names[j - 1]}.inertia", float(nb @ I @ nb),
                                 "an inertia about the plane's normal of at least m |c|^2")
            x = p0[j] + R @ c
            nodes2.append((x @ self._e1, x @ self._e2))
            masses.append((len(nodes2) - 1, m, max(Jc, 0.0)))
            self._rigid.append((j, c, ax))
        self.x0 = np.array(nodes2, dtype=float)
        g = np.asarray(robot.gravity, dtype=float)
        g2 = (float(g @ self._e1), float(g @ self._e2))
        self.structure = PlanarBeamStructure(self.x0, elements, masses, gravity=g2)
        self._elastic = PlanarBeamStructure(self.x0, elements, masses)
        # joint variables: motor inertia and friction
        self._jvars = act + pas
        self._jm = np.array([float(robot.motor_inertia.get(names[j - 1], 0.0))
                             for j in self._jvars])
        self._friction = [Friction(viscous=float(robot.viscous.get(names[j - 1], 0.0)),
                                   coulomb=float(robot.coulomb.get(names[j - 1], 0.0)))
                          for j in self._jvars]
        self._has_friction = any(not f.is_zero for f in self._friction)
        na = len(act)
        self.coordinates = Coordinates(tuple(coord_names), tuple(coord_units),
                                       ("actuated",) * na + ("elastic",) * (len(coord_names) - na))
        self._rows = tuple(sorted(robot.closure_rows))
        ee = robot.end_effector
        self._ee = names.index(ee[0]) + 1 if ee else robot.terminals[0]
        self._axial = max((e.ea / e.length for _, _, e in elements), default=0.0)
        # the nodes' distance from the base origin (the residual floor's scale)
        self._reach = float(np.abs(self.x0).max())
        self._qp_home = np.array([self._home_q[j] for j in pas])
        self._y_home = np.concatenate([self.home_actuated(), np.zeros(self.n_elastic)])
        self._last = (self._y_home, self._qp_home, None)
        self._memo = None
        self._Kel = None
        # the placement's node values (x, y, theta), subtracted from the walk's to give
        # the structure's unknowns (its angles are the walk's own, branch included)
        n3 = self.structure.dof
        home, _ = self._walk(self._y_home, self._qp_home)
        self._zero = np.asarray(home[:n3], dtype=float)
        scale = max(1.0, self._reach)
        if np.abs(self._zero.reshape(-1, 3)[:, :2] - self.x0).max() > 1e-9 * scale:
            raise ModelError("exact tree: the placement's nodes disagree (internal)")
        if len(pas) and np.abs(home[n3 + len(self._jvars):]).max() > 1e-6 * scale:
            raise InputError("home", dict(robot.home), "an assembled configuration of the "
                             "rigid robot (the loops close at home)")

    # ------------------------------------------------------------------ kinematics
    def home_actuated(self) -> np.ndarray:
        return np.array([self._home_q[j] for j in self._act])

    def _rigid_frames(self, q):
        """Frames (R, p) of every joint of the rigid robot at joint values q {j: value}."""
        Rs, ps = {0: np.eye(3)}, {0: np.zeros(3)}
        for j, jt in enumerate(self.robot.joints, 1):
            Rs[j], ps[j] = self._step(Rs[jt.antecedent], ps[jt.antecedent], j, q.get(j, 0.0))
        return Rs, ps

    def _step(self, R, p, j, q):
        """Frame j from its antecedent's frame (R, p) (as deformed there) and its
        variable q (arrays or jets)."""
        jt = self.robot.joints[j - 1]
        A = self._A[j - 1]
        B = np.einsum("ij,jk->ik", R, A[:3, :3])
        o = p + np.einsum("ij,j->i", R, A[:3, 3])
        th = jt.theta + (q if jt.kind == "revolute" else 0.0)
        Rn = _turn(B, np.cos(th), np.sin(th))
        r = jt.r + (q if jt.kind == "prismatic" else 0.0)
        return Rn, o + r * Rn[:, 2]

    def _walk(self, y, qp, closure_only: bool = False):
        """The robot at contract coordinates y (n,) and passive variables qp (m,)
        (arrays or jets over one set of variables): (the structure's node unknowns
        (3 N,) then the joint variables (n_j,) then the closure residual (m,), as one
        vector; the end-effector position (3,)). ``closure_only``: the vector is the
        closure residual alone."""
        frames, qv = self._frames_of(y, qp)
        # the loops: the terminal frames equal the first one's in the closure rows
        # (positions; the rotation vector of R_k R_1^T, sin of the angle in a plane)
        terms = self.robot.terminals
        R1, p1 = frames[terms[0]]
        res = []
        for t in terms[1:]:
            Rk, pk = frames[t]
            Mx = np.einsum("ij,kj->ik", Rk, R1)
            w = (0.5 * (Mx[2, 1] - Mx[1, 2]), 0.5 * (Mx[0, 2] - Mx[2, 0]),
                 0.5 * (Mx[1, 0] - Mx[0, 1]))
            d = pk - p1
            res += [d[r] if r < 3 else w[r - 3] for r in self._rows]
        ee = frames[self._ee][1]
        res = [_flat(x) for x in res]
        if closure_only:
            return _cat(res), ee
        e1, e2 = self._e1, self._e2
        out = []
        for j, (s, idx, sg) in self._beams.items():
            R, p = frames[j]
            th = _angle(R[:, 0], e1, e2)
            E = y[idx.reshape(-1)].reshape(len(s) - 1, 3)
            su = s[1:] + E[:, 0]
            pts = (p.reshape(1, 3) + R[:, 0].reshape(1, 3) * su.reshape(-1, 1)
                   + R[:, 1].reshape(1, 3) * E[:, 1].reshape(-1, 1))          # (nn, 3)
            out += [_flat(np.einsum("i,i->", p, e1)), _flat(np.einsum("i,i->", p, e2)),
                    _flat(th)]
            xy = np.stack([np.einsum("ki,i->k", pts, e1), np.einsum("ki,i->k", pts, e2),
                           th + sg * E[:, 2]], axis=-1)
            out.append(xy.reshape(-1))
        for j, c, ax in self._rigid:
            R, p = frames[j]
            x = p + np.einsum("ij,j->i", R, c)
            out += [_flat(np.einsum("i,i->", x, e1)), _flat(np.einsum("i,i->", x, e2)),
                    _flat(_angle(R[:, ax], e1, e2))]
        out += [_flat(qv[j]) for j in self._jvars]
        return _cat(out + res), ee

    def _close(self, y, guess=None) -> np.ndarray:
        """The passive joint variables (m,) at contract coordinates y (module
        docstring), on the assembly branch of home: by Newton from the last solution
        (its first-order prediction where the last evaluation linearized there) when y
        is within :data:`BRANCH_STEP` of it, else by continuation from the nearer of
        the last solution and home in steps of at most :data:`BRANCH_STEP` (a far start
        could converge to another assembly: the slider crank's rod folded back). A
        ClosureError (a ModelError) names the coordinates where the loops do not close
        (a singular configuration, out of reach)."""
        m = len(self._pas)
        if m == 0:
            return np.zeros(0)
        y = np.asarray(y, dtype=float)

        def attempt(yy, start):
            def res(qp):
                r, _ = self._walk(yy, jets.variables(qp, order=1), closure_only=True)
                return r.v, r.g
            x = close_loops(res, start, what="the passive joints").x
            # one more Newton step: the solution to round-off, not to the tolerance
            # (the passive joints' error would enter every difference quotient of the
            # model's terms amplified by the closure's second derivatives)
            r, Jr = res(x)
            return x - np.linalg.solve(Jr, r)

        if guess is not None:
            qp = attempt(y, np.asarray(guess, dtype=float))
            self._last = (y.copy(), qp, None)
            return qp
        y1, qp1, P = self._last
        far = float(np.abs(y - y1).max())
        qp = None
        if far <= BRANCH_STEP:
            try:
                qp = attempt(y, qp1 + P @ (y - y1) if P is not None else qp1)
            except ClosureError:
                qp = None
        if qp is None:
            home = (self._y_home, self._qp_home)
            starts = sorted([(y1, qp1), home], key=lambda b: float(np.abs(y - b[0]).max()))
            for y0, q0 in starts:
                steps = max(1, math.ceil(float(np.abs(y - y0).max()) / BRANCH_STEP))
                if not steps <= MAX_CONTINUATION:
                    continue        # out of any continuation's reach (or not finite)
                try:
                    qp = q0
                    for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
                        qp = attempt(y0 + t * (y - y0), qp)
                    break
                except ClosureError:
                    qp = None
            if qp is None:
                raise ClosureError(
                    f"the passive joints at {np.round(y[:self.n_actuated], 6).tolist()}",
                    float("nan"), CLOSURE_MAX_ITER, "no convergence by continuation from "
                    "the last solution or from home", "a singular configuration, or out "
                    "of the workspace?")
        self._last = (y.copy(), qp, None)
        return qp

    def _map_rates(self, y, v):
        """(q_s, G, H v v (3 N,), joint variables, G_j, H_j v v) at (y, v): the residual's
        terms without the full second derivatives: one first-order jet pass over
        (y, q_p) and one second-order pass along the rates (y + t v, q_p + t P v), the
        closure's own second derivative along them from the implicit function theorem
        (module docstring)."""
        n, m = self.n, len(self._pas)
        qp = self._close(y)
        z = jets.variables(np.concatenate([y, qp]), order=1)
        out, _ = self._walk(z[:n], z[n:])
        val = np.asarray(out.v, dtype=float)
        g = jets.gradient(out, n + m)
        ns = self.structure.dof + len(self._jvars)
        Pv = np.zeros(0)
        if m:
            Gc = g[ns:]
            try:
                P = -np.linalg.solve(Gc[:, n:], Gc[:, :n])
            except np.linalg.LinAlgError:
                raise ModelError("exact: the loop closure is singular at "
                                 f"{np.round(y[:self.n_actuated], 6).tolist()} (a "
                                 "singular configuration)") from None
            self._last = (np.array(y, dtype=float), qp, P)
            G = g[:, :n] + g[:, n:] @ P
            Pv = P @ v
        else:
            G = g
        yt = jets.Jet(np.asarray(y, float), np.asarray(v, float)[:, None], np.zeros((n, 1, 1)))
        pt = jets.Jet(qp, Pv[:, None], np.zeros((m, 1, 1)))
        d2, _ = self._walk(yt, pt)
        acc = np.asarray(d2.H, dtype=float)[:, 0, 0]
        if m:
            acc = acc - g[:, n:] @ np.linalg.solve(Gc[:, n:], acc[ns:])
        N3 = self.structure.dof
        return (val[:N3] - self._zero, G[:N3], acc[:N3], val[N3:ns], G[N3:ns], acc[N3:ns])

    def _map(self, y):
        """(q_s (3 N,), G (3 N, n), H (3 N, n, n), joint variables (n_j,), G_j, H_j,
        passive variables (m,)) at y (module docstring: one second-order jet pass over
        (y, q_p), then the implicit function theorem)."""
        n, m = self.n, len(self._pas)
        qp = self._close(y)
        z = jets.variables(np.concatenate([y, qp]))
        out, _ = self._walk(z[:n], z[n:])
        val = np.asarray(out.v, dtype=float)
        g, H = jets.gradient(out, n + m), jets.hessian(out, n + m)
        ns = self.structure.dof + len(self._jvars)
        if m:
            gy, gp = g[:, :n], g[:, n:]
            Gc = g[ns:]                                       # the closure's rows
            try:
                P = -np.linalg.solve(Gc[:, n:], Gc[:, :n])    # dq_p/dy (m, n)
            except np.linalg.LinAlgError:
                raise ModelError("exact: the loop closure is singular at "
                                 f"{np.round(y[:self.n_actuated], 6).tolist()} (a "
                                 "singular configuration)") from None
            Hyy, Hyp, Hpp = H[:, :n, :n], H[:, :n, n:], H[:, n:, n:]
            HP = np.einsum("kij,jl->kil", Hyp, P)
            Ht = Hyy + HP + np.swapaxes(HP, 1, 2) + np.einsum("ji,kjl,lm->kim", P, Hpp, P)
            Qp = -np.linalg.solve(Gc[:, n:], Ht[ns:].reshape(m, n * n)).reshape(m, n, n)
            G = gy + gp @ P
            self._last = (np.array(y, dtype=float), qp, P)
            H = Ht + np.einsum("ki,inm->knm", gp, Qp)
        else:
            G = g
        N3 = self.structure.dof
        qs = val[:N3] - self._zero
        return (qs, G[:N3], H[:N3], val[N3:ns], G[N3:ns], H[N3:ns], qp)

    # ------------------------------------------------------------------ contract
    def _complete(self, st: State) -> State:
        """The passive joints and the end-effector position (base frame [m]) of a state."""
        q = np.asarray(np.real(st.q), dtype=float)
        qp = self._close(q)
        _, ee = self._walk(q, qp, closure_only=True)
        return st.with_(passive=qp, pose=np.asarray(ee, dtype=float))

    def _terms(self, st: State, full: bool = True):
        """The terms of the equations at ``st`` (module docstring; ``full`` for the
        engine's interface: this model always evaluates all of them)."""
        key = (st.q.tobytes(), st.v.tobytes())
        if self._memo is not None and self._memo[0] == key and (self._memo[2] or not full):
            return self._memo[1]
        v = st.v
        y = np.asarray(st.q, dtype=float)
        if full:
            qs, G, H, qj, Gj, Hj, _ = self._map(y)
            accb, Hjv = np.einsum("ijk,j,k->i", H, v, v), np.einsum("ijk,k->ij", Hj, v)
            accj = Hjv @ v
        else:       # a residual: the second derivatives along the rates only
            qs, G, accb, qj, Gj, accj = self._map_rates(y, v)
        V, grad, K, M, h, C = self.structure.evaluate(qs, G @ v)
        Mc = G.T @ M @ G
        cc = G.T @ (M @ accb + h + grad)
        out = {"qs": qs, "V": V, "M": Mc, "c": cc, "G": G}
        if full:
            # the exact Hessian of V o Phi; the velocity terms' tangent from the structure's
            out["K"] = G.T @ K @ G + np.einsum("i,ijk->jk", grad, H)
            out["C"] = G.T @ C @ G + 2.0 * G.T @ M @ np.einsum("ijk,k->ij", H, v)
        # motor inertias and friction on the joint variables
        if np.any(self._jm) or self._has_friction:
            qjd = Gj @ v
            f = np.array([float(fr.torque(w)) for fr, w in zip(self._friction, qjd)])
            Mc += Gj.T @ (self._jm[:, None] * Gj)
            cc += Gj.T @ (self._jm * accj + f)
            if full:
                # the friction's slope at the rates (central difference of its smoothed
                # law, 1e-9: 1e-6 of its smoothing rate)
                hh = 1e-9
                df = np.array([float(fr.torque(w + hh) - fr.torque(w - hh)) / (2 * hh)
                               for fr, w in zip(self._friction, qjd)])
                out["C"] += Gj.T @ ((2.0 * self._jm)[:, None] * Hjv + df[:, None] * Gj)
        self._memo = (key, out, full)
        return out

    def max_strain(self, state) -> float:
        """The largest fibre strain of the planar elements at ``state`` (axial plus
        bending, :meth:`~elastodyn.fem.planar_corotational.PlanarBeamStructure.max_strain`)."""
        return self.structure.max_strain(self._terms(state, full=False)["qs"])

    def elastic_stiffness(self) -> np.ndarray:
        """The linear stiffness over e at home (no gravity) (n_e, n_e)."""
        if self._Kel is None:
            y = np.concatenate([self.home_actuated(), np.zeros(self.n_elastic)])
            qs, G, H, *_ = self._map(y)
            _, grad, K, _, _, _ = self._elastic.evaluate(qs)
            Kc = G.T @ K @ G + np.einsum("i,ijk->jk", grad, H)
            self._Kel = Kc[self.n_actuated:, self.n_actuated:]
        return self._Kel

    # ------------------------------------------------------------------ force-driven runs
    def rigid_counterpart(self) -> "ExactTreeModel":
        """The same robot with rigid links of the beams' mass properties (the rigid run
        alongside a force-driven one)."""
        return ExactTreeModel(self.robot, {**self.options, "rigid": True})

    def closure_condition(self, q):
        """(sign of det g_p, condition number of g_p) at the contract's coordinates q:
        the loop closure's Jacobian over the passive joints (None without loops)."""
        if not self._pas:
            return None
        q = np.asarray(q, dtype=float)
        r, _ = self._walk(q, jets.variables(self._close(q), order=1), closure_only=True)
        gp = np.asarray(r.g, dtype=float)
        sign, _ = np.linalg.slogdet(gp)
        return float(sign), float(np.linalg.cond(gp))

    def closure_residual(self, q) -> float:
        """max |g| of the loop closure at the contract's coordinates q [m or rad] (the
        passive joints closed by Newton to round-off)."""
        if not self._pas:
            return 0.0
        q = np.asarray(q, dtype=float)
        r, _ = self._walk(q, self._close(q), closure_only=True)
        return float(np.abs(r).max())

    def pose_of(self, q) -> np.ndarray:
        """The end-effector's in-plane position (x, y) [m] (coordinates along the
        plane's base axes e1, e2) and orientation [rad] (the direction to the
        ``end_effector``'s second joint, else the platform frame's axis in the plane)."""
        q = np.asarray(q, dtype=float)
        frames = self._frames(q)
        ee = self.robot.end_effector
        p = frames[self._ee][1]
        if ee:
            d = frames[[j.name for j in self.robot.joints].index(ee[1]) + 1][1] - p
        else:
            R = frames[self._ee][0]
            d = R[:, int(np.argmin(np.abs(R.T @ self._n)))]
        return np.array([p @ self._e1, p @ self._e2, math.atan2(d @ self._e2, d @ self._e1)])

    def joint_positions(self, q) -> np.ndarray:
        """Positions (n_joints, 2) [m] of every joint frame's origin in the plane (the
        order of ``robot.joints``)."""
        frames = self._frames(np.asarray(q, dtype=float))
        return np.array([[frames[j][1] @ self._e1, frames[j][1] @ self._e2]
                         for j in range(1, len(self.robot.joints) + 1)])

    @property
    def joint_names(self) -> tuple:
        return tuple(j.name for j in self.robot.joints)

    @property
    def beam_names(self) -> tuple:
        return tuple(self.robot.joints[j - 1].name for j in self._beams)

    def midspan_deflections(self, q) -> np.ndarray:
        """The bending at mid-length (n_beams,) [m] of every beam from its chord
        (:func:`~elastodyn.fem.planar_corotational.chord_midspan`)."""
        q = np.asarray(q, dtype=float)
        return np.array([chord_midspan(s, q[idx.reshape(-1)].reshape(len(s) - 1, 3))
                         for s, idx, _ in self._beams.values()])

    def _frames(self, q):
        """Frames (R, p) of every joint at the contract's coordinates q (numbers)."""
        return self._frames_of(q, self._close(q))[0]

    def _frames_of(self, y, qp):
        """Frames {j: (R (3, 3), p (3,))} of every joint (0: the base) and the joint
        variables {j: value} at contract coordinates y and passive variables qp (arrays
        or jets): each frame from its antecedent's, which a beam's node displaces and
        turns where the joint is attached to it."""
        qv = {j: y[k] for k, j in enumerate(self._act)}
        qv.update({j: qp[k] for k, j in enumerate(self._pas)})
        frames = {0: (np.eye(3), np.zeros(3))}
        for j, jt in enumerate(self.robot.joints, 1):
            R, p = frames[jt.antecedent]
            if j in self._attach:           # a child of a beam follows its node
                bj, k = self._attach[j]
                s, idx, _ = self._beams[bj]
                if k > 0:
                    u, v, r = (y[int(i)] for i in idx[k - 1])
                    Rt = _turn(R, np.cos(r), np.sin(r))
                    p = p + R[:, 0] * (s[k] + u) + R[:, 1] * v - Rt[:, 0] * s[k]
                    R = Rt
            frames[j] = self._step(R, p, j, qv.get(j, 0.0))
        return frames, qv
