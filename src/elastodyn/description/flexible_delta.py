"""Description of a Delta robot with flexible links (Kuo 2016, sections 2-5; SI, immutable).

The geometry and frames are those of :mod:`elastodyn.description.delta` (world Z down,
gravity along +Z). The links of every leg are uniform Euler-Bernoulli beams: the three
upper links of one section and material, the three lower links of another one (by
default the same). The end-effector (platform) is a rigid body, which can carry a rigid
payload; the actuators have a rotor inertia and friction (default zero).

Rigid bodies on the platform
----------------------------
In the rigid motion of a Delta the platform translates: the axes of every body fixed to
it stay parallel to the world axes, and each body is described in world axes by its mass
m, the offset c of its centre of mass from the platform centre P (the point whose
position is the robot's X, with the platform joints at D_i = X + r_B e_i) and its
inertia tensor I_c about its centre of mass (:class:`Payload`; :class:`Platform` is a
solid disc by default, or any rigid body by :meth:`Platform.rigid`). The platform and
payload act as one body (:attr:`FlexibleDelta.carried_body`) of mass m = sum m_k, centre
of mass c = sum m_k c_k / m and inertia about P (parallel-axis theorem)
I_P = sum_k [I_c,k + m_k (|c_k|^2 I - c_k c_k^T)]; for a small displacement d and
rotation r of the platform at P its kinetic energy is 1/2 [d_dot; r_dot]^T M_P
[d_dot; r_dot] with M_P = [[m I, -m [c]x], [m [c]x, I_P]], and the gravity and
d'Alembert loads of the rigid motion (acceleration X_ddot) are the force m (g - X_ddot)
at its centre of mass: the generalized load [m a; m c x a], a = g - X_ddot.

Joints
------
Kuo's section 2 describes two-rotation (universal) joints at the elbow B_i and at the
platform D_i, with the axes of his eq. (3) (errata): at B_i first a rotation about the
motor axis y_i (fixed to the upper link), then about the lower link's z axis; at D_i first
about the lower link's z axis, then about y_i (fixed to the platform). Each joint can be

* ``"universal"``: those two rotations are free; the third relative rotation (about
  y_i x z_l) and the three translations are transmitted;
* ``"spherical"``: all three relative rotations free (a ball joint);
* ``"clamped"``: rigid connection (Kuo's elastic chain of eq. (47) transmits every
  rotation at D_i: ``joint_d="clamped"`` reproduces his assumption).

A ball joint at either end of a lower link leaves the platform three mechanism
degrees of freedom with the actuators locked (Gruebler: each S-U or S-S leg removes one
freedom only), and ball joints at both ends let each lower link spin freely about its
axis: the model then has zero-frequency (mechanism) modes, reported as such.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .. import _validate
from ..exceptions import InputError
from .delta import DeltaGeometry, Friction, RigidDelta
from .materials import Material, Section

__all__ = ["JOINTS", "Payload", "Platform", "FlexibleDelta", "flexible_delta_kuo2016"]

JOINTS = ("universal", "spherical", "clamped")
_ZERO3 = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))


def _inertia_tensor(name: str, value) -> tuple:
    """A rigid body's inertia tensor (3, 3) [kg m^2] as a tuple of tuples: finite,
    symmetric (to 1e-12 of its largest entry), principal moments >= 0 and each at most
    the sum of the other two (to 1e-9: round-off of the eigenvalues)."""
    allowed = ("a symmetric (3, 3) inertia tensor [kg m^2] of a rigid body: principal "
               "moments >= 0, each at most the sum of the other two")
    try:
        a = _validate.real_array(value)
    except (TypeError, ValueError):
        raise InputError(name, value, allowed) from None
    full, a = a, a.real                 # checked on the real part (complex step)
    if a.shape != (3, 3) or not np.all(np.isfinite(a)):
        raise InputError(name, value, allowed)
    scale = float(np.abs(a).max())
    if np.abs(a - a.T).max() > 1e-12 * scale:
        raise InputError(name, value, allowed)
    # principal moments of a 3 x 3 inertia tensor (a standard symmetric eigenproblem;
    # fem.modal, a layer above description, solves the K, M pencils of the models)
    w = np.linalg.eigvalsh(0.5 * (a + a.T))
    if w.min() < -1e-12 * scale or w.max() > w.sum() - w.max() + 1e-9 * scale:
        raise InputError(name, value, allowed)
    return tuple(tuple(_validate.scalar(x) for x in row) for row in full)


def _skew(c: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])


@dataclass(frozen=True)
class Payload:
    """A rigid body fixed to the platform (a tool, a gripped part), in world axes (the
    platform translates in the rigid motion; module docstring).

    Parameters
    ----------
    mass : float
        m [kg]; >= 0.
    com : array_like, shape (3,)
        Offset c of its centre of mass from the platform centre P [m], world axes.
    inertia : array_like, shape (3, 3)
        Inertia tensor I_c about its centre of mass, world axes [kg m^2] (default zero:
        a point mass); symmetric, principal moments >= 0 and each at most the sum of
        the other two.
    """

    mass: float
    com: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = _ZERO3

    def __post_init__(self):
        object.__setattr__(self, "mass", _validate.non_negative("mass", self.mass))
        c = _validate.vector("com", self.com, 3)
        object.__setattr__(self, "com", tuple(_validate.scalar(x) for x in c))
        object.__setattr__(self, "inertia", _inertia_tensor("inertia", self.inertia))

    @property
    def com_offset(self) -> np.ndarray:
        """c [m], shape (3,)."""
        return np.array(self.com)

    @property
    def inertia_com(self) -> np.ndarray:
        """I_c about the centre of mass [kg m^2], shape (3, 3)."""
        return np.array(self.inertia)

    @property
    def inertia_about_p(self) -> np.ndarray:
        """I_P = I_c + m (|c|^2 I - c c^T) about P (parallel-axis theorem) [kg m^2],
        shape (3, 3)."""
        c = self.com_offset
        return self.inertia_com + self.mass * ((c @ c) * np.eye(3) - np.outer(c, c))

    @property
    def mass_matrix(self) -> np.ndarray:
        """M_P = [[m I, -m [c]x], [m [c]x, I_P]] [kg, kg m, kg m^2], shape (6, 6): the
        kinetic energy 1/2 [d_dot; r_dot]^T M_P [d_dot; r_dot] of a small displacement d
        and rotation r of the body at P (world axes)."""
        mc = self.mass * _skew(self.com_offset)
        out = np.zeros((6, 6), np.result_type(mc, self.inertia_about_p, float))
        out[:3, :3] = self.mass * np.eye(3)
        out[:3, 3:] = -mc
        out[3:, :3] = mc
        out[3:, 3:] = self.inertia_about_p
        return out

    def load(self, acceleration) -> np.ndarray:
        """Generalized load at P of the force m a at the centre of mass, [m a; c x m a]
        [N, N m], shape (..., 6), for a = g - X_ddot [m/s^2] of shape (..., 3) (gravity
        and d'Alembert load of the rigid translation X(t))."""
        f = self.mass * _validate.real_array(acceleration)
        return np.concatenate([f, f @ _skew(self.com).T], axis=-1)  # c x f = [c]x f

    def combined(self, other: "Payload") -> "Payload":
        """The rigid union of two bodies: mass m1 + m2, centre of mass
        (m1 c1 + m2 c2) / (m1 + m2), inertia about it by the parallel-axis theorem."""
        m = self.mass + other.mass
        if m == 0.0:
            return Payload(0.0)
        c = (self.mass * self.com_offset + other.mass * other.com_offset) / m
        inertia = np.zeros((3, 3), np.result_type(m, c, self.inertia_com, other.inertia_com,
                                                  float))
        for b in (self, other):
            d = b.com_offset - c
            inertia += b.inertia_com + b.mass * ((d @ d) * np.eye(3) - np.outer(d, d))
        return Payload(m, tuple(c), 0.5 * (inertia + inertia.T))


@dataclass(frozen=True)
class Platform:
    """Rigid end-effector: by default a solid disc of uniform density, axis along Z,
    centred on its centre of mass; or any rigid body (:meth:`rigid`).

    Parameters
    ----------
    mass : float
        m_P [kg]; > 0.
    radius : float or None
        Disc radius [m]; > 0 (Kuo: r_B, the radius of the platform joints). None with
        ``inertia_com``.
    thickness : float or None
        Disc thickness h [m]; > 0 (Kuo Table 1: 0.05 m). None with ``inertia_com``.
    com : array_like, shape (3,)
        Offset of the centre of mass from the platform centre P [m], world axes
        (default: at P).
    inertia_com : array_like, shape (3, 3), or None
        Inertia tensor about the centre of mass, world axes [kg m^2], instead of the
        disc's (see :class:`Payload` for what is allowed).
    """

    mass: float
    radius: float | None = None
    thickness: float | None = None
    com: tuple = (0.0, 0.0, 0.0)
    inertia_com: tuple | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "mass", _validate.positive("mass", self.mass))
        c = _validate.vector("com", self.com, 3)
        set_(self, "com", tuple(_validate.scalar(x) for x in c))
        if self.inertia_com is None:
            for name in ("radius", "thickness"):
                v = getattr(self, name)
                if v is None:
                    raise InputError(name, v, "a finite number > 0 (the disc's "
                                     f"{name}), or an explicit inertia_com")
                set_(self, name, _validate.positive(name, v))
        else:
            set_(self, "inertia_com", _inertia_tensor("inertia_com", self.inertia_com))
            for name in ("radius", "thickness"):
                if getattr(self, name) is not None:
                    raise InputError(name, getattr(self, name),
                                     "None when inertia_com is given (a disc's "
                                     "dimensions would be ignored)")

    @classmethod
    def rigid(cls, mass: float, *, com=(0.0, 0.0, 0.0), inertia=_ZERO3) -> "Platform":
        """A platform of any shape: mass [kg] > 0, centre of mass offset ``com`` from P
        (3,) [m] and inertia tensor about the centre of mass ``inertia`` (3, 3)
        [kg m^2], world axes."""
        return cls(mass, None, None, com, inertia)

    @property
    def inertia_tensor(self) -> np.ndarray:
        """Inertia about the centre of mass, world axes [kg m^2], shape (3, 3); the disc's
        is diag(I_xx, I_xx, I_zz), I_xx = m (3 r^2 + h^2)/12, I_zz = m r^2/2."""
        if self.inertia_com is not None:
            return np.array(self.inertia_com)
        m, r, h = self.mass, self.radius, self.thickness
        ixx = m * (3 * r * r + h * h) / 12.0
        return np.diag([ixx, ixx, 0.5 * m * r * r])

    @property
    def inertia(self) -> np.ndarray:
        """Diagonal of :attr:`inertia_tensor` [kg m^2], shape (3,) (the disc's principal
        moments I_xx, I_yy, I_zz)."""
        return np.diag(self.inertia_tensor).copy()

    @property
    def body(self) -> Payload:
        """The platform as a rigid body (mass, centre of mass offset, inertia)."""
        return Payload(self.mass, self.com, self.inertia_tensor)


@dataclass(frozen=True)
class FlexibleDelta:
    """A Delta robot whose six links are flexible beams.

    Parameters
    ----------
    geometry : DeltaGeometry
    section : Section
        Cross-section of the upper links (and of the lower links unless
        ``lower_section`` is given); Kuo: 5 mm x 5 mm square (torsion constant J of
        Saint-Venant, torsional inertia from the polar moment I_p).
    material : Material
        Material of the upper links (and of the lower links unless ``lower_material``).
    platform : Platform
    gravity : array_like, shape (3,)
        Gravitational acceleration, world frame [m/s^2] (Z down: (0, 0, 9.81)).
    joint_b, joint_d : {"universal", "spherical", "clamped"}
        Joints at the elbows B_i and at the platform D_i (module docstring).
    name : str
    lower_section : Section or None
        Cross-section of the lower links (None: ``section``).
    lower_material : Material or None
        Material of the lower links (None: ``material``).
    payload : Payload or None
        Rigid body carried by the platform (None: none).
    motor_inertia : float
        Rotor inertia of each actuator about its axis, reflected to the joint [kg m^2];
        >= 0 (default 0).
    friction : Friction
        Friction of each actuator (:class:`elastodyn.description.delta.Friction`;
        default none).
    """

    geometry: DeltaGeometry
    section: Section
    material: Material
    platform: Platform
    gravity: tuple = (0.0, 0.0, 9.81)
    joint_b: str = "universal"
    joint_d: str = "universal"
    name: str = "delta"
    lower_section: Section | None = None
    lower_material: Material | None = None
    payload: Payload | None = None
    motor_inertia: float = 0.0
    friction: Friction = field(default_factory=Friction)

    def __post_init__(self):
        g = _validate.vector("gravity", self.gravity, 3)
        object.__setattr__(self, "gravity", tuple(_validate.scalar(x) for x in g))
        for name, cls in (("geometry", DeltaGeometry), ("section", Section),
                          ("material", Material), ("platform", Platform),
                          ("friction", Friction)):
            if not isinstance(getattr(self, name), cls):
                raise InputError(name, getattr(self, name), f"a {cls.__name__}")
        for name, cls in (("lower_section", Section), ("lower_material", Material),
                          ("payload", Payload)):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), cls):
                raise InputError(name, getattr(self, name), f"a {cls.__name__} or None")
        object.__setattr__(self, "motor_inertia",
                           _validate.non_negative("motor_inertia", self.motor_inertia))
        _validate.choice("joint_b", self.joint_b, JOINTS)
        _validate.choice("joint_d", self.joint_d, JOINTS)

    def with_joints(self, joint_b: str | None = None, joint_d: str | None = None):
        """A copy with other joints (None keeps the current one)."""
        return replace(self, joint_b=self.joint_b if joint_b is None else joint_b,
                       joint_d=self.joint_d if joint_d is None else joint_d)

    def scaled_stiffness(self, factor: float) -> "FlexibleDelta":
        """A copy with E and G of every link multiplied by ``factor`` (> 0): the rigid
        limit as it grows."""
        f = _validate.positive("factor", factor)

        def scaled(m):
            return None if m is None else Material(E=m.E * f, G=m.G * f, rho=m.rho)

        return replace(self, material=scaled(self.material),
                       lower_material=scaled(self.lower_material))

    @property
    def link_sections(self) -> tuple[Section, Section]:
        """(upper, lower) link cross-sections."""
        return (self.section,
                self.section if self.lower_section is None else self.lower_section)

    @property
    def link_materials(self) -> tuple[Material, Material]:
        """(upper, lower) link materials."""
        return (self.material,
                self.material if self.lower_material is None else self.lower_material)

    @property
    def link_masses(self) -> tuple[float, float]:
        """(upper, lower) link masses rho A L [kg]."""
        (su, sl), (mu, ml) = self.link_sections, self.link_materials
        return (mu.rho * su.area * self.geometry.upper_length,
                ml.rho * sl.area * self.geometry.lower_length)

    @property
    def carried_body(self) -> Payload:
        """Platform and payload as one rigid body (module docstring)."""
        body = self.platform.body
        return body if self.payload is None else body.combined(self.payload)

    @classmethod
    def from_rigid(cls, robot: RigidDelta, *, platform_thickness: float = 0.05,
                   joint_b: str = "universal", joint_d: str = "universal") -> "FlexibleDelta":
        """The flexible counterpart of a rigid description that names its link section
        and material (``robot.link_section``, ``robot.material``); the platform is a
        disc of the robot's platform mass and radius r_B; the actuators keep the
        robot's motor inertia and friction."""
        if robot.link_section is None or robot.material is None:
            raise InputError("robot", robot.name, "a rigid Delta with link_section and "
                             "material (e.g. the preset delta-kuo2016)")
        platform = Platform(robot.masses.platform, robot.geometry.platform_radius,
                            platform_thickness)
        return cls(robot.geometry, robot.link_section, robot.material, platform,
                   robot.gravity, joint_b, joint_d, robot.name,
                   motor_inertia=robot.masses.motor_inertia, friction=robot.friction)


def flexible_delta_kuo2016(joint_b: str = "universal", joint_d: str = "universal"):
    """Kuo 2016 Table 1 with flexible links: the preset ``delta-kuo2016`` with a 0.5 kg
    solid-disc platform of radius r_B = 0.05 m and thickness 0.05 m, universal joints at
    B_i and D_i (Kuo section 2) unless told otherwise, theta = 0, 120, 240 deg."""
    from .delta import delta_kuo2016
    return FlexibleDelta.from_rigid(delta_kuo2016(), platform_thickness=0.05,
                                    joint_b=joint_b, joint_d=joint_d)

