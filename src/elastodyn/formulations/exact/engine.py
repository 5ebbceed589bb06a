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
from ..base import (GENERIC_METHODS, INITIAL_STATES, actuated_motion, efforts_along,
                    generic_motion, motion_function, motion_response)

__all__ = ["METHODS", "MAX_STEPS", "STEPS_PER_PERIOD", "simulate_motion"]

METHODS = ("generalized-alpha",) + tuple(GENERIC_METHODS)
"""--method of a motion-driven run: the constant-step generalized-alpha engine (default)
or the generic error-controlled ones (slow: the stiff axial modes)."""

MAX_STEPS = 1e7
"""Most integrator steps of a run (each a Newton solve of milliseconds: 1e7 is hours):
a step that would take more is refused, not started."""

STEPS_PER_PERIOD = 40
"""Default integrator steps per period of the lowest elastic mode (locked actuators, at
the start): the generalized-alpha method's phase error is (omega h)^2 / 12 per radian,
2 % of a period at 40 steps, and its numerical damping at rho_inf = 0.9 is negligible
there."""


def simulate_motion(model, trajectory, times, *, initial: str = "static",
                    method: str | None = None, integrator_step: float | None = None,
                    progress=None, what: str = "link"):
    """The elastic response of ``model`` to a prescribed motion of its actuated
    coordinates (:class:`~elastodyn.model.SimulatesMotion`): generalized-alpha (rho_inf
    0.9) on the elastic coordinates, constant step ``integrator_step`` (default:
    :data:`STEPS_PER_PERIOD` per period of the lowest elastic mode at the start, at most
    the output step, dividing it); or the generic engine (``dop853``, ``radau``).
    ``what`` names the elements in the description (``link``)."""
    method = method or "generalized-alpha"
    if method not in METHODS:
        raise InputError("--method", method, " or ".join(METHODS))
    if initial not in INITIAL_STATES:
        raise InputError("--initial", initial, " or ".join(INITIAL_STATES))
    if method in GENERIC_METHODS:
        if integrator_step is not None:
            raise InputError("--integrator-step", integrator_step,
                             "only with --method generalized-alpha")
        return generic_motion(model, trajectory, times, initial=initial, method=method,
                              progress=progress)
    from ...integrators.nonlinear import NonlinearProblem, generalized_alpha_nonlinear
    times = np.asarray(times, dtype=float)
    if integrator_step is not None:     # refused before any work
        step = float(integrator_step)
        if not (math.isfinite(step) and step > 0):
            raise InputError("--integrator-step", integrator_step, "a time > 0 s")
        window = float(times[-1] - times[0])
        if window / step > MAX_STEPS:
            raise InputError("--integrator-step", integrator_step,
                             f"at least {window / MAX_STEPS:.3g} s (at most "
                             f"{MAX_STEPS:.0e} steps over the {window:.4g} s window)")
    qa, qda, qdda = actuated_motion(model, trajectory, times)
    motion = motion_function(trajectory, times, qa)
    na, ne = model.n_actuated, model.n_elastic
    st0 = model.state(actuated=qa[0], rates=qda[0])
    if initial == "static":
        st0 = model.static_deflection(st0)
    h_out = float(times[1] - times[0]) if len(times) > 1 else 1e-3
    # the lowest frequency at the start, about the equilibrium at rest (the step's
    # scale; a moving start's exact tangent would cost finite differences)
    lin = model.linearize(model.at(st0, v=np.zeros(model.n), a=np.zeros(model.n)))
    w = float(modal_analysis(lin.M, lin.K, count=1).omega_rad_s[0])
    step = (min(h_out, 2 * math.pi / (STEPS_PER_PERIOD * w)) if integrator_step is None
            else float(integrator_step))
    sub = max(1, math.ceil(h_out / step - 1e-9))
    dt = h_out / sub

    class Problem(NonlinearProblem):
        n = ne

        def state(self, t, x, v, z):
            a, ad, add = motion(t)
            return st0.with_(q=np.concatenate([a, x]), v=np.concatenate([ad, v]),
                             a=np.concatenate([add, z]), t=t)

        def residual(self, t, x, v, z):
            st = self.state(t, x, v, z)
            T = model._terms(st, full=False)        # no tangent needed for a residual
            return (T["M"] @ st.a + T["c"])[na:]

        def matrix(self, t, x, v, z, beta_p, gamma_p):
            # M + gamma' C + beta' K: the position derivatives of the inertia and
            # velocity forces are left out of the iteration matrix (Newton then
            # converges linearly where they matter; the residual is exact)
            T = model._terms(self.state(t, x, v, z))
            A = T["M"] + gamma_p * T["C"] + beta_p * T["K"]
            return A[na:, na:]

    prob = Problem()
    a0 = model.inverse_dynamics(model.at(st0, a=np.concatenate(
        [qdda[0], np.zeros(ne)]))).elastic_accelerations
    # Newton until the correction is below 1e-9 m (rad) + 1e-7 of the coordinate: the
    # step's own local error is ~ (omega h)^3 of the amplitude, orders above (measured on
    # Kuo's pick-and-place: 5e-11 m from the run at 1e-12 m + 1e-9, 30 % fewer
    # iterations)
    res = generalized_alpha_nonlinear(
        prob, st0.elastic, st0.elastic_rates, a0, t0=float(times[0]),
        t_end=float(times[-1]), dt=dt, rho_inf=0.9, atol=1e-9, rtol=1e-7,
        progress=progress, what="exact (generalized-alpha)")
    if res.stopped:
        raise ModelError(f"exact: the run stopped at t = {res.time[-1]:.6g} s: "
                         f"{res.stopped}")
    X, Xd = res.x[::sub], res.v[::sub]
    if len(X) != len(times):
        raise ModelError(f"exact: {len(X)} samples for {len(times)} output times")
    tau, rtau, pose, rpose = efforts_along(model, st0, times, qa, qda, qdda, X, Xd,
                                           progress)
    f1 = w / (2 * math.pi)
    # what the step resolves (the generalized-alpha method's phase error,
    # (omega h)^2 / 12 per radian; modes above 1 / (10 h) are damped by rho_inf 0.9)
    note = (f"integrator step {dt:.3g} s: the lowest elastic mode ({f1:.4g} Hz at the "
            f"start) has {1.0 / (f1 * dt):.0f} steps per period (phase drift "
            f"{(2 * math.pi * f1 * dt) ** 2 / 12:.1e} per radian); modes above "
            f"{1.0 / (10 * dt):.4g} Hz are not resolved (numerically damped; the axial "
            "modes among them): check with a smaller --integrator-step")
    return motion_response(
        model, times, qa, tau, rtau, pose, rpose, X, method="generalized-alpha",
        warnings=(note,),
        summary={"integrator_step_s": dt, "lowest_frequency_hz": f1,
                 "newton_iterations": int(np.sum(res.newton))},
        description=(f"exact, {model.options['elements']} element(s) per {what}, "
                     f"{ne} elastic dof, generalized-alpha, step {dt:.3g} s, initial "
                     f"state: {initial}"))
