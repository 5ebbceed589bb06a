"""Design sweeps (analysis.sweep, elastodyn sweep) and the distributed engine
(analysis.engine): results identical whatever the number of workers, a failure stays
with its point, an interrupted run keeps its finished points."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from elastodyn.analysis.engine import RunInterrupted, engine, run_tasks
from elastodyn.analysis.modes import modes
from elastodyn.analysis.sweep import parse_range, sweep
from elastodyn.analysis.workspace import workspace_map
from elastodyn.description.files import apply_sets, load_description
from elastodyn.exceptions import InputError
from elastodyn.formulations.registry import build_model

from cli_helpers import run

WIDTH = "links.lower.section.width"


@pytest.fixture(scope="module")
def kuo():
    return load_description("delta-kuo2016")


def test_parse_range():
    assert parse_range("a.b=0.1:0.5:3") == ("a.b", 0.1, 0.5, 3)
    assert parse_range("a.b=1e-3:2E-3") == ("a.b", 1e-3, 2e-3, None)
    assert parse_range("a.b=0.1") is None and parse_range("joints.b=spherical") is None
    with pytest.raises(InputError, match="START != STOP"):
        parse_range("a=1:1:3")
    with pytest.raises(InputError, match="NUM"):
        parse_range("a=1:2:0")


def test_sweep_points_equal_single_runs(kuo):
    """Each design's frequencies are those of `modes` on the description with that
    value (built and solved independently here)."""
    r = sweep(kuo, [(WIDTH, 0.004, 0.008, 3)], options={"reference": "undeformed"},
              pose={"pose": [0.1, 0.0, 0.5]}, count=3)
    for k, w in enumerate(np.linspace(0.004, 0.008, 3)):
        m = build_model(apply_sets(kuo, [f"{WIDTH}={w}"]), "ked", reference="undeformed")
        ref = modes(m, m.state(pose=[0.1, 0.0, 0.5]), count=3)["frequencies_hz"]
        assert np.allclose(r["frequencies_hz"][k], ref, rtol=1e-12)
    ds = r.dataset()
    assert ds["frequencies_hz"].dims == (WIDTH, "mode")
    assert np.allclose(ds[WIDTH].values, [0.004, 0.006, 0.008])


def test_failed_point_keeps_its_reason_and_the_others(kuo):
    r = sweep(kuo, [(WIDTH, -0.004, 0.008, 3)], options={"reference": "undeformed"},
              pose={"pose": [0.1, 0.0, 0.5]}, count=2)
    assert list(r["status"]) == ["invalid", "ok", "ok"]
    assert WIDTH.split(".")[-1] in r["reason"][0]
    assert np.isnan(r["frequencies_hz"][0]).all() and np.isfinite(r["frequencies_hz"][1:]).all()


def test_interrupted_sweep_keeps_finished_points(kuo, tmp_path):
    full = sweep(kuo, [(WIDTH, 0.004, 0.008, 4)], options={"reference": "undeformed"},
                 pose={"pose": [0.1, 0.0, 0.5]}, count=2)

    def stop_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt
    with pytest.raises(RunInterrupted) as exc:
        sweep(kuo, [(WIDTH, 0.004, 0.008, 4)], options={"reference": "undeformed"},
              pose={"pose": [0.1, 0.0, 0.5]}, count=2, progress=stop_after_two)
    part = exc.value.partial
    assert isinstance(exc.value, KeyboardInterrupt) and exc.value.done == 2
    assert list(part["status"]) == ["ok", "ok", "interrupted", "interrupted"]
    assert np.array_equal(part["frequencies_hz"][:2], full["frequencies_hz"][:2])
    names = part.save(tmp_path / "partial")
    assert "sweep.nc" in names and "interrupted" in (tmp_path / "partial" / "summary.md"
                                                     ).read_text()


def test_latin_hypercube_is_seeded_and_stratified(kuo):
    kw = dict(options={"reference": "undeformed"}, pose={"pose": [0.1, 0.0, 0.5]},
              count=1, design="lhs", samples=5)
    a = sweep(kuo, [(WIDTH, 0.004, 0.008, None), ("payload.mass", 0.1, 0.5, None)],
              seed=3, **kw)
    b = sweep(kuo, [(WIDTH, 0.004, 0.008, None), ("payload.mass", 0.1, 0.5, None)],
              seed=3, **kw)
    v = np.asarray(a["parameter_values"])
    assert np.array_equal(v, b["parameter_values"])
    # one sample in each fifth of each range (the Latin hypercube's strata)
    for j, (lo, hi) in enumerate([(0.004, 0.008), (0.1, 0.5)]):
        assert sorted(np.floor((v[:, j] - lo) / (hi - lo) * 5).astype(int)) == [0, 1, 2, 3, 4]
    assert a.dataset()["frequencies_hz"].dims == ("sample", "mode")
    with pytest.raises(InputError, match="--set"):
        sweep(kuo, [(WIDTH, 0.004, 0.008, 3)], seed=0, **kw)


def test_sweep_deflection_and_peak_deviation():
    """The end-effector outputs on the five-bar (NE-PVP): a thicker leg sags less; the
    peak deviation along a short bang-bang grows when the legs are made thinner."""
    spec = load_description("prrrp-briot2013")
    key = "bodies.q2.beam.section.width"
    d = sweep(spec, [(key, 0.0015, 0.003, 2)], output="deflection")
    dz = np.abs(np.asarray(d["deflection_m"])[:, 2])
    assert dz[1] < dz[0] and (np.asarray(d["stiffness_n_m"])[1, [0, 2]]
                              > np.asarray(d["stiffness_n_m"])[0, [0, 2]]).all()
    traj = {"law": "bang-bang", "space": "joint", "to": [0.05, 0.05], "motion_time": 0.05}
    p = sweep(spec, [(key, 0.0015, 0.003, 2)], output="peak-deviation", trajectory=traj,
              duration=0.05, step=1e-3)
    dev = np.asarray(p["peak_deviation_m"])
    assert list(p["status"]) == ["ok", "ok"] and dev[0] > dev[1] > 0


@pytest.mark.slow
def test_results_identical_with_one_and_two_workers(kuo):
    """The same sweep and the same workspace map on a local cluster of one and of two
    worker processes, and in this process: identical to the last bit (the chunks are
    fixed by the run, not by the cluster)."""
    args = ([(WIDTH, 0.004, 0.008, 3)],)
    kw = dict(options={"reference": "undeformed"}, pose={"pose": [0.1, 0.0, 0.5]}, count=3)
    mkw = dict(options={"reference": "deflected"}, grid=3, count=3,
               bounds=[(-0.1, 0.1), (-0.1, 0.1), (0.45, 0.55)])
    out = {}
    for workers in (None, 1, 2):
        with engine("serial" if workers is None else "local", workers) as client:
            s = sweep(kuo, *args, client=client, **kw)
            m = workspace_map(kuo, client=client, **mkw)
        out[workers] = (np.asarray(s["frequencies_hz"]), np.asarray(m["frequencies_hz"]),
                        np.asarray(m["mac"]))
    for workers in (1, 2):
        for a, b in zip(out[None], out[workers]):
            assert np.array_equal(a, b, equal_nan=True)


def test_run_tasks_records_a_failed_task():
    def boom(t):
        if t == 2:
            raise ZeroDivisionError("no")
        return [t * 10]
    out = run_tasks(boom, [1, 2, 3])
    assert out[0] == [10] and out[2] == [30]
    assert out[1][0].kind == "model" and "ZeroDivisionError" in out[1][0].reason


# ------------------------------------------------------------------ command line
def test_cli_sweep(capsys, tmp_path):
    out = tmp_path / "sw"
    code, _, err = run(capsys, ["sweep", "delta-kuo2016", "--set", f"{WIDTH}=0.004:0.008:2",
                                "--set", "payload.mass=0.2", "--reference", "undeformed",
                                "--count", "2", "--scheduler", "serial", "--out", str(out)])
    assert code == 0, err
    assert {"sweep.nc", "sweep.csv", "sweep.json", "sweep.png", "summary.md"} <= {
        p.name for p in out.iterdir()}
    lines = (out / "sweep.csv").read_text().splitlines()
    assert lines[0].startswith(f"{WIDTH},f1_hz,f2_hz") and len(lines) == 3
    fixed = apply_sets(load_description("delta-kuo2016"), ["payload.mass=0.2",
                                                            f"{WIDTH}=0.004"])
    m = build_model(fixed, "ked", reference="undeformed")
    f1 = modes(m, m.state(pose=[0.1, 0.0, 0.5]), count=1)["frequencies_hz"][0]
    assert math.isclose(float(lines[1].split(",")[1]), f1, rel_tol=1e-9)


@pytest.mark.parametrize("argv, flag", [
    (["sweep", "delta-kuo2016"], "--set"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.2"], "--set"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.1:0.5:3", "--output", "x"],
     "--output"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.1:0.5:3", "--lhs", "4"], "--set"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.1:0.5:3", "--seed", "4"], "--seed"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.1:0.5:3", "--radius", "0.1"],
     "--radius"),
    (["sweep", "delta-kuo2016", "--set", "nothing.here=0.1:0.5:3"], "nothing"),
    (["sweep", "delta-kuo2016", "--set", "payload.mass=0.1:0.5:3", "--output",
      "deflection", "--count", "2"], "--count"),
])
def test_cli_sweep_bad_input(capsys, argv, flag):
    code, _, err = run(capsys, argv + ["--scheduler", "serial"])
    assert code == 2 and len(err) == 1 and flag in err[0], err


def test_sweep_sensitivities_equal_differences_of_the_sweep(kuo):
    """The exact sensitivities a sweep reports agree with the difference quotient of its
    own frequencies over a narrow range (relative step 1e-4: truncation O(h^2) ~ 1e-8 of
    the second derivative's scale, round-off ~ 1e-12 / 1e-4), to 1e-5 relative."""
    w, h = 0.006, 0.006e-4
    r = sweep(kuo, [(WIDTH, w, w + h, 2), ("payload.mass", 0.3, 0.3 + 0.3e-4, 2)],
              options={"reference": "undeformed"}, pose={"pose": [0.1, 0.0, 0.5]},
              count=3, sensitivities=True)
    f = np.asarray(r["frequencies_hz"]).reshape(2, 2, 3)
    s = np.asarray(r["sensitivity_hz"]).reshape(2, 2, 3, 2)
    fd_w = (f[1, 0] - f[0, 0]) / h
    fd_m = (f[0, 1] - f[0, 0]) / 0.3e-4
    assert np.allclose(fd_w, 0.5 * (s[0, 0, :, 0] + s[1, 0, :, 0]), rtol=1e-5)
    assert np.allclose(fd_m, 0.5 * (s[0, 0, :, 1] + s[0, 1, :, 1]), rtol=1e-5)
    assert r.dataset()["sensitivity_hz"].dims == (WIDTH, "payload.mass", "mode",
                                                  "parameter")
    # the deflected reference (the default) is differentiated too (exact jets): same
    # check (its frequencies' round-off, ~1e-10 relative, over the step 1e-4: 1e-6)
    r = sweep(kuo, [(WIDTH, w, w + h, 2)], pose={"pose": [0.1, 0.0, 0.5]}, count=2,
              sensitivities=True)
    f = np.asarray(r["frequencies_hz"]).reshape(2, 2)
    s = np.asarray(r["sensitivity_hz"]).reshape(2, 2, 1)
    assert np.allclose((f[1] - f[0]) / h, 0.5 * (s[0, :, 0] + s[1, :, 0]), rtol=1e-5)


@pytest.mark.slow
def test_cli_runs_on_an_existing_scheduler(capsys, tmp_path):
    """--scheduler ADDRESS: the sweep runs on a Dask cluster started elsewhere (here a
    cluster of one worker process) and gives what the serial engine gives."""
    from distributed import LocalCluster
    argv = ["sweep", "delta-kuo2016", "--set", f"{WIDTH}=0.004:0.008:2",
            "--reference", "undeformed", "--count", "2", "--json"]
    code, out, err = run(capsys, argv + ["--scheduler", "serial"])
    assert code == 0, err
    serial = json.loads(out)["frequencies_hz"]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        code, out, err = run(capsys, argv + ["--scheduler", cluster.scheduler_address])
        assert code == 0, err
        assert json.loads(out)["frequencies_hz"] == serial
        code, _, err = run(capsys, argv + ["--scheduler", cluster.scheduler_address,
                                           "--workers", "2"])
        assert code == 2 and "--workers" in err[0]


def test_a_huge_grid_is_refused_before_allocating(kuo):
    with pytest.raises(InputError, match="at most"):
        sweep(kuo, [(WIDTH, 0.004, 0.008, 10_000), ("payload.mass", 0.1, 0.5, 10_000)],
              options={"reference": "undeformed"}, pose={"pose": [0.1, 0.0, 0.5]})


@pytest.mark.parametrize("output, kw", [("deflection", {}),
                                        ("frequencies", {"sensitivities": True})])
def test_a_sweep_where_every_point_failed_is_still_saved(kuo, tmp_path, output, kw):
    """Lower links too short to reach the pose at every design: each point fails with its
    reason, the outputs keep their full shapes (NaN) and the result saves whole."""
    r = sweep(kuo, [("links.lower.length", 0.02, 0.03, 2)],
              options={"reference": "undeformed"}, pose={"pose": [0.1, 0.0, 0.5]},
              output=output, count=2, **kw)
    assert r.summary["computed"] == 0 and all(s != "ok" for s in r["status"])
    key = "deflection_m" if output == "deflection" else "sensitivity_hz"
    assert np.asarray(r[key]).shape == ((2, 3) if output == "deflection" else (2, 2, 1))
    assert "sweep.nc" in r.save(tmp_path / "out")
