"""Input shapers (trajectories.shaping) against closed forms and an independent
simulation of a single mode."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from elastodyn.exceptions import InputError
from elastodyn.trajectories import RestToRest
from elastodyn.trajectories.shaping import Shaped, Shaper, percentage_vibration, shaper


@pytest.mark.parametrize("kind", ["zv", "zvd", "ei"])
@pytest.mark.parametrize("zeta", [0.0, 0.02, 0.1])
def test_amplitudes_sum_to_one_and_design_vibration(kind, zeta):
    s = shaper(kind, 4.0, zeta)
    assert s.amplitudes.sum() == pytest.approx(1.0, abs=1e-13)
    assert np.all(s.amplitudes > 0)
    v = s.vibration([4.0])[0]
    # ZV and ZVD: zero at the design frequency (round-off); EI: the tolerance 5 %
    assert v == pytest.approx(0.05 if kind == "ei" else 0.0, abs=1e-12)


@pytest.mark.parametrize("kind", ["zvd", "ei"])
@pytest.mark.parametrize("zeta", [0.0, 0.05])
def test_flat_at_design_frequency(kind, zeta):
    """dV/df = 0 at the design frequency (central difference, step 1e-5 f: truncation
    ~1e-10 of V'' f^2)."""
    s = shaper(kind, 3.0, zeta)
    h = 3e-5
    d = (s.vibration([3.0 + h])[0] - s.vibration([3.0 - h])[0]) / (2 * h)
    assert abs(d) * 3.0 < 1e-6


def test_closed_forms():
    zv = shaper("zv", 2.0)
    np.testing.assert_allclose(zv.amplitudes, [0.5, 0.5])
    np.testing.assert_allclose(zv.times, [0.0, 0.25])
    ei = shaper("ei", 2.0, tolerance=0.1)
    np.testing.assert_allclose(ei.amplitudes, [0.275, 0.45, 0.275])
    # the damped EI solution tends to the undamped closed form (Newton's solution is
    # continuous in zeta: O(zeta) away)
    e = shaper("ei", 2.0, 1e-6, tolerance=0.1)
    np.testing.assert_allclose(e.amplitudes, [0.275, 0.45, 0.275], atol=1e-5)
    np.testing.assert_allclose(e.times, [0.0, 0.25, 0.5], atol=1e-5)
    # ZV, damped (Singer & Seering eq. 8): K = exp(-zeta pi / sqrt(1 - zeta^2))
    z = 0.1
    K = math.exp(-z * math.pi / math.sqrt(1 - z * z))
    np.testing.assert_allclose(shaper("zv", 2.0, z).amplitudes, [1 / (1 + K), K / (1 + K)])


@pytest.mark.parametrize("zeta", [0.0, 0.05, 0.15])
def test_ei_has_two_zeros_around_the_design_frequency(zeta):
    """The EI's vibration vanishes at one frequency below and one above the design
    frequency and stays below the tolerance between them (a fine scan)."""
    s = shaper("ei", 5.0, zeta, tolerance=0.05)
    f = np.linspace(3.0, 7.0, 40001)
    v = s.vibration(f)
    inner = v[(f > 4.0) & (f < 6.0)]
    lo = f[np.argmin(np.where(f < 5.0, v, np.inf))]
    hi = f[np.argmin(np.where(f > 5.0, v, np.inf))]
    assert s.vibration([lo])[0] < 1e-3 and s.vibration([hi])[0] < 1e-3
    assert lo < 5.0 < hi
    assert v[(f >= lo) & (f <= hi)].max() <= 0.05 + 1e-9
    assert inner.size and np.all(np.isfinite(inner))


@pytest.mark.parametrize("zeta", [0.02, 0.05, 0.1])
def test_damped_ei_matches_singhose_curve_fit(zeta):
    """The first amplitude against the curve fit of Singhose, Derezinski & Singer (1996,
    J. Guid. Control Dyn. 19(2)) for V_tol = 5 %: A1 = 0.24968 + 0.24961 V + 0.80008 z +
    1.23328 V z + 0.49599 z^2 + 3.17316 V z^2 (a fit of exact solutions: agreement to
    its ~1e-3 accuracy)."""
    V = 0.05
    a1 = (0.24968 + 0.24961 * V + 0.80008 * zeta + 1.23328 * V * zeta
          + 0.49599 * zeta ** 2 + 3.17316 * V * zeta ** 2)
    assert shaper("ei", 3.0, zeta, tolerance=V).amplitudes[0] == pytest.approx(a1, abs=2e-3)


def test_robustness_ordering():
    """At a 20 % frequency error: ZV leaves the most, EI the least (the point of the
    robust shapers)."""
    v = {k: shaper(k, 5.0).vibration([6.0])[0] for k in ("zv", "zvd", "ei")}
    assert v["zv"] > v["zvd"] > v["ei"]
    # undamped ZV: V = |cos(pi f / (2 f_d))|
    assert v["zv"] == pytest.approx(abs(math.cos(math.pi * 6.0 / 10.0)), rel=1e-12)


def _residual(traj, f, zeta, t_after):
    """Residual vibration amplitude of x'' + 2 zeta w x' + w^2 x = w^2 r(t) after the
    motion r: the amplitude of (x - r_end, x'/w_d) at t_after (solve_ivp DOP853,
    rtol 1e-11)."""
    w = 2 * math.pi * f
    wd = w * math.sqrt(1 - zeta ** 2)

    def rhs(t, y):
        r = traj.evaluate([t]).position[0, 0]
        return [y[1], w * w * (r - y[0]) - 2 * zeta * w * y[1]]

    sol = solve_ivp(rhs, (traj.t_start, t_after), [traj.evaluate([traj.t_start]).position[0, 0], 0.0],
                    method="DOP853", rtol=1e-11, atol=1e-13, max_step=0.002)
    x, v = sol.y[:, -1]
    r_end = traj.evaluate([traj.t_end]).position[0, 0]
    # undo the decay since the end of the motion to compare amplitudes at t_end
    return math.hypot(x - r_end, (v + zeta * w * (x - r_end)) / wd) * \
        math.exp(zeta * w * (t_after - traj.t_end))


@pytest.mark.parametrize("zeta", [0.0, 0.03])
def test_zv_cancels_single_mode_residual(zeta):
    """A fast move (0.15 s) of a 4 Hz mode leaves a large residual vibration; the ZV
    shaper at the mode's frequency cancels it (to the integrator's tolerance), and the
    simulated ratio equals the shaper's analytic percentage vibration at a detuned
    frequency."""
    base = RestToRest(np.zeros(1), np.ones(1), t0=0.0, tf=0.15, order=7)
    raw = _residual(base, 4.0, zeta, 1.0)
    assert raw > 0.05
    zv = Shaped(base, shaper("zv", 4.0, zeta))
    assert _residual(zv, 4.0, zeta, 1.0) < 1e-7 * raw / 0.05
    detuned = Shaped(base, shaper("zv", 4.6, zeta))
    ratio = _residual(detuned, 4.0, zeta, 1.0) / raw
    assert ratio == pytest.approx(detuned.shaper.vibration([4.0], zeta)[0], rel=1e-6)


def test_shaped_motion_ends_and_delay():
    base = RestToRest(np.zeros(2), np.array([0.3, -0.1]), t0=0.1, tf=0.6, order=7,
                      space="joint")
    s = Shaped(base, shaper("zvd", 5.0))
    assert s.space == "joint" and s.dim == 2
    assert s.t_end == pytest.approx(0.6 + 0.2)
    e = s.evaluate([s.t_start, s.t_end, s.t_end + 0.5])
    np.testing.assert_allclose(e.position[0], [0, 0], atol=1e-15)
    np.testing.assert_allclose(e.position[1:], [[0.3, -0.1]] * 2, atol=1e-15)
    assert np.abs(e.velocity[1:]).max() == 0 and np.abs(e.jerk[1:]).max() == 0


@pytest.mark.parametrize("bad", [dict(kind="zz", f=1.0), dict(kind="zv", f=0.0),
                                 dict(kind="zv", f=1.0, zeta=1.0),
                                 dict(kind="ei", f=1.0, tol=0.6),
                                 dict(kind="ei", f=1.0, zeta=0.5)])
def test_bad_input(bad):
    with pytest.raises(InputError):
        shaper(bad["kind"], bad["f"], bad.get("zeta", 0.0), tolerance=bad.get("tol", 0.05))


def test_custom_shaper_checks():
    with pytest.raises(InputError):
        Shaper([0.5, 0.6], [0.0, 0.1])
    with pytest.raises(InputError):
        Shaper([0.5, 0.5], [0.1, 0.2])
    assert percentage_vibration([1.0], [0.0], [3.0])[0] == pytest.approx(1.0)


# ---------------------------------------------------------------- path-preserving shaping
from dataclasses import dataclass  # noqa: E402

from elastodyn.trajectories import InvertedU  # noqa: E402
from elastodyn.trajectories._base import Trajectory, sample  # noqa: E402
from elastodyn.trajectories.polynomial import rest_to_rest_profile  # noqa: E402
from elastodyn.trajectories.shaping import PathShaped  # noqa: E402
from elastodyn.trajectories.timelaw import TimeWarped  # noqa: E402


@dataclass(frozen=True, eq=False)
class _Arc(Trajectory):
    """A 3/4 circle of radius R about the origin at height 0.4 m, run by the septic
    rest-to-rest law over [0, D]: a curved path known exactly."""

    R: float = 0.12
    D: float = 0.5

    @property
    def dim(self):
        return 3

    @property
    def t_start(self):
        return 0.0

    @property
    def t_end(self):
        return self.D

    def evaluate(self, t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        tau = np.clip(t / self.D, 0.0, 1.0)
        inside = ((tau > 0) & (tau < 1)).astype(float)
        s = rest_to_rest_profile(tau, 7)       # (4, n): s, s', s'', s''' in tau
        th = 1.5 * math.pi * s[0]
        d = [1.5 * math.pi * s[k] * inside / self.D ** k for k in (1, 2, 3)]
        c, sn = np.cos(th), np.sin(th)
        R = self.R
        p = np.column_stack([R * c, R * sn, np.full_like(t, 0.4)])
        v = np.column_stack([-R * sn * d[0], R * c * d[0], 0 * t])
        a = np.column_stack([-R * c * d[0] ** 2 - R * sn * d[1],
                             -R * sn * d[0] ** 2 + R * c * d[1], 0 * t])
        j = np.column_stack([R * sn * d[0] ** 3 - 3 * R * c * d[0] * d[1] - R * sn * d[2],
                             -R * c * d[0] ** 3 - 3 * R * sn * d[0] * d[1] + R * c * d[2],
                             0 * t])
        return sample(t, p, v, a, j)


def test_path_shaped_unit_shaper_is_the_compressed_base():
    """One impulse (no shaping): the motion is the base played over the cycle time, i.e.
    the time-warped base with c = 0. Tolerances: quintic splines on 2048 intervals
    (position ~1e-14 m; velocity ~1e-9; acceleration and jerk lose accuracy where a
    higher derivative of the path jumps, at the inverted U's set times: 1e-6 and 1e-3
    relative)."""
    base = InvertedU()
    ps = PathShaped(base, Shaper([1.0], [0.0]), cycle_time=0.6)
    ref = TimeWarped(base, [], cycle_time=0.6)
    t = np.linspace(0.0, 0.6, 1501)
    a, b = ps.evaluate(t), ref.evaluate(t)
    for k, rtol in (("position", 1e-12), ("velocity", 1e-8), ("acceleration", 1e-5),
                    ("jerk", 3e-3)):
        scale = np.abs(getattr(b, k)).max()
        assert np.abs(getattr(a, k) - getattr(b, k)).max() <= rtol * scale, k
    # the base-time map inverts the progress (linear table: (L / 2048)^2 curvature)
    np.testing.assert_allclose(ps.base_time(t), t / 0.6 * 0.8, atol=2e-4)


@pytest.mark.parametrize("kind", ["zv", "zvd", "ei"])
def test_path_shaped_keeps_a_curved_path_and_rests(kind):
    """Shaped progress on a 3/4 circle: every point on the circle (to the splines'
    ~1e-12 m), the same end points, at rest with zero acceleration and jerk at both
    ends, cycle time as asked."""
    arc = _Arc()
    ps = PathShaped(arc, shaper(kind, 6.0), cycle_time=0.7)
    assert ps.t_end == pytest.approx(0.7) and ps.space == "task" and ps.dim == 3
    assert ps.length == pytest.approx(1.5 * math.pi * arc.R, rel=1e-12)
    t = np.linspace(0.0, 0.7, 4001)
    s = ps.evaluate(t)
    radial = np.hypot(s.position[:, 0], s.position[:, 1]) - arc.R
    assert np.abs(radial).max() < 1e-11
    assert np.abs(s.position[:, 2] - 0.4).max() < 1e-14
    # moving along the path: the velocity is tangent (no radial component)
    vr = (s.position[:, 0] * s.velocity[:, 0] + s.position[:, 1] * s.velocity[:, 1])
    assert np.abs(vr).max() < 1e-9 * np.abs(s.velocity).max() * arc.R
    e = ps.evaluate([0.0, 0.7])
    np.testing.assert_allclose(e.position, arc.evaluate([0.0, 0.5]).position, atol=1e-14)
    for k in ("velocity", "acceleration", "jerk"):
        assert np.abs(getattr(e, k)).max() == 0.0, k


@pytest.mark.parametrize("zeta", [0.0, 0.03])
def test_path_shaped_zv_cancels_single_mode_residual(zeta):
    """On a straight path the shaped progress is the shaped coordinate: a 4 Hz mode driven
    by it is left at rest (ZV tuned on it), like :class:`Shaped` of the same motion."""
    base = RestToRest(np.zeros(1), np.ones(1), t0=0.0, tf=0.15, order=7)
    raw = _residual(base, 4.0, zeta, 1.0)
    sh = shaper("zv", 4.0, zeta)
    ps = PathShaped(base, sh)
    assert ps.t_end == pytest.approx(0.15 + sh.delay)
    t = np.linspace(0.0, ps.t_end, 801)
    np.testing.assert_allclose(ps.evaluate(t).position, Shaped(base, sh).evaluate(t).position,
                               atol=1e-12)
    # the splines' error (~1e-12 of the travel) bounds what is left
    assert _residual(ps, 4.0, zeta, 1.0) < 1e-6 * raw


def test_path_shaped_refuses_what_it_cannot_do():
    with pytest.raises(InputError) as e:     # delay longer than the cycle
        PathShaped(InvertedU(), shaper("zv", 1.0), cycle_time=0.4)
    assert e.value.name == "cycle_time"
    stops = TimeWarped(InvertedU(), [0.0, 0.9999])   # w'(1/2) = 1e-4: stops mid-way
    with pytest.raises(InputError) as e:
        PathShaped(stops, shaper("zv", 5.0), cycle_time=1.0)
    assert e.value.name == "--trajectory" and "stop" in str(e.value)
