"""Independent Lagrangian reference for the flexible planar five-bar (test oracle).

Flexible PRRRP five-bar of Briot & Khalil (2013), derived here with sympy from the
energies written explicitly from the point positions, followed by a Lagrange /
constraint-projection step.  This module is independent of the library's recursive
Newton-Euler code (nothing from ``elastodyn`` is imported, in particular nothing
under ``elastodyn.formulations``); it only uses numpy, scipy, sympy and functools.

Conventions (SI units)
----------------------
* Planar coordinates (x, z) of the base frame.  Gravity g = 9.81 m/s^2 along +z,
  so a mass m at height z has potential V = -m g z.
* Prismatic actuators along z: carriage 1 at A1 = (0, q1), carriage 2 at
  A2 = (d, q4), d = 0.6 m, each carriage 1 kg (pure translation along z).
  tau1, tau4 are the actuator forces along +z.
* Beam i (i = 1 on A1 with angle q2, i = 2 on A2 with angle q5), length L = 0.4 m:
  xh = (cos q, sin q), yh = (-sin q, cos q); the material point of abscissa
  s in [0, L] is at  A + (s + u(s)) xh + v(s) yh.
* Deflection: n equal planar Euler-Bernoulli elements (le = L/n), nodes k = 0..n at
  s = k le, node 0 clamped.  Node k >= 1 carries (u_k, v_k, theta_k), theta = dv/ds.
  u linear between nodes, v cubic Hermite in (v, theta) of the two element nodes.
  Elastic vector of a beam: e = [u_1, v_1, theta_1, ..., u_n, v_n, theta_n] (3n).
* Beam data: 2 mm x 2 mm full square section, A = 4e-6 m^2, I = (2e-3)^4/12 m^4,
  E = 70e9 Pa, rho = 2800 kg/m^3.  Kinetic energy (1/2) rho A int |r_dot|^2 ds
  (line mass, no rotary inertia); strain energy
  (1/2) EA int u'^2 ds + (1/2) EI int v''^2 ds.
* End-effector: point mass 1 kg at the tip of beam 1,
  P = A1 + (L + u1(L)) xh1 + v1(L) yh1.
* Closure: tip of beam 1 = tip of beam 2 (pin joint at P), phi(qt) = tip1 - tip2 = 0.
* Tree coordinates qt = (q1, q4, q2, q5, e1, e2) (size 4 + 6n); independent
  coordinates q = (q1, q4, e1, e2) (size 2 + 6n); dependent (q2, q5).
* Assembly mode: P on the +z side of the line A1-A2 (beams "hang" towards +z,
  the gravity side); at q1 = q4 = 0 and zero deflection P = (0.3, +0.26458).
  The default Newton guess is the rigid circle-intersection in that mode.

Derivation
----------
1. For each beam, the velocity of the point s is written in the beam frame:
       r_dot . xh = Azd sin q + u_dot - v q_dot
       r_dot . yh = Azd cos q + (s + u) q_dot + v_dot
   (Azd = q1_dot or q4_dot).  Per element these are polynomials in the local
   abscissa whose coefficients contain the coordinates/velocities and sin/cos of the
   beam angle; |r_dot|^2 is integrated EXACTLY (coefficient-wise monomial integration).
   The same is done for the gravity potential  -g rho A int z(s) ds  with
   z(s) = Az + (s + u) sin q + v cos q, and for the strain energy.
   T = carriages + beams + end-effector (velocity of beam 1 at s = L),
   V = gravity (carriages, beams, end-effector) + strain energy.
2. Lagrange in tree coordinates:
       M_t = d2T/dqtd2,
       c_t = sum_j d2T/(dqtd dqt_j) qtd_j - dT/dqt + dV/dqt,
   so that d/dt(dT/dqtd) - dT/dqt + dV/dqt = M_t qtdd + c_t.
3. Constraint: Phi = dphi/dqt = [Phi_dep | Phi_ind]; the dependent velocities are
   -Phi_dep^-1 Phi_ind qd, giving qtd = Jq qd.  With gamma = (d/dt Phi) qtd
   = d(Phi qtd)/dqt . qtd, the acceleration is qtdd = Jq qdd + b with
   b_dep = -Phi_dep^-1 gamma, b_indep = 0.
4. Reduced (virtual-power projected) equations:
       M = Jq^T M_t Jq,   c = Jq^T (c_t + M_t b),
       M qdd + c = [tau1, tau4, 0, ..., 0].

The sympy expressions (M_t, c_t, phi, Phi, gamma) are built once per n
(functools.lru_cache) and lambdified to numpy with common-subexpression elimination;
the projection in step 3-4 is done numerically.
"""

from functools import lru_cache

import numpy as np
import scipy.linalg
import sympy as sp

# ---------------------------------------------------------------- parameters
G = 9.81
D = 0.6
L = 0.4
M_CARRIAGE = 1.0
M_EFFECTOR = 1.0
E_YOUNG = 70e9
RHO = 2800.0
AREA = 4e-6
INERTIA = (2e-3) ** 4 / 12.0
RHO_A = RHO * AREA
EA = E_YOUNG * AREA
EI = E_YOUNG * INERTIA

# exact (rational) versions for the symbolic derivation
_G = sp.Rational(981, 100)
_D = sp.Rational(3, 5)
_L = sp.Rational(2, 5)
_MC = sp.Integer(1)
_MP = sp.Integer(1)
_RHO_A = sp.Integer(2800) * sp.Rational(4, 10**6)
_EA = sp.Integer(70 * 10**9) * sp.Rational(4, 10**6)
_EI = sp.Integer(70 * 10**9) * sp.Rational(2, 1000) ** 4 / 12


# ---------------------------------------------------------------- symbolic build
def _int_square(poly_coeffs, le):
    """Exact int_0^le (sum_i a_i x^i)^2 dx; poly_coeffs[i] is the coefficient of x^i."""
    out = 0
    m = len(poly_coeffs)
    for i in range(m):
        for j in range(m):
            out += poly_coeffs[i] * poly_coeffs[j] * le ** (i + j + 1) / (i + j + 1)
    return out


def _int_linear(poly_coeffs, le):
    """Exact int_0^le sum_i a_i x^i dx."""
    return sum(a * le ** (i + 1) / (i + 1) for i, a in enumerate(poly_coeffs))


def _coeffs(expr, x):
    """Coefficients of a polynomial in x, lowest degree first."""
    return list(reversed(sp.Poly(sp.expand(expr), x).all_coeffs()))


def _element_shapes(x, le):
    """Linear (axial) and cubic Hermite (transverse) shapes in local abscissa x."""
    xi = x / le
    nu = [1 - xi, xi]
    nv = [1 - 3 * xi**2 + 2 * xi**3,
          le * (xi - 2 * xi**2 + xi**3),
          3 * xi**2 - 2 * xi**3,
          le * (-xi**2 + xi**3)]
    return nu, nv


def _beam_energies(n, Ax, Az, Azd, q, qd, e, ed, x):
    """Return (T_beam, Vgrav_beam, Vel_beam, tip_xz, tip_vel_local(a, b))."""
    le = _L / n
    nu, nv = _element_shapes(x, le)
    zero = sp.Integer(0)

    def node(vec, k):  # (u, v, theta) of node k (node 0 clamped)
        if k == 0:
            return zero, zero, zero
        return vec[3 * (k - 1)], vec[3 * (k - 1) + 1], vec[3 * (k - 1) + 2]

    sq, cq = sp.sin(q), sp.cos(q)
    T = zero
    Vg = zero
    Ve = zero
    for k in range(1, n + 1):
        s0 = (k - 1) * le
        ua, va, ta = node(e, k - 1)
        ub, vb, tb = node(e, k)
        uda, vda, tda = node(ed, k - 1)
        udb, vdb, tdb = node(ed, k)
        u = nu[0] * ua + nu[1] * ub
        v = nv[0] * va + nv[1] * ta + nv[2] * vb + nv[3] * tb
        ud = nu[0] * uda + nu[1] * udb
        vd = nv[0] * vda + nv[1] * tda + nv[2] * vdb + nv[3] * tdb
        s = s0 + x
        # velocity components in the beam frame
        a = Azd * sq + ud - v * qd
        b = Azd * cq + (s + u) * qd + vd
        T += sp.Rational(1, 2) * _RHO_A * (_int_square(_coeffs(a, x), le)
                                           + _int_square(_coeffs(b, x), le))
        z = Az + (s + u) * sq + v * cq
        Vg += -_G * _RHO_A * _int_linear(_coeffs(z, x), le)
        Ve += sp.Rational(1, 2) * _EA * _int_square(_coeffs(sp.diff(u, x), x), le)
        Ve += sp.Rational(1, 2) * _EI * _int_square(_coeffs(sp.diff(v, x, 2), x), le)
    un, vn, _ = node(e, n)
    udn, vdn, _ = node(ed, n)
    tip = sp.Matrix([Ax + (_L + un) * cq - vn * sq, Az + (_L + un) * sq + vn * cq])
    a_tip = Azd * sq + udn - vn * qd
    b_tip = Azd * cq + (_L + un) * qd + vdn
    return T, Vg, Ve, tip, (a_tip, b_tip)


@lru_cache(maxsize=None)
def _build(n):
    ne = 3 * n
    q1, q4, q2, q5 = sp.symbols("q1 q4 q2 q5")
    qd1, qd4, qd2, qd5 = sp.symbols("qd1 qd4 qd2 qd5")
    e1 = sp.symbols(f"e1_0:{ne}")
    e2 = sp.symbols(f"e2_0:{ne}")
    ed1 = sp.symbols(f"ed1_0:{ne}")
    ed2 = sp.symbols(f"ed2_0:{ne}")
    x = sp.Symbol("x")

    qt = [q1, q4, q2, q5, *e1, *e2]
    qtd = [qd1, qd4, qd2, qd5, *ed1, *ed2]

    T1, Vg1, Ve1, tip1, (a1, b1) = _beam_energies(n, 0, q1, qd1, q2, qd2, e1, ed1, x)
    T2, Vg2, Ve2, tip2, _ = _beam_energies(n, _D, q4, qd4, q5, qd5, e2, ed2, x)

    T = (sp.Rational(1, 2) * _MC * (qd1**2 + qd4**2) + T1 + T2
         + sp.Rational(1, 2) * _MP * (a1**2 + b1**2))
    V = (-_G * _MC * (q1 + q4) + Vg1 + Vg2 + Ve1 + Ve2 - _G * _MP * tip1[1])

    N = len(qt)
    p = [sp.diff(T, v) for v in qtd]                      # dT/dqtd
    Mt = sp.Matrix(N, N, lambda i, j: sp.diff(p[i], qtd[j]))
    ct = sp.Matrix([
        sum(sp.diff(p[i], qt[j]) * qtd[j] for j in range(N))
        - sp.diff(T, qt[i]) + sp.diff(V, qt[i])
        for i in range(N)])

    phi = tip1 - tip2
    Phi = phi.jacobian(qt)
    gamma = (Phi * sp.Matrix(qtd)).jacobian(qt) * sp.Matrix(qtd)

    args = (qt, qtd)
    return {
        "n": n,
        "Mt": sp.lambdify(args, Mt, modules="numpy", cse=True),
        "ct": sp.lambdify(args, ct, modules="numpy", cse=True),
        "phi": sp.lambdify((qt,), phi, modules="numpy", cse=True),
        "Phi": sp.lambdify((qt,), Phi, modules="numpy", cse=True),
        "gamma": sp.lambdify(args, gamma, modules="numpy", cse=True),
        "T": sp.lambdify(args, T, modules="numpy", cse=True),
        "V": sp.lambdify((qt,), V, modules="numpy", cse=True),
    }


# ---------------------------------------------------------------- numerics
def rigid_closure(q1, q4):
    """Rigid (zero deflection) angles (q2, q5) for the +z assembly mode."""
    A1 = np.array([0.0, q1])
    A2 = np.array([D, q4])
    w = A2 - A1
    dist = np.linalg.norm(w)
    if dist > 2 * L:
        raise ValueError("carriages too far apart: no assembly")
    h = np.sqrt(L**2 - (dist / 2) ** 2)
    t = w / dist
    nrm = np.array([-t[1], t[0]])      # normal with +z component (t[0] > 0 since d > 0)
    P = (A1 + A2) / 2 + h * nrm
    return np.arctan2(P[1] - A1[1], P[0] - A1[0]), np.arctan2(P[1] - A2[1], P[0] - A2[0])


def _solve_closure(fns, n, q1, q4, e1, e2, q2, q5, tol=1e-14, maxit=50):
    for _ in range(maxit):
        qt = np.concatenate([[q1, q4, q2, q5], e1, e2])
        r = np.asarray(fns["phi"](qt), dtype=float).ravel()
        if np.max(np.abs(r)) < tol:
            return q2, q5
        J = np.asarray(fns["Phi"](qt), dtype=float)[:, 2:4]
        dq = np.linalg.solve(J, -r)
        q2, q5 = q2 + dq[0], q5 + dq[1]
    qt = np.concatenate([[q1, q4, q2, q5], e1, e2])
    r = np.asarray(fns["phi"](qt), dtype=float).ravel()
    if np.max(np.abs(r)) > 1e-10:
        raise RuntimeError(f"closure Newton did not converge (|phi| = {np.max(np.abs(r))})")
    return q2, q5


def lagrange_five_bar(q1, q4, e1, e2, qd1, qd4, ed1, ed2, n=1,
                      q2_guess=None, q5_guess=None):
    """Reduced dynamics M qdd + c = [tau1, tau4, 0...] of the flexible five-bar.

    q = [q1, q4, e1 (3n), e2 (3n)], qd likewise.  Returns a dict with
    "q2", "q5" (closure solution), "M" ((2+6n)^2), "c" (2+6n) and, for convenience,
    "qt", "qtd" (tree coordinates/velocities), "Jq", "b", "Mt", "ct".
    """
    fns = _build(int(n))
    ne = 3 * n
    e1 = np.asarray(e1, dtype=float).reshape(ne)
    e2 = np.asarray(e2, dtype=float).reshape(ne)
    ed1 = np.asarray(ed1, dtype=float).reshape(ne)
    ed2 = np.asarray(ed2, dtype=float).reshape(ne)
    if q2_guess is None or q5_guess is None:
        g2, g5 = rigid_closure(q1, q4)
        q2_guess = g2 if q2_guess is None else q2_guess
        q5_guess = g5 if q5_guess is None else q5_guess
    q2, q5 = _solve_closure(fns, n, float(q1), float(q4), e1, e2,
                            float(q2_guess), float(q5_guess))

    qt = np.concatenate([[q1, q4, q2, q5], e1, e2]).astype(float)
    Nt = qt.size
    N = Nt - 2
    dep = [2, 3]
    ind = [0, 1] + list(range(4, Nt))
    Phi = np.asarray(fns["Phi"](qt), dtype=float)
    lu = scipy.linalg.lu_factor(Phi[:, dep])
    Jq = np.zeros((Nt, N))
    Jq[ind, np.arange(N)] = 1.0
    Jq[dep, :] = -scipy.linalg.lu_solve(lu, Phi[:, ind])

    qd = np.concatenate([[qd1, qd4], ed1, ed2]).astype(float)
    qtd = Jq @ qd
    gamma = np.asarray(fns["gamma"](qt, qtd), dtype=float).ravel()
    b = np.zeros(Nt)
    b[dep] = -scipy.linalg.lu_solve(lu, gamma)

    Mt = np.asarray(fns["Mt"](qt, qtd), dtype=float)
    ct = np.asarray(fns["ct"](qt, qtd), dtype=float).ravel()
    M = Jq.T @ Mt @ Jq
    c = Jq.T @ (ct + Mt @ b)
    return {"q2": q2, "q5": q5, "M": M, "c": c, "qt": qt, "qtd": qtd,
            "Jq": Jq, "b": b, "Mt": Mt, "ct": ct}


def energies(qt, qtd, n=1):
    """(T, V) of the tree coordinates from the symbolic expressions (for checks)."""
    fns = _build(int(n))
    return float(fns["T"](qt, qtd)), float(fns["V"](qt))


# ---------------------------------------------------------------- self test
def frame_check(seed=0):
    """Self test: (a) M symmetric positive definite at a random state (n = 1 and 2);
    (b) rigid statics at the symmetric pose.

    Hand statics (q1 = q4 = 0, e = 0, all velocities 0): P = (0.3, h), h = sqrt(0.07).
    Moving q1 with q4 fixed, vP is orthogonal to P - A2 = (-0.3, h) and vP - (0, q1d)
    orthogonal to P - A1 = (0.3, h): vP = q1d (h/0.6, 0.5), so dz_P/dq1 = 1/2.
    The beam centres are mid-points: dz_G1/dq1 = (1 + 1/2)/2 = 3/4,
    dz_G2/dq1 = (0 + 1/2)/2 = 1/4.  With V = -g (m_c q1 + m_c q4 + m_b zG1 + m_b zG2
    + m_P zP), m_b = rho A L = 4.48e-3 kg:
        tau1 = dV/dq1 = -g (m_c + (3/4 + 1/4) m_b + m_P/2) = -g (1.5 + m_b)
             = -9.81 * 1.50448 = -14.7589488 N,
    and tau4 = tau1 by symmetry (the actuators pull along -z against gravity).
    (Also, for ANY pose at rest, a rigid translation q1 = q4 = delta gives
    tau1 + tau4 = -g * total mass = -g (3 + 2 m_b); checked too.)
    """
    rng = np.random.default_rng(seed)
    ok_a = True
    for n in (1, 2):
        ne = 3 * n
        st = dict(q1=rng.uniform(-0.05, 0.05), q4=rng.uniform(-0.05, 0.05),
                  e1=1e-3 * rng.standard_normal(ne), e2=1e-3 * rng.standard_normal(ne),
                  qd1=rng.standard_normal(), qd4=rng.standard_normal(),
                  ed1=rng.standard_normal(ne), ed2=rng.standard_normal(ne))
        out = lagrange_five_bar(**st, n=n)
        M = out["M"]
        sym = np.allclose(M, M.T, rtol=0, atol=1e-12 * np.max(np.abs(M)))
        pd = np.min(np.linalg.eigvalsh(0.5 * (M + M.T))) > 0
        ok_a = ok_a and sym and pd

    ok_b = True
    m_b = RHO_A * L
    tau_hand = -G * (M_CARRIAGE + m_b + 0.5 * M_EFFECTOR)     # -14.7589488 N
    for n in (1, 2):
        ne = 3 * n
        z = np.zeros(ne)
        out = lagrange_five_bar(0.0, 0.0, z, z, 0.0, 0.0, z, z, n=n)
        c = out["c"]
        ok_b = ok_b and abs(out["q2"] - np.arctan2(np.sqrt(0.07), 0.3)) < 1e-12
        ok_b = ok_b and abs(c[0] - tau_hand) < 1e-10 and abs(c[1] - tau_hand) < 1e-10
        # rigid-translation identity at rest, arbitrary pose and deflection
        e1 = 1e-3 * rng.standard_normal(ne)
        e2 = 1e-3 * rng.standard_normal(ne)
        out = lagrange_five_bar(0.03, -0.02, e1, e2, 0.0, 0.0, z, z, n=n)
        total = 2 * M_CARRIAGE + 2 * m_b + M_EFFECTOR
        ok_b = ok_b and abs(out["c"][0] + out["c"][1] + G * total) < 1e-9
    return bool(ok_a and ok_b)


if __name__ == "__main__":
    print(frame_check())
