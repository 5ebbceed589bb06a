#!/usr/bin/env python3
"""Start-up of the command line (issue 30, item 7): a run whose compiled code is cached,
its whole process against its solver, side by side with Exudyn's whole process for the
same run. Prints Markdown tables for BENCHMARKS.md.

    python benchmarks/startup.py                        # 4 elements per beam, 5 repeats
    python benchmarks/startup.py --elements 4 8 --repeats 7

The command (the issue's): ``elastodyn simulate prrrp-briot2013 --elements N --duration
1``, Briot & Khalil's five-bar, the preset's bang-bang motion, NE-PVP (method auto:
generalized-alpha from 2 elements per beam), summary on standard error, no files. Its
compiled driver is in the cache: ``ELASTODYN_CACHE`` is a new temporary folder unless it
is set, filled by a first run (reported as "first run").

Figures (wall clock, time.perf_counter; medians of ``--repeats``; a shared 2-core machine
is noisy):

* process: the whole command in a fresh interpreter (``python -m elastodyn ...``);
* solver, as the process records it: ``run.wall_time_s`` of the same command with
  ``--json`` (the analysis's call of the model's ``simulate_motion``: static deflection,
  the compiled integration and the outputs; what the process imports on first use inside
  that call, scipy.linalg for the statics and the modes, is counted in it);
* solver, warm: the same call in a process that has run the command once already
  (``--worker warm``: ``elastodyn.cli.main`` called 1 + R times in one interpreter);
* process - solver: what the run costs besides its solver (interpreter, imports, parser,
  description, model and library loading, the loop-closure check of the path, output);
  target (issue 30): below 0.5 s;
* the imports of the process by top-level package (``python -X importtime``, self
  times of one run; sympy and matplotlib must be absent);
* Exudyn (the ``bench`` extra; skipped with one line when it is not installed): the same
  five-bar as ``benchmarks/peers.py --only fivebar`` builds it (``ObjectANCFCable2D``
  beams at the same mesh, generalized-alpha, fixed step ``--exudyn-step``, default
  2.5e-5 s: its step of equal accuracy there), as a whole process (that file's hidden
  ``--worker exudyn-fivebar`` mode: import, build, static solve, dynamic solve) and its
  dynamic solve alone (in this process, after a build);
* ``elastodyn --version``, ``elastodyn --help`` and ``elastodyn robots`` (every preset,
  every formulation's model built to list its actuated coordinates) as processes.
"""
from __future__ import annotations

import os

# one BLAS/OpenMP thread, as benchmarks/peers.py (set before numpy)
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import contextlib
import io
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import ExudynFivebar, ms, peer, table  # noqa: E402  (benchmarks/peers.py)

EXUDYN_STEP = 2.5e-5       # Exudyn's step of equal accuracy (BENCHMARKS.md, five-bar)


def command(elements: int) -> list[str]:
    return ["simulate", "prrrp-briot2013", "--elements", str(elements), "--duration", "1"]


def run(args: list[str], env: dict, *, python_flags=()) -> tuple[float, str, str]:
    """(wall seconds, stdout, stderr) of ``python -m elastodyn args`` in a fresh
    interpreter; raises on failure."""
    cmd = [sys.executable, *python_flags, "-m", "elastodyn", *args]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return dt, r.stdout, r.stderr


def median(xs) -> float:
    return statistics.median(xs)


def imports_by_package(stderr: str, top: int = 8) -> list[tuple[str, float]]:
    """Self import times [s] summed by top-level package from ``-X importtime`` output,
    the largest first."""
    total: dict = {}
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if m:
            pkg = m.group(2).split(".")[0]
            total[pkg] = total.get(pkg, 0.0) + int(m.group(1)) * 1e-6
    return sorted(total.items(), key=lambda kv: -kv[1])[:top]


def warm_worker(elements: str, repeats: str) -> None:
    """The command run 1 + ``repeats`` times in this interpreter: prints one JSON line,
    {"solver": [run.wall_time_s of each run], "main": [seconds of each main() call]}."""
    from elastodyn.cli import main
    solver, whole = [], []
    for _ in range(1 + int(repeats)):
        buf = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = main(command(int(elements)) + ["--json"])
        whole.append(time.perf_counter() - t0)
        if rc != 0:
            raise SystemExit(f"the command failed (exit {rc})")
        solver.append(json.loads(buf.getvalue())["run"]["wall_time_s"])
    print(json.dumps({"solver": solver, "main": whole}))


def bench_elastodyn(elements: int, repeats: int, env: dict) -> dict:
    args = command(elements)
    first, _, _ = run(args, env)                        # fills the cache (or finds it)
    proc = [run(args, env)[0] for _ in range(repeats)]
    js = [run(args + ["--json"], env) for _ in range(repeats)]
    recorded = [json.loads(out)["run"]["wall_time_s"] for _, out, _ in js]
    w = subprocess.run([sys.executable, __file__, "--worker", "warm", str(elements),
                        str(repeats)], capture_output=True, text=True, env=env, check=True)
    warm = json.loads(w.stdout.strip().splitlines()[-1])
    _, _, err = run(args, env, python_flags=("-X", "importtime"))
    return {"elements": elements, "first": first, "process": median(proc),
            "process_json": median([t for t, _, _ in js]), "recorded": median(recorded),
            "warm_solver": median(warm["solver"][1:]), "warm_main": median(warm["main"][1:]),
            "first_in_process": warm["main"][0], "imports": imports_by_package(err),
            "imported": {p for p, _ in imports_by_package(err, top=10_000)}}


def bench_exudyn(exu, elements: int, step: float, repeats: int, env: dict) -> dict | None:
    if exu is None:
        return None
    cmd = [sys.executable, str(HERE / "peers.py"), "--worker", "exudyn-fivebar",
           str(elements), repr(step)]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t0)
    eng = ExudynFivebar(elements).build()
    solve = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        eng.solve(step)
        solve.append(time.perf_counter() - t0)
    return {"process": median(times), "solver": median(solve)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--elements", type=int, nargs="+", default=[4],
                   help="elements per beam of the five-bar")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--exudyn-step", type=float, default=EXUDYN_STEP,
                   help="Exudyn's fixed generalized-alpha step [s]")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        {"warm": warm_worker}[a.worker[0]](*a.worker[1:])
        return
    import platform

    import numpy as np
    env = dict(os.environ)
    if not env.get("ELASTODYN_CACHE"):
        env["ELASTODYN_CACHE"] = tempfile.mkdtemp(prefix="elastodyn-startup-")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}; ELASTODYN_CACHE="
          f"{env['ELASTODYN_CACHE']}")
    exu = peer("exudyn")
    if exu is not None:
        print(f"exudyn {exu.__version__}")
    rows, peers_rows, imports = [], [], []
    for n in a.elements:
        e = bench_elastodyn(n, a.repeats, env)
        x = bench_exudyn(exu, n, a.exudyn_step, a.repeats, env)
        rows.append((n, ms(e["process"]), ms(e["recorded"]), ms(e["warm_solver"]),
                     ms(e["process"] - e["recorded"]), ms(e["process"] - e["warm_solver"]),
                     "met" if e["process"] - e["warm_solver"] < 0.5 else "not met",
                     ms(e["first"])))
        peers_rows.append((n, ms(e["process"]), ms(e["warm_solver"]),
                           ms(x["process"]) if x else "skipped",
                           ms(x["solver"]) if x else "skipped",
                           ms(x["process"] - x["solver"]) if x else "skipped"))
        imports.append((n, ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in e["imports"]),
                        "yes" if "sympy" in e["imported"] else "no",
                        "yes" if "matplotlib" in e["imported"] else "no"))
    table(f"Cached `elastodyn simulate prrrp-briot2013 --elements N --duration 1` (median "
          f"of {a.repeats}): process against solver (target: process - solver < 0.5 s)",
          ["elements per beam", "process", "solver (as the process records it)",
           "solver (warm, in process)", "process - recorded solver",
           "process - warm solver", "target", "first run (cold cache unless ELASTODYN_CACHE is set)"], rows)
    table(f"Side by side with Exudyn (its five-bar of benchmarks/peers.py, same mesh, "
          f"generalized-alpha at {a.exudyn_step:g} s; median of {a.repeats})",
          ["elements per beam", "elastodyn process", "elastodyn solver (warm)",
           "Exudyn process", "Exudyn solver", "Exudyn process - solver"], peers_rows)
    table("Imports of the cached process (python -X importtime, self times by top-level "
          "package, one run)", ["elements per beam", "largest", "sympy", "matplotlib"],
          imports)
    other = []
    for args in (["--version"], ["--help"], ["robots"]):
        times = [run(args, env)[0] for _ in range(a.repeats)]
        other.append((f"`elastodyn {' '.join(args)}`", ms(median(times))))
    table(f"Other commands, whole process (median of {a.repeats})",
          ["command", "process"], other)


if __name__ == "__main__":
    main()
