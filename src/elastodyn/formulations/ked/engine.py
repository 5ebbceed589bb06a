"""Kineto-elasto-dynamic (KED) model of a Delta robot with flexible links (Kuo 2016, secs. 3-4).

Method (Kuo's, made consistent; ../shared/papers/kuo2016-errata.md)
-------------------------------------------------------------------
The robot follows its rigid motion (prescribed by the end-effector path through the rigid
inverse kinematics, actuators locked on their rigid angles); small elastic displacements
are superposed. Every link is a chain of spatial moving-frame beam elements (axial,
torsion, two bendings; :func:`elastodyn.fem.elements.ked_element_terms`) whose frame
follows the link's rigid motion. The elastic state is described by **global variables**
delta (Kuo eq. 42: delta_e = S_i delta):

* delta_1..6: the end-effector's displacement (world X, Y, Z) and small rotation (about
  world X, Y, Z) at its centre P (Kuo eq. 45: H_P = I + [delta_4..6]x, translation
  delta_1..3);
* per leg, the nodal variables of the upper link (its tip B_i included: Kuo's
  delta_7..12, here in the upper link's frame), the nodal variables of the lower link
  that no joint determines (interior nodes; for the quintic family also the derivative
  dofs at the ends), and the joint-release angles (Kuo's delta_13, delta_14 at B_i; at
  D_i too unless the joint is clamped).

The nodal variables at the ends of each lower link follow from the linearized kinematic
chain (Kuo eq. 47, linearized; the errata: eqs. 52-53 are the adjoint maps of the frames at
D and B with their labels swapped, and eqs. 58-60 tie the slopes to the wrong rotation
components). Derived here directly as adjoint maps, in the lower link's frame R_l:

* at B_i: d_l = R_l^T R_u d_B,  r_l = R_l^T R_u r_B + sum_k a_k R_l^T n_k,
* at D_i: d_l = R_l^T (d_P + r_P x (D_i - P)),  r_l = R_l^T r_P + sum_k b_k R_l^T m_k,

with (d_B, r_B) the upper-link tip displacement and rotation in the upper link's frame
R_u, (d_P, r_P) = delta_1..6, and n_k, m_k the release axes (universal: the motor axis
y_i and the lower link's z axis; spherical: the lower link's three axes). With the node
dofs (u, v, w, rx, ry, rz) of :mod:`elastodyn.fem.elements` the slopes are v' = rz and
w' = -ry (errata). These S blocks change with the configuration; their time derivatives
follow analytically from the links' angular velocities and accelerations (R_dot =
[w]x R): for A = R_l^T R_b, A_dot = R_l^T [w_b - w_l]x R_b and
A_ddot = R_l^T (-[w_l]x [w_b - w_l]x + [al_b - al_l]x + [w_b - w_l]x [w_b]x) R_b.

The assembled linear time-varying system (Kuo eqs. 43-44, Galerkin projection of the
element equations, equivalent to Lagrange's equations with delta_e = S(t) delta):

    M = sum S^T M_e S + M_P,
    C = sum S^T (2 M_e S_dot + 2 B_e S) + alpha M + beta K_el,
    K = sum S^T (M_e S_ddot + 2 B_e S_dot + (K_e + K_d) S),
    F = sum S^T P_e + F_P,

(Kuo's note after eq. 44: "the terms of the end-effector should be added") with the
platform and its payload as one rigid body (mass m, centre of mass offset c from P,
inertia I_P about P, world axes; :mod:`elastodyn.description.flexible_delta`): on the
platform variables delta_1..6, M_P = [[m I, -m [c]x], [m [c]x, I_P]] and the gravity and
d'Alembert load of its translation F_P = [m a; c x m a], a = g - X_ddot. (The
second-order work of the platform's loads on its small rotation, e.g. the pendulum
stiffness of an offset weight, is neglected, as is that of the joint forces at D_i: the
only geometric stiffness is that of the links' axial forces.) The links of the upper
and of the lower group each have their own section and material. Each link's
element terms are pre-assembled per link in the link's frame (all elements of a link share
its angular velocity; their origins' accelerations differ by w x (w x s) + al x s, which
the link-level integrals over s absorb): the constant link matrices and the coefficient
functions of the gyroscopic, centrifugal, load and axial-force terms are those of
:mod:`elastodyn.fem.moving_frame`, shared with the batched path
(:mod:`elastodyn.formulations.ked.batch`) and the element terms.

Axial loads (eq. 35). The geometric stiffness uses the axial force N(s) along each link,
N(s) = P_end + rho A [(g_x - a_x)(L - s) + 1/2 (w_y^2 + w_z^2)(L^2 - s^2)] (s from the
link's origin, a_x the axial acceleration of the origin), with P_end the axial force at
the link's far end. Kuo leaves P_r undefined (errata); here P_end is the axial joint
force of the rigid motion: the rigid-motion loads (gravity and d'Alembert forces of the
distributed links and the platform) carried quasi-statically by the same structure,
K_el delta_qs = F, with the end force recovered from the link's nodal equilibrium
(K_e q - P_e at the end node). For a pin-jointed lower link this is the link force of
rigid statics/dynamics; with moment-transmitting joints it is the force of the
statically indeterminate frame. Tension stiffens (errata on eq. 38).

Actuators. Locked (Kuo) actuators hold the upper links at A_i on the rigid angle q_i: the
motor's rotor inertia I_m and friction do not enter the elastic system, and the actuator
torques (:meth:`KEDEngine.quasi_static`, :meth:`KEDEngine.actuator_torques`)
are the reactions at A_i plus I_m qdd + friction(qd) of the rigid motion
(:meth:`KEDEngine.motor_torque`).

Units: SI. Rotations in rad.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.linalg as sla

from ..._validate import choice, non_negative, norm, positive_int, real_array
from ...description.flexible_delta import FlexibleDelta
from ...exceptions import InputError, ModelError
from ...fem.elements import ORDERS, BeamElement
from ...fem.modal import ModalResult, modal_analysis
from ...fem.moving_frame import LinkMatrices, link_matrices, skew, stiffness_coefficients
from ...kinematics.delta import DeltaKinematics
from .blocks import LegBlockSolver, dense_leg_blocks
from .deflected import DeflectedReference, DeflectedState

__all__ = ["KEDEngine", "DeltaMotion", "KEDSystem", "LinkMatrices", "link_matrices",
           "rigid_motion", "ACTUATORS", "REFERENCES"]

ACTUATORS = ("locked", "free")
REFERENCES = ("undeformed", "deflected")
_RY = 4  # index of the rotation about y at node 0 (A_i) of an upper link


# --------------------------------------------------------------------------------------
# Rigid motion of every body
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DeltaMotion:
    """Rigid motion of the Delta's bodies at ns samples (world components, SI).

    Attributes
    ----------
    X, Xd, Xdd : (ns, 3)      platform centre position, velocity, acceleration
    q, qd, qdd : (ns, 3)      actuated angles and rates (robot's convention)
    A : (3, 3)                base joints A_i (leg-major)
    B, Bd, Bdd : (ns, 3, 3)   elbows B_i and their velocity and acceleration
    D : (ns, 3, 3)            platform joints D_i
    Ru, Rl : (ns, 3, 3, 3)    frames of the upper and lower links (columns: x, y, z axes)
    wu, au, wl, al : (ns, 3, 3)  angular velocities and accelerations of the links
    y : (3, 3)                motor axes y_i = (-sin th_i, cos th_i, 0)
    """

    X: np.ndarray
    Xd: np.ndarray
    Xdd: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    A: np.ndarray
    B: np.ndarray
    Bd: np.ndarray
    Bdd: np.ndarray
    D: np.ndarray
    Ru: np.ndarray
    Rl: np.ndarray
    wu: np.ndarray
    au: np.ndarray
    wl: np.ndarray
    al: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return len(self.X)


def rigid_motion(kin: DeltaKinematics, X, Xd=None, Xdd=None) -> DeltaMotion:
    """Positions, frames, velocities and accelerations of every link along a rigid motion.

    Frames (Kuo eq. 3, errata): the upper link has x along A_i B_i and y = y_i (the motor
    axis); the lower link has x along B_i D_i, z = x_l x y_i / |x_l x y_i| (Kuo's
    R_z(th) R_y(phi_12) R_z(phi_3) frame) and y = z x x. The lower link's angular
    velocity lies in span(y_i, z_l) (phi_12 dot y_i + phi_3 dot z_l): with
    u_dot = w_l x x_l, w_l = a y_i + b z_l, b = u_dot.y_l, a = -u_dot.z_l / c3,
    c3 = |x_l x y_i| = cos phi_3; differentiating once more gives al_l.

    Parameters
    ----------
    kin : DeltaKinematics
    X, Xd, Xdd : array_like, shape (3,) or (ns, 3)
        Platform centre [m], velocity [m/s], acceleration [m/s^2] (default zero).
    """
    st = kin.state(X, Xd, Xdd)
    g = kin.geometry
    e = g.radial
    y = np.stack([-e[:, 1], e[:, 0], np.zeros(3)], axis=1)
    A = g.base_radius * e
    L1, L2 = g.upper_length, g.lower_length
    qd, qdd = st.qd[..., None], st.qdd[..., None]
    BA = st.B - A
    Bd = st.T * qd
    Bdd = st.T * qdd - BA * qd**2
    xu = BA / L1
    yu = np.broadcast_to(y, xu.shape)
    Ru = np.stack([xu, yu, np.cross(xu, yu)], axis=-1)
    wu = np.cross(BA, Bd) / L1**2
    au = np.cross(BA, Bdd) / L1**2
    xl = st.U / L2
    zc = np.cross(xl, yu)
    c3 = norm(zc, axis=-1, keepdims=True)       # analytic under a complex step
    zl = zc / c3
    yl = np.cross(zl, xl)
    Rl = np.stack([xl, yl, zl], axis=-1)
    ud = (st.Xd[:, None, :] - Bd) / L2
    udd = (st.Xdd[:, None, :] - Bdd) / L2
    b = np.einsum("nij,nij->ni", ud, yl)[..., None]
    a = -np.einsum("nij,nij->ni", ud, zl)[..., None] / c3
    wl = a * yu + b * zl
    zld = np.cross(wl, zl)
    r = udd - np.cross(wl, ud) - b * np.cross(zld, xl)
    ad = -np.einsum("nij,nij->ni", r, zl)[..., None] / c3
    bd = np.einsum("nij,nij->ni", r, yl)[..., None]
    al = ad * yu + bd * zl + b * zld
    return DeltaMotion(st.X, st.Xd, st.Xdd, st.q, st.qd, st.qdd, A, st.B, Bd, Bdd, st.D,
                       Ru, Rl, wu, au, wl, al, y)


def _complex_step_min_norm(A, b, cond: float) -> np.ndarray:
    """The minimum-norm least-squares solution x = A^+ b of a symmetric A (n, n) and its
    complex-step derivative, for A = A0 + i A1, b = b0 + i b1 with A1, b1 of the order of
    a complex step (:mod:`elastodyn.analysis.frequency_sensitivity`): LAPACK's complex
    least squares minimizes the Hermitian norm, which is not analytic, so the imaginary
    part is taken from the derivative of the pseudo-inverse at constant rank (Golub &
    Pereyra 1973, SIAM J. Numer. Anal. 10(2), eq. 4.12, with A symmetric):

        x1 = A0^+ b1 - A0^+ A1 x0 + A0^+ A0^+ A1 P b0 + P A1 A0^+ A0^+ b0,

    x0 = A0^+ b0, P = I - A0 A0^+ (the projector on the null space), to first order in
    the step (its O(h^2) remainder is far below round-off). Singular values below ``cond``
    times the largest are zero, as ``lstsq(A, b, cond)``."""
    A0, A1 = np.real(A), np.imag(A)
    b = np.asarray(b)
    b0, b1 = np.real(b), np.imag(b)
    A0 = 0.5 * (A0 + A0.T)
    A1 = 0.5 * (A1 + A1.T)
    w, V = np.linalg.eigh(A0)      # A0^+ by the spectral decomposition (no M, K pencil)
    keep = np.abs(w) > cond * np.abs(w).max()
    Vk = V[:, keep]
    Ap = (Vk / w[keep]) @ Vk.T                     # A0^+ (symmetric)
    P = np.eye(len(A0)) - Vk @ Vk.T
    x0 = Ap @ b0
    x1 = Ap @ b1 - Ap @ (A1 @ x0) + Ap @ (Ap @ (A1 @ (P @ b0))) + P @ (A1 @ (Ap @ (Ap @ b0)))
    return x0 + 1j * x1


# --------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class KEDSystem:
    """The KED system at one sample: M ddelta + C ddelta + K delta = F (Kuo eq. 43).

    M, C, K : (n, n); F : (n,); K_el : (n, n) elastic part sum S^T K_e S;
    end_force : (3 legs, 2) axial force at the far end of the upper (at B_i) and lower
    (at D_i) links [N], tension > 0; link_dofs : per leg (upper, lower) S delta maps.
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    F: np.ndarray
    K_el: np.ndarray
    end_force: np.ndarray
    S: tuple = field(repr=False, default=())


class KEDEngine:
    """KED model of a flexible Delta (Kuo 2016 secs. 3-4), see the module docstring.

    Parameters
    ----------
    robot : FlexibleDelta
    elements : int
        Elements per link n >= 1.
    order : {"cubic", "quintic"}
        Interpolation family: Kuo's Table 2 (linear axial/torsion, cubic bending) or
        Table 3 (cubic axial/torsion, quintic bending).
    joint_b, joint_d : {"universal", "spherical", "clamped"} or None
        Override the robot's joints.
    actuators : {"locked", "free"}
        "locked" (Kuo): the upper links are clamped at A_i on the rigid motor angle; the
        actuator torques add the motor's I_m qdd + friction(qd) of the rigid motion.
        "free": a hinge about the motor axis (adds the three rigid-mechanism freedoms;
        used to check the linearized chain) carrying the rotor inertia I_m; refused
        when the robot has actuator friction (a free hinge has no friction model).
    preload : bool
        Include the geometric stiffness of the axial link forces (Kuo eqs. 34-37).
    rayleigh : (alpha, beta)
        Proportional damping C_p = alpha M + beta K_el [1/s, s] (Kuo after eq. 44); >= 0;
        about a deflected reference K_el is the material stiffness there
        (:meth:`system`).
    reference : {"deflected", "undeformed"} or None
        Configuration the elastic equations are linearized about
        (:mod:`elastodyn.formulations.ked.deflected`): "deflected", the geometrically
        exact quasi-static deflection under gravity and the rigid motion's loads (the
        default where it applies: cubic elements, locked actuators, no mechanism), or
        "undeformed", Kuo's rigid configuration with the axial preload (the default
        otherwise, and with ``preload=False``, which applies to it only).

    Attributes
    ----------
    links : (LinkMatrices, LinkMatrices)
        Constant matrices of the upper and lower links, each of its own section and
        material (:mod:`elastodyn.fem.moving_frame`); with free actuators the upper
        link's mass matrix carries the rotor inertia I_m at the hinge (node 0, ry).
    platform_mass_matrix : ndarray (6, 6)
        M_P of the platform with its payload (:attr:`FlexibleDelta.carried_body`).
    """

    def __init__(self, robot: FlexibleDelta, *, elements: int = 1, order: str = "cubic",
                 joint_b: str | None = None, joint_d: str | None = None,
                 actuators: str = "locked", preload: bool = True,
                 rayleigh: tuple = (0.0, 0.0), reference: str | None = None):
        if not isinstance(robot, FlexibleDelta):
            raise InputError("robot", robot, "a FlexibleDelta")
        self.robot = robot.with_joints(joint_b, joint_d)
        self.n_elements = positive_int("elements", elements)
        self.order = choice("order", order, ORDERS)
        self.actuators = choice("actuators", actuators, ACTUATORS)
        self.preload = bool(preload)
        if len(tuple(rayleigh)) != 2:
            raise InputError("rayleigh", rayleigh, "a pair (alpha, beta) >= 0")
        self.rayleigh = (non_negative("rayleigh alpha", rayleigh[0]),
                         non_negative("rayleigh beta", rayleigh[1]))
        r = self.robot
        if self.actuators == "free" and not r.friction.is_zero:
            raise InputError("actuators", actuators, "locked for a robot with actuator "
                             "friction (a free hinge has no friction model)")
        self.kinematics = DeltaKinematics(r.geometry)
        el = BeamElement(spatial=True, order=self.order)
        g = r.geometry
        (su, sl), (mu, ml) = r.link_sections, r.link_materials
        upper = link_matrices(el, g.upper_length, self.n_elements, su, mu)
        if self.actuators == "free" and r.motor_inertia:
            M = upper.M.copy()
            M[_RY, _RY] += r.motor_inertia  # the rotor turns with the hinge rotation
            upper = replace(upper, M=M)
        self.links = (upper, link_matrices(el, g.lower_length, self.n_elements, sl, ml))
        self.carried_body = r.carried_body
        self.platform_mass_matrix = self.carried_body.mass_matrix
        # complex when a description entry carries a complex step (frequency_sensitivity):
        # a section, material or mass through the matrices, a geometry entry through the
        # kinematics (base joints A_i, the radii, the leg angles)
        self.dtype = np.result_type(upper.M, upper.Ke, self.links[1].M, self.links[1].Ke,
                                    self.platform_mass_matrix, self.kinematics.base_joints,
                                    g.platform_radius, g.upper_length, g.lower_length,
                                    real_array(r.gravity), float)
        self._motor = bool(r.motor_inertia) or not r.friction.is_zero
        self._build_layout()
        why = self._deflected_unavailable()
        if reference is None:
            reference = "undeformed" if why or not self.preload else "deflected"
        self.reference = choice("reference", reference, REFERENCES)
        if self.reference == "deflected" and why:
            raise InputError("reference", reference, f"undeformed ({why})")
        if self.reference == "deflected" and not self.preload:
            raise InputError("preload", preload, "True with reference='deflected' (the "
                             "tangent about the deflected shape carries every internal "
                             "force)")
        self._deflected = DeflectedReference(self) if self.reference == "deflected" else None

    @property
    def deflected_available(self) -> bool:
        """Whether the deflected reference applies to this model's options (cubic
        elements, locked actuators, no mechanism), whatever its ``reference``."""
        return self._deflected_unavailable() is None

    def _deflected_unavailable(self) -> str | None:
        """Why the deflected reference does not apply, or None."""
        if self.order != "cubic":
            return "the deflected reference uses cubic elements"
        if self.actuators != "locked":
            return "free actuators make a mechanism without static equilibrium"
        if self.mechanisms:
            return (f"joints {self.joint_b}/{self.joint_d} leave {self.mechanisms} "
                    "mechanism freedoms without static equilibrium")
        return None

    # ------------------------------------------------------------------ layout
    @property
    def joint_b(self) -> str:
        return self.robot.joint_b

    @property
    def joint_d(self) -> str:
        return self.robot.joint_d

    def _build_layout(self):
        nd = self.links[0].nd
        n = self.n_elements
        node_dofs = self.links[0].element.node_dofs
        labels = ["platform.dX", "platform.dY", "platform.dZ",
                  "platform.rX", "platform.rY", "platform.rZ"]
        nrel = {"universal": 2, "spherical": 3, "clamped": 0}
        self._chains = []
        for i in range(3):
            c = {}
            # upper link: node 0 at A_i clamped in its first six dofs (the hinge dof ry
            # is free with free actuators); derivative dofs (quintic) free everywhere.
            own = [j for j in range(nd, (n + 1) * nd)]
            own += [j for j in range(6, nd)]  # node 0 derivative dofs
            if self.actuators == "free":
                own.append(node_dofs.index("ry"))
            own = sorted(own)
            c["upper_local"] = np.array(own)
            c["upper_global"] = np.arange(len(labels), len(labels) + len(own))
            labels += [f"leg{i + 1}.upper.node{j // nd}.{node_dofs[j % nd]}" for j in own]
            tip = [n * nd + k for k in range(6)]
            c["tip_global"] = c["upper_global"][np.searchsorted(own, tip)]
            kb = nrel[self.joint_b]
            c["rel_b"] = np.arange(len(labels), len(labels) + kb)
            labels += [f"leg{i + 1}.joint_B.release{k + 1}" for k in range(kb)]
            # lower link: first six dofs of nodes 0 and n are determined by the joints
            own = [j for j in range((n + 1) * nd) if not (j < 6 or n * nd <= j < n * nd + 6)]
            c["lower_local"] = np.array(own, dtype=int)
            c["lower_global"] = np.arange(len(labels), len(labels) + len(own))
            labels += [f"leg{i + 1}.lower.node{j // nd}.{node_dofs[j % nd]}" for j in own]
            kd = nrel[self.joint_d]
            c["rel_d"] = np.arange(len(labels), len(labels) + kd)
            labels += [f"leg{i + 1}.joint_D.release{k + 1}" for k in range(kd)]
            self._chains.append(c)
        self.labels = tuple(labels)
        self.dof = len(labels)
        # touched global dofs of each lower link: own, tip (6), rel_b, platform (6), rel_d
        for c in self._chains:
            c["lower_cols"] = np.concatenate([c["lower_global"], c["tip_global"], c["rel_b"],
                                              np.arange(6), c["rel_d"]])

    @property
    def chains(self) -> tuple:
        """Per leg, the global indices of its variables (dicts: ``upper_local`` and
        ``upper_global`` (the upper link's free dofs and their global indices),
        ``tip_global``, ``rel_b``, ``lower_local``, ``lower_global``, ``rel_d``,
        ``lower_cols``)."""
        return tuple(self._chains)

    @cached_property
    def leg_blocks(self) -> np.ndarray:
        """Global indices (3, nb) of the leg blocks: leg i touches only its own
        variables and the platform's, ordered [lower own | upper own, tip last | releases
        at B | releases at D | platform] (the lower link's shared variables contiguous
        at the end; :mod:`elastodyn.formulations.ked.batch`)."""
        nd, n = self.links[0].nd, self.n_elements
        out = []
        for c in self._chains:
            tip = np.isin(c["upper_local"], n * nd + np.arange(6))
            ucols = np.r_[c["upper_global"][~tip], c["upper_global"][tip]]
            out.append(np.r_[c["lower_global"], ucols, c["rel_b"], c["rel_d"], np.arange(6)])
        return np.array(out)

    def node_variables(self, i: int, li: int, j: int) -> np.ndarray:
        """Global variables (int array) that the nodal dofs of node j (0..n) of link li
        (0 upper, 1 lower) of leg i depend on (through the S maps of the lower link's
        end nodes: the upper tip and the releases at B, the platform and the releases
        at D; a clamped dof depends on none)."""
        c, nd, n = self._chains[i], self.links[li].nd, self.n_elements
        local = j * nd + np.arange(nd)
        if li == 0:
            own, glob = c["upper_local"], c["upper_global"]
            return glob[np.isin(own, local)]
        own, glob = c["lower_local"], c["lower_global"]
        out = [glob[np.isin(own, local)]]
        if j == 0:
            out += [c["tip_global"], c["rel_b"]]
        elif j == n:
            out += [np.arange(6), c["rel_d"]]
        return np.concatenate(out).astype(int)

    @cached_property
    def leg_pattern(self) -> np.ndarray:
        """Structural nonzeros (nb, nb) (bool) of the leg blocks, in the order of
        :attr:`leg_blocks` (union over the legs): two variables couple when they belong
        to the two nodes of one link element (mass, damping, stiffness, K_el, the
        deflected reference's tangent and mass alike), the platform's six with each
        other. The same at every pose and step; :attr:`leg_solver` orders and checks by
        it."""
        nb = self.leg_blocks.shape[1]
        P = np.zeros((nb, nb), dtype=bool)
        P[nb - 6:, nb - 6:] = True
        for i in range(3):
            pos = np.full(self.dof, -1)
            pos[self.leg_blocks[i]] = np.arange(nb)
            for li in (0, 1):
                for k in range(self.n_elements):
                    v = pos[np.r_[self.node_variables(i, li, k),
                                  self.node_variables(i, li, k + 1)]]
                    P[np.ix_(v, v)] = True
        return P

    @cached_property
    def leg_solver(self) -> LegBlockSolver:
        """The solver of the model's leg-block systems (banded in the reverse
        Cuthill-McKee order of :attr:`leg_pattern`, :mod:`.ked_blocks`)."""
        return LegBlockSolver(self.leg_pattern, self.leg_blocks, self.dof)

    # ------------------------------------------------------------------ motion
    def motion(self, X, Xd=None, Xdd=None) -> DeltaMotion:
        """Rigid motion at platform positions X [m] (velocities, accelerations default 0)."""
        return rigid_motion(self.kinematics, X, Xd, Xdd)

    def _release_axes(self, joint: str, y: np.ndarray, Rl: np.ndarray, at: str):
        """Release axes of a joint as (world axis, fixed to the lower link) pairs.

        Universal: (y_i, z_l) at B, (z_l, y_i) at D (Kuo eq. 3 order; the order only
        labels the variables); y_i is fixed to the upper link (which rotates about it)
        or to the translating platform, hence constant in the world. Spherical: the lower
        link's three axes."""
        if joint == "clamped":
            return []
        if joint == "spherical":
            return [(Rl[:, m], True) for m in range(3)]
        zl = (Rl[:, 2], True)
        yi = (y, False)
        return [yi, zl] if at == "B" else [zl, yi]

    def _lower_S(self, mo: DeltaMotion, k: int, i: int, derivs: int):
        """S, S_dot, S_ddot of lower link i at sample k, shape (nl, ncols) each."""
        lm = self.links[1]
        c = self._chains[i]
        n, nd = self.n_elements, lm.nd
        nown, kb, kd = len(c["lower_local"]), len(c["rel_b"]), len(c["rel_d"])
        ncols = nown + 6 + kb + 6 + kd
        Rl, Ru = mo.Rl[k, i], mo.Ru[k, i]
        wl, al, wu, au = mo.wl[k, i], mo.al[k, i], mo.wu[k, i], mo.au[k, i]
        y = mo.y[i]
        rD = mo.D[k, i] - mo.X[k]
        Wl, Al = skew(wl), skew(al)
        # d^j/dt^j of R_l^T (world-constant columns) and of R_l^T R_u
        P0 = [Rl.T, -Rl.T @ Wl, Rl.T @ (Wl @ Wl - Al)]
        Wr = skew(wu - wl)
        P1 = [Rl.T @ Ru, Rl.T @ Wr @ Ru,
              Rl.T @ (-Wl @ Wr + skew(au - al) + Wr @ skew(wu)) @ Ru]
        axes_b = self._release_axes(self.joint_b, y, Rl, "B")
        axes_d = self._release_axes(self.joint_d, y, Rl, "D")
        out = []
        cB, cR, cP, cD = nown, nown + 6, nown + 6 + kb, nown + 12 + kb
        rows_d = n * nd
        rx = skew(rD)
        dt = np.result_type(Rl, Ru, wl, al, rD, float)   # complex under a complex step
        for j in range(derivs + 1):
            S = np.zeros((lm.n_dofs, ncols), dt)
            if j == 0:
                S[c["lower_local"], np.arange(nown)] = 1.0
            # node B (rows 0..5): d_l = P1 d_B, r_l = P1 r_B + P0 axes_b
            S[0:3, cB:cB + 3] = P1[j]
            S[3:6, cB + 3:cB + 6] = P1[j]
            if kb:
                # axes fixed to the lower link (z_l, and all three for spherical) are
                # constant in its frame; only world-fixed y_i contributes derivatives
                S[3:6, cR:cR + kb] = self._axis_cols(P0, j, axes_b, Rl)
            # node D: d_l = P0 (d_P - [rD]x r_P), r_l = P0 r_P + P0 axes_d
            S[rows_d:rows_d + 3, cP:cP + 3] = P0[j]
            S[rows_d:rows_d + 3, cP + 3:cP + 6] = -P0[j] @ rx
            S[rows_d + 3:rows_d + 6, cP + 3:cP + 6] = P0[j]
            if kd:
                S[rows_d + 3:rows_d + 6, cD:cD + kd] = self._axis_cols(P0, j, axes_d, Rl)
            out.append(S)
        return out

    @staticmethod
    def _axis_cols(P0, j, axes, Rl):
        """Columns R_l^T n_k and their j-th time derivatives: constant for an axis fixed
        to the lower link, P0[j] n_k for a world-constant axis."""
        cols = np.zeros((3, len(axes)), np.result_type(Rl, P0[j], float))
        for m, (ax, on_lower) in enumerate(axes):
            if on_lower:
                cols[:, m] = Rl.T @ ax if j == 0 else 0.0
            else:
                cols[:, m] = P0[j] @ ax
        return cols

    # ------------------------------------------------------------------ assembly
    @cached_property
    def mechanisms(self) -> int:
        """Number of zero-stiffness (mechanism) freedoms of the elastic structure.

        Gruebler count per leg: the chain from the upper link's base to the platform has
        f = (1 if the actuator is free) + r_B + r_D freedoms (r = 2 universal, 3
        spherical, 0 clamped), one of which is the lower link's idle spin when both of
        its joints are spherical; each leg then imposes c = max(0, 6 - f_eff)
        constraints on the platform, which keeps max(0, 6 - 3 c) freedoms (legs in
        general position). Examples with locked actuators: U-U 0, S-U 3, S-S 3 + 3 spins,
        S-clamped 0; free actuators with U-U: 3 (the rigid Delta)."""
        rel = {"universal": 2, "spherical": 3, "clamped": 0}
        spin = self.joint_b == self.joint_d == "spherical"
        f = (self.actuators == "free") + rel[self.joint_b] + rel[self.joint_d] - spin
        c = max(0, 6 - f)
        return max(0, 6 - 3 * c) + 3 * spin

    def system(self, mo: DeltaMotion, k: int = 0, deflected_state=None) -> KEDSystem:
        """The KED system (Kuo eqs. 43-44) at sample k of a rigid motion.

        With ``reference="deflected"``: M is the mass about the deflected links, K =
        K_T + K_mot (the tangent stiffness at the quasi-static deflection delta_s and the
        rigid-motion terms) and F = K_T delta_s
        (:mod:`elastodyn.formulations.ked.deflected`), so that the static solution of
        K delta = F at rest is delta_s; ``deflected_state`` (F = K_T delta_s (3, nb), K_T
        and M (3, nb, nb), leg blocks, and the material stiffness D (3, nb, nb) or None
        without stiffness-proportional damping), when given, is used instead of solving
        for it (refused by an undeformed-reference model).

        Damping: C carries the gyroscopic terms and the Rayleigh damping alpha M + beta
        K_d, with K_d the elastic stiffness about the configuration linearized about:
        K_el about the undeformed links, the material stiffness D about the deflected
        ones (:class:`~.ked_deflected.DeflectedState`). Decision: not K_el on the deflected
        reference. K_el is the stiffness of the *undeformed* links in the variables;
        about the sagged structure its variables' rigid motions (the joint releases
        turning with the sagged links) are no longer rigid for K_el, so beta K_el damped
        the lowest mode of Kuo's Delta 50 times more than beta omega / 2 and dragged
        the quasi-static motion (issue 35: damping raised the response). D is symmetric
        positive semi-definite and zero on rigid motions of the deflected links, so the
        damping dissipates by construction.

        Returns
        -------
        KEDSystem with M, C, K (dof, dof), F (dof,), the elastic stiffness K_el and the
        axial end forces of every link (tension > 0) [N].
        """
        N = self.dof
        deflected = self._deflected is not None
        if deflected_state is not None and not deflected:
            raise InputError("deflected_state", "given", "None for a model about the "
                             "undeformed configuration (reference='undeformed')")
        M, C, K = (np.zeros((N, N), self.dtype) for _ in range(3))
        parts = self._parts(mo, k)
        Kel, F = self._static_terms(mo, k, parts)
        end = self._end_forces(Kel, F, parts)
        if not deflected:
            M[0:6, 0:6] += self.platform_mass_matrix
        Sx = {}
        for i, li, lm, cols, S, w, al, a0, g, Fl in parts:
            Bg = lm.gyroscopic(w)
            if deflected:  # rigid-motion terms only: K_T carries the elastic ones
                Kl = lm.combine(stiffness_coefficients(w, al))
            else:
                Kl = lm.stiffness(w, al, a0, g, end[i, li] if self.preload else None)
            ix = np.ix_(cols, cols)
            if S is None:
                loc = self._chains[i]["upper_local"]
                lx = np.ix_(loc, loc)
                M[ix] += lm.M[lx]
                C[ix] += 2.0 * Bg[lx]
                K[ix] += Kl[lx]
            else:
                S0, S1, S2 = S
                M[ix] += S0.T @ lm.M @ S0
                C[ix] += S0.T @ (2.0 * (lm.M @ S1 + Bg @ S0))
                K[ix] += S0.T @ (lm.M @ S2 + 2.0 * Bg @ S1 + Kl @ S0)
            Sx[(i, li)] = (cols, S)
        if deflected:
            if deflected_state is None:  # Newton from the linear quasi-static solution
                u0 = self._quasi_static(Kel, F, parts)[0]
                ref = self._deflected.solve(mo, [k], u0[None])
                deflected_state = (ref.F[0], ref.K[0], ref.M[0],
                                   None if ref.D is None else ref.D[0])
            F = dense_leg_blocks(deflected_state[0], self.leg_blocks, N, matrix=False)
            K += dense_leg_blocks(deflected_state[1], self.leg_blocks, N)
            M = dense_leg_blocks(deflected_state[2], self.leg_blocks, N)
        a, b = self.rayleigh
        if a:
            C += a * M
        if b:
            if deflected:
                D = deflected_state[3] if len(deflected_state) > 3 else None
                if D is None:
                    raise InputError("deflected_state", "without the material stiffness",
                                     "(F, K_T, M, D) for a model with stiffness-"
                                     "proportional damping")
                C += b * dense_leg_blocks(D, self.leg_blocks, N)
            else:
                C += b * Kel
        return KEDSystem(M, C, K, F, Kel, end, Sx)

    def _end_forces(self, Kel, F, parts) -> np.ndarray:
        """Axial force at the far end of every link (3, 2) [N] from the quasi-static
        solution (zero without preload)."""
        if not self.preload:
            return np.zeros((3, 2))
        return self._quasi_static(Kel, F, parts)[1]

    def _quasi_static(self, Kel, F, parts):
        """Solve K_el u = F (minimum-norm least squares for a mechanism); return u, the
        axial end forces (3, 2) and the actuator reaction torques (3,) [N m]."""
        if self.mechanisms and np.iscomplexobj(Kel):
            u = _complex_step_min_norm(Kel, F, 1e-10)
        elif self.mechanisms:
            u = sla.lstsq(Kel, F, cond=1e-10)[0]
        else:
            u = sla.solve(Kel, F, assume_a="sym")
        end = np.zeros((3, 2), self.dtype)
        torque = np.zeros(3, self.dtype)
        for i, li, lm, cols, S, w, al, a0, g, Fl in parts:
            f = lm.Ke @ self._link_dofs(u, i, li, cols, S) - Fl
            end[i, li] = f[self.n_elements * lm.nd]  # u dof of the last node
            if li == 0:
                torque[i] = f[_RY]
        return u, end, torque

    def quasi_static(self, mo: DeltaMotion, k: int = 0):
        """Quasi-static response to the rigid-motion loads at sample k: K_el u = F.

        Returns
        -------
        (u, end_force, torque): global variables (dof,), axial end forces (3, 2) [N] and
        the actuator torques about the motor axes y_i [N m] that hold the rigid motion
        (reaction at the clamped node A_i plus the motor's I_m qdd + friction(qd); equal
        to the rigid-body inverse dynamics of the distributed structure, for any
        stiffness).
        """
        parts = self._parts(mo, k)
        Kel, F = self._static_terms(mo, k, parts)
        return self._quasi_static(Kel, F, parts)

    def _static_terms(self, mo, k, parts):
        """K_el = sum S^T K_e S and the load F (links and platform) at sample k."""
        N = self.dof
        Kel, F = np.zeros((N, N), self.dtype), np.zeros(N, self.dtype)
        for i, li, lm, cols, S, w, al, a0, g, Fl in parts:
            if S is None:
                loc = self._chains[i]["upper_local"]
                Kel[np.ix_(cols, cols)] += lm.Ke[np.ix_(loc, loc)]
                F[cols] += Fl[loc]
            else:
                Kel[np.ix_(cols, cols)] += S[0].T @ lm.Ke @ S[0]
                F[cols] += S[0].T @ Fl
        grav = real_array(self.robot.gravity)
        F[0:6] += self.carried_body.load(grav - mo.Xdd[k])
        return Kel, F

    def _parts(self, mo, k):
        grav = real_array(self.robot.gravity)
        parts = []
        for i, c in enumerate(self._chains):
            for li, lm in enumerate(self.links):
                if li == 0:
                    R = mo.Ru[k, i]
                    w, al, a0 = R.T @ mo.wu[k, i], R.T @ mo.au[k, i], np.zeros(3)
                    cols, S = c["upper_global"], None
                else:
                    R = mo.Rl[k, i]
                    w, al, a0 = R.T @ mo.wl[k, i], R.T @ mo.al[k, i], R.T @ mo.Bdd[k, i]
                    cols, S = c["lower_cols"], self._lower_S(mo, k, i, 2)
                g = R.T @ grav
                parts.append((i, li, lm, cols, S, w, al, a0, g,
                              self.link_load(li, w, al, a0, g)))
        return parts

    def motor_torque(self, omega, alpha) -> np.ndarray:
        """Torque about the motor axis y_i an actuator spends on its own rotor and
        friction along the rigid motion, I_m qdd + friction(qd) [N m], shape (...,):
        qd = omega_y, qdd = alpha_y, the upper link's angular velocity and acceleration
        (..., 3) in its frame (whose y axis is y_i) [rad/s, rad/s^2]."""
        w, al = np.asarray(omega, dtype=float), np.asarray(alpha, dtype=float)
        r = self.robot
        return r.motor_inertia * al[..., 1] + r.friction.torque(w[..., 1])

    def link_load(self, li: int, omega, alpha, a0, gravity) -> np.ndarray:
        """Load P (Kuo eq. 41) of link li (0 upper, 1 lower), shape (..., nl), for its
        frame motion (link components, see :meth:`LinkMatrices.load`); the upper link's
        carries, at the hinge rotation (node 0, ry), the reaction -(I_m qdd +
        friction(qd)) of the motor (:meth:`motor_torque`): with locked actuators it adds
        to the actuator torques, with free ones it is the rotor's d'Alembert torque."""
        P = self.links[li].load(omega, alpha, a0, gravity)
        if li == 0 and self._motor:
            P[..., _RY] -= self.motor_torque(omega, alpha)
        return P
    def actuator_torques(self, mo: DeltaMotion, k: int, end_force, delta, deltad,
                         deltadd) -> np.ndarray:
        """Torques the locked actuators apply (about y_i) [N m], shape (3,): the reaction
        at the clamped node A_i of each upper link's KED equation,
        [M_l qdd + 2 B_l qd + K_l q - P_l] at the rotation dof about y (Kuo's Fig. 5
        torques, including the elastic response), plus the motor's own I_m qdd +
        friction(qd) of the rigid motion (:meth:`link_load`)."""
        grav = real_array(self.robot.gravity)
        lm = self.links[0]
        out = np.zeros(3)
        for i, c in enumerate(self._chains):
            R = mo.Ru[k, i]
            w, al, a0, g = R.T @ mo.wu[k, i], R.T @ mo.au[k, i], np.zeros(3), R.T @ grav
            loc, cols = c["upper_local"], c["upper_global"]
            q, qd, qdd = (np.zeros(lm.n_dofs) for _ in range(3))
            q[loc], qd[loc], qdd[loc] = delta[cols], deltad[cols], deltadd[cols]
            row_k = lm.stiffness(w, al, a0, g, end_force[i, 0] if self.preload else None,
                                 rows=_RY)
            out[i] = (lm.M[_RY] @ qdd + 2.0 * lm.gyroscopic(w, rows=_RY) @ qd + row_k @ q
                      - self.link_load(0, w, al, a0, g)[_RY])
        return out

    def _link_dofs(self, delta, i, li, cols, S) -> np.ndarray:
        """Link-frame nodal dofs of link li of leg i from the global variables."""
        lm = self.links[li]
        if S is None:
            q = np.zeros(lm.n_dofs, np.result_type(delta, float))
            q[self._chains[i]["upper_local"]] = delta[cols]
            return q
        return S[0] @ delta[cols]

    def link_dofs(self, system: KEDSystem, delta) -> list:
        """Link-frame nodal dofs [(upper, lower) per leg] for global variables delta."""
        delta = np.asarray(delta, dtype=float)
        return [tuple(self._link_dofs(delta, i, li, *system.S[(i, li)]) for li in (0, 1))
                for i in range(3)]

    # ------------------------------------------------------------------ analyses at a pose
    def at_rest(self, X) -> KEDSystem:
        """The system at platform position X [m] with the robot at rest."""
        return self.system(self.motion(np.asarray(X, dtype=float)), 0)

    def deflected_reference(self, mo: DeltaMotion, ks=None, delta0=None):
        """The deflected reference (:class:`~.ked_deflected.DeflectedState`: delta_s,
        K_T and M in leg blocks) at samples ``ks`` (default all) of the rigid motion
        ``mo``, Newton from delta0 (ns, dof) (default zero).

        Raises
        ------
        ModelError
            The model's reference is "undeformed", or Newton fails (buckling).
        """
        if self._deflected is None:
            raise ModelError("deflected_reference: this model linearizes about the "
                             "undeformed configuration (reference='undeformed')")
        return self._deflected.solve(mo, ks, delta0)

    def deflected_along(self, mo: DeltaMotion, *, chunk: int = 10, progress=None):
        """The deflected reference at every sample of a rigid motion (or a path of poses)
        whose samples follow each other: Newton in batches of ``chunk`` samples, each
        started from the linear quasi-static solution plus the nonlinear correction
        (delta_s - linear) of the previous batch's last sample, which varies slowly
        along a path (two or three Newton steps instead of five from the linear start;
        a batch that does not converge from there is restarted from the linear start).
        Returns a :class:`~.ked_deflected.DeflectedState` over all samples; ``progress``
        a callable(done, total) or None."""
        ns = len(mo)
        chunk = positive_int("chunk", chunk)
        u0 = np.array([self.quasi_static(mo, k)[0] for k in range(ns)])
        corr = np.zeros(self.dof)
        parts = []
        for k0 in range(0, ns, chunk):
            ks = np.arange(k0, min(ns, k0 + chunk))
            try:
                st = self.deflected_reference(mo, ks, u0[ks] + corr)
            except ModelError:  # outside Newton's basin (a soft state): the linear start
                st = self.deflected_reference(mo, ks, u0[ks])
            corr = st.delta[-1] - u0[ks[-1]]
            parts.append(st)
            if progress is not None:
                progress(ks[-1] + 1, ns)
        delta, K, M = (np.concatenate([getattr(p, f) for p in parts])
                       for f in ("delta", "K", "M"))
        D = None if parts[0].D is None else np.concatenate([p.D for p in parts])
        return DeflectedState(delta, K, M, max(p.iterations for p in parts),
                              self.leg_blocks, D)

    def rest_start(self, X, delta_ref, K_ref) -> np.ndarray:
        """The state at rest at X [m] of the linear model about a deflected reference
        (delta_ref (dof,) and its tangent K_ref (3, nb, nb), e.g. a moving reference at
        the start of a motion): delta_ref plus one Newton step of the loads at rest with
        K_ref, K_ref (d - delta_ref) = -grad V_rest(delta_ref). This, not the exact
        equilibrium at rest, is the linear model's own static state: the two differ at
        second order, and a second-order difference along a stiff axial direction (the
        chord shortening of a rotation change of 0.017 rad at the tip of Kuo's upper
        links between rest and his full-speed circle) would be a spurious 600 N in the
        linear equations."""
        if self._deflected is None:
            raise ModelError("rest_start: this model linearizes about the undeformed "
                             "configuration (reference='undeformed')")
        mo = self.motion(np.atleast_2d(np.asarray(X, dtype=float)))
        d = np.asarray(delta_ref, dtype=float)[None]
        G = self._deflected.gradient(mo, [0], d)
        return d[0] + self.leg_solver.solve(np.asarray(K_ref)[None], -G)[0]

    def rest_matrices(self, X):
        """Mass and stiffness (ns, dof, dof) at rest at platform positions X (ns, 3) [m]
        (with ``reference="deflected"``: :meth:`deflected_along` the poses in order)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        mo = self.motion(X)
        if self._deflected is None:
            out = [self.system(mo, k) for k in range(len(X))]
            return np.array([s.M for s in out]), np.array([s.K for s in out])
        ref = self.deflected_along(mo)
        return (dense_leg_blocks(ref.M, self.leg_blocks, self.dof),
                dense_leg_blocks(ref.K, self.leg_blocks, self.dof))

    def modes(self, X, count: int = 8) -> ModalResult:
        """Lowest ``count`` natural frequencies at rest at platform position X [m]: about
        the geometrically exact sag under gravity (tangent stiffness and mass there) with
        ``reference="deflected"``; about the undeformed pose with the static link forces'
        geometric stiffness (unless preload=False) with ``reference="undeformed"``.
        Mechanism modes (spherical joints, free actuators) come first, at zero frequency
        without preload."""
        s = self.at_rest(X)
        return modal_analysis(s.M, s.K, count=count, labels=self.labels)

    def static_deflection(self, X) -> np.ndarray:
        """Elastic variables delta (dof,) of the static deflection under gravity at rest at
        X: the geometrically exact one (``reference="deflected"``), or K delta = F about
        the undeformed pose (K with the preload unless preload=False).

        Raises
        ------
        ModelError
            The structure is a mechanism without preload (spherical joints): no static
            equilibrium in the linear model.
        """
        s = self.at_rest(X)
        try:
            lu = sla.lu_factor(s.K, check_finite=True)
        except (sla.LinAlgError, ValueError) as exc:  # pragma: no cover - defensive
            raise ModelError(f"static deflection: singular stiffness ({exc})") from None
        rcond = np.min(np.abs(np.diag(lu[0]))) / np.max(np.abs(np.diag(lu[0])))
        if rcond < 1e-13:
            raise ModelError(
                f"static deflection undefined: the structure (joint_b={self.joint_b}, "
                f"joint_d={self.joint_d}, preload={self.preload}) is a mechanism")
        return sla.lu_solve(lu, s.F)

