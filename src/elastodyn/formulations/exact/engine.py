"""The motion-driven engine of the exact formulation (every family): generalized-alpha on
the elastic coordinates with the actuated ones prescribed (issue 31, item 3).

A model of this package provides ``_terms(state, full=True)`` with the mass matrix ``M``, the bias
``c`` (velocity forces, potential gradient, friction) and, when ``full``, the
potential's Hessian ``K`` and the velocity forces' tangent ``C`` (its ``linearize`` for the lowest frequency), and the
contract's ``inverse_dynamics`` and ``static_deflection``. The equations are those of the
model's coordinates, in which the joints and the closed loops hold exactly
(:mod:`elastodyn.formulations.exact.delta`): no constraint equations, no drift, nothing
to stabilize.

Units: SI, rad.
"""
from __future__ import annotations

import math

import numpy as np

from ...exceptions import InputError, ModelError
from ...fem.modal import modal_analysis
from ...integrators.scheme import STEP_ERROR_LIMIT, richardson_error
from ...model import RunReport
from ..base import (INITIAL_STATES, NonlinearModel, actuated_motion, efforts_along,
                    motion_function, motion_response)

__all__ = ["METHODS", "MAX_STEPS", "STEPS_PER_PERIOD", "CONTROLLERS", "ExactModel",
           "simulate_motion", "simulate_controlled", "free_run", "prescribed_run",
           "ForcedRun"]

METHODS = ("generalized-alpha",)
"""--method of a motion-driven run: the constant-step generalized-alpha engine. The
generic error-controlled ones (dop853, radau) are refused: the beams' axial modes (10
kHz and above) make them take hours for a fraction of a second (radau did not finish 2
ms of Kuo's Delta in 120 s), where this engine damps those modes."""

MAX_STEPS = 1e6
"""Most integrator steps of a run: each is a few evaluations of 1 to 40 ms (the Delta at
4 elements per link: about 40 ms a step), so 1e6 steps are hours; a run that would take
more is refused before any work (Kuo's 5 s circle at 1 ms takes 5e3)."""

STEPS_PER_PERIOD = 40
"""Default integrator steps per period of the lowest elastic mode (locked actuators, at
the start): the generalized-alpha method's phase error is (omega h)^2 / 12 per radian,
2 % of a period at 40 steps, and its numerical damping at rho_inf = 0.9 is negligible
there."""


def _no_mechanism(model):
    """A run of a mechanism (ball joints with the actuators locked: zero or negative
    stiffness on the platform's turns) is refused before any work: its step, from the
    lowest locked frequency, has no meaning, and the mechanism's motion is not what the
    formulation models."""
    if model.mechanisms:
        raise ModelError(f"exact: the robot with locked actuators is a mechanism "
                         f"({model.mechanisms} freedom(s): ball joints); universal or "
                         "clamped joints")


def prescribed_run(model, motion, st0, a0, times, dt, *, stop: bool = False,
                   rho_inf: float = 0.9, progress=None,
                   what: str = "exact (generalized-alpha)"):
    """Generalized-alpha (``rho_inf``, step ``dt``) on the elastic coordinates of
    ``model`` with the actuated ones following ``motion(t)`` -> (q_a, qd_a, qdd_a),
    from ``st0`` (its elastic positions and rates) with elastic accelerations ``a0``,
    over ``times``. ``stop``: an assembly failure (a singular configuration) ends the
    run at the last step (the result's ``stopped``) instead of raising. Returns the
    integrator's result (its ``x``, ``v`` the elastic coordinates and rates)."""
    from ...integrators.nonlinear import (NonlinearProblem, StopIntegration,
                                          generalized_alpha_nonlinear)
    na, ne = model.n_actuated, model.n_elastic

    class Problem(NonlinearProblem):
        n = ne
        extrapolate = True      # the elastic accelerations vary smoothly along a motion

        def state(self, t, x, v, z):
            a, ad, add = motion(t)
            return st0.with_(q=np.concatenate([a, x]), v=np.concatenate([ad, v]),
                             a=np.concatenate([add, z]), t=t)

        def terms(self, t, x, v, z, full):
            try:
                return model._terms(self.state(t, x, v, z), full=full)
            except (InputError, ModelError) as exc:
                if not stop:
                    raise
                raise StopIntegration(f"at t = {t:.6g} s the robot cannot be assembled "
                                      f"(a singular configuration: {exc})", t) from None

        fresh = True

        def residual(self, t, x, v, z):
            # the first residual of a step evaluates the tangents too: the iteration
            # matrix, built at that iterate, then reuses them (one evaluation less per
            # step); the later iterates need the residual alone
            T = self.terms(t, x, v, z, self.fresh)
            self.fresh = False
            return (T["M"] @ self.state(t, x, v, z).a + T["c"])[na:]

        def matrix(self, t, x, v, z, beta_p, gamma_p):
            # M + gamma' C + beta' K: the position derivatives of the inertia and
            # velocity forces are left out of the iteration matrix (Newton then
            # converges linearly where they matter; the residual is exact)
            T = self.terms(t, x, v, z, True)
            A = T["M"] + gamma_p * T["C"] + beta_p * T["K"]
            return A[na:, na:]

        def accept(self, t, x, v, z):
            q = self.state(t, x, v, z).q
            if watch is not None:
                watch(t, q)
            self.last = q
            self.fresh = True
            return x, v

    watch = _watch(model, st0, stop, what)
    prob = Problem()
    prob.last = st0.q

    # Newton until the correction is below 1e-8 m (rad) + 1e-6 of the coordinate: the
    # step's own local error is ~ (omega h)^3 of the amplitude (1e-3 of 0.1 m at 5 ms on
    # Kuo's Delta), orders above; measured on Kuo's pick-and-place: positions within
    # 1.1e-9 m of the run at 1e-12 m + 1e-9, 44 % fewer iterations
    try:
        return generalized_alpha_nonlinear(
            prob, st0.elastic, st0.elastic_rates, a0, t0=float(times[0]),
            t_end=float(times[-1]), dt=dt, rho_inf=rho_inf, atol=1e-8, rtol=1e-6,
            progress=progress, what=what)
    except ModelError as exc:
        # a Newton failure near a singular configuration says so (its condition
        # number at the last accepted step: the passive joints' sensitivity)
        cond = model.closure_condition(prob.last) if watch is not None else None
        if cond is not None and cond[1] > 0.1 * SINGULAR_COND:
            raise ModelError(f"{exc}; the robot is near a singular configuration there "
                             f"(the loop closure's condition number {cond[1]:.3g}: "
                             "the passive joints move that many times faster than the "
                             "actuated ones)") from None
        raise


def simulate_motion(model, trajectory, times, *, initial: str = "static",
                    method: str | None = None, integrator_step: float | None = None,
                    progress=None, what: str = "link", step_error: bool = True):
    """The elastic response of ``model`` to a prescribed motion of its actuated
    coordinates (:class:`~elastodyn.model.SimulatesMotion`): generalized-alpha (rho_inf
    0.9) on the elastic coordinates, constant step ``integrator_step`` (default:
    :data:`STEPS_PER_PERIOD` per period of the lowest elastic mode at the start, at most
    the output step, dividing it). ``what`` names the elements in the description
    (``link``).

    ``step_error``: the step's error is estimated (:func:`_step_error`: Richardson
    against the run at twice the step; the summary's ``step_error_m``,
    ``step_error_ratio``, ``step_error_effort``, ``step_error_effort_ratio``), and a
    default step halved while the estimate is above
    :data:`~elastodyn.integrators.scheme.STEP_ERROR_LIMIT` of the largest change of
    the end-effector deviation from its start (at most :data:`MAX_REFINEMENTS` times; ``step_refinements``), else
    warned of. About 1.5 times the run's cost without refinement. False: the run alone
    (a benchmark's like-for-like timing)."""
    method = method or "generalized-alpha"
    if method not in METHODS:
        raise InputError("--method", method, " or ".join(METHODS) + " (the error-"
                         "controlled integrators would resolve the beams' axial modes: "
                         "hours)")
    if initial not in INITIAL_STATES:
        raise InputError("--initial", initial, " or ".join(INITIAL_STATES))
    _no_mechanism(model)
    times = np.asarray(times, dtype=float)
    h_out = float(times[1] - times[0]) if len(times) > 1 else 1e-3
    if integrator_step is not None:     # refused before any work
        step = float(integrator_step)
        if not (math.isfinite(step) and step > 0):
            raise InputError("--integrator-step", integrator_step, "a time > 0 s")
        if step > h_out * (1 + 1e-9):
            raise InputError("--integrator-step", integrator_step,
                             f"at most the output step --step ({h_out:g} s): the "
                             "integrator's steps divide it")
        window = float(times[-1] - times[0])
        if window / step > MAX_STEPS:
            raise InputError("--integrator-step", integrator_step,
                             f"at least {window / MAX_STEPS:.3g} s (at most "
                             f"{MAX_STEPS:.0e} steps over the {window:.4g} s window)")
    qa, qda, qdda = actuated_motion(model, trajectory, times)
    motion = motion_function(trajectory, times, qa)
    ne = model.n_elastic
    st0 = model.state(actuated=qa[0], rates=qda[0])
    if initial == "static":
        st0 = model.static_deflection(st0)
    # the lowest frequency at the start, about the equilibrium at rest with its preload
    # (the tangent this model integrates: gravity through a closed loop stiffens or
    # softens the links, 28 -> 42 Hz on Briot's five-bar; a moving start's exact tangent
    # would cost finite differences)
    lin = model.linearize(model.at(st0, v=np.zeros(model.n), a=np.zeros(model.n)),
                          preload=True)
    w = float(modal_analysis(lin.M, lin.K, count=1).omega_rad_s[0])
    step = (min(h_out, 2 * math.pi / (STEPS_PER_PERIOD * w)) if integrator_step is None
            else float(integrator_step))
    sub = max(1, math.ceil(h_out / step - 1e-9))
    dt = h_out / sub

    a0 = model.inverse_dynamics(model.at(st0, a=np.concatenate(
        [qdda[0], np.zeros(ne)]))).elastic_accelerations

    def run(h, js, bar=None):
        """The run at step h (dividing 2 h_out), sampled at the output samples js
        (each a whole number of steps from the start): (X, Xd, efforts, poses, rigid
        efforts, rigid poses, Newton iterations) there."""
        per = h_out / h
        k = np.rint(js * per).astype(int)
        end = np.array([times[0], times[0] + k[-1] * h])
        res = prescribed_run(model, motion, st0, a0, end, h, progress=bar)
        if res.stopped:
            raise ModelError(f"exact: the run stopped at t = {res.time[-1]:.6g} s: "
                             f"{res.stopped}")
        if len(res.x) != k[-1] + 1:
            raise ModelError(f"exact: {len(res.x)} steps for {k[-1] + 1}")
        X, Xd = res.x[k], res.v[k]
        tau, rtau, pose, rpose = model._efforts_along(st0, times[js], qa[js], qda[js],
                                                      qdda[js], X, Xd)
        return X, Xd, np.asarray(tau), np.asarray(pose), np.asarray(rtau), \
            np.asarray(rpose), int(np.sum(res.newton))

    every = np.arange(len(times))
    halved, step0 = 0, dt
    while True:
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                fine = run(dt, every, progress)
            break
        except ModelError as exc:
            # a default step is halved where Newton fails (measured: Kuo's Delta from
            # its static deflection into the circle's start, at 2.5 ms, not at 1.25 ms);
            # a given one is the user's: said with the option that changes it
            if "Newton" not in str(exc):
                raise
            if integrator_step is not None or halved >= HALVINGS or \
                    2 * (times[-1] - times[0]) / dt > MAX_STEPS:
                raise ModelError(f"{exc}; a smaller --integrator-step"
                                 + (f" (the default {step0:.3g} s was halved {halved} "
                                    "time(s))" if halved else "")) from None
            halved += 1
            dt, sub = dt / 2, sub * 2
    newton = fine[6]
    est, refinements, why = None, 0, ""
    if step_error:
        # the step's error (issue 32 item 3): Richardson against the run at twice the
        # step, on the output samples both runs reach; a default step is halved while
        # the estimate is above the limit (module constants), or when the run at twice
        # the step fails (Newton: the estimate then comes from the run at half the step)
        js = every[(every * sub) % 2 == 0] if sub % 2 else every
        try:
            # a diverging attempt overflows on its way to the non-finite correction
            # that ends it: no numpy warnings (its failure is said in the notes)
            with np.errstate(over="ignore", invalid="ignore"):
                coarse = run(2 * dt, js)
            est = _step_error(fine, coarse, js)
        except ModelError as exc:
            why = f"the run at twice the step failed ({exc})"

        def above(e):
            return e is None or (e["step_error_ratio"] > STEP_ERROR_LIMIT
                                 and e["step_error_m"] > STEP_ERROR_FLOOR)
        while (integrator_step is None and refinements < MAX_REFINEMENTS and above(est)
               and 2 * (times[-1] - times[0]) / dt <= REFINE_MAX_STEPS):
            try:
                with np.errstate(over="ignore", invalid="ignore"):
                    finer = run(dt / 2, every, progress)
            except ModelError as exc:
                # the run at the step stands; the estimate, if any, is its own
                why = why or f"the run at half the step failed ({exc})"
                break
            dt, sub = dt / 2, sub * 2
            coarse, fine = fine, finer
            newton += fine[6]
            last = None if est is None else est["step_error_richardson_m"]
            est = _step_error(fine, coarse, every)
            refinements += 1
            # three runs: is the difference falling at the second order's rate (by 4
            # when the step halves)? Not by 2 at least: the steps are not yet in the
            # asymptotic range (Briot's five-bar rides on axial modes the steps do not
            # resolve: 1e-6 m differences at 1, 0.5 and 0.25 ms, then 1e-7 at 0.06
            # ms), where Richardson's 1/3 underestimates (by 3 there, measured): the
            # difference itself is the estimate then
            if last is not None and est["step_error_richardson_m"] > 0.5 * last:
                est = {k: (3 * v if k.startswith("step_error") and "richardson" not in k
                           else v) for k, v in est.items()}
                est["step_error_converging"] = False
    X, _, tau, pose, rtau, rpose, _ = fine
    f1 = w / (2 * math.pi)
    # what the step resolves (the generalized-alpha method's phase error,
    # (omega h)^2 / 12 per radian; modes above 1 / (10 h) are damped by rho_inf 0.9)
    notes = ([f"the default integrator step was halved {halved} time(s) after Newton "
              f"failed, {step0:.3g} -> {step0 / 2 ** halved:.3g} s"] if halved else [])
    notes += [f"integrator step {dt:.3g} s: the lowest elastic mode ({f1:.4g} Hz at the "
             f"start) has {1.0 / (f1 * dt):.0f} steps per period (phase drift "
             f"{(2 * math.pi * f1 * dt) ** 2 / 12:.1e} per radian); modes above "
             f"{1.0 / (10 * dt):.4g} Hz are not resolved (numerically damped; the axial "
             "modes among them)"]
    if step_error and est is None:
        notes.append(f"no estimate of the integrator step's error: {why}")
    elif est is not None and est["step_error_ratio"] > STEP_ERROR_LIMIT and \
            est["step_error_m"] > STEP_ERROR_FLOOR:
        how = ("Richardson against the run at twice the step" if
               est.get("step_error_converging", True) else
               "the difference from the run at twice the step, which did not fall at "
               "the method's second order from the step before")
        notes.append(f"the integrator step's error estimate is "
                     f"{100 * est['step_error_ratio']:.3g} % of the largest change of "
                     f"the end-effector deviation from its start ({est['step_error_m']:.3g}"
                     f" m; {how}, {2 * dt:.3g} s"
                     + (f"; after {refinements} halvings of the default step"
                        if refinements else "")
                     + "): give a smaller --integrator-step (the error falls as the "
                       "step squared)")
    return motion_response(
        model, times, qa, tau, rtau, pose, rpose, X, method="generalized-alpha",
        warnings=tuple(notes),
        summary={"integrator_step_s": dt, "lowest_frequency_hz": f1,
                 "newton_iterations": newton,
                 **{k: v for k, v in (est or {}).items() if "richardson" not in k},
                 "step_refinements": refinements},
        description=(f"exact, {model.options['elements']} element(s) per {what}, "
                     f"{ne} elastic dof, generalized-alpha, step {dt:.3g} s, initial "
                     f"state: {initial}"))


STEP_ERROR_FLOOR = 1e-7
"""An error estimate below 1e-7 m is never above the limit: ten times Newton's absolute
tolerance on the elastic positions (1e-8 m), the noise of both runs, which a smaller
step does not reduce."""

REFINE_MAX_STEPS = 5000
"""A default step is halved only while the run at half the step takes at most this many
steps (a minute's work at 1 to 10 ms a step; deterministic, unlike a wall-time budget):
beyond, the warning gives the estimate and the user chooses the step (Kuo's 0.8 s
motions at 0.5 ms: 1600 steps)."""

MAX_REFINEMENTS = 2
"""Halvings of a default step whose error estimate is above :data:`~elastodyn.integrators.scheme.STEP_ERROR_LIMIT`
(each doubles the run's cost: at most a quarter of the first step, about 7.5 times
the first run's cost with the estimate's runs; beyond, a warning gives the estimate).
Briot's five-bar, whose platform rides on the beams' axial modes, needs a step near
0.1 ms for 5 % (benchmarks/peers.py): its default run stops at :data:`REFINE_MAX_STEPS`
and says how far off it is."""


def _step_error(fine, coarse, js) -> dict:
    """The error estimate of the run at step h (``fine``, at every output sample) from
    the run at 2 h (``coarse``, at the output samples ``js``), Richardson for the
    generalized-alpha method's second order: e = (x_h - x_2h) / (2^2 - 1). Returns
    ``step_error_m`` (the largest over the run of |e| of the end-effector position [m]),
    ``step_error_ratio`` (that over the largest change of the end-effector deviation
    from the rigid robot from its start; 0 without), ``step_error_effort`` (the largest |e| of an effort [N
    or N m]) and ``step_error_effort_ratio`` (over the peak |effort|);
    ``step_error_richardson_m`` keeps the Richardson value where the caller replaces the
    estimate by the difference itself (steps not yet in the asymptotic range)."""
    _, _, tau, pose, _, rpose, _ = fine
    _, _, tau_c, pose_c, _, _, _ = coarse
    e_pos = np.linalg.norm(richardson_error(pose[js], pose_c), axis=-1)
    e_tau = np.abs(richardson_error(tau[js], tau_c))
    # the scale: the largest change of the deviation from the rigid robot from its
    # start (the static deflection there, computed at rest, has no step error; over the
    # peak deviation itself a sag-dominated run would hide a large error of its motion)
    dev = pose - rpose
    peak = float(np.linalg.norm(dev - dev[0], axis=-1).max())
    peak_tau = float(np.abs(tau).max()) if tau.size else 0.0
    err, err_tau = float(e_pos.max()), float(e_tau.max()) if e_tau.size else 0.0
    return {"step_error_m": err, "step_error_ratio": err / peak if peak > 0 else 0.0,
            "step_error_richardson_m": err,
            "step_error_effort": err_tau,
            "step_error_effort_ratio": err_tau / peak_tau if peak_tau > 0 else 0.0}


MAX_STRAIN = 0.01
"""Largest axial strain of an element at a static equilibrium: 1 %, five times the yield
strain of the structural metals and the edge of the small-strain elasticity every
element of this package assumes (the corotational frame carries the large rotations,
not large strains); beyond it the equilibrium is refused by name (a slider crank spun
at 1e6 rad/s had its rod stretched to 1700 times its length, exit 0)."""

SINGULAR_COND = 1e3
"""A closed-loop robot is at a singular configuration (its actuated coordinates no
longer fix the mechanism) where the loop closure's Jacobian over the passive joints
changes the sign of its determinant or its condition number exceeds this: the passive
joints then move a thousand times faster than the coordinates (rows in m and rad,
links of 0.1 to 1 m). Why not FFRF's 1e8: the passive joints are solved on one assembly
branch at every evaluation, so a free mechanism that reaches the singularity (and
would cross to the other branch) folds back instead, with no sign change; the run's
steps pass the fold at a distance of the step, where the condition number peaks at a
finite value: measured on the 3-PRR's pulse (rigid links), 4.2e3 at 1 ms steps and
2.6e5 at 0.1 ms, against 62 at most along the motion before; the run then stops at
0.389 and 0.3882 s, where FFRF's does at 0.388 and 0.3898 s. Past the fold the branch a free mechanism takes is
not the model's to choose: the run stops there."""


def _watch(model, st0, stop: bool, what: str):
    """The runs' check of each accepted step (``accept``): None for a model without
    loops, else a function (t, q) that raises at a singular configuration (the run's
    end, :class:`StopIntegration`, with ``stop``; a ModelError naming the time
    otherwise)."""
    from ...integrators.nonlinear import StopIntegration
    first = model.closure_condition(st0.q)
    if first is None:
        return None
    sign0 = first[0]

    def check(t, q):
        sign, cond = model.closure_condition(q)
        if sign != sign0 or not cond < SINGULAR_COND:
            msg = (f"singular configuration at t = {t:.6g} s: the actuated coordinates no "
                   "longer fix the mechanism (the loop closure's Jacobian over the passive "
                   f"joints {'changed sign' if sign != sign0 else 'lost rank'}); the run "
                   "stops there")
            if stop:
                raise StopIntegration(msg, t)
            raise ModelError(f"{what}: {msg}")
    return check


CONTROLLERS = ("pd",)
"""Closed-loop controllers of the exact formulation's engine."""

HALVINGS = 6
"""Restarts of a closed-loop run at half the step after a Newton failure (a step 64
times below the first one before the failure is reported)."""


def _pd_gains(model, st, controller):
    """(kp, kd) (n_a,) of the joint PD, the lowest locked frequency [Hz] and the
    actuated coordinates' own inertia J (n_a,): the given
    gains, or by default a critically damped loop of each actuated coordinate's own
    inertia J (the diagonal of M_aa at the start) at the lowest elastic frequency w1 with
    the actuators locked, kp = J w1^2, kd = 2 J w1: the common rule that a joint loop's
    bandwidth stays up to the first structural resonance, on any robot [N m/rad,
    N m s/rad or N/m, N s/m]. A PD holds gravity with an error (kp e = the gravity
    torque): the result reports it."""
    na = model.n_actuated
    lin = model.linearize(model.at(st, v=np.zeros(model.n), a=np.zeros(model.n)),
                          preload=True)
    wc = float(modal_analysis(lin.M, lin.K, count=1).omega_rad_s[0])
    J = np.diag(model.mass_matrix(st))[:na]
    kp = np.full(na, np.nan) if controller.get("kp") is None else np.full(na, float(controller["kp"]))
    kd = np.full(na, np.nan) if controller.get("kd") is None else np.full(na, float(controller["kd"]))
    if not np.all(np.isnan(kp)) and not (np.all(np.isfinite(kp)) and np.all(kp > 0)):
        raise InputError("--kp", float(kp[0]), "a finite gain > 0")
    if not np.all(np.isnan(kd)) and not (np.all(np.isfinite(kd)) and np.all(kd >= 0)):
        raise InputError("--kd", float(kd[0]), "a finite gain >= 0")
    kp = np.where(np.isnan(kp), J * wc * wc, kp)
    kd = np.where(np.isnan(kd), 2.0 * J * wc, kd)
    return kp, kd, wc / (2 * math.pi), J


def _loop_equilibrium(model, st, kp, qref, tol: float = 1e-11, max_iter: int = 50):
    """The static equilibrium of the robot under gravity with its actuators held by the
    PD's stiffness kp at qref (all coordinates free): c(q, 0) = [kp (qref - q_a); 0],
    Newton on K + diag(kp) from ``st`` (the locked static deflection). A PD does not
    hold a load without an error: the start of a tracking run is this state, not the
    reference (else the loop starts with the gravity torque unbalanced)."""
    na = model.n_actuated
    q = st.q.copy()
    for _ in range(max_iter):
        s = model.at(st, q=q, v=np.zeros(model.n), a=np.zeros(model.n))
        r = model.bias(s)
        r[:na] -= kp * (qref - q[:na])
        K = model._static_tangent(s).copy()
        K[:na, :na] += np.diag(kp)
        scale = max(1.0, float(np.abs(K).max() * np.abs(q).max()))
        if np.abs(r).max() <= max(tol * scale, model.residual_floor(s)):
            return s
        try:
            q = q - np.linalg.solve(K, r)
        except np.linalg.LinAlgError:
            raise ModelError("exact: singular stiffness of the robot held by its PD") from None
    raise ModelError(f"exact: no static equilibrium under the PD (kp = {kp.tolist()}) in "
                     f"{max_iter} Newton steps: gains too weak for the gravity load?")


def simulate_controlled(model, trajectory, controller: dict, duration: float, step: float,
                        *, initial_offset=None, free_vibration: bool = False,
                        progress=None) -> RunReport:
    """Closed-loop tracking by a joint PD on the actuated coordinates (all coordinates
    free; the actuators apply tau = kp (q_ref - q_a) + kd (qd_ref - qd_a)), by the
    generalized-alpha method on the model's exact equations (the iteration matrix
    M + gamma' (C + kd) + beta' (K + kp)).

    ``trajectory``: joint space, or task space through the rigid inverse kinematics. The
    run starts from the static equilibrium under gravity held by the PD at the start of
    the reference (a PD holds a load with an error: kp (q_ref - q_a) balances it). No
    ``free_vibration`` (Yu's release from rest: the assumed-modes formulation's).
    ``step``: the output step [s]; the integrator's divides it (at most
    :data:`STEPS_PER_PERIOD` per period of the lowest locked mode and of the loop).
    Results: ``time_s``, ``actuated`` and ``joint_error_rad`` (or ``_m``), the efforts,
    ``ee_position_m`` and ``reference_position_m`` (the rigid robot at the reference),
    ``position_error_m``, ``elastic``.
    """
    from ...model import effort_key
    from ...timegrid import uniform_times
    kind = controller.get("kind", "pd")
    if kind not in CONTROLLERS:
        raise InputError("--controller", kind, " or ".join(CONTROLLERS)
                         + " for the exact formulation")
    if initial_offset is not None:
        raise InputError("--offset", list(initial_offset), "only for a rigid Delta")
    if controller.get("gravity_compensation"):
        raise InputError("--gravity-compensation", True, "only for the rigid Delta's PD")
    times = uniform_times(float(trajectory.t_start), float(duration), float(step),
                          step_name="--step", duration_name="--duration")
    if (len(times) - 1) > MAX_STEPS:
        raise InputError("--step", step, f"at most {MAX_STEPS:.0e} steps over the window")
    _no_mechanism(model)
    if free_vibration:
        raise InputError("--scenario", "free-vibration", "a release from rest with the "
                         "assumed-modes formulation (amm); the exact one tracks motions "
                         "under its PD")
    qa, qda, qdda = actuated_motion(model, trajectory, times)
    ref = motion_function(trajectory, times, qa)
    na = model.n_actuated
    st0 = model.static_deflection(model.state(actuated=qa[0]))
    kp, kd, f1, J = _pd_gains(model, st0, controller)
    # the loop's own rates: its natural frequency sqrt(kp / J) and, overdamped, its
    # fast pole kd / J; the step resolves them too, and gains that would need more
    # than MAX_STEPS steps are refused by name before any work
    wl = float(np.sqrt(np.max(kp / J)))
    wd = float(np.max(kd / J))
    h_out = float(times[1] - times[0])
    fmax = max(f1, wl / (2 * math.pi), wd / (2 * math.pi))
    window = float(times[-1] - times[0])
    if window * STEPS_PER_PERIOD * fmax > MAX_STEPS:
        name, value = (("--kp", float(np.max(kp))) if wl >= wd
                       else ("--kd", float(np.max(kd))))
        raise InputError(name, value, f"gains whose loop the integrator can follow in at "
                         f"most {MAX_STEPS:.0e} steps over {window:g} s (the joints' "
                         f"inertia {J.min():.3g} kg m^2 or kg)")
    st0 = _loop_equilibrium(model, st0, kp, qa[0])
    sub = max(1, math.ceil(h_out * STEPS_PER_PERIOD * fmax - 1e-9))
    dt = h_out / sub

    def tau_of(t, x, v):
        a, ad, _ = ref(t)
        return kp * (a - x[:na]) + kd * (ad - v[:na])

    res, sub, dt, halvings = free_run(model, st0, tau_of, times, sub,
                                      gains=(kp, kd), progress=progress,
                                      what="exact (closed loop)")
    if res.stopped:
        raise ModelError(f"exact: the run stopped at t = {res.time[-1]:.6g} s: {res.stopped}")
    Q, V = res.x[::sub], res.v[::sub]
    if len(Q) != len(times):
        raise ModelError(f"exact: {len(Q)} samples for {len(times)} output times")
    tau = np.array([tau_of(t, x, v) for t, x, v in zip(times, Q, V)])
    pose = np.array([np.asarray(model.at(st0, q=x, v=v).pose, float)[:3] for x, v in zip(Q, V)])
    rpose = np.array([np.asarray(model.state(actuated=a).pose, float)[:3] for a in qa])
    pose = np.pad(pose, ((0, 0), (0, 3 - pose.shape[1])))
    rpose = np.pad(rpose, ((0, 0), (0, 3 - rpose.shape[1])))
    units = model.coordinates.units[:na]
    ekey, eunit = effort_key(units)
    names = list(model.coordinates.names[:na])
    jkey = "joint_error_rad" if set(units) == {"rad"} else "joint_error_si"
    q = {"time_s": times, "actuated": Q[:, :na], jkey: Q[:, :na] - qa, ekey: tau,
         "ee_position_m": pose, "reference_position_m": rpose,
         "position_error_m": pose - rpose, "elastic": Q[:, na:]}
    cols = {"actuated": names, jkey: [f"{nm}_error" for nm in names],
            ekey: [f"{nm}_{eunit}" for nm in names],
            "ee_position_m": [f"ee_{c}_m" for c in "xyz"],
            "reference_position_m": [f"reference_{c}_m" for c in "xyz"],
            "position_error_m": [f"error_{c}_m" for c in "xyz"],
            "elastic": list(model.coordinates.names[na:])}
    e = np.linalg.norm(pose - rpose, axis=1)
    summary = {"max_position_error_m": float(e.max()), "final_position_error_m": float(e[-1]),
               "max_joint_error": np.abs(Q[:, :na] - qa).max(axis=0).tolist(),
               "peak_" + ekey: np.abs(tau).max(axis=0).tolist(),
               "integrator_step_s": dt, "lowest_frequency_hz": f1,
               "newton_iterations": int(np.sum(res.newton))}
    case = "free vibration" if free_vibration else "tracking"
    held = np.abs(st0.q[:na] - qa[0])
    notes = ((f"a PD holds gravity with an error: at the start the joints sit "
              f"{', '.join(f'{x:.3g}' for x in held)} (rad or m) from the reference (kp e = the "
              "gravity load); a stiffer --kp reduces it"),) if held.max() > 1e-6 else ()
    return RunReport(q, cols, summary, {"kp": kp.tolist(), "kd": kd.tolist()},
                     warnings=notes + ((f"the integrator step was halved {halvings} time(s) "
                                        f"after Newton failures",) if halvings else ()) + (
                               f"integrator step {dt:.3g} s: {1.0 / (fmax * dt):.0f} steps "
                               f"per period at {fmax:.4g} Hz, the fastest of the lowest "
                               f"locked mode ({f1:.4g} Hz) and the PD loop's rates; higher "
                               "modes numerically damped: check with a smaller --step",),
                     description=(f"{case} under joint PD over {duration:g} s "
                                  f"(exact, {model.options['elements']} element(s) per "
                                  f"link, step {dt:.3g} s)"))


def free_run(model, st0, tau_of, times, sub, *, gains=None, stop: bool = False,
             rho_inf: float = 0.9, consistent: bool = False, progress=None,
             what: str = "exact"):
    """Generalized-alpha (``rho_inf``) on all coordinates of ``model`` from ``st0``
    (positions and rates; accelerations of rest, or with ``consistent`` those of the
    equations at the start: second order, where a start from rest's accelerations
    leaves an O(h) error in a robot released under load) under actuator efforts
    ``tau_of(t, q, qd)`` (n_a,), output at ``times``, ``sub`` integrator steps per
    output step, restarted at half the step after a Newton failure up to
    :data:`HALVINGS` times. ``gains`` (kp, kd) (n_a,): the efforts' stiffness and
    damping, -dtau/dq_a and -dtau/dqd_a, for the iteration matrix. ``stop``: a closure
    or assembly failure ends the run at the last step (the result's ``stopped``)
    instead of raising. Returns (result, sub, dt, halvings)."""
    from ...integrators.nonlinear import (NonlinearProblem, StopIntegration,
                                          generalized_alpha_nonlinear)
    na, n = model.n_actuated, model.n
    h_out = float(times[1] - times[0])
    dt = h_out / sub
    kp, kd = gains if gains is not None else (np.zeros(na), np.zeros(na))

    def terms(t, x, v, z, full):
        # the actuated coordinates are free here: an iterate or a motion that leaves
        # the range in which the robot can be assembled is the run's failure, not the
        # user's input
        try:
            return model._terms(st0.with_(q=x, v=v, a=z, t=t), full=full)
        except (InputError, ModelError) as exc:
            msg = (f"at t = {t:.6g} s the robot cannot be assembled (a singular "
                   f"configuration, or out of its range: {exc})")
            if stop:
                raise StopIntegration(msg, t) from None
            raise ModelError(f"{what}: {msg}") from None

    class Problem(NonlinearProblem):
        fresh = True
        # the joints free: a smoothed Coulomb friction on a shaft of little inertia of
        # its own makes the plain Newton jump between the friction's signs
        damped = True
        # the accelerations vary smoothly between the efforts' breakpoints: Newton from
        # their extrapolation (the five-bar under sine efforts: 14 % faster, the same
        # run to 1e-10 m)
        extrapolate = True

        def residual(self, t, x, v, z):
            # the first residual of a step with the tangents (the iteration matrix's,
            # built at that iterate: one evaluation less per step)
            T = terms(t, x, v, z, self.fresh)
            self.fresh = False
            r = T["M"] @ z + T["c"]
            r[:na] -= tau_of(t, x, v)
            return r

        def matrix(self, t, x, v, z, beta_p, gamma_p):
            T = terms(t, x, v, z, True)
            A = T["M"] + gamma_p * T["C"] + beta_p * T["K"]
            A[:na, :na] += np.diag(gamma_p * kd + beta_p * kp)
            return A

        def accept(self, t, x, v, z):
            if watch is not None:
                watch(t, x)
            self.fresh = True
            return x, v

    watch = _watch(model, st0, stop, what)
    prob = Problem()
    prob.n = n
    x0, v0 = st0.q.copy(), st0.v.copy()
    # Start from the accelerations of rest, not the consistent ones: with the joints
    # free, a motor shaft's own inertia can be tiny (no rotor inertia in the
    # description: only the root element's rotation moves with it), and the consistent
    # start would send the predictor of the first step 1e5 m away for a reference
    # already moving; the generalized-alpha method then carries an O(h) start transient
    # in that unresolved mode, which rho_inf damps
    a0 = np.zeros(n)
    if consistent:
        # The accelerations of the equations at the start, with the rate-proportional
        # forces' tangent C over one step: (M + dt C) a0 = f0. From rest C is the
        # joints' friction slope and damping alone (the velocity forces are quadratic
        # in the rates), so a robot without them gets the consistent start exactly. A
        # smoothed Coulomb friction's slope (r kc / 1e-3 rad/s) on a shaft of little
        # inertia of its own is a time constant far below the step: the consistent
        # acceleration there (the friction still zero at zero rate) would throw the
        # first predictor far out of the smoothing band, where Newton cannot find the
        # friction again (measured: a joint held by friction diverged at every step
        # down to dt / 64); over one step the friction holds the shaft, as it does.
        T0 = model._terms(st0.with_(a=np.zeros(n)), full=True)
        f0 = -T0["c"]
        f0[:na] += tau_of(float(times[0]), x0, v0)
        a0 = np.linalg.solve(T0["M"] + dt * T0["C"], f0)
    # The step adapts: with the joints free, a motor shaft without rotor inertia is a
    # stiff local mode the step does not resolve, and the modified Newton (no position
    # derivatives of the inertia forces in its matrix) may fail at a step that the
    # prescribed-motion engine takes; the run is then restarted at half the step, up to
    # HALVINGS times, and says so (measured: Kuo's Delta and Yu's arm converge at 2 ms,
    # not at 5 and 10 ms).
    halvings = 0
    while True:
        try:
            # a diverging attempt overflows on its way to the non-finite correction
            # that ends it (and restarts the run at half the step): no numpy warnings
            with np.errstate(over="ignore", invalid="ignore"):
                res = generalized_alpha_nonlinear(prob, x0, v0, a0, t0=float(times[0]),
                                                  t_end=float(times[-1]), dt=dt,
                                                  rho_inf=rho_inf, atol=1e-8, rtol=1e-6,
                                                  progress=progress, what=what)
            return res, sub, dt, halvings
        except ModelError as exc:
            if "Newton" not in str(exc) or halvings >= HALVINGS:
                raise
            halvings += 1
            sub *= 2
            dt = h_out / sub
            if (times[-1] - times[0]) / dt > MAX_STEPS:
                raise


class ExactModel(NonlinearModel):
    """What every model of the exact formulation shares on top of its ``_terms(state,
    full)`` (mass ``M``, bias ``c``, potential ``V``; with ``full`` the potential's
    Hessian ``K`` and the velocity forces' tangent ``C``, the friction's slope included),
    ``_axial`` (the stiffest EA / l0 [N/m]) and ``_reach`` (the largest distance of a
    node from the origin [m]): the contract's dynamics, tangents, energy and the two
    engines of this module."""

    def mass_matrix(self, state):
        return self._terms(state, full=False)["M"]

    def static_deflection(self, state, **kwargs):
        """The base's Newton equilibrium (:meth:`NonlinearModel.static_deflection`),
        refused where an element's axial strain exceeds :data:`MAX_STRAIN`."""
        from ...kinematics.closure import ClosureError
        try:
            if kwargs.get("inertial") or np.any(state.actuated_rates):
                st = super().static_deflection(state, **kwargs)
            else:
                st = self._rest_equilibrium(
                    state, **{k: v for k, v in kwargs.items() if k != "inertial"})
        except ClosureError as exc:
            raise ModelError(f"exact: no static equilibrium: Newton's iterates left the "
                             f"robot's assembly ({exc.reason}); the loads (gravity, the "
                             "motion's) may exceed what the links carry") from None
        eps = self.max_strain(st)
        if eps is not None and eps > MAX_STRAIN:
            raise ModelError(f"exact: the equilibrium strains an element by {eps:.3g} "
                             f"(axial plus bending at the outer fibre; limit "
                             f"{MAX_STRAIN:g}: small-strain elasticity); the loads "
                             "(gravity, the motion's) exceed what the links carry")
        return st

    def _rest_equilibrium(self, state, *, tol: float = 1e-11, max_iter: int = 100):
        """The static equilibrium at rest under gravity by Newton on the potential V
        with a line search: each step goes down V (Armijo, halving the Newton step;
        where the Hessian K is not positive definite it is shifted to be), so the
        iterates settle where a released, damped robot would, not on another branch of
        a large deflection. Measured: plain Newton from the straight pose took Yu's arm
        at E / 40 to a link looped back over its root (a tip above the base, stable
        and exit 0). Converged as the base's
        :meth:`NonlinearModel.static_deflection` (the residual below ``tol`` of the
        elastic forces' magnitude, or its round-off floor). An equilibrium whose
        Hessian has a negative eigenvalue is unstable: a ModelError names it."""
        na = self.n_actuated
        st = self.at(state, v=np.zeros(self.n), a=np.zeros(self.n))
        Kel = self.elastic_stiffness()
        for _ in range(max_iter):
            T = self._terms(st, full=True)
            r, K, V0 = T["c"][na:], T["K"][na:, na:], float(T["V"])
            scale = max(1.0, float((np.abs(Kel) @ np.abs(st.elastic)).max(initial=0.0)))
            if np.abs(r).max(initial=0.0) <= max(tol * scale, self.residual_floor(st)):
                lam = np.linalg.eigvalsh(0.5 * (K + K.T))[0] if K.size else 0.0
                if lam < -1e-8 * max(1.0, float(np.abs(K).max(initial=0.0))):
                    raise ModelError(
                        f"exact: the static equilibrium is unstable (the tangent "
                        f"stiffness has a negative eigenvalue, {lam:.3g}): a buckled "
                        "link, or a load the structure cannot carry this way")
                return st
            try:
                de = -np.linalg.solve(K, r)
                descent = float(r @ de) < 0.0
            except np.linalg.LinAlgError:
                descent = False
            if not descent:
                lam = np.linalg.eigvalsh(0.5 * (K + K.T))[0]
                shift = 1.1 * abs(lam) + 1e-9 * max(1.0, float(np.abs(K).max()))
                de = -np.linalg.solve(K + shift * np.eye(len(r)), r)
            slope = float(r @ de)
            # V's round-off: the potential sums terms of the size of the elastic forces
            # times the displacements (and gravity's); below it a step cannot be judged
            noise = 1e-12 * (abs(V0) + scale * float(np.abs(st.elastic).max(initial=1.0)))
            alpha = 1.0
            while True:
                q = st.q.copy()
                q[na:] += alpha * de
                try:
                    trial = self.at(st, q=q)
                    Vt = float(self._terms(trial, full=False)["V"])
                except (InputError, ModelError):
                    Vt = math.inf              # out of the assembly: a shorter step
                if Vt <= V0 + 1e-4 * alpha * slope + noise:
                    break
                alpha *= 0.5
                if alpha < 1e-6:
                    raise ModelError("exact: no static equilibrium found: no step down "
                                     "the potential from the last iterate (a buckled "
                                     "or unstable configuration?)")
            st = trial
        raise ModelError(f"exact: static deflection did not converge in {max_iter} "
                         f"Newton steps (residual {np.abs(r).max():.3g}); buckled or "
                         "diverging?")

    def max_strain(self, state):
        """The largest fibre strain of an element at ``state`` (axial plus bending at
        the outer fibre), or None where the model does not report it."""
        return None

    def closure_condition(self, q):
        """(sign of the determinant, condition number) of the loop closure's Jacobian
        over the passive joints at the contract's coordinates q, or None for a model
        whose loops hold by construction (:data:`SINGULAR_COND`)."""
        return None

    def bias(self, state):
        return self._terms(state, full=False)["c"].copy()

    def _tangent(self, state):
        """(K, C) = (d(M a + c)/dq, dc/dqd). At rest (no rates, no accelerations: the
        statics and the modes about an equilibrium) exact: K the Hessian of the
        potential, C the friction's slope; otherwise the base's central differences
        (the velocity and inertia terms' position derivatives)."""
        if np.any(state.v) or np.any(state.a):
            return super()._tangent(state)
        T = self._terms(state)
        return T["K"].copy(), T["C"].copy()

    def _static_tangent(self, state):
        """The potential's Hessian (exact at rest; moving, the velocity forces'
        position derivatives are left out: :meth:`NonlinearModel._static_tangent`).
        Under accelerations (a quasi-static deflection along a motion, ``inertial``)
        the full tangent of the base (central differences), whose d(M a)/dq the
        potential's Hessian lacks: without it Newton diverged on the five-bar's
        accelerated carriages (the inertial loads of 1 kg moving with them)."""
        if np.any(state.a):
            return super()._static_tangent(state)
        return self._terms(state)["K"]

    def residual_floor(self, state) -> float:
        """The round-off of the axial forces: the chords come from absolute node
        positions (eps times the reach), times the stiffest EA / l0: 64 eps
        max(EA / l0) reach (64: the sums of the assembly and the maps) [N]."""
        return 64 * np.finfo(float).eps * self._axial * max(1.0, self._reach)

    def energy(self, state) -> tuple[float, float]:
        """(kinetic, potential) energy [J] of ``state``."""
        t = self._terms(state, full=False)
        return 0.5 * float(state.v @ t["M"] @ state.v), float(t["V"])

    def _efforts_along(self, st, times, qa, qda, qdda, E, Ed, progress=None):
        """The efforts, poses, rigid efforts and rigid poses at every sample of a run
        (:func:`~elastodyn.formulations.base.efforts_along`; a model that evaluates
        many states at once overrides it)."""
        return efforts_along(self, st, times, qa, qda, qdda, E, Ed, progress)

    # ------------------------------------------------------------------ force-driven runs
    # (the capability ``simulate_efforts``; a model of a planar robot adds its planar
    # outputs: pose_of, joint_positions, midspan_deflections, rigid_counterpart)
    force_methods = ("generalized-alpha",)

    def closure_residual(self, q) -> float:
        """max |g| of the loop closure at the contract's coordinates q [m or rad]: 0 for
        a model whose loops hold by construction."""
        return 0.0

    def actuated_of(self, q) -> np.ndarray:
        return np.asarray(q, dtype=float)[:self.n_actuated].copy()

    def elastic_of(self, q) -> np.ndarray:
        return np.asarray(q, dtype=float)[..., self.n_actuated:]

    def stability_warning(self, q, what: str = "the start"):
        """None: the exact model carries the loads' geometric stiffening and softening
        itself (no linear model's instability to warn of)."""
        return None

    def default_integrator_step(self) -> float:
        """40 steps per period of the lowest elastic mode with the actuators locked at
        home (:data:`~.engine.STEPS_PER_PERIOD`) [s]; 1 ms for a rigid model."""
        if not self.n_elastic:
            return 1e-3
        lin = self.linearize(self.static_deflection(self.state()), preload=True)
        w = float(modal_analysis(lin.M, lin.K, count=1).omega_rad_s[0])
        return 2 * math.pi / (STEPS_PER_PERIOD * w)

    def _run(self, st0, times, step, rho_inf, progress, efforts=None, speed=None,
             estimate: bool = True):
        """The force-driven (``efforts``) or driven (``speed``) run from ``st0`` sampled
        at ``times``; with ``estimate``, the same run at twice its step alongside (its
        samples at the output times it reaches: the result's ``coarse``, for the
        step's error estimate; None where it fails or halves its own step)."""
        times = np.asarray(times, dtype=float)
        h_out = float(times[1] - times[0])
        step = self.default_integrator_step() if step is None else float(step)
        if not (math.isfinite(step) and step > 0):
            raise InputError("--integrator-step", step, "a time > 0 s")
        sub = max(1, math.ceil(h_out / step - 1e-9))
        if (times[-1] - times[0]) * sub / h_out > MAX_STEPS:
            raise InputError("--integrator-step", step, f"a step that takes at most "
                             f"{MAX_STEPS:.0e} steps over the window")
        na = self.n_actuated
        notes = []
        if efforts is not None:
            def tau_of(t, x, v):
                return np.asarray(efforts(t), dtype=float).reshape(na)
            step0 = h_out / sub
            res, sub, dt, halvings = free_run(self, st0, tau_of, times, sub, stop=True,
                                              rho_inf=rho_inf, consistent=True,
                                              progress=progress, what="exact (force-driven)")
            if halvings:
                notes.append(f"the integrator step was halved {halvings} time(s) after "
                             f"Newton failed, {step0:.3g} -> {dt:.3g} s")
            Q = res.x[::sub]
        else:
            w = np.asarray(speed, dtype=float).reshape(na)
            a0 = st0.actuated.copy()

            def motion(t):
                return a0 + w * (t - times[0]), w, np.zeros(na)
            dt = h_out / sub
            acc = self.inverse_dynamics(self.at(st0, a=np.zeros(self.n))
                                        ).elastic_accelerations if self.n_elastic else \
                np.zeros(0)
            res = prescribed_run(self, motion, st0, acc, times, dt, stop=True,
                                 rho_inf=rho_inf, progress=progress,
                                 what="exact (driven)")
            X = res.x[::sub]
            Q = np.column_stack([np.array([motion(t)[0] for t in res.time[::sub]]), X])
        k = len(Q)
        resid = np.array([self.closure_residual(q) for q in Q])
        run = ForcedRun(times[:k], Q, resid, dt, res.t_event if res.stopped else None,
                        res.stopped)
        run.notes = notes
        # the estimate where there is a response to estimate (a rigid counterpart's run
        # alongside a force-driven one is not reported with one)
        if estimate and self.n_elastic and k > 2:
            # every output sample when the step divides half the output step, else
            # every other one: the samples both runs reach
            js = np.arange(0, k, 1 if sub % 2 == 0 else 2)
            try:
                with np.errstate(over="ignore", invalid="ignore"):
                    c = self._run(st0, times[js], 2 * dt, rho_inf, None, efforts, speed,
                                  estimate=False)
                m = min(len(c.q), len(js))
                if abs(c.step - 2 * dt) <= 1e-9 * dt and m > 1:
                    run.coarse = (js[:m], c.q[:m])
                else:
                    notes.append("no estimate of the integrator step's error: the run at "
                                 "twice the step had to halve it (Newton)")
            except (ModelError, InputError) as exc:
                notes.append(f"no estimate of the integrator step's error: the run at "
                             f"twice the step failed ({exc})")
        return run

    def run_efforts(self, efforts, t_eval, *, method: str = "generalized-alpha",
                    step: float | None = None, rho_inf: float = 0.9, progress=None,
                    hold: bool = False):
        """A force-driven run from rest, undeformed, at home under ``efforts(t)`` (n_a,)
        [N or N m] on the actuated coordinates, sampled at ``t_eval``: generalized-alpha
        on all coordinates (spectral radius ``rho_inf`` at infinite frequency; ``step``
        default
        :meth:`default_integrator_step`). A singular configuration ends the run there
        (``singular_time``, ``message``). ``hold``: from rest at the static equilibrium
        at home instead (:meth:`held_start`), the efforts that hold it there added to
        ``efforts(t)`` (which is then the change from holding)."""
        self._force_options(method, rho_inf)
        if not hold:
            return self._run(self.state(), t_eval, step, rho_inf, progress,
                             efforts=efforts)
        st0, tau0 = self.held_start()

        def total(t):
            return tau0 + np.asarray(efforts(t), dtype=float).reshape(tau0.shape)
        return self._run(st0, t_eval, step, rho_inf, progress, efforts=total)

    def held_start(self):
        """(state, efforts): the robot at rest at home in its static equilibrium under
        gravity with the actuators held (:meth:`static_deflection`; the rigid robot at
        home when it has no elastic coordinates), and the efforts (n_a,) [N or N m] that
        hold it there: the actuated rows of the bias at rest, M qdd + c = [tau; 0] with
        qdd = 0 (the elastic rows vanish at the equilibrium)."""
        if getattr(self, "_held", None) is None:
            st = self.state()
            if self.n_elastic:
                st = self.static_deflection(st)
            tau = np.asarray(self._terms(st.with_(v=np.zeros(self.n), a=np.zeros(self.n)),
                                         full=False)["c"][:self.n_actuated], dtype=float)
            self._held = (st, tau.copy())
        return self._held[0], self._held[1].copy()

    def run_drive(self, speed, t_eval, *, elastic=None, elastic_rates=None,
                  method: str = "generalized-alpha", step: float | None = None,
                  rho_inf: float = 0.9, progress=None):
        """The actuated coordinates at constant ``speed`` (n_a,) [rad/s, m/s] from home,
        the elastic coordinates starting at ``elastic`` and ``elastic_rates`` (n_e,)
        (default 0: undeformed, moving with the rigid robot)."""
        self._force_options(method, rho_inf)
        ne = self.n_elastic
        e0 = np.zeros(ne) if elastic is None else np.asarray(elastic, float).reshape(ne)
        e1 = (np.zeros(ne) if elastic_rates is None
              else np.asarray(elastic_rates, float).reshape(ne))
        st0 = self.state(rates=np.asarray(speed, dtype=float).reshape(self.n_actuated),
                         elastic=e0, elastic_rates=e1)
        return self._run(st0, t_eval, step, rho_inf, progress, speed=speed)

    def _force_options(self, method, rho_inf):
        if method not in self.force_methods:
            raise InputError("--method", method, " or ".join(self.force_methods)
                             + " for the exact formulation")
        if not (isinstance(rho_inf, (int, float)) and 0.0 <= rho_inf <= 1.0):
            raise InputError("rho_inf", rho_inf, "a spectral radius in [0, 1]")

    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None, step_error: bool = True):
        """The elastic response to a prescribed motion of the actuated coordinates (a
        task-space path through the rigid inverse kinematics) (:func:`simulate_motion`,
        with its step error estimate unless ``step_error`` is False)."""
        return simulate_motion(self, trajectory, times, initial=initial, method=method,
                               integrator_step=integrator_step, progress=progress,
                               what="link", step_error=step_error)

    def simulate_controlled(self, trajectory, controller: dict, duration: float,
                            step: float, *, initial_offset=None,
                            free_vibration: bool = False, progress=None):
        """Closed-loop tracking by a joint PD (:func:`simulate_controlled`)."""
        return simulate_controlled(self, trajectory, controller, duration, step,
                                   initial_offset=initial_offset,
                                   free_vibration=free_vibration, progress=progress)


class ForcedRun:
    """A force-driven or driven run: ``t`` (n_t,) [s], ``q`` (n_t, n) the contract's
    coordinates, ``residual`` (n_t,) the loop closure's max |g| [m or rad], ``step``
    the integrator's [s], ``singular_time`` [s] and ``message`` where a singular
    configuration ended it (else None and ""), ``coarse``: the run at twice the step
    (see :meth:`ExactModel._run`) or None."""

    def __init__(self, t, q, residual, step, singular_time, message):
        self.t, self.q, self.residual, self.step = t, q, residual, step
        self.singular_time, self.message = singular_time, message
        # (js (m,), q (m, n)): the same run at twice the step at the samples js of
        # this one (the step's error estimate), or None; notes: what the run had to do
        # (step halvings, no estimate) for the result's warnings
        self.coarse = None
        self.notes = []
