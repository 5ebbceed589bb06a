#!/usr/bin/env python3
"""Issue 17 targets: vibration-aware motion design on the Kuo Delta.

    PYTHONPATH=src python benchmarks/motion_design.py                 # everything
    PYTHONPATH=src python benchmarks/motion_design.py --only plan     # pick-and-place
    PYTHONPATH=src python benchmarks/motion_design.py --only compensate

plan: Kuo's inverted U (section 5.4) at the paper's 0.8 s cycle, on Kuo's Delta and on a
stiffer variant (both link sections scaled by ``--stiff-scale``, default 2.5): the time
law designed by ``plan_motion`` (search about the undeformed reference, which is 10x
cheaper per simulation, then the given and designed laws both evaluated again on the
default model, the deflected reference), the ZV/ZVD/EI shapers at the same cycle, and the
shortest cycle time on a grid at which the designed law leaves less than 1 mm with the
simulation inside the model's validity range (no validity warning).

compensate: a slow circle (radius 5 cm about (0, 0, 0.5), period 4 s started from rest
by a one-period septic ramp, two periods simulated) on Kuo's Delta, default model: the
end-effector error |X - X_d| with and without the quasi-static compensation.

Prints Markdown tables (BENCHMARKS.md, issue 17).
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from elastodyn.analysis.motion_design import compensate_motion, plan_motion
from elastodyn.description.files import apply_sets, load_description
from elastodyn.formulations.registry import build_model
from elastodyn.trajectories import Circle, InvertedU, Ramped

warnings.simplefilter("ignore")


def _variant(scale: float):
    spec = load_description("delta-kuo2016")
    if scale == 1.0:
        return spec
    sets = []
    for link in ("upper", "lower"):
        sec = getattr(spec.links, link).section
        for f in ("width", "height", "diameter"):
            v = getattr(sec, f, None)
            if v:
                sets.append(f"links.{link}.section.{f}={v * scale!r}")
    return apply_sets(spec, sets, "benchmark")


def _valid(r, variant):
    """Inside the model's validity: no validity warning on that variant's simulation."""
    return not any(w.startswith(f"{variant}:") for w in r.warnings)


def _plan_rows(name, spec, args):
    """plan_motion on the default deflected model, the search on the undeformed
    reference (``search_model``): every figure is the default model's."""
    search = build_model(spec, "ked", reference="undeformed")
    full = build_model(spec, "ked")
    t0 = time.perf_counter()
    r = plan_motion(full, InvertedU(), coefficients=args.coefficients,
                    evaluations=args.evaluations, step=args.step, search_model=search,
                    search=args.search)
    return r, time.perf_counter() - t0


def _shortest(spec, args):
    """Per cycle time: the given and designed residuals on the default deflected model
    (search about the undeformed reference) and the designed law's validity verdict."""
    search = build_model(spec, "ked", reference="undeformed")
    full = build_model(spec, "ked")
    found = []
    for T in args.cycles:
        r = plan_motion(full, InvertedU(), cycle_time=T, coefficients=args.coefficients,
                        evaluations=args.evaluations, step=args.step, shapers=(),
                        search_model=search, search=args.search)
        v = r.summary["variants"]
        ok = _valid(r, "time-law")
        found.append((T, v["given"]["residual_vibration_m"],
                      v["time-law"]["residual_vibration_m"], ok))
        if v["time-law"]["residual_vibration_m"] < 1e-3 and ok:
            break
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", choices=("plan", "shortest", "compensate"), action="append")
    p.add_argument("--coefficients", type=int, default=8)
    p.add_argument("--evaluations", type=int, default=100)
    p.add_argument("--step", type=float, default=2e-3)
    p.add_argument("--stiff-scale", type=float, default=2.5)
    p.add_argument("--search", choices=("least-squares", "compass"),
                   default="least-squares")
    p.add_argument("--cycles", type=float, nargs="+",
                   default=[0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.4])
    args = p.parse_args()
    only = set(args.only or ("plan", "shortest", "compensate"))
    if "plan" in only:
        print("\nInverted U (Kuo 2016 5.4), cycle 0.8 s, default deflected model (search on "
              f"the undeformed reference, {args.search}, K = {args.coefficients}, "
              f"{args.evaluations} simulations): residual vibration and peak deviation "
              "[mm], peak torque [N m], path error [mm], inside validity\n")
        print("| robot | variant | residual | ratio to given | peak deviation | peak torque "
              "| path error | inside validity |")
        print("|---|---|---|---|---|---|---|---|")
        for name, scale in (("delta-kuo2016", 1.0),
                            (f"stiffer (sections x{args.stiff_scale:g})", args.stiff_scale)):
            r, dt = _plan_rows(name, _variant(scale), args)
            v = r.summary["variants"]
            g = v["given"]["residual_vibration_m"]
            for k, m in v.items():
                pe = m.get("path_error_m")
                print(f"| {name} | {k} | {1e3 * m['residual_vibration_m']:.3g} | "
                      f"{g / m['residual_vibration_m']:.3g}x | "
                      f"{1e3 * m['peak_deviation_m']:.3g} | {max(m['peak_effort']):.3g} | "
                      + (f"{1e3 * pe:.3g}" if pe is not None else "0") + " | "
                      + ("yes" if _valid(r, k) else "no") + " |", flush=True)
            print(f"| {name} | (search from {r.summary['search_start']}, {dt:.0f} s) "
                  "| | | | | | |")
    if "shortest" in only:
        print("\nShortest cycle with the designed law below 1 mm and inside validity "
              "(default deflected model; search about the undeformed reference)\n")
        print("| cycle [s] | residual given [mm] | residual designed [mm] | inside "
              "validity |")
        print("|---|---|---|---|")
        for T, g, d, ok in _shortest(_variant(1.0), args):
            print(f"| {T:g} | {1e3 * g:.3g} | {1e3 * d:.3g} | {'yes' if ok else 'no'} |",
                  flush=True)
    if "compensate" in only:
        spec = load_description("delta-kuo2016")
        circle = Ramped(Circle(np.array([0.0, 0.0, 0.5]), 0.05, period=4.0), 1.0)
        print("\nSlow circle (5 cm, 4 s period, one-period ramp, 8 s simulated), "
              "quasi-static compensation\n")
        print("| model | peak error nominal [mm] | peak error compensated [mm] | ratio | "
              "time |")
        print("|---|---|---|---|---|")
        for ref in ("undeformed", "deflected"):
            m = build_model(spec, "ked", reference=ref)
            t0 = time.perf_counter()
            r = compensate_motion(m, circle, duration=8.0, step=2e-3)
            s = r.summary
            print(f"| {ref} | {1e3 * s['peak_error_nominal_m']:.3g} | "
                  f"{1e3 * s['peak_error_compensated_m']:.3g} | {s['reduction']:.0f}x | "
                  f"{time.perf_counter() - t0:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
