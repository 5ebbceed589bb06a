"""Independent reference: linear finite-element frame model of a planar 3-PRR-like robot
with its actuators locked (test oracle for tests/formulations/nepvp/test_nepvp_closure.py).

Written from scratch with numpy only; it imports nothing from ``elastodyn``.

Structure (SI units, plane (x, y))
----------------------------------
* Leg i is a straight beam from the pin A_i (its carriage, locked: both translations
  fixed, rotation free) to the pin B_i on a rigid platform (shared translation with the
  platform point, independent rotation of the beam end).
* The platform is rigid, with generalized displacements (u_x, u_y, theta) of its origin
  P: the point B_i moves by (u_x - theta (B_iy - P_y), u_y + theta (B_ix - P_x)).
  Its mass matrix on (u_x, u_y, theta) is [[m, 0, -S_y], [0, m, S_x], [-S_y, S_x, I_P]]
  with S = m (G - P) the first moment (base axes) and I_P the rotary inertia about P.
* Beams: n equal two-node Euler-Bernoulli elements, local dofs (u1, w1, t1, u2, w2, t2):
  linear axial shape, cubic Hermite bending, t = dw/ds; stiffness EA/l and the classical
  EI/l^3 matrix; consistent mass from the line mass rho A only (no rotary inertia of the
  sections). Local -> global with the beam tangent (c, s): u = c u_x + s u_y,
  w = -s u_x + c u_y, t unchanged.

Degrees of freedom: per leg, the rotation at A_i, (u_x, u_y, t) of the interior nodes
1..n-1 and the rotation at B_i (3 n - 1), then the platform (3): 3 (3 n - 1) + 3 = 9 n.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


def element_matrices(l, c, s, EA, EI, rhoA):
    """(K, M) (6, 6) of one element of length l [m] along (c, s), in global
    (u_x, u_y, theta) per node."""
    ia, ib = [0, 3], [1, 2, 4, 5]
    k = np.zeros((6, 6))
    m = np.zeros((6, 6))
    k[np.ix_(ia, ia)] = EA / l * np.array([[1.0, -1.0], [-1.0, 1.0]])
    k[np.ix_(ib, ib)] = EI / l ** 3 * np.array([
        [12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
        [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
    m[np.ix_(ia, ia)] = rhoA * l / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
    m[np.ix_(ib, ib)] = rhoA * l / 420 * np.array([
        [156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
        [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    r = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
    T = np.kron(np.eye(2), r)
    return T.T @ k @ T, T.T @ m @ T


def frame_matrices(A, B, P, n, EA, EI, rhoA, mass, first_moment, inertia_P):
    """K, M (9 n, 9 n) of the locked robot.

    A, B : (legs, 2) pins at the carriages and on the platform [m]; P : (2,) platform
    origin [m]; n : elements per leg; EA [N], EI [N m^2], rhoA [kg/m] of the legs;
    mass [kg], first_moment (2,) = m (G - P) [kg m] and inertia_P [kg m^2] of the
    platform (about P)."""
    A, B, P = (np.asarray(v, dtype=float) for v in (A, B, P))
    legs = len(A)
    ndof = legs * (3 * n - 1) + 3
    ip = ndof - 3
    K = np.zeros((ndof, ndof))
    M = np.zeros((ndof, ndof))
    off = 0
    for i in range(legs):
        d = B[i] - A[i]
        L = float(np.hypot(*d))
        c, s = d / L

        def node(k, off=off, i=i):
            S = np.zeros((3, ndof))
            if k == 0:                                   # pin at the locked carriage
                S[2, off] = 1.0
            elif k == n:                                 # pin on the platform
                S[2, off + 3 * n - 2] = 1.0
                r = B[i] - P
                S[0, ip], S[0, ip + 2] = 1.0, -r[1]
                S[1, ip + 1], S[1, ip + 2] = 1.0, r[0]
            else:
                j = off + 1 + 3 * (k - 1)
                S[:, j:j + 3] = np.eye(3)
            return S

        ke, me = element_matrices(L / n, c, s, EA, EI, rhoA)
        for k in range(n):
            T = np.vstack([node(k), node(k + 1)])
            K += T.T @ ke @ T
            M += T.T @ me @ T
        off += 3 * n - 1
    Sx, Sy = first_moment
    M[ip:, ip:] += np.array([[mass, 0.0, -Sy], [0.0, mass, Sx], [-Sy, Sx, inertia_P]])
    return K, M


def frame_omegas(*args, **kwargs):
    """Natural angular frequencies [rad/s], ascending (arguments of frame_matrices)."""
    K, M = frame_matrices(*args, **kwargs)
    return np.sqrt(scipy.linalg.eigh(K, M, eigvals_only=True))
