"""Input shapers: impulse sequences convolved with a motion so that it leaves a lightly
damped mode at rest, and the shaped motion.

A shaper is a sequence of impulses (A_i, t_i), sum A_i = 1, t_1 = 0. Convolved with a
reference r(t) it gives r_s(t) = sum_i A_i r(t - t_i): the same end points, longer by
t_n (the shaper's delay). A mode of natural frequency omega and damping ratio zeta
driven by r_s is left with the residual vibration of r times the shaper's percentage
vibration (Singer & Seering 1990, J. Dyn. Sys. Meas. Control 112(1), eq. 3-5; the
notation of Singhose, Seering & Singer 1994, J. Mech. Des. 116(2)):

    V(omega) = exp(-zeta omega t_n) sqrt(C^2 + S^2),
    C = sum A_i exp(zeta omega t_i) cos(omega_d t_i),
    S = sum A_i exp(zeta omega t_i) sin(omega_d t_i),    omega_d = omega sqrt(1 - zeta^2).

Shapers, for a design frequency f [Hz] and damping ratio zeta in [0, 1) (K = exp(-zeta pi
/ sqrt(1 - zeta^2)), T_d = 1 / (f sqrt(1 - zeta^2)) the damped period):

* ZV (zero vibration; Singer & Seering 1990 eq. 8): A = (1, K) / (1 + K), t = (0, T_d/2).
  V = 0 at the design frequency only.
* ZVD (zero vibration and derivative; ibid. eq. 10): A = (1, 2K, K^2) / (1 + K)^2,
  t = (0, T_d/2, T_d). V and dV/domega zero at the design frequency: flatter.
* EI (extra insensitive; Singhose, Seering & Singer 1994): V = V_tol (default 5 %) at the
  design frequency, a hump there (dV/domega = 0) between two frequencies of zero
  vibration, so that V stays below V_tol over a band about twice as wide as ZVD's.
  Undamped: A = ((1 + V)/4, (1 - V)/2, (1 + V)/4), t = (0, T/2, T) (ibid.). Damped
  (decision, documented): these conditions solved exactly for the amplitudes, the two
  later times and the two zero frequencies (six real equations, Newton from the
  undamped solution at the damped period; :func:`_ei`) instead of Singhose's curve fits.

Units: Hz, s, rad/s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import InputError, ModelError
from ._base import Derived, Trajectory, TrajectorySample, as_times, readonly, sample

__all__ = ["Shaper", "shaper", "SHAPERS", "percentage_vibration", "Shaped", "PathShaped",
           "PATH_NODES", "STOP_RTOL"]

SHAPERS = ("zv", "zvd", "ei")
"""Shaper kinds of :func:`shaper`."""

EI_MAX_DAMPING = 0.3
"""Largest damping ratio the EI shaper is designed for (decision: the range of
Singhose's damped EI designs; the continuation in zeta is tested up to it)."""


@dataclass(frozen=True, eq=False)
class Shaper:
    """Impulse amplitudes (n,) [-] (sum 1) at times (n,) [s] (first 0, increasing), with
    the kind, design frequency [Hz] and damping ratio they were made for."""

    amplitudes: np.ndarray
    times: np.ndarray
    kind: str = "custom"
    frequency_hz: float = math.nan
    damping: float = 0.0

    def __post_init__(self):
        a = np.asarray(self.amplitudes, dtype=float).reshape(-1)
        t = np.asarray(self.times, dtype=float).reshape(-1)
        if a.size < 1 or a.shape != t.shape or not (np.all(np.isfinite(a))
                                                   and np.all(np.isfinite(t))):
            raise InputError("shaper", f"{a.size} amplitudes, {t.size} times",
                             "as many finite amplitudes as times (at least one)")
        if t[0] != 0.0 or np.any(np.diff(t) <= 0):
            raise InputError("shaper times", t.tolist(), "0 first, then increasing [s]")
        if abs(a.sum() - 1.0) > 1e-12:
            raise InputError("shaper amplitudes", a.tolist(), "amplitudes summing to 1")
        object.__setattr__(self, "amplitudes", readonly(a))
        object.__setattr__(self, "times", readonly(t))

    @property
    def delay(self) -> float:
        """The time the shaper adds to a motion [s] (its last impulse's time)."""
        return float(self.times[-1])

    def vibration(self, frequency_hz, damping: float | None = None) -> np.ndarray:
        """Percentage vibration V (n,) [-] at the given natural frequencies [Hz]
        (:func:`percentage_vibration`; damping default: the design's)."""
        return percentage_vibration(self.amplitudes, self.times, frequency_hz,
                                    self.damping if damping is None else damping)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "frequency_hz": self.frequency_hz,
                "damping": self.damping, "amplitudes": self.amplitudes.tolist(),
                "times_s": self.times.tolist(), "delay_s": self.delay}


def percentage_vibration(amplitudes, times, frequency_hz, damping: float = 0.0):
    """V(omega) (module docstring) of impulses (A_i, t_i) at natural frequencies
    ``frequency_hz`` (n,) [Hz] > 0 and damping ratio in [0, 1): the residual vibration
    of a mode after the sequence, relative to a unit impulse at t = 0."""
    A = np.asarray(amplitudes, dtype=float)
    t = np.asarray(times, dtype=float)
    w = 2.0 * math.pi * np.atleast_1d(np.asarray(frequency_hz, dtype=float))
    z = _damping(damping)
    wd = w * math.sqrt(1.0 - z * z)
    e = np.exp(z * np.multiply.outer(w, t))                       # (n, m)
    C = (e * np.cos(np.multiply.outer(wd, t))) @ A
    S = (e * np.sin(np.multiply.outer(wd, t))) @ A
    return np.exp(-z * w * t[-1]) * np.hypot(C, S)


def _damping(damping) -> float:
    if isinstance(damping, bool) or not isinstance(damping, (int, float, np.floating)) \
            or not (0.0 <= damping < 1.0):
        raise InputError("damping", damping, "a damping ratio in [0, 1)")
    return float(damping)


def shaper(kind: str, frequency_hz: float, damping: float = 0.0, *,
           tolerance: float = 0.05) -> Shaper:
    """A ZV, ZVD or EI shaper (module docstring) for a mode of ``frequency_hz`` [Hz] > 0
    and damping ratio ``damping`` in [0, 1); ``tolerance``: the EI's V_tol in (0, 0.5)."""
    if kind not in SHAPERS:
        raise InputError("--shaper", kind, "one of " + ", ".join(SHAPERS))
    if isinstance(frequency_hz, bool) or not isinstance(
            frequency_hz, (int, float, np.floating)) or \
            not (math.isfinite(frequency_hz) and frequency_hz > 0):
        raise InputError("frequency", frequency_hz, "a natural frequency > 0 [Hz]")
    z = _damping(damping)
    root = math.sqrt(1.0 - z * z)
    K = math.exp(-z * math.pi / root)
    Td = 1.0 / (frequency_hz * root)
    if kind == "zv":
        A, t = np.array([1.0, K]) / (1.0 + K), np.array([0.0, Td / 2])
    elif kind == "zvd":
        A, t = np.array([1.0, 2 * K, K * K]) / (1.0 + K) ** 2, np.array([0.0, Td / 2, Td])
    else:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or \
                not 0.0 < tolerance < 0.5:
            raise InputError("tolerance", tolerance, "the EI shaper's vibration "
                             "tolerance in (0, 0.5)")
        if z > EI_MAX_DAMPING:
            raise InputError("damping", damping, f"a damping ratio in [0, "
                             f"{EI_MAX_DAMPING:g}] for the EI shaper")
        A, t = _ei(frequency_hz, z, tolerance)
    return Shaper(A, t, kind, float(frequency_hz), z)


def _ei(f, z, V):
    """Amplitudes and times (3,) of the EI shaper (Singhose, Seering & Singer 1994): the
    vibration V_tol at the design frequency w_n, a hump there (dV/dw = 0) and zero
    vibration at two frequencies w_lo < w_n < w_hi. Undamped: the closed form (module
    docstring). Damped: the six real equations in (A_1, A_2, t_2, t_3, w_lo, w_hi)
    (A_3 = 1 - A_1 - A_2)

        exp(-zeta w_n t_3) |Z(w_n)| = V_tol,   dV/dw(w_n) = 0,   Z(w_lo) = Z(w_hi) = 0,

    Z(w) = sum A_i exp((zeta + i sqrt(1 - zeta^2)) w t_i), solved by Newton with a
    continuation in zeta from the undamped solution (steps of at most 0.02: each start
    within Newton's basin); the residuals in closed form, their Jacobian by central
    differences (relative step 1e-7: error ~1e-13 of these O(1) quantities)."""
    T = 1.0 / f
    A0 = np.array([(1 + V) / 4, (1 - V) / 2, (1 + V) / 4])
    if z == 0.0:
        return A0, np.array([0.0, T / 2, T])
    wn = 2.0 * math.pi * f
    scale = np.array([1.0, 1.0, T, T, wn, wn])
    # undamped zeros: A1 + A2 e^{i x} + A3 e^{2 i x} = 0 with x = w T / 2: cos x = -A2/(2 A1)
    x = math.acos(-A0[1] / (2 * A0[0]))
    y = np.array([A0[0], A0[1], T / 2, T, 2 * x / T, 2 * (2 * math.pi - x) / T]) / scale
    for zk in np.linspace(0.0, z, int(math.ceil(z / 0.02)) + 1)[1:]:
        y = _ei_newton(y, scale, wn, float(zk), V)
    y = y * scale
    return np.array([y[0], y[1], 1.0 - y[0] - y[1]]), np.array([0.0, y[2], y[3]])


def _ei_newton(y, scale, wn, z, V):
    lam = z + 1j * math.sqrt(1.0 - z * z)

    def res(yy):
        yy = yy * scale
        a = np.array([yy[0], yy[1], 1.0 - yy[0] - yy[1]])
        t = np.array([0.0, yy[2], yy[3]])
        e = np.exp(lam * wn * t)
        zn = a @ e
        dz = (a * t * lam) @ e
        decay = math.exp(-z * wn * t[-1])
        absz = abs(zn)
        dV = decay * ((zn.conjugate() * dz).real / absz - z * t[-1] * absz)
        lo, hi = a @ np.exp(lam * yy[4] * t), a @ np.exp(lam * yy[5] * t)
        return np.array([decay * absz - V, dV * wn, lo.real, lo.imag, hi.real, hi.imag])

    for _ in range(50):
        r = res(y)
        if np.max(np.abs(r)) < 1e-13:
            return y
        J = np.empty((6, 6))
        for j in range(6):
            d = np.zeros(6)
            d[j] = 1e-7
            J[:, j] = (res(y + d) - res(y - d)) / 2e-7
        try:
            y = y - np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            break
    raise ModelError(f"EI shaper: no solution for damping {z} (Newton did not converge)")


@dataclass(frozen=True, eq=False)
class Shaped(Derived, Trajectory):
    """``base`` convolved with a shaper: P(t) = sum_i A_i P0(t - t_i) (module docstring),
    with its derivatives likewise. ``space`` and ``dim`` are the base's; it ends
    ``shaper.delay`` after the base. A base at rest at its ends with continuous jerk
    gives a shaped motion that is too."""

    base: Trajectory
    shaper: Shaper
    space: str = field(init=False)

    def __post_init__(self):
        if not isinstance(self.base, Trajectory):
            raise InputError("base", type(self.base).__name__, "a trajectory")
        if self.base.period is not None or not math.isfinite(self.base.t_end):
            raise InputError("--trajectory", type(self.base).__name__, "a motion of "
                             "finite duration to shape (not a periodic path)")
        if not isinstance(self.shaper, Shaper):
            raise InputError("shaper", type(self.shaper).__name__, "a Shaper")
        object.__setattr__(self, "space", self.base.space)

    @property
    def t_end(self) -> float:
        return self.base.t_end + self.shaper.delay

    def evaluate(self, t) -> TrajectorySample:
        t = as_times(t)
        out = None
        for a, ti in zip(self.shaper.amplitudes, self.shaper.times):
            s = self.base.evaluate(t - ti)
            parts = [a * s.position, a * s.velocity, a * s.acceleration, a * s.jerk]
            out = parts if out is None else [o + p for o, p in zip(out, parts)]
        return sample(t, *out)


PATH_NODES = 2049
"""Nodes of the path and progress splines of :class:`PathShaped` (quintic interpolation:
error ~ (L / 2048)^6 |X^(6)|, below 1e-12 m on a path of a metre with a smooth law)."""
STOP_RTOL = 1e-3
"""A base motion whose speed falls below this fraction of its peak inside the motion
(not at its ends) stops on the way: its path may have a corner there, which a shaped
progress would run through at speed (refused)."""


@dataclass(frozen=True, eq=False)
class PathShaped(Derived, Trajectory):
    """The path of ``base`` run with a shaped progress: the shaper acts on the time law,
    not on the coordinates, so the path is kept (a path-preserving alternative to
    :class:`Shaped`, whose joint-space convolution moves a task-space path).

    The base's progress along its path, lambda_0(s) = int_{t0}^{s} |P0'(r)| dr (arc
    length in the base's coordinates), is compressed to ``cycle_time - shaper.delay``
    and convolved with the shaper (FIR filtering of the motion law: Biagiotti &
    Melchiorri 2012, IFAC Proc. 45(22), "FIR filters for online trajectory planning with
    time- and frequency-domain specifications", eq. 1-4):

        lambda(t) = sum_i A_i lambda_0(t0 + k (t - t0 - t_i)),   k = D0 / (T - t_n),

    the argument clipped to [t0, tf], and the motion is P(t) = X(lambda(t)), X the path
    as a function of its arc length. A mode excited by the progress is left with its
    residual vibration times the shaper's percentage vibration (linearized about the
    path); the path and the end points are those of the base exactly, the cycle time is
    T (the base law compressed by the shaper's delay, as the joint-space shapers of
    :mod:`~elastodyn.analysis.motion_design` are compared).

    Numerics: lambda_0 by 4-point Gauss-Legendre quadrature of the base's analytic speed
    on :data:`PATH_NODES` nodes, interpolated by a quintic spline in s; X by a quintic
    spline through the base's positions at nodes equally spaced in lambda (found by
    inverting lambda_0). Both are C4: the motion has a continuous jerk, at rest at both
    ends (the base is, and lambda' = 0 there).

    Parameters
    ----------
    base : Trajectory
        Rest to rest with continuous acceleration (:func:`~elastodyn.trajectories.
        timelaw.check_rest_to_rest`) and not stopping on the way (speed above
        :data:`STOP_RTOL` of its peak inside).
    shaper : Shaper
    cycle_time : float
        T [s], longer than the shaper's delay (default: the base's duration plus the
        delay).
    """

    base: Trajectory
    shaper: Shaper
    cycle_time: float | None = None
    space: str = field(init=False)

    def __post_init__(self):
        from scipy.interpolate import make_interp_spline

        from .timelaw import check_rest_to_rest
        check_rest_to_rest(self.base)
        if not isinstance(self.shaper, Shaper):
            raise InputError("shaper", type(self.shaper).__name__, "a Shaper")
        T = self.base.duration + self.shaper.delay if self.cycle_time is None \
            else self.cycle_time
        if isinstance(T, bool) or not isinstance(T, (int, float, np.floating)) or \
                not (math.isfinite(T) and T > self.shaper.delay):
            raise InputError("cycle_time", self.cycle_time, "a finite time [s] longer "
                             f"than the shaper's delay {self.shaper.delay:.4g} s")
        object.__setattr__(self, "cycle_time", float(T))
        object.__setattr__(self, "space", self.base.space)
        t0, tf = self.base.t_start, self.base.t_end
        u = np.linspace(t0, tf, PATH_NODES)
        h = u[1] - u[0]
        g, wts = np.polynomial.legendre.leggauss(4)
        uq = (u[:-1, None] + 0.5 * h * (g[None, :] + 1.0)).ravel()
        speed = np.linalg.norm(self.base.evaluate(uq).velocity, axis=1)
        peak = float(speed.max())
        if not peak > 0:
            raise InputError("--trajectory", type(self.base).__name__, "a motion that "
                             "moves (its path has zero length)")
        inner = np.linalg.norm(self.base.evaluate(
            np.linspace(t0, tf, 4001)[200:-200]).velocity, axis=1)
        if float(inner.min()) < STOP_RTOL * peak:
            raise InputError("--trajectory", type(self.base).__name__, "a motion that "
                             "does not stop on the way (path-preserving shaping runs "
                             "through a stop at speed)")
        lam = np.concatenate(([0.0], np.cumsum(
            (speed.reshape(-1, 4) @ wts) * 0.5 * h)))
        L = float(lam[-1])
        # at rest at both ends: lambda' = lambda'' = 0 there (exact, imposed)
        law = make_interp_spline(u, lam, k=5, bc_type=([(1, 0.0), (2, 0.0)],
                                                       [(1, 0.0), (2, 0.0)]))
        # nodes equally spaced in lambda: u by bisection on the law spline (monotone)
        target = np.linspace(0.0, L, PATH_NODES)
        lo = np.full(PATH_NODES, t0)
        hi = np.full(PATH_NODES, tf)
        for _ in range(60):                 # (tf - t0) 2^-60: below round-off
            mid = 0.5 * (lo + hi)
            below = law(mid) < target
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        us = 0.5 * (lo + hi)
        us[0], us[-1] = t0, tf
        path = make_interp_spline(target, self.base.evaluate(us).position, k=5)
        object.__setattr__(self, "_law", (law, law.derivative(1), law.derivative(2),
                                          law.derivative(3)))
        object.__setattr__(self, "_path", (path, path.derivative(1), path.derivative(2),
                                           path.derivative(3)))
        object.__setattr__(self, "_table", (lam, u))
        object.__setattr__(self, "length", L)

    @property
    def t_end(self) -> float:
        return self.base.t_start + self.cycle_time

    def progress(self, t) -> tuple:
        """lambda(t) and its first three time derivatives, each (n,) [m or rad, /s^k]."""
        t = as_times(t)
        t0, D0 = self.base.t_start, self.base.duration
        k = D0 / (self.cycle_time - self.shaper.delay)
        out = [np.zeros_like(t) for _ in range(4)]
        for a, ti in zip(self.shaper.amplitudes, self.shaper.times):
            s = t0 + k * (t - t0 - ti)
            # strictly inside by more than round-off (at an end the derivatives are 0)
            eps = 1e-12 * D0
            inside = (s > t0 + eps) & (s < t0 + D0 - eps)
            sc = np.clip(s, t0, t0 + D0)
            for d in range(4):
                val = self._law[d](sc) * k ** d
                out[d] += a * (val if d == 0 else np.where(inside, val, 0.0))
        out[0] = np.clip(out[0], 0.0, self.length)
        return tuple(out)

    def base_time(self, t) -> np.ndarray:
        """The base's time (n,) [s] at which it is where this motion is at t (inverse
        of the progress, linear in the table of :data:`PATH_NODES` nodes)."""
        lam, u = self._table
        return np.interp(self.progress(t)[0], lam, u)

    def evaluate(self, t) -> TrajectorySample:
        t = as_times(t)
        l0, l1, l2, l3 = (x[:, None] for x in self.progress(t))
        X = [f(l0[:, 0]) for f in self._path]
        return sample(t, X[0], X[1] * l1, X[2] * l1 ** 2 + X[1] * l2,
                      X[3] * l1 ** 3 + 3.0 * X[2] * l1 * l2 + X[1] * l3)
