"""Command line of the flexible Delta (KED): modes, map, convergence, simulate.

Layout (CHANGELOG, issue 13): model options under ``model``, the pose and the
description overrides under ``inputs``, headline values under ``summary``."""
import json

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.formulations.ked.engine import KEDEngine


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_modes_json_matches_library(capsys):
    doc = _json(capsys, ["modes", "delta-kuo2016", "--at", "0.1", "0", "0.5", "--json",
                         "--joint-d", "clamped", "--count", "6"])
    m = KEDEngine(flexible_delta_kuo2016(), joint_d="clamped")
    ref = m.modes([0.1, 0.0, 0.5], 6)
    assert doc["dof"] == 30
    # The verb solves the eigenproblem of (M, (K + K^T)/2) (analysis.modes), the library
    # call of (M, K): K is symmetric to 3e-17 relative, yet the lowest eigenvalues of
    # this stiff assembly move by up to 2.6e-11 relative (measured; the deflected
    # reference's tangent carries the Hessian's round-off, below 1e-9 of its entries);
    # 1e-8 leaves margin and still catches any change of the model (a different mesh,
    # preload or reference: > 1e-4).
    np.testing.assert_allclose(doc["omega_rad_s"], ref.omega_rad_s, rtol=1e-8)
    np.testing.assert_allclose(doc["frequencies_hz"], ref.frequencies_hz, rtol=1e-8)
    assert doc["mechanism_modes"] == 0
    assert doc["inputs"]["position_m"] == [0.1, 0.0, 0.5]
    assert doc["inputs"]["set"] == ["joints.d=clamped"]
    assert doc["model"] == {"elements": 1, "order": "cubic", "preload": True,
                            "rayleigh": [0.0, 0.0], "reference": "deflected"}


def test_modes_reports_mechanisms(capsys):
    doc = _json(capsys, ["modes", "delta-kuo2016", "--joint-b", "spherical", "--joint-d",
                         "spherical", "--no-preload", "--json", "--count", "7"])
    assert doc["mechanism_modes"] == 6
    assert doc["zero_frequency_modes"] == [1, 2, 3, 4, 5, 6]
    assert doc["frequencies_hz"][6] > 0.1
    assert doc["model"]["preload"] is False and doc["inputs"]["preload"] is False


def test_no_preload_is_the_linear_structure(capsys):
    """--no-preload takes the geometric stiffness of the static link forces out: the
    library model built with preload=False (never silently ignored)."""
    doc = _json(capsys, ["modes", "delta-kuo2016", "--no-preload", "--count", "4", "--json"])
    ref = KEDEngine(flexible_delta_kuo2016(), preload=False).modes([0.1, 0.0, 0.5], 4)
    # 1e-9: the symmetrized eigen-solve (test_modes_json_matches_library)
    np.testing.assert_allclose(doc["omega_rad_s"], ref.omega_rad_s, rtol=1e-9)
    with_preload = KEDEngine(flexible_delta_kuo2016()).modes([0.1, 0.0, 0.5], 4)
    assert np.abs(np.array(doc["omega_rad_s"]) / with_preload.omega_rad_s - 1).max() > 1e-4


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
    assert doc["elements"] == [1, 2] and doc["model"]["order"] == "quintic"
    # the pose echoed after the inverse then forward kinematics of the first mesh
    assert doc["inputs"]["position_m"] == pytest.approx([0.1, 0.0, 0.5], abs=1e-12)
    f = np.array(doc["frequencies_hz"])
    assert f.shape == (2, 4)
    # Rayleigh-Ritz: refining the mesh does not raise a frequency, up to the eigen-
    # solver's round-off. Two quintic elements give cond(K) ~ 4.6e8, so a frequency
    # carries ~ eps cond(K) / 2 ~ 5e-8 relative round-off (measured: moving the pose by
    # 1e-15 m moves f1 by 1.2e-8); the quintic f1 has converged to that level at n = 1.
    assert np.all(f[1] <= f[0] * (1 + 1e-7))


def test_simulate_ked_json_and_report(capsys, tmp_path):
    doc = _json(capsys, ["simulate", "delta-kuo2016", "--trajectory", "circle", "--periods",
                         "0.05", "--step", "0.001", "--json", "--out", str(tmp_path)])
    s = doc["summary"]
    assert doc["formulation"] == "ked" and s["steps"] == 50
    for key in ("max_ee_deviation_xyz_m", "final_ee_deviation_m",
                "max_attitude_variation_deg", "final_attitude_variation_deg"):
        assert len(s[key]) == 3
    assert s["validity_warning"] is None and doc["warnings"] == []
    # the static start: the platform sags along +Z by ~2.6 cm at (0.1, 0, 0.5)
    assert 0.02 < s["final_ee_deviation_m"][2] < 0.03
    dz = np.array(doc["ee_position_m"]) - np.array(doc["rigid_ee_position_m"])  # (n_t, 3)
    assert dz.shape == (51, 3)
    np.testing.assert_allclose(s["final_ee_deviation_m"], dz[-1], rtol=1e-12, atol=1e-15)
    for f in ("simulation.json", "simulation.csv", "summary.md", "torques.png",
              "position_variation.png", "attitude_variation.png", "midspan.png"):
        assert (tmp_path / f).stat().st_size > 0
    header = (tmp_path / "simulation.csv").read_text().splitlines()[0].split(",")
    # time, actuated 3, efforts 3 + 3 rigid, end-effector 3 + 3 rigid, the elastic
    # coordinates (dof), the platform's attitude 3, the midspans 24 (schema 2)
    assert "lower3_mid_w_m" in header and "q1_torque_nm" in header
    assert len(header) == 1 + 3 + 6 + 6 + s["dof"] + 3 + 24


def test_simulate_warns_on_stderr_and_in_json(capsys):
    assert main(["simulate", "delta-kuo2016", "--trajectory", "inverted-u", "--step",
                 "0.004", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    warning = doc["summary"]["validity_warning"]
    assert warning and doc["warnings"] == [warning]
    # the library's warning, one line on standard error (the JSON goes to stdout)
    assert err.strip() == f"elastodyn: warning: {warning}"


def test_simulate_with_controller_needs_the_rigid_formulation(capsys):
    """A controller on delta-kuo2016 is refused (KED prescribes the motion); with
    --formulation explicit it is the library's PD tracking of Kuo's circle by the
    explicit model (the same numbers, bit for bit)."""
    assert main(["simulate", "delta-kuo2016", "--controller", "pd", "--duration",
                 "0.05"]) == 2
    assert "add --formulation explicit" in capsys.readouterr().err
    doc = _json(capsys, ["simulate", "delta-kuo2016", "--formulation", "explicit",
                         "--controller", "pd", "--duration", "0.05", "--json"])
    from elastodyn.formulations.rigid_delta.simulation import JointPD, simulate_tracking
    from elastodyn.description.delta import delta_kuo2016
    from elastodyn.formulations import ExplicitDeltaEngine
    from elastodyn.trajectories import Circle
    ref = simulate_tracking(ExplicitDeltaEngine(delta_kuo2016()), Circle.kuo2016(),
                            JointPD(200.0, 10.0), duration=0.05, step=0.01,
                            initial_offset=(0.0, 0.0, 0.0))
    assert doc["formulation"] == "explicit" and doc["inputs"]["kp"] == 200.0
    np.testing.assert_array_equal(doc["time_s"], ref.time)
    np.testing.assert_array_equal(doc["position_error_m"], ref.position_error)
    np.testing.assert_array_equal(doc["torque_nm"], ref.torque)


@pytest.mark.parametrize("argv,name", [
    (["modes", "delta-kuo2016", "--elements", "0"], "--elements"),
    (["modes", "delta-kuo2016", "--elements", "1000"], "--elements"),
    (["modes", "delta-kuo2016", "--order", "linear"], "--order"),
    (["modes", "delta-kuo2016", "--joint-d", "ball"], "--joint-d"),
    (["modes", "delta-kuo2016", "--count", "0"], "--count"),
    (["modes", "delta-kuo2016", "--at", "0", "0", "nan"], "--at"),
    (["modes", "delta-kuo2016", "--at", "0", "0", "-0.5"], "--at"),
    (["modes", "delta-asadi2020"], "ROBOT"),
    (["modes", "delta-kuo2016", "--formulation", "explicit"], "--formulation"),
    (["modes", "delta-kuo2016", "--speed", "1", "0", "0"], "--speed"),
    (["modes", "delta-kuo2016", "--preload", "--no-preload"], "--preload"),
    (["modes", "delta-kuo2016", "--at", "0.1", "0"], "--at"),
    (["modes", "delta-kuo2016", "--modes", "2"], "--modes"),
    (["modes", "delta-kuo2016", "--set", "joints.b=clamped", "--joint-b", "spherical"],
     "--joint-b"),
    (["map", "delta-asadi2020"], "ROBOT"),
    (["map", "delta-kuo2016", "--path", "line", "--from", "0", "0", "0"], "--to"),
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
    (["simulate", "delta-kuo2016", "--formulation", "explicit", "--joint-b", "clamped"],
     "--joint-b"),
    (["simulate", "delta-kuo2016", "--radius", "1.5", "--periods", "0.01"],
     "--radius"),
])
def test_bad_input_one_line_exit_2(capsys, argv, name):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err, err
