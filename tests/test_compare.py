"""``compare``: one robot through every formulation. The acceptance pairs must agree
where they are the same linear model (3-PRR by ffrf and NE-PVP with the same elements;
Yu's arm by assumed modes and NE-PVP with the same modes; Kuo's Delta by KED and NE-PVP,
no preload, same elements), and a different discretization must differ by its error
(which shrinks with the mesh); the command line and its refusals."""
import json

import numpy as np
import pytest

from elastodyn.analysis.compare import compare
from elastodyn.cli import main
from elastodyn.description.delta_tree import delta_tree
from elastodyn.description.flexible_delta import flexible_delta_kuo2016
from elastodyn.formulations.ked_contract import KEDContract
from elastodyn.formulations.nepvp_contract import NEPVPContract


def _json(capsys, args):
    rc = main(["compare"] + args + ["--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def _freqs(d, label):
    return np.asarray(d["frequencies_hz"])[:, d["variants"].index(label)]


def test_3prr_ffrf_and_nepvp_are_one_model(capsys):
    d = _json(capsys, ["3prr-rosyid2020", "--elements", "2", "--count", "6"])
    assert d["variants"] == ["ffrf-fem-2", "ffrf-rr", "nepvp-2"]
    # the same cubic elements clamped at the joints, the same fitted density: eigen-
    # solver round-off (measured 1e-13)
    np.testing.assert_allclose(_freqs(d, "nepvp-2"), _freqs(d, "ffrf-fem-2"), rtol=1e-9)
    # Rayleigh-Ritz is one cubic per body: stiffer than 2 elements by its discretization
    # error (several %), never below the finer mesh (Rayleigh quotient)
    rr, fem = _freqs(d, "ffrf-rr"), _freqs(d, "ffrf-fem-2")
    assert np.all(rr >= fem * (1 - 1e-12)) and np.max(rr / fem - 1) > 0.02
    assert "discretization error" in d["notes"][0] and "round-off" in d["notes"][1]
    assert d["warnings"] == [] or all("static" not in w for w in d["warnings"])
    D = np.asarray(d["static_deflection"], dtype=float)
    # under gravity the platform sags: micrometres for these stiff links, every model
    assert np.all(np.abs(D[:, 1]) < 1e-4) and np.all(D[:, 1] < 0)


def test_rayleigh_ritz_and_finite_elements_converge_together(capsys):
    gaps = []
    for n in (1, 2, 4):
        d = _json(capsys, ["prrrp-briot2013", "--elements", str(n), "--count", "2"])
        gaps.append(np.max(np.abs(_freqs(d, f"ffrf-fem-{n}") / _freqs(d, f"nepvp-{n}") - 1)))
        if n == 1:   # Rayleigh-Ritz is the one-element body
            np.testing.assert_allclose(_freqs(d, "ffrf-rr"), _freqs(d, "ffrf-fem-1"),
                                       rtol=1e-10)
    assert max(gaps) < 1e-9


def test_arm_amm_and_nepvp_modes_agree(capsys):
    d = _json(capsys, ["arm-yu2019", "--modes", "3"])
    np.testing.assert_allclose(_freqs(d, "nepvp-modes-3"), _freqs(d, "amm-3"), rtol=1e-9)
    f = np.asarray(d["frequencies_hz"])
    assert np.isnan(f[:, 0]).sum() == 0     # 2 links x 3 modes = 6 frequencies


def test_delta_ked_and_nepvp_agree_without_preload():
    kuo = flexible_delta_kuo2016()
    ked = KEDContract(kuo, elements=1, order="cubic", preload=True)
    nep = NEPVPContract(delta_tree(kuo, 1), {"elements": 1})
    q = ked.state(pose=np.array([0.1, 0.0, 0.5])).actuated
    r = compare([("ked-1", ked, "cubic FE x 1"), ("nepvp-1", nep, "cubic FE x 1")],
                lambda m: m.state(actuated=q), count=6, robot="delta-kuo2016")
    F = np.asarray(r["frequencies_hz"])
    np.testing.assert_allclose(F[:, 1], F[:, 0], rtol=1e-8)
    assert r.summary["max_relative_difference_nepvp-1"] < 1e-8
    assert any("ked-1: no static deflection" in w for w in r.warnings)
    assert np.all(np.isnan(np.asarray(r["static_deflection"])[0]))
    assert set(r.figures()) == {"compare"}


def test_a_disagreement_of_one_model_is_warned():
    """Two models declared the same discretization whose frequencies differ: warned."""
    from elastodyn.description.presets import get_preset
    from elastodyn.formulations.ffrf_contract import FFRFContract
    rob = get_preset("prrrp-briot2013")
    a = FFRFContract(rob, {"elements": 1})
    b = FFRFContract(rob, {"elements": 2})
    r = compare([("a", a, "same"), ("b", b, "same")], lambda m: m.state(), count=2)
    assert any("should be the same linear model" in w for w in r.warnings)


@pytest.mark.parametrize("args, flag", [
    (["delta-asadi2020"], "ROBOT"),
    (["3prr-rosyid2020", "--modes", "3"], "--modes"),
    (["3prr-rosyid2020", "--count", "0"], "--count"),
    (["3prr-rosyid2020", "--elements", "0"], "--elements"),
    (["3prr-rosyid2020", "--actuated", "1"], "--actuated"),
])
def test_bad_input(capsys, args, flag):
    rc = main(["compare"] + args)
    err = capsys.readouterr().err
    assert rc == 2 and flag in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
