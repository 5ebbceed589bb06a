"""Rigid Delta dynamics by two formulations on one mass model.

* :class:`ExplicitDeltaEngine`: Asadi & Heydari 2020, the explicit task-space model
  M(X) Xdd + C(X, Xd) Xd + G(X) - F_P = J^T (tau - tau_fric) (eqs. 39-43), with the
  auxiliary Jacobians (eqs. 19-21) and the three-mass intermediary leg (eq. 22).
* :class:`MultiplierDeltaEngine`: Kuo 2016 section 2.3, the Euler-Lagrange equations in the
  redundant coordinates (X, q) with the loop constraints |D_i - B_i|^2 = L2^2 (eq. 5)
  adjoined by multipliers lambda_i (eqs. 9, 13-16), solved by Kuo's five-step procedure.
  Kuo's Lagrangian (eqs. 11-12) is generalised here to the mass model of
  :class:`~elastodyn.description.delta.DeltaMasses` (upper link with centre of mass and
  inertia, motor inertia, lower link as three lumped masses), so both formulations can
  be run on the same robot and compared; with Kuo's own lumping (lower-link mass at both
  ends) it reduces to his equations up to the misprints listed below.

Conventions: world frame Z down, gravity a vector, actuated angles and torques in the
robot's convention (:mod:`elastodyn.description.delta`). Both models are vectorised over
samples: positions (n, 3) give torques (n, 3).

Departures from the printed papers (each re-derived and tested against an independent
Euler-Lagrange derivation, tests/references/reference_delta_lagrange.py):

* Asadi eq. (40) writes (m_P + 3 m_B) I_3: read m_A (the platform-joint share of the
  intermediary leg), as in eq. (42); there is no m_B in the model.
* Asadi eq. (10) writes U_i^T T_i^T qdd_i: T_i is a vector; read U_i^T T_i qdd_i.
* Kuo eqs. (12)-(16) mix Z up and Z down (errata): here V = -g . sum(m p) for every mass,
  with gravity along +Z, and the constraint gradients are derived from eq. (5) with the
  corrected chain of eq. (3) (Kuo's eq. (13) prints X_P + r cos theta_i - L1 cos phi_1i
  cos theta_i for X_P - (r + L1 cos phi_1i) cos theta_i).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...description.delta import RigidDelta
from ...exceptions import DimensionError, InputError
from ...kinematics.delta import DeltaKinematics, KinematicState, as_points
from .point import PointModel, solve3

__all__ = ["DeltaDynamicsResult", "ExplicitDeltaEngine", "MultiplierDeltaEngine",
           "FORMULATIONS", "delta_model"]


@dataclass(frozen=True, eq=False)
class DeltaDynamicsResult:
    """Inverse dynamics at n samples.

    Attributes
    ----------
    state : KinematicState
        Positions, velocities, accelerations, Jacobians.
    torque : numpy.ndarray, shape (n, 3)
        Actuator torques tau [N m] (robot's sign convention), friction included.
    friction_torque : numpy.ndarray, shape (n, 3)
        tau_fric [N m] (part of ``torque``).
    multipliers : numpy.ndarray, shape (n, 3) or None
        Kuo's lambda_i [N/m] (multiplier model only).
    lower_link_tension : numpy.ndarray, shape (n, 3) or None
        Axial force of each lower link [N], positive in tension: -2 lambda_i L2, the
        force carried between its lumped end masses (multiplier model only).
    """

    state: KinematicState
    torque: np.ndarray
    friction_torque: np.ndarray
    multipliers: np.ndarray | None = None
    lower_link_tension: np.ndarray | None = None


def _force(name, value, n):
    if value is None:
        return np.zeros((n, 3))
    f = np.asarray(value, dtype=float)
    f = np.broadcast_to(f, (n, 3)) if f.shape in ((3,), (n, 3)) else None
    if f is None:
        raise DimensionError(f"invalid {name}: expected shape (3,) or ({n}, 3), "
                             f"got {np.shape(value)}")
    if not np.all(np.isfinite(f)):
        raise InputError(name, value, "finite values")
    return f


class _DeltaModel:
    """Shared parts: kinematics, energies, state-space right-hand side."""

    formulation = ""

    def __init__(self, robot: RigidDelta, *, kinematics: DeltaKinematics | None = None):
        if not isinstance(robot, RigidDelta):
            raise InputError("robot", robot, "a RigidDelta")
        self.robot = robot
        self.kinematics = kinematics or DeltaKinematics(robot.geometry)
        self.g = np.asarray(robot.gravity, dtype=float)
        g, m = robot.geometry, robot.masses
        self._L1 = g.upper_length
        # rotational inertia of a leg about its actuated axis, without the lower link
        self._I_leg = m.motor_inertia + m.upper_inertia + m.upper_mass * (m.upper_com_ratio * g.upper_length) ** 2
        self._point = PointModel(robot, self.kinematics)   # scalar fast path

    # ---------------------------------------------------------------- energies

    def energy(self, X, Xd) -> tuple[np.ndarray, np.ndarray]:
        """Kinetic and potential energy [J] of the lumped model, each shape (n,).

        Computed from the velocity of every body (independently of M): the platform and
        m_A translate with Xd, the elbow moves with T_i qd_i, m_K with
        (1 - r_K) T_i qd_i + r_K Xd, the upper link rotates about its axis. The potential
        is -g . sum(m p) (gravity along +Z with Z down: Kuo errata).
        """
        st = self.kinematics.state(X, Xd)
        return self._energy(st)

    def _energy(self, st: KinematicState):
        m = self.robot.masses
        g = self.g
        rk = m.lower_com_ratio
        A = self.kinematics.base_joints
        vK = (1 - rk) * st.T * st.qd[..., None] + rk * st.Xd[:, None, :]
        T = (0.5 * (m.platform + 3 * m.platform_joint_mass) * np.einsum("ni,ni->n", st.Xd, st.Xd)
             + 0.5 * (self._I_leg + m.elbow_mass * self._L1**2) * np.sum(st.qd**2, axis=1)
             + 0.5 * m.lower_com_mass * np.einsum("nij,nij->n", vK, vK))
        p_upper = A + m.upper_com_ratio * (st.B - A)
        p_K = st.B + rk * st.U
        weighted = (m.platform * st.X + m.platform_joint_mass * st.D.sum(axis=1)
                    + m.upper_mass * p_upper.sum(axis=1) + m.elbow_mass * st.B.sum(axis=1)
                    + m.lower_com_mass * p_K.sum(axis=1))
        V = -weighted @ g
        return T, V

    # ---------------------------------------------------------------- interfaces

    def inverse_dynamics(self, X, Xd, Xdd, force=None, *, q=None) -> DeltaDynamicsResult:
        """Actuator torques for a platform motion.

        Parameters
        ----------
        X, Xd, Xdd : array_like, shape (3,) or (n, 3)
            Platform position [m], velocity [m/s], acceleration [m/s^2].
        force : array_like, shape (3,) or (n, 3), optional
            External force F_P on the platform [N].
        q : array_like, optional
            Actuated angles, if known (skips the inverse kinematics).

        Returns
        -------
        DeltaDynamicsResult (arrays with a leading sample axis)
        """
        st = self.kinematics.state(X, Xd, Xdd, q=q)
        return self._inverse(st, _force("force", force, len(st.X)))

    def forward_dynamics(self, X, Xd, torque, force=None) -> np.ndarray:
        """Platform acceleration Xdd [m/s^2] under actuator torques [N m].

        Parameters
        ----------
        X, Xd : array_like, shape (3,) or (n, 3)
        torque : array_like, shape (3,) or (n, 3)
            tau [N m] (friction is subtracted inside).
        force : array_like, optional
            External force on the platform [N].

        Returns
        -------
        numpy.ndarray, shape (3,) or (n, 3)
        """
        single = np.asarray(X).ndim == 1
        st = self.kinematics.state(X, Xd)
        tau = as_points("torque", torque)[0]
        tau = np.broadcast_to(tau, st.X.shape)
        Xdd = self._forward(st, tau, _force("force", force, len(st.X)))
        return Xdd[0] if single else Xdd

    def rhs(self, t, x, u=None, params=None) -> np.ndarray:
        """State-space right-hand side d/dt (X, Xd) (Asadi eq. 43), python-control style.

        ``u`` is the torque vector [N m] (or ``None`` for zero torque).
        """
        x = np.asarray(x, dtype=float)
        tau = np.zeros(3) if u is None else np.asarray(u, dtype=float)
        Xdd = self.forward_dynamics(x[:3], x[3:], tau)
        return np.concatenate([x[3:], Xdd])

    def joint_point(self, X, Xd, Xdd=None):
        """Joint angles, rates, accelerations and J, Jd at one configuration (scalar
        fast path, elbows out).

        Returns
        -------
        (q, qd, qdd, J, Jd) : arrays (3,), (3,), (3,), (3, 3), (3, 3)
        """
        legs = self._point.legs([float(v) for v in X], [float(v) for v in Xd])
        q = np.array([leg[0] for leg in legs])
        qd = np.array([leg[1] for leg in legs])
        J = np.array([leg[2] for leg in legs])
        Jd = np.array([leg[3] for leg in legs])
        Xd = np.asarray(Xd, dtype=float)
        qdd = Jd @ Xd if Xdd is None else J @ np.asarray(Xdd, dtype=float) + Jd @ Xd
        return q, qd, qdd, J, Jd

    def torque_point(self, X, Xd, Xdd) -> np.ndarray:
        """Inverse dynamics at one configuration: tau (3,) [N m], friction included."""
        return self.inverse_dynamics(X, Xd, Xdd).torque[0]

    def _friction(self, st):
        f = self.robot.friction
        return np.zeros_like(st.qd) if f.is_zero else f.torque(st.qd)


class ExplicitDeltaEngine(_DeltaModel):
    """Asadi & Heydari 2020 explicit model M Xdd + C Xd + G - F_P = J^T (tau - tau_fric).

    Parameters
    ----------
    robot : RigidDelta
    kinematics : DeltaKinematics, optional
        Shared kinematics object (for its singularity thresholds).
    """

    formulation = "explicit"


    def point(self, X, Xd=(0.0, 0.0, 0.0)):
        """M, C Xd, G and J at one configuration by the scalar fast path (~10x faster
        than :meth:`matrices` for a single point; same equations, simplified closed form
        in :mod:`elastodyn.formulations.rigid_delta.point`).

        Parameters
        ----------
        X, Xd : array_like, shape (3,)

        Returns
        -------
        (M (3, 3), h (3,), G (3,), J (3, 3)) numpy arrays, h = C(X, Xd) Xd.
        """
        X = [float(v) for v in X]
        Xd = [float(v) for v in Xd]
        M, h, G, J, _, _ = self._point.mhgj(X, Xd)
        return np.array(M), np.array(h), np.array(G), np.array(J)

    def rhs(self, t, x, u=None, params=None) -> np.ndarray:
        """State-space right-hand side d/dt (X, Xd) (Asadi eq. 43), python-control style,
        by the scalar fast path. ``u``: torques [N m] (``None``: zero)."""
        X = [float(v) for v in x[:3]]
        Xd = [float(v) for v in x[3:6]]
        M, h, G, J, _, qd = self._point.mhgj(X, Xd)
        tau = [0.0, 0.0, 0.0] if u is None else [float(v) for v in u]
        if not self.robot.friction.is_zero:
            tau = [a - b for a, b in zip(tau, self.robot.friction.torque(qd).tolist())]
        # J^T (tau - tau_fric) - C Xd - G
        b = [J[0][k] * tau[0] + J[1][k] * tau[1] + J[2][k] * tau[2] - h[k] - G[k]
             for k in range(3)]
        return np.array(Xd + solve3(M, b))

    def torque_point(self, X, Xd, Xdd) -> np.ndarray:
        X = [float(v) for v in X]
        Xd = [float(v) for v in Xd]
        M, h, G, J, _, qd = self._point.mhgj(X, Xd)
        rhs = np.array(M) @ np.asarray(Xdd, dtype=float) + np.array(h) + np.array(G)
        tau = solve3(np.array(J).T.tolist(), rhs.tolist())
        if not self.robot.friction.is_zero:
            tau = np.asarray(tau) + self.robot.friction.torque(qd)
        return np.asarray(tau)

    def _leg_frames(self, st: KinematicState) -> np.ndarray:
        """O_i^T R_i^T: rows are the leg frame axes (actuated axis, along the upper link,
        across it in the direction of T_i) in world coordinates; shape (n, 3, 3, 3)."""
        n = len(st.X)
        axes = np.broadcast_to(self.robot.geometry.axes, (n, 3, 3))
        y = (st.B - self.kinematics.base_joints) / self._L1
        z = st.T / self._L1
        return np.stack([axes, y, z], axis=-2)

    def matrices(self, X, Xd=None, *, q=None):
        """M [kg], C [kg/s], G [N] and J [rad/m] of eqs. (40)-(42) and (9).

        Parameters
        ----------
        X, Xd : array_like, shape (3,) or (n, 3)

        Returns
        -------
        (M, C, G, J) with shapes (n, 3, 3), (n, 3, 3), (n, 3), (n, 3, 3)
        """
        st = self.kinematics.state(X, Xd, q=q)
        M, C, G = self._mcg(st)
        return M, C, G, st.J

    def _mcg(self, st: KinematicState):
        m = self.robot.masses
        lL, rL, rK = self._L1, m.upper_com_ratio, m.lower_com_ratio
        n = len(st.X)
        W = self._leg_frames(st)                                      # (n, leg, 3, 3)
        E3J = np.zeros((n, 3, 3, 3))
        E3J[:, :, 2, :] = st.J                                        # [0; 0; J_i]
        Acc = np.zeros((n, 3, 3, 3))
        Acc[:, :, 1, :] = -st.qd[..., None] * st.J                    # -Xd^T J_i^T J_i
        Acc[:, :, 2, :] = st.Jd                                       # Jd_i
        J_L = rL * lL * E3J                                           # eq. (19)
        J_K = (1 - rK) * lL * E3J + rK * W                            # eq. (20)
        J_C = lL * E3J                                                # eq. (21)
        tr = lambda a: np.swapaxes(a, -1, -2)                          # noqa: E731
        S = (m.elbow_mass * lL * tr(J_C) + m.upper_mass * rL * lL * tr(J_L)
             + m.lower_com_mass * (1 - rK) * lL * tr(J_K))
        I_rot = m.motor_inertia + m.upper_inertia
        JT = tr(st.J)
        # eq. (40), with m_A for the printed m_B
        M = (I_rot * JT @ st.J + (m.platform + 3 * m.platform_joint_mass) * np.eye(3)
             + np.sum(m.lower_com_mass * rK * tr(J_K) @ W + S @ E3J, axis=1))
        # eq. (41)
        C = I_rot * JT @ st.Jd + np.sum(S @ Acc, axis=1)
        # eq. (42)
        Wg = W @ self.g                                               # (n, leg, 3)
        G = (-(m.platform + 3 * m.platform_joint_mass) * self.g
             - np.einsum("nlij,nlj->ni", m.elbow_mass * tr(J_C) + m.upper_mass * tr(J_L)
                         + m.lower_com_mass * tr(J_K), Wg))
        return M, C, G

    def _inverse(self, st, force):
        M, C, G = self._mcg(st)
        rhs = (np.einsum("nij,nj->ni", M, st.Xdd) + np.einsum("nij,nj->ni", C, st.Xd)
               + G - force)
        tau_f = self._friction(st)
        # eq. (39): J^T (tau - tau_fric) = M Xdd + C Xd + G - F_P
        tau = np.linalg.solve(np.swapaxes(st.J, -1, -2), rhs[..., None])[..., 0] + tau_f
        return DeltaDynamicsResult(st, tau, tau_f)

    def _forward(self, st, tau, force):
        M, C, G = self._mcg(st)
        tau_f = self._friction(st)
        # eq. (43)
        rhs = (np.einsum("nji,nj->ni", st.J, tau - tau_f) - np.einsum("nij,nj->ni", C, st.Xd)
               - G + force)
        return np.linalg.solve(M, rhs[..., None])[..., 0]


class MultiplierDeltaEngine(_DeltaModel):
    """Kuo 2016 section 2.3: Lagrange equations in (X, q) with multipliers lambda_i.

    Equations (generalising Kuo eqs. 13-16 to the lumped mass model; c_K = m_K r_K (1-r_K),
    T'_i = d2B_i/dq_i^2 = -(B_i - A_i)):

    * platform (Kuo 13-15):
      M_X Xdd + c_K sum_i (T_i qdd_i + T'_i qd_i^2) - m_X g - 2 sum_i lambda_i U_i = F_P,
      M_X = m_P + 3 m_A + 3 m_K r_K^2, m_X = m_P + 3 m_A + 3 m_K r_K;
    * leg i (Kuo 16):
      I_i qdd_i + c_K T_i . Xdd - m_q g . T_i + 2 lambda_i U_i . T_i = tau_i - tau_fric,i,
      I_i = I_mo + I_L + m_L (r_L L1)^2 + (m_C + m_K (1-r_K)^2) L1^2,
      m_q = m_L r_L + m_C + m_K (1 - r_K),

    from the constraint Phi_i = |U_i|^2 - L2^2 (dPhi/dX = 2 U_i, dPhi/dq_i = -2 U_i . T_i).
    Inverse dynamics follows Kuo's five steps: path -> inverse kinematics -> rates ->
    lambda from the platform equations -> tau from the leg equations.
    """

    formulation = "multipliers"


    def torque_point(self, X, Xd, Xdd) -> np.ndarray:
        """Kuo's five steps at one configuration by the scalar fast path: tau (3,) [N m],
        friction included."""
        X, Xd, Xdd = ([float(v) for v in a] for a in (X, Xd, Xdd))
        tau, _ = self._point.multiplier_torque(X, Xd, Xdd)
        if not self.robot.friction.is_zero:
            qd = [leg[1] for leg in self._point.legs(X, Xd)]
            tau = np.asarray(tau) + self.robot.friction.torque(qd)
        return np.asarray(tau)

    def _coefficients(self):
        m = self.robot.masses
        rK, L1 = m.lower_com_ratio, self._L1
        cK = m.lower_com_mass * rK * (1 - rK)
        MX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK**2
        mX = m.platform + 3 * m.platform_joint_mass + 3 * m.lower_com_mass * rK
        I = self._I_leg + (m.elbow_mass + m.lower_com_mass * (1 - rK) ** 2) * L1**2
        mq = m.upper_mass * m.upper_com_ratio + m.elbow_mass + m.lower_com_mass * (1 - rK)
        return cK, MX, mX, I, mq

    def _inverse(self, st, force):
        cK, MX, mX, I, mq = self._coefficients()
        Tp = -(st.B - self.kinematics.base_joints)
        # step 4: platform equations -> lambda
        lhs_X = (MX * st.Xdd + cK * np.einsum("nij,ni->nj", st.T, st.qdd)
                 + cK * np.einsum("nij,ni->nj", Tp, st.qd**2) - mX * self.g - force)
        A = 2.0 * np.swapaxes(st.U, -1, -2)                           # columns 2 U_i
        lam = np.linalg.solve(A, lhs_X[..., None])[..., 0]
        # step 5: leg equations -> tau
        UT = np.einsum("nij,nij->ni", st.U, st.T)
        tau_f = self._friction(st)
        tau = (I * st.qdd + cK * np.einsum("nij,nj->ni", st.T, st.Xdd)
               - mq * np.einsum("nij,j->ni", st.T, self.g) + 2.0 * lam * UT + tau_f)
        tension = -2.0 * lam * self.robot.geometry.lower_length
        return DeltaDynamicsResult(st, tau, tau_f, lam, tension)

    def _forward(self, st, tau, force):
        """Solve the 6 equations for (Xdd, lambda) with qdd = J Xdd + Jd Xd."""
        cK, MX, mX, I, mq = self._coefficients()
        n = len(st.X)
        Tp = -(st.B - self.kinematics.base_joints)
        Jd_Xd = np.einsum("nij,nj->ni", st.Jd, st.Xd)
        UT = np.einsum("nij,nij->ni", st.U, st.T)
        tau_f = self._friction(st)
        K = np.zeros((n, 6, 6))
        b = np.zeros((n, 6))
        # platform rows: [M_X I + c_K sum_i T_i J_i] Xdd - 2 U^T lambda = ...
        K[:, :3, :3] = MX * np.eye(3) + cK * np.einsum("nli,nlj->nij", st.T, st.J)
        K[:, :3, 3:] = -2.0 * np.swapaxes(st.U, -1, -2)
        b[:, :3] = (force + mX * self.g - cK * np.einsum("nli,nl->ni", st.T, Jd_Xd)
                    - cK * np.einsum("nli,nl->ni", Tp, st.qd**2))
        # leg rows: [I J_i + c_K T_i^T] Xdd + 2 U_i.T_i lambda_i = ...
        K[:, 3:, :3] = I * st.J + cK * st.T
        K[:, 3:, 3:] = 2.0 * UT[..., None] * np.eye(3)
        b[:, 3:] = tau - tau_f + mq * np.einsum("nij,j->ni", st.T, self.g) - I * Jd_Xd
        return np.linalg.solve(K, b[..., None])[:, :3, 0]


FORMULATIONS = {"explicit": ExplicitDeltaEngine, "multipliers": MultiplierDeltaEngine}


def delta_model(robot: RigidDelta, formulation: str = "explicit"):
    """Build the rigid Delta model of ``formulation`` ("explicit": Asadi 2020;
    "multipliers": Kuo 2016)."""
    if formulation not in FORMULATIONS:
        raise InputError("formulation", formulation, "one of " + ", ".join(FORMULATIONS))
    return FORMULATIONS[formulation](robot)
