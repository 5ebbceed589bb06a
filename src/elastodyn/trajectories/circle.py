"""Uniform circular motion (periodic), in space or in the plane."""
from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from .. import _validate
from ..exceptions import DimensionError, InputError
from ._base import PeriodicPath, TrajectorySample, as_phases, as_times, readonly, sample

__all__ = ["Circle"]


@dataclass(frozen=True, eq=False)
class Circle(PeriodicPath):
    r"""Uniform motion on a circle, with analytic derivatives up to jerk.

    .. math::

        p(t) = c + r\,(\cos\theta\,e_1 + \sin\theta\,e_2), \qquad
        \theta = \omega\,(t - t_\mathrm{start}) + \varphi,

    where :math:`(e_1, e_2, n)` is a right-handed orthonormal triad. Velocity,
    acceleration and jerk are :math:`r\omega(-\sin\theta\,e_1 + \cos\theta\,e_2)`,
    :math:`-r\omega^2(\cos\theta\,e_1 + \sin\theta\,e_2)` (centripetal) and
    :math:`r\omega^3(\sin\theta\,e_1 - \cos\theta\,e_2)`.

    The dimension follows ``centre``: a 3-vector gives a spatial circle (``dim`` 3),
    a 2-vector a planar circle in (x, y) (``dim`` 2), for planar arms.

    Parameters
    ----------
    centre : array_like, shape (3,) or (2,)
        Centre :math:`c` in m, finite.
    radius : float
        Radius :math:`r` in m, finite and > 0.
    period : float, optional, keyword-only
        Period :math:`2\pi/\omega` in s, finite and > 0.
    angular_rate : float, optional, keyword-only
        Angular rate :math:`\omega` in rad/s, finite and > 0. Give exactly one of
        ``period`` and ``angular_rate``; after construction both attributes are set.
    phase : float, optional, keyword-only
        Angle :math:`\varphi` in rad at ``t_start`` measured from :math:`e_1` towards
        :math:`e_2`, finite. Default 0.
    normal : array_like, shape (3,), optional, keyword-only
        Normal :math:`n` of the circle's plane (any non-zero length; normalised). The
        motion is anticlockwise about ``normal``. Default (0, 0, 1).
        :math:`e_1` is the unit projection of the x axis on the plane (of the y axis
        when ``normal`` is within about 25 degrees of x), :math:`e_2 = n \times e_1`;
        for the default normal, :math:`e_1` = x and :math:`e_2` = y. For a planar
        circle ``normal`` must be parallel to z: (0, 0, 1) anticlockwise,
        (0, 0, -1) clockwise.
    t_start : float, optional, keyword-only
        Time in s at which :math:`\theta = \varphi`, finite. Default 0.

    Attributes
    ----------
    dim : int
        3, or 2 for a planar circle.
    t_end : float
        ``math.inf`` (periodic; evaluated by the formula at every time, also before
        ``t_start``).
    e1, e2 : numpy.ndarray, shape (dim,)
        In-plane unit vectors.
    space : str
        ``"task"``: a circle is a path of the end-effector / platform.

    Raises
    ------
    InputError
        Non-finite or non-positive ``radius``, ``period`` or ``angular_rate``; both or
        neither of ``period`` and ``angular_rate``; zero ``normal``; non-finite
        ``centre``, ``phase`` or ``t_start``; planar circle with a normal not along z.
    DimensionError
        ``centre`` not of length 2 or 3, ``normal`` not of length 3.

    Notes
    -----
    As a :class:`PeriodicPath`, the circle exposes its path as a function of the
    angle, :meth:`at_phase` (:math:`P(\theta) = c + r(\cos\theta\,e_1 +
    \sin\theta\,e_2)` and its derivatives with respect to :math:`\theta`), with
    :attr:`phase_rate` :math:`\omega` and :attr:`phase_at_start` :math:`\varphi`;
    :class:`Ramped` uses them to start the motion from rest.

    References
    ----------
    Presets: :meth:`kuo2016` (Kuo 2016, section 5.3), :meth:`asadi2020` (Asadi &
    Heydari 2020), :meth:`yu2019` (Yu & Chen 2019, case 2).
    """

    centre: np.ndarray
    radius: float
    _: KW_ONLY
    period: float | None = None
    angular_rate: float | None = None
    phase: float = 0.0
    normal: np.ndarray = (0.0, 0.0, 1.0)
    t_start: float = 0.0
    e1: np.ndarray = field(init=False, repr=False)
    e2: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        try:
            centre = np.asarray(self.centre, dtype=float)
        except (TypeError, ValueError):
            raise InputError("centre", self.centre, "a finite vector of length 2 or 3") from None
        if centre.shape not in ((2,), (3,)):
            raise DimensionError(f"invalid centre: expected shape (2,) or (3,), got {centre.shape}")
        centre = _validate.vector("centre", centre, centre.size)
        radius = _validate.positive("radius", self.radius)
        if (self.period is None) == (self.angular_rate is None):
            raise InputError(
                "period/angular_rate",
                (self.period, self.angular_rate),
                "exactly one of period (s) and angular_rate (rad/s)",
            )
        if self.period is not None:
            period = _validate.positive("period", self.period)
            rate = 2.0 * math.pi / period
        else:
            rate = _validate.positive("angular_rate", self.angular_rate)
            period = 2.0 * math.pi / rate
        phase = _validate.finite("phase", self.phase)
        t_start = _validate.finite("t_start", self.t_start)
        normal = _validate.vector("normal", self.normal, 3)
        length = float(np.linalg.norm(normal))
        if not length > 0.0:
            raise InputError("normal", self.normal, "a non-zero finite 3-vector")
        n = normal / length
        if centre.size == 2 and not (abs(n[0]) < 1e-12 and abs(n[1]) < 1e-12):
            raise InputError("normal", self.normal, "parallel to z for a planar (2-D) circle")
        ref = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        e1 = ref - (ref @ n) * n
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        d = centre.size
        set_(self, "centre", readonly(centre))
        set_(self, "radius", radius)
        set_(self, "period", period)
        set_(self, "angular_rate", rate)
        set_(self, "phase", phase)
        set_(self, "normal", readonly(normal))
        set_(self, "t_start", t_start)
        set_(self, "e1", readonly(e1[:d]))
        set_(self, "e2", readonly(e2[:d]))

    @property
    def dim(self) -> int:
        """3 for a spatial circle, 2 for a planar one."""
        return int(self.centre.size)

    @property
    def t_end(self) -> float:
        """``math.inf``: the motion is periodic."""
        return math.inf

    @property
    def space(self) -> str:
        """``"task"``: positions of the end-effector / platform."""
        return "task"

    @property
    def planar(self) -> bool:
        """True for a 2-D circle in the (x, y) plane."""
        return self.dim == 2

    @property
    def phase_rate(self) -> float:
        """:math:`\\omega` in rad/s (same as ``angular_rate``)."""
        return self.angular_rate

    @property
    def phase_at_start(self) -> float:
        """:math:`\\varphi` in rad (same as ``phase``): the angle at ``t_start``."""
        return self.phase

    def at_phase(self, theta) -> np.ndarray:
        r"""The circle at angles ``theta`` and its derivatives with respect to the angle.

        .. math::

            P = c + r\,u, \quad P' = r\,\tau, \quad P'' = -r\,u, \quad P''' = -r\,\tau,

        with :math:`u = \cos\theta\,e_1 + \sin\theta\,e_2` and
        :math:`\tau = -\sin\theta\,e_1 + \cos\theta\,e_2`. :meth:`evaluate` at time
        :math:`t` equals these at :math:`\theta = \omega (t - t_\mathrm{start}) + \varphi`
        times :math:`1, \omega, \omega^2, \omega^3`.

        Parameters
        ----------
        theta : float or array_like, shape (n,)
            Finite angles in rad, measured from :math:`e_1` towards :math:`e_2`.

        Returns
        -------
        numpy.ndarray, shape (4, n, dim)
            Position (m) and its first three derivatives with respect to the angle
            (m/rad, m/rad^2, m/rad^3).

        Raises
        ------
        InputError
            Non-finite or non-numeric ``theta``.
        DimensionError
            ``theta`` not a scalar or 1-D.
        """
        theta = as_phases(theta)
        c = np.cos(theta)[:, None]
        s = np.sin(theta)[:, None]
        radial = c * self.e1 + s * self.e2  # unit vector from the centre, (n, dim)
        tangent = -s * self.e1 + c * self.e2  # unit tangent, direction of increasing angle
        r = self.radius
        return np.stack([self.centre + r * radial, r * tangent, -r * radial, -r * tangent])

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate the circle at times ``t``.

        Parameters
        ----------
        t : float or array_like, shape (n,)
            Finite times in s (any value; the motion is periodic).

        Returns
        -------
        TrajectorySample
            ``time`` (n,), ``position`` (n, dim) in m, ``velocity`` in m/s,
            ``acceleration`` in m/s^2, ``jerk`` in m/s^3.
        """
        t = as_times(t)
        w, r = self.angular_rate, self.radius
        theta = w * (t - self.t_start) + self.phase
        c = np.cos(theta)[:, None]
        s = np.sin(theta)[:, None]
        radial = c * self.e1 + s * self.e2  # unit vector from the centre, (n, dim)
        tangent = -s * self.e1 + c * self.e2  # unit tangent, direction of motion
        return sample(
            t,
            self.centre + r * radial,
            (r * w) * tangent,
            -(r * w**2) * radial,
            -(r * w**3) * tangent,
        )

    # ------------------------------------------------------------------ presets

    @classmethod
    def kuo2016(cls) -> "Circle":
        """Kuo (2016), section 5.3: centre (0, 0, 0.5) m, radius 0.1 m, period 1 s.

        The circle lies in the horizontal plane z = 0.5 m (normal along z) and starts
        at phase 0, i.e. at (0.1, 0, 0.5) m, at t = 0.
        """
        return cls((0.0, 0.0, 0.5), 0.1, period=1.0)

    @classmethod
    def asadi2020(cls) -> "Circle":
        """Asadi & Heydari (2020): x = 0.25 cos t, y = 0.25 sin t, z = 0.45 (m, s).

        Centre (0, 0, 0.45) m, radius 0.25 m, angular rate 1 rad/s (period 2 pi s).
        """
        return cls((0.0, 0.0, 0.45), 0.25, angular_rate=1.0)

    @classmethod
    def yu2019(cls) -> "Circle":
        """Yu & Chen (2019), case 2, planar arm (``dim`` 2).

        x = 0.67 + 0.1 cos(0.2 pi t), y = 0.34 + 0.1 sin(0.2 pi t) (m, s): centre
        (0.67, 0.34) m, radius 0.1 m, angular rate 0.2 pi rad/s (period 10 s).
        """
        return cls((0.67, 0.34), 0.1, angular_rate=0.2 * math.pi)
