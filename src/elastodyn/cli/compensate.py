"""``elastodyn compensate ROBOT``: actuator commands that put the deflected end-effector
on the desired path (quasi-static, or refined by the model's motion-driven dynamics)."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     flexible_model, given, integer, load_robot, refuse)
from .motion import add_motion_options, motion_spec

MODES = ("quasi-static", "dynamic")


def register(sub):
    p = sub.add_parser("compensate", help="deflection compensation: commands that put the "
                                          "deflected end-effector on the path",
                       description="Correct the actuator commands of a motion so that the "
                                   "deflected end-effector follows the desired path: "
                                   "quasi-static (the deflection under gravity and the "
                                   "motion's loads at each instant, iterated to the fixed "
                                   "point) or dynamic (then refined by the end-effector "
                                   "error of the model's motion-driven simulation). Reports "
                                   "the end-effector error with and without compensation.")
    add_robot(p)
    add_motion_options(p)
    p.add_argument("--mode", help="quasi-static (default) or dynamic")
    p.add_argument("--iterations", type=integer("--iterations"),
                   help="dynamic: refinements by the simulated error, 1..20 (3)")
    p.add_argument("--samples", type=integer("--samples"),
                   help="instants where the correction is computed (one per 10 steps, at "
                        "least 21)")
    p.add_argument("--method", help="integrator of the simulations (the engine's default)")
    add_model_options(p, rayleigh=True)
    add_output(p)
    p.set_defaults(func="compensate")


def run(a) -> int:
    from ..analysis.motion_design import compensate_motion
    from ..analysis.scenario import build_trajectory
    from ..formulations.registry import get
    from .motion import (check_path, check_spec, check_window, default_window, path_errors,
                         window_flag)
    from .simulate import MAX_STEPS
    check_out(a)
    mode = a.mode or "quasi-static"
    if mode not in MODES:
        raise InputError("--mode", mode, "one of " + ", ".join(MODES))
    if mode != "dynamic":
        refuse(a, {"iterations": "--iterations"}, "only with --mode dynamic")
    spec = load_robot(a)
    flexible_model(a, spec, verb="compensate")
    model = build(a, spec)
    tspec, scen = motion_spec(a, spec.family, model)
    if tspec.get("law") == "hold":
        raise InputError("--trajectory", "hold", "a motion to compensate (circle, "
                         "inverted-u, bang-bang, rest-to-rest or table)")
    check_spec(a, tspec, model)
    traj = build_trajectory(tspec, model)
    step = 1e-3 if a.step is None else a.step
    duration = a.duration if given(a, "duration") else default_window(traj)
    check_window(duration, step, max_time=get(model.formulation).limits.simulate_time,
                 max_samples=MAX_STEPS, name=window_flag(a, tspec), step_given=given(a, "step"))
    check_path(a, tspec, model, traj, duration, step)
    with path_errors(a, tspec, model):
        result = compensate_motion(model, traj, mode=mode, duration=duration, step=step,
                                   samples=a.samples, iterations=a.iterations,
                                   method=a.method, robot=spec.name,
                                   inputs={"trajectory": tspec})
    return emit(a, result)
