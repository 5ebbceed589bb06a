"""Force-driven runs of the 3-PRR (Rosyid & El-Khasawneh 2020 section 8.2): scenarios,
the rigid model against the independent joint-coordinate reference
(tests/references/reference_rigid_3prr.py), the two solution methods against each other, the
command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

import reference_rigid_3prr as ref
from elastodyn.analysis.scenario import build_efforts
from elastodyn.analysis.simulate import simulate_efforts
from elastodyn.cli import main
from elastodyn.description.presets import get_preset
from elastodyn.description.scenarios import SCENARIOS, scenario
from elastodyn.exceptions import InputError
from elastodyn.formulations.ffrf.model import FFRFModel
from elastodyn.trajectories import SineEfforts, TrianglePulse

PRESET = "3prr-rosyid2020"


def _efforts(name):
    return build_efforts(scenario(PRESET, name)["efforts"], 3)


def test_scenarios_are_the_papers_loads():
    """Section 8.2: sine (10, 2, 2) sin 20t as printed (the default), the pulse's signs
    (10, -2, -2) as the alternative; the triangle 0 -> peak at 0.1 s -> 0 at 0.2 s."""
    assert list(SCENARIOS[PRESET]) == ["sine", "sine-minus", "pulse"]   # sine: default
    s, m, p = _efforts("sine"), _efforts("sine-minus"), _efforts("pulse")
    t = 0.05
    assert np.allclose(s(t), np.array([10, 2, 2]) * np.sin(20 * t))
    assert np.allclose(m(t), np.array([10, -2, -2]) * np.sin(20 * t))
    assert np.allclose(p(0.05), [5, -1, -1]) and np.allclose(p(0.1), [10, -2, -2])
    assert np.allclose(p(0.15), [5, -1, -1]) and np.allclose(p(0.3), 0)
    with pytest.raises(InputError, match="peak_time"):
        TrianglePulse([1.0], 0.3, 0.2)
    with pytest.raises(InputError, match="angular_rate"):
        SineEfforts([1.0], -1.0)
    with pytest.raises(InputError, match="one value per actuator"):
        build_efforts({"law": "sine", "amplitude": [1, 2], "angular_rate": 1}, 3)


@pytest.mark.parametrize("name,amp", [("sine", (10, 2, 2)), ("pulse", None)])
def test_rigid_run_follows_the_joint_coordinate_reference(name, amp):
    """The rigid FFRF model (legs and platform with the paper's mass properties) under
    the scenario's slider forces along +X follows the independent joint-coordinate model
    (DOP853 at 1e-11): D and theta to 2e-6 m / rad at 0.25 s with the generalized-alpha
    step 1 ms / 8 (second order: the error ~ (h w)^2 x the motion, a few mm)."""
    m = FFRFModel(get_preset(PRESET), {"rigid": True})
    eff = _efforts(name)
    t = np.linspace(0.0, 0.25, 6)
    run = m.run_efforts(eff, t, step=1.25e-4)
    force = (ref.sinusoid_forces(amp) if amp else ref.pulse_forces())
    sol = ref.forward_dynamics(force, 0.25, t_eval=t,
                               breakpoints=() if amp else ref.PULSE_BREAKPOINTS)
    P = np.array([m.pose_of(q) for q in run.q])
    assert np.abs(P[:, :2] - sol.D).max() < 2e-6
    assert np.abs(P[:, 2] - sol.theta).max() < 2e-6
    assert np.abs(np.array([m.actuated_of(q) for q in run.q]) - sol.s).max() < 2e-6


@pytest.mark.parametrize("method", ["partitioning", "projection"])
def test_rigid_run_stops_at_the_singular_configuration(method):
    """Under the sine the mechanism falls to the singular configuration (legs 1 and 3
    flat) at 0.3869 s (reference); both methods stop there and report the time within a
    few steps (the partitioning's closure fails just before the singularity, the
    projection's determinant changes sign: linear interpolation)."""
    m = FFRFModel(get_preset(PRESET), {"rigid": True})
    run = m.run_efforts(_efforts("sine"), np.linspace(0, 1.0, 201), step=2.5e-4,
                        method=method)
    sol = ref.forward_dynamics(ref.sinusoid_forces(), 1.0, t_eval=[0, 1.0])
    assert run.singular_time is not None
    assert abs(run.singular_time - sol.t_singular) < 3e-3
    assert run.t[-1] <= run.singular_time
    assert "singular configuration" in run.message


def test_flexible_run_methods_agree_and_stay_near_rigid():
    """FEM (2 elements) over 20 ms: partitioning and the index-3 projection give the
    same poses (to 1e-9 m: both second order with the same step, the difference is
    their truncation error on micrometre deflections), the constraint residual is at
    round-off, and the elastic part is micrometres (stiff 150 x 50 mm aluminium links)."""
    m = FFRFModel(get_preset(PRESET), {"shape": "fem", "elements": 2})
    eff = _efforts("sine")
    res = {k: simulate_efforts(m, eff, duration=0.02, output_step=0.005, method=k)
           for k in ("partitioning", "projection")}
    def pose(r):
        return np.column_stack([np.asarray(r["ee_position_m"])[:, :2], r["ee_angle_rad"]])

    def rigid_pose(r):
        return np.column_stack([np.asarray(r["rigid_ee_position_m"])[:, :2],
                                r["rigid_ee_angle_rad"]])
    a, b = (pose(r) for r in res.values())
    assert np.abs(a - b).max() < 1e-9
    for r in res.values():
        assert max(r.quantities["constraint_residual"]) < 1e-12
        assert not np.any(np.asarray(r["ee_position_m"])[:, 2])   # planar: z = 0
        el = np.abs(pose(r) - rigid_pose(r)).max()
        assert 1e-9 < el < 1e-5


def test_cli_simulate_3prr_writes_the_figures(tmp_path):
    out = tmp_path / "o"
    assert main(["simulate", PRESET, "--scenario", "pulse", "--shape", "rr", "--duration",
                 "0.01", "--out", str(out)]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"pose.png", "elastic.png", "simulation.json", "simulation.csv"} <= names
    d = json.loads((out / "simulation.json").read_text())
    assert d["inputs"]["scenario"] == "pulse" and d["model"]["shape"] == "rr"
    assert len(d["ee_position_m"]) == 11 and len(d["ee_angle_rad"]) == 11 and d["summary"]["singular_time_s"] is None


@pytest.mark.parametrize("args,flag", [
    (["--radius", "0.1"], "--radius"),
    (["--trajectory", "circle"], "--trajectory"),
    (["--controller", "pd"], "--controller"),
    (["--initial", "static"], "--initial"),
    (["--method", "rk4"], "--method"),
    (["--integrator-step", "0.01", "--step", "0.001"], "--integrator-step"),
    (["--scenario", "circle"], "--scenario"),
])
def test_cli_refuses_what_does_not_apply(args, flag, capsys):
    assert main(["simulate", PRESET, "--duration", "0.01", *args]) == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
