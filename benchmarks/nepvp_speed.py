#!/usr/bin/env python3
"""Speed of the compiled NE-PVP motion-driven simulation (issue 16, item 5). Prints a
Markdown table.

    PYTHONPATH=src .venv/bin/python benchmarks/nepvp_speed.py [--elements 1 2 4 8]

The Briot & Khalil (2013) five-bar bang-bang, 1 s simulated (``elastodyn simulate
prrrp-briot2013 --trajectory bang-bang --elements N --method M``), for N elements per
beam and the compiled integrators M = rk4 and generalized-alpha (default step 5e-5 s):

- wall time of the whole process (``python -m elastodyn simulate ...``, summary on
  stdout, no files), first with an empty cache folder (symbolic generation, printing
  and compilation of the model included), then again with the cache filled (a second
  process: nothing generated);
- the integration alone, in process (``formulations.nepvp.simulation.simulate_motion``: static
  deflection, integration and outputs; model and library already loaded);
- the accuracy: max over time of |platform position - reference| divided by the peak
  platform deviation (flexible - rigid) of the reference, the reference being RK4 at its
  default step (omega_max h <= 1, fourth order; within 3e-5 of RK4 at 2.5e-5 s on one
  element per beam).

Timings are one run each on a shared 2-core machine: noisy, read ratios.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

METHODS = ("rk4", "generalized-alpha")


def _process(elements: int, method: str, cache: str) -> float:
    """Wall time [s] of one whole ``elastodyn simulate`` process."""
    env = dict(os.environ, ELASTODYN_CACHE=cache)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "elastodyn", "simulate", "prrrp-briot2013",
           "--trajectory", "bang-bang", "--elements", str(elements), "--method", method]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def bench_nepvp_speed(elements=(1, 2, 4, 8), methods=METHODS) -> list[dict]:
    """One row per (elements, method): first process [s], cached process [s],
    integration alone [s], right-hand sides or Newton iterations, platform error
    relative to the peak platform deviation."""
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.description.tree import prrrp_briot2013
    from elastodyn.formulations.nepvp.engine import NEPVPEngine
    from elastodyn.trajectories.bangbang import BangBang
    rows = []
    traj = BangBang.briot2013()
    for n in elements:
        first, cached = {}, {}
        for m in methods:               # each method from an empty cache folder
            with tempfile.TemporaryDirectory() as cache:
                first[m] = _process(n, m, cache)
                cached[m] = _process(n, m, cache)
        with tempfile.TemporaryDirectory() as cache:
            os.environ["ELASTODYN_CACHE"] = cache
            model = NEPVPEngine(prrrp_briot2013(n))
            model.driver()
            sims, walls = {}, {}
            for m in methods:
                t0 = time.perf_counter()
                sims[m] = simulate_motion(model, traj, end=1.0, method=m)
                walls[m] = time.perf_counter() - t0
            ref = sims["rk4"] if "rk4" in sims else simulate_motion(model, traj, end=1.0,
                                                                    method="rk4")
        dev = np.abs(ref.ee_position - ref.rigid_ee_position).max()
        for m in methods:
            err = np.abs(sims[m].ee_position - ref.ee_position).max() / dev
            rows.append({"elements": n, "method": m, "first_process_s": first[m],
                         "cached_process_s": cached[m], "integration_s": walls[m],
                         "evaluations": sims[m].evaluations, "platform_error": err})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, nargs="+", default=[1, 2, 4, 8])
    a = ap.parse_args(argv)
    rows = bench_nepvp_speed(a.elements)
    print("| elements/beam | method | first process [s] | cached process [s] | "
          "integration [s] | evaluations | platform error / peak deviation |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['elements']} | {r['method']} | {r['first_process_s']:.2f} | "
              f"{r['cached_process_s']:.2f} | {r['integration_s']:.3f} | "
              f"{r['evaluations']} | {r['platform_error']:.1e} |")


if __name__ == "__main__":
    main()
