"""``elastodyn convergence ROBOT``: natural frequencies against the discretization (Kuo
2016 Tables 2-3)."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_pose, add_robot, build, check_out,
                     emit, flexible_model, given, integer, load_robot, pose_state,
                     preload_choice, preload_in_model, progress_bar, refuse)
from .modes import DEFAULT_AT


def register(sub):
    c = sub.add_parser("convergence", help="frequencies against the number of elements",
                       description="Natural frequencies at a pose for 1..N elements per "
                                   "link or beam (--max-elements; Kuo 2016 Tables 2 and 3), "
                                   "or 1..N assumed modes per link (--max-modes).")
    add_robot(c)
    add_pose(c, at_help="pose: Delta platform centre X Y Z [m] (0.1 0 0.5)")
    c.add_argument("--max-elements", dest="max_elements", type=integer("--max-elements"),
                   help="largest number of elements per link (ked, nepvp) (8)")
    c.add_argument("--max-modes", dest="max_modes", type=integer("--max-modes"),
                   help="largest number of assumed modes per link (amm, nepvp)")
    c.add_argument("--preload", action="store_true", default=None,
                   help="about the deflected equilibrium under gravity")
    add_model_options(c)
    c.add_argument("--count", type=integer("--count"), help="number of modes (8)")
    add_output(c)
    c.set_defaults(func="convergence")


def run(a) -> int:
    from ..analysis.modes import convergence
    from ..formulations.registry import get
    check_out(a)
    spec = load_robot(a)
    form = get(flexible_model(a, spec, verb="convergence"))
    if given(a, "max_elements") and given(a, "max_modes"):
        raise InputError("--max-modes", a.max_modes, "not with --max-elements")
    # what is varied: the option asked for, else elements where the formulation takes
    # them (modes for an assumed-mode formulation)
    takes = [o for o in ("elements", "modes") if o in form.options]
    if not takes:
        raise InputError("--formulation", form.name, "a formulation with a discretization "
                         "option (--elements or --modes) for convergence")
    for option in ("elements", "modes"):
        if given(a, f"max_{option}") and option not in takes:
            refuse(a, {f"max_{option}": f"--max-{option}"}, " or ".join(
                f"--max-{o}" for o in takes) + f" for the {form.name} formulation")
    option = "modes" if (given(a, "max_modes") or "elements" not in takes) else "elements"
    varied = "--elements" if option == "elements" else "--modes"
    refuse(a, {option: varied}, f"varied by --max-{option}")
    n_max = getattr(a, f"max_{option}")
    n_max = 8 if n_max is None else n_max
    hi = getattr(form.limits, option)
    if not 1 <= n_max <= hi:
        raise InputError(f"--max-{option}", n_max, f"an integer in [1, {hi}]")
    preload = preload_choice(a)
    in_model = preload_in_model(form.name)
    first = build(a, spec, preload_is_model=in_model, **{option: 1})
    state0 = pose_state(a, first, DEFAULT_AT.get(spec.family))

    def state_of(model):
        return model.state(actuated=state0.actuated)

    result = convergence(lambda n: build(a, spec, preload_is_model=in_model,
                                         **{option: n}),
                         state_of, max_n=n_max, count=a.count, preload=preload,
                         option=option, robot=spec.name,
                         progress=progress_bar(n_max, "convergence", minimum=5))
    return emit(a, result)
