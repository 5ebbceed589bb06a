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

from .._validate import choice, non_negative, positive, positive_int, real_array, scalar
from ..exceptions import InputError
from .materials import Material, Section

__all__ = ["MDHJoint", "RigidBody", "FlexibleBeam", "TreeRobot", "JOINT_KINDS", "PLANES", "TWIST_NAMES", "is_plane",
           "prrrp_briot2013", "prr3_rosyid2020", "slider_crank_simeon"]

JOINT_KINDS = ("revolute", "prismatic", "fixed")

#: Closure rows (indices 0-5: vx, vy, vz, wx, wy, wz) of the planar robots: the plane's
#: in-plane base axes (e1, e2) and its normal (e1 x e2, up to sign the third axis).
PLANES = {(0, 1, 5): (0, 1, 2), (0, 2, 4): (0, 2, 1), (1, 2, 3): (1, 2, 0)}

TWIST_NAMES = ("vx", "vy", "vz", "wx", "wy", "wz")
"""The closure rows' names in a description file (indices 0-5)."""


def is_plane(rows) -> bool:
    """Whether closure rows (indices or names of :data:`TWIST_NAMES`) are a plane's."""
    idx = [TWIST_NAMES.index(r) if isinstance(r, str) and r in TWIST_NAMES else r
           for r in rows]
    return len(idx) == 3 and tuple(sorted(idx)) in PLANES


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

    def placement(self) -> np.ndarray:
        """The constant part Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d) of the
        joint's transform (4, 4); the variable part Rot(z, theta) Trans(z, r) follows
        it (module docstring)."""
        cg, sg = math.cos(self.gamma), math.sin(self.gamma)
        ca, sa = math.cos(self.alpha), math.sin(self.alpha)
        T = np.eye(4)
        T[:3, :3] = np.array([[cg, -sg, 0.0], [sg, cg, 0.0], [0.0, 0.0, 1.0]]) @ \
            np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
        T[:3, 3] = [self.d * cg, self.d * sg, self.b]
        return T


@dataclass(frozen=True)
class RigidBody:
    """Rigid body: mass [kg], first moment ms = m * c [kg m] (c: centre of mass in the
    body frame) and inertia about the frame origin, in body axes [kg m^2] (3, 3)."""

    mass: float
    ms: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    def __post_init__(self):
        non_negative("mass", self.mass)
        ms = real_array(self.ms)           # complex under a complex step
        I = real_array(self.inertia)
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
        Axial strain u' + (v'^2 + w'^2) / 2 (von Karman; its mean over each element, which
        avoids membrane locking) in the elastic energy (default), so that
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
        Chen 2019, :class:`~elastodyn.formulations.amm.generator.ModeShapes`), vanishing at
        both ends: the beam frame is its chord frame; coordinates f_1..f_modes [m].
        No axial coordinate, so ``geometric_stiffening`` must be False.
    modes : int
        Number of assumed modes (shapes other than "fe"), >= 1.
    mass_properties : (mass, centre_of_mass, inertia) or None
        A beam whose mass [kg], centre of mass [m from the frame origin, along x] and
        rotary inertia about the centre of mass [kg m^2, about z] are given instead of
        following from rho A (a link with fittings: Rosyid & El-Khasawneh 2020 section
        8.1). The floating-frame formulation spreads them as a quadratic mass per length
        (:func:`elastodyn.fem.ffrf.fitted_mass_per_length`); None (default): uniform
        rho A.
    """

    length: float
    section: Section
    material: Material
    elements: int = 1
    geometric_stiffening: bool = True
    spatial: bool = False
    shapes: str = "fe"
    modes: int = 2
    mass_properties: tuple | None = None

    def __post_init__(self):
        positive("length", self.length)
        positive_int("elements", self.elements)
        if not isinstance(self.spatial, bool):
            raise InputError("spatial", self.spatial, "True or False")
        if self.shapes not in ("fe", "sine", "clamped-free"):
            raise InputError("shapes", self.shapes, "fe, sine or clamped-free")
        if self.mass_properties is not None:
            mp = tuple(scalar(v) for v in self.mass_properties)  # complex-step safe
            mr = tuple(float(np.real(v)) for v in mp)              # checked: real parts
            if len(mr) != 3 or mr[0] <= 0 or not 0 < mr[1] < np.real(self.length) or mr[2] < 0:
                raise InputError("mass_properties", self.mass_properties,
                                 f"(mass > 0, centre of mass in (0, {self.length}), "
                                 "inertia >= 0)")
            object.__setattr__(self, "mass_properties", mp)
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
        if self.mass_properties is not None:
            return self.mass_properties[0]
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
    end_effector : (point, toward) joint names, or ()
        The end-effector of a planar robot in the floating-frame formulation: the origin
        of joint frame ``point``, its orientation the direction from there to the origin
        of frame ``toward`` (() : the platform frame and its x axis).
    formulation : str or None
        The formulation used when none is asked for (None: the first that takes the
        robot, :mod:`elastodyn.formulations.registry`).
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
    end_effector: tuple = ()
    formulation: str | None = None

    def __post_init__(self):
        ee = tuple(self.end_effector)
        object.__setattr__(self, "end_effector", ee)
        if ee and (len(ee) != 2 or any(n not in [jt.name for jt in self.joints] for n in ee)):
            raise InputError("end_effector", list(ee), "two joint names (point, toward)")
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

    def plane(self):
        """(e1, e2, n) (3,) each: the base axes of the plane of a planar robot (closure
        rows of a plane, :data:`PLANES`) and its normal e1 x e2; None otherwise."""
        rows = tuple(sorted(self.closure_rows))
        if rows not in PLANES:
            return None
        i1, i2, _ = PLANES[rows]
        e1, e2 = np.eye(3)[i1], np.eye(3)[i2]
        return e1, e2, np.cross(e1, e2)

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

    def canonical_json(self) -> str:
        """The whole description as canonical JSON (sorted keys, no spaces, every float
        written exactly by ``float.hex``): equal for equal robots, different as soon as
        one entry differs; the key of the compiled-model cache
        (:mod:`~elastodyn.formulations.nepvp.driver`)."""
        import json
        return json.dumps(_canonical(self), sort_keys=True, separators=(",", ":"))

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


def _canonical(obj):
    """JSON-ready form of a description value (:meth:`TreeRobot.canonical_json`)."""
    import dataclasses
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__class__": type(obj).__name__,
                **{f.name: _canonical(getattr(obj, f.name))
                   for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        return {"__dict__": sorted([_canonical(k), _canonical(v)] for k, v in obj.items())}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)) or obj is None or isinstance(obj, str):
        return bool(obj) if isinstance(obj, np.bool_) else obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj).hex()
    raise TypeError(f"no canonical form for {type(obj).__name__}")


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


def prr3_rosyid2020(elements: int = 1) -> TreeRobot:
    """The nonsymmetric 3-PRR with fully flexible links of Rosyid & El-Khasawneh 2020,
    section 8.1, as a planar tree robot (plane x0-y0, gravity -y0).

    Leg i: slider s_i (prismatic along x0, actuated, q = the slider's x [m]; a 7 kg
    carriage), revolute a_i at the slider (the leg's angle from x0) carrying the leg (a
    beam from the slider: 486, 500, 507 mm); leg 2 ends at D, where the revolute b2 carries
    the platform (a beam D -> E of 315 mm); legs 1 and 3 end at E (the two upper joints
    coincide, x_p2 = x_p3 = x_p), revolutes b1 and b3 there; the fixed frame e2 at the
    platform's tip E is leg 2's terminal. The tree's platform is a massless frame at E
    (the paper's platform is the flexible beam b2). End-effector: D (b2's origin), its
    orientation the direction D -> E.

    Every link: E = 70 GPa, section 150 x 50 mm (h = 50 mm in the plane: ``width`` 0.05 m
    along the beam's y axis, ``height`` 0.15 m along z), no friction; the masses, centres
    of mass (from the slider or from D) and inertias about them as given, spread by the
    floating-frame formulation as quadratic densities (``FlexibleBeam.mass_properties``;
    the paper's inertias are m L^2 / 12 but its centres of mass are off mid-length).
    rho = 2800 kg/m^3 (Briot's aluminium) is not used by these links.

    Start (our decision; the paper gives none): D = (0, 0.40) m, theta = 0, at rest and
    undeformed; leg 1 (slider A) ends at E with A left of E, leg 2 (slider B) ends at D
    with B right of D (legs 1 and 2 cross), leg 3 (slider C) ends at E with C right of E.
    ``elements`` is kept for the preset signature (the formulations take their
    discretization as a model option).
    """
    legs = (0.486, 0.500, 0.507)
    com = (0.199, 0.2448685, 0.2389118)
    mass = (8.5, 9.8470, 10.8420)
    inertia = (0.1673, 0.2051, 0.2322)
    xp, xpg, mp, ip = 0.315, 0.1659629, 15.2425, 0.1260
    sec = Section.rectangle(0.05, 0.15)
    D, E = (0.0, 0.40), (xp, 0.40)
    tips = (E, D, E)
    side = (-1.0, 1.0, 1.0)      # slider left (-1) or right (+1) of its leg's tip
    h = math.pi / 2
    joints, bodies, home = [], {}, {}
    for i in range(3):
        n = i + 1
        tx, ty = tips[i]
        ax = tx + side[i] * math.sqrt(legs[i] ** 2 - ty ** 2)
        psi = math.atan2(ty, tx - ax)
        joints.append(MDHJoint(f"s{n}", 0, "prismatic", True, gamma=h, alpha=h))
        bodies[len(joints)] = RigidBody(7.0)
        joints.append(MDHJoint(f"a{n}", len(joints), "revolute", alpha=-h, theta=-h))
        bodies[len(joints)] = FlexibleBeam(legs[i], sec, ALUMINIUM, elements,
                                           mass_properties=(mass[i], com[i], inertia[i]))
        leg = len(joints)
        joints.append(MDHJoint(f"b{n}", leg, "revolute", d=legs[i]))
        home.update({f"s{n}": ax, f"a{n}": psi, f"b{n}": -psi})
        if n == 2:
            bodies[len(joints)] = FlexibleBeam(xp, sec, ALUMINIUM, elements,
                                               mass_properties=(mp, xpg, ip))
            joints.append(MDHJoint("e2", len(joints), "fixed", d=xp))
    names = [j.name for j in joints]
    terminals = tuple(names.index(t) + 1 for t in ("b1", "e2", "b3"))
    return TreeRobot("3prr-rosyid2020", tuple(joints), bodies, terminals=terminals,
                     platform=RigidBody(0.0), gravity=(0.0, -9.81, 0.0),
                     closure_rows=(0, 1, 5), home=home, end_effector=("b2", "e2"),
                     formulation="ffrf")


def slider_crank_simeon() -> TreeRobot:
    """Simeon's elastic slider crank (the IVP test set's "crank" problem; B. Simeon,
    Math. Modelling of Systems 2 (1996) 1-18), in the plane x0-y0 without gravity.

    Crank ``c`` (revolute at the ground origin, actuated, driven at 150 rad/s by the
    preset's scenario): rigid, 0.15 m, mass 0.36 kg, rotary inertia J1 = 0.002727 kg m^2
    about the pivot (centre of mass at mid-length). Connecting rod (revolute ``a`` at the
    crank tip): a steel beam (E = 2e11 Pa, rho = 7870 kg/m^3), 0.30 m, 8 x 8 mm
    (0.151104 kg). Slider (prismatic ``s`` along x0, passive, 0.075552 kg) pinned to the
    rod's end (revolute ``b``). The rod's discretization is the model's option; Simeon's
    is ``--shape sine --modes 2`` (two lateral sine modes and a quadratic axial element in
    a chord frame), the preset's scenario default. Home: crank along +x0, slider at
    0.45 m.
    """
    steel = Material(E=2.0e11, G=2.0e11 / 2.6, rho=7870.0)
    h = math.pi / 2
    L1, L2 = 0.15, 0.30
    m1, J1 = 0.36, 0.002727
    crank = RigidBody(m1, (m1 * L1 / 2, 0.0, 0.0),
                      ((0.0, 0.0, 0.0), (0.0, J1, 0.0), (0.0, 0.0, J1)))
    joints = (MDHJoint("c", 0, "revolute", True),
              MDHJoint("a", 1, "revolute", d=L1),
              MDHJoint("b", 2, "revolute", d=L2),
              MDHJoint("s", 0, "prismatic", False, gamma=h, alpha=h),
              MDHJoint("t", 4, "fixed", alpha=-h, theta=-h))
    bodies = {1: crank, 2: FlexibleBeam(L2, Section.rectangle(0.008, 0.008), steel, 1),
              4: RigidBody(0.075552)}
    return TreeRobot("slider-crank-simeon", joints, bodies, terminals=(3, 5),
                     platform=RigidBody(0.0), gravity=(0.0, 0.0, 0.0),
                     closure_rows=(0, 1, 5), home={"c": 0.0, "a": 0.0, "b": 0.0,
                                                   "s": L1 + L2})
