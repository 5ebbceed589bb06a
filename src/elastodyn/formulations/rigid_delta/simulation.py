"""Analyses of the rigid Delta: inverse dynamics along a trajectory, forward dynamics
under given torques, and joint-space tracking control (PD and computed torque).

Every function takes a model of :mod:`elastodyn.formulations.rigid_delta.engine` (explicit or
multipliers) and a trajectory of :mod:`elastodyn.trajectories` (3-D), and returns an
immutable result with SI arrays and a ``to_dict()`` for JSON.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ... import _validate
from ...exceptions import DimensionError, InputError
from ...integrators import simulate_state_space
from ...trajectories import Trajectory, sample_times

__all__ = ["TorqueProfile", "inverse_dynamics_along", "forward_simulation", "JointPD",
           "ComputedTorque", "TrackingResult", "simulate_tracking", "sample_times"]


@dataclass(frozen=True, eq=False)
class TorqueProfile:
    """Inverse dynamics along a trajectory.

    Attributes
    ----------
    time : (n,) [s]
    position, velocity, acceleration : (n, 3) [m, m/s, m/s^2]
        Platform motion.
    joint_angle, joint_rate : (n, 3) [rad, rad/s]
    torque : (n, 3) [N m]
    multipliers : (n, 3) [N/m] or None
    lower_link_tension : (n, 3) [N] or None
    period : float or None [s]
    formulation : str
    robot : str
    convention : str
    """

    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    joint_angle: np.ndarray
    joint_rate: np.ndarray
    torque: np.ndarray
    multipliers: np.ndarray | None
    lower_link_tension: np.ndarray | None
    period: float | None
    formulation: str
    robot: str
    convention: str

    def to_dict(self) -> dict:
        """JSON-ready dict; per-actuator quantities are one list per actuator."""
        d = {"robot": self.robot, "formulation": self.formulation,
             "convention": self.convention,
             "time_s": self.time.tolist(),
             "torque_nm": self.torque.T.tolist(),
             "position_m": self.position.T.tolist(),
             "joint_angle_rad": self.joint_angle.T.tolist(),
             "peak_torque_nm": np.abs(self.torque).max(axis=0).tolist()}
        if self.period is not None:
            d["period_s"] = self.period
        if self.multipliers is not None:
            d["multipliers_n_per_m"] = self.multipliers.T.tolist()
            d["lower_link_tension_n"] = self.lower_link_tension.T.tolist()
        return d


def inverse_dynamics_along(model, trajectory: Trajectory, times=None, *, force=None,
                           **sample_options) -> TorqueProfile:
    """Actuator torques (and Kuo's multipliers) along a platform trajectory.

    Parameters
    ----------
    model : ExplicitDeltaEngine or MultiplierDeltaEngine
    trajectory : Trajectory, dim 3
        Platform centre path [m].
    times : array_like, shape (n,), optional
        Sample times [s]; default :func:`sample_times` (``duration``, ``step``).
    force : array_like, shape (3,) or (n, 3), optional
        External force on the platform [N].

    Raises
    ------
    UnreachableError, SingularConfigurationError
        The path leaves the workspace or crosses a singularity.
    """
    if not isinstance(trajectory, Trajectory) or trajectory.dim != 3:
        raise InputError("trajectory", trajectory, "a 3-D Trajectory")
    t = sample_times(trajectory, **sample_options) if times is None else np.asarray(times, float)
    if t.ndim != 1 or t.size == 0:
        raise DimensionError(f"invalid times: expected shape (n,), got {t.shape}")
    s = trajectory.evaluate(t)
    res = model.inverse_dynamics(s.position, s.velocity, s.acceleration, force)
    st = res.state
    return TorqueProfile(t, st.X, st.Xd, st.Xdd, st.q, st.qd, res.torque, res.multipliers,
                         res.lower_link_tension, trajectory.period, model.formulation,
                         model.robot.name, model.robot.geometry.convention)


# ------------------------------------------------------------------ forward dynamics

def forward_simulation(model, torque, X0, Xd0, t_span, *, t_eval=None, method="DOP853",
                       rtol=1e-9, atol=1e-12):
    """Platform motion under prescribed actuator torques (Asadi eq. 43).

    Parameters
    ----------
    model : ExplicitDeltaEngine or MultiplierDeltaEngine
    torque : callable or array_like (3,)
        ``torque(t) -> (3,)`` [N m], or a constant vector.
    X0, Xd0 : array_like, shape (3,)
        Initial platform position [m] and velocity [m/s].
    t_span : (float, float)
        [s].

    Returns
    -------
    StateSpaceResult
        ``state[:, :3]`` = X, ``state[:, 3:]`` = Xd.
    """
    X0 = _validate.vector("X0", X0, 3)
    Xd0 = _validate.vector("Xd0", Xd0, 3)
    if callable(torque):
        u = torque
    else:
        tau = _validate.vector("torque", torque, 3)
        u = lambda t: tau  # noqa: E731
    return simulate_state_space(model.rhs, np.concatenate([X0, Xd0]), t_span=t_span,
                                t_eval=t_eval, method=method, rtol=rtol, atol=atol, u=u)


# ------------------------------------------------------------------ control

@dataclass(frozen=True)
class JointPD:
    """Joint-space PD control: tau = kp (q_d - q) + kd (qd_d - qd) [+ J^-T G(X)].

    Parameters
    ----------
    kp : float
        Proportional gain [N m/rad]; > 0.
    kd : float
        Derivative gain [N m s/rad]; >= 0.
    gravity_compensation : bool
        Add the model's gravity torque J^-T G(X) (default False: the plain PD of
        Asadi's experiment).
    """

    kp: float = 200.0
    kd: float = 10.0
    gravity_compensation: bool = False
    name = "pd"

    def __post_init__(self):
        object.__setattr__(self, "kp", _validate.positive("kp", self.kp))
        object.__setattr__(self, "kd", _validate.non_negative("kd", self.kd))

    def torque(self, model, X, Xd, meas, ref) -> np.ndarray:
        """tau (3,) from the measured (q, qd, ...) and reference (q, qd, qdd, ...) tuples."""
        e = np.angle(np.exp(1j * (np.asarray(ref[0]) - meas[0])))   # wrapped to (-pi, pi]
        tau = self.kp * e + self.kd * (ref[1] - meas[1])
        if self.gravity_compensation:
            zero = np.zeros(3)
            tau = tau + model.torque_point(X, zero, zero)
        return tau


@dataclass(frozen=True)
class ComputedTorque:
    """Joint-space computed-torque control.

    The commanded joint acceleration a = qdd_d + kd (qd_d - qd) + kp (q_d - q) is mapped to
    the platform, Xdd = J^-1 (a - Jd Xd) (Asadi eq. 11), and the model's inverse dynamics
    gives tau. With an exact model the joint error obeys e'' + kd e' + kp e = 0.

    Parameters
    ----------
    kp : float
        [1/s^2]; > 0.
    kd : float
        [1/s]; >= 0.
    """

    kp: float = 400.0
    kd: float = 40.0
    name = "computed-torque"

    def __post_init__(self):
        object.__setattr__(self, "kp", _validate.positive("kp", self.kp))
        object.__setattr__(self, "kd", _validate.non_negative("kd", self.kd))

    def torque(self, model, X, Xd, meas, ref) -> np.ndarray:
        """tau (3,) from the measured (q, qd, qdd, J, Jd) and reference (q, qd, qdd) tuples."""
        q, qd, _, J, Jd = meas
        e = np.angle(np.exp(1j * (np.asarray(ref[0]) - q)))          # wrapped to (-pi, pi]
        a = ref[2] + self.kd * (ref[1] - qd) + self.kp * e
        Xdd = np.linalg.solve(J, a - Jd @ Xd)
        return model.torque_point(X, Xd, Xdd)


@dataclass(frozen=True, eq=False)
class TrackingResult:
    """Closed-loop tracking of a trajectory.

    Attributes
    ----------
    time : (n,) [s]
    position, reference_position : (n, 3) [m]
    joint_angle, reference_joint_angle : (n, 3) [rad]
    torque : (n, 3) [N m]
    controller : str
    """

    time: np.ndarray
    position: np.ndarray
    reference_position: np.ndarray
    joint_angle: np.ndarray
    reference_joint_angle: np.ndarray
    torque: np.ndarray
    controller: str
    robot: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def position_error(self) -> np.ndarray:
        """X - X_ref [m], (n, 3)."""
        return self.position - self.reference_position

    @property
    def joint_error(self) -> np.ndarray:
        """q - q_ref [rad], (n, 3)."""
        return self.joint_angle - self.reference_joint_angle

    def to_dict(self) -> dict:
        e = np.linalg.norm(self.position_error, axis=1)
        return {"robot": self.robot, "controller": self.controller,
                "time_s": self.time.tolist(),
                "position_m": self.position.T.tolist(),
                "reference_position_m": self.reference_position.T.tolist(),
                "joint_error_rad": self.joint_error.T.tolist(),
                "torque_nm": self.torque.T.tolist(),
                "max_position_error_m": float(e.max()),
                "final_position_error_m": float(e[-1]), **self.extra}


def simulate_tracking(plant, trajectory: Trajectory, controller, *, duration: float | None = None,
                      step: float = 1e-2, controller_model=None, initial_offset=(0.0, 0.0, 0.0),
                      method: str = "RK45", rtol: float = 1e-7, atol: float = 1e-10,
                      progress=None) -> TrackingResult:
    """Simulate a joint-space controller tracking a platform trajectory.

    The plant is integrated in the state (X, Xd) (Asadi eq. 43); the controller sees the
    joint angles q = IK(X) and rates J Xd (what encoders measure) and the reference
    q_d = IK(X_d), qd_d = J Xd_d, qdd_d (eq. 11).

    Parameters
    ----------
    plant : ExplicitDeltaEngine or MultiplierDeltaEngine
        The simulated robot (friction included).
    trajectory : Trajectory, dim 3
    controller : JointPD or ComputedTorque
    duration : float, optional
        [s]; default one period (periodic) or the motion interval.
    step : float
        Output step [s]; > 0.
    controller_model : model, optional
        The model used by the controller (gravity compensation, computed torque);
        default the plant itself (exact model).
    initial_offset : array_like, shape (3,)
        Initial platform position minus the reference [m] (default on the path).
    progress : callable(t, T), optional
        Called with the integrated time t [s] from the start of the window and the
        window T [s] as the integration advances: at most about every T/100, with t
        increasing, and once with (T, T) at the end. It does not change the results.

    Returns
    -------
    TrackingResult
    """
    if not isinstance(controller, (JointPD, ComputedTorque)):
        raise InputError("controller", controller, "a JointPD or ComputedTorque")
    cmodel = plant if controller_model is None else controller_model
    times = sample_times(trajectory, duration=duration, step=step)
    kin = plant.kinematics
    s0 = trajectory.evaluate(times[:1])
    X0 = s0.position[0] + _validate.vector("initial_offset", initial_offset, 3)
    x0 = np.concatenate([X0, s0.velocity[0]])

    def control(t, x):
        s = trajectory.evaluate(np.array([t]))
        ref = cmodel.joint_point(s.position[0], s.velocity[0], s.acceleration[0])
        meas = cmodel.joint_point(x[:3], x[3:])
        return controller.torque(cmodel, x[:3], x[3:], meas, ref)

    t0, T = float(times[0]), float(times[-1] - times[0])
    next_report = [t0]

    def rhs(t, x, u, params):
        if progress is not None and t >= next_report[0]:
            next_report[0] = t + T / 100.0
            progress(min(t - t0, T), T)
        return plant.rhs(t, x, control(t, x))

    sol = simulate_state_space(rhs, x0, t_span=(times[0], times[-1]), t_eval=times,
                               method=method, rtol=rtol, atol=atol)
    if progress is not None:
        progress(T, T)
    X = sol.state[:, :3]
    Xd = sol.state[:, 3:]
    s = trajectory.evaluate(times)
    ref = kin.state(s.position, s.velocity, s.acceleration)
    st = kin.state(X, Xd)
    tau = np.array([control(t, x) for t, x in zip(times, sol.state)])
    return TrackingResult(times, X, s.position, st.q, ref.q, tau, controller.name,
                          plant.robot.name)
