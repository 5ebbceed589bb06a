"""Common result type, abstract base class and input helpers of the trajectories."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..exceptions import DimensionError, InputError
from ..timegrid import uniform_times

__all__ = ["TrajectorySample", "Trajectory", "PeriodicPath", "SPACES", "sample_times"]

#: Allowed values of :attr:`Trajectory.space`: ``"task"`` (positions of the
#: end-effector / platform) and ``"joint"`` (values of the actuated coordinates, in the
#: order of the robot's actuators).
SPACES = ("task", "joint")


@dataclass(frozen=True, eq=False)
class TrajectorySample:
    """Position and its first three time derivatives at a set of times.

    Parameters
    ----------
    time : numpy.ndarray, shape (n,)
        Sample times in s.
    position : numpy.ndarray, shape (n, dim)
        Position in m (or in the joint's SI unit, e.g. m for a prismatic joint).
    velocity : numpy.ndarray, shape (n, dim)
        First time derivative of ``position`` (m/s).
    acceleration : numpy.ndarray, shape (n, dim)
        Second time derivative of ``position`` (m/s^2).
    jerk : numpy.ndarray, shape (n, dim)
        Third time derivative of ``position`` (m/s^3).

    Notes
    -----
    The arrays are made read-only so that a sample cannot be modified in place.
    """

    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray

    def __post_init__(self) -> None:
        time = np.asarray(self.time, dtype=float)
        if time.ndim != 1:
            raise DimensionError(f"invalid time: expected shape (n,), got {time.shape}")
        object.__setattr__(self, "time", readonly(time))
        shape = None
        for name in ("position", "velocity", "acceleration", "jerk"):
            arr = np.asarray(getattr(self, name), dtype=float)
            if arr.ndim != 2 or arr.shape[0] != time.size:
                raise DimensionError(
                    f"invalid {name}: expected shape ({time.size}, dim), got {arr.shape}"
                )
            if shape is not None and arr.shape != shape:
                raise DimensionError(f"invalid {name}: expected shape {shape}, got {arr.shape}")
            shape = arr.shape
            object.__setattr__(self, name, readonly(arr))

    @property
    def dim(self) -> int:
        """Number of coordinates per sample."""
        return int(self.position.shape[1])

    def __len__(self) -> int:
        return int(self.time.size)


class Trajectory(ABC):
    """Interface shared by every trajectory.

    Attributes
    ----------
    dim : int
        Number of coordinates (>= 1).
    t_start, t_end : float
        Time interval of the motion in s; ``t_end`` is ``math.inf`` for periodic
        trajectories.
    period : float or None
        Period in s of a periodic trajectory, ``None`` otherwise.
    space : {"task", "joint"}
        What the coordinates are (see :data:`SPACES`): ``"task"``, positions of the
        end-effector / platform (m), or ``"joint"``, values of the actuated
        coordinates in the order of the robot's actuators (m or rad). The base class
        answers ``"task"``; the laws used both ways (:class:`RestToRest`,
        :class:`BangBang`, :class:`PiecewiseTrajectory`, :class:`TableTrajectory`)
        take ``space=`` at construction.

    Notes
    -----
    Non-periodic trajectories hold their end values outside ``[t_start, t_end]``
    (position constant, velocity, acceleration and jerk zero). Periodic ones are
    evaluated by their formula at every time.
    """

    #: ``"task"`` or ``"joint"`` (see :data:`SPACES`); ``"task"`` unless a subclass or
    #: an instance says otherwise (a plain class attribute, so that dataclass
    #: subclasses can make it a field).
    space: str = "task"

    @property
    @abstractmethod
    def dim(self) -> int:
        """Number of coordinates."""

    @property
    @abstractmethod
    def t_start(self) -> float:
        """Start time in s."""

    @property
    @abstractmethod
    def t_end(self) -> float:
        """End time in s (``math.inf`` if periodic)."""

    @property
    def period(self) -> float | None:
        """Period in s, or ``None`` for a non-periodic trajectory."""
        return None

    @property
    def duration(self) -> float:
        """``t_end - t_start`` in s (``math.inf`` for periodic trajectories)."""
        return self.t_end - self.t_start

    @abstractmethod
    def evaluate(self, t) -> TrajectorySample:
        """Evaluate position, velocity, acceleration and jerk.

        Parameters
        ----------
        t : float or array_like, shape (n,)
            Finite times in s. A scalar gives a sample of length 1.

        Returns
        -------
        TrajectorySample
            Arrays of shape (n,) for ``time`` and (n, dim) for the rest.
        """


class PeriodicPath(Trajectory):
    r"""A periodic trajectory that runs along a path at a constant phase rate.

    .. math::

        p(t) = P(\theta(t)), \qquad
        \theta(t) = \theta_0 + \omega\,(t - t_\mathrm{start}),

    with :math:`P` :math:`2\pi`-periodic in the phase :math:`\theta` (rad), so the
    period is :math:`2\pi/\omega`. Exposing :math:`P` and its phase derivatives lets
    a caller re-time the motion along the same path with another phase law
    :math:`\theta(t)` (e.g. :class:`Ramped`), by the chain rule

    .. math::

        \dot p = P'\dot\theta, \quad
        \ddot p = P''\dot\theta^2 + P'\ddot\theta, \quad
        \dddot p = P'''\dot\theta^3 + 3P''\dot\theta\ddot\theta + P'\dddot\theta.

    Subclasses give :attr:`phase_rate`, :attr:`phase_at_start` and :meth:`at_phase`;
    their :meth:`evaluate` equals the chain rule with :math:`\dot\theta = \omega`
    (the tests check it for :class:`Circle`).
    """

    @property
    @abstractmethod
    def phase_rate(self) -> float:
        """Nominal phase rate :math:`\\omega` in rad/s (> 0), ``2 pi / period``."""

    @property
    @abstractmethod
    def phase_at_start(self) -> float:
        """Phase :math:`\\theta_0` in rad at ``t_start``."""

    @abstractmethod
    def at_phase(self, theta) -> np.ndarray:
        """The path and its first three derivatives with respect to the phase.

        Parameters
        ----------
        theta : float or array_like, shape (n,)
            Finite phases in rad.

        Returns
        -------
        numpy.ndarray, shape (4, n, dim)
            :math:`P`, :math:`dP/d\\theta`, :math:`d^2P/d\\theta^2`,
            :math:`d^3P/d\\theta^3` (m, m/rad, m/rad^2, m/rad^3 for a task-space path).
        """

    def nominal_phase(self, t) -> np.ndarray:
        """Phase :math:`\\theta_0 + \\omega (t - t_\\mathrm{start})` in rad, shape (n,), at times ``t`` (s)."""
        t = as_times(t)
        return self.phase_at_start + self.phase_rate * (t - self.t_start)


# ----------------------------------------------------------------------------- helpers
#
# Shared by the trajectory modules of this package (their names are public so that the
# modules import no private name; the package's API is what ``__init__`` re-exports).


def readonly(arr: np.ndarray) -> np.ndarray:
    """Return a read-only float copy of ``arr`` (the caller's array is not touched)."""
    arr = np.array(arr, dtype=float, copy=True)
    arr.setflags(write=False)
    return arr


def as_times(t) -> np.ndarray:
    """Return ``t`` as a finite float array of shape (n,) (a scalar gives (1,))."""
    return _finite_1d("t", t, "a finite time in s", "finite times in s")


def as_phases(theta) -> np.ndarray:
    """Return ``theta`` as a finite float array of shape (n,) (a scalar gives (1,))."""
    return _finite_1d("theta", theta, "a finite phase in rad", "finite phases in rad")


def _finite_1d(name: str, value, one: str, many: str) -> np.ndarray:
    """``value`` as a finite float array of shape (n,); ``one``/``many`` word the errors."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, value, f"{one} or a 1-D array of them") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise DimensionError(f"invalid {name}: expected a scalar or shape (n,), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, value, many)
    return arr


def check_space(value) -> str:
    """Return ``value`` if it is one of :data:`SPACES`, else raise :class:`InputError`."""
    if not isinstance(value, str) or value not in SPACES:
        raise InputError(
            "space",
            value,
            "'task' (end-effector/platform positions) or 'joint' (actuated coordinates, "
            "in the order of the robot's actuators)",
        )
    return value


def as_vector(name: str, value) -> np.ndarray:
    """Return a scalar or 1-D finite array as a read-only float array of shape (dim,)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite scalar or 1-D vector") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(name, value, "a finite scalar or non-empty 1-D vector")
    return readonly(_validate.vector(name, arr, arr.size))


def as_endpoints(start, end) -> tuple[np.ndarray, np.ndarray]:
    """Validate a (start, end) pair of equal length (each by :func:`as_vector`)."""
    a = as_vector("start", start)
    b = as_vector("end", end)
    if a.shape != b.shape:
        raise InputError("end", end, f"a vector of the same length as start ({a.size})")
    return a, b


def as_interval(t0, tf) -> tuple[float, float]:
    """Validate a time interval t0 < tf (finite, s) and return it as two floats."""
    a = _validate.finite("t0", t0)
    b = _validate.finite("tf", tf)
    if not b > a:
        raise InputError("tf", tf, f"a finite time > t0 = {a} s")
    return a, b


def sample(t: np.ndarray, p, v, a, j) -> TrajectorySample:
    """The :class:`TrajectorySample` of times ``t`` with position, velocity,
    acceleration and jerk ``p, v, a, j`` (shorthand of the keyword constructor)."""
    return TrajectorySample(time=t, position=p, velocity=v, acceleration=a, jerk=j)


class Segment:
    """Mixin of the finite segments with fields ``start``, ``t0``, ``tf``
    (:class:`RestToRest`, :class:`BangBang`): their ``dim``, ``t_start`` and ``t_end``."""

    @property
    def dim(self) -> int:
        """Number of coordinates."""
        return int(self.start.size)

    @property
    def t_start(self) -> float:
        """``t0`` in s."""
        return self.t0

    @property
    def t_end(self) -> float:
        """``tf`` in s."""
        return self.tf


class Derived:
    """Mixin of the trajectories made from another one, ``base`` (:class:`~elastodyn.
    trajectories.timelaw.TimeWarped`, :class:`~elastodyn.trajectories.shaping.Shaped`):
    its ``dim`` and ``t_start``."""

    @property
    def dim(self) -> int:
        """The base's number of coordinates."""
        return self.base.dim

    @property
    def t_start(self) -> float:
        """The base's start time [s]."""
        return self.base.t_start


def sample_times(trajectory: Trajectory, *, duration: float | None = None,
                 step: float = 1e-3, t_start: float | None = None) -> np.ndarray:
    """Uniform sample times [s] covering a trajectory.

    Parameters
    ----------
    trajectory : Trajectory
    duration : float, optional
        Length of the window [s]; default one period for a periodic trajectory, the
        motion interval otherwise; > 0.
    step : float
        Sample step [s]; > 0 and at most ``duration``.
    t_start : float, optional
        First time [s]; default the trajectory's ``t_start``.

    Returns
    -------
    numpy.ndarray, shape (n,)
        t_start, t_start + step, ..., t_start + duration (the end included when
        ``duration`` is a multiple of ``step`` up to round-off).
    """
    if not isinstance(trajectory, Trajectory):
        raise InputError("trajectory", trajectory, "a Trajectory")
    t0 = trajectory.t_start if t_start is None else _validate.finite("t_start", t_start)
    if duration is None:
        if trajectory.period is not None:
            duration = trajectory.period
        else:
            duration = trajectory.t_end - t0
    return uniform_times(t0, duration, step, exact=False)
