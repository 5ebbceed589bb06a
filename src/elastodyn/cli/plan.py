"""``elastodyn plan ROBOT``: vibration-aware motion design: the time law of a rest-to-rest
motion re-designed along its path, compared with input shapers at the same cycle time."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     flexible_model, given, integer, load_robot, number, progress_bar,
                     refuse)
from .motion import add_motion_options, motion_spec

OBJECTIVES = ("residual-vibration", "peak-deviation")
SEARCHES = ("least-squares", "compass")


def register(sub):
    p = sub.add_parser("plan", help="vibration-aware motion design: time law and input "
                                    "shapers against residual vibration",
                       description="Keep the path of a rest-to-rest motion (inverted-u, "
                                   "rest-to-rest or a table at rest at its ends) and design "
                                   "its time law against the residual vibration after the "
                                   "motion (or the peak deviation during it), each "
                                   "candidate simulated by the flexible model; compare with "
                                   "ZV, ZVD and EI input shapers on the actuator references "
                                   "at the same cycle time. Reports residual vibration, peak "
                                   "deviation, peak effort and speed of every variant.")
    add_robot(p)
    add_motion_options(p)
    g = p.add_argument_group("design")
    g.add_argument("--cycle-time", dest="cycle_time", type=number("--cycle-time"),
                   help="duration of every compared motion [s] (the given motion's)")
    g.add_argument("--objective", help="residual-vibration (default) or peak-deviation")
    g.add_argument("--max-residual", dest="max_residual", type=number("--max-residual"),
                   help="find the shortest cycle time whose designed law leaves at most "
                        "this residual vibration [m] inside the model's validity range "
                        "(instead of --cycle-time)")
    g.add_argument("--cycle-times", dest="cycle_times", type=number("--cycle-times"),
                   nargs="+", metavar="T",
                   help="with --max-residual: the cycle times scanned [s] (1, 1.25, 1.5, "
                        "1.75, 2, 2.5 and 3 times the motion's)")
    g.add_argument("--limits", help="actuator limits, e.g. torque=2.5,speed=10 [N m or N, "
                                    "rad/s or m/s] (none)")
    g.add_argument("--coefficients", type=integer("--coefficients"),
                   help="number of time-law coefficients, 1..24 (4)")
    g.add_argument("--evaluations", type=integer("--evaluations"),
                   help="simulations the search may run (60)")
    g.add_argument("--window", type=number("--window"),
                   help="settling window after the motion [s] (three periods of the "
                        "lowest mode at the final pose)")
    g.add_argument("--shapers", help="shapers compared: comma-separated zv, zvd, ei, or "
                                     "none (zv,zvd,ei)")
    g.add_argument("--damping", type=number("--damping"),
                   help="damping ratio the shapers are designed for, in [0, 1) (0)")
    g.add_argument("--search", help="least-squares (default: Gauss-Newton on the sampled "
                                    "deviation, then a compass polish) or compass")
    g.add_argument("--search-reference", dest="search_reference",
                   help="ked: run the search about this reference (undeformed: 10x cheaper "
                        "per simulation) and evaluate the laws again on the model of "
                        "--reference (default: the search on that model itself)")
    p.add_argument("--method", help="integrator of the simulations (the engine's default)")
    add_model_options(p, rayleigh=True)
    add_output(p)
    p.set_defaults(func="plan")


def _shapers(a):
    if not given(a, "shapers"):
        return ("zv", "zvd", "ei")
    text = a.shapers.strip()
    if text == "none":
        return ()
    names = tuple(s.strip() for s in text.split(",") if s.strip())
    bad = [s for s in names if s not in ("zv", "zvd", "ei")]
    if bad or not names or len(set(names)) != len(names):
        raise InputError("--shapers", a.shapers, "comma-separated distinct zv, zvd, ei, or "
                         "none")
    return names


def run(a) -> int:
    from ..analysis.motion_design import plan_motion, shortest_cycle
    from ..analysis.scenario import build_trajectory
    from ..formulations.registry import get
    from .motion import check_path, check_spec, check_window, path_errors, window_flag
    from .simulate import MAX_STEPS
    check_out(a)
    spec = load_robot(a)
    flexible_model(a, spec, verb="plan")
    model = build(a, spec)
    tspec, scen = motion_spec(a, spec.family, model)
    if tspec.get("law") in ("circle", "hold", "bang-bang"):
        raise InputError("--trajectory", tspec.get("law"), "a rest-to-rest motion with a "
                         "continuous acceleration: inverted-u, rest-to-rest or table")
    refuse(a, {"duration": "--duration"}, "not for plan (the window after the motion is "
           "--window)")
    check_spec(a, tspec, model)
    traj = build_trajectory(tspec, model)
    objective = a.objective or "residual-vibration"
    if objective not in OBJECTIVES:
        raise InputError("--objective", objective, "one of " + ", ".join(OBJECTIVES))
    shapers = _shapers(a)
    if given(a, "max_residual"):
        refuse(a, {"cycle_time": "--cycle-time"}, "not with --max-residual (the scan sets "
               "the cycle time: --cycle-times)")
    else:
        refuse(a, {"cycle_times": "--cycle-times"}, "only with --max-residual")
    if not shapers:
        refuse(a, {"damping": "--damping"}, "only with a shaper (--shapers)")
    step = 2e-3 if a.step is None else a.step      # for the checks; plan refines its default
    cycle = traj.duration if a.cycle_time is None else a.cycle_time
    max_time = get(model.formulation).limits.simulate_time
    check_window(cycle, step, max_time=max_time, max_samples=MAX_STEPS,
                 name="--cycle-time" if given(a, "cycle_time") else window_flag(a, tspec),
                 step_given=given(a, "step"))
    if given(a, "window"):
        check_window(a.window, step, max_time=max_time, max_samples=MAX_STEPS,
                     name="--window", step_given=given(a, "step"))
    check_path(a, tspec, model, traj, traj.duration, min(step, traj.duration / 20))
    evaluations = 60 if a.evaluations is None else a.evaluations
    search = a.search or "least-squares"
    if search not in SEARCHES:
        raise InputError("--search", search, "one of " + ", ".join(SEARCHES))
    search_model = None
    if given(a, "search_reference"):
        if "reference" not in model.options or a.search_reference not in (
                "undeformed", "deflected"):
            raise InputError("--search-reference", a.search_reference,
                             "undeformed or deflected, for a formulation with a choice of "
                             "reference (--reference)")
        search_model = build(a, spec, reference=a.search_reference)
    kw = dict(search_model=search_model, search=search, limits=a.limits,
              coefficients=4 if a.coefficients is None else a.coefficients,
              evaluations=evaluations, window=a.window, step=a.step, shapers=shapers,
              damping=0.0 if a.damping is None else a.damping, method=a.method,
              robot=spec.name, inputs={"trajectory": tspec})
    with path_errors(a, tspec, model):
        if given(a, "max_residual"):
            if given(a, "objective") and objective != "residual-vibration":
                raise InputError("--objective", objective, "residual-vibration with "
                                 "--max-residual (or leave it out)")
            if given(a, "cycle_times"):
                for T in a.cycle_times:
                    check_window(T, step, max_time=max_time, max_samples=MAX_STEPS,
                                 name="--cycle-times", step_given=given(a, "step"))
            result = shortest_cycle(model, traj, max_residual=a.max_residual,
                                    cycle_times=a.cycle_times, **kw)
        else:
            result = plan_motion(model, traj, cycle_time=a.cycle_time, objective=objective,
                                 progress=progress_bar(evaluations, "plan", minimum=1),
                                 **kw)
    return emit(a, result)
