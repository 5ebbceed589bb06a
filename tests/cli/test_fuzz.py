"""Fuzz tests of the command line and of description files (issue 18, hypothesis).

Every verb runs in-process with option values drawn by hypothesis (huge, tiny, negative,
zero, nan, inf, ordinary numbers, and arbitrary words). The contract (docs/results.rst,
"Exit codes and errors"): exit code 0, or 2 with exactly one line on standard error
naming an option; never an exception out of ``main`` (a traceback). Mutated robot descriptions load or
raise an InputError naming the entry.

The examples are bounded and derandomized (the same ones on every run, so CI is
reproducible); the base command lines are the verbs' cheap paths (--json, short windows,
few points) so that the whole file stays within about a minute on two cores. A case
found here is fixed and kept as a regression test in tests/cli/test_hardening.py.
"""
from __future__ import annotations

import math
import re

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cli_helpers import run
from elastodyn.description.files import dump_yaml, load_description
from elastodyn.exceptions import InputError

FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.filter_too_much])

EXTREME = [0.0, -0.0, -1.0, 1e300, -1e300, 1e-300, -1e-300, 5e-324, 1e16, 1e-9,
           math.nan, math.inf, -math.inf, 0.5, 2.0, 1e6, -1e6]


def _text(v) -> str:
    return repr(v) if isinstance(v, float) and math.isfinite(v) else str(v)


numbers = st.one_of(st.sampled_from(EXTREME), st.floats()).map(_text)
integers = st.one_of(st.sampled_from([0, -1, 1, 2, 3, 10**6, 10**20, -10**20]),
                     st.integers()).map(str)
words = st.one_of(st.sampled_from(["", "x", "nan", "1e999", "-", "--", "circle", "cubic",
                                   "quintic", "sine", "fem", "rr", "pd", "radau", "rk4",
                                   "newmark", "task", "joint"]),
                  st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126),
                          max_size=6))


def _values(kind):
    if isinstance(kind, int):            # nargs of numbers
        return st.lists(numbers, min_size=kind, max_size=kind)
    if kind == "+":
        return st.lists(numbers, min_size=1, max_size=4)
    return st.lists({"f": numbers, "i": integers, "s": words}[kind], min_size=1,
                    max_size=1)


def _options(table):
    """A command-line tail: one to three options of ``table`` (flag -> kind) with drawn
    values."""
    flags = sorted(table)
    pick = st.lists(st.sampled_from(flags), min_size=1, max_size=3, unique=True)
    return pick.flatmap(lambda fs: st.tuples(*[
        _values(table[f]).map(lambda vs, f=f: [f, *vs]) for f in fs]))


SLOW_IF_VALID = {"--step": lambda v: 1e-8 < v < 2e-4,
                 "--integrator-step": lambda v: 1e-9 < v < 2e-5,
                 "--duration": lambda v: 0.05 < v < 1e4,
                 "--motion-time": lambda v: 0.05 < v < 1e4 or 0 < v < 1e-3,
                 "--periods": lambda v: 0.05 < v < 1e4,
                 "--period": lambda v: 0.05 < v < 1e4,
                 "--ramp": lambda v: 0.05 < v < 1e4,
                 "--window": lambda v: 0.02 < v < 1e4,
                 "--cycle-time": lambda v: 0.05 < v < 1e4,
                 "--evaluations": lambda v: 12 < v < 1e9,
                 "--iterations": lambda v: 5 < v < 1e9,
                 "--samples": lambda v: 50 < v < 1e9}
"""Values that are valid and only make the run long (thousands of time steps): drawn
out, as the fuzz tests the checks of the inputs, not the engines' speed. A bang-bang
--motion-time below 1 ms fails as it should (exit 1: the loop closure is lost under
~1e9 m/s^2) but only after seconds of step refinement: drawn out too."""


def _cheap(argv) -> bool:
    for k, a in enumerate(argv[:-1]):
        slow = SLOW_IF_VALID.get(a)
        if slow is not None:
            try:
                v = float(argv[k + 1])
            except ValueError:
                continue
            if slow(v):
                return False
    return True


def _check(capsys, argv, accepted=()):
    assume(_cheap(argv))
    try:
        code, out, err = run(capsys, argv)
    except accepted:                            # a stubbed engine reached: input valid
        capsys.readouterr()
        return 0, []
    except Exception as exc:                    # a traceback: a bug
        raise AssertionError(f"{argv}: {type(exc).__name__}: {exc}") from exc
    assert code in (0, 1, 2), (argv, code, err)
    if code == 1:
        # a run that fails (exit code 1 of docs/results.rst: an unstable controller, a loop
        # closure lost, a diverging response): one line saying so, never a traceback
        assert len(err) == 1 and err[0].startswith("elastodyn: error: the run failed"), (
            argv, err)
    if code == 2:
        assert len(err) == 1, (argv, err)
        line = err[0]
        assert "Traceback" not in line
        assert "error" in line, (argv, line)
        # an option (one given, or a missing one it needs: "invalid --from: got None"),
        # ROBOT, or a description file that cannot be read, named by its path
        named = re.search(r"(^|[\s(])(--[a-zA-Z][\w-]*|ROBOT)\b", line)
        robot_file = len(argv) > 1 and line.startswith(f"elastodyn: error: {argv[1]}:")
        assert named or robot_file, (argv, line)
    return code, err


def _flags(argv):
    return {a for a in argv if a.startswith("--")}


# ------------------------------------------------------------------ verbs
BEAM = {"--length": "f", "--width": "f", "--height": "f", "--E": "f", "--G": "f",
        "--rho": "f", "--tip-mass": "f", "--elements": "i", "--count": "i",
        "--order": "s", "--ends": "s"}
GENERAL_SECTION = {"--area": "f", "--iy": "f", "--iz": "f", "--j": "f", "--ip": "f"}


@FUZZ
@given(opts=_options(BEAM))
def test_fuzz_beam_modes(capsys, opts):
    argv = ["beam-modes", "--json"] + [x for o in opts for x in o]
    _check(capsys, argv)


@FUZZ
@given(opts=_options(GENERAL_SECTION))
def test_fuzz_beam_modes_general_section(capsys, opts):
    base = {"--area": "2.5e-5", "--iy": "5.2e-11", "--iz": "5.2e-11", "--j": "8.8e-11"}
    drawn = {o[0]: o[1] for o in opts}
    argv = ["beam-modes", "--json"] + [x for f, v in {**base, **drawn}.items()
                                       for x in (f, v)]
    _check(capsys, argv)


POSE = {"--at": "+", "--actuated": "+", "--count": "i", "--elements": "i",
        "--modes": "i", "--q1": "f", "--q4": "f", "--speed": "+", "--order": "s",
        "--basis": "s", "--reference": "s"}


@FUZZ
@given(robot=st.sampled_from(["arm-yu2019", "delta-kuo2016", "prrrp-briot2013"]),
       opts=_options(POSE))
def test_fuzz_modes(capsys, robot, opts):
    argv = ["modes", robot, "--json"] + [x for o in opts for x in o]
    _check(capsys, argv)


CONVERGENCE = {"--max-elements": "i", "--max-modes": "i", "--count": "i", "--at": "+",
               "--actuated": "+"}


@FUZZ
@given(opts=_options(CONVERGENCE))
def test_fuzz_convergence(capsys, opts):
    argv = ["convergence", "arm-yu2019", "--json", "--max-modes", "2"]
    argv += [x for o in opts for x in o]
    _check(capsys, argv)


MAP = {"--points": "i", "--count": "i", "--radius": "f", "--centre": 2, "--from": "+",
       "--to": "+"}


@FUZZ
@given(opts=_options(MAP))
def test_fuzz_map(capsys, opts):
    argv = ["map", "arm-yu2019", "--json", "--path", "circle", "--centre", "0.67",
            "0.34", "--radius", "0.05", "--points", "3"]
    drawn = [x for o in opts for x in o]
    if "--from" in drawn or "--to" in drawn:
        argv = ["map", "arm-yu2019", "--json", "--path", "line", "--points", "3"]
    _check(capsys, argv + drawn)


MOTION = {"--duration": "f", "--step": "f", "--radius": "f", "--period": "f",
          "--ramp": "f", "--centre": 2, "--periods": "f"}


@FUZZ
@given(opts=_options(MOTION))
def test_fuzz_torques(capsys, opts):
    argv = ["torques", "arm-yu2019", "--json", "--duration", "0.05"]
    _check(capsys, argv + [x for o in opts for x in o if o[0] != "--periods"])


@FUZZ
@given(opts=_options({**MOTION, "--integrator-step": "f", "--initial": "s",
                      "--method": "s"}))
def test_fuzz_simulate_arm(capsys, opts):
    argv = ["simulate", "arm-yu2019", "--json", "--duration", "0.01"]
    _check(capsys, argv + [x for o in opts for x in o])


DELTA = {"--duration": "f", "--step": "f", "--radius": "f", "--period": "f",
         "--centre": 3, "--rayleigh": 2, "--method": "s"}


@FUZZ
@given(opts=_options(DELTA))
def test_fuzz_simulate_delta_ked(capsys, opts):
    argv = ["simulate", "delta-kuo2016", "--json", "--duration", "0.01"]
    _check(capsys, argv + [x for o in opts for x in o])


CONTROLLED = {"--duration": "f", "--step": "f", "--kp": "f", "--kd": "f", "--offset": 3,
              "--radius": "f", "--period": "f", "--centre": 3, "--controller": "s"}


@FUZZ
@given(opts=_options(CONTROLLED))
def test_fuzz_simulate_rigid_delta(capsys, opts):
    argv = ["simulate", "delta-asadi2020", "--json", "--duration", "0.05"]
    _check(capsys, argv + [x for o in opts for x in o])


JOINT = {"--duration": "f", "--step": "f", "--from": 2, "--to": 2, "--motion-time": "f"}


@FUZZ
@given(opts=_options(JOINT))
def test_fuzz_simulate_prrrp(capsys, opts):
    argv = ["simulate", "prrrp-briot2013", "--json", "--duration", "0.01"]
    _check(capsys, argv + [x for o in opts for x in o])


@FUZZ
@given(key=st.sampled_from(["links.0.length", "links.0.mass", "links.0.E", "links.0.I",
                            "links.1.gear_ratio", "links.0.lumped_masses.0.mass",
                            "payload.mass", "gravity", "links.1.length", "links.0.viscous"]),
       value=st.one_of(numbers, words))
def test_fuzz_set_arm(capsys, key, value):
    """A drawn value at a key of the arm's description, through a verb that builds the
    model and computes (modes)."""
    _check(capsys, ["modes", "arm-yu2019", "--json", "--set", f"{key}={value}"])


@FUZZ
@given(key=st.sampled_from(["links.lower.length", "links.lower.section.width",
                            "links.lower.section.height", "links.lower.material.E",
                            "links.lower.material.G", "links.lower.material.rho",
                            "links.upper.length", "base_radius", "platform_radius",
                            "gravity"]),
       value=numbers)
def test_fuzz_set_delta(capsys, key, value):
    _check(capsys, ["modes", "delta-kuo2016", "--json", "--set", f"{key}={value}"])


class Accepted(Exception):
    """Raised by a stubbed engine: every check of the command line passed."""


def _checks_only(monkeypatch, *names):
    """Replace the engines ``names`` of analysis.motion_design by a stub raising
    :class:`Accepted` (a valid input runs seconds to minutes there; the engines are
    tested in tests/analysis/test_motion_design.py and tests/cli/test_cli_plan.py)."""
    from elastodyn.analysis import motion_design

    def accepted(*args, **kwargs):
        raise Accepted
    for name in names:
        monkeypatch.setattr(motion_design, name, accepted)


HEAVY = settings(FUZZ, max_examples=8)
"""The verbs whose valid runs take seconds (a search, a comparison of models, a
sensitivity by repeated simulations): fewer examples."""


def test_robots(capsys):
    code, _, err = run(capsys, ["robots", "--json"])
    assert code == 0, err


@FUZZ
@given(robot=words)
def test_fuzz_describe(capsys, robot):
    _check(capsys, ["describe", robot])


@FUZZ
@given(opts=_options({"--evaluations": "i", "--coefficients": "i", "--window": "f",
                      "--damping": "f", "--shapers": "s", "--limits": "s",
                      "--objective": "s"}))
def test_fuzz_plan(capsys, monkeypatch, opts):
    """The command line's checks of plan; the search itself (seconds to minutes per
    valid input) is replaced by a stub that ends the run once every check passed (the
    search is tested in tests/analysis/test_motion_design.py and tests/cli/test_cli_plan.py)."""
    _checks_only(monkeypatch, "plan_motion", "shortest_cycle")
    argv = ["plan", "arm-yu2019", "--json", "--trajectory", "rest-to-rest", "--to", "0.1",
            "0.1", "--motion-time", "0.05", "--step", "0.0025", "--evaluations", "9",
            "--window", "0.01", "--shapers", "none"]
    _check(capsys, argv + [x for o in opts for x in o], accepted=Accepted)


@FUZZ
@given(opts=_options({**JOINT, "--iterations": "i", "--samples": "i", "--mode": "s"}))
def test_fuzz_compensate(capsys, monkeypatch, opts):
    _checks_only(monkeypatch, "compensate_motion")
    argv = ["compensate", "arm-yu2019", "--json", "--trajectory", "rest-to-rest", "--to",
            "0.1", "0.1", "--motion-time", "0.05", "--duration", "0.02"]
    _check(capsys, argv + [x for o in opts for x in o], accepted=Accepted)


@HEAVY
@given(opts=_options({"--duration": "f", "--step": "f", "--relative-step": "f",
                      "--integrator-step": "f", "--rate": "f", "--amplitude": "+",
                      "--parameters": "s", "--method": "s", "--efforts": "s"}))
def test_fuzz_sensitivity(capsys, opts):
    argv = ["sensitivity", "3prr-rosyid2020", "--json", "--duration", "0.005"]
    _check(capsys, argv + [x for o in opts for x in o])


@FUZZ
@given(opts=_options({"--lhs": "i", "--seed": "i", "--count": "i", "--output": "s",
                      "--set": "s"}))
def test_fuzz_sweep_refusals(capsys, opts):
    """The sweep's checks (its valid runs start a dask cluster: left to test_sweep)."""
    drawn = [x for o in opts for x in o]
    if "--set" in drawn:
        k = drawn.index("--set")
        drawn[k + 1] = "links.0.length=" + drawn[k + 1]
    _check(capsys, ["sweep", "arm-yu2019", "--json"] + drawn)


@HEAVY
@given(opts=_options({"--duration": "f", "--step": "f", "--count": "i", "--modes": "i",
                      "--elements": "i", "--move": "s", "--at": "+"}))
def test_fuzz_compare(capsys, opts):
    argv = ["compare", "arm-yu2019", "--json", "--duration", "0.01", "--count", "1"]
    _check(capsys, argv + [x for o in opts for x in o])


@FUZZ
@given(opts=_options({"--links": "i", "--lang": "s", "--problem": "s"}))
def test_fuzz_generate(capsys, opts):
    drawn = [x for o in opts for x in o]
    if "--links" in drawn and drawn[drawn.index("--links") + 1].lstrip("-").isdigit() \
            and int(drawn[drawn.index("--links") + 1]) > 3:
        assume(False)           # a valid N-link arm: symbolic work growing with N
    _check(capsys, ["generate", "arm", "--json"] + drawn)


# ------------------------------------------------------------------ description files
def _paths(data, prefix=()):
    """The paths of every scalar entry of a YAML document."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))
    else:
        yield prefix


PRESETS = ["delta-kuo2016", "delta-asadi2020", "prrrp-briot2013", "arm-yu2019",
           "3prr-rosyid2020", "slider-crank-simeon"]
DOCS = {name: yaml.safe_load(dump_yaml(load_description(name))) for name in PRESETS}
yaml_values = st.one_of(st.sampled_from(EXTREME), st.floats(), st.integers(),
                        st.booleans(), st.none(), st.text(max_size=5),
                        st.lists(st.floats(allow_nan=False), max_size=4))


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_description_files(tmp_path, data):
    name = data.draw(st.sampled_from(PRESETS))
    doc = yaml.safe_load(yaml.safe_dump(DOCS[name]))
    paths = list(_paths(doc))
    path = data.draw(st.sampled_from(paths))
    value = data.draw(yaml_values)
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    f = tmp_path / "robot.yaml"
    f.write_text(yaml.safe_dump(doc))
    try:
        load_description(f)
    except InputError as exc:
        msg = str(exc)
        assert "\n" not in msg
        key = [str(p) for p in path if isinstance(p, str)][-1]
        assert key in msg or "family" in msg, (path, value, msg)
