"""Tests of elastodyn.trajectories: analytic derivatives, paper presets, bad input."""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from elastodyn.exceptions import DimensionError, InputError
from elastodyn.trajectories import (
    BangBang,
    Circle,
    InvertedU,
    PiecewiseTrajectory,
    RestToRest,
    Trajectory,
    TrajectorySample,
    rest_to_rest_profile,
)

EPS = np.finfo(float).eps

# Rest-to-rest profiles written out independently of the implementation (ascending
# powers of tau): 3 tau^2 - 2 tau^3, 10 tau^3 - 15 tau^4 + 6 tau^5,
# 35 tau^4 - 84 tau^5 + 70 tau^6 - 20 tau^7.
PROFILE = {
    3: np.array([0, 0, 3, -2], float),
    5: np.array([0, 0, 0, 10, -15, 6], float),
    7: np.array([0, 0, 0, 0, 35, -84, 70, -20], float),
}


def s7(tau: float) -> float:
    return 35 * tau**4 - 84 * tau**5 + 70 * tau**6 - 20 * tau**7


def poly_sup(delta, T: float, order: int, m: int) -> float:
    """sup over the segment of |d^m q / dt^m| for a RestToRest of travel ``delta``.

    Dense sampling (20001 points, endpoints included) of a degree <= 7 polynomial on
    [0, 1]; the 1 % margin covers the sampling error (at most h^2/8 * sup|s^(m+2)|
    with h = 5e-5, i.e. < 1e-6 relative).
    """
    c = P.polyder(PROFILE[order], m) if m <= len(PROFILE[order]) - 1 else np.zeros(1)
    tau = np.linspace(0.0, 1.0, 20001)
    return 1.01 * float(np.max(np.abs(delta))) * float(np.max(np.abs(P.polyval(tau, c)))) / T**m


# ------------------------------------------------------------------ finite differences

H = 1e-3  # s, FD step


def fd_check(traj: Trajectory, t: np.ndarray, sup3: tuple[float, float, float]) -> None:
    """Central differences of position, velocity and acceleration vs the analytic
    velocity, acceleration and jerk.

    For f in C^3 on [t - H, t + H] the central difference error is
    H^2/12 (f'''(xi1) + f'''(xi2)), bounded by H^2/6 sup|f'''|; ``sup3`` gives sup|f'''|
    for f = position, velocity, acceleration (i.e. sup of jerk, snap, crackle).
    Round-off: each f value carries an absolute error below 1e4 eps max|f| (Horner on
    degree <= 7 polynomials with coefficient sums < 1e4 times the peak, or trig), so
    the quotient carries at most 1e4 eps max|f| / H.  Callers keep every stencil
    inside one smooth piece.
    """
    s0, sp, sm = traj.evaluate(t), traj.evaluate(t + H), traj.evaluate(t - H)
    pairs = [("position", "velocity"), ("velocity", "acceleration"), ("acceleration", "jerk")]
    for (f, df), bound in zip(pairs, sup3):
        fp, fm = getattr(sp, f), getattr(sm, f)
        fd = (fp - fm) / (2 * H)
        scale = max(np.max(np.abs(fp)), np.max(np.abs(fm)), 1e-300)
        tol = H**2 / 6 * bound + 1e4 * EPS * scale / H
        exact = getattr(s0, df)
        err = np.max(np.abs(fd - exact))
        assert err <= tol, f"{type(traj).__name__} d({f})/dt: error {err} > tol {tol}"
        peak = np.max(np.abs(exact))
        if peak > 0:  # the tolerance must be tight enough to catch a wrong derivative
            assert tol < 1e-2 * peak


def sample_times(t_lo, t_hi, breaks, n=300, seed=0) -> np.ndarray:
    """Random times in [t_lo, t_hi], none within 2H of a break (stencils stay smooth)."""
    t = np.random.default_rng(seed).uniform(t_lo, t_hi, size=n)
    breaks = np.asarray(breaks, float)
    if breaks.size:
        t = t[np.min(np.abs(t[:, None] - breaks[None, :]), axis=1) > 2 * H]
    assert t.size > n // 2
    return t


def circle_case(c: Circle):
    r, w = c.radius, c.angular_rate
    # sup of the 3rd, 4th, 5th derivative of the position: r w^3, r w^4, r w^5
    sup = (r * w**3, r * w**4, r * w**5)
    return c, (-3 * c.period, 3 * c.period), [], sup


def r2r_case(traj: RestToRest):
    T, d = traj.tf - traj.t0, traj.end - traj.start
    sup = tuple(poly_sup(d, T, traj.order, m) for m in (3, 4, 5))
    return traj, (traj.t0 - 0.2 * T, traj.tf + 0.2 * T), [traj.t0, traj.tf], sup


def inverted_u_case(u: InvertedU):
    t0, t1, t2, t3, tf = u.times
    dx = u.travel[:2]
    dz = u.travel[2]
    sup = tuple(
        max(poly_sup(dx, t3 - t1, 7, m), poly_sup(dz, t2 - t0, 7, m), poly_sup(dz, tf - t2, 7, m))
        for m in (3, 4, 5)
    )
    return u, (t0 - 0.1, tf + 0.1), list(u.times), sup


def bang_case(b: BangBang):
    # position is quadratic, velocity linear, acceleration constant on each smooth
    # piece: the central differences are exact up to round-off.
    T = b.tf - b.t0
    return b, (b.t0 - 0.2 * T, b.tf + 0.2 * T), list(b.switch_times), (0.0, 0.0, 0.0)


def piecewise_case():
    segs = (
        RestToRest((0.0, 1.0), (0.3, 0.5), t0=0.0, tf=0.5, order=7),
        RestToRest((0.3, 0.5), (0.1, 0.9), t0=0.5, tf=1.5, order=5),
    )
    pw = PiecewiseTrajectory(segs)
    sup = tuple(
        max(poly_sup(s.end - s.start, s.tf - s.t0, s.order, m) for s in segs) for m in (3, 4, 5)
    )
    return pw, (-0.2, 1.8), [0.0, 0.5, 1.5], sup


FD_CASES = {
    "circle-kuo2016": lambda: circle_case(Circle.kuo2016()),
    "circle-asadi2020": lambda: circle_case(Circle.asadi2020()),
    "circle-yu2019-planar": lambda: circle_case(Circle.yu2019()),
    "circle-tilted": lambda: circle_case(
        Circle((0.1, -0.2, 0.3), 0.05, period=0.7, phase=0.4, normal=(1.0, 2.0, -0.5), t_start=0.3)
    ),
    "r2r-3": lambda: r2r_case(RestToRest((0.0, 1.0, -1.0), (0.2, 0.5, 1.0), t0=0.1, tf=0.9, order=3)),
    "r2r-5": lambda: r2r_case(RestToRest((0.0, 1.0, -1.0), (0.2, 0.5, 1.0), t0=0.1, tf=0.9, order=5)),
    "r2r-7": lambda: r2r_case(RestToRest((0.0, 1.0, -1.0), (0.2, 0.5, 1.0), t0=0.1, tf=0.9, order=7)),
    "r2r-scalar": lambda: r2r_case(RestToRest(1.0, -0.5, t0=-1.0, tf=1.0)),
    "inverted-u-kuo2016": lambda: inverted_u_case(InvertedU.kuo2016()),
    "inverted-u-uneven-negative": lambda: inverted_u_case(
        InvertedU((0.1, 0.0, 0.4), (-0.2, 0.05, -0.1), times=(0.0, 0.1, 0.5, 0.6, 1.0))
    ),
    "bangbang-briot2013": lambda: bang_case(BangBang.briot2013()),
    "bangbang-scalar": lambda: bang_case(BangBang(0.3, -0.1, t0=0.2, tf=0.7)),
    "piecewise": piecewise_case,
}


@pytest.mark.parametrize("case", FD_CASES)
def test_derivatives_match_finite_differences(case):
    traj, (lo, hi), breaks, sup = FD_CASES[case]()
    fd_check(traj, sample_times(lo, hi, breaks), sup)


# ------------------------------------------------------------------ common interface

ALL = {
    "circle": Circle.kuo2016,
    "circle2d": Circle.yu2019,
    "r2r": lambda: RestToRest(0.0, 1.0, t0=0.0, tf=1.0),
    "inverted-u": InvertedU.kuo2016,
    "bangbang": BangBang.briot2013,
    "piecewise": lambda: piecewise_case()[0],
}


@pytest.mark.parametrize("name", ALL)
def test_evaluate_shapes_and_interface(name):
    traj = ALL[name]()
    assert isinstance(traj, Trajectory)
    one = traj.evaluate(0.3)
    assert isinstance(one, TrajectorySample)
    assert one.time.shape == (1,)
    for f in ("position", "velocity", "acceleration", "jerk"):
        assert getattr(one, f).shape == (1, traj.dim)
    many = traj.evaluate(np.linspace(0, 1, 7))
    assert many.position.shape == many.jerk.shape == (7, traj.dim)
    assert many.dim == traj.dim and len(many) == 7
    assert traj.evaluate(np.array([])).position.shape == (0, traj.dim)
    # scalar and array evaluation agree exactly
    np.testing.assert_array_equal(traj.evaluate(0.3).jerk, traj.evaluate([0.3]).jerk)
    if traj.period is None:
        assert math.isfinite(traj.t_end) and traj.t_end > traj.t_start
    else:
        assert traj.t_end == math.inf and traj.period > 0
    # frozen dataclass with read-only arrays
    with pytest.raises(dataclasses.FrozenInstanceError):
        traj.t_start = 5.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        many.position[0, 0] = 1.0


@pytest.mark.parametrize("name", ["r2r", "inverted-u", "bangbang", "piecewise"])
def test_non_periodic_hold_end_values(name):
    traj = ALL[name]()
    before = traj.evaluate([traj.t_start - 10.0, traj.t_start])
    after = traj.evaluate([traj.t_end, traj.t_end + 10.0])
    # holding: identical positions (exact), all derivatives exactly zero outside
    np.testing.assert_array_equal(before.position[0], before.position[1])
    np.testing.assert_array_equal(after.position[0], after.position[1])
    for f in ("velocity", "acceleration", "jerk"):
        assert np.all(getattr(before, f)[0] == 0.0) and np.all(getattr(after, f)[1] == 0.0)


# ------------------------------------------------------------------ Circle


@pytest.mark.parametrize(
    "circle",
    [
        Circle.kuo2016(),
        Circle.asadi2020(),
        Circle.yu2019(),
        Circle((0.1, -0.2, 0.3), 0.05, period=0.7, phase=0.4, normal=(1.0, 2.0, -0.5), t_start=0.3),
        Circle((0.0, 0.0, 0.0), 1.0, angular_rate=3.0, normal=(1.0, 0.0, 0.0)),
    ],
    ids=["kuo", "asadi", "yu", "tilted", "normal-x"],
)
def test_circle_kinematics(circle):
    t = np.linspace(-2.0, 7.0, 401)
    s = circle.evaluate(t)
    r, w, c = circle.radius, circle.angular_rate, circle.centre
    rel = s.position - c
    # closed-form identities evaluated in floating point: errors are a few ulps of
    # the magnitudes involved (|c| <= 1 m, r w^3 <= 250 m/s^3), so 1e-12 relative.
    tol = 1e-12
    np.testing.assert_allclose(np.linalg.norm(rel, axis=1), r, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(s.velocity, axis=1), r * w, rtol=tol)
    np.testing.assert_allclose(np.linalg.norm(s.acceleration, axis=1), r * w**2, rtol=tol)
    np.testing.assert_allclose(np.linalg.norm(s.jerk, axis=1), r * w**3, rtol=tol)
    # centripetal: a = -w^2 (p - c), pointing to the centre
    np.testing.assert_allclose(s.acceleration, -(w**2) * rel, atol=tol * r * w**2)
    # jerk = -w^2 v
    np.testing.assert_allclose(s.jerk, -(w**2) * s.velocity, atol=tol * r * w**3)
    np.testing.assert_allclose(circle.period, 2 * math.pi / w, rtol=1e-15)
    if circle.dim == 3:
        n = circle.normal / np.linalg.norm(circle.normal)
        # in the plane, anticlockwise about the normal: (p - c) x v = r^2 w n
        np.testing.assert_allclose(rel @ n, 0.0, atol=tol)
        # product of two quantities each accurate to ~1e-12 relative: 1e-11 relative
        np.testing.assert_allclose(
            np.cross(rel, s.velocity), np.tile(r * r * w * n, (t.size, 1)), atol=1e-11 * r * r * w
        )
        # (e1, e2, n) right-handed orthonormal
        np.testing.assert_allclose(np.cross(circle.e1, circle.e2), n, atol=1e-15)


def test_circle_phase_and_t_start():
    c = Circle((0.0, 0.0, 0.0), 2.0, period=4.0, phase=math.pi / 2, t_start=1.0)
    # at t_start the angle is the phase: (0, r, 0); a quarter period later (-r, 0, 0)
    np.testing.assert_allclose(c.evaluate(1.0).position[0], [0.0, 2.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(c.evaluate(2.0).position[0], [-2.0, 0.0, 0.0], atol=1e-15)
    # periodic: same state one period later (round-off of cos/sin of ~10 rad: 1e-14)
    a, b = c.evaluate(1.3), c.evaluate(1.3 + c.period)
    np.testing.assert_allclose(a.position, b.position, atol=1e-14)
    np.testing.assert_allclose(a.jerk, b.jerk, atol=1e-14)


def test_circle_presets():
    k = Circle.kuo2016()
    np.testing.assert_array_equal(k.centre, [0.0, 0.0, 0.5])
    assert (k.radius, k.period, k.dim) == (0.1, 1.0, 3)
    np.testing.assert_allclose(k.angular_rate, 2 * math.pi, rtol=1e-15)
    # default normal: e1 = x, e2 = y
    np.testing.assert_array_equal(k.e1, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(k.e2, [0.0, 1.0, 0.0])

    t = np.linspace(0.0, 20.0, 101)
    # published formulas, evaluated directly; agreement to a few ulps (1e-14 m)
    a = Circle.asadi2020()
    assert a.angular_rate == 1.0 and a.radius == 0.25 and a.dim == 3
    expected = np.column_stack([0.25 * np.cos(t), 0.25 * np.sin(t), np.full_like(t, 0.45)])
    np.testing.assert_allclose(a.evaluate(t).position, expected, atol=1e-14)

    y = Circle.yu2019()
    assert y.dim == 2 and y.planar and y.radius == 0.1
    np.testing.assert_allclose(y.period, 10.0, rtol=1e-15)
    w = 0.2 * math.pi
    expected = np.column_stack([0.67 + 0.1 * np.cos(w * t), 0.34 + 0.1 * np.sin(w * t)])
    np.testing.assert_allclose(y.evaluate(t).position, expected, atol=1e-14)
    expected_v = np.column_stack([-0.1 * w * np.sin(w * t), 0.1 * w * np.cos(w * t)])
    np.testing.assert_allclose(y.evaluate(t).velocity, expected_v, atol=1e-14)


def test_planar_circle_clockwise_with_negative_normal():
    c = Circle((0.0, 0.0), 1.0, angular_rate=1.0, normal=(0.0, 0.0, -1.0))
    v = c.evaluate(0.0).velocity[0]
    # starts at (1, 0) moving in -y: clockwise (exact: cos 0 = 1, sin 0 = 0)
    np.testing.assert_array_equal(c.evaluate(0.0).position[0], [1.0, 0.0])
    assert v[1] == -1.0 and v[0] == 0.0


def test_circle_period_and_angular_rate_equivalent():
    a = Circle((0, 0, 0), 0.1, period=0.5)
    b = Circle((0, 0, 0), 0.1, angular_rate=4 * math.pi)
    t = np.linspace(0, 1, 11)
    # 2 pi / 0.5 and 4 pi differ by at most one ulp, so results agree to a few ulps:
    # jerk up to r w^3 ~ 200 m/s^3 (atol 1e-12), position up to 0.1 m (atol 1e-15)
    np.testing.assert_allclose(a.evaluate(t).jerk, b.evaluate(t).jerk, atol=1e-12)
    np.testing.assert_allclose(a.evaluate(t).position, b.evaluate(t).position, atol=1e-15)


# ------------------------------------------------------------------ RestToRest


@pytest.mark.parametrize("order", [3, 5, 7])
def test_rest_to_rest_profile_boundary_conditions(order):
    prof = rest_to_rest_profile([0.0, 1.0], order)
    assert prof.shape == (4, 2)
    # exact arithmetic on small integers: s(0) = 0, s(1) = 1 to 1 ulp
    assert prof[0, 0] == 0.0
    assert abs(prof[0, 1] - 1.0) <= EPS
    n_zero = {3: 1, 5: 2, 7: 3}[order]  # derivatives that vanish at both ends
    # Horner with integer coefficients <= 8400: sums are exact in binary64
    for k in range(1, n_zero + 1):
        np.testing.assert_array_equal(prof[k], 0.0)
    # the next derivative does not vanish (the degree is minimal for these conditions)
    if n_zero + 1 <= 3:
        assert np.all(np.abs(prof[n_zero + 1]) > 1.0)
    # matches the closed forms of the brief (and its derivatives) at interior points
    tau = np.linspace(0, 1, 33)
    for k in range(4):
        expected = P.polyval(tau, P.polyder(PROFILE[order], k))
        np.testing.assert_allclose(rest_to_rest_profile(tau, order)[k], expected, rtol=1e-13, atol=1e-11)
    # symmetric profiles: s(1/2) = 1/2 (exact in binary64)
    assert rest_to_rest_profile(0.5, order)[0, 0] == 0.5


def test_septic_closed_form():
    tau = np.linspace(0, 1, 11)
    # Horner round-off is below (sum of |coefficients| = 209) * eps ~ 5e-14 for tau in [0, 1]
    np.testing.assert_allclose(rest_to_rest_profile(tau, 7)[0], [s7(x) for x in tau], atol=1e-13)


@pytest.mark.parametrize("order", [3, 5, 7])
def test_rest_to_rest_trajectory_boundaries(order):
    start, end = np.array([0.1, -0.3]), np.array([0.5, 0.2])
    traj = RestToRest(start, end, t0=0.2, tf=1.0, order=order)
    s = traj.evaluate([0.2, 1.0])
    np.testing.assert_array_equal(s.position[0], start)
    np.testing.assert_array_equal(s.position[1], end)
    fields = ["velocity", "acceleration", "jerk"][: {3: 1, 5: 2, 7: 3}[order]]
    for f in fields:
        # exact zeros of the profile derivatives (see above) times finite scales
        np.testing.assert_array_equal(getattr(s, f), 0.0)
    assert traj.dim == 2 and traj.period is None and traj.order == order


def test_rest_to_rest_scalar_is_dim_1():
    traj = RestToRest(0.0, 2.0, t0=0.0, tf=2.0, order=5)
    s = traj.evaluate(1.0)
    assert traj.dim == 1 and s.position.shape == (1, 1)
    # midpoint of a symmetric profile: half the travel (exact), peak velocity
    # 15/8 * d / T for the quintic (exact binary fractions)
    assert s.position[0, 0] == 1.0
    assert s.velocity[0, 0] == pytest.approx(15 / 8 * 2.0 / 2.0, rel=1e-15)


# ------------------------------------------------------------------ InvertedU


@pytest.mark.parametrize(
    "u",
    [InvertedU.kuo2016(), InvertedU((0.1, 0.0, 0.4), (-0.2, 0.05, -0.1), times=(0.0, 0.1, 0.5, 0.6, 1.0))],
    ids=["kuo2016", "uneven-negative"],
)
def test_inverted_u_set_points(u):
    t0, t1, t2, t3, tf = u.times
    (x0, y0, z0), (dx, dy, dz) = u.start, u.travel
    sz1 = s7((t1 - t0) / (t2 - t0))
    sxy2 = s7((t2 - t1) / (t3 - t1))
    sz3 = s7((t3 - t2) / (tf - t2))
    expected = np.array(
        [
            [x0, y0, z0],
            [x0, y0, z0 + dz * sz1],
            [x0 + dx * sxy2, y0 + dy * sxy2, z0 + dz],
            [x0 + dx, y0 + dy, z0 + dz + (z0 - (z0 + dz)) * sz3],
            [x0 + dx, y0 + dy, z0],
        ]
    )
    s = u.evaluate(u.times)
    # positions: a few ulps of |p| <= 0.7 m
    np.testing.assert_allclose(s.position, expected, rtol=0, atol=1e-15)
    # each coordinate rests at its own set points: XY at t0, t1, t3, tf; Z at t0, t2, tf.
    # The septic derivatives vanish exactly at tau = 0 and 1 (integer arithmetic).
    xy_rest, z_rest = [0, 1, 3, 4], [0, 2, 4]
    for f in ("velocity", "acceleration", "jerk"):
        arr = getattr(s, f)
        np.testing.assert_array_equal(arr[xy_rest, :2], 0.0)
        np.testing.assert_array_equal(arr[z_rest, 2], 0.0)
    # full rest at t0 and tf
    for f in ("velocity", "acceleration", "jerk"):
        np.testing.assert_array_equal(getattr(s, f)[[0, 4]], 0.0)


@pytest.mark.parametrize(
    "u",
    [InvertedU.kuo2016(), InvertedU((0.1, 0.0, 0.4), (-0.2, 0.05, -0.1), times=(0.0, 0.1, 0.5, 0.6, 1.0))],
    ids=["kuo2016", "uneven-negative"],
)
def test_inverted_u_shape(u):
    t = np.linspace(u.t_start - 0.05, u.t_end + 0.05, 4001)
    t = np.union1d(t, u.times)
    s = u.evaluate(t)
    z0, dz = u.start[2], u.travel[2]
    # Z extreme Z0 + dZ reached at t2 (towards the sign of dZ), never beyond (1e-15 m: ulps)
    excursion = (s.position[:, 2] - z0) * np.sign(dz)
    assert np.max(excursion) <= abs(dz) + 1e-15
    assert t[np.argmax(excursion)] == u.times[2]
    assert np.min(excursion) >= -1e-15
    # monotone XY progress along the travel direction (round-off allowance 1e-15 m)
    dxy = u.travel[:2]
    progress = (s.position[:, :2] - u.start[:2]) @ dxy / (dxy @ dxy)
    assert np.all(np.diff(progress) >= -1e-15)
    assert progress[0] == pytest.approx(0.0, abs=1e-15)
    assert progress[-1] == pytest.approx(1.0, abs=1e-14)
    assert np.all(s.velocity[:, :2] @ dxy >= 0.0)


def test_inverted_u_kuo2016_values():
    u = InvertedU.kuo2016()
    np.testing.assert_array_equal(u.start, [-0.08, -0.02, 0.5])
    np.testing.assert_array_equal(u.travel, [0.16, 0.04, 0.2])
    np.testing.assert_array_equal(u.times, [0.0, 0.2, 0.4, 0.6, 0.8])
    assert u.dim == 3 and u.t_start == 0.0 and u.t_end == 0.8 and u.period is None
    # Z is 0.7 m (0.2 m deeper, Z down) at t2 = 0.4 s; (0.08, 0.02) reached at t3
    s = u.evaluate([0.4, 0.6])
    assert s.position[0, 2] == pytest.approx(0.7, abs=1e-15)
    np.testing.assert_allclose(s.position[1, :2], [0.08, 0.02], atol=1e-15)


# ------------------------------------------------------------------ BangBang


@pytest.mark.parametrize(
    "b",
    [BangBang.briot2013(), BangBang((0.3, 1.0, -2.0), (-0.1, 1.5, -2.0), t0=0.2, tf=0.7)],
    ids=["briot2013", "mixed-signs"],
)
def test_bang_bang_profile(b):
    T, d = b.tf - b.t0, b.end - b.start
    t0, tm, tf = b.switch_times
    assert tm == pytest.approx(0.5 * (t0 + tf), abs=0.0)
    s = b.evaluate([t0, tm, tf])
    # rest at both ends, prescribed travel (tolerances: a few ulps of |q| <= 2 m)
    np.testing.assert_array_equal(s.position[0], b.start)
    np.testing.assert_array_equal(s.position[2], b.end)
    np.testing.assert_array_equal(s.velocity[[0, 2]], 0.0)
    # peak velocity 2 d / T at the midpoint, position halfway
    np.testing.assert_allclose(s.velocity[1], 2 * d / T, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(b.peak_velocity, 2 * d / T, rtol=1e-15)
    np.testing.assert_allclose(s.position[1], b.start + d / 2, atol=1e-15)
    # |acceleration| = 4 |d| / T^2: + a in the first half, - a in the second
    tt = np.linspace(t0, tf, 1001)
    ss = b.evaluate(tt)
    a = 4 * d / T**2
    np.testing.assert_allclose(b.acceleration_level, a, rtol=1e-15)
    first = tt < tm
    np.testing.assert_array_equal(ss.acceleration[first], np.broadcast_to(a, (first.sum(), b.dim)))
    np.testing.assert_array_equal(ss.acceleration[~first], np.broadcast_to(-a, ((~first).sum(), b.dim)))
    # jerk is returned as zero (impulses at the switch times are not represented)
    np.testing.assert_array_equal(ss.jerk, 0.0)
    # velocity triangular: never beyond the peak, position continuous at the midpoint
    assert np.all(np.abs(ss.velocity) <= np.abs(2 * d / T) * (1 + 1e-14))
    left = b.evaluate(tm - 1e-9).position[0]
    right = b.evaluate(tm).position[0]
    # |q(tm) - q(tm - dt)| <= |v| dt = 2|d|/T * 1e-9
    assert np.all(np.abs(left - right) <= np.abs(2 * d / T) * 1e-9 * 1.01 + 1e-15)


def test_bang_bang_briot2013_values():
    b = BangBang.briot2013()
    np.testing.assert_array_equal(b.start, [0.0, 0.0])
    np.testing.assert_array_equal(b.end, [0.1, 0.2])
    assert (b.t0, b.tf, b.dim) == (0.0, 0.75, 2)
    assert b.switch_times == (0.0, 0.375, 0.75)
    # a = 4 d / T^2 = (0.7111..., 1.4222...) m/s^2; v_peak = (0.2667, 0.5333) m/s
    np.testing.assert_allclose(b.acceleration_level, [0.4 / 0.5625, 0.8 / 0.5625], rtol=1e-15)
    np.testing.assert_allclose(b.evaluate(0.375).velocity[0], [0.2 / 0.75, 0.4 / 0.75], rtol=1e-15)


# ------------------------------------------------------------------ PiecewiseTrajectory


def test_piecewise_selects_segments_and_holds():
    pw = piecewise_case()[0]
    a, b = pw.segments
    t = np.array([-1.0, 0.25, 0.5, 1.0, 1.5, 3.0])
    s = pw.evaluate(t)
    # identical computations: exact equality with the segments' own results
    np.testing.assert_array_equal(s.position[1], a.evaluate(0.25).position[0])
    np.testing.assert_array_equal(s.velocity[3], b.evaluate(1.0).velocity[0])
    np.testing.assert_array_equal(s.position[0], a.start)
    np.testing.assert_array_equal(s.position[-1], b.end)
    assert pw.t_start == 0.0 and pw.t_end == 1.5 and pw.dim == 2


# ------------------------------------------------------------------ space


def test_space_defaults():
    # task-space laws
    assert Circle.kuo2016().space == "task" and Circle.yu2019().space == "task"
    assert InvertedU.kuo2016().space == "task"
    assert RestToRest(0.0, 1.0, t0=0.0, tf=1.0).space == "task"
    # BangBang drives the five-bar's actuators today: joint space by default
    assert BangBang.briot2013().space == "joint"
    assert BangBang(0.0, 1.0, t0=0.0, tf=1.0).space == "joint"
    # the piecewise law takes its segments' space
    assert piecewise_case()[0].space == "task"
    joint = PiecewiseTrajectory(
        (BangBang(0.0, 1.0, t0=0.0, tf=1.0), RestToRest(1.0, 0.0, t0=1.0, tf=2.0, space="joint"))
    )
    assert joint.space == "joint"


@pytest.mark.parametrize("space", ["task", "joint"])
def test_space_given_at_construction(space):
    r = RestToRest((0.0, 1.0), (1.0, 0.5), t0=0.0, tf=1.0, space=space)
    b = BangBang((0.0, 1.0), (1.0, 0.5), t0=0.0, tf=1.0, space=space)
    assert r.space == space and b.space == space
    pw = PiecewiseTrajectory((r, RestToRest((1.0, 0.5), (0.0, 0.0), t0=1.0, tf=2.0, space=space)), space=space)
    assert pw.space == space
    # the label does not change the numbers: bit-identical to the default laws
    t = np.linspace(-0.5, 1.5, 41)
    for traj, ref in ((r, RestToRest((0.0, 1.0), (1.0, 0.5), t0=0.0, tf=1.0)),
                      (b, BangBang((0.0, 1.0), (1.0, 0.5), t0=0.0, tf=1.0))):
        a, e = traj.evaluate(t), ref.evaluate(t)
        for f in ("position", "velocity", "acceleration", "jerk"):
            np.testing.assert_array_equal(getattr(a, f), getattr(e, f))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.space = "joint"  # type: ignore[misc]


BAD_SPACES = ["Task", "cartesian", "", None, 1, ("task",), np.array("task")]


@pytest.mark.parametrize("value", BAD_SPACES, ids=repr)
@pytest.mark.parametrize("law", ["r2r", "bangbang", "piecewise"])
def test_space_validated(law, value):
    build = {
        "r2r": lambda: RestToRest(0.0, 1.0, t0=0.0, tf=1.0, space=value),
        "bangbang": lambda: BangBang(0.0, 1.0, t0=0.0, tf=1.0, space=value),
        "piecewise": lambda: PiecewiseTrajectory((RestToRest(0.0, 1.0, t0=0.0, tf=1.0),), space=value),
    }[law]
    if law == "piecewise" and value is None:
        return  # None means "the segments' space" for the piecewise law
    with pytest.raises(InputError, match=r"^invalid space: .*allowed: 'task' .* or 'joint'") as info:
        build()
    assert info.value.name == "space" and info.value.value is value


def test_piecewise_space_mismatch():
    task = RestToRest(0.0, 1.0, t0=0.0, tf=1.0)
    joint = BangBang(1.0, 0.0, t0=1.0, tf=2.0)
    with pytest.raises(InputError, match=r"^invalid segments\[1\]: .*'task' space of segments\[0\]"):
        PiecewiseTrajectory((task, joint))
    with pytest.raises(InputError, match=r"^invalid space: got 'joint'; allowed: None or 'task'"):
        PiecewiseTrajectory((task,), space="joint")


# ------------------------------------------------------------------ bad input

BAD = [
    ("radius", lambda: Circle((0, 0, 0), -0.1, period=1.0)),
    ("radius", lambda: Circle((0, 0, 0), 0.0, period=1.0)),
    ("radius", lambda: Circle((0, 0, 0), math.nan, period=1.0)),
    ("radius", lambda: Circle((0, 0, 0), math.inf, period=1.0)),
    ("period", lambda: Circle((0, 0, 0), 0.1, period=0.0)),
    ("period", lambda: Circle((0, 0, 0), 0.1, period=-1.0)),
    ("period", lambda: Circle((0, 0, 0), 0.1, period=math.inf)),
    ("period/angular_rate", lambda: Circle((0, 0, 0), 0.1)),
    ("period/angular_rate", lambda: Circle((0, 0, 0), 0.1, period=1.0, angular_rate=1.0)),
    ("angular_rate", lambda: Circle((0, 0, 0), 0.1, angular_rate=-2.0)),
    ("phase", lambda: Circle((0, 0, 0), 0.1, period=1.0, phase=math.nan)),
    ("normal", lambda: Circle((0, 0, 0), 0.1, period=1.0, normal=(0, 0, 0))),
    ("normal", lambda: Circle((0, 0), 0.1, period=1.0, normal=(1, 0, 0))),
    ("centre", lambda: Circle((0, math.nan, 0), 0.1, period=1.0)),
    ("t_start", lambda: Circle((0, 0, 0), 0.1, period=1.0, t_start=math.inf)),
    ("tf", lambda: RestToRest(0, 1, t0=1.0, tf=1.0)),
    ("tf", lambda: RestToRest(0, 1, t0=1.0, tf=0.5)),
    ("t0", lambda: RestToRest(0, 1, t0=math.nan, tf=0.5)),
    ("end", lambda: RestToRest((0, 0), (1, 1, 1), t0=0, tf=1)),
    ("start", lambda: RestToRest((0, math.inf), (1, 1), t0=0, tf=1)),
    ("start", lambda: RestToRest("abc", 1.0, t0=0, tf=1)),
    ("order", lambda: RestToRest(0, 1, t0=0, tf=1, order=4)),
    ("order", lambda: RestToRest(0, 1, t0=0, tf=1, order=6)),
    ("order", lambda: RestToRest(0, 1, t0=0, tf=1, order=7.0)),
    ("order", lambda: RestToRest(0, 1, t0=0, tf=1, order="7")),
    ("order", lambda: RestToRest(0, 1, t0=0, tf=1, order=True)),
    ("order", lambda: rest_to_rest_profile(0.5, 9)),
    ("times", lambda: InvertedU(times=(0, 0.2, 0.2, 0.6, 0.8))),
    ("times", lambda: InvertedU(times=(0.8, 0.6, 0.4, 0.2, 0.0))),
    ("times", lambda: InvertedU(times=(0, 0.2, math.nan, 0.6, 0.8))),
    ("travel", lambda: InvertedU(travel=(0.1, math.inf, 0.2))),
    ("tf", lambda: BangBang(0, 1, t0=0.5, tf=0.5)),
    ("end", lambda: BangBang((0, 0), 1.0, t0=0, tf=1)),
    ("t", lambda: Circle.kuo2016().evaluate([0.0, math.nan])),
    ("t", lambda: BangBang.briot2013().evaluate(math.inf)),
    ("segments", lambda: PiecewiseTrajectory(())),
    ("segments[1]", lambda: PiecewiseTrajectory((RestToRest(0, 1, t0=0, tf=1), RestToRest((1, 1), (0, 0), t0=1, tf=2)))),
    ("segments[1]", lambda: PiecewiseTrajectory((RestToRest(0, 1, t0=0, tf=1), RestToRest(2, 0, t0=1, tf=2)))),
    ("segments[1].t_start", lambda: PiecewiseTrajectory((RestToRest(0, 1, t0=0, tf=1), RestToRest(1, 0, t0=1.5, tf=2)))),
    ("segments[0]", lambda: PiecewiseTrajectory((Circle.kuo2016(),))),
]


@pytest.mark.parametrize("name, build", BAD, ids=[f"{i}-{n}" for i, (n, _) in enumerate(BAD)])
def test_bad_input_raises_input_error(name, build):
    with pytest.raises(InputError, match=rf"^invalid {re.escape(name)}: ") as info:
        build()
    assert isinstance(info.value, ValueError)
    assert info.value.name == name


@pytest.mark.parametrize(
    "build",
    [
        lambda: Circle((0, 0, 0, 0), 0.1, period=1.0),
        lambda: Circle((0, 0, 0), 0.1, period=1.0, normal=(0, 1)),
        lambda: InvertedU(times=(0, 1, 2, 3)),
        lambda: InvertedU(start=(0, 0)),
        lambda: Circle.kuo2016().evaluate(np.zeros((2, 2))),
    ],
)
def test_wrong_shape_raises_dimension_error(build):
    with pytest.raises(DimensionError) as info:
        build()
    assert isinstance(info.value, ValueError)
