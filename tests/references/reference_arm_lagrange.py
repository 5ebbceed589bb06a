"""Independent Lagrange reference for the planar N-link flexible arm (test oracle).

A *second, independent* derivation of the equations of motion of the planar serial arm
of N flexible links modelled by assumed modes (Yu & Chen 2019 style). It uses sympy and
numpy only (nothing from ``elastodyn``) and derives everything directly from the
energies by the Lagrange equations.

System
------
* Vertical plane x0-y0, gravity g along -y0.
* q = [theta_1..theta_N, f_11..f_1s, f_21..f_2s, ..., f_N1..f_Ns], qd likewise.
* theta_i: relative angle between the chord of link i and the chord of link i-1
  (link 0 = the x0 axis); phi_i = theta_1 + ... + theta_i, R_i = rot(phi_i).
* Chord of link i from p_{i-1} to p_i = p_{i-1} + L_i (cos phi_i, sin phi_i), p_0 = 0.
* Transverse deflection y_i(xi) = sum_k psi_k(xi) f_ik, xi in [0, 1] from the root;
  world position of the point of abscissa xi: P_i(xi) = p_{i-1} + R_i (xi L_i, y_i(xi)).
  No axial deformation, no rotary inertia of the beam's own sections.
* Section angle (the linear small-slope measure): a_i(xi) = phi_i + y_i'(xi) / L_i
  (y_i' = dy_i/dxi), the rotation of the rigid bodies carried by the link.
* Link i: uniform mass m_i along the chord; lumped masses M_ij on the deflected axis at
  xi = 1 + mu_ij (mu_ij in [-1, 0]), each with a rotary inertia J_ij about its centre
  (any number per link; Yu: one point mass); a hub of rotary inertia Jh_i at xi = 0 (no
  mass). Payload on the tip of link N (xi = 1): mass Mp, rotary inertia Jp.
* T   = sum_i 1/2 int_0^1 m_i |dP_i/dt|^2 dxi
        + sum_ij [1/2 M_ij |dP_i/dt (1 + mu_ij)|^2 + 1/2 J_ij (da_i/dt (1 + mu_ij))^2]
        + sum_i 1/2 Jh_i (da_i/dt (0))^2 + 1/2 Mp |dP_N/dt (1)|^2 + 1/2 Jp (da_N/dt (1))^2
* V_g = sum_i int_0^1 m_i g e_y.P_i dxi + sum_ij M_ij g e_y.P_i(1 + mu_ij)
        + Mp g e_y.P_N(1)   (deflection included)
* U   = sum_i 1/2 (EI_i / L_i^3) int_0^1 (d^2 y_i/dxi^2)^2 dxi
* Joint torques: motor i turns link i relative to link i-1 by
  theta_i + alpha_i - beta_{i-1}, alpha_i = y_i'(0)/L_i, beta_{i-1} = y_{i-1}'(1)/L_{i-1}
  (beta_0 = 0), so Q = B tau with B[:, i] = d(theta_i + alpha_i - beta_{i-1})/dq.

Derivation choices
------------------
* Everything is written in *world* coordinates, no moving-frame shortcut: with generic
  symbols X (= xi), Y (= y_i(xi)) and Yd (= dy_i/dt (xi)),
  P_i = p_{i-1}(theta) + R_i(theta) (X L_i, Y) and the velocity is obtained by the chain
  rule  dP_i/dt = sum_j dP_i/dtheta_j thetad_j + dP_i/dY Yd.
* |dP_i/dt|^2 and e_y.P_i are polynomials of degree <= 2 in (X, Y, Yd). Each monomial
  X^a Y^b Yd^c is replaced by its exact integral over xi in [0, 1] after substituting
  X = xi, Y = sum psi_k f_ik, Yd = sum psi_k fd_ik; the xi-integrals of the shape
  products are computed by ``sympy.integrate`` (exact for sine modes). If sympy cannot
  integrate a user-given shape product in closed form, a 12-point Gauss-Legendre rule
  is used for that integral (exact for polynomials of degree <= 23).
* A lumped mass enters by substituting X = 1 + mu_ij, Y = sum psi_k(1 + mu_ij) f_ik,
  Yd = sum psi_k(1 + mu_ij) fd_ik (mu_ij stays a symbol); the payload likewise at X = 1.
* A rotary inertia: its angle a_i(xi_b) = phi_i + sum_k psi_k'(xi_b) f_ik / L_i is
  differentiated by the chain rule, da/dt = sum_a da/dq_a qd_a.
* Lagrange with L = T - V_g - U:
      M   = d^2 T / dqd^2
      c_i = sum_j d(dT/dqd_i)/dq_j qd_j - dT/dq_i + dV_g/dq_i + dU/dq_i
  so that  M qdd + c = B tau.
* The symbolic build (parameters L, m, EI, M, mu, J, Jh, Mp, Jp, g kept as symbols) is
  cached per (N, s, shapes, number of lumped masses per link); M, c, B and the energies
  are lambdified (with cse) for evaluation.

API
---
``arm_lagrange(N, s, params, q, qd, shapes=None) -> {"M", "c", "B"}``
``arm_energies(N, s, params, q, qd, shapes=None) -> {"T", "V_g", "U"}``
``default_shapes(s)`` -> [sin(k pi xi), k = 1..s]

params: dict with per-link lists "L", "m", "EI", "M" (lumped), "mu" and scalar "g";
optional: "J" (per link, the rotary inertia of the lumped mass M), or "masses" (per
link, a list of (M, mu, J) triples, in place of "M", "mu", "J"); "Jh" (per link, hub
inertias); "payload" ((Mp, Jp)). Missing ones are zero.

Run ``python tests/references/reference_arm_lagrange.py`` for the self-checks.
"""
from __future__ import annotations

import time

import numpy as np
import sympy as sp

XI = sp.Symbol("xi")

__all__ = ["XI", "default_shapes", "arm_lagrange", "arm_energies", "build_arm"]


def default_shapes(s):
    """Sine modes psi_k(xi) = sin(k pi xi), k = 1..s."""
    return [sp.sin(k * sp.pi * XI) for k in range(1, s + 1)]


# ----------------------------------------------------------------------------------------
# exact integration over xi in [0, 1]
# ----------------------------------------------------------------------------------------
_GL_X, _GL_W = np.polynomial.legendre.leggauss(12)
_GL_X = 0.5 * (_GL_X + 1.0)
_GL_W = 0.5 * _GL_W
_INT_CACHE: dict = {}
_USED_QUADRATURE: list = []


def _integrate01(expr):
    """int_0^1 expr dxi, exact by sympy when possible, else 12-point Gauss-Legendre."""
    expr = sp.sympify(expr)
    if expr in _INT_CACHE:
        return _INT_CACHE[expr]
    if not expr.has(XI):
        res = expr
    else:
        res = sp.integrate(expr, (XI, 0, 1))
        if res.has(sp.Integral) or not res.free_symbols <= set():
            # closed form not found (or left symbolic): numerical Gauss rule
            fn = sp.lambdify(XI, expr, "numpy")
            res = sp.Float(float(np.sum(_GL_W * np.broadcast_to(fn(_GL_X), _GL_X.shape))))
            _USED_QUADRATURE.append(expr)
        else:
            res = sp.nsimplify(res) if res.is_Float else sp.simplify(res)
    _INT_CACHE[expr] = res
    return res


def _xi_integral(poly_expr, gens):
    """Integrate over xi a polynomial in `gens` (modal coordinates) whose coefficients
    are functions of xi: integrate coefficient by coefficient."""
    P = sp.Poly(sp.expand(poly_expr), *gens)
    out = 0
    for monom, coeff in P.terms():
        term = _integrate01(coeff)
        for g_, e in zip(gens, monom):
            term = term * g_**e
        out += term
    return out


# ----------------------------------------------------------------------------------------
# symbolic build
# ----------------------------------------------------------------------------------------
_BUILD_CACHE: dict = {}


def _rot(a):
    return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])


def build_arm(N, s, shapes=None, counts=None):
    """Symbolic build, cached per (N, s, shapes, counts). ``counts``: the number of
    lumped masses on each link (default one per link). Returns a dict of lambdified
    functions f(qv, qdv, pv) with pv = [L_1..L_N, m_1.., EI_1.., then (M, mu, J) of every
    lumped mass link by link, Jh_1..Jh_N, Mp, Jp, g]."""
    if shapes is None:
        shapes = default_shapes(s)
    shapes = [sp.sympify(e) for e in shapes]
    if len(shapes) != s:
        raise ValueError(f"expected {s} shapes, got {len(shapes)}")
    counts = (1,) * N if counts is None else tuple(int(c) for c in counts)
    if len(counts) != N:
        raise ValueError(f"expected {N} counts of lumped masses, got {len(counts)}")
    key = (N, s, tuple(sp.srepr(e) for e in shapes), counts)
    if key in _BUILD_CACHE:
        return _BUILD_CACHE[key]
    t0 = time.perf_counter()

    th = list(sp.symbols(f"theta1:{N + 1}"))
    thd = list(sp.symbols(f"thetad1:{N + 1}"))
    f = [list(sp.symbols(f"f{i}_1:{s + 1}")) for i in range(1, N + 1)]
    fd = [list(sp.symbols(f"fd{i}_1:{s + 1}")) for i in range(1, N + 1)]
    q = th + [x for row in f for x in row]
    qd = thd + [x for row in fd for x in row]
    Ls = list(sp.symbols(f"L1:{N + 1}", positive=True))
    ms = list(sp.symbols(f"m1:{N + 1}"))
    EIs = list(sp.symbols(f"EI1:{N + 1}"))
    bodies = [[sp.symbols(f"Mp{i + 1}_{j + 1} mu{i + 1}_{j + 1} J{i + 1}_{j + 1}")
               for j in range(counts[i])] for i in range(N)]
    Jhs = list(sp.symbols(f"Jh1:{N + 1}"))
    Mpay, Jpay = sp.symbols("Mpay Jpay")
    g = sp.Symbol("g")
    pars = Ls + ms + EIs + [x for row in bodies for b in row for x in b] + Jhs \
        + [Mpay, Jpay, g]

    X, Y, Yd = sp.symbols("X Y Yd")
    ey = sp.Matrix([0, 1])

    def rate(expr):
        """d expr / dt by the chain rule over q."""
        return sum(sp.diff(expr, a) * ad for a, ad in zip(q, qd))

    T = 0
    Vg = 0
    U = 0
    phi = 0
    p_prev = sp.Matrix([0, 0])
    for i in range(N):
        phi = phi + th[i]
        R = _rot(phi)
        P = p_prev + R * sp.Matrix([X * Ls[i], Y])
        # velocity by the chain rule (Y depends on the f's, its rate is Yd)
        v = sp.zeros(2, 1)
        for j in range(N):
            v += P.diff(th[j]) * thd[j]
        v += P.diff(Y) * Yd
        v2 = sp.expand((v.T * v)[0, 0])
        h = sp.expand((ey.T * P)[0, 0])

        y_xi = sum(psi * fk for psi, fk in zip(shapes, f[i]))
        yd_xi = sum(psi * fk for psi, fk in zip(shapes, fd[i]))
        modal = f[i] + fd[i]

        # distributed mass: integrate monomial by monomial in (X, Y, Yd)
        def xi_avg(expr):
            poly = sp.Poly(expr, X, Y, Yd)
            out = 0
            for (a, b, c_), coeff in poly.terms():
                mom = _xi_integral(XI**a * y_xi**b * yd_xi**c_, modal) if (b + c_) else \
                    _integrate01(XI**a)
                out += coeff * mom
            return out

        T += sp.Rational(1, 2) * ms[i] * xi_avg(v2)
        Vg += ms[i] * g * xi_avg(h)

        def point(xm):
            """Substitution of the point of the deflected axis at xi = xm."""
            return {X: xm,
                    Y: sum(psi.subs(XI, xm) * fk for psi, fk in zip(shapes, f[i])),
                    Yd: sum(psi.subs(XI, xm) * fk for psi, fk in zip(shapes, fd[i]))}

        def section_angle(xm):
            """a_i(xm) = phi_i + y_i'(xm) / L_i (the section's rotation)."""
            return phi + sum(sp.diff(psi, XI).subs(XI, xm) * fk
                             for psi, fk in zip(shapes, f[i])) / Ls[i]

        # lumped masses at xi = 1 + mu on the deflected axis, with their rotary inertias
        for Mb, mub, Jb in bodies[i]:
            sub = point(1 + mub)
            T += sp.Rational(1, 2) * Mb * v2.subs(sub)
            Vg += Mb * g * h.subs(sub)
            T += sp.Rational(1, 2) * Jb * rate(section_angle(1 + mub)) ** 2
        # the hub, turning with the root section
        T += sp.Rational(1, 2) * Jhs[i] * rate(section_angle(sp.Integer(0))) ** 2
        if i == N - 1:      # the payload at the tip
            sub = point(sp.Integer(1))
            T += sp.Rational(1, 2) * Mpay * v2.subs(sub)
            Vg += Mpay * g * h.subs(sub)
            T += sp.Rational(1, 2) * Jpay * rate(section_angle(sp.Integer(1))) ** 2

        # elastic energy
        ypp = sp.expand(sp.diff(y_xi, XI, 2))
        U += sp.Rational(1, 2) * EIs[i] / Ls[i]**3 * _xi_integral(ypp**2, f[i])

        p_prev = p_prev + Ls[i] * sp.Matrix([sp.cos(phi), sp.sin(phi)])

    n = N + N * s
    # Lagrange
    dTdqd = [sp.diff(T, x) for x in qd]
    Mm = sp.Matrix(n, n, lambda a, b: sp.expand(sp.diff(dTdqd[a], qd[b])))
    c = []
    for a in range(n):
        ca = sum(sp.diff(dTdqd[a], q[j]) * qd[j] for j in range(n))
        ca += -sp.diff(T, q[a]) + sp.diff(Vg, q[a]) + sp.diff(U, q[a])
        c.append(sp.expand(ca))
    c = sp.Matrix(c)

    # input matrix from the virtual work of the motor torques
    dpsi0 = [sp.diff(psi, XI).subs(XI, 0) for psi in shapes]
    dpsi1 = [sp.diff(psi, XI).subs(XI, 1) for psi in shapes]
    Bm = sp.zeros(n, N)
    for i in range(N):
        w = th[i] + sum(d * fk for d, fk in zip(dpsi0, f[i])) / Ls[i]
        if i > 0:
            w -= sum(d * fk for d, fk in zip(dpsi1, f[i - 1])) / Ls[i - 1]
        for a in range(n):
            Bm[a, i] = sp.diff(w, q[a])
    t1 = time.perf_counter()

    args = (q, qd, pars)
    fun = {
        "M": sp.lambdify(args, Mm, "numpy", cse=True),
        "c": sp.lambdify(args, list(c), "numpy", cse=True),
        "B": sp.lambdify(args, Bm, "numpy", cse=True),
        "E": sp.lambdify(args, [T, Vg, U], "numpy", cse=True),
        "sym": dict(q=q, qd=qd, pars=pars, T=T, V_g=Vg, U=U, M=Mm, c=c, B=Bm),
        "build_time": t1 - t0,
        "lambdify_time": time.perf_counter() - t1,
    }
    _BUILD_CACHE[key] = fun
    return fun


def _masses(N, params):
    """Per link, the list of (M, mu, J) of its lumped masses (module docstring)."""
    if "masses" in params:
        out = [[tuple(float(x) for x in b) for b in row] for row in params["masses"]]
    else:
        M = list(np.atleast_1d(np.asarray(params["M"], dtype=float)))
        mu = list(np.atleast_1d(np.asarray(params["mu"], dtype=float)))
        J = list(np.atleast_1d(np.asarray(params.get("J", [0.0] * N), dtype=float)))
        if not len(M) == len(mu) == len(J) == N:
            raise ValueError(f"params M, mu, J must have {N} entries")
        out = [[(M[i], mu[i], J[i])] for i in range(N)]
    if len(out) != N or not all(len(b) == 3 for row in out for b in row):
        raise ValueError(f"params['masses'] must have {N} lists of (M, mu, J)")
    return out


def _param_vector(N, params):
    pv = []
    for name in ("L", "m", "EI"):
        vals = list(np.atleast_1d(np.asarray(params[name], dtype=float)))
        if len(vals) != N:
            raise ValueError(f"params[{name!r}] must have {N} entries")
        pv += vals
    masses = _masses(N, params)
    pv += [x for row in masses for b in row for x in b]
    Jh = list(np.atleast_1d(np.asarray(params.get("Jh", [0.0] * N), dtype=float)))
    if len(Jh) != N:
        raise ValueError(f"params['Jh'] must have {N} entries")
    pv += Jh + [float(x) for x in params.get("payload", (0.0, 0.0))]
    pv.append(float(params["g"]))
    return pv, tuple(len(row) for row in masses)


def arm_lagrange(N, s, params, q, qd, shapes=None):
    """M qdd + c = B tau for the planar flexible arm. Returns dict(M, c, B) (numpy)."""
    pv, counts = _param_vector(N, params)
    fun = build_arm(N, s, shapes, counts)
    qv = [float(x) for x in np.asarray(q, dtype=float).ravel()]
    qdv = [float(x) for x in np.asarray(qd, dtype=float).ravel()]
    n = N + N * s
    if len(qv) != n or len(qdv) != n:
        raise ValueError(f"q and qd must have {n} entries")
    return {
        "M": np.array(fun["M"](qv, qdv, pv), dtype=float).reshape(n, n),
        "c": np.array(fun["c"](qv, qdv, pv), dtype=float).reshape(n),
        "B": np.array(fun["B"](qv, qdv, pv), dtype=float).reshape(n, N),
    }


def arm_energies(N, s, params, q, qd, shapes=None):
    """Kinetic energy T, gravity potential V_g and elastic energy U."""
    pv, counts = _param_vector(N, params)
    fun = build_arm(N, s, shapes, counts)
    qv = [float(x) for x in np.asarray(q, dtype=float).ravel()]
    qdv = [float(x) for x in np.asarray(qd, dtype=float).ravel()]
    T, V, U = fun["E"](qv, qdv, pv)
    return {"T": float(T), "V_g": float(V), "U": float(U)}


# ----------------------------------------------------------------------------------------
# self-checks
# ----------------------------------------------------------------------------------------
def _random_params(N, rng, EI=None, g=9.81):
    return {
        "L": list(rng.uniform(0.5, 1.5, N)),
        "m": list(rng.uniform(0.5, 2.0, N)),
        "EI": list(rng.uniform(2.0, 10.0, N)) if EI is None else [EI] * N,
        "M": list(rng.uniform(0.1, 1.0, N)),
        "mu": list(rng.uniform(-1.0, 0.0, N)),
        "g": g,
    }


def _random_rich_params(N, rng, g=9.81):
    """Random parameters with every rigid body: two lumped masses with rotary inertias
    per link, hubs, a payload."""
    p = _random_params(N, rng, g=g)
    del p["M"], p["mu"]
    p["masses"] = [[(rng.uniform(0.1, 1.0), rng.uniform(-1.0, 0.0), rng.uniform(0.01, 0.1))
                    for _ in range(2)] for _ in range(N)]
    p["Jh"] = list(rng.uniform(0.01, 0.1, N))
    p["payload"] = (rng.uniform(0.1, 1.0), rng.uniform(0.01, 0.1))
    return p


def _numeric_M_V(N, s, params, q, shapes=None, npts=40):
    """Brute-force numerical M and V_g (no sympy differentiation): the world position of
    each material point is evaluated numerically, its Jacobian w.r.t. q by central
    differences, M = int J^T J dm by a Gauss rule (exact for sine modes up to fd error)."""
    if shapes is None:
        shapes = default_shapes(s)
    psi = [sp.lambdify(XI, e, "numpy") for e in shapes]
    xs, ws = np.polynomial.legendre.leggauss(npts)
    xs = 0.5 * (xs + 1)
    ws = 0.5 * ws
    n = N + N * s

    def pos(qq, i, x):
        th = qq[:N]
        f = qq[N:].reshape(N, s)
        phi = np.cumsum(th)
        p = np.zeros(2)
        for k in range(i):
            p = p + params["L"][k] * np.array([np.cos(phi[k]), np.sin(phi[k])])
        y = sum(float(psi[k](x)) * f[i, k] for k in range(s))
        c_, s_ = np.cos(phi[i]), np.sin(phi[i])
        loc = np.array([x * params["L"][i], y])
        return p + np.array([c_ * loc[0] - s_ * loc[1], s_ * loc[0] + c_ * loc[1]])

    def jac(qq, i, x, h=1e-6):
        J = np.zeros((2, n))
        for a in range(n):
            e = np.zeros(n)
            e[a] = h
            J[:, a] = (pos(qq + e, i, x) - pos(qq - e, i, x)) / (2 * h)
        return J

    dpsi = [sp.lambdify(XI, sp.diff(e, XI), "numpy") for e in shapes]

    def angle(qq, i, x):        # phi_i + y_i'(x) / L_i
        f = qq[N:].reshape(N, s)
        return np.sum(qq[:i + 1]) + sum(float(dpsi[k](x)) * f[i, k]
                                        for k in range(s)) / params["L"][i]

    def grad_angle(qq, i, x, h=1e-6):
        out = np.zeros(n)
        for a in range(n):
            e = np.zeros(n)
            e[a] = h
            out[a] = (angle(qq + e, i, x) - angle(qq - e, i, x)) / (2 * h)
        return out

    q = np.asarray(q, float)
    M = np.zeros((n, n))
    V = 0.0
    g = params["g"]
    masses = _masses(N, params)
    Jh = params.get("Jh", [0.0] * N)
    for i in range(N):
        for x, w in zip(xs, ws):
            J = jac(q, i, x)
            M += params["m"][i] * w * J.T @ J
            V += params["m"][i] * w * g * pos(q, i, x)[1]
        bodies = [(Mb, 1 + mub, Jb) for Mb, mub, Jb in masses[i]] + [(0.0, 0.0, Jh[i])]
        if i == N - 1:
            Mp, Jp = params.get("payload", (0.0, 0.0))
            bodies.append((Mp, 1.0, Jp))
        for Mb, xm, Jb in bodies:
            J = jac(q, i, xm)
            M += Mb * J.T @ J
            V += Mb * g * pos(q, i, xm)[1]
            ga = grad_angle(q, i, xm)
            M += Jb * np.outer(ga, ga)
    return M, V


def _rigid_two_link(params, th2):
    L1, L2 = params["L"]
    m1, m2 = params["m"]
    M1, M2 = params["M"]
    d1 = (1 + params["mu"][0]) * L1
    d2 = (1 + params["mu"][1]) * L2
    J1 = m1 * L1**2 / 3 + M1 * d1**2          # link 1 about joint 1
    J2 = m2 * L2**2 / 3 + M2 * d2**2          # link 2 about joint 2
    S2 = m2 * L2 / 2 + M2 * d2                # first moment of link 2 about joint 2
    m2t = m2 + M2
    M11 = J1 + J2 + m2t * L1**2 + 2 * S2 * L1 * np.cos(th2)
    M12 = J2 + S2 * L1 * np.cos(th2)
    return np.array([[M11, M12], [M12, J2]])


def _self_checks():
    from scipy.integrate import solve_ivp

    rng = np.random.default_rng(0)
    s = 2
    for N in (1, 2, 3):
        t0 = time.perf_counter()
        fun = build_arm(N, s)
        tb = time.perf_counter() - t0
        n = N + N * s
        params = _random_params(N, rng)
        q = rng.normal(size=n) * 0.5
        qd = rng.normal(size=n)
        arm_lagrange(N, s, params, q, qd)
        t0 = time.perf_counter()
        for _ in range(200):
            arm_lagrange(N, s, params, q, qd)
        te = (time.perf_counter() - t0) / 200
        print(f"N={N} s={s}: build {fun['build_time']:.2f} s + lambdify "
              f"{fun['lambdify_time']:.2f} s (total {tb:.2f} s), eval {te * 1e3:.3f} ms/call")

        # 1. M symmetric positive definite at random states
        worst_asym, min_eig = 0.0, np.inf
        for _ in range(20):
            params = _random_params(N, rng)
            q = rng.normal(size=n)
            qd = rng.normal(size=n)
            M = arm_lagrange(N, s, params, q, qd)["M"]
            worst_asym = max(worst_asym, np.abs(M - M.T).max())
            min_eig = min(min_eig, np.linalg.eigvalsh(M).min())
        print(f"  [1] max |M - M^T| = {worst_asym:.2e}, min eig(M) = {min_eig:.3e}")

        # 2. f = 0, fd = 0, thetad = 0, g = 0  ->  c = 0
        worst = 0.0
        for _ in range(20):
            params = _random_params(N, rng, g=0.0)
            q = np.concatenate([rng.normal(size=N) * 2, np.zeros(N * s)])
            c = arm_lagrange(N, s, params, q, np.zeros(n))["c"]
            worst = max(worst, np.abs(c).max())
        print(f"  [2] max |c| at rest, f = 0, g = 0: {worst:.2e}")

        # 3. brute-force numerical M and gravity gradient (every rigid body)
        params = _random_rich_params(N, rng)
        q = rng.normal(size=n) * 0.7
        out = arm_lagrange(N, s, params, q, np.zeros(n))
        Mn, _ = _numeric_M_V(N, s, params, q)
        h = 1e-6
        gradV = np.zeros(n)
        for a in range(n):
            e = np.zeros(n)
            e[a] = h
            gradV[a] = (_numeric_M_V(N, s, params, q + e)[1]
                        - _numeric_M_V(N, s, params, q - e)[1]) / (2 * h)
        # c at qd = 0 is dV_g/dq + dU/dq; remove dU/dq = d/dq of the (symbolic) U
        pz = dict(params, EI=[0.0] * N)
        c0 = arm_lagrange(N, s, pz, q, np.zeros(n))["c"]
        Esym = arm_energies(N, s, params, q, np.zeros(n))["V_g"]
        Vn = _numeric_M_V(N, s, params, q)[1]
        print(f"  [3] brute-force: max |M - M_num| = {np.abs(out['M'] - Mn).max():.2e} "
              f"(|M|max {np.abs(Mn).max():.2f}), |V_g - V_num| = {abs(Esym - Vn):.2e}, "
              f"max |c(qd=0,EI=0) - grad V_num| = {np.abs(c0 - gradV).max():.2e}")

        # 5. power check: d/dt (T + V_g + U) = qd . B tau (every rigid body)
        params = _random_rich_params(N, rng)
        tau = rng.normal(size=N) * 2.0
        q0 = np.concatenate([rng.normal(size=N) * 0.5, rng.normal(size=N * s) * 0.01])
        qd0 = np.concatenate([rng.normal(size=N) * 0.5, rng.normal(size=N * s) * 0.05])

        def rhs(t, x):
            qq, qqd = x[:n], x[n:2 * n]
            o = arm_lagrange(N, s, params, qq, qqd)
            Q = o["B"] @ tau
            qdd = np.linalg.solve(o["M"], Q - o["c"])
            return np.concatenate([qqd, qdd, [qqd @ Q]])

        def energy(x):
            e = arm_energies(N, s, params, x[:n], x[n:2 * n])
            return e["T"] + e["V_g"] + e["U"]

        tf = 0.5
        t0 = time.perf_counter()
        sol = solve_ivp(rhs, (0, tf), np.concatenate([q0, qd0, [0.0]]), method="RK45",
                        rtol=1e-11, atol=1e-12, dense_output=True)
        tsim = time.perf_counter() - t0
        E0 = energy(sol.y[:, 0])
        err_int = max(abs(energy(sol.y[:, k]) - E0 - sol.y[2 * n, k])
                      for k in range(sol.y.shape[1]))
        Wmax = np.abs(sol.y[2 * n]).max()
        # instantaneous, at points of the trajectory: dE/dt = grad E . xdot (central
        # difference along the exact state derivative xdot = rhs(x), no integrator error)
        err_inst, Pmax = 0.0, 0.0
        hh = 1e-6
        for t in np.linspace(0.05, tf - 0.05, 9):
            x = sol.sol(t)
            xdot = rhs(t, x)
            xdot[2 * n] = 0.0
            dE = (energy(x + hh * xdot) - energy(x - hh * xdot)) / (2 * hh)
            P = x[n:2 * n] @ (arm_lagrange(N, s, params, x[:n], x[n:2 * n])["B"] @ tau)
            err_inst = max(err_inst, abs(dE - P))
            Pmax = max(Pmax, abs(P))
        print(f"  [5] power: {sol.y.shape[1]} steps in {tsim:.1f} s; "
              f"max |E(t)-E(0) - int qd.B tau| = {err_int:.2e} (max |work| {Wmax:.3f}); "
              f"max |dE/dt - qd.B tau| = {err_inst:.2e} (max |power| {Pmax:.3f})")

    # 4. rigid theta-theta block for N = 2 (EI huge, f = 0)
    N = 2
    n = N + N * s
    worst = 0.0
    for _ in range(20):
        params = _random_params(N, rng, EI=1e9)
        q = np.concatenate([rng.normal(size=N) * 2, np.zeros(N * s)])
        M = arm_lagrange(N, s, params, q, rng.normal(size=n))["M"]
        worst = max(worst, np.abs(M[:N, :N] - _rigid_two_link(params, q[1])).max())
    print(f"[4] N=2 rigid theta-theta block: max |M_tt - M_rigid| = {worst:.2e}")

    # B structure for N = 2 with sine modes: alpha_i = sum k pi f_ik / L_i,
    # beta_i = sum k pi cos(k pi) f_ik / L_i
    params = _random_params(N, rng)
    B = arm_lagrange(N, s, params, np.zeros(n), np.zeros(n))["B"]
    L1, L2 = params["L"]
    Bh = np.zeros((n, N))
    Bh[0, 0] = Bh[1, 1] = 1
    Bh[2:4, 0] = [np.pi / L1, 2 * np.pi / L1]
    Bh[2:4, 1] = [np.pi / L1, -2 * np.pi / L1]      # -beta_1 = -(k pi cos k pi)/L1
    Bh[4:6, 1] = [np.pi / L2, 2 * np.pi / L2]
    print(f"[6] N=2 B vs hand: max diff {np.abs(B - Bh).max():.2e}")
    if _USED_QUADRATURE:
        print(f"(Gauss-Legendre fallback used for {len(_USED_QUADRATURE)} integrals)")
    else:
        print("(all xi-integrals exact by sympy.integrate)")


if __name__ == "__main__":
    _self_checks()
