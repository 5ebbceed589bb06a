"""Design sweeps (``elastodyn sweep ROBOT --set KEY=START:STOP:NUM ...``).

How do link sections, materials, payload and geometry move a robot's natural frequencies,
its static deflection and its deviation along a motion? :func:`sweep` varies description
entries (their dotted keys, as ``--set``: ``links.lower.section.width``, ``payload.mass``,
``bodies.q2.beam.section.height``) over a full grid (every combination) or a Latin
hypercube (``samples`` points spread over the box, McKay, Beckman & Conover 1979; scipy's
``qmc.LatinHypercube``, seeded, so a run is reproducible), and runs one full analysis
at each point: the description is rebuilt with the point's values (validated as a file
would be), the model built from it, and

``frequencies``
    the lowest ``count`` natural frequencies at a pose at rest (actuators locked;
    :func:`~elastodyn.analysis.modes.modes`); with ``sensitivities``, also their exact
    derivatives with respect to the swept entries;
``deflection``
    the static deflection of the end-effector under gravity at the pose and the
    end-effector stiffness (:func:`~elastodyn.analysis.workspace.end_effector_response`);
``peak-deviation``
    the largest distance between the end-effector and the rigid robot's along a motion
    (:func:`~elastodyn.analysis.simulate.simulate_motion`; KED: the platform's position
    variation).

Each point is one task of :mod:`~elastodyn.analysis.engine` (Dask or this process); a
point that fails (an invalid value, an unreachable pose for that geometry, an unstable
structure) keeps its reason and the others are kept; an interrupted run keeps its
finished points. The result's :meth:`SweepResult.dataset` has the parameters as
coordinates (dimensions of a grid; along ``sample`` for a Latin hypercube).
"""
from __future__ import annotations

import math
import re
import time
import warnings

import numpy as np

from ..exceptions import InputError, ModelError
from .engine import PointFailure, RunInterrupted, failure_of, run_tasks
from .results import DatasetResult, status_csv

__all__ = ["OUTPUTS", "SweepResult", "sweep", "sweep_point", "parse_range", "peak_deviation"]

OUTPUTS = ("frequencies", "deflection", "peak-deviation")
MAX_POINTS = 100_000

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUM})\s*:\s*({_NUM})\s*(?::\s*(\d+)\s*)?$")


def parse_range(item: str):
    """``KEY=START:STOP:NUM`` (or ``KEY=START:STOP`` for a Latin hypercube) -> (key,
    start, stop, num or None); None when the value is not a range (a fixed ``--set``)."""
    if "=" not in item:
        return None
    key, text = item.split("=", 1)
    m = _RANGE.match(text)
    if m is None:
        return None
    lo, hi = float(m.group(1)), float(m.group(2))
    num = None if m.group(3) is None else int(m.group(3))
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi:
        raise InputError("--set", item, "KEY=START:STOP:NUM with finite START != STOP")
    if num is not None and not 1 <= num <= 10_000:
        raise InputError("--set", item, "KEY=START:STOP:NUM with NUM in [1, 10000]")
    return key.strip(), lo, hi, num


def peak_deviation(result) -> float:
    """Largest distance [m] between the end-effector and the rigid robot's in a
    simulation result."""
    s = result.summary
    if "max_ee_deviation_m" in s:
        return float(s["max_ee_deviation_m"])
    q = result.quantities
    if "ee_position_m" in q and "rigid_ee_position_m" in q:
        d = np.asarray(q["ee_position_m"]) - np.asarray(q["rigid_ee_position_m"])
        return float(np.linalg.norm(d, axis=1).max())
    raise InputError("--output", "peak-deviation", "frequencies or deflection (this "
                     "simulation reports no end-effector position)")


def _state(model, pose):
    if pose is None:
        return model.state()
    if "actuated" in pose:
        return model.state(actuated=np.asarray(pose["actuated"], dtype=float))
    return model.state(pose=np.asarray(pose["pose"], dtype=float))


def sweep_point(payload: dict) -> list:
    """One point of a sweep (a task of :func:`run_tasks`): [dict of outputs] or
    [PointFailure]."""
    from ..description.files import apply_sets
    from ..formulations.registry import build_model
    from .modes import modes
    t0 = time.perf_counter()
    try:
        sets = [f"{k}={v!r}" for k, v in payload["values"]]
        spec = apply_sets(payload["spec"], sets, "sweep point")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = {}
            what = payload["output"]
            if not (what == "frequencies" and payload.get("sensitivities")):
                model = build_model(spec, payload["formulation"], **payload["options"])
            if what == "frequencies" and payload.get("sensitivities"):
                sens = _sensitivities(spec, payload)   # builds and solves the point once
                out["frequencies_hz"] = sens["frequencies_hz"]
                out["sensitivity"] = sens["d_f_d_p"]
            elif what == "frequencies":
                st = _state(model, payload["pose"])
                r = modes(model, st, count=payload["count"], preload=payload["preload"])
                out["frequencies_hz"] = np.asarray(r["frequencies_hz"], dtype=float)
            elif what == "deflection":
                from .modes import rest_linearization
                from .workspace import end_effector_response
                st = _state(model, payload["pose"])
                _, lin, _ = rest_linearization(model, st, payload["preload"])
                d, k, kmin = end_effector_response(model, st, lin)
                out.update(deflection_m=np.asarray(d, float),
                           stiffness_n_m=np.asarray(k, float), min_stiffness_n_m=float(kmin))
            else:
                from .scenario import build_trajectory
                from .simulate import simulate_motion
                traj = build_trajectory(dict(payload["trajectory"]), model)
                r = simulate_motion(model, traj, duration=payload["duration"],
                                    step=payload["step"], initial=payload["initial"],
                                    method=payload["method"], step_error=False)
                out["peak_deviation_m"] = peak_deviation(r)
        out["warnings"] = [str(w.message).splitlines()[0] for w in caught
                           if not issubclass(w.category, (DeprecationWarning,
                                                          RuntimeWarning))][:3]
        out["wall_time_s"] = time.perf_counter() - t0
        return [out]
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded for this point
        return [failure_of(exc)]


def _sensitivities(spec, payload):
    """The frequencies and d f_k / d p_j (count, n_keys) [Hz per SI unit] at the point's
    design, exact (:func:`~elastodyn.analysis.frequency_sensitivity.sensitivity_point`)."""
    from .frequency_sensitivity import sensitivity_point
    return sensitivity_point(spec, [k for k, _ in payload["values"]],
                             formulation=payload["formulation"], options=payload["options"],
                             state=payload["pose"], count=payload["count"],
                             preload=payload["preload"])


class SweepResult(DatasetResult):
    """A design sweep (:func:`sweep`); quantities are per point (rows of the CSV)."""

    def _outputs(self):
        q = self.quantities
        return [k for k in ("frequencies_hz", "deflection_m", "stiffness_n_m",
                            "min_stiffness_n_m", "peak_deviation_m", "sensitivity_hz")
                if k in q]

    def dataset(self):
        """The sweep as an xarray Dataset: a grid has one dimension per parameter (named
        by its key); a Latin hypercube has ``sample``, with the parameters as
        coordinates along it. ``status``/``reason`` say why a point has no value."""
        import xarray as xr
        q = self.quantities
        keys = list(self.inputs["parameters"])
        values = np.asarray(q["parameter_values"], dtype=float)
        if self.inputs["design"] == "grid":
            axes = [np.asarray(v, dtype=float) for v in self.inputs["grid_values"]]
            shape = tuple(len(v) for v in axes)
            dims = keys
            coords = dict(zip(keys, axes))
        else:
            shape = (len(values),)
            dims = ["sample"]
            coords = {"sample": np.arange(len(values))}
            coords.update({k: ("sample", values[:, j]) for j, k in enumerate(keys)})
        ds = xr.Dataset(coords=coords)
        extra = {"frequencies_hz": ["mode"], "deflection_m": ["axis"],
                 "stiffness_n_m": ["axis"], "sensitivity_hz": ["mode", "parameter"]}
        for key in self._outputs():
            arr = np.asarray(q[key], dtype=float)
            ds[key] = (dims + extra.get(key, []), arr.reshape(shape + arr.shape[1:]))
        if "frequencies_hz" in ds:
            ds = ds.assign_coords(mode=np.arange(1, ds.sizes["mode"] + 1))
        if "axis" in ds.dims:
            ds = ds.assign_coords(axis=list("xyz"[:ds.sizes["axis"]]))
        if "parameter" in ds.dims:
            ds = ds.assign_coords(parameter=keys)
        ds["status"] = (dims, np.asarray(q["status"], dtype=str).reshape(shape))
        ds["reason"] = (dims, np.asarray(q["reason"], dtype=str).reshape(shape))
        ds.attrs.update({"robot": self.robot, "formulation": self.formulation,
                         "output": self.inputs["output"], "design": self.inputs["design"],
                         "title": self.title})
        return ds

    def csv(self) -> str:
        q = self.quantities
        keys = list(self.inputs["parameters"])
        head, cols = list(keys), [np.asarray(q["parameter_values"], dtype=float)]
        for key in self._outputs():
            arr = np.asarray(q[key], dtype=float)
            if arr.ndim == 1:
                head.append(key)
                cols.append(arr[:, None])
            elif key == "sensitivity_hz":
                head += [f"df{m + 1}_d[{p}]_hz" for m in range(arr.shape[1]) for p in keys]
                cols.append(arr.reshape(len(arr), -1))
            else:
                names = {"frequencies_hz": [f"f{m + 1}_hz" for m in range(arr.shape[1])],
                         "deflection_m": [f"deflection_{c}_m" for c in "xyz"],
                         "stiffness_n_m": [f"stiffness_{c}_n_m" for c in "xyz"]}[key]
                head += names[:arr.shape[1]]
                cols.append(arr)
        return status_csv(head, np.hstack(cols), q["status"], q["reason"])

    def figures(self) -> dict:
        """The output against each parameter (every point; one panel per parameter)."""
        from ..plot.figure import finish, new_figure
        from ..plot.labels import key_label
        q = self.quantities
        keys = list(self.inputs["parameters"])
        vals = np.asarray(q["parameter_values"], dtype=float)
        key = {"frequencies": "frequencies_hz", "deflection": "deflection_m",
               "peak-deviation": "peak_deviation_m"}[self.inputs["output"]]
        y = np.asarray(q[key], dtype=float)
        if key == "deflection_m":
            y = np.linalg.norm(y, axis=1)
        y = y.reshape(len(y), -1)
        label = {"frequencies_hz": "f{} [Hz]", "deflection_m": "|deflection| [m]",
                 "peak_deviation_m": "peak deviation [m]"}[key]
        fig, axes = new_figure(len(keys), 1, height=2.8, sharex=False)
        grid = self.inputs["design"] == "grid"
        colours = [f"C{m % 10}" for m in range(y.shape[1])]
        for j, (ax, p) in enumerate(zip(np.ravel(axes), keys)):
            # a grid: one line per combination of the other parameters; a hypercube: dots
            others = np.delete(vals, j, axis=1)
            groups = (np.unique(others, axis=0, return_inverse=True)[1].ravel() if grid
                      else np.zeros(len(vals), dtype=int))
            for m in range(y.shape[1]):
                name = label.format(m + 1) if "{}" in label else label
                for g in np.unique(groups):
                    idx = np.flatnonzero(groups == g)
                    idx = idx[np.argsort(vals[idx, j], kind="stable")]
                    ax.plot(vals[idx, j], y[idx, m], "o-" if grid else "o", ms=3, lw=1.0,
                            color=colours[m], alpha=0.9 if g == 0 else 0.5,
                            label=name if g == groups[0] else None)
            ax.set_xlabel(key_label(p))
            ax.set_ylabel(label.format("") .replace("f [", "frequency [") if "{}" in label
                          else label)
        fig.suptitle(self.title, fontsize=9)
        return {"sweep": finish(fig, axes, legend=y.shape[1] > 1)}


def _design(params, design, samples, seed):
    keys = [p[0] for p in params]
    if design == "grid":
        if samples is not None:
            raise InputError("--lhs", samples, "only with design lhs (a Latin hypercube)")
        axes = []
        for key, lo, hi, num in params:
            if num is None:
                raise InputError("--set", f"{key}={lo:g}:{hi:g}", "KEY=START:STOP:NUM on a "
                                 "grid (NUM values from START to STOP)")
            axes.append(np.linspace(lo, hi, num))
        size = math.prod(len(a) for a in axes)
        if size > MAX_POINTS:      # before the grid is allocated
            raise InputError("--set", [f"{p[0]}={p[1]:g}:{p[2]:g}:{p[3]}" for p in params],
                             f"ranges of at most {MAX_POINTS} designs in all (these give "
                             f"{size})")
        mesh = np.meshgrid(*axes, indexing="ij")
        return keys, np.stack([m.ravel() for m in mesh], axis=1), axes
    if design != "lhs":
        raise InputError("--design", design, "grid or lhs")
    from scipy.stats import qmc
    if samples is None or isinstance(samples, bool) or not 1 <= int(samples) <= MAX_POINTS:
        raise InputError("--lhs", samples, f"a number of samples in [1, {MAX_POINTS}]")
    for key, lo, hi, num in params:
        if num is not None:
            raise InputError("--set", f"{key}={lo:g}:{hi:g}:{num}", "KEY=START:STOP with "
                             "--lhs (the samples are spread over the box)")
    u = qmc.LatinHypercube(d=len(params), seed=int(seed)).random(int(samples))
    lo = np.array([p[1] for p in params])
    hi = np.array([p[2] for p in params])
    return keys, lo + u * (hi - lo), None


def sweep(robot, parameters, *, formulation: str | None = None, options: dict | None = None,
          output: str = "frequencies", design: str = "grid", samples: int | None = None,
          seed: int = 0, pose: dict | None = None, count: int = 4,
          preload: bool | None = None, trajectory: dict | None = None,
          duration: float | None = None, step: float = 1e-3, initial: str = "static",
          method: str | None = None, sensitivities: bool = False, client=None,
          progress=None, name: str | None = None, inputs: dict | None = None) -> SweepResult:
    """A design sweep (module docstring).

    Parameters
    ----------
    robot : description spec, preset name or description file path
    parameters : sequence of (key, start, stop, num)
        Description entries (dotted keys) and their ranges [SI units]; ``num`` values on a
        grid (None with ``design="lhs"``).
    formulation, options
        The model (:func:`~elastodyn.formulations.registry.build_model`).
    output : str
        ``frequencies``, ``deflection`` or ``peak-deviation``.
    design : str
        ``grid`` (every combination) or ``lhs`` (``samples`` points, ``seed``).
    pose : dict, optional
        ``{"pose": [x, y, (z)]}`` or ``{"actuated": [...]}`` (default: the robot's home).
    count : int
        Modes (``frequencies``), 1..n_elastic.
    trajectory : dict
        ``peak-deviation``: the motion (a trajectory spec, as a scenario's), with
        ``duration``, ``step``, ``initial``, ``method`` as
        :func:`~elastodyn.analysis.simulate.simulate_motion`.
    sensitivities : bool
        ``frequencies``: also d f_k / d p_j at each point (exact,
        :mod:`~elastodyn.analysis.frequency_sensitivity`).
    client : distributed.Client or None
    progress : callable(done, total) or None

    Returns
    -------
    SweepResult; quantities per point (P points): ``parameter_values`` (P, n_p), the
    output (``frequencies_hz`` (P, count); ``deflection_m``, ``stiffness_n_m`` (P, d)
    and ``min_stiffness_n_m`` (P,); ``peak_deviation_m`` (P,)), ``sensitivity_hz``
    (P, count, n_p) [Hz per SI unit], ``status`` and ``reason`` (P,).

    Raises
    ------
    RunInterrupted
        With ``partial``: the result of the finished points.
    """
    from ..description.files import apply_sets
    from ..formulations.registry import build_model, formulation_for
    from .workspace import as_spec
    t0 = time.perf_counter()
    spec = as_spec(robot)
    if output not in OUTPUTS:
        raise InputError("--output", output, "one of " + ", ".join(OUTPUTS))
    params = [tuple(p) for p in parameters]
    if not params:
        raise InputError("--set", None, "at least one KEY=START:STOP:NUM to sweep")
    keys = [p[0] for p in params]
    if len(set(keys)) != len(keys):
        raise InputError("--set", keys, "each swept entry once")
    form = formulation_for(spec, formulation).name
    nominal = build_model(spec, form, **dict(options or {}))
    opts = dict(nominal.options)
    for key, lo, hi, _ in params:     # each key names a numeric entry: some value of
        first = None                  # its range is valid (the others fail per point)
        for v in (lo, hi, 0.5 * (lo + hi)):
            try:
                apply_sets(spec, [f"{key}={v!r}"], "sweep")
                break
            except InputError as exc:
                first = first or exc
        else:
            raise first
    keys, values, axes = _design(params, design, samples, seed)
    if output == "peak-deviation":
        if trajectory is None:
            raise InputError("--trajectory", None, "the motion along which the deviation "
                             "is measured (--output peak-deviation)")
        from .scenario import build_trajectory
        build_trajectory(dict(trajectory), nominal)      # bad motion: refused once, here
    elif trajectory is not None:
        raise InputError("--trajectory", trajectory.get("law"), "only with --output "
                         "peak-deviation")
    ee_dim = 0
    if output == "deflection":   # the end-effector's position components (nominal)
        from .workspace import end_effector_dim
        ee_dim = end_effector_dim(nominal, _state(nominal, pose))
    if sensitivities and output != "frequencies":
        raise InputError("--sensitivities", "given", "only with --output frequencies")
    if sensitivities:   # refused keys and models are refused once, here, by name
        from .frequency_sensitivity import sensitivity_point
        first = apply_sets(spec, [f"{k}={float(v)!r}" for k, v in zip(keys, values[0])],
                           "sweep")
        # a refused key or model is refused here; a failure of the first design itself
        # (a pose its geometry cannot reach) is that point's, recorded with it
        try:
            sensitivity_point(first, keys, formulation=form, options=opts, state=pose,
                              count=count, preload=preload)
        except InputError as exc:
            if exc.name in ("keys", "reference", "--formulation", "count"):
                raise
        except ModelError:
            pass
    if output == "frequencies":
        n_el = nominal.coordinates.n_elastic
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
                not 1 <= count <= n_el:
            raise InputError("--count", count, f"an integer in [1, {n_el}]")
    base = {"spec": spec, "formulation": form, "options": opts, "output": output,
            "pose": pose, "count": count, "preload": preload, "trajectory": trajectory,
            "duration": duration, "step": step, "initial": initial, "method": method,
            "sensitivities": bool(sensitivities)}
    tasks = [dict(base, values=[(k, float(v)) for k, v in zip(keys, row)])
             for row in values]
    interrupted = None
    try:
        outcomes = run_tasks(sweep_point, tasks, client=client, progress=progress)
    except RunInterrupted as exc:
        outcomes, interrupted = exc.outcomes, exc
    recs = [o[0] if o is not None else PointFailure("interrupted", "not computed (the run "
                                                    "was interrupted)") for o in outcomes]
    result = _assemble(spec, form, opts, keys, values, axes, design, seed, output, count,
                       recs, name, inputs, time.perf_counter() - t0, interrupted is not None,
                       sensitivities, ee_dim)
    if interrupted is not None:
        interrupted.partial = result
        raise interrupted
    return result


def _column(recs, key, shape=()):
    """(P,) + shape array of one output over the points (NaN where a point failed)."""
    out = np.full((len(recs),) + tuple(shape), np.nan)
    for i, r in enumerate(recs):
        if isinstance(r, dict) and key in r:
            out[i] = r[key]
    return out


def _assemble(spec, form, opts, keys, values, axes, design, seed, output, count, recs,
              name, inputs, wall, interrupted, sensitivities, ee_dim) -> SweepResult:
    q = {"point": np.arange(len(recs)), "parameter_values": values}
    if output == "frequencies":
        q["frequencies_hz"] = _column(recs, "frequencies_hz", (count,))
        if sensitivities:
            q["sensitivity_hz"] = _column(recs, "sensitivity", (count, len(keys)))
    elif output == "deflection":
        q["deflection_m"] = _column(recs, "deflection_m", (ee_dim,))
        q["stiffness_n_m"] = _column(recs, "stiffness_n_m", (ee_dim,))
        q["min_stiffness_n_m"] = _column(recs, "min_stiffness_n_m")
    else:
        q["peak_deviation_m"] = _column(recs, "peak_deviation_m")
    q["status"] = ["ok" if isinstance(r, dict) else r.kind for r in recs]
    q["reason"] = ["" if isinstance(r, dict) else r.reason for r in recs]
    ok = [r for r in recs if isinstance(r, dict)]
    counts: dict = {}
    for s in q["status"]:
        counts[s] = counts.get(s, 0) + 1
    summary = {"points": len(recs), "computed": len(ok),
               "failed": {k: v for k, v in counts.items() if k != "ok"}}
    warns = []
    key = {"frequencies": "frequencies_hz", "deflection": "min_stiffness_n_m",
           "peak-deviation": "peak_deviation_m"}[output]
    col = np.asarray(q[key], dtype=float)
    if ok:
        first = col if col.ndim == 1 else col[:, 0]
        for tag, k in (("lowest", int(np.nanargmin(first))), ("highest",
                                                              int(np.nanargmax(first)))):
            summary[f"{tag}_{key if col.ndim == 1 else 'f1_hz'}"] = {
                "value": float(first[k]), "at": dict(zip(keys, values[k].tolist()))}
        model_warns = sorted({w for r in ok for w in r.get("warnings", [])})
        warns += [f"at some points: {w}" for w in model_warns[:3]]
    else:
        warns.append("no point of the sweep could be computed (see status, reason)")
    if interrupted:
        warns.append("the run was interrupted: points not computed are marked "
                      "'interrupted'")
    inp = {**(inputs or {}), "parameters": keys, "design": design, "output": output,
           "points": len(recs)}
    if design == "grid":
        inp["grid_values"] = [a.tolist() for a in axes]
    else:
        inp["seed"] = int(seed)
    if output == "frequencies":
        inp["count"] = count
    name = name or getattr(spec, "name", None) or "robot"
    title = (f"{name}: {output} over {len(recs)} designs "
             f"({design}: {', '.join(keys)}; {form})")
    return SweepResult(command="sweep", robot=name, formulation=form, model=opts, inputs=inp,
                       quantities=q, summary=summary, warnings=tuple(warns),
                       run={"wall_time_s": wall}, index="point", stem="sweep", title=title)
