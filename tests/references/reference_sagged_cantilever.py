"""Reference: vibration of a planar cantilever (elastica) about its sagged equilibrium.

An independent reference for issue 15 (KED about the deflected equilibrium): the
frequencies of a cantilever with a tip mass under gravity about its geometrically exact
sagged shape. Checked by tests/references/test_reference_sagged_cantilever.py against closed forms
(the straight cantilever with a tip mass; the hanging massless rod with a tip mass) and
a second method (shooting on the frequency). Note for the tests built on it: with a
horizontal clamp the problem is symmetric under (y, g) -> (-y, -g), so the frequency
shift grows as g^2 (halving gravity quarters it); it is linear in g only for a tilted or
hanging clamp.

Standalone (numpy + scipy only).  SI units throughout: L [m], EI [N m^2],
mu [kg/m], m_tip [kg], J_tip [kg m^2], g [m/s^2], angles [rad], frequencies [Hz].

Model: inextensible, unshearable planar rod (Kirchhoff/Euler elastica), see
S. S. Antman, *Nonlinear Problems of Elasticity*, 2nd ed., Springer 2005, ch. 4
(special Cosserat rods; here with the constraints nu = 1, eta = 0).  Arc length
s in [0, L], tangent angle theta(s, t), position r = (x, y), r' = (cos th, sin th),
contact force n = (N_x, N_y) (exerted by (s, L] on [0, s]), moment m = EI th'.
Beam rotary inertia is neglected (Euler-Bernoulli).  Balance laws:

    n' - mu g e_y = mu r_tt,      EI th'' + cos(th) N_y - sin(th) N_x = 0,
    th(0) = theta0, r(0) = 0,     n(L) = -m_tip (r_tt(L) + g e_y),
    EI th'(L) = -J_tip th_tt(L).

Static state (Theta, X, Y):  N_x = 0,  N_y = P(s) = -g (m_tip + mu (L - s)), so
    EI Theta'' = g (m_tip + mu (L - s)) cos Theta,  Theta(0) = theta0, Theta'(L) = 0,
solved by shooting on Theta'(0) (DOP853, rtol 1e-13, brentq).

Linearisation: th = Theta + phi, r = R + (u, v), n = n0 + (p, q), all ~ e^{i w t}:
    u' = -sin(Theta) phi,   v' = cos(Theta) phi,   p' = -mu w^2 u,   q' = -mu w^2 v,
    EI phi'' - P sin(Theta) phi + cos(Theta) q - sin(Theta) p = 0,
    u(0) = v(0) = phi(0) = 0,  p(L) = m_tip w^2 u(L),  q(L) = m_tip w^2 v(L),
    EI phi'(L) = J_tip w^2 phi(L).
The term -P sin(Theta) phi is the geometric (prestress) stiffness of the static
contact force; the kinematic terms couple phi to horizontal *and* vertical
motion of every mass particle of the sagged shape (same operator as the second
variation of  V = 1/2 int EI th'^2 + gravity potential,  T = kinetic energy).
Eliminating u, v, p, q by integration gives one integro-differential problem

    -EI phi'' + P sinT phi = w^2 [ cosT (m_tip v(L) + mu int_s^L v)
                                  - sinT (m_tip u(L) + mu int_s^L u) ],
    u = -int_0^s sinT phi,  v = int_0^s cosT phi,

discretised by Chebyshev collocation (differentiation + spectral cumulative
integration matrices), giving A phi = w^2 B phi; solved as eig(A^-1 B).
For g = 0 it reduces to EI v'''' = mu w^2 v with the classic tip-mass BCs.
"""
import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import eigvals, solve
from scipy.optimize import brentq


def sagged_equilibrium(L, EI, mu, m_tip, g, theta0=0.0, n=201, s_eval=None, rtol=1e-13):
    """Exact (elastica) static shape of the cantilever under gravity.

    Returns dict with s [m], theta [rad], kappa = theta' [1/m], x, y [m]
    (clamp at origin), tip_deflection = -y(L) [m] (positive downward for a
    horizontal clamp), tip_x = x(L) [m], tip_angle = theta(L) [rad],
    kappa0 = theta'(0) [1/m].
    Evaluated at s_eval if given, else at n uniform points.  Shooting on
    theta'(0) with DOP853 (rtol, atol = rtol/10) and brentq; error ~1e-12.
    """
    c = g / EI

    def rhs(s, z):
        th, k = z[0], z[1]
        return [k, c * (m_tip + mu * (L - s)) * np.cos(th), np.cos(th), np.sin(th)]

    def shoot(k0, s_out=None):
        return solve_ivp(rhs, (0.0, L), [theta0, k0, 0.0, 0.0], method="DOP853",
                         rtol=rtol, atol=rtol * 0.1, t_eval=s_out)

    kmax = abs(c) * (m_tip * L + 0.5 * mu * L * L)  # |theta'(0)| <= kmax always
    F = lambda k0: shoot(k0).y[1, -1]              # residual theta'(L)
    f0 = F(0.0) if kmax > 0 else 0.0
    if f0 == 0.0:
        k0 = 0.0
    else:  # the root lies in [-kmax, kmax]; take it on the gravity side. In the linear
        # limit it is at the bound itself (theta'(0) = -kmax for a straight beam), where
        # F's sign is round-off: bracket out to 1.5 kmax, where F = -/+ 0.5 kmax clearly
        a, b = (-1.5 * kmax, 0.0) if f0 > 0 else (0.0, 1.5 * kmax)
        k0 = brentq(F, a, b, xtol=1e-15 * kmax, rtol=1e-15, maxiter=200)
    s = np.linspace(0.0, L, n) if s_eval is None else np.asarray(s_eval, float)
    y, end = shoot(k0, s).y, shoot(k0).y[:, -1]
    return dict(s=s, theta=y[0], kappa=y[1], x=y[2], y=y[3], kappa0=k0,
                tip_deflection=-end[3], tip_x=end[2], tip_angle=end[0])


def _cheb(N, L):
    """Chebyshev nodes s_j = L(1 - cos(pi j/N))/2 (s_0 = 0, s_N = L), d/ds matrix,
    and cumulative integration matrix Q0 with (Q0 f)(s) = int_0^s f ds."""
    xk = np.cos(np.pi * np.arange(N + 1) / N)
    cw = np.ones(N + 1); cw[0] = cw[-1] = 2.0
    cw *= (-1.0) ** np.arange(N + 1)
    dX = xk[:, None] - xk[None, :]
    D = np.outer(cw, 1.0 / cw) / (dX + np.eye(N + 1))
    D -= np.diag(D.sum(axis=1))
    s, Ds = 0.5 * L * (1.0 - xk), (-2.0 / L) * D
    Dt = Ds.copy(); Dt[0] = 0.0; Dt[0, 0] = 1.0      # F(0) = 0 replaces row 0
    Z = np.eye(N + 1); Z[0, 0] = 0.0
    return s, Ds, solve(Dt, Z)


def sagged_frequencies(L, EI, mu, m_tip, g, J_tip=0.0, theta0=0.0, count=4, N=48,
                       return_equilibrium=False):
    """First `count` natural frequencies [Hz] of small planar vibrations about the
    exact sagged equilibrium (module docstring for equations).  N = Chebyshev
    degree (N=48 gives ~1e-10 relative for the first 4 modes of typical cases).
    Requires a stable static state (A positive definite)."""
    s, Ds, Q0 = _cheb(N, L)
    eq = sagged_equilibrium(L, EI, mu, m_tip, g, theta0, s_eval=s)
    cT, sT = np.cos(eq["theta"]), np.sin(eq["theta"])
    P = -g * (m_tip + mu * (L - s))                  # static N_y(s) [N]
    QL = Q0[-1][None, :] - Q0                        # int_s^L
    V, U = Q0 * cT[None, :], -Q0 * sT[None, :]       # phi -> v, u
    one = np.ones(N + 1)
    Mv = m_tip * np.outer(one, V[-1]) + mu * QL @ V
    Mu = m_tip * np.outer(one, U[-1]) + mu * QL @ U
    B = cT[:, None] * Mv - sT[:, None] * Mu
    A = -EI * Ds @ Ds + np.diag(P * sT)
    A[0] = 0.0; A[0, 0] = 1.0; B[0] = 0.0            # phi(0) = 0
    A[-1] = EI * Ds[-1]; B[-1] = 0.0; B[-1, -1] = J_tip  # EI phi'(L) = J w^2 phi(L)
    ev = eigvals(solve(A, B))                        # ev = 1 / w^2
    ok = (np.abs(ev.imag) <= 1e-8 * np.abs(ev)) & (ev.real > 1e-13 * np.abs(ev).max())
    w2 = np.sort(1.0 / ev.real[ok])[:count]
    f = np.sqrt(w2) / (2.0 * np.pi)
    return (f, eq) if return_equilibrium else f


def straight_frequencies(L, EI, mu, m_tip, J_tip=0.0, theta0=0.0, count=4, N=48):
    """Frequencies [Hz] about the straight configuration (g = 0), collocation."""
    return sagged_frequencies(L, EI, mu, m_tip, 0.0, J_tip, theta0, count, N)


def shooting_frequency(L, EI, mu, m_tip, g, f_guess, J_tip=0.0, theta0=0.0, bracket=1e-3):
    """Independent second method: shooting on the frequency for the 6th-order
    first-order system (u, v, p, q, phi, phi') of the module docstring,
    integrated together with the static state (DOP853, rtol 1e-13) for the
    three unit starts p(0), q(0), phi'(0); root of det(BC residuals at s=L) in
    [f_guess(1-bracket), f_guess(1+bracket)].  Returns f [Hz]."""
    k0 = sagged_equilibrium(L, EI, mu, m_tip, g, theta0, n=2)["kappa0"]

    def det(w):
        w2 = w * w

        def rhs(s, z):
            T, P = z[0], -g * (m_tip + mu * (L - s))
            c, sn = np.cos(T), np.sin(T)
            u, v, p, q, f, df = z[2:].reshape(3, 6).T
            d = np.stack([-sn * f, c * f, -mu * w2 * u, -mu * w2 * v, df,
                          (P * sn * f - c * q + sn * p) / EI], axis=1)
            return np.concatenate([[z[1], -P / EI * c], d.ravel()])
        z0 = np.concatenate([[theta0, k0], np.eye(6)[[2, 3, 5]].ravel()])
        u, v, p, q, f, df = solve_ivp(rhs, (0.0, L), z0, method="DOP853", rtol=1e-13,
                                      atol=1e-16).y[2:, -1].reshape(3, 6).T
        return np.linalg.det(np.stack([p - m_tip * w2 * u, q - m_tip * w2 * v,
                                       EI * df - J_tip * w2 * f]))
    w = 2 * np.pi * f_guess
    return brentq(det, w * (1 - bracket), w * (1 + bracket), xtol=1e-14 * w) / (2 * np.pi)


def closed_form_frequencies(L, EI, mu, m_tip, count=4):
    """Classic cantilever with tip point mass (J_tip = 0), roots b of
    1 + cos bL cosh bL + (m_tip/(mu L)) bL (cos bL sinh bL - sin bL cosh bL) = 0
    (divided by cosh bL for conditioning); f = (bL)^2 sqrt(EI/(mu L^4)) / (2 pi)."""
    R = m_tip / (mu * L)
    h = lambda b: 1.0 / np.cosh(b) + np.cos(b) + R * b * (np.cos(b) * np.tanh(b) - np.sin(b))
    grid = np.linspace(1e-6, np.pi * (count + 2), 20000 * (count + 2))
    hv = h(grid)
    roots = [brentq(h, grid[i], grid[i + 1], xtol=1e-15, rtol=1e-15)
             for i in np.nonzero(np.sign(hv[:-1]) != np.sign(hv[1:]))[0][:count]]
    return np.array(roots) ** 2 * np.sqrt(EI / (mu * L ** 4)) / (2.0 * np.pi)


def example_parameters():
    """5 mm round steel rod, L = 0.4 m, 0.3 kg tip mass."""
    d = 0.005
    return dict(L=0.4, EI=200e9 * np.pi * d ** 4 / 64, mu=7850 * np.pi * d ** 2 / 4, m_tip=0.3)


def self_check(verbose=True):
    """Assert (a) g->0 / rotated straight beam vs closed form, (b) small-g tip
    deflection vs linear theory, (c) scaling of the frequency shift with g,
    (d) collocation convergence, (e) hanging massless rod + tip mass pendulum,
    (f) collocation vs shooting on the frequency.  Returns the measured values."""
    p = example_parameters(); L, EI, mu, m = p["L"], p["EI"], p["mu"], p["m_tip"]
    out = {}
    pr = print if verbose else (lambda *a, **k: None)
    # (a) g -> 0 and g = 0 at a rotated clamp (rigid rotation must not matter)
    fc = closed_form_frequencies(L, EI, mu, m, 4)
    for g, th0 in [(0.0, 0.0), (1e-6, 0.0), (0.0, 0.7)]:
        err = np.max(np.abs(sagged_frequencies(L, EI, mu, m, g, theta0=th0) / fc - 1))
        pr(f"(a) g={g:g}, theta0={th0}: max rel err vs closed form = {err:.2e}")
        assert err < 1e-6, err
    out["a"] = err
    # (b) tip deflection vs linear theory; relative error should be O((d/L)^2)
    e = []
    for g in (0.04, 0.02):
        lin = mu * g * L ** 4 / (8 * EI) + m * g * L ** 3 / (3 * EI)
        d = sagged_equilibrium(L, EI, mu, m, g)["tip_deflection"]
        e.append(abs(d / lin - 1)); c2 = e[-1] / (lin / L) ** 2
        pr(f"(b) g={g}: delta={d:.12e} m, linear={lin:.12e} m, rel err={e[-1]:.3e}"
           f" = {c2:.4f} (delta/L)^2")
        assert 0.05 < c2 < 2.0, c2
    pr(f"(b) rel-err ratio g/(g/2) = {e[0] / e[1]:.4f} (expect 4)")
    assert abs(e[0] / e[1] - 4) < 0.02
    out["b"] = e[0] / e[1]
    # (c) frequency-shift scaling: even in g for theta0 = 0 (mirror symmetry
    # y -> -y, g -> -g), so the shift is O(g^2): ratio 4.  For a tilted or
    # hanging clamp the axial prestress is O(g): ratio -> 2.
    for th0, g, expect, tol in [(0.0, 9.81, 4.0, 0.02), (-np.pi / 2, 0.2, 2.0, 0.01),
                                (np.pi / 6, 0.05, 2.0, 0.02)]:
        f0 = sagged_frequencies(L, EI, mu, m, 0.0, theta0=th0)
        r = (sagged_frequencies(L, EI, mu, m, g, theta0=th0) - f0) / (
            sagged_frequencies(L, EI, mu, m, g / 2, theta0=th0) - f0)
        pr(f"(c) theta0={th0:+.4f}, shift(g={g})/shift(g/2) per mode = {np.round(r, 4)}"
           f" (expect {expect})")
        assert np.all(np.abs(r / expect - 1) < tol), r
        out[f"c{th0:+.3f}"] = r
    # (d) collocation convergence
    fa = sagged_frequencies(L, EI, mu, m, 9.81, N=40)
    fb = sagged_frequencies(L, EI, mu, m, 9.81, N=64)
    err = np.max(np.abs(fa / fb - 1))
    pr(f"(d) N=40 vs N=64, sagged g=9.81: max rel diff = {err:.2e}")
    assert err < 1e-8, err
    out["d"] = err
    # (e) hanging (theta0 = -pi/2) massless rod + tip mass: exact lateral mode
    # w^2 = g / (L - tanh(kL)/k), k = sqrt(m g / EI); tests prestress + kinematics
    g = 9.81; k = np.sqrt(m * g / EI)
    fe = np.sqrt(g / (L - np.tanh(k * L) / k)) / (2 * np.pi)
    fn = sagged_frequencies(L, EI, 0.0, m, g, theta0=-np.pi / 2, count=1)[0]
    pr(f"(e) hanging massless rod + tip mass: {fn:.12f} Hz vs exact {fe:.12f} Hz,"
       f" rel err {abs(fn / fe - 1):.2e}")
    assert abs(fn / fe - 1) < 1e-9
    out["e"] = abs(fn / fe - 1)
    # (f) collocation vs independent frequency shooting (incl. J_tip, tilt)
    for g, th0, J in [(9.81, 0.0, 0.0), (9.81, np.pi / 6, 1e-3), (9.81, -np.pi / 2, 0.0)]:
        fc = sagged_frequencies(L, EI, mu, m, g, J_tip=J, theta0=th0)
        fs = np.array([shooting_frequency(L, EI, mu, m, g, f, J, th0) for f in fc])
        err = np.max(np.abs(fs / fc - 1))
        pr(f"(f) g={g}, theta0={th0:+.4f}, J_tip={J}: collocation vs shooting max rel"
           f" diff {err:.2e}")
        assert err < 1e-9, err
    out["f"] = err
    return out


if __name__ == "__main__":
    np.set_printoptions(precision=10)
    p = example_parameters()
    print(f"L={p['L']} m, EI={p['EI']:.10g} N m^2, mu={p['mu']:.10g} kg/m, m_tip={p['m_tip']} kg")
    print("closed form (g=0):       ", closed_form_frequencies(**p, count=4), "Hz")
    print("straight, collocation:   ", straight_frequencies(**p), "Hz")
    for g in (9.81, 4.905):
        f, eq = sagged_frequencies(**p, g=g, return_equilibrium=True)
        lin = p["mu"] * g * p["L"] ** 4 / (8 * p["EI"]) + p["m_tip"] * g * p["L"] ** 3 / (3 * p["EI"])
        print(f"g={g}: tip deflection {eq['tip_deflection']:.10e} m (linear {lin:.10e} m),"
              f" tip x {eq['tip_x']:.10f} m, tip angle {eq['tip_angle']:.10f} rad")
        print(f"g={g}: sagged freqs        ", f, "Hz")
        print(f"g={g}: f_sag/f_straight - 1", f / straight_frequencies(**p) - 1)
    self_check()
    print("all self-checks passed")
