"""BLAS thread pools around many small dense problems (issue 16).

The time-stepping loops of the library solve thousands of small systems (tens to a few
hundred unknowns) one after the other. OpenBLAS's default of one thread per core does
not pay for such sizes: the threads are woken for every call, and on a machine whose
cores are shared (other processes, or a Dask worker per core) they wait for each other.
Measured on 2 cores: the 5 s KED circle of Kuo's Delta at 8 elements per link took
19.8 s with the default threads and 6.1 s with one (issue 16); the FFRF
generalized-alpha runs were 6x slower with complex steps.

:func:`small_problem_threads` is the one place that limits the BLAS pools to a single
thread (threadpoolctl) around such loops; the analyses enter it once per run (entering
costs tens of microseconds, so not per solve).

A user's explicit choice wins: when any of ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS``, ``BLIS_NUM_THREADS`` or ``VECLIB_MAXIMUM_THREADS`` is set in the
environment, the pools are left as the user configured them (those variables are read by
the BLAS libraries when they load; overriding them here would silently ignore the
user's setting).
"""
from __future__ import annotations

import contextlib
import os

from threadpoolctl import threadpool_limits

__all__ = ["small_problem_threads", "THREAD_ENV_VARS"]

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
"""Environment variables through which a user sets the BLAS thread count explicitly;
:func:`small_problem_threads` does nothing when one of them is set (non-empty)."""


def user_set_threads() -> bool:
    """Whether the user set a BLAS/OpenMP thread count in the environment."""
    return any(os.environ.get(v, "").strip() for v in THREAD_ENV_VARS)


@contextlib.contextmanager
def small_problem_threads():
    """Context manager: one BLAS thread inside (module docstring), restored on exit;
    a no-op when the user set the thread count in the environment
    (:data:`THREAD_ENV_VARS`). Re-entrant (threadpoolctl restores the previous limits
    in order)."""
    if user_set_threads():
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield
