"""Planar multibody systems by the floating frame of reference (Rosyid & El-Khasawneh
2020), a formulation package.

The model the analyses receive is :class:`~elastodyn.formulations.ffrf.model.
FFRFModel`; the engine it wraps the multibody system of ``multibody`` (bodies,
joints as constraints, coordinate partitioning, the compiled kernel ``kernel.c``) built
from a tree description by ``tree``, integrated by ``solve``.
"""
from __future__ import annotations

from ...description import convert as C
from ...description.tree import is_plane
from ...exceptions import InputError
from ..registry import BEAM_KEYS, MASS_PROPERTY_KEYS, Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


def _planar_tree(spec) -> bool:
    """ffrf is planar: the closure rows of a plane and planar beams."""
    return (is_plane(spec.closure)
            and all(b.beam is None or not b.beam.spatial for b in spec.bodies.values()))


def _build(form, robot, fam, opts):
    from .model import FFRFModel
    from ...description.tree import TreeRobot
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
    tree = robot if isinstance(robot, TreeRobot) else C.tree_robot(as_spec(robot))
    # the floating-frame equations here carry no motor inertia and no joint friction:
    # a description that gives them is refused by name, never run without them
    for key, entries in (("motor_inertia", tree.motor_inertia), ("viscous", tree.viscous),
                         ("coulomb", tree.coulomb)):
        given_ = {k: v for k, v in entries.items() if v}
        if given_:
            raise InputError(f"motors ({key})", given_, "none for ffrf (its equations "
                             "carry no motor inertia or joint friction): nepvp or exact "
                             "take them")
    model = FFRFModel(tree, {"shape": shape, "elements": opts["elements"],
                                "boundary": boundary or "fixed-free",
                                "modes": opts.get("modes") or 2})
    if shape == "rr":
        model.options = {"shape": "rr", "boundary": model.options["boundary"]}
    elif shape == "sine":
        model.options = {"shape": "sine", "modes": opts.get("modes") or 2,
                         "boundary": "pinned-pinned"}
    return model


FORMULATION = Formulation(
    "ffrf", ("tree",), "planar floating frame of reference, Rayleigh-Ritz or finite "
                       "elements (Rosyid & El-Khasawneh 2020)",
    options={"shape": "fem", "elements": 4, "boundary": None, "modes": None},
    verbs=("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
           "compensate", "sensitivity"),
    limits=Limits(elements=16, modes=8, simulate_time=10.0), applies=_planar_tree,
    needs="a planar robot (closure rows of a plane, planar beams)", build=_build,
    priority=60,
    discretizations=lambda family, n, m: [
        (f"fem-{n}", {"shape": "fem", "elements": n}, f"cubic FE x {n}"),
        ("rr", {"shape": "rr"}, "cubic FE x 1")],
    differentiable=tuple(f"bodies.*.beam.{k}" for k in BEAM_KEYS + MASS_PROPERTY_KEYS
                         + ("length",))
    + ("joints.*.d",)
    + tuple(f"{b}.{k}" for b in ("bodies.*.rigid", "platform")
            for k in ("mass", "com.*", "inertia.*.*")))
