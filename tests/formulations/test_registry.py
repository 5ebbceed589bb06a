"""The formulation registry (formulations/registry.py): each formulation is one entry of
data, and the entries agree with the models they build.

What the command line asks of a formulation (its families, options and their limits,
whether it is rigid, has a closed-loop engine, symbolic problems, task-space poses, the
verbs listed by ``elastodyn robots``) is read from the entry; these tests check each
entry against the model it builds (capabilities, coordinates), so that the data cannot
drift from the code, and that an unknown name is bad input, never a KeyError.
"""
from __future__ import annotations

import dataclasses

import pytest

from elastodyn.analysis.simulate import simulate_controlled
from elastodyn.cli import VERBS
from elastodyn.description.files import load_description
from elastodyn.description.presets import PRESETS
from elastodyn.description.schema import FAMILIES
from elastodyn.exceptions import InputError
from elastodyn.formulations import registry as R



_models: dict = {}
POSES = {"delta": (0.1, 0.0, 0.5), "arm": (0.67, 0.34)}
"""A pose inside each preset family's workspace (Kuo 5.2; Yu's circle centre)."""


def _pairs():
    return [(p, f) for p in PRESETS for f in R.formulations_for(load_description(p))]


def _model(preset, form):
    if (preset, form) not in _models:
        _models[preset, form] = R.build_model(load_description(preset), form)
    return _models[preset, form]


def test_entries_are_frozen_data():
    for name, f in R.FORMULATIONS.items():
        assert f.name == name
        with pytest.raises(dataclasses.FrozenInstanceError):
            f.rigid = not f.rigid
        with pytest.raises(TypeError):
            f.options["elements"] = 3          # read-only mapping
        assert set(f.families) <= set(FAMILIES), name
        assert set(f.verbs) <= set(VERBS), name
        assert callable(f.build), name
        assert R.OPTIONS[name] == dict(f.options)


def test_limits_cover_the_discretization_options():
    """An option that sets a discretization has its limit, and only then."""
    for name, f in R.FORMULATIONS.items():
        for option in ("elements", "modes"):
            assert (option in f.options) == (getattr(f.limits, option) is not None), name
        assert f.limits.simulate_time > 0 and f.limits.torques_time > 0


@pytest.mark.parametrize("preset,form", _pairs())
def test_entry_agrees_with_its_model(preset, form):
    entry, model = R.get(form), _model(preset, form)
    assert model.formulation == form
    caps = model.capabilities
    # rigid: no elastic coordinates, no natural frequencies (modes, map, convergence)
    assert entry.rigid == (model.coordinates.n_elastic == 0)
    assert entry.rigid == ("modes" not in entry.verbs)
    # symbolic problems: the model has a program, and generate lists it
    assert bool(entry.problems) == ("program" in caps) == ("generate" in entry.verbs)
    # a task-space pose of pose_dim coordinates: the inverse kinematics takes it and the
    # state's pose returns it (amm: a two-link arm's tip)
    if "inverse_kinematics" in caps:
        pose = POSES[load_description(preset).family]
        dim = R.pose_dim_of(model)    # per family where the entry takes several
        assert dim == len(pose)
        st = model.state(pose=pose)
        assert st.pose[:dim] == pytest.approx(pose, abs=1e-9)
    else:
        assert R.pose_dim_of(model) is None or preset == "arm-yu2019"
    # a model that follows task-space paths only has an inverse kinematics
    if entry.task_space_only:
        assert "inverse_kinematics" in caps
    # motion-driven simulation: every flexible model; a rigid one under control only
    assert ("simulate_motion" in caps) == (not entry.rigid)
    assert "torques" in entry.verbs and "simulate" in entry.verbs


@pytest.mark.parametrize("preset,form", _pairs())
def test_closed_loop_flag_is_what_simulate_controlled_answers(preset, form):
    """closed_loop True: simulate_controlled has an engine (checked by running a
    tenth of a second); False: it refuses naming the formulations that have one."""
    from elastodyn.analysis.scenario import build_trajectory
    from elastodyn.description.scenarios import scenario
    entry, model = R.get(form), _model(preset, form)
    scen = scenario(preset) or {}
    if not entry.closed_loop:
        with pytest.raises(InputError, match="closed-loop engine") as exc:
            simulate_controlled(model, None, {"kind": "pd"}, duration=0.1, step=0.01)
        closed = [n for n, f in R.FORMULATIONS.items() if f.closed_loop]
        assert ", ".join(closed) in str(exc.value)
        return
    if "inverse_kinematics" not in model.capabilities:
        pytest.skip("a task-space scenario needs the inverse kinematics")
    traj = build_trajectory(scen["trajectory"], model)
    res = simulate_controlled(model, traj, {"kind": "pd"}, duration=0.02, step=0.01)
    assert res.formulation == form


def test_default_is_the_first_entry_that_takes_the_robot():
    # a flexible Delta with universal joints: NE-PVP too (after the Delta formulations),
    # and the geometrically exact beams (any joints)
    assert R.formulations_for(load_description("delta-kuo2016")) == [
        "ked", "explicit", "multipliers", "nepvp", "exact"]
    assert R.formulations_for(load_description("delta-kuo2016", ["joints.d=clamped"])) == [
        "ked", "explicit", "multipliers", "exact"]
    assert R.formulations_for(load_description("delta-asadi2020")) == [
        "explicit", "multipliers"]
    assert R.formulations_for(load_description("prrrp-briot2013")) == ["nepvp", "ffrf",
                                                                        "exact"]
    # the description names its default (formulation: ffrf) ahead of the registry order
    assert R.formulations_for(load_description("3prr-rosyid2020")) == ["ffrf", "nepvp",
                                                                        "exact"]
    # the geometrically exact formulation takes arms too, last (slowest, the reference)
    assert R.formulations_for(load_description("arm-yu2019")) == ["amm", "nepvp", "exact"]
    for p in PRESETS:
        spec = load_description(p)
        assert R.default_formulation(spec) == R.formulations_for(spec)[0]
        assert R.formulation_for(spec).name == R.formulations_for(spec)[0]


@pytest.mark.parametrize("call", [
    lambda: R.get("bogus"),
    lambda: R.describe_formulation("bogus"),
    lambda: R.build_model(load_description("arm-yu2019"), "bogus"),
    lambda: R.formulation_for(load_description("arm-yu2019"), "bogus"),
    lambda: R.get(None),
    lambda: R.get(["ked"]),
])
def test_unknown_formulation_is_input_error_not_key_error(call):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.name == "--formulation"
    assert R.lookup("bogus") is None and R.lookup(["ked"]) is None


def test_inapplicable_formulation_names_what_is_missing():
    with pytest.raises(InputError, match="ked needs links.upper/lower section"):
        R.build_model(load_description("delta-asadi2020"), "ked")
    with pytest.raises(InputError, match="one of amm, nepvp, exact for this arm robot"):
        R.build_model(load_description("arm-yu2019"), "ked")


PLUGIN = """
from elastodyn.formulations import registry as R


def build(form, robot, fam, opts):
    model = R.build_model(robot, "nepvp", elements=opts["elements"])
    model.formulation = form.name
    return model


FE = R.Formulation("nepvp-fe", ("tree",), "NE-PVP, two elements per beam",
                   options={"elements": 2}, verbs=("modes",),
                   limits=R.Limits(elements=3), build=build)
"""


def test_a_new_formulation_is_one_entry_point(register_formulation):
    """A formulation registered by an entry point of another distribution (here a
    finite-element NE-PVP with its own name, default and limits) is taken by
    formulations_for, build_model and its limits, without any table of elastodyn."""
    register_formulation("nepvp_fe_plugin", PLUGIN, {"nepvp-fe": "FE"})
    spec = load_description("prrrp-briot2013")
    assert R.formulations_for(spec) == ["nepvp", "ffrf", "exact", "nepvp-fe"]
    model = R.build_model(spec, "nepvp-fe")
    assert model.formulation == "nepvp-fe"
    assert model.coordinates.n_elastic == 2 * R.build_model(spec, "nepvp").coordinates.n_elastic
    with pytest.raises(InputError, match=r"\[1, 3\]"):
        R.build_model(spec, "nepvp-fe", elements=4)
    with pytest.raises(InputError, match="it takes elements"):
        R.build_model(spec, "nepvp-fe", modes=2)


def test_a_broken_plugin_is_left_out_with_a_warning(register_formulation):
    register_formulation("broken_plugin", "raise ImportError('no such thing')\n",
                         {"broken": "X"})
    with pytest.warns(R.RegistryWarning, match="'broken'.*failed to load"):
        names = list(R.FORMULATIONS)
    assert "broken" not in names and names[0] == "ked"


def test_builtins_are_entry_points_as_pyproject_declares():
    """The built-ins register through the entry-point group (installed metadata), and
    the registry's fallback table equals pyproject.toml's."""
    import tomllib
    from importlib.metadata import entry_points
    from pathlib import Path
    py = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    declared = py["project"]["entry-points"][R.ENTRY_POINT_GROUP]
    assert declared == R.BUILTIN
    installed = {ep.name: ep.value for ep in entry_points(group=R.ENTRY_POINT_GROUP)}
    assert {k: installed.get(k) for k in declared} == declared


def test_a_description_names_its_default_formulation():
    spec = load_description("prrrp-briot2013", ["formulation=ffrf"])
    assert R.formulations_for(spec) == ["ffrf", "nepvp", "exact"]
    assert R.formulation_for(spec).name == "ffrf"
    bad = load_description("prrrp-briot2013", ["formulation=amm"])
    with pytest.raises(InputError, match="formulation"):
        R.formulation_for(bad)
