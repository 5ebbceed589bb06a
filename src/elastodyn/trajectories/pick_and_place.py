"""Kuo (2016) septic pick-and-place ("inverted U") path."""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from .. import _validate
from ..exceptions import InputError
from ._base import Trajectory, TrajectorySample, as_times, readonly, sample
from .piecewise import PiecewiseTrajectory
from .polynomial import RestToRest

__all__ = ["InvertedU"]


@dataclass(frozen=True, eq=False)
class InvertedU(Trajectory):
    r"""Septic pick-and-place path of Kuo (2016), section 5.4.

    With set times :math:`t_0 < t_1 < t_2 < t_3 < t_f`:

    * X and Y move from :math:`(X_0, Y_0)` to :math:`(X_0 + \Delta X, Y_0 + \Delta Y)`
      between :math:`t_1` and :math:`t_3` and rest otherwise;
    * Z moves from :math:`Z_0` to :math:`Z_0 + \Delta Z` between :math:`t_0` and
      :math:`t_2` and back to :math:`Z_0` between :math:`t_2` and :math:`t_f`.

    Every move is the septic rest-to-rest polynomial
    :math:`s = 35\tau^4 - 84\tau^5 + 70\tau^6 - 20\tau^7` (see :class:`RestToRest`),
    so each coordinate has zero velocity, acceleration and jerk at its own set points
    (X, Y at :math:`t_0, t_1, t_3, t_f`; Z at :math:`t_0, t_2, t_f`) and the whole
    point is at rest at :math:`t_0` and :math:`t_f`. (At :math:`t_1` and :math:`t_3`
    Z is moving; at :math:`t_2` X and Y are.) The XY progress is monotone and Z
    reaches its extreme :math:`Z_0 + \Delta Z` at :math:`t_2`.

    In Kuo's frame Z points **down**: the default :math:`\Delta Z = +0.2` m takes the
    end-effector 0.2 m deeper and back up. Plotting Z against the XY progress with
    the Z axis drawn upward gives a hump, the "inverted U". Either sign of each
    travel component is accepted.

    Parameters
    ----------
    start : array_like, shape (3,)
        :math:`(X_0, Y_0, Z_0)` in m, finite. Default (-0.08, -0.02, 0.5).
    travel : array_like, shape (3,)
        :math:`(\Delta X, \Delta Y, \Delta Z)` in m, finite, any sign. Default
        (0.16, 0.04, 0.2).
    times : array_like, shape (5,), keyword-only
        :math:`(t_0, t_1, t_2, t_3, t_f)` in s, finite, strictly increasing. Default
        (0, 0.2, 0.4, 0.6, 0.8).

    Attributes
    ----------
    dim : int
        3.
    set_times : numpy.ndarray, shape (5,)
        Same as ``times``.
    space : str
        ``"task"``: positions of the end-effector / platform.

    Notes
    -----
    Outside :math:`[t_0, t_f]` the point rests at ``start`` (before) or at
    ``start + (ΔX, ΔY, 0)`` (after).

    Raises
    ------
    InputError
        Non-finite values or times not strictly increasing.
    DimensionError
        ``start``, ``travel`` not of length 3 or ``times`` not of length 5.
    """

    start: np.ndarray = (-0.08, -0.02, 0.5)
    travel: np.ndarray = (0.16, 0.04, 0.2)
    _: KW_ONLY
    times: np.ndarray = (0.0, 0.2, 0.4, 0.6, 0.8)
    _xy: RestToRest = field(init=False, repr=False)
    _z: PiecewiseTrajectory = field(init=False, repr=False)

    def __post_init__(self) -> None:
        start = _validate.vector("start", self.start, 3)
        travel = _validate.vector("travel", self.travel, 3)
        times = _validate.vector("times", self.times, 5)
        if not np.all(np.diff(times) > 0.0):
            raise InputError(
                "times", self.times, "5 strictly increasing finite times (t0, t1, t2, t3, tf) in s"
            )
        t0, t1, t2, t3, tf = (float(x) for x in times)
        z0, z1 = start[2], start[2] + travel[2]
        xy = RestToRest(start[:2], start[:2] + travel[:2], t0=t1, tf=t3, order=7)
        z = PiecewiseTrajectory(
            (RestToRest(z0, z1, t0=t0, tf=t2, order=7), RestToRest(z1, z0, t0=t2, tf=tf, order=7))
        )
        set_ = object.__setattr__
        set_(self, "start", readonly(start))
        set_(self, "travel", readonly(travel))
        set_(self, "times", readonly(times))
        set_(self, "_xy", xy)
        set_(self, "_z", z)

    @property
    def dim(self) -> int:
        """3: X, Y, Z."""
        return 3

    @property
    def space(self) -> str:
        """``"task"``: positions of the end-effector / platform."""
        return "task"

    @property
    def t_start(self) -> float:
        """:math:`t_0` in s."""
        return float(self.times[0])

    @property
    def t_end(self) -> float:
        """:math:`t_f` in s."""
        return float(self.times[-1])

    @property
    def set_times(self) -> np.ndarray:
        """:math:`(t_0, t_1, t_2, t_3, t_f)` in s, shape (5,)."""
        return self.times

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate at times ``t`` (float or array_like (n,), s); see :class:`Trajectory`."""
        t = as_times(t)
        a, b = self._xy.evaluate(t), self._z.evaluate(t)
        return sample(
            t,
            np.hstack([a.position, b.position]),
            np.hstack([a.velocity, b.velocity]),
            np.hstack([a.acceleration, b.acceleration]),
            np.hstack([a.jerk, b.jerk]),
        )

    @classmethod
    def kuo2016(cls) -> "InvertedU":
        """Kuo (2016), section 5.4: start (-0.08, -0.02, 0.5) m, travel (0.16, 0.04, 0.2) m,
        set times (0, 0.2, 0.4, 0.6, 0.8) s (Z down)."""
        return cls()
