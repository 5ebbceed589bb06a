"""A flexible Delta (Kuo 2016) as a tree robot for NE-PVP (Briot & Khalil 2013).

:func:`delta_tree` writes a :class:`~.flexible_delta.FlexibleDelta` as the virtual tree
plus platform of :class:`~.tree.TreeRobot`, so that the recursive Newton-Euler / virtual
powers model (``formulations/nepvp.py``) describes the same structure as Kuo's
kineto-elasto-dynamics (``formulations/ked/engine.py``): linearized about the same pose
without preload, the two models have the same natural frequencies (equal at every mesh
to eigen-solver round-off: the same cubic spatial elements, the same joints, the same
platform; tests/description/test_delta_tree.py).

Leg i (theta_i its leg angle, e_i = (cos theta_i, sin theta_i, 0) its radial direction,
y_i = ez x e_i its motor axis; world frame Z down) is the chain of Kuo's corrected
eq. (3) (../shared/papers/kuo2016-errata.md)

    R_z(th) T_x(r_A) R_y(p1) T_x(L1) R_y(p2) R_z(p3) T_x(L2) R_z(-p3) R_y(-(p1+p2))
    T_x(-r_B) R_z(-th)

written as seven modified Denavit-Hartenberg rows (Khalil & Kleinfinger;
:class:`~.tree.MDHJoint`: Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d)
Rot(z, theta + q) Trans(z, r)):

=================  ========  =====  ======================  ===============================
joint              parent    type   gamma, alpha, d, theta  what
=================  ========  =====  ======================  ===============================
``q<i>``           base      R, a   th, -s pi/2, r_A, 0     motor at A_i about s y_i: the
                                                            robot's actuated angle q_i
``upper<i>``       q<i>      fixed  0, s pi/2, 0, 0         frame x along A_iB_i, y = y_i:
                                                            carries the upper beam
``b<i>_y``         upper<i>  R      0, -pi/2, L1, 0         elbow B_i, about y_i (Kuo's
                                                            phi_2i), at the beam's tip
``b<i>_z``         b<i>_y    R      0, pi/2, 0, 0           elbow, about z_l = x_l x y_i /
                                                            |x_l x y_i| (Kuo's phi_3i):
                                                            carries the lower beam
``d<i>_z``         b<i>_z    R      0, 0, L2, 0             platform joint D_i, about z_l
                                                            (-phi_3i at rest), at the tip
``d<i>_y``         d<i>_z    R      0, -pi/2, 0, 0          D_i about y_i (-(phi_1i +
                                                            phi_2i) at rest)
``platform<i>``    d<i>_y    fixed  0, pi/2, -r_B, -th      the platform frame: origin P,
                                                            world axes (terminal of leg i)
=================  ========  =====  ======================  ===============================

(R: revolute, a: actuated; s = +1 for the ``kuo2016`` convention, -1 for
``asadi2020``: the motor joint's variable is the robot's q_i, a right-handed rotation
about ``geometry.axes[i]`` = s y_i, and its effort the robot's torque, the sign of the
rigid models'.) The beams lie along x of the frame that carries them, clamped at its
origin (Boyer & Khalil's floating frame follows the joint), with the element frames of
KED: the upper link's y axis is the motor axis y_i, the lower link's z axis is z_l
(Kuo's R_z(th) R_y(phi_12) R_z(phi_3) frame), so a rectangular section bends in the
same planes in both models. ``elements`` cubic spatial elements per beam (axial,
torsion with the sections' polar inertia, two bendings; von Karman geometric
stiffening, the NE-PVP default).

Decisions
---------
* **Closure: all six twist components.** KED's platform is a rigid body with six
  elastic variables (Kuo eq. 45, delta_1..6: it rotates when the links bend), and each
  universal joint transmits a couple (about y_i x z_l) besides the force; closing the
  legs on translations only would drop the platform's rotations and those couples. With
  two universal joints per leg the tree has 12 passive joints for (3 - 1) x 6 = 12
  closure equations: isostatic, as :class:`~.tree.TreeRobot` and NE-PVP require (Briot &
  Khalil 2013, eqs. 31-33: "if the robot is isostatic, (31) can be rewritten as (32)";
  the overconstrained case is "not detailed").
* **Joints other than universal are not isostatic** (passive joints per leg
  r_B + r_D, with r = 2 universal, 3 spherical, 0 clamped, against the 4 that the six
  closure equations of two legs per leg need): each spherical joint leaves one passive
  variable per leg undetermined (with the actuators locked the platform keeps three
  mechanism freedoms, and with two ball joints each lower link also spins freely: the
  zero-frequency modes KED reports); a clamped joint gives more closure equations than
  passive joints (Kuo's own elastic chain of eq. (47) clamps D_i: hyperstatic by two
  per leg). NE-PVP has coordinates for neither: its passive joints follow from the
  closure and all its elastic coordinates are independent. The closest isostatic model
  built from Kuo's joint models is the universal joint at both ends (his section 2): it
  locks the third rotation of a spherical joint, releases two rotations of a clamped
  one. That is another structure, so :func:`delta_tree` refuses these joints unless
  asked (``closest_isostatic=True``). What it changes (KED, 4 cubic elements per link,
  at (0.1, 0, 0.5) m, no preload): universal/universal 3.270, 3.585, 3.968, 8.486 Hz;
  universal/clamped (Kuo eq. 47) 3.727, 3.931, 4.244, 9.868 Hz (7-16 % higher);
  spherical/universal 0, 0, 0 (mechanism), 3.351, 4.485, 5.182 Hz (another set of
  modes); spherical/spherical three more zeros (the spins).
* **Rejected: the translating-platform closure** (legs shifted by -r_B e_i so that
  their tips meet at P, rows v_x, v_y, v_z, two passive joints per leg). It is isostatic
  for a ball joint at D_i, but only because the rigid Delta's ideal parallelograms hold
  the platform's orientation: the platform's elastic rotations and the legs' couples,
  part of KED's structure, are lost.
* The platform and its payload are one rigid body
  (:attr:`~.flexible_delta.FlexibleDelta.carried_body`) in the platform frame (world
  axes at P): mass m, first moment m c, inertia about P. Gravity is the robot's (world
  frame = base frame). Motor inertia and the viscous and Coulomb motor friction go to
  Briot's eq. (26) terms of the motor joints; NE-PVP's Coulomb term takes the exact
  sign where :class:`~.friction.Friction` smooths it below ``smoothing_velocity``
  (1e-3 rad/s), and it has no Stribeck term (refused).
* The rigid limit: with the elastic coordinates at rest and zero, the model is the
  rigid Delta of the distributed links; the rigid models' lumping (upper link a uniform
  rod, lower link m/6, 2m/3, m/6: :meth:`~.delta.DeltaMasses.uniform_rods`) is exact
  for line masses, and differs only by the sections' polar inertia rho I_p L of the
  lower links (spinning at the component of their angular velocity along their axis;
  rho I_p L = 4.9e-7 kg m^2 for Kuo's links: 1.8e-7 N m of torques of 2.7 N m on his
  circle). The rigid models also take the platform and payload as a point mass at P
  (:func:`~.convert.rigid_delta`), where this model keeps their centre of mass and
  inertia.
* ``home``: the assembled configuration the closure solver starts from (elbows out,
  the working mode of both papers), by default on the base's axis at mid reach.
"""
from __future__ import annotations

import math

import numpy as np

from .._validate import positive_int
from ..exceptions import InputError
from .flexible_delta import FlexibleDelta
from .tree import FlexibleBeam, MDHJoint, RigidBody, TreeRobot

__all__ = ["delta_tree", "default_home", "joint_values"]

_HALF_PI = 0.5 * math.pi
_EZ = np.array([0.0, 0.0, 1.0])


def default_home(robot: FlexibleDelta) -> np.ndarray:
    """Platform position X [m], shape (3,), on the base's axis at mid reach.

    On the axis X = (0, 0, Z) every leg reaches X iff sqrt(r^2 + Z^2) lies in
    [|L2 - L1|, L1 + L2] (r = r_A - r_B; the distance from A_i - r_B e_i to X against
    the lengths of the two links); the middle of that range is max(L1, L2), hence
    Z = sqrt(max(L1, L2)^2 - r^2) (0 when r exceeds it). Kuo 2016: Z = 0.598 m.
    """
    g = robot.geometry
    big = max(g.upper_length, g.lower_length)
    return np.array([0.0, 0.0, math.sqrt(max(big * big - g.offset ** 2, 0.0))])


def joint_values(robot: FlexibleDelta, X) -> dict:
    """The joint variables of :func:`delta_tree`'s legs with the platform at X, elbows
    out.

    Parameters
    ----------
    robot : FlexibleDelta
    X : array_like, shape (3,)
        Platform centre P [m], world frame (Z down).

    Returns
    -------
    dict {joint name: value [rad]}: ``q<i>`` the actuated angle (the robot's
    convention), ``b<i>_y`` = phi_2i, ``b<i>_z`` = phi_3i (Kuo's passive angles),
    ``d<i>_z`` = -phi_3i, ``d<i>_y`` = -(phi_1i + phi_2i), phi_1i = s q_i.

    Raises
    ------
    InputError
        A leg cannot reach X.

    Notes
    -----
    The inverse kinematics of :mod:`elastodyn.kinematics.delta` (the description layer
    does not import it; tests compare the two): with P' = X - r e_i, rho = P'.e_i,
    zeta = P'.ez, a cos q + b sin q = k for a = rho, b = -s zeta,
    k = (|P'|^2 + L1^2 - L2^2) / (2 L1); q = atan2(b, a) +/- acos(k / hypot(a, b)), the
    elbow-out one with cos q zeta + s sin q rho the larger. The lower link's direction
    in (e_i, y_i, ez) is (cos phi_12 cos phi_3, sin phi_3, -sin phi_12 cos phi_3).
    """
    g = robot.geometry
    X = np.asarray(X, dtype=float).reshape(-1)
    if X.shape != (3,) or not np.all(np.isfinite(X)):
        raise InputError("home", X.tolist(), "a platform position X Y Z [m]")
    s = g.sign
    L1, L2 = g.upper_length, g.lower_length
    out = {}
    for i, e in enumerate(g.radial, start=1):
        P = X - g.offset * e
        rho, zeta = float(P @ e), float(P[2])
        k = (float(P @ P) + L1 * L1 - L2 * L2) / (2.0 * L1)
        R = math.hypot(rho, s * zeta)
        if not abs(k) <= R * (1.0 + 1e-12):
            raise InputError("home", X.tolist(), f"a platform position every leg reaches "
                             f"(leg {i} does not)")
        psi = math.atan2(-s * zeta, rho)
        dl = math.acos(max(-1.0, min(1.0, k / R)))
        sols = (psi + dl, psi - dl)
        side = [math.cos(q) * zeta + s * math.sin(q) * rho for q in sols]
        q = sols[0] if side[0] >= side[1] else sols[1]
        q = math.atan2(math.sin(q), math.cos(q))
        B = g.base_radius * e + L1 * (math.cos(q) * e - s * math.sin(q) * _EZ)
        d = (X + g.platform_radius * e - B) / L2
        y = np.array([-e[1], e[0], 0.0])
        phi3 = math.asin(max(-1.0, min(1.0, float(d @ y))))
        phi12 = math.atan2(-float(d[2]), float(d @ e))
        phi1 = s * q
        phi2 = math.atan2(math.sin(phi12 - phi1), math.cos(phi12 - phi1))
        out.update({f"q{i}": q, f"b{i}_y": phi2, f"b{i}_z": phi3, f"d{i}_z": -phi3,
                    f"d{i}_y": -(phi1 + phi2)})
    return out


def _check_joints(robot: FlexibleDelta, closest_isostatic: bool) -> None:
    for key, value in (("joints.b", robot.joint_b), ("joints.d", robot.joint_d)):
        if value != "universal" and not closest_isostatic:
            raise InputError(key, value, "universal for NE-PVP (the only isostatic joints "
                             "of a Delta tree: a spherical joint leaves a mechanism, a "
                             "clamped one overconstrains the loops; closest_isostatic="
                             "True models it as universal)")


def _friction(robot: FlexibleDelta) -> tuple[dict, dict]:
    f = robot.friction
    if f.static is not None:
        raise InputError("motors.friction.static", f.static,
                         "none for NE-PVP (Briot & Khalil eq. (26): viscous and Coulomb "
                         "friction only)")
    names = ("q1", "q2", "q3")
    return ({n: f.viscous for n in names} if f.viscous else {},
            {n: f.coulomb for n in names} if f.coulomb else {})


def delta_tree(robot: FlexibleDelta, elements: int = 1, *, home=None,
               closest_isostatic: bool = False) -> TreeRobot:
    """A flexible Delta as a tree robot for NE-PVP (module docstring).

    Parameters
    ----------
    robot : FlexibleDelta
        Kuo's flexible Delta or any other (sections, materials, platform, payload,
        motors, gravity, convention).
    elements : int
        Cubic spatial finite elements per link, >= 1.
    home : array_like, shape (3,), optional
        Platform position [m] (world frame, Z down) of the assembled configuration the
        closure solver starts from (:attr:`TreeRobot.home`, elbows out); default
        :func:`default_home`. Any reachable pose gives the same model: only the
        continuation start changes.
    closest_isostatic : bool
        False (default): spherical or clamped joints (``joint_b``, ``joint_d``) are
        refused; True: modelled as universal joints. NE-PVP needs an isostatic robot
        (Briot & Khalil 2013, eqs. 31-33): a spherical joint leaves the platform a
        mechanism with the actuators locked, a clamped one (Kuo's eq. (47) at D_i)
        overconstrains the loops, and universal joints at both ends (Kuo section 2) are
        the only isostatic combination, the closest one. It is another structure (with
        D_i clamped the lowest frequencies are 7-16 % above the universal joints'; with a
        ball joint the modes are others: module docstring).

    Returns
    -------
    TreeRobot
        Named as the robot; joints ``q1..q3`` (actuated), ``b<i>_y``, ``b<i>_z``,
        ``d<i>_z``, ``d<i>_y`` (passive) and the fixed frames ``upper<i>`` (carrying the
        upper beams) and ``platform<i>`` (the terminals); the lower beams on ``b<i>_z``;
        closure rows all six; the platform with its payload.

    Raises
    ------
    InputError
        Not a FlexibleDelta; elements < 1; a joint other than universal without
        ``closest_isostatic``; Stribeck friction; an unreachable ``home``.
    """
    if not isinstance(robot, FlexibleDelta):
        raise InputError("robot", type(robot).__name__, "a FlexibleDelta")
    n = positive_int("elements", elements)
    if not isinstance(closest_isostatic, bool):
        raise InputError("closest_isostatic", closest_isostatic, "True or False")
    _check_joints(robot, closest_isostatic)
    viscous, coulomb = _friction(robot)
    g = robot.geometry
    s = g.sign
    values = joint_values(robot, default_home(robot) if home is None else home)
    (su, sl), (mu, ml) = robot.link_sections, robot.link_materials
    upper = FlexibleBeam(g.upper_length, su, mu, n, spatial=True)
    lower = FlexibleBeam(g.lower_length, sl, ml, n, spatial=True)
    joints, bodies, terminals = [], {}, []

    def add(joint: MDHJoint) -> int:
        joints.append(joint)
        return len(joints)

    for i, th in enumerate(g.leg_angles, start=1):
        ja = add(MDHJoint(f"q{i}", 0, "revolute", True, gamma=th, alpha=-s * _HALF_PI,
                          d=g.base_radius))
        ju = add(MDHJoint(f"upper{i}", ja, "fixed", alpha=s * _HALF_PI))
        bodies[ju] = upper
        jb = add(MDHJoint(f"b{i}_y", ju, "revolute", alpha=-_HALF_PI, d=g.upper_length))
        jl = add(MDHJoint(f"b{i}_z", jb, "revolute", alpha=_HALF_PI))
        bodies[jl] = lower
        jd = add(MDHJoint(f"d{i}_z", jl, "revolute", d=g.lower_length))
        jy = add(MDHJoint(f"d{i}_y", jd, "revolute", alpha=-_HALF_PI))
        terminals.append(add(MDHJoint(f"platform{i}", jy, "fixed", alpha=_HALF_PI,
                                      d=-g.platform_radius, theta=-th)))
    body = robot.carried_body
    platform = RigidBody(body.mass, tuple(float(x) for x in body.mass * body.com_offset),
                         tuple(tuple(float(x) for x in row) for row in body.inertia_about_p))
    motors = ({f"q{i}": robot.motor_inertia for i in (1, 2, 3)}
              if robot.motor_inertia else {})
    return TreeRobot(robot.name, tuple(joints), bodies, tuple(terminals), platform,
                     gravity=tuple(robot.gravity), closure_rows=(0, 1, 2, 3, 4, 5),
                     motor_inertia=motors, viscous=viscous, coulomb=coulomb, home=values)
