"""Robot description files: the YAML schema of the three robot families, validated.

A description file is plain YAML data in SI units (lengths in m, angles in rad, masses in
kg, inertias in kg m^2, moduli in Pa, densities in kg/m^3, accelerations in m/s^2). Its
``family`` key selects the schema:

* ``delta``: Delta robots (Kuo 2016, Asadi & Heydari 2020), :class:`DeltaSpec`;
* ``tree``: tree and closed-loop robots in modified Denavit-Hartenberg form (Khalil &
  Kleinfinger; Briot & Khalil 2013), :class:`TreeSpec`;
* ``arm``: planar serial arms with flexible links (Yu & Chen 2019), :class:`ArmSpec`.

Validation uses pydantic (one library made for the job): every key is checked for its
type and range, unknown keys are refused, and an error names the path of the entry in
the file (``links.lower.section.width``), the value and what is allowed
(:func:`validation_message`). Nothing read from a file is ever evaluated as code: YAML
is read with ``yaml.safe_load`` and numbers are parsed by pydantic.

The physics lives here; discretization does not: the number of elements of a beam, the
element family, the number and basis of assumed modes are options of the model
(:func:`elastodyn.formulations.registry.build_model`).

The specs convert to the dataclasses the formulations take (:mod:`.convert`).
"""
from __future__ import annotations

import math
from typing import Annotated, Literal, Union

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field,
                      ValidationError, model_validator)

__all__ = ["SectionSpec", "MaterialSpec", "FrictionSpec", "RigidBodySpec",
           "DeltaSpec", "TreeSpec", "ArmSpec", "RobotSpec", "FAMILIES",
           "validation_message", "parse_spec", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1
FAMILIES = ("delta", "tree", "arm")


def _no_bool(v):
    if isinstance(v, bool):
        raise ValueError("a number, not true/false")
    return v


def _physical(kind: str):
    """An after-validator: the number lies in the physical range ``kind``
    (:data:`elastodyn._validate.PHYSICAL_RANGES`). Beyond them a model is not physics
    and its floating-point evaluation breaks down (a link of 1e300 m overflows the
    element matrices, 1e-300 m underflows them, a mass of 1e300 kg puts the other
    frequencies below round-off)."""
    from .._validate import in_physical_range, physical_range_text

    def check(v):
        if not in_physical_range(float(v), kind):
            raise ValueError(physical_range_text(kind))
        return v
    return AfterValidator(check)


def _quantity(kind: str | None = "magnitude", **bounds):
    """A finite number (not true/false) with the pydantic ``bounds`` (gt, ge, le) and,
    unless ``kind`` is None, in the physical range ``kind`` (:func:`_physical`)."""
    parts = [BeforeValidator(_no_bool), Field(allow_inf_nan=False, **bounds)]
    if kind is not None:
        parts.append(_physical(kind))
    return Annotated[(float, *parts)]


Num = _quantity()
Pos = _quantity(gt=0)
NonNeg = _quantity(ge=0)
Length = _quantity("length", gt=0)
"""A length of a structure [m] (link, section size, radius)."""
Modulus = _quantity("modulus", gt=0)
Density = _quantity("density", gt=0)
Area = _quantity("area", gt=0)
Moment = _quantity("second moment", gt=0)
Mass = _quantity("mass", ge=0)
PosMass = _quantity("mass", gt=0)
Ratio = _quantity(None, ge=0, le=1)
"""A fraction in [0, 1] (e.g. the centre of mass along a link)."""
MuRatio = _quantity(None, ge=-1, le=0)
"""Yu & Chen's mu in [-1, 0]: a position along a link from its end over its length."""
GearRatio = _quantity(None, ge=1)
"""A gear ratio (joint speed = motor speed / ratio) >= 1."""
Vec3 = Annotated[tuple[Num, Num, Num], Field()]
Mat3 = Annotated[tuple[Vec3, Vec3, Vec3], Field()]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ------------------------------------------------------------------ shared parts
class SectionSpec(_Spec):
    """A uniform cross-section: ``shape: rectangle`` (width along the element y axis,
    height along z), ``circle`` (diameter) or ``general`` (area, iy, iz, j and
    optionally ip: second moments [m^4] about y and z, Saint-Venant torsion constant,
    polar moment for the torsional inertia; default iy + iz)."""

    shape: Literal["rectangle", "circle", "general"] = "rectangle"
    width: Length | None = None
    height: Length | None = None
    diameter: Length | None = None
    area: Area | None = None
    iy: Moment | None = None
    iz: Moment | None = None
    j: Moment | None = None
    ip: Moment | None = None

    @model_validator(mode="after")
    def _fields_of_shape(self):
        need = {"rectangle": ("width", "height"), "circle": ("diameter",),
                "general": ("area", "iy", "iz", "j")}[self.shape]
        allowed = set(need) | ({"ip"} if self.shape == "general" else set())
        for name in ("width", "height", "diameter", "area", "iy", "iz", "j", "ip"):
            value = getattr(self, name)
            if name in need and value is None:
                raise ValueError(f"{name} is required for shape {self.shape}")
            if name not in allowed and value is not None:
                raise ValueError(f"{name} does not apply to shape {self.shape} (it takes "
                                 + ", ".join(sorted(allowed)) + ")")
        return self


class MaterialSpec(_Spec):
    """Linear elastic isotropic material: E and G [Pa], rho [kg/m^3]."""

    E: Modulus
    G: Modulus
    rho: Density


class FrictionSpec(_Spec):
    """Joint friction (one law for every robot: viscous + Coulomb with an optional
    Stribeck bump, the sign smoothed by tanh below ``smoothing_velocity``): viscous
    [N m s/rad or N s/m], coulomb and static [N m or N], velocities [rad/s or m/s]."""

    viscous: NonNeg = 0.0
    coulomb: NonNeg = 0.0
    static: NonNeg | None = None
    stribeck_velocity: Pos = 0.01
    smoothing_velocity: NonNeg = 1e-3


class RigidBodySpec(_Spec):
    """A rigid body: mass [kg], centre of mass ``com`` [m] in the frame it is attached to,
    inertia tensor about the centre of mass in that frame's axes [kg m^2] (symmetric,
    positive semi-definite; a planar model uses only I_zz)."""

    mass: Mass = 0.0
    com: Vec3 = (0.0, 0.0, 0.0)
    inertia: Mat3 = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    @model_validator(mode="after")
    def _physical_inertia(self):
        I = self.inertia
        if any(abs(I[i][j] - I[j][i]) > 1e-12 * (1.0 + abs(I[i][j])) for i in range(3)
               for j in range(3)):
            raise ValueError("inertia must be symmetric")
        # principal moments >= 0 (the triangle inequality of a solid body is not asked:
        # a planar model gives its bodies only I_zz)
        import numpy as np
        # principal moments (a standard 3 x 3 eigenproblem, not a K, M pencil of fem.modal)
        w = np.linalg.eigvalsh(np.array(I, dtype=float))
        if w.min() < -1e-12 * max(1e-300, float(np.abs(w).max())):
            raise ValueError("inertia must be positive semi-definite (principal moments "
                             ">= 0)")
        return self


# ------------------------------------------------------------------ Delta robots
class DeltaGeometrySpec(_Spec):
    """Base radius r_A (O to the actuated joints) and platform radius r_B (P to the
    platform joints) [m]; leg angles theta_i [rad] (radial direction of A_i)."""

    base_radius: Length
    platform_radius: NonNeg
    leg_angles: tuple[Num, Num, Num] = (0.0, 2.0 * math.pi / 3.0, 4.0 * math.pi / 3.0)


class DeltaLinkSpec(_Spec):
    """One link group (all three upper links, or all three lower links).

    ``length`` [m]. A flexible link needs its ``section`` and ``material``; its mass is
    then rho A L, uniform. A rigid-only description may give the mass model instead:
    ``mass`` [kg], ``com_ratio`` (centre of mass from the link's first joint over the
    length) and ``inertia`` [kg m^2] about the centre of mass across the link (Asadi &
    Heydari 2020 eqs. 19-22; a lower link of two parallel rods counts as one link of
    their total mass).
    """

    length: Length
    section: SectionSpec | None = None
    material: MaterialSpec | None = None
    mass: Mass | None = None
    com_ratio: Ratio | None = None
    inertia: NonNeg | None = None

    @model_validator(mode="after")
    def _flexible_or_lumped(self):
        if (self.section is None) != (self.material is None):
            raise ValueError("section and material go together")
        if self.section is not None:
            for name in ("mass", "com_ratio", "inertia"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} does not apply with a section (the link is "
                                     "a uniform beam: mass rho A L)")
        elif self.mass is None:
            raise ValueError("either section and material (a flexible link) or mass "
                             "(a rigid link) is required")
        return self


class DeltaLinksSpec(_Spec):
    upper: DeltaLinkSpec
    lower: DeltaLinkSpec


class DeltaJointsSpec(_Spec):
    """Joint models at the elbows B (``b``) and at the platform D (``d``): universal
    (Kuo 2016 section 2), spherical or clamped."""

    b: Literal["universal", "spherical", "clamped"] = "universal"
    d: Literal["universal", "spherical", "clamped"] = "universal"


class DeltaPlatformSpec(_Spec):
    """The moving platform: ``mass`` [kg]; either a solid disc of radius r_B and
    ``thickness`` [m] (Kuo 2016 Table 1) or an explicit ``inertia`` about its centre of
    mass [kg m^2] with the centre of mass ``com`` [m] from P (world axes)."""

    mass: PosMass
    thickness: Length | None = None
    com: Vec3 | None = None
    inertia: Mat3 | None = None

    @model_validator(mode="after")
    def _disc_or_inertia(self):
        if self.thickness is not None and (self.inertia is not None or self.com is not None):
            raise ValueError("thickness (a solid disc) does not go with inertia or com")
        if self.thickness is None and self.inertia is None:
            raise ValueError("give thickness (a solid disc of radius platform_radius) or "
                             "inertia (about the centre of mass)")
        if self.inertia is not None:
            RigidBodySpec(mass=self.mass, com=self.com or (0.0, 0.0, 0.0),
                          inertia=self.inertia)
        return self


class MotorsSpec(_Spec):
    """Actuators: rotor ``inertia`` about the actuated axis, reflected to the joint
    [kg m^2], and joint ``friction``."""

    inertia: NonNeg = 0.0
    friction: FrictionSpec = FrictionSpec()


class DeltaSpec(_Spec):
    """A Delta robot with three identical legs (world frame: Z down, the platform hangs
    at Z > 0; see :mod:`elastodyn.description.delta`)."""

    family: Literal["delta"] = "delta"
    name: str = "delta"
    convention: Literal["kuo2016", "asadi2020"] = "kuo2016"
    gravity: Vec3 = (0.0, 0.0, 9.81)
    geometry: DeltaGeometrySpec
    links: DeltaLinksSpec
    joints: DeltaJointsSpec = DeltaJointsSpec()
    platform: DeltaPlatformSpec
    payload: RigidBodySpec | None = None
    motors: MotorsSpec = MotorsSpec()

    @property
    def flexible(self) -> bool:
        """True if both link groups have a section and material (KED can model it)."""
        return self.links.upper.section is not None and self.links.lower.section is not None


# ------------------------------------------------------------------ tree robots
class BeamMassSpec(_Spec):
    """A beam's given mass [kg], centre of mass [m from the frame origin along the beam]
    and rotary inertia about the centre of mass [kg m^2] (instead of rho A; the
    floating-frame formulation spreads them as a quadratic mass per length)."""

    mass: PosMass
    centre_of_mass: Length
    inertia: NonNeg


class BeamSpec(_Spec):
    """A flexible beam along the x axis of its joint frame, clamped at its origin:
    ``length`` [m], ``section``, ``material``; ``spatial`` (axial, torsion, two
    bendings) or planar (axial and bending in x-y); ``geometric_stiffening`` (von Karman
    axial strain; Briot & Khalil 2013 and README)."""

    length: Length
    section: SectionSpec
    material: MaterialSpec
    spatial: bool = False
    geometric_stiffening: bool = True
    mass_properties: BeamMassSpec | None = None



class BodySpec(_Spec):
    """What a joint carries: a ``rigid`` body or a flexible ``beam`` (exactly one)."""

    rigid: RigidBodySpec | None = None
    beam: BeamSpec | None = None

    @model_validator(mode="after")
    def _one(self):
        if (self.rigid is None) == (self.beam is None):
            raise ValueError("give exactly one of rigid or beam")
        return self


Ident = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$", max_length=64)]


class JointSpec(_Spec):
    """One row of the modified Denavit-Hartenberg table (Khalil & Kleinfinger): the frame
    of this joint relative to its ``parent`` (a joint name or ``base``) is
    Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d) Rot(z, theta + q) Trans(z, r + q)
    ([rad], [m]; q for revolute or prismatic joints); ``fixed`` joints have no variable.
    A child of a beam is carried by the beam's point at s = d along its axis."""

    name: Ident
    parent: Ident = "base"
    type: Literal["revolute", "prismatic", "fixed"] = "revolute"
    actuated: bool = False
    gamma: Num = 0.0
    b: Num = 0.0
    alpha: Num = 0.0
    d: Num = 0.0
    theta: Num = 0.0
    r: Num = 0.0


class AttachmentSpec(RigidBodySpec):
    """A rigid body carried by a beam at ``at`` [m] from the beam's joint frame along its
    axis (a payload, a lumped mass, a motor), with the centre of mass and inertia in
    the beam's frame axes."""

    beam: Ident
    at: NonNeg
    name: Ident | None = None


class JointMotorSpec(_Spec):
    """Rotor inertia [kg or kg m^2] and viscous / Coulomb friction of a joint
    (Briot & Khalil 2013 eq. 26)."""

    inertia: NonNeg = 0.0
    viscous: NonNeg = 0.0
    coulomb: NonNeg = 0.0


CLOSURE_ROWS = ("vx", "vy", "vz", "wx", "wy", "wz")


class EndEffectorSpec(_Spec):
    """A planar robot's end-effector: the origin of joint frame ``point`` [its position],
    oriented from there toward the origin of joint frame ``toward``."""

    point: Ident
    toward: Ident


class TreeSpec(_Spec):
    """A tree or closed-loop robot: joints (MDH), the bodies they carry, rigid bodies
    attached along beams, the terminal joints of the legs (whose frames coincide with
    the platform frame), the platform, the twist components equated at the loop
    closures (``closure``: base-frame vx, vy, vz, wx, wy, wz), gravity [m/s^2, base
    frame], motors, and ``home``: an assembled configuration of the rigid robot that
    selects the assembly mode (every joint variable, rad or m)."""

    family: Literal["tree"] = "tree"
    name: str = "tree"
    gravity: Vec3 = (0.0, 0.0, 9.81)
    joints: tuple[JointSpec, ...] = Field(min_length=1)
    bodies: dict[Ident, BodySpec] = {}
    attachments: tuple[AttachmentSpec, ...] = ()
    terminals: tuple[Ident, ...] = Field(min_length=1)
    platform: RigidBodySpec = RigidBodySpec()
    closure: tuple[Literal["vx", "vy", "vz", "wx", "wy", "wz"], ...] = CLOSURE_ROWS
    motors: dict[Ident, JointMotorSpec] = {}
    home: dict[Ident, Num] = {}
    end_effector: EndEffectorSpec | None = None
    formulation: Ident | None = None

    @model_validator(mode="after")
    def _names(self):
        names = [j.name for j in self.joints]
        if self.end_effector is not None:
            for k in (self.end_effector.point, self.end_effector.toward):
                if k not in names:
                    raise ValueError(f"end_effector: {k!r} is not a joint")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"joint name {dup!r} appears twice")
        seen = {"base"}
        for j in self.joints:
            if j.parent not in seen:
                raise ValueError(f"joint {j.name!r}: parent {j.parent!r} must be 'base' or "
                                 "a joint listed before it")
            seen.add(j.name)
        for key, what in ((self.bodies, "bodies"), (self.motors, "motors"),
                          (self.home, "home")):
            for k in key:
                if k not in names:
                    raise ValueError(f"{what}: {k!r} is not a joint (joints: "
                                     + ", ".join(names) + ")")
        for t in self.terminals:
            if t not in names:
                raise ValueError(f"terminals: {t!r} is not a joint")
        for a in self.attachments:
            body = self.bodies.get(a.beam)
            if body is None or body.beam is None:
                raise ValueError(f"attachments: {a.beam!r} carries no beam")
            if a.at > body.beam.length:
                raise ValueError(f"attachments: at = {a.at} m is beyond the end of beam "
                                 f"{a.beam!r} ({body.beam.length} m)")
        if len(set(self.closure)) != len(self.closure):
            raise ValueError("closure rows must be distinct")
        return self


# ------------------------------------------------------------------ planar arms
class LumpedMassSpec(_Spec):
    """A rigid body on a link: mass [kg], rotary inertia about its centre [kg m^2] (about
    the normal to the plane), placed either by ``position``, the distance from the
    link's joint along the link [m] (at most the link length), or by Yu's ``mu`` in
    [-1, 0] (the distance from the end of the link over its length, negative: 0 the
    end, -1 the joint; Yu & Chen 2019 eq. 14); neither: the end of the link."""

    mass: Mass = 0.0
    inertia: NonNeg = 0.0
    position: NonNeg | None = None
    mu: MuRatio | None = None

    @model_validator(mode="after")
    def _one_position(self):
        if self.position is not None and self.mu is not None:
            raise ValueError(f"give position ({self.position} m) or mu ({self.mu}), not "
                             "both")
        return self


class ArmLinkSpec(_Spec):
    """One flexible link and the motor of its joint: chord ``length`` [m], ``mass`` [kg]
    (uniform), bending stiffness from ``E`` [Pa] and ``I`` [m^4] (or ``section`` and
    ``material``: then I = I_z of the section and, unless given, mass = rho A L),
    lumped masses along it, the hub inertia at its root [kg m^2], the gear ratio
    (joint speed = motor speed / ratio, >= 1) and the motor-side friction (Coulomb
    [N m] and viscous [N m s/rad], reflected to the joint as r kc and r^2 kv)."""

    length: Length
    mass: Mass | None = None
    E: Modulus | None = None
    I: Moment | None = None  # noqa: E741 (the paper's name)
    section: SectionSpec | None = None
    material: MaterialSpec | None = None
    lumped_masses: tuple[LumpedMassSpec, ...] = ()
    hub_inertia: NonNeg = 0.0
    gear_ratio: GearRatio = 1.0
    coulomb: NonNeg = 0.0
    viscous: NonNeg = 0.0

    @model_validator(mode="after")
    def _stiffness(self):
        if (self.section is None) != (self.material is None):
            raise ValueError("section and material go together")
        if self.section is not None:
            if self.E is not None or self.I is not None:
                raise ValueError("E and I do not apply with a section and material")
        elif self.E is None or self.I is None or self.mass is None:
            raise ValueError("give E, I and mass, or a section and material")
        for k, lm in enumerate(self.lumped_masses):
            if lm.position is not None and lm.position > self.length:
                raise ValueError(f"lumped_masses.{k}.position {lm.position} m is beyond "
                                 f"the link length {self.length} m")
        return self


class PayloadSpec(_Spec):
    """A payload at the tip of the last link: mass [kg] and rotary inertia [kg m^2]."""

    mass: Mass = 0.0
    inertia: NonNeg = 0.0


class ArmSpec(_Spec):
    """A planar serial arm in the vertical plane x0-y0, gravity ``gravity`` [m/s^2]
    along -y0 (Yu & Chen 2019)."""

    family: Literal["arm"] = "arm"
    name: str = "arm"
    gravity: NonNeg = 9.81
    links: tuple[ArmLinkSpec, ...] = Field(min_length=1, max_length=32)
    payload: PayloadSpec = PayloadSpec()


RobotSpec = Annotated[Union[DeltaSpec, TreeSpec, ArmSpec], Field(discriminator="family")]


# ------------------------------------------------------------------ errors
def _path(loc) -> str:
    parts = []
    for p in loc:
        if isinstance(p, str) and p in ("delta", "tree", "arm") and not parts:
            continue  # the discriminator's tag, not a key of the file
        parts.append(str(p))
    return ".".join(parts) or "(top level)"


def _inner(ann, key):
    """The annotation of the entry ``key`` (a field name, a list index or a mapping key)
    inside annotation ``ann``, or None."""
    import types
    import typing
    origin = typing.get_origin(ann)
    if origin is Annotated:
        return _inner(typing.get_args(ann)[0], key)
    if origin is Union or origin is types.UnionType:
        for a in typing.get_args(ann):
            if a is not type(None):
                got = _inner(a, key)
                if got is not None:
                    return got
        return None
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        field = ann.model_fields.get(key) if isinstance(key, str) else None
        return field.annotation if field is not None else None
    args = typing.get_args(ann)
    if origin is tuple and isinstance(key, int):
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
        return args[key] if key < len(args) else None
    if origin is list and isinstance(key, int):
        return args[0] if args else None
    if origin is dict:
        return args[1] if len(args) == 2 else None
    return None


def _spec_class(ann):
    """The spec class an annotation holds (through Optional and Annotated), or None."""
    import typing
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    if typing.get_origin(ann) in (tuple, list, dict):
        return None
    for a in typing.get_args(ann):
        c = _spec_class(a)
        if c is not None:
            return c
    return None


def _allowed_keys(model_cls, loc) -> list[str] | None:
    """Field names of the spec class holding the last entry of ``loc`` (for an unknown
    key), or None. List indices and mapping keys (joint names under ``bodies``) are
    followed through the annotations."""
    ann = model_cls
    for p in loc[:-1]:
        ann = _inner(ann, p)
        if ann is None:
            return None
    cls = _spec_class(ann)
    return sorted(cls.model_fields) if cls is not None else None


def _shown(value) -> str:
    """A value for an error line: its YAML-like text when short, else its kind."""
    if isinstance(value, (dict, list, tuple)):
        text = repr(list(value) if isinstance(value, tuple) else value)
        if len(text) <= 60:
            return text
        kind = "mapping" if isinstance(value, dict) else "list"
        return f"a {kind} of {len(value)} entries"
    return repr(value)


def validation_message(exc: ValidationError, family_cls=None) -> str:
    """One line from a pydantic error: ``invalid PATH: got VALUE; allowed: WHAT``.

    An unknown key is reported before the other errors (a misspelt key also makes its
    right spelling missing): ``unknown key PATH; allowed: one of KEYS``."""
    errors = exc.errors(include_url=False)
    err = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])
    loc = err.get("loc", ())
    path = _path(loc)
    msg = err.get("msg", "")
    kind = err.get("type", "")
    value = err.get("input")
    if kind == "extra_forbidden":
        keys = _allowed_keys(family_cls, loc) if family_cls is not None else None
        allowed = ("one of " + ", ".join(keys)) if keys else "a known key"
        return f"unknown key {path}; allowed: {allowed}"
    if kind == "missing":
        return f"missing {path}; allowed: a value is required"
    if kind == "value_error" or kind == "assertion_error":
        msg = msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        where = f" {path}" if path != "(top level)" else ""
        if not isinstance(value, dict):     # a field's value: name it
            return f"invalid{where}: got {_shown(value)}; allowed: {msg}"
        return f"invalid{where}: {msg}"
    if kind == "union_tag_invalid" or kind == "union_tag_not_found":
        return (f"invalid family: got {value!r}; allowed: one of " + ", ".join(FAMILIES))
    allowed = msg.removeprefix("Input should be ").removeprefix("input should be ")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        keys = (_allowed_keys(family_cls, tuple(loc) + ("",))
                if family_cls is not None else None)
        allowed = "a mapping" + (" of " + ", ".join(keys) if keys else " of keys")
    return f"invalid {path}: got {_shown(value)}; allowed: {allowed}"


def parse_spec(data) -> "DeltaSpec | TreeSpec | ArmSpec":
    """Validate a mapping (from YAML) into the spec of its family.

    Raises
    ------
    pydantic.ValidationError
        With the path of the first bad entry (format it with :func:`validation_message`).
    ValueError
        ``data`` is not a mapping or has no valid ``family``.
    """
    if not isinstance(data, dict):
        got = ("an empty document" if data is None else
               f"a {'list' if isinstance(data, list) else type(data).__name__}")
        raise ValueError(f"invalid description: got {got}; allowed: a mapping of keys "
                         "(family, name, ...)")
    family = data.get("family")
    cls = {"delta": DeltaSpec, "tree": TreeSpec, "arm": ArmSpec}.get(family)
    if cls is None:
        raise ValueError(f"invalid family: got {family!r}; allowed: one of "
                         + ", ".join(FAMILIES))
    return cls.model_validate(data)


def spec_class(family: str):
    return {"delta": DeltaSpec, "tree": TreeSpec, "arm": ArmSpec}[family]
