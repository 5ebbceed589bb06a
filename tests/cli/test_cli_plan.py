"""The plan and compensate verbs (cli/plan.py, cli/compensate.py): whole runs on small
motions, output sets, and bad input as one line with exit code 2."""
import json

import pytest

from cli_helpers import run, run_json

FAST = ["--reference", "undeformed", "--step", "4e-3"]
SHORT_U = ["--trajectory", "inverted-u", "--start", "-0.04", "0", "0.5", "--travel", "0.08",
           "0.02", "0.06", "--times", "0", "0.12", "0.25", "0.38", "0.5"]


def test_plan_json_and_output_set(capsys, tmp_path):
    out = tmp_path / "plan"
    doc = run_json(capsys, ["plan", "delta-kuo2016", *SHORT_U, *FAST, "--coefficients", "1",
                            "--evaluations", "3", "--shapers", "zv", "--json", "--out",
                            str(out)])
    assert doc["command"] == "plan" and doc["formulation"] == "ked"
    v = doc["summary"]["variants"]
    assert set(v) <= {"given", "time-law", "zv", "zv-law"} and len(v) >= 3
    assert v["time-law"]["residual_vibration_m"] <= v["given"]["residual_vibration_m"]
    assert doc["inputs"]["search"] == "least-squares"
    assert doc["inputs"]["cycle_time_s"] == pytest.approx(0.5)
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == ["plan.csv", "plan.json", "plan.png", "robustness.png", "summary.md"]
    assert json.loads((out / "plan.json").read_text())["summary"] == doc["summary"]


def test_plan_search_on_a_cheaper_model(capsys):
    """--search-reference: the search about the undeformed pose, the laws evaluated again
    on the default deflected model: the result's numbers are the default model's, the
    search's are kept apart."""
    doc = run_json(capsys, ["plan", "delta-kuo2016", *SHORT_U, "--step", "4e-3",
                            "--search-reference", "undeformed", "--coefficients", "1",
                            "--evaluations", "3", "--shapers", "none", "--json"])
    assert doc["model"]["reference"] == "deflected"
    sm = doc["summary"]["search_model"]
    assert sm["options"]["reference"] == "undeformed"
    v = doc["summary"]["variants"]
    # the two models differ by a few % on this flexible robot
    assert v["given"]["residual_vibration_m"] != sm["given"]["residual_vibration_m"]


def test_compensate_json(capsys):
    doc = run_json(capsys, ["compensate", "delta-kuo2016", "--trajectory", "circle",
                            "--period", "8", "--duration", "1", *FAST, "--json"])
    s = doc["summary"]
    assert s["mode"] == "quasi-static"
    assert s["peak_error_compensated_m"] < 0.1 * s["peak_error_nominal_m"]
    assert doc["command"] == "compensate"           # not overwritten by a quantity
    assert doc["inputs"]["trajectory"]["law"] == "circle"


def test_compensation_that_does_not_help_says_so(capsys):
    """Kuo's 0.8 s pick-and-place: the error is vibration, which a quasi-static
    correction cannot remove; the run says so instead of presenting a success."""
    code, out, err = run(capsys, ["compensate", "delta-kuo2016", "--trajectory",
                                  "inverted-u", *FAST, "--duration", "1.2", "--json"])
    assert code == 0
    doc = json.loads(out)
    if doc["summary"]["peak_error_compensated_m"] >= doc["summary"]["peak_error_nominal_m"]:
        assert any("does not reduce the peak error" in w for w in doc["warnings"])


@pytest.mark.parametrize("argv,name", [
    (["plan", "delta-kuo2016", *SHORT_U, "--cycle-time", "0"], "--cycle-time"),
    (["plan", "delta-kuo2016", *SHORT_U, "--cycle-time", "1e300"], "--cycle-time"),
    (["plan", "delta-kuo2016", *SHORT_U, "--coefficients", "0"], "--coefficients"),
    (["plan", "delta-kuo2016", *SHORT_U, "--step", "0"], "--step"),
    (["plan", "delta-kuo2016", *SHORT_U, "--step", "1e-300"], "--step"),
    (["plan", "delta-kuo2016", *SHORT_U, "--step", "0.05"], "--step"),
    (["plan", "delta-kuo2016", *SHORT_U, "--window", "-1"], "--window"),
    (["plan", "delta-kuo2016", *SHORT_U, "--shapers", "none", "--damping", "0.1"],
     "--damping"),
    (["plan", "delta-kuo2016", *SHORT_U, *FAST, "--shapers", "ei", "--damping", "0.99"],
     "--damping"),
    (["plan", "delta-kuo2016", *SHORT_U, "--limits", ","], "--limits"),
    (["plan", "delta-kuo2016", *SHORT_U, *FAST, "--search-reference", "rigid"],
     "--search-reference"),
    (["plan", "delta-kuo2016", *SHORT_U, *FAST, "--search", "newton"], "--search"),
    (["plan", "delta-kuo2016", *SHORT_U, "--cycle-times", "1", "2"], "--cycle-times"),
    (["plan", "delta-kuo2016", *SHORT_U, "--max-residual", "1e-3", "--cycle-time", "1"],
     "--cycle-time"),
    (["plan", "delta-kuo2016", *SHORT_U, *FAST, "--max-residual", "1e-3",
      "--objective", "peak-deviation"], "--objective"),
    (["plan", "delta-kuo2016", *SHORT_U, *FAST, "--max-residual", "1e-3",
      "--cycle-times", "0", "1"], "--cycle-times"),
    (["plan", "delta-kuo2016", *SHORT_U, "--objective", "fast"], "--objective"),
    (["plan", "delta-kuo2016", *SHORT_U, "--limits", "torque=-1"], "--limits"),
    (["plan", "delta-kuo2016", *SHORT_U, "--shapers", "zv,zv"], "--shapers"),
    (["plan", "delta-kuo2016", "--trajectory", "circle"], "--trajectory"),
    (["plan", "delta-kuo2016", *SHORT_U, "--duration", "2"], "--duration"),
    (["plan", "delta-kuo2016", *SHORT_U, "--formulation", "explicit"], "--formulation"),
    (["compensate", "delta-kuo2016", "--trajectory", "circle", "--mode", "exact"],
     "--mode"),
    (["compensate", "delta-kuo2016", "--trajectory", "circle", "--iterations", "2"],
     "--iterations"),
    (["compensate", "delta-kuo2016", "--trajectory", "circle", "--step", "-1"], "--step"),
    (["compensate", "delta-kuo2016", "--trajectory", "circle", "--duration", "1e9"],
     "--duration"),
])
def test_bad_input_one_line(capsys, argv, name):
    code, _, err = run(capsys, argv)
    assert code == 2
    assert len(err) == 1 and name in err[0], err
