"""Simeon's elastic slider crank (IVP test set "crank") by the FFRF formulation with
Simeon's ansatz (--shape sine): against the independent reference integration
(tests/references/reference_slider_crank.py, minimal coordinates, DOP853 at 1e-12)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import reference_slider_crank as ref
from elastodyn.cli import main
from elastodyn.description.presets import get_preset
from elastodyn.description.scenarios import scenario
from elastodyn.exceptions import InputError
from elastodyn.formulations.registry import build_model

PRESET = "slider-crank-simeon"


def _model(**kw):
    return build_model(get_preset(PRESET), "ffrf", shape="sine", **kw)


def test_preset_data_and_rod_invariants():
    """The data set of crank.f: rod mass rho A L2 = 0.151104 kg; its rotary inertia
    about A is M2 L2^2 / 3 (the test set's J2 also holds the section term M2 HH^2 / 12,
    1.8e-4 of it, which an Euler-Bernoulli axis line does not carry: our decision);
    crank inertia J1 about the pivot; slider mass."""
    m = _model()
    rod = m.system.bodies[1]
    assert rod.inv.mass == pytest.approx(ref.M2, rel=1e-12)
    # J2 is printed to 8 significant digits in crank.f
    assert rod.inv.J_oo == pytest.approx(ref.J2 - ref.M2 * ref.HH ** 2 / 12, rel=1e-8)
    assert m.system.bodies[0].inv.J_oo == pytest.approx(ref.J1, rel=1e-12)
    assert m.system.bodies[3].inv.mass == pytest.approx(ref.M3)
    assert m.coordinates.names == ("c", "a.w1", "a.w2", "a.u_mid", "a.u_end")
    # the lateral frequencies of the rod pinned at both ends, sliders locked: pi^2 k^2
    # sqrt(EI / (rho A L^4)) exactly for sine modes (the axial element couples nothing)
    K = m.system.elastic_stiffness()
    w_lat = np.sqrt(K[0, 0] / rod.inv.S_ff[0, 0]), np.sqrt(K[1, 1] / rod.inv.S_ff[1, 1])
    exact = np.pi ** 2 * np.sqrt(ref.EE * ref.INERTIA / (ref.RHO * ref.AREA * ref.L2 ** 4))
    assert w_lat[0] == pytest.approx(exact, rel=1e-10)
    assert w_lat[1] == pytest.approx(4 * exact, rel=1e-10)


def test_drive_follows_the_independent_reference():
    """0-20 ms from the test set's initial values: the rod's mid-span deflection (peak
    1.6 mm) within 2e-7 m and the slider within 3e-7 m of the reference (consistent mass
    matrices). Step 2e-5 s (the scenario's): second order on the lateral modes (60
    steps per period of the second); the axial modes (2.6e4, 9.5e4 rad/s) are not
    resolved and leave ~1e-7 m on the slider."""
    m = _model()
    sc = scenario(PRESET)
    t = np.linspace(0.0, 0.02, 11)
    run = m.run_drive([150.0], t, elastic=sc["initial"]["elastic"],
                      elastic_rates=sc["initial"]["elastic_rates"], step=2e-5)
    mid = np.array([m.midspan_deflections(q)[0] for q in run.q])
    x3 = np.array([m.joint_positions(q)[3][0] for q in run.q])
    r = ref.simulate(0.02, t, variant="consistent")
    assert np.abs(mid).max() > 1e-3
    assert np.abs(mid - r["midspan_deflection"]).max() < 2e-7
    assert np.abs(x3 - r["x3"]).max() < 3e-7
    assert run.residual.max() < 1e-11


def test_cli_simulate_json(capsys):
    """``simulate slider-crank-simeon --json``: the scenario's model (ffrf, sine, 2
    modes), mid-span deflection and slider position over the window."""
    assert main(["simulate", PRESET, "--json", "--duration", "0.004", "--step", "0.001",
                 "--integrator-step", "1e-4"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["formulation"] == "ffrf" and d["model"]["shape"] == "sine"
    assert len(d["midspan_deflection_m"]) == 5
    xs = [row[6] for row in d["joint_positions_m"]]   # joint s (4th): x
    assert xs[0] == pytest.approx(0.45, abs=1e-4)
    assert xs[-1] < xs[0]


def test_sine_shape_refusals():
    with pytest.raises(InputError, match="--boundary"):
        _model(boundary="fixed-free")
    with pytest.raises(InputError, match="--modes"):
        build_model(get_preset(PRESET), "ffrf", shape="fem", modes=3)
