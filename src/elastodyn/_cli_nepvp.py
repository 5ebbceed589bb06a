"""Command-line verbs of the NE-PVP models (Briot & Khalil 2013): modes and generate for
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
    g.add_argument("robot", metavar="ROBOT", help="prrrp-briot2013")
    g.add_argument("--lang", default="c", help="one of " + ", ".join(LANGUAGES) + " (c)")
    g.add_argument("--out", help="folder for the generated file")
    g.add_argument("--problem", default="inverse",
                   help="inverse (tau, elastic accelerations), direct (accelerations from "
                        "tau) or model (M and c) (inverse)")
    from .cli import _int
    g.add_argument("--elements", type=_int("--elements"), default=1,
                   help="planar elements per beam (1)")
    g.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    g.set_defaults(func=cmd_generate)


def cmd_generate(a) -> int:
    from pathlib import Path
    from ._validate import choice
    from .io.atomic import atomic_write_text
    from .symbolic import EXTENSIONS, LANGUAGES, print_program
    choice("--lang", a.lang, LANGUAGES)
    choice("--problem", a.problem, ("inverse", "direct", "model"))
    if not is_tree_preset(a.robot):
        from .description.presets import PRESETS
        trees = [n for n in PRESETS if is_tree_preset(n)]
        raise InputError("ROBOT", a.robot, "one of " + ", ".join(trees))
    t0 = time.perf_counter()
    model = tree_model(a.robot, a.elements)
    prog = model.program(a.problem)
    text = print_program(prog, a.lang)
    gen_time = time.perf_counter() - t0
    ops = prog.ops()
    name = prog.name + EXTENSIONS[a.lang]
    doc = {"command": "generate", "robot": a.robot, "problem": a.problem, "lang": a.lang,
           "elements": a.elements, **ops.to_dict(), "intermediate_variables":
           len(prog.assignments), "generation_time_s": gen_time,
           "file": None if a.out is None else str(Path(a.out) / name)}
    if a.out is not None:
        atomic_write_text(Path(a.out) / name, text)
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{a.robot}, {a.problem} problem ({a.elements} element(s) per beam): "
              f"{ops.additions} additions/subtractions, {ops.multiplications} "
              f"multiplications/divisions, {ops.functions} function calls, "
              f"{len(prog.assignments)} intermediate variables; generated in "
              f"{gen_time:.2f} s", file=sys.stderr)
        if a.out is None:
            sys.stdout.write(text)
    if a.out is not None:
        print(f"outputs written to {Path(a.out).resolve()} ({name})", file=sys.stderr)
    return 0
