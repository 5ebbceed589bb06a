"""scipy's ``solve_ivp`` with a bound on its work: no integration runs without end.

Why: an adaptive integrator whose step collapses does not fail, it crawls. Measured
(issue 35): the arm's PD loop without friction, Radau at atol 1e-11, settled at t = 5.59
s where the right-hand side's round-off (1e-11 1/s^2 on the accelerations) is of the
order of atol; from there the step stayed near 5e-10 s and the 6 s run had not ended
after 1.5 h. scipy stops only below a step of 10 eps |t| (1e-14 s there).

What: :func:`bounded_solve_ivp` is :func:`scipy.integrate.solve_ivp` (same arguments:
events, dense output, jac, max_step, ...) with the right-hand side watched. It raises
:class:`IntegrationStalled`, a ModelError naming the time and the cause, when

* the integration *stalls*: over the last :data:`STALL_WINDOW` evaluations the time
  advanced by less than :data:`STALL_FRACTION` of the window integrated, i.e. at that
  pace the run would take more than STALL_WINDOW / STALL_FRACTION = 2e11 evaluations
  (the arm above: 4e-9 of the window per 25,000 evaluations);
* its *budget* is spent: more than ``max_evaluations`` evaluations (default
  :data:`MAX_EVALUATIONS`).

Decision: evaluations, not wall-clock time, so that a run fails or succeeds the same on
every machine. An evaluation that finite-difference Jacobians make (Radau, BDF without
``jac``) counts like any other: those are evaluated at one time, which the window of
20,000 evaluations (1,000 Jacobians of a 20-state system) absorbs.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import ModelError

__all__ = ["bounded_solve_ivp", "IntegrationStalled", "MAX_EVALUATIONS", "STALL_WINDOW",
           "STALL_FRACTION"]

MAX_EVALUATIONS = 5_000_000
"""Default budget of right-hand-side evaluations of one integration (a few minutes at
the 10-100 us an evaluation of elastodyn's models costs)."""

STALL_WINDOW = 20_000
"""Evaluations over which the progress in time is measured."""

STALL_FRACTION = 1e-7
"""Least progress over STALL_WINDOW evaluations, as a fraction of the window [t0, t1]."""


class IntegrationStalled(ModelError):
    """An integration stalled (its step collapsed) or spent its budget of evaluations."""


def bounded_solve_ivp(fun, t_span, y0, *, max_evaluations: int = MAX_EVALUATIONS,
                      what: str = "integration", **kwargs):
    """:func:`scipy.integrate.solve_ivp` (``fun``, ``t_span``, ``y0`` and any of its
    keyword arguments) with its work bounded (module docstring); returns its result.

    Parameters
    ----------
    max_evaluations : int
        Budget of calls of ``fun`` (>= STALL_WINDOW).
    what : str
        Names the integration in the error ("NE-PVP simulation").

    Raises
    ------
    IntegrationStalled
        The step collapsed or the budget is spent: the message names the time [s], the
        step reached and what to change.
    """
    from scipy.integrate import solve_ivp  # imported when used (start-up)

    t0, t1 = (float(t) for t in t_span)
    span = abs(t1 - t0)
    budget = max(int(max_evaluations), STALL_WINDOW)
    count = [0]
    marks = [t0]                       # time at the start of the current window

    def watched(t, y, *args):
        count[0] += 1
        n = count[0]
        tt = float(np.max(t)) if np.ndim(t) else float(t)
        if n % STALL_WINDOW == 0:
            if abs(tt - marks[0]) < STALL_FRACTION * span:
                raise IntegrationStalled(
                    f"{what} stalled at t = {tt:.6g} s: the time advanced by "
                    f"{abs(tt - marks[0]):.2g} s over the last {STALL_WINDOW} evaluations "
                    f"(the step collapsed: tolerances below the round-off of the "
                    f"equations, or a singular motion)")
            marks[0] = tt
        if n > budget:
            raise IntegrationStalled(
                f"{what} stopped at t = {tt:.6g} s of [{t0:g}, {t1:g}] s: budget of "
                f"{budget} evaluations spent (a stiff motion for this integrator: try an "
                f"implicit one, a shorter run or a gentler motion)")
        return fun(t, y, *args)

    return solve_ivp(watched, (t0, t1), y0, **kwargs)
