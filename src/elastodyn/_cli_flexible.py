"""Command-line verbs of the flexible Delta by KED (Kuo 2016): modes, map, convergence,
and the flexible branch of simulate. Registered by :mod:`elastodyn.cli`."""
from __future__ import annotations

import json
import math
import sys

from .exceptions import InputError

MAX_KED_ELEMENTS = 32
"""Command-line cap on elements per link (dof 6 + 3 (12 n - 2): ~1150 at n = 32)."""
MAX_POINTS = 10_000
MAX_KED_STEPS = 200_000
MAX_PERIODS = 100
MAX_KED_TIME = 100.0
"""Caps of the KED simulation on the command line: steps and simulated time [s]."""


def add_model_options(p, *, elements=True):
    """Options shared by the KED verbs."""
    if elements:
        p.add_argument("--elements", type=_int("--elements"), default=1,
                       help="beam elements per link (1)")
    p.add_argument("--order", default="cubic",
                   help="cubic (Kuo Table 2: linear axial/torsion, cubic bending) or quintic "
                        "(Table 3: cubic/quintic) (cubic)")
    p.add_argument("--joint-b", default=None,
                   help="elbow joints: universal, spherical or clamped (universal)")
    p.add_argument("--joint-d", default=None,
                   help="platform joints: universal, spherical or clamped (universal; "
                        "clamped = Kuo eq. 47)")
    p.add_argument("--no-preload", action="store_true",
                   help="leave out the geometric stiffness of the axial link forces")


def _int(name):
    from .cli import _int as conv
    return conv(name)


def _float(name):
    from .cli import _float as conv
    return conv(name)


def register(sub):
    m = sub.add_parser("modes", help="natural frequencies of a flexible robot at a pose",
                       description="Natural frequencies of the flexible Delta (KED, Kuo "
                                   "2016) at rest at a platform position, with the static "
                                   "link forces under gravity in the geometric stiffness.")
    m.add_argument("robot", metavar="ROBOT",
                   help="preset with flexible links: delta-kuo2016, prrrp-briot2013")
    m.add_argument("--at", type=_float("--at"), nargs=3, metavar=("X", "Y", "Z"),
                   default=None, help="Delta: platform centre [m] (0.1 0 0.5; Z down)")
    m.add_argument("--q1", type=_float("--q1"), default=0.0,
                   help="five-bar: actuator 1 position [m] (0)")
    m.add_argument("--q4", type=_float("--q4"), default=0.0,
                   help="five-bar: actuator 2 position [m] (0)")
    add_model_options(m)
    m.add_argument("--count", type=_int("--count"), default=None,
                   help="number of modes (Delta 8, five-bar all)")
    m.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    m.add_argument("--out", help="folder for modes.json and modes.csv")
    m.set_defaults(func=cmd_modes)

    mp = sub.add_parser("map", help="natural frequencies along a path",
                        description="The lowest natural frequencies at rest at points of a "
                                    "circle (Kuo 2016 Fig. 4: centre 0 0 0.5 m, radius 0.1 m).")
    mp.add_argument("robot", metavar="ROBOT", help="preset with flexible links: delta-kuo2016")
    mp.add_argument("--path", default="circle", help="circle (circle)")
    mp.add_argument("--centre", type=_float("--centre"), nargs=3, metavar=("X", "Y", "Z"),
                    default=(0.0, 0.0, 0.5), help="circle centre [m] (0 0 0.5)")
    mp.add_argument("--radius", type=_float("--radius"), default=0.1,
                    help="circle radius [m] (0.1)")
    mp.add_argument("--points", type=_int("--points"), default=360,
                    help="points on the circle (360)")
    add_model_options(mp)
    mp.add_argument("--count", type=_int("--count"), default=8, help="modes per point (8)")
    mp.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    mp.add_argument("--out", help="folder for map.json, map.csv, map.png")
    mp.set_defaults(func=cmd_map)

    c = sub.add_parser("convergence", help="frequencies against the number of elements",
                       description="Natural frequencies at a pose for 1..N elements per link "
                                   "(Kuo 2016 Tables 2 and 3).")
    c.add_argument("robot", metavar="ROBOT", help="preset with flexible links: delta-kuo2016")
    c.add_argument("--at", type=_float("--at"), nargs=3, metavar=("X", "Y", "Z"),
                   default=(0.1, 0.0, 0.5), help="platform centre [m] (0.1 0 0.5)")
    c.add_argument("--max-elements", type=_int("--max-elements"), default=8,
                   help="largest number of elements per link (8)")
    add_model_options(c, elements=False)
    c.add_argument("--count", type=_int("--count"), default=8, help="number of modes (8)")
    c.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    c.add_argument("--out", help="folder for convergence.json, convergence.csv, "
                                 "convergence.png")
    c.set_defaults(func=cmd_convergence)


def add_simulate_options(s):
    g = s.add_argument_group("flexible links (KED, Kuo 2016; the default for delta-kuo2016 "
                             "when no --controller is given)")
    g.add_argument("--periods", type=_float("--periods"),
                   help="circle: number of periods simulated (5)")
    add_model_options(g)
    g.add_argument("--initial", default="static",
                   help="static (deflection under gravity at the first pose) or zero (static)")
    g.add_argument("--rayleigh", type=_float("--rayleigh"), nargs=2, metavar=("ALPHA", "BETA"),
                   default=(0.0, 0.0), help="damping alpha M + beta K [1/s, s] (0 0)")
    g.add_argument("--method",
                   help="Delta: newmark (constant step, Kuo) or radau (adaptive implicit "
                        "Runge-Kutta, a check) (newmark); five-bar: rk4 (compiled) or "
                        "dop853 (Python, adaptive, a check) (rk4)")


def _flexible_robot(name: str):
    from .description.flexible_delta import FlexibleDelta
    from .description.presets import get_preset
    robot = get_preset(name)
    if getattr(robot, "link_section", None) is None:
        raise InputError("ROBOT", name, "a preset with flexible links: delta-kuo2016, "
                         "prrrp-briot2013")
    return FlexibleDelta.from_rigid(robot)


def _model(a, robot, elements=None):
    from .formulations.ked_delta import KEDDeltaModel
    n = a.elements if elements is None else elements
    if not 1 <= n <= MAX_KED_ELEMENTS:
        raise InputError("--elements", n, f"an integer in [1, {MAX_KED_ELEMENTS}]")
    _names = {"joint_b": "--joint-b", "joint_d": "--joint-d", "order": "--order",
              "elements": "--elements"}
    try:
        return KEDDeltaModel(robot, elements=n, order=a.order, joint_b=a.joint_b,
                             joint_d=a.joint_d, preload=not a.no_preload,
                             rayleigh=tuple(getattr(a, "rayleigh", (0.0, 0.0))))
    except InputError as exc:
        if exc.name in _names:
            raise InputError(_names[exc.name], exc.value, exc.allowed) from None
        if exc.name.startswith("rayleigh"):
            raise InputError("--rayleigh", list(a.rayleigh), "two numbers >= 0") from None
        raise


def _position(name, value, model):
    import numpy as np
    X = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(X)):
        raise InputError(name, list(value), "finite coordinates [m]")
    from .kinematics.delta import SingularConfigurationError, UnreachableError
    try:
        model.kinematics.check_reachable(X)
        model.kinematics.check_singularity(X)
    except (UnreachableError, SingularConfigurationError) as exc:
        detail = str(exc).replace("invalid X: ", "").split("; allowed")[0]
        err = InputError(name, list(value), "a pose inside the workspace")
        err.args = (f"invalid {name}: {detail}; allowed: a pose inside the workspace",)
        raise err from None
    return X


def _count(a, model):
    if not 1 <= a.count <= model.dof:
        raise InputError("--count", a.count, f"an integer in [1, {model.dof}]")


def _out(a):
    from pathlib import Path
    return None if a.out is None else Path(a.out)


def _written(out, names):
    print(f"outputs written to {out.resolve()} ({', '.join(names)})", file=sys.stderr)


def write_modes(out, doc, omega, freq):
    """modes.json (``doc``) and modes.csv (mode, omega [rad/s], f [Hz]) under ``out``
    (None: nothing), each written atomically."""
    from .io.atomic import atomic_write_text
    if out is None:
        return
    atomic_write_text(out / "modes.json", json.dumps(doc, indent=2) + "\n")
    lines = ["mode,omega_rad_s,frequency_hz"] + [
        f"{k + 1},{w:.10g},{f:.10g}" for k, (w, f) in enumerate(zip(omega, freq))]
    atomic_write_text(out / "modes.csv", "\n".join(lines) + "\n")


def cmd_modes(a) -> int:
    import numpy as np
    from ._cli_nepvp import cmd_modes_tree, is_tree_preset
    if is_tree_preset(a.robot):
        return cmd_modes_tree(a)
    robot = _flexible_robot(a.robot)
    model = _model(a, robot)
    X = _position("--at", (0.1, 0.0, 0.5) if a.at is None else a.at, model)
    a.count = 8 if a.count is None else a.count
    _count(a, model)
    res = model.modes(X, a.count)
    mech = model.mechanisms
    zero = [int(k) for k in np.flatnonzero(res.omega_rad_s == 0.0)]
    doc = {"command": "modes", "robot": a.robot, "position_m": X.tolist(),
           "elements": model.n_elements, "order": model.order, "joint_b": model.joint_b,
           "joint_d": model.joint_d, "preload": model.preload,
           "omega_rad_s": res.omega_rad_s.tolist(),
           "frequencies_hz": res.frequencies_hz.tolist(), "dof": model.dof,
           "mechanism_modes": mech, "zero_frequency_modes": [k + 1 for k in zero]}
    out = _out(a)
    write_modes(out, doc, res.omega_rad_s, res.frequencies_hz)
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{a.robot} (KED, {model.n_elements} {model.order} element(s) per link, joints "
              f"B {model.joint_b}, D {model.joint_d}, preload {'on' if model.preload else 'off'})"
              f" at {X.tolist()} m: {model.dof} dof", file=sys.stderr)
        if mech:
            print(f"  {mech} mechanism freedom(s) (ball joints): zero frequency without "
                  "preload; with it, only the link tension holds them", file=sys.stderr)
        for k, (w, f) in enumerate(zip(res.omega_rad_s, res.frequencies_hz)):
            tag = "  mechanism (zero frequency)" if w == 0.0 else ""
            print(f"  mode {k + 1:2d}: {w:12.5g} rad/s  {f:10.5g} Hz{tag}", file=sys.stderr)
    if out is not None:
        _written(out, ["modes.json", "modes.csv"])
    return 0


def cmd_map(a) -> int:
    import numpy as np
    from .analysis.flexible_delta import frequency_map
    from .io.atomic import atomic_write_text
    from .trajectories import Circle
    if a.path != "circle":
        raise InputError("--path", a.path, "circle")
    if not 1 <= a.points <= MAX_POINTS:
        raise InputError("--points", a.points, f"an integer in [1, {MAX_POINTS}]")
    robot = _flexible_robot(a.robot)
    model = _model(a, robot)
    _count(a, model)
    if not (np.all(np.isfinite(a.centre)) and math.isfinite(a.radius) and a.radius > 0):
        raise InputError("--radius" if not a.radius > 0 else "--centre",
                         a.radius if not a.radius > 0 else list(a.centre),
                         "a finite circle of radius > 0 [m]")
    circle = Circle(a.centre, a.radius, period=1.0)
    try:
        fmap = frequency_map(model, circle, points=a.points, count=a.count,
                             progress=True if a.points >= 50 else None)
    except InputError as exc:
        if exc.name == "X":
            raise InputError("--centre/--radius", [list(a.centre), a.radius],
                             "a circle inside the workspace") from None
        raise
    doc = {"command": "map", "robot": a.robot, "path": a.path,
           "elements": model.n_elements, "order": model.order, "joint_b": model.joint_b,
           "joint_d": model.joint_d, "preload": model.preload, **fmap.to_dict()}
    out = _out(a)
    if out is not None:
        from .plot.flexible_delta import plot_frequency_map
        atomic_write_text(out / "map.json", json.dumps(doc) + "\n")
        lines = ["angle_deg,x_m,y_m,z_m," + ",".join(f"f{k + 1}_hz" for k in range(a.count))]
        for ang, p, f in zip(fmap.angle_deg, fmap.position_m, fmap.frequencies_hz):
            lines.append(",".join(f"{v:.10g}" for v in (ang, *p, *f)))
        atomic_write_text(out / "map.csv", "\n".join(lines) + "\n")
        plot_frequency_map(fmap, out / "map.png")
    if a.json:
        print(json.dumps(doc))
    else:
        f = fmap.frequencies_hz
        print(f"{a.robot}: {a.points} poses on the circle, lowest {a.count} frequencies "
              f"[Hz] (min .. max over the circle):", file=sys.stderr)
        for k in range(a.count):
            print(f"  mode {k + 1:2d}: {f[:, k].min():9.4g} .. {f[:, k].max():9.4g}",
                  file=sys.stderr)
    if out is not None:
        _written(out, ["map.json", "map.csv", "map.png"])
    return 0


def cmd_convergence(a) -> int:
    from .analysis.flexible_delta import convergence
    from .io.atomic import atomic_write_text
    if not 1 <= a.max_elements <= MAX_KED_ELEMENTS:
        raise InputError("--max-elements", a.max_elements,
                         f"an integer in [1, {MAX_KED_ELEMENTS}]")
    robot = _flexible_robot(a.robot)
    model = _model(a, robot, elements=1)
    X = _position("--at", a.at, model)
    _count(a, model)
    tab = convergence(robot, X, max_elements=a.max_elements, order=model.order,
                      count=a.count, joint_b=model.joint_b, joint_d=model.joint_d,
                      preload=model.preload, progress=True if a.max_elements > 4 else None)
    doc = {"command": "convergence", "robot": a.robot, "joint_b": model.joint_b,
           "joint_d": model.joint_d, "preload": model.preload, **tab.to_dict()}
    out = _out(a)
    if out is not None:
        from .plot.flexible_delta import plot_convergence
        atomic_write_text(out / "convergence.json", json.dumps(doc, indent=2) + "\n")
        lines = ["elements,dof," + ",".join(f"f{k + 1}_hz" for k in range(a.count))]
        for n, d, f in zip(tab.elements, tab.dof, tab.frequencies_hz):
            lines.append(",".join([str(n), str(d)] + [f"{v:.10g}" for v in f]))
        atomic_write_text(out / "convergence.csv", "\n".join(lines) + "\n")
        plot_convergence(tab, out / "convergence.png")
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{a.robot} at {X.tolist()} m, {model.order} family: frequencies [Hz]",
              file=sys.stderr)
        for n, d, f in zip(tab.elements, tab.dof, tab.frequencies_hz):
            print(f"  n = {n:2d} ({d:4d} dof): " + " ".join(f"{v:9.4f}" for v in f),
                  file=sys.stderr)
    if out is not None:
        _written(out, ["convergence.json", "convergence.csv", "convergence.png"])
    return 0


def cmd_simulate_flexible(a, traj) -> int:
    """The KED simulation of ``simulate`` (no --controller)."""
    import numpy as np
    from .analysis.flexible_delta import simulate_ked
    from .io.atomic import atomic_write_text
    robot = _flexible_robot(a.robot)
    model = _model(a, robot)
    step = 1e-3 if a.step is None else a.step
    if not (0 < step < math.inf):
        raise InputError("--step", step, "a finite number > 0")
    if a.periods is not None:
        if traj.period is None:
            raise InputError("--periods", a.periods, "only with --trajectory circle")
        if not 0 < a.periods <= MAX_PERIODS:
            raise InputError("--periods", a.periods, f"a number in (0, {MAX_PERIODS}]")
        if a.duration is not None:
            raise InputError("--duration", a.duration, "not with --periods")
        duration = a.periods * traj.period
    elif a.duration is not None:
        duration = a.duration
    else:
        duration = 5 * traj.period if traj.period is not None else traj.t_end - traj.t_start
    name = "--periods" if a.periods is not None else "--duration"
    if not (0 < duration <= MAX_KED_TIME):
        raise InputError(name, a.periods if a.periods is not None else duration,
                         f"a simulated time in (0, {MAX_KED_TIME:g}] s")
    steps = duration / step
    if steps > MAX_KED_STEPS:
        raise InputError("--step", step, f"at least duration / {MAX_KED_STEPS:,} "
                                         f"({duration / MAX_KED_STEPS:.3g} s)")
    if abs(steps - round(steps)) > 1e-6 * max(1.0, steps) or round(steps) < 1:
        raise InputError("--step", step, f"a divisor of the simulated time {duration:.6g} s")
    try:
        res = simulate_ked(model, traj, duration=duration, step=step, initial=a.initial,
                           method=a.method or "newmark", progress=True if steps >= 2000 else None)
    except InputError as exc:
        names = {"initial": "--initial", "method": "--method", "step": "--step"}
        if exc.name in names:
            raise InputError(names[exc.name], exc.value, exc.allowed) from None
        raise
    doc = {"command": "simulate", "model": "ked", "robot": a.robot,
           "trajectory": a.trajectory, "elements": model.n_elements, "order": model.order,
           "joint_b": model.joint_b, "joint_d": model.joint_d, "preload": model.preload,
           "step_s": step, "duration_s": duration, **res.to_dict()}
    out = _out(a)
    if out is not None:
        from .plot.flexible_delta import plot_ked_simulation
        atomic_write_text(out / "simulation.json", json.dumps(doc) + "\n")
        header = (["time_s"] + [f"{c}_m" for c in "xyz"]
                  + [f"delta{i}_m" for i in (1, 2, 3)] + [f"delta{i}_deg" for i in (4, 5, 6)]
                  + [f"tau{i}_nm" for i in (1, 2, 3)] + [f"tau{i}_rigid_nm" for i in (1, 2, 3)])
        mid = []
        for i in range(3):
            for li, link in ((0, "upper"), (1, "lower")):
                for f, (name, unit) in enumerate((("u", "m"), ("phi", "rad"), ("v", "m"),
                                                  ("w", "m"))):
                    header.append(f"{link}{i + 1}_mid_{name}_{unit}")
                    mid.append(res.midspan[:, i, li, f])
        from .cli import _write_csv
        _write_csv(out / "simulation.csv", header,
                   [res.time, res.position, res.position_variation, res.attitude_variation_deg,
                    res.torque, res.rigid_torque, np.column_stack(mid)])
        names = plot_ked_simulation(res, out, traj)
        atomic_write_text(out / "summary.md", _summary_md(a, model, res, duration, step))
        names = ["simulation.json", "simulation.csv", "summary.md", *names]
    if a.json:
        print(json.dumps(doc))
    else:
        print(_summary_text(a, model, res, duration, step), file=sys.stderr)
    if out is not None:
        _written(out, names)
    return 0


def _summary_lines(a, model, res, duration, step):
    s = res.summary()
    mm = [1e3 * v for v in s["max_position_variation_m"]]
    fm = [1e3 * v for v in s["final_position_variation_m"]]
    return [
        f"{a.robot}: KED simulation of the {a.trajectory} ({duration:.4g} s, "
        f"{res.method}, step {step:g} s, {model.n_elements} {model.order} element(s) per link, "
        f"joints B {model.joint_b} / D {model.joint_d}, {model.dof} dof, "
        f"initial state: {res.initial})",
        "  position variation [mm] (X, Y, Z): max |.| "
        + ", ".join(f"{v:.4g}" for v in mm) + "; final " + ", ".join(f"{v:.4g}" for v in fm),
        "  attitude variation [deg] (about X, Y, Z): max |.| "
        + ", ".join(f"{v:.4g}" for v in s["max_attitude_variation_deg"]) + "; final "
        + ", ".join(f"{v:.4g}" for v in s["final_attitude_variation_deg"]),
        "  peak |torque| [N m]: " + ", ".join(f"{v:.4g}" for v in s["peak_torque_nm"]),
        f"  largest elastic displacement {100 * res.max_displacement_ratio:.3g}% of the link "
        f"length, largest elastic rotation {res.max_rotation_rad:.3g} rad",
    ]


def _summary_text(a, model, res, duration, step) -> str:
    lines = _summary_lines(a, model, res, duration, step)
    if res.validity_warning:
        lines.append("  VALIDITY: " + res.validity_warning)
    return "\n".join(lines)


def _summary_md(a, model, res, duration, step) -> str:
    lines = _summary_lines(a, model, res, duration, step)
    body = ["# Flexible Delta: " + lines[0].split(": ", 1)[1], ""]
    body += ["- " + ln.strip() for ln in lines[1:]]
    body += ["", "Validity: " + (res.validity_warning or
                                 "within the small-deformation range of the linear model"),
             "", "Figures: torques.png, position_variation.png, attitude_variation.png, "
             "midspan.png" + (", trajectory.png, path.png" if res.time is not None and
                              a.trajectory == "inverted-u" else ""),
             "Data: simulation.csv (time series), simulation.json (everything)", ""]
    return "\n".join(body)
