"""Time windows of ramped circles (--ramp with --periods and the default windows) and
the progress bar of closed-loop simulations."""
from __future__ import annotations

import json
import math
import sys

import pytest

import elastodyn.cli.simulate as cli_simulate
from elastodyn.cli import main
from elastodyn.cli.common import progress_bar



from cli_helpers import run as _run, run_json as _json  # noqa: E402


def _numbers(doc):
    """The document without what changes from run to run."""
    return {k: v for k, v in doc.items() if k != "run"}


# ------------------------------------------------------------------ ramped circles
def test_periods_with_a_ramp_count_the_ramp(capsys):
    """--ramp 1 --periods 4 on Kuo's 1 s circle: a 4 s window, the ramp's period
    included (the ramp, then three periods at speed); the same run as --duration 4.
    (The window is the subject: Kuo's KED about the undeformed pose, the faster.)"""
    base = ["simulate", "delta-kuo2016", "--trajectory", "circle", "--ramp", "1",
            "--step", "0.01", "--reference", "undeformed", "--json"]
    doc = _json(capsys, base + ["--periods", "4"])
    assert doc["inputs"]["duration_s"] == 4.0
    assert doc["inputs"]["trajectory"]["ramp"] == 1.0
    assert doc["time_s"][-1] == pytest.approx(4.0)
    ref = _json(capsys, base + ["--duration", "4"])
    assert _numbers(doc) == _numbers(ref)
    # from rest: the platform starts still (position of the first samples)
    p = doc["rigid_ee_position_m"]
    assert math.dist(p[0], p[1]) < 1e-6


def test_periods_of_a_ramped_circle_use_its_nominal_period(capsys):
    """Asadi's circle runs at 1 rad/s: its period is 2 pi s, ramped or not."""
    doc = _json(capsys, ["simulate", "delta-asadi2020", "--ramp", "0.5", "--periods", "1.5",
                         "--json"])
    assert doc["inputs"]["duration_s"] == pytest.approx(1.5 * 2 * math.pi)


@pytest.mark.parametrize("argv,window", [
    # the scenario's 5 periods, the ramp's included
    (["simulate", "delta-kuo2016", "--ramp", "1", "--step", "0.01", "--reference",
      "undeformed"], 5.0),
    # one period after the ramp
    (["torques", "delta-kuo2016", "--ramp", "1"], 2.0),
    (["torques", "delta-asadi2020", "--ramp", "0.5"], 1.5 * 2 * math.pi),
    (["simulate", "delta-kuo2016", "--formulation", "explicit", "--trajectory", "circle",
      "--ramp", "2"], 5.0),
])
def test_default_window_of_a_ramped_circle(argv, window, capsys):
    doc = _json(capsys, argv + ["--json"])
    assert doc["inputs"]["duration_s"] == pytest.approx(window, abs=1e-3)   # sampled: torques


def test_periods_refused_on_a_path_that_is_not_periodic(capsys):
    code, _, err = _run(capsys, ["simulate", "delta-kuo2016", "--trajectory", "inverted-u",
                                 "--periods", "2"])
    assert code == 2 and len(err) == 1
    assert "invalid --periods: got 2.0; allowed: only for a periodic path" in err[0]


# ------------------------------------------------------------------ progress
def test_progress_bar_is_silent_without_a_terminal(monkeypatch, capsys):
    assert progress_bar(10**6, "simulate", minimum=2000) is None   # captured: no tty
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress_bar(100, "simulate", minimum=2000) is None     # too short
    bar = progress_bar(4000, "simulate", minimum=2000)
    assert callable(bar)
    bar(4000, 4000)


@pytest.fixture
def recorder(monkeypatch):
    """Replace the CLI's progress bar of simulate by a recorder of its calls."""
    bars = []

    def fake(total, what, *, minimum=50):
        calls = []
        bars.append({"total": total, "what": what, "minimum": minimum, "calls": calls})
        return lambda done, total_=None: calls.append((done, total_))
    monkeypatch.setattr(cli_simulate, "progress_bar", fake)
    return bars


@pytest.mark.parametrize("argv,total", [
    (["simulate", "delta-asadi2020", "--duration", "1"], 100),          # step 0.01
    (["simulate", "delta-kuo2016", "--formulation", "multipliers", "--duration", "0.5",
      "--controller", "computed-torque"], 50),
    (["simulate", "arm-yu2019", "--duration", "0.1"], 100),             # step 0.001
])
def test_closed_loop_reports_progress_and_the_same_numbers(argv, total, recorder, capsys,
                                                            monkeypatch):
    doc = _json(capsys, argv + ["--json"])
    assert len(recorder) == 1
    bar = recorder[0]
    assert bar["total"] == total and bar["what"] == "simulate" and bar["minimum"] == 2000
    done = [d for d, _ in bar["calls"]]
    assert 2 <= len(done) <= 110, len(done)                  # sparse
    assert done == sorted(done) and done[-1] == total          # forward, to the end
    assert all(t == total for _, t in bar["calls"])
    # without a progress callable: the same numbers
    monkeypatch.setattr(cli_simulate, "progress_bar", lambda *a, **k: None)
    assert _numbers(_json(capsys, argv + ["--json"])) == _numbers(doc)
