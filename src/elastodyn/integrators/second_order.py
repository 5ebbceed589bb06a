"""Constant-step implicit integrators for linear time-varying second-order systems.

Both methods integrate

.. math:: M(t)\\,\\ddot q + C(t)\\,\\dot q + K(t)\\,q = f(t), \\qquad
          q(t_0) = q_0,\\ \\dot q(t_0) = \\dot q_0

on a uniform grid ``t_k = t0 + k*dt``. The system is a callable ``system(t) -> (M, C, K, f)``
(see :func:`elastodyn.integrators.constant_system` for constant matrices). Both are the
one generalized-alpha loop of elastodyn (:func:`~.nonlinear.generalized_alpha_nonlinear`,
formulas of :mod:`~.scheme`; Newmark is ``alpha_m = alpha_f = 0``) on the residual
``M z + C v + K q - f`` at ``t_{k+1}``, which is affine in the accelerations ``z``: each
step solves one linear system of size ``n`` with the effective (step) matrix; when the
matrices returned by ``system`` do not change between steps the factorisation is reused.
Sources: Newmark [1]_, generalized-alpha [2]_ [3]_ [4]_, Kuo's KED integration [5]_.

References
----------
.. [1] N. M. Newmark, "A method of computation for structural dynamics", Journal of the
   Engineering Mechanics Division (ASCE) 85(EM3):67-94, 1959.
.. [2] J. Chung and G. M. Hulbert, "A time integration algorithm for structural dynamics
   with improved numerical dissipation: the generalized-alpha method", Journal of Applied
   Mechanics 60:371-375, 1993.
.. [3] M. Arnold and O. Bruels, "Convergence of the generalized-alpha scheme for
   constrained mechanical systems", Multibody System Dynamics 18:185-202, 2007.
.. [4] S. Erlicher, L. Bonaventura and O. S. Bursi, "The analysis of the
   generalized-alpha method for non-linear dynamic problems", Computational Mechanics
   28:83-104, 2002.
.. [5] Y.-L. Kuo, "Mathematical modeling and analysis of the Delta robot with flexible
   links", Computers and Mathematics with Applications, 2016, section 5.3 (the linear
   time-varying KED equations are integrated "by the Newmark method with a constant time
   step"; the Newmark parameters are not stated, average acceleration is the default
   here).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import vector
from ..exceptions import ModelError
from ._system import LUFactor, check_system_callable, evaluate_system, time_grid
from .nonlinear import NonlinearProblem, generalized_alpha_nonlinear
from .scheme import generalized_alpha_parameters, newmark_parameters
# the scheme's classes were defined here before elastodyn.integrators.scheme: the old
# import path keeps working
from .scheme import GeneralizedAlphaParameters, NewmarkScheme  # noqa: F401

__all__ = [
    "SecondOrderResult",
    "newmark",
    "generalized_alpha",
]


def _readonly(a: np.ndarray) -> np.ndarray:
    """Mark ``a`` read-only in place and return it: the result arrays this module has
    just allocated are frozen without a copy (n_steps x n_dof each).

    Not ``trajectories.readonly``, which copies (and casts to float) arrays that come
    from the caller; and that one cannot be imported here: ``integrators`` and
    ``trajectories`` are independent modules of one layer (pyproject.toml's import
    contracts). A shared helper would belong in ``_validate``, the layer below both.
    """
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class SecondOrderResult:
    """Trajectory of a second-order system on a uniform time grid.

    Attributes
    ----------
    time : numpy.ndarray, shape (n_steps + 1,)
        Grid times ``t_k`` [s], ``time[0] = t0``, ``time[-1] = t_end``.
    q : numpy.ndarray, shape (n_steps + 1, n)
        Generalised coordinates ``q(t_k)`` (row ``k`` is time ``t_k``).
    qd : numpy.ndarray, shape (n_steps + 1, n)
        Generalised velocities.
    qdd : numpy.ndarray, shape (n_steps + 1, n)
        Accelerations carried by the scheme. For Newmark these satisfy the equation of
        motion at ``t_k``. For the generalised-alpha method they are the *algorithmic*
        accelerations ``a_k`` of Chung & Hulbert, which approximate
        ``qdd(t_k + (alpha_m - alpha_f) dt)`` to second order (Erlicher et al. 2002;
        Arnold & Bruels 2007) and hence ``qdd(t_k)`` only to first order unless
        ``rho_inf = 1``.
    method : str
        Description of the scheme and its parameters, e.g. ``"newmark(beta=0.25, gamma=0.5)"``.

    Notes
    -----
    The arrays are read-only.
    """

    time: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    method: str

    @property
    def n_steps(self) -> int:
        """Number of time steps taken."""
        return self.time.shape[0] - 1


class _LinearSystem(NonlinearProblem):
    """``M(t) z + C(t) v + K(t) x - f(t) = 0`` as the generalized-alpha loop's problem:
    affine in the accelerations z, with the exact iteration matrix M + gamma' C + beta' K
    (one Newton step per step is the solve of the effective system), factorized with a
    condition check and reused while M, C, K do not change."""

    linear = True

    def __init__(self, system, n: int, dt: float):
        self.n = n
        self.system, self.dt = system, dt
        self.mck = None        # (t, M, C, K) of the last residual
        self.prev = None       # (M, C, K, beta', gamma', solve) of the last factorization

    def residual(self, t, x, v, z):
        M, C, K, f = evaluate_system(self.system, t, self.n)
        self.mck = (t, M, C, K)
        return M @ z + C @ v + K @ x - f

    def solver(self, t, x, v, z, beta_p, gamma_p):
        t, M, C, K = self.mck
        prev = self.prev
        if not (prev is not None and prev[3:5] == (beta_p, gamma_p) and _same(prev[0], M)
                and _same(prev[1], C) and _same(prev[2], K)):
            S = M + gamma_p * C + beta_p * K
            factor = LUFactor(S, f"step matrix at t={t!r} (dt={self.dt!r})")
            self.prev = prev = (M, C, K, beta_p, gamma_p, factor.solve)
        return prev[5]


def _integrate(system, q0, qd0, qdd0, t0, t_end, dt, parameters, method):
    """The generalized-alpha loop (:func:`~.nonlinear.generalized_alpha_nonlinear`) on
    the linear system (Newmark: ``alpha_m = alpha_f = 0``), with the grid and the checks
    of this module. ``qdd0``: the algorithmic accelerations at t0 (default: the true
    ones, from the equation at t0)."""
    check_system_callable(system)
    time, h = time_grid(t0, t_end, dt)
    t0 = float(time[0])
    M0, C0, K0, f0 = evaluate_system(system, t0, None)
    n = M0.shape[0]
    q = vector("q0", q0, n)
    v = vector("qd0", qd0, n)
    a0 = None if qdd0 is None else vector("qdd0", qdd0, n)
    z0 = LUFactor(M0, f"mass matrix M(t0={t0!r})").solve(f0 - C0 @ v - K0 @ q)
    res = generalized_alpha_nonlinear(_LinearSystem(system, n, h), q, v, z0,
                                      t_end=float(time[-1]), dt=h, t0=t0,
                                      parameters=parameters, a0=a0, what=method)
    finite = np.isfinite(res.x).all(axis=1) & np.isfinite(res.v).all(axis=1)
    if not finite.all():                 # an overflow (a non-finite correction fails above)
        k = int(np.argmax(~finite))
        raise ModelError(f"{method}: non-finite state at t={time[k]!r}; "
                         "the step may be unstable for these parameters")
    return SecondOrderResult(time=_readonly(time), q=_readonly(res.x), qd=_readonly(res.v),
                             qdd=_readonly(res.a), method=method)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a is b or np.array_equal(a, b)


def newmark(
    system,
    q0,
    qd0,
    *,
    t_end: float,
    dt: float,
    t0: float = 0.0,
    beta: float = 0.25,
    gamma: float = 0.5,
    qdd0=None,
) -> SecondOrderResult:
    """Integrate ``M(t) qdd + C(t) qd + K(t) q = f(t)`` with Newmark's method, constant step.

    At each step the equation of motion is enforced at ``t_{k+1}``::

        M_{k+1} a_{k+1} + C_{k+1} v_{k+1} + K_{k+1} q_{k+1} = f_{k+1}
        q_{k+1} = q_k + dt v_k + dt^2 [(1/2 - beta) a_k + beta a_{k+1}]
        v_{k+1} = v_k + dt [(1 - gamma) a_k + gamma a_{k+1}]

    Parameters
    ----------
    system : callable
        ``system(t) -> (M, C, K, f)`` with ``M, C, K`` of shape (n, n) and ``f`` of shape
        (n,), SI units, ``t`` in seconds. ``M(t0)`` must be non-singular.
    q0 : array_like, shape (n,)
        Initial generalised coordinates.
    qd0 : array_like, shape (n,)
        Initial generalised velocities.
    t_end : float
        Final time [s], ``t_end > t0``.
    dt : float
        Time step [s], > 0. The number of steps is ``round((t_end - t0)/dt)``; it must
        reproduce ``dt`` to 1e-9 relative, otherwise :class:`InputError` is raised (the
        step actually used is ``(t_end - t0)/n_steps``).
    t0 : float, optional
        Initial time [s]. Default 0.
    beta : float, optional
        Newmark beta, >= 0. Default 1/4 (average acceleration).
    gamma : float, optional
        Newmark gamma, >= 0. Default 1/2. The method is second-order accurate only for
        ``gamma = 1/2`` and unconditionally stable for ``2 beta >= gamma >= 1/2``.
    qdd0 : array_like of shape (n,), optional
        Initial acceleration. Default ``None``: solved from the equation of motion at
        ``t0``, ``M(t0) qdd0 = f(t0) - C(t0) qd0 - K(t0) q0`` (needed for second order).

    Returns
    -------
    SecondOrderResult
        ``time`` (n_steps+1,), ``q``, ``qd``, ``qdd`` (n_steps+1, n), ``method``.

    Raises
    ------
    InputError
        ``dt <= 0``, ``t_end <= t0``, ``dt`` not dividing the interval, negative
        ``beta``/``gamma``, non-finite values, a ``system`` that is not callable.
    DimensionError
        ``q0``, ``qd0``, ``qdd0`` or the output of ``system`` have inconsistent shapes.
    ModelError
        ``M(t0)`` or a step matrix ``M + gamma dt C + beta dt^2 K`` is singular, or the
        state became non-finite.

    Notes
    -----
    Kuo (2016, section 5.3) integrates his KED model with Newmark and a constant step
    without stating ``beta``, ``gamma``; the defaults here are average acceleration,
    which is the trapezoidal rule: unconditionally stable, no numerical damping, period
    elongation ``T_num/T = omega dt / (2 arctan(omega dt / 2)) ~ 1 + (omega dt)^2/12``,
    and for constant symmetric ``M``, ``K`` with ``C = 0``, ``f = 0`` it conserves the
    energy ``qd.M.qd/2 + q.K.q/2`` exactly.

    References
    ----------
    N. M. Newmark, J. Eng. Mech. Div. ASCE 85(EM3):67-94, 1959.

    Examples
    --------
    >>> from elastodyn.integrators import constant_system
    >>> sys1 = constant_system([[1.0]], [[0.0]], [[4.0]])
    >>> res = newmark(sys1, [1.0], [0.0], t_end=1.0, dt=0.01)
    >>> res.q.shape
    (101, 1)
    """
    p = newmark_parameters(beta, gamma)
    return _integrate(system, q0, qd0, qdd0, t0, t_end, dt, p,
                      f"newmark(beta={p.beta!r}, gamma={p.gamma!r})")


def generalized_alpha(
    system,
    q0,
    qd0,
    *,
    t_end: float,
    dt: float,
    t0: float = 0.0,
    rho_inf: float = 0.8,
    qdd0=None,
) -> SecondOrderResult:
    """Integrate ``M(t) qdd + C(t) qd + K(t) q = f(t)`` with the generalised-alpha method.

    Arnold & Bruels (2007, eqs. (9)-(11)) form of the Chung & Hulbert (1993) scheme: the
    equation holds at ``t_{k+1}`` with the true accelerations ``z``,
    ``M z_{k+1} + C v_{k+1} + K q_{k+1} = f(t_{k+1})``, the Newmark updates act on the
    algorithmic accelerations ``a`` with
    ``(1 - alpha_m) a_{k+1} + alpha_m a_k = (1 - alpha_f) z_{k+1} + alpha_f z_k``, and
    ``alpha_m = (2 rho_inf - 1)/(rho_inf + 1)``, ``alpha_f = rho_inf/(rho_inf + 1)``,
    ``gamma = 1/2 - alpha_m + alpha_f``, ``beta = (1 - alpha_m + alpha_f)^2 / 4``
    (:mod:`elastodyn.integrators.scheme`). With ``x_{k+1-a} = (1 - a) x_{k+1} + a x_k``
    and constant matrices this is Chung & Hulbert's balance::

        M a_{k+1-alpha_m} + C v_{k+1-alpha_f} + K q_{k+1-alpha_f} = f_{k+1-alpha_f}

    Parameters
    ----------
    system : callable
        ``system(t) -> (M, C, K, f)``, shapes (n, n), (n, n), (n, n), (n,); SI units.
    q0, qd0 : array_like, shape (n,)
        Initial generalised coordinates and velocities.
    t_end : float
        Final time [s], ``t_end > t0``.
    dt : float
        Time step [s], > 0; must divide ``t_end - t0`` into an integer number of steps
        to 1e-9 relative (see :func:`newmark`).
    t0 : float, optional
        Initial time [s]. Default 0.
    rho_inf : float, optional
        Spectral radius at infinite frequency, in [0, 1]. Default 0.8.
    qdd0 : array_like of shape (n,), optional
        Initial algorithmic acceleration ``a_0``. Default ``None``: the acceleration of
        the equation of motion at ``t0``, which keeps ``q`` and ``qd`` second-order
        accurate. Supplying it is mainly useful to study the amplification matrix.

    Returns
    -------
    SecondOrderResult
        ``qdd`` holds the algorithmic accelerations ``a_k`` (see
        :class:`SecondOrderResult`).

    Raises
    ------
    InputError
        ``dt <= 0``, ``t_end <= t0``, ``dt`` not dividing the interval, ``rho_inf``
        outside [0, 1], non-finite values.
    DimensionError
        Inconsistent shapes of ``q0``, ``qd0``, ``qdd0`` or of the output of ``system``.
    ModelError
        ``M(t0)`` or a step matrix is singular, or the state became non-finite.

    Notes
    -----
    **Time-varying matrices.** ``M``, ``C``, ``K`` and ``f`` are evaluated at the grid
    times ``t_{k+1}``, where the equation holds exactly with the true accelerations
    (Arnold & Bruels 2007); the algorithmic ``a_k`` approximate
    ``qdd(t_k + (alpha_m - alpha_f) dt)`` to second order (Erlicher et al. 2002), which
    the relation above accounts for, so ``q`` and ``qd`` stay second-order accurate when
    the matrices vary (Arnold & Bruels, Theorem 1 for ODEs). For constant matrices the
    method is exactly that of Chung & Hulbert (the load at the generalized midpoint
    interpolated linearly between the grid times).

    Properties (Chung & Hulbert 1993): second-order accurate, unconditionally stable for
    linear systems, spectral radius ``-> rho_inf`` as ``omega dt -> inf`` and ``-> 1``
    as ``omega dt -> 0`` (minimal low-frequency dissipation for the given
    ``rho_inf``). ``rho_inf = 1`` is the average-acceleration Newmark scheme applied to
    the mid-step balance (no dissipation).

    References
    ----------
    J. Chung and G. M. Hulbert, J. Appl. Mech. 60:371-375, 1993.
    S. Erlicher, L. Bonaventura, O. S. Bursi, Comput. Mech. 28:83-104, 2002.
    M. Arnold, O. Bruels, Multibody Syst. Dyn. 18:185-202, 2007.
    """
    p = generalized_alpha_parameters(rho_inf)
    return _integrate(system, q0, qd0, qdd0, t0, t_end, dt, p,
                      f"generalized_alpha(rho_inf={p.rho_inf!r})")
