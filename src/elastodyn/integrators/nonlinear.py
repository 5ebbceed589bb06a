"""The generalized-alpha method for nonlinear second-order equations and index-3 DAEs.

Arnold & Bruels (2007) form of the Chung & Hulbert (1993) scheme, for equations of motion
written as a residual in the accelerations (and, for constrained systems, algebraic
unknowns such as Lagrange multipliers)::

    r(t, x, v, z) = 0,    z = [x_dd (n); lambda (m)]

with the Newmark updates on the *algorithmic* accelerations ``a``::

    x_{k+1} = x_k + h v_k + h^2 (1/2 - beta) a_k + h^2 beta a_{k+1}
    v_{k+1} = v_k + h (1 - gamma) a_k + h gamma a_{k+1}
    (1 - alpha_m) a_{k+1} + alpha_m a_k = (1 - alpha_f) x_dd_{k+1} + alpha_f x_dd_k

(Arnold & Bruels 2007, eqs. (9)-(11)): the equation holds exactly at ``t_{k+1}`` with the
true accelerations ``x_dd``; second order for ODEs and for index-3 DAEs in the positions
(their Theorem 1). The parameters (:func:`~.scheme.generalized_alpha_parameters`, or
:func:`~.scheme.newmark_parameters`), the predictor and corrector and the relation between
``a`` and ``x_dd`` are those of :class:`~.scheme.GeneralizedAlphaScheme`; this module is
the stepping loop, the one of elastodyn (the linear :func:`~.second_order.newmark` and
:func:`~.second_order.generalized_alpha` and the FFRF runs call it). Each step solves
``r = 0`` for ``z_{k+1}`` by Newton iterations with an approximate iteration matrix
``dr/dz`` supplied by the problem, which the problem builds from its mass matrix and the
coefficients ``beta' = dx/dx_dd`` and ``gamma' = dv/dx_dd`` of the scheme
(``M + gamma' C_t + beta' K_t`` for an ODE; for an index-3 DAE with the constraint rows
scaled by ``1 / beta'``, ``[[M + beta' K_t, C_q^T], [C_q, 0]]``, Arnold & Bruels section 4).
A problem whose residual is affine in z with that matrix its exact derivative (``linear``)
is solved by one Newton step per step: the linear solve of the effective system.

The arrays may be complex (complex-step differentiation of a whole run): the convergence
test uses the real parts, and with ``complex_step`` also the imaginary parts divided by
it (the derivatives), which Newton corrects by the same linearized equations.

References
----------
M. Arnold and O. Bruels, Multibody Syst. Dyn. 18:185-202, 2007.
J. Chung and G. M. Hulbert, J. Appl. Mech. 60:371-375, 1993.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..exceptions import InputError, ModelError
from .scheme import (GeneralizedAlphaParameters, GeneralizedAlphaScheme,
                     generalized_alpha_parameters, iteration_coefficients)

__all__ = ["NonlinearProblem", "NonlinearResult", "StopIntegration",
           "generalized_alpha_nonlinear", "iteration_coefficients"]


class StopIntegration(Exception):
    """Raised by a problem's ``residual`` or ``accept`` to end the run at the last
    accepted step (for example at a singular configuration); ``reason`` is kept in the
    result and ``t_event`` (s or None) is the problem's estimate of the event time."""

    def __init__(self, reason: str, t_event: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.t_event = t_event


class NonlinearProblem:
    """What :func:`generalized_alpha_nonlinear` needs (override the three methods).

    ``n`` differential unknowns x (their rates v and accelerations), ``m`` algebraic
    unknowns (the rest of z).
    """

    n: int
    m: int = 0
    linear: bool = False
    """The residual is affine in z and :meth:`matrix` (or :meth:`solver`) is its exact
    derivative: one Newton step solves each step (no convergence test, no second
    residual)."""
    extrapolate: bool = False
    """Start each step's Newton iteration from the unknowns extrapolated linearly from
    the last two steps, 2 z_n - z_{n-1}, instead of z_n: the same converged step (to
    the tolerance), fewer iterations where the accelerations vary smoothly (Kuo's
    pick-and-place by the exact formulation: 4.6 -> 3.2 iterations per step, the run
    22 % faster, the end-effector within 3e-9 m)."""
    damped: bool = False
    """Globalize Newton by the natural monotonicity test (P. Deuflhard, Newton Methods
    for Nonlinear Problems, Springer 2004, sec. 3.3): a correction dz is applied with
    the largest lambda in 1, 1/2, ... 1/64 for which the next simplified correction
    (the same iteration matrix) shrinks, |A^-1 r(z + lambda dz)| <= (1 - lambda / 4)
    |dz|. For residuals whose slope changes faster than Newton can follow: a smoothed
    Coulomb friction (tanh of the rate over 1e-3 rad/s) on a joint with little inertia
    of its own, where the plain iteration jumps between the two signs of the friction
    (measured on a geometrically exact arm released under gravity). A full step that
    passes the test costs no extra residual: its residual is the next iteration's."""

    def prepare(self, beta_p: float, gamma_p: float) -> None:
        """Called once before the first step with the step's coefficients (a problem
        that scales constraint rows by 1 / beta' keeps it)."""

    def residual(self, t: float, x, v, z):
        """r (n + m,): the equations of motion at (t, x, v) with the unknowns z."""
        raise NotImplementedError

    def matrix(self, t: float, x, v, z, beta_p: float, gamma_p: float):
        """(n + m, n + m): an approximation of dr/dz (module docstring)."""
        raise NotImplementedError

    def solver(self, t: float, x, v, z, beta_p: float, gamma_p: float):
        """``solve(r) -> dz`` with the iteration matrix (dz = A^-1 r): by default an LU
        factorization of :meth:`matrix` (LAPACK getrf); a problem may reuse one across
        steps (a linear system with constant matrices) or check its condition."""
        factors = _lu_factor(self.matrix(t, x, v, z, beta_p, gamma_p))
        return lambda r: _lu_solve(factors, r)

    def failed(self, t: float, message: str) -> None:
        """Called when Newton fails at step t; raise :class:`StopIntegration` when the
        failure is an event the problem recognizes (the run then ends at the last
        accepted step), else return (the run fails with ModelError: message)."""

    def accept(self, t: float, x, v, z):
        """Called after each converged step; returns the (possibly projected) (x, v).
        Raise :class:`StopIntegration` to end the run (the step is not kept)."""
        return x, v


def _lu_factor(A):
    """LU factors of the iteration matrix by LAPACK getrf directly (scipy.linalg.
    lu_factor's wrapper costs more than the factorization at these sizes: 11 us against
    8 us for 39 rows, and lu_solve 8 us against 1 us). A singular matrix leaves a zero
    pivot: the solve then gives non-finite corrections, which end the step."""
    if A.shape[0] == 0:      # no unknowns (a rigid system driven by its motion)
        return A, None, None
    getrf, getrs = scipy.linalg.get_lapack_funcs(("getrf", "getrs"), (A,))
    lu, piv, info = getrf(A)
    if info < 0:
        raise ModelError(f"LAPACK getrf: argument {-info} is invalid")
    return lu, piv, getrs


def _lu_solve(factors, b):
    """A^-1 b with the factors of :func:`_lu_factor` (a complex b against real factors:
    its two parts solved separately)."""
    lu, piv, getrs = factors
    if getrs is None:
        return np.array(b)
    if np.iscomplexobj(b) and not np.iscomplexobj(lu):
        return _lu_solve(factors, b.real) + 1j * _lu_solve(factors, b.imag)
    x, info = getrs(lu, piv, b)
    if info < 0:
        raise ModelError(f"LAPACK getrs: argument {-info} is invalid")
    return x


@dataclass(frozen=True)
class NonlinearResult:
    """time (k+1,), x, v (k+1, n), z (k+1, n+m), newton (k+1,) iterations per step,
    stopped: the reason the run ended early ('' if it reached t_end), t_event: the
    problem's estimate of that event's time (s or None), a (k+1, n): the algorithmic
    accelerations (:class:`~.scheme.GeneralizedAlphaScheme`)."""

    time: np.ndarray
    x: np.ndarray
    v: np.ndarray
    z: np.ndarray
    newton: np.ndarray
    stopped: str
    t_event: float | None
    a: np.ndarray | None = None


def _damped_newton(problem, scheme, t, x_pred, v_pred, zk, ak, atol, rtol, max_iter,
                   what, h):
    """Newton's iteration of one step with the natural monotonicity test
    (:attr:`NonlinearProblem.damped`): returns the converged (z, a, iterations)."""
    n = x_pred.size
    beta_p, gamma_p = scheme.beta_p, scheme.gamma_p

    def measure(dz, x):
        dx = np.abs(beta_p * dz[:n].real)
        return float((dx / (atol + rtol * np.abs(x.real))).max()) if n else 0.0

    def fail(msg):
        problem.failed(t, msg)
        raise ModelError(msg)

    xk, vk = scheme.correct(x_pred, v_pred, ak)
    r = problem.residual(t, xk, vk, zk)
    solve = problem.solver(t, xk, vk, zk, beta_p, gamma_p)
    it = 0
    while True:
        dz = -solve(r)
        size = measure(dz, xk)
        if not np.isfinite(size):
            fail(f"{what}: non-finite Newton correction at t = {t:.6g} s (reduce the step "
                 f"dt = {h:.3g} s)")
        if size <= 1.0:
            return zk + dz, ak + scheme.c * dz[:n], it + 1
        if it >= max_iter:
            fail(f"{what}: Newton did not converge at t = {t:.6g} s in {it} iterations "
                 f"(reduce the step dt = {h:.3g} s)")
        lam = 1.0
        while True:
            z_t = zk + lam * dz
            a_t = ak + scheme.c * (lam * dz[:n])
            x_t, v_t = scheme.correct(x_pred, v_pred, a_t)
            r_t = problem.residual(t, x_t, v_t, z_t)
            size_t = measure(solve(r_t), x_t)
            if size_t <= (1.0 - 0.25 * lam) * size or lam <= 1.0 / 64:
                break
            lam *= 0.5
        zk, ak, xk, vk, r = z_t, a_t, x_t, v_t, r_t
        it += 1
        if not size_t <= 0.5 * size:        # slow contraction: a new iteration matrix
            solve = problem.solver(t, xk, vk, zk, beta_p, gamma_p)


def generalized_alpha_nonlinear(problem: NonlinearProblem, x0, v0, z0, *, t_end: float,
                                dt: float, t0: float = 0.0, rho_inf: float = 0.8,
                                atol=1e-12, rtol: float = 1e-10, max_iter: int = 20,
                                complex_step: float | None = None,
                                progress=None,
                                parameters: GeneralizedAlphaParameters | None = None,
                                a0=None, what: str = "generalized-alpha"
                                ) -> NonlinearResult:
    """Integrate ``problem`` from the consistent state (x0, v0, z0) at t0 to t_end.

    Parameters
    ----------
    x0, v0 : (n,) positions and rates; z0 : (n + m,) accelerations and algebraic
        unknowns at t0 (consistent: ``problem.residual(t0, x0, v0, z0) = 0``).
    t_end : end time [s] (> t0); dt : step [s] (> 0; the last step ends at t_end).
    rho_inf : spectral radius at infinite frequency, [0, 1] (1: no numerical dissipation,
        the trapezoidal rule; 0.8 default: the modes with ``omega dt >> 1`` are damped,
        those resolved keep their amplitude to O((omega dt)^3) per step).
    atol : float or (n,): absolute tolerance on the Newton corrections of the positions
        (beta' times the acceleration corrections) [units of x]; rtol relative to |x|.
    max_iter : Newton iterations per step (the iteration matrix is refreshed when the
        corrections stop shrinking); beyond it the run fails with ModelError.
    complex_step : the imaginary perturbation of a complex-step run (> 0), optional:
        Newton then also stops only when the imaginary corrections divided by it (the
        corrections of the derivatives) meet the same tolerances, so the derivatives are
        converged as well as the values (the iteration matrix is approximate, so the two
        do not converge in the same iteration in general).
    progress : callable (t, t_end), optional, after every step.
    parameters : the scheme's parameters instead of those of ``rho_inf`` (e.g.
        :func:`~.scheme.newmark_parameters`), optional.
    a0 : (n,) the algorithmic accelerations at t0, optional (default: x_dd(t0) of z0,
        as Arnold & Bruels start; another value serves to study the amplification
        matrix of the (x, v, a) recurrence).
    what : the name of the method in error messages.
    """
    p = generalized_alpha_parameters(rho_inf) if parameters is None else parameters
    if complex_step is not None and not (math.isfinite(complex_step) and complex_step > 0):
        raise InputError("complex_step", complex_step, "a finite perturbation > 0")
    if complex_step is not None and problem.damped:
        raise InputError("complex_step", complex_step, "None for a damped problem (its "
                         "monotonicity test measures the real corrections only)")
    T0, T1 = float(t0), float(t_end)
    h = float(dt)
    if not (math.isfinite(h) and h > 0):
        raise InputError("dt", dt, "a finite step > 0 s")
    if not (math.isfinite(T1) and T1 > T0):
        raise InputError("t_end", t_end, f"a finite time > t0 = {T0!r} s")
    # a step within 1e-9 of dividing the interval is taken as dividing it (no sliver step)
    n_steps = max(1, int(math.ceil((T1 - T0) / h - 1e-9)))
    h = (T1 - T0) / n_steps
    scheme = GeneralizedAlphaScheme(p, h)
    beta_p, gamma_p = scheme.beta_p, scheme.gamma_p
    problem.prepare(beta_p, gamma_p)
    x = np.array(x0)
    v = np.array(v0)
    z = np.array(z0)
    n = x.size
    a = z[:n].copy() if a0 is None else np.array(a0)    # algorithmic accelerations
    times, xs, vs, zs, its, acc = [T0], [x.copy()], [v.copy()], [z.copy()], [0], [a.copy()]
    stopped, t_event = "", None
    atol = np.broadcast_to(np.asarray(atol, dtype=float), (n,))
    for k in range(n_steps):
        t = T0 + (k + 1) * h
        x_pred, v_pred, a_known = scheme.start(x, v, a, z[:n])
        zk = z.copy()
        if problem.extrapolate and len(zs) > 1 and not problem.linear:
            zk = 2.0 * z - zs[-2]          # Newton's start: z extrapolated linearly
        if problem.linear:
            # one exact step: its start matters for round-off only. From a_{k+1} = a_k
            # the correction is the change of a (Chung & Hulbert's unknown); from
            # x_dd_{k+1} = x_dd_k it would be a's difference from a_known + c x_dd_k,
            # which for a stiff mode (omega dt >> 1, |a| ~ |x_dd| / (omega dt)^2) cancels
            # to a relative error eps (omega dt)^2 (measured 6e-10 in the spectral
            # radius of rho_inf = 1 at omega dt = 1e4, against 1e-16 from a_k)
            ak = a.copy()
            zk[:n] = scheme.true_accelerations(a_known, ak)
        else:
            ak = scheme.algorithmic(a_known, zk[:n])
        try:
            it, last = 0, np.inf
            if problem.damped:
                zk, ak, it = _damped_newton(problem, scheme, t, x_pred, v_pred, zk, ak,
                                            atol, rtol, max_iter, what, h)
            while not problem.damped:
                xk, vk = scheme.correct(x_pred, v_pred, ak)
                r = problem.residual(t, xk, vk, zk)
                # a new iteration matrix at the first iterate of every step (cheap: the
                # problem builds it from the mass matrix of this residual) and again
                # when the corrections stop shrinking
                if it == 0 or (it > 2 and size > 0.5 * last):
                    solve = problem.solver(t, xk, vk, zk, beta_p, gamma_p)
                if it > 0:
                    last = size
                dz = -solve(r)
                zk = zk + dz
                ak = ak + scheme.c * dz[:n]      # the increments: no cancellation in a
                it += 1
                dx = np.abs(beta_p * dz[:n].real)
                size = float((dx / (atol + rtol * np.abs(xk.real))).max()) if n else 0.0
                if complex_step is not None:
                    di = np.abs(beta_p * dz[:n].imag) / complex_step
                    size = max(size, float(np.max(
                        di / (atol + rtol * np.abs(xk.imag) / complex_step), initial=0.0)))
                if not np.isfinite(size):
                    msg = (f"{what}: non-finite Newton correction at t = {t:.6g} s "
                           f"(reduce the step dt = {h:.3g} s)")
                    problem.failed(t, msg)
                    raise ModelError(msg)
                if size <= 1.0 or problem.linear:
                    break
                if it >= max_iter:
                    msg = (f"{what}: Newton did not converge at t = {t:.6g} s "
                           f"in {it} iterations (reduce the step dt = {h:.3g} s)")
                    problem.failed(t, msg)
                    raise ModelError(msg)
            xk, vk = scheme.correct(x_pred, v_pred, ak)
            xk, vk = problem.accept(t, xk, vk, zk)
        except StopIntegration as e:
            stopped, t_event = e.reason, e.t_event
            break
        x, v, z, a = xk, vk, zk, ak
        times.append(t)
        xs.append(x.copy())
        vs.append(v.copy())
        zs.append(z.copy())
        its.append(it)
        acc.append(a.copy())
        if progress is not None:
            progress(t, T1)
    return NonlinearResult(np.array(times), np.array(xs), np.array(vs), np.array(zs),
                           np.array(its), stopped, t_event, np.array(acc))
