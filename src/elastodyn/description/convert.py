"""Between description files (:mod:`.schema` specs) and the description dataclasses the
formulations take (:class:`~.delta.RigidDelta`, :class:`~.flexible_delta.FlexibleDelta`,
:class:`~.tree.TreeRobot`, :class:`~.arm.PlanarArm`).

``to_spec(obj)`` writes a description dataclass as a spec (``elastodyn describe``);
``rigid_delta``, ``flexible_delta``, ``tree_robot`` and ``planar_arm`` build the
dataclasses from a spec. Both directions are exact: a preset, or a user's robot, written
as a file reads back to the same dataclass, and a spec built into a dataclass writes
back to the same spec (tests/description/test_description_files.py), every body included (an arm's
lumped masses, hubs and payload; a tree's attachments and motors; a Delta's platform,
payload and motors). Where a dataclass holds less than the file, the spec comes back as
the same robot in the dataclass's terms: an arm link given by its section comes back as
E, I and its mass (PlanarArm keeps no section); a rigid Delta's payload joins its
translating platform's mass, and its platform gets the default thickness (the rigid
model has no platform inertia). Numbers computed on the way (a centre of mass from
ms / m, an inertia moved by the parallel-axis theorem, eq. (22)'s masses summed back)
are written as the shortest decimals that read back bit for bit.
"""
from __future__ import annotations

import numpy as np

from .._validate import real_array, scalar
from ..exceptions import InputError
from . import schema as S
from .arm import ArmLink, LumpedMass, PlanarArm
from .delta import DeltaGeometry, DeltaMasses, Friction, RigidDelta
from .flexible_delta import FlexibleDelta, Payload, Platform
from .materials import Material, Section
from .tree import FlexibleBeam, MDHJoint, RigidBody, TreeRobot

__all__ = ["to_spec", "rigid_delta", "flexible_delta", "tree_robot", "planar_arm",
           "family_of", "section", "material", "arm_as_tree", "gravity_vector"]


def gravity_vector(robot) -> tuple:
    """The world gravity (3,) [m/s^2] of a description dataclass: its vector (a Delta,
    whose world Z points down, Kuo 2016; a tree robot, in its base frame), or for a
    planar arm (the vertical x-y plane, y up, Yu & Chen 2019) (0, -g, 0). What the
    figures read to orient their world axes (a Z axis along gravity is drawn "down")."""
    g = robot.gravity
    if isinstance(g, (int, float)):
        return (0.0, -float(g), 0.0)
    return tuple(float(x) for x in g)

_ROWS = {name: k for k, name in enumerate(S.CLOSURE_ROWS)}


def family_of(obj) -> str:
    """``delta``, ``tree`` or ``arm`` for a spec or a description dataclass."""
    fam = getattr(obj, "family", None)
    if fam in S.FAMILIES:
        return fam
    if isinstance(obj, (RigidDelta, FlexibleDelta)):
        return "delta"
    if isinstance(obj, TreeRobot):
        return "tree"
    if isinstance(obj, PlanarArm):
        return "arm"
    raise InputError("robot", type(obj).__name__, "a description (a preset name, a file, "
                     "a DeltaSpec/TreeSpec/ArmSpec or a RigidDelta, FlexibleDelta, TreeRobot "
                     "or PlanarArm)")


# ------------------------------------------------------------------ shared parts
def section(spec: S.SectionSpec) -> Section:
    if spec.shape == "rectangle":
        return Section.rectangle(spec.width, spec.height)
    if spec.shape == "circle":
        return Section.circle(spec.diameter)
    return Section(area=spec.area, iy=spec.iy, iz=spec.iz, j=spec.j, ip=spec.ip)


def _section_spec(sec: Section) -> S.SectionSpec:
    shape = sec.shape
    if shape is not None and shape[0] == "rectangle" and Section.rectangle(*shape[1:]) == sec:
        return S.SectionSpec(shape="rectangle", width=shape[1], height=shape[2])
    if shape is not None and shape[0] == "circle" and Section.circle(shape[1]) == sec:
        return S.SectionSpec(shape="circle", diameter=shape[1])
    return S.SectionSpec(shape="general", area=sec.area, iy=sec.iy, iz=sec.iz, j=sec.j,
                         ip=None if sec.ip == sec.iy + sec.iz else sec.ip)  # the default


def material(spec: S.MaterialSpec) -> Material:
    return Material(E=spec.E, G=spec.G, rho=spec.rho)


def _material_spec(m: Material) -> S.MaterialSpec:
    return S.MaterialSpec(E=m.E, G=m.G, rho=m.rho)


def friction(spec: S.FrictionSpec) -> Friction:
    return Friction(viscous=spec.viscous, coulomb=spec.coulomb, static=spec.static,
                    stribeck_velocity=spec.stribeck_velocity,
                    smoothing_velocity=spec.smoothing_velocity)


def _friction_spec(f: Friction) -> S.FrictionSpec:
    return S.FrictionSpec(viscous=f.viscous, coulomb=f.coulomb, static=f.static,
                          stribeck_velocity=f.stribeck_velocity,
                          smoothing_velocity=f.smoothing_velocity)


def _about_origin(mass: float, com, inertia_c) -> tuple[tuple, tuple]:
    """(ms, inertia about the frame origin) of a body given about its centre of mass
    (parallel-axis theorem: I_O = I_c + m (|c|^2 I - c c^T))."""
    c = real_array(com)             # complex-step safe (:func:`_validate.complex_step`)
    I = real_array(inertia_c) + mass * (c @ c * np.eye(3) - np.outer(c, c))
    return tuple(scalar(v) for v in mass * c), tuple(tuple(scalar(v) for v in r) for r in I)


def _shortest(value: float, ok) -> float:
    """The number with the fewest significant digits near ``value`` that ``ok`` accepts
    (``value`` itself if none shorter does): what a person wrote, recovered from a
    computed value that maps back to the stored one bit for bit."""
    for digits in range(1, 18):
        v = float(f"{value:.{digits - 1}e}")
        if ok(v):
            return v
    return float(value)


def _about_com(body: RigidBody) -> tuple[tuple, tuple]:
    """(com, inertia about the centre of mass) of a RigidBody given about its origin.

    Each entry is the shortest decimal that :func:`_about_origin` maps back to the
    body's own numbers bit for bit (so a file written from a robot reads back to the
    same robot, and shows 2e-06 rather than 1.9999999999999995e-06)."""
    m = float(body.mass)
    ms = np.asarray(body.ms, dtype=float)
    IO = np.asarray(body.inertia, dtype=float)
    if m == 0.0:
        return (0.0, 0.0, 0.0), tuple(tuple(float(v) for v in r) for r in IO)
    c = ms / m
    c = np.array([_shortest(c[k], lambda v, k=k: m * v == ms[k]) for k in range(3)])
    shift = m * (c @ c * np.eye(3) - np.outer(c, c))
    I = IO - shift
    I = [[_shortest(I[i, j], lambda v, i=i, j=j: v + shift[i, j] == IO[i, j])
          for j in range(3)] for i in range(3)]
    return tuple(float(v) for v in c), tuple(tuple(float(v) for v in r) for r in I)


def _rigid_body(spec: S.RigidBodySpec) -> RigidBody:
    ms, I = _about_origin(spec.mass, spec.com, spec.inertia)
    return RigidBody(spec.mass, ms, I)


def _rigid_body_spec(body: RigidBody) -> S.RigidBodySpec:
    com, I = _about_com(body)
    return S.RigidBodySpec(mass=float(body.mass), com=com, inertia=I)


# ------------------------------------------------------------------ Delta robots
def _geometry(spec: S.DeltaSpec) -> DeltaGeometry:
    g, ln = spec.geometry, spec.links
    return DeltaGeometry(g.base_radius, g.platform_radius, ln.upper.length, ln.lower.length,
                         tuple(g.leg_angles), spec.convention)


def _payload_mass(spec: S.DeltaSpec) -> float:
    return spec.payload.mass if spec.payload is not None else 0.0


def rigid_delta(spec: S.DeltaSpec) -> RigidDelta:
    """The rigid Delta of a Delta spec (Asadi & Heydari 2020 mass model).

    A flexible link (section and material) is a uniform rod of mass rho A L: the upper
    link with its centre at mid-length and I = m L^2 / 12, the lower link as m/6 at
    each end and 2 m / 3 at mid-length (exact, :meth:`DeltaMasses.uniform_rods`). A
    rigid link gives its mass, centre ratio (default 1/2) and inertia (default the
    uniform rod's), the lower link made equivalent by Asadi eq. (22). The platform
    translates: a payload adds its mass.
    """
    geo = _geometry(spec)
    up, lo = spec.links.upper, spec.links.lower
    m_p = spec.platform.mass + _payload_mass(spec)
    link_section = link_material = None
    if up.section is not None and lo.section is not None:
        su, mu_ = section(up.section), material(up.material)
        sl, ml = section(lo.section), material(lo.material)
        m1 = mu_.rho * su.area * up.length
        m2 = ml.rho * sl.area * lo.length
        masses = DeltaMasses.uniform_rods(m_p, m1, up.length, m2, spec.motors.inertia)
        link_section, link_material = su, mu_
    else:
        m1 = _link_mass(up, "links.upper")
        r1 = 0.5 if up.com_ratio is None else up.com_ratio
        i1 = m1 * up.length**2 / 12.0 if up.inertia is None else up.inertia
        m2 = _link_mass(lo, "links.lower")
        r2 = 0.5 if lo.com_ratio is None else lo.com_ratio
        if lo.inertia is None and r2 == 0.5:
            mc, ma, mk = m2 / 6.0, m2 / 6.0, 2.0 * m2 / 3.0
        else:
            i2 = m2 * lo.length**2 / 12.0 if lo.inertia is None else lo.inertia
            try:
                mc, ma, mk = _lower_masses(m2, i2, r2, lo.length)
            except InputError as exc:
                raise InputError(f"links.lower.{exc.name}", exc.value, exc.allowed) from None
        masses = DeltaMasses(platform=m_p, motor_inertia=spec.motors.inertia,
                             upper_mass=m1, upper_com_ratio=r1, upper_inertia=i1,
                             elbow_mass=mc, platform_joint_mass=ma, lower_com_mass=mk,
                             lower_com_ratio=r2)
    return RigidDelta(geo, masses, friction(spec.motors.friction), tuple(spec.gravity),
                      spec.name, link_section, link_material)


def _link_mass(link: S.DeltaLinkSpec, path: str) -> float:
    if link.mass is None:
        raise InputError(f"{path}.mass", None, "a mass [kg] (or a section and material)")
    return link.mass


def flexible_delta(spec: S.DeltaSpec) -> FlexibleDelta:
    """The flexible Delta (KED) of a Delta spec; both link groups need a section and a
    material. Every body maps: the platform (a solid disc of radius r_B and
    ``thickness``, or a rigid body with ``com`` and ``inertia``), the payload (mass,
    centre of mass offset and inertia, world axes), the motors' inertia and friction."""
    for grp in ("upper", "lower"):
        if getattr(spec.links, grp).section is None:
            raise InputError(f"links.{grp}.section", None,
                             "a section and material for a flexible model (this Delta "
                             "describes rigid links only: use a rigid formulation)")
    geo = _geometry(spec)
    up, lo = spec.links.upper, spec.links.lower
    pl = spec.platform
    try:
        if pl.inertia is None:
            platform = Platform(pl.mass, spec.geometry.platform_radius, pl.thickness)
        else:
            platform = Platform.rigid(pl.mass, com=pl.com or (0.0, 0.0, 0.0),
                                      inertia=pl.inertia)
    except InputError as exc:
        raise InputError(f"platform.{_delta_name(exc.name)}", exc.value, exc.allowed) from None
    payload = None
    if spec.payload is not None:
        try:
            payload = Payload(spec.payload.mass, spec.payload.com, spec.payload.inertia)
        except InputError as exc:
            raise InputError(f"payload.{exc.name}", exc.value, exc.allowed) from None
    extra = {}
    if section(lo.section) != section(up.section) or material(lo.material) != material(up.material):
        extra["lower_section"] = section(lo.section)
        extra["lower_material"] = material(lo.material)
    return FlexibleDelta(geo, section(up.section), material(up.material), platform,
                         tuple(spec.gravity), spec.joints.b, spec.joints.d, spec.name,
                         payload=payload, motor_inertia=spec.motors.inertia,
                         friction=friction(spec.motors.friction), **extra)


def _delta_name(name: str) -> str:
    """The schema's name of a Platform parameter (``inertia_com`` is ``inertia``)."""
    return {"inertia_com": "inertia"}.get(name, name)


def _delta_spec_from_rigid(robot: RigidDelta, thickness: float = 0.05) -> S.DeltaSpec:
    g, m = robot.geometry, robot.masses
    if robot.link_section is not None and robot.material is not None:
        sec, mat = _section_spec(robot.link_section), _material_spec(robot.material)
        up = S.DeltaLinkSpec(length=g.upper_length, section=sec, material=mat)
        lo = S.DeltaLinkSpec(length=g.lower_length, section=sec, material=mat)
    else:
        up = S.DeltaLinkSpec(length=g.upper_length, mass=m.upper_mass,
                             com_ratio=m.upper_com_ratio, inertia=m.upper_inertia)
        lo = _lower_link_spec(m, g.lower_length)
    return S.DeltaSpec(
        name=robot.name, convention=g.convention, gravity=tuple(robot.gravity),
        geometry=S.DeltaGeometrySpec(base_radius=g.base_radius,
                                     platform_radius=g.platform_radius,
                                     leg_angles=tuple(g.leg_angles)),
        links=S.DeltaLinksSpec(upper=up, lower=lo),
        platform=S.DeltaPlatformSpec(mass=m.platform, thickness=thickness),
        motors=S.MotorsSpec(inertia=m.motor_inertia, friction=_friction_spec(robot.friction)))


def _lower_link_spec(m: DeltaMasses, length: float) -> S.DeltaLinkSpec:
    """The lower link of a rigid Delta's mass model as a spec: no inertia given when
    its masses are the default's (a uniform rod's inertia m L^2 / 12; at the centre:
    m/6, m/6, 2m/3), else the
    mass, centre ratio and inertia about the centre of mass that eq. (22) distributed.
    The numbers are the shortest decimals that :func:`rigid_delta` maps back to the
    same three masses bit for bit (as a person would have written them), when there
    are such."""
    masses = (m.elbow_mass, m.platform_joint_mass, m.lower_com_mass)
    r2 = m.lower_com_ratio
    m2 = sum(masses)
    i2 = masses[0] * (r2 * length) ** 2 + masses[1] * ((1 - r2) * length) ** 2

    def sig(v, d):
        return float(f"{v:.{d - 1}e}")

    for d in range(1, 18):
        if r2 == 0.5:
            mm = sig(m2, d)
            if (mm / 6.0, mm / 6.0, 2.0 * mm / 3.0) == masses:
                return S.DeltaLinkSpec(length=length, mass=mm, com_ratio=r2)
        mm, ii = sig(m2, d), sig(i2, d)
        try:
            if _lower_masses(mm, mm * length**2 / 12.0, r2, length) == masses:
                return S.DeltaLinkSpec(length=length, mass=mm, com_ratio=r2)
            if _lower_masses(mm, ii, r2, length) == masses:
                return S.DeltaLinkSpec(length=length, mass=mm, com_ratio=r2, inertia=ii)
        except InputError:
            pass
    return S.DeltaLinkSpec(length=length, mass=m2, com_ratio=r2, inertia=i2)


def _lower_masses(m2: float, i2: float, r2: float, length: float) -> tuple:
    """(m_C, m_A, m_K) of a lower link of mass m2, inertia i2 about its centre of mass
    at r2 of its length (Asadi eq. 22); all at the centre when i2 = 0."""
    if m2 == 0.0:
        return (0.0, 0.0, 0.0)
    if i2 == 0.0:
        return (0.0, 0.0, float(m2))
    return tuple(float(v) for v in DeltaMasses.equivalent_lower_link(m2, i2, r2, length))


def _delta_spec_from_flexible(robot: FlexibleDelta) -> S.DeltaSpec:
    g = robot.geometry
    secs, mats = robot.link_sections, robot.link_materials
    links = S.DeltaLinksSpec(
        upper=S.DeltaLinkSpec(length=g.upper_length, section=_section_spec(secs[0]),
                              material=_material_spec(mats[0])),
        lower=S.DeltaLinkSpec(length=g.lower_length, section=_section_spec(secs[1]),
                              material=_material_spec(mats[1])))
    p = robot.platform
    if p.inertia_com is None and p.radius == g.platform_radius and not any(p.com):
        platform = S.DeltaPlatformSpec(mass=p.mass, thickness=p.thickness)
    else:   # a disc of another radius or off centre is the rigid body it is
        platform = S.DeltaPlatformSpec(mass=p.mass, com=p.com, inertia=tuple(
            tuple(float(v) for v in row) for row in p.inertia_tensor))
    payload = None
    if robot.payload is not None:
        b = robot.payload
        payload = S.RigidBodySpec(mass=b.mass, com=b.com, inertia=b.inertia)
    return S.DeltaSpec(
        name=robot.name, convention=g.convention, gravity=tuple(robot.gravity),
        geometry=S.DeltaGeometrySpec(base_radius=g.base_radius,
                                     platform_radius=g.platform_radius,
                                     leg_angles=tuple(g.leg_angles)),
        links=links, joints=S.DeltaJointsSpec(b=robot.joint_b, d=robot.joint_d),
        platform=platform, payload=payload,
        motors=S.MotorsSpec(inertia=robot.motor_inertia,
                            friction=_friction_spec(robot.friction)))


# ------------------------------------------------------------------ tree robots
def _beam_mass(bm):
    mp = bm.mass_properties
    return None if mp is None else (mp.mass, mp.centre_of_mass, mp.inertia)


def tree_robot(spec: S.TreeSpec, elements: int = 1) -> TreeRobot:
    """The TreeRobot of a tree spec, ``elements`` cubic elements per beam (a model
    option). Attachments become fixed joints (after the listed joints) carrying their
    rigid body at the beam point s = at."""
    index = {"base": 0}
    joints = []
    for j, js in enumerate(spec.joints, start=1):
        index[js.name] = j
        joints.append(MDHJoint(js.name, index[js.parent], js.type, js.actuated, js.gamma,
                               js.b, js.alpha, js.d, js.theta, js.r))
    bodies = {}
    for name, b in spec.bodies.items():
        if b.rigid is not None:
            bodies[index[name]] = _rigid_body(b.rigid)
        else:
            bm = b.beam
            bodies[index[name]] = FlexibleBeam(bm.length, section(bm.section),
                                               material(bm.material), elements,
                                               geometric_stiffening=bm.geometric_stiffening,
                                               spatial=bm.spatial,
                                               mass_properties=_beam_mass(bm))
    for k, a in enumerate(spec.attachments):
        name = a.name or f"{a.beam}.at{k + 1}"
        if name in index:
            raise InputError(f"attachments.{k}.name", name, "a name no joint has")
        index[name] = len(joints) + 1
        joints.append(MDHJoint(name, index[a.beam], "fixed", False, d=a.at))
        bodies[index[name]] = _rigid_body(a)
    return TreeRobot(spec.name, tuple(joints), bodies,
                     terminals=tuple(index[t] for t in spec.terminals),
                     platform=_rigid_body(spec.platform), gravity=tuple(spec.gravity),
                     closure_rows=tuple(_ROWS[r] for r in spec.closure),
                     motor_inertia={k: m.inertia for k, m in spec.motors.items() if m.inertia},
                     viscous={k: m.viscous for k, m in spec.motors.items() if m.viscous},
                     coulomb={k: m.coulomb for k, m in spec.motors.items() if m.coulomb},
                     home=dict(spec.home),
                     end_effector=(() if spec.end_effector is None else
                                   (spec.end_effector.point, spec.end_effector.toward)),
                     formulation=spec.formulation)


def _attachment_suffix(robot: TreeRobot) -> int:
    """Index (0-based) of the first joint of the longest run of trailing joints that are
    attachments as :func:`tree_robot` makes them: fixed frames with only ``d`` set, on a
    beam, carrying a rigid body and nothing else (no child, not a terminal)."""
    parents = {jt.antecedent for jt in robot.joints}
    start = len(robot.joints)
    for j in range(len(robot.joints), 0, -1):
        jt = robot.joints[j - 1]
        if not (jt.kind == "fixed" and not jt.actuated
                and (jt.gamma, jt.b, jt.alpha, jt.theta, jt.r) == (0.0,) * 5
                and isinstance(robot.bodies.get(jt.antecedent), FlexibleBeam)
                and isinstance(robot.bodies.get(j), RigidBody)
                and j not in parents and j not in robot.terminals
                and 0.0 <= jt.d <= robot.bodies[jt.antecedent].length):
            break
        start = j - 1
    return start


def _tree_spec(robot: TreeRobot) -> S.TreeSpec:
    """The spec of a TreeRobot. Trailing fixed frames that carry a rigid body on a beam
    (what :func:`tree_robot` makes of ``attachments``) are written back as attachments
    (named unless the name is the default ``BEAM.atK``); the other joints as joints."""
    names = {0: "base"}
    first = _attachment_suffix(robot)
    joints = []
    for j, jt in enumerate(robot.joints, start=1):
        names[j] = jt.name
        if j > first:
            continue
        joints.append(S.JointSpec(name=jt.name, parent=names[jt.antecedent], type=jt.kind,
                                  actuated=jt.actuated, gamma=jt.gamma, b=jt.b,
                                  alpha=jt.alpha, d=jt.d, theta=jt.theta, r=jt.r))
    bodies, attachments = {}, []
    for j, b in sorted(robot.bodies.items()):
        if isinstance(b, FlexibleBeam):
            if b.shapes != "fe":
                raise InputError("beam shapes", b.shapes, "finite-element beams in a file "
                                 "(assumed modes are a model option)")
            bodies[names[j]] = S.BodySpec(beam=S.BeamSpec(
                length=b.length, section=_section_spec(b.section),
                material=_material_spec(b.material), spatial=b.spatial,
                geometric_stiffening=b.geometric_stiffening,
                mass_properties=None if b.mass_properties is None else S.BeamMassSpec(
                    mass=b.mass_properties[0], centre_of_mass=b.mass_properties[1],
                    inertia=b.mass_properties[2])))
        elif j <= first:
            bodies[names[j]] = S.BodySpec(rigid=_rigid_body_spec(b))
    for k, j in enumerate(range(first + 1, len(robot.joints) + 1)):
        jt = robot.joints[j - 1]
        beam = names[jt.antecedent]
        body = _rigid_body_spec(robot.bodies[j])
        attachments.append(S.AttachmentSpec(
            beam=beam, at=jt.d, name=None if jt.name == f"{beam}.at{k + 1}" else jt.name,
            mass=body.mass, com=body.com, inertia=body.inertia))
    motors = {}
    for nm in set(robot.motor_inertia) | set(robot.viscous) | set(robot.coulomb):
        motors[nm] = S.JointMotorSpec(inertia=robot.motor_inertia.get(nm, 0.0),
                                      viscous=robot.viscous.get(nm, 0.0),
                                      coulomb=robot.coulomb.get(nm, 0.0))
    return S.TreeSpec(name=robot.name, gravity=tuple(robot.gravity), joints=tuple(joints),
                      bodies=bodies, attachments=tuple(attachments),
                      terminals=tuple(names[t] for t in robot.terminals),
                      platform=_rigid_body_spec(robot.platform),
                      closure=tuple(S.CLOSURE_ROWS[r] for r in robot.closure_rows),
                      motors=dict(sorted(motors.items())), home=dict(robot.home),
                      end_effector=(S.EndEffectorSpec(point=robot.end_effector[0],
                                                      toward=robot.end_effector[1])
                                    if robot.end_effector else None),
                      formulation=robot.formulation)


# ------------------------------------------------------------------ planar arms
def _lumped_mass(lm: S.LumpedMassSpec) -> LumpedMass:
    return LumpedMass(lm.mass, lm.inertia, position=lm.position, mu=lm.mu)


def _lumped_mass_spec(b: LumpedMass) -> S.LumpedMassSpec:
    return S.LumpedMassSpec(mass=b.mass, inertia=b.inertia, position=b.position, mu=b.mu)


def _arm_position(lm, length: float) -> float:
    """Distance [m] from the joint of a lumped mass (spec or LumpedMass) on a link of
    chord ``length``: its position, (1 + mu) L, or L (the end) when neither is given."""
    if lm.position is not None:
        return float(lm.position)
    if lm.mu is not None:
        return (1.0 + float(lm.mu)) * length
    return length


def planar_arm(spec: S.ArmSpec, modes: int = 2, basis: str = "sine") -> PlanarArm:
    """The PlanarArm of an arm spec (``modes`` assumed modes per link of ``basis``:
    model options).

    Every body maps onto the arm: the lumped masses of a link (mass, rotary inertia,
    ``position`` from the joint or Yu's ``mu``, as given) onto
    :attr:`ArmLink.lumped_masses`, ``hub_inertia`` onto :attr:`ArmLink.hub_inertia`,
    the payload (mass, rotary inertia) onto :attr:`PlanarArm.payload` (None when both
    are zero). A link with a section and material gets E, I = I_z of the section and,
    unless its mass is given, the mass rho A L.

    Decision: a link whose one lumped mass has a mass, no rotary inertia and is placed
    by ``mu`` is built with Yu's arguments (``lumped_mass``, ``mu``), as the preset arm-yu2019
    is, so that a preset written as a file reads back to the equal dataclass; the
    bodies (:attr:`ArmLink.lumped_masses`) are the same either way.
    """
    links = []
    for k, ls in enumerate(spec.links):
        if ls.section is not None:
            sec, mat = section(ls.section), material(ls.material)
            E, I = mat.E, sec.iz
            mass = mat.rho * sec.area * ls.length if ls.mass is None else ls.mass
        else:
            E, I, mass = ls.E, ls.I, ls.mass
        rest = dict(gear_ratio=ls.gear_ratio, coulomb=ls.coulomb, viscous=ls.viscous,
                    hub_inertia=ls.hub_inertia)
        bodies = ls.lumped_masses
        try:
            if (len(bodies) == 1 and bodies[0].mu is not None and np.real(bodies[0].mass) > 0
                    and not bodies[0].inertia):
                links.append(ArmLink(ls.length, mass, E, I, bodies[0].mass, bodies[0].mu,
                                     **rest))
            else:
                links.append(ArmLink(ls.length, mass, E, I,
                                     lumped_masses=tuple(_lumped_mass(b) for b in bodies),
                                     **rest))
        except InputError as exc:           # the schema checks first; name the entry
            raise InputError(f"links.{k}.{exc.name}", exc.value, exc.allowed) from None
    pl = spec.payload
    payload = LumpedMass(pl.mass, pl.inertia) if (pl.mass or pl.inertia) else None
    return PlanarArm(spec.name, tuple(links), modes=modes, basis=basis,
                     gravity=spec.gravity, payload=payload)


def _arm_spec(arm: PlanarArm) -> S.ArmSpec:
    """The spec of a PlanarArm, every body written (the lumped masses as placed, by
    position or mu; the hubs; the payload). Yu's zero default lumped mass (a link built
    without ``lumped_mass`` or ``lumped_masses``; the arm holds Yu's arguments as a
    tuple subclass, a listed tuple is written whole) is no body and is left out."""
    links = []
    for lk in arm.links:
        bodies = lk.lumped_masses
        if type(bodies) is not tuple and not lk.lumped_mass:
            bodies = ()
        links.append(S.ArmLinkSpec(length=lk.length, mass=lk.mass, E=lk.E, I=lk.I,
                                   lumped_masses=tuple(_lumped_mass_spec(b) for b in bodies),
                                   hub_inertia=lk.hub_inertia, gear_ratio=lk.gear_ratio,
                                   coulomb=lk.coulomb, viscous=lk.viscous))
    pl = arm.payload
    payload = (S.PayloadSpec() if pl is None
               else S.PayloadSpec(mass=pl.mass, inertia=pl.inertia))
    return S.ArmSpec(name=arm.name, gravity=arm.gravity, links=tuple(links), payload=payload)


# ------------------------------------------------------------------ dispatch
def to_spec(obj):
    """The spec of a description dataclass (or the spec itself)."""
    if isinstance(obj, (S.DeltaSpec, S.TreeSpec, S.ArmSpec)):
        return obj
    if isinstance(obj, RigidDelta):
        return _delta_spec_from_rigid(obj)
    if isinstance(obj, FlexibleDelta):
        return _delta_spec_from_flexible(obj)
    if isinstance(obj, TreeRobot):
        return _tree_spec(obj)
    if isinstance(obj, PlanarArm):
        return _arm_spec(obj)
    family_of(obj)  # raises the one-line error
    raise AssertionError("unreachable")


def arm_as_tree(spec: S.ArmSpec, *, elements: int = 1, shapes: str = "fe",
                modes: int = 2) -> TreeRobot:
    """The planar arm of ``spec`` as a one-leg tree robot (for NE-PVP).

    Joint i is a revolute joint about z carried by the tip of beam i - 1 (d = L_{i-1});
    it carries beam i (planar, along its x axis, bending in x-y), either ``elements``
    cubic finite elements clamped at the joint frame or ``modes`` assumed modes of
    ``shapes`` (sine, clamped-free) in the chord frame (then no axial coordinate and no
    geometric stiffening, as the assumed-modes model). Lumped masses are rigid bodies on
    fixed frames carried by the beam at their position, turning with its section
    (rotary inertia about z); the payload is the platform at the tip of the last beam;
    gravity along -y0; the motors' joint-side friction (r^2 kv, r kc) as eq. (26) of
    Briot & Khalil.

    Decisions: a link given by E, I and its mass has no section: its beam gets the
    square section of the same I (side (12 I)^(1/4); the axial stiffness E A only
    matters for finite-element beams, whose axial modes it sets) and the density that
    gives the link's mass. The shear modulus (unused by planar beams) is E / 2.6.
    """
    joints, bodies = [], {}
    viscous, coulomb = {}, {}
    prev_beam, prev_len = 0, 0.0
    for i, ls in enumerate(spec.links):
        name = f"q{i + 1}"
        joints.append(MDHJoint(name, prev_beam, "revolute", True, d=prev_len))
        jb = len(joints)
        if ls.section is not None:
            sec, mat = section(ls.section), material(ls.material)
            if ls.mass is not None:
                mat = Material(mat.E, mat.G, ls.mass / (sec.area * ls.length))
        else:
            a = (12.0 * ls.I) ** 0.25
            sec = Section(area=a * a, iy=ls.I, iz=ls.I, j=2.0 * ls.I)
            mat = Material(ls.E, ls.E / 2.6, max(ls.mass, 1e-300) / (a * a * ls.length))
        if shapes == "fe":
            beam = FlexibleBeam(ls.length, sec, mat, elements)
        else:
            beam = FlexibleBeam(ls.length, sec, mat, shapes=shapes, modes=modes,
                                geometric_stiffening=False)
        bodies[jb] = beam
        if ls.hub_inertia:
            joints.append(MDHJoint(f"hub{i + 1}", jb, "fixed"))
            bodies[len(joints)] = RigidBody(0.0, inertia=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                                           (0.0, 0.0, ls.hub_inertia)))
        for k, lm in enumerate(ls.lumped_masses):
            pos = _arm_position(lm, ls.length)
            joints.append(MDHJoint(f"lump{i + 1}_{k + 1}", jb, "fixed", d=pos))
            bodies[len(joints)] = RigidBody(lm.mass, inertia=(
                (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, lm.inertia)))
        r = ls.gear_ratio
        if ls.viscous:
            viscous[name] = r * r * ls.viscous
        if ls.coulomb:
            coulomb[name] = r * ls.coulomb
        prev_beam, prev_len = jb, ls.length
    joints.append(MDHJoint("tip", prev_beam, "fixed", d=prev_len))
    pl = spec.payload
    platform = RigidBody(pl.mass, inertia=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                           (0.0, 0.0, pl.inertia)))
    return TreeRobot(spec.name, tuple(joints), bodies, terminals=(len(joints),),
                     platform=platform, gravity=(0.0, -spec.gravity, 0.0),
                     closure_rows=(0, 1, 5), viscous=viscous, coulomb=coulomb,
                     home={f"q{i + 1}": 0.0 for i in range(len(spec.links))})
