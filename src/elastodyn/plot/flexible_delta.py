"""Plots of the flexible-Delta (KED) analyses, laid out like Kuo 2016's figures."""
from __future__ import annotations

import numpy as np

from .delta import _figure, _save

_AXES = ("X", "Y", "Z")


def plot_frequency_map(fmap, path, *, per_panel: int = 4) -> None:
    """Frequencies [Hz] against the angle along the path (Kuo Fig. 4), PNG."""
    f = fmap.frequencies_hz
    k = f.shape[1]
    panels = max(1, -(-k // per_panel))
    plt, fig, axes = _figure(panels, 2.8)
    for m in range(k):
        ax = axes[m // per_panel]
        ax.plot(fmap.angle_deg, f[:, m], label=f"mode {m + 1}")
    for ax in axes:
        ax.set_ylabel("frequency [Hz]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=per_panel)
    axes[0].set_title("natural frequencies along the circle (at rest, static preload)",
                      fontsize=10)
    axes[-1].set_xlabel("angle along the circle [deg]")
    _save(plt, fig, path)


def plot_convergence(table, path) -> None:
    """Frequencies [Hz] against the number of elements per link (Kuo Tables 2-3), PNG."""
    plt, fig, axes = _figure(1, 3.6)
    ax = axes[0]
    f = table.frequencies_hz
    for m in range(f.shape[1]):
        ax.plot(table.elements, f[:, m], "o-", label=f"mode {m + 1}")
    ax.set_xlabel("elements per link")
    ax.set_ylabel("frequency [Hz]")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=4)
    ax.set_title(f"mesh convergence ({table.order} family) at "
                 f"{np.round(table.position_m, 4).tolist()} m", fontsize=10)
    _save(plt, fig, path)


def _three(ax, t, y, labels, ylabel):
    for i in range(y.shape[1]):
        ax.plot(t, y[:, i], label=labels[i])
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def plot_ked_simulation(res, folder, trajectory=None) -> list[str]:
    """Kuo's figures of a KED run under ``folder``; returns the file names written.

    torques.png (Figs. 5, 14), position_variation.png (6, 15), attitude_variation.png
    (7, 16), midspan.png (8-11: axial, torsion, y and z transverse displacements of
    every link at half length), and for a path with a start and an end the trajectory
    (12) and the path (13).
    """
    from pathlib import Path
    folder = Path(folder)
    t = res.time
    names = []

    plt, fig, axes = _figure(1, 3.2)
    _three(axes[0], t, res.torque, [f"actuator {i + 1}" for i in range(3)], "torque [N m]")
    for i in range(3):
        axes[0].plot(t, res.rigid_torque[:, i], "k:", lw=0.8,
                     label="rigid" if i == 0 else None)
    axes[0].legend(fontsize=7)
    axes[0].set_title("actuator torques (KED; dotted: rigid links)", fontsize=10)
    axes[0].set_xlabel("time [s]")
    _save(plt, fig, folder / "torques.png")
    names.append("torques.png")

    for name, y, labels, ylabel, title in (
            ("position_variation.png", res.position_variation * 1e3,
             [f"delta_{i + 1} ({a})" for i, a in enumerate(_AXES)],
             "position variation [mm]", "end-effector position variations"),
            ("attitude_variation.png", res.attitude_variation_deg,
             [f"delta_{i + 4} (about {a})" for i, a in enumerate(_AXES)],
             "attitude variation [deg]", "end-effector attitude variations")):
        plt, fig, axes = _figure(1, 3.2)
        _three(axes[0], t, y, labels, ylabel)
        axes[0].set_title(title, fontsize=10)
        axes[0].set_xlabel("time [s]")
        _save(plt, fig, folder / name)
        names.append(name)

    titles = ("axial displacement u [mm]", "torsion angle phi [deg]",
              "transverse displacement v (link y) [mm]",
              "transverse displacement w (link z) [mm]")
    scale = (1e3, np.degrees(1.0), 1e3, 1e3)
    plt, fig, axes = _figure(4, 2.4)
    for f in range(4):
        for i in range(3):
            for li, style in ((0, "-"), (1, "--")):
                axes[f].plot(t, res.midspan[:, i, li, f] * scale[f], style,
                             label=f"{'upper' if li == 0 else 'lower'} {i + 1}")
        axes[f].set_ylabel(titles[f], fontsize=8)
        axes[f].grid(alpha=0.3)
    axes[0].legend(fontsize=6, ncol=6)
    axes[0].set_title("link displacements at half length (link frames)", fontsize=10)
    axes[-1].set_xlabel("time [s]")
    _save(plt, fig, folder / "midspan.png")
    names.append("midspan.png")

    if trajectory is not None and trajectory.period is None:
        smp = trajectory.evaluate(t)
        plt, fig, axes = _figure(3, 2.4)
        for ax, y, lab in zip(axes, (smp.position, smp.velocity, smp.acceleration),
                              ("position [m]", "velocity [m/s]", "acceleration [m/s^2]")):
            _three(ax, t, y, list(_AXES), lab)
        axes[0].set_title("end-effector trajectory", fontsize=10)
        axes[-1].set_xlabel("time [s]")
        _save(plt, fig, folder / "trajectory.png")
        names.append("trajectory.png")

        import matplotlib.pyplot as plt2
        fig = plt2.figure(figsize=(5.5, 4.5))
        ax = fig.add_subplot(projection="3d")
        p = smp.position
        ax.plot(p[:, 0], p[:, 1], p[:, 2])
        ax.set_xlabel("X [m]")
        ax.set_ylabel("Y [m]")
        ax.set_zlabel("Z [m] (down)")
        ax.invert_zaxis()
        ax.set_title("end-effector path", fontsize=10)
        _save(plt2, fig, folder / "path.png")
        names.append("path.png")
    return names
