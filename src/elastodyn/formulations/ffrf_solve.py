"""Time integration of a planar FFRF multibody system (:mod:`.ffrf_multibody`), force
driven or motion driven, by two methods that must agree:

* ``partitioning`` (Rosyid & El-Khasawneh 2020, eqs. (91)-(106), as the paper): the state
  is the independent coordinates v = [s; q_f] (actuated joint coordinates and elastic
  coordinates) and their rates; at every right-hand side the dependent reference
  coordinates are solved from C = 0 (Newton, from the last solution), and
  ``M_r v_dd = [tau; 0] - c_r``. The constraints hold to the Newton tolerance by
  construction.
* ``projection``: index reduction to the acceleration level (the augmented system of
  eqs. (43)-(44) for all coordinates and the multipliers) with the positions and
  velocities projected back onto C = 0 and C_q q_dot = 0 after every output step (the
  drift of the index-1 form is removed before it grows). The constraint residual
  before each projection is reported.

Both integrate with scipy's ``solve_ivp`` (``Radau`` by default: the axial and high
bending modes of stiff links make an explicit method take steps of the stiffest mode;
``DOP853`` may be chosen). Both watch the Jacobian of the dependent coordinates (the
constraints and actuated coordinates over the reference coordinates): where its
determinant changes sign or its condition number exceeds :data:`SINGULAR_COND`, the
actuated coordinates no longer fix the mechanism (a direct-kinematics singularity). The
run then stops at that time, which is reported: past it the partitioned equations do not
exist, and a force-driven mechanism's branch after it is not the model's to choose.
Partitioning on the actuated coordinates cannot step onto the singularity itself (the
dependent rates grow without bound as it nears): its reported time is the last at which
the closure held, within a few milliseconds of the projection's, which passes smoothly
and locates the determinant's zero to the event tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ..exceptions import InputError, ModelError
from .ffrf_multibody import MultibodySystem, SingularConfiguration

__all__ = ["FFRFRun", "integrate", "METHODS", "SINGULAR_COND"]

METHODS = ("partitioning", "projection")

SINGULAR_COND = 1e8
"""Condition number of the dependent Jacobian (columns in m and rad, rows in m and rad)
above which a configuration is called singular: at 1e8 a relative error of 1e-16 in the
constraints gives 1e-8 in the dependent coordinates, and Newton's closure loses its
quadratic convergence; a run crossing the singularity is caught by the sign change of
the determinant earlier."""


@dataclass(frozen=True)
class FFRFRun:
    """Samples of a run: t (n,), q (n, n_q), qd (n, n_q), residual (n,) the constraint
    residual max|C| [m or rad] before projection (partitioning: after the closure),
    singular_time (s or None) and a message."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    residual: np.ndarray
    singular_time: float | None
    message: str


def _dependent_det(system, q):
    J = system.dependent_jacobian(q)
    sign, logdet = np.linalg.slogdet(J)
    return sign, np.linalg.cond(J)


def integrate(system: MultibodySystem, q0, qd0, t_eval, *, efforts=None, motion=None,
              method: str = "partitioning", solver: str = "Radau", rtol: float = 1e-8,
              atol: float = 1e-10, max_step: float = np.inf, progress=None) -> FFRFRun:
    """Integrate from a consistent state (q0, qd0) over the output times ``t_eval``.

    Parameters
    ----------
    efforts : callable t -> (n_a,), optional
        Force driven: the efforts [N or N m] along the actuated coordinates.
    motion : callable t -> (s, s_dot, s_ddot), optional
        Motion driven: the actuated coordinates prescribed (one of efforts, motion).
    method : "partitioning" or "projection"
    solver : scipy solve_ivp method ("Radau", "BDF", "DOP853", "RK45", "LSODA").
    rtol, atol : solver tolerances (atol in m and rad: the elastic coordinates are
        micrometres on stiff links, so 1e-10 keeps 4 digits of them).
    progress : callable (t, T), optional
    """
    if method not in METHODS:
        raise InputError("method", method, " or ".join(METHODS))
    if (efforts is None) == (motion is None):
        raise InputError("efforts", "efforts and motion", "exactly one of them")
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1 or t_eval.size < 2 or np.any(np.diff(t_eval) <= 0):
        raise InputError("t_eval", t_eval.shape, "increasing output times, at least two")
    runner = _partitioned if method == "partitioning" else _projected
    return runner(system, np.asarray(q0, float), np.asarray(qd0, float), t_eval, efforts,
                  motion, solver, rtol, atol, max_step, progress)


def _det_measure(system, q, sign0) -> float:
    """The dependent Jacobian's determinant, signed so that it starts positive and scaled
    by its largest entry to the power n (an event function: zero at a singularity)."""
    J = system.dependent_jacobian(q)
    return float(sign0 * np.linalg.det(J)) / max(1.0, float(np.abs(J).max()) ** J.shape[0])


def _singular_check(system, q, sign0):
    sign, cond = _dependent_det(system, q)
    return sign != sign0 or not np.isfinite(cond) or cond > SINGULAR_COND, cond


def _partitioned(system, q0, qd0, t_eval, efforts, motion, solver, rtol, atol, max_step,
                 progress):
    na, ne = system.n_actuated, system.n_elastic
    el = system.el_index
    s0, _ = system.actuated_coordinates(q0)
    N0 = system.velocity_map(q0)
    v0 = np.linalg.lstsq(N0, qd0, rcond=None)[0]
    sign0, _ = _dependent_det(system, q0)
    cache = {"q": q0.copy()}
    T = float(t_eval[-1])

    cache["t_ok"] = float(t_eval[0])

    def positions(x, t=None):
        q = system.close(cache["q"], x[:na], x[na:na + ne])
        cache["q"] = q
        if t is not None:
            cache["t_ok"] = max(cache["t_ok"], float(t))
        return q

    def accelerations(Mr, rhs_r, t):
        out = np.linalg.solve(Mr, rhs_r)
        if not np.all(np.isfinite(out)):
            raise SingularConfiguration("non-finite accelerations", t)
        if progress is not None:
            progress(t, T)
        return out

    if efforts is not None:
        def rhs(t, y):
            x, v = y[:na + ne], y[na + ne:]
            Mr, cr, _, _ = system.reduced(positions(x, t), v)
            f = -cr
            f[:na] += efforts(t)
            return np.concatenate([v, accelerations(Mr, f, t)])
        y0 = np.concatenate([s0, q0[el], v0])
    else:
        def rhs(t, y):
            s, sd, sdd = motion(t)
            x = np.concatenate([s, y[:ne]])
            v = np.concatenate([sd, y[ne:]])
            Mr, cr, _, _ = system.reduced(positions(x, t), v)
            f = -cr - Mr[:, :na] @ sdd       # the prescribed actuated accelerations
            return np.concatenate([v[na:], accelerations(Mr[na:, na:], f[na:], t)])
        y0 = np.concatenate([q0[el], v0[na:]])

    def event(t, y):
        if motion is not None:
            x = np.concatenate([motion(t)[0], y[:ne]])
        else:
            x = y[:na + ne]
        try:
            q = positions(x)
        except SingularConfiguration:
            return -1e-300      # no assembly there: past the singularity
        return _det_measure(system, q, sign0)
    event.terminal = True

    ts, ys = [float(t_eval[0])], [y0]
    singular = None
    y = y0
    for k in range(1, t_eval.size):
        t0, t1 = float(t_eval[k - 1]), float(t_eval[k])
        sol, step = None, max_step
        for _ in range(4):      # a step across the singularity fails in the closure:
            try:                # retry the interval with steps 100x shorter
                sol = solve_ivp(rhs, (t0, t1), y, method=solver, rtol=rtol, atol=atol,
                                max_step=step, events=event)
                break
            except (SingularConfiguration, np.linalg.LinAlgError):
                step = min(step, t1 - t0) / 100.0
        if sol is None:
            # the closure failed ever closer to it: the last time it held
            singular = cache["t_ok"]
            break
        if sol.status < 0:
            raise ModelError(f"integration failed: {sol.message}")
        if sol.t_events[0].size:
            singular = float(sol.t_events[0][0])
            break
        y = sol.y[:, -1]
        ts.append(t1)
        ys.append(y)
    qs, qds, res = [], [], []
    cache["q"] = q0.copy()
    for t, y in zip(ts, ys):
        if motion is not None:
            s, sd, _ = motion(t)
            x, v = np.concatenate([s, y[:ne]]), np.concatenate([sd, y[ne:]])
        else:
            x, v = y[:na + ne], y[na + ne:]
        q = positions(x)
        qd = system.velocity_map(q) @ v
        qs.append(q)
        qds.append(qd)
        res.append(float(np.abs(system.constraints(q)[0]).max(initial=0.0)))
    return _finish(system, np.array(ts), qs, qds, res, singular)


def _finish(system, t, qs, qds, res, singular):
    n = len(qs)
    q = np.array(qs).reshape(n, system.n)
    qd = np.array(qds).reshape(n, system.n)
    msg = ("" if singular is None else
           f"singular configuration at t = {singular:.6g} s: the actuated coordinates no "
           "longer fix the mechanism (the Jacobian of the dependent coordinates lost rank); "
           "the run stops there")
    for a in (t, q, qd):
        np.asarray(a).setflags(write=False)
    return FFRFRun(np.asarray(t), q, qd, np.asarray(res), singular, msg)


def _projected(system, q0, qd0, t_eval, efforts, motion, solver, rtol, atol, max_step,
               progress):
    n = system.n
    T = float(t_eval[-1])
    sign0, _ = _dependent_det(system, q0)

    def rhs(t, y):
        q, qd = y[:n], y[n:]
        if efforts is not None:
            qdd, _ = system.accelerations(q, qd, efforts(t))
        else:
            qdd, _ = system.accelerations(q, qd, motion(t)[2], driven=True)
        if progress is not None:
            progress(t, T)
        return np.concatenate([qd, qdd])

    def event(t, y):
        return _det_measure(system, y[:n], sign0)
    event.terminal = True

    q, qd = q0.copy(), qd0.copy()
    qs, qds, res, ts = [q.copy()], [qd.copy()], [float(np.abs(system.constraints(q)[0]).max(initial=0.0))], [float(t_eval[0])]
    singular = None
    for k in range(1, t_eval.size):
        t0, t1 = float(t_eval[k - 1]), float(t_eval[k])
        sol, step = None, max_step
        for _ in range(4):
            try:
                sol = solve_ivp(rhs, (t0, t1), np.concatenate([q, qd]), method=solver,
                                rtol=rtol, atol=atol, max_step=step, events=event)
                break
            except (SingularConfiguration, np.linalg.LinAlgError):
                step = min(step, t1 - t0) / 100.0
        if sol is None:
            singular = t0
            break
        if sol.status < 0:
            raise ModelError(f"integration failed: {sol.message}")
        y = sol.y[:, -1]
        q, qd = y[:n], y[n:]
        res.append(float(np.abs(system.constraints(q)[0]).max(initial=0.0)))
        driven = None if motion is None else motion(float(sol.t[-1]))[:2]
        q, qd = system.project(q, qd, driven_s=driven)
        if sol.t_events[0].size:
            singular = float(sol.t_events[0][0])
            res.pop()
            break
        qs.append(q.copy())
        qds.append(qd.copy())
        ts.append(t1)
        if _singular_check(system, q, sign0)[0]:
            singular = t1
            break
    return _finish(system, np.array(ts), qs, qds, res, singular)
