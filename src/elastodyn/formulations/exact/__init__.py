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
from ..registry import Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


def _build(form, robot, family, opts):
    from .arm import ExactArmModel
    arm = C.planar_arm(as_spec(robot))
    return ExactArmModel(arm, {"elements": opts["elements"]})


FORMULATION = Formulation(
    "exact", ("arm",), "geometrically exact beams (corotational, consistent inertia)",
    options={"elements": 4}, verbs=("modes", "map", "sweep", "convergence", "torques", "simulate"),
    limits=Limits(elements=64, simulate_time=60.0), pose_dim=2, build=_build, priority=90)
