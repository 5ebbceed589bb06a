"""A thin layer over :func:`scipy.integrate.solve_ivp` for first-order state-space models.

The right-hand side follows the python-control convention ``rhs(t, x, u, params)``
(``control.NonlinearIOSystem`` ``updfcn``), so models written for python-control can be
simulated here and vice versa. :func:`second_order_to_state_space` turns a second-order
LTV system ``system(t) -> (M, C, K, f)`` into such a right-hand side, so the same model can
be integrated by Newmark / generalised-alpha and by a Runge-Kutta method.

References
----------
P. Virtanen et al., "SciPy 1.0: fundamental algorithms for scientific computing in
Python", Nature Methods 17:261-272, 2020 (``scipy.integrate.solve_ivp``).
J. R. Dormand and P. J. Prince, "A family of embedded Runge-Kutta formulae", J. Comput.
Appl. Math. 6:19-26, 1980 (``RK45``, ``DOP853``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validate import choice, positive
from ..exceptions import DimensionError, InputError, ModelError
from ._system import as_force, check_system_callable, evaluate_system
from .bounded import bounded_solve_ivp

__all__ = ["StateSpaceResult", "simulate_state_space", "second_order_to_state_space"]

_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


@dataclass(frozen=True, eq=False)
class StateSpaceResult:
    """Solution of a state-space simulation.

    Attributes
    ----------
    time : numpy.ndarray, shape (n_times,)
        Output times [s] (``t_eval`` if given, else the solver's steps).
    state : numpy.ndarray, shape (n_times, n_states)
        State at each output time; row ``k`` is time ``time[k]`` (note: the transpose of
        ``solve_ivp``'s ``y``, for consistency with :class:`SecondOrderResult`).
    success : bool
        Solver success flag (always ``True``: failures raise :class:`ModelError`).
    message : str
        Solver termination message.
    nfev : int
        Number of right-hand-side evaluations.

    Notes
    -----
    The arrays are read-only.
    """

    time: np.ndarray
    state: np.ndarray
    success: bool
    message: str
    nfev: int


def simulate_state_space(
    rhs,
    x0,
    *,
    t_span,
    t_eval=None,
    method: str = "RK45",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    params=None,
    u=None,
) -> StateSpaceResult:
    """Integrate ``dx/dt = rhs(t, x, u(t), params)`` with :func:`scipy.integrate.solve_ivp`.

    Parameters
    ----------
    rhs : callable
        ``rhs(t, x, u, params) -> dx/dt`` of shape (n_states,), ``t`` in seconds
        (python-control ``updfcn`` convention). ``u`` is ``None`` when no input is given.
    x0 : array_like, shape (n_states,)
        Initial state, finite.
    t_span : tuple of float
        ``(t0, t_end)`` [s] with ``t_end > t0``.
    t_eval : array_like of shape (n_times,), optional
        Output times, strictly increasing within ``t_span``. Default: solver steps.
    method : {"RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA"}, optional
        ``solve_ivp`` method. Default ``"RK45"``; use ``"DOP853"`` for tight tolerances
        and ``"Radau"``/``"BDF"`` for stiff models (e.g. high-frequency FE modes).
    rtol, atol : float, optional
        Relative and absolute tolerances, > 0. Defaults 1e-8 and 1e-10 (``atol`` is in
        the units of the state).
    params : object, optional
        Passed unchanged as the fourth argument of ``rhs`` (python-control uses a dict).
    u : callable, optional
        Input signal ``u(t)``; ``None`` (default) passes ``u=None`` to ``rhs``.

    Returns
    -------
    StateSpaceResult
        ``time`` (n_times,), ``state`` (n_times, n_states), ``success``, ``message``,
        ``nfev``.

    Raises
    ------
    InputError
        Bad ``rhs``, ``t_span``, ``t_eval``, ``method``, ``rtol``, ``atol`` or ``u``.
    DimensionError
        ``x0`` not one-dimensional, or ``rhs`` returning a shape other than ``x0``'s.
    ModelError
        The integration failed; the message contains ``solve_ivp``'s message.

    Examples
    --------
    >>> import numpy as np
    >>> res = simulate_state_space(lambda t, x, u, p: -x, [1.0], t_span=(0.0, 1.0),
    ...                            t_eval=[1.0])
    >>> bool(abs(res.state[0, 0] - np.exp(-1.0)) < 1e-7)
    True
    """
    if not callable(rhs):
        raise InputError("rhs", rhs, "a callable rhs(t, x, u, params)")
    x0 = np.asarray(x0, dtype=float)
    if x0.ndim != 1 or x0.shape[0] == 0:
        raise DimensionError(f"invalid x0: expected a non-empty 1-D array, got shape {x0.shape}")
    if not np.all(np.isfinite(x0)):
        raise InputError("x0", x0, "finite values")
    t0, t1 = _t_span(t_span)
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float)
        if (
            t_eval.ndim != 1
            or t_eval.size == 0
            or not np.all(np.isfinite(t_eval))
            or np.any(np.diff(t_eval) <= 0.0)
            or t_eval[0] < t0
            or t_eval[-1] > t1
        ):
            raise InputError(
                "t_eval", t_eval, f"a strictly increasing 1-D array within t_span = ({t0}, {t1})"
            )
    method = choice("method", method, _METHODS)
    rtol = positive("rtol", rtol)
    atol = positive("atol", atol)
    if u is not None and not callable(u):
        raise InputError("u", u, "None or a callable u(t)")

    if u is None:
        def fun(t, x):
            return rhs(t, x, None, params)
    else:
        def fun(t, x):
            return rhs(t, x, u(t), params)

    dx0 = np.asarray(fun(t0, x0.copy()), dtype=float)
    if dx0.shape != x0.shape:
        raise DimensionError(
            f"invalid rhs: returned shape {dx0.shape} for a state of shape {x0.shape}"
        )

    sol = bounded_solve_ivp(fun, (t0, t1), x0, method=method, t_eval=t_eval, rtol=rtol,
                            atol=atol, what=f"state-space integration ({method})")
    if not sol.success:
        raise ModelError(f"state-space integration failed ({method}): {sol.message}")
    time = np.asarray(sol.t, dtype=float)
    state = np.ascontiguousarray(np.asarray(sol.y, dtype=float).T)
    time.setflags(write=False)
    state.setflags(write=False)
    return StateSpaceResult(
        time=time, state=state, success=bool(sol.success), message=str(sol.message),
        nfev=int(sol.nfev),
    )


def _t_span(t_span) -> tuple[float, float]:
    try:
        t0, t1 = (float(v) for v in t_span)
    except (TypeError, ValueError):
        raise InputError("t_span", t_span, "a pair (t0, t_end) of finite numbers") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or not t1 > t0:
        raise InputError("t_span", t_span, "a pair (t0, t_end) of finite numbers, t_end > t0")
    return t0, t1


def second_order_to_state_space(system):
    """Return ``rhs(t, x, u, params)`` for ``M(t) qdd + C(t) qd + K(t) q = f(t) [+ u]``.

    The state is ``x = [q, qd]`` (shape (2 n,)) and

    ``dx/dt = [qd, M(t)^{-1} (f(t) + u - C(t) qd - K(t) q)]``,

    solved with :func:`numpy.linalg.solve` at every call (no inverse is formed).

    Parameters
    ----------
    system : callable
        ``system(t) -> (M, C, K, f)`` with shapes (n, n), (n, n), (n, n), (n,); SI units.

    Returns
    -------
    callable
        ``rhs(t, x, u, params)``. ``u`` may be ``None`` or an extra generalised force of
        shape (n,) [N] added to ``f``; ``params`` is ignored. Use with
        :func:`simulate_state_space`.

    Raises
    ------
    InputError
        If ``system`` is not callable (at construction).
    DimensionError
        (From ``rhs``) if ``x`` is not of shape (2 n,) or ``u`` not of shape (n,).
    ModelError
        (From ``rhs``) if ``M(t)`` is exactly singular (``numpy.linalg.LinAlgError``).

    Examples
    --------
    >>> import numpy as np
    >>> from elastodyn.integrators import constant_system
    >>> rhs = second_order_to_state_space(constant_system([[2.0]], [[0.0]], [[8.0]]))
    >>> rhs(0.0, np.array([1.0, 0.0]), None, None)
    array([ 0., -4.])
    """
    check_system_callable(system)

    def rhs(t, x, u=None, params=None):
        M, C, K, f = evaluate_system(system, t, None)
        n = M.shape[0]
        x = np.asarray(x, dtype=float)
        if x.shape != (2 * n,):
            raise DimensionError(f"invalid x: expected shape ({2 * n},), got {x.shape}")
        q, qd = x[:n], x[n:]
        load = f - C @ qd - K @ q
        if u is not None:
            load = load + as_force("u", u, n)
        try:
            qdd = np.linalg.solve(M, load)
        except np.linalg.LinAlgError:
            raise ModelError(f"invalid system: mass matrix M(t={t!r}) is singular") from None
        return np.concatenate((qd, qdd))

    return rhs
