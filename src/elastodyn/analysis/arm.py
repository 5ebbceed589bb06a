"""Analyses of planar flexible arms by assumed modes (Yu & Chen 2019): clamped-link
frequencies, PD tracking of a circle (Yu 4.2) and the free vibration (Yu 4.1)."""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.optimize import brentq

from ..description.arm import ArmLink, PlanarArm
from ..exceptions import InputError
from ..formulations.amm_model import AMMArmModel

__all__ = ["clamped_link_frequencies", "cantilever_frequencies"]


def clamped_link_frequencies(link: ArmLink, modes: int, basis: str = "sine",
                             tip_mass: float = 0.0) -> np.ndarray:
    """Natural frequencies [rad/s] (modes,) of one link whose motor shaft is clamped,
    about rest without gravity, by the assumed-modes model.

    The clamp holds the root tangent: theta + y'(0) = theta + sum phi_k'(0) f_k / L = 0,
    so q = T f with T = [-phi'(0)^T / L; I]; omega^2 solves T^T K T = omega^2 T^T M T.
    The chord frame turns with theta: the link is a cantilever, free at the tip, with
    the point mass ``tip_mass`` [kg] there (mu = 0).
    """
    from dataclasses import replace
    arm = PlanarArm("clamped-link", (replace(link, lumped_mass=tip_mass, mu=0.0),),
                    modes=modes, basis=basis, gravity=0.0)
    m = AMMArmModel(arm)
    M = m.dynamics(np.zeros(m.nq), np.zeros(m.nq))["M"]
    d0 = m.shapes.integrals["d0"] / link.length
    T = np.vstack([-d0[None, :], np.eye(modes)])
    w2 = sla.eigh(T.T @ m.stiffness @ T, T.T @ M @ T, eigvals_only=True)
    return np.sqrt(np.clip(w2, 0.0, None))


def cantilever_frequencies(link: ArmLink, count: int, tip_mass: float = 0.0) -> np.ndarray:
    """Euler-Bernoulli cantilever with a tip point mass: omega_k = lam_k^2 sqrt(E I /
    (m L^3)) [rad/s] with lam_k the roots of 1 + cos(lam) cosh(lam) + r lam (cos(lam)
    sinh(lam) - sin(lam) cosh(lam)) = 0, r = tip_mass / m (Blevins, Table 8-1, case 3).
    Bracketed between the pinned and clamped-free limits: one root per interval
    ((k - 1/2) pi .. (k + 1/2) pi) for k >= 1, scaled by cosh to stay finite."""
    if link.mass <= 0:
        raise InputError("mass", link.mass, "> 0 for a cantilever")
    r = tip_mass / link.mass

    def char(lam):
        return (1.0 / np.cosh(lam) + np.cos(lam)
                + r * lam * (np.cos(lam) * np.tanh(lam) - np.sin(lam)))

    roots = []
    a = 1e-6
    while len(roots) < count:
        b = a + 0.05
        if char(a) * char(b) < 0:
            roots.append(brentq(char, a, b, xtol=1e-14))
        a = b
    lam = np.array(roots)
    return lam ** 2 * np.sqrt(link.E * link.I / (link.mass * link.length ** 3))
