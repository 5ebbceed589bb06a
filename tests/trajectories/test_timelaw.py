"""TimeWarped: a rest-to-rest motion re-timed along its own path (trajectories.timelaw)."""
import numpy as np
import pytest

from elastodyn.exceptions import InputError
from elastodyn.trajectories import (BangBang, Circle, InvertedU, RestToRest, Trajectory,
                                    TrajectorySample)
from elastodyn.trajectories.timelaw import TimeWarped, check_rest_to_rest, speed_margin, warp

BASES = [InvertedU(),
         InvertedU(start=(0.0, 0.05, 0.6), travel=(-0.1, 0.02, -0.15),
                   times=(0.0, 0.1, 0.5, 0.7, 1.1)),
         RestToRest(np.zeros(2), np.array([0.4, -0.7]), t0=0.2, tf=1.0, order=7,
                    space="joint")]
COEFS = [(), (0.3,), (0.3, -0.2, 0.1), (-0.4, 0.25, 0.1, -0.05, 0.02)]


@pytest.mark.parametrize("base", BASES)
def test_identity_law_is_the_base(base):
    t = np.linspace(base.t_start - 0.1, base.t_end + 0.1, 501)
    a, b = TimeWarped(base).evaluate(t), base.evaluate(t)
    for f in ("position", "velocity", "acceleration", "jerk"):
        # round-off of tau = (t - t0) / T and back: ~1e-16 relative to the values
        assert np.allclose(getattr(a, f), getattr(b, f), rtol=0, atol=1e-12 * (1 + np.abs(getattr(b, f)).max()))


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("coefs", COEFS[1:])
def test_path_and_rest_to_rest_kept(base, coefs):
    T = 1.3 * base.duration
    tw = TimeWarped(base, coefs, cycle_time=T)
    assert tw.t_end == pytest.approx(base.t_start + T)
    ends = tw.evaluate([tw.t_start, tw.t_end])
    be = base.evaluate([base.t_start, base.t_end])
    np.testing.assert_allclose(ends.position, be.position, atol=1e-15)
    for f in ("velocity", "acceleration", "jerk"):
        assert np.abs(getattr(ends, f)).max() < 1e-9 * np.abs(getattr(tw.evaluate(
            np.linspace(tw.t_start, tw.t_end, 101)), f)).max()
    # every point of the new motion lies on the base's path: independent of sigma, by
    # the distance to a dense sampling of the base (spacing ds: distance <= |v| ds / 2)
    dense = base.evaluate(np.linspace(base.t_start, base.t_end, 200001))
    ds = base.duration / 200000
    pts = tw.evaluate(np.linspace(tw.t_start, tw.t_end, 97)).position
    for p in pts:
        d = np.linalg.norm(dense.position - p, axis=1).min()
        assert d <= 0.5 * np.abs(dense.velocity).max() * ds * np.sqrt(base.dim) + 1e-15


@pytest.mark.parametrize("coefs", COEFS[1:])
def test_derivatives_are_those_of_the_position(coefs):
    """Central differences (truncation h^2 |f'''| / 6) of position, velocity and
    acceleration against the analytic velocity, acceleration and jerk, away from the
    base's set times (its snap jumps there)."""
    base = RestToRest(np.zeros(3), np.array([0.1, -0.2, 0.3]), t0=0.0, tf=0.8, order=7)
    tw = TimeWarped(base, coefs, cycle_time=0.6)
    t = np.linspace(0.01, 0.59, 59)
    h = 1e-5
    up, dn, mid = tw.evaluate(t + h), tw.evaluate(t - h), tw.evaluate(t)
    for lo, hi in (("position", "velocity"), ("velocity", "acceleration"),
                   ("acceleration", "jerk")):
        fd = (getattr(up, lo) - getattr(dn, lo)) / (2 * h)
        ref = getattr(mid, hi)
        assert np.abs(fd - ref).max() < 1e-6 * np.abs(ref).max()


def test_warp_ends_and_series():
    c = np.array([0.2, -0.1, 0.05])
    w, w1, w2, w3 = warp(np.array([0.0, 1.0]), c)
    np.testing.assert_allclose(w, [0.0, 1.0], atol=1e-15)
    # w'(0) = 1 + sum c_k, w'(1) = 1 + sum c_k (-1)^k
    assert w1[0] == pytest.approx(1 + c.sum())
    assert w1[1] == pytest.approx(1 - c[0] + c[1] - c[2])


def test_non_monotone_law_refused():
    assert speed_margin([-1.5]) == pytest.approx(-0.5, abs=1e-3)
    with pytest.raises(InputError, match="monotone") as exc:
        TimeWarped(InvertedU(), [-1.5])
    assert exc.value.name == "coefficients"


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), True])
def test_bad_cycle_time_refused(bad):
    with pytest.raises(InputError) as exc:
        TimeWarped(InvertedU(), [0.1], cycle_time=bad)
    assert exc.value.name == "cycle_time"


class _Kinked(Trajectory):
    """A septic rest-to-rest move on [0, 1] plus 0.1 max(0, t - 1/2)^2 (1 - t)^4, whose
    acceleration jumps by 0.1 * 2 / 16 at t = 1/2: at rest at both ends, acceleration not
    continuous."""
    dim, t_start, t_end = 1, 0.0, 1.0

    def evaluate(self, t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        tau = np.clip(t, 0.0, 1.0)
        P = np.polynomial.Polynomial
        septic = P([0, 0, 0, 0, 35, -84, 70, -20])
        bump = 0.1 * P([0.25, -1, 1]) * P([1, -4, 6, -4, 1])
        on = tau > 0.5
        vals = [(septic.deriv(k)(tau) + on * bump.deriv(k)(tau))[:, None] for k in range(4)]
        return TrajectorySample(time=t, position=vals[0], velocity=vals[1],
                                acceleration=vals[2], jerk=vals[3])


def test_bang_bang_and_periodic_refused():
    with pytest.raises(InputError, match="continuous acceleration"):
        check_rest_to_rest(_Kinked())
    # a bang-bang law starts with a nonzero acceleration
    with pytest.raises(InputError, match="at rest at both ends"):
        check_rest_to_rest(BangBang(np.zeros(2), np.ones(2), t0=0.0, tf=1.0))
    with pytest.raises(InputError, match="rest-to-rest motion"):
        check_rest_to_rest(Circle(np.array([0.0, 0.0, 0.5]), 0.1, period=1.0))
    # a cubic rest-to-rest has zero velocity but a nonzero acceleration at its ends
    with pytest.raises(InputError, match="at rest at both ends"):
        check_rest_to_rest(RestToRest(np.zeros(1), np.ones(1), t0=0.0, tf=1.0, order=3))


def test_too_many_or_bad_coefficients_refused():
    with pytest.raises(InputError):
        TimeWarped(InvertedU(), np.zeros(65))
    with pytest.raises(InputError):
        TimeWarped(InvertedU(), [float("nan")])
