"""Command line of elastodyn: one verb per analysis (thin layer over the library).

Machine-readable results go to standard output with ``--json``; messages for people go
to standard error; files go under ``--out``. Bad input ends with exit code 2 and one line
naming the parameter, the value and what is allowed (no traceback).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ._version import __version__
from .exceptions import ElastodynError, InputError


MAX_ELEMENTS = 200
"""Command-line cap on --elements; the library has none. Beyond it, run time grows and
the rotation dofs' stiffness (~h^-4) drives round-off above the lowest eigenvalues."""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # accept negative numbers in exponent form (-1e-3) as values, not options
        self._negative_number_matcher = re.compile(
            r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def error(self, message):  # one line, exit 2 (raised to main)
        raise _UsageError(f"{self.prog}: error: {message}")


def _number(name, kind=float):
    """argparse converter that names the option in its one-line error."""
    what = "a number" if kind is float else "an integer"

    def conv(text):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {name}: got {text!r}; allowed: {what}") from None
    return conv


def _float(name):
    return _number(name, float)


def _int(name):
    return _number(name, int)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="elastodyn",
                description="Elastodynamics of robots with flexible links.")
    p.add_argument("--version", action="version", version=f"elastodyn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    b = sub.add_parser("beam-modes", help="natural frequencies and mode shapes of one beam",
                       description="Natural frequencies and mode shapes of a uniform "
                                   "Euler-Bernoulli beam meshed with finite elements. "
                                   "Defaults: a 0.6 m steel link of 5 mm x 5 mm square "
                                   "section (Kuo 2016 lower link), clamped-free, 8 spatial "
                                   "cubic elements.")
    b.add_argument("--ends", default="clamped-free",
                   help="LEFT-RIGHT end conditions, each clamped, pinned (translations "
                        "fixed, rotations free) or free (default clamped-free)")
    b.add_argument("--length", type=_float("--length"), default=0.6, help="length L [m]")
    g = b.add_argument_group("rectangular section (default 5 mm x 5 mm)")
    g.add_argument("--width", type=_float("--width"), help="width B along y [m]")
    g.add_argument("--height", type=_float("--height"), help="height H along z [m]")
    g2 = b.add_argument_group("general section (instead of --width/--height)")
    g2.add_argument("--area", type=_float("--area"), help="area A [m^2]")
    g2.add_argument("--iy", type=_float("--iy"), help="second moment I_y [m^4] (bending w)")
    g2.add_argument("--iz", type=_float("--iz"), help="second moment I_z [m^4] (bending v)")
    g2.add_argument("--j", type=_float("--j"), help="torsion constant J [m^4]")
    g2.add_argument("--ip", type=_float("--ip"), help="polar moment I_p [m^4] (default I_y + I_z)")
    b.add_argument("--E", dest="E", type=_float("--E"), default=210e9, help="Young's modulus [Pa] (210e9)")
    b.add_argument("--G", dest="G", type=_float("--G"), default=80e9, help="shear modulus [Pa] (80e9)")
    b.add_argument("--rho", type=_float("--rho"), default=7800.0, help="density [kg/m^3] (7800)")
    b.add_argument("--elements", type=_int("--elements"), default=8, help="number of elements (8)")
    b.add_argument("--order", default="cubic",
                   help="cubic (linear axial/torsion, cubic bending; Kuo Table 2) or quintic "
                        "(cubic axial/torsion, quintic bending; Kuo Table 3)")
    kind = b.add_mutually_exclusive_group()
    kind.add_argument("--spatial", dest="planar", action="store_false", default=False,
                      help="spatial element: axial, torsion, two bendings (default)")
    kind.add_argument("--planar", dest="planar", action="store_true",
                      help="planar element: axial and bending in the x-y plane")
    b.add_argument("--count", type=_int("--count"), default=8, help="number of modes (8)")
    b.add_argument("--tip-mass", type=_float("--tip-mass"), default=0.0,
                   help="lumped mass at the right end [kg] (0)")
    b.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    b.add_argument("--out", type=Path, help="folder for modes.json, modes.csv, mode_shapes.png")
    b.set_defaults(func=_cmd_beam_modes)

    t = sub.add_parser("torques", help="actuator torques of a rigid robot along a trajectory",
                       description="Inverse dynamics of a rigid Delta along a trajectory: "
                                   "actuator torques, and with the multiplier formulation "
                                   "(Kuo 2016) the Lagrange multipliers and lower-link "
                                   "tensions. Without trajectory options each preset runs "
                                   "its own paper's circle.")
    _robot_and_trajectory(t)
    t.add_argument("--formulation",
                   help="explicit (Asadi 2020) or multipliers (Kuo 2016); default: the "
                        "preset's paper (multipliers for delta-kuo2016)")
    t.add_argument("--step", type=_float("--step"), default=1e-3, help="sample step [s] (0.001)")
    t.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    t.add_argument("--out", type=Path, help="folder for torques.json, torques.csv, torques.png")
    t.set_defaults(func=_cmd_torques)

    s_ = sub.add_parser("simulate", help="simulation along a trajectory: flexible links "
                                         "(KED) or rigid closed-loop control",
                        description="Without --controller, a robot with flexible links "
                                    "(delta-kuo2016) is simulated by KED (Kuo 2016): the "
                                    "elastic response superposed on the rigid path, Newmark "
                                    "with a constant step (--step, default 0.001 s). With "
                                    "--controller (or for a rigid-only preset): joint-space "
                                    "control of a rigid Delta tracking the trajectory (plant: "
                                    "the explicit model of Asadi 2020); "
                                    "pd: tau = kp e + kd e' [N m/rad, N m s/rad]; "
                                    "computed-torque: joint acceleration qdd_d + kd e' + kp e "
                                    "[1/s^2, 1/s] through the model.")
    _robot_and_trajectory(s_)
    s_.add_argument("--controller", default=None,
                    help="rigid tracking: pd or computed-torque (pd for rigid-only presets)")
    s_.add_argument("--kp", type=_float("--kp"), help="proportional gain (pd 200, computed-torque 400)")
    s_.add_argument("--kd", type=_float("--kd"), help="derivative gain (pd 10, computed-torque 40)")
    s_.add_argument("--gravity-compensation", action="store_true",
                    help="pd: add the model's gravity torque")
    s_.add_argument("--offset", type=_float("--offset"), nargs=3, metavar=("DX", "DY", "DZ"),
                    default=None, help="initial position error [m] (0 0 0)")
    s_.add_argument("--step", type=_float("--step"), default=None,
                    help="output step [s] (rigid 0.01) or Newmark step (KED 0.001)")
    from ._cli_flexible import add_simulate_options, register
    add_simulate_options(s_)
    from ._cli_nepvp import add_tree_simulate_options
    add_tree_simulate_options(s_)
    from ._cli_arm import add_arm_simulate_options
    add_arm_simulate_options(s_)
    s_.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    s_.add_argument("--out", type=Path,
                    help="folder for tracking.json, tracking.csv, tracking.png")
    s_.set_defaults(func=_cmd_simulate)
    register(sub)
    from ._cli_nepvp import register_generate
    register_generate(sub)
    return p


def _robot_and_trajectory(p):
    p.add_argument("robot", metavar="ROBOT", help="preset: delta-kuo2016 (flexible links) or "
                                                 "delta-asadi2020 (rigid)")
    p.add_argument("--trajectory", help="circle or inverted-u (circle) for a Delta; "
                                         "bang-bang for prrrp-briot2013 (simulate)")
    c = p.add_argument_group("circle (default: the preset's paper circle)")
    c.add_argument("--centre", type=_float("--centre"), nargs=3, metavar=("X", "Y", "Z"),
                   help="centre [m] (Kuo: 0 0 0.5; Asadi: 0 0 0.45)")
    c.add_argument("--radius", type=_float("--radius"), help="radius [m] (Kuo 0.1; Asadi 0.25)")
    c.add_argument("--period", type=_float("--period"), help="period [s] (Kuo 1; Asadi 2 pi)")
    u = p.add_argument_group("inverted-u (Kuo 2016 section 5.4)")
    u.add_argument("--start", type=_float("--start"), nargs=3, metavar=("X", "Y", "Z"),
                   help="start point [m] (-0.08 -0.02 0.5)")
    u.add_argument("--travel", type=_float("--travel"), nargs=3, metavar=("DX", "DY", "DZ"),
                   help="travel [m] (0.16 0.04 0.2; Z down: +DZ goes deeper)")
    u.add_argument("--times", type=_float("--times"), nargs=5,
                   metavar=("T0", "T1", "T2", "T3", "TF"), help="set times [s] (0 0.2 0.4 0.6 0.8)")
    p.add_argument("--duration", type=_float("--duration"),
                   help="time window [s] (one period of a circle; the whole inverted-U)")


MAX_SAMPLES = {"torques": 1_000_000, "simulate": 100_000}
"""Command-line caps on the number of output samples (duration / step); the simulation is
also capped at MAX_SIM_TIME seconds of simulated time."""
MAX_SIM_TIME = 1000.0

_OPTION_NAMES = {"radius": "--radius", "period": "--period", "angular_rate": "--period",
                 "centre": "--centre", "times": "--times", "start": "--start",
                 "travel": "--travel", "initial_offset": "--offset", "step": "--step",
                 "duration": "--duration", "t_start": "--times", "kp": "--kp", "kd": "--kd"}


def _with_option_names(func):
    """Re-raise library InputErrors under the command-line option's name, and say which
    part of the run left the workspace."""
    import functools

    import numpy as np

    from .kinematics.delta import SingularConfigurationError, UnreachableError

    @functools.wraps(func)
    def wrapper(a):
        try:
            return func(a)
        except (UnreachableError, SingularConfigurationError) as exc:
            where = getattr(exc, "_cli_context", "trajectory options (the path leaves the "
                                                  "workspace or crosses a singularity)")
            detail = str(exc).replace("invalid X: ", "").split("; allowed")[0]
            err = InputError(where, None, "a path inside the workspace")
            err.args = (f"invalid {where}: {detail}; allowed: a path inside the workspace",)
            raise err from None
        except InputError as exc:
            if exc.name in _OPTION_NAMES:
                value = exc.value.tolist() if isinstance(exc.value, np.ndarray) else exc.value
                raise InputError(_OPTION_NAMES[exc.name], value, exc.allowed) from None
            raise
    return wrapper


def _check_window(a, traj, command):
    """Validate --duration/--step against the caps before any work."""
    if a.step is not None and not (a.step > 0 and a.step < float("inf")):
        raise InputError("--step", a.step, "a finite number > 0")
    duration = a.duration
    if duration is not None and not (0 < duration < float("inf")):
        raise InputError("--duration", duration, "a finite number > 0")
    # the window comes from --duration, else from the trajectory (--period or --times)
    name = ("--duration" if duration is not None
            else "--period" if traj.period is not None else "--times")
    if duration is None:
        duration = traj.period if traj.period is not None else traj.t_end - traj.t_start
    if command == "simulate" and duration > MAX_SIM_TIME:
        raise InputError(name, duration, f"at most {MAX_SIM_TIME:g} s of simulated time")
    if a.step > duration:
        raise InputError("--step", a.step, f"at most the time window ({duration:.6g} s, {name})")
    if duration / a.step > MAX_SAMPLES[command]:
        raise InputError(name, duration, f"at most {MAX_SAMPLES[command]:,} samples of "
                                         f"--step {a.step:g} s (a window of at most "
                                         f"{MAX_SAMPLES[command] * a.step:.6g} s)")


_PAPER_CIRCLES = {"delta-kuo2016": "kuo2016", "delta-asadi2020": "asadi2020"}
_PAPER_FORMULATION = {"delta-kuo2016": "multipliers", "delta-asadi2020": "explicit"}


def _trajectory_from_args(a):
    from .trajectories import Circle, InvertedU
    a.trajectory = a.trajectory or "circle"
    if a.trajectory not in ("circle", "inverted-u"):
        raise InputError("--trajectory", a.trajectory, "one of circle, inverted-u")
    circle_opts = {"--centre": a.centre, "--radius": a.radius, "--period": a.period}
    u_opts = {"--start": a.start, "--travel": a.travel, "--times": a.times}
    wrong = circle_opts if a.trajectory == "inverted-u" else u_opts
    for name, value in wrong.items():
        if value is not None:
            raise InputError(name, value, f"not with --trajectory {a.trajectory}")
    if a.trajectory == "circle":
        paper = getattr(Circle, _PAPER_CIRCLES.get(a.robot, "kuo2016"))()
        kw = {"period": a.period} if a.period is not None else {"angular_rate": paper.angular_rate}
        return Circle(a.centre if a.centre is not None else paper.centre,
                      a.radius if a.radius is not None else paper.radius, **kw)
    d = InvertedU.kuo2016()
    return InvertedU(a.start if a.start is not None else d.start,
                     a.travel if a.travel is not None else d.travel,
                     times=a.times if a.times is not None else d.times)


def _write_csv(path, header, columns):
    import numpy as np
    from .io.atomic import atomic_write_text
    data = np.column_stack(columns)
    lines = [",".join(header)] + [",".join(f"{v:.10g}" for v in row) for row in data]
    atomic_write_text(path, "\n".join(lines) + "\n")


def _delta_preset(name):
    """The description of a Delta preset; other presets end with one clear line."""
    from .description.presets import PRESETS, get_preset
    robot = get_preset(name)
    if not hasattr(robot, "geometry"):
        deltas = [n for n in PRESETS if n.startswith("delta-")]
        raise InputError("ROBOT", name, "a Delta preset for this command: " + ", ".join(deltas))
    return robot


@_with_option_names
def _cmd_torques(a) -> int:
    from .analysis.rigid_delta import inverse_dynamics_along
    from .formulations.rigid_delta import delta_model
    from .io.atomic import atomic_write_text

    robot = _delta_preset(a.robot)
    traj = _trajectory_from_args(a)
    formulation = a.formulation or _PAPER_FORMULATION.get(a.robot, "explicit")
    if formulation not in ("explicit", "multipliers"):
        raise InputError("--formulation", formulation, "one of explicit, multipliers")
    model = delta_model(robot, formulation)
    _check_window(a, traj, "torques")
    prof = inverse_dynamics_along(model, traj, duration=a.duration, step=a.step)
    doc = {"command": "torques", "trajectory": a.trajectory, **prof.to_dict()}
    if a.out is not None:
        from .plot.delta import plot_torques
        atomic_write_text(a.out / "torques.json", json.dumps(doc) + "\n")
        header = ["time_s", "x_m", "y_m", "z_m", "q1_rad", "q2_rad", "q3_rad",
                  "tau1_nm", "tau2_nm", "tau3_nm"]
        cols = [prof.time, prof.position, prof.joint_angle, prof.torque]
        if prof.multipliers is not None:
            header += ["lambda1_n_per_m", "lambda2_n_per_m", "lambda3_n_per_m",
                       "tension1_n", "tension2_n", "tension3_n"]
            cols += [prof.multipliers, prof.lower_link_tension]
        _write_csv(a.out / "torques.csv", header, cols)
        plot_torques(prof, a.out / "torques.png")
    if a.json:
        print(json.dumps(doc))
    else:
        peak = doc["peak_torque_nm"]
        print(f"{robot.name}: {a.trajectory}, {len(prof.time)} samples over "
              f"{prof.time[-1] - prof.time[0]:.4g} s, formulation {formulation}", file=sys.stderr)
        print("  peak |torque| [N m]: " + ", ".join(f"{v:.4g}" for v in peak), file=sys.stderr)
        if prof.lower_link_tension is not None:
            print(f"  lower-link tension [N]: {prof.lower_link_tension.min():.4g} .. "
                  f"{prof.lower_link_tension.max():.4g}", file=sys.stderr)
    if a.out is not None:
        print(f"outputs written to {a.out.resolve()} (torques.json, torques.csv, "
              "torques.png)", file=sys.stderr)
    return 0


@_with_option_names
def _cmd_simulate(a) -> int:
    import numpy as np
    from .analysis.rigid_delta import ComputedTorque, JointPD, sample_times, simulate_tracking
    from .kinematics.delta import SingularConfigurationError, UnreachableError
    from .formulations.rigid_delta import ExplicitDeltaModel
    from .io.atomic import atomic_write_text

    from ._cli_nepvp import cmd_simulate_tree, is_tree_preset, refuse_tree_options
    if is_tree_preset(a.robot):
        return cmd_simulate_tree(a)
    from ._cli_arm import cmd_simulate_arm, is_arm
    if is_arm(a.robot):
        return cmd_simulate_arm(a)
    refuse_tree_options(a)
    if a.free_vibration:
        raise InputError("--free-vibration", True, "only for arm-yu2019")
    robot = _delta_preset(a.robot)
    traj = _trajectory_from_args(a)
    rigid_opts = (a.controller, a.kp, a.kd, a.offset, a.gravity_compensation or None)
    if getattr(robot, "link_section", None) is not None and all(v is None for v in rigid_opts):
        from ._cli_flexible import cmd_simulate_flexible
        return cmd_simulate_flexible(a, traj)
    ked_opts = {"--periods": a.periods, "--method": a.method, "--no-preload": a.no_preload or None,
                "--joint-b": a.joint_b, "--joint-d": a.joint_d}
    for name, value in ked_opts.items():
        if value is not None:
            raise InputError(name, value, "only for the flexible (KED) simulation, "
                                          "without --controller")
    a.controller = a.controller or "pd"
    a.offset = (0.0, 0.0, 0.0) if a.offset is None else a.offset
    a.step = 1e-2 if a.step is None else a.step
    for name, value in (("--kp", a.kp), ("--kd", a.kd)):
        if value is not None and not (value > 0 or (name == "--kd" and value == 0)):
            raise InputError(name, value, "a finite number > 0" if name == "--kp"
                             else "a finite number >= 0")
    if a.controller == "pd":
        ctrl = JointPD(a.kp if a.kp is not None else 200.0, a.kd if a.kd is not None else 10.0,
                       a.gravity_compensation)
    elif a.controller == "computed-torque":
        if a.gravity_compensation:
            raise InputError("--gravity-compensation", True, "only with --controller pd")
        ctrl = ComputedTorque(a.kp if a.kp is not None else 400.0,
                              a.kd if a.kd is not None else 40.0)
    else:
        raise InputError("--controller", a.controller, "one of pd, computed-torque")
    _check_window(a, traj, "simulate")
    if not np.all(np.isfinite(a.offset)):
        raise InputError("--offset", list(a.offset), "finite values [m]")
    plant = ExplicitDeltaModel(robot)
    times = sample_times(traj, duration=a.duration, step=a.step)
    s = traj.evaluate(times)
    plant.kinematics.state(s.position, s.velocity)       # the reference path is valid
    try:
        plant.kinematics.state(s.position[0] + np.asarray(a.offset, float))
    except (UnreachableError, SingularConfigurationError) as exc:
        exc._cli_context = "--offset (the initial pose leaves the workspace)"
        raise
    try:
        res = simulate_tracking(plant, traj, ctrl, duration=a.duration, step=a.step,
                                initial_offset=a.offset)
    except (UnreachableError, SingularConfigurationError) as exc:
        exc._cli_context = ("--kp/--kd (the closed loop left the workspace: unstable or too "
                            "weak control)")
        raise
    doc = {"command": "simulate", "trajectory": a.trajectory, "kp": ctrl.kp, "kd": ctrl.kd,
           **res.to_dict()}
    if a.out is not None:
        from .plot.delta import plot_tracking
        atomic_write_text(a.out / "tracking.json", json.dumps(doc) + "\n")
        header = (["time_s"] + [f"{c}_m" for c in "xyz"] + [f"{c}_ref_m" for c in "xyz"]
                  + [f"e{c}_m" for c in "xyz"] + [f"eq{i}_rad" for i in (1, 2, 3)]
                  + [f"tau{i}_nm" for i in (1, 2, 3)])
        _write_csv(a.out / "tracking.csv", header,
                   [res.time, res.position, res.reference_position, res.position_error,
                    res.joint_error, res.torque])
        plot_tracking(res, a.out / "tracking.png")
    if a.json:
        print(json.dumps(doc))
    else:
        e = np.linalg.norm(res.position_error, axis=1)
        print(f"{robot.name}: {ctrl.name} tracking of the {a.trajectory} over "
              f"{res.time[-1] - res.time[0]:.4g} s (kp = {ctrl.kp:g}, kd = {ctrl.kd:g})",
              file=sys.stderr)
        print(f"  position error: max {e.max() * 1e3:.4g} mm, final {e[-1] * 1e3:.4g} mm; "
              f"peak |torque| {np.abs(res.torque).max():.4g} N m", file=sys.stderr)
    if a.out is not None:
        print(f"outputs written to {a.out.resolve()} (tracking.json, tracking.csv, "
              "tracking.png)", file=sys.stderr)
    return 0


def _section_from_args(a):
    from .description.materials import Section
    rect = a.width is not None or a.height is not None
    general = any(v is not None for v in (a.area, a.iy, a.iz, a.j, a.ip))
    if rect and general:
        raise InputError("section", "both --width/--height and --area/--iy/--iz/--j",
                         "either --width and --height, or --area, --iy, --iz, --j")
    if general:
        missing = [n for n, v in (("--area", a.area), ("--iz", a.iz)) if v is None]
        if not a.planar:
            missing += [n for n, v in (("--iy", a.iy), ("--j", a.j)) if v is None]
        if missing:
            raise InputError(missing[0], None, "a number > 0 (required with --area)")
        iy = a.iy if a.iy is not None else a.iz
        j = a.j if a.j is not None else 2 * a.iz
        return Section(area=a.area, iy=iy, iz=a.iz, j=j, ip=a.ip)
    if a.width is None and a.height is None:
        return Section.rectangle(5e-3, 5e-3)
    if a.width is None or a.height is None:
        name = "--width" if a.width is None else "--height"
        raise InputError(name, None, "a number > 0 (--width and --height go together)")
    return Section.rectangle(a.width, a.height)


def _cmd_beam_modes(a) -> int:
    from .analysis.modal import beam_modes
    from .description.materials import Material
    from .fem.assembly import Link, PointMass
    from .fem.elements import BeamElement
    from .io.atomic import atomic_write_text

    if a.elements > MAX_ELEMENTS:  # a link never needs more; keeps the run interactive
        raise InputError("--elements", a.elements, f"an integer in [1, {MAX_ELEMENTS}]")
    section = _section_from_args(a)
    material = Material(E=a.E, G=a.G, rho=a.rho)
    pms = (PointMass(node=-1, mass=a.tip_mass),) if a.tip_mass else ()
    link = Link(BeamElement(spatial=not a.planar, order=a.order), a.length, a.elements,
                section, material, ends=a.ends, point_masses=pms)
    res = beam_modes(link, count=a.count)
    doc = {"command": "beam-modes", "ends": a.ends, "length_m": a.length,
           "elements": a.elements, "order": a.order,
           "element": "planar" if a.planar else "spatial", **res.to_dict()}
    if a.out is not None:
        from .plot.modes import plot_link_modes
        out = a.out
        atomic_write_text(out / "modes.json", json.dumps(doc, indent=2) + "\n")
        lines = ["mode,omega_rad_s,frequency_hz,kind"] + [
            f"{k + 1},{w:.10g},{f:.10g},{kd}" for k, (w, f, kd) in
            enumerate(zip(res.omega_rad_s, res.frequencies_hz, res.kinds))]
        atomic_write_text(out / "modes.csv", "\n".join(lines) + "\n")
        plot_link_modes(link, res, out / "mode_shapes.png")
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{link.ends} beam, L = {a.length:g} m, {a.elements} "
              f"{doc['element']} {a.order} elements, {res.dof} dof", file=sys.stderr)
        for k, (w, f, kd) in enumerate(zip(res.omega_rad_s, res.frequencies_hz, res.kinds)):
            print(f"  mode {k + 1:2d}: {w:12.5g} rad/s  {f:12.5g} Hz  {kd}", file=sys.stderr)
    if a.out is not None:
        print(f"outputs written to {a.out.resolve()} (modes.json, modes.csv, "
              f"mode_shapes.png)", file=sys.stderr)
    return 0


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"elastodyn: warning: {message}".splitlines()[0], file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``elastodyn`` command; returns the exit code."""
    import warnings
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        # overflow/invalid-value noise of extreme inputs: the checks report the cause
        warnings.simplefilter("ignore", RuntimeWarning)
        return _main(argv)


def _main(argv):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help(sys.stderr)
            return 2
        return args.func(args)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. --out names a file or an unwritable place
        print(f"elastodyn: error: cannot write outputs: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    except (ElastodynError, ValueError, OverflowError) as exc:
        print(f"elastodyn: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
