"""Vibration-aware motion design: time laws and input shapers that cut the residual
vibration of a flexible robot, on any model of the contract that simulates a prescribed
motion (capability ``simulate_motion``).

What is measured
----------------
A motion-driven simulation (:func:`~elastodyn.analysis.simulate.simulate_motion`) gives
the end-effector's deviation D(t) from the rigid robot (KED: the platform's elastic
displacement; the nonlinear models: flexible minus rigid end-effector position). Part of
it is the static sag under gravity, which no time law changes; the motion's part is
measured against the gravity deflection D_g of the pose (``model.static_deflection`` at
rest, sampled along the path at :data:`STATIC_SAMPLES` points and interpolated, cubic
in the path's own time):

* ``residual_vibration_m`` = max over t in [T, T + W] of |D(t) - D_g(end)|: the amplitude
  of the vibration left after the motion (T the cycle time, W the settling window:
  default :data:`SETTLE_PERIODS` periods of the lowest mode at the final pose);
* ``peak_deviation_m`` = max over t in [0, T] of |D(t) - D_g(pose(t))|: the largest
  deviation the motion itself causes;
* ``peak_effort`` (per actuator) [N m or N], from the flexible simulation, and
  ``peak_speed`` (per actuator) [rad/s or m/s], from the actuated motion (a task-space
  motion through the model's inverse kinematics, central differences at the output
  step: error O(h^2)).

Time-law design (:func:`plan_motion`)
-------------------------------------
The path of a rest-to-rest motion stays; its time law is re-designed
(:class:`~elastodyn.trajectories.timelaw.TimeWarped`: w(tau) = tau + sum_k c_k
sin(k pi tau) / (k pi), rest to rest with continuous jerk for every c) on a start law:
the given law at the cycle time, or the path run with a shaped progress
(:class:`~elastodyn.trajectories.shaping.PathShaped`, one per shaper compared: the
shaper's zeros put where the lowest mode is), whichever is best (each costs one
simulation). The objective (residual vibration or peak deviation) is evaluated by the
flexible model along each candidate motion (one simulation per candidate).

The search (``search``): by default Gauss-Newton on the objective's sampled history
(:func:`least_squares_search`: the deviation samples after the motion, or during it,
whose largest norm the objective is; smooth in c, their common zero found in a few
iterations), then a compass search polishes the objective itself with what is left of
the budget; or a compass (pattern) search alone (Kolda, Lewis & Torczon 2003, SIAM Rev.
45(3), Algorithm 3.2): from c = 0, the 2K points +-s along each coefficient are
evaluated as one batch, the best improving one taken, s halved when none improves,
until s < :data:`MIN_STEP` or the budget of evaluations is spent. Candidates violating
a limit (peak effort or speed above ``limits``) or the monotonicity margin (w' >=
:data:`MIN_SPEED`) count as infinitely bad (extreme barrier; a large residual for
Gauss-Newton, whose trust region then shrinks). Derivative-free in the simulation: the
Jacobian is by finite differences of whole simulations (no adjoint of the models).

Input shaping
-------------
The shapers (:mod:`~elastodyn.trajectories.shaping`: ZV, ZVD, EI) are tuned on the
lowest natural frequency at the final pose (the residual vibration is the free
vibration there; the frequencies along the path are reported, the robustness curve
shows what a frequency error costs) and applied to the actuator references: the
actuated motion of the given law compressed to T - delay (so that the shaped motion has
the same cycle time T as the time-law design) convolved with the shaper. Convolution in
joint space moves the end-effector off the path (it cuts the path's bends, and the
kinematics is nonlinear): reported as ``path_error_m``. Each shaper is also applied to
the time law (variant ``<shaper>-law``, :class:`~elastodyn.trajectories.shaping.
PathShaped`: the progress along the path convolved, the path kept exactly); on a path
whose coordinates run on separate laws (Kuo's inverted U) it changes their timing
relative to each other and may excite more than the given law (measured in
BENCHMARKS.md), which is why it is a start of the search, not its result.

Units: SI.
"""
from __future__ import annotations

import math
import time as _time
import warnings

import numpy as np

from ..exceptions import InputError, ModelError
from ..model import require
from .results import Result

__all__ = ["OBJECTIVES", "PlanResult", "plan_motion", "designed_trajectory", "shortest_cycle", "deviation_history",
           "effort_history", "evaluate_motion", "MotionEvaluation", "pattern_search",
           "parse_limits", "least_squares_search", "SEARCHES", "STATIC_SAMPLES", "SETTLE_PERIODS", "MIN_STEP", "MIN_SPEED"]

OBJECTIVES = ("residual-vibration", "peak-deviation")
STATIC_SAMPLES = 41
"""Poses along the path where the gravity deflection is computed (cubic interpolation in
between: the deflection is smooth in the pose; error ~ (L / 40)^4 of its fourth
derivative along the path)."""
SETTLE_PERIODS = 3.0
"""Default settling window after the motion, in periods of the lowest mode at the final
pose (the residual amplitude of an undamped multi-mode response is its largest value
over a few periods of the slowest mode)."""
MIN_STEP = 0.01
"""Compass search stops when its step in the coefficients is below this."""
STEPS_PER_PERIOD = 20
"""Fewest output (and Newmark) steps per period of the lowest mode: Newmark's period
error (omega h)^2 / 12 is then below 1 %, and a residual amplitude sampled at the step is
within (pi / 20)^2 / 2 ~ 1.2 % of its peak."""
DEFAULT_STEP = 2e-3
"""Output (and Newmark) step of plan's simulations [s] unless given, or finer: at most
1/20 of the motion and of the lowest mode's period at the final pose."""
MIN_SPEED = 0.05
"""Smallest w'(tau) a candidate time law may have (5 % of the mean speed along the path:
a law that nearly stops on the way is refused)."""
LIMIT_KEYS = ("torque", "force", "effort", "speed")
SEARCHES = ("least-squares", "compass")
FD_STEP = 1e-4
"""Forward-difference step in the time-law coefficients for the least-squares search's
Jacobian (the simulations are deterministic and smooth in c: truncation error ~h |r''|,
round-off ~1e-12 / h of the deviation, both far below the 1e-2 relative accuracy a
Gauss-Newton step needs)."""
REFINE_ITERATIONS = 2
"""With a search model: Gauss-Newton iterations (K + 1 simulations each) on the model of
the result from the law the search found."""
POLISH_STEP = 0.05
"""First step of the compass search that polishes the least-squares result on the true
(max-norm) objective."""


# ---------------------------------------------------------------------------- reading
def _pad3(P) -> np.ndarray:
    """Positions (n, d <= 3) as (n, 3) (a planar position padded with zeros)."""
    P = np.asarray(P, dtype=float)
    P = P.reshape(len(P), -1)
    return P if P.shape[1] >= 3 else np.column_stack([P, np.zeros((len(P), 3 - P.shape[1]))])


def _xyz(result, key) -> np.ndarray:
    """The positions ``key`` (n, k) of a simulation result as (n, 3) in x, y, z order: an
    engine that reports its closure rows (``ee_rows``, e.g. the five-bar's x and z) has
    them placed on their axes; otherwise the columns are x, y(, z)."""
    q = result.quantities
    P = np.asarray(q[key], dtype=float)
    P = P.reshape(len(P), -1)
    rows = q.get("ee_rows")
    if rows and len(rows) == P.shape[1] and set(rows) <= {"x", "y", "z"}:
        out = np.zeros((len(P), 3))
        for k, r in enumerate(rows):
            out[:, "xyz".index(r)] = P[:, k]
        return out
    return _pad3(P)


def deviation_history(result):
    """(time (n,) [s], D (n, 3) [m]) of a motion-driven simulation result: the
    end-effector's deviation from the rigid robot's (a Delta: the platform's), x,
    y, z (a planar robot's missing axis zero)."""
    q = result.quantities
    t = np.asarray(q["time_s"], dtype=float)
    if "ee_position_m" in q and "rigid_ee_position_m" in q:
        return t, _xyz(result, "ee_position_m") - _xyz(result, "rigid_ee_position_m")
    raise InputError("--formulation", result.formulation, "a formulation whose motion-"
                     "driven simulation reports the end-effector position")


def effort_history(result):
    """(key, efforts (n, n_a)) of a motion-driven simulation result (``torque_nm``,
    ``force_n`` or ``effort_si``)."""
    q = result.quantities
    for key in ("torque_nm", "force_n", "effort_si"):
        if key in q:
            return key, np.asarray(q[key], dtype=float)
    raise ModelError("simulation result without actuator efforts")


def parse_limits(text) -> dict:
    """``"torque=2.5,speed=10"`` (or a dict) -> {"effort": float, "speed": float} [N m or
    N, rad/s or m/s] (``torque``, ``force`` and ``effort`` name the same limit: the
    actuators' efforts; each value > 0, finite, applied to every actuator)."""
    if text is None:
        return {}
    items = text.items() if isinstance(text, dict) else (
        p.split("=", 1) if "=" in p else (p, None) for p in str(text).split(",") if p.strip())
    out = {}
    items = list(items)
    if not items:
        raise InputError("--limits", text, "comma-separated KEY=VALUE with KEY in "
                         + ", ".join(LIMIT_KEYS))
    for key, value in items:
        key = str(key).strip()
        if key not in LIMIT_KEYS:
            raise InputError("--limits", text, "comma-separated KEY=VALUE with KEY in "
                             + ", ".join(LIMIT_KEYS))
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise InputError("--limits", text, f"a number > 0 for {key}") from None
        if not (math.isfinite(v) and v > 0):
            raise InputError("--limits", text, f"a finite value > 0 for {key}")
        name = "speed" if key == "speed" else "effort"
        if name in out:
            raise InputError("--limits", text, f"one value for the {name} limit")
        out[name] = v
    return out


# ---------------------------------------------------------------------------- statics
def _rest_state(model, traj, pos):
    return model.state(pose=pos) if traj.space == "task" else model.state(actuated=pos)


def _ee_static(model, st) -> np.ndarray:
    """Gravity deflection of the end-effector position (3,) [m] at rest at ``st`` (a
    planar position padded with zeros)."""
    from .workspace import static_end_effector_deflection
    return _pad3(static_end_effector_deflection(model, st)[None])[0]


class PathStatics:
    """The gravity deflection of the end-effector along the path of a base motion, as a
    function of the base's time (:data:`STATIC_SAMPLES` poses, cubic spline)."""

    def __init__(self, model, base):
        from scipy.interpolate import CubicSpline
        s = np.linspace(base.t_start, base.t_end, STATIC_SAMPLES)
        pos = base.evaluate(s).position
        D = np.array([_ee_static(model, _rest_state(model, base, p)) for p in pos])
        self.base_times = s
        self.values = D
        self._spline = CubicSpline(s, D, axis=0)

    def at(self, base_time) -> np.ndarray:
        """D_g (n, d) [m] at base times (n,) [s] (clipped to the motion)."""
        s = np.clip(np.asarray(base_time, dtype=float), self.base_times[0],
                    self.base_times[-1])
        return self._spline(s)

    @property
    def end(self) -> np.ndarray:
        return self.values[-1]


# ---------------------------------------------------------------------------- evaluation
class MotionEvaluation:
    """One candidate motion simulated: ``metrics`` (dict), the simulation ``result``, the
    deviation history ``time`` (n,), ``deviation`` (n, d), ``dynamic`` (n,) = |D - D_g|
    [m] and the ``trajectory``."""

    def __init__(self, trajectory, result, metrics, time, deviation, dynamic,
                 histories=None):
        self.trajectory = trajectory
        self.result = result
        self.metrics = metrics
        self.time = time
        self.deviation = deviation
        self.dynamic = dynamic
        #: per objective, the sampled vector whose largest norm it is: D - D_g(end) after
        #: the motion (m, 3) and D - D_g(pose) during it (n, 3) [m]
        self.histories = histories or {}


def _actuated_speed(model, traj, times) -> np.ndarray:
    """Peak |actuated rate| (n_a,) along ``traj`` [rad/s or m/s]."""
    smp = traj.evaluate(times)
    if traj.space == "joint":
        return np.abs(smp.velocity).max(axis=0)
    require(model, "inverse_kinematics", what="a speed limit on a task-space motion")
    qa = np.array([model.inverse_kinematics(p) for p in smp.position])
    # central differences at the output step: O(h^2) of the rates
    return np.abs(np.gradient(qa, times, axis=0)).max(axis=0)


def evaluate_motion(model, traj, *, window: float, step: float, statics: PathStatics,
                    base_time=None, method: str | None = None) -> MotionEvaluation:
    """Simulate ``traj`` (initial state: the static deflection) over its motion and the
    settling ``window`` [s] after it, at output ``step`` [s], and measure it (module
    docstring). ``base_time(t)``: the base's time at t (default: t, the motion is the
    base's own); ``statics``: the gravity deflection along the base path."""
    from .simulate import simulate_motion
    T_end = traj.t_end
    # a whole number of output steps covering the motion and the window
    duration = step * math.ceil(((T_end - traj.t_start) + window) / step - 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the run alone: a search's metrics (a second run for the time-step error of
        # every candidate would cost half as much again; not reported here)
        res = simulate_motion(model, traj, duration=duration, step=step, method=method,
                              step_error=False)
    t, D = deviation_history(res)
    t_abs = t + traj.t_start
    bt = t_abs if base_time is None else base_time(t_abs)
    Dg = statics.at(bt)
    dyn = np.linalg.norm(D - Dg, axis=1)
    during = t_abs <= T_end + 1e-12
    after = t_abs >= T_end - 1e-12
    resid = np.linalg.norm(D[after] - statics.end, axis=1)
    key, tau = effort_history(res)
    metrics = {"residual_vibration_m": float(resid.max()) if resid.size else math.nan,
               "peak_deviation_m": float(dyn[during].max()),
               "peak_total_deviation_m": float(np.linalg.norm(D[during], axis=1).max()),
               "peak_effort": np.abs(tau[during]).max(axis=0).tolist(),
               "effort_key": key,
               "peak_speed": _actuated_speed(model, traj, t_abs[during]).tolist(),
               "cycle_time_s": float(T_end - traj.t_start),
               "warnings": list(res.warnings)}
    histories = {"residual-vibration": D[after] - statics.end,
                 "peak-deviation": (D - Dg)[during]}
    return MotionEvaluation(traj, res, metrics, t, D, dyn, histories)


def _violates(metrics, limits) -> str | None:
    if "effort" in limits and max(metrics["peak_effort"]) > limits["effort"]:
        return "effort"
    if "speed" in limits and max(metrics["peak_speed"]) > limits["speed"]:
        return "speed"
    return None


# ---------------------------------------------------------------------------- search
def pattern_search(evaluate, x0, *, step: float = 0.25, min_step: float = MIN_STEP,
                   budget: int = 60):
    """Compass search (module docstring) of ``evaluate(list of x) -> list of float``
    (inf: infeasible) from ``x0`` (K,).

    Returns
    -------
    (x (K,), f, history): the best point, its value, and the (x, f) of every evaluation
    in order.
    """
    x = np.asarray(x0, dtype=float)
    K = x.size
    f = evaluate([x])[0]
    history = [(x.copy(), f)]
    used = 1
    while step >= min_step and used < budget:
        cands = []
        for k in range(K):
            for sgn in (1.0, -1.0):
                c = x.copy()
                c[k] += sgn * step
                cands.append(c)
        cands = cands[:max(0, budget - used)]
        vals = evaluate(cands)
        used += len(cands)
        history += [(c.copy(), v) for c, v in zip(cands, vals)]
        best = int(np.argmin(vals)) if vals else 0
        if vals and vals[best] < f:
            x, f = cands[best], vals[best]
        else:
            step *= 0.5
    return x, f, history


class _BudgetSpent(Exception):
    pass


def least_squares_search(evaluate, x0, *, budget: int = 60, h: float = FD_STEP):
    """Gauss-Newton search (trust-region reflective, :func:`scipy.optimize.least_squares`)
    of a smooth surrogate of a max-norm objective: the sampled history whose largest norm
    the objective is (``evaluate(list of x) -> list of (vector or None, value)``; None:
    infeasible, value inf). The Jacobian by forward differences of step ``h`` (K
    evaluations as one batch; backward where the forward point is infeasible);
    infeasible points return a large residual, so that the trust region shrinks. Stops
    when the budget of evaluations is spent or the solver converges.

    Why: the residual vibration is the norm of a few modal amplitudes, each smooth in the
    time-law coefficients (a linear function of the excitation's spectrum near the
    modes); its minimum is a cone, where a compass search crawls, while Gauss-Newton on
    the amplitudes goes to their common zero in a few iterations (Nocedal & Wright 2006,
    ch. 10).

    Method ``dogbox`` (Voglis & Lagaris 2004): on an underdetermined test problem (6
    amplitudes, 8 coefficients) it reaches the zero to round-off in 45 evaluations where
    ``trf`` stalls at 1e-4 after 80 (tests/analysis/test_motion_design.py); ``lm`` refuses fewer
    residuals than variables.

    Returns (x (K,), value, history) like :func:`pattern_search`.
    """
    from scipy.optimize import least_squares
    x0 = np.asarray(x0, dtype=float)
    history = []
    state = {"best": (x0.copy(), math.inf), "n": None}

    def many(xs):
        if len(history) + len(xs) > budget:
            raise _BudgetSpent
        out = evaluate([np.asarray(x, dtype=float) for x in xs])
        for x, (vec, val) in zip(xs, out):
            history.append((np.array(x, dtype=float), val))
            if val < state["best"][1]:
                state["best"] = (np.array(x, dtype=float), val)
        return out

    first = many([x0])[0][0]
    if first is None:
        return x0, math.inf, history
    n = first.size
    big = np.full(n, 1e3 * (float(np.abs(first).max()) or 1.0))
    values = {tuple(x0.tolist()): first}

    def fun(x):
        k = tuple(np.asarray(x).tolist())
        if k not in values:
            vec = many([x])[0][0]
            values[k] = big if vec is None else vec
        return values[k]

    def jac(x):
        r0 = fun(x)
        pts = [x + h * e for e in np.eye(x.size)]
        out = many(pts)
        J = np.zeros((n, x.size))
        back = [k for k, (vec, _) in enumerate(out) if vec is None]
        for k, (vec, _) in enumerate(out):
            if vec is not None:
                J[:, k] = (vec - r0) / h
        if back:
            for k, (vec, _) in zip(back, many([x - h * np.eye(x.size)[k] for k in back])):
                if vec is not None:
                    J[:, k] = (r0 - vec) / h
        return J

    try:
        least_squares(fun, x0, jac=jac, method="dogbox", x_scale=1.0, ftol=1e-12,
                      xtol=1e-10, gtol=1e-14, max_nfev=budget)
    except _BudgetSpent:
        pass
    x, val = state["best"]
    return x, val, history


# ---------------------------------------------------------------------------- result
class PlanResult(Result):
    """Motion design (:func:`plan_motion`): the given law, the designed time law and the
    shaped motions at one cycle time."""

    def summary_lines(self) -> list[str]:
        """The title, one line per variant (residual vibration, peak deviation, peak
        effort and speed, path error), the shapers and the warnings."""
        s = self.summary
        lines = [self.title, f"  cycle time {s['cycle_time_s']:g} s, objective "
                 f"{s['objective']}, window {s['window_s']:.3g} s, {s['evaluations']} "
                 f"simulations; lowest mode at the final pose {s['shaper_frequency_hz']:.4g}"
                 " Hz"]
        if s.get("shortest_cycle_s", "absent") != "absent":
            lines.append(f"  shortest cycle <= {1e3 * s['max_residual_m']:g} mm inside "
                         f"validity: " + (f"{s['shortest_cycle_s']:g} s"
                                          if s["shortest_cycle_s"] is not None else "none"))
        lines.append("  variant    residual [mm]  peak deviation [mm]  peak effort  "
                     "peak speed  path error [mm]")
        for name, m in s["variants"].items():
            pe = m.get("path_error_m")
            lines.append(f"  {name:<10} {1e3 * m['residual_vibration_m']:>13.4g}  "
                         f"{1e3 * m['peak_deviation_m']:>19.4g}  "
                         f"{max(m['peak_effort']):>11.4g}  {max(m['peak_speed']):>10.4g}  "
                         + (f"{1e3 * pe:>15.4g}" if pe is not None and math.isfinite(pe)
                            else f"{'-':>15}"))
        for name, sh in s["shapers"].items():
            lines.append(f"  {name.upper()} shaper: delay {sh['delay_s']:.4g} s, "
                         f"amplitudes {', '.join(f'{a:.4g}' for a in sh['amplitudes'])}")
        if s.get("search_start") not in (None, "given"):
            lines.append(f"  time law searched from the {s['search_start'].upper()} shaped "
                         "progress (the best start)")
        lines.append(f"  improvement of the time law: {s['improvement']:.3g}x")
        for w in self.warnings:
            lines.append(f"  WARNING: {w}")
        return lines

    def figures(self) -> dict:
        from ..plot.figure import finish, new_figure
        q = self.quantities
        t = np.asarray(q["time_s"])
        out = {}
        fig, axes = new_figure(2, height=2.2)
        for name in q["variants"]:
            d = np.asarray(q[f"{name}_deviation_m"], dtype=float)
            axes[0].plot(t, 1e3 * d, lw=0.9, label=name)
        T = self.summary["cycle_time_s"]
        for ax in axes[:1]:
            ax.axvline(T, color="k", lw=0.6, ls=":")
        axes[0].set_ylabel("|D - D_g| [mm]\n(motion's part)")
        axes[0].set_title(self.title, fontsize=9)
        for name in q["variants"]:
            if f"{name}_path_speed" in q:
                axes[1].plot(t, q[f"{name}_path_speed"], lw=0.9, label=name)
        axes[1].axvline(T, color="k", lw=0.6, ls=":")
        axes[1].set_ylabel("speed along the path\n[" + ("m/s" if self.inputs.get(
            "space", "task") == "task" else "rad/s") + "]")
        out["plan"] = finish(fig, axes, xlabel="time [s]")
        if not q["shapers"]:
            return out
        fr = np.asarray(q["frequency_ratio"])
        fig, axes = new_figure(1, height=2.4)
        for name in q["shapers"]:
            axes[0].plot(fr, 100 * np.asarray(q[f"{name}_robustness"]), label=name.upper())
        f_path = np.asarray(q["path_frequencies_hz"], dtype=float)[:, 0] / \
            self.summary["shaper_frequency_hz"]
        axes[0].axvspan(f_path.min(), f_path.max(), color="0.85", zorder=0,
                        label="lowest mode along the path")
        axes[0].set_ylabel("residual vibration [%]")
        axes[0].set_title(f"{self.robot}: shaper robustness (design "
                          f"{self.summary['shaper_frequency_hz']:.4g} Hz)", fontsize=9)
        out["robustness"] = finish(fig, axes, xlabel="actual / design frequency [-]")
        return out


def _lowest_frequency(model, st) -> float:
    from .modes import modes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = modes(model, st, count=1)
    f = float(np.asarray(r.quantities["frequencies_hz"])[0])
    if not (math.isfinite(f) and f > 0):
        raise ModelError(f"lowest natural frequency at the final pose is {f} Hz: no "
                         "vibration to design against")
    return f


def _frequencies_along(model, base, count: int = 2, samples: int = 11) -> np.ndarray:
    """The lowest ``count`` frequencies [Hz] at ``samples`` poses along the base path
    (samples, count)."""
    from .modes import modes
    out = []
    for p in base.evaluate(np.linspace(base.t_start, base.t_end, samples)).position:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = modes(model, _rest_state(model, base, p), count=count)
        out.append(np.asarray(r.quantities["frequencies_hz"], dtype=float)[:count])
    return np.array(out)


def _joint_motion(model, traj, step: float):
    """The actuated motion of ``traj`` as a joint-space table (a task-space motion through
    the inverse kinematics at ``step``; quintic spline at rest at both ends)."""
    from ..trajectories.table import TableTrajectory
    if traj.space == "joint":
        return traj
    require(model, "inverse_kinematics", what="input shaping of a task-space motion")
    n = max(7, int(round((traj.t_end - traj.t_start) / step)) + 1)
    t = np.linspace(traj.t_start, traj.t_end, n)
    qa = np.array([model.inverse_kinematics(p) for p in traj.evaluate(t).position])
    return TableTrajectory(t, qa, space="joint", boundary="rest")


def _path_error(model, shaped, base_path, times) -> float:
    """Largest distance [m] of the rigid end-effector of a joint-space motion from the
    base path (a dense polyline of it)."""
    if base_path is None:
        return math.nan
    qa = shaped.evaluate(times).position
    pts = np.array([np.asarray(model.state(actuated=q).pose, dtype=float)[:base_path.shape[1]]
                    for q in qa])
    d = np.sqrt(((pts[:, None, :] - base_path[None, :, :]) ** 2).sum(-1)).min(axis=1)
    return float(d.max())


def plan_motion(model, trajectory, *, cycle_time: float | None = None,
                objective: str = "residual-vibration", limits=None,
                coefficients: int = 4, evaluations: int = 60, window: float | None = None,
                step: float | None = None, shapers=("zv", "zvd", "ei"), damping: float = 0.0,
                method: str | None = None, progress=None,
                robot: str | None = None, inputs: dict | None = None,
                search_model=None, search: str = "least-squares") -> PlanResult:
    """Design the time law of a rest-to-rest motion along its path, and compare with
    input shapers at the same cycle time (module docstring).

    Parameters
    ----------
    model : a flexible model (capability ``simulate_motion``)
    trajectory : Trajectory
        The given motion: rest to rest, continuous acceleration (its path is kept).
    cycle_time : float, optional
        T [s] > 0 of every motion compared (default: the given motion's duration).
    objective : {"residual-vibration", "peak-deviation"}
    limits : dict or str, optional
        ``{"effort": ..., "speed": ...}`` or ``"torque=2.5,speed=10"`` (:func:`parse_limits`).
    coefficients : int
        K, the number of time-law coefficients, 1..24.
    evaluations : int
        Budget of simulations of the search, >= 1 + 2K.
    window : float, optional
        Settling window after the motion [s] (default :data:`SETTLE_PERIODS` periods of
        the lowest mode at the final pose).
    step : float, optional
        Output step of the simulations [s] (and KED's Newmark step); default
        :data:`DEFAULT_STEP` or finer (1/20 of the motion and of the lowest period).
    shapers : sequence of {"zv", "zvd", "ei"}
        Shapers compared (empty: none).
    damping : float
        Damping ratio the shapers are designed for, in [0, 1) (the models are undamped
        unless given Rayleigh damping).
    search : {"least-squares", "compass"}
        The search (module docstring): Gauss-Newton on the sampled objective history,
        polished by a compass search on the objective itself with what is left of the
        budget (default), or the compass search alone.
    search_model : model, optional
        A cheaper model of the same robot on which the search runs (the KED about the
        undeformed pose for the default deflected one: 10x cheaper per simulation); the
        given and designed laws are then evaluated again on ``model``, whose numbers are
        the result (the search's in ``summary["search_model"]``).

    Returns
    -------
    PlanResult with the time law (``coefficients``), per variant (``given``,
    ``time-law`` and each shaper) the series ``<variant>_deviation_m`` (|D - D_g| on the
    common ``time_s``) and the metrics in ``summary["variants"]``; the shapers'
    robustness curves (``frequency_ratio``, ``<shaper>_robustness``) and delays; the
    frequencies along the path (``path_frequencies_hz``).
    """
    from ..trajectories.shaping import SHAPERS, PathShaped, Shaped, shaper as make_shaper
    from ..trajectories.timelaw import TimeWarped, check_rest_to_rest, speed_margin
    require(model, "simulate_motion", "state", what="plan")
    t0w = _time.perf_counter()
    if objective not in OBJECTIVES:
        raise InputError("--objective", objective, "one of " + ", ".join(OBJECTIVES))
    if search not in SEARCHES:
        raise InputError("--search", search, "one of " + ", ".join(SEARCHES))
    check_rest_to_rest(trajectory)
    T = trajectory.duration if cycle_time is None else cycle_time
    if isinstance(T, bool) or not isinstance(T, (int, float)) or not (
            math.isfinite(T) and T > 0):
        raise InputError("--cycle-time", cycle_time, "a time > 0 [s]")
    T = float(T)
    if isinstance(coefficients, bool) or not isinstance(coefficients, (int, np.integer)) \
            or not 1 <= coefficients <= 24:
        raise InputError("--coefficients", coefficients, "an integer in [1, 24]")
    if isinstance(evaluations, bool) or not isinstance(evaluations, (int, np.integer)) or \
            evaluations < 1 + 2 * coefficients:
        raise InputError("--evaluations", evaluations,
                         f"an integer >= {1 + 2 * coefficients} (1 + 2 K)")
    if step is not None and not (isinstance(step, (int, float)) and math.isfinite(step)
                                 and 0 < step <= T / 20):
        raise InputError("--step", step, f"an output step in (0, {T / 20:g}] s (at least "
                         "20 samples per motion)")
    shapers = tuple(shapers or ())
    for s in shapers:
        if s not in SHAPERS:
            raise InputError("--shapers", s, "shapers among " + ", ".join(SHAPERS))
    lim = parse_limits(limits)

    end_state = _rest_state(model, trajectory,
                            trajectory.evaluate([trajectory.t_end]).position[0])
    f1 = _lowest_frequency(model, end_state)
    if step is None:      # default: 2 ms, finer where the motion or the mode needs it
        step = min(DEFAULT_STEP, T / 20, 1.0 / (STEPS_PER_PERIOD * f1))
    if step > 1.0 / (STEPS_PER_PERIOD * f1):
        raise InputError("--step", step, f"at most {1.0 / (STEPS_PER_PERIOD * f1):.3g} s "
                         f"({STEPS_PER_PERIOD} steps per period of the lowest mode, "
                         f"{f1:.4g} Hz at the final pose)")
    try:
        designed_shapers = {name: make_shaper(name, f1, damping) for name in shapers}
    except InputError as exc:
        if exc.name == "damping":
            raise InputError("--damping", damping, str(exc).split("allowed: ", 1)[-1]) \
                from None
        raise
    W = SETTLE_PERIODS / f1 if window is None else window
    if not (isinstance(W, (int, float)) and math.isfinite(W) and W >= step):
        raise InputError("--window", window, f"a settling window >= the step {step:g} s")
    statics = PathStatics(model, trajectory)
    searcher = model if search_model is None else search_model
    s_statics = statics if search_model is None else PathStatics(search_model, trajectory)
    key = "residual_vibration_m" if objective == "residual-vibration" else \
        "peak_deviation_m"

    notes = []
    # shaped progress along the path (path kept): the frequency-aware starts of the search
    law_shaped = {}
    for name in shapers:
        sh = designed_shapers[name]
        if sh.delay >= T:
            notes.append(f"{name.upper()} shaper: its delay {sh.delay:.3g} s is not "
                         f"shorter than the cycle time {T:g} s (not compared)")
            continue
        try:
            law_shaped[name] = PathShaped(trajectory, sh, cycle_time=T)
        except InputError as exc:
            notes.append(f"{name.upper()} shaper on the time law: not applied ({exc})")

    def law(c, start):
        """The time law c on the start ``start`` at T, and its base-time map."""
        if start == "given":
            tw = TimeWarped(trajectory, c, cycle_time=T)
            return tw, tw.base_time
        ps = law_shaped[start]
        tw = TimeWarped(ps, c, cycle_time=T)
        return tw, (lambda t: ps.base_time(tw.base_time(t)))

    cache = {}
    done = [0]
    total = evaluations + 1 + 2 * len(shapers)

    def tick():
        done[0] += 1
        if progress is not None:
            progress(min(done[0], total), total)

    def run(c, start="given", on=None):
        c = np.round(np.asarray(c, dtype=float), 12)
        k = (start, tuple(c.tolist()), on is None)
        if k not in cache:
            if speed_margin(c) < MIN_SPEED:
                cache[k] = None
            else:
                tw, bt = law(c, start)
                try:
                    cache[k] = evaluate_motion(searcher if on is None else on, tw,
                                               window=W, step=step,
                                               statics=s_statics if on is None else statics,
                                               base_time=bt, method=method)
                except ModelError:
                    cache[k] = None      # the model cannot follow it: infeasible
            tick()
        return cache[k]

    def score(ev):
        if ev is None or _violates(ev.metrics, lim):
            return math.inf
        return ev.metrics[key]

    c0 = np.zeros(coefficients)
    given = run(c0)
    if given is None:
        raise ModelError("the given motion cannot be simulated at this cycle time")
    # the search starts from the best of the given law and the shaped progresses
    start_scores = {s: score(run(c0, s)) for s in ("given", *law_shaped)}
    start = min(start_scores, key=lambda s: (start_scores[s], s != "given"))
    def scores(xs):
        return [score(run(xx, start)) for xx in xs]

    def pairs(xs):
        out = []
        for xx in xs:
            ev = run(xx, start)
            val = score(ev)
            out.append((ev.histories[objective].ravel() if math.isfinite(val) else None,
                        val))
        return out

    if search == "least-squares":
        x, fbest, history = least_squares_search(pairs, c0, budget=evaluations)
        left = evaluations - len(history)
        if left >= 1 + 2 * coefficients:      # polish the max-norm objective itself
            x2, f2, more = pattern_search(scores, x, step=POLISH_STEP, budget=left)
            history += more
            if f2 < fbest:
                x, fbest = x2, f2
    else:
        x, fbest, history = pattern_search(scores, c0, budget=evaluations)
    designed = run(x, start)
    if not math.isfinite(fbest):
        raise InputError("--limits", limits, "limits some time law of this path and "
                         "cycle time satisfies (the given law and every candidate "
                         "violate them)")

    search_summary = None
    if search_model is not None:
        # the search's two laws evaluated again on the model of the result
        search_summary = {"formulation": search_model.formulation,
                          "options": dict(search_model.options),
                          "given": {m: v for m, v in given.metrics.items()
                                    if m != "warnings"},
                          "time-law": {m: v for m, v in designed.metrics.items()
                                       if m != "warnings"}}
        given = run(c0, "given", model)
        if given is None:
            raise ModelError("the given motion cannot be simulated on the model of the "
                             "result at this cycle time")

        def pairs_on(st):
            def f(xs):
                out = []
                for xx in xs:
                    ev = run(xx, st, model)
                    val = score(ev)
                    out.append((ev.histories[objective].ravel() if math.isfinite(val)
                                else None, val))
                return out
            return f

        # refined on the model itself: a few Gauss-Newton iterations from the search's
        # law (the two models' responses differ most where the motion is fast)
        refine = 1 + REFINE_ITERATIONS * (coefficients + 1)
        xr, fr_, hr = least_squares_search(pairs_on(start), x, budget=refine)
        if not math.isfinite(fr_) and start != "given":
            notes.append(f"the law designed on the search model cannot be simulated on "
                         f"the model of the result: refined from the given law")
            start = "given"
            xr, fr_, hr = least_squares_search(pairs_on(start), c0, budget=refine)
        search_summary["refine_evaluations"] = len(hr)
        if fr_ < score(given):
            x, designed = xr, run(xr, start, model)
        else:
            notes.append("no law found on the search model improves the given one on "
                         "the model of the result: the given law kept")
            x, start, designed = c0, "given", given
    variants = {"given": given, "time-law": designed}
    shaper_info = {}
    fr = np.linspace(0.5, 1.5, 201)
    robust = {}
    if shapers:
        jm = _joint_motion(model, trajectory, step)
        dense = None
        if trajectory.space == "task":
            dense = trajectory.evaluate(np.linspace(trajectory.t_start, trajectory.t_end,
                                                    2001)).position
        for name in shapers:
            sh = designed_shapers[name]
            if sh.delay >= T:
                continue
            base = TimeWarped(trajectory, c0, cycle_time=T - sh.delay) if \
                trajectory.space == "joint" else None
            if base is None:
                from ..trajectories.table import TableTrajectory
                tq = jm.time
                scale = (T - sh.delay) / (tq[-1] - tq[0])
                base = TableTrajectory(tq[0] + (tq - tq[0]) * scale, jm.position,
                                       space="joint", boundary="rest")
            shaped = Shaped(base, sh)
            tw_scale = trajectory.duration / (T - sh.delay)

            def shaped_base_time(t, s=trajectory.t_start, k=tw_scale):
                return s + np.clip(t - s, 0.0, None) * k

            try:
                ev = evaluate_motion(model, shaped, window=W, step=step, statics=statics,
                                     base_time=shaped_base_time, method=method)
            except ModelError as exc:
                ev = None
                notes.append(f"{name.upper()}: not simulated ({exc})")
            tick()
            if ev is not None:
                ev.metrics["path_error_m"] = _path_error(
                    model, shaped, dense, np.linspace(shaped.t_start, shaped.t_end, 201))
                variants[name] = ev
            if name in law_shaped:
                ev = run(c0, name, None if search_model is None else model)
                if ev is not None:
                    variants[f"{name}-law"] = ev
                else:
                    notes.append(f"{name.upper()}-LAW: the model cannot follow it "
                                 "(refused by the model)")
            shaper_info[name] = sh.to_dict()
            for v in (name, f"{name}-law"):
                if v in variants and _violates(variants[v].metrics, lim):
                    notes.append(f"{v.upper()}: violates the "
                                 f"{_violates(variants[v].metrics, lim)} limit")
            robust[name] = sh.vibration(fr * f1)
    # a common time grid for the series
    t_common = given.time
    q = {"time_s": t_common, "variants": list(variants),
         "coefficients": np.asarray(x, dtype=float)}
    for name, ev in variants.items():
        q[f"{name}_deviation_m"] = np.interp(t_common, ev.time, ev.dynamic)
        if name == "given" or name == "time-law" or name.endswith("-law"):
            # speed along the path [m/s or rad/s, the trajectory's coordinates]
            q[f"{name}_path_speed"] = np.linalg.norm(ev.trajectory.evaluate(
                np.minimum(t_common + trajectory.t_start, ev.trajectory.t_end)).velocity,
                axis=1)
    q["frequency_ratio"] = fr
    q["shapers"] = list(robust)
    for name, v in robust.items():
        q[f"{name}_robustness"] = v
    q["path_frequencies_hz"] = _frequencies_along(model, trajectory)
    q["search_values"] = np.array([h[1] for h in history])
    summary = {"search_model": search_summary, "search_start": start,
               "start_values": start_scores,
               "cycle_time_s": T, "objective": objective,
               "shaper_frequency_hz": f1, "window_s": W,
               "evaluations": done[0], "search_evaluations": len(history),
               "variants": {k: {m: v for m, v in ev.metrics.items() if m != "warnings"}
                            for k, ev in variants.items()},
               "shapers": shaper_info}
    g, d = given.metrics[key], designed.metrics[key]
    summary["improvement"] = (g / d) if d > 0 else math.inf
    warns = list(notes)
    said = {}                 # the same warning of several variants: said once, for all
    for name, ev in variants.items():
        for w in ev.metrics["warnings"]:
            said.setdefault(w, []).append(name)
    warns += [f"{', '.join(names)}: {w}" for w, names in said.items()]
    if _violates(given.metrics, lim):
        warns.append(f"the given law violates the {_violates(given.metrics, lim)} limit")
    name = robot or model.robot.name
    title = (f"{name}: motion design ({model.formulation}, cycle {T:g} s, objective "
             f"{objective}: {1e3 * g:.4g} -> {1e3 * d:.4g} mm)")
    inputs = {**(inputs or {}), "cycle_time_s": T, "objective": objective, "limits": lim,
              "coefficients": int(coefficients), "evaluations": int(evaluations),
              "window_s": W, "step_s": step, "shapers": list(shapers),
              "space": trajectory.space,
              "damping": damping, "search": search}
    return PlanResult(command="plan", robot=name, formulation=model.formulation,
                      model=dict(model.options), inputs=inputs, quantities=q, summary=summary,
                      warnings=tuple(warns), run={"wall_time_s": _time.perf_counter() - t0w},
                      columns={}, index="time_s", stem="plan", title=title)


def designed_trajectory(result, trajectory):
    """The designed motion of a :func:`plan_motion` result as a trajectory: the warp
    ``coefficients`` on the start law the search began from (``summary["search_start"]``:
    the given law at the cycle time, or the path with the progress shaped by that shaper,
    rebuilt from its recorded amplitudes and times). ``trajectory``: the given motion
    the plan was made for."""
    from ..trajectories.shaping import PathShaped, Shaper
    from ..trajectories.timelaw import TimeWarped
    s = result.summary
    T = s["cycle_time_s"]
    start = s.get("search_start") or "given"
    base = trajectory
    if start != "given":
        sh = s["shapers"][start]
        base = PathShaped(trajectory, Shaper(sh["amplitudes"], sh["times_s"], sh["kind"],
                                             sh["frequency_hz"], sh["damping"]),
                          cycle_time=T)
    return TimeWarped(base, np.asarray(result.quantities["coefficients"], dtype=float),
                      cycle_time=T)


# ---------------------------------------------------------------------------- compensation
COMPENSATION_MODES = ("quasi-static", "dynamic")
LEARNING_CUTOFF = 0.25
"""Dynamic compensation: the simulated error is low-passed (2nd-order Butterworth, zero
phase) at this fraction of the lowest natural frequency before it corrects the command:
fed back unfiltered, the vibration it contains is amplified from one iteration to the
next (the update has a phase lag of 90 degrees and more near and above resonance,
where a learning update diverges; Bristow, Tharayil & Alleyne 2006, IEEE Control Syst.
Mag. 26(3), section on Q-filters)."""
MAX_SAMPLES = 5000
"""Most instants of a compensation (each costs a static solution per sweep)."""
MAX_CORRECTION = 0.5
"""Largest Gauss-Newton step of a compensated actuated coordinate [rad or m]: a larger one
means the deflection cannot be compensated by moving the actuators there."""
MAX_SWEEPS = 12
SWEEP_TOL = 1e-8
"""The quasi-static fixed point X_c = X_d - D(X_c) is iterated until the command changes by
less than this [m] (1e-8 m: far below any error a model resolves), at most MAX_SWEEPS
times (each sweep gains the factor |dD/dX| ~ D / L)."""


def flexible_end_effector(result):
    """(time (n,) [s], X (n, 3) [m]): the flexible robot's end-effector position along a
    motion-driven simulation (a Delta: the platform centre)."""
    q = result.quantities
    t = np.asarray(q["time_s"], dtype=float)
    if "ee_position_m" in q:
        return t, _xyz(result, "ee_position_m")
    raise InputError("--formulation", result.formulation, "a formulation whose motion-"
                     "driven simulation reports the end-effector position")


class CompensationResult(Result):
    """Deflection compensation (:func:`compensate_motion`): the end-effector error along
    the motion without and with the compensated command."""

    def figures(self) -> dict:
        from ..plot.figure import finish, new_figure, plain_log_ticks, z_down
        q = self.quantities
        t = np.asarray(q["time_s"])
        down = z_down(self.inputs.get("gravity_m_s2"))
        fig, axes = new_figure(2, height=2.2)
        axes[0].plot(t, 1e3 * np.asarray(q["error_nominal_m"]), label="nominal command")
        axes[0].plot(t, 1e3 * np.asarray(q["error_compensated_m"]), label="compensated")
        axes[0].set_ylabel("end-effector error\n|X - X_d| [mm]")
        axes[0].set_yscale("log")
        plain_log_ticks(axes[0].yaxis)
        axes[0].set_title(self.title, fontsize=9)
        c = np.asarray(q["correction"])
        for k in range(c.shape[1]):
            axes[1].plot(np.asarray(q["sample_time_s"]), c[:, k] * (1e3 if q[
                "correction_unit"] == "m" else 1.0), label=q["correction_names"][k]
                + (" (Z down)" if down and q["correction_names"][k] == "dZ" else ""))
        axes[1].set_ylabel("command correction\n[" + ("mm" if q["correction_unit"] == "m"
                                                      else "rad or m") + "]")
        return {"compensation": finish(fig, axes, xlabel="time [s]")}


def _command_states(model, traj, t):
    """States of the nominal motion at times t: poses (task) or actuated coordinates
    (joint), with their rates and accelerations."""
    smp = traj.evaluate(t)
    key = "pose" if traj.space == "task" else "actuated"
    return smp, [model.state(**{key: p}, rates=v, accelerations=a)
                 for p, v, a in zip(smp.position, smp.velocity, smp.acceleration)]


def _rigid_ee(model, st, dim):
    return _pad3(np.asarray(st.pose, dtype=float).reshape(1, -1)[:, :dim])[0]


def compensate_motion(model, trajectory, *, mode: str = "quasi-static",
                      duration: float | None = None, step: float = 1e-3,
                      samples: int | None = None, iterations: int | None = None,
                      method: str | None = None, robot: str | None = None,
                      inputs: dict | None = None) -> CompensationResult:
    """Actuator commands that put the deflected end-effector on the desired path.

    Quasi-static: at ``samples`` instants of the motion the end-effector deflection under
    the loads of the state (``static_end_effector_deflection``: gravity, and for the KED
    the d'Alembert loads of the rigid motion too) is computed at the commanded pose and
    the command moved against it, X_c = X_d - D(X_c) (fixed-point iteration, 3 sweeps:
    the deflection changes with the pose by O(D / L), so each sweep gains that factor);
    a robot without inverse kinematics is corrected in its actuated coordinates by
    Gauss-Newton on FK(q) + D(q) = X_d (J by central differences of the rigid forward
    kinematics). The corrections are joined by a quintic spline in time.
    Dynamic: the quasi-static command, then ``iterations`` (default 3) corrections by the
    end-effector error the motion-driven simulation of the current command leaves
    (e_k(t) = X_k(t) - X_d(t); X_c <- X_c - e_k, sampled at the same instants): the
    motion-driven simulation is the formulation's inverse problem (Briot & Khalil 2013
    IV-D: efforts and elastic accelerations for the prescribed actuated motion), so this
    refines the command by the model's own dynamics; the best iterate is kept.

    Returns
    -------
    CompensationResult: ``time_s``, the desired end-effector path ``desired_m`` (n, 3),
    the errors |X - X_d| without (``error_nominal_m``) and with compensation
    (``error_compensated_m``) (n,), the correction at the samples; summary: the peak and
    RMS errors and their ratio.
    """
    from ..trajectories.table import TableTrajectory
    from .simulate import simulate_motion
    from .workspace import static_end_effector_deflection
    require(model, "simulate_motion", "state", "static_deflection", what="compensate")
    t0w = _time.perf_counter()
    if mode not in COMPENSATION_MODES:
        raise InputError("--mode", mode, "one of " + ", ".join(COMPENSATION_MODES))
    if iterations is not None and mode != "dynamic":
        raise InputError("--iterations", iterations, "only with --mode dynamic")
    iterations = 3 if iterations is None else iterations
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or \
            not 1 <= iterations <= 20:
        raise InputError("--iterations", iterations, "an integer in [1, 20]")
    T = (trajectory.period if trajectory.period is not None else trajectory.duration) \
        if duration is None else float(duration)
    if not (math.isfinite(T) and T > 0):
        raise InputError("--duration", duration, "a time window > 0 [s]")
    if not (isinstance(step, (int, float)) and math.isfinite(step) and 0 < step <= T / 20):
        raise InputError("--step", step, f"an output step in (0, {T / 20:g}] s")
    T = step * round(T / step)
    most = min(MAX_SAMPLES, int(round(T / step)) + 1)    # at most one per output step
    n_s = min(most, max(21, int(round(T / step / 10)) + 1)) if samples is None else samples
    if isinstance(n_s, bool) or not isinstance(n_s, (int, np.integer)) or \
            not 7 <= n_s <= most:
        raise InputError("--samples", samples, f"an integer in [7, {most}] (at most one "
                         f"per output step, and {MAX_SAMPLES})")
    ts = trajectory.t_start + np.linspace(0.0, T, n_s)
    smp, states = _command_states(model, trajectory, ts)
    st0 = states[0]
    from .workspace import position_components
    pos = position_components(model, st0)
    Xd = np.array([_pad3(np.asarray(s.pose, dtype=float)[pos][None])[0] for s in states]) \
        if trajectory.space == "joint" else _pad3(smp.position)
    task = trajectory.space == "task" and "inverse_kinematics" in model.capabilities
    dim = trajectory.dim           # a planar robot's task poses are (x, y): padded to 3 here

    def deflection(st):
        return _pad3(static_end_effector_deflection(model, st, inertial=True)[None])[0]

    sweeps = 0
    if task:
        Xc = Xd.copy()
        for sweeps in range(1, MAX_SWEEPS + 1):
            D = np.array([deflection(model.state(pose=x[:dim], rates=v, accelerations=a))
                          for x, v, a in zip(Xc, smp.velocity, smp.acceleration)])
            change = np.abs(Xd - D - Xc).max()
            Xc = Xd - D
            if not np.all(np.isfinite(Xc)):
                raise ModelError("compensation: the deflection at the commanded poses is "
                                 "not finite")
            if change <= SWEEP_TOL:
                break
        else:
            if change > 1e-3 * max(1e-6, float(np.abs(D).max())):
                raise ModelError(f"compensation: the commanded poses did not settle in "
                                 f"{MAX_SWEEPS} sweeps (last change {change:.3g} m: the "
                                 "deflection changes with the pose as fast as the pose)")
        command = Xc
        names = ["dX", "dY", "dZ"]
        unit = "m"
    else:
        qa = np.array([s.actuated for s in states]) if trajectory.space == "joint" else \
            None
        if qa is None:
            raise InputError("--trajectory", "task", "a joint-space motion for a robot "
                             "without inverse kinematics")
        q = qa.copy()
        scale = max(1e-3, float(np.abs(Xd).max()))
        for k in range(n_s):
            for sweeps in range(1, MAX_SWEEPS + 1):
                st = model.state(actuated=q[k], rates=smp.velocity[k],
                                 accelerations=smp.acceleration[k])
                f = _pad3(np.asarray(st.pose, dtype=float)[pos][None])[0] + deflection(st) \
                    - Xd[k]
                if np.max(np.abs(f)) <= SWEEP_TOL:
                    break
                dq = np.linalg.lstsq(_jac(model, q[k], pos), f, rcond=None)[0]
                if not np.all(np.isfinite(dq)) or np.max(np.abs(dq)) > MAX_CORRECTION:
                    raise ModelError(f"compensation: no command puts the deflected "
                                     f"end-effector on the path at t = {ts[k]:.4g} s (the "
                                     f"correction grows past {MAX_CORRECTION} rad or m: "
                                     "deflection too large, or a singular pose)")
                q[k] = q[k] - dq
            else:
                raise ModelError(f"compensation: the correction at t = {ts[k]:.4g} s did "
                                 f"not converge in {MAX_SWEEPS} Gauss-Newton steps "
                                 f"(residual {np.max(np.abs(f)):.3g} m; scale {scale:.3g} m)")
        command = q
        names = list(model.coordinates.actuated)
        unit = "rad or m"
    nominal_cmd = Xd if task else np.array([s.actuated for s in states])

    def table(cmd):
        return TableTrajectory(ts, cmd[:, :dim] if task else cmd,
                               space="task" if task else "joint")

    desired_at = {}

    def run(traj):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = simulate_motion(model, traj, duration=T, step=step, method=method,
                                step_error=False)
        t, X = flexible_end_effector(r)
        if "X" not in desired_at:          # every run has the same output times
            desired_at["X"] = _desired(t + trajectory.t_start)
        return r, t, np.linalg.norm(X - desired_at["X"], axis=1), X

    def _desired(t_abs):
        s = trajectory.evaluate(t_abs)
        if trajectory.space == "task":
            return _pad3(s.position)
        return np.array([_pad3(np.asarray(model.state(actuated=p).pose, dtype=float)[pos]
                               [None])[0] for p in s.position])

    r0, t, e0, _ = run(trajectory)
    cmd = command
    r1, _, e1, X1 = run(table(cmd))
    history = [float(e1.max())]
    if mode == "dynamic":
        from scipy.signal import butter, filtfilt
        f1 = _lowest_frequency(model, model.state(
            **{("pose" if trajectory.space == "task" else "actuated"): smp.position[0]}))
        fs = 1.0 / (ts[1] - ts[0])
        cut = min(LEARNING_CUTOFF * f1, 0.45 * fs)
        b, a_ = butter(2, cut / (0.5 * fs))
        best = (e1.max(), cmd, r1, e1)
        for _ in range(iterations):
            err = np.array([np.interp(ts - trajectory.t_start, t, X1[:, k])
                            for k in range(3)]).T - Xd
            # zero-phase low-pass: the slow error the command can remove, not the
            # vibration it would feed back (module docstring)
            err = filtfilt(b, a_, err, axis=0, padlen=min(3 * max(len(a_), len(b)),
                                                          len(err) - 1))
            if task:
                cmd = cmd - err
            else:
                cmd = cmd - np.array([np.linalg.lstsq(_jac(model, c, pos), e, rcond=None)[0]
                                      for c, e in zip(cmd, err)])
            r1, _, e1, X1 = run(table(cmd))
            history.append(float(e1.max()))
            if e1.max() < best[0]:
                best = (e1.max(), cmd, r1, e1)
        _, cmd, r1, e1 = best
    corr = cmd - nominal_cmd
    q = {"time_s": t, "desired_m": desired_at["X"],
         "error_nominal_m": e0, "error_compensated_m": e1,
         "sample_time_s": ts, "correction": corr, "correction_names": names,
         "correction_unit": unit, "commanded": cmd}
    rms0, rms1 = float(np.sqrt(np.mean(e0 ** 2))), float(np.sqrt(np.mean(e1 ** 2)))
    summary = {"mode": mode, "peak_error_nominal_m": float(e0.max()),
               "peak_error_compensated_m": float(e1.max()),
               "rms_error_nominal_m": rms0, "rms_error_compensated_m": rms1,
               "reduction": float(e0.max() / e1.max()) if e1.max() > 0 else math.inf,
               "samples": int(n_s)}
    if mode == "dynamic":
        summary["peak_error_per_iteration_m"] = history
    if not (np.all(np.isfinite(e1)) and np.all(np.isfinite(cmd))):
        raise ModelError("compensation: the compensated motion's error is not finite")
    warns = [f"nominal: {w}" for w in r0.warnings] + [f"compensated: {w}"
                                                     for w in r1.warnings]
    if e1.max() >= e0.max():
        warns.insert(0, f"the {mode} compensation does not reduce the peak error "
                        f"({1e3 * e0.max():.4g} -> {1e3 * e1.max():.4g} mm): the error of "
                        "this motion is dynamic (vibration), not the deflection the "
                        "compensation corrects")
    name = robot or model.robot.name
    title = (f"{name}: {mode} deflection compensation ({model.formulation}; peak error "
             f"{1e3 * e0.max():.4g} -> {1e3 * e1.max():.4g} mm)")
    from ..description.convert import gravity_vector
    inputs = {**(inputs or {}), "mode": mode, "duration_s": T, "step_s": step,
              "samples": int(n_s), "gravity_m_s2": gravity_vector(model.robot),
              "iterations": iterations if mode == "dynamic" else None}
    return CompensationResult(command="compensate", robot=name, formulation=model.formulation,
                              model=dict(model.options), inputs=inputs, quantities=q,
                              summary=summary, warnings=tuple(warns),
                              run={"wall_time_s": _time.perf_counter() - t0w},
                              columns={"desired_m": ["x_d_m", "y_d_m", "z_d_m"]},
                              index="time_s", stem="compensation", title=title)


def _jac(model, q, pos):
    """d(end-effector position)/d(actuated coordinates) (3, n_a) of the rigid forward
    kinematics at q, by central differences (error O(h^2) with h = 1e-7 max(1, |q_j|))."""
    J = np.empty((3, len(q)))
    for j in range(len(q)):
        h = 1e-7 * max(1.0, abs(q[j]))
        up, dn = np.array(q, dtype=float), np.array(q, dtype=float)
        up[j] += h
        dn[j] -= h
        J[:, j] = (_pad3(np.asarray(model.state(actuated=up).pose)[pos][None])[0]
                   - _pad3(np.asarray(model.state(actuated=dn).pose)[pos][None])[0]) / (2 * h)
    return J


# ---------------------------------------------------------------------------- cycle scan
DEFAULT_CYCLE_FACTORS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
"""Cycle times scanned by :func:`shortest_cycle` without ``cycle_times``: these multiples
of the given motion's duration."""


def shortest_cycle(model, trajectory, *, max_residual: float, cycle_times=None,
                   **kwargs) -> PlanResult:
    """The shortest cycle time at which a designed time law leaves at most
    ``max_residual`` [m] of residual vibration, the simulation inside the model's
    validity range (no warning of the model about its own error).

    Parameters
    ----------
    max_residual : float
        Largest acceptable residual vibration amplitude [m] > 0.
    cycle_times : sequence of float, optional
        Candidate cycle times [s] > 0, scanned in increasing order (at most 50; default
        :data:`DEFAULT_CYCLE_FACTORS` times the given motion's duration).
    **kwargs
        As :func:`plan_motion` (not ``cycle_time`` nor ``objective``: the objective is
        the residual vibration).

    Returns
    -------
    PlanResult of :func:`plan_motion` at the shortest cycle found (or at the longest
    scanned, with a warning, when none qualifies), with the scan: ``scan_cycle_time_s``,
    ``scan_residual_given_m``, ``scan_residual_designed_m`` (n,), ``scan_valid`` (n,)
    (the scan stops at the first qualifying cycle), and ``summary["shortest_cycle_s"]``
    (None when none qualifies).
    """
    import dataclasses
    for key in ("cycle_time", "objective"):
        if key in kwargs:
            raise InputError(f"--{key.replace('_', '-')}", kwargs[key],
                             "not with --max-residual (the scan sets the cycle time and "
                             "minimizes the residual vibration)")
    if isinstance(max_residual, bool) or not isinstance(max_residual, (int, float)) or \
            not (math.isfinite(max_residual) and max_residual > 0):
        raise InputError("--max-residual", max_residual, "a residual amplitude > 0 [m]")
    from ..trajectories.timelaw import check_rest_to_rest
    check_rest_to_rest(trajectory)
    if cycle_times is None:
        cycle_times = [f * trajectory.duration for f in DEFAULT_CYCLE_FACTORS]
    try:
        ts = sorted(float(t) for t in cycle_times)
    except (TypeError, ValueError):
        raise InputError("--cycle-times", cycle_times, "cycle times [s] > 0") from None
    if not ts or len(ts) > 50 or not all(math.isfinite(t) and t > 0 for t in ts):
        raise InputError("--cycle-times", cycle_times, "1 to 50 cycle times [s] > 0")
    shapers = kwargs.pop("shapers", ("zv", "zvd", "ei"))
    rows, chosen = [], None
    for T in ts:
        r = plan_motion(model, trajectory, cycle_time=T, shapers=(), **kwargs)
        v = r.summary["variants"]
        # a warning of the designed law (its variants named before the first ": ")
        valid = not any("time-law" in w.split(": ", 1)[0].split(", ")
                        for w in r.warnings if ": " in w)
        rows.append((T, v["given"]["residual_vibration_m"],
                     v["time-law"]["residual_vibration_m"], valid))
        if valid and v["time-law"]["residual_vibration_m"] <= max_residual:
            chosen = T
            break
    T = chosen if chosen is not None else ts[-1]
    final = plan_motion(model, trajectory, cycle_time=T, shapers=shapers, **kwargs)
    arr = np.array(rows, dtype=float)
    q = {**final.quantities, "scan_cycle_time_s": arr[:, 0],
         "scan_residual_given_m": arr[:, 1], "scan_residual_designed_m": arr[:, 2],
         "scan_valid": arr[:, 3].astype(bool)}
    summary = {**final.summary, "shortest_cycle_s": chosen,
               "max_residual_m": float(max_residual)}
    warns = list(final.warnings)
    if chosen is None:
        warns.insert(0, f"no scanned cycle time up to {ts[-1]:g} s leaves at most "
                        f"{1e3 * max_residual:g} mm inside the model's validity: the "
                        "result is the design at the longest")
    inputs = {**final.inputs, "max_residual_m": float(max_residual),
              "cycle_times_s": ts}
    title = final.title + (f"; shortest cycle <= {1e3 * max_residual:g} mm: {chosen:g} s"
                           if chosen is not None else "; no cycle qualifies")
    return dataclasses.replace(final, quantities=q, summary=summary, warnings=tuple(warns),
                               inputs=inputs, title=title)
