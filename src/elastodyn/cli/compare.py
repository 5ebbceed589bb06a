"""``elastodyn compare ROBOT``: one robot through every flexible formulation that can take
it (and each formulation's discretizations), side by side."""
from __future__ import annotations

import math

from ..exceptions import InputError
from .common import (add_output, add_pose, add_robot, build, check_out, emit, given,
                     integer, load_robot, number, pose_state)
from .modes import DEFAULT_AT


def register(sub):
    c = sub.add_parser("compare", help="every formulation that can take a robot, side by "
                                       "side",
                       description="Natural frequencies at a pose (actuators locked, no "
                                   "gravity preload) and the end-effector's static "
                                   "deflection under gravity and a short "
                                   "motion-driven simulation, by every flexible "
                                   "formulation that takes the robot: ffrf (finite "
                                   "elements and Rayleigh-Ritz), NE-PVP, KED, assumed "
                                   "modes, with the expected size of each difference "
                                   "(the same linear model: round-off; another "
                                   "discretization: its error).")
    add_robot(c, formulation=False)
    add_pose(c, at_help="pose: Delta platform centre X Y Z [m] (0.1 0 0.5); two-link "
                        "arm tip X Y [m]")
    c.add_argument("--elements", type=integer("--elements"),
                   help="finite elements per beam, every formulation (2)")
    c.add_argument("--modes", type=integer("--modes"),
                   help="assumed modes per link (amm, and nepvp on an arm) (2)")
    c.add_argument("--count", type=integer("--count"), help="frequencies compared (6)")
    c.add_argument("--duration", type=number("--duration"),
                   help="short simulation by every model [s]: every actuator moved by "
                        "--move rest to rest over the first half, held over the second, "
                        "from the static deflection (0.1; 0: no simulation)")
    c.add_argument("--move", type=number("--move"),
                   help="the move of every actuated coordinate [m or rad] (0.02)")
    c.add_argument("--step", type=number("--step"),
                   help="output step of the short simulation [s] (duration / 200)")
    add_output(c)
    c.set_defaults(func="compare")


def variants(a, spec):
    """(label, model, discretization) of every flexible formulation of ``spec``, a
    formulation marked ``reference`` in the registry first (the one the others are
    measured against)."""
    import argparse

    from ..formulations.registry import formulations_for, get
    from .common import MODEL_OPTIONS
    n = a.elements if given(a, "elements") else 2
    m = a.modes if given(a, "modes") else 2
    out = []
    am = f"{m} sine modes"
    # the discretization of each variant is set here, not by the verb's own options
    a = argparse.Namespace(**{k: (None if k in MODEL_OPTIONS else v)
                              for k, v in vars(a).items()}, modes_given=given(a, "modes"))
    for name in formulations_for(spec):
        form = get(name)
        if form.rigid:
            continue
        if form.discretizations is None:      # one variant, the formulation's defaults
            out.append((name, build(a, spec, formulation=name), "default"))
            continue
        for suffix, opts, words in form.discretizations(spec.family, n, m):
            out.append((f"{name}-{suffix}", build(a, spec, formulation=name, **opts), words))
    if a.modes_given and not any(d == am for _, _, d in out):
        raise InputError("--modes", m, "only for a robot with assumed-mode links (an arm)")
    # the reference formulations first: the others are measured against them
    return sorted(out, key=lambda v: not get(v[1].formulation).reference)


def run(a) -> int:
    from ..analysis.compare import compare
    check_out(a)
    if given(a, "count") and a.count < 1:
        raise InputError("--count", a.count, "an integer >= 1")
    spec = load_robot(a)
    vs = variants(a, spec)
    if len(vs) < 2:
        raise InputError("ROBOT", a.robot, "a robot with flexible links that two "
                         "formulations or discretizations take")
    first = vs[0][1]
    st0 = pose_state(a, first, DEFAULT_AT.get(spec.family))
    q_act = st0.actuated

    def state_of(model):
        return model.state(actuated=q_act)

    T = a.duration if given(a, "duration") else 0.1
    if not (math.isfinite(T) and 0.0 <= T <= 10.0):
        raise InputError("--duration", T, "a time in [0, 10] s (0: no simulation)")
    move = a.move if given(a, "move") else 0.02
    step = a.step if given(a, "step") else T / 200
    if T == 0.0:
        refuse = [f for f, d in (("--move", "move"), ("--step", "step")) if given(a, d)]
        if refuse:
            raise InputError(refuse[0], getattr(a, refuse[0][2:]),
                             "only with a short simulation (--duration > 0)")
    elif not (math.isfinite(move) and 0.0 < abs(move) <= 0.2):
        raise InputError("--move", move, "a move of 0 < |move| <= 0.2 m or rad")
    elif not (math.isfinite(step) and 0.0 < step <= T / 10):
        raise InputError("--step", step, f"an output step in (0, {T / 10:g}] s (at least "
                                         "ten samples)")
    sim = None if T == 0.0 else {"duration": T, "move": move, "step": step,
                                 "adapt": not given(a, "move")}
    result = compare(vs, state_of, count=a.count or 6, robot=spec.name, simulation=sim,
                     inputs={"actuated": q_act.tolist(),
                             "elements": a.elements if given(a, "elements") else 2,
                             **({} if sim is None else {"simulation": sim})})
    return emit(a, result)
