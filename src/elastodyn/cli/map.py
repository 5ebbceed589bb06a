"""``elastodyn map ROBOT``: natural frequencies along a path (Kuo 2016 Fig. 4)."""
from __future__ import annotations

import math

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     flexible_model, given, integer, load_robot, number, preload_choice,
                     pose_dim, preload_in_model, progress_bar, refuse)
from .engine import add_engine_options, refuse_engine_options, run_engine

MAX_POINTS = 10_000
DEFAULT_CENTRE = {"delta": (0.0, 0.0, 0.5)}
"""Default circle centre per family where the paper has one (Kuo 2016 Fig. 4)."""


def register(sub):
    p = sub.add_parser("map", help="natural frequencies along a path",
                       description="The lowest natural frequencies at rest at points of a "
                                   "path: a circle of the end-effector (--path circle; "
                                   "default for a Delta: Kuo 2016 Fig. 4, centre 0 0 0.5 m, "
                                   "radius 0.1 m) or a straight line in the actuated "
                                   "coordinates (--path line --from Q... --to Q...).")
    add_robot(p)
    p.add_argument("--path", help="circle (task space) or line (actuated coordinates)")
    p.add_argument("--centre", type=number("--centre"), nargs="+", metavar="X",
                   help="circle centre [m]: X Y Z for a Delta (0 0 0.5), X Y for an arm")
    p.add_argument("--radius", type=number("--radius"), help="circle radius [m] (0.1)")
    p.add_argument("--from", dest="from_", type=number("--from"), nargs="+", metavar="Q",
                   help="line: start, actuated coordinates [rad or m]")
    p.add_argument("--to", type=number("--to"), nargs="+", metavar="Q",
                   help="line: end, actuated coordinates [rad or m]")
    p.add_argument("--points", type=integer("--points"), help="points on the path (360)")
    p.add_argument("--preload", action="store_true", default=None,
                   help="about the deflected equilibrium under gravity at each pose")
    add_model_options(p)
    p.add_argument("--count", type=integer("--count"),
                   help="modes per point (8; 4 with --workspace)")
    w = p.add_argument_group("whole workspace (--workspace)")
    w.add_argument("--workspace", action="store_true", default=None,
                   help="map the reachable workspace on a grid instead of a path: the task "
                        "space (x y z of a Delta, x y of an arm's tip) where the model has "
                        "an inverse kinematics, else the actuated space")
    w.add_argument("--grid", type=integer("--grid"),
                   help="points per axis (20 in 3-D, 40 in 2-D)")
    w.add_argument("--spacing", type=number("--spacing"),
                   help="grid spacing [m, or rad in an actuated space] instead of --grid")
    w.add_argument("--plane", metavar="AXIS=VALUE",
                   help="hold one axis: a slice, e.g. z=0.5 [m]")
    w.add_argument("--bounds", type=number("--bounds"), nargs="+", metavar="V",
                   help="the box: LO HI per axis [m or rad] (default: the box the "
                        "actuators reach)")
    w.add_argument("--space", help="task or actuated (default: task where possible)")
    w.add_argument("--deflection", action="store_true", default=None,
                   help="also the end-effector's static deflection under gravity and its "
                        "stiffness at each point")
    w.add_argument("--max-condition", dest="max_condition",
                   type=number("--max-condition"),
                   help="mask points whose kinematic condition number exceeds this (Delta; "
                        "default 1000)")
    add_engine_options(p)
    add_output(p)
    p.set_defaults(func="map")


def run(a) -> int:
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    from ..analysis.modes import frequency_map
    check_out(a)
    spec = load_robot(a)
    preload = preload_choice(a)
    form = flexible_model(a, spec, verb="map")
    model = build(a, spec, preload_is_model=preload_in_model(form))
    if a.workspace:
        return _workspace(a, spec, model, preload)
    refuse(a, WORKSPACE_ONLY, "only with --workspace")
    refuse_engine_options(a, "only with --workspace")
    path = a.path or ("circle" if spec.family in DEFAULT_CENTRE else None)
    points = 360 if a.points is None else a.points
    if not 1 <= points <= MAX_POINTS:
        raise InputError("--points", points, f"an integer in [1, {MAX_POINTS}]")
    if path is None:
        raise InputError("--path", None, "circle (--centre, --radius) or line (--from, --to) "
                         f"for {spec.name}")
    if path == "circle":
        refuse(a, {"from_": "--from", "to": "--to"}, "only with --path line")
        if "inverse_kinematics" not in model.capabilities:
            raise InputError("--path", "circle", f"line (--from, --to) for this robot: the "
                             f"{model.formulation} model has no inverse kinematics")
        dim = pose_dim(model)
        centre = a.centre if given(a, "centre") else DEFAULT_CENTRE.get(spec.family)
        if centre is None:
            raise InputError("--centre", None, "the circle's centre" + (
                " X Y [m]" if dim == 2 else " [m]"))
        dim = len(centre) if dim is None else dim
        if len(centre) != dim:
            raise InputError("--centre", list(centre), f"{dim} coordinates [m]")
        radius = 0.1 if a.radius is None else a.radius
        if not (radius > 0 and math.isfinite(radius)):
            raise InputError("--radius", radius, "a finite radius > 0 [m]")
        ang = np.arange(points) * 360.0 / points
        th = np.radians(ang)
        pts = [np.array(centre, float) + radius * np.r_[np.cos(t), np.sin(t),
                                                        np.zeros(dim - 2)] for t in th]
        states = _states(model, pts, "pose", "--centre/--radius")
        coord, name = ang, "angle_deg"
        echo = {"path": "circle", "centre_m": list(centre), "radius_m": radius}
    elif path == "line":
        refuse(a, {"centre": "--centre", "radius": "--radius"}, "only with --path circle")
        n = model.coordinates.n_actuated
        for flag, v in (("--from", a.from_), ("--to", a.to)):
            if v is None or len(v) != n:
                raise InputError(flag, v, f"{n} actuated coordinate(s): "
                                 + ", ".join(model.coordinates.actuated))
        s = np.linspace(0.0, 1.0, points)
        q0, q1 = np.array(a.from_), np.array(a.to)
        states = _states(model, [q0 + t * (q1 - q0) for t in s], "actuated", "--from/--to")
        coord, name = s, "path_fraction"
        echo = {"path": "line", "from": list(a.from_), "to": list(a.to)}
    else:
        raise InputError("--path", path, "circle or line")
    result = frequency_map(model, states, coordinate=coord, coordinate_name=name,
                           count=a.count, preload=preload, robot=spec.name, path=echo,
                           progress=progress_bar(len(states), "map"))
    return emit(a, result)


def _states(model, values, kind, flag):
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    from ..exceptions import ModelError
    out = []
    for v in values:
        try:
            out.append(model.state(**{kind: v}))
        except (InputError, ModelError) as exc:
            detail = str(exc).split("; allowed", 1)[0]
            raise InputError(flag, np.round(v, 6).tolist(),
                             f"a path inside the workspace ({detail})") from None
    return out


WORKSPACE_ONLY = {"grid": "--grid", "spacing": "--spacing", "plane": "--plane",
                  "bounds": "--bounds", "space": "--space", "deflection": "--deflection",
                  "max_condition": "--max-condition"}


def _workspace(a, spec, model, preload) -> int:
    from ..analysis.workspace import workspace_map
    refuse(a, {"path": "--path", "centre": "--centre", "radius": "--radius",
               "from_": "--from", "to": "--to", "points": "--points"},
           "not with --workspace (a path map)")
    bounds = None
    if given(a, "bounds"):
        if len(a.bounds) % 2:
            raise InputError("--bounds", a.bounds, "pairs LO HI, one per axis")
        bounds = [a.bounds[k:k + 2] for k in range(0, len(a.bounds), 2)]
    inputs = {"workspace": True}

    def job(client, progress):
        return workspace_map(spec, model.formulation, options=dict(model.options),
                             model=model, grid=a.grid, spacing=a.spacing, plane=a.plane,
                             bounds=bounds, space=a.space, count=a.count, preload=preload,
                             deflection=bool(a.deflection), max_condition=a.max_condition,
                             client=client, progress=progress, name=spec.name,
                             inputs=inputs)
    return run_engine(a, job, "map")
