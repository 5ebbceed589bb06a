#!/usr/bin/env python3
"""Speed of the flexible Delta by KED (issue 16): BLAS threads, the leg-block solver and
the deflected reference's Newton. Prints Markdown tables for BENCHMARKS.md.

    PYTHONPATH=src .venv/bin/python benchmarks/ked_speed.py [--repeats 3]
        [--cases circle1,circle8,map] [--references undeformed,deflected]
        [--baseline OLD/src] [--no-kernels]

Commands, timed as whole processes (start-up and imports included, as a user runs
them; Kuo's Delta, preset delta-kuo2016, cubic elements):

- ``circleN``: ``elastodyn simulate delta-kuo2016 --trajectory circle --elements N
  --reference R --json`` (the 5 s circle of Kuo section 5.3: five periods, Newmark step
  1 ms);
- ``map``: ``elastodyn map delta-kuo2016 --reference R --json`` (360 poses, 1 element).

Variants, each the best of ``--repeats`` runs by wall time (with that run's CPU time,
user + system over all threads: on a shared machine the wall time includes waiting):

- ``baseline``: the source tree given by ``--baseline`` (e.g. ``git archive`` of the
  commit before issue 16 unpacked somewhere), default environment;
- ``default threads``: this tree with OPENBLAS_NUM_THREADS set to the number of cores
  (an explicit setting, which the library respects: the pools as before issue 16);
- ``this tree``: this tree, default environment (one BLAS thread in the KED loops).

Then (unless ``--no-kernels``) the leg-block kernels in-process, one BLAS thread: the
5 s circle at 8 cubic and 1 s at 8 quintic elements with the dense and the banded LU
(elastodyn.formulations.ked_blocks.LegBlockSolver), and their largest difference.

The machine may be shared: the load average is printed before and after; compare the
variants of one run, not runs on different days. Start without OMP_NUM_THREADS or
OPENBLAS_NUM_THREADS in the environment.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def command(case, ref):
    if case.startswith("circle"):
        return ["simulate", "delta-kuo2016", "--trajectory", "circle", "--elements",
                case[len("circle"):], "--reference", ref, "--json"]
    if case == "map":
        return ["map", "delta-kuo2016", "--reference", ref, "--json"]
    raise SystemExit(f"unknown case {case!r}")


def run(argv, src, env_extra, repeats):
    """Best wall time [s] of ``python -m elastodyn argv`` with PYTHONPATH=src, and the
    CPU time (user + system, all threads) [s] of that run."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    env.update(env_extra)
    env["PYTHONPATH"] = str(src)
    best = (float("inf"), float("nan"))
    for _ in range(repeats):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "elastodyn", *argv], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        best = min(best, (wall, cpu))
    return best


def kernels(repeats):
    """The dense and banded leg-block LU in-process (module docstring)."""
    import warnings

    import numpy as np

    from elastodyn.formulations.ked.simulation import simulate_ked
    from elastodyn.description.flexible_delta import flexible_delta_kuo2016
    from elastodyn.formulations.ked.blocks import LegBlockSolver
    from elastodyn.formulations.ked.engine import KEDEngine
    from elastodyn.trajectories import Circle

    print("\n| leg-block kernel case | m | half-bandwidth | dense [s] | banded [s] | "
          "dense / banded | max rel. difference |")
    print("|---|---|---|---|---|---|---|")
    for order, duration in (("cubic", 5.0), ("quintic", 1.0)):
        times, outs = {}, {}
        for kernel in ("dense", "banded"):
            best = float("inf")
            for _ in range(repeats):
                m = KEDEngine(flexible_delta_kuo2016(), elements=8, order=order,
                                  reference="undeformed")
                m.leg_solver = LegBlockSolver(m.leg_pattern, m.leg_blocks, m.dof,
                                              kernel=kernel)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    outs[kernel] = simulate_ked(m, Circle.kuo2016(), duration=duration).delta
                best = min(best, time.perf_counter() - t0)
            times[kernel] = best
        s = m.leg_solver
        d = np.abs(outs["banded"] - outs["dense"]).max() / np.abs(outs["dense"]).max()
        print(f"| {duration:g} s circle, 8 {order} elements, undeformed | {s.m} | "
              f"{s.bandwidth} | {times['dense']:.2f} | {times['banded']:.2f} | "
              f"{times['dense'] / times['banded']:.2f} | {d:.1e} |", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cases", default="circle1,circle8,map")
    p.add_argument("--references", default="undeformed,deflected")
    p.add_argument("--baseline", type=Path, help="an older tree's src directory")
    p.add_argument("--no-kernels", action="store_true")
    a = p.parse_args(argv)
    user = [v for v in THREAD_VARS if os.environ.get(v)]
    if user:
        print(f"note: {', '.join(user)} set in the environment; removed for the runs",
              file=sys.stderr)
    cores = os.cpu_count() or 1
    variants = ([("baseline", a.baseline, {})] if a.baseline else []) + [
        ("default threads", SRC, {"OPENBLAS_NUM_THREADS": str(cores)}),
        ("this tree", SRC, {})]
    print(f"# KED speed ({platform.machine()}, {cores} cores; load average before "
          f"{os.getloadavg()[0]:.2f}; best of {a.repeats}, whole processes)\n")
    print("| command | " + " | ".join(f"{v}: wall (CPU) [s]" for v, _, _ in variants) + " |")
    print("|---|" + "---|" * len(variants))
    for case in a.cases.split(","):
        for ref in a.references.split(","):
            argv_ = command(case, ref)
            row = [run(argv_, src, env, a.repeats) for _, src, env in variants]
            print(f"| `elastodyn {' '.join(argv_)}` | "
                  + " | ".join(f"{w:.2f} ({c:.2f})" for w, c in row) + " |", flush=True)
    if not a.no_kernels:
        sys.path.insert(0, str(SRC))
        kernels(a.repeats)
    print(f"\nload average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
