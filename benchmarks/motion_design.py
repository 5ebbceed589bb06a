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

from elastodyn.analysis.motion_design import (PathStatics, compensate_motion,
                                              evaluate_motion, plan_motion)
from elastodyn.description.files import apply_sets, load_description
from elastodyn.formulations.registry import build_model
from elastodyn.trajectories import Circle, InvertedU, Ramped
from elastodyn.trajectories.timelaw import TimeWarped

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


def _plan_rows(name, spec, args):
    search = build_model(spec, "ked", reference="undeformed")
    full = build_model(spec, "ked")
    base = InvertedU()
    rows = []
    t0 = time.perf_counter()
    r = plan_motion(search, base, coefficients=args.coefficients,
                    evaluations=args.evaluations, step=args.step)
    t_search = time.perf_counter() - t0
    v = r.summary["variants"]
    W, T = r.summary["window_s"], r.summary["cycle_time_s"]
    st = PathStatics(full, base)
    out = {}
    for label, c in (("given", np.zeros(args.coefficients)),
                     ("time-law", r.quantities["coefficients"])):
        tw = TimeWarped(base, c, cycle_time=T)
        ev = evaluate_motion(full, tw, window=W, step=args.step, statics=st,
                             base_time=tw.base_time)
        out[label] = ev.metrics
    rows.append((name, "undeformed (search)", v["given"]["residual_vibration_m"],
                 v["time-law"]["residual_vibration_m"], v["given"]["peak_deviation_m"],
                 v["time-law"]["peak_deviation_m"], max(v["given"]["peak_effort"]),
                 max(v["time-law"]["peak_effort"]),
                 "yes" if not v["time-law"].get("warnings") and not any(
                     w.startswith("time-law") for w in r.warnings) else "no",
                 t_search))
    rows.append((name, "deflected (default)", out["given"]["residual_vibration_m"],
                 out["time-law"]["residual_vibration_m"], out["given"]["peak_deviation_m"],
                 out["time-law"]["peak_deviation_m"], max(out["given"]["peak_effort"]),
                 max(out["time-law"]["peak_effort"]),
                 "yes" if not out["time-law"]["warnings"] else "no", None))
    shapers = [(k, v[k]["residual_vibration_m"], v[k]["path_error_m"])
               for k in ("zv", "zvd", "ei") if k in v]
    return rows, shapers


def _shortest(spec, args):
    """Per cycle time: the given and designed residuals about the undeformed reference
    (the search's model) and the designed law evaluated again on the default deflected
    model, with its validity verdict (the undeformed reference always warns that its
    first-order sag error exceeds 5 %: validity is judged on the default model)."""
    search = build_model(spec, "ked", reference="undeformed")
    full = build_model(spec, "ked")
    base = InvertedU()
    st = PathStatics(full, base)
    found = []
    for T in args.cycles:
        r = plan_motion(search, base, cycle_time=T, coefficients=args.coefficients,
                        evaluations=args.evaluations, step=args.step, shapers=())
        v = r.summary["variants"]
        tw = TimeWarped(base, r.quantities["coefficients"], cycle_time=T)
        ev = evaluate_motion(full, tw, window=r.summary["window_s"], step=args.step,
                             statics=st, base_time=tw.base_time)
        valid = not ev.metrics["warnings"]
        found.append((T, v["given"]["residual_vibration_m"],
                      v["time-law"]["residual_vibration_m"],
                      ev.metrics["residual_vibration_m"], valid))
        if ev.metrics["residual_vibration_m"] < 1e-3 and valid:
            break
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", choices=("plan", "shortest", "compensate"), action="append")
    p.add_argument("--coefficients", type=int, default=8)
    p.add_argument("--evaluations", type=int, default=100)
    p.add_argument("--step", type=float, default=2e-3)
    p.add_argument("--stiff-scale", type=float, default=2.5)
    p.add_argument("--cycles", type=float, nargs="+",
                   default=[0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.4])
    args = p.parse_args()
    only = set(args.only or ("plan", "shortest", "compensate"))
    if "plan" in only:
        print("\nInverted U (Kuo 2016 5.4), cycle 0.8 s: residual vibration [mm], given law "
              "-> designed time law (search: undeformed reference; both laws evaluated "
              "again on the default deflected model)\n")
        print("| robot | model | residual given | residual designed | ratio | peak "
              "deviation given -> designed | peak torque given -> designed [N m] | "
              "designed inside validity | search time |")
        print("|---|---|---|---|---|---|---|---|---|")
        shaper_rows = []
        for name, scale in (("delta-kuo2016", 1.0),
                            (f"stiffer (sections x{args.stiff_scale:g})", args.stiff_scale)):
            rows, sh = _plan_rows(name, _variant(scale), args)
            shaper_rows.append((name, sh))
            for r in rows:
                print(f"| {r[0]} | {r[1]} | {1e3 * r[2]:.3g} | {1e3 * r[3]:.3g} | "
                      f"{r[2] / r[3]:.1f}x | {1e3 * r[4]:.3g} -> {1e3 * r[5]:.3g} mm | "
                      f"{r[6]:.3g} -> {r[7]:.3g} | {r[8]} | "
                      + (f"{r[9]:.0f} s |" if r[9] is not None else "- |"), flush=True)
        print("\nShapers at the same cycle (undeformed reference): residual [mm] / path "
              "error [mm]\n")
        print("| robot | ZV | ZVD | EI |\n|---|---|---|---|")
        for name, sh in shaper_rows:
            d = {k: f"{1e3 * a:.3g} / {1e3 * b:.3g}" for k, a, b in sh}
            print(f"| {name} | {d.get('zv', '-')} | {d.get('zvd', '-')} | "
                  f"{d.get('ei', '-')} |")
    if "shortest" in only:
        print("\nShortest cycle with the designed law below 1 mm and inside validity "
              "(search about the undeformed reference; the designed law evaluated again "
              "on the default deflected model, whose validity verdict is given)\n")
        print("| cycle [s] | residual given [mm] | residual designed [mm] | designed, "
              "default model [mm] | inside validity (default model) |")
        print("|---|---|---|---|---|")
        for T, g, d, dd, ok in _shortest(_variant(1.0), args):
            print(f"| {T:g} | {1e3 * g:.3g} | {1e3 * d:.3g} | {1e3 * dd:.3g} | "
                  f"{'yes' if ok else 'no'} |", flush=True)
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
