"""Command line of the five-bar PRRRP (NE-PVP, Briot & Khalil 2013) and the arms (assumed
modes, Yu & Chen 2019): modes, simulate, torques, generate; each checked against the
library call it wraps or an independent value.

Layout (CHANGELOG, issue 13): time series (n_samples, n_components), the five-bar's
efforts ``force_n`` (its actuators are sliders), options under ``model`` and
``inputs``, headline values under ``summary``."""
import json

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.tree import prrrp_briot2013
from elastodyn.formulations.nepvp.engine import NEPVPEngine

from reference_five_bar_frame import frame_frequencies



def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_modes_json_equals_frame_model(capsys, tmp_path):
    """Table II configuration q1 = 0, q4 = 0.25 m: the six frequencies equal the
    independent frame model to eigen-solver round-off (1e-9)."""
    doc = _json(capsys, ["modes", "prrrp-briot2013", "--actuated", "0", "0.25", "--json",
                         "--out", str(tmp_path)])
    assert doc["dof"] == 6 and len(doc["frequencies_hz"]) == 6
    np.testing.assert_allclose(doc["frequencies_hz"], frame_frequencies(0.25, n=1), rtol=1e-9)
    assert doc["inputs"]["actuated"] == [0.0, 0.25] and doc["model"] == {"elements": 1}
    for f in ("modes.json", "modes.csv", "modes.png", "summary.md"):
        assert (tmp_path / f).stat().st_size > 0


def test_modes_old_spelling_q1_q4(capsys):
    """--q1/--q4 (the old five-bar options) answer with one note and the same numbers."""
    assert main(["modes", "prrrp-briot2013", "--q1", "0", "--q4", "0.25", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == "elastodyn: note: --q1/--q4 are now --actuated Q1 Q4"
    doc = json.loads(out)
    assert doc["inputs"]["actuated"] == [0.0, 0.25]
    np.testing.assert_allclose(doc["frequencies_hz"], frame_frequencies(0.25, n=1), rtol=1e-9)


def test_simulate_json_files_and_library(capsys, tmp_path):
    """The JSON keys of the issue, rows [horizontal, along z0], a sample every step
    (default 1 ms; 0.2 ms here); the numbers are those of simulate_motion, and the
    end-effector velocity is the time derivative of its position: central differences
    of the samples err by dt^2/6 times the third derivative (the 100 Hz ripple):
    1.5e-5 m/s at 0.1 ms, 1.4e-3 at 1 ms, so 6e-5 m/s, 2e-4 of the peak, at 0.2 ms
    (asserted 1e-3)."""
    doc = _json(capsys, ["simulate", "prrrp-briot2013", "--trajectory", "bang-bang",
                         "--motion-time", "0.2", "--to", "0.02", "0.04", "--duration", "0.25",
                         "--step", "2e-4", "--json", "--out", str(tmp_path)])
    t = np.array(doc["time_s"])
    np.testing.assert_allclose(np.diff(t), 2e-4, atol=1e-12)
    assert t[0] == 0.0 and abs(t[-1] - 0.25) < 1e-12
    # schema 2: end-effector quantities are (n_t, 3), x y z (the five-bar's rows x, z)
    pos, vel = np.array(doc["ee_position_m"]), np.array(doc["ee_velocity_m_s"])
    rvel = np.array(doc["rigid_ee_velocity_m_s"])
    assert pos.shape == vel.shape == rvel.shape == (len(t), 3)
    assert doc["summary"]["ee_rows"] == ["x", "z"]
    assert not np.any(pos[:, 1]) and not np.any(vel[:, 1])
    pos, vel, rvel = pos[:, [0, 2]], vel[:, [0, 2]], rvel[:, [0, 2]]
    fd = (pos[2:] - pos[:-2]) / 4e-4
    assert np.abs(fd - vel[1:-1]).max() < 1e-3 * np.abs(vel).max()
    # at rest at the end of the motion, rigidly; the flexible one still vibrates
    assert np.abs(rvel[-1]).max() < 1e-12
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    sim = simulate_motion(NEPVPEngine(prrrp_briot2013()),
                          BangBang([0, 0], [0.02, 0.04], t0=0.0, tf=0.2), end=0.25,
                          step=2e-4)
    np.testing.assert_allclose(vel, sim.ee_velocity, rtol=0, atol=1e-14)
    np.testing.assert_allclose(doc["force_n"], sim.tau, rtol=0, atol=1e-12)
    np.testing.assert_allclose(doc["rigid_force_n"], sim.rigid_tau, rtol=0, atol=1e-12)
    np.testing.assert_allclose(doc["elastic"], sim.e, rtol=0, atol=1e-14)
    assert doc["elastic_names"] == list(sim.elastic_names)
    np.testing.assert_allclose(doc["actuated"][-1], [0.02, 0.04], atol=1e-15)
    assert doc["inputs"]["method"] == "rk4" and doc["inputs"]["initial"] == "static"
    assert doc["inputs"]["trajectory"]["motion_time"] == 0.2
    assert doc["summary"]["peak_force_n"] == pytest.approx(np.abs(sim.tau).max(axis=0))
    for f in ("simulation.json", "simulation.csv", "simulation.png", "summary.md"):
        assert (tmp_path / f).stat().st_size > 0
    head = (tmp_path / "simulation.csv").read_text().splitlines()[0].split(",")
    assert head[:3] == ["time_s", "q1_m", "q4_m"] and "e2_v1_m" in head


def test_simulate_old_spellings_end_and_duration(capsys):
    """The old five-bar command line (--duration: the bang-bang's time, --end: the
    window) gives one note and exactly the numbers of the new spelling."""
    new = _json(capsys, ["simulate", "prrrp-briot2013", "--motion-time", "0.2", "--to", "0.02",
                         "0.04", "--duration", "0.25", "--step", "1e-3", "--json"])
    assert main(["simulate", "prrrp-briot2013", "--duration", "0.2", "--to", "0.02", "0.04",
                 "--end", "0.25", "--step", "1e-3", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.strip().splitlines() == ["elastodyn: note: --end is now --duration, and the "
                                        "bang-bang's --duration is now --motion-time"]
    old = json.loads(out)
    for key in ("time_s", "force_n", "ee_velocity_m_s", "elastic"):
        assert old[key] == new[key]
    assert old["inputs"] == new["inputs"]


def test_controller_none_is_the_motion_driven_simulation(capsys):
    """--controller none says explicitly what the five-bar does anyway."""
    argv = ["simulate", "prrrp-briot2013", "--duration", "0.02", "--json"]
    a = _json(capsys, argv)
    b = _json(capsys, argv + ["--controller", "none"])
    assert a["force_n"] == b["force_n"] and a["inputs"] == b["inputs"]


def test_torques_five_bar_equals_the_simulation(capsys):
    """torques on the five-bar (new: inverse dynamics of a flexible tree robot): the
    actuator forces of the motion-driven simulation, the library's numbers."""
    doc = _json(capsys, ["torques", "prrrp-briot2013", "--motion-time", "0.1", "--to", "0.01",
                         "0.02", "--duration", "0.12", "--json"])
    from elastodyn.formulations.nepvp.simulation import simulate_motion
    from elastodyn.trajectories.bangbang import BangBang
    sim = simulate_motion(NEPVPEngine(prrrp_briot2013()),
                          BangBang([0, 0], [0.01, 0.02], t0=0.0, tf=0.1), end=0.12,
                          step=1e-3)
    assert doc["command"] == "torques" and doc["formulation"] == "nepvp"
    np.testing.assert_allclose(doc["force_n"], sim.tau, rtol=0, atol=1e-12)
    np.testing.assert_allclose(doc["rigid_force_n"], sim.rigid_tau, rtol=0, atol=1e-12)


@pytest.mark.parametrize("problem", ["inverse", "direct", "model"])
def test_generate_json_counts_and_file(capsys, tmp_path, problem):
    doc = _json(capsys, ["generate", "prrrp-briot2013", "--lang", "octave", "--problem",
                         problem, "--json", "--out", str(tmp_path)])
    ops = NEPVPEngine(prrrp_briot2013()).program(problem).ops()
    assert (doc["additions"], doc["multiplications"], doc["functions"]) == (
        ops.additions, ops.multiplications, ops.functions)
    assert doc["run"]["generation_time_s"] > 0
    assert doc["inputs"] == {"lang": "octave", "problem": problem}
    assert doc["model"] == {"elements": 1}
    name = f"prrrp_briot2013_{problem}.m"
    text = (tmp_path / name).read_text()
    assert text.startswith("function [") and f"{ops.additions} additions" in text
    assert doc["file"] == str(tmp_path / name)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".elastodyn-output", "generate.json", name, "summary.md"]
    saved = json.loads((tmp_path / "generate.json").read_text())
    assert {k: v for k, v in saved.items() if k != "run"} == {
        k: v for k, v in doc.items() if k != "run"}


def test_generate_five_bar_with_assumed_mode_beams(capsys):
    """--modes on the five-bar: NE-PVP beams of assumed modes (new), the counts of the
    library's program for that model."""
    doc = _json(capsys, ["generate", "prrrp-briot2013", "--modes", "3", "--json"])
    from elastodyn.description.files import load_description
    from elastodyn.formulations.registry import build_model
    ops = build_model(load_description("prrrp-briot2013"), "nepvp", modes=3).program(
        "inverse").ops()
    assert doc["model"] == {"modes": 3, "basis": "sine"}
    assert (doc["additions"], doc["multiplications"]) == (ops.additions, ops.multiplications)


@pytest.mark.parametrize("argv,name", [
    (["modes", "prrrp-briot2013", "--q4", "0.9"], "--q4"),
    (["modes", "prrrp-briot2013", "--elements", "9"], "--elements"),
    (["modes", "prrrp-briot2013", "--count", "7"], "--count"),
    (["modes", "prrrp-briot2013", "--at", "0", "0", "0.5"], "--at"),
    (["modes", "prrrp-briot2013", "--actuated", "0"], "--actuated"),
    (["modes", "prrrp-briot2013", "--joint-b", "clamped"], "--joint-b"),
    (["modes", "prrrp-briot2013", "--order", "quintic"], "--order"),
    (["simulate", "prrrp-briot2013", "--trajectory", "circle"], "--trajectory"),
    (["simulate", "prrrp-briot2013", "--controller", "pd"], "--controller"),
    (["simulate", "prrrp-briot2013", "--duration", "0"], "--duration"),
    (["simulate", "prrrp-briot2013", "--end", "-1"], "--end"),
    (["simulate", "prrrp-briot2013", "--end", "100"], "--end"),
    (["simulate", "prrrp-briot2013", "--step", "0.0003"], "--step"),
    (["simulate", "prrrp-briot2013", "--to", "0", "0.9"], "--to"),
    (["simulate", "prrrp-briot2013", "--to", "0.1"], "--to"),
    (["simulate", "prrrp-briot2013", "--from", "0", "0.9", "--to", "0", "0"], "--from"),
    (["simulate", "prrrp-briot2013", "--kp", "10"], "--kp"),
    (["simulate", "prrrp-briot2013", "--trajectory", "table", "--file", "/nonexistent.csv"],
     "--file"),
    (["simulate", "prrrp-briot2013", "--trajectory", "hold"], "--hold"),
    (["simulate", "prrrp-briot2013", "--trajectory", "bang-bang", "--space", "task"],
     "--space"),
    (["map", "prrrp-briot2013", "--path", "circle"], "--path"),
    (["simulate", "prrrp-briot2013", "--rayleigh", "0", "1e-4"], "--rayleigh"),
    (["simulate", "prrrp-briot2013", "--to", "0", "nan"], "--to"),
    (["simulate", "prrrp-briot2013", "--method", "euler"], "--method"),
    (["simulate", "prrrp-briot2013", "--initial", "rest"], "--initial"),
    (["simulate", "prrrp-briot2013", "--elements", "0"], "--elements"),
    (["simulate", "delta-kuo2016", "--to", "0", "0.1"], "--to"),
    (["simulate", "delta-kuo2016", "--end", "1e4"], "--end"),
    (["generate", "prrrp-briot2013", "--lang", "fortran"], "--lang"),
    (["generate", "prrrp-briot2013", "--problem", "closure"], "--problem"),
    (["generate", "delta-kuo2016"], "ROBOT"),
    (["generate", "delta-kuo2016"], "--formulation explicit"),
    (["torques", "prrrp-briot2013", "--trajectory", "circle"], "--trajectory"),
    (["torques", "prrrp-briot2013", "--formulation", "amm"], "--formulation"),
])
def test_bad_input_one_line_exit_2(capsys, argv, name):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err, err


def test_generate_arm_json_and_python_file(capsys, tmp_path):
    """generate arm: counts of the symbolic N-link model; the written Python file runs
    and returns the compiled numbers of the preset (arm-yu2019: numeric parameters)."""
    doc = _json(capsys, ["generate", "arm", "--links", "3", "--modes", "2", "--json"])
    assert doc["inputs"]["links"] == 3 and doc["inputs"]["symbolic_parameters"] is True
    assert doc["model"] == {"modes": 2, "basis": "sine"}
    assert "model_generation_time_s" in doc["run"]
    assert doc["additions"] > 0 and doc["multiplications"] > 0 and doc["functions"] == 12
    doc = _json(capsys, ["generate", "arm-yu2019", "--lang", "python", "--json", "--out",
                         str(tmp_path)])
    ns: dict = {}
    exec((tmp_path / "amm_arm_yu2019.py").read_text(), ns)
    from elastodyn.description.arm import arm_yu2019
    from elastodyn.formulations.amm.engine import AMMEngine
    q = [0.3, -0.4, 1e-3, -2e-4, 5e-4, 1e-4]
    qd = [0.1, -0.2, 0.01, 0.02, -0.01, 0.0]
    M, H, N, F, B, c = ns["amm_arm_yu2019"](q, qd, [1.0, 0.5])
    ref = AMMEngine(arm_yu2019()).dynamics(q, qd, [1.0, 0.5])
    np.testing.assert_allclose(M, ref["M"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.ravel(c), ref["c"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("argv,name", [
    (["generate", "arm", "--links", "0"], "--links"),
    (["generate", "arm", "--links", "13"], "--links"),
    (["generate", "arm", "--modes", "9"], "--modes"),
    (["generate", "arm", "--basis", "legendre"], "--basis"),
    (["generate", "arm", "--problem", "inverse"], "--problem"),
    (["generate", "arm", "--joint-b", "spherical"], "--joint-b"),
    (["generate", "arm", "--joint-d", "clamped"], "--joint-d"),
    (["generate", "arm-yu2019", "--links", "3"], "--links"),
    (["generate", "prrrp-briot2013", "--modes", "13"], "--modes"),
    (["generate", "prrrp-briot2013", "--modes", "3", "--elements", "2"], "--elements"),
    (["modes", "arm-yu2019", "--elements", "2"], "--elements"),
    (["modes", "arm-yu2019", "--at", "2", "0"], "--at"),
    (["simulate", "arm-yu2019", "--radius", "2", "--duration", "0.1"], "--radius"),
    (["simulate", "arm-yu2019", "--centre", "0.6", "0.3", "0.1"], "--centre"),
    (["simulate", "arm-yu2019", "--offset", "0", "0", "0.1"], "--offset"),
    (["simulate", "arm-yu2019", "--scenario", "circle", "--trajectory", "hold"],
     "--trajectory"),
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
    assert len(t) == 501 and doc["inputs"]["trajectory"]["law"] == "circle"
    assert doc["inputs"]["controller"] == "pd" and doc["inputs"]["kp"] == 125.0
    ref = np.array(doc["theta_ref_rad"])                       # (n_samples, 2)
    l1, l2 = 0.475, 0.435
    x = l1 * np.cos(ref[:, 0]) + l2 * np.cos(ref[:, 0] + ref[:, 1])
    y = l1 * np.sin(ref[:, 0]) + l2 * np.sin(ref[:, 0] + ref[:, 1])
    np.testing.assert_allclose(x, 0.67 + 0.1 * np.cos(0.2 * np.pi * t), atol=1e-12)
    np.testing.assert_allclose(y, 0.34 + 0.1 * np.sin(0.2 * np.pi * t), atol=1e-12)
    # (n_samples, links x (x, y)), the components named in the CSV
    assert np.array(doc["tip_acceleration_m_s2"]).shape == (501, 4)
    assert np.array(doc["torque_nm"]).shape == (501, 2)
    for f in ("simulation.json", "simulation.csv", "joints.png", "tip_acceleration.png",
              "summary.md"):
        assert (tmp_path / f).stat().st_size > 0
    head = (tmp_path / "simulation.csv").read_text().splitlines()[0].split(",")
    assert head[head.index("tip1_ax_m_s2"):head.index("tip1_ax_m_s2") + 4] == [
        "tip1_ax_m_s2", "tip1_ay_m_s2", "tip2_ax_m_s2", "tip2_ay_m_s2"]
    assert main(["simulate", "arm-yu2019", "--free-vibration", "--duration", "2",
                 "--step", "0.002", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == "elastodyn: note: --free-vibration is now --scenario free-vibration"
    doc = json.loads(out)
    assert doc["inputs"]["trajectory"]["law"] == "hold"
    s = doc["summary"]
    assert len(s["omega_spectrum_rad_s"]) == 2 and len(s["omega_linearized_rad_s"]) == 2
    assert 0 < s["omega_linearized_rad_s"][0] < s["omega_linearized_rad_s"][1]
    # the spectrum's peaks are the linearized loop's damped frequencies to the
    # resolution of a 2 s window (2 pi / 2 s = 3.1 rad/s)
    np.testing.assert_allclose(s["omega_spectrum_rad_s"], s["omega_linearized_rad_s"],
                               atol=2 * np.pi / 2.0)


def test_modes_arm_two_formulations_agree(capsys):
    """modes on an arm (new): the assumed-modes model and NE-PVP with the same assumed-
    mode beams are independent formulations of the same robot; their frequencies agree
    to the finite-difference linearization's round-off (~1e-10 relative, formulations/
    base.py), asserted at 1e-8."""
    amm = _json(capsys, ["modes", "arm-yu2019", "--json"])
    tree = _json(capsys, ["modes", "arm-yu2019", "--formulation", "nepvp", "--modes", "2",
                          "--basis", "sine", "--json"])
    assert (amm["formulation"], tree["formulation"]) == ("amm", "nepvp")
    assert amm["dof"] == tree["dof"] == 4
    np.testing.assert_allclose(tree["omega_rad_s"], amm["omega_rad_s"], rtol=1e-8)


def test_convergence_echoes_the_reference_it_linearized_about(capsys):
    """convergence --preload (the deflected equilibrium under gravity) and without (the
    linear structure) give different numbers for an arm: the inputs say which, as
    those of modes and map do."""
    docs = {p: _json(capsys, ["convergence", "arm-yu2019", "--max-modes", "2", "--count",
                              "1", "--json"] + (["--preload"] if p else []))
            for p in (False, True)}
    assert docs[False]["frequencies_hz"] != docs[True]["frequencies_hz"]
    assert docs[False]["inputs"]["preload"] is False
    assert docs[True]["inputs"]["preload"] is True
