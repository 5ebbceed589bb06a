"""Robot description files: round trips and refusals.

Round trips (the same robot both ways, checked as equal dataclasses, the strongest
statement available: the formulations take nothing else):

* every preset: preset -> spec -> dataclass is the preset; spec -> dataclass -> spec is
  the spec; YAML dump -> load gives the spec and the same text again;
* richer specs written here: an arm with every kind of body, a tree robot with
  attachments and motors, a Delta with lumped rigid links (and a payload, motor
  friction), a flexible Delta with a rigid-body platform, a payload, motors and other
  lower links.

Refusals, each one line naming the file (or ``--set``), the YAML path, the value and what
is allowed, raised as InputError: a ``!!python/object`` tag (read by ``yaml.safe_load``:
no object is built, no code runs), an unknown key (with the allowed keys), a wrong type,
a bad ``--set`` on a list item, a missing file, a document that is not a mapping, a file
over the size cap.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from elastodyn.description import schema as S
from elastodyn.description.arm import ArmLink, LumpedMass, PlanarArm
from elastodyn.description.convert import (flexible_delta, planar_arm, rigid_delta,
                                           to_spec, tree_robot)
from elastodyn.description.delta import RigidDelta
from elastodyn.description.files import (MAX_FILE_BYTES, DescriptionError, apply_sets,
                                         dump_yaml, load_description)
from elastodyn.description.flexible_delta import FlexibleDelta, flexible_delta_kuo2016
from elastodyn.description.presets import PRESETS
from elastodyn.description.tree import TreeRobot
from elastodyn.exceptions import InputError


def _build(spec, like):
    """The dataclass of ``spec`` of the same kind as ``like`` (with its model options)."""
    if isinstance(like, RigidDelta):
        return rigid_delta(spec)
    if isinstance(like, FlexibleDelta):
        return flexible_delta(spec)
    if isinstance(like, TreeRobot):
        return tree_robot(spec)
    assert isinstance(like, PlanarArm)
    return planar_arm(spec, modes=like.modes, basis=like.basis)


def _through_yaml(spec, tmp_path, name="robot.yaml"):
    """Dump, write, load: the loaded spec (and the dump of it must be the same text)."""
    text = dump_yaml(spec)
    f = tmp_path / name
    f.write_text(text)
    back = load_description(f)
    assert dump_yaml(back) == text
    return back


def _one_line(exc) -> str:
    text = str(exc)
    assert "\n" not in text and isinstance(exc, InputError) and isinstance(exc, ValueError)
    return text


# ------------------------------------------------------------------ presets
@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips(name, tmp_path):
    obj = PRESETS[name]()
    spec = to_spec(obj)
    assert _build(spec, obj) == obj
    assert to_spec(_build(spec, obj)) == spec
    assert _through_yaml(spec, tmp_path) == spec
    assert load_description(name) == spec


def test_kuo_preset_is_the_flexible_delta_of_its_file(tmp_path):
    """The KED model takes the flexible Delta of the same description: the one built by
    hand from Kuo's Table 1 (flexible_delta_kuo2016), also after the file."""
    spec = _through_yaml(to_spec(PRESETS["delta-kuo2016"]()), tmp_path)
    assert flexible_delta(spec) == flexible_delta_kuo2016()
    assert to_spec(flexible_delta_kuo2016()) == spec


# ------------------------------------------------------------------ planar arm
ARM = """\
family: arm
name: arm-all-bodies
gravity: 9.81
links:
  - length: 0.5
    mass: 0.4
    E: 2.0e+11
    I: 1.0e-10
    hub_inertia: 3.0e-3
    gear_ratio: 50
    coulomb: 0.01
    viscous: 0.004
    lumped_masses:
      - {mass: 0.8, inertia: 4.0e-3, position: 0.15}
      - {mass: 1.2, inertia: 6.0e-3, mu: -0.2}
      - {mass: 0.5, inertia: 2.0e-3}
  - length: 0.4
    mass: 0.3
    E: 7.0e+10
    I: 2.0e-10
    lumped_masses:
      - {mass: 2.5, mu: -0.1}
  - length: 0.3
    mass: 0.1
    E: 7.0e+10
    I: 3.0e-11
    hub_inertia: 1.0e-3
payload: {mass: 0.7, inertia: 5.0e-3}
"""


def test_arm_with_every_body_round_trips(tmp_path):
    """Lumped masses placed by s, by mu and at the end, with rotary inertias; Yu's one
    mass by mu (built with Yu's arguments); a link without bodies; hubs; payload;
    gears and friction."""
    f = tmp_path / "arm.yaml"
    f.write_text(ARM)
    spec = load_description(f)
    arm = planar_arm(spec, modes=3, basis="clamped-free")
    assert arm.links[0].lumped_masses == (LumpedMass(0.8, 4e-3, position=0.15),
                                          LumpedMass(1.2, 6e-3, mu=-0.2),
                                          LumpedMass(0.5, 2e-3))
    assert arm.links[1] == ArmLink(0.4, 0.3, 7e10, 2e-10, 2.5, -0.1)
    assert arm.links[2].lumped_masses == () and arm.links[2].hub_inertia == 1e-3
    assert arm.payload == LumpedMass(0.7, 5e-3) and (arm.modes, arm.basis) == (3, "clamped-free")
    back = to_spec(arm)
    assert back == spec
    assert planar_arm(back, modes=3, basis="clamped-free") == arm
    assert _through_yaml(spec, tmp_path) == spec


def test_arm_dataclass_round_trips():
    """From the dataclass side: every body as placed (position, mu or neither), hubs,
    payload (a payload placed at the tip by its position reads back as the same body at
    the tip); Yu's zero default mass is no body."""
    arm = PlanarArm("a", (
        ArmLink(0.5, 0.4, 2e11, 1e-10, hub_inertia=2e-3, lumped_masses=(
            LumpedMass(0.3, 1e-3, position=0.2), LumpedMass(0.1, mu=-0.5),
            LumpedMass(0.2, 5e-4))),
        ArmLink(0.4, 0.3, 2e11, 5e-11, 1.5, -0.25, 20.0, 0.02, 0.003),
        ArmLink(0.2, 0.1, 2e11, 2e-11)),
        modes=2, basis="sine", gravity=9.0, payload=LumpedMass(0.4, 2e-3, position=0.2))
    spec = to_spec(arm)
    assert spec.links[2].lumped_masses == ()
    back = planar_arm(spec)
    assert back.links == arm.links[:2] + (ArmLink(0.2, 0.1, 2e11, 2e-11, lumped_masses=()),)
    assert back.links[2].lumped_masses == () and arm.links[2].lumped_masses[0].mass == 0.0
    assert back.payload == LumpedMass(0.4, 2e-3)
    assert back.link_bodies(2) == tuple(b for b in arm.link_bodies(2) if b[0] or b[1])
    assert to_spec(back) == spec


def test_arm_link_by_section_is_the_same_arm_after_a_round_trip():
    """A link given by section and material: the arm dataclass has E, I and the mass, so
    the spec comes back with those (the same arm); the section itself is not kept
    (PlanarArm has none)."""
    spec = apply_sets(S.parse_spec({"family": "arm", "links": [{
        "length": 0.3, "section": {"shape": "circle", "diameter": 0.01},
        "material": {"E": 7e10, "G": 2.6e10, "rho": 2700}}]}), [])
    arm = planar_arm(spec)
    assert abs(arm.links[0].I / (math.pi * 0.01**4 / 64) - 1) < 1e-15
    back = to_spec(arm)
    assert back.links[0].section is None and planar_arm(back) == arm


# ------------------------------------------------------------------ tree robot
TREE = """\
family: tree
name: five-bar-with-attachments
gravity: [0, 0, 9.81]
joints:
  - {name: q1, type: prismatic, actuated: true}
  - {name: q2, parent: q1, alpha: 1.5707963267948966}
  - {name: q3, parent: q2, d: 0.4}
  - {name: q4, type: prismatic, actuated: true, d: 0.6}
  - {name: q5, parent: q4, alpha: 1.5707963267948966}
  - {name: tip2, parent: q5, type: fixed, d: 0.4}
bodies:
  q1: {rigid: {mass: 1.0}}
  q2:
    beam:
      length: 0.4
      section: {shape: rectangle, width: 0.002, height: 0.002}
      material: {E: 7.0e+10, G: 2.6e+10, rho: 2800}
  q4:
    rigid:
      mass: 1.0
      com: [0.01, 0.02, 0.0]
      inertia: [[1.0e-3, 1.0e-4, 0], [1.0e-4, 2.0e-3, 0], [0, 0, 3.0e-3]]
  q5:
    beam:
      length: 0.4
      section: {shape: general, area: 4.0e-6, iy: 1.3e-12, iz: 1.4e-12, j: 2.2e-12}
      material: {E: 7.0e+10, G: 2.6e+10, rho: 2800}
      geometric_stiffening: false
attachments:
  - {beam: q2, at: 0.2, mass: 0.05, com: [0.003, 0.001, 0],
     inertia: [[0, 0, 0], [0, 0, 0], [0, 0, 2.0e-6]]}
  - {beam: q5, at: 0.1, mass: 0.03, name: clamp}
terminals: [q3, tip2]
platform: {mass: 1.0, com: [0.001, 0, 0.002], inertia: [[0, 0, 0], [0, 3.0e-5, 0], [0, 0, 0]]}
closure: [vx, vz, wy]
motors:
  q1: {inertia: 0.2, viscous: 3.0, coulomb: 0.5}
  q4: {inertia: 0.1}
home: {q1: 0, q2: 0.7227342478134157, q3: 1.696124157962962, q4: 0, q5: 2.4188584057763776}
"""


def test_tree_with_attachments_and_motors_round_trips(tmp_path):
    """Attachments become fixed frames carrying their body at s = at on the beam (with
    the default name BEAM.atK unless named) and are written back as attachments; rigid
    bodies given about their centre of mass (stored about the frame origin) read back
    to the numbers of the file; motors, closure rows and home kept."""
    f = tmp_path / "tree.yaml"
    f.write_text(TREE)
    spec = load_description(f)
    robot = tree_robot(spec)
    names = [j.name for j in robot.joints]
    assert names[-2:] == ["q2.at1", "clamp"]
    at1 = robot.joints[-2]
    assert (at1.kind, names[at1.antecedent - 1], at1.d) == ("fixed", "q2", 0.2)
    body = robot.bodies[len(names) - 1]
    # about the frame origin: ms = m c, I_O = I_c + m (|c|^2 - c c^T) (parallel axes)
    c = np.array([0.003, 0.001, 0.0])
    np.testing.assert_allclose(body.ms, 0.05 * c, rtol=1e-15)
    IO = np.diag([0, 0, 2e-6]) + 0.05 * (c @ c * np.eye(3) - np.outer(c, c))
    np.testing.assert_allclose(body.inertia, IO, rtol=1e-15, atol=0)
    assert robot.motor_inertia == {"q1": 0.2, "q4": 0.1}
    assert robot.viscous == {"q1": 3.0} and robot.coulomb == {"q1": 0.5}
    assert robot.closure_rows == (0, 2, 4)
    back = to_spec(robot)
    assert back == spec
    assert tree_robot(back) == robot
    assert _through_yaml(spec, tmp_path) == spec


def test_a_fixed_frame_that_is_no_attachment_stays_a_joint():
    """A fixed frame with a body on a beam but turned (theta), or followed by other
    joints, is not an attachment: it is written back as a joint and reads back to the
    same robot."""
    data = S.parse_spec({
        "family": "tree", "gravity": [0, 0, 0],
        "joints": [{"name": "hub", "actuated": True},
                   {"name": "turned", "parent": "hub", "type": "fixed", "d": 0.2,
                    "theta": 0.3},
                   {"name": "tip", "parent": "hub", "type": "fixed", "d": 0.5}],
        "bodies": {"hub": {"beam": {"length": 0.5, "section": {"shape": "circle",
                                                               "diameter": 0.01},
                                    "material": {"E": 2e11, "G": 8e10, "rho": 7800}}},
                   "turned": {"rigid": {"mass": 0.1}}},
        "terminals": ["tip"], "closure": ["vx", "vy", "wz"]})
    robot = tree_robot(data)
    back = to_spec(robot)
    assert back == data and back.attachments == ()
    assert tree_robot(back) == robot


# ------------------------------------------------------------------ Delta robots
DELTA_RIGID = """\
family: delta
name: lumped-delta
convention: kuo2016
geometry: {base_radius: 0.2, platform_radius: 0.045}
links:
  upper: {length: 0.3, mass: 0.25, com_ratio: 0.42, inertia: 2.5e-3}
  lower: {length: 0.7, mass: 0.18, com_ratio: 0.47, inertia: 6.0e-3}
platform: {mass: 0.6, thickness: 0.05}
motors:
  inertia: 0.012
  friction: {viscous: 0.05, coulomb: 0.2, static: 0.3, stribeck_velocity: 0.02}
"""


def test_delta_with_lumped_rigid_links_round_trips(tmp_path):
    """Rigid links given by mass, centre ratio and inertia (the lower link made
    equivalent by Asadi eq. 22: three masses reproducing its mass, centre and
    inertia, checked here), motors with Stribeck friction: the spec reads back as
    written; a payload on a rigid Delta is carried by the translating platform (its
    mass joins the platform's: the same rigid robot)."""
    f = tmp_path / "delta.yaml"
    f.write_text(DELTA_RIGID)
    spec = load_description(f)
    robot = rigid_delta(spec)
    m = robot.masses
    mc, ma, mk = m.elbow_mass, m.platform_joint_mass, m.lower_com_mass
    L, r = 0.7, 0.47
    assert abs(mc + ma + mk - 0.18) < 1e-15
    assert abs(mc * r * L - ma * (1 - r) * L) < 1e-16            # centre of mass
    assert abs(mc * (r * L) ** 2 + ma * ((1 - r) * L) ** 2 - 6e-3) < 1e-17
    assert (robot.friction.static, robot.friction.stribeck_velocity) == (0.3, 0.02)
    back = to_spec(robot)
    assert back == spec and rigid_delta(back) == robot
    assert _through_yaml(spec, tmp_path) == spec
    with_payload = apply_sets(spec, ["payload.mass=0.25"])
    heavier = apply_sets(spec, ["platform.mass=0.85"])
    assert rigid_delta(with_payload) == rigid_delta(heavier)


FLEX_DELTA = """\
family: delta
name: flexible-delta-with-bodies
geometry: {base_radius: 0.2, platform_radius: 0.05}
links:
  upper:
    length: 0.3
    section: {shape: rectangle, width: 0.01, height: 0.01}
    material: {E: 7.0e+10, G: 2.6e+10, rho: 2700}
  lower:
    length: 0.8
    section: {shape: circle, diameter: 0.006}
    material: {E: 2.1e+11, G: 8.0e+10, rho: 7800}
joints: {b: spherical, d: universal}
platform:
  mass: 0.4
  com: [0.0, 0.0, 0.01]
  inertia: [[4.0e-4, 0, 0], [0, 4.0e-4, 0], [0, 0, 6.0e-4]]
payload:
  mass: 0.3
  com: [0.02, 0.0, 0.03]
  inertia: [[1.0e-4, 0, 0], [0, 2.0e-4, 0], [0, 0, 1.5e-4]]
motors:
  inertia: 0.01
  friction: {viscous: 0.1, coulomb: 0.05}
"""


def test_flexible_delta_with_every_body_round_trips(tmp_path):
    """Platform as a rigid body (centre of mass off P, inertia tensor), payload, motor
    inertia and friction, lower links of another section and material, joint models:
    all reach the FlexibleDelta (none dropped) and read back as written."""
    f = tmp_path / "flex.yaml"
    f.write_text(FLEX_DELTA)
    spec = load_description(f)
    robot = flexible_delta(spec)
    assert robot.platform.inertia_com == ((4e-4, 0, 0), (0, 4e-4, 0), (0, 0, 6e-4))
    assert robot.platform.com == (0.0, 0.0, 0.01)
    assert robot.payload.mass == 0.3 and robot.payload.com == (0.02, 0.0, 0.03)
    assert robot.motor_inertia == 0.01 and robot.friction.viscous == 0.1
    assert robot.link_sections[1].shape[0] == "circle" and robot.joint_b == "spherical"
    back = to_spec(robot)
    assert back == spec and flexible_delta(back) == robot
    assert _through_yaml(spec, tmp_path) == spec


def test_a_payload_reaches_the_ked_model():
    """A point payload at P on a rigid-body platform is the same robot as a platform of
    the summed mass (M_P = [[m I, -m[c]x], [m[c]x, I_P]] adds m to the mass block only):
    the KED frequencies (with the static link forces under gravity, which the payload
    also loads) agree to the eigen-solver's round-off (asserted 1e-10; measured equal),
    and differ from those without the payload by far more (18 %; the payload was once
    refused, and the motors silently dropped, on the way to KED)."""
    from elastodyn.analysis.modes import modes
    from elastodyn.formulations.registry import build_model
    base = S.parse_spec({
        "family": "delta", "geometry": {"base_radius": 0.2, "platform_radius": 0.05},
        "links": {g: {"length": L, "section": {"shape": "rectangle", "width": 0.005,
                                                "height": 0.005},
                      "material": {"E": 2.1e11, "G": 8e10, "rho": 7800}}
                  for g, L in (("upper", 0.3), ("lower", 0.8))},
        "platform": {"mass": 0.5, "inertia": [[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 2e-3]]}})

    def omega(spec):
        m = build_model(spec, "ked")
        return np.array(modes(m, m.state(pose=[0.05, 0.0, 0.6]), count=6).to_dict()[
            "omega_rad_s"])
    w_payload = omega(apply_sets(base, ["payload.mass=0.4"]))
    w_sum = omega(apply_sets(base, ["platform.mass=0.9"]))
    w_none = omega(base)
    np.testing.assert_allclose(w_payload, w_sum, rtol=1e-10)
    assert np.abs(w_payload / w_none - 1).max() > 0.05


# ------------------------------------------------------------------ refusals
def _load_error(tmp_path, text, name="robot.yaml") -> str:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(DescriptionError) as err:
        load_description(f)
    msg = _one_line(err.value)
    assert msg.startswith(f"{f}: ")
    return msg.removeprefix(f"{f}: ")


def test_python_object_tags_are_refused_and_nothing_runs(tmp_path):
    """yaml.safe_load builds no object: the tag is refused by name, and the command it
    holds (creating a file) never runs."""
    marker = tmp_path / "ran"
    for tag in ("!!python/object/apply:os.system", "!!python/object/new:os.system",
                "!!python/object:os.system"):
        msg = _load_error(tmp_path, f"family: arm\nname: {tag} ['touch {marker}']\n"
                                    "links: [{length: 1, mass: 1, E: 2.0e+11, I: 1}]\n")
        assert msg.startswith("line 2, column 7: could not determine a constructor for the "
                              "tag 'tag:yaml.org,2002:python/object")
    assert not marker.exists()


@pytest.mark.parametrize("text, expected", [
    ("family: arm\nlinks: [{length: 1, mass: 1, E: 2.0e+11, I: 1,\n"
     "         lumped_masses: [{mass: 1, positon: 0.3}]}]\n",
     "unknown key links.0.lumped_masses.0.positon; allowed: one of inertia, mass, mu, "
     "position"),
    ("family: arm\nlinkz: []\n",          # reported before the missing 'links' it causes
     "unknown key linkz; allowed: one of family, gravity, links, name, payload"),
    ("family: tree\njoints: [{name: hub, actuated: true}]\nterminals: [hub]\n"
     "bodies: {hub: {beam: {length: 1, sectoin: {}}}}\n",
     "unknown key bodies.hub.beam.sectoin; allowed: one of geometric_stiffening, length, "
     "mass_properties, material, section, spatial"),
    ("family: delta\ngeometry: {base_radius: 0.2, platform_radius: 0.05, leg_angle: 0}\n",
     "unknown key geometry.leg_angle; allowed: one of base_radius, leg_angles, "
     "platform_radius"),
])
def test_unknown_key_names_its_path_and_the_allowed_keys(tmp_path, text, expected):
    assert _load_error(tmp_path, text) == expected


@pytest.mark.parametrize("text, expected", [
    ("family: arm\nlinks: [{length: 1, mass: 1, E: 2.0e+11, I: 1},\n"
     "        {length: 1, mass: heavy, E: 2.0e+11, I: 1}]\n",
     "invalid links.1.mass: got 'heavy'; allowed: a valid number, unable to parse string "
     "as a number"),
    ("family: arm\nlinks: [{length: 1, mass: 1, E: true, I: 1}]\n",
     "invalid links.0.E: got True; allowed: a number, not true/false"),
    ("family: arm\nlinks: [{length: [1, 2], mass: 1, E: 2.0e+11, I: 1}]\n",
     "invalid links.0.length: got [1, 2]; allowed: a valid number"),
    ("family: arm\nlinks: [{length: 1, mass: 1, E: 2.0e+11, I: 1,\n"
     "         lumped_masses: [{mass: 1, mu: 0.5}]}]\n",
     "invalid links.0.lumped_masses.0.mu: got 0.5; allowed: less than or equal to 0"),
    ("family: arm\nlinks: [3]\n",
     "invalid links.0: got 3; allowed: a mapping of E, I, coulomb, gear_ratio, hub_inertia, "
     "length, lumped_masses, mass, material, section, viscous"),
    ("family: tree\njoints: [{name: hub, actuated: true, type: spherical}]\n"
     "terminals: [hub]\n",
     "invalid joints.0.type: got 'spherical'; allowed: 'revolute', 'prismatic' or 'fixed'"),
    ("family: tree\njoints: [{name: hub, actuated: true}]\nterminals: [hub]\n"
     "motors: {hub: {inertia: -1}}\n",
     "invalid motors.hub.inertia: got -1; allowed: greater than or equal to 0"),
    ("family: crane\n", "invalid family: got 'crane'; allowed: one of delta, tree, arm"),
])
def test_wrong_type_names_path_value_and_what_is_allowed(tmp_path, text, expected):
    assert _load_error(tmp_path, text) == expected


def test_set_on_list_items():
    """--set links.1.mass=0.3 changes that entry only (the rest of the spec is equal);
    nested list items too; a bad value or index names the key."""
    spec = load_description("arm-yu2019")
    new = apply_sets(spec, ["links.1.mass=0.3"])
    assert new.links[1].mass == 0.3 and spec.links[1].mass == 0.29
    assert new.links[0] == spec.links[0]
    assert new.links[1].model_copy(update={"mass": 0.29}) == spec.links[1]
    new = apply_sets(spec, ["links.0.lumped_masses.0.inertia=1.5e-3", "payload.mass=0.2"])
    assert new.links[0].lumped_masses[0].inertia == 1.5e-3 and new.payload.mass == 0.2
    assert planar_arm(new).links[0].lumped_masses[0] == LumpedMass(2.94, 1.5e-3, mu=0.0)
    with pytest.raises(DescriptionError) as err:
        apply_sets(spec, ["links.1.mass=-1"], "arm-yu2019")
    assert _one_line(err.value) == ("arm-yu2019 with --set: invalid links.1.mass: got -1; "
                                    "allowed: greater than or equal to 0")
    with pytest.raises(DescriptionError) as err:
        apply_sets(spec, ["links.7.mass=0.3"])
    assert "links.7" in _one_line(err.value) and "0 to 1" in str(err.value)
    # through the loader, as the command line calls it
    assert load_description("arm-yu2019", ["links.1.mass=0.3"]).links[1].mass == 0.3


def test_missing_file_and_not_a_file(tmp_path):
    f = tmp_path / "nope.yaml"
    with pytest.raises(DescriptionError) as err:
        load_description(f)
    assert _one_line(err.value) == f"{f}: no such description file"
    d = tmp_path / "dir.yaml"
    d.mkdir()
    with pytest.raises(DescriptionError) as err:
        load_description(d)
    assert _one_line(err.value) == f"{d}: not a file"


@pytest.mark.parametrize("text, got", [
    ("- family: arm\n- links: []\n", "a list"),
    ("", "an empty document"),
    ("just words\n", "a str"),
    ("3.5\n", "a float"),
])
def test_a_document_that_is_not_a_mapping(tmp_path, text, got):
    assert _load_error(tmp_path, text) == (f"invalid description: got {got}; allowed: a "
                                           "mapping of keys (family, name, ...)")


def test_file_size_cap(tmp_path):
    """A file of MAX_FILE_BYTES is read; one byte more is refused before reading, naming
    its size and the cap. Not UTF-8: refused by name."""
    body = to_spec(PRESETS["arm-yu2019"]())
    text = dump_yaml(body)
    pad = MAX_FILE_BYTES - len(text.encode())
    ok = tmp_path / "ok.yaml"
    ok.write_text(text + "#" * (pad - 1) + "\n")
    assert ok.stat().st_size == MAX_FILE_BYTES and load_description(ok) == body
    big = tmp_path / "big.yaml"
    big.write_text(text + "#" * pad + "\n")
    with pytest.raises(DescriptionError) as err:
        load_description(big)
    assert _one_line(err.value) == (f"{big}: {MAX_FILE_BYTES + 1} bytes; allowed: a "
                                    f"description of at most {MAX_FILE_BYTES} bytes")
    bad = tmp_path / "latin.yaml"
    bad.write_bytes(b"family: arm\nname: caf\xe9\n")
    with pytest.raises(DescriptionError) as err:
        load_description(bad)
    assert _one_line(err.value) == f"{bad}: not UTF-8 text"
