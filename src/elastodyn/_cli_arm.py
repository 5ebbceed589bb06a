"""Command-line verbs of the planar flexible arms by assumed modes (Yu & Chen 2019):
generate arm / arm-yu2019."""
from __future__ import annotations

import json
import sys
import time

from .exceptions import InputError

MAX_LINKS = 12
"""Command-line cap on the links of a generated arm (N = 10 takes about 0.5 s)."""
MAX_MODES = 8


def is_arm(name: str) -> bool:
    from .description.arm import PlanarArm
    from .description.presets import PRESETS
    return name == "arm" or (name in PRESETS and isinstance(PRESETS[name](), PlanarArm))


def arm_from_args(a):
    """(PlanarArm, symbolic) for ROBOT = arm (N links, parameters as symbols; the numbers
    of arm-yu2019's first link are placeholders) or a preset (its numbers)."""
    from dataclasses import replace

    from .description.arm import BASES, PlanarArm
    from .description.presets import get_preset
    modes = 2 if a.modes is None else a.modes
    if not 1 <= modes <= MAX_MODES:
        raise InputError("--modes", modes, f"an integer in [1, {MAX_MODES}]")
    basis = a.basis or "sine"
    if basis not in BASES:
        raise InputError("--basis", basis, "one of " + ", ".join(BASES))
    if a.robot == "arm":
        n = 2 if a.links is None else a.links
        if not 1 <= n <= MAX_LINKS:
            raise InputError("--links", n, f"an integer in [1, {MAX_LINKS}]")
        link = get_preset("arm-yu2019").links[0]
        arm = PlanarArm("arm", (link,) * n, modes=modes, basis=basis)
        return arm, True
    if a.links is not None:
        raise InputError("--links", a.links, f"only with ROBOT arm ({a.robot} has its own)")
    return replace(get_preset(a.robot), modes=modes, basis=basis), False


def cmd_generate_arm(a) -> int:
    from ._cli_nepvp import emit_generated
    from .formulations.amm_arm import generate_amm
    from .symbolic import print_program
    for name, value in (("--problem", a.problem), ("--elements", a.elements
                                                    if a.elements != 1 else None)):
        if value is not None:
            raise InputError(name, value, "only for prrrp-briot2013 (an arm takes --links, "
                                          "--modes, --basis)")
    arm, symbolic = arm_from_args(a)
    t0 = time.perf_counter()
    prog, _ = generate_amm(arm, symbolic=symbolic)
    text = print_program(prog, a.lang)
    gen_time = time.perf_counter() - t0
    fields = {"formulation": "assumed modes and Lagrange (Yu & Chen 2019)", "links": arm.n,
              "modes": arm.modes, "basis": arm.basis, "symbolic_parameters": symbolic,
              "model_generation_time_s": prog.generation_time_s}
    return emit_generated(a, prog, text, gen_time, fields,
                          f"{a.robot}: {arm.n} link(s), {arm.modes} {arm.basis} mode(s) per "
                          f"link ({'symbolic' if symbolic else 'numeric'} parameters)")


def add_arm_simulate_options(s):
    g = s.add_argument_group("flexible arm (assumed modes, Yu & Chen 2019): arm-yu2019 "
                             "with --trajectory circle --controller pd (Yu 4.2) or "
                             "--free-vibration (Yu 4.1); --kp, --kd, --duration, --step")
    g.add_argument("--free-vibration", action="store_true",
                   help="joints held by the PD at 45, -45 deg and released under gravity")


def cmd_simulate_arm(a) -> int:
    """simulate arm-yu2019: PD tracking of Yu's circle, or the free vibration."""
    from pathlib import Path

    import numpy as np
    from ._cli_nepvp import refuse_simulate_options
    from .analysis.arm import (circle_reference, hold_reference, joint_angles,
                               linearized_closed_loop, simulate_pd, spectrum_peaks)
    from .formulations.amm_model import AMMArmModel
    from .trajectories import Circle
    refuse_simulate_options(a, {"--controller", "--kp", "--kd", "--free-vibration"},
                            "the arm takes --trajectory circle, --controller pd, --kp, --kd, "
                            "--free-vibration, --duration, --step, --out, --json")
    if a.controller not in (None, "pd"):
        raise InputError("--controller", a.controller, "pd (Yu's joint PD)")
    free = a.free_vibration
    if free and a.trajectory is not None:
        raise InputError("--trajectory", a.trajectory, "not with --free-vibration")
    if not free and a.trajectory not in (None, "circle"):
        raise InputError("--trajectory", a.trajectory, f"circle for {a.robot}")
    kp = 125.0 if a.kp is None else a.kp
    kd = 25.0 if a.kd is None else a.kd
    for name, v in (("--kp", kp), ("--kd", kd)):
        if not (v > 0 and v < float("inf")):
            raise InputError(name, v, "a finite gain > 0")
    duration = 10.0 if a.duration is None else a.duration
    if not 0 < duration <= 60.0:
        raise InputError("--duration", duration, "a simulated time in (0, 60] s")
    step = 1e-3 if a.step is None else a.step
    if not 0 < step <= duration / 10:
        raise InputError("--step", step, f"an output step in (0, {duration / 10:g}] s")
    if duration / step > 100_000:
        raise InputError("--step", step, f"at least --duration / 100000 ({duration / 1e5:.3g} s)")
    from .description.presets import get_preset
    model = AMMArmModel(get_preset(a.robot))
    th0 = np.radians([45.0, -45.0])
    circle = Circle.yu2019()
    ref = hold_reference(th0) if free else circle_reference(model, circle)
    t0 = time.perf_counter()
    sim = simulate_pd(model, ref, duration, kp, kd, step=step)
    wall = time.perf_counter() - t0
    vartheta = joint_angles(model, sim.q)
    doc = {"command": "simulate", "robot": a.robot,
           "formulation": "assumed modes and Lagrange (Yu & Chen 2019)",
           "case": "free-vibration" if free else "circle", "controller": "pd", "kp": kp,
           "kd": kd, "duration_s": duration, "step_s": step, "modes": model.s,
           "basis": model.arm.basis, "wall_time_s": wall,
           "time_s": sim.time.tolist(),
           "theta_rad": vartheta.T.tolist(), "theta_ref_rad": sim.theta_ref.T.tolist(),
           "chord_theta_rad": sim.q[:, :model.n].T.tolist(),
           "modal_m": {nm: sim.q[:, k].tolist() for k, nm in enumerate(sim.names)
                       if k >= model.n},
           "tau_nm": sim.tau.T.tolist(),
           "tip_acceleration_m_s2": [sim.tip_acceleration[:, i, :].T.tolist()
                                     for i in range(model.n)],
           "tip_position_m": [sim.tip_position[:, i, :].T.tolist() for i in range(model.n)],
           "max_tracking_error_rad": np.abs(vartheta - sim.theta_ref).max(axis=0).tolist(),
           "peak_tau_nm": np.abs(sim.tau).max(axis=0).tolist()}
    if free:
        qe, lam, w_lin, zeta = linearized_closed_loop(model, th0, kp, kd)
        peaks, f, A = spectrum_peaks(sim.time, sim.tip_acceleration[:, -1, 1])
        # the spectrum of a decaying oscillation peaks at the damped frequency Im(lambda)
        doc["omega_rad_s"] = {"spectrum": peaks.tolist(), "linearized": lam.imag[:2].tolist()}
        doc["damping_ratio_linearized"] = zeta[:2].tolist()
        doc["linearized_natural_rad_s"] = w_lin.tolist()
        doc["spectrum_signal"] = "vertical (y0) acceleration of the tip of link 2"
    out = None if a.out is None else Path(a.out)
    names = []
    if out is not None:
        from .cli import _write_csv
        from .io.atomic import atomic_write_text
        from .plot.arm import plot_arm_simulation
        atomic_write_text(out / "simulation.json", json.dumps(doc) + "\n")
        n = model.n
        header = (["time_s"] + [f"theta{i + 1}_rad" for i in range(n)]
                  + [f"theta{i + 1}_ref_rad" for i in range(n)]
                  + [f"tau{i + 1}_nm" for i in range(n)]
                  + [f"tip{i + 1}_a{c}_m_s2" for i in range(n) for c in "xy"]
                  + [f"{nm}_m" for nm in sim.names[n:]])
        _write_csv(out / "simulation.csv", header,
                   [sim.time, vartheta, sim.theta_ref, sim.tau,
                    sim.tip_acceleration.reshape(len(sim.time), -1), sim.q[:, n:]])
        names = ["simulation.json", "simulation.csv"] + plot_arm_simulation(sim, vartheta, out,
                                                                           doc)
    if a.json:
        print(json.dumps(doc))
    else:
        e = doc["max_tracking_error_rad"]
        print(f"{a.robot}: {doc['case']} with joint PD (kp = {kp:g}, kd = {kd:g}) over "
              f"{duration:g} s ({wall:.3g} s)", file=sys.stderr)
        print("  largest joint error [deg]: " + ", ".join(f"{np.degrees(v):.3g}" for v in e)
              + "; peak torque [N m]: " + ", ".join(f"{v:.3g}" for v in doc["peak_tau_nm"]),
              file=sys.stderr)
        if free:
            om = doc["omega_rad_s"]
            print("  first two frequencies [rad/s]: spectrum " + ", ".join(
                f"{v:.4g}" for v in om["spectrum"]) + "; linearized loop " + ", ".join(
                f"{v:.4g}" for v in om["linearized"]), file=sys.stderr)
    if out is not None:
        print(f"outputs written to {out.resolve()} ({', '.join(names)})", file=sys.stderr)
    return 0
