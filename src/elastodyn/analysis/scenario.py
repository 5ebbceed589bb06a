"""Trajectories from scenario data (:mod:`elastodyn.description.scenarios`) and command-line
options: one place that turns ``{"law": "circle", "centre": [...], ...}`` into a
:class:`~elastodyn.trajectories.Trajectory`.

Laws: ``circle`` (task space: ``centre`` (2 or 3 values), ``radius``, ``period`` or
``angular_rate``; ``ramp``: start from rest over that many periods), ``inverted-u`` (Kuo
2016 5.4: ``start``, ``travel``, ``times``), ``bang-bang`` and ``rest-to-rest``
(``from``, default the robot's home actuated coordinates, ``to``, ``motion_time``,
``space``), ``hold`` (``at``: constant actuated coordinates), ``table`` (``file``, a CSV
table, ``space``).
"""
from __future__ import annotations

import numpy as np

from ..exceptions import InputError

__all__ = ["build_trajectory", "build_efforts", "LAWS", "EFFORT_LAWS"]

EFFORT_LAWS = ("sine", "pulse")


def build_efforts(spec: dict, n_actuated: int):
    """The effort law of a force-driven scenario (``efforts`` of
    :mod:`elastodyn.description.scenarios`: ``sine`` or ``pulse``), one value per
    actuator."""
    from .. import trajectories as T
    law = spec.get("law")
    if law not in EFFORT_LAWS:
        raise InputError("efforts.law", law, "one of " + ", ".join(EFFORT_LAWS))
    if law == "sine":
        e = T.SineEfforts(spec.get("amplitude"), spec.get("angular_rate", 1.0),
                          spec.get("phase", 0.0))
    else:
        e = T.TrianglePulse(spec.get("peak"), spec.get("peak_time", 0.1),
                            spec.get("end_time", 0.2))
    if e.dim != n_actuated:
        raise InputError("efforts", spec, f"one value per actuator ({n_actuated})")
    return e

LAWS = ("circle", "inverted-u", "bang-bang", "rest-to-rest", "hold", "table")

_FLAGS = {"centre": "--centre", "radius": "--radius", "period": "--period",
          "angular_rate": "--period", "start": "--start", "travel": "--travel",
          "times": "--times", "to": "--to", "from": "--from", "motion_time": "--motion-time",
          "space": "--space", "file": "--file", "ramp": "--ramp", "at": "--at",
          "t0": "--motion-time", "tf": "--motion-time", "phase": "--centre"}


def _renamed(exc: InputError):
    flag = _FLAGS.get(exc.name)
    if flag is None:
        return exc
    value = exc.value.tolist() if isinstance(exc.value, np.ndarray) else exc.value
    return InputError(flag, value, exc.allowed)


def build_trajectory(spec: dict, model=None):
    """The trajectory of ``spec`` (module docstring); ``model`` gives the home actuated
    coordinates of joint-space motions without ``from``."""
    from .. import trajectories as T
    law = spec.get("law")
    if law not in LAWS:
        raise InputError("--trajectory", law, "one of " + ", ".join(LAWS))
    try:
        if law == "circle":
            kw = ({"period": spec["period"]} if spec.get("period") is not None
                  else {"angular_rate": spec.get("angular_rate", 1.0)})
            traj = T.Circle(spec["centre"], spec["radius"], **kw)
            if spec.get("ramp"):
                ramp = float(spec["ramp"])
                if not ramp > 0:
                    raise InputError("ramp", ramp, "a number of periods > 0")
                traj = T.Ramped(traj, ramp)
            return traj
        if law == "inverted-u":
            return T.InvertedU(spec["start"], spec["travel"], times=spec["times"])
        if law == "table":
            return T.TableTrajectory.from_csv(spec["file"], spec.get("space", "joint"))
        space = spec.get("space", "joint")
        if law == "hold":
            at = np.asarray(spec["at"], dtype=float)
            return T.RestToRest(at, at, t0=0.0, tf=1.0, space=space)
        start = spec.get("from")
        if start is None:
            if model is None or space != "joint":
                raise InputError("from", None, "the start of the motion")
            start = model.state().actuated
        end = spec.get("to")
        if end is None:
            raise InputError("to", None, "the end of the motion")
        tf = float(spec.get("motion_time", 1.0))
        cls = T.BangBang if law == "bang-bang" else T.RestToRest
        return cls(np.asarray(start, float), np.asarray(end, float), t0=0.0, tf=tf,
                   space=space)
    except InputError as exc:
        raise _renamed(exc) from None
