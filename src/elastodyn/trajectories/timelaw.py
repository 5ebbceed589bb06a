"""A rest-to-rest motion played along its own path with another time law.

Why
---
A motion planned for a rigid robot (Kuo's inverted U, a septic rest-to-rest move) fixes
both the path and the time law. On a flexible robot the time law decides how much the
motion excites the structure; the path, set by the task, stays. :class:`TimeWarped`
keeps the path of a base motion P0(s) (s its own time, t0 <= s <= tf) and plays it with
a new time law s = sigma(t) over a cycle time T:

    P(t) = P0(sigma(t)),       sigma(t) = t0 + D0 w(tau),   tau = (t - t_start) / T,

with D0 = tf - t0 and the normalized warp::

    w(tau) = tau + sum_k c_k sin(k pi tau) / (k pi),      k = 1 .. K,
    w'(tau) = 1 + sum_k c_k cos(k pi tau)   (the speed along the path relative to the
                                            base's, scaled by D0 / T).

w(0) = 0 and w(1) = 1 for every c, so the motion starts and ends where the base does; c = 0
and T = D0 give the base motion itself. The path is kept exactly when sigma is
monotone: w'(tau) > 0 on [0, 1] (checked on a grid fine enough for K terms, see
:data:`MONOTONE_SAMPLES`). The derivatives follow by the chain rule from the base's
analytic ones (Faa di Bruno to third order):

    P'   = P0' s',
    P''  = P0'' s'^2 + P0' s'',
    P''' = P0''' s'^3 + 3 P0'' s' s'' + P0' s''',

s' = D0/T w', s'' = D0/T^2 w'', s''' = D0/T^3 w''' (w'' = -sum c_k k pi sin(k pi tau),
w''' = -sum c_k (k pi)^2 cos(k pi tau)).

Rest to rest with continuous jerk: the base must be at rest at both ends (velocity,
acceleration and jerk zero: then P', P'', P''' vanish at the ends whatever sigma' is) and
have a continuous acceleration (then P''' is continuous where P0''' is). Both are checked
(:func:`check_rest_to_rest`); a periodic path or a bang-bang law (its acceleration
jumps) is refused, naming what to use instead.

Units: SI (s, m or rad).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import InputError
from ._base import Derived, Trajectory, TrajectorySample, as_times, readonly, sample

__all__ = ["TimeWarped", "warp", "check_rest_to_rest", "MONOTONE_SAMPLES",
           "REST_RTOL", "MAX_COEFFICIENTS"]

MONOTONE_SAMPLES = 64
"""Grid points per coefficient on which w'(tau) > 0 is checked (w' is a cosine series of
K terms: its shortest half wave spans 1/K of [0, 1], sampled by 64 points, so a dip
between samples is below (pi / 64)^2 / 8 ~ 3e-4 of its amplitude)."""

REST_RTOL = 1e-9
"""A base is at rest at an end when its velocity, acceleration and jerk there are below
this fraction of their largest values over the motion (round-off of the analytic laws is
~1e-15 of them)."""

MAX_COEFFICIENTS = 64
"""Largest number of time-law coefficients."""


def warp(tau, coefficients) -> tuple:
    """The normalized time law and its derivatives at tau (module docstring).

    Parameters
    ----------
    tau : array_like (n,)
        Normalized times in [0, 1].
    coefficients : array_like (K,)
        c_1 .. c_K [-].

    Returns
    -------
    (w, w', w'', w''') : four arrays (n,) [-].
    """
    tau = np.asarray(tau, dtype=float)
    c = np.asarray(coefficients, dtype=float)
    kp = math.pi * np.arange(1, c.size + 1)
    arg = np.multiply.outer(tau, kp)                       # (n, K)
    s, co = np.sin(arg), np.cos(arg)
    w = tau + s @ (c / kp)
    w1 = 1.0 + co @ c
    w2 = -(s @ (c * kp))
    w3 = -(co @ (c * kp ** 2))
    return w, w1, w2, w3


def _finite_coefficients(coefficients) -> np.ndarray:
    c = np.asarray(coefficients, dtype=float).reshape(-1)
    if c.size > MAX_COEFFICIENTS or not np.all(np.isfinite(c)):
        raise InputError("coefficients", np.asarray(coefficients).tolist(),
                         f"at most {MAX_COEFFICIENTS} finite numbers")
    return c


def speed_margin(coefficients) -> float:
    """min over [0, 1] of w'(tau) (> 0: the time law is monotone), on the grid of
    :data:`MONOTONE_SAMPLES` points per coefficient."""
    c = _finite_coefficients(coefficients)
    tau = np.linspace(0.0, 1.0, MONOTONE_SAMPLES * max(1, c.size) + 1)
    return float(np.min(warp(tau, c)[1]))


def check_rest_to_rest(base: Trajectory, name: str = "--trajectory") -> None:
    """Refuse (InputError naming ``name``) a base motion that is periodic, unbounded, not
    at rest at both ends (velocity, acceleration and jerk, :data:`REST_RTOL`) or whose
    acceleration jumps (a bang-bang law: checked by comparing the acceleration's change
    over each step of a fine grid with the integral of the jerk)."""
    if not isinstance(base, Trajectory):
        raise InputError(name, type(base).__name__, "a trajectory")
    if base.period is not None or not math.isfinite(base.t_end):
        raise InputError(name, type(base).__name__, "a rest-to-rest motion (a periodic "
                         "path has no cycle to re-time: use a pick-and-place, "
                         "rest-to-rest or table motion)")
    t = np.linspace(base.t_start, base.t_end, 4001)
    smp = base.evaluate(t)
    for label, arr in (("velocity", smp.velocity), ("acceleration", smp.acceleration),
                       ("jerk", smp.jerk)):
        peak = float(np.max(np.abs(arr)))
        ends = float(max(np.max(np.abs(arr[0])), np.max(np.abs(arr[-1]))))
        if peak > 0 and ends > REST_RTOL * peak:
            raise InputError(name, type(base).__name__, f"a motion at rest at both ends "
                             f"(its {label} is {ends:.3g} at an end): a rest-to-rest, "
                             "pick-and-place or table motion with rest boundaries")
    # the acceleration's change over a step against the jerk integrated over it
    # (trapezoid, error ~ dt^3 |a''''| / 12): a jump shows as a change not explained
    dt = np.diff(t)[:, None]
    da = np.diff(smp.acceleration, axis=0)
    integ = 0.5 * (smp.jerk[1:] + smp.jerk[:-1]) * dt
    scale = float(np.max(np.abs(smp.acceleration))) or 1.0
    if np.max(np.abs(da - integ)) > 1e-3 * scale:
        raise InputError(name, type(base).__name__, "a motion with a continuous "
                         "acceleration (a bang-bang law jumps: use --trajectory "
                         "rest-to-rest between the same end points)")


@dataclass(frozen=True, eq=False)
class TimeWarped(Derived, Trajectory):
    """The path of ``base`` played with the time law of ``coefficients`` over
    ``cycle_time`` (module docstring).

    Parameters
    ----------
    base : Trajectory
        A rest-to-rest motion with a continuous acceleration (:func:`check_rest_to_rest`).
    coefficients : array_like (K,)
        c_1 .. c_K of the warp (K <= :data:`MAX_COEFFICIENTS`); w'(tau) > 0 required.
    cycle_time : float
        T [s] > 0, the duration of the new motion (default: the base's).

    The motion starts at the base's ``t_start``; ``space`` and ``dim`` are the base's.
    """

    base: Trajectory
    coefficients: np.ndarray = ()
    cycle_time: float | None = None
    space: str = field(init=False)

    def __post_init__(self):
        check_rest_to_rest(self.base)
        c = _finite_coefficients(self.coefficients)
        T = self.base.duration if self.cycle_time is None else self.cycle_time
        if isinstance(T, bool) or not isinstance(T, (int, float, np.floating)) or \
                not (math.isfinite(T) and T > 0):
            raise InputError("cycle_time", self.cycle_time, "a finite time > 0 [s]")
        margin = speed_margin(c)
        if not margin > 0:
            raise InputError("coefficients", c.tolist(), "a monotone time law: 1 + sum "
                             f"c_k cos(k pi tau) > 0 on [0, 1] (its minimum is {margin:.3g})")
        object.__setattr__(self, "coefficients", readonly(c))
        object.__setattr__(self, "cycle_time", float(T))
        object.__setattr__(self, "space", self.base.space)

    @property
    def t_end(self) -> float:
        return self.base.t_start + self.cycle_time

    def base_time(self, t) -> np.ndarray:
        """sigma(t) (n,) [s]: the base's time at which the new motion is at time t."""
        t = as_times(t)
        tau = np.clip((t - self.t_start) / self.cycle_time, 0.0, 1.0)
        return self.base.t_start + self.base.duration * warp(tau, self.coefficients)[0]

    def evaluate(self, t) -> TrajectorySample:
        t = as_times(t)
        T, D0 = self.cycle_time, self.base.duration
        tau = (t - self.t_start) / T
        inside = (tau > 0.0) & (tau < 1.0)
        w, w1, w2, w3 = warp(np.clip(tau, 0.0, 1.0), self.coefficients)
        s1 = np.where(inside, D0 / T * w1, 0.0)[:, None]
        s2 = np.where(inside, D0 / T ** 2 * w2, 0.0)[:, None]
        s3 = np.where(inside, D0 / T ** 3 * w3, 0.0)[:, None]
        b = self.base.evaluate(self.base.t_start + D0 * w)
        p0, v0, a0, j0 = b.position, b.velocity, b.acceleration, b.jerk
        return sample(t, p0, v0 * s1, a0 * s1 ** 2 + v0 * s2,
                      j0 * s1 ** 3 + 3.0 * a0 * s1 * s2 + v0 * s3)
