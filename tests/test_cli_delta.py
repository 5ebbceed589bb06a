"""Command line of the rigid Delta: `torques` and `simulate`."""
import csv
import json
import math

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.delta import delta_kuo2016
from elastodyn.formulations import ExplicitDeltaModel


def _json(capsys, *args):
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_torques_kuo_default_is_the_paper_circle(capsys):
    doc = _json(capsys, "torques", "delta-kuo2016", "--json", "--step", "0.01")
    assert doc["period_s"] == pytest.approx(1.0)
    assert doc["formulation"] == "multipliers"
    t = np.array(doc["time_s"])
    assert t[0] == 0.0 and t[-1] == pytest.approx(1.0) and len(t) == 101
    tau = np.array(doc["torque_nm"])
    assert tau.shape == (3, 101)
    lam, ten = np.array(doc["multipliers_n_per_m"]), np.array(doc["lower_link_tension_n"])
    assert lam.shape == ten.shape == (3, 101)
    assert np.allclose(ten, -2 * 0.6 * lam)          # tension = -2 lambda L2
    # the circle of Kuo 5.3: centre (0, 0, 0.5), radius 0.1, starts at (0.1, 0, 0.5)
    pos = np.array(doc["position_m"])
    assert np.allclose(pos[:, 0], [0.1, 0.0, 0.5])
    assert np.allclose(np.hypot(pos[0], pos[1]), 0.1) and np.allclose(pos[2], 0.5)
    # independent check: the explicit model gives the same torques at the first sample
    s = ExplicitDeltaModel(delta_kuo2016())
    v0 = np.array([0.0, 0.1 * 2 * math.pi, 0.0])
    a0 = np.array([-0.1 * (2 * math.pi) ** 2, 0.0, 0.0])
    assert np.allclose(tau[:, 0], s.torque_point(pos[:, 0], v0, a0), atol=1e-9)


def test_torques_asadi_default_is_the_paper_circle(capsys):
    doc = _json(capsys, "torques", "delta-asadi2020", "--json", "--step", "0.05")
    assert doc["period_s"] == pytest.approx(2 * math.pi)
    assert doc["formulation"] == "explicit" and "multipliers_n_per_m" not in doc
    pos = np.array(doc["position_m"])
    assert np.allclose(pos[:, 0], [0.25, 0.0, 0.45])
    assert len(doc["torque_nm"]) == 3


def test_torques_inverted_u_writes_files(tmp_path, capsys):
    out = tmp_path / "tq"
    assert main(["torques", "delta-kuo2016", "--trajectory", "inverted-u", "--step", "0.01",
                 "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["torques.csv", "torques.json", "torques.png"]
    doc = json.loads((out / "torques.json").read_text())
    assert "period_s" not in doc and doc["time_s"][-1] == pytest.approx(0.8)
    rows = list(csv.reader((out / "torques.csv").open()))
    assert rows[0][:4] == ["time_s", "x_m", "y_m", "z_m"] and len(rows) == 82
    # the path starts at rest at (-0.08, -0.02, 0.5) and deepens by 0.2 m (Z down)
    z = np.array(doc["position_m"][2])
    assert z[0] == pytest.approx(0.5) and z.max() == pytest.approx(0.7)


def test_torques_trajectory_options(capsys):
    doc = _json(capsys, "torques", "delta-kuo2016", "--json", "--centre", "0", "-0.05", "0.55",
                "--radius", "0.05", "--period", "0.5", "--step", "0.01",
                "--formulation", "explicit")
    assert doc["period_s"] == 0.5 and doc["formulation"] == "explicit"
    assert np.allclose(np.array(doc["position_m"])[:, 0], [0.05, -0.05, 0.55])


@pytest.mark.parametrize("args, name", [
    (["torques", "delta-kuo2016", "--centre", "0", "0", "1.5"], "unreachable; leg 1"),
    (["torques", "nope"], "invalid ROBOT"),
    (["torques", "delta-kuo2016", "--trajectory", "line"], "--trajectory"),
    (["torques", "delta-kuo2016", "--trajectory", "inverted-u", "--radius", "1"], "--radius"),
    (["torques", "delta-kuo2016", "--radius", "-0.1"], "radius"),
    (["torques", "delta-kuo2016", "--step", "x"], "--step"),
    (["simulate", "delta-kuo2016", "--controller", "lqr"], "--controller"),
    (["simulate", "delta-kuo2016", "--kp", "-1e-3"], "--kp"),
    (["simulate", "delta-kuo2016", "--controller", "computed-torque",
      "--gravity-compensation"], "--gravity-compensation"),
    (["torques", "delta-kuo2016", "--duration", "1e4"], "--duration"),      # no hang
    (["simulate", "delta-kuo2016", "--duration", "1e4"], "--duration"),
    (["torques", "delta-kuo2016", "--period", "1e-300"], "--period"),
    (["torques", "delta-kuo2016", "--radius", "1e300"], "leaves the workspace"),
    (["torques", "delta-kuo2016", "--centre", "0", "0", "-0.5"], "above the base"),
    (["simulate", "delta-kuo2016", "--offset", "0", "0", "nan"], "--offset"),
    (["simulate", "delta-kuo2016", "--offset", "1", "1", "1"], "--offset"),
    (["simulate", "delta-kuo2016", "--kd", "1e12", "--duration", "0.1"], "--kp/--kd"),
])
def test_bad_input_one_line_exit_2(args, name, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert name in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_simulate_writes_csv_and_plot(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["simulate", "delta-kuo2016", "--controller", "computed-torque",
                 "--trajectory", "inverted-u", "--offset", "0", "0", "-1e-3", "--json",
                 "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(p.name for p in out.iterdir()) == ["tracking.csv", "tracking.json",
                                                     "tracking.png"]
    assert doc["controller"] == "computed-torque" and doc["kp"] == 400.0
    # the 1 mm initial error decays with the double pole at -20 rad/s: e^-16 after 0.8 s
    assert doc["max_position_error_m"] == pytest.approx(1e-3, rel=1e-6)
    assert doc["final_position_error_m"] < 1e-6
