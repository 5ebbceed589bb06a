#!/usr/bin/env python3
"""Workspace map benchmark (issue 16): the 20 x 20 x 20 map of the Kuo Delta (KED, one
element per link), on this process and on local Dask clusters of 1 and 2 workers, as the
command line runs it (the cluster's start-up included in the "whole" column).

    .venv/bin/python benchmarks/workspace.py [--grid 20] [--reference undeformed]

Target (issue 16): under 10 s whole on the 2-core machine with the local cluster; the
map part from 1 to 2 workers at least 1.6x faster. The results are checked to be
identical (to the bit) on every engine before the times are printed.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from elastodyn.analysis.engine import engine
from elastodyn.analysis.workspace import workspace_map


def run(grid: int, reference: str, workers):
    t0 = time.perf_counter()
    with engine("serial" if workers is None else "local", workers) as client:
        t1 = time.perf_counter()
        r = workspace_map("delta-kuo2016", options={"elements": 1, "reference": reference},
                          grid=grid, count=4, client=client)
        t2 = time.perf_counter()
    return r, t2 - t1, time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grid", type=int, default=20)
    p.add_argument("--reference", default="undeformed")
    p.add_argument("--workers", default="serial,1,2")
    a = p.parse_args(argv)
    rows, ref = [], None
    for w in a.workers.split(","):
        workers = None if w == "serial" else int(w)
        r, t_map, t_whole = run(a.grid, a.reference, workers)
        f = np.asarray(r["frequencies_hz"])
        if ref is None:
            ref = f
        assert np.array_equal(ref, f, equal_nan=True), "results differ between engines"
        rows.append((w, t_map, t_whole, r.summary["computed"], r.summary["points"]))
    print(f"| engine | map [s] | whole, cluster start-up included [s] | points computed / "
          f"grid ({a.grid}^3, reference {a.reference}) |")
    print("|---|---|---|---|")
    for w, tm, tw, c, n in rows:
        print(f"| {w} | {tm:.2f} | {tw:.2f} | {c} / {n} |")
    t = {w: tm for w, tm, *_ in rows}
    if "1" in t and "2" in t:
        print(f"\nscaling 1 -> 2 workers (map part): {t['1'] / t['2']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
