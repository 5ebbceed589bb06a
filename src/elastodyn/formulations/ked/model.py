"""The flexible Delta by kineto-elasto-dynamics (Kuo 2016) on the model contract.

KED is linear in the elastic coordinates about a prescribed rigid motion (the actuators
follow their rigid angles): it answers ``linearize`` (the KED system M, C, K, F of Kuo
eqs. 43-44 at a sample of the rigid motion, actuators locked), ``static_deflection`` (the
quasi-static response K delta = F to gravity and the rigid-motion loads) and the
motion-driven simulation (by the analysis layer's KED engine). It has no nonlinear
mass matrix or bias: the rigid motion is not a coordinate of its equations.

Contract coordinates: the actuated angles q1..q3 [rad] (the rigid motion, prescribed)
then the elastic variables delta of :class:`~.engine.KEDEngine` (``labels``).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ...description.flexible_delta import FlexibleDelta
from ...exceptions import InputError, ModelError
from ...model import Coordinates, Linearization, State
from .engine import KEDEngine
from .batch import rest_matrices

__all__ = ["KEDModel", "coordinate_unit"]


def coordinate_unit(label: str) -> str:
    """Unit of a KED elastic variable from its label: translations and quintic axial
    derivatives... (u, v, w, dX.. [m]; rx, ry, rz, release angles [rad]; du [1];
    drx, dry, drz [rad/m])."""
    last = label.rsplit(".", 1)[-1]
    if last in ("u", "v", "w", "dX", "dY", "dZ"):
        return "m"
    if last == "du":
        return "1"
    if last in ("drx", "dry", "drz"):
        return "rad/m"
    return "rad"


class KEDModel:
    """A flexible Delta by KED answering the linear part of the model contract.

    Parameters
    ----------
    robot : FlexibleDelta
    elements, order, preload, rayleigh, reference
        Options of :class:`~.engine.KEDEngine` (elements per link, element
        family, geometric stiffness of the axial link forces, Rayleigh damping, the
        configuration linearized about: "deflected", "undeformed" or None for the
        model's default).
    """

    formulation = "ked"
    pose_names = ("x", "y", "z")
    """The platform centre's position (the end-effector pose)."""
    capabilities = frozenset({"state", "pose", "inverse_kinematics", "linearize",
                              "static_deflection", "simulate_motion", "rest_matrices",
                              "task_kinematics"})

    @property
    def mechanisms(self) -> int:
        """Zero-frequency mechanism modes with the actuators locked (ball joints)."""
        return int(self.ked.mechanisms)

    @property
    def default_preload(self) -> bool:
        """The model's own switch (Kuo: the static link forces in the stiffness)."""
        return self.ked.preload

    def __init__(self, robot: FlexibleDelta, *, elements: int = 1, order: str = "cubic",
                 preload: bool = True, rayleigh=(0.0, 0.0), reference: str | None = None):
        self.robot = robot
        self.ked = KEDEngine(robot, elements=elements, order=order, preload=preload,
                                 rayleigh=tuple(rayleigh), reference=reference)
        self._variants = {bool(preload): self.ked}
        self.kinematics = self.ked.kinematics
        self.options = {"elements": self.ked.n_elements, "order": self.ked.order,
                        "preload": self.ked.preload,
                        "rayleigh": list(self.ked.rayleigh),
                        "reference": self.ked.reference}
        labels = self.ked.labels
        self.coordinates = Coordinates(
            ("q1", "q2", "q3") + tuple(labels), ("rad",) * 3 + tuple(map(coordinate_unit, labels)),
            ("actuated",) * 3 + ("elastic",) * len(labels))

    @property
    def n_actuated(self) -> int:
        return 3

    @property
    def n_elastic(self) -> int:
        return self.ked.dof

    def variant(self, preload: bool | None) -> KEDEngine:
        """The KED model with the preload switched as asked (built once)."""
        p = self.ked.preload if preload is None else bool(preload)
        if p not in self._variants:
            k = self.ked
            self._variants[p] = KEDEngine(self.robot, elements=k.n_elements,
                                              order=k.order, preload=p, rayleigh=k.rayleigh,
                                              reference=k.reference if p else None)
        return self._variants[p]

    # ------------------------------------------------------------------ states
    def inverse_kinematics(self, pose) -> np.ndarray:
        X = np.asarray(pose, dtype=float).reshape(-1)
        if X.shape != (3,):
            raise InputError("pose", X.tolist(), "a platform position X Y Z [m]")
        return np.asarray(self.kinematics.inverse_kinematics(X), dtype=float).reshape(3)

    def state(self, *, actuated=None, pose=None, rates=None, accelerations=None,
              elastic=None, elastic_rates=None, elastic_accelerations=None,
              t: float = 0.0) -> State:
        """A sample of a rigid motion (pose or actuated angles, their rates and
        accelerations) with elastic variables (default zero)."""
        if pose is None and actuated is None:     # home: centred, half the legs' reach down
            g = self.robot.geometry
            pose = (0.0, 0.0, 0.5 * (g.upper_length + g.lower_length))
        if pose is not None:
            if actuated is not None:
                raise InputError("pose", pose, "either a pose or actuated coordinates")
            X = np.asarray(pose, dtype=float).reshape(3)
            self.kinematics.check_reachable(X)
            q = self.inverse_kinematics(X)
        else:
            q = np.asarray(actuated, dtype=float).reshape(3)
            X = np.asarray(self.kinematics.forward_kinematics(q), dtype=float).reshape(3)
        self.kinematics.check_singularity(X)
        st = State.build(3, self.n_elastic, actuated=q, rates=rates,
                         accelerations=accelerations, elastic=elastic,
                         elastic_rates=elastic_rates,
                         elastic_accelerations=elastic_accelerations, t=float(t))
        J = self.kinematics.jacobian(X, q=q)
        Xd = np.linalg.solve(J, st.actuated_rates)
        Jd = self.kinematics.jacobian_derivative(X, Xd, q=q)
        Xdd = np.linalg.solve(J, st.actuated_accelerations - Jd @ Xd)
        return st.with_(pose=X, detail={"X": X, "Xd": Xd, "Xdd": Xdd})

    def at(self, st: State, q=None, v=None, a=None) -> State:
        """``st`` itself (with other coordinates, rates or accelerations where given): a
        KED state is a sample of the rigid motion, nothing to close again."""
        return st.with_(q=st.q if q is None else np.asarray(q, float),
                        v=st.v if v is None else np.asarray(v, float),
                        a=st.a if a is None else np.asarray(a, float))

    def motion(self, st: State):
        d = st.detail
        return self.ked.motion(d["X"], d["Xd"], d["Xdd"])

    # ------------------------------------------------------------------ linear model
    def linearize(self, st: State, *, actuators: str = "locked",
                  preload: bool | None = None) -> Linearization:
        """The KED system at the sample ``st`` of the rigid motion (Kuo eqs. 43-44):
        M, C, K, F over the elastic variables, actuators locked on the rigid motion
        (``preload``: the geometric stiffness of the axial link forces; default the
        model's)."""
        if actuators != "locked":
            raise InputError("actuators", actuators, "locked (KED prescribes the actuated "
                             "motion)")
        ked = self.variant(preload)
        s = ked.system(ked.motion(st.detail["X"], st.detail["Xd"], st.detail["Xdd"]), 0)
        c = self.coordinates
        coords = Coordinates(c.names[3:], c.units[3:], c.kinds[3:])
        return Linearization(s.M, s.C, s.K, s.F, np.zeros((self.n_elastic, 3)), coords, st)

    def rest_matrices(self, states, *, preload: bool | None = None):
        """Mass and stiffness (B, n_e, n_e) at rest at the poses of ``states`` in one
        batch: the matrices :meth:`linearize` gives at each of them (with the deflected
        reference, each pose's equilibrium warm-started from the one before, so give
        neighbouring poses in order)."""
        X = np.array([np.asarray(st.detail["X"], dtype=float) for st in states]).reshape(-1, 3)
        return rest_matrices(self.variant(preload), X)

    def static_deflection(self, st: State, *, inertial: bool = True) -> State:
        """The quasi-static elastic state K delta = F at the sample ``st`` (at rest: the
        sag under gravity; moving: under gravity and the rigid-motion loads; with
        ``inertial`` False, the sag under gravity at the sample's pose, at rest).

        Raises
        ------
        ModelError
            The structure is a mechanism (ball joints without preload).
        """
        if not inertial and (np.any(st.v[:3] != 0) or np.any(st.a[:3] != 0)):
            st = self.state(pose=np.asarray(st.detail["X"], dtype=float), t=st.t)
        lin = self.linearize(st)
        lu = sla.lu_factor(lin.K)
        d = np.abs(np.diag(lu[0]))
        if d.min() < 1e-13 * d.max():
            raise ModelError(f"static deflection undefined: the structure (joints "
                             f"{self.ked.joint_b}/{self.ked.joint_d}, preload "
                             f"{self.ked.preload}) is a mechanism")
        e = sla.lu_solve(lu, lin.F)
        q = st.q.copy()
        q[3:] = e
        # the platform's elastic displacement (the first three elastic variables, dX dY
        # dZ) moves the end-effector: the pose of the deflected state is the platform's
        pose = None if st.pose is None else np.asarray(st.pose, float) + e[:3].real
        return st.with_(q=q, pose=pose)

    # ------------------------------------------------------------------ motion
    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None):
        """The KED run along a platform path or the actuated angles
        (:class:`~elastodyn.model.SimulatesMotion`; Kuo 2016 section 5.3): Newmark
        (default; its step is the output step, checked against the modes the motion
        excites) or Radau. KED's Newmark step is the output step: no separate step
        bound."""
        if integrator_step is not None:
            raise InputError("--integrator-step", integrator_step, "not for KED (its "
                             "Newmark step is --step)")
        from .simulation import motion_response
        return motion_response(self, trajectory, times, initial=initial, method=method,
                               progress=progress)

    def elastic_stiffness(self) -> np.ndarray:
        """The elastic stiffness K_el = sum S^T K_e S at the home pose is
        configuration-dependent for KED; use :meth:`linearize`."""
        raise ModelError("KED: the elastic stiffness depends on the pose; use linearize")
