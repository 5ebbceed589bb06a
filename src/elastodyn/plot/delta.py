"""Plots of rigid-Delta analyses: torques along a path, tracking error and torques."""
from __future__ import annotations

import numpy as np

from ..io.atomic import atomic_path


def _figure(nrows, height=2.4):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, 1, figsize=(7, height * nrows), sharex=True, squeeze=False)
    return plt, fig, axes[:, 0]


def _save(plt, fig, path):
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def plot_torques(profile, path) -> None:
    """Actuator torques (and lower-link tensions when present) against time, PNG."""
    rows = 2 if profile.lower_link_tension is not None else 1
    plt, fig, axes = _figure(rows)
    for i in range(3):
        axes[0].plot(profile.time, profile.torque[:, i], label=f"actuator {i + 1}")
    axes[0].set_ylabel("torque [N m]")
    axes[0].set_title(f"{profile.robot}: inverse dynamics ({profile.formulation})", fontsize=10)
    if rows == 2:
        for i in range(3):
            axes[1].plot(profile.time, profile.lower_link_tension[:, i], label=f"leg {i + 1}")
        axes[1].set_ylabel("lower-link tension [N]")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[-1].set_xlabel("time [s]")
    _save(plt, fig, path)


def plot_tracking(result, path) -> None:
    """Position error (per axis and norm, mm), joint error (mrad) and torques, PNG."""
    plt, fig, axes = _figure(3)
    err = result.position_error * 1e3
    for k, name in enumerate("XYZ"):
        axes[0].plot(result.time, err[:, k], label=name)
    axes[0].plot(result.time, np.linalg.norm(err, axis=1), "k--", lw=0.8, label="|e|")
    axes[0].set_ylabel("X - X_ref [mm]")
    for i in range(3):
        axes[1].plot(result.time, result.joint_error[:, i] * 1e3, label=f"joint {i + 1}")
        axes[2].plot(result.time, result.torque[:, i], label=f"actuator {i + 1}")
    axes[1].set_ylabel("q - q_ref [mrad]")
    axes[2].set_ylabel("torque [N m]")
    axes[0].set_title(f"{result.robot}: {result.controller} tracking", fontsize=10)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=4)
    axes[-1].set_xlabel("time [s]")
    _save(plt, fig, path)
