"""The rigid Delta, a formulation package with two entries: ``explicit`` (the explicit
task-space model of Asadi & Heydari 2020) and ``multipliers`` (Lagrange multipliers, Kuo
2016 section 2.3).

The model the analyses receive is
:class:`~elastodyn.formulations.rigid_delta.model.RigidDeltaModel`; the engines it
wraps are :class:`~elastodyn.formulations.rigid_delta.engine.ExplicitDeltaEngine` and
:class:`~elastodyn.formulations.rigid_delta.engine.MultiplierDeltaEngine` (``point``: the
scalar fast path; ``symbolic``: the model as a straight-line program).
"""
from __future__ import annotations

from ...description import convert as C
from ...description.delta import RigidDelta
from ..registry import Formulation, Limits, as_spec

__all__ = ["EXPLICIT", "MULTIPLIERS"]

_RIGID_LIMITS = Limits(simulate_time=1000.0, torques_time=1000.0, torques_samples=1_000_000)


def _build(form, robot, family, opts):
    from .model import RigidDeltaModel
    rigid = robot if isinstance(robot, RigidDelta) else C.rigid_delta(as_spec(robot))
    return RigidDeltaModel(rigid, form.name)


EXPLICIT = Formulation(
    "explicit", ("delta",), "rigid Delta, explicit task-space model (Asadi & Heydari 2020)",
    rigid=True, verbs=("torques", "simulate", "generate"), limits=_RIGID_LIMITS,
    problems=("model",), closed_loop=True, pose_dim=3, task_space_only=True,
    build=_build, priority=20)

MULTIPLIERS = Formulation(
    "multipliers", ("delta",), "rigid Delta, Lagrange multipliers (Kuo 2016 section 2.3)",
    rigid=True, verbs=("torques", "simulate"), limits=_RIGID_LIMITS, closed_loop=True,
    pose_dim=3, task_space_only=True, build=_build, priority=30)
