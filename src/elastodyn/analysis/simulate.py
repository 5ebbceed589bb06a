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

from ..description.convert import gravity_vector
from ..exceptions import InputError, ModelError
from ..model import MotionResponse, effort_key, require
from ..integrators.scheme import STEP_ERROR_LIMIT, richardson_error
from ..timegrid import uniform_times
from .results import Result

__all__ = ["deformation_check", "SimulationResult", "simulate_motion", "simulate_controlled", "torques",
           "simulate_efforts", "INITIAL_STATES"]

INITIAL_STATES = ("static", "zero")


def _rigid(model) -> bool:
    """A model without elastic coordinates (no motion-driven response: its torques are
    its inverse dynamics)."""
    return model.coordinates.n_elastic == 0


def _closed_loop_formulations() -> str:
    from ..formulations.registry import FORMULATIONS
    return ", ".join(n for n, f in FORMULATIONS.items() if f.closed_loop)


def deformation_check(model, elastic, time) -> tuple[dict, list]:
    """The small-deformation check of a run of ``model`` (capability
    ``small_deformation``, :func:`~elastodyn.formulations.base.small_deformation_check`):
    the summary's ``max_displacement_ratio`` and ``max_rotation_rad`` and the warnings
    (naming the geometrically exact formulation's command where one takes the robot);
    a ModelError beyond a beam length. Nothing for a model valid at any deformation
    (geometrically exact, rigid) or a run without elastic coordinates.

    elastic : (n_t, n_e) [m, rad]; time : (n_t,) [s], or None for a static deflection."""
    if "small_deformation" not in model.capabilities or not np.size(elastic):
        return {}, []
    from ..formulations.base import small_deformation_check
    from ..formulations.registry import reference_hint
    ratio, rotation = model.deformation_extent(np.asarray(elastic))
    return small_deformation_check(model.formulation, ratio, rotation, time,
                                   reference_hint(model))


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
    return uniform_times(traj.t_start, duration, step, step_name="--step",
                         duration_name="--duration")


def _name(model, robot):
    return robot or model.robot.name


# ====================================================================== results
class SimulationResult(Result):
    """Time series of a simulation (index ``time_s``): efforts, poses, elastic
    coordinates; figures of the efforts, the end-effector deviation from the rigid
    model and the elastic coordinates."""

    def figures(self) -> dict:
        from ..plot.figure import (axis_name, elastic_groups, finish, new_figure,
                                   plot_elastic, z_down)
        q, t = self.quantities, np.asarray(self.quantities["time_s"])
        if "position_error_m" in q and "joint_error_rad" in q:
            # a closed loop tracking a platform path (Asadi 2020's figures)
            from ..plot.delta import tracking_figure
            return {"tracking": tracking_figure(q, self.title)}
        if "tip_acceleration_m_s2" in q and "theta_rad" in q:
            # an arm under its joint PD (Yu 2019 Figs. 10, 12-14)
            from ..plot.arm import arm_figures
            return arm_figures(q, self.title)
        if "ee_attitude_deg" in q and "midspan" in q and "torque_nm" in q:
            # a platform robot's run (its attitude and its links' midspans): Kuo's layout
            from ..plot.flexible_delta import platform_figures
            return platform_figures(q, self.title)
        if "rigid_actuated" in q:
            # force-driven: the actuated coordinates are an output too (Rosyid 2020
            # Figs. 8-11: the end-effector pose, flexible and rigid, and its elastic part)
            return self._forced_figures()
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
        down = z_down(self.inputs.get("gravity_m_s2"))
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

    def _forced_figures(self) -> dict:
        """The end-effector's pose (planar x, y, theta or spatial x, y, z; flexible and
        rigid) and its elastic part (flexible - rigid) with the elastic coordinates."""
        from ..plot.figure import elastic_groups, finish, new_figure, plot_elastic
        q, t = self.quantities, np.asarray(self.quantities["time_s"])
        if "ee_angle_rad" in q:
            P = np.column_stack([np.asarray(q["ee_position_m"])[:, :2], q["ee_angle_rad"]])
            R = np.column_stack([np.asarray(q["rigid_ee_position_m"])[:, :2],
                                 q["rigid_ee_angle_rad"]])
            labels = ("x [m]", "y [m]", "theta [rad]")
            parts = ("x [um]", "y [um]", "theta [urad]")
        else:
            P = np.asarray(q["ee_position_m"])
            R = np.asarray(q["rigid_ee_position_m"])
            labels = ("x [m]", "y [m]", "z [m]")
            parts = ("x [um]", "y [um]", "z [um]")
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
            axes[i].plot(t, (P[:, i] - R[:, i]) * 1e6, lw=0.8)
            axes[i].set_ylabel("elastic part\n" + parts[i])
        for ax, g in zip(axes[3:], groups):
            plot_elastic(ax, t, e, names, g, lw=0.8)
        axes[0].set_title(self.title + ": elastic part (flexible - rigid)", fontsize=9)
        out["elastic"] = finish(fig, axes, xlabel="time [s]")
        return out


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
                    integrator_step: float | None = None,
                    step_error: bool = True) -> SimulationResult:
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
    step_error : bool
        False: a model that estimates its time-step error (capability
        ``step_error_estimate``: a second run) runs alone; a search's inner runs, whose
        reported result is simulated again.
    """
    require(model, "simulate_motion", what="simulate (motion-driven)")
    if initial not in INITIAL_STATES:
        raise InputError("--initial", initial, "one of " + ", ".join(INITIAL_STATES))
    T = _window(trajectory, duration, periods)
    times = _times(trajectory, T, step)
    inputs = dict(inputs or {})
    inputs.update({"duration_s": T, "step_s": step, "initial": initial})
    if integrator_step is not None:
        inputs["integrator_step_s"] = integrator_step      # as given (the run's: summary)
    t0 = _time.perf_counter()
    alone = ({"step_error": False} if not step_error
             and "step_error_estimate" in model.capabilities else {})
    resp = model.simulate_motion(trajectory, times, initial=initial, method=method,
                                 integrator_step=integrator_step, progress=progress,
                                 **alone)
    return motion_result(model, resp, _name(model, robot), inputs, initial,
                         _time.perf_counter() - t0)


def motion_result(model, resp, name: str, inputs: dict, initial: str,
                  wall: float) -> "SimulationResult":
    """The result of a motion-driven run (one layout whatever the formulation, schema
    2): ``time_s``, ``actuated``, the efforts (``torque_nm``, ``force_n`` or
    ``effort_si`` by the actuators' units) and the rigid model's (``rigid_`` + key),
    ``ee_position_m`` and ``rigid_ee_position_m`` (n_t, 3), ``ee_angle_rad`` and
    ``rigid_ee_angle_rad`` for a planar pose, ``elastic`` with ``elastic_names``, then
    the engine's own quantities (:attr:`~elastodyn.model.MotionResponse.extra`)."""
    c = model.coordinates
    na = c.n_actuated
    ekey, _ = effort_key(c.units[:na])
    names, units = list(c.actuated), c.units[:na]
    q = {"time_s": resp.time, "actuated": resp.actuated, ekey: resp.efforts,
         "rigid_" + ekey: resp.rigid_efforts, "ee_position_m": resp.ee_position,
         "rigid_ee_position_m": resp.rigid_ee_position}
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(names, units)],
            ekey: [f"{n}_{ekey}" for n in names],
            "rigid_" + ekey: [f"{n}_rigid_{ekey}" for n in names],
            "ee_position_m": [f"ee_{x}_m" for x in "xyz"],
            "rigid_ee_position_m": [f"rigid_ee_{x}_m" for x in "xyz"]}
    if resp.ee_angle is not None:
        q["ee_angle_rad"], q["rigid_ee_angle_rad"] = resp.ee_angle, resp.rigid_ee_angle
    q["elastic"] = resp.elastic
    q["elastic_names"] = list(c.elastic)
    cols["elastic"] = [f"{n}_{u}" for n, u in zip(c.elastic, c.units[na:])]
    for k, v in resp.extra.items():
        q[k] = v
        if k in resp.columns:
            cols[k] = list(resp.columns[k])
    dev = np.linalg.norm(resp.ee_position - resp.rigid_ee_position, axis=1)
    summary = {"peak_" + ekey: np.abs(resp.efforts).max(axis=0).tolist(),
               "peak_rigid_" + ekey: np.abs(resp.rigid_efforts).max(axis=0).tolist(),
               "max_ee_deviation_m": float(dev.max()),
               "max_ee_deviation_xyz_m": np.abs(resp.ee_position - resp.rigid_ee_position
                                                ).max(axis=0).tolist(),
               "final_ee_deviation_m": (resp.ee_position[-1]
                                        - resp.rigid_ee_position[-1]).tolist(),
               "max_elastic": (np.abs(resp.elastic).max(axis=0).tolist()
                               if resp.elastic.size else []),
               "dof": int(c.n_elastic), **resp.summary}
    extent, notes = deformation_check(model, resp.elastic, resp.time)
    summary.update(extent)
    inputs = {**inputs, "method": resp.method, "gravity_m_s2": gravity_vector(model.robot)}
    T = float(resp.time[-1] - resp.time[0])
    title = f"{name}: motion-driven simulation, {T:.4g} s ({resp.description})"
    return SimulationResult(command="simulate", robot=name, formulation=model.formulation,
                            model=dict(model.options), inputs=inputs, quantities=q,
                            summary=summary, warnings=tuple(resp.warnings) + tuple(notes),
                            run={"wall_time_s": wall}, columns=cols, index="time_s",
                            stem="simulation", title=title)


# ====================================================================== force-driven
def output_times(duration, output_step, *, step_name: str = "--step"):
    """(T, h, times): the window T [s] (> 0), the output step h [s] (in (0, T], dividing
    it: a step that does not is refused, as a motion-driven run's, instead of ending the
    run short of the window) and the uniform output times 0, h, ..., T
    (:func:`elastodyn.timegrid.uniform_times`)."""
    times = uniform_times(0.0, duration, output_step, exact=True, step_name=step_name,
                          duration_name="--duration")
    return float(duration), float(output_step), times


def simulate_efforts(model, efforts=None, *, drive=None, initial=None, duration: float,
                     output_step: float = 1e-3, step: float | None = None,
                     method: str = "partitioning", rho_inf: float = 0.8,
                     robot: str | None = None, inputs: dict | None = None,
                     progress=None, hold: bool = False) -> SimulationResult:
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
    hold : bool
        With ``efforts``: start from rest at the static equilibrium under gravity at
        home, held there by the actuators (capability ``held_start``); ``efforts`` are
        added to the holding efforts (the rigid run alongside: from its own). Without,
        a robot that gravity loads at home starts unheld and a warning says so.

    Notes
    -----
    The end-effector's layout follows the model's pose: a planar pose (x, y, theta)
    gives ``ee_position_m`` (x, y, 0) and ``ee_angle_rad``; a spatial position (x, y,
    z) (``pose_names``, a Delta's platform centre) gives ``ee_position_m`` alone. The
    joints' positions have 2 (planar) or 3 (spatial) columns each.
    """
    require(model, "simulate_efforts", what="simulate (force-driven)")
    if hold:
        require(model, "held_start", what="simulate (force-driven, held at the start)")
        if efforts is None:
            raise InputError("--initial", "static", "zero with a drive (a driven run "
                             "starts from the scenario's elastic state)")
    if method not in model.force_methods:
        raise InputError("--method", method, " or ".join(model.force_methods))
    T, h, times = output_times(duration, output_step, step_name="--step")
    t0w = _time.perf_counter()
    if (efforts is None) == (drive is None):
        raise InputError("efforts", "efforts and drive", "exactly one of them")
    if step is not None and not (math.isfinite(step) and 0 < step
                                 and T / step <= MAX_INTEGRATOR_STEPS):
        raise InputError("--integrator-step", step, f"a step > 0 that takes at most "
                         f"{MAX_INTEGRATOR_STEPS:.0e} steps over the {T:g} s window "
                         f"(>= {T / MAX_INTEGRATOR_STEPS:.3g} s)")
    rig = model.rigid_counterpart() if model.coordinates.n_elastic else None
    rstep = step and min(step, 1e-3)
    if drive is not None:
        init = dict(initial or {})
        flex = model.run_drive(drive, times, elastic=init.get("elastic"),
                               elastic_rates=init.get("elastic_rates"), method=method,
                               step=step, rho_inf=rho_inf, progress=progress)
    else:
        held = {"hold": True} if hold else {}
        flex = model.run_efforts(efforts, times, method=method, step=step,
                                 rho_inf=rho_inf, progress=progress, **held)
    try:
        if rig is None:
            rrun = flex
        elif drive is not None:
            rrun = rig.run_drive(drive, times, method=method, step=rstep, rho_inf=rho_inf)
        else:
            rrun = rig.run_efforts(efforts, times, method=method, step=rstep,
                                   rho_inf=rho_inf, **({"hold": True} if hold else {}))
    except ModelError as exc:
        # its own step (at most 1 ms) and its own failure: said as the rigid run's
        raise ModelError(f"the rigid model's run alongside failed: {exc}") from None
    k = min(flex.t.size, rrun.t.size)
    if k < 2:
        # stopped at the start: no run to report (a singular configuration there, or
        # efforts the robot cannot be assembled under), not an empty result
        run = flex if flex.t.size < 2 else rrun
        raise ModelError(f"no force-driven run: it stopped at the start "
                         f"(t = {float(times[0]):g} s): {run.message}")
    t = flex.t[:k]
    P = np.array([model.pose_of(x) for x in flex.q[:k]])
    R = np.array([(rig or model).pose_of(x) for x in rrun.q[:k]])
    E = model.elastic_of(flex.q[:k])
    S = np.array([model.actuated_of(x) for x in flex.q[:k]])
    SR = np.array([(rig or model).actuated_of(x) for x in rrun.q[:k]])
    XY = np.array([model.joint_positions(x) for x in flex.q[:k]])
    jn = list(model.joint_names)
    MID = np.array([model.midspan_deflections(x) for x in flex.q[:k]])
    names = list(model.coordinates.actuated)
    units = model.coordinates.units[:len(names)]
    enames = list(model.coordinates.elastic)
    ekey, _ = effort_key(units)
    # one layout with the motion-driven runs (schema 2): the planar pose (x, y, theta)
    # as ee_position_m (n_t, 3; z = 0) and ee_angle_rad (n_t,); a spatial position
    # (x, y, z) as ee_position_m alone
    spatial = tuple(model.pose_names or ()) == ("x", "y", "z")
    pos, rpos = np.zeros((k, 3)), np.zeros((k, 3))
    if spatial:
        pos, rpos = P[:, :3].copy(), R[:, :3].copy()
    else:
        pos[:, :2], rpos[:, :2] = P[:, :2], R[:, :2]
    q = {"time_s": t, "actuated": S, "rigid_actuated": SR,
         "ee_position_m": pos, "rigid_ee_position_m": rpos, "elastic": E,
         "elastic_names": enames, "constraint_residual": flex.residual[:k],
         "joint_positions_m": XY.reshape(k, -1), "midspan_deflection_m": MID}
    if not spatial:
        q["ee_angle_rad"], q["rigid_ee_angle_rad"] = P[:, 2], R[:, 2]
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(names, units)],
            "rigid_actuated": [f"rigid_{n}_{u}" for n, u in zip(names, units)],
            "ee_position_m": [f"ee_{x}_m" for x in "xyz"],
            "rigid_ee_position_m": [f"rigid_ee_{x}_m" for x in "xyz"],
            "elastic": [f"{n}_{u}" for n, u in zip(enames,
                                                    model.coordinates.units[len(names):])],
            "joint_positions_m": [f"{n}_{c}_m" for n in jn for c in "xyz"[:XY.shape[-1]]],
            "midspan_deflection_m": [f"{b}_midspan_m" for b in model.beam_names]}
    if efforts is not None:
        q[ekey] = np.array([efforts(x) for x in t])
        cols[ekey] = [f"{n}_{ekey}" for n in names]
    h_int = flex.step
    extent, notes = deformation_check(model, E, t)
    if efforts is not None:
        notes += _effort_notes(efforts, h_int, T)
    warnings = [w for w in (model.stability_warning(flex.q[0]),) if w] + notes
    if efforts is not None and not hold:
        warnings += _unheld_note(model)
    for label, run in (("flexible", flex), ("rigid", rrun if rig is not None else None)):
        if run is not None and run.singular_time is not None:
            warnings.append(f"{label} model: {run.message}")
    dev = pos - rpos
    est = _forced_step_error(flex, P, np.linalg.norm(dev - dev[0], axis=1).max(),
                             3 if spatial else 2, model.pose_of)
    warnings += list(flex.notes)
    if model.n_elastic:
        warnings.append(
            f"integrator step {h_int:.3g} s: elastic modes above about "
            f"{1.0 / (10 * h_int):.4g} Hz are not resolved (numerically damped, rho_inf "
            f"{rho_inf:g}); the elastic vibration excited at the start is undamped, its "
            "phase late in the run depends on the step"
            + ("" if est else " (check with a smaller integrator step)"))
        if est and est["step_error_ratio"] > STEP_ERROR_LIMIT:
            warnings.append(
                f"the integrator step's error estimate is "
                f"{100 * est['step_error_ratio']:.3g} % of the largest change of the "
                f"end-effector deviation from its start ({est['step_error_m']:.3g} m; "
                f"Richardson against the run at twice the "
                f"step, {2 * h_int:.3g} s): give a smaller --integrator-step (the error "
                "falls as the step squared)")
    summary = {"singular_time_s": flex.singular_time,
               "rigid_singular_time_s": None if rig is None else rrun.singular_time,
               "end_time_s": float(t[-1]),
               "max_ee_deviation_m": float(np.linalg.norm(dev, axis=1).max()),
               "max_ee_deviation_xyz_m": np.abs(dev).max(axis=0).tolist(),
               "max_ee_angle_deviation_rad": (None if spatial else
                                              float(np.abs(P[:, 2] - R[:, 2]).max())),
               "final_ee_deviation_m": dev[-1].tolist(),
               "final_ee_position_m": pos[-1].tolist(),
               "final_ee_angle_rad": None if spatial else float(P[-1, 2]),
               "final_rigid_ee_position_m": rpos[-1].tolist(),
               "final_rigid_ee_angle_rad": None if spatial else float(R[-1, 2]),
               "max_elastic": np.abs(E).max(axis=0).tolist() if E.size else [],
               "dof": int(model.n_elastic),
               "max_constraint_residual": float(np.max(flex.residual[:k])),
               "final_midspan_deflection_m": MID[-1].tolist(),
               "final_joint_positions_m": {n: XY[-1, i].tolist() for i, n in enumerate(jn)},
               "integrator_step_s": h_int, **extent, **est}
    inputs = {**(inputs or {}), "duration_s": T, "output_step_s": h, "method": method,
              "step_s": h_int, "rho_inf": rho_inf}
    if hold:
        inputs["initial"] = "static"
        summary["holding_efforts"] = model.held_start()[1].tolist()
    name = _name(model, robot)
    form = " ".join(str(x) for x in (model.formulation, model.options.get("shape")) if x)
    title = (f"{name}: {'force-driven' if drive is None else 'driven'}, {form} "
             f"({model.n_elastic} elastic dof, {method})")
    return SimulationResult(command="simulate", robot=name, formulation=model.formulation,
                            model=dict(model.options), inputs=inputs, quantities=q,
                            summary=summary, warnings=tuple(warnings),
                            run={"wall_time_s": _time.perf_counter() - t0w}, columns=cols,
                            index="time_s", stem="simulation", title=title)


MAX_INTEGRATOR_STEPS = 1_000_000
"""Most integrator steps of a force-driven run (a smaller --integrator-step is refused:
1e-9 s over 0.05 s never ended)."""


def _forced_step_error(run, P, peak: float, dim: int, pose_of) -> dict:
    """The step's error estimate of a force-driven or driven run whose model ran it at
    twice the step too (the run's ``coarse``, the exact formulation's): Richardson for a
    second-order method, e = (p_h - p_2h) / 3 of the end-effector position, its largest
    norm over the run ``step_error_m`` [m] and that over the ``peak`` deviation from
    the rigid robot's, ``step_error_ratio`` (``peak``: the largest change of that deviation
    from the start, whose static deflection, held or not, has no step error); ``P``
    (n_t, 3) the run's poses, ``dim`` the position's components among them (2 planar, 3
    spatial), ``pose_of`` the model's pose of the coarse run's coordinates; {} without
    a coarse run."""
    coarse = run.coarse
    if coarse is None:
        return {}
    js, Qc = coarse
    js = js[js < len(P)]
    if len(js) < 2:
        return {}
    Pc = np.array([pose_of(q) for q in Qc[:len(js)]])
    err = float(np.linalg.norm(richardson_error(P[js, :dim], Pc[:, :dim]), axis=1).max())
    return {"step_error_m": err, "step_error_ratio": err / peak if peak > 0 else 0.0}


def _unheld_note(model) -> list:
    """A warning when gravity loads the actuators of the robot at rest at home (the
    actuated rows of its bias there, the efforts that would hold it rigid): a
    force-driven run from rest there starts unheld, and the robot moves under its own
    weight besides the efforts'."""
    if "bias" not in model.capabilities:
        return []
    st = model.state()
    try:
        c = np.asarray(model.bias(st), dtype=float)[:model.n_actuated]
    except (InputError, ModelError):
        return []
    # a bias that vanishes (no gravity, or none on the actuators) is round-off of the
    # weights' scale (>= 1e-3 N m on any robot that gravity loads): 1e-9 is below it
    if not np.all(np.isfinite(c)) or np.abs(c).max() <= 1e-9:
        return []
    how = (" (--initial static starts from the static equilibrium, held: the efforts "
           "then add to the holding ones)" if "held_start" in model.capabilities else "")
    return [f"gravity loads the actuators at home (the undeformed robot's holding efforts "
            f"{np.array2string(c, precision=4)}): the run starts unheld and the robot "
            f"moves under its own weight besides the given efforts{how}"]


def _effort_notes(efforts, step: float, duration: float) -> list:
    """Warnings on an effort law the run cannot follow: faster than 10 integrator
    steps (a sine's period, a pulse's rise or fall: aliased or skipped, the response
    then depends on the step), or with its breakpoints after the window."""
    out = []
    ts = efforts.time_scale
    if ts < 10 * step:
        out.append(f"the efforts change over {ts:.3g} s, {ts / step:.2g} integrator steps "
                   f"of {step:.3g} s: not resolved (aliased, or a pulse stepped over); "
                   "the response depends on the step: --integrator-step at most "
                   f"{ts / 20:.3g} s")
    late = [b for b in efforts.breakpoints if b > duration]
    if late:
        out.append(f"the effort law's breakpoints {', '.join(f'{b:g}' for b in late)} s lie "
                   f"after the {duration:g} s window: the run sees only its start")
    return out


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
    if "simulate_controlled" not in model.capabilities:
        raise InputError("--controller", kind, f"a formulation with a closed-loop engine "
                         f"({_closed_loop_formulations()}); {model.formulation} simulates "
                         "prescribed motions (leave --controller out)")
    if kind not in model.controllers:
        raise InputError("--controller", kind, " or ".join(model.controllers)
                         + f" for the {model.formulation} formulation")
    t0 = _time.perf_counter()
    rep = model.simulate_controlled(trajectory, controller, T, step,
                                    initial_offset=initial_offset,
                                    free_vibration=free_vibration, progress=report)
    wall = _time.perf_counter() - t0
    extent, notes = deformation_check(model, rep.quantities.get("elastic", ()),
                                      rep.quantities["time_s"])
    return SimulationResult(command="simulate", robot=name, formulation=model.formulation,
                            model=dict(model.options),
                            inputs={**inputs, **rep.inputs,
                                    "gravity_m_s2": gravity_vector(model.robot)},
                            quantities=rep.quantities, summary={**rep.summary, **extent},
                            warnings=tuple(rep.warnings) + tuple(notes),
                            run={"wall_time_s": wall},
                            columns=rep.columns, index="time_s", stem="simulation",
                            title=f"{name}: {rep.description}")


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
    keep = ("time_s", "actuated", ekey, "rigid_" + ekey, "ee_position_m")
    q = {k: v for k, v in sim.quantities.items() if k in keep}
    summary = {"peak_" + ekey: np.abs(np.asarray(q[ekey])).max(axis=0).tolist(),
               "peak_rigid_" + ekey: np.abs(np.asarray(q["rigid_" + ekey])).max(axis=0).tolist(),
               # the run's own time-step error estimate, where its model gives one
               **{k: v for k, v in sim.summary.items() if k.startswith("step_error")}}
    title = sim.title.replace("simulation", "inverse dynamics (elastic response included)")
    return TorquesResult(command="torques", robot=name, formulation=model.formulation,
                         model=dict(model.options), inputs=sim.inputs, quantities=q,
                         summary=summary, warnings=sim.warnings, run=sim.run,
                         columns={k: v for k, v in sim.columns.items() if k in q},
                         index="time_s", stem="torques", title=title)


def _rigid_torques(model, traj, duration, step, name, inputs):
    """A rigid model's efforts along a motion: its batched inverse dynamics
    (capability ``inverse_dynamics_along``), else the contract's inverse dynamics at
    every sample (the actuated motion from a joint-space trajectory, or a task-space one
    through the inverse kinematics)."""
    from ..formulations.base import actuated_motion
    require(model, "inverse_dynamics", what="torques")
    from ..trajectories import sample_times
    times = sample_times(traj, duration=duration, step=step)
    t0 = _time.perf_counter()
    if "inverse_dynamics_along" in model.capabilities:
        resp = model.inverse_dynamics_along(traj, times)
    else:
        qa, qda, qdda = actuated_motion(model, traj, times)
        tau, pose = [], []
        for k in range(len(times)):
            st = model.state(actuated=qa[k], rates=qda[k], accelerations=qdda[k])
            tau.append(model.inverse_dynamics(st).tau)
            p = np.zeros(3)
            if st.pose is not None:
                p[:min(3, len(st.pose))] = np.asarray(st.pose, float)[:3]
            pose.append(p)
        tau, pose = np.array(tau), np.array(pose)
        resp = MotionResponse(times, qa, tau, tau, pose, pose, np.zeros((len(times), 0)),
                              method="inverse dynamics", description=model.formulation)
    wall = _time.perf_counter() - t0
    c = model.coordinates
    na = c.n_actuated
    ekey, _ = effort_key(c.units[:na])
    q = {"time_s": resp.time, "actuated": resp.actuated, ekey: resp.efforts,
         "ee_position_m": resp.ee_position}
    cols = {"actuated": [f"{n}_{u}" for n, u in zip(c.actuated, c.units[:na])],
            ekey: [f"{n}_{ekey}" for n in c.actuated],
            "ee_position_m": [f"ee_{x}_m" for x in "xyz"]}
    for k, v in resp.extra.items():
        q[k] = v
        if k in resp.columns:
            cols[k] = list(resp.columns[k])
    summary = {"peak_" + ekey: np.abs(resp.efforts).max(axis=0).tolist(), **resp.summary}
    if traj.period is not None:
        summary["period_s"] = float(traj.period)
    inputs = {**inputs, "duration_s": float(times[-1] - times[0]), "step_s": step}
    title = (f"{name}: inverse dynamics, {len(times)} samples over "
             f"{times[-1] - times[0]:.4g} s ({model.formulation})")
    return TorquesResult(command="torques", robot=name, formulation=model.formulation,
                         model=dict(model.options), inputs=inputs, quantities=q,
                         summary=summary, warnings=tuple(resp.warnings),
                         run={"wall_time_s": wall}, columns=cols, index="time_s",
                         stem="torques", title=title)
