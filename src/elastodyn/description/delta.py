"""Description of a rigid Delta robot: geometry, lumped masses, actuators (SI, immutable).

One description serves both papers' conventions (Kuo 2016 section 2; Asadi & Heydari
2020 eqs. 1-4). The world frame is the same in both: origin O at the centre of the fixed
base, **Z pointing down** (the end-effector hangs at Z > 0; gravity is along +Z). Leg i
is described by

* its leg angle ``theta_i``: the base joint is at A_i = r_A e_i with the radial unit
  vector e_i = (cos theta_i, sin theta_i, 0) (Kuo's theta_i; Asadi's leg angle is
  phi_i = theta_i - pi/2, because his base joint R_i R_b lies along the local y axis);
* its actuated angle q_i, in the robot's ``convention``:

  - ``"kuo2016"``: q_i = Kuo's phi_1i, a right-handed rotation about the chain's y axis
    ez x e_i (Kuo eq. 3, R_y(phi_1i)); the elbow is
    B_i = A_i + L1 (cos q_i e_i - sin q_i ez), so q_i > 0 lifts the elbow;
  - ``"asadi2020"``: q_i = Asadi's q_i, a right-handed rotation about the leg's x'_i
    axis = e_i x ez (Asadi eq. 2, O_i); B_i = A_i + L1 (cos q_i e_i + sin q_i ez), so
    q_i > 0 lowers the elbow. The two angles are opposite: q_asadi = -phi_1 (and the
    torques too: tau_asadi = -tau_kuo).

The platform translates; its joints are D_i = X + r_B e_i, with X the position of its
centre P. The lower link (Kuo's B_iD_i, Asadi's intermediary leg C_iA_i) keeps
|D_i - B_i| = L2.

Symbols across the papers:

=====================  ==========  ==========  ==========================================
here                   Kuo 2016    Asadi 2020  meaning
=====================  ==========  ==========  ==========================================
``base_radius``        r_A         r_b         O to the actuated joint A_i [m]
``platform_radius``    r_B         r_a         P to the platform joint D_i [m]
``upper_length``       L_1         l_L         upper (motor) link A_iB_i [m]
``lower_length``       L_2         l_K         lower (intermediary) link B_iD_i [m]
``leg_angles``         theta_i     phi_i+pi/2  radial direction of A_i [rad]
=====================  ==========  ==========  ==========================================

(Kuo's Fig. 2 text swaps L1 and L2; his Table 1 is right: L1 = A_iB_i = 0.5 m.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validate
from ..exceptions import InputError
from .friction import Friction
from .materials import STEEL, Material, Section

__all__ = ["DeltaGeometry", "DeltaMasses", "Friction", "RigidDelta",
           "CONVENTIONS", "delta_kuo2016", "delta_asadi2020"]

CONVENTIONS = ("kuo2016", "asadi2020")


@dataclass(frozen=True)
class DeltaGeometry:
    """Geometry of a Delta robot with three identical legs.

    Parameters
    ----------
    base_radius : float
        r_A [m], distance from O to the actuated joints A_i; > 0.
    platform_radius : float
        r_B [m], distance from P to the platform joints D_i; >= 0.
    upper_length : float
        L1 [m], length of the upper links A_iB_i; > 0.
    lower_length : float
        L2 [m], length of the lower links B_iD_i; > 0.
    leg_angles : array_like, shape (3,)
        theta_i [rad], radial direction of A_i (Kuo's theta_i); finite.
    convention : {"kuo2016", "asadi2020"}
        Sign of the actuated angles and torques (see the module docstring).
    """

    base_radius: float
    platform_radius: float
    upper_length: float
    lower_length: float
    leg_angles: tuple = (0.0, 2.0 * math.pi / 3.0, 4.0 * math.pi / 3.0)
    convention: str = "kuo2016"

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "base_radius", _validate.positive("base_radius", self.base_radius))
        set_(self, "platform_radius",
             _validate.non_negative("platform_radius", self.platform_radius))
        set_(self, "upper_length", _validate.positive("upper_length", self.upper_length))
        set_(self, "lower_length", _validate.positive("lower_length", self.lower_length))
        angles = _validate.vector("leg_angles", self.leg_angles, 3)
        set_(self, "leg_angles", tuple(_validate.scalar(a) for a in angles))
        _validate.choice("convention", self.convention, CONVENTIONS)

    @classmethod
    def from_asadi(cls, r_b: float, r_a: float, l_L: float, l_K: float,
                   phi=(math.pi, -math.pi / 3.0, math.pi / 3.0)) -> "DeltaGeometry":
        """Geometry from Asadi & Heydari's symbols (eqs. 1-4, appendix).

        Parameters
        ----------
        r_b, r_a : float
            Fixed and moving platform radii [m].
        l_L, l_K : float
            Motor leg and intermediary leg lengths [m].
        phi : array_like, shape (3,)
            Asadi's leg position angles phi_i [rad] (rotation R_i about Z); the base
            joint R_i (0, r_b, 0) lies at the radial angle theta_i = phi_i + pi/2.
        """
        phi = _validate.vector("phi", phi, 3)
        return cls(r_b, r_a, l_L, l_K, tuple(phi + 0.5 * math.pi), "asadi2020")

    @property
    def sign(self) -> float:
        """+1 for the ``kuo2016`` convention, -1 for ``asadi2020`` (see module doc)."""
        return 1.0 if self.convention == "kuo2016" else -1.0

    @property
    def offset(self) -> float:
        """r = r_A - r_B [m] (Kuo eq. 6)."""
        return self.base_radius - self.platform_radius

    @property
    def radial(self) -> np.ndarray:
        """Radial unit vectors e_i, shape (3 legs, 3) (row i is leg i)."""
        th = np.asarray(self.leg_angles)
        return np.stack([np.cos(th), np.sin(th), np.zeros(3)], axis=1)

    @property
    def axes(self) -> np.ndarray:
        """Actuated joint axes, shape (3 legs, 3): the unit vector about which q_i is
        a right-handed rotation (ez x e_i for ``kuo2016``, e_i x ez for ``asadi2020``)."""
        e = self.radial
        return self.sign * np.stack([-e[:, 1], e[:, 0], np.zeros(3)], axis=1)

    @property
    def asadi_leg_angles(self) -> np.ndarray:
        """Asadi's phi_i = theta_i - pi/2 [rad], shape (3,)."""
        return np.asarray(self.leg_angles) - 0.5 * math.pi


@dataclass(frozen=True)
class DeltaMasses:
    """Lumped mass model of a rigid Delta (Asadi & Heydari 2020, eqs. 22-29).

    Every leg carries the same values.

    Parameters
    ----------
    platform : float
        m_P [kg], moving platform (a point mass at P: the platform only translates); >= 0.
    motor_inertia : float
        I_mo [kg m^2], rotor inertia about the actuated axis (reflected through any gear);
        >= 0.
    upper_mass : float
        m_L [kg], upper (motor) link mass; >= 0.
    upper_com_ratio : float
        r_L, distance A_i to the upper link's centre of mass over L1; in [0, 1].
    upper_inertia : float
        I_L [kg m^2], upper link moment of inertia about its centre of mass, about the
        axis parallel to the actuated axis; >= 0.
    elbow_mass : float
        m_C [kg], lower-link mass lumped at the elbow B_i; >= 0.
    platform_joint_mass : float
        m_A [kg], lower-link mass lumped at the platform joint D_i; >= 0.
    lower_com_mass : float
        m_K [kg], lower-link mass lumped at B_i + r_K (D_i - B_i); >= 0.
    lower_com_ratio : float
        r_K in [0, 1].

    Notes
    -----
    Asadi eq. (22) makes the three lower-link masses dynamically equivalent to the link
    (mass, centre of mass and the inertia about axes across the link; the inertia about
    the link axis is neglected): see :meth:`equivalent_lower_link`. For a uniform rod the
    equivalence is exact with m/6, m/6 and 2m/3 (Simpson's rule on the kinetic energy
    of a rod whose velocity varies linearly along it).
    """

    platform: float
    motor_inertia: float = 0.0
    upper_mass: float = 0.0
    upper_com_ratio: float = 0.5
    upper_inertia: float = 0.0
    elbow_mass: float = 0.0
    platform_joint_mass: float = 0.0
    lower_com_mass: float = 0.0
    lower_com_ratio: float = 0.5

    def __post_init__(self):
        for name in ("platform", "motor_inertia", "upper_mass", "upper_inertia",
                     "elbow_mass", "platform_joint_mass", "lower_com_mass"):
            object.__setattr__(self, name, _validate.non_negative(name, getattr(self, name)))
        for name in ("upper_com_ratio", "lower_com_ratio"):
            v = _validate.finite(name, getattr(self, name))
            if not 0.0 <= v <= 1.0:
                raise InputError(name, getattr(self, name), "a number in [0, 1]")
            object.__setattr__(self, name, v)

    @staticmethod
    def equivalent_lower_link(mass: float, inertia: float, com_ratio: float,
                              length: float) -> tuple[float, float, float]:
        """Solve Asadi eq. (22): masses (m_C, m_A, m_K) equivalent to a lower link.

        Parameters
        ----------
        mass : float
            M_K [kg], link mass; > 0.
        inertia : float
            I_K [kg m^2], dominant moment of inertia about the centre of mass; > 0.
        com_ratio : float
            r_K, centre of mass position from the elbow over the length; in (0, 1).
        length : float
            l_K [m]; > 0.

        Returns
        -------
        (m_C, m_A, m_K) : tuple of float
            Masses at the elbow, at the platform joint and at the centre of mass [kg].

        Raises
        ------
        InputError
            Non-physical input, or an inertia that needs a negative m_K (I_K larger than
            M_K times the squared distances allow).
        """
        m = _validate.positive("mass", mass)
        i = _validate.positive("inertia", inertia)
        r = _validate.finite("com_ratio", com_ratio)
        if not 0.0 < r < 1.0:
            raise InputError("com_ratio", com_ratio, "a number in (0, 1)")
        l = _validate.positive("length", length)
        a = np.array([[1.0, 1.0, 1.0],
                      [r, r - 1.0, 0.0],
                      [r**2 * l**2, (r - 1.0) ** 2 * l**2, 0.0]])
        m_c, m_a, m_k = np.linalg.solve(a, [m, 0.0, i])
        # the limit I_K = M r (1 - r) l^2 (m_K = 0) comes out as -1e-18 by round-off
        m_c, m_a, m_k = (0.0 if abs(v) <= 1e-12 * m else v for v in (m_c, m_a, m_k))
        if min(m_c, m_a, m_k) < 0.0:
            raise InputError("inertia", inertia,
                             f"at most {m * r * (1 - r) * l**2:.6g} kg m^2 for mass {m} kg, "
                             f"length {l} m and com_ratio {r} (else a lumped mass is negative)")
        return float(m_c), float(m_a), float(m_k)

    @classmethod
    def uniform_rods(cls, platform: float, upper_mass: float, upper_length: float,
                     lower_mass: float, motor_inertia: float = 0.0) -> "DeltaMasses":
        """Uniform slender rods: upper link of mass m1 (I_L = m1 L1^2 / 12 about its centre),
        lower link of mass m2 as m2/6 at each end and 2 m2/3 at mid-length (exact)."""
        m1 = _validate.non_negative("upper_mass", upper_mass)
        l1 = _validate.positive("upper_length", upper_length)
        m2 = _validate.non_negative("lower_mass", lower_mass)
        return cls(platform=platform, motor_inertia=motor_inertia, upper_mass=m1,
                   upper_com_ratio=0.5, upper_inertia=m1 * l1**2 / 12.0,
                   elbow_mass=m2 / 6.0, platform_joint_mass=m2 / 6.0,
                   lower_com_mass=2.0 * m2 / 3.0, lower_com_ratio=0.5)


@dataclass(frozen=True)
class RigidDelta:
    """A rigid Delta robot: geometry, masses, friction and gravity.

    Parameters
    ----------
    geometry : DeltaGeometry
    masses : DeltaMasses
    friction : Friction, optional
        Default: none.
    gravity : array_like, shape (3,)
        Gravity acceleration vector [m/s^2] in the world frame (Z down: (0, 0, 9.81)).
    name : str
        Preset name or a label.
    link_section, material : Section, Material or None
        Cross-section and material of the links when the masses come from them (kept
        for the flexible model).
    """

    geometry: DeltaGeometry
    masses: DeltaMasses
    friction: Friction = field(default_factory=Friction)
    gravity: tuple = (0.0, 0.0, 9.81)
    name: str = "delta"
    link_section: Section | None = None
    material: Material | None = None

    def __post_init__(self):
        g = _validate.vector("gravity", self.gravity, 3)
        object.__setattr__(self, "gravity", tuple(float(x) for x in g))
        if not isinstance(self.geometry, DeltaGeometry):
            raise InputError("geometry", self.geometry, "a DeltaGeometry")
        if not isinstance(self.masses, DeltaMasses):
            raise InputError("masses", self.masses, "a DeltaMasses")
        if not isinstance(self.friction, Friction):
            raise InputError("friction", self.friction, "a Friction")


def delta_kuo2016() -> RigidDelta:
    """Kuo 2016, Table 1: L1 = 0.5 m, L2 = 0.6 m, r_A = 0.1 m, r_B = 0.05 m, steel links of
    5 mm x 5 mm square section, end-effector 0.5 kg, theta = 0, 120, 240 deg, gravity
    along +Z (Z down).

    Link masses are rho A L (0.0975 kg and 0.117 kg), as uniform rods
    (:meth:`DeltaMasses.uniform_rods`). Decision: Kuo's eqs. (11)-(12) put the whole lower
    link mass m2 at *both* of its ends (kinetic energy 1/2 m2 (|Xd|^2 + L1^2 phid^2),
    potential m2 g (Z_P + Z_B)), which counts it twice; we use the exact rod equivalent
    (m2/6 at each end, 2 m2/3 at mid-length), consistent with the distributed mass of the
    flexible model. No motor inertia or friction is given in the paper: both are zero.
    """
    section = Section.rectangle(5e-3, 5e-3)
    geometry = DeltaGeometry(0.1, 0.05, 0.5, 0.6, (0.0, 2 * math.pi / 3, 4 * math.pi / 3),
                             "kuo2016")
    m1 = STEEL.rho * section.area * geometry.upper_length
    m2 = STEEL.rho * section.area * geometry.lower_length
    masses = DeltaMasses.uniform_rods(0.5, m1, geometry.upper_length, m2)
    return RigidDelta(geometry, masses, Friction(), (0.0, 0.0, 9.81), "delta-kuo2016",
                      section, STEEL)


def delta_asadi2020() -> RigidDelta:
    """Asadi & Heydari 2020, appendix: r_b = r_a = 0.2 m, phi = pi, -pi/3, pi/3,
    l_L = 0.2 m, r_L = 0.3933, l_K = 0.52 m, r_K = 0.5, m_L = 0.116 kg,
    I_L = 6.4345319e-4 kg m^2, I_mo = 0.0465475 kg m^2, m_P = 1.055 kg, intermediary leg
    pair M_K = 2 x 0.05788 kg with dominant inertia I_K = 5.74769459e-3 kg m^2, made
    equivalent by eq. (22).

    Decisions: the paper does not say which way z points; its circle lies in the plane
    z = 450 mm, i.e. below the base, and a Delta hangs from its base, so gravity is along
    +Z as in Kuo's frame. The appendix identifies the motor friction by a Stribeck model
    (section "Evaluation") but gives no values: friction is zero here; set
    :class:`Friction` to add it.
    """
    geometry = DeltaGeometry.from_asadi(0.2, 0.2, 0.2, 0.52)
    m_c, m_a, m_k = DeltaMasses.equivalent_lower_link(2 * 0.05788, 5.74769459e-3, 0.5, 0.52)
    masses = DeltaMasses(platform=1.055, motor_inertia=0.0465475, upper_mass=0.116,
                         upper_com_ratio=0.3933, upper_inertia=6.4345319e-4,
                         elbow_mass=m_c, platform_joint_mass=m_a, lower_com_mass=m_k,
                         lower_com_ratio=0.5)
    return RigidDelta(geometry, masses, Friction(), (0.0, 0.0, 9.81), "delta-asadi2020")
