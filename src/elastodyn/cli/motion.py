"""Trajectory and scenario options shared by ``torques`` and ``simulate``.

A preset brings its paper's scenarios (``elastodyn robots`` lists them); without
``--scenario`` the first is used. ``--trajectory LAW`` replaces the scenario's motion and
the law's options override single parameters; an option of another law is refused.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from .common import given, number, refuse

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
                   help="circle, inverted-u, bang-bang, rest-to-rest or table (default: "
                        "the scenario's)")
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
    p.add_argument("--hold", dest="at_", type=number("--hold"), nargs="+", metavar="Q",
                   help=__import__("argparse").SUPPRESS)
    p.add_argument("--duration", type=number("--duration"),
                   help="simulated or sampled time window [s] (default: the scenario's, one "
                        "period of a circle, or the whole motion)")
    p.add_argument("--step", type=number("--step"),
                   help="time step of the results [s] (and of fixed-step integrators)")


def preset_of(a) -> str | None:
    from ..description.files import is_file_source
    from ..description.presets import PRESETS
    return a.robot if not is_file_source(a.robot) and a.robot in PRESETS else None


def motion_spec(a, family: str) -> tuple[dict, dict]:
    """(trajectory spec, scenario) from --scenario, --trajectory and the law options."""
    from ..description.scenarios import scenario
    scen = dict(scenario(preset_of(a), a.scenario) or {}) if preset_of(a) else {}
    if given(a, "scenario") and not preset_of(a):
        raise InputError("--scenario", a.scenario, "a preset's scenario (a description "
                         "file has none: give --trajectory)")
    base = dict(scen.get("trajectory", {}))
    law = a.trajectory or base.get("law")
    if law is None:
        raise InputError("--trajectory", None, "a motion: circle, inverted-u, bang-bang, "
                         "rest-to-rest or table (this robot has no paper scenario)")
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
    if law == "circle" and given(a, "period"):
        base.pop("angular_rate", None)
    if law == "circle":
        for key, flag in (("centre", "--centre"), ("radius", "--radius")):
            if key not in base:
                raise InputError(flag, None, f"the circle's {key} (this robot has no paper "
                                 "circle)")
        if family == "delta" and len(base["centre"]) != 3:
            raise InputError("--centre", base["centre"], "3 coordinates X Y Z [m]")
    return base, scen


def check_window(duration, step, *, max_time: float, max_samples: int, name="--duration"):
    if not (step > 0 and np.isfinite(step)):
        raise InputError("--step", step, "a finite number > 0 [s]")
    if not (duration > 0 and np.isfinite(duration)):
        raise InputError(name, duration, "a finite number > 0 [s]")
    if duration > max_time:
        raise InputError(name, duration, f"at most {max_time:g} s")
    if step > duration:
        raise InputError("--step", step, f"at most the time window ({duration:.6g} s)")
    if duration / step > max_samples:
        raise InputError("--step", step, f"at least {duration / max_samples:.3g} s "
                         f"(at most {max_samples:,} samples of the {duration:.6g} s window)")
