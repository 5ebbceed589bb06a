"""Reference trajectories with analytic derivatives up to jerk.

Every trajectory has ``dim``, ``t_start``, ``t_end`` (``math.inf`` if periodic),
``period`` (``None`` if not periodic) and ``evaluate(t) -> TrajectorySample``, which
accepts a scalar or a 1-D array of times in s and returns arrays of shape (n,) and
(n, dim) in SI units. Non-periodic trajectories hold their end values outside
``[t_start, t_end]``. ``space`` tells what the coordinates are: ``"task"``
(end-effector / platform positions; Circle, InvertedU, and RestToRest by default) or
``"joint"`` (actuated coordinates in the order of the robot's actuators; BangBang by
default); see :data:`SPACES`.

Classes
-------
TrajectorySample
    Result of ``evaluate``: time, position, velocity, acceleration, jerk.
Trajectory
    Abstract base class.
Circle
    Uniform circular motion, spatial or planar (Kuo 2016 section 5.3, Asadi &
    Heydari 2020, Yu & Chen 2019 case 2).
RestToRest
    Cubic / quintic / septic rest-to-rest polynomial segment.
PiecewiseTrajectory
    Contiguous segments played in sequence.
InvertedU
    Septic pick-and-place path of Kuo 2016 section 5.4.
BangBang
    Constant-acceleration rest-to-rest motion (Briot & Khalil 2013 section V).
PeriodicPath
    Abstract periodic trajectory P(theta(t)) that exposes its path as a function of
    the phase (``at_phase``); Circle is one.
Ramped
    A periodic path started from rest by a septic ramp of its phase rate.
SineEfforts, TrianglePulse
    Effort laws (actuator forces against time) for force-driven simulations.
TableTrajectory
    Interpolated table of samples (quintic spline or quintic Hermite), from arrays or
    a CSV file (``TableTrajectory.from_csv``).
"""
from .._lazy import attach

# imported on first use of a name (elastodyn._lazy): a run that follows one law does not
# import the others (start-up, issue 30 item 7)
_EXPORTS = {
    "._base": ("SPACES", "PeriodicPath", "Trajectory", "TrajectorySample", "sample_times"),
    ".bangbang": ("BangBang",),
    ".circle": ("Circle",),
    ".efforts": ("EffortLaw", "SineEfforts", "TrianglePulse"),
    ".pick_and_place": ("InvertedU",),
    ".piecewise": ("PiecewiseTrajectory",),
    ".polynomial": ("REST_TO_REST_ORDERS", "RestToRest", "rest_to_rest_profile"),
    ".ramp": ("Ramped",),
    ".table": ("TableTrajectory",),
}

__all__ = [
    "TrajectorySample",
    "Trajectory",
    "SPACES",
    "Circle",
    "RestToRest",
    "rest_to_rest_profile",
    "REST_TO_REST_ORDERS",
    "PiecewiseTrajectory",
    "InvertedU",
    "BangBang",
    "TableTrajectory",
    "PeriodicPath",
    "Ramped",
    "EffortLaw",
    "SineEfforts",
    "TrianglePulse",
    "sample_times",
]
__getattr__, __dir__ = attach(__name__, _EXPORTS)
