"""Uniform time grids: the one place where a window and a step become sample times.

Every analysis, integrator and command-line check that samples time goes through
:func:`uniform_times` (and :func:`thin` to spread a bounded number of checks over a
long window), so a window, a step and their validation mean the same everywhere:

``exact=True``
    the step must divide the window (to ``rtol``, relative to the number of steps): the
    grid is ``start + k * duration / n``, k = 0..n, and ends exactly at
    ``start + duration`` (the integrators' steps, the output step of a simulation).
``exact=False``
    the grid is ``start + k * step`` for every k with ``k * step <= duration`` (up to
    round-off, 1e-12 relative): it covers the window and never leaves it.

Times in seconds. Bad values raise :class:`~elastodyn.exceptions.InputError` naming the
parameter (the caller passes its option name, ``--step`` or ``dt``).
"""
from __future__ import annotations

import math

import numpy as np

from .exceptions import InputError

__all__ = ["uniform_times", "thin", "MAX_SAMPLES"]

#: Largest number of samples of a grid (8 bytes each: 80 MB): a step that would give
#: more is refused rather than exhausting the memory.
MAX_SAMPLES = 10_000_001


def _positive(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, value, "a finite number > 0 [s]") from None
    if not (math.isfinite(v) and v > 0.0):
        raise InputError(name, value, "a finite number > 0 [s]")
    return v


def uniform_times(start, duration, step, *, exact: bool = True, rtol: float = 1e-6,
                  step_name: str = "step", duration_name: str = "duration",
                  start_name: str = "start") -> np.ndarray:
    """Uniform sample times over ``[start, start + duration]``.

    Parameters
    ----------
    start : float
        First time [s] (finite).
    duration : float
        Window [s], finite and > 0.
    step : float
        Step [s], finite, > 0 and at most ``duration``.
    exact : bool
        True: ``step`` must divide ``duration`` to ``rtol`` (relative to the number of
        steps n); the grid is ``start + k * duration / n`` and ends at
        ``start + duration``. False: ``start + k * step`` while within the window.
    rtol : float
        Tolerance of the divisibility (default 1e-6: a step given to six digits).
    step_name, duration_name, start_name : str
        The names the errors give (``--step``, ``dt`` ...).

    Returns
    -------
    numpy.ndarray, shape (n + 1,)
        Increasing times [s]; n >= 1, at most :data:`MAX_SAMPLES` samples.
    """
    try:
        t0 = float(start)
    except (TypeError, ValueError):
        raise InputError(start_name, start, "a finite time [s]") from None
    if not math.isfinite(t0):
        raise InputError(start_name, start, "a finite time [s]")
    T = _positive(duration_name, duration)
    h = _positive(step_name, step)
    if h > T * (1 + 1e-12):
        raise InputError(step_name, step, f"a step <= the window, {T:.6g} s")
    ratio = T / h
    if ratio + 1 > MAX_SAMPLES:
        raise InputError(step_name, step, f"at most {MAX_SAMPLES - 1} steps over {T:.6g} s "
                         f"(a step >= {T / (MAX_SAMPLES - 1):.3g} s)")
    if exact:
        n = max(1, round(ratio))
        if abs(ratio - n) > rtol * max(1.0, n):
            tol = f"{rtol:g}".replace("e-0", "e-")
            raise InputError(step_name, step, f"a divisor of the window {T:.6g} s (an "
                             f"integer number of steps, to {tol} relative; nearest: "
                             f"{T / n:.9g} s, {n} steps)")
        times = t0 + (T / n) * np.arange(n + 1, dtype=float)
        times[-1] = t0 + T
        return times
    # 1e-12: a step that divides the window up to round-off keeps its last sample
    n = max(1, int(math.floor(ratio * (1 + 1e-12))))
    return t0 + h * np.arange(n + 1, dtype=float)


def thin(times: np.ndarray, cap: int) -> np.ndarray:
    """At most ``cap`` (>= 2) of ``times`` spread evenly, the first and the last kept
    (checks along a long window: one per sample would be too many)."""
    times = np.asarray(times, dtype=float)
    if cap < 2:
        raise InputError("cap", cap, "an integer >= 2")
    if len(times) <= cap:
        return times
    return times[np.linspace(0, len(times) - 1, cap).round().astype(int)]
