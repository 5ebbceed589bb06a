"""One friction law for the arms: ArmLink.joint_friction gives the geared motor's
friction at the joint as a Friction (description/friction.py); AMMEngine.friction and
simulate_pd use Friction.torque. Checked against the geared-motor formula r kc sgn(w) +
r^2 kv w written here."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.description.arm import COULOMB_SMOOTHING, arm_yu2019
from elastodyn.description.friction import Friction
from elastodyn.formulations.amm.engine import AMMEngine



def _hand(w, smooth):
    """Yu's geared motors (Table 2): r kc sgn(w) + r^2 kv w at the joints."""
    r = np.array([64.0, 32.0])
    kc = np.array([0.0345, 0.0226])
    kv = np.array([0.0037, 0.0023])
    sgn = np.tanh(w / smooth) if smooth else np.sign(w)
    return r * kc * sgn + r * r * kv * w


def test_one_friction_class():
    from elastodyn.description.delta import Friction as DeltaFriction
    assert DeltaFriction is Friction
    f = arm_yu2019().links[0].joint_friction()
    assert isinstance(f, Friction) and f.static is None
    assert f.viscous == pytest.approx(64 ** 2 * 0.0037, rel=1e-15)
    assert f.coulomb == pytest.approx(64 * 0.0345, rel=1e-15)
    assert f.smoothing_velocity == COULOMB_SMOOTHING == 1e-3
    assert arm_yu2019().links[1].joint_friction(0.0).smoothing_velocity == 0.0


def test_model_friction_is_the_geared_motor_law():
    """Exact sign by default (the law at a state), tanh(w / 1e-3) when asked (the
    simulations); equal to the formula to round-off (1e-14 relative). Far from rest
    (|w| = 0.05 rad/s = 50 eps) both agree to 1e-12 (1 - tanh 50 < 1e-21)."""
    m = AMMEngine(arm_yu2019())
    for w in ([0.3, -0.2], [0.0, 1e-4], [-2e-3, 5e-4], [0.05, -0.05]):
        w = np.array(w)
        for smooth in (0.0, COULOMB_SMOOTHING):
            ref = _hand(w, smooth)
            np.testing.assert_allclose(m.friction(w, smooth), ref, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(m.friction(w), _hand(w, 0.0), rtol=1e-14, atol=1e-14)
    w = np.array([0.05, -0.05])
    np.testing.assert_allclose(m.friction(w, COULOMB_SMOOTHING), m.friction(w), rtol=1e-12)
    # the static case: no Coulomb torque at w = 0 with the exact sign
    assert np.all(m.friction(np.zeros(2)) == 0.0)


def test_accelerations_subtract_the_exact_law_of_the_chord_rates():
    m = AMMEngine(arm_yu2019())
    rng = np.random.default_rng(3)
    q, qd, tau = rng.normal(scale=1e-2, size=6), rng.normal(size=6), rng.normal(size=2)
    d = m.dynamics(q, qd)
    ref = np.linalg.solve(d["M"], d["B"] @ (tau - _hand(qd[:2], 0.0)) - d["c"])
    np.testing.assert_allclose(m.accelerations(q, qd, tau), ref, rtol=1e-12)


def test_simulate_pd_uses_the_smoothed_law_on_the_shaft_rates():
    """simulate_pd (PD plus friction) equals an integration written here with the
    formula r kc tanh(w / 1e-3) + r^2 kv w of the shaft rates w = B^T q_d (same Radau
    and tolerances): 1e-9 rad and 1e-9 m asserted (the two runs do the same arithmetic
    up to the order of commutative sums; identical measured). Friction moves the
    motion by 3e-4 rad over this window, far above the tolerance."""
    from elastodyn.formulations.amm.simulation import hold_reference, simulate_pd
    m = AMMEngine(arm_yu2019())
    th0 = np.radians([45.0, -45.0])
    qd0 = np.array([0.2, -0.1, 0.0, 0.0, 0.0, 0.0])
    sim = simulate_pd(m, hold_reference(th0), 0.05, 125.0, 25.0, qd0=qd0, step=5e-3)
    B = m.dynamics(np.zeros(6), np.zeros(6))["B"]

    def rhs(t, x):
        q, qd = x[:6], x[6:]
        d = m.dynamics(q, qd)
        tau = 125.0 * (th0 - q @ B) - 25.0 * (qd @ B) - _hand(qd @ B, 1e-3)
        return np.concatenate([qd, np.linalg.solve(d["M"], B @ tau - d["c"])])

    x0 = np.concatenate([th0, np.zeros(4), qd0])
    sol = solve_ivp(rhs, (0, 0.05), x0, method="Radau", t_eval=sim.time, rtol=1e-8,
                    atol=1e-11)
    np.testing.assert_allclose(sim.q, sol.y[:6].T, rtol=0, atol=1e-9)
    assert np.abs(sim.q[:, :2] - th0).max() > 1e-3          # it moved
