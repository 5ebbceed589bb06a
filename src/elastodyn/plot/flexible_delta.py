"""Figures of a platform robot's motion-driven run, laid out like Kuo 2016's (flexible
Delta), from a result's quantities, without pyplot: drawn for any result that carries
the platform's attitude variation and the links' midspan deflections. World frame Z
down (stated on the figures)."""
from __future__ import annotations

import numpy as np

from .figure import finish, new_figure, wrap_title

__all__ = ["ked_figures", "platform_figures"]

_AXES = ("X", "Y", "Z")
_AXES_DOWN = ("X", "Y", "Z, down")


def _three(ax, t, y, labels, ylabel):
    for i in range(y.shape[1]):
        ax.plot(t, y[:, i], label=labels[i])
    ax.set_ylabel(ylabel)


def ked_figures(q: dict, title: str = "") -> dict:
    """The figures of :func:`platform_figures` (name kept for scripts)."""
    return platform_figures(q, title)


def platform_figures(q: dict, title: str = "") -> dict:
    """torques (Kuo Figs. 5, 14), position_variation (6, 15), attitude_variation (7, 16),
    midspan (8-11: axial, torsion, y and z transverse displacements of every link at half
    length) and, for a path with a start and an end, trajectory (12) and path (13).
    ``title`` (the run) heads each figure. The validity verdict is printed by the
    result's ``figures`` (:meth:`~elastodyn.analysis.results.Result.__init_subclass__`)."""
    t = np.asarray(q["time_s"])
    head = (title + "\n") if title else ""
    out = {}
    fig, axes = new_figure(1, height=3.4)
    tau, rig = np.asarray(q["torque_nm"]), np.asarray(q["rigid_torque_nm"])
    ee, ree = np.asarray(q["ee_position_m"]), np.asarray(q["rigid_ee_position_m"])
    _three(axes[0], t, tau, [f"actuator {i + 1}" for i in range(3)], "torque [N m]")
    for i in range(3):
        axes[0].plot(t, rig[:, i], "k:", lw=0.8, label="rigid links" if i == 0 else None)
    axes[0].set_title(head + "actuator torques", fontsize=9)
    out["torques"] = finish(fig, axes, xlabel="time [s]")
    for name, y, labels, ylabel, what in (
            ("position_variation", (ee - ree) * 1e3,
             [f"delta_{i + 1} ({a})" for i, a in enumerate(_AXES_DOWN)],
             "position variation [mm]\n(world frame, Z down)",
             "end-effector position variations (world frame, Z down)"),
            ("attitude_variation", np.asarray(q["ee_attitude_deg"]),
             [f"delta_{i + 4} (about {a})" for i, a in enumerate(_AXES)],
             "attitude variation [deg]",
             "end-effector attitude variations (about the world axes, Z down)")):
        fig, axes = new_figure(1, height=3.4)
        _three(axes[0], t, y, labels, ylabel)
        axes[0].set_title(head + what, fontsize=9)
        out[name] = finish(fig, axes, xlabel="time [s]")
    titles = ("axial u [mm]", "torsion phi [deg]", "transverse v\n(link y) [mm]",
              "transverse w\n(link z) [mm]")
    scale = (1e3, np.degrees(1.0), 1e3, 1e3)
    mid = np.asarray(q["midspan"]).reshape(len(t), 3, 2, 4)
    fig, axes = new_figure(4, height=2.2)
    for f in range(4):
        for i in range(3):
            for li, style in ((0, "-"), (1, "--")):
                axes[f].plot(t, mid[:, i, li, f] * scale[f], style,
                             label=f"{'upper' if li == 0 else 'lower'} {i + 1}"
                             if f == 0 else None)
        axes[f].set_ylabel(titles[f], fontsize=8)
    axes[0].set_title(head + "link displacements at half length (link frames)", fontsize=9)
    out["midspan"] = finish(fig, axes, xlabel="time [s]")
    if "reference_velocity_m_s" in q:
        p = ree
        fig, axes = new_figure(3, height=2.3)
        for ax, y, lab in zip(axes, (p, np.asarray(q["reference_velocity_m_s"]),
                                     np.asarray(q["reference_acceleration_m_s2"])),
                              ("position [m]", "velocity [m/s]", "acceleration [m/s^2]")):
            _three(ax, t, y, list(_AXES_DOWN), lab)
        axes[0].set_title(head + "end-effector trajectory (world frame, Z down)",
                          fontsize=9)
        out["trajectory"] = finish(fig, axes, xlabel="time [s]")
        from matplotlib.figure import Figure
        fig = Figure(figsize=(5.5, 4.5), layout="constrained")
        ax = fig.add_subplot(projection="3d")
        ax.plot(p[:, 0], p[:, 1], p[:, 2])
        ax.set_xlabel("X [m]")
        ax.set_ylabel("Y [m]")
        ax.set_zlabel("Z [m] (down)")
        ax.invert_zaxis()
        ax.set_title(head + "end-effector path (world frame, Z down)", fontsize=9)
        wrap_title(ax)
        out["path"] = fig
    return out
