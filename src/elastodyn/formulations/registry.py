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

Registration: every formulation, the built-ins included, is an entry point of the group
``elastodyn.formulations`` (:data:`ENTRY_POINT_GROUP`) whose name is the formulation's
and whose object is its :class:`Formulation` (the built-ins: ``pyproject.toml``'s
``[project.entry-points."elastodyn.formulations"]``). A new formulation is a package of
its own, in elastodyn or in another distribution, with a model answering
:mod:`elastodyn.model`, a :class:`Formulation` with its builder and one entry point;
no file of elastodyn changes (tests/plugins: a rigid pendulum registered that way). A
new robot family adds its schema and conversion in ``description/`` and its name in the
``families`` of the formulations that take it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
import weakref
from types import MappingProxyType

from ..description import convert as C
from ..exceptions import InputError

__all__ = ["BEAM_KEYS", "MASS_PROPERTY_KEYS", "Formulation", "Limits", "FORMULATIONS", "OPTIONS", "build_model", "pose_dim_of",
           "formulations_for", "default_formulation", "describe_formulation", "get",
           "lookup", "formulation_for", "as_spec", "refresh", "ALL_VERBS",
           "ENTRY_POINT_GROUP", "BUILTIN", "RegistryWarning", "reference_hint"]


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


BEAM_KEYS = ("material.E", "material.rho", "section.width", "section.height",
             "section.diameter")
"""A tree robot's beam entries a complex step differentiates (``differentiable``)."""

MASS_PROPERTY_KEYS = ("mass_properties.mass", "mass_properties.centre_of_mass",
                      "mass_properties.inertia")
"""A beam's given mass properties (``differentiable``)."""


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
    pose_dim : int, mapping family -> int, or None
        Coordinates of an end-effector pose (``--at``, a task-space path) when the model
        has an inverse kinematics: 3 for a Delta's platform centre, 2 for an arm's tip;
        per family for a formulation that takes several (:func:`pose_dim_of`).
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
    reference : bool
        ``compare`` measures the other formulations against this one (a geometrically
        exact model: the one that holds where the linear ones leave their range).
    priority : int
        Order of preference among the formulations that take a robot (lower first; the
        built-ins use 10 to 60, a plugin defaults to 100).
    discretizations : callable(family, elements, modes) -> list, or None
        The variants ``compare`` builds of a robot of ``family`` for the given numbers of
        elements and modes: (label suffix, model options, discretization in words) each;
        None: one variant with the default options.
    symbolic_robot, symbolic_program : str and callable, or None
        ``generate <symbolic_robot>``: a model whose parameters are symbols (not a robot
        of a description): ``symbolic_program(links, modes, basis)`` returns (program,
        model options, one line), ``links`` the number of bodies (None: the default).
    differentiable : tuple of str
        Description key patterns (``*``: one name) whose derivatives a complex step
        carries exactly through the model's build (``sensitivity`` of the natural
        frequencies, :mod:`elastodyn.analysis.frequency_sensitivity`), each verified
        against finite differences; empty: none.
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
    pose_dim: int | Mapping | None = None
    task_space_only: bool = False
    applies: Callable = _always
    needs: str = ""
    build: Callable | None = None
    reference: bool = False
    priority: int = 100
    differentiable: tuple = ()
    discretizations: Callable | None = None
    symbolic_robot: str | None = None
    symbolic_program: Callable | None = None

    def __post_init__(self):
        object.__setattr__(self, "families", tuple(self.families))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "differentiable", tuple(self.differentiable))


ALL_VERBS = ("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
             "compensate", "generate")
"""The verbs a flexible nonlinear model with symbolic programs answers."""

ENTRY_POINT_GROUP = "elastodyn.formulations"
"""The entry-point group every formulation registers in (the built-ins too)."""

BUILTIN = {
    "ked": "elastodyn.formulations.ked:FORMULATION",
    "explicit": "elastodyn.formulations.rigid_delta:EXPLICIT",
    "multipliers": "elastodyn.formulations.rigid_delta:MULTIPLIERS",
    "amm": "elastodyn.formulations.amm:FORMULATION",
    "nepvp": "elastodyn.formulations.nepvp:FORMULATION",
    "ffrf": "elastodyn.formulations.ffrf:FORMULATION",
    "exact": "elastodyn.formulations.exact:FORMULATION",
}
"""The built-in formulations' entry points, as ``pyproject.toml`` declares them (a test
keeps the two equal). Used only for a built-in name the installed metadata does not
list: a source tree run without installing (``PYTHONPATH=src``) or installed before
the entry point existed."""


class RegistryWarning(UserWarning):
    """A registered formulation could not be loaded (it is left out, with this warning)."""


def _load_entry(name: str, value: str, load):
    """The Formulation of one entry point, or None with a warning."""
    import warnings
    try:
        obj = load()
    except Exception as exc:  # a broken plugin must not break the built-ins
        warnings.warn(f"formulation {name!r} ({value}) failed to load: "
                      f"{type(exc).__name__}: {exc}", RegistryWarning, stacklevel=3)
        return None
    if not isinstance(obj, Formulation) or obj.name != name:
        warnings.warn(f"formulation {name!r} ({value}) is not a Formulation named "
                      f"{name!r}; left out", RegistryWarning, stacklevel=3)
        return None
    return obj


def _discover() -> dict:
    """name -> Formulation of every entry point of :data:`ENTRY_POINT_GROUP`, in the
    order of preference (``priority``, then name)."""
    import importlib
    from importlib.metadata import entry_points
    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in found:
            continue  # the same distribution seen twice on the path (editable installs)
        f = _load_entry(ep.name, ep.value, ep.load)
        if f is not None:
            found[ep.name] = f
    for name, value in BUILTIN.items():
        if name not in found:
            mod, attr = value.split(":")
            f = _load_entry(name, value,
                            lambda m=mod, a=attr: getattr(importlib.import_module(m), a))
            if f is not None:
                found[name] = f
    return dict(sorted(found.items(), key=lambda kv: (kv[1].priority, kv[0])))


class _Registry(Mapping):
    """The registered formulations, discovered on first use (:func:`refresh` forgets
    them, e.g. after a plugin's distribution was added to ``sys.path``)."""

    def __init__(self):
        self._entries = None

    def _get(self) -> dict:
        if self._entries is None:
            self._entries = _discover()
        return self._entries

    def __getitem__(self, name):
        return self._get()[name]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def __repr__(self):
        return f"<formulations {', '.join(self)}>"


FORMULATIONS: Mapping = _Registry()
"""name -> :class:`Formulation`, in the order of preference (a robot's default is the
first that takes it), discovered from the entry points on first use."""


class _Options(Mapping):
    """name -> the model options it takes and their defaults (from :data:`FORMULATIONS`)."""

    def __getitem__(self, name):
        return dict(FORMULATIONS[name].options)

    def __iter__(self):
        return iter(FORMULATIONS)

    def __len__(self):
        return len(FORMULATIONS)


OPTIONS: Mapping = _Options()
"""name -> the model options it takes and their defaults (from :data:`FORMULATIONS`)."""


def refresh() -> None:
    """Forget the discovered formulations: the next use discovers them again."""
    FORMULATIONS._entries = None


def as_spec(robot):
    """The spec of a robot (a spec, or a description dataclass written as one): what a
    formulation's builder converts to its own description."""
    return C.to_spec(robot)


def _int_option(name, value, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
        raise InputError(f"--{name}", value, f"an integer in [1, {hi}]")
    return value


# ------------------------------------------------------------------ questions
def lookup(name) -> Formulation | None:
    """The entry of formulation ``name``, or None for a name that is not registered."""
    return FORMULATIONS.get(name) if isinstance(name, str) else None


def pose_dim_of(model) -> int | None:
    """Coordinates of a task-space pose of ``model`` (its registry entry's ``pose_dim``,
    for the family of the robot it was built from where the entry gives one per
    family); None when the entry does not say."""
    entry = lookup(model.formulation)
    dim = None if entry is None else entry.pose_dim
    if isinstance(dim, Mapping):
        dim = dim.get(C.family_of(model.robot))
    return None if dim is None else int(dim)


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
            spec = as_spec(robot) if spec is None else spec
            if not f.applies(spec):
                continue
        names.append(f.name)
    preferred = _preferred(robot)
    if preferred in names:
        names.remove(preferred)
        names.insert(0, preferred)
    return names


_DESCRIBED = weakref.WeakKeyDictionary()
"""model -> the robot :func:`build_model` built it from (as the user described it: a Delta
that NE-PVP models as a tree, an arm that it models as a tree with assumed modes)."""


def reference_hint(model) -> str | None:
    """Where a small-deformation model's answer lies beyond its range: the command of a
    ``reference`` formulation (geometrically exact) that takes the robot ``model`` was
    built from, in words for a warning; None when no such formulation takes it (or the
    model's robot, built outside :func:`build_model`, cannot be written as a
    description)."""
    try:
        robot = _DESCRIBED.get(model)
    except TypeError:           # not weakly referenceable: never stored
        robot = None
    try:
        names = formulations_for(model.robot if robot is None else robot)
    except InputError:          # e.g. a tree of assumed-mode beams: no description form
        return None
    for name in names:
        if FORMULATIONS[name].reference and name != model.formulation:
            from .base import REFERENCE_HINT
            return REFERENCE_HINT.format(name=name)
    return None


def _preferred(robot) -> str | None:
    """The description's ``formulation`` (tree robots), or None."""
    if C.family_of(robot) != "tree":
        return None
    return getattr(as_spec(robot), "formulation", None)


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
    model = form.build(form, robot, C.family_of(robot), opts)
    try:
        _DESCRIBED[model] = robot
    except TypeError:           # a plugin's model that cannot be weakly referenced
        pass
    return model
