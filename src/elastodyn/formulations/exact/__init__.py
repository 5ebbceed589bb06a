"""Geometrically exact beams (issue 31), a formulation package: the answer where the
linear models (KED, FFRF, AMM) and NE-PVP's small-rotation beams can only warn.

Today: planar serial arms (:class:`~elastodyn.formulations.exact.arm.ExactArmModel`, the
``arm`` family), planar corotational beams with consistent inertia
(:mod:`elastodyn.fem.planar_corotational`). The spatial statics at any rotation are in
:class:`elastodyn.fem.corotational.BeamFrame`; the Delta and tree families come next.

Why corotational (and not Simo-Reissner): the elements' strain energy is the linear
element's in a frame that follows them, so the model reduces exactly to the linear
finite elements of the other formulations about the placement (tested), objectivity is
exact, and the small-strain robots of this library (slender metal links) need no shear
or finite-strain terms; the geometric nonlinearity (large rotations, stiffening,
shortening) is all in the frame (C. A. Felippa, B. Haugen, CMAME 194, 2005).
"""
from __future__ import annotations

from ...description import convert as C
from ...description.tree import is_plane
from ..registry import Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


def _build(form, robot, family, opts):
    if family == "delta":
        from ...description.flexible_delta import FlexibleDelta
        from .delta import ExactDeltaModel
        flex = robot if isinstance(robot, FlexibleDelta) else C.flexible_delta(as_spec(robot))
        return ExactDeltaModel(flex, {"elements": opts["elements"]})
    if family == "tree":
        from ...description.tree import TreeRobot
        from .tree import ExactTreeModel
        tree = robot if isinstance(robot, TreeRobot) else C.tree_robot(as_spec(robot))
        return ExactTreeModel(tree, {"elements": opts["elements"]})
    from .arm import ExactArmModel
    arm = C.planar_arm(as_spec(robot))
    return ExactArmModel(arm, {"elements": opts["elements"]})


def _applies(spec) -> bool:
    # a Delta needs its links' sections and materials (as KED); a tree robot must be
    # planar with planar beams (the spatial tree is not built yet); an arm always applies
    family = C.family_of(spec)
    if family == "tree":
        return (is_plane(spec.closure)
                and all(b.beam is None or not b.beam.spatial for b in spec.bodies.values()))
    return family != "delta" or bool(getattr(spec, "flexible", True))


def _mesh(family: str, n: int) -> str:
    """The discretization in words (``compare``): about the placement an arm's planar
    elements are NE-PVP's linear cubic elements exactly (tested to 1e-8); a Delta's
    spatial elements leave out the sections' bending rotary inertia, which KED's and
    NE-PVP's consistent masses carry (5e-4 on Kuo's fourth to eighth frequencies)."""
    if family in ("arm", "tree"):
        return f"cubic FE x {n}"
    return f"cubic FE x {n}, no bending rotary inertia"


FORMULATION = Formulation(
    "exact", ("arm", "delta", "tree"), "geometrically exact beams (corotational, consistent inertia)",
    options={"elements": 4}, verbs=("modes", "map", "sweep", "convergence", "torques", "simulate",
                                      "plan", "compensate"),
    limits=Limits(elements=64, simulate_time=60.0), pose_dim={"arm": 2, "delta": 3},
    applies=_applies, reference=True, closed_loop=True,
    discretizations=lambda family, n, m: [(f"{n}", {"elements": n}, _mesh(family, n))],
    needs="a Delta's links.upper/lower section and material; a planar tree robot "
          "(closure rows of a plane, planar beams)", build=_build, priority=90)
