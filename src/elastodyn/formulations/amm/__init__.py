"""N-link planar arms by assumed modes and Lagrange (Yu & Chen 2019), a formulation
package.

The model the analyses receive is :class:`~elastodyn.formulations.amm.model.AMMContract`;
the engine it wraps :class:`~elastodyn.formulations.amm.engine.AMMArmModel`, whose
equations the symbolic generator (``generator``, Yu's sections 2-3) writes.
"""
from __future__ import annotations

from ...description import convert as C
from ...description.arm import ASSUMED_MODES, BASES
from ...exceptions import InputError
from ..registry import ALL_VERBS, Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


def _build(form, robot, family, opts):
    from .model import AMMContract
    modes = opts["modes"]
    if opts["basis"] not in BASES:
        raise InputError("--basis", opts["basis"], "one of " + ", ".join(BASES))
    arm = C.planar_arm(as_spec(robot), modes=modes, basis=opts["basis"])
    return AMMContract(arm, {"modes": modes, "basis": opts["basis"]})


FORMULATION = Formulation(
    "amm", ("arm",), "assumed modes and Lagrange (Yu & Chen 2019)",
    options=dict(ASSUMED_MODES), verbs=ALL_VERBS,
    limits=Limits(modes=12, simulate_time=60.0), problems=("model",),
    closed_loop=True, pose_dim=2, build=_build, priority=40,
    discretizations=lambda family, n, m: [(f"{m}", {"modes": m}, f"{m} sine modes")],
    differentiable=tuple(f"links.*.{k}" for k in ("length", "mass", "E", "I", "hub_inertia",
                                                  "lumped_masses.*.mass",
                                                  "lumped_masses.*.inertia"))
    + ("payload.mass", "payload.inertia", "gravity"))
