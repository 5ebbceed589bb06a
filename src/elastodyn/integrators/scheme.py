"""The one place of the Newmark and generalized-alpha formulas: the parameters from the
high-frequency spectral radius, the predictor and corrector, and the relation between the
algorithmic and the true accelerations.

Every integrator of elastodyn takes them from here: :func:`~.nonlinear.
generalized_alpha_nonlinear` (the stepping loop, for nonlinear equations and index-3
DAEs), :func:`~.second_order.newmark` and :func:`~.second_order.generalized_alpha` (linear
time-varying systems, thin callers of that loop), the batched KED Newmark
(:mod:`elastodyn.formulations.ked.simulation`, :class:`NewmarkScheme` with its own
structured solve); the compiled NE-PVP loop
(:mod:`elastodyn.formulations.nepvp.driver`, C for speed) receives the parameters of
:func:`generalized_alpha_parameters` and writes the same formulas in C.

References
----------
N. M. Newmark, "A method of computation for structural dynamics", J. Eng. Mech. Div.
ASCE 85(EM3):67-94, 1959.
J. Chung and G. M. Hulbert, "A time integration algorithm for structural dynamics with
improved numerical dissipation: the generalized-alpha method", J. Appl. Mech.
60:371-375, 1993.
M. Arnold and O. Bruels, "Convergence of the generalized-alpha scheme for constrained
mechanical systems", Multibody Syst. Dyn. 18:185-202, 2007.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import non_negative
from ..exceptions import InputError

__all__ = ["STEP_ERROR_LIMIT", "richardson_error", "GeneralizedAlphaParameters",
           "generalized_alpha_parameters",
           "newmark_parameters", "NewmarkScheme", "GeneralizedAlphaScheme",
           "iteration_coefficients"]


@dataclass(frozen=True)
class GeneralizedAlphaParameters:
    """Parameters of the generalised-alpha method (Chung & Hulbert 1993 convention).

    Attributes
    ----------
    rho_inf : float
        Spectral radius at infinite frequency, in [0, 1]; NaN for parameters not chosen
        from it (:func:`newmark_parameters`; the ranges below are those of
        :func:`generalized_alpha_parameters`).
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


STEP_ERROR_LIMIT = 0.05
"""Largest time-step error estimate of a run, relative to the response it computes (issue
32 item 3: 5 %); above it a default step is refined, or the result warns."""


def richardson_error(fine, coarse, order: int = 2):
    """The error estimate of a run at step h from the same run at 2 h (arrays of the same
    shape, at the same times): Richardson extrapolation for a method of ``order`` (the
    generalized-alpha and Newmark families: 2), e = (x_h - x_2h) / (2^order - 1)."""
    return (fine - coarse) / (2.0 ** order - 1.0)


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


def newmark_parameters(beta: float = 0.25,
                       gamma: float = 0.5) -> GeneralizedAlphaParameters:
    """Newmark's method as the generalized-alpha method with ``alpha_m = alpha_f = 0``
    (Chung & Hulbert 1993, section 2: the algorithmic accelerations are then the true
    ones); ``rho_inf`` NaN (not a parameter of Newmark's family). ``beta``, ``gamma``
    >= 0 (InputError otherwise)."""
    return GeneralizedAlphaParameters(math.nan, 0.0, 0.0, non_negative("beta", beta),
                                      non_negative("gamma", gamma))


def iteration_coefficients(rho_inf: float, dt: float) -> tuple[float, float]:
    """(beta', gamma'): dx/dx_dd [s^2] and dv/dx_dd [s] of the generalized-alpha step
    dt for the spectral radius rho_inf (:class:`GeneralizedAlphaScheme`), for a
    problem's iteration matrix and scaled constraint rows."""
    s = GeneralizedAlphaScheme(generalized_alpha_parameters(rho_inf), dt)
    return s.beta_p, s.gamma_p


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
    predictor and corrector serve the generalized-alpha loop
    (:class:`GeneralizedAlphaScheme`, on the algorithmic accelerations) and structured
    solvers such as the leg-block (arrow) elimination of the KED Delta model
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


class GeneralizedAlphaScheme:
    """One generalized-alpha step in the form of Arnold & Bruels (2007, eqs. (9)-(11)):
    the equations hold at t_{k+1} with the true accelerations x_dd, and the Newmark
    predictor and corrector (:class:`NewmarkScheme`) act on the *algorithmic*
    accelerations a, related to them by

        (1 - alpha_m) a_{k+1} + alpha_m a_k = (1 - alpha_f) x_dd_{k+1} + alpha_f x_dd_k.

    Within a step the state (x_k, v_k, a_k, x_dd_k) is fixed and the unknown is
    x_dd_{k+1}: :meth:`start` returns what the step keeps (the Newmark predictors and
    the part of a_{k+1} known at t_k), :meth:`algorithmic` the a_{k+1} of a value of
    x_dd_{k+1} (:attr:`c` = da_{k+1}/dx_dd_{k+1}), :meth:`correct` the (x, v) at t_{k+1}
    of a_{k+1}. The derivatives of x and v with respect to x_dd_{k+1} are

        dx/dx_dd = beta' = h^2 beta (1 - alpha_f) / (1 - alpha_m),
        dv/dx_dd = gamma' = h gamma (1 - alpha_f) / (1 - alpha_m),

    (:attr:`beta_p`, :attr:`gamma_p`), from which a problem builds its iteration matrix
    (``M + gamma' C_t + beta' K_t`` for an ODE; Arnold & Bruels, section 4).

    For a linear system with constant matrices, multiplying the relation by M gives
    Chung & Hulbert's balance at the generalized midpoint, ``M a_{k+1-alpha_m} +
    C v_{k+1-alpha_f} + K x_{k+1-alpha_f} = (1 - alpha_f) f_{k+1} + alpha_f f_k``, so
    both forms have the same amplification matrix (Arnold & Bruels, section 2): second
    order, spectral radius rho_inf at infinite frequency. Newmark is ``alpha_m =
    alpha_f = 0`` (:func:`newmark_parameters`), where a = x_dd.

    Parameters
    ----------
    parameters : GeneralizedAlphaParameters
    dt : float
        Step h [s], > 0.
    """

    __slots__ = ("parameters", "newmark", "c", "beta_p", "gamma_p", "_cm")

    def __init__(self, parameters: GeneralizedAlphaParameters, dt: float):
        p = parameters
        self.parameters = p
        self.newmark = NewmarkScheme(dt, p.beta, p.gamma)
        self._cm = 1.0 - p.alpha_m
        self.c = (1.0 - p.alpha_f) / self._cm
        self.beta_p = self.newmark.bh2 * self.c
        self.gamma_p = self.newmark.gh * self.c

    def start(self, x, v, a, xdd):
        """(x~, v~, a~): the Newmark predictors of x and v and the part of a_{k+1}
        known at t_k, ``(alpha_f x_dd_k - alpha_m a_k) / (1 - alpha_m)``."""
        p = self.parameters
        x_pred, v_pred = self.newmark.predict(x, v, a)
        return x_pred, v_pred, (p.alpha_f * xdd - p.alpha_m * a) / self._cm

    def algorithmic(self, a_known, xdd):
        """a_{k+1} = a~ + c x_dd_{k+1} (the relation of the class docstring)."""
        return a_known + self.c * xdd

    def true_accelerations(self, a_known, a):
        """x_dd_{k+1} of a_{k+1}: the inverse of :meth:`algorithmic`."""
        return (a - a_known) / self.c

    def correct(self, x_pred, v_pred, a):
        """(x, v) at t_{k+1} of the algorithmic accelerations a_{k+1} (the Newmark
        corrector)."""
        return self.newmark.correct(x_pred, v_pred, a)
