"""Scalar (one configuration) fast path of the explicit rigid Delta model.

Plain-Python floats and the ``math`` module: at one point this is ~10x faster than the
vectorised numpy code, whose per-call overhead dominates for 3x3 matrices. It is used for
time simulation (one right-hand side per call) and for real-time style evaluation.

Closed form of Asadi & Heydari 2020 eqs. (40)-(42), simplified with the leg frame
W_i = [x_i; y_i; z_i] (actuated axis, along the upper link, along T_i) and the rows
j_i of J (eq. 9): with E3J_i = e3 j_i, J_Li = r_L l_L E3J_i, J_Ci = l_L E3J_i and
J_Ki = (1 - r_K) l_L E3J_i + r_K W_i (eqs. 19-21), and W^T W = I,

    M = sum_i [beta j_i j_i^T + c_K l_L (z_i j_i^T + j_i z_i^T)] + M_X I
    C Xd = sum_i [(jd_i . Xd)(beta j_i + c_K l_L z_i) - c_K l_L qd_i^2 y_i]
    G = -m_X g - sum_i l_L m_q (z_i . g) j_i

with beta = I_mo + I_L + m_L (r_L l_L)^2 + (m_C + m_K (1 - r_K)^2) l_L^2,
c_K = m_K r_K (1 - r_K), M_X = m_P + 3 m_A + 3 m_K r_K^2, m_X = m_P + 3 m_A + 3 m_K r_K,
m_q = m_L r_L + m_C + m_K (1 - r_K). Tests check it against the literal eqs. (40)-(42)
and the independent Euler-Lagrange reference.
"""
from __future__ import annotations

import math

from ...kinematics.delta import UnreachableError


class PointModel:
    """Constants of one robot, and the one-point evaluation."""

    __slots__ = ("e", "A", "s", "r", "rB", "L1", "L2", "beta", "cK", "MX", "mX", "mq", "g",
                 "kin", "min_cos")

    def __init__(self, robot, kinematics):
        geo, m = robot.geometry, robot.masses
        self.kin = kinematics
        self.e = [tuple(float(v) for v in row) for row in geo.radial]
        self.A = [(geo.base_radius * e[0], geo.base_radius * e[1], 0.0) for e in self.e]
        self.s = geo.sign
        self.r = geo.offset
        self.rB = geo.platform_radius
        self.L1 = geo.upper_length
        self.L2 = geo.lower_length
        # serial-singularity guard: |cos gamma_i| = |U_i . T_i| / (L1 L2) below this
        # raises through the vectorised checker (see DeltaKinematics.condition_number)
        self.min_cos = 1.0 / kinematics.max_condition
        rK, L1 = m.lower_com_ratio, geo.upper_length
        self.beta = (m.motor_inertia + m.upper_inertia + m.upper_mass * (m.upper_com_ratio * L1) ** 2
                     + (m.elbow_mass + m.lower_com_mass * (1 - rK) ** 2) * L1**2)
        self.cK = m.lower_com_mass * rK * (1 - rK)
        self.MX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK**2
        self.mX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK
        self.mq = m.upper_mass * m.upper_com_ratio + m.elbow_mass + m.lower_com_mass * (1 - rK)
        self.g = tuple(float(v) for v in robot.gravity)

    def legs(self, X, Xd):
        """Per-leg kinematics at one point: lists of q, qd, j, jd, y, z, (elbow-out IK).

        Raises UnreachableError (through the vectorised checker, for its message) when a
        leg cannot reach X.
        """
        x, y_, z_ = X
        xd, yd, zd = Xd
        s, L1, L2 = self.s, self.L1, self.L2
        out = []
        for i in range(3):
            ex, ey, _ = self.e[i]
            px, py, pz = x - self.r * ex, y_ - self.r * ey, z_
            rho = px * ex + py * ey
            zeta = pz
            k = (px * px + py * py + pz * pz + L1 * L1 - L2 * L2) / (2.0 * L1)
            a, b = rho, -s * zeta
            R = math.hypot(a, b)
            if not abs(k) <= R * (1.0 + 1e-12):   # same tolerance as the vectorised IK
                self.kin.check_reachable([x, y_, z_])
                raise UnreachableError(f"invalid X: point ({x:.6g}, {y_:.6g}, {z_:.6g}) m is "
                                       f"unreachable by leg {i + 1}; allowed: a point inside "
                                       "the workspace", X, i + 1)
            psi = math.atan2(b, a)
            d = math.acos(max(-1.0, min(1.0, k / R)))
            q = psi + d
            c, sn = math.cos(q), math.sin(q)
            if c * zeta + s * sn * rho < 0.0:      # elbow-out rule (kinematics docstring)
                q = psi - d
                c, sn = math.cos(q), math.sin(q)
            # elbow direction y, T = L1 z
            yx, yy, yz = c * ex, c * ey, -s * sn
            zx, zy, zz = -sn * ex, -sn * ey, -s * c
            Ax, Ay, _ = self.A[i]
            Ux = x + self.rB * ex - Ax - L1 * yx
            Uy = y_ + self.rB * ey - Ay - L1 * yy
            Uz = z_ - L1 * yz
            UT = L1 * (Ux * zx + Uy * zy + Uz * zz)
            if abs(UT) <= self.min_cos * L1 * L2:
                self.kin.check_singularity([x, y_, z_])
            jx, jy, jz = Ux / UT, Uy / UT, Uz / UT
            qd = jx * xd + jy * yd + jz * zd
            # Ud = Xd - T qd, Td = -(B - A) qd = -L1 y qd  (eq. 7, 12)
            Udx, Udy, Udz = xd - L1 * zx * qd, yd - L1 * zy * qd, zd - L1 * zz * qd
            coef = L1 * (Udx * zx + Udy * zy + Udz * zz) - L1 * qd * (Ux * yx + Uy * yy + Uz * yz)
            jd = ((Udx - coef * jx) / UT, (Udy - coef * jy) / UT, (Udz - coef * jz) / UT)
            out.append((q, qd, (jx, jy, jz), jd, (yx, yy, yz), (zx, zy, zz), UT))
        return out

    def mhgj(self, X, Xd):
        """(M, h = C Xd, G, J, q, qd) at one point, as nested tuples/lists."""
        legs = self.legs(X, Xd)
        beta, cK, L1 = self.beta, self.cK, self.L1
        g = self.g
        M = [[self.MX, 0.0, 0.0], [0.0, self.MX, 0.0], [0.0, 0.0, self.MX]]
        h = [0.0, 0.0, 0.0]
        G = [-self.mX * g[0], -self.mX * g[1], -self.mX * g[2]]
        cl = cK * L1
        xd = Xd
        for q, qd, j, jd, yv, zv, _ in legs:
            jdx = jd[0] * xd[0] + jd[1] * xd[1] + jd[2] * xd[2]
            zg = zv[0] * g[0] + zv[1] * g[1] + zv[2] * g[2]
            for a in range(3):
                for b in range(3):
                    M[a][b] += beta * j[a] * j[b] + cl * (zv[a] * j[b] + j[a] * zv[b])
                h[a] += jdx * (beta * j[a] + cl * zv[a]) - cl * qd * qd * yv[a]
                G[a] -= L1 * self.mq * zg * j[a]
        J = [leg[2] for leg in legs]
        return M, h, G, J, [leg[0] for leg in legs], [leg[1] for leg in legs]


    def multiplier_torque(self, X, Xd, Xdd):
        """Kuo's five-step inverse dynamics at one point (see MultiplierDeltaEngine):
        returns (tau, lambda) as lists; friction not included."""
        legs = self.legs(X, Xd)
        g, L1, cK = self.g, self.L1, self.cK
        I = self.beta
        # platform equations: 2 sum lambda_i U_i = rhs
        rhs = [self.MX * Xdd[k] - self.mX * g[k] for k in range(3)]
        cols = []
        qdd = []
        for q, qd, j, jd, yv, zv, UT in legs:
            a = (j[0] * Xdd[0] + j[1] * Xdd[1] + j[2] * Xdd[2]
                 + jd[0] * Xd[0] + jd[1] * Xd[1] + jd[2] * Xd[2])
            qdd.append(a)
            for k in range(3):   # T = L1 z, T' = -L1 y
                rhs[k] += cK * L1 * (zv[k] * a - yv[k] * qd * qd)
            cols.append((2.0 * UT * j[0], 2.0 * UT * j[1], 2.0 * UT * j[2]))   # 2 U_i
        lam = solve3([[cols[0][k], cols[1][k], cols[2][k]] for k in range(3)], rhs)
        tau = []
        for (q, qd, j, jd, yv, zv, UT), a, lm in zip(legs, qdd, lam):
            Tx = L1 * (zv[0] * Xdd[0] + zv[1] * Xdd[1] + zv[2] * Xdd[2])
            Tg = L1 * (zv[0] * g[0] + zv[1] * g[1] + zv[2] * g[2])
            tau.append(I * a + cK * Tx - self.mq * Tg + 2.0 * lm * UT)
        return tau, lam


def solve3(A, b):
    """Solve a 3x3 linear system by Cramer's rule (pure Python)."""
    (a, b_, c), (d, e, f), (g, h, i) = A
    co0 = e * i - f * h
    co1 = f * g - d * i
    co2 = d * h - e * g
    det = a * co0 + b_ * co1 + c * co2
    x0, x1, x2 = b
    return [
        (x0 * co0 + b_ * (f * x2 - x1 * i) + c * (x1 * h - e * x2)) / det,
        (a * (x1 * i - f * x2) + x0 * co1 + c * (d * x2 - x1 * g)) / det,
        (a * (e * x2 - x1 * h) + b_ * (x1 * g - d * x2) + x0 * co2) / det,
    ]
