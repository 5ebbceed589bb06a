"""Planar floating frame of reference formulation (FFRF) for a straight uniform beam body.

The body frame has its origin at the beam end ``x = 0`` and its x axis along the undeformed
beam, which occupies ``0 <= x <= L``.  A material point has the undeformed body-frame
position ``u_o = (x, 0)`` and the deformed position ``u = u_o + S(xi) q_f`` with
``xi = x / L`` and a shape matrix ``S`` of shape ``(2, n_f)`` (row 0 axial, row 1
transverse).  Its global position is

    r = R + A(theta) u,   A(theta) = [[cos, -sin], [sin, cos]],

and the generalized coordinates of the body are ``q = [R_x, R_y, theta, q_f]``.

The mass matrix and the quadratic velocity vector are written with Shabana's inertia shape
integrals, following Rosyid & El-Khasawneh (2020), "Multibody dynamics of nonsymmetric planar
3PRR parallel manipulator with fully flexible links", Appl. Sci. 10, 4816, sections 2.2,
2.3.1, 5 and 6.1 (eqs. (9), (16)-(32), (37)-(38), (46), (52), (54)-(55), (125)-(127)), and
Shabana, *Dynamics of Multibody Systems*, 3rd ed., 2005.

The beam is a line continuum: ``dV`` integrals are evaluated as ``mass_per_length * dx``
(Euler-Bernoulli, rotary inertia of the cross section neglected).

Signs.  The extracted text of the paper lost every minus sign.  All signs used here were
re-derived from ``r = R + A(theta)(u_o + S q_f)`` (see :func:`planar_body_mass_matrix` and
:func:`planar_quadratic_velocity`), checked symbolically against the closed-form element
matrices of section 6.1, and are tested numerically against the kinetic energy and
Lagrange's equations (``tests/formulations/ffrf/test_ffrf.py``).
"""
from __future__ import annotations

from collections.abc import Callable
import math
from dataclasses import dataclass, fields, replace

import numpy as np

from .._validate import finite, non_negative, positive, positive_int, real_array, scalar, vector
from ..exceptions import DimensionError, InputError

__all__ = [
    "I_TILDE",
    "DEFAULT_N_GAUSS",
    "FFRFInvariants",
    "RosyidElementMatrices",
    "rayleigh_ritz_shape",
    "ffrf_invariants",
    "planar_body_mass_matrix",
    "planar_quadratic_velocity",
    "StackedInvariants",
    "stack_invariants",
    "scale_invariants",
    "planar_mass_blocks",
    "planar_velocity_gravity_blocks",
    "planar_stiffness",
    "rosyid_element_matrices",
    "rosyid_element_stiffness",
    "BOUNDARY_CONDITIONS",
    "BeamShape",
    "SineShape",
    "fitted_mass_per_length",
]

#: The planar "skew" matrix of Shabana/Rosyid eq. (27), ``I_tilde = [[0, 1], [-1, 0]]``.
#: It satisfies ``A_theta^T A = I_tilde`` with ``A_theta = dA/dtheta``.  The extracted paper
#: text prints ``[0 1 1 0]``: the minus sign was lost.
I_TILDE = np.array([[0.0, 1.0], [-1.0, 0.0]])
I_TILDE.setflags(write=False)

#: Default number of Gauss-Legendre points: exact for polynomial integrands of degree <= 23,
#: i.e. for shape functions of degree <= 11 (the integrand ``x S^T S`` has degree 2p + 1).
DEFAULT_N_GAUSS = 12

ShapeFunction = Callable[..., np.ndarray]


# --------------------------------------------------------------------------------------
# Rayleigh-Ritz shape matrix
# --------------------------------------------------------------------------------------
def _as_xi(xi) -> tuple[np.ndarray, bool]:
    arr = real_array(xi)          # complex inside a complex step (a beam's length)
    if arr.ndim > 1:
        raise DimensionError(f"invalid xi: expected a scalar or a 1-D array, got shape {arr.shape}")
    re = arr.real
    if not np.all(np.isfinite(re)) or np.any(re < 0.0) or np.any(re > 1.0):
        raise InputError("xi", xi, "finite values in [0, 1]")
    return np.atleast_1d(arr), arr.ndim == 0


def rayleigh_ritz_shape(xi, length: float, *, reduced: bool = False, derivative: int = 0) -> np.ndarray:
    """Rayleigh-Ritz shape matrix of a planar beam, or one of its ``xi`` derivatives.

    Full matrix, Rosyid & El-Khasawneh (2020) eq. (46), for the nodal elastic coordinates
    ``q_f = [u1, v1, theta1, u2, v2, theta2]`` (axial displacement, transverse displacement
    and slope at ``xi = 0`` and at ``xi = 1``)::

        S_b = [[1 - xi, 0,                0,                    xi, 0,            0              ],
               [0,      1 - 3xi^2 + 2xi^3, L(xi - 2xi^2 + xi^3), 0,  3xi^2 - 2xi^3, L(xi^3 - xi^2)]]

    (linear axial and cubic Hermite transverse interpolation).  With ``reduced=True`` the
    clamped-free (fixed-free) matrix of eq. (52), the last three columns of ``S_b``, for
    ``q_f = [u2, v2, theta2]``::

        S = [[xi, 0,             0             ],
             [0,  3xi^2 - 2xi^3, L(xi^3 - xi^2)]]

    The extracted text prints ``l(xi 2xi^2 + xi^3)``; the lost minus signs were restored so
    that the slope at each end equals the nodal slope (Hermite cubic).

    Parameters
    ----------
    xi : float or array_like, shape (n,)
        Dimensionless abscissa ``x / L``, each value in [0, 1].
    length : float
        Beam length ``L`` in m, > 0.
    reduced : bool, optional
        ``False`` (default): full 2 x 6 matrix ``S_b``; ``True``: 2 x 3 clamped-free ``S``.
    derivative : int, optional
        Order ``k`` of the derivative ``d^k S / d xi^k``, 0 (default) to 3.  Derivatives with
        respect to ``x`` are ``L^-k`` times these.

    Returns
    -------
    numpy.ndarray
        Shape (2, n_f) for scalar ``xi``, (n, 2, n_f) for array ``xi``; ``n_f`` = 6, or 3 if
        ``reduced``.  Row 0 is dimensionless; row 1 columns of translational coordinates are
        dimensionless and columns of slope coordinates are in m.

    Raises
    ------
    InputError
        If ``xi`` is outside [0, 1], ``length`` is not > 0 or ``derivative`` is not in 0..3.
    """
    L = positive("length", length)
    if isinstance(derivative, bool) or not isinstance(derivative, (int, np.integer)) or not 0 <= derivative <= 3:
        raise InputError("derivative", derivative, "an integer in 0..3")
    if not isinstance(reduced, (bool, np.bool_)):
        raise InputError("reduced", reduced, "True or False")
    x, scalar = _as_xi(xi)
    zero = np.zeros_like(x)
    P = np.polynomial.polynomial
    # polynomial coefficients (ascending powers of xi) of the six entries that are not zero
    polys = {
        "a1": [1.0, -1.0],                 # 1 - xi
        "a2": [0.0, 1.0],                  # xi
        "h1": [1.0, 0.0, -3.0, 2.0],       # 1 - 3xi^2 + 2xi^3
        "h2": [0.0, L, -2.0 * L, L],       # L(xi - 2xi^2 + xi^3)
        "h3": [0.0, 0.0, 3.0, -2.0],       # 3xi^2 - 2xi^3
        "h4": [0.0, 0.0, -L, L],           # L(xi^3 - xi^2)
    }
    ev = {k: P.polyval(x, P.polyder(c, derivative)) + zero for k, c in polys.items()}
    if reduced:
        out = np.stack([np.stack([ev["a2"], zero, zero], axis=-1),
                        np.stack([zero, ev["h3"], ev["h4"]], axis=-1)], axis=1)
    else:
        out = np.stack([np.stack([ev["a1"], zero, zero, ev["a2"], zero, zero], axis=-1),
                        np.stack([zero, ev["h1"], ev["h2"], zero, ev["h3"], ev["h4"]], axis=-1)],
                       axis=1)
    return out[0] if scalar else out


# --------------------------------------------------------------------------------------
# Inertia shape integrals
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FFRFInvariants:
    """Inertia shape integrals of a planar beam body (Shabana's invariants).

    All integrals are ``integral rho (.) dV = integral_0^L mass_per_length (.) dx`` with
    ``u_o = (x, 0)``; ``S_k`` is row ``k`` of the shape matrix (``S_1`` axial, ``S_2``
    transverse).  Units below assume dimensionless shape entries; a column of ``S`` in m
    (a slope coordinate) multiplies the unit by m.

    Attributes
    ----------
    length : float
        Beam length ``L`` in m.
    mass_per_length : float
        Mean mass per length ``m / L`` in kg/m (``rho A`` for a uniform beam).
    mass : float
        ``m = integral rho A dx`` in kg (eq. (16)).
    I1 : numpy.ndarray, shape (2,)
        ``integral rho u_o dV`` in kg m (eq. (18)); ``(m L / 2, 0)``.
    S_bar : numpy.ndarray, shape (2, n_f)
        ``integral rho S dV`` in kg (eq. (19)).
    S11, S12, S21, S22 : numpy.ndarray, shape (n_f, n_f)
        ``S_kl = integral rho S_k^T S_l dV`` in kg (eq. (29)); ``S21 = S12^T``.
    S_ff : numpy.ndarray, shape (n_f, n_f)
        ``m_ff = S11 + S22 = integral rho S^T S dV`` in kg (eqs. (24), (28)), symmetric.
    S_tilde : numpy.ndarray, shape (n_f, n_f)
        ``S_tilde = S12 - S21 = integral rho S^T I_tilde S dV`` in kg, antisymmetric; it gives
        ``m_theta_f = J_of + q_f^T S_tilde`` (eq. (27)) and the ``2 theta_dot S_tilde
        q_f_dot`` term of eq. (30).
    I_bar : numpy.ndarray, shape (2, 2, n_f)
        ``I_bar[k, l] = integral rho x_k S_l dV`` in kg m (eq. (32)), ``x_k`` the components
        of ``u_o``; ``I_bar[1]`` is zero for the straight beam (``x_2 = 0``).
    I_o : numpy.ndarray, shape (n_f,)
        ``(I_bar_11 + I_bar_22)^T = integral rho S^T u_o dV`` in kg m (eq. (31)).
    J_oo : float
        ``integral rho u_o^T u_o dV = m L^2 / 3`` in kg m^2, the rigid part of
        ``m_theta_theta`` (eq. (21)).
    J_of : numpy.ndarray, shape (n_f,)
        ``integral rho u_o^T I_tilde S dV = I_bar_12 - I_bar_21`` in kg m, the rigid part of
        ``m_theta_f`` (eq. (27)).
    """

    length: float
    mass_per_length: float
    mass: float
    I1: np.ndarray
    S_bar: np.ndarray
    S11: np.ndarray
    S12: np.ndarray
    S21: np.ndarray
    S22: np.ndarray
    S_ff: np.ndarray
    S_tilde: np.ndarray
    I_bar: np.ndarray
    I_o: np.ndarray
    J_oo: float
    J_of: np.ndarray

    @property
    def n_f(self) -> int:
        """Number of elastic coordinates."""
        return int(self.S_ff.shape[0])


def _gauss(n_gauss) -> tuple[np.ndarray, np.ndarray]:
    n = DEFAULT_N_GAUSS if n_gauss is None else positive_int("n_gauss", n_gauss)
    t, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (t + 1.0), 0.5 * w          # nodes and weights on [0, 1]


def _eval_shape(shape_fn: ShapeFunction, xi: np.ndarray, **kwargs) -> np.ndarray:
    if not callable(shape_fn):
        raise InputError("shape_fn", shape_fn, "a callable xi -> array of shape (len(xi), 2, n_f)")
    S = real_array(shape_fn(xi, **kwargs))             # complex-step safe (a length)
    if S.ndim != 3 or S.shape[0] != xi.size or S.shape[1] != 2 or S.shape[2] < 1:
        raise DimensionError(
            f"invalid shape_fn: expected an array of shape ({xi.size}, 2, n_f), got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise InputError("shape_fn", shape_fn, "a callable returning finite values")
    return S


def _segment_rule(n_gauss, breaks) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [0, 1], per segment ``breaks[k]..breaks[k+1]``
    (piecewise polynomial shapes, e.g. finite elements, are then integrated exactly)."""
    xi, w = _gauss(n_gauss)
    if breaks is None:
        return xi, w
    b = np.asarray(breaks, dtype=float)
    if b.ndim != 1 or b.size < 2 or b[0] != 0.0 or b[-1] != 1.0 or np.any(np.diff(b) <= 0):
        raise InputError("breaks", breaks, "increasing abscissae from 0 to 1")
    h = np.diff(b)
    return ((b[:-1, None] + h[:, None] * xi[None, :]).ravel(),
            (h[:, None] * w[None, :]).ravel())


def _density(mass_per_length, xi: np.ndarray) -> np.ndarray:
    """Mass per length [kg/m] at ``xi``: a constant > 0 or a callable of xi."""
    if callable(mass_per_length):
        mu = real_array(mass_per_length(xi)) * np.ones_like(xi)   # complex-step safe
        if not np.all(np.isfinite(mu.real)) or np.any(mu.real <= 0.0):
            raise InputError("mass_per_length", "callable",
                             "a callable giving finite values > 0 on [0, 1]")
        return mu
    return positive("mass_per_length", mass_per_length) * np.ones_like(xi)


def ffrf_invariants(shape_fn: ShapeFunction, *, length: float, mass_per_length,
                    n_gauss: int | None = None, breaks=None) -> FFRFInvariants:
    """Inertia shape integrals of a straight uniform planar beam body by Gauss quadrature.

    Implements the volume integrals of Rosyid & El-Khasawneh (2020) eqs. (16)-(32) for the
    line body ``0 <= x <= L``, ``u_o = (x, 0)``, ``dm = mass_per_length dx``.

    Parameters
    ----------
    shape_fn : callable
        ``shape_fn(xi)`` with ``xi`` a 1-D array of abscissae in [0, 1] returns the shape
        matrix at those points, shape (len(xi), 2, n_f) (row 0 axial, row 1 transverse), for
        example ``functools.partial(rayleigh_ritz_shape, length=L)``.
    length : float
        Beam length ``L`` in m, > 0.
    mass_per_length : float or callable
        ``rho A`` in kg/m, > 0, or a callable ``mu(xi)`` giving it along the beam (a body
        whose mass, centre of mass and inertia are given, :func:`fitted_mass_per_length`).
    n_gauss : int, optional
        Number of Gauss-Legendre points per segment, >= 1.  Default
        :data:`DEFAULT_N_GAUSS` (12), exact when the integrands are polynomials of degree
        <= 23 (shapes of degree <= 11 with a density of degree <= 1, or degree <= 10 with
        a quadratic density); pass more points for non-polynomial shapes (assumed modes).
    breaks : array_like, optional
        Segment boundaries in xi (0 = b_0 < ... < b_k = 1), each segment integrated by its
        own rule: pass the element boundaries of a finite-element shape
        (:class:`BeamShape`), whose derivatives jump there.

    Returns
    -------
    FFRFInvariants

    Raises
    ------
    InputError
        On a non-positive ``length``/``mass_per_length``/``n_gauss`` or a non-finite shape.
    DimensionError
        If ``shape_fn`` returns the wrong shape.
    """
    L = positive("length", length)
    xi, w = _segment_rule(n_gauss, breaks)
    mu = _density(mass_per_length, xi)
    S = _eval_shape(shape_fn, xi)                       # (n, 2, n_f)
    wm = mu * L * w                                      # mass weights, kg
    x = L * xi
    S1, S2 = S[:, 0, :], S[:, 1, :]
    mass = scalar(np.sum(wm))                           # complex-step safe
    rho = mass / L
    I1 = np.array([np.sum(wm * x), 0.0])
    S_bar = np.einsum("q,qkf->kf", wm, S)
    S11 = np.einsum("q,qa,qb->ab", wm, S1, S1)
    S11 = 0.5 * (S11 + S11.T)                            # exactly symmetric
    S12 = np.einsum("q,qa,qb->ab", wm, S1, S2)
    S21 = S12.T.copy()
    S22 = np.einsum("q,qa,qb->ab", wm, S2, S2)
    S22 = 0.5 * (S22 + S22.T)
    S_ff = S11 + S22
    S_tilde = S12 - S21
    u_o = np.stack([x, np.zeros_like(x)], axis=1)        # (n, 2)
    I_bar = np.einsum("q,qk,qlf->klf", wm, u_o, S)
    I_o = I_bar[0, 0] + I_bar[1, 1]
    J_oo = scalar(np.sum(wm * x * x))
    J_of = I_bar[0, 1] - I_bar[1, 0]
    for arr in (I1, S_bar, S11, S12, S21, S22, S_ff, S_tilde, I_bar, I_o, J_of):
        arr.setflags(write=False)
    return FFRFInvariants(length=L, mass_per_length=rho, mass=mass, I1=I1, S_bar=S_bar,
                          S11=S11, S12=S12, S21=S21, S22=S22, S_ff=S_ff, S_tilde=S_tilde,
                          I_bar=I_bar, I_o=I_o, J_oo=J_oo, J_of=J_of)


# --------------------------------------------------------------------------------------
# Mass matrix, quadratic velocity vector, stiffness
# --------------------------------------------------------------------------------------
def _check_inv(inv) -> FFRFInvariants:
    if not isinstance(inv, FFRFInvariants):
        raise InputError("inv", inv, "an FFRFInvariants instance")
    return inv


@dataclass(frozen=True)
class StackedInvariants:
    """The invariants of g bodies with the same number of elastic coordinates F, stacked
    on a leading axis (for the batched kernels :func:`planar_mass_blocks` and
    :func:`planar_velocity_gravity_blocks`): mass (g,), I1 (g, 2), S_bar (g, 2, F),
    J_oo (g,), I_o (g, F), J_of (g, F), S_ff (g, F, F), S_tilde (g, F, F)."""

    mass: np.ndarray
    I1: np.ndarray
    S_bar: np.ndarray
    J_oo: np.ndarray
    I_o: np.ndarray
    J_of: np.ndarray
    S_ff: np.ndarray
    S_tilde: np.ndarray


def stack_invariants(invs) -> StackedInvariants:
    """Stack the invariants of bodies with equal n_f (see :class:`StackedInvariants`).
    Complex invariants (:func:`scale_invariants` with a complex factor) stay complex."""
    invs = [_check_inv(i) for i in invs]
    if len({i.n_f for i in invs}) != 1:
        raise InputError("invs", [i.n_f for i in invs], "bodies with equal n_f")
    keys = ("mass", "I1", "S_bar", "J_oo", "I_o", "J_of", "S_ff", "S_tilde")
    dtype = np.result_type(float, *(np.asarray(getattr(i, k)) for i in invs for k in keys))
    return StackedInvariants(*(np.array([getattr(i, k) for i in invs], dtype=dtype)
                               for k in keys))


def scale_invariants(inv: FFRFInvariants, factor) -> FFRFInvariants:
    """The invariants of the same body with its mass per length multiplied by ``factor``
    (every shape integral is linear in the density, eqs. (16)-(32)). ``factor`` may be
    complex: complex-step differentiation with respect to a density or a section
    dimension (:mod:`elastodyn.analysis.sensitivity`)."""
    _check_inv(inv)
    return replace(inv, **{f.name: getattr(inv, f.name) * factor for f in fields(inv)
                           if f.name != "length"})


def _rot_batch(theta):
    c, s = np.cos(theta), np.sin(theta)
    A = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    A_th = np.stack([np.stack([-s, -c], -1), np.stack([c, -s], -1)], -2)
    return A, A_th


def planar_mass_blocks(st: StackedInvariants, theta, q_f) -> np.ndarray:
    """The mass matrices (g, 3 + F, 3 + F) of g bodies at orientations theta (g,) [rad]
    and elastic coordinates q_f (g, F): eqs. (16)-(28), see
    :func:`planar_body_mass_matrix` (the one-body form, with input checks). Complex
    inputs give complex blocks (complex-step differentiation)."""
    g, F = st.I_o.shape
    A, A_th = _rot_batch(theta)
    first = st.I1 + np.einsum("gkf,gf->gk", st.S_bar, q_f)
    M = np.zeros((g, 3 + F, 3 + F), dtype=np.result_type(theta, q_f, st.mass, float))
    M[:, 0, 0] = M[:, 1, 1] = st.mass
    M[:, 0:2, 2] = np.einsum("gkl,gl->gk", A_th, first)
    M[:, 0:2, 3:] = np.einsum("gkl,glf->gkf", A, st.S_bar)
    M[:, 2, 2] = (st.J_oo + 2.0 * np.einsum("gf,gf->g", st.I_o, q_f)
                  + np.einsum("gf,gfh,gh->g", q_f, st.S_ff, q_f))
    M[:, 2, 3:] = st.J_of + np.einsum("gf,gfh->gh", q_f, st.S_tilde)
    M[:, 3:, 3:] = st.S_ff
    M[:, 2:, 0:2] = np.swapaxes(M[:, 0:2, 2:], 1, 2)
    M[:, 3:, 2] = M[:, 2, 3:]
    return M


def planar_velocity_gravity_blocks(st: StackedInvariants, theta, theta_dot, q_f, q_f_dot,
                                   gravity=None) -> np.ndarray:
    """Quadratic velocity vectors (eq. (30), see :func:`planar_quadratic_velocity`) plus
    the generalized gravity forces (eq. (33): ``m g``, ``(A_theta (I1 + S_bar q_f))^T g``,
    ``(A S_bar)^T g``) of g bodies, (g, 3 + F). theta, theta_dot (g,) [rad, rad/s];
    q_f, q_f_dot (g, F); gravity (2,) [m/s^2] or None."""
    g, F = st.I_o.shape
    w = theta_dot
    A, A_th = _rot_batch(theta)
    first = st.I1 + np.einsum("gkf,gf->gk", st.S_bar, q_f)
    gv = np.einsum("gfh,gh->gf", st.S_ff, q_f) + st.I_o
    Sqd = np.einsum("gkf,gf->gk", st.S_bar, q_f_dot)
    Q = np.empty((g, 3 + F), dtype=np.result_type(theta, theta_dot, q_f, q_f_dot, st.mass,
                                                  float))
    Q[:, 0:2] = ((w * w)[:, None] * np.einsum("gkl,gl->gk", A, first)
                 - (2.0 * w)[:, None] * np.einsum("gkl,gl->gk", A_th, Sqd))
    Q[:, 2] = -2.0 * w * np.einsum("gf,gf->g", q_f_dot, gv)
    Q[:, 3:] = ((w * w)[:, None] * gv
                + (2.0 * w)[:, None] * np.einsum("gfh,gh->gf", st.S_tilde, q_f_dot))
    if gravity is not None:
        gr = np.asarray(gravity)
        Q[:, 0:2] += st.mass[:, None] * gr
        Q[:, 2] += np.einsum("gkl,gl,k->g", A_th, first, gr)
        Q[:, 3:] += np.einsum("gkl,glf,k->gf", A, st.S_bar, gr)
    return Q


def planar_body_mass_matrix(inv: FFRFInvariants, theta: float, q_f) -> np.ndarray:
    """Planar FFRF mass matrix of one body for ``q = [R_x, R_y, theta, q_f]``.

    Rosyid & El-Khasawneh (2020) eqs. (9) and (16)-(28)::

        M = [[m I_2,  A_theta (I1 + S_bar q_f),  A S_bar ],
             [  .  ,  m_theta_theta,             m_theta_f],
             [ sym ,          .,                 m_ff     ]]

        m_theta_theta = J_oo + 2 I_o^T q_f + q_f^T m_ff q_f          (eqs. (21)-(24))
        m_theta_f     = J_of^T + q_f^T S_tilde                       (eq. (27))

    derived from ``r_dot = R_dot + A_theta u theta_dot + A S q_f_dot`` using
    ``A_theta^T A_theta = I_2`` and ``A_theta^T A = I_tilde = [[0, 1], [-1, 0]]``, so that
    ``m_theta_f = integral rho u^T I_tilde S dV`` and ``S^T I_tilde S = S_1^T S_2 - S_2^T S_1``,
    i.e. ``S_tilde = S12 - S21``.  (The extracted text of eq. (27) reads
    ``q_f (S12 S21)`` and ``I_tilde = [0 1 1 0]``: the minus signs were restored by this
    derivation; the paper's ``q_f`` there is the row ``q_f^T``.)

    Parameters
    ----------
    inv : FFRFInvariants
        Shape integrals of the body, see :func:`ffrf_invariants`.
    theta : float
        Body orientation in rad, finite.
    q_f : array_like, shape (n_f,)
        Elastic coordinates (m, or rad for slope coordinates).

    Returns
    -------
    numpy.ndarray, shape (3 + n_f, 3 + n_f)
        Symmetric positive semi-definite mass matrix in SI units (kg, kg m, kg m^2).  It is
        positive definite when the shape matrix holds no rigid-body mode (e.g. the
        clamped-free ``reduced`` Rayleigh-Ritz shape); with the full ``S_b`` of eq. (46)
        it is singular (nodal rigid-body modes duplicate ``R`` and ``theta``).
    """
    inv = _check_inv(inv)
    th = finite("theta", theta)
    q = vector("q_f", q_f, inv.n_f)
    M = planar_mass_blocks(stack_invariants([inv]), np.array([th]), q[None])[0]
    return M


def planar_quadratic_velocity(inv: FFRFInvariants, theta: float, theta_dot: float, q_f,
                              q_f_dot) -> np.ndarray:
    """Planar FFRF quadratic velocity vector ``Q_v`` of one body.

    Rosyid & El-Khasawneh (2020) eq. (30), with signs restored::

        (Q_v)_R     =  theta_dot^2 A (I1 + S_bar q_f) - 2 theta_dot A_theta S_bar q_f_dot
        (Q_v)_theta = -2 theta_dot q_f_dot^T (m_ff q_f + I_o)
        (Q_v)_f     =  theta_dot^2 (m_ff q_f + I_o) + 2 theta_dot S_tilde q_f_dot

    with ``S_tilde = S12 - S21`` and ``I_o`` of eq. (31).  These follow from Lagrange's
    equations ``M q_ddot = Q + Q_v`` with ``Q_v = -M_dot q_dot + dT/dq`` and the mass matrix
    of :func:`planar_body_mass_matrix` (``A_theta_theta = -A``; the ``q_f_dot^T S_tilde
    q_f_dot`` term of ``(Q_v)_theta`` vanishes by antisymmetry; the ``(Q_v)_f`` velocity term
    is the sum of ``+theta_dot S_tilde q_f_dot`` from ``-d/dt(m_theta_f^T) theta_dot`` and of
    the same from ``dT/dq_f``).

    Parameters
    ----------
    inv : FFRFInvariants
        Shape integrals of the body.
    theta : float
        Orientation in rad.
    theta_dot : float
        Angular velocity in rad/s.
    q_f, q_f_dot : array_like, shape (n_f,)
        Elastic coordinates and their rates.

    Returns
    -------
    numpy.ndarray, shape (3 + n_f,)
        ``Q_v`` in N (translations), N m (rotation) and generalized forces of ``q_f``.
    """
    inv = _check_inv(inv)
    th = finite("theta", theta)
    w = finite("theta_dot", theta_dot)
    n = inv.n_f
    q = vector("q_f", q_f, n)
    qd = vector("q_f_dot", q_f_dot, n)
    Qv = planar_velocity_gravity_blocks(stack_invariants([inv]), np.array([th]),
                                        np.array([w]), q[None], qd[None])[0]
    return Qv


def planar_stiffness(shape_fn: ShapeFunction, *, length: float, axial_stiffness: float,
                     bending_stiffness: float, n_gauss: int | None = None,
                     breaks=None) -> np.ndarray:
    """Elastic stiffness matrix ``K_ff`` of an Euler-Bernoulli planar beam body.

    Rosyid & El-Khasawneh (2020) eqs. (37)-(38) and (54)-(55)::

        U = 1/2 integral_0^L (EA (d u_f1/dx)^2 + EI (d^2 u_f2/dx^2)^2) dx = 1/2 q_f^T K_ff q_f
        K_ff = integral_0^L (EA S_1'^T S_1' + EI S_2''^T S_2'') dx,

    ``'`` denoting ``d/dx = L^-1 d/dxi``, evaluated by Gauss-Legendre quadrature.

    Parameters
    ----------
    shape_fn : callable
        ``shape_fn(xi, derivative=k)`` returns ``d^k S / d xi^k`` at the abscissae ``xi``
        (1-D array in [0, 1]), shape (len(xi), 2, n_f), for ``k`` = 1 and 2; for example
        ``functools.partial(rayleigh_ritz_shape, length=L, reduced=True)``.
    length : float
        Beam length in m, > 0.
    axial_stiffness : float
        ``EA`` in N, >= 0.
    bending_stiffness : float
        ``EI`` in N m^2, >= 0.
    n_gauss : int, optional
        Gauss-Legendre points, default :data:`DEFAULT_N_GAUSS` (exact for polynomial shapes
        of degree <= 13).
    breaks : array_like, optional
        Segment boundaries in xi (see :func:`ffrf_invariants`).

    Returns
    -------
    numpy.ndarray, shape (n_f, n_f)
        Symmetric positive semi-definite ``K_ff`` (N/m for translational coordinates).
        For the reduced shape of eq. (52) it is ``[[EA/L, 0, 0], [0, 12EI/L^3, -6EI/L^2],
        [0, -6EI/L^2, 4EI/L]]``.
    """
    L = positive("length", length)
    EA = non_negative("axial_stiffness", axial_stiffness)
    EI = non_negative("bending_stiffness", bending_stiffness)
    xi, w = _segment_rule(n_gauss, breaks)
    d1 = _eval_shape(shape_fn, xi, derivative=1)[:, 0, :] / L
    d2 = _eval_shape(shape_fn, xi, derivative=2)[:, 1, :] / L**2
    wx = L * w
    K = EA * np.einsum("q,qa,qb->ab", wx, d1, d1) + EI * np.einsum("q,qa,qb->ab", wx, d2, d2)
    return 0.5 * (K + K.T)


# --------------------------------------------------------------------------------------
# Closed-form element matrices of Rosyid section 6.1
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RosyidElementMatrices:
    """Closed-form inertia shape integrals of the 2-D beam element (Rosyid eqs. (125)-(127)).

    Element nodal coordinates ``[u1, v1, theta1, u2, v2, theta2]``.

    Attributes
    ----------
    S_ff : numpy.ndarray, shape (6, 6)
        Consistent mass matrix ``integral rho S^T S dV`` in kg (eq. (125)).
    S_bar : numpy.ndarray, shape (2, 6)
        ``integral rho S dV`` in kg (eq. (126)).
    S_tilde : numpy.ndarray, shape (6, 6)
        Antisymmetric ``S12 - S21`` in kg (eq. (127)).
    """

    S_ff: np.ndarray
    S_bar: np.ndarray
    S_tilde: np.ndarray


def rosyid_element_matrices(mass: float, length: float) -> RosyidElementMatrices:
    """Closed-form ``S_ff``, ``S_bar`` and ``S_tilde`` of a 2-D Euler-Bernoulli beam element.

    Rosyid & El-Khasawneh (2020) section 6.1, eqs. (125)-(127), for the shape matrix ``S_b``
    of eq. (46) (linear axial, cubic Hermite transverse) and element mass ``m``, length
    ``l``::

        S_ff = m [[1/3, 0,       0,          1/6, 0,        0         ],
                  [0,   13/35,   11 l/210,   0,   9/70,     -13 l/420 ],
                  [0,   11 l/210, l^2/105,   0,   13 l/420, -l^2/140  ],
                  [1/6, 0,       0,          1/3, 0,        0         ],
                  [0,   9/70,    13 l/420,   0,   13/35,    -11 l/210 ],
                  [0,  -13 l/420, -l^2/140,  0,  -11 l/210,  l^2/105  ]]

        S_bar = m/12 [[6, 0, 0, 6, 0,  0],
                      [0, 6, l, 0, 6, -l]]

        S_tilde = m/60 [[ 0,   21, 3l,  0,   9, -2l],
                        [-21,  0,  0,  -9,   0,  0 ],
                        [-3l,  0,  0,  -2l,  0,  0 ],
                        [ 0,   9,  2l,  0,  21, -3l],
                        [-9,   0,  0,  -21,  0,  0 ],
                        [ 2l,  0,  0,   3l,  0,  0 ]]

    The extracted paper text lost the minus signs of eqs. (125) and (127); they were restored
    by integrating ``S_b`` symbolically (``S_tilde = S12 - S21`` is antisymmetric, which fixes
    the lower triangle) and are checked in the tests against :func:`ffrf_invariants`.

    Parameters
    ----------
    mass : float
        Element mass ``m = rho A l`` in kg, > 0.
    length : float
        Element length ``l`` in m, > 0.

    Returns
    -------
    RosyidElementMatrices
    """
    m = positive("mass", mass)
    l = positive("length", length)  # noqa: E741
    S_ff = m * np.array([
        [1 / 3, 0, 0, 1 / 6, 0, 0],
        [0, 13 / 35, 11 * l / 210, 0, 9 / 70, -13 * l / 420],
        [0, 11 * l / 210, l**2 / 105, 0, 13 * l / 420, -(l**2) / 140],
        [1 / 6, 0, 0, 1 / 3, 0, 0],
        [0, 9 / 70, 13 * l / 420, 0, 13 / 35, -11 * l / 210],
        [0, -13 * l / 420, -(l**2) / 140, 0, -11 * l / 210, l**2 / 105],
    ])
    dt = np.result_type(l, float)       # complex under a complex step of the length
    S_bar = m / 12 * np.array([[6, 0, 0, 6, 0, 0], [0, 6, l, 0, 6, -l]], dtype=dt)
    S_tilde = m / 60 * np.array([
        [0, 21, 3 * l, 0, 9, -2 * l],
        [-21, 0, 0, -9, 0, 0],
        [-3 * l, 0, 0, -2 * l, 0, 0],
        [0, 9, 2 * l, 0, 21, -3 * l],
        [-9, 0, 0, -21, 0, 0],
        [2 * l, 0, 0, 3 * l, 0, 0],
    ], dtype=dt)
    for arr in (S_ff, S_bar, S_tilde):
        arr.setflags(write=False)
    return RosyidElementMatrices(S_ff=S_ff, S_bar=S_bar, S_tilde=S_tilde)


def rosyid_element_stiffness(length: float, *, axial_stiffness: float,
                             bending_stiffness: float) -> np.ndarray:
    """Closed-form stiffness ``K_bar_ff`` of the 2-D beam element, Rosyid eq. (130).

    For ``[u1, v1, theta1, u2, v2, theta2]``, with ``EA``, ``EI`` and length ``l``::

        K = [[ EA/l,  0,          0,         -EA/l,  0,          0         ],
             [ 0,     12EI/l^3,   6EI/l^2,    0,    -12EI/l^3,   6EI/l^2   ],
             [ 0,     6EI/l^2,    4EI/l,      0,    -6EI/l^2,    2EI/l     ],
             [-EA/l,  0,          0,          EA/l,  0,          0         ],
             [ 0,    -12EI/l^3,  -6EI/l^2,    0,     12EI/l^3,  -6EI/l^2   ],
             [ 0,     6EI/l^2,    2EI/l,      0,    -6EI/l^2,    4EI/l     ]]

    (the paper writes it as ``EI/l`` times a matrix containing ``A/I``; minus signs restored).

    Parameters
    ----------
    length : float
        Element length in m, > 0.
    axial_stiffness : float
        ``EA`` in N, >= 0.
    bending_stiffness : float
        ``EI`` in N m^2, >= 0.

    Returns
    -------
    numpy.ndarray, shape (6, 6)
    """
    l = positive("length", length)  # noqa: E741
    EA = non_negative("axial_stiffness", axial_stiffness)
    EI = non_negative("bending_stiffness", bending_stiffness)
    a = EA / l
    b, c, d, e = 12 * EI / l**3, 6 * EI / l**2, 4 * EI / l, 2 * EI / l
    return np.array([
        [a, 0, 0, -a, 0, 0],
        [0, b, c, 0, -b, c],
        [0, c, d, 0, -c, e],
        [-a, 0, 0, a, 0, 0],
        [0, -b, -c, 0, b, -c],
        [0, c, e, 0, -c, d],
    ], dtype=np.result_type(a, b, float))   # complex under a complex step


# --------------------------------------------------------------------------------------
# Body shapes: Rayleigh-Ritz (one element) and finite elements, with boundary conditions
# --------------------------------------------------------------------------------------
#: Boundary conditions of the body frame (Rosyid & El-Khasawneh 2020, section 4): the
#: nodal elastic coordinates suppressed at the first node (x = 0) and at the last (x = L).
#: Node coordinates are (u, v, r): axial, transverse displacement and slope.
BOUNDARY_CONDITIONS = {
    "fixed-free": (("u", "v", "r"), ()),
    "fixed-pinned": (("u", "v", "r"), ("u", "v")),
    "pinned-pinned": (("u", "v"), ("u", "v")),
    "pinned-free": (("u", "v"), ()),
}


class BeamShape:
    """Shape matrix ``S(xi)`` (2, n_f) of a straight planar beam body in its body frame:
    ``elements`` cubic elements (linear axial, Hermite cubic transverse: Rosyid eq. (46)
    per element), assembled and reduced by the boundary conditions of the body frame
    (eqs. (117), (156)).

    One element is the Rayleigh-Ritz body of section 5 (eq. (46); fixed-free: eq. (52)).
    Several elements are the finite-element body of sections 6-7: for a straight beam the
    intermediate element frames of eqs. (108)-(124) are parallel to the body frame
    (C_ij = C_bar_ij = I), and the element shape functions hold the rigid-body modes,
    so ``u_o = S_e q_o`` is the undeformed position and the element-level assembly of
    eqs. (131)-(135) equals the integrals of this piecewise shape matrix (computed per
    element with ``breaks``, exactly).

    Parameters
    ----------
    length : float
        [m], > 0.
    elements : int
        >= 1.
    boundary : str
        One of :data:`BOUNDARY_CONDITIONS`. "pinned-free" leaves the body frame's
        rotation undetermined (the slope at x = 0 and the rigid rotation of the frame
        are the same motion: a singular mass matrix, as section 4 of the paper says) and
        is refused.
    """

    def __init__(self, length: float, elements: int = 1, boundary: str = "fixed-free"):
        self.length = positive("length", length)
        self.elements = positive_int("elements", elements)
        if boundary not in BOUNDARY_CONDITIONS:
            raise InputError("boundary", boundary, "fixed-free, fixed-pinned or pinned-pinned")
        if boundary == "pinned-free":
            raise InputError("boundary", boundary,
                             "fixed-free, fixed-pinned or pinned-pinned (pinned-free leaves "
                             "the body frame's rotation undetermined: a singular mass "
                             "matrix, Rosyid & El-Khasawneh 2020 section 4)")
        self.boundary = boundary
        first, last = BOUNDARY_CONDITIONS[boundary]
        n_nodes = self.elements + 1
        kinds = ("u", "v", "r")
        keep = []
        for node in range(n_nodes):
            for k, kind in enumerate(kinds):
                if (node == 0 and kind in first) or (node == n_nodes - 1 and kind in last):
                    continue
                keep.append(3 * node + k)
        self._keep = np.array(keep, dtype=int)
        self.names = tuple(f"{kinds[i % 3]}{i // 3 + 1}" for i in keep)
        self.breaks = np.linspace(0.0, 1.0, self.elements + 1)
        self.breaks.setflags(write=False)

    @property
    def n_f(self) -> int:
        return int(self._keep.size)

    @property
    def units(self) -> tuple:
        return tuple("rad" if n[0] == "r" else "m" for n in self.names)

    def __call__(self, xi, derivative: int = 0) -> np.ndarray:
        """``d^k S / d xi^k`` at ``xi`` (scalar or 1-D in [0, 1]): shape (2, n_f) or
        (n, 2, n_f); xi-derivatives (``L^-k`` times them are x-derivatives)."""
        x, scalar = _as_xi(xi)
        ne, L = self.elements, self.length
        e = np.minimum((x.real * ne).astype(int), ne - 1)
        local = x * ne - e                                   # element abscissa in [0, 1]
        Se = rayleigh_ritz_shape(local, L / ne, derivative=derivative) * float(ne) ** derivative
        full = np.zeros((x.size, 2, 3 * (ne + 1)), Se.dtype)  # complex: a length's step
        for i in range(x.size):
            full[i, :, 3 * e[i]:3 * e[i] + 6] = Se[i]
        out = full[:, :, self._keep]
        return out[0] if scalar else out


class SineShape:
    """Simeon's ansatz for a rod between two pins (the IVP test set's slider crank;
    B. Simeon, Math. Modelling of Systems 2 (1996) 1-18): in a *chord* body frame (origin
    at the first pin, x through the second), ``modes`` lateral sine modes
    ``v = sum_k w_k sin(k pi xi)`` (zero at both pins) and one quadratic Lagrange element
    axially, ``u = u_mid 4 xi (1 - xi) + u_end xi (2 xi - 1)`` (zero at the first pin).
    Coordinates ``w1..w<modes>``, ``u_mid``, ``u_end`` [m]; the same interface as
    :class:`BeamShape` (``S(xi)`` (2, n_f), xi-derivatives). The pins are at the axis
    ends: the second pin is the point (L, 0) + S(1) q_f = (L + u_end, 0).
    """

    boundary = "pinned-pinned"

    def __init__(self, length: float, modes: int = 2):
        self.length = positive("length", length)
        self.modes = positive_int("modes", modes)
        self.elements = 1
        self.names = tuple(f"w{k + 1}" for k in range(self.modes)) + ("u_mid", "u_end")
        # quadrature per quarter: sin(k pi xi) products integrate to round-off with the
        # default Gauss rule on each piece for the mode counts used (<= 8)
        self.breaks = np.linspace(0.0, 1.0, 2 * self.modes + 1)
        self.breaks.setflags(write=False)

    @property
    def n_f(self) -> int:
        return self.modes + 2

    @property
    def units(self) -> tuple:
        return ("m",) * self.n_f

    def __call__(self, xi, derivative: int = 0) -> np.ndarray:
        """``d^k S / d xi^k`` at ``xi`` (scalar or 1-D in [0, 1]): (2, n_f) or (n, 2, n_f)."""
        x, scalar = _as_xi(xi)
        d = int(derivative)
        out = np.zeros((x.size, 2, self.n_f), np.result_type(x, float))  # complex step
        for k in range(1, self.modes + 1):
            w = k * math.pi
            # d^d/dxi^d sin(w xi) = w^d sin(w xi + d pi / 2)
            out[:, 1, k - 1] = w ** d * np.sin(w * x + d * math.pi / 2)
        quad = {0: (4 * x * (1 - x), x * (2 * x - 1)), 1: (4 - 8 * x, 4 * x - 1),
                2: (-8 + 0 * x, 4 + 0 * x)}.get(d, (0 * x, 0 * x))
        out[:, 0, self.modes], out[:, 0, self.modes + 1] = quad
        return out[0] if scalar else out


def fitted_mass_per_length(length: float, mass: float, centre: float, inertia: float):
    """The quadratic mass per length mu(xi) = (m / L)(c0 + c1 xi + c2 xi^2) of a straight
    body whose mass ``m`` [kg], centre of mass ``centre`` [m from x = 0, along the axis]
    and rotary inertia ``inertia`` about the centre of mass [kg m^2] are given.

    Decision (Rosyid & El-Khasawneh 2020, section 8.1): the paper gives each link's
    mass, centre of mass and inertia; its inertias are those of uniform bars
    (m L^2 / 12) but its centres of mass are not at mid-length, which no uniform beam
    can give. The three moments ``integral mu = m``, ``integral mu x = m x_G`` and
    ``integral mu (x - x_G)^2 = I_G`` fix a quadratic density exactly, so the flexible
    body has the rigid link's mass properties (and the stiff body gives the paper's rigid
    model); the stiffness still comes from E and the section.

    Returns
    -------
    callable
        ``mu(xi)`` [kg/m] for xi in [0, 1].

    Raises
    ------
    InputError
        If the moments are not those of a positive density on [0, L] (the centre of mass
        must lie inside and the inertia be compatible).
    """
    L = positive("length", length)
    m = positive("mass", mass)
    xg = finite("centre_of_mass", centre) / L
    j = non_negative("inertia", inertia) / (m * L * L)
    A = np.array([[1.0, 1 / 2, 1 / 3], [1 / 2, 1 / 3, 1 / 4], [1 / 3, 1 / 4, 1 / 5]])
    c = np.linalg.solve(A, [1.0, xg, xg * xg + j])
    grid = np.linspace(0.0, 1.0, 201)
    cr = c.real                          # checked on the real parts (complex step)
    if not 0.0 < xg.real < 1.0 or np.min(cr[0] + cr[1] * grid + cr[2] * grid**2) <= 0.0:
        raise InputError("mass properties", {"mass": m, "centre_of_mass": centre,
                                             "inertia": inertia},
                         "a centre of mass inside the body and an inertia about it that a "
                         "positive quadratic density along the length can have "
                         f"(about m L^2 / 12 = {m * L * L / 12:.4g} kg m^2)")
    coeff = (m / L) * c

    def mu(xi):
        xi = np.asarray(xi, dtype=float)
        return coeff[0] + coeff[1] * xi + coeff[2] * xi * xi

    mu.coefficients = coeff
    return mu
