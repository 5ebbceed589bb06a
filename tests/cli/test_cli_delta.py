"""Command line of the rigid Delta: `torques` and `simulate`.

Layout (CHANGELOG, issue 13): time series are (n_samples, n_components), headline values
under ``summary``, the controller's gains under ``inputs``."""
import csv
import json
import math

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.delta import delta_kuo2016
from elastodyn.formulations import ExplicitDeltaEngine


def _json(capsys, *args):
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_torques_kuo_default_is_the_paper_circle(capsys):
    doc = _json(capsys, "torques", "delta-kuo2016", "--json", "--step", "0.01")
    assert doc["summary"]["period_s"] == pytest.approx(1.0)
    assert doc["formulation"] == "multipliers"
    t = np.array(doc["time_s"])
    assert t[0] == 0.0 and t[-1] == pytest.approx(1.0) and len(t) == 101
    tau = np.array(doc["torque_nm"])
    assert tau.shape == (101, 3)
    lam, ten = np.array(doc["multipliers_n_per_m"]), np.array(doc["lower_link_tension_n"])
    assert lam.shape == ten.shape == (101, 3)
    assert np.allclose(ten, -2 * 0.6 * lam)          # tension = -2 lambda L2
    # the circle of Kuo 5.3: centre (0, 0, 0.5), radius 0.1, starts at (0.1, 0, 0.5)
    pos = np.array(doc["ee_position_m"])
    assert pos.shape == (101, 3)
    assert np.allclose(pos[0], [0.1, 0.0, 0.5])
    assert np.allclose(np.hypot(pos[:, 0], pos[:, 1]), 0.1) and np.allclose(pos[:, 2], 0.5)
    assert doc["summary"]["peak_torque_nm"] == pytest.approx(np.abs(tau).max(axis=0))
    # independent check: the explicit model gives the same torques at the first sample
    s = ExplicitDeltaEngine(delta_kuo2016())
    v0 = np.array([0.0, 0.1 * 2 * math.pi, 0.0])
    a0 = np.array([-0.1 * (2 * math.pi) ** 2, 0.0, 0.0])
    assert np.allclose(tau[0], s.torque_point(pos[0], v0, a0), atol=1e-9)


def test_torques_asadi_default_is_the_paper_circle(capsys):
    doc = _json(capsys, "torques", "delta-asadi2020", "--json", "--step", "0.05")
    assert doc["summary"]["period_s"] == pytest.approx(2 * math.pi)
    assert doc["formulation"] == "explicit" and "multipliers_n_per_m" not in doc
    pos = np.array(doc["ee_position_m"])
    assert np.allclose(pos[0], [0.25, 0.0, 0.45])
    assert np.array(doc["torque_nm"]).shape == (len(doc["time_s"]), 3)


def test_torques_inverted_u_writes_files(tmp_path, capsys):
    out = tmp_path / "tq"
    assert main(["torques", "delta-kuo2016", "--trajectory", "inverted-u", "--step", "0.01",
                 "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [".elastodyn-output", "summary.md", "torques.csv", "torques.json",
                     "torques.png"]
    doc = json.loads((out / "torques.json").read_text())
    assert "period_s" not in doc["summary"] and doc["time_s"][-1] == pytest.approx(0.8)
    assert doc["inputs"]["trajectory"]["law"] == "inverted-u"
    rows = list(csv.reader((out / "torques.csv").open()))
    assert rows[0][:4] == ["time_s", "q1_rad", "q2_rad", "q3_rad"] and len(rows) == 82
    assert rows[0][7:10] == ["ee_x_m", "ee_y_m", "ee_z_m"]
    # the CSV holds the JSON's numbers (10 significant digits)
    np.testing.assert_allclose(np.array(rows[1:], float)[:, 7:10], doc["ee_position_m"],
                               rtol=1e-9, atol=1e-12)
    # the path starts at rest at (-0.08, -0.02, 0.5) and deepens by 0.2 m (Z down)
    z = np.array(doc["ee_position_m"])[:, 2]
    assert z[0] == pytest.approx(0.5) and z.max() == pytest.approx(0.7)


def test_torques_trajectory_options(capsys):
    doc = _json(capsys, "torques", "delta-kuo2016", "--json", "--centre", "0", "-0.05", "0.55",
                "--radius", "0.05", "--period", "0.5", "--step", "0.01",
                "--formulation", "explicit")
    assert doc["summary"]["period_s"] == 0.5 and doc["formulation"] == "explicit"
    assert np.allclose(np.array(doc["ee_position_m"])[0], [0.05, -0.05, 0.55])
    assert doc["inputs"]["trajectory"] == {"law": "circle", "space": "task",
                                           "centre": [0.0, -0.05, 0.55], "radius": 0.05,
                                           "period": 0.5}


EXPLICIT = ["simulate", "delta-kuo2016", "--formulation", "explicit"]
"""The rigid Delta of Kuo's robot under joint control (the old `simulate delta-kuo2016
--controller ...`: a controller no longer switches the flexible robot to a rigid one)."""


@pytest.mark.parametrize("args, name", [
    (["torques", "delta-kuo2016", "--centre", "0", "0", "1.5"], "unreachable; leg 1"),
    (["torques", "delta-kuo2016", "--centre", "0", "0", "1.5"], "--centre"),
    (["torques", "nope"], "invalid ROBOT"),
    (["torques", "delta-kuo2016", "--trajectory", "line"], "--trajectory"),
    (["torques", "delta-kuo2016", "--trajectory", "inverted-u", "--radius", "1"], "--radius"),
    (["torques", "delta-kuo2016", "--trajectory", "inverted-u", "--travel", "0.9", "0", "0"],
     "--travel"),
    (["torques", "delta-kuo2016", "--radius", "-0.1"], "radius"),
    (["torques", "delta-kuo2016", "--step", "x"], "--step"),
    (["torques", "delta-kuo2016", "--initial", "zero"], "--initial"),
    (["torques", "delta-kuo2016", "--elements", "2"], "--elements"),
    (EXPLICIT + ["--controller", "lqr"], "--controller"),
    (EXPLICIT + ["--kp", "-1e-3"], "--kp"),
    (EXPLICIT + ["--controller", "computed-torque", "--gravity-compensation"],
     "--gravity-compensation"),
    (EXPLICIT + ["--controller", "none"], "--controller"),
    (EXPLICIT + ["--joint-b", "clamped"], "--joint-b"),
    (EXPLICIT + ["--rayleigh", "0", "1e-4"], "--rayleigh"),
    (["torques", "delta-kuo2016", "--duration", "1e4"], "--duration"),      # no hang
    (EXPLICIT + ["--duration", "1e4"], "--duration"),
    (["torques", "delta-kuo2016", "--period", "1e-300"], "--period"),
    (["torques", "delta-kuo2016", "--radius", "1e300"], "leaves the workspace"),
    (["torques", "delta-kuo2016", "--centre", "0", "0", "-0.5"], "above the base"),
    (EXPLICIT + ["--offset", "0", "0", "nan"], "--offset"),
    (EXPLICIT + ["--offset", "1", "1", "1"], "--offset"),
    (["simulate", "delta-asadi2020", "--radius", "1"], "--radius"),
    # a Delta follows its platform's path: a joint-space motion would be read as positions
    (["torques", "delta-asadi2020", "--trajectory", "rest-to-rest", "--to", "0", "0", "0"],
     "--trajectory"),
    (EXPLICIT + ["--trajectory", "bang-bang", "--to", "0", "0", "0"], "--trajectory"),
])
def test_bad_input_one_line_exit_2(args, name, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert name in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("option", [["--kp", "100"], ["--kd", "5"], ["--controller", "pd"],
                                    ["--controller", "computed-torque"],
                                    ["--gravity-compensation"], ["--offset", "0", "0", "1e-3"]])
def test_closed_loop_options_refused_on_the_flexible_delta(option, capsys):
    """delta-kuo2016 is modelled by KED, which prescribes the actuated motion: a closed-
    loop option is refused by name, telling how to get the rigid Delta under control
    (it used to switch silently to a rigid PD simulation)."""
    assert main(["simulate", "delta-kuo2016", *option]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"elastodyn: error: invalid "
                                                         f"{option[0]}:")
    assert "add --formulation explicit" in err and "ked" in err


def test_unstable_loop_is_a_failed_run(capsys):
    """Gains that throw the platform out of the workspace: a run that fails (exit 1),
    one line naming the gains, no output set."""
    assert main(EXPLICIT + ["--kd", "1e12", "--duration", "0.1"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the run failed" in err and "--kp/--kd" in err


def test_simulate_writes_csv_and_plot(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(EXPLICIT + ["--controller", "computed-torque", "--trajectory", "inverted-u",
                            "--offset", "0", "0", "-1e-3", "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(p.name for p in out.iterdir()) == [
        ".elastodyn-output", "simulation.csv", "simulation.json", "summary.md",
        "tracking.png"]
    assert doc["formulation"] == "explicit"
    assert doc["inputs"]["controller"] == "computed-torque" and doc["inputs"]["kp"] == 400.0
    assert doc["inputs"]["initial_offset_m"] == [0.0, 0.0, -1e-3]
    # the 1 mm initial error decays with the double pole at -20 rad/s: e^-16 after 0.8 s
    s = doc["summary"]
    assert s["max_position_error_m"] == pytest.approx(1e-3, rel=1e-6)
    assert s["final_position_error_m"] < 1e-6
    e = np.linalg.norm(doc["position_error_m"], axis=1)     # (n_samples, 3)
    assert e[0] == pytest.approx(1e-3, rel=1e-6) and e[-1] == s["final_position_error_m"]


def test_asadi_default_simulation_is_the_paper_pd(capsys):
    """A rigid preset runs its paper's scenario: Asadi's circle under the joint PD
    (200 N m/rad, 10 N m s/rad); without an initial offset the error starts at zero."""
    doc = _json(capsys, "simulate", "delta-asadi2020", "--duration", "0.2", "--json")
    assert doc["formulation"] == "explicit"
    assert (doc["inputs"]["controller"], doc["inputs"]["kp"], doc["inputs"]["kd"]) == (
        "pd", 200.0, 10.0)
    pos, ref = np.array(doc["ee_position_m"]), np.array(doc["reference_position_m"])
    assert pos.shape == ref.shape == (21, 3)
    np.testing.assert_allclose(ref[0], [0.25, 0.0, 0.45], atol=1e-12)
    np.testing.assert_allclose(np.array(doc["position_error_m"]), pos - ref, atol=1e-12)
