"""Scenarios of the papers, as data next to the presets: the motions, loads, gains and
set points each paper simulates. A verb run on a preset without trajectory options runs
the preset's default scenario; ``--scenario NAME`` picks another.

A scenario is a mapping with

``trajectory``
    the motion: ``law`` (``circle``, ``inverted-u``, ``bang-bang``, ``rest-to-rest``,
    ``hold``) and its parameters (SI units; ``space``: ``task`` for end-effector
    positions, ``joint`` for actuated coordinates; ``to`` is the end of a rest-to-rest or
    bang-bang motion from the robot's home, ``motion_time`` its duration [s]);
``duration`` or ``periods``
    the simulated time window [s] or number of periods of a periodic path;
``controller``
    for closed-loop simulations: ``kind`` (``pd`` or ``computed-torque``), ``kp``, ``kd``;
``efforts``
    a force-driven load case instead of a motion: ``law`` (``sine``: ``amplitude`` (one
    per actuator) [N or N m] and ``angular_rate`` [rad/s]; ``pulse``: a triangle with
    ``peak`` values, ``peak_time`` and ``end_time`` [s]), efforts along the actuated
    coordinates (forces along +X on the 3-PRR's sliders);
``drive``
    the actuators at constant ``speed`` (one per actuator) [rad/s or m/s] from the home
    pose (Simeon's slider crank), ``initial`` then giving the elastic coordinates and
    rates at the start; ``model``: the model options the scenario is stated for (the
    defaults of the command line's model options on this preset); ``integrator_step``:
    the step [s] the scenario needs (default: 40 per period of the first elastic mode);
``initial``
    the initial state of a flexible model (``static``: the static deflection at the start,
    ``zero``: undeformed).

Every value is a number, a word or a list of numbers: no code.

:data:`PAPER_FORMULATIONS` holds, per preset, the formulation a verb uses by default when
the paper computed it with another model than the robot's default (the Delta papers'
torques: each paper's own rigid inverse dynamics).
"""
from __future__ import annotations

import math

from ..exceptions import InputError

__all__ = ["SCENARIOS", "PAPER_FORMULATIONS", "scenario", "scenario_names",
           "paper_formulation"]

SCENARIOS: dict = {
    "delta-kuo2016": {
        "circle": {  # Kuo 2016 section 5.3 (Figs. 5-11)
            "trajectory": {"law": "circle", "space": "task", "centre": [0.0, 0.0, 0.5],
                           "radius": 0.1, "period": 1.0},
            "periods": 5, "initial": "static"},
        "inverted-u": {  # Kuo 2016 section 5.4 (Figs. 12-16)
            "trajectory": {"law": "inverted-u", "space": "task",
                           "start": [-0.08, -0.02, 0.5], "travel": [0.16, 0.04, 0.2],
                           "times": [0.0, 0.2, 0.4, 0.6, 0.8]},
            "initial": "static"},
    },
    "delta-asadi2020": {
        "circle": {  # Asadi & Heydari 2020, evaluation: x = 0.25 cos t, y = 0.25 sin t
            "trajectory": {"law": "circle", "space": "task", "centre": [0.0, 0.0, 0.45],
                           "radius": 0.25, "angular_rate": 1.0},
            "controller": {"kind": "pd", "kp": 200.0, "kd": 10.0}},
    },
    "prrrp-briot2013": {
        "bang-bang": {  # Briot & Khalil 2013 section V (Fig. 4)
            "trajectory": {"law": "bang-bang", "space": "joint", "to": [0.1, 0.2],
                           "motion_time": 0.75},
            "duration": 1.0, "initial": "static"},
    },
    "3prr-rosyid2020": {
        # Rosyid & El-Khasawneh 2020 section 8.2 (Figs. 8-11), 0-4 s from rest,
        # undeformed. The text prints the sinusoid as 10, 2, 2 sin 20t and the pulse as
        # 10, -2, -2 and loses minus signs elsewhere: "sine" takes the sinusoid as
        # printed (the default), "sine-minus" with the pulse's signs.
        "sine": {"efforts": {"law": "sine", "amplitude": [10.0, 2.0, 2.0],
                             "angular_rate": 20.0}, "duration": 4.0, "initial": "zero"},
        "sine-minus": {"efforts": {"law": "sine", "amplitude": [10.0, -2.0, -2.0],
                                   "angular_rate": 20.0}, "duration": 4.0,
                       "initial": "zero"},
        "pulse": {"efforts": {"law": "pulse", "peak": [10.0, -2.0, -2.0], "peak_time": 0.1,
                              "end_time": 0.2}, "duration": 4.0, "initial": "zero"},
    },
    "slider-crank-simeon": {
        # IVP test set "crank" (Simeon 1996): crank at 150 rad/s, 0-0.1 s, from the test
        # set's consistent initial values (deTestSet ex_crank.R, ini = 1) of the rod's
        # elastic coordinates (w1, w2, u_mid, u_end) [m] and their rates [m/s]
        "drive": {"drive": {"speed": [150.0]}, "duration": 0.1,
                  "initial": {"elastic": [0.0, 0.0, 0.103339863e-4, 0.169327969e-4],
                              "elastic_rates": [0.444896105, 0.463434311e-2,
                                                -0.178591076e-5, -0.268938672e-5]},
                  "model": {"formulation": "ffrf", "shape": "sine", "modes": 2},
                  # 60 steps per period of the second lateral mode (5.1e3 rad/s): the
                  # mid-span deflection at 0.1 s within 3e-4 of the step-converged value
                  "integrator_step": 2e-5},
    },
    "arm-yu2019": {
        "circle": {  # Yu & Chen 2019 case 2 (Figs. 11-14)
            "trajectory": {"law": "circle", "space": "task", "centre": [0.67, 0.34],
                           "radius": 0.1, "angular_rate": 0.2 * math.pi},
            "controller": {"kind": "pd", "kp": 125.0, "kd": 25.0}, "duration": 10.0},
        "free-vibration": {  # Yu & Chen 2019 case 1 (Fig. 10)
            "trajectory": {"law": "hold", "space": "joint",
                           "at": [math.radians(45.0), math.radians(-45.0)]},
            "controller": {"kind": "pd", "kp": 125.0, "kd": 25.0}, "duration": 10.0},
    },
}
"""preset name -> {scenario name -> scenario}; the first scenario is the default."""

PAPER_FORMULATIONS: dict = {
    "delta-kuo2016": {"torques": "multipliers"},   # Kuo 2016 section 2.3 (with the
                                                   # lower-link tensions)
    "delta-asadi2020": {"torques": "explicit"},    # Asadi & Heydari 2020
}
"""preset name -> {verb -> the paper's formulation}: the verb's default for that preset
when ``--formulation`` is not given (else the robot's default formulation)."""


def paper_formulation(preset: str | None, verb: str) -> str | None:
    """The formulation the paper of ``preset`` used for ``verb`` (its default there), or
    None (a description file, or no such entry: the robot's default)."""
    return PAPER_FORMULATIONS.get(preset or "", {}).get(verb)


def scenario_names(preset: str) -> list[str]:
    return list(SCENARIOS.get(preset, {}))


def scenario(preset: str, name: str | None = None) -> dict | None:
    """The scenario ``name`` of ``preset`` (its default when None); None when the robot
    has no scenario (a description file, or ``name`` None for a preset without any)."""
    table = SCENARIOS.get(preset)
    if not table:
        if name is not None:
            raise InputError("--scenario", name, f"none: {preset} has no paper scenario "
                             "(give the trajectory options)")
        return None
    if name is None:
        return next(iter(table.values()))
    if name not in table:
        raise InputError("--scenario", name, "one of " + ", ".join(table))
    return table[name]
