"""Simulations of NE-PVP models (Briot & Khalil 2013, section V).

* :func:`simulate_motion`: motion-driven simulation; the actuated joints follow a
  prescribed motion q_a(t) and the elastic coordinates respond,
  e_dd = -M_ee^-1 (c_e + M_ea q_a_dd) (the inverse problem), which also gives the
  actuator efforts. Rigid model alongside: the same kinematics and dynamics with the
  elastic coordinates held at zero.
* :func:`simulate_direct`: direct dynamics under given actuator efforts (all coordinates
  respond), e.g. the free, unactuated mechanism.

The motion-driven simulation runs by default in the compiled driver
(:mod:`~elastodyn.formulations.nepvp.driver`: the implicit generalized-alpha method, or
classical RK4, in C on a grid through the switch times of the trajectory, where the
prescribed acceleration jumps; ``method="auto"`` picks the cheaper, see
:func:`simulate_motion`). The Python path,
used by :func:`simulate_direct` and by ``method="dop853"``, integrates the first-order
form with scipy's DOP853 (explicit Runge-Kutta of order 8, adaptive) between the switch
times, with the passive joints closed by Newton at every evaluation (from the previous
solution).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..._validate import choice, positive
from ...exceptions import InputError, ModelError
from ...integrators.bounded import bounded_solve_ivp
from .engine import NEPVPEngine

__all__ = ["MotionSimulation", "simulate_motion", "simulate_direct", "INITIAL_CONDITIONS",
           "METHODS"]

INITIAL_CONDITIONS = ("static", "zero")


@dataclass(frozen=True)
class MotionSimulation:
    """Result of :func:`simulate_motion` on the output grid (nt samples).

    time (nt,) [s]; q (nt, n_joints) joint variables; e, ed (nt, n_e) elastic coordinates
    and velocities; tau (nt, n_a) actuator efforts; ee_position, ee_velocity (nt, k)
    platform origin and velocity in the translational closure rows (prrrp: [x0, z0]);
    rigid_tau, rigid_ee_velocity, rigid_ee_position: the rigid model along the same
    motion; names: joint, elastic and row names; evaluations: right-hand sides;
    method: generalized-alpha or rk4 (compiled) or dop853 (Python).
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
    rigid_ee_position: np.ndarray
    joint_names: tuple
    elastic_names: tuple
    rows: tuple
    initial: str
    evaluations: int
    method: str

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


METHODS = ("auto", "generalized-alpha", "rk4", "dop853")


def simulate_motion(model: NEPVPEngine, trajectory, *, end: float | None = None,
                    step: float = 1e-3, initial: str = "static", method: str = "auto",
                    max_step: float | None = None, rtol: float = 1e-9,
                    atol: float = 1e-12, rho_inf: float = 0.8) -> MotionSimulation:
    """Motion-driven simulation (module docstring).

    Parameters
    ----------
    model : NEPVPEngine
    trajectory : Trajectory of the actuated variables (dim n_a), e.g. ``BangBang``;
        held at its end values afterwards.
    end : float, optional
        Final time [s] (> start); default: the trajectory's end.
    step : float
        Output step [s] (> 0).
    initial : {"static", "zero"}
        Elastic state at the start: static deflection under gravity at rest (default,
        Briot's simulation starts from equilibrium) or zero.
    method : {"auto", "generalized-alpha", "rk4", "dop853"}
        ``generalized-alpha``: the compiled driver's implicit scheme
        (:mod:`~elastodyn.formulations.nepvp.driver`, second order, modified Newton),
        constant step ``max_step`` (default :data:`GALPHA_STEP`, 5e-5 s) on the same
        grid as rk4: its step follows the accuracy of the modes that respond, not the
        stiffest element mode. ``rk4``: the compiled driver's classical Runge-Kutta
        with steps of at most ``max_step`` on a grid through the output times and the
        trajectory's switch times. ``auto`` (default): rk4 where its stable step
        (below) is not smaller than the generalized-alpha step (coarse meshes: rk4 is
        then as cheap and fourth order), generalized-alpha otherwise (finer meshes,
        where rk4's step follows the stiffest axial element mode). Both fall back to
        ``dop853`` with a warning when no C compiler is found. ``dop853``: scipy's
        adaptive DOP853 with one Python call per right-hand side (slow; the
        independent check).
    max_step : float, optional
        Integrator step bound [s] (> 0) of the compiled methods.
        generalized-alpha: default 5e-5 s. Measured on the Briot five-bar bang-bang
        (1 s; modes 28 to 144 Hz respond; 1, 4 and 8 elements per beam alike): the
        platform position differs from the converged reference by 1.4 % of the peak
        platform deviation (flexible - rigid) at 5e-5 s, 0.36 % at 2.5e-5 s, 5.8 % at
        1e-4 s (second order: the error drops 4x per halving); pass a smaller step
        for a stiffer robot or a tighter accuracy.
        rk4: default min(1e-4 s, 1 / omega_max), omega_max the
        highest natural frequency [rad/s] at the start (actuators locked). RK4 is
        stable for omega h < 2.8; omega h <= 1 keeps the stiffest (barely excited)
        modes of finer meshes stable and damps them little, and 1e-4 s resolves the
        modes of the default one-element beams (omega_max 908 to 1150 rad/s, omega h
        0.12): the elastic coordinates agree with dop853 to about 1e-5 of their peak
        and converge as h^4 (tested). Finer meshes add stiff local modes (omega_max
        4.3e4 rad/s at 2 elements per beam, 1.4e5 at 4), hence smaller steps. The rule
        is tuned on the five-bar, whose stiffest modes are barely excited: when a
        motion excites them (a bang-bang motion of the 3-PRR-like robot of the tests
        shakes its platform on the legs' axial stiffness, omega_max 6.3e3 rad/s, omega h
        0.63 at 1e-4 s), pass a smaller max_step (there 1e-5 s: omega h 0.063, within
        1e-6 of dop853).
    rho_inf : float
        generalized-alpha: spectral radius at infinite frequency, [0, 1] (0.8: the
        unresolved element modes are damped, the resolved ones keep their amplitude).
    rtol, atol : dop853 tolerances.
    """
    choice("initial", initial, INITIAL_CONDITIONS)
    choice("method", method, METHODS)
    dt = positive("step", step)
    hmax = None if max_step is None else positive("max_step", max_step)
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
    x0 = np.concatenate([e0, np.zeros(ne)])
    knots = sorted({t0, t1} | {float(k) for k in getattr(trajectory, "switch_times", ())
                               if t0 < k < t1})
    if method in ("auto", "rk4", "generalized-alpha"):
        driver = model.driver()
        if driver.available:
            omega_max = None
            if method == "auto" or (method == "rk4" and hmax is None):
                omega_max = model.modes(qa0)[0].max()
            if method == "auto":
                method = ("rk4" if min(1e-4, 1.0 / omega_max) >= GALPHA_STEP else
                          "generalized-alpha")
            if method == "rk4":
                if hmax is None:
                    hmax = min(1e-4, 1.0 / omega_max)
                grid, out = _step_grid(t0, dt, n, knots[1:-1], hmax)
                X, _ = driver.rk4(grid, trajectory, x0, q0)
                evaluations = 4 * (len(grid) - 1)
            else:
                grid, out = _step_grid(t0, dt, n, knots[1:-1],
                                       GALPHA_STEP if hmax is None else hmax)
                restart = np.searchsorted(grid, knots[1:-1])
                X, _, its = driver.galpha(grid, trajectory, x0, q0, restart=restart,
                                          rho_inf=rho_inf)
                evaluations = int(its.sum()) + len(knots) - 1
            time, X = grid[out], X[out]
            o = driver.outputs(trajectory, time, X, q0, model.closure(qa0))
            rows, idx = _translational_rows(model)
            return MotionSimulation(
                time, o["q"], X[:, :ne], X[:, ne:], o["tau"], o["xp"][:, rows],
                o["tp"][:, idx], o["rigid_tau"], o["rigid_tp"][:, idx],
                o["rigid_xp"][:, rows], tuple(model.layout.names),
                tuple(model.layout.elastic_names), _row_names(rows), initial,
                evaluations, method)
        warnings.warn("no C compiler: the motion-driven simulation runs in Python "
                      "(DOP853, slow)")
        method = "dop853"
    state = {"q": q0, "n": 0}
    window = [t0, t1]

    def rhs(t, x):
        # inside the current segment, one float off its ends: at a switch time a
        # trajectory gives the acceleration of one side only (BangBang: -a at t_f)
        t = min(max(t, np.nextafter(window[0], np.inf)), np.nextafter(window[1], -np.inf))
        s = trajectory.evaluate(np.array([t]))
        e, ed = x[:ne], x[ne:]
        q = model.closure(s.position[0], e, guess=state["q"])
        state["q"] = q
        state["n"] += 1
        _, edd = model.inverse(q, e, s.velocity[0], ed, s.acceleration[0])
        return np.concatenate([ed, edd])

    X = np.empty((len(time), 2 * ne))
    x = x0
    for a, b in zip(knots[:-1], knots[1:]):
        window[:] = [a, b]
        sel = (time >= a - 1e-12) & (time <= b + 1e-12)
        # a first trial step of one output step at most: scipy's own guess can be so
        # large that the loop closure fails before the step could be rejected
        sol = bounded_solve_ivp(rhs, (a, b), x, method="DOP853", t_eval=time[sel],
                                rtol=rtol, atol=atol, first_step=min(step, b - a),
                                what="NE-PVP simulation")
        if not sol.success:
            raise ModelError(f"integration failed at t = {sol.t[-1] if len(sol.t) else a}: "
                             f"{sol.message}")
        X[sel] = sol.y.T
        x = sol.sol(b) if sol.sol is not None else _end_state(rhs, a, b, x, rtol, atol)
    return _outputs(model, trajectory, time, X, initial, state["n"])


GALPHA_STEP = 5e-5
"""Default step of the generalized-alpha method [s] (accuracy measured in
:func:`simulate_motion`)."""


def _step_grid(t0, dt, n, knots, hmax):
    """Integration grid: the output times t0 + k dt (k = 0..n) cut in m equal steps of at
    most hmax, with the switch times ``knots`` snapped onto a grid point closer than
    1e-9 of a step or inserted. Returns (grid, indices of the output times)."""
    m = max(1, int(np.ceil(dt / hmax - 1e-9)))
    grid = t0 + dt * (np.arange(n * m + 1) / m)
    out = np.arange(n + 1) * m
    for k in knots:
        i = int(np.searchsorted(grid, k))
        j = min((c for c in (i - 1, i) if 0 <= c < len(grid)), key=lambda c: abs(grid[c] - k))
        if abs(grid[j] - k) <= 1e-9 * dt / m:
            grid[j] = k
        else:
            grid = np.insert(grid, i, k)
            out[out >= i] += 1
    return grid, out


def _row_names(rows):
    return tuple({0: "x", 1: "y", 2: "z"}[r] for r in rows)


def _end_state(rhs, a, b, x, rtol, atol):
    sol = bounded_solve_ivp(rhs, (a, b), x, method="DOP853", rtol=rtol, atol=atol,
                            what="NE-PVP simulation")
    return sol.y[:, -1]


def _outputs(model, trajectory, time, X, initial, evaluations):
    ne, na = model.ne, model.na
    smp = trajectory.evaluate(time)
    rows, idx = _translational_rows(model)
    nt = len(time)
    Q = np.empty((nt, model.n_joints))
    tau, rtau = np.empty((nt, na)), np.empty((nt, na))
    pos, vel, rvel, rpos = (np.empty((nt, len(rows))) for _ in range(4))
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
        _, tp, xp = model.kinematics(qr, z, qda, z)
        rvel[k], rpos[k] = tp[idx], xp[rows]
    return MotionSimulation(time, Q, X[:, :ne], X[:, ne:], tau, pos, vel, rtau, rvel, rpos,
                            tuple(model.layout.names), tuple(model.layout.elastic_names),
                            _row_names(rows), initial, evaluations, "dop853")


def simulate_direct(model: NEPVPEngine, qa0, duration: float, *, qd_a0=None, e0=None,
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

    sol = bounded_solve_ivp(rhs, (0.0, T), x0, method="DOP853", t_eval=time, rtol=rtol,
                            atol=atol, what="NE-PVP simulation")
    if not sol.success:
        raise ModelError(f"integration failed: {sol.message}")
    Y = sol.y.T
    Q = np.empty((len(time), model.n_joints))
    q = state["q"] = model.closure(qa0, x0[na:n])
    for k in range(len(time)):
        q = model.closure(Y[k, :na], Y[k, na:n], guess=q)
        Q[k] = q
    return time, Y[:, :na], Y[:, n:n + na], Y[:, na:n], Y[:, n + na:], Q
