"""The verbs and options of the redesigned command line (issue 13): robots, describe,
--set, description files, --out checked before the computation and written whole or not
at all, Ctrl-C (exit 130, no output set)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import elastodyn.analysis.modes as analysis_modes
import elastodyn.analysis.simulate as analysis_simulate
from elastodyn.cli import main
from elastodyn.description.materials import Material, Section
from elastodyn.io.output_set import MARKER

from reference_delta_frame import frame_delta

PRESETS = ("delta-kuo2016", "delta-asadi2020", "prrrp-briot2013", "arm-yu2019",
           "3prr-rosyid2020", "slider-crank-simeon")



from cli_helpers import run as _run, run_json as _json  # noqa: E402


# ------------------------------------------------------------------ robots
def test_robots_json_lists_the_presets_and_their_formulations(capsys):
    """The presets with their formulations, the default first, written here from the
    papers (Kuo: KED and the multiplier rigid model, and NE-PVP with its universal joints;
    Asadi: explicit rigid; Briot: NE-PVP; Yu: assumed modes, and NE-PVP, which models any
    arm; Rosyid: ffrf, its description's default, and NE-PVP; the geometrically exact
    beams for the flexible Delta, the arm and the planar tree robots)."""
    doc = _json(capsys, ["robots", "--json"])
    assert doc["schema_version"] == 2 and doc["command"] == "robots"
    rows = {r["name"]: r for r in doc["robots"]}
    assert list(rows) == list(PRESETS)
    assert {n: r["formulations"] for n, r in rows.items()} == {
        "delta-kuo2016": ["ked", "explicit", "multipliers", "nepvp", "exact"],
        "delta-asadi2020": ["explicit", "multipliers"],
        "prrrp-briot2013": ["nepvp", "ffrf", "exact"],
        "arm-yu2019": ["amm", "nepvp", "exact"], "3prr-rosyid2020": ["ffrf", "nepvp", "exact"],
        "slider-crank-simeon": ["nepvp", "ffrf", "exact"]}
    assert {n: r["family"] for n, r in rows.items()} == {
        "delta-kuo2016": "delta", "delta-asadi2020": "delta", "prrrp-briot2013": "tree",
        "arm-yu2019": "arm", "3prr-rosyid2020": "tree", "slider-crank-simeon": "tree"}
    assert rows["arm-yu2019"]["scenarios"] == ["circle", "free-vibration"]
    for r in rows.values():
        assert set(r["verbs"]) == set(r["formulations"]) == set(r["descriptions"])


def test_robots_verbs_say_what_runs(capsys):
    """The table's verbs are the truth: modes runs on every (robot, formulation) whose
    verbs list it and is refused (exit 2, one line) on the others."""
    rows = _json(capsys, ["robots", "--json"])["robots"]
    for r in rows:
        for form in r["formulations"]:
            code, out, err = _run(capsys, ["modes", r["name"], "--formulation", form,
                                           "--count", "2", "--json"])
            if "modes" in r["verbs"][form]:
                assert code == 0, (r["name"], form, err)
                assert json.loads(out)["formulation"] == form
            else:
                assert code == 2 and len(err) == 1 and "--formulation" in err[0], err


def test_robots_text_goes_to_stderr(capsys):
    code, out, err = _run(capsys, ["robots"])
    assert code == 0 and out == ""
    assert err[0] == "delta-kuo2016 (delta)" and any("ked (default)" in ln for ln in err)


# ------------------------------------------------------------------ describe
@pytest.mark.parametrize("preset", ["delta-kuo2016", "prrrp-briot2013", "arm-yu2019"])
def test_describe_reads_back_to_the_same_robot(preset, capsys, tmp_path):
    """elastodyn describe PRESET > f.yaml; elastodyn modes f.yaml equals modes PRESET
    (bit for bit: the same description gives the same model), and the file describes
    itself identically."""
    code, text, _ = _run(capsys, ["describe", preset])
    assert code == 0 and text.startswith("# elastodyn robot description")
    f = tmp_path / "robot.yaml"
    f.write_text(text)
    assert _run(capsys, ["describe", str(f)])[1] == text
    a = _json(capsys, ["modes", preset, "--count", "4", "--json"])
    b = _json(capsys, ["modes", str(f), "--count", "4", "--json"])
    assert b["robot"] == a["robot"] == preset
    assert b["omega_rad_s"] == a["omega_rad_s"] and b["inputs"] == a["inputs"]


def test_describe_rigid_delta_file_gives_the_same_torques(capsys, tmp_path):
    """The rigid Delta of Asadi through its file: the same inverse dynamics as the
    preset along the same circle (a file has no paper scenario: the circle is given)."""
    f = tmp_path / "asadi.yaml"
    assert _run(capsys, ["describe", "delta-asadi2020", "--output", str(f)])[0] == 0
    circle = ["--trajectory", "circle", "--centre", "0", "0", "0.45", "--radius", "0.25",
              "--period", "6.283185307179586", "--step", "0.05", "--json"]
    a = _json(capsys, ["torques", "delta-asadi2020", *circle])
    b = _json(capsys, ["torques", str(f), *circle])
    assert a["formulation"] == b["formulation"] == "explicit"
    assert a["torque_nm"] == b["torque_nm"] and a["ee_position_m"] == b["ee_position_m"]


def test_describe_output_to_a_folder_is_refused(capsys, tmp_path):
    code, out, err = _run(capsys, ["describe", "arm-yu2019", "--output", str(tmp_path)])
    assert code == 2 and out == "" and len(err) == 1 and "--output" in err[0]


# ------------------------------------------------------------------ --set
def test_set_lower_link_width_changes_the_frequencies(capsys):
    """--set links.lower.section.width=0.008 on delta-kuo2016: the frequencies of the
    independent frame model (tests/references/reference_delta_frame.py, linear about the undeformed
    pose: --reference undeformed) with 8 x 5 mm lower links, to the tolerance of the
    KED-vs-frame tests (1e-8: both round-off, measured 7e-11), and away from the
    preset's by far more (the lower links are 2.6 times stiffer in their weak bending
    plane)."""
    X = np.array([0.1, 0.0, 0.5])
    steel = Material(E=210e9, G=80e9, rho=7800.0)
    base = _json(capsys, ["modes", "delta-kuo2016", "--count", "8", "--json",
                          "--reference", "undeformed"])
    doc = _json(capsys, ["modes", "delta-kuo2016", "--set", "links.lower.section.width=0.008",
                         "--count", "8", "--json", "--reference", "undeformed"])
    assert doc["inputs"]["set"] == ["links.lower.section.width=0.008"]
    assert "set" not in base["inputs"]
    ref = frame_delta(X, lower=(Section.rectangle(0.008, 0.005), steel), count=8)
    np.testing.assert_allclose(doc["omega_rad_s"], ref["omega_rad_s"], rtol=1e-8)
    ref0 = frame_delta(X, count=8)
    np.testing.assert_allclose(base["omega_rad_s"], ref0["omega_rad_s"], rtol=1e-8)
    change = np.abs(np.array(doc["omega_rad_s"]) / base["omega_rad_s"] - 1)
    assert change.max() > 0.05


@pytest.mark.parametrize("item, needle", [
    ("links.lower.section.wdith=0.008", "links.lower.section.wdith"),
    ("links.lower.section.width=-1", "links.lower.section.width"),
    ("links.lower.section.width=abc", "links.lower.section.width"),
    ("geometry.base_radius=[1, 2]", "geometry.base_radius"),
    ("nonsense", "KEY=VALUE"),
])
def test_set_bad_entry_one_line_naming_the_yaml_path(item, needle, capsys):
    code, out, err = _run(capsys, ["modes", "delta-kuo2016", "--set", item])
    assert code == 2 and out == "" and len(err) == 1, err
    assert err[0].startswith("elastodyn: error:") and needle in err[0] and "--set" in err[0]


def test_set_is_echoed_by_every_verb(capsys):
    """A run with overrides says so in its inputs (the robot's name alone no longer
    tells); --joint-d is an override of joints.d."""
    doc = _json(capsys, ["generate", "delta-kuo2016", "--formulation", "explicit",
                         "--set", "platform.mass=0.6", "--json"])
    assert doc["inputs"]["set"] == ["platform.mass=0.6"]
    doc = _json(capsys, ["modes", "delta-kuo2016", "--joint-d", "spherical", "--count", "1",
                         "--json"])
    assert doc["inputs"]["set"] == ["joints.d=spherical"]


# ------------------------------------------------------------------ description files
@pytest.mark.parametrize("text, needle", [
    ("""\
     family: delta
     name: broken
     links:
       lower:
         section: {shape: rectangle, width: -1, height: 0.005}
     """, "geometry"),
    ("""\
     family: arm
     name: broken
     links: []
     """, "links"),
    ("family: delta\n  bad: [\n", "line 2"),
    ("family: crane\nname: x\n", "family"),
])
def test_bad_description_file_one_line_naming_file_and_path(text, needle, capsys, tmp_path):
    f = tmp_path / "robot.yaml"
    f.write_text(textwrap.dedent(text))
    for verb in (["modes"], ["describe"], ["simulate"]):
        code, out, err = _run(capsys, [*verb, str(f)])
        assert code == 2 and out == "" and len(err) == 1, err
        assert str(f) in err[0] and needle in err[0], err[0]


def test_bad_entry_in_an_edited_file(capsys, tmp_path):
    """A preset's description edited by hand with a bad value: the line names the file,
    the YAML path of the entry and the value."""
    text = _run(capsys, ["describe", "delta-kuo2016"])[1]
    f = tmp_path / "kuo.yaml"
    f.write_text(text.replace("height: 0.005", "height: -0.005", 1))
    code, _, err = _run(capsys, ["modes", str(f)])
    assert code == 2 and len(err) == 1
    assert err[0] == (f"elastodyn: error: {f}: invalid links.upper.section.height: got "
                      "-0.005; allowed: greater than 0")


def test_missing_description_file(capsys, tmp_path):
    f = tmp_path / "nope.yaml"
    code, _, err = _run(capsys, ["modes", str(f)])
    assert code == 2 and err == [f"elastodyn: error: {f}: no such description file"]


# ------------------------------------------------------------------ --out
def _forbid(monkeypatch):
    """Make every analysis fail loudly: a refusal must come before any of them."""
    def boom(*a, **k):
        raise AssertionError("the computation started")
    for mod in (analysis_modes, analysis_simulate):
        for name in ("modes", "frequency_map", "convergence", "simulate_motion",
                     "simulate_controlled", "torques"):
            if hasattr(mod, name):
                monkeypatch.setattr(mod, name, boom)


@pytest.mark.parametrize("argv", [
    ["modes", "delta-kuo2016"], ["map", "delta-kuo2016"], ["convergence", "delta-kuo2016"],
    ["torques", "delta-kuo2016"], ["simulate", "delta-kuo2016"],
    ["simulate", "prrrp-briot2013"], ["simulate", "arm-yu2019"],
    ["generate", "prrrp-briot2013"], ["beam-modes"],
])
def test_out_with_foreign_files_refused_before_computing(argv, capsys, tmp_path,
                                                         monkeypatch):
    out = tmp_path / "results"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    _forbid(monkeypatch)
    code, stdout, err = _run(capsys, [*argv, "--out", str(out)])
    assert code == 2 and stdout == "" and len(err) == 1, err
    assert err[0].startswith("elastodyn: error: invalid --out:") and str(out) in err[0]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "mine"


def test_out_replaces_an_earlier_output_set_whole(capsys, tmp_path):
    """An earlier elastodyn output set is replaced by the new run's whole set: no file of
    the earlier run remains beside the new ones."""
    out = tmp_path / "res"
    assert _run(capsys, ["map", "delta-kuo2016", "--points", "3", "--count", "2", "--out",
                         str(out)])[0] == 0
    assert (out / "map.json").exists()
    assert _run(capsys, ["modes", "delta-kuo2016", "--count", "2", "--out", str(out)])[0] == 0
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "modes.csv", "modes.json",
                                                     "modes.png", "summary.md"]
    assert (out / MARKER).read_text().splitlines()[0] == "modes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]   # nothing left beside


# ------------------------------------------------------------------ Ctrl-C
def test_interrupted_computation_leaves_no_output_set(capsys, tmp_path, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(analysis_simulate, "simulate_motion", interrupted)
    out = tmp_path / "sim"
    code, stdout, err = _run(capsys, ["simulate", "prrrp-briot2013", "--out", str(out)])
    assert code == 130 and stdout == "" and err == ["elastodyn: interrupted"]
    assert list(tmp_path.iterdir()) == []


def test_interrupted_writing_keeps_the_earlier_output_set(capsys, tmp_path, monkeypatch):
    """Ctrl-C while the files are written: the folder keeps the earlier run's complete
    set, and no temporary folder is left beside it."""
    out = tmp_path / "res"
    assert _run(capsys, ["modes", "delta-kuo2016", "--count", "2", "--out", str(out)])[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    import elastodyn.analysis.results as results

    def interrupted_writer(fig, fmt):
        def write(path):
            raise KeyboardInterrupt
        return write
    monkeypatch.setattr(results, "_fig_writer", interrupted_writer)
    code, _, err = _run(capsys, ["modes", "delta-kuo2016", "--count", "3", "--out", str(out)])
    assert code == 130 and err == ["elastodyn: interrupted"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_ctrl_c_on_a_real_run(tmp_path):
    """SIGINT two seconds into a ten-second simulation of Yu's arm (about 1 s of wall
    time per simulated second): exit 130, one line, no traceback, no output set."""
    out = tmp_path / "sim"
    code = textwrap.dedent(f"""
        import os, signal, sys, threading
        from elastodyn.cli import main
        threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        sys.exit(main(["simulate", "arm-yu2019", "--out", {str(out)!r}]))
    """)
    env = dict(os.environ, ELASTODYN_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip().splitlines() == ["elastodyn: interrupted"]
    assert r.stdout == "" and not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name != "cache"] == []
