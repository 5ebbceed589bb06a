"""One-dimensional two-node interpolation families and Gauss-Legendre quadrature.

An interpolation of continuity order ``r`` on a two-node element of length l uses, at each
node, the value and the first ``r`` physical derivatives of the field:

=========  ===  ======  ==================================================
name       r    degree  nodal unknowns (node 1, then node 2)
=========  ===  ======  ==================================================
linear     0    1       f
cubic      1    3       f, f'            (Hermite)
quintic    2    5       f, f', f''       (Hermite)
=========  ===  ======  ==================================================

These are the interpolations of Kuo 2016, Tables 2 and 3 (linear axial/torsion with cubic
bending; cubic axial/torsion with quintic bending). The reference coordinate is
xi = x / l in [0, 1]; a basis function attached to the d-th derivative is l**d times its
reference polynomial, so that nodal unknowns are physical derivatives [m/m^d].
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._validate import choice, real_array

INTERPOLATIONS = {"linear": 0, "cubic": 1, "quintic": 2}


@lru_cache(maxsize=None)
def hermite_coefficients(r: int) -> np.ndarray:
    """Monomial coefficients of the two-node Hermite basis of continuity order ``r``.

    Returns
    -------
    ndarray, shape (2(r+1), 2(r+1))
        Row ``a*(r+1) + d`` holds the coefficients c_k (of xi**k, k ascending) of the
        reference basis polynomial P with P^(k)(xi_b) = delta_ab delta_dk at the nodes
        xi_0 = 0, xi_1 = 1 (derivatives with respect to xi).
    """
    n = 2 * (r + 1)
    V = np.zeros((n, n))
    for b, xb in enumerate((0.0, 1.0)):
        for d in range(r + 1):
            row = b * (r + 1) + d
            for k in range(d, n):
                fall = np.prod(np.arange(k - d + 1, k + 1, dtype=float))  # k!/(k-d)!
                V[row, k] = fall * xb ** (k - d)
    # Basis coefficients C satisfy V @ C.T = I.
    C = np.linalg.inv(V).T
    C[np.abs(C) < 1e-12] = 0.0
    return C


def reference_basis(r: int, xi: np.ndarray, deriv: int = 0) -> np.ndarray:
    """Reference basis (derivative ``deriv`` with respect to xi) at points ``xi``.

    Returns
    -------
    ndarray, shape (len(xi), 2(r+1))
    """
    C = hermite_coefficients(r)
    xi = np.atleast_1d(real_array(xi))        # complex under a complex step
    n = C.shape[1]
    powers = np.zeros((xi.size, n), xi.dtype)
    for k in range(deriv, n):
        fall = np.prod(np.arange(k - deriv + 1, k + 1, dtype=float))
        powers[:, k] = fall * xi ** (k - deriv)
    return powers @ C.T


def derivative_orders(r: int) -> np.ndarray:
    """Derivative order d of each basis function of the family (shape (2(r+1),))."""
    return np.tile(np.arange(r + 1), 2)


def basis(name: str, xi, length: float, deriv: int = 0) -> np.ndarray:
    """Physical basis N(x) (or its ``deriv``-th x-derivative) at x = xi * length.

    Parameters
    ----------
    name : {"linear", "cubic", "quintic"}
        Interpolation family.
    xi : array_like, shape (n,)
        Reference coordinates in [0, 1].
    length : float
        Element length l [m].
    deriv : int
        Order of the x-derivative (0 for values).

    Returns
    -------
    ndarray, shape (n, 2(r+1))
        Column j multiplies nodal unknown j (see module docstring) [1/m^deriv * m^d].
    """
    r = INTERPOLATIONS[choice("interpolation", name, INTERPOLATIONS)]
    scale = float(length) ** derivative_orders(r)
    return reference_basis(r, xi, deriv) * scale / float(length) ** deriv


@lru_cache(maxsize=None)
def gauss_legendre_01(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre points and weights on [0, 1]; exact for degree <= 2n - 1."""
    x, w = np.polynomial.legendre.leggauss(n)
    x = 0.5 * (x + 1.0)
    w = 0.5 * w
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w
