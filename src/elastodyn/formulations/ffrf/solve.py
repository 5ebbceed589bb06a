"""Time integration of a planar FFRF multibody system (:mod:`.multibody`), force
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

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from ...integrators.bounded import bounded_solve_ivp

from ...exceptions import InputError, ModelError
from ...fem.modal import lowest_eigenvalues
from ...integrators.nonlinear import (NonlinearProblem, StopIntegration,
                                     generalized_alpha_nonlinear)
from ...integrators.threads import small_problem_threads
from .multibody import MultibodySystem, SingularConfiguration

__all__ = ["FFRFRun", "integrate", "default_step", "METHODS", "SCIPY_SOLVERS", "SINGULAR_COND",
           "NEWTON_TOL"]

METHODS = ("partitioning", "projection")
SCIPY_SOLVERS = ("Radau", "BDF", "LSODA", "DOP853", "RK45", "RK23")

STEPS_PER_PERIOD = 40
"""Default generalized-alpha steps per period of the first elastic mode (with the
actuated coordinates locked, at the start): the scheme's period error is
(omega h)^2 / 12 = 0.2 % per period at 40 steps, its numerical damping
(rho_inf = 0.8) 0.1 % of critical there; the higher modes, unresolved, are damped."""


def default_step(system: MultibodySystem, q) -> float:
    """The default generalized-alpha step [s]: the first elastic period (actuated
    coordinates locked, at q, rates zero) over :data:`STEPS_PER_PERIOD`; 1 ms for a
    rigid system."""
    if system.n_elastic == 0:
        return 1e-3
    na = system.n_actuated
    Mr, _, _, _ = system.reduced(q, np.zeros(na + system.n_elastic))
    # real parts: a complex-step system (a perturbed length) integrates with the real
    # step of its unperturbed model
    w2 = lowest_eigenvalues(np.real(Mr[na:, na:]), np.real(system.elastic_stiffness()))[0]
    return float(min(1e-3, 2 * np.pi / np.sqrt(max(w2, 1e-30)) / STEPS_PER_PERIOD))

NEWTON_TOL = 1e-11
"""Generalized-alpha: Newton's tolerance on the position corrections [m and rad] (plus
1e-10 relative). Elastic coordinates are micrometres on stiff links (the 3-PRR): 1e-11 m
keeps 5 digits of them; on the 3-PRR's sine run it changes the elastic coordinates by
6e-6 of their peak against 1e-12 (and saves a Newton iteration in three), far below the
scheme's period error. Finite-difference sensitivities pass a tighter one."""

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
    singular_time (s or None), a message and the integrator step used [s]."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    residual: np.ndarray
    singular_time: float | None
    message: str
    step: float | None = None      # the generalized-alpha step [s] (None: scipy)
    # the contract's optional parts of a force-driven run (model.SimulatesEfforts): no
    # run at twice the step alongside, nothing to add to the warnings
    coarse: tuple | None = None
    notes: tuple = ()


def integrate(system: MultibodySystem, q0, qd0, t_eval, *, efforts=None, motion=None,
              method: str = "partitioning", solver: str = "generalized-alpha",
              step: float | None = None, rho_inf: float = 0.8, rtol: float = 1e-8,
              atol: float = 1e-10, max_step: float = np.inf, complex_step=None,
              newton_tol: float = NEWTON_TOL, progress=None) -> FFRFRun:
    """Integrate from a consistent state (q0, qd0) over the output times ``t_eval``.

    Parameters
    ----------
    efforts : callable t -> (n_a,), optional
        Force driven: the efforts [N or N m] along the actuated coordinates.
    motion : callable t -> (s, s_dot, s_ddot), optional
        Motion driven: the actuated coordinates prescribed (one of efforts, motion).
    method : "partitioning" or "projection"
    solver : "generalized-alpha" (default) or a scipy solve_ivp method
        "generalized-alpha":
        :func:`~elastodyn.integrators.nonlinear.generalized_alpha_nonlinear`, constant
        step ``step``, Newton to 1e-12 m/rad; or a scipy solve_ivp method ("Radau", "BDF", "DOP853", "RK45", "LSODA") with rtol,
        atol (atol in m and rad: the elastic coordinates are micrometres on stiff links,
        so 1e-10 keeps 4 digits of them) and max_step.
    step : generalized-alpha step [s] (default :func:`default_step`); the output
        interval (``t_eval`` uniform) is split into equal steps no longer than it.
    rho_inf : generalized-alpha spectral radius at infinite frequency, [0, 1].
    complex_step : the imaginary perturbation of a complex-step run (a system with
        complex parameters, :meth:`~.ffrf_contract.FFRFModel.scaled_beams`):
        generalized-alpha with partitioning only; Newton then converges the derivatives
        too.
    newton_tol : generalized-alpha: Newton's tolerance on the position corrections [m and
        rad] (:data:`NEWTON_TOL`; relative 1e-10 on top).
    progress : callable (t, T), optional
    """
    if method not in METHODS:
        raise InputError("method", method, " or ".join(METHODS))
    if (efforts is None) == (motion is None):
        raise InputError("efforts", "efforts and motion", "exactly one of them")
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1 or t_eval.size < 2 or np.any(np.diff(t_eval) <= 0):
        raise InputError("t_eval", t_eval.shape, "increasing output times, at least two")
    if solver == "generalized-alpha":
        if step is None:
            step = default_step(system, np.asarray(q0, float))
        step = float(step)
        if not (math.isfinite(step) and step > 0):
            raise InputError("step", step, "a finite step > 0 s")
        if not (math.isfinite(newton_tol) and newton_tol > 0):
            raise InputError("newton_tol", newton_tol, "a finite tolerance > 0 m")
        if complex_step is not None and method != "partitioning":
            raise InputError("method", method, "partitioning with a complex step")
        # one BLAS thread: the matrices are small (tens of rows), and OpenBLAS's threads
        # cost more than they give (6x slower complex runs measured on 2 cores)
        with small_problem_threads():
            return _generalized_alpha(system, np.asarray(q0, float),
                                      np.asarray(qd0, float), t_eval, efforts, motion,
                                      method, step, rho_inf, progress, complex_step,
                                      newton_tol)
    if complex_step is not None:
        raise InputError("solver", solver, "generalized-alpha with a complex step")
    if solver not in SCIPY_SOLVERS:
        raise InputError("solver", solver, "generalized-alpha or one of "
                         + ", ".join(SCIPY_SOLVERS))
    runner = _partitioned if method == "partitioning" else _projected
    return runner(system, np.asarray(q0, float), np.asarray(qd0, float), t_eval, efforts,
                  motion, solver, rtol, atol, max_step, progress)


def _det_measure(system, q, sign0) -> float:
    """The dependent Jacobian's scaled determinant, signed so that it starts positive (an
    event function: zero at a singularity)."""
    sign, d, _ = system.dependent_determinant(q)
    return sign * sign0 * d


def _singular_check(system, q, sign0):
    """(singular?, the signed scaled determinant): a sign change or a condition number
    above SINGULAR_COND."""
    sign, d, rcond = system.dependent_determinant(q)
    return sign != sign0 or not rcond > 1.0 / SINGULAR_COND, sign * sign0 * d


def _partitioned(system, q0, qd0, t_eval, efforts, motion, solver, rtol, atol, max_step,
                 progress):
    na, ne = system.n_actuated, system.n_elastic
    el = system.el_index
    s0, _ = system.actuated_coordinates(q0)
    N0 = system.velocity_map(q0)
    v0 = np.linalg.lstsq(N0, qd0, rcond=None)[0]
    sign0 = system.dependent_determinant(q0)[0]
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
                sol = bounded_solve_ivp(rhs, (t0, t1), y, method=solver, rtol=rtol,
                                        atol=atol, max_step=step, events=event,
                                        what="FFRF simulation")
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


class _SingularWatch:
    """The signed, scaled determinant of the dependent Jacobian along a run: a sign
    change or a condition number above SINGULAR_COND ends the run, the event time
    interpolated linearly between the last two steps (or extrapolated from them when the
    closure fails within a step)."""

    def __init__(self, system, q0):
        self.system = system
        self.sign0 = system.dependent_determinant(q0)[0]
        self.hist = [(0.0, _det_measure(system, q0, self.sign0))]

    def start(self, t0):
        self.hist = [(float(t0), self.hist[-1][1])]

    def check(self, t, q):
        bad, d = _singular_check(self.system, q, self.sign0)
        if bad:
            (t0, d0) = self.hist[-1]
            te = t0 + (t - t0) * d0 / (d0 - d) if d < 0 < d0 else t
            raise StopIntegration("singular", te)
        self.hist = self.hist[-1:] + [(float(t), d)]

    def near(self, t, steps: float = 10.0) -> bool:
        """The determinant, extrapolated from the last two steps, reaches zero within
        ``steps`` more steps of their spacing after t."""
        if len(self.hist) < 2:
            return False
        (t0, d0), (t1, d1) = self.hist[-2], self.hist[-1]
        if not d1 < d0:
            return False
        return t1 + (t1 - t0) * d1 / (d0 - d1) <= t + steps * (t1 - t0)

    def extrapolate(self, t):
        """The zero of the determinant extrapolated from the last two steps, if it lies
        before t (the failed step's end), else the last accepted time."""
        if len(self.hist) < 2:
            return self.hist[-1][0]
        (t0, d0), (t1, d1) = self.hist[-2], self.hist[-1]
        if d1 < d0 and d1 > 0:
            te = t1 + (t1 - t0) * d1 / (d0 - d1)
            if te <= t:
                return te
        return t1


class _Partitioned(NonlinearProblem):
    """Coordinate partitioning (eqs. (91)-(106)) as a residual in the accelerations of
    the independent coordinates: ``M_r v_dd + c_r - [tau; 0] = 0`` (force driven, x =
    [s; q_f]) or its elastic rows with the actuated accelerations prescribed (motion
    driven, x = q_f). Iteration matrix ``M_r + beta' K_f`` (the elastic stiffness, the
    dominant part of the tangent; gyroscopic and geometric terms left to Newton)."""

    def __init__(self, system, q0, efforts, motion, watch):
        self.s, self.efforts, self.motion, self.watch = system, efforts, motion, watch
        self.q = q0.copy()
        self.na, self.ne = system.n_actuated, system.n_elastic
        self.n = self.ne if motion is not None else self.na + self.ne
        Kf = system.elastic_stiffness()
        self.Kbar = np.zeros((self.na + self.ne,) * 2, dtype=Kf.dtype)
        self.Kbar[self.na:, self.na:] = Kf
        self.Mr = None

    def full(self, t, x, v):
        if self.motion is not None:
            s, sd, sdd = self.motion(t)
            return np.concatenate([s, x]), np.concatenate([sd, v]), sdd
        return x, v, None

    def residual(self, t, x, v, z):
        X, V, sdd = self.full(t, x, v)
        na = self.na
        try:     # the closure and the partitioned equations (compiled where possible)
            self.q, Mr, cr, _ = self.s.closed_reduced(self.q, X[:na], X[na:], V)
        except SingularConfiguration:
            raise StopIntegration("closure", self.watch.extrapolate(t)) from None
        Mr, cr = Mr.copy(), cr.copy()        # the kernel's buffers are reused
        self.Mr = Mr
        if sdd is None:
            cr[:self.na] -= self.efforts(t)
            return Mr @ z + cr
        na = self.na
        return Mr[na:, na:] @ z + Mr[na:, :na] @ sdd + cr[na:]

    def matrix(self, t, x, v, z, beta_p, gamma_p):
        S = self.Mr + beta_p * self.Kbar
        return S if self.motion is None else S[self.na:, self.na:]

    def failed(self, t, message):
        # Newton fails as the singularity nears: the dependent rates and accelerations
        # grow without bound there (the closure's Jacobian loses rank)
        if self.watch.near(t):
            raise StopIntegration("closure", self.watch.extrapolate(t))

    def accept(self, t, x, v, z):
        # the singularity watch reads the closure of the last Newton iterate (the
        # accepted x differs from it by the last correction, below the tolerance)
        self.watch.check(t, self.q)
        return x, v

    def initial(self, t0):
        x0 = self.s.actuated_coordinates(self.q)[0]
        N = self.s.velocity_map(self.q)
        return x0, N


class _IndexThree(NonlinearProblem):
    """Index-3 DAE (eqs. (43)-(44)) in all coordinates: unknowns q_dd and the
    multipliers, the constraint rows ``Phi(q) / beta'`` (Arnold & Bruels 2007, section
    4): the positions satisfy the constraints at every step to Newton's tolerance; the
    velocities are projected onto ``Phi_q q_dot = rhs`` after each step (the residual
    before that projection is reported)."""

    def __init__(self, system, efforts, motion, watch):
        self.s, self.efforts, self.motion, self.watch = system, efforts, motion, watch
        self.n = system.n
        self.m = system.n_c + (system.n_actuated if motion is not None else 0)
        self.K = system.K
        self.M = None
        self.P = None
        self.beta_p = 1.0
        self.residuals = []

    def prepare(self, beta_p, gamma_p):
        self.beta_p = beta_p

    def _phi(self, t, q):
        C, P = self.s.constraints(q)
        a, Ja = self.s.actuated_coordinates(q)
        if self.motion is not None:
            s = self.motion(t)[0]
            return np.concatenate([C, a - s]), np.vstack([P, Ja]), Ja
        return C, P, Ja

    def residual(self, t, x, v, z):
        n = self.n
        M = self.s.mass_matrix(x)
        Q = self.s.forces(x, v)
        C, P, Ja = self._phi(t, x)
        self.M, self.P = M, P
        if self.efforts is not None:
            Q = Q + Ja.T @ self.efforts(t)
        return np.concatenate([M @ z[:n] + P.T @ z[n:] - Q, C / self.beta_p])

    def matrix(self, t, x, v, z, beta_p, gamma_p):
        n, m = self.n, self.m
        A = np.zeros((n + m, n + m), dtype=np.result_type(self.M, self.P))
        A[:n, :n] = self.M + beta_p * self.K
        A[:n, n:] = self.P.T
        A[n:, :n] = self.P
        return A

    def accept(self, t, x, v, z):
        C, P, _ = self._phi(t, x)
        rhs = np.zeros(P.shape[0])
        if self.motion is not None:
            rhs[self.s.n_c:] = self.motion(t)[1]
        self.residuals.append(float(np.abs(self.s.constraints(x)[0]).max(initial=0.0)))
        v = v - P.T @ np.linalg.solve(P @ P.T, P @ v - rhs)
        self.watch.check(t, x)
        return x, v


def _alpha_grid(t_eval, step):
    """The output times as a uniform grid and the substeps per output interval."""
    d = np.diff(t_eval)
    if np.ptp(d) > 1e-9 * d.max():
        raise InputError("t_eval", "non-uniform output times",
                         "uniform output times with the generalized-alpha solver")
    k = max(1, int(math.ceil(d[0] / step - 1e-9)))
    return k, d[0] / k


def _generalized_alpha(system, q0, qd0, t_eval, efforts, motion, method, step, rho_inf,
                       progress, complex_step=None, tol=None):
    k, h = _alpha_grid(t_eval, step)
    t0, T = float(t_eval[0]), float(t_eval[-1])
    watch = _SingularWatch(system, q0)
    watch.start(t0)
    na, ne, el = system.n_actuated, system.n_elastic, system.el_index
    tol = NEWTON_TOL if tol is None else float(tol)
    if method == "partitioning" and motion is not None and ne == 0:
        return _kinematic(system, q0, t_eval, motion, watch, h)
    if method == "partitioning":
        prob = _Partitioned(system, q0, efforts, motion, watch)
        s0, N = prob.initial(t0)
        V0 = np.linalg.lstsq(N, qd0, rcond=None)[0]
        X0 = np.concatenate([s0, q0[el]])
        Mr, cr, _, _ = system.reduced(q0, V0)
        if motion is None:
            f = -cr
            f[:na] += efforts(t0)
            x0, v0, z0 = X0, V0, np.linalg.solve(Mr, f)
        else:
            sdd = motion(t0)[2]
            z0 = np.linalg.solve(Mr[na:, na:], -cr[na:] - Mr[na:, :na] @ sdd)
            x0, v0 = X0[na:], V0[na:]
    else:
        prob = _IndexThree(system, efforts, motion, watch)
        tau = efforts(t0) if motion is None else motion(t0)[2]
        qdd, lam = system.accelerations(q0, qd0, tau, driven=motion is not None)
        x0, v0, z0 = q0, qd0, np.concatenate([qdd, lam])
    res = generalized_alpha_nonlinear(prob, x0, v0, z0, t_end=T, dt=h, t0=t0,
                                      rho_inf=rho_inf, atol=tol, rtol=1e-10,
                                      complex_step=complex_step, progress=progress)
    idx = np.arange(0, res.time.size, k)
    singular = res.t_event if res.stopped else None
    qs, qds, rs = [], [], []
    if method == "partitioning":
        prob.q = q0.copy()
        for i in idx:
            X, V, _ = prob.full(res.time[i], res.x[i], res.v[i])
            q, _, _, qd = system.closed_reduced(prob.q, X[:na], X[na:], V)
            prob.q = q
            qs.append(q)
            qds.append(qd.copy())
            rs.append(system.closure_residual)
    else:
        r_all = [float(np.abs(system.constraints(q0)[0]).max(initial=0.0))] + prob.residuals
        for i in idx:
            qs.append(res.x[i])
            qds.append(res.v[i])
            rs.append(r_all[i])
    return dataclasses.replace(_finish(system, res.time[idx], qs, qds, rs, singular),
                               step=h)


def _kinematic(system, q0, t_eval, motion, watch, h):
    """A motion-driven system without elastic coordinates has no unknown left: its
    positions and rates at the output times are the closure and the velocity map at the
    prescribed actuated coordinates (no integration; the singularity watched at every
    output time)."""
    qs, qds, rs, ts = [], [], [], []
    q, singular = q0, None
    for t in t_eval:
        s, sd, _ = motion(float(t))
        try:
            q, _, _, qd = system.closed_reduced(q, s, np.zeros(0), sd)
            watch.check(float(t), q)
        except (SingularConfiguration, StopIntegration) as e:
            singular = e.t_event if isinstance(e, StopIntegration) else float(t)
            break
        ts.append(float(t))
        qs.append(q)
        qds.append(qd.copy())
        rs.append(system.closure_residual)
    return dataclasses.replace(_finish(system, np.array(ts), qs, qds, rs, singular), step=h)


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
    sign0 = system.dependent_determinant(q0)[0]

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
                sol = bounded_solve_ivp(rhs, (t0, t1), np.concatenate([q, qd]), method=solver,
                                        rtol=rtol, atol=atol, max_step=step, events=event,
                                        what="FFRF simulation")
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
