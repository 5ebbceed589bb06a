"""Tree and closed-loop robots by NE-PVP (Briot & Khalil 2013) on the model contract.

Contract coordinates: the actuated joint variables [rad or m] then the elastic
coordinates of the beams (nodal u, v, w [m], rx, ry, rz [rad]; or assumed-mode
amplitudes [m]); the passive joints follow from the loop closure (State.passive), the
platform origin is the pose (base frame).

An actuated joint that carries a beam of assumed modes (chord frame) measures its
variable from the chord, while its motor turns the root section: the contract's
actuated coordinate is the motor's, q_c = q + phi'(0) f / L (root slope), so that the
efforts act on the actuated coordinates alone (B = [I; 0]) and an arm by NE-PVP compares
entry by entry with the assumed-modes model. With q_model = T q_c, T constant:
M_c = T^T M T, c_c = T^T c. Finite-element beams are clamped at their joint frame
(T = I).
"""
from __future__ import annotations

from collections import OrderedDict
from functools import cached_property

import numpy as np

from ..._validate import real_array
from ...description.tree import FlexibleBeam, TreeRobot
from ...exceptions import InputError
from ...model import Coordinates, Efforts, State
from ..base import FD_STEP, NONLINEAR_CAPABILITIES, NonlinearModel, beam_extent
from .engine import NEPVPEngine

__all__ = ["NEPVPModel"]

_UNITS = {"u": "m", "v": "m", "w": "m", "rx": "rad", "ry": "rad", "rz": "rad"}


class NEPVPModel(NonlinearModel):
    """A TreeRobot by NE-PVP answering the model contract.

    Parameters
    ----------
    robot : TreeRobot
        With its beams' discretization set (elements, or assumed modes).
    """

    formulation = "nepvp"
    capabilities = NONLINEAR_CAPABILITIES | {"pose", "program", "close_along",
                                             "export_closure", "small_deformation"}
    default_preload = False

    def __init__(self, robot: TreeRobot, options: dict | None = None):
        if not isinstance(robot, TreeRobot):
            raise InputError("robot", type(robot).__name__, "a TreeRobot")
        self.robot = robot
        self.model = NEPVPEngine(robot)
        self.options = dict(options or {})
        s = self.model.layout
        na, ne = s.na, s.ne
        names, units = [], []
        for k in s.actuated:
            jt = robot.joints[s.joints[k] - 1]
            names.append(jt.name)
            units.append("m" if jt.kind == "prismatic" else "rad")
        enames = list(s.elastic_names)
        eunits = []
        for j, sh in s.shapes.items():
            comps = sh.beam.node_coordinates
            for i in range(sh.N):
                comp = comps[i % len(comps)]
                eunits.append(_UNITS.get(comp, "m"))
        self.coordinates = Coordinates(tuple(names) + tuple(enames), tuple(units + eunits),
                                       ("actuated",) * na + ("elastic",) * ne)
        # root slopes of assumed-mode beams carried by actuated revolute joints
        R = np.zeros((na, ne))
        nj = len(s.joints)
        for a, k in enumerate(s.actuated):
            j = s.joints[k]
            body = robot.bodies.get(j)
            if isinstance(body, FlexibleBeam) and body.shapes != "fe" and \
                    robot.joints[j - 1].kind == "revolute":
                _, rot = s.shapes[j].at(0.0)
                cols = np.array(s.ecols[j]) - nj
                R[a, cols] = rot[2]
        self._R = R
        self._plain = not R.any()
        # friction of eq. (26) acts on the joint's variable; with a root slope the motor
        # turns the shaft angle q_c instead: the generated model then carries no friction
        # on those joints, and bias() adds it on the contract's actuated coordinates
        self._shaft_friction = None
        act = [robot.joints[s.joints[k] - 1].name for k in s.actuated]
        sloped = [nm for a, nm in enumerate(act) if R[a].any()]
        if sloped and any(nm in robot.viscous or nm in robot.coulomb for nm in sloped):
            from dataclasses import replace

            from ...description.friction import Friction
            self._shaft_friction = [
                Friction(viscous=robot.viscous.get(nm, 0.0),
                         coulomb=robot.coulomb.get(nm, 0.0), smoothing_velocity=0.0)
                if nm in sloped else None for nm in act]
            robot = replace(robot, viscous={k: v for k, v in robot.viscous.items()
                                            if k not in sloped},
                            coulomb={k: v for k, v in robot.coulomb.items()
                                     if k not in sloped})
            self.model = NEPVPEngine(robot)
        self.T = np.eye(na + ne)
        self.T[:na, na:] = -R
        self._cache: OrderedDict = OrderedDict()
        # von Karman membrane force of the stiffened beams (nepvp._stiffening), for the
        # exact part of the tangent (_tangent): (elastic columns, BeamShapes.membrane)
        sym = self.model.layout
        self._membrane = [(np.array(sym.ecols[j]) - len(sym.joints), sh.membrane)
                          for j, sh in sym.shapes.items()
                          if robot.bodies[j].geometric_stiffening and not sh.modal]

    # ------------------------------------------------------------------ states
    def home_actuated(self) -> np.ndarray:
        return self.model.home[self.model.actuated].copy()

    def _split(self, st: State):
        qm, vm = self.T @ st.q, self.T @ st.v
        na = self.n_actuated
        return qm[:na], qm[na:], vm[:na], vm[na:]

    def _complete(self, st: State) -> State:
        qa, e, _, _ = self._split(st)
        guess = st.detail.get("joints")
        joints = (self.model.closure(qa, e, guess=guess) if guess is not None
                  else self.model.closure(qa, e))
        detail = dict(st.detail, joints=joints)
        st = st.with_(passive=joints[self.model.passive], detail=detail)
        if "pose" in self.capabilities:
            qa, e, va, ve = self._split(st)
            _, _, xp = self.model.kinematics(joints, e, va, ve)
            st = st.with_(pose=real_array(xp).reshape(-1))    # complex in a complex step
        return st

    def close_along(self, actuated) -> int:
        """Check that the loops close along a sampled actuated path (n, n_a), as the
        motion-driven simulation follows it: the first sample from the home
        configuration, each next one by Newton from the previous solution (the same
        branch), retried from home when that fails. Returns the index of the first
        sample where the loops do not close, or -1 (one closure per sample, not a
        continuation from home each: 10x fewer evaluations on the five-bar)."""
        from ...exceptions import ModelError
        qa = np.asarray(actuated, dtype=float).reshape(-1, self.n_actuated)
        e = np.zeros(self.n_elastic)
        q = None
        for k, row in enumerate(qa):
            qm = self.T[:self.n_actuated, :self.n_actuated] @ row
            try:
                q = self.model.closure(qm, e, guess=q) if q is not None else None
            except ModelError:
                q = None
            if q is None:
                try:
                    q = self.model.closure(qm, e)
                except (InputError, ModelError):
                    return k
        return -1

    # ------------------------------------------------------------------ dynamics
    def _mc(self, st: State):
        key = (st.q.tobytes(), st.v.tobytes(), st.detail["joints"].tobytes())
        hit = self._cache.get(key)
        if hit is None:
            _, e, va, ve = self._split(st)
            M, c = self.model.dynamics(st.detail["joints"], e, va, ve)
            c = self.T.T @ c
            if self._shaft_friction is not None:
                for a, f in enumerate(self._shaft_friction):
                    if f is not None:
                        c[a] += float(f.torque(st.v[a]))
            hit = (self.T.T @ M @ self.T, c)
            self._cache[key] = hit
            if len(self._cache) > 64:
                self._cache.popitem(last=False)
        return hit

    def mass_matrix(self, st: State) -> np.ndarray:
        return self._mc(st)[0].copy()

    def bias(self, st: State) -> np.ndarray:
        return self._mc(st)[1].copy()

    def residual(self, st: State) -> np.ndarray:
        M, c = self._mc(st)
        return M @ st.a + c

    def inverse_dynamics(self, st: State) -> Efforts:
        """The generated inverse model (Briot & Khalil 2013 IV-D: tau and the elastic
        accelerations for prescribed actuated accelerations)."""
        if not self._plain:
            return super().inverse_dynamics(st)
        _, e, va, ve = self._split(st)
        tau, edd = self.model.inverse(st.detail["joints"], e, va, ve,
                                      st.actuated_accelerations)
        return Efforts(np.asarray(tau, float), np.asarray(edd, float))

    def direct_dynamics(self, st: State, tau) -> np.ndarray:
        """The generated direct model (accelerations for efforts tau)."""
        if not self._plain:
            return super().direct_dynamics(st, tau)
        _, e, va, ve = self._split(st)
        qdd, edd = self.model.direct(st.detail["joints"], e, va, ve,
                                     np.asarray(tau, dtype=float).reshape(self.n_actuated))
        return np.concatenate([qdd, edd])

    def elastic_stiffness(self) -> np.ndarray:
        return self.model.stiffness

    def deformation_extent(self, elastic) -> tuple[np.ndarray, np.ndarray]:
        """The largest elastic displacement over its beam's length (n_t,) [-] and the
        largest elastic rotation (n_t,) [rad] of elastic coordinates (n_t, n_e), at the
        beams' nodes and element midpoints (assumed modes: 4 per mode plus 9 points) in
        the beams' frames (:class:`~elastodyn.model.SmallDeformation`)."""
        return beam_extent(elastic, self._extent_rows)

    @cached_property
    def _extent_rows(self) -> list:
        s = self.model.layout
        first = len(s.joints)
        rows = []
        for j, sh in s.shapes.items():
            L = float(np.real(sh.beam.length))
            n_s = 4 * sh.N + 9 if sh.modal else 2 * sh.n + 1
            at = [sh.at(x) for x in np.linspace(0.0, L, n_s)]
            rows.append(([c - first for c in s.ecols[j]], np.array([d for d, _ in at]),
                         np.array([r for _, r in at]), L))
        return rows

    # ------------------------------------------------------------------ derivatives
    def membrane_force(self, e):
        """The von Karman part of the elastic force of the beams, f(e) (n_e,), and its
        Jacobian df/de (n_e, n_e), in numpy: the same force as the generated model's
        (:func:`~elastodyn.formulations.nepvp._stiffening`; the elastic rows of c hold
        it with coefficient 1): per element, f = EA l_e (h a + eps G e) and
        df/de = EA l_e ((a + G e)(a + G e)^T - a a^T + eps G), h = e^T G e / 2,
        eps = a . e + h (:attr:`~elastodyn.formulations.nepvp_beam.BeamShapes.membrane`)."""
        e = real_array(e).reshape(self.n_elastic)
        dt = np.result_type(e, *[EAl for _, mb in self._membrane for EAl, _, _ in mb])
        f = np.zeros(self.n_elastic, dt)              # complex in a complex step
        J = np.zeros((self.n_elastic, self.n_elastic), dt)
        for cols, membrane in self._membrane:
            eb = e[cols]
            blk = np.ix_(cols, cols)
            for EAl, a, G in membrane:
                Ge = G @ eb
                h = 0.5 * (eb @ Ge)
                eps = a @ eb + h
                d = a + Ge
                f[cols] += EAl * (h * a + eps * Ge)
                J[blk] += EAl * (np.outer(d, d) - np.outer(a, a) + eps * G)
        return f, J

    def _tangent(self, state: State):
        """(K, C) of the base class (central differences of the compiled model), with the
        derivative of the membrane force taken exactly.

        Decision: the membrane force is a cubic polynomial of the elastic coordinates
        whose curvature scale is the section's radius of gyration r, not the link length:
        its central difference of step h errs by h^2/6 times its third derivative, about
        (h / r)^2 of the bending stiffness (1e-6 for h = 1e-6 m and a 5 mm section,
        against the 1e-10 of the other terms, whose scale is the link length). Its exact
        Jacobian replaces its difference quotient (same steps, so that the rest of the
        model keeps its central difference): K_ee += df/de - (f(e + h) - f(e - h)) / 2h.
        The contract's elastic coordinates are the model's (T leaves them unchanged) and
        the force sits on the elastic rows (T^T [0; f] = [0; f])."""
        K, C = super()._tangent(state)
        if not self._membrane:
            return K, C
        na, ne = self.n_actuated, self.n_elastic
        e = self._split(state)[1]
        h = FD_STEP

        def f(x):
            return self.membrane_force(x)[0]
        _, J = self.membrane_force(e)
        for j in range(ne):
            d = np.zeros(ne)
            d[j] = h
            J[:, j] -= (f(e + d) - f(e - d)) / (2 * h)
        K[na:, na:] += J
        return K, C

    # ------------------------------------------------------------------ motion
    def simulate_motion(self, trajectory, times, *, initial: str = "static",
                        method: str | None = None, integrator_step: float | None = None,
                        progress=None):
        """The elastic response to a prescribed actuated motion
        (:class:`~elastodyn.model.SimulatesMotion`): a joint-space motion of a model
        without root slopes runs on the compiled engine
        (:func:`~elastodyn.formulations.nepvp.simulation.simulate_motion`: rk4 or
        generalized-alpha, ``auto`` by default, or dop853; ``integrator_step`` its step
        bound), any other on the generic engine of the contract."""
        if not (self._plain and trajectory.space == "joint"):
            if integrator_step is not None:
                raise InputError("--integrator-step", integrator_step,
                                 "only for the compiled NE-PVP engine (a joint-space "
                                 "motion of a model without root slopes)")
            return super().simulate_motion(trajectory, times, initial=initial,
                                           method=method, progress=progress)
        import math

        from ...model import MotionResponse
        from .simulation import METHODS
        from .simulation import simulate_motion as engine
        method = method or "auto"
        if method not in METHODS:
            raise InputError("--method", method, " or ".join(METHODS) + " for NE-PVP")
        if integrator_step is not None and not (math.isfinite(integrator_step) and
                                                integrator_step > 0):
            raise InputError("--integrator-step", integrator_step, "a finite step > 0 [s]")
        if trajectory.dim != self.n_actuated:
            raise InputError("--trajectory", trajectory.dim,
                             f"{self.n_actuated} actuated coordinates")
        step = float(times[1] - times[0]) if len(times) > 1 else 1e-3
        sim = engine(self.model, trajectory, end=float(times[-1]), step=step,
                     initial=initial, method=method, max_step=integrator_step)
        where = ["xyz".index(r) for r in sim.rows]

        def xyz(a):
            out = np.zeros((len(sim.time), 3))
            out[:, where] = a
            return out
        extra = {"ee_velocity_m_s": xyz(sim.ee_velocity),
                 "rigid_ee_velocity_m_s": xyz(sim.rigid_ee_velocity)}
        cols = {"ee_velocity_m_s": [f"ee_v{c}_m_s" for c in "xyz"],
                "rigid_ee_velocity_m_s": [f"rigid_ee_v{c}_m_s" for c in "xyz"]}
        dv = sim.ee_velocity - sim.rigid_ee_velocity
        summary = {"max_ee_velocity_m_s": np.abs(sim.ee_velocity).max(axis=0).tolist(),
                   "max_velocity_deviation_m_s": np.abs(dv).max(axis=0).tolist(),
                   "rhs_evaluations": sim.evaluations, "ee_rows": list(sim.rows)}
        return MotionResponse(
            sim.time, trajectory.evaluate(sim.time).position, sim.tau, sim.rigid_tau,
            xyz(sim.ee_position), xyz(sim.rigid_ee_position), sim.e, extra=extra,
            columns=cols, summary=summary, method=sim.method,
            description=(f"NE-PVP, {self.model.ne} elastic dof, {sim.method}, initial "
                         f"state: {sim.initial}"))

    def program(self, problem: str = "inverse"):
        """The symbolic straight-line program of ``problem`` (model, inverse, direct,
        closure, kinematics) in the model's own coordinates (joint variables)."""
        return self.model.program(problem)

    def export_closure(self):
        """The loop closure printed next to an exported program (a
        :class:`~elastodyn.symbolic.core.Closure`, ``generate``), None for an open
        chain (no passive joint)."""
        return self.model.export_closure()
