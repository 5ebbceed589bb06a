"""Vibration-aware motion design (analysis.motion_design): plan and compensate, against
independent simulations, a stiff limit and the time law's exact properties."""
import math
import warnings

import numpy as np
import pytest

from elastodyn.analysis.motion_design import (compensate_motion, deviation_history,
                                              designed_trajectory,
                                              evaluate_motion, parse_limits,
                                              pattern_search, plan_motion)
from elastodyn.analysis.simulate import simulate_motion
from elastodyn.analysis.workspace import static_end_effector_deflection
from elastodyn.description.files import apply_sets, load_description
from elastodyn.exceptions import InputError
from elastodyn.formulations.registry import build_model
from elastodyn.trajectories import Circle, InvertedU, RestToRest
from elastodyn.trajectories.timelaw import TimeWarped

# a short pick-and-place of the Kuo Delta (0.5 s, smaller travel), the undeformed KED:
# 0.2 s per simulation at a 4 ms step
SHORT_U = InvertedU(start=(-0.04, 0.0, 0.5), travel=(0.08, 0.02, 0.06),
                    times=(0.0, 0.12, 0.25, 0.38, 0.5))


def _fivebar_move():
    """Briot's five-bar (NE-PVP, compiled) and a 0.2 s joint-space septic move."""
    m = build_model(load_description("prrrp-briot2013"), "nepvp")
    q0 = m.state().actuated
    return m, RestToRest(q0, q0 + np.array([0.05, -0.05]), t0=0.0, tf=0.2, order=7,
                         space="joint")


@pytest.fixture(scope="module")
def kuo():
    return build_model(load_description("delta-kuo2016"), "ked", reference="undeformed")


@pytest.fixture(scope="module")
def plan(kuo):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return plan_motion(kuo, SHORT_U, coefficients=2, evaluations=9, step=4e-3,
                           shapers=("zv",))


def test_plan_improves_and_keeps_the_path(plan):
    s = plan.summary
    given = s["variants"]["given"]["residual_vibration_m"]
    designed = s["variants"]["time-law"]["residual_vibration_m"]
    assert designed <= given          # the search starts from the given law
    tw = designed_trajectory(plan, SHORT_U)
    # on the path: every point of the designed motion on the given path (dense polyline)
    dense = SHORT_U.evaluate(np.linspace(0.0, 0.5, 20001)).position
    pts = tw.evaluate(np.linspace(tw.t_start, tw.t_end, 400)).position
    gap = np.sqrt(((pts[:, None, :] - dense[None, :, :]) ** 2).sum(-1)).min(axis=1)
    assert gap.max() < 2e-5      # polyline chord spacing ~1e-5 m: gap below it
    ends = tw.evaluate([tw.t_start, tw.t_end])
    np.testing.assert_allclose(ends.position, SHORT_U.evaluate([0.0, 0.5]).position,
                               atol=1e-15)
    assert np.abs(ends.velocity).max() < 1e-12 and np.abs(ends.jerk).max() < 1e-9
    assert plan.summary["improvement"] == pytest.approx(given / designed)


def test_plan_objective_agrees_with_an_independent_simulation(kuo, plan):
    """The designed motion simulated again at a 4x finer step (1 ms instead of the
    search's 4 ms) and its residual measured from scratch: the static deflection at the
    final pose from the model, the amplitude over the same window. Tolerance 3 %:
    Newmark's relative period error (omega h)^2 / 12 at 4 ms is 6e-4 for the 3.3 Hz
    modes, a phase drift of ~2e-2 rad over the ~8 periods the motion and window span, and
    the window's end sampled at 4 ms (a peak missed by at most (omega h)^2 / 8 ~ 0.3 %)."""
    s = plan.summary
    T, W = s["cycle_time_s"], s["window_s"]
    tw = designed_trajectory(plan, SHORT_U)
    dur = 4e-3 * math.ceil((T + W) / 4e-3 - 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate_motion(kuo, tw, duration=dur, step=1e-3)
    t, D = deviation_history(r)
    end = static_end_effector_deflection(kuo, kuo.state(
        pose=SHORT_U.evaluate([0.5]).position[0]))
    resid = np.linalg.norm(D[t >= T - 1e-12] - end, axis=1).max()
    assert resid == pytest.approx(s["variants"]["time-law"]["residual_vibration_m"],
                                  rel=0.03)


def test_zv_shaper_cuts_residual_and_reports_robustness(plan):
    s = plan.summary
    assert s["variants"]["zv"]["residual_vibration_m"] < s["variants"]["given"][
        "residual_vibration_m"]
    r = np.asarray(plan.quantities["zv_robustness"])
    fr = np.asarray(plan.quantities["frequency_ratio"])
    assert r[np.argmin(abs(fr - 1.0))] < 1e-12          # zero at the design frequency
    assert s["shapers"]["zv"]["delay_s"] == pytest.approx(0.5 / s["shaper_frequency_hz"])


def test_limits_are_respected(kuo):
    """A torque limit below the given law's peak but above what a slower-in-the-middle
    law needs: every variant returned satisfies it or the run says none can."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = plan_motion(kuo, SHORT_U, coefficients=1, evaluations=3, step=4e-3,
                           shapers=())
    peak = max(free.summary["variants"]["given"]["peak_effort"])
    lim = 0.999 * peak
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = plan_motion(kuo, SHORT_U, coefficients=1, evaluations=5, step=4e-3,
                            shapers=(), limits={"torque": lim})
    except InputError as exc:
        assert exc.name == "--limits"
        return
    assert max(r.summary["variants"]["time-law"]["peak_effort"]) <= lim
    assert any("violates the effort limit" in w for w in r.warnings)
    # a warning several variants share is said once, naming them all
    texts = [w.split(": ", 1)[1] for w in r.warnings if ": " in w]
    assert len(texts) == len(set(texts))


def test_plan_on_a_joint_space_robot():
    """The five-bar (NE-PVP, compiled) with a joint-space rest-to-rest move: the same
    layout, metrics for every variant."""
    m, tr = _fivebar_move()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = plan_motion(m, tr, coefficients=1, evaluations=3, step=1e-3, shapers=("zvd",))
    v = r.summary["variants"]
    assert set(v) == {"given", "time-law", "zvd", "zvd-law"}
    for metrics in v.values():
        assert metrics["residual_vibration_m"] > 0 and math.isfinite(
            metrics["residual_vibration_m"])
        assert len(metrics["peak_effort"]) == 2
    assert v["time-law"]["residual_vibration_m"] <= v["given"]["residual_vibration_m"]
    # the search starts from the best of the given law and the shaped progress
    assert v["time-law"]["residual_vibration_m"] <= v["zvd-law"]["residual_vibration_m"]
    assert r.summary["search_start"] in ("given", "zvd")


def test_compensation_of_a_stiff_robot_changes_nothing():
    """Links 4000 times stiffer (E 8.4e14 Pa, within the description's range of moduli):
    the deflection, hence the correction and the error, scale by 2.5e-4 (linear
    structure; the preload's geometric stiffness, unchanged, shifts it by a few %): both
    below 1e-3 of the nominal ones, a margin of 4."""
    spec = load_description("delta-kuo2016")
    stiff = apply_sets(spec, ["links.upper.material.E=8.4e14", "links.lower.material.E=8.4e14",
                              "links.upper.material.G=3.24e14",
                              "links.lower.material.G=3.24e14"], "test")
    circle = Circle(np.array([0.0, 0.0, 0.5]), 0.05, period=4.0)
    out = {}
    # the stiff robot's platform modes reach 630 Hz: Newmark's step rule (8 steps per
    # period of the platform's six lowest modes) asks for 0.198 ms
    for name, s, h in (("nominal", spec, 4e-3), ("stiff", stiff, 1e-4)):
        m = build_model(s, "ked", reference="undeformed")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = compensate_motion(m, circle, duration=0.2, step=h)
    c0 = np.abs(out["nominal"].quantities["correction"]).max()
    c1 = np.abs(out["stiff"].quantities["correction"]).max()
    assert c1 < 1e-3 * c0
    assert out["stiff"].summary["peak_error_nominal_m"] < 1e-3 * out["nominal"].summary[
        "peak_error_nominal_m"]


def test_quasi_static_compensation_cuts_a_slow_circle(kuo):
    """Kuo's Delta on a slow circle (8 s period, one revolution): the quasi-static
    compensation leaves the vibration the start excites and the Newmark error, far
    below the 25 mm sag."""
    circle = Circle(np.array([0.0, 0.0, 0.5]), 0.05, period=8.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compensate_motion(kuo, circle, duration=2.0, step=4e-3)
    s = r.summary
    assert s["peak_error_nominal_m"] > 0.02
    assert s["reduction"] > 50


def test_pattern_search_on_a_quadratic():
    """Compass search converges to the minimum of a convex quadratic within its final
    step (the minimum on the lattice it explores)."""
    target = np.array([0.3, -0.55])

    def f(xs):
        return [float(np.sum((x - target) ** 2)) for x in xs]
    x, fx, hist = pattern_search(f, np.zeros(2), step=0.25, min_step=1e-3, budget=400)
    assert np.abs(x - target).max() < 2e-3
    assert len(hist) <= 400


@pytest.mark.parametrize("text,name", [("torque=0", "--limits"), ("speed=x", "--limits"),
                                       ("current=3", "--limits"),
                                       ("torque=1,force=2", "--limits")])
def test_bad_limits(text, name):
    with pytest.raises(InputError) as exc:
        parse_limits(text)
    assert exc.value.name == name


def test_bad_plan_inputs(kuo):
    with pytest.raises(InputError, match="rest-to-rest motion"):
        plan_motion(kuo, Circle(np.array([0.0, 0.0, 0.5]), 0.05, period=1.0))
    for kw, name in ((dict(objective="fast"), "--objective"), (dict(cycle_time=-1.0),
                                                               "--cycle-time"),
                     (dict(coefficients=0), "--coefficients"),
                     (dict(evaluations=2), "--evaluations"), (dict(step=0.1), "--step"),
                     (dict(shapers=("zz",)), "--shapers")):
        with pytest.raises(InputError) as exc:
            plan_motion(kuo, SHORT_U, **kw)
        assert exc.value.name == name
    with pytest.raises(InputError) as exc:
        compensate_motion(kuo, SHORT_U, mode="quasi-static", iterations=2)
    assert exc.value.name == "--iterations"


def test_shortest_cycle_scan(kuo):
    """The scan stops at the first cycle time whose designed residual is below the bound
    inside validity; the KED about the undeformed pose always warns about its own error
    (its first-order sag error), so none qualifies there and the run says so."""
    from elastodyn.analysis.motion_design import shortest_cycle
    m, tr = _fivebar_move()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = shortest_cycle(m, tr, max_residual=1.0, cycle_times=[0.3, 0.2], coefficients=1,
                           evaluations=3, step=1e-3, shapers=())
    assert r.summary["shortest_cycle_s"] == pytest.approx(0.2)   # sorted: 0.2 first
    assert list(r.quantities["scan_cycle_time_s"]) == [0.2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = shortest_cycle(kuo, SHORT_U, max_residual=1.0, cycle_times=[0.5],
                           coefficients=1, evaluations=3, step=4e-3, shapers=())
    assert r.summary["shortest_cycle_s"] is None
    assert "no scanned cycle time" in r.warnings[0]
    with pytest.raises(InputError) as exc:
        shortest_cycle(kuo, SHORT_U, max_residual=-1.0)
    assert exc.value.name == "--max-residual"
    with pytest.raises(InputError) as exc:
        shortest_cycle(kuo, SHORT_U, max_residual=1e-3, cycle_times=[0.0])
    assert exc.value.name == "--cycle-times"


def _modal_problem():
    """A stand-in for the residual vibration: 6 'modal amplitudes' linear in 8 time-law
    coefficients plus a small quadratic term (r = A c - b + 0.05 c1^2), and its max-norm
    objective; infeasible where c2 > 1.5 (like a violated limit)."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(6, 8))
    b = rng.normal(size=6)

    def evaluate(xs):
        out = []
        for x in xs:
            if x[1] > 1.5:
                out.append((None, math.inf))
                continue
            r = A @ x - b + 0.05 * x[0] ** 2
            out.append((r, float(np.abs(r).max())))
        return out
    return evaluate


def test_least_squares_search_finds_the_common_zero():
    """Gauss-Newton drives all amplitudes to zero (an underdetermined system has a zero
    set) within the budget, far below where the compass search gets with the same budget;
    every point it evaluated and returned is feasible-or-flagged; the history counts
    every evaluation and stays within the budget."""
    from elastodyn.analysis.motion_design import least_squares_search
    ev = _modal_problem()
    x, f, hist = least_squares_search(ev, np.zeros(8), budget=80)
    f0 = ev([np.zeros(8)])[0][1]
    assert f < 1e-8 * f0
    assert len(hist) <= 80
    assert x[1] <= 1.5 and f == min(h[1] for h in hist)
    _, fc, _ = pattern_search(lambda xs: [v for _, v in ev(xs)], np.zeros(8), budget=80)
    assert fc > 1e3 * f


def test_least_squares_search_respects_the_budget_and_infeasible_start():
    from elastodyn.analysis.motion_design import least_squares_search
    ev = _modal_problem()
    x, f, hist = least_squares_search(ev, np.zeros(8), budget=5)
    assert len(hist) <= 5 and math.isfinite(f)
    x0 = np.zeros(8)
    x0[1] = 2.0
    x, f, hist = least_squares_search(ev, x0, budget=20)
    assert f == math.inf and len(hist) == 1


def test_designed_trajectory_rebuilds_a_shaped_start(plan):
    """A result whose search started from the ZV-shaped progress: the designed motion is
    the warp on PathShaped(given, the recorded shaper) - the same motion, to round-off."""
    import dataclasses

    from elastodyn.trajectories.shaping import PathShaped, shaper
    s = dict(plan.summary, search_start="zv")
    r = dataclasses.replace(plan, summary=s)
    tw = designed_trajectory(r, SHORT_U)
    T = s["cycle_time_s"]
    ref = TimeWarped(PathShaped(SHORT_U, shaper("zv", s["shaper_frequency_hz"]),
                                cycle_time=T),
                     plan.quantities["coefficients"], cycle_time=T)
    t = np.linspace(0.0, T, 301)
    np.testing.assert_allclose(tw.evaluate(t).position, ref.evaluate(t).position,
                               atol=1e-14)


def test_compensation_of_a_planar_arm():
    """The compensation on a planar robot (Yu's arm, assumed modes; task poses (x, y)):
    a 4 s circle of its tip, the error cut several times (the vibration its abrupt start
    excites is not compensable quasi-statically: measured 34 -> 1.4 mm, 24x)."""
    m = build_model(load_description("arm-yu2019"))
    c = Circle(np.array([0.5, 0.2]), 0.05, period=4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compensate_motion(m, c, duration=4.0, step=2e-3)
    assert r.summary["reduction"] > 10.0
