"""``elastodyn simulate ROBOT``: time simulation along a motion: motion-driven (the
elastic response of a flexible robot to its actuated motion) or under a joint-space
controller (a rigid Delta, an arm)."""
from __future__ import annotations

import contextlib

from ..exceptions import InputError, ModelError
from .common import (add_model_options, add_output, add_robot, build, check_out, emit,
                     given, input_error, load_robot, number, old_spelling, progress_bar,
                     refuse)
from .motion import (EFFORT_FLAGS, add_effort_options, add_motion_options, check_window,
                     default_window, effort_spec, forced_window, motion_spec,
                     nominal_period)

MAX_STEPS = 200_000
"""Most output samples of a simulation (the longest window is the formulation's:
``registry.Limits.simulate_time``)."""


def register(sub):
    s = sub.add_parser("simulate", help="simulation along a motion (flexible links, or a "
                                        "rigid robot under control)",
                       description="Motion-driven (the default for flexible formulations: "
                                   "the actuators follow the motion, the links respond; KED "
                                   "for a flexible Delta, NE-PVP for tree robots) or "
                                   "closed-loop (--controller pd or computed-torque: a "
                                   "rigid Delta, an arm by assumed modes, or a robot of "
                                   "geometrically exact beams tracks the motion). A preset runs its paper's scenario unless "
                                   "told otherwise.")
    add_robot(s)
    add_motion_options(s)
    s.add_argument("--periods", type=number("--periods"),
                   help="circle: number of periods simulated (instead of --duration)")
    s.add_argument("--initial", help="flexible: static (the static deflection at the "
                                     "start) or zero (undeformed) (static); force-driven "
                                     "(--efforts): zero (at rest, undeformed, unheld; "
                                     "default) or static (at rest in the static "
                                     "equilibrium, held: the efforts add to the holding "
                                     "ones; exact)")
    s.add_argument("--method", help="integrator: ked newmark (constant step, Kuo) or radau; "
                                    "nepvp auto (default: rk4 on 1-element beams, "
                                    "generalized-alpha on finer meshes), "
                                    "generalized-alpha (implicit, compiled), rk4 "
                                    "(compiled) or dop853; motion-driven ffrf "
                                    "generalized-alpha, dop853 or radau; exact "
                                    "generalized-alpha (motion- and force-driven); "
                                    "others dop853 or radau; "
                                    "force-driven ffrf: partitioning (the paper's "
                                    "coordinate partitioning) or projection (index-3 "
                                    "generalized-alpha with velocity projection)")
    s.add_argument("--integrator-step", dest="integrator_step",
                   type=number("--integrator-step"),
                   help="force-driven ffrf and exact: the generalized-alpha step [s] "
                        "(default: 1/40 of the first elastic period with locked "
                        "actuators); motion-driven exact: the same, at most --step, "
                        "halved while its error estimate is above 5 %% when not given; "
                        "nepvp: the step bound of generalized-alpha (default 5e-5 s) or "
                        "rk4 (default: min(1e-4 s, 1/omega_max))")
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
    add_effort_options(s)
    add_model_options(s, rayleigh=True)
    add_output(s)
    s.set_defaults(func="simulate")


def _old_spellings(a):
    if given(a, "free_vibration"):
        if given(a, "scenario"):
            raise InputError("--free-vibration", True, "not with --scenario")
        old_spelling("--free-vibration is now --scenario free-vibration")
        a.scenario = "free-vibration"
        a.free_vibration = None
    if given(a, "end"):
        # old five-bar spelling: --end was the window, --duration the bang-bang's time
        if given(a, "duration"):
            if given(a, "motion_time"):
                raise InputError("--duration", a.duration, "not with both --end and "
                                 "--motion-time")
            a.motion_time = a.duration
            old_spelling("--end is now --duration, and the bang-bang's --duration is now "
                         "--motion-time")
        else:
            old_spelling("--end is now --duration")
        a.duration = a.end


CONTROLLERS = ("pd", "computed-torque", "none")
LOOP_OPTIONS = {"controller": "--controller", "kp": "--kp", "kd": "--kd",
                "gravity_compensation": "--gravity-compensation", "offset": "--offset"}


def _controller(a, model, spec, tspec, scen) -> dict:
    """The controller of the run ({} for a motion-driven simulation). Closed-loop
    options on a formulation without a closed-loop engine are refused, never a reason to
    switch to another model."""
    if given(a, "controller") and a.controller not in CONTROLLERS:
        raise InputError("--controller", a.controller, "one of " + ", ".join(CONTROLLERS))
    from ..formulations.registry import formulations_for, get
    asked = [d for d in LOOP_OPTIONS if given(a, d) and not (
        d == "controller" and a.controller == "none")]
    form = model.formulation
    entry = get(form)
    if not entry.closed_loop:
        if asked:
            closed = [f for f in formulations_for(spec) if get(f).closed_loop]
            hint = (f"add --formulation {closed[0]} for the "
                    f"{'rigid ' if get(closed[0]).rigid else ''}{spec.family} robot under "
                    "joint control" if closed else
                    "no formulation of this robot has a closed-loop engine")
            d = asked[0]
            value = getattr(a, d)
            raise InputError(LOOP_OPTIONS[d], value if value is not True else "given",
                             f"only for a closed loop; the {form} formulation simulates "
                             f"the prescribed motion ({hint})")
        return {}
    scen_motion = not given(a, "trajectory") or tspec.get("law") == scen.get(
        "trajectory", {}).get("law")
    ctrl = dict(scen.get("controller") or {}) if scen_motion else {}
    rigid = entry.rigid
    if given(a, "controller"):
        if a.controller == "none":
            if rigid:
                raise InputError("--controller", "none", "pd or computed-torque for a rigid "
                                 "Delta (a rigid model has no motion-driven simulation)")
            refuse(a, {d: f for d, f in LOOP_OPTIONS.items() if d != "controller"},
                   "not with --controller none (motion-driven)")
            return {}
        if ctrl.get("kind") != a.controller:
            ctrl = {"kind": a.controller}   # the analysis's default gains of that law
    if not ctrl:
        if rigid:
            ctrl = {"kind": "pd"}
        elif asked:
            d = asked[0]
            value = getattr(a, d)
            raise InputError(LOOP_OPTIONS[d], value if value is not True else "given",
                             "only with --controller pd (this motion is simulated "
                             "motion-driven without it)")
        else:
            return {}
    for name in ("kp", "kd"):
        if given(a, name):
            ctrl[name] = getattr(a, name)
    for name in ("kp", "kd"):
        v = ctrl.get(name)
        if v is not None and not (v > 0 or (name == "kd" and v == 0)):
            raise InputError(f"--{name}", v, "a finite number > 0" if name == "kp"
                             else "a finite number >= 0")
    if given(a, "gravity_compensation"):
        if ctrl.get("kind") != "pd":
            raise InputError("--gravity-compensation", True, "only with --controller pd")
        ctrl["gravity_compensation"] = True
    refuse(a, {"initial": "--initial", "method": "--method", "rayleigh": "--rayleigh"},
           "only for motion-driven simulations of flexible models (not with a "
           "controller)")
    if not rigid:
        refuse(a, {"offset": "--offset", "gravity_compensation": "--gravity-compensation"},
               "only for a rigid Delta")
    return ctrl


def run(a) -> int:
    from ..analysis.scenario import build_trajectory
    from ..analysis.simulate import simulate_controlled, simulate_motion
    from ..formulations.registry import get
    from .motion import check_path, check_spec, path_errors, window_flag
    check_out(a)
    _old_spellings(a)
    spec = load_robot(a)
    forced = _user_efforts(a) if given(a, "efforts") else _forced_scenario(a)
    if not given(a, "efforts"):
        refuse(a, {d: f for opts in EFFORT_FLAGS.values() for d, f in opts.items()},
               "only with --efforts (a force-driven run)")
    if forced is not None:
        smodel = forced.get("model", {})
        other = given(a, "formulation") and a.formulation != smodel.get("formulation",
                                                                         a.formulation)
        # the scenario's model, unless told otherwise: another formulation, or any of
        # the scenario's model options given (Simeon's sine modes with --shape fem),
        # takes none of its options, which belong to the scenario's own model
        mine = any(given(a, key) for key in smodel if key != "formulation")
        if other:
            taken = {}
        elif mine:
            taken = {k: v for k, v in smodel.items() if k == "formulation"}
        else:
            taken = smodel
        for key, value in taken.items():
            if not given(a, key):
                setattr(a, key, value)
        return _run_forced(a, spec, build(a, spec), forced)
    model = build(a, spec)
    tspec, scen = motion_spec(a, spec.family, model)
    ctrl = _controller(a, model, spec, tspec, scen)
    if ctrl:    # a motion-driven engine refuses a step bound it has none of, by itself
        refuse(a, {"integrator_step": "--integrator-step"}, "only for a motion-driven "
               "run (an engine with a step bound) or a force-driven scenario")
    if not ctrl:
        refuse(a, {d: f for d, f in LOOP_OPTIONS.items() if d != "controller"},
               "only with --controller (closed loop)")
    check_spec(a, tspec, model)
    traj = build_trajectory(tspec, model)
    entry = get(model.formulation)
    rigid = entry.rigid
    max_time = entry.limits.simulate_time
    wname = window_flag(a, tspec)
    if ctrl:
        refuse(a, {"integrator_step": "--integrator-step"}, "not with --controller")
        step = a.step if a.step is not None else (1e-2 if rigid else 1e-3)
        duration = _duration(a, scen, traj)
        check_window(duration, step, max_time=max_time,
                     max_samples=MAX_STEPS, name=wname, step_given=given(a, "step"))
        if tspec.get("law") != "hold":
            check_path(a, tspec, model, traj, duration, step)
        if given(a, "offset"):
            _check_offset(a, model, traj)
        try:
            with path_errors(a, tspec, model) if not rigid else _nothing():
                result = simulate_controlled(model, traj, ctrl, duration=duration,
                                             step=step, initial_offset=a.offset,
                                             robot=spec.name, inputs={"trajectory": tspec},
                                             free_vibration=tspec.get("law") == "hold",
                                             progress=progress_bar(
                                                 int(round(duration / step)), "simulate",
                                                 minimum=2000))
        except InputError as exc:
            if rigid and str(exc.name) == "X":
                # the reference path and the initial pose were checked: the plant left
                # the workspace under control
                raise ModelError("the closed loop left the workspace (unstable or too "
                                 "weak control: check --kp/--kd): " + str(exc).split(
                                     "; allowed", 1)[0].replace("invalid X: ", "")) from None
            raise
        return emit(a, result)
    step = 1e-3 if a.step is None else a.step
    duration = _duration(a, scen, traj)
    check_window(duration, step, max_time=max_time, max_samples=MAX_STEPS,
                 name=wname, step_given=given(a, "step"))
    check_path(a, tspec, model, traj, duration, step)
    # a motion scenario's initial state (static or zero); a drive scenario's (its elastic
    # state, a mapping) is not the user's motion's
    own = scen.get("initial")
    initial = a.initial or (own if isinstance(own, str) else None) or "static"
    with path_errors(a, tspec, model):
        result = simulate_motion(model, traj, duration=duration, step=step, initial=initial,
                                 method=a.method, robot=spec.name,
                                 integrator_step=a.integrator_step,
                                 inputs={"trajectory": tspec},
                                 progress=progress_bar(int(duration / step), "simulate",
                                                       minimum=2000))
    return emit(a, result)


def _forced_scenario(a):
    """The preset's force-driven scenario (one with ``efforts``) that this run asks for,
    or None."""
    from ..description.scenarios import scenario
    from .motion import preset_of
    name = preset_of(a)
    if not name or given(a, "trajectory"):
        return None
    scen = scenario(name, a.scenario)
    return scen if scen and ("efforts" in scen or "drive" in scen) else None


def _user_efforts(a) -> dict:
    """A force-driven run under --efforts: the preset's force-driven scenario (its model,
    window) with the user's efforts, or the efforts alone (from rest at home, 1 s)."""
    refuse(a, {"trajectory": "--trajectory"}, "not with --efforts (efforts drive the "
                                              "actuators: no motion is prescribed)")
    scen = _forced_scenario(a)
    if scen is None and given(a, "scenario"):
        from ..description.scenarios import scenario
        from .motion import preset_of
        if preset_of(a) is None:
            raise InputError("--scenario", a.scenario, "none for a robot of a file (only "
                                                       "presets have scenarios)")
        scenario(preset_of(a), a.scenario)          # names an unknown scenario
        raise InputError("--scenario", a.scenario, "a force-driven scenario of the preset "
                                                   "(efforts or a drive), or none, with "
                                                   "--efforts")
    out = {k: v for k, v in (scen or {}).items() if k not in ("efforts", "drive", "initial")}
    out["efforts"] = effort_spec(a, None)
    return out


def _run_forced(a, spec, model, scen) -> int:
    from ..analysis.simulate import simulate_efforts
    from .motion import LAW_OPTIONS, build_user_efforts
    what = ("--efforts" if given(a, "efforts") else
            f"the force-driven scenario {a.scenario or 'default'}")
    for opts in LAW_OPTIONS.values():
        refuse(a, opts, f"not with {what} (efforts drive the actuators, no motion is "
                        "prescribed)")
    refuse(a, {**LOOP_OPTIONS, "periods": "--periods"}, f"not with {what}")
    if given(a, "initial") and "drive" in scen:
        raise InputError("--initial", a.initial, "no --initial with a driven scenario (its "
                         "initial elastic state is the scenario's)")
    if given(a, "initial") and a.initial not in ("zero", "static"):
        raise InputError("--initial", a.initial, "zero (at rest, undeformed, unheld: the "
                         "paper's start) or static (at rest in the static equilibrium, "
                         "held: the efforts add to the holding ones) for a force-driven "
                         "run")
    hold = given(a, "initial") and a.initial == "static"
    from ..formulations.registry import formulations_for, get
    # the reference formulations (geometrically exact) run every family force-driven
    refs = " or ".join(f for f in formulations_for(spec) if get(f).reference) or "none"
    if "simulate_efforts" not in model.capabilities:
        raise InputError("--formulation", model.formulation, f"a formulation with force-"
                         f"driven runs for this {spec.family} robot (the reference: "
                         f"{refs}); {model.formulation} runs it motion-driven or under "
                         "control only")
    if hold and "held_start" not in model.capabilities:
        raise InputError("--initial", "static", f"zero with --formulation "
                         f"{model.formulation} (its force-driven runs start undeformed; "
                         f"the reference, {refs}, starts held at the static equilibrium)")
    efforts = (build_user_efforts(a, scen["efforts"], model.n_actuated) if "efforts" in scen
               else None)
    duration, out_step = forced_window(a, model, scen, max_samples=MAX_STEPS)
    method = a.method or model.force_methods[0]
    # the scenario's initial elastic state and integrator step are those of its own
    # model (Simeon's sine modes): another formulation starts undeformed, moving with
    # the rigid robot, at its own default step
    smodel = scen.get("model", {})
    own = (smodel.get("formulation", model.formulation) == model.formulation
           and all(model.options.get(k) == v for k, v in smodel.items()
                   if k != "formulation"))
    initial = scen.get("initial") if own else None
    load = ({"efforts": dict(scen["efforts"])} if efforts is not None else
            {"drive": dict(scen["drive"]), "initial": dict(initial or {})})
    result = simulate_efforts(model, efforts,
                              drive=None if efforts else scen["drive"]["speed"],
                              initial=None if efforts else initial,
                              duration=duration, output_step=out_step,
                              step=(a.integrator_step if given(a, "integrator_step")
                                    else scen.get("integrator_step") if own else None),
                              method=method, robot=spec.name,
                              inputs={**load, "scenario": (a.scenario if given(a, "efforts")
                                                           else a.scenario or "default")},
                              progress=_time_bar(duration, out_step), hold=hold)
    return emit(a, result)


def _time_bar(duration, out_step):
    """A progress bar in output steps fed with the integrator's (t, T) [s]."""
    n = int(round(duration / out_step))
    bar = progress_bar(n, "simulate", minimum=200)
    if bar is None:
        return None
    return lambda t, T: bar(min(n, int(n * t / T)))


@contextlib.contextmanager
def _nothing():
    yield


def _check_offset(a, model, traj):
    """The initial pose (the path's start moved by --offset) is inside the workspace."""
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    off = np.asarray(a.offset, dtype=float)
    if not np.all(np.isfinite(off)):
        raise InputError("--offset", list(a.offset), "finite values [m]")
    p0 = traj.evaluate(np.array([traj.t_start])).position[0] + off
    try:
        model.state(pose=p0)
    except (InputError, ModelError) as exc:
        detail = str(exc).split("; allowed", 1)[0].replace("invalid X: ", "")
        raise input_error("--offset", list(a.offset), "an initial pose inside the workspace",
                          f"invalid --offset: got {list(a.offset)!r}; the initial pose "
                          f"leaves the workspace ({detail}); allowed: an initial pose "
                          "inside the workspace") from None


def _duration(a, scen, traj) -> float:
    """The simulated window: --periods (periods of a circle's nominal period, a ramp's
    periods included: --ramp 1 --periods 4 is the ramp and three periods at speed),
    --duration, the scenario's (its periods count the ramp too), one period of a circle
    (after its ramp), or the whole motion (0.25 s more after a joint-space one)."""
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    period = nominal_period(traj)
    if given(a, "periods"):
        if given(a, "duration"):
            raise InputError("--duration", a.duration, "not with --periods")
        if period is None:
            raise InputError("--periods", a.periods, "only for a periodic path (a circle, "
                             "ramped or not)")
        if not a.periods > 0:
            raise InputError("--periods", a.periods, "a number > 0")
        return a.periods * period
    if given(a, "duration"):
        return a.duration
    from_scenario = not given(a, "trajectory") or a.trajectory == scen.get(
        "trajectory", {}).get("law")
    if from_scenario and scen.get("periods") and period is not None:
        return scen["periods"] * period
    if from_scenario and scen.get("duration"):
        t = float(scen["duration"])
        end = traj.t_end - traj.t_start
        return t if not np.isfinite(end) or t >= end else end + 0.25
    if period is not None:
        return default_window(traj)
    end = traj.t_end - traj.t_start
    if not np.isfinite(end):
        raise InputError("--duration", None, "a time window [s] for this motion")
    return end + (0.25 if getattr(traj, "space", "task") == "joint" else 0.0)
