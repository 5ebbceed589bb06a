"""Independent reference for Simeon's elastic slider crank (IVP Test Set, "crank").

A standalone re-implementation (numpy/scipy only, nothing from ``elastodyn``) of the
problem "Slider Crank" of the Test Set for IVP Solvers (F. Mazzia, C. Magherini et al.,
Univ. Bari, http://www.dm.uniba.it/~testset/, file ``src/problems/crank.f``, written by
B. Simeon 1995/1998), after B. Simeon, "Modelling a flexible slider crank mechanism by
a mixed system of DAEs and PDEs", Math. Modelling of Systems 2 (1996) 1-18. It is a test
oracle for the floating-frame-of-reference (FFRF) engine.

Sources (read, not copied; the equations below were re-derived and then checked
against them):

* the problem file ``crank.f`` (revision ``crank.F,v 1.2 2006/10/02``), as shipped in
  ``tpetzoldt/deSolve`` ``pkg/daeSolve/src/Ex_crank.f`` and in ``rforge/bvpsolve``
  ``pkg/deTestSet/src/Ex_crank.f`` (commit 0007f922): data set, FE matrices of the rod,
  residual ``RESMBS`` (index-2 form), and the reference solution ``cranksoln`` at
  t = 0.1 (MEBDFI, atol = rtol = 1e-14) = ``REFERENCE_T01`` below;
* the initial values ``init``: ``rforge/bvpsolve`` ``pkg/deTestSet/R/ex_crank.R``
  (option ini = 1, "close to smooth motion, accelerations and multipliers consistent for
  linear stiffness term and no damping") = ``Y0_TESTSET`` below.

Mechanism (plane x-y, no gravity)
---------------------------------
* Crank (body 1): revolute to ground at O, angle phi1 from the x axis, length L1,
  driven at constant speed: phi1 = OMEGA t (a rheonomic constraint; its multiplier is
  the driving torque). Rotary inertia about O: J1 (0.002727 = M1 (L1^2/3 + 0.03^2/12),
  a 3 cm wide bar, by our reading; M1 itself enters only the zero gravity term).
* Connecting rod (body 2): an elastic beam of length L2, section BB x HH, steel. Its
  body frame has its origin at the crank-rod joint A = L1 (cos phi1, sin phi1) and its
  x axis at angle phi2 along the undeformed rod; the rod end B (slider joint) lies on
  this x axis at x = L2 + u(L2) (lateral modes vanish at both ends: a "chord" frame,
  pinned-pinned lateral ansatz, axial displacement zero at A, free at B).
* Slider (body 3): mass M3 at (x3, 0), prismatic along the x axis, pinned to B.
* Constraints (crank.f ``PLC``):
      g1 = L1 sin phi1 + (L2 + q4) sin phi2 = 0          (B on the x axis)
      g2 = x3 - L1 cos phi1 - (L2 + q4) cos phi2 = 0     (slider at B)
      g3 = phi1 - OMEGA t = 0                            (drive)

Rod deformation (body-frame components, xi = x / L2 in [0, 1])
---------------------------------------------------------------
* lateral (body y):  v(xi) = q1 sin(pi xi) + q2 sin(2 pi xi)
* axial   (body x):  u(xi) = q3 4 xi (1 - xi) + q4 xi (2 xi - 1)
  (quadratic Lagrange element on nodes xi = 0 (u = 0), 1/2 (u = q3), 1 (u = q4)).
* Material point: r = r_A + R(phi2) (x + u, v); kinetic energy of the rod
      T2 = 1/2 int rho A |dr/dt|^2 dx + 1/2 (M2 HH^2/12) phi2'^2,
  whose rigid part is 1/2 M2 |v_A|^2 + M2 (L2/2) v_A.d(R e_x)/dt + 1/2 J2 phi2'^2 with
  M2 = rho A L2 = 0.151104 kg (the rod's own mass) and J2 = M2 (L2^2/3 + HH^2/12)
  = 0.0045339259 kg m^2 (the rod's rotary inertia about A; the HH^2/12 section term is
  in J2 only, not in the elastic terms).
* Elastic energy (linear, crank.f IPAR(1) = 0; no geometric stiffening):
      U = 1/2 E I / L2^3 int v''^2 dxi + 1/2 E A / L2 int u'^2 dxi   (' = d/dxi).
* No damping (crank.f IPAR(2) = 0), no gravity (GRAV = 0).

Generalized coordinates p = (phi1, phi2, x3, q1, q2, q3, q4); the kinetic energy
T = 1/2 J1 phi1'^2 + T2 + 1/2 M3 x3'^2 = 1/2 p'^T M(p) p' gives the mass matrix
(delta = phi1 - phi2, c = cos delta, s = sin delta, vectors over q, "." a dot product):

    M11 = J1 + M2 L1^2
    M12 = L1 [ (M2 L2/2 + rho c1.q) c + rho (c2.q) s ]
    M22 = J2 + q' Mq q + 2 rho c12.q
    M33 = M3
    M1q = rho L1 (c c2 - s c1)
    M2q = rho c21 + rho Bq' q
    Mqq = Mq

with the rod invariants c1 = A int N_ax dx, c2 = A int N_lat dx, c12 = A int x N_ax dx,
c21 = A int x N_lat dx, Bq[j, i] = A int N_j N_i dx = -Bq[i, j] (j axial, i lateral:
skew), Mq = rho A int N N^T dx (block-diagonal: lateral, axial), Kq from U. The
quadratic-velocity and elastic forces F(p, p') = -M' p' + dT/dp - dU/dp (Lagrange)
are, with w1 = phi1', w2 = phi2', a = M2 L2/2 + rho c1.q (= int rho A (x + u) dx),
b = rho c2.q (= int rho A v dx):

    F1 = L1 w2^2 (b c - a s) - 2 rho L1 w2 (c c1 + s c2).q'
    F2 = L1 w1^2 (a s - b c) - 2 w2 (q'.Mq q + rho c12.q')   (q'.Bq q' = 0: Bq skew)
    F3 = 0
    Fq = w2^2 (Mq q + rho c12) + rho L1 w1^2 (c c1 + s c2) + 2 rho w2 Bq q' - Kq q

(exactly crank.f's F; ``test_reference_slider_crank`` checks this F against a
complex-step differentiation of the kinetic energy). The DAE is
M p'' = F - G' lambda, g = 0 with G = dg/dp.

What this module integrates
---------------------------
The index-2 DAE is reduced here to an ODE in the minimal coordinates z = (q1..q4):
phi1 = OMEGA t; phi2 = asin(-L1 sin phi1 / (L2 + q4)) (|phi2| < pi/2 since L1 < L2);
x3 = L1 cos phi1 + (L2 + q4) cos phi2. Then p' = J z' + (OMEGA e1 term), p'' = J z'' +
gamma, and the reduced equations  (J' M J) z'' = J' (F - M gamma)  are integrated with
scipy's DOP853 (explicit Runge-Kutta of order 8) at rtol = 1e-12 by default: the
problem is oscillatory, undamped, and only mildly stiff (elastic frequencies 1.28e3,
5.1e3 rad/s lateral and 6.8e3, 2.5e4 rad/s axial with the test set's matrices; 2.6e4,
9.5e4 rad/s axial with the consistent ones), so the steps an order-8 method needs for
1e-12 (about 1e-5 s) are also stable, and ~6e3-8e3 steps cover 0.1 s. Radau (order 5,
implicit) must resolve the same undamped oscillations and needs far more steps; it is
used only for the rigid limit (E large), where its L-stability damps the unresolved
elastic oscillations and leaves the quasi-static limit. Results at rtol = 1e-10 ... 1e-13
agree to 1e-14 m in q and 1e-13 J in the energy balance. The multipliers follow from
G' lambda = F - M p'' (three scalar equations solved in closed form); lambda3 is minus
the driving torque on the crank. The work of the drive, W = int -lambda3 OMEGA dt, is
integrated as a ninth state.

Variants
--------
``variant="testset"`` (default) uses the published matrices exactly as in crank.f,
including two quirks that the reference values at t = 0.1 depend on:
  * pi is the truncated literal 3.1415927 in all closed-form invariants;
  * the axial mass block is Mq[2:4, 2:4] = rho A L2 [[8, 1], [1, 2]], which is 15 times
    the consistent mass of the quadratic element, rho A L2 / 15 [[8, 1], [1, 2]] (the
    axial stiffness (16/3, -8/3, 7/3) and all coupling vectors c1, c12, Bq are those
    of the element, consistent with each other).
``variant="consistent"`` computes every invariant by Gauss-Legendre quadrature of the
shape functions above with numpy's pi (so the axial mass is 1/15 of the test set's).

Outputs
-------
The test set defines no scalar outputs: its reference is the full 24-vector
y = (p, p', p'', lambda) at t = 0.1. Here: slider position x3 = y[2] [m]; rod mid-span
transverse deflection = v(xi = 1/2) in the rod frame = q1 sin(pi/2) + q2 sin(pi) = q1
= y[3] [m] (the second sine mode has a node at mid-span).

API
---
``simulate(t_end=0.1, t_eval=None, *, variant="testset", E=EE, q0=None, qd0=None,
rtol=1e-12, atol=None, method="DOP853", max_step=inf) -> dict``;
``full_state(t, q, qd, model)`` -> the test set's 24-vector; ``rod_model(variant, E)``;
``mass_matrix``, ``forces``, ``constraints`` and their derivatives; the constants below.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

# --- data set of crank.f (SI) -------------------------------------------------------
M1 = 0.36  # crank mass [kg] (enters only the gravity term, zero here)
M2 = 0.151104  # rod mass [kg] = RHO * BB * HH * L2
M3 = 0.075552  # slider mass [kg]
L1 = 0.15  # crank length [m]
L2 = 0.30  # rod length [m]
J1 = 0.002727  # crank rotary inertia about O [kg m^2]
J2 = 0.0045339259  # rod rotary inertia about A [kg m^2] = M2 (L2^2/3 + HH^2/12)
EE = 0.20e12  # Young's modulus [Pa]
NUE = 0.30  # Poisson's ratio (unused by the model)
BB = 0.0080  # section width [m]
HH = 0.0080  # section height [m] (bending in the plane of motion)
RHO = 7870.0  # density [kg/m^3]
GRAV = 0.0  # gravity [m/s^2]
OMEGA = 150.0  # crank speed [rad/s]
PI_TESTSET = 3.1415927  # the literal crank.f uses for pi

AREA = BB * HH
INERTIA = BB * HH**3 / 12.0

# --- consistent initial values (crank.f / deTestSet init, option ini = 1) ----------
# y = (phi1, phi2, x3, q1..q4, their velocities, their accelerations, lambda1..3)
Y0_TESTSET = np.array([
    0.0, 0.0, 0.450016933, 0.0, 0.0, 0.103339863e-4, 0.169327969e-4,
    0.150000000e3, -0.749957670e2, -0.268938672e-5, 0.444896105, 0.463434311e-2,
    -0.178591076e-5, -0.268938672e-5,
    0.0, -1.344541576008661e-3, -5.062194923138079e3, -6.833142732779555e-5,
    1.449382650173157e-8, -4.268463211410861, 2.098334687947376e-1,
    -6.397251492537153e-08, 3.824589508329281e2, -4.376060460948886e-09,
])
Q0 = Y0_TESTSET[3:7].copy()  # elastic coordinates at t = 0 [m]
QD0 = Y0_TESTSET[10:14].copy()  # their rates at t = 0 [m/s]
PHI1_0, PHI2_0, X3_0 = Y0_TESTSET[0:3]
PHI1D_0, PHI2D_0, X3D_0 = Y0_TESTSET[7:10]

# --- published reference solution at t = 0.1 (crank.f ``solut`` / deTestSet
# ``cranksoln``: MEBDFI with atol = rtol = 1e-14, h0 = 1e-12) -------------------------
T_REFERENCE = 0.1
REFERENCE_T01 = np.array([
    0.1500000000000104e+02, -0.3311734988256260e+00, 0.1697373328427860e+00,
    0.1893192899613509e-03, 0.2375751249879174e-04, -0.5323896770569702e-05,
    -0.8363313279112129e-05, 0.1500000000000000e+03, 0.6025346755138369e+02,
    -0.8753116326670527e+01, -0.3005541400289738e-01, -0.5500431812571696e-02,
    0.4974111734266989e-03, 0.1105560003626645e-02, 0.0,
    0.6488737541276957e+04, 0.2167938629509884e+04, 0.3391137060286523e+02,
    0.1715134772216488e+00, -0.1422449408912512e+01, 0.1003946428124810e+01,
    -0.6232935833287916e+02, -0.1637920993367306e+03, 0.2529857947066878e+02,
])

N_Q = 4  # elastic coordinates: 2 lateral sine modes, 2 axial nodal values


# --- shape functions -------------------------------------------------------------
def lateral_shapes(xi, pi=math.pi):
    """Lateral modes (sin(pi xi), sin(2 pi xi)) at xi = x / L2; shape (2, len(xi))."""
    xi = np.asarray(xi, dtype=float)
    return np.array([np.sin(pi * xi), np.sin(2.0 * pi * xi)])


def lateral_shapes_dd(xi, pi=math.pi):
    """Second xi-derivatives of the lateral modes."""
    xi = np.asarray(xi, dtype=float)
    return np.array([-pi**2 * np.sin(pi * xi), -4.0 * pi**2 * np.sin(2.0 * pi * xi)])


def axial_shapes(xi):
    """Quadratic axial shapes (4 xi (1 - xi), xi (2 xi - 1)): u(1/2) = q3, u(1) = q4."""
    xi = np.asarray(xi, dtype=float)
    return np.array([4.0 * xi * (1.0 - xi), xi * (2.0 * xi - 1.0)])


def axial_shapes_d(xi):
    """First xi-derivatives of the axial shapes."""
    xi = np.asarray(xi, dtype=float)
    return np.array([4.0 - 8.0 * xi, 4.0 * xi - 1.0])


def midspan_deflection(q):
    """Transverse deflection v(L2/2) of the rod in its frame [m]; equals q1."""
    q = np.asarray(q, dtype=float)
    return lateral_shapes(0.5) @ q[0:2]


# --- rod invariants ----------------------------------------------------------------
def _quadrature_invariants(E, n_gauss=24):
    """Rod invariants by Gauss-Legendre quadrature of the shape functions."""
    x, w = np.polynomial.legendre.leggauss(n_gauss)
    xi = 0.5 * (x + 1.0)
    w = 0.5 * w
    N = np.zeros((N_Q, xi.size))
    N[0:2] = lateral_shapes(xi)
    N[2:4] = axial_shapes(xi)
    lat, ax = N[0:2], N[2:4]
    mq = np.zeros((N_Q, N_Q))
    mq[0:2, 0:2] = (lat * w) @ lat.T
    mq[2:4, 2:4] = (ax * w) @ ax.T
    mq *= RHO * AREA * L2
    kq = np.zeros((N_Q, N_Q))
    latdd = lateral_shapes_dd(xi)
    axd = axial_shapes_d(xi)
    kq[0:2, 0:2] = E * INERTIA / L2**3 * ((latdd * w) @ latdd.T)
    kq[2:4, 2:4] = E * AREA / L2 * ((axd * w) @ axd.T)
    c1 = np.zeros(N_Q)
    c2 = np.zeros(N_Q)
    c12 = np.zeros(N_Q)
    c21 = np.zeros(N_Q)
    c1[2:4] = AREA * L2 * (ax @ w)
    c2[0:2] = AREA * L2 * (lat @ w)
    c12[2:4] = AREA * L2**2 * (ax @ (w * xi))
    c21[0:2] = AREA * L2**2 * (lat @ (w * xi))
    bq = np.zeros((N_Q, N_Q))
    cross = AREA * L2 * ((ax * w) @ lat.T)  # [j axial, i lateral] = A int N_j w_i dx
    bq[2:4, 0:2] = cross
    bq[0:2, 2:4] = -cross.T
    return dict(mq=mq, kq=kq, bq=bq, c1=c1, c2=c2, c12=c12, c21=c21)


def _testset_invariants(E, pi=None):
    """Rod invariants as published in crank.f (closed forms, pi = 3.1415927)."""
    pi = PI_TESTSET if pi is None else pi
    fm, fk, fb = RHO * AREA * L2, E * AREA / L2, AREA * L2
    mq = fm * np.array([[0.5, 0, 0, 0], [0, 0.5, 0, 0],
                        [0, 0, 8.0, 1.0], [0, 0, 1.0, 2.0]])
    kq = np.zeros((N_Q, N_Q))
    kq[0, 0] = fk * pi**4 / 24.0 * (HH / L2) ** 2
    kq[1, 1] = fk * pi**4 * 2.0 / 3.0 * (HH / L2) ** 2
    kq[2:4, 2:4] = fk * np.array([[16.0, -8.0], [-8.0, 7.0]]) / 3.0
    cross = fb * np.array([[16.0 / pi**3, 0.0], [1.0 / pi - 8.0 / pi**3, -0.5 / pi]])
    bq = np.zeros((N_Q, N_Q))
    bq[2:4, 0:2] = cross
    bq[0:2, 2:4] = -cross.T
    c1 = fb * np.array([0, 0, 2.0 / 3.0, 1.0 / 6.0])
    c2 = fb * np.array([2.0 / pi, 0, 0, 0])
    c12 = L2 * fb * np.array([0, 0, 1.0 / 3.0, 1.0 / 6.0])
    c21 = L2 * fb * np.array([1.0 / pi, -0.5 / pi, 0, 0])
    return dict(mq=mq, kq=kq, bq=bq, c1=c1, c2=c2, c12=c12, c21=c21)


def rod_model(variant="testset", E=EE):
    """Rod invariants and constants of one variant ("testset" or "consistent")."""
    if variant == "testset":
        model = _testset_invariants(E)
    elif variant == "consistent":
        model = _quadrature_invariants(E)
    else:
        raise ValueError(f"variant: expected 'testset' or 'consistent', got {variant!r}")
    model["variant"] = variant
    model["E"] = E
    # rho-scaled copies used by the fast right-hand side
    model["rc1"], model["rc2"] = RHO * model["c1"], RHO * model["c2"]
    model["rc12"], model["rc21"] = RHO * model["c12"], RHO * model["c21"]
    model["rbq"], model["bqT"] = RHO * model["bq"], RHO * model["bq"].T
    # the same as nested tuples of floats for the fast right-hand side
    for key in ("mq", "kq", "rbq", "bqT", "rc1", "rc2", "rc12", "rc21"):
        value = model[key]
        model["t_" + key] = tuple(map(tuple, value)) if value.ndim == 2 else tuple(value)
    model["t_inv3"] = tuple(map(tuple, np.linalg.inv(model["mq"][0:3, 0:3])))
    return model


# --- kinematics, mass matrix and forces in the 7 coordinates p ----------------------
def mass_matrix(p, model):
    """Mass matrix M(p), shape (7, 7) (works for complex p: complex-step checks)."""
    phi1, phi2, q = p[0], p[1], p[3:7]
    c, s = np.cos(phi1 - phi2), np.sin(phi1 - phi2)
    rc1, rc2 = RHO * model["c1"], RHO * model["c2"]
    dtype = np.result_type(p, float)
    m = np.zeros((7, 7), dtype=dtype)
    m[0, 0] = J1 + M2 * L1**2
    m[0, 1] = L1 * ((0.5 * M2 * L2 + rc1 @ q) * c + (rc2 @ q) * s)
    m[1, 1] = J2 + q @ model["mq"] @ q + 2.0 * RHO * (model["c12"] @ q)
    m[2, 2] = M3
    m[0, 3:7] = L1 * (c * rc2 - s * rc1)
    m[1, 3:7] = RHO * model["c21"] + RHO * (model["bq"].T @ q)
    m[3:7, 3:7] = model["mq"]
    m[1, 0] = m[0, 1]
    m[3:7, 0] = m[0, 3:7]
    m[3:7, 1] = m[1, 3:7]
    return m


def forces(p, pd, model):
    """Quadratic-velocity plus elastic forces F(p, p') [N, N m], shape (7,)."""
    phi1, phi2, q = p[0], p[1], p[3:7]
    w1, w2, qd = pd[0], pd[1], pd[3:7]
    c, s = math.cos(phi1 - phi2), math.sin(phi1 - phi2)
    rc1, rc2 = RHO * model["c1"], RHO * model["c2"]
    a = 0.5 * M2 * L2 + rc1 @ q  # int rho A (x + u) dx
    b = rc2 @ q  # int rho A v dx
    f = np.zeros(7)
    f[0] = L1 * w2**2 * (b * c - a * s) - 2.0 * L1 * w2 * ((c * rc1 + s * rc2) @ qd)
    f[1] = L1 * w1**2 * (a * s - b * c) - 2.0 * w2 * (qd @ model["mq"] @ q
                                                     + RHO * (model["c12"] @ qd))
    f[3:7] = (w2**2 * (model["mq"] @ q + RHO * model["c12"])
              + L1 * w1**2 * (c * rc1 + s * rc2)
              + 2.0 * w2 * RHO * (model["bq"] @ qd)
              - model["kq"] @ q)
    return f


def constraints(t, p):
    """Position constraints g(t, p) = 0 of crank.f, shape (3,)."""
    ell = L2 + p[6]
    return np.array([L1 * math.sin(p[0]) + ell * math.sin(p[1]),
                     p[2] - L1 * math.cos(p[0]) - ell * math.cos(p[1]),
                     p[0] - OMEGA * t])


def constraint_jacobian(p):
    """G = dg/dp, shape (3, 7)."""
    ell = L2 + p[6]
    g = np.zeros((3, 7))
    g[0, 0], g[0, 1], g[0, 6] = L1 * math.cos(p[0]), ell * math.cos(p[1]), math.sin(p[1])
    g[1, 0], g[1, 1], g[1, 2], g[1, 6] = (L1 * math.sin(p[0]), ell * math.sin(p[1]), 1.0,
                                          -math.cos(p[1]))
    g[2, 0] = 1.0
    return g


def acceleration_constraints(p, pd, pdd):
    """Second time derivative of g along the motion, shape (3,)."""
    ell, elld = L2 + p[6], pd[6]
    s1, c1, s2, c2 = math.sin(p[0]), math.cos(p[0]), math.sin(p[1]), math.cos(p[1])
    w1, w2 = pd[0], pd[1]
    quad = np.array([-L1 * s1 * w1**2 - ell * s2 * w2**2 + 2.0 * w2 * c2 * elld,
                     L1 * c1 * w1**2 + ell * c2 * w2**2 + 2.0 * w2 * s2 * elld,
                     0.0])
    return constraint_jacobian(p) @ pdd + quad


def kinetic_energy(p, pd, model):
    """T = 1/2 p'^T M p' [J]."""
    return 0.5 * pd @ mass_matrix(p, model) @ pd


def elastic_energy(q, model):
    """U = 1/2 q^T K q [J]."""
    return 0.5 * q @ model["kq"] @ q


def _coordinates(t, q, qd):
    """p, p', and the maps J (7x4), gamma (7) with p'' = J q'' + gamma."""
    phi1, w1 = OMEGA * t, OMEGA
    ell, elld = L2 + q[3], qd[3]
    s1, c1 = math.sin(phi1), math.cos(phi1)
    s2 = -L1 * s1 / ell
    c2 = math.sqrt(1.0 - s2 * s2)
    phi2 = math.atan2(s2, c2)
    w2 = -(L1 * c1 * w1 + elld * s2) / (ell * c2)
    x3 = L1 * c1 + ell * c2
    x3d = -L1 * s1 * w1 + elld * c2 - ell * s2 * w2
    p = np.concatenate(([phi1, phi2, x3], q))
    pd = np.concatenate(([w1, w2, x3d], qd))
    jac = np.zeros((7, 4))
    jac[3:7, :] = np.eye(4)
    jac[1, 3] = -s2 / (ell * c2)
    jac[2, 3] = 1.0 / c2
    g2 = (L1 * s1 * w1**2 - 2.0 * elld * c2 * w2 + ell * s2 * w2**2) / (ell * c2)
    g3 = -L1 * c1 * w1**2 - 2.0 * elld * s2 * w2 - ell * c2 * w2**2 - ell * s2 * g2
    gamma = np.array([0.0, g2, g3, 0.0, 0.0, 0.0, 0.0])
    return p, pd, jac, gamma


def _multipliers(p, residual):
    """lambda from G^T lambda = residual (= F - M p''), closed form; shape (3,)."""
    ell = L2 + p[6]
    s1, c1, s2, c2 = math.sin(p[0]), math.cos(p[0]), math.sin(p[1]), math.cos(p[1])
    lam2 = residual[2]
    lam1 = (residual[1] - ell * s2 * lam2) / (ell * c2)
    lam3 = residual[0] - L1 * c1 * lam1 - L1 * s1 * lam2
    return np.array([lam1, lam2, lam3])


def accelerations(t, q, qd, model):
    """p, p', p'', lambda at (t, q, q') from the reduced equations."""
    p, pd, jac, gamma = _coordinates(t, q, qd)
    m = mass_matrix(p, model)
    f = forces(p, pd, model)
    qdd = np.linalg.solve(jac.T @ m @ jac, jac.T @ (f - m @ gamma))
    pdd = jac @ qdd + gamma
    lam = _multipliers(p, f - m @ pdd)
    return p, pd, pdd, lam


def full_state(t, q, qd, model):
    """The test set's 24-vector y = (p, p', p'', lambda) at (t, q, q')."""
    p, pd, pdd, lam = accelerations(t, q, qd, model)
    return np.concatenate((p, pd, pdd, lam))


def _rhs(t, y, model):
    """Reduced ODE: y = (q, q', W) -> (q', q'', -lambda3 OMEGA).

    The same equations as ``accelerations`` (checked against it in the tests), unrolled
    with Python floats for speed (numpy's per-call overhead dominates 4-vectors): with
    p'' = J q'' + gamma, J = [d(phi2, x3)/dq; I4] has its only rigid entries in the
    column of q4 (j2 = dphi2/dq4, j3 = dx3/dq4), and x3 couples to nothing but itself in
    M. So J^T M J differs from Mq in row and column 4 only, and is solved by a Schur
    complement on the constant block Mq[0:3, 0:3] (inverse precomputed).
    """
    q0, q1, q2, q3, v0, v1, v2, v3, _ = y.tolist()
    phi1, w1 = OMEGA * t, OMEGA
    ell = L2 + q3
    s1, co1 = math.sin(phi1), math.cos(phi1)
    s2 = -L1 * s1 / ell
    co2 = math.sqrt(1.0 - s2 * s2)
    w2 = -(L1 * co1 * w1 + v3 * s2) / (ell * co2)
    j2, j3 = -s2 / (ell * co2), 1.0 / co2
    g2 = (L1 * s1 * w1 * w1 - 2.0 * v3 * co2 * w2 + ell * s2 * w2 * w2) / (ell * co2)
    g3 = -L1 * co1 * w1 * w1 - 2.0 * v3 * s2 * w2 - ell * co2 * w2 * w2 - ell * s2 * g2
    c = co1 * co2 + s1 * s2  # cos(phi1 - phi2)
    s = s1 * co2 - co1 * s2  # sin(phi1 - phi2)
    (a0, a1, a2, a3), (b0, b1, b2, b3) = model["t_rc1"], model["t_rc2"]
    (e0, e1, e2, e3), (h0, h1, h2, h3) = model["t_rc12"], model["t_rc21"]
    mq, kq, bq = model["t_mq"], model["t_kq"], model["t_rbq"]
    mqq = [r[0] * q0 + r[1] * q1 + r[2] * q2 + r[3] * q3 for r in mq]
    kqq = [r[0] * q0 + r[1] * q1 + r[2] * q2 + r[3] * q3 for r in kq]
    bqd = [r[0] * v0 + r[1] * v1 + r[2] * v2 + r[3] * v3 for r in bq]
    # M2q = rho c21 + rho Bq^T q
    m2q = [h0 + bq[0][0] * q0 + bq[1][0] * q1 + bq[2][0] * q2 + bq[3][0] * q3,
           h1 + bq[0][1] * q0 + bq[1][1] * q1 + bq[2][1] * q2 + bq[3][1] * q3,
           h2 + bq[0][2] * q0 + bq[1][2] * q1 + bq[2][2] * q2 + bq[3][2] * q3,
           h3 + bq[0][3] * q0 + bq[1][3] * q1 + bq[2][3] * q2 + bq[3][3] * q3]
    a = 0.5 * M2 * L2 + a0 * q0 + a1 * q1 + a2 * q2 + a3 * q3
    b = b0 * q0 + b1 * q1 + b2 * q2 + b3 * q3
    m12 = L1 * (a * c + b * s)
    m22 = (J2 + q0 * mqq[0] + q1 * mqq[1] + q2 * mqq[2] + q3 * mqq[3]
           + 2.0 * (e0 * q0 + e1 * q1 + e2 * q2 + e3 * q3))
    crc = (c * a0 + s * b0, c * a1 + s * b1, c * a2 + s * b2, c * a3 + s * b3)
    m1q = (L1 * (c * b0 - s * a0), L1 * (c * b1 - s * a1), L1 * (c * b2 - s * a2),
           L1 * (c * b3 - s * a3))
    f1 = (L1 * w2 * w2 * (b * c - a * s)
          - 2.0 * L1 * w2 * (crc[0] * v0 + crc[1] * v1 + crc[2] * v2 + crc[3] * v3))
    f2 = (L1 * w1 * w1 * (a * s - b * c)
          - 2.0 * w2 * (v0 * mqq[0] + v1 * mqq[1] + v2 * mqq[2] + v3 * mqq[3]
                        + e0 * v0 + e1 * v1 + e2 * v2 + e3 * v3))
    # residual r = F - M gamma (gamma only in phi2, x3; M[x3, :] = M3 e_x3), then J^T r
    ww2, ww1 = w2 * w2, L1 * w1 * w1
    fr = [ww2 * (mqq[0] + e0) + ww1 * crc[0] + 2.0 * w2 * bqd[0] - kqq[0] - m2q[0] * g2,
          ww2 * (mqq[1] + e1) + ww1 * crc[1] + 2.0 * w2 * bqd[1] - kqq[1] - m2q[1] * g2,
          ww2 * (mqq[2] + e2) + ww1 * crc[2] + 2.0 * w2 * bqd[2] - kqq[2] - m2q[2] * g2,
          ww2 * (mqq[3] + e3) + ww1 * crc[3] + 2.0 * w2 * bqd[3] - kqq[3] - m2q[3] * g2
          + j2 * (f2 - m22 * g2) - j3 * M3 * g3]
    # (J^T M J) q'' = J^T r; the 3x3 block is Mq[0:3, 0:3]; column 4 is u, corner d
    u0, u1, u2 = mq[0][3] + j2 * m2q[0], mq[1][3] + j2 * m2q[1], mq[2][3] + j2 * m2q[2]
    d = mq[3][3] + 2.0 * j2 * m2q[3] + j2 * j2 * m22 + j3 * j3 * M3
    iu = [r[0] * u0 + r[1] * u1 + r[2] * u2 for r in model["t_inv3"]]
    ifr = [r[0] * fr[0] + r[1] * fr[1] + r[2] * fr[2] for r in model["t_inv3"]]
    qdd3 = (fr[3] - (u0 * ifr[0] + u1 * ifr[1] + u2 * ifr[2])) / (
        d - (u0 * iu[0] + u1 * iu[1] + u2 * iu[2]))
    qdd0, qdd1, qdd2 = ifr[0] - iu[0] * qdd3, ifr[1] - iu[1] * qdd3, ifr[2] - iu[2] * qdd3
    # lambda3 from G^T lambda = F - M p'' (rows phi1, phi2, x3)
    phi2dd = j2 * qdd3 + g2
    res1 = f1 - m12 * phi2dd - (m1q[0] * qdd0 + m1q[1] * qdd1 + m1q[2] * qdd2
                                + m1q[3] * qdd3)
    res2 = f2 - m22 * phi2dd - (m2q[0] * qdd0 + m2q[1] * qdd1 + m2q[2] * qdd2
                                + m2q[3] * qdd3)
    lam2 = -M3 * (j3 * qdd3 + g3)
    lam1 = (res2 - ell * s2 * lam2) / (ell * co2)
    lam3 = res1 - L1 * co1 * lam1 - L1 * s1 * lam2
    return [v0, v1, v2, v3, qdd0, qdd1, qdd2, qdd3, -lam3 * w1]


def simulate(t_end=0.1, t_eval=None, *, variant="testset", E=EE, q0=None, qd0=None,
             rtol=1e-12, atol=None, method="DOP853", max_step=np.inf):
    """Integrate the slider crank from the test set's consistent initial values.

    Parameters
    ----------
    t_end : float
        Final time [s]; > 0.
    t_eval : array_like, optional
        Output times [s] in [0, t_end]; default 201 equally spaced points.
    variant : {"testset", "consistent"}
        Rod matrices as published in crank.f, or from quadrature (see module doc).
    E : float
        Young's modulus [Pa] (the rigid limit takes E large, with method="Radau").
    q0, qd0 : array_like, shape (4,), optional
        Elastic coordinates [m] and rates [m/s] at t = 0; default Q0, QD0.
    rtol, atol : float
        Solver tolerances; atol defaults to rtol times the scale of each state.
    method : str
        scipy ``solve_ivp`` method.
    max_step : float
        Largest step [s] (solve_ivp's max_step).

    Returns
    -------
    dict with
        t (n,) [s]; x3 (n,) slider position [m]; midspan_deflection (n,) = v(L2/2) [m];
        q (4, n) [m]; qd (4, n) [m/s]; phi1, phi2 (n,) [rad]; phi1d, phi2d [rad/s];
        x3d [m/s]; y (24, n) the test set's state vectors; torque (n,) driving torque
        on the crank = -lambda3 [N m]; work (n,) its work since t = 0 [J];
        kinetic_energy, elastic_energy (n,) [J]; nfev; model.
    """
    if not t_end > 0:
        raise ValueError(f"t_end: expected > 0, got {t_end}")
    model = rod_model(variant, E)
    q0 = Q0 if q0 is None else np.asarray(q0, dtype=float)
    qd0 = QD0 if qd0 is None else np.asarray(qd0, dtype=float)
    if t_eval is None:
        t_eval = np.linspace(0.0, t_end, 201)
    t_eval = np.asarray(t_eval, dtype=float)
    y0 = np.concatenate((q0, qd0, [0.0]))
    if atol is None:
        # scales: q ~ 1e-4 (lateral) / 1e-5 (axial) m, q' ~ 1 / 1e-2 m/s, W ~ 10 J
        scale = np.array([1e-4, 1e-5, 1e-5, 1e-5, 1.0, 1e-2, 1e-2, 1e-2, 10.0])
        atol = rtol * scale
    sol = solve_ivp(_rhs, (0.0, t_end), y0, method=method, t_eval=t_eval, rtol=rtol,
                    atol=atol, max_step=max_step, args=(model,))
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    ys = np.array([full_state(t, y[0:4], y[4:8], model)
                   for t, y in zip(sol.t, sol.y.T)]).T
    kin = np.array([kinetic_energy(p, pd, model) for p, pd in zip(ys[0:7].T, ys[7:14].T)])
    ela = np.array([elastic_energy(q, model) for q in ys[3:7].T])
    return dict(
        t=sol.t, x3=ys[2], midspan_deflection=midspan_deflection(ys[3:5]), q=ys[3:7],
        qd=ys[10:14], phi1=ys[0], phi2=ys[1], phi1d=ys[7], phi2d=ys[8], x3d=ys[9], y=ys,
        torque=-ys[23], work=sol.y[8], kinetic_energy=kin, elastic_energy=ela,
        nfev=sol.nfev, model=model,
    )


def rigid_slider_position(phi1):
    """Rigid slider crank: x3 = L1 cos(phi1) + sqrt(L2^2 - L1^2 sin^2(phi1)) [m]."""
    return L1 * np.cos(phi1) + np.sqrt(L2**2 - (L1 * np.sin(phi1)) ** 2)


if __name__ == "__main__":
    import time

    start = time.perf_counter()
    out = simulate(t_eval=[0.0, 0.1])
    print(f"{time.perf_counter() - start:.2f} s, nfev = {out['nfev']}")
    for k, (mine, ref) in enumerate(zip(out["y"][:, -1], REFERENCE_T01)):
        print(f"y[{k + 1:2d}] {mine: .15e} {ref: .15e} {mine - ref: .2e}")
