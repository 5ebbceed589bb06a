"""The distributed engine of the whole-workspace maps and the design sweeps (Dask).

A run is a list of *tasks*; a task is a picklable payload that a module-level function
turns into a list of per-point outcomes. :func:`run_tasks` sends the tasks to a Dask
cluster (``client``: a :class:`distributed.Client`) or runs them one after the other in
this process (``client=None``), and gives back the outcomes in task order:

* **Identical results whatever the number of workers**: the tasks (and so the chunks of
  points a task holds, and any warm start inside a chunk) are fixed by the run, never by
  the cluster; the outcomes are put back in task order; anything that couples points
  (mode tracking) runs afterwards, in this process, in a fixed order.
* **A failure stays with its point**: the task functions catch the error of one point
  and record its reason (:class:`PointFailure`); a task that fails as a whole (a lost
  worker, an error outside the per-point guard) marks its points with the reason and the
  others are kept.
* **Interruption keeps the finished points**: Ctrl-C (or a progress callback raising
  :class:`KeyboardInterrupt`) raises :class:`RunInterrupted`, a KeyboardInterrupt that
  carries the outcomes finished so far (``None`` for the others).

:func:`local_client` starts the default cluster of the command line: a
:class:`distributed.LocalCluster` of worker *processes* (one per core, one thread each:
the per-point problems are small dense ones, and one BLAS thread per process avoids
oversubscribing the cores), quiet, without the dashboard.

Models are expensive to build (symbolic generation, compiled code) and cheap to reuse:
:func:`cached_model` keeps the last few models of a worker process keyed by their
description and options, so every task of a run builds the model at most once per
worker.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from collections import OrderedDict
from dataclasses import dataclass

from ..exceptions import InputError

__all__ = ["PointFailure", "RunInterrupted", "run_tasks", "local_client", "cached_model",
           "model_key", "default_workers", "failure_of", "engine", "connect"]


@dataclass(frozen=True)
class PointFailure:
    """Why a point has no result.

    Attributes
    ----------
    kind : str
        ``unreachable`` (outside the workspace), ``singular`` (at or near a singularity),
        ``invalid`` (the description or the model refuses the point's values),
        ``model`` (the model cannot answer there: unstable, mechanism, no convergence),
        ``error`` (an unexpected error: a bug, reported with its type),
        ``lost`` (the task was lost: worker died), ``interrupted`` (not computed).
    reason : str
        One line.
    """

    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.reason}"


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted; ``outcomes`` holds the finished tasks' outcomes (None for
    the tasks not finished)."""

    def __init__(self, outcomes, done: int, total: int):
        super().__init__(f"interrupted after {done} of {total} tasks")
        self.outcomes = outcomes
        self.done = done
        self.total = total


def failure_of(exc: BaseException) -> PointFailure:
    """The :class:`PointFailure` of an exception raised at one point."""
    from ..exceptions import ModelError
    name = type(exc).__name__
    text = str(exc).splitlines()[0] if str(exc) else name
    if name == "UnreachableError":
        return PointFailure("unreachable", text)
    if name == "SingularConfigurationError":
        return PointFailure("singular", text)
    if isinstance(exc, ModelError):
        return PointFailure("model", text)
    if isinstance(exc, InputError):
        return PointFailure("invalid", text)
    import numpy as np
    if isinstance(exc, (np.linalg.LinAlgError, FloatingPointError, ArithmeticError)):
        return PointFailure("model", f"{name}: {text}")
    return PointFailure("error", f"{name}: {text}")


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def local_client(workers: int | None = None):
    """A Dask client on a new local cluster of ``workers`` processes (default: one per
    core), one thread each, no dashboard. Close both ``client.close()`` and
    ``client.cluster.close()`` (:func:`engine` does)."""
    import logging

    from distributed import Client, LocalCluster
    n = default_workers() if workers is None else int(workers)
    if n < 1:
        raise InputError("--workers", workers, "an integer >= 1")
    for name in ("distributed", "distributed.worker", "distributed.scheduler",
                 "distributed.nanny", "distributed.core", "distributed.http.proxy"):
        logging.getLogger(name).setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR,
                               env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                    "MKL_NUM_THREADS": "1"})
    try:
        return Client(cluster, set_as_default=False)
    except BaseException:
        cluster.close()
        raise


def connect(address: str):
    """A Dask client of the existing scheduler at ``address`` (``tcp://host:port``)."""
    from distributed import Client
    try:
        return Client(address, set_as_default=False, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError("--scheduler", address, f"the address of a running Dask scheduler "
                         f"(tcp://host:port): cannot connect ({type(exc).__name__})") from None


def run_tasks(func, tasks, *, client=None, progress=None, points_of=None) -> list:
    """Run ``func(task)`` for every task; its outcomes in task order.

    Parameters
    ----------
    func : callable(task) -> list
        A module-level function (picklable) returning one outcome per point of the task;
        it records the failure of a point itself (:func:`failure_of`).
    tasks : sequence
        Picklable payloads.
    client : distributed.Client or None
        None: in this process, in order.
    progress : callable(done_points, total_points) or None
        Called after each finished task.
    points_of : callable(task) -> int, optional
        Number of points of a task (for ``progress`` and for marking a lost task);
        default 1.

    Returns
    -------
    list (one entry per task) of the lists ``func`` returned; a task that failed as a
    whole gives ``[PointFailure("lost", ...)] * points_of(task)``.

    Raises
    ------
    RunInterrupted
        On KeyboardInterrupt, with the finished outcomes.
    """
    tasks = list(tasks)
    size = [1 if points_of is None else int(points_of(t)) for t in tasks]
    total = sum(size)
    out: list = [None] * len(tasks)
    done = 0

    def finish(k, value):
        nonlocal done
        out[k] = value
        done += size[k]
        if progress is not None:
            progress(done, total)

    try:
        if client is None:
            for k, t in enumerate(tasks):
                try:
                    value = func(t)
                except KeyboardInterrupt:
                    raise
                except Exception as exc:  # noqa: BLE001 - recorded for the task's points
                    value = [failure_of(exc)] * size[k]
                finish(k, value)
            return out
        from distributed import as_completed
        futures = client.map(func, tasks, pure=False)
        index = {f.key: k for k, f in enumerate(futures)}
        try:
            for fut in as_completed(futures, loop=client.loop):
                k = index[fut.key]
                if fut.status == "finished":
                    value = fut.result()
                else:            # an error outside the per-point guard, or a lost task
                    try:
                        exc = fut.exception()
                    except Exception as err:  # noqa: BLE001 - cancelled: no exception
                        exc = err
                    lost = exc is None or type(exc).__name__ in ("KilledWorker",
                                                                 "CancelledError")
                    f = (PointFailure("lost", f"task lost ({type(exc).__name__})") if lost
                         else failure_of(exc))
                    value = [f] * size[k]
                finish(k, value)
        finally:
            client.cancel([f for f in futures if not f.done()])
        return out
    except KeyboardInterrupt:
        raise RunInterrupted(out, sum(s for s, o in zip(size, out) if o is not None),
                             total) from None


# ------------------------------------------------------------------ model cache (per process)
_MODELS: OrderedDict = OrderedDict()
_MODEL_CACHE_SIZE = 4


def model_key(spec, formulation, options: dict) -> str:
    """A hash of a description (its canonical JSON) and the model options."""
    data = spec.model_dump(mode="json") if hasattr(spec, "model_dump") else repr(spec)
    text = json.dumps([data, formulation, options], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def cached_model(spec, formulation, options: dict, model=None):
    """The model of ``spec`` by ``formulation`` with ``options`` (built at most once per
    process for the last few keys; ``model``: one already built, kept for that key)."""
    from ..formulations.registry import build_model
    key = model_key(spec, formulation, options)
    if model is not None:
        _MODELS[key] = model
        _MODELS.move_to_end(key)
        while len(_MODELS) > _MODEL_CACHE_SIZE:
            _MODELS.popitem(last=False)
    model = _MODELS.get(key)
    if model is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = build_model(spec, formulation, **options)
        _MODELS[key] = model
        while len(_MODELS) > _MODEL_CACHE_SIZE:
            _MODELS.popitem(last=False)
    else:
        _MODELS.move_to_end(key)
    return model


@contextlib.contextmanager
def engine(scheduler: str | None = "local", workers: int | None = None):
    """The client of a run: ``scheduler`` None or ``"serial"``: none (this process);
    ``"local"``: a new local cluster of ``workers`` processes (closed at the end);
    otherwise the address of an existing scheduler (``workers`` refused)."""
    if scheduler in (None, "serial"):
        if workers not in (None, 1):
            raise InputError("--workers", workers, "1 (or not given) with --scheduler serial")
        yield None
        return
    if scheduler == "local":
        client = local_client(workers)
        try:
            yield client
        finally:
            cluster = client.cluster
            with contextlib.suppress(Exception):
                client.close()
            with contextlib.suppress(Exception):
                cluster.close()
        return
    if workers is not None:
        raise InputError("--workers", workers, "not with --scheduler ADDRESS (the cluster "
                         "at that address has its own workers)")
    client = connect(scheduler)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()
