"""Sensitivity of a force-driven run's end-effector pose to the links' material and
section (Rosyid & El-Khasawneh 2020, section 8.4, Figs. 12-14).

The design parameters are those of every flexible link at once (the paper's links share
one material and one section): Young's modulus ``E`` [Pa], density ``rho`` [kg/m^3] and
the rectangular section's out-of-plane width ``b`` and in-plane depth ``h`` [m] (the
paper's names: ``h`` lies in the plane of motion; in the description's rectangle ``h`` is
``width``, along the beam's y axis, and ``b`` is ``height``, along z). A relative change
``delta`` of one parameter changes every beam's

* mass per length (all inertia integrals, eqs. (16)-(32)) by ``(1 + delta)`` for rho, b
  and h: the mass is rho b h per length. Decision: a link whose mass, centre of mass and
  inertia are given (``mass_properties``, as in the paper's section 8.1) keeps their
  distribution and scales with rho b h from the given values, which are taken to belong
  to the description's rho, b and h;
* EA by ``(1 + delta)`` for E, b and h (EA = E b h);
* EI by ``(1 + delta)`` for E and b, ``(1 + delta)^3`` for h (EI = E b h^3 / 12, bending
  in the plane).

Rigid bodies (sliders, carriages) do not change.

Two methods, on the same equations, step and time grid (the integrator step is fixed at
the nominal model's, so that every run takes the same steps and the differences are
smooth in the parameter):

``finite-difference``
    forward differences with a relative step (1e-5 by default): ``(x(p (1 + delta)) -
    x(p)) / (p delta)``, the paper's method. (The paper perturbs every parameter by an
    absolute 1e-5 in SI units, which for E = 70 GPa is a relative 1.4e-16, below round-off:
    we read it as relative.) Truncation error O(delta), round-off O(eps / delta).
``complex-step``
    exact: the parameter takes an imaginary perturbation ``p (1 + i eps)`` and the whole
    run (equations of motion, coordinate partitioning, Newton iterations converged on the
    imaginary parts too) is carried in complex arithmetic; ``dx/dp = Im x / (p eps)`` to
    round-off, without subtractive cancellation (Squire & Trapp 1998; Martins, Sturdza &
    Alonso 2003): the derivative of the discretized equations, which is the direct
    differentiation of the equations of motion, time step by time step.

The derivatives are reported as ``dx/dp`` in SI units (per Pa, per kg/m^3, per m) when
every flexible link has the same nominal value of the parameter, and always as the
relative sensitivity ``p dx/dp`` (the change of x for a 100 % change of p, in m or rad),
which compares the four parameters on one scale.
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..description.tree import FlexibleBeam
from ..exceptions import InputError
from ..model import require
from .results import Result
from .simulate import output_times

__all__ = ["PARAMETERS", "METHODS", "SensitivityResult", "beam_parameters",
           "pose_sensitivity"]

#: Design parameters and their units.
PARAMETERS = {"E": "Pa", "rho": "kg/m^3", "b": "m", "h": "m"}
METHODS = ("both", "complex-step", "finite-difference")
NEWTON_TOL_FD = 1e-12
"""Newton's tolerance on the position corrections [m, rad] of every sensitivity run
(tighter than a simulation's: the forward differences divide changes of 1e-5 of the
response by the step)."""

COMPLEX_STEP = 1e-30
"""The imaginary perturbation (relative): any size far below 1 gives the derivative to
round-off (the error is O(eps^2)); tiny so that the quadratic terms vanish."""
POSE = ("x", "y", "theta")
POSE_UNITS = ("m", "m", "rad")


def _factors(name: str, d):
    """(mass, axial, bending) factors of a relative change d of parameter ``name``."""
    one = 1.0 + d
    return {"E": (1.0, one, one), "rho": (one, 1.0, 1.0), "b": (one, one, one),
            "h": (one, one, one ** 3)}[name]


def beam_parameters(model) -> dict:
    """The nominal value of each parameter shared by every flexible link: name -> value
    (None where the links differ). Raises InputError when the model has no flexible link
    or a link's section is not a rectangle (b and h undefined)."""
    beams = [b for b in model.robot.bodies.values() if isinstance(b, FlexibleBeam)]
    if not beams or not model.n_elastic:
        raise InputError("robot", model.robot.name, "a robot with flexible links (and a "
                         "flexible model: not --rigid)")
    vals = {k: [] for k in PARAMETERS}
    for b in beams:
        sh = b.section.shape
        vals["E"].append(b.material.E)
        vals["rho"].append(b.material.rho)
        if sh is not None and sh[0] == "rectangle":
            vals["h"].append(sh[1])
            vals["b"].append(sh[2])
    out = {}
    for k, v in vals.items():
        if k in ("b", "h") and len(v) != len(beams):
            out[k] = "not rectangular"
            continue
        out[k] = v[0] if max(v) - min(v) <= 1e-12 * abs(v[0]) else None
    return out


class SensitivityResult(Result):
    """End-effector pose sensitivities against time (Figs. 12-14 of Rosyid &
    El-Khasawneh 2020): one figure per pose component, the relative sensitivity to each
    parameter."""

    def figures(self) -> dict:
        from ..plot.figure import finish, new_figure
        q, t = self.quantities, np.asarray(self.quantities["time_s"])
        params = q["parameters"]
        key = next(k for k in ("relative_sensitivity", "relative_sensitivity_fd") if k in q)
        S = np.asarray(q[key])                     # (n_t, n_p * 3)
        out = {}
        for i, (c, u) in enumerate(zip(POSE, POSE_UNITS)):
            fig, axes = new_figure(len(params), height=1.6)
            for j, p in enumerate(params):
                col = j * 3 + i
                axes[j].plot(t, S[:, col], lw=0.9, label="exact (complex step)"
                             if key == "relative_sensitivity" else "finite differences")
                if key == "relative_sensitivity" and "relative_sensitivity_fd" in q:
                    axes[j].plot(t, np.asarray(q["relative_sensitivity_fd"])[:, col], "--",
                                 lw=0.9, label="finite differences")
                axes[j].set_ylabel(f"{p} d{c}/d{p}\n[{u}]")
            axes[0].set_title(f"{self.title}: end-effector {c}", fontsize=9)
            axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
            out[f"sensitivity_{c}"] = finish(fig, axes, xlabel="time [s]", legend=False)
        return out


def pose_sensitivity(model, efforts, *, duration: float, output_step: float = 1e-3,
                     parameters=tuple(PARAMETERS), method: str = "both",
                     relative_step: float = 1e-5, step: float | None = None,
                     rho_inf: float = 0.8, robot: str | None = None,
                     inputs: dict | None = None, progress=None) -> SensitivityResult:
    """Sensitivities of the end-effector pose (x, y, theta) along a force-driven run from
    rest to the links' E, rho, b and h (module docstring).

    Parameters
    ----------
    model : an FFRF model (capability ``simulate_efforts``) with flexible links
    efforts : EffortLaw, efforts along the actuated coordinates [N or N m]
    duration, output_step : window and sampling [s]; a run that reaches a singular
        configuration stops there, and every run is reported up to the earliest stop.
    parameters : names among E, rho, b, h
    method : "both" (default), "complex-step" or "finite-difference"
    relative_step : finite-difference step, relative to each parameter, in (0, 0.1]
    step : integrator step [s] (default: the nominal model's default step, used by
        every run)

    Returns
    -------
    SensitivityResult
        ``time_s`` (n_t,), ``ee_position_m`` (n_t, 3; z = 0) [m] and ``ee_angle_rad``
        (n_t,) [rad], the nominal run's planar pose; ``sensitivity`` (n_t, 3 n_p)
        dx/dp [SI per SI] (columns ``d<x>_d<p>``; NaN where the links do not share the
        parameter's value), ``relative_sensitivity`` (n_t, 3 n_p) p dx/dp [m, rad]; with
        finite differences the same with suffix ``_fd``; summary: the peak of each
        relative sensitivity and, with both methods, their largest difference.
    """
    require(model, "simulate_efforts", what="sensitivity (force-driven)")
    if method not in METHODS:
        raise InputError("--method", method, ", ".join(METHODS))
    params = tuple(parameters)
    if not params or len(set(params)) != len(params) or not set(params) <= set(PARAMETERS):
        raise InputError("--parameters", ",".join(params),
                         "distinct names among " + ", ".join(PARAMETERS))
    d = float(relative_step)
    if not (math.isfinite(d) and 0 < d <= 0.1):
        raise InputError("--relative-step", relative_step, "a relative step in (0, 0.1]")
    if model.coordinates.n_elastic == 0:
        raise InputError("--rigid", True, "a flexible model (sensitivities to E, b, h)")
    nominal = beam_parameters(model)
    for p in params:
        if nominal[p] == "not rectangular":
            raise InputError("--parameters", p, "E or rho: a link's section is not a "
                             "rectangle, so b and h are undefined")
    T, h, times = output_times(duration, output_step)
    t0w = _time.perf_counter()
    h_int = float(step) if step is not None else model.default_integrator_step()
    runs_total = 1 + len(params) * (2 if method == "both" else 1)
    done = [0]

    def bar(t, T_):
        if progress is not None:
            progress(done[0] + t / T_, runs_total)

    def poses(m, cs=None):
        # Newton to 1e-12 m: the finite differences divide run differences of
        # 1e-5 of the response by the relative step
        r = m.run_efforts(efforts, times, step=h_int, rho_inf=rho_inf, complex_step=cs,
                          newton_tol=NEWTON_TOL_FD, progress=bar)
        done[0] += 1
        return r, np.array([m.pose_of(x) for x in r.q])

    run0, P0 = poses(model)
    stops = [run0]
    cs_d, fd_d = {}, {}
    for p in params:
        if method in ("both", "complex-step"):
            mass, ax, bend = _factors(p, 1j * COMPLEX_STEP)
            r, P = poses(model.scaled_beams(mass=mass, axial=ax, bending=bend), COMPLEX_STEP)
            stops.append(r)
            cs_d[p] = P.imag / COMPLEX_STEP
        if method in ("both", "finite-difference"):
            mass, ax, bend = _factors(p, d)
            r, P = poses(model.scaled_beams(mass=mass, axial=ax, bending=bend))
            stops.append(r)
            k = min(len(P), len(P0))
            fd_d[p] = (P[:k] - P0[:k]) / d
    k = min(len(P0), *(len(v) for v in cs_d.values()), *(len(v) for v in fd_d.values()))
    t = run0.t[:k]
    pos = np.zeros((k, 3))
    pos[:, :2] = P0[:k, :2]
    # the layout of every simulation (schema 2): the planar pose as ee_position_m
    # (n_t, 3; z = 0) and ee_angle_rad (n_t,)
    q = {"time_s": t, "ee_position_m": pos, "ee_angle_rad": P0[:k, 2],
         "parameters": list(params)}
    cols = {"ee_position_m": [f"ee_{x}_m" for x in "xyz"]}

    def put(key, table, suffix):
        rel = np.concatenate([table[p][:k] for p in params], axis=1)
        per = np.array([1.0 / nominal[p] if isinstance(nominal[p], float) else np.nan
                        for p in params for _ in POSE])
        q["relative_" + key] = rel
        q[key] = rel * per
        unit = {"E": "pa", "rho": "kg_m3", "b": "m", "h": "m"}
        cols["relative_" + key] = [f"{p}_d{c}_d{p}_{u}{suffix}" for p in params
                                   for c, u in zip(POSE, POSE_UNITS)]
        cols[key] = [f"d{c}_d{p}_{u}_per_{unit[p]}{suffix}" for p in params
                     for c, u in zip(POSE, POSE_UNITS)]

    if cs_d:
        put("sensitivity", cs_d, "")
    if fd_d:
        put("sensitivity_fd", fd_d, "_fd")
    main = "relative_sensitivity" if cs_d else "relative_sensitivity_fd"
    R = np.asarray(q[main])
    summary = {"end_time_s": float(t[-1]),
               "singular_time_s": run0.singular_time,
               "peak_relative_sensitivity": {
                   p: {c: float(np.abs(R[:, j * 3 + i]).max()) for i, c in enumerate(POSE)}
                   for j, p in enumerate(params)},
               "nominal_parameters": {p: nominal[p] for p in params},
               "integrator_step_s": h_int}
    warnings = []
    if cs_d and fd_d:
        diff = np.abs(q["relative_sensitivity"] - q["relative_sensitivity_fd"])
        scale = np.abs(q["relative_sensitivity"]).max(axis=0)
        summary["max_difference_fd_vs_exact"] = {
            p: {c: float(diff[:, j * 3 + i].max()) for i, c in enumerate(POSE)}
            for j, p in enumerate(params)}
        worst = float(np.max(diff / np.where(scale > 0, scale, 1.0)))
        summary["max_relative_difference_fd_vs_exact"] = worst
        if worst > 1e-2:
            warnings.append(f"finite differences and the exact sensitivities differ by "
                            f"{worst:.2g} of the peak (truncation O(relative step) or "
                            "round-off O(1e-16 / step): try another --relative-step)")
    if run0.singular_time is not None:
        warnings.append(f"nominal run: {run0.message}")
    if len(t) < len(run0.t):
        warnings.append(f"a perturbed run stopped earlier (singular configuration): "
                        f"sensitivities reported to t = {t[-1]:.6g} s")
    missing = [p for p in params if not isinstance(nominal[p], float)]
    if missing:
        warnings.append("the links do not share one value of " + ", ".join(missing) +
                        ": dx/dp in SI units is not defined (NaN); the relative "
                        "sensitivities p dx/dp (a common relative change of every link) "
                        "are")
    warnings.append(f"integrator step {h_int:.3g} s, the same for every run; elastic modes "
                    f"above about {1.0 / (10 * h_int):.4g} Hz are not resolved")
    inputs = {**(inputs or {}), "duration_s": T, "output_step_s": h, "method": method,
              "parameters": list(params), "relative_step": d, "step_s": h_int,
              "rho_inf": rho_inf}
    name = robot or model.robot.name
    title = (f"{name}: sensitivity, {model.formulation} {model.options.get('shape', '')} "
             f"({model.n_elastic} elastic dof)")
    return SensitivityResult(command="sensitivity", robot=name, formulation=model.formulation,
                             model=dict(model.options), inputs=inputs, quantities=q,
                             summary=summary, warnings=tuple(warnings),
                             run={"wall_time_s": _time.perf_counter() - t0w}, columns=cols,
                             index="time_s", stem="sensitivity", title=title)
