"""Description of a Delta robot with flexible links (Kuo 2016, sections 2-5; SI, immutable).

The geometry and frames are those of :mod:`elastodyn.description.delta` (world Z down,
gravity along +Z). Both links of every leg are uniform Euler-Bernoulli beams of one
section and material; the end-effector (platform) is a rigid body.

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

from dataclasses import dataclass, replace

import numpy as np

from .. import _validate
from ..exceptions import InputError
from .delta import DeltaGeometry, RigidDelta
from .materials import Material, Section

__all__ = ["JOINTS", "Platform", "FlexibleDelta", "flexible_delta_kuo2016"]

JOINTS = ("universal", "spherical", "clamped")


@dataclass(frozen=True)
class Platform:
    """Rigid end-effector: a solid disc of uniform density, axis along Z, centre P.

    Parameters
    ----------
    mass : float
        m_P [kg]; > 0.
    radius : float
        Disc radius [m]; > 0 (Kuo: r_B, the radius of the platform joints).
    thickness : float
        Disc thickness h [m]; > 0 (Kuo Table 1: 0.05 m).
    """

    mass: float
    radius: float
    thickness: float

    def __post_init__(self):
        for name in ("mass", "radius", "thickness"):
            object.__setattr__(self, name, _validate.positive(name, getattr(self, name)))

    @property
    def inertia(self) -> np.ndarray:
        """Principal inertia about P, world axes: diag(I_xx, I_yy, I_zz) [kg m^2],
        I_xx = I_yy = m (3 r^2 + h^2)/12, I_zz = m r^2/2 (solid disc), shape (3,)."""
        m, r, h = self.mass, self.radius, self.thickness
        ixx = m * (3 * r * r + h * h) / 12.0
        return np.array([ixx, ixx, 0.5 * m * r * r])


@dataclass(frozen=True)
class FlexibleDelta:
    """A Delta robot whose six links are flexible beams.

    Parameters
    ----------
    geometry : DeltaGeometry
    section : Section
        Cross-section of every link (Kuo: 5 mm x 5 mm square; torsion constant J of
        Saint-Venant, torsional inertia from the polar moment I_p).
    material : Material
    platform : Platform
    gravity : array_like, shape (3,)
        Gravitational acceleration, world frame [m/s^2] (Z down: (0, 0, 9.81)).
    joint_b, joint_d : {"universal", "spherical", "clamped"}
        Joints at the elbows B_i and at the platform D_i (module docstring).
    name : str
    """

    geometry: DeltaGeometry
    section: Section
    material: Material
    platform: Platform
    gravity: tuple = (0.0, 0.0, 9.81)
    joint_b: str = "universal"
    joint_d: str = "universal"
    name: str = "delta"

    def __post_init__(self):
        g = _validate.vector("gravity", self.gravity, 3)
        object.__setattr__(self, "gravity", tuple(float(x) for x in g))
        for name, cls in (("geometry", DeltaGeometry), ("section", Section),
                          ("material", Material), ("platform", Platform)):
            if not isinstance(getattr(self, name), cls):
                raise InputError(name, getattr(self, name), f"a {cls.__name__}")
        _validate.choice("joint_b", self.joint_b, JOINTS)
        _validate.choice("joint_d", self.joint_d, JOINTS)

    def with_joints(self, joint_b: str | None = None, joint_d: str | None = None):
        """A copy with other joints (None keeps the current one)."""
        return replace(self, joint_b=self.joint_b if joint_b is None else joint_b,
                       joint_d=self.joint_d if joint_d is None else joint_d)

    def scaled_stiffness(self, factor: float) -> "FlexibleDelta":
        """A copy with E and G multiplied by ``factor`` (> 0): the rigid limit as it grows."""
        f = _validate.positive("factor", factor)
        m = self.material
        return replace(self, material=Material(E=m.E * f, G=m.G * f, rho=m.rho))

    @property
    def link_masses(self) -> tuple[float, float]:
        """(upper, lower) link masses rho A L [kg]."""
        rA = self.material.rho * self.section.area
        return rA * self.geometry.upper_length, rA * self.geometry.lower_length

    @classmethod
    def from_rigid(cls, robot: RigidDelta, *, platform_thickness: float = 0.05,
                   joint_b: str = "universal", joint_d: str = "universal") -> "FlexibleDelta":
        """The flexible counterpart of a rigid description that names its link section
        and material (``robot.link_section``, ``robot.material``); the platform is a
        disc of the robot's platform mass and radius r_B."""
        if robot.link_section is None or robot.material is None:
            raise InputError("robot", robot.name, "a rigid Delta with link_section and "
                             "material (e.g. the preset delta-kuo2016)")
        platform = Platform(robot.masses.platform, robot.geometry.platform_radius,
                            platform_thickness)
        return cls(robot.geometry, robot.link_section, robot.material, platform,
                   robot.gravity, joint_b, joint_d, robot.name)


def flexible_delta_kuo2016(joint_b: str = "universal", joint_d: str = "universal"):
    """Kuo 2016 Table 1 with flexible links: the preset ``delta-kuo2016`` with a 0.5 kg
    solid-disc platform of radius r_B = 0.05 m and thickness 0.05 m, universal joints at
    B_i and D_i (Kuo section 2) unless told otherwise, theta = 0, 120, 240 deg."""
    from .delta import delta_kuo2016
    return FlexibleDelta.from_rigid(delta_kuo2016(), platform_thickness=0.05,
                                    joint_b=joint_b, joint_d=joint_d)

