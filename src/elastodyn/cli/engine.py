"""Command-line options of the distributed engine (``map --workspace``, ``sweep``):
``--scheduler`` and ``--workers``, a progress bar, and an interrupted run that keeps its
finished points (:mod:`elastodyn.analysis.engine`)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..exceptions import InputError
from .common import emit, given, integer, refuse

__all__ = ["add_engine_options", "refuse_engine_options", "run_engine"]


def add_engine_options(p):
    g = p.add_argument_group("engine (Dask)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="local (default: a cluster of worker processes on this machine), "
                        "serial (in this process, no cluster) or the address of a running "
                        "Dask scheduler (tcp://host:8786)")
    g.add_argument("--workers", type=integer("--workers"),
                   help="worker processes of the local cluster (default: one per core)")


def refuse_engine_options(a, why: str) -> None:
    refuse(a, {"scheduler": "--scheduler", "workers": "--workers"}, why)


def _scheduler(a) -> str:
    s = a.scheduler if given(a, "scheduler") else "local"
    if s in ("local", "serial"):
        return s
    if "://" not in s and ":" not in s:
        raise InputError("--scheduler", s, "local, serial or a scheduler address "
                         "(tcp://host:port)")
    return s


def _progress(what: str):
    """A progress callable(done, total) showing a bar on a terminal (created at the first
    call, when the total is known)."""
    if not sys.stderr.isatty():
        return None
    state = {}

    def update(done, total):
        if "bar" not in state:
            from tqdm import tqdm
            state["bar"] = tqdm(total=total, desc=what, file=sys.stderr, leave=False,
                                unit="point")
        bar = state["bar"]
        bar.update(done - bar.n)
        if done >= total:
            bar.close()
    return update


def run_engine(a, job, what: str) -> int:
    """Run ``job(client, progress)`` (returning a Result) on the engine the options ask
    for and emit its result. Interrupted: the finished points are written as a partial
    output set (with --out) and the command ends with one line, exit code 130."""
    from ..analysis.engine import RunInterrupted, engine
    sched = _scheduler(a)
    workers = a.workers if given(a, "workers") else None
    if workers is not None and sched != "local":
        raise InputError("--workers", workers, "only with the local cluster (--scheduler "
                         "local)")
    if workers is not None and not 1 <= workers <= 256:
        raise InputError("--workers", workers, "an integer in [1, 256]")
    try:
        with engine(sched, workers) as client:
            result = job(client, _progress(what))
    except RunInterrupted as exc:
        partial = getattr(exc, "partial", None)
        line = f"elastodyn: interrupted: {exc.done} of {exc.total} points finished"
        if partial is not None and given(a, "out"):
            partial.save(a.out, formats=a.formats)
            line += f"; partial results written to {Path(a.out).resolve()}"
        print(line, file=sys.stderr)
        return 130
    return emit(a, result)
