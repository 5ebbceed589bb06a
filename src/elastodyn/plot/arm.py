"""Plots of the flexible-arm simulations (Yu & Chen 2019, Figs. 10 and 12-14)."""
from __future__ import annotations

import numpy as np

from .delta import _figure, _save


def plot_arm_simulation(sim, vartheta, folder, doc) -> list[str]:
    """joints.png (angles and set points, torques; Figs. 12-13), tip_acceleration.png
    (Fig. 14, or Fig. 10 a), and for a free vibration spectrum.png (Fig. 10 b)."""
    t = sim.time
    n = vartheta.shape[1]
    plt, fig, ax = _figure(2, 2.6)
    for i in range(n):
        line, = ax[0].plot(t, np.degrees(vartheta[:, i]), label=f"joint {i + 1}")
        ax[0].plot(t, np.degrees(sim.theta_ref[:, i]), "--", color=line.get_color(), lw=0.9,
                   label=f"set point {i + 1}")
        ax[1].plot(t, sim.tau[:, i], label=f"joint {i + 1}")
    ax[0].set_ylabel("joint angle [deg]")
    ax[1].set_ylabel("torque [N m]")
    ax[1].set_xlabel("time [s]")
    ax[0].set_title(f"{doc['robot']}: {doc['case']}, joint PD (kp {doc['kp']:g}, "
                    f"kd {doc['kd']:g})", fontsize=10)
    for a in ax:
        a.grid(alpha=0.3)
        a.legend(fontsize=7, ncol=2)
    _save(plt, fig, folder / "joints.png")
    plt, fig, ax = _figure(n, 2.4)
    for i in range(n):
        ax[i].plot(t, sim.tip_acceleration[:, i, 0], lw=0.8, label="x0")
        ax[i].plot(t, sim.tip_acceleration[:, i, 1], lw=0.8, label="y0 (vertical)")
        ax[i].set_ylabel(f"tip of link {i + 1}\n[m/s^2]")
        ax[i].grid(alpha=0.3)
        ax[i].legend(fontsize=7)
    ax[-1].set_xlabel("time [s]")
    _save(plt, fig, folder / "tip_acceleration.png")
    names = ["joints.png", "tip_acceleration.png"]
    if "omega_rad_s" in doc:
        from ..analysis.arm import spectrum_peaks
        _, f, A = spectrum_peaks(t, sim.tip_acceleration[:, -1, 1])
        plt, fig, ax = _figure(1, 3.2)
        ax[0].plot(2 * np.pi * f, A, lw=0.8)
        for w in doc["omega_rad_s"]["spectrum"]:
            ax[0].axvline(w, color="k", ls=":", lw=0.8)
        ax[0].set_xlim(0, 4 * max(doc["omega_rad_s"]["spectrum"]))
        ax[0].set_xlabel("angular frequency [rad/s]")
        ax[0].set_ylabel("amplitude")
        ax[0].set_title("spectrum of the vertical tip acceleration of link 2", fontsize=10)
        ax[0].grid(alpha=0.3)
        _save(plt, fig, folder / "spectrum.png")
        names.append("spectrum.png")
    return names
