#!/usr/bin/env python3
"""Speed of the geometrically exact formulation on the Delta (issue 31, item 4): Kuo's
pick-and-place (the inverted U, 0.8 s motion, simulated for ``--duration`` s, default
1.2: the issue's case) at ``--elements`` per link, against KED about its deflected
reference on the same run in the same process (the ratio is the figure; a shared 2-core
machine is noisy). Prints a Markdown table for BENCHMARKS.md.

    python benchmarks/exact_speed.py                      # 4 elements, output step 5 ms
    python benchmarks/exact_speed.py --elements 1 4 --step 0.005

Figures (wall clock, time.perf_counter, one run each):

* one evaluation of the equations (full: mass, bias, tangent, gyroscopic tangent;
  residual: mass and bias) at the start pose, median of 20;
* the run: static deflection, generalized-alpha, efforts (the model's
  ``simulate_motion`` without its step error estimate, like KED's run);
* the peak end-effector deviation from the rigid robot of both models.

* the command line's run (``analysis.simulate.simulate_motion``) with its step error
  estimate (a run at twice the step; a default step halved while the estimate is above
  5 % of the peak deviation, or when the run at twice the step fails).

Exudyn side by side: ``benchmarks/peers.py --only delta-run``.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import statistics
import time
import warnings

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--elements", type=int, nargs="+", default=[4])
    p.add_argument("--duration", type=float, default=1.2)
    p.add_argument("--step", type=float, default=5e-3)
    a = p.parse_args()
    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    from elastodyn.timegrid import uniform_times
    from elastodyn.trajectories import InvertedU
    desc = load_description("delta-kuo2016", [])
    tr = InvertedU()
    print(f"Kuo's pick-and-place, {a.duration} s simulated, output step {a.step} s\n")
    print("| elements/link | exact dof | full eval [ms] | residual eval [ms] | exact run [s] "
          "| KED run [s] | ratio | peak deviation exact / KED [mm] | command line's run with "
          "its step error estimate [s] (step, estimate) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in a.elements:
        ex = build_model(desc, "exact", elements=n)
        st = ex.state(pose=(-0.08, -0.02, 0.5))
        st = ex.at(st, v=np.full(ex.n, 0.1))
        ev = {}
        for full in (True, False):
            ts = []
            for _ in range(20):
                t0 = time.perf_counter()
                ex._evaluate(st.q, st.v, full=full)
                ts.append(time.perf_counter() - t0)
            ev[full] = 1e3 * statistics.median(ts)
        runs, peak = {}, {}
        times = uniform_times(tr.t_start, a.duration, a.step)
        for form, opts in (("exact", {}), ("ked", {"reference": "deflected"})):
            m = build_model(desc, form, elements=n, **opts)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if form == "exact":
                    # the run alone, like KED's (the command line's run adds its step
                    # error estimate, timed below)
                    r = m.simulate_motion(tr, times, step_error=False)
                else:
                    r = m.simulate_motion(tr, times)
            runs[form] = time.perf_counter() - t0
            d = np.asarray(r.ee_position) - np.asarray(r.rigid_ee_position)
            peak[form] = 1e3 * np.linalg.norm(d, axis=1).max()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = simulate_motion(build_model(desc, "exact", elements=n), tr,
                                duration=a.duration, step=a.step)
        cli = time.perf_counter() - t0
        print(f"| {n} | {ex.n} | {ev[True]:.1f} | {ev[False]:.1f} | {runs['exact']:.1f} | "
              f"{runs['ked']:.2f} | {runs['exact'] / runs['ked']:.0f} | "
              f"{peak['exact']:.1f} / {peak['ked']:.1f} | {cli:.1f} "
              f"({r.summary['integrator_step_s'] * 1e3:g} ms, "
              f"{100 * r.summary.get('step_error_ratio', float('nan')):.2g} %) |")


if __name__ == "__main__":
    main()
