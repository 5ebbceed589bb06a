"""Independent rigid-body reference of the nonsymmetric planar 3-PRR (test oracle).

Rigid model of the 3-PRR parallel manipulator of Rosyid & El-Khasawneh (2020),
"Multibody Dynamics of Nonsymmetric Planar 3PRR Parallel Manipulator with Fully
Flexible Links", Appl. Sci. 10(14) 4816, sections 3 and 8.1-8.2, for checking the
floating-frame-of-reference engine in its rigid limit.  It imports nothing from
``elastodyn``; only numpy and scipy.  The equations are written in JOINT coordinates
(slider positions, leg angles, platform angle) with loop-closure constraints and
Lagrange multipliers, not in the engine's absolute body coordinates.

Geometry and conventions (SI units, plane (X, Y), gravity g along -Y)
---------------------------------------------------------------------
* Slider i moves along X on the rail Y = 0; its position is s_i, its pin is
  P_i = (s_i, 0): A = P_1, B = P_2, C = P_3.
* Leg i is a rigid bar of length L_i from its slider pin P_i, at the angle phi_i from
  +X (counter-clockwise); its tip is P_i + L_i u(phi_i), u(a) = (cos a, sin a).
  Its centre of mass is on the bar at L_iG from the SLIDER pin (decision: the paper's
  body frame of a leg has its origin at the slider joint and the fixed-free elastic
  conditions clamp that end, so its COM offsets are read from that origin).
* The platform is a rigid bar from D (its origin joint, the tip of leg 2) to
  E = D + xp u(theta); theta is the angle of D->E, and its COM is at D + xPG u(theta).
  The upper joints of legs 1 and 3 are both at E (xp2 = xp3 = xp): leg 1 and leg 3
  end at E, leg 2 ends at D.  The end-effector is D.
* Sliders: mass only (they translate); legs and platform: mass and inertia about
  their COM.  No friction.  Applied loads: slider forces Q_i along +X.
* Start: D = (0, 0.40) m, theta = 0, at rest; assembly mode: A left of E, B right of D
  (legs 1 and 2 cross), C right of E, E above the rail.  This gives B = (0.3, 0),
  A = (0.315 - sqrt(0.486^2 - 0.4^2), 0), C = (0.315 + sqrt(0.507^2 - 0.4^2), 0).

Coordinates and equations
-------------------------
q = (s1, s2, s3, phi1, phi2, phi3, theta) (size 7), with the closure Phi(q) = 0 (4):
    Phi_1,2 = A + L1 u(phi1) - (B + L2 u(phi2) + xp u(theta))   (leg 1 tip = E)
    Phi_3,4 = C + L3 u(phi3) - (B + L2 u(phi2) + xp u(theta))   (leg 3 tip = E)
The equations of motion are Lagrange's with multipliers lambda (4):
    M(q) qdd + h(q, qd) + Phi_q^T lambda = Q_applied + Q_gravity,
    Phi_q qdd = -gamma(q, qd),   gamma = (d/dt Phi_q) qd,
where M = sum over bodies of m J_G^T J_G + I_G J_w^T J_w (J_G: COM Jacobian, J_w: angular
velocity row), h = sum m J_G^T (dJ_G/dt qd) and Q_gravity = sum m J_G^T (0, -g).  The
mechanism has 3 degrees of freedom.

Forward dynamics integrates the independent coordinates z = (s1, phi1, theta) and
their rates (coordinate partitioning); the dependent (s2, s3, phi2, phi3) are found in
closed form (E = A + L1 u(phi1), D = E - xp u(theta), then legs 3 and 2 on their
start branches), so the closure holds to round-off at every step and there is no
drift.  This partition stays regular through both direct-kinematics singularities of
the sliders-as-inputs mechanism (E on the rail, B-D-E collinear), so the integration
reaches them smoothly and the event locates them accurately; it fails only if leg 2
or leg 3 turns vertical, which a second event reports.  The accelerations come from
the full augmented system above (11 unknowns, qdd and lambda), not from a reduced
mass matrix.

Inverse dynamics uses the other partition, the sliders s as independent: the passive
p = (phi1, phi2, phi3, theta) come from circle intersections in the assembly mode,
pd = -Phi_p^-1 Phi_s sd, pdd = -Phi_p^-1 (Phi_s sdd + gamma), then lambda from the four
passive rows and Q from the three slider rows.

Singularity: Phi_p = dPhi/dp (4 x 4) is singular when the sliders no longer determine
the pose (direct-kinematics, "type II" singularity).  Its scaled determinant
det(Phi_p) / (L1 L2 L3 xp) = sin(phi3 - phi1) sin(theta - phi2) vanishes when legs 1
and 3 are aligned (E on the rail) or when leg 2 and the platform are aligned (B, D, E
collinear).  Forward dynamics stops at its first zero.

Outcome for the paper's cases (gravity 9.81 m/s^2 along -Y, sliders free but for the
loads of section 8.2): nothing holds the 44 kg of legs and platform up, so it falls;
D crosses the rail height near 0.325 s (no contact is modelled) and E reaches the
rail, the first singularity, at 0.3830 s (no load), 0.3869 s (sinusoid 10, 2, 2 N), 0.3884 s
(sinusoid 10, -2, -2 N) and 0.3899 s (pulse 10, -2, -2 N).  With gravity 0 (the
robot lying in a horizontal plane) all three loads run 0-4 s without a singularity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.integrate

# ---------------------------------------------------------------- parameters (SI)
LEG_LENGTHS = np.array([0.486, 0.500, 0.507])          # L1, L2, L3 [m]
LEG_COM = np.array([0.199, 0.2448685, 0.2389118])       # L1G, L2G, L3G from slider [m]
PLATFORM_LENGTH = 0.315                                 # xp = xp2 = xp3, D -> E [m]
PLATFORM_COM = 0.1659629                                # xPG from D along D->E [m]
SLIDER_MASS = np.array([7.0, 7.0, 7.0])                 # ms1..3 [kg]
LEG_MASS = np.array([8.5, 9.8470, 10.8420])             # mL1..3 [kg]
PLATFORM_MASS = 15.2425                                 # mp [kg]
LEG_INERTIA = np.array([0.1673, 0.2051, 0.2322])        # IG1..3 about COM [kg m^2]
PLATFORM_INERTIA = 0.1260                               # IGp about COM [kg m^2]
GRAVITY = 9.81                                          # along -Y [m/s^2]

D_START = np.array([0.0, 0.40])                          # end-effector D at t = 0 [m]
THETA_START = 0.0                                        # platform angle at t = 0 [rad]

NQ = 7
SLIDERS = (0, 1, 2)            # s1, s2, s3 in q
PASSIVE = (3, 4, 5, 6)         # phi1, phi2, phi3, theta in q
INDEPENDENT = (0, 3, 6)        # forward-dynamics state: s1, phi1, theta
DEPENDENT = (1, 2, 4, 5)       # s2, s3, phi2, phi3

# the D branch of the circles about E (radius xp) and B (radius L2): D = P - h n with
# n = perp(B - E)/|B - E| (perp(v) = (-v_y, v_x)); checked at the start pose by the
# tests (initial_configuration reproduces D_START).  It changes only through B, D, E
# collinear, i.e. through the singularity.
_D_BRANCH = -1.0

_L1, _L2, _L3 = LEG_LENGTHS
_XP = PLATFORM_LENGTH


def _u(a):
    return np.array([np.cos(a), np.sin(a)])


def _perp(a):
    """d u(a)/da = (-sin a, cos a)."""
    return np.array([-np.sin(a), np.cos(a)])


# ---------------------------------------------------------------- closure
def closure(q):
    """Loop-closure residual Phi(q), shape (4,) [m]: (leg 1 tip - E, leg 3 tip - E)."""
    q = np.asarray(q, dtype=float)
    s1, s2, s3, p1, p2, p3, th = q
    e_from_d = np.array([s2, 0.0]) + _L2 * _u(p2) + _XP * _u(th)
    return np.concatenate([np.array([s1, 0.0]) + _L1 * _u(p1) - e_from_d,
                           np.array([s3, 0.0]) + _L3 * _u(p3) - e_from_d])


def closure_jacobian(q):
    """Phi_q = dPhi/dq, shape (4, 7) [1, m]."""
    q = np.asarray(q, dtype=float)
    p2, th = q[4], q[6]
    J = np.zeros((4, NQ))
    ex = np.array([1.0, 0.0])
    for rows, slider, leg, length in (((0, 1), 0, 3, _L1), ((2, 3), 2, 5, _L3)):
        r = list(rows)
        J[r, slider] = ex
        J[r, 1] = -ex
        J[r, leg] = length * _perp(q[leg])
        J[r, 4] = -_L2 * _perp(p2)
        J[r, 6] = -_XP * _perp(th)
    return J


def closure_gamma(q, qd):
    """gamma = (d/dt Phi_q) qd, shape (4,) [m/s^2]."""
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    common = -_L2 * qd[4] ** 2 * _u(q[4]) - _XP * qd[6] ** 2 * _u(q[6])
    return np.concatenate([-_L1 * qd[3] ** 2 * _u(q[3]) - common,
                           -_L3 * qd[5] ** 2 * _u(q[5]) - common])


def singularity_measure(q):
    """det(Phi_p) / (L1 L2 L3 xp): zero at a direct-kinematics singularity.

    Phi_p is the closure Jacobian with respect to the passive coordinates
    (phi1, phi2, phi3, theta); the value equals sin(phi3 - phi1) sin(theta - phi2).
    """
    J = closure_jacobian(q)[:, PASSIVE]
    return np.linalg.det(J) / (_L1 * _L2 * _L3 * _XP)


# ---------------------------------------------------------------- positions
def joint_positions(q):
    """Dict of the joint points A, B, C, D, E, each shape (2,) [m]."""
    s1, s2, s3, p1, p2, p3, th = np.asarray(q, dtype=float)
    D = np.array([s2, 0.0]) + _L2 * _u(p2)
    return {"A": np.array([s1, 0.0]), "B": np.array([s2, 0.0]), "C": np.array([s3, 0.0]),
            "D": D, "E": D + _XP * _u(th)}


def _upper_joint(s1, s3):
    """E from the sliders 1 and 3 (circle intersection, E above the rail)."""
    d = s3 - s1
    a = (d * d + _L1 ** 2 - _L3 ** 2) / (2.0 * d)
    h2 = _L1 ** 2 - a * a
    if not h2 > 0.0:
        raise ValueError(f"legs 1 and 3 cannot reach a common point above the rail: "
                         f"s1 = {s1!r}, s3 = {s3!r}")
    return np.array([s1 + a, np.sqrt(h2)])


def _leg_angle(P, tip):
    """Angle of the leg from its slider pin P to tip, in (0, pi) when tip is above."""
    return np.arctan2(tip[1] - P[1], tip[0] - P[0])


def passive_from_sliders(s):
    """Passive coordinates (phi1, phi2, phi3, theta), shape (4,), from the sliders.

    Closed form in the assembly mode of the start pose (E above the rail, D on the
    branch _D_BRANCH of the circles about E and B).  Raises ValueError if the sliders
    cannot be assembled.
    """
    s1, s2, s3 = np.asarray(s, dtype=float)
    E = _upper_joint(s1, s3)
    B = np.array([s2, 0.0])
    v = B - E
    dist = np.hypot(*v)
    a = (_XP ** 2 - _L2 ** 2 + dist ** 2) / (2.0 * dist)
    h2 = _XP ** 2 - a * a
    if not h2 >= 0.0:
        raise ValueError(f"leg 2 cannot reach the platform: s = {s!r}")
    n = np.array([-v[1], v[0]]) / dist
    D = E + a * v / dist + _D_BRANCH * np.sqrt(h2) * n
    phi1 = _leg_angle(np.array([s1, 0.0]), E)
    phi3 = _leg_angle(np.array([s3, 0.0]), E)
    phi2 = np.mod(_leg_angle(B, D), 2.0 * np.pi)   # leg 2 leans left: phi2 in (pi/2, 3pi/2)
    theta = np.arctan2(E[1] - D[1], E[0] - D[0])
    return np.array([phi1, phi2, phi3, theta])


def configuration_from_independent(z):
    """Full q (7,) from the forward-dynamics coordinates z = (s1, phi1, theta).

    E = A + L1 u(phi1), D = E - xp u(theta); legs 3 and 2 on the branches of the start
    pose (C right of E, B right of D: cos phi3 < 0, cos phi2 < 0), so
    phi = pi - asin(y_tip / L) and the slider is at x_tip - L cos phi.  Raises
    ValueError if a leg cannot reach (|y_tip| >= L).
    """
    s1, phi1, th = np.asarray(z, dtype=float)
    E = np.array([s1, 0.0]) + _L1 * _u(phi1)
    D = E - _XP * _u(th)
    q = np.array([s1, 0.0, 0.0, phi1, 0.0, 0.0, th])
    for slider, angle, tip, length in ((2, 5, E, _L3), (1, 4, D, _L2)):
        sin_phi = tip[1] / length
        if not abs(sin_phi) < 1.0:
            raise ValueError(f"leg {slider + 1} cannot reach {tip!r} (|y| >= L)")
        q[angle] = np.pi - np.arcsin(sin_phi)
        q[slider] = tip[0] - length * np.cos(q[angle])
    return q


def initial_configuration():
    """q (7,) at the start pose: D = (0, 0.40) m, theta = 0 (assembly mode above).

    Returns (s1, s2, s3, phi1, phi2, phi3, theta) [m, rad].
    """
    E = D_START + _XP * _u(THETA_START)
    s2 = D_START[0] + np.sqrt(_L2 ** 2 - D_START[1] ** 2)     # B right of D
    s1 = E[0] - np.sqrt(_L1 ** 2 - E[1] ** 2)                # A left of E
    s3 = E[0] + np.sqrt(_L3 ** 2 - E[1] ** 2)                # C right of E
    q = np.array([s1, s2, s3, 0.0, 0.0, 0.0, THETA_START])
    q[3] = _leg_angle(np.array([s1, 0.0]), E)
    q[4] = _leg_angle(np.array([s2, 0.0]), D_START)
    q[5] = _leg_angle(np.array([s3, 0.0]), E)
    return q


# ---------------------------------------------------------------- dynamics
def _bodies(q, qd):
    """Per moving body: (mass, inertia, J_G (2, 7), J_w (7,), dJ_G/dt qd (2,))."""
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    out = []
    ex = np.array([1.0, 0.0])
    for i in range(3):
        J = np.zeros((2, NQ))
        J[:, i] = ex
        out.append((SLIDER_MASS[i], 0.0, J, np.zeros(NQ), np.zeros(2)))
    for i in range(3):
        a, phi = LEG_COM[i], q[3 + i]
        J = np.zeros((2, NQ))
        J[:, i] = ex
        J[:, 3 + i] = a * _perp(phi)
        w = np.zeros(NQ)
        w[3 + i] = 1.0
        out.append((LEG_MASS[i], LEG_INERTIA[i], J, w, -a * qd[3 + i] ** 2 * _u(phi)))
    J = np.zeros((2, NQ))
    J[:, 1] = ex
    J[:, 4] = _L2 * _perp(q[4])
    J[:, 6] = PLATFORM_COM * _perp(q[6])
    w = np.zeros(NQ)
    w[6] = 1.0
    conv = -_L2 * qd[4] ** 2 * _u(q[4]) - PLATFORM_COM * qd[6] ** 2 * _u(q[6])
    out.append((PLATFORM_MASS, PLATFORM_INERTIA, J, w, conv))
    return out


def mass_matrix(q):
    """M(q) in joint coordinates, shape (7, 7) [kg, kg m, kg m^2]."""
    M = np.zeros((NQ, NQ))
    for m, inertia, J, w, _ in _bodies(q, np.zeros(NQ)):
        M += m * J.T @ J + inertia * np.outer(w, w)
    return M


def velocity_forces(q, qd):
    """h(q, qd) = sum m J_G^T (dJ_G/dt qd), shape (7,) [N, N m] (left-hand side)."""
    h = np.zeros(NQ)
    for m, _, J, _, conv in _bodies(q, qd):
        h += m * J.T @ conv
    return h


def gravity_forces(q, *, gravity=GRAVITY):
    """Generalized gravity forces Q_g = -dV/dq, shape (7,) [N, N m].

    gravity : float, acceleration of gravity along -Y [m/s^2] (0: robot lying flat).
    """
    Q = np.zeros(NQ)
    for m, _, J, _, _ in _bodies(q, np.zeros(NQ)):
        Q += m * J.T @ np.array([0.0, -gravity])
    return Q


def _dynamics_terms(q, qd, gravity):
    """(M, h, Q_g) from one pass over the bodies (same sums as the three functions
    above; used by the integrator for speed)."""
    M = np.zeros((NQ, NQ))
    h = np.zeros(NQ)
    Q = np.zeros(NQ)
    g = np.array([0.0, -gravity])
    for m, inertia, J, w, conv in _bodies(q, qd):
        M += m * J.T @ J + inertia * np.outer(w, w)
        h += m * J.T @ conv
        Q += m * J.T @ g
    return M, h, Q


def kinetic_energy(q, qd):
    """Kinetic energy [J] from the COM velocities, written out body by body.

    q, qd : array, shape (7,) or (n, 7) [m, rad], [m/s, rad/s].  Returns float or (n,).
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    qd = np.atleast_2d(np.asarray(qd, dtype=float))
    T = np.zeros(len(q))
    for i in range(3):
        s_dot, phi, phi_dot = qd[:, i], q[:, 3 + i], qd[:, 3 + i]
        a = LEG_COM[i]
        vx = s_dot - a * np.sin(phi) * phi_dot
        vy = a * np.cos(phi) * phi_dot
        T += 0.5 * SLIDER_MASS[i] * s_dot ** 2
        T += 0.5 * LEG_MASS[i] * (vx ** 2 + vy ** 2) + 0.5 * LEG_INERTIA[i] * phi_dot ** 2
    p2, th = q[:, 4], q[:, 6]
    vx = qd[:, 1] - _L2 * np.sin(p2) * qd[:, 4] - PLATFORM_COM * np.sin(th) * qd[:, 6]
    vy = _L2 * np.cos(p2) * qd[:, 4] + PLATFORM_COM * np.cos(th) * qd[:, 6]
    T += 0.5 * PLATFORM_MASS * (vx ** 2 + vy ** 2) + 0.5 * PLATFORM_INERTIA * qd[:, 6] ** 2
    return T if T.size > 1 else float(T[0])


def potential_energy(q, *, gravity=GRAVITY):
    """Gravity potential [J], zero at the rail height Y = 0 (sliders contribute 0).

    q : array, shape (7,) or (n, 7); gravity [m/s^2] along -Y.  Returns float or (n,).
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    heights = sum(LEG_MASS[i] * LEG_COM[i] * np.sin(q[:, 3 + i]) for i in range(3))
    heights = heights + PLATFORM_MASS * (_L2 * np.sin(q[:, 4])
                                         + PLATFORM_COM * np.sin(q[:, 6]))
    V = gravity * heights
    return V if V.size > 1 else float(V[0])


def accelerations(q, qd, slider_forces, *, gravity=GRAVITY):
    """Solve the augmented system for (qdd (7,), lambda (4,)).

    [[M, Phi_q^T], [Phi_q, 0]] [qdd; lambda] = [Q + Q_g - h; -gamma], Q = slider forces
    [N] on s1..s3 and zero on the angles; gravity [m/s^2] along -Y.
    """
    Phi_q = closure_jacobian(q)
    M, h, Q_g = _dynamics_terms(q, qd, gravity)
    rhs_q = Q_g - h
    rhs_q[list(SLIDERS)] += np.asarray(slider_forces, dtype=float)
    A = np.zeros((NQ + 4, NQ + 4))
    A[:NQ, :NQ] = M
    A[:NQ, NQ:] = Phi_q.T
    A[NQ:, :NQ] = Phi_q
    x = np.linalg.solve(A, np.concatenate([rhs_q, -closure_gamma(q, qd)]))
    return x[:NQ], x[NQ:]


def velocities_from_independent(q, zd):
    """qd (7,) from the rates zd = (s1_dot, phi1_dot, theta_dot) on the closure."""
    Phi_q = closure_jacobian(q)
    qd = np.zeros(NQ)
    qd[list(INDEPENDENT)] = zd
    qd[list(DEPENDENT)] = -np.linalg.solve(Phi_q[:, DEPENDENT], Phi_q[:, INDEPENDENT] @ zd)
    return qd


@dataclass(frozen=True)
class ForwardSolution:
    """Forward-dynamics result (n = number of returned instants).

    t (n,) [s]; q, qd, qdd (n, 7) joint coordinates and their rates
    (s1, s2, s3, phi1, phi2, phi3, theta); s, sd, sdd (n, 3) sliders [m, m/s, m/s^2];
    D (n, 2) end-effector [m]; theta (n,) platform angle [rad]; t_singular: time of
    the first direct-kinematics singularity [s] or None if none before t_end;
    status: "completed", "singular" or "partition" (leg 2 or leg 3 vertical: the
    integration coordinates failed before a singularity; not met in the paper's
    cases).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    s: np.ndarray
    sd: np.ndarray
    sdd: np.ndarray
    D: np.ndarray
    theta: np.ndarray
    t_singular: float | None
    status: str


def _partition_margin(q):
    """Positive while the (s1, phi1, theta) partition is regular (legs 2, 3 not
    vertical): min(-cos phi2, -cos phi3) - 0.02."""
    return min(-np.cos(q[4]), -np.cos(q[5])) - 0.02


def forward_dynamics(force_fn, t_end, t_eval=None, *, breakpoints=(), rtol=1e-11,
                     atol=1e-12, q0=None, gravity=GRAVITY):
    """Integrate the rigid 3-PRR from rest at the start pose under slider forces.

    Parameters
    ----------
    force_fn : callable
        force_fn(t) -> array (3,), slider forces Q1..Q3 along +X [N].
    t_end : float
        Final time [s], > 0.
    t_eval : array_like, optional
        Output instants in [0, t_end] [s]; those after a singularity are dropped.
        Default: 401 equally spaced instants.
    breakpoints : sequence of float
        Instants where force_fn has a kink (e.g. the pulse's 0.1 and 0.2 s); the
        integration restarts there so the error control never straddles one.
    rtol, atol : float
        solve_ivp tolerances on z = (s1, phi1, theta) [m, rad] and their rates.  The
        defaults (DOP853, 1e-11 / 1e-12 on states of size 0.01-1) keep the global
        error near 1e-10: two to three orders below what an engine check needs.
    q0 : array (7,), optional
        Start configuration on the closure (default initial_configuration()), at rest.
    gravity : float
        Acceleration of gravity along -Y [m/s^2]; the paper's statement is 9.81.  With 0
        (the robot lying in a horizontal plane) the paper's loads run 0-4 s without
        meeting a singularity.

    Returns
    -------
    ForwardSolution
    """
    if t_eval is None:
        t_eval = np.linspace(0.0, t_end, 401)
    t_eval = np.asarray(t_eval, dtype=float)
    q_start = initial_configuration() if q0 is None else np.asarray(q0, dtype=float)
    y = np.concatenate([q_start[list(INDEPENDENT)], np.zeros(3)])

    def state(y):
        q = configuration_from_independent(y[:3])
        return q, velocities_from_independent(q, y[3:])

    def rhs(t, y):
        q, qd = state(y)
        qdd, _ = accelerations(q, qd, force_fn(t), gravity=gravity)
        return np.concatenate([y[3:], qdd[list(INDEPENDENT)]])

    def singular(t, y):
        return singularity_measure(configuration_from_independent(y[:3]))

    def partition(t, y):
        return _partition_margin(configuration_from_independent(y[:3]))

    singular.terminal = True
    partition.terminal = True

    edges = sorted({0.0, float(t_end), *(b for b in breakpoints if 0.0 < b < t_end)})
    ts, ys = [], []
    t_singular, status = None, "completed"
    for k, (t0, t1) in enumerate(zip(edges[:-1], edges[1:])):
        last = k == len(edges) - 2
        mask = (t_eval >= t0) & ((t_eval <= t1) if last else (t_eval < t1))
        sol = scipy.integrate.solve_ivp(rhs, (t0, t1), y, method="DOP853", rtol=rtol,
                                        atol=atol, events=(singular, partition),
                                        dense_output=True)
        if not sol.success:
            raise RuntimeError(f"integration failed at t = {sol.t[-1]}: {sol.message}")
        t_stop = sol.t[-1]
        keep = t_eval[mask]
        keep = keep[keep <= t_stop]
        ts.append(keep)
        ys.append(sol.sol(keep).T if keep.size else np.zeros((0, 6)))
        if t_singular is None and sol.t_events[0].size:
            t_singular = float(sol.t_events[0][0])
        if sol.status == 1:
            status = "partition" if sol.t_events[1].size else "singular"
            break
        y = sol.y[:, -1]
    t = np.concatenate(ts)
    Y = np.concatenate(ys)
    q = np.zeros((len(t), NQ))
    qd = np.zeros_like(q)
    qdd = np.zeros_like(q)
    for i, (ti, yi) in enumerate(zip(t, Y)):
        q[i], qd[i] = state(yi)
        qdd[i], _ = accelerations(q[i], qd[i], force_fn(ti), gravity=gravity)
    D = np.array([joint_positions(qi)["D"] for qi in q]).reshape(-1, 2)
    return ForwardSolution(t=t, q=q, qd=qd, qdd=qdd, s=q[:, :3], sd=qd[:, :3],
                           sdd=qdd[:, :3], D=D, theta=q[:, 6], t_singular=t_singular,
                           status=status)


def inverse_dynamics(s, sd, sdd, *, gravity=GRAVITY):
    """Slider forces [N] that produce a prescribed slider motion.

    Parameters
    ----------
    s, sd, sdd : array, shape (3,) or (n, 3)
        Slider positions [m], velocities [m/s], accelerations [m/s^2]; the pose must
        be in the start pose's assembly mode and not singular.
    gravity : float
        Acceleration of gravity along -Y [m/s^2].

    Returns
    -------
    ndarray, shape (3,) or (n, 3): Q1..Q3 along +X [N].
    """
    s, sd, sdd = (np.atleast_2d(np.asarray(v, dtype=float)) for v in (s, sd, sdd))
    out = np.zeros_like(s)
    sl, pa = list(SLIDERS), list(PASSIVE)
    for i in range(len(s)):
        q = np.concatenate([s[i], passive_from_sliders(s[i])])
        Phi_q = closure_jacobian(q)
        Phi_s, Phi_p = Phi_q[:, sl], Phi_q[:, pa]
        qd = np.concatenate([sd[i], -np.linalg.solve(Phi_p, Phi_s @ sd[i])])
        pdd = -np.linalg.solve(Phi_p, Phi_s @ sdd[i] + closure_gamma(q, qd))
        qdd = np.concatenate([sdd[i], pdd])
        resid = (mass_matrix(q) @ qdd + velocity_forces(q, qd)
                 - gravity_forces(q, gravity=gravity))
        lam = -np.linalg.solve(Phi_p.T, resid[pa])
        out[i] = resid[sl] + Phi_s.T @ lam
    return out if out.shape[0] > 1 else out[0]


# ---------------------------------------------------------------- loads (section 8.2)
PULSE_BREAKPOINTS = (0.1, 0.2)


def sinusoid_forces(amplitudes=(10.0, 2.0, 2.0), omega=20.0):
    """force_fn(t) = amplitudes * sin(omega t) [N] (paper: 10, 2, 2 N at 20 rad/s)."""
    amplitudes = np.asarray(amplitudes, dtype=float)
    return lambda t: amplitudes * np.sin(omega * t)


def pulse_forces(peaks=(10.0, -2.0, -2.0), rise=0.1):
    """Triangular pulse: 0 at t = 0, peaks [N] at rise, 0 at 2 rise and after."""
    peaks = np.asarray(peaks, dtype=float)

    def force(t):
        return peaks * max(0.0, 1.0 - abs(t - rise) / rise)
    return force


def zero_forces(t):
    """No slider force (free fall under gravity)."""
    return np.zeros(3)
