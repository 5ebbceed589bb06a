"""Plots of NE-PVP simulations of the five-bar (Briot & Khalil 2013, Fig. 4)."""
from __future__ import annotations

import numpy as np

from .delta import _figure, _save


def plot_motion(sim, path, title: str = "") -> None:
    """End-effector velocity, flexible and rigid (Briot Fig. 4), its deviation, the
    transverse deflections [mm] and the node rotations [mrad] of the beams, PNG."""
    plt, fig, axes = _figure(4, 2.3)
    t = sim.time
    for i, r in enumerate(sim.rows):
        line, = axes[0].plot(t, sim.ee_velocity[:, i], label=f"v_{r} flexible")
        axes[0].plot(t, sim.rigid_ee_velocity[:, i], "--", color=line.get_color(), lw=0.9,
                     label=f"v_{r} rigid")
        axes[1].plot(t, 1e3 * (sim.ee_velocity[:, i] - sim.rigid_ee_velocity[:, i]),
                     label=f"v_{r}")
    axes[0].set_ylabel("end-effector\nvelocity [m/s]")
    axes[1].set_ylabel("flexible - rigid\n[mm/s]")
    names = np.array(sim.elastic_names)
    for k, nm in enumerate(names):
        if "_v" in nm:
            axes[2].plot(t, 1e3 * sim.e[:, k], label=nm)
        elif "_rz" in nm:
            axes[3].plot(t, 1e3 * sim.e[:, k], label=nm)
    axes[2].set_ylabel("deflection v\n[mm]")
    axes[3].set_ylabel("rotation rz\n[mrad]")
    axes[3].set_xlabel("time [s]")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=4)
    if title:
        axes[0].set_title(title, fontsize=10)
    _save(plt, fig, path)
