"""The Delta robot by geometrically exact beams (issue 31), on the model contract.

The structure. Every link (three upper, three lower) is a chain of ``elements`` spatial
corotational beam elements (:class:`elastodyn.fem.corotational.CorotationalBeam`: exact
rigid rotation of every element, the linear Hermite element's strain energy in the
element's frame). The platform and its payload are one rigid body; each actuator has
its rotor inertia and friction on the shaft angle. Gravity acts on every material point.

Coordinates (the contract's q_c = (q_a, e)), all mapped *exactly* (finite rotations) to
the configuration of every node; the rigid Delta at the shaft angles q_a (forward
kinematics, three-sphere intersection, on jets) is the reference the elastic
coordinates are measured from, so they stay small while the links bend little,
whatever the robot's motion:

* q_a (3): the shaft angles [rad] (the robot's convention, :mod:`elastodyn.kinematics.
  delta`);
* per leg i, upper link, nodes j = 1..n: displacement d_j [m] and rotation vector r_j
  [rad] in the frame R_u of the rigid upper link: x = A_i + R_u (s_j e_x + d_j), triad
  R_u exp([r_j]) (the root node is clamped to the motor shaft);
* the joint at the elbow B_i (release angles, 2 universal, 3 spherical, 0 clamped): the
  lower link's end triad Q_tip E(a_1, y_i) E(a_2, z_l) R_l, with Q_tip = R_u exp([r_n])
  R_u^T the upper tip's rotation, its position the upper tip's;
* lower link, interior nodes j = 1..n-1: x = B_i + R_l (s_j e_x + d_j), triad R_l
  exp([r_j]) (R_l the rigid lower link's frame, Kuo eq. 3, errata);
* the joint at the platform D_i (releases as at B_i): position X + d_P + Q_P (D_i - X),
  triad Q_P E(b_2, y_i) E(b_1, z_l) R_l;
* the platform: displacement d_P [m] and rotation vector r_P [rad] from the rigid
  platform (Q_P = exp([r_P])).

The loops are closed by construction (the lower link's end nodes are placed at the
joints: no constraint equations, no drift), and each joint is exact: a universal joint's
relative rotation is E(alpha, y) C E(beta, z) with C fixed for every configuration
(:mod:`elastodyn.formulations.ked.deflected` uses the same map about the rigid motion).

Inertia and equations. Each element is the point masses of its axis at 4 Gauss points
(:meth:`~elastodyn.fem.corotational.CorotationalBeam.axis_points`: the consistent
translational inertia, exactly); the torsion of the sections is the consistent
rotary inertia rho I_p l / 6 [[2, 1], [1, 2]] on the spins of the end sections about
their axes (their body components: the Lagrangian of two coupled rigid bodies, so
that it conserves energy exactly; bending rotary inertia, O((r / l)^2), is left out as
in the linear elements). The platform is a rigid body (Euler's equations). With x_g(q)
of every point mass and the triads R(q), exactly to second order by jets
(:mod:`elastodyn.fem.jets`),

    M = sum m_g J_g^T J_g + sum W^T I W,
    c = sum m_g J_g^T (qd^T H_g qd) + sum W^T (I alpha_b + w x I w) + dV/dq + friction,

J_g, H_g the first and second derivatives of x_g, W the spin Jacobian of a triad and
alpha_b = vee(skew(R_qq[qd, qd] R^T)) its angular acceleration at q_dd = 0 (Lagrange's
equations of the point masses and rigid bodies, exactly: no derivative of M needed).
V is the strain energy plus the gravity potential; its Hessian (the tangent stiffness,
geometric terms included) comes from the same jets.

Units: SI, rad.
"""
from __future__ import annotations


import numpy as np

from ...description.flexible_delta import FlexibleDelta
from ...exceptions import InputError, ModelError
from ...fem import jets
from ...fem.jets import Jet
from ...fem.corotational import (CorotationalBeam, axis_rotation, chord_midspan_spatial,
                                 so3_exp)
from ...kinematics.delta import DeltaKinematics
from ...model import Coordinates, State
from ..base import NONLINEAR_CAPABILITIES
from .engine import CONTROLLERS, ExactModel

__all__ = ["ExactDeltaModel", "RELEASES"]

RELEASES = {"universal": 2, "spherical": 3, "clamped": 0}
"""Release angles of a joint at B_i or D_i."""

_EX = np.array([1.0, 0.0, 0.0])
_EZ = np.array([0.0, 0.0, 1.0])
_NODE = 12      # local variables of a node: (q_a (3), d (3), r (3), releases (3))


def _vee_skew(A):
    """Axial vector (..., 3, nv...) of the skew part of A (..., 3, 3, ...)."""
    return 0.5 * np.stack([A[..., 2, 1] - A[..., 1, 2], A[..., 0, 2] - A[..., 2, 0],
                           A[..., 1, 0] - A[..., 0, 1]], axis=-1)


def _embed(j, nv: int, offset: int = 0):
    """A jet over k variables as a jet over nv, its variables at offset .. offset + k
    (an array: a constant, as is)."""
    if not isinstance(j, Jet):
        return j
    k = j.nv
    if k == nv and offset == 0:
        return j
    g = np.zeros(j.shape + (nv,), dtype=j.g.dtype)
    g[..., offset:offset + k] = j.g
    H = None
    if j.H is not None:
        H = np.zeros(j.shape + (nv, nv), dtype=j.H.dtype)
        H[..., offset:offset + k, offset:offset + k] = j.H
    return Jet(j.v, g, H)


class ExactDeltaModel(ExactModel):
    """A FlexibleDelta of geometrically exact beams (module docstring).

    Parameters
    ----------
    robot : FlexibleDelta
    options : dict
        ``elements``: elements per link, integer in [1, 64] (default 4); ``rigid``
        (internal, the rigid counterpart of a force-driven run): the shaft angles only,
        every elastic coordinate held at zero (the rigid Delta with the links' inertia).
    """

    formulation = "exact"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "energy", "inverse_kinematics",
                                             "simulate_controlled", "simulate_efforts",
                                             "held_start",
                                             "step_error_estimate"}
    controllers = CONTROLLERS
    default_preload = True
    pose_names = ("x", "y", "z")

    def __init__(self, robot: FlexibleDelta, options: dict | None = None):
        if not isinstance(robot, FlexibleDelta):
            raise InputError("robot", type(robot).__name__, "a FlexibleDelta")
        self.robot = robot
        self.options = {"elements": 4, **dict(options or {})}
        n = self.options["elements"]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 64:
            raise InputError("--elements", n, "an integer in [1, 64]")
        n = int(n)
        g = robot.geometry
        self.kin = DeltaKinematics(g)
        (su, sl), (mu, ml) = robot.link_sections, robot.link_materials
        self.L = (float(g.upper_length), float(g.lower_length))
        self.beams = (CorotationalBeam.of(self.L[0] / n, su, mu),
                      CorotationalBeam.of(self.L[1] / n, sl, ml))
        # consistent torsional inertia rho I_p l / 6 [[2, 1], [1, 2]] per element
        self._torsion = (float(mu.rho * su.ip * self.L[0] / n / 6.0),
                         float(ml.rho * sl.ip * self.L[1] / n / 6.0))
        self._e = np.asarray(g.radial, dtype=float)                       # (3 legs, 3)
        self._y = np.stack([-self._e[:, 1], self._e[:, 0], np.zeros(3)], axis=1)
        self._A = float(g.base_radius) * self._e
        self._rb = float(g.platform_radius)
        self._sign = float(g.sign)
        self._grav = np.asarray(robot.gravity, dtype=float)
        body = robot.carried_body
        self._body = (float(body.mass), np.asarray(body.com_offset, dtype=float),
                      np.asarray(body.inertia_com, dtype=float))
        self._motor = float(robot.motor_inertia)
        self._friction = robot.friction
        nb, nd = RELEASES[robot.joint_b], RELEASES[robot.joint_d]
        self.mechanisms = 0 if "spherical" not in (robot.joint_b, robot.joint_d) else 3
        names, units = ["q1", "q2", "q3"], ["rad"] * 3
        comp = ("ux", "uy", "uz", "rx", "ry", "rz")
        cunit = ("m",) * 3 + ("rad",) * 3

        def add(labels, unit_list):
            """Append coordinates; their indices."""
            first = len(names)
            names.extend(labels)
            units.extend(unit_list)
            return first + np.arange(len(labels))

        upper, lower, relb, reld = {}, {}, {}, {}
        for i in range(3):
            leg = f"leg{i + 1}"
            for j in range(1, n + 1):
                upper[i, j] = add([f"{leg}.upper.n{j}.{c}" for c in comp], cunit)
            relb[i] = add([f"{leg}.B.a{k + 1}" for k in range(nb)], ["rad"] * nb)
            for j in range(1, n):
                lower[i, j] = add([f"{leg}.lower.n{j}.{c}" for c in comp], cunit)
            reld[i] = add([f"{leg}.D.b{k + 1}" for k in range(nd)], ["rad"] * nd)
        self._platform = add([f"platform.{c}" for c in comp], cunit)
        nq = self._nfull = len(names)
        self._rigid_links = bool(self.options.get("rigid", False))
        if self._rigid_links:
            # the rigid Delta: the full layout inside (every elastic coordinate zero),
            # the shaft angles outside
            names, units = names[:3], units[:3]
        self.coordinates = Coordinates(tuple(names), tuple(units),
                                       ("actuated",) * 3 + ("elastic",) * (len(names) - 3))

        def node(kind, i, j):
            """(kind code, leg, s [m], local variable indices (12,)); index nq is a
            slot of value 0 for the local variables a node does not use."""
            idx = np.full(_NODE, nq, dtype=int)
            idx[0:3] = np.arange(3)
            if kind == "upper":
                if j > 0:
                    idx[3:9] = upper[i, j]
                return (0, i, j * self.L[0] / n, idx)
            if kind == "B":
                idx[3:9] = upper[i, n]
                idx[9:9 + nb] = relb[i]
                return (1, i, 0.0, idx)
            if kind == "lower":
                idx[3:9] = lower[i, j]
                return (2, i, j * self.L[1] / n, idx)
            idx[3:9] = self._platform
            idx[9:9 + nd] = reld[i]
            return (3, i, self.L[1], idx)

        # the nodes, one table per kind (every node once), and the elements by link kind
        table = {}                        # (kind, leg, j) -> row in the node list
        rows = []
        for kind in ("upper", "B", "lower", "D"):
            for i in range(3):
                for j in range(0, n + 1):
                    if (kind == "B" and j != 0) or (kind == "D" and j != n) or \
                            (kind == "lower" and not 0 < j < n):
                        continue
                    table[kind, i, j] = len(rows)
                    rows.append(node(kind, i, j))
        self._table = table
        self._node_idx = np.array([r[3] for r in rows])                   # (N, 12)
        self._kinds = []
        for code in range(4):
            sel = np.array([k for k, r in enumerate(rows) if r[0] == code], dtype=int)
            self._kinds.append((code, np.array([rows[k][1] for k in sel]),
                                np.array([rows[k][2] for k in sel]), sel))
        self._links = []
        for li in (0, 1):
            ia, ib = [], []
            for i in range(3):
                for k in range(n):
                    if li == 0:
                        ia.append(table["upper", i, k])
                        ib.append(table["upper", i, k + 1])
                    else:
                        ia.append(table["B" if k == 0 else "lower", i, k])
                        ib.append(table["D" if k == n - 1 else "lower", i, k + 1])
            ia, ib = np.array(ia), np.array(ib)
            self._links.append((ia, ib, np.concatenate([self._node_idx[ia],
                                                        self._node_idx[ib]], axis=1)))
        self._plat_idx = np.concatenate([np.arange(3), self._platform])
        self._memo = None
        self._Kel = None
        self._axial = max(b.stiffness[0, 0] for b in self.beams)
        self._reach = float(np.abs(self._A).max() + sum(self.L))

    # ------------------------------------------------------------------ kinematics
    def inverse_kinematics(self, pose) -> np.ndarray:
        """Shaft angles (3,) [rad] of the rigid Delta with its platform centre at pose
        (x, y, z) [m] (elbows out, :meth:`~elastodyn.kinematics.delta.DeltaKinematics.
        inverse_kinematics`)."""
        p = np.asarray(pose, dtype=float).reshape(-1)
        if p.shape != (3,):
            raise InputError("pose", p.tolist(), "a platform position x y z [m]")
        return np.asarray(self.kin.inverse_kinematics(p), dtype=float)

    def _rigid(self, th):
        """The rigid Delta at shaft angles th (..., 3) (arrays or jets): the elbows B
        (..., 3 legs, 3), the platform centre X (..., 3), the upper and lower link frames
        Ru, Rl (..., 3 legs, 3, 3) (columns: axes; Kuo eq. 3, errata). Forward kinematics
        by the three-sphere intersection of
        :meth:`~elastodyn.kinematics.delta.DeltaKinematics.forward_kinematics` (the
        branch below the sphere centres), written with jet-safe operations."""
        e, y, s = self._e, self._y, self._sign
        c, sn = np.cos(th)[..., None], np.sin(th)[..., None]          # (..., 3, 1)
        xu = c * e - s * sn * _EZ                                      # (..., 3, 3)
        B = self._A + self.L[0] * xu
        cen = B - self._rb * e
        a, b = cen[..., 1, :] - cen[..., 0, :], cen[..., 2, :] - cen[..., 0, :]
        nrm = np.cross(a, b)
        nn = np.sum(nrm * nrm, axis=-1)
        aa, bb = np.sum(a * a, axis=-1), np.sum(b * b, axis=-1)
        foot = cen[..., 0, :] + np.cross(aa[..., None] * b - bb[..., None] * a, nrm) / (
            2.0 * nn[..., None])
        f0 = foot - cen[..., 0, :]
        r2 = self.L[1] ** 2 - np.sum(f0 * f0, axis=-1)
        r2v = np.asarray(jets.value(r2)).real
        if np.any(r2v < 0):
            raise InputError("q", np.round(np.asarray(jets.value(th)).real, 6).tolist(),
                             "shaft angles at which the lower links can meet")
        unit = nrm / np.sqrt(nn)[..., None]
        sg = np.where(np.asarray(jets.value(unit)).real[..., 2] < 0, -1.0, 1.0)
        X = foot + (sg * np.sqrt(r2))[..., None] * unit
        yb = np.broadcast_to(y, xu.shape)
        Ru = np.stack([xu, yb, np.cross(xu, yb)], axis=-1)
        xl = (X[..., None, :] + self._rb * e - B) / self.L[1]
        zc = np.cross(xl, yb)
        zl = zc / np.sqrt(np.sum(zc * zc, axis=-1))[..., None]
        Rl = np.stack([xl, np.cross(zl, xl), zl], axis=-1)
        return B, X, Ru, Rl

    def _release(self, joint, a, Rl, y, at):
        """Relative rotation of a joint (..., 3, 3) for release angles a (..., 3)."""
        if joint == "clamped":
            return None
        if joint == "spherical":
            return so3_exp(np.einsum("...ij,...j->...i", Rl, a))
        # E(angle, n) = exp(angle [n]x) (n unit; z_l depends on the shaft angles)
        zl = Rl[..., :, 2]
        Ey = axis_rotation(a[..., 0 if at == "B" else 1], y)
        Ez = so3_exp(a[..., 1 if at == "B" else 0][..., None] * zl)
        return Ey @ Ez

    def _nodes(self, kind, z, legs, s, rigid):
        """Positions (S, b, 3) and triads (S, b, 3, 3) of nodes of one kind (0 upper, 1 B,
        2 lower, 3 D) from their local variables z (S, b, 12) (arrays or jets) at S
        states, legs (b,), stations s (b,) [m] and the rigid Delta's (B, X, Ru, Rl) at
        their legs (S, b, ...) (module docstring)."""
        d, r, rel = z[..., 3:6], z[..., 6:9], z[..., 9:12]
        B, X, Ru, Rl = rigid
        e, y = self._e[legs], self._y[legs]
        if kind == 0:
            x = self._A[legs] + np.einsum("...ij,...j->...i", Ru, s[:, None] * _EX + d)
            return x, Ru @ so3_exp(r)
        if kind == 2:
            x = B + np.einsum("...ij,...j->...i", Rl, s[:, None] * _EX + d)
            return x, Rl @ so3_exp(r)
        if kind == 1:
            x = self._A[legs] + np.einsum("...ij,...j->...i", Ru, self.L[0] * _EX + d)
            Q = Ru @ so3_exp(r) @ np.swapaxes(Ru, -1, -2)
            rel = self._release(self.robot.joint_b, rel, Rl, y, "B")
        else:
            Q = so3_exp(r)
            x = X + d + np.einsum("...ij,...j->...i", Q, self._rb * e)
            rel = self._release(self.robot.joint_d, rel, Rl, y, "D")
        return x, (Q @ Rl if rel is None else Q @ rel @ Rl)

    def _seed(self, z0, vd, mode):
        """Jets of local variables z0 (..., nv): over their nv variables (``mode``
        "full": second order, "first": first order) or along the rates vd (...,nv)
        ("direction": one variable, the time along qd, second order)."""
        if mode == "direction":
            z0 = np.asarray(z0, dtype=float)
            return Jet(z0, np.asarray(vd, dtype=float)[..., None],
                       np.zeros(z0.shape + (1, 1)))
        return jets.variables(z0, order=2 if mode == "full" else 1)

    def _configurations(self, qx, vx, mode):
        """Positions (S, N, 3) and triads (S, N, 3, 3) of every node at S states qx, vx
        (S, n + 1) as jets in its 12 local variables (``mode`` full / first) or along qd
        (direction); the rigid Delta is evaluated once per state, on jets of the shaft
        angles, and carried into each node's variables (its first three)."""
        S = qx.shape[0]
        tj = self._seed(qx[:, :3], vx[:, :3], mode)
        B, X, Ru, Rl = self._rigid(tj)
        X = X.reshape(S, 1, 3)
        xs, Ts, order = [], [], []
        for code, legs, s, sel in self._kinds:
            if not len(sel):
                continue
            idx = self._node_idx[sel]
            z = self._seed(qx[:, idx], vx[:, idx], mode)
            zero = np.zeros(len(sel), dtype=int)
            rig = (B[:, legs], X[:, zero], Ru[:, legs], Rl[:, legs])
            if mode != "direction":
                rig = tuple(_embed(a, _NODE) for a in rig)
            x, T = self._nodes(code, z, legs, s, rig)
            xs.append(x)
            Ts.append(T)
            order.append(sel)
        perm = np.argsort(np.concatenate(order))
        return (jets.concatenate(xs, axis=1)[:, perm],
                jets.concatenate(Ts, axis=1)[:, perm])

    # ------------------------------------------------------------------ terms
    def _evaluate(self, q, v, gravity=True, full=True):
        """V, dV/dq, d2V/dq2, M, h (velocity forces), C = dh/dv (gyroscopic tangent of
        the point masses) at q, v (n,) (module docstring); at S states at once for q, v
        (S, n) (every output with a leading axis S). Without ``full`` (the residual of a
        Newton iteration): V, dV/dq, M and h only (K and C None), by first-order jets and
        one pass along qd for the velocity forces."""
        q = np.asarray(q, dtype=float)
        single = q.ndim == 1
        q = np.atleast_2d(q)
        v = np.broadcast_to(np.asarray(v, dtype=float), q.shape)
        nout = q.shape[1]
        q, v = self._full(q), self._full(v)
        S, nq = q.shape
        qx = np.concatenate([q, np.zeros((S, 1))], axis=1)
        vx = np.concatenate([v, np.zeros((S, 1))], axis=1)
        N = nq + 1
        grad, M, h = np.zeros((S, N)), np.zeros((S, N, N)), np.zeros((S, N))
        K, C = (np.zeros((S, N, N)), np.zeros((S, N, N))) if full else (None, None)
        V = np.zeros(S)
        grav = self._grav if gravity else np.zeros(3)
        Xn, Tn = self._configurations(qx, vx, "full" if full else "first")
        if not full:
            Xd, Td = self._configurations(qx, vx, "direction")
        nv = 2 * _NODE
        every = slice(None)
        for li, (ia, ib, idx) in enumerate(self._links):
            beam = self.beams[li]
            c0 = np.array([beam.length, 0.0, 0.0])
            xa, ta = _embed(Xn[:, ia], nv, 0), _embed(Tn[:, ia], nv, 0)
            xb, tb = _embed(Xn[:, ib], nv, _NODE), _embed(Tn[:, ib], nv, _NODE)
            U, P, mg = beam.energy_and_points(xa, ta, xb - c0, tb, c0)   # P (S, b, 4, 3)
            T = jets.stack([ta, tb], axis=-3)                              # (S, b, 2, 3, 3)
            vd = vx[:, idx]                                                # (S, b, nv)
            J = jets.gradient(P, nv)                                      # (S, b, 4, 3, nv)
            # gravity on the point masses (their placement xi c0 is a constant)
            V += np.sum(jets.value(U), axis=-1) - np.einsum("g,...bgi,i->...", mg,
                                                             jets.value(P), grav)
            ge = jets.gradient(U, nv) - np.einsum("g,...gik,i->...k", mg, J, grav)
            Me = np.einsum("g,...gik,...gil->...kl", mg, J, J)
            Tv, Tg = jets.value(T), jets.gradient(T, nv)
            if full:
                H = jets.hessian(P, nv)                                   # (S, b, 4, 3, nv, nv)
                Ke = jets.hessian(U, nv) - np.einsum("g,...gikl,i->...kl", mg, H, grav)
                Hv = np.einsum("...gikl,...l->...gik", H, vd)
                quad = np.einsum("...gik,...k->...gi", Hv, vd)
                Ce = 2.0 * np.einsum("g,...gik,...gil->...kl", mg, J, Hv)
                Rqq = np.einsum("...nijkl,...k,...l->...nij", jets.hessian(T, nv), vd, vd)
            else:
                # second derivatives along qd only: x_g'' and R'' at q_dd = 0
                _, Pd, _ = beam.axis_points(Xd[:, ia], Td[:, ia], Xd[:, ib] - c0, Td[:, ib],
                                            c0)
                quad = jets.hessian(Pd, 1)[..., 0, 0]
                Rqq = jets.hessian(jets.stack([Td[:, ia], Td[:, ib]], axis=-3), 1)[..., 0, 0]
            he = np.einsum("g,...gik,...gi->...k", mg, J, quad)
            # torsion: the sections' spins about their axes (module docstring)
            W = np.swapaxes(_vee_skew(np.einsum("...nimk,...njm->...nkij", Tg, Tv)), -1, -2)
            t1 = Tv[..., :, 0]                                             # (S, b, 2, 3)
            Pt = np.einsum("...ni,...nik->...nk", t1, W)                  # (S, b, 2, nv)
            w = np.einsum("...nik,...k->...ni", W, vd)                     # spins
            ab = _vee_skew(np.einsum("...nim,...njm->...nij", Rqq, Tv))    # (S, b, 2, 3)
            Mt = self._torsion[li] * np.array([[2.0, 1.0], [1.0, 2.0]])
            Me += np.einsum("...nk,nm,...ml->...kl", Pt, Mt, Pt)
            p = np.einsum("nm,...m->...n", Mt, np.einsum("...ni,...ni->...n", t1, w))
            pa = np.einsum("nm,...m->...n", Mt, np.einsum("...ni,...ni->...n", t1, ab))
            tq = pa[..., None] * t1 + np.cross(w, p[..., None] * t1)
            he += np.einsum("...nik,...ni->...k", W, tq)
            ix1 = (every, idx)
            ix2 = (every, idx[:, :, None], idx[:, None, :])
            np.add.at(grad, ix1, ge)
            np.add.at(M, ix2, Me)
            np.add.at(h, ix1, he)
            if full:
                np.add.at(K, ix2, Ke)
                np.add.at(C, ix2, Ce)
        # the platform and payload: a rigid body at the platform's centre
        m, com, Ic = self._body
        idx = self._plat_idx
        z = jets.variables(qx[:, idx])                                     # (S, 9)
        nv = z.nv
        _, X, _, _ = self._rigid(z[..., 0:3])
        Q = so3_exp(z[..., 6:9])
        xc = X + z[..., 3:6] + np.einsum("...ij,j->...i", Q, com)
        Jc, Hc = jets.gradient(xc, nv), jets.hessian(xc, nv)             # (S, 3, nv (, nv))
        V -= m * (jets.value(xc) @ grav)
        vd = vx[:, idx]
        Qv, Qg, Qh = jets.value(Q), jets.gradient(Q, nv), jets.hessian(Q, nv)
        W = np.swapaxes(_vee_skew(np.einsum("...imk,...jm->...kij", Qg, Qv)), -1, -2)
        Iw = Qv @ Ic @ np.swapaxes(Qv, -1, -2)
        w = np.einsum("...ik,...k->...i", W, vd)
        ab = _vee_skew(np.einsum("...imkl,...k,...l,...jm->...ij", Qh, vd, vd, Qv))
        Iab = np.einsum("...ij,...j->...i", Iw, ab)
        Iww = np.cross(w, np.einsum("...ij,...j->...i", Iw, w))
        pg = -m * np.einsum("...ik,i->...k", Jc, grav)
        pM = m * np.einsum("...ik,...il->...kl", Jc, Jc) + np.einsum(
            "...ik,...ij,...jl->...kl", W, Iw, W)
        ph = m * np.einsum("...ik,...i->...k", Jc, np.einsum("...ikl,...k,...l->...i", Hc,
                                                             vd, vd)) + np.einsum(
            "...ik,...i->...k", W, Iab + Iww)
        ix1 = (every, idx)
        ix2 = (every, idx[:, None], idx[None, :])
        np.add.at(grad, ix1, pg)
        np.add.at(M, ix2, pM)
        np.add.at(h, ix1, ph)
        if full:
            pK = -m * np.einsum("...ikl,i->...kl", Hc, grav)
            pC = 2.0 * m * np.einsum("...ik,...il->...kl", Jc,
                                     np.einsum("...ikl,...l->...ik", Hc, vd))
            np.add.at(K, ix2, pK)
            np.add.at(C, ix2, pC)
        for i in range(3):
            M[:, i, i] += self._motor
        s = slice(0, nout)
        out = (V, grad[:, s], None if K is None else K[:, s, s], M[:, s, s], h[:, s],
               None if C is None else C[:, s, s])
        if single:
            out = tuple(None if a is None else (float(a[0]) if a.ndim == 1 and a is out[0]
                                                else a[0]) for a in out)
        return out

    def _terms(self, st: State, full: bool = True):
        """The terms of the equations at ``st``: M, c (the bias), V; with ``full`` also
        K (the potential's Hessian) and C (dc/dv); memoized for the last state (a full
        evaluation serves a light request)."""
        key = (st.q.tobytes(), st.v.tobytes())
        if self._memo is not None and self._memo[0] == key and (self._memo[2] or not full):
            return self._memo[1]
        if np.iscomplexobj(st.q) or np.iscomplexobj(st.v):
            raise InputError("state", "complex", "real coordinates (the exact formulation "
                             "has no complex-step derivatives yet)")
        V, grad, K, M, h, C = self._evaluate(st.q, st.v, full=full)
        c = h + grad
        if not self._friction.is_zero:
            c[:3] += np.asarray(self._friction.torque(st.v[:3]), dtype=float)
            if C is not None:
                # the friction's slope at the rates (central difference, 1e-9 rad/s)
                hh = 1e-9
                for i in range(3):
                    dv = np.zeros(3)
                    dv[i] = hh
                    C[:3, i] += (np.asarray(self._friction.torque(st.v[:3] + dv), dtype=float)
                                 - np.asarray(self._friction.torque(st.v[:3] - dv),
                                              dtype=float)) / (2 * hh)
        out = {"V": V, "M": M, "c": c, "K": K, "C": C}
        self._memo = (key, out, full)
        return out

    def _efforts_along(self, st, times, qa, qda, qdda, E, Ed, progress=None,
                       chunk: int = 64):
        """:func:`~elastodyn.formulations.base.efforts_along` with the states of ``chunk``
        samples evaluated at once (:meth:`_evaluate` takes S states; the same numbers
        to round-off, about 6 times less time per sample): the efforts by the inverse
        dynamics (the elastic accelerations solved for), the platform's pose, and the
        rigid efforts and pose at the same actuated motion (elastic coordinates zero)."""
        na, nt = self.n_actuated, len(times)
        tau, rtau, pose, rpose = [], [], [], []
        for k0 in range(0, nt, chunk):
            sl = slice(k0, min(nt, k0 + chunk))
            qd, qdd = np.asarray(qda[sl], float), np.asarray(qdda[sl], float)
            fr = (0.0 if self._friction.is_zero
                  else np.asarray(self._friction.torque(qd), dtype=float))
            Q = np.concatenate([qa[sl], E[sl]], axis=1)
            _, g, _, M, h, _ = self._evaluate(Q, np.concatenate([qd, Ed[sl]], axis=1),
                                              full=False)
            c = h + g
            c[:, :na] += fr
            edd = np.linalg.solve(M[:, na:, na:], (-c[:, na:] - np.einsum(
                "sij,sj->si", M[:, na:, :na], qdd))[..., None])[..., 0]
            tau.append(np.einsum("sij,sj->si", M[:, :na, :na], qdd)
                       + np.einsum("sij,sj->si", M[:, :na, na:], edd) + c[:, :na])
            Qr = np.concatenate([qa[sl], np.zeros_like(E[sl])], axis=1)
            _, gr, _, Mr, hr, _ = self._evaluate(
                Qr, np.concatenate([qd, np.zeros_like(Ed[sl])], axis=1), full=False)
            rtau.append(np.einsum("sij,sj->si", Mr[:, :na, :na], qdd) + (hr + gr)[:, :na]
                        + fr)
            _, X, _, _ = self._rigid(np.asarray(qa[sl], float))
            rpose.append(X)
            pose.append(X + self._full(Q)[:, self._platform[:3]])
            if progress is not None:
                progress(sl.stop, nt)
        return (list(np.concatenate(tau)), list(np.concatenate(rtau)),
                list(np.concatenate(pose)), list(np.concatenate(rpose)))

    def _complete(self, st: State) -> State:
        return st.with_(pose=self.pose_of(st.q))

    def _full(self, q):
        """The coordinates of the full layout (..., n_full) of q (..., n): q itself, or
        for the rigid Delta its shaft angles with every elastic coordinate zero."""
        q = np.asarray(q, dtype=float)
        if q.shape[-1] == self._nfull:
            return q
        out = np.zeros(q.shape[:-1] + (self._nfull,))
        out[..., :q.shape[-1]] = q
        return out

    # ------------------------------------------------------------------ force-driven runs
    def rigid_counterpart(self) -> "ExactDeltaModel":
        """The rigid Delta with the links' inertia (one element per link, every elastic
        coordinate held at zero: the point masses and the consistent torsional inertia
        of a straight link are its rigid inertia exactly), the rigid run alongside a
        force-driven one."""
        return ExactDeltaModel(self.robot, {**self.options, "elements": 1, "rigid": True})

    def pose_of(self, q) -> np.ndarray:
        """The platform centre (x, y, z) [m] at the contract's coordinates q: the rigid
        Delta's at the shaft angles plus the platform's elastic displacement."""
        q = self._full(q)
        _, X, _, _ = self._rigid(q[:3])
        return np.asarray(X, dtype=float) + q[self._platform[:3]]

    def _node_values(self, q):
        """Positions (N, 3) [m] and triads (N, 3, 3) of every node at q (numbers)."""
        qx = np.concatenate([self._full(q), [0.0]])[None]
        Xn, Tn = self._configurations(qx, np.zeros_like(qx), "direction")
        return np.asarray(jets.value(Xn))[0], np.asarray(jets.value(Tn))[0]

    @property
    def joint_names(self) -> tuple:
        """Per leg: the motor shaft's joint A, the elbow B, the platform joint D."""
        return tuple(f"leg{i + 1}.{p}" for i in range(3) for p in "ABD")

    def joint_positions(self, q) -> np.ndarray:
        """Positions (9, 3) [m] of the joints (the order of :attr:`joint_names`): A_i
        fixed, B_i the upper link's tip, D_i the lower link's end at the platform."""
        x, _ = self._node_values(q)
        n, t = int(self.options["elements"]), self._table
        return np.array([x[t[key]] for i in range(3)
                         for key in (("upper", i, 0), ("B", i, 0), ("D", i, n))])

    @property
    def beam_names(self) -> tuple:
        return tuple(f"leg{i + 1}.{k}" for i in range(3) for k in ("upper", "lower"))

    def midspan_deflections(self, q) -> np.ndarray:
        """The bending at mid-length (6,) [m] of every link from its chord
        (:func:`~elastodyn.fem.corotational.chord_midspan_spatial`: a distance, >= 0;
        zero for the rigid Delta)."""
        if self._rigid_links:
            return np.zeros(6)
        x, T = self._node_values(q)
        n, t = int(self.options["elements"]), self._table
        out = []
        for i in range(3):
            for li, rows in enumerate(([t["upper", i, j] for j in range(n + 1)],
                                       [t["B", i, 0]] + [t["lower", i, j] for j in
                                                         range(1, n)] + [t["D", i, n]])):
                st = np.linspace(0.0, self.L[li], n + 1)
                out.append(chord_midspan_spatial(st, x[rows], T[rows][:, :, 0]))
        return np.array(out)

    # ------------------------------------------------------------------ dynamics
    def static_deflection(self, state: State, **kw) -> State:
        """As :meth:`NonlinearModel.static_deflection`; refused with a ball joint at B or
        D, where the structure with the actuators locked is a mechanism (the platform
        turns, a lower link spins about its axis; flexible-description module
        docstring) and a static equilibrium is not unique: a ModelError that says so."""
        if self.mechanisms:
            raise ModelError(
                "exact: with a ball joint (joints.b or joints.d spherical) the Delta with "
                "locked actuators is a mechanism (the platform turns, the lower links spin "
                "about their axes): no unique static equilibrium for the modes or the "
                "initial state; universal or clamped joints")
        return super().static_deflection(state, **kw)

    def max_strain(self, state: State) -> float:
        """The largest fibre strain of the elements at ``state`` [-]: the axial strain
        |u| / l0 plus the bending strain at the outer fibre about each bending axis,
        c kappa (c the section's, :attr:`~elastodyn.fem.corotational.CorotationalBeam.
        fibre`; unknown: sqrt(I / A)), kappa the largest curvature of the element's Hermite
        cubic (at an end: |4 theta_a + 2 theta_b| / l0 or |2 theta_a + 4 theta_b| / l0,
        the local rotations about that axis), as the planar elements'
        (:meth:`~elastodyn.fem.planar_corotational.PlanarBeamStructure.max_strain`)."""
        qx = np.concatenate([self._full(state.q), [0.0]])[None]
        Xn, Tn = self._configurations(qx, np.zeros_like(qx), "first")
        out = 0.0
        for li, (ia, ib, _) in enumerate(self._links):
            beam = self.beams[li]
            l0 = float(np.real(beam.length))
            c0 = np.array([l0, 0.0, 0.0])
            _, du, tha, thb = beam.frame(
                jets.value(Xn[:, ia]), jets.value(Tn[:, ia]), jets.value(Xn[:, ib]) - c0,
                jets.value(Tn[:, ib]), c0)
            K = np.real(beam.stiffness)
            # local dofs u v w rx ry rz: K[0, 0] = EA / l, K[4, 4] = 4 EI_y / l,
            # K[5, 5] = 4 EI_z / l
            r = np.sqrt(np.array([K[4, 4], K[5, 5]]) / 4.0 / K[0, 0])   # sqrt(I / A)
            r = np.where(np.array(beam.fibre) > 0, np.array(beam.fibre), r)
            ta, tb = tha[..., 1:], thb[..., 1:]
            kappa = np.maximum(np.abs(4 * ta + 2 * tb), np.abs(2 * ta + 4 * tb)) / l0
            eps = np.abs(du) / l0 + np.max(r * kappa, axis=-1)
            out = max(out, float(np.max(eps)))
        return out

    def strain_stiffness(self, state: State) -> np.ndarray:
        """The Hessian of the strain energy alone over the elastic coordinates at the
        pose of ``state`` (n_e, n_e) [N/m, N, N m/rad]: the linear structure there (no
        gravity, no motion)."""
        _, _, K, _, _, _ = self._evaluate(state.q, np.zeros(self.n), gravity=False)
        return K[3:, 3:]

    def elastic_stiffness(self) -> np.ndarray:
        """The linear stiffness of the undeformed structure at the home pose (the scale
        of :meth:`static_deflection`'s test; a closed chain's stiffness depends on the
        pose: :meth:`linearize` without preload takes it at the state's pose)."""
        if self._Kel is None:
            st = State.build(3, self.n_elastic, actuated=self.home_actuated())
            self._Kel = self.strain_stiffness(st)
        return self._Kel

    def linearize(self, state: State, *, actuators: str = "locked",
                  preload: bool | None = None):
        """As :meth:`NonlinearModel.linearize`; without preload the stiffness is the
        undeformed structure's at the pose of ``state`` (the closed chain's stiffness
        depends on the pose)."""
        if self._preload(preload):
            return super().linearize(state, actuators=actuators, preload=True)
        saved = self._Kel
        self._Kel = self.strain_stiffness(state)
        try:
            return super().linearize(state, actuators=actuators, preload=False)
        finally:
            self._Kel = saved
