"""Rigid Delta analyses: torques along paths, open-loop replay, PD and computed torque."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.formulations.rigid_delta.simulation import (ComputedTorque, JointPD, forward_simulation,
                                            inverse_dynamics_along, sample_times,
                                            simulate_tracking)
from elastodyn.description.delta import delta_asadi2020, delta_kuo2016
from elastodyn.formulations import ExplicitDeltaEngine, MultiplierDeltaEngine
from elastodyn.trajectories import Circle, InvertedU


@pytest.fixture(scope="module")
def kuo():
    return delta_kuo2016()


def test_circle_torques_have_the_threefold_symmetry(kuo):
    """Legs 120 deg apart on a circle about the axis see the same torque history shifted
    by a third of the period (Kuo 5.1, 5.3: 'the same phase shifts')."""
    prof = inverse_dynamics_along(MultiplierDeltaEngine(kuo), Circle.kuo2016(), step=1e-3,
                                  duration=2.0)
    t = prof.time
    tau1 = lambda s: np.interp(s % 1.0, t[:1001], prof.torque[:1001, 0])  # noqa: E731
    ts = np.linspace(0.0, 1.0, 301)
    for leg in (1, 2):
        shifted = np.interp(ts, t, prof.torque[:, leg])
        # leg 2 (theta = 120 deg) meets the platform's configuration of leg 1 a third of a
        # turn later (anticlockwise motion); leg 3 two thirds later. Interpolation error of
        # a 1 ms grid on a smooth 1 Hz signal ~ (1e-3)^2 * tau'' / 8 ~ 1e-5 N m.
        expected = tau1(ts - leg / 3.0)
        assert np.max(np.abs(shifted - expected)) < 1e-4 * np.abs(expected).max() + 1e-5
    # periodic: tau(0) = tau(T) (round-off)
    assert np.allclose(prof.torque[0], prof.torque[1000], atol=1e-10)
    assert prof.period == pytest.approx(1.0)


def test_sample_times_cover_the_window():
    t = sample_times(Circle.kuo2016(), step=1e-3)
    assert t[0] == 0.0 and t[-1] == pytest.approx(1.0) and len(t) == 1001
    t = sample_times(InvertedU.kuo2016(), step=0.01)
    assert t[-1] == pytest.approx(0.8) and len(t) == 81
    with pytest.raises(ValueError, match="step"):
        sample_times(Circle.kuo2016(), step=2.0)


def test_open_loop_replay_of_inverse_dynamics_follows_the_path(kuo):
    """Forward dynamics under the torques of the inverse dynamics reproduces the path:
    the two problems invert each other along a whole motion (pick-and-place)."""
    model = ExplicitDeltaEngine(kuo)
    traj = InvertedU.kuo2016()

    def torque(t):
        s = traj.evaluate(np.array([t]))
        return model.torque_point(s.position[0], s.velocity[0], s.acceleration[0])

    s0 = traj.evaluate(np.array([0.0]))
    times = np.linspace(0.0, 0.8, 81)
    sol = forward_simulation(model, torque, s0.position[0], s0.velocity[0], (0.0, 0.8),
                             t_eval=times, rtol=1e-10, atol=1e-13)
    err = np.abs(sol.state[:, :3] - traj.evaluate(times).position).max()
    # open loop: the error grows from the solver tolerance (1e-10 relative) through the
    # unstable hanging dynamics; 1 um over 0.8 s leaves three orders of margin
    assert err < 1e-6


def test_joint_pd_error_is_the_required_torque_over_kp():
    """Quasi-static PD: on Asadi's slow circle (1 rad/s) the PD torque kp e + kd e' must
    supply the inverse-dynamics torque, so the joint error ~ tau_required / kp."""
    robot = delta_asadi2020()
    model = ExplicitDeltaEngine(robot)
    traj = Circle.asadi2020()
    ctrl = JointPD(kp=400.0, kd=20.0)
    res = simulate_tracking(model, traj, ctrl, duration=3.0, step=0.01)
    late = res.time > 1.5      # transient of ~kd/kp... settled (time constants < 0.2 s)
    req = inverse_dynamics_along(model, traj, res.time[late]).torque
    e = -res.joint_error[late]            # q_ref - q
    # residual: kd e' ~ kd * omega * |e| = 20 * 1 * e -> 5% of kp e, plus the model torque
    # difference between the actual and the reference pose (~|e| * dtau/dq): 10% band
    assert np.allclose(e, req / ctrl.kp, atol=0.1 * np.abs(req / ctrl.kp).max())
    # and the tracking is good: the Cartesian error stays within a few millimetres
    assert np.linalg.norm(res.position_error, axis=1)[late].max() < 5e-3


def test_pd_with_gravity_compensation_tracks_kuo_circle(kuo):
    res = simulate_tracking(ExplicitDeltaEngine(kuo), Circle.kuo2016(),
                            JointPD(200.0, 10.0, gravity_compensation=True), duration=2.0)
    e = np.linalg.norm(res.position_error, axis=1)
    # remaining error: inertial torques (~0.5 N m at 4 m/s^2) / kp = 2.5 mrad -> ~1-3 mm
    assert e[res.time > 1.0].max() < 3e-3
    assert e[res.time > 1.0].max() < 0.5 * np.linalg.norm(
        simulate_tracking(ExplicitDeltaEngine(kuo), Circle.kuo2016(), JointPD(200.0, 10.0),
                          duration=2.0).position_error, axis=1)[res.time > 1.0].max()


def test_computed_torque_error_obeys_the_linear_closed_loop(kuo):
    """With the exact model the joint error obeys e'' + kd e' + kp e = 0: compare with the
    analytic critically damped solution from the simulated initial error."""
    kp, kd = 400.0, 40.0      # double pole at -20 rad/s
    model = ExplicitDeltaEngine(kuo)
    res = simulate_tracking(model, Circle.kuo2016(), ComputedTorque(kp, kd), duration=0.5,
                            step=0.005, initial_offset=(0.0, 0.004, -0.003), rtol=1e-10,
                            atol=1e-13)
    e = res.joint_error
    # initial error rate: the platform starts with the reference velocity at the offset pose
    q0, qd0, *_ = model.joint_point(res.position[0], Circle.kuo2016().evaluate(
        np.array([0.0])).velocity[0])
    s = Circle.kuo2016().evaluate(np.array([0.0]))
    _, qd_ref, *_ = model.joint_point(s.position[0], s.velocity[0])
    e0, ed0 = e[0], qd0 - qd_ref
    t = res.time[:, None]
    analytic = (e0 + (ed0 + 20.0 * e0) * t) * np.exp(-20.0 * t)
    # solver tolerance 1e-10 relative: the closed loop matches to ~1e-8 of the initial error
    assert np.max(np.abs(e - analytic)) < 1e-6 * np.abs(e0).max()


def test_multiplier_plant_and_explicit_plant_simulate_alike(kuo):
    """Forward dynamics by Kuo's multipliers and by Asadi's explicit model integrate to the
    same closed-loop motion."""
    traj, ctrl = InvertedU.kuo2016(), JointPD(200.0, 10.0)
    a = simulate_tracking(ExplicitDeltaEngine(kuo), traj, ctrl, step=0.02, rtol=1e-9)
    b = simulate_tracking(MultiplierDeltaEngine(kuo), traj, ctrl, step=0.02, rtol=1e-9)
    # tolerance: two integrations at rtol 1e-9 of the same ODE
    assert np.allclose(a.position, b.position, atol=1e-8)


def test_bad_controller_inputs():
    with pytest.raises(ValueError, match="kp"):
        JointPD(kp=0.0)
    with pytest.raises(ValueError, match="kd"):
        ComputedTorque(kd=-1.0)
    with pytest.raises(ValueError, match="controller"):
        simulate_tracking(ExplicitDeltaEngine(delta_kuo2016()), Circle.kuo2016(), "pd")
