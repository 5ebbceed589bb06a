"""Constant-step implicit integrators for linear time-varying second-order systems.

Both methods integrate

.. math:: M(t)\\,\\ddot q + C(t)\\,\\dot q + K(t)\\,q = f(t), \\qquad
          q(t_0) = q_0,\\ \\dot q(t_0) = \\dot q_0

on a uniform grid ``t_k = t0 + k*dt``. The system is a callable ``system(t) -> (M, C, K, f)``
(see :func:`elastodyn.integrators.constant_system` for constant matrices). Each step
solves one linear system of size ``n`` with the effective (step) matrix; when the matrices
returned by ``system`` do not change between steps the factorisation is reused. Sources:
Newmark [1]_, generalized-alpha [2]_ [3]_ [4]_, Kuo's KED integration [5]_.

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

import math
from dataclasses import dataclass

import numpy as np

from .._validate import non_negative, vector
from ..exceptions import InputError, ModelError
from ._system import LUFactor, check_system_callable, evaluate_system, time_grid

__all__ = [
    "NewmarkScheme",
    "SecondOrderResult",
    "GeneralizedAlphaParameters",
    "generalized_alpha_parameters",
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


@dataclass(frozen=True)
class GeneralizedAlphaParameters:
    """Parameters of the generalised-alpha method (Chung & Hulbert 1993 convention).

    Attributes
    ----------
    rho_inf : float
        Spectral radius at infinite frequency, in [0, 1].
    alpha_m : float
        ``(2 rho_inf - 1) / (rho_inf + 1)``, in [-1, 1/2].
    alpha_f : float
        ``rho_inf / (rho_inf + 1)``, in [0, 1/2].
    beta : float
        ``(1 - alpha_m + alpha_f)**2 / 4``, in [1/4, 1].
    gamma : float
        ``1/2 - alpha_m + alpha_f``, in [1/2, 3/2].
    """

    rho_inf: float
    alpha_m: float
    alpha_f: float
    beta: float
    gamma: float


def generalized_alpha_parameters(rho_inf: float) -> GeneralizedAlphaParameters:
    """Return the Chung-Hulbert parameters for a given high-frequency spectral radius.

    Parameters
    ----------
    rho_inf : float
        Spectral radius of the amplification matrix as ``omega*dt -> inf``; valid range
        [0, 1]. ``1`` gives no numerical dissipation (the trapezoidal rule / average
        acceleration), ``0`` annihilates the highest frequencies in one step.

    Returns
    -------
    GeneralizedAlphaParameters

    Raises
    ------
    InputError
        If ``rho_inf`` is not a finite number in [0, 1].

    References
    ----------
    J. Chung and G. M. Hulbert, J. Appl. Mech. 60:371-375, 1993, eqs. (25) and (17)-(18).

    Examples
    --------
    >>> p = generalized_alpha_parameters(1.0)
    >>> (p.alpha_m, p.alpha_f, p.beta, p.gamma)
    (0.5, 0.5, 0.25, 0.5)
    """
    try:
        r = float(rho_inf)
    except (TypeError, ValueError):
        raise InputError("rho_inf", rho_inf, "a number in [0, 1]") from None
    if not math.isfinite(r) or r < 0.0 or r > 1.0:
        raise InputError("rho_inf", rho_inf, "a number in [0, 1]")
    alpha_m = (2.0 * r - 1.0) / (r + 1.0)
    alpha_f = r / (r + 1.0)
    gamma = 0.5 - alpha_m + alpha_f
    beta = 0.25 * (1.0 - alpha_m + alpha_f) ** 2
    return GeneralizedAlphaParameters(r, alpha_m, alpha_f, beta, gamma)


class NewmarkScheme:
    """Newmark's constant-step update: coefficients, predictor, corrector (Newmark 1959).

    With step h and parameters beta, gamma, one step from (q_k, v_k, a_k) is

    * predictor: q~ = q_k + h v_k + (1/2 - beta) h^2 a_k,  v~ = v_k + (1 - gamma) h a_k;
    * solve: the new acceleration a_{k+1} from the balance equation written with
      q_{k+1} = q~ + beta h^2 a_{k+1} and v_{k+1} = v~ + gamma h a_{k+1}; for
      M a + C v + K q = f at t_{k+1} this is the effective system
      (M + gamma h C + beta h^2 K) a_{k+1} = f - C v~ - K q~ (:meth:`effective`);
    * corrector: q_{k+1} = q~ + beta h^2 a_{k+1},  v_{k+1} = v~ + gamma h a_{k+1}.

    The solve is pluggable (:meth:`step` takes it as a callable), so that the same
    predictor and corrector serve :func:`newmark`, :func:`generalized_alpha` (whose
    balance is taken at the generalised midpoint) and structured solvers such as the
    leg-block (arrow) elimination of the KED Delta model
    (:mod:`elastodyn.formulations.ked.simulation`).

    Parameters
    ----------
    dt : float
        Step h [s]; > 0.
    beta, gamma : float
        Newmark parameters, >= 0 (default 1/4, 1/2: average acceleration).

    Attributes
    ----------
    dt, beta, gamma : float
    bh2 : float
        beta h^2 [s^2].
    gh : float
        gamma h [s].

    Notes
    -----
    The arrays may carry leading batch axes (the updates are elementwise).
    """

    __slots__ = ("dt", "beta", "gamma", "bh2", "gh", "_ph2", "_gh1")

    def __init__(self, dt: float, beta: float = 0.25, gamma: float = 0.5):
        h = float(dt)
        if not (math.isfinite(h) and h > 0.0):
            raise InputError("dt", dt, "a finite number > 0")
        self.dt = h
        self.beta = non_negative("beta", beta)
        self.gamma = non_negative("gamma", gamma)
        self.bh2 = self.beta * h * h
        self.gh = self.gamma * h
        self._ph2 = (0.5 - self.beta) * h * h
        self._gh1 = (1.0 - self.gamma) * h

    def __repr__(self) -> str:
        return f"NewmarkScheme(dt={self.dt!r}, beta={self.beta!r}, gamma={self.gamma!r})"

    def effective(self, M, C, K):
        """Effective (step) matrix M + gamma h C + beta h^2 K, same shape as M."""
        return M + self.gh * C + self.bh2 * K

    def predict(self, q, v, a):
        """(q~, v~) from the state (q_k, v_k, a_k) (see the class docstring)."""
        return q + self.dt * v + self._ph2 * a, v + self._gh1 * a

    def correct(self, q_pred, v_pred, a):
        """(q_{k+1}, v_{k+1}) from the predictors and the new acceleration a_{k+1}."""
        return q_pred + self.bh2 * a, v_pred + self.gh * a

    def step(self, q, v, a, solve):
        """One step: predictor, ``a_new = solve(q~, v~)``, corrector.

        Parameters
        ----------
        q, v, a : ndarray, shape (..., n)
            State at t_k.
        solve : callable
            ``solve(q_pred, v_pred) -> a_new``: the new acceleration, from the balance
            equation at the predicted state (e.g. the solution of the effective system
            with the right-hand side f - C v~ - K q~).

        Returns
        -------
        (q, v, a) at t_{k+1}.
        """
        q_pred, v_pred = self.predict(q, v, a)
        a = solve(q_pred, v_pred)
        q, v = self.correct(q_pred, v_pred, a)
        return q, v, a


def _integrate(system, q0, qd0, qdd0, t0, t_end, dt, *, alpha_m, alpha_f, beta, gamma, method):
    """Common stepping loop (:class:`NewmarkScheme` predictor and corrector); Newmark is
    the case ``alpha_m = alpha_f = 0``.

    Balance at the generalised midpoint ``t_a = (1 - alpha_f) t_{k+1} + alpha_f t_k``::

        M(t_a) [(1-am) a_{k+1} + am a_k] + C(t_a) [(1-af) v_{k+1} + af v_k]
            + K(t_a) [(1-af) q_{k+1} + af q_k] = f(t_a)

    with the Newmark updates ``q_{k+1} = q~ + beta h^2 a_{k+1}``,
    ``v_{k+1} = v~ + gamma h a_{k+1}``.
    """
    check_system_callable(system)
    time, h = time_grid(t0, t_end, dt)
    t0 = float(time[0])
    M0, C0, K0, f0 = evaluate_system(system, t0, None)
    n = M0.shape[0]
    q = vector("q0", q0, n)
    v = vector("qd0", qd0, n)
    mass0 = LUFactor(M0, f"mass matrix M(t0={t0!r})")
    if qdd0 is None:
        a = mass0.solve(f0 - C0 @ v - K0 @ q)
    else:
        a = vector("qdd0", qdd0, n)

    n_steps = time.shape[0] - 1
    Q = np.empty((n_steps + 1, n))
    V = np.empty((n_steps + 1, n))
    A = np.empty((n_steps + 1, n))
    Q[0], V[0], A[0] = q, v, a

    cm = 1.0 - alpha_m
    cf = 1.0 - alpha_f
    scheme = NewmarkScheme(h, beta, gamma)
    bh2, gh = scheme.bh2, scheme.gh

    def solve(q_pred, v_pred):
        # balance at t_a with the step's M, C, K, f and the previous state q, v, a
        rhs = f - C @ (cf * v_pred + alpha_f * v) - K @ (cf * q_pred + alpha_f * q)
        if alpha_m != 0.0:
            rhs -= alpha_m * (M @ a)
        return factor.solve(rhs)

    prev = None  # (M, C, K, factor) of the last step matrix
    for k in range(n_steps):
        t_a = cf * time[k + 1] + alpha_f * time[k]
        M, C, K, f = evaluate_system(system, t_a, n)
        if prev is not None and _same(prev[0], M) and _same(prev[1], C) and _same(prev[2], K):
            factor = prev[3]
        else:
            S = cm * M + (cf * gh) * C + (cf * bh2) * K
            factor = LUFactor(S, f"step matrix at t={t_a!r} (dt={h!r})")
            prev = (M, C, K, factor)
        q, v, a = scheme.step(q, v, a, solve)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise ModelError(
                f"{method}: non-finite state at t={time[k + 1]!r}; "
                "the step may be unstable for these parameters"
            )
        Q[k + 1], V[k + 1], A[k + 1] = q, v, a

    return SecondOrderResult(
        time=_readonly(time), q=_readonly(Q), qd=_readonly(V), qdd=_readonly(A), method=method
    )


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
    beta = non_negative("beta", beta)
    gamma = non_negative("gamma", gamma)
    return _integrate(
        system, q0, qd0, qdd0, t0, t_end, dt,
        alpha_m=0.0, alpha_f=0.0, beta=beta, gamma=gamma,
        method=f"newmark(beta={beta!r}, gamma={gamma!r})",
    )


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

    Chung & Hulbert (1993) balance, with ``x_{k+1-a} = (1 - a) x_{k+1} + a x_k``::

        M a_{k+1-alpha_m} + C v_{k+1-alpha_f} + K q_{k+1-alpha_f} = f(t_{k+1-alpha_f})

    and the Newmark updates for ``q_{k+1}``, ``v_{k+1}`` with
    ``alpha_m = (2 rho_inf - 1)/(rho_inf + 1)``, ``alpha_f = rho_inf/(rho_inf + 1)``,
    ``gamma = 1/2 - alpha_m + alpha_f``, ``beta = (1 - alpha_m + alpha_f)^2 / 4``.

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
    **Time-varying matrices.** All of ``M``, ``C``, ``K`` and ``f`` are evaluated at the
    single generalised-midpoint time ``t_{k+1-alpha_f} = t_k + (1 - alpha_f) dt``, the
    time at which Chung & Hulbert evaluate the load. This is the consistent choice: the
    weighted acceleration ``a_{k+1-alpha_m}`` approximates ``qdd(t_{k+1-alpha_f})`` (not
    ``qdd(t_{k+1-alpha_m})``) to second order (Erlicher et al. 2002; Arnold & Bruels
    2007), so the discrete balance has an O(dt^2) residual. Evaluating ``M`` at
    ``t_{k+1-alpha_m}`` instead would make the scheme only first-order accurate when
    ``M`` varies in time. For constant matrices the method is exactly that of Chung &
    Hulbert.

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
    return _integrate(
        system, q0, qd0, qdd0, t0, t_end, dt,
        alpha_m=p.alpha_m, alpha_f=p.alpha_f, beta=p.beta, gamma=p.gamma,
        method=f"generalized_alpha(rho_inf={p.rho_inf!r})",
    )
