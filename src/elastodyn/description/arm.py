"""Planar serial arms with flexible links, modelled by assumed modes (Yu & Chen 2019).

The arm moves in the vertical plane x0-y0, gravity along -y0. Link i turns by the joint
angle theta_i relative to link i - 1 (between their chords). Its floating frame has its
x axis along the chord, through the start and end points of the link (Yu eq. 1). Its
transverse deflection is y_i = sum_k phi_k f_ik (eq. 3) over ``modes`` assumed modes
(:data:`BASES`). A lumped mass sits on link i at mu_i in [-1, 0] (eq. 14; 0: the end of
the link, -1/2: its middle), and each joint has a geared motor with Coulomb and viscous
friction.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .._validate import finite, non_negative, positive, positive_int
from ..exceptions import InputError

__all__ = ["ArmLink", "PlanarArm", "BASES", "arm_yu2019"]

BASES = ("sine", "clamped-free")
"""Assumed-mode bases. ``sine``: phi_k = sin(k pi xi), xi in [0, 1] from the root
(Yu eq. 4). ``clamped-free``: the cantilever eigenfunctions with their chord part removed,
psi_k(xi) = phi_k(xi) - xi phi_k(1), so that they vanish at both ends as the chord frame
requires."""


@dataclass(frozen=True)
class ArmLink:
    """One flexible link and its joint.

    Parameters
    ----------
    length : float
        Chord length L [m], > 0.
    mass : float
        Mass of the link m [kg], >= 0, uniform along the chord.
    E : float
        Young's modulus [Pa], > 0.
    I : float
        Second moment of area of the section [m^4], > 0.
    lumped_mass : float
        Point mass M on the link [kg], >= 0 (a motor, a payload).
    mu : float
        Position of the lumped mass, in [-1, 0]: X = mu L in the link frame, whose
        origin is the end of the link (Yu eq. 14).
    gear_ratio : float
        Joint speed = motor speed / gear_ratio, >= 1.
    coulomb, viscous : float
        Motor-side Coulomb [N m] and viscous [N m s/rad] friction, >= 0. At the joint:
        gear_ratio * coulomb * sign(theta_dot) + gear_ratio^2 * viscous * theta_dot.
    """

    length: float
    mass: float
    E: float
    I: float  # noqa: E741 (the paper's name)
    lumped_mass: float = 0.0
    mu: float = 0.0
    gear_ratio: float = 1.0
    coulomb: float = 0.0
    viscous: float = 0.0

    def __post_init__(self):
        positive("length", self.length)
        non_negative("mass", self.mass)
        positive("E", self.E)
        positive("I", self.I)
        non_negative("lumped_mass", self.lumped_mass)
        finite("mu", self.mu)
        if not -1.0 <= self.mu <= 0.0:
            raise InputError("mu", self.mu, "a position in [-1, 0] (0: the end of the link)")
        if not (self.gear_ratio >= 1.0 and self.gear_ratio < float("inf")):
            raise InputError("gear_ratio", self.gear_ratio, "a finite number >= 1")
        non_negative("coulomb", self.coulomb)
        non_negative("viscous", self.viscous)


@dataclass(frozen=True)
class PlanarArm:
    """A planar serial arm of flexible links.

    Parameters
    ----------
    name : str
    links : tuple of ArmLink
        From the base to the tip (at least one).
    modes : int
        Assumed modes per link s, >= 1 (Yu: 2).
    basis : {"sine", "clamped-free"}
    gravity : float
        g [m/s^2] >= 0, along -y0.
    """

    name: str
    links: tuple
    modes: int = 2
    basis: str = "sine"
    gravity: float = 9.81

    def __post_init__(self):
        if not self.links or not all(isinstance(k, ArmLink) for k in self.links):
            raise InputError("links", self.links, "one or more ArmLink")
        positive_int("modes", self.modes)
        if self.basis not in BASES:
            raise InputError("basis", self.basis, "one of " + ", ".join(BASES))
        non_negative("gravity", self.gravity)

    @property
    def n(self) -> int:
        """Number of links (joints)."""
        return len(self.links)

    def with_modes(self, modes: int, basis: str | None = None) -> "PlanarArm":
        return replace(self, modes=modes, basis=self.basis if basis is None else basis)

    def with_stiffness_scale(self, factor: float) -> "PlanarArm":
        """Same arm with every E times ``factor``."""
        f = positive("factor", factor)
        return replace(self, links=tuple(replace(k, E=k.E * f) for k in self.links))


def arm_yu2019() -> PlanarArm:
    """The 2-DOF arm of Yu & Chen 2019, Table 2.

    Links of 0.475 and 0.435 m and 0.374 and 0.29 kg, E = 2.06e11 Pa, I = 16e-11 and
    6.75e-11 m^4. Lumped masses of 2.94 kg and 0.343 kg at the end of each link
    (mu = 0). Gear ratios 64 and 32; motor-side Coulomb friction 0.0345 and 0.0226 N m,
    viscous 0.0037 and 0.0023 N m s/rad. Two sine modes per link, g = 9.81.

    Decisions: Table 2 calls the lumped masses "of joints" and gives one Young's modulus
    for both arms. The issue places them at the end of each link: M1 is the motor of
    joint 2 on link 1, M2 the end-effector. Table 2 writes the modulus "2.06 x 10^11" in
    a GPa column; we read 2.06e11 Pa (steel).
    """
    return PlanarArm("arm-yu2019", (
        ArmLink(0.475, 0.374, 2.06e11, 16e-11, 2.94, 0.0, 64.0, 0.0345, 0.0037),
        ArmLink(0.435, 0.29, 2.06e11, 6.75e-11, 0.343, 0.0, 32.0, 0.0226, 0.0023),
    ), modes=2, basis="sine", gravity=9.81)
