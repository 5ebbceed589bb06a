"""Simulations and inverse dynamics along motions, for any model of the contract.

* :func:`simulate_motion`: the actuated motion is prescribed (from a joint-space
  trajectory, or a task-space one through the rigid inverse kinematics) and the elastic
  coordinates respond (Kuo 2016's KED simulation, Briot & Khalil 2013's motion-driven
  simulation); the efforts the actuators apply come out along it, with the rigid
  model's alongside.
* :func:`simulate_controlled`: a joint-space controller (PD or computed torque) tracks a
  trajectory; the model is the plant (force-driven).
* :func:`torques`: the inverse dynamics along a motion: the rigid models' torques
  directly; for a flexible model the efforts of the motion-driven simulation (the
  inverse dynamics of a flexible robot includes its elastic response).

Fast engines exist for some formulations (KED's batched Newmark, NE-PVP's compiled RK4,
the rigid Delta's vectorized inverse dynamics, the assumed-modes PD loop); every other
nonlinear model runs on the generic engine, which integrates the elastic coordinates
with the contract's inverse dynamics (scipy's DOP853).
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..exceptions import InputError, ModelError
from ..integrators.bounded import bounded_solve_ivp
from ..model import require
from .results import Result

__all__ = ["SimulationResult", "simulate_motion", "simulate_controlled", "torques",
           "simulate_efforts", "ForcedSimulationResult",
           "INITIAL_STATES"]

INITIAL_STATES = ("static", "zero")


def _space(traj) -> str:
    return getattr(traj, "space", "task")


def _rigid(model) -> bool:
    """The registry's answer: the model's formulation has no elastic coordinates (False
    for a formulation the registry does not know)."""
    from ..formulations.registry import lookup
    entry = lookup(model.formulation)
    return entry is not None and entry.rigid


def _closed_loop_formulations() -> str:
    from ..formulations.registry import FORMULATIONS
    return ", ".join(n for n, f in FORMULATIONS.items() if f.closed_loop)


def _in_steps(progress, total: int):
    """An engine's progress(t, T) [s] as the analyses' progress(done, total) in output
    steps (None stays None)."""
    if progress is None:
        return None

    def report(t, T):
        progress(min(total, int(total * t / T)) if T > 0 else total, total)
    return report


def _window(traj, duration, periods=None) -> float:
    if duration is not None and periods is not None:
        raise InputError("--periods", periods, "not with --duration")
    if periods is not None:
        if traj.period is None:
            raise InputError("--periods", periods, "only for a periodic path (a circle)")
        return periods * traj.period
    if duration is not None:
        return float(duration)
    if traj.period is not None:
        return traj.period
    return float(traj.t_end - traj.t_start)


def _times(traj, duration: float, step: float) -> np.ndarray:
    if not (step > 0 and math.isfinite(step)):
        raise InputError("--step", step, "a finite number > 0 [s]")
    if not (duration > 0 and math.isfinite(duration)):
        raise InputError("--duration", duration, "a finite number > 0 [s]")
    n = duration / step
    if abs(n - round(n)) > 1e-6 * max(1.0, n) or round(n) < 1:
        raise InputError("--step", step, f"a divisor of the simulated time {duration:.6g} s")
    return traj.t_start + step * np.arange(int(round(n)) + 1)


def _name(model, robot):
    return robot or getattr(model.robot, "name", "robot")


def _effort_key(model) -> tuple[str, str]:
    units = set(model.coordinates.units[:model.coordinates.n_actuated])
    if units == {"rad"}:
        return "torque_nm", "N m"
    if units == {"m"}:
        return "force_n", "N"
    return "effort_si", "N or N m"


# ====================================================================== results
class SimulationResult(Result):
    """Time series of a simulation (index ``time_s``): efforts, poses, elastic
    coordinates; figures of the efforts, the end-effector deviation from the rigid
    model and the elastic coordinates."""

    def figures(self) -> dict:
        from ..plot.figure import (axis_name, elastic_groups, finish, new_figure,
                                   plot_elastic, z_down)
        q, t = self.quantities, np.asarray(self.quantities["time_s"])
        ekey = next((k for k in ("torque_nm", "force_n", "effort_si") if k in q), None)
        panels = []
        if ekey:
            panels.append(("efforts", ekey))
        if "ee_position_m" in q and "rigid_ee_position_m" in q:
            panels.append(("deviation", None))
        if "elastic" in q and np.size(q["elastic"]):
            e = np.asarray(q["elastic"])
            names = list(q.get("elastic_names", [f"elastic coordinate {k + 1}"
                                                 for k in range(e.shape[1])]))
            panels += [("elastic", g) for g in elastic_groups(e, names)]
        if not panels:
            return {}
        down = z_down(self.formulation, self.robot)
        fig, axes = new_figure(len(panels), height=2.4)
        for ax, (what, key) in zip(axes, panels):
            if what == "efforts":
                y = np.asarray(q[key])
                for i in range(y.shape[1]):
                    line, = ax.plot(t, y[:, i], label=f"actuator {i + 1}")
                    rk = "rigid_" + key
                    if rk in q:
                        ax.plot(t, np.asarray(q[rk])[:, i], ":", color=line.get_color(),
                                lw=0.9, label=f"rigid {i + 1}")
                ax.set_ylabel({"torque_nm": "torque [N m]", "force_n": "force [N]"}.get(
                    key, "effort [N or N m]"))
            elif what == "deviation":
                d = 1e3 * (np.asarray(q["ee_position_m"]) - np.asarray(q["rigid_ee_position_m"]))
                for i, c in enumerate("XYZ"[:d.shape[1]]):
                    if np.abs(d[:, i]).max() > 0:
                        ax.plot(t, d[:, i], label=axis_name(c, down))
                ax.set_ylabel("end-effector\nflexible - rigid [mm]"
                              + ("\n(world frame, Z down)" if down else ""))
            else:
                plot_elastic(ax, t, e, names, key)
        axes[0].set_title(self.title, fontsize=9)
        return {"simulation": finish(fig, axes, xlabel="time [s]")}


class KEDSimulationResult(SimulationResult):
    """A KED simulation of a Delta (Kuo 2016's figures)."""

    def figures(self) -> dict:
        from ..plot.flexible_delta import ked_figures
        return ked_figures(self.quantities, self.title)


class TrackingSimulationResult(SimulationResult):
    """A closed-loop tracking simulation (position and joint errors, efforts)."""

    def figures(self) -> dict:
        from ..plot.delta import tracking_figure
        return {"tracking": tracking_figure(self.quantities, self.title)}


class ArmSimulationResult(SimulationResult):
    """A PD simulation of an arm (Yu 2019 Figs. 10, 12-14)."""

    def figures(self) -> dict:
        from ..plot.arm import arm_figures
        return arm_figures(self.quantities, self.title)


class TorquesResult(Result):
    """Inverse dynamics along a motion (efforts against time)."""

    def figures(self) -> dict:
        from ..plot.delta import torques_figure
        return {"torques": torques_figure(self.quantities, self.title)}


# ====================================================================== motion-driven
def simulate_motion(model, trajectory, *, duration: float | None = None,
                    periods: float | None = None, step: float = 1e-3,
                    initial: str = "static", method: str | None = None, progress=None,
                    robot: str | None = None, inputs: dict | None = None,
                    integrator_step: float | None = None) -> SimulationResult:
    """The elastic response to a prescribed actuated motion (module docstring).

    Parameters
    ----------
    model : a flexible model (capability ``simulate_motion``)
    trajectory : Trajectory
        Joint space (the actuated coordinates) or task space (the end-effector, through
        the rigid inverse kinematics, where the model has one).
    duration, periods : float, optional
        Simulated time [s], or periods of a periodic path (default: one period, or the
        whole motion).
    step : float
        Output step [s] (and the constant step of the KED Newmark integrator).
    initial : {"static", "zero"}
        The elastic state at the start: the static deflection at the first pose under
        gravity (default), or undeformed.
    method : str, optional
        Integrator of the engine: KED ``newmark`` (default) or ``radau``; NE-PVP
        ``generalized-alpha`` or ``rk4`` (compiled; default: the cheaper for the mesh,
        :func:`~elastodyn.formulations.nepvp.simulation.simulate_motion`) or ``dop853``; FFRF ``generalized-alpha`` (default: its
        engine, constant step, 40 per period of the first elastic mode, at most the
        output step) or the generic ``dop853`` or ``radau`` (error controlled, slow on
        stiff links); generic ``dop853`` (default) or ``radau``.
    integrator_step : float, optional
        NE-PVP's compiled integrators: the step bound [s] (> 0; default: the engine's,
        :func:`~elastodyn.formulations.nepvp.simulation.simulate_motion`'s ``max_step``).
    """
    require(model, "simulate_motion", what="simulate (motion-driven)")
    if initial not in INITIAL_STATES:
        raise InputError("--initial", initial, "one of " + ", ".join(INITIAL_STATES))
    T = _window(trajectory, duration, periods)
    times = _times(trajectory, T, step)
    inputs = dict(inputs or {})
    inputs.update({"duration_s": T, "step_s": step, "initial": initial})
    if integrator_step is not None and model.formulation != "nepvp":
        raise InputError("--integrator-step", integrator_step,
                         "only for the compiled NE-PVP engine or a force-driven ffrf "
                         "scenario")
    if model.formulation == "ked":
        return _ked(model, trajectory, T, step, initial, method or "newmark", progress,
                    _name(model, robot), inputs)
    if model.formulation == "ffrf" and method in (None, "generalized-alpha"):
        return _ffrf_motion(model, trajectory, times, step, initial, method,
                            _name(model, robot), inputs, progress)
    if model.formulation == "nepvp" and getattr(model, "_plain", False) and \
            _space(trajectory) == "joint":
        return _nepvp(model, trajectory, times, step, initial, method or "auto",
                      _name(model, robot), inputs, integrator_step)
    if integrator_step is not None:
        raise InputError("--integrator-step", integrator_step,
                         "only for the compiled NE-PVP engine (a joint-space motion of a "
                         "model without root slopes) or a force-driven ffrf scenario")
    return _generic_motion(model, trajectory, times, initial, method or "dop853",
                           _name(model, robot), inputs, progress)


def _task_path(model, traj, T, step):
    """A joint-space trajectory of a Delta as the platform path KED needs: at every
    sample (the output step, which is KED's Newmark step) the platform position,
    velocity and acceleration of the rigid motion (forward kinematics and the Jacobian
    and its derivative, ``model.state``), joined by quintic Hermite pieces (exact at the
    samples)."""
    from ..trajectories.table import TableTrajectory
    times = _times(traj, T, step)
    smp = traj.evaluate(times)
    if smp.position.shape[1] != model.n_actuated:
        raise InputError("--trajectory", smp.position.shape[1],
                         f"{model.n_actuated} actuated coordinates (joint space)")
    X, Xd, Xdd = [], [], []
    for q, qd, qdd in zip(smp.position, smp.velocity, smp.acceleration):
        d = model.state(actuated=q, rates=qd, accelerations=qdd).detail
        X.append(d["X"])
        Xd.append(d["Xd"])
        Xdd.append(d["Xdd"])
    return TableTrajectory(times, np.array(X), np.array(Xd), np.array(Xdd), space="task")


NEWMARK_STEPS_PER_PERIOD = 8
"""Fewest Newmark steps per period of each of the modes that matter (below). KED
integrates with the average-acceleration Newmark rule (gamma = 1/2, beta = 1/4):
unconditionally stable and without amplitude decay, its only error on a mode of period T
is the period elongation dT/T = (omega h)^2 / 12 = pi^2 / (3 N^2) for N = T / h steps
per period (Hughes, The Finite Element Method, 2000, sec. 9.3); N = 8 keeps it at
5 %. Measured on delta-kuo2016's circle (1 s; peak attitude variations against the 1 ms
run): within 0.1 % and 8 % at 5 ms, 3 % at 10 ms, 1.5x at 20 ms, 25x at 50 ms."""

NEWMARK_MODES = 6
"""The candidate modes: the lowest six elastic modes at the start of the motion, the
platform's six motions on the elastic legs (three translations, three rotations: the
position and attitude variations the results report; on Kuo's Delta 3.3 to 10.1 Hz,
then a gap to 17.7 Hz). Stiffer modes respond nearly quasi-statically, and Newmark's
static limit is exact."""

EXCITED_RATIO = 0.02
"""A candidate mode matters when the motion excites it: its dynamic (vibration) part
may reach this fraction of the quasi-static response to the motion's loads
(:func:`excitation_ratios`). The dynamic part of an unresolved mode is mistimed but
bounded (the rule is unconditionally stable), so its error stays below twice this
fraction of the quasi-static response to the load component that excites it: 4 %, the
order of the 5 % period error accepted for a resolved mode."""

COMPONENT_FLOOR = 0.01
"""Load components are measured each against its own peak, but not against less than
this fraction of the largest load (:func:`excitation_ratios`): an abrupt component of
1 % of the load still counts as fully abrupt, one of 0.1 % as a tenth."""


def excitation_ratios(traj, t0: float, T: float, omega, length: float) -> np.ndarray:
    """How much a motion excites modes of circular frequencies ``omega`` [rad/s].

    For a mode driven by a load f(t) from its static state at t0 (x'' + w^2 x = f,
    x(t0) = 0 before the motion's loads), the response is the quasi-static part
    f/w^2 - f''/w^4 + ... plus a free vibration whose amplitude is, to O(f''/w^2)::

        | f(t0) + int_t0^t f'(s) exp(-i w (s - t0)) ds - i exp(-i w (t - t0)) f'(t) / w | / w^2

    (u = x' + i w x obeys u' = f + i w u: Duhamel's integral for u, integrated by parts
    twice; f(t0) is the load switched on at the start, e.g. a circle entered at speed;
    the last term removes the quasi-static rate f'/w^2 from the vibration). After the
    motion (f' = 0) it is the residual vibration exactly. The ratio returned is its
    largest value over the window [t0, t0 + T] (and the residual of a load stopped at
    its end), per load component k divided by that component's peak ``max |f_k|``
    (at least :data:`COMPONENT_FLOOR` times the largest load: a small but abrupt
    component, which a mode may see alone, is not hidden by a large smooth one), the
    largest over the components, per mode: 0 for a load too slow to excite the mode,
    about 1 for an abrupt one (a step of load, a circle without ramp).

    The load is taken as the inertial accelerations of the motion: the end-effector
    acceleration (3) and the centripetal terms v_j v_k / ``length`` (6; ``length`` [m]
    the shortest link), which drive the links' elastic coordinates (Kuo 2016, eq. 43:
    the loads of the rigid motion; gravity's share changes with the pose slowly, as
    the motion does). Sampled at 20 points per period of the highest mode (at most
    400,000 samples) and at least 4000 over the window; the load's rate by second-order
    finite differences (a jump of the load becomes a spike: conservative); the running
    integral by the trapezoid rule.

    Parameters
    ----------
    traj : Trajectory (task space)
    t0, T : float
        Start [s] and length [s] (> 0) of the window.
    omega : array_like (m,)
        Circular frequencies [rad/s], finite and > 0.
    length : float
        The length [m] (> 0) dividing v_j v_k.

    Returns
    -------
    ndarray (m,), dimensionless, >= 0.
    """
    omega = np.asarray(omega, dtype=float).reshape(-1)
    if omega.size == 0:
        return np.zeros(0)
    if not np.all(np.isfinite(omega) & (omega > 0)):
        raise InputError("omega", omega.tolist(), "finite circular frequencies > 0 [rad/s]")
    n = int(min(400_000, max(4000, 20 * T * float(omega.max()) / (2 * np.pi)))) + 1
    t = t0 + np.linspace(0.0, T, n)
    smp = traj.evaluate(t)
    a, v = np.asarray(smp.acceleration), np.asarray(smp.velocity)
    iu = np.triu_indices(v.shape[1])
    f = np.concatenate([a, (v[:, :, None] * v[:, None, :])[:, iu[0], iu[1]] / length],
                       axis=1)
    peak = np.max(np.abs(f), axis=0)
    scale = float(np.max(peak))
    if not scale > 0:
        return np.zeros(omega.shape)
    inv = 1.0 / np.maximum(peak, COMPONENT_FLOOR * scale)
    from scipy.integrate import cumulative_trapezoid
    fd = np.gradient(f, t, axis=0)
    out = []
    for w in omega:
        phase = np.exp(-1j * w * (t - t0))[:, None]
        run = cumulative_trapezoid(fd * phase, t, axis=0, initial=0)
        free = np.abs(f[0] + run - 1j * phase * fd / w) * inv
        # and the residual if the load stopped at the end of the window (the last
        # sample's rate is one-sided: a rest-to-rest motion ending there has stopped)
        last = np.abs(f[0] + run[-1]) * inv
        out.append(max(float(free.max()), float(last.max())))
    return np.array(out)


def _check_newmark_step(ked, traj, step: float, T: float, initial: str) -> None:
    """InputError naming --step when the Newmark step cannot resolve the modes that
    matter: of the lowest :data:`NEWMARK_MODES` elastic modes at the start of the
    motion, those the motion excites (:func:`excitation_ratios` >= :data:`EXCITED_RATIO`;
    all of them when the start is undeformed, as gravity is then switched on at once),
    and always the lowest; :data:`NEWMARK_STEPS_PER_PERIOD` steps per period of the
    highest of them."""
    X0 = traj.evaluate(np.array([traj.t_start])).position[0]
    try:
        res = ked.modes(X0, count=min(NEWMARK_MODES + 6, ked.dof))
    except (InputError, ModelError):
        return              # no frequencies at the start: the simulation reports why
    om = res.omega_rad_s[res.omega_rad_s > 0][:NEWMARK_MODES]
    if not om.size:
        return
    if initial == "static":
        g = ked.robot.geometry
        ratios = excitation_ratios(traj, float(traj.t_start), T, om,
                                   min(g.upper_length, g.lower_length))
        excited = np.flatnonzero(ratios >= EXCITED_RATIO)
        k = int(excited[-1]) if excited.size else 0
        why = (f"mode {k + 1} of the platform's {om.size} lowest, the highest this "
               f"motion excites")
    else:
        k = om.size - 1
        why = f"the platform's {om.size} lowest elastic modes (the undeformed start " \
              "excites them all)"
    period = 2 * np.pi / float(om[k])
    largest = period / NEWMARK_STEPS_PER_PERIOD
    if step > largest:
        raise InputError("--step", step, f"at most {largest:.3g} s for the Newmark "
                         f"integrator ({NEWMARK_STEPS_PER_PERIOD} steps per period of "
                         f"{why}, {1 / period:.4g} Hz at the start; a larger step "
                         "distorts the vibration), or --method radau")


def _ked(model, traj, T, step, initial, method, progress, name, inputs):
    from ..formulations.ked.simulation import simulate_ked
    if _space(traj) == "joint":
        traj = _task_path(model, traj, T, step)
    if _space(traj) != "task" or traj.dim != 3:
        raise InputError("--trajectory", getattr(traj, "space", "?"),
                         "a platform path (3-D) or the actuated angles for KED")
    if method not in ("newmark", "radau"):
        raise InputError("--method", method, "newmark or radau for KED")
    if method == "newmark":
        _check_newmark_step(model.ked, traj, step, T, initial)
    import warnings

    from ..formulations.ked.simulation import KEDValidityWarning
    t0 = _time.perf_counter()
    with warnings.catch_warnings():   # the result carries the warning (warnings, summary)
        warnings.simplefilter("ignore", KEDValidityWarning)
        sim = simulate_ked(model.ked, traj, duration=T, step=step, initial=initial,
                           method=method, progress=progress)
    wall = _time.perf_counter() - t0
    s = sim.summary()
    q = {"time_s": sim.time, "position_m": sim.position,
         "position_variation_m": sim.position_variation,
         "attitude_variation_deg": sim.attitude_variation_deg,
         "torque_nm": sim.torque, "rigid_torque_nm": sim.rigid_torque}
    mid, mid_names = [], []
    for i in range(3):
        for li, link in ((0, "upper"), (1, "lower")):
            for f, (nm, unit) in enumerate((("u", "m"), ("phi", "rad"), ("v", "m"),
                                            ("w", "m"))):
                mid.append(sim.midspan[:, i, li, f])
                mid_names.append(f"{link}{i + 1}_mid_{nm}_{unit}")
    q["midspan"] = np.column_stack(mid)
    q["midspan_names"] = mid_names
    if traj.period is None:
        smp = traj.evaluate(sim.time)
        q["reference_velocity_m_s"] = smp.velocity
        q["reference_acceleration_m_s2"] = smp.acceleration
    summary = {k: s[k] for k in ("max_position_variation_m", "final_position_variation_m",
                                 "max_attitude_variation_deg", "final_attitude_variation_deg",
                                 "peak_torque_nm", "max_displacement_ratio",
                                 "max_rotation_rad", "dof", "steps")}
    summary["validity_warning"] = sim.validity_warning
    summary["model_error"] = sim.model_error
    summary["reference"] = sim.reference
    cols = {"position_m": ["x_m", "y_m", "z_m"],
            "position_variation_m": [f"delta{i}_m" for i in (1, 2, 3)],
            "attitude_variation_deg": [f"delta{i}_deg" for i in (4, 5, 6)],
            "torque_nm": [f"tau{i}_nm" for i in (1, 2, 3)],
            "rigid_torque_nm": [f"tau{i}_rigid_nm" for i in (1, 2, 3)],
            "midspan": mid_names,
            "reference_velocity_m_s": [f"v{c}_ref_m_s" for c in "xyz"],
            "reference_acceleration_m_s2": [f"a{c}_ref_m_s2" for c in "xyz"]}
    warnings = (sim.validity_warning,) if sim.validity_warning else ()
    inputs = {**inputs, "method": sim.method}
    title = (f"{name}: KED simulation ({T:.4g} s, {sim.method}, step {step:g} s, "
             f"{model.ked.n_elements} {model.ked.order} element(s) per link, "
             f"{model.ked.dof} dof, initial state: {sim.initial})")
    return KEDSimulationResult("simulate", name, "ked", dict(model.options), inputs, q,
                               summary, warnings, {"wall_time_s": wall}, cols, "time_s",
                               "simulation", title)


def _nepvp(model, traj, times, step, initial, method, name, inputs, integrator_step=None):
    from ..formulations.nepvp.simulation import METHODS
    from ..formulations.nepvp.simulation import simulate_motion as engine
    if method not in METHODS:
        raise InputError("--method", method, " or ".join(METHODS) + " for NE-PVP")
    if integrator_step is not None and not (math.isfinite(integrator_step) and
                                            integrator_step > 0):
        raise InputError("--integrator-step", integrator_step, "a finite step > 0 [s]")
    if traj.dim != model.n_actuated:
        raise InputError("--trajectory", traj.dim, f"{model.n_actuated} actuated coordinates")
    t0 = _time.perf_counter()
    sim = engine(model.model, traj, end=float(times[-1]), step=step, initial=initial,
                 method=method, max_step=integrator_step)
    wall = _time.perf_counter() - t0
    ekey, _ = _effort_key(model)
    rows = list(sim.rows)
    q = {"time_s": sim.time, "actuated": traj.evaluate(sim.time).position,
         ekey: sim.tau, "rigid_" + ekey: sim.rigid_tau,
         "ee_position_m": sim.ee_position, "ee_velocity_m_s": sim.ee_velocity,
         "rigid_ee_position_m": sim.rigid_ee_position,
         "rigid_ee_velocity_m_s": sim.rigid_ee_velocity,
         "elastic": sim.e, "elastic_names": list(sim.elastic_names), "ee_rows": rows}
    names = list(model.coordinates.actuated)
    units = model.coordinates.units[:len(names)]
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(names, units)],
            ekey: [f"{ekey.split('_')[0]}_{n}_{ekey.split('_', 1)[1]}" for n in names],
            "rigid_" + ekey: [f"rigid_{ekey.split('_')[0]}_{n}_{ekey.split('_', 1)[1]}"
                              for n in names],
            "ee_position_m": [f"ee_{r}_m" for r in rows],
            "ee_velocity_m_s": [f"ee_v{r}_m_s" for r in rows],
            "rigid_ee_position_m": [f"rigid_ee_{r}_m" for r in rows],
            "rigid_ee_velocity_m_s": [f"rigid_ee_v{r}_m_s" for r in rows],
            "elastic": [f"{n}_{u}" for n, u in zip(sim.elastic_names,
                                                   model.coordinates.units[len(names):])]}
    dv = sim.ee_velocity - sim.rigid_ee_velocity
    summary = {"max_ee_velocity_m_s": np.abs(sim.ee_velocity).max(axis=0).tolist(),
               "max_velocity_deviation_m_s": np.abs(dv).max(axis=0).tolist(),
               "peak_" + ekey: np.abs(sim.tau).max(axis=0).tolist(),
               "peak_rigid_" + ekey: np.abs(sim.rigid_tau).max(axis=0).tolist(),
               "max_elastic": np.abs(sim.e).max(axis=0).tolist(),
               "rhs_evaluations": sim.evaluations}
    inputs = {**inputs, "method": sim.method}
    title = (f"{name}: NE-PVP motion-driven simulation to {times[-1]:.4g} s "
             f"({model.model.ne} elastic dof, {sim.method}, initial state: {sim.initial})")
    return SimulationResult("simulate", name, "nepvp", dict(model.options), inputs, q,
                            summary, (), {"wall_time_s": wall}, cols, "time_s",
                            "simulation", title)


def _actuated_motion(model, traj, times):
    """(q_a, qd_a, qdd_a) (nt, n_a) of the prescribed motion: a joint-space trajectory
    directly, a task-space one through the model's rigid inverse kinematics (rates by
    the finite differences of a cubic spline through the joint values)."""
    smp = traj.evaluate(times)
    if _space(traj) == "joint":
        if smp.position.shape[1] != model.n_actuated:
            raise InputError("--trajectory", smp.position.shape[1],
                             f"{model.n_actuated} actuated coordinates (joint space)")
        return smp.position, smp.velocity, smp.acceleration
    require(model, "inverse_kinematics", what="a task-space trajectory")
    from scipy.interpolate import CubicSpline
    qa = np.array([model.inverse_kinematics(p) for p in smp.position])
    sp = CubicSpline(times, qa, axis=0)
    return qa, sp(times, 1), sp(times, 2)


def _motion_result(model, name, inputs, times, qa, tau, rtau, pose, rpose, elastic,
                   summary_extra, method, initial, t0w, warnings=()):
    """The result of a motion-driven run (one layout for every engine): actuated
    coordinates, efforts flexible and rigid, end-effector position flexible and rigid,
    elastic coordinates."""
    ne = model.n_elastic
    ekey, _ = _effort_key(model)
    tau, rtau = np.asarray(tau), np.asarray(rtau)
    X = np.asarray(elastic).reshape(len(times), ne)
    (pos, ang), (rpos, rang) = _ee_split(model, pose), _ee_split(model, rpose)
    q = {"time_s": times, "actuated": qa, ekey: tau, "rigid_" + ekey: rtau,
         "ee_position_m": pos, "rigid_ee_position_m": rpos,
         "elastic": X, "elastic_names": list(model.coordinates.elastic)}
    if ang is not None:
        q["ee_angle_rad"], q["rigid_ee_angle_rad"] = ang, rang
    names = list(model.coordinates.actuated)
    units = model.coordinates.units[:len(names)]
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(names, units)],
            ekey: [f"{n}_{ekey}" for n in names],
            "rigid_" + ekey: [f"rigid_{n}_{ekey}" for n in names],
            "ee_position_m": [f"ee_{c}_m" for c in "xyz"],
            "rigid_ee_position_m": [f"rigid_ee_{c}_m" for c in "xyz"],
            "elastic": [f"{n}_{u}" for n, u in zip(model.coordinates.elastic,
                                                   model.coordinates.units[len(names):])]}
    dev = np.linalg.norm(q["ee_position_m"] - q["rigid_ee_position_m"], axis=1)
    summary = {"peak_" + ekey: np.abs(tau).max(axis=0).tolist(),
               "peak_rigid_" + ekey: np.abs(rtau).max(axis=0).tolist(),
               "max_ee_deviation_m": float(dev.max()),
               "max_elastic": np.abs(X).max(axis=0).tolist(), **summary_extra}
    inputs = {**inputs, "method": method}
    title = (f"{name}: motion-driven simulation to {times[-1]:.4g} s ({model.formulation}, "
             f"{ne} elastic dof, {method}, initial state: {initial})")
    return SimulationResult("simulate", name, model.formulation, dict(model.options),
                            inputs, q, summary, tuple(warnings),
                            {"wall_time_s": _time.perf_counter() - t0w}, cols, "time_s",
                            "simulation", title)


def _motion_fn(traj, times, qa):
    """t -> (q_a, q_a_dot, q_a_ddot) of the prescribed motion: a joint-space trajectory
    itself, a task-space one through a cubic spline of its joint values qa at times."""
    if _space(traj) == "joint":
        def motion(t):
            s = traj.evaluate(np.array([t]))
            return s.position[0], s.velocity[0], s.acceleration[0]
        return motion
    from scipy.interpolate import CubicSpline
    sp = CubicSpline(times, qa, axis=0)
    return lambda t: (sp(t), sp(t, 1), sp(t, 2))


def _ee_split(model, poses):
    """(positions (n_t, 3) [m], orientations (n_t,) [rad] or None) of end-effector poses:
    a planar pose (x, y, theta) (``model.pose_names``) gives (x, y, 0) and theta, a
    planar position (x, y) gives (x, y, 0)."""
    P = np.asarray(poses, dtype=float)
    P = P.reshape(len(P), -1)
    if tuple(getattr(model, "pose_names", ())) == ("x", "y", "theta"):
        return np.column_stack([P[:, :2], np.zeros(len(P))]), P[:, 2].copy()
    if P.shape[1] < 3:
        P = np.column_stack([P, np.zeros((len(P), 3 - P.shape[1]))])
    return P[:, :3], None


def _along(model, st, times, qa, qda, qdda, E, Ed, progress=None):
    """Efforts (n_t, n_a) from the contract's inverse dynamics (the elastic accelerations
    solved for), end-effector positions, and the rigid efforts and positions at the same
    actuated motion (elastic coordinates zero), at every sample of a motion-driven run
    with elastic coordinates E and rates Ed (n_t, n_e)."""
    ne, na = model.n_elastic, model.n_actuated
    tau, rtau, pose, rpose = [], [], [], []
    for k in range(len(times)):
        st = model.at(st, q=np.concatenate([qa[k], E[k]]), v=np.concatenate([qda[k], Ed[k]]),
                      a=np.concatenate([qdda[k], np.zeros(ne)]))
        tau.append(model.inverse_dynamics(st).tau)
        pose.append(st.pose if st.pose is not None else np.zeros(3))
        rs = model.at(st, q=np.concatenate([qa[k], np.zeros(ne)]),
                      v=np.concatenate([qda[k], np.zeros(ne)]))
        M, c = model.mass_matrix(rs), model.bias(rs)
        rtau.append(M[:na, :na] @ qdda[k] + c[:na])
        rpose.append(rs.pose if rs.pose is not None else np.zeros(3))
        if progress is not None:
            progress(k + 1, len(times))
    return tau, rtau, pose, rpose


def _ffrf_motion(model, traj, times, step, initial, method, name, inputs, progress):
    """The FFRF engine along a prescribed actuated motion: generalized-alpha on the
    partitioned equations (:meth:`~elastodyn.formulations.ffrf_contract.FFRFContract.
    run_motion`), the step at most the output step; efforts and rigid counterpart as
    the other engines (:func:`_along`)."""
    t0w = _time.perf_counter()
    qa, qda, qdda = _actuated_motion(model, traj, times)
    motion = _motion_fn(traj, times, qa)
    ne = model.n_elastic
    st0 = model.state(actuated=qa[0], rates=qda[0])
    e0 = model.static_deflection(st0).elastic if initial == "static" and ne else None
    from ..formulations.ffrf.solve import default_step
    bar = None if progress is None else (lambda t, T: progress(t - times[0], T - times[0]))
    q_start = model.system.close(model.tree.q_home, model.tree.from_joint(qa[0]),
                                 None if e0 is None else e0)
    warn = model.stability_warning(q_start)
    h = min(default_step(model.system, q_start), step)
    try:
        run = model.run_motion(motion, times, elastic=e0, step=h, progress=bar)
    except ModelError as exc:
        raise ModelError(f"{exc}; {warn}" if warn else str(exc)) from None
    if run.singular_time is not None:
        raise ModelError(run.message)
    el = model.system.el_index
    tau, rtau, pose, rpose = _along(model, st0, times, qa, qda, qdda, run.q[:, el],
                                    run.qd[:, el])
    return _motion_result(model, name, inputs, times, qa, tau, rtau, pose, rpose,
                          run.q[:, el], {"integrator_step_s": float(run.step)},
                          "generalized-alpha", initial, t0w, [warn] if warn else [])


_SCIPY = {"dop853": "DOP853", "radau": "Radau"}     # --method -> solve_ivp's name


def _generic_motion(model, traj, times, initial, method, name, inputs, progress):
    """Integrate (e, e_d) with e_dd from the contract's inverse dynamics along the
    prescribed actuated motion (scipy solve_ivp; DOP853 rtol 1e-9 by default)."""
    if method not in ("dop853", "radau"):
        raise InputError("--method", method, "dop853 or radau")
    t0w = _time.perf_counter()
    qa, qda, qdda = _actuated_motion(model, traj, times)
    motion = _motion_fn(traj, times, qa)
    ne = model.n_elastic
    st0 = model.state(actuated=qa[0], rates=qda[0])
    if initial == "static" and ne:
        st0 = model.static_deflection(st0)
    guess = {"st": st0}
    count = [0]

    def rhs(t, x):
        count[0] += 1
        a, ad, add = motion(t)
        st = model.at(guess["st"], q=np.concatenate([a, x[:ne]]),
                      v=np.concatenate([ad, x[ne:]]),
                      a=np.concatenate([add, np.zeros(ne)]))
        guess["st"] = st
        return np.concatenate([x[ne:], model.inverse_dynamics(st).elastic_accelerations])

    x0 = np.concatenate([st0.elastic, st0.elastic_rates])
    sol = bounded_solve_ivp(rhs, (times[0], times[-1]), x0, method=_SCIPY[method],
                            t_eval=times, rtol=1e-9, atol=1e-13, what="simulation")
    if not sol.success:
        raise ModelError(f"simulation failed: {sol.message}")
    X = sol.y.T
    tau, rtau, pose, rpose = _along(model, st0, times, qa, qda, qdda, X[:, :ne], X[:, ne:],
                                    progress)
    return _motion_result(model, name, inputs, times, qa, tau, rtau, pose, rpose,
                          X[:, :ne], {"rhs_evaluations": count[0]}, method, initial, t0w)


# ====================================================================== force-driven
class ForcedSimulationResult(Result):
    """A force-driven run of a planar robot with its rigid counterpart (Rosyid &
    El-Khasawneh 2020 Figs. 8-11): end-effector x, y, theta flexible and rigid, their
    elastic part, the elastic coordinates."""

    def figures(self) -> dict:
        from ..plot.figure import elastic_groups, finish, new_figure, plot_elastic
        q, t = self.quantities, np.asarray(self.quantities["time_s"])
        P = np.asarray(q["ee_pose"])
        R = np.asarray(q["rigid_ee_pose"])
        D = np.asarray(q["ee_elastic_pose"])
        labels = ("x [m]", "y [m]", "theta [rad]")
        fig, axes = new_figure(3, height=2.0)
        for i, ax in enumerate(axes):
            ax.plot(t, P[:, i], label="flexible")
            ax.plot(t, R[:, i], "--", label="rigid")
            ax.set_ylabel("end-effector\n" + labels[i])
        axes[0].set_title(self.title, fontsize=9)
        out = {"pose": finish(fig, axes, xlabel="time [s]")}
        e = np.asarray(q["elastic"])
        names = list(q.get("elastic_names", [f"elastic coordinate {k + 1}"
                                             for k in range(e.shape[1])]))
        groups = elastic_groups(e, names)
        fig, axes = new_figure(3 + len(groups), height=2.0)
        for i in range(3):
            axes[i].plot(t, D[:, i] * 1e6, lw=0.8)
            axes[i].set_ylabel("elastic part\n" + ("x [um]", "y [um]", "theta [urad]")[i])
        for ax, g in zip(axes[3:], groups):
            plot_elastic(ax, t, e, names, g, lw=0.8)
        axes[0].set_title(self.title + ": elastic part (flexible - rigid)", fontsize=9)
        out["elastic"] = finish(fig, axes, xlabel="time [s]")
        return out


def output_times(duration, output_step, *, step_name: str = "--step"):
    """(T, h, times): the window T [s] (> 0), the output step h [s] (in (0, T]) and the
    uniform output times 0, h, ..., n h with n = round(T / h)."""
    T = float(duration)
    if not (math.isfinite(T) and T > 0):
        raise InputError("--duration", duration, "a time > 0 s")
    h = float(output_step)
    if not (math.isfinite(h) and 0 < h <= T):
        raise InputError(step_name, output_step, f"a time in (0, {T:g}] s")
    n = int(round(T / h))
    return T, h, np.linspace(0.0, n * h, n + 1)


def simulate_efforts(model, efforts=None, *, drive=None, initial=None, duration: float,
                     output_step: float = 1e-3, step: float | None = None,
                     method: str = "partitioning", rho_inf: float = 0.8,
                     robot: str | None = None, inputs: dict | None = None,
                     progress=None) -> ForcedSimulationResult:
    """Force-driven simulation from rest (undeformed, at the robot's home), or a run with
    the actuators at constant speed (``drive``), with the rigid model alongside (same
    load or drive, same integrator).

    Parameters
    ----------
    model : a model with the capability ``simulate_efforts`` (the FFRF formulation)
    efforts : EffortLaw, optional
        Efforts along the actuated coordinates [N or N m] against time.
    drive : (n_a,) [rad/s or m/s], optional
        Instead of efforts: the actuated joints at these constant speeds from home.
    initial : dict, optional
        With ``drive``: ``elastic`` and ``elastic_rates`` (n_e,) at the start (default 0).
    duration : float
        Window [s] (> 0). A run that reaches a singular configuration (the actuated
        coordinates no longer fix the mechanism) stops there and says so; the rigid and
        flexible runs are reported up to the earlier stop.
    output_step : float
        Sampling of the output [s] (the integrator's steps divide it).
    step : float, optional
        Integrator step [s] (default: :func:`~elastodyn.formulations.ffrf_solve.
        default_step`, 40 per period of the first elastic mode with locked actuators).
    method : "partitioning" (the paper's, eqs. (91)-(106)) or "projection" (index-3
        with velocity projection).
    """
    from ..formulations.ffrf.solve import METHODS
    require(model, "simulate_efforts", what="simulate (force-driven)")
    if method not in METHODS:
        raise InputError("--method", method, " or ".join(METHODS))
    T, h, times = output_times(duration, output_step, step_name="--output-step")
    t0w = _time.perf_counter()
    if (efforts is None) == (drive is None):
        raise InputError("efforts", "efforts and drive", "exactly one of them")
    rig = model.rigid_counterpart() if not getattr(model, "rigid", False) else None
    rstep = step and min(step, 1e-3)
    if drive is not None:
        init = dict(initial or {})
        flex = model.run_drive(drive, times, elastic=init.get("elastic"),
                               elastic_rates=init.get("elastic_rates"), method=method,
                               step=step, rho_inf=rho_inf, progress=progress)
        rrun = (rig.run_drive(drive, times, method=method, step=rstep, rho_inf=rho_inf)
                if rig is not None else flex)
    else:
        flex = model.run_efforts(efforts, times, method=method, step=step,
                                 rho_inf=rho_inf, progress=progress)
        rrun = (rig.run_efforts(efforts, times, method=method, step=rstep,
                                rho_inf=rho_inf) if rig is not None else flex)
    k = min(flex.t.size, rrun.t.size)
    t = flex.t[:k]
    P = np.array([model.pose_of(x) for x in flex.q[:k]])
    R = np.array([(rig or model).pose_of(x) for x in rrun.q[:k]])
    el = model.system.el_index
    E = flex.q[:k][:, el]
    S = np.array([model.actuated_of(x) for x in flex.q[:k]])
    SR = np.array([(rig or model).actuated_of(x) for x in rrun.q[:k]])
    XY = np.array([model.joint_positions(x) for x in flex.q[:k]])
    jn = [j.name for j in model.robot.joints]
    MID = np.array([model.midspan_deflections(x) for x in flex.q[:k]])
    names = list(model.coordinates.actuated)
    units = model.coordinates.units[:len(names)]
    enames = list(model.coordinates.elastic)
    q = {"time_s": t, "actuated": S, "rigid_actuated": SR,
         "ee_pose": P, "rigid_ee_pose": R, "ee_elastic_pose": P - R, "elastic": E,
         "elastic_names": enames, "constraint_residual": flex.residual[:k],
         "joint_positions": XY.reshape(k, -1), "midspan_deflection": MID}
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(names, units)],
            "rigid_actuated": [f"rigid_{n}_{u}" for n, u in zip(names, units)],
            "ee_pose": ["ee_x_m", "ee_y_m", "ee_theta_rad"],
            "rigid_ee_pose": ["rigid_ee_x_m", "rigid_ee_y_m", "rigid_ee_theta_rad"],
            "ee_elastic_pose": ["elastic_x_m", "elastic_y_m", "elastic_theta_rad"],
            "elastic": [f"{n}_{u}" for n, u in zip(enames,
                                                    model.coordinates.units[len(names):])],
            "joint_positions": [f"{n}_{c}_m" for n in jn for c in "xy"],
            "midspan_deflection": [f"{b}_midspan_m" for b in model.beam_names]}
    if efforts is not None:
        q["efforts"] = np.array([efforts(x) for x in t])
        cols["efforts"] = [f"{n}_effort_{'n' if u == 'm' else 'nm'}"
                           for n, u in zip(names, units)]
    h_int = flex.step
    warnings = [w for w in (model.stability_warning(flex.q[0]),) if w]
    for label, run in (("flexible", flex), ("rigid", rrun if rig is not None else None)):
        if run is not None and run.singular_time is not None:
            warnings.append(f"{label} model: {run.message}")
    if model.n_elastic:
        warnings.append(
            f"integrator step {h_int:.3g} s: elastic modes above about "
            f"{1.0 / (10 * h_int):.4g} Hz are not resolved (numerically damped, rho_inf "
            f"{rho_inf:g}); the elastic vibration excited at the start is undamped, its "
            "phase late in the run depends on the step (check with a smaller integrator step)")
    summary = {"singular_time_s": flex.singular_time,
               "rigid_singular_time_s": None if rig is None else rrun.singular_time,
               "end_time_s": float(t[-1]),
               "peak_elastic_pose": np.abs(P - R).max(axis=0).tolist(),
               "final_pose": P[-1].tolist(), "final_rigid_pose": R[-1].tolist(),
               "max_constraint_residual": float(np.max(flex.residual[:k])),
               "final_midspan_deflection_m": MID[-1].tolist(),
               "final_joint_positions_m": {n: XY[-1, i].tolist() for i, n in enumerate(jn)},
               "integrator_step_s": h_int}
    inputs = {**(inputs or {}), "duration_s": T, "output_step_s": h, "method": method,
              "step_s": h_int, "rho_inf": rho_inf}
    name = _name(model, robot)
    title = (f"{name}: {'force-driven' if drive is None else 'driven'}, {model.formulation} "
             f"{model.options.get('shape', '')} ({model.n_elastic} elastic dof, {method})")
    return ForcedSimulationResult("simulate", name, model.formulation, dict(model.options),
                                  inputs, q, summary, tuple(warnings),
                                  {"wall_time_s": _time.perf_counter() - t0w}, cols,
                                  "time_s", "simulation", title)


# ====================================================================== controlled
CONTROLLERS = ("pd", "computed-torque")


def simulate_controlled(model, trajectory, controller: dict, *, duration: float | None = None,
                        periods: float | None = None, step: float = 1e-2,
                        initial_offset=None, robot: str | None = None,
                        inputs: dict | None = None, free_vibration: bool = False,
                        progress=None) -> SimulationResult:
    """Closed-loop tracking of ``trajectory`` by a joint-space controller.

    Parameters
    ----------
    controller : dict
        ``kind`` (pd or computed-torque), ``kp``, ``kd`` [N m/rad, N m s/rad for PD;
        1/s^2, 1/s for computed torque], ``gravity_compensation`` (PD, rigid Delta).
    initial_offset : (3,), optional
        Initial platform position error [m] (rigid Delta).
    free_vibration : bool
        The controller holds the start of ``trajectory`` and the robot is released from
        rest, undeformed (Yu 2019 case 1): the result adds the spectrum of the last link's
        vertical tip acceleration and the linearized loop's frequencies (arms).
    progress : callable(done, total) or None
        Called as the engine integrates, in output steps (``total`` = the window over
        ``step``), sparsely (about a hundred calls); the results do not depend on it.
    """
    kind = controller.get("kind", "pd")
    if kind not in CONTROLLERS:
        raise InputError("--controller", kind, "one of " + ", ".join(CONTROLLERS))
    T = _window(trajectory, duration, periods)
    inputs = dict(inputs or {})
    inputs.update({"duration_s": T, "step_s": step, "controller": kind,
                   "kp": controller.get("kp"), "kd": controller.get("kd")})
    name = _name(model, robot)
    report = _in_steps(progress, max(1, int(round(T / step))))
    if _rigid(model):
        return _rigid_tracking(model, trajectory, controller, T, step, initial_offset,
                               name, inputs, report)
    if model.formulation == "amm":
        if kind != "pd":
            raise InputError("--controller", kind, "pd for an arm (Yu's joint PD)")
        if initial_offset is not None:
            raise InputError("--offset", list(initial_offset), "only for a rigid Delta")
        return _arm_pd(model, trajectory, controller, T, step, name, inputs, free_vibration,
                       report)
    raise InputError("--controller", kind, f"a formulation with a closed-loop engine "
                     f"({_closed_loop_formulations()}); {model.formulation} simulates "
                     "prescribed motions (leave --controller out)")


def _rigid_tracking(model, traj, ctrl, T, step, offset, name, inputs, progress=None):
    from ..formulations.rigid_delta.simulation import ComputedTorque, JointPD, sample_times, simulate_tracking
    kind = ctrl.get("kind", "pd")
    if kind == "pd":
        c = JointPD(ctrl.get("kp", 200.0), ctrl.get("kd", 10.0),
                    bool(ctrl.get("gravity_compensation", False)))
    else:
        if ctrl.get("gravity_compensation"):
            raise InputError("--gravity-compensation", True, "only with --controller pd")
        c = ComputedTorque(ctrl.get("kp", 400.0), ctrl.get("kd", 40.0))
    offset = (0.0, 0.0, 0.0) if offset is None else tuple(offset)
    plant = model.model
    times = sample_times(traj, duration=T, step=step)
    s = traj.evaluate(times)
    plant.kinematics.state(s.position, s.velocity)   # the reference path is valid
    plant.kinematics.state(s.position[0] + np.asarray(offset, float))
    t0 = _time.perf_counter()
    res = simulate_tracking(plant, traj, c, duration=T, step=step, initial_offset=offset,
                            progress=progress)
    wall = _time.perf_counter() - t0
    q = {"time_s": res.time, "position_m": res.position,
         "reference_position_m": res.reference_position,
         "position_error_m": res.position_error, "joint_error_rad": res.joint_error,
         "torque_nm": res.torque}
    cols = {"position_m": [f"{c_}_m" for c_ in "xyz"],
            "reference_position_m": [f"{c_}_ref_m" for c_ in "xyz"],
            "position_error_m": [f"e{c_}_m" for c_ in "xyz"],
            "joint_error_rad": [f"eq{i}_rad" for i in (1, 2, 3)],
            "torque_nm": [f"tau{i}_nm" for i in (1, 2, 3)]}
    e = np.linalg.norm(res.position_error, axis=1)
    summary = {"max_position_error_m": float(e.max()), "final_position_error_m": float(e[-1]),
               "peak_torque_nm": np.abs(res.torque).max(axis=0).tolist()}
    inputs = {**inputs, "kp": c.kp, "kd": c.kd, "initial_offset_m": list(offset)}
    title = (f"{name}: {c.name} tracking over {res.time[-1] - res.time[0]:.4g} s "
             f"(kp = {c.kp:g}, kd = {c.kd:g}; plant {model.formulation})")
    return TrackingSimulationResult("simulate", name, model.formulation, {}, inputs, q,
                                    summary, (), {"wall_time_s": wall}, cols, "time_s",
                                    "simulation", title)


def _arm_pd(model, traj, ctrl, T, step, name, inputs, free_vibration, progress=None):
    from ..formulations.amm import simulation as A
    kp, kd = float(ctrl.get("kp", 125.0)), float(ctrl.get("kd", 25.0))
    for nm, v in (("--kp", kp), ("--kd", kd)):
        if not (v > 0 and math.isfinite(v)):
            raise InputError(nm, v, "a finite gain > 0")
    amm = model.model
    hold = traj.evaluate(np.array([traj.t_start])).position[0] if free_vibration else None
    if hold is not None:
        ref = A.hold_reference(hold)
    elif _space(traj) == "task":
        if traj.dim != 2 or amm.n != 2:
            raise InputError("--trajectory", "task", "a planar path of a two-link arm "
                             "(or a joint-space trajectory)")
        ref = A.circle_reference(amm, traj)
    else:
        def ref(t):
            s = traj.evaluate(np.asarray(t, dtype=float))
            return s.position, s.velocity
    t0 = _time.perf_counter()
    sim = A.simulate_pd(amm, ref, T, kp, kd, step=step, progress=progress)
    wall = _time.perf_counter() - t0
    vt = A.joint_angles(amm, sim.q)
    n = amm.n
    q = {"time_s": sim.time, "theta_rad": vt, "theta_ref_rad": sim.theta_ref,
         "chord_theta_rad": sim.q[:, :n], "torque_nm": sim.tau,
         "modal_m": sim.q[:, n:], "modal_names": list(sim.names[n:]),
         "tip_position_m": sim.tip_position.reshape(len(sim.time), -1),
         "tip_acceleration_m_s2": sim.tip_acceleration.reshape(len(sim.time), -1)}
    cols = {"theta_rad": [f"theta{i + 1}_rad" for i in range(n)],
            "theta_ref_rad": [f"theta{i + 1}_ref_rad" for i in range(n)],
            "chord_theta_rad": [f"chord_theta{i + 1}_rad" for i in range(n)],
            "torque_nm": [f"tau{i + 1}_nm" for i in range(n)],
            "modal_m": [f"{nm}_m" for nm in sim.names[n:]],
            "tip_position_m": [f"tip{i + 1}_{c}_m" for i in range(n) for c in "xy"],
            "tip_acceleration_m_s2": [f"tip{i + 1}_a{c}_m_s2" for i in range(n) for c in "xy"]}
    summary = {"max_tracking_error_rad": np.abs(vt - sim.theta_ref).max(axis=0).tolist(),
               "peak_torque_nm": np.abs(sim.tau).max(axis=0).tolist()}
    if hold is not None:
        qe, lam, w_lin, zeta = A.linearized_closed_loop(amm, np.asarray(hold), kp, kd)
        peaks, f, amp = A.spectrum_peaks(sim.time, sim.tip_acceleration[:, -1, 1])
        summary["omega_spectrum_rad_s"] = peaks.tolist()
        q["omega_spectrum_rad_s"] = peaks.tolist()
        summary["omega_linearized_rad_s"] = lam.imag[:2].tolist()
        summary["damping_ratio_linearized"] = zeta[:2].tolist()
        summary["natural_linearized_rad_s"] = w_lin.tolist()
        q["spectrum_frequency_hz"] = f
        q["spectrum_amplitude"] = amp
    inputs = {**inputs, "kp": kp, "kd": kd}
    case = "free vibration" if hold is not None else "tracking"
    title = (f"{name}: {case} under joint PD (kp = {kp:g}, kd = {kd:g}) over {T:g} s "
             f"({amm.s} {amm.arm.basis} mode(s) per link)")
    return ArmSimulationResult("simulate", name, "amm", dict(model.options), inputs, q,
                               summary, (), {"wall_time_s": wall}, cols, "time_s",
                               "simulation", title)


# ====================================================================== torques
def torques(model, trajectory, *, duration: float | None = None, step: float = 1e-3,
            initial: str = "static", method: str | None = None, robot: str | None = None,
            inputs: dict | None = None, progress=None) -> Result:
    """Actuator efforts along a motion: the rigid models' inverse dynamics, or the
    efforts of a flexible model's motion-driven simulation (with the rigid ones)."""
    name = _name(model, robot)
    inputs = dict(inputs or {})
    if _rigid(model):
        if method is not None:
            raise InputError("--method", method, "no integrator for a rigid model's "
                             "inverse dynamics")
        return _rigid_torques(model, trajectory, duration, step, name, inputs)
    sim = simulate_motion(model, trajectory, duration=duration, step=step, initial=initial,
                          method=method, robot=robot, inputs=inputs, progress=progress)
    ekey = next(k for k in ("torque_nm", "force_n", "effort_si") if k in sim.quantities)
    keep = ("time_s", "position_m", "actuated", ekey, "rigid_" + ekey)
    q = {k: v for k, v in sim.quantities.items() if k in keep}
    summary = {"peak_" + ekey: np.abs(np.asarray(q[ekey])).max(axis=0).tolist(),
               "peak_rigid_" + ekey: np.abs(np.asarray(q["rigid_" + ekey])).max(axis=0).tolist()}
    title = sim.title.replace("simulation", "inverse dynamics (elastic response included)")
    return TorquesResult("torques", name, model.formulation, dict(model.options),
                         sim.inputs, q, summary, sim.warnings, sim.run,
                         {k: v for k, v in sim.columns.items() if k in q}, "time_s",
                         "torques", title)


def _rigid_torques(model, traj, duration, step, name, inputs):
    from ..formulations.rigid_delta.simulation import inverse_dynamics_along
    t0 = _time.perf_counter()
    prof = inverse_dynamics_along(model.model, traj, duration=duration, step=step)
    wall = _time.perf_counter() - t0
    q = {"time_s": prof.time, "position_m": prof.position, "joint_angle_rad": prof.joint_angle,
         "torque_nm": prof.torque}
    cols = {"position_m": ["x_m", "y_m", "z_m"],
            "joint_angle_rad": [f"q{i}_rad" for i in (1, 2, 3)],
            "torque_nm": [f"tau{i}_nm" for i in (1, 2, 3)]}
    if prof.multipliers is not None:
        q["multipliers_n_per_m"] = prof.multipliers
        q["lower_link_tension_n"] = prof.lower_link_tension
        cols["multipliers_n_per_m"] = [f"lambda{i}_n_per_m" for i in (1, 2, 3)]
        cols["lower_link_tension_n"] = [f"tension{i}_n" for i in (1, 2, 3)]
    summary = {"peak_torque_nm": np.abs(prof.torque).max(axis=0).tolist()}
    if traj.period is not None:
        summary["period_s"] = float(traj.period)
    if prof.lower_link_tension is not None:
        summary["lower_link_tension_range_n"] = [float(prof.lower_link_tension.min()),
                                                 float(prof.lower_link_tension.max())]
    inputs = {**inputs, "duration_s": float(prof.time[-1] - prof.time[0]), "step_s": step}
    title = (f"{name}: inverse dynamics, {len(prof.time)} samples over "
             f"{prof.time[-1] - prof.time[0]:.4g} s ({model.formulation})")
    return TorquesResult("torques", name, model.formulation, {}, inputs, q, summary, (),
                         {"wall_time_s": wall}, cols, "time_s", "torques", title)
