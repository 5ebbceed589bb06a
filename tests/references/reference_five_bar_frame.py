"""Independent reference model of the flexible planar five-bar frozen at one pose (test oracle).

This module builds, from scratch and with numpy / scipy only, the linear finite-element
model (no preload, no geometric stiffness) of the two flexible distal beams of a planar
five-bar mechanism held at a fixed configuration, and returns its natural frequencies.
It is deliberately independent of the library: it imports nothing from ``elastodyn``
(in particular not the recursive Newton-Euler code in ``elastodyn.formulations``); the
element matrices, coordinate transformation, joints and assembly are all written here.

Structure (SI units)
--------------------
* Plane (x, z).  Pin supports (both translations fixed, rotation free) at
  ``A1 = (0, q1)`` and ``A2 = (D, q4)`` with ``D = 0.6`` m.
* Two straight beams of length ``L = 0.4`` m, A1 -> P and A2 -> P, pinned to each other
  at P (shared translations, independent end rotations).  P is the intersection of the
  circles of radius L about A1 and A2 lying on the +z side of the line A1-A2:
  ``P = (A1 + A2)/2 + h * nrm`` with ``u = (A2 - A1)/|A2 - A1|``, ``nrm = (-u_z, u_x)``,
  ``h = sqrt(L^2 - |A2 - A1|^2 / 4)`` (requires ``|A2 - A1| <= 2 L``).
  Example: ``q1 = q4 = 0`` -> ``P = (0.3, +sqrt(0.07))``.
* Point mass ``M_P = 1`` kg at P (translational inertia only).
* Beams: aluminium (``E = 70e9`` Pa, ``rho = 2800`` kg/m^3), full square section
  2 mm x 2 mm (``A = 4e-6`` m^2, ``I = (2e-3)^4 / 12`` m^4).

Element
-------
Two-node planar Euler-Bernoulli frame element of length ``l``, local dofs
``(u1, w1, t1, u2, w2, t2)``: axial displacement ``u`` (linear shape functions),
transverse displacement ``w`` (cubic Hermite), rotation ``t = dw/ds``.

* Stiffness: ``EA/l [[1, -1], [-1, 1]]`` on (u1, u2) and the classical
  ``EI/l^3 [[12, 6l, -12, 6l], [6l, 4l^2, -6l, 2l^2], ...]`` on (w1, t1, w2, t2).
* Consistent mass from the line mass ``rho A`` only (translational inertia of the axial
  and transverse fields; NO rotary-inertia term): ``rho A l / 6 [[2, 1], [1, 2]]`` on
  (u1, u2) and ``rho A l / 420 [[156, 22l, 54, -13l], ...]`` on (w1, t1, w2, t2).

Local -> global: with the beam tangent ``e = (c, s)`` (x, z components) and the normal
``nrm = (-s, c)`` (tangent rotated by +90 deg in the (x, z) plane drawn with x to the
right and z up), ``u = c u_x + s u_z``, ``w = -s u_x + c u_z`` and the rotation ``t`` is
unchanged, i.e. ``theta`` is the counter-clockwise rotation in that drawing (rotation
about ``-y`` for a right-handed (x, y, z) frame).  Rotation signs do not affect the
frequencies.  ``K_glob = T^T K_loc T``.

Degrees of freedom (6 n in total), global ordering
--------------------------------------------------
Beam b (b = 1: A1 -> P, b = 2: A2 -> P) has nodes 0..n, node 0 at the pin, node n at P,
equally spaced.  The global vector is::

    [ beam 1 : theta_0, (u_x, u_z, theta)_1, ..., (u_x, u_z, theta)_{n-1}, theta_n ]  (3n-1)
    [ beam 2 : theta_0, (u_x, u_z, theta)_1, ..., (u_x, u_z, theta)_{n-1}, theta_n ]  (3n-1)
    [ P      : u_x, u_z ]                                                             (2)

Translations are in world (x, z) components; the point mass enters ``M`` on the last two
dofs.  The frequencies come from ``K phi = omega^2 M phi`` solved with
``scipy.linalg.eigh``; ``f = omega / (2 pi)`` in Hz, ascending.

API
---
``five_bar_point(q4, q1=0.0) -> P (2,)``
``frame_matrices(q4, q1=0.0, n=1) -> (K, M)``  (6n x 6n each)
``frame_frequencies(q4, q1=0.0, n=1) -> f (6n,)`` in Hz, ascending
``beam_element_matrices(l, angle) -> (K_e, M_e)`` in global (u_x, u_z, theta) per node
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

# --- data ---------------------------------------------------------------------------------
D_BASE = 0.6          # m, distance between the two pins along x
L_BEAM = 0.4          # m, length of each distal beam
MASS_P = 1.0          # kg, point mass at P
E_MOD = 70e9          # Pa, aluminium
RHO = 2800.0          # kg/m^3
SIDE = 2e-3           # m, full square section side
AREA = SIDE ** 2      # 4e-6 m^2
INERTIA = SIDE ** 4 / 12.0


def beam_element_matrices(l: float, angle: float, *, EA: float = E_MOD * AREA,
                          EI: float = E_MOD * INERTIA, rhoA: float = RHO * AREA):
    """(K_e, M_e), 6x6, global dofs (u_x1, u_z1, t1, u_x2, u_z2, t2) of an element of
    length ``l`` whose tangent is ``(cos angle, sin angle)`` in (x, z)."""
    k = np.zeros((6, 6))
    m = np.zeros((6, 6))
    ia = [0, 3]            # axial local dofs
    ib = [1, 2, 4, 5]      # bending local dofs (w1, t1, w2, t2)
    k[np.ix_(ia, ia)] = EA / l * np.array([[1.0, -1.0], [-1.0, 1.0]])
    k[np.ix_(ib, ib)] = EI / l ** 3 * np.array([
        [12.0, 6 * l, -12.0, 6 * l],
        [6 * l, 4 * l * l, -6 * l, 2 * l * l],
        [-12.0, -6 * l, 12.0, -6 * l],
        [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
    m[np.ix_(ia, ia)] = rhoA * l / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
    m[np.ix_(ib, ib)] = rhoA * l / 420.0 * np.array([
        [156.0, 22 * l, 54.0, -13 * l],
        [22 * l, 4 * l * l, 13 * l, -3 * l * l],
        [54.0, 13 * l, 156.0, -22 * l],
        [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    c, s = np.cos(angle), np.sin(angle)
    r = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])   # local = r @ global
    t = scipy.linalg.block_diag(r, r)
    return t.T @ k @ t, t.T @ m @ t


def five_bar_point(q4: float, q1: float = 0.0) -> np.ndarray:
    """Position of P = (x, z): circle intersection on the +z side of the line A1-A2."""
    a1 = np.array([0.0, q1])
    a2 = np.array([D_BASE, q4])
    dvec = a2 - a1
    dist = float(np.linalg.norm(dvec))
    if dist > 2 * L_BEAM:
        raise ValueError(f"unreachable pose: |A2 - A1| = {dist} > 2 L = {2 * L_BEAM}")
    u = dvec / dist
    nrm = np.array([-u[1], u[0]])
    h = np.sqrt(L_BEAM ** 2 - dist ** 2 / 4.0)
    return 0.5 * (a1 + a2) + h * nrm


def _beam_dof_map(b: int, n: int) -> np.ndarray:
    """Global index of the 3 (u_x, u_z, theta) dofs of every node 0..n of beam b (0/1);
    -1 marks a dof fixed at the pin."""
    nb = 3 * n - 1
    off = b * nb
    p = 2 * nb                      # P translations
    idx = np.full((n + 1, 3), -1, dtype=int)
    idx[0, 2] = off
    for j in range(1, n):
        idx[j] = off + 1 + 3 * (j - 1) + np.arange(3)
    idx[n] = [p, p + 1, off + nb - 1]
    return idx


def frame_matrices(q4: float, q1: float = 0.0, n: int = 1):
    """Global stiffness and mass matrices (6n x 6n), dof ordering in the module docstring."""
    n = int(n)
    if n < 1:
        raise ValueError("n must be >= 1")
    ndof = 6 * n
    K = np.zeros((ndof, ndof))
    M = np.zeros((ndof, ndof))
    P = five_bar_point(q4, q1)
    pins = [np.array([0.0, q1]), np.array([D_BASE, q4])]
    for b, a in enumerate(pins):
        vec = P - a
        length = float(np.linalg.norm(vec))
        angle = float(np.arctan2(vec[1], vec[0]))
        ke, me = beam_element_matrices(length / n, angle)
        idx = _beam_dof_map(b, n)
        for j in range(n):
            g = np.concatenate([idx[j], idx[j + 1]])
            keep = g >= 0
            gg = g[keep]
            K[np.ix_(gg, gg)] += ke[np.ix_(keep, keep)]
            M[np.ix_(gg, gg)] += me[np.ix_(keep, keep)]
    M[ndof - 2, ndof - 2] += MASS_P
    M[ndof - 1, ndof - 1] += MASS_P
    return K, M


def frame_frequencies(q4: float, q1: float = 0.0, n: int = 1) -> np.ndarray:
    """The 6n natural frequencies (Hz), ascending."""
    K, M = frame_matrices(q4, q1, n)
    w2 = scipy.linalg.eigh(K, M, eigvals_only=True)
    return np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi)


if __name__ == "__main__":   # pragma: no cover - convergence table
    np.set_printoptions(linewidth=160, precision=4, suppress=True)
    for q4 in (-0.5, -0.25, 0.0, 0.25, 0.5):
        print(f"q4 = {q4}")
        for n in (1, 2, 4, 8, 16):
            print(f"  n={n:2d}", frame_frequencies(q4, n=n)[:8])
