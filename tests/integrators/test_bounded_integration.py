"""No integration runs without end (issue 35): a collapsed step or a spent budget is an
IntegrationStalled (a ModelError) naming the time, and the arm's PD loop without
friction, which hung for hours, runs on its defaults."""
from __future__ import annotations

import time

import numpy as np
import pytest

from elastodyn.formulations.amm.simulation import hold_reference, simulate_pd
from elastodyn.description.arm import arm_yu2019
from elastodyn.exceptions import ModelError
from elastodyn.formulations.amm.engine import AMMEngine
from elastodyn.integrators.bounded import IntegrationStalled, bounded_solve_ivp


def test_equals_solve_ivp_when_it_ends():
    # exp decay: the same numbers as scipy's own, the wrapper changes nothing else
    from scipy.integrate import solve_ivp
    t = np.linspace(0, 1, 11)
    a = bounded_solve_ivp(lambda t, y: -y, (0, 1), [1.0], t_eval=t, rtol=1e-10, atol=1e-12)
    b = solve_ivp(lambda t, y: -y, (0, 1), [1.0], t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_allclose(a.y[0], np.exp(-t), rtol=1e-9)


def test_budget_spent_names_the_time():
    # a stiff system on an explicit integrator: RK45's step is held near 2/1e6 s, so 1 s
    # takes ~3e6 evaluations, far over a budget of 3e4
    with pytest.raises(IntegrationStalled, match=r"stopped at t = .* budget of 30000"):
        bounded_solve_ivp(lambda t, y: -1e6 * (y - np.cos(t)), (0, 1), [0.0], method="RK45",
                          max_evaluations=30_000)
    assert issubclass(IntegrationStalled, ModelError)


def test_collapsed_step_is_reported_not_crawled():
    # the hang of issue 35: arm-yu2019's PD loop without friction at atol 1e-11 (the
    # round-off of its accelerations) settles by t = 5.6 s and crawled on at 5e-10 s
    # steps; now it stops within seconds with the time
    m = AMMEngine(arm_yu2019())
    th0 = np.radians([45.0, -45.0])
    t0 = time.perf_counter()
    with pytest.raises(IntegrationStalled, match=r"stalled at t = 5\.\d+ s"):
        simulate_pd(m, hold_reference(th0), 6.0, 125.0, 25.0, friction=False, step=2e-3,
                    atol=1e-11)
    assert time.perf_counter() - t0 < 60


def test_frictionless_arm_runs_on_its_defaults():
    m = AMMEngine(arm_yu2019())
    th0 = np.radians([45.0, -45.0])
    sim = simulate_pd(m, hold_reference(th0), 6.0, 125.0, 25.0, friction=False, step=2e-3)
    assert sim.time[-1] == pytest.approx(6.0)
    assert np.all(np.isfinite(sim.q))
