#!/usr/bin/env python3
"""Benchmarks of the FFRF formulation (issue 14). Prints a Markdown table.

    .venv/bin/python benchmarks/ffrf.py

Whole runs as a user starts them from Python (model built, rigid run alongside, as
``elastodyn simulate`` does), wall time by time.perf_counter, one repeat each (the runs
take seconds):

- the 3-PRR's 4 s sinusoidal load case (section 8.2, forces 10, 2, 2 sin 20t) with the
  FEM shape (4 elements per link): the run stops at the singular configuration near
  0.387 s (the mechanism falls under gravity); constant-step generalized-alpha at the
  default step (40 per period of the first elastic mode) and at the Rayleigh-Ritz shape;
- Simeon's slider crank 0-0.1 s at the scenario's step (2e-5 s) and at the default step;
- baseline in the same run: the previous engine, scipy's Radau (rtol 1e-8) on the same
  partitioned equations, on the first 10 ms of the 3-PRR FEM run, scaled to the same
  simulated time.
"""
from __future__ import annotations

import platform
import time

import numpy as np

from elastodyn.analysis.scenario import build_efforts
from elastodyn.analysis.simulate import simulate_efforts
from elastodyn.description.presets import get_preset
from elastodyn.description.scenarios import scenario
from elastodyn.formulations.ffrf.solve import integrate
from elastodyn.formulations.registry import build_model


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    rows = []
    prr = get_preset("3prr-rosyid2020")
    eff = build_efforts(scenario("3prr-rosyid2020", "sine")["efforts"], 3)
    for shape, kw in (("fem", {"elements": 4}), ("rr", {})):
        m = build_model(prr, "ffrf", shape=shape, **kw)
        wall, r = timed(lambda: simulate_efforts(m, eff, duration=4.0))
        rows.append((f"3-PRR sine, {shape}" + (" 4 el." if kw else ""), r.summary["end_time_s"],
                     r.summary["integrator_step_s"], wall))
    # baseline: Radau on the first 10 ms
    m = build_model(prr, "ffrf", shape="fem", elements=4)
    q0 = m.tree.q_home
    sc = m.tree.scale
    T_base = 0.01
    wall_b, _ = timed(lambda: integrate(m.system, q0, np.zeros_like(q0),
                                        np.linspace(0, T_base, 11),
                                        efforts=lambda t: eff(t) * sc, solver="Radau"))
    fem_end, fem_wall = rows[0][1], rows[0][3]
    base_scaled = wall_b * fem_end / T_base
    sc_ = scenario("slider-crank-simeon")
    crank = build_model(get_preset("slider-crank-simeon"), "ffrf", shape="sine")
    for label, step in (("scenario step", sc_["integrator_step"]), ("default step", None)):
        wall, r = timed(lambda: simulate_efforts(crank, drive=[150.0], initial=sc_["initial"],
                                                 duration=0.1, step=step))
        rows.append((f"slider crank 0.1 s, {label}", r.summary["end_time_s"],
                     r.summary["integrator_step_s"], wall))
    print(f"Machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}\n")
    print("| run | simulated [s] | step [s] | wall [s] |")
    print("|---|---|---|---|")
    for name, T, h, w in rows:
        print(f"| {name} | {T:.4g} | {h:.3g} | {w:.2f} |")
    print(f"\nBaseline (scipy Radau, rtol 1e-8, same equations): {wall_b:.1f} s for "
          f"{T_base * 1e3:.0f} ms of the FEM run, {base_scaled:.0f} s scaled to "
          f"{fem_end:.3g} s: generalized-alpha is {base_scaled / fem_wall:.0f}x faster.")


if __name__ == "__main__":
    main()
