"""Polynomial rest-to-rest segments (cubic, quintic, septic)."""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np
from numpy.polynomial import polynomial as P

from ..exceptions import InputError
from ._base import (
    Trajectory,
    TrajectorySample,
    Segment,
    as_endpoints,
    as_interval,
    as_times,
    check_space,
    sample,
)

__all__ = ["RestToRest", "rest_to_rest_profile", "REST_TO_REST_ORDERS"]

#: Coefficients (ascending powers of tau) of the normalised rest-to-rest profiles
#: s(tau), s(0) = 0, s(1) = 1, by order (3, 5, 7); also used by :mod:`.ramp`.
PROFILES = {
    3: (0.0, 0.0, 3.0, -2.0),
    5: (0.0, 0.0, 0.0, 10.0, -15.0, 6.0),
    7: (0.0, 0.0, 0.0, 0.0, 35.0, -84.0, 70.0, -20.0),
}
_DERIVATIVES = {
    k: tuple(np.asarray(P.polyder(c, m)) for m in range(4)) for k, c in PROFILES.items()
}

#: Allowed polynomial orders of :class:`RestToRest`.
REST_TO_REST_ORDERS = tuple(sorted(PROFILES))


def _order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order not in PROFILES:
        raise InputError("order", order, "one of " + ", ".join(map(str, REST_TO_REST_ORDERS)))
    return int(order)


def rest_to_rest_profile(tau, order: int = 7) -> np.ndarray:
    r"""Normalised rest-to-rest profile :math:`s(\tau)` and its first three derivatives.

    ========  ====================================================  =========================
    order     :math:`s(\tau)`                                       zero at both ends
    ========  ====================================================  =========================
    3         :math:`3\tau^2 - 2\tau^3`                             :math:`s'`
    5         :math:`10\tau^3 - 15\tau^4 + 6\tau^5`                 :math:`s', s''`
    7         :math:`35\tau^4 - 84\tau^5 + 70\tau^6 - 20\tau^7`     :math:`s', s'', s'''`
    ========  ====================================================  =========================

    All have :math:`s(0) = 0`, :math:`s(1) = 1`. The septic profile is the one of
    Kuo (2016), section 5.4; the three are the standard minimal-degree rest-to-rest
    polynomials (e.g. Biagiotti & Melchiorri, *Trajectory Planning for Automatic
    Machines and Robots*, Springer 2008, chapter 2).

    Parameters
    ----------
    tau : float or array_like, shape (n,)
        Normalised time, used as given (no clipping); the profile is meant for
        :math:`0 \le \tau \le 1`.
    order : {3, 5, 7}
        Polynomial degree.

    Returns
    -------
    numpy.ndarray, shape (4, n)
        Rows :math:`s, ds/d\tau, d^2s/d\tau^2, d^3s/d\tau^3` (dimensionless).

    Raises
    ------
    InputError
        ``order`` not 3, 5 or 7.
    """
    order = _order(order)
    tau = np.atleast_1d(np.asarray(tau, dtype=float))
    return np.stack([P.polyval(tau, c) for c in _DERIVATIVES[order]])


@dataclass(frozen=True, eq=False)
class RestToRest(Segment, Trajectory):
    r"""Polynomial rest-to-rest motion between two points.

    .. math::

        q(t) = q_0 + (q_f - q_0)\,s(\tau), \qquad \tau = \frac{t - t_0}{t_f - t_0},

    with the profile :math:`s` of :func:`rest_to_rest_profile`; derivatives are
    :math:`q^{(k)} = (q_f - q_0)\,s^{(k)}(\tau)/(t_f - t_0)^k`. Order 3 starts and
    stops at zero velocity (acceleration jumps at the ends, jerk is constant inside),
    order 5 also at zero acceleration, order 7 also at zero jerk (Kuo 2016, section
    5.4).

    Parameters
    ----------
    start, end : float or array_like, shape (dim,)
        Initial and final positions (m, or rad for a revolute joint), finite, same
        length. Scalars give ``dim`` 1.
    t0, tf : float, keyword-only
        Start and end times in s, finite, ``tf > t0``.
    order : {3, 5, 7}, keyword-only
        Polynomial degree. Default 7.
    space : {"task", "joint"}, keyword-only
        ``"task"`` (default): the coordinates are end-effector / platform positions
        (as in :class:`InvertedU`); ``"joint"``: actuated coordinates in the order of
        the robot's actuators (e.g. a five-bar's q1, q4).

    Notes
    -----
    Inside the closed interval ``[t0, tf]`` the polynomial is evaluated (at the end
    points the derivatives are one-sided limits from inside); outside, the position
    is held at ``start`` (before) or ``end`` (after) with zero derivatives.

    Raises
    ------
    InputError
        Non-finite values, ``start``/``end`` of different lengths, ``tf <= t0``,
        ``order`` not in {3, 5, 7}, ``space`` not "task" or "joint".
    """

    start: np.ndarray
    end: np.ndarray
    _: KW_ONLY
    t0: float
    tf: float
    order: int = 7
    space: str = "task"

    def __post_init__(self) -> None:
        start, end = as_endpoints(self.start, self.end)
        t0, tf = as_interval(self.t0, self.tf)
        order = _order(self.order)
        space = check_space(self.space)
        for name, value in (
            ("start", start), ("end", end), ("t0", t0), ("tf", tf), ("order", order), ("space", space)
        ):
            object.__setattr__(self, name, value)

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate the segment at times ``t``.

        Parameters
        ----------
        t : float or array_like, shape (n,)
            Finite times in s; values outside ``[t0, tf]`` hold the end positions.

        Returns
        -------
        TrajectorySample
            ``time`` (n,); ``position``, ``velocity``, ``acceleration``, ``jerk``
            (n, dim) in SI units.
        """
        t = as_times(t)
        T = self.tf - self.t0
        tau = (t - self.t0) / T
        inside = (tau >= 0.0) & (tau <= 1.0)
        prof = rest_to_rest_profile(np.clip(tau, 0.0, 1.0), self.order)
        prof[0, tau < 0.0] = 0.0
        prof[0, tau > 1.0] = 1.0
        prof[1:, ~inside] = 0.0
        d = self.end - self.start
        scale = T ** -np.arange(4.0)
        out = [prof[k][:, None] * (scale[k] * d) for k in range(4)]
        # exact end values at and after tf (start + (end - start) may round)
        out[0] = np.where((tau >= 1.0)[:, None], self.end, out[0] + self.start)
        return sample(t, *out)
