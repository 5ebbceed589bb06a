"""Assumed-mode bases for a uniform planar Euler-Bernoulli beam.

The transverse displacement of a beam of length ``L`` lying along its body x axis,
``0 <= x <= L``, is approximated by the truncated modal series (Yu & Chen 2019, "Dynamic
modeling and development of symbolic calculation software for N-DOF flexible-link
manipulators incorporating lumped mass", Shock Vib. 2019, 5627271, eq. (3))::

    y(x, t) = sum_{k=1}^{count} phi_k(x) f_k(t),

with dimensionless mode shapes ``phi_k`` and modal coordinates ``f_k`` in m.  Two bases:

* :class:`SineModes`, ``phi_k = sin(k pi x / L)`` (Yu & Chen eq. (4));
* :class:`ClampedFreeModes`, the cantilever eigenfunctions.

Both provide the modal integrals needed by an assumed-modes model (mass, stiffness,
rigid-elastic coupling, axial/geometric integral) as a frozen :class:`ModalIntegrals`, and a
``shape_matrix`` adaptor compatible with :func:`elastodyn.fem.ffrf.ffrf_invariants` and
:func:`elastodyn.fem.ffrf.planar_stiffness` (axial row zero, transverse row ``phi``).

:class:`ModeShapes` is the dimensionless form used in chord (floating) frames through both
ends of a link, where the deflection vanishes at both ends: ``sine`` (Yu & Chen eq. (4)) or
``clamped-free`` with the chord part removed. The assumed-modes arm
(:mod:`elastodyn.formulations.amm.generator`) and the NE-PVP assumed-mode beams use it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validate import non_negative, positive, positive_int
from ..exceptions import DimensionError, InputError

__all__ = [
    "ModalIntegrals",
    "SineModes",
    "ClampedFreeModes",
    "cantilever_roots",
    "ModeShapes",
]


@dataclass(frozen=True)
class ModalIntegrals:
    """Modal integrals of a uniform beam with an assumed-mode basis ``phi`` (``count`` modes).

    Attributes
    ----------
    length : float
        Beam length ``L`` in m.
    mass_matrix : numpy.ndarray, shape (count, count)
        ``M_ff = integral_0^L rho A phi phi^T dx`` in kg.
    stiffness_matrix : numpy.ndarray, shape (count, count)
        ``K_ff = integral_0^L EI phi'' phi''^T dx`` in N/m.
    translation_coupling : numpy.ndarray, shape (count,)
        ``integral_0^L rho A phi dx`` in kg (couples transverse translation of the body frame
        with ``f``).
    rotation_coupling : numpy.ndarray, shape (count,)
        ``integral_0^L rho A x phi dx`` in kg m (couples the rotation of the body frame with
        ``f``).
    geometric_matrix : numpy.ndarray, shape (count, count)
        ``integral_0^L phi' phi'^T dx`` in 1/m (multiplied by an axial force it gives the
        geometric, stress-stiffening, matrix).
    tip_displacement : numpy.ndarray, shape (count,)
        ``phi(L)``, dimensionless.
    tip_slope : numpy.ndarray, shape (count,)
        ``phi'(L)`` in 1/m.
    """

    length: float
    mass_matrix: np.ndarray
    stiffness_matrix: np.ndarray
    translation_coupling: np.ndarray
    rotation_coupling: np.ndarray
    geometric_matrix: np.ndarray
    tip_displacement: np.ndarray
    tip_slope: np.ndarray


def _check_derivative(derivative) -> int:
    if isinstance(derivative, bool) or not isinstance(derivative, (int, np.integer)) or not 0 <= derivative <= 3:
        raise InputError("derivative", derivative, "an integer in 0..3")
    return int(derivative)


class _BeamModes:
    """Common machinery of the mode bases (not public)."""

    length: float
    count: int

    def _phi(self, x: np.ndarray, derivative: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _default_n_gauss(self) -> int:
        return 6 * self.count + 24

    def shape(self, x, derivative: int = 0) -> np.ndarray:
        """Mode shapes or their x derivatives at the abscissae ``x``.

        Parameters
        ----------
        x : float or array_like, shape (n,)
            Abscissae in m, each in [0, L].
        derivative : int, optional
            Order ``k`` of ``d^k phi / dx^k``, 0 (default) to 3.

        Returns
        -------
        numpy.ndarray
            Shape (n, count) (or (count,) for scalar ``x``), in m^-k.
        """
        d = _check_derivative(derivative)
        arr = np.asarray(x, dtype=float)
        if arr.ndim > 1:
            raise DimensionError(f"invalid x: expected a scalar or a 1-D array, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > self.length):
            raise InputError("x", x, f"finite values in [0, {self.length}]")
        out = self._phi(np.atleast_1d(arr), d)
        return out[0] if arr.ndim == 0 else out

    def shape_matrix(self, xi, derivative: int = 0) -> np.ndarray:
        """FFRF shape matrix ``S(xi)`` of the basis, ``xi = x / L``, or its xi derivatives.

        Row 0 (axial) is zero, row 1 (transverse) is ``phi_k(xi L)``; the ``derivative``-th
        derivative is taken with respect to ``xi`` (``L^k d^k phi / dx^k``).  Usable as the
        ``shape_fn`` of :func:`elastodyn.fem.ffrf.ffrf_invariants` and
        :func:`elastodyn.fem.ffrf.planar_stiffness`.

        Parameters
        ----------
        xi : float or array_like, shape (n,)
            Values in [0, 1].
        derivative : int, optional
            0 (default) to 3.

        Returns
        -------
        numpy.ndarray
            Shape (n, 2, count), or (2, count) for scalar ``xi``.
        """
        d = _check_derivative(derivative)
        arr = np.asarray(xi, dtype=float)
        if arr.ndim > 1:
            raise DimensionError(f"invalid xi: expected a scalar or a 1-D array, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > 1.0):
            raise InputError("xi", xi, "finite values in [0, 1]")
        a = np.atleast_1d(arr)
        phi = self._phi(np.clip(a * self.length, 0.0, self.length), d) * self.length**d
        out = np.zeros((a.size, 2, self.count))
        out[:, 1, :] = phi
        return out[0] if arr.ndim == 0 else out

    def tip_values(self) -> tuple[np.ndarray, np.ndarray]:
        """``(phi(L), phi'(L))``, each of shape (count,); dimensionless and 1/m."""
        end = np.array([self.length])
        return self._phi(end, 0)[0], self._phi(end, 1)[0]

    def integrals(self, *, mass_per_length: float, bending_stiffness: float,
                  n_gauss: int | None = None) -> ModalIntegrals:
        """Modal integrals by Gauss-Legendre quadrature on [0, L].

        Parameters
        ----------
        mass_per_length : float
            ``rho A`` in kg/m, > 0.
        bending_stiffness : float
            ``EI`` in N m^2, >= 0.
        n_gauss : int, optional
            Number of Gauss-Legendre points, >= 1.  Default ``6 count + 24``, which resolves
            the oscillation of the highest mode products (``~count`` half-waves, Gauss
            quadrature converging exponentially for these analytic integrands) to round-off.

        Returns
        -------
        ModalIntegrals
        """
        rho = positive("mass_per_length", mass_per_length)
        EI = non_negative("bending_stiffness", bending_stiffness)
        n = self._default_n_gauss() if n_gauss is None else positive_int("n_gauss", n_gauss)
        t, w = np.polynomial.legendre.leggauss(n)
        L = self.length
        x = 0.5 * L * (t + 1.0)
        wx = 0.5 * L * w
        p0, p1, p2 = self._phi(x, 0), self._phi(x, 1), self._phi(x, 2)
        M = rho * np.einsum("q,qa,qb->ab", wx, p0, p0)
        K = EI * np.einsum("q,qa,qb->ab", wx, p2, p2)
        G = np.einsum("q,qa,qb->ab", wx, p1, p1)
        tip, slope = self.tip_values()
        arrays = dict(
            mass_matrix=0.5 * (M + M.T),
            stiffness_matrix=0.5 * (K + K.T),
            translation_coupling=rho * wx @ p0,
            rotation_coupling=rho * (wx * x) @ p0,
            geometric_matrix=0.5 * (G + G.T),
            tip_displacement=tip,
            tip_slope=slope,
        )
        for arr in arrays.values():
            arr.setflags(write=False)
        return ModalIntegrals(length=L, **arrays)


@dataclass(frozen=True)
class SineModes(_BeamModes):
    """Sine assumed modes ``phi_k(x) = sin(k pi x / L)``, ``k = 1..count``.

    Yu & Chen (2019) eq. (4) (with ``count = 2``), eq. (3) for the modal series.  The paper
    calls these modes those "of the Euler beam with clamped boundary conditions at both
    ends", but ``sin(k pi x / L)`` satisfies the pinned-pinned (simply supported) conditions
    ``phi(0) = phi(L) = phi''(0) = phi''(L) = 0`` and not the clamped ones (``phi'(0) != 0``);
    they are the exact eigenfunctions of the simply supported beam, with
    ``K_kk / M_kk = EI (k pi / L)^4 / (rho A)``.  Yu & Chen place the origin of the link frame
    at the link's far end (``x`` in [-L, 0], eq. (14)); here ``x`` is in [0, L], which
    changes the sign of the odd-``k`` modes (``sin(k pi (x - L)/L) = (-1)^k sin(k pi x/L)``)
    and not the spanned space.

    Parameters
    ----------
    length : float
        Beam length ``L`` in m, > 0.
    count : int
        Number of modes, >= 1.
    """

    length: float
    count: int

    def __post_init__(self):
        object.__setattr__(self, "length", positive("length", self.length))
        object.__setattr__(self, "count", positive_int("count", self.count))

    @property
    def wavenumbers(self) -> np.ndarray:
        """``k pi / L`` in 1/m, shape (count,)."""
        return np.arange(1, self.count + 1) * math.pi / self.length

    def _phi(self, x: np.ndarray, derivative: int) -> np.ndarray:
        b = self.wavenumbers
        return b**derivative * np.sin(np.outer(x, b) + 0.5 * math.pi * derivative)


def _char(z: float) -> float:
    # (1 + cos z cosh z) / cosh z, same roots, bounded for large z
    return math.cos(z) + 1.0 / math.cosh(z) if z < 700.0 else math.cos(z)


def cantilever_roots(count: int) -> np.ndarray:
    """First ``count`` positive roots ``beta_k L`` of ``1 + cos(z) cosh(z) = 0``.

    The roots of the clamped-free beam frequency equation, found by Brent's method on the
    equivalent bounded function ``cos z + 1 / cosh z``, which changes sign exactly once in
    each interval ``[(k - 1) pi, k pi]``.  ``z_1 = 1.8751040687...``, ``z_2 = 4.6940911329...``,
    ``z_k -> (2k - 1) pi / 2``.

    Parameters
    ----------
    count : int
        Number of roots, >= 1.

    Returns
    -------
    numpy.ndarray, shape (count,)
        Dimensionless ``beta_k L``, increasing.
    """
    from scipy.optimize import brentq     # here: importing it costs 0.3-0.6 s
    n = positive_int("count", count)
    roots = [brentq(_char, (k - 1) * math.pi, k * math.pi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                    maxiter=200) for k in range(1, n + 1)]
    return np.array(roots)


@dataclass(frozen=True)
class ClampedFreeModes(_BeamModes):
    """Cantilever (clamped at ``x = 0``, free at ``x = L``) eigenfunctions.

    ``phi_k(x) = c_k [cosh(b x) - cos(b x) - sigma_k (sinh(b x) - sin(b x))]``,
    ``sigma_k = (cosh bL + cos bL) / (sinh bL + sin bL)``, ``b = b_k``, with ``b_k L`` the
    roots of ``1 + cos(bL) cosh(bL) = 0`` (:func:`cantilever_roots`) and ``c_k`` chosen so
    that ``integral_0^L phi_k^2 dx = L`` (``c_k = 1`` up to round-off for this classical form).
    They satisfy ``phi(0) = phi'(0) = 0`` and ``phi''(L) = phi'''(L) = 0`` and are orthogonal
    with respect to both the mass and the stiffness of the uniform beam;
    ``omega_k = (b_k L)^2 sqrt(EI / (rho A L^4))`` (Blevins, *Formulas for Natural Frequency and
    Mode Shape*, 1979, Table 8-1; Meirovitch, *Elements of Vibration Analysis*, 1986).

    To avoid the cancellation of ``cosh(bx) - sigma sinh(bx)`` for large ``bL`` it is
    evaluated as ``exp(-bx) + delta' (exp(b(x - L)) - exp(-b(x + L))) / D`` with
    ``delta' = sin bL - cos bL - exp(-bL)`` and ``D = 1 - exp(-2bL) + 2 sin(bL) exp(-bL)``
    (algebraically identical, every exponential <= 1 on [0, L]).

    Parameters
    ----------
    length : float
        Beam length ``L`` in m, > 0.
    count : int
        Number of modes, >= 1.

    Attributes
    ----------
    roots : numpy.ndarray, shape (count,)
        Dimensionless ``b_k L``.
    """

    length: float
    count: int
    roots: np.ndarray = field(init=False, repr=False, compare=False)
    _scale: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "length", positive("length", self.length))
        object.__setattr__(self, "count", positive_int("count", self.count))
        roots = cantilever_roots(self.count)
        roots.setflags(write=False)
        object.__setattr__(self, "roots", roots)
        object.__setattr__(self, "_scale", np.ones(self.count))
        # normalize integral_0^L phi^2 dx = L with a quadrature far finer than the modes
        t, w = np.polynomial.legendre.leggauss(8 * self.count + 40)
        x = 0.5 * self.length * (t + 1.0)
        p = self._phi(x, 0)
        norm = np.sqrt((0.5 * self.length * w) @ (p * p) / self.length)
        object.__setattr__(self, "_scale", 1.0 / norm)

    @property
    def wavenumbers(self) -> np.ndarray:
        """``b_k = (b_k L) / L`` in 1/m, shape (count,)."""
        return self.roots / self.length

    @property
    def sigma(self) -> np.ndarray:
        """``sigma_k = (cosh b_kL + cos b_kL) / (sinh b_kL + sin b_kL)``, shape (count,)."""
        z = self.roots
        e = np.exp(-z)
        D = 1.0 - e * e + 2.0 * np.sin(z) * e
        return 1.0 - 2.0 * (np.sin(z) - np.cos(z) - e) * e / D

    def _phi(self, x: np.ndarray, derivative: int) -> np.ndarray:
        z = self.roots
        b = z / self.length
        n = derivative
        bx = np.outer(x, b)                                   # (n_x, count)
        bL = z[None, :]
        e = np.exp(-z)
        D = 1.0 - e * e + 2.0 * np.sin(z) * e
        dprime = np.sin(z) - np.cos(z) - e
        sigma = 1.0 - 2.0 * dprime * e / D
        hyper = (-1.0) ** n * np.exp(-bx) + (dprime / D) * (
            np.exp(bx - bL) - (-1.0) ** n * np.exp(-bx - bL))
        trig = -np.cos(bx + 0.5 * math.pi * n) + sigma * np.sin(bx + 0.5 * math.pi * n)
        return self._scale * b**n * (hyper + trig)


def _clean(a: np.ndarray) -> np.ndarray:
    """Quadrature round-off (below 1e-12 of the largest entry) set to exact zero, so
    that orthogonal modes give no terms."""
    a = np.array(a, dtype=float)
    a[np.abs(a) < 1e-12 * max(np.abs(a).max(), 1e-300)] = 0.0
    return a


@dataclass(frozen=True)
class ModeShapes:
    """Dimensionless assumed modes phi_k(xi), xi in [0, 1] from the root, k = 1..count,
    for a link described in its chord frame (the deflection vanishes at both ends).

    ``sine``: sin(k pi xi) (Yu & Chen eq. (4); :class:`SineModes` with L = 1).
    ``clamped-free``: psi_k = phi_k - xi phi_k(1), the cantilever eigenfunctions
    (:class:`ClampedFreeModes` with L = 1) with their chord part removed, so that they
    vanish at both ends of the chord.

    Parameters
    ----------
    kind : {"sine", "clamped-free"}
    count : int
        Number of modes, >= 1.
    """

    kind: str
    count: int

    def __post_init__(self):
        if self.kind not in ("sine", "clamped-free"):
            raise InputError("basis", self.kind, "sine or clamped-free")
        positive_int("count", self.count)

    @cached_property
    def _cf(self) -> ClampedFreeModes:
        return ClampedFreeModes(1.0, self.count)

    def values(self, xi, derivative: int = 0) -> np.ndarray:
        """d^derivative phi / dxi^derivative, shape (len(xi), count) (dimensionless).

        Parameters
        ----------
        xi : float or array_like (n,)
            Positions along the chord over its length, in [0, 1] (clamped-free: values
            outside are clipped).
        derivative : int
            0 to 3.
        """
        xi = np.atleast_1d(np.asarray(xi, dtype=float))
        if self.kind == "sine":
            k = np.pi * np.arange(1, self.count + 1)
            arg = np.outer(xi, k)
            return k ** derivative * np.sin(arg + 0.5 * np.pi * derivative)
        out = self._cf.shape(np.clip(xi, 0.0, 1.0), derivative)
        tip = self._cf.shape(np.array([1.0]), 0)[0]
        if derivative == 0:
            out = out - np.outer(xi, tip)
        elif derivative == 1:
            out = out - tip[None, :]
        return out

    def symbolic(self, xi, derivative: int = 0) -> list:
        """The modes (derivative 0) or their slopes d phi / dxi (derivative 1) as sympy
        expressions of ``xi`` (a number or a symbol), a list of ``count``."""
        import sympy as sp                    # here: importing it costs ~0.4 s
        if derivative not in (0, 1):
            raise InputError("derivative", derivative, "0 or 1")
        x = sp.Dummy("xi", real=True) if derivative else xi
        if self.kind == "sine":
            out = [sp.sin(k * sp.pi * x) for k in range(1, self.count + 1)]
        else:
            cf = self._cf
            tip = cf.shape(np.array([1.0]), 0)[0]
            out = []
            for k in range(self.count):
                b, sg, c = (sp.Float(v) for v in (cf.roots[k], cf.sigma[k], cf._scale[k]))
                phi = c * (sp.cosh(b * x) - sp.cos(b * x) - sg * (sp.sinh(b * x) - sp.sin(b * x)))
                out.append(phi - x * sp.Float(tip[k]))
        if derivative:
            out = [sp.diff(e, x).subs(x, xi) for e in out]
        return out

    @cached_property
    def integrals(self) -> dict:
        """alpha = int (xi - 1) phi, beta = int phi, Gamma = int phi phi^T,
        kappa = int phi'' phi''^T (Gauss-Legendre, 6 count + 40 points: the modes are
        smooth, error at round-off), d0 = phi'(0), d1 = phi'(1) (dimensionless; shapes
        (count,) or (count, count)); quadrature round-off below 1e-12 of the largest entry
        is set to zero."""
        t, w = np.polynomial.legendre.leggauss(6 * self.count + 40)
        x, w = 0.5 * (t + 1.0), 0.5 * w
        p, p2 = self.values(x), self.values(x, 2)
        out = {"alpha": (w * (x - 1.0)) @ p, "beta": w @ p,
               "Gamma": np.einsum("g,gk,gl->kl", w, p, p),
               "kappa": np.einsum("g,gk,gl->kl", w, p2, p2),
               "d0": self.values([0.0], 1)[0], "d1": self.values([1.0], 1)[0]}
        return {k: _clean(v) for k, v in out.items()}
