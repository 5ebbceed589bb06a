"""The formulation registry: what each formulation is, which robot families it takes, its
model options and limits, what it answers (as data), and ``build_model``.

===============  ========  =====================================================  ==================================
formulation      family    what                                                   model options (default)
===============  ========  =====================================================  ==================================
``ked``          delta     flexible Delta, kineto-elasto-dynamics (Kuo 2016)      elements (1), order (cubic),
                                                                                  preload (true), rayleigh (0 0)
``explicit``     delta     rigid Delta, explicit task-space model (Asadi 2020)    none
``multipliers``  delta     rigid Delta, Lagrange multipliers (Kuo 2016 sec. 2.3)  none
``amm``          arm       assumed modes and Lagrange (Yu & Chen 2019)            modes (2), basis (sine)
``nepvp``        tree,     recursive Newton-Euler and virtual powers              elements (1) or modes and basis
                 arm       (Briot & Khalil 2013)                                  (assumed-mode beams)
``ffrf``         tree      planar floating frame of reference (Rosyid &           shape (fem), elements (4),
                           El-Khasawneh 2020)                                     boundary (fixed-free)
===============  ========  =====================================================  ==================================

Each formulation is one :class:`Formulation` in :data:`FORMULATIONS`: its families, its
model options and their defaults, its limits (discretization, simulated time), what it
answers (rigid or flexible, closed loop, symbolic problems, task-space poses) and the
function that builds its model. The command line asks these entries (and the model's
``capabilities``), never a table of its own keyed by formulation name.

The order of :data:`FORMULATIONS` is the order of preference: a robot's default
formulation is the first entry that takes it (ked before explicit for a Delta with
flexible links, amm before nepvp for an arm).

A new formulation adds its modules under ``formulations/`` (its model answering
:mod:`elastodyn.model`) and one :class:`Formulation` entry here with its builder; a new
robot family adds its schema and conversion in ``description/`` and its name in the
``families`` of the formulations that take it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..description import convert as C
from ..description.arm import BASES
from ..exceptions import InputError

__all__ = ["Formulation", "Limits", "FORMULATIONS", "OPTIONS", "build_model",
           "formulations_for", "default_formulation", "describe_formulation", "get",
           "lookup", "formulation_for"]


@dataclass(frozen=True)
class Limits:
    """The largest runs a formulation accepts (command line and analyses).

    Attributes
    ----------
    elements, modes : int or None
        Largest number of finite elements per link or beam (``--elements``,
        ``--max-elements``) and of assumed modes per link (``--modes``,
        ``--max-modes``); None when the formulation has no such option.
    simulate_time : float
        Longest simulated window of ``simulate`` [s].
    torques_time : float
        Longest window of ``torques`` [s].
    torques_samples : int
        Most output samples of ``torques``.
    """

    elements: int | None = None
    modes: int | None = None
    simulate_time: float = 100.0
    torques_time: float = 100.0
    torques_samples: int = 200_000


def _always(spec) -> bool:
    return True


@dataclass(frozen=True)
class Formulation:
    """One formulation, as data.

    Attributes
    ----------
    name : str
        ``ked``, ``explicit`` ...: the value of ``--formulation`` and of the results'
        ``formulation``.
    families : tuple of str
        The robot families (``description.schema.FAMILIES``) it takes.
    description : str
        One line: the model and its paper.
    options : mapping
        The model options it takes and their defaults (``build_model(**options)``).
    rigid : bool
        True for a model without elastic coordinates (no natural frequencies; torques by
        its inverse dynamics; simulated only under a controller).
    verbs : tuple of str
        The command-line verbs that answer for it (``elastodyn robots``).
    limits : Limits
    problems : tuple of str
        The symbolic problems of ``model.program`` (``generate --problem``), the default
        first; empty when the formulation has no symbolic program.
    closed_loop : bool
        ``analysis.simulate.simulate_controlled`` has an engine for it.
    pose_dim : int or None
        Coordinates of an end-effector pose (``--at``, a task-space path) when the model
        has an inverse kinematics: 3 for a Delta's platform centre, 2 for an arm's tip.
    task_space_only : bool
        The model follows end-effector paths only (a Delta's models): joint-space
        motions are refused.
    applies : callable(spec) -> bool
        Whether a robot of one of ``families`` can be modelled (KED: a Delta whose links
        have a section and a material).
    needs : str
        What ``applies`` asks of the description, said when it does not apply.
    build : callable(entry, robot, family, options) -> model
        Builds the model (``entry``: this Formulation; ``options``: the defaults with the
        given ones applied, checked against ``options`` and ``limits``).
    """

    name: str
    families: tuple
    description: str
    options: Mapping = field(default_factory=dict)
    rigid: bool = False
    verbs: tuple = ()
    limits: Limits = Limits()
    problems: tuple = ()
    closed_loop: bool = False
    pose_dim: int | None = None
    task_space_only: bool = False
    applies: Callable = _always
    needs: str = ""
    build: Callable | None = None

    def __post_init__(self):
        object.__setattr__(self, "families", tuple(self.families))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))


# ------------------------------------------------------------------ builders
def _int_option(name, value, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
        raise InputError(f"--{name}", value, f"an integer in [1, {hi}]")
    return value


def _rigid_delta(form, robot, fam, opts):
    from .rigid_delta_contract import RigidDeltaContract
    rigid = robot if _is_rigid_delta(robot) else C.rigid_delta(_spec(robot))
    return RigidDeltaContract(rigid, form.name)


def _ked(form, robot, fam, opts):
    from .ked_contract import KEDContract
    flex = robot if _is_flexible_delta(robot) else C.flexible_delta(_spec(robot))
    ref = opts.get("reference", "auto")
    return KEDContract(flex, elements=opts["elements"], order=opts["order"],
                       preload=bool(opts["preload"]), rayleigh=tuple(opts["rayleigh"]),
                       reference=None if ref == "auto" else ref)


def _amm(form, robot, fam, opts):
    from .amm_contract import AMMContract
    modes = opts["modes"]
    if opts["basis"] not in BASES:
        raise InputError("--basis", opts["basis"], "one of " + ", ".join(BASES))
    arm = C.planar_arm(_spec(robot), modes=modes, basis=opts["basis"])
    return AMMContract(arm, {"modes": modes, "basis": opts["basis"]})


_ASSUMED_MODES = {"modes": 2, "basis": "sine"}
"""Defaults of assumed-mode links (amm; nepvp's assumed-mode beams)."""


def _nepvp_takes(spec) -> bool:
    """nepvp takes tree robots, arms, and flexible Deltas with universal joints at both
    ends of the lower links (the only isostatic Delta tree, :mod:`~elastodyn.description.
    delta_tree`)."""
    if C.family_of(spec) != "delta":
        return True
    return bool(spec.flexible) and spec.joints.b == "universal" and \
        spec.joints.d == "universal"


def _nepvp(form, robot, fam, opts):
    from .nepvp_contract import NEPVPContract
    modes, basis, elements = opts["modes"], opts["basis"], opts["elements"]
    if fam == "delta":
        from ..description.delta_tree import delta_tree
        if modes is not None or basis is not None:
            raise InputError("--modes" if modes is not None else "--basis",
                             modes if modes is not None else basis,
                             "finite elements (--elements) for a Delta's spatial links")
        flex = robot if _is_flexible_delta(robot) else C.flexible_delta(_spec(robot))
        return NEPVPContract(delta_tree(flex, elements or 1), {"elements": elements or 1})
    if (modes is None) != (basis is None):
        if modes is None:
            modes = _ASSUMED_MODES["modes"]
        else:
            basis = _ASSUMED_MODES["basis"]
    if modes is not None:
        if basis not in BASES:
            raise InputError("--basis", basis, "one of " + ", ".join(BASES))
        if elements not in (None, 1):
            raise InputError("--elements", elements, "not with --modes (assumed-mode beams)")
        shapes = {"shapes": basis, "modes": modes}
        echo = {"modes": modes, "basis": basis}
    else:
        shapes = {"elements": elements}
        echo = {"elements": elements}
    if fam == "tree":
        from dataclasses import replace

        from ..description.tree import FlexibleBeam, TreeRobot
        tree = robot if isinstance(robot, TreeRobot) else C.tree_robot(_spec(robot))
        if "shapes" in shapes:
            bodies = {}
            for j, b in tree.bodies.items():
                if isinstance(b, FlexibleBeam):
                    if b.spatial:
                        raise InputError("--modes", modes, "finite elements (--elements) "
                                         "for spatial beams")
                    b = replace(b, shapes=shapes["shapes"], modes=shapes["modes"],
                                geometric_stiffening=False)
                bodies[j] = b
            tree = replace(tree, bodies=bodies)
        else:
            tree = tree.with_elements(shapes["elements"])
        return NEPVPContract(tree, echo)
    tree = C.arm_as_tree(_spec(robot), **shapes)
    return NEPVPContract(tree, echo)


def _flexible_links(spec) -> bool:
    return bool(spec.flexible)


_PLANES = ({"vx", "vy", "wz"}, {"vx", "vz", "wy"}, {"vy", "vz", "wx"})


def _planar_tree(spec) -> bool:
    """ffrf is planar: the closure rows of a plane and planar beams."""
    return (set(spec.closure) in _PLANES and len(spec.closure) == 3
            and all(b.beam is None or not b.beam.spatial for b in spec.bodies.values()))


def _ffrf(form, robot, fam, opts):
    from .ffrf_contract import FFRFContract
    from ..description.tree import TreeRobot
    shape = opts["shape"]
    if shape not in ("fem", "rr", "sine"):
        raise InputError("--shape", shape, "fem, rr or sine")
    if shape in ("rr", "sine") and opts["elements"] != form.options["elements"]:
        raise InputError("--elements", opts["elements"], f"not with --shape {shape} (one "
                         + ("Rayleigh-Ritz polynomial" if shape == "rr" else
                            "set of sine modes") + " per body)")
    if shape != "sine" and opts.get("modes") is not None:
        raise InputError("--modes", opts["modes"], "only with --shape sine (lateral sine "
                         "modes per beam)")
    boundary = opts.get("boundary")
    if shape == "sine":
        if boundary not in (None, "pinned-pinned"):
            raise InputError("--boundary", boundary, "pinned-pinned with --shape sine "
                             "(Simeon's chord frame: the sine modes vanish at both ends)")
        boundary = "pinned-pinned"
    tree = robot if isinstance(robot, TreeRobot) else C.tree_robot(_spec(robot))
    model = FFRFContract(tree, {"shape": shape, "elements": opts["elements"],
                                "boundary": boundary or "fixed-free",
                                "modes": opts.get("modes") or 2})
    if shape == "rr":
        model.options = {"shape": "rr", "boundary": model.options["boundary"]}
    elif shape == "sine":
        model.options = {"shape": "sine", "modes": opts.get("modes") or 2,
                         "boundary": "pinned-pinned"}
    return model


_RIGID_LIMITS = Limits(simulate_time=1000.0, torques_time=1000.0, torques_samples=1_000_000)
_ALL_VERBS = ("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
              "compensate", "generate")

FORMULATIONS: dict[str, Formulation] = {f.name: f for f in (
    Formulation(
        "ked", ("delta",), "flexible links by kineto-elasto-dynamics (Kuo 2016)",
        options={"elements": 1, "order": "cubic", "preload": True, "rayleigh": (0.0, 0.0),
                 "reference": "auto"},
        verbs=("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
               "compensate"),
        limits=Limits(elements=32, simulate_time=100.0),
        pose_dim=3, task_space_only=True, applies=_flexible_links,
        needs="links.upper/lower section and material", build=_ked),
    Formulation(
        "explicit", ("delta",), "rigid Delta, explicit task-space model (Asadi & Heydari "
                                "2020)",
        rigid=True, verbs=("torques", "simulate", "generate"), limits=_RIGID_LIMITS,
        problems=("model",), closed_loop=True, pose_dim=3, task_space_only=True,
        build=_rigid_delta),
    Formulation(
        "multipliers", ("delta",), "rigid Delta, Lagrange multipliers (Kuo 2016 section "
                                   "2.3)",
        rigid=True, verbs=("torques", "simulate"), limits=_RIGID_LIMITS, closed_loop=True,
        pose_dim=3, task_space_only=True, build=_rigid_delta),
    Formulation(
        "amm", ("arm",), "assumed modes and Lagrange (Yu & Chen 2019)",
        options=dict(_ASSUMED_MODES), verbs=_ALL_VERBS,
        limits=Limits(modes=12, simulate_time=60.0), problems=("model",),
        closed_loop=True, pose_dim=2, build=_amm),
    Formulation(
        "nepvp", ("tree", "arm", "delta"), "recursive Newton-Euler and virtual powers "
                                           "(Briot & Khalil 2013)",
        options={"elements": 1, "modes": None, "basis": None}, verbs=_ALL_VERBS,
        limits=Limits(elements=8, modes=12, simulate_time=20.0),
        problems=("inverse", "direct", "model"), applies=_nepvp_takes,
        needs="a flexible Delta with universal joints (joints.b, joints.d)", build=_nepvp),
    Formulation(
        "ffrf", ("tree",), "planar floating frame of reference, Rayleigh-Ritz or finite "
                           "elements (Rosyid & El-Khasawneh 2020)",
        options={"shape": "fem", "elements": 4, "boundary": None, "modes": None},
        verbs=("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
               "compensate", "sensitivity"),
        limits=Limits(elements=16, modes=8, simulate_time=10.0), applies=_planar_tree,
        needs="a planar robot (closure rows of a plane, planar beams)", build=_ffrf),
)}
"""name -> :class:`Formulation`, in the order of preference (a robot's default is the
first that takes it)."""

OPTIONS = {name: dict(f.options) for name, f in FORMULATIONS.items()}
"""name -> the model options it takes and their defaults (from :data:`FORMULATIONS`)."""


# ------------------------------------------------------------------ questions
def _spec(robot):
    """The spec of a robot (a spec, or a description dataclass written as one)."""
    return C.to_spec(robot)


def lookup(name) -> Formulation | None:
    """The entry of formulation ``name``, or None for a name that is not registered."""
    return FORMULATIONS.get(name) if isinstance(name, str) else None


def get(name) -> Formulation:
    """The entry of formulation ``name``; an unknown name is an InputError naming
    ``--formulation`` (never a KeyError)."""
    entry = lookup(name)
    if entry is None:
        raise InputError("--formulation", name, "one of " + ", ".join(FORMULATIONS))
    return entry


def formulations_for(robot) -> list[str]:
    """The formulations that can take ``robot`` (a spec or a description dataclass),
    the default first (the description's ``formulation``, then the order of
    :data:`FORMULATIONS`)."""
    fam = C.family_of(robot)
    spec = None
    names = []
    for f in FORMULATIONS.values():
        if fam not in f.families:
            continue
        if f.applies is not _always:
            spec = _spec(robot) if spec is None else spec
            if not f.applies(spec):
                continue
        names.append(f.name)
    preferred = _preferred(robot)
    if preferred in names:
        names.remove(preferred)
        names.insert(0, preferred)
    return names


def _preferred(robot) -> str | None:
    """The description's ``formulation`` (tree robots), or None."""
    if C.family_of(robot) != "tree":
        return None
    return getattr(_spec(robot), "formulation", None)


def formulation_for(robot, name: str | None = None) -> Formulation:
    """The entry of ``name`` for ``robot`` (its default when None). A name that is not
    registered, or does not take this robot, is an InputError naming ``--formulation``
    and the robot's formulations."""
    fam = C.family_of(robot)
    allowed = formulations_for(robot)
    if not allowed:
        raise InputError("ROBOT", getattr(robot, "name", fam), "a robot of a family some "
                         "formulation takes (" + ", ".join(sorted(
                             {x for f in FORMULATIONS.values() for x in f.families})) + ")")
    if name is None:
        preferred = _preferred(robot)
        if preferred is not None and preferred not in allowed:
            raise InputError("formulation", preferred, "one of " + ", ".join(allowed) +
                             f" for this {fam} robot (the description's formulation)")
        return FORMULATIONS[allowed[0]]
    entry = lookup(name)
    if entry is None:
        raise InputError("--formulation", name, "one of " + ", ".join(allowed))
    if name not in allowed:
        why = (f" ({name} needs {entry.needs})"
               if fam in entry.families and entry.needs else "")
        raise InputError("--formulation", name,
                         f"one of {', '.join(allowed)} for this {fam} robot{why}")
    return entry


def default_formulation(robot) -> str:
    """The description's ``formulation`` (tree robots), else the first formulation that
    takes ``robot``: ked for a Delta with flexible links (explicit for a rigid one), nepvp
    for tree robots, amm for arms."""
    return formulation_for(robot).name


def describe_formulation(name: str) -> str:
    return get(name).description


def _check_options(form: Formulation, given: dict) -> dict:
    """The options of ``form`` (defaults, then the given ones); an option it does not
    take, or a discretization beyond its :class:`Limits`, is refused."""
    allowed = form.options
    out = dict(allowed)
    for key, value in given.items():
        if value is None:
            continue
        if key not in allowed:
            takes = ", ".join(allowed) or "no model options"
            raise InputError(f"--{key}", value, f"not an option of the {form.name} "
                             f"formulation (it takes {takes})")
        out[key] = value
    for key in ("elements", "modes"):
        hi = getattr(form.limits, key)
        if out.get(key) is not None and hi is not None:
            _int_option(key, out[key], hi)
    return out


def build_model(robot, formulation: str | None = None, **options):
    """Build the model of ``robot`` by ``formulation`` (its default when None).

    Parameters
    ----------
    robot : spec or description dataclass
        A :mod:`~elastodyn.description.schema` spec (from a preset or a file) or a
        RigidDelta, FlexibleDelta, TreeRobot or PlanarArm.
    formulation : str, optional
        One of :func:`formulations_for` (robot).
    **options
        Model options (:attr:`Formulation.options`): discretization (``elements``,
        ``order``, ``modes``, ``basis``) and model switches (``preload``, ``rayleigh``).
        An option the formulation does not take is refused (None values are ignored).

    Returns
    -------
    A model answering :mod:`elastodyn.model`'s contract.
    """
    form = formulation_for(robot, formulation)
    opts = _check_options(form, options)
    return form.build(form, robot, C.family_of(robot), opts)


def _is_rigid_delta(obj) -> bool:
    from ..description.delta import RigidDelta
    return isinstance(obj, RigidDelta)


def _is_flexible_delta(obj) -> bool:
    from ..description.flexible_delta import FlexibleDelta
    return isinstance(obj, FlexibleDelta)
