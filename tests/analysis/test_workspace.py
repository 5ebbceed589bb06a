"""Whole-workspace frequency maps (analysis.workspace, map --workspace) and the batched
eigen-solver they use (fem.modal.modal_batch)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from elastodyn.analysis.modes import modes
from elastodyn.analysis.workspace import (serpentine, track_modes, workspace_grid,
                                          workspace_map)
from elastodyn.description.files import load_description
from elastodyn.exceptions import InputError
from elastodyn.fem.modal import modal_analysis, modal_batch
from elastodyn.formulations.registry import build_model
from elastodyn.model import Coordinates, Linearization, State

from cli_helpers import run


# ------------------------------------------------------------------ batched eigen-solver
def test_modal_batch_equals_modal_analysis(rng):
    """Each problem of a stack as LAPACK's generalized solver gives it alone: the
    eigenvalues to 1e-10 relative (round-off eps kappa(M) of these well-conditioned
    random pairs), the mass-normalized shapes up to sign."""
    B, n = 7, 9
    A = rng.standard_normal((B, n, n))
    M = A @ np.swapaxes(A, 1, 2) + n * np.eye(n)
    C = rng.standard_normal((B, n, n))
    K = C @ np.swapaxes(C, 1, 2)
    om, phi, fails = modal_batch(M, K, count=4)
    assert fails == [None] * B
    for b in range(B):
        ref = modal_analysis(M[b], K[b], count=4)
        assert np.allclose(om[b], ref.omega_rad_s, rtol=1e-10)
        assert np.allclose(np.abs(phi[b].T @ M[b] @ phi[b]), np.eye(4), atol=1e-10)
        for k in range(4):
            assert abs(abs(phi[b][:, k] @ M[b] @ ref.mode_shapes[:, k]) - 1) < 1e-8


def test_modal_batch_failures_stay_with_their_problem(rng):
    """A negative-definite stiffness (buckled) or a singular mass fails its own entry
    only."""
    n = 4
    M = np.stack([np.eye(n)] * 3)
    K = np.stack([np.diag([1.0, 2, 3, 4])] * 3)
    K[1] = -K[1]
    M[2, 0, 0] = 0.0
    om, _, fails = modal_batch(M, K, count=2)
    assert fails[0] is None and np.allclose(om[0], [1.0, math.sqrt(2)])
    assert "not positive semi-definite" in fails[1] and np.isnan(om[1]).all()
    assert "not positive definite" in fails[2] and np.isnan(om[2]).all()


# ------------------------------------------------------------------ mode tracking
def _crossing_data(P=21, n=4):
    """Two modes with fixed shapes e0, e1 whose frequencies cross between grid points 7
    and 8 (1 + s and 2.1 - s), a third one above; shapes sorted by frequency at each
    point as an eigen-solver returns them."""
    s = np.linspace(0.0, 1.6, P)
    fa, fb, fc = 1 + s, 2.1 - s, np.full(P, 5.0)
    om = np.stack([fa, fb, fc], axis=1)
    order = np.argsort(om, axis=1)
    E = np.eye(n)[:, :3]
    shapes = np.stack([E[:, order[p]] for p in range(P)]).astype(np.float32)
    return s, om, order, shapes


def test_tracking_keeps_identity_through_a_crossing():
    s, om, order, shapes = _crossing_data()
    valid = np.ones(len(s), dtype=bool)
    layer, mac, seeds = track_modes(shapes, shapes, valid, (len(s),), 2)
    assert seeds == [10]                     # the walk starts at the grid's centre
    sorted_om = np.take_along_axis(om, order, axis=1)
    tracked = np.take_along_axis(sorted_om, layer, axis=1)
    # at the centre (s = 0.8) mode "b" (2.1 - s = 1.3) is the lower one: layer 0 is b
    assert np.allclose(tracked[:, 0], 2.1 - s) and np.allclose(tracked[:, 1], 1 + s)
    # so on the far side of the crossing layer 0 is no longer the lowest frequency
    assert np.all(tracked[:7, 0] > tracked[:7, 1])
    assert np.allclose(mac, 1.0)


def test_tracking_is_independent_of_a_masked_region():
    """A hole in the grid splits the walk into separate regions (one seed each)."""
    s, _, _, shapes = _crossing_data()
    valid = np.ones(len(s), dtype=bool)
    valid[5] = False
    layer, mac, seeds = track_modes(shapes, shapes, valid, (len(s),), 2)
    assert len(seeds) == 2 and (layer[5] == -1).all() and np.isnan(mac[5]).all()


def test_serpentine_visits_neighbours():
    for shape in [(5,), (3, 4), (3, 4, 2)]:
        order = serpentine(shape)
        assert sorted(order) == list(range(int(np.prod(shape))))
        idx = np.array(np.unravel_index(order, shape)).T
        assert np.all(np.abs(np.diff(idx, axis=0)).sum(axis=1) == 1)


class _CrossingModel:
    """A 3-dof structure on one revolute actuator whose first two frequencies cross at
    q = 0.3 rad: K = diag(1 + q, 1.6 - q, 9) (rad/s)^2, M = I, with a small coupling
    that keeps the shapes distinct (an avoided crossing is not built: the coupling is
    zero). A model of the contract, as analysis.workspace sees it."""

    formulation = "test-crossing"
    capabilities = frozenset({"state", "linearize"})
    options: dict = {}
    default_preload = False
    robot = None
    coordinates = Coordinates(("q", "a", "b", "c"), ("rad", "m", "m", "m"),
                              ("actuated", "elastic", "elastic", "elastic"))

    def state(self, *, actuated=None, pose=None, **kw):
        if pose is not None:
            raise InputError("pose", pose, "actuated coordinates")
        return State.build(1, 3, actuated=actuated)

    def linearize(self, st, *, preload=None):
        q = float(st.actuated[0])
        K = np.diag([1.0 + q, 1.6 - q, 9.0])
        c = Coordinates(("a", "b", "c"), ("m",) * 3, ("elastic",) * 3)
        return Linearization(np.eye(3), np.zeros((3, 3)), K, np.zeros(3), np.zeros((3, 1)),
                             c, st)


def test_workspace_map_follows_a_crossing_end_to_end():
    model = _CrossingModel()
    spec = load_description("arm-yu2019")     # only the cache key: the model is given
    r = workspace_map(spec, model=model, bounds=[(-0.5, 1.0)], grid=16, count=2)
    q = np.asarray(r["point"])[:, 0]
    f = np.asarray(r["omega_rad_s"])
    seed = np.argmin(np.abs(np.arange(16) - 7.5))   # grid centre: q ~ 0.2 or 0.3
    first = "a" if 1 + q[seed] < 1.6 - q[seed] else "b"
    wa, wb = np.sqrt(1 + q), np.sqrt(1.6 - q)
    expect = np.stack([wa, wb] if first == "a" else [wb, wa], axis=1)
    assert np.allclose(f, expect, rtol=1e-12)
    assert r["mode_labels"][0] == first
    assert np.all(r["status"] == np.array(["ok"] * 16))


# ------------------------------------------------------------------ the Delta and others
@pytest.fixture(scope="module")
def kuo():
    return load_description("delta-kuo2016")


@pytest.mark.parametrize("reference", ["undeformed", "deflected"])
def test_map_equals_single_pose_modes(kuo, reference):
    """Map values are the frequencies of `modes` at the same pose (the batch path:
    rest_matrices and modal_batch; deflected equilibria warm-started along a chunk, so
    equal to the Newton tolerance 1e-9 relative of the reference, 1e-7 on the
    frequencies)."""
    r = workspace_map(kuo, options={"reference": reference}, grid=3,
                      bounds=[(-0.1, 0.1), (-0.1, 0.1), (0.45, 0.55)], count=4)
    model = build_model(kuo, "ked", reference=reference)
    pts, f = np.asarray(r["point"]), np.asarray(r["frequencies_hz"])
    assert (np.asarray(r["status"]) == "ok").all()
    for k in (0, 4, 13, 26):
        ref = modes(model, model.state(pose=pts[k]), count=6)["frequencies_hz"]
        for v in f[k]:   # each tracked layer is one of the modes at that pose
            assert np.min(np.abs(ref - v)) < 1e-7 * v, (k, v, ref)
    seed = 13          # the walk starts at the centre: its layers are its lowest modes
    ref = modes(model, model.state(pose=pts[seed]), count=4)["frequencies_hz"]
    assert np.allclose(f[seed], ref, rtol=1e-7)


def test_unreachable_and_singular_points_are_masked(kuo):
    r = workspace_map(kuo, options={"reference": "undeformed"}, grid=5,
                      bounds=[(-0.9, 0.9), (-0.05, 0.05), (0.2, 0.6)], count=2)
    status = np.asarray(r["status"])
    assert "unreachable" in status and "ok" in status
    bad = status != "ok"
    assert np.isnan(np.asarray(r["frequencies_hz"])[bad]).all()
    reasons = np.asarray(r["reason"])
    assert all("leg" in s or "base" in s for s in reasons[status == "unreachable"])
    tight = workspace_map(kuo, options={"reference": "undeformed"}, grid=3,
                          bounds=[(-0.1, 0.1), (-0.1, 0.1), (0.45, 0.55)], count=2,
                          max_condition=1.0000001)
    assert set(tight["status"]) == {"singular"}
    assert "no point of the grid" in " ".join(tight.warnings)


def test_delta_end_effector_deflection_and_stiffness(kuo):
    """The platform's sag in the map equals the KED model's own static deflection (a
    second code path: KEDEngine.static_deflection), and the stiffness per axis is
    the inverse of the compliance K^-1 of the platform's coordinates."""
    r = workspace_map(kuo, options={"reference": "undeformed"}, plane="z=0.5",
                      bounds=[(-0.05, 0.05), (-0.05, 0.05), (0.4, 0.6)], grid=2,
                      count=2, deflection=True)
    model = build_model(kuo, "ked", reference="undeformed")
    labels = list(model.ked.labels)
    ix = [labels.index(f"platform.d{c}") for c in "XYZ"]
    for k, p in enumerate(np.asarray(r["point"])):
        d = model.ked.static_deflection(p)[ix]
        assert np.allclose(r["deflection_m"][k], d, rtol=1e-9, atol=1e-15)
        K = model.ked.at_rest(p).K
        C = np.linalg.inv(K)[np.ix_(ix, ix)]
        assert np.allclose(r["stiffness_n_m"][k], 1 / np.diag(C), rtol=1e-8)
    assert 0.005 < abs(r["deflection_m"][0][2]) < 0.05    # Kuo's Delta sags ~25 mm


def test_planar_map_in_actuated_space_matches_modes():
    """A robot without an inverse kinematics (the five-bar by NE-PVP) is mapped in its
    actuators' space."""
    spec = load_description("prrrp-briot2013")
    r = workspace_map(spec, grid=3, bounds=[(-0.05, 0.05), (-0.05, 0.05)], count=3)
    assert r.inputs["grid"]["space"] == "actuated"
    model = build_model(spec, "nepvp")
    pts, f = np.asarray(r["point"]), np.asarray(r["frequencies_hz"])
    for k in (0, 4, 8):
        ref = modes(model, model.state(actuated=pts[k]), count=5)["frequencies_hz"]
        assert all(np.min(np.abs(ref - v)) < 1e-9 * v for v in f[k])


def test_grid_options_are_checked(kuo):
    model = build_model(kuo, "ked", reference="undeformed")
    with pytest.raises(InputError, match="--plane"):
        workspace_grid(model, plane="w=0.5")
    with pytest.raises(InputError, match="--plane"):
        workspace_grid(model, plane="z=abc")
    with pytest.raises(InputError, match="--grid"):
        workspace_grid(model, grid=1)
    with pytest.raises(InputError, match="--spacing"):
        workspace_grid(model, grid=3, spacing=0.1)
    with pytest.raises(InputError, match="--bounds"):
        workspace_grid(model, bounds=[(0, 1)])
    g = workspace_grid(model, spacing=0.05, bounds=[(-0.1, 0.1), (-0.1, 0.1), (0.4, 0.6)])
    assert g.shape == (5, 5, 5) and np.allclose(g.values[0], np.linspace(-0.1, 0.1, 5))
    arm = build_model(load_description("prrrp-briot2013"), "nepvp")
    with pytest.raises(InputError, match="--space"):
        workspace_grid(arm, space="task")


class _FaultyState:
    """Kuo's Delta whose ``state`` raises ``error`` for a first actuator angle above
    0.5 rad: a stand-in for a model with a bug (or, with InputError, a pose it refuses)."""

    def __init__(self, model, error):
        self._model, self._error = model, error

    def __getattr__(self, name):
        return getattr(self._model, name)

    def state(self, **kw):
        st = self._model.state(**kw)
        if float(st.actuated[0]) > 0.5:
            raise self._error
        return st


@pytest.mark.parametrize("error", [ValueError("math domain error"), TypeError("bug"),
                                   ZeroDivisionError("bug")])
def test_default_box_does_not_mask_a_bug_as_unreachable(kuo, error):
    """The default box of a task-space map skips the poses a model refuses (InputError,
    ModelError), but an exception of any other kind is a bug and propagates: before, a
    broad ``except ValueError`` turned it into a smaller box (issue 18)."""
    model = build_model(kuo, "ked", reference="undeformed")
    with pytest.raises(type(error), match=str(error)):
        workspace_grid(_FaultyState(model, error), grid=2)


def test_default_box_skips_refused_poses(kuo):
    model = build_model(kuo, "ked", reference="undeformed")
    full = workspace_grid(model, grid=2)
    part = workspace_grid(_FaultyState(model, InputError("pose", None, "reachable")), grid=2)
    # the refused actuator angles (> 0.5 rad) shrink the box of reached poses: a
    # stricter subset of the same grid of actuator samples, so never a larger box
    lo_f, hi_f = (np.array([v[0] for v in full.values]), np.array([v[-1] for v in full.values]))
    lo_p, hi_p = (np.array([v[0] for v in part.values]), np.array([v[-1] for v in part.values]))
    assert np.all(lo_p >= lo_f - 1e-12) and np.all(hi_p <= hi_f + 1e-12)
    assert np.any(lo_p > lo_f + 1e-6) or np.any(hi_p < hi_f - 1e-6)


# ------------------------------------------------------------------ command line
def test_cli_workspace_map_writes_dataset(capsys, tmp_path):
    xr = pytest.importorskip("xarray")
    out = tmp_path / "ws"
    code, _, err = run(capsys, ["map", "delta-kuo2016", "--workspace", "--grid", "3",
                                "--bounds", "-0.1", "0.1", "-0.1", "0.1", "0.45", "0.55",
                                "--reference", "undeformed", "--count", "3",
                                "--scheduler", "serial", "--out", str(out)])
    assert code == 0, err
    names = {p.name for p in out.iterdir()}
    assert {"workspace.nc", "workspace.csv", "workspace.json", "summary.md",
            "workspace_mode1.png"} <= names
    ds = xr.open_dataset(out / "workspace.nc", engine="scipy")
    assert ds["frequency_hz"].shape == (3, 3, 3, 3)
    assert str(ds["status"].values[1, 1, 1]) == "ok"
    lines = (out / "workspace.csv").read_text().splitlines()
    assert len(lines) == 28 and lines[0].startswith("x,y,z,f1_hz")


@pytest.mark.parametrize("argv, flag", [
    (["map", "delta-kuo2016", "--grid", "3"], "--grid"),
    (["map", "delta-kuo2016", "--workers", "2"], "--workers"),
    (["map", "delta-kuo2016", "--workspace", "--radius", "0.1"], "--radius"),
    (["map", "delta-kuo2016", "--workspace", "--plane", "q=1"], "--plane"),
    (["map", "delta-kuo2016", "--workspace", "--bounds", "1", "2", "3"], "--bounds"),
    (["map", "delta-kuo2016", "--workspace", "--scheduler", "serial", "--workers", "2"],
     "--workers"),
    (["map", "delta-kuo2016", "--workspace", "--scheduler", "nowhere"], "--scheduler"),
])
def test_cli_workspace_bad_input(capsys, argv, flag):
    code, _, err = run(capsys, argv)
    assert code == 2 and len(err) == 1 and flag in err[0], err


@pytest.mark.parametrize("reference, rtol", [("undeformed", 1e-10), ("deflected", 1e-7)])
def test_path_map_batches_equal_modes(kuo, reference, rtol):
    """The path map's batched path (rest_matrices of a chunk of poses, modal_batch) gives
    `modes` at every pose: to round-off about the undeformed pose; to the Newton
    tolerance (1e-9 on the equilibrium) with the deflected reference warm-started along
    the path."""
    from elastodyn.analysis.modes import frequency_map
    model = build_model(kuo, "ked", reference=reference)
    th = np.linspace(0, 2 * np.pi, 7, endpoint=False)
    pts = np.c_[0.1 * np.cos(th), 0.1 * np.sin(th), np.full(7, 0.5)]
    states = [model.state(pose=p) for p in pts]
    r = frequency_map(model, states, count=5)
    ref = np.array([modes(model, st, count=5)["omega_rad_s"] for st in states])
    assert np.allclose(r["omega_rad_s"], ref, rtol=rtol)


def test_a_tiny_spacing_is_refused_before_allocating(kuo):
    model = build_model(kuo, "ked", reference="undeformed")
    with pytest.raises(InputError, match="at most"):
        workspace_grid(model, spacing=1e-9, bounds=[(-0.1, 0.1), (-0.1, 0.1), (0.4, 0.6)])
