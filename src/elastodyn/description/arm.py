"""Planar serial arms with flexible links, modelled by assumed modes (Yu & Chen 2019).

The arm moves in the vertical plane x0-y0, gravity along -y0. Link i turns by the joint
angle theta_i relative to link i - 1 (between their chords). Its floating frame has its
x axis along the chord, through the start and end points of the link (Yu eq. 1). Its
transverse deflection is y_i = sum_k phi_k f_ik (eq. 3) over ``modes`` assumed modes
(:data:`BASES`). Each joint has a geared motor with Coulomb and viscous friction.

Rigid bodies on the arm (:class:`LumpedMass`), all in the plane:

* lumped masses on link i, any number, anywhere along it: Yu's M_i at mu_i in [-1, 0]
  (eq. 14; 0: the end of the link, -1/2: its middle), or at the distance s in [0, L] from
  the joint (mu = s / L - 1). Each sits on the deflected axis (X = mu L, Y = y_i(X) in the
  link frame, eq. 14) and may have a rotary inertia J about its centre;
* a hub inertia per joint (:attr:`ArmLink.hub_inertia`): a rigid hub clamped to the root
  of link i, turning with its root section (no mass: put the motor's mass on link i - 1);
* a payload at the tip of the last link (:attr:`PlanarArm.payload`): a mass with a rotary
  inertia.

Rotary inertia (an extension of Yu, who has point masses only). The section of link i at
x turns by the chord angle plus the slope, phi_i + dy_i/dx (the linear small-slope
measure; the planar NE-PVP beams of this library give a carried frame the same rotation,
rz = v'); a body of rotary inertia J there adds 1/2 J (phi_i_dot + dy_i_dot/dx)^2 to the
kinetic energy.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .._validate import finite, non_negative, positive, positive_int, scalar
from ..exceptions import InputError
from .friction import Friction

__all__ = ["ArmLink", "LumpedMass", "PlanarArm", "BASES", "ASSUMED_MODES", "COULOMB_SMOOTHING",
           "arm_yu2019"]

BASES = ("sine", "clamped-free")

ASSUMED_MODES = {"modes": 2, "basis": "sine"}
"""Defaults of assumed-mode links (the amm formulation; nepvp's assumed-mode beams)."""
"""Assumed-mode bases. ``sine``: phi_k = sin(k pi xi), xi in [0, 1] from the root
(Yu eq. 4). ``clamped-free``: the cantilever eigenfunctions with their chord part removed,
psi_k(xi) = phi_k(xi) - xi phi_k(1), so that they vanish at both ends as the chord frame
requires."""

COULOMB_SMOOTHING = 1e-3
"""Joint rate [rad/s] below which the Coulomb friction of a simulated joint is smoothed:
r kc tanh(theta_d / eps) instead of r kc sign(theta_d), so that a joint held near rest by
a controller does not chatter (:meth:`ArmLink.joint_friction`). The smoothing adds at most
the damping r kc / eps (2.2e3 N m s/rad at joint 1 of arm-yu2019), a time constant of
about 0.5 ms, which the implicit integrators resolve."""


@dataclass(frozen=True)
class LumpedMass:
    """A rigid body on a link: a lumped mass with a rotary inertia, in the plane.

    Parameters
    ----------
    mass : float
        [kg], >= 0.
    inertia : float
        Rotary inertia about its centre, about the normal to the plane [kg m^2], >= 0.
    position : float or None
        Distance s [m] from the joint (the root of the link) along the chord, in [0, L]
        (checked by the link, which knows L).
    mu : float or None
        Yu's position (eq. 14), in [-1, 0]: X = mu L from the end of the link (0: the end,
        -1: the joint). Give ``position`` or ``mu``, not both; neither: the end of the
        link (mu = 0). The model uses mu = s / L - 1.
    """

    mass: float
    inertia: float = 0.0
    position: float | None = None
    mu: float | None = None

    def __post_init__(self):
        non_negative("mass", self.mass)
        non_negative("inertia", self.inertia)
        if self.position is not None and self.mu is not None:
            raise InputError("position", self.position,
                             f"None when mu is given (mu = {self.mu}): one position only")
        if self.position is not None:
            non_negative("position", self.position)
        if self.mu is not None:
            finite("mu", self.mu)
            if not -1.0 <= self.mu <= 0.0:
                raise InputError("mu", self.mu, "a position in [-1, 0] (0: the end of the link)")

    def mu_on(self, length: float) -> float:
        """Yu's mu in [-1, 0] of this body on a link of chord length ``length`` [m]."""
        if self.mu is not None:
            return float(self.mu)
        if self.position is None:
            return 0.0
        if self.position > length:
            raise InputError("position", self.position,
                             f"a distance from the joint in [0, {length:g}] m (the link length)")
        return self.position / length - 1.0


class _OneMass(tuple):
    """The lumped masses of a link described by the old arguments (lumped_mass, mu): a
    tuple that the link re-derives from them when it is rebuilt."""


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
        Point mass M on the link [kg], >= 0 (a motor, a payload): Yu's one lumped mass.
    mu : float
        Position of the lumped mass, in [-1, 0]: X = mu L in the link frame, whose
        origin is the end of the link (Yu eq. 14).
    gear_ratio : float
        Joint speed = motor speed / gear_ratio, >= 1.
    coulomb, viscous : float
        Motor-side Coulomb [N m] and viscous [N m s/rad] friction, >= 0. At the joint:
        gear_ratio * coulomb * sign(theta_dot) + gear_ratio^2 * viscous * theta_dot
        (:meth:`joint_friction`).
    lumped_masses : tuple of LumpedMass, keyword only
        The rigid bodies on the link, any number (none: ``()``). Default (None): Yu's one
        point mass, ``lumped_mass`` at ``mu`` (zero if not given); the attribute then holds
        it as a one-element tuple, and :func:`dataclasses.replace` of ``lumped_mass`` or
        ``mu`` changes it. When given, ``lumped_mass`` and ``mu`` must stay 0 (every mass
        is listed in one place; :meth:`with_lumped_masses` replaces them).
    hub_inertia : float, keyword only
        Rotary inertia [kg m^2], >= 0, of a hub clamped to the root of the link (turning
        with the root section, phi_i + y_i'(0)): a motor rotor or a flange.
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
    lumped_masses: tuple | None = field(default=None, kw_only=True)
    hub_inertia: float = field(default=0.0, kw_only=True)

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
        non_negative("hub_inertia", self.hub_inertia)
        if self.lumped_masses is None or isinstance(self.lumped_masses, _OneMass):
            # Yu's one point mass; re-derived on dataclasses.replace, so that
            # replace(link, lumped_mass=...) changes it
            object.__setattr__(self, "lumped_masses", _OneMass(
                (LumpedMass(scalar(self.lumped_mass), 0.0, mu=float(self.mu)),)))
        else:
            try:
                bodies = tuple(self.lumped_masses)
            except TypeError:
                bodies = (self.lumped_masses,)
            if not all(isinstance(b, LumpedMass) for b in bodies):
                raise InputError("lumped_masses", self.lumped_masses,
                                 "a tuple of LumpedMass (possibly empty)")
            if self.lumped_mass != 0.0 or self.mu != 0.0:
                raise InputError("lumped_mass", (self.lumped_mass, self.mu),
                                 "lumped_mass = 0 and mu = 0 when lumped_masses is given "
                                 "(list every mass in lumped_masses)")
            object.__setattr__(self, "lumped_masses", bodies)
        for b in self.lumped_masses:
            b.mu_on(self.length)                    # a position beyond the link raises

    @property
    def mus(self) -> tuple:
        """Yu's positions mu in [-1, 0] of :attr:`lumped_masses` (a tuple of float)."""
        return tuple(b.mu_on(self.length) for b in self.lumped_masses)

    def with_lumped_masses(self, *masses: LumpedMass) -> "ArmLink":
        """The same link carrying ``masses`` (LumpedMass) instead of its lumped masses."""
        return replace(self, lumped_mass=0.0, mu=0.0, lumped_masses=tuple(masses))

    def joint_friction(self, smoothing_velocity: float = COULOMB_SMOOTHING) -> Friction:
        """The friction of the geared motor at the joint side, as a
        :class:`~elastodyn.description.friction.Friction`: viscous r^2 kv [N m s/rad],
        Coulomb r kc [N m] (r the gear ratio, kc and kv the motor-side coefficients), no
        Stribeck bump. Its sign is smoothed as tanh(theta_d / smoothing_velocity) [rad/s]
        (default :data:`COULOMB_SMOOTHING`, for simulations); 0 gives the exact sign."""
        r = self.gear_ratio
        return Friction(viscous=r * r * self.viscous, coulomb=r * self.coulomb,
                        smoothing_velocity=smoothing_velocity)


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
    payload : LumpedMass or None, keyword only
        Mass [kg] and rotary inertia [kg m^2] carried at the tip of the last link (its
        position must be the tip: mu = 0, the default, or position = L). To place a body
        elsewhere, add it to a link's ``lumped_masses``.
    """

    name: str
    links: tuple
    modes: int = 2
    basis: str = "sine"
    gravity: float = 9.81
    payload: LumpedMass | None = field(default=None, kw_only=True)

    def __post_init__(self):
        if not self.links or not all(isinstance(k, ArmLink) for k in self.links):
            raise InputError("links", self.links, "one or more ArmLink")
        positive_int("modes", self.modes)
        if self.basis not in BASES:
            raise InputError("basis", self.basis, "one of " + ", ".join(BASES))
        non_negative("gravity", self.gravity)
        if self.payload is not None:
            if not isinstance(self.payload, LumpedMass):
                raise InputError("payload", self.payload, "a LumpedMass or None")
            if self.payload.mu_on(self.links[-1].length) != 0.0:
                raise InputError("payload", self.payload,
                                 "a LumpedMass at the tip of the last link (mu = 0, the "
                                 "default, or position = its length)")

    @property
    def n(self) -> int:
        """Number of links (joints)."""
        return len(self.links)

    def link_bodies(self, i: int) -> tuple:
        """The rigid bodies on link i (0-based) as (mass [kg], inertia [kg m^2], mu)
        triples: its lumped masses, then the payload on the last link. The hub is not
        included (:attr:`ArmLink.hub_inertia`)."""
        lk = self.links[i]
        out = [(b.mass, b.inertia, mu) for b, mu in zip(lk.lumped_masses, lk.mus)]
        if i == self.n - 1 and self.payload is not None:
            out.append((self.payload.mass, self.payload.inertia, 0.0))
        return tuple(out)

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
