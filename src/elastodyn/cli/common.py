"""What the verbs of the command line share: the parser, number options, the robot and
its model from the command line, option applicability, outputs and progress.

Rules (README, "Command line"): every option a verb declares defaults to "not given";
an option that does not apply to the chosen robot or formulation ends the run with
exit code 2 and one line naming it (:func:`refuse`), it is never ignored and never
switches the physics. Old spellings of renamed options print one note naming the new
spelling and keep working (:func:`renamed`, :func:`old_spelling`); the note is printed
when the run goes on, or ends the one error line when the input is refused.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from ..exceptions import InputError

__all__ = ["Parser", "UsageError", "number", "integer", "add_robot", "add_model_options",
           "add_output", "load_robot", "build", "refuse", "renamed", "given", "emit",
           "progress_bar", "note", "old_spelling", "flush_notes", "pending_notes",
           "add_pose", "pose_state", "flexible_model", "input_error", "preload_choice",
           "formulation_entry", "option_flags", "preload_in_model", "pose_dim"]


class UsageError(Exception):
    """A command-line usage error (argparse), reported in one line with exit code 2."""


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        # negative numbers in exponent form (-1e-3) are values, not options; so are -inf
        # and -nan (the number options refuse them by name instead of argparse calling
        # them unrecognized arguments)
        self._negative_number_matcher = re.compile(
            r"^-((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|(?i:inf|infinity|nan))$")

    def error(self, message):
        raise UsageError(f"{self.prog}: error: {message}")


def _conv(name, kind):
    what = "a number" if kind is float else "an integer"

    def conv(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid {name}: got {text!r}; allowed: {what}") from None
        if kind is float and not math.isfinite(v):
            raise argparse.ArgumentTypeError(
                f"invalid {name}: got {text!r}; allowed: a finite number")
        return v
    return conv


def number(name):
    """argparse type: a finite float, errors naming the option."""
    return _conv(name, float)


def integer(name):
    return _conv(name, int)


def note(text: str) -> None:
    """One line for people on standard error."""
    print(f"elastodyn: note: {text}", file=sys.stderr)


_PENDING: list[str] = []
"""Notes on old option spellings of this run, printed once the input is accepted."""


def old_spelling(text: str) -> None:
    """Record the note of an old option spelling (``--end is now --duration``). It is
    printed when the run goes on (:func:`flush_notes`); when the input is refused, the
    one error line ends with it instead, so a bad value given under an old name still
    gives one line naming that name."""
    if text not in _PENDING:
        _PENDING.append(text)


def pending_notes() -> list[str]:
    return list(_PENDING)


def flush_notes() -> None:
    """Print the recorded notes (one line each) and forget them."""
    for text in _PENDING:
        note(text)
    _PENDING.clear()


def reset_notes() -> None:
    _PENDING.clear()


def input_error(name: str, value, allowed: str, message: str) -> InputError:
    """An InputError (name, value, allowed) whose one-line text is ``message``."""
    err = InputError(name, value, allowed)
    err.args = (message,)
    return err


def given(a, name: str) -> bool:
    """True if option ``name`` (dest) was given on the command line."""
    v = getattr(a, name, None)
    return v is not None and v is not False


def refuse(a, options: dict, why: str) -> None:
    """Exit 2 (InputError) naming the first given option of ``options`` (dest -> flag):
    it does not apply (``why``)."""
    for dest, flag in options.items():
        if given(a, dest):
            value = getattr(a, dest)
            raise InputError(flag, value if value is not True else "given", why)


def renamed(a, old: str, new: str, *, flag_old: str, flag_new: str) -> None:
    """Map an old option spelling onto its new name with one note."""
    if given(a, old):
        if given(a, new):
            raise InputError(flag_old, getattr(a, old), f"not with {flag_new} (it is the "
                             f"old spelling of {flag_new})")
        old_spelling(f"{flag_old} is now {flag_new}")
        setattr(a, new, getattr(a, old))
        setattr(a, old, None)


# ------------------------------------------------------------------ robot and model
def add_robot(p, *, formulation: bool = True):
    p.add_argument("robot", metavar="ROBOT",
                   help="a preset (elastodyn robots) or a description file (robot.yaml)")
    p.add_argument("--set", dest="sets", action="append", metavar="KEY=VALUE",
                   help="override one entry of the description, e.g. "
                        "links.lower.section.width=0.008 (repeatable)")
    if formulation:
        p.add_argument("--formulation", metavar="F",
                       help="the model (elastodyn robots lists each robot's "
                            "formulations; default: the robot's first)")


def add_model_options(p, *, preload: bool = True, rayleigh: bool = False):
    g = p.add_argument_group("model options (discretization and switches)")
    g.add_argument("--elements", type=integer("--elements"),
                   help="finite elements per link/beam (ked, nepvp: 1; ffrf: 4)")
    g.add_argument("--order", help="ked element family: cubic (Kuo Table 2) or quintic "
                                   "(Table 3) (cubic)")
    g.add_argument("--modes", type=integer("--modes"),
                   help="assumed modes per link (amm 2; nepvp: assumed-mode beams)")
    g.add_argument("--basis", help="assumed-mode basis: sine (Yu eq. 4) or clamped-free")
    g.add_argument("--shape", help="ffrf beam shape: fem (finite elements, --elements), "
                                   "rr (Rayleigh-Ritz, Rosyid eq. 46) or sine (lateral "
                                   "sine modes between pins, --modes: Simeon's slider "
                                   "crank) (fem)")
    g.add_argument("--boundary", help="ffrf body-frame boundary condition: fixed-free, "
                                      "fixed-pinned or pinned-pinned (fixed-free)")
    g.add_argument("--reference",
                   help="ked: the configuration the elastic equations are linearized "
                        "about: deflected (the geometrically exact quasi-static "
                        "deflection; default where a static equilibrium exists) or "
                        "undeformed (Kuo)")
    g.add_argument("--joint-b", dest="joint_b",
                   help="Delta elbow joints: universal, spherical or clamped (same as "
                        "--set joints.b=...)")
    g.add_argument("--joint-d", dest="joint_d",
                   help="Delta platform joints: universal, spherical or clamped")
    if preload:
        g.add_argument("--no-preload", dest="no_preload", action="store_true", default=None,
                       help="leave out the load terms: the linear structure (ked: the "
                            "geometric stiffness of the link forces)")
    if rayleigh:
        g.add_argument("--rayleigh", type=number("--rayleigh"), nargs=2,
                       metavar=("ALPHA", "BETA"),
                       help="ked: Rayleigh damping alpha M + beta K [1/s, s] (0 0)")


DELTA_JOINTS = ("universal", "spherical", "clamped")
"""Joint models of a Delta's elbows (B) and platform joints (D) (schema: joints.b, .d)."""


def load_robot(a):
    """The description (spec) of ROBOT with --set and the Delta joint options applied.
    The overrides are kept in ``a.applied_sets`` (echoed in the result's inputs)."""
    from ..description.files import load_description
    sets = list(a.sets or [])
    joints = []
    for dest, key in (("joint_b", "joints.b"), ("joint_d", "joints.d")):
        if given(a, dest):
            value = getattr(a, dest)
            if value not in DELTA_JOINTS:
                raise InputError(f"--{dest.replace('_', '-')}", value,
                                 "one of " + ", ".join(DELTA_JOINTS))
            if any(item.split("=", 1)[0].strip() == key for item in sets):
                raise InputError(f"--{dest.replace('_', '-')}", value, f"not with --set "
                                 f"{key}=... (the same entry)")
            joints.append(f"{key}={value}")
    spec = load_description(a.robot, sets)
    if joints:
        if spec.family != "delta":
            refuse(a, {"joint_b": "--joint-b", "joint_d": "--joint-d"},
                   f"only for Delta robots ({spec.name} is a {spec.family} robot)")
        sets += joints
        spec = load_description(a.robot, sets)
    a.applied_sets = sets
    return spec


MODEL_OPTIONS = {"elements": "--elements", "order": "--order", "modes": "--modes",
                 "basis": "--basis", "rayleigh": "--rayleigh", "shape": "--shape",
                 "boundary": "--boundary", "reference": "--reference"}
"""Model options given by a flag of the same meaning (dest -> flag)."""

OPTION_FLAGS = {**MODEL_OPTIONS, "preload": "--no-preload"}
"""The flag of each model option of the registry (``preload`` is switched off by
--no-preload)."""

_OPTION_DEST = {"preload": "no_preload"}


def option_flags(form, a) -> list[str]:
    """The flags of the model options that formulation ``form`` (a registry entry) takes
    and this verb declares (``a``: its parsed arguments), in the registry's order."""
    return [OPTION_FLAGS[k] for k in form.options
            if k in OPTION_FLAGS and hasattr(a, _OPTION_DEST.get(k, k))]


def formulation_entry(a, spec, formulation=None):
    """The registry entry of --formulation (or ``formulation``, else the robot's
    default); an unknown or inapplicable name is bad input naming --formulation."""
    from ..formulations.registry import formulation_for
    return formulation_for(spec, formulation or getattr(a, "formulation", None))


def build(a, spec, *, formulation=None, preload_is_model: bool = True, **extra):
    """The model of ``spec`` by --formulation (or ``formulation``) with the model options
    given on the command line; an option the formulation does not take is refused,
    naming the flags it takes."""
    from ..formulations.registry import ALL_VERBS, build_model, formulations_for, get
    name = formulation or getattr(a, "formulation", None)
    opts = {}
    for dest in MODEL_OPTIONS:
        if given(a, dest):
            opts[dest] = getattr(a, dest)
    if preload_is_model and given(a, "no_preload"):
        opts["preload"] = False
    opts.update(extra)
    form = formulation_entry(a, spec, name)
    verb = getattr(a, "command", None)
    if verb in ALL_VERBS and verb not in form.verbs:
        answering = [f for f in formulations_for(spec) if verb in get(f).verbs]
        raise InputError("--formulation", form.name, (
            f"one that answers {verb} for this robot: {', '.join(answering)}"
            if answering else f"a formulation that answers {verb} (none takes this robot)")
            + f" ({form.name} answers: {', '.join(form.verbs) or 'no verb'})")
    for dest, value in list(opts.items()):
        if dest not in form.options:
            flag = OPTION_FLAGS.get(dest, dest)
            takes = ", ".join(option_flags(form, a)) or "no model options"
            raise InputError(flag, value if value is not False else "given",
                             f"not an option of the {form.name} formulation (it takes "
                             f"{takes})")
    if form.rigid:
        flexible = [f for f in formulations_for(spec) if not get(f).rigid]
        refuse(a, {"joint_b": "--joint-b", "joint_d": "--joint-d"},
               "only for " + (f"the {', '.join(flexible)} formulation" if flexible else
                              "a flexible formulation") + " (the joint models of the "
               f"flexible links; the {form.name} model has none)")
    try:
        return build_model(spec, form.name, **opts)
    except InputError as exc:
        raise _option_named(exc, a) from None


def _option_named(exc: InputError, a) -> InputError:
    """A model's InputError under the command-line option that set the value
    (``order`` -> ``--order``, ``rayleigh alpha`` -> ``--rayleigh``)."""
    name = str(exc.name)
    if name.startswith("rayleigh") and given(a, "rayleigh"):
        return InputError("--rayleigh", list(a.rayleigh), exc.allowed)
    if name in MODEL_OPTIONS and given(a, name):
        return InputError(MODEL_OPTIONS[name], exc.value, exc.allowed)
    return exc


def preload_choice(a):
    """The reference of a linearization from --preload / --no-preload: True (the
    deflected equilibrium under gravity, with the geometric stiffness), False (the
    linear structure) or None (the formulation's default: KED preloaded as Kuo, the
    others the linear structure as Briot's Table II and Yu)."""
    if given(a, "preload") and given(a, "no_preload"):
        raise InputError("--preload", True, "not with --no-preload")
    if given(a, "no_preload"):
        return False
    return True if given(a, "preload") else None


def flexible_model(a, spec, *, verb: str) -> str:
    """The model for a verb that needs elastic coordinates (modes, map, convergence):
    a rigid choice is refused, naming --formulation when it was given and ROBOT when it
    is the robot's default; an unknown one names --formulation."""
    from ..formulations.registry import formulations_for, get
    form = formulation_entry(a, spec)
    if form.rigid:
        forms = formulations_for(spec)
        flexible = [f for f in forms if not get(f).rigid]
        if given(a, "formulation"):
            raise InputError("--formulation", form.name, (
                "a flexible formulation of this robot: " + ", ".join(flexible)
                if flexible else "a flexible formulation (this robot has no flexible "
                "links)") + f" (a rigid model has no natural frequencies for {verb})")
        raise InputError("ROBOT", a.robot, f"a robot with flexible links for {verb} "
                         f"({spec.name} is rigid: its formulations "
                         f"{', '.join(forms)} have no natural frequencies; "
                         "give the links a section and material)")
    return form.name


def preload_in_model(name: str) -> bool:
    """Whether --no-preload is a model option of formulation ``name`` (KED's geometric
    stiffness switch) rather than the analysis's choice of reference."""
    from ..formulations.registry import get
    return "preload" in get(name).options


def pose_dim(model) -> int | None:
    """Coordinates of a task-space pose of ``model`` (--at, a path): 3 for a Delta's
    platform centre, 2 for an arm's tip; None when the registry does not say
    (:func:`~elastodyn.formulations.registry.pose_dim_of`)."""
    from ..formulations.registry import pose_dim_of
    return pose_dim_of(model)


# ------------------------------------------------------------------ poses
def add_pose(p, *, at_help: str):
    g = p.add_argument_group("pose (default: the robot's home, or its paper's pose)")
    g.add_argument("--at", type=number("--at"), nargs="+", metavar="X",
                   help=at_help)
    g.add_argument("--actuated", type=number("--actuated"), nargs="+", metavar="Q",
                   help="actuated coordinates [rad or m], in the order of elastodyn robots")
    g.add_argument("--q1", type=number("--q1"), help=argparse.SUPPRESS)
    g.add_argument("--q4", type=number("--q4"), help=argparse.SUPPRESS)


def pose_state(a, model, default_at=None):
    """The state of --at / --actuated (old spelling: --q1 --q4 of the five-bar)."""
    import numpy as np
    if given(a, "q1") or given(a, "q4"):
        names = list(model.coordinates.actuated)
        if names != ["q1", "q4"]:
            refuse(a, {"q1": "--q1", "q4": "--q4"}, f"--actuated (this robot's actuated "
                   f"coordinates are {', '.join(names)})")
        if given(a, "actuated"):
            d = "q1" if given(a, "q1") else "q4"
            raise InputError(f"--{d}", getattr(a, d), "not with --actuated")
        old_spelling("--q1/--q4 are now --actuated Q1 Q4")
        a.actuated = [a.q1 if a.q1 is not None else 0.0, a.q4 if a.q4 is not None else 0.0]
        # a pose that does not close is named by the old flags the user gave
        flag = "/".join(f for d, f in (("q1", "--q1"), ("q4", "--q4")) if given(a, d))
        value = a.q1 if flag == "--q1" else a.q4 if flag == "--q4" else list(a.actuated)
        a.q1 = a.q4 = None
        return _closed(model, flag, value, actuated=np.asarray(a.actuated))
    if given(a, "at") and given(a, "actuated"):
        raise InputError("--at", a.at, "either --at or --actuated")
    if given(a, "actuated"):
        n = model.coordinates.n_actuated
        if len(a.actuated) != n:
            raise InputError("--actuated", a.actuated, f"{n} value(s): "
                             + ", ".join(model.coordinates.actuated))
        return _closed(model, "--actuated", a.actuated, actuated=np.asarray(a.actuated))
    at = a.at if given(a, "at") else default_at
    if not given(a, "at") and "inverse_kinematics" not in model.capabilities:
        at = None          # the paper's pose needs an inverse kinematics: the home instead
    if at is not None:
        if "inverse_kinematics" not in model.capabilities:
            raise InputError("--at", list(at), f"--actuated for this robot (the "
                             f"{model.formulation} model has no inverse kinematics: give "
                             "the actuated coordinates " + ", ".join(
                                 model.coordinates.actuated) + ")")
        dim = pose_dim(model)
        if dim is not None and len(at) != dim:
            raise InputError("--at", list(at), f"{dim} coordinates [m] (" + {
                3: "platform centre X Y Z", 2: "tip X Y"}.get(dim, "end-effector") + ")")
        return _closed(model, "--at", at, pose=np.asarray(at, dtype=float))
    return _closed(model, "ROBOT", "home", )


def _closed(model, flag, value, **kw):
    from ..exceptions import ModelError
    try:
        return model.state(**kw)
    except ModelError as exc:
        raise InputError(flag, value, f"a pose where the loops close ({exc})") from None
    except InputError as exc:
        if exc.name in ("pose", "actuated", "X", "position"):
            detail = str(exc).split("; allowed", 1)[0].replace(f"invalid {exc.name}: ", "")
            if str(exc).startswith(f"invalid {exc.name}: got "):
                detail = f"got {value!r}: not {exc.allowed}"
            err = InputError(flag, value, "a pose inside the workspace")
            err.args = (f"invalid {flag}: {detail}; allowed: a pose inside the workspace",)
            raise err from None
        raise


# ------------------------------------------------------------------ outputs
def add_output(p, *, figures: bool = True):
    p.add_argument("--json", action="store_true", default=None,
                   help="print one JSON document on standard output")
    # a string, not a Path: Path("") is ".", and an empty --out must be refused as such
    p.add_argument("--out", metavar="DIR",
                   help="folder for the output set (JSON, CSV, figures, summary.md); "
                        "written whole or not at all")
    if figures:
        p.add_argument("--format", dest="formats", metavar="FMT", default=None,
                       help="figure formats, comma-separated: png, svg, pdf (png)")


def check_out(a):
    """Check --out and --format before any computation."""
    from ..io.output_set import check_output_folder
    fmts = ("png",)
    if given(a, "formats"):
        fmts = tuple(f.strip() for f in a.formats.split(",") if f.strip())
        bad = [f for f in fmts if f not in ("png", "svg", "pdf")]
        if bad or not fmts:
            raise InputError("--format", a.formats, "png, svg or pdf (comma-separated)")
        if not given(a, "out"):
            raise InputError("--format", a.formats, "only with --out")
    a.formats = fmts
    if given(a, "out"):
        check_output_folder(a.out)


def emit(a, result) -> int:
    """Print the result (JSON on stdout or the summary on stderr) and write --out. The
    description overrides (--set, --joint-b, --joint-d) are echoed in the inputs
    (``set``: the KEY=VALUE list), since the robot's name alone no longer says it."""
    import dataclasses
    flush_notes()
    sets = getattr(a, "applied_sets", None)
    if sets:
        result = dataclasses.replace(result, inputs={**result.inputs, "set": list(sets)})
    names = result.save(a.out, formats=a.formats) if given(a, "out") else None
    if a.json:
        print(result.to_json())
        for w in result.warnings:       # people read standard error: one line each
            print(f"elastodyn: warning: {w}".splitlines()[0], file=sys.stderr)
    else:
        print("\n".join(result.summary_lines()), file=sys.stderr)
    if names is not None:
        print(f"outputs written to {Path(a.out).resolve()} ({', '.join(names)})",
              file=sys.stderr)
    return 0


def progress_bar(total: int, what: str, *, minimum: int = 50):
    """A callable(done, total) showing a tqdm progress bar on standard error when it is
    a terminal and the run is long enough; None otherwise (silent in pipes and CI)."""
    if total < minimum or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    bar = tqdm(total=total, desc=what, file=sys.stderr, leave=False, unit="step")

    def update(done, _total=None):
        bar.update(done - bar.n)
        if done >= total:
            bar.close()
    return update
