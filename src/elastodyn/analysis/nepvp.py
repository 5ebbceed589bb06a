"""Simulations of NE-PVP models (Briot & Khalil 2013, section V).

* :func:`simulate_motion`: motion-driven simulation; the actuated joints follow a
  prescribed motion q_a(t) and the elastic coordinates respond,
  e_dd = -M_ee^-1 (c_e + M_ea q_a_dd) (the inverse problem), which also gives the
  actuator efforts. Rigid model alongside: the same kinematics and dynamics with the
  elastic coordinates held at zero.
* :func:`simulate_direct`: direct dynamics under given actuator efforts (all coordinates
  respond), e.g. the free, unactuated mechanism.

Both integrate the first-order form with scipy's DOP853 (explicit Runge-Kutta of order 8)
between the trajectory's switch times, where the prescribed acceleration jumps, with the
passive joints closed by Newton at every evaluation (from the previous solution).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from .._validate import choice, positive
from ..exceptions import InputError, ModelError
from ..formulations.nepvp_model import NEPVPModel

__all__ = ["MotionSimulation", "simulate_motion", "simulate_direct", "INITIAL_CONDITIONS"]

INITIAL_CONDITIONS = ("static", "zero")


@dataclass(frozen=True)
class MotionSimulation:
    """Result of :func:`simulate_motion` on the output grid (nt samples).

    time (nt,) [s]; q (nt, n_joints) joint variables; e, ed (nt, n_e) elastic coordinates
    and velocities; tau (nt, n_a) actuator efforts; ee_position, ee_velocity (nt, k)
    platform origin and velocity in the translational closure rows (prrrp: [x0, z0]);
    rigid_tau, rigid_ee_velocity: the rigid model along the same motion; names: joint,
    elastic and row names.
    """

    time: np.ndarray
    q: np.ndarray
    e: np.ndarray
    ed: np.ndarray
    tau: np.ndarray
    ee_position: np.ndarray
    ee_velocity: np.ndarray
    rigid_tau: np.ndarray
    rigid_ee_velocity: np.ndarray
    joint_names: tuple
    elastic_names: tuple
    rows: tuple
    initial: str
    evaluations: int

    def summary(self) -> dict:
        dv = self.ee_velocity - self.rigid_ee_velocity
        return {"samples": len(self.time), "duration_s": float(self.time[-1] - self.time[0]),
                "max_ee_velocity_m_s": np.abs(self.ee_velocity).max(axis=0).tolist(),
                "max_velocity_deviation_m_s": np.abs(dv).max(axis=0).tolist(),
                "max_elastic": dict(zip(self.elastic_names,
                                        np.abs(self.e).max(axis=0).tolist())),
                "peak_tau": np.abs(self.tau).max(axis=0).tolist(),
                "peak_rigid_tau": np.abs(self.rigid_tau).max(axis=0).tolist(),
                "rhs_evaluations": self.evaluations}


def _translational_rows(model):
    rows = [r for r in model.robot.closure_rows if r < 3]
    return rows, [list(model.robot.closure_rows).index(r) for r in rows]


def simulate_motion(model: NEPVPModel, trajectory, *, end: float | None = None,
                    step: float = 1e-3, initial: str = "static", rtol: float = 1e-9,
                    atol: float = 1e-12) -> MotionSimulation:
    """Motion-driven simulation (module docstring).

    Parameters
    ----------
    model : NEPVPModel
    trajectory : Trajectory of the actuated variables (dim n_a), e.g. ``BangBang``;
        held at its end values afterwards.
    end : float, optional
        Final time [s] (> start); default: the trajectory's end.
    step : float
        Output step [s] (> 0).
    initial : {"static", "zero"}
        Elastic state at the start: static deflection under gravity at rest (default,
        Briot's simulation starts from equilibrium) or zero.
    rtol, atol : DOP853 tolerances.
    """
    choice("initial", initial, INITIAL_CONDITIONS)
    dt = positive("step", step)
    t0 = float(trajectory.t_start)
    t1 = float(trajectory.t_end if end is None else end)
    if not t1 > t0:
        raise InputError("end", end, f"a time after the start {t0} s")
    n = int(round((t1 - t0) / dt))
    time = t0 + dt * np.arange(n + 1)
    ne, na = model.ne, model.na
    smp0 = trajectory.evaluate(np.array([t0]))
    qa0 = smp0.position[0]
    if qa0.shape != (na,):
        raise InputError("trajectory", qa0.shape, f"a path of the {na} actuated variables")
    if initial == "static":
        q0, e0 = model.static_deflection(qa0)
    else:
        q0, e0 = model.closure(qa0), np.zeros(ne)
    state = {"q": q0, "n": 0}

    def rhs(t, x):
        s = trajectory.evaluate(np.array([t]))
        e, ed = x[:ne], x[ne:]
        q = model.closure(s.position[0], e, guess=state["q"])
        state["q"] = q
        state["n"] += 1
        _, edd = model.inverse(q, e, s.velocity[0], ed, s.acceleration[0])
        return np.concatenate([ed, edd])

    knots = sorted({t0, t1} | {float(k) for k in getattr(trajectory, "switch_times", ())
                               if t0 < k < t1})
    X = np.empty((len(time), 2 * ne))
    x = np.concatenate([e0, np.zeros(ne)])
    for a, b in zip(knots[:-1], knots[1:]):
        sel = (time >= a - 1e-12) & (time <= b + 1e-12)
        sol = solve_ivp(rhs, (a, b), x, method="DOP853", t_eval=time[sel], rtol=rtol,
                        atol=atol)
        if not sol.success:
            raise ModelError(f"integration failed at t = {sol.t[-1] if len(sol.t) else a}: "
                             f"{sol.message}")
        X[sel] = sol.y.T
        x = sol.sol(b) if sol.sol is not None else _end_state(rhs, a, b, x, rtol, atol)
    return _outputs(model, trajectory, time, X, initial, state["n"])


def _end_state(rhs, a, b, x, rtol, atol):
    sol = solve_ivp(rhs, (a, b), x, method="DOP853", rtol=rtol, atol=atol)
    return sol.y[:, -1]


def _outputs(model, trajectory, time, X, initial, evaluations):
    ne, na = model.ne, model.na
    smp = trajectory.evaluate(time)
    rows, idx = _translational_rows(model)
    nt = len(time)
    Q = np.empty((nt, model.n_joints))
    tau, rtau = np.empty((nt, na)), np.empty((nt, na))
    pos, vel, rvel = (np.empty((nt, len(rows))) for _ in range(3))
    q = model.closure(smp.position[0], X[0, :ne])
    qr = model.closure(smp.position[0])
    z = np.zeros(ne)
    for k in range(nt):
        e, ed = X[k, :ne], X[k, ne:]
        qa, qda, qdda = smp.position[k], smp.velocity[k], smp.acceleration[k]
        q = model.closure(qa, e, guess=q)
        Q[k] = q
        tau[k] = model.inverse(q, e, qda, ed, qdda)[0]
        _, tp, xp = model.kinematics(q, e, qda, ed)
        pos[k], vel[k] = xp[rows], tp[idx]
        qr = model.closure(qa, guess=qr)
        M, c = model.dynamics(qr, z, qda, z)
        rtau[k] = M[:na, :na] @ qdda + c[:na]
        rvel[k] = model.kinematics(qr, z, qda, z)[1][idx]
    names = {0: "x", 1: "y", 2: "z"}
    return MotionSimulation(time, Q, X[:, :ne], X[:, ne:], tau, pos, vel, rtau, rvel,
                            tuple(model.sym.names), tuple(model.sym.elastic_names),
                            tuple(names[r] for r in rows), initial, evaluations)


def simulate_direct(model: NEPVPModel, qa0, duration: float, *, qd_a0=None, e0=None,
                    ed0=None, tau=None, step: float = 1e-3, rtol: float = 1e-10,
                    atol: float = 1e-13):
    """Direct dynamics from (qa0, qd_a0, e0, ed0) under efforts ``tau`` (callable
    tau(t, qa, qd_a) -> (n_a,), or None for zero: the unactuated mechanism).

    Returns (time (nt,), qa (nt, n_a), qd_a (nt, n_a), e (nt, n_e), ed (nt, n_e),
    q (nt, n_joints))."""
    na, ne = model.na, model.ne
    T = positive("duration", duration)
    dt = positive("step", step)
    time = dt * np.arange(int(round(T / dt)) + 1)
    qa0 = np.asarray(qa0, float)
    z = np.zeros
    x0 = np.concatenate([qa0, z(ne) if e0 is None else e0,
                         z(na) if qd_a0 is None else qd_a0, z(ne) if ed0 is None else ed0])
    state = {"q": model.closure(qa0, x0[na:na + ne])}
    n = na + ne

    def rhs(t, x):
        qa, e, qda, ed = x[:na], x[na:n], x[n:n + na], x[n + na:]
        q = model.closure(qa, e, guess=state["q"])
        state["q"] = q
        f = np.zeros(na) if tau is None else np.asarray(tau(t, qa, qda), float)
        qdda, edd = model.direct(q, e, qda, ed, f)
        return np.concatenate([qda, ed, qdda, edd])

    sol = solve_ivp(rhs, (0.0, T), x0, method="DOP853", t_eval=time, rtol=rtol, atol=atol)
    if not sol.success:
        raise ModelError(f"integration failed: {sol.message}")
    Y = sol.y.T
    Q = np.empty((len(time), model.n_joints))
    q = state["q"] = model.closure(qa0, x0[na:n])
    for k in range(len(time)):
        q = model.closure(Y[k, :na], Y[k, na:n], guess=q)
        Q[k] = q
    return time, Y[:, :na], Y[:, n:n + na], Y[:, na:n], Y[:, n + na:], Q
