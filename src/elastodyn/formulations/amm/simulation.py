"""Analyses of planar flexible arms by assumed modes (Yu & Chen 2019): clamped-link
frequencies and the exact cantilever with a tip mass and a tip rotary inertia, PD
tracking of a circle (Yu 4.2) and the free vibration (Yu 4.1).

Friction: one law, :meth:`~elastodyn.formulations.amm_model.AMMEngine.friction`
(:class:`~elastodyn.description.friction.Friction` of each joint). Decision: the
simulation (:func:`simulate_pd`) smooths the Coulomb sign below
:data:`~elastodyn.description.arm.COULOMB_SMOOTHING` = 1e-3 rad/s, so that the joints held
near rest do not chatter; the model's own default is the exact sign (the law at a given
state). The linearization keeps the viscous part only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ...description.arm import COULOMB_SMOOTHING, ArmLink, LumpedMass, PlanarArm
from ...exceptions import InputError
from ...fem.modal import modal_analysis
from ...integrators.bounded import bounded_solve_ivp
from .engine import AMMEngine

__all__ = ["clamped_link_frequencies", "cantilever_frequencies", "ArmSimulation",
           "simulate_pd", "circle_reference", "hold_reference", "pd_equilibrium",
           "linearized_closed_loop", "spectrum_peaks", "tip_accelerations"]


def clamped_link_frequencies(link: ArmLink, modes: int, basis: str = "sine",
                             tip_mass: float = 0.0, tip_inertia: float = 0.0) -> np.ndarray:
    """Natural frequencies [rad/s] (modes,) of one link whose motor shaft is clamped,
    about rest without gravity, by the assumed-modes model.

    The clamp holds the root tangent, the shaft angle B^T q: theta + y'(0) = theta +
    sum phi_k'(0) f_k / L = 0, so q = T f with T = [-phi'(0)^T / L; I]; omega^2 solves
    T^T K T = omega^2 T^T M T. The chord frame turns with theta: the link is a cantilever,
    free at the tip, with a body of mass ``tip_mass`` [kg] and rotary inertia
    ``tip_inertia`` [kg m^2] there (mu = 0) in place of the link's lumped masses. The
    hub (:attr:`ArmLink.hub_inertia`) is kept: it turns with the clamped root and does
    not move.
    """
    body = LumpedMass(tip_mass, tip_inertia, mu=0.0)
    arm = PlanarArm("clamped-link", (link.with_lumped_masses(body),),
                    modes=modes, basis=basis, gravity=0.0)
    m = AMMEngine(arm)
    M = m.dynamics(np.zeros(m.nq), np.zeros(m.nq))["M"]
    d0 = m.shapes.integrals["d0"] / link.length
    T = np.vstack([-d0[None, :], np.eye(modes)])
    return modal_analysis(T.T @ M @ T, T.T @ m.stiffness @ T, count=modes).omega_rad_s


def cantilever_frequencies(link: ArmLink, count: int, tip_mass: float = 0.0,
                           tip_inertia: float = 0.0) -> np.ndarray:
    """Euler-Bernoulli cantilever with a tip body: omega_k = lam_k^2 sqrt(E I / (m L^3))
    [rad/s], (count,), with lam_k the roots of::

        1 + cos(lam) cosh(lam) + r lam (cos(lam) sinh(lam) - sin(lam) cosh(lam))
          - j lam^3 (sin(lam) cosh(lam) + cos(lam) sinh(lam))
          + r j lam^4 (1 - cos(lam) cosh(lam)) = 0,

    r = tip_mass / m, j = tip_inertia / (m L^2), for a body of mass ``tip_mass`` [kg]
    and rotary inertia ``tip_inertia`` [kg m^2] (about its centre, at the tip). It is the
    determinant of the tip conditions E I y''' = -M omega^2 y (shear) and E I y'' =
    J omega^2 y' (moment) on y = A (cosh - cos) + B (sinh - sin) (beta x); j = 0 gives
    Blevins, Table 8-1, case 3, and r = j = 0 the clamped-free beam. The equation is
    divided by cosh to stay finite; its roots are found by a scan in steps of 0.05 (the
    roots are about pi apart) refined by Brent's method.
    """
    from ..._validate import non_negative, positive_int
    if link.mass <= 0:
        raise InputError("mass", link.mass, "> 0 for a cantilever")
    count = positive_int("count", count)
    r = non_negative("tip_mass", tip_mass) / link.mass
    jr = non_negative("tip_inertia", tip_inertia) / (link.mass * link.length ** 2)

    def char(lam):
        out = (1.0 / np.cosh(lam) + np.cos(lam)
               + r * lam * (np.cos(lam) * np.tanh(lam) - np.sin(lam)))
        if jr:
            c, s, th = np.cos(lam), np.sin(lam), np.tanh(lam)
            out += -jr * lam ** 3 * (s + c * th) + r * jr * lam ** 4 * (1.0 / np.cosh(lam) - c)
        return out

    roots = []
    a = 1e-6
    while len(roots) < count:
        b = a + 0.05
        if char(a) * char(b) < 0:
            roots.append(brentq(char, a, b, xtol=1e-14))
        a = b
    lam = np.array(roots)
    return lam ** 2 * np.sqrt(link.E * link.I / (link.mass * link.length ** 3))


# ---------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class ArmSimulation:
    """Result of :func:`simulate_pd` on the output grid (nt samples).

    time (nt,) [s]; q, qd (nt, nq) coordinates (theta [rad], f [m]) and rates; theta_ref,
    theta_ref_d (nt, n) set points; tau (nt, n) joint torques [N m]; tip_position,
    tip_acceleration (nt, n, 2) link end points [m] and their accelerations [m/s^2]
    (base frame, x0 horizontal, y0 up); names: coordinate names.
    """

    time: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    theta_ref: np.ndarray
    theta_ref_d: np.ndarray
    tau: np.ndarray
    tip_position: np.ndarray
    tip_acceleration: np.ndarray
    names: tuple
    evaluations: int


def tip_accelerations(model, q, qd, qdd) -> np.ndarray:
    """End-point accelerations (n, 2) [m/s^2]: p_i_dd = sum_k L_k (alpha_k n_k - omega_k^2
    e_k), omega_k, alpha_k the absolute chord rates and accelerations."""
    e, nv, _ = model.frames(q)
    w = np.cumsum(qd[:model.n])
    a = np.cumsum(qdd[:model.n])
    L = np.array([lk.length for lk in model.arm.links])
    terms = L[:, None] * (a[:, None] * nv - (w ** 2)[:, None] * e)
    return np.cumsum(terms, axis=0)


def joint_angles(model, q) -> np.ndarray:
    """Motor shaft angles (..., n) [rad], what the joint encoders measure: the rotation
    of link i's root tangent relative to link i - 1's tip tangent, theta_i + y_i'(0) -
    y_{i-1}'(L_{i-1}) = (B^T q)_i (B of the generalized forces: the torque and the angle
    are work conjugates)."""
    B = model.dynamics(np.zeros(model.nq), np.zeros(model.nq))["B"]
    return np.asarray(q) @ B


def simulate_pd(model, reference, duration: float, kp, kd, *, q0=None, qd0=None,
                step: float = 1e-3, friction: bool = True, method: str = "Radau",
                rtol: float = 1e-8, atol: float = 1e-9, progress=None) -> ArmSimulation:
    """Joint PD tracking on the encoder angles: tau = kp (theta_ref - vartheta) + kd
    (theta_ref_d - vartheta_d) [N m] with vartheta = B^T q (:func:`joint_angles`), and
    the geared motors' friction on the shaft rates (smoothed Coulomb,
    :data:`COULOMB_SMOOTHING`).

    Decision: the PD acts on the measured shaft angles (collocated with the torques),
    not on the chord angles theta of the model's coordinates; a PD on the chord angles is
    non-collocated and destabilizes the flexible modes of arm-yu2019 (its linearized loop
    has damping ratios -0.34 and -0.28 with kp = 125, kd = 25).

    Parameters
    ----------
    model : AMMEngine
    reference : callable t (array (k,)) -> (theta_ref (k, n), theta_ref_d (k, n))
    duration : float [s] > 0
    kp, kd : float or (n,) [N m/rad, N m s/rad]
    q0, qd0 : (nq,) initial state; default: rest at theta_ref(0), undeformed.
    step : output step [s] > 0.
    method, rtol, atol : scipy solve_ivp integrator. The PD and friction gains act on the
        modal coordinates through B, whose entries are k pi / L: kd B^2 / (m / 2) and
        the smoothed Coulomb slope make the system stiff (rates up to 1e5 1/s), so the
        default is Radau (implicit); DOP853 gives the same motion (tested) with 5 to 100
        times more evaluations, and LSODA stalls on this system without friction
        (2.7 million evaluations for 8 s). Default atol 1e-9 (rad, m, and per second):
        100 times the round-off of the accelerations (measured 1e-11 1/s^2 at rest on
        arm-yu2019: eps times the PD and gravity torques over the smallest modal mass);
        at 1e-11 the error estimate of a settled loop is that round-off, the step
        collapsed to 5e-10 s and the run never ended (issue 35). A stalled run raises
        :class:`~elastodyn.integrators.bounded.IntegrationStalled` naming the time.
    progress : callable(t, T), optional
        Called with the integrated time t [s] and the window T [s] as the integration
        advances: at most about every T/100, with t increasing, and once with (T, T) at
        the end. It does not change the results.
    """
    from ..._validate import positive
    T = positive("duration", duration)
    dt = positive("step", step)
    n, nq = model.n, model.nq
    kp = np.broadcast_to(np.asarray(kp, dtype=float), (n,))
    kd = np.broadcast_to(np.asarray(kd, dtype=float), (n,))
    time = dt * np.arange(int(round(T / dt)) + 1)
    th0, _ = reference(np.array([0.0]))
    if q0 is None:
        q0 = np.concatenate([th0[0], np.zeros(nq - n)])
    qd0 = np.zeros(nq) if qd0 is None else np.asarray(qd0, dtype=float)
    count = [0]
    B = model.dynamics(np.zeros(nq), np.zeros(nq))["B"]

    def torque(t, q, qd):
        r, rd = reference(np.array([t]))
        return kp * (r[0] - q @ B) + kd * (rd[0] - qd @ B)

    next_report = [0.0]

    def rhs(t, x):
        count[0] += 1
        if progress is not None and t >= next_report[0]:
            next_report[0] = t + T / 100.0
            progress(min(t, T), T)
        q, qd = x[:nq], x[nq:]
        d = model.dynamics(q, qd)
        tj = torque(t, q, qd) - (model.friction(qd @ B, COULOMB_SMOOTHING) if friction
                                 else 0.0)
        return np.concatenate([qd, np.linalg.solve(d["M"], B @ tj - d["c"])])

    sol = bounded_solve_ivp(rhs, (0.0, T), np.concatenate([q0, qd0]), method=method,
                            t_eval=time, rtol=rtol, atol=atol, what="arm PD simulation")
    if not sol.success:
        from ...exceptions import ModelError
        raise ModelError(f"integration failed: {sol.message}")
    if progress is not None:
        progress(T, T)
        next_report[0] = np.inf         # the outputs below call rhs again: no reports
    X = sol.y.T
    ref, ref_d = reference(time)
    tau = np.empty((len(time), n))
    tips = np.empty((len(time), n, 2))
    acc = np.empty((len(time), n, 2))
    for k, t in enumerate(time):
        q, qd = X[k, :nq], X[k, nq:]
        tau[k] = torque(t, q, qd)
        qdd = rhs(t, X[k])[nq:]
        tips[k] = model.tips(q)
        acc[k] = tip_accelerations(model, q, qd, qdd)
    return ArmSimulation(time, X[:, :nq], X[:, nq:], ref, ref_d, tau, tips, acc,
                         tuple(model.sym.names), count[0])


def circle_reference(model, circle, elbow: str = "down"):
    """Joint set points of a planar circle (``Circle`` of dim 2) by rigid inverse
    kinematics, and their rates theta_d = J^-1 x_d (Yu 4.2)."""
    L1, L2 = (lk.length for lk in model.arm.links)

    def ref(t):
        s = circle.evaluate(np.asarray(t, dtype=float))
        th = np.array([model.inverse_kinematics(p, elbow) for p in s.position])
        thd = np.empty_like(th)
        for k, (a, b) in enumerate(th):
            J = np.array([[-L1 * np.sin(a) - L2 * np.sin(a + b), -L2 * np.sin(a + b)],
                          [L1 * np.cos(a) + L2 * np.cos(a + b), L2 * np.cos(a + b)]])
            thd[k] = np.linalg.solve(J, s.velocity[k])
        return th, thd
    return ref


def hold_reference(theta):
    """Constant set points (Yu 4.1: the joints held by the PD)."""
    th = np.asarray(theta, dtype=float)

    def ref(t):
        k = len(np.atleast_1d(t))
        return np.tile(th, (k, 1)), np.zeros((k, len(th)))
    return ref


def pd_equilibrium(model, theta_ref, kp, tol: float = 1e-12):
    """Static equilibrium under gravity with the PD holding theta_ref: N(q) = B kp
    (theta_ref - B^T q), by Newton with a central-difference Jacobian (step 1e-7)."""
    n, nq = model.n, model.nq
    kp = np.broadcast_to(np.asarray(kp, dtype=float), (n,))
    q = np.concatenate([np.asarray(theta_ref, float), np.zeros(nq - n)])
    z = np.zeros(nq)

    def r(q):
        d = model.dynamics(q, z)
        return d["N"] - d["B"] @ (kp * (theta_ref - q @ d["B"]))

    for _ in range(50):
        f = r(q)
        if np.abs(f).max() < tol * max(1.0, np.abs(model.dynamics(q, z)["N"]).max()):
            return q
        J = np.empty((nq, nq))
        for k in range(nq):
            h = 1e-7
            dq = np.zeros(nq)
            dq[k] = h
            J[:, k] = (r(q + dq) - r(q - dq)) / (2 * h)
        q = q - np.linalg.solve(J, f)
    from ...exceptions import ModelError
    raise ModelError("the PD equilibrium under gravity did not converge")


def linearized_closed_loop(model, theta_ref, kp, kd, friction: bool = True):
    """Eigenvalues of the PD loop (on the encoder angles B^T q) linearized about its
    equilibrium under gravity (:func:`pd_equilibrium`): x = (q, q_d), A = [[0, I],
    [-M^-1 K, -M^-1 C]] with K = d(N - B tau_pd)/dq and C = d(H q_d + B (tau_f -
    tau_pd))/dq_d at rest (viscous
    friction only: the smoothed Coulomb term has no slope away from rest and is left
    out). Returns (q_eq, eigenvalues sorted by |Im|, frequencies |lambda| [rad/s] and
    damping ratios of the oscillating pairs)."""
    n, nq = model.n, model.nq
    kp = np.broadcast_to(np.asarray(kp, dtype=float), (n,))
    kd = np.broadcast_to(np.asarray(kd, dtype=float), (n,))
    q = pd_equilibrium(model, np.asarray(theta_ref, float), kp)
    z = np.zeros(nq)
    d = model.dynamics(q, z)
    h = 1e-7

    B = d["B"]

    def force(q, qd):
        dd = model.dynamics(q, qd)
        tpd = kp * (theta_ref - q @ B) - kd * (qd @ B)
        if friction:
            tpd = tpd - np.array([lk.joint_friction().viscous for lk in model.arm.links]) \
                * (qd @ B)
        return dd["c"] - B @ tpd

    K = np.empty((nq, nq))
    C = np.empty((nq, nq))
    for k in range(nq):
        dq = np.zeros(nq)
        dq[k] = h
        K[:, k] = (force(q + dq, z) - force(q - dq, z)) / (2 * h)
        C[:, k] = (force(q, dq) - force(q, -dq)) / (2 * h)
    Minv = np.linalg.inv(d["M"])
    A = np.block([[np.zeros((nq, nq)), np.eye(nq)], [-Minv @ K, -Minv @ C]])
    # the state matrix of a damped loop: not symmetric, no generalized symmetric
    # eigenproblem for fem.modal
    lam = np.linalg.eigvals(A)
    osc = lam[lam.imag > 1e-9]
    osc = osc[np.argsort(np.abs(osc))]
    return q, osc, np.abs(osc), -osc.real / np.abs(osc)


def spectrum_peaks(time, signal, count: int = 2, fmin_hz: float = 0.5):
    """The ``count`` largest local maxima [rad/s] of the amplitude spectrum of a signal
    (mean removed, Hann window), above fmin_hz, refined by parabolic interpolation of
    the log amplitude; returns (peaks [rad/s] ascending, frequencies [Hz], amplitude)."""
    x = np.asarray(signal, dtype=float)
    x = (x - x.mean()) * np.hanning(len(x))
    dt = float(time[1] - time[0])
    A = np.abs(np.fft.rfft(x))
    f = np.fft.rfftfreq(len(x), dt)
    idx = [k for k in range(1, len(A) - 1)
           if A[k] >= A[k - 1] and A[k] >= A[k + 1] and f[k] >= fmin_hz]
    idx = sorted(idx, key=lambda k: -A[k])[:count]
    peaks = []
    for k in idx:
        a, b, c = np.log(A[k - 1:k + 2] + 1e-300)
        p = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c != 0 else 0.0
        peaks.append(2 * np.pi * (f[k] + p * (f[1] - f[0])))
    return np.sort(np.array(peaks)), f, A
