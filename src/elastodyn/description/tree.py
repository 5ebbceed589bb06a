"""Parallel robots described as a virtual tree plus a platform (Briot & Khalil 2013, III).

Joints follow the modified Denavit-Hartenberg notation of Khalil & Kleinfinger for tree
structures: frame j is placed relative to frame a(j) by

    a(j)T_j = Rot(z, gamma_j) Trans(z, b_j) Rot(x, alpha_j) Trans(x, d_j)
              Rot(z, theta_j) Trans(z, r_j)

with theta_j = theta0_j + q_j for a revolute joint (sigma = 0), r_j = r0_j + q_j for a
prismatic joint (sigma = 1), and no variable for a fixed joint (sigma = 2). Joint j carries
body j: a rigid body, a flexible beam, or nothing (a frame only).

A flexible beam lies along the x axis of its frame, clamped at the frame origin (the
floating frame of Boyer & Khalil follows the joint), and bends in the x-y plane (planar
beam elements: axial u, transverse v, rotation rz per node). A child of a flexible body is
attached at the point s = d_j of the beam axis and follows its elastic displacement and
rotation there.

The legs end at *terminal frames* that coincide with the platform frame; the loops are
closed by equating their twists, in the base-frame components ``closure_rows`` (for a
planar robot, the three in-plane ones). The robot must be isostatic: as many passive
joint variables as independent closure equations.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import math

import numpy as np

from .._validate import choice, non_negative, positive, positive_int
from ..exceptions import InputError
from .materials import Material, Section

__all__ = ["MDHJoint", "RigidBody", "FlexibleBeam", "TreeRobot", "JOINT_KINDS"]

JOINT_KINDS = ("revolute", "prismatic", "fixed")


@dataclass(frozen=True)
class MDHJoint:
    """One row of the modified Denavit-Hartenberg table.

    Parameters
    ----------
    name : str
        Variable name (``q1``); ignored for fixed joints.
    antecedent : int
        a(j): index of the parent frame (0: base), < j.
    kind : {"revolute", "prismatic", "fixed"}
        sigma = 0, 1, 2.
    actuated : bool
        mu = 1 for an actuated joint.
    gamma, b, alpha, d, theta, r : float
        Geometric parameters [rad, m]; theta (revolute) or r (prismatic) is the offset
        added to the joint variable.
    """

    name: str
    antecedent: int
    kind: str = "revolute"
    actuated: bool = False
    gamma: float = 0.0
    b: float = 0.0
    alpha: float = 0.0
    d: float = 0.0
    theta: float = 0.0
    r: float = 0.0

    def __post_init__(self):
        choice("kind", self.kind, JOINT_KINDS)
        if self.kind == "fixed" and self.actuated:
            raise InputError("actuated", True, "False for a fixed joint")


@dataclass(frozen=True)
class RigidBody:
    """Rigid body: mass [kg], first moment ms = m * c [kg m] (c: centre of mass in the
    body frame) and inertia about the frame origin, in body axes [kg m^2] (3, 3)."""

    mass: float
    ms: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    def __post_init__(self):
        non_negative("mass", self.mass)
        ms = np.asarray(self.ms, dtype=float)
        I = np.asarray(self.inertia, dtype=float)
        if ms.shape != (3,) or I.shape != (3, 3) or not np.allclose(I, I.T):
            raise InputError("inertia", self.inertia, "ms of shape (3,), symmetric (3, 3) inertia")


@dataclass(frozen=True)
class FlexibleBeam:
    """Uniform beam along x of its frame, clamped at the origin: planar (axial and bending
    in x-y) or spatial (axial, torsion about x, bending in x-y and in x-z).

    Parameters
    ----------
    length : float
        [m], > 0.
    section : Section
    material : Material
    elements : int
        Number of cubic elements, >= 1: three elastic coordinates u, v, rz per node
        (nodes 1..n) for a planar beam, six (u, v, w, rx, ry, rz; rx the torsion angle,
        ry = -w', rz = v') for a spatial one.
    geometric_stiffening : bool
        Axial strain u' + (v'^2 + w'^2) / 2 (von Karman) in the elastic energy (default), so that
        the axial force acts on the slopes: tension stiffens, compression softens (and
        buckles at the Euler load). False: linear strain u' (pure linear elasticity:
        a beam in tension between two pins is then unstable in floating frames clamped
        at the joints, whose chord lengthens as v^2 / 2L without strain).
    spatial : bool
        Spatial beam (default False: planar). Its sections carry the polar mass moment
        rho I_p (torsion inertia, to first order); the rotary inertia of bending is
        neglected (Euler-Bernoulli), as in the element mass matrices.
    shapes : {"fe", "sine", "clamped-free"}
        "fe" (default): the cubic finite elements above. Otherwise a planar beam with
        ``modes`` assumed modes of the transverse deflection only (the bases of Yu &
        Chen 2019, :class:`~elastodyn.formulations.amm_arm.ModeShapes`), vanishing at
        both ends: the beam frame is its chord frame; coordinates f_1..f_modes [m].
        No axial coordinate, so ``geometric_stiffening`` must be False.
    modes : int
        Number of assumed modes (shapes other than "fe"), >= 1.
    """

    length: float
    section: Section
    material: Material
    elements: int = 1
    geometric_stiffening: bool = True
    spatial: bool = False
    shapes: str = "fe"
    modes: int = 2

    def __post_init__(self):
        positive("length", self.length)
        positive_int("elements", self.elements)
        if not isinstance(self.spatial, bool):
            raise InputError("spatial", self.spatial, "True or False")
        if self.shapes not in ("fe", "sine", "clamped-free"):
            raise InputError("shapes", self.shapes, "fe, sine or clamped-free")
        if self.shapes != "fe":
            positive_int("modes", self.modes)
            if self.spatial:
                raise InputError("spatial", True, "False for assumed-mode shapes (planar)")
            if self.geometric_stiffening:
                raise InputError("geometric_stiffening", True,
                                 "False for assumed-mode shapes (no axial coordinate)")

    @property
    def node_coordinates(self) -> tuple:
        """Names of the elastic coordinates of one node, in order (assumed modes: the
        modal coordinates, one "node")."""
        if self.shapes != "fe":
            return tuple(f"f{k + 1}_" for k in range(self.modes))
        return ("u", "v", "w", "rx", "ry", "rz") if self.spatial else ("u", "v", "rz")

    @property
    def n_coordinates(self) -> int:
        if self.shapes != "fe":
            return self.modes
        return len(self.node_coordinates) * self.elements

    @property
    def mass(self) -> float:
        return self.material.rho * self.section.area * self.length


@dataclass(frozen=True)
class TreeRobot:
    """A parallel robot as a virtual tree structure plus a rigid platform.

    Parameters
    ----------
    name : str
    joints : tuple of MDHJoint
        Joints 1..n in order (``joints[j - 1]`` is joint j).
    bodies : dict {j: RigidBody | FlexibleBeam}
        Body carried by joint j (missing: a massless frame).
    terminals : tuple of int
        Terminal joint of each leg; its frame coincides with the platform frame.
    platform : RigidBody
        Platform inertia in the platform frame (the terminal frames).
    gravity : (3,) [m/s^2], base frame.
    closure_rows : tuple of int
        Twist components (0-2: v_x, v_y, v_z; 3-5: w_x, w_y, w_z, base frame) equated
        at the loop closures and kept for the platform.
    motor_inertia, viscous, coulomb : dict {joint name: value}
        Eq. (26): rotor/transmission inertia [kg or kg m^2], viscous [N s/m or N m s]
        and Coulomb [N or N m] friction of the joint (default 0).
    home : dict {joint name: value}
        An assembled configuration of the rigid robot (every joint variable); the
        closure solver starts from it (continuation along the actuated variables), which
        selects the assembly mode.
    """

    name: str
    joints: tuple
    bodies: dict
    terminals: tuple
    platform: RigidBody
    gravity: tuple = (0.0, 0.0, 9.81)
    closure_rows: tuple = (0, 1, 2, 3, 4, 5)
    motor_inertia: dict = field(default_factory=dict)
    viscous: dict = field(default_factory=dict)
    coulomb: dict = field(default_factory=dict)
    home: dict = field(default_factory=dict)

    def __post_init__(self):
        for j, jt in enumerate(self.joints, start=1):
            if not 0 <= jt.antecedent < j:
                raise InputError(f"joints[{j}].antecedent", jt.antecedent, f"0 .. {j - 1}")
        for j in self.bodies:
            if not 1 <= j <= len(self.joints):
                raise InputError("bodies", j, f"joint indices 1 .. {len(self.joints)}")
        names = [jt.name for jt in self.joints if jt.kind != "fixed"]
        if len(set(names)) != len(names):
            raise InputError("joints", names, "distinct variable names")
        for d in (self.motor_inertia, self.viscous, self.coulomb):
            for k, v in d.items():
                if k not in names:
                    raise InputError("joint name", k, "one of " + ", ".join(names))
                non_negative(k, v)
        rows = tuple(self.closure_rows)
        if not rows or any(r not in range(6) for r in rows) or len(set(rows)) != len(rows):
            raise InputError("closure_rows", rows, "distinct indices in 0 .. 5")
        n_passive = sum(1 for jt in self.joints if jt.kind != "fixed" and not jt.actuated)
        if n_passive != (len(self.terminals) - 1) * len(rows):
            raise InputError("terminals", self.terminals,
                             f"an isostatic robot: (legs - 1) x {len(rows)} closure "
                             f"equations for {n_passive} passive joints")

    def chain(self, j: int) -> list[int]:
        """Joint indices from the base to joint j."""
        out = []
        while j:
            out.append(j)
            j = self.joints[j - 1].antecedent
        return out[::-1]

    def with_elements(self, n: int) -> "TreeRobot":
        """Same robot with n elements per flexible beam."""
        positive_int("elements", n)
        bodies = {j: (replace(b, elements=n) if isinstance(b, FlexibleBeam) else b)
                  for j, b in self.bodies.items()}
        return replace(self, bodies=bodies)

    def with_geometric_stiffening(self, on: bool) -> "TreeRobot":
        """Same robot with the beams' geometric stiffening switched on or off."""
        bodies = {j: (replace(b, geometric_stiffening=bool(on))
                      if isinstance(b, FlexibleBeam) else b) for j, b in self.bodies.items()}
        return replace(self, bodies=bodies)

    def with_stiffness_scale(self, factor: float) -> "TreeRobot":
        """Same robot with every beam's Young's and shear moduli times ``factor``."""
        f = positive("factor", factor)
        bodies = {}
        for j, b in self.bodies.items():
            if isinstance(b, FlexibleBeam):
                m = b.material
                b = replace(b, material=Material(m.E * f, m.G * f, m.rho))
            bodies[j] = b
        return replace(self, bodies=bodies)


ALUMINIUM = Material(E=70e9, G=26e9, rho=2800.0)
"""Aluminium of Briot & Khalil 2013, section V: E = 70 GPa, rho = 2800 kg/m^3 (G = 26 GPa
is not used by planar beams)."""


def prrrp_briot2013(elements: int = 1) -> TreeRobot:
    """The flexible five-bar PRRRP of Briot & Khalil 2013, section V and Table I.

    Prismatic actuators q1 and q4 along z0, d = 0.6 m apart along x0; beams A1P and A2P of
    length l = 0.4 m, full 2 mm square section, aluminium; 1 kg per actuator carriage and
    1 kg at P (body 3, the platform, origin P); gravity along +z0; passive revolute joints
    q2 (A1), q3 (P) and q5 (A2), axes along -y0 (alpha = pi/2).

    Decisions (the paper's Table I gives the joints only):

    * the loop: leg 1 is q1, q2, beam 1 and q3 to the platform; leg 2 is q4, q5, beam 2
      and a fixed frame 6 at the tip of beam 2 (d = l) that coincides with the platform
      frame. The platform is a point mass (no rotational inertia), so welding it to beam 2
      and pinning it to beam 1 is a pin joint between the beams at P;
    * closure rows v_x, v_z, w_y (the plane x0-z0);
    * gravity g = +9.81 m/s^2 along z0 ("directed along z0").
    """
    l, d = 0.4, 0.6
    sec = Section.rectangle(2e-3, 2e-3)
    beam = FlexibleBeam(l, sec, ALUMINIUM, elements)
    half_pi = float(np.pi / 2)
    joints = (
        MDHJoint("q1", 0, "prismatic", True),
        MDHJoint("q2", 1, "revolute", alpha=half_pi),
        MDHJoint("q3", 2, "revolute", d=l),
        MDHJoint("q4", 0, "prismatic", True, d=d),
        MDHJoint("q5", 4, "revolute", alpha=half_pi),
        MDHJoint("tip2", 5, "fixed", d=l),
    )
    carriage = RigidBody(1.0)
    # home: q1 = q4 = 0, P = (d/2, +sqrt(l^2 - d^2/4)) on the gravity side (+z0); in the
    # x0-z0 plane the beam axes are (cos q, sin q), so q2 = atan2(zP, xP), q5 likewise
    # from A2, and q3 = q5 - q2 aligns frame 3 with the tip frame of beam 2
    zp = math.sqrt(l * l - d * d / 4)
    q2, q5 = math.atan2(zp, d / 2), math.atan2(zp, -d / 2)
    home = {"q1": 0.0, "q2": q2, "q3": q5 - q2, "q4": 0.0, "q5": q5}
    return TreeRobot("prrrp-briot2013", joints, {1: carriage, 2: beam, 4: carriage, 5: beam},
                     terminals=(3, 6), platform=RigidBody(1.0), gravity=(0.0, 0.0, 9.81),
                     closure_rows=(0, 2, 4), home=home)
