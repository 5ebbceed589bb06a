"""Result objects: the one JSON layout, the all-or-nothing output set, and figures that do
not touch matplotlib's global state."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from elastodyn.analysis.results import SCHEMA_VERSION, Result
from elastodyn.exceptions import InputError
from elastodyn.io.output_set import MARKER


def _result(**kw):
    t = np.linspace(0.0, 1.0, 5)
    q = {"time_s": t, "torque_nm": np.column_stack([t, 2 * t, 3 * t]),
         "ee_position_m": np.zeros((5, 3)), "elastic_names": ["a", "b"]}
    return Result(command="simulate", robot="robot", formulation="nepvp", model={"elements": 2},
                  inputs={"step_s": 0.25}, quantities=q,
                  summary={"peak_torque_nm": [1.0, 2.0, 3.0], "x": float("nan")},
                  warnings=("careful",), run={"wall_time_s": 0.1},
                  columns={"torque_nm": ["tau1_nm", "tau2_nm", "tau3_nm"]}, index="time_s",
                  stem="simulation", title="a title", **kw)


def test_layout_keys_shapes_and_json():
    d = _result().to_dict()
    assert d["schema_version"] == SCHEMA_VERSION
    assert [d[k] for k in ("command", "robot", "formulation")] == ["simulate", "robot", "nepvp"]
    assert d["model"] == {"elements": 2} and d["inputs"] == {"step_s": 0.25}
    assert np.array(d["torque_nm"]).shape == (5, 3)            # (n_samples, n_components)
    assert d["summary"]["x"] is None                             # NaN is not JSON
    assert d["warnings"] == ["careful"] and "wall_time_s" in d["run"]
    json.loads(_result().to_json())                              # strict JSON (no NaN)


def test_csv_table_follows_the_index_and_the_column_names():
    header, rows = _result().table()
    assert header[:4] == ["time_s", "tau1_nm", "tau2_nm", "tau3_nm"]
    assert rows.shape == (5, 1 + 3 + 3)                          # ee_position_m: 3 columns
    np.testing.assert_array_equal(rows[:, 2], 2 * rows[:, 0])


def test_save_writes_the_whole_set_and_replaces_an_earlier_one(tmp_path):
    out = tmp_path / "run"
    names = _result().save(out)
    assert sorted(p.name for p in out.iterdir()) == sorted(names + [MARKER])
    assert {"simulation.json", "simulation.csv", "summary.md"} <= set(names)
    (out / "summary.md").write_text("edited")
    _result().save(out)                               # our own set: replaced whole
    assert (out / "summary.md").read_text() != "edited"
    (out / "stale.txt").write_text("the user's")      # a file the set did not write
    with pytest.raises(InputError, match="stale.txt"):
        _result().save(out)
    assert (out / "stale.txt").read_text() == "the user's"
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="--out"):
        _result().save(foreign)
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_a_failing_write_leaves_nothing(tmp_path, monkeypatch):
    """A figure that fails to render (or Ctrl-C while writing) leaves no output set and
    no temporary folder behind."""
    class Boom(Result):
        def figures(self):
            class F:
                def savefig(self, *a, **k):
                    raise KeyboardInterrupt
            return {"fig": F()}
    base = _result()
    r = Boom(**{f: getattr(base, f) for f in ("command", "robot", "formulation", "model",
                                              "inputs", "quantities")})
    with pytest.raises(KeyboardInterrupt):
        r.save(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []


def test_plot_returns_a_figure_without_pyplot():
    """Building and saving every figure of a simulation result imports no pyplot and
    leaves the backend alone (checked in a fresh interpreter)."""
    code = (
        "import sys, matplotlib\n"
        "raw = lambda: dict.__getitem__(matplotlib.rcParams, 'backend')\n"
        "b = raw()  # get_backend() itself would resolve (and import pyplot)\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from test_results import _result\n"
        "from elastodyn.analysis.simulate import SimulationResult\n"
        "r = _result()\n"
        "import dataclasses\n"
        "s = SimulationResult(**{f.name: getattr(r, f.name) for f in dataclasses.fields(r)})\n"
        "fig = s.plot()\n"
        "from matplotlib.figure import Figure\n"
        "assert isinstance(fig, Figure)\n"
        "import io; fig.savefig(io.BytesIO(), format='png')\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "assert raw() == b\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
