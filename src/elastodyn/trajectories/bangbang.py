"""Bang-bang (constant-acceleration) rest-to-rest motion."""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np

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

__all__ = ["BangBang"]


@dataclass(frozen=True, eq=False)
class BangBang(Segment, Trajectory):
    r"""Bang-bang acceleration profile between two rest positions.

    With :math:`d = q_f - q_0`, :math:`T = t_f - t_0`, :math:`t_m = (t_0 + t_f)/2`
    and :math:`a = 4d/T^2`:

    .. math::

        q(t) = \begin{cases}
            q_0 + \tfrac12 a (t - t_0)^2, & t_0 \le t < t_m,\\
            q_f - \tfrac12 a (t_f - t)^2, & t_m \le t \le t_f,
        \end{cases}

    so the acceleration is :math:`+a` then :math:`-a`, the velocity is triangular with
    peak :math:`2d/T` at :math:`t_m`, and the motion starts and ends at rest. Used by
    Briot & Khalil (2013), section V (q1 from 0 to 0.1 m and q4 from 0 to 0.2 m in
    0.75 s; see :meth:`briot2013`).

    Parameters
    ----------
    start, end : float or array_like, shape (dim,)
        Initial and final positions (m, or rad), finite, same length; scalars give
        ``dim`` 1.
    t0, tf : float, keyword-only
        Start and end times in s, finite, ``tf > t0``.
    space : {"joint", "task"}, keyword-only
        ``"joint"`` (default): the coordinates are the actuated coordinates, in the
        order of the robot's actuators. This default keeps today's use: the bang-bang
        law drives the actuators of the five-bar (q1, q4 of Briot & Khalil 2013; the
        ``simulate`` verb and the NE-PVP analysis take it in joint space). Pass
        ``"task"`` for end-effector / platform positions.

    Notes
    -----
    The acceleration jumps at ``t0``, ``t_m`` and ``tf`` (:attr:`switch_times`), so
    the true jerk is a sum of Dirac impulses there (strengths :math:`a`,
    :math:`-2a`, :math:`a`). :meth:`evaluate` returns the regular part only: jerk
    **zero** everywhere. At a switch time the acceleration returned is that of the
    interval starting there (``+a`` at ``t0``, ``-a`` at ``t_m`` and at ``tf``);
    outside ``[t0, tf]`` the position is held with zero derivatives.

    Raises
    ------
    InputError
        Non-finite values, ``start``/``end`` of different lengths, ``tf <= t0``,
        ``space`` not "joint" or "task".
    """

    start: np.ndarray
    end: np.ndarray
    _: KW_ONLY
    t0: float
    tf: float
    space: str = "joint"

    def __post_init__(self) -> None:
        start, end = as_endpoints(self.start, self.end)
        t0, tf = as_interval(self.t0, self.tf)
        space = check_space(self.space)
        for name, value in (("start", start), ("end", end), ("t0", t0), ("tf", tf), ("space", space)):
            object.__setattr__(self, name, value)

    @property
    def switch_times(self) -> tuple[float, float, float]:
        """``(t0, (t0 + tf)/2, tf)`` in s: where the acceleration jumps."""
        return (self.t0, 0.5 * (self.t0 + self.tf), self.tf)

    @property
    def acceleration_level(self) -> np.ndarray:
        """Signed acceleration of the first half, :math:`4d/T^2`, shape (dim,)."""
        return 4.0 * (self.end - self.start) / (self.tf - self.t0) ** 2

    @property
    def peak_velocity(self) -> np.ndarray:
        """Signed velocity at the midpoint, :math:`2d/T`, shape (dim,)."""
        return 2.0 * (self.end - self.start) / (self.tf - self.t0)

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate at times ``t`` (float or array_like (n,), s); jerk is returned as 0.

        Returns
        -------
        TrajectorySample
            ``time`` (n,); ``position``, ``velocity``, ``acceleration``, ``jerk``
            (n, dim) in SI units.
        """
        t = as_times(t)
        t0, tm, tf = self.switch_times
        a = self.acceleration_level
        first = ((t >= t0) & (t < tm))[:, None]
        second = ((t >= tm) & (t <= tf))[:, None]
        after = (t > tf)[:, None]
        u = (t - t0)[:, None]
        w = (tf - t)[:, None]
        pos = np.where(
            first,
            self.start + 0.5 * a * u**2,
            np.where(second, self.end - 0.5 * a * w**2, np.where(after, self.end, self.start)),
        )
        vel = np.where(first, a * u, np.where(second, a * w, 0.0))
        acc = np.where(first, a, np.where(second, -a, 0.0))
        return sample(t, pos, vel, acc, np.zeros_like(pos))

    @classmethod
    def briot2013(cls) -> "BangBang":
        """Briot & Khalil (2013), section V: (q1, q4) from (0, 0) to (0.1, 0.2) m in 0.75 s
        (actuator coordinates: ``space`` "joint")."""
        return cls((0.0, 0.0), (0.1, 0.2), t0=0.0, tf=0.75)
