"""The command line asks the formulation registry (and the models' capabilities), never a
table of its own keyed by formulation name: a formulation added to the registry runs
through the verbs, an unknown one is refused in one line (never a KeyError), ``elastodyn
robots`` lists each formulation's actuated coordinates, and a refused model option names
the flags the formulation takes."""
from __future__ import annotations

import json

import pytest

from elastodyn.cli import main
from elastodyn.formulations import registry as R



from cli_helpers import run as _run, run_json as _json  # noqa: E402


# ------------------------------------------------------------------ unknown formulation
@pytest.mark.parametrize("argv", [
    ["modes", "delta-kuo2016"], ["map", "delta-kuo2016"],
    ["convergence", "delta-kuo2016"], ["convergence", "arm-yu2019", "--max-modes", "2"],
    ["torques", "delta-kuo2016"], ["simulate", "delta-kuo2016"],
    ["simulate", "arm-yu2019", "--kp", "10"], ["generate", "prrrp-briot2013"],
    ["modes", "prrrp-briot2013", "--elements", "2"],
])
def test_unknown_formulation_one_line_exit_2(argv, capsys):
    code, out, err = _run(capsys, argv + ["--formulation", "bogus"])
    assert code == 2 and out == "" and len(err) == 1, err
    assert err[0].startswith("elastodyn: error: invalid --formulation: got 'bogus'; "
                             "allowed: one of "), err


# ------------------------------------------------------------------ a new formulation
FE2 = """
from elastodyn.formulations import registry as R


def build(form, robot, fam, opts):
    model = R.build_model(robot, "nepvp", elements=opts["elements"])
    model.formulation = form.name
    return model


FE2 = R.Formulation(
    "fe2", ("tree",), "NE-PVP with two elements per beam", options={"elements": 2},
    verbs=("modes", "map", "convergence", "torques", "simulate", "generate"),
    limits=R.Limits(elements=3, simulate_time=0.5), problems=("model", "inverse"),
    applies=lambda spec: R.get("nepvp").applies(spec), build=build)
"""


@pytest.fixture
def fe2(register_formulation):
    """A formulation registered by an entry point of another distribution only: NE-PVP
    beams of two finite elements by default, under its own name, limits and verbs (the
    model reports the new name, so no engine or table keyed by "nepvp" answers for
    it)."""
    register_formulation("fe2_plugin", FE2, {"fe2": "FE2"})
    return R.get("fe2")


def test_new_formulation_listed_by_robots(fe2, capsys):
    rows = {r["name"]: r for r in _json(capsys, ["robots", "--json"])["robots"]}
    five = rows["prrrp-briot2013"]
    assert five["formulations"] == ["nepvp", "ffrf", "exact", "fe2"]
    assert five["descriptions"]["fe2"] == fe2.description
    assert five["verbs"]["fe2"] == ["describe", *fe2.verbs]
    assert five["actuated"]["fe2"] == {"names": ["q1", "q4"], "units": ["m", "m"]}


def test_new_formulation_runs_modes_and_convergence(fe2, capsys):
    doc = _json(capsys, ["modes", "prrrp-briot2013", "--formulation", "fe2",
                         "--actuated", "0", "0.25", "--count", "3", "--json"])
    ref = _json(capsys, ["modes", "prrrp-briot2013", "--elements", "2",
                         "--actuated", "0", "0.25", "--count", "3", "--json"])
    assert doc["formulation"] == "fe2" and doc["model"] == {"elements": 2}
    assert doc["frequencies_hz"] == ref["frequencies_hz"]
    conv = _json(capsys, ["convergence", "prrrp-briot2013", "--formulation", "fe2",
                          "--actuated", "0", "0.25", "--max-elements", "2", "--count", "2",
                          "--json"])
    assert conv["elements"] == [1, 2]
    # its own limits: at most 3 elements, 0.5 s of simulated time
    code, _, err = _run(capsys, ["convergence", "prrrp-briot2013", "--formulation", "fe2",
                                 "--max-elements", "4"])
    assert code == 2 and "invalid --max-elements: got 4; allowed: an integer in [1, 3]" \
        in err[0]
    code, _, err = _run(capsys, ["simulate", "prrrp-briot2013", "--formulation", "fe2"])
    assert code == 2 and "at most 0.5 s" in err[0], err


def test_new_formulation_runs_simulate_and_generate(fe2, capsys):
    doc = _json(capsys, ["simulate", "prrrp-briot2013", "--formulation", "fe2",
                         "--duration", "0.01", "--step", "0.005", "--json"])
    assert doc["formulation"] == "fe2" and len(doc["time_s"]) == 3
    doc = _json(capsys, ["generate", "prrrp-briot2013", "--formulation", "fe2", "--json",
                         "--problem", "model"])
    assert doc["formulation"] == "fe2" and doc["inputs"]["problem"] == "model"
    code, _, err = _run(capsys, ["generate", "prrrp-briot2013", "--formulation", "fe2",
                                 "--problem", "direct"])
    assert code == 2 and "one of model, inverse" in err[0], err
    # its options, as flags
    code, _, err = _run(capsys, ["modes", "prrrp-briot2013", "--formulation", "fe2",
                                 "--modes", "2"])
    assert code == 2 and err[0].endswith("not an option of the fe2 formulation (it takes "
                                         "--elements)"), err


# ------------------------------------------------------------------ robots: actuated
ACTUATED = {
    "delta-kuo2016": {"names": ["q1", "q2", "q3"], "units": ["rad"] * 3},
    "delta-asadi2020": {"names": ["q1", "q2", "q3"], "units": ["rad"] * 3},
    "prrrp-briot2013": {"names": ["q1", "q4"], "units": ["m", "m"]},
    "arm-yu2019": {"names": ["q1", "q2"], "units": ["rad", "rad"]},
    "3prr-rosyid2020": {"names": ["s1", "s2", "s3"], "units": ["m", "m", "m"]},
    "slider-crank-simeon": {"names": ["c"], "units": ["rad"]},
}
"""Written from the papers: the Delta's three motor angles, the five-bar's two sliders
(Briot's q1 and q4), the arm's two motor shaft angles, Rosyid's three sliders, Simeon's
crank angle."""


def test_robots_lists_the_actuated_coordinates_and_units(capsys):
    rows = _json(capsys, ["robots", "--json"])["robots"]
    for r in rows:
        assert set(r["actuated"]) == set(r["formulations"])
        for form, act in r["actuated"].items():
            assert act == ACTUATED[r["name"]], (r["name"], form)
    code, out, err = _run(capsys, ["robots"])
    assert code == 0 and out == ""
    assert any(ln.startswith("  nepvp (default): ") and "actuated: q1 [m], q4 [m];" in ln
               for ln in err), err
    assert any(ln.startswith("  ked (default): ")
               and "actuated: q1 [rad], q2 [rad], q3 [rad];" in ln for ln in err), err


def test_actuated_takes_the_order_robots_lists(capsys):
    """--actuated Q... in the order of elastodyn robots: the five-bar's q1 then q4."""
    act = {r["name"]: r["actuated"] for r in _json(capsys, ["robots", "--json"])["robots"]}
    names = act["prrrp-briot2013"]["nepvp"]["names"]
    doc = _json(capsys, ["modes", "prrrp-briot2013", "--actuated", "0", "0.25", "--count",
                         "1", "--json"])
    assert dict(zip(names, doc["inputs"]["actuated"])) == {"q1": 0.0, "q4": 0.25}


# ------------------------------------------------------------------ option refusals
@pytest.mark.parametrize("argv,takes", [
    (["simulate", "delta-kuo2016", "--modes", "2"],
     "it takes --elements, --order, --no-preload, --rayleigh, --reference"),
    (["torques", "delta-kuo2016", "--formulation", "ked", "--basis", "sine"],
     "it takes --elements, --order, --no-preload, --reference"),
    (["modes", "delta-kuo2016", "--modes", "2"],
     "it takes --elements, --order, --no-preload, --reference"),
    (["map", "delta-kuo2016", "--basis", "sine"],
     "it takes --elements, --order, --no-preload, --reference"),
    (["simulate", "arm-yu2019", "--elements", "2"], "it takes --modes, --basis"),
    (["generate", "prrrp-briot2013", "--order", "cubic"],
     "it takes --elements, --modes, --basis"),
    (["simulate", "delta-asadi2020", "--elements", "4"], "it takes no model options"),
    (["simulate", "delta-asadi2020", "--no-preload"], "it takes no model options"),
])
def test_refused_model_option_lists_the_flags(argv, takes, capsys):
    code, _, err = _run(capsys, argv)
    assert code == 2 and len(err) == 1, err
    assert err[0].endswith(f"formulation ({takes})"), err
    # flags only, never the registry's keys
    assert " preload" not in err[0] and "(it takes elements" not in err[0]
