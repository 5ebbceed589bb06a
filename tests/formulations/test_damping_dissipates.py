"""Damping dissipates on every formulation that takes it (issue 35): KED's Rayleigh
damping in tests/formulations/ked/test_ked_damping.py; here the assumed-modes arm's joint friction (the
geared motors' viscous friction, r^2 kv at the joint), through the contract only: a free
motion (no effort) from a bent, moving state loses energy monotonically with friction and
keeps it without (the contract's direct dynamics, integrated by DOP853 at rtol 1e-10)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.description.files import load_description
from elastodyn.formulations.registry import build_model


def _free_energy(viscous: float):
    sets = [f"links.{i}.coulomb=0" for i in (0, 1)] + \
           [f"links.{i}.viscous={viscous}" for i in (0, 1)]
    m = build_model(load_description("arm-yu2019", sets), "amm")
    n, na = m.coordinates.n, m.coordinates.n_actuated
    st0 = m.state(actuated=[0.4, -0.3], rates=[1.0, -0.5],
                  elastic=1e-3 * np.ones(n - na))

    def rhs(t, x):
        st = m.at(st0, q=x[:n], v=x[n:])
        return np.concatenate([x[n:], m.direct_dynamics(st, np.zeros(na))])

    t = np.linspace(0.0, 0.5, 101)
    sol = solve_ivp(rhs, (0.0, 0.5), np.concatenate([st0.q, st0.v]), method="DOP853",
                    t_eval=t, rtol=1e-10, atol=1e-12)
    assert sol.success
    E = np.array([sum(m.energy(m.at(st0, q=x[:n], v=x[n:]))) for x in sol.y.T])
    return E


def test_joint_friction_takes_energy_out_monotonically():
    E = _free_energy(viscous=2e-3)
    scale = np.abs(E).max()
    # monotone up to the integrator's error (rtol 1e-10 on states of order 1: 1e-8 of E)
    assert np.all(np.diff(E) <= 1e-8 * scale)
    assert E[-1] < E[0] - 1e-3 * scale


def test_without_friction_the_energy_is_kept():
    E = _free_energy(viscous=0.0)
    assert np.abs(E - E[0]).max() <= 1e-6 * np.abs(E).max()
