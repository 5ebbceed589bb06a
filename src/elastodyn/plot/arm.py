"""Figures of the flexible-arm simulations (Yu & Chen 2019, Figs. 10 and 12-14), from a
result's quantities, without pyplot."""
from __future__ import annotations

import numpy as np

from .figure import finish, new_figure

__all__ = ["arm_figures"]


def arm_figures(q: dict, title: str = "") -> dict:
    """joints (angles and set points, torques; Figs. 12-13), tip_acceleration (Fig. 14,
    or Fig. 10 a) and, for a free vibration, spectrum (Fig. 10 b)."""
    t = np.asarray(q["time_s"])
    th, ref, tau = (np.asarray(q[k]) for k in ("theta_rad", "theta_ref_rad", "torque_nm"))
    n = th.shape[1]
    out = {}
    fig, ax = new_figure(2, height=2.6)
    for i in range(n):
        line, = ax[0].plot(t, np.degrees(th[:, i]), label=f"joint {i + 1}")
        ax[0].plot(t, np.degrees(ref[:, i]), "--", color=line.get_color(), lw=0.9,
                   label=f"set point {i + 1}")
        ax[1].plot(t, tau[:, i], label=f"joint {i + 1}")
    ax[0].set_ylabel("joint angle [deg]")
    ax[1].set_ylabel("torque [N m]")
    ax[0].set_title(title, fontsize=9)
    out["joints"] = finish(fig, ax, xlabel="time [s]")
    acc = np.asarray(q["tip_acceleration_m_s2"]).reshape(len(t), n, 2)
    fig, ax = new_figure(n, height=2.4)
    for i in range(n):
        ax[i].plot(t, acc[:, i, 0], lw=0.8, label="x0")
        ax[i].plot(t, acc[:, i, 1], lw=0.8, label="y0 (vertical)")
        ax[i].set_ylabel(f"tip of link {i + 1}\n[m/s^2]")
    ax[0].set_title((title + "\n" if title else "") + "tip accelerations in the base frame "
                    "(x0, y0)", fontsize=9)
    out["tip_acceleration"] = finish(fig, ax, xlabel="time [s]")
    if "spectrum_frequency_hz" in q:
        f, A = np.asarray(q["spectrum_frequency_hz"]), np.asarray(q["spectrum_amplitude"])
        fig, ax = new_figure(1, height=3.2)
        ax[0].plot(2 * np.pi * f, A, lw=0.8)
        peaks = q.get("omega_spectrum_rad_s") or []
        for k, w in enumerate(peaks):
            ax[0].axvline(w, color="k", ls=":", lw=0.8, label=(
                "peaks: " + ", ".join(f"{p:.4g}" for p in peaks) + " rad/s")
                if k == 0 else None)
        if peaks:
            ax[0].set_xlim(0, 4 * max(peaks))
        ax[0].set_ylabel("amplitude")
        ax[0].set_title((title + "\n" if title else "") + "spectrum of the vertical tip "
                        "acceleration of the last link", fontsize=9)
        out["spectrum"] = finish(fig, ax, xlabel="angular frequency [rad/s]")
    return out
