"""A planar tree or closed-loop robot (:class:`~elastodyn.description.tree.TreeRobot`,
the description NE-PVP takes) as a floating-frame multibody system
(:mod:`.multibody`).

The conversion, at the robot's home configuration (every joint at ``robot.home``,
undeformed):

* **plane**: the closure rows name it (``vx, vy, wz``: the plane x0-y0 with normal z0;
  ``vx, vz, wy``: x0-z0 with normal y0); in-plane axes e1, e2 are the two velocity rows'
  base axes. Every revolute axis must be normal to the plane, every prismatic axis and
  every beam axis (x of its frame) and bending direction (y) in it; otherwise the robot is
  refused as not planar.
* **bodies**: each frame with a joint variable becomes a body whose frame is the joint
  frame (its in-plane x axis, or the first of y, z in the plane for a prismatic frame);
  it carries the frame's rigid body (mass, first moment and inertia about the plane's
  normal, through the frame origin) or flexible beam (along x; its shape is the model's
  option: Rayleigh-Ritz or finite elements, and the boundary condition of the body frame),
  or nothing (a massless frame). The platform is one more rigid body at the terminal
  frames.
* **markers and joints**: a frame without variable (``fixed``) is a marker on its parent's
  body (on a beam: at the axis point s = d, following its displacement and slope). Each
  revolute or prismatic joint is a joint between the marker of its frame on the parent
  body and its own body; each terminal frame is welded (``rigid``) to the platform, the
  planar loop closure of Briot & Khalil's closure rows.
* **joint coordinates**: the tree's joint variables q_j (revolute angles about the
  joint's z axis, prismatic travels along it), with the home values.

Decision: the beams' elastic coordinates follow the FFRF body frame of Rosyid &
El-Khasawneh 2020 (fixed-free: clamped at the joint, as the NE-PVP beams), not NE-PVP's
element frames; both describe the same linear elastic beam, and the two formulations
agree on the natural frequencies to their discretization error.
"""
from __future__ import annotations

import math

import numpy as np

from ..._validate import arctan2, real_array, scalar
from ...description.tree import PLANES, FlexibleBeam, RigidBody, TreeRobot
from ...exceptions import InputError
from ...fem.ffrf import BeamShape, SineShape, fitted_mass_per_length
from .multibody import Joint, Marker, MultibodySystem, flexible_body, rigid_body

__all__ = ["tree_system", "TreeSystem", "PLANES"]

_TOL = 1e-9


def _mdh(jt, q: float) -> np.ndarray:
    """a(j)T_j = Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d) Rot(z, theta) Trans(z, r)
    (Khalil & Kleinfinger), the variable q added to theta (revolute) or r (prismatic)."""
    def rz(a):
        c, s = math.cos(a), math.sin(a)
        T = np.eye(4)
        T[:2, :2] = [[c, -s], [s, c]]
        return T

    def rx(a):
        c, s = math.cos(a), math.sin(a)
        T = np.eye(4)
        T[1:3, 1:3] = [[c, -s], [s, c]]
        return T

    def tr(v):
        v = real_array(v)            # complex when an offset carries a complex step
        T = np.eye(4, dtype=np.result_type(v, float))
        T[:3, 3] = v
        return T

    th = jt.theta + (q if jt.kind == "revolute" else 0.0)
    r = jt.r + (q if jt.kind == "prismatic" else 0.0)
    return (rz(jt.gamma) @ tr([0, 0, jt.b]) @ rx(jt.alpha) @ tr([jt.d, 0, 0]) @ rz(th)
            @ tr([0, 0, r]))


class TreeSystem:
    """The multibody system of a planar tree robot and the maps between them.

    Attributes
    ----------
    system : MultibodySystem
    q_home : (n,) the consistent home configuration (undeformed)
    actuated : tuple of joint names (the robot's actuated joints, in order)
    scale, home : per actuated joint the sign of its axis against the plane normal and its
        home value: the robot's joint variable is ``home + scale * coordinate``
    body_of : dict joint name -> body index
    markers : dict joint name -> Marker of the joint frame's origin and x direction
    """

    def __init__(self, system, q_home, actuated, scale, home, body_of, plane, platform,
                 markers):
        self.system = system
        self.markers = markers
        self.q_home = q_home
        self.actuated = actuated
        self.scale = np.asarray(scale, dtype=float)
        self.home = np.asarray(home, dtype=float)
        self.body_of = body_of
        self.plane = plane
        self.platform = platform

    def to_joint(self, s) -> np.ndarray:
        """The robot's actuated joint values of the system's actuated coordinates."""
        return self.home + self.scale * np.asarray(s, dtype=float)

    def from_joint(self, q) -> np.ndarray:
        return (np.asarray(q, dtype=float) - self.home) / self.scale


def _rigid_planar(name, body: RigidBody, R: np.ndarray, n, ref):
    """A 3-D rigid body (frame rotation R in base axes, planar reference axis ``ref``) as
    a planar rigid body in the body frame (ref, n x ref): mass, centre of mass, inertia
    about the normal through the centre of mass."""
    m = scalar(body.mass)            # scalar, real_array: complex-step safe
    ms = R @ real_array(body.ms)                                # base axes
    J = R @ real_array(body.inertia) @ R.T                      # about the frame origin
    side = np.cross(n, ref)
    c = np.array([ms @ ref, ms @ side]) / m if m.real > 0 else np.zeros(2)
    Izz = scalar(n @ J @ n)
    Ig = Izz - m * scalar(c @ c)
    if Ig.real < -1e-12 * max(1.0, Izz.real):
        raise InputError(f"bodies.{name}.inertia", Izz,
                         "an inertia about the plane normal at least m |c|^2")
    return rigid_body(name, m, c, Ig if Ig.real > 0 else 0.0)


def tree_system(robot: TreeRobot, *, shape: str = "fem", elements: int = 4,
                boundary: str = "fixed-free", rigid: bool = False,
                modes: int = 2) -> TreeSystem:
    """The FFRF multibody system of a planar tree robot (module docstring).

    Parameters
    ----------
    shape : "rr", "fem" or "sine"
        Rayleigh-Ritz (eq. (46), one polynomial per body), ``elements`` finite
        elements per beam, or Simeon's ``modes`` lateral sine modes and a quadratic
        axial element in a chord frame (:class:`~elastodyn.fem.ffrf.SineShape`; the
        body frame's x axis through both ends, boundary pinned-pinned).
    elements : int, >= 1 (fem only)
    boundary : boundary condition of the beams' body frames (Rosyid section 4).
    rigid : bool
        Every beam a rigid body of the same mass properties (the rigid model).
    """
    if shape not in ("rr", "fem", "sine"):
        raise InputError("shape", shape, "rr, fem or sine")
    rows = tuple(sorted(robot.closure_rows))
    if rows not in PLANES:
        raise InputError("closure", list(rows), "the three rows of a plane (vx, vy, wz; "
                         "vx, vz, wy or vy, vz, wx): the ffrf formulation is planar")
    i1, i2, i_n = PLANES[rows]
    eye = np.eye(3)
    e1, e2, nrm = eye[i1], eye[i2], np.cross(eye[i1], eye[i2])
    nJ = len(robot.joints)
    home = dict(robot.home)
    T = {0: np.eye(4)}
    for j in range(1, nJ + 1):
        jt = robot.joints[j - 1]
        qv = float(home.get(jt.name, 0.0)) if jt.kind != "fixed" else 0.0
        T[j] = T[jt.antecedent] @ _mdh(jt, qv)

    def planar(p):
        return np.array([p @ e1, p @ e2])

    def ref_axis(j, name):
        R = T[j][:3, :3]
        for k in range(3):
            if abs(R[:, k] @ nrm) < _TOL:
                return R[:, k]
        raise InputError(f"joints.{name}", "frame", "a frame with an axis in the plane")

    def angle(v):
        y, x = v @ e2, v @ e1
        if np.iscomplexobj(y) or np.iscomplexobj(x):   # an offset's complex step
            return arctan2(y, x)
        return math.atan2(y, x)

    bodies, names, body_of = [], {}, {}
    owner = {0: (-1, np.zeros(2), 0.0)}   # frame -> (body, point in body, angle in body)
    joints = []
    frame_pose = {0: (np.zeros(2), 0.0)}
    for j in range(1, nJ + 1):
        jt = robot.joints[j - 1]
        name = jt.name
        R = T[j][:3, :3]
        z = R[:, 2]
        o = planar(T[j][:3, 3])
        if jt.kind == "revolute" and abs(abs(z @ nrm) - 1.0) > _TOL:
            raise InputError(f"joints.{name}", "axis", "a revolute axis normal to the plane "
                             "(the ffrf formulation is planar)")
        if jt.kind == "prismatic" and abs(z @ nrm) > _TOL:
            raise InputError(f"joints.{name}", "axis", "a prismatic axis in the plane")
        body = robot.bodies.get(j)
        pb, ppoint, pang = owner[jt.antecedent]
        # this frame's origin and direction on the parent's body
        if pb >= 0:
            po, pa = frame_pose[("body", pb)]
        else:
            po, pa = np.zeros(2), 0.0
        c, s = (np.cos(pa), np.sin(pa)) if np.iscomplexobj(pa) else (math.cos(pa),
                                                                     math.sin(pa))
        Rp = np.array([[c, s], [-s, c]])
        a_point = Rp @ (o - po)
        ax = ref_axis(j, name)
        a_ang = angle(ax) - pa
        if pb >= 0 and bodies[pb].shape is not None:
            # checked on the real parts (a length or an offset may carry a complex step)
            L, s_re = np.real(bodies[pb].length), np.real(a_point[0])
            if abs(a_point[1]) > 1e-9 * max(1.0, L) or not -1e-12 <= s_re <= L * (1 + 1e-12):
                raise InputError(f"joints.{name}", list(a_point),
                                 "a joint carried by a beam on its axis, 0 <= s <= L")
            a_point = np.array([0.0 if s_re < 0.0 else L if s_re > L else a_point[0], 0.0])
        if jt.kind == "fixed" and body is None:
            owner[j] = (pb, a_point, a_ang)
            continue
        # a new body with this frame
        phi = angle(ax)
        k = len(bodies)
        if isinstance(body, FlexibleBeam):
            if body.spatial or body.shapes != "fe":
                raise InputError(f"bodies.{name}.beam", "spatial or assumed modes",
                                 "planar finite-element beams for ffrf")
            if abs(R[:, 0] @ nrm) > _TOL or abs(abs(z @ nrm) - 1.0) > _TOL:
                raise InputError(f"bodies.{name}.beam", "orientation",
                                 "a beam along x of its frame, bending in the plane")
            phi = angle(R[:, 0])
            mp = body.mass_properties
            if rigid:
                if mp is None:
                    m = body.mass
                    b = rigid_body(name, m, (body.length / 2, 0.0), m * body.length ** 2 / 12)
                else:
                    b = rigid_body(name, mp[0], (mp[1], 0.0), mp[2])
            else:
                try:
                    mu = (body.material.rho * body.section.area if mp is None
                          else fitted_mass_per_length(body.length, *mp))
                except InputError as exc:
                    raise InputError(f"bodies.{name}.beam.mass_properties", list(mp),
                                     exc.allowed) from None
                sh = (SineShape(body.length, modes) if shape == "sine" else
                      BeamShape(body.length, 1 if shape == "rr" else elements, boundary))
                b = flexible_body(name, sh, mu, EA=body.material.E * body.section.area,
                                  EI=body.material.E * body.section.iz)
        elif isinstance(body, RigidBody):
            b = _rigid_planar(name, body, R, nrm, ax)
        else:
            b = rigid_body(name, 0.0)
        bodies.append(b)
        frame_pose[("body", k)] = (o, phi)
        body_of[name] = k
        owner[j] = (k, np.zeros(2), angle(ax) - phi)
        if jt.kind == "fixed":
            joints.append(Joint(name, "rigid", Marker(pb, tuple(a_point), a_ang),
                                Marker(k, (0.0, 0.0), angle(ax) - phi), angle0=0.0))
        elif jt.kind == "revolute":
            joints.append(Joint(name, "revolute", Marker(pb, tuple(a_point), a_ang),
                                Marker(k, (0.0, 0.0), angle(ax) - phi)))
        else:
            joints.append(Joint(name, "prismatic", Marker(pb, tuple(a_point), angle(z) - pa),
                                Marker(k, (0.0, 0.0), angle(z) - phi), angle0=0.0))
        names[name] = j
    # platform at the terminal frames, welded to each
    t0 = robot.terminals[0]
    po = planar(T[t0][:3, 3])
    pax = ref_axis(t0, "platform")
    pphi = angle(pax)
    for t in robot.terminals:
        if np.abs(planar(T[t][:3, 3]) - po).max() > 1e-9:
            raise InputError("home", dict(robot.home), "an assembled home configuration "
                             "(the terminal frames do not meet)")
    kp = len(bodies)
    bodies.append(_rigid_planar("platform", robot.platform, T[t0][:3, :3], nrm, pax))
    frame_pose[("body", kp)] = (po, pphi)
    for t in robot.terminals:
        tb, tpoint, tang = owner[t]
        tax = ref_axis(t, robot.joints[t - 1].name)
        joints.append(Joint(f"closure.{robot.joints[t - 1].name}", "rigid",
                            Marker(tb, tuple(tpoint), tang),
                            Marker(kp, (0.0, 0.0), angle(tax) - pphi), angle0=0.0))
    actuated = tuple(jt.name for jt in robot.joints if jt.actuated and jt.kind != "fixed")
    g = np.asarray(robot.gravity, dtype=float)
    system = MultibodySystem(bodies, joints, gravity=(g @ e1, g @ e2), actuated=actuated)
    q = np.zeros(system.n, np.result_type(float, *(p[0] for p in frame_pose.values())))
    for k in range(len(bodies)):
        o, phi = frame_pose[("body", k)]
        sl = system.offsets[k]
        q[sl:sl + 2] = o
        q[sl + 2] = phi
    C, _ = system.constraints(q)
    if np.abs(C).max(initial=0.0) > 1e-9:
        raise InputError("home", dict(robot.home), "an assembled home configuration "
                         f"(closure residual {np.abs(C).max():.3g})")
    scale, hv = [], []
    for a in actuated:
        jt = robot.joints[names[a] - 1]
        if jt.kind == "revolute":
            scale.append(float(np.sign(np.real(T[names[a]][:3, 2] @ nrm))))
        else:
            scale.append(1.0)
        hv.append(float(home.get(a, 0.0)))
    markers = {robot.joints[j - 1].name: Marker(owner[j][0], tuple(owner[j][1]), owner[j][2])
               for j in range(1, nJ + 1)}
    return TreeSystem(system, q, actuated, scale, hv, body_of, (e1, e2, nrm), kp, markers)
