"""Planar serial arms by geometrically exact beams (issue 31), on the model contract.

The structure. Each link is a chain of planar corotational beam elements
(:class:`elastodyn.fem.planar_corotational.PlanarCorotationalBeam`: exact kinematics of
the axis, consistent inertia), ``elements`` of equal length, with a node added at every
lumped mass. At a joint the end node of link i - 1 and the root node of link i share
their position; the motor turns the root section of link i relative to the end section
of link i - 1 by the shaft angle q_i (the hub is clamped to the root, as in Yu & Chen's
arm and the AMM model's encoder angles). Lumped masses and the payload are point masses
with their rotary inertia at their nodes; a hub inertia turns with its root node.
Gravity g along -y0.

The coordinates of the contract, q_c = (q_a, e):

* q_a (n): the shaft angles [rad];
* e: for every node of link i but its root, its displacement (du, dv) [m] and rotation
  dphi [rad] in the frame of the root section of link i (turned by Theta_i = the sum of
  the shaft angles and of the end rotations of the links before), from its place on the
  straight link: small while the link bends little, whatever the arm's motion.

The node coordinates of the structure are an exact (nonlinear) function q_s = Phi(q_c),
evaluated on jets (:mod:`elastodyn.fem.jets`) for its first and second derivatives G, H.
Lagrange's equations in q_c then are exactly

    M_c = G^T M_s G,    c_c = G^T (M_s (q_c_dot^T H q_c_dot) + h_s + dV_s/dq_s) + friction,

M_s, h_s (velocity forces) and V_s (strain and gravity) of the structure
(:meth:`~elastodyn.fem.planar_corotational.PlanarBeamStructure.evaluate`).

Decisions:

* An arm description gives E I and the mass of a link, not its cross-section area. The
  axial stiffness is that of a solid square section of that I (A = sqrt(12 I)); the
  AMM model is inextensible, and the axial stretch under an arm's loads is ~1e-7 of its
  length, so any stiff section gives the same bending answer (the axial modes, above
  10 kHz for arm-yu2019, are damped by the integrator, not resolved).
* The joint friction is the geared motors' (:meth:`~elastodyn.description.arm.ArmLink.
  joint_friction`, smoothed Coulomb), on the shaft angles, as in the AMM model.
"""
from __future__ import annotations

import math

import numpy as np

from ...description.arm import PlanarArm
from ...description.materials import Material, Section
from ...exceptions import InputError
from ...fem import jets
from ...fem.planar_corotational import (PlanarBeamStructure, PlanarCorotationalBeam,
                                        chord_midspan)
from ...kinematics.arm import two_link_inverse_kinematics
from ...model import Coordinates, State
from ..base import NONLINEAR_CAPABILITIES
from .engine import CONTROLLERS, MAX_STEPS, METHODS, STEPS_PER_PERIOD, ExactModel

__all__ = ["ExactArmModel", "METHODS", "STEPS_PER_PERIOD", "MAX_STEPS"]

class ExactArmModel(ExactModel):
    """A PlanarArm of geometrically exact beams (module docstring)."""

    formulation = "exact"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "energy", "simulate_controlled",
                                             "simulate_efforts", "held_start",
                                             "step_error_estimate"}
    controllers = CONTROLLERS
    default_preload = False

    def __init__(self, arm: PlanarArm, options: dict | None = None):
        if not isinstance(arm, PlanarArm):
            raise InputError("robot", type(arm).__name__, "a PlanarArm")
        self.robot = arm
        self.options = {"elements": 4, **dict(options or {})}
        ne = int(self.options["elements"])
        if not 1 <= ne <= 64:
            raise InputError("--elements", ne, "an integer in [1, 64]")
        # rigid links (the rigid counterpart of a force-driven run): one element per
        # link and a node at every lumped mass, all held straight (no elastic
        # coordinates); the consistent mass carries a rigid motion exactly
        self._rigid_links = bool(self.options.get("rigid", False))
        if self._rigid_links:
            ne = 1
        nodes, elements, masses, layout = [], [], [], []
        x = 0.0
        for i, lk in enumerate(arm.links):
            L = float(lk.length)
            area = math.sqrt(12.0 * lk.I)
            sec = Section(area=area, iy=lk.I, iz=lk.I, j=2 * lk.I, ip=2 * lk.I)
            mat = Material(E=lk.E, G=lk.E / 2.6, rho=max(lk.mass, 1e-12) / (L * area))
            bodies = arm.link_bodies(i)
            s = set(np.round(np.linspace(0.0, L, ne + 1), 12))
            s |= {round(L * (1.0 + mu), 12) for _, _, mu in bodies}
            s = np.array(sorted(s))
            first = len(nodes)
            nodes += [(x + sk, 0.0) for sk in s]
            for k in range(len(s) - 1):
                elements.append((first + k, first + k + 1,
                                 PlanarCorotationalBeam.of(s[k + 1] - s[k], sec, mat)))
            for m, J, mu in bodies:
                k = first + int(np.argmin(np.abs(s - L * (1.0 + mu))))
                masses.append((k, m, J))
            if lk.hub_inertia:
                masses.append((first, 0.0, lk.hub_inertia))
            layout.append((first, s))
            x += L
        self._layout = layout
        self._axial = max(e.ea / e.length for _, _, e in elements)
        # the nodes stay within the arm's reach, |x| <= its length (the placement's span)
        self._reach = float(np.abs(np.array(nodes)).max())
        self.x0 = np.array(nodes)
        self.structure = PlanarBeamStructure(self.x0, elements, masses,
                                             gravity=(0.0, -arm.gravity))
        self._elastic = PlanarBeamStructure(self.x0, elements, masses)   # no gravity
        self._friction = [lk.joint_friction() for lk in arm.links]
        n = arm.n
        names, units = [f"q{i + 1}" for i in range(n)], ["rad"] * n
        for i, (_, s) in enumerate([] if self._rigid_links else layout):
            for k in range(1, len(s)):
                names += [f"link{i + 1}.u{k}", f"link{i + 1}.v{k}", f"link{i + 1}.r{k}"]
                units += ["m", "m", "rad"]
        self.coordinates = Coordinates(tuple(names), tuple(units),
                                       ("actuated",) * n + ("elastic",) * (len(names) - n))
        self._memo = None
        self._Kel = None
        if n == 2:
            self.capabilities = self.capabilities | {"inverse_kinematics"}

    def inverse_kinematics(self, pose) -> np.ndarray:
        """Shaft angles (2,) [rad] of the undeformed two-link arm with its tip at pose
        (x0, y0) [m], elbow down (:func:`~elastodyn.kinematics.arm.
        two_link_inverse_kinematics`)."""
        if "inverse_kinematics" not in self.capabilities:
            return super().inverse_kinematics(pose)
        p = np.asarray(pose, dtype=float).reshape(-1)
        if p.shape != (2,):
            raise InputError("pose", p.tolist(), "a tip position x y [m]")
        l1, l2 = (lk.length for lk in self.robot.links)
        return two_link_inverse_kinematics(l1, l2, p)

    # ------------------------------------------------------------------ kinematics
    def _struct(self, qc):
        """Phi(q_c): the structure's node unknowns (3 N,) (arrays or jets)."""
        n = self.robot.n
        theta = 0.0
        px, py = 0.0, 0.0
        out = []
        j = n
        for i, (first, s) in enumerate(self._layout):
            theta = theta + qc[i]
            c, sn = np.cos(theta), np.sin(theta)
            X = self.x0[first]
            out += [px - X[0], py - X[1], theta]
            end = theta
            for k in range(1, len(s)):
                if self._rigid_links:
                    du = dv = dr = 0.0
                else:
                    du, dv, dr = qc[j], qc[j + 1], qc[j + 2]
                    j += 3
                lx, ly = s[k] + du, dv
                nx, ny = px + c * lx - sn * ly, py + sn * lx + c * ly
                X = self.x0[first + k]
                out += [nx - X[0], ny - X[1], theta + dr]
                end = theta + dr
            px, py, theta = nx, ny, end
        return out

    def _map(self, q):
        """(q_s (3 N,), G (3 N, n), H (3 N, n, n)) at q_c = q (exact: jets)."""
        z = jets.variables(np.asarray(q, dtype=float))
        parts = self._struct(z)
        nv = self.n
        v = np.array([jets.value(p) for p in parts], dtype=float)
        G = np.array([jets.gradient(p, nv) for p in parts])
        H = np.array([jets.hessian(p, nv) for p in parts])
        return v, G, H

    def _terms(self, st: State, full: bool = True):
        """The terms of the equations at ``st`` (``full`` for the engine's interface:
        this model always evaluates all of them)."""
        key = (st.q.tobytes(), st.v.tobytes())
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        qs, G, H = self._map(st.q)
        qsd = G @ st.v
        V, grad, K, M, h, C = self.structure.evaluate(qs, qsd)
        accb = np.einsum("ijk,j,k->i", H, st.v, st.v)
        Mc = G.T @ M @ G
        cc = G.T @ (M @ accb + h + grad)
        for i, f in enumerate(self._friction):
            cc[i] += f.torque(st.v[i])
        # the exact Hessian of V o Phi; the velocity terms' tangent from the structure's
        Kc = G.T @ K @ G + np.einsum("i,ijk->jk", grad, H)
        # dc/dv (friction aside): the structure's gyroscopic tangent and the map's
        # second derivatives, G^T C_s G + 2 G^T M_s (H v)
        Cc = G.T @ C @ G + 2.0 * G.T @ M @ np.einsum("ijk,k->ij", H, st.v)
        # the friction's slope at the rates (central difference of its smoothed law,
        # 1e-9 rad/s: 1e-6 of its smoothing rate)
        for i, f in enumerate(self._friction):
            hh = 1e-9
            Cc[i, i] += float(f.torque(st.v[i] + hh) - f.torque(st.v[i] - hh)) / (2 * hh)
        out = {"qs": qs, "V": V, "M": Mc, "c": cc, "K": Kc, "C": Cc, "G": G}
        self._memo = (key, out)
        return out

    def _complete(self, st: State) -> State:
        tip = self.tip(st.q)
        return st.with_(pose=np.array([tip[0], tip[1], 0.0]))

    def tip(self, q) -> np.ndarray:
        """The tip of the last link (x0, y0) [m] at q_c = q."""
        parts = self._struct(np.asarray(q, dtype=float))
        return self.x0[-1] + np.array([parts[-3], parts[-2]], dtype=float)

    # ------------------------------------------------------------------ force-driven runs
    def rigid_counterpart(self) -> "ExactArmModel":
        """The same arm with rigid links of the links' masses (the rigid run alongside a
        force-driven one)."""
        return ExactArmModel(self.robot, {**self.options, "rigid": True})

    def pose_of(self, q) -> np.ndarray:
        """The tip of the last link (x0, y0) [m] and the absolute angle of its section
        there [rad]."""
        parts = self._struct(np.asarray(q, dtype=float))
        return np.array([self.x0[-1, 0] + parts[-3], self.x0[-1, 1] + parts[-2],
                         parts[-1]], dtype=float)

    @property
    def joint_names(self) -> tuple:
        """The joints (q1..qn, at the links' roots) and the tip."""
        return tuple(self.coordinates.actuated) + ("tip",)

    def joint_positions(self, q) -> np.ndarray:
        """Positions (n + 1, 2) [m] of the links' roots and of the tip (the order of
        :attr:`joint_names`)."""
        parts = self._struct(np.asarray(q, dtype=float))      # 3 entries per node
        nodes = [first for first, _ in self._layout] + [len(self.x0) - 1]
        return np.array([self.x0[k] + np.array([parts[3 * k], parts[3 * k + 1]], dtype=float)
                         for k in nodes])

    @property
    def beam_names(self) -> tuple:
        return tuple(f"link{i + 1}" for i in range(self.robot.n))

    def midspan_deflections(self, q) -> np.ndarray:
        """The bending at mid-length (n,) [m] of every link from its chord
        (:func:`~elastodyn.fem.planar_corotational.chord_midspan`; zero for rigid
        links)."""
        q = np.asarray(q, dtype=float)
        if self._rigid_links:
            return np.zeros(self.robot.n)
        out, j = [], self.robot.n
        for _, s in self._layout:
            k = 3 * (len(s) - 1)
            out.append(chord_midspan(s, q[j:j + k].reshape(-1, 3)))
            j += k
        return np.array(out)

    # ------------------------------------------------------------------ dynamics
    def max_strain(self, state) -> float:
        """The largest fibre strain of the planar elements at ``state`` (axial plus
        bending, :meth:`~elastodyn.fem.planar_corotational.PlanarBeamStructure.max_strain`)."""
        return self.structure.max_strain(self._terms(state, full=False)["qs"])

    def elastic_stiffness(self) -> np.ndarray:
        """The linear stiffness over e at the straight arm (no gravity) (n_e, n_e)."""
        if self._Kel is None:
            _, G, _ = self._map(np.zeros(self.n))
            _, _, K, _, _, _ = self._elastic.evaluate(np.zeros(self.structure.dof))
            self._Kel = (G.T @ K @ G)[self.n_actuated:, self.n_actuated:]
        return self._Kel
