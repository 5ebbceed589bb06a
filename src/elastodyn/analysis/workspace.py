"""Natural frequencies over the whole workspace (``elastodyn map ROBOT --workspace``).

Where in its workspace is a robot softest, and which mode is it? :func:`workspace_map`
computes the lowest natural frequencies at rest (actuators locked, the linearization of
:func:`~elastodyn.analysis.modes.modes`) at every point of a grid over the reachable
workspace, and optionally the static deflection of the end-effector under gravity and its
stiffness there.

Grid
    *task* space (the end-effector position: x, y, z for a Delta's platform centre, x, y
    for a planar arm's tip) for a model with an inverse kinematics, else the *actuated*
    space (the actuators' coordinates). The box is ``bounds`` or, by default, the
    bounding box of the poses the model reaches when its actuators sweep their range
    (revolute: [-pi, pi]; prismatic: home +- the summed length of the flexible beams, the
    longest stroke over which a loop made of them can close); ``grid`` points per axis or
    a ``spacing``; ``plane`` fixes one axis (``z=0.5``).
Masks
    a point outside the workspace (``unreachable``), at or near a singularity
    (``singular``: the Delta's condition number above ``max_condition``, default the
    kinematics' warning level 1e3; a model's singularity warning or error otherwise), or
    where the model has no answer (``model``: unstable, no equilibrium) keeps NaN
    frequencies and its reason (``status``, ``reason``).
Batches
    the points are cut into fixed chunks of neighbouring points (serpentine order), each
    one task of :mod:`~elastodyn.analysis.engine` (Dask, or this process); a chunk builds
    the matrices in one batch where the model has one (the KED Delta's
    :meth:`rest_matrices`, its deflected equilibria warm-started along the chunk) and
    solves all its eigenproblems at once (:func:`~elastodyn.fem.modal.modal_batch`).
Mode tracking
    the modes are followed from point to point by the modal assurance criterion (Allemang
    & Brown 1982) in its mass-weighted form, MAC_ij = (phi_i(a)^T M(a) phi_j(b))^2 for
    mass-normalized shapes at neighbouring points a, b, and an optimal assignment
    (Hungarian algorithm, scipy's linear_sum_assignment) of the modes of b to the layers
    of a: a breadth-first walk over the grid from the point nearest its centre, two modes
    beyond the K reported kept as candidates, so a layer keeps one physical mode where two
    frequencies cross (the k-th frequency of a layer is then not the k-th smallest). The
    walk runs in this process after all points are computed: the result does not depend on
    the number of workers. ``mac`` is the MAC of each point's assignment (near 1: the
    mode is followed; about 0.5: a (near-)repeated pair whose shapes mix, which a
    symmetric robot has). A layer is labelled by the coordinate with the largest share of
    the mode's kinetic energy at the walk's start (``platform.dX`` for a Delta mode that
    moves the platform along X).

Result: :class:`WorkspaceMapResult`, a :class:`~elastodyn.analysis.results.Result` whose
:meth:`~WorkspaceMapResult.dataset` is an xarray Dataset (the grid axes and ``mode`` as
dimensions); its output set adds ``workspace.nc`` (NetCDF) and one heat-map figure per
mode with the softest point marked.
"""
from __future__ import annotations

import math
import time
import warnings
from collections import deque
from dataclasses import dataclass

import numpy as np

from ..exceptions import InputError, ModelError
from ..fem.modal import modal_batch
from ..integrators.threads import small_problem_threads
from ..model import require
from .engine import PointFailure, RunInterrupted, cached_model, failure_of, run_tasks
from .modes import rest_linearization
from .results import DatasetResult, status_csv

__all__ = ["static_end_effector_deflection", "WorkspaceGrid", "workspace_grid",
           "workspace_map", "track_modes",
           "WorkspaceMapResult", "MAX_POINTS", "CHUNK", "end_effector_response", "as_spec",
           "serpentine", "default_space", "actuator_ranges", "position_components",
           "end_effector_dim", "end_effector_compliance"]

MAX_POINTS = 200_000
"""Largest grid."""

CHUNK = 64
"""Points per task: a fixed number (never the number of workers), so that the chunks, and
the warm starts inside them, are the same on any cluster."""

SPARE_MODES = 2
"""Modes computed beyond the K reported, the candidates of the tracking at crossings."""

TASK_AXES = ("x", "y", "z")


@dataclass(frozen=True)
class WorkspaceGrid:
    """A grid over a workspace.

    Attributes
    ----------
    space : str
        ``task`` or ``actuated``.
    names : tuple of str
        All axes (x, y, z; or the actuated coordinates' names).
    units : tuple of str
        ``m`` or ``rad`` per axis.
    values : tuple of ndarray
        Grid values per axis (a single value for an axis held by ``plane``).
    """

    space: str
    names: tuple
    units: tuple
    values: tuple

    @property
    def shape(self) -> tuple:
        return tuple(len(v) for v in self.values)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def free(self) -> tuple:
        """Indices of the axes with more than one value (the map's dimensions)."""
        return tuple(k for k, v in enumerate(self.values) if len(v) > 1)

    def points(self) -> np.ndarray:
        """(P, d) coordinates of every point, C order of ``shape``."""
        mesh = np.meshgrid(*self.values, indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=1)

    def to_dict(self) -> dict:
        return {"space": self.space, "axes": list(self.names), "units": list(self.units),
                "shape": list(self.shape),
                "bounds": [[float(v[0]), float(v[-1])] for v in self.values]}


def _pose_dim(model) -> int | None:
    # the registry's per-family entry (the exact formulation's pose is 2 for an arm,
    # 3 for a Delta, unnamed for a tree robot)
    from ..formulations.registry import pose_dim_of
    return pose_dim_of(model)


def default_space(model) -> str:
    """``task`` where the model has an inverse kinematics of a known end-effector
    position, else ``actuated``."""
    ok = "inverse_kinematics" in model.capabilities and _pose_dim(model) in (2, 3)
    return "task" if ok else "actuated"


def _beam_length(model) -> float:
    """Summed length [m] of the flexible beams of a tree robot (0 for other robots)."""
    from ..description.tree import FlexibleBeam, TreeRobot
    if not isinstance(model.robot, TreeRobot):
        return 0.0
    return float(sum(b.length for b in model.robot.bodies.values()
                     if isinstance(b, FlexibleBeam)))


def actuator_ranges(model) -> list:
    """Default range [lo, hi] of each actuated coordinate (module docstring)."""
    units = model.coordinates.units[:model.coordinates.n_actuated]
    home = None
    if "m" in units:
        home = model.state().actuated
    out = []
    for k, u in enumerate(units):
        if u == "rad":
            out.append((-math.pi, math.pi))
            continue
        stroke = _beam_length(model)
        if not stroke > 0:
            raise InputError("--bounds", None, f"the range of the prismatic actuator "
                             f"{model.coordinates.names[k]} [m] (LO HI per axis): no default "
                             "for this robot")
        h = 0.0 if home is None else float(home[k])
        out.append((h - stroke, h + stroke))
    return out


def _reached_box(model, dim: int, samples: int | None = None):
    """Bounding box (dim, 2) of the valid poses over a grid of the actuator ranges
    (``samples`` per actuator: 9, or 7 for three or more actuators)."""
    rng = actuator_ranges(model)
    samples = samples or (9 if len(rng) <= 2 else 7)
    axes = [np.linspace(lo, hi, samples) for lo, hi in rng]
    qs = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    pts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for q in qs:
            try:
                st = model.state(actuated=q)
                if st.pose is None:
                    continue
                p = np.asarray(st.pose[:dim], dtype=float)
                model.state(pose=p)       # reachable by the inverse kinematics too
                pts.append(p)
            # Only what a model of the contract raises for a pose it cannot take
            # (unreachable, singular, no converged closure): any other exception is a
            # bug and propagates instead of shrinking the box.
            except (InputError, ModelError, np.linalg.LinAlgError):
                continue
    if not pts:
        raise InputError("--bounds", None, "the box of the workspace (LO HI per axis): the "
                         "default box found no valid pose of this robot")
    pts = np.array(pts)
    return np.stack([pts.min(axis=0), pts.max(axis=0)], axis=1)


def _parse_plane(plane, names):
    if plane is None:
        return None
    text = str(plane)
    if text.count("=") != 1:
        raise InputError("--plane", text, "AXIS=VALUE, e.g. z=0.5, with AXIS one of "
                         + ", ".join(names))
    axis, value = (t.strip() for t in text.split("="))
    if axis not in names:
        raise InputError("--plane", text, "AXIS=VALUE with AXIS one of " + ", ".join(names))
    try:
        v = float(value)
    except ValueError:
        raise InputError("--plane", text, "AXIS=VALUE with a number VALUE (SI units)") from None
    if not math.isfinite(v):
        raise InputError("--plane", text, "a finite VALUE")
    return names.index(axis), v


def workspace_grid(model, *, grid: int | None = None, spacing: float | None = None,
                   plane: str | None = None, bounds=None, space: str | None = None
                   ) -> WorkspaceGrid:
    """The grid of a workspace map (module docstring).

    Parameters
    ----------
    model : a model of the contract (capability ``state``)
    grid : int, optional
        Points per axis, 2..1000 (default 20 in 3-D, 40 in 2-D); not with ``spacing``.
    spacing : float, optional
        Grid spacing [m or rad, the axes' unit; all axes must share it] > 0.
    plane : str, optional
        ``AXIS=VALUE``: hold one axis at VALUE (a slice).
    bounds : sequence of (lo, hi), optional
        Box per axis [m or rad] (default: module docstring).
    space : str, optional
        ``task`` or ``actuated`` (default :func:`default_space`).
    """
    require(model, "state", what="map --workspace")
    space = default_space(model) if space is None else space
    if space not in ("task", "actuated"):
        raise InputError("--space", space, "task or actuated")
    na = model.coordinates.n_actuated
    if space == "task":
        dim = _pose_dim(model)
        if "inverse_kinematics" not in model.capabilities or dim not in (2, 3):
            raise InputError("--space", "task", f"actuated (the {model.formulation} model "
                             "of this robot has no inverse kinematics of its end-effector)")
        names, units = TASK_AXES[:dim], ("m",) * dim
    else:
        names = tuple(model.coordinates.actuated)
        units = tuple(model.coordinates.units[:na])
        dim = na
    fixed = _parse_plane(plane, names)
    if bounds is None:
        box = (_reached_box(model, dim) if space == "task"
               else np.array(actuator_ranges(model), dtype=float))
    else:
        box = np.asarray(bounds, dtype=float)
        if box.shape != (dim, 2) or not np.all(np.isfinite(box)) or np.any(box[:, 1] <= box[:, 0]):
            raise InputError("--bounds", np.asarray(bounds).tolist(), f"{dim} pairs LO HI "
                             f"(LO < HI, finite) for the axes {', '.join(names)}")
    if grid is not None and spacing is not None:
        raise InputError("--spacing", spacing, "not with --grid (one or the other)")
    if spacing is not None:   # the size of the grid, before any allocation
        if not (spacing > 0 and math.isfinite(spacing)):
            raise InputError("--spacing", spacing, "a finite spacing > 0")
        size = 1.0
        for k in range(dim):
            if fixed is None or fixed[0] != k:
                size *= math.floor((box[k, 1] - box[k, 0]) / spacing + 1e-9) + 1
        if size > MAX_POINTS:
            raise InputError("--spacing", spacing, f"a spacing giving at most {MAX_POINTS} "
                             f"points (this one gives {size:.3g})")
    values = []
    for k in range(dim):
        lo, hi = float(box[k, 0]), float(box[k, 1])
        if fixed is not None and fixed[0] == k:
            values.append(np.array([fixed[1]]))
            continue
        if spacing is not None:
            if len(set(units)) > 1:
                raise InputError("--spacing", spacing, "--grid N (the axes have different "
                                 "units: " + ", ".join(f"{n} [{u}]" for n, u in zip(names, units))
                                 + ")")
            n = int(math.floor((hi - lo) / spacing + 1e-9)) + 1
            mid = 0.5 * (lo + hi)
            values.append(mid + (np.arange(n) - 0.5 * (n - 1)) * spacing)
        else:
            n = (20 if dim - (fixed is not None) >= 3 else 40) if grid is None else grid
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= 1000:
                raise InputError("--grid", n, "an integer in [2, 1000]")
            values.append(np.linspace(lo, hi, int(n)))
    g = WorkspaceGrid(space, names, units, tuple(values))
    if g.size > MAX_POINTS:
        raise InputError("--grid" if spacing is None else "--spacing",
                         grid if spacing is None else spacing,
                         f"a grid of at most {MAX_POINTS} points (this one has {g.size})")
    return g


def serpentine(shape) -> np.ndarray:
    """Flat indices (C order) of a grid visited so that consecutive points are grid
    neighbours (boustrophedon), for warm starts along a chunk."""
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    if len(shape) == 1:
        return idx.ravel()
    out = []
    flip = False
    for sub in idx:  # first axis
        s = serpentine(sub.shape) if sub.ndim > 1 else np.arange(sub.size)
        flat = sub.ravel()[s]
        out.append(flat[::-1] if flip else flat)
        flip = not flip
    return np.concatenate(out)


# ------------------------------------------------------------------ per-point work (workers)
def _state_at(model, space, point, max_condition, cond=None):
    """State at a grid point, or the PointFailure of the point."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            st = (model.state(pose=point) if space == "task"
                  else model.state(actuated=point))
        except Exception as exc:  # noqa: BLE001 - recorded for this point
            f = failure_of(exc)
            if isinstance(exc, (InputError, ModelError)) and f.kind in ("model", "invalid"):
                f = PointFailure("unreachable", f.reason)   # no IK, no loop closure
            return None, f, math.nan
    if cond is not None:      # known (and checked) already
        return st, None, cond
    cond = math.nan
    kin = model.kinematics if "task_kinematics" in model.capabilities else None
    if kin is not None and st.pose is not None:
        cond = float(kin.condition_number(st.pose[:3], q=st.actuated))
        if cond > max_condition:
            return None, PointFailure("singular", f"near a singularity (condition number "
                                      f"{cond:.3g} > {max_condition:.3g})"), cond
    else:
        for w in caught:
            if "singular" in type(w.message).__name__.lower():
                return None, PointFailure("singular", str(w.message).splitlines()[0]), cond
    return st, None, cond


def position_components(model, st) -> list:
    """Indices of the end-effector *position* [m] in ``st.pose`` (a pose may carry an
    orientation: the FFRF's (x, y, theta)); a spatial position (x, y, z) of a planar
    mechanism in the x-z plane keeps all three (its y deflection is then zero)."""
    names = model.pose_names
    if names:
        return [k for k, n in enumerate(names) if n in TASK_AXES]
    dim = _pose_dim(model)
    return list(range(dim if dim is not None else min(3, len(st.pose))))


def end_effector_dim(model, st) -> int:
    """Number of end-effector position components :func:`end_effector_response` gives."""
    if all(f"platform.d{c}" in model.coordinates.elastic for c in "XYZ"):
        return 3
    return len(position_components(model, st))


def end_effector_response(model, st, lin):
    """(static deflection of the end-effector (d,) [m], its stiffness per axis (d,) [N/m],
    smallest stiffness [N/m]) at rest at ``st``: the deflection under gravity, and the
    compliance C = G K^-1 G^T of the end-effector position (G: its derivative with
    respect to the elastic coordinates, actuators locked)."""
    return end_effector_compliance(model, st, lin.K, lin.coordinates.names)


_PLATFORM = tuple(f"platform.d{c}" for c in "XYZ")


def _ee_deflection(model, st, names, inertial=False):
    """(G or None, deflection (d,) [m], deflected state): KED, whose platform
    displacements are coordinates (G selects them); otherwise the deflected pose minus
    the rigid one (G None)."""
    ref = model.static_deflection(st, inertial=True) if inertial else \
        model.static_deflection(st)
    if all(p in names for p in _PLATFORM):
        G = np.zeros((3, len(names)))
        for k, p in enumerate(_PLATFORM):
            G[k, names.index(p)] = 1.0
        return G, G @ ref.elastic, ref
    pos = position_components(model, st)
    return None, np.asarray(ref.pose)[pos] - np.asarray(st.pose)[pos], ref


def static_end_effector_deflection(model, st, *, inertial: bool = False) -> np.ndarray:
    """The end-effector's position change (d,) [m] under gravity at the pose of ``st``
    with the actuators locked (``inertial``: and the loads of its rates and
    accelerations, the quasi-static deflection along a motion): KED, the platform
    displacement; the nonlinear models, the deflected pose minus the rigid one
    (``model.static_deflection``)."""
    return _ee_deflection(model, st, model.coordinates.elastic, inertial)[1]


def end_effector_compliance(model, st, K, names):
    """:func:`end_effector_response` from the stiffness K (n_e, n_e) of the linearization
    at rest and the names of its coordinates."""
    K = np.asarray(K, dtype=float)
    G, defl, ref = _ee_deflection(model, st, names)
    if G is None:
        pos = position_components(model, st)
        na, ne = model.coordinates.n_actuated, model.coordinates.n_elastic
        G = np.zeros((len(pos), ne))
        h = 1e-7  # central differences: truncation O(h^2 |d3 pose|), round-off eps/h
        for j in range(ne):
            e = ref.q[na:].copy()
            e[j] += h
            up = np.asarray(model.state(actuated=st.actuated, elastic=e).pose)[pos]
            e[j] -= 2 * h
            dn = np.asarray(model.state(actuated=st.actuated, elastic=e).pose)[pos]
            G[:, j] = (up - dn) / (2 * h)
    C = G @ np.linalg.solve(K, G.T)
    C = 0.5 * (C + C.T)
    lam = np.linalg.eigvalsh(C)    # principal compliances (standard, not an M, K pencil)
    d = np.diag(C)
    # a direction the elastic coordinates cannot move (a planar model's out-of-plane
    # axis) has zero compliance: infinite stiffness
    stiff = np.divide(1.0, d, out=np.full_like(d, np.inf), where=d > 0)
    return defl, stiff, (1.0 / lam[-1] if lam[-1] > 0 else math.inf)


def map_chunk(payload: dict) -> list:
    """The outcomes of one chunk of grid points (a task of :func:`run_tasks`): per point
    a PointFailure or a dict with omega (Kc,), shapes and mass-weighted shapes (n, Kc)
    (float32), the condition number, and with ``deflection`` the end-effector response."""
    model = cached_model(payload["spec"], payload["formulation"], payload["options"])
    space, pts = payload["space"], payload["points"]
    preload, kc = payload["preload"], payload["count"]
    with small_problem_threads():       # small dense problems: one BLAS thread each
        return _map_points(model, payload, space, pts, preload, kc)


def _prefilter(model, space, pts, max_condition):
    """Failures of the points a vectorized kinematics rules out at once (a Delta's
    reachability and condition number), before any state is built."""
    if space != "task" or "task_kinematics" not in model.capabilities:
        return {}, {}
    kin = model.kinematics
    P = np.asarray(pts, dtype=float)
    margin = np.atleast_2d(kin.reachability_margin(P))
    out = {}
    for k in np.flatnonzero((margin.min(axis=1) < -1e-12) | (P[:, 2] <= 0.0)):
        if P[k, 2] <= 0.0:
            out[int(k)] = PointFailure("unreachable", "above the base plane (Z points down)")
        else:
            leg = int(np.argmin(margin[k]))
            out[int(k)] = PointFailure("unreachable", f"outside the workspace: leg {leg + 1} "
                                       f"misses it by {-margin[k, leg]:.4g} m")
    rest = np.array([k for k in range(len(P)) if k not in out], dtype=int)
    conds = {}
    if rest.size:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cond = np.atleast_1d(kin.condition_number(P[rest]))
        for k, c in zip(rest, cond):
            conds[int(k)] = float(c)
            if not c <= max_condition:
                out[int(k)] = PointFailure("singular", f"near a singularity (condition "
                                           f"number {c:.3g} > {max_condition:.3g})")
    return out, conds


def _map_points(model, payload, space, pts, preload, kc) -> list:
    out: list = [None] * len(pts)
    states, where, conds = [], [], {}
    early, known = _prefilter(model, space, pts, payload["max_condition"])
    for k, p in enumerate(pts):
        if k in early:
            out[k], conds[k] = early[k], known.get(k, math.nan)
            continue
        st, fail, cond = _state_at(model, space, p, payload["max_condition"], known.get(k))
        conds[k] = cond
        if fail is not None:
            out[k] = fail
        else:
            states.append(st)
            where.append(k)
    if not states:
        return out
    if "rest_matrices" in model.capabilities:
        try:
            Ms, Ks = model.rest_matrices(states, preload=preload)
        except (ModelError, np.linalg.LinAlgError):
            Ms = Ks = None       # a point of the batch has no answer: one by one
    else:
        Ms = Ks = None
    if Ms is None:
        Ms, Ks, keep = [], [], []
        for st, k in zip(states, where):
            try:
                _, lin, _ = rest_linearization(model, st, preload)
                Ms.append(lin.M)
                Ks.append(lin.K)
                keep.append((st, k))
            except Exception as exc:  # noqa: BLE001 - recorded for this point
                out[k] = failure_of(exc)
        if not keep:
            return out
        states, where = [s for s, _ in keep], [k for _, k in keep]
        Ms, Ks = np.array(Ms), np.array(Ks)
    n = Ms.shape[1]
    omega, shapes, fails = modal_batch(Ms, Ks, count=min(kc, n))
    mshapes = Ms @ shapes
    for j, (st, k) in enumerate(zip(states, where)):
        if fails[j] is not None:
            out[k] = PointFailure("model", fails[j])
            continue
        rec = {"omega": omega[j], "shapes": shapes[j].astype(np.float32),
               "mshapes": mshapes[j].astype(np.float32), "condition": conds[k],
               "actuated": np.asarray(st.actuated, dtype=float)}
        if payload["deflection"]:
            try:
                rec["deflection"], rec["stiffness"], rec["min_stiffness"] = \
                    end_effector_compliance(model, st, Ks[j], model.coordinates.elastic)
            except Exception as exc:  # noqa: BLE001 - recorded for this point
                out[k] = failure_of(exc)
                continue
        out[k] = rec
    return out


# ------------------------------------------------------------------ mode tracking
def _neighbours(flat: int, shape) -> list:
    idx = np.unravel_index(flat, shape)
    out = []
    for ax in range(len(shape)):
        for d in (-1, 1):
            j = idx[ax] + d
            if 0 <= j < shape[ax]:
                nb = list(idx)
                nb[ax] = j
                out.append(int(np.ravel_multi_index(nb, shape)))
    return out


def track_modes(shapes, mshapes, valid, shape, count: int):
    """Follow ``count`` modes over a grid by the mass-weighted MAC (module docstring).

    Parameters
    ----------
    shapes, mshapes : ndarray (P, n, Kc)
        Mass-normalized mode shapes phi and M phi at the P grid points (C order of
        ``shape``), Kc >= count candidates per point (ascending frequency).
    valid : ndarray of bool (P,)
    shape : tuple
        Grid shape (neighbours: +-1 along each axis).

    Returns
    -------
    layer : ndarray of int (P, count)
        Index of the computed mode that is layer k at each point (-1 where invalid).
    mac : ndarray (P, count)
        MAC of the assignment with the neighbour the point was reached from (1 at a
        walk's start; NaN where invalid).
    seeds : list of int
        The starting point of each connected part of the valid grid.
    """
    from scipy.optimize import linear_sum_assignment
    P = len(valid)
    layer = np.full((P, count), -1, dtype=int)
    mac = np.full((P, count), np.nan)
    seen = np.zeros(P, dtype=bool)
    seeds = []
    centre = np.array(shape, dtype=float) / 2 - 0.5
    coords = np.stack(np.unravel_index(np.arange(P), shape), axis=1).astype(float)
    order = np.lexsort((np.arange(P), np.sum((coords - centre) ** 2, axis=1)))
    for s in order:
        if not valid[s] or seen[s]:
            continue
        seeds.append(int(s))
        layer[s] = np.arange(count)
        mac[s] = 1.0
        seen[s] = True
        queue = deque([int(s)])
        while queue:
            a = queue.popleft()
            A = mshapes[a][:, layer[a]].astype(float)           # M(a) phi_k(a), layers
            for b in _neighbours(a, shape):
                if seen[b] or not valid[b]:
                    continue
                Bm = shapes[b].astype(float)
                m = (A.T @ Bm) ** 2                              # (count, Kc)
                rows, cols = linear_sum_assignment(-m)
                layer[b, rows] = cols
                mac[b, rows] = m[rows, cols]
                seen[b] = True
                queue.append(b)
    return layer, mac, seeds


def _labels(phi, mphi, names) -> tuple[list, list]:
    """Coordinate with the largest kinetic-energy share of each mode, and the share."""
    e = phi * mphi                    # (n, count): phi_i (M phi)_i sums to 1 per mode
    k = np.argmax(np.abs(e), axis=0)
    share = np.abs(e[k, np.arange(e.shape[1])]) / np.maximum(np.abs(e).sum(axis=0), 1e-300)
    return [names[i] for i in k], share.tolist()


# ------------------------------------------------------------------ the analysis
class WorkspaceMapResult(DatasetResult):
    """Natural frequencies over a workspace grid (:func:`workspace_map`); quantities are
    per point (rows of the CSV table, C order of the grid)."""

    def dataset(self):
        """The map as an xarray Dataset: dimensions the free grid axes and ``mode``
        (and ``axis`` for the end-effector vectors); a held axis is a scalar
        coordinate; ``status``/``reason`` say why a point is masked."""
        import xarray as xr
        g = self.quantities
        grid = self.inputs["grid"]
        names, shape = grid["axes"], tuple(grid["shape"])
        axes = [np.asarray(v) for v in g["axis_values"]]
        free = [k for k, n in enumerate(shape) if n > 1]
        dims = [names[k] for k in free]
        fshape = tuple(shape[k] for k in free)
        count = len(g["mode_labels"])
        coords = {names[k]: (names[k] if k in free else (), axes[k] if k in free
                             else float(axes[k][0])) for k in range(len(names))}
        coords["mode"] = np.arange(1, count + 1)
        coords["mode_label"] = ("mode", np.asarray(g["mode_labels"], dtype=str))
        units = dict(zip(names, grid["units"]))

        def grid_of(arr, *extra):
            return np.asarray(arr, dtype=float).reshape(fshape + tuple(extra))

        ds = xr.Dataset(coords=coords)
        for k in range(len(names)):
            ds[names[k]].attrs["units"] = units[names[k]]
        ds["frequency_hz"] = (dims + ["mode"], grid_of(g["frequencies_hz"], count),
                              {"units": "Hz", "long_name": "natural frequency (tracked "
                               "mode)"})
        ds["mac"] = (dims + ["mode"], grid_of(g["mac"], count),
                     {"long_name": "modal assurance criterion of the tracking step"})
        ds["condition_number"] = (dims, grid_of(g["condition_number"]))
        ds["status"] = (dims, np.asarray(g["status"], dtype=str).reshape(fshape))
        ds["reason"] = (dims, np.asarray(g["reason"], dtype=str).reshape(fshape))
        act = np.asarray(g["actuated"], dtype=float)
        ds["actuated"] = (dims + ["actuator"], act.reshape(fshape + (act.shape[1],)))
        ds = ds.assign_coords(actuator=np.asarray(g["actuator_names"], dtype=str))
        if "deflection_m" in g:
            d = np.asarray(g["deflection_m"], dtype=float)
            ds = ds.assign_coords(axis=list(TASK_AXES[:d.shape[1]]))
            ds["deflection_m"] = (dims + ["axis"], d.reshape(fshape + (d.shape[1],)),
                                  {"units": "m", "long_name": "static deflection of the "
                                   "end-effector under gravity"})
            ds["stiffness_n_m"] = (dims + ["axis"], grid_of(g["stiffness_n_m"], d.shape[1]),
                                   {"units": "N/m"})
            ds["min_stiffness_n_m"] = (dims, grid_of(g["min_stiffness_n_m"]),
                                       {"units": "N/m"})
        ds.attrs.update({"robot": self.robot, "formulation": self.formulation,
                         "space": grid["space"], "title": self.title,
                         "preload": int(bool(self.inputs.get("preload")))})
        return ds

    def csv(self) -> str:
        g = self.quantities
        names = self.inputs["grid"]["axes"]
        count = len(g["mode_labels"])
        pts = np.asarray(g["point"], dtype=float)
        f = np.asarray(g["frequencies_hz"], dtype=float)
        mac = np.asarray(g["mac"], dtype=float)
        head = list(names) + [f"f{k + 1}_hz" for k in range(count)] + [
            f"mac{k + 1}" for k in range(count)] + ["condition_number"]
        extra = []
        if "deflection_m" in g:
            d = np.asarray(g["deflection_m"], dtype=float)
            s = np.asarray(g["stiffness_n_m"], dtype=float)
            ax = TASK_AXES[:d.shape[1]]
            head += [f"deflection_{a}_m" for a in ax] + [f"stiffness_{a}_n_m" for a in ax] + [
                "min_stiffness_n_m"]
            extra = [d, s, np.asarray(g["min_stiffness_n_m"], dtype=float)[:, None]]
        num = np.hstack([pts, f, mac, np.asarray(g["condition_number"], float)[:, None]]
                        + extra)
        return status_csv(head, num, g["status"], g["reason"])

    def figures(self) -> dict:
        from ..plot.figure import new_figure
        from ..plot.labels import readable_coordinate
        ds = self.dataset()
        free = [d for d in ds["frequency_hz"].dims if d != "mode"]
        figs = {}

        def name(axis):     # the world frame of a Delta: Z points down (Kuo 2016)
            unit = ds[axis].attrs.get("units", "")
            return f"{axis} [{unit}]" + (" (down)" if axis == "z" else "")
        for m, label in enumerate(ds["mode_label"].values):
            f = ds["frequency_hz"].isel(mode=m)
            if len(free) == 1:
                fig, axes = new_figure(1, height=3.0)
                axes[0].plot(ds[free[0]].values, f.values, lw=1.2)
                axes[0].set_xlabel(name(free[0]))
                axes[0].set_ylabel(f"f{m + 1} [Hz]")
                axes[0].grid(alpha=0.3)
                axes[0].set_title(f"{self.robot}: mode {m + 1}, largest share: "
                                  f"{readable_coordinate(label)}", fontsize=9)
                figs[f"workspace_mode{m + 1}"] = fig
                continue
            if len(free) == 2:
                slices = [(None, f)]
            else:
                third = free[2]
                vals = ds[third].values
                levels = [i for i in range(len(vals))
                          if np.isfinite(f.isel({third: i}).values).any()] or [0]
                pick = {levels[int(round(j))] for j in
                        np.linspace(0, len(levels) - 1, min(4, len(levels)))}
                if np.isfinite(f.values).any():   # the softest point's level is shown
                    soft = int(np.unravel_index(np.nanargmin(f.values), f.shape)[2])
                    if soft not in pick:
                        pick.discard(min(pick, key=lambda i: abs(i - soft)))
                        pick.add(soft)
                slices = [(float(vals[i]), f.isel({third: i})) for i in sorted(pick)]
            fig, axes = new_figure(1, len(slices), width=4.5, height=3.4, sharex=False)
            axes = np.ravel(axes)
            finite = f.values[np.isfinite(f.values)]
            lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
            imin = (np.unravel_index(np.nanargmin(f.values), f.shape) if finite.size
                    else None)
            for ax, (val, sl) in zip(axes, slices):
                x, y = ds[free[0]].values, ds[free[1]].values
                im = ax.pcolormesh(x, y, sl.values.T, shading="nearest", vmin=lo, vmax=hi,
                                   cmap="viridis")
                ax.set_xlabel(name(free[0]))
                if ax is axes[0]:   # the slices share the grid: one y label, one scale
                    ax.set_ylabel(name(free[1]))
                else:
                    ax.tick_params(labelleft=False)
                ax.set_aspect("equal" if ds[free[0]].attrs.get("units") ==
                              ds[free[1]].attrs.get("units") else "auto")
                if val is not None:
                    ax.set_title(f"{free[2]} = {val:.4g}"
                                 + (" (down)" if free[2] == "z" else ""), fontsize=8)
                if imin is not None and (val is None or
                                         np.isclose(ds[free[2]].values[imin[2]], val)):
                    ax.plot(x[imin[0]], y[imin[1]], "rx", ms=9, mew=2,
                            label=f"softest: {lo:.4g} Hz")
                    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.18), fontsize=7,
                              frameon=False)
            fig.colorbar(im, ax=list(axes), label=f"f{m + 1} [Hz]", shrink=0.85)
            fig.suptitle(f"{self.robot}: mode {m + 1}, largest share: "
                         f"{readable_coordinate(label)}"
                         + (" (world frame, Z points down)" if "z" in free else ""),
                         fontsize=9)
            figs[f"workspace_mode{m + 1}"] = fig
        return figs


def as_spec(robot):
    """A description spec from a spec, a preset name or a description file path."""
    from ..description.files import load_description
    if hasattr(robot, "model_dump"):
        return robot
    return load_description(robot)


def workspace_map(robot, formulation: str | None = None, *, options: dict | None = None,
                  grid: int | None = None, spacing: float | None = None,
                  plane: str | None = None, bounds=None, space: str | None = None,
                  count: int | None = None, preload: bool | None = None,
                  deflection: bool = False, max_condition: float | None = None,
                  client=None, progress=None, name: str | None = None,
                  inputs: dict | None = None, model=None) -> WorkspaceMapResult:
    """The lowest natural frequencies over a workspace (module docstring).

    Parameters
    ----------
    robot : description spec, preset name or description file path
    formulation : str, optional
        Registry name (default: the robot's).
    options : dict, optional
        Model options (``elements``, ``reference``, ...), as :func:`build_model`.
    grid, spacing, plane, bounds, space
        The grid (:func:`workspace_grid`).
    count : int, optional
        Modes reported per point (default 4).
    preload : bool, optional
        As :func:`~elastodyn.analysis.modes.modes` (default: the formulation's).
    deflection : bool
        Also the end-effector's static deflection under gravity and its stiffness.
    max_condition : float, optional
        Mask points whose kinematic condition number exceeds it (Delta; default: the
        kinematics' warning level).
    client : distributed.Client or None
        Where the chunks run (None: this process).
    progress : callable(done, total) or None
    model : optional
        The model of ``robot`` already built (by ``formulation`` with ``options``), used
        in this process; the workers build their own from ``robot`` and its options.

    Returns
    -------
    WorkspaceMapResult. Quantities (P points, C order of the grid, K = count):
    ``point`` (P, d), ``frequencies_hz`` and ``omega_rad_s`` (P, K) tracked layers (NaN
    where masked), ``mac`` (P, K), ``condition_number`` (P,), ``actuated`` (P, n_a),
    ``status`` and ``reason`` (P,) strings, ``mode_labels``, ``label_share``,
    ``axis_values``; with ``deflection``: ``deflection_m``, ``stiffness_n_m`` (P, d),
    ``min_stiffness_n_m`` (P,).

    Raises
    ------
    RunInterrupted
        With ``partial``: the result of the points finished before the interruption.
    """
    from ..formulations.registry import formulation_for
    t0 = time.perf_counter()
    spec = as_spec(robot)
    if model is not None:
        form, opts = model.formulation, dict(model.options)
        cached_model(spec, form, opts, model)
    else:
        form = formulation_for(spec, formulation).name
        model = cached_model(spec, form, dict(options or {}))
        opts = dict(model.options)
        cached_model(spec, form, opts, model)
    require(model, "state", "linearize", what="map --workspace")
    if model.coordinates.n_elastic == 0:
        raise InputError("--formulation", form, "a model with elastic coordinates (this one "
                         "is rigid)")
    g = workspace_grid(model, grid=grid, spacing=spacing, plane=plane, bounds=bounds,
                       space=space)
    count = 4 if count is None else count
    n_el = model.coordinates.n_elastic
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= n_el:
        raise InputError("--count", count, f"an integer in [1, {n_el}]")
    kc = min(count + SPARE_MODES, n_el)
    if deflection and g.space == "actuated" and _pose_dim(model) is None and not any(
            c.startswith("platform.") for c in model.coordinates.elastic):
        raise InputError("--deflection", "given", "a robot whose end-effector position the "
                         f"{form} model gives (this one has none)")
    if deflection:
        require(model, "static_deflection", what="map --workspace --deflection")
    if max_condition is None:
        max_condition = (float(model.kinematics.warn_condition)
                         if "task_kinematics" in model.capabilities else math.inf)
    elif not (max_condition >= 1 and math.isfinite(max_condition)):
        raise InputError("--max-condition", max_condition, "a finite number >= 1")
    pts = g.points()
    order = serpentine(g.shape)
    use_preload = model.default_preload if preload is None else bool(preload)
    base = {"spec": spec, "formulation": form, "options": opts, "space": g.space,
            "preload": use_preload, "count": kc, "deflection": bool(deflection),
            "max_condition": max_condition}
    tasks = [dict(base, points=pts[order[k:k + CHUNK]], index=order[k:k + CHUNK])
             for k in range(0, len(order), CHUNK)]
    interrupted = None
    try:
        outcomes = run_tasks(map_chunk, tasks, client=client, progress=progress,
                             points_of=lambda t: len(t["points"]))
    except RunInterrupted as exc:
        outcomes, interrupted = exc.outcomes, exc
    recs: list = [PointFailure("interrupted", "not computed (the run was interrupted)")] * len(pts)
    for t, o in zip(tasks, outcomes):
        if o is None:
            continue
        for i, r in zip(t["index"], o):
            recs[i] = r
    result = _assemble(model, spec, form, opts, g, recs, count, kc, use_preload, deflection,
                       max_condition, name, inputs, time.perf_counter() - t0,
                       interrupted is not None)
    if interrupted is not None:
        interrupted.partial = result
        raise interrupted
    return result


def _assemble(model, spec, form, opts, g, recs, count, kc, use_preload, deflection,
              max_condition, name, inputs, wall, interrupted) -> WorkspaceMapResult:
    P = len(recs)
    valid = np.array([isinstance(r, dict) for r in recs])
    n = model.coordinates.n_elastic
    na = model.coordinates.n_actuated
    om_all = np.full((P, kc), np.nan)
    shapes = np.zeros((P, n, kc), dtype=np.float32)
    mshapes = np.zeros((P, n, kc), dtype=np.float32)
    act = np.full((P, na), np.nan)
    cond = np.full(P, np.nan)
    for i, r in enumerate(recs):
        if isinstance(r, dict):
            om_all[i] = r["omega"]
            shapes[i], mshapes[i] = r["shapes"], r["mshapes"]
            act[i], cond[i] = r["actuated"], r["condition"]
    layer, mac, seeds = track_modes(shapes, mshapes, valid, g.shape, count)
    om = np.full((P, count), np.nan)
    rows = np.flatnonzero(valid)
    om[rows] = np.take_along_axis(om_all[rows], layer[rows], axis=1)
    names = model.coordinates.elastic
    if seeds:
        s = seeds[0]
        labels, share = _labels(shapes[s][:, :count].astype(float),
                                mshapes[s][:, :count].astype(float), names)
    else:
        labels, share = [""] * count, [math.nan] * count
    status = ["ok" if isinstance(r, dict) else r.kind for r in recs]
    reason = ["" if isinstance(r, dict) else r.reason for r in recs]
    f = om / (2 * math.pi)
    pts = g.points()
    q = {"point": pts, "omega_rad_s": om, "frequencies_hz": f, "mac": mac,
         "condition_number": cond, "actuated": act, "status": status, "reason": reason,
         "mode_labels": labels, "label_share": share,
         "axis_values": [v.tolist() for v in g.values],
         "actuator_names": list(model.coordinates.actuated), "dof": int(n)}
    if deflection:
        d = len(next((r["deflection"] for r in recs if isinstance(r, dict)), np.zeros(3)))
        D, S, Smin = np.full((P, d), np.nan), np.full((P, d), np.nan), np.full(P, np.nan)
        for i, r in enumerate(recs):
            if isinstance(r, dict):
                D[i], S[i], Smin[i] = r["deflection"], r["stiffness"], r["min_stiffness"]
        q.update(deflection_m=D, stiffness_n_m=S, min_stiffness_n_m=Smin)
    counts = {}
    for st in status:
        counts[st] = counts.get(st, 0) + 1
    summary = {"points": P, "computed": int(valid.sum()),
               "masked": {k: v for k, v in counts.items() if k != "ok"}}
    warns = []
    if valid.any():
        for m in range(count):
            col = f[:, m]
            k = int(np.nanargmin(col))
            summary[f"softest_mode{m + 1}"] = {
                "frequency_hz": float(col[k]), "at": pts[k].tolist(),
                "label": labels[m], "max_frequency_hz": float(np.nanmax(col))}
        low = np.nanmin(mac[rows], axis=0) if rows.size else []
        weak = [m + 1 for m, v in enumerate(low) if v < 0.5]
        if weak:
            warns.append(f"modes {weak} are not followed unambiguously everywhere (MAC < "
                         "0.5 at some step: (near-)repeated frequencies whose shapes mix, "
                         "or a mesh too coarse to follow them); see the mac variable")
    else:
        warns.append("no point of the grid could be computed (see status, reason)")
    if len(seeds) > 1:
        warns.append(f"the valid points form {len(seeds)} separate regions; modes are "
                     "tracked within each region, their layers may not correspond")
    if interrupted:
        warns.append("the run was interrupted: points not computed are marked "
                     "'interrupted'")
    inp = {**(inputs or {}), "grid": g.to_dict(), "count": count, "preload": use_preload,
           "max_condition": max_condition, "deflection": bool(deflection),
           "chunk_points": CHUNK}
    name = name or getattr(spec, "name", None) or "robot"
    title = (f"{name}: lowest {count} natural frequencies over the {g.space} space "
             f"({'x'.join(map(str, g.shape))} grid, {form}, at rest)")
    return WorkspaceMapResult(command="map", robot=name, formulation=form, model=opts,
                              inputs=inp, quantities=q, summary=summary, warnings=tuple(warns),
                              run={"wall_time_s": wall}, index="point", stem="workspace",
                              title=title)
