"""Numerical front end of the assumed-modes arm model (Yu & Chen 2019): compiled
dynamics, friction, energy, kinematics and linearization.

The symbolic model (:func:`~elastodyn.formulations.amm.generator.generate_amm`) is generated
once per arm with its numbers as constants and compiled
(:func:`~elastodyn.symbolic.compiled.compile_program`).
"""
from __future__ import annotations

import numpy as np

from ..._validate import complex_step_active, real_array
from ...description.arm import PlanarArm
from ...kinematics.arm import two_link_inverse_kinematics
from ...exceptions import InputError
from ...fem.assumed_modes import ModeShapes
from ...symbolic.compiled import compile_program
from ...symbolic.complex_eval import ComplexProgram
from .generator import generate_amm

__all__ = ["AMMEngine"]


class AMMEngine:
    """Planar flexible arm by assumed modes: M q_dd + H q_d + N = B (tau - tau_f).

    q = (theta_1..n [rad], f_11..f_ns [m]) (n + n s,); tau the joint torques [N m]
    (n,); tau_f the joint friction of the geared motors (:meth:`friction`). The rigid
    bodies of the arm (lumped masses with rotary inertias, hubs, payload:
    :mod:`elastodyn.description.arm`) are in M, H and N.
    """

    def __init__(self, arm: PlanarArm):
        if not isinstance(arm, PlanarArm):
            raise InputError("arm", type(arm).__name__, "a PlanarArm")
        self.arm = arm
        # built inside a complex step (frequency_sensitivity): the program evaluates in
        # complex arithmetic, never compiled (nor looked up in the library cache)
        self.complex = complex_step_active()
        self.program, self.sym = generate_amm(arm)
        self.n, self.s = arm.n, arm.modes
        self.nq = self.n + self.n * self.s
        self.shapes = ModeShapes(arm.basis, arm.modes)
        self._f = None
        self._friction_laws = {}

    @property
    def generation_time_s(self) -> float:
        return self.program.generation_time_s

    @property
    def compiled(self):
        if self._f is None:
            self._f = (ComplexProgram(self.program) if self.complex
                       else compile_program(self.program))
        return self._f

    def _check(self, q, qd):
        q = real_array(q).reshape(self.nq)          # complex in a complex step
        qd = real_array(qd).reshape(self.nq)
        return q, qd

    def dynamics(self, q, qd, tau=None) -> dict:
        """M, H ((nq, nq)), N, F, c ((nq,)) and B ((nq, n)) at (q, qd) for torques tau
        (default 0; friction not included)."""
        q, qd = self._check(q, qd)
        tau = np.zeros(self.n) if tau is None else np.asarray(tau, dtype=float)
        out = self.compiled(q, qd, tau)
        return {k: (v.ravel() if v.shape[1] == 1 and k != "B" else v) for k, v in out.items()}

    def friction(self, theta_d, smoothing_velocity: float = 0.0) -> np.ndarray:
        """Joint friction torques (n,) [N m] of the geared motors for joint rates theta_d
        (n,) [rad/s]: r kc sgn(theta_d) + r^2 kv theta_d (motor-side Coulomb kc and
        viscous kv through the gear ratio r), by
        :meth:`~elastodyn.description.friction.Friction.torque` of each link's
        :meth:`~elastodyn.description.arm.ArmLink.joint_friction`.

        Decision: sgn is the exact sign by default (``smoothing_velocity`` = 0 [rad/s]):
        the friction law evaluated at a state, as :meth:`accelerations` uses it. A
        simulation that integrates through rest passes
        :data:`~elastodyn.description.arm.COULOMB_SMOOTHING` (tanh(theta_d / 1e-3), as
        :func:`~elastodyn.formulations.amm.simulation.simulate_pd` does), so that the joints do not chatter.
        """
        w = np.asarray(theta_d, dtype=float).reshape(self.n)
        laws = self._friction_laws.get(smoothing_velocity)
        if laws is None:
            laws = tuple(lk.joint_friction(smoothing_velocity) for lk in self.arm.links)
            self._friction_laws[smoothing_velocity] = laws
        return np.array([law.torque(w[i]) for i, law in enumerate(laws)])

    def accelerations(self, q, qd, tau, friction: bool = True) -> np.ndarray:
        """q_dd (nq,) = M^-1 (B (tau - tau_f) - c), with tau_f = :meth:`friction` of the
        chord-angle rates qd[:n] (exact sign)."""
        d = self.dynamics(q, qd)
        t = np.asarray(tau, dtype=float) - (self.friction(qd[:self.n]) if friction else 0.0)
        return np.linalg.solve(d["M"], d["B"] @ t - d["c"])

    # ------------------------------------------------------------------ kinematics, energy
    def frames(self, q):
        """Chord unit vectors e (n, 2), normals n (n, 2) and end points p (n + 1, 2) [m]
        (p[0] the base joint)."""
        q = real_array(q)                         # complex in a complex step
        ang = np.cumsum(q[:self.n])
        e = np.column_stack([np.cos(ang), np.sin(ang)])
        nv = np.column_stack([-e[:, 1], e[:, 0]])
        L = np.array([lk.length for lk in self.arm.links])
        p = np.vstack([np.zeros(2), np.cumsum(L[:, None] * e, axis=0)])
        return e, nv, p

    def tips(self, q) -> np.ndarray:
        """Link tip positions (n, 2) [m] (the chord frames pass through them)."""
        return self.frames(q)[2][1:]

    def potential(self, q) -> float:
        """Gravity plus elastic energy [J]: g sum_i (m_t p_i + R s)_y + f^T K f / 2, with
        m_t = m_i + sum M and s = (-m L / 2 + sum M mu L, b^T f), b = m beta + sum M
        phi(1 + mu), over the rigid bodies of link i (:meth:`PlanarArm.link_bodies`;
        written here independently of the generator)."""
        q = np.asarray(q, dtype=float)
        e, nv, p = self.frames(q)
        it = self.shapes.integrals
        V = 0.0
        for i, lk in enumerate(self.arm.links):
            f = q[self.n + i * self.s:self.n + (i + 1) * self.s]
            mt, sx, b = lk.mass, -lk.mass * lk.length / 2, lk.mass * it["beta"]
            for mass, _, mu in self.arm.link_bodies(i):
                mt += mass
                sx += mass * mu * lk.length
                b = b + mass * self.shapes.values([1.0 + mu])[0]
            Rs = sx * e[i] + (b @ f) * nv[i]
            V += self.arm.gravity * (mt * p[i + 1, 1] + Rs[1])
            V += 0.5 * lk.E * lk.I / lk.length ** 3 * f @ it["kappa"] @ f
        return V

    def energy(self, q, qd) -> float:
        """T + V [J]."""
        q, qd = self._check(q, qd)
        return 0.5 * qd @ self.dynamics(q, qd)["M"] @ qd + self.potential(q)

    @property
    def stiffness(self) -> np.ndarray:
        """K (nq, nq): zero on the joints, E I / L^3 int phi'' phi''^T on each link."""
        kap = self.shapes.integrals["kappa"]
        blocks = [lk.E * lk.I / lk.length ** 3 * kap for lk in self.arm.links]
        K = np.zeros((self.nq, self.nq), np.result_type(*blocks, float))
        for i, blk in enumerate(blocks):
            a = self.n + i * self.s
            K[a:a + self.s, a:a + self.s] = blk
        return K

    def inverse_kinematics(self, xy, elbow: str = "down") -> np.ndarray:
        """Rigid two-link inverse kinematics: joint angles (2,) [rad] placing the tip of
        link 2 at xy [m]; elbow "down" (theta_2 < 0) or "up"."""
        if self.n != 2:
            raise InputError("arm", self.n, "two links for the inverse kinematics")
        l1, l2 = (lk.length for lk in self.arm.links)
        return two_link_inverse_kinematics(l1, l2, xy, elbow)
