"""One robot through every formulation that can take it, side by side: natural
frequencies at a pose (actuators locked, linear structure: no gravity preload, so every
formulation linearizes about the same undeformed pose), the static deflection of its
end-effector under gravity, and a short motion-driven simulation (the same rest-to-rest
move of every actuator, compared on the elastic part of the actuator efforts).

What must agree, and why the rest differs (the ``notes`` of the result say it per pair):

* **same discretization, same structure**: NE-PVP (Briot & Khalil 2013) and the floating
  frame of reference (Rosyid & El-Khasawneh 2020) with the same cubic finite elements
  clamped at the joint, KED (Kuo 2016) and NE-PVP on a Delta with the same spatial
  elements and universal joints, assumed modes (Yu & Chen 2019) and NE-PVP with the same
  modes: the linear models are the same, the frequencies equal to eigen-solver round-off;
* **different discretizations** of the same beams (Rayleigh-Ritz: one polynomial per body,
  against finite elements; N elements against assumed modes): they differ by the
  discretization error and converge together as the mesh is refined;
* **static deflection**: each formulation's end-effector is its own point (for the 3-PRR:
  ffrf's platform joint D, NE-PVP's platform frame at E); nonlinear statics (ffrf,
  NE-PVP, assumed modes) against the linear structure; KED's pose is the rigid platform's
  (its elastic platform displacement is not an output of the contract), so it has none.
* **short simulation**: each model runs on its own engine (FFRF: constant-step
  generalized-alpha, which damps the modes above about 1 / (10 h); NE-PVP and assumed
  modes: error-controlled or compiled explicit integrators; KED: Newmark). The elastic
  efforts carry every mode, the stiff axial element modes too, so two models of the same
  discretization on different engines differ by those modes' integration (measured on
  the slider crank: ffrf and NE-PVP on the same Radau integrator agree to 8e-5, ffrf's
  default generalized-alpha step leaves 12 %); on the same engine they agree to its
  tolerance (Yu's arm by assumed modes and NE-PVP: 1e-15). A linear FFRF model that the
  loads destabilize (:meth:`~elastodyn.formulations.ffrf_contract.FFRFModel.
  tangent_stability`) is warned.
"""
from __future__ import annotations

import math
import time as _time

import numpy as np

from ..exceptions import ElastodynError, InputError
from .modes import modes
from .results import Result

__all__ = ["CompareResult", "compare", "SAME_MODEL_RTOL"]

SAME_MODEL_RTOL = 1e-6
DISAGREE = 0.25
"""Short runs whose elastic efforts differ by more than this fraction of the reference's
peak are warned: discretizations and integrators account for a few per cent in the
measured pairs (module docstring); a quarter of the peak is a model out of its range."""
"""Two variants whose frequencies agree to this are the same linear model (eigen-solver
round-off is ~1e-10; 1e-6 leaves room for closure tolerances of the pose)."""


class CompareResult(Result):
    """Frequencies and static deflections of several formulations (:func:`compare`)."""

    def figures(self) -> dict:
        from ..plot.figure import finish, new_figure, plain_log_ticks
        q = self.quantities
        F = np.asarray(q["frequencies_hz"], dtype=float)       # (count, n_variants)
        labels = q["variants"]
        sim = q.get("simulation")
        fig, axes = new_figure(3 if sim and sim["variants"] else 2, height=2.6,
                               sharex=False)
        mode = np.arange(1, F.shape[0] + 1)
        width = 0.8 / max(1, F.shape[1])
        for j, lab in enumerate(labels):
            axes[0].bar(mode + (j - (F.shape[1] - 1) / 2) * width, F[:, j], width,
                        label=lab)
        axes[0].set_ylabel("frequency [Hz]")
        axes[0].set_xticks(mode)
        axes[0].set_yscale("log")
        plain_log_ticks(axes[0].yaxis)
        axes[0].set_title(self.title, fontsize=9)
        axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        R = np.asarray(q["relative_difference"], dtype=float)
        for j, lab in enumerate(labels[1:], start=1):
            axes[1].semilogy(mode, np.maximum(np.abs(R[:, j]), 1e-16), "o-", ms=3,
                             label=f"{lab} vs {labels[0]}")
        axes[1].set_ylabel("|relative difference|")
        axes[1].set_xticks(mode)
        axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        if len(axes) == 3:
            t = np.asarray(sim["time_s"], dtype=float)
            for lab, run in sim["variants"].items():
                axes[2].plot(t * 1e3, np.asarray(run["effort_elastic"])[:, 0], lw=0.9,
                             label=lab)
            axes[2].set_ylabel("actuator 1 effort,\nflexible - rigid [N or N m]")
            axes[2].set_title("short simulation: the same move by every model", fontsize=8)
            axes[2].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
            axes[1].set_xlabel("mode")
            return {"compare": finish(fig, axes, xlabel="time [ms]", legend=False)}
        return {"compare": finish(fig, axes, xlabel="mode", legend=False)}


def _why(a: dict, b: dict, rel: float) -> str:
    """One line on the expected size of the difference between variants a and b."""
    same = rel <= SAME_MODEL_RTOL
    if a["discretization"] == b["discretization"]:
        what = ("the same linear model (same elements or modes, same joints): equal to "
                "round-off")
        return what + (f"; measured {rel:.1g}" if same else
                       f"; MEASURED {rel:.2g}: a disagreement, please report it")
    return (f"discretizations differ ({a['discretization']} vs {b['discretization']}): "
            f"the difference ({rel:.2g}) is the discretization error, it shrinks as both "
            "are refined")


def _short_run(model, state, simulation, robot):
    """A motion-driven run of ``model`` from ``state``: every actuated coordinate moved
    by ``move`` [m or rad] rest to rest (septic law, Kuo 2016 section 5.4) over the
    first half of ``duration``, held in the second half, started from the static
    deflection under gravity. Returns (time (n_t,), elastic part of the efforts (n_t,
    n_a) [N or N m], end-effector deviation from the rigid model (n_t, 3) [m],
    warnings)."""
    from ..trajectories.polynomial import RestToRest
    from .simulate import simulate_motion
    T, move, step = simulation["duration"], simulation["move"], simulation["step"]
    a0 = np.asarray(state.actuated, dtype=float)
    traj = RestToRest(a0, a0 + move, t0=0.0, tf=0.5 * T, order=7, space="joint")
    r = simulate_motion(model, traj, duration=T, step=step, initial="static", robot=robot)
    q = r.quantities
    key = next(k for k in q if "rigid_" + k in q and not k.startswith("ee_"))
    tau = np.asarray(q[key]) - np.asarray(q["rigid_" + key])
    dev = np.asarray(q["ee_position_m"]) - np.asarray(q["rigid_ee_position_m"])
    return np.asarray(q["time_s"]), tau, dev, list(r.warnings)


ADAPT_TRIES = 4
"""Moves tried (each a quarter of the last) for a default move the reference cannot run."""


def _reference_move(variant, state_of, simulation, robot, warnings):
    """(simulation, the reference's short run or its error): with ``simulation["adapt"]``
    (the move is the default, not the user's) a move that the reference cannot run (a
    Newton failure, a model error: too violent for this robot) is quartered, up to
    :data:`ADAPT_TRIES` moves, and the result says which move was used; the other
    variants then run the same move."""
    label, model, _ = variant
    simulation = dict(simulation)
    adapt = bool(simulation.pop("adapt", False))
    move0 = simulation["move"]
    for k in range(ADAPT_TRIES if adapt else 1):
        try:
            run = _short_run(model, state_of(model), simulation, robot)
        except ElastodynError as exc:
            run = exc
            if k + 1 < (ADAPT_TRIES if adapt else 1):
                simulation["move"] /= 4.0
                continue
        break
    if simulation["move"] != move0 and not isinstance(run, ElastodynError):
        warnings.append(f"the default move {move0:g} (m or rad) in "
                        f"{0.5 * simulation['duration']:g} s was too violent for "
                        f"{label} (its short run failed); every model ran "
                        f"{simulation['move']:g} (--move sets it)")
    return simulation, run


def compare(variants, state_of, *, count: int = 6, robot: str = "robot",
            static: bool = True, simulation: dict | None = None,
            inputs: dict | None = None) -> CompareResult:
    """Frequencies and static deflections of one robot by several models.

    Parameters
    ----------
    variants : list of (label, model, discretization)
        The models (each with the capability ``linearize``); ``discretization`` a short
        description of the beams' shape functions ("cubic FE x 4", "2 sine modes", ...):
        equal strings mean the same shape space. The first is the reference.
    state_of : callable model -> State
        The common pose in each model's coordinates (the same actuated values).
    count : int, >= 1
        Frequencies compared (fewer where a model has fewer elastic coordinates: NaN).
    static : bool
        Also the static deflection under gravity (the end-effector's pose at the
        equilibrium minus at the undeformed pose, where the model's pose follows the
        deflection).
    simulation : dict, optional
        A short motion-driven run by every variant: ``duration`` [s] (> 0), ``move`` [m
        or rad] of every actuated coordinate, rest to rest over the first half,
        ``step`` the output step [s] (:func:`_short_run`); ``adapt`` (the move is a
        default): a move the reference cannot run is quartered (:func:`_reference_move`,
        ``summary["simulation_move"]`` the move used). The actuators are the same in
        every model, so the runs are compared on the elastic part of the actuator
        efforts (flexible minus rigid) against the first variant's; the end-effector
        deviation from the rigid model is reported per variant (each model's own
        end-effector point).

    Returns
    -------
    CompareResult
        ``variants`` (names), ``frequencies_hz`` (count, n_v), ``relative_difference``
        (count, n_v) to the first, ``dof`` (n_v,), ``static_deflection`` {variant: (3,)
        [m, m, rad or m]} (where available), ``notes`` (one line per variant after the
        first), with ``simulation`` also ``simulation`` {time_s (n_t,), variants:
        {variant: {effort_elastic (n_t, n_a), ee_deviation_m (n_t, 3)}}}; summary: per
        variant the largest relative difference of the frequencies (and of the elastic
        efforts of the run, to the first variant's peak).
    """
    if not isinstance(count, int) or count < 1:
        raise InputError("--count", count, "an integer >= 1")
    if len(variants) < 2:
        raise InputError("ROBOT", robot, "a robot that at least two formulations (or two "
                         "discretizations) can take")
    t0 = _time.perf_counter()
    F = np.full((count, len(variants)), np.nan)
    dof, D, labels, rows, warnings = [], np.full((len(variants), 3), np.nan), [], [], []
    pose_at = []
    for j, (label, model, disc) in enumerate(variants):
        st = state_of(model)
        res = modes(model, st, count=min(count, model.n_elastic), preload=False)
        f = np.asarray(res["frequencies_hz"])
        F[:len(f), j] = f
        dof.append(int(res["dof"]))
        labels.append(label)
        rows.append({"discretization": disc})
        pose_at.append(None if st.pose is None else np.asarray(st.pose, float).tolist())
        if not static:
            continue
        if st.pose is None or "static_deflection" not in model.capabilities:
            warnings.append(f"{label}: no static deflection (the model has no "
                            "end-effector pose or no statics)")
            continue
        try:
            sd = model.static_deflection(st)
        except ElastodynError as exc:
            warnings.append(f"{label}: static deflection failed ({exc})")
            continue
        d = np.asarray(sd.pose, float) - np.asarray(st.pose, float)
        D[j, :min(3, d.size)] = d[:3]
    R = F / F[:, :1] - 1.0
    notes = []
    summary = {}
    sim = None
    if simulation is not None:
        sim = {"time_s": None, "variants": {}}
        simulation, first = _reference_move(variants[0], state_of, simulation, robot,
                                            warnings)
        summary["simulation_move"] = simulation["move"]
        for j, (label, model, _) in enumerate(variants):
            try:
                if j == 0:
                    if isinstance(first, ElastodynError):
                        raise first
                    t, tau, dev, warn = first
                else:
                    t, tau, dev, warn = _short_run(model, state_of(model), simulation, robot)
            except ElastodynError as exc:
                warnings.append(f"{label}: short simulation failed ({exc}); a gentler "
                                "move (smaller --move, longer --duration) may stay within "
                                "the model's range")
                continue
            warnings += [f"{label}: {w}" for w in warn]
            sim["time_s"] = t
            sim["variants"][label] = {"effort_elastic": tau, "ee_deviation_m": dev}
            summary[f"peak_ee_deviation_m_{label}"] = float(np.abs(dev).max())
        ref = sim["variants"].get(labels[0])
        for label in labels[1:]:
            run = sim["variants"].get(label)
            if ref is None or run is None:
                continue
            peak = float(np.abs(ref["effort_elastic"]).max())
            diff = float(np.abs(run["effort_elastic"] - ref["effort_elastic"]).max())
            rel = diff / peak if peak > 0 else math.inf
            summary[f"simulation_relative_difference_{label}"] = rel
            notes.append(f"{label} vs {labels[0]}, short simulation: the elastic part of "
                         f"the actuator efforts differs by {rel:.2g} of its peak ({peak:.3g}"
                         "); the same discretization should agree to the integrators' "
                         "accuracy (KED is linear about the rigid motion: a few per cent "
                         "where the deflections are large), another discretization by its "
                         "error")
            if rel > DISAGREE:
                warnings.append(f"{label}'s short simulation differs from {labels[0]}'s by "
                                f"{rel:.2g} of the peak elastic effort, more than the same "
                                "discretization on two engines gave in the measured pairs "
                                "(a few per cent): the move takes one of them out of its "
                                "range, or their integrators treat the stiff (axial) modes "
                                "in the efforts differently; do not take either run's "
                                "elastic efforts as the robot's without checking")
    for j in range(1, len(variants)):
        rel = float(np.nanmax(np.abs(R[:, j])))
        summary[f"max_relative_difference_{labels[j]}"] = rel
        notes.append(f"{labels[j]} vs {labels[0]}: " + _why(rows[0], rows[j], rel))
        if rows[0]["discretization"] == rows[j]["discretization"] and rel > SAME_MODEL_RTOL:
            warnings.append(f"{labels[j]} and {labels[0]} should be the same linear model "
                            f"but their frequencies differ by {rel:.2g}")
    q = {"mode": np.arange(1, count + 1), "variants": labels,
         "discretizations": [r["discretization"] for r in rows],
         "frequencies_hz": F, "relative_difference": R, "dof": dof,
         # per variant (JSON objects, not table columns)
         "static_deflection": {lab: D[j].tolist() for j, lab in enumerate(labels)
                               if np.all(np.isfinite(D[j]))},
         "pose_at": pose_at, "notes": notes}
    if sim is not None:
        q["simulation"] = sim
    summary["frequencies_hz"] = {lab: [round(float(x), 6) for x in F[:, j]
                                       if math.isfinite(x)] for j, lab in enumerate(labels)}
    cols = {"frequencies_hz": [f"{lab}_hz" for lab in labels],
            "relative_difference": [f"{lab}_rel_diff" for lab in labels]}
    title = f"{robot}: {len(variants)} models compared (actuators locked, no preload)"
    return CompareResult(command="compare", robot=robot,
                         formulation=",".join(sorted({v[1].formulation for v in variants})),
                         model={}, inputs={**(inputs or {}), "count": count}, quantities=q,
                         summary=summary, warnings=tuple(warnings),
                         run={"wall_time_s": _time.perf_counter() - t0}, columns=cols,
                         index="mode", stem="compare", title=title)
