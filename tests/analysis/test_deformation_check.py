"""Every small-deformation model states when a run leaves its range (issue 32 item 1,
issue 31 item 2): one check (formulations.base.small_deformation_check) on each model's
own measure of its elastic deformation (``deformation_extent``), applied by the
analyses whatever the formulation.

References written here: the nodal values of a cantilever's cubic deflection
v(x) = c x^2 (3 L - x) (a tip load) are exact in cubic Hermite elements, so the largest
displacement over the length is v(L) / L = 2 c L^2 and the largest rotation
v'(L) = 3 c L^2 (at the tip, one of the sampled points); a sine mode sin(pi x / L) of
amplitude a: largest deflection a (mid-length), largest slope pi a / L (the ends)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from elastodyn.cli import main
from elastodyn.description.files import load_description
from elastodyn.exceptions import ModelError
from elastodyn.formulations.base import (MAX_DISPLACEMENT_RATIO, MAX_ROTATION_RAD,
                                         small_deformation_check)
from elastodyn.formulations.registry import build_model, reference_hint

L = 2.0


def hub_link(tmp_path, length=L, stiffening=True):
    """One beam clamped to an actuated hub (revolute about z), no gravity."""
    f = tmp_path / "hub.yaml"
    f.write_text(f"""
family: tree
name: hub-link
gravity: [0, 0, 0]
joints:
  - {{name: hub, type: revolute, actuated: true}}
  - {{name: tip, parent: hub, type: fixed, d: {length}}}
bodies:
  hub:
    beam:
      length: {length}
      section: {{shape: rectangle, width: 0.01, height: 0.01}}
      material: {{E: 210.0e+9, G: 80.0e+9, rho: 7800}}
      geometric_stiffening: {str(stiffening).lower()}
terminals: [tip]
closure: [vx, vy, wz]
""")
    return f


def cubic_nodes(names, c, axial=0.0):
    """Elastic coordinates by name: the cantilever's cubic v, its slope and a linear u at
    the nodes x = L/2 (node index 1 of 2 elements) and L."""
    x = {"1": L / 2, "2": L} if any(n.endswith("1") for n in names) else {"2": L / 2, "3": L}
    out = []
    for n in names:
        kind, node = n.rstrip("0123456789")[-1], n[len(n.rstrip("0123456789")):]
        xx = x[node]
        out.append({"u": axial * xx / L, "v": c * xx**2 * (3 * L - xx),
                    "z": c * (6 * L * xx - 3 * xx**2), "r": c * (6 * L * xx - 3 * xx**2)}[kind])
    return np.array(out)


@pytest.mark.parametrize("formulation", ["nepvp", "ffrf"])
def test_extent_of_a_tip_loaded_cantilever(tmp_path, formulation):
    """The cubic deflection in each formulation's own coordinates: NE-PVP's (u, v, rz)
    and FFRF's (u, v, r) nodes; two samples, the second with an axial stretch (the
    displacement is the vector's length). Round-off only: 1e-12."""
    m = build_model(load_description(str(hub_link(tmp_path))), formulation, elements=2)
    names = m.coordinates.elastic
    c = 1e-3
    E = np.stack([cubic_nodes(names, c), cubic_nodes(names, c, axial=0.01)])
    ratio, rot = m.deformation_extent(E)
    v = 2 * c * L**3
    assert ratio == pytest.approx([v / L, math.hypot(v, 0.01) / L], rel=1e-12)
    assert rot == pytest.approx([3 * c * L**2] * 2, rel=1e-12)


def test_extent_of_an_assumed_mode():
    """Yu's arm by assumed modes: the first sine mode of link 2 at amplitude a."""
    m = build_model(load_description("arm-yu2019"), "amm")
    a = 0.01
    e = np.zeros(m.n_elastic)
    e[m.coordinates.elastic.index("link2.f1")] = a
    ratio, rot = m.deformation_extent(e[None])
    L2 = m.robot.links[1].length
    assert ratio[0] == pytest.approx(a / L2, rel=1e-12)
    assert rot[0] == pytest.approx(math.pi * a / L2, rel=1e-12)


def test_check_limits_and_words():
    t = np.linspace(0.0, 1.0, 5)
    summary, notes = small_deformation_check("nepvp", [0.01] * 5, [0.02] * 5, t, "HINT")
    assert notes == [] and summary == {"max_displacement_ratio": 0.01, "max_rotation_rad": 0.02}
    _, notes = small_deformation_check("nepvp", [0.01] * 5,
                                       [0, 0, 2 * MAX_ROTATION_RAD, 0, 0], t, "HINT")
    assert "small-deformation range of the nepvp model" in notes[0] and notes[1] == "HINT"
    _, notes = small_deformation_check("ffrf", [0, 1.5 * MAX_DISPLACEMENT_RATIO, 0, 0, 0],
                                       [0] * 5, t, None)
    assert len(notes) == 1 and "15% of the link length" in notes[0]
    with pytest.raises(ModelError, match=r"1\.5 beam lengths.*t = 0\.5 s.*HINT"):
        small_deformation_check("amm", [0, 0, 1.5, 0.5, 0], [0] * 5, t, "HINT")
    with pytest.raises(ModelError, match=r"t = 0\.25 s"):          # a diverged NaN too
        small_deformation_check("amm", [0, np.nan, 0, 0, 0], [0] * 5, t, None)


def test_hint_names_the_exact_formulation_of_the_described_robot(tmp_path):
    """The hint is about the robot the user described: NE-PVP models an arm (and a
    Delta) as a tree of its own, and exact takes the arm; a model built outside the
    registry is asked through its own robot."""
    arm = load_description("arm-yu2019")
    assert "--formulation exact" in reference_hint(build_model(arm, "nepvp", modes=2,
                                                               basis="sine"))
    assert reference_hint(build_model(arm, "exact")) is None       # itself: no hint
    assert "small_deformation" not in build_model(arm, "exact").capabilities


def test_spun_up_beam_without_stiffening_is_refused_by_name(tmp_path, capsys):
    """Issue 32: a 10 m beam spun up about its hub by NE-PVP without geometric stiffening
    answered a 1e5 m tip deflection with exit 0. Now one line, exit 1, naming the time
    and the geometrically exact formulation."""
    f = hub_link(tmp_path, length=10.0, stiffening=False)
    out = tmp_path / "out"
    rc = main(["simulate", str(f), "--trajectory", "rest-to-rest", "--to", "2",
               "--duration", "1", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and "Traceback" not in "\n".join(err)
    assert "beam lengths" in err[-1] and "--formulation exact" in err[-1]
    assert not out.exists()


def test_large_deflection_warns_and_reports(capsys):
    """Issue 35: Briot's PRRRP moved 5 m in 50 ms bends its beams by a quarter of their
    length (NE-PVP): a warning naming the exact formulation and the measures in the
    summary; a gentle move stays silent."""
    import json
    assert main(["simulate", "prrrp-briot2013", "--to", "0", "5", "--duration", "0.05",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["max_displacement_ratio"] > MAX_DISPLACEMENT_RATIO
    assert any("small-deformation range of the nepvp model" in w for w in doc["warnings"])
    assert any("--formulation exact" in w for w in doc["warnings"])
    assert main(["simulate", "prrrp-briot2013", "--to", "0", "0.05", "--duration", "0.5",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["max_displacement_ratio"] < 0.01
    assert not any("small-deformation" in w for w in doc["warnings"])


def test_modes_about_a_large_sag_warn(tmp_path, capsys):
    """modes --preload linearizes about the static deflection: a 3 m, 10 mm steel beam
    held horizontally sags by about 15 % of its length (the cantilever's w L^4 / (8 EI))
    - a warning naming exact; without
    the preload nothing is deflected and nothing is said."""
    import json
    f = hub_link(tmp_path, length=3.0)
    f.write_text(f.read_text().replace("gravity: [0, 0, 0]", "gravity: [0, -9.81, 0]"))
    assert main(["modes", str(f), "--preload", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # the linear sag w L^4 / (8 EI) over L: cubic elements' nodal values are exact for it;
    # NE-PVP's small-rotation terms and the axial shortening change it at O(theta^2)
    # (theta = 0.2 rad: 4 %)
    w = 7800 * 1e-4 * 9.81
    lin = w * 3.0**3 / (8 * 210e9 * 1e-8 / 12)
    assert 0.95 * lin < doc["summary"]["max_displacement_ratio"] < 1.05 * lin
    assert any("--formulation exact" in x for x in doc["warnings"])
    assert main(["modes", str(f), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["warnings"] == [] and "max_displacement_ratio" not in doc["summary"]
