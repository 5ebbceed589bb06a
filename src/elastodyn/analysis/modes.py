"""Natural frequencies of any model (the contract's ``linearize``): at a pose, about a
steady motion, along a path, and against the discretization.

* :func:`modes`: at a pose (actuators locked). With ``preload`` the reference is the
  deflected equilibrium under gravity and the linearization its tangent (geometric
  stiffening, gravity); without, the linear structure (the papers' tables). With
  ``speed`` (constant actuated rates, e.g. a beam spinning about its hub) the reference
  is the quasi-steady motion and the gyroscopic and centrifugal terms enter: the
  frequencies are the imaginary parts of the eigenvalues of the linearized first-order
  system, with their damping ratios.
* :func:`frequency_map`: :func:`modes` at each pose of a path.
* :func:`convergence`: :func:`modes` for 1..N elements (or assumed modes) per beam.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..exceptions import InputError, ModelError
from ..fem.modal import modal_analysis, modal_batch
from ..integrators.threads import small_problem_threads
from ..model import require
from .results import Result

__all__ = ["modes", "rest_linearization", "frequency_map", "convergence", "ModesResult",
           "MapResult", "ConvergenceResult", "eigen_frequencies"]


def eigen_frequencies(lin, count: int, *, moving: bool):
    """(omega (count,), damping ratio (count,) or None, shapes (n, count)) of a
    linearization. At rest (``moving`` False): the undamped natural frequencies of
    (M, K) (:func:`~elastodyn.fem.modal.modal_analysis`: symmetric, mechanisms at zero).
    Moving: the eigenvalues s of M s^2 + C s + K with Im s > 0, omega = |Im s|, zeta =
    -Re s / |s| (gyroscopic C couples the modes)."""
    n = lin.n
    if not 1 <= count <= n:
        raise InputError("--count", count, f"an integer in [1, {n}]")
    if not moving:
        K = 0.5 * (lin.K + lin.K.T)
        res = modal_analysis(lin.M, K, count=count)
        return res.omega_rad_s, None, res.mode_shapes
    Minv = np.linalg.inv(lin.M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ lin.K, -Minv @ lin.C]])
    lam, V = np.linalg.eig(A)      # non-symmetric (C, gyroscopic): not fem.modal's pencil
    scale = max(1e-300, np.abs(lam).max())
    if np.any(lam.real > 1e-7 * scale):
        k = int(np.argmax(lam.real))
        raise ModelError(f"the linearized motion is unstable (eigenvalue {lam[k]:.4g}): "
                         "no natural frequencies about it")
    keep = lam.imag >= -1e-12 * scale
    lam, V = lam[keep], V[:n, keep]
    order = np.argsort(np.abs(lam.imag) + 1e-300 * np.abs(lam))
    lam, V = lam[order][:count], V[:, order][:, :count]
    if len(lam) < count:
        raise ModelError(f"only {len(lam)} oscillating modes about this motion")
    om = np.abs(lam.imag)
    zeta = np.where(np.abs(lam) > 0, -lam.real / np.maximum(np.abs(lam), 1e-300), 0.0)
    return om, zeta, np.real(V * np.exp(-1j * np.angle(V[np.argmax(np.abs(V), axis=0),
                                                         np.arange(V.shape[1])])))


def _dominant(shapes, names):
    out = []
    for k in range(shapes.shape[1]):
        out.append(names[int(np.argmax(np.abs(shapes[:, k])))] if len(names) else "")
    return out


class ModesResult(Result):
    """Natural frequencies at a pose (:func:`modes`)."""

    def figures(self) -> dict:
        """The frequencies as horizontal bars (mode 1 on top), each with its value and
        the coordinate of largest amplitude in its shape, spelled out."""
        from ..plot.figure import finish, new_figure
        from ..plot.labels import readable_coordinate
        q = self.quantities
        f = np.asarray(q["frequencies_hz"], dtype=float)
        dom = list(q.get("dominant_coordinate") or [""] * len(f))
        zeta = q.get("damping_ratio")
        fig, axes = new_figure(1, height=1.2 + 0.32 * len(f))
        ax = axes[0]
        y = np.arange(1, len(f) + 1)
        ax.barh(y, f, height=0.6, color="C0")
        top = float(np.nanmax(f)) if len(f) and np.isfinite(f).any() else 1.0
        for k, (yy, v) in enumerate(zip(y, f)):
            text = f" {v:.4g} Hz"
            if zeta is not None:
                text += f", damping {np.asarray(zeta)[k]:.2g}"
            if dom[k]:
                text += f"  (largest: {readable_coordinate(dom[k])})"
            ax.text(v if np.isfinite(v) else 0.0, yy, text, va="center", ha="left",
                    fontsize=7)
        ax.set_xlim(0.0, 1.9 * top if top > 0 else 1.0)
        ax.set_yticks(y)
        ax.set_ylim(len(f) + 0.6, 0.4)
        ax.set_ylabel("mode")
        ax.set_title(self.title, fontsize=9)
        return {"modes": finish(fig, axes, xlabel="natural frequency [Hz]", legend=False)}


def _pose_inputs(state) -> dict:
    out = {"actuated": state.actuated.tolist()}
    if np.size(state.passive):
        out["passive"] = np.asarray(state.passive).tolist()
    if state.pose is not None:
        out["position_m"] = np.asarray(state.pose).tolist()
    return out


def rest_linearization(model, state, preload: bool | None = None):
    """(reference state, Linearization, preload used) of ``model`` at rest at ``state``,
    actuators locked: with the preload, about the static deflection under gravity for a
    nonlinear model (the KED model takes its own reference); without, the linear
    structure about ``state`` (:func:`modes`)."""
    use_preload = model.default_preload if preload is None else bool(preload)
    ref = state
    if use_preload and "mass_matrix" in model.capabilities:
        ref = model.static_deflection(state)
    return ref, model.linearize(ref, preload=use_preload), use_preload


def modes(model, state=None, *, count: int | None = None, preload: bool | None = None,
          speed=None, robot: str | None = None) -> ModesResult:
    """Natural frequencies of ``model`` at ``state`` (module docstring).

    Parameters
    ----------
    model : a model of the contract (capability ``linearize``)
    state : State, optional
        The pose (default: the model's home configuration).
    count : int, optional
        Number of modes (default: 8, or all the elastic coordinates when fewer).
    preload : bool, optional
        Linearize about the deflected equilibrium under gravity (True) or take the
        linear structure (False); default: the formulation's (KED: True, as Kuo;
        NE-PVP and assumed modes: False, as Briot's Table II and Yu).
    speed : array_like (n_a,), optional
        Constant actuated rates [rad/s or m/s]: modes about the steady motion.

    Returns
    -------
    ModesResult with ``omega_rad_s``, ``frequencies_hz``, ``damping_ratio`` (moving
    reference), ``mode_shapes`` (count, n) and ``coordinates`` (the free coordinates),
    ``dominant_coordinate`` per mode, ``dof``, the pose.
    """
    require(model, "linearize", what="modes")
    t0 = time.perf_counter()
    if state is None:
        state = model.state()
    moving = speed is not None
    if moving:
        require(model, "steady_motion", what="modes about a steady motion")
        rates = np.asarray(speed, dtype=float).reshape(-1)
        if rates.shape != (model.coordinates.n_actuated,):
            raise InputError("--speed", rates.tolist(),
                             f"{model.coordinates.n_actuated} actuated rate(s)")
        if not np.all(np.isfinite(rates)):
            raise InputError("--speed", rates.tolist(), "finite rates")
        ref = model.static_deflection(model.state(actuated=state.actuated, rates=rates,
                                                  elastic=state.elastic))
        lin = model.linearize(ref, preload=True)
        use_preload = True
    else:
        ref, lin, use_preload = rest_linearization(model, state, preload)
    n = lin.n
    if n == 0:
        raise InputError("--formulation", model.formulation,
                         "a model with elastic coordinates (this one is rigid)")
    count = min(n, 8) if count is None else count
    om, zeta, shapes = eigen_frequencies(lin, count, moving=moving)
    names = lin.coordinates.names
    norm = shapes / np.maximum(np.abs(shapes).max(axis=0), 1e-300)
    q = {"mode": np.arange(1, count + 1), "omega_rad_s": om,
         "frequencies_hz": om / (2 * math.pi)}
    if zeta is not None:
        q["damping_ratio"] = zeta
    q["dominant_coordinate"] = _dominant(shapes, names)
    q["mode_shapes"] = norm.T
    q["coordinates"] = list(names)
    q["dof"] = int(n)
    q["mechanism_modes"] = int(model.mechanisms)
    q["zero_frequency_modes"] = [k + 1 for k in np.flatnonzero(om == 0.0)]
    inputs = {**_pose_inputs(ref), "count": count, "preload": use_preload}
    if moving:
        inputs["speed"] = rates.tolist()
        q["reference_elastic"] = ref.elastic
    name = robot or model.robot.name
    where = (f"at {np.round(ref.pose, 6).tolist()} m" if ref.pose is not None
             else f"at actuated {np.round(ref.actuated, 6).tolist()}")
    title = (f"{name}: natural frequencies ({model.formulation}, actuators locked, "
             f"{where}" + (f", steady motion at {rates.tolist()}" if moving else "")
             + (", preload" if use_preload and not moving else "") + f"; {n} dof)")
    summary = {"frequencies_hz": (om / (2 * math.pi)).tolist()}
    notes = []
    if ref is not state:
        # linearized about a deflection (gravity, a steady motion): within the
        # small-deformation model's range?
        from .simulate import deformation_check
        extent, notes = deformation_check(model, np.asarray(ref.elastic)[None], None)
        summary.update(extent)
    return ModesResult(command="modes", robot=name, formulation=model.formulation,
                       model=dict(model.options), inputs=inputs, quantities=q, summary=summary,
                       warnings=tuple(notes), run={"wall_time_s": time.perf_counter() - t0},
                       index="mode",
                       stem="modes", title=title,
                       columns={"mode_shapes": [f"shape_{c}" for c in names]})


class MapResult(Result):
    """Natural frequencies along a path (:func:`frequency_map`)."""

    def figures(self) -> dict:
        """One axes per mode (each its own frequency range), sharing the path coordinate:
        a Delta's circle shows the 120-degree period of its three legs."""
        from ..plot.figure import finish, new_figure, z_down
        f = np.asarray(self.quantities["frequencies_hz"])
        x = np.asarray(self.quantities[self.index])
        k = f.shape[1]
        fig, axes = new_figure(k, height=1.5)
        for m in range(k):
            axes[m].plot(x, f[:, m], lw=1.2)
            axes[m].set_ylabel(f"f{m + 1} [Hz]", fontsize=8)
            axes[m].tick_params(labelsize=7)
            axes[m].ticklabel_format(axis="y", useOffset=False)
        inp = self.inputs
        if inp.get("path") == "circle":
            c = ", ".join(f"{v:g}" for v in inp.get("centre_m", []))
            down = z_down(self.inputs.get("gravity_m_s2")) and len(inp.get("centre_m", [])) == 3
            path = (f"circle of radius {inp.get('radius_m', 0):g} m about ({c}) m"
                    + (" (world frame, Z down)" if down else ""))
            if self.index == "angle_deg" and len(x) > 1 and np.ptp(x) >= 180:
                axes[-1].set_xticks(np.arange(0.0, 360.0 + 1e-9, 30.0))
                axes[-1].set_xlim(0.0, 360.0)
        elif inp.get("path") == "line":
            path = (f"straight line in the actuated coordinates from {inp.get('from')} to "
                    f"{inp.get('to')}")
        else:
            path = ""
        axes[0].set_title(self.title + (f"\n{path}" if path else ""), fontsize=9)
        label = {"angle_deg": "angle along the circle [deg] (0: +X)",
                 "path_fraction": "fraction of the path [-]"}.get(self.index, self.index)
        return {"map": finish(fig, axes, xlabel=label, legend=False)}


def frequency_map(model, states, *, coordinate=None, coordinate_name: str = "point",
                  count: int | None = None, preload: bool | None = None,
                  robot: str | None = None, progress=None, path: dict | None = None):
    """Natural frequencies at each state of a path (each pose at rest).

    Parameters
    ----------
    states : sequence of State
    coordinate : array_like (M,), optional
        The path coordinate of each state (e.g. the angle along a circle [deg]).
    coordinate_name : str
        Its key (``angle_deg``).
    progress : callable(done, total) or None
    path : dict
        The path description, echoed in the inputs.
    """
    require(model, "linearize", what="map")
    t0 = time.perf_counter()
    states = list(states)
    if not states:
        raise InputError("--points", 0, "at least one pose")
    pos = [st.pose if st.pose is not None else st.actuated for st in states]
    if "rest_matrices" in model.capabilities:
        om, dof = _batched_map(model, states, count, preload, progress)
        count = om.shape[1]
    else:
        rows = []
        for k, st in enumerate(states):
            r = modes(model, st, count=count, preload=preload, robot=robot)
            rows.append(r["omega_rad_s"])
            count = len(r["omega_rad_s"])
            if progress is not None:
                progress(k + 1, len(states))
        om, dof = np.array(rows), r["dof"]
    x = (np.arange(len(states)) if coordinate is None else np.asarray(coordinate, float))
    q = {coordinate_name: x, "position_m": np.array(pos), "omega_rad_s": om,
         "frequencies_hz": om / (2 * math.pi), "dof": dof}
    name = robot or model.robot.name
    cols = {"position_m": [f"{c}_m" for c in "xyz"][:np.array(pos).shape[1]],
            "omega_rad_s": [f"omega{m + 1}_rad_s" for m in range(count)],
            "frequencies_hz": [f"f{m + 1}_hz" for m in range(count)]}
    f = om / (2 * math.pi)
    summary = {"min_frequencies_hz": f.min(axis=0).tolist(),
               "max_frequencies_hz": f.max(axis=0).tolist()}
    from ..description.convert import gravity_vector
    inputs = {"points": len(states), "count": count,
              "preload": model.default_preload if preload is None else bool(preload),
              **(path or {}), "gravity_m_s2": gravity_vector(model.robot)}
    title = (f"{name}: lowest {count} natural frequencies at {len(states)} poses "
             f"({model.formulation}, at rest)")
    return MapResult(command="map", robot=name, formulation=model.formulation,
                     model=dict(model.options), inputs=inputs, quantities=q, summary=summary,
                     warnings=(), run={"wall_time_s": time.perf_counter() - t0}, columns=cols,
                     index=coordinate_name, stem="map", title=title)


def _batched_map(model, states, count, preload, progress, chunk: int = 64):
    """(omega (M, count), dof) at the states, in batches: the model's rest matrices of
    a chunk of poses at once and all their eigenproblems at once (``modal_batch``; the
    same frequencies as :func:`modes` to round-off)."""
    n = model.coordinates.n_elastic
    count = min(n, 8) if count is None else count
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
            not 1 <= count <= n:
        raise InputError("--count", count, f"an integer in [1, {n}]")
    om = np.empty((len(states), count))
    with small_problem_threads():
        for k0 in range(0, len(states), chunk):
            Ms, Ks = model.rest_matrices(states[k0:k0 + chunk], preload=preload)
            w, _, fails = modal_batch(Ms, Ks, count=count)
            bad = next((f for f in fails if f is not None), None)
            if bad is not None:
                raise ModelError(f"map: {bad}")
            om[k0:k0 + len(w)] = w
            if progress is not None:
                progress(min(len(states), k0 + chunk), len(states))
    return om, n


class ConvergenceResult(Result):
    """Frequencies against the discretization (:func:`convergence`)."""

    def figures(self) -> dict:
        """Relative error against the discretization, log-log, with each mode's fitted
        order (:mod:`elastodyn.plot.convergence`)."""
        from ..plot.convergence import convergence_figure
        return {"convergence": convergence_figure(
            self.quantities[self.index], self.quantities["frequencies_hz"],
            option=self.index, title=self.title)}


def convergence(build, state_of, *, max_n: int, count: int | None = None,
                preload: bool | None = None, option: str = "elements",
                robot: str | None = None, progress=None) -> ConvergenceResult:
    """Natural frequencies for a discretization n = 1..max_n.

    Parameters
    ----------
    build : callable(n) -> model
        The model with n elements (or modes) per beam.
    state_of : callable(model) -> State
        The pose, for each model.
    option : str
        The discretization option varied (``elements`` or ``modes``).
    """
    t0 = time.perf_counter()
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise InputError(f"--max-{option}", max_n, "an integer >= 1")
    rows, dofs, model = [], [], None
    for n in range(1, max_n + 1):
        model = build(n)
        r = modes(model, state_of(model), count=count, preload=preload, robot=robot)
        rows.append(r["omega_rad_s"])
        dofs.append(r["dof"])
        count = len(r["omega_rad_s"])
        if progress is not None:
            progress(n, max_n)
    om = np.array(rows)
    name = robot or model.robot.name
    q = {option: np.arange(1, max_n + 1), "dof": np.array(dofs), "omega_rad_s": om,
         "frequencies_hz": om / (2 * math.pi)}
    cols = {"omega_rad_s": [f"omega{m + 1}_rad_s" for m in range(count)],
            "frequencies_hz": [f"f{m + 1}_hz" for m in range(count)]}
    opts = {k: v for k, v in model.options.items() if k != option}
    r0 = state_of(model)
    inputs = {**_pose_inputs(r0), f"max_{option}": max_n, "count": count,
              "preload": model.default_preload if preload is None else bool(preload)}
    title = f"{name}: natural frequencies against {option} per beam ({model.formulation})"
    summary = {"frequencies_hz": (om[-1] / (2 * math.pi)).tolist()}
    return ConvergenceResult(command="convergence", robot=name, formulation=model.formulation,
                             model=opts, inputs=inputs, quantities=q, summary=summary,
                             warnings=(), run={"wall_time_s": time.perf_counter() - t0},
                             columns=cols, index=option, stem="convergence", title=title)
