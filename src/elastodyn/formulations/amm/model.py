"""Planar flexible arms by assumed modes (Yu & Chen 2019) on the model contract.

The assumed-modes model's coordinates are the chord angles theta and the modal
amplitudes f (M q_dd + H q_d + N = B (tau - tau_f), :class:`~.amm_model.AMMArmModel`).
The motors turn the shaft angles B^T q = theta_i + y_i'(0) - y_{i-1}'(L) (the encoder
angles, work conjugates of tau). The contract's actuated coordinates are these shaft
angles, so the efforts act on them alone: with q_model = T q_c,
T = [[I, -B_f^T], [0, I]] (constant), M_c = T^T M T, c_c = T^T (H q_d + N) + [tau_f; 0]
and T^T B = [I; 0]. The pose is the tip of the last link (x0, y0, 0) [m].
"""
from __future__ import annotations

import numpy as np

from ...description.arm import PlanarArm
from ...exceptions import InputError
from ...model import Coordinates, State
from .engine import AMMArmModel
from ..base import NONLINEAR_CAPABILITIES, NonlinearModel

__all__ = ["AMMContract"]


class AMMContract(NonlinearModel):
    """A PlanarArm by assumed modes answering the model contract (module docstring)."""

    formulation = "amm"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "program", "energy"}
    default_preload = False

    def __init__(self, arm: PlanarArm, options: dict | None = None):
        if not isinstance(arm, PlanarArm):
            raise InputError("robot", type(arm).__name__, "a PlanarArm")
        self.robot = arm
        self.model = AMMArmModel(arm)
        self.options = dict(options or {"modes": arm.modes, "basis": arm.basis})
        n, s = arm.n, arm.modes
        z = np.zeros(self.model.nq)
        B = self.model.dynamics(z, z)["B"]
        self.T = np.eye(self.model.nq, dtype=B.dtype)   # complex in a complex step
        self.T[:n, n:] = -B[n:, :].T
        names = tuple(f"q{i + 1}" for i in range(n)) + tuple(
            f"link{i + 1}.f{k + 1}" for i in range(n) for k in range(s))
        self.coordinates = Coordinates(names, ("rad",) * n + ("m",) * (n * s),
                                       ("actuated",) * n + ("elastic",) * (n * s))
        if n == 2:
            self.capabilities = self.capabilities | {"inverse_kinematics"}

    def inverse_kinematics(self, pose) -> np.ndarray:
        """Shaft angles (2,) [rad] of the undeformed two-link arm with its tip at pose
        (x0, y0) [m], elbow down."""
        if "inverse_kinematics" not in self.capabilities:
            return super().inverse_kinematics(pose)
        p = np.asarray(pose, dtype=float).reshape(-1)
        if p.shape != (2,):
            raise InputError("pose", p.tolist(), "a tip position x y [m]")
        return self.model.inverse_kinematics(p)

    def _complete(self, st: State) -> State:
        qm = self.T @ st.q
        return st.with_(pose=np.append(self.model.tips(qm)[-1], 0.0))

    def _dyn(self, st: State):
        d = self.model.dynamics(self.T @ st.q, self.T @ st.v)
        return d

    def mass_matrix(self, st: State) -> np.ndarray:
        return self.T.T @ self._dyn(st)["M"] @ self.T

    def bias(self, st: State) -> np.ndarray:
        c = self.T.T @ self._dyn(st)["c"]
        c[:self.n_actuated] += self.model.friction(st.actuated_rates)
        return c

    def residual(self, st: State) -> np.ndarray:
        d = self._dyn(st)
        r = self.T.T @ (d["M"] @ (self.T @ st.a) + d["c"])
        r[:self.n_actuated] += self.model.friction(st.actuated_rates)
        return r

    def elastic_stiffness(self) -> np.ndarray:
        n = self.n_actuated
        return self.model.stiffness[n:, n:]

    def energy(self, st: State) -> tuple[float, float]:
        """Kinetic energy q_d^T M q_d / 2 and potential energy (gravity and bending,
        :meth:`AMMArmModel.potential`, computed from the link geometry, not from M) [J]."""
        v = self.T @ st.v
        T = 0.5 * v @ self._dyn(st)["M"] @ v
        return float(T), float(self.model.potential(self.T @ st.q))

    def program(self, problem: str = "model"):
        """The generated assumed-modes program (M, H, N, F, B, c) in the model's own
        coordinates (chord angles, modal amplitudes)."""
        if problem != "model":
            raise InputError("--problem", problem, "model for an assumed-modes arm")
        return self.model.program
