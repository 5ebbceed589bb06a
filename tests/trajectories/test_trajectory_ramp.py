"""Tests of Ramped (septic ramp of the phase rate of a periodic path) and Circle.at_phase."""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from numpy.polynomial import polynomial as P
from scipy.integrate import quad
from test_trajectories import PROFILE, fd_check

from elastodyn.exceptions import DimensionError, InputError
from elastodyn.trajectories import (
    Circle,
    PeriodicPath,
    Ramped,
    RestToRest,
    TableTrajectory,
    Trajectory,
)

FIELDS = ("position", "velocity", "acceleration", "jerk")

CIRCLES = {
    "kuo2016": Circle.kuo2016(),  # r 0.1 m, period 1 s
    "yu2019-planar": Circle.yu2019(),  # r 0.1 m, period 10 s
    "tilted": Circle((0.1, -0.2, 0.3), 0.05, period=0.7, phase=0.4, normal=(1.0, 2.0, -0.5), t_start=0.3),
}
# (circle, periods): integer, odd, even and fractional ramps
CASES = {
    "kuo2016-2": ("kuo2016", 2.0),
    "kuo2016-1": ("kuo2016", 1),
    "yu2019-1.5": ("yu2019-planar", 1.5),
    "tilted-0.5": ("tilted", 0.5),
    "tilted-3": ("tilted", 3),
}


def case(name):
    circle_name, periods = CASES[name]
    c = CIRCLES[circle_name]
    return c, Ramped(c, periods)


def s7(tau):
    """Septic smoothstep 35 t^4 - 84 t^5 + 70 t^6 - 20 t^7 and its derivatives (rows)."""
    return np.stack([P.polyval(tau, P.polyder(PROFILE[7], m)) for m in range(4)])


def septic_sup(m: int) -> float:
    """max over [0, 1] of |s^(m)| by dense sampling of a degree <= 7 polynomial
    (20001 points; the 1 % margin covers the sampling error, < 1e-6 relative)."""
    tau = np.linspace(0.0, 1.0, 20001)
    return 1.01 * float(np.max(np.abs(P.polyval(tau, P.polyder(PROFILE[7], m)))))


def ramp_sups(ramp: Ramped) -> tuple[float, ...]:
    """Upper bounds of |d^k p/dt^k| for k = 3, 4, 5, 6 along a ramped circle.

    With b_m >= sup |theta^(m)| (b_1 = w, b_m = w max|s^(m-1)| / T_r^(m-1)) and
    |P^(k)(theta)| = r for every k (circle), Faa di Bruno's formula (complete Bell
    polynomials) gives
    |p'''| <= r (b1^3 + 3 b1 b2 + b3),
    |p''''| <= r (b1^4 + 6 b1^2 b2 + 3 b2^2 + 4 b1 b3 + b4),
    |p^(5)| <= r (b1^5 + 10 b1^3 b2 + 15 b1 b2^2 + 10 b1^2 b3 + 10 b2 b3 + 5 b1 b4 + b5).
    Each coordinate is bounded by the norm. (The 6th-order bound is not needed.)
    """
    c = ramp.trajectory
    w, T, r = c.angular_rate, ramp.ramp_duration, c.radius
    b1, b2, b3, b4, b5 = [w] + [w * septic_sup(m - 1) / T ** (m - 1) for m in (2, 3, 4, 5)]
    return (
        r * (b1**3 + 3 * b1 * b2 + b3),
        r * (b1**4 + 6 * b1**2 * b2 + 3 * b2**2 + 4 * b1 * b3 + b4),
        r * (b1**5 + 10 * b1**3 * b2 + 15 * b1 * b2**2 + 10 * b1**2 * b3 + 10 * b2 * b3 + 5 * b1 * b4 + b5),
    )


# ------------------------------------------------------------------ Circle as a path of its angle


@pytest.mark.parametrize("name", CIRCLES)
def test_circle_at_phase_closed_form_and_chain_rule(name):
    c = CIRCLES[name]
    assert isinstance(c, PeriodicPath)
    assert c.phase_rate == c.angular_rate and c.phase_at_start == c.phase
    theta = np.linspace(-7.0, 13.0, 201)
    d = c.at_phase(theta)
    assert d.shape == (4, theta.size, c.dim)
    # closed form written out: P = c + r(cos e1 + sin e2), derivatives rotate by 90 deg
    cos, sin = np.cos(theta)[:, None], np.sin(theta)[:, None]
    u, v = cos * c.e1 + sin * c.e2, -sin * c.e1 + cos * c.e2
    expected = [c.centre + c.radius * u, c.radius * v, -c.radius * u, -c.radius * v]
    for k in range(4):  # identical arithmetic up to the order of operations: 1e-15 m
        np.testing.assert_allclose(d[k], expected[k], rtol=0, atol=1e-15)
    # evaluate(t) is the chain rule with theta' = w: P^(k) w^k at the nominal phase.
    # theta is recomputed in a different order (round-off ~ 1e-15 rad * |theta| <= 100),
    # so agreement to 1e-13 of the magnitudes r w^k.
    t = np.linspace(-3.0, 20.0, 301)
    th = c.nominal_phase(t)
    np.testing.assert_allclose(th, c.angular_rate * (t - c.t_start) + c.phase, rtol=1e-15, atol=0)
    s, d, w = c.evaluate(t), c.at_phase(th), c.angular_rate
    for k, f in enumerate(FIELDS):
        np.testing.assert_allclose(getattr(s, f), d[k] * w**k, rtol=0, atol=1e-13 * max(1.0, c.radius * w**k))


def test_circle_at_phase_bad_input():
    c = Circle.kuo2016()
    for bad in (math.nan, [0.0, math.inf], "abc"):
        with pytest.raises(InputError, match=r"^invalid theta: "):
            c.at_phase(bad)
    with pytest.raises(DimensionError):
        c.at_phase(np.zeros((2, 2)))
    assert c.at_phase(0.5).shape == (4, 1, 3)


# ------------------------------------------------------------------ the phase law


@pytest.mark.parametrize("name", CASES)
def test_ramp_phase_law_is_the_integral_of_a_septic_rate(name):
    c, ramp = case(name)
    w, T, t0 = c.angular_rate, ramp.ramp_duration, c.t_start
    np.testing.assert_allclose(T, ramp.periods * c.period, rtol=1e-15)
    t = np.linspace(t0 - 0.5 * T, t0 + 2.0 * T, 401)
    th = ramp.phase(t)
    tau = np.clip((t - t0) / T, 0.0, 1.0)
    inside = (t >= t0) & (t <= t0 + T)
    after = t > t0 + T
    # rate and its derivatives from the closed form s(tau) (independent coefficients)
    prof = s7(tau)
    for m in (1, 2, 3):
        expected = np.where(inside, w * prof[m - 1] / T ** (m - 1), 0.0)
        if m == 1:
            expected = np.where(after, w, expected)
        # Horner round-off on coefficients up to 8400 (s''): 1e-12 of w / T^(m-1)
        np.testing.assert_allclose(th[m], expected, rtol=0, atol=1e-12 * w / T ** (m - 1))
    # the phase is the integral of the rate (adaptive quadrature of the closed form,
    # error ~1e-14 relative): theta(t) - theta0 = int_t0^t w s((u - t0)/T) du
    for tk, thk in zip(t[::20], th[0][::20]):
        if tk <= t0:
            integral = 0.0
        else:
            lo, hi = 0.0, min((tk - t0) / T, 1.0)
            integral = w * T * quad(lambda x: P.polyval(x, PROFILE[7]), lo, hi, epsabs=0, epsrel=1e-13)[0]
            integral += w * max(tk - t0 - T, 0.0)
        assert abs(thk - (c.phase + integral)) <= 1e-12 * max(1.0, abs(thk)), (tk, thk, c.phase + integral)


@pytest.mark.parametrize("name", CASES)
def test_ramp_constant_phase_lag_after_the_ramp(name):
    c, ramp = case(name)
    n, w = ramp.periods, c.angular_rate
    # the lag is w T_r / 2 = pi n rad, i.e. half the ramp duration n T / 2 in time
    assert ramp.phase_lag == pytest.approx(math.pi * n, rel=1e-15)
    assert ramp.time_lag == pytest.approx(0.5 * n * c.period, rel=1e-15)
    # independent: lag = w T_r - int_0^T_r rate = w T_r (1 - int_0^1 s) (quadrature)
    mean_s = quad(lambda x: P.polyval(x, PROFILE[7]), 0.0, 1.0, epsabs=0, epsrel=1e-13)[0]
    assert ramp.phase_lag == pytest.approx(w * ramp.ramp_duration * (1.0 - mean_s), rel=1e-13)
    t = ramp.ramp_end + np.linspace(0.0, 5.0 * c.period, 251)
    # phase = unramped phase - lag, for every t after the ramp (round-off of phases up
    # to ~100 rad: 1e-13 rad)
    np.testing.assert_allclose(ramp.phase(t)[0], c.nominal_phase(t) - math.pi * n, rtol=0, atol=1e-13)
    # the ramped point is the unramped point time_lag earlier, with all derivatives
    # (round-off: phases ~100 rad to 1e-14 relative, times r w^k)
    s, u = ramp.evaluate(t), c.evaluate(t - 0.5 * n * c.period)
    for k, f in enumerate(FIELDS):
        np.testing.assert_allclose(getattr(s, f), getattr(u, f), rtol=0, atol=1e-12 * max(1.0, c.radius * w**k))
    # whole turns of lag (even n): the same motion as unramped; odd n: opposite point
    if float(n).is_integer():
        sign = 1.0 if int(n) % 2 == 0 else -1.0
        same = c.evaluate(t)
        np.testing.assert_allclose(s.position - c.centre, sign * (same.position - c.centre), rtol=0, atol=1e-12)
        np.testing.assert_allclose(s.velocity, sign * same.velocity, rtol=0, atol=1e-12 * c.radius * w)


@pytest.mark.parametrize("name", CASES)
def test_ramp_exact_nominal_speed_after_the_ramp(name):
    c, ramp = case(name)
    r, w = c.radius, c.angular_rate
    t = ramp.ramp_end + np.linspace(0.0, 3.0 * c.period, 101)[1:]
    th = ramp.phase(t)
    # strictly after the ramp: rate exactly nominal, its derivatives exactly zero
    np.testing.assert_array_equal(th[1], w)
    np.testing.assert_array_equal(th[2:], 0.0)
    s = ramp.evaluate(t)
    # uniform circular motion: |v| = r w, |a| = r w^2, |j| = r w^3 (a few ulps: 1e-12)
    np.testing.assert_allclose(np.linalg.norm(s.velocity, axis=1), r * w, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(s.acceleration, axis=1), r * w**2, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(s.jerk, axis=1), r * w**3, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(s.position - c.centre, axis=1), r, rtol=1e-12)


# ------------------------------------------------------------------ rest, continuity, derivatives


@pytest.mark.parametrize("name", CASES)
def test_ramp_starts_at_rest(name):
    c, ramp = case(name)
    t0 = ramp.t_start
    assert t0 == c.t_start
    s = ramp.evaluate([t0 - 10.0, t0 - 1e-9, t0])
    # before and at t0: at rest at P(theta0), the unramped start point (same formula)
    np.testing.assert_array_equal(s.position, np.vstack([c.evaluate(t0).position[0]] * 3))
    # s, s', s'' vanish exactly at tau = 0 (integer coefficients, zero powers)
    for f in FIELDS[1:]:
        np.testing.assert_array_equal(getattr(s, f), 0.0)
    # just after t0 the point is moving along the path (speed ~ r w 35 tau^4 > 0)
    assert np.linalg.norm(ramp.evaluate(t0 + 0.05 * ramp.ramp_duration).velocity) > 0.0


@pytest.mark.parametrize("name", CASES)
def test_ramp_continuous_at_the_end_of_the_ramp(name):
    c, ramp = case(name)
    te, T = ramp.ramp_end, ramp.ramp_duration
    # one ulp either side of the end: the ramp formula on the left, the nominal one on
    # the right (checked), equal to round-off (1e-12 of r w^k: phases are O(10) rad)
    lo, hi = np.nextafter(te, -np.inf), np.nextafter(te, np.inf)
    assert (lo - ramp.t_start) / T <= 1.0 < (hi - ramp.t_start) / T
    a, b = ramp.evaluate(lo), ramp.evaluate(hi)
    r, w = c.radius, c.angular_rate
    for k, f in enumerate(FIELDS):
        np.testing.assert_allclose(getattr(a, f), getattr(b, f), rtol=0, atol=1e-12 * max(1.0, r * w**k))
    # and over a finite step: |f(te + d) - f(te - d)| <= 2 d sup|f'| (mean value), with
    # sup|f'| for f = position, velocity, acceleration, jerk: |v| <= r w (the rate
    # never exceeds w: s is monotone), |a| <= r (b1^2 + b2), then ramp_sups (jerk, snap)
    d = 1e-4 * T
    a, b = ramp.evaluate(te - d), ramp.evaluate(te + d)
    sup_next = [r * w, r * (w**2 + w * septic_sup(1) / T), *ramp_sups(ramp)[:2]]
    for k, f in enumerate(FIELDS):
        diff = float(np.max(np.abs(getattr(a, f) - getattr(b, f))))
        assert diff <= 2 * d * sup_next[k] + 1e-12, (f, diff)  # 1e-12: round-off as above


@pytest.mark.parametrize("name", CASES)
def test_ramp_derivatives_match_finite_differences(name):
    c, ramp = case(name)
    T = ramp.ramp_duration
    # The ramped motion is C4 in time (rate C3), so the central-difference bound of
    # fd_check holds across t0 and the ramp end: no break to avoid. Times cover the
    # rest before, the ramp and two periods after.
    t = np.random.default_rng(3).uniform(ramp.t_start - 0.2 * T, ramp.ramp_end + 2 * c.period, 400)
    t = np.concatenate([t, ramp.t_start + T * np.array([0.0, 0.01, 0.5, 0.99, 1.0])])
    fd_check(ramp, t, ramp_sups(ramp))


# ------------------------------------------------------------------ interface, bad input


def test_ramp_interface():
    c, ramp = case("tilted-0.5")
    assert isinstance(ramp, Trajectory) and not isinstance(ramp, PeriodicPath)
    assert ramp.period is None and ramp.t_end == math.inf and ramp.duration == math.inf
    assert (ramp.dim, ramp.space, ramp.t_start) == (3, "task", 0.3)
    assert ramp.ramp_end == pytest.approx(0.3 + 0.5 * 0.7, rel=1e-15)
    one = ramp.evaluate(0.4)
    assert one.position.shape == (1, 3) and ramp.phase(0.4).shape == (4, 1)
    np.testing.assert_array_equal(one.jerk, ramp.evaluate([0.4]).jerk)
    assert ramp.evaluate(np.array([])).position.shape == (0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ramp.periods = 3.0  # type: ignore[misc]
    assert Ramped(Circle.yu2019(), 1).dim == 2


BAD = [
    ("trajectory", lambda: Ramped(RestToRest(0.0, 1.0, t0=0.0, tf=1.0), 1.0)),
    ("trajectory", lambda: Ramped(TableTrajectory([0.0, 1.0], [0.0, 1.0], space="task", boundary="rest"), 1.0)),
    ("trajectory", lambda: Ramped("circle", 1.0)),
    ("trajectory", lambda: Ramped(Ramped(Circle.kuo2016(), 1.0), 1.0)),
    ("periods", lambda: Ramped(Circle.kuo2016(), 0.0)),
    ("periods", lambda: Ramped(Circle.kuo2016(), -1.0)),
    ("periods", lambda: Ramped(Circle.kuo2016(), math.nan)),
    ("periods", lambda: Ramped(Circle.kuo2016(), math.inf)),
    ("periods", lambda: Ramped(Circle.kuo2016(), "two")),
    ("t", lambda: Ramped(Circle.kuo2016(), 1.0).evaluate(math.nan)),
]


@pytest.mark.parametrize("name, build", BAD, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD)])
def test_ramp_bad_input(name, build):
    with pytest.raises(InputError, match=rf"^invalid {re.escape(name)}: ") as info:
        build()
    assert info.value.name == name
