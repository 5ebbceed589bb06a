"""Independent Lagrange reference for the spatial flexible arm (test oracle).

A *second, independent* derivation of the equations of motion of the "spatial flexible
arm", meant to check the recursive Newton-Euler formulation of ``elastodyn`` against.
It does NOT import anything from ``elastodyn.formulations``; from the library it only
uses the element shape functions (``BeamElement.shape``), the element stiffness matrix
(``stiffness_matrix``) and the material/section containers.

System
------
* Revolute joint q1 about the vertical world axis z0; frame F1 = Rz(q1).
* Uniform spatial beam of length L along x of F1, clamped at the origin of F1, meshed
  with n cubic spatial elements (node dofs u, v, w, rx, ry, rz; node 0 clamped). The
  elastic coordinates e are the 6n dofs of nodes 1..n (node 1's six, node 2's six, ...).
* Neutral-axis point at abscissa s: r(s) = (s + u(s), v(s), w(s)) in F1; torsion phi(s).
* Tip body at r(L), orientation R_p = Rz(q1) Rz(a) Ry(b) Rx(c) with (c, b, a) the (rx, ry,
  rz) dofs of node n; mass mp, first moment MSp (in Fp), inertia Ip_body about the
  origin of Fp (in Fp axes).
* Gravity g (world components), potential V = -m g . position.

Generalized coordinates x = [q1, e], velocities xd = [q1d, ed].

Method (exact symbolic differentiation, exact Gauss quadrature)
---------------------------------------------------------------
Energies, written literally in *world* coordinates (no frame shortcut):

* beam, translation: p(s) = Rz(q1) r(s) (world position), world velocity by the chain
  rule v(s) = sum_j dp/dx_j xd_j;  T_t = 1/2 rho A int |v(s)|^2 ds;
* beam, torsion: T_r = 1/2 rho I_p int (omega_x + phi_dot(s))^2 ds with
  omega = Rz(q1)^T omega_world the angular velocity of F1 in F1 components, omega_world
  extracted from skew(omega_world) = dRz/dt Rz^T (it comes out as (0, 0, q1d));
* beam, gravity: V_b = -rho A int g . p(s) ds;
* the integrals over s use 5 Gauss-Legendre points per element (exact: the integrands
  are polynomials in s of degree <= 6);
* elastic: U = 1/2 e^T K e with K the assembled element stiffness matrices (node 0's
  dofs removed); its contribution to the equations, dU/de = K e, is added numerically;
* tip body: origin p_O = Rz(q1) r(L), v_O = sum_j dp_O/dx_j xd_j, R_p as above,
  Rp_dot = sum_j dR_p/dx_j xd_j, skew(omega_p) = Rp_dot R_p^T (antisymmetric part),
  T_p = 1/2 mp |v_O|^2 + v_O . (omega_p x (R_p MSp)) + 1/2 omega_p^T R_p Ip R_p^T omega_p
  (the last product evaluated as 1/2 (R_p^T omega_p)^T Ip (R_p^T omega_p)),
  V_p = -g . (mp p_O + R_p MSp).

Lagrange equations d/dt(dT/dxd) - dT/dx + dV/dx = Q, with T quadratic in xd:

    M = d^2 T / dxd^2,
    c_i = sum_j d(dT/dxd_i)/dx_j xd_j - dT/dx_i + dV/dx_i      (+ (K e)_i for i >= 1),

so that M xdd + c = Q = [tau1, 0, ..., 0].

Symbolic representation: T and V are sparse multivariate polynomials (sympy ``ring``)
in sin and cos of the four angles (q1 and the three tip rotations), e, ed, q1d and the
physical parameters (rho A, rho I_p, mp, MSp, Ip_body, g). Derivatives with respect to an
angle t use df/dt = cos t df/d(sin t) - sin t df/d(cos t); a tip rotation dof enters both
polynomially (through the beam shape functions) and through its sin/cos, and both parts
are differentiated. Results are reduced modulo sin^2 + cos^2 - 1 (a Groebner basis, so
the reduced form is canonical). The symbolic build depends only on (n, L) and takes
~0.1 s; the polynomials are then evaluated numerically from a monomial table (~0.2 ms
per call). Cached per (n, L).

API
---
``spatial_arm_lagrange(q1, e, q1d, ed, *, L, section, material, n, mp, MSp, Ip_body, g)``
    -> {"M": (1+6n, 1+6n), "c": (1+6n,)}
``spatial_arm_energy(q1, e, q1d, ed, *, same keywords)``
    -> {"T": kinetic energy, "V": gravity potential, "U": elastic energy}

Run ``python tests/references/reference_spatial_arm_lagrange.py`` for the self-checks.
"""
from __future__ import annotations

import time

import numpy as np
from sympy.polys.domains import RR
from sympy.polys.orderings import lex
from sympy.polys.rings import ring

from elastodyn.fem.elements import BeamElement, stiffness_matrix
from elastodyn.fem.shapes import gauss_legendre_01

__all__ = ["spatial_arm_energy", "spatial_arm_lagrange", "stiffness_ee"]

N_GAUSS = 5  # exact for degree <= 9 (integrands have degree <= 6)
_ELEMENT = BeamElement(spatial=True, order="cubic")
_CACHE: dict = {}

# --------------------------------------------------------------------------------------
# Symbolic machinery: sparse polynomials (sympy rings) in the generators
#   S_t, C_t (sine and cosine of each angle t: q1 and the three tip rotations),
#   e_j, ed_j, q1d, and the physical parameters.
# A function f(sin t, cos t) is differentiated with respect to the angle t by
#   df/dt = C_t df/dS_t - S_t df/dC_t,
# and every result is reduced to its canonical form modulo S_t^2 + C_t^2 - 1 (the four
# relations have pairwise coprime leading terms S_t^2 in lex order, so they are a
# Groebner basis and the remainder is unique): trigonometric identities cancel exactly.
# --------------------------------------------------------------------------------------
_PARAM_NAMES = ("rhoA", "rhoIp", "mp", "MS0", "MS1", "MS2",
                "I00", "I11", "I22", "I01", "I02", "I12", "g0", "g1", "g2")


class _Sys:
    """Ring, generators and differentiation operators for n elements."""

    def __init__(self, n: int):
        self.n = n
        ne = 6 * n
        angles = ("q1", "c", "b", "a")  # q1; tip rx (c), ry (b), rz (a) dofs of node n
        names = ([f"S_{t}" for t in angles] + [f"C_{t}" for t in angles]
                 + [f"e{j}" for j in range(ne)] + ["q1d"] + [f"ed{j}" for j in range(ne)]
                 + list(_PARAM_NAMES))
        self.R, *gens = ring(names, RR, lex)
        self.names = names
        g = dict(zip(names, gens))
        self.g = g
        self.S = {t: g[f"S_{t}"] for t in angles}
        self.C = {t: g[f"C_{t}"] for t in angles}
        self.e = [g[f"e{j}"] for j in range(ne)]
        self.ed = [g[f"ed{j}"] for j in range(ne)]
        self.q1d = g["q1d"]
        self.nx = 1 + ne
        self.xd = [self.q1d] + self.ed
        base = 6 * (n - 1)
        # coordinate index (in x = [q1, e]) -> angle name, for the angle coordinates
        self.angle_of = {0: "q1", 1 + base + 3: "c", 1 + base + 4: "b", 1 + base + 5: "a"}
        self.trig = [self.S[t] ** 2 + self.C[t] ** 2 - 1 for t in angles]

    def reduce(self, f):
        return f.rem(self.trig)

    def dx(self, f, i):
        """Partial derivative with respect to coordinate x_i (x = [q1, e])."""
        out = self.R.zero if i == 0 else f.diff(self.e[i - 1])
        t = self.angle_of.get(i)
        if t is not None:
            out = out + self.C[t] * f.diff(self.S[t]) - self.S[t] * f.diff(self.C[t])
        return out

    def ddt(self, f):
        """Total time derivative of f (chain rule over the coordinates)."""
        return sum((self.dx(f, i) * self.xd[i] for i in range(self.nx)), self.R.zero)

    def rot(self, axis, t):
        c, s, one, z = self.C[t], self.S[t], self.R.one, self.R.zero
        if axis == "x":
            return [[one, z, z], [z, c, -s], [z, s, c]]
        if axis == "y":
            return [[c, z, s], [z, one, z], [-s, z, c]]
        return [[c, -s, z], [s, c, z], [z, z, one]]


def _mm(A, B):
    return [[sum((A[i][k] * B[k][j] for k in range(3)), A[0][0].ring.zero)
             for j in range(3)] for i in range(3)]


def _mv(A, v):
    return [sum((A[i][k] * v[k] for k in range(3)), A[0][0].ring.zero) for i in range(3)]


def _tr(A):
    return [[A[j][i] for j in range(3)] for i in range(3)]


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _vee(W):
    """Vector of the antisymmetric part of a 3x3 matrix (skew(w) -> w)."""
    return [(W[2][1] - W[1][2]) * 0.5, (W[0][2] - W[2][0]) * 0.5, (W[1][0] - W[0][1]) * 0.5]


def _element_rows(field, xi, le, k, n):
    """Row vector (over e) of a field at local xi of element k (node 0's dofs dropped)."""
    row = _ELEMENT.shape(field, np.array([xi]), le)[0]  # over the 12 element dofs
    full = np.zeros(6 * (n + 1))
    full[6 * k:6 * k + 12] = row
    return full[6:]


def _lin(sysm, coeffs, gens, const=0.0):
    out = sysm.R(float(const))
    for a, x in zip(coeffs, gens):
        if a != 0.0:
            out = out + float(a) * x
    return out


class _PolyEval:
    """Fast numerical evaluation of a list of ring polynomials (shared monomial table)."""

    def __init__(self, polys, shape):
        exps, coefs, rows = [], [], []
        for k, p in enumerate(polys):
            for m, c in p.terms():
                exps.append(m)
                coefs.append(float(c))
                rows.append(k)
        ng = len(polys[0].ring.gens)
        self.exps = np.array(exps, dtype=np.int64).reshape(-1, ng)
        self.used = np.flatnonzero(self.exps.any(axis=0))
        self.exps = self.exps[:, self.used]
        self.coefs = np.array(coefs)
        self.rows = np.array(rows, dtype=np.int64)
        self.size = len(polys)
        self.shape = shape
        self.maxpow = int(self.exps.max()) if self.exps.size else 0

    def __call__(self, vals):
        v = np.asarray(vals, float)[self.used]
        # table of powers v^p, p = 0..maxpow, then the product over generators
        pw = v[None, :] ** np.arange(self.maxpow + 1)[:, None]  # (maxpow+1, nused)
        terms = self.coefs * np.prod(pw[self.exps, np.arange(self.used.size)], axis=1)
        out = np.bincount(self.rows, weights=terms, minlength=self.size)
        return out.reshape(self.shape)


def _build(n: int, L: float):
    key = (int(n), float(L))
    if key in _CACHE:
        return _CACHE[key]
    t0 = time.perf_counter()
    Y = _Sys(n)
    R, g = Y.R, Y.g
    le = L / n
    rhoA, rhoIp, mp = g["rhoA"], g["rhoIp"], g["mp"]
    MS = [g["MS0"], g["MS1"], g["MS2"]]
    Ib = [[g["I00"], g["I01"], g["I02"]], [g["I01"], g["I11"], g["I12"]],
          [g["I02"], g["I12"], g["I22"]]]
    gv = [g["g0"], g["g1"], g["g2"]]

    def ddt_vec(v):
        return [Y.reduce(Y.ddt(a)) for a in v]

    R1 = Y.rot("z", "q1")
    # angular velocity of F1: world components from skew(w) = R1_dot R1^T, then F1 comps.
    R1dot = [ddt_vec(row) for row in R1]
    om_world = [Y.reduce(a) for a in _vee(_mm(R1dot, _tr(R1)))]
    om_f1 = [Y.reduce(a) for a in _mv(_tr(R1), om_world)]  # = (0, 0, q1d)

    xg, wg = gauss_legendre_01(N_GAUSS)
    T = R.zero
    V = R.zero
    for k in range(n):
        for xi, w in zip(xg, wg):
            s = (k + float(xi)) * le
            ws = float(w) * le  # quadrature weight in s
            rows = {f: _element_rows(f, float(xi), le, k, n) for f in ("u", "v", "w", "phi")}
            r = [_lin(Y, rows["u"], Y.e, s), _lin(Y, rows["v"], Y.e), _lin(Y, rows["w"], Y.e)]
            phid = _lin(Y, rows["phi"], Y.ed)
            p = _mv(R1, r)  # world position of the axis point
            v = ddt_vec(p)  # world velocity (chain rule)
            T += (0.5 * ws) * rhoA * _dot(v, v)
            T += (0.5 * ws) * rhoIp * (om_f1[0] + phid) ** 2
            V += -ws * rhoA * _dot(gv, p)

    # tip body
    base = 6 * (n - 1)  # node n's dofs in e
    uL, vL, wL = Y.e[base:base + 3]
    pO = _mv(R1, [R(float(L)) + uL, vL, wL])
    vO = ddt_vec(pO)
    Rp = _mm(_mm(_mm(R1, Y.rot("z", "a")), Y.rot("y", "b")), Y.rot("x", "c"))
    Rp = [[Y.reduce(a) for a in row] for row in Rp]
    Rpdot = [ddt_vec(row) for row in Rp]
    omp = [Y.reduce(a) for a in _vee(_mm(Rpdot, _tr(Rp)))]
    RMS = [Y.reduce(a) for a in _mv(Rp, MS)]
    T += 0.5 * mp * _dot(vO, vO)
    T += _dot(vO, _cross(omp, RMS))
    # 1/2 omega^T (Rp Ib Rp^T) omega, evaluated as 1/2 (Rp^T omega)^T Ib (Rp^T omega)
    omb = [Y.reduce(a) for a in _mv(_tr(Rp), omp)]
    T += 0.5 * _dot(omb, _mv(Ib, omb))
    V += -_dot(gv, [mp * pO[i] + RMS[i] for i in range(3)])
    T = Y.reduce(T)
    V = Y.reduce(V)
    t1 = time.perf_counter()

    # Lagrange equations
    nx = Y.nx
    pgen = [T.diff(a) for a in Y.xd]  # dT/dxd_i
    Mm = [pgen[i].diff(Y.xd[j]) for i in range(nx) for j in range(nx)]
    c = [Y.reduce(Y.ddt(pgen[i]) - Y.dx(T, i) + Y.dx(V, i)) for i in range(nx)]
    out = {"M": _PolyEval(Mm, (nx, nx)), "c": _PolyEval(c, (nx,)),
           "E": _PolyEval([T, V], (2,)), "nx": nx, "names": Y.names,
           "build_s": time.perf_counter() - t0, "energy_s": t1 - t0}
    _CACHE[key] = out
    return out


def stiffness_ee(L, section, material, n):
    """Assembled elastic stiffness over e (node 0's six dofs removed), (6n, 6n)."""
    le = L / n
    ke = stiffness_matrix(_ELEMENT, le, section, material)
    K = np.zeros((6 * (n + 1), 6 * (n + 1)))
    for k in range(n):
        K[6 * k:6 * k + 12, 6 * k:6 * k + 12] += ke
    return K[6:, 6:]


def _args(q1, e, q1d, ed, section, material, n, mp, MSp, Ip_body, g):
    """Values of the ring generators (same order as _Sys.names)."""
    e = np.asarray(e, float).reshape(6 * n)
    ed = np.asarray(ed, float).reshape(6 * n)
    MSp = np.asarray(MSp, float).reshape(3)
    Ib = np.asarray(Ip_body, float).reshape(3, 3)
    Ib = 0.5 * (Ib + Ib.T)  # only the symmetric part enters the kinetic energy
    g = np.asarray(g, float).reshape(3)
    base = 6 * (n - 1)
    ang = np.array([float(q1), e[base + 3], e[base + 4], e[base + 5]])  # q1, c, b, a
    prm = [material.rho * section.area, material.rho * section.ip, float(mp), *MSp,
           Ib[0, 0], Ib[1, 1], Ib[2, 2], Ib[0, 1], Ib[0, 2], Ib[1, 2], *g]
    return np.r_[np.sin(ang), np.cos(ang), e, float(q1d), ed, prm], e


def spatial_arm_lagrange(q1, e, q1d, ed, *, L, section, material, n, mp, MSp, Ip_body, g):
    """Mass matrix and remaining forces of the spatial flexible arm (Lagrange).

    Parameters
    ----------
    q1, q1d : float
        Joint angle [rad] and rate [rad/s].
    e, ed : array_like, shape (6n,)
        Elastic coordinates (dofs u, v, w, rx, ry, rz of nodes 1..n) and their rates.
    L : float
        Beam length [m].
    section, material : Section, Material
    n : int
        Number of cubic spatial elements.
    mp : float
        Tip body mass [kg].
    MSp : array_like, shape (3,)
        Tip body first moment in Fp [kg m].
    Ip_body : array_like, shape (3, 3)
        Tip body inertia about the origin of Fp, Fp axes [kg m^2].
    g : array_like, shape (3,)
        Gravitational acceleration, world components [m/s^2].

    Returns
    -------
    dict with "M" (1+6n, 1+6n) and "c" (1+6n,): M xdd + c = [tau1, 0, ..., 0].
    """
    fn = _build(n, L)
    args, ev = _args(q1, e, q1d, ed, section, material, n, mp, MSp, Ip_body, g)
    M = fn["M"](args)
    c = fn["c"](args)
    c[1:] += stiffness_ee(L, section, material, n) @ ev
    return {"M": M, "c": c}


def spatial_arm_energy(q1, e, q1d, ed, *, L, section, material, n, mp, MSp, Ip_body, g):
    """Kinetic energy T, gravity potential V and elastic energy U [J] (same inputs)."""
    fn = _build(n, L)
    args, ev = _args(q1, e, q1d, ed, section, material, n, mp, MSp, Ip_body, g)
    T, V = fn["E"](args)
    U = 0.5 * ev @ stiffness_ee(L, section, material, n) @ ev
    return {"T": float(T), "V": float(V), "U": float(U)}


# --------------------------------------------------------------------------------------
# Self-checks
# --------------------------------------------------------------------------------------
def _np_rot(axis, t):
    c, s = np.cos(t), np.sin(t)
    return {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
            "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]


def _energy_numpy(x, xd, *, L, section, material, n, mp, MSp, Ip_body, g, dt=1e-6):
    """T, V, U in plain numpy; velocities by central differences along x + t xd."""
    le = L / n
    xg, wg = gauss_legendre_01(N_GAUSS)
    rA, rIp = material.rho * section.area, material.rho * section.ip
    g = np.asarray(g, float)
    MSp = np.asarray(MSp, float)
    Ib = np.asarray(Ip_body, float)

    def geom(xx):
        q1, e = xx[0], xx[1:]
        R1 = _np_rot("z", q1)
        pts, phis = [], []
        for k in range(n):
            for xi in xg:
                sh = {f: _element_rows(f, float(xi), le, k, n) for f in ("u", "v", "w", "phi")}
                r = np.array([(k + xi) * le + sh["u"] @ e, sh["v"] @ e, sh["w"] @ e])
                pts.append(R1 @ r)
                phis.append(sh["phi"] @ e)
        b = 6 * (n - 1)
        pO = R1 @ np.array([L + e[b], e[b + 1], e[b + 2]])
        Rp = R1 @ _np_rot("z", e[b + 5]) @ _np_rot("y", e[b + 4]) @ _np_rot("x", e[b + 3])
        return np.array(pts), np.array(phis), pO, Rp, R1

    P, _, pO, Rp, R1 = geom(x)
    Pp, PHp, pOp, Rpp, R1p = geom(x + dt * xd)
    Pm, PHm, pOm, Rpm, R1m = geom(x - dt * xd)
    v = (Pp - Pm) / (2 * dt)
    phid = (PHp - PHm) / (2 * dt)
    W1 = (R1p - R1m) / (2 * dt) @ R1.T
    om1 = R1.T @ np.array([W1[2, 1], W1[0, 2], W1[1, 0]])  # F1 components
    w = np.tile(np.asarray(wg) * le, n)
    T = 0.5 * rA * w @ np.einsum("gi,gi->g", v, v) + 0.5 * rIp * w @ (om1[0] + phid) ** 2
    V = -rA * w @ (P @ g)
    vO = (pOp - pOm) / (2 * dt)
    Wp = (Rpp - Rpm) / (2 * dt) @ Rp.T
    Wp = 0.5 * (Wp - Wp.T)
    om = np.array([Wp[2, 1], Wp[0, 2], Wp[1, 0]])
    T += 0.5 * mp * vO @ vO + vO @ np.cross(om, Rp @ MSp) + 0.5 * om @ Rp @ Ib @ Rp.T @ om
    V += -g @ (mp * pO + Rp @ MSp)
    U = 0.5 * x[1:] @ stiffness_ee(L, section, material, n) @ x[1:]
    return {"T": T, "V": V, "U": U}


def _self_checks(n=1):
    from elastodyn.analysis.modal import beam_modes
    from elastodyn.description.materials import Material, Section
    from elastodyn.fem.assembly import Link, PointMass

    sec = Section.rectangle(4e-3, 2e-3)
    mat = Material(E=70e9, G=26e9, rho=2800.0)
    L = 0.5
    rng = np.random.default_rng(1)
    mp, cg = 0.3, np.array([0.03, -0.012, 0.018])  # tip mass and centre of mass in Fp
    Ic = np.array([[2e-4, 1e-5, -2e-5], [1e-5, 3e-4, 3e-5], [-2e-5, 3e-5, 4e-4]])
    Io = Ic + mp * (cg @ cg * np.eye(3) - np.outer(cg, cg))  # about the origin of Fp
    kw = {"L": L, "section": sec, "material": mat, "n": n, "mp": mp, "MSp": mp * cg,
          "Ip_body": Io, "g": np.array([0.0, 0.0, -9.81])}
    ne = 6 * n
    t0 = time.perf_counter()
    q1, e = 0.7, 1e-2 * rng.standard_normal(ne)
    e[ne - 3:] = [0.4, -0.3, 0.5]  # finite tip rotations (rx, ry, rz of node n)
    q1d, ed = 1.3, 0.3 * rng.standard_normal(ne)
    r = spatial_arm_lagrange(q1, e, q1d, ed, **kw)
    t1 = time.perf_counter()
    r = spatial_arm_lagrange(q1, e, q1d, ed, **kw)
    t2 = time.perf_counter()
    print(f"n={n}: first call (build) {t1 - t0:.2f} s, cached call {1e3 * (t2 - t1):.2f} ms")
    M = r["M"]
    print("  symmetry |M-M^T|/|M| =", np.abs(M - M.T).max() / np.abs(M).max(),
          " min eig(M) =", np.linalg.eigvalsh(M).min())
    z = np.zeros(ne)
    c0 = spatial_arm_lagrange(0.3, z, 0.0, z, **{**kw, "g": np.zeros(3)})["c"]
    print("  |c| at rest, e=0, g=0:", np.abs(c0).max())

    # finite-difference Lagrange on the (separately lambdified) energies:
    # c_i = sum_j d2T/dxd_i dx_j xd_j - dT/dx_i + d(V+U)/dx_i,  M_ij = d2T/dxd_i dxd_j
    def en(x, xd):
        d = spatial_arm_energy(x[0], x[1:], xd[0], xd[1:], **kw)
        return d["T"], d["V"] + d["U"]

    x = np.r_[q1, e]
    xd = np.r_[q1d, ed]
    nx = 1 + ne
    I = np.eye(nx)
    hv = 1.0  # T is quadratic in xd: central differences in xd are exact (up to round-off)
    h = 1e-6

    def dT_dxd(x, xd):
        return np.array([(en(x, xd + hv * a)[0] - en(x, xd - hv * a)[0]) / (2 * hv)
                         for a in I])

    Mfd = np.array([(dT_dxd(x, xd + hv * a) - dT_dxd(x, xd - hv * a)) / (2 * hv) for a in I])

    def lag(x, xd):
        T, VU = en(x, xd)
        return T - VU

    dLdx = np.array([(lag(x + h * a, xd) - lag(x - h * a, xd)) / (2 * h) for a in I])
    mix = (dT_dxd(x + h * xd, xd) - dT_dxd(x - h * xd, xd)) / (2 * h)
    cfd = mix - dLdx
    print("  FD check: max|M-Mfd|/max|M| =", np.abs(M - Mfd).max() / np.abs(M).max(),
          " max|c-cfd|/max|c| =", np.abs(r["c"] - cfd).max() / np.abs(r["c"]).max())

    # plain-numpy energies (rotation matrices from numpy, velocities by central
    # differences in time) vs. the polynomial energies: checks the trig reduction and
    # the generator bookkeeping of the symbolic build
    en_np = _energy_numpy(x, xd, **kw)
    en_sy = spatial_arm_energy(x[0], x[1:], xd[0], xd[1:], **kw)
    print("  numpy energies T, V, U:", en_np, " rel. diffs:",
          [abs(en_np[k] - en_sy[k]) / abs(en_sy[k]) for k in ("T", "V", "U")])

    # power balance: with xdd = M^-1 (Q - c), d(T+V+U)/dt = dE/dx . xd + dE/dxd . xdd = xd . Q
    Q = np.r_[0.37, np.zeros(ne)]
    xdd = np.linalg.solve(M, Q - r["c"])

    def Etot(x, xd):
        return sum(en(x, xd))

    dE = ((Etot(x + h * xd, xd) - Etot(x - h * xd, xd)) / (2 * h)
          + (Etot(x, xd + hv * xdd / np.abs(xdd).max())
             - Etot(x, xd - hv * xdd / np.abs(xdd).max())) / (2 * hv) * np.abs(xdd).max())
    print(f"  power balance: dE/dt = {dE:.9e}, xd.Q = {xd @ Q:.9e}")

    # rigid configuration (e = 0): joint inertia about z0,
    # rho A L^3/3 + Io_zz + mp L^2 + 2 L MS_x
    rA = mat.rho * sec.area
    MS = kw["MSp"]
    kw0 = {**kw, "g": np.zeros(3)}
    M11 = spatial_arm_lagrange(0.4, z, 0.0, z, **kw0)["M"][0, 0]
    ref11 = rA * L**3 / 3 + kw["Ip_body"][2, 2] + mp * L**2 + 2 * L * MS[0]
    print(f"  rigid joint inertia: {M11:.15e} vs {ref11:.15e}")
    # steady spin w at e = 0: c_e = -dT/de; tip axial dof: -w^2 (rho A int s N_u + mp L + MS_x)
    # (int s N_u ds = L^2/3 for n = 1; any n: sum of the element moments), tip rz dof
    # (angle a): T_tip ~ w^2 L (MS_x cos a - MS_y sin a) -> c_a = w^2 L MS_y
    w = 2.0
    cw = spatial_arm_lagrange(0.4, z, w, z, **kw0)["c"]
    b = ne - 5  # index in x of node n's u dof
    ints = sum(sum(float(wq) * le_ * ((k + float(xq)) * le_)
                   * _element_rows("u", float(xq), le_, k, n)[ne - 6]
                   for xq, wq in zip(*gauss_legendre_01(N_GAUSS)))
               for le_ in [L / n] for k in range(n))
    print(f"  spin: c_u(tip) = {cw[b]:.15e} vs {-w**2 * (rA * ints + mp * L + MS[0]):.15e};"
          f" c_rz(tip) = {cw[b + 5]:.15e} vs {w**2 * L * MS[1]:.15e}")
    # gravity, point mass, e = 0: c_e = -Link.gravity_load(g in F1), c_q1 = dV/dq1
    q1g, gw = 0.7, np.array([1.0, 2.0, -9.81])
    kwg = {**kw, "MSp": np.zeros(3), "Ip_body": np.zeros((3, 3)), "g": gw}
    cg = spatial_arm_lagrange(q1g, z, 0.0, z, **kwg)["c"]
    linkg = Link(BeamElement(True, "cubic"), L, n, sec, mat, ends="clamped-free",
                 point_masses=(PointMass(-1, mp),))
    G = linkg.gravity_load(_np_rot("z", q1g).T @ gw)[6:]
    dV = -(rA * L**2 / 2 + mp * L) * gw @ np.array([-np.sin(q1g), np.cos(q1g), 0.0])
    print("  gravity: max|c_e + G_link| =", np.abs(cg[1:] + G).max(), "(|G| =",
          np.abs(G).max(), ");  c_q1 =", cg[0], "vs", dV)

    # frequencies with a point mass at q1 = 0
    kwp = {**kw, "MSp": np.zeros(3), "Ip_body": np.zeros((3, 3)), "g": np.zeros(3)}
    Mp = spatial_arm_lagrange(0.0, z, 0.0, z, **kwp)["M"][1:, 1:]
    K = stiffness_ee(L, sec, mat, n)
    import scipy.linalg as sla
    om = np.sqrt(np.sort(sla.eigh(K, Mp, eigvals_only=True)))
    link = Link(BeamElement(True, "cubic"), L, n, sec, mat, ends="clamped-free",
                point_masses=(PointMass(-1, kw["mp"]),))
    ref = beam_modes(link, count=ne).omega_rad_s
    print("  omega (rad/s):", om)
    print("  max rel. diff vs beam_modes:", np.max(np.abs(om - ref) / ref))
    Ml = link.mass().toarray()[6:, 6:]
    print("  max|M_ee - Link.mass|/max|M_ee| =", np.abs(Mp - Ml).max() / np.abs(Ml).max(),
          "(the lowest eigenvalue is sensitive to 1e-16 relative noise at the ~1e-9 level:",
          "lambda_max / lambda_min ~ 1e8 for n = 2)")


if __name__ == "__main__":
    _self_checks(1)
    _self_checks(2)
