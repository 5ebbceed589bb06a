"""Trajectory and scenario options shared by ``torques`` and ``simulate``.

A preset brings its paper's scenarios (``elastodyn robots`` lists them); without
``--scenario`` the first is used. ``--trajectory LAW`` replaces the scenario's motion and
the law's options override single parameters; an option of another law is refused.
"""
from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from ..exceptions import InputError, ModelError
from .common import given, input_error, number, old_spelling, pose_dim, refuse

if TYPE_CHECKING:
    import numpy as np

LAW_OPTIONS = {
    "circle": {"centre": "--centre", "radius": "--radius", "period": "--period",
               "ramp": "--ramp"},
    "inverted-u": {"start": "--start", "travel": "--travel", "times": "--times"},
    "bang-bang": {"from_": "--from", "to": "--to", "motion_time": "--motion-time",
                  "space": "--space"},
    "rest-to-rest": {"from_": "--from", "to": "--to", "motion_time": "--motion-time",
                     "space": "--space"},
    "hold": {"at_": "--hold"},
    "table": {"file": "--file", "space": "--space"},
}
"""Options of each law (dest -> flag)."""

INVERTED_U_KUO = {"law": "inverted-u", "space": "task", "start": [-0.08, -0.02, 0.5],
                  "travel": [0.16, 0.04, 0.2], "times": [0.0, 0.2, 0.4, 0.6, 0.8]}
"""Kuo 2016 section 5.4: the default of ``--trajectory inverted-u`` on every Delta."""


def add_motion_options(p):
    p.add_argument("--scenario", help="a paper scenario of the preset (elastodyn robots)")
    p.add_argument("--trajectory",
                   help="circle, inverted-u, bang-bang, rest-to-rest, hold or table "
                        "(default: the scenario's)")
    c = p.add_argument_group("circle (task space)")
    c.add_argument("--centre", type=number("--centre"), nargs="+", metavar="X",
                   help="centre [m]: X Y Z for a Delta (Kuo: 0 0 0.5; Asadi: 0 0 0.45), X Y "
                        "for an arm")
    c.add_argument("--radius", type=number("--radius"), help="radius [m]")
    c.add_argument("--period", type=number("--period"), help="period [s]")
    c.add_argument("--ramp", type=number("--ramp"), metavar="PERIODS",
                   help="start from rest: the speed ramps up over PERIODS periods (septic)")
    u = p.add_argument_group("inverted-u (Kuo 2016 section 5.4)")
    u.add_argument("--start", type=number("--start"), nargs=3, metavar=("X", "Y", "Z"),
                   help="start point [m] (-0.08 -0.02 0.5)")
    u.add_argument("--travel", type=number("--travel"), nargs=3, metavar=("DX", "DY", "DZ"),
                   help="travel [m] (0.16 0.04 0.2; Z down: +DZ goes deeper)")
    u.add_argument("--times", type=number("--times"), nargs=5,
                   metavar=("T0", "T1", "T2", "T3", "TF"), help="set times [s] (0 0.2 0.4 0.6 0.8)")
    r = p.add_argument_group("bang-bang, rest-to-rest (actuated coordinates unless --space "
                             "task)")
    r.add_argument("--from", dest="from_", type=number("--from"), nargs="+", metavar="Q",
                   help="start (default: the robot's home)")
    r.add_argument("--to", type=number("--to"), nargs="+", metavar="Q", help="end")
    r.add_argument("--motion-time", dest="motion_time", type=number("--motion-time"),
                   help="duration of the motion [s]")
    r.add_argument("--space", help="joint (actuated coordinates) or task (end-effector)")
    t = p.add_argument_group("table (a CSV file: time_s, then one column per coordinate; "
                             "optional <name>_dot, <name>_ddot)")
    t.add_argument("--file", help="the CSV table")
    h = p.add_argument_group("hold (the actuated coordinates held still: free vibration)")
    h.add_argument("--hold", dest="at_", type=number("--hold"), nargs="+", metavar="Q",
                   help="the held actuated coordinates [rad or m]")
    p.add_argument("--duration", type=number("--duration"),
                   help="simulated or sampled time window [s] (default: the scenario's, one "
                        "period of a circle, or the whole motion)")
    p.add_argument("--step", type=number("--step"),
                   help="time step of the results [s] (and of fixed-step integrators)")


EFFORT_FLAGS = {"sine": {"amplitude": "--amplitude", "rate": "--rate"},
                "pulse": {"peak": "--peak", "peak_time": "--peak-time",
                          "end_time": "--end-time"}}
"""Options of each effort law of a force-driven run (dest -> flag)."""


def add_effort_options(p):
    """--efforts and its laws' options (``simulate`` and ``sensitivity``)."""
    e = p.add_argument_group("efforts (a force-driven run, instead of the scenario's; "
                             "along the actuated coordinates, from rest)")
    e.add_argument("--efforts", help="sine or pulse")
    e.add_argument("--amplitude", type=number("--amplitude"), nargs="+", metavar="F",
                   help="sine: amplitude per actuator [N or N m]")
    e.add_argument("--rate", type=number("--rate"), help="sine: angular rate [rad/s]")
    e.add_argument("--peak", type=number("--peak"), nargs="+", metavar="F",
                   help="pulse: peak per actuator [N or N m]")
    e.add_argument("--peak-time", dest="peak_time", type=number("--peak-time"),
                   help="pulse: time of the peak [s] (0.1)")
    e.add_argument("--end-time", dest="end_time", type=number("--end-time"),
                   help="pulse: time it is back to zero [s] (0.2)")


def effort_spec(a, scen: dict | None) -> dict:
    """The effort law: --efforts with its options, else the scenario's."""
    law = a.efforts
    if law is None:
        given_opts = {d: f for opts in EFFORT_FLAGS.values() for d, f in opts.items()}
        if scen is None or "efforts" not in scen:
            refuse(a, given_opts, "only with --efforts")
            raise InputError("--efforts", None, "sine or pulse: this robot has no "
                             "force-driven scenario")
        refuse(a, given_opts, "only with --efforts (the scenario's efforts are fixed; "
                              "give --efforts to change them)")
        return dict(scen["efforts"])
    if law not in EFFORT_FLAGS:
        raise InputError("--efforts", law, "sine or pulse")
    for other, opts in EFFORT_FLAGS.items():
        if other != law:
            refuse(a, opts, f"only with --efforts {other}")
    if law == "sine":
        if not given(a, "amplitude") or not given(a, "rate"):
            raise InputError("--amplitude" if not given(a, "amplitude") else "--rate",
                             None, "given with --efforts sine (amplitude per actuator "
                             "[N or N m], angular rate [rad/s])")
        return {"law": "sine", "amplitude": list(a.amplitude), "angular_rate": a.rate}
    if not given(a, "peak"):
        raise InputError("--peak", None, "given with --efforts pulse (peak per actuator)")
    return {"law": "pulse", "peak": list(a.peak),
            "peak_time": a.peak_time if given(a, "peak_time") else 0.1,
            "end_time": a.end_time if given(a, "end_time") else 0.2}


_EFFORT_KEYS = {"amplitude": "--amplitude", "angular_rate": "--rate", "peak": "--peak",
                "peak_time": "--peak-time", "end_time": "--end-time"}


def build_user_efforts(a, espec: dict, n_actuated: int):
    """The effort law of ``espec`` for ``n_actuated`` actuators; its refusals name the
    option the user typed (--amplitude, --rate, --peak, --peak-time, --end-time), not
    the law's keys, where the efforts are the user's (--efforts)."""
    from ..analysis.scenario import build_efforts
    try:
        return build_efforts(espec, n_actuated)
    except InputError as exc:
        if not given(a, "efforts"):
            raise
        law = espec.get("law")
        if exc.name == "efforts":
            key = "amplitude" if law == "sine" else "peak"
            raise InputError(_EFFORT_KEYS[key], espec.get(key),
                             f"one value per actuator ({n_actuated})") from None
        if exc.name == "peak_time" and given(a, "end_time") and not given(a, "peak_time"):
            raise InputError("--end-time", a.end_time, f"a time after --peak-time "
                             f"({espec['peak_time']:g} s, its default)") from None
        if exc.name in _EFFORT_KEYS:
            raise InputError(_EFFORT_KEYS[exc.name], exc.value, exc.allowed) from None
        raise


def preset_of(a) -> str | None:
    from ..description.files import is_file_source
    from ..description.presets import PRESETS
    return a.robot if not is_file_source(a.robot) and a.robot in PRESETS else None


def motion_spec(a, family: str, model=None) -> tuple[dict, dict]:
    """(trajectory spec, scenario) from --scenario, --trajectory and the law options
    (with ``model``: checked against it, :func:`check_spec`)."""
    from ..description.scenarios import scenario
    scen = dict(scenario(preset_of(a), a.scenario) or {}) if preset_of(a) else {}
    if given(a, "scenario") and not preset_of(a):
        raise InputError("--scenario", a.scenario, "a preset's scenario (a description "
                         "file has none: give --trajectory)")
    base = dict(scen.get("trajectory", {}))
    if given(a, "scenario") and given(a, "trajectory") and a.trajectory != base.get("law"):
        if base.get("law") is None:
            raise InputError("--trajectory", a.trajectory, f"no motion with --scenario "
                             f"{a.scenario} (it drives the actuators by efforts or at "
                             "constant speed); leave --scenario out to give a motion")
        raise InputError("--trajectory", a.trajectory, f"the {base.get('law')} of --scenario "
                         f"{a.scenario}, or leave --scenario out to give another motion")
    law = a.trajectory or base.get("law")
    if law is None and given(a, "scenario"):
        # a force-driven scenario (efforts or a drive) has no motion to follow
        raise InputError("--scenario", a.scenario, "a scenario with a motion for this "
                         f"command (--scenario {a.scenario} drives the actuators by "
                         "efforts or at constant speed: simulate runs it), or --trajectory")
    if law is None:
        raise InputError("--trajectory", None, "a motion: circle, inverted-u, bang-bang, "
                         "rest-to-rest or table (this robot has no paper scenario with a "
                         "motion)")
    if law not in LAW_OPTIONS:
        raise InputError("--trajectory", law, "one of " + ", ".join(LAW_OPTIONS))
    if law != base.get("law"):
        base = dict(INVERTED_U_KUO) if law == "inverted-u" else {"law": law}
        if law in ("bang-bang", "rest-to-rest", "table"):
            base["space"] = "joint"
    for other, opts in LAW_OPTIONS.items():
        if other != law:
            refuse(a, {d: f for d, f in opts.items() if d not in LAW_OPTIONS[law]},
                   f"not with --trajectory {law}")
    for dest, flag in LAW_OPTIONS[law].items():
        if given(a, dest):
            key = {"from_": "from", "at_": "at"}.get(dest, dest)
            base[key] = getattr(a, dest)
    from .._validate import physical
    for dest, flag in (("period", "--period"), ("motion_time", "--motion-time")):
        if given(a, dest):
            # a circle's period and a motion's time in a physical range: 1e-300 s
            # overflowed the path's accelerations (an OverflowError traceback)
            physical(flag, getattr(a, dest), "time")
    if model is not None:
        _check_space(a, base, model)
    if law == "hold" and base.get("at") is None:
        raise InputError("--hold", None, "the actuated coordinates to hold (--trajectory "
                         "hold --hold Q...)")
    if law == "table":
        if base.get("file") is None:
            raise InputError("--file", None, "a CSV table (time_s, then one column per "
                             "coordinate)")
        from pathlib import Path
        f = Path(base["file"])
        if not f.is_file() or not os.access(f, os.R_OK):
            raise InputError("--file", str(f), "a readable CSV file" + (
                " (no such file)" if not f.exists() else ""))
    if law == "circle" and given(a, "period"):
        base.pop("angular_rate", None)
    if law == "circle":
        for key, flag in (("centre", "--centre"), ("radius", "--radius")):
            if key not in base:
                raise InputError(flag, None, f"the circle's {key} (this robot has no paper "
                                 "circle)")
        if family == "delta" and len(base["centre"]) != 3:
            raise InputError("--centre", base["centre"], "3 coordinates X Y Z [m]")
        if family == "arm" and len(base["centre"]) != 2:
            raise InputError("--centre", base["centre"], "2 coordinates X Y [m] (a planar "
                             "arm's circle)")
    if law in ("bang-bang", "rest-to-rest") and given(a, "duration") and not (
            given(a, "motion_time") or given(a, "end")):
        # the five-bar's old --duration was the motion's time: say what it means now
        old_spelling(f"--duration is the simulated time window; the {law} motion's own "
                     f"time is --motion-time ({base.get('motion_time', 1.0):g} s here)")
    return base, scen


LAW_FLAGS = {"circle": "--centre/--radius", "inverted-u": "--start/--travel",
             "bang-bang": "--from/--to", "rest-to-rest": "--from/--to", "hold": "--hold",
             "table": "--file"}
"""The options that place each law's path (named when the path leaves the workspace)."""


PLACING = {"circle": (("centre", "--centre"), ("radius", "--radius")),
           "inverted-u": (("start", "--start"), ("travel", "--travel"))}
"""The two options that place a circle or an inverted-U: the first puts a point of the
path (the centre, the start), the second spans the path from it."""


def path_flags(a, tspec, model=None) -> str:
    """The option to name for a path that leaves the workspace. A circle or an
    inverted-U: the one of its two placing options the user gave; both given, the
    first (--centre, --start) when its own point is outside the workspace (with
    ``model``), else the second (--radius, --travel); neither given (the paper
    scenario's path), both. Other laws: their options."""
    law = tspec.get("law")
    if law in ("bang-bang", "rest-to-rest"):
        return "--from" if given(a, "from_") and not given(a, "to") else "--to"
    if law == "hold" and not given(a, "at_"):
        return "--scenario"
    if law in PLACING:
        (k1, f1), (k2, f2) = PLACING[law]
        g1, g2 = given(a, k1), given(a, k2)
        if g1 and not g2:
            return f1
        if g2 and not g1:
            return f2
        if g1 and g2 and model is not None:
            return f1 if not _reachable(model, tspec.get(k1)) else f2
    return LAW_FLAGS.get(law, "--trajectory")


def _reachable(model, point) -> bool:
    """Whether the end-effector position ``point`` is a pose of ``model``."""
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    try:
        p = np.asarray(point, dtype=float)
        if "task_kinematics" in model.capabilities:
            model.kinematics.state(p[None, :], np.zeros((1, p.size)))
        elif "inverse_kinematics" in model.capabilities:
            model.inverse_kinematics(p)
        else:
            model.state(pose=p)
    except (InputError, ModelError):
        return False
    return True


def check_spec(a, tspec, model) -> None:
    """Before building the trajectory: the sizes of its vectors fit the model."""
    law = tspec.get("law")
    space = _space_of(tspec)
    n = model.coordinates.n_actuated
    names = ", ".join(model.coordinates.actuated)
    _check_space(a, tspec, model)
    if space == "task":
        dim = pose_dim(model)
        if law == "inverted-u" and dim != 3:
            raise InputError("--trajectory", law, f"a path of {dim} coordinates (the "
                             "inverted-U is a Delta platform's 3-D path)")
        for key, flag in (("from", "--from"), ("to", "--to"), ("centre", "--centre")):
            v = tspec.get(key)
            if v is not None and dim is not None and len(v) != dim:
                raise InputError(flag, list(v), f"{dim} task coordinates [m]")
        return
    for key, flag in (("from", "--from"), ("to", "--to"), ("at", "--hold")):
        v = tspec.get(key)
        if v is not None and len(v) != n:
            raise InputError(flag, list(v), f"{n} actuated coordinate(s): {names}")


def _space_of(tspec) -> str:
    law = tspec.get("law")
    return tspec.get("space", "joint" if law in ("bang-bang", "rest-to-rest", "hold",
                                                 "table") else "task")


def _check_space(a, tspec, model) -> None:
    """A task-space motion needs a model with an inverse kinematics; a model whose
    registry entry is ``task_space_only`` (a Delta's) follows end-effector paths only."""
    space = _space_of(tspec)
    if space not in ("joint", "task"):
        raise InputError("--space", space, "joint or task")
    from ..formulations.registry import lookup
    entry = lookup(model.formulation)
    if space == "joint" and entry is not None and entry.task_space_only:
        flag = "--space" if given(a, "space") else "--trajectory"
        raise InputError(flag, space if flag == "--space" else tspec.get("law"),
                         f"a path of the end-effector for the {model.formulation} "
                         "model, which follows task-space paths only (circle, inverted-u; "
                         "bang-bang, rest-to-rest or table with --space task)")
    if space == "task" and "inverse_kinematics" not in model.capabilities:
        flag = "--space" if given(a, "space") else "--trajectory"
        raise InputError(flag, space if flag == "--space" else tspec.get("law"),
                         f"a joint-space motion for the {model.formulation} model of this "
                         "robot (bang-bang, rest-to-rest or table, in its actuated "
                         f"coordinates {', '.join(model.coordinates.actuated)}): it has no "
                         "inverse kinematics")


def sample_times(traj, duration: float, step: float, cap: int = 200_001) -> np.ndarray:
    """The output sample times of the window (every ``step``), at most ``cap`` of them
    spread evenly (the path checks)."""
    # here, not at import: elastodyn --help imports no numpy
    from ..timegrid import thin, uniform_times
    return thin(uniform_times(traj.t_start, duration, step, exact=False, step_name="--step",
                              duration_name="--duration"), cap)


def check_path(a, tspec, model, traj, duration: float, step: float) -> None:
    """Before computing: every sample of the prescribed motion is a pose of the robot
    (task space: the inverse kinematics; joint space: the loops close along the path).
    A path that leaves the workspace is bad input (exit 2) naming the options that place
    it (a circle's --centre/--radius, a motion's --to), not a run that fails."""
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    flags = path_flags(a, tspec, model)
    space = traj.space
    if space == "task" and "task_kinematics" in model.capabilities:
        times = sample_times(traj, duration, step)
        s = traj.evaluate(times)
        with path_errors(a, tspec, model):
            # reachability and singularity, all samples at once
            model.kinematics.state(s.position, s.velocity)
        return
    # one call per sample: at most ~1000 of them, evenly along the window
    times = sample_times(traj, duration, step, cap=1001)
    pos = traj.evaluate(times).position
    t_first = times[0]
    if space == "joint" and "close_along" in model.capabilities:
        along = model.close_along
        # the model follows the path itself (each sample from the previous one); only a
        # failing sample is checked again below, for its message
        k = along(pos)
        if k < 0:
            return
        times, pos = times[k:k + 1], pos[k:k + 1]
    for t, p in zip(times, pos):
        try:
            if space == "task":
                model.inverse_kinematics(p)
            else:
                model.state(actuated=p)
        except (InputError, ModelError) as exc:
            if space == "joint" and t == t_first and flags == "--to":
                flags = "--from"
            value = _flag_value(a, flags, tspec)
            raise input_error(flags, value, "a path inside the workspace", (
                f"invalid {flags}: got {value!r}; the {tspec.get('law')} leaves the "
                f"workspace at t = {t:.4g} s ({'pose' if space == 'task' else 'actuated'} "
                f"{np.round(p, 6).tolist()}: {_detail(exc)}); allowed: "
                + ("an end reachable along the straight actuated path from the start"
                   if flags == "--to" else "a path inside the workspace"))) from None


def _detail(exc) -> str:
    """What an error of the model says about a pose, without its option syntax."""
    msg = str(exc)
    name = getattr(exc, "name", None)
    if isinstance(exc, InputError) and msg.startswith(f"invalid {name}: got "):
        return f"not {exc.allowed}"
    return msg.split("; allowed", 1)[0].replace(f"invalid {name}: ", "", 1)


def _flag_value(a, flags, tspec):
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    keys = {"--to": "to", "--from": "from", "--hold": "at", "--file": "file",
            "--scenario": "at"}
    if flags in keys:
        v = tspec.get(keys[flags])
        if isinstance(v, (list, tuple, np.ndarray)):
            return np.round(np.asarray(v, dtype=float), 12).tolist()
        return v
    single = {"--centre": "centre", "--radius": "radius", "--start": "start",
              "--travel": "travel"}
    if flags in single:
        v = tspec.get(single[flags])
        return list(v) if isinstance(v, (list, tuple, np.ndarray)) else v
    if flags == "--centre/--radius":
        return [list(tspec.get("centre", [])), tspec.get("radius")]
    if flags == "--start/--travel":
        return [list(tspec.get("start", [])), list(tspec.get("travel", []))]
    return tspec.get("law")


@contextlib.contextmanager
def path_errors(a, tspec, model=None):
    """Re-raise a kinematic error of the prescribed path (the inverse kinematics of a
    Delta or of an arm: InputError named X, pose or position) under the options that
    place the path. Only for the prescribed motion: a closed loop that leaves the
    workspace is a run that fails (simulate)."""
    try:
        yield
    except InputError as exc:
        if str(exc.name) not in ("X", "pose", "position"):
            raise
        flags = path_flags(a, tspec, model)
        value = _flag_value(a, flags, tspec)
        raise input_error(flags, value, "a path inside the workspace", (
            f"invalid {flags}: got {value!r}; the {tspec.get('law')} leaves the workspace "
            f"or crosses a singularity ({_detail(exc)}); allowed: a path inside the "
            "workspace")) from None


def nominal_period(traj) -> float | None:
    """The period [s] of a periodic path, ramped or not, or None for a motion without
    one. A ramped circle (``trajectories.Ramped``) is not periodic itself (its
    ``period`` is None): its path, and the period counted by ``--periods``, is its
    ``trajectory``."""
    from ..trajectories import Ramped
    if traj.period is not None:
        return float(traj.period)
    if isinstance(traj, Ramped):
        return float(traj.trajectory.period)
    return None


def ramp_time(traj) -> float:
    """The duration [s] of the speed ramp of a ramped path (``--ramp``), else 0."""
    from ..trajectories import Ramped
    return float(traj.ramp_duration) if isinstance(traj, Ramped) else 0.0


def default_window(traj) -> float:
    """The time window of a motion without --duration or a scenario's: one period of a
    periodic path after its ramp (a ramped circle: the ramp, then one period at the
    nominal speed), else the whole motion (infinite for an endless one)."""
    period = nominal_period(traj)
    if period is not None:
        return ramp_time(traj) + period
    return traj.t_end - traj.t_start


def window_flag(a, tspec) -> str:
    """The option that set the time window (named when the window is bad)."""
    for dest, flag in (("periods", "--periods"), ("duration", "--duration"),
                       ("period", "--period"), ("motion_time", "--motion-time"),
                       ("times", "--times")):
        if given(a, dest):
            return flag
    return "--duration"


def forced_window(a, model, scen, *, max_samples: int) -> tuple[float, float]:
    """(duration, output step) [s] of a force-driven run: --duration (else the
    scenario's, else 1 s) and --step (1e-3 s), checked with --integrator-step."""
    from ..formulations.registry import get
    duration = (a.duration if given(a, "duration")
                else float((scen or {}).get("duration", 1.0)))
    out_step = a.step if given(a, "step") else 1e-3
    check_window(duration, out_step, max_time=get(model.formulation).limits.simulate_time,
                 max_samples=max_samples, name="--duration", step_given=given(a, "step"))
    if given(a, "integrator_step") and not (0 < a.integrator_step <= out_step):
        raise InputError("--integrator-step", a.integrator_step,
                         f"a step in (0, --step = {out_step:g}] s")
    return duration, out_step


def check_window(duration, step, *, max_time: float, max_samples: int, name="--duration",
                 step_given: bool = True):
    """The time window ``duration`` (set by option ``name``) and the output ``step``
    [s]: finite, > 0, the window at most ``max_time`` and at most ``max_samples`` steps.
    A conflict between the two names --step when the user gave it (``step_given``),
    else the window's option (the default step is not the user's mistake)."""
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    if not (step > 0 and np.isfinite(step)):
        raise InputError("--step", step, "a finite number > 0 [s]")
    if not (duration > 0 and np.isfinite(duration)):
        raise InputError(name, duration, "a finite number > 0 [s]")
    if duration > max_time:
        raise InputError(name, duration, f"at most {max_time:g} s")
    if step > duration:
        if not step_given:
            raise InputError(name, duration, f"at least the output step ({step:g} s, the "
                             "default of --step)")
        raise InputError("--step", step, f"at most the time window ({duration:.6g} s, "
                         f"set by {name})")
    if duration / step > max_samples:
        if not step_given:
            raise InputError(name, duration, f"at most {max_samples * step:.6g} s "
                             f"({max_samples:,} samples of the default --step {step:g} s)")
        raise InputError("--step", step, f"at least {duration / max_samples:.3g} s "
                         f"(at most {max_samples:,} samples of the {duration:.6g} s window)")
