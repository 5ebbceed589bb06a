"""Command-line verbs of the planar flexible arms by assumed modes (Yu & Chen 2019):
generate arm / arm-yu2019."""
from __future__ import annotations

import json
import sys
import time

from .exceptions import InputError

MAX_LINKS = 12
"""Command-line cap on the links of a generated arm (N = 10 takes about 0.5 s)."""
MAX_MODES = 8


def is_arm(name: str) -> bool:
    from .description.arm import PlanarArm
    from .description.presets import PRESETS
    return name == "arm" or (name in PRESETS and isinstance(PRESETS[name](), PlanarArm))


def arm_from_args(a):
    """(PlanarArm, symbolic) for ROBOT = arm (N links, parameters as symbols; the numbers
    of arm-yu2019's first link are placeholders) or a preset (its numbers)."""
    from dataclasses import replace

    from .description.arm import BASES, PlanarArm
    from .description.presets import get_preset
    modes = 2 if a.modes is None else a.modes
    if not 1 <= modes <= MAX_MODES:
        raise InputError("--modes", modes, f"an integer in [1, {MAX_MODES}]")
    basis = a.basis or "sine"
    if basis not in BASES:
        raise InputError("--basis", basis, "one of " + ", ".join(BASES))
    if a.robot == "arm":
        n = 2 if a.links is None else a.links
        if not 1 <= n <= MAX_LINKS:
            raise InputError("--links", n, f"an integer in [1, {MAX_LINKS}]")
        link = get_preset("arm-yu2019").links[0]
        arm = PlanarArm("arm", (link,) * n, modes=modes, basis=basis)
        return arm, True
    if a.links is not None:
        raise InputError("--links", a.links, f"only with ROBOT arm ({a.robot} has its own)")
    return replace(get_preset(a.robot), modes=modes, basis=basis), False


def cmd_generate_arm(a) -> int:
    from pathlib import Path

    from .formulations.amm_arm import generate_amm
    from .io.atomic import atomic_write_text
    from .symbolic import EXTENSIONS, print_program
    for name, value in (("--problem", a.problem), ("--elements", a.elements
                                                    if a.elements != 1 else None)):
        if value is not None:
            raise InputError(name, value, "only for prrrp-briot2013 (an arm takes --links, "
                                          "--modes, --basis)")
    arm, symbolic = arm_from_args(a)
    t0 = time.perf_counter()
    prog, _ = generate_amm(arm, symbolic=symbolic)
    text = print_program(prog, a.lang)
    gen_time = time.perf_counter() - t0
    ops = prog.ops()
    name = prog.name + EXTENSIONS[a.lang]
    doc = {"command": "generate", "robot": a.robot, "formulation":
           "assumed modes and Lagrange (Yu & Chen 2019)", "links": arm.n, "modes": arm.modes,
           "basis": arm.basis, "symbolic_parameters": symbolic, "lang": a.lang,
           **ops.to_dict(), "intermediate_variables": len(prog.assignments),
           "generation_time_s": gen_time, "model_generation_time_s": prog.generation_time_s,
           "file": None if a.out is None else str(Path(a.out) / name)}
    if a.out is not None:
        atomic_write_text(Path(a.out) / name, text)
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{a.robot}: {arm.n} link(s), {arm.modes} {arm.basis} mode(s) per link "
              f"({'symbolic' if symbolic else 'numeric'} parameters): {ops.additions} "
              f"additions/subtractions, {ops.multiplications} multiplications/divisions, "
              f"{ops.functions} function calls, {len(prog.assignments)} intermediate "
              f"variables; generated in {gen_time:.3g} s", file=sys.stderr)
        if a.out is None:
            sys.stdout.write(text)
    if a.out is not None:
        print(f"outputs written to {Path(a.out).resolve()} ({name})", file=sys.stderr)
    return 0
