"""Command-line verbs of the NE-PVP models (Briot & Khalil 2013): modes, simulate and generate for
tree-described parallel robots (prrrp-briot2013)."""
from __future__ import annotations

import json
import sys
import time

from .exceptions import InputError

MAX_TREE_ELEMENTS = 8


def is_tree_preset(name: str) -> bool:
    from .description.presets import get_preset
    from .description.tree import TreeRobot
    try:
        return isinstance(get_preset(name), TreeRobot)
    except InputError:
        return False


def tree_model(name: str, elements: int):
    from .description.presets import get_preset
    from .formulations.nepvp_model import NEPVPModel
    if not 1 <= elements <= MAX_TREE_ELEMENTS:
        raise InputError("--elements", elements, f"an integer in [1, {MAX_TREE_ELEMENTS}]")
    return NEPVPModel(get_preset(name).with_elements(elements))


def _actuated(a, model):
    import numpy as np
    qa = np.array([a.q1, a.q4], dtype=float)
    for nm, v in (("--q1", a.q1), ("--q4", a.q4)):
        if not np.isfinite(v):
            raise InputError(nm, v, "a finite number [m]")
    try:
        q = model.closure(qa)
    except ValueError:
        raise InputError("--q4", a.q4, "actuator positions where the loop closes "
                         "(|q4 - q1| < 0.529 m)") from None
    return qa, q


def cmd_modes_tree(a) -> int:
    from pathlib import Path

    import numpy as np
    from ._cli_flexible import write_modes
    if a.order != "cubic" or a.joint_b or a.joint_d or a.no_preload or a.at is not None:
        raise InputError("options", a.robot, "--q1, --q4, --elements, --count, --json, "
                         "--out for a five-bar (--at, --order, --joint-b/-d, --no-preload "
                         "are Delta options)")
    model = tree_model(a.robot, a.elements)
    qa, q = _actuated(a, model)
    count = model.ne if a.count is None else a.count
    if not 1 <= count <= model.ne:
        raise InputError("--count", count, f"an integer in [1, {model.ne}]")
    w, _ = model.modes(qa)
    w = w[:count]
    f = w / (2 * np.pi)
    doc = {"command": "modes", "robot": a.robot, "formulation": "NE-PVP (Briot & Khalil 2013)",
           "q_a_m": qa.tolist(), "joints": dict(zip(model.sym.names, q.tolist())),
           "elements": a.elements, "omega_rad_s": w.tolist(), "frequencies_hz": f.tolist(),
           "dof": model.ne, "actuators": "locked", "preload": False}
    out = None if a.out is None else Path(a.out)
    write_modes(out, doc, w, f)
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{a.robot} (NE-PVP, {a.elements} planar element(s) per beam, actuators locked "
              f"at q1 = {qa[0]:g} m, q4 = {qa[1]:g} m): {model.ne} elastic dof",
              file=sys.stderr)
        for k, (x, y) in enumerate(zip(w, f)):
            print(f"  mode {k + 1:2d}: {x:12.5g} rad/s  {y:10.5g} Hz", file=sys.stderr)
    if out is not None:
        print(f"outputs written to {out.resolve()} (modes.json, modes.csv)", file=sys.stderr)
    return 0


def register_generate(sub):
    from .symbolic import LANGUAGES
    g = sub.add_parser("generate", help="export the symbolic model as code",
                       description="Generate the elastodynamic model of a flexible parallel "
                                   "robot (NE-PVP, Briot & Khalil 2013) with intermediate "
                                   "variables, and print its operator counts.")
    g.add_argument("robot", metavar="ROBOT",
                   help="prrrp-briot2013, arm (an N-link flexible arm with symbolic "
                        "parameters) or arm-yu2019 (its numbers)")
    g.add_argument("--lang", default="c", help="one of " + ", ".join(LANGUAGES) + " (c)")
    g.add_argument("--out", help="folder for the generated file")
    g.add_argument("--problem",
                   help="five-bar: inverse (tau, elastic accelerations), direct "
                        "(accelerations from tau) or model (M and c) (inverse)")
    from .cli import _int
    g.add_argument("--elements", type=_int("--elements"), default=1,
                   help="planar elements per beam (1)")
    a = g.add_argument_group("flexible arm by assumed modes (Yu & Chen 2019)")
    a.add_argument("--links", type=_int("--links"), help="number of links N of 'arm' (2)")
    a.add_argument("--modes", type=_int("--modes"), help="assumed modes per link (2)")
    a.add_argument("--basis", help="sine (Yu eq. 4) or clamped-free (sine)")
    g.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    g.set_defaults(func=cmd_generate)


def cmd_generate(a) -> int:
    from ._validate import choice
    from .symbolic import LANGUAGES, print_program
    choice("--lang", a.lang, LANGUAGES)
    from ._cli_arm import cmd_generate_arm, is_arm
    if is_arm(a.robot):
        return cmd_generate_arm(a)
    for name, value in (("--links", a.links), ("--modes", a.modes), ("--basis", a.basis)):
        if value is not None:
            raise InputError(name, value, "only for arm and arm-yu2019")
    a.problem = a.problem or "inverse"
    choice("--problem", a.problem, ("inverse", "direct", "model"))
    if not is_tree_preset(a.robot):
        from .description.presets import PRESETS
        trees = [n for n in PRESETS if is_tree_preset(n) or is_arm(n)]
        raise InputError("ROBOT", a.robot, "one of " + ", ".join(trees + ["arm"]))
    t0 = time.perf_counter()
    model = tree_model(a.robot, a.elements)
    prog = model.program(a.problem)
    text = print_program(prog, a.lang)
    gen_time = time.perf_counter() - t0
    return emit_generated(a, prog, text, gen_time,
                          {"problem": a.problem, "elements": a.elements},
                          f"{a.robot}, {a.problem} problem ({a.elements} element(s) per beam)")


def emit_generated(a, prog, text, gen_time, fields: dict, title: str) -> int:
    """The common end of ``generate``: write ``text`` under --out (atomically), print the
    JSON document (command, robot, lang, ``fields``, operator counts, generation time,
    file) or the counts on stderr and the code on stdout."""
    from pathlib import Path

    from .io.atomic import atomic_write_text
    from .symbolic import EXTENSIONS
    ops = prog.ops()
    name = prog.name + EXTENSIONS[a.lang]
    doc = {"command": "generate", "robot": a.robot, "lang": a.lang, **fields,
           **ops.to_dict(), "intermediate_variables": len(prog.assignments),
           "generation_time_s": gen_time,
           "file": None if a.out is None else str(Path(a.out) / name)}
    if a.out is not None:
        atomic_write_text(Path(a.out) / name, text)
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{title}: {ops.additions} additions/subtractions, {ops.multiplications} "
              f"multiplications/divisions, {ops.functions} function calls, "
              f"{len(prog.assignments)} intermediate variables; generated in "
              f"{gen_time:.3g} s", file=sys.stderr)
        if a.out is None:
            sys.stdout.write(text)
    if a.out is not None:
        print(f"outputs written to {Path(a.out).resolve()} ({name})", file=sys.stderr)
    return 0


MAX_TREE_TIME = 20.0
"""Command-line cap on the simulated time of a five-bar run [s]."""
_TREE_ONLY = {"to": "--to", "end": "--end"}


def add_tree_simulate_options(s):
    g = s.add_argument_group("five-bar (NE-PVP, Briot & Khalil 2013): prrrp-briot2013 "
                             "with --trajectory bang-bang, --duration (0.75), --elements, "
                             "--step (output, 0.001), --initial, --method")
    from .cli import _float
    g.add_argument("--to", type=_float("--to"), nargs=2, metavar=("Q1F", "Q4F"),
                   help="final actuator positions [m] (0.1 0.2), from q1 = q4 = 0")
    g.add_argument("--end", type=_float("--end"),
                   help="simulated time [s] (1, or 0.25 after a motion longer than 0.75)")


def refuse_tree_options(a):
    for key, name in _TREE_ONLY.items():
        if getattr(a, key, None) is not None:
            raise InputError(name, getattr(a, key), "only for prrrp-briot2013")


def refuse_simulate_options(a, allowed: set, takes: str) -> None:
    """One line naming the first ``simulate`` option set away from its default that
    ``a.robot`` does not take (``allowed``: the robot-specific ones it does take;
    --trajectory, --duration, --step, --initial, --out, --json are checked by the caller)."""
    given = {"--controller": a.controller, "--kp": a.kp, "--kd": a.kd, "--offset": a.offset,
             "--gravity-compensation": a.gravity_compensation or None,
             "--centre": a.centre, "--radius": a.radius, "--period": a.period,
             "--start": a.start, "--travel": a.travel, "--times": a.times,
             "--periods": a.periods, "--joint-b": a.joint_b, "--joint-d": a.joint_d,
             "--no-preload": a.no_preload or None, "--method": a.method, "--to": a.to,
             "--end": a.end, "--free-vibration": a.free_vibration or None,
             "--elements": None if a.elements == 1 else a.elements,
             "--order": None if a.order == "cubic" else a.order,
             "--rayleigh": None if tuple(a.rayleigh) == (0.0, 0.0) else list(a.rayleigh)}
    for name, value in given.items():
        if value is not None and name not in allowed:
            raise InputError(name, value, f"not an option of {a.robot} ({takes})")


def _tree_simulation_args(a):
    """Validated (trajectory, end, step, method) of a five-bar simulate run."""
    import math

    import numpy as np
    from .trajectories.bangbang import BangBang
    refuse_simulate_options(a, {"--to", "--end", "--elements", "--method"},
                            "the five-bar takes --trajectory bang-bang, --duration, --to, "
                            "--end, --elements, --step, --initial, --method, --out, --json")
    if a.trajectory not in (None, "bang-bang"):
        raise InputError("--trajectory", a.trajectory, f"bang-bang for {a.robot}")
    duration = 0.75 if a.duration is None else a.duration
    if not 0 < duration <= MAX_TREE_TIME:
        raise InputError("--duration", duration, f"a motion time in (0, {MAX_TREE_TIME:g}] s")
    end = (1.0 if duration <= 0.75 else duration + 0.25) if a.end is None else a.end
    if not 0 < end <= MAX_TREE_TIME:
        raise InputError("--end", end, f"a simulated time in (0, {MAX_TREE_TIME:g}] s")
    step = 1e-3 if a.step is None else a.step
    if not 0 < step <= end:
        raise InputError("--step", step, f"an output step in (0, {end:g}] s (--end)")
    if end / step > 100_000:
        raise InputError("--step", step, f"at least --end / 100000 ({end / 1e5:.3g} s)")
    n = end / step
    if abs(n - round(n)) > 1e-6 * n:
        raise InputError("--step", step, f"a divisor of the simulated time {end:g} s")
    to = (0.1, 0.2) if a.to is None else tuple(a.to)
    if not all(math.isfinite(v) for v in to):
        raise InputError("--to", list(to), "two finite actuator positions [m]")
    method = a.method or "rk4"
    from .analysis.nepvp import INITIAL_CONDITIONS, METHODS
    from ._validate import choice
    choice("--method", method, METHODS)
    choice("--initial", a.initial, INITIAL_CONDITIONS)
    return BangBang(np.zeros(2), np.array(to), t0=0.0, tf=duration), end, step, method


def cmd_simulate_tree(a) -> int:
    """``simulate prrrp-briot2013``: the bang-bang motion of Briot section V."""
    from pathlib import Path

    import numpy as np
    from .analysis.nepvp import simulate_motion
    from .exceptions import ModelError
    traj, end, step, method = _tree_simulation_args(a)
    model = tree_model(a.robot, a.elements)
    for t in np.linspace(0.0, 1.0, 11):
        qa = traj.start + t * (traj.end - traj.start)
        try:
            model.closure(qa)
        except ModelError:
            raise InputError("--to", traj.end.tolist(), "final positions reachable along "
                             "the straight path from 0 0 (|q4 - q1| < 0.529 m)") from None
    t0 = time.perf_counter()
    sim = simulate_motion(model, traj, end=end, step=step, initial=a.initial, method=method)
    wall = time.perf_counter() - t0
    rows = list(sim.rows)
    summ = sim.summary()
    doc = {"command": "simulate", "robot": a.robot,
           "formulation": "NE-PVP (Briot & Khalil 2013), motion-driven",
           "trajectory": "bang-bang", "from_m": traj.start.tolist(), "to_m": traj.end.tolist(),
           "duration_s": float(traj.tf), "end_s": end, "step_s": step,
           "elements": a.elements, "initial": sim.initial, "method": sim.method,
           "rows": rows, "wall_time_s": wall, **{k: v for k, v in summ.items()
                                                  if k != "duration_s"},
           "time_s": sim.time.tolist(),
           "q_a_m": traj.evaluate(sim.time).position.T.tolist(),
           "ee_position_m": sim.ee_position.T.tolist(),
           "ee_velocity_m_s": sim.ee_velocity.T.tolist(),
           "rigid_ee_position_m": sim.rigid_ee_position.T.tolist(),
           "rigid_ee_velocity_m_s": sim.rigid_ee_velocity.T.tolist(),
           "tau_n": sim.tau.T.tolist(), "rigid_tau_n": sim.rigid_tau.T.tolist(),
           "elastic": {nm: sim.e[:, k].tolist() for k, nm in enumerate(sim.elastic_names)}}
    out = None if a.out is None else Path(a.out)
    names = []
    if out is not None:
        from .cli import _write_csv
        from .io.atomic import atomic_write_text
        from .plot.nepvp import plot_motion
        atomic_write_text(out / "simulation.json", json.dumps(doc) + "\n")
        header = (["time_s", "q1_m", "q4_m"] + [f"ee_{r}_m" for r in rows]
                  + [f"ee_v{r}_m_s" for r in rows] + [f"rigid_ee_v{r}_m_s" for r in rows]
                  + ["tau1_n", "tau4_n", "rigid_tau1_n", "rigid_tau4_n"]
                  + [nm + ("_rad" if "_rz" in nm else "_m") for nm in sim.elastic_names])
        _write_csv(out / "simulation.csv", header,
                   [sim.time, traj.evaluate(sim.time).position, sim.ee_position,
                    sim.ee_velocity, sim.rigid_ee_velocity, sim.tau, sim.rigid_tau, sim.e])
        plot_motion(sim, out / "simulation.png",
                    f"{a.robot}: bang-bang to q1 = {traj.end[0]:g} m, q4 = {traj.end[1]:g} m "
                    f"in {traj.tf:g} s\n(NE-PVP, {a.elements} element(s) per beam; dashed: "
                    "rigid model)")
        names = ["simulation.json", "simulation.csv", "simulation.png"]
    if a.json:
        print(json.dumps(doc))
    else:
        dv = [1e3 * v for v in summ["max_velocity_deviation_m_s"]]
        print(f"{a.robot}: NE-PVP motion-driven simulation, bang-bang from 0 0 to "
              f"{traj.end[0]:g} {traj.end[1]:g} m in {traj.tf:g} s, simulated to {end:g} s "
              f"({a.elements} element(s) per beam, {model.ne} elastic dof, {sim.method}, "
              f"initial state: {sim.initial}; {wall:.3g} s)", file=sys.stderr)
        print("  peak end-effector velocity [m/s] (" + ", ".join(rows) + "): "
              + ", ".join(f"{v:.4g}" for v in summ["max_ee_velocity_m_s"]), file=sys.stderr)
        print("  largest deviation from the rigid model [mm/s]: "
              + ", ".join(f"{v:.4g}" for v in dv), file=sys.stderr)
        print("  peak actuator forces [N]: " + ", ".join(f"{v:.4g}" for v in summ["peak_tau"])
              + " (rigid " + ", ".join(f"{v:.4g}" for v in summ["peak_rigid_tau"]) + ")",
              file=sys.stderr)
    if out is not None:
        print(f"outputs written to {out.resolve()} ({', '.join(names)})", file=sys.stderr)
    return 0
