"""A formulation from outside elastodyn (issue 30): tests/plugins holds a distribution,
``elastodyn-pendulum``, whose only link to elastodyn is its entry point in the group
``elastodyn.formulations``; no file under src/ names it. Every verb it declares (modes,
torques, simulate) runs on it through the public contract, against the pendulum's own
closed forms, and a verb it does not declare is refused with one line."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from elastodyn.cli import main
from elastodyn.formulations import registry

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
ONE_LINK = """\
family: arm
name: one-link
gravity: 9.81
links:
  - length: 0.5
    mass: 0.4
    E: 2.0e+11
    I: 1.0e-10
    hub_inertia: 3.0e-3
payload: {mass: 0.2, inertia: 0.0}
"""
L, m, M, E, Iz, J, g = 0.5, 0.4, 0.2, 2.0e11, 1.0e-10, 3.0e-3, 9.81
INERTIA = m * L * L / 3 + M * L * L          # the link about its joint
MOMENT = m * L / 2 + M * L                   # first moment of the link and its tip body
K = 3 * E * Iz / L                           # joint stiffness of the lumped flexibility


@pytest.fixture
def plugin(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(PLUGINS))
    registry.refresh()
    f = tmp_path / "one.yaml"
    f.write_text(ONE_LINK)
    yield f
    registry.refresh()


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line]


def _json(capsys, argv):
    code, out, err = _run(capsys, [*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


def _twist(q):
    """Static twist e of the elastic joint at motor angle q: k e + g s cos(q + e) = 0."""
    return brentq(lambda e: K * e + g * MOMENT * np.cos(q + e), -1.0, 1.0, xtol=1e-15)


def test_registered_by_its_entry_point_only(plugin):
    from elastodyn.description.files import load_description
    assert "pendulum" in registry.formulations_for(load_description(str(plugin)))
    assert "pendulum" not in registry.formulations_for(load_description("arm-yu2019"))
    src = Path(registry.__file__).resolve().parents[1]
    # no code of elastodyn names it: no import of the plugin, no literal of its name
    import ast
    for p in src.rglob("*.py"):
        tree = ast.parse(p.read_text())
        for n in ast.walk(tree):
            assert not (isinstance(n, ast.Constant) and n.value == "pendulum"), p
            assert not (isinstance(n, (ast.Import, ast.ImportFrom)) and "elastodyn_pendulum"
                        in ast.dump(n)), p


def test_modes_against_the_closed_form(plugin, capsys):
    doc = _json(capsys, ["modes", str(plugin), "--formulation", "pendulum",
                         "--actuated", "0.3", "--count", "1"])
    # without preload: the joint's stiffness on the link's inertia
    np.testing.assert_allclose(doc["omega_rad_s"], [np.sqrt(K / INERTIA)], rtol=1e-9)
    # about the sag under gravity: K_T = k - g s sin(q + e_s) (finite-difference tangent
    # of the base class: 1e-10 relative, FD_STEP's truncation and round-off)
    doc = _json(capsys, ["modes", str(plugin), "--formulation", "pendulum",
                         "--actuated", "0.3", "--count", "1", "--preload"])
    q = 0.3 + _twist(0.3)
    np.testing.assert_allclose(doc["omega_rad_s"],
                               [np.sqrt((K - g * MOMENT * np.sin(q)) / INERTIA)], rtol=1e-7)


def test_torques_and_simulate_keep_the_energy_balance(plugin, capsys):
    move = ["--trajectory", "rest-to-rest", "--from", "0", "--to", "0.5",
            "--motion-time", "0.5", "--duration", "0.6", "--step", "1e-3"]
    tq = _json(capsys, ["torques", str(plugin), "--formulation", "pendulum", *move])
    t, qa = np.array(tq["time_s"]), np.array(tq["actuated"])[:, 0]
    # the rigid robot's torques: (J + I) qdd + g s cos q (qdd by the rest-to-rest law's
    # second differences: O(h^2) = 1e-5 of its scale)
    qdd = np.gradient(np.gradient(qa, t), t)
    rigid = (J + INERTIA) * qdd + g * MOMENT * np.cos(qa)
    np.testing.assert_allclose(np.array(tq["rigid_torque_nm"])[5:-5, 0], rigid[5:-5],
                               atol=2e-3 * np.abs(rigid).max())
    # the flexible robot starts at its static sag, holding it: tau = g s cos(q0 + e_s)
    assert tq["torque_nm"][0][0] == pytest.approx(g * MOMENT * np.cos(_twist(0.0)),
                                                  rel=1e-8)
    sim = _json(capsys, ["simulate", str(plugin), "--formulation", "pendulum", *move])
    np.testing.assert_allclose(sim["torque_nm"], tq["torque_nm"], rtol=0, atol=1e-12)
    # the work of the motor equals the change of the pendulum's energy (no damping):
    # trapezoidal rule on 1 ms samples, O(h^2) of the work
    from elastodyn.description.files import load_description
    model = registry.build_model(load_description(str(plugin)), "pendulum")
    qd = np.gradient(qa, t)
    e, ed = np.array(sim["elastic"])[:, 0], None
    ed = np.gradient(e, t)
    energy = [sum(model.energy(model.state(actuated=[a], rates=[v], elastic=[x],
                                           elastic_rates=[y])))
              for a, v, x, y in zip(qa, qd, e, ed)]
    work = np.trapezoid(np.array(sim["torque_nm"])[:, 0] * qd, t)
    assert energy[-1] - energy[0] == pytest.approx(work, rel=2e-3)


def test_a_verb_it_does_not_declare_is_refused(plugin, capsys):
    code, out, err = _run(capsys, ["map", str(plugin), "--formulation", "pendulum"])
    assert code == 2 and out == "" and len(err) == 1
    assert "pendulum answers: modes, torques, simulate" in err[0]
