"""The explicit rigid Delta model (Asadi & Heydari 2020, eqs. 39-42) as a symbolic
straight-line program: M(X), C(X, Xd), G(X) and J(X), exported as code for controllers
(``elastodyn generate delta-asadi2020``).

The closed form is that of :mod:`._delta_point` (tested against the literal eqs. 40-42):
with the leg frame of leg i (y_i along the upper link, z_i = T_i / L1) and the rows j_i of
J (eq. 9),

    M = M_X I + sum_i [beta j_i j_i^T + c_K L1 (z_i j_i^T + j_i z_i^T)]
    C = sum_i [(beta j_i + c_K L1 z_i) jd_i^T - c_K L1 qd_i y_i j_i^T]   (C Xd of eq. 41)
    G = -m_X g - sum_i L1 m_q (z_i . g) j_i

Decision: the actuated angles q are inputs next to X and Xd (a controller reads them from
its encoders), so the program needs no inverse kinematics and no branch choice (Kuo's
and Asadi's elbow-out rule is a comparison); q and X must belong together (give the
inverse kinematics' q, :meth:`DeltaKinematics.inverse_kinematics`).

For a controller that reads only its encoders, :func:`generate_explicit_delta_actuated`
closes the loops in closed form: the program ``<name>_qa`` takes q and qd, computes X by
the three-sphere intersection of :meth:`DeltaKinematics.forward_kinematics` (the
solution of larger Z, Z down: the working mode) and Xd = J^-1 qd (Cramer's rule: no
pivot to choose; singular where det J = 0), then M, C, G, J as above, and returns X and
Xd too.
"""
from __future__ import annotations

import re

import sympy as sp

from ...description.delta import RigidDelta
from ...exceptions import InputError
from ...symbolic.core import Program, Recorder, Timer

__all__ = ["generate_explicit_delta", "generate_explicit_delta_actuated"]


def generate_explicit_delta(robot: RigidDelta) -> Program:
    """The program with inputs X (3) [m], Xd (3) [m/s], q (3) [rad] and outputs M (3 x 3)
    [kg], C (3 x 3) [kg/s], G (3) [N], J (3 x 3) [rad/m] (qd = J Xd), for the robot's
    numbers; friction is not included (tau_fric of eq. 24 adds to the torques)."""
    if not isinstance(robot, RigidDelta):
        raise InputError("robot", type(robot).__name__, "a RigidDelta")
    geo, m = robot.geometry, robot.masses
    name = "delta_" + re.sub(r"\W", "_", robot.name)
    doc = {"title": f"{robot.name}: rigid Delta, explicit model of Asadi & Heydari 2020 "
                    "(eqs. 39-42): M Xdd + C Xd + G = J^T (tau - tau_fric)",
           "inputs": {"X": "platform centre position [m] (world frame, Z down)",
                      "Xd": "platform velocity [m/s]",
                      "q": f"actuated angles [rad] ({geo.convention} convention) at X"},
           "outputs": {"M": "task-space mass matrix [kg]",
                       "C": "velocity matrix [kg/s] (C Xd: Coriolis and centrifugal forces)",
                       "G": "gravity forces [N]", "J": "qd = J Xd [rad/m] (rows: legs)"}}
    with Timer() as timer:
        X = [sp.Symbol(f"X{k}", real=True) for k in "xyz"]
        Xd = [sp.Symbol(f"Xd{k}", real=True) for k in "xyz"]
        q = [sp.Symbol(f"q{i + 1}", real=True) for i in range(3)]
        rec = Recorder("t")
        out = _generate(robot, rec, sp.Matrix(X), sp.Matrix(Xd), q)
        prog = Program(name, {"X": X, "Xd": Xd, "q": q}, rec.assignments, out, doc).pruned()
    return Program(name, prog.inputs, prog.assignments, out, doc, timer.seconds)


def generate_explicit_delta_actuated(robot: RigidDelta) -> Program:
    """The program ``<name>_qa`` with inputs q (3) [rad], qd (3) [rad/s] and outputs M,
    C, G, J (as :func:`generate_explicit_delta`), X (3) [m], Xd (3) [m/s] (module
    docstring: closed-form forward kinematics, Xd = J^-1 qd)."""
    if not isinstance(robot, RigidDelta):
        raise InputError("robot", type(robot).__name__, "a RigidDelta")
    geo = robot.geometry
    name = "delta_" + re.sub(r"\W", "_", robot.name) + "_qa"
    doc = {"title": f"{robot.name}: rigid Delta, explicit model of Asadi & Heydari 2020 "
                    "(eqs. 39-42) from the actuated joints: X by the three-sphere "
                    "intersection (larger Z, Z down), Xd = J^-1 qd; M Xdd + C Xd + G = "
                    "J^T (tau - tau_fric)",
           "inputs": {"q": f"actuated angles [rad] ({geo.convention} convention)",
                      "qd": "actuated rates [rad/s]"},
           "outputs": {"M": "task-space mass matrix [kg]",
                       "C": "velocity matrix [kg/s] (C Xd: Coriolis and centrifugal forces)",
                       "G": "gravity forces [N]", "J": "qd = J Xd [rad/m] (rows: legs)",
                       "X": "platform centre position [m] (world frame, Z down)",
                       "Xd": "platform velocity [m/s]"}}
    with Timer() as timer:
        q = [sp.Symbol(f"q{i + 1}", real=True) for i in range(3)]
        qd = [sp.Symbol(f"q{i + 1}_d", real=True) for i in range(3)]
        rec = Recorder("t")
        X = _forward_kinematics(robot, rec, q)
        J = _generate(robot, rec, X, sp.zeros(3, 1), q)["J"]       # J needs no Xd
        adj = rec.matrix(J.adjugate())
        det = rec((J[0, :] * adj[:, 0])[0])
        inv = rec(1 / det)
        Xd = rec.matrix(adj * sp.Matrix(qd) * inv)
        out = _generate(robot, rec, X, Xd, q)
        out["X"], out["Xd"] = X, Xd
        prog = Program(name, {"q": q, "qd": qd}, rec.assignments, out, doc).pruned()
    return Program(name, prog.inputs, prog.assignments, out, doc, timer.seconds)


def _forward_kinematics(robot, rec, q) -> sp.Matrix:
    """X(q): the point at distance L2 from the three sphere centres C_i = B_i - r_B e_i
    (elbows B_i = A_i + L1 y_i), on the side of larger Z (as
    :meth:`~elastodyn.kinematics.delta.DeltaKinematics.forward_kinematics`): the
    circumcentre F of the centres plus sqrt(L2^2 - |F - C_0|^2) along the unit normal of
    their plane, turned towards +Z."""
    geo = robot.geometry
    L1, s_ = geo.upper_length, geo.sign
    c = []
    for i, e in enumerate(geo.radial):
        ex, ey = _f(e[0]), _f(e[1])
        cq, sq = rec(sp.cos(q[i])), rec(sp.sin(q[i]))
        r = _f(geo.base_radius - geo.platform_radius)
        c.append(rec.matrix(sp.Matrix([r * ex + _f(L1) * cq * ex, r * ey + _f(L1) * cq * ey,
                                       -_f(L1 * s_) * sq])))
    a, b = rec.matrix(c[1] - c[0]), rec.matrix(c[2] - c[0])
    n = rec.matrix(a.cross(b))
    nn = rec((n.T * n)[0])
    aa, bb = rec((a.T * a)[0]), rec((b.T * b)[0])
    w = rec.matrix((aa * b - bb * a).cross(n))
    inv2nn = rec(1 / (2 * nn))
    d = rec.matrix(w * inv2nn)                       # F - C_0
    h = rec(sp.sqrt(_f(geo.lower_length ** 2) - (d.T * d)[0]))
    k = rec(h * sp.sign(n[2]) / sp.sqrt(nn))
    return rec.matrix(c[0] + d + k * n)


def _f(x) -> sp.Float:
    return sp.Float(float(x), 17)


def _generate(robot, rec, X, Xd, q) -> dict:
    geo, m = robot.geometry, robot.masses
    L1, s_ = geo.upper_length, geo.sign
    rK = m.lower_com_ratio
    beta = (m.motor_inertia + m.upper_inertia + m.upper_mass * (m.upper_com_ratio * L1) ** 2
            + (m.elbow_mass + m.lower_com_mass * (1 - rK) ** 2) * L1 ** 2)
    cl = m.lower_com_mass * rK * (1 - rK) * L1
    MX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK ** 2
    mX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK
    mq = m.upper_mass * m.upper_com_ratio + m.elbow_mass + m.lower_com_mass * (1 - rK)
    g = sp.Matrix([_f(v) for v in robot.gravity])
    M = _f(MX) * sp.eye(3)
    C = sp.zeros(3, 3)
    G = -_f(mX) * g
    J = sp.zeros(3, 3)
    for i, e in enumerate(geo.radial):
        ex, ey = _f(e[0]), _f(e[1])
        c, sn = rec(sp.cos(q[i])), rec(sp.sin(q[i]))
        y = rec.matrix(sp.Matrix([c * ex, c * ey, -_f(s_) * sn]))
        z = rec.matrix(sp.Matrix([-sn * ex, -sn * ey, -_f(s_) * c]))
        A = sp.Matrix([_f(geo.base_radius) * ex, _f(geo.base_radius) * ey, 0])
        off = sp.Matrix([_f(geo.platform_radius) * ex, _f(geo.platform_radius) * ey, 0])
        U = rec.matrix(X + off - A - _f(L1) * y)
        UT = rec(_f(L1) * (U.T * z)[0])
        inv = rec(1 / UT)
        j = rec.matrix(U * inv)
        qd = rec((j.T * Xd)[0])
        Ud = rec.matrix(Xd - _f(L1) * qd * z)
        coef = rec(_f(L1) * (Ud.T * z)[0] - _f(L1) * qd * (U.T * y)[0])
        jd = rec.matrix((Ud - coef * j) * inv)
        bj = rec.matrix(_f(beta) * j + _f(cl) * z)
        M = rec.matrix(M + _f(beta) * j * j.T + _f(cl) * (z * j.T + j * z.T))
        C = rec.matrix(C + bj * jd.T - _f(cl) * qd * y * j.T)
        zg = rec((z.T * g)[0])
        G = rec.matrix(G - _f(L1 * mq) * zg * j)
        J[i, :] = j.T
    return {"M": M, "C": C, "G": G, "J": J}
