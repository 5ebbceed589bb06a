"""``elastodyn torques ROBOT``: actuator efforts along a motion (inverse dynamics; for a
flexible robot with its elastic response)."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     given, load_robot, progress_bar)
from .motion import add_motion_options, check_window, default_window, motion_spec



def register(sub):
    t = sub.add_parser("torques", help="actuator efforts along a motion (inverse dynamics)",
                       description="Inverse dynamics along a motion. A rigid formulation "
                                   "gives the torques (and with Kuo's multipliers the "
                                   "lower-link tensions); a flexible one the efforts of the "
                                   "motion-driven simulation, elastic response included, "
                                   "with the rigid model's alongside. Default for the Delta "
                                   "presets: each paper's rigid formulation.")
    add_robot(t)
    add_motion_options(t)
    t.add_argument("--initial", help="flexible: static (deflection at the start) or zero")
    t.add_argument("--method", help="flexible: the engine's integrator (simulate --help)")
    add_model_options(t)
    add_output(t)
    t.set_defaults(func="torques")


def run(a) -> int:
    from ..analysis.scenario import build_trajectory
    from ..analysis.simulate import torques
    from ..description.scenarios import paper_formulation
    from ..formulations.registry import get
    from .motion import (check_path, check_spec, path_errors, preset_of, window_flag)
    check_out(a)
    spec = load_robot(a)
    form = a.formulation or paper_formulation(preset_of(a), "torques")
    model = build(a, spec, formulation=form)
    entry = get(model.formulation)
    rigid = entry.rigid
    if rigid:
        for dest, flag in (("initial", "--initial"), ("method", "--method")):
            if given(a, dest):
                raise InputError(flag, getattr(a, dest), "only for a flexible formulation "
                                 "(the rigid inverse dynamics has no initial state or "
                                 "integrator)")
    tspec, _ = motion_spec(a, spec.family, model)
    check_spec(a, tspec, model)
    traj = build_trajectory(tspec, model)
    step = 1e-3 if a.step is None else a.step
    duration = a.duration
    if duration is None:
        duration = default_window(traj)
    check_window(duration, step, max_time=entry.limits.torques_time,
                 max_samples=entry.limits.torques_samples, name=window_flag(a, tspec),
                 step_given=given(a, "step"))
    check_path(a, tspec, model, traj, duration, step)
    inputs = {"trajectory": tspec}
    with path_errors(a, tspec, model):
        result = torques(model, traj, duration=duration, step=step,
                         initial=a.initial or "static", method=a.method, robot=spec.name,
                         inputs=inputs, progress=progress_bar(int(duration / step), "torques",
                                                              minimum=2000))
    return emit(a, result)
