"""Symbolic generator of the dynamics of planar flexible arms by assumed modes and the
Lagrange equations (Yu & Chen 2019, sections 2-3), on the symbolic core.

Model (:class:`~elastodyn.description.arm.PlanarArm`). Link i has a floating frame
through its start and end points (eq. 1). Its absolute chord angle is
phi_i = theta_1 + ... + theta_i, with unit vectors e_i = (cos phi_i, sin phi_i) and
n_i = (-sin phi_i, cos phi_i). Its end point p_i = p_{i-1} + L_i e_i is the frame origin.
A point of the link at x = L (xi - 1) (xi in [0, 1] from the root; x in [-L, 0] as in
Yu) is at P = p_i + x e_i + y n_i, with y = sum_k phi_k(xi) f_ik (eqs. 2-4).

Pseudo-inertia (Yu eqs. 16-19, 27-28) in rotation-invariant form. J_u = int r r^T dm
with r = (x, y, 1), for the line mass m and the lumped masses M_j at xi_j = 1 + mu_j
(eq. 17; Yu has one per link, here any number, and the payload is one more on the last
link), enters through its moments (sums over j):

    s = (int x dm, int y dm) = (-m L / 2 + sum M_j mu_j L, b^T f)      (J_u column 3)
    I_r = int (x^2 + y^2) dm = m L^2 / 3 + sum M_j mu_j^2 L^2 + f^T Phi f + J_t
    a = d(int x y dm)/df = m L alpha + sum M_j mu_j L phi(xi_j) + sum J c (dJ_u/df, eq. 28)
    b = m beta + sum M_j phi(xi_j),   Phi = m Gamma + sum M_j phi(xi_j) phi(xi_j)^T

Here alpha = int (xi - 1) phi dxi, beta = int phi dxi and Gamma = int phi phi^T dxi
(dimensionless). J_v = int r r_dot^T dm has one column, (a^T f_d, f^T Phi f_d, b^T f_d)
(eqs. 18-19). J_w = int r_dot r_dot^T dm is f_d^T Phi f_d.

Rotary inertias (an extension of Yu: :mod:`elastodyn.description.arm`). A body of rotary
inertia J at xi (a lumped mass, the hub at xi = 0, the payload at xi = 1) turns with
the section, phi_i + dy/dx, and adds 1/2 J (omega_i + c^T f_d)^2 to the kinetic energy,
with c = phi'(xi) / L [1/m]. This is a constant quadratic form of the rates: it adds
J_t = sum J to I_r (every M[theta_m, theta_j], m, j <= i), sum J c to a (M[theta_m, f_i])
and sum J c c^T to M[f_i, f_i], and nothing to H or N. A rotary inertia that is zero in
the description generates no term, so Yu's arms keep their operation counts.

With d_im = p_i - p_{m-1} (joint m to the end of link i, m <= i), w_ij = p_i_dot -
p_{j-1}_dot, omega_i = phi_i_dot and R s = s_x e_i + s_y n_i, every link i adds to:

* M[theta_m, theta_j] (eq. 34): m_t d_m . d_j + (d_m + d_j) . R s + I_r, where
  m_t = m + sum M_j;
* M[theta_m, f_ik] (eqs. 35-36): b_k (d_m . e_i) + a_k;
* M[f_ik, f_il] (eq. 37): Phi_kl (+ sum J c_k c_l), which includes the lumped masses
  (Yu's eq. 37 keeps only m/2: a sine mode vanishes at mu = 0, where his masses sit);
* H, the Coriolis matrix with H q_dot the velocity forces (eqs. 38-40), H = int J^T J_dot dm
  (J = dP/dq)::

    H[theta_m, theta_j] = d_m . (m_t w_j + omega S R s + n_i b^T f_d) + R s . w_j
                          + f^T Phi f_d,
    H[theta_m, f_il] = omega (b_l (d_m . n_i) + (Phi f)_l),
    H[f_ik, theta_j] = b_k (e_i . w_j) - omega (Phi f)_k,
    H[f, f] = 0 (Yu: no f_dot f_dot coupling), with S the rotation by +90 degrees;
* N (gravity g along -y0, eqs. 20, 41, 43; elastic, eqs. 21, 42):
  N[theta_m] = g (m_t d_m + R s)_x, N[f_ik] = g b_k (e_i)_x + (K f)_ik, where
  K = E I / L^3 int phi'' phi''^T dxi.

These are the Lagrange equations of Yu's kinetic energy (eq. 15), exactly. Gravity acts
on the deflected link too: Yu neglects it for the link's own mass (eq. 20) and keeps it
for the lumped mass (eq. 43). We keep both, so that the model is one Lagrangian system
(energy is conserved, tested).

Generalized forces (eqs. 29-32). Motor i turns link i relative to link i - 1 by
theta_i + y_i'(root) - y_{i-1}'(tip), so F = B tau with B[theta_i, i] = 1,
B[f_ik, i] = phi_k'(0) / L_i and B[f_{i-1,k}, i] = -phi_k'(1) / L_{i-1}. Yu's appendix
(A.9) has the opposite sign on tau_2 in link 1's rows, i.e. the reaction of motor 2 on
link 1 taken as +tau_2. Decision: the reaction is -tau_2 (action-reaction, virtual work
of eq. 29); tested by the power balance.
"""
from __future__ import annotations

import re

import sympy as sp

from ...description.arm import PlanarArm
from ...exceptions import InputError
from ...fem.assumed_modes import ModeShapes
from ...symbolic.complex_eval import number
from ...symbolic.core import Program, Recorder, Timer

__all__ = ["ModeShapes", "generate_amm", "AMMSymbols"]


class AMMSymbols:
    """Symbols of an arm model: theta, f (link by link), their rates, tau, and the
    parameters, symbols when ``symbolic`` (listed in :attr:`params`, the input ``p``) or
    sympy numbers.

    Parameters per link i (1-based): L{i}, m{i}, EI{i}; then per lumped mass j of the
    link (:attr:`ArmLink.lumped_masses`; suffix i for the first, i_j for the j-th,
    j >= 2) M, mu and, if its rotary inertia is not 0 in the description, J (M1, mu1,
    J1, M1_2, mu1_2, ...); then Jh{i} if the hub inertia is not 0. Then the payload Mp and,
    if its inertia is not 0, Jp; last g. An arm of one point mass per link (Yu's) has
    L, m, EI, M, mu per link and g, as in Yu's tool. A rotary inertia that is 0 in the
    description is left out of the model (no symbol, no operation).

    Attributes
    ----------
    link : list of dict
        Per link: "L", "m", "EI" (sympy), "bodies": a list of (M, mu, J) (J None when
        absent; mu a float for the payload), the payload last on the last link, and "Jh"
        (None when absent). "M" and "mu" name the first lumped mass, if any.
    """

    def __init__(self, arm: PlanarArm, symbolic: bool):
        n, s = arm.n, arm.modes
        R = sp.Symbol
        self.n, self.s = n, s
        self.theta = [R(f"theta{i + 1}", real=True) for i in range(n)]
        self.f = [[R(f"f{i + 1}_{k + 1}", real=True) for k in range(s)] for i in range(n)]
        self.theta_d = [R(f"theta{i + 1}_d", real=True) for i in range(n)]
        self.f_d = [[R(f"f{i + 1}_{k + 1}_d", real=True) for k in range(s)] for i in range(n)]
        self.tau = [R(f"tau{i + 1}", real=True) for i in range(n)]
        self.q = self.theta + [x for row in self.f for x in row]
        self.qd = self.theta_d + [x for row in self.f_d for x in row]
        self.params = []
        self.link = []

        def par(name, value):
            if symbolic:
                x = R(name, real=True)
                self.params.append(x)
                return x
            return _param(value)

        for i, lk in enumerate(arm.links):
            d = {"L": par(f"L{i + 1}", lk.length), "m": par(f"m{i + 1}", lk.mass),
                 "EI": par(f"EI{i + 1}", lk.E * lk.I), "bodies": [], "Jh": None}
            for j, (b, mu) in enumerate(zip(lk.lumped_masses, lk.mus)):
                sfx = f"{i + 1}" if j == 0 else f"{i + 1}_{j + 1}"
                body = (par(f"M{sfx}", b.mass), par(f"mu{sfx}", mu),
                        par(f"J{sfx}", b.inertia) if b.inertia != 0 else None)
                d["bodies"].append(body)
            if d["bodies"]:
                d["M"], d["mu"] = d["bodies"][0][:2]
            if lk.hub_inertia != 0:
                d["Jh"] = par(f"Jh{i + 1}", lk.hub_inertia)
            self.link.append(d)
        if arm.payload is not None:
            pl = arm.payload
            self.link[-1]["bodies"].append(
                (par("Mp", pl.mass), sp.Integer(0),
                 par("Jp", pl.inertia) if pl.inertia != 0 else None))
        if symbolic:
            self.g = R("g", real=True)
            self.params.append(self.g)
        else:
            self.g = _param(arm.gravity)
        # True when a rotary inertia (lumped mass, hub or payload) enters the model
        self.rotary = any(d["Jh"] is not None or any(b[2] is not None for b in d["bodies"])
                          for d in self.link)
        # True for Yu's arms: one point mass per link, no hub, no payload
        self.legacy = (not self.rotary and arm.payload is None
                       and all(len(d["bodies"]) == 1 for d in self.link))

    @property
    def names(self) -> list[str]:
        return [str(x) for x in self.q]

    @property
    def param_names(self) -> list[str]:
        """Names of the symbolic parameters, in the order of the input ``p``."""
        return [str(x) for x in self.params]


def _param(value) -> sp.Expr:
    """A parameter as a constant: sp.Float (zero included, as always), or Float(re) +
    I Float(im) for a complex-step entry (:func:`~elastodyn.symbolic.complex_eval.
    number`; numpy's complex128 is a complex)."""
    return number(value) if isinstance(value, complex) else sp.Float(value)


def _num(x) -> sp.Expr:
    return sp.Integer(0) if x == 0 else sp.Float(float(x))


def generate_amm(arm: PlanarArm, *, symbolic: bool = False) -> tuple[Program, AMMSymbols]:
    """The model M q_dd + H q_d + N = F = B tau of ``arm`` (module docstring).

    Parameters
    ----------
    arm : PlanarArm
    symbolic : bool
        False: the arm's numbers are constants of the program. True: the link
        parameters (L, m, EI, M, mu per link; the further masses, rotary inertias and the
        payload when the arm has them, :class:`AMMSymbols`) and g are symbols, an input
        group ``p``.

    Returns
    -------
    (Program, AMMSymbols): inputs q (n + n s: theta then f link by link), qd, tau (n)
    [and p]; outputs M, H ((n + n s)^2), N, F (n + n s), B ((n + n s) x n) and
    c = H q_d + N.
    """
    if not isinstance(arm, PlanarArm):
        raise InputError("arm", type(arm).__name__, "a PlanarArm")
    name = "amm_" + re.sub(r"\W", "_", arm.name)     # a C identifier, clear of libc
    doc = {"title": f"{arm.name}: planar flexible arm, {arm.n} link(s), {arm.modes} "
                    f"{arm.basis} mode(s) per link, assumed modes and Lagrange (Yu & Chen "
                    "2019): M q_dd + H q_d + N = F",
           "inputs": {"q": "theta_1..n [rad], then f_ik [m] link by link",
                      "qd": "their rates [rad/s, m/s]", "tau": "joint torques [N m]",
                      "p": "per link L [m], m [kg], EI [N m^2], M [kg], mu [-]; then g "
                           "[m/s^2]"},
           "outputs": {"M": "mass matrix", "H": "Coriolis and centrifugal matrix",
                       "N": "gravity and elastic forces", "F": "generalized forces B tau",
                       "B": "dF/dtau", "c": "H q_d + N"}}
    with Timer() as timer:
        sy = AMMSymbols(arm, symbolic)
        if not sy.legacy:
            doc["inputs"]["p"] = ("L [m], m [kg], EI [N m^2] per link, then its lumped masses "
                                  "M [kg], mu [-], J [kg m^2] and hub Jh [kg m^2]; the payload "
                                  "Mp [kg], Jp [kg m^2]; g [m/s^2]: "
                                  + ", ".join(sy.param_names))
        rec = Recorder("t")
        out = _generate(arm, sy, rec)
        inputs = {"q": sy.q, "qd": sy.qd, "tau": sy.tau}
        if symbolic:
            inputs["p"] = sy.params
        prog = Program(name, inputs, rec.assignments, out, doc).pruned()
    if not symbolic:
        del doc["inputs"]["p"]
    return Program(name, inputs, prog.assignments, out, doc, timer.seconds), sy


def _generate(arm: PlanarArm, sy: AMMSymbols, rec: Recorder) -> dict:
    n, s = sy.n, sy.s
    nq = n + n * s
    shapes = ModeShapes(arm.basis, s)
    it = shapes.integrals
    M = sp.zeros(nq, nq)
    H = sp.zeros(nq, nq)
    N = sp.zeros(nq, 1)
    B = sp.zeros(nq, n)
    g = sy.g

    def col(i):
        return n + i * s

    # ------------------------------------------------------------------ kinematics
    p = [sp.zeros(2, 1)]
    pd = [sp.zeros(2, 1)]
    E, Nn, W = [], [], []
    ang, om = sp.Integer(0), sp.Integer(0)
    for i in range(n):
        L = sy.link[i]["L"]
        ang = rec(ang + sy.theta[i]) if i else sy.theta[0]
        om = rec(om + sy.theta_d[i]) if i else sy.theta_d[0]
        c_, s_ = rec(sp.cos(ang)), rec(sp.sin(ang))
        e, nv = sp.Matrix([c_, s_]), sp.Matrix([-s_, c_])
        p.append(rec.matrix(p[-1] + L * e))
        pd.append(rec.matrix(pd[-1] + rec(L * om) * nv))
        E.append(e)
        Nn.append(nv)
        W.append(om)
    # ------------------------------------------------------------------ links
    for i in range(n):
        lk = sy.link[i]
        L, m, EI = lk["L"], lk["m"], lk["EI"]
        e, nv, om = E[i], Nn[i], W[i]
        f = sp.Matrix(sy.f[i])
        fd = sp.Matrix(sy.f_d[i])
        # the lumped masses (and the payload): mode values phi(xi_M) at xi_M = 1 + mu
        # (eq. 17), and for those with a rotary inertia J the section slope dy/dx per
        # unit f, phi'(xi_M) / L
        phis, rot = [], []
        for Mi, mu, J in lk["bodies"]:
            if isinstance(mu, sp.Symbol):
                phM = rec.matrix(sp.Matrix(shapes.symbolic(1 + mu)))
            else:               # zero at the end (mu = 0) exactly, not 1e-16
                v = shapes.values([1.0 + float(mu)])[0]
                phM = sp.Matrix([_num(x if abs(x) > 1e-12 else 0.0) for x in v])
            phis.append(phM)
        for (Mi, mu, J), phM in zip(lk["bodies"], phis):
            if J is None:
                continue
            if isinstance(mu, sp.Symbol):
                slope = rec.matrix(sp.Matrix(shapes.symbolic(1 + mu, 1)) / L)
            else:
                slope = sp.Matrix([_num(x) for x in shapes.values([1.0 + float(mu)], 1)[0]]) / L
            rot.append((J, slope))
        if lk["Jh"] is not None:            # the hub turns with the root section
            rot.append((lk["Jh"], sp.Matrix([_num(x) for x in it["d0"]]) / L))
        # moments of the pseudo-inertia (module docstring), summed over the masses
        b = m * sp.Matrix([_num(v) for v in it["beta"]])
        a = m * L * sp.Matrix([_num(v) for v in it["alpha"]])
        Phi = m * sp.Matrix(s, s, lambda k, l_: _num(it["Gamma"][k, l_]))
        mt, sx, Ir0 = m, -m * L / 2, m * L ** 2 / 3
        for (Mi, mu, J), phM in zip(lk["bodies"], phis):
            b = b + Mi * phM
            a = a + Mi * mu * L * phM
            Phi = Phi + Mi * phM * phM.T
            mt = mt + Mi
            sx = sx + Mi * mu * L
            Ir0 = Ir0 + Mi * mu ** 2 * L ** 2
        Mff = None
        if rot:     # rotary inertias: 1/2 J (omega_i + c^T f_d)^2, c the section slope
            Jt = rec(sum((J for J, _ in rot), sp.Integer(0)))
            a = a + rec.matrix(sum((J * c for J, c in rot), sp.zeros(s, 1)))
            Mff = rec.matrix(sum((J * c * c.T for J, c in rot), sp.zeros(s, s)))
            Ir0 = Ir0 + Jt
        b = rec.matrix(b)
        a = rec.matrix(a)
        Phi = rec.matrix(Phi)
        mt = rec(mt)
        Phif = rec.matrix(Phi * f)
        sx = rec(sx)
        sy_ = rec((b.T * f)[0])
        Ir = rec(Ir0 + (f.T * Phif)[0])
        yyd = rec((fd.T * Phif)[0])
        bfd = rec((b.T * fd)[0])
        Rs = rec.matrix(sx * e + sy_ * nv)
        SRs = sp.Matrix([-Rs[1], Rs[0]])
        # joint m = 0..i: d_m = p_i - p_m (start of link m is p[m]), w_j = pd_i - pd_j
        d = [rec.matrix(p[i + 1] - p[k]) for k in range(i + 1)]
        w = [rec.matrix(pd[i + 1] - pd[k]) for k in range(i + 1)]
        v_h = [rec.matrix(mt * w[j] + om * SRs + bfd * nv) for j in range(i + 1)]
        Rsw = [rec((Rs.T * w[j])[0]) for j in range(i + 1)]
        de = [rec((d[k].T * e)[0]) for k in range(i + 1)]
        dn = [rec((d[k].T * nv)[0]) for k in range(i + 1)]
        ew = [rec((e.T * w[j])[0]) for j in range(i + 1)]
        ci = col(i)
        for mm in range(i + 1):
            for j in range(mm, i + 1):
                v = mt * (d[mm].T * d[j])[0] + ((d[mm] + d[j]).T * Rs)[0] + Ir
                M[mm, j] += v
                if j != mm:
                    M[j, mm] += v
            for j in range(i + 1):
                H[mm, j] += (d[mm].T * v_h[j])[0] + Rsw[j] + yyd
            for k in range(s):
                v = b[k] * de[mm] + a[k]
                M[mm, ci + k] += v
                M[ci + k, mm] += v
                H[mm, ci + k] += om * (b[k] * dn[mm] + Phif[k])
            N[mm] += g * (mt * d[mm][0] + Rs[0])
        for k in range(s):
            for j in range(i + 1):
                H[ci + k, j] += b[k] * ew[j] - om * Phif[k]
            for l_ in range(s):
                M[ci + k, ci + l_] = Phi[k, l_] if Mff is None else Phi[k, l_] + Mff[k, l_]
            N[ci + k] += g * b[k] * e[0] + EI / L ** 3 * sum(
                (_num(it["kappa"][k, l_]) * f[l_] for l_ in range(s)), sp.Integer(0))
        # generalized forces of the joint torques (module docstring)
        B[i, i] = 1
        for k in range(s):
            B[ci + k, i] = _num(it["d0"][k]) / L
            if i + 1 < n:
                B[ci + k, i + 1] = -_num(it["d1"][k]) / L
    M = rec.matrix(M)
    H = rec.matrix(H)
    N = rec.matrix(N)
    B = rec.matrix(B)
    F = rec.matrix(B * sp.Matrix(sy.tau))
    c = rec.matrix(H * sp.Matrix(sy.qd) + N)
    return {"M": M, "H": H, "N": N, "F": F, "B": B, "c": c}
