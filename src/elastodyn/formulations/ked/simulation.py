"""Analyses of the flexible Delta by KED (Kuo 2016 section 5).

(The natural frequencies along a path, Fig. 4, are the ``map`` verb's, for every
formulation: :func:`elastodyn.analysis.modes.frequency_map` over this model's batched
``rest_matrices``.)

* :func:`simulate_ked`: the linear time-varying KED equations along a trajectory, by
  Newmark's method with a constant step (sections 5.3-5.4) or an adaptive Runge-Kutta
  method (for checking), with the end-effector position and attitude variations, the
  actuator torques and the link displacements at half length (Figs. 5-11, 14-16).

Validity of the linear model
----------------------------
KED superposes small elastic displacements on a reference and is linear in them. Two
checks, both reported in every simulation (``model_error``, ``max_displacement_ratio``,
``max_rotation_rad``) and a warning (:class:`KEDValidityWarning`, the simulation's
``validity_warning``) when either fails:

1. **Small deformations**: the largest elastic displacement of any link node relative to
   that link's length above ``MAX_DISPLACEMENT_RATIO`` = 0.1, or the largest elastic
   rotation (of any node or of the platform) above ``MAX_ROTATION_RAD`` = 0.1 rad. The
   neglected geometric nonlinearity of a beam is of relative order theta^2 (about 1 % at
   0.1 rad) and a cantilever whose tip turns by theta deflects by about 2/3 theta L, so
   the two limits are of the same order; past them the numbers describe the
   linearization, not the robot (Kuo's 0.8 s pick-and-place: about 0.1 m swings).

2. **An estimate of the model error** (:func:`model_error_estimate`), from the model
   itself, against ``MODEL_ERROR_LIMIT`` = 5 % of the peak platform deviation:

   * ``frequency_change``: the largest relative change of the first four natural
     frequencies at the first pose between the undeformed and the deflected references
     (the first-order effect of the sag; 4 % on the sideways modes of Kuo's 5 mm Delta);
   * the frequency error that accumulates over the run: that change itself for the
     undeformed reference (a first-order error), plus for both references the mean
     shift of a vibration of amplitude a about the reference, whose stiffness varies at
     first order with the configuration (a quadratic nonlinearity: 5/12 (change a /
     sag)^2, Nayfeh & Mook 1979, sec. 4.1), and the beams' own geometric nonlinearity
     of the vibration, (a / L)^2 (L the shorter link);
   * over the run of duration T, an undamped vibration at frequency f drifts in phase
     by 2 pi f T times that error, and its phase is modulated by change x a / sag
     (bounded); the response error is estimated as (a / peak deviation) x min(2, drift
     + modulation) + the frequency error (the quasi-static part scales as the
     stiffness).

   Thresholds from the comparison with an independent geometrically exact simulation
   of Kuo's Delta (5 mm links, the ramped 5 s circle of section 5.3, issue 15): the
   undeformed reference was 12 % (x) and 22 % (y) off in the plane; this estimate gives
   it about that (and the difference between the two references is 11 % and 22 %),
   and gives the deflected reference, whose frequencies at rest agree with an
   independent geometrically exact model to 1e-6 after mesh extrapolation and 1e-4 at
   4 elements (tests/formulations/ked/test_ked_deflected.py), well under 5 %.

Initial conditions
------------------
``initial="static"`` (default) starts from the static deflection under gravity at the
first pose, at rest in the elastic variables; ``"zero"`` starts from zero elastic
variables, which releases the whole gravity sag at t = 0 as an undamped vibration of
several centimetres. Kuo's section 5.3 reports "a small variation along the positive
z-axial direction" due to gravity: the sag is part of his variations and no
gravity-release transient shows, which is the static start (the variations are measured
from the rigid pose, so they include the sag).
"""
from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field, fields

import numpy as np

from ..._validate import choice, positive
from ...description.delta import DeltaMasses, RigidDelta
from ...description.flexible_delta import FlexibleDelta
from ..base import (DIVERGED_RATIO, EXACT_HINT, MAX_DISPLACEMENT_RATIO,
                    MAX_ROTATION_RAD, small_deformation_check)
from ..rigid_delta.engine import ExplicitDeltaEngine
from ...exceptions import InputError, ModelError
from .engine import DeltaMotion, KEDEngine
from .batch import KEDBatch
from ...integrators.scheme import NewmarkScheme
from ...integrators.bounded import bounded_solve_ivp
from ...integrators.state_space import simulate_state_space
from ...integrators.threads import small_problem_threads

__all__ = ["KEDSimulation", "simulate_ked",
           "MAX_DISPLACEMENT_RATIO", "MAX_ROTATION_RAD",
           "KEDValidityWarning", "INITIAL_CONDITIONS", "interpolated_end_forces",
           "rigid_torques", "model_error_estimate", "MODEL_ERROR_LIMIT", "ReferenceTrack",
           "REFERENCE_SPACING", "excitation_ratios", "check_newmark_step", "task_path",
           "NEWMARK_STEPS_PER_PERIOD", "NEWMARK_MODES", "EXCITED_RATIO", "COMPONENT_FLOOR",
           "motion_response"]

MODEL_ERROR_LIMIT = 0.05
"""Estimated model error (relative to the peak platform deviation) above which a
simulation warns (module docstring)."""
# the small-deformation range and the divergence limit are every small-deformation
# model's (formulations.base; re-exported here)
INITIAL_CONDITIONS = ("static", "zero")
METHODS = ("newmark", "rk45", "radau")
FIELDS = ("axial", "torsion", "transverse_y", "transverse_z")  # u, phi, v, w


class KEDValidityWarning(UserWarning):
    """The elastic displacements left the small-deformation range of the linear model."""


def _progress(progress, done: int, total: int, what: str):
    if progress is None:
        return
    if progress is True:
        step = max(1, total // 20)
        if done == total or done % step == 0:
            print(f"\r{what}: {done}/{total}", end="\n" if done == total else "",
                  file=sys.stderr, flush=True)
    else:
        progress(done, total)


# --------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class KEDSimulation:
    """Response of the KED model along a trajectory (SI; angles of attitude in deg).

    Attributes
    ----------
    time : (nt,) [s]
    position : (nt, 3) rigid platform path [m]
    delta, delta_dot : (nt, dof) global variables and rates
    position_variation : (nt, 3) platform displacement delta_1..3 [m]
    attitude_variation_deg : (nt, 3) platform rotation delta_4..6 [deg]
    torque : (nt, 3) actuator torques with the elastic response [N m], on the actuated
        angles in the robot's convention (as ``rigid_torque``)
    rigid_torque : (nt, 3) torques of the rigid motion (quasi-static reaction) [N m]
    midspan : (nt, 3 legs, 2 links, 4) axial u [m], torsion phi [rad], transverse v
        (link y) [m] and w (link z) [m] at half length, link frames
    end_force : (nt, 3, 2) axial forces at the far link ends [N]
    max_displacement_ratio, max_rotation_rad : largest elastic nodal displacement over
        the link length and largest elastic rotation, over the whole run
    validity_warning : str or None
    model_error : dict or None
        The estimate of :func:`model_error_estimate` (None where the model cannot give
        it: a mechanism or free actuators, where no deflected reference exists)
    reference : {"deflected", "undeformed"}
    """

    time: np.ndarray
    position: np.ndarray
    delta: np.ndarray
    delta_dot: np.ndarray
    position_variation: np.ndarray
    attitude_variation_deg: np.ndarray
    torque: np.ndarray
    rigid_torque: np.ndarray
    midspan: np.ndarray
    end_force: np.ndarray
    max_displacement_ratio: float
    max_rotation_rad: float
    validity_warning: str | None
    initial: str
    method: str
    dof: int
    labels: tuple = field(repr=False, default=())
    model_error: dict | None = None
    reference: str = "undeformed"

    def summary(self) -> dict:
        """Maxima (of |value| over time) and final values, per axis X, Y, Z."""
        pv, av = self.position_variation, self.attitude_variation_deg
        return {
            "max_position_variation_m": np.max(np.abs(pv), axis=0).tolist(),
            "final_position_variation_m": pv[-1].tolist(),
            "max_attitude_variation_deg": np.max(np.abs(av), axis=0).tolist(),
            "final_attitude_variation_deg": av[-1].tolist(),
            "peak_torque_nm": np.max(np.abs(self.torque), axis=0).tolist(),
            "max_displacement_ratio": self.max_displacement_ratio,
            "max_rotation_rad": self.max_rotation_rad,
            "validity_warning": self.validity_warning,
            "model_error": self.model_error,
            "reference": self.reference,
            "initial": self.initial,
            "method": self.method,
            "dof": self.dof,
            "steps": len(self.time) - 1,
        }

    def to_dict(self) -> dict:
        out = self.summary()
        out.update({
            "time_s": self.time.tolist(),
            "position_m": self.position.tolist(),
            "position_variation_m": self.position_variation.tolist(),
            "attitude_variation_deg": self.attitude_variation_deg.tolist(),
            "torque_nm": self.torque.tolist(),
            "rigid_torque_nm": self.rigid_torque.tolist(),
        })
        return out


END_FORCE_SPACING = 5e-3
"""Time spacing [s] of the quasi-static solves that give the links' axial end forces in a
simulation; cubic-spline interpolation in between (the forces follow the smooth rigid
motion; pieces split at the knots of piecewise paths: interpolation error ~ h^4 f^(4)/384,
about 1e-6 of the forces on Kuo's paths, tested)."""


def _take(mo, idx) -> DeltaMotion:
    """The rigid motion at a subset of its samples."""
    kw = {f.name: getattr(mo, f.name) for f in fields(DeltaMotion)}
    for name in ("A", "y"):
        kw.pop(name)
    return DeltaMotion(**{k: v[idx] for k, v in kw.items()}, A=mo.A, y=mo.y)


def _coarse_samples(time, dt: float, knots, spacing: float):
    """Coarse sample indices every ``spacing`` seconds and at the knots, and the cuts
    (first, last and knot indices) that split the fine samples into smooth pieces."""
    nt = len(time)
    m = max(1, int(round(spacing / dt)))
    cuts = sorted({0, nt - 1} | {int(round((t - time[0]) / dt)) for t in knots
                                 if time[0] < t < time[-1]})
    return np.unique(np.concatenate([np.arange(0, nt, m), cuts])), cuts


def _piecewise_spline(time, idx, cuts, coarse, exact):
    """Values at every fine sample (nt, ...): a cubic spline through the coarse values
    ``coarse`` (len(idx), ...) per smooth piece, ``exact(ks)`` on pieces too short."""
    from scipy.interpolate import CubicSpline
    out = np.empty((len(time),) + coarse.shape[1:])
    for a, b in zip(cuts[:-1], cuts[1:]):
        sel = (idx >= a) & (idx <= b)
        if sel.sum() < 4:  # too short a piece for a spline: exact solves
            out[a:b + 1] = exact(np.arange(a, b + 1))
        else:
            out[a:b + 1] = CubicSpline(time[idx[sel]], coarse[sel], axis=0)(time[a:b + 1])
    return out


def interpolated_end_forces(model: KEDEngine, motion: DeltaMotion, time, dt: float,
                            knots=()) -> np.ndarray:
    """Axial end forces of the links (nt, 3 legs, 2 links) [N] along a rigid motion
    sampled at ``time`` (nt,) [s] with step ``dt`` [s], as the simulation uses them:
    exact quasi-static solves every END_FORCE_SPACING seconds and at the ``knots`` [s]
    (where a piecewise path's higher derivatives jump), a cubic spline per smooth piece
    in between (zero without preload)."""
    nt = len(time)
    if not model.preload:
        return np.zeros((nt, 3, 2))
    idx, cuts = _coarse_samples(time, dt, knots, END_FORCE_SPACING)
    if len(idx) >= nt / 2:
        return KEDBatch(model, motion).end_force
    coarse = KEDBatch(model, _take(motion, idx)).end_force
    return _piecewise_spline(time, idx, cuts, coarse,
                             lambda ks: KEDBatch(model, _take(motion, ks)).end_force)


REFERENCE_SPACING = 0.01
"""Largest time spacing [s] of the deflected-reference solves along a simulation
(geometrically exact quasi-static deflection, tangent stiffness and mass,
:mod:`elastodyn.formulations.ked.deflected`), and at most 1/40 of the shortest smooth
piece of a piecewise path; cubic splines per piece in between (interpolation error
~ h^4 f^(4) / 384: 1e-6 of the reference on Kuo's 1 s circle at 10 ms; on his 0.8 s
pick-and-place (0.2 s pieces) 25 ms spacing changed the response by 80 %, 10 ms by
0.4 %, 5 ms by 1e-4 against exact solves at every 1 ms step)."""


REFERENCE_RTOL = 1e-5
"""Largest estimated interpolation error of the deflected reference's load F = K_T delta_s
between its solves, relative to the largest |F| about the sample (at least FLOOR of the
run's largest). Measured on a harsh motion (Kuo's inverted U with a ZV-shaped progress
at its 3.3 Hz mode, 40 m/s^2 peaks): without refinement the response diverged (a 10 %
load error between 10 ms solves: the motion's linear time-varying system is that
sensitive there), at 1e-3 it was 4 % off the response with exact solves at every step,
at 1e-5 0.2 % (tests/formulations/ked/test_ked_delta_dynamics.py); Kuo's own pick-and-place needs no
extra solve at 1e-5 (5 ms spacing: 5e-5 of the exact-solve response)."""
FLOOR = 0.05
REFERENCE_REFINEMENTS = 4
"""Rounds of local halving of the reference spacing (10 ms -> 0.6 ms at most)."""


def _unresolved(t, idx, F, cuts) -> np.ndarray:
    """Fine-sample indices to solve next: the midpoints on both sides of every coarse
    sample where the load F (len(idx), ...) is not resolved by the spacing. The estimate:
    F at the sample against the cubic through its two neighbours on each side (spacing
    2h about it, so its error is ~16 times the spline's at h: O(h^4))."""
    F = F.reshape(len(F), -1)
    scale = float(np.max(np.abs(F))) or 1.0
    new = set()
    for a, b in zip(cuts[:-1], cuts[1:]):
        ks = np.nonzero((idx >= a) & (idx <= b))[0]
        for j in range(2, len(ks) - 2):
            nb = ks[[j - 2, j - 1, j + 1, j + 2]]
            x = t[idx[nb]]
            x0 = t[idx[ks[j]]]
            w = np.array([np.prod([(x0 - x[m]) / (x[i] - x[m]) for m in range(4) if m != i])
                          for i in range(4)])
            err = float(np.max(np.abs(w @ F[nb] - F[ks[j]]))) / 16.0
            local = float(np.max(np.abs(F[ks[j - 2:j + 3]])))
            if err > REFERENCE_RTOL * max(local, FLOOR * scale):
                for lo, hi in ((idx[ks[j - 1]], idx[ks[j]]), (idx[ks[j]], idx[ks[j + 1]])):
                    if hi - lo >= 2:
                        new.add((lo + hi) // 2)
    return np.array(sorted(new - set(idx.tolist())), dtype=int)


class ReferenceTrack:
    """The deflected reference along a rigid motion sampled at ``time`` (step ``dt``):
    exact solves every REFERENCE_SPACING seconds and at the ``knots`` (at every sample of
    a piece between knots too short for a spline), cubic splines per smooth piece in
    between. ``at(k0, k1)`` gives (F = K_T delta_s (c, 3, nb), K_T, M, D (c, 3, nb, nb))
    at samples k0..k1-1 (for :class:`KEDBatch`), ``at_times(t)`` at any times in the
    run, ``delta_at(t)`` delta_s. F is interpolated itself, not formed from the
    interpolated K_T and delta_s: the stiff axial entries of K_T (EA / l ~ 1e7 N/m)
    would turn the splines' small errors into large spurious forces."""

    CHUNK = 10  # coarse samples per batched Newton solve (KEDEngine.deflected_along)

    def __init__(self, model: KEDEngine, motion: DeltaMotion, time, dt: float,
                 knots=(), progress=None):
        from scipy.interpolate import CubicSpline, make_interp_spline
        self.model, self._time = model, np.asarray(time, dtype=float)
        t = self._time
        inner = sorted(k for k in knots if t[0] < k < t[-1])
        bounds = [t[0]] + inner + [t[-1]]
        pieces = np.diff(bounds)
        if len(pieces) > 1 and not np.any(np.isclose(knots, t[-1])):
            pieces = pieces[:-1]  # a last piece cut by the run's end sets no time scale
        spacing = min(REFERENCE_SPACING, float(min(pieces)) / 40)
        idx, cuts = _coarse_samples(time, dt, knots, spacing)
        short = [np.arange(a, b + 1) for a, b in zip(cuts[:-1], cuts[1:])
                 if np.count_nonzero((idx >= a) & (idx <= b)) < 4]
        idx = np.unique(np.concatenate([idx, *short])) if short else idx
        coarse = _take(motion, idx)
        report = None if progress is None else (
            lambda done, total: _progress(progress, done, total, "deflected reference"))
        parts = model.deflected_along(coarse, chunk=self.CHUNK, progress=report)
        damped = parts.D is not None  # the material stiffness, for Rayleigh damping
        data = [parts.delta, parts.F, parts.K, parts.M] + ([parts.D] if damped else [])
        # where the loads change faster than the spacing resolves, solves in between
        for _ in range(REFERENCE_REFINEMENTS):
            new = _unresolved(t, idx, data[1], cuts)
            if not new.size:
                break
            more = model.deflected_along(_take(motion, new), chunk=self.CHUNK)
            idx = np.concatenate([idx, new])
            order = np.argsort(idx)
            idx = idx[order]
            data = [np.concatenate([d, e])[order] for d, e in
                    zip(data, (more.delta, more.F, more.K, more.M, more.D))]
        self.samples = idx
        self.pieces = []  # (t_start, t_end, [interpolant of delta, F, K, M])
        for a, b in zip(cuts[:-1], cuts[1:]):
            sel = (idx >= a) & (idx <= b)
            tc = t[idx[sel]]
            if len(tc) >= 4:
                fs = [CubicSpline(tc, d[sel], axis=0) for d in data]
            else:  # at most three samples, all solved exactly: linear through them
                fs = [make_interp_spline(tc, d[sel], k=1, axis=0) for d in data]
            self.pieces.append((t[a], t[b], fs))

    def at_times(self, times):
        """(F, K_T, M, D) at times (c,) within the run [s] (D, the material stiffness,
        None unless the model has stiffness-proportional damping)."""
        if len(self.pieces[0][2]) > 4:
            return self._values(times, (1, 2, 3, 4))
        return self._values(times, (1, 2, 3)) + (None,)

    def delta_at(self, times) -> np.ndarray:
        """delta_s (c, N) at times (c,) within the run [s]."""
        return self._values(times, (0,))[0]

    def _values(self, times, fields):
        times = np.atleast_1d(np.asarray(times, dtype=float))
        starts = np.array([p[0] for p in self.pieces])
        which = np.clip(np.searchsorted(starts, times, side="right") - 1, 0,
                        len(self.pieces) - 1)
        out = None
        for j in np.unique(which):
            sel = which == j
            vals = [self.pieces[j][2][i](times[sel]) for i in fields]
            if out is None:
                out = [np.empty((len(times),) + v.shape[1:]) for v in vals]
            for o, v in zip(out, vals):
                o[sel] = v
        return tuple(out)

    def at(self, k0: int, k1: int):
        """(F, K_T, M, D) at samples k0..k1-1 (:meth:`at_times`)."""
        return self.at_times(self._time[k0:k1])


def _newmark(batch, q0, v0, dt, progress, beta=0.25, gamma=0.5):
    """Newmark's method (average acceleration by default) on the batched LTV system:
    M_k a_k + C_k v_k + K_k q_k = F_k enforced at every grid time, with the library's
    Newmark predictor and corrector (:class:`elastodyn.integrators.NewmarkScheme`, the
    scheme of :func:`elastodyn.integrators.newmark`); the leg blocks of a whole chunk are
    built at once and each step's effective system is solved by the arrow elimination of
    :meth:`KEDBatch.solve`. Also returns the quasi-static path K_k^-1 F_k (what the
    response vibrates about, for :func:`model_error_estimate`) from the same blocks."""
    N, nt = batch.N, batch.ns
    Q, V, A, QS = (np.empty((nt, N)) for _ in range(4))
    q, v = np.array(q0, dtype=float), np.array(v0, dtype=float)
    scheme = NewmarkScheme(dt, beta, gamma)
    ix, mv = batch.blocks, batch.matvec
    a = None

    def solve(q_pred, v_pred):  # effective system of step j of the current chunk
        return batch.solve(S[j], F[j] - mv(C[j], v_pred[ix]) - mv(K[j], q_pred[ix]))

    for k0, k1, M, C, K, F in batch.chunks():
        QS[k0:k1] = batch.solve(K, F)
        S = batch.prepare(scheme.effective(M, C, K))  # gathered and checked per chunk
        for j in range(k1 - k0):
            k = k0 + j
            if k == 0:
                a = batch.solve(M[0], F[0] - mv(C[0], v[ix]) - mv(K[0], q[ix]))
            else:
                q, v, a = scheme.step(q, v, a, solve)
                if not np.all(np.isfinite(q)):
                    raise ModelError(f"Newmark: non-finite state at step {k}")
            Q[k], V[k], A[k] = q, v, a
        _progress(progress, k1, nt, "KED simulation")
    return Q, V, A, QS


def _field_rows(model: KEDEngine):
    """Rows extracting (u, phi, v, w) at half length from each link's dofs."""
    out = []
    for lm in model.links:
        r = lm.field_rows(0.5 * lm.length)
        out.append(np.stack([r["u"], r["phi"], r["v"], r["w"]]))
    return out


def simulate_ked(model: KEDEngine, trajectory, *, duration: float | None = None,
                 step: float = 1e-3, initial: str = "static", method: str = "newmark",
                 progress=None, rtol: float = 1e-8, atol: float = 1e-12) -> KEDSimulation:
    """Integrate the KED equations along ``trajectory`` from its start.

    Parameters
    ----------
    model : KEDEngine
    trajectory : Trajectory
        Platform path (3-D), e.g. ``Circle.kuo2016()`` or ``InvertedU.kuo2016()``.
    duration : float, optional
        Simulated time [s] (> 0); default: the trajectory's duration, or 5 periods for
        a periodic one (Kuo 5.3).
    step : float
        Constant time step [s] (> 0): the Newmark step, and the output step of RK45.
    initial : {"static", "zero"}
        Elastic initial state (module docstring): static deflection under gravity at
        the first pose (default) or zero.
    method : {"newmark", "rk45", "radau"}
        Newmark average acceleration (Kuo 5.3), or an adaptive Runge-Kutta method of
        scipy on the first-order form, as a check (rtol, atol apply): explicit RK45, or
        the implicit Radau IIA (5th order), which the stiff axial modes make far faster.
    progress : None, True (stderr) or callable(done, total)

    Returns
    -------
    KEDSimulation
    """
    choice("initial", initial, INITIAL_CONDITIONS)
    choice("method", method, METHODS)
    dt = positive("step", step)
    if duration is None:
        duration = 5 * trajectory.period if trajectory.period else trajectory.duration
    duration = positive("duration", duration)
    n = int(round(duration / dt))
    if n < 1 or abs(n * dt - duration) > 1e-9 * duration:
        raise InputError("step", step, f"a divisor of the duration {duration!r} s")
    t0 = trajectory.t_start
    time = t0 + dt * np.arange(n + 1)
    smp = trajectory.evaluate(time)
    model.kinematics.check_reachable(smp.position)
    motion = model.motion(smp.position, smp.velocity, smp.acceleration)
    # one BLAS thread: thousands of small dense solves (integrators.threads)
    with small_problem_threads():
        return _simulate(model, trajectory, time, smp, motion, dt, initial, method, progress,
                         rtol, atol)


def _simulate(model, trajectory, time, smp, motion, dt, initial, method, progress, rtol,
              atol):
    """The body of :func:`simulate_ked` (inputs checked)."""
    N = model.dof
    knots = getattr(trajectory, "times", ())
    track = (ReferenceTrack(model, motion, time, dt, knots, progress)
             if model.reference == "deflected" else None)
    # static deflection at rest at the first pose (the motion's velocity terms excluded);
    # about a deflected reference: the linear model's own state at rest
    # (KEDEngine.rest_start)
    if initial == "zero":
        q0 = np.zeros(N)
    elif track is None:
        q0 = model.static_deflection(smp.position[0])
    else:
        q0 = model.rest_start(smp.position[0], track.delta_at(time[:1])[0],
                              track.at(0, 1)[1][0])
    v0 = np.zeros(N)
    if method == "newmark":
        end = interpolated_end_forces(model, motion, time, dt, knots)
        batch = KEDBatch(model, motion, end_force=end, reference=track)
        Q, V, A, QS = _newmark(batch, q0, v0, dt, progress)
        desc = "newmark(beta=0.25, gamma=0.5)"
    else:
        Q, V, A = _runge_kutta(model, trajectory, time, q0, v0, rtol, atol, method, track)
        batch = KEDBatch(model, motion, reference=track)
        QS = _quasi_static_path(batch)
        desc = f"{method.upper()}(rtol={rtol:g}, atol={atol:g})"
    return _outputs(model, batch, time, smp.position, Q, V, A, QS, initial, desc)


def _runge_kutta(model, trajectory, t_eval, q0, v0, rtol, atol, method, track=None):
    """First-order form x = (delta, delta_dot), x_dot = (v, M^-1 (F - C v - K delta)),
    the system evaluated at every time the solver asks for; Radau gets the exact
    Jacobian [[0, I], [-M^-1 K, -M^-1 C]] of the linear system."""
    N = model.dof
    cache = {}

    def at(t):
        if t not in cache:
            cache.clear()
            smp = trajectory.evaluate(np.array([t]))
            mo = model.motion(smp.position, smp.velocity, smp.acceleration)
            ref = None if track is None else [None if x is None else x[0]
                                              for x in track.at_times([t])]
            s = model.system(mo, 0, deflected_state=ref)
            cache[t] = (s, np.linalg.inv(s.M))
        return cache[t]

    def rhs(t, x, u=None, params=None):
        s, Mi = at(t)
        q, v = x[:N], x[N:]
        return np.concatenate([v, Mi @ (s.F - s.C @ v - s.K @ q)])

    def jac(t, x):
        s, Mi = at(t)
        return np.block([[np.zeros((N, N)), np.eye(N)], [-Mi @ s.K, -Mi @ s.C]])

    x0 = np.concatenate([q0, v0])
    if method == "radau":
        res = bounded_solve_ivp(lambda t, x: rhs(t, x), (t_eval[0], t_eval[-1]), x0,
                                method="Radau", t_eval=t_eval, rtol=rtol, atol=atol,
                                jac=jac, what="KED simulation (radau)")
        res.state = res.y.T
    else:
        res = simulate_state_space(rhs, x0, t_span=(t_eval[0], t_eval[-1]), t_eval=t_eval,
                                   method="RK45", rtol=rtol, atol=atol)
    if not res.success:
        raise ModelError(f"{method} failed: {res.message}")
    X = res.state
    Q, V = X[:, :N], X[:, N:]
    A = np.empty_like(Q)
    for k, t in enumerate(t_eval):
        s, Mi = at(t)
        A[k] = Mi @ (s.F - s.C @ V[k] - s.K @ Q[k])
    return Q, V, A


def rigid_torques(robot: FlexibleDelta, X, Xd, Xdd) -> np.ndarray:
    """Actuator torques of the rigid robot with the same distributed links [N m], (n, 3):
    Asadi's explicit model with the exact rod equivalents (``DeltaMasses.uniform_rods``)
    of the upper and lower links (each of its own section and material), the platform
    and payload as one translating mass (a translating platform's torques do not depend
    on where its centre of mass is: the rigid mechanism cannot rotate it), the motor
    inertia and friction. Equal to the KED quasi-static reaction torques up to the
    links' torsional inertia (tested)."""
    m1, m2 = robot.link_masses
    g = robot.geometry
    masses = DeltaMasses.uniform_rods(robot.carried_body.mass, m1, g.upper_length, m2,
                                      motor_inertia=robot.motor_inertia)
    rig = RigidDelta(g, masses, friction=robot.friction, gravity=robot.gravity)
    return ExplicitDeltaEngine(rig).inverse_dynamics(X, Xd, Xdd).torque


def _reference_change(model: KEDEngine, X, count: int = 4):
    """(largest relative frequency change between the references over the first
    ``count`` modes at X, the frequency of that mode [Hz], the platform's static
    deflection [m]) or None when no deflected reference exists for this robot."""
    kw = dict(elements=model.n_elements, joint_b=model.joint_b, joint_d=model.joint_d,
              actuators=model.actuators)
    # the better model to compare with: deflected, cubic (a quintic model is compared
    # with the cubic deflected one at the same mesh: 6e-5 of the change at 1 element)
    probe = KEDEngine(model.robot, order="cubic", reference="undeformed", **kw)
    if not probe.deflected_available:
        return None
    und = model if model.reference == "undeformed" else KEDEngine(
        model.robot, order=model.order, reference="undeformed", **kw)
    dfl = model if model.reference == "deflected" else KEDEngine(
        model.robot, order="cubic", reference="deflected", **kw)
    fu = und.modes(X, count).frequencies_hz
    fd = dfl.modes(X, count).frequencies_hz
    change = np.abs(fd / fu - 1)
    k = int(np.argmax(change))
    sag = float(np.linalg.norm(dfl.static_deflection(X)[:3]))
    return float(change[k]), float(fd[k]), sag


def model_error_estimate(model: KEDEngine, X0, duration: float, delta, reference):
    """The model's own estimate of its error along a run (module docstring).

    Parameters
    ----------
    model : KEDEngine
    X0 : (3,) first pose [m]; duration : run time [s]
    delta : (nt, dof) the response; reference : (nt, dof) the quasi-static solution
        of the same linear system along the motion (what the response vibrates about)

    Returns
    -------
    dict (reference, frequency_change, frequency_hz, sag_m, vibration_amplitude_m,
    peak_deviation_m, frequency_error, phase_drift_rad, phase_modulation_rad,
    response_error, limit) or None when the model has no deflected reference to compare
    with.
    """
    rc = _reference_change(model, X0)
    if rc is None:
        return None
    change, f, sag = rc
    amp = float(np.max(np.linalg.norm(delta[:, :3] - reference[:, :3], axis=1)))
    peak = float(np.max(np.linalg.norm(delta[:, :3], axis=1)))
    ratio = amp / sag if sag > 0 else 0.0
    length = min(model.robot.geometry.upper_length, model.robot.geometry.lower_length)
    # frequency error that accumulates: the undeformed reference's first-order error;
    # the mean shift of a vibration of amplitude a about the reference when the
    # stiffness varies at first order with the configuration (a quadratic nonlinearity:
    # -5/12 (c a / sag)^2, Nayfeh & Mook, Nonlinear Oscillations, 1979, sec. 4.1); the
    # beams' own geometric nonlinearity of the vibration, (a / L)^2
    ef = 5.0 / 12.0 * (change * ratio) ** 2 + (amp / length) ** 2
    if model.reference == "undeformed":
        ef += change
    drift = 2 * math.pi * f * duration * ef
    modulation = change * ratio  # bounded phase modulation by the oscillating stiffness
    err = (amp / peak if peak > 0 else 0.0) * min(2.0, drift + modulation) + ef
    return {"reference": model.reference, "frequency_change": change, "frequency_hz": f,
            "sag_m": sag, "vibration_amplitude_m": amp, "peak_deviation_m": peak,
            "frequency_error": ef, "phase_drift_rad": drift,
            "phase_modulation_rad": modulation, "response_error": err,
            "limit": MODEL_ERROR_LIMIT}


def _quasi_static_path(batch) -> np.ndarray:
    """K^-1 F at every sample of the batched linear system (what it vibrates about)."""
    out = np.empty((batch.ns, batch.N))
    for k0, k1, M, C, K, F in batch.chunks():
        out[k0:k1] = batch.solve(K, F)
    return out


def _outputs(model, batch, time, position, Q, V, A, QS, initial, method) -> KEDSimulation:
    nt = len(time)
    ks = np.arange(nt)
    mo = batch.mo
    rows = _field_rows(model)
    # the kernel's torques act about the motor axes y_i (Kuo's phi_1i); the actuated
    # angles of an asadi2020 robot are the opposite rotations (tau_asadi = -tau_kuo)
    torque = model.robot.geometry.sign * batch.actuator_torques(ks, Q, V, A)
    q = batch.link_dofs(Q, ks)
    mid = np.zeros((nt, 3, 2, 4))
    max_ratio, max_rot = 0.0, 0.0
    nd = model.links[0].nd
    for i in range(3):
        for li, lm in enumerate(model.links):
            mid[:, i, li] = q[i][li] @ rows[li].T
            qn = q[i][li].reshape(nt, -1, nd)
            max_ratio = max(max_ratio, float(np.max(np.linalg.norm(qn[..., 0:3], axis=-1)))
                            / lm.length)
            max_rot = max(max_rot, float(np.max(np.linalg.norm(qn[..., 3:6], axis=-1))))
    rigid = rigid_torques(model.robot, position, mo.Xd, mo.Xdd)
    # platform rotation counts too
    max_rot = max(max_rot, float(np.max(np.linalg.norm(Q[:, 3:6], axis=1))))
    err = model_error_estimate(model, position[0], float(time[-1] - time[0]), Q, QS)
    if not (max_ratio <= DIVERGED_RATIO and max_rot <= DIVERGED_RATIO):
        amp = np.linalg.norm(Q[:, 0:3], axis=1)
        k = int(np.argmax(~(amp <= 0.1 * model.links[1].length)))
        raise ModelError(
            f"the linear KED model's elastic displacement reaches {max_ratio:.3g} link "
            f"lengths (rotation {max_rot:.3g} rad; the platform passes 10% of the lower "
            f"link's length at t = {time[k]:.4g} s): no small-deformation model describes "
            "that - the links are too soft for the loads, or the linear system lost its "
            "stiffness along the motion and diverged; a slower or smoother motion, or "
            f"stiffer links; {EXACT_HINT}")
    _, msgs = small_deformation_check("linear KED", [max_ratio], [max_rot], [time[-1]],
                                      EXACT_HINT)
    if err is not None and err["response_error"] > MODEL_ERROR_LIMIT:
        hint = (" (linearized about the undeformed pose: reference='deflected' removes "
                "the first-order part)" if model.reference == "undeformed" else "")
        msgs.append(f"the model's own estimate of how far it may be off: "
                    f"{100 * err['response_error']:.2g}% of the peak deviation, limit "
                    f"{100 * MODEL_ERROR_LIMIT:g}% (frequencies off by "
                    f"{100 * err['frequency_error']:.2g}%, phase drift "
                    f"{err['phase_drift_rad']:.2g} rad over the run){hint}")
    warn = "; ".join(msgs) or None
    if warn:
        warnings.warn(warn, KEDValidityWarning, stacklevel=4)  # caller of simulate_ked
    return KEDSimulation(time=np.asarray(time), position=position, delta=Q, delta_dot=V,
                         position_variation=Q[:, 0:3],
                         attitude_variation_deg=np.degrees(Q[:, 3:6]),
                         torque=torque, rigid_torque=rigid, midspan=mid,
                         end_force=batch.end_force, max_displacement_ratio=max_ratio,
                         max_rotation_rad=max_rot, validity_warning=warn, initial=initial,
                         method=method, dof=model.dof, labels=model.labels,
                         model_error=err, reference=model.reference)


# ====================================================================== motion-driven runs
def task_path(model, traj, T, step):
    """A joint-space trajectory of a Delta as the platform path KED needs: at every
    sample (the output step, which is KED's Newmark step) the platform position,
    velocity and acceleration of the rigid motion (forward kinematics and the Jacobian
    and its derivative, ``model.state``), joined by quintic Hermite pieces (exact at the
    samples)."""
    from ...trajectories.table import TableTrajectory
    n = int(round(T / step))
    times = traj.t_start + step * np.arange(n + 1)
    smp = traj.evaluate(times)
    if smp.position.shape[1] != model.n_actuated:
        raise InputError("--trajectory", smp.position.shape[1],
                         f"{model.n_actuated} actuated coordinates (joint space)")
    X, Xd, Xdd = [], [], []
    for q, qd, qdd in zip(smp.position, smp.velocity, smp.acceleration):
        d = model.state(actuated=q, rates=qd, accelerations=qdd).detail
        X.append(d["X"])
        Xd.append(d["Xd"])
        Xdd.append(d["Xdd"])
    return TableTrajectory(times, np.array(X), np.array(Xd), np.array(Xdd), space="task")


NEWMARK_STEPS_PER_PERIOD = 8
"""Fewest Newmark steps per period of each of the modes that matter (below). KED
integrates with the average-acceleration Newmark rule (gamma = 1/2, beta = 1/4):
unconditionally stable and without amplitude decay, its only error on a mode of period T
is the period elongation dT/T = (omega h)^2 / 12 = pi^2 / (3 N^2) for N = T / h steps
per period (Hughes, The Finite Element Method, 2000, sec. 9.3); N = 8 keeps it at
5 %. Measured on delta-kuo2016's circle (1 s; peak attitude variations against the 1 ms
run): within 0.1 % and 8 % at 5 ms, 3 % at 10 ms, 1.5x at 20 ms, 25x at 50 ms."""

NEWMARK_MODES = 6
"""The candidate modes: the lowest six elastic modes at the start of the motion, the
platform's six motions on the elastic legs (three translations, three rotations: the
position and attitude variations the results report; on Kuo's Delta 3.3 to 10.1 Hz,
then a gap to 17.7 Hz). Stiffer modes respond nearly quasi-statically, and Newmark's
static limit is exact."""

EXCITED_RATIO = 0.02
"""A candidate mode matters when the motion excites it: its dynamic (vibration) part
may reach this fraction of the quasi-static response to the motion's loads
(:func:`excitation_ratios`). The dynamic part of an unresolved mode is mistimed but
bounded (the rule is unconditionally stable), so its error stays below twice this
fraction of the quasi-static response to the load component that excites it: 4 %, the
order of the 5 % period error accepted for a resolved mode."""

COMPONENT_FLOOR = 0.01
"""Load components are measured each against its own peak, but not against less than
this fraction of the largest load (:func:`excitation_ratios`): an abrupt component of
1 % of the load still counts as fully abrupt, one of 0.1 % as a tenth."""


def excitation_ratios(traj, t0: float, T: float, omega, length: float) -> np.ndarray:
    """How much a motion excites modes of circular frequencies ``omega`` [rad/s].

    For a mode driven by a load f(t) from its static state at t0 (x'' + w^2 x = f,
    x(t0) = 0 before the motion's loads), the response is the quasi-static part
    f/w^2 - f''/w^4 + ... plus a free vibration whose amplitude is, to O(f''/w^2)::

        | f(t0) + int_t0^t f'(s) exp(-i w (s - t0)) ds - i exp(-i w (t - t0)) f'(t) / w | / w^2

    (u = x' + i w x obeys u' = f + i w u: Duhamel's integral for u, integrated by parts
    twice; f(t0) is the load switched on at the start, e.g. a circle entered at speed;
    the last term removes the quasi-static rate f'/w^2 from the vibration). After the
    motion (f' = 0) it is the residual vibration exactly. The ratio returned is its
    largest value over the window [t0, t0 + T] (and the residual of a load stopped at
    its end), per load component k divided by that component's peak ``max |f_k|``
    (at least :data:`COMPONENT_FLOOR` times the largest load: a small but abrupt
    component, which a mode may see alone, is not hidden by a large smooth one), the
    largest over the components, per mode: 0 for a load too slow to excite the mode,
    about 1 for an abrupt one (a step of load, a circle without ramp).

    The load is taken as the inertial accelerations of the motion: the end-effector
    acceleration (3) and the centripetal terms v_j v_k / ``length`` (6; ``length`` [m]
    the shortest link), which drive the links' elastic coordinates (Kuo 2016, eq. 43:
    the loads of the rigid motion; gravity's share changes with the pose slowly, as
    the motion does). Sampled at 20 points per period of the highest mode (at most
    400,000 samples) and at least 4000 over the window; the load's rate by second-order
    finite differences (a jump of the load becomes a spike: conservative); the running
    integral by the trapezoid rule.

    Parameters
    ----------
    traj : Trajectory (task space)
    t0, T : float
        Start [s] and length [s] (> 0) of the window.
    omega : array_like (m,)
        Circular frequencies [rad/s], finite and > 0.
    length : float
        The length [m] (> 0) dividing v_j v_k.

    Returns
    -------
    ndarray (m,), dimensionless, >= 0.
    """
    omega = np.asarray(omega, dtype=float).reshape(-1)
    if omega.size == 0:
        return np.zeros(0)
    if not np.all(np.isfinite(omega) & (omega > 0)):
        raise InputError("omega", omega.tolist(), "finite circular frequencies > 0 [rad/s]")
    n = int(min(400_000, max(4000, 20 * T * float(omega.max()) / (2 * np.pi)))) + 1
    t = t0 + np.linspace(0.0, T, n)
    smp = traj.evaluate(t)
    a, v = np.asarray(smp.acceleration), np.asarray(smp.velocity)
    iu = np.triu_indices(v.shape[1])
    f = np.concatenate([a, (v[:, :, None] * v[:, None, :])[:, iu[0], iu[1]] / length],
                       axis=1)
    peak = np.max(np.abs(f), axis=0)
    scale = float(np.max(peak))
    if not scale > 0:
        return np.zeros(omega.shape)
    inv = 1.0 / np.maximum(peak, COMPONENT_FLOOR * scale)
    from scipy.integrate import cumulative_trapezoid
    fd = np.gradient(f, t, axis=0)
    out = []
    for w in omega:
        phase = np.exp(-1j * w * (t - t0))[:, None]
        run = cumulative_trapezoid(fd * phase, t, axis=0, initial=0)
        free = np.abs(f[0] + run - 1j * phase * fd / w) * inv
        # and the residual if the load stopped at the end of the window (the last
        # sample's rate is one-sided: a rest-to-rest motion ending there has stopped)
        last = np.abs(f[0] + run[-1]) * inv
        out.append(max(float(free.max()), float(last.max())))
    return np.array(out)


def check_newmark_step(ked, traj, step: float, T: float, initial: str) -> None:
    """InputError naming --step when the Newmark step cannot resolve the modes that
    matter: of the lowest :data:`NEWMARK_MODES` elastic modes at the start of the
    motion, those the motion excites (:func:`excitation_ratios` >= :data:`EXCITED_RATIO`;
    all of them when the start is undeformed, as gravity is then switched on at once),
    and always the lowest; :data:`NEWMARK_STEPS_PER_PERIOD` steps per period of the
    highest of them."""
    X0 = traj.evaluate(np.array([traj.t_start])).position[0]
    try:
        res = ked.modes(X0, count=min(NEWMARK_MODES + 6, ked.dof))
    except (InputError, ModelError):
        return              # no frequencies at the start: the simulation reports why
    om = res.omega_rad_s[res.omega_rad_s > 0][:NEWMARK_MODES]
    if not om.size:
        return
    if initial == "static":
        g = ked.robot.geometry
        ratios = excitation_ratios(traj, float(traj.t_start), T, om,
                                   min(g.upper_length, g.lower_length))
        excited = np.flatnonzero(ratios >= EXCITED_RATIO)
        k = int(excited[-1]) if excited.size else 0
        why = (f"mode {k + 1} of the platform's {om.size} lowest, the highest this "
               f"motion excites")
    else:
        k = om.size - 1
        why = f"the platform's {om.size} lowest elastic modes (the undeformed start " \
              "excites them all)"
    period = 2 * np.pi / float(om[k])
    largest = period / NEWMARK_STEPS_PER_PERIOD
    if step > largest:
        raise InputError("--step", step, f"at most {largest:.3g} s for the Newmark "
                         f"integrator ({NEWMARK_STEPS_PER_PERIOD} steps per period of "
                         f"{why}, {1 / period:.4g} Hz at the start; a larger step "
                         "distorts the vibration), or --method radau")


def motion_response(contract, traj, times, *, initial: str = "static",
                    method: str | None = None, progress=None):
    """The KED run of a flexible Delta model (:class:`~.model.KEDModel`) along a
    platform path (or the actuated angles, turned into the rigid platform path) as a
    :class:`~elastodyn.model.MotionResponse`: the end-effector is the platform centre
    (rigid path plus the variation delta_1..3); ``extra`` holds the platform's attitude
    variation (delta_4..6, deg), the links' midspan deflections and, for a
    non-periodic path, the reference velocity and acceleration."""
    from ...model import MotionResponse
    method = method or "newmark"
    step = float(times[1] - times[0]) if len(times) > 1 else 1e-3
    T = float(times[-1] - times[0])
    if traj.space == "joint":
        traj = task_path(contract, traj, T, step)
    if traj.space != "task" or traj.dim != 3:
        raise InputError("--trajectory", traj.space,
                         "a platform path (3-D) or the actuated angles for KED")
    if method not in ("newmark", "radau"):
        raise InputError("--method", method, "newmark or radau for KED")
    ked = contract.ked
    if method == "newmark":
        check_newmark_step(ked, traj, step, T, initial)
    with warnings.catch_warnings():   # the response carries the warning
        warnings.simplefilter("ignore", KEDValidityWarning)
        sim = simulate_ked(ked, traj, duration=T, step=step, initial=initial,
                           method=method, progress=progress)
    s = sim.summary()
    mid, mid_names = [], []
    for i in range(3):
        for li, link in ((0, "upper"), (1, "lower")):
            for f, (nm, unit) in enumerate((("u", "m"), ("phi", "rad"), ("v", "m"),
                                            ("w", "m"))):
                mid.append(sim.midspan[:, i, li, f])
                mid_names.append(f"{link}{i + 1}_mid_{nm}_{unit}")
    extra = {"ee_attitude_deg": sim.attitude_variation_deg,
             "midspan": np.column_stack(mid)}
    cols = {"ee_attitude_deg": [f"ee_r{c}_deg" for c in "xyz"], "midspan": mid_names}
    if traj.period is None:
        smp = traj.evaluate(sim.time)
        extra["reference_velocity_m_s"] = smp.velocity
        extra["reference_acceleration_m_s2"] = smp.acceleration
        cols["reference_velocity_m_s"] = [f"v{c}_ref_m_s" for c in "xyz"]
        cols["reference_acceleration_m_s2"] = [f"a{c}_ref_m_s2" for c in "xyz"]
    summary = {k: s[k] for k in ("max_attitude_variation_deg", "final_attitude_variation_deg",
                                 "max_displacement_ratio", "max_rotation_rad", "steps")}
    summary["validity_warning"] = sim.validity_warning
    summary["model_error"] = sim.model_error
    summary["reference"] = sim.reference
    qa = np.array([contract.inverse_kinematics(p) for p in sim.position])
    return MotionResponse(
        sim.time, qa, sim.torque, sim.rigid_torque, sim.position + sim.position_variation,
        sim.position.copy(), sim.delta, extra=extra, columns=cols, summary=summary,
        warnings=(sim.validity_warning,) if sim.validity_warning else (),
        method=sim.method,
        description=(f"KED, {ked.n_elements} {ked.order} element(s) per link, {ked.dof} "
                     f"dof, {sim.method}, step {step:g} s, initial state: {sim.initial}"))
