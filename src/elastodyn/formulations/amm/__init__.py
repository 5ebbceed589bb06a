"""N-link planar arms by assumed modes and Lagrange (Yu & Chen 2019), a formulation
package.

The model the analyses receive is :class:`~elastodyn.formulations.amm.model.AMMModel`;
the engine it wraps :class:`~elastodyn.formulations.amm.engine.AMMEngine`, whose
equations the symbolic generator (``generator``, Yu's sections 2-3) writes.
"""
from __future__ import annotations

from ...description import convert as C
from ...description.arm import ASSUMED_MODES, BASES
from ...exceptions import InputError
from ..registry import ALL_VERBS, Formulation, Limits, as_spec

__all__ = ["FORMULATION"]


MAX_LINKS = 12
"""Most links of ``generate arm``."""


def _symbolic_arm(links, modes, basis):
    """``generate arm``: an N-link arm of arm-yu2019's first link, its parameters symbols
    (Yu & Chen 2019's generator, :func:`~elastodyn.formulations.amm.generator.
    generate_amm`)."""
    from dataclasses import replace

    from ...description.arm import PlanarArm
    from ...description.presets import get_preset
    from .generator import generate_amm
    n = 2 if links is None else links
    if not 1 <= n <= MAX_LINKS:
        raise InputError("--links", n, f"an integer in [1, {MAX_LINKS}]")
    modes = 2 if modes is None else modes
    if not 1 <= modes <= 8:
        raise InputError("--modes", modes, "an integer in [1, 8]")
    basis = basis or "sine"
    if basis not in BASES:
        raise InputError("--basis", basis, "one of " + ", ".join(BASES))
    link = get_preset("arm-yu2019").links[0]
    arm = PlanarArm("arm", (replace(link),) * n, modes=modes, basis=basis)
    prog, _ = generate_amm(arm, symbolic=True)
    return (prog, {"modes": modes, "basis": basis},
            f"arm: {n} link(s), {modes} {basis} mode(s) per link (symbolic)")


def _build(form, robot, family, opts):
    from .model import AMMModel
    modes = opts["modes"]
    if opts["basis"] not in BASES:
        raise InputError("--basis", opts["basis"], "one of " + ", ".join(BASES))
    arm = C.planar_arm(as_spec(robot), modes=modes, basis=opts["basis"])
    return AMMModel(arm, {"modes": modes, "basis": opts["basis"]})


FORMULATION = Formulation(
    "amm", ("arm",), "assumed modes and Lagrange (Yu & Chen 2019)",
    options=dict(ASSUMED_MODES), verbs=ALL_VERBS,
    limits=Limits(modes=12, simulate_time=60.0), problems=("model",),
    closed_loop=True, pose_dim=2, build=_build, priority=40,
    symbolic_robot="arm", symbolic_program=_symbolic_arm,
    discretizations=lambda family, n, m: [(f"{m}", {"modes": m}, f"{m} sine modes")],
    differentiable=tuple(f"links.*.{k}" for k in ("length", "mass", "E", "I", "hub_inertia",
                                                  "lumped_masses.*.mass",
                                                  "lumped_masses.*.inertia"))
    + ("payload.mass", "payload.inertia", "gravity"))
