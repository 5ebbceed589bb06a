"""Command line of the five-bar PRRRP (NE-PVP, Briot & Khalil 2013): modes, simulate,
generate; each checked against the library call it wraps or an independent value."""
import json

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.tree import prrrp_briot2013
from elastodyn.formulations.nepvp_model import NEPVPModel

from reference_five_bar_frame import frame_frequencies


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ELASTODYN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_modes_json_equals_frame_model(capsys, tmp_path):
    """Table II configuration q1 = 0, q4 = 0.25 m: the six frequencies equal the
    independent frame model to eigen-solver round-off (1e-9)."""
    doc = _json(capsys, ["modes", "prrrp-briot2013", "--q1", "0", "--q4", "0.25", "--json",
                         "--out", str(tmp_path)])
    assert doc["dof"] == 6 and len(doc["frequencies_hz"]) == 6
    np.testing.assert_allclose(doc["frequencies_hz"], frame_frequencies(0.25, n=1), rtol=1e-9)
    for f in ("modes.json", "modes.csv"):
        assert (tmp_path / f).stat().st_size > 0


def test_simulate_json_files_and_library(capsys, tmp_path):
    """The JSON keys of the issue, rows [horizontal, along z0], a sample every step
    (default 1 ms; 0.2 ms here); the numbers are those of simulate_motion, and the
    end-effector velocity is the time derivative of its position: central differences
    of the samples err by dt^2/6 times the third derivative (the 100 Hz ripple):
    1.5e-5 m/s at 0.1 ms, 1.4e-3 at 1 ms, so 6e-5 m/s, 2e-4 of the peak, at 0.2 ms
    (asserted 1e-3)."""
    doc = _json(capsys, ["simulate", "prrrp-briot2013", "--trajectory", "bang-bang",
                         "--duration", "0.2", "--to", "0.02", "0.04", "--end", "0.25",
                         "--step", "2e-4", "--json", "--out", str(tmp_path)])
    t = np.array(doc["time_s"])
    np.testing.assert_allclose(np.diff(t), 2e-4, atol=1e-12)
    assert t[0] == 0.0 and abs(t[-1] - 0.25) < 1e-12
    pos, vel = np.array(doc["ee_position_m"]), np.array(doc["ee_velocity_m_s"])
    rvel = np.array(doc["rigid_ee_velocity_m_s"])
    assert pos.shape == vel.shape == rvel.shape == (2, len(t)) and doc["rows"] == ["x", "z"]
    fd = (pos[:, 2:] - pos[:, :-2]) / 4e-4
    assert np.abs(fd - vel[:, 1:-1]).max() < 1e-3 * np.abs(vel).max()
    # at rest at the end of the motion, rigidly; the flexible one still vibrates
    assert np.abs(rvel[:, -1]).max() < 1e-12
    from elastodyn.analysis.nepvp import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    sim = simulate_motion(NEPVPModel(prrrp_briot2013()),
                          BangBang([0, 0], [0.02, 0.04], t0=0.0, tf=0.2), end=0.25,
                          step=2e-4)
    np.testing.assert_allclose(vel, sim.ee_velocity.T, rtol=0, atol=1e-14)
    np.testing.assert_allclose(doc["tau_n"], sim.tau.T, rtol=0, atol=1e-12)
    assert doc["method"] == "rk4" and doc["initial"] == "static"
    for f in ("simulation.json", "simulation.csv", "simulation.png"):
        assert (tmp_path / f).stat().st_size > 0
    head = (tmp_path / "simulation.csv").read_text().splitlines()[0].split(",")
    assert head[:3] == ["time_s", "q1_m", "q4_m"] and "e2_v1_m" in head


@pytest.mark.parametrize("problem", ["inverse", "direct", "model"])
def test_generate_json_counts_and_file(capsys, tmp_path, problem):
    doc = _json(capsys, ["generate", "prrrp-briot2013", "--lang", "octave", "--problem",
                         problem, "--json", "--out", str(tmp_path)])
    ops = NEPVPModel(prrrp_briot2013()).program(problem).ops()
    assert (doc["additions"], doc["multiplications"], doc["functions"]) == (
        ops.additions, ops.multiplications, ops.functions)
    assert doc["generation_time_s"] > 0
    text = (tmp_path / f"prrrp_briot2013_{problem}.m").read_text()
    assert text.startswith("function [") and f"{ops.additions} additions" in text


@pytest.mark.parametrize("argv,name", [
    (["modes", "prrrp-briot2013", "--q4", "0.9"], "--q4"),
    (["modes", "prrrp-briot2013", "--elements", "9"], "--elements"),
    (["modes", "prrrp-briot2013", "--count", "7"], "--count"),
    (["modes", "prrrp-briot2013", "--at", "0", "0", "0.5"], "options"),
    (["simulate", "prrrp-briot2013", "--trajectory", "circle"], "--trajectory"),
    (["simulate", "prrrp-briot2013", "--controller", "pd"], "--controller"),
    (["simulate", "prrrp-briot2013", "--duration", "0"], "--duration"),
    (["simulate", "prrrp-briot2013", "--end", "-1"], "--end"),
    (["simulate", "prrrp-briot2013", "--end", "100"], "--end"),
    (["simulate", "prrrp-briot2013", "--step", "0.0003"], "--step"),
    (["simulate", "prrrp-briot2013", "--to", "0", "0.9"], "--to"),
    (["simulate", "prrrp-briot2013", "--to", "0", "nan"], "--to"),
    (["simulate", "prrrp-briot2013", "--method", "euler"], "--method"),
    (["simulate", "prrrp-briot2013", "--initial", "rest"], "--initial"),
    (["simulate", "prrrp-briot2013", "--elements", "0"], "--elements"),
    (["simulate", "delta-kuo2016", "--to", "0", "0.1"], "--to"),
    (["simulate", "delta-kuo2016", "--end", "1"], "--end"),
    (["generate", "prrrp-briot2013", "--lang", "fortran"], "--lang"),
    (["generate", "prrrp-briot2013", "--problem", "closure"], "--problem"),
    (["generate", "delta-kuo2016"], "ROBOT"),
    (["torques", "prrrp-briot2013"], "ROBOT"),
])
def test_bad_input_one_line_exit_2(capsys, argv, name):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err, err


def test_generate_arm_json_and_python_file(capsys, tmp_path):
    """generate arm: counts of the symbolic N-link model; the written Python file runs
    and returns the compiled numbers of the preset (arm-yu2019: numeric parameters)."""
    doc = _json(capsys, ["generate", "arm", "--links", "3", "--modes", "2", "--json"])
    assert doc["links"] == 3 and doc["symbolic_parameters"] is True
    assert doc["additions"] > 0 and doc["multiplications"] > 0 and doc["functions"] == 12
    doc = _json(capsys, ["generate", "arm-yu2019", "--lang", "python", "--json", "--out",
                         str(tmp_path)])
    ns: dict = {}
    exec((tmp_path / "amm_arm_yu2019.py").read_text(), ns)
    from elastodyn.description.arm import arm_yu2019
    from elastodyn.formulations.amm_model import AMMArmModel
    q = [0.3, -0.4, 1e-3, -2e-4, 5e-4, 1e-4]
    qd = [0.1, -0.2, 0.01, 0.02, -0.01, 0.0]
    M, H, N, F, B, c = ns["amm_arm_yu2019"](q, qd, [1.0, 0.5])
    ref = AMMArmModel(arm_yu2019()).dynamics(q, qd, [1.0, 0.5])
    np.testing.assert_allclose(M, ref["M"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.ravel(c), ref["c"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("argv,name", [
    (["generate", "arm", "--links", "0"], "--links"),
    (["generate", "arm", "--links", "13"], "--links"),
    (["generate", "arm", "--modes", "9"], "--modes"),
    (["generate", "arm", "--basis", "legendre"], "--basis"),
    (["generate", "arm", "--problem", "inverse"], "--problem"),
    (["generate", "arm-yu2019", "--links", "3"], "--links"),
    (["generate", "prrrp-briot2013", "--modes", "3"], "--modes"),
    (["modes", "arm-yu2019"], "ROBOT"),
    (["simulate", "arm-yu2019", "--controller", "computed-torque"], "--controller"),
    (["simulate", "arm-yu2019", "--trajectory", "inverted-u"], "--trajectory"),
    (["simulate", "arm-yu2019", "--free-vibration", "--trajectory", "circle"], "--trajectory"),
    (["simulate", "arm-yu2019", "--kp", "-1"], "--kp"),
    (["simulate", "arm-yu2019", "--duration", "100"], "--duration"),
    (["simulate", "arm-yu2019", "--to", "0", "1"], "--to"),
    (["simulate", "delta-kuo2016", "--free-vibration"], "--free-vibration"),
])
def test_arm_bad_input_one_line_exit_2(capsys, argv, name):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err, err


def test_simulate_arm_circle_and_free_vibration(capsys, tmp_path):
    """Yu 4.2 (PD on the circle) and 4.1 (free vibration), short windows: the JSON keys
    and shapes; the set points are the rigid inverse kinematics of the circle (the tip
    of the rigid arm at the set points lies on it, 1e-12 m); the free vibration reports
    the first two frequencies from the spectrum and from the linearized loop."""
    doc = _json(capsys, ["simulate", "arm-yu2019", "--trajectory", "circle", "--controller",
                         "pd", "--duration", "1", "--step", "0.002", "--json", "--out",
                         str(tmp_path)])
    t = np.array(doc["time_s"])
    assert len(t) == 501 and doc["case"] == "circle" and doc["kp"] == 125.0
    ref = np.array(doc["theta_ref_rad"])
    l1, l2 = 0.475, 0.435
    x = l1 * np.cos(ref[0]) + l2 * np.cos(ref[0] + ref[1])
    y = l1 * np.sin(ref[0]) + l2 * np.sin(ref[0] + ref[1])
    np.testing.assert_allclose(x, 0.67 + 0.1 * np.cos(0.2 * np.pi * t), atol=1e-12)
    np.testing.assert_allclose(y, 0.34 + 0.1 * np.sin(0.2 * np.pi * t), atol=1e-12)
    assert np.array(doc["tip_acceleration_m_s2"]).shape == (2, 2, 501)
    for f in ("simulation.json", "simulation.csv", "joints.png", "tip_acceleration.png"):
        assert (tmp_path / f).stat().st_size > 0
    doc = _json(capsys, ["simulate", "arm-yu2019", "--free-vibration", "--duration", "2",
                         "--step", "0.002", "--json"])
    om = doc["omega_rad_s"]
    assert len(om["spectrum"]) == 2 and len(om["linearized"]) == 2
    assert 0 < om["linearized"][0] < om["linearized"][1]
