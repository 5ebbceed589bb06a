"""Command line of the flexible Delta (KED): modes, map, convergence, simulate."""
import json

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.formulations.ked_delta import KEDDeltaModel


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_modes_json_matches_library(capsys):
    doc = _json(capsys, ["modes", "delta-kuo2016", "--at", "0.1", "0", "0.5", "--json",
                         "--joint-d", "clamped", "--count", "6"])
    m = KEDDeltaModel(flexible_delta_kuo2016(), joint_d="clamped")
    ref = m.modes([0.1, 0.0, 0.5], 6)
    assert doc["dof"] == 30
    np.testing.assert_allclose(doc["omega_rad_s"], ref.omega_rad_s, rtol=1e-12)
    np.testing.assert_allclose(doc["frequencies_hz"], ref.frequencies_hz, rtol=1e-12)
    assert doc["mechanism_modes"] == 0


def test_modes_reports_mechanisms(capsys):
    doc = _json(capsys, ["modes", "delta-kuo2016", "--joint-b", "spherical", "--joint-d",
                         "spherical", "--no-preload", "--json", "--count", "7"])
    assert doc["mechanism_modes"] == 6
    assert doc["zero_frequency_modes"] == [1, 2, 3, 4, 5, 6]
    assert doc["frequencies_hz"][6] > 0.1


def test_map_json_and_files(capsys, tmp_path):
    doc = _json(capsys, ["map", "delta-kuo2016", "--path", "circle", "--points", "6",
                         "--count", "3", "--json", "--out", str(tmp_path)])
    assert doc["angle_deg"] == [0.0, 60.0, 120.0, 180.0, 240.0, 300.0]
    om = np.array(doc["omega_rad_s"])
    assert om.shape == (6, 3)
    # 120-degree periodicity of the 3-leg robot (round-off)
    np.testing.assert_allclose(om[2], om[0], rtol=1e-8)  # eigen round-off ~1e-10
    for f in ("map.json", "map.csv", "map.png"):
        assert (tmp_path / f).stat().st_size > 0


def test_convergence_json(capsys):
    doc = _json(capsys, ["convergence", "delta-kuo2016", "--at", "0.1", "0", "0.5",
                         "--max-elements", "2", "--order", "quintic", "--count", "4",
                         "--json"])
    assert doc["elements"] == [1, 2] and doc["order"] == "quintic"
    f = np.array(doc["frequencies_hz"])
    assert np.all(f[1] <= f[0] * (1 + 1e-9))


def test_simulate_ked_json_and_report(capsys, tmp_path):
    doc = _json(capsys, ["simulate", "delta-kuo2016", "--trajectory", "circle", "--periods",
                         "0.05", "--step", "0.001", "--json", "--out", str(tmp_path)])
    assert doc["model"] == "ked" and doc["steps"] == 50
    for key in ("max_position_variation_m", "final_position_variation_m",
                "max_attitude_variation_deg", "final_attitude_variation_deg"):
        assert len(doc[key]) == 3
    assert doc["validity_warning"] is None
    # the static start: the platform sags along +Z by ~2.6 cm at (0.1, 0, 0.5)
    assert 0.02 < doc["final_position_variation_m"][2] < 0.03
    for f in ("simulation.json", "simulation.csv", "summary.md", "torques.png",
              "position_variation.png", "attitude_variation.png", "midspan.png"):
        assert (tmp_path / f).stat().st_size > 0
    header = (tmp_path / "simulation.csv").read_text().splitlines()[0].split(",")
    assert "lower3_mid_w_m" in header and len(header) == 1 + 3 + 6 + 6 + 24


def test_simulate_warns_on_stderr_and_in_json(capsys):
    doc = _json(capsys, ["simulate", "delta-kuo2016", "--trajectory", "inverted-u",
                         "--step", "0.004", "--json"])
    assert doc["validity_warning"]
    assert "small-deformation" in capsys.readouterr().err or doc["validity_warning"]


def test_simulate_with_controller_stays_rigid(capsys):
    doc = _json(capsys, ["simulate", "delta-kuo2016", "--controller", "pd", "--duration",
                         "0.05", "--json"])
    assert "position_error_m" in doc or "position_error" in json.dumps(doc)


@pytest.mark.parametrize("argv,name", [
    (["modes", "delta-kuo2016", "--elements", "0"], "--elements"),
    (["modes", "delta-kuo2016", "--elements", "1000"], "--elements"),
    (["modes", "delta-kuo2016", "--order", "linear"], "--order"),
    (["modes", "delta-kuo2016", "--joint-d", "ball"], "--joint-d"),
    (["modes", "delta-kuo2016", "--count", "0"], "--count"),
    (["modes", "delta-kuo2016", "--at", "0", "0", "nan"], "--at"),
    (["modes", "delta-kuo2016", "--at", "0", "0", "-0.5"], "--at"),
    (["modes", "delta-asadi2020"], "ROBOT"),
    (["map", "delta-kuo2016", "--path", "square"], "--path"),
    (["map", "delta-kuo2016", "--points", "0"], "--points"),
    (["map", "delta-kuo2016", "--radius", "1.5"], "--centre/--radius"),
    (["convergence", "delta-kuo2016", "--max-elements", "100"], "--max-elements"),
    (["simulate", "delta-kuo2016", "--periods", "2", "--trajectory", "inverted-u"], "--periods"),
    (["simulate", "delta-kuo2016", "--step", "0.003", "--periods", "1"], "--step"),
    (["simulate", "delta-kuo2016", "--step", "1e-9"], "--step"),
    (["simulate", "delta-kuo2016", "--initial", "rest", "--periods", "0.01"], "--initial"),
    (["simulate", "delta-kuo2016", "--method", "euler", "--periods", "0.01"], "--method"),
    (["simulate", "delta-kuo2016", "--rayleigh", "-1", "0", "--periods", "0.01"], "--rayleigh"),
    (["simulate", "delta-kuo2016", "--controller", "pd", "--joint-b", "clamped"], "--joint-b"),
])
def test_bad_input_one_line_exit_2(capsys, argv, name):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err, err
