"""Motion-driven simulation of the flexible five-bar (Briot & Khalil 2013, section V): the
compiled RK4 driver against the Python DOP853 path and against itself (order of
convergence), and the stiff-beam limit against an independent rigid Lagrangian model."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.formulations.nepvp.simulation import _step_grid, simulate_motion
from elastodyn.description.tree import prrrp_briot2013
from elastodyn.formulations.nepvp.engine import NEPVPEngine
from elastodyn.trajectories.bangbang import BangBang
from elastodyn.trajectories.polynomial import RestToRest



@pytest.fixture(scope="module")
def model():
    return NEPVPEngine(prrrp_briot2013())


@pytest.fixture(scope="module")
def short_bang_bang():
    """A faster bang-bang (0.2 s, switches at 0.1 and 0.2 s) simulated to 0.3 s."""
    return BangBang(np.zeros(2), np.array([0.03, 0.06]), t0=0.0, tf=0.2)


def test_compiled_rk4_equals_python_dop853(model, short_bang_bang):
    """Two code paths: C (RK4, step 1e-4 s, loop closure and outputs in C) and Python
    (scipy DOP853 at rtol 1e-10, one call of the compiled programs per evaluation,
    outputs by the Python loop). Through both switch times and the rest after t_f.
    The RK4 error at h = 1e-4 s is about 1e-5 of the peak elastic response (omega h
    = 0.12 for the stiffest mode, local error (omega h)^5 / 120); asserted at 1e-4 of
    each peak; the rigid outputs use the same closed joints on both paths (1e-12)."""
    kw = dict(end=0.3, step=1e-3)
    c = simulate_motion(model, short_bang_bang, method="rk4", **kw)
    p = simulate_motion(model, short_bang_bang, method="dop853", rtol=1e-10, atol=1e-13,
                        **kw)
    assert c.method == "rk4" and p.method == "dop853"
    np.testing.assert_array_equal(c.time, p.time)
    for f in ("e", "ed", "tau", "ee_velocity", "ee_position", "q"):
        a, b = getattr(c, f), getattr(p, f)
        assert np.abs(a - b).max() <= 1e-4 * np.abs(b).max(), f
    for f in ("rigid_tau", "rigid_ee_velocity", "rigid_ee_position"):
        a, b = getattr(c, f), getattr(p, f)
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), f
    # the motion excites the structure: the elastic response is not trivial
    assert np.abs(c.e[:, 1]).max() > 1e-5
    assert np.abs(c.ee_velocity - c.rigid_ee_velocity).max() > 1e-4


def test_rk4_converges_at_fourth_order(model, short_bang_bang):
    """Halving the step divides the change of the final state by about 2^4 = 16 (measured 21: not yet fully asymptotic) when
    every switch time is a grid point (the one-sided stage samples of the driver); a
    switch seen from the wrong side would give first order (ratio 2). Steps 2e-4 to
    5e-5 s (omega h of the stiffest mode 0.23 to 0.06, the asymptotic range)."""
    finals = [simulate_motion(model, short_bang_bang, end=0.3, max_step=h).e[-1]
              for h in (2e-4, 1e-4, 5e-5)]
    d1 = np.abs(finals[1] - finals[0]).max()
    d2 = np.abs(finals[2] - finals[1]).max()
    assert 12 < d1 / d2 < 24


def test_step_grid_snaps_or_inserts_switch_times():
    grid, out = _step_grid(0.0, 1e-3, 10, [0.0050000000000000001, 0.00725], 5e-4)
    np.testing.assert_allclose(grid[out], 1e-3 * np.arange(11), rtol=0, atol=1e-15)
    assert 0.005 in grid and 0.00725 in grid
    assert np.all(np.diff(grid) > 0) and np.diff(grid).max() <= 5e-4 + 1e-15
    assert len(grid) == 22     # 20 steps plus the inserted switch


def test_stiff_beams_reproduce_the_rigid_five_bar():
    """E x 1e6 (stiffness scale): along a smooth rest-to-rest motion (order 7, 0.1 s,
    from the static deflection), the actuator forces equal those of the rigid five-bar
    of the independent Lagrangian reference (reference_five_bar_lagrange at e = 0:
    M_aa q_a_dd + c_a), and the elastic coordinates vanish. The elastic effects scale
    as 1/scale: deflections about 1e-6 of the normal ones (peak 3e-3 rad; asserted
    1e-7 m or rad), forces within 1e-6 relative (asserted 1e-5). The RK4 step 1e-6 s resolves the stiffest
    mode (omega = 1.2e6 rad/s, omega h = 1.2, inside the stability bound 2.8) and a
    smooth motion barely excites it."""
    from reference_five_bar_lagrange import lagrange_five_bar
    stiff = NEPVPEngine(prrrp_briot2013().with_stiffness_scale(1e6))
    traj = RestToRest(np.zeros(2), np.array([0.02, 0.04]), t0=0.0, tf=0.1, order=7)
    sim = simulate_motion(stiff, traj, step=1e-2, max_step=1e-6)
    assert np.abs(sim.e).max() < 1e-7
    smp = traj.evaluate(sim.time)
    z = np.zeros(3)
    for k in range(len(sim.time)):
        qa, qd, qdd = smp.position[k], smp.velocity[k], smp.acceleration[k]
        ref = lagrange_five_bar(qa[0], qa[1], z, z, qd[0], qd[1], z, z, n=1)
        tau = ref["M"][:2, :2] @ qdd + ref["c"][:2]
        np.testing.assert_allclose(sim.tau[k], tau, rtol=1e-5)
        np.testing.assert_allclose(sim.rigid_tau[k], tau, rtol=1e-10)
