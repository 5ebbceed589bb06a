"""Loop closure: Newton's method on the constraint equations of a closed-loop mechanism,
the one solver of elastodyn's Python paths (the NE-PVP passive joints,
:meth:`~elastodyn.formulations.nepvp.engine.NEPVPEngine.closure`; the FFRF dependent
coordinates and the projection onto the constraints,
:meth:`~elastodyn.formulations.ffrf.multibody.MultibodySystem.close` and ``project``).

Given the residual ``Phi(x)`` (m,) of the loops and its Jacobian ``J = dPhi/dx`` (m, n)
over the unknowns x (n,), each iteration takes the Newton step:

* square (m = n): ``dx = -J^-1 Phi`` (Newton's method; Dennis & Schnabel, *Numerical
  Methods for Unconstrained Optimization and Nonlinear Equations*, SIAM 1996, ch. 5);
* minimum norm (m <= n, J of full row rank): ``dx = -J^T (J J^T)^-1 Phi = -J^+ Phi``,
  the smallest correction that zeroes the linearized residual (Newton's method with
  the Moore-Penrose inverse, A. Ben-Israel, J. Math. Anal. Appl. 15:243-252, 1966; used
  to project onto the constraint manifold).

Converged when max |Re Phi| < tol. A complex x (a complex step, Martins, Sturdza &
Alonso 2003) takes at least one Newton step unless Phi's imaginary part is zero: the
imaginary part of x, linear in the perturbation, is then exact to the order of the real
part's error (the derivative of the Newton map), while a start whose real part already
closes would keep an imaginary part of zero.

The compiled closures (the NE-PVP driver's ``close_loop`` and the FFRF kernel, C for
speed) write the same square iteration with the dense LU of ``symbolic/dense_lu.h``;
the exported code (``elastodyn generate``) prints its own, in the target language.
Static equilibria (a stiffness Newton with load stepping, difference tangents or batched
samples: ``formulations.base.NonlinearModel.static_deflection``, the KED deflected
reference, ``fem.corotational``) are a different problem and solved where they are.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import ModelError

__all__ = ["ClosureError", "ClosureSolution", "close_loops", "CLOSURE_TOL",
           "CLOSURE_MAX_ITER"]

CLOSURE_TOL = 1e-12
"""Default tolerance on max |Phi| [m or rad]: the closure residuals are positions of
links of 0.1 to 1 m and angles, whose evaluation carries a round-off of a few 1e-16 per
term (tens of terms: ~1e-15); 1e-12 stays a thousand times above it (Newton reaches it
from a converging start, quadratic convergence, instead of stalling on round-off) and six
orders below the micrometre elastic deflections the formulations resolve."""

CLOSURE_MAX_ITER = 50
"""Default cap of Newton iterations. From the previous solution or one continuation step
the iterations converge quadratically in 3 to 6; a start outside the basin (out of the
workspace, past a singularity) does not converge at all, so the cap only bounds the
work before the failure is reported."""


class ClosureError(ModelError):
    """The loops could not be closed: ``what`` was being closed, ``residual`` is the
    last max |Phi| [m or rad] (NaN if not finite), ``iterations`` the Newton iterations
    taken, ``reason`` why it stopped."""

    def __init__(self, what: str, residual: float, iterations: int, reason: str,
                 hint: str = ""):
        self.what, self.residual, self.iterations, self.reason = (what, residual,
                                                                  iterations, reason)
        super().__init__(f"loop closure of {what} failed: {reason} after {iterations} "
                         f"Newton iterations (max |residual| {residual:.3g})"
                         + (f"; {hint}" if hint else ""))


@dataclass(frozen=True)
class ClosureSolution:
    """x (n,): the closed unknowns; residual: max |Re Phi(x)| [m or rad] (< tol);
    iterations: the Newton iterations taken."""

    x: np.ndarray
    residual: float
    iterations: int


def close_loops(residual, x0, *, what: str, tol: float = CLOSURE_TOL,
                max_iter: int = CLOSURE_MAX_ITER, minimum_norm: bool = False,
                hint: str = "") -> ClosureSolution:
    """Solve ``Phi(x) = 0`` by Newton from ``x0`` (module docstring).

    Parameters
    ----------
    residual : callable x -> (Phi (m,), J (m, n))
        The loops' residual and its Jacobian over the unknowns at x.
    x0 : array_like (n,)
        The start (real or complex), e.g. the previous solution.
    what : str
        What is being closed, for the error ("the passive joints at q_a = [...]").
    tol : float
        Converged when max |Re Phi| < tol [m or rad] (:data:`CLOSURE_TOL`).
    max_iter : int
        Newton iterations allowed (:data:`CLOSURE_MAX_ITER`).
    minimum_norm : bool
        Minimum-norm steps ``-J^T (J J^T)^-1 Phi`` (m <= n) instead of ``-J^-1 Phi``.
    hint : str
        Appended to the error message (a likely cause: "out of the workspace?").

    Raises
    ------
    ClosureError
        Not converged in ``max_iter`` iterations, a singular Jacobian (J, or J J^T), or a
        residual or step that is not finite.
    """
    x = np.asarray(x0)
    x = x.astype(np.result_type(x, float))       # a copy: x0 is not changed
    size = np.nan
    for it in range(max_iter + 1):
        r, J = residual(x)
        r = np.asarray(r)
        size = float(np.abs(r.real).max(initial=0.0))
        if not np.isfinite(size):
            raise ClosureError(what, np.nan, it, "the residual is not finite", hint)
        if size < tol and (it > 0 or not np.iscomplexobj(r)
                           or np.abs(r.imag).max(initial=0.0) == 0):
            return ClosureSolution(x, size, it)
        if it == max_iter:
            break
        try:
            if minimum_norm:
                dx = -(J.T @ np.linalg.solve(J @ J.T, r))
            else:
                dx = -np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            raise ClosureError(what, size, it, "the Jacobian is singular", hint) from None
        if not np.all(np.isfinite(dx)):
            raise ClosureError(what, size, it, "the Newton step is not finite", hint)
        x = x + dx
    raise ClosureError(what, size, max_iter, "no convergence", hint)
