"""``elastodyn sweep ROBOT --set KEY=START:STOP:NUM ...``: a design sweep (natural
frequencies, static deflection or peak deviation along a motion against description
entries), on the Dask engine."""
from __future__ import annotations

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_pose, add_robot, build, check_out,
                     flexible_model, given, integer, load_robot, pose_state, preload_choice,
                     preload_in_model, refuse)
from .engine import add_engine_options, run_engine
from .modes import DEFAULT_AT
from .motion import LAW_OPTIONS, add_motion_options, motion_spec

MOTION_FLAGS = {"scenario": "--scenario", "trajectory": "--trajectory",
                "duration": "--duration", "step": "--step", "initial": "--initial",
                "method": "--method"}


def register(sub):
    p = sub.add_parser("sweep", help="design sweep: frequencies, deflection or peak "
                                     "deviation against description entries",
                       description="Vary description entries over a grid (--set "
                                   "KEY=START:STOP:NUM, repeatable: every combination) or a "
                                   "Latin hypercube (--set KEY=START:STOP with --lhs N) and "
                                   "run one full analysis per design: the lowest natural "
                                   "frequencies at a pose, the end-effector's static "
                                   "deflection and stiffness, or its peak deviation from "
                                   "the rigid robot along a motion. --set KEY=VALUE fixes "
                                   "an entry as in every verb. Runs on a local Dask cluster "
                                   "(one worker process per core) unless told otherwise.")
    add_robot(p)
    p.add_argument("--output", help="frequencies (default), deflection or peak-deviation")
    p.add_argument("--lhs", type=integer("--lhs"), metavar="N",
                   help="a Latin hypercube of N designs instead of the full grid")
    p.add_argument("--seed", type=integer("--seed"),
                   help="seed of the Latin hypercube (0)")
    p.add_argument("--count", type=integer("--count"),
                   help="frequencies: modes per design (4)")
    p.add_argument("--sensitivities", action="store_true", default=None,
                   help="frequencies: also their exact derivatives with respect to the "
                        "swept entries at each design")
    p.add_argument("--preload", action="store_true", default=None,
                   help="frequencies, deflection: about the deflected equilibrium")
    add_pose(p, at_help="pose of frequencies and deflection: Delta platform centre X Y Z "
                        "[m] (0.1 0 0.5); arm tip X Y [m]")
    add_model_options(p)
    m = p.add_argument_group("motion (--output peak-deviation)")
    m.add_argument("--initial", help="static (default) or zero")
    m.add_argument("--method", help="integrator (as simulate --method)")
    add_motion_options(p)
    add_engine_options(p)
    add_output(p)
    p.set_defaults(func="sweep")


def run(a) -> int:
    from ..analysis.sweep import OUTPUTS, parse_range, sweep
    check_out(a)
    ranges, fixed = [], []
    for item in a.sets or []:
        r = parse_range(item)
        (fixed if r is None else ranges).append(item if r is None else r)
    if not ranges:
        raise InputError("--set", a.sets, "at least one KEY=START:STOP:NUM (a range to "
                         "sweep), e.g. links.lower.section.width=0.004:0.008:5")
    a.sets = fixed
    spec = load_robot(a)
    output = a.output or "frequencies"
    if output not in OUTPUTS:
        raise InputError("--output", output, "one of " + ", ".join(OUTPUTS))
    preload = preload_choice(a)
    model = build(a, spec, preload_is_model=preload_in_model(
        flexible_model(a, spec, verb="sweep")))
    design = "lhs" if given(a, "lhs") else "grid"
    if not given(a, "lhs"):
        refuse(a, {"seed": "--seed"}, "only with --lhs")
    if output != "frequencies":
        refuse(a, {"count": "--count", "sensitivities": "--sensitivities"},
               "only with --output frequencies")
    pose, tspec = None, None
    if output == "peak-deviation":
        refuse(a, {"at": "--at", "actuated": "--actuated", "preload": "--preload"},
               "not with --output peak-deviation (the motion gives the poses)")
        tspec, _ = motion_spec(a, spec.family, model)
    else:
        motion = dict(MOTION_FLAGS)
        for opts in LAW_OPTIONS.values():
            motion.update(opts)
        refuse(a, motion, "only with --output peak-deviation")
        st = pose_state(a, model, DEFAULT_AT.get(spec.family))   # checked on the nominal
        if given(a, "actuated"):
            pose = {"actuated": list(a.actuated)}
        elif st.pose is not None and (given(a, "at") or DEFAULT_AT.get(spec.family)) and \
                "inverse_kinematics" in model.capabilities:
            pose = {"pose": list(a.at if given(a, "at") else DEFAULT_AT[spec.family])}
    count = a.count if given(a, "count") else 4
    if output == "frequencies":
        count = min(count, model.coordinates.n_elastic) if not given(a, "count") else count

    def job(client, progress):
        return sweep(spec, ranges, formulation=model.formulation,
                     options=dict(model.options), output=output, design=design,
                     samples=a.lhs, seed=a.seed or 0, pose=pose, count=count,
                     preload=preload, trajectory=tspec, duration=a.duration,
                     step=1e-3 if a.step is None else a.step,
                     initial=a.initial or "static", method=a.method,
                     sensitivities=bool(a.sensitivities), client=client,
                     progress=progress, name=spec.name)
    return run_engine(a, job, "sweep")
