"""The formulation registry: which formulations take which robot family, their model
options, and ``build_model``.

==============  ========  =====================================================  ==================================
formulation     family    what                                                   model options (default)
==============  ========  =====================================================  ==================================
``explicit``    delta     rigid Delta, explicit task-space model (Asadi 2020)    none
``multipliers`` delta     rigid Delta, Lagrange multipliers (Kuo 2016 sec. 2.3)  none
``ked``         delta     flexible Delta, kineto-elasto-dynamics (Kuo 2016)      elements (1), order (cubic),
                                                                                 preload (true), rayleigh (0 0)
``nepvp``       tree,     recursive Newton-Euler and virtual powers              elements (1) or modes and basis
                arm       (Briot & Khalil 2013)                                  (assumed-mode beams)
``amm``         arm       assumed modes and Lagrange (Yu & Chen 2019)            modes (2), basis (sine)
==============  ========  =====================================================  ==================================

A new formulation adds its modules under ``formulations/`` and one entry in
:data:`FORMULATIONS` (and its options in :data:`OPTIONS`); a new robot family adds its
schema and conversion in ``description/`` and its entries here.
"""
from __future__ import annotations

from ..description import convert as C
from ..description.arm import BASES
from ..exceptions import InputError

__all__ = ["FORMULATIONS", "OPTIONS", "build_model", "formulations_for",
           "default_formulation", "describe_formulation"]

FORMULATIONS = {
    "explicit": ("delta", "rigid Delta, explicit task-space model (Asadi & Heydari 2020)"),
    "multipliers": ("delta", "rigid Delta, Lagrange multipliers (Kuo 2016 section 2.3)"),
    "ked": ("delta", "flexible links by kineto-elasto-dynamics (Kuo 2016)"),
    "nepvp": (("tree", "arm"), "recursive Newton-Euler and virtual powers "
                               "(Briot & Khalil 2013)"),
    "amm": ("arm", "assumed modes and Lagrange (Yu & Chen 2019)"),
}
"""name -> (families, description)."""

OPTIONS = {
    "explicit": {},
    "multipliers": {},
    "ked": {"elements": 1, "order": "cubic", "preload": True, "rayleigh": (0.0, 0.0)},
    "nepvp": {"elements": 1, "modes": None, "basis": None},
    "amm": {"modes": 2, "basis": "sine"},
}
"""name -> the model options it takes and their defaults."""

MAX_ELEMENTS = {"ked": 32, "nepvp": 8}
MAX_MODES = 12


def _families(name):
    fam = FORMULATIONS[name][0]
    return fam if isinstance(fam, tuple) else (fam,)


def _spec(robot):
    """The spec of a robot (a spec, or a description dataclass written as one)."""
    return C.to_spec(robot)


def formulations_for(robot) -> list[str]:
    """The formulations that can take ``robot`` (a spec or a description dataclass),
    the default first."""
    fam = C.family_of(robot)
    names = [n for n in FORMULATIONS if fam in _families(n)]
    if fam == "delta":
        spec = _spec(robot)
        if not spec.flexible:
            names.remove("ked")
    default = default_formulation(robot)
    return [default] + [n for n in names if n != default]


def default_formulation(robot) -> str:
    """ked for a Delta with flexible links (explicit for a rigid one), nepvp for tree
    robots, amm for arms."""
    fam = C.family_of(robot)
    if fam == "delta":
        return "ked" if _spec(robot).flexible else "explicit"
    return {"tree": "nepvp", "arm": "amm"}[fam]


def describe_formulation(name: str) -> str:
    return FORMULATIONS[name][1]


def _check_options(formulation: str, given: dict) -> dict:
    allowed = OPTIONS[formulation]
    out = dict(allowed)
    for key, value in given.items():
        if value is None:
            continue
        if key not in allowed:
            takes = ", ".join(allowed) or "no model options"
            raise InputError(f"--{key}", value, f"not an option of the {formulation} "
                             f"formulation (it takes {takes})")
        out[key] = value
    return out


def _int_option(name, value, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
        raise InputError(f"--{name}", value, f"an integer in [1, {hi}]")
    return value


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
        Model options (:data:`OPTIONS`): discretization (``elements``, ``order``,
        ``modes``, ``basis``) and model switches (``preload``, ``rayleigh``). An option
        the formulation does not take is refused (None values are ignored).

    Returns
    -------
    A model answering :mod:`elastodyn.model`'s contract.
    """
    fam = C.family_of(robot)
    allowed = formulations_for(robot)
    if formulation is None:
        formulation = allowed[0]
    if formulation not in FORMULATIONS:
        raise InputError("--formulation", formulation, "one of " + ", ".join(allowed))
    if formulation not in allowed:
        why = ""
        if formulation == "ked" and fam == "delta":
            why = " (ked needs links.upper/lower section and material)"
        raise InputError("--formulation", formulation,
                         f"one of {', '.join(allowed)} for this {fam} robot{why}")
    opts = _check_options(formulation, options)
    if formulation in ("explicit", "multipliers"):
        from .rigid_delta_contract import RigidDeltaContract
        rigid = robot if _is_rigid_delta(robot) else C.rigid_delta(_spec(robot))
        return RigidDeltaContract(rigid, formulation)
    if formulation == "ked":
        from .ked_contract import KEDContract
        _int_option("elements", opts["elements"], MAX_ELEMENTS["ked"])
        flex = robot if _is_flexible_delta(robot) else C.flexible_delta(_spec(robot))
        return KEDContract(flex, elements=opts["elements"], order=opts["order"],
                           preload=bool(opts["preload"]), rayleigh=tuple(opts["rayleigh"]))
    if formulation == "amm":
        from .amm_contract import AMMContract
        modes = _int_option("modes", opts["modes"], MAX_MODES)
        if opts["basis"] not in BASES:
            raise InputError("--basis", opts["basis"], "one of " + ", ".join(BASES))
        arm = C.planar_arm(_spec(robot), modes=modes, basis=opts["basis"])
        return AMMContract(arm, {"modes": modes, "basis": opts["basis"]})
    if formulation == "nepvp":
        from .nepvp_contract import NEPVPContract
        return _nepvp(robot, fam, opts, NEPVPContract)
    raise AssertionError(formulation)  # pragma: no cover


def _nepvp(robot, fam, opts, cls):
    modes, basis, elements = opts["modes"], opts["basis"], opts["elements"]
    if (modes is None) != (basis is None):
        if modes is None:
            modes = OPTIONS["amm"]["modes"]
        else:
            basis = OPTIONS["amm"]["basis"]
    if modes is not None:
        _int_option("modes", modes, MAX_MODES)
        if basis not in BASES:
            raise InputError("--basis", basis, "one of " + ", ".join(BASES))
        if elements not in (None, 1) and elements != OPTIONS["nepvp"]["elements"]:
            raise InputError("--elements", elements, "not with --modes (assumed-mode beams)")
        shapes = {"shapes": basis, "modes": modes}
        echo = {"modes": modes, "basis": basis}
    else:
        _int_option("elements", elements, MAX_ELEMENTS["nepvp"])
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
        return cls(tree, echo)
    tree = C.arm_as_tree(_spec(robot), **shapes)
    return cls(tree, echo)


def _is_rigid_delta(obj) -> bool:
    from ..description.delta import RigidDelta
    return isinstance(obj, RigidDelta)


def _is_flexible_delta(obj) -> bool:
    from ..description.flexible_delta import FlexibleDelta
    return isinstance(obj, FlexibleDelta)
