"""Effort laws: actuator forces or torques as functions of time, for force-driven
simulations (Rosyid & El-Khasawneh 2020, section 8.2: the sliders of the 3-PRR driven by
forces along +X).

Each law has ``dim`` (the number of actuators), ``breakpoints`` (times where it has a
kink, for integrators that should step onto them) and ``__call__(t) -> (dim,)`` in N or
N m (the unit of the actuated coordinate's effort).
"""
from __future__ import annotations

import math

import numpy as np

from .._validate import finite
from ..exceptions import InputError

__all__ = ["EffortLaw", "SineEfforts", "TrianglePulse"]


def _vector(name, value) -> np.ndarray:
    try:
        v = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise InputError(name, value, "a list of numbers [N or N m]") from None
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        raise InputError(name, value, "a list of finite numbers [N or N m]")
    v.setflags(write=False)
    return v


class EffortLaw:
    """Base: ``dim``, ``breakpoints`` and ``__call__(t) -> (dim,)``."""

    dim: int
    breakpoints: tuple = ()

    @property
    def time_scale(self) -> float:
        """The shortest time over which the law changes shape [s] (a sine's period, a
        pulse's rise or fall): an integrator step must be well below it."""
        return math.inf

    def __call__(self, t: float) -> np.ndarray:
        raise NotImplementedError


class SineEfforts(EffortLaw):
    """``amplitude * sin(angular_rate * t + phase)`` (amplitude (dim,) [N or N m],
    angular_rate [rad/s] > 0, phase [rad]): Rosyid & El-Khasawneh 2020 section 8.2,
    ``Q_a = (10, 2, 2) sin 20 t`` N."""

    @property
    def time_scale(self) -> float:
        return 2 * math.pi / self.angular_rate

    def __init__(self, amplitude, angular_rate: float, phase: float = 0.0):
        self.amplitude = _vector("amplitude", amplitude)
        self.angular_rate = finite("angular_rate", angular_rate)
        if not self.angular_rate > 0:
            raise InputError("angular_rate", angular_rate, "a number > 0 [rad/s]")
        self.phase = finite("phase", phase)
        self.dim = self.amplitude.size

    def __call__(self, t: float) -> np.ndarray:
        return self.amplitude * math.sin(self.angular_rate * t + self.phase)


class TrianglePulse(EffortLaw):
    """A triangular pulse: 0 at t = 0, ``peak`` (dim,) [N or N m] at ``peak_time``, 0
    again at ``end_time`` and after (0 < peak_time < end_time [s]): Rosyid &
    El-Khasawneh 2020 section 8.2 (peak 0.1 s, end 0.2 s)."""

    @property
    def time_scale(self) -> float:
        return min(self.peak_time, self.end_time - self.peak_time)

    def __init__(self, peak, peak_time: float, end_time: float):
        self.peak = _vector("peak", peak)
        self.peak_time = finite("peak_time", peak_time)
        self.end_time = finite("end_time", end_time)
        if not 0 < self.peak_time < self.end_time:
            raise InputError("peak_time", peak_time, f"0 < peak_time < end_time = "
                             f"{self.end_time!r} s")
        self.dim = self.peak.size
        self.breakpoints = (self.peak_time, self.end_time)

    def __call__(self, t: float) -> np.ndarray:
        if t <= 0 or t >= self.end_time:
            return np.zeros(self.dim)
        if t <= self.peak_time:
            return self.peak * (t / self.peak_time)
        return self.peak * ((self.end_time - t) / (self.end_time - self.peak_time))
