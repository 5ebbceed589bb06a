"""Kinematics of rigid planar serial arms (the undeformed arms of the ``arm`` family)."""
from __future__ import annotations

import numpy as np

from ..exceptions import InputError

__all__ = ["two_link_inverse_kinematics"]


def two_link_inverse_kinematics(l1: float, l2: float, xy, elbow: str = "down"
                                ) -> np.ndarray:
    """Joint angles (2,) [rad] of a rigid two-link planar arm with links l1, l2 [m] (> 0)
    placing the tip of link 2 at xy (2,) [m]: theta_1 from the x axis, theta_2 relative
    to link 1; elbow "down" (theta_2 < 0) or "up". The law of cosines,
    cos theta_2 = (x^2 + y^2 - l1^2 - l2^2) / (2 l1 l2).

    Raises
    ------
    InputError
        A point out of reach (naming the reach l1 + l2), or another elbow.
    """
    if elbow not in ("down", "up"):
        raise InputError("elbow", elbow, "down or up")
    x, y = map(float, xy)
    c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    if not -1.0 <= c2 <= 1.0:
        raise InputError("position", [x, y], f"a point within reach ({l1 + l2:g} m)")
    t2 = np.arccos(c2) * (-1.0 if elbow == "down" else 1.0)
    t1 = np.arctan2(y, x) - np.arctan2(l2 * np.sin(t2), l1 + l2 * np.cos(t2))
    return np.array([t1, t2])
