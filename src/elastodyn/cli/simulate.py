"""``elastodyn simulate ROBOT``: time simulation along a motion: motion-driven (the
elastic response of a flexible robot to its actuated motion) or under a joint-space
controller (a rigid Delta, an arm)."""
from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     given, load_robot, note, number, progress_bar, refuse, renamed)
from .motion import add_motion_options, check_window, motion_spec

MAX_STEPS = 200_000
MAX_TIME = {"explicit": 1000.0, "multipliers": 1000.0, "ked": 100.0, "nepvp": 20.0,
            "amm": 60.0}


def register(sub):
    s = sub.add_parser("simulate", help="simulation along a motion (flexible links, or a "
                                        "rigid robot under control)",
                       description="Motion-driven (the default for flexible formulations: "
                                   "the actuators follow the motion, the links respond; KED "
                                   "for a flexible Delta, NE-PVP for tree robots) or "
                                   "closed-loop (--controller pd or computed-torque: a "
                                   "rigid Delta, or an arm by assumed modes, tracks the "
                                   "motion). A preset runs its paper's scenario unless "
                                   "told otherwise.")
    add_robot(s)
    add_motion_options(s)
    s.add_argument("--periods", type=number("--periods"),
                   help="circle: number of periods simulated (instead of --duration)")
    s.add_argument("--initial", help="flexible: static (the static deflection at the "
                                     "start) or zero (undeformed) (static)")
    s.add_argument("--method", help="integrator: ked newmark (constant step, Kuo) or radau; "
                                    "nepvp rk4 (compiled) or dop853; others dop853 or radau")
    c = s.add_argument_group("closed loop")
    c.add_argument("--controller", help="pd or computed-torque (none: motion-driven)")
    c.add_argument("--kp", type=number("--kp"), help="proportional gain")
    c.add_argument("--kd", type=number("--kd"), help="derivative gain")
    c.add_argument("--gravity-compensation", dest="gravity_compensation",
                   action="store_true", default=None, help="pd (rigid Delta): add the "
                                                           "model's gravity torque")
    c.add_argument("--offset", type=number("--offset"), nargs=3, metavar=("DX", "DY", "DZ"),
                   help="rigid Delta: initial platform position error [m]")
    s.add_argument("--free-vibration", dest="free_vibration", action="store_true",
                   default=None, help=__import__("argparse").SUPPRESS)
    s.add_argument("--end", type=number("--end"), help=__import__("argparse").SUPPRESS)
    add_model_options(s, rayleigh=True)
    add_output(s)
    s.set_defaults(func="simulate")


def _old_spellings(a):
    if given(a, "free_vibration"):
        if given(a, "scenario"):
            raise InputError("--free-vibration", True, "not with --scenario")
        note("--free-vibration is now --scenario free-vibration")
        a.scenario = "free-vibration"
        a.free_vibration = None
    if given(a, "end"):
        # old five-bar spelling: --end was the window, --duration the bang-bang's time
        if given(a, "duration"):
            if given(a, "motion_time"):
                raise InputError("--duration", a.duration, "not with both --end and "
                                 "--motion-time")
            a.motion_time = a.duration
            note("--end is now --duration, and the bang-bang's --duration is now "
                 "--motion-time")
        else:
            note("--end is now --duration")
        a.duration, a.end = a.end, None


def run(a) -> int:
    from ..analysis.scenario import build_trajectory
    from ..analysis.simulate import simulate_controlled, simulate_motion
    check_out(a)
    _old_spellings(a)
    spec = load_robot(a)
    model = build(a, spec)
    tspec, scen = motion_spec(a, spec.family)
    traj = build_trajectory(tspec, model)
    rigid = model.formulation in ("explicit", "multipliers")
    ctrl = dict(scen.get("controller") or {}) if not given(a, "trajectory") or \
        tspec.get("law") == scen.get("trajectory", {}).get("law") else {}
    if a.controller is not None:
        ctrl = {} if a.controller == "none" else {"kind": a.controller}
    if not ctrl and rigid and any(given(a, d) for d in ("kp", "kd", "gravity_compensation",
                                                        "offset")):
        ctrl = {"kind": "pd"}
    if not ctrl and rigid:
        ctrl = {"kind": "pd"}
    if ctrl:
        if model.formulation not in ("explicit", "multipliers", "amm"):
            raise InputError("--controller", ctrl.get("kind"),
                             f"none for the {model.formulation} formulation (it simulates "
                             "the prescribed motion); a closed loop needs a rigid Delta "
                             "(--formulation explicit) or an arm by assumed modes")
        for dest, key in (("kp", "kp"), ("kd", "kd")):
            if given(a, dest):
                ctrl[key] = getattr(a, dest)
        if ctrl.get("kind") != (a.controller or ctrl.get("kind")):
            pass
        if given(a, "kp") and a.controller is not None and "kd" not in ctrl:
            pass
        if a.controller is not None and not given(a, "kp"):
            ctrl.pop("kp", None)
        if a.controller is not None and not given(a, "kd"):
            ctrl.pop("kd", None)
        for name in ("kp", "kd"):
            v = ctrl.get(name)
            if v is not None and not (v > 0 or (name == "kd" and v == 0)):
                raise InputError(f"--{name}", v, "a finite number > 0" if name == "kp"
                                 else "a finite number >= 0")
        if given(a, "gravity_compensation"):
            ctrl["gravity_compensation"] = True
        refuse(a, {"initial": "--initial", "method": "--method", "rayleigh": "--rayleigh"},
               "only for motion-driven simulations of flexible models (not with a "
               "controller)")
        if model.formulation == "amm":
            refuse(a, {"offset": "--offset", "gravity_compensation": "--gravity-compensation"},
                   "only for a rigid Delta")
        step = a.step if a.step is not None else (1e-2 if rigid else 1e-3)
        duration = _duration(a, scen, traj)
        check_window(duration, step, max_time=MAX_TIME[model.formulation],
                     max_samples=MAX_STEPS, name="--periods" if given(a, "periods")
                     else "--duration")
        result = simulate_controlled(model, traj, ctrl, duration=duration, step=step,
                                     initial_offset=a.offset, robot=spec.name,
                                     inputs={"trajectory": tspec},
                                     free_vibration=tspec.get("law") == "hold")
        return emit(a, result)
    refuse(a, {"kp": "--kp", "kd": "--kd", "gravity_compensation": "--gravity-compensation",
               "offset": "--offset"}, "only with --controller (closed loop)")
    step = 1e-3 if a.step is None else a.step
    duration = _duration(a, scen, traj)
    check_window(duration, step, max_time=MAX_TIME[model.formulation], max_samples=MAX_STEPS,
                 name="--periods" if given(a, "periods") else "--duration")
    initial = a.initial or scen.get("initial") or "static"
    result = simulate_motion(model, traj, duration=duration, step=step, initial=initial,
                             method=a.method, robot=spec.name, inputs={"trajectory": tspec},
                             progress=progress_bar(int(duration / step), "simulate",
                                                   minimum=2000))
    return emit(a, result)


def _duration(a, scen, traj) -> float:
    if given(a, "periods"):
        if given(a, "duration"):
            raise InputError("--duration", a.duration, "not with --periods")
        if traj.period is None and not hasattr(traj, "base"):
            raise InputError("--periods", a.periods, "only for a periodic path (a circle)")
        period = traj.period if traj.period is not None else traj.base.period
        if not a.periods > 0:
            raise InputError("--periods", a.periods, "a number > 0")
        return a.periods * period
    if given(a, "duration"):
        return a.duration
    from_scenario = not given(a, "trajectory") or a.trajectory == scen.get(
        "trajectory", {}).get("law")
    if from_scenario and scen.get("periods") and traj.period is not None:
        return scen["periods"] * traj.period
    if from_scenario and scen.get("duration"):
        t = float(scen["duration"])
        end = traj.t_end - traj.t_start
        return t if not np.isfinite(end) or t >= end else end + 0.25
    if traj.period is not None:
        return traj.period
    end = traj.t_end - traj.t_start
    if not np.isfinite(end):
        raise InputError("--duration", None, "a time window [s] for this motion")
    return end + (0.25 if getattr(traj, "space", "task") == "joint" else 0.0)
