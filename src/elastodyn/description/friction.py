"""Joint friction: viscous, Coulomb and Stribeck, one law for every robot of the library.

:class:`Friction` maps joint rates [rad/s] to friction torques [N m]. The Delta robots use
it for their motors (Asadi & Heydari 2020, eq. 24); the planar flexible arms build one per
joint from their geared motors (:meth:`elastodyn.description.arm.ArmLink.joint_friction`).
The tree robots' motor dictionaries (:mod:`elastodyn.description.tree`) have their own
viscous and Coulomb fields.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..exceptions import InputError

__all__ = ["Friction"]


@dataclass(frozen=True)
class Friction:
    """Friction of an actuated joint (Asadi eq. 24, tau_fric). A
    :class:`~elastodyn.description.delta.RigidDelta` uses one for its three motors; a
    planar arm has one per joint (:meth:`~elastodyn.description.arm.ArmLink.joint_friction`).

    tau_fric(qd) = viscous qd + [coulomb + (static - coulomb) exp(-(qd/stribeck_velocity)^2)]
    * sgn(qd), the Stribeck curve (Olsson et al. 1998, Asadi ref. 24). ``static`` = None
    (default) turns the Stribeck bump off (static = coulomb). sgn is smoothed as
    tanh(qd / smoothing_velocity) when ``smoothing_velocity`` > 0, so that simulations with
    Coulomb friction stay integrable; 0 gives the exact discontinuous sign.

    Parameters
    ----------
    viscous : float
        [N m s/rad]; >= 0.
    coulomb : float
        [N m]; >= 0.
    static : float or None
        Breakaway torque [N m]; >= coulomb.
    stribeck_velocity : float
        [rad/s]; > 0.
    smoothing_velocity : float
        [rad/s]; >= 0.
    """

    viscous: float = 0.0
    coulomb: float = 0.0
    static: float | None = None
    stribeck_velocity: float = 0.01
    smoothing_velocity: float = 1e-3

    def __post_init__(self):
        object.__setattr__(self, "viscous", _validate.non_negative("viscous", self.viscous))
        object.__setattr__(self, "coulomb", _validate.non_negative("coulomb", self.coulomb))
        if self.static is not None:
            s = _validate.non_negative("static", self.static)
            if s < self.coulomb:
                raise InputError("static", self.static, f">= coulomb ({self.coulomb} N m)")
            object.__setattr__(self, "static", s)
        object.__setattr__(self, "stribeck_velocity",
                           _validate.positive("stribeck_velocity", self.stribeck_velocity))
        object.__setattr__(self, "smoothing_velocity",
                           _validate.non_negative("smoothing_velocity", self.smoothing_velocity))

    @property
    def is_zero(self) -> bool:
        return self.viscous == 0.0 and self.coulomb == 0.0 and not self.static

    def torque(self, qd) -> np.ndarray:
        """Friction torque [N m] at joint rates ``qd`` [rad/s] (any shape)."""
        qd = np.asarray(qd, dtype=float)
        out = self.viscous * qd
        level = self.coulomb
        if self.static is not None:
            level = level + (self.static - self.coulomb) * np.exp(-(qd / self.stribeck_velocity) ** 2)
        if self.coulomb or self.static:
            sgn = (np.tanh(qd / self.smoothing_velocity) if self.smoothing_velocity > 0
                   else np.sign(qd))
            out = out + level * sgn
        return out
