"""``elastodyn sensitivity ROBOT``: sensitivity of the end-effector pose along a
force-driven run to the links' E, rho, b and h (Rosyid & El-Khasawneh 2020, section 8.4,
Figs. 12-14), by finite differences and exactly (complex step)."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     given, load_robot, number, progress_bar)
from .motion import add_effort_options

MAX_SAMPLES = 100_000


def register(sub):
    s = sub.add_parser("sensitivity", help="sensitivity of the end-effector pose to the "
                                           "links' E, rho, b, h along a force-driven run",
                       description="Derivatives of the end-effector x, y, theta along a "
                                   "force-driven run (ffrf formulation) with respect to "
                                   "the links' Young's modulus E, density rho and "
                                   "rectangular section (b out of the plane, h in it), by "
                                   "forward finite differences (the paper's method) and "
                                   "exactly by the complex step, on the same time steps. "
                                   "A preset runs its scenario; any robot takes --efforts.")
    add_robot(s)
    s.add_argument("--scenario", help="a force-driven scenario of the preset (elastodyn "
                                      "robots)")
    s.add_argument("--parameters", help="comma-separated among E, rho, b, h (all)")
    s.add_argument("--method", help="both (default), complex-step or finite-difference")
    s.add_argument("--relative-step", dest="relative_step", type=number("--relative-step"),
                   help="finite-difference step relative to each parameter (1e-5)")
    s.add_argument("--duration", type=number("--duration"),
                   help="time window [s] (the scenario's; a run that reaches a singular "
                        "configuration stops there)")
    s.add_argument("--step", type=number("--step"), help="output step [s] (1e-3)")
    s.add_argument("--integrator-step", dest="integrator_step",
                   type=number("--integrator-step"),
                   help="generalized-alpha step [s], the same for every run (default: 1/40 "
                        "of the first elastic period with locked actuators)")
    add_effort_options(s)
    add_model_options(s, preload=False)
    add_output(s)
    s.set_defaults(func="sensitivity")


def run(a) -> int:
    from ..analysis.sensitivity import PARAMETERS, pose_sensitivity
    from ..description.scenarios import scenario
    from .motion import build_user_efforts, effort_spec, forced_window, preset_of
    check_out(a)
    spec = load_robot(a)
    name = preset_of(a)
    scen = scenario(name, a.scenario) if name else None
    if scen is None and given(a, "scenario"):
        scenario(spec.name, a.scenario)            # names the missing scenario
    if scen is not None and "efforts" not in scen:
        if given(a, "scenario") and not given(a, "efforts"):
            raise InputError("--scenario", a.scenario, "a force-driven scenario (efforts "
                             "on the actuators)")
        scen = None
    if not given(a, "formulation") and scen is not None:
        for key, value in scen.get("model", {}).items():
            if not given(a, key):
                setattr(a, key, value)
    from ..formulations.registry import formulations_for, get
    answering = [f for f in formulations_for(spec) if "sensitivity" in get(f).verbs]
    if not given(a, "formulation"):
        a.formulation = answering[0] if answering else None
    elif a.formulation not in answering:
        # the parameters (E, rho, b, h of a tree robot's beams) and the planar pose are
        # those of the formulations that list the verb
        raise InputError("--formulation", a.formulation, "a formulation that answers "
                         "sensitivity for this robot: "
                         + (", ".join(answering) or "none takes it"))
    model = build(a, spec)
    if "simulate_efforts" not in model.capabilities:
        raise InputError("--formulation", model.formulation, "a formulation that answers "
                         "sensitivity for this robot: "
                         + (", ".join(answering) or "none takes it"))
    espec = effort_spec(a, scen)
    efforts = build_user_efforts(a, espec, model.n_actuated)
    params = (tuple(p.strip() for p in a.parameters.split(",")) if given(a, "parameters")
              else tuple(PARAMETERS))
    duration, out_step = forced_window(a, model, scen, max_samples=MAX_SAMPLES)
    method = a.method or "both"
    n_runs = 1 + len(params) * (2 if method == "both" else 1)
    bar = progress_bar(100 * n_runs, "sensitivity", minimum=0)
    result = pose_sensitivity(
        model, efforts, duration=duration, output_step=out_step, parameters=params,
        method=method, relative_step=a.relative_step if given(a, "relative_step") else 1e-5,
        step=a.integrator_step, robot=spec.name,
        inputs={"efforts": espec, "scenario": (a.scenario or "default") if scen else None},
        progress=None if bar is None else (lambda done, total: bar(int(100 * done))))
    return emit(a, result)
