"""The flexible Delta by kineto-elasto-dynamics (Kuo 2016), a formulation package.

``FORMULATION`` is its registry entry (entry point ``ked`` of the group
``elastodyn.formulations``); the model the analyses receive is
:class:`~elastodyn.formulations.ked.model.KEDModel`, the engine it wraps
:class:`~elastodyn.formulations.ked.engine.KEDEngine` (the KED system, Kuo eqs.
43-47), with its batched evaluation (``batch``), leg-block solver (``blocks``) and the
deflected reference (``deflected``). Nothing heavy is imported here: the builder imports
the model when a model is built.
"""
from __future__ import annotations

from ...description import convert as C
from ...description.flexible_delta import FlexibleDelta
from ..registry import Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


def _flexible_links(spec) -> bool:
    return bool(spec.flexible)


def _build(form, robot, family, opts):
    from .model import KEDModel
    flex = robot if isinstance(robot, FlexibleDelta) else C.flexible_delta(as_spec(robot))
    ref = opts.get("reference", "auto")
    return KEDModel(flex, elements=opts["elements"], order=opts["order"],
                       preload=bool(opts["preload"]), rayleigh=tuple(opts["rayleigh"]),
                       reference=None if ref == "auto" else ref)


FORMULATION = Formulation(
    "ked", ("delta",), "flexible links by kineto-elasto-dynamics (Kuo 2016)",
    options={"elements": 1, "order": "cubic", "preload": True, "rayleigh": (0.0, 0.0),
             "reference": "auto"},
    verbs=("modes", "map", "sweep", "convergence", "torques", "simulate", "plan",
           "compensate"),
    limits=Limits(elements=32, simulate_time=100.0),
    pose_dim=3, task_space_only=True, applies=_flexible_links,
    needs="links.upper/lower section and material", build=_build, priority=10,
    discretizations=lambda family, n, m: [(f"{n}", {"elements": n}, f"cubic FE x {n}")],
    differentiable=tuple(f"links.{ln}.{k}" for ln in ("upper", "lower")
                         for k in ("material.E", "material.G", "material.rho",
                                   "section.width", "section.height", "section.diameter"))
    + ("platform.mass", "payload.mass", "payload.com.*", "payload.inertia.*.*")
    + ("links.upper.length", "links.lower.length", "geometry.base_radius",
       "geometry.platform_radius", "geometry.leg_angles.*", "platform.thickness",
       "gravity.*"))
