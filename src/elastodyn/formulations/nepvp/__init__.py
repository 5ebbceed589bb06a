"""Tree and closed-loop robots by recursive Newton-Euler and virtual powers (Briot &
Khalil 2013), a formulation package.

The model the analyses receive is :class:`~elastodyn.formulations.nepvp.model.
NEPVPModel`; the engine it wraps :class:`~elastodyn.formulations.nepvp.engine.
NEPVPEngine` (the compiled symbolic model of ``symbolic``, its beams in ``beam`` and the
compiled simulation driver in ``driver``).
"""
from __future__ import annotations

from ...description import convert as C
from ...description.arm import ASSUMED_MODES, BASES
from ...description.flexible_delta import FlexibleDelta
from ...exceptions import InputError
from ..registry import (ALL_VERBS, BEAM_KEYS, MASS_PROPERTY_KEYS, Formulation, Limits,
                        as_spec)

__all__ = ["FORMULATION"]


def _nepvp_takes(spec) -> bool:
    """nepvp takes tree robots, arms, and flexible Deltas with universal joints at both
    ends of the lower links (the only isostatic Delta tree, :mod:`~elastodyn.description.
    delta_tree`)."""
    if C.family_of(spec) != "delta":
        return True
    return bool(spec.flexible) and spec.joints.b == "universal" and \
        spec.joints.d == "universal"


def _build(form, robot, fam, opts):
    from .model import NEPVPModel
    modes, basis, elements = opts["modes"], opts["basis"], opts["elements"]
    if fam == "delta":
        from ...description.delta_tree import delta_tree
        if modes is not None or basis is not None:
            raise InputError("--modes" if modes is not None else "--basis",
                             modes if modes is not None else basis,
                             "finite elements (--elements) for a Delta's spatial links")
        flex = robot if isinstance(robot, FlexibleDelta) else C.flexible_delta(as_spec(robot))
        return NEPVPModel(delta_tree(flex, elements or 1), {"elements": elements or 1})
    if (modes is None) != (basis is None):
        if modes is None:
            modes = ASSUMED_MODES["modes"]
        else:
            basis = ASSUMED_MODES["basis"]
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

        from ...description.tree import FlexibleBeam, TreeRobot
        tree = robot if isinstance(robot, TreeRobot) else C.tree_robot(as_spec(robot))
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
        return NEPVPModel(tree, echo)
    tree = C.arm_as_tree(as_spec(robot), **shapes)
    return NEPVPModel(tree, echo)


FORMULATION = Formulation(
    "nepvp", ("tree", "arm", "delta"), "recursive Newton-Euler and virtual powers "
                                       "(Briot & Khalil 2013)",
    options={"elements": 1, "modes": None, "basis": None}, verbs=ALL_VERBS,
    limits=Limits(elements=8, modes=12, simulate_time=20.0),
    problems=("inverse", "direct", "model"), applies=_nepvp_takes,
    needs="a flexible Delta with universal joints (joints.b, joints.d)", build=_build,
    priority=50,
    discretizations=lambda family, n, m: (
        [(f"modes-{m}", {"modes": m, "basis": "sine"}, f"{m} sine modes"),
         (f"fem-{n}", {"elements": n}, f"cubic FE x {n}")] if family == "arm" else
        [(f"{n}", {"elements": n}, f"cubic FE x {n}")]),
    differentiable=tuple(f"bodies.*.beam.{k}" for k in BEAM_KEYS + MASS_PROPERTY_KEYS
                         + ("material.G", "length"))
    + tuple(f"{b}.{k}" for b in ("bodies.*.rigid", "platform")
            for k in ("mass", "com.*", "inertia.*.*"))
    + ("gravity.*",))
