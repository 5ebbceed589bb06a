"""Sensitivities of the 3-PRR's end-effector pose to E, rho, b, h (Rosyid & El-Khasawneh
2020 section 8.4): the exact (complex-step) derivatives against central differences
computed here, the forward differences of the verb against both, the chain rule of the
parameters, and the command line."""
import json

import numpy as np
import pytest

from elastodyn.analysis.sensitivity import pose_sensitivity
from elastodyn.cli import main
from elastodyn.description.presets import get_preset
from elastodyn.formulations.ffrf.model import FFRFModel
from elastodyn.trajectories.efforts import SineEfforts

# short window and a coarse fixed step: the derivatives are those of the discretized
# equations, whatever the step, so the comparison does not need a converged response
T, OUT, STEP = 0.02, 0.005, 2e-4
EFFORTS = SineEfforts([10.0, 2.0, 2.0], 20.0)


@pytest.fixture(scope="module")
def model():
    return FFRFModel(get_preset("3prr-rosyid2020"), {"shape": "fem", "elements": 1})


@pytest.fixture(scope="module")
def both(model):
    return pose_sensitivity(model, EFFORTS, duration=T, output_step=OUT, step=STEP)


def _poses(m):
    t = np.arange(0.0, T + OUT / 2, OUT)
    run = m.run_efforts(EFFORTS, t, step=STEP)
    return np.array([m.pose_of(q) for q in run.q])


# the parameters' effect on (mass per length, EA, EI), written out here independently
FACTORS = {"E": lambda s: (1.0, s, s), "rho": lambda s: (s, 1.0, 1.0),
           "b": lambda s: (s, s, s), "h": lambda s: (s, s, s ** 3)}


@pytest.mark.parametrize("p", ["E", "rho", "b", "h"])
def test_exact_matches_central_differences(model, both, p):
    d = 1e-4
    hi = _poses(model.scaled_beams(**dict(zip(("mass", "axial", "bending"),
                                              FACTORS[p](1 + d)))))
    lo = _poses(model.scaled_beams(**dict(zip(("mass", "axial", "bending"),
                                              FACTORS[p](1 - d)))))
    central = (hi - lo) / (2 * d)                 # p dx/dp, truncation O(d^2) = 1e-8
    j = both["parameters"].index(p)
    exact = np.asarray(both["relative_sensitivity"])[:, 3 * j:3 * j + 3]
    scale = np.abs(exact).max(axis=0)
    assert np.all(scale > 0)
    # Newton's tolerance (1e-12 m, 1e-10 relative) over 2 d = 2e-4 gives ~5e-9 m of noise
    # in the central difference; the smallest peak (E, x) is ~1e-6 m
    assert np.all(np.abs(central - exact).max(axis=0) <= 5e-3 * scale + 1e-8)


def test_forward_differences_agree_with_exact(both):
    fd = np.asarray(both["relative_sensitivity_fd"])
    ex = np.asarray(both["relative_sensitivity"])
    scale = np.abs(ex).max(axis=0)
    # forward differences with a relative step 1e-5: truncation O(1e-5) of the peak, and
    # Newton's tolerance (1e-12 m and 1e-10 of |x|) over 1e-5, ~1e-9 m, against peaks of
    # 2e-6 (E) .. 4e-4 m (rho, b, h); measured 1.2e-4 of the peak at most
    assert np.all(np.abs(fd - ex).max(axis=0) <= 2e-3 * scale)
    assert both.summary["max_relative_difference_fd_vs_exact"] < 2e-3


def test_chain_rule_of_the_parameters(both):
    """b scales the mass, EA and EI by (1 + d): to first order the sum of rho's (mass)
    and E's (EA, EI) changes; h adds twice the EI-only change (EI ~ h^3). Exact
    derivatives obey it to round-off."""
    S = np.asarray(both["relative_sensitivity"])
    names = both["parameters"]
    col = {p: S[:, 3 * names.index(p):3 * names.index(p) + 3] for p in names}
    scale = np.abs(col["b"]).max()
    np.testing.assert_allclose(col["b"], col["rho"] + col["E"], atol=1e-7 * scale)


def test_si_derivatives_and_layout(both):
    names = both["parameters"]
    nom = both.summary["nominal_parameters"]
    assert nom == {"E": 70e9, "rho": 2800.0, "b": 0.15, "h": 0.05}
    S, R = np.asarray(both["sensitivity"]), np.asarray(both["relative_sensitivity"])
    for j, p in enumerate(names):
        np.testing.assert_allclose(S[:, 3 * j:3 * j + 3] * nom[p], R[:, 3 * j:3 * j + 3],
                                   rtol=1e-12)
    d = both.to_dict()
    assert len(d["time_s"]) == 5 and np.asarray(d["sensitivity"]).shape == (5, 12)
    header, rows = both.table()
    assert "dy_dh_m_per_m" in header and "h_dy_dh_m_fd" in header
    assert set(both.figures()) == {"sensitivity_x", "sensitivity_y", "sensitivity_theta"}


def test_bad_input(model):
    with pytest.raises(ValueError, match="--parameters"):
        pose_sensitivity(model, EFFORTS, duration=T, parameters=("E", "nu"))
    with pytest.raises(ValueError, match="--method"):
        pose_sensitivity(model, EFFORTS, duration=T, method="adjoint")
    with pytest.raises(ValueError, match="--relative-step"):
        pose_sensitivity(model, EFFORTS, duration=T, relative_step=0.5)
    rigid = FFRFModel(get_preset("3prr-rosyid2020"), {"rigid": True})
    with pytest.raises(ValueError, match="--rigid|flexible"):
        pose_sensitivity(rigid, EFFORTS, duration=T)


def test_cli(capsys):
    rc = main(["sensitivity", "3prr-rosyid2020", "--elements", "1", "--duration", "0.004",
               "--step", "0.002", "--integrator-step", "2e-4", "--parameters", "h,E",
               "--method", "complex-step", "--json"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["command"] == "sensitivity" and d["formulation"] == "ffrf"
    assert d["parameters"] == ["h", "E"] and "relative_sensitivity_fd" not in d
    assert np.asarray(d["relative_sensitivity"]).shape == (3, 6)
    assert d["inputs"]["efforts"]["amplitude"] == [10.0, 2.0, 2.0]


@pytest.mark.parametrize("args, flag", [
    (["--parameters", "E,nu"], "--parameters"),
    (["--method", "adjoint"], "--method"),
    (["--amplitude", "1", "1", "1"], "--amplitude"),
    (["--efforts", "sine", "--amplitude", "1", "1", "1"], "--rate"),
    (["--efforts", "sine", "--peak", "1", "1", "1", "--rate", "2",
      "--amplitude", "1", "1", "1"], "--peak"),
    (["--efforts", "sine", "--rate", "2", "--amplitude", "1", "1"], "--amplitude"),
    (["--formulation", "nepvp"], "--formulation"),
    (["--scenario", "nope"], "--scenario"),
    (["--integrator-step", "0.5"], "--integrator-step"),
])
def test_cli_bad_input(capsys, args, flag):
    rc = main(["sensitivity", "3prr-rosyid2020", "--duration", "0.002", "--step", "0.001",
               "--json"] + args)
    err = capsys.readouterr().err
    assert rc == 2 and flag in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
