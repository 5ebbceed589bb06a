"""Figures of the rigid-Delta analyses (and of any effort history): torques along a path,
tracking errors. Built from a result's quantities (arrays), without pyplot."""
from __future__ import annotations

import numpy as np

from .figure import finish, new_figure

__all__ = ["torques_figure", "tracking_figure"]


def torques_figure(q: dict, title: str = ""):
    """Efforts against time (dotted: the rigid model's, when given) and, for Kuo's
    multiplier model, the lower-link tensions."""
    key = next(k for k in ("torque_nm", "force_n", "effort_si") if k in q)
    t = np.asarray(q["time_s"])
    rows = 2 if "lower_link_tension_n" in q else 1
    fig, axes = new_figure(rows, height=2.8)
    y = np.asarray(q[key])
    for i in range(y.shape[1]):
        line, = axes[0].plot(t, y[:, i], label=f"actuator {i + 1}")
        if "rigid_" + key in q:
            axes[0].plot(t, np.asarray(q["rigid_" + key])[:, i], ":", color=line.get_color(),
                         lw=0.9, label=f"rigid {i + 1}")
    axes[0].set_ylabel({"torque_nm": "torque [N m]", "force_n": "force [N]"}.get(key, key))
    if rows == 2:
        ten = np.asarray(q["lower_link_tension_n"])
        for i in range(ten.shape[1]):
            axes[1].plot(t, ten[:, i], label=f"leg {i + 1}")
        axes[1].set_ylabel("lower-link tension [N]")
    axes[0].set_title(title, fontsize=9)
    return finish(fig, axes, xlabel="time [s]")


def tracking_figure(q: dict, title: str = ""):
    """Position error (per axis and norm, mm; the Delta's world frame, Z down, Kuo 2016),
    joint error (mrad) and torques."""
    t = np.asarray(q["time_s"])
    fig, axes = new_figure(3, height=2.4)
    err = np.asarray(q["position_error_m"]) * 1e3
    for k, name in enumerate(("X", "Y", "Z (down)")):
        axes[0].plot(t, err[:, k], label=name)
    axes[0].plot(t, np.linalg.norm(err, axis=1), "k--", lw=0.8, label="|e|")
    axes[0].set_ylabel("X - X_ref [mm]\n(world frame, Z down)")
    je, tau = np.asarray(q["joint_error_rad"]), np.asarray(q["torque_nm"])
    for i in range(je.shape[1]):
        axes[1].plot(t, je[:, i] * 1e3, label=f"joint {i + 1}")
        axes[2].plot(t, tau[:, i], label=f"actuator {i + 1}")
    axes[1].set_ylabel("q - q_ref [mrad]")
    axes[2].set_ylabel("torque [N m]")
    axes[0].set_title(title, fontsize=9)
    return finish(fig, axes, xlabel="time [s]")
