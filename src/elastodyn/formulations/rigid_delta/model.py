"""The rigid Delta models (Asadi & Heydari 2020 explicit; Kuo 2016 multipliers) on the
model contract (:mod:`elastodyn.model`).

Contract coordinates are the three actuated angles q (rad, in the robot's convention);
the platform position X is the pose. The papers write the dynamics in task space,
M_X Xdd + C_X Xd + G = J^T (tau - tau_f) (Asadi eq. 39); with qd = J Xd and
qdd = J Xdd + Jd Xd (Asadi eqs. 9, 12) the same equations in the actuated coordinates
read M_q qdd + c_q = tau with

    M_q = J^-T M_X J^-1,    c_q = J^-T (C_X Xd + G - M_X J^-1 Jd Xd) + tau_f(qd),

so that the contract's input matrix is the identity. The multiplier model (Kuo) has no
explicit M: its forward dynamics is affine in tau, and M_q^-1 is read off its response
to unit torques (exact up to round-off).
"""
from __future__ import annotations

import numpy as np

from ...description.delta import RigidDelta
from ...exceptions import InputError
from ...model import Coordinates, Efforts, MotionResponse, RunReport, State
from ..base import NonlinearModel
from .engine import delta_model

__all__ = ["RigidDeltaModel"]


class RigidDeltaModel(NonlinearModel):
    """A rigid Delta (``explicit`` or ``multipliers``) answering the model contract.

    Parameters
    ----------
    robot : RigidDelta
    formulation : {"explicit", "multipliers"}
    """

    default_preload = True  # a rigid robot has no elastic structure: the tangent is all
    pose_names = ("x", "y", "z")

    def __init__(self, robot: RigidDelta, formulation: str = "explicit"):
        self.robot = robot
        self.formulation = formulation
        self.model = delta_model(robot, formulation)
        self.kinematics = self.model.kinematics
        self.options = {}
        self.coordinates = Coordinates(("q1", "q2", "q3"), ("rad",) * 3, ("actuated",) * 3)
        caps = {"state", "pose", "inverse_kinematics", "mass_matrix", "bias", "linearize",
                "inverse_dynamics", "direct_dynamics", "energy", "inverse_dynamics_along",
                "task_kinematics", "simulate_controlled"}
        if formulation == "explicit":
            caps |= {"program", "export_closure"}
        self.capabilities = frozenset(caps)

    # ------------------------------------------------------------------ motions
    def inverse_dynamics_along(self, trajectory, times) -> MotionResponse:
        """Torques along a platform path, batched
        (:func:`~elastodyn.formulations.rigid_delta.simulation.inverse_dynamics_along`;
        :class:`~elastodyn.model.InverseDynamicsAlong`); ``extra``: Kuo's multipliers
        and the lower links' tensions for the multipliers model."""
        from .simulation import inverse_dynamics_along
        if trajectory.space != "task" or trajectory.dim != 3:
            raise InputError("--trajectory", trajectory.space,
                             "a platform path (3-D) for the rigid Delta")
        prof = inverse_dynamics_along(self.model, trajectory, np.asarray(times, float))
        extra, cols = {}, {}
        if prof.multipliers is not None:
            extra["multipliers_n_per_m"] = prof.multipliers
            extra["lower_link_tension_n"] = prof.lower_link_tension
            cols["multipliers_n_per_m"] = [f"lambda{i}_n_per_m" for i in (1, 2, 3)]
            cols["lower_link_tension_n"] = [f"tension{i}_n" for i in (1, 2, 3)]
        summary = {}
        if prof.lower_link_tension is not None:
            summary["lower_link_tension_range_n"] = [float(prof.lower_link_tension.min()),
                                                     float(prof.lower_link_tension.max())]
        return MotionResponse(prof.time, prof.joint_angle, prof.torque, prof.torque,
                              prof.position, prof.position, np.zeros((len(prof.time), 0)),
                              extra=extra, columns=cols, summary=summary,
                              method="inverse dynamics", description=self.formulation)

    controllers = ("pd", "computed-torque")

    def simulate_controlled(self, trajectory, controller: dict, duration: float,
                            step: float, *, initial_offset=None,
                            free_vibration: bool = False, progress=None) -> RunReport:
        """Joint-space tracking of a platform path
        (:func:`~elastodyn.formulations.rigid_delta.simulation.simulate_tracking`: Asadi
        2020's PD, with gravity compensation on demand, or computed torque)."""
        from .simulation import ComputedTorque, JointPD, sample_times, simulate_tracking
        if free_vibration:
            raise InputError("--free-vibration", True, "only for an arm (Yu's case 1)")
        kind = controller.get("kind", "pd")
        if kind == "pd":
            c = JointPD(controller.get("kp", 200.0), controller.get("kd", 10.0),
                        bool(controller.get("gravity_compensation", False)))
        else:
            if controller.get("gravity_compensation"):
                raise InputError("--gravity-compensation", True, "only with --controller pd")
            c = ComputedTorque(controller.get("kp", 400.0), controller.get("kd", 40.0))
        offset = (0.0, 0.0, 0.0) if initial_offset is None else tuple(initial_offset)
        plant = self.model
        times = sample_times(trajectory, duration=duration, step=step)
        s = trajectory.evaluate(times)
        plant.kinematics.state(s.position, s.velocity)   # the reference path is valid
        plant.kinematics.state(s.position[0] + np.asarray(offset, float))
        res = simulate_tracking(plant, trajectory, c, duration=duration, step=step,
                                initial_offset=offset, progress=progress)
        names = list(self.coordinates.actuated)
        q = {"time_s": res.time, "ee_position_m": res.position,
             "reference_position_m": res.reference_position,
             "position_error_m": res.position_error, "joint_error_rad": res.joint_error,
             "torque_nm": res.torque}
        cols = {"ee_position_m": [f"ee_{x}_m" for x in "xyz"],
                "reference_position_m": [f"reference_{x}_m" for x in "xyz"],
                "position_error_m": [f"error_{x}_m" for x in "xyz"],
                "joint_error_rad": [f"{n}_error_rad" for n in names],
                "torque_nm": [f"{n}_torque_nm" for n in names]}
        e = np.linalg.norm(res.position_error, axis=1)
        summary = {"max_position_error_m": float(e.max()),
                   "final_position_error_m": float(e[-1]),
                   "peak_torque_nm": np.abs(res.torque).max(axis=0).tolist()}
        return RunReport(q, cols, summary,
                         {"kp": c.kp, "kd": c.kd, "initial_offset_m": list(offset)},
                         description=(f"{c.name} tracking over "
                                      f"{res.time[-1] - res.time[0]:.4g} s (kp = {c.kp:g}, "
                                      f"kd = {c.kd:g}; plant {self.formulation})"))

    # ------------------------------------------------------------------ states
    def home_actuated(self) -> np.ndarray:
        g = self.robot.geometry
        z = 0.5 * (g.upper_length + g.lower_length)
        return self.inverse_kinematics([0.0, 0.0, z])

    def inverse_kinematics(self, pose) -> np.ndarray:
        X = np.asarray(pose, dtype=float).reshape(-1)
        if X.shape != (3,):
            raise InputError("pose", X.tolist(), "a platform position X Y Z [m]")
        return np.asarray(self.kinematics.inverse_kinematics(X), dtype=float).reshape(3)

    def _complete(self, st: State) -> State:
        q = st.actuated
        X = st.detail.get("X")
        if X is None or not np.allclose(self.kinematics.inverse_kinematics(X).reshape(-1), q,
                                        rtol=0, atol=1e-12):
            X = np.asarray(self.kinematics.forward_kinematics(q), dtype=float).reshape(3)
        Xd = np.linalg.solve(self.kinematics.jacobian(X, q=q).reshape(3, 3),
                             st.actuated_rates)
        ks = self.kinematics.state(X, Xd, q=q)
        J, Jd = ks.J[0], ks.Jd[0]
        Xdd = np.linalg.solve(J, st.actuated_accelerations - Jd @ Xd)
        detail = dict(st.detail, X=X, Xd=Xd, Xdd=Xdd, J=J, Jd=Jd)
        return st.with_(pose=X, detail=detail)

    # ------------------------------------------------------------------ dynamics
    def _task(self, st: State):
        d = st.detail
        return d["X"], d["Xd"], d["J"], d["Jd"]

    def mass_matrix(self, st: State) -> np.ndarray:
        X, Xd, J, Jd = self._task(st)
        if self.formulation == "explicit":
            M, _, _, _ = self.model.matrices(X, Xd)
            Ji = np.linalg.inv(J)
            return Ji.T @ M[0] @ Ji
        return np.linalg.inv(self._inverse_mass(st))

    def _inverse_mass(self, st: State) -> np.ndarray:
        """M_q^-1 from the multiplier model's response to unit torques (affine in tau)."""
        X, Xd, J, Jd = self._task(st)
        a0 = J @ self.model.forward_dynamics(X, Xd, np.zeros(3))
        cols = [J @ self.model.forward_dynamics(X, Xd, np.eye(3)[k]) - a0 for k in range(3)]
        return np.column_stack(cols)

    def bias(self, st: State) -> np.ndarray:
        X, Xd, J, Jd = self._task(st)
        if self.formulation == "explicit":
            M, C, G, _ = self.model.matrices(X, Xd)
            Ji = np.linalg.inv(J)
            c = Ji.T @ (C[0] @ Xd + G[0] - M[0] @ Ji @ (Jd @ Xd))
            f = self.robot.friction
            return c + (0.0 if f.is_zero else f.torque(st.actuated_rates))
        # tau = M_q qdd + c_q: qdd at zero torque is -M_q^-1 c_q
        qdd0 = J @ self.model.forward_dynamics(X, Xd, np.zeros(3)) + Jd @ Xd
        return -self.mass_matrix(st) @ qdd0

    def inverse_dynamics(self, st: State) -> Efforts:
        X, Xd, J, Jd = self._task(st)
        Xdd = st.detail["Xdd"]
        tau = self.model.inverse_dynamics(X, Xd, Xdd, q=st.actuated).torque[0]
        return Efforts(tau, np.zeros(0))

    def direct_dynamics(self, st: State, tau) -> np.ndarray:
        X, Xd, J, Jd = self._task(st)
        Xdd = self.model.forward_dynamics(X, Xd, np.asarray(tau, dtype=float))
        return J @ Xdd + Jd @ Xd

    def energy(self, st: State) -> tuple[float, float]:
        """Kinetic and potential energy [J] (independent of M: from every body's velocity
        and height, :meth:`ExplicitDeltaEngine.energy`)."""
        T, V = self.model.energy(st.detail["X"], st.detail["Xd"])
        return float(T[0]), float(V[0])

    def elastic_stiffness(self) -> np.ndarray:
        return np.zeros((0, 0))

    def program(self, problem: str = "model"):
        """The explicit model M, C, G, J as a symbolic program (Asadi eqs. 39-42;
        :func:`~.rigid_delta_symbolic.generate_explicit_delta`)."""
        if self.formulation != "explicit":
            raise InputError("--formulation", self.formulation, "explicit (the symbolic "
                             "model of the rigid Delta is Asadi's explicit one)")
        if problem != "model":
            raise InputError("--problem", problem, "model (M, C, G, J) for a rigid Delta")
        from .symbolic import generate_explicit_delta
        return generate_explicit_delta(self.robot)

    def export_closure(self):
        """The loop closure printed next to the exported model (``generate``): the same
        model from the actuated joints, X by the closed-form forward kinematics
        (:func:`~.rigid_delta_symbolic.generate_explicit_delta_actuated`)."""
        from .symbolic import generate_explicit_delta_actuated
        return generate_explicit_delta_actuated(self.robot)
