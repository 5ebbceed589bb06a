"""Second-order system description shared by the integrators.

A linear time-varying (LTV) second-order system

.. math:: M(t)\\,\\ddot q + C(t)\\,\\dot q + K(t)\\,q = f(t)

is given as a callable ``system(t) -> (M, C, K, f)``. This module holds the
helper :func:`constant_system` for time-invariant matrices and the evaluation,
validation and factorisation routines the integrators share (``as_matrix``,
``as_force``, ``evaluate_system``, ``check_system_callable``, ``LUFactor``,
``time_grid``: internal to :mod:`elastodyn.integrators`, the module being private).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from .._validate import finite
from ..exceptions import DimensionError, InputError, ModelError

__all__ = ["ConstantSystem", "constant_system"]

SystemFunction = Callable[[float], tuple]
"""Type of a system callable: ``system(t) -> (M, C, K, f)``."""


def as_matrix(name: str, value, n: int | None) -> np.ndarray:
    """Return ``value`` as a finite float (n, n) array (scalars allowed when n == 1)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, value, "a real square matrix") from None
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise DimensionError(f"invalid {name}: expected a square matrix, got shape {arr.shape}")
    if n is not None and arr.shape != (n, n):
        raise DimensionError(f"invalid {name}: expected shape ({n}, {n}), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, value, "finite values")
    return arr


def as_force(name: str, value, n: int) -> np.ndarray:
    """Return ``value`` as a finite float (n,) array (scalars allowed when n == 1)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, value, f"a real vector of shape ({n},)") from None
    if arr.ndim == 0 and n == 1:
        arr = arr.reshape(1)
    if arr.shape != (n,):
        raise DimensionError(f"invalid {name}: expected shape ({n},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, value, "finite values")
    return arr


@dataclass(frozen=True, eq=False)
class ConstantSystem:
    """Second-order system with constant ``M``, ``C``, ``K`` (see :func:`constant_system`).

    Calling the instance, ``system(t)``, returns ``(M, C, K, f(t))`` and so it can be
    passed wherever a system callable is expected.

    Attributes
    ----------
    M, C, K : numpy.ndarray, shape (n, n)
        Mass [kg or kg m^2], damping [N s/m] and stiffness [N/m] matrices in SI units
        consistent with the generalised coordinates.
    force : numpy.ndarray of shape (n,) or callable
        Constant generalised force [N] or a callable ``force(t) -> (n,)``.
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    force: np.ndarray | Callable[[float], np.ndarray] = field(repr=False)

    @property
    def n(self) -> int:
        """Number of degrees of freedom."""
        return self.M.shape[0]

    def __call__(self, t: float):
        """Return ``(M, C, K, f(t))`` at time ``t`` [s]."""
        if callable(self.force):
            f = as_force("f(t)", self.force(t), self.n)
        else:
            f = self.force
        return self.M, self.C, self.K, f


def constant_system(M, C, K, f=None) -> ConstantSystem:
    """Wrap constant matrices (and a constant or time-dependent force) as a system.

    Parameters
    ----------
    M : array_like, shape (n, n)
        Mass matrix (a scalar is accepted for n = 1). Must be finite; invertibility is
        checked by the integrators.
    C : array_like, shape (n, n)
        Viscous damping matrix.
    K : array_like, shape (n, n)
        Stiffness matrix.
    f : None, array_like of shape (n,), or callable, optional
        Generalised force: ``None`` for zero, a constant vector, or a callable
        ``f(t) -> array of shape (n,)`` with ``t`` in seconds.

    Returns
    -------
    ConstantSystem
        Callable ``system(t) -> (M, C, K, f)``. The integrators detect the constant
        matrices and factorise the step matrix only once.

    Raises
    ------
    DimensionError
        If the shapes are inconsistent.
    InputError
        If an entry is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> sys1 = constant_system(1.0, 0.1, 4.0, f=lambda t: np.array([np.cos(t)]))
    >>> M, C, K, f = sys1(0.0)
    >>> M.shape, f
    ((1, 1), array([1.]))
    """
    M = as_matrix("M", M, None)
    n = M.shape[0]
    C = as_matrix("C", C, n)
    K = as_matrix("K", K, n)
    if f is None:
        force = np.zeros(n)
    elif callable(f):
        force = f
    else:
        force = as_force("f", f, n)
    for arr in (M, C, K) + ((force,) if isinstance(force, np.ndarray) else ()):
        arr.setflags(write=False)
    return ConstantSystem(M, C, K, force)


def evaluate_system(system, t: float, n: int | None):
    """Call ``system(t)`` and validate ``(M, C, K, f)``; return float arrays."""
    out = system(t)
    try:
        M, C, K, f = out
    except (TypeError, ValueError):
        raise InputError(
            "system", system, "a callable system(t) returning a tuple (M, C, K, f)"
        ) from None
    M = as_matrix(f"system({t!r}) M", M, n)
    n = M.shape[0]
    C = as_matrix(f"system({t!r}) C", C, n)
    K = as_matrix(f"system({t!r}) K", K, n)
    f = as_force(f"system({t!r}) f", f, n)
    return M, C, K, f


def check_system_callable(system) -> None:
    if not callable(system):
        raise InputError("system", system, "a callable system(t) -> (M, C, K, f)")


class LUFactor:
    """LU factorisation with a cheap reciprocal-condition check (LAPACK ``dgecon``)."""

    def __init__(self, A: np.ndarray, what: str):
        n = A.shape[0]
        anorm = float(np.max(np.sum(np.abs(A), axis=0))) if n else 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            lu, piv = scipy.linalg.lu_factor(A, check_finite=False)
        rcond = 0.0
        if anorm > 0.0 and np.all(np.diag(lu) != 0.0):
            rcond, _info = lapack.dgecon(lu, anorm, norm="1")
        if not (rcond > np.finfo(float).eps) or not math.isfinite(rcond):
            raise ModelError(
                f"invalid system: {what} is singular to working precision "
                f"(reciprocal condition number {rcond:.3g})"
            )
        self._lu = (lu, piv)

    def solve(self, b: np.ndarray) -> np.ndarray:
        return scipy.linalg.lu_solve(self._lu, b, check_finite=False)


def time_grid(t0, t_end, dt) -> tuple[np.ndarray, float]:
    """Validate ``t0``, ``t_end``, ``dt`` and return the uniform grid and the step used."""
    t0 = finite("t0", t0)
    t_end = finite("t_end", t_end)
    try:
        dt_f = float(dt)
    except (TypeError, ValueError):
        raise InputError("dt", dt, "a finite number > 0") from None
    if not math.isfinite(dt_f) or dt_f <= 0.0:
        raise InputError("dt", dt, "a finite number > 0")
    if not t_end > t0:
        raise InputError("t_end", t_end, f"a finite number > t0 = {t0!r}")
    span = t_end - t0
    n_steps = round(span / dt_f)
    if n_steps < 1 or abs(span / n_steps - dt_f) > 1e-9 * dt_f:
        nearest = span / max(n_steps, 1)
        raise InputError(
            "dt",
            dt,
            f"a step that divides t_end - t0 = {span!r} into an integer number of steps "
            f"(to 1e-9 relative); nearest admissible: dt = {nearest!r} "
            f"({max(n_steps, 1)} steps)",
        )
    time = t0 + (span / n_steps) * np.arange(n_steps + 1, dtype=float)
    time[-1] = t_end
    return time, span / n_steps
