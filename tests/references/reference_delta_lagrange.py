"""Independent reference derivation of the rigid Delta robot dynamics (test oracle).

This module is a *second, independent* derivation of the rigid-body dynamics of a
Delta robot, meant to check the ``elastodyn`` library against.  It deliberately does
NOT import anything from ``elastodyn``.  Only numpy and sympy are used.

Method
------
Euler-Lagrange equations written directly in the task-space coordinates
``X = (x, y, z)`` (position of the platform centre).  The loop-closure constraints are
eliminated through the explicit closed-form inverse kinematics ``q_i = q_i(X)``.  All
derivatives are exact (sympy), never finite differences:

* The Lagrangian ``L(X, Xd) = T(X, Xd) - V(X)`` is written symbolically with the
  actuated angles as *undefined functions* ``q_i(x, y, z)``, so that
  ``qd_i = sum_j dq_i/dx_j * xd_j`` (chain rule).
* ``M = d^2 T / dXd^2``,
  ``h_j = sum_l d^2 T/(dxd_j dx_l) xd_l - dT/dx_j``  (so ``d/dt dT/dXd - dT/dX = M Xdd + h``),
  ``G = dV/dX``.
  These contain ``q_i``, ``dq_i/dX`` and ``d^2 q_i/dX^2``; those are replaced by
  placeholder symbols whose values are computed from the closed-form inverse
  kinematics below, itself differentiated twice symbolically.
* Everything (including all geometric and mass parameters, and the leg angles) is a
  sympy symbol, so the expressions are lambdified once (lazily, on first call) and
  reused for every parameter set.

Conventions (all SI units)
--------------------------
* World frame: origin O at the centre of the fixed base, Z axis pointing DOWN
  (the end effector hangs at positive z).  Gravity is the vector ``params["g"]``
  (e.g. ``(0, 0, 9.81)``: gravity along +Z).  Potential energy
  ``V = -sum_k m_k g . p_k`` over all point masses (and the upper link's centre of mass).
* Legs i = 0, 1, 2 at angles ``theta_i = params["theta"][i]``;
  ``e_i = (cos theta_i, sin theta_i, 0)``, ``ez = (0, 0, 1)``.
* Actuated joint ``A_i = r_A e_i``; motor axis horizontal, perpendicular to ``e_i``.
* Elbow ``B_i = A_i + L1 (cos q_i e_i - sin q_i ez)`` (q_i > 0 lifts the elbow, to -Z).
* Platform joint ``D_i = X + r_B e_i``; lower link ``|D_i - B_i| = L2``.
* Inverse kinematics ("elbows out"): ``P' = X - (r_A - r_B) e_i = D_i - A_i``,
  ``rho_P = P'.e_i``, ``zeta_P = P'.ez``.  The constraint
  ``|P' - L1 (cos q e_i - sin q ez)|^2 = L2^2`` reads ``l cos q + m sin q = n`` with
  ``l = 2 L1 rho_P``, ``m = -2 L1 zeta_P``, ``n = |P'|^2 + L1^2 - L2^2``.  Writing
  ``rho_P = R cos(phi)``, ``zeta_P = -R sin(phi)`` (``phi = atan2(-zeta_P, rho_P)``),
  it becomes ``cos(q - phi) = n / (2 L1 R)``, with the two solutions
  ``q = phi +/- acos(n / (2 L1 R))``.  The elbow-out criterion
  ``rho_B zeta_P - zeta_B rho_P = L1 R sin(q - phi) > 0`` selects the ``+`` sign:
  ``q_i = atan2(-zeta_P, rho_P) + acos(n / (2 L1 R))``.
* Mass model (params keys; identical for the three legs):
    - ``m_P``: platform point mass at X;
    - ``I_mo``: motor rotor inertia, kinetic energy ``1/2 I_mo qd_i^2``;
    - ``m_L``, ``r_L``, ``I_L``: upper link mass, its centre of mass at
      ``A_i + r_L L1 (cos q_i e_i - sin q_i ez)``, and its inertia about the centre of
      mass about an axis parallel to the motor axis; kinetic energy
      ``1/2 m_L |d/dt p_COM|^2 + 1/2 I_L qd_i^2`` (= ``1/2 (I_L + m_L (r_L L1)^2) qd_i^2``);
    - lower link lumped in point masses ``m_C`` at ``B_i``, ``m_A`` at ``D_i`` and
      ``m_K`` at ``B_i + r_K (D_i - B_i)``.

Equations of motion: ``M(X) Xdd + h(X, Xd) + G(X) = Q_X`` with ``Q_X`` the generalized
force conjugate to X; the actuator torques tau follow from ``J^T tau = Q_X``
(virtual work, ``J = dq/dX``).

API
---
``reference_dynamics(params, X, Xd) -> (M, h, G, J)``
``reference_positions(params, X) -> dict(q, B, D, A, K, C_L)``
``reference_energy(params, X, Xd) -> (T, V)``
``example_params()`` -> a representative parameter dict.

Run ``python tests/references/reference_delta_lagrange.py`` for the self-checks.
"""

from __future__ import annotations

import math
import time

import numpy as np
import sympy as sp

__all__ = [
    "example_params",
    "reference_dynamics",
    "reference_energy",
    "reference_ik",
    "reference_positions",
]

# Order of the scalar parameters passed to the lambdified functions.
_PARAM_NAMES = (
    "L1",
    "L2",
    "r_A",
    "r_B",
    "m_P",
    "I_mo",
    "m_L",
    "r_L",
    "I_L",
    "m_C",
    "m_A",
    "m_K",
    "r_K",
)


def example_params() -> dict:
    """A representative parameter set (the IK check geometry plus some masses)."""
    return {
        "L1": 0.5,
        "L2": 0.6,
        "r_A": 0.1,
        "r_B": 0.05,
        "theta": np.deg2rad([0.0, 120.0, 240.0]),
        "g": np.array([0.0, 0.0, 9.81]),
        "m_P": 0.8,
        "I_mo": 2.0e-3,
        "m_L": 0.6,
        "r_L": 0.45,
        "I_L": 0.012,
        "m_C": 0.1,
        "m_A": 0.12,
        "m_K": 0.15,
        "r_K": 0.4,
    }


# ----------------------------------------------------------------------------------
# Symbolic derivation (done once, lazily)
# ----------------------------------------------------------------------------------
_CACHE: dict = {}


def _ik_leg_symbolic(x, y, z, th, L1, L2, rA, rB):
    """Closed-form elbow-out inverse kinematics of one leg (sympy expression)."""
    c, s = sp.cos(th), sp.sin(th)
    rho = x * c + y * s - (rA - rB)  # P'.e_i
    sig = -x * s + y * c  # P'.(ez x e_i)  (out of the leg plane)
    zeta = z  # P'.ez
    R2 = rho**2 + zeta**2
    n = rho**2 + sig**2 + zeta**2 + L1**2 - L2**2
    return sp.atan2(-zeta, rho) + sp.acos(n / (2 * L1 * sp.sqrt(R2)))


def _build():
    if _CACHE:
        return _CACHE
    t0 = time.perf_counter()
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("xd yd zd", real=True)
    Xs = sp.Matrix([x, y, z])
    Xds = sp.Matrix([xd, yd, zd])
    prm = sp.symbols(" ".join(_PARAM_NAMES), real=True)
    L1, L2, rA, rB, mP, Imo, mL, rL, IL, mC, mA, mK, rK = prm
    th = sp.symbols("theta0:3", real=True)
    gv = sp.Matrix(sp.symbols("g0:3", real=True))
    ez = sp.Matrix([0, 0, 1])

    # ---- inverse kinematics of one leg, with its exact gradient and Hessian ----
    thl = sp.Symbol("theta", real=True)
    qexpr = _ik_leg_symbolic(x, y, z, thl, L1, L2, rA, rB)
    grad = [sp.diff(qexpr, v) for v in (x, y, z)]
    hess = [[sp.diff(grad[a], v) for v in (x, y, z)] for a in range(3)]
    ik_args = [x, y, z, thl, L1, L2, rA, rB]
    # flat output lists: lambdify's common-subexpression elimination needs them
    f_ik = sp.lambdify(
        ik_args,
        [qexpr, *grad, *(h for row in hess for h in row)],
        modules="math",
        cse=True,
    )

    # ---- Lagrangian with q_i as undefined functions of X ----
    qf = [sp.Function(f"q{i}", real=True)(x, y, z) for i in range(3)]

    def tdiff(expr):
        """Total time derivative of an expression depending on X only."""
        return sum(
            (sp.diff(expr, v) * vd for v, vd in zip((x, y, z), (xd, yd, zd))), sp.S.Zero
        )

    T = sp.Rational(1, 2) * mP * Xds.dot(Xds)
    V = -mP * gv.dot(Xs)
    for i in range(3):
        e = sp.Matrix([sp.cos(th[i]), sp.sin(th[i]), 0])
        A = rA * e
        u = sp.cos(qf[i]) * e - sp.sin(qf[i]) * ez
        B = A + L1 * u
        D = Xs + rB * e
        K = B + rK * (D - B)
        CL = A + rL * L1 * u
        qd = tdiff(qf[i])
        Bd = B.applyfunc(tdiff)
        Kd = K.applyfunc(tdiff)
        CLd = CL.applyfunc(tdiff)
        Dd = D.applyfunc(tdiff)
        T += sp.Rational(1, 2) * (Imo + IL) * qd**2
        T += sp.Rational(1, 2) * mL * CLd.dot(CLd)
        T += sp.Rational(1, 2) * (mC * Bd.dot(Bd) + mA * Dd.dot(Dd) + mK * Kd.dot(Kd))
        V += -gv.dot(mL * CL + mC * B + mA * D + mK * K)

    # Euler-Lagrange: d/dt dT/dXd - dT/dX + dV/dX = Q_X
    dT_dXd = [sp.diff(T, v) for v in (xd, yd, zd)]
    Mexp = [[sp.diff(dT_dXd[j], v) for v in (xd, yd, zd)] for j in range(3)]
    hexp = [tdiff(dT_dXd[j]) - sp.diff(T, v) for j, v in enumerate((x, y, z))]
    Gexp = [sp.diff(V, v) for v in (x, y, z)]

    # ---- replace q_i, dq_i/dX, d2q_i/dX2 by placeholder symbols ----
    Qs = sp.symbols("Q0:3", real=True)
    Js = [[sp.Symbol(f"J{i}{a}", real=True) for a in range(3)] for i in range(3)]
    Hs = [
        [[sp.Symbol(f"H{i}{a}{b}", real=True) for b in range(3)] for a in range(3)]
        for i in range(3)
    ]
    vars_ = (x, y, z)
    rep = {}
    for i in range(3):
        for a in range(3):
            rep[sp.Derivative(qf[i], vars_[a])] = Js[i][a]
            for b in range(3):
                rep[sp.Derivative(qf[i], vars_[a], vars_[b])] = Hs[i][a][b]

    def clean(expr):
        expr = sp.sympify(expr)
        # canonicalise every Derivative atom first (order of differentiation)
        dmap = {}
        for d in expr.atoms(sp.Derivative):
            key = sp.Derivative(
                d.expr,
                *sorted(
                    [v for v, c in d.variable_count for _ in range(int(c))],
                    key=lambda s: vars_.index(s),
                ),
            )
            dmap[d] = (
                rep[key] if key in rep else rep[sp.Derivative(d.expr, *d.variables)]
            )
        expr = expr.xreplace(dmap)
        expr = expr.xreplace({qf[i]: Qs[i] for i in range(3)})
        assert not expr.atoms(sp.Derivative) and not expr.atoms(
            sp.core.function.AppliedUndef
        )
        return expr

    Mexp = [[clean(Mexp[j][k]) for k in range(3)] for j in range(3)]
    hexp = [clean(e) for e in hexp]
    Gexp = [clean(e) for e in Gexp]
    Texp = clean(T)
    Vexp = clean(V)

    Jflat = [s for row in Js for s in row]
    Hflat = [s for m in Hs for row in m for s in row]
    args = [x, y, z, xd, yd, zd, *Qs, *Jflat, *Hflat, *th, *gv, *prm]
    # flat output lists (9 + 3 + 3 and 2 entries), scalar "math" backend, with cse
    f_dyn = sp.lambdify(
        args,
        [*(m for row in Mexp for m in row), *hexp, *Gexp],
        modules="math",
        cse=True,
    )
    f_en = sp.lambdify(args, [Texp, Vexp], modules="math", cse=True)
    _CACHE.update(
        f_ik=f_ik, f_dyn=f_dyn, f_en=f_en, build_time=time.perf_counter() - t0
    )
    return _CACHE


# ----------------------------------------------------------------------------------
# Numerical API
# ----------------------------------------------------------------------------------
def _unpack(params):
    theta = [float(v) for v in np.asarray(params["theta"], dtype=float).reshape(3)]
    g = [float(v) for v in np.asarray(params["g"], dtype=float).reshape(3)]
    p = [float(params[k]) for k in _PARAM_NAMES]
    return theta, g, p


def reference_ik(params, X):
    """Closed-form elbow-out IK with exact derivatives.

    Returns ``(q (3,), J (3,3) = dq/dX, H (3,3,3) = d2q/dX2 with H[i] the Hessian of q_i)``.
    Raises ValueError if X is out of reach of some leg.
    """
    c = _build()
    theta, _, p = _unpack(params)
    L1, L2, rA, rB = p[:4]
    X = [float(v) for v in np.asarray(X, dtype=float).reshape(3)]
    q = np.empty(3)
    J = np.empty((3, 3))
    H = np.empty((3, 3, 3))
    for i in range(3):
        c_, s_ = math.cos(theta[i]), math.sin(theta[i])
        rho = X[0] * c_ + X[1] * s_ - (rA - rB)
        sig = -X[0] * s_ + X[1] * c_
        zeta = X[2]
        n = rho**2 + sig**2 + zeta**2 + L1**2 - L2**2
        ratio = n / (2 * L1 * math.hypot(rho, zeta))
        if not abs(ratio) <= 1.0:
            raise ValueError(f"X={X} out of reach of leg {i} (cos = {ratio:.6g})")
        out = c["f_ik"](X[0], X[1], X[2], theta[i], L1, L2, rA, rB)
        q[i] = out[0]
        J[i] = out[1:4]
        H[i] = np.reshape(out[4:], (3, 3))
    return q, J, H


def _call(fname, params, X, Xd):
    c = _build()
    theta, g, p = _unpack(params)
    X = [float(v) for v in np.asarray(X, dtype=float).reshape(3)]
    Xd = [float(v) for v in np.asarray(Xd, dtype=float).reshape(3)]
    q, J, H = reference_ik(params, X)
    out = c[fname](
        *X, *Xd, *q.tolist(), *J.ravel().tolist(), *H.ravel().tolist(), *theta, *g, *p
    )
    return out, J


def reference_dynamics(params: dict, X, Xd):
    """Return (M, h, G, J) at task position X (3,) [m] and velocity Xd (3,) [m/s].

    M (3,3): mass matrix in X coordinates [kg]; h (3,): velocity-dependent generalized
    force (Coriolis/centrifugal, = C(X,Xd) Xd) [N]; G (3,): gravity generalized force
    [N] (= dV/dX, so G = -m_P g for the bare platform), such that
    ``M Xdd + h + G = Q_X`` with Q_X the generalized force conjugate to X; and
    J (3,3) = dq/dX [rad/m] with q the actuated angles.  Joint torques follow from
    ``J^T tau = Q_X`` (virtual work).  Conventions: see the module docstring.
    """
    out, J = _call("f_dyn", params, X, Xd)
    out = np.array(out, dtype=float)
    M = out[:9].reshape(3, 3)
    h = out[9:12].copy()
    G = out[12:15].copy()
    return M, h, G, J


def reference_energy(params, X, Xd):
    """Return (T, V): kinetic and potential energy [J] at (X, Xd).

    ``V = -sum_k m_k g . p_k`` (zero at the origin for the platform mass).
    """
    (T, V), _ = _call("f_en", params, X, Xd)
    return float(T), float(V)


def reference_positions(params, X) -> dict:
    """Positions at task position X.

    Returns a dict with ``q`` (3,) actuated angles [rad], and (3,3) arrays, one row per
    leg: ``A`` actuated joints, ``B`` elbows, ``D`` platform joints, ``K`` lower-link
    intermediate masses, ``C_L`` upper-link centres of mass.
    Checks numerically the loop closure |D_i - B_i| = L2 and the elbow-out criterion.
    """
    theta, _, p = _unpack(params)
    L1, L2, rA, rB = p[:4]
    rL, rK = params["r_L"], params["r_K"]
    X = np.asarray(X, dtype=float).reshape(3)
    q, _, _ = reference_ik(params, X)
    ez = np.array([0.0, 0.0, 1.0])
    A = np.empty((3, 3))
    B = np.empty((3, 3))
    D = np.empty((3, 3))
    K = np.empty((3, 3))
    CL = np.empty((3, 3))
    for i in range(3):
        e = np.array([np.cos(theta[i]), np.sin(theta[i]), 0.0])
        u = np.cos(q[i]) * e - np.sin(q[i]) * ez
        A[i] = rA * e
        B[i] = A[i] + L1 * u
        D[i] = X + rB * e
        K[i] = B[i] + rK * (D[i] - B[i])
        CL[i] = A[i] + rL * L1 * u
        Pp = D[i] - A[i]
        rho_P, zeta_P = Pp @ e, Pp[2]
        rho_B, zeta_B = L1 * np.cos(q[i]), -L1 * np.sin(q[i])
        closure = np.linalg.norm(D[i] - B[i]) - L2
        assert abs(closure) < 1e-9 * max(1.0, L2), (
            f"leg {i}: loop closure error {closure}"
        )
        assert rho_B * zeta_P - zeta_B * rho_P > 0, f"leg {i}: not the elbow-out branch"
    return {"q": q, "A": A, "B": B, "D": D, "K": K, "C_L": CL}


# ----------------------------------------------------------------------------------
# Self-checks
# ----------------------------------------------------------------------------------
def _path(t):
    """A smooth task-space path X(t) with analytic Xd, Xdd."""
    X0 = np.array([0.02, -0.03, 0.55])
    a = np.array([0.08, 0.06, 0.07])
    w = np.array([2.1, 3.3, 2.7])
    ph = np.array([0.3, 1.1, -0.4])
    X = X0 + a * np.sin(w * t + ph)
    Xd = a * w * np.cos(w * t + ph)
    Xdd = -a * w**2 * np.sin(w * t + ph)
    return X, Xd, Xdd


def _power_check(params, t, dt=1e-4):
    """Compare d/dt (T+V) (4th-order central differences) with Xd.(M Xdd + h + G).

    Returns (dE/dt, power, relative mismatch); the relative mismatch is normalised by
    |Xd|.(|M Xdd| + |h| + |G|) to be meaningful when the power itself is near zero.
    """

    def energy(tt):
        Xt, Xdt, _ = _path(tt)
        return sum(reference_energy(params, Xt, Xdt))

    dE = (
        -energy(t + 2 * dt)
        + 8 * energy(t + dt)
        - 8 * energy(t - dt)
        + energy(t - 2 * dt)
    ) / (12 * dt)
    Xt, Xdt, Xddt = _path(t)
    Mt, ht, Gt, _ = reference_dynamics(params, Xt, Xdt)
    P = Xdt @ (Mt @ Xddt + ht + Gt)
    scale = np.abs(Xdt) @ (np.abs(Mt @ Xddt) + np.abs(ht) + np.abs(Gt))
    return dE, P, abs(dE - P) / scale


def _main():
    np.set_printoptions(precision=6, suppress=False, linewidth=110)
    t0 = time.perf_counter()
    _build()
    t_build = time.perf_counter() - t0
    prm = example_params()
    X = np.array([0.1, 0.0, 0.5])
    Xd = np.array([0.3, -0.2, 0.4])
    t0 = time.perf_counter()
    M, h, G, J = reference_dynamics(prm, X, Xd)
    t_first = time.perf_counter() - t0

    # 1. IK check point
    pos = reference_positions(prm, X)
    print(
        "1) IK at X=(0.1,0,0.5): q [deg] =",
        np.rad2deg(pos["q"]),
        "(expected -10.76, -29.30, -29.30)",
    )
    assert np.allclose(np.rad2deg(pos["q"]), [-10.76, -29.30, -29.30], atol=5e-3)
    # other branch for information: q' = 2 phi - q, must violate elbow-out
    L1, rA, rB = 0.5, 0.1, 0.05
    for i in range(3):
        e = np.array([np.cos(prm["theta"][i]), np.sin(prm["theta"][i]), 0.0])
        Pp = X - (rA - rB) * e
        rho, zeta = Pp @ e, Pp[2]
        phi = np.arctan2(-zeta, rho)
        qo = 2 * phi - pos["q"][i]
        Bo = rA * e + L1 * (np.cos(qo) * e - np.sin(qo) * np.array([0, 0, 1.0]))
        crit_o = L1 * np.cos(qo) * zeta + L1 * np.sin(qo) * rho
        crit = L1 * np.cos(pos["q"][i]) * zeta + L1 * np.sin(pos["q"][i]) * rho
        print(
            f"   leg {i}: chosen crit={crit:+.4f}; other solution q={np.rad2deg(qo):8.3f} deg,"
            f" |D-B|={np.linalg.norm(X + rB * e - Bo):.6f}, crit={crit_o:+.4f}"
        )

    # IK derivative check vs finite differences (sanity only; the oracle is exact)
    q0, J0, H0 = reference_ik(prm, X)
    eps = 1e-6
    Jfd = np.column_stack(
        [
            (
                reference_ik(prm, X + eps * np.eye(3)[k])[0]
                - reference_ik(prm, X - eps * np.eye(3)[k])[0]
            )
            / (2 * eps)
            for k in range(3)
        ]
    )
    Hfd = np.stack(
        [
            (
                reference_ik(prm, X + eps * np.eye(3)[k])[1]
                - reference_ik(prm, X - eps * np.eye(3)[k])[1]
            )
            / (2 * eps)
            for k in range(3)
        ],
        axis=-1,
    )
    print(
        "   |J - J_fd| =",
        np.abs(J0 - Jfd).max(),
        " |H - H_fd| =",
        np.abs(H0 - Hfd).max(),
    )

    # 2. platform-only model
    p2 = {
        **prm,
        "m_P": 1.7,
        "I_mo": 0.0,
        "m_L": 0.0,
        "I_L": 0.0,
        "m_C": 0.0,
        "m_A": 0.0,
        "m_K": 0.0,
        "g": np.array([0.3, -0.2, 9.81]),
    }
    M2, h2, G2, _ = reference_dynamics(p2, X, Xd)
    err2 = max(
        np.abs(M2 - 1.7 * np.eye(3)).max(),
        np.abs(h2).max(),
        np.abs(G2 + 1.7 * p2["g"]).max(),
    )
    print("2) m_P only: max |M - m_P I|, |h|, |G + m_P g| =", err2)
    assert err2 < 1e-12

    # 2b. M symmetric positive definite; cross-check against sum m J_k^T J_k
    print(
        "   full model at check point: M =\n",
        M,
        "\n   h =",
        h,
        "\n   G =",
        G,
        "\n   J =\n",
        J,
    )
    assert np.allclose(M, M.T, rtol=0, atol=1e-13) and np.all(np.linalg.eigvalsh(M) > 0)
    Ieff = prm["I_mo"] + prm["I_L"] + prm["m_L"] * (prm["r_L"] * prm["L1"]) ** 2
    Mchk = (prm["m_P"] + 3 * prm["m_A"]) * np.eye(3)
    for i in range(3):
        e = np.array([np.cos(prm["theta"][i]), np.sin(prm["theta"][i]), 0.0])
        du = -np.sin(q0[i]) * e - np.cos(q0[i]) * np.array([0, 0, 1.0])
        JB = prm["L1"] * np.outer(du, J0[i])
        JK = (1 - prm["r_K"]) * JB + prm["r_K"] * np.eye(3)
        Mchk += (
            Ieff * np.outer(J0[i], J0[i])
            + prm["m_C"] * JB.T @ JB
            + prm["m_K"] * JK.T @ JK
        )
    print("   |M - sum m_k J_k^T J_k| =", np.abs(M - Mchk).max())
    assert np.abs(M - Mchk).max() < 1e-12 * np.abs(M).max()
    # T = 1/2 Xd^T M Xd
    T, _ = reference_energy(prm, X, Xd)
    print("   |T - 1/2 Xd.M.Xd| =", abs(T - 0.5 * Xd @ M @ Xd))
    # G = dV/dX by finite differences
    Gfd = np.array(
        [
            (
                reference_energy(prm, X + eps * np.eye(3)[k], Xd)[1]
                - reference_energy(prm, X - eps * np.eye(3)[k], Xd)[1]
            )
            / (2 * eps)
            for k in range(3)
        ]
    )
    print("   |G - dV/dX_fd| =", np.abs(G - Gfd).max())

    # 3. energy consistency along a smooth path
    worst = 0.0
    for t in np.linspace(0.0, 2.0, 9):
        dE, P, rel = _power_check(prm, t)
        worst = max(worst, rel)
        print(
            f"3) t={t:5.2f}  dE/dt(FD)={dE:+.10f}  Xd.(M Xdd+h+G)={P:+.10f}  rel={rel:.2e}"
        )
    print("   worst relative power mismatch:", worst)
    assert worst < 1e-7
    # 3b. same check with gravity off (isolates h) and with a tilted gravity vector
    for gg in (np.zeros(3), np.array([1.0, -2.0, 9.0])):
        dE, P, rel = _power_check({**prm, "g": gg}, 0.7)
        print(f"   g={gg}: dE/dt={dE:+.10f}  power={P:+.10f}  rel={rel:.2e}")
        assert rel < 1e-7

    # 4. timing
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        reference_dynamics(prm, X, Xd)
    t_call = (time.perf_counter() - t0) / n
    print(
        f"4) timing: symbolic derivation + lambdify {t_build:.2f} s, first call "
        f"{t_first * 1e3:.2f} ms, subsequent calls {t_call * 1e6:.1f} us/call"
    )


if __name__ == "__main__":
    _main()
