"""Recursive Newton-Euler / virtual-powers elastodynamic model of flexible parallel robots
(Briot & Khalil 2013), generated symbolically with intermediate variables.

The robot is a :class:`~elastodyn.description.tree.TreeRobot`: a virtual tree whose joints
are all "actuated" (eq. 5-9), plus a free rigid platform (eq. 24), closed by virtual
powers (eq. 27-38). Generalized coordinates q = (q_a, q_e): actuated joints and elastic
coordinates of every flexible beam (3 per element, 6 for a spatial beam,
:mod:`.nepvp_beam`); q_t = (joint variables of the tree in joint order, q_e).

Per joint j, with parent a = a(j) (all vectors in the frame named by their superscript):

* placement: a(j)T_j of the modified DH parameters; a child of a flexible beam is
  attached at s = d_j, displaced by Phi_d(s) q_e and rotated by R_e. Planar beam:
  R_e = Rot(z, phi_z), phi = Phi_r(s) q_e, and the elastic angular velocity Phi_r q_e_dot
  is exact. Spatial beam: R_e = Rot(z, phi_z) Rot(y, phi_y) Rot(x, phi_x), an exact
  rotation whose angular velocity is Tm(phi) Phi_r q_e_dot (:func:`_elastic_rotation`);
  the Jacobians use Tm Phi_r and the acceleration biases dTm/dt Phi_r q_e_dot.
  Decision: Boyer & Khalil's linear theory takes Tm = I (R_e = I + [phi]x to first
  order), which is not a rotation and breaks the consistency of placement and velocity
  at second order; the exact rotation keeps the model a Lagrangian system (energy is
  conserved, tested) and agrees with the linear theory to first order;
* twist Jacobian, eqs. (12)-(16): t_j = J_t_j q_t_dot with, for the origin O_j at P in
  frame a,  J_v = R^T (J_v,a - [P]x J_w,a + (Phi_d - [r z_j]x Phi_r) E_a) (+ e_z for a
  prismatic joint),  J_w = R^T (J_w,a + Phi_r E_a) (+ e_z for a revolute joint), where
  E_a selects the parent's elastic velocities;
* acceleration bias g_j (eqs. 18-20: the acceleration screw for q_t_ddot = 0), derived
  here from the same placement: Omega = w_a + w_e (w_e = Phi_r q_e_dot),
  alpha_j = R^T (alpha_a + w_a x w_e) + sigma_r q_dot (R^T Omega) x e_z,
  gamma_j = R^T (gamma_a + alpha_a x P + w_a x (w_a x P) + 2 w_a x P_dot + P_ddot) with
  P_dot = Phi_d q_e_dot + w_e x (r z_j) + sigma_p q_dot z_j and
  P_ddot = w_e x (w_e x r z_j) + 2 sigma_p q_dot w_e x z_j;
* body model, eq. (4): M_j (6 + N_j) and c_j (inertial, elastic and gravity terms), see
  :func:`_body_terms`;
* tree model, eqs. (22)-(23): M_t = sum J_j^T M_j J_j, c_t = sum J_j^T (c_j + M_j g_j^s);
* closure, eqs. (31)-(37), for isostatic robots: the terminal twists of the legs (base
  frame, rows ``closure_rows``) all equal the platform twist t_p; with T_i the terminal
  Jacobians, (T_i - T_n)_p q_p_dot = -(T_i - T_n)_ae q_dot gives J11, J12 (i < n), and
  t_p = T_n q_t_dot gives J21, J22; the biases b follow from the terminal accelerations;
* model, eq. (38) with (26): M = J^T M_t J, c = J^T (c_t + M_t b) (+ motor inertia and
  friction on the joints).

Inverse problem: q_e_ddot = -M_ee^-1 (c_e + M_ea q_a_ddot), tau = M_aa q_a_ddot +
M_ae q_e_ddot + c_a; direct problem: q_ddot = M^-1 ([tau; 0] - c); both by a symbolic
LDL^T factorization (M is symmetric positive definite).

Departures from the paper, decided here: gravity enters through explicit gravity terms of
each body (Briot's f_g, c_g, s_g), not through a fictitious base acceleration; the
passive velocities are solved by the adjugate (n_p <= 3) or by Gauss elimination with
partial pivoting made branch-free by conditional row swaps (n_p > 3,
:mod:`~elastodyn.symbolic.linalg`: select nodes in the generated code, correct at every
pose where the closure Jacobian is non-singular), not by a symbolic general inverse. A
robot with a single leg (a serial chain carrying the platform) has no closure equation.
"""
from __future__ import annotations

import math
import re

import numpy as np
import sympy as sp

from ...description.tree import FlexibleBeam, RigidBody, TreeRobot
from ...exceptions import InputError
from ..._validate import real_array
from ...symbolic.complex_eval import number
from ...symbolic.core import Program, Recorder, Timer, is_identifier
from ...symbolic.linalg import PivotedLU
from .layout import NEPVPLayout

__all__ = ["generate_nepvp", "NEPVPSymbols"]


def _cs(angle):
    """(cos, sin) of a number, exact for multiples of pi/2."""
    k = angle / (math.pi / 2)
    if abs(k - round(k)) < 1e-12:
        return [(1, 0), (0, 1), (-1, 0), (0, -1)][int(round(k)) % 4]
    return sp.Float(math.cos(angle)), sp.Float(math.sin(angle))


def _rotz(c, s):
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rotx(c, s):
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def _skew(v):
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _num(a):
    """numpy array -> sympy Matrix of Floats (exact zeros kept); a complex array (a
    complex-step entry, :func:`~elastodyn.symbolic.complex_eval.number`) -> Float(re) +
    I Float(im)."""
    a = real_array(a)
    if a.ndim == 1:
        a = a[:, None]
    return sp.Matrix(a.shape[0], a.shape[1], lambda i, j: number(a[i, j]))


# names the printed programs use for other things: input and output arrays, functions
# and modules of the printers (C math.h, Python math/numpy, Octave builtins)
_RESERVED = frozenset("""q e qd_a ed qdd_a tau M c qd_p tp xp h D edd edd_direct sin cos
tan sqrt fabs abs pow exp log atan2 fmax math np float zeros sign pi M_PI i j I E
""".split())
_IV_NAME = re.compile(r"t[0-9]+\Z")


def _code_names(names, taken) -> list[str]:
    """Identifiers of the joint variables in the generated code, one per joint name.

    A name that is already a safe identifier is kept (q1 -> q1). Otherwise characters
    outside [A-Za-z0-9_] become ``_`` and ``q_`` is prepended when the result does not
    start with a letter, is a keyword (:func:`~elastodyn.symbolic.core.is_identifier`),
    a reserved name (an input or output array, a printer's function) or looks like an
    intermediate variable (``t<k>``): "1.slider" -> "q_1_slider". Underscores are
    appended until the variable and its derived names (``_d``, ``_dd``, ``tau_``) are
    distinct from each other and from ``taken`` (the elastic coordinates' names)."""
    used = set(taken)
    out = []
    for n in names:
        base = re.sub(r"[^A-Za-z0-9_]", "_", n)
        if not is_identifier(base) or base in _RESERVED or _IV_NAME.match(base):
            base = "q_" + base
        while {base, f"{base}_d", f"{base}_dd", f"tau_{base}"} & used:
            base += "_"
        used |= {base, f"{base}_d", f"{base}_dd", f"tau_{base}"}
        out.append(base)
    return out


class NEPVPSymbols(NEPVPLayout):
    """Symbols and index sets of a robot's model.

    Attributes: those of :class:`~elastodyn.formulations.nepvp.layout.NEPVPLayout`
    (joints, names, actuated / passive, shapes, n_t, cols, ecols, ne, na,
    elastic_names), and code_names (the joint names' identifiers in the generated code,
    :func:`_code_names`), q, e, qd_a, ed, qdd_a, tau (lists of sympy symbols).
    """

    def __init__(self, robot: TreeRobot):
        super().__init__(robot)
        R = sp.Symbol
        self.e = [R(nm, real=True) for nm in self.elastic_names]
        self.ed = [R(nm + "_d", real=True) for nm in self.elastic_names]
        self.edd = [R(nm + "_dd", real=True) for nm in self.elastic_names]
        taken = {str(x) for x in self.e + self.ed + self.edd}
        self.code_names = cn = _code_names(self.names, taken)
        self.q = [R(n, real=True) for n in cn]
        self.qd = [R(f"{n}_d", real=True) for n in cn]
        self.qd_a = [self.qd[k] for k in self.actuated]
        self.qdd_a = [R(f"{cn[k]}_dd", real=True) for k in self.actuated]
        self.tau = [R(f"tau_{cn[k]}", real=True) for k in self.actuated]


def _body_terms(rec, body, sh, w, g_b, e, ed):
    """M_j (6 + N, 6 + N) and c_j (6 + N) of Briot eq. (4) in the body frame.

    w: angular velocity (3), g_b: gravity in body axes (3), e, ed: elastic coordinates
    and velocities (N). Rigid body: N = 0. With MS the first moment, I the inertia about
    the origin, W = int r_dot r^T dm (3, 3):
      f = m gamma - [MS]x alpha + MS_de e_dd + w x (w x MS) + 2 w x (MS_de e_d) - m g
      c = [MS]x gamma + I alpha + MS_re e_dd + w x (I w) + 2 (w tr W - W w) - MS x g
      s = MS_de^T gamma + MS_re^T alpha + M_ee e_dd + sum_ab ([w]x^2)_ab G_ab
          + 2 sum_ab ([w]x)_ab Q_ab e_d + K e - MS_de^T g
    with G_ab = e_ab + Q_ab e (int Phi_a^T r_b dm) and MS_re = int [r]x Phi_d dm.
    Spatial beam, torsion inertia of the sections (T_rot of :mod:`.nepvp_beam`): I_xx +=
    Ip, MS_re row x += MS_phi^T, M_ee += M_phi, and c += w x ((MS_phi . e_d) e_x).
    """
    W = _skew(w)
    if isinstance(body, RigidBody):
        m = body.mass
        MS = _num(body.ms)
        I = _num(body.inertia)
        M = sp.zeros(6, 6)
        M[:3, :3] = m * sp.eye(3)
        M[:3, 3:] = -_skew(MS)
        M[3:, :3] = _skew(MS)
        M[3:, 3:] = I
        f = W * rec.matrix(W * MS) - m * g_b
        c = W * rec.matrix(I * w) - _skew(MS) * g_b
        return rec.matrix(M), rec.matrix(sp.Matrix.vstack(f, c))
    it = sh.integrals
    N = sh.N
    m = it["m"]
    ev = sp.Matrix(e)
    edv = sp.Matrix(ed)
    MSde = _num(it["MSde"])
    MS = rec.matrix(_num(it["MS0"]) + MSde * ev)
    Q = [[_num(it["Q"][a, b]) for b in range(3)] for a in range(3)]
    eab = [[_num(it["e"][a, b]) for b in range(3)] for a in range(3)]
    # G_ab = e_ab + Q_ab e  (N-vectors), zero blocks skipped
    G = [[None] * 3 for _ in range(3)]
    for a in range(3):
        for b in range(3):
            if any(Q[a][b]) or any(eab[a][b]):
                G[a][b] = rec.matrix(eab[a][b] + Q[a][b] * ev)
    # int r_a r_b dm = J0_ab + int Phi_a^T r_b . ... = J0_ab + e_ba . e + G_ab . e
    J0 = it["J0"]
    Rr = sp.zeros(3, 3)
    for a in range(3):
        for b in range(a, 3):
            v = number(J0[a, b])
            if eab[b][a] is not None and any(eab[b][a]):
                v += (eab[b][a].T * ev)[0]
            if G[a][b] is not None:
                v += (G[a][b].T * ev)[0]
            Rr[a, b] = Rr[b, a] = rec(v)
    I = sp.eye(3) * rec(Rr.trace()) - Rr
    if sh.spatial:                                        # polar inertia of the sections
        I[0, 0] += it["Ip"]
    I = rec.matrix(I)
    # MS_re row x = int (r_y Phi_z - r_z Phi_y), etc.: int r_b Phi_a = G_ab^T
    def Gt(a, b):
        return G[a][b].T if G[a][b] is not None else sp.zeros(1, N)
    MSre = sp.Matrix.vstack(Gt(2, 1) - Gt(1, 2), Gt(0, 2) - Gt(2, 0), Gt(1, 0) - Gt(0, 1))
    Mee = sum(it["Q"][a, a] for a in range(3))
    if sh.spatial:
        MSre[0, :] += _num(it["MSphi"]).T
        Mee = Mee + it["Mphi"]
    MSre = rec.matrix(MSre)
    Mee = _num(Mee)
    M = sp.zeros(6 + N, 6 + N)
    M[:3, :3] = m * sp.eye(3)
    M[:3, 3:6] = -_skew(MS)
    M[3:6, :3] = _skew(MS)
    M[3:6, 3:6] = I
    M[:3, 6:] = MSde
    M[6:, :3] = MSde.T
    M[3:6, 6:] = MSre
    M[6:, 3:6] = MSre.T
    M[6:, 6:] = Mee
    # velocity terms
    rdot = rec.matrix(MSde * edv)                         # int r_dot dm
    Wm = sp.zeros(3, 3)                                   # W_ab = int r_dot_a r_b dm
    for a in range(3):
        for b in range(3):
            if G[a][b] is not None:
                Wm[a, b] = rec((edv.T * G[a][b])[0])
    f = W * rec.matrix(W * MS) + 2 * W * rdot - m * g_b
    c = (W * rec.matrix(I * w) + 2 * (w * rec(Wm.trace()) - Wm * w)) - _skew(MS) * g_b
    if sh.spatial:                 # w x h_phi, h_phi = (MS_phi . e_d) e_x: torsion momentum
        hphi = rec((_num(it["MSphi"]).T * edv)[0])
        c += sp.Matrix([0, w[2] * hphi, -w[1] * hphi])
    W2 = rec.matrix(W * W)
    s = sp.zeros(N, 1)
    for a in range(3):
        for b in range(3):
            if G[a][b] is not None:
                if W2[a, b] != 0:
                    s += W2[a, b] * G[a][b]
                if W[a, b] != 0 and any(Q[a][b]):
                    s += 2 * W[a, b] * rec.matrix(Q[a][b] * edv)
    s += _num(it["Kee"]) * ev - MSde.T * g_b
    if body.geometric_stiffening:
        s += _stiffening(rec, sh, ev)
    return rec.matrix(M), rec.matrix(sp.Matrix.vstack(f, c, s))


def _stiffening(rec, sh, ev):
    """Nonlinear part of the elastic force dU/dq_e of the von Karman axial strain
    u' + (v'^2 + w'^2)/2 (w' = 0 for a planar beam), taken constant over each element:

        eps_k = u'_k + h_k,  h_k = mean over element k of (v'^2 + w'^2)/2,
        U = sum_k EA l_e eps_k^2 / 2 + the linear bending and torsion energies,
        dU/dq_e = K q_e + sum_k EA l_e [h_k a_k + eps_k G_k q_e]

    (a_k, G_k of :attr:`.nepvp_beam.BeamShapes.membrane`: u'_k = a_k . q_e, h_k =
    q_e^T G_k q_e / 2). The term N_k G_k q_e (axial force N_k = EA eps_k times the
    element's consistent geometric stiffness) stiffens in tension and softens in
    compression.

    Decision: the membrane strain is the element mean (its L2 projection on the constants,
    the space of u' of a linear axial field), not the pointwise u' + (v'^2 + w'^2)/2. With
    u' constant and v'^2 quadratic in s, the pointwise strain cannot vanish along an
    element that bends: a bent element then stores the spurious energy EA/2 int (h -
    h_k)^2 ds, quartic in the deflection (membrane locking). Relative to the bending
    energy it grows as (deflection / radius of gyration)^2 / n^2 for a beam of n
    elements, so it dominates as soon as the deflection exceeds the section's radius of
    gyration: the platform of Kuo's Delta (5 mm square links) sagged 10 mm under gravity
    instead of 25 mm and its frequencies about that state doubled (n = 1); the arm of Yu
    sagged 30 mm instead of 122 mm.
    The element mean removes the spurious energy and keeps everything of the strain that
    the elements can represent: eps_k = 0 for an inextensible bending (the chord
    shortening u = -int v'^2/2 of the tip) and the consistent geometric stiffness; the
    model converges as the linear elements do, and the two strains agree to first order
    in the deflection (the same linearization about the undeformed state)."""
    out = sp.zeros(len(ev), 1)
    for EAl, a, G in sh.membrane:
        up = rec((_num(a).T * ev)[0])
        Ge = rec.matrix(_num(G) * ev)
        h = rec((ev.T * Ge)[0] / 2)
        n_ax = rec(number(EAl) * (up + h))
        out += rec(number(EAl) * h) * _num(a) + n_ax * Ge
    return out


def _elastic_rotation(rec, phi):
    """Rotation of a frame carried by a spatial beam, from the small-rotation components
    phi = Phi_r(s) q_e (3,): R_e = Rot(z, phi_z) Rot(y, phi_y) Rot(x, phi_x), exact and
    orthogonal; its angular velocity (parent axes) is w_e = Tm phi_dot with
    Tm = [[ca cb, -sa, 0], [sa cb, ca, 0], [-sb, 0, 1]] (a = phi_z, b = phi_y, columns
    x, y, z), which tends to the identity of the linear theory (w_e = Phi_r q_e_dot) as
    phi -> 0. Returns (R_e, Tm, (ca, sa, cb, sb, cc, sc))."""
    cc, sc = rec(sp.cos(phi[0])), rec(sp.sin(phi[0]))
    cb, sb = rec(sp.cos(phi[1])), rec(sp.sin(phi[1]))
    ca, sa = rec(sp.cos(phi[2])), rec(sp.sin(phi[2]))
    Ry = sp.Matrix([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    Re = rec.matrix(rec.matrix(_rotz(ca, sa) * Ry) * _rotx(cc, sc))
    cacb, sacb = rec(ca * cb), rec(sa * cb)
    Tm = sp.Matrix([[cacb, -sa, 0], [sacb, ca, 0], [-sb, 0, 1]])
    return Re, Tm, (ca, sa, cb, sb, cacb, sacb)


def _elastic_rotation_bias(rec, trig, rates):
    """dTm/dt phi_dot (3,): the part of the elastic angular acceleration without
    phi_ddot, for the rates phi_dot = (c', b', a') of :func:`_elastic_rotation`:
    (-ca a' b' - sa cb a' c' - ca sb b' c', -sa a' b' + ca cb a' c' - sa sb b' c',
    -cb b' c')."""
    ca, sa, cb, sb, cacb, sacb = trig
    cd, bd, ad = rates
    ab, ac, bc = rec(ad * bd), rec(ad * cd), rec(bd * cd)
    return rec.matrix(sp.Matrix([-ca * ab - sacb * ac - ca * sb * bc,
                                 -sa * ab + cacb * ac - sa * sb * bc,
                                 -cb * bc]))


def _small_solver(rec, A):
    """Solver of A X = B for the closure Jacobian A (n, n) (eqs. 33 and 36: the passive
    velocities and the acceleration bias b1), as a function B (n, m) -> X (n, m).

    n <= 3: the adjugate, X = (adj(A) B) / det(A) (Berkowitz determinant; one division),
    the cheapest at these sizes and exact wherever det(A) != 0. n > 3: Gauss elimination
    with partial pivoting made branch-free by conditional row swaps
    (:class:`~elastodyn.symbolic.linalg.PivotedLU`): no division by zero wherever A is
    non-singular, whatever the pose. Elimination in a fixed order without pivoting (the
    code before) divided by diagonal entries that vanish at some poses and are even
    structurally zero for a 3-PRR robot. The factorization is recorded once and shared by
    every right-hand side."""
    n = A.rows
    if n == 0:
        return lambda B: sp.zeros(0, B.cols)
    if n <= 3:
        def adjugate(B):
            det = rec(A.det(method="berkowitz") if n > 1 else A[0, 0])
            inv_det = rec(1 / det)
            adj = rec.matrix(A.adjugate()) if n > 1 else sp.Matrix([[1]])
            return rec.matrix(rec.matrix(adj * B) * inv_det)
        return adjugate
    return PivotedLU(rec, A).solve


def solve_spd(rec, M, B):
    """M^-1 B for a symbolic symmetric positive definite M by LDL^T (no pivoting needed)."""
    n = M.rows
    L = sp.eye(n)
    U = sp.zeros(n, n)      # U[i, k] = L[i, k] D[k]: one multiplication per update term
    D = [None] * n
    for j in range(n):      # one Add of all terms (sum() re-sorts the Add at every term)
        d = M[j, j] - sp.Add(*[U[j, k] * L[j, k] for k in range(j) if L[j, k] != 0])
        D[j] = rec(d)
        for i in range(j + 1, n):
            v = M[i, j] - sp.Add(*[U[i, k] * L[j, k] for k in range(j)
                                   if L[i, k] != 0 and L[j, k] != 0])
            if v != 0:
                U[i, j] = rec(v)
                L[i, j] = rec(U[i, j] / D[j])
    Y = sp.zeros(n, B.cols)
    for i in range(n):
        Y[i, :] = rec.matrix(B[i, :] - L[i, :i] * Y[:i, :])
    X = sp.zeros(n, B.cols)
    for i in reversed(range(n)):
        X[i, :] = rec.matrix(Y[i, :] / D[i] - L[i + 1:, i].T * X[i + 1:, :])
    return X


def generate_nepvp(robot: TreeRobot, direct: bool = True) -> tuple[Program, NEPVPSymbols]:
    """Build the full symbolic model of ``robot``.

    Returns the program with every output (``M``, ``c``, ``qd_p``, ``tp``, ``xp`` (platform
    origin, base frame), ``h`` (closure residual) and ``D`` (its Jacobian with respect
    to the passive joints), ``tau``/``edd`` (inverse), ``qdd``/``edd_direct`` (direct),
    and the symbols; :class:`~elastodyn.formulations.nepvp.simulation.NEPVPEngine` selects and prunes.
    ``direct=False`` leaves the direct problem out (its LDL^T of the whole M is half of
    the generation time at 8 elements per beam; the other outputs are the same).
    """
    with Timer() as timer:
        sy = NEPVPSymbols(robot)
        rec = Recorder("t")
        outputs = _generate(robot, sy, rec, direct)
    inputs = {"q": sy.q, "e": sy.e, "qd_a": sy.qd_a, "ed": sy.ed, "qdd_a": sy.qdd_a,
              "tau": sy.tau}
    prog = Program("nepvp_model", inputs, rec.assignments, outputs,
                   generation_time_s=timer.seconds)
    return prog, sy


def _generate(robot: TreeRobot, sy: NEPVPSymbols, rec, direct: bool = True) -> dict:
    nJ = len(robot.joints)
    n_t = sy.n_t
    g0 = _num(robot.gravity)
    R0 = {0: sp.eye(3)}
    O0 = {0: sp.zeros(3, 1)}
    Rloc, Ploc, zloc, rz = {}, {}, {}, {}
    Tm, trig = {}, {}     # spatial beams: w_e = Tm phi_dot and the angles' cos, sin
    Jt = {0: sp.zeros(6, n_t)}
    # ---------------------------------------------------------------- placement, Jacobians
    for j in range(1, nJ + 1):
        jt = robot.joints[j - 1]
        a = jt.antecedent
        parent = robot.bodies.get(a)
        cg, sg = _cs(jt.gamma)
        ca, sa = _cs(jt.alpha)
        qsym = sy.q[sy.cols[j]] if jt.kind != "fixed" else None
        if jt.kind == "revolute":
            ct, st = rec(sp.cos(qsym + jt.theta)), rec(sp.sin(qsym + jt.theta))
            r = number(jt.r)
        else:
            ct, st = _cs(jt.theta)
            r = rec(qsym + jt.r) if jt.kind == "prismatic" else (
                number(jt.r))
        Rg = _rotz(cg, sg)
        Rgx = Rg * _rotx(ca, sa)
        R = Rgx * _rotz(ct, st)
        z = Rgx[:, 2]
        P = Rg * sp.Matrix([jt.d, 0, jt.b])
        flex = isinstance(parent, FlexibleBeam)
        if flex:
            if jt.gamma or jt.b:
                raise InputError(f"joints[{j}] gamma, b", (jt.gamma, jt.b),
                                 "0 for a joint carried by a flexible beam")
            sh = sy.shapes[a]
            Phd, Phr = sh.at(jt.d)
            Phd, Phr = _num(Phd), _num(Phr)
            ea = sp.Matrix([sy.e[k - len(sy.joints)] for k in sy.ecols[a]])
            if sh.spatial:
                Re, Tm[j], trig[j] = _elastic_rotation(rec, rec.matrix(Phr * ea))
            else:
                phi = rec((Phr[2, :] * ea)[0])
                Re = _rotz(rec(sp.cos(phi)), rec(sp.sin(phi)))
            R = rec.matrix(Re * R)
            z = rec.matrix(Re * z)
            P = rec.matrix(P + Phd * ea)
        else:
            R = rec.matrix(R)
        rzj = rec.matrix(r * z)
        P = rec.matrix(P + rzj)
        Rloc[j], Ploc[j], zloc[j], rz[j] = R, P, z, rzj
        R0[j] = rec.matrix(R0[a] * R)
        O0[j] = rec.matrix(O0[a] + R0[a] * P)
        # Jacobian, eqs. (13)-(16)
        Jv, Jw = Jt[a][:3, :], Jt[a][3:, :]
        JvO = Jv - _skew(P) * Jw
        JwO = Jw
        if flex:
            E = sp.zeros(sh.N, n_t)
            for i, k in enumerate(sy.ecols[a]):
                E[i, k] = 1
            Wr = rec.matrix(Tm[j] * Phr) if j in Tm else Phr
            JwO = JwO + Wr * E
            JvO = JvO + (Phd - _skew(rzj) * Wr) * E
        RT = R.T
        Jn = rec.matrix(sp.Matrix.vstack(RT * JvO, RT * JwO))
        if jt.kind == "prismatic":
            Jn[2, sy.cols[j]] += 1
        elif jt.kind == "revolute":
            Jn[5, sy.cols[j]] += 1
        Jt[j] = Jn
    # ---------------------------------------------------------------- closure Jacobians
    rows = list(robot.closure_rows)
    k = len(rows)

    def base_rows(j, v6):
        R = R0[j]
        full = sp.Matrix.vstack(R * v6[:3, :], R * v6[3:, :])
        return rec.matrix(full.extract(rows, list(range(full.cols))))

    T = [base_rows(m, Jt[m]) for m in robot.terminals]
    Tn = T[-1]
    pc = [sy.cols[sy.joints[i]] for i in sy.passive]
    ac = [sy.cols[sy.joints[i]] for i in sy.actuated]
    aec = ac + list(range(len(sy.joints), n_t))
    # one leg (a serial robot carrying the platform): no closure equation
    Dm = (sp.Matrix.vstack(*[rec.matrix(Ti - Tn) for Ti in T[:-1]]) if len(T) > 1
          else sp.zeros(0, n_t))
    D = Dm.extract(list(range(Dm.rows)), pc)
    Ecl = Dm.extract(list(range(Dm.rows)), aec)
    solve_D = _small_solver(rec, D)
    X = solve_D(-Ecl)                                      # q_p_dot = X q_dot, eq. (33)
    # closure residual (positions): terminal origins and orientations vs leg n
    h = []
    mn = robot.terminals[-1]
    for m in robot.terminals[:-1]:
        dO = O0[m] - O0[mn]
        dR = R0[m] * R0[mn].T
        vee = sp.Matrix([dR[2, 1] - dR[1, 2], dR[0, 2] - dR[2, 0], dR[1, 0] - dR[0, 1]]) / 2
        full = sp.Matrix.vstack(dO, vee)
        h += [rec(full[r_]) for r_ in rows]
    # ---------------------------------------------------------------- velocities
    qd_ae = sp.Matrix(sy.qd_a + sy.ed)
    qd_p = rec.matrix(X * qd_ae)
    qdt = [None] * n_t
    for i, c_ in enumerate(ac):
        qdt[c_] = sy.qd_a[i]
    for i, c_ in enumerate(pc):
        qdt[c_] = qd_p[i]
    for i in range(sy.ne):
        qdt[len(sy.joints) + i] = sy.ed[i]
    qdt = sp.Matrix(qdt)
    tw = {0: sp.zeros(6, 1)}
    for j in range(1, nJ + 1):
        tw[j] = rec.matrix(Jt[j] * qdt)
    # ---------------------------------------------------------------- acceleration biases
    gb = {0: sp.zeros(6, 1)}
    for j in range(1, nJ + 1):
        jt = robot.joints[j - 1]
        a = jt.antecedent
        wa, ga, aa = tw[a][3:, :], gb[a][:3, :], gb[a][3:, :]
        R, P, z, rzj = Rloc[j], Ploc[j], zloc[j], rz[j]
        qdj = qdt[sy.cols[j]] if jt.kind != "fixed" else 0
        Pd = sp.zeros(3, 1)
        Pdd = sp.zeros(3, 1)
        we = sp.zeros(3, 1)
        if isinstance(robot.bodies.get(a), FlexibleBeam):
            sh = sy.shapes[a]
            Phd, Phr = (_num(x) for x in sh.at(jt.d))
            eda = sp.Matrix([sy.ed[k - len(sy.joints)] for k in sy.ecols[a]])
            if j in Tm:
                rates = rec.matrix(Phr * eda)
                we = rec.matrix(Tm[j] * rates)
                web = _elastic_rotation_bias(rec, trig[j], rates)
            else:
                we = rec.matrix(Phr * eda)
            Pd = rec.matrix(Phd * eda + we.cross(rzj))
            Pdd = rec.matrix(we.cross(rec.matrix(we.cross(rzj))))
            if j in Tm:
                Pdd = rec.matrix(Pdd + web.cross(rzj))
        if jt.kind == "prismatic":
            Pd = rec.matrix(Pd + qdj * z)
            Pdd = rec.matrix(Pdd + 2 * qdj * we.cross(z))
        Om = rec.matrix(wa + we)
        al = rec.matrix(aa + wa.cross(we) + (web if j in Tm else sp.zeros(3, 1)))
        alj = R.T * al
        if jt.kind == "revolute":
            alj = alj + qdj * rec.matrix(R.T * Om).cross(sp.Matrix([0, 0, 1]))
        gam = ga + aa.cross(P) + wa.cross(rec.matrix(wa.cross(P))) + 2 * wa.cross(Pd) + Pdd
        gb[j] = rec.matrix(sp.Matrix.vstack(R.T * rec.matrix(gam), alj))
    # ---------------------------------------------------------------- tree model
    Mt = sp.zeros(n_t, n_t)
    ct = sp.zeros(n_t, 1)
    for j, body in sorted(robot.bodies.items()):
        sh = sy.shapes.get(j)
        N = sh.N if sh else 0
        e = [sy.e[k - len(sy.joints)] for k in sy.ecols[j]] if sh else []
        ed = [sy.ed[k - len(sy.joints)] for k in sy.ecols[j]] if sh else []
        g_b = rec.matrix(R0[j].T * g0)
        Mj, cj = _body_terms(rec, body, sh, tw[j][3:, :], g_b, e, ed)
        Jj = sp.zeros(6 + N, n_t)
        Jj[:6, :] = Jt[j]
        for i, k_ in enumerate(sy.ecols.get(j, [])):
            Jj[6 + i, k_] = 1
        gs = sp.Matrix.vstack(gb[j], sp.zeros(N, 1))
        MJ = rec.matrix(Mj * Jj)
        Mt += Jj.T * MJ
        ct += Jj.T * rec.matrix(cj + Mj * gs)
    Mt = rec.matrix(Mt)
    ct = rec.matrix(ct)
    # motor inertia and friction, eq. (26)
    for i, jidx in enumerate(sy.joints):
        nm = sy.names[i]
        c_ = sy.cols[jidx]
        Ia = robot.motor_inertia.get(nm, 0.0)
        fv = robot.viscous.get(nm, 0.0)
        fs = robot.coulomb.get(nm, 0.0)
        if Ia:
            Mt[c_, c_] = rec(Mt[c_, c_] + Ia)
        if fv or fs:
            ct[c_] = rec(ct[c_] + fv * qdt[c_] + fs * sp.sign(qdt[c_]))
    # ---------------------------------------------------------------- platform, eq. (24)
    pl = robot.platform
    Rp = R0[mn]
    MSp = rec.matrix(Rp * _num(pl.ms))
    Ip = rec.matrix(Rp * _num(pl.inertia) * Rp.T) if np.any(pl.inertia) else sp.zeros(3, 3)
    Mp6 = sp.zeros(6, 6)
    Mp6[:3, :3] = pl.mass * sp.eye(3)
    Mp6[:3, 3:] = -_skew(MSp)
    Mp6[3:, :3] = _skew(MSp)
    Mp6[3:, 3:] = Ip
    wp = rec.matrix(Rp * tw[mn][3:, :])
    cp6 = sp.Matrix.vstack(wp.cross(rec.matrix(wp.cross(MSp))) - pl.mass * g0,
                           wp.cross(rec.matrix(Ip * wp)) - MSp.cross(g0))
    Mp = Mp6.extract(rows, rows)
    cp = rec.matrix(cp6.extract(rows, [0]))
    # ---------------------------------------------------------------- closure accelerations
    beta = [base_rows(m, gb[m]) for m in robot.terminals]
    dbeta = (sp.Matrix.vstack(*[rec.matrix(bi - beta[-1]) for bi in beta[:-1]])
             if len(beta) > 1 else sp.zeros(0, 1))
    b1 = solve_D(-dbeta)                                   # eq. (36)
    Tp = Tn.extract(list(range(k)), pc)
    b2 = rec.matrix(beta[-1] + Tp * b1)
    J2 = rec.matrix(Tn.extract(list(range(k)), aec) + Tp * X)   # t_p = J2 q_dot
    tp = rec.matrix(J2 * qd_ae)
    # ---------------------------------------------------------------- eq. (34), (37), (38)
    nq = len(aec)
    J = sp.zeros(n_t + k, nq)
    for i, c_ in enumerate(aec):
        J[c_, i] = 1
    for i, c_ in enumerate(pc):
        J[c_, :] = X[i, :]
    J[n_t:, :] = J2
    b = sp.zeros(n_t + k, 1)
    for i, c_ in enumerate(pc):
        b[c_] = b1[i]
    b[n_t:, :] = b2
    Mfull = sp.zeros(n_t + k, n_t + k)
    Mfull[:n_t, :n_t] = Mt
    Mfull[n_t:, n_t:] = Mp
    cfull = sp.Matrix.vstack(ct, cp)
    MJ = rec.matrix(Mfull * J)
    M = sp.zeros(nq, nq)                 # symmetric: each pair (i, j) computed once
    for i in range(nq):
        for j in range(i, nq):
            M[i, j] = M[j, i] = rec((J[:, i].T * MJ[:, j])[0])
    c = rec.matrix(J.T * rec.matrix(cfull + Mfull * b))
    # ---------------------------------------------------------------- inverse and direct
    na = sy.na
    ia, ie = list(range(na)), list(range(na, nq))
    Mee = M.extract(ie, ie)
    Mea = M.extract(ie, ia)
    qdda = sp.Matrix(sy.qdd_a)
    edd = solve_spd(rec, Mee, -rec.matrix(c.extract(ie, [0]) + Mea * qdda))
    tau = rec.matrix(M.extract(ia, ia) * qdda + M.extract(ia, ie) * edd + c.extract(ia, [0]))
    out = {"M": M, "c": c, "qd_p": qd_p, "tp": tp, "xp": O0[mn], "h": sp.Matrix(h),
           "D": D, "tau": tau, "edd": edd}
    if direct:
        rhs = sp.Matrix.vstack(sp.Matrix(sy.tau), sp.zeros(len(ie), 1)) - c
        qdd = solve_spd(rec, M, rhs)
        out.update(qdd_a=qdd.extract(ia, [0]), edd_direct=qdd.extract(ie, [0]))
    return out
