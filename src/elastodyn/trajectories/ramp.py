"""Start of a periodic path from rest: a septic ramp of the phase rate."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial import polynomial as P

from .. import _validate
from ..exceptions import InputError
from ._base import PeriodicPath, Trajectory, TrajectorySample, as_times, sample
from .polynomial import PROFILES, rest_to_rest_profile

__all__ = ["Ramped"]

#: Ascending coefficients of S(tau) = integral of the septic smoothstep from 0 to tau:
#: 7 tau^5 - 14 tau^6 + 10 tau^7 - 5/2 tau^8, with S(1) = 1/2.
_SEPTIC_INTEGRAL = tuple(float(c) for c in P.polyint(PROFILES[7]))


@dataclass(frozen=True, eq=False)
class Ramped(Trajectory):
    r"""A periodic path started from rest by a septic ramp of its phase rate.

    The path :math:`P(\theta)` of ``trajectory`` (a :class:`PeriodicPath`, e.g.
    :class:`Circle`, nominally run at the constant phase rate :math:`\omega` from
    phase :math:`\theta_0` at :math:`t_0` = ``trajectory.t_start``) is re-timed with
    the phase law

    .. math::

        \dot\theta(t) = \omega\, s\!\left(\frac{t - t_0}{T_r}\right), \qquad
        s(\tau) = 35\tau^4 - 84\tau^5 + 70\tau^6 - 20\tau^7 \ (0 \le \tau \le 1),
        \qquad T_r = n\,T,

    where :math:`n` = ``periods`` and :math:`T = 2\pi/\omega` is the period:
    :math:`s` is the septic smoothstep of :func:`rest_to_rest_profile`, so the phase
    rate and its first three derivatives are zero at :math:`t_0` and continuous at
    :math:`t_0 + T_r`, where the rate reaches :math:`\omega` and stays there. The
    phase is the integral,

    .. math::

        \theta(t) = \theta_0 + \omega T_r\, S(\tau), \qquad
        S(\tau) = 7\tau^5 - 14\tau^6 + 10\tau^7 - \tfrac52\tau^8, \qquad
        S(1) = \tfrac12,

    and :math:`p = P(\theta)` with the exact chain rule
    :math:`\dot p = P'\dot\theta`,
    :math:`\ddot p = P''\dot\theta^2 + P'\ddot\theta`,
    :math:`\dddot p = P'''\dot\theta^3 + 3P''\dot\theta\ddot\theta + P'\dddot\theta`
    (derivatives of :math:`P` from ``trajectory.at_phase``). Velocity, acceleration
    and jerk are zero at :math:`t_0`; position to jerk are continuous at the end of
    the ramp (the snap too; the ramped motion is C4 in time).

    **Phase lag.** After the ramp (:math:`t \ge t_0 + T_r`) the phase is
    :math:`\theta(t) = \theta_0 + \omega(t - t_0) - \Delta` with the constant lag

    .. math::

        \Delta = \omega T_r \,(1 - S(1)) = \tfrac12\,\omega T_r = \pi n \ \text{rad},

    i.e. the ramped point is where the unramped one was :math:`T_r/2 = nT/2` earlier
    (:attr:`phase_lag`, :attr:`time_lag`). For an even integer :math:`n` the lag is a
    whole number of turns and the ramped motion coincides with the unramped one
    after the ramp; for an odd :math:`n`, half a turn behind.

    Parameters
    ----------
    trajectory : PeriodicPath
        The periodic path, e.g. :class:`Circle`.
    periods : float
        Ramp duration :math:`n` in periods of ``trajectory`` (finite, > 0; need not be
        an integer).

    Attributes
    ----------
    dim, space : int, str
        Those of ``trajectory``.
    t_start : float
        :math:`t_0` = ``trajectory.t_start`` in s. Before it the point rests at
        :math:`P(\theta_0)` (velocity, acceleration and jerk zero).
    t_end : float
        ``math.inf``: the motion goes on at the nominal rate.
    period : None
        The ramped motion is not periodic.

    Raises
    ------
    InputError
        ``trajectory`` not a :class:`PeriodicPath`; ``periods`` not finite and > 0.
    """

    trajectory: PeriodicPath
    periods: float

    def __post_init__(self) -> None:
        if not isinstance(self.trajectory, PeriodicPath):
            raise InputError(
                "trajectory",
                self.trajectory,
                "a periodic path (a PeriodicPath such as Circle, which gives at_phase and phase_rate)",
            )
        object.__setattr__(self, "periods", _validate.positive("periods", self.periods))

    # ------------------------------------------------------------------ interface

    @property
    def dim(self) -> int:
        """Number of coordinates (that of the path)."""
        return self.trajectory.dim

    @property
    def space(self) -> str:  # type: ignore[override]
        """Space of the path (``"task"`` for a circle)."""
        return self.trajectory.space

    @property
    def t_start(self) -> float:
        """Start of the ramp :math:`t_0` in s (the path's ``t_start``)."""
        return self.trajectory.t_start

    @property
    def t_end(self) -> float:
        """``math.inf``."""
        return math.inf

    @property
    def ramp_duration(self) -> float:
        """:math:`T_r` = ``periods * trajectory.period`` in s."""
        return self.periods * (2.0 * math.pi / self.trajectory.phase_rate)

    @property
    def ramp_end(self) -> float:
        """:math:`t_0 + T_r` in s: from then on the phase rate is nominal."""
        return self.t_start + self.ramp_duration

    @property
    def phase_lag(self) -> float:
        r""":math:`\Delta = \omega T_r / 2` (:math:`= \pi n`) in rad: after the ramp the
        phase is the unramped one minus this."""
        return 0.5 * self.trajectory.phase_rate * self.ramp_duration

    @property
    def time_lag(self) -> float:
        """:math:`T_r/2` in s: after the ramp the point is where the unramped path was
        this long before."""
        return 0.5 * self.ramp_duration

    def phase(self, t) -> np.ndarray:
        r"""The phase law :math:`\theta` and its first three time derivatives.

        Parameters
        ----------
        t : float or array_like, shape (n,)
            Finite times in s.

        Returns
        -------
        numpy.ndarray, shape (4, n)
            :math:`\theta` (rad), :math:`\dot\theta` (rad/s), :math:`\ddot\theta`
            (rad/s^2), :math:`\dddot\theta` (rad/s^3).
        """
        t = as_times(t)
        w, T = self.trajectory.phase_rate, self.ramp_duration
        theta0, t0 = self.trajectory.phase_at_start, self.t_start
        tau = (t - t0) / T
        ramp = (tau >= 0.0) & (tau <= 1.0)
        after = tau > 1.0
        out = np.zeros((4, t.size))
        out[0] = theta0
        tr = tau[ramp]
        prof = rest_to_rest_profile(tr, 7)  # s, s', s'', s''' in tau
        out[0, ramp] = theta0 + (w * T) * P.polyval(tr, _SEPTIC_INTEGRAL)
        out[1, ramp] = w * prof[0]
        out[2, ramp] = (w / T) * prof[1]
        out[3, ramp] = (w / T**2) * prof[2]
        out[0, after] = theta0 + w * (t[after] - t0) - self.phase_lag
        out[1, after] = w
        return out

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate at times ``t`` (float or array_like (n,), s); see :class:`Trajectory`."""
        t = as_times(t)
        th = self.phase(t)
        d0, d1, d2, d3 = self.trajectory.at_phase(th[0])
        w1, w2, w3 = (x[:, None] for x in th[1:])
        return sample(
            t,
            d0,
            d1 * w1,
            d2 * w1**2 + d1 * w2,
            d3 * w1**3 + 3.0 * d2 * (w1 * w2) + d1 * w3,
        )
