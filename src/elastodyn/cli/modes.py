"""``elastodyn modes ROBOT``: natural frequencies at a pose (actuators locked), or about a
steady motion."""
from __future__ import annotations

from .common import (add_model_options, add_output, add_pose, add_robot, build, check_out,
                     emit, flexible_model, given, integer, load_robot, number, pose_state,
                     preload_choice, preload_in_model, refuse)

DEFAULT_AT = {"delta": (0.1, 0.0, 0.5)}
"""Default pose per family where the paper has one (Kuo 2016 5.2: P = (0.1, 0, 0.5) m)."""


def register(sub):
    m = sub.add_parser("modes", help="natural frequencies of a flexible robot at a pose",
                       description="Natural frequencies with the actuators locked: at a pose "
                                   "(--at X Y Z for a Delta, --actuated for any robot), by "
                                   "default about the formulation's paper reference (KED: "
                                   "with the static link forces under gravity; NE-PVP and "
                                   "assumed modes: the linear structure); --preload "
                                   "linearizes about the deflected equilibrium under gravity; "
                                   "--speed about a steady motion at constant actuated rates "
                                   "(gyroscopic and centrifugal terms).")
    add_robot(m)
    add_pose(m, at_help="pose: Delta platform centre X Y Z [m] (0.1 0 0.5; Z down); "
                        "two-link arm tip X Y [m]")
    m.add_argument("--speed", type=number("--speed"), nargs="+", metavar="W",
                   help="constant actuated rates [rad/s or m/s]: modes about the steady "
                        "motion")
    m.add_argument("--preload", action="store_true", default=None,
                   help="about the deflected equilibrium under gravity (tangent stiffness)")
    add_model_options(m)
    m.add_argument("--count", type=integer("--count"),
                   help="number of modes (8, or all the elastic coordinates when fewer)")
    add_output(m)
    m.set_defaults(func="modes")


def run(a) -> int:
    from ..analysis.modes import modes
    check_out(a)
    spec = load_robot(a)
    preload = preload_choice(a)
    form = flexible_model(a, spec, verb="modes")
    model = build(a, spec, preload_is_model=preload_in_model(form))
    if given(a, "speed") and "steady_motion" not in model.capabilities:
        refuse(a, {"speed": "--speed"}, f"a formulation that linearizes about a steady "
               f"motion (the {model.formulation} model linearizes about a pose or a "
               "prescribed path: use map)")
    state = pose_state(a, model, DEFAULT_AT.get(spec.family))
    if given(a, "speed"):
        refuse(a, {"preload": "--preload", "no_preload": "--no-preload"}, "not with --speed "
               "(the steady motion's reference is always its deflected state)")
    result = modes(model, state, count=a.count, preload=preload, speed=a.speed,
                   robot=spec.name)
    return emit(a, result)
