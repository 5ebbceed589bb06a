"""``elastodyn generate ROBOT``: the symbolic model as code (C with its header, Python
vectorized over samples, Octave, a LaTeX document) with its operator counts; for a
closed-loop robot the C and Python also hold the loop closure, so that the model can be
called with the actuated joints only (:func:`~elastodyn.symbolic.printers.print_files`)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from ..exceptions import InputError
from .common import (add_model_options, add_robot, build, flush_notes, given, integer,
                     load_robot, refuse)


def register(sub):
    from ..symbolic.languages import LANGUAGES
    g = sub.add_parser("generate", help="export the symbolic model as code",
                       description="Generate the model of a robot with intermediate "
                                   "variables and dead-variable elimination, print its "
                                   "operator counts and write the code: NE-PVP (Briot & "
                                   "Khalil 2013: inverse, direct or model problem), "
                                   "assumed modes (Yu & Chen 2019: M, H, N, F, B), or the "
                                   "explicit rigid Delta (Asadi & Heydari 2020: M, C, G, J). "
                                   "C: NAME.c and its header NAME.h (with --out); "
                                   "Python: functions of arrays of samples (n, k). For a "
                                   "closed-loop robot the C and Python add the loop "
                                   "closure and NAME_qa, the model from the actuated "
                                   "joints only. ROBOT 'arm' is an N-link arm with "
                                   "symbolic parameters.")
    add_robot(g)
    g.add_argument("--lang", default=None, help="one of " + ", ".join(LANGUAGES) + " (c)")
    g.add_argument("--problem", help="nepvp: inverse (tau, elastic accelerations), direct "
                                     "(accelerations from tau) or model (M and c) (inverse)")
    g.add_argument("--links", type=integer("--links"),
                   help="ROBOT arm: number of links N (2)")
    add_model_options(g, preload=False)
    g.add_argument("--json", action="store_true", default=None,
                   help="print one JSON document on standard output")
    g.add_argument("--out", metavar="DIR", help="folder for the generated file")
    g.set_defaults(func="generate")


def _result(a, prog, texts: dict, fields: dict, title: str, gen_time: float):
    """The generate result in the one layout of every verb (a Result: the operator
    counts as quantities, the options in ``model`` and ``inputs``, the times in
    ``run``); its output set adds the generated files (``texts``: {name: text}; C: the
    .c and its .h) to generate.json and summary.md."""
    from ..analysis.results import Result
    ops = prog.ops()
    name = next(iter(texts))

    class Generated(Result):
        def files(self, formats=("png",)):
            out = super().files(formats)
            out.update(texts)
            names = sorted(list(out))
            out["summary.md"] = self.summary_md(names)
            return out

    q = {**ops.to_dict(), "intermediate_variables": len(prog.assignments),
         "file": None if a.out is None else str(Path(a.out) / name),
         "files": sorted(texts)}
    run = {"generation_time_s": gen_time}
    if fields.get("model_generation_time_s") is not None:
        run["model_generation_time_s"] = fields["model_generation_time_s"]
    summary = {"additions": ops.additions, "multiplications": ops.multiplications,
               "functions": ops.functions,
               "intermediate_variables": len(prog.assignments)}
    result = Generated(command="generate", robot=fields["robot"],
                       formulation=fields["formulation"], model=fields["model"],
                       inputs={"lang": a.lang, **fields["inputs"]}, quantities=q,
                       summary=summary, warnings=(), run=run, stem="generate", title=title)
    return result, name


def _formulation(a, spec):
    """--formulation, or the robot's first formulation with a symbolic program; a
    robot whose default is not symbolic (the flexible Delta: ked) is refused naming
    ROBOT and the formulation to add."""
    from ..formulations.registry import formulations_for, get
    forms = formulations_for(spec)
    if given(a, "formulation"):
        return a.formulation
    if get(forms[0]).problems:
        return forms[0]
    symbolic = [f for f in forms if get(f).problems]
    raise InputError("ROBOT", a.robot, f"a robot whose default formulation has a symbolic "
                     f"program ({spec.name}'s is {forms[0]}, which has none" + (
                         f"; add --formulation {symbolic[0]} for its "
                         f"{'rigid ' if get(symbolic[0]).rigid else ''}model as code)"
                         if symbolic else ")"))


def run(a) -> int:
    from .._validate import choice
    from ..formulations.registry import formulations_for, get
    from ..symbolic import LANGUAGES
    from ..symbolic.printers import print_files
    a.lang = a.lang or "c"
    choice("--lang", a.lang, LANGUAGES)
    if given(a, "out"):
        from ..io.output_set import check_output_folder
        check_output_folder(a.out)
    t0 = time.perf_counter()
    closure = None
    from ..formulations.registry import FORMULATIONS
    symbolic_robots = {f.symbolic_robot: f for f in FORMULATIONS.values()
                       if f.symbolic_robot}
    if a.robot in symbolic_robots:
        prog, fields, title = _symbolic(a, symbolic_robots[a.robot])
    else:
        refuse(a, {"links": "--links"}, "only with ROBOT arm (a description has its links)")
        spec = load_robot(a)
        model = build(a, spec, formulation=_formulation(a, spec))
        problems = get(model.formulation).problems
        if "program" not in model.capabilities or not problems:
            symbolic = [f for f in formulations_for(spec) if get(f).problems]
            raise InputError("--formulation", model.formulation, "a symbolic formulation ("
                             + (", ".join(symbolic) + " for this robot" if symbolic else
                                "this robot has none") + ")")
        problem = a.problem or problems[0]
        choice("--problem", problem, problems)
        prog = model.program(problem)
        if "export_closure" in model.capabilities:
            closure = model.export_closure()
        fields = {"robot": spec.name, "formulation": model.formulation,
                  "model": dict(model.options), "inputs": {"problem": problem},
                  "model_generation_time_s": getattr(prog, "generation_time_s", None)}
        title = f"{spec.name}, {model.formulation} {problem} program"
    # without --out the C goes to standard output alone: self-contained (no header)
    texts = print_files(prog, a.lang, closure, standalone=not given(a, "out"))
    gen_time = time.perf_counter() - t0
    result, name = _result(a, prog, texts, fields, title, gen_time)
    flush_notes()
    if getattr(a, "applied_sets", None):
        import dataclasses
        result = dataclasses.replace(result, inputs={**result.inputs,
                                                     "set": list(a.applied_sets)})
    if given(a, "out"):
        result.save(a.out)
    ops = prog.ops()
    if a.json:
        print(result.to_json())
    else:
        print(f"{title}: {ops.additions} additions/subtractions, {ops.multiplications} "
              f"multiplications/divisions, {ops.functions} function calls, "
              f"{len(prog.assignments)} intermediate variables; generated in "
              f"{gen_time:.3g} s", file=sys.stderr)
        if not given(a, "out"):
            sys.stdout.write(texts[name])
    if given(a, "out"):
        print(f"outputs written to {Path(a.out).resolve()} ({', '.join(texts)}, "
              "generate.json, summary.md)", file=sys.stderr)
    return 0


def _symbolic(a, form):
    """``generate <name>`` of a formulation's symbolic robot (``generate arm``): the
    model with its parameters as symbols."""
    refuse(a, {"sets": "--set", "formulation": "--formulation", "problem": "--problem",
               "elements": "--elements", "order": "--order", "joint_b": "--joint-b",
               "joint_d": "--joint-d"},
           f"not for ROBOT {a.robot} (it takes --links, --modes, --basis)")
    prog, options, title = form.symbolic_program(a.links, a.modes, a.basis)
    fields = {"robot": a.robot, "formulation": form.name, "model": options,
              "inputs": {"problem": "model", "links": 2 if a.links is None else a.links,
                         "symbolic_parameters": True},
              "model_generation_time_s": prog.generation_time_s}
    return prog, fields, title