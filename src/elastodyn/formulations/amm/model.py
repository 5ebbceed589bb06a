"""Planar flexible arms by assumed modes (Yu & Chen 2019) on the model contract.

The assumed-modes model's coordinates are the chord angles theta and the modal
amplitudes f (M q_dd + H q_d + N = B (tau - tau_f), :class:`~.amm_model.AMMEngine`).
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
from ...model import Coordinates, RunReport, State
from .engine import AMMEngine
from ..base import NONLINEAR_CAPABILITIES, NonlinearModel, beam_extent

__all__ = ["AMMModel"]


class AMMModel(NonlinearModel):
    """A PlanarArm by assumed modes answering the model contract (module docstring)."""

    formulation = "amm"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "program", "energy",
                                             "simulate_controlled", "small_deformation"}
    controllers = ("pd",)
    default_preload = False

    def __init__(self, arm: PlanarArm, options: dict | None = None):
        if not isinstance(arm, PlanarArm):
            raise InputError("robot", type(arm).__name__, "a PlanarArm")
        self.robot = arm
        self.model = AMMEngine(arm)
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

    def deformation_extent(self, elastic) -> tuple[np.ndarray, np.ndarray]:
        """The largest transverse deflection over its link's length (n_t,) [-] and the
        largest slope (n_t,) [rad] of elastic coordinates (n_t, n_e), relative to the
        links' chords, at 4 points per mode plus 9 along each link
        (:class:`~elastodyn.model.SmallDeformation`)."""
        s = self.robot.modes
        xi = np.linspace(0.0, 1.0, 4 * s + 9)
        D = self.model.shapes.values(xi)[:, None, :]             # (n_s, 1, s)
        D1 = self.model.shapes.values(xi, 1)[:, None, :]
        rows = [(list(range(i * s, (i + 1) * s)), D, D1 / float(np.real(lk.length)),
                 float(np.real(lk.length))) for i, lk in enumerate(self.robot.links)]
        return beam_extent(elastic, rows)

    def energy(self, st: State) -> tuple[float, float]:
        """Kinetic energy q_d^T M q_d / 2 and potential energy (gravity and bending,
        :meth:`AMMEngine.potential`, computed from the link geometry, not from M) [J]."""
        v = self.T @ st.v
        T = 0.5 * v @ self._dyn(st)["M"] @ v
        return float(T), float(self.model.potential(self.T @ st.q))

    def simulate_controlled(self, trajectory, controller: dict, duration: float,
                            step: float, *, initial_offset=None,
                            free_vibration: bool = False, progress=None) -> RunReport:
        """Yu 2019's joint PD on the encoder angles
        (:func:`~elastodyn.formulations.amm.simulation.simulate_pd`): tracking a
        joint-space trajectory or a two-link arm's planar path, or (``free_vibration``)
        holding the start and releasing the arm undeformed, with the spectrum of the last
        link's vertical tip acceleration and the linearized loop's frequencies."""
        import math

        from . import simulation as A
        if initial_offset is not None:
            raise InputError("--offset", list(initial_offset), "only for a rigid Delta")
        kp, kd = float(controller.get("kp", 125.0)), float(controller.get("kd", 25.0))
        for nm, v in (("--kp", kp), ("--kd", kd)):
            if not (v > 0 and math.isfinite(v)):
                raise InputError(nm, v, "a finite gain > 0")
        amm = self.model
        hold = (trajectory.evaluate(np.array([trajectory.t_start])).position[0]
                if free_vibration else None)
        if hold is not None:
            ref = A.hold_reference(hold)
        elif trajectory.space == "task":
            if trajectory.dim != 2 or amm.n != 2:
                raise InputError("--trajectory", "task", "a planar path of a two-link arm "
                                 "(or a joint-space trajectory)")
            ref = A.circle_reference(amm, trajectory)
        else:
            def ref(t):
                s = trajectory.evaluate(np.asarray(t, dtype=float))
                return s.position, s.velocity
        sim = A.simulate_pd(amm, ref, duration, kp, kd, step=step, progress=progress)
        vt = A.joint_angles(amm, sim.q)
        n = amm.n
        names = list(self.coordinates.actuated)
        q = {"time_s": sim.time, "theta_rad": vt, "theta_ref_rad": sim.theta_ref,
             "chord_theta_rad": sim.q[:, :n], "torque_nm": sim.tau,
             "elastic": sim.q[:, n:], "elastic_names": list(self.coordinates.elastic),
             "tip_position_m": sim.tip_position.reshape(len(sim.time), -1),
             "tip_acceleration_m_s2": sim.tip_acceleration.reshape(len(sim.time), -1)}
        cols = {"theta_rad": [f"theta{i + 1}_rad" for i in range(n)],
                "theta_ref_rad": [f"theta{i + 1}_ref_rad" for i in range(n)],
                "chord_theta_rad": [f"chord_theta{i + 1}_rad" for i in range(n)],
                "torque_nm": [f"{nm}_torque_nm" for nm in names],
                "elastic": [f"{nm}_m" for nm in self.coordinates.elastic],
                "tip_position_m": [f"tip{i + 1}_{c}_m" for i in range(n) for c in "xy"],
                "tip_acceleration_m_s2": [f"tip{i + 1}_a{c}_m_s2" for i in range(n)
                                          for c in "xy"]}
        summary = {"max_tracking_error_rad": np.abs(vt - sim.theta_ref).max(axis=0).tolist(),
                   "peak_torque_nm": np.abs(sim.tau).max(axis=0).tolist()}
        if hold is not None:
            qe, lam, w_lin, zeta = A.linearized_closed_loop(amm, np.asarray(hold), kp, kd)
            peaks, f, amp = A.spectrum_peaks(sim.time, sim.tip_acceleration[:, -1, 1])
            summary["omega_spectrum_rad_s"] = peaks.tolist()
            q["omega_spectrum_rad_s"] = peaks.tolist()
            summary["omega_linearized_rad_s"] = lam.imag[:2].tolist()
            summary["damping_ratio_linearized"] = zeta[:2].tolist()
            summary["natural_linearized_rad_s"] = w_lin.tolist()
            q["spectrum_frequency_hz"] = f
            q["spectrum_amplitude"] = amp
        case = "free vibration" if hold is not None else "tracking"
        return RunReport(q, cols, summary, {"kp": kp, "kd": kd}, description=(
            f"{case} under joint PD (kp = {kp:g}, kd = {kd:g}) over {duration:g} s "
            f"({amm.s} {amm.arm.basis} mode(s) per link)"))

    def program(self, problem: str = "model"):
        """The generated assumed-modes program (M, H, N, F, B, c) in the model's own
        coordinates (chord angles, modal amplitudes)."""
        if problem != "model":
            raise InputError("--problem", problem, "model for an assumed-modes arm")
        return self.model.program
